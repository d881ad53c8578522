//! Build and test evidence the subject's own processes cannot forge (`spec/trust.md` points
//! 11, 12, 17 and 18; issue 24): each attack of the issue is a test here, with real `mvn -o`
//! builds where the attack needs one.

use crate::common;

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
    // Under `fail-on: fail` too: a failed task command is an ERROR the subject can cause,
    // which `fail` does not waive (it waives only judge-ci's own instrument failing).
    let ws = workspace_with_stale_patch(&root.path().join("lenient"), "fail");
    let task = root.path().join("lenient/task.yml");
    let o = common::judge_ci(&ws, &["--task", task.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", common::stderr(&o));
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

/// A compiled annotation processor, as the pull request would commit it: a shutdown hook that
/// deletes the failures from Surefire's reports after Surefire wrote them, then halts the JVM
/// with status 0. Returns the class file's bytes.
fn forging_processor(dir: &Path) -> Vec<u8> {
    let src = dir.join("p/Forge.java");
    std::fs::create_dir_all(src.parent().unwrap()).unwrap();
    std::fs::write(
        &src,
        r#"package p;
import javax.annotation.processing.*;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import java.nio.file.*;
import java.util.Set;
@SupportedAnnotationTypes("*")
public class Forge extends AbstractProcessor {
  static boolean hooked;
  @Override public synchronized void init(ProcessingEnvironment env) {
    super.init(env);
    if (hooked) return;
    hooked = true;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try (var s = Files.walk(Paths.get("target/surefire-reports"))) {
        for (Path p : (Iterable<Path>) s::iterator) {
          if (p.getFileName().toString().startsWith("TEST-")) {
            String x = Files.readString(p);
            x = x.replaceAll("(?s)<failure.*?</failure>", "").replaceAll("failures=\"\\d+\"", "failures=\"0\"");
            Files.writeString(p, x);
          }
        }
      } catch (Exception e) { }
      Runtime.getRuntime().halt(0);
    }));
  }
  @Override public SourceVersion getSupportedSourceVersion() { return SourceVersion.latestSupported(); }
  @Override public boolean process(Set<? extends TypeElement> a, RoundEnvironment r) { return false; }
}
"#,
    )
    .unwrap();
    let st = std::process::Command::new("javac")
        .args(["--release", "17", "-d"])
        .arg(dir)
        .arg(&src)
        .status()
        .expect("javac runs");
    assert!(st.success(), "javac compiles the processor");
    std::fs::read(dir.join("p/Forge.class")).unwrap()
}

const APP: &str =
    "package t;\npublic class App {\n  public static int add(int a, int b) { return a + b; }\n}\n";
const WRONG_APP: &str =
    "package t;\npublic class App {\n  public static int add(int a, int b) { return a - b; }\n}\n";
const APP_TEST: &str = "package t;\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\npublic class AppTest {\n  @Test public void adds() { assertEquals(3, App.add(1, 2)); }\n  @Test public void addsZero() { assertEquals(1, App.add(1, 0)); }\n}\n";

/// A reference and a pull request (with a wrong `App.add`) under `root`; the config builds
/// with `mvn -o test`, restores `src/test/**`, and takes `protected-action` and `fail-on`
/// as given.
fn build_task(root: &Path, protected_action: &str) -> std::path::PathBuf {
    common::require_maven();
    let (ws, reference) = (root.join("ws"), root.join("reference"));
    common::maven_project(&reference, APP, APP_TEST);
    common::maven_project(&ws, WRONG_APP, APP_TEST);
    let config = format!(
        "schema: judge-ci.v1\nname: t\nversion: \"1\"\nreference:\n  path: ../reference\nrestore: [\"src/test/**\"]\nprotected-action: {protected_action}\njury:\n  tiers:\n    - name: build\n      policy: FINAL_TIER\n      checks:\n        - type: maven-build\n          goals: [test]\n          timeout: PT3M\nreport:\n  fail-on: error\n"
    );
    std::fs::write(ws.join("judge-ci.yml"), config).unwrap();
    ws
}

