//! The whole run: every stage in order, the report written to disk before anything is
//! printed or posted.

use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

use super::assemble::{collect_diffs, tier_views};
use super::cancelled::write_cancelled;
use super::error::{InputError, RunError};
use super::gate::gate_with_errors;
use super::guard::{config_files, guard};
use super::jury::{jury_of, progress_for};
use super::load::load_from;
use super::options::{Format, RunOptions, RunResult, Verbosity};
use super::preflight::preflight;
use super::signals::cancellation;
use super::task::task_commands;
use super::trees::{checkout_error, reference_contents, resolve_reference};
use super::{inputs, progress, publish, resume, save};
use crate::config::{FailOn, ReferenceSpec};
use crate::fence::Fence;
use crate::github::{self, outputs as gh_outputs};
use crate::judgment::JudgmentContext;
use crate::jury::interpret;
use crate::materialize::{self, Source};
use crate::report::{
    self, ConfigInfo, InterpretationInfo, REPORT_SCHEMA, Report, Subject, Surface, TaskInfo,
    Timings, Tool, markdown,
};

/// Runs the whole job: load, resolve, judge, write `report.json` then `report.md`, and return
/// what to print.
pub async fn run(opts: &RunOptions) -> Result<RunResult, RunError> {
    run_beside(opts, Arc::default()).await
}

