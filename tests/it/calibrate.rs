//! `judge-ci calibrate` end to end against the loopback provider stand-in
//! (tests/it/common/fake_llm.rs): the stand-in scripts each case's answer by a marker in its
//! diff, so the agreement figures are known in advance and checked against values worked out
//! by hand (κ, its Fleiss–Cohen–Everitt interval, the Wilson intervals); the `--min-kappa`
//! gate on κ's lower bound; instability and order-swap flips counted; the outputs (JSON
//! against schemas/calibrate.v1.json, markdown, JUnit with one test case per case); the case
//! file's errors at their line and column; the semantic checks alone are asked.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::common::{self, fake_llm::FakeLlm, fake_llm::Reply};

const KEY: &str = "sk-test-SENTINELKEY-calibrate-0123";

fn verdict(v: &str) -> Reply {
    Reply::Json(json!({"verdict": v, "reasoning": format!("scripted {v}")}))
}

/// A labelled set under `root/set`: the config (with `checks`), the reference, and one case
/// per (name, label) whose workspace differs from the reference by a line naming the case;
/// replies are cached in `cache` (outside the working folder, as judge-ci requires).
fn case_set(root: &Path, cache: &Path, llm: &FakeLlm, checks: &str, cases: &[(&str, &str)]) {
    let config = format!(
        "name: calibrated\nllm:\n  provider: openai\n  model: test-model\n  base-url: {}\n  api-key-env: JUDGE_CI_TEST_API_KEY\n  cache: {}\n  prices: {{test-model: {{input: 3.0, output: 15.0}}}}\njury:\n  tiers:\n    - name: files\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - type: command\n          name: never-run\n          run: \"exit 1\"\n    - name: semantic\n      policy: FINAL_TIER\n      checks:\n{checks}",
        llm.openai_url(),
        cache.display()
    );
    let mut yml = String::from(
        "schema: judge-ci.calibrate-cases.v1\nconfig: judge-ci.yml\ntask: task.yaml\nreference: reference\ncases:\n",
    );
    let mut files: Vec<(String, String)> = vec![
        ("set/judge-ci.yml".into(), config),
        (
            "set/task.yaml".into(),
            "schema: bench.task.v1\nid: t\ninstruction: Greet politely.\n".into(),
        ),
        ("set/reference/Main.java".into(), "class Main {}\n".into()),
    ];
    for (name, label) in cases {
        files.push((
            format!("set/cases/{name}/Main.java"),
            format!("class Main {{}}\n// MARK-{name}\n"),
        ));
        yml.push_str(&format!(
            "  - name: {name}\n    from: made by the test\n    workspace: cases/{name}\n    labels:\n      review: {{label: {label}, why: \"labelled {label} by the test\"}}\n"
        ));
    }
    files.push(("set/cases.yml".into(), yml));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    common::write_tree(root, &refs);
}

