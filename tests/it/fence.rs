//! The fence around subject processes (trust.md points 4, 13, 15), attacked from a `command`
//! judge, once as judge-ci runs here (root) and once as an unprivileged user (`setpriv`), as
//! on a hosted runner. Each attack is a check that PASSes only when the attack failed; the
//! test also checks its effect from outside. The fence line each achieved is printed.

use crate::common;

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
    /// A self-hosted runner's installation outside the home folder (attack finding FE4):
    /// `.credentials`, `_diag` logs, its `bin`, and `_work` holding [`Scenario::root`].
    install: tempfile::TempDir,
    /// A unix socket outside the workspace (the stand-in for the Docker socket): root's,
    /// writable by the group [`DOCKER_GID`].
    socket: std::os::unix::net::UnixListener,
    /// A datagram unix socket outside the workspace (the stand-in for journald's
    /// `/dev/log` or a service's notify socket), writable by the group [`DOCKER_GID`].
    dgram: std::os::unix::net::UnixDatagram,
    /// A file in the machine's `/dev/shm` that subject processes must not read.
    shm_probe: PathBuf,
    /// A name in `/dev/shm` subject processes try to create.
    shm_planted: PathBuf,
    /// A file an earlier step (or another run) left in the machine's `/tmp`.
    shared_tmp_probe: PathBuf,
    /// `.git/config` before the run.
    git_config: Vec<u8>,
}

/// The SysV shared memory key of the runner's segment; the subject tries key + 1.
const SHM_KEY: i32 = 0x4a43_4946;

/// The group of the stand-in Docker socket (hosted runners put the runner user in `docker`).
const DOCKER_GID: u32 = 12345;

/// The SysV shared memory segment at `key`, if one exists.
fn shm_segment(key: i32) -> Option<i32> {
    // SAFETY: shmget looks a key up.
    let id = unsafe { libc::shmget(key, 0, 0) };
    (id >= 0).then_some(id)
}

impl Drop for Scenario {
    fn drop(&mut self) {
        for key in [SHM_KEY, SHM_KEY + 1] {
            if let Some(id) = shm_segment(key) {
                // SAFETY: removes a segment this test made.
                unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
            }
        }
        let _ = std::fs::remove_file(&self.shm_probe);
        let _ = std::fs::remove_file(&self.shared_tmp_probe);
        let _ = std::fs::remove_file(&self.shm_planted);
    }
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
    /// judge-ci's PATH: two toolchains of the runner's installation first.
    fn path(&self) -> String {
        let i = self.install.path().display();
        format!(
            "{i}/externals/fence-tool/bin:{i}/bin:{}",
            std::env::var("PATH").unwrap_or_default()
        )
    }
    fn socket_path(&self) -> PathBuf {
        self.root.path().join("run/docker.sock")
    }
    fn dgram_path(&self) -> PathBuf {
        self.root.path().join("run/log.sock")
    }
    /// Datagrams the datagram socket received.
    fn datagrams(&self) -> usize {
        self.dgram.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 64];
        std::iter::from_fn(|| self.dgram.recv(&mut buf).ok()).count()
    }
    /// Connections the socket accepted.
    fn socket_connections(&self) -> usize {
        self.socket.set_nonblocking(true).unwrap();
        std::iter::from_fn(|| self.socket.accept().ok()).count()
    }
}

/// A block device of this machine (what a root subject must not read raw).
fn block_device() -> PathBuf {
    std::fs::read_dir("/dev")
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            use std::os::unix::fs::FileTypeExt;
            std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device())
                && std::fs::File::open(p).is_ok()
        })
        .min()
        .expect("a block device in /dev that root can read")
}

/// A connect to the unix socket at the path given as its argument; exits 0 when connected.
const CONNECT: &str = "perl -e 'use Socket; socket(S, PF_UNIX, SOCK_STREAM, 0) or exit 3; connect(S, pack_sockaddr_un($ARGV[0])) or exit 4; exit 0'";

/// A datagram sent to the unix socket at the path given as its argument through a
/// datagram socket pair re-connected there (attack finding F22: `socket(AF_UNIX)` refused,
/// `socketpair` not); exits 0 when sent.
const SEND_DGRAM: &str = "perl -e 'use Socket; socketpair(A, B, AF_UNIX, SOCK_DGRAM, 0) or exit 3; connect(A, pack_sockaddr_un($ARGV[0])) or exit 4; send(A, \"DGRAM\", 0) or exit 5; exit 0'";

/// A command check for an attack: the shell expands globs (`glob: true`), so an attack that
/// walks `/proc/$$/fd/*` or a temporary folder's `judge-ci-rev-*` really does.
fn check(name: &str, run: &str) -> String {
    format!(
        "        - type: command\n          name: {name}\n          glob: true\n          run: {}\n          timeout: PT60S\n",
        serde_json::to_string(run).unwrap()
    )
}

