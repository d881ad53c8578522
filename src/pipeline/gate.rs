//! Stage 8, the gate: a reading under `fail-on` becomes the outcome and its exit code.

use super::exit::{EXIT_INSTRUMENT, EXIT_PASS, EXIT_REJECTED};
use crate::config::FailOn;
use crate::jury::interpret::Reading;
use crate::report::{self, Gate, Outcome};

/// The gate for a reading under the config's `fail-on`, with the tiers that could not run:
/// under `fail-on: error` an accepted (or not applicable) reading with any of them exits 3,
/// since a pull request can make a tier ERROR on purpose (`spec/trust.md` point 12).
pub fn gate_with_errors(
    reading: Option<Reading>,
    fail_on: FailOn,
    decided_by: Option<&str>,
    errored: Vec<report::ErroredTier>,
) -> Outcome {
    let mut o = gate(reading, fail_on, decided_by);
    let passing = matches!(reading, Some(Reading::Accepted | Reading::NotApplicable));
    if passing && !errored.is_empty() {
        let names: Vec<String> = errored
            .iter()
            .filter(|t| !t.is_task_commands())
            .map(|t| format!("'{}'", t.tier))
            .collect();
        let tiers = (!names.is_empty()).then(|| {
            format!(
                "{} {} could not run",
                if names.len() == 1 { "tier" } else { "tiers" },
                names.join(", ")
            )
        });
        let task = errored
            .iter()
            .any(report::ErroredTier::is_task_commands)
            .then(|| "the task commands failed".to_string());
        let what = task
            .into_iter()
            .chain(tiers)
            .collect::<Vec<_>>()
            .join(" and ");
        if fail_on == FailOn::Error {
            o.exit_code = EXIT_INSTRUMENT;
            o.gate = Gate::Fail;
            o.reason = format!(
                "{} But {what}, and fail-on is error, so the gate fails.",
                o.reason
            );
        } else {
            o.reason = format!(
                "{} But {what}; fail-on is {fail_on}, so the gate ignores it (fail-on: error would fail it).",
                o.reason,
            );
        }
    }
    o.errored_tiers = errored;
    o
}

/// The gate for a reading under the config's `fail-on`.
pub fn gate(reading: Option<Reading>, fail_on: FailOn, decided_by: Option<&str>) -> Outcome {
    let at = decided_by
        .map(|t| format!(" at tier '{t}'"))
        .unwrap_or_default();
    let (code, reason) = match reading {
        Some(Reading::Accepted) => (EXIT_PASS, format!("The subject was accepted{at}.")),
        Some(Reading::NotApplicable) => (EXIT_PASS, "The jury found the question not applicable to this subject.".to_string()),
        Some(Reading::Rejected) => (EXIT_REJECTED, format!("The subject was rejected{at}.")),
        Some(Reading::Undecided) if fail_on == FailOn::NotPass => (EXIT_REJECTED, format!("The jury could not decide{at}, and fail-on is not-pass.")),
        Some(Reading::Undecided) => (EXIT_PASS, format!("The jury could not decide{at}; fail-on is fail, so the gate passes.")),
        Some(Reading::NotAssessed) | None => {
            (EXIT_INSTRUMENT, "The instrument failed: a judge or the jury could not reach a finding, so the subject was not assessed.".to_string())
        }
    };
    let (code, reason) = if fail_on == FailOn::Never && code != EXIT_PASS {
        (
            EXIT_PASS,
            format!("{reason} fail-on is never, so the gate passes."),
        )
    } else {
        (code, reason)
    };
    Outcome {
        gate: if code == EXIT_PASS {
            Gate::Pass
        } else {
            Gate::Fail
        },
        exit_code: code,
        reason,
        errored_tiers: Vec::new(),
    }
}
