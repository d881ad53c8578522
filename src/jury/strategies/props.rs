//! Property tests over every built-in strategy and policy combination.

use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::judgment::{Judgment, Status};

fn judgment() -> impl Strategy<Value = Judgment> {
    prop_oneof![
        3 => Just(Judgment::pass("")),
        3 => Just(Judgment::fail("")),
        3 => (0.0f64..=1.0).prop_map(|s| Judgment::scored(s, 0.5, "scored").unwrap()),
        1 => Just(Judgment::abstain("no evidence").unwrap()),
        1 => Just(Judgment::not_applicable("no sources").unwrap()),
        1 => Just(Judgment::error("broken").unwrap()),
        1 => Just(
            serde_json::from_value(json!({"status":"error","reasonCode":"stage_failed","reasoning":"machinery"}))
                .unwrap()
        ),
    ]
}

fn spec() -> impl Strategy<Value = BuiltinStrategy> {
    (
        proptest::sample::select(StrategyKind::ALL.to_vec()),
        proptest::sample::select(ErrorPolicy::ALL.to_vec()),
        proptest::sample::select(NotApplicablePolicy::ALL.to_vec()),
        proptest::sample::select(TiePolicy::ALL.to_vec()),
        0.0f64..=1.0,
    )
        .prop_map(|(kind, ep, nap, tie, t)| {
            let mut s = StrategySpec::defaults(kind).errors(ep).not_applicable(nap);
            if kind == StrategyKind::Majority {
                s = s.tie(tie);
            }
            if kind.is_numeric() {
                s = s.threshold(t);
            }
            s.build().unwrap()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// With uniform weights, the order of the inputs never changes the status.
    #[test]
    fn permuting_inputs_keeps_the_status(
        s in spec(),
        (inputs, shuffled) in proptest::collection::vec(judgment(), 1..9)
            .prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle())),
    ) {
        let a = s.try_aggregate(&inputs, &Weights::new()).unwrap();
        let b = s.try_aggregate(&shuffled, &Weights::new()).unwrap();
        prop_assert_eq!(a.status(), b.status());
        prop_assert_eq!(a.reason_code(), b.reason_code());
        if s.kind() != StrategyKind::Conjunctive {
            prop_assert_eq!(a.evidence(), b.evidence());
        }
    }

    /// An abstention is no vote: adding one never changes a PASS or FAIL.
    #[test]
    fn an_abstention_never_changes_a_decision(
        s in spec(),
        inputs in proptest::collection::vec(judgment(), 1..9),
        at in 0usize..9,
    ) {
        let before = s.try_aggregate(&inputs, &Weights::new()).unwrap();
        if !matches!(before.status(), Status::Pass | Status::Fail) {
            return Ok(());
        }
        let mut more = inputs.clone();
        more.insert(at.min(more.len()), Judgment::abstain("undecidable").unwrap());
        let after = s.try_aggregate(&more, &Weights::new()).unwrap();
        prop_assert_eq!(before.status(), after.status());
        prop_assert_eq!(before.score(), after.score());
    }

    /// Every aggregate is a valid judgment with an evidence block and a score in range.
    #[test]
    fn aggregates_are_always_valid(
        s in spec(),
        inputs in proptest::collection::vec(judgment(), 1..12),
        weights in proptest::collection::vec(0.0f64..1e300, 12),
    ) {
        let w: Weights = weights.iter().enumerate().map(|(i, w)| (i.to_string(), *w)).collect();
        match s.try_aggregate(&inputs, &w) {
            Ok(j) => {
                let text = serde_json::to_string(&j).unwrap();
                let back: Judgment = serde_json::from_str(&text).unwrap();
                prop_assert_eq!(back, j.clone());
                prop_assert!(j.evidence().is_some());
                if let Some(sc) = j.score() { prop_assert!((0.0..=1.0).contains(&sc)); }
            }
            Err(e) => prop_assert!(e.message().contains("All weights are zero"), "{}", e),
        }
    }
}