/// [`run`], beside other runs of this process (the tasks of a suite) that share `hidden`: the
/// folders any of them made are hidden from the subject processes of all. Everything else
/// of the run (its fence's network and workspace, its report's fence line) is its own.
pub async fn run_beside(
    opts: &RunOptions,
    hidden: Arc<crate::fence::Hidden>,
) -> Result<RunResult, RunError> {
    let total = Instant::now();
    save::check_out_dir(&opts.out).map_err(InputError::from)?;
    resume::check_out_is_not_input(&opts.split, &opts.out)?;
    let repo_dir = std::env::current_dir().map_err(InputError::WorkingFolder)?;
    let github =
        match github::context::from_env(&|k| std::env::var(k).ok().filter(|_| opts.actions)) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("judge-ci: warning: {e}; the report will not name the pull request");
                None
            }
        };
    let config_source = inputs::config_source(&opts.config_from, github.as_ref(), &repo_dir)
        .map_err(InputError::from)?;
    if let Some(t) = config_source.tree()
        && opts.verbosity != Verbosity::Quiet
    {
        eprintln!(
            "judge-ci: the config and the files it names are read from {} ({})",
            t.label(),
            &t.commit()[..12]
        );
    }
    let (mut bench, task) = load_from(
        opts.config.as_deref(),
        opts.task.as_deref(),
        Arc::clone(&config_source),
        opts.verbosity,
        opts.color,
    )?;
    // The run's fence: its own `sandbox` settings, the folders judge-ci made hidden.
    let fence =
        Arc::new(Fence::new(bench.sandbox.network, hidden).requiring(&bench.sandbox.require));
    let checkout = Instant::now();
    let head = match &opts.head {
        Some(h) => materialize::materialize(&Source::parse(h), &repo_dir, opts.keep_checkouts)
            .map_err(|e| checkout_error("head", e))?,
        None => {
            if !opts.workspace.is_dir() {
                return Err(InputError::NoWorkspace(opts.workspace.clone()).into());
            }
            materialize::materialize(&Source::Folder(opts.workspace.clone()), &repo_dir, false)
                .map_err(|e| checkout_error("workspace", e))?
        }
    };
    let workspace = head.path.clone();
    // A reference folder inside the repository is the base's too, written out of its tree.
    let trusted_reference = match (&opts.reference, &bench.reference) {
        (None, Some(ReferenceSpec::Path(p))) => {
            bench
                .source
                .materialize_dir(p)
                .map_err(|source| InputError::ReferencePath {
                    path: p.clone(),
                    source,
                })?
        }
        _ => None,
    };
    let reference_checkout = resolve_reference(
        opts,
        &bench,
        &repo_dir,
        trusted_reference.as_ref(),
        reference_contents(opts.keep_checkouts, &bench, task_runs_code(&task, opts)),
    )?;
    let reference = reference_checkout.as_ref().map(|c| c.path.clone());
    // Checkouts and trees judge-ci made are its own, never the subject's to read.
    for made in [Some(&head), reference_checkout.as_ref()]
        .into_iter()
        .flatten()
        .flat_map(materialize::Checkout::folders_made)
    {
        fence.hide(made);
    }
    if let Some(t) = &trusted_reference {
        fence.hide(t.path());
    }
    // The reference itself, wherever it lies (a local `path:`, a suite task's folder): no
    // subject process reads it, in this run or a neighbour's.
    if let Some(r) = &reference {
        fence.hide_reference(r);
    }
    // A reference revision of the workspace's own repository: its objects are in the
    // workspace's .git, which subject processes can read (the fence line says so).
    if let Some(g) = reference_checkout
        .as_ref()
        .and_then(|c| c.git_dir.as_deref())
    {
        fence.note_reference_objects(g);
    }
    let store = crate::lang::cache::configure(
        opts.model_cache.as_deref(),
        &workspace,
        &|k| std::env::var(k).ok(),
        &fence,
    )
    .map_err(InputError::ModelCache)?
    .map(Arc::new);
    // What git knows of both trees, read before any subject code runs; with the model cache,
    // the structural judges' share of the run.
    let sides = Arc::new(crate::judges::structural::select::Sides::default());
    sides.register(&head, reference_checkout.as_ref());
    let comparisons = Arc::new(crate::judges::structural::Comparisons::new(
        sides,
        store.clone(),
    ));
    preflight(&bench.jury, &workspace, opts.color)?;
    // Every config-side file is read before judging, so the protected-path check sees them
    // all: the template now, the knowledge folder once more at the end (cheap).
    let template = match &bench.report.template {
        Some(p) => {
            Some(
                bench
                    .source
                    .read_to_string(p)
                    .map_err(|source| InputError::TemplateFile {
                        path: p.clone(),
                        source,
                    })?,
            )
        }
        None => None,
    };
    if let Some(k) = &bench.diagnostics.knowledge {
        let _ = crate::diagnose::inputs::read_knowledge_from(k, &bench.source);
    }
    let trust = guard(
        &mut bench,
        &config_source,
        &workspace,
        reference.as_deref(),
        &opts.out,
    )?;
    let head_sha = head
        .commit
        .clone()
        .or_else(|| github.as_ref().and_then(|g| g.head_sha.clone()));
    // A resumed run takes the first job's judgments of checks that run subject code, and
    // runs none itself (not even task commands).
    let first = match &opts.split {
        resume::Split::Resume(dir) => Some(resume::first_job(
            dir,
            &bench,
            &resume::ThisRun {
                head_sha: head_sha.clone(),
                base_sha: github.as_ref().and_then(|g| g.base_sha.clone()),
                run_id: github
                    .as_ref()
                    .and_then(|_| std::env::var("GITHUB_RUN_ID").ok()),
            },
        )?),
        resume::Split::Whole | resume::Split::StopBeforeSemantic => None,
    };
    // Subject processes may write the workspace, never read judge-ci's output folder.
    fence.add_workspace(&workspace);
    // Made ready before any subject code runs, so that the fence hides it (outside the
    // workspace) and nothing of judge-ci's names is left in it from before.
    let prepared = save::prepare(&opts.out).map_err(|e| RunError::Instrument(e.to_string()))?;
    fence.hide(&opts.out);
    for d in crate::judges::llm::cache::folders(&bench, &workspace, &|k| std::env::var(k).ok()) {
        // Made now, so that the fence hides the folder itself, not only what holds it.
        let _ = std::fs::create_dir_all(&d);
        fence.hide(&d);
    }
    let checkout_ms = checkout.elapsed().as_millis() as u64;

    let (progress, actions) = progress_for(opts.verbosity);
    let recording = Arc::new(progress::Recording::new(progress));
    let mode = match (&opts.split, &first) {
        (_, Some(f)) => f.mode.clone(),
        (resume::Split::StopBeforeSemantic, None) => crate::judges::split::Mode::DeferSemantic,
        (resume::Split::Whole | resume::Split::Resume(_), None) => crate::judges::split::Mode::Live,
    };
    let (jury, description) = jury_of(
        &bench,
        recording.clone(),
        opts.color,
        mode,
        &fence,
        &comparisons,
    )?;

    let judging = Instant::now();
    let mut metadata = bench.metadata.clone();
    if let Some(t) = &task {
        for (k, v) in &t.metadata {
            metadata.insert(k.clone(), v.clone());
        }
    }
    if let Some(r) = &reference {
        metadata.insert("expectedDir".into(), Value::from(r.display().to_string()));
    }
    // The workspace as submitted, for the structural judges, before any subject code runs
    // (a task's commands, then the jury's).
    let code_first = first.is_none() && task_runs_code(&task, opts);
    let snapshot = if crate::judges::snapshot::needed_after(&bench.jury, code_first) {
        let s = crate::judges::snapshot::Snapshot::take(
            &workspace,
            &bench.jury,
            &fence,
            comparisons.sides(),
        )
        .map_err(|e| {
            RunError::Instrument(format!(
                "cannot take the snapshot of the workspace the structural judges read: {e}"
            ))
        })?;
        metadata.insert(
            crate::judges::snapshot::SUBMITTED_DIR_KEY.into(),
            Value::from(s.path().display().to_string()),
        );
        Some(s)
    } else {
        None
    };
    let commands = match (&task, first) {
        (_, Some(f)) => f.commands,
        (Some(t), None) => task_commands(t, &bench, &workspace, opts.actions, &fence).await,
        (None, None) => Vec::new(),
    };
    let mut ctx = JudgmentContext::new(&workspace).with_goal(
        task.as_ref()
            .map(|t| t.instruction.clone())
            .unwrap_or_default(),
    );
    ctx.metadata = metadata;
    // A signal stops the vote: dropping it drops every running judge, whose process-group
    // guards kill their children; what finished so far is written as a cancelled report.
    let verdict = tokio::select! {
        v = crate::jury::vote(jury.as_ref(), Arc::new(ctx)) => v,
        (name, signal) = cancellation() => {
            if let Some(a) = &actions {
                a.close();
            }
            write_cancelled(opts, &bench.name, name, &recording.finished_so_far(), github.is_some());
            return Err(RunError::Cancelled { name, signal });
        }
    };
    if let Some(a) = actions {
        a.close();
    }
    let verdict = verdict
        .map_err(|f| RunError::Instrument(format!("the jury could not produce a verdict: {f}")))?;
    let tampered = snapshot
        .as_ref()
        .map(crate::judges::snapshot::Snapshot::tampered)
        .unwrap_or_default();
    if !tampered.is_empty() {
        return Err(RunError::Instrument(format!(
            "the snapshot of the submitted workspace was changed while the jury ran ({}); a subject process reached judge-ci's own files, so no verdict is given",
            tampered
                .iter()
                .take(5)
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let jury_ms = judging.elapsed().as_millis() as u64;
    if let Some(s) = &store {
        s.finish();
    }

    let render_start = Instant::now();
    let reading = interpret::interpret_verdict(&verdict);
    let tiers = tier_views(&bench.jury, &verdict);
    // Inside GitHub Actions the gate is stricter than the reading unless the (trusted)
    // config or the command line says otherwise: any ERROR fails it.
    let fail_on = opts
        .fail_on
        .or(bench.report.fail_on)
        .unwrap_or(if github.is_some() {
            FailOn::Error
        } else {
            FailOn::Fail
        });
    // A task command that failed is an ERROR of the run, like a tier that could not run:
    // the workspace the jury judged is not the one the task meant (a `post` that applies the
    // hidden tests did not apply), so the verdict is no acceptance under `fail-on: error`.
    let mut errored = super::task::failed_commands(&commands);
    errored.extend(report::notices::errored_tiers(&tiers, &verdict));
    let outcome = gate_with_errors(
        reading.reading,
        fail_on,
        reading.decided_by.as_deref(),
        errored,
    );
    let mut report = Report {
        schema: REPORT_SCHEMA.into(),
        tool: Tool {
            name: "judge-ci".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        subject: Subject {
            workspace: workspace.display().to_string(),
            reference: reference.as_ref().map(|r| r.display().to_string()),
            head_sha,
            run_url: github.as_ref().and_then(|g| g.run_url.clone()),
            run_id: github
                .as_ref()
                .and_then(|_| std::env::var("GITHUB_RUN_ID").ok()),
            server_url: github.as_ref().and_then(|g| g.server_url.clone()),
            path_in_repository: github
                .as_ref()
                .and_then(|g| g.checkout_root.as_deref())
                .and_then(|root| crate::report::location::folder_in_repository(&workspace, root)),
            repository: github.as_ref().map(|g| g.repository.clone()),
            pull_request: github.as_ref().and_then(|g| g.pull_request),
            base_sha: github.as_ref().and_then(|g| g.base_sha.clone()),
            event: github.as_ref().map(|g| g.event.clone()),
            reference_rev: reference_checkout
                .as_ref()
                .and_then(|c| c.commit.as_ref().map(|sha| format!("{} ({sha})", c.label))),
        },
        config: ConfigInfo {
            path: bench.path.display().to_string(),
            sha256: bench.sha256.clone(),
            name: bench.name.clone(),
            version: Some(bench.version.clone()),
            description,
            source: None,
            check_name: opts.publish.check_name(&bench.report),
            comment_key: opts.publish.comment_key(&bench.report),
        },
        task: task.as_ref().map(|t| TaskInfo {
            id: t.id.clone(),
            path: t.path.display().to_string(),
            commands,
        }),
        tiers,
        diffs: collect_diffs(&bench.jury, &verdict),
        llm: None,
        diagnostics: None,
        trust,
        tests: crate::judges::oracle::TestSets::of_verdict(&verdict),
        provenance: None,
        fence: {
            fence.restore_git();
            fence.report_line()
        },
        surface_digests: Default::default(),
        verdict,
        interpretation: InterpretationInfo {
            reading: reading.reading,
            reading_support: reading.reading_support,
            decided_by: reading.decided_by.clone(),
            defects: reading.defects.clone(),
        },
        timings: Timings {
            checkout_ms,
            jury_ms,
            render_ms: 0,
            total_ms: 0,
        },
        outcome,
    };
    // A template that does not render is a bad input, found before anything is written.
    markdown::render_with(&report, template.as_deref()).map_err(InputError::from)?;
    report.llm = crate::report::LlmTotals::of(&report.tiers);
    let inputs = crate::diagnose::Inputs::load(
        &bench.diagnostics,
        &workspace,
        task.as_ref().map_or("", |t| t.instruction.as_str()),
        &bench.source,
    );
    // Every config-side file has been read by now (the knowledge folder last).
    report.config.source = config_source.tree().map(|t| report::ConfigSourceInfo {
        from: t.label().to_string(),
        commit: t.commit(),
        files: config_files(t),
    });
    report.diagnostics = Some(crate::diagnose::analyze(
        &report.verdict,
        &report.seats(),
        &inputs,
        &bench.diagnostics.rules,
    ));
    report.timings.render_ms = render_start.elapsed().as_millis() as u64;
    report.timings.total_ms = total.elapsed().as_millis() as u64;

    saved_then_published(
        opts,
        report,
        template.as_deref(),
        &bench.report,
        &prepared,
        github.as_ref(),
    )
    .await
}

/// The saved and published stages: every surface to disk (the JSON last, with the digest
/// of the others) before anything is printed or posted, then GitHub's surfaces, then what
/// the command prints.
async fn saved_then_published(
    opts: &RunOptions,
    mut report: Report,
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
            .map_err(|e| RunError::Instrument(e.to_string()))?;
        surfaces.push((surface, text));
    }
    // The JSON last, holding the digest of every other surface as it is written.
    report.surface_digests = save::digests(&surfaces);
    save::replace_json(
        &mut surfaces,
        report::render(&report, Surface::Json, None, settings.annotations)
            .map_err(|e| RunError::Instrument(e.to_string()))?,
    );
    let saved = save::surfaces(&opts.out, &surfaces, &save::spill_dir());
    for w in saved.errors(&opts.out) {
        eprintln!("{w}");
    }
    let mut outputs_failed = saved.failed_any() || save::report_planted(prepared, &opts.out);
    // A run that failed on its outputs leaves no report where a later step would read it.
    let mut saved = saved;
    if outputs_failed {
        saved.report_json = save::withdraw(&opts.out, &save::spill_dir(), saved.report_json);
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
            let full = markdown::render_with(&report, template)
                .map_err(|e| RunError::Instrument(e.to_string()))?;
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
        report,
        stdout,
        report_path: saved.report_json,
        exit_code,
    })
}

/// Whether the task's commands run the pull request's code before the jury: `post` always,
/// `setup` inside Actions.
fn task_runs_code(task: &Option<crate::config::Task>, opts: &RunOptions) -> bool {
    task.as_ref()
        .is_some_and(|t| !t.post.is_empty() || opts.actions && !t.setup.is_empty())
}
