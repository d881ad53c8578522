//! The check catalog: every `type` a check may have, the keys each takes, and their typed,
//! validated form. Judges are built from [`CheckKind`]; nothing downstream reads raw YAML.

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use super::duration::parse_duration;
use super::llm::{
    CriteriaSource, Injection, LlmOutput, LlmSettings, Provider, Question, RosterItem, RosterKind,
};
use super::token;
use super::yaml::{Key, Kind, Reader, key, nearest};

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

/// Every check type judge-ci knows: the `type:` token of a check, one variant per type. The
/// strum derives give the token (kebab-case, `import-diff`) for parsing, Display and the
/// schema, so no other place spells the tokens.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::Display,
    strum::AsRefStr,
    strum::EnumString,
    strum::EnumIter,
    strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum CheckType {
    /// `file-exists`.
    FileExists,
    /// `file-content`.
    FileContent,
    /// `command`.
    Command,
    /// `maven-build`.
    MavenBuild,
    /// `gradle-build`.
    GradleBuild,
    /// `class-version`.
    ClassVersion,
    /// `coverage-preservation`.
    CoveragePreservation,
    /// `coverage-improvement`.
    CoverageImprovement,
    /// `external`.
    External,
    /// `import-diff`.
    ImportDiff,
    /// `ast-diff`.
    AstDiff,
    /// `pom-diff`.
    PomDiff,
    /// `file-comparison`.
    FileComparison,
    /// `test-invariance`.
    TestInvariance,
    /// `protected-paths`: added by the run, never written in a config.
    ProtectedPaths,
    /// `llm`.
    Llm,
    /// `test-quality-llm`.
    TestQualityLlm,
    /// `semantic-diff`.
    SemanticDiff,
    /// `correctness`.
    Correctness,
    /// `ears`.
    Ears,
    /// `rfc2119`.
    Rfc2119,
}

impl CheckType {
    /// The `type:` token (`import-diff`).
    pub fn token(self) -> &'static str {
        self.into()
    }

    /// The family the type belongs to.
    pub fn family(self) -> Family {
        match self {
            CheckType::FileExists
            | CheckType::FileContent
            | CheckType::Command
            | CheckType::MavenBuild
            | CheckType::GradleBuild
            | CheckType::ClassVersion
            | CheckType::CoveragePreservation
            | CheckType::CoverageImprovement
            | CheckType::External
            | CheckType::ProtectedPaths => Family::Deterministic,
            CheckType::ImportDiff
            | CheckType::AstDiff
            | CheckType::PomDiff
            | CheckType::FileComparison
            | CheckType::TestInvariance => Family::Structural,
            CheckType::Llm
            | CheckType::TestQualityLlm
            | CheckType::SemanticDiff
            | CheckType::Correctness
            | CheckType::Ears
            | CheckType::Rfc2119 => Family::Semantic,
        }
    }
}

/// One check type a config may name: its keys and documentation.
pub struct CheckInfo {
    /// The type.
    pub ty: CheckType,
    /// Keys specific to this type.
    pub keys: &'static [Key],
    /// One sentence for help and the schema.
    pub doc: &'static str,
}

/// Keys every check takes.
pub const COMMON_KEYS: &[Key] = &[
    key("type", Kind::Str, "the check type"),
    key(
        "name",
        Kind::Str,
        "seat name; default: the type, deduplicated -2, -3, …",
    ),
    key(
        "weight",
        Kind::Number,
        "finite, ≥ 0; default 1.0 (used by weighted-average)",
    ),
    key("timeout", Kind::Duration, "ISO-8601 limit for this check"),
    key("description", Kind::Str, "what the check is for"),
    key(
        "not-applicable-when",
        Kind::Str,
        "declares when the judge may answer NOT_APPLICABLE",
    ),
];

