//! The stages of one run as functions with typed outputs, in the order [`super::run()`] calls
//! them: [`load`] → [`check_out`] → [`prepare`] → [`judge`] → [`report()`]; the saved and
//! published stages follow in `run`. Each stage's output is everything a later stage may use
//! of it, so what a stage reads is visible in its signature, and no subject code runs before
//! [`judge`].

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::assemble::{collect_diffs, tier_views};
use super::cancelled::write_cancelled;
use super::error::{InputError, InstrumentError, RunError};
use super::gate::gate_all;
use super::guard::{config_files, guard};
use super::jury::{jury_of, progress_for};
use super::load::load_from;
use super::options::{RunOptions, Verbosity};
use super::preflight::preflight;
use super::signals::cancellation;
use super::task::task_commands;
use super::trees::{checkout_error, reference_contents, resolve_base, resolve_reference};
use super::{config_tree, progress, resume, save};
use crate::config::{Benchmark, ConfigSource, FailOn, ReferenceSpec, Task};
use crate::fence::{Fence, Hidden};
use crate::github::{self, context::Context};
use crate::judges::structural::Comparisons;
use crate::judgment::JudgmentContext;
use crate::jury::{Verdict, interpret};
use crate::lang::cache::Store;
use crate::materialize::{self, Checkout, Source};
use crate::report::{
    self, CommandRecord, ConfigInfo, InterpretationInfo, REPORT_SCHEMA, Report, Subject, TaskInfo,
    Timings, Tool, TrustInfo, markdown,
};

/// The loaded stage: where the run is, the GitHub event it answers, the trusted config and
/// task, and the run's own fence.
pub struct Loaded {
    /// The folder judge-ci was started in (the repository, for relative sources).
    pub repo_dir: PathBuf,
    /// The GitHub event, inside Actions.
    pub github: Option<Context>,
    /// Where the config and the files it names are read from (a trusted tree or the disk).
    pub config_source: Arc<ConfigSource>,
    /// The config; the guard stage may still tighten it (pinned and restored paths).
    pub bench: Benchmark,
    /// The task, when the config is a benchmark with tasks.
    pub task: Option<Task>,
    /// The run's fence: its own `sandbox` settings, the folders judge-ci made hidden.
    pub fence: Arc<Fence>,
}

/// The config and the run's fence, read before any tree is checked out.
pub fn load(opts: &RunOptions, hidden: Arc<Hidden>) -> Result<Loaded, RunError> {
    save::check_out_dir(&opts.out).map_err(InputError::from)?;
    resume::check_out_is_not_input(&opts.split, &opts.out)?;
    let repo_dir = std::env::current_dir().map_err(InputError::WorkingFolder)?;
    // Inside Actions an event judge-ci cannot read is not judged: whether the run concerns a
    // pull request (and so whose config judges it) is decided from it (trust.md point 1).
    let github = github::context::from_env(&|k| std::env::var(k).ok().filter(|_| opts.actions))
        .map_err(InputError::from)?;
    let config_source = config_tree::config_source(&opts.config_from, github.as_ref(), &repo_dir)
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
    if let Some(names) = &opts.semantic_only {
        let problem = match bench.jury.semantic_only(Some(names)) {
            Ok(Some(jury)) => {
                bench.jury = jury;
                None
            }
            Ok(None) => Some("the config has no semantic check (llm, semantic-diff, correctness, test-quality-llm, ears, rfc2119) to calibrate".to_string()),
            Err(why) => Some(why.to_string()),
        };
        if let Some(why) = problem {
            let mut problems = crate::config::Diagnostics::default();
            problems.push(crate::config::Diagnostic::error(None, why));
            return Err(InputError::Config {
                problems,
                color: opts.color,
            }
            .into());
        }
    }
    let fence =
        Arc::new(Fence::new(bench.sandbox.network, hidden).requiring(&bench.sandbox.require));
    Ok(Loaded {
        repo_dir,
        github,
        config_source,
        bench,
        task,
        fence,
    })
}

