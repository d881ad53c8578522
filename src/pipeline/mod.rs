//! The one place that strings the stages together: config → workspace and reference → jury →
//! report, written to disk before anything is printed.

pub mod diagnose;
pub mod inputs;
pub mod progress;
pub mod protect;
pub mod publish;
pub mod resume;
pub mod save;

use serde_json::Value;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use thiserror::Error;

use crate::checkout::{self, Checkout, CheckoutError, Source};
use crate::config::checks::{CheckKind, CheckType, WorkspacePath};
use crate::config::{
    Benchmark, CheckSpec, ConfigSource, Diagnostic, Diagnostics, FailOn, JurySpec, ReferenceSpec,
    Task, discover_in, load_benchmark_from, load_task_from,
};
use crate::github::{self, outputs as gh_outputs};
use crate::judges::process::{self, Exit, ProcessSpec};
use crate::judges::{NoProgress, Progress, build_jury, paths};
use crate::judgment::JudgmentContext;
use crate::jury::interpret::{self, Reading};
use crate::jury::{Decision, Jury, Verdict};
use crate::report::{
    self, CommandRecord, ConfigInfo, DiffEntry, Diffs, Gate, InterpretationInfo, JudgeView,
    NotRunJudge, Outcome, REPORT_SCHEMA, Report, Subject, Surface, TaskInfo, TierView, Timings,
    Tool, markdown,
};

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

/// What the run prints on standard output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The markdown report.
    Markdown,
    /// The report JSON.
    Json,
}

/// How chatty the run is on standard error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// Errors only.
    Quiet,
    /// Warnings and progress.
    Normal,
    /// Every judge start and finish as plain lines.
    Verbose,
}

/// Everything a run needs from the command line.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--task`.
    pub task: Option<PathBuf>,
    /// `--workspace`.
    pub workspace: PathBuf,
    /// `--reference`: a folder, a revision, or `URL#REV`.
    pub reference: Option<String>,
    /// `--head`: the subject as a revision or `URL#REV`.
    pub head: Option<String>,
    /// `--keep-checkouts`.
    pub keep_checkouts: bool,
    /// `--model-cache`: a folder, `off`, or `None` for the default.
    pub model_cache: Option<String>,
    /// `--dry-run`: print instead of posting.
    pub dry_run: bool,
    /// `--out`.
    pub out: PathBuf,
    /// `--format`.
    pub format: Format,
    /// `--quiet` / `--verbose`.
    pub verbosity: Verbosity,
    /// Colour on standard error.
    pub color: bool,
    /// `--fail-on`, over the config's.
    pub fail_on: Option<FailOn>,
    /// `--config-from`: where the config and the files it names are read from.
    pub config_from: inputs::ConfigFrom,
    /// Publishing to GitHub.
    pub publish: publish::PublishOptions,
    /// Whether this is a single run (true) or a task of a suite (false): a suite ignores the
    /// GitHub Actions environment and does not run task `setup` commands, which prepare the
    /// agent's starting point and would overwrite the stored solution being judged.
    pub actions: bool,
    /// Whether this run is one job of a split run (`--stop-before-semantic`, `resume`).
    pub split: resume::Split,
}

/// Why a run could not judge.
#[derive(Debug, Error)]
pub enum RunError {
    /// Bad input: exit 2. The text is ready to print (diagnostics with snippets).
    #[error("{0}")]
    Input(String),
    /// The engine itself failed before producing a verdict: exit 3.
    #[error("{0}")]
    Instrument(String),
    /// A signal (the Actions "Cancel", Ctrl-C) stopped the run: exit 128 + the signal.
    #[error(
        "cancelled by {name}; the judges still running were stopped (their process groups killed)"
    )]
    Cancelled {
        /// SIGTERM or SIGINT.
        name: &'static str,
        /// The signal's number.
        signal: i32,
    },
}

impl RunError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Input(_) => EXIT_BAD_INPUT,
            RunError::Instrument(_) => EXIT_INSTRUMENT,
            RunError::Cancelled { signal, .. } => 128 + signal,
        }
    }
}

/// A finished run.
pub struct RunResult {
    /// The report, as written.
    pub report: Report,
    /// What to print on standard output.
    pub stdout: String,
    /// Where the report JSON was written: the output folder, a spill file when the folder
    /// could not take it, or nowhere (see the warnings printed).
    pub report_path: Option<PathBuf>,
    /// The process exit code: the verdict's (`report.outcome.exit_code`), or
    /// [`EXIT_PUBLISH`] when `--require-publish` is set and publishing fell short.
    pub exit_code: i32,
}

fn diags_error(d: &Diagnostics, color: bool) -> RunError {
    RunError::Input(d.render(color).trim_end().to_string())
}

