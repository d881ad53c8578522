//! Where the config and every file it names are read from: the working tree (local runs,
//! `push`) or a commit's tree read with git2 (the base commit of a pull request, so the PR
//! being judged cannot choose its own judge; `spec/trust.md` point 1). Every config-side read
//! (the config file, prompts, templates, criteria files, knowledge folders, a reference
//! folder inside the repository) goes through [`ConfigSource`], which also remembers what it
//! read so the report can say which of those files the pull request changes.

use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// The largest config-side file read from a tree (a prompt, a knowledge file): 8 MiB.
const MAX_FILE: usize = 8 << 20;

/// One file read from a git tree, with the working tree's version beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustedFile {
    /// Path relative to the repository root, with `/`.
    pub path: String,
    /// SHA-256 of the tree's version (the one used); `None` when only the working tree has it.
    pub sha256: Option<String>,
    /// SHA-256 of the working tree's version (the pull request's), `None` when absent there.
    pub head_sha256: Option<String>,
}

impl TrustedFile {
    /// Whether the working tree's version differs from the one used.
    pub fn changed(&self) -> bool {
        self.head_sha256 != self.sha256
    }
}

/// A commit's tree standing in for the working tree below `root`.
#[derive(Debug)]
pub struct GitTree {
    /// The repository's git folder.
    git_dir: PathBuf,
    /// The working tree root whose paths map onto the tree (canonical).
    root: PathBuf,
    /// The commit read.
    commit: Oid,
    /// How the commit was chosen, for messages ("the base commit of pull request #7").
    label: String,
    /// Files read so far, by repository-relative path: the tree's digest.
    reads: Mutex<BTreeMap<String, String>>,
    /// Folders listed so far (repository-relative), to notice files a PR adds to them.
    dirs: Mutex<Vec<String>>,
}

/// Where config-side files come from.
#[derive(Debug, Default)]
pub enum ConfigSource {
    /// The file system as it is (local runs, `push`, `--config-from head`).
    #[default]
    WorkTree,
    /// A commit's tree (a pull request's base, or `--config-from REV`).
    Tree(GitTree),
}

/// What an entry of a tree is.
enum Entry {
    File(Vec<u8>),
    Dir,
    Other(&'static str),
}

/// Makes `p` absolute against the current folder and removes `.` and `..` without touching
/// the file system (a symlink in the working tree must not decide where a tree path points).
fn lexical(p: &Path) -> PathBuf {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl GitTree {
    /// The tree of `commit` in the repository at `git_dir`, standing in for the working tree
    /// at `root`.
    pub fn new(git_dir: PathBuf, root: &Path, commit: Oid, label: String) -> GitTree {
        let root = root.canonicalize().unwrap_or_else(|_| lexical(root));
        GitTree {
            git_dir,
            root,
            commit,
            label,
            reads: Mutex::new(BTreeMap::new()),
            dirs: Mutex::new(Vec::new()),
        }
    }

    /// The commit read.
    pub fn commit(&self) -> String {
        self.commit.to_string()
    }

    /// How the commit was chosen.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The working tree root the tree stands in for.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The repository-relative path of `p`, or `None` when it lies outside the repository
    /// (such a file is not the pull request's, and is read from disk).
    pub fn relative(&self, p: &Path) -> Option<String> {
        let l = lexical(p);
        // The root may be reached through a symlinked prefix (/tmp → /private/tmp): compare
        // with the canonical root, and with the lexical form of the path's parent resolved.
        let rel = l
            .strip_prefix(&self.root)
            .ok()
            .map(Path::to_path_buf)
            .or_else(|| {
                let parent = l.parent()?.canonicalize().ok()?;
                let name = l.file_name()?;
                parent
                    .join(name)
                    .strip_prefix(&self.root)
                    .ok()
                    .map(Path::to_path_buf)
            })?;
        Some(
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/"),
        )
    }

    /// The tree of the commit checked out in the same repository (its `HEAD`): what the
    /// pull request presents as git records it, which a checkout's files may not show (a
    /// `working-tree-encoding` attribute re-encodes a blob on checkout). `None` without one
    /// (an unborn branch, a repository that cannot be opened).
    pub fn checked_out(&self) -> Option<GitTree> {
        let repo = self.open().ok()?;
        let id = repo.head().ok()?.peel_to_commit().ok()?.id();
        Some(GitTree::new(
            self.git_dir.clone(),
            &self.root,
            id,
            format!("the checked-out commit {}", short(&id)),
        ))
    }

    fn open(&self) -> std::io::Result<Repository> {
        Repository::open(&self.git_dir).map_err(|e| std::io::Error::other(e.message().to_string()))
    }

    fn entry(&self, rel: &str) -> std::io::Result<Option<Entry>> {
        let repo = self.open()?;
        let tree = repo
            .find_commit(self.commit)
            .and_then(|c| c.tree())
            .map_err(|e| std::io::Error::other(e.message().to_string()))?;
        if rel.is_empty() {
            return Ok(Some(Entry::Dir));
        }
        let Ok(e) = tree.get_path(Path::new(rel)) else {
            return Ok(None);
        };
        Ok(Some(match (e.kind(), e.filemode()) {
            (Some(ObjectType::Tree), _) => Entry::Dir,
            (Some(ObjectType::Blob), 0o120000) => Entry::Other("a symbolic link"),
            (Some(ObjectType::Blob), _) => {
                let blob = repo
                    .find_blob(e.id())
                    .map_err(|err| std::io::Error::other(err.message().to_string()))?;
                if blob.size() > MAX_FILE {
                    return Err(std::io::Error::other(format!(
                        "{rel} is larger than {} MiB",
                        MAX_FILE >> 20
                    )));
                }
                Entry::File(blob.content().to_vec())
            }
            _ => Entry::Other("a submodule"),
        }))
    }

    fn not_found(&self, rel: &str) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("{rel} is not in {} ({})", self.label, short(&self.commit)),
        )
    }

