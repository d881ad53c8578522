//! Stage 1, loading: the config (discovered when not given) and the task, and stored reports
//! read back by `publish`, `resume` and `diagnose`.

use std::path::Path;
use std::sync::Arc;

use super::error::{InputError, RunError, config_problems};
use super::options::Verbosity;
use crate::config::{
    Benchmark, ConfigSource, Task, discover_in, load_benchmark_from, load_task_from,
};
use crate::report::Report;

/// Loads the config (discovered when not given) and the task from the working tree,
/// printing warnings.
pub fn load(
    config: Option<&Path>,
    task: Option<&Path>,
    verbosity: Verbosity,
    color: bool,
) -> Result<(Benchmark, Option<Task>), RunError> {
    load_from(config, task, Arc::default(), verbosity, color)
}

/// Loads the config (discovered when not given) and the task through `source` (the working
/// tree, or a trusted commit's tree), printing warnings.
pub fn load_from(
    config: Option<&Path>,
    task: Option<&Path>,
    source: Arc<ConfigSource>,
    verbosity: Verbosity,
    color: bool,
) -> Result<(Benchmark, Option<Task>), RunError> {
    let path = match config {
        Some(p) => p.to_path_buf(),
        None => {
            let cwd = std::env::current_dir().map_err(InputError::WorkingFolder)?;
            discover_in(&cwd, &source).ok_or_else(|| {
                let place = match source.tree() {
                    Some(t) => format!(
                        "{} ({}) of the repository at {}",
                        t.label(),
                        &t.commit()[..7],
                        cwd.display()
                    ),
                    None => cwd.display().to_string(),
                };
                InputError::NoConfig {
                    place,
                    in_trusted_tree: source.tree().is_some(),
                }
            })?
        }
    };
    let (bench, warnings) =
        load_benchmark_from(&path, Arc::clone(&source)).map_err(|d| config_problems(d, color))?;
    let mut all_warnings = warnings;
    let task = match task {
        Some(t) => {
            let (task, w) = load_task_from(t, &source).map_err(|d| config_problems(d, color))?;
            all_warnings.items.extend(w.items);
            Some(task)
        }
        None => None,
    };
    if verbosity != Verbosity::Quiet && !all_warnings.items.is_empty() {
        eprint!("{}", all_warnings.render(color));
    }
    Ok((bench, task))
}

/// Reads a stored report; `hint` says what to pass when the file cannot be read.
pub fn read_report(path: &Path, hint: &'static str) -> Result<Report, InputError> {
    // Whoever uploaded it chose it: never opened blocking (a FIFO), bounded before reading.
    let text = crate::untrusted::read_string_io(path, crate::untrusted::MAX_STORED_BYTES).map_err(
        |source| InputError::StoredReport {
            path: path.to_path_buf(),
            source,
            hint,
        },
    )?;
    crate::report::read::parse(&text).map_err(|source| InputError::StoredReportShape {
        path: path.to_path_buf(),
        source,
    })
}
