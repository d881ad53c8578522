//! The bundled example, exactly as the README runs it: a half-done javax → jakarta migration
//! is rejected at the migration tier; the reference itself passes every tier, with a real
//! offline Maven build.

use crate::common;

use common::{judge_ci, report, stderr, stdout};
use std::path::Path;

/// Copies the example into a temporary folder (builds write `target/`).
fn example() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(
        &common::repo_root().join("examples/jakarta-migration"),
        tmp.path(),
    );
    tmp
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_name() == "target" || e.file_name() == "judge-ci-out" {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

#[test]
fn the_half_migrated_workspace_is_rejected_at_the_migration_tier() {
    let ex = example();
    let ws = ex.path().join("workspace");
    let o = judge_ci(&ws, &["--dry-run"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(
        md.starts_with("<!-- judge-ci:v1 key=jakarta-migration -->"),
        "{md}"
    );
    assert!(
        md.contains("## ❌ Rejected at tier `migration` · jakarta-migration"),
        "{md}"
    );
    // Each fact once, in a reviewer's words: the result is named once, a judge whose name is
    // its type is not named twice, and a javax → jakarta replacement is one finding.
    assert_eq!(md.matches("Rejected").count(), 1, "{md}");
    assert_eq!(md.to_lowercase().matches("rejected").count(), 1, "{md}");
    assert!(!md.contains("`import-diff` (import-diff)"), "{md}");
    assert!(
        md.contains(
            "- `javax.servlet.Filter → jakarta.servlet.Filter` at `src/main/java/com/example/greeting/HealthFilter.java:3`"
        ),
        "{md}"
    );
    for word in ["subject", "reading", "requirement"] {
        assert!(!md.to_lowercase().contains(word), "{word}: {md}");
    }
    // The gap analysis is folded in the comment.
    assert!(
        md.contains(
            "<details><summary>Why the change fell short, by category (gap analysis)</summary>"
        ),
        "{md}"
    );
    assert!(
        md.contains("| build | stop on any fail | not reached |"),
        "{md}"
    );
    // What a reviewer sees: the structural differences, pinned as a snapshot.
    let start = md
        .find("<details><summary>Import diff")
        .expect("an import diff section");
    let end = md
        .find("<details><summary>All judgments")
        .expect("the judgments section");
    insta::assert_snapshot!("example_diff_sections", &md[start..end]);
    let r = report(&ws.join("judge-ci-out"));
    common::assert_report_schema(&r);
    assert_eq!(r["outcome"]["exitCode"], 1);
    assert_eq!(r["interpretation"]["decidedBy"], "migration");
    assert_eq!(r["tiers"][1]["ran"], false);
    let kinds = |k: &str| -> Vec<String> {
        r["diffs"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| format!("{}:{}", d["kind"].as_str().unwrap(), d["line"]))
            .collect()
    };
    assert_eq!(kinds("ast"), ["annotation-missing:12"]);
    assert_eq!(
        kinds("pom"),
        ["dependency-missing:null", "dependency-unexpected:17"]
    );
    assert_eq!(
        kinds("imports")
            .iter()
            .filter(|k| k.starts_with("import-forbidden"))
            .count(),
        5
    );
    let saved_md = std::fs::read_to_string(ws.join("judge-ci-out/report.md")).unwrap();
    assert_eq!(saved_md, md, "report.md holds what was printed");
}

#[test]
fn the_reference_passes_every_tier_with_a_real_build() {
    common::require_maven();
    let ex = example();
    let ws = ex.path().join("workspace");
    let out = ex.path().join("out");
    let o = judge_ci(
        &ws,
        &[
            "--dry-run",
            "--workspace",
            "../reference",
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stderr(&o), stdout(&o));
    let printed: serde_json::Value =
        serde_json::from_str(&stdout(&o)).expect("--format json prints the report");
    let r = report(&out);
    assert_eq!(printed["verdict"], r["verdict"]);
    common::assert_report_schema(&r);
    assert_eq!(r["interpretation"]["reading"], "ACCEPTED");
    let ran: Vec<bool> = r["tiers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["ran"].as_bool().unwrap())
        .collect();
    assert_eq!(ran, [true, true, true]);
    let build = &r["tiers"][1]["judges"];
    assert_eq!(build[0]["type"], "maven-build");
    assert_eq!(build[0]["status"], "pass");
    assert_eq!(build[1]["status"], "pass", "class files are Java 17");
}
