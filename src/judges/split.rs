//! A run split in two jobs, so the job that runs the pull request's code never holds a model
//! key (trust.md point 3): the first job runs with `--stop-before-semantic` (every semantic
//! check ABSTAINs as deferred, no model is asked), the second runs `judge-ci resume --from DIR`
//! on a fresh checkout of the same head with the key.
//!
//! The second job re-runs every check that runs no subject code and reads no output of it: the
//! structural comparisons (import, AST, POM, file comparison), the protected-path check and
//! the semantic checks. It
//! replays, from the first job's `report.json`, only the judgments of checks that run subject
//! code or read what it produced ([`replayed`]: files, commands, builds, class files,
//! coverage, external programs, Surefire reports), and votes with its own config, so the
//! stored verdict, its tiers and anything the first job said about a semantic check decide
//! nothing.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::config::checks::CheckKind;
use crate::judgment::{Judgment, ReasonCode, Status};
use crate::jury::Verdict;

use super::{Outcome, build};

/// How the checks of this run are judged.
#[derive(Clone, Debug, Default)]
pub enum Mode {
    /// Every check runs.
    #[default]
    Live,
    /// Semantic checks are not asked: they ABSTAIN as deferred to `judge-ci resume`.
    DeferSemantic,
    /// Checks that run subject code take the first job's judgment; the rest run.
    Resume(std::sync::Arc<Stored>),
}

/// The judgments the first job computed, by check name.
#[derive(Clone, Debug, Default)]
pub struct Stored {
    /// The report they were read from, for messages.
    pub from: PathBuf,
    /// Check name → judgment.
    pub judgments: HashMap<String, Judgment>,
}

/// The metadata key marking a semantic judgment deferred by `--stop-before-semantic`.
pub const DEFERRED_KEY: &str = "deferredToResume";

/// The metadata key naming the report a replayed judgment came from.
pub const REPLAYED_KEY: &str = "replayedFrom";

/// Whether a check of this kind runs subject code or reads what subject code produced, so a
/// resumed run takes its judgment from the first job instead of running it.
pub fn replayed(kind: &CheckKind) -> bool {
    kind.facts().replayed_on_resume
}

/// Every individual judgment of a verdict and of its composite attempts, by name (the first
/// occurrence wins).
pub fn judgments_of(v: &Verdict) -> HashMap<String, Judgment> {
    fn walk(v: &Verdict, out: &mut HashMap<String, Judgment>) {
        for (name, j) in v.individual_by_name() {
            out.entry(name.clone()).or_insert_with(|| j.clone());
        }
        for a in v.composite_attempts() {
            if let Some(child) = a.verdict() {
                walk(child, out);
            }
        }
    }
    let mut out = HashMap::new();
    walk(v, &mut out);
    out
}

/// The deferred ABSTAIN of a semantic check in the first job.
pub fn deferred(name: &str) -> Outcome {
    build(
        Judgment::builder(Status::Abstain)
            .reasoning(format!(
                "{name}: deferred: this run stops before the semantic tier (--stop-before-semantic); `judge-ci resume --from <this run's output folder>` asks the model"
            ))
            .metadata(DEFERRED_KEY, Value::Bool(true)),
    )
}

/// The first job's judgment of `name`, marked as replayed; an ERROR when the first job did
/// not judge it (its cascade stopped earlier, or it deferred it).
pub fn replay(stored: &Stored, name: &str) -> Outcome {
    let from = stored.from.display().to_string();
    match stored.judgments.get(name) {
        Some(j) if j.metadata().get(DEFERRED_KEY).is_none() => {
            let mut b = Judgment::builder(j.status())
                .reasoning(j.reasoning())
                .checks(j.checks().to_vec());
            if let Some(s) = j.score() {
                b = b.score(s);
            }
            if let Some(l) = j.label() {
                b = b.label(l);
            }
            if let Some(c) = j.reason_code() {
                b = b.reason_code(c);
            }
            // Its metadata (elapsed time included) as stored; an aggregate's evidence key
            // cannot occur on an individual judgment and is left out.
            for (k, v) in j.metadata() {
                if k != "aggregation" {
                    b = b.metadata(k.clone(), v.clone());
                }
            }
            build(b.metadata(REPLAYED_KEY, Value::String(from)))
        }
        _ => build(
            Judgment::builder(Status::Error)
                .reason_code(ReasonCode::JudgeReported)
                .reasoning(format!(
                    "{name}: the first job ({from}) did not judge this check, and a resumed run never runs subject code; run the first job's cascade up to it (without --stop-before-semantic, or with the check before the semantic tier)"
                )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replayed_judgment_is_the_stored_one_and_a_missing_one_is_an_error() {
        let stored = Stored {
            from: PathBuf::from("first/report.json"),
            judgments: [
                (
                    "compile".to_string(),
                    Judgment::builder(Status::Fail)
                        .score(0.25)
                        .reasoning("exit 1")
                        .metadata("exitCode", 1)
                        .build()
                        .unwrap(),
                ),
                ("review".to_string(), deferred("review").unwrap()),
            ]
            .into_iter()
            .collect(),
        };
        let j = replay(&stored, "compile").unwrap();
        assert_eq!(
            (j.status(), j.score(), j.reasoning()),
            (Status::Fail, Some(0.25), "exit 1")
        );
        assert_eq!(j.metadata()["exitCode"], 1);
        assert_eq!(j.metadata()[REPLAYED_KEY], "first/report.json");
        // Not judged there, or only deferred there: an instrument ERROR, never a pass.
        for name in ["tests", "review"] {
            let e = replay(&stored, name).unwrap();
            assert_eq!(e.status(), Status::Error, "{name}");
            assert!(e.reasoning().contains("did not judge this check"), "{name}");
        }
        let d = deferred("review").unwrap();
        assert_eq!(d.status(), Status::Abstain);
        assert_eq!(d.metadata()[DEFERRED_KEY], true);
    }
}
