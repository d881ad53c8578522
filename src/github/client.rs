//! The GitHub API client: reqwest over rustls (the stack the model providers use too), REST and
//! GraphQL each with their own base URL (on GitHub Enterprise GraphQL is `/api/graphql`, not
//! under `/api/v3`). Requests are raw JSON on purpose: the retry rules below need every answer's
//! status, headers and body, and the bodies are checked against GitHub's OpenAPI schemas by the
//! tests' stand-in (ARCHITECTURE.md, "GitHub client").
//!
//! Reads are retried with backoff, honouring `retry-after` and the rate-limit headers. Writes
//! are sent once: a lost response may mean the write happened, so callers re-read and decide
//! (the sticky comment re-finds its marker). A write is retried only when GitHub said in so
//! many words that it did not process it (429, or a 403 carrying rate-limit headers).

use std::time::Duration;

use http::{HeaderMap, HeaderValue, Method, StatusCode};
use serde_json::Value;
use thiserror::Error;

use crate::http::{backoff as backoff_of, chain, retry_wait};

/// How reads are retried.
#[derive(Clone, Copy, Debug)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// The first wait when the server gives no hint; doubled each time.
    pub base: Duration,
    /// The longest wait judge-ci accepts; a server asking for more ends the retries.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 4,
            base: Duration::from_secs(1),
            max_wait: Duration::from_secs(60),
        }
    }
}

/// A failed API call.
#[derive(Debug, Error)]
pub enum ApiError {
    /// GitHub answered with an error status.
    #[error("{method} {path}: HTTP {status}: {message}")]
    Status {
        /// The request method.
        method: Method,
        /// The request path.
        path: String,
        /// The status code.
        status: u16,
        /// GitHub's `message`, or the start of the body.
        message: String,
    },
    /// No answer: connection refused or reset, TLS failure, timeout.
    #[error("{method} {path}: {why}")]
    Transport {
        /// The request method.
        method: Method,
        /// The request path.
        path: String,
        /// What went wrong.
        why: String,
        /// Whether the request timed out (a write may then have happened).
        timed_out: bool,
    },
    /// A GraphQL answer with `errors`.
    #[error("GraphQL: {0}")]
    Graphql(String),
    /// An answer that is not the JSON expected.
    #[error("{method} {path}: unexpected answer: {why}")]
    Decode {
        /// The request method.
        method: Method,
        /// The request path.
        path: String,
        /// What was wrong.
        why: String,
    },
    /// The client could not be built.
    #[error("cannot build the GitHub client: {0}")]
    Setup(String),
}

impl ApiError {
    /// The HTTP status, when GitHub answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// A 403 (or 404 on a write) meaning the token may not do this: a fork's read-only token,
    /// Dependabot, or a workflow without the needed `permissions:`.
    pub fn is_permission(&self) -> bool {
        match self {
            ApiError::Status {
                status, message, ..
            } => {
                *status == 403 && !message.to_ascii_lowercase().contains("rate limit")
                    || *status == 401
            }
            ApiError::Graphql(m) => {
                m.contains("Resource not accessible") || m.contains("FORBIDDEN")
            }
            _ => false,
        }
    }

    /// Whether the outcome of a write is unknown (no answer, or a server error).
    pub fn outcome_unknown(&self) -> bool {
        match self {
            ApiError::Transport { .. } => true,
            ApiError::Status { status, .. } => *status >= 500,
            _ => false,
        }
    }
}

/// What a call asks of the retry loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Safe to repeat.
    Read,
    /// Repeated only when GitHub said it did not process it.
    Write,
}

/// A GitHub API client for one installation token.
pub struct Client {
    http: reqwest::Client,
    /// The REST base URL, without a trailing slash.
    rest: String,
    /// The GraphQL endpoint.
    graphql: String,
    retry: RetryPolicy,
}

/// Whether an answer says "not processed, come back later".
fn rate_limited(status: StatusCode, headers: &HeaderMap, body: &str) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS
        || status == StatusCode::FORBIDDEN
            && (retry_wait(headers).is_some() || body.to_ascii_lowercase().contains("rate limit"))
}

/// The message GitHub put in an error body.
fn message_of(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| body.chars().take(200).collect())
}

/// Whether an error is a timeout somewhere down its chain.
fn is_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(r) = err.downcast_ref::<reqwest::Error>()
            && r.is_timeout()
        {
            return true;
        }
        cur = err.source();
    }
    false
}

