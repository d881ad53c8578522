//! The labelled set's file (`CASES_DIR/cases.yml`, schema `judge-ci.calibrate-cases.v1`):
//! the config whose semantic checks are calibrated, the reference, and each case's workspace
//! with a human label per check or per criterion and a one-line reason. Read with positions
//! ([`crate::config::yaml::Reader`]): every problem is reported at once at its
//! `file:line:column` with what would be valid.
//!
//! ```yaml
//! schema: judge-ci.calibrate-cases.v1
//! config: judge-ci.yml          # relative to this file
//! task: task.yaml               # optional: its instruction is the goal the model is shown
//! reference: reference          # a folder, or {rev: REV} of `repository`
//! repository: history.git       # optional: the git repository revisions are taken from
//! cases:
//!   - name: migrated
//!     from: "examples/jakarta-migration/reference, unchanged"
//!     workspace: cases/migrated   # a folder, or {rev: REV}
//!     labels:
//!       review: {label: pass, why: "every import moved, nothing else changed"}
//!       behaviour:
//!         criteria:
//!           "The servlet answers as before": {label: pass, why: "same body and status"}
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;

use super::stats::Label;
use crate::config::yaml::{Kind, Reader, key, parse};
use crate::config::{Diagnostic, Diagnostics, Loc};

/// The case file's name inside `CASES_DIR`.
pub const CASES_FILE: &str = "cases.yml";

/// The case file's schema name.
pub const CASES_SCHEMA: &str = "judge-ci.calibrate-cases.v1";

/// Where a tree comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Side {
    /// A folder (absolute, resolved against the case file's folder).
    Folder(PathBuf),
    /// A revision of the set's `repository`.
    Rev(String),
}

/// One human label with its reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Labelled {
    /// PASS or FAIL.
    pub label: Label,
    /// The one-line reason.
    pub why: String,
    /// Where it is written.
    pub loc: Option<Loc>,
}

/// What is labelled of one check: its own outcome, its criteria, or both.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckLabels {
    /// The check's name in the config.
    pub check: String,
    /// Where the name is written.
    pub loc: Option<Loc>,
    /// The check's own label (its judgment's PASS or FAIL).
    pub overall: Option<Labelled>,
    /// Labels of named criteria (a semantic-diff criterion, by its text).
    pub criteria: Vec<(String, Labelled)>,
}

/// One labelled case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Its unique name (a folder name: letters, digits, `-`, `_`, `.`).
    pub name: String,
    /// Where it came from, in words.
    pub from: Option<String>,
    /// The subject.
    pub workspace: Side,
    /// Its own reference, when not the set's.
    pub reference: Option<Side>,
    /// What it is labelled.
    pub labels: Vec<CheckLabels>,
    /// Where it is written.
    pub loc: Option<Loc>,
}

/// The whole labelled set.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseSet {
    /// The case file.
    pub file: PathBuf,
    /// The config (absolute).
    pub config: PathBuf,
    /// The task file (absolute), when given.
    pub task: Option<PathBuf>,
    /// The default reference.
    pub reference: Side,
    /// The repository revisions are taken from (absolute).
    pub repository: Option<PathBuf>,
    /// The cases, in file order.
    pub cases: Vec<Case>,
}

#[rustfmt::skip]
const TOP_KEYS: &[crate::config::yaml::Key] = &[
    key("schema", Kind::Str, "judge-ci.calibrate-cases.v1"),
    key("config", Kind::Str, "the config whose semantic checks are calibrated"),
    key("task", Kind::Str, "a task file whose instruction is the goal"),
    key("reference", Kind::Any, "the reference: a folder or {rev: REV}"),
    key("repository", Kind::Str, "the git repository revisions are taken from"),
    key("cases", Kind::ObjectList, "the labelled cases"),
];

