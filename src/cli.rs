//! Command-line definitions (clap derive only; no behaviour here).

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Grade a pull request against a reference implementation with a cascaded jury.
#[derive(Debug, Parser)]
#[command(name = "judge-ci", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// How `interpret` prints its result.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum InterpretFormat {
    /// Deterministic prose.
    Text,
    /// The interpretation as JSON.
    Json,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read a stored verdict (0.13–0.17 shapes, or a report holding one) and print its reading.
    Interpret {
        /// A verdict JSON file, or a judge-ci report JSON with a `verdict` field.
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = InterpretFormat::Text)]
        format: InterpretFormat,
    },
}