const LLM_KEYS: &[Key] = &[
    key(
        "prompt",
        Kind::Str,
        "prompt template file, relative to the config file",
    ),
    key("model", Kind::Str, "model name"),
    key(
        "provider",
        Kind::Enum(token::accepted::<Provider>),
        "model provider",
    ),
    key("base-url", Kind::Str, "provider endpoint"),
    key(
        "api-key-env",
        Kind::Str,
        "environment variable holding the API key",
    ),
    key("max-output-tokens", Kind::Integer, "output token limit"),
    key("temperature", Kind::Number, "sampling temperature"),
    key(
        "injection",
        Kind::Enum(token::accepted::<Injection>),
        "what text in the PR addressed to the grader does to the judgment (abstain)",
    ),
];

macro_rules! keys {
    ($($k:expr),* $(,)?) => { &[$($k),*] };
}

/// Every check type judge-ci knows, in documentation order.
pub const CATALOG: &[CheckInfo] = &[
    CheckInfo {
        ty: CheckType::FileExists,
        doc: "PASS if the path is a regular file in the workspace",
        keys: keys![key("path", Kind::Str, "path relative to the workspace")],
    },
    CheckInfo {
        ty: CheckType::FileContent,
        doc: "PASS if the file's content matches",
        keys: keys![
            key("path", Kind::Str, "path relative to the workspace"),
            key("expected", Kind::Str, "expected text or pattern"),
            key(
                "match",
                Kind::Enum(token::accepted::<MatchMode>),
                "how the content is compared (EXACT; REGEX is found anywhere)"
            )
        ],
    },
    CheckInfo {
        ty: CheckType::Command,
        doc: "PASS if the command exits with the expected code",
        keys: keys![
            key(
                "run",
                Kind::CommandLine,
                "a string for sh -c, or a list of arguments"
            ),
            key("expect-exit", Kind::Integer, "expected exit code (0)"),
            key("env", Kind::StrMap, "extra environment variables"),
            key("dir", Kind::Str, "working folder relative to the workspace")
        ],
    },
    CheckInfo {
        ty: CheckType::MavenBuild,
        doc: "runs ./mvnw (if executable) or mvn; PASS on exit 0",
        keys: keys![
            key("goals", Kind::StrList, "goals ([clean, test])"),
            key("args", Kind::StrList, "extra arguments")
        ],
    },
    CheckInfo {
        ty: CheckType::GradleBuild,
        doc: "runs ./gradlew (if executable) or gradle; PASS on exit 0",
        keys: keys![
            key("tasks", Kind::StrList, "tasks ([build])"),
            key("args", Kind::StrList, "extra arguments")
        ],
    },
    CheckInfo {
        ty: CheckType::ClassVersion,
        doc: "PASS if every class file has the target major version",
        keys: keys![
            key(
                "target",
                Kind::Integer,
                "class-file major version (e.g. 65)"
            ),
            key("java", Kind::Integer, "Java release (e.g. 21 = major 65)"),
            key("dir", Kind::Str, "classes folder (target/classes)")
        ],
    },
    CheckInfo {
        ty: CheckType::CoveragePreservation,
        doc: "PASS if line coverage dropped by at most max-drop points",
        keys: keys![
            key(
                "max-drop",
                Kind::Number,
                "allowed drop in percentage points (5.0)"
            ),
            key(
                "report",
                Kind::Str,
                "JaCoCo XML (target/site/jacoco/jacoco.xml)"
            ),
            key(
                "baseline",
                Kind::Any,
                "baseline line coverage in percent, or `reference`"
            )
        ],
    },
    CheckInfo {
        ty: CheckType::CoverageImprovement,
        doc: "PASS if line coverage improved (and the minimum is met)",
        keys: keys![
            key(
                "min",
                Kind::Number,
                "improvement in points that scores 1.0 (50; agent-bench's name)"
            ),
            key(
                "minimum-line-coverage",
                Kind::Number,
                "minimum line coverage in percent (0)"
            ),
            key("report", Kind::Str, "JaCoCo XML"),
            key(
                "baseline",
                Kind::Any,
                "baseline line coverage in percent, or `reference`"
            )
        ],
    },
    CheckInfo {
        ty: CheckType::External,
        doc: "runs a program that prints one judgment as JSON",
        keys: keys![
            key(
                "run",
                Kind::CommandLine,
                "a string for sh -c, or a list of arguments"
            ),
            key("env", Kind::StrMap, "extra environment variables")
        ],
    },
    CheckInfo {
        ty: CheckType::ImportDiff,
        doc: "compares import sets per file against the reference",
        keys: keys![
            key("include", Kind::StrList, "globs (**/*.java)"),
            key("exclude", Kind::StrList, "globs"),
            key("forbid", Kind::StrList, "forbidden import patterns"),
            key("require", Kind::StrList, "required import patterns")
        ],
    },
    CheckInfo {
        ty: CheckType::AstDiff,
        doc: "compares types, members and annotations against the reference",
        keys: keys![
            key("include", Kind::StrList, "globs"),
            key("exclude", Kind::StrList, "globs"),
            key(
                "aspects",
                Kind::EnumList(token::accepted::<AstAspect>),
                "what to compare (all but bodies)"
            )
        ],
    },
    CheckInfo {
        ty: CheckType::PomDiff,
        doc: "compares effective POM coordinates against the reference",
        keys: keys![
            key(
                "aspects",
                Kind::EnumList(token::accepted::<PomAspect>),
                "what to compare (all)"
            ),
            key("ignore-versions", Kind::Bool, "ignore versions (false)")
        ],
    },
    CheckInfo {
        ty: CheckType::FileComparison,
        doc: "compares every reference file with the workspace",
        keys: keys![
            key("include", Kind::StrList, "globs"),
            key("exclude", Kind::StrList, "globs (target/**, .git/**)")
        ],
    },
    CheckInfo {
        ty: CheckType::TestInvariance,
        doc: "fails on failing tests or fewer tests than the reference",
        keys: keys![key("reports", Kind::Str, "Surefire reports folder")],
    },
    CheckInfo {
        ty: CheckType::Llm,
        doc: "asks a model for a verdict, score or criteria in a validated JSON shape",
        keys: keys![
            key("prompt", Kind::Str, "prompt template file"),
            key(
                "output",
                Kind::Enum(token::accepted::<LlmOutput>),
                "requested shape"
            ),
            key("threshold", Kind::Number, "pass threshold (0.5)")
        ],
    },
    CheckInfo {
        ty: CheckType::TestQualityLlm,
        doc: "agent-bench's test-quality rubric",
        keys: keys![key("prompt", Kind::Str, "prompt template file")],
    },
    CheckInfo {
        ty: CheckType::SemanticDiff,
        doc: "one question per criterion; score = passed/total",
        keys: keys![
            key("prompt", Kind::Str, "prompt template file"),
            key("criteria", Kind::StrList, "criteria"),
            key(
                "plan",
                Kind::Str,
                "plan file whose VERIFY: lines are criteria"
            ),
            key("max-criteria", Kind::Integer, "most criteria asked (20)")
        ],
    },
    CheckInfo {
        ty: CheckType::Correctness,
        doc: "does the change achieve the goal (strict YES/NO)",
        keys: keys![key("prompt", Kind::Str, "prompt template file")],
    },
    CheckInfo {
        ty: CheckType::Ears,
        doc: "EARS requirement roster",
        keys: keys![
            key("prompt", Kind::Str, "prompt template file"),
            key("criteria", Kind::Any, "list of {id, text, applies-when?}"),
            key("criteria-file", Kind::Str, "file holding the criteria")
        ],
    },
    CheckInfo {
        ty: CheckType::Rfc2119,
        doc: "RFC 2119 constraint roster",
        keys: keys![
            key("prompt", Kind::Str, "prompt template file"),
            key("criteria", Kind::Any, "list of {id, text, applies-when?}"),
            key("criteria-file", Kind::Str, "file holding the criteria")
        ],
    },
];

