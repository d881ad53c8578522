//! Stored `judge-ci.report.v1` reports stay readable after the v2 schema (typed findings and
//! causes on judgments). The fixture in tests/fixtures/report-v1/ was written by judge-ci
//! before v2 (commit 589ab1e, the bundled example's workspace judged by import-diff, ast-diff,
//! pom-diff, a Maven build with compiler errors and a command that timed out; paths replaced
//! by /work/example), together with what that version rendered from it. The current binary
//! must render the same surfaces from it, byte for byte, and analyse it again. The expected
//! markdown and check-run bodies were rendered again, deliberately, when the comment's layout
//! changed (issue 30: the result named once, replacements as one finding, the gap analysis
//! folded); the diff of that change touched only the layout, every v1 finding is still shown.
//! They were rendered again for attack finding NC4: the fixture's build timed out (a limit the
//! change's code can run into), so its headline now says "⛔ Not assessed …, counted against
//! the change (exit 3)" instead of the 🛠️ of judge-ci's own instrument, and the check run's
//! title says the same; only those two lines changed.

use crate::common;

use serde_json::Value;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    common::repo_root()
        .join("tests/fixtures/report-v1")
        .join(name)
}

fn render(format: &str) -> String {
    let report = fixture("report.json");
    let o = common::judge_ci(
        &common::repo_root(),
        &["render", report.to_str().unwrap(), "--format", format],
    );
    assert_eq!(o.status.code(), Some(0), "{format}: {}", common::stderr(&o));
    common::stdout(&o)
}

#[test]
fn the_v1_fixture_is_a_valid_v1_report() {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("report.json")).unwrap()).unwrap();
    assert_eq!(v["schema"], "judge-ci.report.v1");
    common::assert_report_schema_file(&v, "schemas/report.v1.json");
    // Findings in the v1 places: metadata, in both shapes.
    let by_name = &v["verdict"]["compositeAttempts"];
    let text = by_name.to_string();
    assert!(
        text.contains(r#""kind":"compiler-error""#),
        "v1 compiler errors"
    );
    assert!(
        text.contains(r#""kind":"import-forbidden""#),
        "v1 differences"
    );
}

#[test]
fn every_surface_renders_from_a_v1_report_as_v1_rendered_it() {
    for (format, file) in [
        ("markdown", "report.md"),
        ("check-run", "check-run.json"),
        ("junit", "junit.xml"),
    ] {
        let want = std::fs::read_to_string(fixture(file)).unwrap();
        assert_eq!(render(format), want, "{format} differs from v1's {file}");
    }
    // SARIF: the same results (compiler errors from v1 metadata, differences), same
    // fingerprints.
    let want: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("report.sarif")).unwrap()).unwrap();
    let got: Value = serde_json::from_str(&render("sarif")).unwrap();
    assert_eq!(got, want);
    let rules: Vec<&str> = got["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"compiler-error"), "{rules:?}");
}

#[test]
fn diagnose_and_interpret_read_a_v1_report() {
    let report = fixture("report.json");
    let o = common::judge_ci(
        &common::repo_root(),
        &["diagnose", report.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let d: Value = serde_json::from_slice(&o.stdout).unwrap();
    let gap = |judge: &str| {
        d["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["judge"] == judge)
            .cloned()
            .unwrap_or_else(|| panic!("no gap for {judge}: {d:#}"))
    };
    // The typed findings read from v1 metadata drive the namespace rule...
    assert_eq!(gap("import-diff")["rule"], "namespace", "{d:#}");
    assert!(
        gap("maven-build")["evidence"]
            .as_str()
            .unwrap()
            .contains("package jakarta.servlet.http does not exist"),
        "{d:#}"
    );
    assert_eq!(gap("pom-diff")["rule"], "build-file");
    // ...and the timeout v1's command judge stated is the timeout cause.
    let slow = gap("slow");
    assert_eq!(
        (&slow["category"], &slow["rule"]),
        (&Value::from("Environment"), &Value::from("cause")),
        "{slow:#}"
    );
    assert_eq!(d["total"], 5, "{d:#}");

    let o = common::judge_ci(
        &common::repo_root(),
        &["interpret", report.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let i: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(i["reading"], "NOT_ASSESSED", "{i:#}");
}

#[test]
fn a_report_of_an_unknown_schema_is_refused_by_name() {
    let d = tempfile::tempdir().unwrap();
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("report.json")).unwrap()).unwrap();
    v["schema"] = "judge-ci.report.v9".into();
    let p = d.path().join("report.json");
    std::fs::write(&p, v.to_string()).unwrap();
    let o = common::judge_ci(d.path(), &["render", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    let err = common::stderr(&o);
    assert!(
        err.contains("judge-ci.report.v9")
            && err.contains("judge-ci.report.v1")
            && err.contains("judge-ci.report.v2"),
        "{err}"
    );
}
