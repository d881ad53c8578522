//! The check catalog: every `type` a check may have, the keys each takes, and their typed,
//! validated form. Judges are built from [`CheckKind`]; nothing downstream reads raw YAML.
//!
//! Each check type lives in one file of this folder (its keys, documentation, default limit
//! and reader, as a [`CheckInfo`] constant) and is listed once in [`registry`], which makes the
//! [`CheckType`] enum, its `type:` token and the catalog the loader and the JSON Schema read.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;
use strum::IntoEnumIterator;

use super::duration::parse_duration;
use crate::config::llm::{LlmSettings, Question, RosterKind};
use crate::config::yaml::{Key, Kind, Reader, key, nearest};

/// A key table, written as a list.
macro_rules! keys {
    ($($k:expr),* $(,)?) => { &[$($k),*] };
}

mod build;
mod class_version;
mod command;
mod coverage;
mod file;
mod protected;
mod read;
pub mod registry;
mod semantic;
mod structural;

pub use command::{CommandLine, splits_names, walks_without_links};
pub use coverage::Baseline;
pub use file::MatchMode;
pub use registry::CheckType;
pub use structural::{AstAspect, FileSet, PomAspect};

/// The tier a check type belongs to (it decides which dependencies a judge may pull in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Files, commands, builds, class files, coverage.
    Deterministic,
    /// Workspace against reference.
    Structural,
    /// Language-model judges.
    Semantic,
}

/// What a check of a type reads of the workspace's own files: the fact the snapshot rule
/// ([`crate::judges::snapshot`]) reads, so that which judges read the workspace as submitted
/// is decided in one place, for every type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkspaceReads {
    /// What a build produced in its output folders (class files, reports), or nothing of the
    /// tree (a check that runs code there starts on the submitted files: see
    /// [`crate::judges::baseline`]): read live.
    Outputs,
    /// The sources the structural comparisons select, or the path a file check names
    /// ([`CheckKind::sources`]): read as submitted.
    Sources,
    /// Every file of the workspace (the semantic tier's material, a plan it reads): read as
    /// submitted.
    Everything,
}

/// What of the files subject code adds while the run's checks run the guard keeps for a
/// check of a type (the rule of [`crate::judges::baseline`], decided here, per type): after
/// each check that runs subject code, every entry added outside what the jury's checks keep is
/// removed, so a later check reads the submitted tree plus only what these facts name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keeps {
    /// Nothing: what subject code adds while it runs is scratch (a `command`'s, an `external`
    /// judge's), or it reads the workspace as submitted (the snapshot).
    Nothing,
    /// The output folders of the build tool it runs ([`Facts::builds`],
    /// [`BuildTool::output_folders`]): what it built, for the checks after it (a `command`
    /// that runs the classes a build compiled).
    ItsBuildOutputs,
    /// The output folders of every build tool judge-ci knows ([`BuildTool`]), beside that
    /// tool's build files: it runs a program of the config's, which may be any build (a
    /// `command: mvn -o package` whose classes a later `command` runs).
    AnyBuildOutputs,
    /// The paths it names ([`CheckKind::workspace_paths`]: a class folder, a report): the
    /// evidence it reads, whichever check before it wrote them.
    WhatItReads,
}

/// One thing the guard keeps of what subject code adds ([`CheckKind::kept`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept<'a> {
    /// A build tool's output folders, wherever its build files are.
    OutputsOf(BuildTool),
    /// A path of the workspace and what is under it.
    Path(&'a WorkspacePath),
}

/// The run-time limit of a check that sets none.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(120);
/// The run-time limit of a build that sets none.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(600);

/// Reads a check's own keys into its parameters, recording every problem in the reader.
pub type ReadFn = fn(&mut Reader, &read::CheckNode<'_>) -> Option<CheckKind>;

/// Which build tool a build check runs (its output folders are cleaned before the run's
/// first build).
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter)]
pub enum BuildTool {
    /// `target/` beside every `pom.xml`.
    Maven,
    /// `build/` (and Gradle's `.gradle/`) beside every Gradle build or settings file.
    Gradle,
}

