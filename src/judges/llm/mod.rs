//! The semantic tier: judges that ask a model what structure cannot settle (`llm`,
//! `test-quality-llm`, `semantic-diff`, `correctness`, `ears`, `rfc2119`).
//!
//! Every failure of the model or its provider (no key, unreachable, refusal, a reply that
//! does not fit the requested JSON shape even after one repair) is an ERROR
//! (`judge_reported`) that says how to fix it, never a FAIL. Replies are cached by content,
//! so an unchanged re-run asks nothing; requests, cache hits, tokens and (with a price table)
//! cost go into the judgment's `llm` metadata, from which the report adds them up.

pub mod answer;
pub mod budget;
pub mod injection;
pub mod prompt;
pub mod provider;
pub mod replies;
pub mod samples;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::config::llm::{
    CacheSetting, CriteriaSource, DEFAULT_AGREEMENT, IncompleteMaterial, Injection, LlmOutput,
    LlmSettings, Order, Price, Provider, Question, RosterKind,
};
use crate::judgment::{
    Cause, Check, Judgment, JudgmentBuilder, JudgmentContext, ReasonCode, Status,
};

use super::{Outcome, build, instrument, instrument_because};
use provider::{Ask, LlmError, Model, Reply};
use replies::Cache;

/// The metadata key of a judgment whose criteria the subject set (a plan read from its
/// workspace), with the value `subject`: suites and reports find such judgments by it.
pub const CRITERIA_SET_BY_KEY: &str = "criteriaSetBy";

/// The words that mark criteria the subject set, in a judgment's reasoning.
pub const SET_BY_SUBJECT_MARK: &str = "(set by the subject)";

/// The metadata key holding a judgment's model usage.
pub const USAGE_KEY: &str = "llm";

/// Longest diff shown to a model, in characters.
const DIFF_BUDGET: usize = 48_000;

/// Longest raw reply kept in an ERROR's metadata.
const RAW_KEPT: usize = 2_000;

/// Reads an environment variable (the process environment, or a map in tests).
pub type EnvLookup = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// What semantic judges share: the config's `llm:` defaults, one HTTP client, the cap on
/// requests in flight, and the spending budgets every request counts against (the run's
/// `llm.limits`, and a suite's shared one).
pub struct Runtime {
    defaults: LlmSettings,
    http: OnceLock<Result<reqwest::Client, reqwest::Error>>,
    permits: Arc<Semaphore>,
    env: EnvLookup,
    budgets: Vec<Arc<budget::Budget>>,
}

impl Runtime {
    /// A runtime reading keys and overrides from the process environment.
    pub fn new(defaults: LlmSettings) -> Runtime {
        Runtime::with_env(defaults, Box::new(|k| std::env::var(k).ok()))
    }

    /// A runtime reading the environment through `env` (tests).
    pub fn with_env(defaults: LlmSettings, env: EnvLookup) -> Runtime {
        let permits = Arc::new(Semaphore::new(defaults.concurrency.unwrap_or(4)));
        let budgets = if defaults.limits.is_empty() {
            Vec::new()
        } else {
            vec![Arc::new(budget::Budget::new(
                budget::Scope::Run,
                defaults.limits,
            ))]
        };
        Runtime {
            defaults,
            http: OnceLock::new(),
            permits,
            env,
            budgets,
        }
    }

    /// This runtime with `shared` (a suite's budget) counted against as well.
    pub fn sharing(mut self, shared: Option<Arc<budget::Budget>>) -> Runtime {
        self.budgets.extend(shared);
        self
    }

    /// Every limit set and what was spent against it, for the report.
    pub fn limit_uses(&self) -> Vec<budget::LimitUse> {
        self.budgets.iter().flat_map(|b| b.uses()).collect()
    }

    fn http(&self) -> Result<&reqwest::Client, &reqwest::Error> {
        self.http
            .get_or_init(|| {
                // reqwest needs a process-wide crypto provider; installing twice is harmless.
                let _ = rustls::crypto::ring::default_provider().install_default();
                reqwest::Client::builder()
                    .user_agent(concat!("judge-ci/", env!("CARGO_PKG_VERSION")))
                    .build()
            })
            .as_ref()
    }
}

/// Why no model could be set up for a semantic check: its settings, or the environment's
/// overrides of them, are wrong or incomplete. Each says what to set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// `JUDGE_CI_LLM_PROVIDER` names no provider judge-ci speaks to.
    #[error("JUDGE_CI_LLM_PROVIDER is {value:?}; valid: {}", crate::config::token::preferred::<Provider>().join(", "))]
    UnknownProvider {
        /// The variable's value.
        value: String,
    },
    /// The base URL (the config's, or `JUDGE_CI_LLM_BASE_URL`) is refused.
    #[error(transparent)]
    BaseUrl(#[from] crate::config::endpoint::BaseUrlError),
    /// The key variable's name is not one judge-ci reads keys from.
    #[error("{}", crate::config::endpoint::key_env_refusal(.key_env))]
    KeyEnvRefused {
        /// The variable's name.
        key_env: String,
    },
    /// The key variable is empty and the provider is not on this machine.
    #[error(
        "the API key for {} ({model}) is not set: the environment variable {key_env} is empty. Set it (in GitHub Actions: `env: {key_env}: ${{{{ secrets.{key_env} }}}}`), or point llm.api-key-env at the variable that holds it",
        .provider.token()
    )]
    NoKey {
        /// The provider.
        provider: Provider,
        /// The model.
        model: String,
        /// The variable that should hold the key.
        key_env: String,
    },
}

