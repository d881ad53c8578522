//! Why judge-ci's test oracle gave no observation: a missing or broken tool, a file of
//! judge-ci's own that could not be made or that changed under it, a reference that does not
//! build. Typed so that the judge takes the cause from what happened ([`OracleError::cause`]),
//! never from words. `Clone`: the launcher and the reference's run are made once per run and
//! every judge that needs them meets the same error.

use std::path::PathBuf;
use std::sync::Arc;

use crate::judgment::Cause;

/// Why the oracle (its launcher, a test compile, a run, the reference's side) could not be
/// used.
#[derive(Clone, Debug, thiserror::Error)]
pub enum OracleError {
    /// The JUnit Platform standalone jar is not installed.
    #[error(
        "the sealed test oracle needs the JUnit Platform standalone jar (set JUDGE_CI_JUNIT_STANDALONE, or install it at {})",
        super::STANDALONE[0]
    )]
    NoStandalone,
    /// A file or folder of judge-ci's own could not be made, written or copied.
    #[error("cannot {doing}: {source}")]
    Io {
        /// What judge-ci was doing ("make the oracle's folder").
        doing: &'static str,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// A program could not be started.
    #[error("{program} could not be started {purpose}: {source}")]
    Start {
        /// The program (or the command line, quoted).
        program: String,
        /// What it was started for ("for the oracle").
        purpose: &'static str,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// javac did not compile the oracle's own source.
    #[error("javac could not compile the oracle: {0}")]
    Compile(String),
    /// `java --list-modules` did not list `java.base`.
    #[error("java --list-modules did not list java.base: {0}")]
    Modules(String),
    /// The oracle's class files changed after judge-ci compiled them.
    #[error(
        "the oracle's class files in {} changed after judge-ci compiled them: a subject process reached judge-ci's own files",
        .0.display()
    )]
    LauncherTampered(PathBuf),
    /// The trusted tests judge-ci compiled changed during the run.
    #[error(
        "the trusted tests judge-ci compiled into {} changed during the run: a subject process reached judge-ci's own files",
        .0.display()
    )]
    TestsTampered(PathBuf),
    /// No random nonce could be drawn.
    #[error("no random nonce for the oracle: {0}")]
    Nonce(String),
    /// The trusted tests have more source files than judge-ci compiles.
    #[error("the trusted tests have more than {0} source files")]
    TooManyTests(usize),
    /// Processes of the oracle's test run outlived the kill of its group.
    #[error(
        "{} process(es) of the oracle's test run were still alive after judge-ci killed its group (pids {:?})",
        .0.len(),
        .0
    )]
    Outlived(Vec<i32>),
    /// There is no reference to run the trusted tests on.
    #[error("no reference to run the trusted tests on")]
    NoReference,
    /// A Maven build judge-ci ran on a copy (the reference's, the base's) ended otherwise
    /// than with status 0.
    #[error("`{command}` ended {exit}: {tail}")]
    Build {
        /// The command line.
        command: String,
        /// How it ended.
        exit: String,
        /// The end of its output.
        tail: String,
    },
    /// The reference's copy does not build, so no test is known to pass on the solution.
    #[error(
        "the reference does not build here, so judge-ci cannot tell which tests the solution passes: {0}"
    )]
    ReferenceBuild(Box<OracleError>),
    /// The reference's test run gave no observation.
    #[error("the reference's test run: {0}")]
    ReferenceRun(Box<super::RunFailure>),
}

impl OracleError {
    /// An [`OracleError::Io`] for what judge-ci was `doing`.
    pub fn io(doing: &'static str) -> impl FnOnce(std::io::Error) -> OracleError {
        move |e| OracleError::Io {
            doing,
            source: Arc::new(e),
        }
    }

    /// An [`OracleError::Start`] of `program`, for `purpose`.
    pub fn start(
        program: impl Into<String>,
        purpose: &'static str,
    ) -> impl FnOnce(std::io::Error) -> OracleError {
        let program = program.into();
        move |e| OracleError::Start {
            program,
            purpose,
            source: Arc::new(e),
        }
    }

    /// The cause judge-ci observed, when it is one of judge-ci's instrument: a tool that is
    /// not installed or cannot compile judge-ci's own source. Everything else has none, so
    /// it is not excused: the oracle runs after the subject's build, whose processes may
    /// have filled the disk or reached judge-ci's files (`spec/trust.md` point 12).
    pub fn cause(&self) -> Option<Cause> {
        match self {
            OracleError::NoStandalone | OracleError::Compile(_) | OracleError::Modules(_) => {
                Some(Cause::ToolMissing)
            }
            OracleError::Start { source, .. } => {
                (source.kind() == std::io::ErrorKind::NotFound).then_some(Cause::ToolMissing)
            }
            OracleError::ReferenceBuild(e) => e.cause(),
            OracleError::ReferenceRun(f) => match &**f {
                super::RunFailure::Instrument(e) => e.cause(),
                super::RunFailure::Timeout(..) | super::RunFailure::Flooded(..) => None,
            },
            OracleError::Io { .. }
            | OracleError::LauncherTampered(_)
            | OracleError::TestsTampered(_)
            | OracleError::Nonce(_)
            | OracleError::TooManyTests(_)
            | OracleError::Outlived(_)
            | OracleError::NoReference
            | OracleError::Build { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_missing_or_broken_tool_is_the_instrument_s_cause() {
        let missing = OracleError::start("javac", "for the oracle")(std::io::Error::from(
            std::io::ErrorKind::NotFound,
        ));
        assert_eq!(missing.cause(), Some(Cause::ToolMissing));
        assert_eq!(
            missing.to_string(),
            format!(
                "javac could not be started for the oracle: {}",
                std::io::Error::from(std::io::ErrorKind::NotFound)
            )
        );
        assert_eq!(OracleError::NoStandalone.cause(), Some(Cause::ToolMissing));
        // A full disk after the subject's build, or a file of judge-ci's changed: the
        // subject may have done it, so no cause excuses it.
        let full = OracleError::io("make a folder for the tests")(std::io::Error::from(
            std::io::ErrorKind::StorageFull,
        ));
        assert_eq!(full.cause(), None);
        assert!(
            full.to_string()
                .starts_with("cannot make a folder for the tests: ")
        );
        assert_eq!(
            OracleError::TestsTampered(PathBuf::from("/x")).cause(),
            None
        );
        // The reference's side says what of it failed, and keeps the cause.
        let mvn = OracleError::ReferenceBuild(Box::new(OracleError::start(
            "`mvn -B test-compile`",
            "for the reference",
        )(std::io::Error::from(
            std::io::ErrorKind::NotFound,
        ))));
        assert_eq!(mvn.cause(), Some(Cause::ToolMissing));
        let built = OracleError::ReferenceBuild(Box::new(OracleError::Build {
            command: "mvn -B test-compile".into(),
            exit: "Code(1)".into(),
            tail: "BUILD FAILURE".into(),
        }));
        assert_eq!(built.cause(), None);
        assert_eq!(
            built.to_string(),
            "the reference does not build here, so judge-ci cannot tell which tests the solution passes: `mvn -B test-compile` ended Code(1): BUILD FAILURE"
        );
    }
}
