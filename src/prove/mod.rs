//! `judge-ci prove`: measures what a config catches and what it misses. The reference judged
//! against itself must be accepted (the gold), the base rejected; each unit of the change
//! ([`hunks`]) reverted alone must be rejected, and the unit nothing rejects is a blind spot
//! with a suggestion; the gaming battery ([`battery`]) transforms a rejected variant with
//! each class of `spec/trust.md`, and none may turn it accepted.
//!
//! Every tree is judged by the ordinary run ([`crate::pipeline::run_beside`]) in one
//! process, up to `--jobs` at once, by the suite's runner ([`crate::suite::concurrently`]):
//! the cascade stops each variant at the first tier that rejects it, so a build runs only for
//! the variants no cheaper tier caught, and structural variants reuse the parsed models of the
//! model cache (by content, so the files a variant shares with the reference are not parsed
//! again).

pub mod battery;
mod error;
pub mod exam;
pub mod hunks;
pub mod model;
pub mod render;
pub mod screen;
pub mod tree;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;

use crate::config::checks::CheckType;
use crate::pipeline::{self, Format, RunOptions, Verbosity};
use battery::{Aims, Transformation};
use model::{
    BatteryResult, BatteryStatus, CheckRef, Judged, Outcome, ProveReport, ProveTimings, UnitResult,
    Verdict,
};
use tree::Files;

pub use error::{FolderError, InputError, InstrumentError, ProveError};

/// What `judge-ci prove` was asked.
#[derive(Clone, Debug)]
pub struct ProveOptions {
    /// The config to prove.
    pub config: PathBuf,
    /// The task's starting point: a folder or a revision.
    pub base: String,
    /// The reference: a folder or a revision; `None` for the config's `reference:`.
    pub reference: Option<String>,
    /// Trees judged at once.
    pub jobs: usize,
    /// Where `prove.json`, `prove.md` and each run's report go.
    pub out: PathBuf,
    /// `--model-cache`.
    pub model_cache: Option<String>,
    /// Keep the judged trees (under `OUT/trees/`).
    pub keep_trees: bool,
}

/// One tree to judge.
struct Job {
    /// Its folder name (`gold`, `base`, `unit-3`, `battery-tests-deleted`).
    name: String,
    files: Files,
}

