//! The aggregation boundary (jury-semantics §4.4): every built-in jury calls its strategy
//! through [`contain`], so a broken strategy becomes `ERROR aggregation_failed` with no
//! evidence and no score, never a FAIL or a crash.

use crate::judgment::{Fault, Judgment, ReasonCode, Status};

use super::strategies::{VotingStrategy, Weights};

/// Calls the strategy and contains what it must not return. Only an escaping fault
/// ([`Fault::escapes`]) is passed on.
pub(crate) fn contain(
    strategy: &dyn VotingStrategy,
    judgments: &[Judgment],
    weights: &Weights,
    aggregate_may_be_not_applicable: bool,
) -> Result<Judgment, Fault> {
    let name = {
        let n = strategy.name();
        if n.trim().is_empty() {
            "(unnamed strategy)".to_string()
        } else {
            n
        }
    };
    let what = match strategy.aggregate(judgments, weights) {
        Err(f) if f.escapes() => return Err(f),
        Err(Fault::NoResult) => "returned no aggregate".to_string(),
        Err(f) => f.describe_as_thrown(),
        Ok(j) => match (j.status(), j.reason_code()) {
            (Status::NotApplicable, _) if !aggregate_may_be_not_applicable => {
                "returned NOT_APPLICABLE although no seat of this jury may exclude a subject"
                    .to_string()
            }
            (
                Status::Error,
                Some(ReasonCode::ErrorsPropagated | ReasonCode::NotApplicableRefused),
            ) => {
                return Ok(j);
            }
            (Status::Error, code) => format!(
                "returned ERROR with reason code {}, which names a cause outside the reduction (a strategy may only produce errors_propagated or not_applicable_refused)",
                code.map_or("(none)".to_string(), |c| c.token().to_string())
            ),
            _ => return Ok(j),
        },
    };
    Judgment::error_with(
        ReasonCode::AggregationFailed,
        format!("Strategy '{name}' {what}; no aggregate was produced"),
    )
    .map_err(|e| Fault::threw("IllegalStateException", e.message()))
}
