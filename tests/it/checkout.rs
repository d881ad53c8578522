//! Revisions as reference and head: a repository made in the test, the structural tier run
//! against a revision, a revision that does not exist, another repository by URL#REV, and the
//! user's working tree and index left exactly as they were.

use crate::common;

use common::{judge_ci, report, stderr, write_tree};
use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
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

const CONFIG: &str = "name: rev\njury:\n  tiers:\n    - name: structure\n      voting: {strategy: all-must-pass}\n      checks:\n        - {type: import-diff, forbid: [javax.servlet.*]}\n        - type: ast-diff\n";
const MIGRATED: &str = "package p;\nimport jakarta.servlet.Filter;\npublic abstract class F implements Filter {\n  @Override public void destroy() {}\n}\n";
const HALF: &str = "package p;\nimport javax.servlet.Filter;\npublic abstract class F implements Filter {\n  public void destroy() {}\n}\n";

/// A repository whose `solution` branch holds the migrated file and whose working tree holds
/// the half-migrated one (committed on main, plus an uncommitted edit and a staged file).
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q"]);
    write_tree(
        d,
        &[
            ("judge-ci.yml", CONFIG),
            ("src/p/F.java", MIGRATED),
            ("src/p/Same.java", "package p;\nclass Same {}\n"),
            ("run.sh", "#!/bin/sh\necho hi\n"),
        ],
    );
    common::chmod_x(&d.join("run.sh"));
    std::os::unix::fs::symlink("src/p/Same.java", d.join("link.java")).unwrap();
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "solution"]);
    git(d, &["branch", "solution"]);
    write_tree(d, &[("src/p/F.java", HALF)]);
    git(d, &["commit", "-qam", "half"]);
    write_tree(
        d,
        &[("notes.txt", "uncommitted\n"), ("staged.txt", "staged\n")],
    );
    git(d, &["add", "staged.txt"]);
    dir
}

