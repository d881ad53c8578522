//! The report (`judge-ci.report.v2`): one value from which every surface is rendered, stored
//! as JSON before anything is printed or posted. v2 differs from v1 in the judgments of the
//! verdict: findings are a typed `findings` list (v1 kept them in `metadata.findings`) and an
//! ERROR or ABSTAIN may carry a typed `cause`. `read::parse` reads both.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::judgment::Status;
use crate::jury::interpret::{Defect, Reading, ReadingSupport};
use crate::jury::{TierPolicy, Verdict};

/// The schema token written.
pub const REPORT_SCHEMA: &str = "judge-ci.report.v2";
/// The previous schema token, still read.
pub const REPORT_SCHEMA_V1: &str = "judge-ci.report.v1";

/// The whole report.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// [`REPORT_SCHEMA`].
    pub schema: String,
    /// Which judge-ci wrote it.
    pub tool: Tool,
    /// What was judged.
    pub subject: Subject,
    /// Which configuration judged it.
    pub config: ConfigInfo,
    /// The task, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskInfo>,
    /// The verdict in the 0.17 wire form, unchanged.
    pub verdict: Verdict,
    /// How the verdict reads.
    pub interpretation: InterpretationInfo,
    /// Per configured tier (or member), in order; tiers not reached have `ran: false`.
    pub tiers: Vec<TierView>,
    /// Structural findings of the judges that ran, by kind of comparison.
    #[serde(default, skip_serializing_if = "Diffs::is_empty")]
    pub diffs: Diffs,
    /// Model usage of the semantic judges, when any asked a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmTotals>,
    /// The gap analysis of every failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<crate::diagnose::GapAnalysis>,
    /// Protected paths the pull request changes and files restored from the reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<TrustInfo>,
    /// The trusted tests judge-ci ran itself (the sealed oracle), graded as SWE-bench grades
    /// them: FAIL_TO_PASS, PASS_TO_PASS (or `expected` without a base run), not charged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<crate::judges::oracle::TestSets>,
    /// Where the verdict was computed, when another job computed it (`publish --from`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// The fence the subject's processes ran in ("landlock ABI 6, pid namespace,
    /// no_new_privs"; what was not available and why); absent when no subject process ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fence: Option<String>,
    /// How much of the reference this report carries (top-level `reveal:`, applied by
    /// [`crate::report::reveal`] before any surface is rendered). A stored report without it
    /// was written before `reveal:` existed, when everything was shown: `full`.
    #[serde(default = "reveal_of_older_reports")]
    pub reveal: crate::config::Reveal,
    /// Phase timings.
    pub timings: Timings,
    /// The gate: pass or fail, the exit code and why.
    pub outcome: Outcome,
    /// The SHA-256 of every other surface written beside this report, by file name, as
    /// written (secrets masked): a reader of the folder (`resume --from`) refuses a surface
    /// that differs.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub surface_digests: std::collections::BTreeMap<String, String>,
}

fn reveal_of_older_reports() -> crate::config::Reveal {
    crate::config::Reveal::Full
}

/// The tool.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tool {
    /// `judge-ci`.
    pub name: String,
    /// Its version.
    pub version: String,
}

/// The subject.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subject {
    /// The workspace folder.
    pub workspace: String,
    /// The reference folder, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// `owner/name`, in GitHub Actions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// The pull request number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<u64>,
    /// The head commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_sha: Option<String>,
    /// The base commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_sha: Option<String>,
    /// The reference's git revision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_rev: Option<String>,
    /// What the reference was, bound by digest (`commit <sha>` for a revision, `sha256:<hex>`
    /// of every entry for a folder): `resume` refuses a first job judged against another
    /// reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_digest: Option<String>,
    /// The triggering event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The CI run that produced the report (GitHub Actions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_url: Option<String>,
    /// `GITHUB_RUN_ID` of that run: `resume` and `publish --from` refuse a report of another
    /// run than the one their event names (a stored report is bound to its run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The GitHub server (`GITHUB_SERVER_URL`), for links to the judged code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_url: Option<String>,
    /// The workspace's folder inside the repository checkout (`""` at its root), in GitHub
    /// Actions: finding paths are relative to the workspace, links and SARIF to the repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_in_repository: Option<String>,
}

