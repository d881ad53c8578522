//! A semantic verdict you can gate on (issue 33), end to end against the loopback provider
//! stand-in (tests/it/common/fake_llm.rs) with scripted answers: repeated asking decided by
//! agreement, disagreement as ABSTAIN `model_unstable`, the order swap, one cache entry per
//! sample, and the spending limits.

use serde_json::{Value, json};

use crate::common::fake_llm::{FakeLlm, Reply};
use crate::llm::{KEY, Project, judgment, one_tier, stderr};

fn pass() -> Reply {
    Reply::Json(json!({"verdict": "PASS", "reasoning": "Filter.java imports jakarta.servlet"}))
}

fn fail() -> Reply {
    Reply::Json(json!({"verdict": "FAIL", "reasoning": "javax.servlet is still imported"}))
}

fn review(extra: &str) -> String {
    one_tier(&format!(
        "        - type: llm\n          name: review\n{extra}"
    ))
}

/// Adds `lines` (already indented by two) under the config's `llm:`.
fn with_llm(p: &Project, lines: &str) {
    let path = p.ws().join("judge-ci.yml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("llm:\n", &format!("llm:\n{lines}"), 1)).unwrap();
}

fn samples_of(r: &Value) -> Value {
    judgment(r)["metadata"]["samples"].clone()
}

#[test]
fn three_agreeing_samples_decide_and_an_unchanged_rerun_asks_nothing() {
    let llm = FakeLlm::start(KEY);
    llm.on("", 3, pass());
    let p = Project::new("openai", &llm, &review("          samples: 3\n"));
    let (o, r) = p.run(Some(KEY));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let j = judgment(&r);
    assert_eq!(j["status"], "pass");
    assert!(
        j["reasoning"]
            .as_str()
            .unwrap()
            .starts_with("3 of 3 answers agree"),
        "{j}"
    );
    let s = samples_of(&r);
    assert_eq!(s["asked"], 3);
    assert_eq!(s["answered"], 3);
    assert_eq!(s["counts"], json!({"pass": 3}));
    assert_eq!(s["decided"], true);
    assert_eq!(s["answers"].as_array().unwrap().len(), 3);
    assert_eq!(llm.seen().len(), 3, "each sample is one request");
    assert_eq!(r["llm"]["requests"], 3);
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(md.contains("3 of 3 answers agree"), "{md}");
    crate::common::assert_report_schema(&r);

    // Unchanged: every sample is answered from its own cache entry.
    let (o, r) = p.run(Some(KEY));
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(llm.seen().len(), 3, "the re-run makes no request");
    assert_eq!(r["llm"]["requests"], 0);
    assert_eq!(r["llm"]["cacheHits"], 3);
    assert_eq!(judgment(&r)["status"], "pass");
}

#[test]
fn disagreeing_samples_are_abstain_model_unstable_with_every_answer() {
    let llm = FakeLlm::start(KEY);
    llm.on("", 2, pass());
    llm.on("", 1, fail());
    let p = Project::new("anthropic", &llm, &review("          samples: 3\n"));
    let (o, r) = p.run(Some(KEY));
    let j = judgment(&r);
    assert_eq!(j["status"], "abstain", "never FAIL: {j}");
    assert_eq!(j["cause"], "model_unstable");
    assert!(
        j["reasoning"]
            .as_str()
            .unwrap()
            .starts_with("unstable: 2 pass, 1 fail, so not decided"),
        "{j}"
    );
    let s = samples_of(&r);
    assert_eq!(s["counts"], json!({"pass": 2, "fail": 1}));
    assert_eq!(s["decided"], false);
    let mut said: Vec<String> = s["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["status"].as_str().unwrap().to_string())
        .collect();
    said.sort();
    assert_eq!(said, ["fail", "pass", "pass"]);
    assert_ne!(
        o.status.code(),
        Some(1),
        "an unstable answer is no rejection"
    );
    let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
    assert!(
        md.contains("unstable: 2 pass, 1 fail, so not decided"),
        "{md}"
    );
    crate::common::assert_report_schema(&r);
    // The counts travel in the report's judge view, JUnit and SARIF too.
    let view = &r["tiers"][0]["judges"][0]["samples"];
    assert_eq!(
        *view,
        json!({"asked": 3, "answered": 3, "counts": {"fail": 1, "pass": 2}, "decided": false})
    );
    let junit = std::fs::read_to_string(p.out().join("junit.xml")).unwrap();
    assert!(
        junit.contains(
            r#"<property name="samples.summary" value="unstable: 2 pass, 1 fail, so not decided"/>"#
        ) && junit.contains(r#"<property name="samples.pass" value="2"/>"#),
        "{junit}"
    );
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(p.out().join("report.sarif")).unwrap())
            .unwrap();
    let bag = &sarif["runs"][0]["properties"]["judgeCiSamples"][0];
    assert_eq!(bag["judge"], "review");
    assert_eq!(bag["counts"], json!({"fail": 1, "pass": 2}));
    assert_eq!(bag["decided"], false);

    // With agreement 0.6, two of three decide.
    let llm = FakeLlm::start(KEY);
    llm.on("", 2, pass());
    llm.on("", 1, fail());
    let p = Project::new(
        "anthropic",
        &llm,
        &review("          samples: 3\n          agreement: 0.6\n"),
    );
    let (_, r) = p.run(Some(KEY));
    assert_eq!(judgment(&r)["status"], "pass");
    assert!(
        judgment(&r)["reasoning"]
            .as_str()
            .unwrap()
            .starts_with("2 of 3 answers agree")
    );
}

#[test]
fn order_swap_shows_odd_samples_the_change_the_other_way_round() {
    let llm = FakeLlm::start(KEY);
    // A model that answers by which side it sees first.
    llm.on("are in the workspace (the change being judged)", 2, fail());
    llm.on("", 2, pass());
    let p = Project::new(
        "openai",
        &llm,
        &review("          samples: 4\n          order: swap\n"),
    );
    let (_, r) = p.run(Some(KEY));
    let seen = llm.seen();
    assert_eq!(seen.len(), 4);
    let bodies: Vec<String> = seen.iter().map(|s| s.body.to_string()).collect();
    let swapped = bodies
        .iter()
        .filter(|b| b.contains("are in the workspace (the change being judged)"))
        .count();
    assert_eq!(swapped, 2, "two of four samples are swapped");
    for b in &bodies {
        if b.contains("are in the workspace (the change being judged)") {
            assert!(
                b.contains("-import javax.servlet.Filter;")
                    && b.contains("+import jakarta.servlet.Filter;"),
                "the workspace's lines come first: {b}"
            );
        } else {
            assert!(b.contains("+import javax.servlet.Filter;"));
        }
    }
    let j = judgment(&r);
    assert_eq!(j["status"], "abstain", "{j}");
    assert_eq!(j["cause"], "model_unstable");
    let s = samples_of(&r);
    assert_eq!(s["order"], "swap");
    assert_eq!(s["orderFlip"], true);
    let orders: Vec<(String, String)> = s["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["order"].as_str().unwrap().to_string(),
                a["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for (order, status) in orders {
        assert_eq!(status, if order == "swapped" { "fail" } else { "pass" });
    }
}

#[test]
fn an_error_sample_is_not_an_answer_and_too_few_answers_are_an_error() {
    // One sample's provider answers 404 (a wrong model name: the check's settings): the other two agree.
    let llm = FakeLlm::start(KEY);
    llm.on("", 1, Reply::Status(404, vec![]));
    llm.on("", 2, fail());
    let p = Project::new("openai", &llm, &review("          samples: 3\n"));
    let (_, r) = p.run(Some(KEY));
    let j = judgment(&r);
    assert_eq!(j["status"], "fail", "{j}");
    assert!(
        j["reasoning"].as_str().unwrap().contains(
            "2 of 2 answers agree (1 of 3 samples got no usable answer, the first: judge_misconfigured)"
        ),
        "{j}"
    );
    // Two of three fail: an ERROR with the cause, never a verdict of one answer.
    let llm = FakeLlm::start(KEY);
    llm.on("", 2, Reply::Status(404, vec![]));
    llm.on("", 1, pass());
    let p = Project::new("openai", &llm, &review("          samples: 3\n"));
    let (o, r) = p.run(Some(KEY));
    let j = judgment(&r);
    assert_eq!(j["status"], "error", "{j}");
    assert_eq!(j["cause"], "judge_misconfigured");
    assert!(
        j["reasoning"]
            .as_str()
            .unwrap()
            .starts_with("only 1 of 3 samples answered"),
        "{j}"
    );
    assert_eq!(o.status.code(), Some(3), "an instrument failure");
}

#[test]
fn semantic_diff_criteria_are_decided_one_by_one() {
    let llm = FakeLlm::start(KEY);
    let met = || Reply::Json(json!({"passed": true, "evidence": "Filter.java:2"}));
    let unmet = || Reply::Json(json!({"passed": false, "evidence": "Filter.java:2"}));
    // The first criterion is met every time; the second once of three.
    // (Every question names all criteria in its goal; the one asked follows "> ".)
    llm.on("> jakarta.servlet is imported", 3, met());
    llm.on("> the class name is kept", 1, met());
    llm.on("> the class name is kept", 2, unmet());
    let p = Project::new(
        "openai",
        &llm,
        &one_tier(
            "        - type: semantic-diff\n          name: plan\n          criteria: [jakarta.servlet is imported, the class name is kept]\n          samples: 3\n          agreement: 0.6\n",
        ),
    );
    let (_, r) = p.run(Some(KEY));
    let j = judgment(&r);
    assert_eq!(llm.seen().len(), 6, "two criteria, three samples each");
    assert_eq!(
        j["status"], "pass",
        "1 of 2 criteria met passes at 0.5: {j}"
    );
    let s = samples_of(&r);
    assert_eq!(
        s["criteria"],
        json!([
            {"name": "jakarta.servlet is imported", "met": 3, "notMet": 0, "decided": true},
            {"name": "the class name is kept", "met": 1, "notMet": 2, "decided": true},
        ])
    );
}

#[test]
fn samples_order_and_agreement_are_checked_where_they_are_written() {
    let llm = FakeLlm::start(KEY);
    for (extra, says) in [
        (
            "          samples: 0\n",
            "samples must be from 1 to 15, got 0",
        ),
        (
            "          agreement: 0.5\n",
            "agreement must be over 0.5 and at most 1, got 0.5",
        ),
        ("          order: random\n", "order"),
    ] {
        let p = Project::new("openai", &llm, &review(extra));
        let (o, _) = p.run(Some(KEY));
        assert_eq!(o.status.code(), Some(2), "{extra}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(says), "{extra}: {err}");
        assert!(err.contains("judge-ci.yml:"), "the place: {err}");
    }
    let p = Project::new("openai", &llm, &review(""));
    with_llm(&p, "  limits: {requests: 2, tokens: 5}\n");
    let (o, _) = p.run(Some(KEY));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("llm.limits.tokens is not a limit"),
        "{}",
        stderr(&o)
    );
    assert!(llm.seen().is_empty());
}

#[test]
fn each_limit_refuses_the_request_that_would_pass_it_never_a_fail() {
    // Each answer is billed 120 tokens in, 30 out by the stand-in; prices 3 and 15 USD per
    // million. Three samples, so the third request (or the first) meets the limit.
    // The input estimate of one request (its prompt's bytes / 3), as the refusal says it.
    let estimate = {
        let llm = FakeLlm::start(KEY);
        let p = Project::new("openai", &llm, &review(""));
        with_llm(&p, "  limits: {input-tokens: 1}\n");
        let (_, r) = p.run(Some(KEY));
        let why = judgment(&r)["reasoning"].as_str().unwrap().to_string();
        assert!(llm.seen().is_empty(), "{why}");
        let need = why
            .split("0 spent before it, ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("{why}"));
        assert!(need > 170, "the estimate is over the billed 120: {need}");
        need
    };
    let input = format!("{{input-tokens: {}}}", estimate + 50);
    let input_key = format!("llm.limits.input-tokens ({})", estimate + 50);
    for (limits, key, asked) in [
        ("{requests: 2}", "llm.limits.requests (2)", 2),
        // One request fits; corrected to its billed 120, the next estimate does not.
        (input.as_str(), input_key.as_str(), 1),
        // Each request is counted at max-output-tokens (1024) until its usage comes back.
        (
            "{output-tokens: 1000}",
            "llm.limits.output-tokens (1000)",
            0,
        ),
        ("{cost-usd: 0.000001}", "llm.limits.cost-usd ($0.000001)", 0),
    ] {
        let llm = FakeLlm::start(KEY);
        llm.on("", 3, pass());
        let p = Project::new(
            "openai",
            &llm,
            &review("          samples: 3\n          agreement: 0.6\n"),
        );
        with_llm(&p, &format!("  limits: {limits}\n  concurrency: 1\n"));
        let (o, r) = p.run(Some(KEY));
        assert_eq!(llm.seen().len(), asked, "{limits}: {}", stderr(&o));
        let j = judgment(&r);
        let answers = samples_of(&r)["answers"].as_array().unwrap().clone();
        let refused: Vec<&Value> = answers
            .iter()
            .filter(|a| a["cause"] == "llm_budget_exhausted")
            .collect();
        assert_eq!(refused.len(), 3 - asked, "{limits}: {j}");
        assert!(
            refused[0]["reasoning"]
                .as_str()
                .unwrap()
                .contains(&format!("the request would pass {key}")),
            "{limits}: {}",
            refused[0]
        );
        if asked < 2 {
            assert_eq!(j["status"], "error", "{limits}: never FAIL: {j}");
            assert_eq!(j["cause"], "llm_budget_exhausted", "{limits}");
        } else {
            assert_eq!(j["status"], "pass", "{limits}: two answers agree");
        }
        // spent / limit in the report JSON and the comment footer.
        let row = &r["llm"]["limits"][0];
        assert_eq!(row["scope"], "run");
        assert!(
            row["spent"].as_f64().unwrap() <= row["limit"].as_f64().unwrap(),
            "{row}"
        );
        let md = std::fs::read_to_string(p.out().join("report.md")).unwrap();
        assert!(md.contains("spent/limit: "), "{limits}: {md}");
        crate::common::assert_report_schema(&r);
    }
}

#[test]
fn a_cost_limit_without_a_price_is_a_configuration_error_of_the_check() {
    let llm = FakeLlm::start(KEY);
    llm.on("", 1, pass());
    let p = Project::new("openai", &llm, &review("          model: unpriced-model\n"));
    with_llm(&p, "  limits: {cost-usd: 1}\n");
    let (_, r) = p.run(Some(KEY));
    let j = judgment(&r);
    assert_eq!(j["status"], "error", "{j}");
    assert_eq!(j["cause"], "judge_misconfigured");
    assert!(
        j["reasoning"]
            .as_str()
            .unwrap()
            .contains("has no price in llm.prices"),
        "{j}"
    );
    assert!(llm.seen().is_empty());
}

/// `judge-ci suite --llm-limit requests=2` over three tasks judged two at a time: the one
/// budget the concurrent tasks share lets exactly two requests through; the third task's
/// check is ERROR `llm_budget_exhausted` naming the suite's flag (never FAIL), and suite.json
/// and suite.md show spent / limit.
#[test]
fn a_suite_wide_limit_is_shared_by_its_concurrent_tasks() {
    let llm = FakeLlm::start(KEY);
    llm.on("", 2, pass());
    let root = tempfile::tempdir().unwrap();
    let bench = format!(
        "schema: bench.benchmark.v1\nname: budgeted\nllm:\n  provider: openai\n  model: test-model\n  base-url: {}\n  api-key-env: JUDGE_CI_TEST_API_KEY\n  cache: off\njury:\n  checks:\n    - type: llm\n      name: review\n",
        llm.openai_url()
    );
    let mut files = vec![("bench/benchmark.yaml".to_string(), bench)];
    for id in ["a", "b", "c"] {
        files.push((
            format!("bench/tasks/{id}/task.yaml"),
            format!("schema: bench.task.v1\nid: {id}\ninstruction: Move to jakarta.servlet.\n"),
        ));
        files.push((
            format!("bench/tasks/{id}/workspace/F.java"),
            format!("import jakarta.servlet.Filter;\nclass F{id} {{}}\n"),
        ));
        files.push((
            format!("bench/tasks/{id}/reference/F.java"),
            "import jakarta.servlet.Filter;\nclass F {}\n".into(),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    crate::common::write_tree(root.path(), &refs);
    let o = crate::common::command(
        root.path(),
        &[
            "suite",
            "bench",
            "--out",
            "out",
            "--jobs",
            "2",
            "--llm-limit",
            "requests=2",
        ],
    )
    .env("JUDGE_CI_TEST_API_KEY", KEY)
    .env_remove("JUDGE_CI_LLM_PROVIDER")
    .env_remove("JUDGE_CI_LLM_MODEL")
    .env_remove("JUDGE_CI_LLM_BASE_URL")
    .output()
    .unwrap();
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
    assert_eq!(
        llm.seen().len(),
        2,
        "the shared budget let exactly two requests through: {}",
        stderr(&o)
    );
    let suite: Value =
        serde_json::from_str(&std::fs::read_to_string(root.path().join("out/suite.json")).unwrap())
            .unwrap();
    assert_eq!(
        suite["llmLimits"],
        json!([{"scope": "suite", "quantity": "requests", "limit": 2.0, "spent": 2.0}])
    );
    let md = std::fs::read_to_string(root.path().join("out/suite.md")).unwrap();
    assert!(md.contains("spent/limit: requests 2/2 (suite)"), "{md}");
    // Two tasks passed; the third was refused its request: an ERROR, never a rejection.
    let mut passed = 0;
    let mut refused = 0;
    for t in suite["tasks"].as_array().unwrap() {
        let report: Value = serde_json::from_str(
            &std::fs::read_to_string(
                root.path()
                    .join("out")
                    .join(t["reportPath"].as_str().unwrap()),
            )
            .unwrap(),
        )
        .unwrap();
        let j = judgment(&report);
        match j["status"].as_str().unwrap() {
            "pass" => passed += 1,
            "error" => {
                refused += 1;
                assert_eq!(j["cause"], "llm_budget_exhausted", "{j}");
                assert!(
                    j["reasoning"]
                        .as_str()
                        .unwrap()
                        .contains("the suite's --llm-limit"),
                    "{j}"
                );
            }
            other => panic!("a refused request is never {other}: {j}"),
        }
    }
    assert_eq!((passed, refused), (2, 1));
}