#[test]
fn the_structural_tier_runs_against_a_revision_without_touching_the_work_tree() {
    let r = repo();
    let status_before = git(
        r.path(),
        &["status", "--porcelain=v1", "--untracked-files=all"],
    );
    let out = tempfile::tempdir().unwrap();
    let o = judge_ci(
        r.path(),
        &[
            "--dry-run",
            "-q",
            "--reference",
            "solution",
            "--out",
            out.path().to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rep = report(out.path());
    common::assert_report_schema(&rep);
    let kinds: Vec<String> = ["imports", "ast"]
        .iter()
        .flat_map(|k| rep["diffs"][k].as_array().cloned().unwrap_or_default())
        .map(|d| {
            format!(
                "{} {}",
                d["kind"].as_str().unwrap(),
                d["path"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        kinds.contains(&"import-forbidden src/p/F.java".to_string()),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&"import-missing src/p/F.java".to_string()),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&"annotation-missing src/p/F.java".to_string()),
        "{kinds:?}"
    );
    assert!(
        rep["subject"]["referenceRev"]
            .as_str()
            .unwrap()
            .starts_with("solution ("),
        "{}",
        rep["subject"]
    );
    // The temporary checkout is gone, and the user's tree and index are as they were.
    let reference = rep["subject"]["reference"].as_str().unwrap();
    assert!(
        !Path::new(reference).exists(),
        "{reference} was not removed"
    );
    assert_eq!(
        git(
            r.path(),
            &["status", "--porcelain=v1", "--untracked-files=all"]
        ),
        status_before
    );
    assert_eq!(
        std::fs::read_to_string(r.path().join("src/p/F.java")).unwrap(),
        HALF
    );
}

#[test]
fn head_and_reference_both_as_revisions_and_kept_checkouts() {
    let r = repo();
    let out = tempfile::tempdir().unwrap();
    let o = judge_ci(
        r.path(),
        &[
            "--dry-run",
            "-q",
            "--head",
            "solution",
            "--reference",
            "solution",
            "--keep-checkouts",
            "--out",
            out.path().to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rep = report(out.path());
    let reference = Path::new(rep["subject"]["reference"].as_str().unwrap()).to_path_buf();
    assert!(
        reference.join("src/p/F.java").is_file(),
        "--keep-checkouts keeps the folder"
    );
    // Modes and links survive materialisation.
    use std::os::unix::fs::PermissionsExt;
    assert_ne!(
        std::fs::metadata(reference.join("run.sh"))
            .unwrap()
            .permissions()
            .mode()
            & 0o111,
        0
    );
    assert_eq!(
        std::fs::read_link(reference.join("link.java")).unwrap(),
        Path::new("src/p/Same.java")
    );
    std::fs::remove_dir_all(&reference).unwrap();
    std::fs::remove_dir_all(rep["subject"]["workspace"].as_str().unwrap()).unwrap();
}

#[test]
fn a_missing_revision_is_named_and_nothing_runs() {
    let r = repo();
    let o = judge_ci(r.path(), &["--dry-run", "--reference", "no-such-branch"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("the revision 'no-such-branch' does not exist"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn another_repository_by_url_and_revision() {
    let r = repo();
    let other = repo();
    let url = format!("file://{}#solution", other.path().display());
    let out = tempfile::tempdir().unwrap();
    let o = judge_ci(
        r.path(),
        &[
            "--dry-run",
            "-q",
            "--reference",
            &url,
            "--out",
            out.path().to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rep = report(out.path());
    assert!(
        rep["subject"]["referenceRev"]
            .as_str()
            .unwrap()
            .contains("#solution")
    );
    let o = judge_ci(
        r.path(),
        &[
            "--dry-run",
            "--reference",
            &format!("file://{}#nope", other.path().display()),
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("'nope' does not exist"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_checkout_subcommand_writes_a_revision() {
    let r = repo();
    let dest = tempfile::tempdir().unwrap();
    let target = dest.path().join("tree");
    let o = judge_ci(
        r.path(),
        &["checkout", "solution", target.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(target.join("src/p/F.java")).unwrap(),
        MIGRATED
    );
    let o = judge_ci(
        r.path(),
        &["checkout", "solution", target.to_str().unwrap()],
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "an existing non-empty folder is refused"
    );
}

#[test]
fn a_revision_missing_from_a_shallow_clone_is_fetched() {
    let upstream = repo();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", upstream.path().display());
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            "--single-branch",
            "--branch",
            "main",
            &url,
            "clone",
        ],
    );
    let clone = dir.path().join("clone");
    assert!(
        Command::new("git")
            .args(["rev-parse", "--verify", "-q", "origin/solution"])
            .current_dir(&clone)
            .status()
            .unwrap()
            .code()
            != Some(0)
    );
    let out = tempfile::tempdir().unwrap();
    let o = judge_ci(
        &clone,
        &[
            "--dry-run",
            "-q",
            "--reference",
            "origin/solution",
            "--out",
            out.path().to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        report(out.path())["subject"]["referenceRev"]
            .as_str()
            .unwrap()
            .starts_with("origin/solution")
    );
}

/// Writes a raw tree object of `(mode, name, id)` entries as the pull request can make one
/// (`hash-object --literally`, so git's own checks do not stop it) and returns its id.
fn raw_tree(dir: &Path, entries: &[(&str, &[u8], &str)]) -> String {
    use std::io::Write;
    let mut bytes = Vec::new();
    for (mode, name, id) in entries {
        bytes.extend_from_slice(mode.as_bytes());
        bytes.push(b' ');
        bytes.extend_from_slice(name);
        bytes.push(0);
        bytes.extend((0..20).map(|i| u8::from_str_radix(&id[2 * i..2 * i + 2], 16).unwrap()));
    }
    let mut child = Command::new("git")
        .args(["hash-object", "-t", "tree", "--literally", "-w", "--stdin"])
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The attack: the head commit's tree holds an entry `..` whose `victim/Greeter.java` lands,
/// when the head is materialised into `$TMPDIR/judge-ci-rev-*`, over the reference folder
/// `$TMPDIR/victim` the head is compared with. judge-ci refuses the tree naming the entry,
/// and writes nothing of it.
#[test]
fn a_head_tree_entry_dotdot_writes_nothing_outside_its_checkout_and_is_an_error() {
    let r = repo();
    let d = r.path();
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    write_tree(
        &victim,
        &[("Greeter.java", "class Greeter { /* reference */ }\n")],
    );
    let hack = git(d, &["hash-object", "-w", "--stdin", "judge-ci.yml"]);
    let greeter = {
        std::fs::write(d.join("hack.txt"), "class Greeter { /* hack */ }\n").unwrap();
        git(d, &["hash-object", "-w", "hack.txt"])
    };
    let inner = raw_tree(
        d,
        &[
            ("100644", b"Extra.java", &greeter),
            ("100644", b"Greeter.java", &greeter),
        ],
    );
    let up = raw_tree(d, &[("40000", b"victim", &inner)]);
    let root = raw_tree(
        d,
        &[("40000", b"..", &up), ("100644", b"judge-ci.yml", &hack)],
    );
    let commit = git(d, &["commit-tree", &root, "-m", "dotdot"]);
    git(d, &["branch", "dotdot", &commit]);
    let out = tempfile::tempdir().unwrap();
    let o = common::command(
        d,
        &[
            "--dry-run",
            "--head",
            "dotdot",
            "--reference",
            victim.to_str().unwrap(),
            "--out",
            out.path().to_str().unwrap(),
        ],
    )
    .env("TMPDIR", tmp.path())
    .output()
    .unwrap();
    let err = stderr(&o);
    assert_eq!(
        std::fs::read_to_string(victim.join("Greeter.java")).unwrap(),
        "class Greeter { /* reference */ }\n",
        "the reference was overwritten"
    );
    assert!(
        !victim.join("Extra.java").exists(),
        "a file was written into the reference"
    );
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("\"..\"") && err.contains("hasDotdot"), "{err}");
    // No part of the head's tree was written anywhere in the temporary folder.
    for e in walkdir::WalkDir::new(tmp.path()) {
        let e = e.unwrap();
        assert_ne!(e.file_name(), "judge-ci.yml", "{}", e.path().display());
    }
}
