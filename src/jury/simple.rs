//! The simple jury: seats judges, runs them (concurrently by default), guards exclusions,
//! and reduces their judgments with one strategy inside the boundary (jury-semantics §4).

use async_trait::async_trait;
use indexmap::IndexMap;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::task::JoinSet;

use crate::judgment::{
    BuildError, Fault, Judge, Judgment, JudgmentContext, Phase, ReasonCode, Status,
};

use super::strategies::{NotApplicablePolicy, VotingStrategy, Weights};
use super::verdict::{KeySource, Seat, Verdict, VerdictParts};
use super::{
    DESCRIPTION_VERSION, Jury, VoteScope, assembly_fault, boundary, describe, own_decision,
};

/// One configured seat.
struct SeatConfig {
    judge: Arc<dyn Judge>,
    weight: f64,
    /// The exclusion capability read once at construction (unreadable → none).
    capability: Option<String>,
    /// Renamed by `from_judges`: its key is reported as deduplicated.
    deduplicated: bool,
}

/// The verdict key of a seat for one vote, computed before any judge runs.
struct SeatKey {
    key: String,
    source: KeySource,
    unreadable: Option<Fault>,
}

/// A jury of judges reduced by one voting strategy.
pub struct SimpleJury {
    seats: Vec<SeatConfig>,
    strategy: Arc<dyn VotingStrategy>,
    parallel: bool,
    may_be_not_applicable: bool,
}

/// Builds a [`SimpleJury`]; every refusal happens in [`SimpleJuryBuilder::build`].
pub struct SimpleJuryBuilder {
    seats: Vec<(Arc<dyn Judge>, f64, bool)>,
    strategy: Option<Arc<dyn VotingStrategy>>,
    parallel: bool,
    require_declared_names: bool,
    error: Option<BuildError>,
}

impl SimpleJury {
    /// Starts a builder (parallel by default).
    pub fn builder() -> SimpleJuryBuilder {
        SimpleJuryBuilder {
            seats: Vec::new(),
            strategy: None,
            parallel: true,
            require_declared_names: false,
            error: None,
        }
    }

    /// The strategy.
    pub fn strategy(&self) -> &Arc<dyn VotingStrategy> {
        &self.strategy
    }

    fn seat_keys(&self) -> Vec<SeatKey> {
        self.seats
            .iter()
            .enumerate()
            .map(|(i, s)| match s.judge.metadata() {
                Ok(Some(m)) => SeatKey {
                    key: m.name().to_string(),
                    source: if s.deduplicated {
                        KeySource::Deduplicated
                    } else {
                        KeySource::Declared
                    },
                    unreadable: None,
                },
                Ok(None) => SeatKey {
                    key: positional(i),
                    source: KeySource::Positional,
                    unreadable: None,
                },
                Err(f) => SeatKey {
                    key: positional(i),
                    source: KeySource::Positional,
                    unreadable: Some(f),
                },
            })
            .collect()
    }

    /// Runs every readable seat's judge; results stay in configured order. In parallel,
    /// the build-phase judges go first, one at a time, then the rest together (see
    /// [`Phase`]); sequentially, configuration order is the order.
    async fn run_judges(
        &self,
        ctx: &Arc<JudgmentContext>,
        keys: &[SeatKey],
    ) -> Vec<Option<Result<Judgment, Fault>>> {
        let mut results: Vec<Option<Result<Judgment, Fault>>> =
            (0..self.seats.len()).map(|_| None).collect();
        let runnable: Vec<usize> = keys
            .iter()
            .enumerate()
            .filter(|(_, k)| k.unreadable.is_none())
            .map(|(i, _)| i)
            .collect();
        if self.parallel && tokio::runtime::Handle::try_current().is_ok() {
            let (builds, inspections): (Vec<usize>, Vec<usize>) = runnable
                .into_iter()
                .partition(|&i| self.seats[i].judge.phase() == Phase::Build);
            for i in builds {
                self.run_together(ctx, &[i], &mut results).await;
            }
            self.run_together(ctx, &inspections, &mut results).await;
        } else {
            for i in runnable {
                results[i] = Some(self.seats[i].judge.judge(ctx).await);
            }
        }
        results
    }