#[test]
fn an_annotation_processor_under_resources_is_build_code_added_and_fails_under_protected_action_fail()
 {
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "fail");
    let class = forging_processor(&root.path().join("classes"));
    std::fs::create_dir_all(ws.join("src/main/resources/p")).unwrap();
    std::fs::write(ws.join("src/main/resources/p/Forge.class"), class).unwrap();
    common::write_tree(
        &ws,
        &[(
            "src/main/resources/META-INF/services/javax.annotation.processing.Processor",
            "p.Forge\n",
        )],
    );
    let o = common::judge_ci(&ws, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let report = common::report(&ws.join("judge-ci-out"));
    common::assert_report_schema(&report);
    let added: Vec<String> = report["trust"]["buildCodeAdded"]
        .as_array()
        .expect("buildCodeAdded listed")
        .iter()
        .map(|f| f["path"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        added
            .iter()
            .any(|p| p.ends_with("javax.annotation.processing.Processor"))
            && added.iter().any(|p| p.ends_with("p/Forge.class")),
        "{added:?}"
    );
    let seat = report["verdict"]["individual"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["metadata"]["judge"] == "build-code-added" || j["name"] == "build-code-added")
        .cloned();
    let names: Vec<String> = report["tiers"][0]["judges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| format!("{}={}", j["name"], j["status"]))
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n.contains("build-code-added") && n.contains("fail")),
        "{names:?} {seat:?}"
    );
}

