//! `judge-ci calibrate CASES_DIR`: how often the config's semantic checks agree with a
//! careful human reviewer. Each labelled case of `CASES_DIR/cases.yml` ([`cases`]) is
//! judged by the ordinary run with only the config's semantic checks that the case labels
//! (narrowed further by `--check`; [`crate::config::JurySpec::semantic_only`]), so an
//! unlabelled check is never asked, up to `--jobs` at once; every label is
//! compared with the check's (or the criterion's) answer, and the agreement is reported as
//! accuracy, Cohen's κ and the true-positive and true-negative rates with their intervals
//! ([`stats`]), with the instability rate, the order-swap flip rate, requests and cost.
//! `--min-kappa X` gates on the lower bound of κ's interval.

pub mod cases;
mod error;
pub mod model;
pub mod render;
pub mod stats;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use crate::config::checks::CheckKind;
use crate::config::llm::{CriteriaSource, Question};
use crate::config::{CheckSpec, Diagnostic, Diagnostics};
use crate::judgment::{Cause, Judgment, Status};
use crate::pipeline::{self, Format, RunOptions, Verbosity};
use cases::{CaseSet, Side};
use model::{CalibrateReport, CaseOutcome, CaseResult, CheckAgreement, Gate, Item, Usage};
use stats::Answer;

pub use error::{CalibrateError, InputError, InstrumentError};

/// What `judge-ci calibrate` was asked.
#[derive(Clone, Debug)]
pub struct CalibrateOptions {
    /// The folder holding `cases.yml`.
    pub cases_dir: PathBuf,
    /// Where `calibrate.json`, `calibrate.md`, `calibrate.junit.xml` and each case's report
    /// go.
    pub out: PathBuf,
    /// Cases judged at once.
    pub jobs: usize,
    /// Only these cases (by name); all when empty.
    pub only_cases: Vec<String>,
    /// Only these checks' labels (by name); all when empty.
    pub only_checks: Vec<String>,
    /// `--min-kappa`: the least lower bound of κ's 95% interval that passes.
    pub min_kappa: Option<f64>,
    /// `--model-cache`.
    pub model_cache: Option<String>,
}

/// A case ready to run: its options and the checkouts its trees live in.
struct Prepared {
    case: cases::Case,
    run: RunOptions,
    _trees: Vec<crate::materialize::Checkout>,
}

/// Runs the calibration and writes its report.
pub async fn calibrate(opts: &CalibrateOptions) -> Result<CalibrateReport, CalibrateError> {
    let started = Instant::now();
    let set = cases::read(&opts.cases_dir).map_err(InputError::Cases)?;
    let (bench, _) = pipeline::load_from(
        Some(&set.config),
        set.task.as_deref(),
        Arc::new(crate::config::ConfigSource::WorkTree),
        Verbosity::Quiet,
        false,
    )
    .map_err(|e| InputError::Config {
        config: set.config.clone(),
        file: set.file.clone(),
        source: Box::new(e),
    })?;
    let semantic: Vec<CheckSpec> = match bench.jury.semantic_only(None) {
        Ok(Some(crate::config::JurySpec::Checks { checks, .. })) => checks,
        Ok(_) => {
            return Err(InputError::NoSemanticCheck(set.config.clone()).into());
        }
        Err(source) => {
            return Err(InputError::DuplicateName {
                config: set.config.clone(),
                source,
            }
            .into());
        }
    };
    let set = select(set, &semantic, opts)?;
    std::fs::create_dir_all(opts.out.join("cases")).map_err(|source| {
        InstrumentError::CreateOut {
            path: opts.out.clone(),
            source,
        }
    })?;
    let out = std::path::absolute(&opts.out).map_err(|source| InstrumentError::Absolute {
        path: opts.out.clone(),
        source,
    })?;
    let mut prepared = Vec::new();
    for case in &set.cases {
        prepared.push(prepare(&set, case, &out, opts.model_cache.clone())?);
    }
    let hidden = Arc::new(crate::fence::Hidden::default());
    let results = crate::suite::concurrently(prepared, opts.jobs, move |p: Prepared| {
        let hidden = Arc::clone(&hidden);
        async move {
            let began = Instant::now();
            let r = pipeline::run_beside(&p.run, hidden).await;
            drop(p._trees);
            (p.case, r, began.elapsed().as_millis() as u64)
        }
    })
    .await
    .map_err(|e| match e {
        crate::suite::Stopped::Cancelled { name, signal, .. } => {
            CalibrateError::Cancelled { name, signal }
        }
        crate::suite::Stopped::Panicked(p) => InstrumentError::Panicked(p).into(),
    })?;
    let types: BTreeMap<&str, &str> = semantic
        .iter()
        .map(|c| (c.name.as_str(), c.check_type().into()))
        .collect();
    let mut case_results = Vec::new();
    let mut models = Vec::new();
    for (case, r, elapsed_ms) in results {
        let report = format!("cases/{}", case.name);
        let result = match r {
            Ok(r) => {
                if let Some(l) = &r.report.llm {
                    models.extend(l.models.iter().cloned());
                }
                judged(&case, &r.report, r.exit_code, report, elapsed_ms)
            }
            Err(pipeline::RunError::Cancelled { name, signal }) => {
                return Err(CalibrateError::Cancelled { name, signal });
            }
            Err(e) => not_run(&case, &e.to_string(), e.exit_code(), report, elapsed_ms),
        };
        case_results.push(result);
    }
    models.sort();
    models.dedup();
    let report = summarise(
        opts,
        &set,
        bench.name.clone(),
        models,
        &types,
        case_results,
        started.elapsed().as_millis() as u64,
    );
    render::write(&report, &opts.out).map_err(|source| InstrumentError::WriteReport {
        path: opts.out.clone(),
        source,
    })?;
    Ok(report)
}

