//! Suites: every task of an agent-bench layout judged in one go, sharded deterministically
//! across an Actions matrix, merged back into one suite report, and compared with a baseline.
//!
//! Layout: `DIR/**/benchmark.yaml`, each with `tasks/<id>/task.yaml` beside it; a task's
//! subject is its `workspace/` folder (or the revision in its metadata `workspace-ref`), its
//! reference its `reference/` folder (or `reference-ref`).

pub mod compare;
mod error;
pub mod manifest;
pub mod model;
pub mod render;
pub mod trusted;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};
use thiserror::Error;
use tokio::sync::Semaphore;

use crate::config::{load_benchmark, load_task};
use crate::pipeline::{self, Format, RunOptions, Verbosity};

pub use error::{InputError, OutputError, SuiteError};
pub use model::{SuiteReport, TaskResult};

/// `--shard K/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 1.
    pub index: u32,
    /// Shards in all.
    pub count: u32,
}

/// A `--shard` or `--filter` value that cannot be used, with the value and what is valid.
#[derive(Debug, Error)]
pub enum SelectionError {
    /// `--shard` is not `K/N`.
    #[error("--shard {0:?}: write K/N, for example 2/4")]
    ShardForm(String),
    /// K or N is not a number.
    #[error("--shard {value:?}: {part} is not a number")]
    ShardNumber {
        /// The value given.
        value: String,
        /// `K` or `N`.
        part: &'static str,
    },
    /// K is not within 1..=N.
    #[error("--shard {0:?}: K must be between 1 and N, and N at least 1")]
    ShardRange(String),
    /// `--filter id:GLOB` (or a bare glob) that is not a glob.
    #[error("--filter {value:?}: {source}")]
    FilterGlob {
        /// The value given.
        value: String,
        /// What globset said.
        #[source]
        source: globset::Error,
    },
    /// `tag:` or `difficulty:` without a value.
    #[error("--filter {value:?}: give a value after {field}:")]
    FilterEmpty {
        /// The value given.
        value: String,
        /// `tag` or `difficulty`.
        field: &'static str,
    },
    /// A field that is not `id`, `tag` or `difficulty`.
    #[error(
        "--filter {value:?}: unknown field {field:?}; use id:GLOB, tag:TAG or difficulty:LEVEL"
    )]
    FilterField {
        /// The value given.
        value: String,
        /// The field named.
        field: String,
    },
}

