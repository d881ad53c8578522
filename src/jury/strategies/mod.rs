//! Voting strategies: how a jury reduces its judgments to one aggregate (jury-semantics §5).
//!
//! The seven built-in strategies share one population algorithm (`population.rs`) and one
//! evidence block (`evidence.rs`); they differ only in their reduction (`reduce.rs`). Custom
//! strategies implement [`VotingStrategy`]; juries call every strategy inside the aggregation
//! boundary, so a broken one can never invent a finding.

mod evidence;
mod policy;
mod population;
mod reduce;

use indexmap::IndexMap;
use serde_json::{Map, Value, json};
use std::fmt;
use std::str::FromStr;

use crate::judgment::{BuildError, Fault, Judgment};

pub use policy::{ErrorPolicy, NotApplicablePolicy, TiePolicy};

/// Weights keyed by configured position (`"0"`, `"1"`, …); a missing key means 1.0.
pub type Weights = IndexMap<String, f64>;

/// The default threshold of the numeric strategies (conjunctive has none).
pub const DEFAULT_THRESHOLD: f64 = 0.5;

/// Reduces judgments to one aggregate. Object safe; implementations must be deterministic.
pub trait VotingStrategy: Send + Sync {
    /// A stable token naming the strategy (`majority`, …).
    fn name(&self) -> String;

    /// The not-applicable policy the strategy declares, checked when juries are built.
    /// Strategies that do not say are taken to refuse exclusions.
    fn not_applicable_policy(&self) -> NotApplicablePolicy {
        NotApplicablePolicy::Refuse
    }

    /// Reduces `judgments` (never empty inside a jury) with position-keyed `weights`.
    fn aggregate(&self, judgments: &[Judgment], weights: &Weights) -> Result<Judgment, Fault>;

    /// The portable description (`{name, implementation, parameters}`, §9.1).
    fn describe(&self) -> Value {
        json!({
            "name": self.name(),
            "implementation": {"form": "NAMED", "className": std::any::type_name::<Self>()},
            "parameters": {"declared": false},
        })
    }
}

/// The seven built-in reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StrategyKind {
    /// More PASS than FAIL votes passes; ties follow the tie policy.
    Majority,
    /// All PASS passes, all FAIL fails, a split abstains.
    Consensus,
    /// Any FAIL fails.
    AllMustPass,
    /// Mean effective score against a threshold.
    Average,
    /// Median effective score against a threshold.
    Median,
    /// Weighted mean effective score against a threshold.
    WeightedAverage,
    /// Minimum effective score against a threshold.
    Conjunctive,
}

impl StrategyKind {
    /// Every kind, in declaration order.
    pub const ALL: [StrategyKind; 7] = [
        StrategyKind::Majority,
        StrategyKind::Consensus,
        StrategyKind::AllMustPass,
        StrategyKind::Average,
        StrategyKind::Median,
        StrategyKind::WeightedAverage,
        StrategyKind::Conjunctive,
    ];

    /// The library token (`allMustPass`, `weightedAverage`, …).
    pub fn token(self) -> &'static str {
        match self {
            StrategyKind::Majority => "majority",
            StrategyKind::Consensus => "consensus",
            StrategyKind::AllMustPass => "allMustPass",
            StrategyKind::Average => "average",
            StrategyKind::Median => "median",
            StrategyKind::WeightedAverage => "weightedAverage",
            StrategyKind::Conjunctive => "conjunctive",
        }
    }

    /// True for the strategies that reduce scores against a threshold.
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            StrategyKind::Average
                | StrategyKind::Median
                | StrategyKind::WeightedAverage
                | StrategyKind::Conjunctive
        )
    }
}

impl fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for StrategyKind {
    type Err = BuildError;

    /// Parses the library token exactly.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StrategyKind::ALL
            .into_iter()
            .find(|k| k.token() == s)
            .ok_or_else(|| {
                let valid: Vec<&str> = StrategyKind::ALL.iter().map(|k| k.token()).collect();
                BuildError::argument(format!(
                    "unknown strategy '{s}' (valid: {})",
                    valid.join(", ")
                ))
            })
    }
}

/// Every parameter of a built-in strategy. `None` for a policy means "not given": [`build`]
/// refuses it, so callers start from [`StrategySpec::defaults`] and override what they set.
///
/// [`build`]: StrategySpec::build
#[derive(Clone, Debug, PartialEq)]
pub struct StrategySpec {
    /// Which reduction.
    pub kind: StrategyKind,
    /// The pass threshold of numeric strategies (must be absent for counting ones).
    pub threshold: Option<f64>,
    /// What to do with ERROR inputs.
    pub error_policy: Option<ErrorPolicy>,
    /// What to do with NOT_APPLICABLE inputs.
    pub not_applicable_policy: Option<NotApplicablePolicy>,
    /// How majority resolves ties (must be absent for other strategies).
    pub tie_policy: Option<TiePolicy>,
}

impl StrategySpec {
    /// The library defaults: propagate, refuse, tie FAIL (majority), threshold 0.5 (average,
    /// median, weighted average); conjunctive has no default threshold.
    pub fn defaults(kind: StrategyKind) -> Self {
        StrategySpec {
            kind,
            threshold: matches!(
                kind,
                StrategyKind::Average | StrategyKind::Median | StrategyKind::WeightedAverage
            )
            .then_some(DEFAULT_THRESHOLD),
            error_policy: Some(ErrorPolicy::default()),
            not_applicable_policy: Some(NotApplicablePolicy::default()),
            tie_policy: (kind == StrategyKind::Majority).then_some(TiePolicy::default()),
        }
    }

