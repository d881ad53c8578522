//! ISO-8601 durations (`PT5M`, `P1DT2H`, `PT0.5S`) as in Java's `Duration.parse`, via jiff.

use std::time::Duration;

/// Parses an ISO-8601 duration; days count as 24 hours; calendar units (years, months) and
/// negative or zero durations are refused with what would be valid.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let parser = jiff::fmt::temporal::SpanParser::new();
    let span: jiff::Span = parser.parse_span(text.trim()).map_err(|e| {
        format!(
            "'{text}' is not an ISO-8601 duration ({e}); write e.g. PT30S, PT5M, PT1H30M or P1D"
        )
    })?;
    if span.get_years() != 0 || span.get_months() != 0 {
        return Err(format!(
            "'{text}' uses years or months, whose length varies; use days, hours, minutes or seconds"
        ));
    }
    let signed = span
        .to_duration(jiff::SpanRelativeTo::days_are_24_hours())
        .map_err(|e| format!("'{text}' cannot be converted to a duration: {e}"))?;
    if signed.is_negative() || signed.is_zero() {
        return Err(format!("'{text}' must be a positive duration"));
    }
    Duration::try_from(signed).map_err(|e| format!("'{text}': {e}"))
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
        assert!(parse_duration("5 minutes").is_err());
        assert!(parse_duration("P1M").is_err());
        assert!(parse_duration("PT0S").is_err());
        assert!(parse_duration("-PT5M").is_err());
        assert!(parse_duration("").is_err());
    }
}
