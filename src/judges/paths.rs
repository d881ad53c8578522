//! Confining configured paths to the workspace, symlinks included, and reading what the
//! subject wrote without letting its size decide judge-ci's memory.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest file `file-content` reads.
pub const MAX_CONTENT_BYTES: u64 = 64 << 20;
/// The largest report a build wrote that is read (JaCoCo XML, one Surefire file).
pub const MAX_REPORT_BYTES: u64 = 256 << 20;
/// The largest input of the analysis read (plan, journal, analysis JSON, knowledge file).
pub const MAX_INPUT_BYTES: u64 = 1 << 20;

/// Why a file of a tree (the subject's, the reference's, on disk or in git) was not read. Its
/// message leaves the file's name to the caller, who says which file it was reading.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Larger than the read's bound.
    #[error("{size}, over the {} read", size_words(*limit))]
    TooLarge {
        /// Its size, in words (`300 bytes`, `over 64 MiB`).
        size: String,
        /// The bound, in bytes.
        limit: u64,
    },
    /// A link, FIFO, socket, device or folder where a regular file was expected (this one
    /// names the path).
    #[error(transparent)]
    NotRegular(crate::untrusted::ReadError),
    /// The kernel refused the open or the read, or nothing is there.
    #[error("{0}")]
    Io(#[source] std::io::Error),
    /// git could not read the blob.
    #[error("cannot read {rel} from git: {}", .source.message())]
    Git {
        /// The file, relative to the tree.
        rel: String,
        /// What git said.
        #[source]
        source: git2::Error,
    },
}

impl FileError {
    /// Nothing is there (the words the kernel uses, so a file missing from a tree in git reads
    /// as one missing on disk).
    pub fn missing() -> FileError {
        FileError::Io(std::io::Error::from_raw_os_error(libc::ENOENT))
    }
}

impl From<crate::untrusted::ReadError> for FileError {
    fn from(e: crate::untrusted::ReadError) -> FileError {
        match e {
            crate::untrusted::ReadError::TooLarge { size, limit, .. } => {
                FileError::TooLarge { size, limit }
            }
            crate::untrusted::ReadError::Io { source, .. } => FileError::Io(source),
            e @ crate::untrusted::ReadError::NotRegular { .. } => FileError::NotRegular(e),
        }
    }
}

/// `read_limited`, as text (invalid UTF-8 replaced).
pub fn read_text_limited(p: &Path, limit: u64) -> Result<String, FileError> {
    read_limited(p, limit).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Reads at most `limit` bytes of the regular file `p` through the one primitive for subject
/// files ([`crate::untrusted::read`]: no link followed, nothing opened blocking, a larger file
/// an error naming the bound).
pub fn read_limited(p: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    crate::untrusted::read(p, limit).map_err(FileError::from)
}

fn size_words(n: u64) -> String {
    crate::untrusted::size_words(n)
}

/// Whether two files hold the same bytes, read in chunks (never whole): an error reading
/// either counts as different.
pub fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    if ma.len() != mb.len() {
        return false;
    }
    let (Ok((fa, _)), Ok((fb, _))) = (crate::untrusted::open(a), crate::untrusted::open(b)) else {
        return false;
    };
    let (mut ra, mut rb) = (
        std::io::BufReader::with_capacity(1 << 16, fa),
        std::io::BufReader::with_capacity(1 << 16, fb),
    );
    let (mut xa, mut xb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let na = match read_full(&mut ra, &mut xa) {
            Ok(n) => n,
            Err(_) => return false,
        };
        let nb = match read_full(&mut rb, &mut xb) {
            Ok(n) => n,
            Err(_) => return false,
        };
        if na != nb || xa[..na] != xb[..nb] {
            return false;
        }
        if na == 0 {
            return true;
        }
    }
}

/// Fills `buf` as far as the reader allows; the count is short only at the end.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Where a workspace-relative path leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// An existing entry inside the workspace (symlinks followed).
    Inside(PathBuf),
    /// Nothing there (the path itself stays inside the workspace).
    Missing(PathBuf),
    /// The path, or a symlink on it, leads outside the workspace.
    Escapes(String),
    /// The path is, or passes through, a symbolic link inside the workspace (its path, with
    /// `/`, relative to the workspace): what a check names is read where the pull request
    /// points it (a command's `dir: src` made a link to an empty folder), so it is a
    /// `file-not-regular` finding of the check, never followed.
    ThroughLink(String),
}

