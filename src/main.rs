//! The `judge-ci` binary: parse the command line, run, map the outcome to an exit code.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("judge-ci: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Dispatches one subcommand.
fn run(cli: cli::Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        cli::Command::Interpret { file } => {
            let _ = file;
            Ok(ExitCode::SUCCESS)
        }
    }
}