/// The configuration.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigInfo {
    /// The config file.
    pub path: String,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// Its `name`.
    pub name: String,
    /// Its `version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The jury description (descriptionVersion 2).
    pub description: Value,
    /// Where the config and the files it names were read from, when that was a commit's
    /// tree (a pull request's base) rather than the working tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ConfigSourceInfo>,
    /// The check run's name when it is not `judge-ci / <name>` (`report.check-name`,
    /// `--check-name`): several instances on one commit each keep their own check run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_name: Option<String>,
    /// The sticky comment's key when it is not the config name (`report.comment-key`,
    /// `--comment-key`): several instances on one pull request each keep their own comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment_key: Option<String>,
}

impl ConfigInfo {
    /// The name of the check run: `check_name`, else `judge-ci / <config name>`.
    pub fn check_run_name(&self) -> String {
        self.check_name
            .clone()
            .unwrap_or_else(|| format!("judge-ci / {}", self.name))
    }

    /// What keys the sticky comment: `comment_key`, else the config name.
    pub fn sticky_key(&self) -> &str {
        self.comment_key.as_deref().unwrap_or(&self.name)
    }
}

/// The trusted tree a config was read from, and every file read from it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigSourceInfo {
    /// How the commit was chosen ("the base commit of pull request #7").
    pub from: String,
    /// The commit.
    pub commit: String,
    /// Every config-side file, with the digest of the version used and of the working tree's.
    pub files: Vec<ConfigFileInfo>,
}

impl ConfigSourceInfo {
    /// The files whose working-tree version (the pull request's) was not the one used.
    pub fn changed(&self) -> impl Iterator<Item = &ConfigFileInfo> {
        self.files.iter().filter(|f| f.changed)
    }
}

/// One config-side file read from a trusted tree.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigFileInfo {
    /// Path relative to the repository root.
    pub path: String,
    /// SHA-256 of the version used (absent: the file is only in the working tree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// SHA-256 of the working tree's version (absent: not in the working tree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_sha256: Option<String>,
    /// The working tree's version differs from the one used.
    pub changed: bool,
}

/// Who computed a published verdict (`spec/trust.md` point 10).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    /// False when the report came from a job the pull request controls (a fork's own
    /// `pull_request` workflow) and `--trust-report` was not given: the verdict is advisory.
    pub verified: bool,
    /// What the reader is told.
    pub note: String,
}

/// What an unverified report's readers are told.
pub const UNVERIFIED_NOTE: &str = "Computed in the pull request's own workflow, not verified: the pull request controls that job and could have written this report, so it is advisory and decides nothing.";

/// Protections against the subject's own edits (`protected:`, `restore:`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrustInfo {
    /// Protected files the pull request changes, with the glob that protects each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protected_changes: Vec<ProtectedChange>,
    /// `fail` or `report`.
    pub protected_action: String,
    /// Files the pull request changes (against the base, else the reference) that no check
    /// reads (trust.md point 19).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unjudged: Vec<String>,
    /// `unjudged-action`: `report` or `fail`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unjudged_action: String,
    /// Files copied from the reference into the workspace before any judge ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restored: Vec<String>,
    /// Files the pull request added under the `restore:` globs that the reference does not
    /// have, removed before any judge ran (the restored globs hold exactly the reference's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restore_removed: Vec<String>,
    /// Code the pull request makes run at build or test time that the reference does not
    /// (`build-code-added` findings with file and line), found before any build ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub build_code_added: Vec<crate::judgment::Finding>,
    /// Protected paths, build wrappers and settings made what the trusted tree records
    /// (content, mode, type) before any judge ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub base_build_files: Vec<String>,
    /// The restored files whose bytes the workspace did not hold (reference content now
    /// readable to subject code; the fence line says so). Not in the JSON: under `reveal:
    /// none` their names are the reference's, and `restored` lists them where shown.
    #[serde(skip)]
    pub restore_revealed: Vec<String>,
}

