//! The sticky PR comment: one per (pull request, config name), found by a hidden marker among
//! the comments the token's own identity wrote (GraphQL `viewer`; `GET /user` is forbidden to
//! workflow tokens). The marker carries a digest of the result, so a run whose result did not
//! change posts nothing new. Parallel runs converge: the oldest marked comment wins and the
//! others are deleted.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::config::CommentMode;
use crate::report::Report;

use super::client::{ApiError, Client};

/// The marker's prefix; the version changes only when the marker's form does.
const MARKER: &str = "<!-- judge-ci:sticky:v1";

/// What a marker says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    /// Which config the comment belongs to (a hash of its name).
    pub key: String,
    /// The result's digest.
    pub digest: String,
    /// The head commit the comment describes (first 12 characters), or "-".
    pub sha: String,
}

impl Marker {
    /// The marker for a report.
    pub fn of(report: &Report) -> Marker {
        Marker {
            key: key(report.config.sticky_key()),
            digest: digest(report),
            sha: report
                .subject
                .head_sha
                .as_deref()
                .map(|s| s.chars().take(12).collect())
                .unwrap_or_else(|| "-".into()),
        }
    }

    /// The HTML comment that opens the body (GitHub does not show it).
    pub fn line(&self) -> String {
        format!(
            "{MARKER} key={} digest={} sha={} -->",
            self.key, self.digest, self.sha
        )
    }

    /// The marker at the start of a comment body, if it has one.
    pub fn parse(body: &str) -> Option<Marker> {
        let rest = body.trim_start().strip_prefix(MARKER)?;
        let inner = rest.split("-->").next()?;
        let mut m = Marker {
            key: String::new(),
            digest: String::new(),
            sha: String::new(),
        };
        for part in inner.split_whitespace() {
            match part.split_once('=') {
                Some(("key", v)) => m.key = v.to_string(),
                Some(("digest", v)) => m.digest = v.to_string(),
                Some(("sha", v)) => m.sha = v.to_string(),
                _ => {}
            }
        }
        (!m.key.is_empty()).then_some(m)
    }
}

/// The sticky key of a config name: 16 hex digits of its SHA-256.
pub fn key(name: &str) -> String {
    hex::encode(&Sha256::digest(name.as_bytes())[..8])
}

fn strip_volatile(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove(crate::judgment::ELAPSED_KEY);
            m.values_mut().for_each(strip_volatile);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_volatile),
        _ => {}
    }
}

/// A digest of what the comment says: the verdict without timings, its reading and the
/// config's hash. Two runs with the same result have the same digest.
pub fn digest(report: &Report) -> String {
    let mut verdict = serde_json::to_value(&report.verdict).unwrap_or(Value::Null);
    strip_volatile(&mut verdict);
    let material = json!({
        "verdict": verdict,
        "reading": report.interpretation.reading,
        "decidedBy": report.interpretation.decided_by,
        "config": report.config.sha256,
        "gate": report.outcome.gate,
    });
    hex::encode(&Sha256::digest(material.to_string().as_bytes())[..8])
}

/// The comment body: the marker, then the markdown (already within the comment budget less
/// the marker's length).
pub fn body(marker: &Marker, markdown: &str) -> String {
    format!("{}\n{markdown}", marker.line())
}

/// One of our comments on the PR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Existing {
    /// REST id.
    pub id: u64,
    /// GraphQL node id (for minimizing).
    pub node_id: String,
    /// Link to it.
    pub url: String,
    /// Its marker.
    pub marker: Marker,
    /// Whether it is minimized (hidden as outdated).
    pub minimized: bool,
}

/// One write the upsert makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Delete a comment.
    Delete(u64),
    /// Minimize a comment as outdated.
    Minimize(String),
    /// Replace a comment's body.
    Update(u64),
    /// Post a new comment.
    Create,
}

/// The writes that bring the PR from `existing` (ours, oldest first) to one current comment
/// under `mode`; `delete` asks for no comment at all (delete-on-pass on a pass).
pub fn plan(existing: &[Existing], mode: CommentMode, want: &Marker, delete: bool) -> Vec<Step> {
    if mode == CommentMode::Off {
        return Vec::new();
    }
    if delete {
        return existing.iter().map(|e| Step::Delete(e.id)).collect();
    }
    let live: Vec<&Existing> = existing.iter().filter(|e| !e.minimized).collect();
    let Some((oldest, extras)) = live.split_first() else {
        return vec![Step::Create];
    };
    // Leftovers of a race (or of an older version) go first.
    let mut steps: Vec<Step> = extras.iter().map(|e| Step::Delete(e.id)).collect();
    if oldest.marker.digest == want.digest {
        // Same result: nothing new to say; refresh the commit it names silently, if it moved.
        if oldest.marker.sha != want.sha {
            steps.push(Step::Update(oldest.id));
        }
        return steps;
    }
    match mode {
        CommentMode::Update | CommentMode::Off => steps.push(Step::Update(oldest.id)),
        CommentMode::Recreate => steps.extend([Step::Delete(oldest.id), Step::Create]),
        CommentMode::Minimize => {
            steps.extend([Step::Minimize(oldest.node_id.clone()), Step::Create])
        }
    }
    steps
}

