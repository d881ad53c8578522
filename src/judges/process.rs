//! Running child processes for judges: an explicit environment, a time limit, a process
//! group of their own that is killed as a whole (on time-out, on completion and on drop, so
//! no background child outlives its judge), and output captured up to a bound (head and tail
//! kept, the cut counted).

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use crate::fence::Fence;

/// Bytes kept from the start and from the end of each stream.
pub const KEEP_BYTES: usize = 32 * 1024;

/// Variables passed from judge-ci's own environment to every child; anything else (tokens
/// above all) is withheld unless a check names it in its `env`.
pub const INHERITED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "TERM",
    "JAVA_HOME",
    "MAVEN_HOME",
    "M2_HOME",
    "MAVEN_OPTS",
    "MAVEN_ARGS",
    "GRADLE_HOME",
    "GRADLE_USER_HOME",
    "GRADLE_OPTS",
    "JAVA_TOOL_OPTIONS",
    "CI",
];

/// What to run.
#[derive(Clone, Debug)]
pub struct ProcessSpec {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working folder.
    pub dir: PathBuf,
    /// Extra environment, on top of [`INHERITED_ENV`].
    pub env: Vec<(String, String)>,
    /// Limit; the whole group is killed when it passes.
    pub timeout: Duration,
    /// Bytes written to standard input (then closed); none means `/dev/null`.
    pub stdin: Option<Vec<u8>>,
    /// Whether the program gets an answer channel: the write end of a pipe as descriptor
    /// [`ANSWER_FD`], whose bytes come back in [`ProcessOutput::answer`]. Standard output
    /// and error stay logs: whatever the program starts inherits them, so subject code it
    /// runs could print there first (`external` judges answer on this channel instead).
    pub answer: bool,
    /// What this process alone is given beyond its fence (an `external` judge's reference
    /// and metadata): no other process of the run sees it.
    pub private: Private,
}

/// What one process is given beyond the run's fence (see [`ProcessSpec::private`]).
#[derive(Clone, Debug, Default)]
pub struct Private {
    /// Folders it may read although the run hides them (an `external` judge's reference).
    pub readable: Vec<PathBuf>,
    /// Files written into its private temporary folder before it starts, each named in its
    /// environment: (variable, file name, bytes). The variable holds the file's path.
    pub files: Vec<(String, String, Vec<u8>)>,
}

/// The descriptor number of the answer channel (see [`ProcessSpec::answer`]).
pub const ANSWER_FD: i32 = 3;

/// Most bytes read from the answer channel; more is a breach the caller reports.
pub const ANSWER_BYTES: usize = 1024 * 1024;

impl ProcessSpec {
    /// `sh -f -c line` in `dir`: the shell expands no pathname, so a name in the tree (which
    /// the pull request chooses) never becomes a word, an option or a pattern of the line.
    pub fn shell(line: &str, dir: PathBuf, timeout: Duration) -> Self {
        ProcessSpec {
            program: "sh".into(),
            args: vec!["-f".into(), "-c".into(), line.into()],
            dir,
            env: Vec::new(),
            timeout,
            stdin: None,
            answer: false,
            private: Private::default(),
        }
    }

    /// The command line as one printable string.
    pub fn display(&self) -> String {
        if self.program == "sh" {
            match self.args.as_slice() {
                [c, line] | [_, c, line] if c == "-c" => return line.clone(),
                _ => {}
            }
        }
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// How the process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// It was killed by this signal (not by judge-ci).
    Signal(i32),
    /// judge-ci killed it at the time limit.
    TimedOut,
}

/// A bounded capture of one stream.
#[derive(Clone, Debug, Default)]
pub struct Captured {
    head: Vec<u8>,
    tail: Vec<u8>,
    total: u64,
}

impl Captured {
    fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = KEEP_BYTES.saturating_sub(self.head.len());
        let (h, rest) = chunk.split_at(room.min(chunk.len()));
        self.head.extend_from_slice(h);
        if !rest.is_empty() {
            self.tail.extend_from_slice(rest);
            if self.tail.len() > 2 * KEEP_BYTES {
                let cut = self.tail.len() - KEEP_BYTES;
                self.tail.drain(..cut);
            }
        }
    }

    /// Bytes written in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes not kept.
    pub fn cut(&self) -> u64 {
        self.total - (self.head.len() + self.tail_kept().len()) as u64
    }

    fn tail_kept(&self) -> &[u8] {
        let start = self.tail.len().saturating_sub(KEEP_BYTES);
        &self.tail[start..]
    }

