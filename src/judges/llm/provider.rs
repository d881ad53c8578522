//! The two provider APIs over HTTPS (reqwest with rustls): Anthropic's Messages API, asked to
//! answer through a forced tool call whose input schema is the answer's shape, and the OpenAI
//! chat-completions API (OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio), asked for a
//! `json_schema` response format. 429, 5xx, 529 and lost connections are retried with
//! backoff, honouring `retry-after`. The key goes in a header and nowhere else.

use std::time::Duration;

use serde_json::{Value, json};

use crate::config::llm::Provider;
use crate::http::{backoff, chain, retry_wait};
use crate::judgment::Cause;

/// A resolved model: where it is, how it is reached, how it answers.
#[derive(Clone)]
pub struct Model {
    /// The API.
    pub provider: Provider,
    /// The model name.
    pub model: String,
    /// The API's base URL.
    pub base_url: String,
    /// The key (from the environment variable the settings name); absent for local servers.
    pub key: Option<String>,
    /// The variable the key came from, for messages.
    pub key_env: String,
    /// Output token limit.
    pub max_tokens: u32,
    /// Sampling temperature.
    pub temperature: f64,
    /// Longest wait for one answer.
    pub timeout: Duration,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// One question: instructions, the question, and the JSON Schema of the answer.
#[derive(Clone, Debug)]
pub struct Ask {
    /// System instructions.
    pub system: String,
    /// The question, with its material.
    pub user: String,
    /// The answer's JSON Schema.
    pub schema: Value,
    /// The random boundary nonce in `system` and `user` (left out of the cache key, so an
    /// unchanged question still hits the cache); empty when there is none.
    pub nonce: String,
}

/// A model's answer and what it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The answer: the tool input or response content as text.
    pub text: String,
    /// Input tokens billed.
    pub input_tokens: u64,
    /// Output tokens billed.
    pub output_tokens: u64,
}

/// Why no answer came.
#[derive(Clone, Debug, thiserror::Error)]
pub enum LlmError {
    /// The provider could not be reached, or timed out, after the retries.
    #[error("the provider at {url} could not be reached: {why}")]
    Unreachable {
        /// Where.
        url: String,
        /// What happened.
        why: String,
    },
    /// The provider answered with an error status.
    #[error("the provider answered HTTP {status}: {message}")]
    Status {
        /// The status.
        status: u16,
        /// Its message.
        message: String,
    },
    /// The model declined to answer.
    #[error("the model refused to answer: {0}")]
    Refused(String),
    /// The request was not sent: it would have passed a spending limit.
    #[error("{0}")]
    Budget(super::budget::Refusal),
    /// The answer was not in the API's shape.
    #[error("the provider's answer is not in the {api} shape: {why}")]
    Shape {
        /// Which API.
        api: &'static str,
        /// What was wrong.
        why: String,
    },
}

impl LlmError {
    /// The cause judge-ci knows from the connection or the provider's HTTP status: the
    /// network, the provider's availability (429, 5xx), the check's settings (401, 403: the
    /// key; 404: the model or address), the model's refusal or an unusable answer. Any other
    /// status (400 for a content policy or a request it will not take, 413, 422, …) answers
    /// the request, which carries the pull request's material: the change can provoke it, so
    /// it is a refusal the subject can cause, never judge-ci's instrument failing (attack
    /// finding NC21; trust.md point 12).
    pub fn cause(&self) -> Cause {
        match self {
            LlmError::Unreachable { .. } => Cause::NetworkUnreachable,
            LlmError::Status { status, .. } if *status == 429 || *status >= 500 => {
                Cause::ProviderUnavailable
            }
            LlmError::Status {
                status: 401 | 403 | 404,
                ..
            } => Cause::JudgeMisconfigured,
            LlmError::Status { .. } => Cause::ProviderRefused,
            LlmError::Refused(_) => Cause::ProviderRefused,
            LlmError::Shape { .. } => Cause::ModelReplyUnusable,
            LlmError::Budget(super::budget::Refusal::Exhausted { .. }) => Cause::LlmBudgetExhausted,
            LlmError::Budget(super::budget::Refusal::NoPrice { .. }) => Cause::JudgeMisconfigured,
        }
    }