/// A protected file the pull request changes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtectedChange {
    /// Path relative to the repository root.
    pub path: String,
    /// The glob (or built-in rule) that protects it.
    pub pattern: String,
    /// How git would see the change.
    pub change: ChangeKind,
    /// For a mode or type change, from what to what ("an executable file (100755) → a file
    /// (100644)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// How a protected path differs from the trusted side, in every way git records a path:
/// presence, content, mode and file type (trust.md point 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, strum::Display)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ChangeKind {
    /// The pull request adds it.
    Added,
    /// Its content (or a link's target) differs.
    Modified,
    /// The pull request removes it.
    Deleted,
    /// Only its executable bit differs.
    ModeChanged,
    /// It is another kind of thing: a link for a file, a folder, a FIFO …
    TypeChanged,
}

impl ProtectedChange {
    /// "path (mode-changed: an executable file (100755) → a file (100644))".
    pub fn describe(&self) -> String {
        match &self.detail {
            Some(d) => format!("{} ({}: {d})", self.path, self.change),
            None => format!("{} ({})", self.path, self.change),
        }
    }
}

/// The task and its commands.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskInfo {
    /// Task id.
    pub id: String,
    /// Task file.
    pub path: String,
    /// Setup and post commands, in the order they ran.
    pub commands: Vec<CommandRecord>,
}

/// One task command.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandRecord {
    /// `setup` or `post`.
    pub phase: String,
    /// The command line.
    pub command: String,
    /// Exit code; absent when it did not exit by itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// What happened, when it did not exit 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Wall time.
    pub elapsed_ms: u64,
}

/// How the verdict reads.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InterpretationInfo {
    /// The reading (absent if unreadable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<Reading>,
    /// Whether the evidence supports it.
    pub reading_support: ReadingSupport,
    /// The stage that decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// Problems found while reading.
    pub defects: Vec<Defect>,
}

/// One configured tier (or member, or the flat jury).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TierView {
    /// Its name.
    pub name: String,
    /// Its policy (cascade tiers only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<TierPolicy>,
    /// Its aggregate status, when it ran and produced one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// Whether it ran.
    pub ran: bool,
    /// Whether the cascade stopped here.
    pub stopped: bool,
    /// Its judges.
    pub judges: Vec<JudgeView>,
    /// Configured judges that gave no judgment (every judge of a tier not reached), so JUnit
    /// and the tables can show them as skipped rather than leave them out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<NotRunJudge>,
    /// Longest judge time (judges run concurrently).
    pub elapsed_ms: u64,
}

/// A configured judge that did not run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotRunJudge {
    /// Seat name.
    pub name: String,
    /// Check type.
    #[serde(rename = "type")]
    pub judge_type: String,
}

/// One judge's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeView {
    /// Seat name.
    pub name: String,
    /// Check type.
    #[serde(rename = "type")]
    pub judge_type: String,
    /// Status.
    pub status: Status,
    /// Score, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Run time.
    pub elapsed_ms: u64,
    /// Model usage of a semantic judge (its judgment's `llm` metadata).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmUsage>,
    /// How a semantic judge's repeated answers (`samples` over 1) decided it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<SampleCounts>,
}

/// The answers of a judgment asked more than once (its judgment's `samples` metadata, in
/// short): how many were asked and answered, each answer's count, and whether they decided.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SampleCounts {
    /// Samples asked.
    pub asked: u64,
    /// Samples that answered (an ERROR sample is not an answer).
    pub answered: u64,
    /// Each answer (`pass`, `fail`, `abstain`, `not_applicable`) and how many gave it.
    pub counts: std::collections::BTreeMap<String, u64>,
    /// Whether the answers agreed enough to decide.
    pub decided: bool,
    /// With `order: swap`: whether the swapped samples' answer differed from the others'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_flip: Option<bool>,
}

