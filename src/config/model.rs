//! The validated configuration: what the rest of judge-ci reads. Built only by the loader.

use serde_json::{Map, Value};
use std::path::PathBuf;
use std::time::Duration;

use crate::jury::TierPolicy;
use crate::jury::strategies::StrategySpec;

use super::checks::CheckKind;
use super::diag::Loc;
use super::llm::LlmSettings;

/// A benchmark (`judge-ci.yml`, or agent-bench's `benchmark.yaml`).
#[derive(Clone, Debug)]
pub struct Benchmark {
    /// The file it was read from.
    pub path: PathBuf,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
    /// `schema`, if given.
    pub schema: Option<String>,
    /// `name`; keys the sticky comment.
    pub name: String,
    /// `version` ("1.0").
    pub version: String,
    /// `description`.
    pub description: Option<String>,
    /// `default-timeout` (PT5M): the limit of task `setup` and `post` commands.
    pub default_timeout: Duration,
    /// `metadata`, passed to every judge (task metadata overrides per key).
    pub metadata: Map<String, Value>,
    /// `reference`, where the reference comes from when the command line does not say.
    pub reference: Option<ReferenceSpec>,
    /// `base`, the tree the change starts from: the trusted tests run on it too, so they split
    /// into FAIL_TO_PASS and PASS_TO_PASS (`docs/test-oracle.md`).
    pub base: Option<ReferenceSpec>,
    /// The jury.
    pub jury: JurySpec,
    /// `report` settings.
    pub report: ReportSettings,
    /// `llm` defaults for semantic checks.
    pub llm: LlmSettings,
    /// `diagnostics`: the gap analysis's inputs and user rules.
    pub diagnostics: super::diagnostics::DiagnosticsSettings,
    /// `protected`: globs of paths whose change by the pull request is a finding; `None`
    /// means the defaults ([`default_protected`]), a list adds to [`ALWAYS_PROTECTED`]
    /// ([`protected_globs`]). The config and the files it names are protected whatever this
    /// says.
    pub protected: Option<Vec<String>>,
    /// `protected-action`.
    pub protected_action: ProtectedAction,
    /// `unjudged-action`: what a changed file no check reads does (the same two choices).
    pub unjudged_action: ProtectedAction,
    /// `restore`: globs of files copied from the reference into the workspace before judging.
    pub restore: Vec<String>,
    /// Where the config and the files it names were read from; later reads of config-side
    /// files (the report template, knowledge folders) go through it too.
    pub source: std::sync::Arc<super::source::ConfigSource>,
    /// `sandbox`: what the fence around subject processes adds.
    pub sandbox: super::sandbox::SandboxSettings,
}

/// The build wrappers and their settings: a pull request could switch its tests off there
/// (`.mvn/maven.config`, `org.gradle.jvmargs=-javaagent:…` in `gradle.properties`, an
/// `includeBuild` in `settings.gradle`), so they are protected by default,
/// and a build runs with the trusted tree's copies (Gradle's as Maven's: attack finding NC16).
pub const BUILD_FILES: &[&str] = &[
    "mvnw",
    "mvnw.cmd",
    ".mvn/**",
    "gradlew",
    "gradlew.bat",
    "gradle/wrapper/**",
    "gradle.properties",
    "settings.gradle",
    "settings.gradle.kts",
    // Which compiler, linker and runner cargo uses (attack finding N7-8), as `.mvn/` says
    // how Maven runs.
    "rust-toolchain",
    "rust-toolchain.toml",
    ".cargo/config",
    ".cargo/config.toml",
];

/// The paths protected whatever `protected:` lists: the workflows and actions. In a
/// `pull_request` run they are the workflow that runs judge-ci, so a list that leaves them out
/// would let the pull request rewrite its own gate unnoticed (attack finding B11-14).
pub const ALWAYS_PROTECTED: &[&str] = &[".github/**"];

/// The paths protected when the config does not list its own: the workflows, the build
/// wrappers ([`BUILD_FILES`]) and the build settings.
pub fn default_protected() -> Vec<String> {
    ALWAYS_PROTECTED
        .iter()
        .chain(BUILD_FILES)
        .copied()
        .map(str::to_string)
        .collect()
}

/// The globs a run protects for a config's `protected:` (`None`: not given): the defaults,
/// or what it lists added to [`ALWAYS_PROTECTED`], never instead of it.
pub fn protected_globs(listed: Option<&[String]>) -> Vec<String> {
    match listed {
        None => default_protected(),
        Some(list) => {
            let mut globs: Vec<String> = ALWAYS_PROTECTED.iter().map(|g| g.to_string()).collect();
            for g in list {
                if !globs.contains(g) {
                    globs.push(g.clone());
                }
            }
            globs
        }
    }
}

