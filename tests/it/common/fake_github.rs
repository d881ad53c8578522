//! A GitHub stand-in on 127.0.0.1 for the publishing tests. It keeps comments, check runs and
//! pull requests in memory, answers REST and GraphQL the way GitHub does (answer bodies start
//! from the examples in GitHub's OpenAPI description), records every request, and validates
//! every request body against that description's request schema
//! (`tests/fixtures/github/rest-operations.json`). Faults are scripted per request: an error
//! status with headers, or an answer lost after the write was made (a stall past the client's
//! timeout). A barrier can hold the first list requests until several runs have arrived, to
//! force a race.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};

use super::loopback::{Answer, Incoming, Server};

/// The login GraphQL `viewer` gives for the workflow token (REST shows it with `[bot]`).
pub const BOT: &str = "github-actions";

/// One request as received.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// Method.
    pub method: String,
    /// Path without the query.
    pub path: String,
    /// Query string.
    pub query: String,
    /// JSON body, if any.
    pub body: Option<Value>,
    /// The `authorization` header.
    pub auth: Option<String>,
}

/// A comment on the PR.
#[derive(Clone, Debug)]
pub struct Comment {
    /// REST id.
    pub id: u64,
    /// PR number.
    pub issue: u64,
    /// Author login as REST shows it.
    pub login: String,
    /// Body.
    pub body: String,
    /// Minimized as outdated.
    pub minimized: bool,
}

/// A check run.
#[derive(Clone, Debug)]
pub struct CheckRun {
    /// Id.
    pub id: u64,
    /// The create body.
    pub create: Value,
    /// Update bodies, in order.
    pub updates: Vec<Value>,
}

impl CheckRun {
    /// Annotations of the create and every update.
    pub fn annotations(&self) -> usize {
        std::iter::once(&self.create)
            .chain(&self.updates)
            .map(|b| {
                b.pointer("/output/annotations")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len)
            })
            .sum()
    }
}

/// What a scripted fault does.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Answer with this status, headers and JSON body, without processing the request.
    Status(u16, Vec<(&'static str, String)>, Value),
    /// Process the request, then hold the answer this long (past the client's timeout).
    Lose(Duration),
    /// Close the connection without processing or answering.
    Drop,
    /// Answer 200 with a body that is not JSON, without processing.
    Malformed,
    /// Process the request, send half of the answer, stall this long and close the
    /// connection (past the client's timeout, the answer is lost mid-body).
    Stall(Duration),
}

#[derive(Clone, Debug)]
struct Scripted {
    method: &'static str,
    path_contains: String,
    times: usize,
    fault: Fault,
}

#[derive(Default)]
struct State {
    requests: Vec<Recorded>,
    violations: Vec<String>,
    comments: Vec<Comment>,
    check_runs: Vec<CheckRun>,
    pulls: BTreeMap<u64, (String, String)>,
    next_id: u64,
    faults: Vec<Scripted>,
    read_only: HashSet<String>,
    list_barrier: usize,
    lists_seen: usize,
}

/// Where REST and GraphQL live on the server.
#[derive(Clone, Debug)]
pub struct Layout {
    /// REST prefix: "" on github.com, "/api/v3" on GitHub Enterprise.
    pub rest: &'static str,
    /// GraphQL path: "/graphql" on github.com, "/api/graphql" on GitHub Enterprise.
    pub graphql: &'static str,
}

impl Layout {
    /// github.com.
    pub const DOTCOM: Layout = Layout {
        rest: "",
        graphql: "/graphql",
    };
    /// GitHub Enterprise Server.
    pub const ENTERPRISE: Layout = Layout {
        rest: "/api/v3",
        graphql: "/api/graphql",
    };
}

/// The running server; stops when dropped.
pub struct FakeGitHub {
    server: Server,
    layout: Layout,
    state: Arc<Mutex<State>>,
}

fn operations() -> &'static Value {
    static OPS: OnceLock<Value> = OnceLock::new();
    OPS.get_or_init(|| {
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/github/rest-operations.json"
        );
        serde_json::from_str(&std::fs::read_to_string(p).expect("rest-operations.json"))
            .expect("valid JSON")
    })
}

