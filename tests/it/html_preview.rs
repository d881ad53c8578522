//! The HTML preview of the rejected example, rendered by headless Chromium: a screenshot in
//! the test artifact folder (`target/tmp/html-preview/`), and the rendered page checked for the
//! headline, the cascade table and the diff sections.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium(args: &[&str], profile: &Path) -> std::process::Output {
    Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
        ])
        .args([
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium runs (Debian's chromium; .ci/run installs it)")
}

#[test]
fn the_rejected_example_renders_in_a_browser() {
    let ex = tempfile::tempdir().unwrap();
    let ws = common::copy_example(ex.path());
    let out = ex.path().join("out");
    let o = common::judge_ci(&ws, &["--dry-run", "-q", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let page = out.join("report.html");
    let url = format!("file://{}", page.display());
    let artifacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-preview");
    std::fs::create_dir_all(&artifacts).unwrap();
    let shot = artifacts.join("rejected-example.png");
    let _ = std::fs::remove_file(&shot);
    let profile = tempfile::tempdir().unwrap();
    let o = chromium(
        &[
            "--window-size=1200,1600",
            &format!("--screenshot={}", shot.display()),
            &url,
        ],
        profile.path(),
    );
    assert!(
        shot.is_file(),
        "no screenshot: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        std::fs::metadata(&shot).unwrap().len() > 10_000,
        "the screenshot is suspiciously small"
    );
    let o = chromium(&["--dump-dom", &url], profile.path());
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(
        dom.contains("Rejected at tier <code>migration</code> · jakarta-migration"),
        "headline missing: {dom}"
    );
    assert!(
        dom.contains("<table>") && dom.contains("stop on any fail"),
        "table missing"
    );
    for section in ["Import diff", "AST diff", "POM diff"] {
        assert!(dom.contains(section), "{section} missing");
    }
    assert!(dom.contains("import jakarta.servlet.Filter;"));
    assert!(
        dom.contains("Gap analysis") && dom.contains("<svg") && dom.contains("Execution (2, 67%)"),
        "the gap analysis's pie is drawn, not left as mermaid source"
    );
    assert!(!dom.contains("pie showData"));
}