/// Looks a type up in the catalog (`None` for types a config cannot name).
pub fn check_info(ty: CheckType) -> Option<&'static CheckInfo> {
    CATALOG.iter().find(|t| t.ty == ty)
}

/// Every key a check of this type accepts (common, type-specific, and model keys for
/// semantic types).
pub fn keys_of(t: &CheckInfo) -> Vec<Key> {
    let mut all: Vec<Key> = COMMON_KEYS.to_vec();
    all.extend_from_slice(t.keys);
    if t.ty.family() == Family::Semantic {
        all.extend_from_slice(LLM_KEYS);
    }
    all
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

/// Include and exclude globs over paths relative to the tree root (`**/*.java`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSet {
    /// Globs a file must match (any).
    pub include: Vec<String>,
    /// Globs that exclude a file (any).
    pub exclude: Vec<String>,
}

/// What `ast-diff` compares (`aspects`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::Display, strum::EnumIter, strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum AstAspect {
    /// Type declarations: kind, modifiers, type parameters, supertypes.
    Types,
    /// Annotations on types, members and fields.
    Annotations,
    /// Method and constructor signatures, return types, throws, modifiers.
    Signatures,
    /// Fields: presence, type, modifiers.
    Fields,
    /// Normalised method bodies (opt-in).
    Bodies,
}

