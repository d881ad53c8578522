//! `coverage-preservation` and `coverage-improvement`: JaCoCo line coverage against a baseline.

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;

use super::read::{CheckNode, get, path_key};
use super::{CheckInfo, CheckKind, Facts, Family, Keeps, WorkspaceReads};
use crate::config::yaml::{Kind, Reader, key};
use crate::judgment::Phase;

/// `coverage-preservation`: PASS if line coverage dropped by at most max-drop points.
#[rustfmt::skip]
pub const COVERAGE_PRESERVATION: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Outputs,
        keeps: Keeps::WhatItReads,
        reads_reference_folder: true,
        replayed_on_resume: true,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "PASS if line coverage dropped by at most max-drop points",
    keys: keys![
        key("max-drop", Kind::Number, "allowed drop in percentage points (5.0)"),
        key("report", Kind::Str, "JaCoCo XML (target/site/jacoco/jacoco.xml)"),
        key("baseline", Kind::Any, "baseline line coverage in percent, or `reference`")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_coverage_preservation),
};

/// Reads one `coverage-preservation` check.
fn read_coverage_preservation(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    let max_drop = match get(m, "max-drop") {
        Some(n) => non_negative(r, n, &format!("{what}.max-drop"))?,
        None => 5.0,
    };
    Some(CheckKind::CoveragePreservation {
        max_drop,
        report: path_key(r, m, "report", Some("target/site/jacoco/jacoco.xml"), what)?,
        baseline: baseline(r, m, what)?,
    })
}

/// `coverage-improvement`: PASS if line coverage improved (and the minimum is met).
#[rustfmt::skip]
pub const COVERAGE_IMPROVEMENT: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Outputs,
        keeps: Keeps::WhatItReads,
        reads_reference_folder: true,
        replayed_on_resume: true,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "PASS if line coverage improved (and the minimum is met)",
    keys: keys![
        key("min", Kind::Number, "improvement in points that scores 1.0 (50; agent-bench's name)"),
        key("minimum-line-coverage", Kind::Number, "minimum line coverage in percent (0)"),
        key("report", Kind::Str, "JaCoCo XML"),
        key("baseline", Kind::Any, "baseline line coverage in percent, or `reference`")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_coverage_improvement),
};

/// Reads one `coverage-improvement` check.
fn read_coverage_improvement(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    let max_improvement = match get(m, "min") {
        Some(n) => {
            let v = r.number(n, &format!("{what}.min"))?;
            if v <= 0.0 {
                r.error(
                    n,
                    format!(
                        "{what}.min must be positive (the improvement in points that scores 1.0)"
                    ),
                );
                return None;
            }
            v
        }
        None => 50.0,
    };
    let minimum_line_coverage = match get(m, "minimum-line-coverage") {
        Some(n) => non_negative(r, n, &format!("{what}.minimum-line-coverage"))?,
        None => 0.0,
    };
    Some(CheckKind::CoverageImprovement {
        max_improvement,
        minimum_line_coverage,
        report: path_key(r, m, "report", Some("target/site/jacoco/jacoco.xml"), what)?,
        baseline: baseline(r, m, what)?,
    })
}

/// Where a coverage baseline comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Baseline {
    /// A line-coverage percentage.
    Percent(f64),
    /// The reference's own JaCoCo report (same relative path).
    Reference,
}

fn baseline(r: &mut Reader, m: &MarkedMappingNode, what: &str) -> Option<Option<Baseline>> {
    match get(m, "baseline") {
        None => Some(None),
        Some(n) if n.as_scalar().is_some_and(|s| s.as_str() == "reference") => {
            Some(Some(Baseline::Reference))
        }
        Some(n) => {
            let v = r.number(n, &format!("{what}.baseline"))?;
            if !(0.0..=100.0).contains(&v) {
                r.error_help(
                    n,
                    format!("{what}.baseline must be a percentage"),
                    "write a number from 0 to 100, or `reference`",
                );
                return None;
            }
            Some(Some(Baseline::Percent(v)))
        }
    }
}

fn non_negative(r: &mut Reader, n: &Node, what: &str) -> Option<f64> {
    let v = r.number(n, what)?;
    if v < 0.0 {
        r.error(n, format!("{what} must not be negative"));
        return None;
    }
    Some(v)
}
