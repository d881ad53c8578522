//! The sealed test oracle (`spec/trust.md` point 17): a Maven build that exits 0 passes only
//! when judge-ci itself observed the trusted tests run and pass.
//!
//! - **The expected tests come from the trusted side**: the reference's test sources
//!   (`src/test/java`, which `restore:` copies over the pull request's), each `@Test` method
//!   of each top-level class, never what the pull request's run reports.
//! - **judge-ci runs them itself**: after the build compiled them, a JVM of judge-ci's own
//!   runs [`JudgeCiOracle.java`](JudgeCiOracle.java) — compiled by judge-ci into a folder of
//!   its own, its class files hashed before and after — on the trusted tests judge-ci
//!   compiled, the dependencies of the effective model and, last, `target/classes`, through
//!   the JUnit Platform launcher with the engines judge-ci names (JUnit 5 through Jupiter,
//!   JUnit 4 through Vintage; none a service file registers), every auto-registered
//!   listener, filter and extension switched off, in a sealed fence (no network, the
//!   workspace read-only, every writable folder `noexec`: [`Fence::prepare_sealed`]). Each test's start and end reaches judge-ci
//!   on a pipe only judge-ci reads (descriptor 3), every line prefixed by a nonce judge-ci
//!   wrote on standard input; lines without it are ignored, and a test that no line reports
//!   finishing is a failure (a halted JVM, an exit in a test, a shutdown hook prove nothing).
//! - **The same tests run against the reference** (a copy built by judge-ci, fenced apart):
//!   a test failing there too is not charged to the pull request. With a base run, the tests
//!   split into FAIL_TO_PASS and PASS_TO_PASS as SWE-bench's harness grades them.
//! - **Surefire's reports are a cross-check only**: a test whose recorded outcome disagrees
//!   with what judge-ci observed is a FAIL naming both.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

mod error;
pub mod judge;

pub use error::OracleError;

use super::process::{self, Exit, Private, ProcessSpec};
use super::structural::{self, Pom};
use crate::fence::Fence;

/// The oracle's Java source, compiled by judge-ci at the first build of a run.
const SOURCE: &str = include_str!("JudgeCiOracle.java");

/// Where the JUnit Platform's standalone jar (launcher, Jupiter and Vintage engines) may be,
/// after `JUDGE_CI_JUNIT_STANDALONE`.
const STANDALONE: &[&str] = &[
    "/usr/share/java/junit-platform-console-standalone.jar",
    "/usr/share/maven-repo/org/junit/platform/junit-platform-console-standalone/1.9.1/junit-platform-console-standalone-1.9.1.jar",
];

/// What one expected test did, as judge-ci observed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "outcome", content = "message")]
pub enum Observed {
    /// Every run of it passed.
    Passed,
    /// A run of it failed (or its class could not run), with why.
    Failed(String),
    /// It was skipped (disabled, an assumption that did not hold).
    Skipped,
    /// No line reported it finishing.
    NotRun,
}

impl Observed {
    /// Whether it counts as passing.
    pub fn passed(&self) -> bool {
        matches!(self, Observed::Passed)
    }

    /// A few words for a report.
    pub fn words(&self) -> String {
        match self {
            Observed::Passed => "passed".into(),
            Observed::Failed(m) if m.is_empty() => "failed".into(),
            Observed::Failed(m) => format!("failed: {m}"),
            Observed::Skipped => "skipped".into(),
            Observed::NotRun => "not observed finishing".into(),
        }
    }
}

/// The trusted tests: `Class#method` by class, and every top-level class of the trusted test
/// sources, all of which judge-ci's runs select: the JUnit engines then discover what a
/// source scan cannot see (JUnit 3 `TestCase` methods, `@Theory`, composed `@Test`
/// annotations, a test interface's default methods: attack finding OF2), and what the
/// reference's run discovers is expected of the subject's too ([`TestSets::grade`] charges
/// every test of the reference's run).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expected {
    /// Every test the source scan finds, `pkg.Class#method`.
    pub tests: BTreeSet<String>,
    /// Every top-level class of the trusted test sources but abstract ones.
    pub sources: BTreeSet<String>,
}

impl Expected {
    /// The classes to run.
    pub fn classes(&self) -> BTreeSet<String> {
        self.tests
            .iter()
            .filter_map(|t| t.split_once('#').map(|(c, _)| c.to_string()))
            .chain(self.sources.iter().cloned())
            .collect()
    }

    /// Whether the trusted side has no test class at all.
    pub fn is_empty(&self) -> bool {
        self.tests.is_empty() && self.sources.is_empty()
    }
}

static PACKAGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*package\s+([\w.]+)\s*;").expect("valid regex"));
static TEST_METHOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"@(?:[\w.]+\.)?(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b(?:\s*\([^)]*\))?(?:\s*@[\w.]+(?:\s*\([^)]*\))?)*\s+(?:(?:public|protected|private|static|final|synchronized)\s+)*(?:<[^>]*>\s*)?[\w.<>\[\],?\s]*?\b(\w+)\s*\(")
        .expect("valid regex")
});

/// The largest test source read for expected tests.
const MAX_TEST_SOURCE: u64 = 4 * 1024 * 1024;