/// What `pom-diff` compares (`aspects`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::Display, strum::EnumIter, strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum PomAspect {
    /// The parent coordinates.
    Parent,
    /// Dependencies: version and scope per groupId:artifactId.
    Dependencies,
    /// Build plugins, their versions and configuration (pluginManagement applied).
    Plugins,
    /// `<properties>`.
    Properties,
    /// The Java release (maven.compiler.release/source/target, compiler plugin release).
    JavaVersion,
}

/// How `file-content` compares (`match`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::Display, strum::EnumIter, strum::IntoStaticStr,
)]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum MatchMode {
    /// The whole content equals the expected text.
    Exact,
    /// The content contains the expected text.
    Contains,
    /// The pattern is found anywhere in the content.
    Regex,
}

super::token::strum_tokens!(AstAspect, PomAspect, MatchMode);

/// A program to run: a shell line or an argument vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandLine {
    /// Run with `sh -c`.
    Shell(String),
    /// Run directly: program and arguments.
    Argv(Vec<String>),
}

/// Where a coverage baseline comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Baseline {
    /// A line-coverage percentage.
    Percent(f64),
    /// The reference's own JaCoCo report (same relative path).
    Reference,
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

/// Default run time limits by type.
pub fn default_timeout(kind: &CheckKind) -> Duration {
    match kind {
        CheckKind::MavenBuild { .. } | CheckKind::GradleBuild { .. } => Duration::from_secs(600),
        _ => Duration::from_secs(120),
    }
}

fn get<'n>(m: &'n MarkedMappingNode, k: &str) -> Option<&'n Node> {
    m.get_node(k)
}

fn path_key(
    r: &mut Reader,
    m: &MarkedMappingNode,
    k: &str,
    default: Option<&str>,
    what: &str,
) -> Option<WorkspacePath> {
    let text = match get(m, k) {
        Some(n) => {
            let s = r.string(n, &format!("{what}.{k}"))?;
            match WorkspacePath::new(&s) {
                Ok(p) => return Some(p),
                Err(e) => {
                    r.error_help(
                        n,
                        format!("{what}.{k}: {e}"),
                        "write a path relative to the workspace, without '..'",
                    );
                    return None;
                }
            }
        }
        None => default?.to_string(),
    };
    WorkspacePath::new(&text).ok()
}

fn required<'n>(
    r: &mut Reader,
    m: &'n MarkedMappingNode,
    whole: &Node,
    k: &str,
    what: &str,
) -> Option<&'n Node> {
    let n = get(m, k);
    if n.is_none() {
        r.error_help(
            whole,
            format!("{what} needs the key '{k}'"),
            format!("add `{k}: …`"),
        );
    }
    n
}

fn command_line(r: &mut Reader, n: &Node, what: &str) -> Option<CommandLine> {
    match n {
        Node::Sequence(_) => {
            let argv = r.string_list(n, what)?;
            if argv.is_empty() {
                r.error(n, format!("{what} must name a program"));
                return None;
            }
            Some(CommandLine::Argv(argv))
        }
        _ => r.non_blank(n, what).map(CommandLine::Shell),
    }
}

