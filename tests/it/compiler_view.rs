//! Source is judged as the compiler reads it (trust.md point 14, issue 17): the two attacks
//! that once passed the bundled example's structural tier, run end to end through the binary
//! with the example's own config. Each test first proves the attack is real (javac or an
//! offline Maven build compiles it as claimed), then that judge-ci rejects it.

use crate::common;

use common::{judge_ci, report, stderr, stdout};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const SERVLET4: &str =
    "/usr/share/maven-repo/javax/servlet/javax.servlet-api/4.0.1/javax.servlet-api-4.0.1.jar";
const SERVLET5: &str =
    "/usr/share/maven-repo/jakarta/servlet/jakarta.servlet-api/5.0.0/jakarta.servlet-api-5.0.0.jar";
const PKG: &str = "src/main/java/com/example/greeting";

/// The example with a workspace that is the reference (a finished migration) plus `changes`
/// (fixture file → workspace path), keeping the example's `judge-ci.yml` and `mvnw`.
fn attack(changes: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let example = common::repo_root().join("examples/jakarta-migration");
    common::copy_tree(&example.join("reference"), &tmp.path().join("reference"));
    let ws = tmp.path().join("workspace");
    common::copy_tree(&example.join("reference"), &ws);
    for f in ["judge-ci.yml", "mvnw"] {
        std::fs::copy(example.join("workspace").join(f), ws.join(f)).unwrap();
    }
    for (fixture, to) in changes {
        std::fs::copy(
            common::repo_root()
                .join("tests/fixtures/attacks")
                .join(fixture),
            ws.join(to),
        )
        .unwrap();
    }
    tmp
}