/// What a change to a protected path does (`protected-action`).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    strum::Display,
    strum::EnumIter,
    strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum ProtectedAction {
    /// A finding in the report only (the default).
    #[default]
    Report,
    /// Also a FAIL judgment `protected-paths` in the first tier.
    Fail,
}

/// Where the reference comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReferenceSpec {
    /// A folder, resolved against the config file's folder.
    Path(PathBuf),
    /// A git revision, optionally of another repository.
    Rev {
        /// The revision (`origin/solution`, a tag, a SHA).
        rev: String,
        /// Another repository's URL.
        repository: Option<String>,
    },
}

/// The jury's shape.
#[derive(Clone, Debug)]
pub enum JurySpec {
    /// `tiers:` → a cascaded jury.
    Tiers(Vec<TierSpec>),
    /// `checks:` → one simple jury (all-must-pass unless `voting` says otherwise).
    Checks {
        /// How the checks are reduced.
        voting: StrategySpec,
        /// Run the checks concurrently (true) or one after another in order.
        parallel: bool,
        /// The checks.
        checks: Vec<CheckSpec>,
    },
    /// `members:` → a meta-jury over named sub-juries.
    Members {
        /// How member aggregates are reduced.
        voting: StrategySpec,
        /// The members.
        members: Vec<MemberSpec>,
    },
}

impl JurySpec {
    /// Every check of the jury, at any depth (tiers, members), in config order.
    pub fn all_checks(&self) -> Vec<&CheckSpec> {
        match self {
            JurySpec::Checks { checks, .. } => checks.iter().collect(),
            JurySpec::Tiers(t) => t.iter().flat_map(|t| &t.checks).collect(),
            JurySpec::Members { members, .. } => {
                members.iter().flat_map(|m| m.jury.all_checks()).collect()
            }
        }
    }

    /// The jury's semantic checks (those that ask a model) as one flat jury, each judged on
    /// its own (`judge-ci calibrate` reads every check's own judgment, not the rollup), only
    /// those named in `only` when it is given (the others are never asked); `None` when there
    /// is none. Two semantic checks of one name (in different tiers or members) are refused:
    /// a judgment is found by its check's name.
    pub fn semantic_only(
        &self,
        only: Option<&[String]>,
    ) -> Result<Option<JurySpec>, DuplicateSemanticName> {
        let all: Vec<&CheckSpec> = self
            .all_checks()
            .into_iter()
            .filter(|c| c.check_type().asks_model())
            .collect();
        let checks: Vec<CheckSpec> = all
            .iter()
            .filter(|c| only.is_none_or(|names| names.contains(&c.name)))
            .map(|c| (*c).clone())
            .collect();
        let mut names = std::collections::BTreeSet::new();
        for c in &all {
            if !names.insert(c.name.as_str()) {
                return Err(DuplicateSemanticName(c.name.clone()));
            }
        }
        Ok((!checks.is_empty()).then(|| JurySpec::Checks {
            voting: StrategySpec::defaults(crate::jury::strategies::StrategyKind::AllMustPass),
            parallel: true,
            checks,
        }))
    }
}

/// Two semantic checks of one name: a judgment is found by its check's name, so a run of the
/// semantic checks alone (`calibrate`, `--semantic-only`) cannot tell them apart.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("two semantic checks are named `{0}`; give each its own `name:`")]
pub struct DuplicateSemanticName(pub String);

/// One cascade tier.
#[derive(Clone, Debug)]
pub struct TierSpec {
    /// Unique name (`tier-N` by default).
    pub name: String,
    /// Stop policy.
    pub policy: TierPolicy,
    /// How the tier's checks are reduced (majority by default).
    pub voting: StrategySpec,
    /// Run the checks concurrently (true, the default) or one after another in order, for
    /// checks that read what an earlier one produced (a build's class files).
    pub parallel: bool,
    /// The checks.
    pub checks: Vec<CheckSpec>,
    /// Where the tier is defined.
    pub loc: Option<Loc>,
}

/// One meta-jury member.
#[derive(Clone, Debug)]
pub struct MemberSpec {
    /// Unique member name.
    pub name: String,
    /// Its jury.
    pub jury: JurySpec,
    /// Where the member is defined.
    pub loc: Option<Loc>,
}

/// One check (a judge's seat).
#[derive(Clone, Debug)]
pub struct CheckSpec {
    /// The seat name (unique within its jury).
    pub name: String,
    /// Weight for weighted-average.
    pub weight: f64,
    /// Run-time limit.
    pub timeout: Duration,
    /// What it is for.
    pub description: Option<String>,
    /// When it may answer NOT_APPLICABLE.
    pub not_applicable_when: Option<String>,
    /// Type-specific parameters.
    pub kind: CheckKind,
    /// Where the check is defined.
    pub loc: Option<Loc>,
}

impl CheckSpec {
    /// The check's type (from its parameters, so the two never disagree).
    pub fn check_type(&self) -> super::checks::CheckType {
        self.kind.check_type()
    }
}