impl SetupError {
    /// Every setup error is the check's own settings being wrong or incomplete.
    pub fn cause(&self) -> Cause {
        match self {
            SetupError::UnknownProvider { .. }
            | SetupError::BaseUrl(_)
            | SetupError::KeyEnvRefused { .. }
            | SetupError::NoKey { .. } => Cause::JudgeMisconfigured,
        }
    }
}

/// Why a question could not be put together (before anything is sent).
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// No random boundary for the untrusted material.
    #[error(transparent)]
    Boundary(#[from] injection::NoRandomness),
    /// The prompt template does not parse or render.
    #[error(transparent)]
    Template(#[from] prompt::RenderError),
    /// The rendered prompt shows the change's material outside the untrusted-data boundary.
    #[error(
        "the prompt template shows the change's material (the diff, or criteria read from the workspace) outside the untrusted-data boundary: put {{{{ diff }}}} between {{{{ untrusted_begin }}}} and {{{{ untrusted_end }}}}, or {{% include \"_material.j2\" %}}"
    )]
    OutsideBoundary,
}

/// The model for `s`, after the environment's overrides; an error says what to set.
pub fn resolve(
    s: &LlmSettings,
    timeout: Duration,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Model, SetupError> {
    let provider = match env("JUDGE_CI_LLM_PROVIDER").filter(|v| !v.trim().is_empty()) {
        Some(p) => Provider::parse(p.trim())
            .ok_or_else(|| SetupError::UnknownProvider { value: p.clone() })?,
        None => s.provider.unwrap_or(Provider::Anthropic),
    };
    let model = env("JUDGE_CI_LLM_MODEL")
        .filter(|v| !v.trim().is_empty())
        .or_else(|| s.model.clone())
        .unwrap_or_else(|| match provider {
            Provider::Anthropic => "claude-sonnet-4-6".into(),
            Provider::OpenAi => "gpt-4.1-mini".into(),
        });
    let base_url = env("JUDGE_CI_LLM_BASE_URL")
        .filter(|v| !v.trim().is_empty())
        .or_else(|| s.base_url.clone())
        .unwrap_or_else(|| match provider {
            Provider::Anthropic => "https://api.anthropic.com".into(),
            Provider::OpenAi => "https://api.openai.com/v1".into(),
        })
        .trim_end_matches('/')
        .to_string();
    let key_env = s.api_key_env.clone().unwrap_or_else(|| match provider {
        Provider::Anthropic => "ANTHROPIC_API_KEY".into(),
        Provider::OpenAi => "OPENAI_API_KEY".into(),
    });
    // The config was checked at load; the environment's overrides are checked here.
    crate::config::endpoint::check_base_url(&base_url)?;
    if !crate::config::endpoint::key_env_allowed(&key_env) {
        return Err(SetupError::KeyEnvRefused { key_env });
    }
    let key = env(&key_env).filter(|k| !k.trim().is_empty());
    if let Some(k) = &key {
        crate::secrets::register(k);
    }
    let local = url::Url::parse(&base_url)
        .ok()
        .is_some_and(|u| crate::config::endpoint::is_loopback(&u));
    if key.is_none() && !local {
        return Err(SetupError::NoKey {
            provider,
            model,
            key_env,
        });
    }
    Ok(Model {
        provider,
        model,
        base_url,
        key,
        key_env,
        max_tokens: s.max_output_tokens.unwrap_or(1024),
        temperature: s.temperature.unwrap_or(0.0),
        timeout,
    })
}

/// Requests, cache hits and tokens of one judge.
#[derive(Clone, Copy, Debug, Default)]
struct Usage {
    requests: u64,
    cache_hits: u64,
    input: u64,
    output: u64,
}

/// Why a question got no usable answer.
enum Failure {
    /// The provider or the model failed.
    Llm(LlmError),
    /// The reply did not fit the shape, even after one repair.
    Contract {
        why: answer::AnswerError,
        raw: String,
    },
}

/// One judge's conversation with its model.
struct Session<'r> {
    rt: &'r Runtime,
    model: Model,
    cache: Cache,
    template: String,
    price: Option<Price>,
    usage: Mutex<Usage>,
}

