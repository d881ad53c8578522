//! The suite report (`suite.json`, schema `judge-ci.suite.v1`): one row per task with its
//! reading, score, tiers and dominant gap, and totals computed from the rows. It holds no
//! timings, so the same tasks give the same file however they were sharded.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::judgment::{GapCategory, Status};
use crate::jury::interpret::Reading;
use crate::report::Report;

use super::{OutputError, SuiteError, TaskEntry};

/// The suite report's schema name.
pub const SUITE_SCHEMA: &str = "judge-ci.suite.v1";

/// What was run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuiteInfo {
    /// The layout's root, as given.
    pub root: String,
    /// `K/N` for a shard; absent for a whole or merged suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Where the benchmark definitions, task files and references were read from, when not
    /// the layout as given: in a pull-request context the base commit's (trust.md point 1;
    /// the workspaces are the pull request's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definitions_from: Option<String>,
}

/// One tier of one task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TierResult {
    /// Its name.
    pub name: String,
    /// Whether it ran.
    pub ran: bool,
    /// Its aggregate status, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
}

/// One task's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskResult {
    /// `benchmark/id`.
    pub key: String,
    /// Benchmark name.
    pub benchmark: String,
    /// Task id.
    pub id: String,
    /// Tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Difficulty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<String>,
    /// The reading; absent when the task could not be judged at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<Reading>,
    /// The root verdict's score, else the mean score of the deciding tier's judges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The deciding tier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// The task's exit code as a single run.
    pub exit_code: i32,
    /// Its tiers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiers: Vec<TierResult>,
    /// Its dominant gap category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dominant_gap: Option<GapCategory>,
    /// Its gap findings per category.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps: Vec<(GapCategory, usize)>,
    /// Why it could not be judged (bad config, missing folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its report, relative to the suite folder.
    #[serde(default)]
    pub report_path: String,
    /// For a task not assessed: whether only judge-ci's own instrument failed (a tool or
    /// provider it needs, its own disk or memory, a check's settings), so the task is left out
    /// of the pass rate. Anything the subject can cause (a bound it exceeds, a judge it breaks,
    /// evidence it does not leave) counts against it (trust.md point 12).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub instrument_failed: bool,
    /// For a task whose reading would pass (accepted, not applicable, undecided): what ended
    /// ERROR that the subject can have caused ("tier 'build' could not run"); for a task not
    /// run because nothing was submitted (no workspace folder), why. Such a task is
    /// no pass in the pass rate and in `compare` whatever its reading (trust.md point 12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject_error: Option<String>,
    /// The digest of what the task was judged by (its benchmark and task files and its
    /// reference, `manifest::definition_digest`): `compare` reads two runs of one task as
    /// comparable only when it is the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
    /// The checks whose criteria the subject set (a `semantic-diff` plan read from the
    /// submitted workspace): its verdict rests on an exam it wrote, so every surface says so
    /// (trust.md point 26, attack B11-11).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub criteria_set_by_subject: Vec<String>,
}

