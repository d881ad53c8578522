//! The GitHub Actions context: which repository, pull request and commit a run is about, read
//! from the environment and the event payload (`GITHUB_EVENT_PATH`). The head commit is the
//! PR's head, never the merge commit `GITHUB_SHA` points at for pull requests.

use serde_json::Value;
use std::path::PathBuf;
use thiserror::Error;

/// What a run is about, as far as the event says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// `GITHUB_EVENT_NAME`.
    pub event: String,
    /// `owner/name`.
    pub repository: String,
    /// The pull request, when the event names one.
    pub pull_request: Option<u64>,
    /// The commit the check run belongs to, when the event says (issue_comment does not).
    pub head_sha: Option<String>,
    /// The base commit, for pull requests and merge groups.
    pub base_sha: Option<String>,
    /// The head branch, for `workflow_run` (to find a fork's PR by branch).
    pub head_branch: Option<String>,
    /// True when the PR's head lives in another repository (its token is read-only).
    pub fork: bool,
    /// REST base URL (`GITHUB_API_URL`, GitHub Enterprise included).
    pub api_url: String,
    /// GraphQL URL (`GITHUB_GRAPHQL_URL`; on Enterprise it is not under `/api/v3`).
    pub graphql_url: String,
    /// Link to this run, when the run id is known.
    pub run_url: Option<String>,
    /// `GITHUB_SERVER_URL` (github.com or an Enterprise host), for links to code.
    pub server_url: Option<String>,
    /// `GITHUB_WORKSPACE`, where the repository is checked out by default.
    pub checkout_root: Option<PathBuf>,
    /// The owner of the head repository (`workflow_run`: a fork's PR is listed under it).
    pub head_owner: Option<String>,
    /// The head repository, `owner/name`, when the event names it.
    pub head_repository: Option<String>,
    /// `GITHUB_RUN_ID` and `GITHUB_RUN_ATTEMPT`, which tell this attempt's check run apart.
    pub run_attempt: Option<String>,
    /// `GITHUB_ACTOR` (Dependabot's runs get a read-only token, as forks do).
    pub actor: Option<String>,
    /// A PR number from an untrusted source (a saved event), used only once GitHub confirms
    /// that its head is `head_sha`.
    pub proposed_pull_request: Option<u64>,
    /// The repository's default branch (`repository.default_branch` of the payload): the
    /// trusted config's home when the event carries no base commit (a fork's `workflow_run`,
    /// `issue_comment`).
    pub default_branch: Option<String>,
    /// True when the event is about a pull request, whose head is untrusted: decided from the
    /// payload (see `about_pull_request`), never from the event's name.
    pub pr_context: bool,
    /// The base branch a pull-request context names without a base commit (a merge queue's
    /// `gh-readonly-queue/<base>/pr-<n>-<sha>` branch): the trusted config's home before the
    /// default branch.
    pub base_ref: Option<String>,
}

/// Why the context could not be read.
#[derive(Debug, Error)]
pub enum ContextError {
    /// A variable that Actions always sets is missing.
    #[error("{0} is not set; is this running in GitHub Actions?")]
    Missing(&'static str),
    /// The event payload cannot be read. Inside Actions judge-ci cannot then tell whether the
    /// run concerns a pull request, so it does not judge (trust.md point 1: never the pull
    /// request's config by default).
    #[error(
        "the event payload {path} (GITHUB_EVENT_PATH) cannot be read: {why}; without it judge-ci cannot tell whether this run concerns a pull request, whose config must come from its base, so it does not judge"
    )]
    Payload {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// Outside GitHub Actions' own marker (`GITHUB_ACTIONS` is not `true`), an event that
    /// concerns a pull request is named (`GITHUB_EVENT_NAME`, or the payload at
    /// `GITHUB_EVENT_PATH`): a local run would read the head's config and plan, so judge-ci
    /// does not judge (fail closed: attack finding A14-2, a container step or another CI
    /// that forwards only the event's variables).
    #[error(
        "{what} names an event about a pull request, but GITHUB_ACTIONS is not `true`: judged as a local run, the pull request's own config would judge it, so judge-ci does not judge; set GITHUB_ACTIONS=true and GITHUB_REPOSITORY as Actions does, pass --config-from REV to name the trusted revision, or unset GITHUB_EVENT_NAME and GITHUB_EVENT_PATH for a local run"
    )]
    EventOutsideActions {
        /// Which variable names it.
        what: String,
    },
    /// A pull-request event (by its name) whose payload does not describe the pull request:
    /// judging it with the working tree's config would judge the head by its own config.
    #[error(
        "GITHUB_EVENT_NAME is {event}, an event about a pull request, but {what}; judge-ci cannot find the pull request's base, whose config must judge it, so it does not judge (pass --config-from REV to name the trusted revision)"
    )]
    NoPullRequest {
        /// The event's name.
        event: String,
        /// What the payload lacks ("GITHUB_EVENT_PATH is not set", "its payload … holds no
        /// `pull_request` object").
        what: String,
    },
    /// The payload lists several pull requests for the one head (a `check_suite`, `check_run`
    /// or `workflow_run` of a head that is open against two bases) whose bases differ, and
    /// none of them is the default branch: which base's config judges the head cannot be
    /// decided from the payload, and the first by list order would let a pull request into a
    /// branch its author controls choose the judge of the one into the protected branch.
    #[error(
        "the {event} event lists {count} pull requests for this head ({which}) with different bases and none into the default branch; judge-ci cannot tell whose base's config must judge it, so it does not judge (run it on each pull request's own pull_request event, or pass --config-from REV)"
    )]
    SeveralBases {
        /// The event's name.
        event: String,
        /// How many pull requests are listed.
        count: usize,
        /// `#7 (base main at 1234567…), #8 (base agent-base at 89abcde…)`.
        which: String,
    },
}

/// Event names GitHub sends only about a pull request (or a merge queue's group of them): a
/// payload under one of these names that describes none is broken or forged, never a run
/// outside a pull request.
fn named_for_pull_request(event: &str) -> bool {
    event.starts_with("pull_request") || event == "merge_group"
}

