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
pub mod hunks;
pub mod model;
pub mod render;
pub mod tree;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;

use thiserror::Error;

use crate::config::checks::CheckType;
use crate::pipeline::{self, Format, RunOptions, Verbosity};
use battery::{Aims, Transformation};
use model::{
    BatteryResult, BatteryStatus, CheckRef, Judged, Outcome, ProveReport, ProveTimings, UnitResult,
    Verdict,
};
use tree::Files;

/// Why prove could not run.
#[derive(Debug, Error)]
pub enum ProveError {
    /// Bad input: a side that cannot be read, a config that does not load (exit 2).
    #[error("{what}: {why}")]
    Input {
        /// The flag or file.
        what: String,
        /// What is wrong and what would be valid.
        why: String,
    },
    /// judge-ci's own failure (a folder it could not write; exit 3).
    #[error("{0}")]
    Instrument(String),
    /// A signal stopped it.
    #[error("cancelled by {name}; no prove report was written")]
    Cancelled {
        /// SIGTERM or SIGINT.
        name: &'static str,
        /// Its number.
        signal: i32,
    },
}

impl ProveError {
    /// The process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            ProveError::Input { .. } => pipeline::EXIT_BAD_INPUT,
            ProveError::Instrument(_) => pipeline::EXIT_INSTRUMENT,
            ProveError::Cancelled { signal, .. } => 128 + signal,
        }
    }
}

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
    let repo_dir = std::env::current_dir().map_err(|e| ProveError::Input {
        what: "the working folder".into(),
        why: e.to_string(),
    })?;
    let config = std::path::absolute(&opts.config).map_err(|e| ProveError::Input {
        what: format!("--config {}", opts.config.display()),
        why: e.to_string(),
    })?;
    if !config.is_file() {
        return Err(ProveError::Input {
            what: format!("--config {}", opts.config.display()),
            why: "no such file; give the judge-ci.yml to prove".into(),
        });
    }
    let (bench, _) = pipeline::load_from(
        Some(&config),
        None,
        Arc::new(crate::config::ConfigSource::WorkTree),
        Verbosity::Quiet,
        false,
    )
    .map_err(|e| ProveError::Input {
        what: format!("--config {}", opts.config.display()),
        why: e.to_string(),
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
            return Err(ProveError::Input {
                what: "--reference".into(),
                why: "not given, and the config names no `reference:`; give the reference solution (a folder or a revision)".into(),
            });
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
        return Err(ProveError::Input {
            what: format!("--base {} --reference {reference_arg}", opts.base),
            why: "the base and the reference hold the same files; give the task's starting point and its solution".into(),
        });
    }
    std::fs::create_dir_all(opts.out.join("runs")).map_err(|e| {
        ProveError::Instrument(format!("cannot create {}: {e}", opts.out.display()))
    })?;
    let ws = workspace(opts, &reference)?;
    let hidden = Arc::new(crate::fence::Hidden::default());

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
    )
    .await?;
    let gold_ms = gold_started.elapsed().as_millis() as u64;
    let mut it = first.into_iter();
    let (gold, base_run) = match (it.next(), it.next()) {
        (Some(g), Some(b)) => (g, b),
        _ => {
            return Err(ProveError::Instrument(
                "the gold and base runs returned no result".into(),
            ));
        }
    };
    let mut defects = Vec::new();
    let mut unit_results = Vec::new();
    let mut results_battery = Vec::new();
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
    if gold.outcome == Outcome::Accepted {
        let started = Instant::now();
        let jobs = units
            .iter()
            .map(|u| Job {
                name: format!("unit-{}", u.id),
                files: u.revert(&reference),
            })
            .collect();
        let judged = judge_all(jobs, opts, &config, &ws, &hidden, &tiers, true).await?;
        timings.variants_ms = started.elapsed().as_millis() as u64;
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
        let started = Instant::now();
        results_battery = run_battery(
            &base,
            &reference,
            &units,
            &unit_results,
            opts,
            &config,
            &ws,
            &hidden,
            &tiers,
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
        battery: results_battery,
        defects,
        exit_code: match verdict {
            Verdict::Proven => pipeline::EXIT_PASS,
            Verdict::Defects => pipeline::EXIT_REJECTED,
            Verdict::Unjudged => pipeline::EXIT_INSTRUMENT,
        },
        verdict,
        timings,
    };
    render::write(&report, &opts.out)
        .map_err(|e| ProveError::Instrument(format!("cannot write {}: {e}", opts.out.display())))?;
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
        let r = std::path::absolute(opts.out.join("trees"))
            .map_err(|e| ProveError::Instrument(e.to_string()))?;
        let _ = std::fs::remove_dir_all(&r);
        (r, None)
    } else {
        let t = tempfile::Builder::new()
            .prefix("judge-ci-prove-")
            .tempdir()
            .map_err(|e| ProveError::Instrument(format!("cannot make a temporary folder: {e}")))?;
        (t.path().to_path_buf(), Some(t))
    };
    let reference_dir = root.join("reference");
    tree::write(reference, &reference_dir, &root.join("outside"))
        .map_err(|e| ProveError::Instrument(format!("cannot write the reference: {e}")))?;
    Ok(Workspace {
        trees: root,
        reference: reference_dir,
        _temp: temp,
    })
}

