//! The diagnostic analyzer: every non-passing judgment and every failed check of a verdict
//! placed in one of eight gap categories (a [`Gap`]), with the rule, the rationale, the exact
//! evidence and a confidence; then the distribution, the dominant category and
//! recommendations. Specification: user rules first, the built-in table (`rules::BUILTIN`)
//! next, a default rule last, first match wins. The first built-in rule reads the typed cause
//! a judge set; text rules never decide an Environment or Tool gap from text the subject
//! controls. Reads only the verdict and the inputs it is given.

pub mod inputs;
pub mod rules;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::diagnostics::UserRule;
use crate::judgment::{GapCategory, Judgment, Status};
use crate::jury::Verdict;

pub use inputs::Inputs;
use rules::{BUILTIN, Confidence, Item};

/// A judge's place in the run.
#[derive(Clone, Debug)]
pub struct Seat {
    /// Its tier (or member) name; for a flat jury, the jury's label.
    pub tier: String,
    /// Its seat name.
    pub name: String,
    /// Its check type.
    pub judge_type: String,
    /// Whether its tier has its own attempt in the verdict (cascades, meta-juries).
    pub nested: bool,
}

/// One classified failure: a non-passing judgment or failed check placed in a gap category.
/// (A judge's own findings, differences and compiler errors, are `judgment::Finding`.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Gap {
    /// Tier.
    pub tier: String,
    /// Judge (seat) name.
    pub judge: String,
    /// Check type.
    #[serde(rename = "type")]
    pub judge_type: String,
    /// The failed check, when the finding is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// The status it stands for.
    pub status: Status,
    /// Its category.
    pub category: GapCategory,
    /// Why this category.
    pub rationale: String,
    /// The line or finding that triggered the rule.
    pub evidence: String,
    /// How far to trust it.
    pub confidence: Confidence,
    /// The rule that decided (`default` for the default rule).
    pub rule: String,
}

/// One category's share.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// The category.
    pub category: GapCategory,
    /// Gaps in it.
    pub count: usize,
    /// Its fraction of all gaps.
    pub fraction: f64,
}