impl Shard {
    /// Parses `K/N` with 1 ≤ K ≤ N.
    pub fn parse(s: &str) -> Result<Shard, SelectionError> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| SelectionError::ShardForm(s.to_string()))?;
        let number = |v: &str, part| {
            v.trim()
                .parse::<u32>()
                .map_err(|_| SelectionError::ShardNumber {
                    value: s.to_string(),
                    part,
                })
        };
        let (index, count) = (number(k, "K")?, number(n, "N")?);
        if count == 0 || index == 0 || index > count {
            return Err(SelectionError::ShardRange(s.to_string()));
        }
        Ok(Shard { index, count })
    }

    /// Whether the task keyed `key` belongs to this shard: by a hash of the key, so a task
    /// never moves between shards when others are added.
    pub fn holds(&self, key: &str) -> bool {
        let h = Sha256::digest(key.as_bytes());
        let mut b = [0u8; 8];
        b.copy_from_slice(&h[..8]);
        (u64::from_be_bytes(b) % u64::from(self.count)) as u32 == self.index - 1
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// `--filter`: `id:GLOB`, `tag:TAG`, `difficulty:LEVEL`, or a bare id glob.
#[derive(Clone, Debug)]
pub enum Filter {
    /// Task key (`benchmark/id`) or id matches the glob.
    Id(globset::GlobMatcher),
    /// The task's metadata `tags` holds it.
    Tag(String),
    /// The task's difficulty is it.
    Difficulty(String),
}

impl Filter {
    /// Parses one `--filter`.
    pub fn parse(s: &str) -> Result<Filter, SelectionError> {
        let glob = |g: &str| {
            globset::Glob::new(g)
                .map(|g| Filter::Id(g.compile_matcher()))
                .map_err(|source| SelectionError::FilterGlob {
                    value: s.to_string(),
                    source,
                })
        };
        let empty = |field| SelectionError::FilterEmpty {
            value: s.to_string(),
            field,
        };
        match s.split_once(':') {
            Some(("id", g)) => glob(g),
            Some(("tag", "")) => Err(empty("tag")),
            Some(("tag", t)) => Ok(Filter::Tag(t.to_string())),
            Some(("difficulty", "")) => Err(empty("difficulty")),
            Some(("difficulty", d)) => Ok(Filter::Difficulty(d.to_lowercase())),
            Some((k, _)) => Err(SelectionError::FilterField {
                value: s.to_string(),
                field: k.to_string(),
            }),
            None => glob(s),
        }
    }
}

/// One task found in the layout.
#[derive(Clone, Debug)]
pub struct TaskEntry {
    /// `benchmark/id`: unique in the suite.
    pub key: String,
    /// The benchmark's name.
    pub benchmark: String,
    /// The task's id.
    pub id: String,
    /// The benchmark file.
    pub config: PathBuf,
    /// The task file.
    pub task: PathBuf,
    /// Tags from the task's metadata.
    pub tags: Vec<String>,
    /// Its difficulty.
    pub difficulty: Option<String>,
    /// The subject: a folder, or a revision.
    pub workspace: Subject,
    /// The reference: a folder or revision, when there is one.
    pub reference: Option<String>,
}

/// Where a task's subject is.
#[derive(Clone, Debug)]
pub enum Subject {
    /// A folder.
    Folder(PathBuf),
    /// A git revision (or `URL#REV`).
    Rev(String),
}

impl TaskEntry {
    fn keep(&self, filters: &[Filter]) -> bool {
        filters.iter().all(|f| match f {
            Filter::Id(g) => g.is_match(&self.key) || g.is_match(&self.id),
            Filter::Tag(t) => self.tags.iter().any(|x| x == t),
            Filter::Difficulty(d) => self
                .difficulty
                .as_deref()
                .is_some_and(|x| x.eq_ignore_ascii_case(d)),
        })
    }
}

/// Every task under `dir`, sorted by key; a benchmark or task that does not load is an error
/// naming the file.
pub fn discover(dir: &Path) -> Result<Vec<TaskEntry>, SuiteError> {
    if !dir.is_dir() {
        return Err(InputError::NotAFolder(dir.to_path_buf()).into());
    }
    let mut out = Vec::new();
    let mut benches: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            !(e.file_type().is_dir()
                && matches!(
                    e.file_name().to_str(),
                    Some(".git" | "target" | "node_modules" | "workspace" | "reference")
                ))
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.file_name() == "benchmark.yaml")
        .map(|e| e.into_path())
        .collect();
    benches.sort();
    for b in benches {
        let (bench, _) = load_benchmark(&b).map_err(InputError::Config)?;
        let tasks_dir = b.parent().unwrap_or(dir).join("tasks");
        let Ok(entries) = std::fs::read_dir(&tasks_dir) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("task.yaml").is_file())
            .collect();
        dirs.sort();
        for t in dirs {
            let task_file = t.join("task.yaml");
            let (task, _) = load_task(&task_file).map_err(InputError::Config)?;
            let meta = |k: &str| {
                task.metadata
                    .get(k)
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
            };
            let workspace = match meta("workspace-ref") {
                Some(r) => Subject::Rev(r),
                None => Subject::Folder(t.join("workspace")),
            };
            let reference = meta("reference-ref").or_else(|| {
                let r = t.join("reference");
                r.is_dir().then(|| r.display().to_string())
            });
            let tags = task
                .metadata
                .get("tags")
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            out.push(TaskEntry {
                key: format!("{}/{}", bench.name, task.id),
                benchmark: bench.name.clone(),
                id: task.id.clone(),
                config: b.clone(),
                task: task_file,
                tags,
                difficulty: task.difficulty.clone(),
                workspace,
                reference,
            });
        }
    }
    out.sort_by(|a, b| a.key.cmp(&b.key));
    if let Some(w) = out.windows(2).find(|w| w[0].key == w[1].key) {
        return Err(InputError::DuplicateTask {
            key: w[0].key.clone(),
            first: w[0].task.clone(),
            second: w[1].task.clone(),
        }
        .into());
    }
    Ok(out)
}

