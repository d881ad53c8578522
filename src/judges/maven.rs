//! Reading Maven and javac output: compiler errors as findings with file and line, the
//! relevant error lines, test summaries, and a full disk as judge-ci measures it (the cause of
//! a failed resolution is [`super::resolution`]'s, never the log's).

use regex::Regex;
use std::path::Path;
use std::sync::LazyLock;

use crate::judgment::{Cause, Finding, FindingKind};

static MAVEN_ERR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\[ERROR\] (?P<path>/?[^\s:\[][^:\[]*\.(?:java|kt|groovy|scala)):\[(?P<line>\d+),(?P<col>\d+)\] (?P<msg>.+)$").expect("valid regex")
});
static JAVAC_ERR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<path>[^\s:][^:]*\.java):(?P<line>\d+): error: (?P<msg>.+)$")
        .expect("valid regex")
});
static TESTS_RUN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)")
        .expect("valid regex")
});

fn relative(path: &str, workspace: &Path) -> String {
    let p = Path::new(path);
    let ws = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_path_buf());
    p.strip_prefix(&ws)
        .or_else(|_| p.strip_prefix(workspace))
        .map(|r| r.display().to_string())
        .unwrap_or_else(|_| path.to_string())
}

/// Compiler errors in a build log (Maven's `[ERROR] path:[l,c] msg` and javac's
/// `path:l: error: msg`), each once, in order.
pub fn compiler_errors(log: &str, workspace: &Path) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for line in log.lines() {
        let line = line.trim_end();
        let (c, column) = if let Some(c) = MAVEN_ERR.captures(line) {
            let col = c["col"].parse().ok();
            (c, col)
        } else if let Some(c) = JAVAC_ERR.captures(line) {
            (c, None)
        } else {
            continue;
        };
        let mut f = Finding::new(relative(&c["path"], workspace), FindingKind::CompilerError)
            .at(c["line"].parse().unwrap_or(0))
            .message(c["msg"].trim());
        f.column = column;
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// The first `max` `[ERROR]` lines, without Maven's help boilerplate.
pub fn error_lines(log: &str, max: usize) -> Vec<String> {
    log.lines()
        .filter(|l| l.starts_with("[ERROR]"))
        .map(|l| l.trim_end().to_string())
        .filter(|l| {
            let t = l.trim_start_matches("[ERROR]").trim();
            !t.is_empty()
                && !t.starts_with("-> [Help")
                && !t.starts_with("To see the full stack trace")
                && !t.starts_with("Re-run Maven")
                && !t.starts_with("For more information")
                && !t.starts_with("[Help")
        })
        .take(max)
        .collect()
}

/// `Tests run: N, Failures: F, Errors: E` of the last summary with failures, and the
/// failing tests Surefire lists.
pub fn test_summary(log: &str) -> Option<String> {
    let last = TESTS_RUN.captures_iter(log).last()?;
    let (run, fail, err) = (&last[1], &last[2], &last[3]);
    if fail == "0" && err == "0" {
        return None;
    }
    let failing: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("[ERROR]   "))
        .filter(|l| l.contains('.') && !l.starts_with("Run "))
        .take(5)
        .collect();
    let mut s = format!("{fail} test failure(s) and {err} error(s) in {run} test(s)");
    if !failing.is_empty() {
        s.push_str(&format!(": {}", failing.join("; ")));
    }
    Some(s)
}

/// The least free space on the file systems a build writes to before judge-ci calls the disk
/// full, as judge-ci measures it (not as a log says).
const DISK_FULL_BYTES: u64 = 1 << 20;

/// The cause and a reason when judge-ci itself sees a full disk under `dirs` (the workspace, the temporary
/// folder): fewer than 1 MiB free for unprivileged writers.
pub fn disk_full(dirs: &[&Path]) -> Option<(Cause, String)> {
    dirs.iter().find_map(|d| {
        let s = nix::sys::statvfs::statvfs(*d).ok()?;
        let free = (s.blocks_available() as u64).saturating_mul(s.fragment_size() as u64);
        (free < DISK_FULL_BYTES).then(|| {
            (
                Cause::DiskFull,
                format!(
                    "the disk is full: judge-ci measured {free} bytes free on the file system of {}",
                    d.display()
                ),
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "[INFO] Compiling 2 source files\n\
[ERROR] COMPILATION ERROR : \n\
[ERROR] /ws/src/main/java/com/acme/App.java:[12,17] cannot find symbol\n\
  symbol:   class HttpServlet\n\
[ERROR] /ws/src/main/java/com/acme/App.java:[3,20] package javax.servlet does not exist\n\
[ERROR] -> [Help 1]\n";

    #[test]
    fn maven_compiler_errors_become_findings() {
        let f = compiler_errors(LOG, Path::new("/ws"));
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].path, "src/main/java/com/acme/App.java");
        assert_eq!((f[0].line, f[0].column), (Some(12), Some(17)));
        assert_eq!(
            f[1].message.as_deref(),
            Some("package javax.servlet does not exist")
        );
        assert_eq!(error_lines(LOG, 10).len(), 3);
        let j = compiler_errors("src/A.java:4: error: ';' expected\n", Path::new("/ws"));
        assert_eq!(j[0].line, Some(4));
        assert_eq!(j[0].column, None);
    }

    #[test]
    fn test_failures_and_environment() {
        let log = "Tests run: 2, Failures: 1, Errors: 0, Skipped: 0\n[ERROR] Failures: \n[ERROR]   CalcTest.adds:14 expected:<3> but was:<4>\n";
        let s = test_summary(log).unwrap();
        assert!(
            s.contains("1 test failure(s)") && s.contains("CalcTest.adds:14"),
            "{s}"
        );
        assert!(test_summary("Tests run: 2, Failures: 0, Errors: 0, Skipped: 0").is_none());
    }
}