/// The expected tests of a trusted tree: each `@Test` (`@ParameterizedTest`, …) method of the
/// `.java` files under `src/test/java`, by the file's class (unicode escapes decoded first).
/// Nested and abstract classes are not told apart (see `docs/test-oracle.md`).
pub fn expected(trusted: &Path) -> Expected {
    let root = trusted.join("src/test/java");
    let mut tests = BTreeSet::new();
    let mut sources = BTreeSet::new();
    for e in walkdir::WalkDir::new(&root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.path().extension().is_some_and(|x| x == "java"))
        .filter(|e| e.metadata().is_ok_and(|m| m.len() <= MAX_TEST_SOURCE))
    {
        let Ok(bytes) = std::fs::read(e.path()) else {
            continue;
        };
        let decoded = crate::lang::escapes::decode(&bytes);
        let text = String::from_utf8_lossy(&decoded.text);
        if text.contains("abstract class") {
            continue;
        }
        let Some(stem) = e
            .path()
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
        else {
            continue;
        };
        if stem == "package-info" || stem == "module-info" {
            continue;
        }
        let class = match PACKAGE.captures(&text) {
            Some(p) => format!("{}.{stem}", &p[1]),
            None => stem,
        };
        for m in TEST_METHOD.captures_iter(&text) {
            tests.insert(format!("{class}#{}", &m[1]));
        }
        sources.insert(class);
    }
    Expected { tests, sources }
}

/// judge-ci's compiled oracle: its folder, the hashes of its class files, the JUnit jar.
pub struct Launcher {
    dir: SealedDir,
    hashes: BTreeMap<String, String>,
    standalone: PathBuf,
    /// The `--limit-modules` list: the JDK's modules that [`ALLOWED_MODULES`] admits.
    modules: String,
}

/// The JDK modules the oracle's JVM may load: every `java.*` module and these `jdk.*` ones,
/// none of which reads the JVM's memory or attaches to it. Left out: `jdk.unsupported`
/// (`sun.misc.Unsafe`, which reads any address), `jdk.management` (heap dumps, diagnostic
/// commands), `jdk.attach`, `jdk.jdi`, `jdk.jdwp.agent`, `jdk.hotspot.agent`, `jdk.jfr`,
/// `jdk.incubator.*` (the foreign memory API), `jdk.internal.*` and the tools. A test needing
/// one of them fails on the reference too and is not charged.
pub const ALLOWED_MODULES: &[&str] = &[
    "jdk.accessibility",
    "jdk.charsets",
    "jdk.compiler",
    "jdk.crypto.cryptoki",
    "jdk.crypto.ec",
    "jdk.dynalink",
    "jdk.httpserver",
    "jdk.jsobject",
    "jdk.localedata",
    "jdk.naming.dns",
    "jdk.naming.rmi",
    "jdk.net",
    "jdk.nio.mapmode",
    "jdk.random",
    "jdk.sctp",
    "jdk.security.auth",
    "jdk.security.jgss",
    "jdk.xml.dom",
    "jdk.zipfs",
];

/// The `--limit-modules` value for a JDK listing `listed` (`java --list-modules`: one
/// `name@version` a line).
fn limit_modules(listed: &str) -> String {
    listed
        .lines()
        .filter_map(|l| l.split('@').next())
        .map(str::trim)
        .filter(|m| m.starts_with("java.") || ALLOWED_MODULES.contains(m))
        .collect::<Vec<_>>()
        .join(",")
}

/// The oracle JVM's options before its class path: the attach mechanism off (no tool, no
/// child process of the tests attaches to it), no performance-data file, and only the
/// modules [`ALLOWED_MODULES`] admits.
fn jvm_options(modules: &str) -> Vec<String> {
    vec![
        "-XX:+DisableAttachMechanism".into(),
        "-XX:-UsePerfData".into(),
        "--limit-modules".into(),
        modules.into(),
    ]
}

/// The SHA-256 of every file of `dir`, by name.
fn hash_dir(dir: &Path) -> BTreeMap<String, String> {
    walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            (
                e.path()
                    .strip_prefix(dir)
                    .unwrap_or(e.path())
                    .display()
                    .to_string(),
                hex::encode(Sha256::digest(&bytes)),
            )
        })
        .collect()
}

impl Launcher {
    /// Compiles the oracle into a new folder of judge-ci's (read-only once written).
    pub async fn compile(fence: &Fence) -> Result<Launcher, OracleError> {
        let standalone = std::env::var_os("JUDGE_CI_JUNIT_STANDALONE")
            .map(PathBuf::from)
            .into_iter()
            .chain(STANDALONE.iter().map(PathBuf::from))
            .find(|p| p.is_file())
            .ok_or(OracleError::NoStandalone)?;
        let dir = SealedDir::new("judge-ci-oracle-")
            .map_err(OracleError::io("make the oracle's folder"))?;
        let src = dir.path().join("src");
        let classes = dir.path().join("classes");
        std::fs::create_dir_all(&src)
            .map_err(OracleError::io("make the oracle's source folder"))?;
        std::fs::write(src.join("JudgeCiOracle.java"), SOURCE)
            .map_err(OracleError::io("write the oracle's source"))?;
        let spec = ProcessSpec {
            program: "javac".into(),
            args: vec![
                "--release".into(),
                "11".into(),
                "-proc:none".into(),
                "-cp".into(),
                standalone.display().to_string(),
                "-d".into(),
                classes.display().to_string(),
                src.join("JudgeCiOracle.java").display().to_string(),
            ],
            dir: dir.path().to_path_buf(),
            env: Vec::new(),
            timeout: Duration::from_secs(120),
            stdin: None,
            answer: false,
            private: Private::default(),
        };
        // judge-ci's own program, not the subject's: fenced on its own, writing only there.
        let own = Fence::new(None, std::sync::Arc::default());
        own.add_workspace(dir.path());
        let _ = fence;
        let out = process::run(&spec, &own)
            .await
            .map_err(OracleError::start("javac", "for the oracle"))?;
        if out.exit != Exit::Code(0) {
            return Err(OracleError::Compile(
                out.combined().chars().take(600).collect::<String>(),
            ));
        }
        let _ = std::fs::remove_dir_all(&src);
        read_only(&classes);
        let hashes = hash_dir(&classes);
        let list = ProcessSpec {
            program: "java".into(),
            args: vec!["--list-modules".into()],
            dir: dir.path().to_path_buf(),
            env: Vec::new(),
            timeout: Duration::from_secs(60),
            stdin: None,
            answer: false,
            private: Private::default(),
        };
        let listed = process::run(&list, &own)
            .await
            .map_err(OracleError::start("java", "to list its modules"))?;
        let modules = limit_modules(&listed.stdout.text());
        if listed.exit != Exit::Code(0) || !modules.split(',').any(|m| m == "java.base") {
            return Err(OracleError::Modules(
                listed.combined().chars().take(400).collect::<String>(),
            ));
        }
        Ok(Launcher {
            dir,
            hashes,
            standalone,
            modules,
        })
    }

