//! The `judge-ci` binary: parse the command line, run, map the outcome to an exit code.

mod cli;
mod commands;

use clap::Parser;
use judge_ci::pipeline::{self, save::WriteError};
use std::process::ExitCode;

fn main() -> ExitCode {
    // `fence-exec` execs the subject's command with the process as it is: no redaction
    // threads between it and its output, nothing judge-ci sets up for itself.
    // `fence-exec --help` (or `-h`) alone asks for its help, never runs a program of that
    // name (attack finding G10-8): clap prints it.
    let args: Vec<std::ffi::OsString> = std::env::args_os().take(3).collect();
    let asks_help = args.get(2).is_some_and(|a| a == "--help" || a == "-h");
    if args.get(1).is_some_and(|a| a == "fence-exec") && !asks_help {
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(2).collect();
        return exit_code(commands::fence_exec::run(&args));
    }
    // Before any child starts: a process of the same user cannot read this one's environment
    // (the tokens), command line or memory through /proc, nor attach a debugger.
    if let Err(e) = nix::sys::prctl::set_dumpable(false) {
        eprintln!("judge-ci: warning: cannot make the process non-dumpable: {e}");
    }
    // The programs judge-ci starts itself are looked up where the pull request cannot plant
    // one (no relative PATH entry, none inside the checkout).
    if let Some(path) = judge_ci::fence::own_path() {
        // SAFETY: no other thread exists yet (the redaction threads and the runtime start
        // below), so nothing reads the environment while it changes.
        unsafe { std::env::set_var("PATH", path) };
    }
    judge_ci::secrets::register_environment();
    // Every byte judge-ci prints passes the redaction boundary from here on.
    let stdio = judge_ci::secrets::redact_stdio();
    let code = main_inner();
    drop(stdio);
    code
}

fn main_inner() -> ExitCode {
    // One crypto library for every TLS connection (GitHub, LLM providers); reqwest refuses to
    // build a client without a process-wide provider.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // Help and version are successes; anything else is a bad command line (exit 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                pipeline::EXIT_BAD_INPUT as u8
            } else {
                0
            });
        }
    };
    let code = match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("judge-ci: error: {e:#}");
            // An output that could not be written is the instrument's failure, not the input's.
            if e.downcast_ref::<WriteError>().is_some() {
                pipeline::EXIT_INSTRUMENT
            } else {
                pipeline::EXIT_BAD_INPUT
            }
        }
    };
    exit_code(code)
}

/// The process exit code for a run's code: 0–4, or 128 + a signal's number. A code out of
/// range would be judge-ci's own bug; it is said, and exits 3 (the instrument failed), never
/// a silent 1 that reads as "rejected".
fn exit_code(code: i32) -> ExitCode {
    match u8::try_from(code) {
        Ok(c) => ExitCode::from(c),
        Err(_) => {
            eprintln!(
                "judge-ci: error: internal: exit code {code} is out of range (0-255); exiting {}",
                pipeline::EXIT_INSTRUMENT
            );
            ExitCode::from(pipeline::EXIT_INSTRUMENT as u8)
        }
    }
}

/// Runs one subcommand and returns the exit code.
fn dispatch(cli: cli::Cli) -> anyhow::Result<i32> {
    use cli::Command;
    match cli.command {
        None => commands::run::run(cli.run, None),
        Some(Command::Run(args)) => commands::run::run(args, None),
        Some(Command::Resume(args)) => commands::run::resume(args),
        Some(Command::Publish(args)) => commands::publish::run(args),
        Some(Command::Validate(args)) => commands::validate::run(args),
        Some(Command::Interpret(args)) => commands::interpret::run(args),
        Some(Command::Checkout(args)) => commands::checkout::run(args),
        Some(Command::FenceExec(args)) => {
            let mut all: Vec<std::ffi::OsString> = Vec::new();
            if args.stdin {
                all.push("--stdin".into());
            }
            all.push("--".into());
            all.extend(args.command);
            Ok(commands::fence_exec::run(&all))
        }
        Some(Command::Render(args)) => commands::render::run(args),
        Some(Command::Diagnose(args)) => commands::diagnose::run(args),
        Some(Command::Suite(args)) => commands::suite::run(args),
        Some(Command::Merge(args)) => commands::suite::merge(args),
        Some(Command::Compare(args)) => commands::suite::compare(args),
        Some(Command::Prove(args)) => commands::prove::run(args),
        Some(Command::Calibrate(args)) => commands::calibrate::run(args),
        Some(Command::Schema(args)) => commands::schema::run(&args),
    }
}
