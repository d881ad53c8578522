//! The record a cancelled run leaves behind instead of a report.

use serde::Serialize;
use std::path::Path;
use std::time::Duration;

use super::options::RunOptions;
use super::{progress, save};
use crate::github::outputs as gh_outputs;
use crate::judgment::Status;
use crate::report::Surface;

/// The record a cancelled run writes in its output folder instead of a report.
pub const RECORD_FILE: &str = "cancelled.json";

/// `cancelled.json`: which run stopped, on which signal, and the judges that had finished.
#[derive(Serialize)]
struct CancelledRecord<'a> {
    schema: &'static str,
    config: &'a str,
    signal: &'a str,
    finished: Vec<FinishedJudge<'a>>,
}

/// One judge that finished before the signal.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FinishedJudge<'a> {
    tier: &'a str,
    judge: &'a str,
    status: Status,
    elapsed_ms: u64,
}

/// A file of the record that could not be written: said on standard error, since the run is
/// ending anyway and the exit code already says it was cancelled.
fn warn(what: &str, e: impl std::fmt::Display) {
    eprintln!("judge-ci: warning: the cancelled run's {what} could not be written: {e}");
}

/// The record of a cancelled run: `cancelled.json`, a `report.md` saying so with the judges
/// that finished, and the job summary in Actions. Best effort: the run is ending anyway, so a
/// file that cannot be written is a warning.
pub(super) fn write_cancelled(
    opts: &RunOptions,
    name: &str,
    signal: &str,
    done: &[(String, String, Status, Duration)],
    actions: bool,
) {
    if let Err(e) = save::check_out_dir(&opts.out) {
        warn("record", e);
        return;
    }
    if let Err(e) = std::fs::create_dir_all(&opts.out) {
        warn(&format!("folder {}", opts.out.display()), e);
        return;
    }
    let record = CancelledRecord {
        schema: "judge-ci.cancelled.v1",
        config: name,
        signal,
        finished: done
            .iter()
            .map(|(t, j, s, e)| FinishedJudge {
                tier: t,
                judge: j,
                status: *s,
                elapsed_ms: e.as_millis() as u64,
            })
            .collect(),
    };
    match serde_json::to_string_pretty(&record) {
        Ok(json) => {
            if let Err(e) =
                save::write_atomically(&opts.out.join(RECORD_FILE), format!("{json}\n").as_bytes())
            {
                warn("cancelled.json", e);
            }
        }
        Err(e) => warn("cancelled.json", e),
    }
    let mut md = format!(
        "## ⏹ Cancelled · judge-ci · {}\n\nThe run was cancelled ({signal}) before the jury reached a verdict; the judges still running were stopped. No reading: nothing is accepted or rejected.\n\n",
        crate::report::escape::inline(name)
    );
    if done.is_empty() {
        md.push_str("No judge had finished.\n");
    } else {
        md.push_str("Judges that finished:\n\n");
        for (t, j, s, e) in done {
            md.push_str(&format!(
                "- {} {}: {} ({})\n",
                crate::report::escape::inline(t),
                crate::report::escape::code_span(j),
                progress::status_word(*s),
                crate::judges::humantime(*e)
            ));
        }
    }
    let md_file = Surface::Markdown.file_name();
    if let Err(e) = save::write_atomically(&opts.out.join(md_file), md.as_bytes()) {
        warn(md_file, e);
    }
    if actions
        && let Ok(p) = std::env::var("GITHUB_STEP_SUMMARY")
        && let Err(e) = gh_outputs::append(Path::new(&p), &md)
    {
        warn("job summary", e);
    }
    // A report.json of an earlier run in the same folder would now be stale.
    match std::fs::remove_file(opts.out.join("report.json")) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => warn("removal of the stale report.json", e),
    }
}
