//! Command-line definitions (clap derive only; no behaviour here).

use clap::{Args, Parser, Subcommand, ValueEnum};
use judge_ci::pipeline::Format;
use judge_ci::report::Surface;
use std::path::PathBuf;

/// Grade a pull request against a reference implementation with a cascaded jury.
///
/// Without a subcommand, judge-ci runs the jury (`judge-ci run`).
#[derive(Debug, Parser)]
#[command(
    name = "judge-ci",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// What to do (default: run).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options of `run`, when no subcommand is given.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Where the config and task come from.
#[derive(Debug, Clone, Args)]
pub struct ConfigArgs {
    /// The config file (default: judge-ci.yml, .github/judge-ci.yml or benchmark.yaml here).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// A task file (bench.task.v1): its instruction is the goal, its metadata goes to judges.
    #[arg(long, value_name = "PATH")]
    pub task: Option<PathBuf>,
    /// Allow this variable as an `api-key-env` although its name does not end in `_API_KEY`
    /// (repeatable). Only the command line (the workflow) can allow one, never the config.
    #[arg(long, value_name = "NAME")]
    pub allow_key_env: Vec<String>,
}

/// Output on the terminal.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Print errors only.
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print every judge's start and finish.
    #[arg(long, short)]
    pub verbose: bool,
    /// Colour on standard error.
    #[arg(long, value_enum, default_value_t = Color::Auto, value_name = "WHEN")]
    pub color: Color,
}

/// When to use colour.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Color {
    /// When standard error is a terminal.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// How the result is published to GitHub (in Actions, without --dry-run).
#[derive(Debug, Clone, Args)]
pub struct PublishArgs {
    /// The GitHub token (default: $GITHUB_TOKEN, then $GH_TOKEN). Never printed.
    #[arg(long, value_name = "TOKEN", hide_default_value = true)]
    pub github_token: Option<String>,
    /// Sticky comment mode (default: the config's report.comment, else update).
    #[arg(long, value_enum, value_name = "MODE")]
    pub comment_mode: Option<judge_ci::config::CommentMode>,
    /// Delete judge-ci's comment, and post none, when the PR is accepted.
    #[arg(long)]
    pub delete_on_pass: bool,
    /// Create a check run (default: the config's report.check-run, else true).
    #[arg(long, value_name = "BOOL")]
    pub check_run: Option<bool>,
    /// The check run's name (default: the config's report.check-name, else
    /// `judge-ci / <config name>`); give each matrix leg or project its own.
    #[arg(long, value_name = "NAME")]
    pub check_name: Option<String>,
    /// Which sticky comment this run keeps (default: the config's report.comment-key, else
    /// the config name); runs with different keys keep different comments on one pull request.
    #[arg(long, value_name = "KEY")]
    pub comment_key: Option<String>,
    /// Longest wait for one GitHub API request (`30s`, `2m`, `PT1M`).
    #[arg(long, default_value = "30s", value_name = "DURATION")]
    pub api_timeout: String,
    /// Exit 4 when the comment or the check run did not reach GitHub (no token, a refused
    /// or failed request), instead of the verdict's code.
    #[arg(long)]
    pub require_publish: bool,
}

/// Options of `run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Config and task.
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The folder holding the subject (the PR's checkout).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub workspace: PathBuf,
    /// The subject as a git revision or `URL#REV` instead of a folder (materialised in a
    /// temporary folder; the working tree is not touched).
    #[arg(long, value_name = "REV", conflicts_with = "workspace")]
    pub head: Option<String>,
    /// The reference: a folder, a git revision of this repository (`origin/solution`, a tag,
    /// a SHA) or `URL#REV` (default: the config's `reference`).
    #[arg(long, value_name = "DIR|REV|URL#REV")]
    pub reference: Option<String>,
    /// Keep the temporary folders revisions were written to.
    #[arg(long)]
    pub keep_checkouts: bool,
    /// Where parsed models are cached between runs, or `off` (default: beside the LLM reply
    /// cache, `$XDG_CACHE_HOME/judge-ci/models`, `$RUNNER_TEMP/judge-ci/models` in Actions;
    /// never inside the workspace). The variable JUDGE_CI_MODEL_CACHE sets it too.
    #[arg(long, value_name = "DIR|off")]
    pub model_cache: Option<String>,
    /// Judge and print; post nothing anywhere.
    #[arg(long)]
    pub dry_run: bool,
    /// Where report.json and report.md are written.
    #[arg(long, default_value = "judge-ci-out", value_name = "DIR")]
    pub out: PathBuf,
    /// What to print on standard output.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Which readings fail the step (default: the config's report.fail-on, else error inside
    /// GitHub Actions and fail outside).
    #[arg(long, value_enum, value_name = "WHEN")]
    pub fail_on: Option<judge_ci::config::FailOn>,
    /// Where the config and every file it names are read from: auto (the base commit in a
    /// pull-request run, the working tree elsewhere), head (the working tree: the pull
    /// request's own files), base, or a revision.
    #[arg(long, value_name = "auto|head|base|REV", default_value = "auto")]
    pub config_from: String,
    /// The first job of a split run: semantic checks are not asked (they ABSTAIN as deferred),
    /// so this job needs no model key; `judge-ci resume --from OUT` finishes the run.
    #[arg(long)]
    pub stop_before_semantic: bool,
    /// Publishing to GitHub.
    #[command(flatten)]
    pub publish: PublishArgs,
    /// Terminal output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// How `interpret` prints its result.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum InterpretFormat {
    /// Deterministic prose.
    Text,
    /// The interpretation as JSON.
    Json,
}