fn calibrate(root: &Path, extra: &[&str]) -> (Output, Value) {
    let out = root.join("out");
    let _ = std::fs::remove_dir_all(&out);
    let mut args = vec![
        "calibrate",
        "set",
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "2",
    ];
    args.extend_from_slice(extra);
    let o = common::command(root, &args)
        .env("JUDGE_CI_TEST_API_KEY", KEY)
        .env_remove("JUDGE_CI_LLM_PROVIDER")
        .env_remove("JUDGE_CI_LLM_MODEL")
        .env_remove("JUDGE_CI_LLM_BASE_URL")
        .output()
        .unwrap();
    let v = std::fs::read_to_string(out.join("calibrate.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (o, v)
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 5e-5)
}

#[test]
fn agreement_with_scripted_answers_matches_the_hand_computed_kappa_and_intervals() {
    let llm = FakeLlm::start(KEY);
    // Labelled pass: c1..c5; labelled fail: c6..c10. The model passes c1..c4 and c6.
    let cases: Vec<(String, &str)> = (1..=10)
        .map(|i| (format!("c{i:02}"), if i <= 5 { "pass" } else { "fail" }))
        .collect();
    for (i, (name, _)) in cases.iter().enumerate() {
        let says = if i < 4 || i == 5 { "PASS" } else { "FAIL" };
        llm.on(&format!("MARK-{name}"), 1, verdict(says));
    }
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let named: Vec<(&str, &str)> = cases.iter().map(|(n, l)| (n.as_str(), *l)).collect();
    case_set(
        root.path(),
        cache.path(),
        &llm,
        "        - type: llm\n          name: review\n",
        &named,
    );
    let (o, r) = calibrate(root.path(), &["--min-kappa", "0.1"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
    assert_eq!(
        llm.seen().len(),
        10,
        "one request per case: only the semantic check is asked, the command tier never runs"
    );
    common::assert_report_schema_file(&r, "schemas/calibrate.v1.json");

    // The table: 4 PASS/PASS, 1 PASS/FAIL, 1 FAIL/PASS, 4 FAIL/FAIL.
    let all = &r["overall"];
    assert_eq!(
        all["confusion"],
        json!({"passPass": 4, "passFail": 1, "passUndecided": 0, "failPass": 1, "failFail": 4, "failUndecided": 0})
    );
    // po = .8, pe = .5, κ = .6; Var = (.288 + .032 − .16) / (10 · .25) = .064,
    // SE = .252982, interval .6 ± 1.959964 · .252982 = [.104164, 1].
    let k = &all["kappa"];
    assert!(close(&k["value"], 0.6), "{k}");
    assert!(
        close(&k["observed"], 0.8) && close(&k["chance"], 0.5),
        "{k}"
    );
    assert!(close(&k["standardError"], 0.252_982), "{k}");
    assert!(close(&k["low"], 0.104_164), "{k}");
    assert!(close(&k["high"], 1.0), "{k}");
    // Accuracy 8/10, Wilson [.490162, .943318]; TPR and TNR 4/5, Wilson [.375535, .963776].
    let acc = &all["accuracy"];
    assert_eq!(
        (acc["hits"].as_u64(), acc["of"].as_u64()),
        (Some(8), Some(10))
    );
    assert!(
        close(&acc["low"], 0.490_162) && close(&acc["high"], 0.943_318),
        "{acc}"
    );
    for rate in ["truePositiveRate", "trueNegativeRate"] {
        let t = &all[rate];
        assert_eq!(
            (t["hits"].as_u64(), t["of"].as_u64()),
            (Some(4), Some(5)),
            "{rate}"
        );
        assert!(
            close(&t["low"], 0.375_535) && close(&t["high"], 0.963_776),
            "{t}"
        );
    }
    assert_eq!(r["checks"][0]["check"], "review");
    assert_eq!(r["checks"][0]["type"], "llm");
    assert_eq!(r["instability"]["hits"], 0);
    assert!(
        r.get("orderFlip").is_none(),
        "no check was asked in both orders"
    );
    assert_eq!(r["usage"]["requests"], 10);
    assert!(
        r["usage"]["costUsd"].as_f64().unwrap() > 0.0,
        "{}",
        r["usage"]
    );
    assert_eq!(r["gate"]["passed"], true);
    assert_eq!(r["exitCode"], 0);
    let c05 = r["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "c05")
        .unwrap();
    assert_eq!(c05["outcome"], "disagrees");
    assert_eq!(c05["items"][0]["answer"], "fail");
    assert_eq!(c05["items"][0]["label"], "pass");

    let out = root.path().join("out");
    let md = std::fs::read_to_string(out.join("calibrate.md")).unwrap();
    assert!(md.contains("## ✅ Calibrated · calibrated"), "{md}");
    assert!(md.contains("| **all** | 10 | 0.80 [0.49, 0.94] (8/10) | 0.60 [0.10, 1.00] | 0.80 [0.38, 0.96] (4/5) | 0.80 [0.38, 0.96] (4/5) | 0 |"), "{md}");
    assert!(md.contains("### Disagreements (2)"), "{md}");
    let junit = std::fs::read_to_string(out.join("calibrate.junit.xml")).unwrap();
    assert_eq!(junit.matches("<testcase ").count(), 10, "{junit}");
    assert_eq!(junit.matches("<failure ").count(), 2, "{junit}");
    assert!(
        junit.contains(r#"tests="10" failures="2" errors="0""#),
        "{junit}"
    );
    // Each case's own report is kept, with the command tier left out.
    let c01 = common::report(&out.join("cases/c01"));
    let judges: Vec<&str> = c01["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["judges"].as_array().unwrap())
        .map(|j| j["name"].as_str().unwrap())
        .collect();
    assert_eq!(judges, ["review"]);

    // The same set gated at 0.2: the lower bound .104 falls short (exit 1); every answer
    // comes from the reply cache.
    let (o, r) = calibrate(root.path(), &["--min-kappa", "0.2"]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    assert_eq!(r["gate"]["passed"], false);
    assert!(
        r["gate"]["reason"]
            .as_str()
            .unwrap()
            .contains("lower bound 0.104 is below --min-kappa 0.2"),
        "{}",
        r["gate"]
    );
    assert_eq!(r["usage"]["requests"], 0);
    assert_eq!(r["usage"]["cacheHits"], 10);
    assert_eq!(llm.seen().len(), 10);
    let md = common::stdout(&o);
    assert!(md.contains("## ❌ Not calibrated"), "{md}");
}

#[test]
fn unstable_samples_and_order_flips_are_counted_and_undecided_is_no_agreement() {
    let llm = FakeLlm::start(KEY);
    // Two samples each, the second shown the other way round, agreement 1.
    // steady-pass: PASS twice (labelled pass); steady-fail: FAIL twice (labelled fail);
    // flips: PASS then FAIL (labelled pass) → unstable, its orders disagree.
    llm.on("MARK-steady-pass", 2, verdict("PASS"));
    llm.on("MARK-steady-fail", 2, verdict("FAIL"));
    llm.on("MARK-flips", 1, verdict("PASS"));
    llm.on("MARK-flips", 1, verdict("FAIL"));
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    case_set(
        root.path(),
        cache.path(),
        &llm,
        "        - type: llm\n          name: review\n          samples: 2\n          order: swap\n          agreement: 1\n",
        &[
            ("steady-pass", "pass"),
            ("steady-fail", "fail"),
            ("flips", "pass"),
        ],
    );
    let (o, r) = calibrate(root.path(), &["--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
    common::assert_report_schema_file(&r, "schemas/calibrate.v1.json");
    let printed: Value = serde_json::from_str(&common::stdout(&o)).unwrap();
    assert_eq!(printed["schema"], "judge-ci.calibrate.v1");
    let flips = r["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "flips")
        .unwrap();
    assert_eq!(flips["items"][0]["answer"], "undecided");
    assert_eq!(flips["items"][0]["unstable"], true);
    assert_eq!(flips["items"][0]["status"], "abstain");
    assert_eq!(flips["items"][0]["cause"], "model_unstable");
    assert_eq!(flips["orderFlips"], 1);
    // Instability 1 of 3 items, Wilson [.061492, .792340]; flips 1 of 3 judgments.
    assert_eq!(
        (
            r["instability"]["hits"].as_u64(),
            r["instability"]["of"].as_u64()
        ),
        (Some(1), Some(3))
    );
    assert!(
        close(&r["instability"]["low"], 0.061_492),
        "{}",
        r["instability"]
    );
    assert_eq!(
        (
            r["orderFlip"]["hits"].as_u64(),
            r["orderFlip"]["of"].as_u64()
        ),
        (Some(1), Some(3))
    );
    // The undecided item counts against agreement: table [[1, 0, 1], [0, 1, 0]].
    // po = 2/3; rows 2/3, 1/3; cols 1/3, 1/3, 1/3; pe = 2/9 + 1/9 = 1/3; κ = (1/3)/(2/3) = .5.
    assert!(
        close(&r["overall"]["kappa"]["value"], 0.5),
        "{}",
        r["overall"]
    );
    assert_eq!(r["overall"]["confusion"]["passUndecided"], 1);
    assert_eq!(r["usage"]["requests"], 6);
}

/// Only the checks a case labels are asked, and `--check` narrows that further: the run's
/// requests (the stand-in's count and calibrate's own) drop accordingly, and a case's report
/// holds no judgment of a check it was not asked.
#[test]
fn only_labelled_checks_and_those_check_names_are_asked() {
    let llm = FakeLlm::start(KEY);
    for c in ["c1", "c2", "c3"] {
        llm.on(&format!("MARK-{c}"), 8, verdict("PASS"));
    }
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    case_set(
        root.path(),
        cache.path(),
        &llm,
        "        - type: llm\n          name: review\n        - type: llm\n          name: scope\n",
        &[("c1", "pass"), ("c2", "pass"), ("c3", "pass")],
    );
    // c1 and c2 label both checks; c3 labels `review` only.
    let yml = root.path().join("set/cases.yml");
    let text = std::fs::read_to_string(&yml).unwrap();
    let both = "      review: {label: pass, why: \"labelled pass by the test\"}\n      scope: {label: pass, why: \"in scope\"}\n";
    let text = text.replacen(
        "      review: {label: pass, why: \"labelled pass by the test\"}\n",
        both,
        2,
    );
    std::fs::write(&yml, &text).unwrap();

    let (o, r) = calibrate(root.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
    assert_eq!(
        llm.seen().len(),
        5,
        "2 + 2 + 1: c3's unlabelled `scope` is not asked"
    );
    assert_eq!(r["usage"]["requests"], 5);
    let names = |case: &str| -> Vec<String> {
        let rep = common::report(&root.path().join("out/cases").join(case));
        let mut n: Vec<String> = rep["tiers"][0]["judges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["name"].as_str().unwrap().to_string())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names("c1"), ["review", "scope"]);
    assert_eq!(names("c3"), ["review"]);

    // A fresh reply cache and `--check review`: one request per case, `scope` never asked.
    std::fs::remove_dir_all(cache.path()).unwrap();
    std::fs::create_dir_all(cache.path()).unwrap();
    let (o, r) = calibrate(root.path(), &["--check", "review"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert_eq!(llm.seen().len(), 5 + 3, "one request per case");
    assert_eq!(r["usage"]["requests"], 3);
    assert_eq!(r["overall"]["accuracy"]["of"], 3);
    for c in ["c1", "c2", "c3"] {
        assert_eq!(names(c), ["review"], "{c}");
    }
}

/// A check that runs out of time while its request is in flight (the stand-in stalls past the
/// check's limit) still reports the request it sent: the case's ERROR (cause timeout) and
/// calibrate's totals count what the stand-in received.
#[test]
fn a_timed_out_check_still_counts_the_requests_it_sent() {
    let llm = FakeLlm::start(KEY);
    llm.on(
        "MARK-slow",
        4,
        Reply::Slow(
            std::time::Duration::from_secs(30),
            Box::new(verdict("PASS")),
        ),
    );
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    case_set(
        root.path(),
        cache.path(),
        &llm,
        "        - type: llm\n          name: review\n          timeout: PT2S\n",
        &[("slow", "pass")],
    );
    let (o, r) = calibrate(root.path(), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let item = &r["cases"][0]["items"][0];
    assert_eq!(item["status"], "error", "{item}");
    assert_eq!(item["cause"], "timeout", "{item}");
    assert_eq!(item["answer"], "undecided", "{item}");
    let sent = llm.seen().len() as u64;
    assert!(sent >= 1, "the stand-in received the request");
    assert_eq!(
        r["usage"]["requests"].as_u64(),
        Some(sent),
        "{}",
        r["usage"]
    );
    assert_eq!(r["cases"][0]["usage"]["requests"].as_u64(), Some(sent));
    // The case's own report carries it on the check's judgment.
    let rep = common::report(&root.path().join("out/cases/slow"));
    let review = &rep["verdict"]["individual"][0];
    assert_eq!(
        review["metadata"]["llm"]["requests"].as_u64(),
        Some(sent),
        "{review}"
    );
}

#[test]
fn the_case_file_and_labels_are_checked_before_anything_is_asked() {
    let llm = FakeLlm::start(KEY);
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    case_set(
        root.path(),
        cache.path(),
        &llm,
        "        - type: llm\n          name: review\n",
        &[("a", "pass")],
    );
    // A label for a check that is not semantic, one for no check, a bad label: each at its
    // place, exit 2, no request.
    let yml = root.path().join("set/cases.yml");
    let text = std::fs::read_to_string(&yml).unwrap();
    std::fs::write(
        &yml,
        text.replace(
            "      review: {label: pass, why: \"labelled pass by the test\"}\n",
            "      review: {label: pass, why: \"labelled pass by the test\"}\n      never-run: {label: pass, why: x}\n",
        ),
    )
    .unwrap();
    let (o, _) = calibrate(root.path(), &[]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    let err = common::stderr(&o);
    assert!(err.contains("`never-run` is not a semantic check"), "{err}");
    assert!(
        err.contains("cases.yml:11:7"),
        "the label's line and column: {err}"
    );
    assert!(err.contains("label one of: review"), "{err}");

    std::fs::write(&yml, text.replace("{label: pass,", "{label: yes,")).unwrap();
    let (o, _) = calibrate(root.path(), &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = common::stderr(&o);
    assert!(
        err.contains("'yes' is not a label") && err.contains("cases.yml:10:"),
        "{err}"
    );
    assert!(err.contains("valid: pass, fail"), "{err}");

    std::fs::write(&yml, &text).unwrap();
    let (o, _) = calibrate(root.path(), &["--min-kappa", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("--min-kappa 2"),
        "{}",
        common::stderr(&o)
    );
    let (o, _) = calibrate(root.path(), &["--case", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("--case nope"),
        "{}",
        common::stderr(&o)
    );
    assert!(llm.seen().is_empty(), "nothing was asked");
}

/// The shipped labelled set (examples/calibration), three of its cases, asked of the real
/// small model the tests already use (SmolLM2-135M on loopback, tests/it/real_model.rs).
/// What such a model answers is not what this test judges: it checks that calibrate runs
/// the shipped set end to end against a real provider, that every label gets an answer or an
/// honest "undecided", and that the figures add up. Bounded: three cases, the `review` labels
/// only (`--check review` asks that check alone: one question per case, with at most one
/// repair), answers of at most 64 tokens, a request limit derived from the warm-up; no timed
/// assert.
#[test]
fn the_shipped_set_runs_against_the_real_small_model() {
    let ready = crate::real_model::serve();
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let examples = root.path().join("examples");
    for side in ["calibration", "jakarta-migration/reference"] {
        std::fs::create_dir_all(examples.join(side).parent().unwrap()).unwrap();
        common::copy_tree(
            &common::repo_root().join("examples").join(side),
            &examples.join(side),
        );
    }
    // The request limit from the warm-up, instead of the check's default.
    let config = examples.join("calibration/judge-ci.yml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace(
            "      name: review\n",
            &format!(
                "      name: review\n      timeout: PT{}S\n",
                ready.limit.as_secs()
            ),
        ),
    )
    .unwrap();
    let out = root.path().join("out");
    let o = common::command(
        root.path(),
        &[
            "calibrate",
            "examples/calibration",
            "--case",
            "correct-reference",
            "--case",
            "incomplete-base-unchanged",
            "--case",
            "wrong-salutation",
            "--check",
            "review",
            "--jobs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
    )
    .env("JUDGE_CI_LLM_PROVIDER", "openai")
    .env("JUDGE_CI_LLM_MODEL", "smollm2-135m")
    .env(
        "JUDGE_CI_LLM_BASE_URL",
        format!("http://127.0.0.1:{}/v1", ready.port),
    )
    .env("XDG_CACHE_HOME", cache.path())
    .output()
    .unwrap();
    drop(ready);
    assert_eq!(
        o.status.code(),
        Some(0),
        "no gate asked, every case ran: {}",
        common::stderr(&o)
    );
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("calibrate.json")).unwrap())
            .unwrap();
    common::assert_report_schema_file(&r, "schemas/calibrate.v1.json");
    assert_eq!(r["models"], json!(["smollm2-135m"]));
    let cases = r["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for c in cases {
        assert_ne!(c["outcome"], "could-not-run", "{c}");
        let items = c["items"].as_array().unwrap();
        assert_eq!(items.len(), 1, "only the review label: {c}");
        let i = &items[0];
        match i["answer"].as_str().unwrap() {
            "pass" | "fail" => assert!(
                ["pass", "fail"].contains(&i["status"].as_str().unwrap()),
                "{i}"
            ),
            "undecided" => assert!(
                ["error", "abstain"].contains(&i["status"].as_str().unwrap()),
                "{i}"
            ),
            other => panic!("answer {other}: {i}"),
        }
        let own = common::report(&out.join(c["report"].as_str().unwrap()));
        assert_eq!(
            own["tiers"][0]["judges"].as_array().unwrap().len(),
            1,
            "only `review` asked: {}",
            own["tiers"]
        );
        let requests = c["usage"]["requests"].as_u64().unwrap();
        assert!(
            (1..=6).contains(&requests),
            "one question, at most one repair, each attempt retried at most twice: {c}"
        );
    }
    let all = &r["overall"]["confusion"];
    let total: u64 = all
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, 3);
    assert_eq!(
        all["passPass"].as_u64().unwrap()
            + all["passFail"].as_u64().unwrap()
            + all["passUndecided"].as_u64().unwrap(),
        1,
        "one case labelled pass"
    );
    assert!(r["usage"]["inputTokens"].as_u64().unwrap() > 0);
    eprintln!(
        "calibrate on the real small model: {}",
        std::fs::read_to_string(out.join("calibrate.md")).unwrap()
    );
}
