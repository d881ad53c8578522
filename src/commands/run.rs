//! `run` (the default) and `resume`: judge the workspace and report.

use super::{allow_key_envs, bad_input, color, runtime, verbosity};
use crate::cli;
use judge_ci::pipeline::{self, RunOptions, Verbosity};

/// `resume`: the second job of a split run.
pub fn resume(args: cli::ResumeArgs) -> anyhow::Result<i32> {
    if args.run.stop_before_semantic {
        eprintln!(
            "judge-ci: error: resume finishes a split run; --stop-before-semantic belongs to the first job"
        );
        return Ok(pipeline::EXIT_BAD_INPUT);
    }
    run(args.run, Some(args.from))
}

/// `run`: the whole job, or the first (`--stop-before-semantic`) or second (`resume`) job of a
/// split run.
pub fn run(args: cli::RunArgs, resume: Option<std::path::PathBuf>) -> anyhow::Result<i32> {
    let split = match (resume, args.stop_before_semantic) {
        (Some(dir), _) => pipeline::resume::Split::Resume(dir),
        (None, true) => pipeline::resume::Split::StopBeforeSemantic,
        (None, false) => pipeline::resume::Split::Whole,
    };
    allow_key_envs(&args.config);
    let opts = RunOptions {
        config: args.config.config,
        task: args.config.task,
        workspace: args.workspace,
        reference: args.reference,
        head: args.head,
        keep_checkouts: args.keep_checkouts,
        model_cache: args.model_cache.clone(),
        dry_run: args.dry_run,
        out: args.out,
        format: args.format,
        verbosity: verbosity(&args.output),
        color: color(&args.output),
        fail_on: args.fail_on,
        config_from: match pipeline::config_tree::ConfigFrom::parse(&args.config_from) {
            Ok(c) => c,
            Err(e) => return bad_input(e),
        },
        publish: super::publish::options(&args.publish)?,
        actions: true,
        split,
        llm_budget: None,
        semantic_only: None,
    };
    let runtime = runtime()?;
    match runtime.block_on(pipeline::run(&opts)) {
        Ok(result) => {
            print!("{}", result.stdout);
            if opts.verbosity != Verbosity::Quiet {
                match &result.report_path {
                    Some(p) => eprintln!(
                        "judge-ci: {} (report: {})",
                        result.report.outcome.reason,
                        p.display()
                    ),
                    None => eprintln!("judge-ci: {}", result.report.outcome.reason),
                }
            }
            Ok(result.exit_code)
        }
        Err(e) => {
            eprintln!("{e}");
            Ok(e.exit_code())
        }
    }
}
