//! `judge-ci compare --baseline OLD CURRENT`: per task NEW, REGRESSED, IMPROVED, UNCHANGED or
//! COULD_NOT_JUDGE, by reading first and score second (with a tolerance). A regression says
//! which kind it is: a worse reading, a lower score, a task the baseline accepted (or left
//! undecided) that is now not assessed or could not run, or a task of the baseline missing from
//! the current run; a pull request can make a task unjudgeable or drop it, so neither hides a
//! regression (trust.md point 12). Only a task the baseline rejected too is "could not judge".

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
    /// Better reading, or a higher score beyond the tolerance.
    Improved,
    /// Neither.
    Unchanged,
}

/// Which kind of regression a task shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Regression {
    /// A worse reading (accepted → undecided, rejected or not applicable; undecided →
    /// rejected).
    WorseReading,
    /// The same reading with a score lower than the baseline's beyond the tolerance.
    LowerScore,
    /// Accepted or undecided in the baseline, now not assessed or not run at all.
    NotJudged,
    /// In the baseline, missing from the current run.
    Missing,
    /// A reading that would pass, now with an ERROR the subject can cause (a tier its code
    /// ran past the time limit, failed task commands), where the baseline passed cleanly.
    SubjectError,
    /// Judged by another definition than the baseline (its benchmark file, task file or
    /// reference changed): not the same exam, so no reading of it is better or worse
    /// (attack finding GA8: deleting the tier every task now fails read "0 regressions").
    OtherDefinition,
}

impl Regression {
    /// Every kind, in the order reports list them.
    pub const ALL: [Regression; 6] = [
        Regression::WorseReading,
        Regression::LowerScore,
        Regression::NotJudged,
        Regression::Missing,
        Regression::SubjectError,
        Regression::OtherDefinition,
    ];

    /// How a count of this kind reads ("2 worse readings").
    pub fn counted(self, n: usize) -> String {
        let (one, many) = match self {
            Regression::WorseReading => ("worse reading", "worse readings"),
            Regression::LowerScore => ("lower score", "lower scores"),
            Regression::NotJudged => (
                "task not judged where the baseline judged it",
                "tasks not judged where the baseline judged them",
            ),
            Regression::Missing => (
                "task missing from the current run",
                "tasks missing from the current run",
            ),
            Regression::SubjectError => (
                "task with an ERROR the change can cause",
                "tasks with an ERROR the change can cause",
            ),
            Regression::OtherDefinition => (
                "task judged by another definition than the baseline",
                "tasks judged by another definition than the baseline",
            ),
        };
        format!("{n} {}", if n == 1 { one } else { many })
    }
}

/// One task's change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskChange {
    /// `benchmark/id`.
    pub key: String,
    /// The change.
    pub change: Change,
    /// For a regression, which kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression: Option<Regression>,
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
    /// How many of each kind of regression, in [`Regression::ALL`] order, kinds found only.
    pub regression_kinds: Vec<(Regression, usize)>,
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

