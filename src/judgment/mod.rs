//! The vocabulary every stage shares: statuses, reason codes, causes, checks, findings,
//! portable metadata, judgments, the judge interface and its context. Pure data and traits; no I/O.

mod cause;
mod context;
mod error;
mod fault;
mod finding;
mod gap;
mod judge;
#[allow(clippy::module_inception)]
mod judgment;
mod portable;
mod reason;
mod status;
mod sub_check;

pub use cause::{Cause, ErrorOrigin};
pub use context::{ConventionError, Conventions, ExecutionStatus, JudgmentContext};
pub use error::BuildError;
pub use fault::Fault;
pub use finding::{Finding, FindingFamily, FindingKind};
pub use gap::GapCategory;
pub use judge::{
    Implementation, Judge, JudgeMetadata, JudgeType, NamedJudge, Phase, not_applicable_capability,
};
pub use judgment::{AGGREGATION_KEY, ELAPSED_KEY, Judgment, JudgmentBuilder};
pub(crate) use judgment::{origin_counts_json, read_origin_counts};
pub use portable::{MAX_PORTABLE_INT, Metadata, check_portable};
pub use reason::{Family, Origin, ReasonCode};
pub use status::Status;
pub use sub_check::Check;