fn one(msg: String, help: Option<&str>) -> RunError {
    let mut d = Diagnostic::error(None, msg);
    if let Some(h) = help {
        d = d.help(h);
    }
    RunError::Input(d.render(None, false).trim_end().to_string())
}

/// Loads the config (discovered when not given) and the task from the working tree,
/// printing warnings.
pub fn load(
    config: Option<&Path>,
    task: Option<&Path>,
    verbosity: Verbosity,
    color: bool,
) -> Result<(Benchmark, Option<Task>), RunError> {
    load_from(config, task, Arc::default(), verbosity, color)
}

/// Loads the config (discovered when not given) and the task through `source` (the working
/// tree, or a trusted commit's tree), printing warnings.
pub fn load_from(
    config: Option<&Path>,
    task: Option<&Path>,
    source: Arc<ConfigSource>,
    verbosity: Verbosity,
    color: bool,
) -> Result<(Benchmark, Option<Task>), RunError> {
    let path = match config {
        Some(p) => p.to_path_buf(),
        None => {
            let cwd = std::env::current_dir()
                .map_err(|e| one(format!("cannot read the working folder: {e}"), None))?;
            discover_in(&cwd, &source).ok_or_else(|| {
                let place = match source.tree() {
                    Some(t) => format!("{} ({}) of the repository at {}", t.label(), &t.commit()[..7], cwd.display()),
                    None => cwd.display().to_string(),
                };
                one(
                    format!("no configuration found in {place}"),
                    Some(if source.tree().is_some() {
                        "the config is read from the trusted base, so it must exist there; pass --config PATH, or --config-from head to use the pull request's own"
                    } else {
                        "looked for judge-ci.yml, .github/judge-ci.yml and benchmark.yaml; pass --config PATH"
                    }),
                )
            })?
        }
    };
    let (bench, warnings) =
        load_benchmark_from(&path, Arc::clone(&source)).map_err(|d| diags_error(&d, color))?;
    let mut all_warnings = warnings;
    let task = match task {
        Some(t) => {
            let (task, w) = load_task_from(t, &source).map_err(|d| diags_error(&d, color))?;
            all_warnings.items.extend(w.items);
            Some(task)
        }
        None => None,
    };
    if verbosity != Verbosity::Quiet && !all_warnings.items.is_empty() {
        eprint!("{}", all_warnings.render(color));
    }
    Ok((bench, task))
}

/// Every workspace path a check names, with the check.
fn check_paths(spec: &JurySpec) -> Vec<(&CheckSpec, &WorkspacePath)> {
    let checks: Vec<&CheckSpec> = match spec {
        JurySpec::Checks { checks, .. } => checks.iter().collect(),
        JurySpec::Tiers(t) => t.iter().flat_map(|t| &t.checks).collect(),
        JurySpec::Members { members, .. } => members
            .iter()
            .flat_map(|m| check_paths(&m.jury).into_iter().map(|(c, _)| c))
            .collect(),
    };
    let mut out: Vec<(&CheckSpec, &WorkspacePath)> = Vec::new();
    for c in checks {
        match &c.kind {
            CheckKind::FileExists { path } | CheckKind::FileContent { path, .. } => {
                out.push((c, path))
            }
            CheckKind::Command { dir: Some(d), .. } => out.push((c, d)),
            CheckKind::ClassVersion { dir, .. } => out.push((c, dir)),
            CheckKind::CoveragePreservation { report, .. }
            | CheckKind::CoverageImprovement { report, .. } => out.push((c, report)),
            _ => {}
        }
    }
    out.dedup_by(|a, b| std::ptr::eq(a.0, b.0) && a.1 == b.1);
    out
}

/// Refuses, before anything runs, a configured path that leads out of the workspace through
/// a symlink.
fn preflight(spec: &JurySpec, workspace: &Path, color: bool) -> Result<(), RunError> {
    let mut d = Diagnostics::default();
    for (c, p) in check_paths(spec) {
        if let paths::Resolved::Escapes(why) = paths::resolve(workspace, p.as_path()) {
            d.push(
                Diagnostic::error(c.loc.clone(), format!("check '{}': {why}", c.name))
                    .help("a check may only read inside the workspace; remove the symlink or change the path"),
            );
        }
    }
    if d.has_errors() {
        Err(diags_error(&d, color))
    } else {
        Ok(())
    }
}

fn checkout_error(what: &str, e: CheckoutError) -> RunError {
    let help = match &e {
        CheckoutError::NoRevision { .. } => {
            Some("check the name, or fetch it (a shallow clone may lack it and the fetch failed)")
        }
        CheckoutError::NoRepository { .. } => {
            Some("pass a folder, run judge-ci inside the repository, or use URL#REV")
        }
        CheckoutError::NoFolder(_) => Some("pass an existing folder, a revision, or URL#REV"),
        CheckoutError::Failed(_) => None,
    };
    one(format!("{what}: {e}"), help)
}

