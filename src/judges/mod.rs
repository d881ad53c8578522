//! The judge catalog: turns each validated check into a [`Judge`] and each validated jury
//! spec into the engine's juries. One file per family; [`ConfiguredJudge`] is the only
//! `Judge` implementation and dispatches exhaustively on [`CheckKind`].

pub mod baseline;
pub mod build_code;
mod class_version;
mod command;
pub mod coverage;
pub mod evidence;
mod fs;
pub mod llm;
pub mod maven;
pub mod misread_names;
pub mod oracle;
pub mod paths;
pub mod process;
pub mod resolution;
pub mod snapshot;
pub mod split;
pub mod structural;

use async_trait::async_trait;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::checks::{Baseline, CheckKind, CommandLine, Family};
use crate::config::{CheckSpec, JurySpec, Loc};
use crate::judgment::{
    BuildError, Cause, Fault, Judge, JudgeMetadata, JudgeType, Judgment, JudgmentBuilder,
    JudgmentContext, Status,
};
use crate::jury::{CascadedJury, Jury, MetaJury, NamedJury, SimpleJury};

pub use command::humantime;

/// What a judge function returns.
pub type Outcome = Result<Judgment, Fault>;

/// Finishes a judgment built by a judge.
pub(crate) fn build(b: JudgmentBuilder) -> Outcome {
    b.build().map_err(Fault::from)
}

/// An instrument ERROR (`judge_reported`) with the reason and no known cause.
pub(crate) fn instrument(reason: impl Into<String>) -> Outcome {
    Judgment::error(reason).map_err(Fault::from)
}

/// An instrument ERROR (`judge_reported`) with the cause judge-ci observed, when it knows one.
pub(crate) fn instrument_because(cause: Option<Cause>, reason: impl Into<String>) -> Outcome {
    build(
        Judgment::builder(Status::Error)
            .reason_code(crate::judgment::ReasonCode::JudgeReported)
            .maybe_cause(cause)
            .reasoning(reason),
    )
}

/// Receives judge start and finish events, for progress displays and logs.
pub trait Progress: Send + Sync {
    /// A judge started.
    fn started(&self, tier: &str, judge: &str);
    /// A judge finished with this status.
    fn finished(&self, tier: &str, judge: &str, status: Status, elapsed: Duration);
}

/// Ignores every event.
pub struct NoProgress;

impl Progress for NoProgress {
    fn started(&self, _: &str, _: &str) {}
    fn finished(&self, _: &str, _: &str, _: Status, _: Duration) {}
}

/// FAIL with a `file-not-regular` finding for each entry (path shown as `under`/path): a link,
/// FIFO, socket or device where a judge reads files is the subject's doing, never skipped and
/// never an instrument ERROR a lenient gate lets through (trust.md points 12 and 19).
pub(crate) fn not_regular_fail(
    what: &str,
    under: &std::path::Path,
    entries: &[(String, crate::untrusted::Kind)],
) -> Outcome {
    let shown = |rel: &str| under.join(rel).display().to_string();
    let list: Vec<String> = entries
        .iter()
        .take(5)
        .map(|(rel, kind)| format!("{} ({kind})", shown(rel)))
        .collect();
    build(
        Judgment::builder(Status::Fail)
            .reasoning(format!(
                "{what}: {} entr{} where judge-ci reads files {} not a regular file, never read: {}",
                entries.len(),
                if entries.len() == 1 { "y" } else { "ies" },
                if entries.len() == 1 { "is" } else { "are" },
                list.join(", ")
            ))
            .check(crate::judgment::Check::failed(
                "regular_files",
                format!("{} not regular", entries.len()),
            )?)
            .findings(entries.iter().map(|(rel, kind)| {
                crate::judgment::Finding::new(shown(rel), crate::judgment::FindingKind::FileNotRegular)
                    .actual(kind.word())
                    .message(format!("{} is a {kind}, not a regular file", shown(rel)))
            })),
    )
}