/// Outside Actions: refuses an environment that names a pull request's event (by its name,
/// or by a readable payload that concerns one), which a local run would judge by the head's
/// own config. A payload that cannot be read names nothing here.
fn outside_actions(env: &dyn Fn(&str) -> Option<String>) -> Result<(), ContextError> {
    if let Some(event) = env("GITHUB_EVENT_NAME").filter(|e| named_for_pull_request(e)) {
        return Err(ContextError::EventOutsideActions {
            what: format!("GITHUB_EVENT_NAME ({event})"),
        });
    }
    let Some(path) = env("GITHUB_EVENT_PATH") else {
        return Ok(());
    };
    let Some(payload) = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    else {
        return Ok(());
    };
    let mut probe = Context::default();
    if about_pull_request(&payload, "", &mut probe).unwrap_or(true) {
        return Err(ContextError::EventOutsideActions {
            what: format!("the payload {path} (GITHUB_EVENT_PATH)"),
        });
    }
    Ok(())
}

fn s(v: &Value, p: &str) -> Option<String> {
    v.pointer(p).and_then(Value::as_str).map(str::to_string)
}

/// Reads the context through `env` (the process environment in production, a map in tests).
/// `Ok(None)` outside GitHub Actions.
pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Context>, ContextError> {
    if env("GITHUB_ACTIONS").as_deref() != Some("true") {
        return outside_actions(env).map(|()| None);
    }
    let event = env("GITHUB_EVENT_NAME").ok_or(ContextError::Missing("GITHUB_EVENT_NAME"))?;
    let repository = env("GITHUB_REPOSITORY").ok_or(ContextError::Missing("GITHUB_REPOSITORY"))?;
    let event_path = env("GITHUB_EVENT_PATH");
    let payload: Value = match &event_path {
        Some(p) => {
            let path = PathBuf::from(p);
            let text = std::fs::read_to_string(&path).map_err(|e| ContextError::Payload {
                path: path.clone(),
                why: e.to_string(),
            })?;
            serde_json::from_str(&text).map_err(|e| ContextError::Payload {
                path,
                why: e.to_string(),
            })?
        }
        None => Value::Null,
    };
    let api_url = env("GITHUB_API_URL")
        .unwrap_or_else(|| "https://api.github.com".into())
        .trim_end_matches('/')
        .to_string();
    let graphql_url = env("GITHUB_GRAPHQL_URL").unwrap_or_else(|| format!("{api_url}/graphql"));
    let run_url = match (env("GITHUB_SERVER_URL"), env("GITHUB_RUN_ID")) {
        (Some(server), Some(id)) => Some(format!(
            "{}/{repository}/actions/runs/{id}",
            server.trim_end_matches('/')
        )),
        _ => None,
    };
    let run_attempt = env("GITHUB_RUN_ID").map(|id| match env("GITHUB_RUN_ATTEMPT") {
        Some(a) => format!("{id}.{a}"),
        None => id,
    });
    let mut c = Context {
        event: event.clone(),
        repository: repository.clone(),
        api_url,
        graphql_url,
        run_url,
        server_url: env("GITHUB_SERVER_URL").map(|s| s.trim_end_matches('/').to_string()),
        checkout_root: env("GITHUB_WORKSPACE").map(PathBuf::from),
        run_attempt,
        actor: env("GITHUB_ACTOR"),
        default_branch: s(&payload, "/repository/default_branch"),
        ..Context::default()
    };
    c.pr_context =
        about_pull_request(&payload, &repository, &mut c)? || about_a_branch(&event, &payload);
    // An event GitHub sends only about a pull request always carries its base commit: one
    // whose payload gives none is broken or forged, never judged by a fallback branch.
    if named_for_pull_request(&event) && (!c.pr_context || c.base_sha.is_none()) {
        return Err(ContextError::NoPullRequest {
            event,
            what: match event_path {
                None => "GITHUB_EVENT_PATH is not set".to_string(),
                Some(p) => format!(
                    "its payload {p} holds no `pull_request` object with a base commit (nor a `merge_group` with one)"
                ),
            },
        });
    }
    if !c.pr_context && c.head_sha.is_none() {
        c.head_sha = env("GITHUB_SHA").or_else(|| s(&payload, "/after"));
    }
    Ok(Some(c))
}

/// Events whose runs never concern a pull request: a `workflow_run` or `check_*` event that
/// follows one of these (and names none) is not a pull-request context. Every other event may
/// concern one (an `issue_comment` run may be a "/judge" on a pull request, a dispatch may
/// carry one in inputs the follow-up does not show), and is read as one: the config then comes
/// from the trusted default branch, the safe reading when in doubt.
const NEVER_ABOUT_A_PULL_REQUEST: &[&str] = &[
    "push",
    "schedule",
    "release",
    "create",
    "delete",
    "page_build",
    "registry_package",
    "watch",
    "fork",
    "gollum",
    "public",
];

