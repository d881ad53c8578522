//! Why a run could not judge, and the exit code each reason maps to.

use std::path::PathBuf;
use thiserror::Error;

use super::exit::{EXIT_BAD_INPUT, EXIT_INSTRUMENT};
use crate::config::{Diagnostic, Diagnostics};
use crate::materialize::CheckoutError;

/// Why a run could not judge.
#[derive(Debug, Error)]
pub enum RunError {
    /// Bad input: exit 2. Printed as a diagnostic: the problem, then what would be valid.
    #[error("{}", render_input(.0))]
    Input(#[from] InputError),
    /// The engine itself failed before producing a verdict: exit 3.
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
    /// A signal (the Actions "Cancel", Ctrl-C) stopped the run: exit 128 + the signal.
    #[error(
        "cancelled by {name}; the judges still running were stopped (their process groups killed)"
    )]
    Cancelled {
        /// SIGTERM or SIGINT.
        name: &'static str,
        /// The signal's number.
        signal: i32,
    },
}

impl RunError {
    /// Whether the subject's own workspace stopped the run (a file or folder it left
    /// unreadable, a workspace that is missing or is no submission): in a suite such a task
    /// counts against the subject, never as one judge-ci could not run (trust.md point 12,
    /// attack finding GA7). A full disk or want of memory while judge-ci copies it is
    /// judge-ci's own.
    pub fn caused_by_the_workspace(&self) -> bool {
        match self {
            RunError::Instrument(InstrumentError::Snapshot(e)) => {
                crate::judgment::Cause::of_io(e).is_none()
            }
            RunError::Input(InputError::NoWorkspace(_) | InputError::NotASubmission(_)) => true,
            _ => false,
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Input(_) => EXIT_BAD_INPUT,
            RunError::Instrument(_) => EXIT_INSTRUMENT,
            RunError::Cancelled { signal, .. } => 128 + signal,
        }
    }
}

