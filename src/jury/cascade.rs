//! The cascaded jury: tiers run in order and stop by policy; the root is the stopping tier's
//! aggregate (jury-semantics §6).

use async_trait::async_trait;
use indexmap::IndexMap;
use serde_json::{Value, json};
use std::sync::Arc;

use crate::judgment::{BuildError, Fault, Judge, Judgment, JudgmentContext, ReasonCode, Status};

use super::strategies::Weights;
use super::verdict::{
    AttemptOutcome, CompositeAttempt, Decision, DecisionBasis, Disposition, DispositionReason,
    FailureCode, Relation, TierPolicy, Verdict, VerdictParts,
};
use super::{DESCRIPTION_VERSION, Jury, VoteScope, assembly_fault, validate_stage_name};

/// One tier: a named jury and the policy that says whether the cascade stops after it.
struct Tier {
    name: String,
    jury: Arc<dyn Jury>,
    policy: TierPolicy,
}

/// A cascade of tiers, cheapest first.
pub struct CascadedJury {
    tiers: Vec<Tier>,
}

/// Builds a [`CascadedJury`]; refusals happen in [`CascadedJuryBuilder::build`].
#[derive(Default)]
pub struct CascadedJuryBuilder {
    tiers: Vec<Tier>,
}

impl CascadedJuryBuilder {
    /// Appends a tier.
    pub fn tier(
        mut self,
        name: impl Into<String>,
        jury: Arc<dyn Jury>,
        policy: TierPolicy,
    ) -> Self {
        self.tiers.push(Tier {
            name: name.into(),
            jury,
            policy,
        });
        self
    }

    /// Builds the cascade: at least one tier, valid unique names, the last tier FINAL_TIER.
    pub fn build(self) -> Result<CascadedJury, BuildError> {
        let Some(last) = self.tiers.last() else {
            return Err(BuildError::state("CascadedJury requires at least one tier"));
        };
        if last.policy != TierPolicy::FinalTier {
            return Err(BuildError::state(format!(
                "the last cascade tier '{}' must be FINAL_TIER, not {}",
                last.name, last.policy
            )));
        }
        for (i, t) in self.tiers.iter().enumerate() {
            validate_stage_name("cascade tier", &t.name)
                .map_err(|e| e.at(&format!("tiers[{i}]")))?;
            if self.tiers[..i].iter().any(|o| o.name == t.name) {
                return Err(BuildError::argument(format!(
                    "Duplicate cascade tier name '{}'",
                    t.name
                )));
            }
        }
        Ok(CascadedJury { tiers: self.tiers })
    }
}

impl CascadedJury {
    /// Starts a builder.
    pub fn builder() -> CascadedJuryBuilder {
        CascadedJuryBuilder::default()
    }

    /// Tier names and policies, in order.
    pub fn tier_names(&self) -> Vec<(&str, TierPolicy)> {
        self.tiers
            .iter()
            .map(|t| (t.name.as_str(), t.policy))
            .collect()
    }
}

/// Whether the tier's policy stops the cascade, reading its individual judgments only.
fn stops(policy: TierPolicy, individual: &[Judgment]) -> bool {
    match policy {
        TierPolicy::RejectOnAnyFail => individual.iter().any(|j| j.status() == Status::Fail),
        TierPolicy::AcceptOnAllPass => individual.iter().all(|j| j.status() == Status::Pass),
        TierPolicy::FinalTier => true,
    }
}

fn no_tier_decided(
    reason: &str,
    refused: &[String],
    attempts: Vec<CompositeAttempt>,
) -> Result<Verdict, Fault> {
    let aggregated = Judgment::error_with(
        ReasonCode::NoTierDecided,
        format!("{reason}{}", super::refused_note("Tier", refused)),
    )
    .map_err(assembly_fault)?;
    Verdict::new(VerdictParts {
        aggregated,
        individual: Vec::new(),
        individual_by_name: IndexMap::new(),
        weights: Weights::new(),
        seats: Vec::new(),
        decision: Decision::Undecided,
        composite_attempts: attempts,
    })
    .map_err(assembly_fault)
}

/// A root that adopts the tier's individual, map, weights and seats.
fn adopt(
    tier: &Verdict,
    aggregated: Judgment,
    decision: Decision,
    attempts: Vec<CompositeAttempt>,
) -> Result<Verdict, Fault> {
    let parts = tier.clone().into_parts();
    Verdict::new(VerdictParts {
        aggregated,
        individual: parts.individual,
        individual_by_name: parts.individual_by_name,
        weights: parts.weights,
        seats: parts.seats,
        decision,
        composite_attempts: attempts,
    })
    .map_err(assembly_fault)
}

