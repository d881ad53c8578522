//! `judge-ci compare --baseline OLD CURRENT`: per task NEW, REMOVED, REGRESSED, IMPROVED,
//! UNCHANGED or COULD_NOT_JUDGE, by reading first and score second (with a tolerance). A task
//! the instrument could not judge now is listed apart, never counted as a regression.

use serde::{Deserialize, Serialize};

use crate::judgment::GapCategory;
use crate::jury::interpret::Reading;

use super::model::{SuiteReport, TaskResult};

/// What happened to a task between two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Change {
    /// Worse reading, or a lower score beyond the tolerance.
    Regressed,
    /// The instrument could not judge it now (not assessed, or the task did not run).
    CouldNotJudge,
    /// Only in the current run.
    New,
    /// Only in the baseline.
    Removed,
    /// Better reading, or a higher score beyond the tolerance.
    Improved,
    /// Neither.
    Unchanged,
}

/// One task's change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskChange {
    /// `benchmark/id`.
    pub key: String,
    /// The change.
    pub change: Change,
    /// Baseline reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Reading>,
    /// Current reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<Reading>,
    /// Baseline score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_score: Option<f64>,
    /// Current score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_score: Option<f64>,
    /// Why, in words.
    pub note: String,
}

/// A tier's pass rate in both runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TierRates {
    /// Tier.
    pub name: String,
    /// Baseline pass rate.
    pub baseline: Option<f64>,
    /// Current pass rate.
    pub current: Option<f64>,
}

/// The comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// Every task, regressions first.
    pub changes: Vec<TaskChange>,
    /// How many regressed.
    pub regressions: usize,
    /// Baseline pass rate over judged tasks (absent when none was judged).
    pub baseline_pass_rate: Option<f64>,
    /// Current pass rate over judged tasks.
    pub current_pass_rate: Option<f64>,
    /// Per tier.
    pub tiers: Vec<TierRates>,
    /// Gap findings per category: (category, baseline, current).
    pub gap_shift: Vec<(GapCategory, usize, usize)>,
    /// Tasks whose dominant gap changed between the runs: (key, baseline, current).
    pub unstable: Vec<(String, GapCategory, GapCategory)>,
}

fn rank(r: Option<Reading>) -> Option<u8> {
    match r {
        Some(Reading::Accepted) => Some(2),
        Some(Reading::Undecided) => Some(1),
        Some(Reading::Rejected) => Some(0),
        _ => None,
    }
}

fn word(r: Option<Reading>) -> String {
    crate::report::icons::task(r).lower()
}

fn classify(b: &TaskResult, c: &TaskResult, tolerance: f64) -> (Change, String) {
    let moved = format!("{} → {}", word(b.reading), word(c.reading));
    match (rank(b.reading), rank(c.reading)) {
        (Some(x), Some(y)) if y < x => (Change::Regressed, moved),
        (Some(x), Some(y)) if y > x => (Change::Improved, moved),
        (Some(_), Some(_)) => match (b.score, c.score) {
            (Some(s0), Some(s1)) if s1 < s0 - tolerance => (
                Change::Regressed,
                format!("{}, score {s0:.2} → {s1:.2}", word(c.reading)),
            ),
            (Some(s0), Some(s1)) if s1 > s0 + tolerance => (
                Change::Improved,
                format!("{}, score {s0:.2} → {s1:.2}", word(c.reading)),
            ),
            _ => (Change::Unchanged, word(c.reading).to_string()),
        },
        (_, None) if matches!(c.reading, Some(Reading::NotAssessed) | None) => (
            Change::CouldNotJudge,
            format!(
                "{moved}: {}",
                c.error
                    .as_deref()
                    .unwrap_or("the instrument failed; see the task's report")
            ),
        ),
        (None, Some(_)) => (
            Change::Unchanged,
            format!("{moved} (not judged in the baseline)"),
        ),
        _ => (Change::Unchanged, moved),
    }
}

