//! The deterministic judges through the real binary: real Maven builds (offline, Debian's
//! plugins), real class files from javac, JaCoCo reports written by JaCoCo, external judges,
//! and process groups that leave no orphan behind.

use crate::common;

use common::{judge_ci, maven_project, report, stderr, write_tree};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Runs a dry run with `config` in `ws` and returns (exit code, report JSON).
fn judge(ws: &Path, config: &str, extra: &[&str]) -> (i32, Value) {
    write_tree(ws, &[("judge-ci.yml", config)]);
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["--dry-run", "-q", "--out", out.path().to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = judge_ci(ws, &args);
    let code = o.status.code().unwrap_or(-1);
    assert!(
        out.path().join("report.json").exists(),
        "no report; exit {code}; stderr:\n{}",
        stderr(&o)
    );
    let r = report(out.path());
    common::assert_report_schema(&r);
    (code, r)
}

/// Fails when any process whose command line holds `marker` is still alive.
fn assert_no_process_matching(marker: &str, what: &str) {
    // Killed processes are reaped by the kernel a moment later; a survivor sleeps for minutes.
    common::processes::assert_none_survive(marker, std::time::Duration::from_secs(5), what);
}

/// The first judgment of the root verdict.
fn first(r: &Value) -> &Value {
    &r["verdict"]["individual"][0]
}

const APP: &str =
    "package t;\npublic class App { public static int add(int a, int b) { return a + b; } }\n";
const TEST_OK: &str = "package t;\nimport static org.junit.Assert.*;\nimport org.junit.Test;\npublic class AppTest { @Test public void adds() { assertEquals(3, App.add(1, 2)); } }\n";

fn maven_config(timeout: &str) -> String {
    format!(
        "name: build\njury:\n  checks:\n    - type: maven-build\n      goals: [test]\n      timeout: {timeout}\n"
    )
}

#[test]
fn maven_build_passes_on_a_good_project() {
    common::require_maven();
    let ws = tempfile::tempdir().unwrap();
    maven_project(ws.path(), APP, TEST_OK);
    let (code, r) = judge(ws.path(), &maven_config("PT5M"), &[]);
    assert_eq!(code, 0, "{}", first(&r));
    assert_eq!(first(&r)["status"], "pass");
    let command = first(&r)["metadata"]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        command.starts_with("./mvnw -B -DskipTests=false -Dmaven.test.skip=false")
            && command.ends_with(" test"),
        "the executable ./mvnw is preferred, with the test switches pinned: {command}"
    );
    assert_eq!(r["interpretation"]["reading"], "ACCEPTED");
}

#[test]
fn a_compile_error_is_a_fail_with_file_and_line() {
    common::require_maven();
    let ws = tempfile::tempdir().unwrap();
    maven_project(
        ws.path(),
        "package t;\npublic class App {\n  public static int add(int a, int b) { return a + b }\n}\n",
        TEST_OK,
    );
    let (code, r) = judge(ws.path(), &maven_config("PT5M"), &[]);
    assert_eq!(code, 1);
    let j = first(&r);
    assert_eq!(j["status"], "fail");
    let f = &j["findings"][0];
    assert_eq!(f["kind"], "compiler-error", "{j}");
    assert_eq!(f["path"], "src/main/java/t/App.java", "{j}");
    assert_eq!(f["line"], 3);
    assert!(
        f["message"].as_str().unwrap().contains("';' expected"),
        "{f}"
    );
    assert!(
        j["reasoning"].as_str().unwrap().contains("compiler error"),
        "{}",
        j["reasoning"]
    );
}

