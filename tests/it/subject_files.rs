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
    judge_with(ws, tmp, uid, limit, &[])
}

/// [`judge`] with arguments.
fn judge_with(ws: &Path, tmp: &Path, uid: Option<u32>, limit: Duration, args: &[&str]) -> Output {
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
        .args(args)
        .current_dir(ws)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
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

/// The judgments of the report (every tier's), by name: (status, "kind path actual" of each
/// finding).
fn judgments(ws: &Path) -> Vec<(String, String, Vec<String>)> {
    let report = common::report(&ws.join("judge-ci-out"));
    let verdict = &report["verdict"];
    let tiers = verdict["compositeAttempts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    std::iter::once(verdict)
        .chain(tiers.iter().map(|t| &t["verdict"]))
        .filter_map(|v| v["individualByName"].as_object())
        .flat_map(|m| m.iter())
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

/// The attack: the pull request presents a FIFO where a `file-content` check reads (and
/// another where a `file-exists` check looks), behind a build step. Opening it blocking waited for a writer for ever: the
/// judge's time limit fired, but the stuck thread kept judge-ci from exiting, so the gate
/// never got an exit code. Now the FIFO is never opened blocking, is a `file-not-regular`
/// finding, and judge-ci exits with the rejection.
fn a_fifo_where_a_judge_reads(uid: Option<u32>) {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = "schema: judge-ci.v1\nname: fifo\nversion: \"1\"\njury:\n  tiers:\n    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - type: command\n          name: build\n          run: \"true\"\n    - name: files\n      policy: FINAL_TIER\n      checks:\n        - type: file-content\n          name: result\n          path: out/result.txt\n          expected: ok\n          match: CONTAINS\n          timeout: PT5S\n        - type: file-exists\n          name: marker\n          path: out/marker\n";
    common::write_tree(&ws, &[("judge-ci.yml", config)]);
    // Submitted: the file checks read the workspace as submitted (a build's files are not).
    std::fs::create_dir_all(ws.join("out")).unwrap();
    let st = Command::new("mkfifo")
        .arg(ws.join("out/result.txt"))
        .arg(ws.join("out/marker"))
        .status()
        .unwrap();
    assert!(st.success());
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
/// link to `/dev/zero` among the class files. The readers skipped them silently
/// (class-version passed on the rest) or turned them into an instrument ERROR that a lenient
/// gate lets through. Now neither outlives the build (attack findings E7-10, N7-2: what a
/// check keeps is plain data): the build FAILs for leaving them, and no evidence judge
/// passes on what is left.
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
    let (_, status, findings) = all.iter().find(|j| j.0 == "build").unwrap();
    assert_eq!(status, "fail", "{all:?}");
    for odd in [
        "target/classes/Zero.class",
        "target/surefire-reports/TEST-a.ZTest.xml",
    ] {
        assert!(
            findings
                .iter()
                .any(|f| *f == format!("submitted-file-changed {odd} not plain data, removed")),
            "{odd}: {findings:?}"
        );
        assert!(
            std::fs::symlink_metadata(ws.join(odd)).is_err(),
            "{odd} survived"
        );
    }
    for (name, status, _) in &all {
        assert_ne!(status, "pass", "{name}: {all:?}");
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

/// The attack (attack pass F1, F16; gates F13): a build step rewrites a submitted source
/// (`javax` to `jakarta`), and adds the `NOTICE` a `file-exists` check wants, a file a later
/// command looks for and a source that is not the pull request's. The later grep, the file
/// checks and the command graded what the build left: accepted. Now the file checks read the
/// workspace as submitted, and after the build judge-ci puts the submitted files back
/// (removing what it added outside build output folders): the build FAILs with a
/// `submitted-file-changed` finding for each, and the later checks see the submitted tree.
fn a_build_that_rewrites_the_sources(uid: Option<u32>) {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = r#"schema: judge-ci.v1
name: rewrite
version: "1"
jury:
  tiers:
    - name: build
      policy: ACCEPT_ON_ALL_PASS
      checks:
        - type: command
          name: build
          run: "sh build.sh"
    - name: final
      policy: FINAL_TIER
      voting: {strategy: all-must-pass}
      checks:
        - type: command
          name: no-javax-left
          run: "grep -rq javax.servlet src"
          expect-exit: 1
        - type: command
          name: no-build-files
          run: "test -e out.txt -o -e src/Fake.java"
          expect-exit: 1
        - type: file-exists
          name: notice
          path: NOTICE
        - type: file-content
          name: migrated
          path: src/Greeter.java
          expected: jakarta
          match: CONTAINS
"#;
    let build = "sed 's/javax/jakarta/' src/Greeter.java > g.tmp && cat g.tmp > src/Greeter.java && rm g.tmp\necho notice > NOTICE\necho ok > out.txt\necho 'class Fake { String s = \"jakarta.servlet\"; }' > src/Fake.java\n";
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            ("build.sh", build),
            (
                "src/Greeter.java",
                "class Greeter { Object f() throws Exception { return Class.forName(\"javax.servlet.Filter\"); } }\n",
            ),
        ],
    );
    let o = judge(&ws, &tmp, uid, Duration::from_secs(120));
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let all = judgments(&ws);
    let status = |name: &str| {
        all.iter()
            .find(|j| j.0 == name)
            .unwrap_or_else(|| panic!("{name}: {all:?}\n{err}"))
            .1
            .clone()
    };
    for (name, want) in [
        ("build", "fail"),
        ("no-javax-left", "fail"),
        ("no-build-files", "pass"),
        ("notice", "fail"),
        ("migrated", "fail"),
    ] {
        assert_eq!(status(name), want, "{name}: {all:?}");
    }
    let (_, _, findings) = all.iter().find(|j| j.0 == "build").unwrap();
    for f in [
        "submitted-file-changed src/Greeter.java changed",
        "submitted-file-changed NOTICE added",
        "submitted-file-changed out.txt added",
        "submitted-file-changed src/Fake.java added",
    ] {
        assert!(findings.iter().any(|x| x == f), "{f}: {findings:?}");
    }
    let greeter = std::fs::read_to_string(ws.join("src/Greeter.java")).unwrap();
    assert!(greeter.contains("javax.servlet"), "put back: {greeter}");
}

#[test]
fn a_build_that_rewrites_the_sources_is_judged_as_submitted_as_root() {
    assert!(
        is_root(),
        "run the tests as root (this project's machines do)"
    );
    a_build_that_rewrites_the_sources(None);
}

#[test]
fn a_build_that_rewrites_the_sources_is_judged_as_submitted_unprivileged() {
    assert!(
        is_root(),
        "dropping to an unprivileged user (setpriv) needs root; run the tests as root"
    );
    a_build_that_rewrites_the_sources(Some(NOBODY));
}

/// The attack (newer attack pass F13): the shipped example's last check is
/// `! grep -rn 'javax\.servlet' …`. A build that leaves a mode-000 folder in its output folder
/// makes GNU grep exit 2 (it matched, then could not read the folder), which `!` turns into a
/// pass, and a leftover javax string is accepted. Now nothing subject code leaves is
/// unreadable to the checks after it: the folder is opened (and listed), so grep's answer is
/// about the submitted source.
fn an_unreadable_folder_the_build_leaves(uid: Option<u32>) {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = r#"schema: judge-ci.v1
name: locked
version: "1"
jury:
  tiers:
    - name: build
      policy: REJECT_ON_ANY_FAIL
      checks:
        - type: command
          name: build
          run: "mkdir -p target/locked && echo x > target/locked/x && chmod 000 target/locked"
    - name: final
      policy: FINAL_TIER
      checks:
        - type: command
          name: no-javax-left
          run: "! grep -rn javax.servlet ."
"#;
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            ("pom.xml", "<project/>\n"),
            (
                "src/Greeter.java",
                "class Greeter { String legacy = \"javax.servlet.http.HttpServlet\"; }\n",
            ),
        ],
    );
    let o = judge(&ws, &tmp, uid, Duration::from_secs(120));
    let err = common::stderr(&o);
    let all = judgments(&ws);
    assert_eq!(o.status.code(), Some(1), "{all:?}\n{err}");
    let find = |name: &str| {
        all.iter()
            .find(|j| j.0 == name)
            .unwrap_or_else(|| panic!("{name}: {all:?}"))
    };
    assert_eq!(find("no-javax-left").1, "fail", "{all:?}");
    assert_eq!(find("build").1, "pass", "{all:?}");
    assert!(
        find("build")
            .2
            .iter()
            .any(|f| f == "submitted-file-changed target/locked made readable"),
        "{all:?}"
    );
}

#[test]
fn an_unreadable_folder_the_build_leaves_is_read_as_root() {
    assert!(
        is_root(),
        "run the tests as root (this project's machines do)"
    );
    an_unreadable_folder_the_build_leaves(None);
}

#[test]
fn an_unreadable_folder_the_build_leaves_is_read_unprivileged() {
    assert!(
        is_root(),
        "dropping to an unprivileged user (setpriv) needs root; run the tests as root"
    );
    an_unreadable_folder_the_build_leaves(Some(NOBODY));
}

/// Attack findings E7-9, E7-10 and N7-2: a build leaves, in its kept `target/`, a git
/// repository at a submodule path (`.gitmodules` names `target/sub`: the checkout action's
/// clean-up would run git in it after judge-ci, unfenced, with the step's token), a dangling
/// link (the later `! grep -rn` exits 2 on it: a pass) and a link out of the tree. Now none
/// of them survives the check that made it, which FAILs (they are not output): the grep
/// never passes on them.
#[test]
fn what_a_build_keeps_is_plain_data() {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = r#"schema: judge-ci.v1
name: planted
version: "1"
jury:
  tiers:
    - name: build
      policy: REJECT_ON_ANY_FAIL
      checks:
        - type: command
          name: build
          run: "mkdir -p target/sub/.git target/classes && printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > target/sub/.git/config && ln -s nowhere target/classes/dangling && ln -s / target/root && echo x > target/classes/A.class"
    - name: final
      policy: FINAL_TIER
      checks:
        - type: command
          name: no-javax-left
          run: "! grep -rn javax.servlet ."
"#;
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            ("pom.xml", "<project/>\n"),
            (
                ".gitmodules",
                "[submodule \"sub\"]\n\tpath = target/sub\n\turl = ./x\n",
            ),
            (
                "src/Greeter.java",
                "class Greeter { String legacy = \"javax.servlet.http.HttpServlet\"; }\n",
            ),
        ],
    );
    let o = judge(&ws, &tmp, None, Duration::from_secs(120));
    let err = common::stderr(&o);
    let all = judgments(&ws);
    assert_eq!(o.status.code(), Some(1), "{all:?}\n{err}");
    let find = |name: &str| {
        all.iter()
            .find(|j| j.0 == name)
            .unwrap_or_else(|| panic!("{name}: {all:?}"))
    };
    assert_eq!(find("build").1, "fail", "{all:?}");
    for (name, status, _) in &all {
        assert_ne!(status, "pass", "{name}: {all:?}");
    }
    for odd in ["target/classes/dangling", "target/root", "target/sub/.git"] {
        assert!(
            find("build")
                .2
                .iter()
                .any(|f| *f == format!("submitted-file-changed {odd} not plain data, removed")),
            "{odd}: {all:?}"
        );
        assert!(
            std::fs::symlink_metadata(ws.join(odd)).is_err(),
            "{odd} survived"
        );
    }
    assert!(ws.join("target/classes/A.class").is_file());
}