/// Runs blocking work (file reads, parsing) off the async threads within the check's limit.
async fn off_thread(timeout: Duration, f: impl FnOnce() -> Outcome + Send + 'static) -> Outcome {
    match tokio::time::timeout(timeout, tokio::task::spawn_blocking(f)).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => Err(Fault::threw("panic", e.to_string())),
        Err(_) => instrument_because(
            Some(Cause::Timeout),
            format!("the check did not finish within {}", humantime(timeout)),
        ),
    }
}

/// Runs a structural comparison off the async threads, within the check's time limit; without
/// a reference the check ends as `structural::reference` says (ABSTAIN or ERROR).
async fn against_reference(
    ctx: &JudgmentContext,
    comparisons: &Arc<structural::Comparisons>,
    timeout: Duration,
    compare: impl FnOnce(&structural::Comparisons, &std::path::Path, &std::path::Path) -> Outcome
    + Send
    + 'static,
) -> Outcome {
    let c = ctx.clone();
    let comparisons = Arc::clone(comparisons);
    // The workspace as submitted, not as a build left it.
    let submitted = snapshot::submitted(ctx);
    off_thread(timeout, move || match structural::reference(&c) {
        Ok(r) => compare(&comparisons, &submitted, &r),
        Err(ended) => *ended,
    })
    .await
}

/// Whether a check reads the reference as a folder on disk, so that a revision must be written
/// out for it (its type's [`Facts::reads_reference_folder`](crate::config::checks::Facts)).
/// The structural comparisons read it through [`structural::tree::Tree`], which also reads a
/// revision left in git.
pub fn reads_reference_folder(kind: &CheckKind) -> bool {
    kind.facts().reads_reference_folder
}

/// What every judge of a run shares, owned by that run (nothing of it is process-wide, so the
/// concurrent runs of a suite do not see each other's): where progress goes, the fence its
/// subject processes start in, the model runtime of the semantic checks (the config's `llm:`
/// defaults, one HTTP client, the request cap).
#[derive(Clone)]
pub struct Services {
    /// The run's fence: every subject process a judge starts is prepared by it.
    pub fence: Arc<crate::fence::Fence>,
    /// Progress events.
    pub progress: Arc<dyn Progress>,
    /// The semantic checks' model runtime.
    pub llm: Arc<llm::Runtime>,
    /// When this run's first build started: evidence older than that is refused.
    pub evidence: Arc<evidence::EvidenceClock>,
    /// Whether semantic checks are deferred, or subject-code checks replayed (a split run).
    pub split: split::Mode,
    /// The structural judges' remembered file comparisons, for this run only.
    pub comparisons: Arc<structural::Comparisons>,
    /// The sealed test oracle: judge-ci's own run of the trusted tests after a build.
    pub oracle: Arc<oracle::Oracle>,
    /// The workspace as submitted, put back after each check that runs subject code.
    pub submitted: Arc<baseline::Guard>,
}

/// A judge built from one configured check.
pub struct ConfiguredJudge {
    spec: CheckSpec,
    tier: String,
    services: Services,
}

impl ConfiguredJudge {
    /// The judge for `spec`, reporting progress under the tier (or jury) name `tier`.
    pub fn new(spec: CheckSpec, tier: impl Into<String>, services: Services) -> Self {
        ConfiguredJudge {
            spec,
            tier: tier.into(),
            services,
        }
    }

    async fn evaluate(&self, ctx: &JudgmentContext) -> Outcome {
        match &self.services.split {
            split::Mode::Live => {}
            split::Mode::DeferSemantic => {
                if self.spec.check_type().asks_model() {
                    return split::deferred(&self.spec.name);
                }
            }
            split::Mode::Resume(stored) => {
                if split::replayed(&self.spec.kind) {
                    return split::replay(stored, &self.spec.name);
                }
            }
        }
        let ws = ctx.workspace.clone();
        let clock = Arc::clone(&self.services.evidence);
        let facts = self.spec.kind.facts();
        if facts.runs_subject_code() {
            clock.build_starts();
        }
        // The run's first build starts from clean output folders: what the pull request
        // committed under target/ or build/ is gone before anything reads it.
        if let Some(tool) = facts.builds
            && clock.clean_once()
            && let Err(e) = evidence::clean_outputs(&ws, tool)
        {
            return instrument(e.to_string());
        }
        // Subject code starts on the submitted files, whatever subject code before it did.
        let guard = &self.services.submitted;
        if facts.runs_subject_code()
            && let Err(e) = guard.before(&ws, &self.services.fence)
        {
            return instrument(e.to_string());
        }
        let outcome = self.run(ctx, facts, clock.since()).await;
        if !facts.runs_subject_code() {
            return outcome;
        }
        match guard.after(&ws, &self.services.fence) {
            Ok(changes) => baseline::judged_on_changed_files(outcome, &changes),
            Err(e) => instrument(e.to_string()),
        }
    }

