//! The run's trusted inputs: which tree the config and every file it names are read from.
//! In a pull-request context that is the base commit's tree (`spec/trust.md` point 1): the
//! pull request being judged must not choose its own judge. `--config-from` overrides; local
//! runs and `push` read the working tree.

use std::path::Path;
use std::sync::Arc;

use git2::Repository;

use crate::config::ConfigSource;
use crate::config::source::GitTree;
use crate::github::context::Context;
use crate::materialize::{self, CheckoutError};

/// `--config-from` (Action input `config-from`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ConfigFrom {
    /// The base commit in a pull-request context, the working tree elsewhere.
    #[default]
    Auto,
    /// The working tree (the pull request's own files, when judging one).
    Head,
    /// The base commit of the pull request (refused outside a pull-request context).
    Base,
    /// A revision of the repository (a tag, a branch, a SHA).
    Rev(String),
}

impl ConfigFrom {
    /// Reads the command-line value: `auto`, `head`, `base` or a revision.
    pub fn parse(s: &str) -> Result<ConfigFrom, ConfigFromError> {
        match s {
            "" => Err(ConfigFromError::Empty),
            "auto" => Ok(ConfigFrom::Auto),
            "head" => Ok(ConfigFrom::Head),
            "base" => Ok(ConfigFrom::Base),
            r if r.starts_with('-') => Err(ConfigFromError::OptionLike(r.to_string())),
            r => Ok(ConfigFrom::Rev(r.to_string())),
        }
    }
}

/// A `--config-from` value that cannot be used.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigFromError {
    /// No value.
    #[error("--config-from needs a value: auto, head, base or a revision")]
    Empty,
    /// A revision git would read as an option.
    #[error(
        "--config-from '{0}': a revision may not start with '-'; valid: auto, head, base or a revision"
    )]
    OptionLike(String),
}

/// Why the trusted tree could not be had: always bad input (exit 2), never a fallback to the
/// pull request's own files.
#[derive(Debug, thiserror::Error)]
pub enum InputsError {
    /// `--config-from base` with no pull request to take a base from.
    #[error(
        "--config-from base: this is not a pull-request run (event: {0}), so there is no base commit"
    )]
    NoPullRequest(String),
    /// A pull-request context whose payload names no base commit, base branch or default
    /// branch.
    #[error(
        "the {0} event concerns a pull request but names no base commit and no default branch, so the trusted config cannot be found and judge-ci does not judge (pass --config-from REV to name the trusted revision)"
    )]
    NoBase(String),
    /// A value of the payload that is not a commit or branch name.
    #[error("the event's {what} '{value}' is not a valid {what}")]
    BadValue {
        /// What it should be.
        what: &'static str,
        /// The value.
        value: String,
    },
    /// No repository around the working folder.
    #[error("the config must be read from {0}, but {1} is not inside a git repository")]
    NoRepository(String, String),
    /// The revision could not be resolved or fetched.
    #[error("the config must be read from {what}: {error}")]
    Checkout {
        /// Which revision.
        what: String,
        /// Why it could not be had.
        error: CheckoutError,
    },
}

/// The trusted revision of a pull-request run: the base commit the event names, else the
/// default branch; with a label for messages.
fn base_revision(ctx: &Context) -> Result<(String, String), InputsError> {
    if let Some(sha) = &ctx.base_sha {
        if sha.len() != 40 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(InputsError::BadValue {
                what: "base commit",
                value: sha.clone(),
            });
        }
        let pr = ctx
            .pull_request
            .map(|n| format!(" of pull request #{n}"))
            .unwrap_or_default();
        return Ok((sha.clone(), format!("the base commit{pr}")));
    }
    let named = ctx
        .base_ref
        .as_ref()
        .map(|b| (b, "base branch"))
        .or_else(|| ctx.default_branch.as_ref().map(|b| (b, "default branch")));
    if let Some((branch, what)) = named {
        if branch.is_empty()
            || branch.starts_with('-')
            || !git2::Reference::is_valid_name(&format!("refs/heads/{branch}"))
        {
            return Err(InputsError::BadValue {
                what,
                value: branch.clone(),
            });
        }
        return Ok((format!("origin/{branch}"), format!("the {what} ({branch})")));
    }
    Err(InputsError::NoBase(ctx.event.clone()))
}

