//! `diagnostics:`: the optional inputs of the gap analysis (the agent's plan and journal and an
//! analysis file in the workspace, a knowledge folder beside the config) and user rules that
//! run before the built-in ones.

use std::path::PathBuf;

use globset::{Glob, GlobMatcher};
use marked_yaml::Node;
use regex::Regex;

use crate::judgment::{GapCategory, Status};

use super::checks::WorkspacePath;
use super::token;
use super::yaml::{Key, Kind, Reader, key};

/// Keys of `diagnostics:`.
#[rustfmt::skip]
pub const DIAGNOSTICS_KEYS: &[Key] = &[
    key("plan", Kind::Str, "the agent's plan, a file in the workspace"),
    key("knowledge", Kind::Str, "a folder of knowledge-base files, relative to the config"),
    key("analysis", Kind::Str, "a JSON file of detected patterns, in the workspace"),
    key("journal", Kind::Str, "the agent's trace as JSON lines, in the workspace"),
    key("rules", Kind::ObjectList, "user rules, matched before the built-in ones"),
];

/// Keys of a user rule.
#[rustfmt::skip]
pub const RULE_KEYS: &[Key] = &[
    key("id", Kind::Str, "the rule's name in findings"),
    key("type", Kind::Str, "judge type"),
    key("name", Kind::Str, "judge name"),
    key("status", Kind::Enum(token::accepted::<Status>), "judgment status"),
    key("check", Kind::Str, "check-name glob"),
    key("reason", Kind::Str, "reason code"),
    key("output", Kind::Str, "regular expression over the reasoning, checks and output"),
    key("category", Kind::Enum(token::accepted::<GapCategory>), "the gap category"),
    key("rationale", Kind::Str, "why, shown with the finding"),
];

/// A user rule: every given condition must hold.
#[derive(Clone, Debug)]
pub struct UserRule {
    /// Its name in findings.
    pub id: String,
    /// Judge type.
    pub judge_type: Option<String>,
    /// Judge name.
    pub name: Option<String>,
    /// Status.
    pub status: Option<Status>,
    /// Check-name glob.
    pub check: Option<GlobMatcher>,
    /// Reason code token.
    pub reason: Option<String>,
    /// Regular expression over the text of the judgment.
    pub output: Option<Regex>,
    /// The category it assigns.
    pub category: GapCategory,
    /// Why.
    pub rationale: Option<String>,
}

/// The analysis's inputs and user rules.
#[derive(Clone, Debug, Default)]
pub struct DiagnosticsSettings {
    /// The plan, in the workspace.
    pub plan: Option<WorkspacePath>,
    /// The knowledge folder, resolved against the config's folder.
    pub knowledge: Option<PathBuf>,
    /// The analysis JSON, in the workspace.
    pub analysis: Option<WorkspacePath>,
    /// The journal (JSON lines), in the workspace.
    pub journal: Option<WorkspacePath>,
    /// User rules, in order.
    pub rules: Vec<UserRule>,
}

fn workspace_path(r: &mut Reader, n: &Node, what: &str) -> Option<WorkspacePath> {
    let s = r.non_blank(n, what)?;
    match WorkspacePath::new(&s) {
        Ok(p) => Some(p),
        Err(e) => {
            r.error_help(
                n,
                format!("{what}: {e}"),
                "write a path relative to the workspace, without '..'",
            );
            None
        }
    }
}

/// Reads `diagnostics:`.
pub fn read(r: &mut Reader, n: &Node) -> Option<DiagnosticsSettings> {
    let m = r.mapping(n, "diagnostics")?;
    r.check_keys(m, "diagnostics", DIAGNOSTICS_KEYS, false);
    let mut s = DiagnosticsSettings::default();
    let mut ok = true;
    for (k, slot) in [("plan", 0), ("analysis", 1), ("journal", 2)] {
        if let Some(x) = m.get_node(k) {
            let p = workspace_path(r, x, &format!("diagnostics.{k}"));
            ok &= p.is_some();
            match slot {
                0 => s.plan = p,
                1 => s.analysis = p,
                _ => s.journal = p,
            }
        }
    }
    if let Some(x) = m.get_node("knowledge") {
        match r.non_blank(x, "diagnostics.knowledge") {
            Some(k) => {
                let dir = r.file.parent().map(PathBuf::from).unwrap_or_default();
                s.knowledge = Some(dir.join(k));
            }
            None => ok = false,
        }
    }
    if let Some(x) = m.get_node("rules") {
        let Some(list) = x.as_sequence() else {
            r.error(x, "diagnostics.rules must be a list of rules");
            return None;
        };
        for (i, item) in list.iter().enumerate() {
            let what = format!("diagnostics.rules[{i}]");
            match rule(r, item, &what, i) {
                Some(u) => s.rules.push(u),
                None => ok = false,
            }
        }
    }
    ok.then_some(s)
}

fn rule(r: &mut Reader, n: &Node, what: &str, i: usize) -> Option<UserRule> {
    let m = r.mapping(n, what)?;
    r.check_keys(m, what, RULE_KEYS, false);
    let text = |r: &mut Reader, k: &str| -> Option<Option<String>> {
        match m.get_node(k) {
            Some(x) => r.non_blank(x, &format!("{what}.{k}")).map(Some),
            None => Some(None),
        }
    };
    let Some(cat_node) = m.get_node("category") else {
        r.error_help(
            n,
            format!("{what} has no `category`"),
            format!("valid: {}", token::preferred::<GapCategory>().join(", ")),
        );
        return None;
    };
    let category = r.token(cat_node, &format!("{what}.category"))?;
    let status = match m.get_node("status") {
        Some(x) => Some(r.token(x, &format!("{what}.status"))?),
        None => None,
    };
    let check = match m.get_node("check") {
        Some(x) => {
            let g = r.non_blank(x, &format!("{what}.check"))?;
            match Glob::new(&g) {
                Ok(g) => Some(g.compile_matcher()),
                Err(e) => {
                    r.error(x, format!("{what}.check is not a glob: {e}"));
                    return None;
                }
            }
        }
        None => None,
    };
    let output = match m.get_node("output") {
        Some(x) => {
            let p = r.non_blank(x, &format!("{what}.output"))?;
            match Regex::new(&p) {
                Ok(re) => Some(re),
                Err(e) => {
                    r.error(x, format!("{what}.output is not a regular expression: {e}"));
                    return None;
                }
            }
        }
        None => None,
    };
    Some(UserRule {
        id: text(r, "id")?.unwrap_or_else(|| format!("user-{}", i + 1)),
        judge_type: text(r, "type")?,
        name: text(r, "name")?,
        status,
        check,
        reason: text(r, "reason")?,
        output,
        category,
        rationale: text(r, "rationale")?,
    })
}
