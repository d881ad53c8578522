//! Population resolution, written once for all seven strategies (jury-semantics §5.3):
//! count the originals, take a policy exit if one applies, turn each input into a vote or a
//! non-vote at its original index, and say what to answer when nothing is eligible.

use std::collections::BTreeMap;

use crate::judgment::{
    BuildError, Judgment, MAX_PORTABLE_INT, ReasonCode, Status, read_origin_counts,
};

use super::evidence::{self, Extra};
use super::policy::{ErrorPolicy, NotApplicablePolicy};

/// Counts over the original inputs, taken before any policy applies.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Counts {
    pub input: usize,
    pub explicit_abstain: usize,
    pub not_applicable: usize,
    pub error: usize,
    /// Flattened origin: terminal codes count one each, a propagated error contributes the
    /// counts it carries.
    pub origin: BTreeMap<ReasonCode, u64>,
    pub machinery_origin_errors: usize,
}

/// How many inputs each policy treatment touched.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Treatment {
    pub ignored_errors: usize,
    pub errors_as_abstain: usize,
    pub errors_as_fail: usize,
    pub not_applicable_as_fail: usize,
}

/// One eligible vote at its original (submitted) index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Vote {
    pub index: usize,
    pub status: Status,
    pub score: f64,
}

/// The resolved population a reduction works on.
#[derive(Clone, Debug)]
pub(crate) struct Population {
    pub error_policy: ErrorPolicy,
    pub not_applicable_policy: NotApplicablePolicy,
    pub counts: Counts,
    pub treatment: Treatment,
    pub eligible: Vec<Vote>,
}

/// What resolution produced: a finished aggregate (a policy exit) or votes to reduce.
pub(crate) enum Resolution {
    Exit(Judgment),
    Reduce(Population),
}

impl Counts {
    /// One pass over the inputs.
    pub fn of(judgments: &[Judgment]) -> Counts {
        let mut c = Counts {
            input: judgments.len(),
            ..Counts::default()
        };
        for j in judgments {
            match j.status() {
                Status::Abstain => c.explicit_abstain += 1,
                Status::NotApplicable => c.not_applicable += 1,
                Status::Error => {
                    c.error += 1;
                    match j.reason_code() {
                        Some(ReasonCode::ErrorsPropagated) => {
                            match read_origin_counts(j.metadata()) {
                                Ok(inner) if !inner.is_empty() => {
                                    if inner.keys().any(|k| k.is_machinery()) {
                                        c.machinery_origin_errors += 1;
                                    }
                                    for (code, n) in inner {
                                        add(&mut c.origin, code, n);
                                    }
                                }
                                _ => c.machinery_origin_errors += 1,
                            }
                        }
                        Some(code) => {
                            if code.is_machinery() {
                                c.machinery_origin_errors += 1;
                            }
                            add(&mut c.origin, code, 1);
                        }
                        None => c.machinery_origin_errors += 1,
                    }
                }
                Status::Pass | Status::Fail => {}
            }
        }
        c
    }
}

fn add(origin: &mut BTreeMap<ReasonCode, u64>, code: ReasonCode, n: u64) {
    let e = origin.entry(code).or_insert(0);
    *e = e.saturating_add(n).min(MAX_PORTABLE_INT as u64);
}

/// Resolves the population of `judgments` under the two policies. `strategy` names the
/// strategy in the evidence of a policy exit.
pub(crate) fn resolve(
    strategy: &str,
    judgments: &[Judgment],
    error_policy: ErrorPolicy,
    not_applicable_policy: NotApplicablePolicy,
) -> Result<Resolution, BuildError> {
    if judgments.is_empty() {
        return Err(BuildError::argument("Cannot aggregate empty judgment list"));
    }
    let counts = Counts::of(judgments);
    let mut pop = Population {
        error_policy,
        not_applicable_policy,
        counts,
        treatment: Treatment::default(),
        eligible: Vec::new(),
    };
    if let Some((code, reasoning)) = policy_exit(&pop) {
        let evidence = evidence::block(strategy, &pop, Extra::None);
        // For errors_propagated the block carries the flattened origin as errorCodeCounts,
        // which the judgment's own invariant check requires to be non-empty.
        let aggregate = Judgment::aggregate(Status::Error, None, Some(code), reasoning, evidence)?;
        return Ok(Resolution::Exit(aggregate));
    }
    for (index, j) in judgments.iter().enumerate() {
        match j.status() {
            Status::Pass | Status::Fail => pop.eligible.push(Vote {
                index,
                status: j.status(),
                score: j.effective_score().unwrap_or(0.0),
            }),
            Status::Abstain => {}
            Status::NotApplicable => match not_applicable_policy {
                NotApplicablePolicy::Exclude => {}
                NotApplicablePolicy::TreatAsFail => {
                    pop.treatment.not_applicable_as_fail += 1;
                    pop.eligible.push(Vote {
                        index,
                        status: Status::Fail,
                        score: 0.0,
                    });
                }
                // REFUSE with any exclusion took the policy exit above.
                NotApplicablePolicy::Refuse => {}
            },
            Status::Error => match error_policy {
                ErrorPolicy::TreatAsFail => {
                    pop.treatment.errors_as_fail += 1;
                    pop.eligible.push(Vote {
                        index,
                        status: Status::Fail,
                        score: 0.0,
                    });
                }
                ErrorPolicy::TreatAsAbstain => pop.treatment.errors_as_abstain += 1,
                ErrorPolicy::Ignore => pop.treatment.ignored_errors += 1,
                // PROPAGATE with any error took the policy exit above.
                ErrorPolicy::Propagate => {}
            },
        }
    }
    Ok(Resolution::Reduce(pop))
}

