//! Model settings (`llm:` at the top of a config and the same keys on a semantic check) and
//! the questions the semantic checks ask. Settings merge check → config → built-in defaults;
//! the environment (`JUDGE_CI_LLM_PROVIDER`, `…_MODEL`, `…_BASE_URL`) overrides both when the
//! judges are built.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use marked_yaml::types::MarkedMappingNode;

use super::checks::WorkspacePath;
use super::token;
use super::yaml::{Key, Kind, Reader, key};

/// The model keys, taken by `llm:` and by every semantic check (which overrides `llm:`).
#[rustfmt::skip]
pub const MODEL_KEYS: &[Key] = &[
    key("provider", Kind::Enum(token::accepted::<Provider>), "model provider"),
    key("model", Kind::Str, "model name"),
    key("base-url", Kind::Str, "provider endpoint"),
    key("api-key-env", Kind::Str, "environment variable holding the API key"),
    key("max-output-tokens", Kind::Integer, "output token limit"),
    key("temperature", Kind::Number, "sampling temperature"),
    key("injection", Kind::Enum(token::accepted::<Injection>), "what text in the PR addressed to the grader does to the judgment (abstain)"),
    key("incomplete-material", Kind::Enum(token::accepted::<IncompleteMaterial>), "what a change the model cannot be shown in full (a binary, NUL bytes, a file over the size or the material budget, a build-output folder, a link or FIFO) does to the judgment (abstain: a PASS becomes ABSTAIN with cause material_incomplete)"),
    key("samples", Kind::Integer, "how many times each question is asked, 1 to 15 (1); the answers decide by agreement"),
    key("order", Kind::Enum(token::accepted::<Order>), "fixed, or swap: alternate across samples which side of the change (reference or workspace) the model is shown first (fixed)"),
    key("agreement", Kind::Number, "share of the answered samples that must give the same answer for PASS or FAIL, over 0.5 up to 1 (0.8); less is ABSTAIN with cause model_unstable"),
];

/// Keys of `llm.limits`: the most a run (or, for `judge-ci suite`, the whole suite) may spend.
#[rustfmt::skip]
pub const LIMIT_KEYS: &[Key] = &[
    key("requests", Kind::Integer, "most requests sent (a retry is a request)"),
    key("input-tokens", Kind::Integer, "most input tokens (estimated from the rendered prompt before sending, corrected by the reported usage)"),
    key("output-tokens", Kind::Integer, "most output tokens (each request is counted at its max-output-tokens until its usage is reported)"),
    key("cost-usd", Kind::Number, "most cost in US dollars, from llm.prices (the model must have a price)"),
];

/// Keys of `llm:`: the model keys, and the settings only the config as a whole holds.
pub fn config_keys() -> Vec<Key> {
    let mut all = MODEL_KEYS.to_vec();
    all.extend([
        key("cache", Kind::Str, "reply cache folder (absolute, outside the repository), or off ($RUNNER_TEMP/judge-ci/llm in Actions, else ~/.cache/judge-ci/llm)"),
        key("concurrency", Kind::Integer, "most requests in flight (4)"),
        key("limits", Kind::Object, "spending limits of the run: {requests, input-tokens, output-tokens, cost-usd}; a request that would pass one is not sent (ERROR, cause llm_budget_exhausted)"),
        key(
            "prices",
            Kind::Object,
            "USD per million tokens by model: {input, output}",
        ),
    ]);
    all
}

/// Which API a model is reached through (`provider`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::Display, strum::EnumIter, strum::IntoStaticStr,
)]
#[strum(serialize_all = "lowercase")]
pub enum Provider {
    /// Anthropic's Messages API.
    Anthropic,
    /// The OpenAI chat-completions API (OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio…).
    OpenAi,
}

impl Provider {
    /// The config token.
    pub fn token(self) -> &'static str {
        self.into()
    }

    /// Parses a config token.
    pub fn parse(s: &str) -> Option<Provider> {
        super::token::parse(s)
    }
}

/// Where replies are cached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheSetting {
    /// In this folder (relative paths are relative to the working folder).
    Folder(PathBuf),
    /// Not at all.
    Off,
}

/// Which side of the change the model is shown first across samples (`order`).
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
#[strum(serialize_all = "lowercase")]
pub enum Order {
    /// Every sample sees the diff from the reference to the workspace.
    #[default]
    Fixed,
    /// Odd-numbered samples see it the other way round (the workspace's lines first), with
    /// the sides named accordingly, so an answer that depends on the order shows as
    /// disagreement.
    Swap,
}