    /// Runs the check itself (see [`ConfiguredJudge::evaluate`]).
    async fn run(
        &self,
        ctx: &JudgmentContext,
        facts: &crate::config::checks::Facts,
        since: Option<std::time::SystemTime>,
    ) -> Outcome {
        let ws = ctx.workspace.clone();
        let timeout = self.spec.timeout;
        // What the check reads of the tree, from its registry fact: the workspace as
        // submitted (the snapshot, when subject code can have run first), or the live
        // workspace for what builds produce.
        let reads = match facts.reads {
            crate::config::checks::WorkspaceReads::Outputs => ws.clone(),
            crate::config::checks::WorkspaceReads::Sources
            | crate::config::checks::WorkspaceReads::Everything => snapshot::submitted(ctx),
        };
        let blocking = |f: Box<dyn FnOnce() -> Outcome + Send>| off_thread(timeout, f);
        match self.spec.kind.clone() {
            CheckKind::FileExists { path } => {
                blocking(Box::new(move || fs::file_exists(&reads, &path))).await
            }
            CheckKind::FileContent {
                path,
                expected,
                mode,
            } => {
                blocking(Box::new(move || {
                    fs::file_content(&reads, &path, &expected, mode)
                }))
                .await
            }
            CheckKind::Command {
                run,
                expect_exit,
                env,
                dir,
            } => {
                command::command(
                    &ws,
                    &run,
                    expect_exit,
                    &env,
                    dir.as_ref(),
                    timeout,
                    &self.services.fence,
                )
                .await
            }
            CheckKind::MavenBuild { goals, args } => {
                let base = ctx.base.clone();
                // Pinned first, then the (trusted) config's own arguments: the subject's
                // .mvn/maven.config cannot switch the tests off.
                let mut pinned: Vec<String> = evidence::MAVEN_PINNED
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                pinned.extend(args);
                let reference = ctx.reference.clone();
                // Resolution is judged on the effective model, before the build runs.
                let before = {
                    let (ws, pinned, reference) = (ws.clone(), pinned.clone(), reference.clone());
                    tokio::task::spawn_blocking(move || {
                        resolution::before_build(&ws, reference.as_deref(), &pinned)
                    })
                    .await
                    .unwrap_or_default()
                };
                let build = command::build_tool_run(
                    &ws,
                    Some(&before),
                    true,
                    &goals,
                    &pinned,
                    timeout,
                    &self.services.fence,
                );
                // The reference's side of the oracle runs alongside the subject's build.
                let has_tests = oracle::judge::goals_run_tests(&goals)
                    && reference
                        .as_deref()
                        .is_some_and(|r| !oracle::expected(r).tests.is_empty());
                let built = if has_tests {
                    let prepare = oracle::judge::prepare(
                        &self.services.oracle,
                        reference.as_deref(),
                        &pinned,
                        &before.repositories,
                        timeout,
                        &self.services.fence,
                    );
                    tokio::join!(build, prepare).0
                } else {
                    build.await
                };
                // Exit 0 is necessary, never sufficient: when the build ran the tests, judge-ci
                // runs the trusted ones itself and the judgment is what it observed.
                match built {
                    Ok(j)
                        if j.status() == Status::Pass && oracle::judge::goals_run_tests(&goals) =>
                    {
                        oracle::judge::verify(
                            j,
                            &ws,
                            reference.as_deref(),
                            base.as_deref(),
                            &pinned,
                            &before.repositories,
                            timeout,
                            &self.services.oracle,
                            &self.services.fence,
                        )
                        .await
                    }
                    other => other,
                }
            }
            CheckKind::GradleBuild { tasks, args } => {
                command::build_tool_run(
                    &ws,
                    None,
                    false,
                    &tasks,
                    &args,
                    timeout,
                    &self.services.fence,
                )
                .await
            }
            CheckKind::ClassVersion { target, dir } => {
                let c = ctx.clone();
                blocking(Box::new(move || {
                    class_version::class_version(&c, since, target, &dir)
                }))
                .await
            }
            CheckKind::CoveragePreservation {
                max_drop,
                report,
                baseline,
            } => {
                let c = ctx.clone();
                blocking(Box::new(move || {
                    coverage::preservation(&c, since, max_drop, &report, baseline.as_ref())
                }))
                .await
            }
            CheckKind::CoverageImprovement {
                max_improvement,
                minimum_line_coverage,
                report,
                baseline,
            } => {
                let c = ctx.clone();
                blocking(Box::new(move || {
                    coverage::improvement(
                        &c,
                        since,
                        max_improvement,
                        minimum_line_coverage,
                        &report,
                        baseline.as_ref(),
                    )
                }))
                .await
            }
            CheckKind::External { run, env } => {
                command::external(ctx, &run, &env, timeout, &self.services.fence).await
            }
            CheckKind::ImportDiff {
                files,
                languages,
                forbid,
                require,
            } => {
                against_reference(
                    ctx,
                    &self.services.comparisons,
                    timeout,
                    move |cmp, ws, r| {
                        structural::import_diff(cmp, ws, r, &files, &languages, &forbid, &require)
                    },
                )
                .await
            }
            CheckKind::AstDiff {
                files,
                languages,
                aspects,
            } => {
                against_reference(
                    ctx,
                    &self.services.comparisons,
                    timeout,
                    move |cmp, ws, r| {
                        structural::ast_diff(cmp, ws, r, &files, &languages, &aspects)
                    },
                )
                .await
            }
            CheckKind::PomDiff {
                aspects,
                ignore_versions,
            } => {
                against_reference(
                    ctx,
                    &self.services.comparisons,
                    timeout,
                    move |cmp, ws, r| structural::pom_diff(cmp, ws, r, &aspects, ignore_versions),
                )
                .await
            }
            CheckKind::FileComparison { files } => {
                against_reference(
                    ctx,
                    &self.services.comparisons,
                    timeout,
                    move |cmp, ws, r| structural::file_comparison(cmp, ws, r, &files),
                )
                .await
            }
            CheckKind::TestInvariance { reports } => {
                let base = ctx.base.clone();
                // Decided on judge-ci's own run of the trusted tests, never on the Surefire
                // reports the subject's build wrote (`reports` is the cross-checked folder's
                // default; spec/trust.md points 11 and 17).
                let reference = ctx.reference.clone();
                let pinned: Vec<String> = evidence::MAVEN_PINNED
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                let repos = {
                    let (ws, pinned, reference) = (ws.clone(), pinned.clone(), reference.clone());
                    tokio::task::spawn_blocking(move || {
                        resolution::before_build(&ws, reference.as_deref(), &pinned).repositories
                    })
                    .await
                    .unwrap_or_default()
                };
                oracle::judge::invariance(
                    &ws,
                    reports.as_path(),
                    reference.as_deref(),
                    base.as_deref(),
                    &pinned,
                    &repos,
                    timeout,
                    &self.services.oracle,
                    &self.services.fence,
                    since,
                )
                .await
            }
            CheckKind::ProtectedPaths {
                changes,
                findings,
                unjudged,
            } => protected_paths(&changes, findings, &unjudged),
            CheckKind::Semantic {
                question,
                llm: own,
                prompt,
            } => {
                // Within the check's time limit (kept by the judge, which reports the
                // requests a timed-out check sent).
                llm::judge(
                    &self.services.llm,
                    ctx,
                    &question,
                    &own,
                    prompt.as_ref(),
                    timeout,
                    &self.spec.name,
                )
                .await
            }
        }
    }
}

