//! Secrets judge-ci holds (the GitHub token, every `*_API_KEY` / `*_TOKEN` variable it reads)
//! and the one redaction boundary every output passes: files written through
//! [`crate::pipeline::save::write_atomically`] or [`crate::github::outputs::append`], bodies
//! sent to the GitHub API, and judge-ci's own standard output and error (through
//! [`redact_stdio`]). Subject code should never see a secret (an explicit environment, a
//! non-dumpable judge-ci, the fence); this is the defence in depth for when it does: a value
//! it prints is replaced by `***` before anything leaves the process.

use std::borrow::Cow;
use std::sync::RwLock;

/// What a secret value is replaced by.
pub const MASK: &str = "***";

/// Shorter values are not treated as secrets: masking every `1` or `ab` would garble the
/// report and protect nothing.
pub const MIN_LEN: usize = 4;

/// The secret values known so far, each with its escaped forms (JSON, HTML), longest first.
static SECRETS: RwLock<Vec<Vec<u8>>> = RwLock::new(Vec::new());

/// Whether an environment variable's value is treated as a secret: `GITHUB_TOKEN`,
/// `GH_TOKEN`, and every name ending in `_TOKEN` or `_API_KEY` (`ANTHROPIC_API_KEY`,
/// `ACTIONS_RUNTIME_TOKEN`, `ACTIONS_ID_TOKEN_REQUEST_TOKEN`, …), plus the Action's token input
/// and the key of the reference's digest (`JUDGE_CI_REFERENCE_KEY`).
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    upper.ends_with("_TOKEN")
        || upper.ends_with("_API_KEY")
        || upper == "INPUT_GITHUB-TOKEN"
        || upper == "INPUT_API-KEY"
        || upper == "JUDGE_CI_REFERENCE_KEY"
}

/// Registers every secret in judge-ci's own environment (see [`is_secret_name`]). Called
/// once at start, before anything is printed.
pub fn register_environment() {
    for (k, v) in std::env::vars_os() {
        if let (Some(k), Some(v)) = (k.to_str(), v.to_str())
            && is_secret_name(k)
        {
            register(v);
        }
    }
}

/// Adds one secret value (a `--github-token`, the variable an `api-key-env` names).
pub fn register(value: &str) {
    let value = value.trim();
    if value.len() < MIN_LEN {
        return;
    }
    let mut forms = vec![value.to_string()];
    // The forms a report's surfaces write it in: JSON strings and HTML/XML text.
    if let Ok(json) = serde_json::to_string(value) {
        forms.push(json[1..json.len() - 1].to_string());
    }
    forms.push(
        value
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;"),
    );
    let mut all = match SECRETS.write() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    for f in forms {
        let f = f.into_bytes();
        if !all.contains(&f) {
            all.push(f);
        }
    }
    all.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

fn with_secrets<T>(f: impl FnOnce(&[Vec<u8>]) -> T) -> T {
    match SECRETS.read() {
        Ok(g) => f(&g),
        Err(poisoned) => f(&poisoned.into_inner()),
    }
}

/// `bytes` with every known secret replaced by [`MASK`].
pub fn redact_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    with_secrets(|secrets| replace_all(bytes, secrets))
}

/// `text` with every known secret replaced by [`MASK`].
pub fn redact(text: &str) -> Cow<'_, str> {
    match redact_bytes(text.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        // Replacing whole UTF-8 sequences by ASCII keeps the text valid UTF-8.
        Cow::Owned(b) => Cow::Owned(String::from_utf8_lossy(&b).into_owned()),
    }
}