impl Session<'_> {
    fn count(&self, f: impl FnOnce(&mut Usage)) {
        if let Ok(mut u) = self.usage.lock() {
            f(&mut u);
        }
    }

    async fn send(&self, ask: &Ask) -> Result<Reply, Failure> {
        let http = self.rt.http().map_err(|e| {
            Failure::Llm(LlmError::Unreachable {
                url: self.model.base_url.clone(),
                why: format!("cannot build the HTTP client: {}", crate::http::chain(e)),
            })
        })?;
        let _permit = self.rt.permits.acquire().await;
        let estimate = budget::Cost::estimate(
            ask.system.len() + ask.user.len() + ask.schema.to_string().len(),
            self.model.max_tokens,
            self.price,
        );
        let mut held: Vec<Vec<budget::Held>> = Vec::new();
        let (budgets, model) = (&self.rt.budgets, self.model.model.as_str());
        let sent = {
            let mut gate = || -> Result<(), LlmError> {
                let h =
                    budget::Budget::reserve(budgets, estimate, model).map_err(LlmError::Budget)?;
                held.push(h);
                // Counted when sent, not when answered: a check that runs out of time while
                // a request is in flight still reports it (its tokens are unknown).
                self.count(|u| u.requests += 1);
                Ok(())
            };
            provider::send(http, &self.model, ask, &mut gate).await
        };
        // Earlier attempts got no answer; the last is corrected to the reported usage.
        let last = held.pop();
        for h in held.into_iter().flatten() {
            h.settle(None);
        }
        let actual = sent
            .as_ref()
            .ok()
            .map(|r| budget::Cost::of(r.input_tokens, r.output_tokens, self.price));
        for h in last.into_iter().flatten() {
            h.settle(actual);
        }
        let reply = sent.map_err(Failure::Llm)?;
        self.count(|u| {
            u.input += reply.input_tokens;
            u.output += reply.output_tokens;
        });
        Ok(reply)
    }

    /// Asks `ask` and reads the answer with `read`: from the cache if it holds a fitting
    /// answer, else from the model, with one repair request when the reply does not fit.
    /// Each sample index has its own cache entry, so an unchanged re-run with `samples: N`
    /// asks nothing and a fresh run asks N times.
    async fn ask<T>(
        &self,
        ask: Ask,
        sample: u32,
        read: impl Fn(&Value) -> Result<T, answer::AnswerError>,
    ) -> Result<T, Failure> {
        let key = Cache::key(&self.model, &self.template, &ask, sample);
        if let Some(hit) = self.cache.get(&key)
            && let Ok(t) = answer::extract_json(&hit.text).and_then(|v| read(&v))
        {
            self.count(|u| u.cache_hits += 1);
            return Ok(t);
        }
        let first = self.send(&ask).await?;
        let why = match answer::extract_json(&first.text).and_then(|v| read(&v)) {
            Ok(t) => {
                let _ = self.cache.put(&key, &first);
                return Ok(t);
            }
            Err(why) => why,
        };
        let raw: String = first.text.chars().take(4_000).collect();
        let repair = Ask {
            system: ask.system.clone(),
            user: format!(
                "{}\n\n## Your previous answer did not fit\n{why}\n\nYour previous answer was:\n```\n{raw}\n```\nAnswer again with only the JSON object in the requested shape.",
                ask.user
            ),
            schema: ask.schema.clone(),
            nonce: ask.nonce.clone(),
        };
        let second = self.send(&repair).await?;
        match answer::extract_json(&second.text).and_then(|v| read(&v)) {
            Ok(t) => {
                // The question is the same: the repaired answer serves the next run.
                let _ = self.cache.put(&key, &second);
                Ok(t)
            }
            Err(why) => Err(Failure::Contract {
                why,
                raw: second.text,
            }),
        }
    }

    /// The usage block for the judgment's metadata.
    fn usage(&self) -> Value {
        let u = self.usage.lock().map(|u| *u).unwrap_or_default();
        let mut v = json!({
            "provider": self.model.provider.token(),
            "model": self.model.model,
            "requests": u.requests,
            "cacheHits": u.cache_hits,
            "inputTokens": u.input,
            "outputTokens": u.output,
        });
        if let Some(p) = self.price {
            let cost = (u.input as f64 * p.input + u.output as f64 * p.output) / 1_000_000.0;
            v["costUsd"] = json!((cost * 1e6).round() / 1e6);
        }
        v
    }

    fn finish(&self, b: JudgmentBuilder) -> Outcome {
        build(b.metadata(USAGE_KEY, self.usage()))
    }

    /// The ERROR for a failure: what happened and how to fix it.
    fn failed(&self, f: Failure, what: &str) -> Outcome {
        let b = Judgment::builder(Status::Error).reason_code(ReasonCode::JudgeReported);
        let b = match f {
            Failure::Llm(e) => b.cause(e.cause()).reasoning(format!(
                "{what}: {e}; {} (model {} at {})",
                e.help(&self.model),
                self.model.model,
                self.model.base_url
            )),
            Failure::Contract { why, raw } => b
                .cause(why.cause())
                .reasoning(format!(
                    "{what}: the model's reply did not fit the requested JSON shape after one repair: {why}"
                ))
                .metadata("rawReply", raw.chars().take(RAW_KEPT).collect::<String>()),
        };
        self.finish(b)
    }
}

fn question_template(q: &Question) -> &'static str {
    match q {
        Question::Llm { .. } => "llm",
        Question::TestQuality => "test-quality",
        Question::SemanticDiff { .. } => "semantic-diff",
        Question::Correctness => "correctness",
        Question::Roster { .. } => "requirements",
    }
}

/// How the samples of `question` combine: statuses for a verdict, YES/NO or a roster; the
/// median score for a score, model-named criteria (their names differ between answers) or a
/// rubric; criterion by criterion for semantic-diff, whose criteria are the same every time.
fn rule_of(question: &Question) -> samples::Rule {
    match question {
        Question::Llm {
            output: LlmOutput::Verdict,
            ..
        }
        | Question::Correctness
        | Question::Roster { .. } => samples::Rule::Status,
        Question::Llm {
            output: LlmOutput::Score | LlmOutput::Criteria,
            threshold,
        } => samples::Rule::Score {
            threshold: *threshold,
        },
        Question::TestQuality => samples::Rule::Score { threshold: 0.5 },
        Question::SemanticDiff { .. } => samples::Rule::Criteria { pass_at: 0.5 },
    }
}

