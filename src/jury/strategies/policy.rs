//! Error, not-applicable and tie policies with their exact tokens (jury-semantics §5.2).

use std::fmt;
use std::str::FromStr;

use crate::judgment::BuildError;

macro_rules! token_enum {
    ($(#[$doc:meta])* $name:ident, $what:literal { $($(#[$vdoc:meta])* $variant:ident => $token:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The exact token used in evidence and descriptions.
            pub fn token(self) -> &'static str {
                match self {
                    $($name::$variant => $token),+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.token())
            }
        }

        impl FromStr for $name {
            type Err = BuildError;

            /// Parses the exact token; anything else is refused with the valid tokens listed.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $name::ALL.iter().copied().find(|v| v.token() == s).ok_or_else(|| {
                    let valid: Vec<&str> = $name::ALL.iter().map(|v| v.token()).collect();
                    BuildError::argument(format!(
                        "unknown {} '{}' (valid: {})", $what, s, valid.join(", ")
                    ))
                })
            }
        }
    };
}

token_enum!(
    /// What a strategy does with ERROR inputs.
    ErrorPolicy, "error policy" {
        /// Any error makes the aggregate an `errors_propagated` ERROR (the default).
        #[default]
        Propagate => "propagate",
        /// An error counts as a FAIL; a machinery error is propagated instead.
        TreatAsFail => "treatAsFail",
        /// An error is a non-vote, counted as an abstention caused by errors.
        TreatAsAbstain => "treatAsAbstain",
        /// An error is removed with its weight.
        Ignore => "ignore",
    }
);

token_enum!(
    /// What a strategy does with NOT_APPLICABLE inputs.
    NotApplicablePolicy, "not-applicable policy" {
        /// Any exclusion makes the aggregate a `not_applicable_refused` ERROR (the default).
        #[default]
        Refuse => "refuse",
        /// An exclusion is removed with its weight; all excluded → NOT_APPLICABLE.
        Exclude => "exclude",
        /// An exclusion counts as an unscored FAIL at its position.
        TreatAsFail => "treatAsFail",
    }
);

token_enum!(
    /// How majority voting resolves an equal number of PASS and FAIL votes.
    TiePolicy, "tie policy" {
        /// A tie passes.
        Pass => "PASS",
        /// A tie fails (the default).
        #[default]
        Fail => "FAIL",
        /// A tie abstains.
        Abstain => "ABSTAIN",
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_exact() {
        assert_eq!(
            "treatAsFail".parse::<ErrorPolicy>().unwrap(),
            ErrorPolicy::TreatAsFail
        );
        assert!(
            matches!("TREAT_AS_FAIL".parse::<ErrorPolicy>(), Err(BuildError::InvalidArgument(m)) if m.contains("'TREAT_AS_FAIL' (valid: "))
        );
        assert!(
            matches!("treat-as-fail".parse::<ErrorPolicy>(), Err(BuildError::InvalidArgument(m)) if m.contains("'treat-as-fail' (valid: "))
        );
        assert_eq!(
            "exclude".parse::<NotApplicablePolicy>().unwrap(),
            NotApplicablePolicy::Exclude
        );
        assert_eq!("ABSTAIN".parse::<TiePolicy>().unwrap(), TiePolicy::Abstain);
        let e = "abstain".parse::<TiePolicy>().unwrap_err();
        assert!(e.message().contains("PASS, FAIL, ABSTAIN"), "{e}");
        assert_eq!(ErrorPolicy::default(), ErrorPolicy::Propagate);
        assert_eq!(NotApplicablePolicy::default(), NotApplicablePolicy::Refuse);
        assert_eq!(TiePolicy::default(), TiePolicy::Fail);
    }
}