    /// The files below the repository-relative folder `rel`, recursively: (path relative to
    /// the folder, bytes). Symbolic links and submodules are left out.
    fn walk(&self, rel: &str) -> std::io::Result<Vec<(String, Vec<u8>)>> {
        let repo = self.open()?;
        let io = |e: git2::Error| std::io::Error::other(e.message().to_string());
        let root = repo
            .find_commit(self.commit)
            .and_then(|c| c.tree())
            .map_err(io)?;
        let tree = if rel.is_empty() {
            root
        } else {
            let e = root
                .get_path(Path::new(rel))
                .map_err(|_| self.not_found(rel))?;
            repo.find_tree(e.id()).map_err(io)?
        };
        let mut blobs = Vec::new();
        tree.walk(TreeWalkMode::PreOrder, |dir, e| {
            if e.kind() == Some(ObjectType::Blob) && e.filemode() != 0o120000 {
                blobs.push((format!("{dir}{}", e.name().unwrap_or("")), e.id()));
            }
            TreeWalkResult::Ok
        })
        .map_err(io)?;
        let mut out = Vec::new();
        for (path, id) in blobs {
            let blob = repo.find_blob(id).map_err(io)?;
            if blob.size() <= MAX_FILE {
                out.push((path, blob.content().to_vec()));
            }
        }
        Ok(out)
    }

    /// Every file read or listed so far, with the working tree's digest beside the tree's.
    pub fn files(&self) -> Vec<TrustedFile> {
        let reads = self.reads.lock().map(|r| r.clone()).unwrap_or_default();
        let dirs = self.dirs.lock().map(|d| d.clone()).unwrap_or_default();
        let head = |rel: &str| {
            let p = self.root.join(rel);
            std::fs::symlink_metadata(&p)
                .ok()
                .filter(|m| m.is_file())
                .and_then(|_| std::fs::read(&p).ok())
                .map(|b| sha(&b))
        };
        let mut out: BTreeMap<String, TrustedFile> = reads
            .iter()
            .map(|(path, digest)| {
                (
                    path.clone(),
                    TrustedFile {
                        path: path.clone(),
                        sha256: Some(digest.clone()),
                        head_sha256: head(path),
                    },
                )
            })
            .collect();
        // A file the pull request adds to a listed folder (a knowledge file) is a change too.
        for d in dirs {
            for e in walkdir::WalkDir::new(self.root.join(&d))
                .follow_links(false)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
            {
                let Ok(rel) = e.path().strip_prefix(&self.root) else {
                    continue;
                };
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.entry(rel.clone()).or_insert_with(|| TrustedFile {
                    path: rel.clone(),
                    sha256: None,
                    head_sha256: head(&rel),
                });
            }
        }
        out.into_values().collect()
    }

    /// Every blob of the tree whose repository-relative path `keep` accepts: (path, blob id,
    /// file mode).
    pub fn blobs(&self, keep: &dyn Fn(&str) -> bool) -> std::io::Result<Vec<(String, Oid, i32)>> {
        Ok(self
            .entries(keep)?
            .into_iter()
            .filter(|(_, _, mode)| *mode != 0o160000)
            .collect())
    }

