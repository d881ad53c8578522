//! Validation of cascade tier and meta member names (jury-semantics §6.1).

use unicode_normalization::UnicodeNormalization;

use crate::judgment::BuildError;

/// Longest name, in code points.
pub const MAX_NAME_CHARS: usize = 64;

/// Checks a tier or member name: non-blank, NFC-normalised, no control, format, line- or
/// paragraph-separator characters, at most 64 code points, no surrounding whitespace.
pub fn validate_stage_name(what: &str, name: &str) -> Result<(), BuildError> {
    let bad = |m: &str| Err(BuildError::argument(format!("{what} name {name:?} {m}")));
    if name.trim().is_empty() {
        return Err(BuildError::argument(format!(
            "{what} name must be non-blank"
        )));
    }
    if name.trim() != name {
        return bad("has leading or trailing whitespace");
    }
    if name.nfc().collect::<String>() != name {
        return bad("is not NFC-normalised");
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return bad(&format!("is longer than {MAX_NAME_CHARS} characters"));
    }
    if name.chars().any(is_forbidden) {
        return bad("contains a control, format or separator character");
    }
    Ok(())
}

/// Control (Cc), format (Cf), line and paragraph separators.
fn is_forbidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}')
        || matches!(c,
            '\u{00AD}' | '\u{0600}'..='\u{0605}' | '\u{061C}' | '\u{06DD}' | '\u{070F}'
            | '\u{08E2}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}' | '\u{110BD}' | '\u{110CD}' | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0001}'
            | '\u{E0020}'..='\u{E007F}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(validate_stage_name("tier", "build").is_ok());
        assert!(
            matches!(validate_stage_name("tier", ""), Err(BuildError::InvalidArgument(m)) if m.contains("must be non-blank"))
        );
        assert!(
            matches!(validate_stage_name("tier", " build"), Err(BuildError::InvalidArgument(m)) if m.contains("leading or trailing whitespace"))
        );
        assert!(
            matches!(validate_stage_name("tier", "a\nb"), Err(BuildError::InvalidArgument(m)) if m.contains("control, format or separator"))
        );
        assert!(
            matches!(validate_stage_name("tier", "a\u{200B}b"), Err(BuildError::InvalidArgument(m)) if m.contains("control, format or separator"))
        );
        assert!(
            matches!(validate_stage_name("tier", "a\u{2028}b"), Err(BuildError::InvalidArgument(m)) if m.contains("control, format or separator"))
        );
        assert!(
            matches!(validate_stage_name("tier", "e\u{0301}"), Err(BuildError::InvalidArgument(m)) if m.contains("not NFC-normalised"))
        );
        assert!(validate_stage_name("tier", "é").is_ok());
        assert!(
            matches!(validate_stage_name("tier", &"x".repeat(65)), Err(BuildError::InvalidArgument(m)) if m.contains("longer than 64 characters"))
        );
        assert!(validate_stage_name("tier", &"x".repeat(64)).is_ok());
    }
}