/// The gap analysis of one report (stored as `report.diagnostics`; not the config's problems,
/// which are `config::Diagnostics`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GapAnalysis {
    /// How many gaps.
    pub total: usize,
    /// The gaps, in verdict order (`findings` on the wire, as in every report version).
    #[serde(rename = "findings")]
    pub gaps: Vec<Gap>,
    /// Non-empty categories in the specification's order.
    pub distribution: Vec<Share>,
    /// The category with the most gaps (ties to the earlier category).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dominant: Option<GapCategory>,
    /// What to do, dominant category first.
    pub recommendations: Vec<String>,
    /// Inputs that were named but could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl GapAnalysis {
    /// `Knowledge:2,Execution:1`, most first: the `gap-categories` step output.
    pub fn categories_line(&self) -> String {
        let mut d = self.distribution.clone();
        d.sort_by(|a, b| b.count.cmp(&a.count).then(a.category.cmp(&b.category)));
        d.iter()
            .map(|s| format!("{}:{}", s.category.name(), s.count))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// The judgment's text for pattern rules: reasoning, checks, and every string in its metadata.
fn text_of(j: &Judgment) -> String {
    fn strings(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            Value::Object(m) => m.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let mut t = format!("{}\n", j.reasoning());
    for c in j.checks() {
        t.push_str(&format!("{}: {}\n", c.name(), c.message()));
    }
    for v in j.metadata().values() {
        strings(v, &mut t);
    }
    t
}

fn user_match(rule: &UserRule, item: &Item<'_>) -> Option<String> {
    if rule
        .judge_type
        .as_deref()
        .is_some_and(|t| t != item.judge_type)
        || rule.name.as_deref().is_some_and(|n| n != item.judge)
        || rule.status.is_some_and(|s| s != item.status())
        || rule
            .reason
            .as_deref()
            .is_some_and(|r| item.judgment.reason_code().map(|c| c.token()) != Some(r))
    {
        return None;
    }
    if let Some(g) = &rule.check {
        match item.check {
            Some(c) if g.is_match(c.name()) => {}
            _ => return None,
        }
    }
    match &rule.output {
        Some(re) => {
            let m = re.find(&item.text)?;
            Some(item.text[m.start()..m.end()].chars().take(300).collect())
        }
        None => Some(
            item.check
                .map(|c| format!("{}: {}", c.name(), c.message()))
                .unwrap_or_else(|| item.judgment.reasoning().chars().take(300).collect()),
        ),
    }
}

fn classify(item: &Item<'_>, inputs: &Inputs, user: &[UserRule]) -> Gap {
    let finding = |category, rationale, evidence, confidence, rule: &str| Gap {
        tier: item.tier.to_string(),
        judge: item.judge.to_string(),
        judge_type: item.judge_type.to_string(),
        check: item.check.map(|c| c.name().to_string()),
        status: item.status(),
        category,
        rationale,
        evidence,
        confidence,
        rule: rule.to_string(),
    };
    for u in user {
        if let Some(evidence) = user_match(u, item) {
            return finding(
                u.category,
                u.rationale
                    .clone()
                    .unwrap_or_else(|| format!("user rule {}", u.id)),
                evidence,
                Confidence::Deterministic,
                &u.id,
            );
        }
    }
    for r in BUILTIN {
        if let Some(hit) = (r.test)(item, inputs) {
            return finding(
                hit.category,
                hit.rationale,
                hit.evidence,
                r.confidence,
                r.id,
            );
        }
    }
    let hit = rules::default_hit(item);
    finding(
        hit.category,
        hit.rationale,
        hit.evidence,
        Confidence::Heuristic,
        "default",
    )
}

/// Whether a judgment needs classifying: FAIL, ABSTAIN, ERROR, and NOT_APPLICABLE where its
/// jury refused it (the jury's aggregate is ERROR).
fn non_passing(j: &Judgment, jury_failed: bool) -> bool {
    match j.status() {
        Status::Fail | Status::Abstain | Status::Error => true,
        Status::NotApplicable => jury_failed,
        Status::Pass => false,
    }
}

/// Analyzes `verdict` whose judges sit at `seats`.
pub fn analyze(
    verdict: &Verdict,
    seats: &[Seat],
    inputs: &Inputs,
    user: &[UserRule],
) -> GapAnalysis {
    let mut findings = Vec::new();
    let mut tiers: Vec<(&str, bool)> = Vec::new();
    for s in seats {
        if !tiers.iter().any(|(t, _)| *t == s.tier) {
            tiers.push((&s.tier, s.nested));
        }
    }
    for (tier, nested) in tiers {
        let v = if nested {
            match verdict.attempt(tier).and_then(|a| a.verdict()) {
                Some(v) => v,
                None => continue,
            }
        } else {
            verdict
        };
        let jury_failed = v.aggregated().status() == Status::Error;
        for (name, j) in v.individual_by_name() {
            let judge_type = seats
                .iter()
                .find(|s| s.tier == tier && &s.name == name)
                .map_or("", |s| s.judge_type.as_str());
            let text = text_of(j);
            let item = |check| Item {
                tier,
                judge: name,
                judge_type,
                judgment: j,
                check,
                text: text.clone(),
            };
            let failed: Vec<_> = j.checks().iter().filter(|c| !c.is_passed()).collect();
            let judged = non_passing(j, jury_failed);
            if judged {
                // A judgment with one failed check is one finding (the check named in it).
                let mut f = classify(&item(None), inputs, user);
                if let [only] = failed.as_slice() {
                    f.check = Some(only.name().to_string());
                }
                findings.push(f);
            }
            if !judged || failed.len() > 1 {
                for c in failed {
                    findings.push(classify(&item(Some(c)), inputs, user));
                }
            }
        }
    }
    summarize(findings, inputs.problems.clone())
}

/// Distribution, dominant category and recommendations of `findings`.
pub fn summarize(findings: Vec<Gap>, notes: Vec<String>) -> GapAnalysis {
    let total = findings.len();
    let distribution: Vec<Share> = GapCategory::ALL
        .into_iter()
        .filter_map(|c| {
            let count = findings.iter().filter(|f| f.category == c).count();
            (count > 0).then(|| Share {
                category: c,
                count,
                fraction: count as f64 / total as f64,
            })
        })
        .collect();
    // Ties go to the earlier category: max_by_key keeps the last maximum, so compare reversed.
    let dominant = distribution
        .iter()
        .rev()
        .max_by_key(|s| s.count)
        .map(|s| s.category);
    let mut recommendations = Vec::new();
    if total == 0 {
        recommendations.push("no failures".to_string());
    }
    let line = |s: &Share| {
        let example = findings
            .iter()
            .find(|f| f.category == s.category)
            .map(|f| format!(" (e.g. {})", f.evidence))
            .unwrap_or_default();
        format!(
            "{:.0}% of failures are {} gaps: {}{example}",
            s.fraction * 100.0,
            s.category.name(),
            s.category.fix()
        )
    };
    if let Some(d) = dominant
        && let Some(s) = distribution.iter().find(|s| s.category == d)
    {
        recommendations.push(line(s));
    }
    for s in &distribution {
        if Some(s.category) != dominant && s.fraction >= 0.2 {
            recommendations.push(line(s));
        }
    }
    GapAnalysis {
        total,
        gaps: findings,
        distribution,
        dominant,
        recommendations,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(c: GapCategory) -> Gap {
        Gap {
            tier: "t".into(),
            judge: "j".into(),
            judge_type: "x".into(),
            check: None,
            status: Status::Fail,
            category: c,
            rationale: "r".into(),
            evidence: "e".into(),
            confidence: Confidence::Deterministic,
            rule: "r".into(),
        }
    }

    #[test]
    fn ties_go_to_the_earlier_category_and_shares_over_a_fifth_are_recommended() {
        use GapCategory::*;
        let d = summarize(
            vec![
                f(Execution),
                f(Knowledge),
                f(Execution),
                f(Knowledge),
                f(Tool),
            ],
            vec![],
        );
        assert_eq!(d.dominant, Some(Knowledge));
        assert_eq!(d.total, 5);
        assert_eq!(
            d.recommendations.len(),
            3,
            "the dominant one, then every other at 20% or more: {:?}",
            d.recommendations
        );
        assert!(d.recommendations[0].starts_with("40% of failures are Knowledge gaps"));
        assert_eq!(d.categories_line(), "Knowledge:2,Execution:2,Tool:1");
        let none = summarize(vec![], vec![]);
        assert_eq!(none.recommendations, vec!["no failures"]);
        assert_eq!(none.dominant, None);
    }
}
