//! The findings of a report, each with the judge (seat) that found it: the one place the
//! surfaces read the judgments' typed findings from.

use crate::judgment::{Finding, FindingFamily};

use super::model::Report;

/// Every finding of the verdict's judgments with its judge's seat name, in verdict order.
pub fn all(r: &Report) -> impl Iterator<Item = (&str, &Finding)> {
    r.verdict
        .individual_by_name()
        .iter()
        .flat_map(|(name, j)| j.findings().iter().map(move |f| (name.as_str(), f)))
}

/// The findings that are evidence rather than differences from the reference: compiler errors
/// and text addressed to the grader (the differences are the report's `diffs`).
pub fn evidence(r: &Report) -> impl Iterator<Item = (&str, &Finding)> {
    all(r).filter(|(_, f)| match f.kind.family() {
        FindingFamily::CompilerError | FindingFamily::PromptInjection => true,
        FindingFamily::Difference => false,
    })
}
