//! The oracle's part of `maven-build`: after a build that exited 0 ran the tests, the trusted
//! tests are run by judge-ci on the workspace and on a copy of the reference, graded, and the
//! build judgment becomes what judge-ci observed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use super::{Expected, Oracle, Run, TestSets, cross_check, expected, observe};
use crate::fence::Fence;
use crate::judges::process::{self, Exit, ProcessSpec};
use crate::judges::{Outcome, build, instrument_because, structural};
use crate::judgment::{Cause, Check, Finding, FindingKind, Judgment, ReasonCode, Status};

/// Surefire's reports of the subject's build (`target/surefire-reports`), and why they could
/// not be read when they exist but cannot be (a link, a malformed or truncated file, one over
/// the bound): the subject's processes write them, so an unreadable one is never skipped.
fn surefire_reports(
    workspace: &Path,
) -> (
    std::collections::BTreeMap<String, structural::TestOutcome>,
    Option<String>,
) {
    let reports = workspace.join("target/surefire-reports");
    match std::fs::symlink_metadata(&reports) {
        Err(_) => (Default::default(), None),
        Ok(m) if m.is_dir() => match structural::read_reports(&reports, None) {
            Ok(r) => (r, None),
            Err(why) => (Default::default(), Some(why)),
        },
        Ok(_) => (
            Default::default(),
            Some("target/surefire-reports is not a folder".to_string()),
        ),
    }
}

/// Whether Maven goals reach the `test` phase (so the build ran the tests).
pub fn goals_run_tests(goals: &[String]) -> bool {
    goals.iter().any(|g| {
        matches!(
            g.as_str(),
            "test" | "package" | "verify" | "install" | "deploy" | "integration-test"
        )
    })
}

/// Copies a tree without `.git` and build output (`target/`).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for e in walkdir::WalkDir::new(from)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(e.file_type().is_dir()
                    && (e.file_name() == ".git" || e.file_name() == "target"))
        })
    {
        let e = e.map_err(std::io::Error::other)?;
        let rel = e.path().strip_prefix(from).map_err(std::io::Error::other)?;
        let dest = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &dest)?;
        } else if e.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path())?, &dest)?;
        }
    }
    Ok(())
}

/// Builds a copy of the reference (`test-compile`, fenced apart from the subject) and runs
/// the expected tests on it under the oracle.
#[allow(clippy::too_many_arguments)]
async fn reference_run(
    oracle: &Oracle,
    dir: Result<tempfile::TempDir, String>,
    reference: &Path,
    expected: &Expected,
    args: &[String],
    repos: &[PathBuf],
    timeout: Duration,
    fence: &Fence,
) -> Result<Run, String> {
    let dir = dir?;
    let launcher = oracle.launcher(fence).await?;
    let copy = dir.path().join("reference");
    copy_tree(reference, &copy).map_err(|e| format!("cannot copy the reference: {e}"))?;
    let own = Fence::new(None, std::sync::Arc::default());
    own.add_workspace(dir.path());
    let program = if copy.join("mvnw").is_file() {
        use std::os::unix::fs::PermissionsExt;
        match std::fs::metadata(copy.join("mvnw")) {
            Ok(m) if m.permissions().mode() & 0o111 != 0 => "./mvnw".to_string(),
            _ => "mvn".to_string(),
        }
    } else {
        "mvn".to_string()
    };
    let mut argv = vec!["-B".to_string()];
    argv.extend(args.iter().cloned());
    argv.push("test-compile".into());
    let spec = ProcessSpec {
        program,
        args: argv,
        dir: copy.clone(),
        env: Vec::new(),
        timeout,
        stdin: None,
        answer: false,
    };
    let display = spec.display();
    let out = process::run(&spec, &own)
        .await
        .map_err(|e| format!("`{display}` could not be started for the reference: {e}"))?;
    if out.exit != Exit::Code(0) {
        return Err(format!(
            "the reference does not build here (`{display}` in a copy of it ended {:?}), so judge-ci cannot tell which tests the solution passes: {}",
            out.exit,
            out.combined()
                .chars()
                .rev()
                .take(400)
                .collect::<String>()
                .chars()
                .rev()
                .collect::<String>()
        ));
    }
    let run = observe(launcher, &copy, expected, repos, timeout, &own)
        .await
        .map_err(|e| format!("the reference's test run: {e}"))?;
    Ok(run)
}

