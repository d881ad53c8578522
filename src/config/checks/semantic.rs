//! The semantic checks: a question for a language model (a verdict, a score, criteria, a
//! roster of requirements), with the model keys every semantic check shares.

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;
use std::path::Path;

use super::read::{CheckNode, get, path_key};
use super::{CheckInfo, CheckKind, Facts, Family, Keeps, WorkspaceReads};
use crate::config::llm::{CriteriaSource, LlmOutput, Question, RosterItem, RosterKind};
use crate::config::token;
use crate::config::yaml::{Kind, Reader, key};
use crate::judgment::Phase;

/// `llm`: asks a model for a verdict, score or criteria in a validated JSON shape.
#[rustfmt::skip]
pub const LLM: CheckInfo = CheckInfo {
    family: Family::Semantic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Everything,
        keeps: Keeps::Nothing,
        reads_reference_folder: true,
        replayed_on_resume: false,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "asks a model for a verdict, score or criteria in a validated JSON shape",
    keys: keys![
        key("prompt", Kind::Str, "prompt template file, relative to the config file"),
        key("output", Kind::Enum(token::accepted::<LlmOutput>), "requested shape"),
        key("threshold", Kind::Number, "pass threshold (0.5)")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_llm),
};

/// Reads one `llm` check.
fn read_llm(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    let output = r.key_or(m, what, "output", LlmOutput::Verdict, Reader::token)?;
    let threshold = r.key_or(m, what, "threshold", 0.5, |r, n, w| {
        r.number_in(n, w, 0.0..=1.0)
    })?;
    semantic(r, m, Question::Llm { output, threshold }, what)
}

/// `test-quality-llm`: agent-bench's test-quality rubric.
#[rustfmt::skip]
pub const TEST_QUALITY_LLM: CheckInfo = CheckInfo {
    family: Family::Semantic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Everything,
        keeps: Keeps::Nothing,
        reads_reference_folder: true,
        replayed_on_resume: false,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "agent-bench's test-quality rubric",
    keys: keys![key("prompt", Kind::Str, "prompt template file, relative to the config file")],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_test_quality_llm),
};

/// Reads one `test-quality-llm` check.
fn read_test_quality_llm(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    semantic(r, m, Question::TestQuality, what)
}

/// `semantic-diff`: one question per criterion; score = passed/total.
#[rustfmt::skip]
pub const SEMANTIC_DIFF: CheckInfo = CheckInfo {
    family: Family::Semantic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Everything,
        keeps: Keeps::Nothing,
        reads_reference_folder: true,
        replayed_on_resume: false,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "one question per criterion; score = passed/total",
    keys: keys![
        key("prompt", Kind::Str, "prompt template file, relative to the config file"),
        key("criteria", Kind::StrList, "criteria"),
        key("plan", Kind::Str, "plan file whose VERIFY: lines are criteria"),
        key("max-criteria", Kind::Integer, "most criteria asked (20)")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_semantic_diff),
};

/// Reads one `semantic-diff` check.
fn read_semantic_diff(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    let criteria = match (get(m, "criteria"), get(m, "plan")) {
        (Some(_), Some(p)) => {
            r.error_help(
                p,
                format!("{what} has both `criteria` and `plan`"),
                "keep one: the listed criteria, or the plan whose VERIFY: lines are the criteria",
            );
            return None;
        }
        (Some(n), None) => {
            let list = r.string_list(n, &format!("{what}.criteria"))?;
            if list.is_empty() {
                r.error(n, format!("{what}.criteria is empty"));
                return None;
            }
            CriteriaSource::Listed(list)
        }
        (None, Some(_)) => CriteriaSource::Plan(path_key(r, m, "plan", None, what)?),
        (None, None) => CriteriaSource::Goal,
    };
    let max = r.key_or(m, what, "max-criteria", 20, |r, n, w| {
        r.integer_in(n, w, 1..=200)
    })? as usize;
    semantic(r, m, Question::SemanticDiff { criteria, max }, what)
}

/// `correctness`: does the change achieve the goal (strict YES/NO).
#[rustfmt::skip]
pub const CORRECTNESS: CheckInfo = CheckInfo {
    family: Family::Semantic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Everything,
        keeps: Keeps::Nothing,
        reads_reference_folder: true,
        replayed_on_resume: false,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "does the change achieve the goal (strict YES/NO)",
    keys: keys![key("prompt", Kind::Str, "prompt template file, relative to the config file")],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_correctness),
};

/// Reads one `correctness` check.
fn read_correctness(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    semantic(r, m, Question::Correctness, what)
}

/// `ears`: EARS requirement roster.
#[rustfmt::skip]
pub const EARS: CheckInfo = CheckInfo {
    family: Family::Semantic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Everything,
        keeps: Keeps::Nothing,
        reads_reference_folder: true,
        replayed_on_resume: false,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "EARS requirement roster",
    keys: keys![
        key("prompt", Kind::Str, "prompt template file, relative to the config file"),
        key("criteria", Kind::Any, "list of {id, text, applies-when?}"),
        key("criteria-file", Kind::Str, "file holding the criteria")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_ears),
};

/// Reads one `ears` check.
fn read_ears(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    roster_check(r, c, RosterKind::Ears)
}

