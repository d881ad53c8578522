//! Git-aware file selection through the real binary: the structural tier run with the
//! reference as a revision (files chosen from git: identical ones never read) gives exactly
//! the findings, scores and verdict of the same pair given as two folders — on the bundled
//! example and on a generated repository with every kind of change.

mod common;

use common::{copy_tree, judge_ci, report, stderr, write_tree};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

const CONFIG: &str = "name: git-selection\njury:\n  tiers:\n    - name: structural\n      voting: {strategy: all-must-pass, errors: treat-as-fail}\n      checks:\n        - {type: import-diff, forbid: [javax.servlet.*], require: [jakarta.servlet.*]}\n        - type: ast-diff\n        - type: pom-diff\n        - {type: file-comparison, include: ['**/*'], exclude: ['judge-ci-out/**']}\n";

fn git(dir: &Path, args: &[&str]) {
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

/// Every regular file under `root` (but `.git`) an hour old, so the index written next is
/// not racily clean for them.
fn age(root: &Path) {
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    for e in walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git")
        .flatten()
    {
        if e.file_type().is_file() {
            let f = std::fs::File::options().write(true).open(e.path()).unwrap();
            f.set_modified(hour_ago).unwrap();
        }
    }
}

/// A repository in `dir` whose tag `reference` holds `reference`'s files and whose working
/// tree holds `workspace`'s, committed.
fn as_repo(dir: &Path, reference: &Path, workspace: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    copy_tree(&reference.join("."), dir);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "reference"]);
    git(dir, &["tag", "reference"]);
    git(dir, &["rm", "-rq", "."]);
    copy_tree(&workspace.join("."), dir);
    age(dir);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "workspace"]);
}

/// Runs the structural tier in `repo` against `reference` (a revision or a folder).
fn judged(repo: &Path, config: &Path, reference: &str) -> Value {
    let out = tempfile::tempdir().unwrap();
    let o = judge_ci(
        repo,
        &[
            "--dry-run",
            "-q",
            "--config",
            config.to_str().unwrap(),
            "--workspace",
            ".",
            "--reference",
            reference,
            "--format",
            "json",
            "--out",
            out.path().to_str().unwrap(),
        ],
    );
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "exit {:?}: {}",
        o.status.code(),
        stderr(&o)
    );
    report(out.path())
}