impl Order {
    /// The config token.
    pub fn token(self) -> &'static str {
        self.into()
    }
}

/// The default `agreement`: with up to four samples one dissenting answer already leaves the
/// question undecided; from five on one stray answer in five is tolerated.
pub const DEFAULT_AGREEMENT: f64 = 0.8;

/// Most `samples`.
pub const MAX_SAMPLES: u32 = 15;

/// The limit names, for an error that says what would be valid.
fn limit_names() -> String {
    LIMIT_KEYS
        .iter()
        .map(|k| k.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a `--llm-limit` flag is refused; each names the flag and what would be valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitFlagError {
    /// Not `KEY=VALUE`.
    #[error("--llm-limit {flag}: write KEY=VALUE, KEY one of {}", limit_names())]
    NotKeyValue {
        /// The flag's value as given.
        flag: String,
    },
    /// A count that is not a whole number over 0.
    #[error("--llm-limit {flag}: {key} must be a whole number over 0")]
    NotWhole {
        /// The flag's value as given.
        flag: String,
        /// The limit it names.
        key: String,
    },
    /// A cost that is not a finite number over 0.
    #[error("--llm-limit {flag}: cost-usd must be a number over 0")]
    NotCost {
        /// The flag's value as given.
        flag: String,
    },
    /// A key that is no limit.
    #[error("--llm-limit {flag}: {key} is not a limit; valid: {}", limit_names())]
    UnknownKey {
        /// The flag's value as given.
        flag: String,
        /// The key it names.
        key: String,
    },
}

/// Spending limits (`llm.limits`); `None` is no limit on that quantity.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// Most requests.
    pub requests: Option<u64>,
    /// Most input tokens.
    pub input_tokens: Option<u64>,
    /// Most output tokens.
    pub output_tokens: Option<u64>,
    /// Most cost in US dollars.
    pub cost_usd: Option<f64>,
}

impl Limits {
    /// Limits from `KEY=VALUE` flags (`judge-ci suite --llm-limit`); a wrong one is an error
    /// naming the flag and what would be valid.
    pub fn from_flags(flags: &[String]) -> Result<Limits, LimitFlagError> {
        let mut l = Limits::default();
        for f in flags {
            let Some((k, v)) = f.split_once('=') else {
                return Err(LimitFlagError::NotKeyValue { flag: f.clone() });
            };
            let whole = || match v.trim().parse::<u64>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(LimitFlagError::NotWhole {
                    flag: f.clone(),
                    key: k.to_string(),
                }),
            };
            match k.trim() {
                "requests" => l.requests = Some(whole()?),
                "input-tokens" => l.input_tokens = Some(whole()?),
                "output-tokens" => l.output_tokens = Some(whole()?),
                "cost-usd" => match v.trim().parse::<f64>() {
                    Ok(c) if c > 0.0 && c.is_finite() => l.cost_usd = Some(c),
                    _ => return Err(LimitFlagError::NotCost { flag: f.clone() }),
                },
                other => {
                    return Err(LimitFlagError::UnknownKey {
                        flag: f.clone(),
                        key: other.to_string(),
                    });
                }
            }
        }
        Ok(l)
    }

    /// Whether no limit is set.
    pub fn is_empty(&self) -> bool {
        self.requests.is_none()
            && self.input_tokens.is_none()
            && self.output_tokens.is_none()
            && self.cost_usd.is_none()
    }
}

/// Prices in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
}

/// What a prompt-injection finding does to the semantic judgment whose material held it
/// (`injection:`; trust.md point 9).
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
#[strum(serialize_all = "lowercase")]
pub enum Injection {
    /// The model's PASS (or NOT_APPLICABLE) becomes ABSTAIN; a FAIL or ERROR stands.
    #[default]
    Abstain,
    /// The judgment is FAIL whatever the model answered (an ERROR stands).
    Fail,
    /// The finding is reported; the model's answer stands.
    Report,
}

impl Injection {
    /// The config token.
    pub fn token(self) -> &'static str {
        self.into()
    }
}

/// What it does to a semantic judgment that the model could not be shown every file that
/// differs in full (`incomplete-material:`; trust.md point 20): the files not shown are
/// listed to the model and in the report either way.
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
#[strum(serialize_all = "lowercase")]
pub enum IncompleteMaterial {
    /// The model's PASS (or NOT_APPLICABLE) becomes ABSTAIN with cause
    /// `material_incomplete`; a FAIL or ERROR stands.
    #[default]
    Abstain,
    /// The judgment is FAIL whatever the model answered (an ERROR stands).
    Fail,
    /// The files not shown are reported; the model's answer stands.
    Report,
}

