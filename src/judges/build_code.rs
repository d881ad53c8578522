//! Code the pull request makes run at build or test time (`spec/trust.md` point 18): an
//! annotation processor or any other service registration, a compiled class or jar committed
//! with the sources, a Maven extension (`.mvn/extensions.xml`, `<extensions>`), a plugin or
//! plugin version the trusted side does not declare, a `<build>` change (a test source folder,
//! `testFailureIgnore`, `skip`), a JUnit extension or `junit-platform.properties`, and the
//! tampering APIs added in main or test code (`Runtime.halt`, shutdown hooks, `System.exit`
//! in tests, reflection into the test framework, Surefire or judge-ci's oracle,
//! `sun.misc.Unsafe`, and code that reads its own call stack, command line or class path,
//! which can tell a test run from production whatever names it compares with). Each is a
//! `build-code-added` finding with file and line, read before any subject process runs.
//!
//! "Added" is against the trusted side judge-ci has as a folder, the reference: what the
//! reference also has (the same file, the same plugin, the same line of code) is not the
//! pull request's doing.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::structural::{self, Pom};
use crate::judgment::{Finding, FindingKind};

/// The largest source file scanned for tampering APIs; a larger one is a finding of its own.
const MAX_SOURCE_BYTES: u64 = 4 * 1024 * 1024;

/// At most this many findings are listed (a tree of 100,000 planted files says enough).
const MAX_FINDINGS: usize = 200;

/// Folders never scanned: git's, and build output (cleaned before the build).
fn skipped_dir(name: &str) -> bool {
    matches!(
        name,
        ".git" | "target" | "build" | "node_modules" | "judge-ci-out"
    )
}

/// One tampering pattern of Java source: the regex, whether it counts only in test sources,
/// and what it does.
struct Api {
    re: Regex,
    tests_only: bool,
    what: &'static str,
}

static APIS: LazyLock<Vec<Api>> = LazyLock::new(|| {
    let api = |re: &str, tests_only, what| Api {
        re: Regex::new(re).expect("valid regex"),
        tests_only,
        what,
    };
    vec![
        api(
            r"\.\s*halt\s*\(",
            false,
            "Runtime.halt ends the JVM at once, past every listener and report writer",
        ),
        api(
            r"addShutdownHook\s*\(",
            false,
            "a shutdown hook runs after the tests, when reports are already written",
        ),
        api(
            r"\bSystem\s*\.\s*exit\s*\(|getRuntime\s*\(\s*\)\s*\.\s*exit\s*\(",
            true,
            "System.exit in a test ends the test run",
        ),
        api(
            r"\b(?:System|getRuntime\s*\(\s*\))\s*\.\s*load(?:Library)?\s*\(",
            false,
            "loads native code, which reads and writes the JVM's memory past every check (judge-ci's oracle's secret included)",
        ),
        api(
            r"\b(?:HotSpotDiagnosticMXBean|DiagnosticCommand|dumpHeap)\b|com\.sun\.management",
            false,
            "a heap dump or diagnostic command: the JVM's whole memory written out (judge-ci's oracle's secret included)",
        ),
        api(
            r#""/proc/"#,
            false,
            "a path under /proc: a process's own memory, descriptors and environment",
        ),
        api(
            r"\b(?:sun|jdk\.internal)\.misc\.Unsafe\b|\bUnsafe\s*\.\s*class\b",
            false,
            "Unsafe writes memory past the language's checks",
        ),
        api(
            r#""(?:org\.junit|junit\.|org\.apache\.maven\.surefire|org\.apache\.maven\.plugin\.surefire|org\.opentest4j)[^"]*"|(?i:judgeci|judge_ci)"#,
            false,
            "names the test framework, Surefire or judge-ci's oracle in a string or identifier: reflection into the machinery that records results",
        ),
        api(
            r#"\bStackWalker\b|\.\s*getStackTrace\s*\(|\bgetAllStackTraces\s*\(|\bgetCallerClass\s*\(|\bgetClassContext\s*\(|\bgetInputArguments\s*\(|\bRuntimeMXBean\b|"sun\.java\.command"|"java\.class\.path"|"jdk\.module\.path"|\bProcessHandle\b"#,
            false,
            "reads its own call stack, command line or class path: code that can tell a test run from production and answer each differently, whatever names it compares with (attack finding S8-2)",
        ),
        api(
            r"\bimport\s+(?:static\s+)?(?:org\.junit\.platform\.launcher|org\.junit\.runner\.notification|org\.apache\.maven\.surefire|org\.apache\.maven\.plugin\.surefire)\b",
            false,
            "imports the machinery that records test results (a launcher listener, a JUnit 4 RunNotifier, Surefire)",
        ),
        api(
            r"@\s*(?:org\.junit\.jupiter\.api\.extension\.)?(?:ExtendWith|RegisterExtension)\b|\bimplements\b[^{]*\b(?:TestExecutionListener|LauncherSessionListener|TestWatcher|InvocationInterceptor|TestExecutionExceptionHandler|AfterAllCallback|AfterEachCallback)\b",
            false,
            "a JUnit extension or listener: code that runs around every test and can change how it is recorded",
        ),
    ]
});

