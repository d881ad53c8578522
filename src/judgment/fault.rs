//! What a judge, a strategy or a jury can do instead of returning a value.

use std::fmt;

/// A failure to produce a result. Ordinary faults (`Threw`, `NoResult`) are contained by the
/// jury that called the failing part and recorded as an ERROR judgment or a failed stage;
/// `Fatal` and `LimitExceeded` escape every containment and end the vote, as a Java `Error`
/// and the composite-limit exception do in the reference library.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The part failed with an error of the given kind (an exception class in the reference).
    Threw {
        /// Short name of the kind of failure, e.g. `IllegalStateException` or `io`.
        kind: String,
        /// What went wrong, when known.
        message: Option<String>,
    },
    /// The part finished without producing anything (a `null` return in the reference).
    NoResult,
    /// An unrecoverable failure that no jury contains.
    Fatal {
        /// Short name of the kind of failure, e.g. `StackOverflowError`.
        kind: String,
        /// What went wrong, when known.
        message: Option<String>,
    },
    /// A composite vote went deeper or invoked more children than allowed (§6.4).
    LimitExceeded(String),
}

impl Fault {
    /// A contained failure of the given kind with a message.
    pub fn threw(kind: impl Into<String>, message: impl Into<String>) -> Self {
        Fault::Threw {
            kind: kind.into(),
            message: Some(message.into()),
        }
    }

    /// True for the faults that no jury contains.
    pub fn escapes(&self) -> bool {
        matches!(self, Fault::Fatal { .. } | Fault::LimitExceeded(_))
    }

    /// `threw <kind>[: message]`, `returned nothing`, … for use inside a reasoning sentence.
    pub fn describe_as_thrown(&self) -> String {
        match self {
            Fault::Threw { kind, message } | Fault::Fatal { kind, message } => match message {
                Some(m) if !m.is_empty() => format!("threw {kind}: {m}"),
                _ => format!("threw {kind}"),
            },
            Fault::NoResult => "returned nothing".to_string(),
            Fault::LimitExceeded(m) => format!("exceeded a composite limit: {m}"),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe_as_thrown())
    }
}

impl std::error::Error for Fault {}

impl From<super::BuildError> for Fault {
    /// A refusal while building a judgment inside a judge is that judge's failure.
    fn from(e: super::BuildError) -> Self {
        Fault::threw(e.java_type(), e.message())
    }
}
