//! Configuration: the benchmark file (a superset of agent-bench's `bench.benchmark.v1`) and
//! the task file, read into a span-carrying YAML tree, validated completely (every problem,
//! with file, line, column and what would be valid), and turned into a typed model. Nothing
//! downstream sees raw YAML.

pub mod checks;
mod diag;
pub mod diagnostics;
mod duration;
pub mod endpoint;
pub mod instance;
pub mod llm;
mod model;
mod parse;
pub mod sandbox;
pub mod schema;
pub mod schema_doc;
pub mod source;
pub mod token;
pub mod yaml;

pub use diag::{Diagnostic, Diagnostics, Loc, Severity};
pub use duration::{DurationError, parse_duration};
pub use llm::LlmSettings;
pub use model::*;
pub use parse::{
    DISCOVERED, discover, discover_in, load_benchmark, load_benchmark_from, load_task,
    load_task_from,
};
pub use source::ConfigSource;