/// A task found in the trusted copy `trusted` of the layout, judged on the workspace the
/// submitted layout `submitted` holds at the same place (a task the trusted side does not
/// define is not judged at all).
fn with_submitted_workspace(mut t: TaskEntry, trusted: &Path, submitted: &Path) -> TaskEntry {
    if let Subject::Folder(w) = &t.workspace
        && let Ok(rel) = w.strip_prefix(trusted)
    {
        t.workspace = Subject::Folder(submitted.join(rel));
    }
    t
}

/// What `judge-ci suite` was asked.
#[derive(Clone, Debug)]
pub struct SuiteOptions {
    /// The layout's root.
    pub dir: PathBuf,
    /// Where reports go.
    pub out: PathBuf,
    /// Tasks at once.
    pub jobs: usize,
    /// This run's share.
    pub shard: Option<Shard>,
    /// Which tasks.
    pub filters: Vec<Filter>,
    /// Show a progress bar.
    pub progress: bool,
    /// Spending limits over the whole suite (`--llm-limit`), shared by its concurrent tasks
    /// besides each task's own `llm.limits`.
    pub llm_limits: crate::config::llm::Limits,
    /// The trusted copy of the layout (in a pull-request context, `dir` as the base commit
    /// holds it) and what it is, for the report: benchmark definitions, task files and
    /// references are read from it, each task's workspace from `dir`.
    pub definitions: Option<(PathBuf, String)>,
}