/// A folder for the reference's test run, hidden from every subject process prepared from now
/// on (it holds the reference): made before any of them starts alongside it.
fn hidden_folder(fence: &Fence) -> Result<tempfile::TempDir, String> {
    let dir = tempfile::Builder::new()
        .prefix("judge-ci-oracle-reference-")
        .tempdir()
        .map_err(|e| format!("cannot make a folder for the reference's test run: {e}"))?;
    fence.hide(dir.path());
    Ok(dir)
}

/// The reference's side of the oracle (judge-ci's launcher compiled, the reference built and
/// its trusted tests run), once per run. Started alongside the subject's build, so the two
/// overlap; its folder is hidden before this returns its future.
pub fn prepare<'a>(
    oracle: &'a Oracle,
    reference: Option<&'a Path>,
    args: &'a [String],
    repos: &'a [PathBuf],
    timeout: Duration,
    fence: &'a Fence,
) -> impl std::future::Future<Output = &'a Result<Run, String>> + 'a {
    let dir = (!oracle.reference.initialized()).then(|| hidden_folder(fence));
    async move {
        oracle
            .reference
            .get_or_init(|| async move {
                let Some(reference) = reference else {
                    return Err("no reference to run the trusted tests on".to_string());
                };
                let expected = expected(reference);
                let dir = dir.unwrap_or_else(|| hidden_folder(fence));
                reference_run(
                    oracle, dir, reference, &expected, args, repos, timeout, fence,
                )
                .await
            })
            .await
    }
}