/// Judges every job, up to `--jobs` at once, each as an ordinary run of the config.
async fn judge_all(
    jobs: Vec<Job>,
    opts: &ProveOptions,
    config: &Path,
    ws: &Workspace,
    hidden: &Arc<crate::fence::Hidden>,
    tiers: &[String],
    config_proven: bool,
) -> Result<Vec<Judged>, ProveError> {
    let mut prepared = Vec::new();
    for job in jobs {
        let dir = ws.trees.join(&job.name);
        let _ = std::fs::remove_dir_all(&dir);
        tree::write(&job.files, &dir, &ws.trees.join("outside").join(&job.name)).map_err(|e| {
            ProveError::Instrument(format!("cannot write the tree {}: {e}", dir.display()))
        })?;
        let out = std::path::absolute(opts.out.join("runs").join(&job.name))
            .map_err(|e| ProveError::Instrument(e.to_string()))?;
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
            (name, r, started.elapsed().as_millis() as u64)
        }
    })
    .await
    .map_err(|e| match e {
        crate::suite::Stopped::Cancelled { name, signal, .. } => {
            ProveError::Cancelled { name, signal }
        }
        crate::suite::Stopped::Panicked(p) => {
            ProveError::Instrument(format!("a run panicked: {p}"))
        }
    })?;
    let mut out = Vec::new();
    for (name, r, elapsed_ms) in results {
        let report = format!("runs/{name}");
        out.push(match r {
            Ok(r) => judged(&r.report, r.exit_code, report, elapsed_ms, tiers),
            Err(pipeline::RunError::Cancelled { name, signal }) => {
                return Err(ProveError::Cancelled { name, signal });
            }
            Err(e @ pipeline::RunError::Input(_)) if !config_proven => {
                return Err(ProveError::Input {
                    what: format!("--config {}", opts.config.display()),
                    why: e.to_string(),
                });
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
            },
        });
    }
    Ok(out)
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
    elapsed_ms: u64,
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
        elapsed_ms,
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

/// Chooses, for each transformation, the rejected tree it is applied to: a variant rejected
/// by a check of the kind the transformation aims at (the one rejected latest in the cascade,
/// which leaves the fewest checks to get past), else the variant rejected latest (one unit
/// short of the reference, so closer to acceptance than the base), else the base; then judges every transformed tree.
#[allow(clippy::too_many_arguments)]
async fn run_battery(
    base: &Files,
    reference: &Files,
    units: &[hunks::Unit],
    results: &[UnitResult],
    opts: &ProveOptions,
    config: &Path,
    ws: &Workspace,
    hidden: &Arc<crate::fence::Hidden>,
    tiers: &[String],
) -> Result<Vec<BatteryResult>, ProveError> {
    let changed_from_base: Vec<String> = units
        .iter()
        .map(|u| u.path.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let rejected: Vec<(&hunks::Unit, &UnitResult)> = units
        .iter()
        .zip(results)
        .filter(|(_, r)| r.judged.outcome == Outcome::Rejected)
        .collect();
    // (A refused variant is not a target: nothing of its judging can be gamed.)
    let mut jobs = Vec::new();
    let mut pending = Vec::new();
    for t in Transformation::all() {
        // Candidates in order of preference: rejected by a check of the kind it aims at,
        // then any rejected variant, latest in the cascade first; the base last. The first
        // the transformation has something to work on is used.
        let mut candidates: Vec<&(&hunks::Unit, &UnitResult)> = rejected.iter().collect();
        candidates.sort_by_key(|(u, r)| {
            (
                std::cmp::Reverse(r.judged.failed.iter().any(|c| c.aims == t.aims())),
                std::cmp::Reverse(r.judged.decided_at),
                u.id,
            )
        });
        let mut chosen = None;
        for (u, _) in candidates {
            let tree = u.revert(reference);
            if let Some(done) = t.apply(&tree, reference, std::slice::from_ref(&u.path)) {
                chosen = Some((format!("unit {}", u.id), done));
                break;
            }
        }
        if chosen.is_none() {
            chosen = t
                .apply(base, reference, &changed_from_base)
                .map(|done| ("base".to_string(), done));
        }
        match chosen {
            Some((label, (files, touched))) => {
                jobs.push(Job {
                    name: format!("battery-{t}"),
                    files,
                });
                pending.push((t, label, touched));
            }
            None => pending.push((t, "—".to_string(), Vec::new())),
        }
    }
    let mut judged = judge_all(jobs, opts, config, ws, hidden, tiers, true)
        .await?
        .into_iter();
    let mut out = Vec::new();
    for (t, target, touched) in pending {
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
        let exercised = j.as_ref().is_some_and(|j| j.reached.contains(&t.aims()));
        out.push(BatteryResult {
            exercised,
            transformation: t,
            trust_point: t.trust_point(),
            description: t.describe().into(),
            aims: t.aims(),
            target,
            touched,
            status,
            judged: j,
        });
    }
    Ok(out)
}
