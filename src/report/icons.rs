//! The one table of icons and words for readings and statuses. Every rendered surface (the
//! report's markdown and job summary, the check run's title, the suite's pages and its
//! baseline comparison) takes its labels from here, so two surfaces never show the same
//! state with different icons.

use crate::judgment::Status;
use crate::jury::interpret::Reading;

/// How one state is shown: an icon and a capitalised word ("Accepted").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    /// The emoji shown before the word.
    pub icon: &'static str,
    /// The word, capitalised as at the start of a sentence or a table cell.
    pub word: &'static str,
}

impl Label {
    /// The word in lower case ("not assessed"), for running text.
    pub fn lower(self) -> String {
        self.word.to_lowercase()
    }

    /// Icon and lower-case word ("✅ accepted"), for table cells in running lists.
    pub fn icon_lower(self) -> String {
        format!("{} {}", self.icon, self.lower())
    }
}

/// The label of a reading; `None` is a report without a reading (nothing was assessed).
pub fn reading(r: Option<Reading>) -> Label {
    let (icon, word) = match r {
        Some(Reading::Accepted) => ("✅", "Accepted"),
        Some(Reading::Rejected) => ("❌", "Rejected"),
        Some(Reading::Undecided) => ("⚠️", "Undecided"),
        Some(Reading::NotApplicable) => ("➖", "Not applicable"),
        Some(Reading::NotAssessed) | None => ("🛠️", "Not assessed"),
    };
    Label { icon, word }
}

/// The label of a judgment's status. Each status shares its icon with the reading it leads
/// to (PASS with Accepted, ERROR with Not assessed, ...).
pub fn status(s: Status) -> Label {
    let (icon, word) = match s {
        Status::Pass => ("✅", "Pass"),
        Status::Fail => ("❌", "Fail"),
        Status::Abstain => ("⚠️", "Abstain"),
        Status::NotApplicable => ("➖", "Not applicable"),
        Status::Error => ("🛠️", "Error"),
    };
    Label { icon, word }
}

/// The label of a suite task that produced no report at all (it never ran to a verdict).
pub const DID_NOT_RUN: Label = Label {
    icon: "⛔",
    word: "Did not run",
};

/// The label of a suite task: its reading, or [`DID_NOT_RUN`] when it has none (it could
/// not be judged at all: a bad config, a missing folder).
pub fn task(r: Option<Reading>) -> Label {
    r.map_or(DID_NOT_RUN, |r| reading(Some(r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_and_the_reading_it_leads_to_share_an_icon() {
        let pairs = [
            (Status::Pass, Reading::Accepted),
            (Status::Fail, Reading::Rejected),
            (Status::Abstain, Reading::Undecided),
            (Status::NotApplicable, Reading::NotApplicable),
            (Status::Error, Reading::NotAssessed),
        ];
        for (s, r) in pairs {
            assert_eq!(status(s).icon, reading(Some(r)).icon, "{s:?} and {r:?}");
        }
        assert_eq!(reading(None), reading(Some(Reading::NotAssessed)));
        assert_eq!(task(None).icon, "⛔");
        assert_eq!(
            task(Some(Reading::Undecided)),
            reading(Some(Reading::Undecided))
        );
        assert_eq!(
            reading(Some(Reading::NotApplicable)).icon_lower(),
            "➖ not applicable"
        );
    }
}
