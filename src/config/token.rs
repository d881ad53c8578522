//! Closed sets of config tokens (`strategy: majority`, `match: REGEX`, `comment: off`): each set
//! is one enum, and [`Tokens`] turns it into the parser, the "valid: …" help, the JSON Schema's
//! `enum` and the Display form, so no token is spelled twice.
//!
//! Config-only sets derive their tokens with strum (`strum_tokens!`); the jury's own sets
//! (strategies, policies) keep the library tokens of jury-semantics (`allMustPass`, `FINAL_TIER`)
//! and the config accepts them plus their kebab-case form (`all-must-pass`), which it prefers.

use std::borrow::Cow;

use crate::judgment::{GapCategory, Status};
use crate::jury::TierPolicy;
use crate::jury::strategies::{ErrorPolicy, NotApplicablePolicy, StrategyKind, TiePolicy};

/// A closed set of config tokens.
pub trait Tokens: Copy + PartialEq + 'static {
    /// Every value, in documentation order.
    fn values() -> Vec<Self>;
    /// The preferred spelling: what help, the schema and Display show first.
    fn preferred(self) -> Cow<'static, str>;
    /// Other spellings also accepted (the library's camelCase).
    fn aliases(self) -> Vec<&'static str> {
        Vec::new()
    }
}

/// The value `s` spells, if any.
pub fn parse<T: Tokens>(s: &str) -> Option<T> {
    T::values()
        .into_iter()
        .find(|v| v.preferred() == s || v.aliases().contains(&s))
}

/// The preferred spellings, in order (the "valid: …" help).
pub fn preferred<T: Tokens>() -> Vec<String> {
    T::values()
        .into_iter()
        .map(|v| v.preferred().into_owned())
        .collect()
}

/// Every accepted spelling, preferred ones first (the JSON Schema's `enum`).
pub fn accepted<T: Tokens>() -> Vec<String> {
    let mut out = preferred::<T>();
    for v in T::values() {
        out.extend(v.aliases().into_iter().map(str::to_string));
    }
    out
}

/// Implements [`Tokens`] for enums whose tokens strum derives (`EnumIter` and `IntoStaticStr`).
macro_rules! strum_tokens {
    ($($t:ty),+ $(,)?) => {$(
        impl $crate::config::token::Tokens for $t {
            fn values() -> Vec<Self> {
                <$t as strum::IntoEnumIterator>::iter().collect()
            }
            fn preferred(self) -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed(self.into())
            }
        }
    )+};
}
pub(crate) use strum_tokens;

/// The kebab-case form of a camelCase library token (`treatAsFail` → `treat-as-fail`); tokens
/// without a lower-case letter (`FINAL_TIER`, `PASS`) are their own form.
fn kebab(token: &str) -> String {
    if !token.chars().any(|c| c.is_ascii_lowercase()) {
        return token.to_string();
    }
    let mut out = String::with_capacity(token.len() + 4);
    for c in token.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Implements [`Tokens`] for the jury's library enums (`ALL` and `token()`): the kebab-case
/// form is preferred, the library token is an alias where it differs.
macro_rules! library_tokens {
    ($($t:ty),+ $(,)?) => {$(
        impl Tokens for $t {
            fn values() -> Vec<Self> {
                <$t>::ALL.to_vec()
            }
            fn preferred(self) -> Cow<'static, str> {
                Cow::Owned(kebab(self.token()))
            }
            fn aliases(self) -> Vec<&'static str> {
                let t = self.token();
                if kebab(t) == t { Vec::new() } else { vec![t] }
            }
        }
    )+};
}

library_tokens!(
    StrategyKind,
    ErrorPolicy,
    NotApplicablePolicy,
    TiePolicy,
    TierPolicy
);

impl Tokens for GapCategory {
    fn values() -> Vec<Self> {
        GapCategory::ALL.to_vec()
    }
    fn preferred(self) -> Cow<'static, str> {
        Cow::Borrowed(self.name())
    }
}

/// The statuses a diagnostics rule may match: every status but PASS, in the report's
/// upper-case form.
impl Tokens for Status {
    fn values() -> Vec<Self> {
        Status::ALL
            .into_iter()
            .filter(|s| *s != Status::Pass)
            .collect()
    }
    fn preferred(self) -> Cow<'static, str> {
        Cow::Owned(self.token().to_ascii_uppercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_tokens_are_kebab_first_with_the_library_spelling_accepted() {
        assert_eq!(kebab("treatAsFail"), "treat-as-fail");
        assert_eq!(kebab("FINAL_TIER"), "FINAL_TIER");
        assert_eq!(
            preferred::<StrategyKind>(),
            [
                "majority",
                "consensus",
                "all-must-pass",
                "average",
                "median",
                "weighted-average",
                "conjunctive"
            ]
        );
        assert_eq!(
            parse::<StrategyKind>("allMustPass"),
            Some(StrategyKind::AllMustPass)
        );
        assert_eq!(
            parse::<StrategyKind>("all-must-pass"),
            Some(StrategyKind::AllMustPass)
        );
        assert_eq!(parse::<StrategyKind>("all_must_pass"), None);
        assert_eq!(
            accepted::<ErrorPolicy>(),
            [
                "propagate",
                "treat-as-fail",
                "treat-as-abstain",
                "ignore",
                "treatAsFail",
                "treatAsAbstain"
            ]
        );
        assert_eq!(preferred::<TiePolicy>(), ["PASS", "FAIL", "ABSTAIN"]);
        assert_eq!(
            preferred::<Status>(),
            ["FAIL", "ABSTAIN", "NOT_APPLICABLE", "ERROR"]
        );
    }
}