/// The reference, from the command line or the config, materialised when it is a revision.
fn resolve_reference(
    opts: &RunOptions,
    bench: &Benchmark,
    repo_dir: &Path,
    trusted_reference: Option<&tempfile::TempDir>,
) -> Result<Option<Checkout>, RunError> {
    let source = match (&opts.reference, &bench.reference) {
        (Some(arg), _) => Source::parse(arg),
        (None, Some(ReferenceSpec::Path(p))) => match trusted_reference {
            Some(t) => Source::Folder(t.path().to_path_buf()),
            None => Source::Folder(p.clone()),
        },
        (
            None,
            Some(ReferenceSpec::Rev {
                rev,
                repository: None,
            }),
        ) => Source::Rev(rev.clone()),
        (
            None,
            Some(ReferenceSpec::Rev {
                rev,
                repository: Some(url),
            }),
        ) => Source::Remote {
            url: url.clone(),
            rev: rev.clone(),
        },
        (None, None) => return Ok(None),
    };
    checkout::materialize(&source, repo_dir, opts.keep_checkouts)
        .map(Some)
        .map_err(|e| checkout_error("reference", e))
}

fn progress_for(
    verbosity: Verbosity,
) -> (Arc<dyn Progress>, Option<Arc<progress::ActionsProgress>>) {
    if verbosity == Verbosity::Quiet {
        return (Arc::new(NoProgress), None);
    }
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        let a = Arc::new(progress::ActionsProgress::default());
        return (a.clone(), Some(a));
    }
    if verbosity == Verbosity::Verbose {
        return (Arc::new(progress::LogProgress), None);
    }
    if std::io::stderr().is_terminal() {
        return (Arc::new(progress::TerminalProgress::new()), None);
    }
    (Arc::new(NoProgress), None)
}

async fn task_commands(
    task: &Task,
    bench: &Benchmark,
    workspace: &Path,
    setup: bool,
) -> Vec<CommandRecord> {
    let mut out = Vec::new();
    let none = Vec::new();
    let setup_list = if setup { &task.setup } else { &none };
    for (phase, list) in [("setup", setup_list), ("post", &task.post)] {
        for line in list {
            let spec = ProcessSpec::shell(line, workspace.to_path_buf(), bench.default_timeout);
            let start = Instant::now();
            let (exit_code, problem) = match process::run(&spec).await {
                Ok(o) => match o.exit {
                    Exit::Code(0) => (Some(0), None),
                    Exit::Code(c) => {
                        let tail: String = o
                            .stderr
                            .text()
                            .lines()
                            .rev()
                            .take(3)
                            .collect::<Vec<_>>()
                            .into_iter()
                            .rev()
                            .collect::<Vec<_>>()
                            .join(" / ");
                        (
                            Some(c),
                            Some(format!(
                                "exited with {c}{}",
                                if tail.is_empty() {
                                    String::new()
                                } else {
                                    format!(": {tail}")
                                }
                            )),
                        )
                    }
                    Exit::Signal(s) => (None, Some(format!("terminated by signal {s}"))),
                    Exit::TimedOut => (
                        None,
                        Some(format!(
                            "did not finish within {}",
                            crate::judges::humantime(bench.default_timeout)
                        )),
                    ),
                },
                Err(e) => (None, Some(format!("could not be started: {e}"))),
            };
            out.push(CommandRecord {
                phase: phase.into(),
                command: line.clone(),
                exit_code,
                problem,
                elapsed_ms: start.elapsed().as_millis() as u64,
            });
        }
    }
    out
}

