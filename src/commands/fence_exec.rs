//! `judge-ci fence-exec -- CMD…`: the subject's code an `external` judge runs, fenced apart
//! from the judge (see [`judge_ci::fence::nest`]). Execs the command on success; returns an
//! exit code only when it cannot (126: not fenced, nothing run; 127: the command could not
//! be started; 2: no command).

use std::ffi::OsString;
use std::os::unix::process::CommandExt;

/// Fences this process apart from its parent and execs `args` (a leading `--` is skipped).
pub fn run(args: &[OsString]) -> i32 {
    let args = match args.first() {
        Some(a) if a == "--" => &args[1..],
        _ => args,
    };
    let Some((program, rest)) = args.split_first() else {
        eprintln!(
            "judge-ci fence-exec: no command given; usage: judge-ci fence-exec -- CMD [ARG...]"
        );
        return 2;
    };
    if let Err(why) = judge_ci::fence::nest::enter() {
        eprintln!(
            "judge-ci fence-exec: {why}; `{}` was not run",
            program.to_string_lossy()
        );
        return 126;
    }
    let e = std::process::Command::new(program).args(rest).exec();
    eprintln!(
        "judge-ci fence-exec: `{}` could not be started: {e}",
        program.to_string_lossy()
    );
    127
}
