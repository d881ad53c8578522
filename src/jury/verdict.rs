//! The verdict: seven components, checked at construction and on deserialization, in the
//! 0.17 wire form (jury-semantics §8, §9).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use std::fmt;

use crate::judgment::{BuildError, Judgment, Status};

use super::strategies::Weights;

/// Most levels of composite nesting a vote (and a verdict's attempt tree) may have.
pub const MAX_COMPOSITE_DEPTH: usize = 8;
/// Most child-jury invocations in one top-level vote (and attempts in one verdict tree).
pub const MAX_COMPOSITE_INVOCATIONS: usize = 32;

/// When a cascade tier stops the cascade (jury-semantics §6.2); read from the tier's
/// individual judgments, never from its aggregate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum TierPolicy {
    /// Stop if any individual judgment is FAIL.
    RejectOnAnyFail,
    /// Stop if every individual judgment is PASS (vacuously true for none).
    AcceptOnAllPass,
    /// Always stop.
    FinalTier,
}

impl TierPolicy {
    /// Every policy, in declaration order.
    pub const ALL: [TierPolicy; 3] = [
        TierPolicy::RejectOnAnyFail,
        TierPolicy::AcceptOnAllPass,
        TierPolicy::FinalTier,
    ];

    /// The upper-case wire token.
    pub fn token(self) -> &'static str {
        match self {
            TierPolicy::RejectOnAnyFail => "REJECT_ON_ANY_FAIL",
            TierPolicy::AcceptOnAllPass => "ACCEPT_ON_ALL_PASS",
            TierPolicy::FinalTier => "FINAL_TIER",
        }
    }
}

impl fmt::Display for TierPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl std::str::FromStr for TierPolicy {
    type Err = BuildError;

    /// Parses the exact upper-case token.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TierPolicy::ALL
            .into_iter()
            .find(|p| p.token() == s)
            .ok_or_else(|| {
                BuildError::argument(format!(
                    "unknown tier policy '{s}' (valid: REJECT_ON_ANY_FAIL, ACCEPT_ON_ALL_PASS, FINAL_TIER)"
                ))
            })
    }
}

/// Where a seat's verdict key came from; only `Declared` is an identity across runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum KeySource {
    /// The judge's own declared name.
    Declared,
    /// A declared name renamed with a `-2`, `-3`… suffix by `from_judges`.
    Deduplicated,
    /// `Judge#N`, for a judge without readable metadata.
    Positional,
}

/// One configured seat: its position, the key of its judgment in `individualByName`, and where
/// that key came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Seat {
    /// The configured position (gaps allowed, strictly increasing).
    pub position: usize,
    /// The key of this seat's judgment in `individualByName`.
    pub verdict_key: String,
    /// Where the key came from.
    pub key_source: KeySource,
}

/// How a cascade's stopping tier was selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionBasis {
    /// The tier's policy said stop.
    TierOutcome,
    /// The tier produced no usable verdict but held a genuine individual FAIL.
    IndividualRejection,
}

/// Who decided the verdict's aggregate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Decision {
    /// The jury's own reduction.
    Own,
    /// A cascade stopped at its direct tier `tier`.
    Tier {
        /// The direct tier's name.
        tier: String,
        /// Why that tier was selected.
        basis: DecisionBasis,
    },
    /// Nothing was decided: the aggregate is a machinery ERROR.
    Undecided,
}

/// How a child jury was composed into its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// A tier of a cascade.
    CascadeTier,
    /// A member of a meta-jury.
    MetaMember,
}

/// Whether the parent used a child's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    /// The child's verdict was usable.
    Used,
    /// The child failed to produce a usable determination.
    StageFailed,
}

/// Why a stage failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DispositionReason {
    /// The child jury failed to run (no verdict).
    ExecutionFailed,
    /// The child's verdict decided nothing.
    ChildUndecided,
    /// The child answered NOT_APPLICABLE without being able to.
    UndeclaredNotApplicable,
}

/// The code of a child that produced no verdict at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureCode {
    /// The child jury failed or returned nothing.
    JuryExecutionFailed,
}

