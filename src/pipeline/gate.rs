//! Stage 8, the gate: a reading under `fail-on` becomes the outcome and its exit code.

use super::exit::{EXIT_INSTRUMENT, EXIT_PASS, EXIT_REJECTED};
use crate::config::FailOn;
use crate::jury::interpret::Reading;
use crate::report::{self, Gate, Outcome};

/// The gate for a reading under the config's `fail-on`, with the tiers (and the task
/// commands) that could not run. A reading that would pass the gate does not when any of them
/// ended ERROR and either `fail-on` is `error` (any ERROR fails, exit 3) or the subject can
/// have caused that ERROR (exit 3 under `fail` and `not-pass` too): a pull request can make a
/// tier ERROR on purpose, and a lenient `fail-on` waives only ERRORs of judge-ci's own
/// instrument (`spec/trust.md` point 12). `never` waives every reading, so it waives these
/// too, and says so.
pub fn gate_with_errors(
    reading: Option<Reading>,
    fail_on: FailOn,
    decided_by: Option<&str>,
    errored: Vec<report::ErroredTier>,
) -> Outcome {
    let mut o = gate(reading, fail_on, decided_by);
    // A subject not assessed because of an ERROR the change can cause is not "the instrument
    // failed" (attack finding NC4: a test the change made run past the time limit read as
    // judge-ci's own failure); the sentence says whose doing it is.
    let subject_caused: Vec<&report::ErroredTier> =
        errored.iter().filter(|t| t.subject_can_cause()).collect();
    if matches!(reading, Some(Reading::NotAssessed) | None) && !subject_caused.is_empty() {
        o.reason = o.reason.replacen(
            NOT_ASSESSED,
            &format!(
                "The subject was not assessed: {}, for a cause the change can bring about (judge-ci did not observe its own instrument failing), so it counts against the change.",
                what(&subject_caused)
            ),
            1,
        );
    }
    if o.exit_code == EXIT_PASS && !errored.is_empty() {
        let (said, code, why) = parts(reading, fail_on, decided_by);
        debug_assert_eq!(code, EXIT_PASS);
        let subject: Vec<&report::ErroredTier> =
            errored.iter().filter(|t| t.subject_can_cause()).collect();
        let all: Vec<&report::ErroredTier> = errored.iter().collect();
        let (fails, tail) = match fail_on {
            FailOn::Error => (
                true,
                format!("but {}, and under error any ERROR fails", what(&all)),
            ),
            FailOn::Fail | FailOn::NotPass if !subject.is_empty() => (
                true,
                format!(
                    "but {}: an ERROR the change can cause, which no fail-on waives ({fail_on} waives only judge-ci's own instrument failing)",
                    what(&subject)
                ),
            ),
            FailOn::Fail | FailOn::NotPass => (
                false,
                format!(
                    "and {} only because judge-ci's own instrument failed (a cause the change cannot bring about), which {fail_on} waives (fail-on: error would not)",
                    what(&all)
                ),
            ),
            FailOn::Never => (
                false,
                format!(
                    "and {}, which never waives too, as it waives every reading",
                    what(&all)
                ),
            ),
        };
        let verdict = if fails {
            o.exit_code = EXIT_INSTRUMENT;
            o.gate = Gate::Fail;
            "the gate fails (exit 3)"
        } else {
            "the gate passes (exit 0)"
        };
        o.reason = format!("{said} fail-on is {fail_on}: {why}, {tail}, so {verdict}.");
    } else if !errored.is_empty() && reading == Some(Reading::Rejected) {
        // A rejection keeps its own code; the ERRORs beside it are said too, so the sentence
        // names everything that could have decided (attack finding F6b). (A reading not
        // assessed is the ERRORs' own doing, and says so already.)
        let all: Vec<&report::ErroredTier> = errored.iter().collect();
        o.reason = format!(
            "{} Besides, {}; the reading already fails the gate, so its exit code ({}) stands.",
            o.reason,
            what(&all),
            o.exit_code
        );
    }
    o.errored_tiers = errored;
    o
}