fn findings(r: &Value, section: &str) -> Vec<String> {
    r["diffs"][section]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| {
                    format!(
                        "{}:{}:{}",
                        d["kind"].as_str().unwrap_or(""),
                        d["path"].as_str().unwrap_or(""),
                        d["line"]
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn javap(classes: &Path, class: &str) -> String {
    let o = Command::new("javap")
        .arg("-cp")
        .arg(classes)
        .arg(class)
        .output()
        .expect("javap runs");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Compiles the workspace's GreetingServlet with javac 17 (both servlet APIs on the class path)
/// and checks that the class tests `instanceof javax.servlet.Filter`.
fn assert_servlet_uses_javax_filter(ws: &Path) {
    let out = tempfile::tempdir().unwrap();
    let o = Command::new("javac")
        .arg("-d")
        .arg(out.path())
        .arg("-cp")
        .arg(format!("{SERVLET4}:{SERVLET5}"))
        .arg(ws.join(PKG).join("GreetingServlet.java"))
        .arg(ws.join(PKG).join("Greeter.java"))
        .output()
        .expect("javac runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c = Command::new("javap")
        .arg("-c")
        .arg("-cp")
        .arg(out.path())
        .arg("com.example.greeting.GreetingServlet")
        .output()
        .unwrap();
    let code = String::from_utf8_lossy(&c.stdout);
    assert!(
        code.lines()
            .any(|l| l.contains("instanceof") && l.contains("class javax/servlet/Filter")),
        "the class tests instanceof javax.servlet.Filter:\n{code}"
    );
}

#[test]
fn an_import_spelled_with_escapes_is_forbidden_at_its_original_line() {
    let (_tmp, r) = rejected_servlet("escaped-import/GreetingServlet.java");
    let file = format!("{PKG}/GreetingServlet.java");
    let imports = findings(&r, "imports");
    assert_eq!(
        imports,
        [
            format!("import-forbidden:{file}:6"),
            format!("unicode-escape:{file}:6"),
        ],
        "{imports:?}"
    );
}

#[test]
fn a_supertype_spelled_with_unicode_escapes_and_a_default_profile_are_rejected() {
    common::require_maven();
    let tmp = attack(&[
        (
            "unicode-escape/HealthFilter.java",
            &format!("{PKG}/HealthFilter.java"),
        ),
        ("unicode-escape/pom.xml", "pom.xml"),
    ]);
    let ws = tmp.path().join("workspace");

    // The attack is real: Maven activates the `&#x6A;avax` profile, javac reads the escapes,
    // the tests pass, and the example's `grep javax\.servlet` finds nothing.
    let build = tempfile::tempdir().unwrap();
    common::copy_tree(&ws, &build.path().join("p"));
    let p = build.path().join("p");
    let o = Command::new("./mvnw")
        .arg("test")
        .current_dir(&p)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    let class = javap(
        &p.join("target/classes"),
        "com.example.greeting.HealthFilter",
    );
    assert!(
        class.contains("implements javax.servlet.Filter")
            && class.contains("doFilter(javax.servlet.ServletRequest"),
        "{class}"
    );
    let grep = Command::new("grep")
        .args([
            "-rn",
            "javax\\.servlet",
            "--include=*.java",
            "--include=pom.xml",
            ".",
        ])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert_eq!(
        grep.status.code(),
        Some(1),
        "no literal javax.servlet anywhere"
    );

    // judge-ci reads what javac and Maven read, and rejects at the structural tier.
    let o = judge_ci(&ws, &["--dry-run"]);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stderr(&o), stdout(&o));
    let r = report(&ws.join("judge-ci-out"));
    common::assert_report_schema(&r);
    assert_eq!(r["interpretation"]["decidedBy"], "migration");
    let file = format!("{PKG}/HealthFilter.java");
    let ast = findings(&r, "ast");
    for expected in [
        format!("unicode-escape:{file}:11"),
        format!("unicode-escape:{file}:16"),
        format!("supertype-changed:{file}:11"),
        format!("method-unexpected:{file}:16"),
    ] {
        assert!(ast.contains(&expected), "{expected} not in {ast:?}");
    }
    let supertype = r["diffs"]["ast"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "supertype-changed")
        .unwrap();
    assert_eq!(supertype["actual"], "HealthFilter : javax.servlet.Filter");
    let imports = findings(&r, "imports");
    assert!(
        imports.contains(&format!("unicode-escape:{file}:11")),
        "{imports:?}"
    );
    let pom = findings(&r, "pom");
    // The default profile (line 32) is one only the build machine decides: compared whole
    // as well (attack findings F7-1, F7-4).
    assert_eq!(
        pom,
        [
            "profile-changed:pom.xml:32",
            "dependency-unexpected:pom.xml:36"
        ],
        "{pom:?}"
    );
    let dep = r["diffs"]["pom"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "dependency-unexpected")
        .unwrap();
    assert_eq!(
        dep["actual"],
        "javax.servlet:javax.servlet-api:4.0.1 (provided)"
    );
    let md = stdout(&o);
    assert!(md.contains("unicode-escape"), "{md}");
}

/// Runs the example's jury on the workspace with `fixture` as its GreetingServlet, after
/// proving the attack real (javac compiles it and the class uses javax.servlet.Filter), and
/// returns the report of the rejection (decided by the example's migration tier).
fn rejected_servlet(fixture: &str) -> (tempfile::TempDir, Value) {
    let tmp = attack(&[(fixture, &format!("{PKG}/GreetingServlet.java"))]);
    let ws = tmp.path().join("workspace");
    assert_servlet_uses_javax_filter(&ws);
    let o = judge_ci(&ws, &["--dry-run"]);
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stderr(&o), stdout(&o));
    let r = report(&ws.join("judge-ci-out"));
    assert_eq!(r["interpretation"]["decidedBy"], "migration");
    (tmp, r)
}

#[test]
fn an_import_after_an_empty_declaration_is_forbidden() {
    let (_tmp, r) = rejected_servlet("empty-declaration/GreetingServlet.java");
    let imports = findings(&r, "imports");
    assert_eq!(
        imports,
        [format!("import-forbidden:{PKG}/GreetingServlet.java:7")],
        "{imports:?}"
    );
    assert_eq!(
        r["diffs"]["imports"][0]["actual"],
        "import javax.servlet.Filter;"
    );
}

/// S8-6: a forbidden API named in full in a body, without an import (and split by layout and
/// a comment, as javac allows), is still forbidden.
#[test]
fn a_forbidden_name_spelled_in_full_without_an_import_is_forbidden() {
    let (_tmp, r) = rejected_servlet("qualified-name/GreetingServlet.java");
    let imports = findings(&r, "imports");
    assert_eq!(
        imports,
        [format!("reference-forbidden:{PKG}/GreetingServlet.java:14")],
        "{imports:?}"
    );
    assert_eq!(r["diffs"]["imports"][0]["actual"], "javax.servlet.Filter");
}

/// An import whose name a line break splits (`import javax\n    .servlet.Filter;`) is read
/// as javac reads it, not skipped by the cheap filter that looks for the pattern's text.
#[test]
fn an_import_split_across_lines_is_forbidden() {
    let (_tmp, r) = rejected_servlet("spaced-import/GreetingServlet.java");
    let imports = findings(&r, "imports");
    assert_eq!(
        imports,
        [format!("import-forbidden:{PKG}/GreetingServlet.java:7")],
        "{imports:?}"
    );
}