    /// The same spec with a threshold.
    pub fn threshold(mut self, t: f64) -> Self {
        self.threshold = Some(t);
        self
    }

    /// The same spec with an error policy.
    pub fn errors(mut self, p: ErrorPolicy) -> Self {
        self.error_policy = Some(p);
        self
    }

    /// The same spec with a not-applicable policy.
    pub fn not_applicable(mut self, p: NotApplicablePolicy) -> Self {
        self.not_applicable_policy = Some(p);
        self
    }

    /// The same spec with a tie policy.
    pub fn tie(mut self, p: TiePolicy) -> Self {
        self.tie_policy = Some(p);
        self
    }

    /// Builds the strategy, refusing what the library refuses at construction, in its order:
    /// the threshold first, then each missing policy in constructor-parameter order.
    pub fn build(&self) -> Result<BuiltinStrategy, BuildError> {
        let kind = self.kind;
        let threshold = match (kind.is_numeric(), self.threshold) {
            (true, Some(t)) if !t.is_finite() || !(0.0..=1.0).contains(&t) => {
                return Err(BuildError::argument(format!(
                    "threshold must be finite and within [0.0, 1.0], got {t}"
                )));
            }
            (true, Some(t)) => Some(t),
            (true, None) if kind == StrategyKind::Conjunctive => {
                return Err(BuildError::argument(
                    "conjunctive requires a threshold (it has no default)",
                ));
            }
            (true, None) => Some(DEFAULT_THRESHOLD),
            (false, Some(_)) => {
                return Err(BuildError::argument(format!(
                    "{kind} takes no threshold; only average, median, weightedAverage and conjunctive do"
                )));
            }
            (false, None) => None,
        };
        let tie = if kind == StrategyKind::Majority {
            Some(
                self.tie_policy
                    .ok_or_else(|| BuildError::argument("tiePolicy must not be null"))?,
            )
        } else if self.tie_policy.is_some() {
            return Err(BuildError::argument(format!(
                "{kind} takes no tie policy; only majority does"
            )));
        } else {
            None
        };
        let error_policy = self
            .error_policy
            .ok_or_else(|| BuildError::argument("errorPolicy must not be null"))?;
        let not_applicable_policy = self
            .not_applicable_policy
            .ok_or_else(|| BuildError::argument("notApplicablePolicy must not be null"))?;
        Ok(BuiltinStrategy {
            kind,
            threshold,
            error_policy,
            not_applicable_policy,
            tie_policy: tie,
        })
    }
}

/// One of the seven built-in strategies with validated parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BuiltinStrategy {
    kind: StrategyKind,
    threshold: Option<f64>,
    error_policy: ErrorPolicy,
    not_applicable_policy: NotApplicablePolicy,
    tie_policy: Option<TiePolicy>,
}

impl BuiltinStrategy {
    /// A strategy with the library defaults; conjunctive needs [`StrategySpec`] and a threshold.
    pub fn with_defaults(kind: StrategyKind) -> Result<Self, BuildError> {
        StrategySpec::defaults(kind).build()
    }

    /// The reduction.
    pub fn kind(&self) -> StrategyKind {
        self.kind
    }

    /// The threshold of a numeric strategy.
    pub fn threshold(&self) -> Option<f64> {
        self.threshold
    }

    /// The error policy.
    pub fn error_policy(&self) -> ErrorPolicy {
        self.error_policy
    }

    /// The tie policy of majority.
    pub fn tie_policy(&self) -> Option<TiePolicy> {
        self.tie_policy
    }

    /// Aggregates, returning the library's refusals (empty input, bad or all-zero weights) as
    /// errors; juries see them through the aggregation boundary as `aggregation_failed`.
    pub fn try_aggregate(
        &self,
        judgments: &[Judgment],
        weights: &Weights,
    ) -> Result<Judgment, BuildError> {
        reduce::aggregate(self, judgments, weights)
    }
}

impl VotingStrategy for BuiltinStrategy {
    fn name(&self) -> String {
        self.kind.token().to_string()
    }

    fn not_applicable_policy(&self) -> NotApplicablePolicy {
        self.not_applicable_policy
    }

    fn aggregate(&self, judgments: &[Judgment], weights: &Weights) -> Result<Judgment, Fault> {
        self.try_aggregate(judgments, weights)
            .map_err(|e| Fault::threw(e.java_type(), e.message()))
    }

    fn describe(&self) -> Value {
        let mut values = Map::new();
        values.insert("errorPolicy".into(), self.error_policy.token().into());
        values.insert(
            "notApplicablePolicy".into(),
            self.not_applicable_policy.token().into(),
        );
        if let Some(t) = self.threshold {
            values.insert("threshold".into(), t.into());
        }
        if let Some(t) = self.tie_policy {
            values.insert("tiePolicy".into(), t.token().into());
        }
        json!({
            "name": self.kind.token(),
            "implementation": {"form": "NAMED", "className": format!("judge_ci::jury::strategies::{:?}", self.kind)},
            "parameters": {"declared": true, "values": Value::Object(values)},
        })
    }
}

#[cfg(test)]
mod props;
