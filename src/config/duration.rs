//! ISO-8601 durations (`PT5M`, `P1DT2H`, `PT0.5S`) as in Java's `Duration.parse`, via jiff.

use std::time::Duration;

/// Why a text is not a duration judge-ci accepts; each names the text and what would be valid.
#[derive(Debug, thiserror::Error)]
pub enum DurationError {
    /// Not ISO-8601 at all.
    #[error(
        "'{text}' is not an ISO-8601 duration ({source}); write e.g. PT30S, PT5M, PT1H30M or P1D"
    )]
    NotIso {
        /// The text as written.
        text: String,
        /// The parser's reason.
        #[source]
        source: jiff::Error,
    },
    /// Years or months, whose length depends on the calendar.
    #[error(
        "'{text}' uses years or months, whose length varies; use days, hours, minutes or seconds"
    )]
    Calendar {
        /// The text as written.
        text: String,
    },
    /// A span that does not fit a duration.
    #[error("'{text}' cannot be converted to a duration: {source}")]
    Unconvertible {
        /// The text as written.
        text: String,
        /// The conversion's reason.
        #[source]
        source: jiff::Error,
    },
    /// Zero or negative.
    #[error("'{text}' must be a positive duration")]
    NotPositive {
        /// The text as written.
        text: String,
    },
}

/// Parses an ISO-8601 duration; days count as 24 hours; calendar units (years, months) and
/// negative or zero durations are refused with what would be valid.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let parser = jiff::fmt::temporal::SpanParser::new();
    let span: jiff::Span =
        parser
            .parse_span(text.trim())
            .map_err(|source| DurationError::NotIso {
                text: text.to_string(),
                source,
            })?;
    if span.get_years() != 0 || span.get_months() != 0 {
        return Err(DurationError::Calendar {
            text: text.to_string(),
        });
    }
    let signed = span
        .to_duration(jiff::SpanRelativeTo::days_are_24_hours())
        .map_err(|source| DurationError::Unconvertible {
            text: text.to_string(),
            source,
        })?;
    if signed.is_negative() || signed.is_zero() {
        return Err(DurationError::NotPositive {
            text: text.to_string(),
        });
    }
    Duration::try_from(signed).map_err(|source| DurationError::Unconvertible {
        text: text.to_string(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_durations() {
        assert_eq!(parse_duration("PT5M").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("PT2M").unwrap(), Duration::from_secs(120));
        assert_eq!(
            parse_duration("P1DT2H").unwrap(),
            Duration::from_secs(26 * 3600)
        );
        assert_eq!(
            parse_duration("PT0.5S").unwrap(),
            Duration::from_millis(500)
        );
        for not_iso in ["5 minutes", ""] {
            let e = parse_duration(not_iso).unwrap_err();
            assert!(
                matches!(e, DurationError::NotIso { .. }),
                "{not_iso}: {e:?}"
            );
            assert!(e.to_string().contains("write e.g. PT30S"), "{e}");
        }
        assert!(matches!(
            parse_duration("P1M"),
            Err(DurationError::Calendar { .. })
        ));
        assert!(matches!(
            parse_duration("PT0S"),
            Err(DurationError::NotPositive { .. })
        ));
        assert!(matches!(
            parse_duration("-PT5M"),
            Err(DurationError::NotPositive { .. })
        ));
    }
}