    /// The kept text, with a line saying how much was cut between head and tail.
    pub fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.head).into_owned();
        if !self.tail.is_empty() {
            let cut = self.cut();
            if cut > 0 {
                s.push_str(&format!("\n[… {cut} bytes cut by judge-ci …]\n"));
            }
            s.push_str(&String::from_utf8_lossy(self.tail_kept()));
        }
        s
    }
}

/// The result of a finished (or killed) process.
#[derive(Clone, Debug)]
pub struct ProcessOutput {
    /// How it ended.
    pub exit: Exit,
    /// Standard output.
    pub stdout: Captured,
    /// Standard error.
    pub stderr: Captured,
    /// What the program wrote on its answer channel (empty when it had none), up to
    /// [`ANSWER_BYTES`] and one byte more, so that an overlong answer shows.
    pub answer: Vec<u8>,
    /// Wall time.
    pub elapsed: Duration,
    /// Processes of its group still alive after judge-ci killed the group and waited (none
    /// in the normal case): what they write may change after judge-ci read it.
    pub outlived: Vec<i32>,
}

impl ProcessOutput {
    /// Standard output then standard error, each bounded.
    pub fn combined(&self) -> String {
        let out = self.stdout.text();
        let err = self.stderr.text();
        match (out.is_empty(), err.is_empty()) {
            (_, true) => out,
            (true, false) => err,
            (false, false) => format!("{out}\n{err}"),
        }
    }
}

/// Kills the whole process group when dropped (time-out, completion, or a cancelled vote).
struct GroupGuard(Option<i32>);

