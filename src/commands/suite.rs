//! `suite`, `merge` and `compare`: judge an agent-bench layout, combine shards, compare with
//! a baseline.

use super::{append_summary, bad_input, runtime};
use crate::cli;
use judge_ci::pipeline::{self, save::write_file};
use judge_ci::suite;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// `suite`: judges every task; exit 0 when the suite ran, whatever the readings.
pub fn run(args: cli::SuiteArgs) -> anyhow::Result<i32> {
    let cli::SuiteArgs {
        dir,
        out,
        jobs,
        shard,
        filter,
        html,
        llm_limit,
        output,
    } = args;
    if let Err(e) = pipeline::save::check_out_dir(&out) {
        return bad_input(e);
    }
    let llm_limits = match judge_ci::config::llm::Limits::from_flags(&llm_limit) {
        Ok(l) => l,
        Err(e) => return bad_input(e),
    };
    let shard = match shard.as_deref().map(suite::Shard::parse).transpose() {
        Ok(s) => s,
        Err(e) => return bad_input(e),
    };
    let filters = match filter
        .iter()
        .map(|f| suite::Filter::parse(f))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(f) => f,
        Err(e) => return bad_input(e),
    };
    let jobs = jobs
        .filter(|n| *n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    // In a pull-request context the definitions are the base's, the workspaces the PR's.
    let trusted = match suite::trusted::layout(&dir) {
        Ok(t) => t,
        Err(e) => return suite_error(e),
    };
    if let Some(t) = &trusted
        && !output.quiet
    {
        eprintln!(
            "judge-ci: the benchmark definitions, task files and references are read from {}; the workspaces from {}",
            t.label,
            dir.display()
        );
    }
    let opts = suite::SuiteOptions {
        definitions: trusted.as_ref().map(|t| (t.dir.clone(), t.label.clone())),
        dir,
        out: out.clone(),
        jobs,
        shard,
        filters,
        progress: !output.quiet && std::io::stderr().is_terminal(),
        llm_limits,
    };
    match runtime()?.block_on(suite::run(&opts)) {
        Ok(report) => {
            finish_suite(&report, &out, html)?;
            if !output.quiet {
                eprintln!(
                    "judge-ci: {} task(s): {} accepted, {} rejected, {} not assessed, {} could not run (suite: {})",
                    report.totals.tasks,
                    report.totals.accepted,
                    report.totals.rejected,
                    report.totals.not_assessed,
                    report.totals.errors,
                    out.join("suite.json").display()
                );
            }
            Ok(0)
        }
        Err(e) => suite_error(e),
    }
}

/// `merge`: combines the output folders of sharded suite runs.
pub fn merge(args: cli::MergeArgs) -> anyhow::Result<i32> {
    let cli::MergeArgs { dirs, out, html } = args;
    if let Err(e) = pipeline::save::check_out_dir(&out) {
        return bad_input(e);
    }
    match suite::merge(&dirs, &out) {
        Ok(report) => {
            finish_suite(&report, &out, html)?;
            eprintln!(
                "judge-ci: merged {} shard folder(s), {} task(s) into {}",
                dirs.len(),
                report.totals.tasks,
                out.join("suite.json").display()
            );
            Ok(0)
        }
        Err(e) => suite_error(e),
    }
}