/// The gate as [`gate_with_errors`] gives it, then what counts against the change whatever
/// the reading (`against`): a reading that would still pass fails (exit 1) under every
/// `fail-on` but `never` when a judge abstained because of what the change did to it
/// (material the model could not be shown in full, a plan it deleted, text addressed to the
/// grader), or when one of judge-ci's own trust checks (protected paths, unjudged changes,
/// build code added) failed and the tier's voting outvoted it (`spec/trust.md` points 2, 12,
/// 19 and 20; attack findings S4, S5, F9, NC2, NC8).
pub fn gate_all(
    reading: Option<Reading>,
    fail_on: FailOn,
    decided_by: Option<&str>,
    errored: Vec<report::ErroredTier>,
    against: Vec<report::CountsAgainst>,
) -> Outcome {
    let mut o = gate_with_errors(reading, fail_on, decided_by, errored);
    if !against.is_empty() {
        let what = against
            .iter()
            .map(|w| format!("{}: {}", w.clause(), w.reason))
            .collect::<Vec<_>>()
            .join("; ");
        let body = o.reason.trim_end_matches('.');
        // The gate's own conclusion is restated below, so a passing one is not said first.
        let body = body
            .strip_suffix(", so the gate passes (exit 0)")
            .unwrap_or(body)
            .to_string();
        o.reason = match (o.exit_code == EXIT_PASS, fail_on) {
            (true, FailOn::Never) => format!(
                "{body}. Besides, {what}; never waives that too, as it waives every reading, so the gate passes (exit 0)."
            ),
            (true, FailOn::Fail | FailOn::NotPass | FailOn::Error) => {
                o.exit_code = EXIT_REJECTED;
                o.gate = Gate::Fail;
                format!(
                    "{body}. But {what}: that counts against the change under every fail-on but never, so the gate fails (exit {EXIT_REJECTED})."
                )
            }
            (false, _) => format!(
                "{body}. Besides, {what}; the gate fails already, so its exit code ({}) stands.",
                o.exit_code
            ),
        };
    }
    o.counts_against = against;
    o
}