/// Compares `current` with `baseline`; a score change within `tolerance` is no change.
pub fn compare(baseline: &SuiteReport, current: &SuiteReport, tolerance: f64) -> Comparison {
    let mut changes = Vec::new();
    for c in &current.tasks {
        match baseline.tasks.iter().find(|b| b.key == c.key) {
            Some(b) => {
                let (change, note) = classify(b, c, tolerance);
                changes.push(TaskChange {
                    key: c.key.clone(),
                    change,
                    baseline: b.reading,
                    current: c.reading,
                    baseline_score: b.score,
                    current_score: c.score,
                    note,
                });
            }
            None => changes.push(TaskChange {
                key: c.key.clone(),
                change: Change::New,
                baseline: None,
                current: c.reading,
                baseline_score: None,
                current_score: c.score,
                note: format!("new: {}", word(c.reading)),
            }),
        }
    }
    for b in &baseline.tasks {
        if !current.tasks.iter().any(|c| c.key == b.key) {
            changes.push(TaskChange {
                key: b.key.clone(),
                change: Change::Removed,
                baseline: b.reading,
                current: None,
                baseline_score: b.score,
                current_score: None,
                note: format!("removed (was {})", word(b.reading)),
            });
        }
    }
    changes.sort_by(|a, b| a.change.cmp(&b.change).then(a.key.cmp(&b.key)));
    let mut names: Vec<String> = baseline.tiers.iter().map(|t| t.name.clone()).collect();
    for t in &current.tiers {
        if !names.contains(&t.name) {
            names.push(t.name.clone());
        }
    }
    let rate = |r: &SuiteReport, n: &str| {
        r.tiers
            .iter()
            .find(|t| t.name == n)
            .and_then(|t| t.pass_rate)
    };
    let gap = |r: &SuiteReport, c: GapCategory| {
        r.gaps.iter().find(|(k, _)| *k == c).map_or(0, |(_, n)| *n)
    };
    let unstable = current
        .tasks
        .iter()
        .filter_map(|c| {
            let b = baseline.tasks.iter().find(|b| b.key == c.key)?;
            match (b.dominant_gap, c.dominant_gap) {
                (Some(x), Some(y)) if x != y => Some((c.key.clone(), x, y)),
                _ => None,
            }
        })
        .collect();
    Comparison {
        unstable,
        regressions: changes
            .iter()
            .filter(|c| c.change == Change::Regressed)
            .count(),
        changes,
        baseline_pass_rate: baseline.totals.pass_rate,
        current_pass_rate: current.totals.pass_rate,
        tiers: names
            .into_iter()
            .map(|n| TierRates {
                baseline: rate(baseline, &n),
                current: rate(current, &n),
                name: n,
            })
            .collect(),
        gap_shift: GapCategory::ALL
            .into_iter()
            .map(|c| (c, gap(baseline, c), gap(current, c)))
            .filter(|(_, a, b)| a + b > 0)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(key: &str, reading: Option<Reading>, score: Option<f64>) -> TaskResult {
        TaskResult {
            key: key.into(),
            benchmark: "b".into(),
            id: key.into(),
            tags: vec![],
            difficulty: None,
            reading,
            score,
            decided_by: None,
            exit_code: 0,
            tiers: vec![],
            dominant_gap: None,
            gaps: vec![],
            error: None,
            report_path: String::new(),
        }
    }

    #[test]
    fn every_kind_of_change() {
        use Reading::*;
        let base = SuiteReport::new(
            "r".into(),
            None,
            vec![
                task("a", Some(Accepted), Some(1.0)),
                task("b", Some(Rejected), Some(0.2)),
                task("c", Some(Accepted), Some(0.9)),
                task("d", Some(Accepted), Some(0.9)),
                task("e", Some(Accepted), Some(0.9)),
                task("gone", Some(Accepted), None),
                task("f", Some(NotAssessed), None),
            ],
        );
        let cur = SuiteReport::new(
            "r".into(),
            None,
            vec![
                task("a", Some(Rejected), Some(0.4)),
                task("b", Some(Accepted), Some(1.0)),
                task("c", Some(Accepted), Some(0.6)),
                task("d", Some(Accepted), Some(0.88)),
                task("e", Some(NotAssessed), None),
                task("new", Some(Accepted), None),
                task("f", Some(Rejected), Some(0.1)),
            ],
        );
        let c = compare(&base, &cur, 0.05);
        let of = |k: &str| c.changes.iter().find(|x| x.key == k).unwrap().change;
        assert_eq!(of("a"), Change::Regressed);
        assert_eq!(of("b"), Change::Improved);
        assert_eq!(of("c"), Change::Regressed, "score beyond the tolerance");
        assert_eq!(of("d"), Change::Unchanged, "score within the tolerance");
        assert_eq!(of("e"), Change::CouldNotJudge, "not a regression");
        assert_eq!(of("new"), Change::New);
        assert_eq!(of("gone"), Change::Removed);
        assert_eq!(of("f"), Change::Unchanged);
        assert_eq!(c.regressions, 2);
        assert_eq!(c.changes[0].change, Change::Regressed, "regressions first");
        let empty = SuiteReport::new("r".into(), None, vec![task("x", Some(NotAssessed), None)]);
        assert_eq!(
            empty.totals.pass_rate, None,
            "absent, not 0, when nothing was judged"
        );
    }
}