impl BuildTool {
    /// The files that make a folder one of its projects.
    pub fn build_files(self) -> &'static [&'static str] {
        match self {
            BuildTool::Maven => &["pom.xml"],
            BuildTool::Gradle => &[
                "build.gradle",
                "build.gradle.kts",
                "settings.gradle",
                "settings.gradle.kts",
            ],
        }
    }

    /// The folder a project's build writes its output to (removed before the run's first
    /// build: what the pull request committed there is not this run's).
    pub fn output_folder(self) -> &'static str {
        match self {
            BuildTool::Maven => "target",
            BuildTool::Gradle => "build",
        }
    }

    /// Every folder the tool writes beside a project's build files: its output folder and its
    /// own state (Gradle's `.gradle/`).
    pub fn output_folders(self) -> &'static [&'static str] {
        match self {
            BuildTool::Maven => &["target"],
            BuildTool::Gradle => &["build", ".gradle"],
        }
    }
}

/// The sources a structural comparison reads (see [`CheckKind::sources`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceSelection<'a> {
    /// The files its file set selects.
    Files(&'a FileSet),
    /// POMs, their parents, `.mvn/` and the tree's shape.
    Poms,
    /// The one path a file check names (and what is under it, when a folder).
    Path(&'a WorkspacePath),
}

/// The section of the report's `diffs` a check's findings go to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffSection {
    /// Import differences.
    Imports,
    /// Declaration differences.
    Ast,
    /// POM differences.
    Pom,
    /// Whole-file differences and test counts.
    Files,
}

/// Every fact about a check type the stages after loading act on, as data on its registry
/// entry. No field has a default: an entry that forgets one does not compile, and no stage
/// matches over check types to find one out.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// When it runs: [`Phase::Build`](crate::judgment::Phase::Build) runs the pull
    /// request's code (builds, `command`, `external`), one at a time before the inspecting
    /// judges; a structural judge after one reads the snapshot.
    pub phase: crate::judgment::Phase,
    /// The build tool it runs, whose committed output folders go before the first build.
    pub builds: Option<BuildTool>,
    /// Reads the reference as a folder on disk (a revision must be written out for it).
    pub reads_reference_folder: bool,
    /// Replayed from the first job of a split run (`--resume`): it runs subject code or reads
    /// the workspace as subject code left it.
    pub replayed_on_resume: bool,
    /// What it reads of the workspace's own files (the snapshot rule's input).
    pub reads: WorkspaceReads,
    /// What of the files subject code adds is kept for it (the baseline guard's input).
    pub keeps: Keeps,
    /// Where its findings go in the report's `diffs`.
    pub diff: Option<DiffSection>,
    /// A FAIL of it says the change is incomplete or wrong (the diagnosis's `execution` rule).
    pub fail_reports_the_change: bool,
}

impl Facts {
    /// Whether it runs the pull request's code.
    pub fn runs_subject_code(&self) -> bool {
        self.phase == crate::judgment::Phase::Build
    }
}

/// One check type: its family, keys, documentation, default limit, reader and facts.
pub struct CheckInfo {
    /// Its family.
    pub family: Family,
    /// What the stages after loading need to know of it.
    pub facts: Facts,
    /// Keys specific to this type.
    pub keys: &'static [Key],
    /// One sentence for help and the schema.
    pub doc: &'static str,
    /// The run-time limit when the check sets none.
    pub default_timeout: Duration,
    /// Reads a check of this type; `None` for a type the run adds itself, which a config
    /// cannot name.
    pub read: Option<ReadFn>,
}

impl CheckType {
    /// The `type:` token (`import-diff`).
    pub fn token(self) -> &'static str {
        self.into()
    }

    /// The family the type belongs to.
    pub fn family(self) -> Family {
        self.info().family
    }

    /// The type's facts.
    pub fn facts(self) -> &'static Facts {
        &self.info().facts
    }

    /// Whether a check of this type asks a model (its family is the semantic one).
    pub fn asks_model(self) -> bool {
        self.family() == Family::Semantic
    }
}

/// Keys every check takes.
#[rustfmt::skip]
pub const COMMON_KEYS: &[Key] = &[
    key("type", Kind::Str, "the check type"),
    key("name", Kind::Str, "seat name; default: the type, deduplicated -2, -3, …"),
    key("weight", Kind::Number, "finite, ≥ 0; default 1.0 (used by weighted-average)"),
    key("timeout", Kind::Duration, "ISO-8601 limit for this check"),
    key("description", Kind::Str, "what the check is for"),
    key("not-applicable-when", Kind::Str, "declares when the judge may answer NOT_APPLICABLE"),
];

