//! The gap analysis on real runs: one scenario per built-in rule (real Maven builds, a command
//! that times out, a missing JaCoCo report, a path escaping through a symlink, an LLM judge
//! without its key, a plan that mentions or omits a namespace, a knowledge folder with or
//! without an entry, a journal with a repeated tool error, semantic criteria), user rules and
//! the default rule, each asserting category, rule id and evidence; `judge-ci diagnose` on a
//! stored report; and that no non-passing judgment or failed check is left without a category.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::fake_llm::{FakeLlm, Reply};
use serde_json::{Value, json};

/// A workspace (and a reference beside it) with `files`, judged once.
struct Run {
    root: tempfile::TempDir,
    report: Value,
}

const INSTRUCTION: &str = "Migrate the persistence layer from javax.persistence to jakarta.persistence and keep the build green.";

fn judge(
    config: &str,
    ws: &[(&str, &str)],
    reference: &[(&str, &str)],
    env: &[(&str, &str)],
) -> Run {
    let root = tempfile::tempdir().unwrap();
    common::write_tree(&root.path().join("workspace"), ws);
    common::write_tree(&root.path().join("reference"), reference);
    std::fs::create_dir_all(root.path().join("reference")).unwrap();
    common::write_tree(
        root.path(),
        &[
            ("workspace/judge-ci.yml", config),
            (
                "task.yaml",
                &format!("schema: bench.task.v1\nid: t\ninstruction: {INSTRUCTION}\n"),
            ),
        ],
    );
    if root.path().join("workspace/mvnw").exists() {
        common::chmod_x(&root.path().join("workspace/mvnw"));
    }
    let out = root.path().join("out");
    let task = root.path().join("task.yaml");
    let mut cmd = common::command(
        &root.path().join("workspace"),
        &[
            "--dry-run",
            "-q",
            "--task",
            task.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    cmd.env_remove("ANTHROPIC_API_KEY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("report.json"))
            .unwrap_or_else(|_| panic!("no report: {}", String::from_utf8_lossy(&o.stderr))),
    )
    .unwrap();
    common::assert_report_schema(&report);
    assert_complete(&report);
    Run { root, report }
}

impl Run {
    fn report_path(&self) -> PathBuf {
        self.root.path().join("out/report.json")
    }

    /// The finding of judge `judge`.
    fn finding(&self, judge: &str) -> Value {
        finding_in(&self.report, judge)
    }

    /// `judge-ci diagnose` on the stored report with `args`; the new analysis.
    fn rediagnose(&self, args: &[&str]) -> Value {
        let report = self.report_path().display().to_string();
        let mut all = vec!["diagnose", report.as_str()];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--format", "json"]);
        let o = common::judge_ci(self.root.path(), &all);
        assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    }
}

fn finding_in(report: &Value, judge: &str) -> Value {
    let d = if report.get("findings").is_some() {
        report
    } else {
        &report["diagnostics"]
    };
    d["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["judge"] == judge && f.get("check").is_none_or(|c| c.is_string()))
        .cloned()
        .unwrap_or_else(|| panic!("no finding for {judge}: {d:#}"))
}

fn assert_finding(f: &Value, category: &str, rule: &str, evidence: &str) {
    assert_eq!(f["category"], category, "{f:#}");
    assert_eq!(f["rule"], rule, "{f:#}");
    assert!(
        f["evidence"].as_str().unwrap().contains(evidence),
        "evidence {:?} lacks {evidence:?}",
        f["evidence"]
    );
}

/// Every non-passing judgment and every failed check of the verdict has a finding.
fn assert_complete(report: &Value) {
    let findings = report["diagnostics"]["findings"].as_array().unwrap();
    let has = |judge: &str, check: Option<&str>| {
        findings.iter().any(|f| {
            f["judge"] == judge
                && match check {
                    Some(c) => f["check"] == c,
                    None => true,
                }
        })
    };
    let mut verdicts: Vec<&Value> = vec![&report["verdict"]];
    if let Some(a) = report["verdict"]["compositeAttempts"].as_array() {
        verdicts.extend(a.iter().filter_map(|x| x.get("verdict")));
    }
    for v in verdicts {
        for (name, j) in v["individualByName"].as_object().into_iter().flatten() {
            if matches!(j["status"].as_str(), Some("fail" | "abstain" | "error")) {
                assert!(has(name, None), "{name} ({}) has no finding", j["status"]);
            }
            for c in j["checks"].as_array().into_iter().flatten() {
                if c["passed"] == false {
                    assert!(
                        has(name, c["name"].as_str()),
                        "check {} of {name} has no finding",
                        c["name"]
                    );
                }
            }
        }
    }
    let total: u64 = report["diagnostics"]["distribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["count"].as_u64().unwrap())
        .sum();
    assert_eq!(total as usize, findings.len());
}

fn flat(checks: &str) -> String {
    format!("name: d\nreference: {{path: ../reference}}\njury:\n  checks:\n{checks}")
}

const JAVAX_APP: &str =
    "package t;\nimport javax.persistence.Entity;\n@Entity\npublic class App {}\n";
const JAKARTA_APP: &str =
    "package t;\nimport jakarta.persistence.Entity;\n@Entity\npublic class App {}\n";

fn maven_ws<'a>(app: &'a str, pom: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("pom.xml", pom),
        ("src/main/java/t/App.java", app),
        ("mvnw", common::MVNW),
    ]
}

#[test]
fn environment_a_timeout_and_an_unresolvable_dependency() {
    let r = judge(
        &flat("    - {type: command, name: slow, run: \"sleep 5\", timeout: PT1S}\n"),
        &[],
        &[],
        &[],
    );
    // judge-ci enforced the limit: a typed cause, not a guess from the text.
    assert_finding(
        &r.finding("slow"),
        "Environment",
        "cause",
        "cause timeout: `sleep 5` did not finish within",
    );
    let slow = &r.report["verdict"]["individualByName"]["slow"];
    assert_eq!(
        (&slow["status"], &slow["cause"]),
        (&json!("error"), &json!("timeout")),
        "{slow:#}"
    );

    common::require_maven();
    let pom = common::POM.replace(
        "<dependencies>",
        "<dependencies>\n    <dependency><groupId>org.example.absent</groupId><artifactId>nowhere</artifactId><version>9.9</version></dependency>",
    );
    let r = judge(
        &flat("    - {type: maven-build, goals: [compile], timeout: PT3M}\n"),
        &maven_ws(
            JAKARTA_APP
                .replace("jakarta.persistence.Entity;\n@Entity", "java.util.List;")
                .as_str(),
            &pom,
        )
        .iter()
        .map(|(a, b)| (*a, *b))
        .collect::<Vec<_>>(),
        &[],
        &[],
    );
    let f = r.finding("maven-build");
    assert_eq!(
        f["status"], "error",
        "an unresolvable dependency is the instrument's: {f:#}"
    );
    assert_finding(&f, "Environment", "cause", "Could not resolve dependencies");
    let j = &r.report["verdict"]["individualByName"]["maven-build"];
    assert!(
        matches!(
            j["cause"].as_str(),
            Some("network_unreachable" | "dependency_unresolved")
        ),
        "the cause Maven's own resolution error names: {j:#}"
    );
}

#[test]
fn evaluation_a_path_escaping_through_a_symlink_and_an_llm_without_its_key() {
    // The symlink appears while the jury runs (an earlier tier's command makes it where a
    // later evidence check reads, a path the guard keeps for that check), after the preflight
    // check that refuses such paths up front. What a check keeps is plain data (attack
    // findings E7-10, N7-2): the link is removed when the command ends and that check FAILs,
    // the subject's doing (classified as the agent's execution), never an instrument
    // problem that would leave the task out of the score (trust.md 12).
    let r = judge(
        "name: d\njury:\n  tiers:\n    - name: setup\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {type: command, name: link, run: \"ln -s /etc classes\"}\n    - name: check\n      checks:\n        - {type: class-version, name: secrets, java: 17, dir: classes}\n",
        &[],
        &[],
        &[],
    )
    .report;
    assert_finding(
        &finding_in(&r, "link"),
        "Execution",
        "execution",
        "Subject code left classes (not plain data, removed)",
    );

    let llm = FakeLlm::start("k");
    let r = judge(
        "name: d\nllm: {provider: anthropic, base-url: \"https://llm.example.invalid\", cache: \"off\"}\njury:\n  checks:\n    - type: correctness\n",
        &[],
        &[],
        &[],
    );
    assert_finding(
        &r.finding("correctness"),
        "Evaluation",
        "cause",
        "cause judge_misconfigured",
    );
    assert!(
        r.finding("correctness")["evidence"]
            .as_str()
            .unwrap()
            .contains("API key")
    );
    assert!(llm.seen().is_empty());
}

#[test]
fn analysis_a_missing_jacoco_report_and_no_classes() {
    let r = judge(
        &flat(
            "    - {type: coverage-preservation, name: coverage, baseline: 50}\n    - {type: class-version, name: classes, java: 17}\n",
        ),
        &[("pom.xml", "<project/>")],
        &[],
        &[],
    );
    assert_finding(
        &r.finding("coverage"),
        "Analysis",
        "cause",
        "cause evidence_missing: coverage report not found",
    );
    assert_finding(
        &r.finding("classes"),
        "Analysis",
        "cause",
        "was the project compiled",
    );
}

#[test]
fn a_javax_compile_error_is_knowledge_planning_or_execution_by_plan_and_knowledge() {
    common::require_maven();
    let ws = maven_ws(JAVAX_APP, common::POM);
    let r = judge(
        &flat("    - {type: maven-build, goals: [compile], timeout: PT3M}\n"),
        &ws,
        &[("src/main/java/t/App.java", JAKARTA_APP)],
        &[],
    );
    let f = r.finding("maven-build");
    assert_eq!(f["status"], "fail", "{f:#}");
    assert_finding(
        &f,
        "Knowledge",
        "namespace",
        "package javax.persistence does not exist",
    );
    assert_eq!(f["confidence"], "heuristic");

    let dir = r.root.path();
    std::fs::write(
        dir.join("plan-with.md"),
        "1. Replace javax.persistence imports with jakarta.persistence\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("plan-without.md"),
        "1. Update the Spring Boot parent\n2. Run the tests\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("kb-empty")).unwrap();
    std::fs::write(
        dir.join("kb-empty/servlet.md"),
        "javax.servlet moved to jakarta.servlet\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("kb-full")).unwrap();
    std::fs::write(
        dir.join("kb-full/jpa.md"),
        "javax.persistence is jakarta.persistence since JPA 3.0\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("analysis-without.json"),
        r#"{"patterns": [{"id": "javax.servlet", "files": 3}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("analysis-with.json"),
        r#"{"patterns": [{"id": "javax.persistence", "files": 1}]}"#,
    )
    .unwrap();
    let p = |name: &str| dir.join(name).display().to_string();
    for (args, category, why) in [
        (
            vec!["--plan".to_string(), p("plan-with.md")],
            "Execution",
            "the plan mentions javax.persistence, so the step was planned but not carried out (the plan is the subject's own text, set by the subject)",
        ),
        (
            vec!["--plan".to_string(), p("plan-without.md")],
            "Planning",
            "the plan never mentions javax.persistence, so the step was not planned (the plan is the subject's own text, set by the subject)",
        ),
        (
            vec!["--knowledge".to_string(), p("kb-empty")],
            "Knowledge",
            "no knowledge-base file mentions javax.persistence",
        ),
        (
            vec!["--knowledge".to_string(), p("kb-full")],
            "Execution",
            "the knowledge base covers it (jpa.md)",
        ),
        (
            vec!["--analysis".to_string(), p("analysis-without.json")],
            "Analysis",
            "the pre-analysis lists no pattern for javax.persistence",
        ),
        (
            vec![
                "--analysis".to_string(),
                p("analysis-with.json"),
                "--knowledge".to_string(),
                p("kb-empty"),
            ],
            "Knowledge",
            "no knowledge-base file mentions javax.persistence",
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let d = r.rediagnose(&args);
        let f = finding_in(&d, "maven-build");
        assert_finding(
            &f,
            category,
            "namespace",
            "package javax.persistence does not exist",
        );
        assert!(f["rationale"].as_str().unwrap().contains(why), "{f:#}");
    }
}

#[test]
fn build_files_structure_and_class_versions_are_execution_or_planning() {
    let pom_ws = "<project><modelVersion>4.0.0</modelVersion><groupId>t</groupId><artifactId>t</artifactId><version>1</version>\n<dependencies><dependency><groupId>javax.persistence</groupId><artifactId>javax.persistence-api</artifactId><version>2.2</version></dependency></dependencies></project>\n";
    let pom_ref = "<project><modelVersion>4.0.0</modelVersion><groupId>t</groupId><artifactId>t</artifactId><version>1</version>\n<dependencies><dependency><groupId>jakarta.persistence</groupId><artifactId>jakarta.persistence-api</artifactId><version>3.1.0</version></dependency></dependencies></project>\n";
    let r = judge(
        &flat(
            "    - {type: pom-diff}\n    - {type: ast-diff}\n    - {type: class-version, name: classes, java: 17}\n",
        ),
        &[
            ("pom.xml", pom_ws),
            (
                "src/main/java/t/App.java",
                "package t;\npublic class App { void run() {} }\n",
            ),
        ],
        &[
            ("pom.xml", pom_ref),
            (
                "src/main/java/t/App.java",
                "package t;\npublic class App { public void run() {} }\n",
            ),
        ],
        &[],
    );
    // No classes: class-version abstains (Analysis); compile some with --release 11 for a FAIL.
    let ws = r.root.path().join("workspace");
    let st = Command::new("javac")
        .args(["--release", "11", "-d"])
        .arg(ws.join("target/classes"))
        .arg(ws.join("src/main/java/t/App.java"))
        .status()
        .unwrap();
    assert!(st.success());
    let out = r.root.path().join("out2");
    let o = common::judge_ci(&ws, &["--dry-run", "-q", "--out", out.to_str().unwrap()]);
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("report.json"))
            .unwrap_or_else(|_| panic!("{}", common::stderr(&o))),
    )
    .unwrap();
    assert_complete(&report);
    assert_finding(
        &finding_in(&report, "pom-diff"),
        "Execution",
        "build-file",
        "jakarta.persistence",
    );
    assert_finding(
        &finding_in(&report, "ast-diff"),
        "Execution",
        "execution",
        "ast-diff",
    );
    assert_finding(
        &finding_in(&report, "classes"),
        "Execution",
        "execution",
        "55",
    );

    std::fs::write(out.join("plan.md"), "1. Replace the imports\n").unwrap();
    let d = {
        let o = common::judge_ci(
            r.root.path(),
            &[
                "diagnose",
                out.join("report.json").to_str().unwrap(),
                "--plan",
                out.join("plan.md").to_str().unwrap(),
                "--format",
                "json",
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
        serde_json::from_slice::<Value>(&o.stdout).unwrap()
    };
    assert_finding(
        &finding_in(&d, "pom-diff"),
        "Planning",
        "build-file",
        "jakarta.persistence",
    );
}

#[test]
fn a_repeated_tool_error_in_the_journal_is_a_tool_gap() {
    let r = judge(
        &flat("    - {type: file-exists, name: changelog, path: CHANGELOG.md}\n"),
        &[],
        &[],
        &[],
    );
    // Without a journal: the default rule.
    assert_finding(
        &r.finding("changelog"),
        "Execution",
        "default",
        "CHANGELOG.md",
    );
    let journal = r.root.path().join("journal.jsonl");
    std::fs::write(
        &journal,
        [
            json!({"tool": "write_file", "error": "EACCES: permission denied, open 'CHANGELOG.md'"}),
            json!({"tool": "read_file", "result": "ok"}),
            json!({"tool": "write_file", "error": "EACCES: permission denied, open 'CHANGELOG.md'"}),
        ]
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
            + "\nnot json\n",
    )
    .unwrap();
    let d = r.rediagnose(&["--journal", journal.to_str().unwrap()]);
    assert_finding(
        &finding_in(&d, "changelog"),
        "Tool",
        "repeated-tool-error",
        "write_file: EACCES",
    );
    assert!(
        d["notes"][0].as_str().unwrap().contains("1 journal line"),
        "{d:#}"
    );
}

#[test]
fn semantic_criteria_off_the_instruction_or_about_the_build() {
    let llm = FakeLlm::start("k");
    llm.on(
        "",
        3,
        Reply::Json(json!({"passed": false, "evidence": "not shown"})),
    );
    let config = format!(
        "name: d\nreference: {{path: ../reference}}\nllm: {{provider: openai, base-url: \"{}\", cache: \"off\"}}\njury:\n  checks:\n    - type: semantic-diff\n      name: review\n      criteria: [\"the project compiles without warnings\", \"the README gains a changelog section\", \"jakarta.persistence replaces javax.persistence everywhere\"]\n",
        llm.openai_url()
    );
    let r = judge(
        &config,
        &[("A.java", "class A {}\n")],
        &[("A.java", "class A {}\n")],
        &[],
    );
    let findings = r.report["diagnostics"]["findings"]
        .as_array()
        .unwrap()
        .clone();
    let of = |check: &str| {
        findings
            .iter()
            .find(|f| f["check"] == check)
            .cloned()
            .unwrap_or_else(|| panic!("no finding for {check}: {findings:#?}"))
    };
    assert_finding(
        &of("the project compiles without warnings"),
        "Evaluation",
        "semantic-criterion",
        "compiles",
    );
    assert_finding(
        &of("the README gains a changelog section"),
        "Prompt",
        "semantic-criterion",
        "changelog",
    );
    assert_finding(
        &of("jakarta.persistence replaces javax.persistence everywhere"),
        "Execution",
        "default",
        "jakarta.persistence replaces",
    );
}

#[test]
fn user_rules_come_first_and_the_markdown_shows_the_analysis() {
    let config = flat(
        "    - {type: file-exists, name: changelog, path: CHANGELOG.md}\n    - {type: file-content, name: version, path: VERSION, expected: \"2.0\"}\ndiagnostics:\n  rules:\n    - {id: docs-owner, type: file-exists, category: Prompt, rationale: \"the task never asks for a changelog\"}\n",
    );
    let r = judge(&config, &[("VERSION", "1.0\n")], &[], &[]);
    let f = r.finding("changelog");
    assert_finding(&f, "Prompt", "docs-owner", "CHANGELOG.md");
    assert_eq!(f["rationale"], "the task never asks for a changelog");
    assert_finding(&r.finding("version"), "Execution", "default", "VERSION");
    let d = &r.report["diagnostics"];
    assert_eq!(
        d["dominant"], "Execution",
        "a tie goes to the earlier category"
    );
    // Folded in the pull-request comment, open in the job summary.
    let md = std::fs::read_to_string(r.root.path().join("out/report.md")).unwrap();
    assert!(
        md.contains(
            "<details><summary>Why the change fell short, by category (gap analysis)</summary>"
        ),
        "{md}"
    );
    let summary = std::fs::read_to_string(r.root.path().join("out/summary.md")).unwrap();
    assert!(summary.contains("### Gap analysis"), "{summary}");
    assert!(
        md.contains("```mermaid\npie showData title Failures by gap category"),
        "{md}"
    );
    assert!(md.contains("| Prompt | "), "{md}");
    assert!(md.contains("rule docs-owner"), "{md}");
}

/// The judgment of `name` anywhere in the report's verdict (nested tiers included).
fn judgment_in(report: &Value, name: &str) -> Value {
    fn walk(v: &Value, name: &str) -> Option<Value> {
        if let Some(j) = v["individualByName"].get(name) {
            return Some(j.clone());
        }
        v["compositeAttempts"]
            .as_array()?
            .iter()
            .filter_map(|a| a.get("verdict"))
            .find_map(|c| walk(c, name))
    }
    walk(&report["verdict"], name).unwrap_or_else(|| panic!("no judgment {name}"))
}

/// A build tier that rejects on any FAIL, then a tier that would accept anything: the build
/// tier's FAIL must reject; only an ERROR would let the lenient tier decide.
fn build_then_lenient(goals: &str) -> String {
    format!(
        "name: d\njury:\n  tiers:\n    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {{type: maven-build, goals: [{goals}], timeout: PT3M}}\n    - name: lenient\n      policy: FINAL_TIER\n      checks:\n        - {{type: file-exists, path: pom.xml}}\n"
    )
}

/// Issue 18: on JDK 25 against JDK 17 sources, an ast-diff finding naming this method was
/// read as an out-of-memory error ("an external fault stopped the judge").
#[test]
fn an_ast_diff_finding_naming_out_of_memory_error_is_not_an_environment_gap() {
    let reference = "package java.io;\npublic class ObjectInputStream {\n  static InvalidObjectException genInvalidObjectException(OutOfMemoryError e, String[] names) { return null; }\n}\n";
    let workspace = "package java.io;\npublic class ObjectInputStream {\n}\n";
    let r = judge(
        &flat("    - {type: ast-diff}\n"),
        &[("src/java/io/ObjectInputStream.java", workspace)],
        &[("src/java/io/ObjectInputStream.java", reference)],
        &[],
    );
    let j = judgment_in(&r.report, "ast-diff");
    assert_eq!(j["status"], "fail", "{j:#}");
    let f = &j["findings"][0];
    assert_eq!(f["kind"], "method-missing", "typed findings: {j:#}");
    assert!(
        f["expected"]
            .as_str()
            .unwrap()
            .contains("ObjectInputStream.genInvalidObjectException(OutOfMemoryError, String[])"),
        "{f:#}"
    );
    let g = r.finding("ast-diff");
    assert_ne!(g["category"], "Environment", "{g:#}");
    assert_finding(&g, "Execution", "execution", "method-missing");
}

/// Issue 18: a plugin Maven cannot resolve offline fell to the default rule (Evaluation)
/// although the maven-build judge had said the repository cannot be reached.
#[test]
fn a_plugin_unresolvable_offline_is_the_environment_gap_the_maven_judge_named() {
    common::require_offline_maven();
    let pom = common::POM.replace(
        "</project>",
        "  <build><plugins><plugin><groupId>org.example.absent</groupId><artifactId>nowhere-maven-plugin</artifactId><version>9.9</version><executions><execution><goals><goal>run</goal></goals></execution></executions></plugin></plugins></build>\n</project>",
    );
    assert_ne!(pom, common::POM, "the plugin is in the POM");
    let r = judge(
        &flat("    - {type: maven-build, goals: [compile], timeout: PT3M}\n"),
        &maven_ws("package t;\npublic class App {}\n", &pom),
        &[],
        &[],
    );
    let j = judgment_in(&r.report, "maven-build");
    assert_eq!(j["status"], "error", "{j:#}");
    assert_eq!(j["cause"], "network_unreachable", "{j:#}");
    let why = j["reasoning"].as_str().unwrap();
    assert!(
        why.contains("cannot be reached") && why.contains("Plugin org.example.absent"),
        "{why}"
    );
    assert_finding(
        &r.finding("maven-build"),
        "Environment",
        "cause",
        "cause network_unreachable",
    );
}

/// Issue 18: what the subject prints decides nothing about the environment. A test that
/// prints a full disk and an exhausted heap, and then fails, is a FAIL of the build tier (so
/// the lenient tier never decides) and an Execution gap, not an Environment one.
#[test]
fn a_failing_test_that_prints_no_space_left_is_a_build_fail_and_not_an_environment_gap() {
    common::require_maven();
    let test = "package t;\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\npublic class AppTest {\n  @Test public void one() {\n    System.out.println(\"java.io.IOException: No space left on device\");\n    System.out.println(\"java.lang.OutOfMemoryError: Java heap space\");\n    System.out.println(\"Connection refused; did not finish within 1s; timed out\");\n    assertEquals(1, App.one());\n  }\n}\n";
    let mut ws = maven_ws(
        "package t;\npublic class App { public static int one() { return 2; } }\n",
        common::POM,
    );
    ws.push(("src/test/java/t/AppTest.java", test));
    let r = judge(&build_then_lenient("test"), &ws, &[], &[]);
    let j = judgment_in(&r.report, "maven-build");
    assert_eq!(j["status"], "fail", "{j:#}");
    assert!(j.get("cause").is_none(), "{j:#}");
    assert_eq!(r.report["interpretation"]["reading"], "REJECTED");
    assert_eq!(r.report["interpretation"]["decidedBy"], "build");
    let g = r.finding("maven-build");
    assert_ne!(g["category"], "Environment", "{g:#}");
    assert_eq!(g["category"], "Execution", "{g:#}");
}

/// Issue 18: an identifier in a compiler message (`OutOfMemoryErrorReporter`) is the
/// subject's text: the build FAILs at its tier and the gap is not the environment's.
#[test]
fn an_identifier_naming_out_of_memory_in_a_compiler_error_is_a_build_fail() {
    common::require_maven();
    let app = "package t;\npublic class App { void f() { OutOfMemoryErrorReporter.report(\"No space left on device\"); } }\n";
    let r = judge(
        &build_then_lenient("compile"),
        &maven_ws(app, common::POM),
        &[],
        &[],
    );
    let j = judgment_in(&r.report, "maven-build");
    assert_eq!(j["status"], "fail", "{j:#}");
    assert!(j.get("cause").is_none(), "{j:#}");
    assert_eq!(j["findings"][0]["kind"], "compiler-error", "{j:#}");
    assert!(
        j.to_string().contains("OutOfMemoryErrorReporter"),
        "the compiler names the identifier: {j:#}"
    );
    assert_eq!(r.report["interpretation"]["reading"], "REJECTED");
    let g = r.finding("maven-build");
    assert_ne!(g["category"], "Environment", "{g:#}");
    assert_eq!(g["category"], "Execution", "{g:#}");
}

/// A disk that judge-ci measures full only after the build's own test filled it is the
/// subject's doing, not the runner's (trust.md point 12; attack finding GA9: such a build was
/// an ERROR `disk_full` that `fail-on: fail` waived): a FAIL that says the disk filled while
/// the build ran. The workspace lies on a 4 MiB tmpfs that the build's own test fills; a
/// disk already full before the build is `disk_full` (`judges::maven`'s unit test).
#[test]
fn a_disk_the_builds_own_test_fills_is_the_builds_failure_not_the_runners() {
    common::require_maven();
    common::small_disk::require();
    let ex = tempfile::tempdir().unwrap();
    let seed = ex.path().join("seed");
    let test = "package t;\nimport org.junit.Test;\npublic class AppTest {\n  @Test public void fills() throws Exception {\n    try (java.io.FileOutputStream o = new java.io.FileOutputStream(\"filler.bin\")) {\n      byte[] b = new byte[65536];\n      while (true) o.write(b);\n    }\n  }\n}\n";
    let mut ws = maven_ws("package t;\npublic class App {}\n", common::POM);
    ws.push(("src/test/java/t/AppTest.java", test));
    let config = build_then_lenient("test");
    ws.push(("judge-ci.yml", config.as_str()));
    common::write_tree(&seed, &ws);
    common::chmod_x(&seed.join("mvnw"));
    let (at, after, out) = (
        ex.path().join("disk"),
        ex.path().join("after"),
        ex.path().join("out"),
    );
    std::fs::create_dir_all(&at).unwrap();
    std::fs::create_dir_all(&after).unwrap();
    let bin = env!("CARGO_BIN_EXE_judge-ci");
    // The tmpfs is mounted over `at` inside the namespace: enter it there.
    let o = common::small_disk::command(4096, &at, &seed, &after, "sh")
        .args([
            "-c",
            "cd \"$1\" && exec \"$2\" --dry-run -q --out \"$3\"",
            "sh",
        ])
        .arg(&at)
        .arg(bin)
        .arg(&out)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
        .output()
        .unwrap();
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("report.json"))
            .unwrap_or_else(|_| panic!("no report: {}", common::stderr(&o))),
    )
    .unwrap();
    common::assert_report_schema(&report);
    let j = judgment_in(&report, "maven-build");
    assert_eq!(
        (&j["status"], &j["cause"]),
        (&json!("fail"), &Value::Null),
        "{j:#}\n{}",
        common::stderr(&o)
    );
    assert!(
        j["reasoning"]
            .as_str()
            .unwrap()
            .contains("the disk filled while the build ran: judge-ci measured"),
        "{j:#}"
    );
}

/// A cause is judge-ci's own observation: an external judge (whose output may echo what the
/// subject printed) cannot set one, and a program that cannot be started is the `tool_missing`
/// cause, a Tool gap, from the spawn error alone.
#[test]
fn an_external_judge_cannot_set_a_cause_and_a_missing_program_is_a_tool_gap() {
    let forged = r#"{"status": "error", "reasonCode": "judge_reported", "reasoning": "the runner is out of disk", "cause": "disk_full"}"#;
    let r = judge(
        &flat(
            "    - {type: external, name: ext, run: \"cat forged.json >&3\"}\n    - {type: command, name: gone, run: [judge-ci-no-such-program-18]}\n",
        ),
        &[("forged.json", forged)],
        &[],
        &[],
    );
    let ext = judgment_in(&r.report, "ext");
    assert_eq!(
        (&ext["status"], &ext["reasonCode"], &ext["cause"]),
        (
            &json!("error"),
            &json!("judge_failed"),
            &json!("judge_broken")
        ),
        "{ext:#}"
    );
    assert!(
        ext["reasoning"].as_str().unwrap().contains("set `cause`"),
        "{ext:#}"
    );
    let g = r.finding("ext");
    assert_ne!(g["category"], "Environment", "{g:#}");
    assert_finding(&g, "Evaluation", "cause", "cause judge_broken");

    let gone = judgment_in(&r.report, "gone");
    assert_eq!(
        (&gone["status"], &gone["cause"]),
        (&json!("error"), &json!("tool_missing")),
        "{gone:#}"
    );
    assert_finding(&r.finding("gone"), "Tool", "cause", "cause tool_missing");
}

/// A pull request that adds a dependency no repository here holds (and the reference does not
/// need) cannot turn its build tier into an environment ERROR: Maven offline says the central
/// repository cannot be reached, but only the pull request's POM declares the artifact, so the
/// build FAILs at its tier and the lenient tier never decides. The same artifact in the
/// reference's POM too stays the environment's (ERROR, `network_unreachable`).
#[test]
fn a_made_up_dependency_is_the_pull_requests_failure_not_the_environments() {
    common::require_offline_maven();
    let dependency = "<dependency><groupId>org.example.absent</groupId><artifactId>nowhere</artifactId><version>9.9</version></dependency>";
    let with = common::POM.replace(
        "</dependencies>",
        &format!("  {dependency}\n  </dependencies>"),
    );
    assert_ne!(with, common::POM, "the dependency is in the POM");
    let config = "name: d\nreference: {path: ../reference}\njury:\n  tiers:\n    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {type: maven-build, goals: [compile], timeout: PT3M}\n    - name: lenient\n      policy: FINAL_TIER\n      checks:\n        - {type: file-exists, path: pom.xml}\n";
    let app = "package t;\npublic class App {}\n";
    let r = judge(
        config,
        &maven_ws(app, &with),
        &[("pom.xml", common::POM), ("src/main/java/t/App.java", app)],
        &[],
    );
    let j = judgment_in(&r.report, "maven-build");
    assert_eq!(j["status"], "fail", "{j:#}");
    assert!(j.get("cause").is_none(), "{j:#}");
    assert!(
        j["reasoning"]
            .as_str()
            .is_some_and(|w| w.contains("org.example.absent:nowhere") && w.contains("introduced")),
        "{j:#}"
    );
    assert_eq!(r.report["interpretation"]["reading"], "REJECTED");
    assert_eq!(r.report["interpretation"]["decidedBy"], "build");

    // The reference declares it too: this environment cannot build the known-good solution
    // either, which is the environment's failure.
    let r = judge(
        config,
        &maven_ws(app, &with),
        &[("pom.xml", &with), ("src/main/java/t/App.java", app)],
        &[],
    );
    let j = judgment_in(&r.report, "maven-build");
    assert_eq!(j["status"], "error", "{j:#}");
    assert_eq!(j["cause"], "network_unreachable", "{j:#}");
}
