//! Looking for processes by command line, failing closed: a test that asks whether a process
//! survived must not pass because the question could not be asked.

use std::process::Command;
use std::time::{Duration, Instant};

/// The process ids (and command lines) of processes whose command line contains `pattern`.
/// Panics when `pgrep` cannot be run or reports an error, so a missing tool never reads as
/// "no such process".
pub fn matching(pattern: &str) -> Vec<String> {
    let out = Command::new("pgrep")
        .args(["-a", "-f", pattern])
        .output()
        .unwrap_or_else(|e| panic!("cannot run pgrep (procps) to look for {pattern:?}: {e}"));
    match out.status.code() {
        Some(0) => String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
        Some(1) => Vec::new(),
        other => panic!(
            "pgrep -f {pattern:?} failed ({other:?}): {}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// Whether a process whose command line contains `pattern` is running now.
pub fn running(pattern: &str) -> bool {
    !matching(pattern).is_empty()
}

/// Waits until a process matching `pattern` runs; panics naming `what` after `limit`.
pub fn wait_until_running(pattern: &str, limit: Duration, what: &str) {
    let start = Instant::now();
    while !running(pattern) {
        assert!(start.elapsed() < limit, "{what} (after {limit:?})");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Asserts that no process matching `pattern` is left once the kernel has had `grace` to
/// reap the ones that were killed; panics naming `what` and the survivors.
pub fn assert_none_survive(pattern: &str, grace: Duration, what: &str) {
    let start = Instant::now();
    loop {
        let left = matching(pattern);
        if left.is_empty() {
            return;
        }
        assert!(start.elapsed() < grace, "{what}: {}", left.join("; "));
        std::thread::sleep(Duration::from_millis(50));
    }
}