/// Files whose presence makes code run at build or test time.
fn registration(rel: &str) -> Option<&'static str> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if rel.contains("META-INF/services/") {
        Some(if name == "javax.annotation.processing.Processor" {
            "registers an annotation processor, which javac runs inside the build's JVM"
        } else {
            "a service registration: the JVM loads the class it names (a JUnit extension, a launcher listener, an annotation processor)"
        })
    } else if name == "junit-platform.properties" {
        Some(
            "JUnit Platform configuration: it can switch on extension auto-detection or change how tests are found",
        )
    } else if rel == ".mvn/extensions.xml" || rel.ends_with("/.mvn/extensions.xml") {
        Some("a Maven core extension, loaded into Maven's own JVM before the build")
    } else if [".class", ".jar", ".so", ".dylib", ".jnilib", ".dll"]
        .iter()
        .any(|x| name.ends_with(x))
    {
        Some("compiled code committed with the sources: it runs without being reviewable as source")
    } else {
        None
    }
}

/// Whether `rel` is a test source (Maven's and Gradle's layout).
fn is_test_source(rel: &str) -> bool {
    rel.starts_with("src/test/") || rel.contains("/src/test/") || rel.contains("/test/java/")
}

/// The tampering hits of one Java source: (line, matched text, what).
fn tampering(bytes: &[u8], test: bool) -> Vec<(u32, String, &'static str)> {
    let decoded = crate::lang::escapes::decode(bytes);
    let text = String::from_utf8_lossy(&decoded.text);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for api in APIS.iter().filter(|a| test || !a.tests_only) {
            if let Some(m) = api.re.find(line) {
                out.push((i as u32 + 1, m.as_str().trim().to_string(), api.what));
            }
        }
    }
    out
}