    /// Runs the judges of `seats` concurrently, each in a task of its own (a panic becomes
    /// that seat's fault), into `results`.
    async fn run_together(
        &self,
        ctx: &Arc<JudgmentContext>,
        seats: &[usize],
        results: &mut [Option<Result<Judgment, Fault>>],
    ) {
        let mut set = JoinSet::new();
        let mut ids = std::collections::HashMap::new();
        for &i in seats {
            let judge = Arc::clone(&self.seats[i].judge);
            let ctx = Arc::clone(ctx);
            let handle = set.spawn(async move { (i, judge.judge(&ctx).await) });
            ids.insert(handle.id(), i);
        }
        while let Some(done) = set.join_next_with_id().await {
            match done {
                Ok((_, (i, r))) => results[i] = Some(r),
                Err(e) => {
                    if let Some(&i) = ids.get(&e.id()) {
                        results[i] = Some(Err(join_fault(e)));
                    }
                }
            }
        }
    }
}

fn positional(i: usize) -> String {
    format!("Judge#{}", i + 1)
}

fn join_fault(e: tokio::task::JoinError) -> Fault {
    if e.is_panic() {
        let payload = e.into_panic();
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned());
        Fault::Threw {
            kind: "panic".into(),
            message: msg,
        }
    } else {
        Fault::threw("cancelled", "the judge's task was cancelled")
    }
}

/// Converts what a seat's judge did into the judgment the seat records (§4.3 step 1).
fn seat_judgment(
    position: usize,
    key: &SeatKey,
    outcome: Option<Result<Judgment, Fault>>,
    capability: Option<&str>,
) -> Result<Judgment, Fault> {
    let k = &key.key;
    let built = match (&key.unreadable, outcome) {
        (Some(f), _) => {
            let what = match f {
                Fault::NoResult => "metadata() returned null".to_string(),
                other => format!("metadata() {other}"),
            };
            Judgment::error_with(
                ReasonCode::JudgeMetadataUnreadable,
                format!("Judge at position {position} ('{k}') has unreadable metadata: {what}"),
            )
        }
        (None, Some(Err(f))) if f.escapes() => return Err(f),
        (None, Some(Err(Fault::NoResult)) | None) => Judgment::error_with(
            ReasonCode::JudgeFailed,
            format!("Judge '{k}' returned no judgment"),
        ),
        (None, Some(Err(f))) => {
            Judgment::error_with(ReasonCode::JudgeFailed, format!("Judge '{k}' {f}"))
        }
        (None, Some(Ok(j))) if j.status() == Status::NotApplicable && capability.is_none() => {
            Judgment::error_with(
                ReasonCode::UndeclaredNotApplicable,
                format!(
                    "Judge '{k}' returned NOT_APPLICABLE without declaring that it may exclude a subject, \
                     so the exclusion is not honoured: {}",
                    j.reasoning()
                ),
            )
        }
        (None, Some(Ok(j))) => return Ok(j),
    };
    built.map_err(assembly_fault)
}

#[async_trait]
impl Jury for SimpleJury {
    async fn vote_in(
        &self,
        ctx: &Arc<JudgmentContext>,
        _scope: &VoteScope,
    ) -> Result<Verdict, Fault> {
        let keys = self.seat_keys();
        let outcomes = self.run_judges(ctx, &keys).await;
        let mut individual = Vec::with_capacity(self.seats.len());
        let mut by_name = IndexMap::new();
        let mut seats = Vec::with_capacity(self.seats.len());
        let mut weights = Weights::new();
        for (i, (key, outcome)) in keys.iter().zip(outcomes).enumerate() {
            let j = seat_judgment(i, key, outcome, self.seats[i].capability.as_deref())?;
            by_name.insert(key.key.clone(), j.clone());
            individual.push(j);
            seats.push(Seat {
                position: i,
                verdict_key: key.key.clone(),
                key_source: key.source,
            });
            weights.insert(i.to_string(), self.seats[i].weight);
        }
        let aggregated = boundary::contain(
            self.strategy.as_ref(),
            &individual,
            &weights,
            self.may_be_not_applicable,
        )?;
        let decision = own_decision(&aggregated);
        // Distinct keys must follow seat order; a collapsed duplicate keeps its first place.
        Verdict::new(VerdictParts {
            aggregated,
            individual,
            individual_by_name: by_name,
            weights,
            seats,
            decision,
            composite_attempts: Vec::new(),
        })
        .map_err(assembly_fault)
    }

    fn aggregate_may_be_not_applicable(&self) -> bool {
        self.may_be_not_applicable
    }

