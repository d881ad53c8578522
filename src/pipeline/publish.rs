//! The last stage in GitHub Actions: the job summary, the step outputs and a copy of the event
//! go to disk first, then the API calls (unless `--dry-run`), then the outputs that only the
//! API could give (comment and check-run links), then workflow-command annotations when the
//! check run does not carry them. Also `judge-ci publish --from DIR` for a stored report.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::config::{CommentMode, FailOn, ReportSettings};
use crate::github::client::RetryPolicy;
use crate::github::context::{self, Context};
use crate::github::outputs;
use crate::github::post::{self as gh, Published, Settings};
use crate::report::{self, Report, Surface, markdown};

use super::error::{InputError, InstrumentError, RunError, config_problems};
use super::options::Verbosity;

/// The command line's publishing choices; `None` leaves the config's.
#[derive(Clone, Debug, Default)]
pub struct PublishOptions {
    /// The token (`--github-token`, `GITHUB_TOKEN`, `GH_TOKEN`).
    pub token: Option<String>,
    /// `--comment-mode`.
    pub comment: Option<CommentMode>,
    /// `--delete-on-pass`.
    pub delete_on_pass: bool,
    /// `--check-run`.
    pub check_run: Option<bool>,
    /// `--api-timeout`.
    pub timeout: Duration,
    /// `--require-publish`: a publication that did not fully reach GitHub ends the run with
    /// exit 4 instead of the verdict's code.
    pub require: bool,
    /// `--check-name`, already checked with [`crate::config::instance::check`].
    pub check_name: Option<String>,
    /// `--comment-key`, already checked with [`crate::config::instance::check`].
    pub comment_key: Option<String>,
}

impl PublishOptions {
    /// The settings for a run whose config says `report`.
    pub fn settings(&self, report: &ReportSettings) -> Settings {
        Settings {
            comment: self.comment.unwrap_or(report.comment),
            delete_on_pass: self.delete_on_pass || report.delete_on_pass,
            check_run: self.check_run.unwrap_or(report.check_run),
            annotations: report.annotations,
            timeout: self.timeout,
            retry: RetryPolicy::default(),
        }
    }

    /// The check run's name for a run whose config says `report`: `--check-name`, else
    /// `report.check-name`; `None` means `judge-ci / <name>`.
    pub fn check_name(&self, report: &ReportSettings) -> Option<String> {
        self.check_name
            .clone()
            .or_else(|| report.check_name.clone())
    }

    /// The sticky comment's key: `--comment-key`, else `report.comment-key`; `None` means the
    /// config name.
    pub fn comment_key(&self, report: &ReportSettings) -> Option<String> {
        self.comment_key
            .clone()
            .or_else(|| report.comment_key.clone())
    }
}

/// The name of the saved event in an out folder.
pub const EVENT_FILE: &str = "event.json";

/// Writes the job summary, the step outputs known before publishing, and a copy of the event
/// payload (for a later `judge-ci publish --from`). Returns whether the outputs or the event
/// copy could not be written: later steps read them, so that fails the run (exit 3), though
/// the verdict stands; a job summary that cannot be written is only a warning.
pub fn before(report: &Report, summary: &str, out: &Path, report_json: Option<&Path>) -> bool {
    let kept = match report_json {
        Some(p) => p.display().to_string(),
        None => "the log (standard output)".to_string(),
    };
    let mut failed = false;
    let mut fail = |what: &str, p: &str, e: std::io::Error| {
        failed = true;
        eprintln!(
            "judge-ci: error: cannot write the {what} {p}: {e}; the verdict is in {kept}, and the run fails (exit 3) since a later step reads it"
        )
    };
    // The job summary is for people, no later step reads it: a warning, the verdict's exit
    // code stands.
    if let Ok(p) = std::env::var("GITHUB_STEP_SUMMARY")
        && let Err(e) = outputs::append(Path::new(&p), summary)
    {
        eprintln!(
            "judge-ci: warning: cannot write the job summary {p}: {e}; the verdict is in {kept}"
        );
    }
    if let Ok(p) = std::env::var("GITHUB_OUTPUT") {
        let text = outputs::format_outputs(&outputs::outputs(report, report_json));
        if let Err(e) = outputs::append(Path::new(&p), &text) {
            fail("step outputs", &p, e);
        }
    }
    if let Ok(event) = std::env::var("GITHUB_EVENT_PATH") {
        let dest = out.join(EVENT_FILE);
        // Whole or not at all: `publish --from` trusts what it finds here.
        if let Err(e) =
            std::fs::read(&event).and_then(|bytes| super::save::write_atomically(&dest, &bytes))
        {
            let _ = std::fs::remove_file(&dest);
            fail("event copy", &dest.display().to_string(), e);
        }
    }
    failed
}

