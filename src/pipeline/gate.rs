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
                "{} But {what}, and fail-on is error, so the gate fails (exit 3).",
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

/// The gate for a reading under the config's `fail-on`. The reason says exactly what decided:
/// the reading (and the tier that reached it), the `fail-on` in force, and why that reading
/// passes or fails the gate under it, with the exit code.
pub fn gate(reading: Option<Reading>, fail_on: FailOn, decided_by: Option<&str>) -> Outcome {
    let at = decided_by
        .map(|t| format!(" at tier '{t}'"))
        .unwrap_or_default();
    let said = match reading {
        Some(Reading::Accepted) => format!("The subject was accepted{at}."),
        Some(Reading::NotApplicable) => {
            "The jury found the question not applicable to this subject.".to_string()
        }
        Some(Reading::Rejected) => format!("The subject was rejected{at}."),
        Some(Reading::Undecided) => format!("The jury could not decide{at}."),
        Some(Reading::NotAssessed) | None => "The instrument failed: a judge or the jury could not reach a finding, so the subject was not assessed.".to_string(),
    };
    let (code, why) = decide(reading, fail_on);
    let verdict = if code == EXIT_PASS {
        "the gate passes (exit 0)".to_string()
    } else {
        format!("the gate fails (exit {code})")
    };
    Outcome {
        gate: if code == EXIT_PASS {
            Gate::Pass
        } else {
            Gate::Fail
        },
        exit_code: code,
        reason: format!("{said} fail-on is {fail_on}: {why}, so {verdict}."),
        fail_on: Some(fail_on.to_string()),
        errored_tiers: Vec::new(),
    }
}

/// The exit code of a reading under `fail-on`, and the rule that gives it, in words. Every
/// pair is spelled out: no reading falls to a default.
fn decide(reading: Option<Reading>, fail_on: FailOn) -> (i32, &'static str) {
    use FailOn::{Error, Fail, Never, NotPass};
    match (reading, fail_on) {
        (_, Never) => (EXIT_PASS, "no reading fails the gate"),
        (Some(Reading::Accepted), Fail | NotPass | Error) => {
            (EXIT_PASS, "an accepted reading passes")
        }
        (Some(Reading::NotApplicable), Fail | NotPass | Error) => {
            (EXIT_PASS, "a not-applicable reading passes")
        }
        (Some(Reading::Rejected), Fail | NotPass | Error) => {
            (EXIT_REJECTED, "a rejected reading fails")
        }
        (Some(Reading::Undecided), NotPass) => (
            EXIT_REJECTED,
            "only an accepted or not-applicable reading passes, and undecided is neither",
        ),
        (Some(Reading::Undecided), Fail | Error) => (
            EXIT_PASS,
            "an undecided reading passes (fail-on: not-pass would fail it)",
        ),
        (Some(Reading::NotAssessed) | None, Fail | NotPass | Error) => {
            (EXIT_INSTRUMENT, "a subject that was not assessed fails")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const READINGS: [Option<Reading>; 6] = [
        Some(Reading::Accepted),
        Some(Reading::NotApplicable),
        Some(Reading::Rejected),
        Some(Reading::Undecided),
        Some(Reading::NotAssessed),
        None,
    ];

    /// One expected exit code per reading × fail-on (fail, not-pass, never, error).
    fn expected(reading: Option<Reading>) -> [i32; 4] {
        match reading {
            Some(Reading::Accepted | Reading::NotApplicable) => [0, 0, 0, 0],
            Some(Reading::Rejected) => [1, 1, 0, 1],
            Some(Reading::Undecided) => [0, 1, 0, 0],
            Some(Reading::NotAssessed) | None => [3, 3, 0, 3],
        }
    }

    #[test]
    fn every_reading_under_every_fail_on_says_what_decided() {
        let fail_ons = [FailOn::Fail, FailOn::NotPass, FailOn::Never, FailOn::Error];
        for reading in READINGS {
            for (fail_on, code) in fail_ons.into_iter().zip(expected(reading)) {
                let o = gate(reading, fail_on, Some("build"));
                let what = format!("{reading:?} under {fail_on}: {}", o.reason);
                assert_eq!(o.exit_code, code, "{what}");
                assert_eq!(o.gate == Gate::Pass, code == 0, "{what}");
                assert_eq!(o.fail_on.as_deref(), Some(fail_on.to_string().as_str()));
                assert!(
                    o.reason.contains(&format!("fail-on is {fail_on}:")),
                    "the fail-on in force: {what}"
                );
                let says = if code == 0 {
                    "so the gate passes (exit 0).".to_string()
                } else {
                    format!("so the gate fails (exit {code}).")
                };
                assert!(o.reason.ends_with(&says), "the result: {what}");
                let reading_said = match reading {
                    Some(Reading::Accepted) => "accepted at tier 'build'",
                    Some(Reading::NotApplicable) => "not applicable",
                    Some(Reading::Rejected) => "rejected at tier 'build'",
                    Some(Reading::Undecided) => "could not decide at tier 'build'",
                    Some(Reading::NotAssessed) | None => "not assessed",
                };
                assert!(o.reason.contains(reading_said), "the reading: {what}");
            }
        }
    }

    #[test]
    fn an_error_under_fail_on_error_fails_a_passing_reading_and_says_so() {
        let errored = || {
            vec![report::ErroredTier {
                tier: "build".into(),
                judges: vec!["compile".into()],
                reason: "timeout".into(),
            }]
        };
        for reading in [Some(Reading::Accepted), Some(Reading::NotApplicable)] {
            let o = gate_with_errors(reading, FailOn::Error, None, errored());
            assert_eq!(o.exit_code, 3, "{}", o.reason);
            assert!(
                o.reason
                    .contains("tier 'build' could not run, and fail-on is error"),
                "{}",
                o.reason
            );
            for lenient in [FailOn::Fail, FailOn::NotPass, FailOn::Never] {
                let o = gate_with_errors(reading, lenient, None, errored());
                assert_eq!(o.exit_code, 0, "{}", o.reason);
                assert!(
                    o.reason.contains("fail-on: error would fail it"),
                    "{}",
                    o.reason
                );
            }
        }
        // A failing reading keeps its own code.
        let o = gate_with_errors(Some(Reading::Rejected), FailOn::Error, None, errored());
        assert_eq!(o.exit_code, 1, "{}", o.reason);
    }
}
