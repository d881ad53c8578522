//! Unit tests of the juries for what the conformance cases do not cover: concurrency and
//! order, builder refusals, panics, limits, descriptions and wire round trips.

use async_trait::async_trait;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

use crate::judgment::{
    BuildError, Fault, Judge, JudgeMetadata, Judgment, JudgmentContext, ReasonCode, Status,
};

use super::strategies::{
    BuiltinStrategy, NotApplicablePolicy, StrategyKind, StrategySpec, VotingStrategy,
};
use super::*;

/// A judge that optionally waits, then answers.
struct Fixed {
    name: String,
    answer: Judgment,
    wait: Duration,
    barrier: Option<Arc<tokio::sync::Barrier>>,
    capability: Option<String>,
}

fn fixed(name: &str, answer: Judgment) -> Fixed {
    Fixed {
        name: name.into(),
        answer,
        wait: Duration::ZERO,
        barrier: None,
        capability: None,
    }
}

#[async_trait]
impl Judge for Fixed {
    fn metadata(&self) -> Result<Option<JudgeMetadata>, Fault> {
        let m = JudgeMetadata::named(&self.name).map_err(|e| Fault::threw("x", e.message()))?;
        Ok(Some(match &self.capability {
            Some(c) => m
                .excluding_when(c.clone())
                .map_err(|e| Fault::threw("x", e.message()))?,
            None => m,
        }))
    }
    async fn judge(&self, _: &JudgmentContext) -> Result<Judgment, Fault> {
        if let Some(b) = &self.barrier {
            b.wait().await;
        }
        tokio::time::sleep(self.wait).await;
        Ok(self.answer.clone())
    }
}

struct Panicking;

#[async_trait]
impl Judge for Panicking {
    fn metadata(&self) -> Result<Option<JudgeMetadata>, Fault> {
        Ok(Some(
            JudgeMetadata::named("panics").map_err(|e| Fault::threw("x", e.message()))?,
        ))
    }
    async fn judge(&self, _: &JudgmentContext) -> Result<Judgment, Fault> {
        panic!("judge blew up")
    }
}

fn strategy(kind: StrategyKind) -> Arc<dyn VotingStrategy> {
    Arc::new(BuiltinStrategy::with_defaults(kind).unwrap())
}

fn ctx() -> Arc<JudgmentContext> {
    Arc::new(JudgmentContext::new("."))
}