/// What must not depend on how files were chosen: every judgment's status, score, reasoning,
/// checks and metadata (findings included), the diffs and the outcome; times left out.
fn judged_view(r: &Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for k in ["elapsedMillis", "identicalByGit", "startedAt", "durationMs"] {
                    m.remove(k);
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::json!({
        "verdict": r["verdict"],
        "diffs": r["diffs"],
        "outcome": r["outcome"],
    });
    strip(&mut v);
    v
}

/// How many identical files the judgments knew from git, summed over the structural checks.
fn by_git(r: &Value) -> u64 {
    r["verdict"]["individual"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|j| j["metadata"]["identicalByGit"].as_u64())
        .sum()
}

/// The pair judged both ways; returns the git run's report.
fn same_both_ways(repo: &Path, reference_folder: &Path, config: &Path) -> Value {
    let from_git = judged(repo, config, "reference");
    let from_folders = judged(repo, config, reference_folder.to_str().unwrap());
    assert_eq!(by_git(&from_folders), 0);
    assert_eq!(
        judged_view(&from_git),
        judged_view(&from_folders),
        "git-aware selection changed the judgment"
    );
    from_git
}

#[test]
fn the_bundled_example_is_judged_the_same_from_git_and_from_folders() {
    let root = tempfile::tempdir().unwrap();
    let ws = common::copy_example(root.path());
    let _ = std::fs::remove_dir_all(ws.join("judge-ci-out"));
    let config = root.path().join("judge-ci.yml");
    std::fs::write(&config, CONFIG).unwrap();
    let repo = root.path().join("repo");
    as_repo(&repo, &root.path().join("reference"), &ws);
    let r = same_both_ways(&repo, &root.path().join("reference"), &config);
    assert!(by_git(&r) > 0, "git decided nothing: {r:#}");
    assert_eq!(r["outcome"]["exitCode"], 1);
}

fn java(i: usize, changed: bool) -> String {
    let (ns, extra) = if changed {
        ("jakarta", "\n    @Deprecated void added() {}")
    } else {
        ("javax", "")
    };
    format!(
        "package p{m};\n\nimport {ns}.servlet.Filter;\nimport java.util.List;\n\npublic class C{i} {{\n    List<String> names;\n    int f(int n) {{ return n * {i}; }}{extra}\n}}\n",
        m = i % 3
    )
}

#[test]
fn a_generated_repository_is_judged_the_same_from_git_and_from_folders() {
    let root = tempfile::tempdir().unwrap();
    let (rf, ws) = (root.path().join("ref"), root.path().join("ws"));
    for i in 0..60 {
        let rel = format!("src/main/java/p{}/C{i}.java", i % 3);
        write_tree(&rf, &[(&rel, &java(i, true))]);
        // Every fourth file still on javax, every seventh with a body-only change.
        let mut text = java(i, i % 4 != 0);
        if i % 7 == 0 {
            text = text.replace("n * ", "n + ");
        }
        write_tree(&ws, &[(&rel, &text)]);
    }
    let pom = |v: &str| {
        format!(
            "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version><properties><maven.compiler.release>{v}</maven.compiler.release></properties></project>\n"
        )
    };
    write_tree(
        &rf,
        &[
            ("pom.xml", &pom("17")),
            ("module/pom.xml", &pom("21")),
            (
                "src/main/resources/app.xml",
                "<app a='1' b='2'><x>t</x></app>",
            ),
            ("README.txt", "hello   world\n"),
            ("NOTES.txt", "one\n"),
            ("only-in-reference.txt", "gone\n"),
        ],
    );
    write_tree(
        &ws,
        &[
            ("pom.xml", &pom("11")),
            ("module/pom.xml", &pom("21")),
            (
                "src/main/resources/app.xml",
                "<app b=\"2\" a=\"1\">\n  <x> t </x>\n</app>",
            ),
            ("README.txt", "hello world"),
            ("NOTES.txt", "two\n"),
            ("only-in-workspace.txt", "new\n"),
        ],
    );
    std::fs::write(rf.join("logo.bin"), [0u8, 159, 146, 150]).unwrap();
    std::fs::write(ws.join("logo.bin"), [0u8, 159, 146, 151]).unwrap();
    let config = root.path().join("judge-ci.yml");
    std::fs::write(&config, CONFIG).unwrap();
    let repo = root.path().join("repo");
    as_repo(&repo, &rf, &ws);
    // Then, in the working tree: an uncommitted edit that makes a file match the reference,
    // one that makes a matching file differ, an untracked and an ignored file, a symlink.
    std::fs::copy(
        rf.join("src/main/java/p0/C0.java"),
        repo.join("src/main/java/p0/C0.java"),
    )
    .unwrap();
    std::fs::write(repo.join("src/main/java/p1/C1.java"), java(1, false)).unwrap();
    write_tree(
        &repo,
        &[
            ("src/main/java/p2/Untracked.java", &java(99, true)),
            (".gitignore", "target/\n"),
            ("target/generated/C5.java", &java(5, false)),
        ],
    );
    std::os::unix::fs::symlink(
        "../../../../NOTES.txt",
        repo.join("src/main/java/p2/L.java"),
    )
    .unwrap();
    let r = same_both_ways(&repo, &rf, &config);
    assert!(by_git(&r) > 0, "git decided nothing: {r:#}");
    // The edits after the commit were seen: C0 now matches, C1 no longer does.
    let files = r["diffs"]["files"].to_string();
    assert!(!files.contains("p0/C0.java"), "{files}");
    assert!(files.contains("p1/C1.java"), "{files}");
}