    fn classes(&self) -> PathBuf {
        self.dir.path().join("classes")
    }

    /// `Err` when a class file of the oracle changed since judge-ci compiled it.
    fn intact(&self) -> Result<(), OracleError> {
        if hash_dir(&self.classes()) == self.hashes {
            Ok(())
        } else {
            Err(OracleError::LauncherTampered(self.classes()))
        }
    }
}

impl std::fmt::Debug for Launcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launcher")
            .field("dir", &self.dir.path())
            .field("standalone", &self.standalone)
            .finish()
    }
}

/// Makes every file and folder under `dir` read-only.
fn read_only(dir: &Path) {
    set_modes(dir, 0o500, 0o400);
}

/// Gives every entry under `dir` the mode `dirs` (folders) or `files` (the rest).
fn set_modes(dir: &Path, dirs: u32, files: u32) {
    use std::os::unix::fs::PermissionsExt;
    // Folders last when closing them (their entries stay reachable), first when opening.
    let closing = dirs & 0o200 == 0;
    for e in walkdir::WalkDir::new(dir)
        .contents_first(closing)
        .into_iter()
        .filter_map(Result::ok)
    {
        let mode = if e.file_type().is_dir() { dirs } else { files };
        let _ = std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(mode));
    }
}

/// A temporary folder of judge-ci's own that holds what the subject must not keep: the
/// oracle's classes and the compiled trusted (hidden) tests. Only its owner can enter it
/// (0700, then read-only 0500 and 0400 once written), and it is removed when dropped, read-only
/// or not: before, the read-only folders were left in the temporary folder after the run,
/// readable by every user of the machine and by later runs (attack finding FE5-2).
struct SealedDir(tempfile::TempDir);

impl SealedDir {
    fn new(prefix: &str) -> std::io::Result<SealedDir> {
        use std::os::unix::fs::PermissionsExt;
        tempfile::Builder::new()
            .prefix(prefix)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .map(SealedDir)
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for SealedDir {
    fn drop(&mut self) {
        // Writable again, so that the TempDir's own drop (after this) can remove the tree.
        set_modes(self.0.path(), 0o700, 0o600);
    }
}

/// The run's oracle, compiled once at its first use, and the reference's and the base's test
/// runs, each made once.
#[derive(Default)]
pub struct Oracle {
    launcher: tokio::sync::OnceCell<Result<Launcher, OracleError>>,
    reference: tokio::sync::OnceCell<Result<Run, OracleError>>,
    base: tokio::sync::OnceCell<Run>,
}

impl std::fmt::Debug for Oracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oracle").finish_non_exhaustive()
    }
}

