//! The names that tell several judge-ci instances on one commit apart: the check run's name
//! (`report.check-name`, `--check-name`) and the sticky comment's key (`report.comment-key`,
//! `--comment-key`). Matrix legs and monorepo projects that share one config set them, so
//! their check runs and comments do not overwrite each other.

/// Longest accepted check name or comment key, in characters.
pub const MAX_LEN: usize = 200;

/// Why a text cannot name an instance; each reads after the flag or key that holds it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstanceNameError {
    /// Empty or only white space.
    #[error("must not be blank")]
    Blank,
    /// Holds a control character (the first one found).
    #[error("must not hold control characters (found U+{:04X})", *.0 as u32)]
    Control(char),
    /// Longer than [`MAX_LEN`] characters.
    #[error("is {0} characters long; at most {MAX_LEN} are accepted")]
    TooLong(usize),
}

/// Why `value` cannot name an instance, or `Ok` when it can: not blank, no control characters
/// (a line break would split a check-run name or a log line), at most [`MAX_LEN`] characters.
pub fn check(value: &str) -> Result<(), InstanceNameError> {
    if value.trim().is_empty() {
        return Err(InstanceNameError::Blank);
    }
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(InstanceNameError::Control(c));
    }
    let len = value.chars().count();
    if len > MAX_LEN {
        return Err(InstanceNameError::TooLong(len));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_spaces_and_slashes_pass_and_breaks_blanks_and_long_names_do_not() {
        assert_eq!(check("judge-ci / api (java 21)"), Ok(()));
        assert_eq!(check("  "), Err(InstanceNameError::Blank));
        assert_eq!(check("a\nb"), Err(InstanceNameError::Control('\n')));
        assert!(check("a\nb").unwrap_err().to_string().contains("U+000A"));
        assert_eq!(
            check(&"x".repeat(201)),
            Err(InstanceNameError::TooLong(201))
        );
        assert!(
            check(&"x".repeat(201))
                .unwrap_err()
                .to_string()
                .contains("201 characters long; at most 200")
        );
        assert_eq!(check(&"x".repeat(200)), Ok(()));
    }
}
