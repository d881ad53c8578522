//! Every file the subject presents is accounted for (trust.md points 19 and 24, issue 25):
//! links, FIFOs and other non-regular files where a judge reads are findings, never skipped
//! and never opened blocking, and judge-ci always exits. Each attack runs as judge-ci runs
//! here (root) and as an unprivileged user (`setpriv`), as hosted runners run it.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const NOBODY: u32 = 65534;

fn is_root() -> bool {
    // SAFETY: a getter.
    unsafe { libc::geteuid() == 0 }
}

/// Runs judge-ci in `ws` (as `uid` when given) with `TMPDIR` in `tmp`; a run that has not
/// ended after `limit` is killed and the test fails: judge-ci must always exit.
fn judge(ws: &Path, tmp: &Path, uid: Option<u32>, limit: Duration) -> Output {
    let bin = env!("CARGO_BIN_EXE_judge-ci");
    let mut cmd = match uid {
        Some(u) => {
            for p in [ws, tmp] {
                let st = Command::new("chown")
                    .args(["-R", &format!("{u}:{u}")])
                    .arg(p)
                    .status()
                    .unwrap();
                assert!(st.success());
            }
            let mut c = Command::new("setpriv");
            c.args([
                &format!("--reuid={u}"),
                &format!("--regid={u}"),
                "--clear-groups",
                "--",
                bin,
            ]);
            c
        }
        None => Command::new(bin),
    };
    let mut child = cmd
        .current_dir(ws)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .env("TMPDIR", tmp)
        .env("HOME", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!(
                "judge-ci did not exit within {limit:?}\n{}",
                common::stderr(&o)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The judgments of the report, by name: (status, finding kinds).
fn judgments(ws: &Path) -> Vec<(String, String, Vec<String>)> {
    let report = common::report(&ws.join("judge-ci-out"));
    report["verdict"]["individualByName"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, j)| {
            let kinds = j["findings"]
                .as_array()
                .map(|f| {
                    f.iter()
                        .map(|f| {
                            format!(
                                "{} {} {}",
                                f["kind"].as_str().unwrap_or(""),
                                f["path"].as_str().unwrap_or(""),
                                f["actual"].as_str().unwrap_or("")
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            (
                name.clone(),
                j["status"].as_str().unwrap_or("").to_string(),
                kinds,
            )
        })
        .collect()
}

/// The attack: a build step leaves a FIFO where a `file-content` check reads (and another
/// where a `file-exists` check looks). Opening it blocking waited for a writer for ever: the
/// judge's time limit fired, but the stuck thread kept judge-ci from exiting, so the gate
/// never got an exit code. Now the FIFO is never opened blocking, is a `file-not-regular`
/// finding, and judge-ci exits with the rejection.
fn a_fifo_where_a_judge_reads(uid: Option<u32>) {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = "schema: judge-ci.v1\nname: fifo\nversion: \"1\"\njury:\n  tiers:\n    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - type: command\n          name: build\n          run: \"mkdir -p out && mkfifo out/result.txt out/marker\"\n    - name: files\n      policy: FINAL_TIER\n      checks:\n        - type: file-content\n          name: result\n          path: out/result.txt\n          expected: ok\n          match: CONTAINS\n          timeout: PT5S\n        - type: file-exists\n          name: marker\n          path: out/marker\n";
    common::write_tree(&ws, &[("judge-ci.yml", config)]);
    let o = judge(&ws, &tmp, uid, Duration::from_secs(120));
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let all = judgments(&ws);
    for name in ["result", "marker"] {
        let (_, status, findings) = all.iter().find(|j| j.0 == name).unwrap();
        assert_eq!(status, "fail", "{name}: {all:?}");
        assert!(
            findings
                .iter()
                .any(|f| f.starts_with("file-not-regular") && f.ends_with("fifo")),
            "{name}: {findings:?}"
        );
    }
}

#[test]
fn a_fifo_where_a_judge_reads_is_a_finding_and_judge_ci_exits_as_root() {
    assert!(
        is_root(),
        "run the tests as root (this project's machines do)"
    );
    a_fifo_where_a_judge_reads(None);
}

#[test]
fn a_fifo_where_a_judge_reads_is_a_finding_and_judge_ci_exits_unprivileged() {
    assert!(
        is_root(),
        "dropping to an unprivileged user (setpriv) needs root; run the tests as root"
    );
    a_fifo_where_a_judge_reads(Some(NOBODY));
}

/// The attack: a new `Names.java` is a symbolic link to `build/Names.txt` (javac compiles
/// it; the structural walk skipped links without a word), and a `Fast.java` link uses
/// `sun.misc.Unsafe`, which the same file as a regular file is rejected for. Both are now
/// `file-not-regular` findings: the structural tier rejects.
fn symlinked_sources(uid: Option<u32>) {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = "schema: judge-ci.v1\nname: links\nversion: \"1\"\nreference:\n  path: ../reference\njury:\n  tiers:\n    - name: structural\n      policy: FINAL_TIER\n      voting: {strategy: all-must-pass}\n      checks:\n        - type: import-diff\n          forbid: [sun.misc.*]\n        - type: ast-diff\n";
    let greeter =
        "package a;\npublic class Greeter {\n  public String hi() { return \"hi\"; }\n}\n";
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            ("src/main/java/a/Greeter.java", greeter),
            (
                "build/Names.txt",
                "package a;\nclass Names { static String n() { return \"x\"; } }\n",
            ),
            (
                "build/Fast.txt",
                "package a;\nimport sun.misc.Unsafe;\nclass Fast { Unsafe u; }\n",
            ),
        ],
    );
    common::write_tree(
        &root.path().join("reference"),
        &[("src/main/java/a/Greeter.java", greeter)],
    );
    std::os::unix::fs::symlink(
        "../../../../build/Names.txt",
        ws.join("src/main/java/a/Names.java"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "../../../../build/Fast.txt",
        ws.join("src/main/java/a/Fast.java"),
    )
    .unwrap();
    // A link to a folder outside the tree, whose `.java` files the build compiles.
    let outside = root.path().join("outside");
    common::write_tree(
        &outside,
        &[("Evil.java", "package a.ext;\nclass Evil {}\n")],
    );
    std::os::unix::fs::symlink(&outside, ws.join("src/main/java/a/ext")).unwrap();
    let o = judge(&ws, &tmp, uid, Duration::from_secs(120));
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let all = judgments(&ws);
    for (name, _, findings) in &all {
        for file in ["Names.java", "Fast.java", "src/main/java/a/ext"] {
            assert!(
                findings.iter().any(|f| f.starts_with("file-not-regular")
                    && f.contains(file)
                    && f.ends_with("symlink")),
                "{name}: {file} not reported: {all:?}"
            );
        }
    }
}

#[test]
fn symlinked_sources_are_findings_as_root() {
    assert!(
        is_root(),
        "run the tests as root (this project's machines do)"
    );
    symlinked_sources(None);
}

#[test]
fn symlinked_sources_are_findings_unprivileged() {
    assert!(
        is_root(),
        "dropping to an unprivileged user (setpriv) needs root; run the tests as root"
    );
    symlinked_sources(Some(NOBODY));
}

/// The attack: the build leaves, where evidence is read, a FIFO as a Surefire report and a
/// link to `/dev/zero` (and a link to an old class file) among the class files. The readers
/// skipped them silently (class-version passed on the rest) or turned them into an
/// instrument ERROR that a lenient gate lets through. Each is a `file-not-regular` finding:
/// FAIL.
fn evidence_that_is_not_a_regular_file(uid: Option<u32>) {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = "schema: judge-ci.v1\nname: evidence\nversion: \"1\"\njury:\n  tiers:\n    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - type: command\n          name: build\n          run: \"mkdir -p target/surefire-reports target/classes && mkfifo target/surefire-reports/TEST-a.ZTest.xml && ln -s /dev/zero target/classes/Zero.class\"\n    - name: evidence\n      policy: FINAL_TIER\n      checks:\n        - type: test-invariance\n          name: tests\n          reports: target/surefire-reports\n          timeout: PT5S\n        - type: class-version\n          name: classes\n          target: 61\n          timeout: PT5S\n";
    common::write_tree(&ws, &[("judge-ci.yml", config)]);
    let o = judge(&ws, &tmp, uid, Duration::from_secs(120));
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let all = judgments(&ws);
    for (name, kind) in [("tests", "fifo"), ("classes", "symlink")] {
        let (_, status, findings) = all.iter().find(|j| j.0 == name).unwrap();
        assert_eq!(status, "fail", "{name}: {all:?}");
        assert!(
            findings
                .iter()
                .any(|f| f.starts_with("file-not-regular") && f.ends_with(kind)),
            "{name}: {findings:?}"
        );
    }
}

#[test]
fn evidence_that_is_not_a_regular_file_fails_as_root() {
    assert!(
        is_root(),
        "run the tests as root (this project's machines do)"
    );
    evidence_that_is_not_a_regular_file(None);
}

#[test]
fn evidence_that_is_not_a_regular_file_fails_unprivileged() {
    assert!(
        is_root(),
        "dropping to an unprivileged user (setpriv) needs root; run the tests as root"
    );
    evidence_that_is_not_a_regular_file(Some(NOBODY));
}
