//! `diagnose`: re-run the gap analysis on a stored report with more inputs.

use crate::cli;
use judge_ci::pipeline::{self, save::write_file};

/// `diagnose`: prints the report's markdown (or the analysis as JSON); `--write` stores it.
pub fn run(args: cli::DiagnoseArgs) -> anyhow::Result<i32> {
    let cli::DiagnoseArgs {
        report,
        plan,
        knowledge,
        journal,
        analysis,
        task,
        config,
        format,
        write,
    } = args;
    let opts = pipeline::rediagnose::DiagnoseOptions {
        plan,
        knowledge,
        journal,
        analysis,
        task,
        config,
    };
    match pipeline::rediagnose::rediagnose(&report, &opts) {
        Ok(r) => {
            if write {
                // Replaced whole or not at all: a full disk must not cost the stored
                // report.
                let json = serde_json::to_string_pretty(&r)?;
                write_file(&report, json.as_bytes())?;
            }
            match format {
                judge_ci::pipeline::Format::Markdown => print!(
                    "{}",
                    judge_ci::github::inert::wrap(&judge_ci::report::markdown::render(&r))
                ),
                judge_ci::pipeline::Format::Json => {
                    println!("{}", serde_json::to_string_pretty(&r.diagnostics)?)
                }
            }
            Ok(0)
        }
        Err(e) => Ok(super::stored_report_error(&e)),
    }
}