/// The types a config may name, in documentation order, with their entries.
pub fn catalog() -> impl Iterator<Item = (CheckType, &'static CheckInfo)> {
    CheckType::iter()
        .map(|t| (t, t.info()))
        .filter(|(_, i)| i.read.is_some())
}

/// The entry of a type a config may name (`None` for the types the run adds itself).
pub fn check_info(ty: CheckType) -> Option<&'static CheckInfo> {
    Some(ty.info()).filter(|i| i.read.is_some())
}

/// Every key a check of this type accepts (common, type-specific, and model keys for
/// semantic types).
pub fn keys_of(t: &CheckInfo) -> Vec<Key> {
    let mut all: Vec<Key> = COMMON_KEYS.to_vec();
    all.extend_from_slice(t.keys);
    if t.family == Family::Semantic {
        all.extend_from_slice(super::llm::MODEL_KEYS);
    }
    all
}

/// Reads the type-specific keys of a check whose entry is `t`.
pub fn read_kind(
    r: &mut Reader,
    t: &'static CheckInfo,
    m: &MarkedMappingNode,
    whole: &Node,
    what: &str,
) -> Option<CheckKind> {
    let read = t.read?;
    read(r, &read::CheckNode { m, whole, what })
}

/// Default run time limits by type.
pub fn default_timeout(kind: &CheckKind) -> Duration {
    kind.check_type().info().default_timeout
}

/// A path inside the workspace, checked lexically: relative, no `..`, not empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspacePath(PathBuf);

/// Why a text cannot be a [`WorkspacePath`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkspacePathError {
    /// Empty or blank.
    #[error("a path must not be empty")]
    Empty,
    /// Absolute, or starting at a home folder (`~`).
    #[error("'{0}' is absolute; paths are relative to the workspace")]
    Absolute(PathBuf),
    /// Holds `..` (or a root or drive prefix inside it).
    #[error("'{0}' escapes the workspace (contains '..')")]
    Escapes(PathBuf),
}

impl WorkspacePath {
    /// Accepts `p` if it cannot leave the folder it is joined to.
    pub fn new(p: &str) -> Result<Self, WorkspacePathError> {
        let path = Path::new(p);
        if p.trim().is_empty() {
            return Err(WorkspacePathError::Empty);
        }
        if path.is_absolute() || p.starts_with('~') {
            return Err(WorkspacePathError::Absolute(path.to_path_buf()));
        }
        if path.components().any(|c| {
            matches!(
                c,
                Component::ParentDir | Component::Prefix(_) | Component::RootDir
            )
        }) {
            return Err(WorkspacePathError::Escapes(path.to_path_buf()));
        }
        Ok(WorkspacePath(path.to_path_buf()))
    }

    /// The relative path.
    pub fn as_path(&self) -> &Path {
        &self.0
    }
}