/// Fills in what `payload` says about a pull request, whatever the event is called, and says
/// whether the run concerns one (trust.md point 1). This is the one decision for every event:
/// the shapes GitHub documents come first (`pull_request`, `issue.pull_request`,
/// `merge_group`, `workflow_run`, `check_suite`, `check_run`), then any payload that names a
/// pull request anywhere (see `names_pull_request`: a `pull_request` of any non-empty value, a
/// `pull_request_url`, a pull request's ref `refs/pull/7/head`, a merge queue's branch
/// `gh-readonly-queue/main/pr-7-…`, an address `…/pulls/7`), then data a sender chose (dispatch
/// inputs, a client payload, a deployment's payload) that names one by a key of its own. A
/// pull-request context with no base commit reads the base branch or default branch; with
/// neither, `config_source` refuses (exit 2): never the head's own config.
fn about_pull_request(
    payload: &Value,
    repository: &str,
    c: &mut Context,
) -> Result<bool, ContextError> {
    if let Some(pr) = payload.get("pull_request").filter(|v| v.is_object()) {
        // pull_request, pull_request_target, pull_request_review(_comment, _thread).
        c.pull_request = pr.get("number").and_then(Value::as_u64);
        c.head_sha = s(pr, "/head/sha");
        c.base_sha = s(pr, "/base/sha");
        c.head_repository = s(pr, "/head/repo/full_name");
        c.head_owner = s(pr, "/head/repo/owner/login");
        c.fork = c.head_repository.as_deref() != Some(repository);
        return Ok(true);
    }
    if payload.pointer("/issue/pull_request").is_some() {
        // issue_comment and issues on a PR: the head commit is not in the payload (the client
        // looks it up and confirms it).
        c.pull_request = payload.pointer("/issue/number").and_then(Value::as_u64);
        return Ok(true);
    }
    if let Some(mg) = payload.get("merge_group").filter(|v| v.is_object()) {
        c.head_sha = s(mg, "/head_sha");
        c.base_sha = s(mg, "/base_sha");
        return Ok(true);
    }
    if let Some(wr) = payload.get("workflow_run").filter(|v| v.is_object()) {
        // workflow_run, deployment_review.
        c.head_sha = s(wr, "/head_sha");
        c.head_branch = s(wr, "/head_branch");
        c.head_repository = s(wr, "/head_repository/full_name");
        c.head_owner = s(wr, "/head_repository/owner/login");
        c.fork = c.head_repository.as_ref().is_some_and(|h| h != repository);
        let listed = one_pull_request(c, wr.get("pull_requests"))?;
        // A fork's PR is not listed in `pull_requests`, nor is the PR of an issue_comment run;
        // the triggering event still says whether the run may concern one.
        let after = s(wr, "/event");
        let may_concern = after
            .as_deref()
            .is_none_or(|e| !NEVER_ABOUT_A_PULL_REQUEST.contains(&e));
        let queue = c.head_branch.as_deref().and_then(merge_queue_branch);
        let in_queue = queue.is_some();
        if let Some((base, number)) = queue {
            c.base_ref.get_or_insert(base);
            c.pull_request.get_or_insert(number);
        }
        return Ok(listed || may_concern || in_queue || names_pull_request(wr, 0).is_some());
    }
    for key in ["check_suite", "check_run"] {
        if let Some(check) = payload.get(key).filter(|v| v.is_object()) {
            c.head_sha = s(check, "/head_sha");
            let list = check
                .get("pull_requests")
                .filter(|l| l.as_array().is_some_and(|a| !a.is_empty()))
                .or_else(|| check.pointer("/check_suite/pull_requests"));
            // GitHub lists no pull request of a fork in a check's payload, and the branch it
            // names is the head repository's, which the fork's author names (a fork's `main`):
            // a branch name is no evidence that the commit is the default branch's (attack
            // finding N7-1). Every check may be a pull request's; on the default branch's tip
            // the default branch's config is the one the working tree holds anyway.
            one_pull_request(c, list)?;
            return Ok(true);
        }
    }
    // A dispatch carries what its sender chose (`workflow_dispatch` inputs, a
    // `repository_dispatch` client payload, a deployment's payload): an on-demand "judge pull
    // request #N" names it by a key of its own. Such a key, or a pull request's ref or address
    // as a value, makes it a pull-request context; with no base commit named, the default
    // branch's config judges.
    for key in [
        "/inputs",
        "/client_payload",
        "/deployment/payload",
        "/deployment_status/deployment/payload",
    ] {
        if let Some(data) = payload.pointer(key)
            && let Some(number) = dispatch_names_pull_request(data, 0)
        {
            c.pull_request = number;
            c.base_sha = [
                "/base_sha",
                "/base",
                "/pull_request_base_sha",
                "/pr_base_sha",
            ]
            .iter()
            .find_map(|p| s(data, p))
            .filter(|b| b.len() == 40);
            return Ok(true);
        }
    }
    if let Some(number) = names_pull_request(payload, 0) {
        c.pull_request = number;
        if let Some((base, n)) = ["/ref", "/deployment/ref", "/workflow_run/head_branch"]
            .iter()
            .find_map(|p| s(payload, p))
            .as_deref()
            .and_then(merge_queue_branch)
        {
            c.base_ref = Some(base);
            c.pull_request = Some(n);
            c.head_sha = s(payload, "/after");
        }
        return Ok(true);
    }
    Ok(false)
}

/// Whether an event that may concern a pull request (none of [`NEVER_ABOUT_A_PULL_REQUEST`])
/// is about a branch or a commit, whichever branch it names: a `status` on a commit of a pull
/// request's branch, a `deployment` or `deployment_status` of its ref, a dispatch run on it
/// (attack findings N1, N7-1). A pull request's head may be any of them, and the payload never
/// says whether it is one, so the run is read as one: its config comes from the trusted
/// default branch, as for a `check_suite`.
fn about_a_branch(event: &str, payload: &Value) -> bool {
    if NEVER_ABOUT_A_PULL_REQUEST.contains(&event) {
        return false;
    }
    let mut branches: Vec<String> = ["/ref", "/deployment/ref", "/deployment_status/ref"]
        .iter()
        .filter_map(|p| s(payload, p))
        .map(|r| r.strip_prefix("refs/heads/").unwrap_or(&r).to_string())
        .collect();
    if let Some(list) = payload.get("branches").and_then(Value::as_array) {
        branches.extend(list.iter().filter_map(|b| s(b, "/name")));
    }
    let commit_scoped = payload.get("sha").is_some()
        || payload.get("deployment").is_some()
        || payload.get("deployment_status").is_some();
    // Which branch it names decides nothing (attack finding N7-1): a branch name is chosen by
    // whoever pushed it (a fork's `main`), and a status's `branches` lists every branch whose
    // head is the commit. On the default branch's tip the default branch's config is the one
    // the working tree holds anyway.
    !branches.is_empty() || commit_scoped
}