/// The build judgment after the oracle: PASS only when every charged trusted test passed as
/// judge-ci observed it and Surefire's reports do not disagree.
#[allow(clippy::too_many_arguments)]
pub async fn verify(
    built: Judgment,
    workspace: &Path,
    reference: Option<&Path>,
    args: &[String],
    repos: &[PathBuf],
    timeout: Duration,
    oracle: &Oracle,
    fence: &Fence,
) -> Outcome {
    let Some(reference) = reference else {
        return Ok(built);
    };
    let expected = expected(reference);
    if expected.tests.is_empty() {
        return Ok(built);
    }
    let carry = |status: Status| {
        let mut b = Judgment::builder(status).findings(built.findings().iter().cloned());
        for (k, v) in built.metadata() {
            b = b.metadata(k.clone(), v.clone());
        }
        b
    };
    let launcher = match oracle.launcher(fence).await {
        Ok(l) => l,
        Err(why) => return instrument_because(Some(Cause::ToolMissing), why),
    };
    let subject = match observe(launcher, workspace, &expected, repos, timeout, fence).await {
        Ok(r) => r,
        Err(super::RunFailure::Timeout(t)) => {
            return build(
                carry(Status::Error)
                    .reason_code(ReasonCode::JudgeReported)
                    .cause(Cause::Timeout)
                    .reasoning(super::RunFailure::Timeout(t).to_string()),
            );
        }
        Err(e) => {
            return build(
                carry(Status::Error)
                    .reason_code(ReasonCode::JudgeReported)
                    .reasoning(format!("judge-ci's test oracle: {e}")),
            );
        }
    };
    let reference_run = prepare(oracle, Some(reference), args, repos, timeout, fence)
        .await
        .clone();
    let reference_run = match reference_run {
        Ok(r) => r,
        Err(why) => {
            return build(
                carry(Status::Error)
                    .reason_code(ReasonCode::JudgeReported)
                    .reasoning(format!("judge-ci's test oracle: {why}")),
            );
        }
    };
    let sets = TestSets::grade(&subject, &reference_run, None);
    let shown = "src/test/java";
    let mut findings: Vec<Finding> = built.findings().to_vec();
    for g in sets.failures() {
        let kind = if g.subject == super::Observed::NotRun {
            FindingKind::TestMissing
        } else {
            FindingKind::TestFailing
        };
        findings.push(
            Finding::new(shown, kind)
                .expected(format!("{} passes (as on the reference)", g.name))
                .actual(format!("{}: {}", g.name, g.subject.words()))
                .message("observed by judge-ci's own test run"),
        );
    }
    // Surefire's reports are the subject's processes' output: a cross-check only. Read after
    // every process of the build is gone (`process::run` returns only then), so nothing of the
    // build writes them any more; one judge-ci cannot read disagrees with what it observed.
    let (recorded, unreadable) = surefire_reports(workspace);
    let mut disagreements = cross_check(&recorded, &subject);
    if let Some(why) = unreadable {
        let seen = subject.tests.iter().filter(|(_, o)| !o.passed()).count();
        disagreements.push((
            "target/surefire-reports".to_string(),
            format!("unreadable ({why})"),
            format!(
                "{} of {} trusted test(s) passed",
                subject.tests.len() - seen,
                subject.tests.len()
            ),
        ));
    }
    for (name, said, seen) in &disagreements {
        findings.push(
            Finding::new("target/surefire-reports", FindingKind::TestFailing)
                .expected(format!("{name}: {seen} (observed by judge-ci)"))
                .actual(format!("{name}: {said} (Surefire's report)"))
                .message("Surefire's report disagrees with what judge-ci observed"),
        );
    }
    let failures = sets.failures().count();
    let charged = sets.charged();
    let passed = failures == 0 && disagreements.is_empty();
    let mut reasoning = if passed {
        format!(
            "the build exited 0 and judge-ci observed all {charged} trusted test(s) pass{}",
            if sets.not_charged.is_empty() {
                String::new()
            } else {
                format!(
                    " ({} more fail on the reference too and are not charged)",
                    sets.not_charged.len()
                )
            }
        )
    } else {
        let first: Vec<String> = sets
            .failures()
            .take(3)
            .map(|g| format!("{} {}", g.name, g.subject.words()))
            .collect();
        format!(
            "the build exited 0, but judge-ci's own run of the trusted tests: {failures} of {charged} did not pass{}{}",
            if first.is_empty() {
                String::new()
            } else {
                format!(" ({})", first.join("; "))
            },
            if disagreements.is_empty() {
                String::new()
            } else {
                format!(
                    "; Surefire's reports disagree with what judge-ci observed for {} test(s) (first: {} — the report says {}, judge-ci saw {})",
                    disagreements.len(),
                    disagreements[0].0,
                    disagreements[0].1,
                    disagreements[0].2
                )
            }
        )
    };
    if !subject.done && passed {
        reasoning.push_str(" (the oracle did not report its end)");
    }
    let check = Check::new(
        "trusted_tests",
        passed,
        format!(
            "{} of {charged} trusted test(s) passed as judge-ci observed",
            charged - failures
        ),
    )?;
    build(
        carry(if passed { Status::Pass } else { Status::Fail })
            .findings(findings.into_iter().skip(built.findings().len()))
            .reasoning(reasoning)
            .checks(built.checks().iter().cloned())
            .check(check)
            .metadata("tests", json!(sets)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_surefire_report_judge_ci_cannot_read_is_never_skipped() {
        // Two shutdown hooks of the subject's JVM racing (one truncates the report, the other
        // halts the JVM) leave an empty TEST-*.xml: that is a disagreement, not "no report".
        let d = tempfile::tempdir().unwrap();
        assert_eq!(surefire_reports(d.path()), (Default::default(), None));
        let reports = d.path().join("target/surefire-reports");
        std::fs::create_dir_all(&reports).unwrap();
        std::fs::write(reports.join("TEST-t.AppTest.xml"), "").unwrap();
        let (recorded, why) = surefire_reports(d.path());
        assert!(recorded.is_empty());
        assert!(
            why.as_deref()
                .is_some_and(|w| w.contains("TEST-t.AppTest.xml")),
            "{why:?}"
        );
        std::fs::write(
            reports.join("TEST-t.AppTest.xml"),
            r#"<testsuite><testcase classname="t.AppTest" name="adds"/></testsuite>"#,
        )
        .unwrap();
        let (recorded, why) = surefire_reports(d.path());
        assert_eq!((recorded.len(), why), (1, None));
        std::fs::remove_dir_all(&reports).unwrap();
        std::os::unix::fs::symlink("/", &reports).unwrap();
        assert!(
            surefire_reports(d.path()).1.is_some(),
            "a link is not followed"
        );
    }
}
