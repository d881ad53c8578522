//! The binary's subcommands, one module each; [`crate::dispatch`] picks one. What they share:
//! terminal settings, the async runtime, the key-variable allowance and the job summary.

pub mod calibrate;
pub mod checkout;
pub mod diagnose;
pub mod fence_exec;
pub mod interpret;
pub mod prove;
pub mod publish;
pub mod render;
pub mod run;
pub mod schema;
pub mod suite;
pub mod validate;

use crate::cli;
use anyhow::Context;
use judge_ci::pipeline::{self, Verbosity};
use std::io::IsTerminal;

/// The verbosity `--quiet` / `--verbose` ask for.
pub fn verbosity(o: &cli::OutputArgs) -> Verbosity {
    if o.quiet {
        Verbosity::Quiet
    } else if o.verbose {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    }
}

/// Whether standard error gets colour under `--color`.
pub fn color(o: &cli::OutputArgs) -> bool {
    match o.color {
        cli::Color::Always => true,
        cli::Color::Never => false,
        cli::Color::Auto => {
            std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    }
}

/// Prints a command's result on standard output: its markdown, inert inside Actions (it
/// names files and text the pull request chose, so no line of it may act as a workflow
/// command), or the value as JSON.
pub fn print_result(
    format: pipeline::Format,
    md: &str,
    json: &impl serde::Serialize,
) -> anyhow::Result<()> {
    match format {
        pipeline::Format::Markdown => print!("{}", judge_ci::github::inert::wrap(md)),
        pipeline::Format::Json => println!("{}", serde_json::to_string_pretty(json)?),
    }
    Ok(())
}

/// Prints a bad-input message; exit 2.
pub fn bad_input(msg: impl std::fmt::Display) -> anyhow::Result<i32> {
    eprintln!("judge-ci: error: {msg}");
    Ok(pipeline::EXIT_BAD_INPUT)
}

/// Prints an error of `publish` or `diagnose` and returns its exit code: bad input is printed
/// as the diagnostic it renders to (`error: …` with its help), anything else after judge-ci's
/// prefix.
pub fn stored_report_error(e: &pipeline::RunError) -> i32 {
    match e {
        pipeline::RunError::Input(_) => eprintln!("{e}"),
        pipeline::RunError::Instrument(_) | pipeline::RunError::Cancelled { .. } => {
            eprintln!("judge-ci: error: {e}")
        }
    }
    e.exit_code()
}

/// Appends `md` to the job summary when running in GitHub Actions.
pub fn append_summary(md: &str) -> anyhow::Result<()> {
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
        && let Ok(p) = std::env::var("GITHUB_STEP_SUMMARY")
    {
        judge_ci::github::outputs::append(std::path::Path::new(&p), md)
            .with_context(|| format!("cannot write the job summary {p}"))?;
    }
    Ok(())
}

/// A multi-threaded async runtime.
pub fn runtime() -> anyhow::Result<judge_ci::pipeline::runtime::Runtime> {
    judge_ci::pipeline::runtime::Runtime::new().context("cannot start the async runtime")
}

/// `--allow-key-env`: the workflow's allowance, before any config is read; the value of each
/// allowed variable is a secret from now on.
pub fn allow_key_envs(c: &cli::ConfigArgs) {
    // Each command calls this once, first; a second call could only come from a bug.
    if let Err(e) = judge_ci::config::endpoint::allow_key_envs(&c.allow_key_env) {
        eprintln!("judge-ci: warning: {e}");
    }
    for name in &c.allow_key_env {
        if let Ok(v) = std::env::var(name) {
            judge_ci::secrets::register(&v);
        }
    }
}
