//! What `calibrate` found, as written to `calibrate.json` (schema
//! `schemas/calibrate.v1.json`) and rendered to `calibrate.md` and `calibrate.junit.xml`.

use serde::Serialize;

use super::stats::{Agreement, Answer, Label, Rate};

/// The schema id of `calibrate.json`.
pub const CALIBRATE_SCHEMA: &str = "judge-ci.calibrate.v1";

/// One labelled item (a check's outcome or one criterion of it) and what the model said.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// The check's name.
    pub check: String,
    /// The criterion, for a criterion's label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub criterion: Option<String>,
    /// The human label.
    pub label: Label,
    /// Its reason.
    pub why: String,
    /// The model's decided answer, or undecided.
    pub answer: Answer,
    /// Whether the answer is the label.
    pub agrees: bool,
    /// Whether it is undecided because the samples disagreed (`model_unstable`, an
    /// undecided criterion).
    pub unstable: bool,
    /// The judgment's status as reported (`pass`, `fail`, `abstain`, `error`, …), or
    /// `missing` when the run left no judgment of this check.
    pub status: String,
    /// The judgment's cause, for an ERROR or ABSTAIN.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// The model's reasoning (or the criterion's evidence), one line.
    pub reasoning: String,
}

/// How one case's run went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseOutcome {
    /// Every labelled item agrees with its label.
    Agrees,
    /// Some item disagrees with its label (or is undecided).
    Disagrees,
    /// The run ended before judging (a tree that could not be had, a refused input).
    CouldNotRun,
}

/// One labelled case.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseResult {
    /// Its name.
    pub name: String,
    /// Where it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Agreement, disagreement, or no run.
    pub outcome: CaseOutcome,
    /// The run's exit code.
    pub exit_code: i32,
    /// Why it could not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its run's report folder, relative to calibrate's output folder.
    pub report: String,
    /// How long its run took.
    pub elapsed_ms: u64,
    /// The labelled items.
    pub items: Vec<Item>,
    /// Of its checks asked more than once with `order: swap`: how many flipped with the
    /// order (the swapped samples' majority differs) and how many could (both orders
    /// answered).
    pub order_flips: u64,
    /// The number that could flip.
    pub order_compared: u64,
    /// Requests, cache hits and tokens of its run.
    pub usage: Usage,
}

/// Requests, cache hits, tokens and cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// HTTP requests made (retries and repairs included).
    pub requests: u64,
    /// Questions answered from the reply cache.
    pub cache_hits: u64,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Cost in US dollars, when the model has a price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// Adds `o` to it.
    pub fn add(&mut self, o: &Usage) {
        self.requests += o.requests;
        self.cache_hits += o.cache_hits;
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cost_usd = match (self.cost_usd, o.cost_usd) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }
}

/// One check's agreement with its labels.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckAgreement {
    /// The check's name.
    pub check: String,
    /// Its `type:`.
    #[serde(rename = "type")]
    pub check_type: String,
    /// Its items' agreement.
    pub agreement: Agreement,
}

/// The `--min-kappa` gate.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Gate {
    /// The least lower bound of κ's 95% interval asked for.
    pub min_kappa: f64,
    /// Whether the lower bound reached it.
    pub passed: bool,
    /// Why, in one sentence.
    pub reason: String,
}

/// Everything `judge-ci calibrate` reports.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CalibrateReport {
    /// [`CALIBRATE_SCHEMA`].
    pub schema: String,
    /// judge-ci's version.
    pub version: String,
    /// The case folder, as given.
    pub cases_dir: String,
    /// The config, as the case file names it.
    pub config: String,
    /// The config's name.
    pub name: String,
    /// The models asked, as the runs' reports name them, after the environment's overrides.
    pub models: Vec<String>,
    /// Every labelled item over every check.
    pub overall: Agreement,
    /// Each labelled check's own.
    pub checks: Vec<CheckAgreement>,
    /// Of the labelled items, those undecided because the samples disagreed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instability: Option<Rate>,
    /// Of the judgments asked in both orders (`order: swap`), those whose answer flipped
    /// with the order; absent when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub order_flip: Option<Rate>,
    /// Requests, tokens and cost over every case.
    pub usage: Usage,
    /// The `--min-kappa` gate, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<Gate>,
    /// 0 when the gate passed (or none was asked), 1 when κ's lower bound fell short, 3
    /// when a case could not run.
    pub exit_code: i32,
    /// Every case.
    pub cases: Vec<CaseResult>,
    /// Wall time of the whole calibration.
    pub total_ms: u64,
}
