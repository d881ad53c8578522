//! The five judgment statuses and their exact wire tokens (jury-semantics §1.1).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

use super::error::BuildError;

/// The outcome of one judgment; wire tokens are lower snake case and parsed exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Asked and answered yes.
    Pass,
    /// Asked and answered no: counted against the subject.
    Fail,
    /// Applied, but no decision was reached (missing evidence, undecidable).
    Abstain,
    /// The question should not have been asked for this subject; must be declared in advance.
    NotApplicable,
    /// The instrument never reached a finding.
    Error,
}

impl Status {
    /// Every status, in declaration order.
    pub const ALL: [Status; 5] = [
        Status::Pass,
        Status::Fail,
        Status::Abstain,
        Status::NotApplicable,
        Status::Error,
    ];

    /// The wire token (`pass`, `fail`, `abstain`, `not_applicable`, `error`).
    pub fn token(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Abstain => "abstain",
            Status::NotApplicable => "not_applicable",
            Status::Error => "error",
        }
    }

    /// The upper-case name used in prose (`PASS`, `NOT_APPLICABLE`, …).
    pub fn upper(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Abstain => "ABSTAIN",
            Status::NotApplicable => "NOT_APPLICABLE",
            Status::Error => "ERROR",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for Status {
    type Err = BuildError;

    /// Parses a wire token exactly: `"ERROR"` or `"Pass"` are refused, never defaulted.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Status::ALL
            .into_iter()
            .find(|st| st.token() == s)
            .ok_or_else(|| {
                BuildError::argument(format!(
                    "unknown judgment status '{s}' (valid: pass, fail, abstain, not_applicable, error)"
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_exactly() {
        for st in Status::ALL {
            assert_eq!(st.token().parse::<Status>().unwrap(), st);
            let json = serde_json::to_string(&st).unwrap();
            assert_eq!(json, format!("\"{}\"", st.token()));
        }
    }

    #[test]
    fn upper_case_and_unknown_tokens_are_refused() {
        assert!(
            matches!("ERROR".parse::<Status>(), Err(BuildError::InvalidArgument(m)) if m.contains("unknown judgment status 'ERROR'"))
        );
        assert!(
            matches!("Pass".parse::<Status>(), Err(BuildError::InvalidArgument(m)) if m.contains("unknown judgment status 'Pass'"))
        );
        assert!(
            matches!("skipped".parse::<Status>(), Err(BuildError::InvalidArgument(m)) if m.contains("unknown judgment status 'skipped'"))
        );
        let wire = serde_json::from_str::<Status>("\"PASS\"").unwrap_err();
        assert!(
            wire.to_string().contains("unknown variant `PASS`"),
            "{wire}"
        );
    }
}
