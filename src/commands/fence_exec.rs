//! `judge-ci fence-exec [--stdin] -- CMD…`: the subject's code an `external` judge runs,
//! fenced apart from the judge (see [`judge_ci::fence::nest`]). Runs the command in a child,
//! kills whatever it left running, and exits as the command did: 126 when it cannot be
//! fenced (nothing run), 127 when it could not be started, 2 without a command.

use judge_ci::fence::nest;
use std::ffi::OsString;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::Stdio;

/// Runs `args` (`--stdin`, then an optional `--`, then the command) fenced apart from this
/// process's parent, the judge; returns the exit code to leave with.
pub fn run(args: &[OsString]) -> i32 {
    let (keep_stdin, args) = match args.first() {
        Some(a) if a == "--stdin" => (true, &args[1..]),
        _ => (false, args),
    };
    let args = match args.first() {
        Some(a) if a == "--" => &args[1..],
        _ => args,
    };
    let Some((program, rest)) = args.split_first() else {
        eprintln!(
            "judge-ci fence-exec: no command given; usage: judge-ci fence-exec [--stdin] -- CMD [ARG...]"
        );
        return 2;
    };
    let shown = program.to_string_lossy().into_owned();
    let not_run = |why: &dyn std::fmt::Display| {
        eprintln!("judge-ci fence-exec: {why}; `{shown}` was not run");
        126
    };
    let judge = nest::JudgeFolders::from_env(|v| std::env::var_os(v));
    // The code's own temporary folder and home, in the judge's temporary folder (the one
    // place its fence lets it write for sure) and gone with the command.
    let private = match tempfile::Builder::new()
        .prefix("judge-ci-fenced-")
        .tempdir()
    {
        Ok(d) => d,
        Err(e) => return not_run(&format!("cannot make the code's temporary folder: {e}")),
    };
    let mut granted = vec![private.path().to_path_buf()];
    granted.extend(std::env::var_os("JUDGE_WORKSPACE").map(Into::into));
    granted.extend(std::env::current_dir().ok());
    let roots = nest::fence_roots(std::env::var_os("JUDGE_CI_FENCE_ROOTS"));
    let prepared = match nest::prepare(&roots, &judge, &granted) {
        Ok(p) => p,
        Err(why) => return not_run(&why),
    };
    if let Err(e) = nest::become_reaper() {
        return not_run(&format!(
            "cannot become the reaper of the code's processes: {e}"
        ));
    }
    let mut cmd = std::process::Command::new(program);
    cmd.args(rest)
        .env("TMPDIR", private.path())
        .env("HOME", private.path());
    if !keep_stdin {
        cmd.stdin(Stdio::null());
    }
    // SAFETY: the closure makes system calls only (prctl, close_range or fcntl,
    // landlock_restrict_self) on data made before the fork.
    unsafe {
        cmd.pre_exec(move || {
            // The child dies with fence-exec, however fence-exec ends.
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            prepared.enter()
        });
    }
    let status = match cmd.spawn().and_then(|mut c| c.wait()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("judge-ci fence-exec: `{shown}` could not be started: {e}");
            nest::kill_descendants();
            return 127;
        }
    };
    let left = nest::kill_descendants();
    if left > 0 {
        eprintln!(
            "judge-ci fence-exec: `{shown}` left {left} process(es) running; killed before returning to the judge"
        );
    }
    drop(private);
    match (status.code(), status.signal()) {
        (Some(c), _) => c,
        (None, Some(s)) => 128 + s,
        (None, None) => 125,
    }
}
