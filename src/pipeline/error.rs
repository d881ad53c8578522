//! Why a run could not judge, and the exit code each reason maps to.

use thiserror::Error;

use super::exit::{EXIT_BAD_INPUT, EXIT_INSTRUMENT};
use crate::config::{Diagnostic, Diagnostics};

/// Why a run could not judge.
#[derive(Debug, Error)]
pub enum RunError {
    /// Bad input: exit 2. The text is ready to print (diagnostics with snippets).
    #[error("{0}")]
    Input(String),
    /// The engine itself failed before producing a verdict: exit 3.
    #[error("{0}")]
    Instrument(String),
    /// A signal (the Actions "Cancel", Ctrl-C) stopped the run: exit 128 + the signal.
    #[error(
        "cancelled by {name}; the judges still running were stopped (their process groups killed)"
    )]
    Cancelled {
        /// SIGTERM or SIGINT.
        name: &'static str,
        /// The signal's number.
        signal: i32,
    },
}

impl RunError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Input(_) => EXIT_BAD_INPUT,
            RunError::Instrument(_) => EXIT_INSTRUMENT,
            RunError::Cancelled { signal, .. } => 128 + signal,
        }
    }
}

pub(super) fn diags_error(d: &Diagnostics, color: bool) -> RunError {
    RunError::Input(d.render(color).trim_end().to_string())
}

pub(super) fn one(msg: String, help: Option<&str>) -> RunError {
    let mut d = Diagnostic::error(None, msg);
    if let Some(h) = help {
        d = d.help(h);
    }
    RunError::Input(d.render(None, false).trim_end().to_string())
}
