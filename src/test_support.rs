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

/// Writes `text` to `rel` under `root`, creating its folders.
pub fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("a file has a folder")).expect("create folders");
    std::fs::write(p, text).expect("write the file");
}
