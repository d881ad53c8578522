//! Stage 2, the trees: the subject and the reference materialised from folders, revisions
//! or `URL#REV`.

use std::path::Path;

use super::error::{RunError, one};
use super::options::RunOptions;
use crate::config::{Benchmark, ReferenceSpec};
use crate::materialize::{self, Checkout, CheckoutError, Source};

pub(super) fn checkout_error(what: &str, e: CheckoutError) -> RunError {
    let help = match &e {
        CheckoutError::NoRevision { .. } => {
            Some("check the name, or fetch it (a shallow clone may lack it and the fetch failed)")
        }
        CheckoutError::NoRepository { .. } => {
            Some("pass a folder, run judge-ci inside the repository, or use URL#REV")
        }
        CheckoutError::NoFolder(_) => Some("pass an existing folder, a revision, or URL#REV"),
        CheckoutError::Failed(_) => None,
    };
    one(format!("{what}: {e}"), help)
}

/// The reference, from the command line or the config, materialised when it is a revision.
pub(super) fn resolve_reference(
    opts: &RunOptions,
    bench: &Benchmark,
    repo_dir: &Path,
    trusted_reference: Option<&tempfile::TempDir>,
) -> Result<Option<Checkout>, RunError> {
    let source = match (&opts.reference, &bench.reference) {
        (Some(arg), _) => Source::parse(arg),
        (None, Some(ReferenceSpec::Path(p))) => match trusted_reference {
            Some(t) => Source::Folder(t.path().to_path_buf()),
            None => Source::Folder(p.clone()),
        },
        (
            None,
            Some(ReferenceSpec::Rev {
                rev,
                repository: None,
            }),
        ) => Source::Rev(rev.clone()),
        (
            None,
            Some(ReferenceSpec::Rev {
                rev,
                repository: Some(url),
            }),
        ) => Source::Remote {
            url: url.clone(),
            rev: rev.clone(),
        },
        (None, None) => return Ok(None),
    };
    materialize::materialize(&source, repo_dir, opts.keep_checkouts)
        .map(Some)
        .map_err(|e| checkout_error("reference", e))
}