#[test]
fn a_made_up_dependency_spelled_through_a_property_is_the_pull_requests_fail() {
    // Attack 4: `${absent.group}` hid the artifact from a rule that compared POM text, so the
    // build became an environment ERROR and the lenient tier accepted. Resolution is judged
    // on the effective model before the build: only the pull request's POM needs the artifact.
    let root = tempfile::tempdir().unwrap();
    common::require_maven();
    let (ws, reference) = (root.path().join("ws"), root.path().join("reference"));
    common::maven_project(&reference, APP, APP_TEST);
    common::maven_project(&ws, APP, APP_TEST);
    let pom = common::POM
        .replace(
            "<properties>",
            "<properties>\n    <absent.group>org.example.absent</absent.group>",
        )
        .replace(
            "</dependencies>",
            "  <dependency><groupId>${absent.group}</groupId><artifactId>nowhere</artifactId><version>9.9</version></dependency>\n  </dependencies>",
        );
    std::fs::write(ws.join("pom.xml"), pom).unwrap();
    std::fs::write(
        ws.join("judge-ci.yml"),
        "schema: judge-ci.v1\nname: t\nversion: \"1\"\nreference:\n  path: ../reference\njury:\n  tiers:\n    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {type: maven-build, goals: [compile], timeout: PT3M}\n    - name: lenient\n      policy: FINAL_TIER\n      checks:\n        - {type: file-exists, path: pom.xml}\nreport:\n  fail-on: fail\n",
    )
    .unwrap();
    let o = common::judge_ci(&ws, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let report = common::report(&ws.join("judge-ci-out"));
    let j = &report["verdict"]["individualByName"]["maven-build"];
    assert_eq!(j["status"], "fail", "{j:#}");
    assert!(
        j["reasoning"].as_str().is_some_and(
            |r| r.contains("org.example.absent:nowhere:9.9") && r.contains("introduced")
        ),
        "{j:#}"
    );
    assert_eq!(report["interpretation"]["decidedBy"], "build");
}

/// The tier's judgments by name, `name=status`.
fn seats(report: &serde_json::Value) -> Vec<String> {
    report["verdict"]["individual"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            format!(
                "{}={}",
                j["name"].as_str().unwrap_or("?"),
                j["status"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

/// Runs judge-ci in `ws` and returns the exit code, the report and the maven-build judgment.
fn judge_build(ws: &Path) -> (Option<i32>, serde_json::Value, serde_json::Value) {
    let o = common::judge_ci(ws, &[]);
    let report = common::report(&ws.join("judge-ci-out"));
    let build = report["verdict"]["individualByName"]["maven-build"].clone();
    (o.status.code(), report, build)
}

#[test]
fn a_processor_whose_shutdown_hook_forges_surefire_and_halts_0_fails_on_what_judge_ci_observed() {
    // Attack 1 with protected-action: report (the build-code finding is only reported): Maven
    // exits 0 and Surefire's XML says every test passed, but judge-ci's own run of the
    // restored tests saw them fail.
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
    let class = forging_processor(&root.path().join("classes"));
    std::fs::create_dir_all(ws.join("src/main/resources/p")).unwrap();
    std::fs::write(ws.join("src/main/resources/p/Forge.class"), class).unwrap();
    common::write_tree(
        &ws,
        &[(
            "src/main/resources/META-INF/services/javax.annotation.processing.Processor",
            "p.Forge\n",
        )],
    );
    let (code, report, build) = judge_build(&ws);
    assert_eq!(code, Some(1), "{:?} {build:#}", seats(&report));
    assert_eq!(build["status"], "fail", "{build:#}");
    assert_eq!(
        build["metadata"]["exitCode"], 0,
        "the forgery worked on Maven: {build:#}"
    );
    let why = build["reasoning"].as_str().unwrap();
    assert!(
        why.contains("judge-ci's own run of the trusted tests"),
        "{why}"
    );
    let sets = &build["metadata"]["tests"];
    assert_eq!(
        sets["expected"].as_array().map(Vec::len),
        Some(2),
        "{sets:#}"
    );
    // The graded tests are in the report (its schema), the comment and JUnit.
    common::assert_report_schema(&report);
    assert_eq!(report["tests"]["baseRun"], false, "{report:#}");
    assert_eq!(report["tests"]["expected"][0]["name"], "t.AppTest#adds");
    assert_eq!(
        report["tests"]["expected"][0]["reference"]["outcome"],
        "passed"
    );
    assert_ne!(
        report["tests"]["expected"][0]["subject"]["outcome"],
        "passed"
    );
    let md = std::fs::read_to_string(ws.join("judge-ci-out/report.md")).unwrap();
    assert!(
        md.contains("Tests judge-ci ran itself: 1 of 2 charged test(s) not passing")
            && md.contains("| EXPECTED | `t.AppTest#adds`"),
        "{md}"
    );
    let junit = std::fs::read_to_string(ws.join("judge-ci-out/junit.xml")).unwrap();
    assert!(
        junit.contains(r#"<testsuite name="judge-ci.tests" tests="2" failures="1""#)
            && junit.contains(r#"<testcase classname="t.AppTest" name="adds">"#)
            && junit.contains(r#"<property name="set" value="EXPECTED"/>"#),
        "{junit}"
    );
    assert!(
        report["trust"]["buildCodeAdded"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "reported, not failed: {report:#}"
    );
    // Surefire's forged report disagrees with what judge-ci saw: a finding naming both.
    let findings = build["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["actual"]
            .as_str()
            .is_some_and(|a| a.contains("(Surefire's report)"))
            && f["expected"]
                .as_str()
                .is_some_and(|e| e.contains("observed by judge-ci"))),
        "{findings:#?}\nreports: {:?}",
        std::fs::read_dir(ws.join("target/surefire-reports")).map(|d| d
            .filter_map(Result::ok)
            .map(|e| (
                e.file_name(),
                std::fs::read_to_string(e.path()).unwrap_or_default()
            ))
            .collect::<Vec<_>>())
    );
}

#[test]
fn surefire_reports_a_test_writes_decide_nothing() {
    // Attack 2: a test of the pull request's own writes TEST-*.xml naming the restored tests
    // as passed. The restored tests are what judge-ci runs; the forged file is only a
    // cross-check, and it disagrees.
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
    let forger = r#"package t;
import org.junit.Test;
public class ZForgeTest {
  @Test public void forge() throws Exception {
    java.nio.file.Path d = java.nio.file.Paths.get("target/surefire-reports");
    java.nio.file.Files.createDirectories(d);
    java.nio.file.Files.writeString(d.resolve("TEST-t.AppTest.xml"),
      "<testsuite name=\"t.AppTest\" tests=\"2\" failures=\"0\"><testcase classname=\"t.AppTest\" name=\"adds\"/><testcase classname=\"t.AppTest\" name=\"addsZero\"/></testsuite>");
    Runtime.getRuntime().halt(0);
  }
}
"#;
    // restore: removes the test file (the reference has none such), so the pull request
    // puts the same forgery in main code too: App's static initialiser writes the report
    // and halts the JVM with 0 when the tests first use it.
    let app = r#"package t;
public class App {
  static {
    try {
      java.nio.file.Path d = java.nio.file.Paths.get("target/surefire-reports");
      java.nio.file.Files.createDirectories(d);
      java.nio.file.Files.writeString(d.resolve("TEST-t.AppTest.xml"),
        "<testsuite name=\"t.AppTest\" tests=\"2\" failures=\"0\"><testcase classname=\"t.AppTest\" name=\"adds\"/><testcase classname=\"t.AppTest\" name=\"addsZero\"/></testsuite>");
    } catch (Exception e) { }
    Runtime.getRuntime().halt(0);
  }
  public static int add(int a, int b) { return a - b; }
}
"#;
    common::write_tree(
        &ws,
        &[
            ("src/main/java/t/App.java", app),
            ("src/test/java/t/ZForgeTest.java", forger),
        ],
    );
    let (code, report, build) = judge_build(&ws);
    assert_eq!(code, Some(1), "{:?} {build:#}", seats(&report));
    assert_eq!(build["status"], "fail", "{build:#}");
    let removed = report["trust"]["restoreRemoved"].to_string();
    assert!(removed.contains("ZForgeTest.java"), "{removed}");
    assert_eq!(
        build["metadata"]["exitCode"], 0,
        "the forgery worked on Maven: {build:#}"
    );
    let not_passing: Vec<String> = build["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["kind"] == "test-failing" || f["kind"] == "test-missing")
        .map(|f| f["actual"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        not_passing
            .iter()
            .any(|a| a.starts_with("t.AppTest#adds: ")),
        "{not_passing:#?}"
    );
}

#[test]
fn a_test_source_folder_pointed_at_an_empty_one_runs_no_test_and_fails() {
    // Attack 3: `<testSourceDirectory>` at an empty folder: Maven runs no test and exits 0.
    // pom-diff sees the <build> change, build-code-added names it, and judge-ci's oracle finds
    // the trusted tests not compiled, so not observed finishing.
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
    std::fs::write(ws.join("src/main/java/t/App.java"), APP).unwrap();
    let pom = common::POM.replace(
        "</project>",
        "  <build><testSourceDirectory>src/test/none</testSourceDirectory></build>\n</project>",
    );
    std::fs::write(ws.join("pom.xml"), pom).unwrap();
    let (code, report, build) = judge_build(&ws);
    assert_eq!(code, Some(1), "{:?} {build:#}", seats(&report));
    assert_eq!(
        build["metadata"]["exitCode"], 0,
        "Maven itself passed: {build:#}"
    );
    let missing = build["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "test-missing")
        .count();
    assert_eq!(missing, 2, "{build:#}");
    assert!(
        report["trust"]["buildCodeAdded"]
            .to_string()
            .contains("testSourceDirectory"),
        "{report:#}"
    );
}

#[test]
fn an_honest_change_passes_on_what_judge_ci_observed() {
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "fail");
    std::fs::write(ws.join("src/main/java/t/App.java"), APP).unwrap();
    let (code, report, build) = judge_build(&ws);
    assert_eq!(code, Some(0), "{:?} {build:#}", seats(&report));
    assert_eq!(build["status"], "pass", "{build:#}");
    assert!(
        build["reasoning"]
            .as_str()
            .unwrap()
            .contains("judge-ci observed all 2 trusted test(s) pass"),
        "{build:#}"
    );
}
