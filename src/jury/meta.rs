//! The meta-jury: named member juries run in order and their aggregates are reduced by one
//! strategy; any failed member stops the reduction (jury-semantics §7).

use async_trait::async_trait;
use indexmap::IndexMap;
use serde_json::{Value, json};
use std::sync::Arc;

use crate::judgment::{BuildError, Fault, Judgment, JudgmentContext, ReasonCode, Status};

use super::factories::NamedJury;
use super::strategies::{NotApplicablePolicy, VotingStrategy, Weights};
use super::verdict::{
    AttemptOutcome, CompositeAttempt, Decision, Disposition, DispositionReason, FailureCode,
    KeySource, Relation, Seat, Verdict, VerdictParts,
};
use super::{
    DESCRIPTION_VERSION, Jury, VoteScope, assembly_fault, boundary, own_decision,
    validate_stage_name,
};

/// A jury of juries.
pub struct MetaJury {
    members: Vec<NamedJury>,
    strategy: Arc<dyn VotingStrategy>,
    may_be_not_applicable: bool,
}

impl MetaJury {
    /// A meta-jury: at least one member, valid unique names, and no member that may answer
    /// NOT_APPLICABLE under a strategy that refuses exclusions.
    pub fn new(
        strategy: Arc<dyn VotingStrategy>,
        members: Vec<NamedJury>,
    ) -> Result<Self, BuildError> {
        if members.is_empty() {
            return Err(BuildError::argument("At least one named jury is required"));
        }
        for (i, m) in members.iter().enumerate() {
            validate_stage_name("meta-jury member", &m.name)
                .map_err(|e| e.at(&format!("members[{i}]")))?;
            if members[..i].iter().any(|o| o.name == m.name) {
                return Err(BuildError::argument(format!(
                    "Duplicate meta-jury member name '{}'",
                    m.name
                )));
            }
        }
        let policy = strategy.not_applicable_policy();
        let capable = members
            .iter()
            .position(|m| m.jury.aggregate_may_be_not_applicable());
        if policy == NotApplicablePolicy::Refuse
            && let Some(i) = capable
        {
            return Err(BuildError::argument(format!(
                "members[{i}] ('{}') may answer NOT_APPLICABLE, but strategy '{}' refuses exclusions",
                members[i].name,
                strategy.name()
            )));
        }
        Ok(MetaJury {
            may_be_not_applicable: policy == NotApplicablePolicy::Exclude && capable.is_some(),
            members,
            strategy,
        })
    }

    /// A builder that collects the strategy and the members one by one, refusing at
    /// [`MetaJuryBuilder::build`] whatever is missing (as the library's builder does).
    pub fn builder() -> MetaJuryBuilder {
        MetaJuryBuilder::default()
    }

    /// Member names, in order.
    pub fn member_names(&self) -> Vec<&str> {
        self.members.iter().map(|m| m.name.as_str()).collect()
    }
}

/// Collects a meta-jury's strategy and members; [`MetaJuryBuilder::build`] refuses a missing
/// strategy or an empty member list with the library's messages, then applies
/// [`MetaJury::new`]'s rules.
#[derive(Default)]
pub struct MetaJuryBuilder {
    strategy: Option<Arc<dyn VotingStrategy>>,
    members: Vec<NamedJury>,
}

impl MetaJuryBuilder {
    /// Sets the strategy that reduces the members' aggregates (required).
    pub fn strategy(mut self, strategy: Arc<dyn VotingStrategy>) -> Self {
        self.strategy = Some(strategy);
        self
    }

    /// Adds a named member jury (at least one is required).
    pub fn member(mut self, member: NamedJury) -> Self {
        self.members.push(member);
        self
    }

    /// Builds the meta-jury: "At least one named jury is required" without members, "Meta
    /// voting strategy is required" without a strategy, else [`MetaJury::new`].
    pub fn build(self) -> Result<MetaJury, BuildError> {
        if self.members.is_empty() {
            return Err(BuildError::argument("At least one named jury is required"));
        }
        let strategy = self
            .strategy
            .ok_or_else(|| BuildError::argument("Meta voting strategy is required"))?;
        MetaJury::new(strategy, self.members)
    }
}