impl IncompleteMaterial {
    /// The config token.
    pub fn token(self) -> &'static str {
        self.into()
    }
}

/// Model settings; `None` leaves the value to the next level.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LlmSettings {
    /// `provider`.
    pub provider: Option<Provider>,
    /// `model`.
    pub model: Option<String>,
    /// `base-url`.
    pub base_url: Option<String>,
    /// `api-key-env`.
    pub api_key_env: Option<String>,
    /// `max-output-tokens`.
    pub max_output_tokens: Option<u32>,
    /// `temperature`.
    pub temperature: Option<f64>,
    /// `cache`.
    pub cache: Option<CacheSetting>,
    /// `concurrency`: most requests in flight.
    pub concurrency: Option<usize>,
    /// `prices`: per model name.
    pub prices: BTreeMap<String, Price>,
    /// `injection`: what a prompt-injection finding does (abstain when unset).
    pub injection: Option<Injection>,
    /// `incomplete-material`: what a change not shown in full does (abstain when unset).
    pub incomplete_material: Option<IncompleteMaterial>,
    /// `samples`: how many times each question is asked (1 when unset).
    pub samples: Option<u32>,
    /// `order`: fixed or swap across samples (fixed when unset).
    pub order: Option<Order>,
    /// `agreement`: the share of answers that decides ([`DEFAULT_AGREEMENT`] when unset).
    pub agreement: Option<f64>,
    /// `limits` (only under `llm:`): the run's spending limits.
    pub limits: Limits,
}

impl LlmSettings {
    /// These settings with the gaps filled from `fallback`.
    pub fn or(&self, fallback: &LlmSettings) -> LlmSettings {
        let mut prices = fallback.prices.clone();
        prices.extend(self.prices.iter().map(|(k, v)| (k.clone(), *v)));
        LlmSettings {
            provider: self.provider.or(fallback.provider),
            model: self.model.clone().or_else(|| fallback.model.clone()),
            base_url: self.base_url.clone().or_else(|| fallback.base_url.clone()),
            api_key_env: self
                .api_key_env
                .clone()
                .or_else(|| fallback.api_key_env.clone()),
            max_output_tokens: self.max_output_tokens.or(fallback.max_output_tokens),
            temperature: self.temperature.or(fallback.temperature),
            cache: self.cache.clone().or_else(|| fallback.cache.clone()),
            concurrency: self.concurrency.or(fallback.concurrency),
            prices,
            injection: self.injection.or(fallback.injection),
            incomplete_material: self.incomplete_material.or(fallback.incomplete_material),
            samples: self.samples.or(fallback.samples),
            order: self.order.or(fallback.order),
            agreement: self.agreement.or(fallback.agreement),
            // The run's limits are the config's alone; a check cannot set its own.
            limits: fallback.limits,
        }
    }
}

/// What the `llm` check asks the model for (`output`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::Display, strum::EnumIter, strum::IntoStaticStr,
)]
#[strum(serialize_all = "lowercase")]
pub enum LlmOutput {
    /// `{"verdict": "PASS"|"FAIL", "reasoning"}`.
    Verdict,
    /// `{"score": 0..1, "reasoning"}`; PASS iff score ≥ threshold.
    Score,
    /// `{"criteria": [{"name", "passed", "evidence"}]}`; score = passed/total.
    Criteria,
}

super::token::strum_tokens!(Provider, Injection, IncompleteMaterial, LlmOutput, Order);

/// One item of an EARS or RFC 2119 roster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RosterItem {
    /// Its id, as the model must repeat it.
    pub id: String,
    /// The requirement.
    pub text: String,
    /// The condition under which it applies; only such items may be NOT_APPLICABLE.
    pub applies_when: Option<String>,
}

/// Which roster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RosterKind {
    /// EARS requirements (`criteriaTotal`).
    Ears,
    /// RFC 2119 constraints (`constraintsTotal`).
    Rfc2119,
}

/// Where semantic-diff's criteria come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CriteriaSource {
    /// Listed in the config.
    Listed(Vec<String>),
    /// The `VERIFY:` lines of a plan file in the workspace.
    Plan(WorkspacePath),
    /// Neither: the sentences of the task's instruction.
    Goal,
}