impl Oracle {
    /// The compiled oracle, or why there is none.
    pub async fn launcher(&self, fence: &Fence) -> Result<&Launcher, OracleError> {
        self.launcher
            .get_or_init(|| Launcher::compile(fence))
            .await
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// One dependency jar of a local repository, and its own compile and runtime dependencies
/// (from its POM there), at most `depth` levels down.
fn jars_of(
    repos: &[PathBuf],
    group: &str,
    artifact: &str,
    version: &str,
    depth: usize,
    seen: &mut BTreeSet<(String, String)>,
    out: &mut Vec<PathBuf>,
) {
    if !seen.insert((group.to_string(), artifact.to_string())) {
        return;
    }
    if [group, artifact, version]
        .iter()
        .any(|s| s.contains("${") || s.contains('/') || s.contains(".."))
    {
        return;
    }
    for repo in repos {
        let dir = repo
            .join(group.replace('.', "/"))
            .join(artifact)
            .join(version);
        let jar = dir.join(format!("{artifact}-{version}.jar"));
        if !dir.is_dir() {
            continue;
        }
        if jar.is_file() {
            out.push(jar);
        }
        if depth == 0 {
            return;
        }
        let pom = dir.join(format!("{artifact}-{version}.pom"));
        if let Ok(text) = std::fs::read_to_string(&pom)
            && let Ok(mut p) = Pom::parse(&text)
        {
            p.resolve(None);
            for (k, d) in &p.dependencies {
                if !matches!(d.value.scope.as_str(), "compile" | "runtime") {
                    continue;
                }
                let mut parts = k.splitn(3, ':');
                if let (Some(g), Some(a), Some(v)) =
                    (parts.next(), parts.next(), d.value.version.as_deref())
                {
                    jars_of(repos, g, a, v, depth - 1, seen, out);
                }
            }
        }
        return;
    }
}

/// The classpath of a project's tests: its compiled tests and classes, then every dependency
/// of its effective model (any scope but `system`/`import`) and their own compile and runtime
/// dependencies, from the local repositories.
pub fn classpath(project: &Path, repos: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = vec![
        project.join("target/test-classes"),
        project.join("target/classes"),
    ];
    let mut seen = BTreeSet::new();
    let poms = structural::effective_poms(project);
    if let Some((_, pom)) = poms.iter().find(|(rel, _)| rel == "pom.xml") {
        for (k, d) in &pom.dependencies {
            if matches!(d.value.scope.as_str(), "system" | "import") {
                continue;
            }
            let mut parts = k.splitn(3, ':');
            if let (Some(g), Some(a), Some(v)) =
                (parts.next(), parts.next(), d.value.version.as_deref())
            {
                jars_of(repos, g, a, v, 3, &mut seen, &mut out);
            }
        }
    }
    out
}

/// The oracle's class path after judge-ci's own entries, from [`classpath`]'s: the
/// dependencies first, the project's `target/classes` (the subject's build wrote them) last,
/// so no class of the subject's shadows one of the test libraries the trusted tests call
/// (an `Assert` that never fails). `target/test-classes` is left out.
fn subject_last(classpath: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut rest = classpath.into_iter().skip(1);
    let classes = rest.next();
    rest.chain(classes).collect()
}

/// What one run of the oracle observed.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// Each expected test's outcome.
    pub tests: BTreeMap<String, Observed>,
    /// Whether the oracle said it had finished (its last line).
    pub done: bool,
    /// Lines on the channel without the nonce: the oracle writes each of its lines whole
    /// (one write, shorter than a pipe's atomic size), so only code under test wrote these.
    pub foreign: usize,
}

/// Why a run of the oracle gave no observation at all.
#[derive(Clone, Debug)]
pub enum RunFailure {
    /// judge-ci's time limit ended it; what the channel said before that.
    Timeout(Duration, Run),
    /// The channel carried more than judge-ci reads; what its first part said.
    Flooded(usize, Run),
    /// The oracle could not be started, or was tampered with.
    Instrument(OracleError),
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunFailure::Timeout(t, _) => write!(
                f,
                "the tests did not finish within {} under judge-ci's oracle; its process group was killed",
                super::humantime(*t)
            ),
            RunFailure::Flooded(n, _) => write!(
                f,
                "the oracle's channel carried more than {n} bytes: something in the tests wrote to judge-ci's descriptor"
            ),
            RunFailure::Instrument(why) => why.fmt(f),
        }
    }
}

/// A fresh nonce: 128 random bits as hex.
fn nonce() -> Result<String, RunFailure> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b)
        .map_err(|e| RunFailure::Instrument(OracleError::Nonce(e.to_string())))?;
    Ok(hex::encode(b))
}

/// `Outer$Inner#m` → `Outer#m`; `Outer$Inner` → `Outer`.
fn nested_to_outer(key: &str) -> String {
    let (class, method) = match key.split_once('#') {
        Some((c, m)) => (c, Some(m)),
        None => (key, None),
    };
    let class = class.split('$').next().unwrap_or(class);
    match method {
        Some(m) => format!("{class}#{m}"),
        None => class.to_string(),
    }
}

/// Why judge-ci's oracle cannot run a trusted tree's tests, when it cannot: a multi-module
/// build (only the root's `src/test/java` is read) or TestNG tests (only JUnit 4 and 5
/// engines run). Said as an ERROR, never a pass on the build's exit status.
pub fn unsupported(trusted: &Path) -> Option<String> {
    let pom = crate::judges::paths::read_text_limited(&trusted.join("pom.xml"), MAX_TEST_SOURCE)
        .unwrap_or_default();
    if pom.contains("<modules>") {
        return Some(
            "the reference is a multi-module Maven build: judge-ci's test oracle runs one module's tests (the root's src/test/java) and does not support multi-module builds yet, so it cannot observe the trusted tests".to_string(),
        );
    }
    let testng = walkdir::WalkDir::new(trusted.join("src/test/java"))
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.path().extension().is_some_and(|x| x == "java"))
        .filter(|e| e.metadata().is_ok_and(|m| m.len() <= MAX_TEST_SOURCE))
        .find(|e| {
            std::fs::read(e.path())
                .map(|b| String::from_utf8_lossy(&b).contains("org.testng"))
                .unwrap_or(false)
        });
    testng.map(|e| {
        format!(
            "the reference's tests use TestNG ({}): judge-ci's test oracle runs JUnit 4 and 5 tests only, so it cannot observe them",
            e.path()
                .strip_prefix(trusted)
                .unwrap_or(e.path())
                .display()
        )
    })
}

