//! The fence around subject processes (trust.md points 4, 13, 15), attacked from a `command`
//! judge, once as judge-ci runs here (root) and once as an unprivileged user (`setpriv`), as
//! on a hosted runner. Each attack is a check that PASSes only when the attack failed; the
//! test also checks its effect from outside. The fence line each achieved is printed.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const NOBODY: u32 = 65534;

fn is_root() -> bool {
    // SAFETY: a getter.
    unsafe { libc::geteuid() == 0 }
}

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .unwrap();
    assert!(o.status.success(), "git {args:?}: {}", common::stderr(&o));
}

fn chown_tree(p: &Path, uid: u32) {
    let st = Command::new("chown")
        .args(["-R", &format!("{uid}:{uid}")])
        .arg(p)
        .status()
        .unwrap();
    assert!(st.success());
}

/// A place for one scenario: the workspace (a git repository whose `solution` branch holds
/// the reference, with a secret file), judge-ci's temporary folder, and a victim file
/// outside both (the stand-in for `$GITHUB_ENV`).
struct Scenario {
    root: tempfile::TempDir,
}

impl Scenario {
    fn ws(&self) -> PathBuf {
        self.root.path().join("ws")
    }
    fn tmp(&self) -> PathBuf {
        self.root.path().join("tmp")
    }
    fn victim(&self) -> PathBuf {
        self.root.path().join("runner/github_env")
    }
    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }
}

/// A command check for an attack: the shell expands globs (`glob: true`), so an attack that
/// walks `/proc/$$/fd/*` or a temporary folder's `judge-ci-rev-*` really does.
fn check(name: &str, run: &str) -> String {
    format!(
        "        - type: command\n          name: {name}\n          glob: true\n          run: {}\n          timeout: PT60S\n",
        serde_json::to_string(run).unwrap()
    )
}

