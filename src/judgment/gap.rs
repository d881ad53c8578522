//! The eight gap categories of the diagnostic analyzer: where in the stack a failure comes
//! from. The order is the specification's and breaks ties for the dominant category.

use serde::{Deserialize, Serialize};

/// Where a failure comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum GapCategory {
    /// A knowledge-base entry is missing or wrong.
    Knowledge,
    /// Pre-analysis missed a pattern or data the judges needed.
    Analysis,
    /// The agent planned the wrong approach, or left the step out.
    Planning,
    /// The agent deviated from its plan, or did the step badly.
    Execution,
    /// A tool's limitation or misconfiguration.
    Tool,
    /// The task prompt is ambiguous or misleading.
    Prompt,
    /// A judge is wrong or could not run.
    Evaluation,
    /// An external factor: timeout, network, disk, memory, service.
    Environment,
}

impl GapCategory {
    /// Every category, in the specification's order.
    pub const ALL: [GapCategory; 8] = [
        GapCategory::Knowledge,
        GapCategory::Analysis,
        GapCategory::Planning,
        GapCategory::Execution,
        GapCategory::Tool,
        GapCategory::Prompt,
        GapCategory::Evaluation,
        GapCategory::Environment,
    ];

    /// Its name, as configs and reports write it.
    pub fn name(self) -> &'static str {
        match self {
            GapCategory::Knowledge => "Knowledge",
            GapCategory::Analysis => "Analysis",
            GapCategory::Planning => "Planning",
            GapCategory::Execution => "Execution",
            GapCategory::Tool => "Tool",
            GapCategory::Prompt => "Prompt",
            GapCategory::Evaluation => "Evaluation",
            GapCategory::Environment => "Environment",
        }
    }

    /// Parses a name, ignoring case.
    pub fn parse(s: &str) -> Option<GapCategory> {
        GapCategory::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(s.trim()))
    }

    /// The fix this kind of gap calls for (the improvement flywheel).
    pub fn fix(self) -> &'static str {
        match self {
            GapCategory::Knowledge => "add or correct the knowledge-base entries",
            GapCategory::Analysis => "improve the pre-analysis so the evidence is there",
            GapCategory::Planning => "improve the planner's prompt or model",
            GapCategory::Execution => "tighten the agent's loop (reflection, checks)",
            GapCategory::Tool => "build or fix a deterministic tool",
            GapCategory::Prompt => "rewrite the task instruction",
            GapCategory::Evaluation => "calibrate or repair the judge",
            GapCategory::Environment => "fix the runner or retry",
        }
    }
}