/// What could not run, as a clause: "the task commands failed and tier 'build' could not
/// run"; a tier whose entry names the judges that ended ERROR "could not run in full (judge
/// 'compile' ended ERROR)": it may still have voted over its other judges (attack finding
/// F6b).
fn what(errored: &[&report::ErroredTier]) -> String {
    let tiers =
        errored
            .iter()
            .filter(|t| !t.is_task_commands())
            .map(|t| match t.judges.as_slice() {
                [] => format!("tier '{}' could not run", t.tier),
                judges => format!(
                    "tier '{}' could not run in full (judge {} ended ERROR)",
                    t.tier,
                    judges
                        .iter()
                        .map(|j| format!("'{j}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
    let task = errored
        .iter()
        .any(|t| t.is_task_commands())
        .then(|| "the task commands failed".to_string());
    task.into_iter()
        .chain(tiers)
        .collect::<Vec<_>>()
        .join(" and ")
}

/// The gate for a reading under the config's `fail-on`. The reason says exactly what decided:
/// the reading (and the tier that reached it), the `fail-on` in force, and why that reading
/// passes or fails the gate under it, with the exit code.
pub fn gate(reading: Option<Reading>, fail_on: FailOn, decided_by: Option<&str>) -> Outcome {
    let (said, code, why) = parts(reading, fail_on, decided_by);
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
        counts_against: Vec::new(),
    }
}

/// The sentence for a reading not assessed when judge-ci cannot say more: its own instrument
/// failed, or nothing says whose doing the ERROR was.
const NOT_ASSESSED: &str = "The instrument failed: a judge or the jury could not reach a finding, so the subject was not assessed.";

/// What the reading was (a sentence), its exit code under `fail-on`, and the rule in words.
fn parts(
    reading: Option<Reading>,
    fail_on: FailOn,
    decided_by: Option<&str>,
) -> (String, i32, &'static str) {
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
        Some(Reading::NotAssessed) | None => NOT_ASSESSED.to_string(),
    };
    let (code, why) = decide(reading, fail_on);
    (said, code, why)
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
    use crate::judgment::ErrorOrigin;

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

    /// Every reading × fail-on with a judge the subject kept from deciding (it abstained
    /// because the change withheld its material, attack findings S4/S5/F9): a reading that
    /// would pass fails with exit 1 under every fail-on but `never`, and says which judge and
    /// why; a reading that fails already keeps its code; the entry is kept in the outcome.
    #[test]
    fn an_abstention_the_subject_caused_fails_every_gate_but_never() {
        let fail_ons = [FailOn::Fail, FailOn::NotPass, FailOn::Never, FailOn::Error];
        let withheld = || {
            vec![report::CountsAgainst {
                tier: "semantic".into(),
                judge: "review".into(),
                what: report::Against::Abstained {
                    cause: crate::judgment::Cause::MaterialIncomplete,
                },
                reason: "the model was not shown app.properties (binary)".into(),
            }]
        };
        for reading in READINGS {
            for (fail_on, clean) in fail_ons.into_iter().zip(expected(reading)) {
                let o = gate_all(reading, fail_on, Some("semantic"), Vec::new(), withheld());
                let what = format!("{reading:?} under {fail_on}: {}", o.reason);
                let want = match (clean, fail_on) {
                    (0, FailOn::Never) => 0,
                    (0, _) => EXIT_REJECTED,
                    (code, _) => code,
                };
                assert_eq!(o.exit_code, want, "{what}");
                assert_eq!(o.gate == Gate::Pass, want == 0, "{what}");
                assert!(
                    o.reason.contains("judge 'review' (tier 'semantic') abstained (material_incomplete): the model was not shown app.properties"),
                    "{what}"
                );
                assert_eq!(o.counts_against.len(), 1, "{what}");
            }
        }
        // Nothing withheld: exactly the gate with errors.
        for reading in READINGS {
            let o = gate_all(reading, FailOn::Error, None, Vec::new(), Vec::new());
            assert_eq!(o.exit_code, gate(reading, FailOn::Error, None).exit_code);
        }
    }

    fn errored(origin: ErrorOrigin) -> Vec<report::ErroredTier> {
        vec![report::ErroredTier {
            tier: "build".into(),
            judges: vec!["compile".into()],
            reason: "timeout".into(),
            origin,
        }]
    }

    /// A subject not assessed because of an ERROR the change can cause is said to be the
    /// change's doing, never "the instrument failed"; one of judge-ci's own instrument keeps
    /// that sentence (attack finding NC4).
    #[test]
    fn a_subject_not_assessed_by_its_own_doing_is_not_called_an_instrument_failure() {
        for fail_on in [FailOn::Fail, FailOn::NotPass, FailOn::Error] {
            let o = gate_with_errors(
                Some(Reading::NotAssessed),
                fail_on,
                None,
                errored(ErrorOrigin::Subject),
            );
            assert_eq!(o.exit_code, EXIT_INSTRUMENT, "{fail_on}: {}", o.reason);
            assert!(
                o.reason.starts_with("The subject was not assessed: tier 'build' could not run in full (judge 'compile' ended ERROR), for a cause the change can bring about"),
                "{fail_on}: {}",
                o.reason
            );
            assert!(!o.reason.contains("instrument failed"), "{}", o.reason);
            let o = gate_with_errors(
                Some(Reading::NotAssessed),
                fail_on,
                None,
                errored(ErrorOrigin::Instrument),
            );
            assert!(o.reason.starts_with(NOT_ASSESSED), "{}", o.reason);
        }
    }

    /// Every reading × fail-on × who can have caused an ERROR: a reading that passes without
    /// the ERROR fails under `error` whatever the cause, and under `fail`/`not-pass` when the
    /// subject can have caused it; only `never` and, under a lenient fail-on, an ERROR of
    /// judge-ci's own instrument leave it passing. A failing reading keeps its own code.
    #[test]
    fn an_error_the_subject_can_cause_fails_every_gate_but_never() {
        let fail_ons = [FailOn::Fail, FailOn::NotPass, FailOn::Never, FailOn::Error];
        for reading in READINGS {
            for (fail_on, clean) in fail_ons.into_iter().zip(expected(reading)) {
                for origin in [ErrorOrigin::Subject, ErrorOrigin::Instrument] {
                    let o = gate_with_errors(reading, fail_on, None, errored(origin));
                    let what = format!("{reading:?} under {fail_on}, {origin:?}: {}", o.reason);
                    let fails = clean == 0
                        && match fail_on {
                            FailOn::Error => true,
                            FailOn::Fail | FailOn::NotPass => origin == ErrorOrigin::Subject,
                            FailOn::Never => false,
                        };
                    let code = if fails { 3 } else { clean };
                    assert_eq!(o.exit_code, code, "{what}");
                    assert_eq!(o.gate == Gate::Pass, code == 0, "{what}");
                    assert_eq!(o.errored_tiers.len(), 1, "{what}");
                    if clean == 0 {
                        assert!(
                            o.reason.contains("tier 'build' could not run"),
                            "names what could not run: {what}"
                        );
                        let tail = if fails {
                            "so the gate fails (exit 3)."
                        } else {
                            "so the gate passes (exit 0)."
                        };
                        assert!(o.reason.ends_with(tail), "{what}");
                        assert!(
                            o.reason.contains(&format!("fail-on is {fail_on}:")),
                            "{what}"
                        );
                    }
                    if fails && fail_on != FailOn::Error {
                        assert!(
                            o.reason
                                .contains("an ERROR the change can cause, which no fail-on waives"),
                            "{what}"
                        );
                    }
                }
            }
        }
    }

    /// Attack finding F6b: the sentence names the judge that ended ERROR (its tier may have
    /// voted anyway), and a rejection beside an ERROR says both and which set the code.
    #[test]
    fn the_gate_names_the_errored_judge_and_an_error_beside_a_rejection() {
        let o = gate_with_errors(
            Some(Reading::Accepted),
            FailOn::Error,
            Some("build"),
            errored(ErrorOrigin::Subject),
        );
        assert!(
            o.reason
                .contains("tier 'build' could not run in full (judge 'compile' ended ERROR)"),
            "{}",
            o.reason
        );
        let o = gate_with_errors(
            Some(Reading::Rejected),
            FailOn::Error,
            Some("final"),
            errored(ErrorOrigin::Subject),
        );
        assert_eq!(o.exit_code, 1, "{}", o.reason);
        assert!(
            o.reason.contains("rejected at tier 'final'")
                && o.reason
                    .contains("Besides, tier 'build' could not run in full")
                && o.reason.ends_with("so its exit code (1) stands."),
            "{}",
            o.reason
        );
    }

    #[test]
    fn failed_task_commands_are_the_subjects_and_named() {
        let task = report::ErroredTier {
            tier: report::ErroredTier::TASK_COMMANDS.into(),
            judges: vec![],
            reason: "post `sh hidden.sh` exited with 1".into(),
            origin: ErrorOrigin::Subject,
        };
        let o = gate_with_errors(Some(Reading::Accepted), FailOn::Fail, Some("t"), vec![task]);
        assert_eq!(o.exit_code, 3, "{}", o.reason);
        assert!(
            o.reason.contains("the task commands failed"),
            "{}",
            o.reason
        );
    }
}