    /// What the user can do about it.
    pub fn help(&self, model: &Model) -> String {
        match self {
            LlmError::Unreachable { .. } => format!(
                "check base-url ({}) and the network; a slow model may need a longer `timeout`",
                model.base_url
            ),
            LlmError::Status { status: 401, .. } | LlmError::Status { status: 403, .. } => {
                format!(
                    "the key in {} was refused; check it belongs to this provider",
                    model.key_env
                )
            }
            LlmError::Status { status: 404, .. } => format!(
                "check the model name ({}) and base-url ({})",
                model.model, model.base_url
            ),
            LlmError::Status { status: 429, .. } => {
                "the provider's rate limit held after the retries; lower llm.concurrency or retry later"
                    .into()
            }
            LlmError::Status { status, .. } if *status >= 500 => {
                "the provider failed; re-run, or try another model".into()
            }
            LlmError::Status { .. } => {
                "the provider refused the request, which carries the change's material (a content policy, a size it will not take): an ERROR the change can cause; look at what the change adds, or judge it with a structural check".into()
            }
            LlmError::Shape { .. } => "the provider failed; re-run, or try another model".into(),
            LlmError::Refused(_) => {
                "the model declined the question; rephrase the prompt or use another model".into()
            }
            LlmError::Budget(r) => r.help(),
        }
    }
}

/// The request body for `ask` to `model`.
pub fn body(model: &Model, ask: &Ask) -> Value {
    match model.provider {
        Provider::Anthropic => json!({
            "model": model.model,
            "max_tokens": model.max_tokens,
            "temperature": model.temperature,
            "system": ask.system,
            "messages": [{"role": "user", "content": ask.user}],
            "tools": [{
                "name": "answer",
                "description": "Give the answer in exactly this shape.",
                "input_schema": ask.schema,
            }],
            "tool_choice": {"type": "tool", "name": "answer"},
        }),
        Provider::OpenAi => json!({
            "model": model.model,
            "max_tokens": model.max_tokens,
            "temperature": model.temperature,
            "messages": [
                {"role": "system", "content": ask.system},
                {"role": "user", "content": ask.user},
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": ask.schema},
            },
        }),
    }
}

/// The endpoint of `model`'s API.
pub fn endpoint(model: &Model) -> String {
    match model.provider {
        Provider::Anthropic => format!("{}/v1/messages", model.base_url),
        Provider::OpenAi => format!("{}/chat/completions", model.base_url),
    }
}

/// Reads a provider's answer body.
pub fn parse_reply(provider: Provider, v: &Value) -> Result<Reply, LlmError> {
    let n = |p: &str| v.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    match provider {
        Provider::Anthropic => {
            let api = "Anthropic Messages";
            let blocks =
                v.get("content")
                    .and_then(Value::as_array)
                    .ok_or_else(|| LlmError::Shape {
                        api,
                        why: "no content".into(),
                    })?;
            if v.get("stop_reason").and_then(Value::as_str) == Some("refusal") {
                let said: String = blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect();
                return Err(LlmError::Refused(said));
            }
            let text = match blocks
                .iter()
                .find(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
            {
                Some(tool) => tool
                    .get("input")
                    .cloned()
                    .unwrap_or(Value::Null)
                    .to_string(),
                None => blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(""),
            };
            Ok(Reply {
                text,
                input_tokens: n("/usage/input_tokens"),
                output_tokens: n("/usage/output_tokens"),
            })
        }
        Provider::OpenAi => {
            let api = "OpenAI chat-completions";
            let msg = v
                .pointer("/choices/0/message")
                .ok_or_else(|| LlmError::Shape {
                    api,
                    why: "no choices[0].message".into(),
                })?;
            if let Some(r) = msg.get("refusal").and_then(Value::as_str) {
                return Err(LlmError::Refused(r.to_string()));
            }
            let text = msg
                .get("content")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            Ok(Reply {
                text,
                input_tokens: n("/usage/prompt_tokens"),
                output_tokens: n("/usage/completion_tokens"),
            })
        }
    }
}

fn message_of(text: &str) -> String {
    let v: Option<Value> = serde_json::from_str(text).ok();
    v.as_ref()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("error"))
        })
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| text.chars().take(300).collect())
}