/// The per-tier view of a verdict, in configured order.
pub fn tier_views(spec: &JurySpec, verdict: &Verdict) -> Vec<TierView> {
    let judges = |checks: &[CheckSpec], v: &Verdict| -> Vec<JudgeView> {
        v.individual_by_name()
            .iter()
            .map(|(name, j)| JudgeView {
                name: name.clone(),
                judge_type: checks
                    .iter()
                    .find(|c| &c.name == name)
                    .map(|c| c.check_type().to_string())
                    .unwrap_or_default(),
                status: j.status(),
                score: j.score(),
                elapsed_ms: j.elapsed().map_or(0, |d| d.as_millis() as u64),
                llm: j
                    .metadata()
                    .get(crate::judges::llm::USAGE_KEY)
                    .and_then(|v| serde_json::from_value(v.clone()).ok()),
            })
            .collect()
    };
    let view = |name: &str,
                policy,
                checks: &[CheckSpec],
                attempt: Option<&Verdict>,
                ran: bool,
                stopped: bool| {
        let js = attempt.map(|v| judges(checks, v)).unwrap_or_default();
        let not_run = checks
            .iter()
            .filter(|c| !js.iter().any(|j| j.name == c.name))
            .map(|c| NotRunJudge {
                name: c.name.clone(),
                judge_type: c.check_type().to_string(),
            })
            .collect();
        TierView {
            name: name.to_string(),
            policy,
            status: attempt.map(|v| v.aggregated().status()),
            ran,
            stopped,
            elapsed_ms: js.iter().map(|j| j.elapsed_ms).max().unwrap_or(0),
            judges: js,
            not_run,
        }
    };
    let decided = match verdict.decision() {
        Decision::Tier { tier, .. } => Some(tier.as_str()),
        _ => None,
    };
    match spec {
        JurySpec::Checks { checks, .. } => {
            vec![view("checks", None, checks, Some(verdict), true, true)]
        }
        JurySpec::Tiers(tiers) => tiers
            .iter()
            .map(|t| {
                let a = verdict.attempt(&t.name);
                view(
                    &t.name,
                    Some(t.policy),
                    &t.checks,
                    a.and_then(|a| a.verdict()),
                    a.is_some(),
                    decided == Some(t.name.as_str()),
                )
            })
            .collect(),
        JurySpec::Members { members, .. } => members
            .iter()
            .map(|m| {
                let a = verdict.attempt(&m.name);
                let checks: Vec<CheckSpec> = match &m.jury {
                    JurySpec::Checks { checks, .. } => checks.clone(),
                    JurySpec::Tiers(t) => t.iter().flat_map(|t| t.checks.clone()).collect(),
                    JurySpec::Members { .. } => Vec::new(),
                };
                view(
                    &m.name,
                    None,
                    &checks,
                    a.and_then(|a| a.verdict()),
                    a.is_some(),
                    false,
                )
            })
            .collect(),
    }
}

/// Every structural finding of the judges that ran, sorted into the report's `diffs`.
pub fn collect_diffs(spec: &JurySpec, verdict: &Verdict) -> Diffs {
    fn types(spec: &JurySpec, out: &mut Vec<(String, CheckType)>) {
        let mut add =
            |cs: &[CheckSpec]| out.extend(cs.iter().map(|c| (c.name.clone(), c.check_type())));
        match spec {
            JurySpec::Checks { checks, .. } => add(checks),
            JurySpec::Tiers(t) => t.iter().for_each(|t| add(&t.checks)),
            JurySpec::Members { members, .. } => members.iter().for_each(|m| types(&m.jury, out)),
        }
    }
    fn walk<'v>(v: &'v Verdict, out: &mut Vec<(&'v String, &'v crate::judgment::Judgment)>) {
        out.extend(v.individual_by_name().iter());
        for a in v.composite_attempts() {
            if let Some(child) = a.verdict() {
                walk(child, out);
            }
        }
    }
    let mut names = Vec::new();
    types(spec, &mut names);
    let mut judged = Vec::new();
    walk(verdict, &mut judged);
    let mut seen: Vec<&String> = Vec::new();
    let mut diffs = Diffs::default();
    for (name, j) in judged {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let Some(ty) = names.iter().find(|(n, _)| n == name).map(|(_, t)| *t) else {
            continue;
        };
        let list = match ty {
            CheckType::ImportDiff => &mut diffs.imports,
            CheckType::AstDiff => &mut diffs.ast,
            CheckType::PomDiff => &mut diffs.pom,
            CheckType::FileComparison | CheckType::TestInvariance => &mut diffs.files,
            CheckType::FileExists
            | CheckType::FileContent
            | CheckType::Command
            | CheckType::MavenBuild
            | CheckType::GradleBuild
            | CheckType::ClassVersion
            | CheckType::CoveragePreservation
            | CheckType::CoverageImprovement
            | CheckType::External
            | CheckType::ProtectedPaths
            | CheckType::Llm
            | CheckType::TestQualityLlm
            | CheckType::SemanticDiff
            | CheckType::Correctness
            | CheckType::Ears
            | CheckType::Rfc2119 => continue,
        };
        for f in j
            .metadata()
            .get("findings")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let s = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_string);
            list.push(DiffEntry {
                path: s("path").unwrap_or_default(),
                line: f.get("line").and_then(Value::as_u64),
                kind: s("kind").unwrap_or_default(),
                expected: s("expected"),
                actual: s("actual"),
                judge: name.clone(),
            });
        }
    }
    diffs
}