/// Publishes, writes the outputs the API gave, prints the log, and says whether the check
/// run carries the annotations.
pub async fn after(
    ctx: &Context,
    report: &report::Revealed,
    markdown: &str,
    settings: &Settings,
    token: Option<&str>,
    verbosity: Verbosity,
) -> Result<Published, RunError> {
    let published = gh::publish(ctx, token, report, markdown, settings).await;
    for line in &published.log {
        // Failures always show; progress lines respect --quiet.
        if verbosity != Verbosity::Quiet || !published.complete {
            eprintln!("{line}");
        }
    }
    if let Ok(p) = std::env::var("GITHUB_OUTPUT") {
        let text = outputs::format_outputs(&[
            (
                "comment-url",
                published.comment_url.clone().unwrap_or_default(),
            ),
            (
                "check-run-url",
                published.check_run_url.clone().unwrap_or_default(),
            ),
            ("publish-mode", published.mode.token().to_string()),
        ]);
        if let Err(e) = outputs::append(Path::new(&p), &text) {
            eprintln!("judge-ci: warning: cannot write the step outputs {p}: {e}");
        }
    }
    Ok(published)
}

/// What `publish --from` trusts besides its own event.
#[derive(Clone, Copy, Debug)]
pub struct Trust<'a> {
    /// `--config`: the trusted config (else discovered in the working folder).
    pub config: Option<&'a Path>,
    /// `--trust-report`: the report's job is trusted (not a fork's own workflow).
    pub trust_report: bool,
}

/// The run whose report this job may publish, from this workflow's own event: the run a
/// `workflow_run` follows (`workflow_run.id`), otherwise this run (`GITHUB_RUN_ID`, a later
/// job of the same run).
fn expected_run_id(ctx: &Context) -> Option<String> {
    if ctx.event == "workflow_run" {
        return std::env::var("GITHUB_EVENT_PATH")
            .ok()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v.pointer("/workflow_run/id").cloned())
            .and_then(|id| match id {
                Value::Number(n) => Some(n.to_string()),
                Value::String(s) => Some(s),
                _ => None,
            });
    }
    std::env::var("GITHUB_RUN_ID").ok()
}

/// Refuses a report bound to another run, another base or another config than this event
/// and this job's trusted config name: a report of an older run of the same commit (another
/// config, another base) is not this run's verdict. The config is compared by digest (issue
/// 27, attack finding G7/F10): a fork's `workflow_run` lists no pull request, so no base is
/// known from the event, and the report must at least have been judged under the config this
/// job trusts (read from the default branch), not one the judging job chose.
fn check_binding(
    report: &Report,
    ctx: &Context,
    path: &Path,
    trusted: (&Path, &str),
) -> Result<(), InputError> {
    let other = |why: String| other_run(path, why);
    // Another judge-ci's report may mean something else by the same fields.
    let version = env!("CARGO_PKG_VERSION");
    if report.tool.version != version {
        return Err(other(format!(
            "it was written by judge-ci {}, and this is judge-ci {version} (publish with the version that judged)",
            report.tool.version
        )));
    }
    if let Some(ours) = expected_run_id(ctx)
        && report.subject.run_id.as_deref() != Some(ours.as_str())
    {
        return Err(other(format!(
            "it was written by run {}, and this event is for run {ours}",
            report.subject.run_id.as_deref().unwrap_or("(none named)")
        )));
    }
    if let Some(ours) = &ctx.base_sha
        && report.subject.base_sha.as_deref() != Some(ours.as_str())
    {
        return Err(other(format!(
            "it judged against base {}, and this event's base is {ours}",
            report.subject.base_sha.as_deref().unwrap_or("(none named)")
        )));
    }
    let (config, sha) = trusted;
    let theirs = report.config.sha256.as_str();
    if theirs != sha {
        return Err(other(format!(
            "it was judged with a config of sha256 {}, and this job's trusted config {} has sha256 {} (publish from a job whose config is the one the judging job read, or judge again)",
            if theirs.is_empty() {
                "(none named)".to_string()
            } else {
                theirs.chars().take(12).collect::<String>()
            },
            config.display(),
            sha.chars().take(12).collect::<String>()
        )));
    }
    Ok(())
}