/// Attempts per question, the first included.
const ATTEMPTS: u32 = 3;

/// Sends `ask` to `model`, retrying what may succeed on a second try. `requests` counts the
/// HTTP requests made.
/// `gate` is called before every attempt (retries included): it counts the request and may
/// refuse it (a spending limit), and then nothing is sent.
pub async fn send(
    http: &reqwest::Client,
    model: &Model,
    ask: &Ask,
    gate: &mut (dyn FnMut() -> Result<(), LlmError> + Send),
) -> Result<Reply, LlmError> {
    let url = endpoint(model);
    let body = body(model, ask);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let last = attempt >= ATTEMPTS;
        let mut req = http.post(&url).timeout(model.timeout).json(&body);
        req = match (model.provider, &model.key) {
            (Provider::Anthropic, Some(k)) => req
                .header("x-api-key", k)
                .header("anthropic-version", "2023-06-01"),
            (Provider::Anthropic, None) => req.header("anthropic-version", "2023-06-01"),
            (Provider::OpenAi, Some(k)) => req.bearer_auth(k),
            (Provider::OpenAi, None) => req,
        };
        gate()?;
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => {
                if !last {
                    tokio::time::sleep(backoff(Duration::from_millis(500), attempt)).await;
                    continue;
                }
                return Err(LlmError::Unreachable {
                    why: transport_failure(&e, model, "no answer"),
                    url,
                });
            }
        };
        let status = resp.status().as_u16();
        let wait = retry_wait(resp.headers());
        let text = match body_limited(resp, MAX_ANSWER_BYTES).await {
            Ok(Some(t)) => t,
            Ok(None) => {
                return Err(LlmError::Shape {
                    api: api_name(model.provider),
                    why: format!("the answer is over {} MiB", MAX_ANSWER_BYTES >> 20),
                });
            }
            // The answer stopped part-way (a stall, a cut connection): ask again.
            Err(e) => {
                if !last {
                    tokio::time::sleep(backoff(Duration::from_millis(500), attempt)).await;
                    continue;
                }
                return Err(LlmError::Unreachable {
                    why: transport_failure(&e, model, "the answer stopped part-way, no end"),
                    url,
                });
            }
        };
        if (200..300).contains(&status) {
            let v: Value = match serde_json::from_str(&text) {
                Ok(v) => v,
                // A proxy's error page in a 200: ask again.
                Err(_) if !last => {
                    tokio::time::sleep(backoff(Duration::from_millis(500), attempt)).await;
                    continue;
                }
                Err(e) => {
                    return Err(LlmError::Shape {
                        api: api_name(model.provider),
                        why: format!("not JSON: {e}"),
                    });
                }
            };
            return parse_reply(model.provider, &v);
        }
        let transient = status == 429 || status >= 500;
        if transient && !last {
            let w = wait.unwrap_or_else(|| backoff(Duration::from_secs(1), attempt));
            if w <= Duration::from_secs(60) {
                tokio::time::sleep(w).await;
                continue;
            }
        }
        return Err(LlmError::Status {
            status,
            message: message_of(&text),
        });
    }
}

/// The largest answer read: a model's reply is a few KiB; more is a broken or hostile endpoint.
const MAX_ANSWER_BYTES: usize = 8 << 20;

/// The API's name, for messages.
fn api_name(p: Provider) -> &'static str {
    match p {
        Provider::Anthropic => "Anthropic Messages",
        Provider::OpenAi => "OpenAI chat-completions",
    }
}

