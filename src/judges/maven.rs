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

/// The free space judge-ci measures on the file system of each of `dirs` (None where it
/// cannot measure), taken before subject code runs so that a full disk afterwards can be
/// told apart from one the runner already had.
pub fn free_space(dirs: &[&Path]) -> Vec<Option<u64>> {
    dirs.iter()
        .map(|d| {
            let s = nix::sys::statvfs::statvfs(*d).ok()?;
            Some((s.blocks_available() as u64).saturating_mul(s.fragment_size() as u64))
        })
        .collect()
}

/// What the disk says about a failed build, from judge-ci's own measurements of `dirs` before
/// (`before`, from [`free_space`]) and after it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiskReading {
    /// The disk was full before the build's code ran: judge-ci's runner, an instrument
    /// failure (`disk_full`).
    FullBefore(Cause, String),
    /// The disk was free before and full after: the space went to what the build's code (the
    /// subject's) wrote, so the failure is the build's own (attack finding GA9: a test that
    /// fills the disk made a failing build an ERROR `fail-on: fail` waives).
    FilledByTheBuild(String),
    /// Not full after the build.
    NotFull,
}

/// Reads the disk for a failed build: full (under 1 MiB free for unprivileged writers)
/// counts as judge-ci's own instrument only when it was already full before the build's
/// code ran (trust.md point 12: environmental only from what judge-ci observed, never from
/// a state subject code brings about). A measurement missing before is no evidence of the
/// runner.
pub fn read_disk(dirs: &[&Path], before: &[Option<u64>]) -> DiskReading {
    classify_disk(dirs, before, &free_space(dirs))
}

fn classify_disk(dirs: &[&Path], before: &[Option<u64>], after: &[Option<u64>]) -> DiskReading {
    let full = |free: &Option<u64>| free.is_some_and(|f| f < DISK_FULL_BYTES);
    let mut filled = None;
    for (i, d) in dirs.iter().enumerate() {
        let (b, a) = (
            before.get(i).copied().flatten(),
            after.get(i).copied().flatten(),
        );
        if !full(&a) {
            continue;
        }
        let free = a.unwrap_or(0);
        if full(&b) {
            return DiskReading::FullBefore(
                Cause::DiskFull,
                format!(
                    "the disk is full: judge-ci measured {free} bytes free on the file system of {} before and after the build",
                    d.display()
                ),
            );
        }
        filled.get_or_insert_with(|| {
            format!(
                "the disk filled while the build ran: judge-ci measured {} bytes free on the file system of {} before it and {free} after, space the build's own code took",
                b.map_or_else(|| "an unknown number of".to_string(), |b| b.to_string()),
                d.display()
            )
        });
    }
    filled.map_or(DiskReading::NotFull, DiskReading::FilledByTheBuild)
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

    #[test]
    fn a_disk_the_build_filled_is_the_builds_failure_not_the_runners() {
        let ws = Path::new("/ws");
        let dirs = [ws];
        let mib = 1 << 20;
        // Free before, full after: what the subject's code wrote (attack finding GA9).
        let got = classify_disk(&dirs, &[Some(500 * mib)], &[Some(mib - 1)]);
        assert!(
            matches!(&got, DiskReading::FilledByTheBuild(why) if why.contains("filled while the build ran")),
            "{got:?}"
        );
        // Unknown before: no evidence of the runner either.
        assert!(matches!(
            classify_disk(&dirs, &[None], &[Some(0)]),
            DiskReading::FilledByTheBuild(_)
        ));
        // Full before the build's code ran: the runner's.
        assert!(matches!(
            classify_disk(&dirs, &[Some(10)], &[Some(10)]),
            DiskReading::FullBefore(Cause::DiskFull, _)
        ));
        assert_eq!(
            classify_disk(&dirs, &[Some(10)], &[Some(500 * mib)]),
            DiskReading::NotFull
        );
    }
}