/// The checks of a report whose judgments carry criteria the subject set.
fn criteria_set_by_subject(r: &Report) -> Vec<String> {
    crate::judges::split::judgments_of(&r.verdict)
        .into_iter()
        .filter(|(_, j)| {
            j.metadata()
                .get(crate::judges::llm::CRITERIA_SET_BY_KEY)
                .and_then(|v| v.as_str())
                == Some("subject")
        })
        .map(|(name, _)| name)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Whether every ERROR judgment of a not-assessed report has a cause of judge-ci's own.
fn only_the_instrument_failed(r: &Report) -> bool {
    let errors: Vec<_> = crate::judges::split::judgments_of(&r.verdict)
        .into_values()
        .filter(|j| j.status() == crate::judgment::Status::Error)
        .collect();
    !errors.is_empty()
        && errors.iter().all(|j| {
            crate::judgment::ErrorOrigin::of(j.cause()) == crate::judgment::ErrorOrigin::Instrument
        })
}

/// What ended ERROR that the subject can have caused, for a reading that would pass.
fn subject_error(r: &Report) -> Option<String> {
    if !matches!(
        r.interpretation.reading,
        Some(Reading::Accepted | Reading::NotApplicable | Reading::Undecided)
    ) {
        return None;
    }
    let what: Vec<String> = r
        .outcome
        .errored_tiers
        .iter()
        .filter(|t| t.subject_can_cause())
        .map(crate::report::ErroredTier::clause)
        .chain(
            r.outcome
                .counts_against
                .iter()
                .map(crate::report::CountsAgainst::clause),
        )
        .collect();
    (!what.is_empty()).then(|| what.join(" and "))
}

/// Without a root score: the mean score of the deciding tier's judges that have one (the
/// last tier that ran, when none decided).
fn mean_judge_score(r: &Report) -> Option<f64> {
    let tier = match &r.interpretation.decided_by {
        Some(d) => r.tiers.iter().find(|t| &t.name == d),
        None => r.tiers.iter().rev().find(|t| t.ran),
    }?;
    let scores: Vec<f64> = tier.judges.iter().filter_map(|j| j.score).collect();
    (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
}

impl TaskResult {
    /// A task's row before it is judged: what the layout says about it.
    fn of(t: &TaskEntry) -> TaskResult {
        TaskResult {
            key: t.key.clone(),
            benchmark: t.benchmark.clone(),
            id: t.id.clone(),
            tags: t.tags.clone(),
            difficulty: t.difficulty.clone(),
            reading: None,
            score: None,
            decided_by: None,
            exit_code: 0,
            tiers: Vec::new(),
            dominant_gap: None,
            gaps: Vec::new(),
            error: None,
            report_path: String::new(),
            instrument_failed: false,
            subject_error: None,
            definition: None,
            criteria_set_by_subject: Vec::new(),
        }
    }

    /// A judged task.
    pub fn judged(t: &TaskEntry, r: &Report, report_path: String) -> TaskResult {
        TaskResult {
            reading: r.interpretation.reading,
            score: r
                .verdict
                .aggregated()
                .score()
                .or_else(|| mean_judge_score(r)),
            decided_by: r.interpretation.decided_by.clone(),
            exit_code: r.outcome.exit_code,
            tiers: r
                .tiers
                .iter()
                .map(|x| TierResult {
                    name: x.name.clone(),
                    ran: x.ran,
                    status: x.status,
                })
                .collect(),
            dominant_gap: r.diagnostics.as_ref().and_then(|d| d.dominant),
            gaps: r
                .diagnostics
                .as_ref()
                .map(|d| {
                    d.distribution
                        .iter()
                        .map(|s| (s.category, s.count))
                        .collect()
                })
                .unwrap_or_default(),
            report_path,
            instrument_failed: r.interpretation.reading == Some(Reading::NotAssessed)
                && only_the_instrument_failed(r),
            subject_error: subject_error(r),
            criteria_set_by_subject: criteria_set_by_subject(r),
            ..TaskResult::of(t)
        }
    }

    /// A task that could not be judged.
    pub fn failed(t: &TaskEntry, exit_code: i32, why: String) -> TaskResult {
        TaskResult {
            exit_code,
            error: Some(why),
            ..TaskResult::of(t)
        }
    }

    /// Whether the subject was judged (accepted, rejected or undecided).
    pub fn judged_reading(&self) -> bool {
        matches!(
            self.reading,
            Some(Reading::Accepted | Reading::Rejected | Reading::Undecided)
        )
    }
}

/// Counts over the tasks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Tasks.
    pub tasks: usize,
    /// Accepted.
    pub accepted: usize,
    /// Rejected.
    pub rejected: usize,
    /// Undecided.
    pub undecided: usize,
    /// Not applicable.
    pub not_applicable: usize,
    /// Not assessed (an instrument failed).
    pub not_assessed: usize,
    /// Could not be run at all (bad config or layout).
    pub errors: usize,
    /// Accepted, but with an ERROR the subject can cause (a tier its code ran past the time
    /// limit, failed task commands): counted in `accepted`, not as passing in `pass_rate`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub accepted_with_subject_error: usize,
    /// (accepted without an ERROR the subject can cause) / (accepted + rejected + undecided + tasks not assessed for a reason the
    /// subject can cause); absent when nothing was judged. Only tasks whose instrument failed
    /// (and tasks that could not run at all) are left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<f64>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One tier over the tasks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TierTotals {
    /// Tier name.
    pub name: String,
    /// Tasks in which it ran.
    pub ran: usize,
    /// ... and passed.
    pub passed: usize,
    /// ... and failed.
    pub failed: usize,
    /// passed / ran; absent when it never ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<f64>,
}

/// The suite report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuiteReport {
    /// `judge-ci.suite.v1`.
    pub schema: String,
    /// judge-ci's version.
    pub tool_version: String,
    /// What was run.
    pub suite: SuiteInfo,
    /// Counts.
    pub totals: Totals,
    /// Per tier, in first-seen order.
    pub tiers: Vec<TierTotals>,
    /// Gap findings per category over every task.
    pub gaps: Vec<(GapCategory, usize)>,
    /// Every task, by key.
    pub tasks: Vec<TaskResult>,
    /// The suite's spending limits (`--llm-limit`) and what its tasks spent against each;
    /// empty without limits (and in a merged report, whose shards had budgets of their own).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub llm_limits: Vec<crate::judges::llm::budget::LimitUse>,
}