/// Protected paths and `restore:` before any judge runs: the changes the pull request makes to
/// protected paths (against the trusted tree the config came from; none without one), a FAIL
/// judgment `protected-paths` added to the first tier under `protected-action: fail`, then
/// the restored files.
fn guard(
    bench: &mut Benchmark,
    source: &ConfigSource,
    workspace: &Path,
    reference: Option<&Path>,
) -> Result<Option<report::TrustInfo>, RunError> {
    let changes = match source.tree() {
        Some(t) => {
            let files: Vec<report::ConfigFileInfo> = config_files(t);
            // Protected globs are relative to the repository root.
            let root = protect::layout(t, workspace).root;
            protect::protected_changes(t, &root, bench.protected.as_deref(), &files)
                .map_err(|e| RunError::Instrument(format!("protected paths: {e}")))?
        }
        None => Vec::new(),
    };
    if bench.protected_action == crate::config::ProtectedAction::Fail && !changes.is_empty() {
        let spec = CheckSpec {
            name: "protected-paths".into(),
            weight: 1.0,
            timeout: std::time::Duration::from_secs(10),
            description: Some("the pull request leaves protected paths unchanged".into()),
            not_applicable_when: None,
            kind: CheckKind::ProtectedPaths {
                changes: changes
                    .iter()
                    .map(|c| format!("{} ({}; protected by {})", c.path, c.change, c.pattern))
                    .collect(),
            },
            loc: None,
        };
        match first_checks(&mut bench.jury) {
            Some(checks) => checks.push(spec),
            None => {
                return Err(RunError::Instrument(
                    "protected paths: the jury has no first tier to add protected-paths to".into(),
                ));
            }
        }
    }
    // The build runs with the base's wrappers and settings, not the pull request's.
    let base_build_files = match source.tree() {
        Some(t) => protect::pin_build_files(t, workspace, &protect::layout(t, workspace).prefix)
            .map_err(|e| RunError::Instrument(format!("build files: {e}")))?,
        None => Vec::new(),
    };
    let restored = if bench.restore.is_empty() {
        Vec::new()
    } else {
        let Some(r) = reference else {
            return Err(one(
                "restore: copies files from the reference, but there is none".into(),
                Some(
                    "name a reference (the config's `reference:` or --reference), or remove `restore:`",
                ),
            ));
        };
        protect::restore(r, workspace, &bench.restore)
            .map_err(|e| RunError::Instrument(e.to_string()))?
    };
    let any = source.tree().is_some() || !restored.is_empty();
    Ok(any.then(|| report::TrustInfo {
        protected_changes: changes,
        protected_action: bench.protected_action.token().into(),
        restored,
        base_build_files,
    }))
}

/// The checks of the first tier (or the flat jury, or the first member's); `None` only for
/// an empty cascade or meta-jury, which the loader refuses.
fn first_checks(spec: &mut JurySpec) -> Option<&mut Vec<CheckSpec>> {
    match spec {
        JurySpec::Checks { checks, .. } => Some(checks),
        JurySpec::Tiers(tiers) => tiers.first_mut().map(|t| &mut t.checks),
        JurySpec::Members { members, .. } => {
            members.first_mut().and_then(|m| first_checks(&mut m.jury))
        }
    }
}

/// The config-side files read from a tree, for the report.
fn config_files(t: &crate::config::source::GitTree) -> Vec<report::ConfigFileInfo> {
    t.files()
        .into_iter()
        .map(|f| report::ConfigFileInfo {
            changed: f.changed(),
            path: f.path,
            sha256: f.sha256,
            head_sha256: f.head_sha256,
        })
        .collect()
}

/// The gate for a reading under the config's `fail-on`, with the tiers that could not run:
/// under `fail-on: error` an accepted (or not applicable) reading with any of them exits 3,
/// since a pull request can make a tier ERROR on purpose (`spec/trust.md` point 12).
pub fn gate_with_errors(
    reading: Option<Reading>,
    fail_on: FailOn,
    decided_by: Option<&str>,
    errored: Vec<report::ErroredTier>,
) -> Outcome {
    let mut o = gate(reading, fail_on, decided_by);
    let passing = matches!(reading, Some(Reading::Accepted | Reading::NotApplicable));
    if passing && !errored.is_empty() {
        let names: Vec<String> = errored.iter().map(|t| format!("'{}'", t.tier)).collect();
        let what = format!(
            "{} {} could not run",
            if names.len() == 1 { "tier" } else { "tiers" },
            names.join(", ")
        );
        if fail_on == FailOn::Error {
            o.exit_code = EXIT_INSTRUMENT;
            o.gate = Gate::Fail;
            o.reason = format!(
                "{} But {what}, and fail-on is error, so the gate fails.",
                o.reason
            );
        } else {
            o.reason = format!(
                "{} But {what}; fail-on is {}, so the gate ignores it (fail-on: error would fail it).",
                o.reason,
                match fail_on {
                    FailOn::NotPass => "not-pass",
                    FailOn::Never => "never",
                    FailOn::Fail | FailOn::Error => "fail",
                }
            );
        }
    }
    o.errored_tiers = errored;
    o
}

