//! `file-exists` and `file-content`: a file in the workspace as submitted, and what it holds
//! (a file a build wrote is not the pull request's: these read the snapshot taken before any
//! subject code ran, like the structural judges).

use super::read::{CheckNode, get, path_key, required};
use super::{CheckInfo, CheckKind, Facts, Family, Keeps, WorkspaceReads};
use crate::config::token;
use crate::config::yaml::{Kind, Reader, key};
use crate::judgment::Phase;

/// `file-exists`: PASS if the path is a regular file in the workspace.
#[rustfmt::skip]
pub const FILE_EXISTS: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Sources,
        keeps: Keeps::Nothing,
        reads_reference_folder: false,
        replayed_on_resume: true,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "PASS if the path is a regular file in the workspace as submitted (before any build or command ran)",
    keys: keys![key("path", Kind::Str, "path relative to the workspace")],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_file_exists),
};

/// Reads one `file-exists` check.
fn read_file_exists(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, whole, what) = (c.m, c.whole, c.what);
    required(r, m, whole, "path", what)?;
    Some(CheckKind::FileExists {
        path: path_key(r, m, "path", None, what)?,
    })
}

/// `file-content`: PASS if the file's content matches.
#[rustfmt::skip]
pub const FILE_CONTENT: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Sources,
        keeps: Keeps::Nothing,
        reads_reference_folder: false,
        replayed_on_resume: true,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "PASS if the file's content, as submitted (before any build or command ran), matches",
    keys: keys![
        key("path", Kind::Str, "path relative to the workspace"),
        key("expected", Kind::Str, "expected text or pattern"),
        key("match", Kind::Enum(token::accepted::<MatchMode>), "how the content is compared (EXACT; REGEX is found anywhere)")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_file_content),
};

/// Reads one `file-content` check.
fn read_file_content(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, whole, what) = (c.m, c.whole, c.what);
    required(r, m, whole, "path", what)?;
    let path = path_key(r, m, "path", None, what);
    let expected = required(r, m, whole, "expected", what)
        .and_then(|n| r.string(n, &format!("{what}.expected")));
    let mode = r.key_or(m, what, "match", MatchMode::Exact, Reader::token)?;
    let expected = expected?;
    if mode == MatchMode::Regex
        && let Err(e) = regex_lite_check(&expected)
    {
        let n = get(m, "expected")?;
        r.error(
            n,
            format!("{what}.expected is not a valid regular expression: {e}"),
        );
        return None;
    }
    Some(CheckKind::FileContent {
        path: path?,
        expected,
        mode,
    })
}

/// How `file-content` compares (`match`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::Display, strum::EnumIter, strum::IntoStaticStr,
)]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum MatchMode {
    /// The whole content equals the expected text.
    Exact,
    /// The content contains the expected text.
    Contains,
    /// The pattern is found anywhere in the content.
    Regex,
}

crate::config::token::strum_tokens!(MatchMode);

/// Validates a regular expression without keeping it (judges compile their own).
fn regex_lite_check(p: &str) -> Result<(), regex::Error> {
    regex::Regex::new(p).map(|_| ())
}
