//! The `judge-ci` binary: parse the command line, run, map the outcome to an exit code.

mod cli;

use anyhow::Context;
use clap::Parser;
use judge_ci::jury::interpret;
use std::process::ExitCode;

/// Exit code for bad input: a flag, a file or its contents.
const EXIT_BAD_INPUT: u8 = 2;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("judge-ci: error: {e:#}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// Dispatches one subcommand.
fn run(cli: cli::Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        cli::Command::Interpret { file, format } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                anyhow::anyhow!(
                    "{}:{}:{}: not JSON: {e}",
                    file.display(),
                    e.line(),
                    e.column()
                )
            })?;
            // A report wraps the verdict; a bare verdict is read as it is.
            let verdict = match value.get("verdict") {
                Some(v) if value.get("schema").is_some() => v,
                _ => &value,
            };
            let reading = interpret::interpret(verdict);
            match format {
                cli::InterpretFormat::Text => println!("{}", interpret::summary(&reading)),
                cli::InterpretFormat::Json => {
                    println!("{}", serde_json::to_string_pretty(&reading)?)
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
