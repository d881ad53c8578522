//! `file-exists` and `file-content` (jury-semantics §3.1).

use regex::Regex;
use std::path::Path;

use crate::config::checks::{MatchMode, WorkspacePath};
use crate::judgment::{Check, Fault, Finding, FindingKind, Judgment, Status};
use crate::untrusted::{Kind, ReadError};

use super::paths::{Resolved, resolve};
use super::{Outcome, build, instrument};

/// The regular file at `path`, or the judgment that ends the check: FAIL for nothing or a
/// directory, ERROR for a path that escapes the workspace.
fn locate(workspace: &Path, path: &WorkspacePath) -> Result<std::path::PathBuf, Box<Outcome>> {
    let shown = path.as_path().display();
    let fail = |reasoning: String, check: String| {
        let ended = Check::failed("file_exists", check)
            .map_err(Fault::from)
            .and_then(|c| {
                build(
                    Judgment::builder(Status::Fail)
                        .reasoning(reasoning)
                        .check(c),
                )
            });
        Err(Box::new(ended))
    };
    match resolve(workspace, path.as_path()) {
        Resolved::Escapes(why) => Err(Box::new(instrument(format!(
            "path escapes the workspace: {why}"
        )))),
        Resolved::ThroughLink(link) => Err(Box::new(super::not_regular_fail(
            "file check",
            Path::new(""),
            &[(link, Kind::Symlink)],
        ))),
        Resolved::Missing(_) => fail(
            format!("File not found: {shown}"),
            format!("{shown} does not exist"),
        ),
        Resolved::Inside(p) => match Kind::at(&p) {
            Some(Kind::Directory) => fail(
                format!("expected a file, found a directory: {shown}"),
                format!("{shown} is a directory"),
            ),
            Some(Kind::Regular) | None => Ok(p),
            Some(kind) => Err(Box::new(not_regular(path, kind))),
        },
    }
}

/// FAIL with a `file-not-regular` finding: a FIFO, socket or device where a file is expected
/// is never opened (opening a FIFO would wait for a writer for ever).
fn not_regular(path: &WorkspacePath, kind: Kind) -> Outcome {
    let shown = path.as_path().display().to_string();
    build(
        Judgment::builder(Status::Fail)
            .reasoning(format!(
                "{shown} is a {kind}, not a regular file; judge-ci does not read it"
            ))
            .check(Check::failed(
                "file_exists",
                format!("{shown} is a {kind}, not a regular file"),
            )?)
            .finding(
                Finding::new(shown.as_str(), FindingKind::FileNotRegular)
                    .actual(kind.word())
                    .message(format!("{shown} is a {kind}, not a regular file")),
            ),
    )
}

/// PASS for a regular file; FAIL for a directory or nothing; ERROR if the path escapes.
pub fn file_exists(workspace: &Path, path: &WorkspacePath) -> Outcome {
    if let Err(ended) = locate(workspace, path) {
        return *ended;
    }
    let shown = path.as_path().display();
    build(
        Judgment::builder(Status::Pass)
            .reasoning(format!("{shown} exists"))
            .check(Check::passed(
                "file_exists",
                format!("{shown} is a regular file"),
            )?),
    )
}

/// As `file_exists`, then compares the content.
pub fn file_content(
    workspace: &Path,
    path: &WorkspacePath,
    expected: &str,
    mode: MatchMode,
) -> Outcome {
    let shown = path.as_path().display();
    let file = match locate(workspace, path) {
        Ok(f) => f,
        Err(ended) => return *ended,
    };
    let content = match crate::untrusted::read_text(&file, super::paths::MAX_CONTENT_BYTES) {
        Ok(text) => text,
        // Swapped for a FIFO (say) after it was located: still never opened blocking.
        Err(ReadError::NotRegular { kind, .. }) => return not_regular(path, kind),
        Err(e) => {
            let e = e.to_string();
            return build(
                Judgment::builder(Status::Error)
                    .reason_code(crate::judgment::ReasonCode::JudgeReported)
                    .reasoning(format!("{shown} exists but cannot be read: {e}"))
                    .check(Check::passed("file_exists", "")?)
                    .check(Check::failed("file_readable", e)?),
            );
        }
    };
    let (matched, yes, no) = match mode {
        MatchMode::Exact => (content == expected, "equals", "does not equal"),
        MatchMode::Contains => (content.contains(expected), "contains", "does not contain"),
        MatchMode::Regex => match Regex::new(expected) {
            Ok(re) => (re.is_match(&content), "matches", "does not match"),
            Err(e) => {
                return instrument(format!(
                    "the expected pattern is not a valid regular expression: {e}"
                ));
            }
        },
    };
    let reasoning = format!(
        "{shown} {} the expected content",
        if matched { yes } else { no }
    );
    build(
        Judgment::builder(if matched { Status::Pass } else { Status::Fail })
            .reasoning(reasoning)
            .check(Check::passed("file_exists", "")?)
            .check(Check::passed("file_readable", "")?)
            .check(Check::new(
                "content_match",
                matched,
                format!("{mode} match against {} expected byte(s)", expected.len()),
            )?),
    )
}