/// The policy exits in precedence order: refuse, propagate, machinery under treat-as-fail.
fn policy_exit(pop: &Population) -> Option<(ReasonCode, String)> {
    let c = &pop.counts;
    if pop.not_applicable_policy == NotApplicablePolicy::Refuse && c.not_applicable > 0 {
        return Some((
            ReasonCode::NotApplicableRefused,
            format!(
                "{} of {} judgment(s) were not applicable and the not-applicable policy is refuse",
                c.not_applicable, c.input
            ),
        ));
    }
    if pop.error_policy == ErrorPolicy::Propagate && c.error > 0 {
        return Some((
            ReasonCode::ErrorsPropagated,
            format!(
                "{} of {} judgments errored and the error policy is propagate",
                c.error, c.input
            ),
        ));
    }
    if pop.error_policy == ErrorPolicy::TreatAsFail && c.machinery_origin_errors > 0 {
        return Some((
            ReasonCode::ErrorsPropagated,
            format!(
                "{} of {} judgments errored, and {} originated in jury machinery rather than in a judge; \
                 a machinery failure is never scored, so it is propagated rather than counted against the subject",
                c.error, c.input, c.machinery_origin_errors
            ),
        ));
    }
    None
}

impl Population {
    /// The answer when nothing is eligible (§5.3 step 5): NOT_APPLICABLE when every input was
    /// excluded under EXCLUDE, otherwise ABSTAIN with the most specific reasoning.
    pub fn no_result(&self, strategy: &str, extra: Extra) -> Result<Judgment, BuildError> {
        let c = &self.counts;
        let evidence = evidence::block(strategy, self, extra);
        if self.not_applicable_policy == NotApplicablePolicy::Exclude && c.not_applicable == c.input
        {
            let reasoning = format!(
                "All {} judgment(s) were not applicable to this subject",
                c.input
            );
            return Judgment::aggregate(Status::NotApplicable, None, None, reasoning, evidence);
        }
        let reasoning = if c.error > 0 && self.error_policy == ErrorPolicy::Ignore {
            format!("No eligible judgments; {} error(s) ignored", c.error)
        } else if c.error > 0 && self.error_policy == ErrorPolicy::TreatAsAbstain {
            format!(
                "All {} judgment(s) abstained because of evaluation errors",
                c.error
            )
        } else if c.explicit_abstain == c.input {
            format!("All {} judge(s) abstained", c.input)
        } else if c.not_applicable > 0 {
            format!(
                "No eligible judgments among {} submitted; {} were not applicable",
                c.input, c.not_applicable
            )
        } else {
            format!("No eligible judgments among {} submitted", c.input)
        };
        Judgment::aggregate(Status::Abstain, None, None, reasoning, evidence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn j(v: serde_json::Value) -> Judgment {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn propagated_inputs_contribute_their_origin_not_themselves() {
        let inputs = vec![
            Judgment::pass(""),
            j(
                json!({"status":"error","reasonCode":"errors_propagated","reasoning":"r",
                "metadata":{"aggregation":{"errorCodeCounts":{"judge_failed":2,"judge_reported":1}}}}),
            ),
            j(json!({"status":"error","reasonCode":"stage_failed","reasoning":"r"})),
        ];
        let c = Counts::of(&inputs);
        assert_eq!(c.error, 2);
        assert_eq!(c.machinery_origin_errors, 1);
        assert_eq!(c.origin[&ReasonCode::JudgeFailed], 2);
        assert_eq!(c.origin[&ReasonCode::JudgeReported], 1);
        assert_eq!(c.origin[&ReasonCode::StageFailed], 1);
        assert!(!c.origin.contains_key(&ReasonCode::ErrorsPropagated));
    }

    #[test]
    fn empty_input_is_refused() {
        let e = resolve(
            "majority",
            &[],
            ErrorPolicy::Propagate,
            NotApplicablePolicy::Refuse,
        );
        assert!(e.err().unwrap().message().contains("empty"));
    }
}