#[async_trait]
impl Judge for ConfiguredJudge {
    fn metadata(&self) -> Result<Option<JudgeMetadata>, Fault> {
        let family = self.spec.check_type().family();
        let judge_type = if family == Family::Semantic {
            JudgeType::LlmPowered
        } else {
            JudgeType::Deterministic
        };
        JudgeMetadata::new(
            self.spec.name.clone(),
            self.spec.description.clone(),
            judge_type,
            self.spec.not_applicable_when.clone(),
        )
        .map(Some)
        .map_err(Fault::from)
    }

    async fn judge(&self, ctx: &JudgmentContext) -> Result<Judgment, Fault> {
        self.services.progress.started(&self.tier, &self.spec.name);
        let start = Instant::now();
        let result = self.evaluate(ctx).await;
        let elapsed = start.elapsed();
        let result = result.map(|j| {
            if j.elapsed().is_some() {
                j
            } else {
                j.with_elapsed(elapsed)
            }
        });
        let status = match &result {
            Ok(j) => j.status(),
            Err(_) => Status::Error,
        };
        self.services
            .progress
            .finished(&self.tier, &self.spec.name, status, elapsed);
        result
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        Some(configuration(&self.spec))
    }

    fn implementation(&self) -> crate::judgment::Implementation {
        crate::judgment::Implementation::Named(format!("judge-ci:{}", self.spec.check_type()))
    }

