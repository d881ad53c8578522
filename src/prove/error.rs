//! Why prove could not run: bad input (exit 2), judge-ci's own failure (exit 3), a signal.

use std::path::PathBuf;

use thiserror::Error;

use crate::pipeline;

/// Why prove could not run.
#[derive(Debug, Error)]
pub enum ProveError {
    /// Bad input: a side that cannot be read, a config that does not load (exit 2).
    #[error(transparent)]
    Input(#[from] InputError),
    /// judge-ci's own failure (a folder it could not write; exit 3).
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
    /// A signal stopped it.
    #[error("cancelled by {name}; no prove report was written")]
    Cancelled {
        /// SIGTERM or SIGINT.
        name: &'static str,
        /// Its number.
        signal: i32,
    },
}

impl ProveError {
    /// The process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            ProveError::Input(_) => pipeline::EXIT_BAD_INPUT,
            ProveError::Instrument(_) => pipeline::EXIT_INSTRUMENT,
            ProveError::Cancelled { signal, .. } => 128 + signal,
        }
    }
}

/// prove's input is wrong; each names the flag or file and what would be valid.
#[derive(Debug, Error)]
pub enum InputError {
    /// The working folder cannot be read.
    #[error("the working folder: {0}")]
    WorkingFolder(#[source] std::io::Error),
    /// `--config` cannot be made absolute.
    #[error("--config {}: {source}", config.display())]
    ConfigPath {
        /// The flag's value.
        config: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `--config` is no file.
    #[error("--config {}: no such file; give the judge-ci.yml to prove", .0.display())]
    NoConfig(PathBuf),
    /// The config does not load (or the run refuses it for the reference).
    #[error("--config {}: {source}", config.display())]
    Config {
        /// The flag's value.
        config: PathBuf,
        /// What the run said (its diagnostics).
        #[source]
        source: Box<pipeline::RunError>,
    },
    /// Neither `--reference` nor the config's `reference:`.
    #[error(
        "--reference: not given, and the config names no `reference:`; give the reference solution (a folder or a revision)"
    )]
    NoReference,
    /// The base and the reference hold the same files.
    #[error(
        "--base {base} --reference {reference}: the base and the reference hold the same files; give the task's starting point and its solution"
    )]
    SameFiles {
        /// `--base`.
        base: String,
        /// The reference as given.
        reference: String,
    },
    /// A side (`--base`, `--reference`) cannot be checked out.
    #[error("{flag} {arg}: {source}")]
    Checkout {
        /// The flag.
        flag: &'static str,
        /// Its value.
        arg: String,
        /// What the checkout said.
        #[source]
        source: crate::materialize::CheckoutError,
    },
    /// A side's folder cannot be read as prove reads it.
    #[error("{flag} {arg}: {source}")]
    Side {
        /// The flag.
        flag: &'static str,
        /// Its value.
        arg: String,
        /// What is wrong in the folder.
        #[source]
        source: FolderError,
    },
    /// A side holds no file.
    #[error("{flag} {arg}: holds no file")]
    EmptySide {
        /// The flag.
        flag: &'static str,
        /// Its value.
        arg: String,
    },
}

/// A side's folder cannot be read as a tree of regular files.
#[derive(Debug, Error)]
pub enum FolderError {
    /// Walking it failed.
    #[error("cannot be read: {0}")]
    Walk(#[source] walkdir::Error),
    /// A link, FIFO or device in it.
    #[error(
        "{0} is not a regular file (a link, a FIFO or a device); prove reads regular files only"
    )]
    NotRegular(String),
    /// A file cannot be read.
    #[error("{rel}: {source}")]
    Read {
        /// The file, relative to the side.
        rel: String,
        /// What reading it said.
        #[source]
        source: std::io::Error,
    },
    /// A walked path is not below the side (a defect of the walk).
    #[error("{} is not below {}", path.display(), root.display())]
    NotBelow {
        /// The path.
        path: PathBuf,
        /// The side's folder.
        root: PathBuf,
    },
    /// A name that is not UTF-8.
    #[error("{} has a name that is not UTF-8", .0.display())]
    NotUtf8(PathBuf),
}

/// judge-ci's own failure while proving.
#[derive(Debug, Error)]
pub enum InstrumentError {
    /// The output folder cannot be created.
    #[error("cannot create {}: {source}", path.display())]
    CreateOut {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The gold and base runs gave no result (a defect of judge-ci).
    #[error("the gold and base runs returned no result")]
    NoFirstRuns,
    /// The prove report cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    WriteReport {
        /// The output folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A folder under the output cannot be made absolute.
    #[error("cannot resolve {}: {source}", path.display())]
    Absolute {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// No temporary folder for the trees.
    #[error("cannot make a temporary folder: {0}")]
    TempFolder(#[source] std::io::Error),
    /// The reference cannot be written out.
    #[error("cannot write the reference: {0}")]
    WriteReference(#[source] std::io::Error),
    /// A variant's tree cannot be written out.
    #[error("cannot write the tree {}: {source}", dir.display())]
    WriteTree {
        /// The tree's folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A run panicked (judge-ci's own bug).
    #[error("a run panicked: {0}")]
    Panicked(#[source] tokio::task::JoinError),
}