/// Where the trees of one prove run are written, and the reference they are judged against.
struct Workspace {
    trees: PathBuf,
    reference: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

/// Runs prove: the gold and the base, then every unit's variant, then the battery.
pub async fn prove(opts: &ProveOptions) -> Result<ProveReport, ProveError> {
    let total = Instant::now();
    let repo_dir = std::env::current_dir().map_err(InputError::WorkingFolder)?;
    let config = std::path::absolute(&opts.config).map_err(|source| InputError::ConfigPath {
        config: opts.config.clone(),
        source,
    })?;
    if !config.is_file() {
        return Err(InputError::NoConfig(opts.config.clone()).into());
    }
    let (bench, _) = pipeline::load_from(
        Some(&config),
        None,
        Arc::new(crate::config::ConfigSource::WorkTree),
        Verbosity::Quiet,
        false,
    )
    .map_err(|e| InputError::Config {
        config: opts.config.clone(),
        source: Box::new(e),
    })?;
    let tiers: Vec<String> = tier_names(&bench.jury);
    let reference_arg = match (&opts.reference, &bench.reference) {
        (Some(r), _) => r.clone(),
        (None, Some(crate::config::ReferenceSpec::Path(p))) => {
            let dir = config.parent().unwrap_or(Path::new("."));
            dir.join(p).display().to_string()
        }
        (None, Some(crate::config::ReferenceSpec::Rev { rev, repository })) => match repository {
            Some(url) => format!("{url}#{rev}"),
            None => rev.clone(),
        },
        (None, None) => {
            return Err(InputError::NoReference.into());
        }
    };
    let (base, base_label) = tree::read_side(
        "--base",
        &opts.base,
        &repo_dir,
        &config_in(&config, &opts.base, &repo_dir),
    )?;
    let (reference, reference_label) = tree::read_side(
        "--reference",
        &reference_arg,
        &repo_dir,
        &config_in(&config, &reference_arg, &repo_dir),
    )?;
    let units = hunks::split(&base, &reference);
    if units.is_empty() {
        return Err(InputError::SameFiles {
            base: opts.base.clone(),
            reference: reference_arg,
        }
        .into());
    }
    std::fs::create_dir_all(opts.out.join("runs")).map_err(|source| {
        InstrumentError::CreateOut {
            path: opts.out.clone(),
            source,
        }
    })?;
    let ws = workspace(opts, &reference)?;
    // Every tree prove writes, and its output, are judge-ci's: a variant's subject processes
    // write their own tree and read none of the others (nor the reference, nor the reports).
    let hidden = Arc::new(crate::fence::Hidden::default());
    hidden.hide(&ws.trees);
    if let Ok(out) = std::path::absolute(&opts.out) {
        hidden.hide(&out);
    }

    let gold_started = Instant::now();
    let first = judge_all(
        vec![
            Job {
                name: "gold".into(),
                files: reference.clone(),
            },
            Job {
                name: "base".into(),
                files: base.clone(),
            },
        ],
        opts,
        &config,
        &ws,
        &hidden,
        &tiers,
        false,
        None,
    )
    .await?;
    let gold_ms = gold_started.elapsed().as_millis() as u64;
    let mut it = first.into_iter();
    let (gold, base_run) = match (it.next(), it.next()) {
        (Some(g), Some(b)) => (g, b),
        _ => {
            return Err(InstrumentError::NoFirstRuns.into());
        }
    };
    let mut defects = Vec::new();
    let mut unit_results = Vec::new();
    let mut results_battery = Vec::new();
    let mut synthesized = None;
    let (exam_paths, exam) = exam::of(&bench, &reference);
    let mut kinds: Vec<Aims> = bench
        .jury
        .all_checks()
        .iter()
        .map(|c| aims_of(c.check_type().as_ref()))
        .collect();
    kinds.sort_by_key(|a| *a as u8);
    kinds.dedup();
    let mut timings = ProveTimings {
        gold_ms,
        ..Default::default()
    };
    match gold.outcome {
        Outcome::Accepted => {}
        Outcome::Rejected => defects.push(format!(
            "the config rejects its own reference{}",
            because(&gold)
        )),
        Outcome::Refused | Outcome::CouldNotJudge => {}
    }
    if base_run.outcome == Outcome::Accepted {
        defects.push("the config accepts the base, the task's starting point: it would pass a pull request that changes nothing".into());
    }
    // Made after the gold's run, so that its store opens the models that run wrote.
    let screen = screen::Screen::new(
        &bench,
        &ws.reference,
        opts.model_cache.as_deref(),
        &ws.trees.join(".models"),
        Arc::clone(&hidden),
        &tiers,
    );
    let screen = screen.as_ref();
    if gold.outcome == Outcome::Accepted {
        let started = Instant::now();
        let jobs = units
            .iter()
            .map(|u| Job {
                name: format!("unit-{}", u.id),
                files: u.revert(&reference),
            })
            .collect();
        let judged = judge_all(jobs, opts, &config, &ws, &hidden, &tiers, true, screen).await?;
        for (u, j) in units.iter().zip(judged) {
            let suggestion = (j.outcome == Outcome::Accepted).then(|| suggest(&u.path, u.kind));
            if let Some(s) = &suggestion {
                defects.push(format!(
                    "blind spot: {} ({}) is accepted without it; {s}",
                    u.location(),
                    u.what
                ));
            }
            unit_results.push(UnitResult {
                id: u.id,
                path: u.path.clone(),
                line: u.line,
                end_line: u.end_line,
                kind: u.kind,
                what: u.what.clone(),
                judged: j,
                suggestion,
            });
        }
        // A behaviour break, when no variant reaches a check that builds and the config has
        // one: build-class gaming needs a tree only the build rejects.
        let reaches_build = unit_results
            .iter()
            .any(|u| u.judged.failed.iter().any(|f| f.aims == Aims::Build));
        if kinds.contains(&Aims::Build)
            && !reaches_build
            && let Some((tree, applied)) = battery::behaviour_break(&reference)
        {
            let judged = judge_all(
                vec![Job {
                    name: "break".into(),
                    files: tree,
                }],
                opts,
                &config,
                &ws,
                &hidden,
                &tiers,
                true,
                screen,
            )
            .await?;
            if let Some(j) = judged.into_iter().next() {
                synthesized = Some(model::Synthesized { applied, judged: j });
            }
        }
        timings.variants_ms = started.elapsed().as_millis() as u64;
        let started = Instant::now();
        results_battery = run_battery(
            &BatteryInputs {
                base: &base,
                reference: &reference,
                units: &units,
                results: &unit_results,
                synthesized: synthesized.as_ref(),
                exam: &exam_paths,
                kinds: &kinds,
            },
            opts,
            &config,
            &ws,
            &hidden,
            &tiers,
            screen,
        )
        .await?;
        timings.battery_ms = started.elapsed().as_millis() as u64;
        for b in &results_battery {
            if b.status == BatteryStatus::Accepted {
                defects.push(format!(
                    "gaming accepted: {} (spec/trust.md point {}) applied to {} is accepted",
                    b.transformation, b.trust_point, b.target
                ));
            }
        }
    }
    let unjudged = gold.outcome == Outcome::CouldNotJudge
        || base_run.outcome == Outcome::CouldNotJudge
        || unit_results
            .iter()
            .any(|u| u.judged.outcome == Outcome::CouldNotJudge)
        || results_battery
            .iter()
            .any(|b| b.status == BatteryStatus::CouldNotJudge);
    let verdict = if !defects.is_empty() {
        Verdict::Defects
    } else if unjudged {
        Verdict::Unjudged
    } else {
        Verdict::Proven
    };
    if let Some(s) = screen {
        s.finish();
    }
    timings.total_ms = total.elapsed().as_millis() as u64;
    let report = ProveReport {
        schema: model::PROVE_SCHEMA.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        config: opts.config.display().to_string(),
        name: bench.name.clone(),
        base: base_label,
        reference: reference_label,
        gold,
        base_run,
        units: unit_results,
        synthesized,
        battery: results_battery,
        exam,
        unverified: exam::unverified(&bench),
        defects,
        exit_code: match verdict {
            Verdict::Proven => pipeline::EXIT_PASS,
            Verdict::Defects => pipeline::EXIT_REJECTED,
            Verdict::Unjudged => pipeline::EXIT_INSTRUMENT,
        },
        verdict,
        timings,
    };
    render::write(&report, &opts.out).map_err(|source| InstrumentError::WriteReport {
        path: opts.out.clone(),
        source,
    })?;
    Ok(report)
}

/// The config's path inside a side, when the side holds it: it is the judge, not part of the
/// change.
fn config_in(config: &Path, side: &str, repo_dir: &Path) -> Vec<String> {
    let root = if Path::new(side).is_dir() {
        std::fs::canonicalize(side).ok()
    } else {
        git2::Repository::discover(repo_dir)
            .ok()
            .and_then(|r| r.workdir().and_then(|w| std::fs::canonicalize(w).ok()))
    };
    let config = std::fs::canonicalize(config).unwrap_or_else(|_| config.to_path_buf());
    root.and_then(|r| config.strip_prefix(&r).ok().map(Path::to_path_buf))
        .and_then(|p| p.to_str().map(str::to_string))
        .into_iter()
        .collect()
}

/// The folders trees are written to: `OUT/trees` when kept, else a temporary folder; the
/// reference is written there once, as the runs read it.
fn workspace(opts: &ProveOptions, reference: &Files) -> Result<Workspace, ProveError> {
    let (root, temp) = if opts.keep_trees {
        let r = std::path::absolute(opts.out.join("trees")).map_err(|source| {
            InstrumentError::Absolute {
                path: opts.out.join("trees"),
                source,
            }
        })?;
        let _ = std::fs::remove_dir_all(&r);
        (r, None)
    } else {
        let t = tempfile::Builder::new()
            .prefix("judge-ci-prove-")
            .tempdir()
            .map_err(InstrumentError::TempFolder)?;
        (t.path().to_path_buf(), Some(t))
    };
    let reference_dir = root.join("reference");
    tree::write(reference, &reference_dir, &root.join("outside"))
        .map_err(InstrumentError::WriteReference)?;
    Ok(Workspace {
        trees: root,
        reference: reference_dir,
        _temp: temp,
    })
}

/// Judges every job: through the screen when it rejects the tree, else by an ordinary run of
/// the config, up to `--jobs` of those at once.
#[allow(clippy::too_many_arguments)]
async fn judge_all(
    jobs: Vec<Job>,
    opts: &ProveOptions,
    config: &Path,
    ws: &Workspace,
    hidden: &Arc<crate::fence::Hidden>,
    tiers: &[String],
    config_proven: bool,
    screen: Option<&screen::Screen>,
) -> Result<Vec<Judged>, ProveError> {
    let mut screened: Vec<Option<Judged>> = Vec::new();
    let mut prepared = Vec::new();
    for job in jobs {
        let dir = ws.trees.join(&job.name);
        let _ = std::fs::remove_dir_all(&dir);
        tree::write(&job.files, &dir, &ws.trees.join("outside").join(&job.name)).map_err(
            |source| InstrumentError::WriteTree {
                dir: dir.clone(),
                source,
            },
        )?;
        if let Some(s) = screen
            && let Some(j) = s
                .judge(&dir, format!("screened: tiers {}", s.tiers().join(", ")))
                .await
        {
            if !opts.keep_trees {
                let _ = std::fs::remove_dir_all(&dir);
            }
            screened.push(Some(j));
            continue;
        }
        screened.push(None);
        let runs = opts.out.join("runs").join(&job.name);
        let out = std::path::absolute(&runs)
            .map_err(|source| InstrumentError::Absolute { path: runs, source })?;
        let run = RunOptions {
            config: Some(config.to_path_buf()),
            task: None,
            workspace: dir.clone(),
            reference: Some(ws.reference.display().to_string()),
            head: None,
            keep_checkouts: false,
            model_cache: opts.model_cache.clone(),
            dry_run: true,
            out,
            format: Format::Json,
            verbosity: Verbosity::Quiet,
            color: false,
            fail_on: None,
            config_from: pipeline::config_tree::ConfigFrom::Head,
            publish: Default::default(),
            actions: false,
            split: pipeline::resume::Split::Whole,
            llm_budget: None,
            semantic_only: None,
        };
        prepared.push((job.name, dir, run));
    }
    let keep = opts.keep_trees;
    let hidden = Arc::clone(hidden);
    let results = crate::suite::concurrently(prepared, opts.jobs, move |(name, dir, run)| {
        let hidden = Arc::clone(&hidden);
        async move {
            let started = Instant::now();
            let r = pipeline::run_beside(&run, hidden).await;
            if !keep {
                let _ = std::fs::remove_dir_all(&dir);
            }
            (name, r, started.elapsed().as_micros() as u64)
        }
    })
    .await
    .map_err(|e| match e {
        crate::suite::Stopped::Cancelled { name, signal, .. } => {
            ProveError::Cancelled { name, signal }
        }
        crate::suite::Stopped::Panicked(p) => InstrumentError::Panicked(p).into(),
    })?;
    let mut full = Vec::new();
    for (name, r, elapsed_us) in results {
        let report = format!("runs/{name}");
        let elapsed_ms = elapsed_us / 1000;
        full.push(match r {
            Ok(r) => judged(&r.report, r.exit_code, report, elapsed_us, tiers),
            Err(pipeline::RunError::Cancelled { name, signal }) => {
                return Err(ProveError::Cancelled { name, signal });
            }
            Err(e @ pipeline::RunError::Input(_)) if !config_proven => {
                return Err(InputError::Config {
                    config: opts.config.clone(),
                    source: Box::new(e),
                }
                .into());
            }
            // The config loaded for the reference: what the run refuses now is the tree.
            Err(e @ pipeline::RunError::Input(_)) => Judged {
                outcome: Outcome::Refused,
                exit_code: e.exit_code(),
                decided_by: None,
                decided_at: None,
                failed: Vec::new(),
                reached: Vec::new(),
                error: Some(one_line(&e.to_string())),
                report,
                elapsed_ms,
                elapsed_us,
                screened: false,
            },
            Err(e) => Judged {
                outcome: Outcome::CouldNotJudge,
                exit_code: e.exit_code(),
                decided_by: None,
                decided_at: None,
                failed: Vec::new(),
                reached: Vec::new(),
                error: Some(e.to_string()),
                report,
                elapsed_ms,
                elapsed_us,
                screened: false,
            },
        });
    }
    // In job order: the screened result where there is one, else the next full run's.
    let mut full = full.into_iter();
    Ok(screened
        .into_iter()
        .filter_map(|s| s.or_else(|| full.next()))
        .collect())
}

/// The names of the jury's tiers, in order (one unnamed tier for a flat jury).
fn tier_names(jury: &crate::config::JurySpec) -> Vec<String> {
    match jury {
        crate::config::JurySpec::Tiers(t) => t.iter().map(|t| t.name.clone()).collect(),
        crate::config::JurySpec::Checks { .. } | crate::config::JurySpec::Members { .. } => {
            Vec::new()
        }
    }
}

/// What one run's report says, read for prove.
fn judged(
    report: &crate::report::Report,
    exit_code: i32,
    at: String,
    elapsed_us: u64,
    tiers: &[String],
) -> Judged {
    let outcome = match exit_code {
        pipeline::EXIT_PASS => Outcome::Accepted,
        pipeline::EXIT_REJECTED => Outcome::Rejected,
        _ => Outcome::CouldNotJudge,
    };
    let reasons = report.verdict.individual_by_name();
    let mut failed = Vec::new();
    for t in report.tiers.iter().filter(|t| t.ran) {
        for j in &t.judges {
            let status = match j.status {
                crate::judgment::Status::Fail => "fail",
                crate::judgment::Status::Error => "error",
                _ => continue,
            };
            let reasoning = reasons
                .get(&j.name)
                .map(|x| one_line(x.reasoning()))
                .unwrap_or_default();
            failed.push(CheckRef {
                tier: t.name.clone(),
                check: j.name.clone(),
                check_type: j.judge_type.clone(),
                status: status.into(),
                aims: aims_of(&j.judge_type),
                reasoning,
            });
        }
    }
    let mut reached: Vec<Aims> = report
        .tiers
        .iter()
        .filter(|t| t.ran)
        .flat_map(|t| t.judges.iter().map(|j| aims_of(&j.judge_type)))
        .collect();
    reached.sort_by_key(|a| *a as u8);
    reached.dedup();
    let decided_by = report.interpretation.decided_by.clone();
    let decided_at = decided_by
        .as_ref()
        .and_then(|d| tiers.iter().position(|t| t == d));
    Judged {
        outcome,
        exit_code,
        decided_by,
        decided_at,
        failed,
        reached,
        error: (outcome == Outcome::CouldNotJudge).then(|| report.outcome.reason.clone()),
        report: at,
        elapsed_ms: elapsed_us / 1000,
        elapsed_us,
        screened: false,
    }
}

/// What kind of check a `type:` is.
fn aims_of(check_type: &str) -> Aims {
    match CheckType::from_str(check_type) {
        Ok(t) if t.asks_model() => Aims::Model,
        Ok(t) if t.family() == crate::config::checks::Family::Deterministic => Aims::Build,
        _ => Aims::Files,
    }
}

/// The first 200 characters of the first line.
fn one_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("");
    match l.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &l[..i]),
        None => l.to_string(),
    }
}