/// The validated parameters of one check, by type.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckKind {
    /// `file-exists`.
    FileExists {
        /// The file.
        path: WorkspacePath,
    },
    /// `file-content`.
    FileContent {
        /// The file.
        path: WorkspacePath,
        /// Expected text or pattern.
        expected: String,
        /// How to compare.
        mode: MatchMode,
    },
    /// `command`.
    Command {
        /// What to run.
        run: CommandLine,
        /// Expected exit code.
        expect_exit: i32,
        /// Extra environment.
        env: Vec<(String, String)>,
        /// Working folder inside the workspace.
        dir: Option<WorkspacePath>,
    },
    /// `maven-build`.
    MavenBuild {
        /// Goals.
        goals: Vec<String>,
        /// Extra arguments.
        args: Vec<String>,
    },
    /// `gradle-build`.
    GradleBuild {
        /// Tasks.
        tasks: Vec<String>,
        /// Extra arguments.
        args: Vec<String>,
    },
    /// `class-version`.
    ClassVersion {
        /// Expected major version; else metadata `targetClassVersion`.
        target: Option<u16>,
        /// Classes folder.
        dir: WorkspacePath,
    },
    /// `coverage-preservation`.
    CoveragePreservation {
        /// Allowed drop in points.
        max_drop: f64,
        /// JaCoCo XML.
        report: WorkspacePath,
        /// Baseline; else metadata `baselineCoverage`.
        baseline: Option<Baseline>,
    },
    /// `coverage-improvement`.
    CoverageImprovement {
        /// Improvement in points that scores 1.0.
        max_improvement: f64,
        /// Minimum line coverage in percent (0 = none).
        minimum_line_coverage: f64,
        /// JaCoCo XML.
        report: WorkspacePath,
        /// Baseline; else metadata `baselineCoverage`.
        baseline: Option<Baseline>,
    },
    /// `external`.
    External {
        /// What to run.
        run: CommandLine,
        /// Extra environment.
        env: Vec<(String, String)>,
    },
    /// `import-diff`.
    ImportDiff {
        /// Which files (globs over workspace-relative paths).
        files: FileSet,
        /// The languages read (a file in the one its extension names, else the first).
        languages: Vec<crate::lang::Language>,
        /// Imports that must not appear anywhere in the workspace, nor be named in full in its
        /// code.
        forbid: Vec<String>,
        /// Imports that must appear somewhere in the workspace.
        require: Vec<String>,
    },
    /// `ast-diff`.
    AstDiff {
        /// Which files.
        files: FileSet,
        /// The languages read (a file in the one its extension names, else the first).
        languages: Vec<crate::lang::Language>,
        /// What is compared.
        aspects: Vec<AstAspect>,
    },
    /// `pom-diff`.
    PomDiff {
        /// What is compared.
        aspects: Vec<PomAspect>,
        /// Versions are not compared.
        ignore_versions: bool,
    },
    /// `file-comparison`.
    FileComparison {
        /// Which files.
        files: FileSet,
    },
    /// `test-invariance`.
    TestInvariance {
        /// Surefire report folder.
        reports: WorkspacePath,
    },
    /// `protected-paths`: not configurable; added to the first tier by the run when the pull
    /// request changes a protected path and `protected-action` is `fail`.
    ProtectedPaths {
        /// Each change: "path (modified; protected by .github/**)".
        changes: Vec<String>,
        /// Code the pull request makes run at build or test time (`build-code-added`
        /// findings with file and line), when the run adds this check for them.
        findings: Vec<crate::judgment::Finding>,
        /// Files the pull request changes that no check reads, when the run adds this check
        /// for them (`unjudged-action: fail`).
        unjudged: Vec<String>,
    },
    /// A semantic check: a question for a model.
    Semantic {
        /// What it asks.
        question: Question,
        /// Its own model settings (over the config's `llm:`).
        llm: Box<LlmSettings>,
        /// A prompt template replacing the built-in one: its path and text.
        prompt: Option<(PathBuf, String)>,
    },
}