#[test]
fn a_failing_junit_test_is_a_fail_naming_the_test() {
    common::require_maven();
    let ws = tempfile::tempdir().unwrap();
    let failing = "package t;\nimport static org.junit.Assert.*;\nimport org.junit.Test;\npublic class AppTest { @Test public void adds() { assertEquals(4, App.add(1, 2)); } }\n";
    maven_project(ws.path(), APP, failing);
    let (code, r) = judge(ws.path(), &maven_config("PT5M"), &[]);
    assert_eq!(code, 1);
    let reasoning = first(&r)["reasoning"].as_str().unwrap().to_string();
    assert!(
        reasoning.contains("1 test failure(s)") && reasoning.contains("AppTest.adds"),
        "{reasoning}"
    );
}

#[test]
fn a_hanging_build_is_killed_at_its_timeout_and_is_not_charged_to_the_subject() {
    common::require_maven();
    let ws = tempfile::tempdir().unwrap();
    let marker = format!("judgeci-hang-{}", std::process::id());
    let hanging = format!(
        "package t;\nimport org.junit.Test;\npublic class AppTest {{ @Test public void hangs() throws Exception {{ String m = \"{marker}\"; Thread.sleep(600_000); }} }}\n"
    );
    maven_project(ws.path(), APP, &hanging);
    // The marker on the command line lets the test find any survivor of the process group.
    std::fs::write(
        ws.path().join("mvnw"),
        common::MVNW.replace("\"$@\"", &format!("-Dmarker={marker} \"$@\"")),
    )
    .unwrap();
    let start = std::time::Instant::now();
    let (code, r) = judge(ws.path(), &maven_config("PT8S"), &[]);
    let j = first(&r);
    assert_eq!(j["status"], "error", "{j}");
    assert_eq!(j["reasonCode"], "judge_reported");
    assert!(
        j["reasoning"]
            .as_str()
            .unwrap()
            .contains("did not finish within 8s"),
        "{}",
        j["reasoning"]
    );
    assert_eq!(code, 3, "an instrument failure exits 3");
    assert_eq!(r["interpretation"]["reading"], "NOT_ASSESSED");
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    assert_no_process_matching(&marker, "processes survived the timeout");
}

#[test]
fn class_versions_from_real_javac() {
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[
            ("A.java", "public class A {}\n"),
            ("B.java", "public class B {}\n"),
        ],
    );
    let classes = ws.path().join("target/classes");
    for (release, file) in [("17", "A.java"), ("11", "B.java")] {
        let st = Command::new("javac")
            .args(["--release", release, "-d"])
            .arg(&classes)
            .arg(ws.path().join(file))
            .status()
            .unwrap();
        assert!(st.success());
    }
    let (code, r) = judge(
        ws.path(),
        "name: cv\njury:\n  checks:\n    - type: class-version\n      java: 17\n",
        &[],
    );
    assert_eq!(code, 1);
    let j = first(&r);
    assert_eq!(j["status"], "fail");
    let checks = j["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 2);
    assert_eq!(checks[0]["name"], "A.class");
    assert_eq!(checks[0]["passed"], true);
    assert_eq!(checks[1]["passed"], false);
    assert!(
        checks[1]["message"]
            .as_str()
            .unwrap()
            .contains("major version 55 (Java 11)"),
        "{}",
        checks[1]
    );
    std::fs::remove_file(classes.join("B.class")).unwrap();
    let (code, _) = judge(
        ws.path(),
        "name: cv\njury:\n  checks:\n    - type: class-version\n      target: 61\n",
        &[],
    );
    assert_eq!(code, 0);
    // No target anywhere → ABSTAIN, which all-must-pass cannot turn into a decision.
    let (code, r) = judge(
        ws.path(),
        "name: cv\njury:\n  checks:\n    - type: class-version\n",
        &[],
    );
    assert_eq!(first(&r)["status"], "abstain");
    assert_eq!(r["interpretation"]["reading"], "UNDECIDED");
    assert_eq!(code, 0, "fail-on: fail lets UNDECIDED pass");
}

fn coverage_ws(report_name: &str) -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    let xml = std::fs::read_to_string(
        common::repo_root()
            .join("tests/fixtures/jacoco")
            .join(report_name),
    )
    .unwrap();
    write_tree(ws.path(), &[("target/site/jacoco/jacoco.xml", &xml)]);
    ws
}