    /// Every entry git records as content at a path, as [`GitTree::blobs`] gives files and
    /// links, and submodule entries too (gitlinks: mode `160000`, the id the commit they
    /// point at): what a protected path can be changed into (trust.md point 2).
    pub fn entries(&self, keep: &dyn Fn(&str) -> bool) -> std::io::Result<Vec<(String, Oid, i32)>> {
        let repo = self.open()?;
        let io = |e: git2::Error| std::io::Error::other(e.message().to_string());
        let tree = repo
            .find_commit(self.commit)
            .and_then(|c| c.tree())
            .map_err(io)?;
        let mut out = Vec::new();
        tree.walk(TreeWalkMode::PreOrder, |dir, e| {
            if matches!(e.kind(), Some(ObjectType::Blob | ObjectType::Commit)) {
                let path = format!("{dir}{}", e.name().unwrap_or(""));
                if keep(&path) {
                    out.push((path, e.id(), e.filemode()));
                }
            }
            TreeWalkResult::Ok
        })
        .map_err(io)?;
        Ok(out)
    }

    /// The repository-relative paths of the tree's submodule entries (gitlinks, mode
    /// `160000`), which [`GitTree::blobs`] does not list.
    pub fn gitlinks(&self) -> std::io::Result<Vec<String>> {
        let repo = self.open()?;
        let io = |e: git2::Error| std::io::Error::other(e.message().to_string());
        let tree = repo
            .find_commit(self.commit)
            .and_then(|c| c.tree())
            .map_err(io)?;
        let mut out = Vec::new();
        tree.walk(TreeWalkMode::PreOrder, |dir, e| {
            if e.kind() == Some(ObjectType::Commit) {
                out.push(format!("{dir}{}", e.name().unwrap_or("")));
            }
            TreeWalkResult::Ok
        })
        .map_err(io)?;
        Ok(out)
    }

    /// The bytes of a blob of the repository.
    pub fn blob(&self, id: Oid) -> std::io::Result<Vec<u8>> {
        let repo = self.open()?;
        let blob = repo
            .find_blob(id)
            .map_err(|e| std::io::Error::other(e.message().to_string()))?;
        Ok(blob.content().to_vec())
    }

    fn record(&self, rel: &str, bytes: &[u8]) {
        if let Ok(mut r) = self.reads.lock() {
            r.insert(rel.to_string(), sha(bytes));
        }
    }
}

/// The first seven hex digits of a commit.
fn short(id: &Oid) -> String {
    id.to_string().chars().take(7).collect()
}

impl ConfigSource {
    /// Reads a file.
    pub fn read(&self, p: &Path) -> std::io::Result<Vec<u8>> {
        let ConfigSource::Tree(t) = self else {
            return std::fs::read(p);
        };
        let Some(rel) = t.relative(p) else {
            return std::fs::read(p);
        };
        match t.entry(&rel)? {
            Some(Entry::File(b)) => {
                t.record(&rel, &b);
                Ok(b)
            }
            Some(Entry::Dir) => Err(std::io::Error::other(format!(
                "{rel} is a folder in {}",
                t.label
            ))),
            Some(Entry::Other(what)) => Err(std::io::Error::other(format!(
                "{rel} is {what} in {}; judge-ci reads only regular files from it",
                t.label
            ))),
            None => Err(t.not_found(&rel)),
        }
    }