/// `compare`: a suite against a baseline; exit 1 when more tasks regressed than allowed.
pub fn compare(args: cli::CompareArgs) -> anyhow::Result<i32> {
    let cli::CompareArgs {
        baseline,
        current,
        tolerance,
        max_regressions,
        format,
        out,
    } = args;
    // The same rules as every output folder: never through a link (attack finding G10-19).
    if let Some(dir) = &out
        && let Err(e) = pipeline::save::check_out_dir(dir)
    {
        return bad_input(e);
    }
    let (base, cur) = match (read_suite(&baseline), read_suite(&current)) {
        (Ok(b), Ok(c)) => (b, c),
        (Err(e), _) | (_, Err(e)) => return bad_input(e),
    };
    // A shard is a share of a suite: compared as the whole, the other shards' tasks would be
    // only missing. Merge the shards first.
    for (which, r, path) in [("baseline", &base, &baseline), ("current", &cur, &current)] {
        if let Some(shard) = &r.suite.shard {
            return bad_input(format!(
                "{}: the {which} suite is shard {shard}, a share of a suite; merge the shards (judge-ci merge) and compare the merged suite",
                path.display()
            ));
        }
    }
    let cmp = suite::compare::compare(&base, &cur, tolerance);
    let md = suite::render::markdown(&cur, Some(&cmp));
    super::print_result(format, &md, &cmp)?;
    if let Some(dir) = &out {
        // A folder that cannot be made is the instrument's failure (exit 3): a later step
        // reads what goes in it.
        std::fs::create_dir_all(dir).map_err(|error| pipeline::save::WriteError {
            path: dir.clone(),
            error,
        })?;
        for (name, text) in [
            ("compare.md", md.clone()),
            ("compare.json", serde_json::to_string_pretty(&cmp)? + "\n"),
            ("compare.html", suite::render::html(&cur, Some(&cmp))),
        ] {
            let path = dir.join(name);
            write_file(&path, text.as_bytes())?;
        }
    }
    append_summary(&md)?;
    let unjudged = cmp.unjudged_passes();
    if cmp.regressions > max_regressions {
        let kinds: Vec<String> = cmp
            .regression_kinds
            .iter()
            .map(|(k, n)| k.counted(*n))
            .collect();
        eprintln!(
            "judge-ci: {} task(s) regressed: {} (allowed: {max_regressions})",
            cmp.regressions,
            kinds.join(", ")
        );
        Ok(1)
    } else if !unjudged.is_empty() {
        eprintln!(
            "judge-ci: {} task(s) could not be judged where the baseline passed them (the instrument failed): {}; no comparison can say they did not regress, so this run neither passes the gate nor may become a baseline: fix the runner and run again (exit {})",
            unjudged.len(),
            unjudged.join(", "),
            pipeline::EXIT_INSTRUMENT
        );
        Ok(pipeline::EXIT_INSTRUMENT)
    } else {
        Ok(0)
    }
}

/// The exit code of a suite error.
fn suite_error(e: suite::SuiteError) -> anyhow::Result<i32> {
    eprintln!("judge-ci: error: {e}");
    Ok(match e {
        suite::SuiteError::Input(_) => pipeline::EXIT_BAD_INPUT,
        suite::SuiteError::Io(_) => pipeline::EXIT_INSTRUMENT,
        suite::SuiteError::Cancelled { signal, .. } => 128 + signal,
    })
}

/// A suite report that cannot be read for `compare`.
#[derive(Debug, thiserror::Error)]
enum SuiteFileError {
    /// The file cannot be read.
    #[error("{}: cannot be read: {source}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not a suite report.
    #[error("{}:{}:{}: not a judge-ci suite report: {source}", .path.display(), .source.line(), .source.column())]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// A task key appears twice.
    #[error("{}: task `{key}` appears more than once; a suite report holds each task once (merge shards with judge-ci merge)", .path.display())]
    DuplicateTask { path: PathBuf, key: String },
}

/// A suite report from a `suite.json` or a folder holding one.
fn read_suite(p: &Path) -> Result<suite::SuiteReport, SuiteFileError> {
    let path = if p.is_dir() {
        p.join("suite.json")
    } else {
        p.to_path_buf()
    };
    // A stored suite report (a shard's, an earlier run's): never opened blocking, bounded.
    let text =
        match judge_ci::untrusted::read_string_io(&path, judge_ci::untrusted::MAX_STORED_BYTES) {
            Ok(t) => t,
            Err(source) => return Err(SuiteFileError::Read { path, source }),
        };
    let report: suite::SuiteReport =
        serde_json::from_str(&text).map_err(|source| SuiteFileError::Json {
            path: path.clone(),
            source,
        })?;
    report
        .recounted()
        .map_err(|key| SuiteFileError::DuplicateTask { path, key })
}

/// After a suite or merge: the optional HTML page and the job summary.
fn finish_suite(
    report: &suite::SuiteReport,
    out: &std::path::Path,
    html: bool,
) -> anyhow::Result<()> {
    if html {
        write_file(
            &out.join("suite.html"),
            suite::render::html(report, None).as_bytes(),
        )?;
    }
    append_summary(&suite::render::markdown(report, None))
}