/// The trees stage: the subject's workspace and the reference, checked out, hidden from the
/// subject where they are judge-ci's, with what git knows of both and the model store.
pub struct Trees {
    /// The subject's checkout (a folder as it is, or a revision judge-ci wrote out).
    pub head: Checkout,
    /// The workspace the jury judges.
    pub workspace: PathBuf,
    /// The reference checkout, when the config names one.
    pub reference_checkout: Option<Checkout>,
    /// The reference folder the judges compare against.
    pub reference: Option<PathBuf>,
    /// The reference's digest, taken before any subject code runs (`trees::reference_digest`).
    pub reference_digest: Option<String>,
    /// A reference folder inside the repository, written out of the base's tree; kept for
    /// the run's length.
    _trusted_reference: Option<tempfile::TempDir>,
    /// The base checkout (`base:`), kept for the run's length.
    _base_checkout: Option<Checkout>,
    /// A base folder inside the repository, written out of the base's tree.
    _trusted_base: Option<tempfile::TempDir>,
    /// The base folder the oracle runs the trusted tests on (FAIL_TO_PASS / PASS_TO_PASS).
    pub base: Option<PathBuf>,
    /// The parsed-model store, when the model cache is on.
    pub store: Option<Arc<Store>>,
    /// The structural judges' share of the run: git's view of both trees and the store.
    pub comparisons: Arc<Comparisons>,
    /// When checking out started (the report's `checkoutMs` runs to the end of [`prepare`]).
    started: Instant,
}