/// The blob id git gives `text`.
fn blob_id(text: &str) -> String {
    use std::io::Write;
    let mut c = Command::new("git")
        .args(["hash-object", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    c.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    common::stdout(&c.wait_with_output().unwrap())
        .trim()
        .to_string()
}

fn scenario(extra_checks: &str) -> Scenario {
    // As a self-hosted runner installed outside any home folder lays it out (attack finding
    // FE4): /opt/<runner>/{.credentials,.runner,_diag/,bin/,_work/<repo>/<checkout>}.
    std::fs::create_dir_all("/opt").unwrap();
    let install = tempfile::Builder::new()
        .prefix("judge-ci-fence-runner-")
        .tempdir_in("/opt")
        .unwrap();
    let work = install.path().join("_work");
    std::fs::create_dir_all(&work).unwrap();
    for d in [install.path(), &work] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    common::write_tree(
        install.path(),
        &[
            (".credentials", "RUNNER-CREDENTIALS"),
            (".runner", "RUNNER-REGISTRATION"),
            ("_diag/Worker_1.log", "RUNNER-DIAG-LOG"),
            ("bin/runner-tool", "#!/bin/sh\necho RUNNER-TOOL\n"),
            (
                "externals/fence-tool/bin/fence-tool",
                "#!/bin/sh\ncat \"$(dirname \"$0\")/../lib/data.txt\"\n",
            ),
            ("externals/fence-tool/lib/data.txt", "FENCE-TOOL-LIB\n"),
        ],
    );
    for t in ["bin/runner-tool", "externals/fence-tool/bin/fence-tool"] {
        std::fs::set_permissions(
            install.path().join(t),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    let root = tempfile::tempdir_in(&work).unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(root.path().join("run")).unwrap();
    let socket =
        std::os::unix::net::UnixListener::bind(root.path().join("run/docker.sock")).unwrap();
    let dgram = std::os::unix::net::UnixDatagram::bind(root.path().join("run/log.sock")).unwrap();
    for name in ["run/docker.sock", "run/log.sock"] {
        let sock = root.path().join(name);
        std::os::unix::fs::chown(&sock, Some(0), Some(DOCKER_GID)).unwrap();
        std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o660)).unwrap();
    }
    let tag = root
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let shm_probe = PathBuf::from(format!("/dev/shm/judge-ci-fence-probe{tag}"));
    std::fs::write(&shm_probe, "SHM-SECRET").unwrap();
    std::fs::set_permissions(&shm_probe, std::fs::Permissions::from_mode(0o644)).unwrap();
    let shm_planted = PathBuf::from(format!("/dev/shm/judge-ci-fence-planted{tag}"));
    let shared_tmp_probe = PathBuf::from(format!("/tmp/judge-ci-fence-left{tag}.txt"));
    std::fs::write(&shared_tmp_probe, "LEFT-IN-TMP").unwrap();
    std::fs::set_permissions(&shared_tmp_probe, std::fs::Permissions::from_mode(0o644)).unwrap();
    // The runner's SysV segment (readable by everyone, as a careless program leaves it).
    // SAFETY: shmget creates a segment, removed when the scenario is dropped.
    assert!(unsafe { libc::shmget(SHM_KEY, 64, 0o666 | libc::IPC_CREAT) } >= 0);
    let mut s = Scenario {
        root,
        install,
        socket,
        dgram,
        shm_probe,
        shm_planted,
        shared_tmp_probe,
        git_config: Vec::new(),
    };
    for d in [
        s.ws(),
        s.tmp(),
        s.home(),
        s.victim().parent().unwrap().into(),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(s.victim(), "A=1\n").unwrap();
    // What a suite's task folder holds beside its workspace (attack finding FE2).
    common::write_tree(
        s.root.path(),
        &[
            ("task.yaml", "id: t\n# TASK-FILE-SECRET\n"),
            ("hidden-tests/HiddenTest.java", "// HIDDEN-TEST-SECRET\n"),
        ],
    );
    // What an earlier step left in judge-ci's temporary folder and in $RUNNER_TEMP.
    std::fs::write(s.tmp().join("left-by-earlier-step.txt"), "EARLIER-STEP").unwrap();
    std::fs::write(s.victim().with_file_name("event.json"), "RUNNER-TEMP").unwrap();
    // What earlier steps of a job leave in the home folder, and a build cache.
    common::write_tree(
        &s.home(),
        &[
            (
                ".docker/config.json",
                "{\"auths\":{\"x\":{\"auth\":\"DOCKER-SECRET\"}}}",
            ),
            (".git-credentials", "https://x:GIT-SECRET@github.com\n"),
            (".m2/repository/ok/ok.txt", "CACHED"),
            (
                ".m2/settings.xml",
                "<settings><servers><server><id>x</id><password>M2-SECRET</password></server></servers></settings>\n",
            ),
            (
                ".gradle/gradle.properties",
                "signing.password=GRADLE-SECRET\n",
            ),
        ],
    );
    let home = s.home().display().to_string();
    let m2 = format!("{home}/.m2/repository");
    let install = s.install.path().display().to_string();
    let secret_blob = blob_id("THE-HIDDEN-REFERENCE\n");
    let checks = [
        // Attack findings FE2, FE4, N8, N14, N16: reads are an allow-list. Nothing beside
        // the workspace (a suite task's task.yaml and hidden tests), nothing of a runner
        // installed outside the home folder, not Maven's settings with their passwords.
        check(
            "read-beyond-the-workspace",
            &format!(
                "! cat ../task.yaml 2>/dev/null && ! cat ../hidden-tests/HiddenTest.java 2>/dev/null && ! ls .. >/dev/null 2>&1 && ! cat {install}/.credentials 2>/dev/null && ! cat {install}/.runner 2>/dev/null && ! cat {install}/_diag/Worker_1.log 2>/dev/null && ! ls {install} >/dev/null 2>&1 && ! grep -q M2-SECRET {home}/.m2/settings.xml 2>/dev/null && ! ls /opt >/dev/null 2>&1"
            ),
        ),
        // What the run needs stays: the toolchains on PATH (one whose folder's parent holds
        // the runner's installation: that folder alone), the JDK, git, /etc.
        check(
            "toolchains-stay-readable",
            "[ \"$(fence-tool)\" = FENCE-TOOL-LIB ] && [ \"$(runner-tool)\" = RUNNER-TOOL ] && java -version >/dev/null 2>&1 && git --version >/dev/null && head -c1 /etc/passwd >/dev/null",
        ),
        // Attack findings FE1, NC6, N5/N6, F24: the reference is a branch of the workspace's
        // own repository; its objects are not the subject's to read through git, while git
        // still works on the checkout.
        check(
            "read-the-reference-through-git",
            &format!(
                "! git show solution:Secret.txt >/dev/null 2>&1 && ! git cat-file -e {secret_blob} 2>/dev/null && ! git rev-parse -q --verify solution >/dev/null && git rev-parse HEAD >/dev/null && git log --oneline -1 >/dev/null && git status --porcelain >/dev/null"
            ),
        ),
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
        // trust.md 21: .git is read-only to subject code (a core.fsmonitor or a hook
        // would run in the job's next git command, outside the fence).
        check(
            "git-config-and-hooks",
            "! git config --local core.fsmonitor \"touch $PWD/../FSMONITOR-RAN\" 2>/dev/null && ! sh -c 'printf \"#!/bin/sh\\ntouch ../HOOK-RAN\\n\" > .git/hooks/post-checkout' 2>/dev/null",
        ),
        // Attack finding F13: the checkout's token in .git/config is not the subject's to
        // read (a copy without it covers the file).
        check(
            "git-config-token",
            "! grep -q FENCECHECKOUT .git/config && ! git config --get-regexp 'extraheader' | grep -q FENCECHECKOUT && git config --get core.bare >/dev/null",
        ),
        // Attack findings E7-3, E7-7: nor is a submodule checkout's token, one in a
        // rewriting rule's name, or one in a file the configuration includes.
        check(
            "git-config-tokens-elsewhere",
            "! grep -rqs FENCESUBMODULE .git/modules && ! grep -q FENCEINSTEADOF .git/config && ! grep -qs FENCEINCLUDED .git/extra.inc",
        ),
        // Attack finding s3 N10: folders the subject locks in its private temporary folder
        // and HOME do not keep them (and what the caches' overlays took) on the runner.
        check(
            "lock-the-private-temporary-folder",
            "mkdir -p \"$TMPDIR/keep/inner\" \"$HOME/h/x\" && chmod 000 \"$TMPDIR/keep\" \"$HOME/h\"",
        ),
        // The Docker socket (a unix socket outside the workspace) cannot be reached.
        check(
            "unix-socket-outside",
            &format!("! {CONNECT} {}", s.socket_path().display()),
        ),
        // A datagram socket outside (journald's /dev/log, say) is not reachable either.
        check(
            "unix-datagram-socket-outside",
            &format!("! {SEND_DGRAM} {}", s.dgram_path().display()),
        ),
        // Attack findings F10, F18, F19: what earlier steps, other runs and judge-ci left in
        // the shared temporary folders and $RUNNER_TEMP is out of reach, listing or not.
        check(
            "shared-temporary-folders-are-private",
            &format!(
                "! cat {tmp}/left-by-earlier-step.txt 2>/dev/null && ! cat {probe} 2>/dev/null && ! ls /tmp >/dev/null 2>&1 && ! cat {runner}/event.json 2>/dev/null && ! cat {runner}/github_env 2>/dev/null",
                tmp = s.tmp().display(),
                probe = s.shared_tmp_probe.display(),
                runner = s.victim().parent().unwrap().display(),
            ),
        ),
        check(
            "make-device-nodes",
            "! mknod ./null-node c 1 3 2>/dev/null; ! mknod ./disk-node b 8 0 2>/dev/null; [ ! -e null-node ] && [ ! -e disk-node ]",
        ),
        check(
            "read-a-raw-block-device",
            &format!("! head -c 512 {} >/dev/null 2>&1", block_device().display()),
        ),
        check("read-etc-shadow", "! head -c1 /etc/shadow >/dev/null 2>&1"),
        check(
            "capabilities",
            "grep -Eq '^CapEff:[[:space:]]+0+$' /proc/self/status && grep -Eq '^CapPrm:[[:space:]]+0+$' /proc/self/status && grep -Eq '^CapBnd:[[:space:]]+0+$' /proc/self/status",
        ),
        check(
            "dev-shm-is-private",
            &format!(
                "! cat {} 2>/dev/null && [ ! -e {} ] && echo planted > {}",
                s.shm_probe.display(),
                s.shm_probe.display(),
                s.shm_planted.display()
            ),
        ),
        // SysV shared memory: the runner's segment is out of sight, the subject's own dies
        // with it.
        check(
            "sysv-ipc-is-private",
            &format!(
                "perl -e 'exit(defined(shmget({SHM_KEY}, 0, 0)) ? 1 : 0)' && perl -e 'exit(defined(shmget({}, 64, 0666 | 01000)) ? 0 : 1)'",
                SHM_KEY + 1
            ),
        ),
        check(
            "home-is-private",
            &format!(
                "[ \"$HOME\" != {home} ] && ! cat {home}/.docker/config.json 2>/dev/null && ! cat {home}/.git-credentials 2>/dev/null && ! ls {home} >/dev/null 2>&1 && [ \"$(cat {m2}/ok/ok.txt)\" = CACHED ] && ! grep -q SECRET {home}/.gradle/gradle.properties"
            ),
        ),
        // Written in the run's view of the caches (the build may write there), gone after.
        check(
            "plant-in-the-build-caches",
            &format!(
                "mkdir -p {m2}/junit/junit/4.13.2 {home}/.gradle/init.d && echo TROJAN > {m2}/junit/junit/4.13.2/junit-4.13.2.jar && echo 'println \"evil\"' > {home}/.gradle/init.d/evil.gradle && [ \"$(cat {m2}/junit/junit/4.13.2/junit-4.13.2.jar)\" = TROJAN ]"
            ),
        ),
        extra_checks.to_string(),
    ]
    .concat();
    let config = format!(
        "schema: judge-ci.v1\nname: fence\nversion: \"1\"\nreference:\n  ref: solution\nsandbox:\n  require: [hidden-reference]\njury:\n  tiers:\n    - name: attacks\n      policy: FINAL_TIER\n      voting: {{strategy: all-must-pass}}\n      checks:\n{checks}"
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
    // What actions/checkout leaves behind: the job's token in .git/config (F13).
    git(
        &s.ws(),
        &[
            "config",
            "--local",
            "http.https://github.com/.extraheader",
            "AUTHORIZATION: basic ghs_FENCECHECKOUTTOKEN",
        ],
    );
    // A submodule checkout's token, a token in an insteadOf rule's name, an included file.
    git(
        &s.ws(),
        &[
            "config",
            "--local",
            "url.https://x-access-token:ghs_FENCEINSTEADOF@github.com/.insteadOf",
            "https://github.com/",
        ],
    );
    git(&s.ws(), &["config", "--local", "include.path", "extra.inc"]);
    common::write_tree(
        &s.ws(),
        &[
            (
                ".git/modules/sub/config",
                "[core]\n\tbare = false\n[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic ghs_FENCESUBMODULE\n",
            ),
            (
                ".git/extra.inc",
                "[http]\n\tproxy = http://user:FENCEINCLUDED@proxy.invalid:3128\n",
            ),
        ],
    );
    s.git_config = std::fs::read(s.ws().join(".git/config")).unwrap();
    assert!(String::from_utf8_lossy(&s.git_config).contains("FENCECHECKOUTTOKEN"));
    s
}

/// The attacks work outside the fence, for the same user: the controls that make the
/// checks inside mean something.
fn controls(s: &Scenario, uid: Option<u32>) {
    let as_user = |line: &str| {
        let mut c = match uid {
            Some(u) => {
                let mut c = Command::new("setpriv");
                c.args([
                    format!("--reuid={u}"),
                    format!("--regid={u}"),
                    format!("--groups={DOCKER_GID}"),
                    "--".to_string(),
                    "sh".to_string(),
                ]);
                c
            }
            None => Command::new("sh"),
        };
        c.args(["-c", line]).status().unwrap().success()
    };
    assert!(
        as_user(&format!("{CONNECT} {}", s.socket_path().display())),
        "the socket is reachable outside the fence"
    );
    assert_eq!(s.socket_connections(), 1);
    assert!(
        as_user(&format!("{SEND_DGRAM} {}", s.dgram_path().display())),
        "the datagram socket is reachable outside the fence"
    );
    assert_eq!(s.datagrams(), 1);
    assert!(as_user(&format!(
        "cat {} >/dev/null",
        s.shm_probe.display()
    )));
    assert!(as_user(&format!(
        "cat {}/.docker/config.json >/dev/null",
        s.home().display()
    )));
    assert!(as_user(&format!(
        "cat {} {}/left-by-earlier-step.txt {}/event.json >/dev/null",
        s.shared_tmp_probe.display(),
        s.tmp().display(),
        s.victim().parent().unwrap().display()
    )));
    assert!(
        as_user(&format!(
            "grep -q FENCESUBMODULE {ws}/.git/modules/sub/config && grep -q FENCEINSTEADOF {ws}/.git/config && grep -q FENCEINCLUDED {ws}/.git/extra.inc",
            ws = s.ws().display()
        )),
        "the tokens elsewhere in git's configuration are readable outside the fence"
    );
    assert!(
        as_user(&format!(
            "grep -q FENCECHECKOUT {}/.git/config",
            s.ws().display()
        )),
        "the checkout's token is readable outside the fence"
    );
    let install = s.install.path().display();
    assert!(
        as_user(&format!(
            "cd {} && cat ../task.yaml ../hidden-tests/HiddenTest.java {install}/.credentials {install}/_diag/Worker_1.log {}/.m2/settings.xml >/dev/null && ls .. {install} >/dev/null && git show solution:Secret.txt | grep -q THE-HIDDEN-REFERENCE",
            s.ws().display(),
            s.home().display()
        )),
        "the runner's installation, the workspace's neighbours, Maven's settings and the reference through git are readable outside the fence"
    );
    if uid.is_none() {
        assert!(as_user(&format!(
            "head -c 512 {} >/dev/null",
            block_device().display()
        )));
    }
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
                // In the "docker" group, as the runner user of a hosted runner is.
                &format!("--groups={DOCKER_GID}"),
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
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
        .env("NO_COLOR", "1")
        .env("TMPDIR", s.tmp())
        .env("HOME", s.home())
        .env("RUNNER_TEMP", s.victim().parent().unwrap())
        .env("RUNNER_WORKSPACE", s.root.path())
        .env("PATH", s.path())
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
    // The effects, checked from outside.
    assert_eq!(
        s.socket_connections(),
        0,
        "a subject process reached the socket"
    );
    assert_eq!(
        s.datagrams(),
        0,
        "a subject process sent to the datagram socket"
    );
    assert!(
        !s.shm_planted.exists(),
        "a subject process wrote the machine's /dev/shm"
    );
    let m2 = s.home().join(".m2/repository");
    assert!(
        !m2.join("junit/junit/4.13.2/junit-4.13.2.jar").exists()
            && !s.home().join(".gradle/init.d/evil.gradle").exists(),
        "what a subject process planted in the build caches survived the run"
    );
    assert_eq!(
        std::fs::read(s.ws().join(".git/config")).unwrap(),
        s.git_config,
        ".git/config as before the run"
    );
    assert!(!s.ws().join(".git/hooks/post-checkout").exists());
    let left: Vec<String> = std::fs::read_dir(s.tmp())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("judge-ci-tmp-"))
        .collect();
    assert!(
        left.is_empty(),
        "private temporary folders outlived the run: {left:?}"
    );
    // The job's next git command (the checkout action's clean-up) runs nothing planted.
    let status = Command::new("git")
        .args(["-c", "safe.directory=*", "status", "--porcelain"])
        .current_dir(s.ws())
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", common::stderr(&status));
    assert!(
        !s.root.path().join("FSMONITOR-RAN").exists(),
        "core.fsmonitor ran"
    );
    let failed: Vec<String> = report["tiers"][0]["judges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["status"] != "pass")
        .map(|j| format!("{} ({}): {}", j["name"], j["status"], j))
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
    // The scenario's reference is a branch of the workspace's own repository (attack
    // findings F1, FE1): subject processes see a copy of it with HEAD's objects alone.
    assert!(
        fence.contains("reference hidden (the workspace's git objects: HEAD's alone)")
            && !fence.contains("can read them through git"),
        "{fence}"
    );
    // What was granted beyond the system folders is named, and what was not granted whole.
    let install = s.install.path().display();
    assert!(
        fence.contains(&format!(
            "readable beyond the system folders: {install}/externals/fence-tool (PATH)"
        )) && fence.contains(&format!("{install}/bin (PATH; not its parent {install}: ")),
        "{fence}"
    );
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
    controls(&s, None);
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
        "u=\"$(./suid/id -u)\" && [ -n \"$u\" ] && [ \"$u\" != 0 ]",
    ));
    for p in [
        s.ws(),
        s.tmp(),
        s.home(),
        s.victim().parent().unwrap().to_path_buf(),
    ] {
        chown_tree(&p, NOBODY);
    }
    // In the workspace (nothing outside it is readable), root's, after the chown.
    let suid = s.ws().join("suid");
    std::fs::create_dir_all(&suid).unwrap();
    std::fs::copy("/usr/bin/id", suid.join("id")).unwrap();
    std::fs::set_permissions(suid.join("id"), std::fs::Permissions::from_mode(0o4755)).unwrap();
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
    controls(&s, Some(NOBODY));
    let fence = judge_and_check(&s, Some(NOBODY));
    eprintln!("fence as an unprivileged user: {fence}");
    assert!(fence.contains("landlock ABI"), "{fence}");
}

/// Runs judge-ci on a one-check config in a fresh repository and returns the check's status.
fn command_status(sandbox: &str, run: &str) -> String {
    let root = tempfile::tempdir().unwrap();
    command_report(root.path(), None, sandbox, run)["tiers"][0]["judges"][0]["status"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Runs judge-ci (with `home` as its `HOME` when given) on a one-check config in a fresh
/// repository under `root`; returns the report.
fn command_report(root: &Path, home: Option<&Path>, sandbox: &str, run: &str) -> serde_json::Value {
    let ws = root.join("ws");
    let config = format!(
        "schema: judge-ci.v1\nname: net\nversion: \"1\"\n{sandbox}jury:\n  checks:\n{}",
        check("reach", run)
    );
    common::write_tree(&ws, &[("judge-ci.yml", &config)]);
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "subject"]);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_judge-ci"));
    cmd.current_dir(&ws)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
        .env("NO_COLOR", "1")
        .env("TMPDIR", root);
    if let Some(h) = home {
        cmd.env("HOME", h);
    }
    let o = cmd.output().unwrap();
    let report = common::report(&ws.join("judge-ci-out"));
    assert!(
        report["tiers"][0]["judges"][0]["status"].is_string(),
        "no status: {}\n{report}",
        common::stderr(&o)
    );
    report
}

#[test]
fn a_layer_sandbox_require_names_that_does_not_hold_is_an_error_not_a_downgrade() {
    assert!(is_root(), "run the tests as root");
    // overlayfs cannot name a folder with a comma in its options: the cache overlay does
    // not hold for a home folder so named, and the caches are made read-only instead.
    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("ho,me");
    let m2 = home.join(".m2/repository");
    std::fs::create_dir_all(&m2).unwrap();
    let plant = format!(
        "! sh -c 'echo TROJAN > {}/junit.jar' 2>/dev/null",
        m2.display()
    );
    let report = command_report(root.path(), Some(&home), "", &plant);
    let fence = report["fence"].as_str().unwrap();
    assert_eq!(
        report["tiers"][0]["judges"][0]["status"], "pass",
        "the read-only cache refused the plant: {fence}"
    );
    assert!(!m2.join("junit.jar").exists());
    assert!(
        fence.contains("not available:")
            && fence.contains("cache-overlay (the caches are read-only instead"),
        "the fence line names the layer that did not hold: {fence}"
    );

    let root = tempfile::tempdir().unwrap();
    let home = root.path().join("ho,me");
    std::fs::create_dir_all(home.join(".m2/repository")).unwrap();
    let report = command_report(
        root.path(),
        Some(&home),
        "sandbox:\n  require: [cache-overlay, landlock]\n",
        "touch ran",
    );
    let judge = &report["tiers"][0]["judges"][0];
    assert_eq!(judge["status"], "error", "{report}");
    let why = report.to_string();
    assert!(
        why.contains("sandbox.require names cache-overlay, which did not hold"),
        "{why}"
    );
    assert!(
        !root.path().join("ws/ran").exists(),
        "the program did not start"
    );
}

#[test]
fn with_sandbox_network_false_the_docker_socket_is_still_out_of_reach() {
    assert!(is_root(), "run the tests as root");
    let root = tempfile::tempdir().unwrap();
    let sock = root.path().join("docker.sock");
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    listener.set_nonblocking(true).unwrap();
    let run = format!("! {CONNECT} {}", sock.display());
    // The control: the same connect from outside arrives.
    assert!(
        Command::new("sh")
            .args(["-c", &run[2..]])
            .status()
            .unwrap()
            .success()
    );
    assert_eq!(std::iter::from_fn(|| listener.accept().ok()).count(), 1);
    let report = command_report(root.path(), None, "sandbox:\n  network: false\n", &run);
    assert_eq!(
        report["tiers"][0]["judges"][0]["status"], "pass",
        "the subject connected: {report}"
    );
    assert_eq!(std::iter::from_fn(|| listener.accept().ok()).count(), 0);
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

#[test]
fn no_subject_process_reads_a_reference_folder_of_its_own_or_of_another_suite_task() {
    // trust.md 13/23: a suite's tasks hold their references beside their workspaces; task a's
    // check prints its own and task b's answer key, which would land in the report. Attack
    // finding FE2: and the task files around the workspace (expected values, hidden tests),
    // the other tasks' workspaces, the benchmark file. Outside the shared temporary folders
    // (hidden whole), as a checkout is.
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let tmp = root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let bench = root.path().join("bench");
    let config = "schema: bench.benchmark.v1\nname: b\n# ANSWER-KEY-benchmark-file\njury:\n  tiers:\n    - {name: t, policy: FINAL_TIER, checks: [{type: command, name: ok, run: \"sh ./check.sh\"}]}\n";
    let mut files = vec![("benchmark.yaml".to_string(), config.to_string())];
    for t in ["a", "b"] {
        files.push((
            format!("tasks/{t}/task.yaml"),
            format!("id: {t}\ninstruction: x\n# ANSWER-KEY-task-file-{t}\n"),
        ));
        files.push((
            format!("tasks/{t}/hidden-tests/HiddenTest.java"),
            format!("// ANSWER-KEY-hidden-test-{t}\n"),
        ));
        files.push((
            format!("tasks/{t}/reference/Solution.java"),
            format!("ANSWER-KEY-{t}\n"),
        ));
        files.push((
            format!("tasks/{t}/workspace/check.sh"),
            "echo \"own: $(cat ../reference/Solution.java) other: $(cat ../../a/reference/Solution.java) $(cat ../../b/reference/Solution.java) around: $(cat ../task.yaml ../hidden-tests/HiddenTest.java ../../b/task.yaml ../../b/hidden-tests/HiddenTest.java ../../../benchmark.yaml) $(ls ../../b/workspace)\"; exit 1\n".to_string(),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    common::write_tree(&bench, &refs);
    // The control: outside the fence the script reads both keys.
    let control = Command::new("sh")
        .arg("check.sh")
        .current_dir(bench.join("tasks/a/workspace"))
        .output()
        .unwrap();
    let control = common::stdout(&control);
    assert!(
        control.contains("ANSWER-KEY-b")
            && control.contains("ANSWER-KEY-task-file-a")
            && control.contains("ANSWER-KEY-hidden-test-b")
            && control.contains("ANSWER-KEY-benchmark-file"),
        "{control}"
    );
    let out = root.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_judge-ci"))
        .args(["suite"])
        .arg(&bench)
        .arg("--out")
        .arg(&out)
        .arg("-q")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    let mut seen = 0;
    for e in walkdir::WalkDir::new(&out).into_iter().flatten() {
        if e.file_type().is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned();
            assert!(
                !text.contains("ANSWER-KEY"),
                "{} holds a reference's text:\n{text}",
                e.path().display()
            );
            seen += text.contains("own: ") as usize;
        }
    }
    assert!(
        seen > 0,
        "the check ran and its output was reported: {}",
        common::stderr(&o)
    );

    // The same for a single run whose config names a local reference folder.
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    common::write_tree(
        root.path(),
        &[
            ("reference/Solution.java", "ANSWER-KEY-local\n"),
            (
                "ws/judge-ci.yml",
                &format!(
                    "schema: judge-ci.v1\nname: r\nversion: \"1\"\nreference:\n  path: ../reference\njury:\n  checks:\n{}",
                    check("read", "cat ../reference/Solution.java; exit 1")
                ),
            ),
        ],
    );
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "subject"]);
    let o = Command::new(env!("CARGO_BIN_EXE_judge-ci"))
        .current_dir(&ws)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
        .env("TMPDIR", root.path())
        .output()
        .unwrap();
    let report = std::fs::read_to_string(ws.join("judge-ci-out/report.json"))
        .unwrap_or_else(|_| panic!("no report: {}", common::stderr(&o)));
    assert!(report.contains("\"read\""), "{report}");
    assert!(!report.contains("ANSWER-KEY-local"), "{report}");
}

/// A perl program that execs its arguments with `unshare(2)` refused (EPERM), as on a
/// runner that forbids user namespaces (x86_64 system call numbers).
const NO_NAMESPACES: &str = r#"
my @f = ([0x20,0,0,4], [0x15,0,3,0xc000003e], [0x20,0,0,0], [0x15,0,1,272],
         [0x06,0,0,0x00050001], [0x06,0,0,0x7fff0000]);
my $prog = join "", map { pack("SCCL", @$_) } @f;
syscall(157, 38, 1, 0, 0, 0) == 0 or die "no_new_privs: $!";
syscall(157, 22, 2, pack("S x6 P", scalar(@f), $prog), 0, 0) == 0 or die "seccomp: $!";
exec @ARGV or die "exec: $!";
"#;

/// A one-check workspace under `root` whose check runs `run`; returns the workspace.
fn one_check_workspace(root: &Path, run: &str) -> PathBuf {
    let ws = root.join("ws");
    let config = format!(
        "schema: judge-ci.v1\nname: outlive\nversion: \"1\"\njury:\n  checks:\n{}",
        check("outlive", run)
    );
    common::write_tree(&ws, &[("judge-ci.yml", &config)]);
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "subject"]);
    ws
}

/// Attack finding F14: judge-ci killed with SIGKILL (a cancelled job's escalation, the OOM
/// killer) left the subject's processes running in their PID namespace. The namespace now
/// dies with judge-ci, as root and as an unprivileged user.
#[test]
fn subject_processes_die_with_judge_ci_when_it_is_killed() {
    assert!(
        is_root(),
        "run the tests as root (the unprivileged half uses setpriv)"
    );
    for uid in [None, Some(NOBODY)] {
        let root = tempfile::tempdir().unwrap();
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let ws = one_check_workspace(
            root.path(),
            "touch started; sleep 4; echo SURVIVED > survived.txt",
        );
        let bin = env!("CARGO_BIN_EXE_judge-ci");
        let mut cmd = match uid {
            Some(u) => {
                chown_tree(root.path(), u);
                let mut c = Command::new("setpriv");
                c.args([
                    &format!("--reuid={u}"),
                    &format!("--regid={u}"),
                    "--clear-groups",
                    bin,
                ]);
                c
            }
            None => Command::new(bin),
        };
        let mut judge = cmd
            .current_dir(&ws)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_EVENT_PATH")
            .env_remove("GITHUB_EVENT_NAME")
            .env("TMPDIR", root.path())
            .env("HOME", root.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let t = std::time::Instant::now();
        while !ws.join("started").exists() && t.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(ws.join("started").exists(), "the subject started");
        judge.kill().unwrap();
        judge.wait().unwrap();
        std::thread::sleep(std::time::Duration::from_secs(6));
        assert!(
            !ws.join("survived.txt").exists(),
            "a subject process outlived judge-ci's SIGKILL (uid {uid:?})"
        );
    }
}

/// Attack finding F5: where no PID namespace can be made, a `setsid` helper that left the
/// check's process group outlived judge-ci and rewrote the report after it exited. Now
/// judge-ci is the subreaper of its subject processes and kills their orphans before the
/// report is written; the fence line says so.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "the no-namespace wrapper uses x86_64 system call numbers"
)]
fn without_a_pid_namespace_a_setsid_helper_does_not_outlive_its_step() {
    assert!(is_root(), "run the tests as root");
    let root = tempfile::tempdir().unwrap();
    let ws = one_check_workspace(
        root.path(),
        "( setsid sh -c 'sleep 2; echo FORGED > judge-ci-out/report.json; echo FORGED > late.txt' >/dev/null 2>&1 </dev/null & ); sleep 0.5",
    );
    let wrapper = root.path().join("no-namespaces.pl");
    std::fs::write(&wrapper, NO_NAMESPACES).unwrap();
    let o = Command::new("perl")
        .arg(&wrapper)
        .arg(env!("CARGO_BIN_EXE_judge-ci"))
        .current_dir(&ws)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
        .env("NO_COLOR", "1")
        .env("TMPDIR", root.path())
        .output()
        .unwrap();
    let stderr = common::stderr(&o);
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert!(
        !ws.join("late.txt").exists(),
        "the helper outlived the run: {stderr}"
    );
    let report = common::report(&ws.join("judge-ci-out"));
    let fence = report["fence"].as_str().unwrap_or_default();
    assert!(
        fence.contains("not available: pid namespace"),
        "emulated: {fence}\n{stderr}"
    );
    assert!(
        fence.contains("no subject process outlived its step") && !fence.contains("0 killed"),
        "the fence line says the helper was swept: {fence}"
    );
    assert_eq!(o.status.code(), Some(0), "{stderr}");
}

