//! `prove`: what a config catches and what it misses (see [`judge_ci::prove`]).

use super::{append_summary, bad_input, print_result, runtime};
use crate::cli;
use judge_ci::prove;

/// Runs prove, prints the markdown (or JSON) and returns its exit code.
pub fn run(args: cli::ProveArgs) -> anyhow::Result<i32> {
    let cli::ProveArgs {
        config,
        base,
        reference,
        jobs,
        out,
        model_cache,
        keep_trees,
        format,
        output,
    } = args;
    if jobs == Some(0) {
        return bad_input("--jobs 0: give at least 1");
    }
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let opts = prove::ProveOptions {
        config,
        base,
        reference,
        jobs,
        out: out.clone(),
        model_cache,
        keep_trees,
    };
    match runtime()?.block_on(prove::prove(&opts)) {
        Ok(report) => {
            let md = prove::render::markdown(&report);
            append_summary(&md)?;
            print_result(format, &md, &report)?;
            if !output.quiet {
                eprintln!(
                    "judge-ci: prove: {} unit(s), {} defect(s) ({})",
                    report.units.len(),
                    report.defects.len(),
                    out.join("prove.json").display()
                );
            }
            Ok(report.exit_code)
        }
        Err(e) => {
            eprintln!("judge-ci: error: {e}");
            Ok(e.exit_code())
        }
    }
}
