//! Helpers shared by the integration tests: the real binary, temporary projects, Java builds.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The real `judge-ci` binary with `args` in `dir`, as outside GitHub Actions and without
/// colour; callers add environment and spawn it.
pub fn command(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_judge-ci"));
    c.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME");
    c
}

/// Runs the real `judge-ci` binary in `dir` with `args`.
pub fn judge_ci(dir: &Path, args: &[&str]) -> Output {
    command(dir, args).output().expect("judge-ci runs")
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Writes `files` (path, content) under `root`, creating folders.
pub fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (p, content) in files {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&path, content).expect("write");
    }
}

/// Makes a file executable.
pub fn chmod_x(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// The Maven wrapper of test projects: offline from Debian's packaged plugins when they are
/// installed (`scripts/setup`), else the ordinary `~/.m2` (online).
pub const MVNW: &str = "#!/bin/sh\nif [ -d /usr/share/maven-repo/org/apache/maven/plugins/maven-surefire-plugin ]; then\n  exec mvn -o -B -q -Dstyle.color=never -Dmaven.repo.local=/usr/share/maven-repo -DforkCount=0 \"$@\"\nfi\nexec mvn -B -q -Dstyle.color=never -DforkCount=0 \"$@\"\n";

/// A minimal JUnit 4 Maven project.
pub const POM: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>t</groupId>
  <artifactId>t</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
</project>
"#;

/// Writes a Maven project with `main` as `src/main/java/t/App.java` and `test` as its test,
/// plus an executable `mvnw`.
pub fn maven_project(root: &Path, main: &str, test: &str) {
    write_tree(
        root,
        &[
            ("pom.xml", POM),
            ("src/main/java/t/App.java", main),
            ("src/test/java/t/AppTest.java", test),
            ("mvnw", MVNW),
        ],
    );
    chmod_x(&root.join("mvnw"));
}

/// Fails loudly when the machine has no Maven. Builds then run offline from Debian's packaged
/// plugins when `scripts/setup` installed them ([`MVNW`] chooses), else from the ordinary
/// `~/.m2` online.
pub fn require_maven() {
    let ok = Command::new("mvn")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "Maven is missing: install it, then run `bash scripts/setup` (Debian's offline plugins)"
    );
}

/// The name [`require_maven`] had while tests assumed Debian's offline repository; kept so
/// tests written in parallel with the change still build.
pub fn require_offline_maven() {
    require_maven();
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Reads `report.json` from an out folder.
pub fn report(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json written");
    serde_json::from_str(&text).expect("report.json is JSON")
}

/// Validates a report against `schemas/report.v2.json`, the schema judge-ci writes.
pub fn assert_report_schema(report: &serde_json::Value) {
    assert_report_schema_file(report, "schemas/report.v2.json");
}

/// Validates a report against the JSON Schema at `schema` (relative to the repository root).
pub fn assert_report_schema_file(report: &serde_json::Value, schema: &str) {
    let schema_path = schema;
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join(schema_path)).expect("schema"),
    )
    .expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("valid schema");
    let errors: Vec<String> = validator
        .iter_errors(report)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "report.json does not match {schema_path}: {errors:#?}"
    );
}

pub mod fake_github;
pub mod fake_llm;
pub mod loopback;
pub mod processes;
pub mod small_disk;

/// A benchmark layout under `root/bench` (agent-bench's `bench.benchmark.v1`) named `name`,
/// one task per id: each passes when its workspace has done.txt, which the workspace and the
/// reference both hold.
pub fn done_txt_bench(root: &Path, name: &str, ids: &[&str]) {
    let mut files = vec![(
        "bench/benchmark.yaml".to_string(),
        format!(
            "schema: bench.benchmark.v1\nname: {name}\njury:\n  checks:\n    - {{type: file-exists, path: done.txt}}\n"
        ),
    )];
    for id in ids {
        files.push((
            format!("bench/tasks/{id}/task.yaml"),
            format!("schema: bench.task.v1\nid: {id}\ninstruction: Write done.txt.\n"),
        ));
        for side in ["workspace", "reference"] {
            files.push((format!("bench/tasks/{id}/{side}/done.txt"), "yes\n".into()));
        }
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write_tree(root, &files);
}

/// Copies `from` (a file or folder) to `to`, as `cp -r` does.
pub fn copy_tree(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-r")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp runs");
    assert!(st.success(), "cp -r {} {}", from.display(), to.display());
}

/// A copy of the bundled example (workspace/ and reference/) under `root`; returns the
/// workspace.
pub fn copy_example(root: &Path) -> PathBuf {
    for part in ["workspace", "reference"] {
        copy_tree(
            &repo_root().join("examples/jakarta-migration").join(part),
            &root.join(part),
        );
    }
    root.join("workspace")
}

/// Reads a `GITHUB_OUTPUT` file the way the runner does: `key=value` lines and heredocs
/// (`key<<DELIM` … `DELIM`); a later value for a key wins.
pub fn read_outputs(p: &Path) -> std::collections::HashMap<String, String> {
    let text = std::fs::read_to_string(p).unwrap_or_default();
    let mut out = std::collections::HashMap::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if let Some((k, d)) = l.split_once("<<") {
            let v: Vec<&str> = lines.by_ref().take_while(|x| *x != d).collect();
            out.insert(k.to_string(), v.join("\n"));
        } else if let Some((k, v)) = l.split_once('=') {
            out.insert(k.to_string(), v.to_string());
        }
    }
    out
}

/// Runs `git ARGS` in `dir` (a throwaway identity, no signing), asserting success; returns
/// standard output, trimmed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .args([
            "-c",
            "user.name=judge-ci test",
            "-c",
            "user.email=test@judge-ci.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "protocol.file.allow=always",
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
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// Commits everything in `dir` (initialising a repository first if needed); returns the
/// commit.
pub fn commit_all(dir: &Path, message: &str) -> String {
    if !dir.join(".git").exists() {
        git(dir, &["init", "-q"]);
    }
    git(dir, &["add", "-A", "-f", "."]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// A `pull_request` payload (the real webhook fixture) whose base and head are `base` and
/// `head`, written into `dir`.
pub fn pull_request_event(dir: &Path, base: &str, head: &str) -> PathBuf {
    let mut v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            repo_root().join("tests/fixtures/github/events/pull_request.opened.json"),
        )
        .expect("fixture"),
    )
    .expect("fixture JSON");
    v["pull_request"]["base"]["sha"] = base.into();
    v["pull_request"]["head"]["sha"] = head.into();
    let p = dir.join("pull_request.json");
    std::fs::write(&p, v.to_string()).expect("write event");
    p
}
