//! `checkout`: write a git revision's tree into a folder.

use crate::cli;
use anyhow::Context;
use judge_ci::pipeline;

/// `checkout`: materialises `source` into `dest`.
pub fn run(args: cli::CheckoutArgs) -> anyhow::Result<i32> {
    let here = std::env::current_dir().context("cannot read the working folder")?;
    match judge_ci::materialize::materialize_into(
        &judge_ci::materialize::Source::parse(&args.source),
        &here,
        &args.dest,
    ) {
        Ok((commit, files)) => {
            println!(
                "{commit}: {files} file(s) written to {}",
                args.dest.display()
            );
            Ok(pipeline::EXIT_PASS)
        }
        Err(e) => {
            eprintln!("judge-ci: error: {e}");
            Ok(pipeline::EXIT_BAD_INPUT)
        }
    }
}
