//! JaCoCo XML reading and the two coverage judges (jury-semantics §3.2).

use std::time::SystemTime;

use super::evidence::Freshness;
use std::path::{Path, PathBuf};

use crate::config::checks::{Baseline, WorkspacePath};
use crate::judgment::{Cause, Judgment, JudgmentContext, Status};

use super::paths::{Resolved, resolve};
use super::{Outcome, build, instrument_because};

/// Covered and missed counts of one counter type.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counter {
    /// Covered items.
    pub covered: u64,
    /// Missed items.
    pub missed: u64,
}

impl Counter {
    /// Percentage covered; 0 when there is nothing to cover.
    pub fn percent(&self) -> f64 {
        let total = self.covered + self.missed;
        if total == 0 {
            0.0
        } else {
            self.covered as f64 * 100.0 / total as f64
        }
    }
}

/// The report-level totals of a JaCoCo report.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coverage {
    /// LINE counter.
    pub line: Counter,
    /// BRANCH counter.
    pub branch: Counter,
    /// METHOD counter.
    pub method: Counter,
}

/// Why a JaCoCo report's text is not a coverage report.
#[derive(Debug, thiserror::Error)]
pub enum JacocoError {
    /// Not XML judge-ci reads (malformed, an entity, over a bound).
    #[error("not JaCoCo XML: {0}")]
    Xml(#[source] crate::untrusted::XmlError),
    /// XML, but not a JaCoCo report.
    #[error("not a JaCoCo report: the root element is <{root}>")]
    NotAReport {
        /// The root element's name.
        root: String,
    },
    /// A counter whose `covered` or `missed` is not a count.
    #[error("a <counter> without numeric covered/missed at byte {byte}")]
    BadCounter {
        /// Where it starts, in bytes.
        byte: usize,
    },
}

/// Parses JaCoCo XML: every `<counter>` in document order, the last of each type winning
/// (which is the report-level total). The DTD is declared but never loaded.
pub fn parse_jacoco(xml: &str) -> Result<Coverage, JacocoError> {
    let doc = crate::untrusted::parse_xml("the report", xml, true).map_err(JacocoError::Xml)?;
    if doc.root_element().tag_name().name() != "report" {
        return Err(JacocoError::NotAReport {
            root: doc.root_element().tag_name().name().to_string(),
        });
    }
    let mut c = Coverage::default();
    for n in doc.descendants().filter(|n| n.has_tag_name("counter")) {
        let num = |a: &str| n.attribute(a).and_then(|v| v.parse::<u64>().ok());
        let (Some(covered), Some(missed)) = (num("covered"), num("missed")) else {
            return Err(JacocoError::BadCounter {
                byte: n.range().start,
            });
        };
        let counter = Counter { covered, missed };
        match n.attribute("type") {
            Some("LINE") => c.line = counter,
            Some("BRANCH") => c.branch = counter,
            Some("METHOD") => c.method = counter,
            _ => {}
        }
    }
    Ok(c)
}

/// Why a coverage judge has no report or no baseline to compare (an ERROR naming it).
#[derive(Debug, thiserror::Error)]
pub enum CoverageError {
    /// The configured report path leaves the tree.
    #[error("path escapes the workspace: {why}")]
    Escapes {
        /// Why, as the path check said it.
        why: String,
    },
    /// The report is not there: evidence the run did not produce.
    #[error("coverage report not found: {} (did the build run JaCoCo?)", .report.display())]
    Missing {
        /// The configured report path.
        report: PathBuf,
    },
    /// The report is one the subject could have supplied.
    #[error("refused as evidence: {why}")]
    Refused {
        /// Why, as the freshness check said it.
        why: String,
    },
    /// The report could not be read.
    #[error("cannot read {}: {source}", .report.display())]
    Read {
        /// The configured report path.
        report: PathBuf,
        /// Why.
        #[source]
        source: super::paths::FileError,
    },
    /// The report is not JaCoCo XML.
    #[error("Failed to parse {}: {source}", .report.display())]
    Parse {
        /// The configured report path.
        report: PathBuf,
        /// Why.
        #[source]
        source: JacocoError,
    },
    /// The report path is or passes through a symbolic link (in the reference: the
    /// workspace's is a finding instead).
    #[error("{link} is a symbolic link, not followed")]
    Link {
        /// The link.
        link: String,
    },
    /// The reference's report, read for the baseline, is unusable.
    #[error("reference baseline: {0}")]
    Reference(#[source] Box<CoverageError>),
}

impl CoverageError {
    /// The cause judge-ci observed: a report missing from the workspace is evidence this run
    /// did not produce; the reference's problems are the instrument's, with no cause.
    pub fn cause(&self) -> Option<Cause> {
        match self {
            CoverageError::Missing { .. } => Some(Cause::EvidenceMissing),
            CoverageError::Escapes { .. }
            | CoverageError::Refused { .. }
            | CoverageError::Read { .. }
            | CoverageError::Parse { .. }
            | CoverageError::Link { .. }
            | CoverageError::Reference(_) => None,
        }
    }
}

enum Read {
    Ok(Coverage),
    /// The path is or passes through a symbolic link inside the workspace (that link).
    ThroughLink(String),
    Fault(CoverageError),
}

/// Reads a JaCoCo report; `fresh` (the workspace's, not the reference's) refuses one the
/// subject could have supplied.
fn read_report(root: &Path, report: &WorkspacePath, fresh: Option<&Freshness>) -> Read {
    let shown = report.as_path().to_path_buf();
    match resolve(root, report.as_path()) {
        Resolved::Escapes(why) => Read::Fault(CoverageError::Escapes { why }),
        Resolved::ThroughLink(link) => Read::ThroughLink(link),
        Resolved::Missing(_) => Read::Fault(CoverageError::Missing { report: shown }),
        Resolved::Inside(p) => {
            if let Some(why) = fresh.and_then(|f| f.refuse(&p, &shown.display().to_string())) {
                return Read::Fault(CoverageError::Refused { why });
            }
            match super::paths::read_text_limited(&p, super::paths::MAX_REPORT_BYTES) {
                Err(source) => Read::Fault(CoverageError::Read {
                    report: shown,
                    source,
                }),
                Ok(xml) => match parse_jacoco(&xml) {
                    Ok(c) => Read::Ok(c),
                    Err(source) => Read::Fault(CoverageError::Parse {
                        report: shown,
                        source,
                    }),
                },
            }
        }
    }
}

/// The baseline in percent: configured, the reference's report, or metadata
/// `baselineCoverage` (a number, a numeric string, or an object with `lineCoverage`).
fn baseline(
    ctx: &JudgmentContext,
    configured: Option<&Baseline>,
    report: &WorkspacePath,
) -> Result<Option<f64>, CoverageError> {
    match configured {
        Some(Baseline::Percent(p)) => Ok(Some(*p)),
        Some(Baseline::Reference) => {
            let Some(r) = ctx.reference.as_deref() else {
                return Ok(None);
            };
            match read_report(r, report, None) {
                Read::Ok(c) => Ok(Some(c.line.percent())),
                Read::Fault(e) => Err(CoverageError::Reference(Box::new(e))),
                Read::ThroughLink(link) => {
                    Err(CoverageError::Reference(Box::new(CoverageError::Link {
                        link,
                    })))
                }
            }
        }
        None => Ok(ctx.conventions.baseline_coverage),
    }
}

fn inputs(
    ctx: &JudgmentContext,
    since: Option<SystemTime>,
    configured: Option<&Baseline>,
    report: &WorkspacePath,
) -> Result<(f64, Coverage), Box<Outcome>> {
    let base = match baseline(ctx, configured, report) {
        Ok(Some(b)) if b.is_finite() => b,
        Ok(_) => {
            return Err(Box::new(build(Judgment::builder(Status::Abstain).cause(Cause::JudgeMisconfigured).reasoning(
                "no baseline coverage: set `baseline` on the check or metadata baselineCoverage (percent)",
            ))));
        }
        Err(e) => return Err(Box::new(instrument_because(e.cause(), e.to_string()))),
    };
    let fresh = Freshness::new(&ctx.workspace, since);
    match read_report(&ctx.workspace, report, Some(&fresh)) {
        Read::Ok(c) => Ok((base, c)),
        Read::Fault(e) => Err(Box::new(instrument_because(e.cause(), e.to_string()))),
        Read::ThroughLink(link) => Err(Box::new(super::not_regular_fail(
            "coverage",
            Path::new(""),
            &[(link, crate::untrusted::Kind::Symlink)],
        ))),
    }
}

/// Refuses a coverage report in the workspace as evidence, whatever it says: the subject's
/// own processes wrote it (the build and the tests that ran the code it measures; a test's
/// shutdown hook or the build script can write any number), and judge-ci has no coverage
/// instrument of its own whose result code in that JVM could not change (`spec/trust.md`
/// point 17, `docs/test-oracle.md`). An ERROR the subject can cause (`evidence_missing`), so
/// it fails the gate under every `fail-on`; `would` (what the report claims, judged as the
/// check is configured) is said, not decided on.
fn subject_written(report: &WorkspacePath, would: &str) -> Outcome {
    instrument_because(
        Some(Cause::EvidenceMissing),
        format!(
            "refused as evidence: {} was written by the subject's own processes (its build ran the code the report measures), and judge-ci has no coverage instrument of its own, so no coverage judgment passes on it. Not decided: {would}",
            report.as_path().display()
        ),
    )
}

/// Never decided on the workspace's own report (`subject_written`); what it would be: PASS
/// iff line coverage dropped by at most `max_drop` points.
pub fn preservation(
    ctx: &JudgmentContext,
    since: Option<SystemTime>,
    max_drop: f64,
    report: &WorkspacePath,
    configured: Option<&Baseline>,
) -> Outcome {
    let (base, cov) = match inputs(ctx, since, configured, report) {
        Ok(x) => x,
        Err(j) => return *j,
    };
    let current = cov.line.percent();
    let drop = base - current;
    let passed = drop <= max_drop;
    subject_written(
        report,
        &format!(
            "the report claims line coverage {current:.1}% against a baseline of {base:.1}%: a drop of {drop:.1} points (allowed: {max_drop:.1}), which would {}",
            if passed { "pass" } else { "fail" }
        ),
    )
}

/// Never decided on the workspace's own report (`subject_written`); what it would be:
/// PASS iff improved and the minimum met.
pub fn improvement(
    ctx: &JudgmentContext,
    since: Option<SystemTime>,
    max_improvement: f64,
    minimum: f64,
    report: &WorkspacePath,
    configured: Option<&Baseline>,
) -> Outcome {
    let (base, cov) = match inputs(ctx, since, configured, report) {
        Ok(x) => x,
        Err(j) => return *j,
    };
    let current = cov.line.percent();
    let delta = current - base;
    let score = (delta / max_improvement).clamp(0.0, 1.0);
    let improved = delta > 0.0;
    let min_met = minimum <= 0.0 || current >= minimum;
    subject_written(
        report,
        &format!(
            "the report claims line coverage {current:.1}% against a baseline of {base:.1}%: {delta:+.1} points (score {score:.2}){}, which would {}",
            if minimum > 0.0 {
                format!(
                    ", minimum {minimum:.1}% {}",
                    if min_met { "met" } else { "not met" }
                )
            } else {
                String::new()
            },
            if improved && min_met { "pass" } else { "fail" }
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_counter_of_each_type_wins() {
        let xml = r#"<?xml version="1.0"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd">
<report name="x"><package name="p"><counter type="LINE" missed="9" covered="1"/></package>
<counter type="LINE" missed="2" covered="6"/><counter type="BRANCH" missed="1" covered="1"/></report>"#;
        let c = parse_jacoco(xml).unwrap();
        assert_eq!(
            c.line,
            Counter {
                covered: 6,
                missed: 2
            }
        );
        assert!((c.line.percent() - 75.0).abs() < 1e-9);
        let e = parse_jacoco("<html/>").unwrap_err();
        assert!(
            matches!(&e, JacocoError::NotAReport { root } if root == "html"),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "not a JaCoCo report: the root element is <html>"
        );
        let e = parse_jacoco("not xml").unwrap_err();
        assert!(
            matches!(
                e,
                JacocoError::Xml(crate::untrusted::XmlError::NotWellFormed { .. })
            ),
            "{e}"
        );
        let e = parse_jacoco(r#"<report><counter type="LINE" missed="x" covered="1"/></report>"#)
            .unwrap_err();
        assert!(matches!(e, JacocoError::BadCounter { byte: 8 }), "{e}");
        assert_eq!(Counter::default().percent(), 0.0);
    }

    #[test]
    fn a_report_in_the_workspace_never_passes_a_coverage_judge() {
        // Attack finding F22c: the subject's build wrote a 100% report.
        let ws = tempfile::tempdir().unwrap();
        let at = ws.path().join("target/site/jacoco/jacoco.xml");
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(
            &at,
            r#"<report name="x"><counter type="LINE" missed="0" covered="100"/></report>"#,
        )
        .unwrap();
        let ctx = JudgmentContext::new(ws.path());
        let report = WorkspacePath::new("target/site/jacoco/jacoco.xml").unwrap();
        let baseline = Baseline::Percent(90.0);
        for j in [
            preservation(&ctx, None, 5.0, &report, Some(&baseline)).unwrap(),
            improvement(&ctx, None, 50.0, 0.0, &report, Some(&baseline)).unwrap(),
        ] {
            assert_eq!(j.status(), Status::Error, "{j:?}");
            assert_eq!(j.cause(), Some(Cause::EvidenceMissing));
            assert!(
                j.reasoning().contains("refused as evidence")
                    && j.reasoning().contains("would pass"),
                "{}",
                j.reasoning()
            );
        }
    }

    #[test]
    fn external_entities_are_not_expanded() {
        let xml = r#"<?xml version="1.0"?><!DOCTYPE report [<!ENTITY x SYSTEM "file:///etc/passwd">]><report>&x;</report>"#;
        let e = parse_jacoco(xml).unwrap_err();
        assert!(
            matches!(
                e,
                JacocoError::Xml(crate::untrusted::XmlError::NotWellFormed { .. })
            ),
            "{e}"
        );
    }
}