impl SampleCounts {
    /// The counts in a reviewer's words: "3 of 3 answers agree", "unstable: 2 pass, 1 fail,
    /// so not decided", "only 1 of 3 samples answered".
    pub fn spoken(&self) -> String {
        let listed = ["pass", "fail", "abstain", "not_applicable"]
            .iter()
            .filter_map(|k| {
                self.counts
                    .get(*k)
                    .filter(|n| **n > 0)
                    .map(|n| format!("{n} {}", k.replace('_', " ")))
            })
            .collect::<Vec<_>>()
            .join(", ");
        if self.answered * 2 <= self.asked {
            format!("only {} of {} samples answered", self.answered, self.asked)
        } else if self.decided {
            let top = self.counts.values().copied().max().unwrap_or(0);
            format!("{top} of {} answers agree", self.answered)
        } else {
            format!("unstable: {listed}, so not decided")
        }
    }
}

/// Requests, cache hits and tokens of model calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmCounts {
    /// HTTP requests made (retries and repairs included).
    pub requests: u64,
    /// Questions answered from the cache.
    pub cache_hits: u64,
    /// Input tokens billed.
    pub input_tokens: u64,
    /// Output tokens billed.
    pub output_tokens: u64,
}

/// One semantic judge's model usage (its judgment's `llm` metadata).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmUsage {
    /// The provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Requests, cache hits, tokens.
    #[serde(flatten)]
    pub counts: LlmCounts,
    /// Cost in US dollars, when the config's price table names the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl Report {
    /// Where each judge sat, for the gap analysis.
    pub fn seats(&self) -> Vec<crate::diagnose::Seat> {
        self.tiers
            .iter()
            .flat_map(|t| {
                t.judges.iter().map(move |j| crate::diagnose::Seat {
                    tier: t.name.clone(),
                    name: j.name.clone(),
                    judge_type: j.judge_type.clone(),
                    nested: self.verdict.attempt(&t.name).is_some(),
                })
            })
            .collect()
    }
}

/// Model usage of the whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmTotals {
    /// Requests, cache hits, tokens, summed.
    #[serde(flatten)]
    pub counts: LlmCounts,
    /// Cost in US dollars, summed over the judges whose model has a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The models asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    /// The spending limits set (`llm.limits`, a suite's `--llm-limit`) and what was spent
    /// against each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<crate::judges::llm::budget::LimitUse>,
}

impl LlmTotals {
    /// The sum over every judge of `tiers`; `None` when no judge asked a model.
    pub fn of(tiers: &[TierView]) -> Option<LlmTotals> {
        let mut t = LlmTotals::default();
        let mut any = false;
        for u in tiers
            .iter()
            .flat_map(|x| &x.judges)
            .filter_map(|j| j.llm.as_ref())
        {
            any = true;
            t.counts.requests += u.counts.requests;
            t.counts.cache_hits += u.counts.cache_hits;
            t.counts.input_tokens += u.counts.input_tokens;
            t.counts.output_tokens += u.counts.output_tokens;
            if let Some(c) = u.cost_usd {
                t.cost_usd = Some(t.cost_usd.unwrap_or(0.0) + c);
            }
            if let Some(m) = &u.model
                && !t.models.contains(m)
            {
                t.models.push(m.clone());
            }
        }
        any.then_some(t)
    }
}

/// Structural findings: what differs between workspace and reference.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Diffs {
    /// From `import-diff`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<DiffEntry>,
    /// From `ast-diff`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ast: Vec<DiffEntry>,
    /// From `pom-diff`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pom: Vec<DiffEntry>,
    /// From `file-comparison` and `test-invariance`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<DiffEntry>,
}

impl Diffs {
    /// True when no structural judge reported anything.
    pub fn is_empty(&self) -> bool {
        self.imports.is_empty()
            && self.ast.is_empty()
            && self.pom.is_empty()
            && self.files.is_empty()
    }
}

/// One structural finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffEntry {
    /// Path relative to the tree root.
    pub path: String,
    /// Line in the workspace file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// Kind of difference.
    pub kind: crate::judgment::FindingKind,
    /// What the reference has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What the workspace has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// The judge (seat name) that found it.
    pub judge: String,
}

/// Phase timings in milliseconds.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    /// Resolving workspace and reference.
    pub checkout_ms: u64,
    /// Task commands and the vote.
    pub jury_ms: u64,
    /// Rendering.
    pub render_ms: u64,
    /// Everything.
    pub total_ms: u64,
}

/// The gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Gate {
    /// The step passes.
    Pass,
    /// The step fails.
    Fail,
}

