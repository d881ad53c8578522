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
    /// True when the event is about a pull request, whose head is untrusted: `pull_request`,
    /// `pull_request_target`, `merge_group`, `workflow_run` of a PR, `issue_comment` on a PR.
    pub pr_context: bool,
}

/// Why the context could not be read.
#[derive(Debug, Error)]
pub enum ContextError {
    /// A variable that Actions always sets is missing.
    #[error("{0} is not set; is this running in GitHub Actions?")]
    Missing(&'static str),
    /// The event payload cannot be read.
    #[error("the event payload {path} cannot be read: {why}")]
    Payload {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

fn s(v: &Value, p: &str) -> Option<String> {
    v.pointer(p).and_then(Value::as_str).map(str::to_string)
}

/// Reads the context through `env` (the process environment in production, a map in tests).
/// `Ok(None)` outside GitHub Actions.
pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Context>, ContextError> {
    if env("GITHUB_ACTIONS").as_deref() != Some("true") {
        return Ok(None);
    }
    let event = env("GITHUB_EVENT_NAME").ok_or(ContextError::Missing("GITHUB_EVENT_NAME"))?;
    let repository = env("GITHUB_REPOSITORY").ok_or(ContextError::Missing("GITHUB_REPOSITORY"))?;
    let payload: Value = match env("GITHUB_EVENT_PATH") {
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
    match event.as_str() {
        "pull_request" | "pull_request_target" => {
            c.pull_request = payload
                .pointer("/pull_request/number")
                .and_then(Value::as_u64);
            c.head_sha = s(&payload, "/pull_request/head/sha");
            c.base_sha = s(&payload, "/pull_request/base/sha");
            c.head_repository = s(&payload, "/pull_request/head/repo/full_name");
            c.head_owner = s(&payload, "/pull_request/head/repo/owner/login");
            c.fork = c.head_repository.as_deref() != Some(repository.as_str());
            c.pr_context = true;
        }
        "workflow_run" => {
            c.head_sha = s(&payload, "/workflow_run/head_sha");
            c.head_branch = s(&payload, "/workflow_run/head_branch");
            c.pull_request = payload
                .pointer("/workflow_run/pull_requests/0/number")
                .and_then(Value::as_u64);
            c.head_repository = s(&payload, "/workflow_run/head_repository/full_name");
            c.head_owner = s(&payload, "/workflow_run/head_repository/owner/login");
            c.fork = c.head_repository.as_ref().is_some_and(|h| *h != repository);
            c.base_sha = s(&payload, "/workflow_run/pull_requests/0/base/sha");
            // A fork's PR is not listed in `pull_requests`; the triggering event still says.
            c.pr_context = c.pull_request.is_some()
                || s(&payload, "/workflow_run/event")
                    .is_some_and(|e| e.starts_with("pull_request") || e == "merge_group");
        }
        "merge_group" => {
            c.head_sha = s(&payload, "/merge_group/head_sha");
            c.base_sha = s(&payload, "/merge_group/base_sha");
            c.pr_context = true;
        }
        "check_suite" => {
            c.head_sha = s(&payload, "/check_suite/head_sha");
            c.pull_request = payload
                .pointer("/check_suite/pull_requests/0/number")
                .and_then(Value::as_u64);
            c.base_sha = s(&payload, "/check_suite/pull_requests/0/base/sha");
            c.pr_context = c.pull_request.is_some();
        }
        "issue_comment" => {
            // A comment on a PR: its head commit is not in the payload (the client looks it up).
            if payload.pointer("/issue/pull_request").is_some() {
                c.pull_request = payload.pointer("/issue/number").and_then(Value::as_u64);
                c.pr_context = true;
            }
        }
        _ => {
            c.head_sha = env("GITHUB_SHA").or_else(|| s(&payload, "/after"));
        }
    }
    Ok(Some(c))
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
        let ic = ctx("issue_comment", "issue_comment.created.json", &[]);
        assert_eq!(ic.head_sha, None);
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
    }
}