/// What the upsert did to the sticky comment (not the gate's [`crate::report::Outcome`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommentChange {
    /// A new comment was posted.
    Created(String),
    /// The existing comment was edited.
    Updated(String),
    /// The existing comment already said this.
    Unchanged(String),
    /// Our comments were deleted (delete-on-pass).
    Deleted(usize),
    /// Comments are off.
    Off,
}

impl CommentChange {
    /// The comment's URL, when one stands.
    pub fn url(&self) -> Option<&str> {
        match self {
            CommentChange::Created(u) | CommentChange::Updated(u) | CommentChange::Unchanged(u) => {
                Some(u)
            }
            CommentChange::Deleted(_) | CommentChange::Off => None,
        }
    }
}

/// The GraphQL login of the token's identity, without a `[bot]` suffix.
pub async fn viewer(client: &Client) -> Result<String, ApiError> {
    let data = client
        .graphql("query { viewer { login } }", json!({}), false)
        .await?;
    data.pointer("/viewer/login")
        .and_then(Value::as_str)
        .map(|s| s.trim_end_matches("[bot]").to_string())
        .ok_or_else(|| ApiError::Graphql("the answer has no viewer.login".into()))
}

/// Our comments with `key` on the PR, oldest first, with their minimized state.
async fn find(
    client: &Client,
    repo: &str,
    pr: u64,
    login: &str,
    key: &str,
) -> Result<Vec<Existing>, ApiError> {
    let all = client
        .get_all(&format!("/repos/{repo}/issues/{pr}/comments"))
        .await?;
    let mut ours: Vec<Existing> = all
        .iter()
        .filter(|c| {
            c.pointer("/user/login")
                .and_then(Value::as_str)
                .is_some_and(|l| l.trim_end_matches("[bot]") == login)
        })
        .filter_map(|c| {
            let marker = Marker::parse(c.get("body").and_then(Value::as_str)?)?;
            (marker.key == key).then(|| Existing {
                id: c.get("id").and_then(Value::as_u64).unwrap_or(0),
                node_id: c
                    .get("node_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                url: c
                    .get("html_url")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                marker,
                minimized: false,
            })
        })
        .collect();
    ours.sort_by_key(|e| e.id);
    let ids: Vec<&str> = ours
        .iter()
        .map(|e| e.node_id.as_str())
        .filter(|s| !s.is_empty())
        .collect();
    if !ids.is_empty() {
        let data = client
            .graphql(
                "query($ids: [ID!]!) { nodes(ids: $ids) { ... on IssueComment { id isMinimized } } }",
                json!({"ids": ids}),
                false,
            )
            .await?;
        for n in data
            .get("nodes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if n.get("isMinimized").and_then(Value::as_bool) == Some(true)
                && let Some(id) = n.get("id").and_then(Value::as_str)
            {
                for e in ours.iter_mut().filter(|e| e.node_id == id) {
                    e.minimized = true;
                }
            }
        }
    }
    Ok(ours)
}

fn url_of(v: &Value) -> String {
    v.get("html_url")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Brings the PR's sticky comment in line with `body` (which starts with `want`'s marker).
pub async fn upsert(
    client: &Client,
    repo: &str,
    pr: u64,
    body: &str,
    want: &Marker,
    mode: CommentMode,
    delete: bool,
) -> Result<CommentChange, ApiError> {
    if mode == CommentMode::Off {
        return Ok(CommentChange::Off);
    }
    let login = viewer(client).await?;
    let existing = find(client, repo, pr, &login, &want.key).await?;
    let steps = plan(&existing, mode, want, delete);
    let by_id = |id: u64| existing.iter().find(|e| e.id == id);
    let comment_path = |id: u64| format!("/repos/{repo}/issues/comments/{id}");
    let mut change = match existing.iter().find(|e| !e.minimized) {
        Some(e) => CommentChange::Unchanged(e.url.clone()),
        None => CommentChange::Off,
    };
    let mut deleted = 0;
    let mut minimized: Vec<String> = existing
        .iter()
        .filter(|e| e.minimized)
        .map(|e| e.node_id.clone())
        .collect();
    for step in &steps {
        match step {
            Step::Delete(id) => {
                client.delete(&comment_path(*id)).await?;
                deleted += 1;
            }
            Step::Minimize(node) => {
                client
                    .graphql(
                        "mutation($id: ID!) { minimizeComment(input: {subjectId: $id, classifier: OUTDATED}) { minimizedComment { isMinimized } } }",
                        json!({"id": node}),
                        true,
                    )
                    .await?;
                minimized.push(node.clone());
            }
            Step::Update(id) => {
                let v = client
                    .patch_idempotent(&comment_path(*id), &json!({"body": body}))
                    .await?;
                let url = url_of(&v);
                change = CommentChange::Updated(if url.is_empty() {
                    by_id(*id).map(|e| e.url.clone()).unwrap_or_default()
                } else {
                    url
                });
            }
            Step::Create => {
                let path = format!("/repos/{repo}/issues/{pr}/comments");
                let mine = match client.post(&path, &json!({"body": body})).await {
                    Ok(v) => v.get("id").and_then(Value::as_u64),
                    Err(e) if e.outcome_unknown() => None,
                    Err(e) => return Err(e),
                };
                // Re-read: finds a comment whose answer was lost, and any racing run's.
                let now = find(client, repo, pr, &login, &want.key).await?;
                let live: Vec<&Existing> = now
                    .iter()
                    .filter(|e| !e.minimized && !minimized.contains(&e.node_id))
                    .collect();
                let Some(winner) = live.first() else {
                    // The answer was lost and nothing was written: post once more.
                    let v = client.post(&path, &json!({"body": body})).await?;
                    change = CommentChange::Created(url_of(&v));
                    continue;
                };
                for other in &live[1..] {
                    client.delete(&comment_path(other.id)).await?;
                }
                if Some(winner.id) == mine || winner.marker.digest == want.digest {
                    change = CommentChange::Created(winner.url.clone());
                } else {
                    // Another run's comment is older: it stays, carrying our result.
                    client
                        .patch_idempotent(&comment_path(winner.id), &json!({"body": body}))
                        .await?;
                    change = CommentChange::Updated(winner.url.clone());
                }
            }
        }
    }
    if delete {
        return Ok(CommentChange::Deleted(deleted));
    }
    Ok(change)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(digest: &str, sha: &str) -> Marker {
        Marker {
            key: "k".into(),
            digest: digest.into(),
            sha: sha.into(),
        }
    }

    fn e(id: u64, digest: &str, sha: &str, minimized: bool) -> Existing {
        Existing {
            id,
            node_id: format!("N{id}"),
            url: format!("u{id}"),
            marker: m(digest, sha),
            minimized,
        }
    }

    #[test]
    fn markers_round_trip_and_foreign_bodies_are_ignored() {
        let mk = Marker {
            key: key("jakarta-migration"),
            digest: "0123456789abcdef".into(),
            sha: "ec26c3e57ca3".into(),
        };
        let b = body(&mk, "# Report\n");
        assert_eq!(Marker::parse(&b), Some(mk.clone()));
        assert!(!b.lines().next().unwrap().contains('\n'));
        assert_eq!(
            Marker::parse("Thanks! <!-- judge-ci:sticky:v1 key=x -->"),
            None
        );
        assert_eq!(Marker::parse("<!-- judge-ci:sticky:v1 -->"), None);
        assert_ne!(key("a"), key("b"));
    }

    #[test]
    fn plans_per_mode() {
        let want = m("new", "sha2");
        use CommentMode::*;
        assert_eq!(plan(&[], Update, &want, false), vec![Step::Create]);
        assert!(plan(&[], Off, &want, false).is_empty());
        let one = [e(1, "old", "sha1", false)];
        assert_eq!(plan(&one, Update, &want, false), vec![Step::Update(1)]);
        assert_eq!(
            plan(&one, Recreate, &want, false),
            vec![Step::Delete(1), Step::Create]
        );
        assert_eq!(
            plan(&one, Minimize, &want, false),
            vec![Step::Minimize("N1".into()), Step::Create]
        );
        // Unchanged result on the same commit: no write at all; on a new commit: a silent edit.
        for mode in [Update, Recreate, Minimize] {
            assert!(plan(&[e(1, "new", "sha2", false)], mode, &want, false).is_empty());
            assert_eq!(
                plan(&[e(1, "new", "sha1", false)], mode, &want, false),
                vec![Step::Update(1)]
            );
        }
        // A race left two: the oldest stays, the other goes.
        let two = [e(1, "old", "s", false), e(2, "old", "s", false)];
        assert_eq!(
            plan(&two, Update, &want, false),
            vec![Step::Delete(2), Step::Update(1)]
        );
        // Minimized comments are history; the live one is the newest.
        let hist = [e(1, "a", "s", true), e(2, "old", "s", false)];
        assert_eq!(
            plan(&hist, Minimize, &want, false),
            vec![Step::Minimize("N2".into()), Step::Create]
        );
        assert_eq!(
            plan(&[e(1, "a", "s", true)], Minimize, &want, false),
            vec![Step::Create]
        );
        // Delete on pass removes every one of ours and posts nothing.
        assert_eq!(
            plan(&hist, Update, &want, true),
            vec![Step::Delete(1), Step::Delete(2)]
        );
    }
}