impl GroupGuard {
    fn kill(&mut self) {
        if let Some(pgid) = self.0.take() {
            // ESRCH (the group is already gone) is the normal case after a clean exit.
            let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn drain<R: AsyncRead + Unpin>(mut r: R) -> Captured {
    let mut c = Captured::default();
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => c.push(&buf[..n]),
        }
    }
    c
}

/// The command for `spec`, fenced by `fence`.
fn command(
    spec: &ProcessSpec,
    fence: &crate::fence::Prepared,
    answer: Option<std::os::fd::RawFd>,
) -> Command {
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .current_dir(&spec.dir)
        .env_clear()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .process_group(0)
        .kill_on_drop(true);
    for k in INHERITED_ENV.iter().filter(|k| **k != "PATH") {
        if let Ok(v) = std::env::var(k) {
            cmd.env(k, v);
        }
    }
    // judge-ci's PATH less what the subject could plant a program in (see the fence).
    if let Some(path) = &fence.path {
        cmd.env("PATH", path);
    }
    // A temporary folder of its own: the system's is not writable inside the fence; and a
    // home folder of its own: the real one is hidden (what earlier steps left there).
    cmd.env("TMPDIR", fence.tmp.path());
    cmd.env("HOME", &fence.home);
    // Where its fence grants access, for `judge-ci fence-exec` (which cannot list `/`).
    if let Some(roots) = fence.landlock_roots() {
        cmd.env("JUDGE_CI_FENCE_ROOTS", roots);
    }
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    for (var, name, _) in &spec.private.files {
        cmd.env(var, fence.tmp.path().join(name));
    }
    fence.apply(&mut cmd);
    if let Some(fd) = answer {
        // After the fence's own step (which may close or mark descriptors), in the process
        // that execs the program: the write end becomes descriptor 3, inherited by exec.
        // SAFETY: dup2 and fcntl on a descriptor opened before the fork; no allocation.
        unsafe {
            cmd.pre_exec(move || {
                if fd == ANSWER_FD {
                    let flags = libc::fcntl(fd, libc::F_GETFD);
                    if flags < 0 || libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                } else if libc::dup2(fd, ANSWER_FD) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd
}

/// A pipe for the answer channel, both ends close-on-exec (descriptor 3 is made in the child).
fn answer_pipe() -> std::io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(std::io::Error::from)
}

/// Reads the answer channel on a thread of its own, up to [`ANSWER_BYTES`] and one more. A
/// plain thread, not the runtime's blocking pool: a descendant of the program that escaped
/// its group could hold the write end open forever, and judge-ci must still exit.
fn read_answer(fd: std::os::fd::OwnedFd) -> tokio::sync::oneshot::Receiver<Vec<u8>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut bytes = Vec::new();
        let _ = std::fs::File::from(fd)
            .take(ANSWER_BYTES as u64 + 1)
            .read_to_end(&mut bytes);
        let _ = tx.send(bytes);
    });
    rx
}

/// Runs a process to completion or its time limit, inside the run's fence `policy` (see
/// [`crate::fence`]). `Err` means it could not be started.
pub async fn run(spec: &ProcessSpec, policy: &Fence) -> std::io::Result<ProcessOutput> {
    run_fenced(spec, policy, false).await
}

/// [`run`], with `/proc` hidden from the process and its children (Landlock,
/// [`Fence::prepare_sealed`]): for a process holding a secret that code it runs must not read
/// from its own memory (judge-ci's test oracle).
pub async fn run_sealed(spec: &ProcessSpec, policy: &Fence) -> std::io::Result<ProcessOutput> {
    run_fenced(spec, policy, true).await
}

async fn run_fenced(
    spec: &ProcessSpec,
    policy: &Fence,
    sealed: bool,
) -> std::io::Result<ProcessOutput> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let prepared = if sealed {
        policy.prepare_sealed(&spec.dir, home.as_deref())
    } else {
        policy.prepare(&spec.dir, home.as_deref())
    };
    let mut fence = prepared.map_err(|e| std::io::Error::other(e.to_string()))?;
    fence.grant_read(&spec.private.readable);
    // In its private temporary folder: no other process of the run can read them
    // (`command` names each in the environment).
    for (_, name, bytes) in &spec.private.files {
        std::fs::write(fence.tmp.path().join(name), bytes)?;
    }
    let pipe = if spec.answer {
        Some(answer_pipe()?)
    } else {
        None
    };
    let write_end = pipe
        .as_ref()
        .map(|(_, w)| std::os::fd::AsRawFd::as_raw_fd(w));
    let start = Instant::now();
    let refused = |fence: &crate::fence::Prepared, e: std::io::Error| match fence.refused() {
        Some(r) => std::io::Error::other(r.to_string()),
        None => e,
    };
    let spawning = crate::fence::reaper::spawning();
    let mut child = match command(spec, &fence, write_end).spawn() {
        Ok(c) => c,
        // A layer `sandbox.require` names did not hold: no retry with fewer layers.
        Err(e) if fence.refused_now() => return Err(refused(&fence, e)),
        // The machine may not allow namespaces: the same fence without them, and if that
        // starts, later processes skip the attempt.
        Err(e) if fence.namespaces() => {
            fence = fence
                .without_namespaces()
                .map_err(|f| std::io::Error::other(f.to_string()))?;
            let c = command(spec, &fence, write_end)
                .spawn()
                .map_err(|e| refused(&fence, e))?;
            policy.namespaces_unavailable(&e);
            c
        }
        Err(e) => return Err(e),
    };
    // Dropped last, after the group is killed: then the orphans are swept.
    let _running = spawning.register(child.id());
    policy.started(&fence);
    // The child holds the write end now: judge-ci's copy goes, so the reader sees the end
    // of the answer when the program (and whatever inherited descriptor 3) is gone.
    let answer = pipe.map(|(read, write)| {
        drop(write);
        read_answer(read)
    });
    let mut guard = GroupGuard(child.id().and_then(|p| i32::try_from(p).ok()));
    if let (Some(bytes), Some(mut stdin)) = (spec.stdin.clone(), child.stdin.take()) {
        tokio::spawn(async move {
            let _ = stdin.write_all(&bytes).await;
        });
    }
    let out = tokio::spawn(drain(
        child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout pipe"))?,
    ));
    let err = tokio::spawn(drain(
        child
            .stderr
            .take()
            .ok_or_else(|| std::io::Error::other("no stderr pipe"))?,
    ));
    let exit = match tokio::time::timeout(spec.timeout, child.wait()).await {
        Ok(Ok(status)) => {
            use std::os::unix::process::ExitStatusExt;
            match (status.code(), status.signal()) {
                (Some(c), _) => Exit::Code(c),
                (None, Some(s)) => Exit::Signal(s),
                (None, None) => Exit::Code(-1),
            }
        }
        Ok(Err(e)) => return Err(e),
        Err(_) => Exit::TimedOut,
    };
    // Kill whatever is left of the group (background children) so the pipes close, and wait
    // until none of it is alive: whatever judge-ci reads of the build's output afterwards
    // (reports, class files, the answer's end) is no longer being written. In a PID namespace
    // the child's end already means the namespace is empty (the kernel reaps it whole).
    let pgid = guard.0;
    guard.kill();
    let _ = child.kill().await;
    let grace = Duration::from_secs(5);
    let outlived = match pgid {
        Some(g) => group_gone(g, grace).await,
        None => Vec::new(),
    };
    let stdout = tokio::time::timeout(grace, out)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let stderr = tokio::time::timeout(grace, err)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let answer = match answer {
        Some(rx) => tokio::time::timeout(grace, rx)
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    Ok(ProcessOutput {
        exit,
        stdout,
        stderr,
        answer,
        elapsed: start.elapsed(),
        outlived,
    })
}

/// The live (not zombie) processes of process group `pgid`, from `/proc`.
fn group_members(pgid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            // `pid (comm) S ppid pgrp …`; comm may hold spaces and parentheses.
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let mut f = rest.split_whitespace();
            let state = f.next().unwrap_or("");
            let group = f.nth(1).and_then(|g| g.parse::<i32>().ok());
            group == Some(pgid) && !matches!(state, "Z" | "X" | "x")
        })
        .collect()
}

