//! `validate`: load the config (and task), build the jury, print it.

use super::{allow_key_envs, color, verbosity};
use crate::cli;
use judge_ci::pipeline;

/// `validate`: exit 0 and the jury's printout, or the config's problems and their exit code.
pub fn run(args: cli::ValidateArgs) -> anyhow::Result<i32> {
    allow_key_envs(&args.config);
    match pipeline::validate(
        args.config.config.as_deref(),
        args.config.task.as_deref(),
        verbosity(&args.output),
        color(&args.output),
    ) {
        Ok(text) => {
            print!("{text}");
            Ok(pipeline::EXIT_PASS)
        }
        Err(e) => {
            eprintln!("{e}");
            Ok(e.exit_code())
        }
    }
}
