//! Stage 2, the trees: the subject and the reference materialised from folders, revisions
//! or `URL#REV`.

use std::path::Path;

use super::error::{InputError, RunError};
use super::options::RunOptions;
use crate::config::{Benchmark, ReferenceSpec};
use crate::materialize::{self, Checkout, CheckoutError, Contents, Source};

/// A tree that could not be materialised, as bad input naming which (`head`, `workspace`,
/// `reference`).
pub(super) fn checkout_error(what: &'static str, source: CheckoutError) -> RunError {
    RunError::Input(InputError::Tree { what, source })
}

/// Whether a revision given as the reference must be written into its folder, or can stay in
/// git ([`Contents::InGit`]): it stays there when the structural judges are its only readers
/// and read it before any subject code runs (the repository a revision is read from may be
/// the workspace's own, which a build can reach; `code_first`: a task's commands run before
/// the jury), no protected file is restored from it, and the user did not ask to keep the
/// checkouts.
pub(super) fn reference_contents(
    keep_checkouts: bool,
    bench: &Benchmark,
    code_first: bool,
) -> Contents {
    let folder_read = bench
        .jury
        .all_checks()
        .iter()
        .any(|c| crate::judges::reads_reference_folder(&c.kind));
    if folder_read
        || keep_checkouts
        || !bench.restore.is_empty()
        || crate::judges::snapshot::needed_after(&bench.jury, code_first)
    {
        Contents::Written
    } else {
        Contents::InGit
    }
}