/// The source the config is read from, for a run in `repo_dir` (the working folder) with the
/// Actions context `github` (None outside Actions).
pub fn config_source(
    from: &ConfigFrom,
    github: Option<&Context>,
    repo_dir: &Path,
) -> Result<Arc<ConfigSource>, InputsError> {
    let pr = github.filter(|c| c.pr_context);
    let (rev, label) = match (from, pr) {
        (ConfigFrom::Head, _) | (ConfigFrom::Auto, None) => {
            return Ok(Arc::new(ConfigSource::WorkTree));
        }
        (ConfigFrom::Auto | ConfigFrom::Base, Some(ctx)) => base_revision(ctx)?,
        (ConfigFrom::Base, None) => {
            return Err(InputsError::NoPullRequest(github.map_or_else(
                || "none, outside Actions".to_string(),
                |c| c.event.clone(),
            )));
        }
        (ConfigFrom::Rev(r), _) => (r.clone(), format!("revision {r}")),
    };
    let repo = Repository::discover(repo_dir)
        .map_err(|_| InputsError::NoRepository(label.clone(), repo_dir.display().to_string()))?;
    let Some(root) = repo.workdir().map(Path::to_path_buf) else {
        return Err(InputsError::NoRepository(
            label,
            repo_dir.display().to_string(),
        ));
    };
    let id = materialize::resolve_rev(&repo, &rev).map_err(|error| InputsError::Checkout {
        what: label.clone(),
        error,
    })?;
    Ok(Arc::new(ConfigSource::Tree(GitTree::new(
        repo.path().to_path_buf(),
        &root,
        id,
        label,
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(event: &str) -> Context {
        Context {
            event: event.into(),
            pr_context: true,
            ..Context::default()
        }
    }

    #[test]
    fn the_base_comes_from_the_event_and_is_checked() {
        let mut c = ctx("pull_request");
        c.base_sha = Some("f95f852bd8fca8fcc58a9a2d6c842781e32a215e".into());
        c.pull_request = Some(2);
        assert_eq!(
            base_revision(&c).unwrap(),
            (
                "f95f852bd8fca8fcc58a9a2d6c842781e32a215e".to_string(),
                "the base commit of pull request #2".to_string()
            )
        );
        c.base_sha = Some("--upload-pack=evil".into());
        assert!(matches!(
            base_revision(&c),
            Err(InputsError::BadValue { .. })
        ));
        let mut fork_run = ctx("workflow_run");
        fork_run.default_branch = Some("main".into());
        assert_eq!(base_revision(&fork_run).unwrap().0, "origin/main");
        fork_run.default_branch = Some("-x".into());
        assert!(matches!(
            base_revision(&fork_run),
            Err(InputsError::BadValue {
                what: "default branch",
                ..
            })
        ));
        // A merge queue's branch names its base: that branch, before the default one.
        let mut queue = ctx("push");
        queue.base_ref = Some("release/1.x".into());
        queue.default_branch = Some("main".into());
        assert_eq!(
            base_revision(&queue).unwrap(),
            (
                "origin/release/1.x".to_string(),
                "the base branch (release/1.x)".to_string()
            )
        );
        assert!(matches!(
            base_revision(&ctx("issue_comment")),
            Err(InputsError::NoBase(_))
        ));
    }

    #[test]
    fn outside_a_pull_request_the_working_tree_is_read() {
        let d = tempfile::tempdir().unwrap();
        let push = Context {
            event: "push".into(),
            ..Context::default()
        };
        let s = config_source(&ConfigFrom::Auto, Some(&push), d.path()).unwrap();
        assert!(s.tree().is_none());
        assert!(matches!(
            config_source(&ConfigFrom::Base, Some(&push), d.path()),
            Err(InputsError::NoPullRequest(_))
        ));
        assert_eq!(ConfigFrom::parse("head"), Ok(ConfigFrom::Head));
        assert!(matches!(
            ConfigFrom::parse("--exec"),
            Err(ConfigFromError::OptionLike(v)) if v == "--exec"
        ));
    }
}