#[rustfmt::skip]
const CASE_KEYS: &[crate::config::yaml::Key] = &[
    key("name", Kind::Str, "the case's unique name"),
    key("from", Kind::Str, "where the case came from"),
    key("workspace", Kind::Any, "the subject: a folder or {rev: REV}"),
    key("reference", Kind::Any, "the case's own reference"),
    key("labels", Kind::Object, "labels by check name"),
];

#[rustfmt::skip]
const LABEL_KEYS: &[crate::config::yaml::Key] = &[
    key("label", Kind::Str, "pass or fail"),
    key("why", Kind::Str, "the label's one-line reason"),
    key("criteria", Kind::Object, "labels by criterion"),
];

#[rustfmt::skip]
const CRITERION_KEYS: &[crate::config::yaml::Key] = &[
    key("label", Kind::Str, "pass or fail"),
    key("why", Kind::Str, "the label's one-line reason"),
];

#[rustfmt::skip]
const REV_KEYS: &[crate::config::yaml::Key] = &[key("rev", Kind::Str, "a revision of `repository`")];

/// Why the case file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CasesError {
    /// The file cannot be read.
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Its content is wrong: every problem, at its place.
    #[error("{}", .0.render(false).trim_end())]
    Invalid(Diagnostics),
}

/// Reads `dir/cases.yml`.
pub fn read(dir: &Path) -> Result<CaseSet, CasesError> {
    let path = dir.join(CASES_FILE);
    let text =
        crate::untrusted::read_string_io(&path, 4 << 20).map_err(|source| CasesError::Read {
            path: path.clone(),
            source,
        })?;
    parse_set(&path, &text)
}

/// Reads a case file's text (`path` names it in messages and anchors relative paths).
pub fn parse_set(path: &Path, text: &str) -> Result<CaseSet, CasesError> {
    let file = Arc::new(path.to_path_buf());
    let root = parse(&file, text).map_err(|d| {
        let mut ds = Diagnostics::default();
        ds.push(d);
        CasesError::Invalid(ds)
    })?;
    let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut r = Reader::new(Arc::clone(&file));
    let set = read_top(&mut r, &root, &base);
    match set {
        Some(s) if !r.diags.has_errors() => Ok(s),
        _ => Err(CasesError::Invalid(r.diags)),
    }
}

fn read_top(r: &mut Reader, root: &Node, base: &Path) -> Option<CaseSet> {
    let m = r.mapping(root, "the case file")?;
    r.check_keys(m, "the case file", TOP_KEYS, false);
    match m.get_node("schema") {
        Some(n) => {
            if let Some(s) = r.string(n, "schema")
                && s != CASES_SCHEMA
            {
                r.error_help(
                    n,
                    format!("schema '{s}' is not a case file's"),
                    format!("write schema: {CASES_SCHEMA}"),
                );
            }
        }
        None => {
            r.diags.push(
                Diagnostic::error(r.loc(root), "the case file has no `schema:`")
                    .help(format!("write schema: {CASES_SCHEMA} first")),
            );
        }
    }
    let config = required(
        r,
        m,
        root,
        "config",
        "the config whose semantic checks are calibrated (judge-ci.yml)",
    )
    .and_then(|n| r.non_blank(n, "config"))
    .map(|s| base.join(s));
    let task = m
        .get_node("task")
        .and_then(|n| r.non_blank(n, "task"))
        .map(|s| base.join(s));
    let repository = m
        .get_node("repository")
        .and_then(|n| r.non_blank(n, "repository"))
        .map(|s| base.join(s));
    let has_repo = m.get_node("repository").is_some();
    let reference = required(
        r,
        m,
        root,
        "reference",
        "the reference: a folder, or {rev: REV}",
    )
    .and_then(|n| side(r, n, "reference", base, has_repo));
    let cases = required(
        r,
        m,
        root,
        "cases",
        "a list of cases, each with name, workspace and labels",
    )
    .and_then(|n| read_cases(r, n, base, has_repo));
    Some(CaseSet {
        file: r.file.as_ref().clone(),
        config: config?,
        task,
        reference: reference?,
        repository,
        cases: cases?,
    })
}

