//! The oracle's part of `maven-build`: after a build that exited 0 ran the tests, the trusted
//! tests are run by judge-ci on the workspace and on a copy of the reference, graded, and the
//! build judgment becomes what judge-ci observed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use super::{Expected, Oracle, OracleError, Run, TestSets, cross_check, expected, observe};
use crate::fence::Fence;
use crate::judges::process::{self, Exit, Private, ProcessSpec};
use crate::judges::{Outcome, build, instrument_because, structural};
use crate::judgment::{Cause, Check, Finding, FindingKind, Judgment, ReasonCode, Status};

/// Surefire's reports of the subject's build (in `reports`, a folder of the workspace), and
/// why they could not be read when they exist but cannot be (a link, a malformed or
/// truncated file, one over the bound): the subject's processes write them, so an unreadable
/// one is never skipped.
fn surefire_reports(
    reports: &Path,
) -> (
    std::collections::BTreeMap<String, structural::TestOutcome>,
    Option<String>,
) {
    match std::fs::symlink_metadata(reports) {
        Err(_) => (Default::default(), None),
        Ok(m) if m.is_dir() => match structural::read_reports(reports, None) {
            Ok(r) => (r, None),
            Err(why) => (Default::default(), Some(why.to_string())),
        },
        Ok(_) => (
            Default::default(),
            Some(format!("{} is not a folder", reports.display())),
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
pub(super) fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
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
    dir: Result<tempfile::TempDir, OracleError>,
    reference: &Path,
    expected: &Expected,
    args: &[String],
    repos: &[PathBuf],
    timeout: Duration,
    fence: &Fence,
) -> Result<Run, OracleError> {
    let dir = dir?;
    let launcher = oracle.launcher(fence).await?;
    let copy = dir.path().join("reference");
    copy_tree(reference, &copy).map_err(OracleError::io("copy the reference"))?;
    let own = Fence::new(None, std::sync::Arc::default());
    own.add_workspace(dir.path());
    maven(&copy, args, "test-compile", timeout, &own)
        .await
        .map_err(|e| OracleError::ReferenceBuild(Box::new(e)))?;
    observe(launcher, reference, &copy, expected, repos, timeout, &own)
        .await
        .map_err(|e| OracleError::ReferenceRun(Box::new(e)))
}

/// The base's side: a copy of the base built by judge-ci (`compile`, fenced apart), the
/// trusted tests compiled against it and run. A base that does not build, or that the
/// trusted tests do not compile against, fails every trusted test (as SWE-bench's harness
/// counts them): they become FAIL_TO_PASS.
#[allow(clippy::too_many_arguments)]
async fn base_run(
    oracle: &Oracle,
    base: &Path,
    reference: &Path,
    expected: &Expected,
    args: &[String],
    repos: &[PathBuf],
    timeout: Duration,
    fence: &Fence,
) -> Run {
    let all_fail = |why: &dyn std::fmt::Display| Run {
        tests: expected
            .tests
            .iter()
            .map(|t| (t.clone(), super::Observed::Failed(why.to_string())))
            .collect(),
        // judge-ci's own account of a run it did not start: whole, nothing foreign.
        done: true,
        foreign: 0,
    };
    let dir = match hidden_folder(fence) {
        Ok(d) => d,
        Err(why) => return all_fail(&why),
    };
    let launcher = match oracle.launcher(fence).await {
        Ok(l) => l,
        Err(why) => return all_fail(&why),
    };
    let copy = dir.path().join("base");
    if let Err(e) = copy_tree(base, &copy) {
        return all_fail(&format!("cannot copy the base: {e}"));
    }
    // The trusted tests are judge-ci's to compile; the base's own tests are not built.
    let _ = std::fs::remove_dir_all(copy.join("src/test"));
    let own = Fence::new(None, std::sync::Arc::default());
    own.add_workspace(dir.path());
    if let Err(why) = maven(&copy, args, "compile", timeout, &own).await {
        return all_fail(&format!("the base does not build: {why}"));
    }
    match observe(launcher, reference, &copy, expected, repos, timeout, &own).await {
        Ok(r) => r,
        Err(super::RunFailure::Timeout(_, partial)) => partial,
        Err(e) => all_fail(&format!("the base's test run: {e}")),
    }
}

/// Runs Maven (the project's wrapper when it has an executable one) with `args` and `goal`
/// in `project`, in `fence`; `Err` says how it ended.
async fn maven(
    project: &Path,
    args: &[String],
    goal: &str,
    timeout: Duration,
    fence: &Fence,
) -> Result<(), OracleError> {
    let program = if project.join("mvnw").is_file() {
        use std::os::unix::fs::PermissionsExt;
        match std::fs::metadata(project.join("mvnw")) {
            Ok(m) if m.permissions().mode() & 0o111 != 0 => "./mvnw".to_string(),
            _ => "mvn".to_string(),
        }
    } else {
        "mvn".to_string()
    };
    let mut argv = vec!["-B".to_string()];
    argv.extend(args.iter().cloned());
    argv.push(goal.into());
    let spec = ProcessSpec {
        program,
        args: argv,
        dir: project.to_path_buf(),
        env: Vec::new(),
        timeout,
        stdin: None,
        answer: false,
        private: Private::default(),
    };
    let display = spec.display();
    let out = process::run(&spec, fence)
        .await
        .map_err(OracleError::start(format!("`{display}`"), "in a copy"))?;
    if out.exit == Exit::Code(0) {
        return Ok(());
    }
    let log = out.combined();
    let tail: String = log
        .chars()
        .rev()
        .take(400)
        .collect::<String>()
        .chars()
        .rev()
        .collect();
    Err(OracleError::Build {
        command: display,
        exit: format!("{:?}", out.exit),
        tail,
    })
}

/// A folder for the reference's test run, hidden from every subject process prepared from now
/// on (it holds the reference): made before any of them starts alongside it.
fn hidden_folder(fence: &Fence) -> Result<tempfile::TempDir, OracleError> {
    let dir = tempfile::Builder::new()
        .prefix("judge-ci-oracle-reference-")
        .tempdir()
        .map_err(OracleError::io(
            "make a folder for the reference's test run",
        ))?;
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
) -> impl std::future::Future<Output = &'a Result<Run, OracleError>> + 'a {
    let dir = (!oracle.reference.initialized()).then(|| hidden_folder(fence));
    async move {
        oracle
            .reference
            .get_or_init(|| async move {
                let Some(reference) = reference else {
                    return Err(OracleError::NoReference);
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

/// What judge-ci observed of the trusted tests on a workspace, graded against the reference.
struct Graded {
    sets: TestSets,
    /// One finding per charged test the subject does not pass, and per disagreement of
    /// Surefire's reports.
    findings: Vec<Finding>,
    failures: usize,
    disagreements: Vec<(String, String, String)>,
    /// Why the subject's run was cut short, when it was (it did not finish within the limit
    /// while the reference's did; it flooded judge-ci's channel): the subject's doing.
    cut: Option<String>,
    done: bool,
}

/// Why no grade: an ERROR of judge-ci's instrument or of the reference's side.
struct NoGrade {
    cause: Option<Cause>,
    why: String,
}

/// Runs the trusted tests on `workspace` and on the reference, and grades them.
#[allow(clippy::too_many_arguments)]
async fn grade(
    workspace: &Path,
    reports: &Path,
    reference: &Path,
    base: Option<&Path>,
    expected: &Expected,
    args: &[String],
    repos: &[PathBuf],
    timeout: Duration,
    oracle: &Oracle,
    fence: &Fence,
) -> Result<Graded, NoGrade> {
    let launcher = oracle.launcher(fence).await.map_err(|e| NoGrade {
        cause: e.cause(),
        why: e.to_string(),
    })?;
    let (subject, cut) = match observe(
        launcher, reference, workspace, expected, repos, timeout, fence,
    )
    .await
    {
        // Only code under test writes a line without the nonce (the oracle's lines are
        // whole): what the channel says is not the oracle's alone, and no test counts as
        // passed (attack finding A11-1). Nor does a run the oracle did not see to its end
        // (the JVM ended under the tests: `System.exit`, a kill).
        Ok(r) if r.foreign > 0 => {
            let why = format!(
                "{} line(s) on judge-ci's result channel did not come from its test oracle: only code under test writes there, so no test counts as passed",
                r.foreign
            );
            (r, Some(why))
        }
        Ok(r) if !r.done => (
            r,
            Some(
                "the test run ended before judge-ci's oracle reported its end (the code under test stopped the JVM), so what it reported is not a whole run"
                    .to_string(),
            ),
        ),
        Ok(r) => (r, None),
        // The subject's tests did not finish in time: what finished counts, the rest did
        // not pass (as SWE-bench counts a test that times out), when the reference's did.
        Err(super::RunFailure::Timeout(t, partial)) => (
            partial,
            Some(format!(
                "the run did not finish within {} (the reference's did), so what had not finished did not pass",
                crate::judges::humantime(t)
            )),
        ),
        // Only code running in the tests' JVM writes judge-ci's descriptor.
        Err(e @ super::RunFailure::Flooded(..)) => {
            let why = format!("{e}; the code under test did that, so no test counts as passed");
            let super::RunFailure::Flooded(_, partial) = e else {
                unreachable!("matched above")
            };
            (partial, Some(why))
        }
        Err(e) => {
            return Err(NoGrade {
                cause: None,
                why: format!("judge-ci's test oracle: {e}"),
            });
        }
    };
    let reference_run = prepare(oracle, Some(reference), args, repos, timeout, fence)
        .await
        .clone()
        .map_err(|e| NoGrade {
            cause: e.cause(),
            why: format!("judge-ci's test oracle: {e}"),
        })?;
    let base_run = match base {
        Some(b) => Some(
            oracle
                .base
                .get_or_init(|| {
                    base_run(oracle, b, reference, expected, args, repos, timeout, fence)
                })
                .await,
        ),
        None => None,
    };
    let sets = TestSets::grade(&subject, &reference_run, base_run);
    if let Some(why) = nothing_to_judge(&sets) {
        return Err(NoGrade { cause: None, why });
    }
    let shown = "src/test/java";
    let mut findings = Vec::new();
    for g in sets.failures() {
        let kind = if g.subject == super::Observed::NotRun {
            FindingKind::TestMissing
        } else {
            FindingKind::TestFailing
        };
        findings.push(
            Finding::new(shown, kind)
                .expected(match &g.base {
                    Some(b) if b.passed() => format!(
                        "{} passes (PASS_TO_PASS: it passes on the base and the reference)",
                        g.name
                    ),
                    Some(_) => format!(
                        "{} passes (FAIL_TO_PASS: the change must make it pass, as the reference does)",
                        g.name
                    ),
                    None => format!("{} passes (as on the reference)", g.name),
                })
                .actual(format!("{}: {}", g.name, g.subject.words()))
                .message(match &cut {
                    Some(why) => format!("observed by judge-ci's own test run: {why}"),
                    None => "observed by judge-ci's own test run".to_string(),
                }),
        );
    }
    // Surefire's reports are the subject's processes' output: a cross-check only. Read after
    // every process of the build is gone (`process::run` returns only then), so nothing of the
    // build writes them any more; one judge-ci cannot read disagrees with what it observed.
    let (recorded, unreadable) = surefire_reports(reports);
    let shown_reports = reports
        .strip_prefix(workspace)
        .unwrap_or(reports)
        .display()
        .to_string();
    let mut disagreements = cross_check(&recorded, &subject);
    if let Some(why) = unreadable {
        let seen = subject.tests.iter().filter(|(_, o)| !o.passed()).count();
        disagreements.push((
            shown_reports.clone(),
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
            Finding::new(shown_reports.clone(), FindingKind::TestFailing)
                .expected(format!("{name}: {seen} (observed by judge-ci)"))
                .actual(format!("{name}: {said} (Surefire's report)"))
                .message("Surefire's report disagrees with what judge-ci observed"),
        );
    }
    Ok(Graded {
        failures: sets.failures().count(),
        sets,
        findings,
        disagreements,
        cut,
        done: subject.done,
    })
}

/// Why the grade judges nothing, when no trusted test passed on the reference (attack
/// finding O1): every test is then not charged, and "all 0 charged tests passed" would be a
/// PASS on the build's exit status alone. Without a passing reference run judge-ci has no
/// observation to judge the change against: an ERROR naming the first reference failure,
/// never a PASS (`spec/trust.md` points 7, 17, 19).
fn nothing_to_judge(sets: &TestSets) -> Option<String> {
    if sets.charged() > 0 || sets.not_charged.is_empty() {
        return None;
    }
    let first = &sets.not_charged[0];
    Some(format!(
        "judge-ci's test oracle: none of the {} trusted test(s) passed on the reference ({} {}), so there is no observation to judge the change against",
        sets.not_charged.len(),
        first.name,
        first.reference.words()
    ))
}

impl Graded {
    fn passed(&self) -> bool {
        self.failures == 0 && self.disagreements.is_empty() && self.cut.is_none()
    }

    /// What judge-ci observed, in a sentence (after `lead`: what the judge did first).
    fn reasoning(&self, lead: &str) -> String {
        let charged = self.sets.charged();
        if self.passed() {
            let mut r = format!(
                "{lead}judge-ci observed all {charged} trusted test(s) pass{}",
                if self.sets.not_charged.is_empty() {
                    String::new()
                } else {
                    format!(
                        " ({} more fail on the reference too and are not charged)",
                        self.sets.not_charged.len()
                    )
                }
            );
            if !self.done {
                r.push_str(" (the oracle did not report its end)");
            }
            return r;
        }
        let first: Vec<String> = self
            .sets
            .failures()
            .take(3)
            .map(|g| format!("{} {}", g.name, g.subject.words()))
            .collect();
        format!(
            "{lead}judge-ci's own run of the trusted tests: {} of {charged} did not pass{}{}{}",
            self.failures,
            if first.is_empty() {
                String::new()
            } else {
                format!(" ({})", first.join("; "))
            },
            match &self.cut {
                Some(why) => format!("; {why}"),
                None => String::new(),
            },
            if self.disagreements.is_empty() {
                String::new()
            } else {
                format!(
                    "; Surefire's reports disagree with what judge-ci observed for {} test(s) (first: {} — the report says {}, judge-ci saw {})",
                    self.disagreements.len(),
                    self.disagreements[0].0,
                    self.disagreements[0].1,
                    self.disagreements[0].2
                )
            }
        )
    }

    fn check(&self) -> Result<Check, crate::judgment::BuildError> {
        let charged = self.sets.charged();
        Check::new(
            "trusted_tests",
            self.passed(),
            format!(
                "{} of {charged} trusted test(s) passed as judge-ci observed",
                charged - self.failures
            ),
        )
    }
}

/// The build judgment after the oracle: PASS only when every charged trusted test passed as
/// judge-ci observed it and Surefire's reports do not disagree.
#[allow(clippy::too_many_arguments)]
pub async fn verify(
    built: Judgment,
    workspace: &Path,
    reference: Option<&Path>,
    base: Option<&Path>,
    args: &[String],
    repos: &[PathBuf],
    timeout: Duration,
    oracle: &Oracle,
    fence: &Fence,
) -> Outcome {
    let Some(reference) = reference else {
        return Ok(built);
    };
    if let Some(why) = super::unsupported(reference) {
        return instrument_because(Some(Cause::JudgeMisconfigured), why);
    }
    let expected = expected(reference);
    if expected.is_empty() {
        return Ok(built);
    }
    let carry = |status: Status| {
        let mut b = Judgment::builder(status).findings(built.findings().iter().cloned());
        for (k, v) in built.metadata() {
            b = b.metadata(k.clone(), v.clone());
        }
        b
    };
    let reports = workspace.join("target/surefire-reports");
    let g = match grade(
        workspace, &reports, reference, base, &expected, args, repos, timeout, oracle, fence,
    )
    .await
    {
        Ok(g) => g,
        Err(NoGrade { cause, why }) => {
            let mut b = carry(Status::Error)
                .reason_code(ReasonCode::JudgeReported)
                .reasoning(why);
            if let Some(c) = cause {
                b = b.cause(c);
            }
            return build(b);
        }
    };
    let passed = g.passed();
    build(
        carry(if passed { Status::Pass } else { Status::Fail })
            .findings(g.findings.iter().cloned())
            .reasoning(g.reasoning("the build exited 0 and "))
            .checks(built.checks().iter().cloned())
            .check(g.check()?)
            .metadata("tests", json!(g.sets)),
    )
}

/// `test-invariance` on judge-ci's own evidence: the trusted tests (the reference's), compiled
/// and run by judge-ci against the workspace's `target/classes` and against the reference,
/// never the Surefire reports the subject's build wrote (those are a cross-check only). A
/// test the reference passes that the workspace does not (missing, skipped, failing, not
/// finishing) is a FAIL; without a reference holding tests there is no trusted side: ERROR.
#[allow(clippy::too_many_arguments)]
pub async fn invariance(
    workspace: &Path,
    reports: &Path,
    reference: Option<&Path>,
    base: Option<&Path>,
    args: &[String],
    repos: &[PathBuf],
    timeout: Duration,
    oracle: &Oracle,
    fence: &Fence,
    since: Option<std::time::SystemTime>,
) -> Outcome {
    // The classes the trusted tests run against are evidence: the pull request's own
    // (tracked, or older than this run's first build) are refused, as `class-version` refuses
    // them, whether or not a build judge ran before (attack finding OF5: a committed
    // `target/classes` compiled from other sources than the ones judged).
    let classes: Vec<PathBuf> = walkdir::WalkDir::new(workspace.join("target/classes"))
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "class"))
        .map(|e| e.path().to_path_buf())
        .collect();
    if let Some(why) =
        crate::judges::evidence::Freshness::new(workspace, since).refuse_any(workspace, &classes)
    {
        return instrument_because(None, format!("refused as evidence: {why}"));
    }
    let dir = match crate::judges::paths::resolve(workspace, reports) {
        crate::judges::paths::Resolved::Escapes(why) => {
            return instrument_because(None, format!("path escapes the workspace: {why}"));
        }
        crate::judges::paths::Resolved::Inside(d) => d,
        _ => workspace.join(reports),
    };
    // A report that is a link, FIFO or device is the subject's doing: a finding.
    if dir.is_dir() {
        let odd = crate::untrusted::not_regular_under(&dir, 1, |rel| {
            rel.starts_with("TEST-") && rel.ends_with(".xml")
        });
        if !odd.is_empty() {
            return crate::judges::not_regular_fail("test-invariance", reports, &odd);
        }
    }
    let Some(reference) = reference else {
        return instrument_because(
            Some(Cause::EvidenceMissing),
            "test-invariance needs a reference: the expected tests come from the trusted side, and judge-ci does not decide on the Surefire reports the subject's build wrote",
        );
    };
    if let Some(why) = super::unsupported(reference) {
        return instrument_because(Some(Cause::JudgeMisconfigured), why);
    }
    let expected = expected(reference);
    if expected.is_empty() {
        return instrument_because(
            Some(Cause::EvidenceMissing),
            "the reference has no tests under src/test/java, so test-invariance has no trusted tests to run",
        );
    }
    let g = match grade(
        workspace, &dir, reference, base, &expected, args, repos, timeout, oracle, fence,
    )
    .await
    {
        Ok(g) => g,
        Err(NoGrade { cause, why }) => return instrument_because(cause, why),
    };
    let passed = g.passed();
    let charged = g.sets.charged();
    build(
        Judgment::builder(if passed { Status::Pass } else { Status::Fail })
            .score(if charged == 0 {
                0.0
            } else {
                (charged - g.failures) as f64 / charged as f64
            })
            .findings(g.findings.iter().cloned())
            .reasoning(g.reasoning(""))
            .check(g.check()?)
            .metadata("referenceTests", expected.tests.len())
            .metadata("tests", json!(g.sets)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grade_with_no_test_passing_on_the_reference_judges_nothing() {
        // Attack finding O1: every trusted test failed on the reference (there: judge-ci's
        // compile of them), so none was charged and the build passed on "0 of 0".
        let run = |o: super::super::Observed| super::super::Run {
            tests: [("t.A#one".to_string(), o)].into_iter().collect(),
            done: true,
            foreign: 0,
        };
        let failed = super::super::Observed::Failed("does not compile".into());
        let sets = TestSets::grade(
            &run(super::super::Observed::Passed),
            &run(failed.clone()),
            None,
        );
        assert!(
            nothing_to_judge(&sets)
                .is_some_and(|w| w.contains("none of the 1 trusted test(s)")
                    && w.contains("does not compile")),
            "{sets:?}"
        );
        let sets = TestSets::grade(&run(failed), &run(super::super::Observed::Passed), None);
        assert_eq!(nothing_to_judge(&sets), None);
    }

    #[test]
    fn a_surefire_report_judge_ci_cannot_read_is_never_skipped() {
        // Two shutdown hooks of the subject's JVM racing (one truncates the report, the other
        // halts the JVM) leave an empty TEST-*.xml: that is a disagreement, not "no report".
        let d = tempfile::tempdir().unwrap();
        let reports = d.path().join("target/surefire-reports");
        assert_eq!(surefire_reports(&reports), (Default::default(), None));
        std::fs::create_dir_all(&reports).unwrap();
        std::fs::write(reports.join("TEST-t.AppTest.xml"), "").unwrap();
        let (recorded, why) = surefire_reports(&reports);
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
        let (recorded, why) = surefire_reports(&reports);
        assert_eq!((recorded.len(), why), (1, None));
        std::fs::remove_dir_all(&reports).unwrap();
        std::os::unix::fs::symlink("/", &reports).unwrap();
        assert!(
            surefire_reports(&reports).1.is_some(),
            "a link is not followed"
        );
    }
}