#[test]
fn in_a_pull_request_the_checkouts_own_reference_folder_is_hidden_too() {
    // Attack finding newer F1: in a pull-request run the reference is judged from the base's
    // copy (written out by judge-ci, hidden), but the checkout's own `reference/` folder
    // beside the workspace — the one the config names — was readable by subject code.
    // Outside the shared temporary folders (hidden whole), as a runner's checkout is.
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let repo = root.path().join("repo");
    let config = format!(
        "schema: judge-ci.v1\nname: r\nversion: \"1\"\nreference:\n  path: ../reference\njury:\n  checks:\n{}",
        check("read", "cat ../reference/Solution.java; exit 1")
    );
    common::write_tree(
        &repo,
        &[
            ("reference/Solution.java", "ANSWER-KEY-pr\n"),
            ("workspace/judge-ci.yml", &config),
            ("workspace/App.java", "class App {}\n"),
        ],
    );
    let base = common::commit_all(&repo, "base");
    common::write_tree(&repo, &[("workspace/App.java", "class App { int x; }\n")]);
    let head = common::commit_all(&repo, "the pull request");
    let runner = root.path().join("runner");
    std::fs::create_dir_all(&runner).unwrap();
    let event = common::pull_request_event(&runner, &base, &head);
    let out = runner.join("out");
    let ws = repo.join("workspace");
    let tmp = root.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // The control: outside the fence the check's command reads the key.
    let control = Command::new("sh")
        .args(["-c", "cat ../reference/Solution.java"])
        .current_dir(&ws)
        .output()
        .unwrap();
    assert!(common::stdout(&control).contains("ANSWER-KEY-pr"));
    let o = Command::new(env!("CARGO_BIN_EXE_judge-ci"))
        .args(["--dry-run", "-q", "--out"])
        .arg(&out)
        .current_dir(&ws)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "Codertocat/Hello-World")
        .env("GITHUB_SERVER_URL", "https://github.com")
        .env("GITHUB_RUN_ID", "31337")
        .env("GITHUB_STEP_SUMMARY", runner.join("summary.md"))
        .env("GITHUB_OUTPUT", runner.join("output.txt"))
        .env("RUNNER_TEMP", &runner)
        .env("TMPDIR", &tmp) // not the repository's parent: the shared temporary folder is hidden whole
        .env_remove("GITHUB_TOKEN")
        .env_remove("GH_TOKEN")
        .output()
        .unwrap();
    let report = std::fs::read_to_string(out.join("report.json"))
        .unwrap_or_else(|_| panic!("no report: {}", common::stderr(&o)));
    assert!(report.contains("\"read\""), "{report}");
    assert!(
        report.contains("\"commit\""),
        "the config came from the base: {report}"
    );
    assert!(!report.contains("ANSWER-KEY-pr"), "{report}");
}