impl CheckKind {
    /// The facts of the check's type.
    pub fn facts(&self) -> &'static Facts {
        self.check_type().facts()
    }

    /// Which sources a check whose facts say [`WorkspaceReads::Sources`] selects.
    pub fn sources(&self) -> Option<SourceSelection<'_>> {
        match self {
            CheckKind::ImportDiff { files, .. }
            | CheckKind::AstDiff { files, .. }
            | CheckKind::FileComparison { files } => Some(SourceSelection::Files(files)),
            CheckKind::PomDiff { .. } => Some(SourceSelection::Poms),
            CheckKind::FileExists { path } | CheckKind::FileContent { path, .. } => {
                Some(SourceSelection::Path(path))
            }
            CheckKind::Command { .. }
            | CheckKind::MavenBuild { .. }
            | CheckKind::GradleBuild { .. }
            | CheckKind::ClassVersion { .. }
            | CheckKind::CoveragePreservation { .. }
            | CheckKind::CoverageImprovement { .. }
            | CheckKind::External { .. }
            | CheckKind::TestInvariance { .. }
            | CheckKind::ProtectedPaths { .. }
            | CheckKind::Semantic { .. } => None,
        }
    }

    /// What the guard keeps for the check of what subject code adds: its
    /// [`Facts::keeps`], with the build tool or paths that fact points at.
    pub fn kept(&self) -> Vec<Kept<'_>> {
        let facts = self.facts();
        match facts.keeps {
            Keeps::Nothing => Vec::new(),
            Keeps::ItsBuildOutputs => facts.builds.into_iter().map(Kept::OutputsOf).collect(),
            Keeps::AnyBuildOutputs => BuildTool::iter().map(Kept::OutputsOf).collect(),
            Keeps::WhatItReads => self.workspace_paths().into_iter().map(Kept::Path).collect(),
        }
    }

    /// Every workspace path the check names (a file it reads, a command's folder, a class
    /// folder, a coverage report, a test-report folder), which the preflight refuses when it
    /// leads out of the workspace through a symlink.
    pub fn workspace_paths(&self) -> Vec<&WorkspacePath> {
        match self {
            CheckKind::FileExists { path } | CheckKind::FileContent { path, .. } => vec![path],
            CheckKind::Command { dir, .. } => dir.iter().collect(),
            CheckKind::ClassVersion { dir, .. } => vec![dir],
            CheckKind::CoveragePreservation { report, .. }
            | CheckKind::CoverageImprovement { report, .. } => vec![report],
            CheckKind::TestInvariance { reports } => vec![reports],
            CheckKind::MavenBuild { .. }
            | CheckKind::GradleBuild { .. }
            | CheckKind::External { .. }
            | CheckKind::ImportDiff { .. }
            | CheckKind::AstDiff { .. }
            | CheckKind::PomDiff { .. }
            | CheckKind::FileComparison { .. }
            | CheckKind::ProtectedPaths { .. }
            | CheckKind::Semantic { .. } => Vec::new(),
        }
    }

    /// The check's own model settings, for a check that asks a model.
    pub fn llm_settings(&self) -> Option<&LlmSettings> {
        match self {
            CheckKind::Semantic { llm, .. } => Some(llm.as_ref()),
            CheckKind::FileExists { .. }
            | CheckKind::FileContent { .. }
            | CheckKind::Command { .. }
            | CheckKind::MavenBuild { .. }
            | CheckKind::GradleBuild { .. }
            | CheckKind::ClassVersion { .. }
            | CheckKind::CoveragePreservation { .. }
            | CheckKind::CoverageImprovement { .. }
            | CheckKind::External { .. }
            | CheckKind::ImportDiff { .. }
            | CheckKind::AstDiff { .. }
            | CheckKind::PomDiff { .. }
            | CheckKind::FileComparison { .. }
            | CheckKind::TestInvariance { .. }
            | CheckKind::ProtectedPaths { .. } => None,
        }
    }

    /// The check type these parameters belong to.
    pub fn check_type(&self) -> CheckType {
        match self {
            CheckKind::FileExists { .. } => CheckType::FileExists,
            CheckKind::FileContent { .. } => CheckType::FileContent,
            CheckKind::Command { .. } => CheckType::Command,
            CheckKind::MavenBuild { .. } => CheckType::MavenBuild,
            CheckKind::GradleBuild { .. } => CheckType::GradleBuild,
            CheckKind::ClassVersion { .. } => CheckType::ClassVersion,
            CheckKind::CoveragePreservation { .. } => CheckType::CoveragePreservation,
            CheckKind::CoverageImprovement { .. } => CheckType::CoverageImprovement,
            CheckKind::External { .. } => CheckType::External,
            CheckKind::ImportDiff { .. } => CheckType::ImportDiff,
            CheckKind::AstDiff { .. } => CheckType::AstDiff,
            CheckKind::PomDiff { .. } => CheckType::PomDiff,
            CheckKind::FileComparison { .. } => CheckType::FileComparison,
            CheckKind::TestInvariance { .. } => CheckType::TestInvariance,
            CheckKind::ProtectedPaths { .. } => CheckType::ProtectedPaths,
            CheckKind::Semantic { question, .. } => match question {
                Question::Llm { .. } => CheckType::Llm,
                Question::TestQuality => CheckType::TestQualityLlm,
                Question::SemanticDiff { .. } => CheckType::SemanticDiff,
                Question::Correctness => CheckType::Correctness,
                Question::Roster {
                    kind: RosterKind::Ears,
                    ..
                } => CheckType::Ears,
                Question::Roster {
                    kind: RosterKind::Rfc2119,
                    ..
                } => CheckType::Rfc2119,
            },
        }
    }
}