/// Reads a `pull_requests` list into `c` and says whether it names any. One listed pull
/// request gives its number and base; several for the one head must agree on their base
/// commit, or exactly one of them must be into the default branch (the branch the
/// maintainers protect), which then judges: never the first by list order (attack finding
/// NC13: a pull request into a branch its author controls, listed first, chose the config).
fn one_pull_request(c: &mut Context, list: Option<&Value>) -> Result<bool, ContextError> {
    let Some(prs) = list.and_then(Value::as_array).filter(|a| !a.is_empty()) else {
        return Ok(false);
    };
    let base = |p: &Value| s(p, "/base/sha");
    let first = &prs[0];
    let chosen = if prs.iter().all(|p| base(p) == base(first)) {
        Some(first)
    } else {
        let into_default: Vec<&Value> = prs
            .iter()
            .filter(|p| c.default_branch.is_some() && s(p, "/base/ref") == c.default_branch)
            .collect();
        match into_default.as_slice() {
            [one] => Some(*one),
            [one, ..] if into_default.iter().all(|p| base(p) == base(one)) => Some(*one),
            _ => None,
        }
    };
    let Some(pr) = chosen else {
        let which = prs
            .iter()
            .map(|p| {
                format!(
                    "#{} (base {} at {})",
                    p.get("number")
                        .and_then(Value::as_u64)
                        .map_or_else(|| "?".to_string(), |n| n.to_string()),
                    s(p, "/base/ref").unwrap_or_else(|| "?".into()),
                    base(p).map_or_else(
                        || "?".to_string(),
                        |b| b.chars().take(12).collect::<String>()
                    ),
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        return Err(ContextError::SeveralBases {
            event: c.event.clone(),
            count: prs.len(),
            which,
        });
    };
    c.pull_request = pr.get("number").and_then(Value::as_u64);
    c.base_sha = base(pr);
    Ok(true)
}

/// The base branch and pull request a merge queue's branch names
/// (`refs/heads/gh-readonly-queue/<base>/pr-<n>-<sha>`, GitHub's temporary branch whose `push`
/// and checks run the queued pull request's code).
fn merge_queue_branch(r: &str) -> Option<(String, u64)> {
    let rest = r
        .trim_start_matches("refs/heads/")
        .strip_prefix("gh-readonly-queue/")?;
    let (base, tail) = rest.rsplit_once("/pr-")?;
    let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
    (!base.is_empty()).then_some(())?;
    Some((base.to_string(), digits.parse().ok()?))
}

/// Whether dispatch data `v` names a pull request: a key spelled like one (`pr`,
/// `pr_number`, `pull-request`, `pullRequestUrl`, …) with a value that is not empty, or a
/// value that is a pull request's ref (`refs/pull/7/head`) or address (`…/pull/7`). Gives
/// the number when one can be read (`Some(None)` when named without one).
fn dispatch_names_pull_request(v: &Value, depth: usize) -> Option<Option<u64>> {
    if depth > 32 {
        return Some(None);
    }
    let number = |x: &Value| -> Option<u64> {
        x.as_u64().or_else(|| {
            let t = x.as_str()?.trim().trim_start_matches('#');
            t.parse().ok().or_else(|| pull_number_in(t))
        })
    };
    match v {
        Value::Object(map) => map.iter().find_map(|(k, x)| {
            let n: String = k
                .chars()
                .filter(|ch| !matches!(ch, '-' | '_' | ' '))
                .flat_map(char::to_lowercase)
                .collect();
            let named = n.contains("pullrequest")
                || matches!(
                    n.as_str(),
                    "pr" | "prnumber"
                        | "prnum"
                        | "prno"
                        | "prid"
                        | "prurl"
                        | "prref"
                        | "pull"
                        | "pullnumber"
                        | "pullid"
                        | "pullurl"
                        | "pullref"
                        // Sender-chosen data: a bare number or issue is the usual way to say
                        // "judge #7"; a head names what the run checks out.
                        | "number"
                        | "issue"
                        | "issuenumber"
                        | "head"
                        | "headref"
                        | "headsha"
                        | "headbranch"
                );
            let empty = match x {
                Value::Null => true,
                Value::Bool(b) => !b,
                Value::String(t) => t.trim().is_empty(),
                Value::Number(_) => x.as_u64() == Some(0),
                Value::Array(a) => a.is_empty(),
                Value::Object(o) => o.is_empty(),
            };
            if named && !empty {
                return Some(number(x).or_else(|| x.get("number").and_then(number)));
            }
            dispatch_names_pull_request(x, depth + 1)
        }),
        Value::Array(items) => items
            .iter()
            .find_map(|x| dispatch_names_pull_request(x, depth + 1)),
        Value::String(t) => pull_number_in(t).map(Some),
        _ => None,
    }
}

/// The number in a pull request's ref (`refs/pull/7/merge`, `pull/7/head`), address
/// (`https://github.com/o/r/pull/7`, the API's `…/pulls/7`) or merge queue branch
/// (`gh-readonly-queue/main/pr-7-…`), if `t` holds one.
fn pull_number_in(t: &str) -> Option<u64> {
    if let Some(at) = t.find("gh-readonly-queue/")
        && let Some((_, n)) = merge_queue_branch(&t[at..])
    {
        return Some(n);
    }
    let rest = ["refs/pull/", "/pulls/", "/pull/"]
        .iter()
        .find_map(|m| t.split_once(m).map(|(_, r)| r))
        .or_else(|| t.strip_prefix("pull/"))?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Whether a string GitHub or a sender put in a payload *is* (not merely mentions) a pull
/// request's ref, address or merge queue branch: free text (a commit message, a comment body)
/// that mentions one is not a pull-request context, a `ref` or `…_url` value that is one is.
fn is_pull_request_name(t: &str) -> Option<u64> {
    let t = t.trim();
    if t.contains(char::is_whitespace) {
        return None;
    }
    let n = pull_number_in(t)?;
    let shaped = t.starts_with("refs/pull/")
        || t.starts_with("pull/")
        || t.contains("gh-readonly-queue/")
        || ((t.starts_with("https://") || t.starts_with("http://"))
            && (t.contains("/pull/") || t.contains("/pulls/")));
    shaped.then_some(n)
}

/// Whether `v` names a pull request at any depth up to a bound, whatever its event: a
/// `pull_request` key (or one spelled `pull_request_url`, `pullRequest`, …) with a value that
/// is not empty (an object, a number, a string), a non-empty `pull_requests` list, or a string
/// value that is a pull request's ref, address or merge queue branch (a `deployment_status`
/// whose ref is `refs/pull/7/head`). Gives the number when one can be read.
fn names_pull_request(v: &Value, depth: usize) -> Option<Option<u64>> {
    // Payloads GitHub sends nest a few levels; a deeper one is hostile or broken, and treating it
    // as a pull request only means reading the config from the base.
    if depth > 32 {
        return Some(None);
    }
    let number = |x: &Value| -> Option<u64> {
        x.as_u64()
            .or_else(|| x.as_str()?.trim().trim_start_matches('#').parse().ok())
            .or_else(|| x.get("number").and_then(Value::as_u64))
            .or_else(|| x.as_str().and_then(pull_number_in))
            .or_else(|| {
                x.get("url")
                    .and_then(Value::as_str)
                    .and_then(pull_number_in)
            })
    };
    match v {
        Value::Object(map) => map.iter().find_map(|(k, x)| {
            let key: String = k
                .chars()
                .filter(|ch| !matches!(ch, '-' | '_' | ' '))
                .flat_map(char::to_lowercase)
                .collect();
            let empty = match x {
                Value::Null => true,
                Value::Bool(b) => !b,
                Value::String(t) => t.trim().is_empty(),
                Value::Number(_) => x.as_u64() == Some(0),
                Value::Array(a) => a.is_empty(),
                Value::Object(o) => o.is_empty(),
            };
            if key.starts_with("pullrequest") && !key.starts_with("pullrequests") && !empty {
                return Some(number(x));
            }
            if key == "pullrequests" && !empty && x.is_array() {
                return Some(x.get(0).and_then(number));
            }
            names_pull_request(x, depth + 1)
        }),
        Value::Array(items) => items.iter().find_map(|x| names_pull_request(x, depth + 1)),
        Value::String(t) => is_pull_request_name(t).map(Some),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn ctx(event: &str, file: &str, extra: &[(&str, &str)]) -> Context {
        let path = format!(
            "{}/tests/fixtures/github/events/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut vars: HashMap<String, String> = [
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", event),
            ("GITHUB_REPOSITORY", "Codertocat/Hello-World"),
            ("GITHUB_SHA", "0000000000000000000000000000000000000merge"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        vars.insert("GITHUB_EVENT_PATH".into(), path);
        for (k, v) in extra {
            vars.insert(k.to_string(), v.to_string());
        }
        from_env(&|k| vars.get(k).cloned()).unwrap().unwrap()
    }

    /// The fixture's comment is on an issue; GitHub marks a pull request's with
    /// `issue.pull_request`.
    fn comment_on_a_pull_request() -> (tempfile::TempDir, PathBuf) {
        let path = format!(
            "{}/tests/fixtures/github/events/issue_comment.created.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut payload: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        payload["issue"]["pull_request"] = serde_json::json!({
            "url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"
        });
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("comment.json");
        std::fs::write(&file, payload.to_string()).unwrap();
        (dir, file)
    }

    #[test]
    fn head_sha_per_event_never_the_merge_commit() {
        let pr = ctx("pull_request", "pull_request.opened.json", &[]);
        assert_eq!(
            (pr.pull_request, pr.head_sha.as_deref()),
            (Some(2), Some("ec26c3e57ca3a959ca5aad62de7213c562f8c821"))
        );
        assert!(pr.base_sha.is_some() && !pr.fork);
        let target = ctx("pull_request_target", "pull_request.synchronize.json", &[]);
        assert_eq!(
            target.head_sha.as_deref(),
            Some("ec26c3e57ca3a959ca5aad62de7213c562f8c821")
        );
        let push = ctx("push", "push.json", &[]);
        assert_eq!(
            push.head_sha.as_deref(),
            Some("0000000000000000000000000000000000000merge")
        );
        assert_eq!(push.pull_request, None);
        let wr = ctx("workflow_run", "workflow_run.completed.json", &[]);
        assert_eq!(
            (
                wr.head_sha.as_deref(),
                wr.pull_request,
                wr.head_branch.as_deref()
            ),
            (
                Some("5779607b49aab1200488439f02372c57b4f75444"),
                None,
                Some("main")
            )
        );
        let mg = ctx("merge_group", "merge_group.checks_requested.json", &[]);
        assert_eq!(
            mg.head_sha.as_deref(),
            Some("2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d")
        );
        let (_dir, comment) = comment_on_a_pull_request();
        let ic = ctx(
            "issue_comment",
            "issue_comment.created.json",
            &[("GITHUB_EVENT_PATH", comment.to_str().unwrap())],
        );
        assert_eq!(ic.head_sha, None);
        let plain = ctx("issue_comment", "issue_comment.created.json", &[]);
        assert!(
            !plain.pr_context,
            "a comment on an issue is not about a pull request"
        );
        let cs = ctx("check_suite", "check_suite.completed.json", &[]);
        assert_eq!(
            (cs.head_sha.as_deref(), cs.pull_request),
            (Some("ec26c3e57ca3a959ca5aad62de7213c562f8c821"), Some(2))
        );
    }

    #[test]
    fn forks_enterprise_urls_and_outside_actions() {
        let path = format!(
            "{}/tests/fixtures/github/events/pull_request.opened.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut payload: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        payload["pull_request"]["head"]["repo"]["full_name"] = "someone/Hello-World".into();
        let dir = tempfile::tempdir().unwrap();
        let fork_path = dir.path().join("fork.json");
        std::fs::write(&fork_path, payload.to_string()).unwrap();
        let fork = ctx(
            "pull_request",
            "pull_request.opened.json",
            &[("GITHUB_EVENT_PATH", fork_path.to_str().unwrap())],
        );
        assert!(fork.fork);
        let ghes = ctx(
            "push",
            "push.json",
            &[
                ("GITHUB_API_URL", "https://ghe.example.com/api/v3"),
                ("GITHUB_GRAPHQL_URL", "https://ghe.example.com/api/graphql"),
                ("GITHUB_SERVER_URL", "https://ghe.example.com"),
                ("GITHUB_RUN_ID", "42"),
            ],
        );
        assert_eq!(ghes.api_url, "https://ghe.example.com/api/v3");
        assert_eq!(ghes.graphql_url, "https://ghe.example.com/api/graphql");
        assert_eq!(
            ghes.run_url.as_deref(),
            Some("https://ghe.example.com/Codertocat/Hello-World/actions/runs/42")
        );
        assert!(from_env(&|_| None).unwrap().is_none());
        let bad = from_env(&|k| match k {
            "GITHUB_ACTIONS" => Some("true".into()),
            "GITHUB_EVENT_NAME" => Some("push".into()),
            "GITHUB_REPOSITORY" => Some("a/b".into()),
            "GITHUB_EVENT_PATH" => Some("/nonexistent/event.json".into()),
            _ => None,
        });
        assert!(matches!(bad, Err(ContextError::Payload { .. })));
        // A14-2: outside Actions' marker, an environment that names a pull request's event
        // is refused (a local run would judge it by the head's config); a push's is not.
        let pr_path = format!(
            "{}/tests/fixtures/github/events/pull_request.opened.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let push_path = pr_path.replace("pull_request.opened.json", "push.json");
        let outside = |name: Option<&str>, path: &str| {
            let (name, path) = (name.map(str::to_string), path.to_string());
            from_env(&move |k| match k {
                "GITHUB_EVENT_NAME" => name.clone(),
                "GITHUB_EVENT_PATH" => Some(path.clone()),
                _ => None,
            })
        };
        for (name, path) in [
            (Some("pull_request"), push_path.as_str()),
            (None, pr_path.as_str()),
            (Some("push"), pr_path.as_str()),
        ] {
            let e = outside(name, path).unwrap_err().to_string();
            assert!(e.contains("GITHUB_ACTIONS is not `true`"), "{e}");
        }
        assert!(outside(Some("push"), &push_path).unwrap().is_none());
        assert!(outside(None, "/nonexistent/event.json").unwrap().is_none());
    }

    #[test]
    fn every_event_whose_payload_names_a_pull_request_is_a_pull_request_context() {
        // One fixture per event GitHub documents with a pull-request payload; the event name
        // decides nothing, so each is also read under a name judge-ci does not know.
        let cases = [
            ("pull_request", "pull_request.opened.json", Some(2)),
            (
                "pull_request_target",
                "pull_request.synchronize.json",
                Some(2),
            ),
            (
                "pull_request_review",
                "pull_request_review.submitted.json",
                Some(2),
            ),
            (
                "pull_request_review_comment",
                "pull_request_review_comment.created.json",
                Some(2),
            ),
            (
                "pull_request_review_thread",
                "pull_request_review_thread.resolved.json",
                Some(118),
            ),
            ("issues", "issues.demilestoned.json", Some(2)),
            ("merge_group", "merge_group.checks_requested.json", None),
            ("check_suite", "check_suite.completed.json", Some(2)),
            ("check_run", "check_run.created.json", Some(2)),
            (
                "deployment_review",
                "deployment_review.requested.json",
                Some(3),
            ),
        ];
        let (_dir, comment) = comment_on_a_pull_request();
        let comment = comment.to_str().unwrap();
        let cases = cases.iter().map(|&(e, f, n)| (e, f, n, None)).chain([(
            "issue_comment",
            "issue_comment.created.json",
            Some(1),
            Some(comment),
        )]);
        for (event, file, number, path) in cases {
            for name in [event, "an_event_from_the_future"] {
                let extra: Vec<(&str, &str)> =
                    path.map(|p| ("GITHUB_EVENT_PATH", p)).into_iter().collect();
                let c = ctx(name, file, &extra);
                assert!(c.pr_context, "{name} with {file} is about a pull request");
                assert_eq!(c.pull_request, number, "{name} with {file}");
                assert_ne!(
                    c.head_sha.as_deref(),
                    Some("0000000000000000000000000000000000000merge"),
                    "{name} with {file}: the head is never GITHUB_SHA's merge commit"
                );
            }
        }
        let review = ctx(
            "pull_request_review",
            "pull_request_review_thread.resolved.json",
            &[],
        );
        assert_eq!(
            (review.head_sha.as_deref(), review.base_sha.as_deref()),
            (
                Some("14ae1f988d344e6b4f97f6153fb0287dcda335bf"),
                Some("fcaaddec44575a657bf81b049208b2ce139da3ca")
            )
        );
        let push = ctx("push", "push.json", &[]);
        assert!(!push.pr_context && push.pull_request.is_none());
    }

    #[test]
    fn a_pull_request_named_anywhere_in_an_unknown_payload_counts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dispatch.json");
        std::fs::write(
            &path,
            r#"{"action":"judge","client_payload":{"item":{"pull_request":{"number":9}}}}"#,
        )
        .unwrap();
        let c = ctx(
            "repository_dispatch",
            "push.json",
            &[("GITHUB_EVENT_PATH", path.to_str().unwrap())],
        );
        assert!(c.pr_context);
        std::fs::write(&path, r#"{"action":"x","items":{"pull_requests":[]}}"#).unwrap();
        let c = ctx(
            "repository_dispatch",
            "push.json",
            &[("GITHUB_EVENT_PATH", path.to_str().unwrap())],
        );
        assert!(!c.pr_context, "an empty pull_requests list names none");
        let mut deep = serde_json::json!({"x": 1});
        for _ in 0..40 {
            deep = serde_json::json!({ "nested": deep });
        }
        std::fs::write(&path, deep.to_string()).unwrap();
        let c = ctx(
            "repository_dispatch",
            "push.json",
            &[("GITHUB_EVENT_PATH", path.to_str().unwrap())],
        );
        assert!(
            c.pr_context,
            "a payload too deep to search is read as a pull request's"
        );
    }

    fn with_payload(
        event: Option<&str>,
        payload: Option<&str>,
    ) -> Result<Option<Context>, ContextError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("event.json");
        if let Some(p) = payload {
            std::fs::write(&path, p).unwrap();
        }
        let path = path.to_str().unwrap().to_string();
        from_env(&|k| match k {
            "GITHUB_ACTIONS" => Some("true".into()),
            "GITHUB_EVENT_NAME" => event.map(str::to_string),
            "GITHUB_REPOSITORY" => Some("a/b".into()),
            "GITHUB_EVENT_PATH" => Some(path.clone()),
            _ => None,
        })
    }

    #[test]
    fn a_pull_request_event_that_describes_no_pull_request_is_refused() {
        // Attack finding newer F2: a missing, unreadable or malformed payload, or one without
        // its pull request, must never become a run outside a pull request (the head's config).
        for event in ["pull_request", "pull_request_target", "merge_group"] {
            for payload in [
                None,
                Some("not json"),
                Some("{}"),
                Some("[]"),
                Some("null"),
                Some(r#"{"number":7}"#),
                Some(r#"{"action":"opened"}"#),
                Some(r#"{"pull_request":"7"}"#),
            ] {
                let got = with_payload(Some(event), payload);
                assert!(
                    matches!(
                        got,
                        Err(ContextError::Payload { .. } | ContextError::NoPullRequest { .. })
                    ),
                    "{event} with {payload:?}: {got:?}"
                );
            }
        }
        let unset = from_env(&|k| match k {
            "GITHUB_ACTIONS" => Some("true".into()),
            "GITHUB_EVENT_NAME" => Some("pull_request".into()),
            "GITHUB_REPOSITORY" => Some("a/b".into()),
            _ => None,
        });
        let Err(e) = unset else {
            panic!("no payload at all: {unset:?}")
        };
        assert!(
            e.to_string().contains("GITHUB_EVENT_PATH is not set"),
            "{e}"
        );
        // No event name while a payload names a pull request: refused, not a local run.
        assert!(matches!(
            with_payload(None, Some(r#"{"pull_request":{"number":1}}"#)),
            Err(ContextError::Missing("GITHUB_EVENT_NAME"))
        ));
        // A push without a payload stays what it was.
        let push = with_payload(Some("push"), Some("{}")).unwrap().unwrap();
        assert!(!push.pr_context);
    }

    #[test]
    fn a_dispatch_that_names_a_pull_request_by_a_key_of_its_own_is_a_pull_request_context() {
        // Attack finding newer F12: an on-demand "judge PR #N" workflow.
        let base = "0123456789abcdef0123456789abcdef01234567";
        let cases = [
            (
                "workflow_dispatch",
                format!(r#"{{"inputs":{{"pull_request":"7","base_sha":"{base}"}}}}"#),
                Some(7),
                Some(base),
            ),
            (
                "workflow_dispatch",
                r##"{"inputs":{"pr-number":"#12"}}"##.to_string(),
                Some(12),
                None,
            ),
            (
                "workflow_dispatch",
                r#"{"inputs":{"ref":"refs/pull/5/head"}}"#.to_string(),
                Some(5),
                None,
            ),
            (
                "repository_dispatch",
                format!(r#"{{"client_payload":{{"pr":{{"number":7,"base_sha":"{base}"}}}}}}"#),
                Some(7),
                None,
            ),
            (
                "repository_dispatch",
                r#"{"client_payload":{"PullRequestUrl":"https://github.com/a/b/pull/3"}}"#
                    .to_string(),
                Some(3),
                None,
            ),
        ];
        for (event, payload, number, base_sha) in cases {
            let c = with_payload(Some(event), Some(&payload)).unwrap().unwrap();
            assert!(c.pr_context, "{event} {payload}");
            assert_eq!(c.pull_request, number, "{event} {payload}");
            assert_eq!(c.base_sha.as_deref(), base_sha, "{event} {payload}");
        }
        for payload in [
            r#"{"inputs":{"pr":""}}"#,
            r#"{"inputs":{"tag":"v1.2","dry_run":"false"}}"#,
            r#"{"inputs":{"pull_request":false}}"#,
        ] {
            let c = with_payload(Some("workflow_dispatch"), Some(payload))
                .unwrap()
                .unwrap();
            assert!(!c.pr_context, "{payload}");
        }
    }
    #[test]
    fn every_payload_shape_that_names_a_pull_request_is_a_pull_request_context() {
        // Attack finding NC1: shapes the earlier heuristics missed were judged by the head's own
        // config. Each names pull request #7; none names a base, so `config_source` refuses
        // (exit 2) unless a default branch is known.
        let h = "0123456789abcdef0123456789abcdef01234567";
        let cases = [
            ("workflow_dispatch", r#"{"inputs":{"number":"7"}}"#.to_string()),
            ("workflow_dispatch", r#"{"inputs":{"issue":"7"}}"#.to_string()),
            ("workflow_dispatch", r#"{"inputs":{"ref":"pull/7/head"}}"#.to_string()),
            (
                "repository_dispatch",
                r#"{"action":"judge","client_payload":{"number":7}}"#.to_string(),
            ),
            (
                "deployment",
                format!(r#"{{"deployment":{{"sha":"{h}","ref":"feat","payload":{{"pull_request":7}}}}}}"#),
            ),
            (
                "deployment_status",
                format!(r#"{{"deployment_status":{{"state":"success"}},"deployment":{{"sha":"{h}","ref":"refs/pull/7/head"}}}}"#),
            ),
            (
                "some_app_event",
                r#"{"action":"created","comment":{"id":1,"body":"/judge","pull_request_url":"https://api.github.com/repos/o/r/pulls/7"}}"#.to_string(),
            ),
        ];
        for (event, payload) in &cases {
            let c = with_payload(Some(event), Some(payload)).unwrap().unwrap();
            assert!(c.pr_context, "{event} {payload}");
            assert_eq!(c.pull_request, Some(7), "{event} {payload}");
            assert_eq!(c.base_sha, None, "{event} {payload}");
        }
        // The merge queue's branch: pushed by GitHub, it runs the queued pull request's code;
        // its base branch is named, so the base branch's config judges.
        let push = with_payload(
            Some("push"),
            Some(&format!(
                r#"{{"ref":"refs/heads/gh-readonly-queue/release/1.x/pr-7-{h}","before":"{h}","after":"{h}"}}"#
            )),
        )
        .unwrap()
        .unwrap();
        assert!(push.pr_context);
        assert_eq!(
            (push.pull_request, push.base_ref.as_deref()),
            (Some(7), Some("release/1.x"))
        );
        // A workflow_run after a run that may concern a pull request and lists none (a "/judge"
        // comment, a fork's check): a pull-request context; after a push to a branch, not.
        let wr = |event: &str, branch: &str| {
            with_payload(
                Some("workflow_run"),
                Some(&format!(
                    r#"{{"workflow_run":{{"event":"{event}","head_branch":"{branch}","head_sha":"{h}","pull_requests":[]}},"repository":{{"default_branch":"main"}}}}"#
                )),
            )
            .unwrap()
            .unwrap()
        };
        assert!(wr("issue_comment", "main").pr_context);
        assert!(wr("a_new_event", "main").pr_context);
        assert!(!wr("push", "feat").pr_context);
        assert!(wr("push", "gh-readonly-queue/main/pr-7-abc").pr_context);
        // A check on a branch other than the default one with no pull request listed (what
        // GitHub sends for a fork's pull request): one; on a branch named like the default
        // one: one too.
        let check = |branch: &str| {
            with_payload(
                Some("check_run"),
                Some(&format!(
                    r#"{{"action":"requested_action","check_run":{{"head_sha":"{h}","pull_requests":[],"check_suite":{{"head_branch":"{branch}"}}}},"repository":{{"default_branch":"main"}}}}"#
                )),
            )
            .unwrap()
            .unwrap()
        };
        assert!(check("feat").pr_context);
        // N7-1: a fork's branch may be called `main` too; the name is no evidence.
        assert!(check("main").pr_context);
        // Attack finding N1: a status, deployment or dispatch about a branch other than the
        // default one may be a pull request's head (the payload never says): one; about a
        // branch named like the default one (N7-1): one too; a push to a branch: none.
        let about = |event: &str, body: &str| {
            with_payload(
                Some(event),
                Some(&format!(
                    r#"{{{body},"repository":{{"default_branch":"main"}}}}"#
                )),
            )
            .unwrap()
            .unwrap()
            .pr_context
        };
        let status = |branch: &str| {
            format!(r#""sha":"{h}","state":"success","branches":[{{"name":"{branch}"}}]"#)
        };
        assert!(about("status", &status("feat")));
        assert!(about("status", &status("main")));
        assert!(about("status", &format!(r#""sha":"{h}","branches":[]"#)));
        assert!(about("deployment", r#""deployment":{"ref":"feat"}"#));
        assert!(about(
            "deployment_status",
            r#""deployment":{"ref":"feat"},"deployment_status":{"state":"success"}"#
        ));
        assert!(about("deployment", r#""deployment":{"ref":"main"}"#));
        assert!(about(
            "workflow_dispatch",
            r#""ref":"refs/heads/feat","inputs":{}"#
        ));
        assert!(about(
            "workflow_dispatch",
            r#""ref":"refs/heads/main","inputs":{}"#
        ));
        assert!(!about(
            "push",
            &format!(r#""ref":"refs/heads/feat","after":"{h}""#)
        ));
        // Free text that merely mentions a pull request does not make a push one.
        let push = with_payload(
            Some("push"),
            Some(r#"{"ref":"refs/heads/main","head_commit":{"message":"Merge pull request #7 from a/b https://github.com/o/r/pull/7"},"repository":{"pulls_url":"https://api.github.com/repos/o/r/pulls{/number}","permissions":{"pull":true}}}"#),
        )
        .unwrap()
        .unwrap();
        assert!(!push.pr_context, "{push:?}");
    }

    #[test]
    fn several_pull_requests_for_one_head_need_one_base_never_the_first_listed() {
        // Attack finding NC13: #8 into a branch the author controls, listed first, chose the
        // config for the head #7 into main shares.
        let (a, b) = (
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
        );
        let pr = |n: u32, base: &str, r: &str| {
            format!(
                r#"{{"number":{n},"base":{{"sha":"{base}","ref":"{r}"}},"head":{{"sha":"cccccccccccccccccccccccccccccccccccccccc"}}}}"#
            )
        };
        let two = format!("[{},{}]", pr(8, a, "agent-base"), pr(7, b, "main"));
        for (event, payload) in [
            (
                "check_suite",
                format!(r#"{{"check_suite":{{"head_sha":"c","pull_requests":{two}}}}}"#),
            ),
            (
                "check_run",
                format!(r#"{{"check_run":{{"head_sha":"c","pull_requests":{two}}}}}"#),
            ),
            (
                "workflow_run",
                format!(
                    r#"{{"workflow_run":{{"event":"pull_request","head_sha":"c","pull_requests":{two}}}}}"#
                ),
            ),
        ] {
            let got = with_payload(Some(event), Some(&payload));
            let Err(e @ ContextError::SeveralBases { .. }) = got else {
                panic!("{event}: {got:?}")
            };
            assert!(e.to_string().contains("#8 (base agent-base"), "{e}");
            // Told which branch the maintainers protect, the pull request into it judges,
            // whatever the order.
            let with_default =
                payload.replacen('{', r#"{"repository":{"default_branch":"main"},"#, 1);
            let c = with_payload(Some(event), Some(&with_default))
                .unwrap()
                .unwrap();
            assert_eq!(
                (c.pull_request, c.base_sha.as_deref()),
                (Some(7), Some(b)),
                "{event}"
            );
        }
        // The same base listed twice: that base.
        let same = format!("[{},{}]", pr(8, b, "main"), pr(7, b, "main"));
        let c = with_payload(
            Some("check_suite"),
            Some(&format!(
                r#"{{"check_suite":{{"head_sha":"c","pull_requests":{same}}}}}"#
            )),
        )
        .unwrap()
        .unwrap();
        assert_eq!(c.base_sha.as_deref(), Some(b));
    }
}