/// Attack finding N7-7: the pull request adds a file named `--exclude=*.java`; the trusted
/// check `! grep -rn javax.servlet *` expands it into an option, greps no Java file and passes
/// a leftover javax import. Now a name a program reads as an option (or that holds a line
/// break) is a FAIL of judge-ci's own, `misread-file-names`, which no vote outweighs.
#[test]
fn a_file_name_a_program_reads_as_an_option_fails() {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = r#"schema: judge-ci.v1
name: names
version: "1"
jury:
  tiers:
    - name: final
      policy: FINAL_TIER
      checks:
        - type: command
          name: no-javax-left
          run: "! grep -rn javax.servlet *"
"#;
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            ("--exclude=*.java", ""),
            ("src/a\nb.txt", ""),
            (
                "src/Greeter.java",
                "import javax.servlet.http.HttpServlet;\nclass Greeter {}\n",
            ),
        ],
    );
    let o = judge(&ws, &tmp, None, Duration::from_secs(120));
    let all = judgments(&ws);
    assert_eq!(o.status.code(), Some(1), "{all:?}\n{}", common::stderr(&o));
    let (_, status, findings) = all
        .iter()
        .find(|j| j.0 == "misread-file-names")
        .unwrap_or_else(|| panic!("{all:?}"));
    assert_eq!(status, "fail");
    assert_eq!(
        findings,
        &[
            "misread-file-name --exclude=*.java ".to_string(),
            "misread-file-name src/a\\nb.txt ".to_string()
        ],
        "{all:?}"
    );
    // The attack itself: the grep alone passes.
    let grep = all.iter().find(|j| j.0 == "no-javax-left").unwrap();
    assert_eq!(
        grep.1, "pass",
        "the repro no longer shows the attack: {all:?}"
    );
}