/// Suggests the nearest known type for an unknown one.
pub fn suggest_type(name: &str) -> String {
    let known: Vec<&str> = catalog().map(|(t, _)| t.token()).collect();
    match nearest(name, known.iter().copied()) {
        Some(n) => format!("did you mean '{n}'? known types: {}", known.join(", ")),
        None => format!("known types: {}", known.join(", ")),
    }
}

/// Validates the `duration` of a `timeout` key.
pub fn timeout(r: &mut Reader, n: &Node, what: &str) -> Option<Duration> {
    let s = r.string(n, what)?;
    match parse_duration(&s) {
        Ok(d) => Some(d),
        Err(e) => {
            r.error(n, format!("{what}: {e}"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_paths_cannot_escape() {
        assert!(WorkspacePath::new("src/Main.java").is_ok());
        assert!(WorkspacePath::new("./pom.xml").is_ok());
        for escaping in ["../x", "a/../../x"] {
            assert_eq!(
                WorkspacePath::new(escaping),
                Err(WorkspacePathError::Escapes(escaping.into()))
            );
        }
        for absolute in ["/etc/passwd", "~/x"] {
            assert_eq!(
                WorkspacePath::new(absolute),
                Err(WorkspacePathError::Absolute(absolute.into()))
            );
        }
        assert_eq!(WorkspacePath::new(""), Err(WorkspacePathError::Empty));
        assert_eq!(
            WorkspacePath::new("../x").unwrap_err().to_string(),
            "'../x' escapes the workspace (contains '..')"
        );
    }

    /// The facts of every entry hold together: a build tool only on a check that runs subject
    /// code, diff sections only on structural checks, a check that reads the workspace as
    /// submitted (the snapshot: structural and file checks) runs no subject code, and a check
    /// that asks a model reads the reference folder (to show the model the difference).
    #[test]
    fn every_entry_s_facts_hold_together() {
        use crate::judgment::Phase;
        for t in CheckType::iter() {
            let f = t.facts();
            assert!(f.builds.is_none() || f.phase == Phase::Build, "{t}");
            assert!(
                f.reads != WorkspaceReads::Sources || !f.runs_subject_code(),
                "{t}"
            );
            assert!(f.diff.is_none() || t.family() == Family::Structural, "{t}");
            assert!(!t.asks_model() || f.reads_reference_folder, "{t}");
            // What is kept for a check: a build's outputs for a check that runs a build tool,
            // any build's for one that runs the config's program; the paths it reads for a
            // check that reads what builds leave and runs no code.
            assert_eq!(f.keeps == Keeps::ItsBuildOutputs, f.builds.is_some(), "{t}");
            assert!(
                f.keeps != Keeps::AnyBuildOutputs || f.runs_subject_code(),
                "{t}"
            );
            // (test-invariance reads the reports folder and runs subject code: the oracle.)
            assert!(
                f.keeps != Keeps::WhatItReads || f.reads == WorkspaceReads::Outputs,
                "{t}"
            );
            // What runs subject code is replayed on resume, never run twice.
            assert!(!f.runs_subject_code() || f.replayed_on_resume, "{t}");
            // A structural check that reads the sources as submitted is judged again on
            // resume, from the snapshot (a file check, which reads the snapshot too, may take
            // the first job's judgment: both read the files as submitted).
            assert!(
                f.reads != WorkspaceReads::Sources
                    || t.family() != Family::Structural
                    || !f.replayed_on_resume,
                "{t}"
            );
        }
    }

    #[test]
    fn check_type_tokens_are_the_config_tokens() {
        use strum::IntoEnumIterator;
        assert_eq!(CheckType::ImportDiff.to_string(), "import-diff");
        assert_eq!(CheckType::TestQualityLlm.token(), "test-quality-llm");
        assert_eq!(CheckType::Rfc2119.token(), "rfc2119");
        for t in CheckType::iter() {
            assert_eq!(t.token().parse::<CheckType>(), Ok(t));
            // Every type but the run's own protected-paths is configurable.
            assert_eq!(
                check_info(t).is_some(),
                t != CheckType::ProtectedPaths,
                "{t}"
            );
        }
    }
}