impl Comparison {
    /// The tasks the baseline passed (accepted or undecided) that the instrument could not
    /// judge now: no regression is counted for them, and none can be ruled out, so `compare`
    /// fails with the instrument's exit code (attack finding G10-9: a run that judged nothing
    /// passed the gate and became the baseline that hid the next regressions).
    pub fn unjudged_passes(&self) -> Vec<&str> {
        self.changes
            .iter()
            .filter(|c| {
                c.change == Change::CouldNotJudge
                    && matches!(c.baseline, Some(Reading::Accepted | Reading::Undecided))
            })
            .map(|c| c.key.as_str())
            .collect()
    }
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

fn classify(
    b: &TaskResult,
    c: &TaskResult,
    tolerance: f64,
) -> (Change, Option<Regression>, String) {
    let moved = format!("{} → {}", word(b.reading), word(c.reading));
    if let (Some(x), Some(y)) = (&b.definition, &c.definition)
        && x != y
    {
        return (
            Change::Regressed,
            Some(Regression::OtherDefinition),
            format!(
                "{moved}, but judged by another definition (benchmark, task file or reference {} → {}): not the same exam; compare against a baseline of this definition",
                &x[..x.len().min(12)],
                &y[..y.len().min(12)]
            ),
        );
    }
    let not_judged = matches!(c.reading, Some(Reading::NotAssessed) | None);
    // A reading that would pass with an ERROR the subject can cause is no pass (trust.md
    // point 12): against a baseline that passed cleanly it is a regression, whatever the
    // reading says; one that only sheds such an ERROR improved.
    let passes = |t: &TaskResult| {
        matches!(
            t.reading,
            Some(Reading::Accepted | Reading::Undecided | Reading::NotApplicable)
        )
    };
    match (&b.subject_error, &c.subject_error) {
        (None, Some(what)) if passes(b) => {
            return (
                Change::Regressed,
                Some(Regression::SubjectError),
                format!("{moved}, but {what}: an ERROR the change can cause"),
            );
        }
        (None, Some(what)) => {
            return (
                Change::Unchanged,
                None,
                format!("{moved}, but {what}: no pass either"),
            );
        }
        (Some(was), None) if rank(c.reading) >= rank(b.reading) && rank(c.reading).is_some() => {
            return (
                Change::Improved,
                None,
                format!("{moved} (the baseline's {was})"),
            );
        }
        _ => {}
    }
    match (rank(b.reading), rank(c.reading)) {
        (Some(x), Some(y)) if y < x => (Change::Regressed, Some(Regression::WorseReading), moved),
        (Some(x), Some(y)) if y > x => (Change::Improved, None, moved),
        (Some(_), Some(_)) => match (b.score, c.score) {
            (Some(s0), Some(s1)) if s1 < s0 - tolerance => (
                Change::Regressed,
                Some(Regression::LowerScore),
                format!("{}, score {s0:.2} → {s1:.2}", word(c.reading)),
            ),
            (Some(s0), Some(s1)) if s1 > s0 + tolerance => (
                Change::Improved,
                None,
                format!("{}, score {s0:.2} → {s1:.2}", word(c.reading)),
            ),
            _ => (Change::Unchanged, None, word(c.reading).to_string()),
        },
        // The baseline judged it (and did not reject it): a pull request that makes the task
        // unjudgeable must not escape the comparison.
        (Some(x), None) if not_judged && x > 0 && !c.instrument_failed => (
            Change::Regressed,
            Some(Regression::NotJudged),
            format!(
                "{moved}: {}",
                c.error
                    .as_deref()
                    .unwrap_or("not assessed; see the task's report")
            ),
        ),
        (Some(x), None) if c.reading == Some(Reading::NotApplicable) && x > 0 => {
            (Change::Regressed, Some(Regression::WorseReading), moved)
        }
        // Not assessed for a cause the subject can bring about (its code ran past a limit,
        // broke a judge): no pass, never "could not judge" (trust.md point 12; attack finding
        // NC5-4). Against a baseline that passed it is a regression (above); against one that
        // did not, nothing changed.
        (_, None) if not_judged && !c.instrument_failed && c.error.is_none() => (
            Change::Unchanged,
            None,
            format!(
                "{moved}: not assessed for a cause the subject can bring about (an ERROR it can cause), so no pass either"
            ),
        ),
        (_, None) if not_judged => (
            Change::CouldNotJudge,
            None,
            format!(
                "{moved}: {}",
                c.error
                    .as_deref()
                    .unwrap_or("the instrument failed; see the task's report")
            ),
        ),
        (None, Some(_)) => (
            Change::Unchanged,
            None,
            format!("{moved} (not judged in the baseline)"),
        ),
        _ => (Change::Unchanged, None, moved),
    }
}

/// Compares `current` with `baseline`; a score change within `tolerance` is no change.
pub fn compare(baseline: &SuiteReport, current: &SuiteReport, tolerance: f64) -> Comparison {
    let mut changes = Vec::new();
    for c in &current.tasks {
        match baseline.tasks.iter().find(|b| b.key == c.key) {
            Some(b) => {
                let (change, regression, note) = classify(b, c, tolerance);
                changes.push(TaskChange {
                    key: c.key.clone(),
                    change,
                    regression,
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
                regression: None,
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
                change: Change::Regressed,
                regression: Some(Regression::Missing),
                baseline: b.reading,
                current: None,
                baseline_score: b.score,
                current_score: None,
                note: format!("missing from the current run (was {})", word(b.reading)),
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
    let regression_kinds = Regression::ALL
        .into_iter()
        .map(|k| {
            (
                k,
                changes.iter().filter(|c| c.regression == Some(k)).count(),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    Comparison {
        unstable,
        regressions: changes
            .iter()
            .filter(|c| c.change == Change::Regressed)
            .count(),
        regression_kinds,
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
            instrument_failed: false,
            subject_error: None,
            definition: None,
            criteria_set_by_subject: vec![],
        }
    }

    #[test]
    fn a_task_judged_by_another_definition_is_no_comparison() {
        // Attack finding GA8: the current definition deleted the tier every task now fails;
        // the same reading under another exam read "0 regressions".
        let mut b = task("a", Some(Reading::Accepted), Some(1.0));
        let mut c = task("a", Some(Reading::Accepted), Some(1.0));
        b.definition = Some("1111".into());
        c.definition = Some("2222".into());
        let cmp = compare(
            &SuiteReport::new("r".into(), None, vec![b.clone()]),
            &SuiteReport::new("r".into(), None, vec![c.clone()]),
            0.0,
        );
        assert_eq!(cmp.regressions, 1, "{cmp:#?}");
        assert_eq!(cmp.changes[0].regression, Some(Regression::OtherDefinition));
        assert!(cmp.changes[0].note.contains("another definition"));
        c.definition = b.definition.clone();
        let same = compare(
            &SuiteReport::new("r".into(), None, vec![b]),
            &SuiteReport::new("r".into(), None, vec![c]),
            0.0,
        );
        assert_eq!(same.regressions, 0);
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
                task("g", Some(Accepted), None),
                task("h", Some(Rejected), None),
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
                task("g", Some(NotApplicable), None),
                task("h", Some(NotAssessed), None),
            ],
        );
        let c = compare(&base, &cur, 0.05);
        let of = |k: &str| c.changes.iter().find(|x| x.key == k).unwrap().change;
        assert_eq!(of("a"), Change::Regressed);
        assert_eq!(of("b"), Change::Improved);
        assert_eq!(of("c"), Change::Regressed, "score beyond the tolerance");
        assert_eq!(of("d"), Change::Unchanged, "score within the tolerance");
        let kind = |k: &str| c.changes.iter().find(|x| x.key == k).unwrap().regression;
        assert_eq!(kind("a"), Some(Regression::WorseReading));
        assert_eq!(kind("c"), Some(Regression::LowerScore));
        assert_eq!(of("e"), Change::Regressed, "accepted, now not assessed");
        assert_eq!(kind("e"), Some(Regression::NotJudged));
        assert_eq!(of("new"), Change::New);
        assert_eq!(
            of("gone"),
            Change::Regressed,
            "missing from the current run"
        );
        assert_eq!(kind("gone"), Some(Regression::Missing));
        assert_eq!(of("f"), Change::Unchanged);
        assert_eq!(of("g"), Change::Regressed, "accepted, now not applicable");
        // Rejected, now not assessed for a cause the subject can bring about: no pass either,
        // never "could not judge" (NC5-4); only the instrument's own failure is that.
        assert_eq!(
            of("h"),
            Change::Unchanged,
            "rejected, now not assessed by its doing"
        );
        let note = &c.changes.iter().find(|x| x.key == "h").unwrap().note;
        assert!(note.contains("so no pass either"), "{note}");
        assert_eq!(c.regressions, 5);
        assert_eq!(
            c.regression_kinds,
            vec![
                (Regression::WorseReading, 2),
                (Regression::LowerScore, 1),
                (Regression::NotJudged, 1),
                (Regression::Missing, 1)
            ]
        );
        assert_eq!(c.changes[0].change, Change::Regressed, "regressions first");
        // Only judge-ci's own instrument failing leaves a task out of the pass rate (and out
        // of the regressions); a task the subject made unjudgeable counts against it.
        let mut own = task("x", Some(NotAssessed), None);
        own.instrument_failed = true;
        let empty = SuiteReport::new("r".into(), None, vec![own.clone()]);
        assert_eq!(
            empty.totals.pass_rate, None,
            "absent, not 0, when nothing was judged"
        );
        let caused = SuiteReport::new("r".into(), None, vec![task("x", Some(NotAssessed), None)]);
        assert_eq!(caused.totals.pass_rate, Some(0.0));
        let was = SuiteReport::new("r".into(), None, vec![task("x", Some(Accepted), None)]);
        let c = compare(&was, &empty, 0.05);
        assert_eq!(
            c.changes[0].change,
            Change::CouldNotJudge,
            "the instrument's"
        );
        let c = compare(&was, &caused, 0.05);
        assert_eq!(c.changes[0].regression, Some(Regression::NotJudged));
        let rejected = SuiteReport::new("r".into(), None, vec![task("x", Some(Rejected), None)]);
        assert_eq!(
            compare(&rejected, &empty, 0.05).changes[0].change,
            Change::CouldNotJudge,
            "rejected, now not assessed by the instrument alone"
        );
    }

    /// trust.md point 12 (attack findings F21, F34): a task accepted with an ERROR the subject
    /// can cause (a tier its tests timed out, failed hidden tests) is no pass in the pass rate
    /// and a regression against a clean acceptance; an instrument ERROR is neither.
    #[test]
    fn an_acceptance_with_an_error_the_subject_caused_is_no_pass() {
        use Reading::*;
        let clean = task("a", Some(Accepted), Some(1.0));
        let mut errored = clean.clone();
        errored.subject_error = Some("tier 'tests' could not run".into());
        let base = SuiteReport::new("r".into(), None, vec![clean.clone()]);
        let cur = SuiteReport::new("r".into(), None, vec![errored.clone()]);
        assert_eq!(cur.totals.accepted, 1);
        assert_eq!(cur.totals.accepted_with_subject_error, 1);
        assert_eq!(cur.totals.pass_rate, Some(0.0));
        let c = compare(&base, &cur, 0.05);
        assert_eq!(c.regressions, 1, "{:?}", c.changes);
        assert_eq!(c.changes[0].regression, Some(Regression::SubjectError));
        assert!(c.changes[0].note.contains("tier 'tests' could not run"));
        // The other way round it improved; two such runs are unchanged.
        let c = compare(&cur, &base, 0.05);
        assert_eq!(c.changes[0].change, Change::Improved);
        assert_eq!(compare(&cur, &cur, 0.05).regressions, 0);
        // A not-applicable task with such an ERROR counts against the pass rate.
        let mut na = task("n", Some(NotApplicable), None);
        na.subject_error = Some("the task commands failed".into());
        let r = SuiteReport::new("r".into(), None, vec![clean, na]);
        assert_eq!(r.totals.pass_rate, Some(0.5));
    }
}
