//! `test-invariance`: Surefire XML reports of the workspace against the reference's — tests
//! that fail, and tests the reference has that the workspace does not.

use std::collections::BTreeMap;
use std::path::Path;

use crate::config::checks::WorkspacePath;
use crate::judges::paths::{Resolved, resolve};
use crate::judgment::{Cause, Judgment, Status};

use super::super::evidence::Freshness;
use super::super::{Outcome, build, instrument};
use super::{Finding, verdict};
use crate::judgment::FindingKind;

/// One test's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestOutcome {
    /// It passed.
    Passed,
    /// It failed or errored, with the message.
    Failed(String),
    /// It was skipped.
    Skipped,
}

/// Reads every `TEST-*.xml` in a folder: `Class#method` → outcome. DTDs are refused, and so
/// is a report `fresh` says the subject could have supplied.
pub fn read_reports(
    dir: &Path,
    fresh: Option<&Freshness>,
) -> Result<BTreeMap<String, TestOutcome>, String> {
    let mut out = BTreeMap::new();
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("TEST-") && name.ends_with(".xml")) {
            continue;
        }
        if let Some(why) = fresh.and_then(|f| f.refuse(&e.path(), &name)) {
            return Err(format!("refused as evidence: {why}"));
        }
        let text = crate::judges::paths::read_text_limited(
            &e.path(),
            crate::judges::paths::MAX_REPORT_BYTES,
        )
        .map_err(|err| format!("cannot read {name}: {err}"))?;
        let doc = crate::untrusted::parse_xml(&name, &text, false)
            .map_err(|err| format!("not a Surefire report: {err}"))?;
        for tc in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
            let key = format!(
                "{}#{}",
                tc.attribute("classname").unwrap_or("?"),
                tc.attribute("name").unwrap_or("?")
            );
            let outcome = if let Some(f) = tc
                .children()
                .find(|c| c.has_tag_name("failure") || c.has_tag_name("error"))
            {
                let msg = f.attribute("message").unwrap_or("").to_string();
                TestOutcome::Failed(if msg.is_empty() {
                    f.attribute("type").unwrap_or("failed").to_string()
                } else {
                    msg
                })
            } else if tc.children().any(|c| c.has_tag_name("skipped")) {
                TestOutcome::Skipped
            } else {
                TestOutcome::Passed
            };
            out.insert(key, outcome);
        }
    }
    Ok(out)
}

/// Runs the judge. No workspace reports → ABSTAIN (the tests did not run).
pub fn test_invariance(
    workspace: &Path,
    since: Option<std::time::SystemTime>,
    reference: Option<&Path>,
    reports: &WorkspacePath,
) -> Outcome {
    let dir = match resolve(workspace, reports.as_path()) {
        Resolved::Escapes(why) => return instrument(format!("path escapes the workspace: {why}")),
        Resolved::ThroughLink(link) => {
            return crate::judges::not_regular_fail(
                "test-invariance",
                Path::new(""),
                &[(link, crate::untrusted::Kind::Symlink)],
            );
        }
        Resolved::Inside(d) if d.is_dir() => d,
        _ => {
            return build(
                Judgment::builder(Status::Abstain)
                    .cause(Cause::EvidenceMissing)
                    .reasoning(format!(
                        "no Surefire reports in {}: did the build run the tests before this check?",
                        reports.as_path().display()
                    )),
            );
        }
    };
    // A report that is a link, FIFO or device is the subject's doing: a finding, not an
    // instrument ERROR a lenient gate lets through.
    let odd = crate::untrusted::not_regular_under(&dir, 1, |rel| {
        rel.starts_with("TEST-") && rel.ends_with(".xml")
    });
    if !odd.is_empty() {
        return crate::judges::not_regular_fail("test-invariance", reports.as_path(), &odd);
    }
    let fresh = Freshness::new(workspace, since);
    let ws = match read_reports(&dir, Some(&fresh)) {
        Ok(r) if !r.is_empty() => r,
        Ok(_) => {
            return build(
                Judgment::builder(Status::Abstain)
                    .cause(Cause::EvidenceMissing)
                    .reasoning(format!(
                        "{} holds no test results",
                        reports.as_path().display()
                    )),
            );
        }
        Err(e) => return instrument(e),
    };
    let rf = match reference
        .map(|r| r.join(reports.as_path()))
        .filter(|p| p.is_dir())
    {
        Some(d) => match read_reports(&d, None) {
            Ok(r) => r,
            Err(e) => return instrument(format!("the reference's reports: {e}")),
        },
        None => BTreeMap::new(),
    };
    let shown = reports.as_path().display().to_string();
    let mut findings = Vec::new();
    for (k, o) in &ws {
        if let TestOutcome::Failed(msg) = o {
            findings.push(
                Finding::new(shown.clone(), FindingKind::TestFailing).actual(format!("{k}: {msg}")),
            );
        }
    }
    for k in rf.keys().filter(|k| !ws.contains_key(*k)) {
        findings.push(Finding::new(shown.clone(), FindingKind::TestMissing).expected(k.clone()));
    }
    // A test the reference runs and the workspace skips is not passing: skipping is how a
    // subject would hide a failure.
    let ran_in_reference = |k: &String| {
        matches!(
            rf.get(k),
            Some(TestOutcome::Passed | TestOutcome::Failed(_))
        )
    };
    for (k, _) in ws
        .iter()
        .filter(|(k, o)| **o == TestOutcome::Skipped && ran_in_reference(k))
    {
        findings.push(
            Finding::new(shown.clone(), FindingKind::TestSkipped)
                .expected(format!("{k} runs"))
                .actual(format!("{k} skipped")),
        );
    }
    let universe: Vec<&String> = if rf.is_empty() {
        ws.keys().collect()
    } else {
        rf.keys().collect()
    };
    let ok = universe
        .iter()
        .filter(|k| match ws.get(**k) {
            Some(TestOutcome::Passed) => true,
            Some(TestOutcome::Skipped) => !ran_in_reference(k),
            _ => false,
        })
        .count();
    verdict(
        "test-invariance",
        findings,
        ok,
        universe.len(),
        vec![
            ("workspaceTests", ws.len().into()),
            ("referenceTests", rf.len().into()),
        ],
    )
}