fn baseline(r: &mut Reader, m: &MarkedMappingNode, what: &str) -> Option<Option<Baseline>> {
    match get(m, "baseline") {
        None => Some(None),
        Some(n) if n.as_scalar().is_some_and(|s| s.as_str() == "reference") => {
            Some(Some(Baseline::Reference))
        }
        Some(n) => {
            let v = r.number(n, &format!("{what}.baseline"))?;
            if !(0.0..=100.0).contains(&v) {
                r.error_help(
                    n,
                    format!("{what}.baseline must be a percentage"),
                    "write a number from 0 to 100, or `reference`",
                );
                return None;
            }
            Some(Some(Baseline::Percent(v)))
        }
    }
}

/// Reads the type-specific keys of a check whose type is `t`.
pub fn read_kind(
    r: &mut Reader,
    t: &'static CheckInfo,
    m: &MarkedMappingNode,
    whole: &Node,
    what: &str,
) -> Option<CheckKind> {
    let list = |r: &mut Reader, k: &str, default: &[&str]| -> Option<Vec<String>> {
        match get(m, k) {
            Some(n) => r.string_list(n, &format!("{what}.{k}")),
            None => Some(default.iter().map(|s| s.to_string()).collect()),
        }
    };
    let env = |r: &mut Reader| -> Option<Vec<(String, String)>> {
        match get(m, "env") {
            Some(n) => r.string_map(n, &format!("{what}.env")),
            None => Some(Vec::new()),
        }
    };
    match t.ty {
        CheckType::FileExists => {
            required(r, m, whole, "path", what)?;
            Some(CheckKind::FileExists {
                path: path_key(r, m, "path", None, what)?,
            })
        }
        CheckType::FileContent => {
            required(r, m, whole, "path", what)?;
            let path = path_key(r, m, "path", None, what);
            let expected = required(r, m, whole, "expected", what)
                .and_then(|n| r.string(n, &format!("{what}.expected")));
            let mode = match get(m, "match") {
                Some(n) => r.token(n, &format!("{what}.match"))?,
                None => MatchMode::Exact,
            };
            let expected = expected?;
            if mode == MatchMode::Regex
                && let Err(e) = regex_lite_check(&expected)
            {
                let n = get(m, "expected")?;
                r.error(
                    n,
                    format!("{what}.expected is not a valid regular expression: {e}"),
                );
                return None;
            }
            Some(CheckKind::FileContent {
                path: path?,
                expected,
                mode,
            })
        }
        CheckType::Command => {
            let run = required(r, m, whole, "run", what)
                .and_then(|n| command_line(r, n, &format!("{what}.run")));
            let expect_exit = match get(m, "expect-exit") {
                Some(n) => {
                    let v = r.integer(n, &format!("{what}.expect-exit"))?;
                    match i32::try_from(v) {
                        Ok(v) if (0..=255).contains(&v) => v,
                        _ => {
                            r.error(
                                n,
                                format!("{what}.expect-exit must be an exit code from 0 to 255"),
                            );
                            return None;
                        }
                    }
                }
                None => 0,
            };
            let env = env(r);
            let dir = match get(m, "dir") {
                Some(_) => Some(path_key(r, m, "dir", None, what)?),
                None => None,
            };
            Some(CheckKind::Command {
                run: run?,
                expect_exit,
                env: env?,
                dir,
            })
        }
        CheckType::MavenBuild => Some(CheckKind::MavenBuild {
            goals: list(r, "goals", &["clean", "test"])?,
            args: list(r, "args", &[])?,
        }),
        CheckType::GradleBuild => Some(CheckKind::GradleBuild {
            tasks: list(r, "tasks", &["build"])?,
            args: list(r, "args", &[])?,
        }),
        CheckType::ClassVersion => {
            let mut target = None;
            if let Some(n) = get(m, "target") {
                let v = r.integer(n, &format!("{what}.target"))?;
                match u16::try_from(v) {
                    Ok(v) if v >= 45 => target = Some(v),
                    _ => {
                        r.error_help(
                            n,
                            format!("{what}.target must be a class-file major version"),
                            "e.g. 61 for Java 17, 65 for Java 21",
                        );
                        return None;
                    }
                }
            }
            if let Some(n) = get(m, "java") {
                let v = r.integer(n, &format!("{what}.java"))?;
                if target.is_some() {
                    r.error(
                        n,
                        format!("{what}: give either `target` or `java`, not both"),
                    );
                    return None;
                }
                match u16::try_from(v) {
                    Ok(v) if (1..=200).contains(&v) => {
                        target = Some(if v <= 1 { 45 } else { v + 44 })
                    }
                    _ => {
                        r.error_help(
                            n,
                            format!("{what}.java must be a Java release"),
                            "e.g. 17 or 21",
                        );
                        return None;
                    }
                }
            }
            Some(CheckKind::ClassVersion {
                target,
                dir: path_key(r, m, "dir", Some("target/classes"), what)?,
            })
        }
        CheckType::CoveragePreservation => {
            let max_drop = match get(m, "max-drop") {
                Some(n) => non_negative(r, n, &format!("{what}.max-drop"))?,
                None => 5.0,
            };
            Some(CheckKind::CoveragePreservation {
                max_drop,
                report: path_key(r, m, "report", Some("target/site/jacoco/jacoco.xml"), what)?,
                baseline: baseline(r, m, what)?,
            })
        }
        CheckType::CoverageImprovement => {
            let max_improvement = match get(m, "min") {
                Some(n) => {
                    let v = r.number(n, &format!("{what}.min"))?;
                    if v <= 0.0 {
                        r.error(n, format!("{what}.min must be positive (the improvement in points that scores 1.0)"));
                        return None;
                    }
                    v
                }
                None => 50.0,
            };
            let minimum_line_coverage = match get(m, "minimum-line-coverage") {
                Some(n) => non_negative(r, n, &format!("{what}.minimum-line-coverage"))?,
                None => 0.0,
            };
            Some(CheckKind::CoverageImprovement {
                max_improvement,
                minimum_line_coverage,
                report: path_key(r, m, "report", Some("target/site/jacoco/jacoco.xml"), what)?,
                baseline: baseline(r, m, what)?,
            })
        }
        CheckType::External => {
            let run = required(r, m, whole, "run", what)
                .and_then(|n| command_line(r, n, &format!("{what}.run")));
            let env = env(r);
            Some(CheckKind::External {
                run: run?,
                env: env?,
            })
        }
        CheckType::ImportDiff => {
            let files = file_set(r, m, &["**/*.java"], &[], what);
            let forbid = list(r, "forbid", &[]);
            let require = list(r, "require", &[]);
            Some(CheckKind::ImportDiff {
                files: files?,
                forbid: forbid?,
                require: require?,
            })
        }
        CheckType::AstDiff => {
            let files = file_set(r, m, &["**/*.java"], &[], what);
            let aspects = match get(m, "aspects") {
                Some(n) => r.token_list(n, &format!("{what}.aspects"))?,
                None => vec![
                    AstAspect::Types,
                    AstAspect::Annotations,
                    AstAspect::Signatures,
                    AstAspect::Fields,
                ],
            };
            Some(CheckKind::AstDiff {
                files: files?,
                aspects,
            })
        }
        CheckType::PomDiff => {
            let aspects = match get(m, "aspects") {
                Some(n) => r.token_list(n, &format!("{what}.aspects"))?,
                None => token::Tokens::values(),
            };
            let ignore_versions = match get(m, "ignore-versions") {
                Some(n) => r.boolean(n, &format!("{what}.ignore-versions"))?,
                None => false,
            };
            Some(CheckKind::PomDiff {
                aspects,
                ignore_versions,
            })
        }
        CheckType::FileComparison => {
            let files = file_set(r, m, &["**"], &["target/**", ".git/**"], what)?;
            Some(CheckKind::FileComparison { files })
        }
        CheckType::TestInvariance => Some(CheckKind::TestInvariance {
            reports: path_key(r, m, "reports", Some("target/surefire-reports"), what)?,
        }),
        CheckType::Llm => {
            let output = match get(m, "output") {
                Some(n) => r.token(n, &format!("{what}.output"))?,
                None => LlmOutput::Verdict,
            };
            let threshold = match get(m, "threshold") {
                Some(n) => {
                    let v = r.number(n, &format!("{what}.threshold"))?;
                    if !(0.0..=1.0).contains(&v) {
                        r.error(n, format!("{what}.threshold must be between 0 and 1"));
                        return None;
                    }
                    v
                }
                None => 0.5,
            };
            semantic(r, m, Question::Llm { output, threshold }, what)
        }
        CheckType::TestQualityLlm => semantic(r, m, Question::TestQuality, what),
        CheckType::Correctness => semantic(r, m, Question::Correctness, what),
        CheckType::SemanticDiff => {
            let criteria = match (get(m, "criteria"), get(m, "plan")) {
                (Some(_), Some(p)) => {
                    r.error_help(
                        p,
                        format!("{what} has both `criteria` and `plan`"),
                        "keep one: the listed criteria, or the plan whose VERIFY: lines are the criteria",
                    );
                    return None;
                }
                (Some(n), None) => {
                    let list = r.string_list(n, &format!("{what}.criteria"))?;
                    if list.is_empty() {
                        r.error(n, format!("{what}.criteria is empty"));
                        return None;
                    }
                    CriteriaSource::Listed(list)
                }
                (None, Some(_)) => CriteriaSource::Plan(path_key(r, m, "plan", None, what)?),
                (None, None) => CriteriaSource::Goal,
            };
            let max = match get(m, "max-criteria") {
                Some(n) => match r.integer(n, &format!("{what}.max-criteria"))? {
                    v @ 1..=200 => v as usize,
                    _ => {
                        r.error(n, format!("{what}.max-criteria must be 1 to 200"));
                        return None;
                    }
                },
                None => 20,
            };
            semantic(r, m, Question::SemanticDiff { criteria, max }, what)
        }
        CheckType::Ears | CheckType::Rfc2119 => {
            let kind = if t.ty == CheckType::Ears {
                RosterKind::Ears
            } else {
                RosterKind::Rfc2119
            };
            let items = roster(r, m, whole, what)?;
            semantic(r, m, Question::Roster { kind, items }, what)
        }
        CheckType::ProtectedPaths => {
            r.error(
                whole,
                format!("{what}: check type '{}' has no reader", t.ty),
            );
            None
        }
    }
}