/// A JSON value with every string (and key) redacted.
pub fn redact_json(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(s) => Value::String(redact(s).into_owned()),
        Value::Array(a) => Value::Array(a.iter().map(redact_json).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (redact(k).into_owned(), redact_json(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn replace_all<'a>(bytes: &'a [u8], secrets: &[Vec<u8>]) -> Cow<'a, [u8]> {
    if secrets.is_empty() || !secrets.iter().any(|s| contains(bytes, s)) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    'outer: while i < bytes.len() {
        // Longest first: a value and its escaped form never leave a fragment behind.
        for s in secrets {
            if bytes[i..].starts_with(s) {
                out.extend_from_slice(MASK.as_bytes());
                i += s.len();
                continue 'outer;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    Cow::Owned(out)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// How many trailing bytes of `bytes` could be the start of a secret that the next chunk
/// completes: held back by the stream redactor.
fn partial_suffix(bytes: &[u8], secrets: &[Vec<u8>]) -> usize {
    let mut keep = 0;
    for s in secrets {
        for k in (1..s.len().min(bytes.len() + 1)).rev() {
            if k > keep && bytes[bytes.len() - k..] == s[..k] {
                keep = k;
                break;
            }
        }
    }
    keep
}

/// Redacts a stream that arrives in chunks: a secret split between two chunks is still
/// caught, because a tail that may start one is held until the next chunk (or [`finish`]).
///
/// [`finish`]: StreamRedactor::finish
#[derive(Debug, Default)]
pub struct StreamRedactor {
    pending: Vec<u8>,
}

impl StreamRedactor {
    /// Takes a chunk; returns what can be written now.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<u8> {
        self.pending.extend_from_slice(chunk);
        with_secrets(|secrets| {
            let red = replace_all(&self.pending, secrets).into_owned();
            let keep = partial_suffix(&red, secrets);
            let (now, later) = red.split_at(red.len() - keep);
            let now = now.to_vec();
            self.pending = later.to_vec();
            now
        })
    }

    /// Everything still held, redacted.
    pub fn finish(&mut self) -> Vec<u8> {
        let rest = std::mem::take(&mut self.pending);
        redact_bytes(&rest).into_owned()
    }
}

/// Restores judge-ci's standard output and error when dropped, after the redacting threads
/// have written everything.
pub struct StdioGuard {
    streams: Vec<(i32, std::os::fd::OwnedFd, std::thread::JoinHandle<()>)>,
}

impl Drop for StdioGuard {
    fn drop(&mut self) {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        for (fd, original, thread) in self.streams.drain(..) {
            // Pointing the descriptor back at the original closes the pipe's last write end,
            // so the thread reads to the end, writes the rest and stops.
            let mut target = unsafe_fd(fd);
            let _ = nix::unistd::dup2(&original, &mut target);
            std::mem::forget(target);
            let _ = thread.join();
        }
    }
}

/// A borrowed view of a standard descriptor as an `OwnedFd` (never closed: the caller
/// forgets it).
fn unsafe_fd(fd: i32) -> std::os::fd::OwnedFd {
    use std::os::fd::FromRawFd;
    // SAFETY: 1 and 2 stay open for the life of the process; the value is forgotten, never
    // dropped, so it does not close them.
    unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }
}

/// Routes judge-ci's standard output and error through a pipe and a thread that redacts
/// every secret (see [`register`]) before writing to the original descriptor: every
/// `print!`, warning and progress line passes the boundary. A terminal is left alone (the
/// person at it owns the secrets, and progress bars need a terminal); logs, files and pipes
/// (CI) are redacted. Hold the guard until the end of `main`.
pub fn redact_stdio() -> StdioGuard {
    use std::io::IsTerminal;
    let mut streams = Vec::new();
    for fd in [1, 2] {
        let is_tty = match fd {
            1 => std::io::stdout().is_terminal(),
            _ => std::io::stderr().is_terminal(),
        };
        if is_tty {
            continue;
        }
        // Close-on-exec: no child (a subject process above all) may inherit the real
        // stream and write around the redaction and the inert-output wrapping.
        let Ok(original) =
            nix::fcntl::fcntl(unsafe_borrow(fd), nix::fcntl::FcntlArg::F_DUPFD_CLOEXEC(3))
        else {
            continue;
        };
        use std::os::fd::FromRawFd;
        // SAFETY: fcntl returned a new descriptor that nothing else owns.
        let original = unsafe { std::os::fd::OwnedFd::from_raw_fd(original) };
        let Ok((read, write)) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC) else {
            continue;
        };
        let mut target = unsafe_fd(fd);
        let moved = nix::unistd::dup2(&write, &mut target);
        std::mem::forget(target);
        drop(write);
        if moved.is_err() {
            continue;
        }
        // try_clone duplicates with F_DUPFD_CLOEXEC.
        let Ok(out) = original.try_clone() else {
            continue;
        };
        let thread = std::thread::spawn(move || pump(read, out));
        streams.push((fd, original, thread));
    }
    StdioGuard { streams }
}

fn unsafe_borrow(fd: i32) -> std::os::fd::BorrowedFd<'static> {
    // SAFETY: standard output and error are open for the life of the process.
    unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) }
}

/// Copies the pipe to the original descriptor, redacted, until the pipe's write end closes.
fn pump(read: std::os::fd::OwnedFd, out: std::os::fd::OwnedFd) {
    use std::io::{Read, Write};
    let mut read = std::fs::File::from(read);
    let mut out = std::fs::File::from(out);
    let mut redactor = StreamRedactor::default();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        // A held-back tail waits at most 100 ms for the rest of a secret.
        if !redactor.pending.is_empty() {
            let fd = std::os::fd::AsFd::as_fd(&read);
            let mut fds = [nix::poll::PollFd::new(fd, nix::poll::PollFlags::POLLIN)];
            if matches!(nix::poll::poll(&mut fds, 100u16), Ok(0)) {
                let _ = out.write_all(&redactor.finish());
                continue;
            }
        }
        match read.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let _ = out.write_all(&redactor.push(&buf[..n]));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = out.write_all(&redactor.finish());
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn every_occurrence_is_replaced() {
        let s = secrets(&["ghs_SECRETVALUE", "sk-ant-KEY"]);
        assert_eq!(
            replace_all(b"a ghs_SECRETVALUE b sk-ant-KEYghs_SECRETVALUE", &s).as_ref(),
            b"a *** b ******"
        );
        assert!(matches!(replace_all(b"nothing here", &s), Cow::Borrowed(_)));
    }

    #[test]
    fn a_secret_split_between_chunks_is_still_caught() {
        register("tok_split_between_chunks");
        let mut r = StreamRedactor::default();
        let mut out = r.push(b"leak: tok_split_");
        assert_eq!(out, b"leak: ");
        out.extend(r.push(b"between_chunks done\n"));
        out.extend(r.finish());
        assert_eq!(out, b"leak: *** done\n");
    }

    #[test]
    fn escaped_forms_are_caught_and_short_values_ignored() {
        register("ab");
        register("k\"ey<&>value");
        assert_eq!(redact("ab cd"), "ab cd");
        assert_eq!(redact(r#"{"x":"k\"ey<&>value"}"#), r#"{"x":"***"}"#);
        assert_eq!(redact("k&quot;ey&lt;&amp;&gt;value"), "***");
        let v = serde_json::json!({"body": ["k\"ey<&>value"]});
        assert_eq!(redact_json(&v), serde_json::json!({"body": ["***"]}));
    }

    #[test]
    fn secret_names() {
        for n in [
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "ANTHROPIC_API_KEY",
            "openai_api_key",
            "ACTIONS_RUNTIME_TOKEN",
            "INPUT_GITHUB-TOKEN",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in ["PATH", "HOME", "TOKENS_USED", "API_KEYS_URL"] {
            assert!(!is_secret_name(n), "{n}");
        }
    }
}
