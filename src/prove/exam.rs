//! What the pull request could rewrite of its own exam (`spec/trust.md` point 26): the
//! criteria, expected values and tests a config grades by that are read from the workspace.
//! prove lists them (`exam` in `prove.json`), says which the config pins to the trusted side,
//! and the battery's `exam-rewritten` transformation tries each one.

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::model::ExamInput;
use super::tree::Files;
use crate::config::checks::CheckKind;
use crate::config::llm::{CriteriaSource, Question};
use crate::config::{Benchmark, CheckSpec, JurySpec};

/// Globs as one set (a glob that does not parse is left out: the config loader refused it).
fn set(globs: &[String]) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        if let Ok(g) = Glob::new(g) {
            b.add(g);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// Every check with its tier's name (none for a flat jury).
fn checks_with_tiers(jury: &JurySpec) -> Vec<(Option<&str>, &CheckSpec)> {
    match jury {
        JurySpec::Tiers(t) => t
            .iter()
            .flat_map(|t| t.checks.iter().map(move |c| (Some(t.name.as_str()), c)))
            .collect(),
        JurySpec::Checks { .. } | JurySpec::Members { .. } => {
            jury.all_checks().into_iter().map(|c| (None, c)).collect()
        }
    }
}

/// The workspace paths the config grades by (for the battery), and every exam input with
/// whether the config pins it: `restore:` puts it back from the reference, or a
/// `file-comparison` check compares it with the reference's.
pub fn of(bench: &Benchmark, reference: &Files) -> (Vec<String>, Vec<ExamInput>) {
    let restored = set(&bench.restore);
    let compared: Vec<(GlobSet, GlobSet)> = bench
        .jury
        .all_checks()
        .into_iter()
        .filter_map(|c| match &c.kind {
            CheckKind::FileComparison { files } => Some((set(&files.include), set(&files.exclude))),
            _ => None,
        })
        .collect();
    let pinned = |p: &str| {
        restored.is_match(p)
            || compared
                .iter()
                .any(|(inc, exc)| inc.is_match(p) && !exc.is_match(p))
    };
    let tests: Vec<&String> = reference
        .keys()
        .filter(|p| p.contains("src/test/"))
        .collect();
    let mut paths = Vec::new();
    let mut out = Vec::new();
    for (tier, c) in checks_with_tiers(&bench.jury) {
        match &c.kind {
            CheckKind::Semantic {
                question:
                    Question::SemanticDiff {
                        criteria: CriteriaSource::Plan(p),
                        ..
                    },
                ..
            } => {
                let p = p.as_path().to_string_lossy().replace('\\', "/");
                out.push(ExamInput {
                    check: c.name.clone(),
                    tier: tier.map(str::to_string),
                    path: Some(p.clone()),
                    what: format!(
                        "its criteria are the VERIFY: lines of the workspace's {p}, which the pull request writes"
                    ),
                    pinned: pinned(&p),
                });
                paths.push(p);
            }
            CheckKind::MavenBuild { .. } | CheckKind::GradleBuild { .. } if !tests.is_empty() => {
                let open: Vec<&&String> = tests.iter().filter(|t| !pinned(t)).collect();
                out.push(ExamInput {
                    check: c.name.clone(),
                    tier: tier.map(str::to_string),
                    path: None,
                    what: if open.is_empty() {
                        format!(
                            "the build runs the workspace's tests; all {} test file(s) are pinned to the reference's (restore: or file-comparison)",
                            tests.len()
                        )
                    } else {
                        format!(
                            "the build runs the workspace's own tests, which the pull request can rewrite: {} of {} test file(s) are not pinned to the reference's (first: {}); `restore: [src/test/**]` or a `file-comparison` on `src/test/**` pins them",
                            open.len(),
                            tests.len(),
                            open[0]
                        )
                    },
                    pinned: open.is_empty(),
                });
            }
            _ => {}
        }
    }
    (paths, out)
}

/// The checks whose verdict is a program the config names (`command`, `external`): prove
/// runs them on its trees, but cannot show from outside that they judge a real workspace as
/// they judge those trees (a command may look at where it runs, its environment or the
/// time, and pass everything elsewhere: attack finding GA6). Listed in the report so the
/// reviewer of a config change reads those commands as the code they are.
pub fn unverified(bench: &Benchmark) -> Vec<String> {
    checks_with_tiers(&bench.jury)
        .into_iter()
        .filter_map(|(tier, c)| {
            let (kind, run) = match &c.kind {
                CheckKind::Command { run, .. } => ("command", run.display()),
                CheckKind::External { run, .. } => ("external", run.display()),
                _ => return None,
            };
            Some(format!(
                "{}`{}` ({kind}) runs `{run}`",
                tier.map(|t| format!("tier `{t}`: ")).unwrap_or_default(),
                c.name
            ))
        })
        .collect()
}