impl SuiteReport {
    /// The report of `tasks`, totals computed.
    pub fn new(root: String, shard: Option<String>, mut tasks: Vec<TaskResult>) -> SuiteReport {
        tasks.sort_by(|a, b| a.key.cmp(&b.key));
        let mut t = Totals {
            tasks: tasks.len(),
            ..Totals::default()
        };
        for x in &tasks {
            match x.reading {
                Some(Reading::Accepted) => t.accepted += 1,
                Some(Reading::Rejected) => t.rejected += 1,
                Some(Reading::Undecided) => t.undecided += 1,
                Some(Reading::NotApplicable) => t.not_applicable += 1,
                Some(Reading::NotAssessed) => t.not_assessed += 1,
                None => t.errors += 1,
            }
        }
        // Counted against the subject besides its rejections: a task it made unjudgeable,
        // and a not-applicable one with an ERROR it can cause; an accepted one with such an
        // ERROR is judged but does not pass.
        let against = tasks
            .iter()
            .filter(|x| {
                (x.reading == Some(Reading::NotAssessed) && !x.instrument_failed)
                    || (matches!(x.reading, Some(Reading::NotApplicable) | None)
                        && x.subject_error.is_some())
            })
            .count();
        t.accepted_with_subject_error = tasks
            .iter()
            .filter(|x| x.reading == Some(Reading::Accepted) && x.subject_error.is_some())
            .count();
        let judged = t.accepted + t.rejected + t.undecided + against;
        let passed = t.accepted - t.accepted_with_subject_error;
        t.pass_rate = (judged > 0).then(|| passed as f64 / judged as f64);
        let mut tiers: Vec<TierTotals> = Vec::new();
        for x in tasks.iter().flat_map(|x| &x.tiers) {
            let i = match tiers.iter().position(|y| y.name == x.name) {
                Some(i) => i,
                None => {
                    tiers.push(TierTotals {
                        name: x.name.clone(),
                        ..TierTotals::default()
                    });
                    tiers.len() - 1
                }
            };
            let e = &mut tiers[i];
            if x.ran {
                e.ran += 1;
                match x.status {
                    Some(Status::Pass) => e.passed += 1,
                    Some(Status::Fail) => e.failed += 1,
                    _ => {}
                }
            }
        }
        for e in &mut tiers {
            e.pass_rate = (e.ran > 0).then(|| e.passed as f64 / e.ran as f64);
        }
        let gaps = GapCategory::ALL
            .into_iter()
            .filter_map(|c| {
                let n: usize = tasks
                    .iter()
                    .flat_map(|x| &x.gaps)
                    .filter(|(k, _)| *k == c)
                    .map(|(_, n)| n)
                    .sum();
                (n > 0).then_some((c, n))
            })
            .collect();
        SuiteReport {
            schema: SUITE_SCHEMA.into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            suite: SuiteInfo {
                root,
                shard,
                definitions_from: None,
            },
            totals: t,
            tiers,
            gaps,
            tasks,
            llm_limits: Vec::new(),
        }
    }

    /// The same report with every derived field (totals, per-tier rates, gap counts)
    /// computed again from its tasks: a stored report is read for its tasks, never for what
    /// it says they add up to (attack finding G10-7). A task key that appears twice is
    /// returned as the error: which of the two stands is no reader's choice.
    pub fn recounted(self) -> Result<SuiteReport, String> {
        let mut seen = std::collections::HashSet::new();
        if let Some(t) = self.tasks.iter().find(|t| !seen.insert(t.key.as_str())) {
            return Err(t.key.clone());
        }
        let fresh = SuiteReport::new(self.suite.root.clone(), None, self.tasks);
        Ok(SuiteReport {
            totals: fresh.totals,
            tiers: fresh.tiers,
            gaps: fresh.gaps,
            tasks: fresh.tasks,
            ..self
        })
    }

    /// Writes `suite.json` and `suite.md` into `out`.
    pub fn write(&self, out: &Path) -> Result<(), SuiteError> {
        std::fs::create_dir_all(out).map_err(|source| OutputError::CreateFolder {
            path: out.to_path_buf(),
            source,
        })?;
        let json = serde_json::to_string_pretty(self).map_err(|source| OutputError::Serialise {
            what: "suite report",
            source,
        })?;
        let w = |name: &str, text: &str| {
            crate::pipeline::save::write_atomically(&out.join(name), text.as_bytes()).map_err(
                |source| OutputError::Write {
                    path: out.join(name),
                    source,
                },
            )
        };
        w("suite.json", &(json + "\n"))?;
        w("suite.md", &super::render::markdown(self, None))?;
        Ok(())
    }
}