/// Checks every label against the config's semantic checks (and a semantic-diff's listed
/// criteria), then keeps the cases and labels `--case` and `--check` ask for.
fn select(
    mut set: CaseSet,
    semantic: &[CheckSpec],
    opts: &CalibrateOptions,
) -> Result<CaseSet, CalibrateError> {
    let names: Vec<&str> = semantic.iter().map(|c| c.name.as_str()).collect();
    let mut problems = Diagnostics::default();
    for case in &set.cases {
        for l in &case.labels {
            let Some(spec) = semantic.iter().find(|c| c.name == l.check) else {
                problems.push(
                    Diagnostic::error(
                        l.loc.clone(),
                        format!(
                            "`{}` is not a semantic check of {}",
                            l.check,
                            set.config.display()
                        ),
                    )
                    .help(format!("label one of: {}", names.join(", "))),
                );
                continue;
            };
            if let Some(listed) = listed_criteria(spec) {
                for (criterion, labelled) in &l.criteria {
                    if !listed.contains(criterion) {
                        problems.push(
                            Diagnostic::error(
                                labelled.loc.clone(),
                                format!("`{}` lists no criterion {criterion:?}", l.check),
                            )
                            .help(format!("its criteria: {}", quoted(&listed))),
                        );
                    }
                }
            } else if !l.criteria.is_empty()
                && !matches!(
                    question(spec),
                    Some(Question::SemanticDiff { .. } | Question::Roster { .. })
                )
            {
                problems.push(
                    Diagnostic::error(
                        l.loc.clone(),
                        format!("`{}` asks no fixed criteria, so its criteria cannot be labelled", l.check),
                    )
                    .help("label the check itself: {label: pass, why: \"…\"} (criteria labels are for semantic-diff, ears and rfc2119)"),
                );
            }
        }
    }
    for c in &opts.only_checks {
        if !names.contains(&c.as_str()) {
            return Err(InputError::UnknownCheck {
                check: c.clone(),
                config: set.config.clone(),
                valid: names.iter().map(|n| n.to_string()).collect(),
            }
            .into());
        }
    }
    for c in &opts.only_cases {
        if !set.cases.iter().any(|x| &x.name == c) {
            return Err(InputError::UnknownCase {
                case: c.clone(),
                file: set.file.clone(),
            }
            .into());
        }
    }
    if problems.has_errors() {
        return Err(InputError::Labels(problems).into());
    }
    if !opts.only_cases.is_empty() {
        set.cases.retain(|c| opts.only_cases.contains(&c.name));
    }
    if !opts.only_checks.is_empty() {
        for c in &mut set.cases {
            c.labels.retain(|l| opts.only_checks.contains(&l.check));
        }
        set.cases.retain(|c| !c.labels.is_empty());
        if set.cases.is_empty() {
            return Err(InputError::NothingLabelled(opts.only_checks.clone()).into());
        }
    }
    Ok(set)
}