fn example(op: &str) -> Value {
    operations()["operations"][op]["responseExample"].clone()
}

/// Validates `body` against the request schema of `op`; returns the violations.
fn validate(op: &str, body: &Value) -> Vec<String> {
    let schema = &operations()["operations"][op]["requestSchema"];
    let v = jsonschema::validator_for(schema).expect("the request schema compiles");
    v.iter_errors(body)
        .map(|e| format!("{op}: {} at {}", e, e.instance_path()))
        .collect()
}

impl FakeGitHub {
    /// Starts a server with `layout`.
    pub fn start(layout: Layout) -> FakeGitHub {
        let state = Arc::new(Mutex::new(State {
            next_id: 1000,
            ..State::default()
        }));
        let (st, lay) = (state.clone(), layout.clone());
        let server = Server::start(move |req| handle(st.clone(), lay.clone(), req));
        FakeGitHub {
            server,
            layout,
            state,
        }
    }

    /// `GITHUB_API_URL`.
    pub fn api_url(&self) -> String {
        format!("http://{}{}", self.server.addr, self.layout.rest)
    }

    /// `GITHUB_GRAPHQL_URL`.
    pub fn graphql_url(&self) -> String {
        format!("http://{}{}", self.server.addr, self.layout.graphql)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    /// Requests whose method is `method` and whose path contains `part`.
    pub fn count(&self, method: &str, part: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.method == method && r.path.contains(part))
            .count()
    }

    /// Request bodies that broke GitHub's schema, and unknown routes.
    pub fn violations(&self) -> Vec<String> {
        self.state.lock().unwrap().violations.clone()
    }

    /// The comments now on the server.
    pub fn comments(&self) -> Vec<Comment> {
        self.state.lock().unwrap().comments.clone()
    }

    /// The check runs now on the server.
    pub fn check_runs(&self) -> Vec<CheckRun> {
        self.state.lock().unwrap().check_runs.clone()
    }

    /// Adds a pull request whose head is `sha` on `label` (`owner:branch`).
    pub fn add_pull(&self, number: u64, sha: &str, label: &str) {
        self.state
            .lock()
            .unwrap()
            .pulls
            .insert(number, (sha.to_string(), label.to_string()));
    }

    /// Adds a comment written by `login`.
    pub fn add_comment(&self, issue: u64, login: &str, body: &str) -> u64 {
        let mut s = self.state.lock().unwrap();
        s.next_id += 1;
        let id = s.next_id;
        s.comments.push(Comment {
            id,
            issue,
            login: login.to_string(),
            body: body.to_string(),
            minimized: false,
        });
        id
    }

    /// Scripts `fault` for the next `times` requests of `method` whose path contains `part`.
    pub fn fail(&self, method: &'static str, part: &str, times: usize, fault: Fault) {
        self.state.lock().unwrap().faults.push(Scripted {
            method,
            path_contains: part.to_string(),
            times,
            fault,
        });
    }

    /// The scripted faults that no request has met yet (each `fail` line with uses left).
    pub fn unused_faults(&self) -> Vec<String> {
        let s = self.state.lock().unwrap();
        s.faults
            .iter()
            .filter(|f| f.times > 0)
            .map(|f| {
                format!(
                    "{} {}: {:?} ×{}",
                    f.method, f.path_contains, f.fault, f.times
                )
            })
            .collect()
    }

    /// Writes with `token` get 403 "Resource not accessible by integration" (a fork's token).
    pub fn read_only(&self, token: &str) {
        self.state
            .lock()
            .unwrap()
            .read_only
            .insert(token.to_string());
    }

    /// Holds the first `n` comment-list requests until `n` have arrived.
    pub fn list_barrier(&self, n: usize) {
        self.state.lock().unwrap().list_barrier = n;
    }

