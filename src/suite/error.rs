//! Why a suite, a merge or a comparison could not be done: bad input (exit 2), a failure
//! writing or reading back judge-ci's own outputs (exit 3), or a signal.

use std::path::PathBuf;

use thiserror::Error;

use super::SelectionError;

/// Why a suite could not be set up or finished.
#[derive(Debug, Error)]
pub enum SuiteError {
    /// Bad input: a flag, a layout, a shard or merge problem.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Writing the results (or reading them back) failed.
    #[error(transparent)]
    Io(#[from] OutputError),
    /// A signal stopped the suite; the tasks still running were stopped and none was started.
    #[error("cancelled by {name} after {done} of {total} task(s); no suite report was written")]
    Cancelled {
        /// SIGTERM or SIGINT.
        name: &'static str,
        /// The signal's number.
        signal: i32,
        /// Tasks finished.
        done: usize,
        /// Tasks selected.
        total: usize,
    },
}

/// The suite's input is wrong: each names the file or flag and what would be valid.
#[derive(Debug, Error)]
pub enum InputError {
    /// The layout folder is not a folder.
    #[error("{} is not a folder; pass the folder holding benchmark.yaml files", .0.display())]
    NotAFolder(PathBuf),
    /// A benchmark or task file does not load (its rendered diagnostics, with file:line:col).
    #[error("{}", .0.render(false).trim_end())]
    Config(crate::config::Diagnostics),
    /// Two tasks have the same key.
    #[error("task {key} appears twice ({} and {}); task ids must be unique within a benchmark", .first.display(), .second.display())]
    DuplicateTask {
        /// `benchmark/id`.
        key: String,
        /// One task file.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// The Actions event could not be read (in a pull-request context the layout is trusted).
    #[error(transparent)]
    Event(#[from] crate::github::context::ContextError),
    /// The working folder cannot be read.
    #[error("cannot read the working folder: {0}")]
    WorkingFolder(#[source] std::io::Error),
    /// The trusted revision of the suite's definitions cannot be decided.
    #[error("the suite's definitions: {0}")]
    Definitions(#[source] crate::pipeline::config_tree::InputsError),
    /// A folder cannot be resolved.
    #[error("cannot read {}: {source}", path.display())]
    Unresolvable {
        /// The folder.
        path: PathBuf,
        /// What resolving it said.
        #[source]
        source: std::io::Error,
    },
    /// In a pull-request context, the layout folder is outside the repository.
    #[error("{} is not inside the repository {}: in a pull-request context the suite's definitions are read from {label}, and this folder is not in it", .dir.display(), .root.display())]
    OutsideRepository {
        /// The layout folder.
        dir: PathBuf,
        /// The repository's root.
        root: PathBuf,
        /// The trusted revision's label.
        label: String,
    },
    /// The trusted revision cannot be written out.
    #[error("cannot write out {label}: {source}")]
    Checkout {
        /// The trusted revision's label.
        label: String,
        /// What the checkout said.
        #[source]
        source: crate::materialize::CheckoutError,
    },
    /// The trusted revision has no such layout (the pull request adds the suite).
    #[error("{} does not exist in {label} ({commit}): a suite the pull request adds has no trusted definition to judge it by", .rel.display())]
    NotInTrusted {
        /// The layout folder, relative to the repository.
        rel: PathBuf,
        /// The trusted revision's label.
        label: String,
        /// Its commit (abbreviated).
        commit: String,
    },
    /// A shard's stored file cannot be read.
    #[error("{}: cannot be read: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What reading it said.
        #[source]
        source: std::io::Error,
    },
    /// A shard's `suite.json` is not a suite report.
    #[error("{}:{}:{}: not a suite report: {source}", path.display(), source.line(), source.column())]
    NotASuiteReport {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said (with line and column).
        #[source]
        source: serde_json::Error,
    },
    /// A shard's manifest cannot be read.
    #[error("{}: cannot be read ({source}); every folder merge takes is the output of one `judge-ci suite` run, manifest included", path.display())]
    ManifestUnreadable {
        /// The file.
        path: PathBuf,
        /// What reading it said.
        #[source]
        source: std::io::Error,
    },
    /// A shard's manifest is not a manifest.
    #[error("{}:{}:{}: not a shard manifest: {source}", path.display(), source.line(), source.column())]
    NotAManifest {
        /// The file.
        path: PathBuf,
        /// What the JSON reader said (with line and column).
        #[source]
        source: serde_json::Error,
    },
    /// A manifest of another schema.
    #[error("{}: schema {found:?}, expected {:?}", path.display(), super::manifest::MANIFEST_SCHEMA)]
    ManifestSchema {
        /// The file.
        path: PathBuf,
        /// The schema it names.
        found: String,
    },
    /// `merge` was given no folder.
    #[error("merge needs at least one shard folder")]
    NoShards,
    /// A stored report names a shard that does not parse.
    #[error(transparent)]
    Shard(#[from] SelectionError),
    /// The folders come from different splits, or some from unsharded runs.
    #[error(
        "the folders come from different splits (or unsharded runs); merge the shards of one run"
    )]
    MixedSplits,
    /// A shard of the split is not among the folders.
    #[error("shard {index}/{count} is missing")]
    ShardMissing {
        /// Its index.
        index: u32,
        /// Shards in all.
        count: u32,
    },
    /// A shard is given twice.
    #[error("shard {index}/{count} is given twice")]
    ShardTwice {
        /// Its index.
        index: u32,
        /// Shards in all.
        count: u32,
    },
    /// The shards' manifests disagree with their folders or with one another; each problem
    /// is one sentence naming the shard and the file.
    #[error("the shards cannot be merged:\n  - {}", .0.join("\n  - "))]
    Unmergeable(Vec<String>),
    /// A task's report folder cannot be copied into the merged folder.
    #[error("cannot copy {} to {}: {source}", from.display(), to.display())]
    Copy {
        /// The shard's folder.
        from: PathBuf,
        /// The merged folder.
        to: PathBuf,
        /// What copying said.
        #[source]
        source: std::io::Error,
    },
    /// A link inside a shard's folder (judge-ci writes none).
    #[error("{} is a symbolic link; judge-ci writes none in a suite folder", .0.display())]
    Link(PathBuf),
}

/// judge-ci could not write its suite outputs, or read back what it wrote.
#[derive(Debug, Error)]
pub enum OutputError {
    /// A folder cannot be created.
    #[error("cannot create {}: {source}", path.display())]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// What creating it said.
        #[source]
        source: std::io::Error,
    },
    /// A report cannot be serialised.
    #[error("cannot serialise the {what}: {source}")]
    Serialise {
        /// `suite report` or `manifest`.
        what: &'static str,
        /// What serde said.
        #[source]
        source: serde_json::Error,
    },
    /// A file cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// What writing it said.
        #[source]
        source: std::io::Error,
    },
    /// A file judge-ci wrote cannot be read back (for the manifest's digests).
    #[error("cannot read back {}: {source}", path.display())]
    ReadBack {
        /// The file.
        path: PathBuf,
        /// What reading it said.
        #[source]
        source: std::io::Error,
    },
    /// A task panicked (judge-ci's own bug).
    #[error("a task panicked: {0}")]
    Panicked(#[source] tokio::task::JoinError),
}
