//! Reason codes: why a judgment is an ERROR (or, for one code, an empty-subject FAIL), with
//! their families and origins (jury-semantics §8.5).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

use super::error::BuildError;

/// Whom a reason code blames: the instrument (judge or jury machinery) or the subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// The instrument failed; never counted against the subject.
    Instrument,
    /// A finding about the subject.
    Subject,
}

/// Which part of the instrument produced an instrument-family code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A judge, or the seat that ran it; governed by the error policy.
    Judge,
    /// A strategy's policy exit that carries the origins of the errors it propagates.
    Wrapper,
    /// Jury machinery; never scored.
    Machinery,
    /// Subject-family codes have no instrument origin.
    NotInstrument,
}

/// The closed vocabulary of reason codes, in the reference library's declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    /// A judge failed or returned no judgment.
    JudgeFailed,
    /// A judge's metadata could not be read, so it was not run.
    JudgeMetadataUnreadable,
    /// A judge reported its own error (the default of `Judgment::error`).
    JudgeReported,
    /// A judge returned NOT_APPLICABLE without having declared that it may.
    UndeclaredNotApplicable,
    /// A strategy's policy exit propagated errors; carries `errorCodeCounts`.
    ErrorsPropagated,
    /// A strategy whose not-applicable policy is refuse received a NOT_APPLICABLE.
    NotApplicableRefused,
    /// The aggregation boundary contained a broken strategy result.
    AggregationFailed,
    /// A meta-jury member or a cascade tier did not produce a usable determination.
    StageFailed,
    /// A cascade ended without any tier deciding.
    NoTierDecided,
    /// Optional on FAIL: the judge looked and found nothing to assess.
    SubjectEmpty,
}

impl ReasonCode {
    /// Every code, in declaration order.
    pub const ALL: [ReasonCode; 10] = [
        ReasonCode::JudgeFailed,
        ReasonCode::JudgeMetadataUnreadable,
        ReasonCode::JudgeReported,
        ReasonCode::UndeclaredNotApplicable,
        ReasonCode::ErrorsPropagated,
        ReasonCode::NotApplicableRefused,
        ReasonCode::AggregationFailed,
        ReasonCode::StageFailed,
        ReasonCode::NoTierDecided,
        ReasonCode::SubjectEmpty,
    ];

    /// The wire token.
    pub fn token(self) -> &'static str {
        match self {
            ReasonCode::JudgeFailed => "judge_failed",
            ReasonCode::JudgeMetadataUnreadable => "judge_metadata_unreadable",
            ReasonCode::JudgeReported => "judge_reported",
            ReasonCode::UndeclaredNotApplicable => "undeclared_not_applicable",
            ReasonCode::ErrorsPropagated => "errors_propagated",
            ReasonCode::NotApplicableRefused => "not_applicable_refused",
            ReasonCode::AggregationFailed => "aggregation_failed",
            ReasonCode::StageFailed => "stage_failed",
            ReasonCode::NoTierDecided => "no_tier_decided",
            ReasonCode::SubjectEmpty => "subject_empty",
        }
    }

    /// The family of the code.
    pub fn family(self) -> Family {
        match self {
            ReasonCode::SubjectEmpty => Family::Subject,
            _ => Family::Instrument,
        }
    }

    /// The origin of the code within the instrument family.
    pub fn origin(self) -> Origin {
        match self {
            ReasonCode::JudgeFailed
            | ReasonCode::JudgeMetadataUnreadable
            | ReasonCode::JudgeReported
            | ReasonCode::UndeclaredNotApplicable => Origin::Judge,
            ReasonCode::ErrorsPropagated => Origin::Wrapper,
            ReasonCode::NotApplicableRefused
            | ReasonCode::AggregationFailed
            | ReasonCode::StageFailed
            | ReasonCode::NoTierDecided => Origin::Machinery,
            ReasonCode::SubjectEmpty => Origin::NotInstrument,
        }
    }

    /// Instrument codes other than `errors_propagated`: the ones that may be keys of
    /// `errorCodeCounts`.
    pub fn is_terminal_instrument(self) -> bool {
        self.family() == Family::Instrument && self != ReasonCode::ErrorsPropagated
    }

    /// True for codes produced by jury machinery rather than by a judge.
    pub fn is_machinery(self) -> bool {
        self.origin() == Origin::Machinery
    }
}

impl fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for ReasonCode {
    type Err = BuildError;

    /// Parses a wire token exactly; unknown tokens are refused.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ReasonCode::ALL
            .into_iter()
            .find(|c| c.token() == s)
            .ok_or_else(|| BuildError::argument(format!("unknown reason code '{s}'")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_origins() {
        assert_eq!(ReasonCode::SubjectEmpty.family(), Family::Subject);
        assert!(!ReasonCode::ErrorsPropagated.is_terminal_instrument());
        assert!(ReasonCode::StageFailed.is_terminal_instrument());
        assert!(ReasonCode::NoTierDecided.is_machinery());
        assert!(!ReasonCode::JudgeFailed.is_machinery());
        assert!(!ReasonCode::SubjectEmpty.is_terminal_instrument());
    }

    #[test]
    fn tokens_round_trip_and_unknown_is_refused() {
        for c in ReasonCode::ALL {
            assert_eq!(c.token().parse::<ReasonCode>().unwrap(), c);
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.token())
            );
        }
        assert!(
            matches!("JUDGE_FAILED".parse::<ReasonCode>(), Err(BuildError::InvalidArgument(m)) if m.contains("unknown reason code 'JUDGE_FAILED'"))
        );
        assert!(
            matches!("timeout".parse::<ReasonCode>(), Err(BuildError::InvalidArgument(m)) if m.contains("unknown reason code 'timeout'"))
        );
    }
}