fn scenario(extra_checks: &str) -> Scenario {
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let s = Scenario { root };
    for d in [
        s.ws(),
        s.tmp(),
        s.home(),
        s.victim().parent().unwrap().into(),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(s.victim(), "A=1\n").unwrap();
    let checks = [
        check(
            "append-outside-the-workspace",
            &format!("! sh -c 'echo POISONED=1 >> {}' 2>/dev/null", s.victim().display()),
        ),
        check(
            "plant-in-home",
            &format!("! sh -c 'echo evil > {}/.bashrc' 2>/dev/null", s.home().display()),
        ),
        check(
            "no-new-privs",
            "grep -Eq '^NoNewPrivs:[[:space:]]+1' /proc/self/status",
        ),
        check("pid-namespace", "[ $$ -eq 1 ] && [ ! -e /proc/$PPID/environ ]"),
        check(
            "read-the-reference-checkout",
            &format!(
                "! cat {}/judge-ci-rev-*/Secret.txt 2>/dev/null && ! ls {}/ 2>/dev/null | grep -q judge-ci-rev",
                s.tmp().display(),
                s.tmp().display()
            ),
        ),
        check(
            "setsid-helper",
            "setsid sh -c 'sleep 2; echo FORGED > judge-ci-out/report.json; echo FORGED > judge-ci-out/report.md' >/dev/null 2>&1 </dev/null & exit 0",
        ),
        // Every descriptor above stderr is written to (as a step-log command would be),
        // then the check passes only if there was none: stdin /dev/null, stdout and stderr
        // pipes judge-ci reads.
        check(
            "inherited-descriptors",
            "bad=; for f in /proc/$$/fd/*; do n=${f##*/}; if [ -e \"$f\" ] && [ \"$n\" -gt 2 ]; then bad=\"$bad $n\"; echo ::error::FENCE-FD-$((6*7)) > \"$f\" 2>/dev/null; fi; done; ls -l /proc/$$/fd/ > fds.txt; echo \"above stderr:$bad\" >> fds.txt; [ -z \"$bad\" ] && [ \"$(readlink /proc/$$/fd/0)\" = /dev/null ] && readlink /proc/$$/fd/1 | grep -q '^pipe:' && readlink /proc/$$/fd/2 | grep -q '^pipe:'",
        ),
        extra_checks.to_string(),
    ]
    .concat();
    let config = format!(
        "schema: judge-ci.v1\nname: fence\nversion: \"1\"\nreference:\n  ref: solution\njury:\n  tiers:\n    - name: attacks\n      policy: FINAL_TIER\n      voting: {{strategy: all-must-pass}}\n      checks:\n{checks}"
    );
    common::write_tree(
        &s.ws(),
        &[("judge-ci.yml", &config), ("src/A.java", "class A {}\n")],
    );
    git(&s.ws(), &["init", "-q", "-b", "main"]);
    git(&s.ws(), &["add", "-A"]);
    git(&s.ws(), &["commit", "-qm", "subject"]);
    git(&s.ws(), &["checkout", "-qb", "solution"]);
    std::fs::write(s.ws().join("Secret.txt"), "THE-HIDDEN-REFERENCE\n").unwrap();
    git(&s.ws(), &["add", "-A"]);
    git(&s.ws(), &["commit", "-qm", "reference"]);
    git(&s.ws(), &["checkout", "-q", "main"]);
    s
}

/// Runs judge-ci on the scenario (as `uid` when given), waits for any helper to have had its
/// chance, and checks every attack failed; returns the fence line of the report.
fn judge_and_check(s: &Scenario, uid: Option<u32>) -> String {
    let bin = env!("CARGO_BIN_EXE_judge-ci");
    let mut cmd = match uid {
        Some(u) => {
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
    let o = cmd
        .current_dir(s.ws())
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .env("TMPDIR", s.tmp())
        .env("HOME", s.home())
        .env("GITHUB_TOKEN", "ghs_SENTINELfence0123456789")
        .output()
        .unwrap();
    let stderr = common::stderr(&o);
    assert!(
        !stderr.contains("FENCE-FD-42") && !common::stdout(&o).contains("FENCE-FD-42"),
        "a subject process wrote to judge-ci's own stdout/stderr: {stderr}"
    );
    assert!(
        s.ws().join("judge-ci-out/report.json").is_file(),
        "no report: {stderr}"
    );
    let report = common::report(&s.ws().join("judge-ci-out"));
    let json = report.to_string();
    // The helper had two seconds; give it three.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let after = common::report(&s.ws().join("judge-ci-out"));
    assert_eq!(report, after, "report.json unchanged after judge-ci exited");
    let md = std::fs::read_to_string(s.ws().join("judge-ci-out/report.md")).unwrap();
    assert!(!md.contains("FORGED"), "{md}");
    let failed: Vec<String> = report["tiers"][0]["judges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["status"] != "pass")
        .map(|j| format!("{} ({})", j["name"], j["status"]))
        .collect();
    assert!(
        failed.is_empty(),
        "attacks that worked: {failed:?}\ndescriptors of a subject process: {}\n{stderr}\n{}",
        std::fs::read_to_string(s.ws().join("fds.txt")).unwrap_or_default(),
        &json[..json.len().min(4000)]
    );
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert_eq!(std::fs::read_to_string(s.victim()).unwrap(), "A=1\n");
    assert!(!s.home().join(".bashrc").exists());
    assert!(!json.contains("THE-HIDDEN-REFERENCE"));
    let fence = report["fence"].as_str().unwrap_or_default().to_string();
    assert!(
        md.contains("fence: landlock ABI"),
        "the report says it: {md}"
    );
    fence
}

#[test]
fn the_fence_holds_as_root() {
    assert!(
        is_root(),
        "this test exercises the fence as root, as this project's machines run judge-ci; run the tests as root"
    );
    let s = scenario("");
    let fence = judge_and_check(&s, None);
    eprintln!("fence as root: {fence}");
    assert!(
        fence.contains("landlock ABI") && fence.contains("pid namespace"),
        "{fence}"
    );
}

#[test]
fn the_fence_holds_for_an_unprivileged_user() {
    assert!(
        is_root(),
        "dropping to an unprivileged user (setpriv) needs root; run the tests as root"
    );
    // A setuid-root copy of `id`: outside the fence it makes the user root (checked below);
    // inside, no_new_privs keeps it from raising anything.
    let s = scenario(&check(
        "setuid-does-not-raise",
        "test \"$(../suid/id -u)\" != 0",
    ));
    let suid = s.root.path().join("suid");
    std::fs::create_dir_all(&suid).unwrap();
    std::fs::copy("/usr/bin/id", suid.join("id")).unwrap();
    std::fs::set_permissions(suid.join("id"), std::fs::Permissions::from_mode(0o4755)).unwrap();
    for p in [
        s.ws(),
        s.tmp(),
        s.home(),
        s.victim().parent().unwrap().to_path_buf(),
    ] {
        chown_tree(&p, NOBODY);
    }
    let outside = Command::new("setpriv")
        .args([
            &format!("--reuid={NOBODY}"),
            &format!("--regid={NOBODY}"),
            "--clear-groups",
        ])
        .arg(suid.join("id"))
        .arg("-u")
        .output()
        .unwrap();
    assert_eq!(
        common::stdout(&outside).trim(),
        "0",
        "the setuid copy works outside the fence"
    );
    let fence = judge_and_check(&s, Some(NOBODY));
    eprintln!("fence as an unprivileged user: {fence}");
    assert!(fence.contains("landlock ABI"), "{fence}");
}

/// Runs judge-ci on a one-check config in a fresh repository and returns the check's status.
fn command_status(sandbox: &str, run: &str) -> String {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    let config = format!(
        "schema: judge-ci.v1\nname: net\nversion: \"1\"\n{sandbox}jury:\n  checks:\n{}",
        check("reach", run)
    );
    common::write_tree(&ws, &[("judge-ci.yml", &config)]);
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "subject"]);
    let o = Command::new(env!("CARGO_BIN_EXE_judge-ci"))
        .current_dir(&ws)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1")
        .env("TMPDIR", root.path())
        .output()
        .unwrap();
    let report = common::report(&ws.join("judge-ci-out"));
    report["tiers"][0]["judges"][0]["status"]
        .as_str()
        .unwrap_or_else(|| panic!("no status: {}\n{report}", common::stderr(&o)))
        .to_string()
}

#[test]
fn sandbox_network_false_cuts_subject_processes_off_the_network() {
    assert!(
        is_root(),
        "a network namespace needs root or a user namespace; run the tests as root"
    );
    // A listener on this machine's loopback stands for every host the build could reach.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}'");
    let accepted = |l: &std::net::TcpListener| std::iter::from_fn(|| l.accept().ok()).count();

    // Without `sandbox`, the subject reaches it: the control that makes the next part mean
    // something.
    assert_eq!(command_status("", &connect), "pass");
    assert_eq!(accepted(&listener), 1, "the control connection arrived");

    // With `network: false`, the same command finds nothing listening on its own loopback.
    assert_eq!(
        command_status("sandbox:\n  network: false\n", &connect),
        "fail",
        "the subject reached the host's loopback through the sandbox"
    );
    assert_eq!(accepted(&listener), 0, "no connection crossed the sandbox");
}