/// Reads the channel: only lines that start with the nonce count.
fn parse(channel: &[u8], nonce: &str, expected: &Expected) -> Run {
    let text = String::from_utf8_lossy(channel);
    let mut seen: BTreeMap<String, Observed> = BTreeMap::new();
    let mut class_failed: BTreeMap<String, String> = BTreeMap::new();
    let mut done = false;
    let mut foreign = 0;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix(nonce).and_then(|r| r.strip_prefix(' ')) else {
            foreign += 1;
            continue;
        };
        if rest == "DONE" {
            done = true;
            continue;
        }
        let mut parts = rest.splitn(4, ' ');
        let (kind, key) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        // A test of a nested class (`@Nested`, `Outer$Inner#m`) is one of its top-level
        // class's file, where the expected tests are read from.
        let key = &nested_to_outer(key);
        let (status, why) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        match kind {
            "F" => {
                let now = match status {
                    "SUCCESSFUL" => Observed::Passed,
                    "ABORTED" => Observed::Skipped,
                    _ => Observed::Failed(why.to_string()),
                };
                // A test run several times (parameterized, repeated) passes only if every
                // run did.
                let merged = match (seen.remove(key), now) {
                    (Some(Observed::Failed(m)), _) | (_, Observed::Failed(m)) => {
                        Observed::Failed(m)
                    }
                    (Some(Observed::Skipped), o) | (Some(o), Observed::Skipped)
                        if o != Observed::Passed =>
                    {
                        o
                    }
                    (Some(Observed::Passed) | None, o) => o,
                    (Some(o), _) => o,
                };
                seen.insert(key.to_string(), merged);
            }
            "K" => {
                seen.entry(key.to_string()).or_insert(Observed::Skipped);
            }
            "C" => {
                class_failed.insert(
                    key.to_string(),
                    format!("{status} {why}").trim().to_string(),
                );
            }
            _ => {}
        }
    }
    let mut tests: BTreeMap<String, Observed> = expected
        .tests
        .iter()
        .map(|t| {
            let class = t.split_once('#').map_or(t.as_str(), |(c, _)| c);
            let o = match (seen.get(t), class_failed.get(class)) {
                (Some(o), _) => o.clone(),
                (None, Some(why)) => Observed::Failed(format!("its class could not run: {why}")),
                (None, None) => Observed::NotRun,
            };
            (t.clone(), o)
        })
        .collect();
    // What the engines discovered beyond the scan, in the trusted classes judge-ci selected:
    // on the reference's run these are expected of the subject too.
    let selected = expected.classes();
    for (t, o) in seen {
        let class = t.split_once('#').map_or(t.as_str(), |(c, _)| c);
        if selected.contains(class) {
            tests.entry(t).or_insert(o);
        }
    }
    Run {
        tests,
        done,
        foreign,
    }
}

/// The trusted tests compiled by judge-ci: never the pull request's `target/test-classes`,
/// which its build's processes wrote (and could have swapped for tests that assert nothing).
struct TestClasses {
    dir: SealedDir,
    hashes: BTreeMap<String, String>,
}

impl TestClasses {
    fn classes(&self) -> PathBuf {
        self.dir.path().join("classes")
    }

    fn intact(&self) -> Result<(), OracleError> {
        if hash_dir(&self.classes()) == self.hashes {
            Ok(())
        } else {
            Err(OracleError::TestsTampered(self.classes()))
        }
    }
}

/// The most source files of the trusted tests judge-ci compiles.
const MAX_TEST_FILES: usize = 20_000;

/// Compiles the trusted tests (`trusted/src/test/java`, with `src/test/resources` copied
/// beside them) against `project`'s compiled classes and dependencies, with `javac -proc:none`
/// (no annotation processor runs), into a read-only folder of judge-ci's whose files are
/// hashed, or what javac said when they do not compile against these classes (the tests fail
/// there).
async fn compile_tests(
    launcher: &Launcher,
    trusted: &Path,
    project: &Path,
    repos: &[PathBuf],
    timeout: Duration,
) -> Result<Compiled, RunFailure> {
    let dir = SealedDir::new("judge-ci-oracle-tests-")
        .map_err(|e| RunFailure::Instrument(OracleError::io("make a folder for the tests")(e)))?;
    let classes = dir.path().join("classes");
    std::fs::create_dir_all(&classes)
        .map_err(|e| RunFailure::Instrument(OracleError::io("make the tests' class folder")(e)))?;
    let sources: Vec<PathBuf> = walkdir::WalkDir::new(trusted.join("src/test/java"))
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.path().extension().is_some_and(|x| x == "java"))
        .map(|e| e.path().to_path_buf())
        .take(MAX_TEST_FILES + 1)
        .collect();
    if sources.len() > MAX_TEST_FILES {
        return Err(RunFailure::Instrument(OracleError::TooManyTests(
            MAX_TEST_FILES,
        )));
    }
    let mut cp = vec![launcher.standalone.clone()];
    cp.extend(subject_last(classpath(project, repos)));
    // judge-ci's own compile reads the trusted sources and the class path, which may lie in
    // the shared temporary folder every fence hides (fence::rules::shared_folders).
    let own = Fence::new(None, std::sync::Arc::default());
    own.add_workspace(dir.path());
    own.show(&trusted.join("src/test/java"));
    for p in &cp {
        own.show(p);
    }
    let cp = cp
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    // An argument file: names are data, quoted as javac reads them.
    let quote = |p: &Path| {
        format!(
            "\"{}\"",
            p.display()
                .to_string()
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
        )
    };
    let mut argfile = format!(
        "-proc:none\n-nowarn\n-encoding\nUTF-8\n-implicit:class\n-d\n{}\n-cp\n{}\n",
        quote(&classes),
        quote(Path::new(&cp))
    );
    for s in &sources {
        argfile.push_str(&quote(s));
        argfile.push('\n');
    }
    let args_path = dir.path().join("javac.args");
    std::fs::write(&args_path, argfile)
        .map_err(|e| RunFailure::Instrument(OracleError::io("write javac's argument file")(e)))?;
    let spec = ProcessSpec {
        program: "javac".into(),
        args: vec![format!("@{}", args_path.display())],
        dir: dir.path().to_path_buf(),
        env: Vec::new(),
        timeout,
        stdin: None,
        answer: false,
        private: Private::default(),
    };
    // judge-ci's own compile (no subject code runs in it: -proc:none), writing only there.
    let out = process::run(&spec, &own)
        .await
        .map_err(|e| RunFailure::Instrument(OracleError::start("javac", "for the tests")(e)))?;
    match out.exit {
        Exit::Code(0) => {}
        Exit::TimedOut => return Err(RunFailure::Timeout(timeout, Run::default())),
        _ => {
            let log = out.combined();
            let first: Vec<&str> = log
                .lines()
                .filter(|l| l.contains("error:"))
                .take(3)
                .collect();
            return Ok(Compiled::Not(if first.is_empty() {
                log.chars().take(400).collect()
            } else {
                first.join("; ")
            }));
        }
    }
    let resources = trusted.join("src/test/resources");
    if resources.is_dir() {
        judge::copy_tree(&resources, &classes)
            .map_err(|e| RunFailure::Instrument(OracleError::io("copy the test resources")(e)))?;
    }
    read_only(dir.path());
    let hashes = hash_dir(&classes);
    Ok(Compiled::Classes(TestClasses { dir, hashes }))
}