/// The `VERIFY:` lines of a plan.
pub fn verify_lines(plan: &str) -> Vec<String> {
    verify_lines_at(plan).into_iter().map(|(_, l)| l).collect()
}

/// The `VERIFY:` lines of a plan with their 1-based line numbers.
pub fn verify_lines_at(plan: &str) -> Vec<(u64, String)> {
    plan.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim().trim_start_matches(['-', '*', ' ']);
            t.strip_prefix("VERIFY:")
                .map(|c| (i as u64 + 1, c.trim().to_string()))
        })
        .filter(|(_, c)| !c.is_empty())
        .collect()
}

/// The sentences of a text (the task's instruction as criteria).
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        cur.push(if c.is_whitespace() { ' ' } else { *c });
        let end =
            matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if end {
            let t = cur.split_whitespace().collect::<Vec<_>>().join(" ");
            if t.len() > 1 {
                out.push(t);
            }
            cur.clear();
        }
    }
    let t = cur.split_whitespace().collect::<Vec<_>>().join(" ");
    if !t.is_empty() {
        out.push(t);
    }
    out
}

/// Runs one semantic check.
pub async fn judge(
    rt: &Runtime,
    ctx: &JudgmentContext,
    question: &Question,
    own: &LlmSettings,
    prompt: Option<&(PathBuf, String)>,
    timeout: Duration,
    name: &str,
) -> Outcome {
    let settings = own.or(&rt.defaults);
    let model = match resolve(&settings, timeout, &*rt.env) {
        Ok(m) => m,
        Err(why) => {
            return instrument_because(Some(why.cause()), format!("{name}: {why}"));
        }
    };
    let dir = match &settings.cache {
        Some(CacheSetting::Off) => None,
        Some(CacheSetting::Folder(p)) => Some(p.clone()),
        None => replies::default_dir(&*rt.env),
    };
    // The load refused a configured folder inside the repository; this catches a default
    // pointed there too (an XDG_CACHE_HOME inside the workspace): such a cache is not used.
    let inside = |p: &Path| {
        let mut probe = p.to_path_buf();
        while !probe.exists() && probe.pop() {}
        let ws = ctx
            .workspace
            .canonicalize()
            .unwrap_or(ctx.workspace.clone());
        probe.canonicalize().is_ok_and(|q| q.starts_with(&ws))
    };
    let cache = Cache::new(dir.filter(|d| !inside(d)));
    let template_text = prompt.map_or(prompt::builtin(question_template(question)), |p| {
        p.1.as_str()
    });
    let session = Session {
        rt,
        price: settings.prices.get(&model.model).copied(),
        model,
        cache,
        template: prompt::template_hash(template_text),
        usage: Mutex::new(Usage::default()),
    };
    // The check's time limit is kept here, not around this function, so that a check that
    // runs out of time still reports the requests it sent (and the tokens of those answered).
    match tokio::time::timeout(
        timeout,
        asked(
            &session,
            ctx,
            question,
            &settings,
            prompt,
            template_text,
            name,
        ),
    )
    .await
    {
        Ok(out) => out,
        Err(_) => session.finish(
            Judgment::builder(Status::Error)
                .reason_code(ReasonCode::JudgeReported)
                .cause(Cause::Timeout)
                .reasoning(format!(
                    "{name}: the model did not answer within {} (raise the check's timeout)",
                    super::command::humantime(timeout)
                )),
        ),
    }
}

/// [`judge`] once the model and its session are set up: the material, the samples asked,
/// their answers decided.
async fn asked(
    session: &Session<'_>,
    ctx: &JudgmentContext,
    question: &Question,
    settings: &LlmSettings,
    prompt: Option<&(PathBuf, String)>,
    template_text: &str,
    name: &str,
) -> Outcome {
    let asking = samples::Asking {
        samples: settings.samples.unwrap_or(1).max(1),
        agreement: settings.agreement.unwrap_or(DEFAULT_AGREEMENT),
        swap: settings.order.unwrap_or_default() == Order::Swap,
    };
    // A template of the user's own must say which side comes first, or a swapped diff
    // would be read the wrong way round.
    if asking.swap
        && prompt.is_some()
        && !template_text.contains("_material.j2")
        && !template_text.contains("swapped")
    {
        return instrument_because(
            Some(Cause::JudgeMisconfigured),
            format!(
                "{name}: order: swap shows odd samples the diff the other way round, and the prompt template does not say which side comes first: {{% include \"_material.j2\" %}}, or use {{{{ swapped }}}} in it"
            ),
        );
    }

    // The material: the change against the reference (blocking file reads, off the runtime),
    // and with `order: swap` the same change the other way round.
    let c = ctx.clone();
    let swap = asking.swap && asking.samples > 1;
    let (change, reversed) = match tokio::task::spawn_blocking(move || {
        let reference = super::structural::reference(&c).ok();
        // The workspace as submitted, not as a build left it (the snapshot rule).
        let submitted = super::snapshot::submitted(&c);
        let mut change = prompt::change(&submitted, reference.as_deref(), DIFF_BUDGET);
        if let Some(r) = reference.as_deref() {
            prompt::add_out_of_sight(&mut change, prompt::committed_out_of_sight(&c.workspace), r);
            prompt::add_gitlinks(&mut change, prompt::committed_gitlinks(&c.workspace), r);
        }
        let reversed = match (&reference, swap) {
            (Some(r), true) => Some(prompt::Change {
                swapped: true,
                ..prompt::change(r, Some(&submitted), DIFF_BUDGET)
            }),
            _ => None,
        };
        (change, reversed)
    })
    .await
    {
        Ok(ch) => ch,
        Err(e) => return instrument(format!("{name}: cannot read the change: {e}")),
    };
    let found = std::sync::Mutex::new(change.injections.clone());
    let asks = (0..asking.samples).map(|i| {
        let (material, swapped) = match &reversed {
            Some(r) if i % 2 == 1 => (r, true),
            _ => (&change, false),
        };
        let found = &found;
        async move {
            let out = ask_question(
                session,
                ctx,
                question,
                (material, i),
                template_text,
                name,
                found,
            )
            .await;
            (i, swapped, out)
        }
    });
    let answers = futures::future::join_all(asks).await;
    let out = if asking.samples == 1 {
        answers.into_iter().next().map_or_else(
            || instrument(format!("{name}: no sample was asked")),
            |a| a.2,
        )
    } else {
        let mut all = Vec::new();
        for (index, swapped, out) in answers {
            all.push(samples::Sampled {
                index,
                swapped,
                judgment: out?,
            });
        }
        samples::decide(all, rule_of(question), asking, USAGE_KEY, session.usage())
            .map_err(crate::judgment::Fault::from)
    };
    let found = found.into_inner().unwrap_or_default();
    let out = guard(out, &found, settings.injection.unwrap_or_default());
    incomplete(
        out,
        &change.unshown,
        settings.incomplete_material.unwrap_or_default(),
    )
}