/// Checks out the workspace and the reference, hides judge-ci's own folders, and refuses
/// paths of the config that escape the workspace.
pub fn check_out(opts: &RunOptions, loaded: &Loaded) -> Result<Trees, RunError> {
    let started = Instant::now();
    let (bench, task, fence) = (&loaded.bench, &loaded.task, &loaded.fence);
    let repo_dir = &loaded.repo_dir;
    let head = match &opts.head {
        Some(h) => materialize::materialize(&Source::parse(h), repo_dir, opts.keep_checkouts)
            .map_err(|e| checkout_error("head", e))?,
        None => {
            if let Some(why) = super::submission::not_a_submission(&opts.workspace, &[]) {
                return Err(InputError::NotASubmission(why).into());
            }
            if !opts.workspace.is_dir() {
                return Err(InputError::NoWorkspace(opts.workspace.clone()).into());
            }
            materialize::materialize(&Source::Folder(opts.workspace.clone()), repo_dir, false)
                .map_err(|e| checkout_error("workspace", e))?
        }
    };
    let workspace = head.path.clone();
    // A reference folder inside the repository is the base's too, written out of its tree,
    // whether the config names it or the workflow does (`--reference DIR`, the Action's
    // `reference:` input): in a pull-request context the working tree is the pull request's,
    // which could make the folder a link to itself or rewrite it (attack finding N7-6).
    let named_folder = match (&opts.reference, &bench.reference) {
        (Some(arg), _) => match materialize::Source::parse(arg) {
            materialize::Source::Folder(p) => Some(std::path::absolute(&p).unwrap_or(p)),
            _ => None,
        },
        (None, Some(ReferenceSpec::Path(p))) => Some(p.clone()),
        (None, _) => None,
    };
    let trusted_reference = match &named_folder {
        Some(p) => bench
            .source
            .materialize_dir(p)
            .map_err(|source| InputError::ReferencePath {
                path: p.clone(),
                source,
            })?,
        None => None,
    };
    let reference_checkout = resolve_reference(
        opts,
        bench,
        repo_dir,
        trusted_reference.as_ref(),
        reference_contents(opts.keep_checkouts, bench, task_runs_code(task, opts)),
    )?;
    let reference = reference_checkout.as_ref().map(|c| c.path.clone());
    // The answer key is never the submission: neither the reference judge-ci compares with
    // nor the folder the config or --reference names (attack findings GA3, NC14).
    if opts.head.is_none() {
        let named = match (&opts.reference, &bench.reference) {
            (Some(r), _) => Some(PathBuf::from(r)),
            (None, Some(ReferenceSpec::Path(p))) => Some(p.clone()),
            _ => None,
        };
        let refs: Vec<&Path> = reference
            .iter()
            .chain(named.iter())
            .map(PathBuf::as_path)
            .collect();
        if let Some(why) = super::submission::not_a_submission(&opts.workspace, &refs) {
            return Err(InputError::NotASubmission(why).into());
        }
    }
    // The base (`base:`), for the oracle's FAIL_TO_PASS / PASS_TO_PASS: trusted input, so no
    // subject process reads or writes it.
    let trusted_base = match &bench.base {
        Some(ReferenceSpec::Path(p)) => {
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
    // Without `base:`, a pull-request run's base is the commit its trusted event names,
    // when a check runs the oracle (which runs the trusted tests on it) against a reference.
    let oracle_runs = reference.is_some()
        && bench.jury.all_checks().iter().any(|c| {
            matches!(
                c.kind,
                crate::config::checks::CheckKind::MavenBuild { .. }
                    | crate::config::checks::CheckKind::TestInvariance { .. }
            )
        });
    let event_base = loaded
        .github
        .as_ref()
        .filter(|g| g.pr_context && oracle_runs)
        .and_then(|g| g.base_sha.as_deref());
    let base_checkout = resolve_base(
        bench,
        repo_dir,
        trusted_base.as_ref(),
        opts.keep_checkouts,
        event_base,
    )?;
    let base = base_checkout.as_ref().map(|c| c.path.clone());
    for made in base_checkout
        .iter()
        .flat_map(materialize::Checkout::folders_made)
    {
        fence.hide(made);
    }
    if let Some(t) = &trusted_base {
        fence.hide(t.path());
    }
    if let Some(b) = &base {
        fence.hide(b);
    }
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
        // The folder the config names is judged from the base's copy, but the checkout's own
        // copy of it (the head's) is the reference too, wherever it lies: hidden as well
        // (attack finding newer F1: `../reference` beside the workspace was readable).
        if let (None, Some(ReferenceSpec::Path(p))) = (&opts.reference, &bench.reference)
            && p.exists()
        {
            fence.hide_reference(p);
        }
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
        fence,
    )
    .map_err(InputError::ModelCache)?
    .map(Arc::new);
    // What git knows of both trees, read before any subject code runs; with the model cache,
    // the structural judges' share of the run.
    let sides = Arc::new(crate::judges::structural::select::Sides::default());
    sides.register(&head, reference_checkout.as_ref());
    let comparisons = Arc::new(Comparisons::new(sides, store.clone()));
    preflight(&bench.jury, &workspace, opts.color)?;
    Ok(Trees {
        head,
        workspace,
        reference_digest: reference_checkout.as_ref().map(|c| {
            let key = std::env::var_os(super::trees::REFERENCE_KEY_ENV);
            super::trees::reported_digest(
                &super::trees::reference_digest(c),
                bench.report.reveal,
                key.as_ref()
                    .map(|k| std::os::unix::ffi::OsStrExt::as_bytes(k.as_os_str())),
            )
        }),
        reference_checkout,
        reference,
        _trusted_reference: trusted_reference,
        _base_checkout: base_checkout,
        _trusted_base: trusted_base,
        base,
        store,
        comparisons,
        started,
    })
}

/// The prepared stage: every config-side file read, the workspace guarded, the first job of
/// a split run taken, and judge-ci's output folder made ready and hidden.
pub struct Ready {
    /// The report template, read from the config's source.
    pub template: Option<String>,
    /// What the guard pinned, restored and found unjudged.
    pub trust: Option<TrustInfo>,
    /// The commit judged.
    pub head_sha: Option<String>,
    /// The first job's judgments, when this run resumes one.
    pub first: Option<resume::FirstJob>,
    /// The output folder as it was before any subject process ran.
    pub out: save::Prepared,
    /// From checking out to here.
    pub checkout_ms: u64,
}

/// Reads every config-side file, guards the workspace (protected and restored paths), takes
/// a resumed run's first job and makes the output and reply-cache folders judge-ci's.
pub fn prepare(opts: &RunOptions, loaded: &mut Loaded, trees: &Trees) -> Result<Ready, RunError> {
    let (workspace, fence) = (&trees.workspace, Arc::clone(&loaded.fence));
    // Every config-side file is read before judging, so the protected-path check sees them
    // all: the template now, the knowledge folder once more at the end (cheap).
    let template = match &loaded.bench.report.template {
        Some(p) => Some(loaded.bench.source.read_to_string(p).map_err(|source| {
            InputError::TemplateFile {
                path: p.clone(),
                source,
            }
        })?),
        None => None,
    };
    if let Some(k) = &loaded.bench.diagnostics.knowledge {
        let _ = crate::diagnose::inputs::read_knowledge_from(k, &loaded.bench.source);
    }
    // A plan a check verifies is the trusted side's in a pull-request context; read before
    // the guard, so a pull request that changed it is told so with the judge's other files.
    super::plans::from_trusted_side(&mut loaded.bench, &loaded.config_source, workspace)?;
    // The head commit judge-ci wrote the workspace out of (`--head REV`): what it records
    // that a written folder does not show (a gitlink) is listed too.
    let written = match (&opts.head, &trees.head.git_dir, &trees.head.commit) {
        (Some(_), Some(git_dir), Some(commit)) => git2::Oid::from_str(commit).ok().map(|id| {
            crate::config::source::GitTree::new(
                git_dir.clone(),
                workspace,
                id,
                format!("the head commit {commit}"),
            )
        }),
        _ => None,
    };
    let trust = guard(
        &mut loaded.bench,
        &loaded.config_source,
        written.as_ref(),
        super::guard::Place {
            workspace,
            reference: trees.reference.as_deref(),
            out: &opts.out,
        },
        trees.comparisons.sides(),
        &loaded.fence,
    )?;
    if let Some(t) = &trust {
        loaded.fence.note_reference_copied(&t.restore_revealed);
    }
    let bench = &loaded.bench;
    let github = loaded.github.as_ref();
    if trees.head.commit.is_none()
        && let Some(g) = github
    {
        checkout_is_head(workspace, g)?;
    }
    // Outside Actions, the commit judge-ci itself sees checked out: a later job (`resume`)
    // is bound to it in every environment (attack finding S8-5: outside Actions the report
    // held no head, and a first job's judgments were taken for another commit).
    let head_sha = trees
        .head
        .commit
        .clone()
        .or_else(|| github.and_then(|g| g.head_sha.clone()))
        .or_else(|| {
            github.is_none().then_some(())?;
            let repo = git2::Repository::discover(workspace).ok()?;
            let commit = repo.head().ok()?.peel_to_commit().ok()?;
            Some(commit.id().to_string())
        });
    // A resumed run takes the first job's judgments of checks that run subject code, and
    // runs none itself (not even task commands).
    let first = match &opts.split {
        resume::Split::Resume(dir) => Some(resume::first_job(
            dir,
            bench,
            &resume::ThisRun {
                head_sha: head_sha.clone(),
                base_sha: github.and_then(|g| g.base_sha.clone()),
                reference_digest: trees.reference_digest.clone(),
                run_id: run_id(github),
                workspace: opts.head.is_none().then(|| workspace.display().to_string()),
                path_in_repository: github.and_then(|g| g.checkout_root.as_deref()).and_then(
                    |root| crate::report::location::folder_in_repository(workspace, root),
                ),
                task: loaded
                    .task
                    .as_ref()
                    .map(|t| (t.id.clone(), t.path.display().to_string())),
            },
        )?),
        resume::Split::Whole | resume::Split::StopBeforeSemantic => None,
    };
    // Subject processes may write the workspace, never read judge-ci's output folder.
    fence.add_workspace(workspace);
    // Made ready before any subject code runs, so that the fence hides it (outside the
    // workspace) and nothing of judge-ci's names is left in it from before.
    let out = save::prepare(&opts.out).map_err(InstrumentError::from)?;
    fence.hide(&opts.out);
    for d in crate::judges::llm::replies::folders(bench, workspace, &|k| std::env::var(k).ok()) {
        // Made now, so that the fence hides the folder itself, not only what holds it.
        let _ = std::fs::create_dir_all(&d);
        fence.hide(&d);
    }
    Ok(Ready {
        template,
        trust,
        head_sha,
        first,
        out,
        checkout_ms: trees.started.elapsed().as_millis() as u64,
    })
}

/// The judged stage: the jury's verdict, the task commands run before it, and the jury's
/// description for the report.
pub struct Judged {
    /// The verdict.
    pub verdict: Verdict,
    /// The task commands (run now, or the first job's).
    pub commands: Vec<CommandRecord>,
    /// The jury as the report describes it.
    pub description: Value,
    /// How long the vote took.
    pub jury_ms: u64,
    /// The model spending limits and what was spent against them.
    pub limits: Vec<crate::judges::llm::budget::LimitUse>,
}

/// Builds the jury, snapshots the workspace as submitted, runs the task commands and votes;
/// a signal stops the vote and writes what finished as a cancelled report.
pub async fn judge(
    opts: &RunOptions,
    loaded: &Loaded,
    trees: &Trees,
    ready: &Ready,
) -> Result<Judged, RunError> {
    let (bench, task, fence) = (&loaded.bench, &loaded.task, &loaded.fence);
    let workspace = &trees.workspace;
    let (progress, actions) = progress_for(opts.verbosity);
    let recording = Arc::new(progress::Recording::new(progress));
    let mode = match (&opts.split, &ready.first) {
        (_, Some(f)) => f.mode.clone(),
        (resume::Split::StopBeforeSemantic, None) => crate::judges::split::Mode::DeferSemantic,
        (resume::Split::Whole | resume::Split::Resume(_), None) => crate::judges::split::Mode::Live,
    };
    let (jury, description, llm) = jury_of(
        bench,
        recording.clone(),
        opts.color,
        mode,
        fence,
        &trees.comparisons,
        opts.llm_budget.clone(),
    )?;
    let judging = Instant::now();
    let mut metadata = bench.metadata.clone();
    if let Some(t) = task {
        for (k, v) in &t.metadata {
            metadata.insert(k.clone(), v.clone());
        }
    }
    // The workspace as submitted, for the structural judges, before any subject code runs
    // (a task's commands, then the jury's).
    let code_first = ready.first.is_none() && task_runs_code(task, opts);
    let snapshot = if crate::judges::snapshot::needed_after(&bench.jury, code_first) {
        let s = crate::judges::snapshot::Snapshot::take(
            workspace,
            &bench.jury,
            fence,
            trees.comparisons.sides(),
        )
        .map_err(InstrumentError::Snapshot)?;
        Some(s)
    } else {
        None
    };
    let commands = match (task, &ready.first) {
        (_, Some(f)) => f.commands.clone(),
        (Some(t), None) => task_commands(t, bench, workspace, opts.actions, fence).await,
        (None, None) => Vec::new(),
    };
    let mut ctx = JudgmentContext::new(workspace)
        .with_goal(
            task.as_ref()
                .map(|t| t.instruction.clone())
                .unwrap_or_default(),
        )
        .with_reference(trees.reference.clone());
    ctx.base = trees.base.clone();
    ctx.submitted = snapshot.as_ref().map(|s| s.path().to_path_buf());
    ctx.conventions = crate::judgment::Conventions::of(&metadata).map_err(InputError::Metadata)?;
    ctx.metadata = metadata;
    // A signal stops the vote: dropping it drops every running judge, whose process-group
    // guards kill their children; what finished so far is written as a cancelled report.
    let verdict = tokio::select! {
        v = crate::jury::vote(jury.as_ref(), Arc::new(ctx)) => v,
        (name, signal) = cancellation() => {
            if let Some(a) = &actions {
                a.close();
            }
            write_cancelled(opts, &bench.name, name, &recording.finished_so_far(), loaded.github.is_some());
            return Err(RunError::Cancelled { name, signal });
        }
    };
    if let Some(a) = actions {
        a.close();
    }
    let verdict = verdict.map_err(InstrumentError::Vote)?;
    let tampered = snapshot
        .as_ref()
        .map(crate::judges::snapshot::Snapshot::tampered)
        .unwrap_or_default();
    if !tampered.is_empty() {
        return Err(InstrumentError::SnapshotTampered { paths: tampered }.into());
    }
    let jury_ms = judging.elapsed().as_millis() as u64;
    if let Some(s) = &trees.store {
        s.finish();
    }
    Ok(Judged {
        verdict,
        commands,
        description,
        jury_ms,
        limits: llm.limit_uses(),
    })
}

/// The report stage: the verdict read and gated, the report's views, trust and fence facts,
/// and the gap analysis; a template that does not render is refused here, before anything
/// is written.
pub fn report(
    opts: &RunOptions,
    loaded: &Loaded,
    trees: &Trees,
    ready: &Ready,
    judged: Judged,
    started: Instant,
) -> Result<crate::report::Revealed, RunError> {
    let render_start = Instant::now();
    let (bench, task, github) = (&loaded.bench, &loaded.task, loaded.github.as_ref());
    let Judged {
        verdict,
        commands,
        description,
        jury_ms,
        limits,
    } = judged;
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
    let against = report::notices::counts_against(&tiers, &verdict);
    let outcome = gate_all(
        reading.reading,
        fail_on,
        reading.decided_by.as_deref(),
        errored,
        against,
    );
    let workspace = &trees.workspace;
    let mut report = Report {
        schema: REPORT_SCHEMA.into(),
        tool: Tool {
            name: "judge-ci".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        subject: Subject {
            workspace: workspace.display().to_string(),
            reference: trees.reference.as_ref().map(|r| r.display().to_string()),
            head_sha: ready.head_sha.clone(),
            run_url: github.and_then(|g| g.run_url.clone()),
            run_id: run_id(github),
            server_url: github.and_then(|g| g.server_url.clone()),
            path_in_repository: github
                .and_then(|g| g.checkout_root.as_deref())
                .and_then(|root| crate::report::location::folder_in_repository(workspace, root)),
            repository: github.map(|g| g.repository.clone()),
            pull_request: github.and_then(|g| g.pull_request),
            base_sha: github.and_then(|g| g.base_sha.clone()),
            event: github.map(|g| g.event.clone()),
            reference_rev: trees
                .reference_checkout
                .as_ref()
                .and_then(|c| c.commit.as_ref().map(|sha| format!("{} ({sha})", c.label))),
            reference_digest: trees.reference_digest.clone(),
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
        trust: ready.trust.clone(),
        tests: crate::judges::oracle::TestSets::of_verdict(&verdict),
        provenance: None,
        fence: {
            loaded.fence.restore_git();
            loaded.fence.report_line()
        },
        surface_digests: Default::default(),
        reveal: crate::config::Reveal::Full,
        verdict,
        interpretation: InterpretationInfo {
            reading: reading.reading,
            reading_support: reading.reading_support,
            decided_by: reading.decided_by.clone(),
            defects: reading.defects.clone(),
        },
        timings: Timings {
            checkout_ms: ready.checkout_ms,
            jury_ms,
            render_ms: 0,
            total_ms: 0,
        },
        outcome,
    };
    markdown::render_with(&report, ready.template.as_deref()).map_err(InputError::from)?;
    report.llm = crate::report::LlmTotals::of(&report.tiers);
    // The spending limits and what was spent against them (a suite's: by every task so far).
    if !limits.is_empty() {
        report.llm.get_or_insert_with(Default::default).limits = limits;
    }
    let inputs = crate::diagnose::Inputs::load(
        &bench.diagnostics,
        workspace,
        task.as_ref().map_or("", |t| t.instruction.as_str()),
        &bench.source,
    );
    // Every config-side file has been read by now (the knowledge folder last).
    report.config.source = loaded
        .config_source
        .tree()
        .map(|t| report::ConfigSourceInfo {
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
    report.timings.total_ms = started.elapsed().as_millis() as u64;
    // The one point where the report becomes what its surfaces may show (trust.md 23).
    let level = super::reveal::level(
        bench.report.reveal,
        &loaded.fence,
        super::reveal::handed(&report),
        opts.verbosity,
    );
    let vocabulary = match level {
        crate::config::Reveal::Full => Default::default(),
        _ => super::reveal::vocabulary(trees, task.as_ref().map(|t| t.instruction.as_str())),
    };
    crate::report::Revealed::new(report, level, &vocabulary)
        .map_err(|e| InstrumentError::from(e).into())
}

/// The Actions run id, inside Actions.
fn run_id(github: Option<&Context>) -> Option<String> {
    github.and_then(|_| std::env::var("GITHUB_RUN_ID").ok())
}

/// Whether the task's commands run the pull request's code before the jury: `post` always,
/// `setup` inside Actions.
fn task_runs_code(task: &Option<Task>, opts: &RunOptions) -> bool {
    task.as_ref()
        .is_some_and(|t| !t.post.is_empty() || opts.actions && !t.setup.is_empty())
}

/// In a pull-request context, refuses a workspace whose checked-out commit is neither the
/// event's head nor a merge commit of it (GitHub's `refs/pull/N/merge`): the verdict is
/// posted on the head, so the tree judged must be the head's (attack finding B11-8: a
/// `pull_request_target` checkout without `ref:` is the base, judged and posted as the
/// head's). A workspace that is no git checkout is not checked (nothing to compare).
fn checkout_is_head(workspace: &Path, g: &crate::github::context::Context) -> Result<(), RunError> {
    let (Some(head), Some(_)) = (&g.head_sha, &g.base_sha) else {
        return Ok(());
    };
    let Ok(repo) = git2::Repository::discover(workspace) else {
        return Ok(());
    };
    let Ok(commit) = repo.head().and_then(|h| h.peel_to_commit()) else {
        return Ok(());
    };
    let found = commit.id().to_string();
    if found == *head || commit.parent_ids().any(|p| p.to_string() == *head) {
        return Ok(());
    }
    Err(InputError::CheckoutNotHead {
        workspace: workspace.to_path_buf(),
        found,
        head: head.clone(),
        event: g.event.clone(),
    }
    .into())
}