fn question(spec: &CheckSpec) -> Option<&Question> {
    match &spec.kind {
        CheckKind::Semantic { question, .. } => Some(question),
        _ => None,
    }
}

/// The criteria a check lists in the config (semantic-diff's `criteria:`, a roster's ids).
fn listed_criteria(spec: &CheckSpec) -> Option<Vec<String>> {
    match question(spec)? {
        Question::SemanticDiff {
            criteria: CriteriaSource::Listed(l),
            ..
        } => Some(l.clone()),
        Question::Roster { items, .. } => Some(items.iter().map(|i| i.id.clone()).collect()),
        _ => None,
    }
}

fn quoted(v: &[String]) -> String {
    v.iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The run of one case: its trees (revisions written out), the semantic checks only, its
/// report under `OUT/cases/NAME`.
fn prepare(
    set: &CaseSet,
    case: &cases::Case,
    out: &Path,
    model_cache: Option<String>,
) -> Result<Prepared, CalibrateError> {
    let mut trees = Vec::new();
    let mut folder = |side: &Side, what: &str| -> Result<PathBuf, CalibrateError> {
        match side {
            Side::Folder(p) => Ok(p.clone()),
            Side::Rev(rev) => {
                let repo = set
                    .repository
                    .as_deref()
                    .ok_or_else(|| InputError::NoRepository {
                        case: case.name.clone(),
                        what: what.to_string(),
                        rev: rev.clone(),
                    })?;
                let c = crate::materialize::materialize(
                    &crate::materialize::Source::Rev(rev.clone()),
                    repo,
                    false,
                )
                .map_err(|source| InputError::Checkout {
                    case: case.name.clone(),
                    what: what.to_string(),
                    rev: rev.clone(),
                    repository: repo.to_path_buf(),
                    source,
                })?;
                let p = c.path.clone();
                trees.push(c);
                Ok(p)
            }
        }
    };
    let workspace = folder(&case.workspace, "workspace")?;
    let reference = folder(
        case.reference.as_ref().unwrap_or(&set.reference),
        "reference",
    )?;
    let run = RunOptions {
        config: Some(set.config.clone()),
        task: set.task.clone(),
        workspace,
        reference: Some(reference.display().to_string()),
        head: None,
        keep_checkouts: false,
        model_cache,
        dry_run: true,
        out: out.join("cases").join(&case.name),
        format: Format::Json,
        verbosity: Verbosity::Quiet,
        color: false,
        fail_on: None,
        config_from: pipeline::config_tree::ConfigFrom::Head,
        publish: Default::default(),
        actions: false,
        split: pipeline::resume::Split::Whole,
        llm_budget: None,
        // Only the checks the case labels (after `--check`): an answer nobody compares with
        // a label is never paid for.
        semantic_only: Some(asked(case)),
    };
    Ok(Prepared {
        case: case.clone(),
        run,
        _trees: trees,
    })
}

/// The names of the checks `case` labels, each once: what its run asks.
fn asked(case: &cases::Case) -> Vec<String> {
    let mut names: Vec<String> = case.labels.iter().map(|l| l.check.clone()).collect();
    names.sort();
    names.dedup();
    names
}

/// The first 240 characters of the first line.
fn one_line(s: &str) -> String {
    let l = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    match l.char_indices().nth(240) {
        Some((i, _)) => format!("{}…", &l[..i]),
        None => l.to_string(),
    }
}

/// What the model answered for a whole check.
fn check_answer(j: &Judgment) -> (Answer, bool) {
    match j.status() {
        Status::Pass => (Answer::Pass, false),
        Status::Fail => (Answer::Fail, false),
        Status::Abstain => (Answer::Undecided, j.cause() == Some(Cause::ModelUnstable)),
        Status::NotApplicable | Status::Error => (Answer::Undecided, false),
    }
}

/// What the model answered for one named criterion of a check.
fn criterion_answer(j: &Judgment, criterion: &str) -> (Answer, bool, String) {
    if j.status() == Status::Error {
        return (Answer::Undecided, false, one_line(j.reasoning()));
    }
    let undecided_row = j
        .metadata()
        .get("samples")
        .and_then(|s| s.get("criteria"))
        .and_then(Value::as_array)
        .and_then(|rows| {
            rows.iter()
                .find(|r| r.get("name").and_then(Value::as_str) == Some(criterion))
        })
        .is_some_and(|r| r.get("decided") == Some(&Value::Bool(false)));
    match j.checks().iter().find(|c| c.name() == criterion) {
        Some(c) if undecided_row => (Answer::Undecided, true, one_line(c.message())),
        Some(c) if c.is_passed() => (Answer::Pass, false, one_line(c.message())),
        Some(c) => (Answer::Fail, false, one_line(c.message())),
        None => (
            Answer::Undecided,
            false,
            format!(
                "the judgment has no criterion {criterion:?} (not asked: max-criteria, or the question failed)"
            ),
        ),
    }
}

/// The items of one case whose run finished.
fn judged(
    case: &cases::Case,
    report: &crate::report::Report,
    exit_code: i32,
    at: String,
    elapsed_ms: u64,
) -> CaseResult {
    let by_name = report.verdict.individual_by_name();
    let mut items = Vec::new();
    let (mut flips, mut compared) = (0, 0);
    for l in &case.labels {
        let j = by_name.get(&l.check);
        if let Some(flip) = j
            .and_then(|j| j.metadata().get("samples"))
            .and_then(|s| s.get("orderFlip"))
            .and_then(Value::as_bool)
        {
            compared += 1;
            flips += u64::from(flip);
        }
        let status = j.map_or("missing".to_string(), |j| j.status().token().to_string());
        let cause = j.and_then(|j| j.cause()).map(|c| c.token().to_string());
        if let Some(o) = &l.overall {
            let (answer, unstable, reasoning) = match j {
                Some(j) => {
                    let (a, u) = check_answer(j);
                    (a, u, one_line(j.reasoning()))
                }
                None => (
                    Answer::Undecided,
                    false,
                    "the run left no judgment of this check".into(),
                ),
            };
            items.push(Item {
                check: l.check.clone(),
                criterion: None,
                label: o.label,
                why: o.why.clone(),
                agrees: answer.agrees(o.label),
                answer,
                unstable,
                status: status.clone(),
                cause: cause.clone(),
                reasoning,
            });
        }
        for (criterion, o) in &l.criteria {
            let (answer, unstable, reasoning) = match j {
                Some(j) => criterion_answer(j, criterion),
                None => (
                    Answer::Undecided,
                    false,
                    "the run left no judgment of this check".into(),
                ),
            };
            items.push(Item {
                check: l.check.clone(),
                criterion: Some(criterion.clone()),
                label: o.label,
                why: o.why.clone(),
                agrees: answer.agrees(o.label),
                answer,
                unstable,
                status: status.clone(),
                cause: cause.clone(),
                reasoning,
            });
        }
    }
    let usage = report.llm.as_ref().map_or(Usage::default(), |l| Usage {
        requests: l.counts.requests,
        cache_hits: l.counts.cache_hits,
        input_tokens: l.counts.input_tokens,
        output_tokens: l.counts.output_tokens,
        cost_usd: l.cost_usd,
    });
    CaseResult {
        name: case.name.clone(),
        from: case.from.clone(),
        outcome: if items.iter().all(|i| i.agrees) {
            CaseOutcome::Agrees
        } else {
            CaseOutcome::Disagrees
        },
        exit_code,
        error: None,
        report: at,
        elapsed_ms,
        items,
        order_flips: flips,
        order_compared: compared,
        usage,
    }
}

/// A case whose run ended before judging: every label is an undecided item.
fn not_run(
    case: &cases::Case,
    why: &str,
    exit_code: i32,
    at: String,
    elapsed_ms: u64,
) -> CaseResult {
    let why = one_line(why);
    let mut items = Vec::new();
    for l in &case.labels {
        let labelled = l
            .overall
            .iter()
            .map(|o| (None, o))
            .chain(l.criteria.iter().map(|(c, o)| (Some(c.clone()), o)));
        for (criterion, o) in labelled {
            items.push(Item {
                check: l.check.clone(),
                criterion,
                label: o.label,
                why: o.why.clone(),
                answer: Answer::Undecided,
                agrees: false,
                unstable: false,
                status: "missing".into(),
                cause: None,
                reasoning: why.clone(),
            });
        }
    }
    CaseResult {
        name: case.name.clone(),
        from: case.from.clone(),
        outcome: CaseOutcome::CouldNotRun,
        exit_code,
        error: Some(why),
        report: at,
        elapsed_ms,
        items,
        order_flips: 0,
        order_compared: 0,
        usage: Usage::default(),
    }
}

/// The statistics over every case, the gate and the exit code.
fn summarise(
    opts: &CalibrateOptions,
    set: &CaseSet,
    name: String,
    models: Vec<String>,
    types: &BTreeMap<&str, &str>,
    cases: Vec<CaseResult>,
    total_ms: u64,
) -> CalibrateReport {
    let all: Vec<&Item> = cases.iter().flat_map(|c| &c.items).collect();
    let overall = stats::agreement(all.iter().map(|i| (i.label, i.answer)));
    let mut checks: Vec<String> = all.iter().map(|i| i.check.clone()).collect();
    checks.sort();
    checks.dedup();
    let checks = checks
        .into_iter()
        .map(|c| CheckAgreement {
            agreement: stats::agreement(
                all.iter()
                    .filter(|i| i.check == c)
                    .map(|i| (i.label, i.answer)),
            ),
            check_type: types.get(c.as_str()).copied().unwrap_or("").to_string(),
            check: c,
        })
        .collect();
    let unstable = all.iter().filter(|i| i.unstable).count() as u64;
    let instability = stats::wilson(unstable, all.len() as u64);
    let flips: u64 = cases.iter().map(|c| c.order_flips).sum();
    let compared: u64 = cases.iter().map(|c| c.order_compared).sum();
    let order_flip = stats::wilson(flips, compared);
    let mut usage = Usage::default();
    for c in &cases {
        usage.add(&c.usage);
    }
    let gate = opts.min_kappa.map(|min| match &overall.kappa {
        Some(k) if k.low + 1e-12 >= min => Gate {
            min_kappa: min,
            passed: true,
            reason: format!(
                "κ = {:.3}, and its 95% interval's lower bound {:.3} reaches --min-kappa {min} over {} labelled items",
                k.value,
                k.low,
                overall.confusion.total()
            ),
        },
        Some(k) => Gate {
            min_kappa: min,
            passed: false,
            reason: format!(
                "κ = {:.3}, but its 95% interval's lower bound {:.3} is below --min-kappa {min} over {} labelled items: more agreement, or more cases, are needed before gating on this tier",
                k.value,
                k.low,
                overall.confusion.total()
            ),
        },
        None => Gate {
            min_kappa: min,
            passed: false,
            reason: "κ is undefined (no labelled items, or every label and every answer the same), so nothing shows the tier agrees beyond chance".into(),
        },
    });
    let could_not_run = cases.iter().any(|c| c.outcome == CaseOutcome::CouldNotRun);
    let exit_code = match (&gate, could_not_run) {
        (Some(g), _) if !g.passed => pipeline::EXIT_REJECTED,
        (_, true) => pipeline::EXIT_INSTRUMENT,
        _ => pipeline::EXIT_PASS,
    };
    CalibrateReport {
        schema: model::CALIBRATE_SCHEMA.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        cases_dir: opts.cases_dir.display().to_string(),
        config: set
            .config
            .strip_prefix(set.file.parent().unwrap_or(Path::new("")))
            .unwrap_or(&set.config)
            .display()
            .to_string(),
        name,
        models,
        overall,
        checks,
        instability,
        order_flip,
        usage,
        gate,
        exit_code,
        cases,
        total_ms,
    }
}