/// A report refused because it is bound to another run, base or commit than the event.
fn other_run(path: &Path, why: String) -> InputError {
    InputError::OtherRun {
        path: path.to_path_buf(),
        why,
    }
}

/// The URL of the run that computed the report, from this workflow's own event: a
/// `workflow_run` names the run it follows; otherwise this run. Never the report's.
fn trusted_run_url(ctx: &Context) -> Option<String> {
    let from_event = std::env::var("GITHUB_EVENT_PATH")
        .ok()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| {
            v.pointer("/workflow_run/html_url")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    match ctx.event.as_str() {
        "workflow_run" => from_event.or_else(|| ctx.run_url.clone()),
        _ => ctx.run_url.clone(),
    }
}

/// `judge-ci publish --from DIR`: posts a stored report for the trusted workflow this runs in.
/// The head commit comes from this workflow's own event (a `workflow_run` names the commit
/// it ran on); the saved event of the untrusted run only proposes a PR number, which is used
/// when GitHub confirms that PR's head is that commit. The report decides nothing but its
/// own verdict text (`spec/trust.md` points 10 and 16): the config name (so the check-run
/// name and the sticky key) comes from the trusted config, the run URL from this workflow's
/// event, and unless `--trust-report` the verdict is posted as advisory (neutral, "not
/// verified").
pub async fn stored(
    dir: &Path,
    trust: Trust<'_>,
    annotations: usize,
    opts: &PublishOptions,
    verbosity: Verbosity,
) -> Result<i32, RunError> {
    let path = dir.join("report.json");
    let config_path = match trust.config {
        Some(p) => p.to_path_buf(),
        None => {
            let cwd = std::env::current_dir().map_err(InputError::WorkingFolder)?;
            crate::config::discover(&cwd).ok_or(InputError::NoTrustedConfig(cwd))?
        }
    };
    let (bench, _) =
        crate::config::load_benchmark(&config_path).map_err(|d| config_problems(d, false))?;
    let mut report = super::read_report(
        &path,
        "; pass the folder a judge-ci run wrote (--out, default judge-ci-out)",
    )?;
    let mut ctx = match context::from_env(&|k| std::env::var(k).ok()) {
        Ok(Some(c)) => c,
        Ok(None) => {
            return Err(InputError::NotInActions.into());
        }
        Err(e) => return Err(InputError::from(e).into()),
    };
    // A binding field the event knows is required in the report: a report that names no
    // commit or no base is refused, never taken as a match (attack findings G10-1, G10-2).
    if let Some(ours) = &ctx.head_sha
        && report.subject.head_sha.as_deref() != Some(ours.as_str())
    {
        return Err(InputError::OtherCommit {
            path,
            theirs: report
                .subject
                .head_sha
                .clone()
                .unwrap_or_else(|| "(no commit named)".into()),
            ours: ours.clone(),
        }
        .into());
    }
    check_binding(&report, &ctx, &path, (&config_path, &bench.sha256))?;
    refuse_first_job(&report, &path)?;
    // The folder as the judging run wrote it (the same check `resume` makes): a surface
    // changed or a file planted beside the report is not that run's output.
    super::resume::as_written(dir, &report).map_err(|why| other_run(&path, why))?;
    // What the report derives from its verdict is derived again, never believed (attack
    // finding G10-25: a rejection whose `interpretation.reading` alone said ACCEPTED was
    // posted as a success under --trust-report).
    let derived = crate::jury::interpret::interpret_verdict(&report.verdict);
    if derived.reading != report.interpretation.reading
        || derived.decided_by != report.interpretation.decided_by
    {
        let shown = |r: Option<crate::jury::interpret::Reading>| {
            r.map_or("none".to_string(), |r| format!("{r:?}"))
        };
        return Err(other_run(
            &path,
            format!(
                "its interpretation says {}, and its verdict reads {}: the report was edited",
                shown(report.interpretation.reading),
                shown(derived.reading)
            ),
        )
        .into());
    }
    // The commit is the event's, never the report's word (G10-1's class): an event that names
    // none publishes nothing.
    if ctx.head_sha.is_none() {
        return Err(other_run(
            &path,
            format!(
                "the {} event names no head commit, so the report cannot be bound to one (publish from the `workflow_run` workflow that follows the judging run)",
                ctx.event
            ),
        )
        .into());
    }
    // What the report may not decide: its name, check-run name and comment key, its run, its
    // trust.
    report.config.name = bench.name.clone();
    report.config.check_name = opts.check_name(&bench.report);
    report.config.comment_key = opts.comment_key(&bench.report);
    if !trust.trust_report {
        advisory_names(&mut report.config);
    }
    report.subject.run_url = trusted_run_url(&ctx);
    // Every link the surfaces build (a finding's file) is on this event's server and
    // repository, never the report's (attack finding G10-24).
    report.subject.server_url = ctx.server_url.clone();
    report.subject.repository = Some(ctx.repository.clone());
    // The gate is this workflow's, never the report's: the judging job's fail-on is whatever
    // its workflow said (a pull request's own `pull_request` workflow is the pull request's
    // file). With --trust-report the reading and what could not run are trusted, and the
    // trusted config's fail-on (else the Actions default, error) decides the conclusion.
    if trust.trust_report {
        report.outcome = regated(&report, bench.report.fail_on.unwrap_or(FailOn::Error));
    }
    report.provenance = Some(if trust.trust_report {
        report::Provenance {
            verified: true,
            note: "Computed in a job this repository trusts (--trust-report).".into(),
        }
    } else {
        report::Provenance {
            verified: false,
            note: report::UNVERIFIED_NOTE.into(),
        }
    });
    if ctx.pull_request.is_none() {
        // The saved event (untrusted) may name the PR; resolve() checks it against the head.
        let saved = crate::untrusted::read_string_io(
            &dir.join(EVENT_FILE),
            crate::untrusted::MAX_STORED_BYTES,
        )
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        ctx.proposed_pull_request = saved
            .as_ref()
            .and_then(|v| v.pointer("/pull_request/number"))
            .and_then(Value::as_u64)
            .or(report.subject.pull_request);
    }
    let mut settings = opts.settings(&ReportSettings {
        annotations,
        ..bench.report.clone()
    });
    // An untrusted report decides nothing but its own verdict text (trust.md 16): a report
    // that only says it was accepted does not delete the comments an earlier verdict left.
    if !trust.trust_report && settings.delete_on_pass {
        settings.delete_on_pass = false;
        eprintln!(
            "judge-ci: delete-on-pass applies only to a trusted verdict (--trust-report); this report is advisory, so no comment is deleted"
        );
    }
    // The trusted config's `reveal:` may withhold more than the stored report did, never less.
    let report = report::Revealed::stored(report, Some(bench.report.reveal))
        .map_err(InstrumentError::from)?;
    let md = markdown::render(&report);
    let summary = report::render(&report, Surface::Summary, None, annotations)
        .map_err(InstrumentError::from)?;
    if let Ok(p) = std::env::var("GITHUB_STEP_SUMMARY") {
        outputs::append(Path::new(&p), &summary)
            .map_err(|source| InstrumentError::JobSummary { path: p, source })?;
    }
    // A trusted verdict gates this job as the run would have (attack finding G10-10: it
    // exited 0 on a rejection and gave later steps no reading): its reading and gate as step
    // outputs, before any request, and its exit code below.
    if trust.trust_report
        && let Ok(p) = std::env::var("GITHUB_OUTPUT")
    {
        let text = outputs::format_outputs(&outputs::outputs(&report, Some(&path)));
        outputs::append(Path::new(&p), &text)
            .map_err(|source| InstrumentError::StepOutputs { path: p, source })?;
    }
    let published = after(
        &ctx,
        &report,
        &md,
        &settings,
        opts.token.as_deref(),
        verbosity,
    )
    .await?;
    if !published.annotations_posted {
        for c in outputs::workflow_commands(&report::check_run::annotations(&report)) {
            println!("{c}");
        }
    }
    let code = if trust.trust_report {
        eprintln!("judge-ci: {}", report.outcome.reason);
        report.outcome.exit_code
    } else {
        super::EXIT_PASS
    };
    Ok(publish_exit(opts, &published, code))
}

/// What an advisory (unverified) report's check run and sticky comment are named after:
/// the gate's names with [`ADVISORY_SUFFIX`] and [`ADVISORY_KEY_SUFFIX`]. A report judge-ci cannot vouch for never speaks
/// under the trusted gate's names (attack finding GA5-2): a `neutral` check run satisfies a
/// required check of the same name, and the gate's sticky comment would be rewritten to the
/// report's verdict, so a later advisory publish could turn the gate's failure into a pass.
pub fn advisory_names(config: &mut report::ConfigInfo) {
    config.check_name = Some(format!("{}{ADVISORY_SUFFIX}", config.check_run_name()));
    config.comment_key = Some(format!("{}{ADVISORY_KEY_SUFFIX}", config.sticky_key()));
}

/// Appended to an advisory report's check-run name.
pub const ADVISORY_SUFFIX: &str = " (advisory)";

/// Appended to an advisory report's sticky-comment key (the comment marker keeps only
/// letters, digits and `-_.`).
pub const ADVISORY_KEY_SUFFIX: &str = "-advisory";

/// The outcome of a trusted stored report under this workflow's `fail-on`: its reading, and
/// what could not run as its verdict and task commands show (not its own `erroredTiers` or
/// gate).
fn regated(report: &Report, fail_on: FailOn) -> report::Outcome {
    let mut errored = super::task::failed_commands(
        report
            .task
            .as_ref()
            .map(|t| t.commands.as_slice())
            .unwrap_or_default(),
    );
    errored.extend(report::notices::errored_tiers(
        &report.tiers,
        &report.verdict,
    ));
    super::gate::gate_all(
        report.interpretation.reading,
        fail_on,
        report.interpretation.decided_by.as_deref(),
        errored,
        report::notices::counts_against(&report.tiers, &report.verdict),
    )
}

/// Refuses the folder of a first job (`--stop-before-semantic`): its semantic checks were
/// never asked, so its reading is not a verdict; `judge-ci resume` takes that folder, and the
/// resumed run's is the one to publish (attack finding F19).
fn refuse_first_job(report: &Report, path: &Path) -> Result<(), InputError> {
    let deferred: Vec<String> = crate::judges::split::judgments_of(&report.verdict)
        .into_iter()
        .filter(|(_, j)| {
            j.metadata()
                .get(crate::judges::split::DEFERRED_KEY)
                .is_some()
        })
        .map(|(n, _)| n)
        .collect();
    if deferred.is_empty() {
        return Ok(());
    }
    let mut deferred = deferred;
    deferred.sort();
    Err(InputError::NotAVerdict {
        path: path.to_path_buf(),
        why: format!(
            "it is the first job of a split run (--stop-before-semantic): {} deferred to judge-ci resume and never asked, so it holds no verdict; publish the folder judge-ci resume wrote",
            deferred.join(", ")
        ),
    })
}

/// The exit code after publishing: `code`, or [`super::EXIT_PUBLISH`] when
/// `--require-publish` is set and publishing did not fully succeed.
pub fn publish_exit(opts: &PublishOptions, published: &gh::Published, code: i32) -> i32 {
    if opts.require && !published.complete {
        eprintln!(
            "judge-ci: publishing did not fully succeed and --require-publish is set: exit {}",
            super::EXIT_PUBLISH
        );
        super::EXIT_PUBLISH
    } else {
        code
    }
}
