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

/// Why a folder of Surefire reports was not read.
#[derive(Debug, thiserror::Error)]
pub enum SurefireError {
    /// The folder cannot be listed.
    #[error("cannot read {}: {source}", .dir.display())]
    Folder {
        /// The folder.
        dir: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A report the subject could have supplied.
    #[error("refused as evidence: {why}")]
    Refused {
        /// Why, as the freshness check said it.
        why: String,
    },
    /// A report could not be read.
    #[error("cannot read {name}: {source}")]
    Read {
        /// The report's file name.
        name: String,
        /// Why.
        #[source]
        source: crate::judges::paths::FileError,
    },
    /// A report is not XML judge-ci reads (it names the report).
    #[error("not a Surefire report: {0}")]
    Xml(#[source] crate::untrusted::XmlError),
}

/// Reads every `TEST-*.xml` in a folder: `Class#method` → outcome. DTDs are refused, and so
/// is a report `fresh` says the subject could have supplied.
pub fn read_reports(
    dir: &Path,
    fresh: Option<&Freshness>,
) -> Result<BTreeMap<String, TestOutcome>, SurefireError> {
    let mut out = BTreeMap::new();
    let entries = std::fs::read_dir(dir).map_err(|source| SurefireError::Folder {
        dir: dir.to_path_buf(),
        source,
    })?;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("TEST-") && name.ends_with(".xml")) {
            continue;
        }
        if let Some(why) = fresh.and_then(|f| f.refuse(&e.path(), &name)) {
            return Err(SurefireError::Refused { why });
        }
        let text = crate::judges::paths::read_text_limited(
            &e.path(),
            crate::judges::paths::MAX_REPORT_BYTES,
        )
        .map_err(|source| SurefireError::Read {
            name: name.clone(),
            source,
        })?;
        let doc = crate::untrusted::parse_xml(&name, &text, false).map_err(SurefireError::Xml)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_that_is_not_xml_or_not_a_file_is_named() {
        let d = tempfile::tempdir().unwrap();
        assert!(matches!(
            read_reports(&d.path().join("none"), None),
            Err(SurefireError::Folder { .. })
        ));
        std::fs::write(
            d.path().join("TEST-a.xml"),
            "<testsuite><testcase name=\"t\" classname=\"A\"/></testsuite>",
        )
        .unwrap();
        let ok = read_reports(d.path(), None).unwrap();
        assert_eq!(ok.get("A#t"), Some(&TestOutcome::Passed));
        std::fs::write(d.path().join("TEST-b.xml"), "<testsuite>").unwrap();
        let e = read_reports(d.path(), None).unwrap_err();
        assert!(
            matches!(&e, SurefireError::Xml(crate::untrusted::XmlError::NotWellFormed { what, .. }) if what == "TEST-b.xml"),
            "{e}"
        );
        std::fs::remove_file(d.path().join("TEST-b.xml")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", d.path().join("TEST-c.xml")).unwrap();
        let e = read_reports(d.path(), None).unwrap_err();
        assert!(
            matches!(&e, SurefireError::Read { name, source: crate::judges::paths::FileError::NotRegular(_) } if name == "TEST-c.xml"),
            "{e}"
        );
    }
}