/// Attack finding FE3: a `reference: {path: …}` folder committed in the same repository as
/// the workspace (a subfolder of it) was hidden as a folder, but subject code read it with
/// `git show HEAD:reference/…` through the repository's `.git` in the workspace's parent.
/// Nothing above the workspace is readable now; `sandbox.require: [hidden-reference]` holds.
/// As root and as an unprivileged user.
#[test]
fn a_reference_folder_committed_beside_the_workspace_is_not_readable_through_git() {
    assert!(
        is_root(),
        "run the tests as root (the unprivileged half uses setpriv)"
    );
    for uid in [None, Some(NOBODY)] {
        let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let repo = root.path().join("repo");
        let read = "! git show HEAD:reference/SECRET.txt 2>/dev/null && ! git -C .. show HEAD:reference/SECRET.txt 2>/dev/null && ! cat ../reference/SECRET.txt 2>/dev/null && ! cat ../.git/HEAD 2>/dev/null";
        let config = format!(
            "schema: judge-ci.v1\nname: r\nversion: \"1\"\nreference:\n  path: ../reference\nsandbox:\n  require: [hidden-reference]\njury:\n  checks:\n{}",
            check("read", read)
        );
        common::write_tree(
            &repo,
            &[
                ("reference/SECRET.txt", "REF-SECRET-FE3\n"),
                ("ws/judge-ci.yml", &config),
                ("ws/App.java", "class App {}\n"),
            ],
        );
        git(&repo, &["init", "-q", "-b", "main"]);
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-qm", "both"]);
        let tmp = root.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        let ws = repo.join("ws");
        let bin = env!("CARGO_BIN_EXE_judge-ci");
        let mut cmd = match uid {
            Some(u) => {
                chown_tree(root.path(), u);
                let mut c = Command::new("setpriv");
                c.args([
                    &format!("--reuid={u}"),
                    &format!("--regid={u}"),
                    "--clear-groups",
                    "--",
                ]);
                c
            }
            None => Command::new("env"),
        };
        // The control: outside the fence git shows the reference.
        let control = Command::new(cmd.get_program())
            .args(cmd.get_args())
            .args(["git", "show", "HEAD:reference/SECRET.txt"])
            .current_dir(&ws)
            .output()
            .unwrap();
        assert!(
            common::stdout(&control).contains("REF-SECRET-FE3"),
            "{}",
            common::stderr(&control)
        );
        let o = cmd
            .arg(bin)
            .current_dir(&ws)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_EVENT_PATH")
            .env_remove("GITHUB_EVENT_NAME")
            .env("NO_COLOR", "1")
            .env("TMPDIR", &tmp)
            .env("HOME", root.path())
            .output()
            .unwrap();
        let report = common::report(&ws.join("judge-ci-out"));
        let fence = report["fence"].as_str().unwrap_or_default();
        assert_eq!(
            report["tiers"][0]["judges"][0]["status"],
            "pass",
            "uid {uid:?}: {fence}\n{report}\n{}",
            common::stderr(&o)
        );
        assert!(fence.contains("reference hidden"), "{fence}");
        assert!(!report.to_string().contains("REF-SECRET-FE3"));
    }
}

