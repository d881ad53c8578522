//! Every report surface, from reports produced by the real binary: markdown snapshots a
//! reviewer can read, GFM validity of each, hostile text shown literally, budgets on a report
//! with 5,000 findings, JUnit that parses, SARIF valid against the official 2.1.0 schema.

use crate::common;

use common::{judge_ci, write_tree};
use judge_ci::report::{self, Report, Surface, gfm};
use serde_json::{Value, json};
use std::path::Path;

/// Runs judge-ci on a workspace with `config` and `files`, and returns the stored report with
/// machine-specific values (paths, times, hashes) replaced so snapshots are stable.
fn scenario(config: &str, files: &[(&str, &str)]) -> Report {
    serde_json::from_value(scenario_json(config, files)).unwrap()
}

/// [`scenario`]'s report as JSON, for tests that plant content no judge could print.
fn scenario_json(config: &str, files: &[(&str, &str)]) -> Value {
    let ws = tempfile::tempdir().unwrap();
    write_tree(ws.path(), files);
    // These tests are about rendering what the judges said, whole: `reveal:` has its own
    // (tests/it/reveal.rs).
    let config = format!("reveal: full\n{config}");
    write_tree(ws.path(), &[("judge-ci.yml", &config)]);
    let out = ws.path().join("out");
    let o = judge_ci(
        ws.path(),
        &["--dry-run", "-q", "--out", out.to_str().unwrap()],
    );
    assert!(
        o.status.code().is_some_and(|c| c != 2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut r: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    common::assert_report_schema(&r);
    r["subject"]["workspace"] = json!("/workspace");
    if r["subject"].get("reference").is_some() {
        r["subject"]["reference"] = json!("/reference");
    }
    r["config"]["path"] = json!("judge-ci.yml");
    r["config"]["sha256"] =
        json!("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    r["tool"]["version"] = json!("0.0.0-test");
    // What the fence achieves depends on the machine (kernel, root or not).
    if r.get("fence").is_some() {
        r["fence"] = json!("landlock ABI 6, pid namespace, no_new_privs");
    }
    r["timings"] = json!({"checkoutMs": 1, "juryMs": 2, "renderMs": 3, "totalMs": 6});
    for t in r["tiers"].as_array_mut().unwrap() {
        t["elapsedMs"] = json!(if t["ran"] == true { 1200 } else { 0 });
        for j in t["judges"].as_array_mut().unwrap() {
            j["elapsedMs"] = json!(1200);
        }
    }
    r
}

/// An external judge that prints `judgment`.
fn canned(name: &str, judgment: Value) -> (String, String) {
    (format!("{name}.json"), judgment.to_string())
}

fn config(tiers: &str) -> String {
    format!("name: render-test\njury:\n  tiers:\n{tiers}")
}

fn ext(name: &str) -> String {
    format!("        - {{type: external, name: {name}, run: \"cat {name}.json >&3\"}}\n")
}

fn check_markdown(md: &str) {
    gfm::validate(md).unwrap_or_else(|p| panic!("invalid GFM: {p:?}\n{md}"));
    assert!(md.len() <= gfm::COMMENT_BUDGET);
}

fn files_of(list: &[(String, String)]) -> Vec<(&str, &str)> {
    list.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
}

/// `r` as its surfaces render it (the level it records, `full` here).
fn stored(r: &Report) -> report::Revealed {
    report::Revealed::stored(r.clone(), None).unwrap()
}

fn render_md(r: &Report) -> String {
    let md = report::render(&stored(r), Surface::Markdown, None, 50).unwrap();
    check_markdown(&md);
    md
}

#[test]
fn all_pass() {
    let f = vec![
        canned(
            "compiles",
            json!({"status": "pass", "reasoning": "mvn test succeeded"}),
        ),
        canned(
            "imports",
            json!({"status": "pass", "score": 1.0, "reasoning": "imports match"}),
        ),
    ];
    let cfg = config(&format!(
        "    - name: build\n      checks:\n{}    - name: final\n      checks:\n{}",
        ext("compiles"),
        ext("imports")
    ));
    let r = scenario(&cfg, &files_of(&f));
    insta::assert_snapshot!("all_pass", render_md(&r));
}

#[test]
fn rejected_at_tier_one_with_compiler_errors() {
    let findings = json!([
        {"path": "src/main/java/shop/Cart.java", "line": 12, "column": 17, "kind": "compiler-error", "message": "cannot find symbol: class HttpServlet"},
        {"path": "src/main/java/shop/Cart.java", "line": 3, "column": 20, "kind": "compiler-error", "message": "package javax.servlet does not exist"}
    ]);
    let build = json!({"status": "fail", "reasoning": "`./mvnw -B test` failed: 2 compiler error(s); first: src/main/java/shop/Cart.java:12:17: cannot find symbol",
        "checks": [{"name": "build", "passed": false, "message": "exit code 1"}],
        "findings": findings, "metadata": {"errorLines": ["[ERROR] COMPILATION ERROR :", "[ERROR] /ws/src/main/java/shop/Cart.java:[12,17] cannot find symbol"]}});
    let f = vec![
        canned("maven-build", build),
        canned(
            "class-version",
            json!({"status": "abstain", "reasoning": "target/classes does not exist"}),
        ),
        canned("semantic", json!({"status": "pass"})),
    ];
    let cfg = config(&format!(
        "    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n{}{}    - name: semantic\n      checks:\n{}",
        ext("maven-build"),
        ext("class-version"),
        ext("semantic")
    ));
    let r = scenario(&cfg, &files_of(&f));
    let md = render_md(&r);
    assert!(
        md.contains("- `src/main/java/shop/Cart.java:12` compiler-error: cannot find symbol"),
        "{md}"
    );
    insta::assert_snapshot!("rejected_with_compiler_errors", md);
    // The check run: failures first, columns on single lines, within limits.
    let cr: Value =
        serde_json::from_str(&report::render(&stored(&r), Surface::CheckRun, None, 50).unwrap())
            .unwrap();
    assert_eq!(cr["create"]["conclusion"], "failure");
    assert_eq!(
        cr["create"]["output"]["title"],
        "Rejected at tier build: 2 of 2 judges did not pass"
    );
    let ann = cr["create"]["output"]["annotations"].as_array().unwrap();
    assert_eq!(ann.len(), 2);
    assert_eq!(ann[0]["annotation_level"], "failure");
    assert_eq!(
        (
            ann[0]["start_line"].as_u64(),
            ann[0]["start_column"].as_u64()
        ),
        (Some(12), Some(17))
    );
}

#[test]
fn accepted_at_the_structural_tier_with_diffs() {
    let reference = tempfile::tempdir().unwrap();
    write_tree(
        reference.path(),
        &[
            (
                "src/A.java",
                "package p;\nimport java.util.List;\nclass A { int f() { return 1; } }\n",
            ),
            ("notes.txt", "same words\n"),
        ],
    );
    let cfg = format!(
        "name: render-test\nreference: {{path: {}}}\njury:\n  tiers:\n    - name: structural\n      policy: FINAL_TIER\n      voting: {{strategy: majority}}\n      checks:\n        - type: import-diff\n        - {{type: ast-diff, aspects: [types, signatures]}}\n        - type: file-comparison\n",
        reference.path().display()
    );
    let r = scenario(
        &cfg,
        &[
            (
                "src/A.java",
                "package p;\nimport java.util.List;\nclass A { int f() { return 2; } }\n",
            ),
            ("notes.txt", "same   words\n"),
        ],
    );
    let md = render_md(&r);
    assert!(
        md.contains("✅ Accepted") && md.contains("File diff"),
        "{md}"
    );
    insta::assert_snapshot!("accepted_with_diffs", md);
}

#[test]
fn not_assessed_when_a_judge_error_propagates() {
    let f = vec![
        canned("ok", json!({"status": "pass"})),
        canned(
            "llm",
            json!({"status": "error", "reasonCode": "judge_reported", "reasoning": "the provider answered 503 three times"}),
        ),
    ];
    let cfg = config(&format!(
        "    - name: only\n      checks:\n{}{}",
        ext("ok"),
        ext("llm")
    ));
    let r = scenario(&cfg, &files_of(&f));
    assert_eq!(r.outcome.exit_code, 3);
    let md = render_md(&r);
    assert!(
        md.contains("⛔ Not assessed")
            && md.contains("counted against the change (exit 3)")
            && md.contains("503 three times"),
        "{md}"
    );
    insta::assert_snapshot!("not_assessed", md);
    let cr: Value =
        serde_json::from_str(&report::render(&stored(&r), Surface::CheckRun, None, 50).unwrap())
            .unwrap();
    assert_eq!(cr["create"]["conclusion"], "failure");
}

#[test]
fn a_tier_that_failed_to_run() {
    // All-zero weights make the weighted average refuse to reduce: the tier decides nothing,
    // the cascade records it and goes on.
    let f = vec![
        canned("a", json!({"status": "pass"})),
        canned("b", json!({"status": "pass"})),
        canned("c", json!({"status": "pass"})),
    ];
    let cfg = config(
        "    - name: weighted\n      voting: {strategy: weighted-average}\n      checks:\n        - {type: external, name: a, run: \"cat a.json >&3\", weight: 0}\n        - {type: external, name: b, run: \"cat b.json >&3\", weight: 0}\n    - name: final\n      checks:\n        - {type: external, name: c, run: \"cat c.json >&3\"}\n",
    );
    let r = scenario(&cfg, &files_of(&f));
    let md = render_md(&r);
    assert!(
        md.contains("| weighted |")
            && md.contains("⛔ Accepted at tier `final`, but the gate fails (exit 3)"),
        "{md}"
    );
    assert_eq!(
        r.verdict.composite_attempts()[0].disposition(),
        judge_ci::jury::Disposition::StageFailed
    );
    insta::assert_snapshot!("tier_failed_to_run", md);
}

/// A rejected report whose findings sit in hostile file names, for the link and SARIF tests.
fn hostile_findings() -> Value {
    let findings = json!([
        {"path": "src/My File (1)].java", "line": 7, "kind": "import-forbidden", "actual": "import javax.x.Y;"},
        {"path": "../../etc/passwd", "line": 1, "kind": "import-forbidden", "actual": "import a.B;"},
        {"path": "/etc/shadow", "line": 2, "kind": "import-forbidden", "actual": "import c.D;"},
        {"path": "src/Ok.java", "kind": "import-missing", "expected": "import jakarta.x.Y;"}
    ]);
    let f = vec![canned(
        "imports",
        json!({"status": "fail", "reasoning": "1 of 2 file(s) match", "findings": findings}),
    )];
    let cfg = config(&format!(
        "    - name: structural\n      checks:\n{}",
        ext("imports")
    ));
    scenario_json(&cfg, &files_of(&f))
}

#[test]
fn findings_link_to_their_line_in_the_judged_commit() {
    let mut r = hostile_findings();
    r["subject"]["serverUrl"] = json!("https://github.example.com");
    r["subject"]["repository"] = json!("octo/repo");
    r["subject"]["headSha"] = json!("ec26c3e57ca3a959ca5aad62de7213c562f8c821");
    r["subject"]["pathInRepository"] = json!("services/api");
    let report: Report = serde_json::from_value(r.clone()).unwrap();
    let md = render_md(&report);
    let blob = "https://github.example.com/octo/repo/blob/ec26c3e57ca3a959ca5aad62de7213c562f8c821/services/api";
    // The link text is a code span; the URL is percent-encoded, so `)`, `]` and spaces in a
    // file name cannot end the link or inject markdown.
    assert!(
        md.contains(&format!(
            "[`src/My File (1)].java:7`]({blob}/src/My%20File%20%281%29%5D.java#L7)"
        )),
        "{md}"
    );
    assert!(
        md.contains(&format!("[`src/Ok.java`]({blob}/src/Ok.java)")),
        "{md}"
    );
    // Paths that leave the repository are shown, never linked.
    assert!(
        md.contains("- `../../etc/passwd:1` import-forbidden"),
        "{md}"
    );
    assert!(md.contains("- `/etc/shadow:2` import-forbidden"), "{md}");
    assert_eq!(md.matches("](https://").count(), 2, "{md}");
    // Outside Actions (no server), or with a server that is not http(s), there are no links.
    for server in [
        Value::Null,
        json!("javascript:alert(1)//"),
        json!("https://x/(y)"),
    ] {
        let mut other = r.clone();
        other["subject"]["serverUrl"] = server;
        let md = render_md(&serde_json::from_value(other).unwrap());
        assert!(!md.contains("/blob/"), "{md}");
    }
}

#[test]
fn sarif_is_ready_for_code_scanning() {
    let mut r = hostile_findings();
    r["subject"]["pathInRepository"] = json!("services/api");
    // An external judge's findings are not structural diffs: planted as import-diff's.
    let mut planted = r["verdict"]["individual"][0]["findings"].clone();
    for f in planted.as_array_mut().unwrap() {
        f["judge"] = json!("imports");
    }
    r["diffs"] = json!({"imports": planted});
    let report: Report = serde_json::from_value(r).unwrap();
    let sarif = report::sarif::sarif(&report);
    let run = &sarif["runs"][0];
    assert_eq!(
        run["tool"]["driver"]["informationUri"],
        "https://github.com/judge-ci/judge-ci"
    );
    assert_eq!(
        run["automationDetails"]["id"],
        "judge-ci/render-test-judge-ci.yml/"
    );
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        for key in ["fullDescription", "shortDescription"] {
            assert!(
                rule[key]["text"].as_str().is_some_and(|t| !t.is_empty()),
                "{rule}"
            );
        }
        assert!(
            rule["help"]["text"].as_str().is_some_and(|t| !t.is_empty()),
            "{rule}"
        );
    }
    let results = run["results"].as_array().unwrap();
    // The two paths outside the repository are left out; the rest are repository-relative.
    let uris: Vec<&str> = results
        .iter()
        .map(|x| {
            let loc = &x["locations"][0]["physicalLocation"]["artifactLocation"];
            assert_eq!(loc["uriBaseId"], "%SRCROOT%");
            loc["uri"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        uris,
        [
            "services/api/src/My%20File%20%281%29%5D.java",
            "services/api/src/Ok.java"
        ]
    );
    let prints: Vec<&str> = results
        .iter()
        .map(|x| {
            x["partialFingerprints"]["judgeCiFinding/v1"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(prints.len(), 2);
    assert_ne!(prints[0], prints[1]);
    // The fingerprint ignores the line, so an alert survives code moving above it.
    let mut moved = serde_json::to_value(&report).unwrap();
    let diffs = moved["diffs"]["imports"].as_array_mut().unwrap();
    for d in diffs {
        d["line"] = json!(d["line"].as_u64().unwrap_or(0) + 10);
    }
    let moved: Report = serde_json::from_value(moved).unwrap();
    let again = report::sarif::sarif(&moved);
    assert_eq!(
        again["runs"][0]["results"][0]["partialFingerprints"],
        results[0]["partialFingerprints"]
    );
    assert_eq!(
        again["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        17
    );
}

#[test]
fn junit_shows_every_tier_and_skips_the_judges_not_reached() {
    let f = vec![
        canned("gate", json!({"status": "fail", "reasoning": "no"})),
        canned("ok", json!({"status": "pass"})),
        canned("later", json!({"status": "pass"})),
        canned("last", json!({"status": "pass"})),
    ];
    let cfg = config(&format!(
        "    - name: first\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n{}{}    - name: second\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n{}    - name: third\n      checks:\n{}",
        ext("gate"),
        ext("ok"),
        ext("later"),
        ext("last")
    ));
    let r = scenario(&cfg, &files_of(&f));
    let xml = report::render(&stored(&r), Surface::Junit, None, 50).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("JUnit XML parses");
    let root = doc.root_element();
    assert_eq!(
        (
            root.attribute("tests"),
            root.attribute("failures"),
            root.attribute("skipped")
        ),
        (Some("4"), Some("1"), Some("2")),
        "{xml}"
    );
    let cases: Vec<(String, String, bool)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|c| {
            (
                c.attribute("classname").unwrap().to_string(),
                c.attribute("name").unwrap().to_string(),
                c.children().any(|x| x.has_tag_name("skipped")),
            )
        })
        .collect();
    assert_eq!(
        cases,
        [
            ("judge-ci.first".into(), "gate".into(), false),
            ("judge-ci.first".into(), "ok".into(), false),
            ("judge-ci.second".into(), "later".into(), true),
            ("judge-ci.third".into(), "last".into(), true),
        ],
        "{xml}"
    );
    let skipped = doc
        .descendants()
        .find(|n| n.has_tag_name("skipped"))
        .unwrap();
    assert_eq!(
        skipped.attribute("message"),
        Some("not run: the cascade stopped at tier 'first'")
    );
    for suite in doc.descendants().filter(|n| n.has_tag_name("testsuite")) {
        let n = suite
            .children()
            .filter(|c| c.has_tag_name("testcase"))
            .count();
        assert_eq!(
            suite.attribute("tests"),
            Some(n.to_string().as_str()),
            "{xml}"
        );
    }
}

/// A report with 5,000 findings across 20 files.
fn huge() -> Report {
    let reference = tempfile::tempdir().unwrap();
    write_tree(
        reference.path(),
        &[("src/A.java", "package p;\nimport a.B;\nclass A {}\n")],
    );
    let cfg = format!(
        "name: render-test\nreference: {{path: {}}}\njury:\n  checks:\n    - type: import-diff\n",
        reference.path().display()
    );
    let mut r = scenario(
        &cfg,
        &[("src/A.java", "package p;\nimport a.C;\nclass A {}\n")],
    );
    let template = r.diffs.imports[0].clone();
    r.diffs.imports = (0..5000)
        .map(|i| {
            let mut d = template.clone();
            d.path = format!("src/module{}/File{}.java", i % 4, i % 20);
            d.line = Some(i as u64 % 300 + 1);
            d.expected = Some(format!(
                "import jakarta.persistence.Entity{i}; {}",
                "x".repeat(40)
            ));
            d
        })
        .collect();
    r
}

#[test]
fn a_huge_report_is_cut_within_every_budget() {
    let r = huge();
    let start = std::time::Instant::now();
    let all: Vec<(Surface, String)> = Surface::ALL
        .iter()
        .map(|s| (*s, report::render(&stored(&r), *s, None, 50).unwrap()))
        .collect();
    eprintln!(
        "rendering every surface of a 5,000-finding report: {:?}",
        start.elapsed()
    );
    for (s, text) in &all {
        match s {
            Surface::Markdown => {
                assert!(text.len() <= gfm::COMMENT_BUDGET, "{}", text.len());
                check_markdown(text);
                assert!(text.contains("This report was cut to fit here"));
            }
            Surface::Summary => {
                assert!(text.len() <= gfm::JOB_SUMMARY_BUDGET);
                gfm::validate(text).unwrap();
            }
            Surface::CheckRun => {
                let v: Value = serde_json::from_str(text).unwrap();
                let out = &v["create"]["output"];
                assert!(out["summary"].as_str().unwrap().len() <= gfm::CHECK_RUN_BUDGET);
                assert!(out["text"].as_str().unwrap().len() <= gfm::CHECK_RUN_BUDGET);
                assert_eq!(
                    out["annotations"].as_array().unwrap().len(),
                    50,
                    "capped at 50"
                );
                assert!(
                    out["summary"]
                        .as_str()
                        .unwrap()
                        .contains("4950 more annotation(s)")
                );
                assert!(out["title"].as_str().unwrap().chars().count() <= 255);
            }
            _ => {}
        }
    }
    let md = &all.iter().find(|(s, _)| *s == Surface::Markdown).unwrap().1;
    let tail: String = md.lines().rev().take(4).collect::<Vec<_>>().join("\n");
    insta::assert_snapshot!("huge_report_tail", tail);
    let cr: Value =
        serde_json::from_str(&report::render(&stored(&r), Surface::CheckRun, None, 120).unwrap())
            .unwrap();
    assert_eq!(
        cr["updates"].as_array().unwrap().len(),
        2,
        "120 annotations: 50 on create, 50 + 20 in updates"
    );
}

#[test]
fn hostile_reasoning_stays_literal_in_one_valid_document() {
    let long = "z".repeat(200 * 1024);
    let hostile = format!(
        "</details> ``` <img src=x onerror=alert(1)> @org/team #12 \u{1b}[31mred\u{1b}[0m \u{0} {long}"
    );
    let f = vec![canned(
        "evil",
        json!({"status": "fail", "reasoning": "placeholder"}),
    )];
    let cfg = config(&format!("    - name: only\n      checks:\n{}", ext("evil")));
    let mut v = scenario_json(&cfg, &files_of(&f));
    // A judge's words as hostile as they come (more than an external judge may print).
    let evil = json!({"status": "fail", "reasoning": hostile, "checks": [{"name": "```", "passed": false, "message": "</details><script>x</script>"}],
        "metadata": {"output": "line1\n```\n</details>\n@everyone"}});
    for pointer in ["/verdict/compositeAttempts/0/verdict", "/verdict"] {
        let verdict = v.pointer_mut(pointer).unwrap();
        verdict["individual"][0] = evil.clone();
        verdict["individualByName"]["evil"] = evil.clone();
    }
    let r: Report = serde_json::from_value(v).unwrap();
    for s in [Surface::Markdown, Surface::Summary] {
        let md = report::render(&stored(&r), s, None, 50).unwrap();
        gfm::validate(&md).unwrap();
        assert!(
            md.contains("&lt;/details&gt;") && md.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "escaped HTML"
        );
        assert!(
            md.contains("@\u{200B}org/team") && md.contains("#\u{200B}12"),
            "no ping, no autolink"
        );
        assert!(!md.contains('\u{1b}') && !md.contains('\u{0}'));
        // The log's backticks and `</details>` sit inside a longer fence, shown literally.
        assert!(
            md.contains("````text\nline1\n```\n</details>\n@everyone\n````"),
            "{}",
            &md[..md.len().min(3000)]
        );
        let html = gfm::html_page(&md, "t");
        assert!(
            !html.contains("<img src=x") && !html.contains("<script>"),
            "no injected HTML in the preview"
        );
    }
}

/// Replaces the official schema's malformed `language` pattern wherever it occurs.
fn fix_patterns(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "pattern" && x == "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$" {
                    *x = json!("^[a-zA-Z]{2}(-[a-zA-Z]{2})?$");
                } else {
                    fix_patterns(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(fix_patterns),
        _ => {}
    }
}

#[test]
fn junit_and_sarif_are_valid() {
    let r = scenario(
        &config(&format!(
            "    - name: build\n      checks:\n{}{}",
            ext("a"),
            ext("b")
        )),
        &files_of(&[
            canned(
                "a",
                json!({"status": "fail", "reasoning": "x < y & z", "findings": [{"path": "src/A.java", "line": 3, "kind": "compiler-error", "message": "boom"}]}),
            ),
            canned(
                "b",
                json!({"status": "error", "reasonCode": "judge_reported", "reasoning": "no"}),
            ),
        ]),
    );
    let xml = report::render(&stored(&r), Surface::Junit, None, 50).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("JUnit XML parses");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(root.attribute("failures"), Some("1"));
    assert_eq!(root.attribute("errors"), Some("1"));
    assert!(
        doc.descendants()
            .any(|n| n.has_tag_name("failure") && n.attribute("message") == Some("x < y & z"))
    );

    let sarif: Value =
        serde_json::from_str(&report::render(&stored(&r), Surface::Sarif, None, 50).unwrap())
            .unwrap();
    let schema_path = common::repo_root().join("tests/fixtures/sarif/sarif-2.1.0-rtm.5.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    // The official schema's `run.language` pattern has a stray `]` that a strict regex engine
    // rejects; it is replaced in memory by what it means (judge-ci emits no language anyway).
    let mut schema = schema;
    fix_patterns(&mut schema);
    let validator = jsonschema::validator_for(&schema).expect("the official schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(
        sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    let huge = serde_json::to_value(report::sarif::sarif(&huge())).unwrap();
    assert!(validator.is_valid(&huge));
}

#[test]
fn render_rereads_a_stored_report_and_writes_every_surface() {
    let r = huge();
    let dir = tempfile::tempdir().unwrap();
    let stored = dir.path().join("report.json");
    std::fs::write(&stored, serde_json::to_string(&r).unwrap()).unwrap();
    let out = dir.path().join("surfaces");
    let o = judge_ci(
        Path::new("."),
        &[
            "render",
            stored.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for f in [
        "report.md",
        "summary.md",
        "report.html",
        "check-run.json",
        "junit.xml",
        "report.sarif",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let o = judge_ci(
        Path::new("."),
        &["render", stored.to_str().unwrap(), "--format", "check-run"],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["create"]["name"], "judge-ci / render-test");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"schema\": 1}").unwrap();
    let o = judge_ci(Path::new("."), &["render", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("bad.json:1:"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
