//! Stage 7, report assembly: the per-tier views and the structural diffs of a verdict.

use crate::config::checks::{CheckType, DiffSection};
use crate::config::{CheckSpec, JurySpec};
use crate::jury::{Decision, Verdict};
use crate::report::{DiffEntry, Diffs, JudgeView, NotRunJudge, TierView};

/// The per-tier view of a verdict, in configured order.
pub fn tier_views(spec: &JurySpec, verdict: &Verdict) -> Vec<TierView> {
    let judges = |checks: &[CheckSpec], v: &Verdict| -> Vec<JudgeView> {
        v.individual_by_name()
            .iter()
            .map(|(name, j)| JudgeView {
                name: name.clone(),
                judge_type: checks
                    .iter()
                    .find(|c| &c.name == name)
                    .map(|c| c.check_type().to_string())
                    .unwrap_or_default(),
                status: j.status(),
                score: j.score(),
                elapsed_ms: j.elapsed().map_or(0, |d| d.as_millis() as u64),
                llm: j
                    .metadata()
                    .get(crate::judges::llm::USAGE_KEY)
                    .and_then(|v| serde_json::from_value(v.clone()).ok()),
                samples: j
                    .metadata()
                    .get(crate::judges::llm::samples::SAMPLES_KEY)
                    .and_then(|v| serde_json::from_value(v.clone()).ok()),
            })
            .collect()
    };
    let view = |name: &str,
                policy,
                checks: &[CheckSpec],
                attempt: Option<&Verdict>,
                ran: bool,
                stopped: bool| {
        let js = attempt.map(|v| judges(checks, v)).unwrap_or_default();
        let not_run = checks
            .iter()
            .filter(|c| !js.iter().any(|j| j.name == c.name))
            .map(|c| NotRunJudge {
                name: c.name.clone(),
                judge_type: c.check_type().to_string(),
            })
            .collect();
        TierView {
            name: name.to_string(),
            policy,
            status: attempt.map(|v| v.aggregated().status()),
            ran,
            stopped,
            elapsed_ms: js.iter().map(|j| j.elapsed_ms).max().unwrap_or(0),
            judges: js,
            not_run,
        }
    };
    let decided = match verdict.decision() {
        Decision::Tier { tier, .. } => Some(tier.as_str()),
        _ => None,
    };
    match spec {
        JurySpec::Checks { checks, .. } => {
            vec![view("checks", None, checks, Some(verdict), true, true)]
        }
        JurySpec::Tiers(tiers) => tiers
            .iter()
            .map(|t| {
                let a = verdict.attempt(&t.name);
                view(
                    &t.name,
                    Some(t.policy),
                    &t.checks,
                    a.and_then(|a| a.verdict()),
                    a.is_some(),
                    decided == Some(t.name.as_str()),
                )
            })
            .collect(),
        JurySpec::Members { members, .. } => members
            .iter()
            .map(|m| {
                let a = verdict.attempt(&m.name);
                let checks: Vec<CheckSpec> = match &m.jury {
                    JurySpec::Checks { checks, .. } => checks.clone(),
                    JurySpec::Tiers(t) => t.iter().flat_map(|t| t.checks.clone()).collect(),
                    JurySpec::Members { .. } => Vec::new(),
                };
                view(
                    &m.name,
                    None,
                    &checks,
                    a.and_then(|a| a.verdict()),
                    a.is_some(),
                    false,
                )
            })
            .collect(),
    }
}

/// Every structural finding of the judges that ran, sorted into the report's `diffs`.
pub fn collect_diffs(spec: &JurySpec, verdict: &Verdict) -> Diffs {
    fn types(spec: &JurySpec, out: &mut Vec<(String, CheckType)>) {
        let mut add =
            |cs: &[CheckSpec]| out.extend(cs.iter().map(|c| (c.name.clone(), c.check_type())));
        match spec {
            JurySpec::Checks { checks, .. } => add(checks),
            JurySpec::Tiers(t) => t.iter().for_each(|t| add(&t.checks)),
            JurySpec::Members { members, .. } => members.iter().for_each(|m| types(&m.jury, out)),
        }
    }
    fn walk<'v>(v: &'v Verdict, out: &mut Vec<(&'v String, &'v crate::judgment::Judgment)>) {
        out.extend(v.individual_by_name().iter());
        for a in v.composite_attempts() {
            if let Some(child) = a.verdict() {
                walk(child, out);
            }
        }
    }
    let mut names = Vec::new();
    types(spec, &mut names);
    let mut judged = Vec::new();
    walk(verdict, &mut judged);
    let mut seen: Vec<&String> = Vec::new();
    let mut diffs = Diffs::default();
    for (name, j) in judged {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let Some(ty) = names.iter().find(|(n, _)| n == name).map(|(_, t)| *t) else {
            continue;
        };
        let list = match ty.facts().diff {
            Some(DiffSection::Imports) => &mut diffs.imports,
            Some(DiffSection::Ast) => &mut diffs.ast,
            Some(DiffSection::Pom) => &mut diffs.pom,
            Some(DiffSection::Files) => &mut diffs.files,
            None => continue,
        };
        for f in j.findings() {
            list.push(DiffEntry {
                path: f.path.clone(),
                line: f.line.map(u64::from),
                kind: f.kind,
                expected: f.expected.clone(),
                actual: f.actual.clone(),
                judge: name.clone(),
            });
        }
    }
    diffs
}
