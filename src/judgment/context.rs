//! What a judge is asked about: the subject and its surroundings (jury-semantics §2.4).

use serde_json::{Map, Value};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// How the agent's (or person's) run that produced the subject ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExecutionStatus {
    /// The run finished normally.
    Success,
    /// The run finished with a failure.
    Failed,
    /// The run was stopped at its time limit.
    Timeout,
    /// The run was cancelled.
    Cancelled,
    /// The agent refused the task.
    Refused,
    /// Nothing is known about the run (the default).
    #[default]
    Unknown,
}

/// The conventional `metadata:` keys judges read, as typed values: parsed when the config
/// and the task are loaded (a malformed value is a load error naming the key there, never a
/// silent "no baseline" at the first vote), the task's value over the config's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Conventions {
    /// `baselineCoverage`: the line coverage, in percent, that a `coverage-preservation`
    /// check without `baseline` compares with.
    pub baseline_coverage: Option<f64>,
    /// `targetClassVersion`: the class-file major version a `class-version` check without
    /// `target` or `java` expects.
    pub target_class_version: Option<u16>,
}

/// A conventional metadata key whose value is not what judges can use.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("metadata.{key} is {found}; {expected}")]
pub struct ConventionError {
    /// The key.
    pub key: &'static str,
    /// What it holds, in words.
    pub found: String,
    /// What would be valid.
    pub expected: &'static str,
}

impl Conventions {
    /// The conventional keys of one `metadata:` mapping (other keys are left to the judges
    /// that read them, e.g. an `external` judge).
    pub fn of(metadata: &Map<String, Value>) -> Result<Conventions, ConventionError> {
        let mut c = Conventions::default();
        for (key, value) in metadata {
            c.set(key, value)?;
        }
        Ok(c)
    }

    /// Whether `key` is one of the conventional keys.
    pub fn is_conventional(key: &str) -> bool {
        matches!(key, "baselineCoverage" | "targetClassVersion")
    }

    /// Sets `key` from `value` when it is a conventional key (others are ignored).
    pub fn set(&mut self, key: &str, value: &Value) -> Result<(), ConventionError> {
        let found = || match value {
            Value::String(s) => format!("{s:?}"),
            other => other.to_string(),
        };
        match key {
            "baselineCoverage" => {
                let percent = match value {
                    Value::Number(n) => n.as_f64(),
                    Value::String(s) => s.trim().trim_end_matches('%').trim().parse().ok(),
                    Value::Object(o) => o.get("lineCoverage").and_then(Value::as_f64),
                    _ => None,
                };
                match percent {
                    Some(p) if p.is_finite() && (0.0..=100.0).contains(&p) => {
                        self.baseline_coverage = Some(p);
                    }
                    _ => {
                        return Err(ConventionError {
                            key: "baselineCoverage",
                            found: found(),
                            expected: "give the baseline line coverage in percent: a number from 0 to 100 (87.5), a string (\"87.5%\"), or {lineCoverage: 87.5}",
                        });
                    }
                }
            }
            "targetClassVersion" => {
                let major = match value {
                    Value::Number(n) => n.as_u64().and_then(|v| u16::try_from(v).ok()),
                    Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                };
                match major {
                    Some(m) if m >= 45 => self.target_class_version = Some(m),
                    _ => {
                        return Err(ConventionError {
                            key: "targetClassVersion",
                            found: found(),
                            expected: "give a class-file major version, 45 or more (61 is Java 17, 65 Java 21; a Java release goes in the check's `java:`)",
                        });
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// These values, each overridden by `over`'s where it has one (a task's over its config's).
    pub fn overridden_by(self, over: Conventions) -> Conventions {
        Conventions {
            baseline_coverage: over.baseline_coverage.or(self.baseline_coverage),
            target_class_version: over.target_class_version.or(self.target_class_version),
        }
    }
}

/// The immutable context handed to every judge of one vote.
#[derive(Clone, Debug, Default)]
pub struct JudgmentContext {
    /// The goal (a task's instruction), empty when there is none.
    pub goal: String,
    /// The folder holding the subject (the PR's workspace).
    pub workspace: PathBuf,
    /// How long the agent ran, when known.
    pub execution_time: Option<Duration>,
    /// When the agent started, when known.
    pub started_at: Option<SystemTime>,
    /// The agent's final output, when known.
    pub agent_output: Option<String>,
    /// How the agent's run ended.
    pub status: ExecutionStatus,
    /// The reference folder the judges compare with, when the run has one. Set by judge-ci
    /// from the trusted config or command line, never from `metadata` (which a config's or
    /// task's `metadata:` fills), so no metadata key can stand for it.
    pub reference: Option<PathBuf>,
    /// The base folder (`base:` of the trusted config) the oracle runs the trusted tests on,
    /// to split them into FAIL_TO_PASS / PASS_TO_PASS; set by judge-ci only, like `reference`.
    pub base: Option<PathBuf>,
    /// The snapshot of the workspace as submitted, taken before any subject code ran, which
    /// the source-reading judges read instead of the live workspace; set by judge-ci only.
    pub submitted: Option<PathBuf>,
    /// The config's and the task's `metadata:` (the task's value over the config's), for
    /// judges that read keys of their own (an `external` judge's input).
    pub metadata: Map<String, Value>,
    /// The conventional keys of `metadata`, typed ([`Conventions`]).
    pub conventions: Conventions,
}

impl JudgmentContext {
    /// A context for the given workspace with nothing else known.
    pub fn new(workspace: impl Into<PathBuf>) -> Self {
        JudgmentContext {
            workspace: workspace.into(),
            ..Default::default()
        }
    }

    /// The same context with the goal set.
    pub fn with_goal(mut self, goal: impl Into<String>) -> Self {
        self.goal = goal.into();
        self
    }

    /// The same context with the reference folder set.
    pub fn with_reference(mut self, reference: Option<PathBuf>) -> Self {
        self.reference = reference;
        self
    }

    /// The same context with one metadata entry set.
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }
}