    fn phase(&self) -> crate::judgment::Phase {
        self.spec.kind.facts().phase
    }
}

fn cmdline(c: &CommandLine) -> Value {
    match c {
        CommandLine::Shell(s) => json!(s),
        CommandLine::ShellWithGlobs(s) => json!({"run": s, "glob": true}),
        CommandLine::Argv(v) => json!(v),
    }
}

fn baseline_json(b: &Option<Baseline>) -> Value {
    match b {
        Some(Baseline::Percent(p)) => json!(p),
        Some(Baseline::Reference) => json!("reference"),
        None => json!("metadata:baselineCoverage"),
    }
}

/// Config tokens, in order.
fn tokens<T: std::fmt::Display>(values: &[T]) -> Vec<String> {
    values.iter().map(ToString::to_string).collect()
}

/// The portable configuration of a check, for descriptions.
fn configuration(spec: &CheckSpec) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), spec.check_type().token().into());
    m.insert(
        "timeoutMillis".into(),
        (spec.timeout.as_millis() as u64).into(),
    );
    let p = |path: &crate::config::checks::WorkspacePath| {
        Value::from(path.as_path().display().to_string())
    };
    let env_names = |env: &[(String, String)]| {
        Value::from(env.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>())
    };
    let extra = match &spec.kind {
        CheckKind::FileExists { path } => json!({"path": p(path)}),
        CheckKind::FileContent {
            path,
            expected,
            mode,
        } => json!({"path": p(path), "expected": expected, "match": mode.to_string()}),
        CheckKind::Command {
            run,
            expect_exit,
            env,
            dir,
        } => json!({"run": cmdline(run), "expectExit": expect_exit, "env": env_names(env),
            "dir": dir.as_ref().map(p).unwrap_or(Value::from("."))}),
        CheckKind::MavenBuild { goals, args } => json!({"goals": goals, "args": args}),
        CheckKind::GradleBuild { tasks, args } => json!({"tasks": tasks, "args": args}),
        CheckKind::ClassVersion { target, dir } => {
            json!({"target": target.map_or(Value::from("metadata:targetClassVersion"), Value::from), "dir": p(dir)})
        }
        CheckKind::CoveragePreservation {
            max_drop,
            report,
            baseline,
        } => json!({"maxDrop": max_drop, "report": p(report), "baseline": baseline_json(baseline)}),
        CheckKind::CoverageImprovement {
            max_improvement,
            minimum_line_coverage,
            report,
            baseline,
        } => json!({"maxImprovement": max_improvement,
            "minimumLineCoverage": minimum_line_coverage, "report": p(report), "baseline": baseline_json(baseline)}),
        CheckKind::External { run, env } => json!({"run": cmdline(run), "env": env_names(env)}),
        CheckKind::ImportDiff {
            files,
            languages,
            forbid,
            require,
        } => {
            json!({"include": files.include, "exclude": files.exclude,
            "languages": tokens(languages), "forbid": forbid, "require": require})
        }
        CheckKind::AstDiff {
            files,
            languages,
            aspects,
        } => {
            json!({"include": files.include, "exclude": files.exclude,
            "languages": tokens(languages), "aspects": tokens(aspects)})
        }
        CheckKind::PomDiff {
            aspects,
            ignore_versions,
        } => {
            json!({"aspects": aspects.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "ignoreVersions": ignore_versions})
        }
        CheckKind::FileComparison { files } => {
            json!({"include": files.include, "exclude": files.exclude})
        }
        CheckKind::TestInvariance { reports } => json!({"reports": p(reports)}),
        CheckKind::ProtectedPaths {
            changes,
            findings,
            unjudged,
        } => {
            json!({"changes": changes, "findings": findings.len(), "unjudged": unjudged})
        }
        CheckKind::Semantic {
            question,
            llm: own,
            prompt,
        } => {
            let mut v = json!({"question": <&str>::from(question)});
            if let Some(m) = &own.model {
                v["model"] = json!(m);
            }
            if let Some((path, text)) = prompt {
                v["prompt"] = json!(path.file_name().map(|f| f.to_string_lossy().into_owned()));
                v["promptSha256"] = json!(llm::prompt::template_hash(text));
            }
            v
        }
    };
    if let Value::Object(e) = extra {
        m.extend(e);
    }
    m
}

