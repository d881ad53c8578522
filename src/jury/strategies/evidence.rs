//! The evidence block (`metadata.aggregation`) every strategy aggregate carries, in the key
//! order of jury-semantics §5.5.

use serde_json::{Map, Value};

use super::population::Population;

/// Strategy-specific keys appended after the universal ones.
pub(crate) enum Extra {
    /// `passCount`, `failCount` (status-counting strategies that reduced something).
    Counts { pass: usize, fail: usize },
    /// `inputWeight`, `eligibleWeight` (weighted average), optionally followed by `threshold`.
    Weights {
        input: f64,
        eligible: f64,
        threshold: Option<f64>,
    },
    /// `threshold` (average, median).
    Threshold(f64),
    /// `threshold`, `bindingEligibleIndex` (conjunctive).
    Binding { threshold: f64, index: usize },
    /// Nothing beyond the universal keys.
    None,
}

/// Builds the block for a population and the strategy that reduced it.
pub(crate) fn block(strategy: &str, pop: &Population, extra: Extra) -> Map<String, Value> {
    let c = &pop.counts;
    let t = &pop.treatment;
    let mut m = Map::new();
    m.insert("strategy".into(), strategy.into());
    m.insert("errorPolicy".into(), pop.error_policy.token().into());
    m.insert(
        "notApplicablePolicy".into(),
        pop.not_applicable_policy.token().into(),
    );
    m.insert("inputCount".into(), c.input.into());
    m.insert("eligibleCount".into(), pop.eligible.len().into());
    m.insert("explicitAbstainCount".into(), c.explicit_abstain.into());
    m.insert("notApplicableCount".into(), c.not_applicable.into());
    m.insert("errorCount".into(), c.error.into());
    m.insert("ignoredErrorCount".into(), t.ignored_errors.into());
    m.insert(
        "errorsTreatedAsAbstainCount".into(),
        t.errors_as_abstain.into(),
    );
    m.insert("errorsTreatedAsFailCount".into(), t.errors_as_fail.into());
    m.insert(
        "notApplicableTreatedAsFailCount".into(),
        t.not_applicable_as_fail.into(),
    );
    m.insert(
        "errorCodeCounts".into(),
        crate::judgment::origin_counts_json(&c.origin),
    );
    match extra {
        Extra::Counts { pass, fail } => {
            m.insert("passCount".into(), pass.into());
            m.insert("failCount".into(), fail.into());
        }
        Extra::Weights {
            input,
            eligible,
            threshold,
        } => {
            m.insert("inputWeight".into(), weight_value(input));
            m.insert("eligibleWeight".into(), weight_value(eligible));
            if let Some(t) = threshold {
                m.insert("threshold".into(), t.into());
            }
        }
        Extra::Threshold(t) => {
            m.insert("threshold".into(), t.into());
        }
        Extra::Binding { threshold, index } => {
            m.insert("threshold".into(), threshold.into());
            m.insert("bindingEligibleIndex".into(), index.into());
        }
        Extra::None => {}
    }
    m
}

/// A weight as a JSON double; an overflowed total is reported saturated at `f64::MAX`.
fn weight_value(w: f64) -> Value {
    let w = if w.is_finite() { w } else { f64::MAX };
    serde_json::Number::from_f64(w).map_or(Value::Null, Value::Number)
}