/// A semantic check: its question, its model settings and its prompt template.
fn semantic(
    r: &mut Reader,
    m: &MarkedMappingNode,
    question: Question,
    what: &str,
) -> Option<CheckKind> {
    let llm = super::llm::read(r, m, what)?;
    let prompt = match get(m, "prompt") {
        Some(n) => {
            let p = r.non_blank(n, &format!("{what}.prompt"))?;
            let dir = r.file.parent().map(Path::to_path_buf).unwrap_or_default();
            let full = dir.join(&p);
            match r.source.read_to_string(&full) {
                Ok(text) => Some((full, text)),
                Err(e) => {
                    r.error_help(
                        n,
                        format!("{what}.prompt: cannot read {}: {e}", full.display()),
                        "the prompt is a minijinja template file, relative to the config file",
                    );
                    return None;
                }
            }
        }
        None => None,
    };
    Some(CheckKind::Semantic {
        question,
        llm,
        prompt,
    })
}

/// The items of an EARS or RFC 2119 roster, from `criteria` or `criteria-file`.
fn roster(
    r: &mut Reader,
    m: &MarkedMappingNode,
    whole: &Node,
    what: &str,
) -> Option<Vec<RosterItem>> {
    let value = match (get(m, "criteria"), get(m, "criteria-file")) {
        (Some(n), None) => super::yaml::to_json(n),
        (None, Some(n)) => {
            let p = r.non_blank(n, &format!("{what}.criteria-file"))?;
            let dir = r.file.parent().map(Path::to_path_buf).unwrap_or_default();
            let full = dir.join(&p);
            let text = match r.source.read_to_string(&full) {
                Ok(t) => t,
                Err(e) => {
                    r.error(
                        n,
                        format!("{what}.criteria-file: cannot read {}: {e}", full.display()),
                    );
                    return None;
                }
            };
            // The file is the list itself (`- {id: R1, text: …}`).
            let opts = marked_yaml::LoaderOptions::default().toplevel_sequence();
            match marked_yaml::parse_yaml_with_options(0, &text, opts) {
                Ok(doc) => super::yaml::to_json(&doc),
                Err(e) => {
                    r.error(n, format!("{what}.criteria-file {}: {e}", full.display()));
                    return None;
                }
            }
        }
        (Some(_), Some(n)) => {
            r.error(
                n,
                format!("{what} has both `criteria` and `criteria-file`; keep one"),
            );
            return None;
        }
        (None, None) => {
            r.error_help(
                whole,
                format!("{what} needs `criteria` or `criteria-file`"),
                "list the requirements: criteria: [{id: R1, text: \"…\", applies-when: \"…\"}]",
            );
            return None;
        }
    };
    let at = get(m, "criteria")
        .or(get(m, "criteria-file"))
        .unwrap_or(whole);
    let Some(list) = value.as_array().filter(|l| !l.is_empty()) else {
        r.error_help(
            at,
            format!("{what}: the criteria must be a non-empty list"),
            "each item is {id, text, applies-when?}",
        );
        return None;
    };
    let mut items = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, v) in list.iter().enumerate() {
        let field = |k: &str| v.get(k).and_then(serde_json::Value::as_str).map(str::trim);
        match (field("id"), field("text")) {
            (Some(id), Some(text)) if !id.is_empty() && !text.is_empty() => {
                if !id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                {
                    r.error(at, format!("{what}: criterion {} id '{id}' may hold letters, digits, '-', '_' and '.' only", i + 1));
                    return None;
                }
                if !seen.insert(id.to_string()) {
                    r.error(at, format!("{what}: criterion id '{id}' appears twice"));
                    return None;
                }
                items.push(RosterItem {
                    id: id.to_string(),
                    text: text.to_string(),
                    applies_when: field("applies-when")
                        .filter(|s| !s.is_empty())
                        .map(str::to_string),
                });
            }
            _ => {
                r.error_help(
                    at,
                    format!(
                        "{what}: criterion {} needs a non-empty `id` and `text`",
                        i + 1
                    ),
                    "each item is {id, text, applies-when?}",
                );
                return None;
            }
        }
    }
    Some(items)
}