/// When the run's exit code says "fail" (`report.fail-on`, `--fail-on`).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    clap::ValueEnum,
    strum::Display,
    strum::EnumIter,
    strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum FailOn {
    /// A REJECTED (or NOT_ASSESSED) reading fails, and so does an ERROR the subject can
    /// cause (a time limit its code ran into, failed task commands; exit 3); only an ERROR of
    /// judge-ci's own instrument (a tool or provider missing) is waived.
    Fail,
    /// Anything but ACCEPTED or NOT_APPLICABLE fails (UNDECIDED too); ERRORs as for fail.
    NotPass,
    /// Never fail the step, whatever the reading or ERROR; the report still says what
    /// happened.
    Never,
    /// As fail, and any ERROR (a judge or tier that could not run) fails too, with exit 3: a
    /// pull request can make a tier ERROR on purpose (the default inside GitHub Actions).
    Error,
}

/// How the sticky comment is maintained (`report.comment`, `--comment-mode`).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    clap::ValueEnum,
    strum::Display,
    strum::EnumIter,
    strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum CommentMode {
    /// Edit the existing comment (default).
    Update,
    /// Delete and post anew.
    Recreate,
    /// Minimise the old one and post anew.
    Minimize,
    /// No comment.
    Off,
}

/// `report:` settings.
#[derive(Clone, Debug)]
pub struct ReportSettings {
    /// Title shown in the headline (default: the config name).
    pub title: Option<String>,
    /// Sticky comment mode.
    pub comment: CommentMode,
    /// Delete the sticky comment (post none) when the PR is accepted.
    pub delete_on_pass: bool,
    /// Whether to create a check run.
    pub check_run: bool,
    /// Most annotations.
    pub annotations: usize,
    /// When the exit code fails.
    pub fail_on: Option<FailOn>,
    /// Markdown template override, resolved against the config file's folder.
    pub template: Option<PathBuf>,
    /// The check run's name instead of `judge-ci / <name>` (`check-name`).
    pub check_name: Option<String>,
    /// The sticky comment's key instead of the config name (`comment-key`).
    pub comment_key: Option<String>,
    /// How much of the reference reaches the surfaces the PR author reads (top-level
    /// `reveal:`, see [`Reveal`]).
    pub reveal: Reveal,
}

impl Default for ReportSettings {
    fn default() -> Self {
        ReportSettings {
            title: None,
            comment: CommentMode::Update,
            delete_on_pass: false,
            check_run: true,
            annotations: 50,
            fail_on: None,
            template: None,
            check_name: None,
            comment_key: None,
            reveal: Reveal::default(),
        }
    }
}

/// How much of the reference reaches the surfaces the pull request's author can read (the
/// comment, the check run and its annotations, the job summary, JUnit, SARIF, HTML and the
/// report JSON), trust.md point 23: where the reference is an answer key (an agent
/// benchmark, a hidden solution), its text must not come back to the subject through the
/// report. Applied once, where the report becomes its surfaces ([`crate::report::reveal`]).
///
/// The default is [`Reveal::Full`]: the documented setup keeps the reference on a branch or in
/// a folder of the same repository, which the author can read anyway, so withholding its
/// lines there protects nothing and takes from the author the one line that says what to
/// write. A reference that is an answer key already needs a config written for it (the
/// reference outside the workspace's repository, README "Quick start"), and that config says
/// `names` or `none`; the agent-benchmark fixtures say `none`.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    strum::Display,
    strum::EnumIter,
    strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(rename_all = "kebab-case")]
pub enum Reveal {
    /// Everything: the reference's lines in the diff sections, "expected" evidence, the
    /// judges' reasoning as they wrote it (the default).
    #[default]
    Full,
    /// What differs and where (file, line, kind of difference, the subject's own text),
    /// never the reference's text: "expected" values are dropped, and every word of the
    /// reference the workspace does not hold is cut from free text (reasoning, messages,
    /// model answers, gap evidence).
    Names,
    /// Tiers, statuses and counts: no findings, no diff sections, no test names, no
    /// reasoning but for instrument errors (themselves cut like `names`).
    None,
}

super::token::strum_tokens!(ProtectedAction, FailOn, CommentMode, Reveal);

/// A task (`bench.task.v1`).
#[derive(Clone, Debug)]
pub struct Task {
    /// The file.
    pub path: PathBuf,
    /// `id`.
    pub id: String,
    /// `instruction`: the goal.
    pub instruction: String,
    /// `difficulty`.
    pub difficulty: Option<String>,
    /// `timeout` (the agent's limit in agent-bench).
    pub timeout: Option<Duration>,
    /// `metadata`, passed to judges.
    pub metadata: Map<String, Value>,
    /// `setup` commands, run in the workspace before judging.
    pub setup: Vec<String>,
    /// `post` commands, run in the workspace before judging (after setup).
    pub post: Vec<String>,
}