fn simple(judges: Vec<Fixed>, kind: StrategyKind) -> SimpleJury {
    judges
        .into_iter()
        .fold(SimpleJury::builder().strategy(strategy(kind)), |b, j| {
            b.judge(Arc::new(j))
        })
        .build()
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn eight_sleeping_judges_run_concurrently_and_keep_configured_order() {
    // Later seats finish first, so completion order is the reverse of configured order.
    let judges: Vec<Fixed> = (0..8)
        .map(|i| Fixed {
            wait: Duration::from_millis(200 + 10 * (7 - i)),
            ..fixed(&format!("j{i}"), Judgment::pass(format!("seat {i}")))
        })
        .collect();
    let jury = simple(judges, StrategyKind::Consensus);
    let start = tokio::time::Instant::now();
    let v = vote(&jury, ctx()).await.unwrap();
    // Virtual time: sequential would take 1.88 s, concurrent takes the longest single wait.
    assert_eq!(start.elapsed(), Duration::from_millis(270));
    let reasons: Vec<&str> = v.individual().iter().map(|j| j.reasoning()).collect();
    let expected: Vec<String> = (0..8).map(|i| format!("seat {i}")).collect();
    assert_eq!(reasons, expected);
    let keys: Vec<&String> = v.individual_by_name().keys().collect();
    assert_eq!(
        keys,
        (0..8)
            .map(|i| format!("j{i}"))
            .collect::<Vec<_>>()
            .iter()
            .collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn judges_really_overlap() {
    // Every judge waits for all eight to have started: only a concurrent jury finishes.
    let barrier = Arc::new(tokio::sync::Barrier::new(8));
    let judges: Vec<Fixed> = (0..8)
        .map(|i| Fixed {
            barrier: Some(Arc::clone(&barrier)),
            ..fixed(&format!("j{i}"), Judgment::pass(""))
        })
        .collect();
    let jury = simple(judges, StrategyKind::Majority);
    let v = tokio::time::timeout(Duration::from_secs(30), vote(&jury, ctx()))
        .await
        .expect("a concurrent jury does not deadlock")
        .unwrap();
    assert_eq!(v.aggregated().status(), Status::Pass);
}

#[tokio::test(start_paused = true)]
async fn sequential_juries_keep_order_too() {
    let judges: Vec<Fixed> = (0..3)
        .map(|i| Fixed {
            wait: Duration::from_millis(100),
            ..fixed(&format!("j{i}"), Judgment::verdict(i != 1, ""))
        })
        .collect();
    let jury = judges
        .into_iter()
        .fold(
            SimpleJury::builder().strategy(strategy(StrategyKind::Majority)),
            |b, j| b.judge(Arc::new(j)),
        )
        .parallel(false)
        .build()
        .unwrap();
    let start = tokio::time::Instant::now();
    let v = vote(&jury, ctx()).await.unwrap();
    assert_eq!(start.elapsed(), Duration::from_millis(300));
    let st: Vec<Status> = v.individual().iter().map(Judgment::status).collect();
    assert_eq!(st, [Status::Pass, Status::Fail, Status::Pass]);
}

/// A build that takes `wait`, then records that it finished; or an inspection that passes
/// only when every build before it has finished.
struct Staged {
    name: &'static str,
    build: Option<Duration>,
    builds_done: Arc<std::sync::atomic::AtomicUsize>,
    builds: usize,
}

#[async_trait]
impl Judge for Staged {
    fn metadata(&self) -> Result<Option<JudgeMetadata>, Fault> {
        Ok(Some(
            JudgeMetadata::named(self.name).map_err(|e| Fault::threw("x", e.message()))?,
        ))
    }
    async fn judge(&self, _: &JudgmentContext) -> Result<Judgment, Fault> {
        use std::sync::atomic::Ordering;
        match self.build {
            Some(wait) => {
                tokio::time::sleep(wait).await;
                self.builds_done.fetch_add(1, Ordering::SeqCst);
                Ok(Judgment::pass("built"))
            }
            None if self.builds_done.load(Ordering::SeqCst) == self.builds => {
                Ok(Judgment::pass("read the build's output"))
            }
            None => Ok(Judgment::fail("raced the build")),
        }
    }
    fn phase(&self) -> crate::judgment::Phase {
        match self.build {
            Some(_) => crate::judgment::Phase::Build,
            None => crate::judgment::Phase::Inspect,
        }
    }
}

#[tokio::test(start_paused = true)]
async fn builds_run_first_one_at_a_time_then_the_inspections_together() {
    let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let staged = |name, build| Staged {
        name,
        build,
        builds_done: Arc::clone(&done),
        builds: 2,
    };
    // Configured with an inspection first: it still waits for both builds.
    let jury = SimpleJury::builder()
        .strategy(strategy(StrategyKind::Consensus))
        .judge(Arc::new(staged("class-version", None)))
        .judge(Arc::new(staged("build", Some(Duration::from_millis(200)))))
        .judge(Arc::new(staged("tests", Some(Duration::from_millis(100)))))
        .judge(Arc::new(staged("coverage", None)))
        .build()
        .unwrap();
    let start = tokio::time::Instant::now();
    let v = vote(&jury, ctx()).await.unwrap();
    assert_eq!(
        start.elapsed(),
        Duration::from_millis(300),
        "the builds one after the other, the inspections together after them"
    );
    let reasons: Vec<&str> = v.individual().iter().map(|j| j.reasoning()).collect();
    assert_eq!(
        reasons,
        [
            "read the build's output",
            "built",
            "built",
            "read the build's output"
        ],
        "configured order kept"
    );
}

#[tokio::test]
async fn a_panicking_judge_is_a_judge_failure_not_a_crash() {
    let jury = SimpleJury::builder()
        .strategy(strategy(StrategyKind::Majority))
        .judge(Arc::new(Panicking))
        .judge(Arc::new(fixed("ok", Judgment::pass(""))))
        .build()
        .unwrap();
    let v = vote(&jury, ctx()).await.unwrap();
    let j = &v.individual()[0];
    assert_eq!(j.reason_code(), Some(ReasonCode::JudgeFailed));
    assert!(j.reasoning().contains("judge blew up"), "{}", j.reasoning());
    assert_eq!(
        v.aggregated().reason_code(),
        Some(ReasonCode::ErrorsPropagated)
    );
}

#[test]
fn builder_refusals() {
    let e = SimpleJury::builder()
        .judge(Arc::new(fixed("a", Judgment::pass(""))))
        .build()
        .err()
        .unwrap();
    assert_eq!(e, BuildError::state("Voting strategy is required"));
    let e = SimpleJury::builder()
        .strategy(strategy(StrategyKind::Majority))
        .build()
        .err()
        .unwrap();
    assert!(e.message().contains("at least one judge"));
    for (w, word) in [
        (-1.0, "non-negative"),
        (f64::NAN, "finite"),
        (f64::INFINITY, "finite"),
    ] {
        let e = SimpleJury::builder()
            .strategy(strategy(StrategyKind::Majority))
            .weighted(Arc::new(fixed("a", Judgment::pass(""))), w)
            .build()
            .err()
            .unwrap();
        assert!(
            matches!(e, BuildError::InvalidArgument(_)) && e.message().contains(word),
            "{e}"
        );
    }
    assert!(
        SimpleJury::builder()
            .strategy(strategy(StrategyKind::Majority))
            .weighted(Arc::new(fixed("a", Judgment::pass(""))), 0.0)
            .build()
            .is_ok()
    );
}

#[test]
fn cascade_and_meta_construction_refusals() {
    let leaf = || -> Arc<dyn Jury> {
        Arc::new(simple(
            vec![fixed("a", Judgment::pass(""))],
            StrategyKind::Majority,
        ))
    };
    assert!(matches!(
        CascadedJury::builder().build(),
        Err(BuildError::InvalidState(_))
    ));
    let e = CascadedJury::builder()
        .tier("only", leaf(), TierPolicy::RejectOnAnyFail)
        .build()
        .err()
        .unwrap();
    assert!(e.message().contains("FINAL_TIER"), "{e}");
    let e = CascadedJury::builder()
        .tier("t", leaf(), TierPolicy::RejectOnAnyFail)
        .tier("t", leaf(), TierPolicy::FinalTier)
        .build()
        .err()
        .unwrap();
    assert!(e.message().contains("Duplicate cascade tier name"));
    let e = CascadedJury::builder()
        .tier(" t", leaf(), TierPolicy::FinalTier)
        .build()
        .err()
        .unwrap();
    assert!(
        e.message().contains("leading or trailing whitespace"),
        "{e}"
    );

    let capable = SimpleJury::builder()
        .strategy(Arc::new(
            StrategySpec::defaults(StrategyKind::Consensus)
                .not_applicable(NotApplicablePolicy::Exclude)
                .build()
                .unwrap(),
        ))
        .judge(Arc::new(Fixed {
            capability: Some("no java sources".into()),
            ..fixed("c", Judgment::pass(""))
        }))
        .build()
        .unwrap();
    assert!(capable.aggregate_may_be_not_applicable());
    let e = MetaJury::new(
        strategy(StrategyKind::Consensus),
        vec![NamedJury::new("m", Arc::new(capable))],
    )
    .err()
    .unwrap();
    assert!(e.message().contains("refuses exclusions"), "{e}");
    let e = MetaJury::new(strategy(StrategyKind::Consensus), vec![])
        .err()
        .unwrap();
    assert!(
        e.message().contains("At least one named jury is required"),
        "{e}"
    );
    let e = MetaJury::builder()
        .member(NamedJury::new(
            "m",
            Arc::new(simple(
                vec![fixed("a", Judgment::pass(""))],
                StrategyKind::Majority,
            )),
        ))
        .build()
        .err()
        .unwrap();
    assert!(
        e.message().contains("Meta voting strategy is required"),
        "{e}"
    );
}

/// A cascade nested `depth` times around a one-judge jury.
fn nested(depth: usize) -> Arc<dyn Jury> {
    let mut j: Arc<dyn Jury> = Arc::new(simple(
        vec![fixed("a", Judgment::pass(""))],
        StrategyKind::Majority,
    ));
    for i in 0..depth {
        j = Arc::new(
            CascadedJury::builder()
                .tier(format!("level-{i}"), j, TierPolicy::FinalTier)
                .build()
                .unwrap(),
        );
    }
    j
}

#[tokio::test]
async fn composite_limits_escape_every_containment() {
    assert!(
        vote(nested(MAX_COMPOSITE_DEPTH).as_ref(), ctx())
            .await
            .is_ok()
    );
    let err = vote(nested(MAX_COMPOSITE_DEPTH + 1).as_ref(), ctx())
        .await
        .unwrap_err();
    assert!(matches!(err, Fault::LimitExceeded(_)), "{err:?}");
}

async fn three_tier_verdict() -> Verdict {
    let cascade = CascadedJury::builder()
        .tier(
            "build",
            Arc::new(simple(
                vec![fixed("compiles", Judgment::pass("ok"))],
                StrategyKind::AllMustPass,
            )),
            TierPolicy::RejectOnAnyFail,
        )
        .tier(
            "structural",
            Arc::new(simple(
                vec![
                    fixed("imports", Judgment::pass("")),
                    fixed("ast", Judgment::scored(0.4, 0.5, "weak").unwrap()),
                ],
                StrategyKind::Average,
            )),
            TierPolicy::AcceptOnAllPass,
        )
        .tier(
            "semantic",
            Arc::new(simple(
                vec![fixed("llm", Judgment::abstain("no key").unwrap())],
                StrategyKind::Majority,
            )),
            TierPolicy::FinalTier,
        )
        .build()
        .unwrap();
    vote(&cascade, ctx()).await.unwrap()
}

#[tokio::test]
async fn verdict_json_round_trips_byte_for_byte() {
    let v = three_tier_verdict().await;
    let text = serde_json::to_string(&v).unwrap();
    let back: Verdict = serde_json::from_str(&text).unwrap();
    assert_eq!(back, v);
    assert_eq!(serde_json::to_string(&back).unwrap(), text);
    let keys: Vec<String> = serde_json::from_str::<serde_json::Map<String, Value>>(&text)
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        keys,
        [
            "aggregated",
            "individual",
            "individualByName",
            "weights",
            "seats",
            "decision",
            "compositeAttempts"
        ]
    );
    assert!(
        text.contains(r#""decision":{"kind":"tier","tier":"semantic","basis":"tier_outcome"}"#),
        "{text}"
    );
    assert!(text.contains(r#""policy":"ACCEPT_ON_ALL_PASS""#));
    assert!(text.contains(r#""weights":{"0":1.0}"#), "{text}");
}

#[tokio::test]
async fn broken_stored_verdicts_are_refused() {
    let v = serde_json::to_value(three_tier_verdict().await).unwrap();
    type Mutation = Box<dyn Fn(&mut Value)>;
    // (what is broken, the reason the refusal must give, the mutation)
    let mutations: Vec<(&str, &str, Mutation)> = vec![
        (
            "extra seat",
            "exactly one seat per individual judgment",
            Box::new(|v| {
                v["seats"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"position":9,"verdictKey":"llm","keySource":"DECLARED"}))
            }),
        ),
        (
            "undecided but not machinery",
            "machinery reason code",
            Box::new(|v| v["decision"] = json!({"kind":"undecided"})),
        ),
        (
            "tier that does not exist",
            "no direct cascade_tier attempt has that name",
            Box::new(|v| v["decision"]["tier"] = json!("nope")),
        ),
        (
            "unknown decision kind",
            "unknown variant `maybe`",
            Box::new(|v| v["decision"]["kind"] = json!("maybe")),
        ),
        (
            "root differs from tier",
            "root aggregate must equal the tier's",
            Box::new(|v| v["aggregated"]["reasoning"] = json!("edited")),
        ),
        (
            "duplicate attempt",
            "duplicate sibling attempt name 'build'",
            Box::new(|v| {
                let a = v["compositeAttempts"][0].clone();
                v["compositeAttempts"].as_array_mut().unwrap().push(a);
            }),
        ),
        (
            "used with a reason",
            "a used attempt has no disposition reason",
            Box::new(|v| v["compositeAttempts"][0]["dispositionReason"] = json!("child_undecided")),
        ),
        (
            "lower-case key source",
            "unknown variant `declared`",
            Box::new(|v| v["seats"][0]["keySource"] = json!("declared")),
        ),
    ];
    for (what, reason, m) in mutations {
        let mut broken = v.clone();
        m(&mut broken);
        match serde_json::from_value::<Verdict>(broken) {
            Ok(_) => panic!("{what} was accepted"),
            Err(e) => assert!(
                e.to_string().contains(reason),
                "{what} was refused for another reason: {e}"
            ),
        }
    }
}

#[tokio::test]
async fn descriptions_name_every_part() {
    let cascade = CascadedJury::builder()
        .tier(
            "build",
            Arc::new(simple(
                vec![fixed("compiles", Judgment::pass(""))],
                StrategyKind::AllMustPass,
            )),
            TierPolicy::FinalTier,
        )
        .build()
        .unwrap();
    let d = cascade.describe().unwrap();
    assert_eq!(d["descriptionVersion"], 2);
    assert_eq!(d["kind"], "CASCADED");
    let tier = &d["tiers"][0];
    assert_eq!(tier["policy"], "FINAL_TIER");
    assert_eq!(tier["jury"]["kind"], "SIMPLE");
    assert_eq!(tier["jury"]["strategy"]["name"], "allMustPass");
    assert_eq!(
        tier["jury"]["strategy"]["parameters"]["values"]["errorPolicy"],
        "propagate"
    );
    let seat = &tier["jury"]["seats"][0];
    assert_eq!(seat["verdictKey"], "compiles");
    assert_eq!(seat["keySource"], "DECLARED");
    assert_eq!(seat["judge"]["metadata"]["values"]["type"], "DETERMINISTIC");
    assert_eq!(
        seat["judge"]["notApplicableWhen"],
        json!({"declared": false})
    );
    assert_eq!(seat["judge"]["configuration"], json!({"declared": false}));
}

#[tokio::test]
async fn live_and_stored_interpretations_agree() {
    let v = three_tier_verdict().await;
    let live = interpret::interpret_verdict(&v);
    let stored =
        interpret::interpret(&serde_json::from_str(&serde_json::to_string(&v).unwrap()).unwrap());
    assert_eq!(live, stored);
    assert_eq!(live.reading, Some(interpret::Reading::Undecided));
    assert_eq!(live.decided_by.as_deref(), Some("semantic"));
    assert_eq!(live.reading_support, interpret::ReadingSupport::Supported);
    assert!(live.defects.is_empty(), "{:?}", live.defects);
    assert_eq!(live.stages.len(), 3);
}
