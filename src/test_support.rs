//! Helpers shared by the unit tests (compiled only for tests): real git repositories in
//! temporary folders and stand-in environments.

use std::path::Path;
use std::process::Command;

/// Runs `git args` in `dir` with a fixed identity, no signing and `main` as the first branch;
/// panics with git's standard error when it fails.
pub fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// An environment lookup that knows only `pairs`, for code that takes `Fn(&str) -> Option<String>`.
pub fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |k: &str| {
        pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    }
}