/// Attack finding S8-3: the final check written in list form, `run: [sh, -c, "! grep -n
/// javax.servlet $(find . -name '*.java')"]`, escaped the analysis a string `run:` gets; the
/// build leaves `target/notes v2.java` (a plain file, kept), the substitution splits it into
/// two words, grep exits 2 and `!` makes it a pass. Now a shell's `-c` script in list form is
/// read as the string form is: warned about at load, refused over such a name at run time.
#[test]
fn a_shell_script_in_list_form_is_read_as_a_string_run_is() {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = r#"schema: judge-ci.v1
name: listform
version: "1"
jury:
  tiers:
    - name: build
      policy: REJECT_ON_ANY_FAIL
      checks:
        - type: command
          name: build
          run: "mkdir -p target && echo x > 'target/notes v2.java'"
    - name: final
      policy: FINAL_TIER
      checks:
        - type: command
          name: no-javax-left
          run: [sh, -c, "! grep -n javax.servlet $(find . -name '*.java')"]
"#;
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            ("pom.xml", "<project/>\n"),
            (
                "src/Greeter.java",
                "import javax.servlet.http.HttpServlet;\nclass Greeter {}\n",
            ),
        ],
    );
    let o = judge(&ws, &tmp, None, Duration::from_secs(120));
    let all = judgments(&ws);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{all:?}\n{err}");
    assert!(
        err.contains("its shell's -c script"),
        "no load warning: {err}"
    );
    let grep = all
        .iter()
        .find(|j| j.0 == "no-javax-left")
        .unwrap_or_else(|| panic!("{all:?}"));
    assert_eq!(grep.1, "fail", "{all:?}");
}