/// ": check `x` (tier `t`) failed: …" for the first failed check.
fn because(j: &Judged) -> String {
    match j.failed.first() {
        Some(c) => format!(
            ": check `{}` ({}) in tier `{}` {}ed: {}",
            c.check, c.check_type, c.tier, c.status, c.reasoning
        ),
        None => format!(" ({})", j.error.clone().unwrap_or_default()),
    }
}

/// Which check type would see a change to `path` that nothing caught.
fn suggest(path: &str, kind: hunks::UnitKind) -> String {
    use hunks::UnitKind as K;
    match kind {
        K::PomDependency | K::PomPlugin | K::PomExtension | K::PomProperty => {
            "add a `pom-diff` check (it compares dependencies, plugins and properties as Maven builds them)".into()
        }
        _ if path.ends_with(".java") && (path.starts_with("src/test/") || path.contains("/src/test/")) => {
            "add a `test-invariance` check (the reference's tests must all run and pass), or a `maven-build` with `goals: [test]`".into()
        }
        _ if path.ends_with(".java") => format!(
            "add an `ast-diff` check (declarations) or `import-diff` (imports), or a test the `maven-build` runs that exercises {path}"
        ),
        _ if path.ends_with("pom.xml") => "add a `pom-diff` check".into(),
        K::FileAdded | K::FileDeleted => {
            format!("add a `file-exists` check for {path}, or a `file-comparison` whose files select it")
        }
        _ => format!("add a `file-comparison` check whose files select {path}, or a `file-content` check on it"),
    }
}

