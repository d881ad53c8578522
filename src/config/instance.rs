//! The names that tell several judge-ci instances on one commit apart: the check run's name
//! (`report.check-name`, `--check-name`) and the sticky comment's key (`report.comment-key`,
//! `--comment-key`). Matrix legs and monorepo projects that share one config set them, so
//! their check runs and comments do not overwrite each other.

/// Longest accepted check name or comment key, in characters.
pub const MAX_LEN: usize = 200;

/// Why `value` cannot name an instance, or `Ok` when it can: not blank, no control characters
/// (a line break would split a check-run name or a log line), at most [`MAX_LEN`] characters.
pub fn check(value: &str) -> Result<(), String> {
    if value.trim().is_empty() {
        return Err("must not be blank".into());
    }
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(format!(
            "must not hold control characters (found U+{:04X})",
            c as u32
        ));
    }
    let len = value.chars().count();
    if len > MAX_LEN {
        return Err(format!(
            "is {len} characters long; at most {MAX_LEN} are accepted"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_spaces_and_slashes_pass_and_breaks_blanks_and_long_names_do_not() {
        assert_eq!(check("judge-ci / api (java 21)"), Ok(()));
        assert!(check("  ").unwrap_err().contains("blank"));
        assert!(check("a\nb").unwrap_err().contains("U+000A"));
        assert!(
            check(&"x".repeat(201))
                .unwrap_err()
                .contains("201 characters")
        );
        assert_eq!(check(&"x".repeat(200)), Ok(()));
    }
}