/// What judge-ci's compile of the trusted tests gave.
enum Compiled {
    /// Their class files, in judge-ci's read-only folder.
    Classes(TestClasses),
    /// They do not compile against the project's classes: javac's first errors.
    Not(String),
}

/// Runs the trusted tests (the `.java` files of `trusted/src/test/java`, compiled by judge-ci
/// against the project's `target/classes`) of the project at `project` (built already) under
/// judge-ci's oracle, in `fence`.
pub async fn observe(
    launcher: &Launcher,
    trusted: &Path,
    project: &Path,
    expected: &Expected,
    repos: &[PathBuf],
    timeout: Duration,
    fence: &Fence,
) -> Result<Run, RunFailure> {
    launcher.intact().map_err(RunFailure::Instrument)?;
    let started = std::time::Instant::now();
    let tests = match compile_tests(launcher, trusted, project, repos, timeout).await? {
        Compiled::Classes(t) => t,
        Compiled::Not(why) => {
            let why = format!("the trusted tests do not compile against these classes: {why}");
            return Ok(Run {
                tests: expected
                    .tests
                    .iter()
                    .map(|t| (t.clone(), Observed::Failed(why.clone())))
                    .collect(),
                // judge-ci's own account (the tests never ran): whole, nothing foreign.
                done: true,
                foreign: 0,
            });
        }
    };
    let limit = timeout;
    let timeout = timeout.saturating_sub(started.elapsed());
    let mut cp = vec![
        launcher.classes(),
        launcher.standalone.clone(),
        tests.classes(),
    ];
    // Never the project's own target/test-classes: its build's processes wrote them.
    cp.extend(subject_last(classpath(project, repos)));
    // The test JVM loads these from judge-ci's temporary folder, otherwise hidden from
    // subject processes (fence::rules::shared_folders).
    for p in &cp {
        fence.show(p);
    }
    let cp = cp
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    let nonce = nonce()?;
    let mut args = jvm_options(&launcher.modules);
    // The JUnit Platform's configuration: the trusted tests' own file only (the oracle reads
    // no junit-platform.properties from the class path, where the subject's resources are).
    args.push(format!(
        "-Djudgeci.junit.config={}",
        tests.classes().join("junit-platform.properties").display()
    ));
    args.extend(["-cp".to_string(), cp, "JudgeCiOracle".to_string()]);
    args.extend(expected.classes());
    let spec = ProcessSpec {
        program: "java".into(),
        args,
        dir: project.to_path_buf(),
        env: Vec::new(),
        timeout,
        stdin: Some(format!("{nonce}\n").into_bytes()),
        answer: true,
        private: Private::default(),
    };
    // With /proc hidden: the code under test cannot read the nonce from its JVM's memory
    // (attack finding F2).
    let out = process::run_sealed(&spec, fence)
        .await
        .map_err(|e| RunFailure::Instrument(OracleError::start("java", "for the oracle")(e)))?;
    launcher.intact().map_err(RunFailure::Instrument)?;
    tests.intact().map_err(RunFailure::Instrument)?;
    if out.answer.len() > process::ANSWER_BYTES {
        return Err(RunFailure::Flooded(
            process::ANSWER_BYTES,
            parse(&out.answer, &nonce, expected),
        ));
    }
    if out.exit == Exit::TimedOut {
        // What finished before the time ran out counts; the rest did not finish.
        return Err(RunFailure::Timeout(
            limit,
            parse(&out.answer, &nonce, expected),
        ));
    }
    if !out.outlived.is_empty() {
        return Err(RunFailure::Instrument(OracleError::Outlived(
            out.outlived.clone(),
        )));
    }
    Ok(parse(&out.answer, &nonce, expected))
}

/// The grade of one expected test, SWE-bench's way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestGrade {
    /// `pkg.Class#method`.
    pub name: String,
    /// On the base, when a base run exists.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<Observed>,
    /// On the reference.
    pub reference: Observed,
    /// On the pull request.
    pub subject: Observed,
}

/// The trusted tests graded: FAIL_TO_PASS and PASS_TO_PASS (or, without a base run, every
/// test the reference passes as `expected`), and what is not charged.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestSets {
    /// Tests failing on the base that pass on the reference: the change must make them pass.
    #[serde(default)]
    pub fail_to_pass: Vec<TestGrade>,
    /// Tests passing on the base and the reference: the change must not break them.
    #[serde(default)]
    pub pass_to_pass: Vec<TestGrade>,
    /// Without a base run: the tests the reference passes, which the change must pass.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected: Vec<TestGrade>,
    /// Tests that do not pass on the reference either: not charged to the pull request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_charged: Vec<TestGrade>,
    /// Whether a base run was made (`false`: FAIL_TO_PASS and PASS_TO_PASS cannot be told
    /// apart, and `expected` holds them).
    pub base_run: bool,
}