/// A rejected tree the battery can transform: a unit's variant or the behaviour break.
struct Candidate<'a> {
    label: String,
    tree: Files,
    changed: Vec<String>,
    judged: &'a Judged,
    order: usize,
    broken: Option<&'a battery::Break>,
}

/// What the battery needs besides the trees.
struct BatteryInputs<'a> {
    base: &'a Files,
    reference: &'a Files,
    units: &'a [hunks::Unit],
    results: &'a [UnitResult],
    synthesized: Option<&'a model::Synthesized>,
    exam: &'a [String],
    kinds: &'a [Aims],
}

/// Chooses, for each transformation, the rejected tree it is applied to: one rejected by a
/// check of the kind the transformation aims at (so that those checks are what it has to get
/// past; the one rejected latest in the cascade first), else the variant rejected latest,
/// else the base; then judges every transformed tree. The behaviour break
/// ([`battery::behaviour_break`]) is a candidate beside the units' variants.
async fn run_battery(
    inputs: &BatteryInputs<'_>,
    opts: &ProveOptions,
    config: &Path,
    ws: &Workspace,
    hidden: &Arc<crate::fence::Hidden>,
    tiers: &[String],
    screen: Option<&screen::Screen>,
) -> Result<Vec<BatteryResult>, ProveError> {
    let BatteryInputs {
        base,
        reference,
        units,
        results,
        synthesized,
        exam,
        kinds,
    } = *inputs;
    let changed_from_base: Vec<String> = units
        .iter()
        .map(|u| u.path.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    // (A refused variant is not a target: nothing of its judging can be gamed.)
    let mut rejected: Vec<Candidate<'_>> = units
        .iter()
        .zip(results)
        .filter(|(_, r)| r.judged.outcome == Outcome::Rejected)
        .map(|(u, r)| Candidate {
            label: format!("unit {}", u.id),
            tree: u.revert(reference),
            changed: vec![u.path.clone()],
            judged: &r.judged,
            order: u.id,
            broken: None,
        })
        .collect();
    if let Some(s) = synthesized
        && s.judged.outcome == Outcome::Rejected
        && let Some((tree, _)) = battery::behaviour_break(reference)
    {
        rejected.push(Candidate {
            label: format!("behaviour break ({}:{})", s.applied.path, s.applied.line),
            tree,
            changed: vec![s.applied.path.clone()],
            judged: &s.judged,
            order: usize::MAX,
            broken: Some(&s.applied),
        });
    }
    let mut jobs = Vec::new();
    let mut pending = Vec::new();
    for t in Transformation::all() {
        let mut candidates: Vec<&Candidate<'_>> = rejected.iter().collect();
        // With no check of its kind in the config there is nothing to get past: the tree
        // rejected earliest (the cheapest to judge again) is enough to show it changes nothing.
        let testable = kinds.contains(&t.aims());
        candidates.sort_by_key(|c| {
            let at = c.judged.decided_at.unwrap_or(0);
            (
                std::cmp::Reverse(c.judged.failed.iter().any(|f| f.aims == t.aims())),
                if testable { usize::MAX - at } else { at },
                c.order,
            )
        });
        let mut chosen = None;
        for c in candidates {
            let extra = battery::Extra {
                exam,
                broken: c.broken,
            };
            if let Some(done) = t.apply_with(&c.tree, reference, &c.changed, &extra) {
                let aimed = c.judged.failed.iter().any(|f| f.aims == t.aims());
                chosen = Some((c.label.clone(), done, aimed));
                break;
            }
        }
        if chosen.is_none() {
            let extra = battery::Extra { exam, broken: None };
            chosen = t
                .apply_with(base, reference, &changed_from_base, &extra)
                .map(|done| {
                    let aimed = false;
                    ("base".to_string(), done, aimed)
                });
        }
        match chosen {
            Some((label, (files, touched), aimed)) => {
                jobs.push(Job {
                    name: format!("battery-{t}"),
                    files,
                });
                pending.push((t, label, touched, aimed));
            }
            None => pending.push((t, "—".to_string(), Vec::new(), false)),
        }
    }
    let mut judged = judge_all(jobs, opts, config, ws, hidden, tiers, true, screen)
        .await?
        .into_iter();
    let mut out = Vec::new();
    for (t, target, touched, aimed) in pending {
        let j = if touched.is_empty() {
            None
        } else {
            judged.next()
        };
        let status = match j.as_ref().map(|j| j.outcome) {
            None => BatteryStatus::NotApplicable,
            Some(Outcome::Accepted) => BatteryStatus::Accepted,
            Some(Outcome::Rejected | Outcome::Refused) => BatteryStatus::Held,
            Some(Outcome::CouldNotJudge) => BatteryStatus::CouldNotJudge,
        };
        let exercised = aimed && j.is_some();
        let note = battery_note(t, status, exercised, j.as_ref(), kinds, synthesized);
        out.push(BatteryResult {
            exercised,
            transformation: t,
            trust_point: t.trust_point(),
            description: t.describe().into(),
            aims: t.aims(),
            target,
            touched,
            status,
            note,
            judged: j,
        });
    }
    Ok(out)
}

/// "checks that build" for a kind.
fn kind_words(a: Aims) -> &'static str {
    match a {
        Aims::Files => "reads the files",
        Aims::Build => "builds and runs the tests",
        Aims::Model => "asks a model",
    }
}

