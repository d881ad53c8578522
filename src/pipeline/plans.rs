//! The plan a `semantic-diff` check verifies (`plan: PLAN.md`: its `VERIFY:` lines are the
//! criteria) is a file of the workspace. In a pull-request context the workspace is the pull
//! request's, so its plan is an exam the subject writes itself (trust.md points 1 and 26,
//! attack findings F32 and newer F8/F9: a PR that rewrites the plan to "VERIFY: the file
//! pom.xml exists", or deletes it, decided its own verdict). There the plan is a file the
//! config names: read from the trusted revision, its criteria fixed before judging, and a
//! pull request that changes it is told so with the judge's other files.

use std::path::Path;

use crate::config::checks::CheckKind;
use crate::config::llm::{CriteriaSource, Question};
use crate::config::{Benchmark, CheckSpec, ConfigSource, JurySpec};

use super::error::InputError;

/// In a pull-request context (`source` is a trusted tree), replaces each plan a
/// `semantic-diff` check names with the criteria of the trusted revision's copy of it.
pub fn from_trusted_side(
    bench: &mut Benchmark,
    source: &ConfigSource,
    workspace: &Path,
) -> Result<(), InputError> {
    if source.tree().is_none() {
        return Ok(());
    }
    let mut checks = Vec::new();
    all_checks_mut(&mut bench.jury, &mut checks);
    for check in checks {
        if let CheckKind::Semantic {
            question: Question::SemanticDiff { criteria, .. },
            ..
        } = &mut check.kind
            && let CriteriaSource::Plan(p) = criteria
        {
            let path = workspace.join(p.as_path());
            let text = source
                .read_to_string(&path)
                .map_err(|source| InputError::PlanFile { path, source })?;
            *criteria = CriteriaSource::Listed(crate::judges::llm::verify_lines(&text));
        }
    }
    Ok(())
}

fn all_checks_mut<'a>(spec: &'a mut JurySpec, out: &mut Vec<&'a mut CheckSpec>) {
    match spec {
        JurySpec::Checks { checks, .. } => out.extend(checks.iter_mut()),
        JurySpec::Tiers(tiers) => out.extend(tiers.iter_mut().flat_map(|t| t.checks.iter_mut())),
        JurySpec::Members { members, .. } => {
            for m in members {
                all_checks_mut(&mut m.jury, out);
            }
        }
    }
}
