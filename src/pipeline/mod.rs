//! The one place that strings the stages together: config → workspace and reference → jury →
//! report, written to disk before anything is printed.
//!
//! [`run::run`] is the pipeline; [`stages`] has its stages as functions with typed outputs
//! (loaded → trees → ready → judged → report, then saved and published in `run`), built from
//! one module per step, in the order a run passes through them:
//! [`options`] (what a run is asked) and [`config_tree`] (where the config is read from) →
//! [`mod@load`] (config and task) → [`trees`] (subject and reference) → [`preflight`] (paths that
//! escape) → [`guard`] (protected paths, restored files; [`protect`]) → [`resume`] (the first
//! job of a split run) → [`task`] (setup and post commands) → [`jury`] (built, then voting,
//! with [`progress`]; [`signals`] stop it and [`cancelled`] records that) → [`assemble`] (the
//! report's views) → [`mod@gate`] (reading to exit code, [`exit`]) → [`save`] (to disk) →
//! [`publish`] (to GitHub). [`rediagnose`] re-runs the gap analysis on a stored report and
//! [`mod@validate`] runs only the loading and jury stages. [`error`] is why a run could not judge.

pub mod assemble;
pub mod cancelled;
pub mod config_tree;
pub mod error;
pub mod exit;
pub mod gate;
pub mod guard;
pub mod jury;
pub mod load;
pub mod options;
pub mod plans;
pub mod preflight;
pub mod programs;
pub mod progress;
pub mod protect;
pub mod publish;
pub mod rediagnose;
pub mod resume;
pub mod reveal;
pub mod run;
pub mod runtime;
pub mod save;
pub mod signals;
pub mod stages;
pub mod submission;
pub mod task;
pub mod trees;
pub mod unjudged;
pub mod validate;

pub use assemble::{collect_diffs, tier_views};
pub use error::{InputError, InstrumentError, RunError};
pub use exit::{EXIT_BAD_INPUT, EXIT_INSTRUMENT, EXIT_PASS, EXIT_PUBLISH, EXIT_REJECTED};
pub use gate::{gate, gate_all, gate_with_errors};
pub use load::{load, load_from, read_report};
pub use options::{Format, RunOptions, RunResult, Verbosity};
pub use run::{run, run_beside};
pub use signals::cancellation;
pub use validate::validate;