/// Why a transformation was not put to the test, or how it held when not by the checks it
/// aims at.
fn battery_note(
    t: Transformation,
    status: BatteryStatus,
    exercised: bool,
    j: Option<&Judged>,
    kinds: &[Aims],
    synthesized: Option<&model::Synthesized>,
) -> Option<String> {
    if status == BatteryStatus::NotApplicable {
        return Some("nothing for it to work on in any rejected tree".into());
    }
    if !exercised {
        if !kinds.contains(&t.aims()) {
            return Some(format!(
                "not exercised: the config has no check that {}, so there is nothing for it to get past",
                kind_words(t.aims())
            ));
        }
        let why_break = match synthesized {
            Some(s) => match s.judged.outcome {
                Outcome::Accepted => format!(
                    "; the behaviour break prove made ({}:{}) was accepted, so no check sees it",
                    s.applied.path, s.applied.line
                ),
                _ => format!(
                    "; the behaviour break prove made ({}:{}) was {} before such a check",
                    s.applied.path,
                    s.applied.line,
                    match s.judged.decided_by.as_deref() {
                        Some(d) => format!("rejected in `{d}`"),
                        None => "not judged".into(),
                    }
                ),
            },
            None if t.aims() == Aims::Build => {
                "; prove found no string literal in a main source to break".into()
            }
            None => String::new(),
        };
        return Some(format!(
            "not exercised: no rejected tree reaches a check that {}{why_break}",
            kind_words(t.aims())
        ));
    }
    let j = j?;
    if j.outcome == Outcome::Rejected && !j.failed.iter().any(|f| f.aims == t.aims()) {
        let by: Vec<String> = j.failed.iter().map(|f| format!("`{}`", f.check)).collect();
        return Some(format!(
            "rejected before the checks it aims at, by {} in `{}`, which see the transformation itself",
            by.join(", "),
            j.decided_by.as_deref().unwrap_or("?")
        ));
    }
    None
}
