//! `judge-ci diagnose REPORT.json`: the gap analysis again, on a stored report, with inputs the
//! run did not have (a plan, a knowledge folder, a journal, an analysis file). No judge runs.

use std::path::{Path, PathBuf};

use crate::config::{load_benchmark, load_task};
use crate::diagnose::{self, Inputs, inputs};
use crate::report::Report;

use super::error::{InputError, RunError, config_problems};

/// The extra inputs of `diagnose`.
#[derive(Clone, Debug, Default)]
pub struct DiagnoseOptions {
    /// `--plan`.
    pub plan: Option<PathBuf>,
    /// `--knowledge`.
    pub knowledge: Option<PathBuf>,
    /// `--journal`.
    pub journal: Option<PathBuf>,
    /// `--analysis`.
    pub analysis: Option<PathBuf>,
    /// `--task`.
    pub task: Option<PathBuf>,
    /// `--config`.
    pub config: Option<PathBuf>,
}

fn read(flag: &'static str, p: &Path) -> Result<String, InputError> {
    // A journal or analysis may be the subject's: never opened blocking, bounded.
    crate::untrusted::read_string_io(p, crate::untrusted::MAX_STORED_BYTES).map_err(|source| {
        InputError::FlagFile {
            flag,
            path: p.to_path_buf(),
            source,
        }
    })
}

/// Reads `path`, analyzes it again with `opts`, and returns the updated report.
pub fn rediagnose(path: &Path, opts: &DiagnoseOptions) -> Result<Report, RunError> {
    let mut report = super::read_report(path, "")?;
    let task_path = opts.task.clone().or_else(|| {
        report
            .task
            .as_ref()
            .map(|t| PathBuf::from(&t.path))
            .filter(|p| p.is_file())
    });
    let instruction = match task_path {
        Some(p) => match load_task(&p) {
            Ok((t, _)) => t.instruction,
            Err(d) => return Err(config_problems(d, false)),
        },
        None => String::new(),
    };
    let mut inputs = Inputs {
        instruction,
        ..Inputs::default()
    };
    if let Some(p) = &opts.plan {
        inputs.plan = Some(read("plan", p)?);
    }
    if let Some(d) = &opts.knowledge {
        inputs.knowledge = Some(inputs::read_knowledge(d).map_err(InputError::Knowledge)?);
    }
    if let Some(p) = &opts.journal {
        let (entries, note) = inputs::read_journal(&read("journal", p)?);
        inputs.journal = Some(entries);
        inputs.problems.extend(note);
    }
    if let Some(p) = &opts.analysis {
        inputs.analysis = Some(
            serde_json::from_str(&read("analysis", p)?).map_err(|source| {
                InputError::AnalysisJson {
                    path: p.clone(),
                    source,
                }
            })?,
        );
    }
    let rules = match &opts.config {
        Some(c) => match load_benchmark(c) {
            Ok((b, _)) => b.diagnostics.rules,
            Err(d) => return Err(config_problems(d, false)),
        },
        None => Vec::new(),
    };
    report.diagnostics = Some(diagnose::analyze(
        &report.verdict,
        &report.seats(),
        &inputs,
        &rules,
    ));
    Ok(report)
}