fn required<'n>(
    r: &mut Reader,
    m: &'n MarkedMappingNode,
    at: &Node,
    k: &str,
    what: &str,
) -> Option<&'n Node> {
    let n = m.get_node(k);
    if n.is_none() {
        r.diags.push(
            Diagnostic::error(r.loc(at), format!("missing `{k}:`")).help(format!("give {what}")),
        );
    }
    n
}

/// A folder (a string) or `{rev: REV}`.
fn side(r: &mut Reader, n: &Node, what: &str, base: &Path, has_repo: bool) -> Option<Side> {
    match n {
        Node::Mapping(m) => {
            r.check_keys(m, what, REV_KEYS, false);
            let rev_node = m.get_node("rev");
            let Some(rev_node) = rev_node else {
                r.error_help(
                    n,
                    format!("{what} has no `rev:`"),
                    "write {rev: REV}, or a folder",
                );
                return None;
            };
            let rev = r.non_blank(rev_node, &format!("{what}.rev"))?;
            if !has_repo {
                r.error_help(
                    rev_node,
                    format!("{what}.rev '{rev}' names a revision, and the case file names no `repository:`"),
                    "add `repository: PATH` (a git repository, relative to the case file) at the top",
                );
                return None;
            }
            Some(Side::Rev(rev))
        }
        _ => {
            let s = r.non_blank(n, what)?;
            let p = base.join(&s);
            if !p.is_dir() {
                r.error_help(
                    n,
                    format!(
                        "{what} '{s}' is not a folder ({} does not exist)",
                        p.display()
                    ),
                    "give a folder relative to the case file, or {rev: REV} of `repository`",
                );
                return None;
            }
            Some(Side::Folder(p))
        }
    }
}