/// How `schema` prints the config's schema.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SchemaFormat {
    /// The JSON Schema (draft 2020-12), for editors: `schemas/config.v1.json`.
    Json,
    /// The config reference as markdown: `docs/config-reference.md`.
    Markdown,
}

/// Options of `schema`.
#[derive(Debug, Clone, Args)]
pub struct SchemaArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = SchemaFormat::Json)]
    pub format: SchemaFormat,
}

/// Options of `resume`.
#[derive(Debug, Clone, Args)]
pub struct ResumeArgs {
    /// The output folder of the first job (`--stop-before-semantic`).
    #[arg(long, value_name = "DIR")]
    pub from: PathBuf,
    /// Everything `run` takes.
    #[command(flatten)]
    pub run: RunArgs,
}

/// Options of `validate`.
#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    /// Config and task.
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Terminal output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Options of `interpret`.
#[derive(Debug, Clone, Args)]
pub struct InterpretArgs {
    /// A verdict JSON file, or a judge-ci report JSON with a `verdict` field.
    pub file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = InterpretFormat::Text)]
    pub format: InterpretFormat,
}

/// Options of `render`.
#[derive(Debug, Clone, Args)]
pub struct RenderArgs {
    /// The report JSON.
    pub report: PathBuf,
    /// The surface printed on standard output.
    #[arg(long, value_enum, default_value_t = Surface::Markdown)]
    pub format: Surface,
    /// Write every surface into this folder instead.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A markdown template instead of the built-in one.
    #[arg(long, value_name = "PATH")]
    pub template: Option<PathBuf>,
    /// Most check-run annotations.
    #[arg(long, default_value_t = 50)]
    pub annotations: usize,
}