/// The reference, from the command line or the config, materialised when it is a revision
/// (its files written out or left in git, as `contents` says).
pub(super) fn resolve_reference(
    opts: &RunOptions,
    bench: &Benchmark,
    repo_dir: &Path,
    trusted_reference: Option<&tempfile::TempDir>,
    contents: Contents,
) -> Result<Option<Checkout>, RunError> {
    let source = match (&opts.reference, &bench.reference) {
        (Some(arg), _) => match (Source::parse(arg), trusted_reference) {
            (Source::Folder(_), Some(t)) => Source::Folder(t.path().to_path_buf()),
            (named, _) => named,
        },
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
    materialize::materialize_as(&source, repo_dir, opts.keep_checkouts, contents)
        .map(Some)
        .map_err(|e| checkout_error("reference", e))
}

/// The base (`base:`), materialised with its files written out (the trusted tests are built
/// and run on a copy of it): a folder (`trusted`: written out of the base's tree when it lies
/// in the repository), a revision, or a revision of another repository. Without `base:`, in
/// a pull-request run, the base commit the trusted event names (`event_base`, a full commit
/// id); with neither there is no base run.
pub(super) fn resolve_base(
    bench: &Benchmark,
    repo_dir: &Path,
    trusted: Option<&tempfile::TempDir>,
    keep_checkouts: bool,
    event_base: Option<&str>,
) -> Result<Option<Checkout>, RunError> {
    let source = match &bench.base {
        None => match event_base.filter(|s| is_commit_id(s)) {
            Some(sha) => Source::Rev(sha.to_string()),
            None => return Ok(None),
        },
        Some(ReferenceSpec::Path(p)) => match trusted {
            Some(t) => Source::Folder(t.path().to_path_buf()),
            None => Source::Folder(p.clone()),
        },
        Some(ReferenceSpec::Rev {
            rev,
            repository: None,
        }) => Source::Rev(rev.clone()),
        Some(ReferenceSpec::Rev {
            rev,
            repository: Some(url),
        }) => Source::Remote {
            url: url.clone(),
            rev: rev.clone(),
        },
    };
    materialize::materialize_as(&source, repo_dir, keep_checkouts, Contents::Written)
        .map(Some)
        .map_err(|e| checkout_error("base", e))
}

/// Whether `s` is a full commit id (40 or 64 hex digits): what a pull-request event's base
/// must be to be checked out as the oracle's base.
fn is_commit_id(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_full_commit_id_of_the_event_is_a_base() {
        assert!(is_commit_id("f95f852bd8fca8fcc58a9a2d6c842781e32a215e"));
        assert!(!is_commit_id("--upload-pack=evil"));
        assert!(!is_commit_id("main"));
        assert!(!is_commit_id("f95f852"));
    }

    fn bench(jury: &str, extra: &str) -> Benchmark {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("judge-ci.yml");
        std::fs::write(
            &p,
            format!("schema: judge-ci.v1\nname: t\nversion: \"1\"\n{extra}jury:\n{jury}"),
        )
        .unwrap();
        crate::config::load_benchmark(&p).unwrap().0
    }

    /// A revision stays in git only when nothing but the structural judges reads it, and they
    /// read it before any subject code runs.
    #[test]
    fn a_reference_stays_in_git_only_for_structural_readers_before_any_subject_code() {
        let structural = "      - type: ast-diff\n      - type: pom-diff\n";
        let build = "      - type: command\n        run: \"true\"\n";
        let semantic = "      - type: external\n        run: \"true\"\n";
        let tiers = |a: &str, b: &str| {
            format!(
                "  tiers:\n    - name: a\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n{a}    - name: b\n      checks:\n{b}"
            )
        };
        let contents = |jury: &str, extra: &str, keep: bool| {
            reference_contents(keep, &bench(jury, extra), false)
        };
        assert_eq!(
            contents(&tiers(structural, build), "", false),
            Contents::InGit
        );
        assert_eq!(
            contents(&tiers(build, structural), "", false),
            Contents::Written
        );
        assert_eq!(
            contents(&tiers(structural, semantic), "", false),
            Contents::Written
        );
        assert_eq!(
            contents(&tiers(structural, build), "", true),
            Contents::Written
        );
        // A task's commands run the pull request's code before the jury.
        assert_eq!(
            reference_contents(false, &bench(&tiers(structural, build), ""), true),
            Contents::Written
        );
        assert_eq!(
            contents(
                &tiers(structural, build),
                "restore: [\"src/test/**\"]\n",
                false
            ),
            Contents::Written
        );
    }
}

/// What the reference a run judges against is, as a digest that binds a later job to it
/// (`resume` refuses a first job made against another reference: attack finding GA2): a
/// revision by its commit, a folder by every entry under it (path, kind, bytes; links by
/// their target, never followed; `.git` left out).
pub fn reference_digest(checkout: &Checkout) -> String {
    match &checkout.commit {
        Some(sha) => format!("commit {sha}"),
        None => format!("sha256:{}", folder_digest(&checkout.path)),
    }
}

/// The environment variable that holds the key of the reference's digest where `reveal`
/// hides the reference (a repository secret, the same in every job of a split run).
pub const REFERENCE_KEY_ENV: &str = "JUDGE_CI_REFERENCE_KEY";

/// What a report holds for the reference's digest where `reveal` hides the reference and no
/// key is set: nothing `resume` can bind a later job to, so it refuses one.
pub const WITHHELD_DIGEST: &str = "withheld";

/// The reference's digest as the report holds it (attack finding N7-5): under `reveal: full`
/// the digest itself; otherwise the plain SHA-256 of the reference's files would be an
/// offline oracle for them (a guessed solution whose digest matches is the answer key), so
/// it is an HMAC-SHA256 under `key` (`JUDGE_CI_REFERENCE_KEY`), or [`WITHHELD_DIGEST`]
/// without one.
pub fn reported_digest(plain: &str, reveal: crate::config::Reveal, key: Option<&[u8]>) -> String {
    match (reveal, key.filter(|k| !k.is_empty())) {
        (crate::config::Reveal::Full, _) => plain.to_string(),
        (_, Some(k)) => {
            let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, k);
            let tag = ring::hmac::sign(&key, plain.as_bytes());
            format!("hmac-sha256:{}", hex::encode(tag.as_ref()))
        }
        (_, None) => WITHHELD_DIGEST.to_string(),
    }
}