    /// Reads a UTF-8 text file.
    pub fn read_to_string(&self, p: &Path) -> std::io::Result<String> {
        String::from_utf8(self.read(p)?).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the file is not UTF-8 text",
            )
        })
    }

    /// Whether `p` is a regular file.
    pub fn is_file(&self, p: &Path) -> bool {
        match self {
            ConfigSource::WorkTree => p.is_file(),
            ConfigSource::Tree(t) => match t.relative(p) {
                None => p.is_file(),
                Some(rel) => matches!(t.entry(&rel), Ok(Some(Entry::File(_)))),
            },
        }
    }

    /// Whether `p` is a folder.
    pub fn is_dir(&self, p: &Path) -> bool {
        match self {
            ConfigSource::WorkTree => p.is_dir(),
            ConfigSource::Tree(t) => match t.relative(p) {
                None => p.is_dir(),
                Some(rel) => matches!(t.entry(&rel), Ok(Some(Entry::Dir))),
            },
        }
    }

    /// Every regular file below the folder `dir`, recursively, as (path relative to `dir`,
    /// bytes), sorted; files over `limit` bytes are left out.
    pub fn files_under(&self, dir: &Path, limit: u64) -> std::io::Result<Vec<(String, Vec<u8>)>> {
        let tree_rel = match self {
            ConfigSource::Tree(t) => t.relative(dir).map(|rel| (t, rel)),
            ConfigSource::WorkTree => None,
        };
        let mut out = match tree_rel {
            Some((t, rel)) => {
                let files = t.walk(&rel)?;
                if let Ok(mut d) = t.dirs.lock() {
                    d.push(rel.clone());
                }
                for (p, b) in &files {
                    let full = if rel.is_empty() {
                        p.clone()
                    } else {
                        format!("{rel}/{p}")
                    };
                    t.record(&full, b);
                }
                files
                    .into_iter()
                    .filter(|(_, b)| b.len() as u64 <= limit)
                    .collect()
            }
            None => {
                if !dir.is_dir() {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::NotFound,
                        format!("the folder {} does not exist", dir.display()),
                    ));
                }
                let mut out = Vec::new();
                for e in walkdir::WalkDir::new(dir)
                    .follow_links(false)
                    .into_iter()
                    .filter_map(Result::ok)
                    .filter(|e| e.file_type().is_file())
                {
                    if e.metadata().map(|m| m.len() > limit).unwrap_or(true) {
                        continue;
                    }
                    if let Ok(b) = std::fs::read(e.path()) {
                        let name = e
                            .path()
                            .strip_prefix(dir)
                            .unwrap_or(e.path())
                            .display()
                            .to_string();
                        out.push((name, b));
                    }
                }
                out
            }
        };
        out.sort();
        Ok(out)
    }

    /// The files read from a tree, with the working tree's digests (empty for the working
    /// tree).
    pub fn files(&self) -> Vec<TrustedFile> {
        match self {
            ConfigSource::WorkTree => Vec::new(),
            ConfigSource::Tree(t) => t.files(),
        }
    }

    /// The tree, when reading from one.
    pub fn tree(&self) -> Option<&GitTree> {
        match self {
            ConfigSource::WorkTree => None,
            ConfigSource::Tree(t) => Some(t),
        }
    }

    /// Writes the folder `dir` (a reference named by the config) where judges can read it:
    /// from a tree, into a fresh temporary folder; from the working tree, nowhere (the folder
    /// is used as it is, and `None` is returned).
    pub fn materialize_dir(&self, dir: &Path) -> std::io::Result<Option<tempfile::TempDir>> {
        if self.tree().and_then(|t| t.relative(dir)).is_none() {
            return Ok(None);
        }
        let files = self.files_under(dir, u64::MAX)?;
        let temp = tempfile::Builder::new()
            .prefix("judge-ci-trusted-")
            .tempdir()?;
        for (p, b) in files {
            let target = temp.path().join(&p);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&target, b)?;
        }
        Ok(Some(temp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::git;

    #[test]
    fn reads_come_from_the_tree_and_changes_are_seen() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join("a.yml"), "base\n").unwrap();
        std::fs::create_dir(root.join("k")).unwrap();
        std::fs::write(root.join("k/one.md"), "one\n").unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-qm", "base"]);
        let repo = Repository::open(root).unwrap();
        let id = repo.head().unwrap().peel_to_commit().unwrap().id();
        // The pull request's working tree: a loosened file and an added knowledge file.
        std::fs::write(root.join("a.yml"), "loose\n").unwrap();
        std::fs::write(root.join("k/two.md"), "two\n").unwrap();
        let src = ConfigSource::Tree(GitTree::new(
            repo.path().to_path_buf(),
            root,
            id,
            "base".into(),
        ));
        assert_eq!(src.read(&root.join("a.yml")).unwrap(), b"base\n");
        assert_eq!(src.read(&root.join("k/../a.yml")).unwrap(), b"base\n");
        assert!(src.is_dir(&root.join("k")) && !src.is_file(&root.join("k")));
        let k = src.files_under(&root.join("k"), 100).unwrap();
        assert_eq!(k, vec![("one.md".to_string(), b"one\n".to_vec())]);
        assert_eq!(
            src.read(&root.join("k/two.md")).unwrap_err().kind(),
            std::io::ErrorKind::NotFound
        );
        let files = src.files();
        let changed: Vec<&str> = files
            .iter()
            .filter(|f| f.changed())
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(changed, vec!["a.yml", "k/two.md"]);
        // A path outside the repository is read from disk.
        let outside = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(outside.path(), "x").unwrap();
        assert_eq!(src.read(outside.path()).unwrap(), b"x");
    }
}
