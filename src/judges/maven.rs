//! Reading Maven and javac output: compiler errors as findings with file and line, the
//! relevant error lines, test summaries, and failures that belong to the environment.

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

/// The cause and a reason when Maven's own closing error says the build could not run at all (dependency or
/// plugin resolution, an offline repository): the environment's failure, not the subject's.
///
/// The log holds what the subject's code printed too (tests, plugins), so only Maven's last
/// structured error line is read: the last `[ERROR] Failed to execute goal`, `[ERROR] Plugin`
/// or `[FATAL]` line, which Maven prints after anything the build ran. Text anywhere else (a
/// test echoing "Could not resolve dependencies") decides nothing, and neither does text
/// naming a full disk or `OutOfMemoryError`: judge-ci observes the disk itself
/// ([`disk_full`]), and a build that runs out of memory is the subject's failure
/// (`spec/trust.md` point 12).
pub fn environment_failure(log: &str) -> Option<(Cause, String)> {
    let closing = closing_error(log)?;
    // Most specific first: a resolution failure that says the repository was unreachable is
    // the network's, not a missing artifact's.
    const PATTERNS: &[(&str, Cause, &str)] = &[
        (
            "Cannot access central",
            Cause::NetworkUnreachable,
            "the remote repository cannot be reached (offline)",
        ),
        (
            "could not be resolved: Cannot access",
            Cause::NetworkUnreachable,
            "a plugin could not be resolved: the remote repository cannot be reached",
        ),
        (
            "Unknown host",
            Cause::NetworkUnreachable,
            "the network is unavailable",
        ),
        (
            "Could not transfer artifact",
            Cause::NetworkUnreachable,
            "an artifact could not be downloaded",
        ),
        (
            "Could not resolve dependencies",
            Cause::DependencyUnresolved,
            "dependency resolution failed",
        ),
        (
            "Non-resolvable parent POM",
            Cause::DependencyUnresolved,
            "the parent POM could not be resolved",
        ),
    ];
    PATTERNS
        .iter()
        .find(|(needle, _, _)| closing.contains(needle))
        .map(|(_, cause, why)| {
            let line: String = closing.trim().chars().take(300).collect();
            (*cause, format!("{why} ({line})"))
        })
}

/// Maven's last structured error line: the last `[ERROR] Failed to execute goal`,
/// `[ERROR] Plugin` or `[FATAL]` line, which Maven prints after anything the build ran.
fn closing_error(log: &str) -> Option<&str> {
    log.lines().map(strip_ansi).rfind(|l| {
        l.starts_with("[ERROR] Failed to execute goal")
            || l.starts_with("[ERROR] Plugin ")
            || l.starts_with("[FATAL]")
    })
}

/// The `group:artifact` of every coordinate (`g:a:v`, `g:a:jar:v`, …) Maven's closing error
/// line names: the artifacts or plugins it could not resolve.
fn unresolved_artifacts(closing: &str) -> Vec<(String, String)> {
    let part = |p: &str| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    };
    let mut out: Vec<(String, String)> = Vec::new();
    let mut previous = "";
    for token in closing.split(|c: char| c.is_whitespace() || ",()[]'\"".contains(c)) {
        // "for project g:a:jar:v" names the project being built, not what it lacks.
        let project = previous == "project";
        if !token.is_empty() {
            previous = token;
        }
        let parts: Vec<&str> = token.trim_end_matches(['.', ':']).split(':').collect();
        if !project && parts.len() >= 3 && parts.iter().all(|p| part(p)) {
            let ga = (parts[0].to_string(), parts[1].to_string());
            if !out.contains(&ga) {
                out.push(ga);
            }
        }
    }
    out
}

/// The largest `pom.xml` read when comparing declared artifacts.
const POM_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// The POM files of a tree (`pom.xml` at any depth, build output and `.git` left out).
fn pom_texts(root: &Path) -> Vec<String> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .max_depth(12)
        .into_iter()
        .filter_entry(|e| {
            let n = e.file_name().to_string_lossy();
            !(e.file_type().is_dir() && (n == ".git" || n == "target" || n == "node_modules"))
        })
        .flatten()
        .filter(|e| e.file_type().is_file() && e.file_name() == "pom.xml")
        // A POM is small; a huge file under that name (the pull request's) is not read.
        .filter(|e| e.metadata().is_ok_and(|m| m.len() <= POM_MAX_BYTES))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect()
}

/// When every artifact Maven could not resolve is declared by a POM of the workspace and by
/// none of the reference's, the pull request introduced them: an artifact this environment
/// cannot resolve that the known-good solution does not need is the subject's failure, not
/// the environment's (else a PR could add a made-up dependency to turn its build tier into
/// an ERROR and let a lenient later tier decide). Returns the artifacts, or `None` when the
/// rule does not apply (no reference POM, nothing named, or one the reference declares too).
pub fn introduced_unresolvable(
    log: &str,
    workspace: &Path,
    reference: Option<&Path>,
) -> Option<Vec<String>> {
    let artifacts = unresolved_artifacts(closing_error(log)?);
    let reference = pom_texts(reference?);
    if artifacts.is_empty() || reference.is_empty() {
        return None;
    }
    let ours = pom_texts(workspace);
    let declares = |text: &String, (g, a): &(String, String)| {
        text.contains(&format!("<groupId>{g}</groupId>"))
            && text.contains(&format!("<artifactId>{a}</artifactId>"))
    };
    artifacts
        .iter()
        .all(|ga| {
            ours.iter().any(|t| declares(t, ga)) && !reference.iter().any(|t| declares(t, ga))
        })
        .then(|| artifacts.iter().map(|(g, a)| format!("{g}:{a}")).collect())
}