/// The wire object `{"code": …}` of a failed child.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// What failed.
    pub code: FailureCode,
}

/// What a child jury left behind: its verdict, or a failure code.
#[derive(Clone, Debug, PartialEq)]
pub enum AttemptOutcome {
    /// The child's verdict, kept unchanged.
    Verdict(Box<Verdict>),
    /// The child produced no verdict.
    Failure(FailureCode),
}

/// One entered child of a composite jury (a cascade tier or a meta member).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawAttempt", into = "RawAttempt")]
pub struct CompositeAttempt {
    name: String,
    relation: Relation,
    policy: Option<TierPolicy>,
    disposition: Disposition,
    disposition_reason: Option<DispositionReason>,
    outcome: AttemptOutcome,
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawAttempt {
    name: String,
    relation: Relation,
    #[serde(skip_serializing_if = "Option::is_none")]
    policy: Option<TierPolicy>,
    disposition: Disposition,
    #[serde(skip_serializing_if = "Option::is_none")]
    disposition_reason: Option<DispositionReason>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<Box<Verdict>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<Failure>,
}

impl TryFrom<RawAttempt> for CompositeAttempt {
    type Error = BuildError;
    fn try_from(r: RawAttempt) -> Result<Self, Self::Error> {
        let outcome = match (r.verdict, r.failure) {
            (Some(v), None) => AttemptOutcome::Verdict(v),
            (None, Some(f)) => AttemptOutcome::Failure(f.code),
            _ => {
                return Err(BuildError::argument(format!(
                    "attempt '{}' must have exactly one of verdict or failure",
                    r.name
                )));
            }
        };
        CompositeAttempt::new(
            r.name,
            r.relation,
            r.policy,
            r.disposition,
            r.disposition_reason,
            outcome,
        )
    }
}

impl From<CompositeAttempt> for RawAttempt {
    fn from(a: CompositeAttempt) -> Self {
        let (verdict, failure) = match a.outcome {
            AttemptOutcome::Verdict(v) => (Some(v), None),
            AttemptOutcome::Failure(code) => (None, Some(Failure { code })),
        };
        RawAttempt {
            name: a.name,
            relation: a.relation,
            policy: a.policy,
            disposition: a.disposition,
            disposition_reason: a.disposition_reason,
            verdict,
            failure,
        }
    }
}

impl CompositeAttempt {
    /// An attempt; refuses every combination §8.4 forbids.
    pub fn new(
        name: String,
        relation: Relation,
        policy: Option<TierPolicy>,
        disposition: Disposition,
        disposition_reason: Option<DispositionReason>,
        outcome: AttemptOutcome,
    ) -> Result<Self, BuildError> {
        let err = |m: &str| Err(BuildError::argument(format!("attempt '{name}': {m}")));
        if name.trim().is_empty() {
            return Err(BuildError::argument("attempt name must be non-blank"));
        }
        match (relation, policy) {
            (Relation::CascadeTier, None) => {
                return err("a cascade_tier attempt requires a policy");
            }
            (Relation::MetaMember, Some(_)) => return err("a meta_member attempt has no policy"),
            _ => {}
        }
        match (disposition, disposition_reason) {
            (Disposition::Used, Some(_)) => return err("a used attempt has no disposition reason"),
            (Disposition::StageFailed, None) => {
                return err("a stage_failed attempt requires a disposition reason");
            }
            _ => {}
        }
        let failed_execution = disposition_reason == Some(DispositionReason::ExecutionFailed);
        match &outcome {
            AttemptOutcome::Failure(_) if !failed_execution => {
                return err(
                    "only an execution_failed attempt carries a failure instead of a verdict",
                );
            }
            AttemptOutcome::Verdict(_) if failed_execution => {
                return err("an execution_failed attempt carries a failure, not a verdict");
            }
            AttemptOutcome::Verdict(v) => {
                let undecided = v.decision == Decision::Undecided;
                match disposition_reason {
                    Some(DispositionReason::ChildUndecided) if !undecided => {
                        return err(
                            "child_undecided requires a child verdict whose decision is undecided",
                        );
                    }
                    Some(DispositionReason::UndeclaredNotApplicable)
                        if v.aggregated.status() != Status::NotApplicable =>
                    {
                        return err(
                            "undeclared_not_applicable requires a NOT_APPLICABLE child aggregate",
                        );
                    }
                    None if undecided => return err("a used attempt's child must have decided"),
                    _ => {}
                }
            }
            AttemptOutcome::Failure(_) => {}
        }
        Ok(CompositeAttempt {
            name,
            relation,
            policy,
            disposition,
            disposition_reason,
            outcome,
        })
    }

