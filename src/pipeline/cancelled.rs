//! The record a cancelled run leaves behind instead of a report.

use std::path::Path;

use super::options::RunOptions;
use super::{progress, save};
use crate::github::outputs as gh_outputs;
use crate::report::Surface;

/// The record of a cancelled run: `cancelled.json`, a `report.md` saying so with the judges
/// that finished, and the job summary in Actions. Best effort: the run is ending anyway.
pub(super) fn write_cancelled(
    opts: &RunOptions,
    name: &str,
    signal: &str,
    done: &[(String, String, crate::judgment::Status, std::time::Duration)],
    actions: bool,
) {
    if save::check_out_dir(&opts.out).is_err() {
        return;
    }
    let _ = std::fs::create_dir_all(&opts.out);
    let json = serde_json::json!({
        "schema": "judge-ci.cancelled.v1",
        "config": name,
        "signal": signal,
        "finished": done.iter().map(|(t, j, s, e)| serde_json::json!({
            "tier": t, "judge": j, "status": s, "elapsedMs": e.as_millis() as u64
        })).collect::<Vec<_>>(),
    });
    let _ = save::write_atomically(
        &opts.out.join("cancelled.json"),
        format!("{json:#}\n").as_bytes(),
    );
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
    let _ = save::write_atomically(&opts.out.join(Surface::Markdown.file_name()), md.as_bytes());
    if actions && let Ok(p) = std::env::var("GITHUB_STEP_SUMMARY") {
        let _ = gh_outputs::append(Path::new(&p), &md);
    }
    // A report.json of an earlier run in the same folder would now be stale.
    let _ = std::fs::remove_file(opts.out.join("report.json"));
}