/// The question a semantic check asks; its name (`semantic-diff`) is what a judge's
/// configuration reports.
#[derive(Clone, Debug, PartialEq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Question {
    /// `llm`.
    Llm {
        /// The requested shape.
        output: LlmOutput,
        /// Pass threshold for score and criteria.
        threshold: f64,
    },
    /// `test-quality-llm`: agent-bench's rubric, PASS iff the mean score ≥ 0.5.
    TestQuality,
    /// `semantic-diff`: one question per criterion.
    SemanticDiff {
        /// The criteria.
        criteria: CriteriaSource,
        /// Most criteria asked.
        max: usize,
    },
    /// `correctness`: does the change achieve the goal, strictly YES or NO.
    Correctness,
    /// `ears` / `rfc2119`.
    Roster {
        /// Which.
        kind: RosterKind,
        /// The items (never empty).
        items: Vec<RosterItem>,
    },
}

/// Reads the model keys of a mapping (`llm:` or a semantic check); unknown keys are the
/// caller's to report.
pub fn read(r: &mut Reader, m: &MarkedMappingNode, what: &str) -> Option<LlmSettings> {
    let mut s = LlmSettings::default();
    let mut ok = true;
    s.provider = r.key(m, what, "provider", &mut ok, Reader::token);
    s.injection = r.key(m, what, "injection", &mut ok, Reader::token);
    s.incomplete_material = r.key(m, what, "incomplete-material", &mut ok, Reader::token);
    s.model = r.key(m, what, "model", &mut ok, Reader::non_blank);
    if let Some(n) = m.get_node("base-url") {
        match r.non_blank(n, &format!("{what}.base-url")) {
            Some(u) if u.starts_with("http://") || u.starts_with("https://") => {
                match super::endpoint::check_base_url(&u) {
                    Ok(()) => s.base_url = Some(u.trim_end_matches('/').to_string()),
                    Err(why) => {
                        r.error(n, format!("{what}.{why}"));
                        ok = false;
                    }
                }
            }
            Some(_) => {
                r.error_help(
                    n,
                    format!("{what}.base-url must be an http:// or https:// URL"),
                    "for example https://api.openai.com/v1 or http://localhost:11434/v1",
                );
                ok = false;
            }
            None => ok = false,
        }
    }
    if let Some(n) = m.get_node("api-key-env") {
        match r.non_blank(n, &format!("{what}.api-key-env")) {
            Some(v)
                if v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !super::endpoint::key_env_allowed(&v) =>
            {
                r.error(
                    n,
                    format!("{what}.{}", super::endpoint::key_env_refusal(&v)),
                );
                ok = false;
            }
            Some(v) if v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                s.api_key_env = Some(v)
            }
            Some(_) => {
                r.error_help(
                    n,
                    format!("{what}.api-key-env must name an environment variable"),
                    "write the variable's name (ANTHROPIC_API_KEY), never the key itself",
                );
                ok = false;
            }
            None => ok = false,
        }
    }
    // At most a million, so the cast cannot truncate.
    s.max_output_tokens = r
        .key(m, what, "max-output-tokens", &mut ok, |r, n, w| {
            r.integer_in(n, w, 1..=1_000_000)
        })
        .map(|v| v as u32);
    s.temperature = r.key(m, what, "temperature", &mut ok, |r, n, w| {
        r.number_in(n, w, 0.0..=2.0)
    });
    s.samples = r
        .key(m, what, "samples", &mut ok, |r, n, w| {
            r.integer_in(n, w, 1..=i64::from(MAX_SAMPLES))
        })
        .map(|v| v as u32);
    s.order = r.key(m, what, "order", &mut ok, Reader::token);
    if let Some(n) = m.get_node("agreement") {
        match r.number(n, &format!("{what}.agreement")) {
            Some(a) if a > 0.5 && a <= 1.0 => s.agreement = Some(a),
            Some(a) => {
                r.error_help(
                    n,
                    format!("{what}.agreement must be over 0.5 and at most 1, got {a}"),
                    "a share of the answered samples: 0.8 (the default) or 1 (unanimous); at 0.5 or below both PASS and FAIL could reach it",
                );
                ok = false;
            }
            None => ok = false,
        }
    }
    if let Some(n) = m.get_node("cache") {
        match r.non_blank(n, &format!("{what}.cache")) {
            Some(v) if v == "off" => s.cache = Some(CacheSetting::Off),
            Some(v) => match cache_folder_problem(Path::new(&v)) {
                None => s.cache = Some(CacheSetting::Folder(PathBuf::from(v))),
                Some(why) => {
                    r.error_help(
                        n,
                        format!("{what}.cache: {why}"),
                        "a pull request can commit forged replies there; leave `cache` out (the default lives outside the workspace: $XDG_CACHE_HOME/judge-ci/llm, $RUNNER_TEMP/judge-ci/llm in Actions), give an absolute folder outside the repository, or write off",
                    );
                    ok = false;
                }
            },
            None => ok = false,
        }
    }
    s.concurrency = r
        .key(m, what, "concurrency", &mut ok, |r, n, w| {
            r.integer_in(n, w, 1..=64)
        })
        .map(|v| v as usize);
    if let Some(n) = m.get_node("limits") {
        match read_limits(r, n, &format!("{what}.limits")) {
            Some(l) => s.limits = l,
            None => ok = false,
        }
    }
    if let Some(n) = m.get_node("prices") {
        let pm = r.mapping(n, &format!("{what}.prices"))?;
        for (model, v) in pm.iter() {
            let w = format!("{what}.prices.{}", model.as_str());
            let Some(pv) = r.mapping(v, &w) else {
                ok = false;
                continue;
            };
            let mut read_price = |k: &str| -> Option<f64> {
                match pv.get_node(k) {
                    Some(x) => match r.number(x, &format!("{w}.{k}")) {
                        Some(p) if p >= 0.0 => Some(p),
                        Some(_) => {
                            r.error(x, format!("{w}.{k} must not be negative"));
                            None
                        }
                        None => None,
                    },
                    None => {
                        r.error_help(
                            v,
                            format!("{w} has no `{k}`"),
                            "write {input: USD per million input tokens, output: USD per million output tokens}",
                        );
                        None
                    }
                }
            };
            match (read_price("input"), read_price("output")) {
                (Some(input), Some(output)) => {
                    s.prices
                        .insert(model.as_str().to_string(), Price { input, output });
                }
                _ => ok = false,
            }
        }
    }
    ok.then_some(s)
}

