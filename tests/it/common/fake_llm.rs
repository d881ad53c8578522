//! An LLM provider stand-in on 127.0.0.1 that speaks Anthropic's Messages API
//! (`POST /v1/messages`) and the OpenAI chat-completions API (`POST /v1/chat/completions`).
//! It checks each request against the documented request shape (model, token limit, messages,
//! the answer's schema as a forced tool or a json_schema response format, the key in the
//! right header), records it, and answers from scripted rules: the first rule whose needle
//! occurs in the request body and has uses left. An unmatched request is a violation.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::loopback::{Answer, Incoming, Server};

/// How a rule answers.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A well-formed answer carrying this JSON (a tool call or JSON content).
    Json(Value),
    /// Content that is this text (prose, broken JSON…).
    Text(String),
    /// The model declines.
    Refuse(String),
    /// An error status with headers.
    Status(u16, Vec<(&'static str, String)>),
    /// Wait, then answer.
    Slow(Duration, Box<Reply>),
    /// Close the connection without an answer.
    Drop,
    /// A 200 whose body is not JSON (a proxy's error page).
    Garbage,
    /// This answer cut in the middle of its body after a stall of this long.
    Stall(Duration, Box<Reply>),
}

/// One recorded request.
#[derive(Clone, Debug)]
pub struct Seen {
    /// `anthropic` or `openai`.
    pub api: &'static str,
    /// The body.
    pub body: Value,
    /// Every header, as text.
    pub headers: String,
}

struct Rule {
    needle: String,
    uses: usize,
    reply: Reply,
}

#[derive(Default)]
struct State {
    rules: Vec<Rule>,
    seen: Vec<Seen>,
    violations: Vec<String>,
}

/// The running provider.
pub struct FakeLlm {
    server: Server,
    state: Arc<Mutex<State>>,
    /// The key requests must carry.
    pub key: String,
}

impl FakeLlm {
    /// Starts a provider expecting `key`.
    pub fn start(key: &str) -> FakeLlm {
        let state = Arc::new(Mutex::new(State::default()));
        let (st, k) = (state.clone(), key.to_string());
        let server = Server::start(move |req| handle(st.clone(), k.clone(), req));
        FakeLlm {
            server,
            state,
            key: key.to_string(),
        }
    }

    /// The Anthropic base URL.
    pub fn anthropic_url(&self) -> String {
        format!("http://{}", self.server.addr)
    }

    /// The OpenAI-compatible base URL.
    pub fn openai_url(&self) -> String {
        format!("http://{}/v1", self.server.addr)
    }

    /// Answers the next `uses` requests whose body contains `needle` with `reply`.
    pub fn on(&self, needle: &str, uses: usize, reply: Reply) {
        self.state.lock().unwrap().rules.push(Rule {
            needle: needle.to_string(),
            uses,
            reply,
        });
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    /// Requests that broke the documented shape, and unmatched ones.
    pub fn violations(&self) -> Vec<String> {
        self.state.lock().unwrap().violations.clone()
    }
}

/// What is wrong with a request body of `api`, if anything.
fn check_shape(api: &str, b: &Value, headers: &hyper::HeaderMap, key: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut need = |ok: bool, what: &str| {
        if !ok {
            v.push(format!("{api}: {what}"));
        }
    };
    need(
        b["model"].as_str().is_some_and(|m| !m.is_empty()),
        "model is a non-empty string",
    );
    need(
        b["max_tokens"].as_u64().is_some_and(|n| n > 0),
        "max_tokens is a positive integer",
    );
    let msgs = b["messages"].as_array();
    need(
        msgs.is_some_and(|m| !m.is_empty()),
        "messages is a non-empty list",
    );
    for m in msgs.into_iter().flatten() {
        need(
            matches!(m["role"].as_str(), Some("user" | "assistant" | "system")),
            "each message has a role",
        );
        need(m["content"].is_string(), "each message's content is text");
    }
    let header = |k: &str| {
        headers
            .get(k)
            .and_then(|h| h.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    match api {
        "anthropic" => {
            need(b["system"].is_string(), "system is text");
            need(
                msgs.is_some_and(|m| m.iter().all(|x| x["role"] != "system")),
                "no system role inside messages",
            );
            need(
                b["tools"][0]["input_schema"]["type"] == "object",
                "the answer tool has an object input_schema",
            );
            need(
                b["tool_choice"]["type"] == "tool"
                    && b["tool_choice"]["name"] == b["tools"][0]["name"],
                "tool_choice forces the answer tool",
            );
            need(header("x-api-key") == key, "x-api-key carries the key");
            need(
                header("anthropic-version") == "2023-06-01",
                "anthropic-version is set",
            );
        }
        _ => {
            need(
                b["response_format"]["type"] == "json_schema",
                "response_format is json_schema",
            );
            need(
                b["response_format"]["json_schema"]["schema"]["type"] == "object",
                "the json_schema has an object schema",
            );
            need(
                header("authorization") == format!("Bearer {key}"),
                "authorization carries the key",
            );
        }
    }
    v
}

fn ok_body(api: &str, reply: &Reply) -> Value {
    let usage_a = json!({"input_tokens": 120, "output_tokens": 30});
    let usage_o = json!({"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150});
    match (api, reply) {
        ("anthropic", Reply::Json(v)) => {
            json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "answer", "input": v}],
            "stop_reason": "tool_use", "usage": usage_a})
        }
        ("anthropic", Reply::Text(t)) => {
            json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": t}], "stop_reason": "end_turn", "usage": usage_a})
        }
        ("anthropic", Reply::Refuse(t)) => {
            json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": t}], "stop_reason": "refusal", "usage": usage_a})
        }
        (_, Reply::Json(v)) => json!({"id": "c1", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": v.to_string(), "refusal": null}}],
            "usage": usage_o}),
        (_, Reply::Text(t)) => json!({"id": "c1", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": t, "refusal": null}}],
            "usage": usage_o}),
        (_, Reply::Refuse(t)) => json!({"id": "c1", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": null, "refusal": t}}],
            "usage": usage_o}),
        _ => Value::Null,
    }
}

async fn handle(state: Arc<Mutex<State>>, key: String, req: Incoming) -> Answer {
    let api = match (req.method.as_str(), req.path.as_str()) {
        ("POST", "/v1/messages") => "anthropic",
        ("POST", "/v1/chat/completions") => "openai",
        _ => {
            state
                .lock()
                .unwrap()
                .violations
                .push(format!("{} {}: no such API", req.method, req.path));
            return Answer::json(404, &json!({"error": {"message": "not found"}}));
        }
    };
    let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let text = body.to_string();
    let reply = {
        let mut s = state.lock().unwrap();
        let problems = check_shape(api, &body, &req.headers, &key);
        s.violations.extend(problems);
        s.seen.push(Seen {
            api,
            body: body.clone(),
            headers: format!("{:?}", req.headers),
        });
        let rule = s
            .rules
            .iter_mut()
            .find(|r| r.uses > 0 && text.contains(&r.needle));
        match rule {
            Some(r) => {
                r.uses -= 1;
                Some(r.reply.clone())
            }
            None => {
                s.violations
                    .push(format!("{api}: no scripted reply for a request"));
                None
            }
        }
    };
    let Some(mut reply) = reply else {
        return Answer::json(500, &json!({"error": {"message": "unscripted"}}));
    };
    while let Reply::Slow(d, inner) = reply {
        tokio::time::sleep(d).await;
        reply = *inner;
    }
    let mut stall = None;
    if let Reply::Stall(d, inner) = reply {
        stall = Some(d);
        reply = *inner;
    }
    let answer = answer_of(api, &reply);
    match stall {
        Some(d) => answer.stalled(d),
        None => answer,
    }
}

fn answer_of(api: &'static str, reply: &Reply) -> Answer {
    match reply {
        Reply::Drop => Answer::drop_connection(),
        Reply::Garbage => Answer::text(
            200,
            "application/json",
            "<html>upstream connect error</html>",
        ),
        Reply::Status(code, headers) => {
            let mut a = Answer::json(
                *code,
                &json!({"type": "error", "error": {"type": "overloaded_error", "message": format!("scripted {code}")}}),
            );
            for (k, v) in headers {
                a = a.with_header(k, v);
            }
            a
        }
        other => Answer::json(200, &ok_body(api, other)),
    }
}