/// The body as text, read chunk by chunk; `None` once it passes `limit` bytes.
async fn body_limited(
    mut resp: reqwest::Response,
    limit: usize,
) -> Result<Option<String>, reqwest::Error> {
    let mut bytes = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        if bytes.len() + chunk.len() > limit {
            return Ok(None);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Why a request or its answer failed in transit: the timeout in words, else the error chain.
fn transport_failure(e: &reqwest::Error, model: &Model, what: &str) -> String {
    if e.is_timeout() {
        format!("{what} within {}", super::super::humantime(model.timeout))
    } else {
        chain(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(provider: Provider) -> Model {
        Model {
            provider,
            model: "m".into(),
            base_url: "http://127.0.0.1:1".into(),
            key: Some("sk-secret".into()),
            key_env: "K".into(),
            max_tokens: 100,
            temperature: 0.0,
            timeout: Duration::from_secs(1),
        }
    }

    #[test]
    fn causes_come_from_the_connection_and_the_http_status() {
        let status = |status| LlmError::Status {
            status,
            message: String::new(),
        };
        let unreachable = LlmError::Unreachable {
            url: "u".into(),
            why: "refused".into(),
        };
        assert_eq!(unreachable.cause(), Cause::NetworkUnreachable);
        assert_eq!(status(429).cause(), Cause::ProviderUnavailable);
        assert_eq!(status(503).cause(), Cause::ProviderUnavailable);
        assert_eq!(status(401).cause(), Cause::JudgeMisconfigured);
        assert_eq!(status(404).cause(), Cause::JudgeMisconfigured);
        // A refusal of the request (a content policy the change's text trips, a body too
        // large) is one the subject can cause: never waived as judge-ci's instrument.
        for code in [400, 413, 422] {
            assert_eq!(status(code).cause(), Cause::ProviderRefused, "{code}");
            assert_eq!(
                crate::judgment::ErrorOrigin::of(Some(status(code).cause())),
                crate::judgment::ErrorOrigin::Subject,
                "{code}"
            );
        }
        assert_eq!(
            LlmError::Refused("no".into()).cause(),
            Cause::ProviderRefused
        );
        let shape = LlmError::Shape {
            api: "messages",
            why: "x".into(),
        };
        assert_eq!(shape.cause(), Cause::ModelReplyUnusable);
    }

    #[test]
    fn bodies_ask_for_the_shape_and_never_hold_the_key() {
        let ask = Ask {
            system: "s".into(),
            user: "u".into(),
            schema: json!({"type": "object"}),
            nonce: String::new(),
        };
        let a = body(&model(Provider::Anthropic), &ask);
        assert_eq!(a["tool_choice"]["name"], "answer");
        assert_eq!(a["tools"][0]["input_schema"]["type"], "object");
        let o = body(&model(Provider::OpenAi), &ask);
        assert_eq!(o["response_format"]["type"], "json_schema");
        assert_eq!(o["messages"][0]["role"], "system");
        for b in [a, o] {
            assert!(!b.to_string().contains("sk-secret"));
        }
        assert!(!format!("{:?}", model(Provider::OpenAi)).contains("sk-secret"));
    }

    #[test]
    fn replies_are_read_from_both_apis() {
        let a = json!({"content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "name": "answer", "input": {"verdict": "PASS"}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 3}});
        let r = parse_reply(Provider::Anthropic, &a).unwrap();
        assert_eq!(r.text, r#"{"verdict":"PASS"}"#);
        assert_eq!((r.input_tokens, r.output_tokens), (10, 3));
        let refused =
            json!({"content": [{"type": "text", "text": "I can't"}], "stop_reason": "refusal"});
        assert!(matches!(
            parse_reply(Provider::Anthropic, &refused),
            Err(LlmError::Refused(_))
        ));
        let o = json!({"choices": [{"message": {"role": "assistant", "content": "{\"score\": 0.5}"}}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 2}});
        let r = parse_reply(Provider::OpenAi, &o).unwrap();
        assert_eq!((r.text.as_str(), r.input_tokens), ("{\"score\": 0.5}", 7));
        let refused = json!({"choices": [{"message": {"content": null, "refusal": "no"}}]});
        assert!(matches!(
            parse_reply(Provider::OpenAi, &refused),
            Err(LlmError::Refused(_))
        ));
        assert!(matches!(
            parse_reply(Provider::OpenAi, &json!({})),
            Err(LlmError::Shape {
                api: "OpenAI chat-completions",
                ..
            })
        ));
    }
}
