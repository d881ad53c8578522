//! Build and test evidence the subject's own processes cannot forge (`spec/trust.md` points
//! 11, 12, 17 and 18; issue 24): each attack of the issue is a test here, with real `mvn -o`
//! builds where the attack needs one.

mod common;

use std::path::Path;

/// A config whose only tier accepts when `src/A.java` exists, with `fail-on` as given.
fn accepting_config(fail_on: &str) -> String {
    format!(
        "schema: judge-ci.v1\nname: t\nversion: \"1\"\njury:\n  tiers:\n    - name: files\n      policy: FINAL_TIER\n      checks:\n        - {{type: file-exists, path: src/A.java}}\nreport:\n  fail-on: {fail_on}\n"
    )
}

/// A git repository whose hidden-tests patch no longer applies: the pull request edited the
/// file the patch changes.
fn workspace_with_stale_patch(root: &Path, fail_on: &str) -> std::path::PathBuf {
    let ws = root.join("ws");
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", &accepting_config(fail_on)),
            ("src/A.java", "class A {}\n"),
            (
                "src/ATest.java",
                "class ATest { /* edited by the pull request */ }\n",
            ),
        ],
    );
    std::fs::write(
        root.join("hidden.patch"),
        "--- a/src/ATest.java\n+++ b/src/ATest.java\n@@ -1 +1 @@\n-class ATest {}\n+class ATest { void hidden() {} }\n",
    )
    .unwrap();
    common::git(&ws, &["init", "-q"]);
    common::git(&ws, &["add", "-A"]);
    common::git(&ws, &["commit", "-qm", "pr"]);
    std::fs::write(
        root.join("task.yml"),
        format!(
            "schema: bench.task.v1\nid: t\ninstruction: do it\npost:\n  - git apply {}\n",
            root.join("hidden.patch").display()
        ),
    )
    .unwrap();
    ws
}

#[test]
fn a_failed_task_command_is_an_error_of_the_run_and_fails_the_gate_under_fail_on_error() {
    let root = tempfile::tempdir().unwrap();
    let ws = workspace_with_stale_patch(root.path(), "error");
    let task = root.path().join("task.yml");
    let o = common::judge_ci(&ws, &["--task", task.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", common::stderr(&o));
    let report = common::report(&ws.join("judge-ci-out"));
    let errored = &report["outcome"]["erroredTiers"];
    assert_eq!(errored[0]["tier"], "task commands", "{report}");
    assert!(
        errored[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("post `git apply") && r.contains("exited with")),
        "{errored}"
    );
    let md = std::fs::read_to_string(ws.join("judge-ci-out/report.md")).unwrap();
    assert!(!md.contains("judged anyway"), "{md}");
    assert!(md.contains("the task commands failed"), "{md}");
    // Under `fail-on: fail` the reading stands, and the report still says it loudly.
    let ws = workspace_with_stale_patch(&root.path().join("lenient"), "fail");
    let task = root.path().join("lenient/task.yml");
    let o = common::judge_ci(&ws, &["--task", task.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let report = common::report(&ws.join("judge-ci-out"));
    assert!(
        report["outcome"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("the task commands failed")),
        "{report}"
    );
}

#[test]
fn restore_makes_the_restored_globs_exactly_the_references_and_lists_what_it_removed() {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    let config = "schema: judge-ci.v1\nname: t\nversion: \"1\"\nreference:\n  path: ../reference\nrestore: [\"src/test/**\"]\njury:\n  tiers:\n    - name: files\n      policy: FINAL_TIER\n      checks:\n        - {type: file-exists, path: src/test/java/t/AppTest.java}\n";
    let added = [
        "src/test/resources/META-INF/services/org.junit.platform.launcher.TestExecutionListener",
        "src/test/resources/junit-platform.properties",
        "src/test/java/t/Forger.java",
    ];
    let mut files = vec![
        ("judge-ci.yml", config),
        ("src/test/java/t/AppTest.java", "weakened"),
        ("src/main/java/t/App.java", "main"),
    ];
    files.extend(added.iter().map(|p| (*p, "added by the pull request")));
    common::write_tree(&ws, &files);
    common::write_tree(
        &root.path().join("reference"),
        &[("src/test/java/t/AppTest.java", "strict")],
    );
    let o = common::judge_ci(&ws, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let report = common::report(&ws.join("judge-ci-out"));
    common::assert_report_schema(&report);
    let removed: Vec<&str> = report["trust"]["restoreRemoved"]
        .as_array()
        .expect("restoreRemoved listed")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    let mut expected = added.to_vec();
    expected.sort();
    assert_eq!(removed, expected, "{report}");
    for p in added {
        assert!(!ws.join(p).exists(), "{p} removed");
    }
    assert!(ws.join("src/main/java/t/App.java").exists());
    let md = std::fs::read_to_string(ws.join("judge-ci-out/report.md")).unwrap();
    assert!(md.contains("Removed before judging"), "{md}");
}