/// trust.md 23, attack finding FE1: a run that cannot keep the reference from subject code
/// is an ERROR before any subject code runs when the config requires `hidden-reference` — a
/// reference inside the workspace, and a reference branch of the workspace's repository
/// where no mount namespace can be made (its objects cannot be covered) — and the fence line
/// says why.
#[test]
#[cfg_attr(
    not(target_arch = "x86_64"),
    ignore = "the no-namespace wrapper uses x86_64 system call numbers"
)]
fn a_run_that_cannot_hide_the_reference_is_an_error_when_the_config_requires_it() {
    assert!(is_root(), "run the tests as root");
    let require = "sandbox:\n  require: [hidden-reference]\n";
    // The reference inside the workspace.
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ws = root.path().join("ws");
    common::write_tree(&ws, &[("ref/Solution.java", "class Solution {}\n")]);
    let config = format!(
        "schema: judge-ci.v1\nname: r\nversion: \"1\"\nreference:\n  path: ref\n{require}jury:\n  checks:\n{}",
        check("ran", "touch ran")
    );
    common::write_tree(&ws, &[("judge-ci.yml", &config)]);
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "subject"]);
    let o = Command::new(env!("CARGO_BIN_EXE_judge-ci"))
        .current_dir(&ws)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
        .env("NO_COLOR", "1")
        .env("TMPDIR", root.path())
        .output()
        .unwrap();
    let report = common::report(&ws.join("judge-ci-out"));
    assert_eq!(
        report["tiers"][0]["judges"][0]["status"],
        "error",
        "{report}\n{}",
        common::stderr(&o)
    );
    let text = report.to_string();
    assert!(
        text.contains("sandbox.require names hidden-reference, which did not hold")
            && text.contains("lies inside the workspace"),
        "{text}"
    );
    assert!(!ws.join("ran").exists(), "the program did not start");

    // A reference branch of the workspace's repository, and no mount namespace.
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ws = root.path().join("ws");
    let config = format!(
        "schema: judge-ci.v1\nname: r\nversion: \"1\"\nreference:\n  ref: solution\n{require}jury:\n  checks:\n{}",
        check("ran", "touch ran")
    );
    common::write_tree(
        &ws,
        &[("judge-ci.yml", &config), ("A.java", "class A {}\n")],
    );
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-qm", "subject"]);
    git(&ws, &["checkout", "-qb", "solution"]);
    std::fs::write(ws.join("A.java"), "class A { int answer; }\n").unwrap();
    git(&ws, &["commit", "-qam", "reference"]);
    git(&ws, &["checkout", "-q", "main"]);
    let wrapper = root.path().join("no-namespaces.pl");
    std::fs::write(&wrapper, NO_NAMESPACES).unwrap();
    let o = Command::new("perl")
        .arg(&wrapper)
        .arg(env!("CARGO_BIN_EXE_judge-ci"))
        .current_dir(&ws)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
        .env("NO_COLOR", "1")
        .env("TMPDIR", root.path())
        .output()
        .unwrap();
    let report = common::report(&ws.join("judge-ci-out"));
    assert_eq!(
        report["tiers"][0]["judges"][0]["status"],
        "error",
        "{report}\n{}",
        common::stderr(&o)
    );
    let text = report.to_string();
    assert!(
        text.contains("sandbox.require names hidden-reference, which did not hold")
            && text.contains("subject code can read them through git"),
        "{text}"
    );
    assert!(!ws.join("ran").exists(), "the program did not start");
}

