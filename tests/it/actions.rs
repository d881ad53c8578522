//! judge-ci in a simulated GitHub Actions runner: the event payload names the PR and its head
//! commit, the job summary and step outputs are written as files, findings become workflow
//! commands, and the exit code still follows the verdict. Nothing is posted.

use crate::common;

use std::process::Command;

#[test]
fn a_pull_request_run_leaves_summary_outputs_and_annotations() {
    let ex = tempfile::tempdir().unwrap();
    let ws = common::copy_example(ex.path());
    let runner = tempfile::tempdir().unwrap();
    let summary = runner.path().join("summary.md");
    let outputs = runner.path().join("output.txt");
    std::fs::write(&summary, "earlier step\n").unwrap();
    // The workspace is a checkout whose base commit holds the config (read from there).
    let base = common::commit_all(&ws, "base");
    // The checkout is the pull request's head (judge-ci refuses any other tree under its name).
    common::git(
        &ws,
        &[
            "-c",
            "user.email=a@b",
            "-c",
            "user.name=a",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "the pull request",
        ],
    );
    let head = common::git(&ws, &["rev-parse", "HEAD"]).trim().to_string();
    let event = common::pull_request_event(runner.path(), &base, &head);
    let o = Command::new(env!("CARGO_BIN_EXE_judge-ci"))
        .args([
            "--dry-run",
            "--out",
            runner.path().join("out").to_str().unwrap(),
        ])
        .current_dir(&ws)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "Codertocat/Hello-World")
        .env("GITHUB_SHA", "ffffffffffffffffffffffffffffffffffffffff")
        .env("GITHUB_SERVER_URL", "https://github.com")
        // GITHUB_WORKSPACE is ex/; the repository (its .git) is the judged folder workspace/,
        // so finding paths are already repository-relative.
        .env("GITHUB_WORKSPACE", ex.path())
        .env("GITHUB_RUN_ID", "1234")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_TOKEN", "ghs_SENTINELTOKEN0123456789")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the exit code follows the verdict: {stderr}"
    );
    assert!(
        stderr.contains("::group::judge-ci tier migration") && stderr.contains("::endgroup::"),
        "{stderr}"
    );
    assert!(stderr.contains("dry run: nothing posted"), "{stderr}");

    let s = std::fs::read_to_string(&summary).unwrap();
    assert!(
        s.starts_with("earlier step\n")
            && s.contains("❌ Rejected at tier `migration` · jakarta-migration"),
        "the summary is appended"
    );
    assert!(
        s.contains("[run](https://github.com/Codertocat/Hello-World/actions/runs/1234)"),
        "{s}"
    );

    // Findings lead the explanation and link to their line in the PR's head commit.
    let blob = format!("https://github.com/Codertocat/Hello-World/blob/{head}");
    for link in [
        format!(
            "[`src/main/java/com/example/greeting/HealthFilter.java:3`]({blob}/src/main/java/com/example/greeting/HealthFilter.java#L3)"
        ),
        format!(
            "[`src/main/java/com/example/greeting/GreetingServlet.java:12`]({blob}/src/main/java/com/example/greeting/GreetingServlet.java#L12)"
        ),
        format!("[`pom.xml:17`]({blob}/pom.xml#L17)"),
    ] {
        assert!(s.contains(&link), "the summary lacks {link}:\n{s}");
    }
    let why = &s[s.find("### Why").unwrap()..];
    let why = &why[..why.find("### Gap analysis").unwrap()];
    assert!(why.contains("HealthFilter.java:3"), "{why}");
    assert!(
        !why.contains("file(s) match"),
        "the counts are said once, in the diff sections: {why}"
    );
    assert!(!s.contains("The differences are listed in the diff sections below"));
    let sarif: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(runner.path().join("out/report.sarif")).unwrap(),
    )
    .unwrap();
    let loc =
        &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(loc["uriBaseId"], "%SRCROOT%");
    assert_eq!(
        loc["uri"], "src/main/java/com/example/greeting/HealthFilter.java",
        "repository-relative: {loc}"
    );

    let out = common::read_outputs(&outputs);
    assert_eq!(out["reading"], "REJECTED");
    assert_eq!(out["verdict"], "fail");
    assert_eq!(out["failed-tier"], "migration");
    assert_eq!(
        out["gap-categories"], "Execution:2,Knowledge:1",
        "the gap analysis: ast-diff and pom-diff are execution, the javax import knowledge"
    );
    assert!(out["report-path"].ends_with("report.json"));
    assert_eq!(out["gate"], "fail");
    assert!(!out["fail-on"].is_empty(), "the rule in force is named");
    assert!(
        out["gate-reason"].contains(&format!("fail-on is {}:", out["fail-on"]))
            && out["gate-reason"].contains("so the gate fails (exit 1)"),
        "{}",
        out["gate-reason"]
    );

    let errors = stdout.lines().filter(|l| l.starts_with("::error ")).count();
    let warnings = stdout
        .lines()
        .filter(|l| l.starts_with("::warning "))
        .count();
    assert!(
        (5..=10).contains(&errors),
        "forbidden imports are errors: {stdout}"
    );
    assert!(warnings <= 10);
    assert!(
        stdout
            .contains("::error file=src/main/java/com/example/greeting/HealthFilter.java,line=3,"),
        "{stdout}"
    );

    let report = common::report(&runner.path().join("out"));
    assert_eq!(report["subject"]["pullRequest"], 2);
    assert_eq!(
        report["subject"]["headSha"],
        head.as_str(),
        "the PR head, not GITHUB_SHA"
    );
    assert_eq!(report["subject"]["event"], "pull_request");
    common::assert_report_schema(&report);

    // The token never appears in anything judge-ci wrote.
    for entry in walkdir::WalkDir::new(runner.path())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
    {
        let text = std::fs::read(entry.path()).unwrap();
        assert!(
            !String::from_utf8_lossy(&text).contains("SENTINELTOKEN"),
            "{} holds the token",
            entry.path().display()
        );
    }
    assert!(!stdout.contains("SENTINELTOKEN") && !stderr.contains("SENTINELTOKEN"));
}