fn read_cases(r: &mut Reader, n: &Node, base: &Path, has_repo: bool) -> Option<Vec<Case>> {
    let Node::Sequence(items) = n else {
        r.error(n, "cases must be a list of cases");
        return None;
    };
    if items.is_empty() {
        r.error(n, "cases is empty: give at least one labelled case");
        return None;
    }
    let mut out = Vec::new();
    let mut ok = true;
    let mut names: std::collections::BTreeMap<String, usize> = Default::default();
    for (i, item) in items.iter().enumerate() {
        let what = format!("cases[{i}]");
        match read_case(r, item, &what, base, has_repo) {
            Some(c) => {
                if let Some(first) = names.insert(c.name.clone(), i) {
                    let at = item
                        .as_mapping()
                        .and_then(|m| m.get_node("name"))
                        .unwrap_or(item);
                    r.error_help(
                        at,
                        format!("{what}.name '{}' is taken by cases[{first}]", c.name),
                        "give every case its own name",
                    );
                    ok = false;
                }
                out.push(c);
            }
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn read_case(r: &mut Reader, n: &Node, what: &str, base: &Path, has_repo: bool) -> Option<Case> {
    let m = r.mapping(n, what)?;
    r.check_keys(m, what, CASE_KEYS, false);
    let name = required(r, m, n, "name", "the case's name").and_then(|x| {
        let s = r.non_blank(x, &format!("{what}.name"))?;
        let fine = s.len() <= 64
            && !s.starts_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !fine {
            r.error_help(
                x,
                format!("{what}.name '{s}' is not a usable folder name"),
                "letters, digits, '-', '_' and '.', at most 64, not starting with '.'",
            );
            return None;
        }
        Some(s)
    });
    let from = m
        .get_node("from")
        .and_then(|x| r.non_blank(x, &format!("{what}.from")));
    let workspace = required(
        r,
        m,
        n,
        "workspace",
        "the case's workspace: a folder, or {rev: REV}",
    )
    .and_then(|x| side(r, x, &format!("{what}.workspace"), base, has_repo));
    let reference = match m.get_node("reference") {
        Some(x) => Some(side(r, x, &format!("{what}.reference"), base, has_repo)?),
        None => None,
    };
    let labels = required(
        r,
        m,
        n,
        "labels",
        "labels by check name: {CHECK: {label: pass, why: \"…\"}}",
    )
    .and_then(|x| read_labels(r, x, &format!("{what}.labels")));
    Some(Case {
        name: name?,
        from,
        workspace: workspace?,
        reference,
        labels: labels?,
        loc: r.loc(n),
    })
}

fn read_labels(r: &mut Reader, n: &Node, what: &str) -> Option<Vec<CheckLabels>> {
    let m = r.mapping(n, what)?;
    if m.is_empty() {
        r.error(n, format!("{what} is empty: label at least one check"));
        return None;
    }
    let mut out = Vec::new();
    let mut ok = true;
    for (k, v) in m.iter() {
        let w = format!("{what}.{}", k.as_str());
        let Some(vm) = r.mapping(v, &w) else {
            ok = false;
            continue;
        };
        r.check_keys(vm, &w, LABEL_KEYS, false);
        let overall = if vm.get_node("label").is_some() || vm.get_node("why").is_some() {
            match labelled(r, vm, v, &w) {
                Some(l) => Some(l),
                None => {
                    ok = false;
                    None
                }
            }
        } else {
            None
        };
        let mut criteria = Vec::new();
        if let Some(cn) = vm.get_node("criteria") {
            match r.mapping(cn, &format!("{w}.criteria")) {
                Some(cm) if cm.is_empty() => {
                    r.error(cn, format!("{w}.criteria is empty"));
                    ok = false;
                }
                Some(cm) => {
                    for (ck, cv) in cm.iter() {
                        let cw = format!("{w}.criteria[{:?}]", ck.as_str());
                        let Some(cvm) = r.mapping(cv, &cw) else {
                            ok = false;
                            continue;
                        };
                        r.check_keys(cvm, &cw, CRITERION_KEYS, false);
                        match labelled(r, cvm, cv, &cw) {
                            Some(l) => criteria.push((ck.as_str().to_string(), l)),
                            None => ok = false,
                        }
                    }
                }
                None => ok = false,
            }
        }
        if ["label", "why", "criteria"]
            .iter()
            .all(|k| vm.get_node(k).is_none())
        {
            r.error_help(
                v,
                format!("{w} labels nothing"),
                "write {label: pass, why: \"…\"} for the check, or criteria: {\"criterion\": {label: fail, why: \"…\"}}",
            );
            ok = false;
        }
        out.push(CheckLabels {
            check: k.as_str().to_string(),
            loc: r.key_loc(k),
            overall,
            criteria,
        });
    }
    ok.then_some(out)
}

/// `{label: pass|fail, why: "…"}`; the reason is required and one line.
fn labelled(r: &mut Reader, m: &MarkedMappingNode, at: &Node, what: &str) -> Option<Labelled> {
    let label = required(r, m, at, "label", "label: pass or label: fail").and_then(|n| {
        let s = r.string(n, &format!("{what}.label"))?;
        match s.as_str() {
            "pass" | "PASS" => Some(Label::Pass),
            "fail" | "FAIL" => Some(Label::Fail),
            _ => {
                r.error_help(
                    n,
                    format!("{what}.label '{s}' is not a label"),
                    "valid: pass, fail",
                );
                None
            }
        }
    });
    let why = required(r, m, at, "why", "the label's one-line reason").and_then(|n| {
        let s = r.non_blank(n, &format!("{what}.why"))?;
        if s.trim().contains('\n') {
            r.error_help(
                n,
                format!("{what}.why is more than one line"),
                "say the reason in one line; the README of the set holds the longer story",
            );
            return None;
        }
        Some(s.trim().to_string())
    });
    Some(Labelled {
        label: label?,
        why: why?,
        loc: r.loc(at),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(dir: &Path, text: &str) -> Result<CaseSet, CasesError> {
        parse_set(&dir.join(CASES_FILE), text)
    }

    fn errors(e: CasesError) -> String {
        match e {
            CasesError::Invalid(d) => d
                .errors()
                .map(|d| {
                    format!(
                        "{}: {}",
                        d.loc.as_ref().map(|l| l.to_string()).unwrap_or_default(),
                        d.message
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
            other => other.to_string(),
        }
    }

    #[test]
    fn a_case_file_reads_into_typed_cases() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("ref")).unwrap();
        std::fs::create_dir_all(d.path().join("a")).unwrap();
        let s = set(
            d.path(),
            "schema: judge-ci.calibrate-cases.v1\nconfig: judge-ci.yml\nreference: ref\nrepository: r.git\ncases:\n  - name: a\n    from: the example\n    workspace: a\n    labels:\n      review: {label: pass, why: all moved}\n      behaviour:\n        criteria:\n          \"It answers\": {label: fail, why: the status changed}\n  - name: b\n    workspace: {rev: v2}\n    labels:\n      review: {label: FAIL, why: half done}\n",
        )
        .unwrap();
        assert_eq!(s.config, d.path().join("judge-ci.yml"));
        assert_eq!(s.reference, Side::Folder(d.path().join("ref")));
        assert_eq!(s.cases.len(), 2);
        let a = &s.cases[0];
        assert_eq!(a.from.as_deref(), Some("the example"));
        assert_eq!(a.labels[0].check, "review");
        assert_eq!(a.labels[0].overall.as_ref().unwrap().label, Label::Pass);
        assert_eq!(a.labels[1].criteria[0].0, "It answers");
        assert_eq!(a.labels[1].criteria[0].1.label, Label::Fail);
        assert_eq!(s.cases[1].workspace, Side::Rev("v2".into()));
    }

    #[test]
    fn every_problem_is_reported_at_its_line_and_column() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("ref")).unwrap();
        let e = errors(
            set(
                d.path(),
                "schema: judge-ci.calibrate-cases.v1\nconfig: judge-ci.yml\nreference: ref\ncases:\n  - name: a\n    workspace: nowhere\n    labels:\n      review: {label: maybe, why: x}\n  - name: a\n    workspace: {rev: v1}\n    lables: {}\n    labels:\n      review: {label: pass}\n",
            )
            .unwrap_err(),
        );
        let at = |line: usize, col: usize, text: &str| {
            let want = format!("{}:{line}:{col}: ", d.path().join(CASES_FILE).display());
            assert!(
                e.lines().any(|l| l.starts_with(&want) && l.contains(text)),
                "no '{text}' at {line}:{col} in:\n{e}"
            );
        };
        at(6, 16, "is not a folder");
        at(8, 23, "'maybe' is not a label");
        at(10, 22, "names no `repository:`");
        at(11, 5, "unknown key 'lables'");
        at(13, 16, "missing `why:`");
    }

    #[test]
    fn a_reason_is_one_line_and_a_name_is_a_folder_name() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("ref")).unwrap();
        let e = errors(
            set(
                d.path(),
                "schema: judge-ci.calibrate-cases.v1\nconfig: c.yml\nreference: ref\ncases:\n  - name: ../up\n    workspace: ref\n    labels:\n      review: {label: pass, why: \"one\\ntwo\"}\n",
            )
            .unwrap_err(),
        );
        assert!(e.contains("is not a usable folder name"), "{e}");
        assert!(e.contains("more than one line"), "{e}");
        let e = errors(set(d.path(), "config: c.yml\nreference: ref\ncases: []\n").unwrap_err());
        assert!(
            e.contains("no `schema:`") && e.contains("cases is empty"),
            "{e}"
        );
    }
}