/// The attack (newer attack pass F23): a command's `dir: src` where the pull request made
/// `src` a link to an empty folder of its own (the code lives elsewhere): the trusted
/// `! grep` examined nothing and passed. A path a check names that is, or passes through, a
/// link inside the workspace is now a `file-not-regular` FAIL of that check, never followed
/// (the same for a file check's path and an evidence folder).
#[test]
fn a_path_a_check_names_through_a_link_is_a_finding() {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = r#"schema: judge-ci.v1
name: linked
version: "1"
jury:
  checks:
    - type: command
      name: no-javax-left
      dir: src
      run: "! grep -rn javax.servlet ."
    - type: file-exists
      name: notice
      path: docs/NOTICE
    - type: class-version
      name: classes
      java: 17
      dir: out/classes
"#;
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            (
                "realsrc/Greeter.java",
                "class Greeter { String legacy = \"javax.servlet.http.HttpServlet\"; }\n",
            ),
            ("clean/README", "nothing here\n"),
            ("realdocs/NOTICE", "notice\n"),
            ("realout/classes/README", "no classes\n"),
        ],
    );
    std::os::unix::fs::symlink("clean", ws.join("src")).unwrap();
    std::os::unix::fs::symlink("realdocs", ws.join("docs")).unwrap();
    std::os::unix::fs::symlink("realout", ws.join("out")).unwrap();
    let o = judge(&ws, &tmp, None, Duration::from_secs(120));
    let err = common::stderr(&o);
    let all = judgments(&ws);
    assert_eq!(o.status.code(), Some(1), "{all:?}\n{err}");
    for (name, link) in [
        ("no-javax-left", "src"),
        ("notice", "docs"),
        ("classes", "out"),
    ] {
        let j = all
            .iter()
            .find(|j| j.0 == name)
            .unwrap_or_else(|| panic!("{name}: {all:?}"));
        assert_eq!(j.1, "fail", "{name}: {all:?}");
        assert!(
            j.2.iter()
                .any(|f| f == &format!("file-not-regular {link} symlink")),
            "{name}: {all:?}"
        );
    }
}

/// The attack: a FIFO where a test-engine registration lives
/// (`META-INF/services/org.junit…Extension`). The scan for code the pull request makes run at
/// build time read it with a blocking open before any check ran, so judge-ci waited for a
/// writer for ever (no check's time limit covers that stage). It is read with the one
/// primitive now: never opened blocking, reported as what it is.
#[test]
fn a_fifo_where_build_code_is_registered_never_blocks() {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = "schema: judge-ci.v1\nname: fifo\nversion: \"1\"\njury:\n  checks:\n    - {type: command, name: build, run: \"true\"}\n";
    common::write_tree(
        &ws,
        &[("judge-ci.yml", config), ("pom.xml", "<project/>\n")],
    );
    let services = ws.join("src/test/resources/META-INF/services");
    std::fs::create_dir_all(&services).unwrap();
    nix::unistd::mkfifo(
        &services.join("org.junit.jupiter.api.extension.Extension"),
        nix::sys::stat::Mode::from_bits_truncate(0o644),
    )
    .unwrap();
    let o = judge(&ws, &tmp, None, Duration::from_secs(60));
    let err = common::stderr(&o);
    let report = common::report(&ws.join("judge-ci-out"));
    let found = report["trust"]["buildCodeAdded"].to_string();
    assert!(
        found.contains("META-INF/services/org.junit.jupiter.api.extension.Extension")
            && found.contains("not a regular file"),
        "{found}\n{err}"
    );
}