#[test]
fn coverage_judges_read_jacoco_reports_but_never_pass_on_the_workspace_s_own() {
    // improved.xml: 7 of 8 lines (87.5 %); baseline.xml: 2 of 8 (25 %). A report in the
    // workspace is written by the subject's own processes (attack finding F22c): the judge
    // says what it claims and refuses it as evidence, an ERROR the subject can cause.
    let ws = coverage_ws("improved.xml");
    let (code, r) = judge(
        ws.path(),
        "name: cov\njury:\n  checks:\n    - type: coverage-improvement\n      baseline: 25\n",
        &[],
    );
    assert_eq!(code, 3);
    let j = first(&r);
    assert_eq!(j["status"], "error");
    assert_eq!(j["cause"], "evidence_missing", "{j}");
    let why = j["reasoning"].as_str().unwrap();
    assert!(
        why.contains("refused as evidence") && why.contains("87.5%") && why.contains("would pass"),
        "{why}"
    );

    let ws = coverage_ws("baseline.xml");
    let cfg = "name: cov\nmetadata:\n  baselineCoverage: 87.5\njury:\n  checks:\n    - type: coverage-preservation\n";
    let (code, r) = judge(ws.path(), cfg, &[]);
    assert_eq!(code, 3);
    let why = first(&r)["reasoning"].as_str().unwrap().to_string();
    assert!(
        why.contains("a drop of 62.5 points") && why.contains("would fail"),
        "{why}"
    );
    // A missing report is evidence the run did not produce.
    let empty = tempfile::tempdir().unwrap();
    let (code, r) = judge(empty.path(), cfg, &[]);
    assert_eq!(first(&r)["status"], "error");
    assert_eq!(code, 3);
    // No baseline at all → ABSTAIN.
    let (_, r) = judge(
        ws.path(),
        "name: cov\njury:\n  checks:\n    - type: coverage-preservation\n",
        &[],
    );
    assert_eq!(first(&r)["status"], "abstain");
}

#[test]
fn coverage_baseline_from_the_reference() {
    let ws = coverage_ws("improved.xml");
    let reference = coverage_ws("baseline.xml");
    let cfg = "name: cov\njury:\n  checks:\n    - type: coverage-improvement\n      baseline: reference\n      min: 50\n";
    let (code, r) = judge(
        ws.path(),
        cfg,
        &["--reference", reference.path().to_str().unwrap()],
    );
    // The reference's report is the baseline (25%); the workspace's is refused.
    assert_eq!(code, 3);
    let why = first(&r)["reasoning"].as_str().unwrap().to_string();
    assert!(
        why.contains("against a baseline of 25.0%") && why.contains("refused as evidence"),
        "{why}"
    );
}

#[test]
fn files_and_content() {
    let ws = tempfile::tempdir().unwrap();
    write_tree(ws.path(), &[("hello.txt", "Hello World!"), ("dir/x", "")]);
    let cfg = "name: hello\njury:\n  checks:\n    - type: file-exists\n      path: hello.txt\n    - type: file-content\n      path: hello.txt\n      expected: \"Hello World!\"\n    - type: file-content\n      name: regex\n      path: hello.txt\n      expected: \"W.rld\"\n      match: REGEX\n";
    let (code, r) = judge(ws.path(), cfg, &[]);
    assert_eq!(code, 0, "{}", r["verdict"]);
    let (code, r) = judge(
        ws.path(),
        "name: d\njury:\n  checks:\n    - type: file-exists\n      path: dir\n",
        &[],
    );
    assert_eq!(code, 1);
    assert!(
        first(&r)["reasoning"]
            .as_str()
            .unwrap()
            .contains("found a directory")
    );
}

