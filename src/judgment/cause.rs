//! Why a judge could not decide: the typed cause an ERROR or ABSTAIN carries, set only by the
//! judge that observed it from judge-ci's own knowledge (a time limit it enforced, a spawn
//! error, an errno from its own I/O, its own measurement of the disk, Maven's own resolution
//! error line it recognised, a provider's HTTP status). Never from text the subject controls
//! (its test output, file contents, identifiers in compiler messages): the gap analysis trusts
//! a cause without reading any text, so a cause read from such text would let a pull request
//! choose its own classification.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

use super::error::BuildError;
use super::gap::GapCategory;

/// Declares [`Cause`] from one table: variant, wire token, gap category, what it means.
macro_rules! causes {
    ($($(#[$doc:meta])* $v:ident => $token:literal, $gap:ident, $origin:ident, $what:literal;)*) => {
        /// Why an ERROR or ABSTAIN happened, as the judge that saw it knows it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Cause {
            $($(#[$doc])* $v,)*
        }

        impl Cause {
            /// Every cause, in declaration order.
            pub const ALL: &'static [Cause] = &[$(Cause::$v,)*];

            /// The wire token.
            pub fn token(self) -> &'static str {
                match self {
                    $(Cause::$v => $token,)*
                }
            }

            /// The gap category the analysis assigns to a judgment with this cause.
            pub fn gap(self) -> GapCategory {
                match self {
                    $(Cause::$v => GapCategory::$gap,)*
                }
            }

            /// Who can bring an ERROR of this cause about: judge-ci's own instrument only, or
            /// the subject too (`spec/trust.md` point 12). Every cause says so in the table
            /// below: a new one must be placed.
            pub fn origin(self) -> ErrorOrigin {
                match self {
                    $(Cause::$v => ErrorOrigin::$origin,)*
                }
            }

            /// What the cause means, for the analysis' rationale.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Cause::$v => $what,)*
                }
            }
        }
    };
}

causes! {
    /// A time limit judge-ci enforced ended the judge or the process it ran.
    Timeout => "timeout", Environment, Subject,
        "judge-ci's time limit ended the judge: the change's code may hang or run slowly (its doing, so it counts against it) or the runner is slow; if the reference finishes well within the limit on this runner (judge-ci prove judges it), look at the change, else give the check more time";
    /// A repository, registry or provider could not be reached (offline, unknown host,
    /// connection refused), as the tool's own resolution error or judge-ci's connection said.
    NetworkUnreachable => "network_unreachable", Environment, Instrument,
        "a repository, registry or provider could not be reached: fix the runner's network or pre-fetch what the build needs";
    /// The build tool's own closing error says a dependency, plugin or parent POM could not
    /// be resolved from the repositories the runner has.
    DependencyUnresolved => "dependency_unresolved", Environment, Instrument,
        "a dependency, plugin or parent POM could not be resolved from the runner's repositories: pre-fetch it or fix the repository settings";
    /// judge-ci measured the disk full, or its own write failed with ENOSPC.
    DiskFull => "disk_full", Environment, Instrument,
        "the runner's disk is full: free space or use a larger runner";
    /// judge-ci's own attempt to allocate or start a process failed for want of memory.
    OutOfMemory => "out_of_memory", Environment, Instrument,
        "the runner ran out of memory: use a larger runner or run fewer judges at once";
    /// The model provider was overloaded, rate-limited or failing (HTTP 429 or 5xx).
    ProviderUnavailable => "provider_unavailable", Environment, Instrument,
        "the model provider was unavailable: retry later or lower the request rate";
    /// A program judge-ci had to start is not installed.
    ToolMissing => "tool_missing", Tool, Instrument,
        "a program the check runs is not installed on the runner: install it or fix the command";
    /// The check's own settings are wrong or incomplete (a missing API key, a model or
    /// template the provider does not know, no reference to compare with).
    JudgeMisconfigured => "judge_misconfigured", Evaluation, Instrument,
        "the judge's own configuration is wrong or incomplete: repair the check's settings";
    /// The model declined to answer, or the provider refused the request (a content policy,
    /// a body it will not take: an HTTP 4xx other than the key's or the model's), which the
    /// change's material can provoke.
    ProviderRefused => "provider_refused", Evaluation, Subject,
        "the model or provider declined the question, which carries the change's material: look at what the change adds, rephrase the prompt or use another model";
    /// The model's reply could not be used (not the requested shape, even after a repair).
    ModelReplyUnusable => "model_reply_unusable", Evaluation, Subject,
        "the model's reply could not be used: calibrate the prompt or use another model";
    /// An external judge broke the protocol (exit status, output size, not one judgment).
    JudgeBroken => "judge_broken", Evaluation, Subject,
        "the judge program broke judge-ci's protocol: repair the judge";
    /// Evidence the run should have produced is absent (classes, test or coverage reports,
    /// a plan's criteria).
    EvidenceMissing => "evidence_missing", Analysis, Subject,
        "the evidence this judge needs was not produced: make the run (or the pre-analysis) produce it";
    /// The model could not be shown every file that differs in full (a binary, NUL bytes, a
    /// file over the size or material budget, a build-output folder, a link), so its answer
    /// does not decide a PASS.
    MaterialIncomplete => "material_incomplete", Evaluation, Subject,
        "the model was not shown the whole change: make the changed files text within the budget, or judge them with a structural check";
    /// The model was asked several times (`samples`) and too small a share of its answers
    /// agreed (`agreement`), so its answer does not decide the judgment.
    ModelUnstable => "model_unstable", Evaluation, Subject,
        "the model's answers to the same question disagreed: make the question or the criteria sharper, or lower the temperature";
    /// The change's material holds text addressed to the grader, so the model's PASS does
    /// not count (`injection: abstain`).
    PromptInjection => "prompt_injection", Evaluation, Subject,
        "the change's material holds text addressed to the grader, so the model's answer does not count: remove that text, or judge the change with a structural check";
    /// A request would have passed a spending limit (`llm.limits`, or the suite's), so it
    /// was not sent.
    LlmBudgetExhausted => "llm_budget_exhausted", Environment, Subject,
        "a request would have passed the model spending limit: raise llm.limits (or the suite's), or ask fewer or smaller questions";
}

