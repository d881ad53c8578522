//! Subject text printed inside GitHub Actions, made inert: the runner reads every line of a
//! step's output as a possible workflow command (`::error file=…::`, `::add-mask::`,
//! `::set-output`…), so a build log line printed by judge-ci could annotate files, mask or
//! unmask text. Such text is wrapped in `::stop-commands::<token>` … `::<token>::` with a
//! random token the subject never sees, so the runner ignores every command inside.

use std::io::Read;

/// A fresh token nobody can guess: 128 bits from the kernel's random source (a hash of the
/// time, the process and an address when that cannot be read).
pub fn token() -> String {
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(format!(
            "{:?}{}{:p}",
            std::time::SystemTime::now(),
            std::process::id(),
            &bytes
        ));
        bytes.copy_from_slice(&h.finalize()[..16]);
    }
    format!("judge-ci-{}", hex::encode(bytes))
}

/// Whether this process runs inside GitHub Actions (`GITHUB_ACTIONS=true`).
pub fn in_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}

/// `text` between `::stop-commands::TOKEN` and `::TOKEN::` lines (each on a line of its
/// own), with `token` fresh for every call. Empty text stays empty.
pub fn wrap_with(text: &str, token: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let nl = if text.ends_with('\n') { "" } else { "\n" };
    format!("::stop-commands::{token}\n{text}{nl}::{token}::\n")
}

/// [`wrap_with`] a fresh token inside Actions; `text` unchanged elsewhere.
pub fn wrap(text: &str) -> String {
    if in_actions() {
        wrap_with(text, &token())
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runner's rule: inside a stop-commands block, only the line `::TOKEN::` counts.
    fn commands_seen(log: &str) -> Vec<String> {
        let mut stopped: Option<String> = None;
        let mut seen = Vec::new();
        for line in log.lines() {
            match &stopped {
                Some(t) if line == format!("::{t}::") => stopped = None,
                Some(_) => {}
                None => {
                    if let Some(t) = line.strip_prefix("::stop-commands::") {
                        stopped = Some(t.to_string());
                    } else if line.starts_with("::") {
                        seen.push(line.to_string());
                    }
                }
            }
        }
        seen
    }

    #[test]
    fn commands_in_subject_text_are_inert() {
        let hostile = "build log\n::add-mask::x\n::error file=a.java::forged\n::endgroup::\n";
        assert_eq!(commands_seen(hostile).len(), 3);
        let t = token();
        assert_eq!(t.len(), "judge-ci-".len() + 32);
        assert_ne!(t, token());
        let wrapped = wrap_with(hostile, &t);
        assert!(commands_seen(&wrapped).is_empty(), "{wrapped}");
        assert!(wrapped.ends_with(&format!("::{t}::\n")));
        assert_eq!(wrap_with("", &t), "");
        assert_eq!(commands_seen(&(wrapped + "::notice::after\n")).len(), 1);
    }
}