#[test]
fn external_judges_speak_the_json_protocol() {
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[
            (
                "good.sh",
                "#!/bin/sh\ncat > /dev/null\ntest -f \"$JUDGE_METADATA\" || exit 9\necho 'a log line on standard output'\nprintf '{\"status\":\"pass\",\"score\":0.8,\"reasoning\":\"goal: %s\",\"checks\":[]}' \"$JUDGE_GOAL\" >&\"$JUDGE_ANSWER_FD\"\n",
            ),
            (
                "liar.sh",
                "#!/bin/sh\necho '{\"status\":\"error\",\"reasoning\":\"no code\"}' >&3\necho oops >&2\n",
            ),
            ("crash.sh", "#!/bin/sh\necho broken >&2\nexit 4\n"),
        ],
    );
    for s in ["good.sh", "liar.sh", "crash.sh"] {
        common::chmod_x(&ws.path().join(s));
    }
    let cfg = "name: ext\njury:\n  voting: {strategy: majority, errors: ignore}\n  checks:\n    - {type: external, name: good, run: ./good.sh}\n    - {type: external, name: liar, run: ./liar.sh}\n    - {type: external, name: crash, run: [./crash.sh]}\n";
    let (code, r) = judge(ws.path(), cfg, &[]);
    let by = &r["verdict"]["individualByName"];
    assert_eq!(by["good"]["status"], "pass", "{by}");
    assert_eq!(by["good"]["score"], 0.8);
    assert_eq!(by["liar"]["reasonCode"], "judge_failed");
    assert!(
        by["liar"]["reasoning"].as_str().unwrap().contains("oops"),
        "{}",
        by["liar"]
    );
    assert_eq!(by["crash"]["reasonCode"], "judge_failed");
    assert!(
        by["crash"]["reasoning"]
            .as_str()
            .unwrap()
            .contains("exited with 4")
            && by["crash"]["reasoning"]
                .as_str()
                .unwrap()
                .contains("broken")
    );
    // The errors are ignored by the vote, so the one PASS decides the reading; but a judge
    // that lies or crashes on the subject's files is an ERROR judge-ci did not observe about
    // its own instrument, which no fail-on waives (trust.md 12): the gate exits 3.
    assert_eq!(
        r["interpretation"]["reading"], "ACCEPTED",
        "errors ignored, the one PASS decides the reading"
    );
    assert_eq!(code, 3, "an ERROR the subject can cause fails the gate");
}

#[test]
fn a_command_that_leaves_a_background_child_leaves_no_orphan() {
    let ws = tempfile::tempdir().unwrap();
    let marker = format!("judgeci-orphan-{}", std::process::id());
    let cfg = format!(
        "name: bg\njury:\n  checks:\n    - type: command\n      run: \"sh -c 'sleep 300; echo {marker}' & echo started\"\n"
    );
    let (code, r) = judge(ws.path(), &cfg, &[]);
    assert_eq!(code, 0, "{}", first(&r));
    assert_no_process_matching(&marker, "a background child survived");
}

#[test]
fn task_setup_runs_and_its_failures_are_reported() {
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[(
            "task.yaml",
            "schema: bench.task.v1\nid: t1\ninstruction: write made.txt\nmetadata:\n  targetClassVersion: 61\nsetup:\n  - \"echo made > made.txt\"\n  - \"exit 7\"\n",
        )],
    );
    let (code, r) = judge(
        ws.path(),
        // A command sees what setup made (file checks read the workspace as submitted,
        // before the task's commands ran).
        "name: t\njury:\n  checks:\n    - type: command\n      run: \"test -f made.txt\"\n",
        &["--task", "task.yaml"],
    );
    // The check passes, but a failed task command is an ERROR of the run the subject can
    // cause, which no fail-on waives (trust.md 12).
    assert_eq!(code, 3);
    let cmds = r["task"]["commands"].as_array().unwrap();
    assert_eq!(cmds[0]["exitCode"], 0);
    assert_eq!(cmds[1]["exitCode"], 7);
    assert!(
        cmds[1]["problem"]
            .as_str()
            .unwrap()
            .contains("exited with 7")
    );
}