/// Attack findings E7-3, E7-7 where the fence writes no view of the git folder (no reference
/// in git): a submodule checkout's token in `.git/modules/<sub>/config`, a token in an
/// `insteadOf` rule's name and a proxy password in a file the configuration includes are
/// covered by copies without them; the files themselves stay where git reads them.
#[test]
fn credentials_in_every_git_configuration_file_are_out_of_the_subjects_reach() {
    let root = tempfile::tempdir().unwrap();
    let (ws, reference) = (root.path().join("ws"), root.path().join("ref"));
    let config = "name: creds\njury:\n  tiers:\n    - name: t\n      policy: FINAL_TIER\n      checks:\n        - {type: command, name: tokens, run: \"[ -f .git/modules/sub/config ] && [ -f .git/extra.inc ] && grep -q insteadOf .git/config && ! grep -rqs FENCESUBMODULE .git/modules && ! grep -q FENCEINSTEADOF .git/config && ! grep -qs FENCEINCLUDED .git/extra.inc\"}\n";
    common::write_tree(&ws, &[("judge-ci.yml", config), ("a.txt", "a\n")]);
    common::write_tree(&reference, &[("a.txt", "a\n")]);
    common::git(&ws, &["init", "-q", "-b", "main"]);
    common::commit_all(&ws, "subject");
    common::git(
        &ws,
        &[
            "config",
            "--local",
            "url.https://x-access-token:ghs_FENCEINSTEADOF@github.com/.insteadOf",
            "https://github.com/",
        ],
    );
    common::git(&ws, &["config", "--local", "include.path", "extra.inc"]);
    common::write_tree(
        &ws,
        &[
            (
                ".git/modules/sub/config",
                "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic ghs_FENCESUBMODULE\n",
            ),
            (
                ".git/extra.inc",
                "[http]\n\tproxy = http://user:FENCEINCLUDED@proxy.invalid:3128\n",
            ),
        ],
    );
    let out = root.path().join("out");
    let o = common::judge_ci(
        &ws,
        &[
            "--dry-run",
            "--reference",
            reference.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let r = common::report(&out);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{:#}",
        common::stderr(&o),
        r["verdict"]
    );
    let real = std::fs::read_to_string(ws.join(".git/modules/sub/config")).unwrap();
    assert!(
        real.contains("FENCESUBMODULE"),
        "the file itself is untouched"
    );
}

/// Attack finding S8-4: `restore:` copies the reference's tests into the workspace, where the
/// build reads them (and may send them out); the fence line said "reference hidden" and
/// `sandbox.require: [hidden-reference]` was met. Now a restored file whose bytes the
/// workspace did not hold makes the reference not hidden: required, no subject code starts,
/// and the fence line names what was copied. Restoring files the workspace already holds
/// as they are reveals nothing and keeps the layer.
#[test]
fn reference_files_restore_copies_in_are_not_hidden() {
    let run = |workspace_test: &str| {
        let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let (ws, reference) = (root.path().join("ws"), root.path().join("reference"));
        common::write_tree(
            &reference,
            &[(
                "src/test/HiddenTest.java",
                "class HiddenTest { String s = \"SECRET-4711\"; }\n",
            )],
        );
        let config = format!(
            "schema: judge-ci.v1\nname: r\nversion: \"1\"\nreference:\n  path: ../reference\nrestore: [\"src/test/**\"]\nsandbox:\n  require: [hidden-reference]\njury:\n  checks:\n{}",
            check("ran", "touch ran")
        );
        common::write_tree(
            &ws,
            &[
                ("judge-ci.yml", &config),
                ("src/test/HiddenTest.java", workspace_test),
            ],
        );
        git(&ws, &["init", "-q", "-b", "main"]);
        git(&ws, &["add", "-A"]);
        git(&ws, &["commit", "-qm", "subject"]);
        let o = Command::new(env!("CARGO_BIN_EXE_judge-ci"))
            .current_dir(&ws)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_EVENT_PATH")
            .env_remove("GITHUB_EVENT_NAME")
            .env("NO_COLOR", "1")
            .env("TMPDIR", root.path())
            .output()
            .unwrap();
        let report = common::report(&ws.join("judge-ci-out"));
        (report, common::stderr(&o), root)
    };
    let (report, err, _root) = run("class HiddenTest {}\n");
    assert_eq!(
        report["tiers"][0]["judges"][0]["status"], "error",
        "{report}\n{err}"
    );
    let text = report.to_string();
    assert!(
        text.contains("sandbox.require names hidden-reference, which did not hold")
            && text.contains("restore: copied 1 of the reference's files into the workspace"),
        "{text}"
    );
    // The workspace already holds the reference's test as it is: nothing is revealed.
    let (report, err, _root) = run("class HiddenTest { String s = \"SECRET-4711\"; }\n");
    assert_eq!(
        report["tiers"][0]["judges"][0]["status"], "pass",
        "{report}\n{err}"
    );
}