/// What material the model was not shown in full does to `out` under `policy` (trust.md
/// point 20): a PASS (or NOT_APPLICABLE) does not rest on partial material (ABSTAIN with
/// cause `material_incomplete`, or FAIL with `fail`); with `report` the answer stands. Either
/// way the judgment's reasoning names what was not shown and its metadata lists every file.
fn incomplete(out: Outcome, unshown: &[prompt::Unshown], policy: IncompleteMaterial) -> Outcome {
    let j = match out {
        Ok(j) if !unshown.is_empty() => j,
        other => return other,
    };
    let said = j.status();
    let status = match (policy, said) {
        (_, Status::Error) => Status::Error,
        (IncompleteMaterial::Report, s) => s,
        (IncompleteMaterial::Fail, _) => Status::Fail,
        (IncompleteMaterial::Abstain, Status::Pass | Status::NotApplicable) => Status::Abstain,
        (IncompleteMaterial::Abstain, s @ (Status::Fail | Status::Abstain)) => s,
    };
    let mut places: Vec<String> = unshown
        .iter()
        .take(5)
        .map(|u| format!("{} ({})", u.path, u.reason))
        .collect();
    if unshown.len() > 5 {
        places.push(format!("{} more", unshown.len() - 5));
    }
    let mut b = Judgment::builder(status)
        .reasoning(format!(
            "the model was not shown {} file(s) of the change in full: {} (incomplete-material: {}). {}",
            unshown.len(),
            places.join(", "),
            policy.token(),
            j.reasoning()
        ))
        .checks(j.checks().to_vec())
        .findings(j.findings().iter().cloned());
    if status == said {
        if let Some(score) = j.score() {
            b = b.score(score);
        }
        if let Some(code) = j.reason_code() {
            b = b.reason_code(code);
        }
        b = b.maybe_cause(j.cause());
    } else if status == Status::Abstain {
        b = b.cause(Cause::MaterialIncomplete);
    }
    for (k, v) in j.metadata() {
        b = b.metadata(k.clone(), v.clone());
    }
    b = b.metadata(
        "materialNotShown",
        json!(unshown
            .iter()
            .map(|u| json!({"path": u.path, "reason": u.reason, "size": u.size, "sha256": u.sha256}))
            .collect::<Vec<_>>()),
    );
    build(b)
}

/// What a prompt-injection finding does to `out` under `policy`: the judgment does not pass
/// on the model's word (ABSTAIN or FAIL), or, with `report`, keeps the model's answer; every
/// finding goes into its `findings` and its reasoning names where.
fn guard(out: Outcome, found: &[injection::Hit], policy: Injection) -> Outcome {
    let j = match out {
        Ok(j) if !found.is_empty() => j,
        other => return other,
    };
    let said = j.status();
    let status = match (policy, said) {
        (_, Status::Error) => Status::Error,
        (Injection::Report, s) => s,
        (Injection::Fail, _) => Status::Fail,
        (Injection::Abstain, Status::Pass | Status::NotApplicable) => Status::Abstain,
        (Injection::Abstain, s @ (Status::Fail | Status::Abstain)) => s,
    };
    let mut places: Vec<String> = found.iter().take(5).map(injection::Hit::place).collect();
    if found.len() > 5 {
        places.push(format!("{} more", found.len() - 5));
    }
    let word = |s: Status| match s {
        Status::Pass => "PASS",
        Status::Fail => "FAIL",
        Status::Abstain => "ABSTAIN",
        Status::NotApplicable => "NOT_APPLICABLE",
        Status::Error => "ERROR",
    };
    let effect = if status == said {
        format!("injection: {}; the {} stands", policy.token(), word(said))
    } else {
        format!(
            "injection: {}, so the model's {} does not count and the judgment is {}",
            policy.token(),
            word(said),
            word(status)
        )
    };
    let mut b = Judgment::builder(status)
        .reasoning(format!(
            "prompt injection: the change's material holds text addressed to the grader at {} ({effect}). {}",
            places.join(", "),
            j.reasoning()
        ))
        .checks(j.checks().to_vec());
    if status == said {
        if let Some(score) = j.score() {
            b = b.score(score);
        }
        if let Some(code) = j.reason_code() {
            b = b.reason_code(code);
        }
    }
    b = b
        .findings(j.findings().iter().cloned())
        .findings(found.iter().map(injection::Hit::finding));
    if status == said {
        b = b.maybe_cause(j.cause());
    } else if status == Status::Abstain {
        b = b.cause(Cause::PromptInjection);
    }
    for (k, v) in j.metadata() {
        b = b.metadata(k.clone(), v.clone());
    }
    b = b.metadata(
        "injection",
        json!({"policy": policy.token(), "modelStatus": word(said).to_ascii_lowercase()}),
    );
    build(b)
}

