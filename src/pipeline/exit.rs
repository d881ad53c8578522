//! The contract with the caller: the process exit codes of a run.

/// Exit code: judged, gate passed.
pub const EXIT_PASS: i32 = 0;
/// Exit code: judged, subject rejected.
pub const EXIT_REJECTED: i32 = 1;
/// Exit code: not judged (bad command line, config, task file or inputs).
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code: judged, but the instrument failed.
pub const EXIT_INSTRUMENT: i32 = 3;
/// Exit code: judged, but with `--require-publish` the result did not fully reach GitHub.
pub const EXIT_PUBLISH: i32 = 4;
