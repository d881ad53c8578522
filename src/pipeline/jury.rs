//! Stage 6, the jury: built from the loaded config with the run's progress display.

use serde_json::Value;
use std::io::IsTerminal;
use std::sync::Arc;

use super::error::{InstrumentError, RunError, config_problems};
use super::options::Verbosity;
use super::progress;
use crate::config::{Benchmark, Diagnostic, Diagnostics};
use crate::judges::{NoProgress, Progress, build_jury};
use crate::jury::Jury;

pub(super) fn progress_for(
    verbosity: Verbosity,
) -> (Arc<dyn Progress>, Option<Arc<progress::ActionsProgress>>) {
    if verbosity == Verbosity::Quiet {
        return (Arc::new(NoProgress), None);
    }
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        let a = Arc::new(progress::ActionsProgress::default());
        return (a.clone(), Some(a));
    }
    if verbosity == Verbosity::Verbose {
        return (Arc::new(progress::LogProgress), None);
    }
    if std::io::stderr().is_terminal() {
        return (Arc::new(progress::TerminalProgress::new()), None);
    }
    (Arc::new(NoProgress), None)
}

/// A built jury, its description, and the model runtime its semantic judges share (for the
/// spending limits in the report).
pub(super) type BuiltJury = (Arc<dyn Jury>, Value, Arc<crate::judges::llm::Runtime>);

/// Builds the jury of a loaded config and describes it; a refusal names the config's place.
pub(super) fn jury_of(
    bench: &Benchmark,
    progress: Arc<dyn Progress>,
    color: bool,
    split: crate::judges::split::Mode,
    fence: &Arc<crate::fence::Fence>,
    comparisons: &Arc<crate::judges::structural::Comparisons>,
    shared: Option<Arc<crate::judges::llm::budget::Budget>>,
) -> Result<BuiltJury, RunError> {
    let llm = Arc::new(crate::judges::llm::Runtime::new(bench.llm.clone()).sharing(shared));
    let services = crate::judges::Services {
        fence: Arc::clone(fence),
        progress,
        llm: Arc::clone(&llm),
        evidence: Arc::default(),
        split,
        comparisons: Arc::clone(comparisons),
        oracle: Arc::default(),
        submitted: Arc::new(crate::judges::baseline::Guard::of(&bench.jury)),
    };
    let jury = build_jury(&bench.jury, &bench.name, &services).map_err(|e| {
        let mut d = Diagnostics::default();
        d.push(Diagnostic::error(e.loc, e.error.message().to_string()));
        config_problems(d, color)
    })?;
    let description = jury.describe().map_err(InstrumentError::Describe)?;
    Ok((jury, description, llm))
}