/// The gate for a reading under the config's `fail-on`.
pub fn gate(reading: Option<Reading>, fail_on: FailOn, decided_by: Option<&str>) -> Outcome {
    let at = decided_by
        .map(|t| format!(" at tier '{t}'"))
        .unwrap_or_default();
    let (code, reason) = match reading {
        Some(Reading::Accepted) => (EXIT_PASS, format!("The subject was accepted{at}.")),
        Some(Reading::NotApplicable) => (EXIT_PASS, "The jury found the question not applicable to this subject.".to_string()),
        Some(Reading::Rejected) => (EXIT_REJECTED, format!("The subject was rejected{at}.")),
        Some(Reading::Undecided) if fail_on == FailOn::NotPass => (EXIT_REJECTED, format!("The jury could not decide{at}, and fail-on is not-pass.")),
        Some(Reading::Undecided) => (EXIT_PASS, format!("The jury could not decide{at}; fail-on is fail, so the gate passes.")),
        Some(Reading::NotAssessed) | None => {
            (EXIT_INSTRUMENT, "The instrument failed: a judge or the jury could not reach a finding, so the subject was not assessed.".to_string())
        }
    };
    let (code, reason) = if fail_on == FailOn::Never && code != EXIT_PASS {
        (
            EXIT_PASS,
            format!("{reason} fail-on is never, so the gate passes."),
        )
    } else {
        (code, reason)
    };
    Outcome {
        gate: if code == EXIT_PASS {
            Gate::Pass
        } else {
            Gate::Fail
        },
        exit_code: code,
        reason,
        errored_tiers: Vec::new(),
    }
}