    fn describe(&self) -> Result<Value, BuildError> {
        let keys = self.seat_keys();
        let mut seats = Vec::new();
        for (i, (s, k)) in self.seats.iter().zip(&keys).enumerate() {
            let judge = describe::judge(s.judge.as_ref(), s.capability.as_deref())
                .map_err(|e| e.at(&format!("seats[{i}] ('{}')", k.key)))?;
            seats.push(json!({
                "position": i,
                "verdictKey": k.key,
                "keySource": k.source,
                "weight": s.weight,
                "judge": judge,
            }));
        }
        Ok(json!({
            "descriptionVersion": DESCRIPTION_VERSION,
            "kind": "SIMPLE",
            "aggregateMayBeNotApplicable": self.may_be_not_applicable,
            "strategy": self.strategy.describe(),
            "seats": seats,
        }))
    }

    fn judges(&self) -> Vec<Arc<dyn Judge>> {
        self.seats.iter().map(|s| Arc::clone(&s.judge)).collect()
    }
}

impl SimpleJuryBuilder {
    /// Seats a judge with weight 1.0.
    pub fn judge(self, judge: Arc<dyn Judge>) -> Self {
        self.weighted(judge, 1.0)
    }

    /// Seats a judge with a weight, which must be finite and ≥ 0.
    pub fn weighted(mut self, judge: Arc<dyn Judge>, weight: f64) -> Self {
        if !weight.is_finite() {
            self.error.get_or_insert(BuildError::argument(format!(
                "seats[{}]: weight must be finite, got {weight}",
                self.seats.len()
            )));
        } else if weight < 0.0 {
            self.error.get_or_insert(BuildError::argument(format!(
                "seats[{}]: weight must be non-negative, got {weight}",
                self.seats.len()
            )));
        }
        self.seats.push((judge, weight, false));
        self
    }

    /// Seats a judge renamed by deduplication (its key is reported as `DEDUPLICATED`).
    pub(crate) fn deduplicated(mut self, judge: Arc<dyn Judge>) -> Self {
        self.seats.push((judge, 1.0, true));
        self
    }

    /// Sets the voting strategy (required).
    pub fn strategy(mut self, strategy: Arc<dyn VotingStrategy>) -> Self {
        self.strategy = Some(strategy);
        self
    }

    /// Runs judges one after another instead of concurrently.
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }

    /// Requires every seat to have a declared, unique name.
    pub fn require_declared_names(mut self) -> Self {
        self.require_declared_names = true;
        self
    }

    /// Builds the jury, refusing invalid weights, no judges, no strategy, a seat that may
    /// exclude under a strategy that refuses exclusions, and (if required) undeclared or shared
    /// seat names.
    pub fn build(self) -> Result<SimpleJury, BuildError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.seats.is_empty() {
            return Err(BuildError::argument("Jury must have at least one judge"));
        }
        let strategy = self
            .strategy
            .ok_or_else(|| BuildError::state("Voting strategy is required"))?;
        let seats: Vec<SeatConfig> = self
            .seats
            .into_iter()
            .map(|(judge, weight, deduplicated)| SeatConfig {
                capability: crate::judgment::not_applicable_capability(judge.as_ref())
                    .ok()
                    .flatten(),
                judge,
                weight,
                deduplicated,
            })
            .collect();
        let na_policy = strategy.not_applicable_policy();
        if na_policy == NotApplicablePolicy::Refuse
            && let Some((i, s)) = seats
                .iter()
                .enumerate()
                .find(|(_, s)| s.capability.is_some())
        {
            return Err(BuildError::argument(format!(
                "seats[{i}] declares that it may answer NOT_APPLICABLE ({:?}), but strategy '{}' refuses exclusions",
                s.capability.as_deref().unwrap_or_default(),
                strategy.name()
            )));
        }
        let may_be_not_applicable = na_policy == NotApplicablePolicy::Exclude
            && seats.iter().any(|s| s.capability.is_some());
        let jury = SimpleJury {
            seats,
            strategy,
            parallel: self.parallel,
            may_be_not_applicable,
        };
        if self.require_declared_names {
            let keys = jury.seat_keys();
            for (i, k) in keys.iter().enumerate() {
                if k.source == KeySource::Positional {
                    return Err(BuildError::argument(format!(
                        "seats[{i}] has no declared name; its verdict key would be the positional '{}'",
                        k.key
                    )));
                }
            }
            for (j, k) in keys.iter().enumerate() {
                if let Some(i) = keys[..j].iter().position(|o| o.key == k.key) {
                    return Err(BuildError::argument(format!(
                        "seats[{i}] and seats[{j}] share the verdict key '{}'",
                        k.key
                    )));
                }
            }
        }
        Ok(jury)
    }
}