/// judge-ci's own instrument failed, so no verdict (or no surface of one) could be given:
/// exit 3. Each kind names the step that failed and keeps the error under it.
#[derive(Debug, Error)]
pub enum InstrumentError {
    /// A built jury could not describe itself (for the report and `validate`).
    #[error("cannot describe the jury: {0}")]
    Describe(#[source] crate::judgment::BuildError),
    /// The jury description could not be printed as JSON (`validate`).
    #[error("cannot print the jury description: {0}")]
    PrintDescription(#[source] serde_json::Error),
    /// The report could not be cut to what `reveal:` lets its surfaces show.
    #[error(transparent)]
    Reveal(#[from] crate::report::reveal::RevealError),
    /// A surface could not be rendered from the report.
    #[error(transparent)]
    Render(#[from] crate::report::RenderError),
    /// The comment's template could not be rendered (the API comment).
    #[error(transparent)]
    Template(#[from] crate::report::markdown::TemplateError),
    /// The output folder could not be made ready before any subject code ran.
    #[error(transparent)]
    Output(#[from] super::save::PrepareError),
    /// The job summary could not be appended to `$GITHUB_STEP_SUMMARY`.
    #[error("cannot write the job summary {path}: {source}")]
    JobSummary {
        /// `$GITHUB_STEP_SUMMARY`.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The step outputs could not be appended to `$GITHUB_OUTPUT` (a later step reads them).
    #[error("cannot write the step outputs {path}: {source}")]
    StepOutputs {
        /// `$GITHUB_OUTPUT`.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The snapshot of the submitted workspace could not be taken.
    #[error("cannot take the snapshot of the workspace the structural judges read: {0}")]
    Snapshot(#[source] std::io::Error),
    /// The snapshot was changed while the jury ran: a subject process reached judge-ci's own
    /// files, so no verdict is given.
    #[error(
        "the snapshot of the submitted workspace was changed while the jury ran ({}); a subject process reached judge-ci's own files, so no verdict is given",
        shown_paths(.paths)
    )]
    SnapshotTampered {
        /// The snapshot's paths that changed.
        paths: Vec<PathBuf>,
    },
    /// The vote ended in a fault of the engine.
    #[error("the jury could not produce a verdict: {0}")]
    Vote(#[from] crate::judgment::Fault),
    /// A check judge-ci adds to the first tier (protected paths, build code, unjudged
    /// changes) has no tier to go to.
    #[error("{what}: the jury has no first tier to add {check} to")]
    NoFirstTier {
        /// What was being added, as the message names it.
        what: &'static str,
        /// The check's name.
        check: &'static str,
    },
    /// The trusted side's protected paths could not be compared or pinned.
    #[error("protected paths: {0}")]
    Protected(#[source] super::protect::ProtectError),
    /// The trusted side's build files could not be pinned.
    #[error("build files: {0}")]
    BuildFiles(#[source] super::protect::ProtectError),
    /// `restore:` could not put the reference's files in place.
    #[error(transparent)]
    Restore(super::protect::ProtectError),
}

/// The first five paths, then how many more.
fn shown_paths(paths: &[PathBuf]) -> String {
    let mut s = paths
        .iter()
        .take(5)
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > 5 {
        s.push_str(&format!(" and {} more", paths.len() - 5));
    }
    s
}

/// Bad input, with the file, flag or config place it came from; each kind knows the help
/// that says what would be valid.
#[derive(Debug, Error)]
pub enum InputError {
    /// The config, task or jury has problems: every one, with `file:line:col` snippets.
    #[error("{}", .problems.render(*.color).trim_end())]
    Config {
        /// The problems.
        problems: Diagnostics,
        /// Whether they are rendered in colour.
        color: bool,
    },
    /// The working folder cannot be read.
    #[error("cannot read the working folder: {0}")]
    WorkingFolder(#[source] std::io::Error),
    /// `--out` is refused (a symbolic link on its way).
    #[error(transparent)]
    OutDir(#[from] super::save::OutDirError),
    /// No `--config`, and none found where judge-ci looks.
    #[error("no configuration found in {place}")]
    NoConfig {
        /// Where it looked (the folder, or the trusted commit's tree).
        place: String,
        /// Whether it looked in a trusted commit's tree rather than the working tree.
        in_trusted_tree: bool,
    },
    /// `publish --from` found no trusted config.
    #[error(
        "publish --from needs the trusted config, whose name names the check run and keys the sticky comment: none found in {} (judge-ci.yml, .github/judge-ci.yml, benchmark.yaml)",
        .0.display()
    )]
    NoTrustedConfig(PathBuf),
    /// The trusted tree the config is read from cannot be resolved.
    #[error(transparent)]
    ConfigSource(#[from] super::config_tree::InputsError),
    /// The head, the workspace or the reference cannot be materialised.
    #[error("{what}: {source}")]
    Tree {
        /// `head`, `workspace` or `reference`.
        what: &'static str,
        /// Why.
        #[source]
        source: CheckoutError,
    },
    /// `--workspace` is not a folder.
    #[error("the workspace folder {} does not exist", .0.display())]
    NoWorkspace(PathBuf),
    /// The workspace is no submission: a symbolic link, or the reference itself (see
    /// `submission::not_a_submission`).
    #[error("{0}")]
    NotASubmission(String),
    /// The config's `reference.path` cannot be written out of the trusted tree.
    #[error("reference.path {}: {source}", .path.display())]
    ReferencePath {
        /// The configured path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `--model-cache` (or `JUDGE_CI_MODEL_CACHE`) is refused.
    #[error(transparent)]
    ModelCache(#[from] crate::lang::cache::CacheSettingError),
    /// `report.template` cannot be read.
    #[error("cannot read the report template {}: {source}", .path.display())]
    TemplateFile {
        /// The configured path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// In a pull-request context, a `semantic-diff` plan cannot be read from the base.
    #[error(
        "cannot read the plan {} from the trusted revision: {source}; in a pull-request context a semantic-diff check's criteria are the base's (the pull request's copy is its own exam)",
        .path.display()
    )]
    PlanFile {
        /// The plan, in the workspace.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// In a pull-request context, a check's command names a program or script through an
    /// expansion judge-ci cannot resolve before it runs, so it cannot make that program the
    /// trusted side's (attack B14-1).
    #[error(
        "check '{check}': `run:` names {what}; in a pull-request context judge-ci runs only programs it can make the base's copies, and what this expansion names is known only when it runs (the pull request's tree can decide it)"
    )]
    UnresolvedProgram {
        /// The check.
        check: String,
        /// What is named by an expansion.
        what: String,
    },
    /// `report.template` does not render.
    #[error(transparent)]
    Template(#[from] crate::report::markdown::TemplateError),
    /// `restore:` without a reference to restore from.
    #[error("restore: copies files from the reference, but there is none")]
    RestoreWithoutReference,
    /// A stored report cannot be read.
    #[error("cannot read {}: {source}{hint}", .path.display())]
    StoredReport {
        /// Its path.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
        /// What to pass instead (may be empty).
        hint: &'static str,
    },
    /// A stored report is not a judge-ci report (of a version this judge-ci reads).
    #[error("{}", .source.at(.path))]
    StoredReportShape {
        /// Its path.
        path: PathBuf,
        /// What is wrong, with line and column.
        #[source]
        source: crate::report::read::ReadError,
    },
    /// The first job's report does not belong to this run (`resume`).
    #[error("{}: {why}", .path.display())]
    FirstJob {
        /// The first job's report.
        path: PathBuf,
        /// What does not match.
        why: String,
        /// What to do about it.
        help: &'static str,
    },
    /// A file named by a `diagnose` flag cannot be read.
    #[error("--{flag} {}: cannot be read: {source}", .path.display())]
    FlagFile {
        /// The flag, without dashes.
        flag: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `diagnose --knowledge` cannot be read.
    #[error("--knowledge: {0}")]
    Knowledge(#[source] crate::diagnose::inputs::KnowledgeError),
    /// A conventional `metadata:` key (of the config or the task) holds a value judges
    /// cannot use; the config's reader refuses it at its line first, so this is what a
    /// config built otherwise meets.
    #[error("{0}")]
    Metadata(#[source] crate::judgment::ConventionError),
    /// `diagnose --analysis` is not JSON.
    #[error("--analysis {}: not JSON: {source}", .path.display())]
    AnalysisJson {
        /// The file.
        path: PathBuf,
        /// What serde_json said.
        #[source]
        source: serde_json::Error,
    },
    /// `publish` outside GitHub Actions.
    #[error(
        "judge-ci publish runs in GitHub Actions (GITHUB_ACTIONS, GITHUB_REPOSITORY and GITHUB_EVENT_PATH name where to post)"
    )]
    NotInActions,
    /// The Actions environment is malformed.
    #[error(transparent)]
    ActionsContext(#[from] crate::github::context::ContextError),
    /// `publish` of a report of another commit.
    #[error(
        "{} is of commit {theirs}, but this workflow runs for {ours}; not publishing a report of another commit",
        .path.display()
    )]
    OtherCommit {
        /// The stored report.
        path: PathBuf,
        /// The commit it judged.
        theirs: String,
        /// The commit this workflow runs for.
        ours: String,
    },
    /// In a pull-request context the workspace's checkout is not the pull request's head
    /// (nor GitHub's test merge of it): judging it would post a verdict on the head for a
    /// tree that is not it (attack finding B11-8).
    #[error(
        "the workspace {} has commit {found} checked out, and the {event} event is for the pull request's head {head}; judge-ci judges the head (or GitHub's merge commit of it), never another tree under its name",
        .workspace.display()
    )]
    CheckoutNotHead {
        /// The workspace.
        workspace: PathBuf,
        /// Its HEAD.
        found: String,
        /// The event's head commit.
        head: String,
        /// The event.
        event: String,
    },
    /// `publish` of a report bound to another run or base than the event names.
    #[error("{}: {why}; not publishing a report of another run", .path.display())]
    OtherRun {
        /// The stored report.
        path: PathBuf,
        /// What does not match.
        why: String,
    },
    /// `publish` of a stored report that holds no verdict (a first job's).
    #[error("{}: {why}", .path.display())]
    NotAVerdict {
        /// The stored report.
        path: PathBuf,
        /// Why it is none.
        why: String,
    },
}

impl InputError {
    /// What would be valid, when there is more to say than the message.
    pub fn help(&self) -> Option<&'static str> {
        match self {
            InputError::NoConfig {
                in_trusted_tree: true,
                ..
            } => Some(
                "the config is read from the trusted base, so it must exist there; pass --config PATH, or --config-from head to use the pull request's own",
            ),
            InputError::NoConfig {
                in_trusted_tree: false,
                ..
            } => Some(
                "looked for judge-ci.yml, .github/judge-ci.yml and benchmark.yaml; pass --config PATH",
            ),
            InputError::NoTrustedConfig(_) => {
                Some("check out the base branch, or pass --config PATH")
            }
            InputError::ConfigSource(_) => Some(
                "fetch the base commit (actions/checkout with fetch-depth: 0, or a token that may fetch it), or pass --config-from head|REV",
            ),
            InputError::Tree { source, .. } => match source {
                CheckoutError::NoRevision { .. } => Some(
                    "check the name, or fetch it (a shallow clone may lack it and the fetch failed)",
                ),
                CheckoutError::NoRepository { .. } => {
                    Some("pass a folder, run judge-ci inside the repository, or use URL#REV")
                }
                CheckoutError::NoFolder(_) => {
                    Some("pass an existing folder, a revision, or URL#REV")
                }
                CheckoutError::Refused(_)
                | CheckoutError::Repository(_)
                | CheckoutError::TempDir(_)
                | CheckoutError::Io { .. }
                | CheckoutError::Walk(_)
                | CheckoutError::FolderGiven(_)
                | CheckoutError::NotEmpty(_) => None,
                CheckoutError::BadTreeEntry { .. } => Some(
                    "git's own fsck refuses this commit (`git fsck` names the entry too); judge-ci writes no part of such a tree",
                ),
                CheckoutError::TooLarge { .. } => Some(
                    "a file this large is not written out of git; judge it from a folder, or keep it out of the judged revision",
                ),
                CheckoutError::TreeTooLarge { .. } => Some(
                    "a tree this large (or one that names the same subtree many times) is not judged",
                ),
            },
            InputError::NoWorkspace(_) => Some("pass --workspace DIR"),
            InputError::NotASubmission(_) => Some(
                "pass the subject's own folder as --workspace (a real folder, not a link, and not the reference)",
            ),
            InputError::ReferencePath { .. } => {
                Some("the reference folder is read from the trusted base; it must exist there")
            }
            InputError::Template(_) => {
                Some("fix report.template, or remove it to use the built-in one")
            }
            InputError::RestoreWithoutReference => Some(
                "name a reference (the config's `reference:` or --reference), or remove `restore:`",
            ),
            InputError::FirstJob { help, .. } => Some(help),
            InputError::CheckoutNotHead { .. } => Some(
                "check out the head (`ref: ${{ github.event.pull_request.head.sha }}` for actions/checkout in pull_request_target), or judge it with --head",
            ),
            InputError::UnresolvedProgram { .. } => Some(
                "write the script's or program's path out in `run:` (`sh ci/check.sh`), or list it under `protected:` and name it literally",
            ),
            InputError::PlanFile { .. } => Some(
                "commit the plan on the base branch (the criteria the pull request is judged by), or list the criteria in the check's `criteria:`",
            ),
            InputError::Config { .. }
            | InputError::WorkingFolder(_)
            | InputError::OutDir(_)
            | InputError::ModelCache(_)
            | InputError::TemplateFile { .. }
            | InputError::StoredReport { .. }
            | InputError::StoredReportShape { .. }
            | InputError::FlagFile { .. }
            | InputError::Knowledge(_)
            | InputError::Metadata(_)
            | InputError::AnalysisJson { .. }
            | InputError::NotInActions
            | InputError::ActionsContext(_)
            | InputError::OtherCommit { .. }
            | InputError::OtherRun { .. }
            | InputError::NotAVerdict { .. } => None,
        }
    }
}

/// An input error as printed: config problems as rendered (with snippets), anything else as
/// one diagnostic with its help.
fn render_input(e: &InputError) -> String {
    match e {
        InputError::Config { .. } => e.to_string(),
        _ => {
            let mut d = Diagnostic::error(None, e.to_string());
            if let Some(h) = e.help() {
                d = d.help(h);
            }
            d.render(None, false).trim_end().to_string()
        }
    }
}

/// The config's problems as an input error.
pub(super) fn config_problems(problems: Diagnostics, color: bool) -> RunError {
    RunError::Input(InputError::Config { problems, color })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_the_subject_left_unreadable_is_the_subjects_doing() {
        // Attack finding GA7: such a task was dropped from the suite's pass rate.
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        assert!(RunError::Instrument(InstrumentError::Snapshot(denied)).caused_by_the_workspace());
        let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
        assert!(!RunError::Instrument(InstrumentError::Snapshot(full)).caused_by_the_workspace());
        assert!(RunError::Input(InputError::NotASubmission("x".into())).caused_by_the_workspace());
        assert!(!RunError::Input(InputError::NotInActions).caused_by_the_workspace());
    }
}
