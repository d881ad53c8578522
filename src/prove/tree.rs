//! The two sides `prove` reads, base and reference, as maps of their files: from a folder or
//! a revision (written out by [`crate::materialize`] and read back), regular files only.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{FolderError, InputError, ProveError};
use crate::materialize::{self, Source};

/// What one path of a tree holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A regular file: its bytes and whether it is executable (`mvnw`).
    File {
        /// The bytes.
        bytes: Vec<u8>,
        /// Mode 755 rather than 644.
        executable: bool,
    },
    /// A symbolic link to a copy of `bytes` that judge-ci writes outside the variant's
    /// folder (a gaming transformation's non-regular source; never read from a side).
    LinkOutside {
        /// What the link's target holds.
        bytes: Vec<u8>,
    },
}

impl Entry {
    /// A regular file that is not executable.
    pub fn file(bytes: impl Into<Vec<u8>>) -> Entry {
        Entry::File {
            bytes: bytes.into(),
            executable: false,
        }
    }

    /// The bytes a reader of the path would see.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Entry::File { bytes, .. } | Entry::LinkOutside { bytes } => bytes,
        }
    }

    /// The text, when the bytes are UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(self.bytes()).ok()
    }
}

/// A tree: `/`-separated relative path → entry, sorted.
pub type Files = BTreeMap<String, Entry>;

/// Folders no side contributes: git's own, and build and judge-ci outputs.
const SKIPPED_DIRS: &[&str] = &[".git", "target", "build", "judge-ci-out"];

/// Reads a side given on the command line (`--base`, `--reference`): an existing folder, or
/// a revision of the repository in `repo_dir` (or `URL#REV`). `skip` names paths that are
/// not part of the change (the config file, when it lies in the tree).
pub fn read_side(
    flag: &'static str,
    arg: &str,
    repo_dir: &Path,
    skip: &[String],
) -> Result<(Files, String), ProveError> {
    let source = Source::parse(arg);
    let checkout = materialize::materialize(&source, repo_dir, false).map_err(|source| {
        InputError::Checkout {
            flag,
            arg: arg.to_string(),
            source,
        }
    })?;
    let label = match &checkout.commit {
        Some(sha) => format!("{arg} ({})", &sha[..sha.len().min(12)]),
        None => checkout.path.display().to_string(),
    };
    let files = read_folder(&checkout.path, skip).map_err(|source| InputError::Side {
        flag,
        arg: arg.to_string(),
        source,
    })?;
    if files.is_empty() {
        return Err(InputError::EmptySide {
            flag,
            arg: arg.to_string(),
        }
        .into());
    }
    Ok((files, label))
}

/// Every regular file under `root` (links, FIFOs and devices refused, naming the path).
pub fn read_folder(root: &Path, skip: &[String]) -> Result<Files, FolderError> {
    let mut out = Files::new();
    let walk = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            !(e.depth() > 0
                && e.file_type().is_dir()
                && e.file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n)))
        });
    for e in walk {
        let e = e.map_err(FolderError::Walk)?;
        if e.depth() == 0 || e.file_type().is_dir() {
            continue;
        }
        let rel = relative(root, e.path())?;
        if skip.contains(&rel) {
            continue;
        }
        if !e.file_type().is_file() {
            return Err(FolderError::NotRegular(rel));
        }
        let bytes = std::fs::read(e.path()).map_err(|source| FolderError::Read {
            rel: rel.clone(),
            source,
        })?;
        let executable = e
            .metadata()
            .map(|m| m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false);
        out.insert(rel, Entry::File { bytes, executable });
    }
    Ok(out)
}

/// `path` below `root`, `/`-separated; a name that is not UTF-8 is refused.
fn relative(root: &Path, path: &Path) -> Result<String, FolderError> {
    let rel = path.strip_prefix(root).map_err(|_| FolderError::NotBelow {
        path: path.to_path_buf(),
        root: root.to_path_buf(),
    })?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    parts
        .map(|p| p.join("/"))
        .ok_or_else(|| FolderError::NotUtf8(rel.to_path_buf()))
}

/// Writes `files` into the empty folder `dir`; a [`Entry::LinkOutside`] target goes under
/// `outside` (a folder beside `dir`, never inside it).
pub fn write(files: &Files, dir: &Path, outside: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (rel, entry) in files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        match entry {
            Entry::File { bytes, executable } => {
                std::fs::write(&path, bytes)?;
                if *executable {
                    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
                }
            }
            Entry::LinkOutside { bytes } => {
                let target: PathBuf = outside.join(rel);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::write(&target, bytes)?;
                std::os::unix::fs::symlink(&target, &path)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_reads_back_as_written_and_links_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let mut files = Files::new();
        files.insert("a/B.java".into(), Entry::file("class B {}\n"));
        files.insert(
            "mvnw".into(),
            Entry::File {
                bytes: b"#!/bin/sh\n".to_vec(),
                executable: true,
            },
        );
        let dir = d.path().join("tree");
        write(&files, &dir, &d.path().join("outside")).unwrap();
        std::fs::create_dir_all(dir.join("target")).unwrap();
        std::fs::write(dir.join("target/x.class"), b"x").unwrap();
        assert_eq!(read_folder(&dir, &[]).unwrap(), files);
        assert!(
            !read_folder(&dir, &["mvnw".into()])
                .unwrap()
                .contains_key("mvnw")
        );
        let mut linked = Files::new();
        linked.insert(
            "L.java".into(),
            Entry::LinkOutside {
                bytes: b"x".to_vec(),
            },
        );
        write(&linked, &dir, &d.path().join("outside")).unwrap();
        let e = read_folder(&dir, &[]).unwrap_err();
        assert!(
            matches!(&e, FolderError::NotRegular(rel) if rel == "L.java"),
            "{e:?}"
        );
        assert!(
            e.to_string().contains("L.java is not a regular file"),
            "{e}"
        );
    }
}
