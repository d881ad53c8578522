//! Publishing a report to GitHub: the check run on the head commit and the sticky PR comment,
//! after the report JSON and the job summary are already on disk. Nothing here changes the
//! exit code: a missing token, a fork's read-only token or an outage ends in a log line that
//! says what was skipped and how to get it, and the workflow-command annotations carry the
//! findings instead.

use std::time::Duration;

use serde_json::Value;

use crate::config::CommentMode;
use crate::jury::interpret::Reading;
use crate::report::{check_run, gfm};

use super::checks_api;
use super::client::{ApiError, Client, RetryPolicy};
use super::comment::{self, Marker};
use super::context::Context;

/// Where to find the fork-safe recipe.
pub const RECIPE: &str =
    "see \"Fork-safe workflow_run pair\" in judge-ci's examples/workflows/README.md";

/// What to publish and how.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Sticky comment mode.
    pub comment: CommentMode,
    /// Delete our comment instead of updating it when the PR is accepted.
    pub delete_on_pass: bool,
    /// Whether to create a check run.
    pub check_run: bool,
    /// Most annotations on the check run.
    pub annotations: usize,
    /// Longest wait for one API request.
    pub timeout: Duration,
    /// How reads are retried.
    pub retry: RetryPolicy,
}

/// How the result reached GitHub.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Through the API (comment and/or check run).
    Api,
    /// The job summary and workflow-command annotations only.
    SummaryOnly,
}

impl Mode {
    /// The `publish-mode` step output.
    pub fn token(self) -> &'static str {
        match self {
            Mode::Api => "api",
            Mode::SummaryOnly => "summary-only",
        }
    }
}

/// What publishing did.
#[derive(Clone, Debug)]
pub struct Published {
    /// The sticky comment's link, when one stands.
    pub comment_url: Option<String>,
    /// The check run's link.
    pub check_run_url: Option<String>,
    /// Whether the check run carries the annotations (else workflow commands should).
    pub annotations_posted: bool,
    /// How the result reached GitHub.
    pub mode: Mode,
    /// Lines for the log: what was done, skipped, and how to fix what failed.
    pub log: Vec<String>,
    /// Whether everything asked for reached GitHub: false when there was no token, or a
    /// comment, check run, annotation batch or pull-request lookup failed (a surface with
    /// nothing to post to, such as the comment of a push, is not a failure).
    pub complete: bool,
}

impl Published {
    /// Nothing posted; `complete` says whether that is all that was asked for.
    fn summary_only(log: Vec<String>, complete: bool) -> Published {
        Published {
            comment_url: None,
            check_run_url: None,
            annotations_posted: false,
            mode: Mode::SummaryOnly,
            log,
            complete,
        }
    }
}

/// The two things posted to the API, for messages.
#[derive(Clone, Copy)]
enum Post {
    Comment,
    CheckRun,
}

impl Post {
    fn what(self) -> &'static str {
        match self {
            Post::Comment => "comment on the pull request",
            Post::CheckRun => "create the check run",
        }
    }

    fn permission(self) -> &'static str {
        match self {
            Post::Comment => "pull-requests: write",
            Post::CheckRun => "checks: write",
        }
    }
}

/// The log line for a failed write: a permission problem says which permission and, for
/// forks and Dependabot, the `workflow_run` recipe; anything else says what GitHub answered.
fn explain(ctx: &Context, post: Post, e: &ApiError) -> String {
    if e.is_permission() {
        let dependabot = ctx
            .actor
            .as_deref()
            .is_some_and(|a| a.starts_with("dependabot"));
        if ctx.fork || dependabot {
            let who = if dependabot {
                "Dependabot's pull requests".to_string()
            } else {
                format!(
                    "pull requests from forks ({})",
                    ctx.head_repository.as_deref().unwrap_or("a deleted fork")
                )
            };
            return format!(
                "judge-ci: could not {} ({e}): GitHub gives workflows of {who} a read-only token. \
                 The job summary and the annotations carry the result. To get the comment and \
                 the check run, upload the report folder as an artifact and publish it from a \
                 trusted `workflow_run` workflow with `judge-ci publish --from DIR`, which never \
                 runs the pull request's code ({RECIPE})",
                post.what()
            );
        }
        return format!(
            "judge-ci: could not {} ({e}): the token lacks `{}`. Add it to the job: \
             `permissions: {{ {}, contents: read }}`; new repositories give workflows a \
             read-only token by default (Settings → Actions → Workflow permissions).",
            post.what(),
            post.permission(),
            post.permission()
        );
    }
    format!(
        "judge-ci: could not {} ({e}); the job summary and the report artifact hold the result",
        post.what()
    )
}