    /// The child's name (tier or member name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Tier or member.
    pub fn relation(&self) -> Relation {
        self.relation
    }

    /// The tier policy (cascade tiers only).
    pub fn policy(&self) -> Option<TierPolicy> {
        self.policy
    }

    /// Used or stage failed.
    pub fn disposition(&self) -> Disposition {
        self.disposition
    }

    /// Why the stage failed.
    pub fn disposition_reason(&self) -> Option<DispositionReason> {
        self.disposition_reason
    }

    /// The child's verdict, if it produced one.
    pub fn verdict(&self) -> Option<&Verdict> {
        match &self.outcome {
            AttemptOutcome::Verdict(v) => Some(v),
            AttemptOutcome::Failure(_) => None,
        }
    }

    /// The failure code, if the child produced no verdict.
    pub fn failure(&self) -> Option<FailureCode> {
        match self.outcome {
            AttemptOutcome::Failure(c) => Some(c),
            AttemptOutcome::Verdict(_) => None,
        }
    }
}

/// The seven-component result of a vote.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawVerdict", rename_all = "camelCase")]
pub struct Verdict {
    aggregated: Judgment,
    individual: Vec<Judgment>,
    individual_by_name: IndexMap<String, Judgment>,
    weights: Weights,
    seats: Vec<Seat>,
    decision: Decision,
    composite_attempts: Vec<CompositeAttempt>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawVerdict {
    aggregated: Judgment,
    individual: Vec<Judgment>,
    individual_by_name: IndexMap<String, Judgment>,
    weights: Weights,
    seats: Vec<Seat>,
    decision: Decision,
    composite_attempts: Vec<CompositeAttempt>,
}

impl TryFrom<RawVerdict> for Verdict {
    type Error = BuildError;
    fn try_from(r: RawVerdict) -> Result<Self, Self::Error> {
        Verdict::new(VerdictParts {
            aggregated: r.aggregated,
            individual: r.individual,
            individual_by_name: r.individual_by_name,
            weights: r.weights,
            seats: r.seats,
            decision: r.decision,
            composite_attempts: r.composite_attempts,
        })
    }
}

/// The components of a verdict before its invariants are checked.
#[derive(Clone, Debug)]
pub struct VerdictParts {
    /// The root aggregate.
    pub aggregated: Judgment,
    /// Every seat's judgment in configured order.
    pub individual: Vec<Judgment>,
    /// Judgments by verdict key (duplicate keys collapse; later overwrites).
    pub individual_by_name: IndexMap<String, Judgment>,
    /// Position-keyed weights.
    pub weights: Weights,
    /// One seat per individual judgment.
    pub seats: Vec<Seat>,
    /// Who decided.
    pub decision: Decision,
    /// Every entered child, in order.
    pub composite_attempts: Vec<CompositeAttempt>,
}

impl Verdict {
    /// A verdict; refuses every combination §8.1 forbids.
    pub fn new(p: VerdictParts) -> Result<Verdict, BuildError> {
        let v = Verdict {
            aggregated: p.aggregated,
            individual: p.individual,
            individual_by_name: p.individual_by_name,
            weights: p.weights,
            seats: p.seats,
            decision: p.decision,
            composite_attempts: p.composite_attempts,
        };
        v.check()?;
        Ok(v)
    }