/// Every build-code finding of `workspace` against `reference` (when there is one: without
/// it, everything listed counts as added).
pub fn scan(workspace: &Path, reference: Option<&Path>) -> Vec<Finding> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(workspace)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(e.file_type().is_dir() && skipped_dir(&e.file_name().to_string_lossy()))
        })
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
    {
        if out.len() >= MAX_FINDINGS {
            break;
        }
        let Ok(rel) = e.path().strip_prefix(workspace) else {
            continue;
        };
        let rel = rel.to_string_lossy().into_owned();
        let theirs = reference.map(|r| r.join(&rel));
        // Read with the one primitive: a FIFO the pull request put where a registration
        // lives is never opened blocking (judge-ci waited for a writer for ever, before any
        // check ran), a link never followed, a file read at most to the bound.
        let read = |p: &Path| crate::untrusted::read(p, MAX_SOURCE_BYTES).ok();
        let same_bytes = || {
            theirs
                .as_ref()
                .and_then(|t| read(t))
                .is_some_and(|t| read(e.path()) == Some(t))
        };
        if let Some(what) = registration(&rel) {
            if !same_bytes() {
                let mut f = Finding::new(rel.clone(), FindingKind::BuildCodeAdded).message(what);
                if !e.file_type().is_file() {
                    f = f.actual(format!(
                        "a {}, not a regular file",
                        crate::untrusted::Kind::of(e.file_type())
                    ));
                } else if let Some(text) =
                    read(e.path()).map(|b| String::from_utf8_lossy(&b).into_owned())
                {
                    let named: Vec<&str> = text
                        .lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty() && !l.starts_with('#'))
                        .take(3)
                        .collect();
                    if !named.is_empty() && rel.contains("META-INF/services/") {
                        f = f.actual(named.join(", "));
                    }
                }
                out.push(f);
            }
            continue;
        }
        if !rel.ends_with(".java") || !e.file_type().is_file() {
            continue;
        }
        let Ok(m) = e.metadata() else { continue };
        if m.len() > MAX_SOURCE_BYTES {
            out.push(
                Finding::new(rel.clone(), FindingKind::BuildCodeAdded).message(format!(
                    "a Java source of {} bytes, more than judge-ci scans for tampering APIs",
                    m.len()
                )),
            );
            continue;
        }
        let Some(bytes) = read(e.path()) else {
            continue;
        };
        let test = is_test_source(&rel);
        let hits = tampering(&bytes, test);
        if hits.is_empty() {
            continue;
        }
        let known: HashSet<String> = theirs
            .and_then(|t| read(&t))
            .map(|b| tampering(&b, test).into_iter().map(|(_, t, _)| t).collect())
            .unwrap_or_default();
        for (line, text, what) in hits.into_iter().filter(|(_, t, _)| !known.contains(t)) {
            out.push(
                Finding::new(rel.clone(), FindingKind::BuildCodeAdded)
                    .at(line)
                    .actual(text)
                    .message(what),
            );
        }
    }
    out.extend(poms(workspace, reference));
    out.truncate(MAX_FINDINGS);
    out
}

/// What Maven builds from `ours` that it does not build from the reference's POM at the
/// same path (`base`): another packaging (`pom` compiles no source and runs no test, so a
/// build passes with nothing built: attack B11-5) and each module named by one side only.
/// Without a reference POM, only a `pom` packaging beside Java sources counts: those sources
/// are then never compiled.
fn what_is_built(rel: &str, ours: &Pom, base: Option<&Pom>, workspace: &Path) -> Vec<Finding> {
    let mut out = Vec::new();
    let packaging_changed = match base {
        Some(b) => b.packaging != ours.packaging,
        None => {
            let dir = Path::new(rel).parent().unwrap_or(Path::new(""));
            ours.packaging == "pom"
                && ["src/main/java", "src/test/java"]
                    .iter()
                    .any(|s| workspace.join(dir).join(s).is_dir())
        }
    };
    if packaging_changed {
        out.push(
            Finding::new(rel.to_string(), FindingKind::BuildCodeAdded)
                .at_known(ours.packaging_line)
                .expected(format!(
                    "<packaging> {}",
                    base.map_or("jar", |b| b.packaging.as_str())
                ))
                .actual(format!("<packaging> {}", ours.packaging))
                .message("a packaging the reference does not use: it decides what Maven compiles and which tests run (`pom` builds none)"),
        );
    }
    if let Some(b) = base {
        let names: BTreeSet<&String> = ours.modules.keys().chain(b.modules.keys()).collect();
        for m in names {
            let (o, t) = (ours.modules.get(m), b.modules.get(m));
            if o.is_some() != t.is_some() {
                let side = |named: bool| {
                    if named {
                        format!("<module> {m}")
                    } else {
                        format!("<module> {m} (not named)")
                    }
                };
                out.push(
                    Finding::new(rel.to_string(), FindingKind::BuildCodeAdded)
                        .at_known(o.copied().unwrap_or(0))
                        .expected(side(t.is_some()))
                        .actual(side(o.is_some()))
                        .message("a module the reference's build does not have, or one it builds that the pull request drops"),
                );
            }
        }
    }
    out
}

