//! The per-strategy reductions over an already resolved population (jury-semantics §5.4).

use crate::judgment::{BuildError, Judgment, Status};

use super::evidence::{self, Extra};
use super::population::{self, Population, Resolution};
use super::{BuiltinStrategy, StrategyKind, TiePolicy, Weights};

/// Runs the whole algorithm for a built-in strategy.
pub(super) fn aggregate(
    s: &BuiltinStrategy,
    judgments: &[Judgment],
    weights: &Weights,
) -> Result<Judgment, BuildError> {
    let name = s.kind.token();
    if judgments.is_empty() {
        return Err(BuildError::argument("Cannot aggregate empty judgment list"));
    }
    // Weights are validated before any policy exit, as the library does.
    let resolved = if s.kind == StrategyKind::WeightedAverage {
        Some(resolve_weights(judgments.len(), weights)?)
    } else {
        None
    };
    let pop = match population::resolve(name, judgments, s.error_policy, s.not_applicable_policy)? {
        Resolution::Exit(j) => return Ok(j),
        Resolution::Reduce(p) => p,
    };
    let threshold = s.threshold.unwrap_or(super::DEFAULT_THRESHOLD);
    match s.kind {
        StrategyKind::Majority | StrategyKind::Consensus | StrategyKind::AllMustPass => {
            if pop.eligible.is_empty() {
                return pop.no_result(name, Extra::None);
            }
            counting(s, name, &pop)
        }
        StrategyKind::Average => {
            if pop.eligible.is_empty() {
                return pop.no_result(name, Extra::None);
            }
            let scores: Vec<f64> = pop.eligible.iter().map(|v| v.score).collect();
            let mean = scores.iter().sum::<f64>() / scores.len() as f64;
            numeric(
                name,
                &pop,
                "Average score",
                mean,
                threshold,
                Extra::Threshold(threshold),
                "",
            )
        }
        StrategyKind::Median => {
            if pop.eligible.is_empty() {
                return pop.no_result(name, Extra::None);
            }
            let mut scores: Vec<f64> = pop.eligible.iter().map(|v| v.score).collect();
            scores.sort_by(f64::total_cmp);
            let n = scores.len();
            let median = if n % 2 == 1 {
                scores[n / 2]
            } else {
                (scores[n / 2 - 1] + scores[n / 2]) / 2.0
            };
            numeric(
                name,
                &pop,
                "Median score",
                median,
                threshold,
                Extra::Threshold(threshold),
                "",
            )
        }
        StrategyKind::WeightedAverage => {
            let w = resolved.unwrap_or_default();
            weighted(name, &pop, &w, threshold)
        }
        StrategyKind::Conjunctive => {
            let Some(binding) = pop
                .eligible
                .iter()
                .copied()
                .reduce(|best, v| if v.score < best.score { v } else { best })
            else {
                return pop.no_result(name, Extra::None);
            };
            let suffix = format!("; binding judgment at index {}", binding.index);
            numeric(
                name,
                &pop,
                "Minimum score",
                binding.score,
                threshold,
                Extra::Binding {
                    threshold,
                    index: binding.index,
                },
                &suffix,
            )
        }
    }
}

/// Majority, consensus and all-must-pass: count votes, ignore scores and weights.
fn counting(s: &BuiltinStrategy, name: &str, pop: &Population) -> Result<Judgment, BuildError> {
    let p = pop
        .eligible
        .iter()
        .filter(|v| v.status == Status::Pass)
        .count();
    let f = pop.eligible.len() - p;
    let n = pop.eligible.len();
    let (status, reasoning) = match s.kind {
        StrategyKind::Majority => {
            if p != f {
                let st = if p > f { Status::Pass } else { Status::Fail };
                (
                    st,
                    format!("Majority vote: {p} passed, {f} failed (majority {st})"),
                )
            } else {
                let st = match s.tie_policy.unwrap_or_default() {
                    TiePolicy::Pass => Status::Pass,
                    TiePolicy::Fail => Status::Fail,
                    TiePolicy::Abstain => Status::Abstain,
                };
                (
                    st,
                    format!("Tie vote: {p} passed, {f} failed (tie resolved as {st})"),
                )
            }
        }
        StrategyKind::Consensus => {
            if f == 0 {
                (
                    Status::Pass,
                    format!("Unanimous consensus: all {n} applicable judge(s) passed"),
                )
            } else if p == 0 {
                (
                    Status::Fail,
                    format!("Unanimous consensus: all {n} applicable judge(s) failed"),
                )
            } else {
                (
                    Status::Abstain,
                    format!("No consensus: {p} passed, {f} failed among {n} applicable judge(s)"),
                )
            }
        }
        _ => {
            if f == 0 {
                (
                    Status::Pass,
                    format!("All {n} applicable requirement(s) passed"),
                )
            } else {
                (
                    Status::Fail,
                    format!("{f} of {n} applicable requirement(s) failed"),
                )
            }
        }
    };
    let ev = evidence::block(name, pop, Extra::Counts { pass: p, fail: f });
    Judgment::aggregate(status, None, None, reasoning, ev)
}

