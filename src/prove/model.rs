//! What `prove` found, as written to `prove.json` (schema `schemas/prove.v1.json`) and
//! rendered to `prove.md`.

use serde::Serialize;

use super::battery::{Aims, Transformation};
use super::hunks::UnitKind;

/// The schema id of `prove.json`.
pub const PROVE_SCHEMA: &str = "judge-ci.prove.v1";

/// How one judged tree came out under the config's gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The gate passed it (exit 0).
    Accepted,
    /// The gate failed it (exit 1).
    Rejected,
    /// The run refused the tree as bad input (exit 2: a link out of the workspace where a
    /// check reads, …): not accepted. Only for trees judged after the reference was, so the
    /// config itself is known to load.
    Refused,
    /// The run could not judge it: a check or tier ended ERROR under the gate (exit 3), or
    /// the run itself failed.
    CouldNotJudge,
}

/// A check that failed (or errored) in a judged tree.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckRef {
    /// Its tier.
    pub tier: String,
    /// The check's name.
    pub check: String,
    /// Its `type:`.
    #[serde(rename = "type")]
    pub check_type: String,
    /// `fail` or `error`.
    pub status: String,
    /// What kind of check it is.
    pub aims: Aims,
    /// Its reasoning, cut to one line.
    pub reasoning: String,
}

/// One judged tree (the reference, the base, a variant, a gaming variant).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Judged {
    /// The gate's result.
    pub outcome: Outcome,
    /// The run's exit code (0, 1, 3; 2 when the config could not be used).
    pub exit_code: i32,
    /// The tier that decided, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// Its position in the cascade (0 for the first tier).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<usize>,
    /// The checks that failed or errored, in tier order.
    pub failed: Vec<CheckRef>,
    /// The kinds of check that ran at all (a tier the cascade reached).
    pub reached: Vec<Aims>,
    /// Why the run could not judge, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its report folder, relative to prove's output folder (`runs/NAME`), or, for a
    /// screened variant, which tiers the screen judged (no report is written for it).
    pub report: String,
    /// Wall time of the run (or of the screen), in milliseconds.
    pub elapsed_ms: u64,
    /// The same, in microseconds (a screened variant takes a few milliseconds).
    pub elapsed_us: u64,
    /// Judged by the screen ([`super::screen`]): the leading tiers without subject code in
    /// prove's own process, the config loaded once and the models shared; else a full run.
    pub screened: bool,
}

/// One unit of the change, reverted alone.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnitResult {
    /// 1-based.
    pub id: usize,
    /// The file.
    pub path: String,
    /// First and last line in the reference.
    pub line: usize,
    /// Last line in the reference.
    pub end_line: usize,
    /// Its kind.
    pub kind: UnitKind,
    /// What changed.
    pub what: String,
    /// How the reference without it was judged.
    pub judged: Judged,
    /// For a blind spot: which check type would see it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

/// What a gaming transformation achieved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BatteryStatus {
    /// The transformed variant was still rejected.
    Held,
    /// It was accepted: a defect of the config or of judge-ci.
    Accepted,
    /// The transformed variant could not be judged.
    CouldNotJudge,
    /// Nothing to transform (no Java file, no test, no wrapper in the target).
    NotApplicable,
}

/// One transformation of the battery.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatteryResult {
    /// Its name.
    pub transformation: Transformation,
    /// The `spec/trust.md` point it exercises.
    pub trust_point: u8,
    /// What it does.
    pub description: String,
    /// What kind of check it aims at.
    pub aims: Aims,
    /// The rejected tree it was applied to: `base` or `unit N`.
    pub target: String,
    /// The files it wrote or removed.
    pub touched: Vec<String>,
    /// What it achieved.
    pub status: BatteryStatus,
    /// Why it was not exercised, or that it held by a check before the ones it aims at
    /// (which sees the transformation itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Whether it was put to the test: its target was rejected by a check of the kind it aims
    /// at (a build check for build-class gaming), so those checks are what it had to get
    /// past. One applied to a tree an earlier tier rejects anyway proves nothing.
    pub exercised: bool,
    /// How the transformed tree was judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged: Option<Judged>,
}

/// Prove's verdict on the config.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The reference accepted, the base and every variant rejected, no gaming accepted.
    Proven,
    /// A defect: the reference rejected, the base accepted, a blind spot, an accepted gaming
    /// variant (exit 1).
    Defects,
    /// No defect found, but a tree could not be judged (exit 3).
    Unjudged,
}

/// What one `prove` run found.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProveReport {
    /// [`PROVE_SCHEMA`].
    pub schema: String,
    /// The judge-ci version.
    pub version: String,
    /// The config proven.
    pub config: String,
    /// The config's name.
    pub name: String,
    /// The base as given (with its commit for a revision).
    pub base: String,
    /// The reference as given.
    pub reference: String,
    /// The reference judged against itself: must be accepted.
    pub gold: Judged,
    /// The base: must be rejected.
    pub base_run: Judged,
    /// Every unit, reverted alone (empty when the gold was not accepted).
    pub units: Vec<UnitResult>,
    /// The behaviour break prove made, when no variant reached a check that builds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthesized: Option<Synthesized>,
    /// The gaming battery (empty when the gold was not accepted).
    pub battery: Vec<BatteryResult>,
    /// What of its own exam the pull request could rewrite (trust.md point 26).
    pub exam: Vec<ExamInput>,
    /// Checks whose verdict is a program the config names (`command`, `external`), which
    /// prove cannot verify from outside: they may tell prove's trees from a real workspace.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unverified: Vec<String>,
    /// The problems found, one sentence each.
    pub defects: Vec<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// 0 proven, 1 defects, 3 a tree could not be judged.
    pub exit_code: i32,
    /// Timings.
    pub timings: ProveTimings,
}

/// Where prove's time went.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProveTimings {
    /// The reference's run (one full judge run of an accepted tree).
    pub gold_ms: u64,
    /// The sensitivity phase, wall time.
    pub variants_ms: u64,
    /// The battery, wall time.
    pub battery_ms: u64,
    /// The whole of prove.
    pub total_ms: u64,
}

/// The reference with a behaviour break ([`super::battery::Break`]), judged: the target of
/// build-class gaming when no unit's variant reaches a build.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Synthesized {
    /// The break.
    pub applied: super::battery::Break,
    /// How the broken reference was judged.
    pub judged: Judged,
}

/// One input of the exam the workspace holds (trust.md point 26).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExamInput {
    /// The check that grades by it.
    pub check: String,
    /// Its tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    /// The workspace file, when it is one file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What the pull request could rewrite, and how the config pins it.
    pub what: String,
    /// The config puts it back or compares it with the reference's.
    pub pinned: bool,
}
