//! The error every constructor in the engine returns when it refuses its input.

use thiserror::Error;

/// Why a value could not be built. The two kinds mirror the reference library's distinction
/// between a bad argument and a builder used in the wrong state, so that conformance cases
/// naming `IllegalArgumentException` or `IllegalStateException` can be checked.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BuildError {
    /// A value given to a constructor is invalid (`IllegalArgumentException`).
    #[error("{0}")]
    InvalidArgument(String),
    /// A builder was finished without something it requires (`IllegalStateException`).
    #[error("{0}")]
    InvalidState(String),
}

impl BuildError {
    /// An invalid-argument refusal with the given message.
    pub fn argument(msg: impl Into<String>) -> Self {
        BuildError::InvalidArgument(msg.into())
    }

    /// An invalid-state refusal with the given message.
    pub fn state(msg: impl Into<String>) -> Self {
        BuildError::InvalidState(msg.into())
    }

    /// The message without the kind.
    pub fn message(&self) -> &str {
        match self {
            BuildError::InvalidArgument(m) | BuildError::InvalidState(m) => m,
        }
    }

    /// The reference library's exception class for this kind of refusal.
    pub fn java_type(&self) -> &'static str {
        match self {
            BuildError::InvalidArgument(_) => "IllegalArgumentException",
            BuildError::InvalidState(_) => "IllegalStateException",
        }
    }

    /// Prefixes the message with where the refusal happened (`seats[2]: …`).
    pub fn at(self, place: &str) -> Self {
        match self {
            BuildError::InvalidArgument(m) => BuildError::InvalidArgument(format!("{place}: {m}")),
            BuildError::InvalidState(m) => BuildError::InvalidState(format!("{place}: {m}")),
        }
    }
}