/// Runs the whole job: load, resolve, judge, write `report.json` then `report.md`, and return
/// what to print.
pub async fn run(opts: &RunOptions) -> Result<RunResult, RunError> {
    let total = Instant::now();
    save::check_out_dir(&opts.out).map_err(|why| one(why, None))?;
    let repo_dir = std::env::current_dir()
        .map_err(|e| one(format!("cannot read the working folder: {e}"), None))?;
    let github =
        match github::context::from_env(&|k| std::env::var(k).ok().filter(|_| opts.actions)) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("judge-ci: warning: {e}; the report will not name the pull request");
                None
            }
        };
    let config_source = inputs::config_source(&opts.config_from, github.as_ref(), &repo_dir)
        .map_err(|e| {
            one(
                e.to_string(),
                Some("fetch the base commit (actions/checkout with fetch-depth: 0, or a token that may fetch it), or pass --config-from head|REV"),
            )
        })?;
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
    let checkout = Instant::now();
    let head = match &opts.head {
        Some(h) => checkout::materialize(&Source::parse(h), &repo_dir, opts.keep_checkouts)
            .map_err(|e| checkout_error("head", e))?,
        None => {
            if !opts.workspace.is_dir() {
                return Err(one(
                    format!(
                        "the workspace folder {} does not exist",
                        opts.workspace.display()
                    ),
                    Some("pass --workspace DIR"),
                ));
            }
            checkout::materialize(&Source::Folder(opts.workspace.clone()), &repo_dir, false)
                .map_err(|e| checkout_error("workspace", e))?
        }
    };
    let workspace = head.path.clone();
    // A reference folder inside the repository is the base's too, written out of its tree.
    let trusted_reference = match (&opts.reference, &bench.reference) {
        (None, Some(ReferenceSpec::Path(p))) => bench.source.materialize_dir(p).map_err(|e| {
            one(
                format!("reference.path {}: {e}", p.display()),
                Some("the reference folder is read from the trusted base; it must exist there"),
            )
        })?,
        _ => None,
    };
    let reference_checkout =
        resolve_reference(opts, &bench, &repo_dir, trusted_reference.as_ref())?;
    let reference = reference_checkout.as_ref().map(|c| c.path.clone());
    crate::lang::cache::configure(opts.model_cache.as_deref(), &workspace, &|k| {
        std::env::var(k).ok()
    })
    .map_err(|e| one(e, None))?;
    // What git knows of both trees, read before any subject code runs.
    let _git_sides =
        crate::judges::structural::select::register(&head, reference_checkout.as_ref());
    preflight(&bench.jury, &workspace, opts.color)?;
    // Every config-side file is read before judging, so the protected-path check sees them
    // all: the template now, the knowledge folder once more at the end (cheap).
    let template = match &bench.report.template {
        Some(p) => Some(bench.source.read_to_string(p).map_err(|e| {
            one(
                format!("cannot read the report template {}: {e}", p.display()),
                None,
            )
        })?),
        None => None,
    };
    if let Some(k) = &bench.diagnostics.knowledge {
        let _ = crate::diagnose::inputs::read_knowledge_from(k, &bench.source);
    }
    let trust = guard(&mut bench, &config_source, &workspace, reference.as_deref())?;
    let head_sha = head
        .commit
        .clone()
        .or_else(|| github.as_ref().and_then(|g| g.head_sha.clone()));
    // A resumed run takes the first job's judgments of checks that run subject code, and
    // runs none itself (not even task commands).
    let first = match &opts.split {
        resume::Split::Resume(dir) => Some(resume::first_job(dir, &bench, head_sha.as_deref())?),
        resume::Split::Whole | resume::Split::StopBeforeSemantic => None,
    };
    // Subject processes may write the workspace, never read judge-ci's output folder.
    crate::fence::add_workspace(&workspace);
    crate::fence::set_network(bench.sandbox.network);
    if opts.out.is_dir() {
        crate::fence::hide(&opts.out);
    }
    let checkout_ms = checkout.elapsed().as_millis() as u64;

    let (progress, actions) = progress_for(opts.verbosity);
    let recording = Arc::new(progress::Recording::new(progress));
    let mode = match (&opts.split, &first) {
        (_, Some(f)) => f.mode.clone(),
        (resume::Split::StopBeforeSemantic, None) => crate::judges::split::Mode::DeferSemantic,
        (resume::Split::Whole | resume::Split::Resume(_), None) => crate::judges::split::Mode::Live,
    };
    let (jury, description) = jury_of(&bench, recording.clone(), opts.color, mode)?;

    let judging = Instant::now();
    let commands = match (&task, first) {
        (_, Some(f)) => f.commands,
        (Some(t), None) => task_commands(t, &bench, &workspace, opts.actions).await,
        (None, None) => Vec::new(),
    };
    let mut metadata = bench.metadata.clone();
    if let Some(t) = &task {
        for (k, v) in &t.metadata {
            metadata.insert(k.clone(), v.clone());
        }
    }
    if let Some(r) = &reference {
        metadata.insert("expectedDir".into(), Value::from(r.display().to_string()));
    }
    // The workspace as submitted, for the structural judges, before the jury runs any
    // subject code.
    let snapshot = if crate::judges::snapshot::needed(&bench.jury) {
        let s = crate::judges::snapshot::Snapshot::take(&workspace).map_err(|e| {
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
    crate::lang::cache::finish();

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
    let outcome = gate_with_errors(
        reading.reading,
        fail_on,
        reading.decided_by.as_deref(),
        report::notices::errored_tiers(&tiers, &verdict),
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
        provenance: None,
        fence: crate::fence::last_status().map(|f| f.line()),
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
    markdown::render_with(&report, template.as_deref()).map_err(|e| {
        one(
            e.to_string(),
            Some("fix report.template, or remove it to use the built-in one"),
        )
    })?;
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

    // Nothing is lost: the JSON, then the other surfaces and the job summary, go to disk
    // before anything is printed or posted. A disk that refuses them is a warning: the
    // verdict was reached, the JSON is spilled elsewhere, and publishing still happens.
    let mut surfaces = Vec::new();
    for surface in Surface::ALL {
        let text = report::render(
            &report,
            surface,
            template.as_deref(),
            bench.report.annotations,
        )
        .map_err(|e| RunError::Instrument(e.to_string()))?;
        surfaces.push((surface, text));
    }
    let saved = save::surfaces(&opts.out, &surfaces, &save::spill_dir());
    for w in saved.warnings(&opts.out) {
        eprintln!("{w}");
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
    if let Some(ctx) = &github {
        // In Actions: the job summary, the step outputs and the event go to disk before any
        // network call; then the API; annotations become workflow commands unless the check
        // run carries them.
        let summary = rendered
            .remove(Surface::Summary.file_name())
            .unwrap_or_default();
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
            let full = markdown::render_with(&report, template.as_deref())
                .map_err(|e| RunError::Instrument(e.to_string()))?;
            let published = publish::after(
                ctx,
                &report,
                &full,
                &opts.publish.settings(&bench.report),
                opts.publish.token.as_deref(),
                opts.verbosity,
            )
            .await?;
            exit_code = publish::publish_exit(&opts.publish, &published, exit_code);
            published.annotations_posted
        };
        if !annotations_posted {
            commands = gh_outputs::workflow_commands(&report::checkrun::annotations(&report));
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

/// Reads a stored report; `hint` says what to pass when the file cannot be read.
pub fn read_report(path: &Path, hint: &str) -> Result<Report, RunError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| RunError::Input(format!("cannot read {}: {e}{hint}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        RunError::Input(format!(
            "{}:{}:{}: not a judge-ci report: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })
}

/// Resolves when SIGTERM or SIGINT arrives (never, if the handlers cannot be installed).
pub async fn cancellation() -> (&'static str, i32) {
    use tokio::signal::unix::{SignalKind, signal};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut term), Ok(mut int)) => tokio::select! {
            _ = term.recv() => ("SIGTERM", 15),
            _ = int.recv() => ("SIGINT", 2),
        },
        _ => std::future::pending().await,
    }
}

/// The record of a cancelled run: `cancelled.json`, a `report.md` saying so with the judges
/// that finished, and the job summary in Actions. Best effort: the run is ending anyway.
fn write_cancelled(
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

/// Builds the jury of a loaded config and describes it; a refusal names the config's place.
fn jury_of(
    bench: &Benchmark,
    progress: Arc<dyn Progress>,
    color: bool,
    split: crate::judges::split::Mode,
) -> Result<(Arc<dyn Jury>, Value), RunError> {
    let services = crate::judges::Services {
        progress,
        llm: Arc::new(crate::judges::llm::Runtime::new(bench.llm.clone())),
        evidence: Arc::default(),
        split,
    };
    let jury = build_jury(&bench.jury, &bench.name, &services).map_err(|e| {
        let mut d = Diagnostics::default();
        d.push(Diagnostic::error(e.loc, e.error.message().to_string()));
        diags_error(&d, color)
    })?;
    let description = jury
        .describe()
        .map_err(|e| RunError::Instrument(format!("cannot describe the jury: {e}")))?;
    Ok((jury, description))
}

/// `validate`: loads, builds and describes the jury; returns the text to print.
pub fn validate(
    config: Option<&Path>,
    task: Option<&Path>,
    verbosity: Verbosity,
    color: bool,
) -> Result<String, RunError> {
    let (bench, task) = load(config, task, verbosity, color)?;
    let (_, description) = jury_of(
        &bench,
        Arc::new(NoProgress),
        color,
        crate::judges::split::Mode::Live,
    )?;
    let mut out = format!(
        "{}: valid ({} {})\n",
        bench.path.display(),
        bench.name,
        bench.version
    );
    if let Some(t) = &task {
        out.push_str(&format!("task {}: valid ({})\n", t.id, t.path.display()));
    }
    out.push_str(&describe_spec(&bench.jury, ""));
    out.push_str(&format!(
        "\njury description:\n{}\n",
        serde_json::to_string_pretty(&description).unwrap_or_default()
    ));
    Ok(out)
}

fn describe_spec(spec: &JurySpec, indent: &str) -> String {
    let checks = |cs: &[CheckSpec], ind: &str| -> String {
        cs.iter()
            .map(|c| {
                format!(
                    "{ind}  - {} ({}{})\n",
                    c.name,
                    c.check_type(),
                    if c.weight != 1.0 {
                        format!(", weight {}", c.weight)
                    } else {
                        String::new()
                    }
                )
            })
            .collect()
    };
    let voting = |v: &crate::jury::strategies::StrategySpec| {
        let mut s = v.kind.token().to_string();
        if let Some(t) = v.threshold {
            s.push_str(&format!(" ≥ {t}"));
        }
        if let Some(e) = v.error_policy {
            s.push_str(&format!(", errors {e}"));
        }
        if let Some(n) = v.not_applicable_policy {
            s.push_str(&format!(", not-applicable {n}"));
        }
        s
    };
    match spec {
        JurySpec::Checks {
            voting: v,
            parallel,
            checks: cs,
        } => format!(
            "{indent}jury: {} check(s), {}{}\n{}",
            cs.len(),
            voting(v),
            if *parallel { "" } else { ", in order" },
            checks(cs, indent)
        ),
        JurySpec::Tiers(tiers) => {
            let mut s = format!("{indent}cascade: {} tier(s)\n", tiers.len());
            for (i, t) in tiers.iter().enumerate() {
                s.push_str(&format!(
                    "{indent}{}. {} [{}] voting {}{}\n",
                    i + 1,
                    t.name,
                    t.policy,
                    voting(&t.voting),
                    if t.parallel { "" } else { ", in order" }
                ));
                s.push_str(&checks(&t.checks, indent));
            }
            s
        }
        JurySpec::Members { voting: v, members } => {
            let mut s = format!(
                "{indent}meta-jury: {} member(s), {}\n",
                members.len(),
                voting(v)
            );
            for m in members {
                s.push_str(&format!("{indent}member {}:\n", m.name));
                s.push_str(&describe_spec(&m.jury, &format!("{indent}    ")));
            }
            s
        }
    }
}