impl Client {
    /// A client for `token` against `api_url` (REST) and `graphql_url`; `timeout` bounds each
    /// request.
    pub fn new(
        token: &str,
        api_url: &str,
        graphql_url: &str,
        timeout: Duration,
        retry: RetryPolicy,
    ) -> Result<Client, ApiError> {
        let mut auth = HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| {
            ApiError::Setup("the GitHub token holds characters a header cannot".into())
        })?;
        auth.set_sensitive(true);
        let mut headers = HeaderMap::new();
        headers.insert(http::header::AUTHORIZATION, auth);
        headers.insert(
            http::header::ACCEPT,
            HeaderValue::from_static("application/vnd.github+json"),
        );
        headers.insert(
            "x-github-api-version",
            HeaderValue::from_static("2022-11-28"),
        );
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("judge-ci/", env!("CARGO_PKG_VERSION")))
            .default_headers(headers)
            .build()
            .map_err(|e| ApiError::Setup(chain(&e)))?;
        for base in [api_url, graphql_url] {
            url::Url::parse(base)
                .map_err(|e| ApiError::Setup(format!("the base URL {base}: {e}")))?;
        }
        Ok(Client {
            http,
            rest: api_url.trim_end_matches('/').to_string(),
            graphql: graphql_url.trim_end_matches('/').to_string(),
            retry,
        })
    }

    /// One request, retried as `kind` allows. Returns the parsed JSON body (`Null` when empty).
    async fn call(
        &self,
        graphql: bool,
        method: Method,
        path: &str,
        body: Option<&Value>,
        kind: Kind,
    ) -> Result<Value, ApiError> {
        let url = if graphql {
            self.graphql.clone()
        } else {
            format!("{}{path}", self.rest)
        };
        // The redaction boundary for what is posted: no known secret reaches a comment or a
        // check run.
        let redacted = body.map(crate::secrets::redact_json);
        let body = redacted.as_ref();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let last = attempt >= self.retry.attempts;
            let backoff = backoff_of(self.retry.base, attempt);
            let mut request = self.http.request(method.clone(), &url);
            if let Some(b) = body {
                request = request.json(b);
            }
            let sent = request.send().await;
            let response = match sent {
                Ok(r) => r,
                Err(e) => {
                    let err = ApiError::Transport {
                        method: method.clone(),
                        path: path.to_string(),
                        why: chain(&e),
                        timed_out: is_timeout(&e),
                    };
                    if kind == Kind::Read && !last {
                        tokio::time::sleep(backoff.min(self.retry.max_wait)).await;
                        continue;
                    }
                    return Err(err);
                }
            };
            let status = response.status();
            let headers = response.headers().clone();
            let text = match response.text().await {
                Ok(t) => t,
                Err(e) => {
                    if kind == Kind::Read && !last {
                        tokio::time::sleep(backoff.min(self.retry.max_wait)).await;
                        continue;
                    }
                    return Err(ApiError::Transport {
                        method: method.clone(),
                        path: path.to_string(),
                        why: chain(&e),
                        timed_out: is_timeout(&e),
                    });
                }
            };
            if status.is_success() {
                if text.trim().is_empty() {
                    return Ok(Value::Null);
                }
                match serde_json::from_str(&text) {
                    Ok(v) => return Ok(v),
                    // A proxy's error page in a 200: read again.
                    Err(_) if kind == Kind::Read && !last => {
                        tokio::time::sleep(backoff.min(self.retry.max_wait)).await;
                        continue;
                    }
                    Err(e) => {
                        return Err(ApiError::Decode {
                            method: method.clone(),
                            path: path.to_string(),
                            why: e.to_string(),
                        });
                    }
                }
            }
            let limited = rate_limited(status, &headers, &text);
            let retryable = match kind {
                Kind::Read => limited || status.is_server_error(),
                Kind::Write => limited,
            };
            if retryable && !last {
                let wait = retry_wait(&headers).unwrap_or(backoff);
                if wait <= self.retry.max_wait {
                    tokio::time::sleep(wait).await;
                    continue;
                }
            }
            return Err(ApiError::Status {
                method: method.clone(),
                path: path.to_string(),
                status: status.as_u16(),
                message: message_of(&text),
            });
        }
    }

    /// GET, retried.
    pub async fn get(&self, path: &str) -> Result<Value, ApiError> {
        self.call(false, Method::GET, path, None, Kind::Read).await
    }

    /// Every item of a paginated list (`per_page=100`, following pages until a short one).
    pub async fn get_all(&self, path: &str) -> Result<Vec<Value>, ApiError> {
        let sep = if path.contains('?') { '&' } else { '?' };
        let mut out = Vec::new();
        for page in 1..=100 {
            let v = self
                .get(&format!("{path}{sep}per_page=100&page={page}"))
                .await?;
            let items = match v {
                Value::Array(items) => items,
                other => {
                    return Err(ApiError::Decode {
                        method: Method::GET,
                        path: path.to_string(),
                        why: format!("expected a list, got {}", kind_of(&other)),
                    });
                }
            };
            let n = items.len();
            out.extend(items);
            if n < 100 {
                break;
            }
        }
        Ok(out)
    }

    /// POST, sent once.
    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, ApiError> {
        self.call(false, Method::POST, path, Some(body), Kind::Write)
            .await
    }

    /// PATCH, sent once.
    pub async fn patch(&self, path: &str, body: &Value) -> Result<Value, ApiError> {
        self.call(false, Method::PATCH, path, Some(body), Kind::Write)
            .await
    }

    /// A PATCH that sets the same value however often it is sent (a comment body): sent once
    /// more when the first outcome is unknown.
    pub async fn patch_idempotent(&self, path: &str, body: &Value) -> Result<Value, ApiError> {
        match self.patch(path, body).await {
            Err(e) if e.outcome_unknown() => self.patch(path, body).await,
            other => other,
        }
    }

    /// DELETE (idempotent: sent once more when the outcome is unknown); a 404, already gone,
    /// is success.
    pub async fn delete(&self, path: &str) -> Result<(), ApiError> {
        let once = || self.call(false, Method::DELETE, path, None, Kind::Write);
        let result = match once().await {
            Err(e) if e.outcome_unknown() => once().await,
            other => other,
        };
        match result {
            Ok(_) => Ok(()),
            Err(e) if e.status() == Some(404) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// A GraphQL query (retried) or mutation (sent once); `errors` in a 200 answer is an error.
    pub async fn graphql(
        &self,
        query: &str,
        variables: Value,
        mutation: bool,
    ) -> Result<Value, ApiError> {
        let body = serde_json::json!({"query": query, "variables": variables});
        let kind = if mutation { Kind::Write } else { Kind::Read };
        let mut attempt = 0;
        loop {
            attempt += 1;
            let v = self
                .call(true, Method::POST, "/graphql", Some(&body), kind)
                .await?;
            if let Some(errors) = v.get("errors").and_then(Value::as_array)
                && !errors.is_empty()
            {
                let limited = errors
                    .iter()
                    .any(|e| e.get("type").and_then(Value::as_str) == Some("RATE_LIMITED"));
                if limited && attempt < self.retry.attempts {
                    tokio::time::sleep(backoff_of(self.retry.base, attempt)).await;
                    continue;
                }
                let msgs: Vec<String> = errors
                    .iter()
                    .map(|e| {
                        let m = e.get("message").and_then(Value::as_str).unwrap_or("?");
                        match e.get("type").and_then(Value::as_str) {
                            Some(t) => format!("{t}: {m}"),
                            None => m.to_string(),
                        }
                    })
                    .collect();
                return Err(ApiError::Graphql(msgs.join("; ")));
            }
            return Ok(v.get("data").cloned().unwrap_or(Value::Null));
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn rate_limits_are_told_from_permissions() {
        let mut h = HeaderMap::new();
        h.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
        h.insert("x-ratelimit-reset", HeaderValue::from_static("1"));
        assert!(rate_limited(StatusCode::FORBIDDEN, &h, ""));
        assert!(!rate_limited(
            StatusCode::FORBIDDEN,
            &HeaderMap::new(),
            r#"{"message":"Resource not accessible by integration"}"#
        ));
        assert!(rate_limited(
            StatusCode::FORBIDDEN,
            &HeaderMap::new(),
            r#"{"message":"You have exceeded a secondary rate limit"}"#
        ));
    }

    #[test]
    fn permission_errors_are_told_apart() {
        let e = |status, message: &str| ApiError::Status {
            method: Method::POST,
            path: "/x".into(),
            status,
            message: message.into(),
        };
        assert!(e(403, "Resource not accessible by integration").is_permission());
        assert!(!e(403, "API rate limit exceeded").is_permission());
        assert!(!e(500, "oops").is_permission());
        assert!(e(502, "bad gateway").outcome_unknown());
        assert!(!e(422, "Validation Failed").outcome_unknown());
        assert_eq!(message_of(r#"{"message":"Not Found"}"#), "Not Found");
        assert_eq!(message_of("plain"), "plain");
    }
}