impl TestSets {
    /// Grades the observations.
    pub fn grade(subject: &Run, reference: &Run, base: Option<&Run>) -> TestSets {
        let mut sets = TestSets {
            base_run: base.is_some(),
            ..TestSets::default()
        };
        for (name, r) in &reference.tests {
            let g = TestGrade {
                name: name.clone(),
                base: base.map(|b| b.tests.get(name).cloned().unwrap_or(Observed::NotRun)),
                reference: r.clone(),
                subject: subject.tests.get(name).cloned().unwrap_or(Observed::NotRun),
            };
            if !r.passed() {
                sets.not_charged.push(g);
            } else {
                match &g.base {
                    None => sets.expected.push(g),
                    Some(b) if b.passed() => sets.pass_to_pass.push(g),
                    Some(_) => sets.fail_to_pass.push(g),
                }
            }
        }
        sets
    }

    /// The charged tests the pull request does not pass.
    pub fn failures(&self) -> impl Iterator<Item = &TestGrade> {
        self.fail_to_pass
            .iter()
            .chain(&self.pass_to_pass)
            .chain(&self.expected)
            .filter(|g| !g.subject.passed())
    }

    /// How many tests are charged.
    pub fn charged(&self) -> usize {
        self.fail_to_pass.len() + self.pass_to_pass.len() + self.expected.len()
    }

    /// Every graded test with the set it is in (`FAIL_TO_PASS`, `PASS_TO_PASS`, `EXPECTED`,
    /// `NOT_CHARGED`), in that order.
    pub fn rows(&self) -> Vec<(&'static str, &TestGrade)> {
        let mut out: Vec<(&'static str, &TestGrade)> = Vec::new();
        for (name, v) in [
            ("FAIL_TO_PASS", &self.fail_to_pass),
            ("PASS_TO_PASS", &self.pass_to_pass),
            ("EXPECTED", &self.expected),
            ("NOT_CHARGED", &self.not_charged),
        ] {
            out.extend(v.iter().map(|g| (name, g)));
        }
        out
    }

    /// The graded tests a verdict's judgments carry (the first `maven-build` with an oracle
    /// run), for the report.
    pub fn of_verdict(verdict: &crate::jury::Verdict) -> Option<TestSets> {
        let own = verdict
            .individual()
            .iter()
            .find_map(|j| j.metadata().get("tests"))
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        own.or_else(|| {
            verdict
                .composite_attempts()
                .iter()
                .filter_map(|a| a.verdict())
                .find_map(TestSets::of_verdict)
        })
    }
}

/// Where Surefire's recorded outcome of a test disagrees with what judge-ci observed: the
/// report is the subject's (its processes write it), so disagreement is a finding naming both.
pub fn cross_check(
    surefire: &BTreeMap<String, structural::TestOutcome>,
    observed: &Run,
) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (name, seen) in &observed.tests {
        let Some(recorded) = surefire.get(name) else {
            continue;
        };
        let agree = matches!(
            (recorded, seen),
            (structural::TestOutcome::Passed, Observed::Passed)
                | (structural::TestOutcome::Failed(_), Observed::Failed(_))
                | (structural::TestOutcome::Skipped, Observed::Skipped)
        );
        if !agree {
            let said = match recorded {
                structural::TestOutcome::Passed => "passed".to_string(),
                structural::TestOutcome::Failed(m) => format!("failed: {m}"),
                structural::TestOutcome::Skipped => "skipped".to_string(),
            };
            out.push((name.clone(), said, seen.words()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FE5-2: the compiled hidden tests are owner-only while they exist, and gone afterwards,
    /// read-only as they are.
    #[test]
    fn a_sealed_folder_is_its_owner_s_alone_and_removed_read_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = SealedDir::new("judge-ci-test-sealed-").unwrap();
        let root = dir.path().to_path_buf();
        let deep = root.join("classes/t");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("HiddenTest.class"), b"answer").unwrap();
        read_only(&root);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&root), 0o500);
        assert_eq!(mode(&deep), 0o500);
        assert_eq!(mode(&deep.join("HiddenTest.class")), 0o400);
        drop(dir);
        assert!(!root.exists(), "{} was left behind", root.display());
    }