/// Asks `question` about `change` through `session`; criteria read from the workspace (a
/// plan's `VERIFY:` lines) are scanned into `found` and shown inside the boundary. `sample`
/// is the sample's index, its place in the reply cache.
async fn ask_question(
    session: &Session<'_>,
    ctx: &JudgmentContext,
    question: &Question,
    (change, sample): (&prompt::Change, u32),
    template_text: &str,
    name: &str,
    found: &std::sync::Mutex<Vec<injection::Hit>>,
) -> Outcome {
    let mut vars = prompt::Vars {
        goal: &ctx.goal,
        name,
        change,
        output: "",
        criterion: "",
        items: Vec::new(),
        conditional: Vec::new(),
        kind: "",
        untrusted_begin: String::new(),
        untrusted_end: String::new(),
    };
    // Criteria from a plan in the workspace are the author's text, like the diff.
    let mut untrusted_criteria = false;
    // The workspace's plan whose VERIFY: lines are the criteria: an exam the subject wrote.
    let mut subject_plan: Option<String> = None;
    // Each request gets its own boundary; the template must show the author's material
    // (the diff, untrusted criteria) only inside it.
    let ask_for = |vars: &prompt::Vars<'_>,
                   untrusted_criterion: bool,
                   schema: Value|
     -> Result<Ask, AskError> {
        let mut material: Vec<&str> = vec![&change.diff, vars.criterion, vars.goal];
        material.extend(change.changed.iter().map(|c| c.path.as_str()));
        let b = injection::Boundary::fresh(&material)?;
        let wrapped = b.wrap(vars.criterion);
        let mut v = vars.clone();
        v.untrusted_begin = b.begin.clone();
        v.untrusted_end = b.end.clone();
        let mut pieces = vec![change.diff.as_str()];
        if untrusted_criterion {
            v.criterion = &wrapped;
            pieces.push(vars.criterion);
        }
        let user = prompt::render(template_text, &v)?;
        if !b.encloses(&user, &pieces) {
            return Err(AskError::OutsideBoundary);
        }
        Ok(Ask {
            system: format!("{}\n\n{}", prompt::SYSTEM.trim_end(), b.instructions()),
            user,
            schema,
            nonce: b.nonce.clone(),
        })
    };

    match question {
        Question::Llm { output, threshold } => {
            let (shape, schema) = match output {
                LlmOutput::Verdict => ("verdict", answer::verdict_schema()),
                LlmOutput::Score => ("score", answer::score_schema()),
                LlmOutput::Criteria => ("criteria", answer::criteria_schema()),
            };
            vars.output = shape;
            let ask = match ask_for(&vars, false, schema) {
                Ok(a) => a,
                Err(e) => return instrument(format!("{name}: {e}")),
            };
            match output {
                LlmOutput::Verdict => match session.ask(ask, sample, answer::verdict).await {
                    Ok((passed, why)) => session.finish(
                        Judgment::builder(if passed { Status::Pass } else { Status::Fail })
                            .reasoning(why),
                    ),
                    Err(f) => session.failed(f, name),
                },
                LlmOutput::Score => match session.ask(ask, sample, answer::score).await {
                    Ok((score, why)) => session.finish(
                        Judgment::builder(if score >= *threshold {
                            Status::Pass
                        } else {
                            Status::Fail
                        })
                        .score(score)
                        .reasoning(format!("score {score:.2} (threshold {threshold}): {why}")),
                    ),
                    Err(f) => session.failed(f, name),
                },
                LlmOutput::Criteria => match session.ask(ask, sample, answer::criteria).await {
                    Ok(list) => {
                        let passed = list.iter().filter(|c| c.1).count();
                        let score = passed as f64 / list.len() as f64;
                        let checks: Result<Vec<Check>, _> = list
                            .iter()
                            .map(|(n, ok, ev)| Check::new(n, *ok, ev))
                            .collect();
                        match checks {
                            Ok(checks) => session.finish(
                                Judgment::builder(if score >= *threshold {
                                    Status::Pass
                                } else {
                                    Status::Fail
                                })
                                .score(score)
                                .checks(checks)
                                .reasoning(format!(
                                    "{passed} of {} criteria met (threshold {threshold})",
                                    list.len()
                                )),
                            ),
                            Err(e) => instrument(format!("{name}: {e}")),
                        }
                    }
                    Err(f) => session.failed(f, name),
                },
            }
        }
        Question::TestQuality => {
            let ask = match ask_for(&vars, false, answer::rubric_schema()) {
                Ok(a) => a,
                Err(e) => return instrument(format!("{name}: {e}")),
            };
            match session.ask(ask, sample, answer::rubric).await {
                Ok(list) => {
                    let mean = list.iter().map(|c| c.1).sum::<f64>() / list.len() as f64;
                    let checks: Result<Vec<Check>, _> = list
                        .iter()
                        .map(|(n, s, ev)| Check::new(n, *s >= 0.5, format!("{s:.2}: {ev}")))
                        .collect();
                    match checks {
                        Ok(checks) => session.finish(
                            Judgment::builder(if mean >= 0.5 {
                                Status::Pass
                            } else {
                                Status::Fail
                            })
                            .score(mean)
                            .checks(checks)
                            .reasoning(format!(
                                "mean rubric score {mean:.2} over {} criteria (pass at 0.50)",
                                list.len()
                            )),
                        ),
                        Err(e) => instrument(format!("{name}: {e}")),
                    }
                }
                Err(f) => session.failed(f, name),
            }
        }
        Question::SemanticDiff { criteria, max } => {
            let all = match criteria {
                CriteriaSource::Listed(l) => l.clone(),
                CriteriaSource::Plan(p) => {
                    let submitted = super::snapshot::submitted(ctx);
                    let path = match super::paths::resolve(&submitted, p.as_path()) {
                        super::paths::Resolved::Inside(p) => p,
                        super::paths::Resolved::Escapes(why) => {
                            return instrument(format!(
                                "{name}: the plan path escapes the workspace: {why}"
                            ));
                        }
                        super::paths::Resolved::ThroughLink(link) => {
                            return super::not_regular_fail(
                                name,
                                Path::new(""),
                                &[(link, crate::untrusted::Kind::Symlink)],
                            );
                        }
                        super::paths::Resolved::Missing(_) => {
                            return build(Judgment::builder(Status::Abstain).cause(Cause::EvidenceMissing).reasoning(format!(
                                "the plan {} does not exist, so there are no criteria to verify",
                                p.as_path().display()
                            )));
                        }
                    };
                    let text =
                        match super::paths::read_text_limited(&path, super::paths::MAX_INPUT_BYTES)
                        {
                            Ok(t) => t,
                            Err(e) => {
                                return instrument(format!(
                                    "{name}: the plan {} cannot be read: {e}",
                                    p.as_path().display()
                                ));
                            }
                        };
                    let numbered = verify_lines_at(&text);
                    let lines: Vec<String> = numbered.iter().map(|(_, l)| l.clone()).collect();
                    if lines.is_empty() {
                        return build(Judgment::builder(Status::Abstain).cause(Cause::EvidenceMissing).reasoning(format!(
                            "the plan {} has no VERIFY: lines, so there are no criteria to verify",
                            p.as_path().display()
                        )));
                    }
                    // The asked criteria are material from the workspace: scanned, and shown
                    // inside the boundary.
                    let asked: Vec<(u64, &str)> = numbered
                        .iter()
                        .take(*max)
                        .map(|(n, l)| (*n, l.as_str()))
                        .collect();
                    let plan = p.as_path().to_string_lossy().replace('\\', "/");
                    if let Ok(mut f) = found.lock() {
                        for hit in injection::scan_lines(&plan, &asked) {
                            if !f.contains(&hit) {
                                f.push(hit);
                            }
                        }
                    }
                    untrusted_criteria = true;
                    subject_plan = Some(plan);
                    lines
                }
                CriteriaSource::Goal => sentences(&ctx.goal),
            };
            if all.is_empty() {
                return build(Judgment::builder(Status::Abstain).reasoning(
                    "no criteria to verify: the check lists none, names no plan, and the task gives no instruction",
                ));
            }
            let asked: Vec<&String> = all.iter().take(*max).collect();
            let mut asks = Vec::new();
            for c in &asked {
                vars.criterion = c;
                match ask_for(&vars, untrusted_criteria, answer::check_schema()) {
                    Ok(a) => asks.push(a),
                    Err(e) => return instrument(format!("{name}: {e}")),
                }
            }
            let answers = futures::future::join_all(
                asks.into_iter()
                    .map(|a| session.ask(a, sample, answer::check)),
            )
            .await;
            let mut checks = Vec::new();
            let mut failures = Vec::new();
            for (c, a) in asked.iter().zip(answers) {
                match a {
                    Ok((ok, ev)) => match Check::new(c.as_str(), ok, ev) {
                        Ok(ch) => checks.push(ch),
                        Err(e) => return instrument(format!("{name}: {e}")),
                    },
                    Err(f) => failures.push((c.to_string(), f)),
                }
            }
            if let Some((c, f)) = failures.into_iter().next() {
                return session.failed(f, &format!("{name} (criterion {c:?})"));
            }
            let passed = checks.iter().filter(|c| c.is_passed()).count();
            let score = passed as f64 / checks.len() as f64;
            let mut reasoning = format!("{passed} of {} criteria verified", checks.len());
            if all.len() > asked.len() {
                reasoning.push_str(&format!(
                    "; {} more criteria were not asked (max-criteria {max})",
                    all.len() - asked.len()
                ));
            }
            let mut b = Judgment::builder(if score >= 0.5 {
                Status::Pass
            } else {
                Status::Fail
            })
            .score(score)
            .checks(checks);
            if let Some(plan) = subject_plan {
                // Every surface shows the reasoning: the criteria are marked as the subject's
                // own wherever this judgment is (trust.md point 26, attack B11-11).
                reasoning.push_str(&format!(
                    " {SET_BY_SUBJECT_MARK}: the criteria are the VERIFY: lines of the workspace's {plan}"
                ));
                b = b
                    .metadata(CRITERIA_SET_BY_KEY, "subject")
                    .metadata("criteriaFrom", plan);
            }
            session.finish(b.reasoning(reasoning))
        }
        Question::Correctness => {
            let ask = match ask_for(&vars, false, answer::yes_no_schema()) {
                Ok(a) => a,
                Err(e) => return instrument(format!("{name}: {e}")),
            };
            match session.ask(ask, sample, answer::yes_no).await {
                Ok((yes, why)) => session.finish(
                    Judgment::builder(if yes { Status::Pass } else { Status::Fail }).reasoning(why),
                ),
                Err(f) => session.failed(f, name),
            }
        }
        Question::Roster { kind, items } => {
            vars.kind = match kind {
                RosterKind::Ears => "ears",
                RosterKind::Rfc2119 => "rfc2119",
            };
            vars.items = items
                .iter()
                .map(|i| {
                    [
                        ("id", i.id.clone()),
                        ("text", i.text.clone()),
                        ("applies_when", i.applies_when.clone().unwrap_or_default()),
                    ]
                    .into_iter()
                    .collect()
                })
                .collect();
            vars.conditional = items
                .iter()
                .filter(|i| i.applies_when.is_some())
                .map(|i| i.id.clone())
                .collect();
            let ask = match ask_for(&vars, false, answer::roster_schema(items)) {
                Ok(a) => a,
                Err(e) => return instrument(format!("{name}: {e}")),
            };
            match session.ask(ask, sample, answer::roster).await {
                Ok((answers, observations)) => {
                    match answer::roster_rollup(*kind, items, &answers, &observations) {
                        Ok(j) => {
                            // The rollup's judgment with the usage block added.
                            let mut b = Judgment::builder(j.status()).reasoning(j.reasoning());
                            if let Some(code) = j.reason_code() {
                                b = b.reason_code(code);
                            }
                            b = b.checks(j.checks().to_vec());
                            for (k, v) in j.metadata() {
                                b = b.metadata(k.clone(), v.clone());
                            }
                            session.finish(b)
                        }
                        Err(f) => Err(f),
                    }
                }
                Err(f) => session.failed(f, name),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instruction_splits_into_sentences() {
        assert_eq!(
            sentences(
                "Upgrade to Boot 3 on Java 21.\nReplace javax.* imports, and keep tests passing. "
            ),
            vec![
                "Upgrade to Boot 3 on Java 21.",
                "Replace javax.* imports, and keep tests passing."
            ]
        );
        assert!(sentences("  ").is_empty());
    }

    #[test]
    fn verify_lines_are_the_criteria() {
        let plan = "# Plan\n1. Do it\n- VERIFY: no javax import remains\nVERIFY:   the build passes  \nVERIFY:\nnote: VERIFY: not this";
        assert_eq!(
            verify_lines(plan),
            vec!["no javax import remains", "the build passes"]
        );
    }

    #[test]
    fn models_resolve_from_settings_environment_and_defaults() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let t = Duration::from_secs(5);
        let m = resolve(
            &LlmSettings::default(),
            t,
            &env(&[("ANTHROPIC_API_KEY", "k")]),
        )
        .unwrap();
        assert_eq!(
            (m.provider, m.model.as_str(), m.base_url.as_str()),
            (
                Provider::Anthropic,
                "claude-sonnet-4-6",
                "https://api.anthropic.com"
            )
        );
        let err = resolve(&LlmSettings::default(), t, &env(&[])).unwrap_err();
        assert!(
            matches!(&err, SetupError::NoKey { key_env, .. } if key_env == "ANTHROPIC_API_KEY"),
            "{err:?}"
        );
        assert!(
            err.to_string().contains("secrets.ANTHROPIC_API_KEY"),
            "{err}"
        );
        let s = LlmSettings {
            provider: Some(Provider::OpenAi),
            base_url: Some("http://127.0.0.1:8080/v1".into()),
            ..LlmSettings::default()
        };
        let local = resolve(&s, t, &env(&[])).unwrap();
        assert_eq!(local.key, None, "a loopback server needs no key");
        let over = resolve(
            &s,
            t,
            &env(&[
                ("JUDGE_CI_LLM_PROVIDER", "anthropic"),
                ("JUDGE_CI_LLM_MODEL", "claude-haiku-4-5"),
                ("JUDGE_CI_LLM_BASE_URL", "http://localhost:9/"),
            ]),
        )
        .unwrap();
        assert_eq!(
            (over.provider, over.model.as_str(), over.base_url.as_str()),
            (
                Provider::Anthropic,
                "claude-haiku-4-5",
                "http://localhost:9"
            )
        );
        assert_eq!(
            resolve(&s, t, &env(&[("JUDGE_CI_LLM_PROVIDER", "gemini")])).unwrap_err(),
            SetupError::UnknownProvider {
                value: "gemini".into()
            }
        );
        assert!(matches!(
            resolve(
                &s,
                t,
                &env(&[("JUDGE_CI_LLM_BASE_URL", "http://10.0.0.1/v1")])
            ),
            Err(SetupError::BaseUrl(_))
        ));
    }
}