/// Runs the suite: each selected task judged (up to `jobs` at once) with its report in
/// `OUT/tasks/<benchmark>/<id>/`, then `OUT/suite.json` and `OUT/suite.md`.
pub async fn run(opts: &SuiteOptions) -> Result<SuiteReport, SuiteError> {
    let all = match &opts.definitions {
        None => discover(&opts.dir)?,
        Some((trusted, _)) => discover(trusted)?
            .into_iter()
            .map(|t| with_submitted_workspace(t, trusted, &opts.dir))
            .collect(),
    };
    let chosen: Vec<TaskEntry> = all.into_iter().filter(|t| t.keep(&opts.filters)).collect();
    let suite_digest = manifest::suite_digest(&chosen);
    let suite_tasks: Vec<String> = chosen.iter().map(|t| t.key.clone()).collect();
    let selected: Vec<TaskEntry> = chosen
        .into_iter()
        .filter(|t| opts.shard.is_none_or(|s| s.holds(&t.key)))
        .collect();
    std::fs::create_dir_all(&opts.out).map_err(|source| OutputError::CreateFolder {
        path: opts.out.clone(),
        source,
    })?;
    let bar = if opts.progress {
        let b = indicatif::ProgressBar::new(selected.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} tasks {elapsed} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    // One hidden list for the suite's tasks: what judge-ci made for one is hidden from the
    // subject processes of every other; each task's fence is otherwise its own.
    let hidden = Arc::new(crate::fence::Hidden::default());
    // Every task's reference folder is hidden before any task's subject code runs: a task
    // started first must not read the answer key of one registered later.
    // The trusted copy of the layout (its references, the base's own workspaces) too.
    if let Some((trusted, _)) = &opts.definitions {
        hidden.hide(trusted);
    }
    for t in &selected {
        if let Some(r) = &t.reference
            && Path::new(r).is_dir()
        {
            hidden.hide(Path::new(r));
        }
    }
    // One budget for every task: thread-safe, reserved before each request is sent.
    let budget = (!opts.llm_limits.is_empty()).then(|| {
        Arc::new(crate::judges::llm::budget::Budget::new(
            crate::judges::llm::budget::Scope::Suite,
            opts.llm_limits,
        ))
    });
    let suite_budget = budget.clone();
    let opts_out = opts.out.clone();
    let bar_for_tasks = bar.clone();
    let total = selected.len();
    let results = concurrently(selected, opts.jobs, move |t: TaskEntry| {
        let hidden = Arc::clone(&hidden);
        let budget = budget.clone();
        let out = opts_out.clone();
        let bar = bar_for_tasks.clone();
        async move {
            let r = judge_task(&t, &out, hidden, budget).await;
            if let Some(b) = &bar {
                b.set_message(t.key.clone());
                b.inc(1);
            }
            r
        }
    })
    .await;
    let results = match results {
        Ok(r) => r,
        Err(Stopped::Cancelled { name, signal, done }) => {
            if let Some(b) = &bar {
                b.abandon();
            }
            return Err(SuiteError::Cancelled {
                name,
                signal,
                done,
                total,
            });
        }
        Err(Stopped::Panicked(e)) => return Err(OutputError::Panicked(e).into()),
    };
    let mut report = SuiteReport::new(
        opts.dir.display().to_string(),
        opts.shard.map(|s| s.to_string()),
        results,
    );
    report.llm_limits = suite_budget.map(|b| b.uses()).unwrap_or_default();
    report.suite.definitions_from = opts.definitions.as_ref().map(|(_, from)| from.clone());
    report.write(&opts.out)?;
    manifest::Manifest::of(&report, &opts.out, suite_digest, suite_tasks)?.write(&opts.out)?;
    Ok(report)
}

/// Why [`concurrently`] stopped before every item was done.
#[derive(Debug)]
pub enum Stopped {
    /// A signal: the items still running were stopped (their judges dropped, whose guards
    /// kill their processes) and none was started after it.
    Cancelled {
        /// SIGTERM or SIGINT.
        name: &'static str,
        /// The signal's number.
        signal: i32,
        /// Items finished before it.
        done: usize,
    },
    /// An item's task panicked (judge-ci's own bug).
    Panicked(tokio::task::JoinError),
}

/// Runs `work` on every item, up to `jobs` at once in this process, and returns the results
/// in the items' order: the suite's tasks and `prove`'s variants are judged by this one
/// runner. A SIGTERM or SIGINT stops every item still running.
pub async fn concurrently<T, F, Fut>(
    items: Vec<T>,
    jobs: usize,
    work: F,
) -> Result<Vec<Fut::Output>, Stopped>
where
    T: Send + 'static,
    F: Fn(T) -> Fut,
    Fut: std::future::Future + Send + 'static,
    Fut::Output: Send + 'static,
{
    let permits = Arc::new(Semaphore::new(jobs.max(1)));
    let mut set = tokio::task::JoinSet::new();
    for (i, item) in items.into_iter().enumerate() {
        let permits = permits.clone();
        let fut = work(item);
        set.spawn(async move {
            let _p = permits.acquire().await;
            (i, fut.await)
        });
    }
    let mut results = Vec::new();
    let cancel = pipeline::cancellation();
    tokio::pin!(cancel);
    loop {
        tokio::select! {
            next = set.join_next() => match next {
                Some(Ok(r)) => results.push(r),
                Some(Err(e)) => return Err(Stopped::Panicked(e)),
                None => break,
            },
            (name, signal) = &mut cancel => {
                set.abort_all();
                while set.join_next().await.is_some() {}
                return Err(Stopped::Cancelled { name, signal, done: results.len() });
            }
        }
    }
    results.sort_by_key(|(i, _)| *i);
    Ok(results.into_iter().map(|(_, r)| r).collect())
}

/// Judges one task; a task that cannot be judged at all (bad config, missing folder) is a
/// result with an error, not a failed suite.
async fn judge_task(
    t: &TaskEntry,
    out: &Path,
    hidden: Arc<crate::fence::Hidden>,
    budget: Option<Arc<crate::judges::llm::budget::Budget>>,
) -> TaskResult {
    let definition = manifest::definition_digest(t);
    let mut r = judge_task_by(t, out, hidden, budget).await;
    r.definition = Some(definition);
    r
}

async fn judge_task_by(
    t: &TaskEntry,
    out: &Path,
    hidden: Arc<crate::fence::Hidden>,
    budget: Option<Arc<crate::judges::llm::budget::Budget>>,
) -> TaskResult {
    let dir = out.join("tasks").join(&t.benchmark).join(&t.id);
    let (workspace, head) = match &t.workspace {
        Subject::Folder(p) => (p.clone(), None),
        Subject::Rev(r) => (PathBuf::from("."), Some(r.clone())),
    };
    // No submission is the subject's doing (the agent produced nothing): it counts against
    // the task, never as a task that could not run (trust.md point 12, attack finding F33).
    if head.is_none() && std::fs::symlink_metadata(&workspace).is_err() {
        let why = format!(
            "the workspace folder {} does not exist: nothing was submitted",
            workspace.display()
        );
        let mut r = TaskResult::failed(t, pipeline::EXIT_REJECTED, why.clone());
        r.subject_error = Some(why);
        return r;
    }
    // A workspace that is a link (to the task's reference, the answer key) or is the
    // reference is no submission: against the task (attack findings GA3, NC14).
    if head.is_none() {
        let reference = t.reference.as_ref().map(PathBuf::from);
        if let Some(why) = crate::pipeline::submission::not_a_submission(
            &workspace,
            &reference.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
        ) {
            let mut r = TaskResult::failed(t, pipeline::EXIT_REJECTED, why.clone());
            r.subject_error = Some(why);
            return r;
        }
    }
    let opts = RunOptions {
        config: Some(t.config.clone()),
        task: Some(t.task.clone()),
        workspace,
        reference: t.reference.clone(),
        head,
        keep_checkouts: false,
        model_cache: None,
        dry_run: true,
        out: dir.clone(),
        format: Format::Json,
        verbosity: Verbosity::Quiet,
        color: false,
        fail_on: None,
        config_from: crate::pipeline::config_tree::ConfigFrom::Head,
        publish: Default::default(),
        actions: false,
        split: crate::pipeline::resume::Split::Whole,
        llm_budget: budget,
        semantic_only: None,
    };
    let rel = Path::new("tasks")
        .join(&t.benchmark)
        .join(&t.id)
        .join("report.json");
    match pipeline::run_beside(&opts, hidden).await {
        // A report JSON spilled out of the suite's folder is named by its absolute path.
        Ok(r) => {
            let at = match r.report_path {
                Some(p) if p == dir.join("report.json") => rel.display().to_string(),
                Some(p) => p.display().to_string(),
                None => String::new(),
            };
            TaskResult::judged(t, &r.report, at)
        }
        // A workspace the subject left unreadable stops the run: against the task, never
        // a task that "could not run" (attack finding GA7).
        Err(e) => {
            let mut r = TaskResult::failed(t, e.exit_code(), e.to_string());
            if e.caused_by_the_workspace() {
                r.subject_error = Some(e.to_string());
            }
            r
        }
    }
}

/// Combines shard outputs into one suite report in `out` (copying each task's report folder),
/// after checking every folder against its manifest and the manifests against one another
/// (see [`manifest::check`]): a missing, doubled, overlapping, foreign or altered shard is
/// refused, naming each problem.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<SuiteReport, SuiteError> {
    let mut parts = Vec::new();
    for d in dirs {
        let p = d.join("suite.json");
        let text = crate::untrusted::read_string_io(&p, crate::untrusted::MAX_STORED_BYTES)
            .map_err(|source| InputError::Unreadable {
                path: p.clone(),
                source,
            })?;
        let r: SuiteReport =
            serde_json::from_str(&text).map_err(|source| InputError::NotASuiteReport {
                path: p.clone(),
                source,
            })?;
        parts.push(manifest::Part {
            dir: d.clone(),
            manifest: manifest::Manifest::read(d)?,
            report: r,
        });
    }
    let Some(first) = parts.first() else {
        return Err(InputError::NoShards.into());
    };
    let root = first.report.suite.root.clone();
    let shards: Vec<Option<Shard>> = parts
        .iter()
        .map(|p| {
            p.report
                .suite
                .shard
                .as_deref()
                .map(Shard::parse)
                .transpose()
        })
        .collect::<Result<_, _>>()
        .map_err(InputError::Shard)?;
    if let Some(n) = shards.iter().flatten().map(|s| s.count).next() {
        if shards.iter().any(|s| s.is_none_or(|s| s.count != n)) {
            return Err(InputError::MixedSplits.into());
        }
        for k in 1..=n {
            let found = shards.iter().flatten().filter(|s| s.index == k).count();
            if found == 0 {
                return Err(InputError::ShardMissing { index: k, count: n }.into());
            }
            if found > 1 {
                return Err(InputError::ShardTwice { index: k, count: n }.into());
            }
        }
    }
    manifest::check(&parts)?;
    // The folder first: one that cannot be made is the instrument's failure (exit 3), not
    // a copy problem of the input's.
    std::fs::create_dir_all(out).map_err(|source| OutputError::CreateFolder {
        path: out.to_path_buf(),
        source,
    })?;
    let mut tasks: Vec<TaskResult> = Vec::new();
    for p in &parts {
        for t in &p.report.tasks {
            let t = t.clone();
            if !t.report_path.is_empty() {
                no_link_below(&p.dir, Path::new(&t.report_path))?;
                let from = p.dir.join(&t.report_path);
                let to = out.join(&t.report_path);
                if let (Some(src), Some(dst)) = (from.parent(), to.parent()) {
                    copy_dir(src, dst).map_err(|source| InputError::Copy {
                        from: src.to_path_buf(),
                        to: dst.to_path_buf(),
                        source,
                    })?;
                }
            }
            tasks.push(t);
        }
    }
    tasks.sort_by(|a, b| a.key.cmp(&b.key));
    let merged = SuiteReport::new(root, None, tasks);
    merged.write(out)?;
    let m = &first.manifest;
    manifest::Manifest::of(&merged, out, m.suite_digest.clone(), m.suite_tasks.clone())?
        .write(out)?;
    Ok(merged)
}