    /// Applies `f` to every judgment of the verdict and of every attempt's verdict inside it
    /// (the aggregate, each individual judgment and its by-name copy alike). For a change
    /// that keeps every invariant, such as reading a stored v1 report's findings as typed
    /// findings.
    pub(crate) fn each_judgment_mut(&mut self, f: &mut impl FnMut(&mut Judgment)) {
        f(&mut self.aggregated);
        self.individual.iter_mut().for_each(&mut *f);
        self.individual_by_name.values_mut().for_each(&mut *f);
        for a in &mut self.composite_attempts {
            if let AttemptOutcome::Verdict(v) = &mut a.outcome {
                v.each_judgment_mut(f);
            }
        }
    }

    /// A one-judge verdict: one declared seat, decision own.
    pub fn single(name: impl Into<String>, judgment: Judgment) -> Result<Verdict, BuildError> {
        let mut map = IndexMap::new();
        map.insert(name.into(), judgment.clone());
        Verdict::of(judgment, map)
    }

    /// A verdict whose seats are the map's keys, declared at positions 0..n, decision own.
    pub fn of(
        aggregated: Judgment,
        map: IndexMap<String, Judgment>,
    ) -> Result<Verdict, BuildError> {
        if map.is_empty() {
            return Err(BuildError::argument(
                "a verdict needs at least one judgment",
            ));
        }
        if map.keys().any(|k| k.trim().is_empty()) {
            return Err(BuildError::argument("verdict keys must be non-blank"));
        }
        let seats = map
            .keys()
            .enumerate()
            .map(|(position, k)| Seat {
                position,
                verdict_key: k.clone(),
                key_source: KeySource::Declared,
            })
            .collect();
        Verdict::new(VerdictParts {
            aggregated,
            individual: map.values().cloned().collect(),
            individual_by_name: map,
            weights: Weights::new(),
            seats,
            decision: Decision::Own,
            composite_attempts: Vec::new(),
        })
    }

    fn check(&self) -> Result<(), BuildError> {
        let bad = |m: String| Err(BuildError::argument(m));
        if self.seats.len() != self.individual.len() {
            return bad(format!(
                "a verdict needs exactly one seat per individual judgment ({} seats, {} judgments)",
                self.seats.len(),
                self.individual.len()
            ));
        }
        for pair in self.seats.windows(2) {
            if pair[1].position <= pair[0].position {
                return bad(format!(
                    "seat positions must be strictly increasing ({} then {})",
                    pair[0].position, pair[1].position
                ));
            }
        }
        let mut distinct: Vec<&str> = Vec::new();
        for s in &self.seats {
            if !self.individual_by_name.contains_key(&s.verdict_key) {
                return bad(format!(
                    "seat key '{}' is missing from individualByName",
                    s.verdict_key
                ));
            }
            if !distinct.contains(&s.verdict_key.as_str()) {
                distinct.push(&s.verdict_key);
            }
        }
        if !distinct
            .iter()
            .copied()
            .eq(self.individual_by_name.keys().map(String::as_str))
        {
            return bad(
                "individualByName keys must be the distinct seat keys in seat order".into(),
            );
        }
        let mut names: Vec<&str> = Vec::new();
        for a in &self.composite_attempts {
            if names.contains(&a.name()) {
                return bad(format!("duplicate sibling attempt name '{}'", a.name()));
            }
            names.push(a.name());
        }
        let (depth, count) = self.attempt_tree_size();
        if depth > MAX_COMPOSITE_DEPTH || count > MAX_COMPOSITE_INVOCATIONS {
            return bad(format!(
                "the attempt tree exceeds the composite limits (depth {depth} of {MAX_COMPOSITE_DEPTH}, {count} of {MAX_COMPOSITE_INVOCATIONS} attempts)"
            ));
        }
        match &self.decision {
            Decision::Own => Ok(()),
            Decision::Undecided => {
                let machinery = self.aggregated.status() == Status::Error
                    && self
                        .aggregated
                        .reason_code()
                        .is_some_and(|c| c.is_machinery());
                if machinery {
                    Ok(())
                } else {
                    bad("an undecided verdict's aggregate must be an ERROR with a machinery reason code".into())
                }
            }
            Decision::Tier { tier, basis } => self.check_tier_decision(tier, *basis),
        }
    }