/// The attack (attack pass S1): a file named `com\example\greeting\HealthFilter.java`
/// (backslashes are bytes of a name on Linux; git records and checks it out as is) holding a
/// javax import was read as the clean `com/example/greeting/HealthFilter.java`: the forbidden
/// import was never seen, the PR accepted while Maven compiles the file. A name is data.
#[test]
fn a_name_with_backslashes_is_its_own_file() {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp) = (root.path().join("ws"), root.path().join("tmp"));
    std::fs::create_dir_all(&tmp).unwrap();
    let config = "schema: judge-ci.v1\nname: bs\nversion: \"1\"\nreference: {path: ../ref}\njury:\n  checks:\n    - {type: import-diff, name: imports, forbid: [javax.servlet.*]}\n";
    let clean = "package com.example.greeting;\nimport jakarta.servlet.Filter;\nabstract class HealthFilter implements Filter {}\n";
    let sneaky = "import javax.servlet.Filter;\nabstract class Sneaky implements Filter {}\n";
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            (
                "src/main/java/com/example/greeting/HealthFilter.java",
                clean,
            ),
            (
                "src/main/java/com\\example\\greeting\\HealthFilter.java",
                sneaky,
            ),
        ],
    );
    common::write_tree(
        &root.path().join("ref"),
        &[(
            "src/main/java/com/example/greeting/HealthFilter.java",
            clean,
        )],
    );
    let o = judge(&ws, &tmp, None, Duration::from_secs(60));
    let err = common::stderr(&o);
    let all = judgments(&ws);
    assert_eq!(o.status.code(), Some(1), "{all:?}\n{err}");
    let (_, status, findings) = all.iter().find(|j| j.0 == "imports").unwrap();
    assert_eq!(status, "fail", "{all:?}");
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("import-forbidden") && f.contains("com\\example")),
        "{findings:?}"
    );
}

/// The attack (attack pass F18): `render`, `interpret`, `diagnose`, `publish --from` and
/// `resume --from` read a stored `report.json` (what a fork's workflow uploads, or a folder on
/// a shared runner) with a blocking open and whole: a FIFO held them for ever, a 3 GiB file
/// took 3 GB of memory. Each now refuses a FIFO at once and a report over the bound before
/// reading it, naming the file.
#[test]
fn stored_reports_are_never_read_blocking_or_whole() {
    let root = tempfile::tempdir().unwrap();
    let (ws, tmp, stored) = (
        root.path().join("ws"),
        root.path().join("tmp"),
        root.path().join("stored"),
    );
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(&stored).unwrap();
    common::write_tree(
        &ws,
        &[(
            "judge-ci.yml",
            "schema: judge-ci.v1\nname: s\nversion: \"1\"\njury:\n  checks:\n    - type: command\n      run: \"true\"\n",
        )],
    );
    let report = stored.join("report.json");
    let from = stored.to_str().unwrap().to_string();
    let file = report.to_str().unwrap().to_string();
    let commands: Vec<Vec<&str>> = vec![
        vec!["render", &file],
        vec!["interpret", &file],
        vec!["diagnose", &file],
        vec!["publish", "--from", &from],
        vec!["resume", "--from", &from, "--dry-run", "--out", "out2"],
    ];
    for shape in ["fifo", "large"] {
        let _ = std::fs::remove_file(&report);
        if shape == "fifo" {
            let st = Command::new("mkfifo").arg(&report).status().unwrap();
            assert!(st.success());
        } else {
            // Sparse: 100 MiB of nothing, over the bound.
            std::fs::File::create(&report)
                .unwrap()
                .set_len(100 << 20)
                .unwrap();
        }
        for args in &commands {
            let o = judge_with(&ws, &tmp, None, Duration::from_secs(30), args);
            let err = common::stderr(&o);
            assert_ne!(o.status.code(), Some(0), "{shape} {args:?}: {err}");
            let said = if shape == "fifo" { "fifo" } else { "over the" };
            assert!(
                err.contains(said),
                "{shape} {args:?} does not say {said:?}: {err}"
            );
        }
    }
}