/// A line without the leading ANSI colour sequences Maven may still print (`ESC[0m`).
fn strip_ansi(line: &str) -> &str {
    let mut l = line;
    while let Some(rest) = l.strip_prefix("\u{1b}[") {
        match rest.find(|c: char| c.is_ascii_alphabetic()) {
            Some(i) => l = &rest[i + 1..],
            None => break,
        }
    }
    l
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
    fn the_unresolved_artifacts_are_read_from_mavens_closing_line_not_the_project() {
        let dep = "[ERROR] Failed to execute goal on project t: Could not resolve dependencies for project t:t:jar:1: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.example.absent:nowhere:jar:9.9 has not been downloaded from it before. -> [Help 1]";
        assert_eq!(
            unresolved_artifacts(dep),
            [("org.example.absent".to_string(), "nowhere".to_string())]
        );
        let plugin = "[ERROR] Plugin org.example.absent:nowhere-maven-plugin:9.9 or one of its dependencies could not be resolved: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact org.example.absent:nowhere-maven-plugin:jar:9.9 has not been downloaded from it before.";
        assert_eq!(
            unresolved_artifacts(plugin),
            [(
                "org.example.absent".to_string(),
                "nowhere-maven-plugin".to_string()
            )]
        );
        let two = "[ERROR] Failed to execute goal on project t: Could not resolve dependencies for project t:t:jar:1: The following artifacts could not be resolved: a.b:c:jar:1 (absent), d.e:f:jar:2 (absent): Cannot access central";
        assert_eq!(unresolved_artifacts(two).len(), 2);
    }

    #[test]
    fn an_artifact_only_the_pull_request_declares_is_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let (ws, reference) = (dir.path().join("ws"), dir.path().join("ref"));
        let pom = |extra: &str| {
            format!(
                "<project><groupId>t</groupId><artifactId>t</artifactId><version>1</version><dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId></dependency>{extra}</dependencies></project>"
            )
        };
        let absent = "<dependency><groupId>org.example.absent</groupId><artifactId>nowhere</artifactId><version>9.9</version></dependency>";
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&reference).unwrap();
        std::fs::write(ws.join("pom.xml"), pom(absent)).unwrap();
        std::fs::write(reference.join("pom.xml"), pom("")).unwrap();
        let log = |ga: &str| {
            format!(
                "[INFO] x\n[ERROR] Failed to execute goal on project t: Could not resolve dependencies for project t:t:jar:1: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode and the artifact {ga}:jar:9.9 has not been downloaded from it before.\n"
            )
        };
        let ours = log("org.example.absent:nowhere");
        assert_eq!(
            introduced_unresolvable(&ours, &ws, Some(&reference)),
            Some(vec!["org.example.absent:nowhere".to_string()])
        );
        // One the reference needs too is the environment's; so is any without a reference
        // POM to compare with.
        let shared = log("junit:junit");
        assert_eq!(
            introduced_unresolvable(&shared, &ws, Some(&reference)),
            None
        );
        assert_eq!(introduced_unresolvable(&ours, &ws, None), None);
        std::fs::remove_file(reference.join("pom.xml")).unwrap();
        assert_eq!(introduced_unresolvable(&ours, &ws, Some(&reference)), None);
        // Text the build printed elsewhere decides nothing.
        let printed = "[INFO] Could not resolve dependencies for project t:t:jar:1: the artifact org.example.absent:nowhere:jar:9.9\n";
        assert_eq!(
            introduced_unresolvable(printed, &ws, Some(&reference)),
            None
        );
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
        let env = environment_failure(
            "[ERROR] Plugin x:y:1.0 or one of its dependencies could not be resolved: Cannot access central (https://repo) in offline mode",
        );
        let (cause, why) = env.unwrap();
        assert_eq!(cause, Cause::NetworkUnreachable);
        assert!(why.contains("offline"), "{why}");
        assert!(environment_failure("[ERROR] BUILD FAILURE").is_none());
        // What the subject prints is not Maven's closing error: a test that echoes a
        // resolution failure, a full disk or an out-of-memory error still fails the build.
        let forged = "Could not resolve dependencies\nNo space left on device\njava.lang.OutOfMemoryError: Java heap space\n[ERROR] Failed to execute goal on project t: Could not resolve dependencies (forged by a test)\n[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project t: There are test failures.\n";
        assert!(environment_failure(forged).is_none());
        assert!(environment_failure("[ERROR] No space left on device\n").is_none());
        assert!(
            environment_failure("\u{1b}[0m[ERROR] Failed to execute goal on project t: Could not resolve dependencies for project t:t:jar:1: Cannot access central").is_some(),
            "Maven's own line, even behind a colour reset"
        );
    }
}