/// Waits (at most `grace`) until no live process of group `pgid` is left, killing again
/// what is; returns the ones still alive at the end (none in the normal case).
async fn group_gone(pgid: i32, grace: Duration) -> Vec<i32> {
    let until = Instant::now() + grace;
    loop {
        let left = group_members(pgid);
        if left.is_empty() || Instant::now() >= until {
            return left;
        }
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captured_keeps_head_and_tail_and_counts_the_cut() {
        let mut c = Captured::default();
        c.push(&vec![b'a'; KEEP_BYTES]);
        c.push(&vec![b'b'; 3 * KEEP_BYTES]);
        c.push(b"END");
        assert_eq!(c.total(), (4 * KEEP_BYTES + 3) as u64);
        let t = c.text();
        assert!(t.starts_with("aaa"));
        assert!(t.ends_with("bEND"));
        assert!(
            t.contains(&format!("{} bytes cut", 2 * KEEP_BYTES + 3)),
            "{}",
            &t[KEEP_BYTES..KEEP_BYTES + 80]
        );
    }

    #[tokio::test]
    async fn a_process_the_program_left_behind_is_gone_when_run_returns() {
        // The program exits at once; a background process of its group keeps writing. When
        // `run` returns the writer is dead (not merely signalled), so what judge-ci reads of
        // the output afterwards no longer changes.
        let dir = tempfile::tempdir().unwrap();
        // Without a PID namespace (where the kernel empties it whole): the group is what
        // judge-ci waits on, and the pid printed is the real one.
        let fence = Fence::default();
        fence.namespaces_unavailable(&std::io::Error::other("this test's own choice"));
        let out = run(
            &ProcessSpec::shell(
                "(exec >/dev/null 2>&1; trap '' TERM HUP; while :; do echo x >> f; done) & echo $!; exit 0",
                dir.path().to_path_buf(),
                Duration::from_secs(10),
            ),
            &fence,
        )
        .await
        .unwrap();
        assert_eq!(out.exit, Exit::Code(0));
        assert!(out.outlived.is_empty(), "{:?}", out.outlived);
        let pid: i32 = out.stdout.text().trim().parse().unwrap();
        let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(')')
                    .map(|(_, r)| r.trim_start().starts_with(['R', 'S', 'D']))
            })
            .unwrap_or(false);
        assert!(!alive, "the writer {pid} outlived the run");
        let size = std::fs::metadata(dir.path().join("f"))
            .map(|m| m.len())
            .unwrap_or(0);
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(
            std::fs::metadata(dir.path().join("f"))
                .map(|m| m.len())
                .unwrap_or(0),
            size
        );
        assert!(group_members(i32::MAX).is_empty());
    }

    #[tokio::test]
    async fn exit_codes_timeouts_and_environment() {
        let dir = std::env::temp_dir();
        let fence = Fence::default();
        let ok = run(
            &ProcessSpec::shell(
                "echo out; echo err >&2; exit 3",
                dir.clone(),
                Duration::from_secs(10),
            ),
            &fence,
        )
        .await
        .unwrap();
        assert_eq!(ok.exit, Exit::Code(3));
        assert_eq!(ok.stdout.text(), "out\n");
        assert_eq!(ok.stderr.text(), "err\n");
        let slow = run(
            &ProcessSpec::shell("sleep 30", dir.clone(), Duration::from_millis(200)),
            &fence,
        )
        .await
        .unwrap();
        assert_eq!(slow.exit, Exit::TimedOut);
        assert!(slow.elapsed < Duration::from_secs(10));
        // cargo sets CARGO_MANIFEST_DIR for test runs; it is not on the inherited list.
        assert!(std::env::var("CARGO_MANIFEST_DIR").is_ok());
        let env = run(
            &ProcessSpec::shell(
                "echo \"[$CARGO_MANIFEST_DIR][$PATH]\"",
                dir,
                Duration::from_secs(10),
            ),
            &fence,
        )
        .await
        .unwrap();
        assert!(
            env.stdout.text().starts_with("[]["),
            "{}",
            env.stdout.text()
        );
        assert!(env.stdout.text().len() > 6);
    }
}
