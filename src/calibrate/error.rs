//! Why calibrate could not run: bad input (exit 2), judge-ci's own failure (exit 3), a signal.

use std::path::PathBuf;

use thiserror::Error;

use crate::pipeline;

/// Why calibrate could not run.
#[derive(Debug, Error)]
pub enum CalibrateError {
    /// Bad input: the case file, the config, a label naming no semantic check (exit 2).
    #[error(transparent)]
    Input(Box<InputError>),
    /// judge-ci's own failure (a folder it could not write; exit 3).
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
    /// A signal stopped it.
    #[error("cancelled by {name}; no calibration report was written")]
    Cancelled {
        /// SIGTERM or SIGINT.
        name: &'static str,
        /// Its number.
        signal: i32,
    },
}

impl From<InputError> for CalibrateError {
    fn from(e: InputError) -> Self {
        CalibrateError::Input(Box::new(e))
    }
}

impl CalibrateError {
    /// The process exit code.
    pub fn exit_code(&self) -> i32 {
        match self {
            CalibrateError::Input(_) => pipeline::EXIT_BAD_INPUT,
            CalibrateError::Instrument(_) => pipeline::EXIT_INSTRUMENT,
            CalibrateError::Cancelled { signal, .. } => 128 + signal,
        }
    }
}

/// calibrate's input is wrong; each names the file, case or flag and what would be valid.
#[derive(Debug, Error)]
pub enum InputError {
    /// The case file does not read.
    #[error(transparent)]
    Cases(#[from] super::cases::CasesError),
    /// The config the case file names does not load.
    #[error("the config {} (named by {}): {source}", config.display(), file.display())]
    Config {
        /// The config.
        config: PathBuf,
        /// The case file.
        file: PathBuf,
        /// What the load said (its diagnostics).
        #[source]
        source: Box<pipeline::RunError>,
    },
    /// The config has no semantic check.
    #[error(
        "the config {} has no semantic check (llm, semantic-diff, correctness, test-quality-llm, ears, rfc2119): there is nothing to calibrate",
        .0.display()
    )]
    NoSemanticCheck(PathBuf),
    /// Two semantic checks share a name.
    #[error("the config {}: {source}", config.display())]
    DuplicateName {
        /// The config.
        config: PathBuf,
        /// Which name.
        #[source]
        source: crate::config::DuplicateSemanticName,
    },
    /// `--check` names no semantic check.
    #[error("--check {check}: not a semantic check of {}; valid: {}", config.display(), valid.join(", "))]
    UnknownCheck {
        /// The flag's value.
        check: String,
        /// The config.
        config: PathBuf,
        /// The semantic checks' names.
        valid: Vec<String>,
    },
    /// `--case` names no case.
    #[error("--case {case}: {} has no case of that name", file.display())]
    UnknownCase {
        /// The flag's value.
        case: String,
        /// The case file.
        file: PathBuf,
    },
    /// Labels that do not fit the config's checks (rendered diagnostics with file:line:col).
    #[error("{}", .0.render(false).trim_end())]
    Labels(crate::config::Diagnostics),
    /// No case labels the checks `--check` keeps.
    #[error("no case labels --check {}", .0.join(", "))]
    NothingLabelled(Vec<String>),
    /// A case's side is a revision but the case file names no repository.
    #[error("case {case}: {what} {rev} is a revision and the case file names no repository")]
    NoRepository {
        /// The case.
        case: String,
        /// `subject` or `reference`.
        what: String,
        /// The revision.
        rev: String,
    },
    /// A case's revision cannot be written out.
    #[error("case {case}: {what} {rev} of {}: {source}", repository.display())]
    Checkout {
        /// The case.
        case: String,
        /// `subject` or `reference`.
        what: String,
        /// The revision.
        rev: String,
        /// The repository.
        repository: PathBuf,
        /// What the checkout said.
        #[source]
        source: crate::materialize::CheckoutError,
    },
}

/// judge-ci's own failure while calibrating.
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
    /// The output folder cannot be made absolute.
    #[error("{}: {source}", path.display())]
    Absolute {
        /// The folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A case's run panicked (judge-ci's own bug).
    #[error("a case's run panicked: {0}")]
    Panicked(#[source] tokio::task::JoinError),
    /// The calibration report cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    WriteReport {
        /// The output folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}
