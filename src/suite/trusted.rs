//! The trusted side of a suite judged in a pull-request context (trust.md point 1, attack
//! findings F25/G2): the benchmark definitions (`benchmark.yaml`), task files and references
//! are the base commit's, written out of git into a folder of judge-ci's, while each task's
//! workspace is the pull request's. A pull request that loosens a benchmark's jury, rewrites
//! a task's `post` command or swaps a reference is judged by the base's versions; a task only
//! the pull request defines is not judged.

use std::path::{Path, PathBuf};

use super::{InputError, SuiteError};
use crate::materialize::{self, Checkout, Source};
use crate::pipeline::config_tree::{self, ConfigFrom};

/// The layout as the trusted revision holds it.
pub struct TrustedLayout {
    /// The checkout of the trusted revision (removed when this is dropped).
    _checkout: Checkout,
    /// The layout folder inside it.
    pub dir: PathBuf,
    /// What it is: "the base commit of pull request #7 (0123456789ab)".
    pub label: String,
}

/// In a pull-request context, decided from the Actions event as `run` decides it (an event
/// judge-ci cannot read is refused, never taken for one outside a pull request), the layout
/// `dir` as the base commit (or the default branch) holds it; `None` outside one.
pub fn layout(dir: &Path) -> Result<Option<TrustedLayout>, SuiteError> {
    let ctx =
        crate::github::context::from_env(&|k| std::env::var(k).ok()).map_err(InputError::Event)?;
    let Some(ctx) = ctx.filter(|c| c.pr_context) else {
        return Ok(None);
    };
    let cwd = std::env::current_dir().map_err(InputError::WorkingFolder)?;
    let source = config_tree::config_source(&ConfigFrom::Auto, Some(&ctx), &cwd)
        .map_err(InputError::Definitions)?;
    let Some(tree) = source.tree() else {
        return Ok(None);
    };
    let canonical = |p: &Path| {
        p.canonicalize().map_err(|source| InputError::Unresolvable {
            path: p.to_path_buf(),
            source,
        })
    };
    let root = canonical(tree.root())?;
    let at = canonical(dir)?;
    let Ok(rel) = at.strip_prefix(&root) else {
        return Err(InputError::OutsideRepository {
            dir: dir.to_path_buf(),
            root,
            label: tree.label().to_string(),
        }
        .into());
    };
    let commit = tree.commit();
    let checkout =
        materialize::materialize(&Source::Rev(commit.clone()), &cwd, false).map_err(|source| {
            InputError::Checkout {
                label: tree.label().to_string(),
                source,
            }
        })?;
    let trusted = checkout.path.join(rel);
    if !trusted.is_dir() {
        return Err(InputError::NotInTrusted {
            rel: rel.to_path_buf(),
            label: tree.label().to_string(),
            commit: commit[..12.min(commit.len())].to_string(),
        }
        .into());
    }
    Ok(Some(TrustedLayout {
        _checkout: checkout,
        dir: trusted,
        label: format!("{} ({})", tree.label(), &commit[..12.min(commit.len())]),
    }))
}
