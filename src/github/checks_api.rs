//! The Checks API calls (the body is rendered by `report::check_run`): the check run is
//! created on the head commit with the request bodies the report renders (`check-run.json`),
//! then one update per further batch of 50 annotations (updates append annotations, so none
//! is ever repeated).

use serde_json::{Value, json};

use super::client::{ApiError, Client};

/// What was posted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posted {
    /// The check run's id.
    pub id: u64,
    /// Its page.
    pub url: String,
    /// Annotation batches sent, the create call's included.
    pub batches: usize,
    /// Why the remaining batches were not sent, if some were not.
    pub incomplete: Option<String>,
}

/// Finds the check run a lost create answer may have made, by name and `external_id`.
async fn refind(
    client: &Client,
    repo: &str,
    sha: &str,
    name: &str,
    external_id: &str,
) -> Result<Option<Value>, ApiError> {
    let path = format!(
        "/repos/{repo}/commits/{sha}/check-runs?check_name={}&filter=all&per_page=100",
        url::form_urlencoded::byte_serialize(name.as_bytes()).collect::<String>()
    );
    let v = client.get(&path).await?;
    Ok(v.get("check_runs")
        .and_then(Value::as_array)
        .and_then(|runs| {
            runs.iter()
                .find(|r| r.get("external_id").and_then(Value::as_str) == Some(external_id))
        })
        .cloned())
}

/// Posts `payload` (`{create, updates}` from `report::check_run::payload`) on `sha`.
/// `details_url` links the run; `external_id` identifies this attempt so a create whose
/// answer was lost is found again instead of posted twice.
pub async fn post(
    client: &Client,
    repo: &str,
    sha: &str,
    payload: &Value,
    details_url: Option<&str>,
    external_id: &str,
) -> Result<Posted, ApiError> {
    let mut create = payload.get("create").cloned().unwrap_or_else(|| json!({}));
    create["head_sha"] = sha.into();
    create["external_id"] = external_id.into();
    if let Some(u) = details_url {
        create["details_url"] = u.into();
    }
    let name = create
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("judge-ci")
        .to_string();
    let path = format!("/repos/{repo}/check-runs");
    let made = match client.post(&path, &create).await {
        Ok(v) => v,
        Err(e) if e.outcome_unknown() => match refind(client, repo, sha, &name, external_id).await?
        {
            Some(v) => v,
            None => client.post(&path, &create).await?,
        },
        Err(e) => return Err(e),
    };
    let id = made
        .get("id")
        .and_then(Value::as_u64)
        .ok_or_else(|| ApiError::Decode {
            method: http::Method::POST,
            path: path.clone(),
            why: "the check run in the answer has no id".into(),
        })?;
    let url = made
        .get("html_url")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let updates = payload
        .get("updates")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut batches = 1;
    let mut incomplete = None;
    for (i, u) in updates.iter().enumerate() {
        match client
            .patch(&format!("/repos/{repo}/check-runs/{id}"), u)
            .await
        {
            Ok(_) => batches += 1,
            Err(e) => {
                incomplete = Some(format!(
                    "{} of {} annotation batches were not sent: {e}",
                    updates.len() - i,
                    updates.len() + 1
                ));
                break;
            }
        }
    }
    Ok(Posted {
        id,
        url,
        batches,
        incomplete,
    })
}