/// Plugin configuration keys that switch tests or checks off, or make failures pass.
fn weakening(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    [
        "skip",
        "ignore",
        "failifnotests",
        "testsourcedirectory",
        "testclassesdirectory",
        "includes",
        "excludes",
        "test",
        "groups",
        "forkcount",
        "argline",
        "properties",
        "dependenciestoscan",
        "annotationprocessor",
        "compilerarg",
        "proc",
    ]
    .iter()
    .any(|w| k.contains(w))
}

/// The POM part: plugins, plugin versions, `<build>` settings and extensions the reference's
/// POM at the same path does not have, and plugin configuration that switches tests off.
fn poms(workspace: &Path, reference: Option<&Path>) -> Vec<Finding> {
    let theirs: BTreeMap<String, Pom> = reference
        .map(structural::effective_poms)
        .unwrap_or_default()
        .into_iter()
        .collect();
    let mut out = Vec::new();
    let ours_all = structural::effective_poms(workspace);
    // A POM of the reference the workspace has no readable model of: removed, or made so
    // that judge-ci cannot read it (nothing below would compare it, while Maven builds it or
    // fails on it as it is).
    for rel in theirs
        .keys()
        .filter(|rel| !ours_all.iter().any(|(r, _)| r == *rel))
    {
        out.push(
            Finding::new(rel.clone(), FindingKind::BuildCodeAdded)
                .expected(format!("{rel} as the reference has it"))
                .actual(format!("{rel} removed, or not a POM judge-ci can read"))
                .message("a POM of the reference the pull request removes or makes unreadable: what Maven builds there is no longer the reference's"),
        );
    }
    for (rel, ours) in ours_all {
        let base = theirs.get(&rel);
        out.extend(what_is_built(&rel, &ours, base, workspace));
        for (k, p) in &ours.plugins {
            let theirs_p = base.and_then(|b| b.plugins.get(k));
            match theirs_p {
                None => out.push(
                    Finding::new(rel.clone(), FindingKind::BuildCodeAdded)
                        .at(p.line)
                        .actual(format!("{k}:{}", p.value.version.as_deref().unwrap_or("(default)")))
                        .message("a build plugin the reference does not declare: its code runs in Maven's JVM"),
                ),
                Some(t) => {
                    if t.value.version != p.value.version {
                        out.push(
                            Finding::new(rel.clone(), FindingKind::BuildCodeAdded)
                                .at(p.line)
                                .expected(format!("{k}:{}", t.value.version.as_deref().unwrap_or("(default)")))
                                .actual(format!("{k}:{}", p.value.version.as_deref().unwrap_or("(default)")))
                                .message("a plugin version the reference does not use"),
                        );
                    }
                    let keys: std::collections::BTreeSet<&String> = p
                        .value
                        .configuration
                        .keys()
                        .chain(t.value.configuration.keys())
                        .collect();
                    for key in keys {
                        let (a, b) = (p.value.configuration.get(key), t.value.configuration.get(key));
                        if a != b && weakening(key) {
                            out.push(
                                Finding::new(rel.clone(), FindingKind::BuildCodeAdded)
                                    .at(p.line)
                                    .expected(format!("{k} {key} = {}", b.map_or("(unset)", String::as_str)))
                                    .actual(format!("{k} {key} = {}", a.map_or("(unset)", String::as_str)))
                                    .message("plugin configuration the reference does not have, of a kind that changes which tests run or whether failures count"),
                            );
                        }
                    }
                }
            }
        }
        for (k, v) in &ours.build {
            let same = base.and_then(|b| b.build.get(k)).map(|t| &t.value) == Some(&v.value);
            if !same {
                out.push(
                    Finding::new(rel.clone(), FindingKind::BuildCodeAdded)
                        .at(v.line)
                        .actual(format!("<build> {k} = {}", v.value))
                        .message(if k.starts_with("extension ") {
                            "a build extension, loaded into Maven's own JVM"
                        } else {
                            "a <build> setting the reference does not make (which sources and tests the build compiles and runs)"
                        }),
                );
            }
        }
        if let Some(b) = base {
            for k in b.build.keys().filter(|k| !ours.build.contains_key(*k)) {
                out.push(
                    Finding::new(rel.clone(), FindingKind::BuildCodeAdded)
                        .expected(format!("<build> {k} = {}", b.build[k].value))
                        .actual(format!("<build> {k} (unset)"))
                        .message(
                            "a <build> setting of the reference that the pull request removes",
                        ),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (p, c) in files {
            let f = root.join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, c).unwrap();
        }
    }

    const POM: &str = "<project><modelVersion>4.0.0</modelVersion><groupId>t</groupId><artifactId>t</artifactId><version>1</version></project>";

    #[test]
    fn what_the_pull_request_makes_run_at_build_time_is_found_with_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        let (ws, rf) = (d.path().join("ws"), d.path().join("ref"));
        let shared = "class T { void t() { Runtime.getRuntime().addShutdownHook(null); } }\n";
        write(
            &rf,
            &[("pom.xml", POM), ("src/test/java/t/Shared.java", shared)],
        );
        write(
            &ws,
            &[
                ("pom.xml", &POM.replace("</version></project>", "</version><build><testSourceDirectory>src/test/none</testSourceDirectory><extensions><extension><groupId>x</groupId><artifactId>ext</artifactId><version>1</version></extension></extensions><plugins><plugin><artifactId>maven-surefire-plugin</artifactId><configuration><testFailureIgnore>true</testFailureIgnore></configuration></plugin></plugins></build></project>")),
                ("src/main/resources/META-INF/services/javax.annotation.processing.Processor", "p.Forge\n"),
                ("src/main/resources/p/Forge.class", "\u{ca}\u{fe}"),
                ("src/test/resources/junit-platform.properties", "junit.jupiter.extensions.autodetection.enabled=true\n"),
                (".mvn/extensions.xml", "<extensions/>"),
                ("src/test/java/t/Shared.java", shared),
                ("src/test/java/t/Exit.java", "class Exit {\n  void t() { System.exit(0); }\n  void u() { Runtime.getRuntime().\\u0068alt(0); }\n  Object f = Class.forName(\"org.junit.platform.launcher.core.LauncherImpl\");\n}\n"),
                ("src/main/java/t/Main.java", "class Main { void m() { System.exit(1); } }\n"),
                ("src/main/java/t/Native.java", "class Native {\n  static { System.load(\"/tmp/x.so\"); }\n  Object m = new java.io.File(\"/proc/self/mem\");\n  Object d = com.sun.management.HotSpotDiagnosticMXBean.class;\n}\n"),
                ("src/main/resources/libpeek.so", "\u{7f}ELF"),
                // S8-2: production code that tells a test run apart by its call stack.
                ("src/main/java/t/Greeter.java", "class Greeter {\n  String greet() {\n    boolean t = StackWalker.getInstance().walk(s -> s.anyMatch(f -> f.getClassName().startsWith(\"org.ju\" + \"nit.\")));\n    return t ? \"Hello\" : \"Goodbye\";\n  }\n  boolean u() { return new Throwable().getStackTrace().length > 40; }\n}\n"),
            ],
        );
        let found = scan(&ws, Some(&rf));
        let shown: Vec<String> = found
            .iter()
            .map(|f| {
                format!(
                    "{}:{} {}",
                    f.path,
                    f.line.unwrap_or(0),
                    f.actual.as_deref().unwrap_or("")
                )
            })
            .collect();
        let has = |needle: &str| shown.iter().any(|s| s.contains(needle));
        assert!(
            has("META-INF/services/javax.annotation.processing.Processor:0 p.Forge"),
            "{shown:#?}"
        );
        assert!(has("p/Forge.class"), "{shown:#?}");
        assert!(has("junit-platform.properties"), "{shown:#?}");
        assert!(has(".mvn/extensions.xml"), "{shown:#?}");
        assert!(has("Exit.java:2 System.exit("), "{shown:#?}");
        assert!(
            has("Exit.java:3 .halt("),
            "the escape is decoded: {shown:#?}"
        );
        assert!(
            has("Exit.java:4 \"org.junit.platform.launcher.core.LauncherImpl\""),
            "{shown:#?}"
        );
        assert!(has("Native.java:2 System.load("), "{shown:#?}");
        assert!(has("Native.java:3 \"/proc/"), "{shown:#?}");
        assert!(has("libpeek.so"), "{shown:#?}");
        assert!(has("Native.java:4 com.sun.management"), "{shown:#?}");
        assert!(has("Greeter.java:3 StackWalker"), "{shown:#?}");
        assert!(has("Greeter.java:6 .getStackTrace("), "{shown:#?}");
        assert!(has("testSourceDirectory = src/test/none"), "{shown:#?}");
        assert!(has("extension x:ext"), "{shown:#?}");
        assert!(has("maven-surefire-plugin"), "{shown:#?}");
        assert!(
            !has("Shared.java"),
            "the reference's own hook is not the PR's: {shown:#?}"
        );
        assert!(
            !has("Main.java"),
            "System.exit in main code is not a test's: {shown:#?}"
        );
        // An unchanged tree has nothing to say.
        assert!(scan(&rf, Some(&rf)).is_empty());
    }

    #[test]
    fn a_pom_that_changes_what_maven_builds_is_found() {
        let d = tempfile::tempdir().unwrap();
        let (ws, rf) = (d.path().join("ws"), d.path().join("ref"));
        let parent = POM.replace(
            "</version></project>",
            "</version><packaging>pom</packaging><modules><module>core</module></modules></project>",
        );
        let main = "class A {}\n";
        write(
            &rf,
            &[
                ("pom.xml", POM),
                ("src/main/java/t/A.java", main),
                ("multi/pom.xml", &parent),
                ("multi/core/pom.xml", POM),
                ("multi/core/src/main/java/A.java", main),
                ("broken/pom.xml", POM),
            ],
        );
        write(
            &ws,
            &[
                // B11-5: `pom` packaging compiles nothing and runs no test, and Maven exits 0.
                (
                    "pom.xml",
                    &POM.replace(
                        "</version></project>",
                        "</version>\n<packaging>pom</packaging></project>",
                    ),
                ),
                ("src/main/java/t/A.java", main),
                // The module that holds the sources is no longer built; another one is.
                (
                    "multi/pom.xml",
                    &parent.replace("<module>core</module>", "<module>empty</module>"),
                ),
                ("multi/core/pom.xml", POM),
                ("multi/core/src/main/java/A.java", main),
                ("multi/empty/pom.xml", POM),
                // A POM judge-ci cannot read is not a POM without findings.
                ("broken/pom.xml", "<project><oops"),
            ],
        );
        let shown: Vec<String> = scan(&ws, Some(&rf))
            .iter()
            .map(|f| {
                format!(
                    "{}:{} {} -> {}",
                    f.path,
                    f.line.unwrap_or(0),
                    f.expected.as_deref().unwrap_or(""),
                    f.actual.as_deref().unwrap_or("")
                )
            })
            .collect();
        let has = |needle: &str| shown.iter().any(|s| s.contains(needle));
        assert!(
            has("pom.xml:2 <packaging> jar -> <packaging> pom"),
            "{shown:#?}"
        );
        assert!(
            has("multi/pom.xml:1 <module> empty (not named) -> <module> empty"),
            "{shown:#?}"
        );
        assert!(
            has("multi/pom.xml:0 <module> core -> <module> core (not named)"),
            "{shown:#?}"
        );
        assert!(
            has("broken/pom.xml:0 broken/pom.xml as the reference has it"),
            "{shown:#?}"
        );
        // Without a reference, `pom` packaging beside Java sources is found; a parent
        // without sources of its own is an ordinary aggregator.
        let alone: Vec<String> = scan(&ws, None)
            .iter()
            .filter(|f| f.actual.as_deref() == Some("<packaging> pom"))
            .map(|f| f.path.clone())
            .collect();
        assert_eq!(alone, ["pom.xml"]);
    }
}