/// `protected-paths`: FAIL, one failed check per protected path the pull request changes
/// (the run adds this judge only when there is at least one).
fn protected_paths(
    changes: &[String],
    findings: Vec<crate::judgment::Finding>,
    unjudged: &[String],
) -> Outcome {
    let mut why = Vec::new();
    if !unjudged.is_empty() {
        let first: Vec<&str> = unjudged.iter().take(5).map(String::as_str).collect();
        why.push(format!(
            "the pull request changes {} file(s) that no check reads: {}{}",
            unjudged.len(),
            first.join(", "),
            if unjudged.len() > 5 { ", …" } else { "" }
        ));
    }
    if !changes.is_empty() {
        why.push(format!(
            "the pull request changes {} protected path(s): {}",
            changes.len(),
            changes.join("; ")
        ));
    }
    let (names, code): (Vec<_>, Vec<_>) = findings
        .iter()
        .partition(|f| f.kind == crate::judgment::FindingKind::MisreadFileName);
    if !code.is_empty() {
        let first: Vec<String> = code.iter().take(3).map(|f| f.one_line()).collect();
        why.push(format!(
            "the pull request adds {} piece(s) of code that run at build or test time, which the reference does not: {}{}",
            code.len(),
            first.join("; "),
            if code.len() > 3 { "; …" } else { "" }
        ));
    }
    if !names.is_empty() {
        let first: Vec<String> = names.iter().take(3).map(|f| f.one_line()).collect();
        why.push(format!(
            "the pull request adds {} file name(s) a program the checks run reads as something else than a name: {}{}",
            names.len(),
            first.join("; "),
            if names.len() > 3 { "; …" } else { "" }
        ));
    }
    let mut b = Judgment::builder(Status::Fail).reasoning(why.join("; and "));
    if !code.is_empty() {
        b = b.check(crate::judgment::Check::failed(
            "build_code_unchanged",
            format!("{} build-code-added finding(s)", code.len()),
        )?);
    }
    if !names.is_empty() {
        b = b.check(crate::judgment::Check::failed(
            "file_names_read_as_names",
            format!("{} misread-file-name finding(s)", names.len()),
        )?);
    }
    b = b.findings(findings.iter().cloned());
    if !unjudged.is_empty() {
        b = b.check(crate::judgment::Check::failed(
            "every_change_judged",
            format!("{} file(s) no check reads", unjudged.len()),
        )?);
    }
    for c in changes {
        b = b.check(crate::judgment::Check::failed(
            "protected_path_unchanged",
            c.clone(),
        )?);
    }
    build(b)
}

/// A refusal while building a jury, with the place in the config it concerns.
#[derive(Debug)]
pub struct JuryBuildError {
    /// Where.
    pub loc: Option<Loc>,
    /// What.
    pub error: BuildError,
}

