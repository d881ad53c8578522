//! The jury engine: strategies reduce judgments, juries run judges and compose other juries,
//! and every vote ends in a [`Verdict`] (Agent Judge 0.17 semantics, jury-semantics.md).
//!
//! Pure logic: nothing here reads files, starts processes or talks to the network. Judges do
//! that, behind the [`Judge`] trait.

mod boundary;
mod cascade;
mod describe;
mod factories;
pub mod interpret;

mod meta;
mod names;
mod scope;
mod simple;
pub mod strategies;
mod verdict;

use async_trait::async_trait;
use serde_json::{Value, json};
use std::sync::Arc;

use crate::judgment::{BuildError, Fault, Judge, JudgmentContext, ReasonCode, Status};

pub use cascade::{CascadedJury, CascadedJuryBuilder};
pub use factories::{NamedJury, all_of, combine, from_judges};
pub use meta::{MetaJury, MetaJuryBuilder};
pub use names::validate_stage_name;
pub use scope::VoteScope;
pub use simple::{SimpleJury, SimpleJuryBuilder};
pub use verdict::{
    AttemptOutcome, CompositeAttempt, Decision, DecisionBasis, Disposition, DispositionReason,
    Failure, FailureCode, KeySource, MAX_COMPOSITE_DEPTH, MAX_COMPOSITE_INVOCATIONS, Relation,
    Seat, TierPolicy, Verdict, VerdictParts,
};

/// The version of the portable jury description this engine emits.
pub const DESCRIPTION_VERSION: u32 = 2;

/// Anything that votes: simple, cascaded and meta juries, and custom ones.
#[async_trait]
pub trait Jury: Send + Sync {
    /// Votes within `scope`, the limits of the enclosing top-level vote. Composite juries call
    /// [`VoteScope::child`] before invoking each child. Use [`vote`] for a top-level vote.
    async fn vote_in(
        &self,
        ctx: &Arc<JudgmentContext>,
        scope: &VoteScope,
    ) -> Result<Verdict, Fault>;

    /// Whether this jury's aggregate may legitimately be NOT_APPLICABLE. A jury that says no
    /// and answers NOT_APPLICABLE anyway is a failed stage in any composite.
    fn aggregate_may_be_not_applicable(&self) -> bool {
        false
    }

    /// The portable description (§9.1); fails naming the seat, tier or member that cannot be
    /// described.
    fn describe(&self) -> Result<Value, BuildError> {
        Ok(json!({
            "descriptionVersion": DESCRIPTION_VERSION,
            "kind": "OPAQUE",
            "aggregateMayBeNotApplicable": self.aggregate_may_be_not_applicable(),
        }))
    }

    /// Every judge this jury seats, flattened in order (empty for meta-juries).
    fn judges(&self) -> Vec<Arc<dyn Judge>> {
        Vec::new()
    }
}

/// Runs a top-level vote with fresh composite limits.
pub async fn vote(jury: &dyn Jury, ctx: Arc<JudgmentContext>) -> Result<Verdict, Fault> {
    jury.vote_in(&ctx, &VoteScope::new()).await
}

/// " Tier 'x' returned NOT_APPLICABLE without declaring … refused." for each refused stage.
pub(crate) fn refused_note(kind: &str, names: &[String]) -> String {
    names
        .iter()
        .map(|n| {
            format!(
                " {kind} '{n}' returned NOT_APPLICABLE without declaring that it may exclude a subject, so the exclusion was refused."
            )
        })
        .collect()
}

/// UNDECIDED when the aggregate is a machinery ERROR, else OWN (§4.3).
fn own_decision(aggregate: &crate::judgment::Judgment) -> Decision {
    let machinery = aggregate.status() == Status::Error
        && aggregate
            .reason_code()
            .is_some_and(ReasonCode::is_machinery);
    if machinery {
        Decision::Undecided
    } else {
        Decision::Own
    }
}

/// Turns an internal refusal while assembling a verdict into a contained fault; the engine's
/// own verdicts satisfy their invariants, so this only fires on a custom child's misbehaviour.
fn assembly_fault(e: BuildError) -> Fault {
    Fault::threw(e.java_type(), e.message())
}

#[cfg(test)]
mod tests;