/// The PR and head commit to publish on, looking up what the event does not say:
/// `issue_comment` has no head commit, and `workflow_run` from a fork lists no PR.
async fn resolve(
    client: &Client,
    ctx: &Context,
    head_sha: Option<String>,
    want_pr: bool,
    log: &mut Vec<String>,
    complete: &mut bool,
) -> (Option<u64>, Option<String>) {
    let repo = &ctx.repository;
    let mut pr = ctx.pull_request;
    let mut sha = ctx.head_sha.clone().or(head_sha);
    if let (Some(n), None) = (pr, &sha) {
        match client.get(&format!("/repos/{repo}/pulls/{n}")).await {
            Ok(v) => {
                sha = v
                    .pointer("/head/sha")
                    .and_then(Value::as_str)
                    .map(String::from)
            }
            Err(e) => {
                *complete = false;
                log.push(format!(
                    "judge-ci: cannot read pull request #{n} for its head commit ({e}); no check run"
                ))
            }
        }
    }
    if !want_pr {
        return (pr, sha);
    }
    if let (None, Some(n), Some(want)) = (pr, ctx.proposed_pull_request, &sha) {
        match client.get(&format!("/repos/{repo}/pulls/{n}")).await {
            Ok(v) if v.pointer("/head/sha").and_then(Value::as_str) == Some(want) => pr = Some(n),
            Ok(_) => log.push(format!(
                "judge-ci: pull request #{n} named by the saved event is not at {want}; not commenting on it"
            )),
            Err(e) => {
                *complete = false;
                log.push(format!("judge-ci: cannot read pull request #{n} ({e})"))
            }
        }
    }
    if pr.is_none()
        && ctx.event == "workflow_run"
        && let (Some(branch), Some(want)) = (&ctx.head_branch, &sha)
    {
        // The head repository's owner (a fork's), from its owner or its full name; the base
        // owner only when the event names no head repository (attack finding G10-14).
        let owner = ctx
            .head_owner
            .clone()
            .or_else(|| {
                let full = ctx.head_repository.as_deref()?;
                Some(full.split_once('/')?.0.to_string())
            })
            .unwrap_or_else(|| repo.split('/').next().unwrap_or_default().to_string());
        let head = url::form_urlencoded::byte_serialize(format!("{owner}:{branch}").as_bytes())
            .collect::<String>();
        match client
            .get_all(&format!("/repos/{repo}/pulls?state=open&head={head}"))
            .await
        {
            Ok(list) => {
                pr = list
                    .iter()
                    .find(|p| p.pointer("/head/sha").and_then(Value::as_str) == Some(want))
                    .and_then(|p| p.get("number").and_then(Value::as_u64));
                if pr.is_none() {
                    log.push(format!(
                        "judge-ci: no open pull request has {owner}:{branch} at {want}; posting the check run only"
                    ));
                }
            }
            Err(e) => {
                *complete = false;
                log.push(format!(
                    "judge-ci: cannot look up the pull request of {owner}:{branch} ({e}); posting the check run only"
                ))
            }
        }
    }
    (pr, sha)
}

