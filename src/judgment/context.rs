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
    /// Conventional keys judges read (`baselineCoverage`, …), from the config's and the task's
    /// `metadata:`.
    pub metadata: Map<String, Value>,
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
