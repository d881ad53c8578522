//! What a run is asked to do (the command line's options) and what it hands back.

use std::path::PathBuf;

use super::{config_tree, publish, resume};
use crate::config::FailOn;
use crate::report::Report;

/// What a command prints on standard output (`--format` of run, diagnose, suite and prove).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The markdown report.
    Markdown,
    /// The report JSON.
    Json,
}

/// How chatty the run is on standard error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// Errors only.
    Quiet,
    /// Warnings and progress.
    Normal,
    /// Every judge start and finish as plain lines.
    Verbose,
}

/// Everything a run needs from the command line.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--task`.
    pub task: Option<PathBuf>,
    /// `--workspace`.
    pub workspace: PathBuf,
    /// `--reference`: a folder, a revision, or `URL#REV`.
    pub reference: Option<String>,
    /// `--head`: the subject as a revision or `URL#REV`.
    pub head: Option<String>,
    /// `--keep-checkouts`.
    pub keep_checkouts: bool,
    /// `--model-cache`: a folder, `off`, or `None` for the default.
    pub model_cache: Option<String>,
    /// `--dry-run`: print instead of posting.
    pub dry_run: bool,
    /// `--out`.
    pub out: PathBuf,
    /// `--format`.
    pub format: Format,
    /// `--quiet` / `--verbose`.
    pub verbosity: Verbosity,
    /// Colour on standard error.
    pub color: bool,
    /// `--fail-on`, over the config's.
    pub fail_on: Option<FailOn>,
    /// `--config-from`: where the config and the files it names are read from.
    pub config_from: config_tree::ConfigFrom,
    /// Publishing to GitHub.
    pub publish: publish::PublishOptions,
    /// Whether this is a single run (true) or a task of a suite (false): a suite ignores the
    /// GitHub Actions environment and does not run task `setup` commands, which prepare the
    /// agent's starting point and would overwrite the stored solution being judged.
    pub actions: bool,
    /// Whether this run is one job of a split run (`--stop-before-semantic`, `resume`).
    pub split: resume::Split,
    /// A spending budget shared with other runs (a suite's `--llm-limit`), counted against
    /// besides the config's own `llm.limits`.
    pub llm_budget: Option<std::sync::Arc<crate::judges::llm::budget::Budget>>,
    /// `Some(names)`: judge only the config's semantic checks of these names, as one flat
    /// jury (`judge-ci calibrate` asks only the checks a case labels): the config's other
    /// checks and its tiers are left out, and so are its semantic checks not named, which are
    /// never asked. `None`: the whole jury.
    pub semantic_only: Option<Vec<String>>,
}

/// A finished run.
pub struct RunResult {
    /// The report, as written.
    pub report: Report,
    /// What to print on standard output.
    pub stdout: String,
    /// Where the report JSON was written: the output folder, a spill file when the folder
    /// could not take it, or nowhere (see the warnings printed).
    pub report_path: Option<PathBuf>,
    /// The process exit code: the verdict's (`report.outcome.exit_code`), or
    /// [`super::exit::EXIT_PUBLISH`] when `--require-publish` is set and publishing fell short.
    pub exit_code: i32,
}