/// Reads `llm.limits`: each key a positive limit; unknown keys are errors naming the valid
/// ones (a misspelt limit would otherwise leave spending unbounded).
fn read_limits(r: &mut Reader, n: &marked_yaml::Node, what: &str) -> Option<Limits> {
    let m = r.mapping(n, what)?;
    let mut ok = true;
    for (k, v) in m.iter() {
        if !LIMIT_KEYS.iter().any(|key| key.name == k.as_str()) {
            r.error_help(
                v,
                format!("{what}.{} is not a limit", k.as_str()),
                format!(
                    "valid: {}",
                    LIMIT_KEYS
                        .iter()
                        .map(|k| k.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            ok = false;
        }
    }
    let whole = |r: &mut Reader, n: &marked_yaml::Node, w: &str| {
        r.integer_in(n, w, 1..=i64::MAX).map(|v| v as u64)
    };
    let l = Limits {
        requests: r.key(m, what, "requests", &mut ok, whole),
        input_tokens: r.key(m, what, "input-tokens", &mut ok, whole),
        output_tokens: r.key(m, what, "output-tokens", &mut ok, whole),
        cost_usd: r.key(m, what, "cost-usd", &mut ok, |r, n, w| {
            match r.number(n, w)? {
                c if c > 0.0 => Some(c),
                c => {
                    r.error(n, format!("{w} must be over 0, got {c}"));
                    None
                }
            }
        }),
    };
    ok.then_some(l)
}

/// Why a configured cache folder is refused: a relative folder lies in the working folder
/// (the workspace, in CI), and so does an absolute one below it or below the repository the
/// working folder is in; the subject could commit replies there (`spec/trust.md` point 6).
pub fn cache_folder_problem(p: &Path) -> Option<String> {
    if !p.is_absolute() {
        return Some(format!(
            "'{}' is relative, so it lies inside the working folder (the workspace)",
            p.display()
        ));
    }
    let cwd = std::env::current_dir().ok()?;
    let top = git2::Repository::discover(&cwd)
        .ok()
        .and_then(|r| r.workdir().map(Path::to_path_buf))
        .unwrap_or(cwd);
    let canonical = |q: &Path| q.canonicalize().unwrap_or_else(|_| q.to_path_buf());
    // The folder may not exist yet: compare its nearest existing ancestor.
    let mut probe = p.to_path_buf();
    while !probe.exists() && probe.pop() {}
    let probe = canonical(&probe);
    let top = canonical(&top);
    probe.starts_with(&top).then(|| {
        format!(
            "'{}' is inside {}, the repository (or working folder) being judged",
            p.display(),
            top.display()
        )
    })
}
