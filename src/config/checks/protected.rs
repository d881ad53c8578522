//! `protected-paths`: not a type a config names. The run adds it to the first tier when the
//! pull request changes a protected path and `protected-action` is `fail`.

use std::time::Duration;

use super::{CheckInfo, Facts, Family, Keeps, WorkspaceReads};
use crate::judgment::Phase;

/// `protected-paths`: FAIL, listing the protected paths the pull request changed.
#[rustfmt::skip]
pub const PROTECTED_PATHS: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Outputs,
        keeps: Keeps::Nothing,
        reads_reference_folder: false,
        replayed_on_resume: false,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "FAIL if the pull request changed a protected path (added by the run)",
    keys: &[],
    default_timeout: Duration::from_secs(10),
    read: None,
};