#[async_trait]
impl Jury for CascadedJury {
    async fn vote_in(
        &self,
        ctx: &Arc<JudgmentContext>,
        scope: &VoteScope,
    ) -> Result<Verdict, Fault> {
        let mut attempts: Vec<CompositeAttempt> = Vec::new();
        let mut refused: Vec<String> = Vec::new();
        for tier in &self.tiers {
            let child_scope = scope.child()?;
            let final_tier = tier.policy == TierPolicy::FinalTier;
            let attempt = |disposition, reason, outcome| {
                CompositeAttempt::new(
                    tier.name.clone(),
                    Relation::CascadeTier,
                    Some(tier.policy),
                    disposition,
                    reason,
                    outcome,
                )
                .map_err(assembly_fault)
            };
            let verdict = match tier.jury.vote_in(ctx, &child_scope).await {
                Err(f) if f.escapes() => return Err(f),
                Err(_) => {
                    attempts.push(attempt(
                        Disposition::StageFailed,
                        Some(DispositionReason::ExecutionFailed),
                        AttemptOutcome::Failure(FailureCode::JuryExecutionFailed),
                    )?);
                    if final_tier {
                        return no_tier_decided(
                            "The final cascade tier failed to execute.",
                            &refused,
                            attempts,
                        );
                    }
                    continue;
                }
                Ok(v) => v,
            };
            let unusable = if *verdict.decision() == Decision::Undecided {
                Some(DispositionReason::ChildUndecided)
            } else if verdict.aggregated().status() == Status::NotApplicable
                && !tier.jury.aggregate_may_be_not_applicable()
            {
                Some(DispositionReason::UndeclaredNotApplicable)
            } else {
                None
            };
            if let Some(reason) = unusable {
                if reason == DispositionReason::UndeclaredNotApplicable {
                    refused.push(tier.name.clone());
                }
                attempts.push(attempt(
                    Disposition::StageFailed,
                    Some(reason),
                    AttemptOutcome::Verdict(Box::new(verdict.clone())),
                )?);
                if final_tier {
                    return no_tier_decided(
                        "The final cascade tier did not produce a determination.",
                        &refused,
                        attempts,
                    );
                }
                let genuine_fail = verdict
                    .individual()
                    .iter()
                    .any(|j| j.status() == Status::Fail);
                if tier.policy == TierPolicy::RejectOnAnyFail && genuine_fail {
                    let aggregated = if reason == DispositionReason::ChildUndecided {
                        verdict.aggregated().clone()
                    } else {
                        Judgment::error_with(
                            ReasonCode::StageFailed,
                            format!(
                                "Tier '{}' returned NOT_APPLICABLE without declaring that it may exclude a subject, \
                                 so the exclusion was refused; a genuine individual FAIL in that tier established the rejection.",
                                tier.name
                            ),
                        )
                        .map_err(assembly_fault)?
                    };
                    let decision = Decision::Tier {
                        tier: tier.name.clone(),
                        basis: DecisionBasis::IndividualRejection,
                    };
                    return adopt(&verdict, aggregated, decision, attempts);
                }
                continue;
            }
            attempts.push(attempt(
                Disposition::Used,
                None,
                AttemptOutcome::Verdict(Box::new(verdict.clone())),
            )?);
            if stops(tier.policy, verdict.individual()) {
                let decision = Decision::Tier {
                    tier: tier.name.clone(),
                    basis: DecisionBasis::TierOutcome,
                };
                return adopt(&verdict, verdict.aggregated().clone(), decision, attempts);
            }
        }
        no_tier_decided(
            "No cascade tier produced a determination.",
            &refused,
            attempts,
        )
    }

    fn aggregate_may_be_not_applicable(&self) -> bool {
        self.tiers
            .iter()
            .any(|t| t.jury.aggregate_may_be_not_applicable())
    }

    fn describe(&self) -> Result<Value, BuildError> {
        let mut tiers = Vec::new();
        for (i, t) in self.tiers.iter().enumerate() {
            let jury = t
                .jury
                .describe()
                .map_err(|e| e.at(&format!("tiers[{i}] ('{}')", t.name)))?;
            tiers.push(json!({"name": t.name, "policy": t.policy, "jury": jury}));
        }
        Ok(json!({
            "descriptionVersion": DESCRIPTION_VERSION,
            "kind": "CASCADED",
            "aggregateMayBeNotApplicable": self.aggregate_may_be_not_applicable(),
            "tiers": tiers,
        }))
    }

    fn judges(&self) -> Vec<Arc<dyn Judge>> {
        self.tiers.iter().flat_map(|t| t.jury.judges()).collect()
    }
}