    /// Forgets the recorded requests.
    pub fn clear_requests(&self) {
        self.state.lock().unwrap().requests.clear();
    }
}

fn answer(status: u16, headers: &[(&str, String)], body: &Value) -> Answer {
    let mut a = Answer::json(status, body);
    for (k, v) in headers {
        a = a.with_header(k, v);
    }
    a
}

fn comment_json(c: &Comment, base: &str) -> Value {
    let mut v = example("issues/create-comment");
    v["id"] = c.id.into();
    v["node_id"] = format!("IC_{}", c.id).into();
    v["body"] = c.body.clone().into();
    v["user"]["login"] = c.login.clone().into();
    v["html_url"] = format!("{base}/pull/{}#issuecomment-{}", c.issue, c.id).into();
    v
}

async fn handle(state: Arc<Mutex<State>>, layout: Layout, req: Incoming) -> Answer {
    let method = req.method;
    let path = req.path;
    let query = req.query;
    let auth = req
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let bytes = req.body;
    let body: Option<Value> = if bytes.is_empty() {
        None
    } else {
        serde_json::from_slice(&bytes).ok()
    };
    let token = auth
        .as_deref()
        .and_then(|a| a.split_whitespace().nth(1))
        .unwrap_or_default()
        .to_string();

    // Record, and take a scripted fault if one matches.
    let fault = {
        let mut s = state.lock().unwrap();
        s.requests.push(Recorded {
            method: method.clone(),
            path: path.clone(),
            query: query.clone(),
            body: body.clone(),
            auth: auth.clone(),
        });
        let hit = s
            .faults
            .iter_mut()
            .find(|f| f.times > 0 && f.method == method && path.contains(&f.path_contains));
        hit.map(|f| {
            f.times -= 1;
            f.fault.clone()
        })
    };
    match &fault {
        Some(Fault::Status(code, headers, b)) => return answer(*code, headers, b),
        Some(Fault::Drop) => return Answer::drop_connection(),
        Some(Fault::Malformed) => {
            return Answer::text(
                200,
                "application/json",
                "<html><body>502 Bad Gateway</body></html>",
            );
        }
        _ => {}
    }
    if auth.is_none() {
        return answer(401, &[], &json!({"message": "Requires authentication"}));
    }

    let is_write = method != "GET" && path != layout.graphql
        || body
            .as_ref()
            .and_then(|b| b.get("query"))
            .and_then(Value::as_str)
            .is_some_and(|q| q.trim_start().starts_with("mutation"));
    if is_write && state.lock().unwrap().read_only.contains(&token) {
        return answer(
            403,
            &[],
            &json!({"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest"}),
        );
    }

    // The race barrier on comment lists: the answer is what was there on arrival, given
    // once the others have arrived too.
    let result = route(&state, &layout, &method, &path, &query, body.as_ref());
    if method == "GET" && path.ends_with("/comments") {
        let wait = {
            let mut s = state.lock().unwrap();
            s.lists_seen += 1;
            s.lists_seen <= s.list_barrier
        };
        if wait {
            for _ in 0..500 {
                let arrived = {
                    let s = state.lock().unwrap();
                    s.lists_seen >= s.list_barrier
                };
                if arrived {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }

    match fault {
        Some(Fault::Lose(d)) => {
            tokio::time::sleep(d).await;
            result
        }
        Some(Fault::Stall(d)) => result.stalled(d),
        _ => result,
    }
}

fn route(
    state: &Arc<Mutex<State>>,
    layout: &Layout,
    method: &str,
    path: &str,
    query: &str,
    body: Option<&Value>,
) -> Answer {
    let mut s = state.lock().unwrap();
    let base = "https://github.com/Codertocat/Hello-World";
    if path == layout.graphql && method == "POST" {
        let q = body
            .and_then(|b| b.get("query"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let vars = body
            .and_then(|b| b.get("variables"))
            .cloned()
            .unwrap_or(Value::Null);
        if q.contains("viewer") {
            return answer(200, &[], &json!({"data": {"viewer": {"login": BOT}}}));
        }
        if q.contains("minimizeComment") {
            let id = vars["id"].as_str().unwrap_or_default().to_string();
            let Some(c) = s.comments.iter_mut().find(|c| format!("IC_{}", c.id) == id) else {
                return answer(
                    200,
                    &[],
                    &json!({"data": null, "errors": [{"type": "NOT_FOUND", "message": format!("Could not resolve to a node with the global id of '{id}'")}]}),
                );
            };
            c.minimized = true;
            return answer(
                200,
                &[],
                &json!({"data": {"minimizeComment": {"minimizedComment": {"isMinimized": true}}}}),
            );
        }
        if q.contains("nodes(ids") {
            let nodes: Vec<Value> = vars["ids"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|id| {
                    let id = id.as_str().unwrap_or_default();
                    match s.comments.iter().find(|c| format!("IC_{}", c.id) == id) {
                        Some(c) => json!({"id": id, "isMinimized": c.minimized}),
                        None => Value::Null,
                    }
                })
                .collect();
            return answer(200, &[], &json!({"data": {"nodes": nodes}}));
        }
        s.violations.push(format!("unknown GraphQL query: {q}"));
        return answer(200, &[], &json!({"errors": [{"message": "unknown query"}]}));
    }
    let Some(rest) = path.strip_prefix(layout.rest) else {
        s.violations
            .push(format!("{method} {path}: outside the REST prefix"));
        return answer(404, &[], &json!({"message": "Not Found"}));
    };
    let parts: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
    let qp: BTreeMap<String, String> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    match (method, parts.as_slice()) {
        ("GET", ["repos", _, _, "issues", n, "comments"]) => {
            let n: u64 = n.parse().unwrap_or(0);
            let per: usize = qp
                .get("per_page")
                .and_then(|v| v.parse().ok())
                .unwrap_or(30);
            let page: usize = qp.get("page").and_then(|v| v.parse().ok()).unwrap_or(1);
            let list: Vec<Value> = s
                .comments
                .iter()
                .filter(|c| c.issue == n)
                .skip((page - 1) * per)
                .take(per)
                .map(|c| comment_json(c, base))
                .collect();
            answer(200, &[], &Value::Array(list))
        }
        ("POST", ["repos", _, _, "issues", n, "comments"]) => {
            let b = body.cloned().unwrap_or(Value::Null);
            let v = validate("issues/create-comment", &b);
            if !v.is_empty() {
                s.violations.extend(v);
                return answer(422, &[], &json!({"message": "Validation Failed"}));
            }
            s.next_id += 1;
            let c = Comment {
                id: s.next_id,
                issue: n.parse().unwrap_or(0),
                login: format!("{BOT}[bot]"),
                body: b["body"].as_str().unwrap_or_default().to_string(),
                minimized: false,
            };
            let out = comment_json(&c, base);
            s.comments.push(c);
            answer(201, &[], &out)
        }
        ("PATCH", ["repos", _, _, "issues", "comments", id]) => {
            let b = body.cloned().unwrap_or(Value::Null);
            let v = validate("issues/update-comment", &b);
            if !v.is_empty() {
                s.violations.extend(v);
                return answer(422, &[], &json!({"message": "Validation Failed"}));
            }
            let id: u64 = id.parse().unwrap_or(0);
            let Some(c) = s.comments.iter_mut().find(|c| c.id == id) else {
                return answer(404, &[], &json!({"message": "Not Found"}));
            };
            c.body = b["body"].as_str().unwrap_or_default().to_string();
            let out = comment_json(c, base);
            answer(200, &[], &out)
        }
        ("DELETE", ["repos", _, _, "issues", "comments", id]) => {
            let id: u64 = id.parse().unwrap_or(0);
            let before = s.comments.len();
            s.comments.retain(|c| c.id != id);
            if s.comments.len() == before {
                answer(404, &[], &json!({"message": "Not Found"}))
            } else {
                answer(204, &[], &Value::Null)
            }
        }
        ("POST", ["repos", _, _, "check-runs"]) => {
            let b = body.cloned().unwrap_or(Value::Null);
            let v = validate("checks/create", &b);
            if !v.is_empty() {
                s.violations.extend(v);
                return answer(422, &[], &json!({"message": "Validation Failed"}));
            }
            s.next_id += 1;
            let id = s.next_id;
            let mut out = example("checks/create");
            out["id"] = id.into();
            out["name"] = b["name"].clone();
            out["head_sha"] = b["head_sha"].clone();
            out["external_id"] = b.get("external_id").cloned().unwrap_or(Value::Null);
            out["conclusion"] = b.get("conclusion").cloned().unwrap_or(Value::Null);
            out["html_url"] = format!("{base}/runs/{id}").into();
            s.check_runs.push(CheckRun {
                id,
                create: b,
                updates: Vec::new(),
            });
            answer(201, &[], &out)
        }
        ("PATCH", ["repos", _, _, "check-runs", id]) => {
            let b = body.cloned().unwrap_or(Value::Null);
            let v = validate("checks/update", &b);
            if !v.is_empty() {
                s.violations.extend(v);
                return answer(422, &[], &json!({"message": "Validation Failed"}));
            }
            let id: u64 = id.parse().unwrap_or(0);
            let Some(run) = s.check_runs.iter_mut().find(|r| r.id == id) else {
                return answer(404, &[], &json!({"message": "Not Found"}));
            };
            run.updates.push(b);
            let mut out = example("checks/update");
            out["id"] = id.into();
            out["html_url"] = format!("{base}/runs/{id}").into();
            answer(200, &[], &out)
        }
        ("GET", ["repos", _, _, "commits", sha, "check-runs"]) => {
            let runs: Vec<Value> = s
                .check_runs
                .iter()
                .filter(|r| r.create["head_sha"] == *sha)
                .filter(|r| {
                    qp.get("check_name")
                        .is_none_or(|n| r.create["name"].as_str() == Some(n))
                })
                .map(|r| {
                    let mut v = example("checks/create");
                    v["id"] = r.id.into();
                    v["name"] = r.create["name"].clone();
                    v["head_sha"] = r.create["head_sha"].clone();
                    v["external_id"] = r.create["external_id"].clone();
                    v["html_url"] = format!("{base}/runs/{}", r.id).into();
                    v
                })
                .collect();
            answer(
                200,
                &[],
                &json!({"total_count": runs.len(), "check_runs": runs}),
            )
        }
        ("GET", ["repos", _, _, "pulls", n]) => {
            let n: u64 = n.parse().unwrap_or(0);
            match s.pulls.get(&n) {
                Some((sha, label)) => {
                    let mut v = example("pulls/get");
                    v["number"] = n.into();
                    v["head"]["sha"] = sha.clone().into();
                    v["head"]["label"] = label.clone().into();
                    answer(200, &[], &v)
                }
                None => answer(404, &[], &json!({"message": "Not Found"})),
            }
        }
        ("GET", ["repos", _, _, "pulls"]) => {
            let head = qp.get("head").cloned().unwrap_or_default();
            let list: Vec<Value> = s
                .pulls
                .iter()
                .filter(|(_, (_, label))| head.is_empty() || *label == head)
                .map(|(n, (sha, label))| {
                    let mut v = example("pulls/get");
                    v["number"] = (*n).into();
                    v["head"]["sha"] = sha.clone().into();
                    v["head"]["label"] = label.clone().into();
                    v
                })
                .collect();
            answer(200, &[], &Value::Array(list))
        }
        _ => {
            s.violations
                .push(format!("{method} {path}: no such GitHub operation here"));
            answer(404, &[], &json!({"message": "Not Found"}))
        }
    }
}