#[async_trait]
impl Jury for MetaJury {
    async fn vote_in(
        &self,
        ctx: &Arc<JudgmentContext>,
        scope: &VoteScope,
    ) -> Result<Verdict, Fault> {
        let mut attempts = Vec::new();
        let mut individual = Vec::new();
        let mut by_name = IndexMap::new();
        let mut seats = Vec::new();
        let mut failed = false;
        let mut refused: Vec<String> = Vec::new();
        for (position, m) in self.members.iter().enumerate() {
            let child_scope = scope.child()?;
            let attempt = |disposition, reason, outcome| {
                CompositeAttempt::new(
                    m.name.clone(),
                    Relation::MetaMember,
                    None,
                    disposition,
                    reason,
                    outcome,
                )
                .map_err(assembly_fault)
            };
            match m.jury.vote_in(ctx, &child_scope).await {
                Err(f) if f.escapes() => return Err(f),
                Err(_) => {
                    failed = true;
                    attempts.push(attempt(
                        Disposition::StageFailed,
                        Some(DispositionReason::ExecutionFailed),
                        AttemptOutcome::Failure(FailureCode::JuryExecutionFailed),
                    )?);
                }
                Ok(v) if *v.decision() == Decision::Undecided => {
                    failed = true;
                    attempts.push(attempt(
                        Disposition::StageFailed,
                        Some(DispositionReason::ChildUndecided),
                        AttemptOutcome::Verdict(Box::new(v)),
                    )?);
                }
                Ok(v)
                    if v.aggregated().status() == Status::NotApplicable
                        && !m.jury.aggregate_may_be_not_applicable() =>
                {
                    failed = true;
                    refused.push(m.name.clone());
                    attempts.push(attempt(
                        Disposition::StageFailed,
                        Some(DispositionReason::UndeclaredNotApplicable),
                        AttemptOutcome::Verdict(Box::new(v)),
                    )?);
                }
                Ok(v) => {
                    let aggregate = v.aggregated().clone();
                    attempts.push(attempt(
                        Disposition::Used,
                        None,
                        AttemptOutcome::Verdict(Box::new(v)),
                    )?);
                    by_name.insert(m.name.clone(), aggregate.clone());
                    individual.push(aggregate);
                    seats.push(Seat {
                        position,
                        verdict_key: m.name.clone(),
                        key_source: KeySource::Declared,
                    });
                }
            }
        }
        let weights = Weights::new();
        let aggregated = if failed {
            let note = super::refused_note("Member", &refused);
            Judgment::error_with(
                ReasonCode::StageFailed,
                format!(
                    "One or more jury members did not produce a usable determination, so this jury reduced nothing.{note}"
                ),
            )
            .map_err(assembly_fault)?
        } else {
            boundary::contain(
                self.strategy.as_ref(),
                &individual,
                &weights,
                self.may_be_not_applicable,
            )?
        };
        let decision = if failed {
            Decision::Undecided
        } else {
            own_decision(&aggregated)
        };
        Verdict::new(VerdictParts {
            aggregated,
            individual,
            individual_by_name: by_name,
            weights,
            seats,
            decision,
            composite_attempts: attempts,
        })
        .map_err(assembly_fault)
    }

    fn aggregate_may_be_not_applicable(&self) -> bool {
        self.may_be_not_applicable
    }

    fn describe(&self) -> Result<Value, BuildError> {
        let mut members = Vec::new();
        for (i, m) in self.members.iter().enumerate() {
            let jury = m
                .jury
                .describe()
                .map_err(|e| e.at(&format!("members[{i}] ('{}')", m.name)))?;
            members.push(json!({"name": m.name, "jury": jury}));
        }
        Ok(json!({
            "descriptionVersion": DESCRIPTION_VERSION,
            "kind": "META",
            "aggregateMayBeNotApplicable": self.may_be_not_applicable,
            "strategy": self.strategy.describe(),
            "members": members,
        }))
    }
}