/// `rfc2119`: RFC 2119 constraint roster.
#[rustfmt::skip]
pub const RFC2119: CheckInfo = CheckInfo {
    family: Family::Semantic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Everything,
        keeps: Keeps::Nothing,
        reads_reference_folder: true,
        replayed_on_resume: false,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "RFC 2119 constraint roster",
    keys: keys![
        key("prompt", Kind::Str, "prompt template file, relative to the config file"),
        key("criteria", Kind::Any, "list of {id, text, applies-when?}"),
        key("criteria-file", Kind::Str, "file holding the criteria")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_rfc2119),
};

/// Reads one `rfc2119` check.
fn read_rfc2119(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    roster_check(r, c, RosterKind::Rfc2119)
}

/// An EARS or RFC 2119 roster check.
fn roster_check(r: &mut Reader, c: &CheckNode<'_>, kind: RosterKind) -> Option<CheckKind> {
    let (m, whole, what) = (c.m, c.whole, c.what);
    let items = roster(r, m, whole, what)?;
    semantic(r, m, Question::Roster { kind, items }, what)
}

/// A semantic check: its question, its model settings and its prompt template.
fn semantic(
    r: &mut Reader,
    m: &MarkedMappingNode,
    question: Question,
    what: &str,
) -> Option<CheckKind> {
    let llm = crate::config::llm::read(r, m, what)?;
    let prompt = match get(m, "prompt") {
        Some(n) => {
            let p = r.non_blank(n, &format!("{what}.prompt"))?;
            let dir = r.file.parent().map(Path::to_path_buf).unwrap_or_default();
            let full = dir.join(&p);
            match r.source.read_to_string(&full) {
                Ok(text) => Some((full, text)),
                Err(e) => {
                    r.error_help(
                        n,
                        format!("{what}.prompt: cannot read {}: {e}", full.display()),
                        "the prompt is a minijinja template file, relative to the config file",
                    );
                    return None;
                }
            }
        }
        None => None,
    };
    Some(CheckKind::Semantic {
        question,
        llm: Box::new(llm),
        prompt,
    })
}

/// The items of an EARS or RFC 2119 roster, from `criteria` or `criteria-file`.
fn roster(
    r: &mut Reader,
    m: &MarkedMappingNode,
    whole: &Node,
    what: &str,
) -> Option<Vec<RosterItem>> {
    let value = match (get(m, "criteria"), get(m, "criteria-file")) {
        (Some(n), None) => crate::config::yaml::to_json(n),
        (None, Some(n)) => {
            let p = r.non_blank(n, &format!("{what}.criteria-file"))?;
            let dir = r.file.parent().map(Path::to_path_buf).unwrap_or_default();
            let full = dir.join(&p);
            let text = match r.source.read_to_string(&full) {
                Ok(t) => t,
                Err(e) => {
                    r.error(
                        n,
                        format!("{what}.criteria-file: cannot read {}: {e}", full.display()),
                    );
                    return None;
                }
            };
            // The file is the list itself (`- {id: R1, text: …}`).
            let opts = marked_yaml::LoaderOptions::default().toplevel_sequence();
            match marked_yaml::parse_yaml_with_options(0, &text, opts) {
                Ok(doc) => crate::config::yaml::to_json(&doc),
                Err(e) => {
                    r.error(n, format!("{what}.criteria-file {}: {e}", full.display()));
                    return None;
                }
            }
        }
        (Some(_), Some(n)) => {
            r.error(
                n,
                format!("{what} has both `criteria` and `criteria-file`; keep one"),
            );
            return None;
        }
        (None, None) => {
            r.error_help(
                whole,
                format!("{what} needs `criteria` or `criteria-file`"),
                "list the requirements: criteria: [{id: R1, text: \"…\", applies-when: \"…\"}]",
            );
            return None;
        }
    };
    let at = get(m, "criteria")
        .or(get(m, "criteria-file"))
        .unwrap_or(whole);
    let Some(list) = value.as_array().filter(|l| !l.is_empty()) else {
        r.error_help(
            at,
            format!("{what}: the criteria must be a non-empty list"),
            "each item is {id, text, applies-when?}",
        );
        return None;
    };
    let mut items = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, v) in list.iter().enumerate() {
        let field = |k: &str| v.get(k).and_then(serde_json::Value::as_str).map(str::trim);
        match (field("id"), field("text")) {
            (Some(id), Some(text)) if !id.is_empty() && !text.is_empty() => {
                if !id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                {
                    r.error(at, format!("{what}: criterion {} id '{id}' may hold letters, digits, '-', '_' and '.' only", i + 1));
                    return None;
                }
                if !seen.insert(id.to_string()) {
                    r.error(at, format!("{what}: criterion id '{id}' appears twice"));
                    return None;
                }
                items.push(RosterItem {
                    id: id.to_string(),
                    text: text.to_string(),
                    applies_when: field("applies-when")
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                });
            }
            _ => {
                r.error_help(
                    at,
                    format!(
                        "{what}: criterion {} needs a non-empty `id` and `text`",
                        i + 1
                    ),
                    "each item is {id, text, applies-when?}",
                );
                return None;
            }
        }
    }
    Some(items)
}
