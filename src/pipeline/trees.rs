//! Stage 2, the trees: the subject and the reference materialised from folders, revisions
//! or `URL#REV`.

use std::path::Path;

use super::error::{InputError, RunError};
use super::options::RunOptions;
use crate::config::{Benchmark, ReferenceSpec};
use crate::materialize::{self, Checkout, CheckoutError, Source};

/// A tree that could not be materialised, as bad input naming which (`head`, `workspace`,
/// `reference`).
pub(super) fn checkout_error(what: &'static str, source: CheckoutError) -> RunError {
    RunError::Input(InputError::Tree { what, source })
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
