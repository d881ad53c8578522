//! Reading Surefire's XML reports. They are the subject's processes' output: `test-invariance`
//! and `maven-build` decide on judge-ci's own run of the trusted tests
//! ([`crate::judges::oracle`]) and use these only as a cross-check.

use std::collections::BTreeMap;
use std::path::Path;

use super::super::evidence::Freshness;

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