/// What the run amounts to.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Pass or fail.
    pub gate: Gate,
    /// The process exit code.
    pub exit_code: i32,
    /// What decided, in words: the reading, the `fail-on` in force, and why the gate passed
    /// or failed under it.
    pub reason: String,
    /// The `fail-on` in force (`fail`, `not-pass`, `never`, `error`); absent in reports of
    /// older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<String>,
    /// Tiers that could not run (a judge or the tier ended ERROR), whatever the reading:
    /// an accepted verdict with any of them is not a clean pass (`spec/trust.md` point 7).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errored_tiers: Vec<ErroredTier>,
    /// What the change did that counts against it whatever the reading: a judge it kept
    /// from deciding (an ABSTAIN whose cause it brought about, `Cause::kept_from_deciding_by_subject`)
    /// or a trust check of judge-ci's own that failed (`protected-paths`, `unjudged-changes`,
    /// `build-code-added`), which no tier's voting outvotes. A reading that would pass the gate
    /// fails it when any is listed, under every `fail-on` but `never` (`spec/trust.md`
    /// points 2, 12, 19 and 20).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts_against: Vec<CountsAgainst>,
}

/// One thing the change did that counts against it at the gate.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CountsAgainst {
    /// The tier the judge sat in.
    pub tier: String,
    /// The judge.
    pub judge: String,
    /// What it was.
    #[serde(flatten)]
    pub what: Against,
    /// Why, from the judgment's reasoning (its first line).
    pub reason: String,
}

/// What counts against the change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Against {
    /// The judge abstained with a cause the change brought about.
    Abstained {
        /// `material_incomplete`, `evidence_missing` or `prompt_injection`.
        cause: crate::judgment::Cause,
    },
    /// judge-ci's own trust check failed: a veto, whatever the tier's voting.
    TrustCheckFailed,
}

impl CountsAgainst {
    /// What happened, as a clause: "judge 'review' (tier 'semantic') abstained
    /// (material_incomplete)", "judge-ci's own check 'protected-paths' (tier 'build') failed".
    pub fn clause(&self) -> String {
        match self.what {
            Against::Abstained { cause } => format!(
                "judge '{}' (tier '{}') abstained ({cause})",
                self.judge, self.tier
            ),
            Against::TrustCheckFailed => format!(
                "judge-ci's own check '{}' (tier '{}') failed",
                self.judge, self.tier
            ),
        }
    }
}

/// A tier that could not run, or in which a judge could not run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErroredTier {
    /// The tier (or member, or `checks`).
    pub tier: String,
    /// The judges that ended ERROR.
    pub judges: Vec<String>,
    /// Why, from the first errored judge's reasoning (or the tier's).
    pub reason: String,
    /// Who can have caused it: `instrument` only when every ERROR in it has a cause of
    /// judge-ci's own instrument, else `subject` (also for a report that does not say: an
    /// ERROR judge-ci cannot place is one the subject may have caused). The gate waives only
    /// the instrument's (`spec/trust.md` point 12).
    #[serde(default = "subject_origin")]
    pub origin: crate::judgment::ErrorOrigin,
}

fn subject_origin() -> crate::judgment::ErrorOrigin {
    crate::judgment::ErrorOrigin::Subject
}

impl ErroredTier {
    /// The `tier` of the entry that stands for the task's failed `setup`/`post` commands: an
    /// ERROR of the run itself, not of a tier.
    pub const TASK_COMMANDS: &'static str = "task commands";

    /// Whether the subject can have caused it (so no `fail-on` waives it).
    pub fn subject_can_cause(&self) -> bool {
        self.origin == crate::judgment::ErrorOrigin::Subject
    }

    /// Whether this entry is the task's failed commands rather than a tier.
    pub fn is_task_commands(&self) -> bool {
        self.tier == Self::TASK_COMMANDS
    }

    /// What went wrong, as a clause: "tier 'build' could not run" or "the task commands
    /// failed".
    pub fn clause(&self) -> String {
        if self.is_task_commands() {
            "the task commands failed".to_string()
        } else {
            format!("tier '{}' could not run", self.tier)
        }
    }
}