    fn check_tier_decision(&self, tier: &str, basis: DecisionBasis) -> Result<(), BuildError> {
        let bad = |m: String| Err(BuildError::argument(format!("decision tier '{tier}': {m}")));
        let Some(attempt) = self
            .composite_attempts
            .iter()
            .find(|a| a.name() == tier && a.relation() == Relation::CascadeTier)
        else {
            return bad("no direct cascade_tier attempt has that name".into());
        };
        let Some(child) = attempt.verdict() else {
            return bad("the attempt has no verdict".into());
        };
        if self.individual != child.individual
            || self.individual_by_name != child.individual_by_name
            || self.weights != child.weights
            || self.seats != child.seats
        {
            return bad(
                "individual, individualByName, weights and seats must equal the tier's".into(),
            );
        }
        match basis {
            DecisionBasis::TierOutcome => {
                if attempt.disposition() != Disposition::Used {
                    return bad("a tier_outcome tier must have been used".into());
                }
                if self.aggregated != child.aggregated {
                    return bad("a tier_outcome root aggregate must equal the tier's".into());
                }
            }
            DecisionBasis::IndividualRejection => {
                let reason = attempt.disposition_reason();
                if attempt.disposition() != Disposition::StageFailed
                    || !matches!(
                        reason,
                        Some(DispositionReason::ChildUndecided)
                            | Some(DispositionReason::UndeclaredNotApplicable)
                    )
                {
                    return bad("an individual rejection needs a stage_failed tier (child_undecided or undeclared_not_applicable)".into());
                }
                if attempt.policy() != Some(TierPolicy::RejectOnAnyFail) {
                    return bad("an individual rejection needs a REJECT_ON_ANY_FAIL tier".into());
                }
                if !child.individual.iter().any(|j| j.status() == Status::Fail) {
                    return bad(
                        "an individual rejection needs a FAIL among the tier's individuals".into(),
                    );
                }
                let ok = match reason {
                    Some(DispositionReason::ChildUndecided) => self.aggregated == child.aggregated,
                    _ => {
                        self.aggregated.reason_code()
                            == Some(crate::judgment::ReasonCode::StageFailed)
                    }
                };
                if !ok {
                    return bad("the root aggregate does not match the rejection's basis".into());
                }
            }
        }
        Ok(())
    }

    /// (nesting depth, total attempts) of the attempt tree below this verdict.
    fn attempt_tree_size(&self) -> (usize, usize) {
        let mut depth = 0;
        let mut count = 0;
        for a in &self.composite_attempts {
            count += 1;
            let (d, c) = a.verdict().map_or((0, 0), Verdict::attempt_tree_size);
            depth = depth.max(d + 1);
            count += c;
        }
        (depth, count)
    }

    /// The root aggregate.
    pub fn aggregated(&self) -> &Judgment {
        &self.aggregated
    }

    /// Every seat's judgment, in configured order.
    pub fn individual(&self) -> &[Judgment] {
        &self.individual
    }

    /// Judgments by verdict key.
    pub fn individual_by_name(&self) -> &IndexMap<String, Judgment> {
        &self.individual_by_name
    }

    /// Position-keyed weights.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }

    /// The seats.
    pub fn seats(&self) -> &[Seat] {
        &self.seats
    }

    /// Who decided.
    pub fn decision(&self) -> &Decision {
        &self.decision
    }

    /// Every entered child, in order.
    pub fn composite_attempts(&self) -> &[CompositeAttempt] {
        &self.composite_attempts
    }

    /// The attempt with the given direct name.
    pub fn attempt(&self, name: &str) -> Option<&CompositeAttempt> {
        self.composite_attempts.iter().find(|a| a.name() == name)
    }

    /// The parts, for juries that build a new verdict from a child's.
    pub(crate) fn into_parts(self) -> VerdictParts {
        VerdictParts {
            aggregated: self.aggregated,
            individual: self.individual,
            individual_by_name: self.individual_by_name,
            weights: self.weights,
            seats: self.seats,
            decision: self.decision,
            composite_attempts: self.composite_attempts,
        }
    }
}