/// Publishes `report` whose comment markdown is `markdown` (not yet cut to the comment
/// budget). `token` is never printed.
pub async fn publish(
    ctx: &Context,
    token: Option<&str>,
    report: &crate::report::Revealed,
    markdown: &str,
    settings: &Settings,
) -> Published {
    let Some(token) = token.filter(|t| !t.trim().is_empty()) else {
        return Published::summary_only(vec![
            "judge-ci: no GitHub token (pass --github-token or set GITHUB_TOKEN): the PR comment and the check run were skipped; the job summary and the annotations carry the result".into(),
        ], false);
    };
    let client = match Client::new(
        token,
        &ctx.api_url,
        &ctx.graphql_url,
        settings.timeout,
        settings.retry,
    ) {
        Ok(c) => c,
        Err(e) => return Published::summary_only(vec![format!("judge-ci: {e}")], false),
    };
    let mut log = Vec::new();
    let mut complete = true;
    let (pr, sha) = resolve(
        &client,
        ctx,
        report.subject.head_sha.clone(),
        settings.comment != CommentMode::Off,
        &mut log,
        &mut complete,
    )
    .await;
    let repo = &ctx.repository;
    let marker = Marker::of(report);
    let mut out = Published::summary_only(Vec::new(), true);

    if settings.check_run {
        match &sha {
            Some(sha) => {
                let payload = check_run::payload(report, settings.annotations);
                let external_id = match &ctx.run_attempt {
                    Some(a) => format!("judge-ci:{a}:{}", marker.digest),
                    None => format!("judge-ci:{}", marker.digest),
                };
                match checks_api::post(
                    &client,
                    repo,
                    sha,
                    &payload,
                    ctx.run_url.as_deref(),
                    &external_id,
                )
                .await
                {
                    Ok(p) => {
                        log.push(format!(
                            "judge-ci: check run {} on {sha} ({} annotation batch(es))",
                            p.url, p.batches
                        ));
                        if let Some(why) = &p.incomplete {
                            complete = false;
                            log.push(format!("judge-ci: {why}"));
                        }
                        out.annotations_posted = p.incomplete.is_none();
                        out.check_run_url = Some(p.url);
                        out.mode = Mode::Api;
                    }
                    Err(e) => {
                        complete = false;
                        log.push(explain(ctx, Post::CheckRun, &e))
                    }
                }
            }
            None => log.push(
                "judge-ci: the event names no head commit; no check run (pass the event of a pull request, push, merge group or workflow run)".into(),
            ),
        }
    }

    if settings.comment != CommentMode::Off {
        match pr {
            Some(n) => {
                let cut = gfm::truncate(
                    markdown,
                    gfm::COMMENT_BUDGET - marker.line().len() - 1,
                    "the job summary and the report artifact",
                );
                let body = comment::body(&marker, &cut);
                // Passed: accepted, and the gate passed (an acceptance with an ERROR the
                // subject can cause is none).
                let passed = report.interpretation.reading == Some(Reading::Accepted)
                    && report.outcome.gate == crate::report::Gate::Pass;
                match comment::upsert(
                    &client,
                    repo,
                    n,
                    &body,
                    &marker,
                    settings.comment,
                    settings.delete_on_pass && passed,
                )
                .await
                {
                    Ok(o) => {
                        log.push(match &o {
                            comment::CommentChange::Created(u) => format!("judge-ci: commented {u}"),
                            comment::CommentChange::Updated(u) => {
                                format!("judge-ci: updated the comment {u}")
                            }
                            comment::CommentChange::Unchanged(u) => format!(
                                "judge-ci: the result has not changed since the comment {u}; nothing re-posted"
                            ),
                            comment::CommentChange::Deleted(k) => format!(
                                "judge-ci: accepted; deleted {k} earlier comment(s) (delete-on-pass)"
                            ),
                            comment::CommentChange::Off => "judge-ci: comments are off".into(),
                        });
                        out.comment_url = o.url().map(str::to_string);
                        out.mode = Mode::Api;
                    }
                    Err(e) => {
                        complete = false;
                        log.push(explain(ctx, Post::Comment, &e))
                    }
                }
            }
            None if ctx.event == "push" || ctx.event == "merge_group" => {}
            None => log.push(format!(
                "judge-ci: the {} event names no pull request; no comment",
                ctx.event
            )),
        }
    }
    out.log = log;
    out.complete = complete;
    out
}