impl Cause {
    /// Whether an ABSTAIN with this cause is the subject keeping the judge from deciding:
    /// the change withheld what the judge needed (material the model could not be shown in
    /// full, a plan it deleted or emptied) or addressed the grader so that the model's answer
    /// does not count. Such an abstention counts against the subject at
    /// the gate (`spec/trust.md` point 12), while one the model or judge-ci brings about (an
    /// unstable model, a misconfigured check) stays an undecided reading.
    pub fn kept_from_deciding_by_subject(self) -> bool {
        match self {
            Cause::MaterialIncomplete | Cause::EvidenceMissing | Cause::PromptInjection => true,
            Cause::Timeout
            | Cause::NetworkUnreachable
            | Cause::DependencyUnresolved
            | Cause::DiskFull
            | Cause::OutOfMemory
            | Cause::ProviderUnavailable
            | Cause::ToolMissing
            | Cause::JudgeMisconfigured
            | Cause::ProviderRefused
            | Cause::ModelReplyUnusable
            | Cause::JudgeBroken
            | Cause::ModelUnstable
            | Cause::LlmBudgetExhausted => false,
        }
    }
}

/// Who can bring an ERROR about, as judge-ci knows it from the cause it observed
/// (`spec/trust.md` point 12): the gate waives, under a lenient `fail-on`, only ERRORs of
/// judge-ci's own instrument; one the subject can cause never passes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorOrigin {
    /// judge-ci observed its own instrument failing, in a way the subject cannot bring about
    /// through anything it controls: a tool or provider judge-ci needs is missing or failing,
    /// judge-ci's own disk or memory ran out, a check's own settings are wrong, a dependency
    /// the reference also needs cannot be resolved.
    Instrument,
    /// The subject can bring it about: its code runs into a limit, breaks a judge's protocol,
    /// leaves no evidence, or its text makes the model refuse or not see everything; and any
    /// ERROR whose cause judge-ci did not observe.
    Subject,
}

impl ErrorOrigin {
    /// The origin of an ERROR with this cause, or without one: an ERROR judge-ci cannot place
    /// is one the subject may have caused.
    pub fn of(cause: Option<Cause>) -> ErrorOrigin {
        cause.map_or(ErrorOrigin::Subject, Cause::origin)
    }
}

impl Cause {
    /// The cause an errno of judge-ci's own I/O shows, when it shows one: ENOSPC and EDQUOT a
    /// full disk, ENOMEM out of memory, a timed-out operation a timeout.
    pub fn of_io(e: &std::io::Error) -> Option<Cause> {
        use std::io::ErrorKind;
        match e.kind() {
            ErrorKind::StorageFull | ErrorKind::QuotaExceeded => Some(Cause::DiskFull),
            ErrorKind::OutOfMemory => Some(Cause::OutOfMemory),
            ErrorKind::TimedOut => Some(Cause::Timeout),
            _ => None,
        }
    }

    /// The cause of a failure to start a program: ENOENT is a missing tool, otherwise as
    /// [`Cause::of_io`].
    pub fn of_spawn(e: &std::io::Error) -> Option<Cause> {
        match e.kind() {
            std::io::ErrorKind::NotFound => Some(Cause::ToolMissing),
            _ => Cause::of_io(e),
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for Cause {
    type Err = BuildError;

    /// Parses a wire token exactly; an unknown token is refused with the valid ones.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Cause::ALL
            .iter()
            .copied()
            .find(|c| c.token() == s)
            .ok_or_else(|| {
                BuildError::argument(format!(
                    "unknown cause '{s}' (valid: {})",
                    Cause::ALL
                        .iter()
                        .map(|c| c.token())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
    }
}

impl Serialize for Cause {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.token())
    }
}

impl<'de> Deserialize<'de> for Cause {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_categories() {
        for c in Cause::ALL {
            assert_eq!(c.token().parse::<Cause>().unwrap(), *c);
            assert_eq!(
                serde_json::to_string(c).unwrap(),
                format!("\"{}\"", c.token())
            );
            assert!(!c.meaning().is_empty());
        }
        assert!(
            matches!("Timeout".parse::<Cause>(), Err(BuildError::InvalidArgument(m)) if m.contains("unknown cause 'Timeout'"))
        );
        assert_eq!(Cause::NetworkUnreachable.gap(), GapCategory::Environment);
        assert_eq!(Cause::ToolMissing.gap(), GapCategory::Tool);
        assert_eq!(Cause::EvidenceMissing.gap(), GapCategory::Analysis);
    }

    #[test]
    fn errnos_of_judge_ci_own_io() {
        let enospc = std::io::Error::from_raw_os_error(nix::libc::ENOSPC);
        assert_eq!(Cause::of_io(&enospc), Some(Cause::DiskFull));
        let enoent = std::io::Error::from_raw_os_error(nix::libc::ENOENT);
        assert_eq!(Cause::of_spawn(&enoent), Some(Cause::ToolMissing));
        assert_eq!(
            Cause::of_io(&enoent),
            None,
            "a missing file is not a missing tool"
        );
        let eacces = std::io::Error::from_raw_os_error(nix::libc::EACCES);
        assert_eq!(Cause::of_io(&eacces), None);
    }
}
