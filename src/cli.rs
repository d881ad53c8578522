//! Command-line definitions (clap derive only; no behaviour here).

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Grade a pull request against a reference implementation with a cascaded jury.
#[derive(Debug, Parser)]
#[command(name = "judge-ci", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Read a stored verdict (0.13–0.17 shapes) and print how it reads.
    Interpret {
        /// A verdict JSON file.
        file: PathBuf,
    },
}