/// The first component of `rel` under `root` that is a symbolic link (`a/b` of `a/b/c`), if
/// any; components past a missing one are not looked at.
fn first_link(root: &Path, rel: &Path) -> Option<String> {
    let mut at = root.to_path_buf();
    let mut shown: Vec<String> = Vec::new();
    for c in rel.components() {
        let std::path::Component::Normal(name) = c else {
            continue;
        };
        at.push(name);
        shown.push(name.to_string_lossy().into_owned());
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return Some(shown.join("/")),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

/// Resolves `rel` against `workspace`: a path that itself leaves it (`..`, absolute)
/// [`Resolved::Escapes`]; one that is or passes through a symbolic link of the workspace,
/// wherever the link leads, [`Resolved::ThroughLink`]; otherwise the entry or its absence.
pub fn resolve(workspace: &Path, rel: &Path) -> Resolved {
    match resolve_following(workspace, rel) {
        // A path that leaves the workspace through a link the workspace holds is the
        // subject's doing too (its tree holds the link), not the config's: a finding of the
        // check, never a bad config that leaves the task out of a suite's pass rate (attack
        // finding newer F22). Only a path that itself leaves (`..`, absolute) escapes.
        Resolved::Escapes(why) => match workspace
            .canonicalize()
            .ok()
            .and_then(|root| first_link(&root, rel))
        {
            Some(link) => Resolved::ThroughLink(link),
            None => Resolved::Escapes(why),
        },
        r => match workspace
            .canonicalize()
            .ok()
            .and_then(|root| first_link(&root, rel))
        {
            Some(link) => Resolved::ThroughLink(link),
            None => r,
        },
    }
}

/// [`resolve`] with symbolic links inside the workspace followed.
fn resolve_following(workspace: &Path, rel: &Path) -> Resolved {
    let root = match workspace.canonicalize() {
        Ok(r) => r,
        Err(e) => {
            return Resolved::Escapes(format!(
                "the workspace {} cannot be read: {e}",
                workspace.display()
            ));
        }
    };
    let joined = root.join(rel);
    if !joined.starts_with(&root) || rel.is_absolute() {
        return Resolved::Escapes(format!("'{}' is outside the workspace", rel.display()));
    }
    match joined.canonicalize() {
        Ok(real) if real.starts_with(&root) => Resolved::Inside(real),
        Ok(real) => Resolved::Escapes(format!(
            "'{}' leads outside the workspace (to {})",
            rel.display(),
            real.display()
        )),
        Err(_) => {
            // Missing (or a dangling link): the deepest existing ancestor must be inside.
            let mut anc = joined.parent();
            while let Some(a) = anc {
                if let Ok(real) = a.canonicalize() {
                    if real.starts_with(&root) {
                        return Resolved::Missing(joined);
                    }
                    return Resolved::Escapes(format!(
                        "'{}' leads outside the workspace (through {})",
                        rel.display(),
                        real.display()
                    ));
                }
                anc = a.parent();
            }
            Resolved::Missing(joined)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounded_and_comparisons_stream() {
        let d = tempfile::tempdir().unwrap();
        let (a, b, c) = (d.path().join("a"), d.path().join("b"), d.path().join("c"));
        std::fs::write(&a, vec![7u8; 200_000]).unwrap();
        std::fs::write(&b, vec![7u8; 200_000]).unwrap();
        let mut other = vec![7u8; 200_000];
        other[150_000] = 8;
        std::fs::write(&c, other).unwrap();
        assert_eq!(read_limited(&a, 200_000).unwrap().len(), 200_000);
        let e = read_limited(&a, 128 * 1024).unwrap_err();
        assert!(
            matches!(&e, FileError::TooLarge { limit, .. } if *limit == 128 * 1024),
            "{e}"
        );
        assert_eq!(e.to_string(), "200000 bytes, over the 128 KiB read");
        let missing = read_limited(&d.path().join("none"), 10).unwrap_err();
        assert!(
            matches!(&missing, FileError::Io(e) if e.kind() == std::io::ErrorKind::NotFound),
            "{missing}"
        );
        assert!(same_file(&a, &b));
        assert!(!same_file(&a, &c), "a difference past the first chunk");
        assert!(!same_file(&a, &d.path().join("none")));
    }

    #[test]
    fn symlinks_out_of_the_workspace_are_caught() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "x").unwrap();
        std::fs::write(ws.path().join("ok.txt"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), ws.path().join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join("dirlink")).unwrap();
        assert!(matches!(
            resolve(ws.path(), Path::new("ok.txt")),
            Resolved::Inside(_)
        ));
        assert!(matches!(
            resolve(ws.path(), Path::new("nope.txt")),
            Resolved::Missing(_)
        ));
        assert!(matches!(
            resolve(ws.path(), Path::new("link")),
            Resolved::ThroughLink(l) if l == "link"
        ));
        assert!(matches!(
            resolve(ws.path(), Path::new("dirlink/secret")),
            Resolved::ThroughLink(l) if l == "dirlink"
        ));
        assert!(matches!(
            resolve(ws.path(), Path::new("dirlink/new")),
            Resolved::ThroughLink(l) if l == "dirlink"
        ));
        // A path that itself leaves the workspace is the config's: it escapes.
        assert!(matches!(
            resolve(ws.path(), Path::new("../x")),
            Resolved::Escapes(_)
        ));
    }

    /// The attack (newer F23): a command's `dir: src` where the pull request made `src` a
    /// link to an empty folder of its own: the trusted grep examined nothing. A path that is,
    /// or passes through, a link inside the workspace is named, never followed.
    #[test]
    fn links_inside_the_workspace_are_named_not_followed() {
        let ws = tempfile::tempdir().unwrap();
        let r = ws.path();
        std::fs::create_dir_all(r.join("clean/sub")).unwrap();
        std::fs::write(r.join("clean/sub/a.txt"), "x").unwrap();
        std::os::unix::fs::symlink("clean", r.join("src")).unwrap();
        std::os::unix::fs::symlink("a.txt", r.join("clean/sub/b.txt")).unwrap();
        let link = |p: &str| match resolve(r, Path::new(p)) {
            Resolved::ThroughLink(l) => l,
            _ => panic!("{p}: not named as a link"),
        };
        assert_eq!(link("src"), "src");
        assert_eq!(link("src/sub/a.txt"), "src");
        assert_eq!(link("./src/missing"), "src");
        assert_eq!(link("clean/sub/b.txt"), "clean/sub/b.txt");
        assert!(matches!(
            resolve(r, Path::new("clean/sub/a.txt")),
            Resolved::Inside(_)
        ));
        assert!(matches!(
            resolve(r, Path::new("clean/none/x")),
            Resolved::Missing(_)
        ));
    }
}