/// Refuses a link on the way from `dir` to `rel`: a shard folder holds none that judge-ci made.
fn no_link_below(dir: &Path, rel: &Path) -> Result<(), SuiteError> {
    let mut at = dir.to_path_buf();
    for c in rel.components() {
        at.push(c);
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(InputError::Link(at).into());
        }
    }
    Ok(())
}

/// Copies a task's report folder: regular files and folders only. A link (or anything else)
/// in a shard folder is not something judge-ci wrote there, and is refused, never followed.
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    if from == to {
        return Ok(());
    }
    if std::fs::symlink_metadata(from)?.file_type().is_symlink() {
        return Err(std::io::Error::other(format!(
            "{} is a symbolic link; judge-ci writes none in a suite folder",
            from.display()
        )));
    }
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let target = to.join(e.file_name());
        let kind = e.file_type()?;
        if kind.is_dir() {
            copy_dir(&e.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(e.path(), target)?;
        } else {
            return Err(std::io::Error::other(format!(
                "{} is not a regular file (a link, a FIFO or a device); judge-ci writes none in a suite folder",
                e.path().display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_every_task_exactly_once_and_stay_put() {
        let keys: Vec<String> = (0..400).map(|i| format!("bench/task-{i}")).collect();
        let shards: Vec<Shard> = (1..=4).map(|k| Shard { index: k, count: 4 }).collect();
        let mut sizes = [0usize; 4];
        for k in &keys {
            let owners: Vec<usize> = (0..4).filter(|&i| shards[i].holds(k)).collect();
            assert_eq!(owners.len(), 1, "{k}");
            sizes[owners[0]] += 1;
        }
        assert!(
            sizes.iter().all(|&n| (70..=130).contains(&n)),
            "balanced: {sizes:?}"
        );
        for out_of_range in ["0/4", "5/4", "1/0"] {
            assert!(
                matches!(Shard::parse(out_of_range), Err(SelectionError::ShardRange(v)) if v == out_of_range),
                "{out_of_range}"
            );
        }
        assert!(matches!(Shard::parse("x"), Err(SelectionError::ShardForm(v)) if v == "x"));
        assert!(matches!(
            Shard::parse("two/4"),
            Err(SelectionError::ShardNumber { part: "K", .. })
        ));
        assert_eq!(Shard::parse("2/4").unwrap().to_string(), "2/4");
    }

    #[test]
    fn filters_parse() {
        assert!(matches!(Filter::parse("tag:fast"), Ok(Filter::Tag(_))));
        assert!(
            matches!(Filter::parse("difficulty:Hard"), Ok(Filter::Difficulty(d)) if d == "hard")
        );
        assert!(matches!(Filter::parse("petclinic-*"), Ok(Filter::Id(_))));
        assert!(matches!(
            Filter::parse("colour:red"),
            Err(SelectionError::FilterField { field, .. }) if field == "colour"
        ));
        assert!(matches!(
            Filter::parse("tag:"),
            Err(SelectionError::FilterEmpty { field: "tag", .. })
        ));
        assert!(matches!(
            Filter::parse("id:[a"),
            Err(SelectionError::FilterGlob { .. })
        ));
    }
}