/// `include`/`exclude` globs, each checked to compile.
fn file_set(
    r: &mut Reader,
    m: &MarkedMappingNode,
    include: &[&str],
    exclude: &[&str],
    what: &str,
) -> Option<FileSet> {
    let mut read = |k: &str, default: &[&str]| -> Option<Vec<String>> {
        let Some(n) = get(m, k) else {
            return Some(default.iter().map(|s| s.to_string()).collect());
        };
        let globs = r.string_list(n, &format!("{what}.{k}"))?;
        for g in &globs {
            if let Err(e) = globset::Glob::new(g) {
                r.error_help(
                    n,
                    format!("{what}.{k}: '{g}' is not a valid glob: {e}"),
                    "e.g. **/*.java or src/main/**",
                );
                return None;
            }
        }
        Some(globs)
    };
    let include = read("include", include);
    let exclude = read("exclude", exclude);
    Some(FileSet {
        include: include?,
        exclude: exclude?,
    })
}

fn non_negative(r: &mut Reader, n: &Node, what: &str) -> Option<f64> {
    let v = r.number(n, what)?;
    if v < 0.0 {
        r.error(n, format!("{what} must not be negative"));
        return None;
    }
    Some(v)
}

/// Validates a regular expression without keeping it (judges compile their own).
fn regex_lite_check(p: &str) -> Result<(), String> {
    regex::Regex::new(p).map(|_| ()).map_err(|e| e.to_string())
}

/// Suggests the nearest known type for an unknown one.
pub fn suggest_type(name: &str) -> String {
    let known: Vec<&str> = CATALOG.iter().map(|t| t.ty.token()).collect();
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

    #[test]
    fn every_catalog_type_is_unique() {
        let mut names: Vec<CheckType> = CATALOG.iter().map(|t| t.ty).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CATALOG.len());
    }
}
