//! The whole run: every stage in order, the report written to disk before anything is
//! printed or posted.

use std::sync::Arc;
use std::time::Instant;

use super::error::{InstrumentError, RunError};
use super::options::{Format, RunOptions, RunResult, Verbosity};
use super::{publish, save, stages};
use crate::github::{self, outputs as gh_outputs};
use crate::report::{self, Surface, markdown};

/// Runs the whole job: load, resolve, judge, write `report.json` then `report.md`, and return
/// what to print.
pub async fn run(opts: &RunOptions) -> Result<RunResult, RunError> {
    run_beside(opts, Arc::default()).await
}

/// [`run`], beside other runs of this process (the tasks of a suite) that share `hidden`: the
/// folders any of them made are hidden from the subject processes of all. Everything else
/// of the run (its fence's network and workspace, its report's fence line) is its own.
///
/// The pipeline, one typed stage after another (see [`super::stages`]): nothing of a later
/// stage runs before the earlier one's output exists, and no subject code runs before
/// [`stages::judge`].
pub async fn run_beside(
    opts: &RunOptions,
    hidden: Arc<crate::fence::Hidden>,
) -> Result<RunResult, RunError> {
    let started = Instant::now();
    let mut loaded = stages::load(opts, hidden)?;
    let trees = stages::check_out(opts, &loaded)?;
    let ready = stages::prepare(opts, &mut loaded, &trees)?;
    let judged = stages::judge(opts, &loaded, &trees, &ready).await?;
    let report = stages::report(opts, &loaded, &trees, &ready, judged, started)?;
    saved_then_published(
        opts,
        report,
        ready.template.as_deref(),
        &loaded.bench.report,
        &ready.out,
        loaded.github.as_ref(),
    )
    .await
}

/// Makes the gate of a run that failed on its outputs say so: fail, exit 3, and why, after
/// what the verdict alone would have decided.
fn failed_on_outputs(report: &mut report::Revealed, planted: bool) {
    let why = if planted {
        "a file judge-ci did not write appeared in the output folder (a subject process wrote there)"
    } else {
        "judge-ci could not write every file of the output folder, which a later step reads"
    };
    let mut outcome = report.outcome.clone();
    outcome.reason = format!(
        "{} But the run failed on its outputs: {why}; so the gate fails (exit 3), whatever the verdict.",
        outcome.reason
    );
    outcome.gate = crate::report::Gate::Fail;
    outcome.exit_code = super::exit::EXIT_INSTRUMENT;
    report.set_outcome(outcome);
}

/// The saved and published stages: every surface to disk (the JSON last, with the digest
/// of the others) before anything is printed or posted, then GitHub's surfaces, then what
/// the command prints.
async fn saved_then_published(
    opts: &RunOptions,
    mut report: report::Revealed,
    template: Option<&str>,
    settings: &crate::config::ReportSettings,
    prepared: &save::Prepared,
    github: Option<&crate::github::context::Context>,
) -> Result<RunResult, RunError> {
    // Nothing is lost: the JSON, then the other surfaces and the job summary, go to disk
    // before anything is printed or posted. A disk that refuses them is a warning: the
    // verdict was reached, the JSON is spilled elsewhere, and publishing still happens.
    let mut surfaces = Vec::new();
    for surface in Surface::ALL {
        let text = report::render(&report, surface, template, settings.annotations)
            .map_err(InstrumentError::from)?;
        surfaces.push((surface, text));
    }
    // The JSON last, holding the digest of every other surface as it is written.
    report.set_surface_digests(save::digests(&surfaces));
    save::replace_json(
        &mut surfaces,
        report::render(&report, Surface::Json, None, settings.annotations)
            .map_err(InstrumentError::from)?,
    );
    let saved = save::surfaces(&opts.out, &surfaces, &save::spill_dir());
    for w in saved.errors(&opts.out) {
        eprintln!("{w}");
    }
    let planted = save::report_planted(prepared, &opts.out);
    let mut outputs_failed = saved.failed_any() || planted;
    // A run that failed on its outputs leaves no report where a later step would read it,
    // and every surface read from here on (the log, the job summary, the step outputs, the
    // check run) says it failed, never the verdict's own gate (attack finding G1).
    let mut saved = saved;
    if outputs_failed {
        saved.report_json = save::withdraw(&opts.out, &save::spill_dir(), saved.report_json);
        save::clear_planted(prepared, &opts.out);
        failed_on_outputs(&mut report, planted);
        for (surface, text) in surfaces.iter_mut() {
            if matches!(surface, Surface::Markdown | Surface::Summary) {
                *text = report::render(&report, *surface, template, settings.annotations)
                    .map_err(InstrumentError::from)?;
            }
        }
    }
    let mut rendered: std::collections::HashMap<_, _> = surfaces
        .into_iter()
        .map(|(s, text)| (s.file_name(), text))
        .collect();
    let md = rendered
        .remove(Surface::Markdown.file_name())
        .unwrap_or_default();
    let json = rendered
        .remove(Surface::Json.file_name())
        .unwrap_or_default();
    let mut commands = Vec::new();
    let mut exit_code = report.outcome.exit_code;
    if let Some(ctx) = github {
        // In Actions: the job summary, the step outputs and the event go to disk before any
        // network call; then the API; annotations become workflow commands unless the check
        // run carries them.
        let summary = rendered
            .remove(Surface::Summary.file_name())
            .unwrap_or_default();
        outputs_failed |=
            publish::before(&report, &summary, &opts.out, saved.report_json.as_deref());
        let annotations_posted = if opts.dry_run {
            if opts.verbosity != Verbosity::Quiet {
                eprintln!(
                    "judge-ci: dry run: nothing posted; {} holds the comment and {} the check-run requests",
                    opts.out.join(Surface::Markdown.file_name()).display(),
                    opts.out.join(Surface::CheckRun.file_name()).display()
                );
            }
            false
        } else {
            let full = markdown::render_with(&report, template).map_err(InstrumentError::from)?;
            let published = publish::after(
                ctx,
                &report,
                &full,
                &opts.publish.settings(settings),
                opts.publish.token.as_deref(),
                opts.verbosity,
            )
            .await?;
            exit_code = publish::publish_exit(&opts.publish, &published, exit_code);
            published.annotations_posted
        };
        if !annotations_posted {
            commands = gh_outputs::workflow_commands(&report::check_run::annotations(&report));
        }
    }
    if outputs_failed {
        exit_code = super::exit::EXIT_INSTRUMENT;
        // The step outputs or the event copy failed after the reports were written.
        if saved
            .report_json
            .as_deref()
            .is_some_and(|p| p.starts_with(&opts.out))
        {
            saved.report_json = save::withdraw(&opts.out, &save::spill_dir(), saved.report_json);
        }
    }
    let mut stdout = match opts.format {
        // The report quotes subject output: inside Actions its `::` lines must stay text.
        Format::Markdown if opts.actions => github::inert::wrap(&md),
        Format::Markdown => md,
        // Pretty JSON never puts a string at the start of a line: inert as it is.
        Format::Json => json,
    };
    // Workflow commands go where the runner reads them; with --format json, standard output
    // stays pure JSON and they go to standard error.
    for c in commands {
        match opts.format {
            Format::Markdown => {
                stdout.push_str(&c);
                stdout.push('\n');
            }
            Format::Json => eprintln!("{c}"),
        }
    }
    Ok(RunResult {
        report: report.into_report(),
        stdout,
        report_path: saved.report_json,
        exit_code,
    })
}
