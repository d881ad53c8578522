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

pub use command::CommandLine;
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
    /// What a build may produce (a `file-content` path, class files, reports) or nothing of
    /// the sources: read live, after the subject's code ran.
    Outputs,
    /// The sources its file set selects (the structural comparisons): read as submitted.
    Sources,
    /// Every file of the workspace (the semantic tier's material, a plan it reads): read as
    /// submitted.
    Everything,
}

/// The run-time limit of a check that sets none.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(120);
/// The run-time limit of a build that sets none.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(600);

/// Reads a check's own keys into its parameters, recording every problem in the reader.
pub type ReadFn = fn(&mut Reader, &read::CheckNode<'_>) -> Option<CheckKind>;

/// One check type: its family, keys, documentation, default limit and reader.
pub struct CheckInfo {
    /// Its family.
    pub family: Family,
    /// What it reads of the workspace's own files (the snapshot rule's input).
    pub reads: WorkspaceReads,
    /// Whether it runs the subject's code (a build, a `command`, an `external` judge), after
    /// which the live workspace is no longer the workspace as submitted.
    pub runs_subject_code: bool,
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

impl WorkspacePath {
    /// Accepts `p` if it cannot leave the folder it is joined to.
    pub fn new(p: &str) -> Result<Self, String> {
        let path = Path::new(p);
        if p.trim().is_empty() {
            return Err("a path must not be empty".into());
        }
        if path.is_absolute() || p.starts_with('~') {
            return Err(format!(
                "'{p}' is absolute; paths are relative to the workspace"
            ));
        }
        if path.components().any(|c| {
            matches!(
                c,
                Component::ParentDir | Component::Prefix(_) | Component::RootDir
            )
        }) {
            return Err(format!("'{p}' escapes the workspace (contains '..')"));
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
        /// Imports that must not appear anywhere in the workspace.
        forbid: Vec<String>,
        /// Imports that must appear somewhere in the workspace.
        require: Vec<String>,
    },
    /// `ast-diff`.
    AstDiff {
        /// Which files.
        files: FileSet,
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
    },
    /// A semantic check: a question for a model.
    Semantic {
        /// What it asks.
        question: Question,
        /// Its own model settings (over the config's `llm:`).
        llm: LlmSettings,
        /// A prompt template replacing the built-in one: its path and text.
        prompt: Option<(PathBuf, String)>,
    },
}

impl CheckKind {
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
        assert!(WorkspacePath::new("../x").is_err());
        assert!(WorkspacePath::new("a/../../x").is_err());
        assert!(WorkspacePath::new("/etc/passwd").is_err());
        assert!(WorkspacePath::new("~/x").is_err());
        assert!(WorkspacePath::new("").is_err());
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