fn simple(
    voting: &crate::jury::strategies::StrategySpec,
    parallel: bool,
    checks: &[CheckSpec],
    tier: &str,
    loc: Option<&Loc>,
    services: &Services,
) -> Result<SimpleJury, JuryBuildError> {
    let at = |error: BuildError| JuryBuildError {
        loc: loc.cloned(),
        error,
    };
    let strategy = voting.build().map_err(at)?;
    let mut b = SimpleJury::builder().strategy(Arc::new(strategy));
    for c in checks {
        let judge = ConfiguredJudge::new(c.clone(), tier, services.clone());
        b = b.weighted(Arc::new(judge), c.weight);
    }
    b.parallel(parallel)
        .require_declared_names()
        .build()
        .map_err(at)
}

/// Builds the engine's jury for a validated spec; `name` labels progress for flat juries.
pub fn build_jury(
    spec: &JurySpec,
    name: &str,
    services: &Services,
) -> Result<Arc<dyn Jury>, JuryBuildError> {
    match spec {
        JurySpec::Checks {
            voting,
            parallel,
            checks,
        } => Ok(Arc::new(simple(
            voting, *parallel, checks, name, None, services,
        )?)),
        JurySpec::Tiers(tiers) => {
            let mut b = CascadedJury::builder();
            for t in tiers {
                let jury = simple(
                    &t.voting,
                    t.parallel,
                    &t.checks,
                    &t.name,
                    t.loc.as_ref(),
                    services,
                )?;
                b = b.tier(t.name.clone(), Arc::new(jury), t.policy);
            }
            Ok(Arc::new(b.build().map_err(|error| JuryBuildError {
                loc: tiers.first().and_then(|t| t.loc.clone()),
                error,
            })?))
        }
        JurySpec::Members { voting, members } => {
            let strategy = voting
                .build()
                .map_err(|error| JuryBuildError { loc: None, error })?;
            let mut b = MetaJury::builder().strategy(Arc::new(strategy));
            for m in members {
                b = b.member(NamedJury::new(
                    m.name.clone(),
                    build_jury(&m.jury, &m.name, services)?,
                ));
            }
            Ok(Arc::new(b.build().map_err(|error| JuryBuildError {
                loc: members.first().and_then(|m| m.loc.clone()),
                error,
            })?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::checks::{AstAspect, MatchMode, PomAspect};
    use crate::config::llm::{CriteriaSource, Question};

    fn spec(kind: CheckKind) -> CheckSpec {
        CheckSpec {
            name: "x".into(),
            weight: 1.0,
            timeout: std::time::Duration::from_secs(1),
            description: None,
            not_applicable_when: None,
            kind,
            loc: None,
        }
    }

    /// A judge's configuration is written with the config's own tokens, never with Rust's
    /// Debug names (`JavaVersion` lower-cased to `javaversion`, `SemanticDiff { … }`).
    #[test]
    fn configuration_uses_the_config_tokens() {
        let pom = configuration(&spec(CheckKind::PomDiff {
            aspects: vec![PomAspect::JavaVersion, PomAspect::Parent],
            ignore_versions: false,
        }));
        assert_eq!(pom["type"], "pom-diff");
        assert_eq!(pom["aspects"], json!(["java-version", "parent"]));
        let ast = configuration(&spec(CheckKind::AstDiff {
            files: crate::config::checks::FileSet {
                include: vec![],
                exclude: vec![],
            },
            languages: vec![crate::lang::Language::Kotlin],
            aspects: vec![AstAspect::Signatures],
        }));
        assert_eq!(ast["aspects"], json!(["signatures"]));
        assert_eq!(ast["languages"], json!(["kotlin"]));
        let semantic = configuration(&spec(CheckKind::Semantic {
            question: Question::SemanticDiff {
                criteria: CriteriaSource::Goal,
                max: 3,
            },
            llm: Box::default(),
            prompt: None,
        }));
        assert_eq!(semantic["type"], "semantic-diff");
        assert_eq!(semantic["question"], "semantic-diff");
        let content = configuration(&spec(CheckKind::FileContent {
            path: crate::config::checks::WorkspacePath::new("a").unwrap(),
            expected: "x".into(),
            mode: MatchMode::Regex,
        }));
        assert_eq!(content["match"], "REGEX");
    }
}