/// The SHA-256 (hex) of every entry under `root`, in sorted order, links not followed and
/// `.git` left out; an entry that cannot be read is digested as its error.
pub fn folder_digest(root: &Path) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = match std::fs::read_dir(&dir) {
            Ok(rd) => rd.flatten().map(|e| e.path()).collect(),
            Err(e) => {
                h.update(format!("unreadable {} {e}\n", dir.display()));
                continue;
            }
        };
        entries.sort();
        for p in entries.into_iter().rev() {
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => {
                    h.update(format!("dir {rel}\n"));
                    stack.push(p);
                }
                Ok(m) if m.file_type().is_symlink() => {
                    let to = std::fs::read_link(&p).map(|t| t.display().to_string());
                    h.update(format!("link {rel} {to:?}\n"));
                }
                Ok(m) => {
                    let d = file_digest(&p, m.len());
                    h.update(format!("file {rel} {d:?}\n"));
                }
                Err(e) => h.update(format!("unreadable {rel} {e}\n")),
            }
        }
    }
    hex::encode(h.finalize())
}

/// Files up to this size are digested whole; a larger one by its size and its first and
/// last [`DIGEST_EDGE`] bytes, so that a reference holding a multi-gigabyte file neither
/// holds it in memory nor takes minutes (a bound: two such files that differ only in the
/// middle digest alike).
const DIGEST_WHOLE: u64 = 64 << 20;
const DIGEST_EDGE: u64 = 1 << 20;

/// The SHA-256 (hex) of the file `p` of `len` bytes, read in pieces (see [`DIGEST_WHOLE`]).
fn file_digest(p: &Path, len: u64) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(p)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut feed = |f: &mut std::fs::File, mut left: u64, h: &mut Sha256| -> std::io::Result<()> {
        while left > 0 {
            let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            let n = f.read(&mut buf[..want])?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
            left -= n as u64;
        }
        Ok(())
    };
    if len <= DIGEST_WHOLE {
        feed(&mut f, len, &mut h)?;
    } else {
        h.update(format!("size {len}\n"));
        feed(&mut f, DIGEST_EDGE, &mut h)?;
        f.seek(SeekFrom::Start(len - DIGEST_EDGE))?;
        feed(&mut f, DIGEST_EDGE, &mut h)?;
    }
    Ok(hex::encode(h.finalize()))
}

#[cfg(test)]
mod digest_tests {
    use super::*;

    #[test]
    fn a_folder_digest_changes_with_any_entry_and_not_with_its_place() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for d in [a.path(), b.path()] {
            std::fs::create_dir_all(d.join("tests")).unwrap();
            std::fs::write(d.join("tests/run.sh"), "grep -qx hello src/app.txt\n").unwrap();
        }
        assert_eq!(folder_digest(a.path()), folder_digest(b.path()));
        std::fs::write(b.path().join("tests/run.sh"), "exit 0\n").unwrap();
        assert_ne!(folder_digest(a.path()), folder_digest(b.path()));
        std::os::unix::fs::symlink("x", a.path().join("l")).unwrap();
        let with_link = folder_digest(a.path());
        std::fs::remove_file(a.path().join("l")).unwrap();
        assert_ne!(with_link, folder_digest(a.path()));
    }

    /// N7-5: under `reveal: none` (or `names`) the report never holds the reference's plain
    /// digest: keyed, it is the same for every job with the key and unlike the plain one;
    /// without a key it is withheld.
    #[test]
    fn a_hidden_reference_s_digest_is_keyed_or_withheld() {
        let plain = "sha256:abc";
        assert_eq!(
            reported_digest(plain, crate::config::Reveal::Full, None),
            plain
        );
        for reveal in [crate::config::Reveal::None, crate::config::Reveal::Names] {
            assert_eq!(reported_digest(plain, reveal, None), WITHHELD_DIGEST);
            assert_eq!(reported_digest(plain, reveal, Some(b"")), WITHHELD_DIGEST);
            let a = reported_digest(plain, reveal, Some(b"secret"));
            assert!(a.starts_with("hmac-sha256:") && !a.contains("abc"), "{a}");
            assert_eq!(a, reported_digest(plain, reveal, Some(b"secret")));
            assert_ne!(a, reported_digest(plain, reveal, Some(b"other")));
            assert_ne!(a, reported_digest("sha256:abd", reveal, Some(b"secret")));
        }
    }
}
