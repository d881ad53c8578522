//! `calibrate`: agreement of the semantic tier with human labels (see
//! [`judge_ci::calibrate`]).

use super::{append_summary, bad_input, print_result, runtime};
use crate::cli;
use judge_ci::calibrate;

/// Runs the calibration, prints the markdown (or JSON) and returns its exit code.
pub fn run(args: cli::CalibrateArgs) -> anyhow::Result<i32> {
    let cli::CalibrateArgs {
        cases_dir,
        min_kappa,
        cases,
        checks,
        jobs,
        out,
        model_cache,
        format,
        output,
    } = args;
    if jobs == Some(0) {
        return bad_input("--jobs 0: give at least 1");
    }
    if let Some(k) = min_kappa
        && !(-1.0..=1.0).contains(&k)
    {
        return bad_input(format!(
            "--min-kappa {k}: κ lies between -1 and 1; give a lower bound such as 0.6"
        ));
    }
    let opts = calibrate::CalibrateOptions {
        cases_dir,
        out: out.clone(),
        jobs: jobs.unwrap_or(2),
        only_cases: cases,
        only_checks: checks,
        min_kappa,
        model_cache,
    };
    match runtime()?.block_on(calibrate::calibrate(&opts)) {
        Ok(report) => {
            let md = calibrate::render::markdown(&report);
            append_summary(&md)?;
            print_result(format, &md, &report)?;
            if !output.quiet {
                eprintln!(
                    "judge-ci: calibrate: {} case(s), κ {} ({})",
                    report.cases.len(),
                    calibrate::render::kappa(report.overall.kappa.as_ref()),
                    out.join("calibrate.json").display()
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