/// Options of `publish`.
#[derive(Debug, Clone, Args)]
pub struct PublishStoredArgs {
    /// The folder a run wrote (report.json; event.json when it ran in Actions).
    #[arg(long, value_name = "DIR")]
    pub from: PathBuf,
    /// The trusted config (this workflow's checkout of the base branch; default:
    /// judge-ci.yml, .github/judge-ci.yml or benchmark.yaml here): its name, not the
    /// report's, names the check run and keys the sticky comment.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Post the report as a verdict (success/failure) and gate this job by it: the trusted
    /// config's fail-on decides, the exit code is the run's (0 pass, 1 rejected, 3 could
    /// not judge), and the reading and gate are step outputs. Without it the report counts
    /// as computed in the pull request's own workflow: the check run is neutral and says
    /// "not verified", and the job exits 0. Wrong for forks, whose workflow is the pull
    /// request's own file.
    #[arg(long)]
    pub trust_report: bool,
    /// Most check-run annotations.
    #[arg(long, default_value_t = 50)]
    pub annotations: usize,
    /// Publishing settings.
    #[command(flatten)]
    pub publish: PublishArgs,
    /// Terminal output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Options of `diagnose`.
#[derive(Debug, Clone, Args)]
pub struct DiagnoseArgs {
    /// The report JSON.
    pub report: PathBuf,
    /// The agent's plan (markdown or text).
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// A folder of knowledge-base files.
    #[arg(long, value_name = "DIR")]
    pub knowledge: Option<PathBuf>,
    /// The agent's journal (JSON lines: tool calls and their errors).
    #[arg(long, value_name = "FILE")]
    pub journal: Option<PathBuf>,
    /// A JSON file of detected patterns.
    #[arg(long, value_name = "FILE")]
    pub analysis: Option<PathBuf>,
    /// The task file whose instruction the rules compare criteria with (default: the
    /// report's task, if its file is still there).
    #[arg(long, value_name = "FILE")]
    pub task: Option<PathBuf>,
    /// A config whose `diagnostics.rules` run before the built-in rules.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Also store the new analysis in the report file.
    #[arg(long)]
    pub write: bool,
}

/// Options of `suite`.
#[derive(Debug, Clone, Args)]
pub struct SuiteArgs {
    /// The layout's root.
    pub dir: PathBuf,
    /// Where the reports go.
    #[arg(long, default_value = "judge-ci-suite", value_name = "DIR")]
    pub out: PathBuf,
    /// Tasks judged at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Only this share of the tasks, K of N (by a hash of each task's key, so a matrix of
    /// N jobs covers the suite exactly once).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Only tasks matching: `id:GLOB`, `tag:TAG`, `difficulty:LEVEL` or a bare id glob
    /// (repeat to require several).
    #[arg(long, value_name = "FILTER")]
    pub filter: Vec<String>,
    /// Also write suite.html with drawn charts.
    #[arg(long)]
    pub html: bool,
    /// A model spending limit over the whole suite, `KEY=VALUE` with KEY one of requests,
    /// input-tokens, output-tokens, cost-usd (repeat for several); each task's own
    /// `llm.limits` still holds.
    #[arg(long = "llm-limit", value_name = "KEY=VALUE")]
    pub llm_limit: Vec<String>,
    /// Terminal output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Options of `merge`.
#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// The shard folders.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where the merged report goes.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also write suite.html.
    #[arg(long)]
    pub html: bool,
}

/// Options of `compare`.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// The baseline suite.
    #[arg(long, value_name = "PATH")]
    pub baseline: PathBuf,
    /// The current suite.
    pub current: PathBuf,
    /// A score change up to this much is no change (a number from 0 up to, not including, 1).
    #[arg(long, default_value_t = 0.05, value_name = "X", value_parser = tolerance)]
    pub tolerance: f64,
    /// Regressions allowed before the exit code fails.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub max_regressions: usize,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Also write compare.md, compare.json and compare.html here.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// A score tolerance: finite, at least 0 and below 1 (NaN would make every score change none,
/// a negative one every equal score a regression: attack finding G10-12).
fn tolerance(text: &str) -> Result<f64, String> {
    let x: f64 = text.parse().map_err(|_| {
        format!("`{text}` is not a number; give one from 0 up to, not including, 1")
    })?;
    if x.is_finite() && (0.0..1.0).contains(&x) {
        Ok(x)
    } else {
        Err(format!(
            "{text} is outside 0 ≤ X < 1: a tolerance of 1 or more hides every score change, and a negative one makes equal scores regressions"
        ))
    }
}

/// Options of `prove`.
#[derive(Debug, Clone, Args)]
pub struct ProveArgs {
    /// The config to prove.
    #[arg(long, default_value = "judge-ci.yml", value_name = "PATH")]
    pub config: PathBuf,
    /// The task's starting point: a folder, a revision of the repository here, or `URL#REV`.
    #[arg(long, value_name = "REV|DIR")]
    pub base: String,
    /// The reference solution: a folder, a revision, or `URL#REV` (default: the config's
    /// `reference:`).
    #[arg(long, value_name = "REV|DIR")]
    pub reference: Option<String>,
    /// Trees judged at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Where prove.json, prove.md and each run's report go.
    #[arg(long, default_value = "judge-ci-prove", value_name = "DIR")]
    pub out: PathBuf,
    /// The parsed-model cache: a folder, or `off` (default: judge-ci's cache folder).
    #[arg(long, value_name = "DIR|off")]
    pub model_cache: Option<String>,
    /// Keep every judged tree under OUT/trees/ to look at.
    #[arg(long)]
    pub keep_trees: bool,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Terminal output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Options of `calibrate`.
#[derive(Debug, Clone, Args)]
pub struct CalibrateArgs {
    /// The labelled set: a folder holding cases.yml (see docs/semantic.md#calibrate).
    #[arg(value_name = "CASES_DIR")]
    pub cases_dir: PathBuf,
    /// Fail (exit 1) unless the lower bound of κ's 95% interval is at least this (-1 to 1).
    #[arg(long, value_name = "X", allow_hyphen_values = true)]
    pub min_kappa: Option<f64>,
    /// Only this case (repeatable).
    #[arg(long = "case", value_name = "NAME")]
    pub cases: Vec<String>,
    /// Only this check's labels, and only this check asked (repeatable); without it, each
    /// case asks the semantic checks it labels.
    #[arg(long = "check", value_name = "NAME")]
    pub checks: Vec<String>,
    /// Cases judged at once (default 2; a local model server answers one at a time anyway).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Where calibrate.json, calibrate.md, calibrate.junit.xml and each case's report go.
    #[arg(long, default_value = "judge-ci-calibrate", value_name = "DIR")]
    pub out: PathBuf,
    /// The parsed-model cache: a folder, or `off` (default: judge-ci's cache folder).
    #[arg(long, value_name = "DIR|off")]
    pub model_cache: Option<String>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    pub format: Format,
    /// Terminal output.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Options of `checkout`.
#[derive(Debug, Clone, Args)]
pub struct CheckoutArgs {
    /// A revision of the repository here, or `URL#REV`.
    pub source: String,
    /// The folder to write (created; must be empty).
    pub dest: PathBuf,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the jury on the workspace and report (the default).
    Run(RunArgs),
    /// The second job of a split run: judge the same head again without running any of its
    /// code, taking the judgments of checks that run subject code (files, commands, builds,
    /// coverage, external) from the first job's report, and asking the semantic checks.
    Resume(ResumeArgs),
    /// Load the config (and task), build the jury, print its tiers and description.
    Validate(ValidateArgs),
    /// Read a stored verdict (0.13–0.17 shapes, or a report holding one) and print its reading.
    Interpret(InterpretArgs),
    /// Re-render a stored report (any judge-ci.report.v2 or v1 JSON) to one surface, or to all of
    /// them with --out.
    Render(RenderArgs),
    /// Post a stored report to GitHub: for a trusted `workflow_run` workflow publishing what a
    /// fork's run uploaded. Runs no code of the pull request.
    Publish(PublishStoredArgs),
    /// Re-run the gap analysis on a stored report with more inputs, without re-running the
    /// judges; prints the report's markdown (or the analysis as JSON).
    Diagnose(DiagnoseArgs),
    /// Judge every task of an agent-bench layout (`DIR/**/benchmark.yaml` with
    /// `tasks/<id>/task.yaml`, `workspace/` and `reference/`); one report per task plus
    /// `suite.json` and `suite.md`. Exit 0 when the suite ran, whatever the readings (gate
    /// with `compare`), 2 on bad input.
    Suite(SuiteArgs),
    /// Combine the output folders of `suite --shard K/N` runs into one suite report; a task in
    /// two shards or a missing shard is an error that names it.
    Merge(MergeArgs),
    /// Compare a suite with a baseline suite (a `suite.json`, or a folder holding one): per
    /// task NEW, REGRESSED, IMPROVED, UNCHANGED or COULD_NOT_JUDGE. A task missing from the
    /// current run, and one now not assessed where the baseline judged it, are regressions.
    /// Exit 1 when more tasks regressed than --max-regressions; 3 when none did but a task the
    /// baseline passed could not be judged now (the instrument failed), so no regression can be
    /// ruled out.
    Compare(CompareArgs),
    /// Prove a config: the reference must be accepted and the base rejected; each unit of the
    /// base → reference change (a hunk; a POM dependency, plugin or property) reverted alone
    /// must be rejected, and one nothing rejects is a blind spot, named with file:line and the
    /// check that would see it; the gaming battery applies each class of the trust model to a
    /// rejected variant, and none may turn it accepted. Exit 0 proven, 1 a defect, 3 a tree
    /// could not be judged, 2 bad input.
    Prove(ProveArgs),
    /// Measure how often the config's semantic checks agree with human labels: each case of
    /// CASES_DIR/cases.yml is judged with the semantic checks only, and every label is
    /// compared with the answer; reports accuracy, Cohen's κ, true-positive and true-negative
    /// rates with 95% intervals, the instability and order-swap flip rates, requests and
    /// cost (calibrate.json, calibrate.md, calibrate.junit.xml). Exit 1 when κ's lower bound
    /// is below --min-kappa, 3 when a case could not run, 2 bad input.
    Calibrate(CalibrateArgs),
    /// Print the JSON Schema of the config file, or (`--format markdown`) the config reference.
    Schema(SchemaArgs),
    /// Write a git revision's tree into a folder (what `--reference REV` does, kept).
    Checkout(CheckoutArgs),
    /// For an `external` judge: run the subject's code (`"$JUDGE_CI" fence-exec -- sh
    /// ./run-tests.sh`) fenced apart from the judge: no descriptor above stderr, standard
    /// input from /dev/null, a temporary folder and HOME of its own, and a Landlock domain
    /// nested in the judge's that shuts the judge's TMPDIR, HOME, /dev/shm, reference and
    /// metadata, so the code can neither reach the judge's answer channel, memory, files or
    /// descriptors nor (Landlock ABI 6) signal it; whatever it leaves running is killed before
    /// fence-exec returns. Exits as the command did; 126 without running anything when the
    /// nesting cannot be made.
    FenceExec(FenceExecArgs),
}

/// `judge-ci fence-exec -- CMD [ARG…]`.
#[derive(Debug, Args)]
pub struct FenceExecArgs {
    /// Hand the judge's standard input on to the command (input the judge feeds it); never
    /// use it where standard input is the context judge-ci wrote.
    #[arg(long)]
    pub stdin: bool,
    /// The command and its arguments (after `--`).
    #[arg(trailing_var_arg = true, required = true)]
    pub command: Vec<std::ffi::OsString>,
}