/// A threshold decision on a reduced score; the score is stored on PASS and FAIL alike.
fn numeric(
    name: &str,
    pop: &Population,
    label: &str,
    score: f64,
    threshold: f64,
    extra: Extra,
    suffix: &str,
) -> Result<Judgment, BuildError> {
    // Rounding in sums can leave a mean a hair outside [0, 1]; the score invariant wins.
    let score = score.clamp(0.0, 1.0);
    let status = if score >= threshold {
        Status::Pass
    } else {
        Status::Fail
    };
    let reasoning = format!(
        "{label}: {score:.2} across {} applicable judge(s) (threshold: {threshold:.2}, result: {status}){suffix}",
        pop.eligible.len()
    );
    let ev = evidence::block(name, pop, extra);
    Judgment::aggregate(status, Some(score), None, reasoning, ev)
}

/// Resolves one weight per input: missing → 1.0, each finite and ≥ 0, not all zero. A total
/// that overflows is rescaled by a power of two (the arithmetic is unchanged otherwise).
fn resolve_weights(n: usize, weights: &Weights) -> Result<Vec<f64>, BuildError> {
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let w = weights.get(&i.to_string()).copied().unwrap_or(1.0);
        if !w.is_finite() {
            return Err(BuildError::argument(format!(
                "weight at position {i} must be finite, got {w}"
            )));
        }
        if w < 0.0 {
            return Err(BuildError::argument(format!(
                "weight at position {i} must be non-negative, got {w}"
            )));
        }
        out.push(w);
    }
    if out.iter().all(|w| *w == 0.0) {
        return Err(BuildError::argument(
            "All weights are zero; at least one judgment must carry a positive weight",
        ));
    }
    Ok(out)
}

fn weighted(
    name: &str,
    pop: &Population,
    weights: &[f64],
    threshold: f64,
) -> Result<Judgment, BuildError> {
    let raw_input: f64 = weights.iter().sum();
    let raw_eligible: f64 = pop.eligible.iter().map(|v| weights[v.index]).sum();
    if pop.eligible.is_empty() || raw_eligible == 0.0 {
        let extra = Extra::Weights {
            input: raw_input,
            eligible: raw_eligible,
            threshold: None,
        };
        if pop.eligible.is_empty() {
            return pop.no_result(name, extra);
        }
        let ev = evidence::block(name, pop, extra);
        let reasoning = format!(
            "No eligible weight: the {} eligible judgment(s) carry zero weight",
            pop.eligible.len()
        );
        return Judgment::aggregate(Status::Abstain, None, None, reasoning, ev);
    }
    // Only an overflowing total is rescaled, so ordinary arithmetic stays bit-identical.
    let mut scale = 1.0_f64;
    while !(weights.iter().map(|w| w * scale).sum::<f64>()).is_finite() {
        scale *= 2f64.powi(-64);
    }
    let total: f64 = pop.eligible.iter().map(|v| weights[v.index] * scale).sum();
    let sum: f64 = pop
        .eligible
        .iter()
        .map(|v| weights[v.index] * scale * v.score)
        .sum();
    numeric(
        name,
        pop,
        "Weighted average",
        sum / total,
        threshold,
        Extra::Weights {
            input: raw_input,
            eligible: raw_eligible,
            threshold: Some(threshold),
        },
        "",
    )
}