    #[test]
    fn the_expected_tests_are_read_from_the_trusted_sources() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("src/test/java/t/AppTest.java");
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(
            &f,
            "package t;\nimport org.junit.Test;\npublic class AppTest {\n  @Test public void adds() {}\n  @org.junit.jupiter.api.Test\n  @DisplayName(\"x\")\n  void jupiter() throws Exception {}\n  @ParameterizedTest @ValueSource(ints = {1, 2}) void many(int i) {}\n  void helper() {}\n}\n",
        )
        .unwrap();
        let e = expected(d.path());
        assert_eq!(
            e.tests.iter().map(String::as_str).collect::<Vec<_>>(),
            ["t.AppTest#adds", "t.AppTest#jupiter", "t.AppTest#many"]
        );
        assert_eq!(e.classes().len(), 1);
    }

    #[test]
    fn what_the_engines_discover_in_the_trusted_classes_is_kept() {
        // Attack finding OF2: a JUnit 3 `testMul` (no annotation) ran and was not counted.
        let e = Expected {
            tests: ["t.AddTest#adds".to_string()].into(),
            sources: ["t.AddTest".to_string(), "t.MulTest".to_string()].into(),
        };
        assert_eq!(e.classes().len(), 2);
        let r = parse(
            b"n F t.AddTest#adds SUCCESSFUL \nn F t.MulTest#testMul FAILED boom\nn F x.Other#planted SUCCESSFUL \n",
            "n",
            &e,
        );
        assert_eq!(r.tests["t.AddTest#adds"], Observed::Passed);
        assert!(matches!(&r.tests["t.MulTest#testMul"], Observed::Failed(_)));
        assert!(
            !r.tests.contains_key("x.Other#planted"),
            "only classes judge-ci selected"
        );
    }

    #[test]
    fn only_lines_with_the_nonce_count_and_a_test_not_seen_finishing_is_not_run() {
        let e = Expected {
            tests: ["t.A#one", "t.A#two", "t.A#three", "t.B#four"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            ..Expected::default()
        };
        let channel = b"n0 S t.A#one\nn0 F t.A#one SUCCESSFUL \nforged F t.A#two SUCCESSFUL \nn0 S t.A#two\nn0 F t.A#three SUCCESSFUL \nn0 F t.A#three FAILED java.lang.AssertionError: boom\nn0 C t.B FAILED java.lang.ExceptionInInitializerError\n";
        let r = parse(channel, "n0", &e);
        assert!(!r.done);
        assert_eq!(r.foreign, 1, "the forged line is counted");
        assert_eq!(r.tests["t.A#one"], Observed::Passed);
        assert_eq!(
            r.tests["t.A#two"],
            Observed::NotRun,
            "started, never finished"
        );
        assert!(matches!(&r.tests["t.A#three"], Observed::Failed(m) if m.contains("boom")));
        assert!(matches!(&r.tests["t.B#four"], Observed::Failed(m) if m.contains("could not run")));
    }

    #[test]
    fn a_nested_class_s_test_counts_as_its_top_level_class_s_and_testng_is_unsupported() {
        let e = Expected {
            tests: ["t.A#inner"].iter().map(|s| s.to_string()).collect(),
            ..Expected::default()
        };
        let r = parse(b"n F t.A$Inner#inner SUCCESSFUL \n", "n", &e);
        assert_eq!(r.tests["t.A#inner"], Observed::Passed);
        let d = tempfile::tempdir().unwrap();
        assert_eq!(unsupported(d.path()), None);
        let f = d.path().join("src/test/java/t/NgTest.java");
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(&f, "package t;\nimport org.testng.annotations.Test;\n").unwrap();
        assert!(unsupported(d.path()).is_some_and(|w| w.contains("TestNG")));
        std::fs::remove_file(&f).unwrap();
        std::fs::write(
            d.path().join("pom.xml"),
            "<project><modules><module>a</module></modules></project>",
        )
        .unwrap();
        assert!(unsupported(d.path()).is_some_and(|w| w.contains("multi-module")));
    }

    #[test]
    fn the_oracle_jvm_gets_no_module_that_reads_or_dumps_its_memory() {
        let listed = "java.base@17.0.21\njava.management@17\njava.sql@17\njdk.unsupported@17\njdk.management@17\njdk.attach@17\njdk.jdi@17\njdk.hotspot.agent@17\njdk.jfr@17\njdk.incubator.foreign@17\njdk.internal.vm.ci@17\njdk.zipfs@17\njdk.crypto.ec@17\n";
        let m = limit_modules(listed);
        assert_eq!(
            m,
            "java.base,java.management,java.sql,jdk.zipfs,jdk.crypto.ec"
        );
        let opts = jvm_options(&m);
        assert!(opts.contains(&"-XX:+DisableAttachMechanism".to_string()));
        assert_eq!(opts[opts.len() - 2], "--limit-modules");
    }

    #[test]
    fn the_subject_s_classes_come_after_every_test_library_on_the_oracle_s_class_path() {
        let cp = subject_last(vec![
            "p/target/test-classes".into(),
            "p/target/classes".into(),
            "m2/junit.jar".into(),
            "m2/assertj.jar".into(),
        ]);
        assert_eq!(
            cp,
            [
                PathBuf::from("m2/junit.jar"),
                "m2/assertj.jar".into(),
                "p/target/classes".into()
            ]
        );
    }

    #[test]
    fn tests_are_graded_as_swe_bench_grades_them() {
        let run = |pairs: &[(&str, Observed)]| Run {
            tests: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            done: true,
            foreign: 0,
        };
        let failed = || Observed::Failed("x".into());
        let reference = run(&[
            ("f2p", Observed::Passed),
            ("p2p", Observed::Passed),
            ("broken", failed()),
        ]);
        let base = run(&[
            ("f2p", failed()),
            ("p2p", Observed::Passed),
            ("broken", failed()),
        ]);
        let subject = run(&[
            ("f2p", Observed::Passed),
            ("p2p", failed()),
            ("broken", failed()),
        ]);
        let sets = TestSets::grade(&subject, &reference, Some(&base));
        assert_eq!(sets.fail_to_pass.len(), 1);
        assert_eq!(sets.pass_to_pass.len(), 1);
        assert_eq!(sets.not_charged[0].name, "broken");
        let failures: Vec<&str> = sets.failures().map(|g| g.name.as_str()).collect();
        assert_eq!(failures, ["p2p"], "the base-passing test the change breaks");
        let without = TestSets::grade(&subject, &reference, None);
        assert!(!without.base_run);
        assert_eq!(without.expected.len(), 2);
    }
}
