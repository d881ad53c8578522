//! Resolving the workspace and the reference: a folder, a git revision of the repository
//! judge-ci runs in (`origin/solution`, a tag, a SHA), or `URL#REV` of another repository.
//! Revisions are materialised with git2 into temporary folders — blobs written in parallel —
//! never by touching the user's working tree or index. A revision a shallow clone lacks is
//! fetched with `git` (the token passed through the environment, never on a command line or in
//! a log).

use git2::{ObjectType, Oid, Repository};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use thiserror::Error;

mod names;
pub mod scratch;
pub use names::BadName;

/// Where a tree comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A folder on disk, used as it is.
    Folder(PathBuf),
    /// A revision of the repository judge-ci runs in.
    Rev(String),
    /// A revision of another repository.
    Remote {
        /// Its URL (https, ssh, file, or a path).
        url: String,
        /// The revision.
        rev: String,
    },
}

impl Source {
    /// Reads a command-line value: an existing folder, `URL#REV`, a path-looking value (a
    /// folder, which may not exist), or else a revision.
    pub fn parse(arg: &str) -> Source {
        if Path::new(arg).is_dir() {
            return Source::Folder(PathBuf::from(arg));
        }
        if let Some((url, rev)) = arg.rsplit_once('#')
            && !url.is_empty()
            && !rev.is_empty()
        {
            return Source::Remote {
                url: url.to_string(),
                rev: rev.to_string(),
            };
        }
        if arg.starts_with('.') || arg.starts_with('/') || arg.starts_with('~') {
            return Source::Folder(PathBuf::from(arg));
        }
        Source::Rev(arg.to_string())
    }
}

/// Why a tree could not be had.
#[derive(Debug, Error)]
pub enum CheckoutError {
    /// The folder does not exist.
    #[error("the folder {0} does not exist")]
    NoFolder(PathBuf),
    /// The revision is not in the repository, nor could it be fetched.
    #[error("the revision '{rev}' does not exist in {repo}{fetch}")]
    NoRevision {
        /// The revision.
        rev: String,
        /// The repository.
        repo: String,
        /// What fetching said, if it was tried.
        fetch: String,
    },
    /// No repository to take a revision from.
    #[error(
        "'{rev}' is not a folder, and {dir} is not inside a git repository to take it from as a revision"
    )]
    NoRepository {
        /// The revision.
        rev: String,
        /// Where judge-ci looked.
        dir: String,
    },
    /// A revision or repository git would misread, or a transport that is not allowed.
    #[error(transparent)]
    Refused(#[from] GitArgError),
    /// The repository cannot be read (a corrupt or missing object).
    #[error("cannot read the repository: {}", .0.message())]
    Repository(#[source] git2::Error),
    /// No temporary folder for the tree.
    #[error("cannot create a temporary folder: {0}")]
    TempDir(#[source] std::io::Error),
    /// A file or folder cannot be read, created, written or copied.
    #[error("cannot {action} {}: {source}", .path.display())]
    Io {
        /// `read`, `create`, `write` or `copy`.
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A fetched tree cannot be walked for copying.
    #[error("cannot copy the fetched tree: {0}")]
    Walk(#[source] walkdir::Error),
    /// `judge-ci checkout` of a folder.
    #[error("{} is a folder already; give a revision", .0.display())]
    FolderGiven(PathBuf),
    /// `judge-ci checkout` into a folder that holds files.
    #[error("{} exists and is not empty", .0.display())]
    NotEmpty(PathBuf),
    /// A tree entry git's fsck refuses, or this host cannot hold; nothing of the tree was
    /// written.
    #[error(
        "the tree of commit {commit} holds an entry git's fsck refuses: {path:?} is {why}; nothing of it was written"
    )]
    BadTreeEntry {
        /// The commit.
        commit: String,
        /// The entry's path in the tree (lossily shown when not UTF-8).
        path: String,
        /// Which rule.
        why: names::BadName,
    },
    /// A blob, or a tree's blobs in all, larger than judge-ci writes out.
    #[error(
        "the tree holds {path:?} of {size} bytes, past what judge-ci writes out of a tree ({blob_limit} bytes a file, {tree_limit} bytes in all); nothing of it was written"
    )]
    TooLarge {
        /// The file at which a bound was passed.
        path: String,
        /// Its size.
        size: u64,
        /// The bound for one file.
        blob_limit: u64,
        /// The bound for the whole tree.
        tree_limit: u64,
    },
    /// A tree with more entries than judge-ci reads.
    #[error(
        "the tree of commit {commit} holds more than {limit} entries (files, folders and links, counted over every folder); judge-ci reads no more"
    )]
    TreeTooLarge {
        /// The commit.
        commit: String,
        /// The bound ([`MAX_TREE_ENTRIES`]).
        limit: usize,
    },
}

/// A revision or repository URL refused before git sees it.
#[derive(Debug, Error)]
pub enum GitArgError {
    /// A revision git would read as an option (`--upload-pack=…`).
    #[error(
        "the revision {0:?} starts with '-', which git would read as an option; name a branch, tag or commit"
    )]
    RevisionLikeOption(String),
    /// A repository git would read as an option.
    #[error(
        "the repository {0:?} starts with '-', which git would read as an option; use https://host/owner/repo.git, ssh://… or git@host:owner/repo.git, or a local path"
    )]
    RepositoryLikeOption(String),
    /// A repository naming a transport helper (`ext::…`).
    #[error(
        "the repository {0:?} names a git transport helper (`…::`); use https://host/owner/repo.git, ssh://… or git@host:owner/repo.git, or a local path"
    )]
    TransportHelper(String),
    /// A scheme that is unencrypted or unauthenticated.
    #[error(
        "the repository {url:?} uses {scheme}://, which is not allowed (it is unencrypted or unauthenticated); use https://host/owner/repo.git, ssh://… or git@host:owner/repo.git, or a local path"
    )]
    Scheme {
        /// The repository.
        url: String,
        /// Its scheme.
        scheme: String,
    },
}

/// Why a `git` command failed.
#[derive(Debug, Error)]
pub enum GitError {
    /// git could not be started.
    #[error("cannot run git: {0}")]
    Spawn(#[source] std::io::Error),
    /// git failed; its last line of standard error.
    #[error("{0}")]
    Failed(String),
}

/// A materialised tree; a temporary one is removed when this is dropped (unless kept).
#[derive(Debug)]
pub struct Checkout {
    /// The folder holding the tree.
    pub path: PathBuf,
    /// The commit, for revisions.
    pub commit: Option<String>,
    /// What was asked for, for reports.
    pub label: String,
    /// The repository holding `commit`, for revisions (git-aware file selection reads the
    /// commit's tree from it).
    pub git_dir: Option<PathBuf>,
    /// Whether the folder holds the files, or a revision's files were left in git.
    pub contents: Contents,
    /// A revision left in git: its regular files and folders, as walked when it was resolved.
    pub listing: Option<Arc<TreeListing>>,
    /// The folders judge-ci made for this checkout (see [`Checkout::folders_made`]).
    made: Vec<PathBuf>,
    _temp: Option<scratch::Scratch>,
    /// A fetched remote's bare repository, kept while the checkout lives.
    _git_temp: Option<scratch::Scratch>,
}

impl Checkout {
    /// The folders judge-ci made for this checkout (a revision's folder, a fetched remote's
    /// repository; none for a folder used as it is): judge-ci's own, which the run's fence
    /// hides from subject processes.
    pub fn folders_made(&self) -> &[PathBuf] {
        &self.made
    }
}

/// Whether a materialised revision's files were written into its folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contents {
    /// Every file of the tree is in the folder (a folder source is always this).
    Written,
    /// The folder is empty and the files stay in git: asked for when only judges that read
    /// a tree from git (the structural ones, see [`crate::judges::structural::tree`]) read it,
    /// so that a run's cost follows the change, not the size of the tree.
    InGit,
}

/// What a commit's tree holds: regular files (modes 100644 and 100755; path → blob id) and
/// folders, by `/`-separated UTF-8 path.
#[derive(Debug, Default)]
pub struct TreeListing {
    /// Regular files.
    pub files: HashMap<String, Oid>,
    /// Folders.
    pub dirs: HashSet<String>,
}

impl TreeListing {
    /// The regular files and folders of the tree of `commit` in the repository at `git_dir`.
    pub fn of(git_dir: &Path, commit: Oid) -> Result<TreeListing, CheckoutError> {
        let repo = Repository::open(git_dir).map_err(CheckoutError::Repository)?;
        Ok(TreeEntries::of(&repo, commit)?.listing())
    }
}

/// Token variables read for fetching private repositories.
const TOKEN_VARS: &[&str] = &["GITHUB_TOKEN", "GH_TOKEN"];

/// The transports git may use (`GIT_ALLOW_PROTOCOL`): no `http://`, `git://`, `ext::`.
const ALLOWED_PROTOCOLS: &str = "https:ssh:file";

/// Refuses a revision git could read as an option (`--upload-pack=…`).
pub fn check_rev(rev: &str) -> Result<(), GitArgError> {
    if rev.starts_with('-') {
        Err(GitArgError::RevisionLikeOption(rev.to_string()))
    } else {
        Ok(())
    }
}

/// Refuses a repository URL that is not https, ssh or a local path, or that git could read
/// as an option.
pub fn check_remote(url: &str) -> Result<(), GitArgError> {
    if url.starts_with('-') {
        return Err(GitArgError::RepositoryLikeOption(url.to_string()));
    }
    if url.contains("::") {
        return Err(GitArgError::TransportHelper(url.to_string()));
    }
    match url.split_once("://") {
        Some((scheme, _)) => match scheme.to_ascii_lowercase().as_str() {
            "https" | "ssh" | "git+ssh" | "file" => Ok(()),
            other => Err(GitArgError::Scheme {
                url: url.to_string(),
                scheme: other.to_string(),
            }),
        },
        // scp-like `host:path` and plain paths.
        None => Ok(()),
    }
}

/// The GitHub server of the run (`GITHUB_SERVER_URL`, else github.com): the only host the
/// token is ever sent to, and only over https.
fn server_host() -> Option<String> {
    let server = std::env::var("GITHUB_SERVER_URL")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "https://github.com".to_string());
    let u = url::Url::parse(&server).ok()?;
    if u.scheme() != "https" {
        return None;
    }
    u.host_str().map(str::to_ascii_lowercase)
}

/// Whether the token may go to `remote`: an https URL whose host is the run's GitHub server.
pub fn token_may_go_to(remote: &str, server_host: Option<&str>) -> bool {
    let Some(server) = server_host else {
        return false;
    };
    url::Url::parse(remote).is_ok_and(|u| {
        u.scheme() == "https"
            && u.host_str().is_some_and(|h| h.eq_ignore_ascii_case(server))
            && u.username().is_empty()
    })
}

/// Runs `git` with a hardened environment: only https, ssh and local transports, no prompt,
/// no system or global config. The token goes (through `GIT_CONFIG_*` variables, never on a
/// command line or in a message) only when `remote` is an https URL of the run's GitHub
/// server, and the header is scoped to that server's URLs.
fn git(dir: &Path, args: &[&str], remote: Option<&str>) -> Result<(), GitError> {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .args(crate::fence::git_guard::SAFE_GIT_OPTIONS)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_CONFIG_PARAMETERS")
        .env_remove("GIT_SSH_COMMAND")
        .env_remove("GIT_PROXY_COMMAND")
        .env_remove("GIT_EXEC_PATH");
    let host = server_host();
    let token = TOKEN_VARS
        .iter()
        .find_map(|v| std::env::var(v).ok())
        .filter(|t| !t.is_empty());
    match (token, remote, host) {
        (Some(token), Some(remote), Some(host)) if token_may_go_to(remote, Some(&host)) => {
            use base64::Engine;
            let encode = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
            cmd.env("GIT_CONFIG_COUNT", "1")
                .env(
                    "GIT_CONFIG_KEY_0",
                    format!("http.https://{host}/.extraHeader"),
                )
                .env(
                    "GIT_CONFIG_VALUE_0",
                    format!(
                        "AUTHORIZATION: basic {}",
                        encode(&format!("x-access-token:{token}"))
                    ),
                );
        }
        _ => {
            cmd.env("GIT_CONFIG_COUNT", "0");
        }
    }
    let out = cmd.output().map_err(GitError::Spawn)?;
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(GitError::Failed(
            err.lines()
                .rfind(|l| !l.trim().is_empty())
                .unwrap_or("git failed")
                .trim()
                .to_string(),
        ))
    }
}

/// Resolves `rev` in `repo`, fetching it from `origin` when a shallow clone lacks it.
pub(crate) fn resolve_rev(repo: &Repository, rev: &str) -> Result<Oid, CheckoutError> {
    let peel = |r: &Repository, spec: &str| {
        r.revparse_single(spec)
            .and_then(|o| o.peel_to_commit())
            .map(|c| c.id())
    };
    if let Ok(id) = peel(repo, rev) {
        return Ok(id);
    }
    let workdir = repo.workdir().unwrap_or_else(|| repo.path()).to_path_buf();
    let origin_url = repo
        .find_remote("origin")
        .ok()
        .map(|r| r.url().unwrap_or_default().to_string());
    let fetch_err = if let Some(origin_url) = origin_url {
        let (what, target) = match rev.strip_prefix("origin/") {
            Some(branch) => (
                format!("{branch}:refs/remotes/origin/{branch}"),
                rev.to_string(),
            ),
            None => (rev.to_string(), "FETCH_HEAD".to_string()),
        };
        match git(
            &workdir,
            &[
                "fetch",
                "--no-tags",
                "--quiet",
                "--end-of-options",
                "origin",
                &what,
            ],
            Some(&origin_url),
        ) {
            Ok(()) => match peel(repo, &target) {
                Ok(id) => return Ok(id),
                Err(e) => e.message().to_string(),
            },
            Err(e) => e.to_string(),
        }
    } else {
        String::new()
    };
    Err(CheckoutError::NoRevision {
        rev: rev.to_string(),
        repo: workdir.display().to_string(),
        fetch: if fetch_err.is_empty() {
            String::new()
        } else {
            format!(" (fetching it from origin failed: {fetch_err})")
        },
    })
}

/// One file of a tree to write.
struct Entry {
    path: PathBuf,
    oid: Oid,
    mode: i32,
}

/// The files and folders of a commit's tree.
struct TreeEntries {
    files: Vec<Entry>,
    dirs: Vec<PathBuf>,
    /// Some name is not UTF-8.
    unnamed: bool,
}

/// The most entries (files, folders, links, submodules) one tree may hold, counted over all
/// its folders: a tree can name one subtree many times, so a few hundred bytes of objects
/// can stand for billions of files.
pub const MAX_TREE_ENTRIES: usize = 1_000_000;

impl TreeEntries {
    /// Walks the tree of `commit`, checking every entry as git's fsck does
    /// ([`names::check`]) and refusing duplicate names within a folder, before anything of
    /// it is written or listed.
    fn of(repo: &Repository, commit: Oid) -> Result<TreeEntries, CheckoutError> {
        use std::os::unix::ffi::OsStrExt;
        let fail = CheckoutError::Repository;
        let tree = repo
            .find_commit(commit)
            .and_then(|c| c.tree())
            .map_err(fail)?;
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        let mut unnamed = false;
        let mut count = 0usize;
        let mut stack = vec![(PathBuf::new(), tree)];
        while let Some((dir, tree)) = stack.pop() {
            let mut seen = HashSet::new();
            for e in tree.iter() {
                let name = e.name_bytes();
                let rel = dir.join(std::ffi::OsStr::from_bytes(name));
                let bad = |why: names::BadName| CheckoutError::BadTreeEntry {
                    commit: commit.to_string(),
                    path: String::from_utf8_lossy(rel.as_os_str().as_bytes()).into_owned(),
                    why,
                };
                names::check(name, e.filemode_raw(), rel.as_os_str().len()).map_err(bad)?;
                if !seen.insert(name.to_vec()) {
                    return Err(bad(names::BadName::Duplicate));
                }
                count += 1;
                if count > MAX_TREE_ENTRIES {
                    return Err(CheckoutError::TreeTooLarge {
                        commit: commit.to_string(),
                        limit: MAX_TREE_ENTRIES,
                    });
                }
                unnamed |= std::str::from_utf8(name).is_err();
                match e.kind() {
                    Some(ObjectType::Blob) => files.push(Entry {
                        path: rel,
                        oid: e.id(),
                        mode: e.filemode(),
                    }),
                    Some(ObjectType::Tree) => {
                        let sub = repo.find_tree(e.id()).map_err(fail)?;
                        dirs.push(rel.clone());
                        stack.push((rel, sub));
                    }
                    // Submodules (commits) are not part of the tree's content.
                    _ => {}
                }
            }
        }
        Ok(TreeEntries {
            files,
            dirs,
            unnamed,
        })
    }

    /// Whether the tree must be written out to be read as it always was: it holds a symbolic
    /// link (a tree read from git resolves paths by name only) or a name that is not UTF-8
    /// (the listing keys are UTF-8; writing such a tree fails as it always did).
    fn needs_folder(&self) -> bool {
        self.unnamed || self.files.iter().any(|e| e.mode == 0o120000)
    }

    /// The regular files and folders with UTF-8 paths (a name that is not UTF-8 was walked
    /// as empty, leaving its folder's path with a trailing `/`, or nothing: left out).
    fn listing(&self) -> TreeListing {
        let text = |p: &Path| {
            p.to_str()
                .map(str::to_string)
                .filter(|s| !s.is_empty() && !s.ends_with('/'))
        };
        TreeListing {
            files: self
                .files
                .iter()
                .filter(|e| e.mode == 0o100644 || e.mode == 0o100755)
                .filter_map(|e| Some((text(&e.path)?, e.oid)))
                .collect(),
            dirs: self.dirs.iter().filter_map(|d| text(d)).collect(),
        }
    }
}

/// Writes the tree of `commit` into `dest` (which must exist), blobs in parallel.
fn write_tree(repo_path: &Path, commit: Oid, dest: &Path) -> Result<usize, CheckoutError> {
    let repo = Repository::open(repo_path).map_err(CheckoutError::Repository)?;
    write_entries(repo_path, &TreeEntries::of(&repo, commit)?, dest)
}

/// The largest blob judge-ci writes out of a tree.
pub const MAX_BLOB_BYTES: u64 = 512 << 20;
/// The most bytes judge-ci writes out of one tree.
pub const MAX_TREE_BYTES: u64 = 8 << 30;

/// Refuses, before anything is written, a tree with a blob over [`MAX_BLOB_BYTES`] or more
/// than [`MAX_TREE_BYTES`] in all: a commit of a few megabytes can hold gigabytes of zeros,
/// which would fill the runner's disk. Sizes come from the object headers (nothing inflated).
fn check_sizes(repo_path: &Path, entries: &[Entry]) -> Result<(), CheckoutError> {
    let repo = Repository::open(repo_path).map_err(CheckoutError::Repository)?;
    let odb = repo.odb().map_err(CheckoutError::Repository)?;
    let mut total = 0u64;
    for e in entries {
        let (size, _) = odb.read_header(e.oid).map_err(CheckoutError::Repository)?;
        let size = size as u64;
        total = total.saturating_add(size);
        if size > MAX_BLOB_BYTES || total > MAX_TREE_BYTES {
            return Err(CheckoutError::TooLarge {
                path: e.path.to_string_lossy().into_owned(),
                size,
                blob_limit: MAX_BLOB_BYTES,
                tree_limit: MAX_TREE_BYTES,
            });
        }
    }
    Ok(())
}

/// Writes walked tree entries into `dest`.
fn write_entries(
    repo_path: &Path,
    tree: &TreeEntries,
    dest: &Path,
) -> Result<usize, CheckoutError> {
    let TreeEntries {
        files: entries,
        dirs,
        ..
    } = tree;
    check_sizes(repo_path, entries)?;
    for d in dirs {
        std::fs::create_dir_all(dest.join(d)).map_err(|source| CheckoutError::Io {
            action: "create",
            path: d.clone(),
            source,
        })?;
    }
    entries
        .par_iter()
        .map_init(
            || Repository::open(repo_path),
            |repo, e| -> Result<(), CheckoutError> {
                let repo = repo.as_ref().map_err(|err| {
                    CheckoutError::Repository(git2::Error::new(
                        err.code(),
                        err.class(),
                        err.message(),
                    ))
                })?;
                let blob = repo.find_blob(e.oid).map_err(CheckoutError::Repository)?;
                let target = dest.join(&e.path);
                let io = |source: std::io::Error| CheckoutError::Io {
                    action: "write",
                    path: e.path.clone(),
                    source,
                };
                if e.mode == 0o120000 {
                    let link = String::from_utf8_lossy(blob.content()).into_owned();
                    std::os::unix::fs::symlink(link, &target).map_err(io)?;
                } else {
                    // A fresh file, never through a link or over what is there.
                    use std::io::Write;
                    use std::os::unix::fs::OpenOptionsExt;
                    let mode = if e.mode == 0o100755 { 0o755 } else { 0o644 };
                    std::fs::OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .mode(mode)
                        .custom_flags(libc::O_NOFOLLOW)
                        .open(&target)
                        .and_then(|mut f| f.write_all(blob.content()))
                        .map_err(io)?;
                    if e.mode == 0o100755 {
                        use std::os::unix::fs::PermissionsExt;
                        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755))
                            .map_err(io)?;
                    }
                }
                Ok(())
            },
        )
        .collect::<Result<(), CheckoutError>>()?;
    Ok(entries.len())
}

fn temp_dir(
    keep: bool,
    prefix: &str,
) -> Result<(PathBuf, Option<scratch::Scratch>), CheckoutError> {
    let t = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(CheckoutError::TempDir)?;
    if keep {
        let p = t.keep();
        Ok((p, None))
    } else {
        Ok((t.path().to_path_buf(), Some(scratch::Scratch::new(t))))
    }
}

/// Materialises a source, every file written. `repo_dir` is where a revision's repository is
/// looked for; `keep` leaves temporary folders behind (`--keep-checkouts`).
pub fn materialize(
    source: &Source,
    repo_dir: &Path,
    keep: bool,
) -> Result<Checkout, CheckoutError> {
    materialize_as(source, repo_dir, keep, Contents::Written)
}

/// Writes a revision's tree into its folder unless `want` is [`Contents::InGit`] and the tree
/// can be read from git as it would be from the folder (it holds no symbolic link) and is not
/// to be kept (`keep`, a folder the user wants to look at).
fn write_unless(
    repo_path: &Path,
    commit: Oid,
    dest: &Path,
    keep: bool,
    want: Contents,
) -> Result<(Contents, Option<Arc<TreeListing>>), CheckoutError> {
    let repo = Repository::open(repo_path).map_err(CheckoutError::Repository)?;
    let tree = TreeEntries::of(&repo, commit)?;
    if want == Contents::InGit && !keep && !tree.needs_folder() {
        return Ok((Contents::InGit, Some(Arc::new(tree.listing()))));
    }
    write_entries(repo_path, &tree, dest)?;
    Ok((Contents::Written, None))
}

/// Materialises a source; for a revision, `want` says whether its files are written into
/// the folder or left in git ([`Contents`]). A folder source is used as it is.
pub fn materialize_as(
    source: &Source,
    repo_dir: &Path,
    keep: bool,
    want: Contents,
) -> Result<Checkout, CheckoutError> {
    match source {
        Source::Folder(p) => {
            if !p.is_dir() {
                return Err(CheckoutError::NoFolder(p.clone()));
            }
            let path = p.canonicalize().map_err(|source| CheckoutError::Io {
                action: "read",
                path: p.clone(),
                source,
            })?;
            Ok(Checkout {
                path,
                commit: None,
                label: p.display().to_string(),
                git_dir: None,
                contents: Contents::Written,
                listing: None,
                made: Vec::new(),
                _temp: None,
                _git_temp: None,
            })
        }
        Source::Rev(rev) => {
            check_rev(rev)?;
            let repo = Repository::discover(repo_dir).map_err(|_| CheckoutError::NoRepository {
                rev: rev.clone(),
                dir: repo_dir.display().to_string(),
            })?;
            let id = resolve_rev(&repo, rev)?;
            let (path, temp) = temp_dir(keep, "judge-ci-rev-")?;
            let (contents, listing) = write_unless(repo.path(), id, &path, keep, want)?;
            let made = vec![path.clone()];
            Ok(Checkout {
                path,
                commit: Some(id.to_string()),
                label: rev.clone(),
                git_dir: Some(repo.path().to_path_buf()),
                contents,
                listing,
                made,
                _temp: temp,
                _git_temp: None,
            })
        }
        Source::Remote { url, rev } => {
            let (git_dir, git_temp) = temp_dir(false, "judge-ci-remote-")?;
            Repository::init_bare(&git_dir).map_err(CheckoutError::Repository)?;
            check_remote(url)?;
            check_rev(rev)?;
            git(
                &git_dir,
                &[
                    "fetch",
                    "--no-tags",
                    "--quiet",
                    "--depth=1",
                    "--end-of-options",
                    url,
                    rev,
                ],
                Some(url),
            )
            .map_err(|e| CheckoutError::NoRevision {
                rev: rev.clone(),
                repo: url.clone(),
                fetch: format!(" (fetching failed: {e})"),
            })?;
            let repo = Repository::open_bare(&git_dir).map_err(CheckoutError::Repository)?;
            let id = resolve_rev(&repo, "FETCH_HEAD")?;
            let (path, temp) = temp_dir(keep, "judge-ci-rev-")?;
            let (contents, listing) = write_unless(&git_dir, id, &path, keep, want)?;
            let made = vec![path.clone(), git_dir.clone()];
            Ok(Checkout {
                path,
                commit: Some(id.to_string()),
                label: format!("{url}#{rev}"),
                made,
                git_dir: Some(git_dir),
                contents,
                listing,
                _temp: temp,
                _git_temp: git_temp,
            })
        }
    }
}

/// Writes a revision's tree into `dest` (created if missing; it must be empty), for
/// `judge-ci checkout`. Returns the commit and the number of files.
pub fn materialize_into(
    source: &Source,
    repo_dir: &Path,
    dest: &Path,
) -> Result<(String, usize), CheckoutError> {
    let rev = match source {
        Source::Rev(rev) => rev,
        Source::Folder(p) => {
            return Err(CheckoutError::FolderGiven(p.clone()));
        }
        Source::Remote { .. } => {
            let c = materialize(source, repo_dir, false)?;
            copy_tree(&c.path, dest)?;
            let n = walkdir::WalkDir::new(dest)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| !e.file_type().is_dir())
                .count();
            return Ok((c.commit.unwrap_or_default(), n));
        }
    };
    check_rev(rev)?;
    if dest.exists()
        && std::fs::read_dir(dest)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(CheckoutError::NotEmpty(dest.to_path_buf()));
    }
    std::fs::create_dir_all(dest).map_err(|source| CheckoutError::Io {
        action: "create",
        path: dest.to_path_buf(),
        source,
    })?;
    let repo = Repository::discover(repo_dir).map_err(|_| CheckoutError::NoRepository {
        rev: rev.clone(),
        dir: repo_dir.display().to_string(),
    })?;
    let id = resolve_rev(&repo, rev)?;
    let n = write_tree(repo.path(), id, dest)?;
    Ok((id.to_string(), n))
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), CheckoutError> {
    for e in walkdir::WalkDir::new(from).follow_links(false) {
        let e = e.map_err(CheckoutError::Walk)?;
        let rel = e.path().strip_prefix(from).unwrap_or(e.path());
        let target = to.join(rel);
        let io = |source: std::io::Error| CheckoutError::Io {
            action: "copy",
            path: rel.to_path_buf(),
            source,
        };
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&target).map_err(io)?;
        } else if e.file_type().is_symlink() {
            let link = std::fs::read_link(e.path()).map_err(io)?;
            std::os::unix::fs::symlink(link, &target).map_err(io)?;
        } else {
            std::fs::copy(e.path(), &target).map_err(io)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs git in `dir` with `input` on standard input, returning its trimmed output.
    fn git_in(dir: &Path, args: &[&str], input: &[u8]) -> String {
        use std::io::Write;
        let mut child = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "git {args:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    /// A raw tree object of `(mode, name, id)` entries, written as git's fsck would refuse
    /// it (`--literally`), and its id.
    fn raw_tree(dir: &Path, entries: &[(&str, &[u8], &str)]) -> String {
        let mut bytes = Vec::new();
        for (mode, name, id) in entries {
            bytes.extend_from_slice(mode.as_bytes());
            bytes.push(b' ');
            bytes.extend_from_slice(name);
            bytes.push(0);
            bytes.extend((0..20).map(|i| u8::from_str_radix(&id[2 * i..2 * i + 2], 16).unwrap()));
        }
        git_in(
            dir,
            &["hash-object", "-t", "tree", "--literally", "-w", "--stdin"],
            &bytes,
        )
    }

    /// A repository whose commit `head` has `tree`, built from raw entries.
    fn commit_of(dir: &Path, tree: &str) {
        let commit = git_in(
            dir,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit-tree",
                tree,
                "-m",
                "bad",
            ],
            b"",
        );
        git_in(dir, &["update-ref", "refs/heads/head", &commit], b"");
    }

    /// A head commit whose tree holds `..` (and the other names fsck refuses) is refused
    /// naming the entry, and nothing is written outside (or inside) its folder: the attack
    /// wrote `../victim/Greeter.java` over a folder beside the checkout.
    #[test]
    fn a_tree_entry_git_fsck_refuses_is_an_error_and_nothing_is_written() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        git_in(&repo, &["init", "-q"], b"");
        let blob = git_in(
            &repo,
            &["hash-object", "-w", "--stdin"],
            b"class Greeter {}\n",
        );
        let victim_dir = raw_tree(&repo, &[("100644", b"Greeter.java", &blob)]);
        let cases: Vec<(Vec<u8>, &str, &str)> = vec![
            (b"..".to_vec(), "40000", "hasDotdot"),
            (b".".to_vec(), "40000", "hasDot"),
            (b".GIT".to_vec(), "40000", "hasDotgit"),
            (b"git~1".to_vec(), "40000", "hasDotgit"),
            (".g\u{200d}it".as_bytes().to_vec(), "40000", "hasDotgit"),
            (b"a/b".to_vec(), "40000", "fullPathname"),
        ];
        for (name, mode, rule) in cases {
            // `<name>/victim/Greeter.java` and an ordinary file beside it.
            let up = raw_tree(&repo, &[("40000", b"victim", &victim_dir)]);
            let mut entries: Vec<(&str, &[u8], &str)> =
                vec![(mode, &name, &up), ("100644", b"ok.txt", &blob)];
            entries.sort_by(|a, b| a.1.cmp(b.1));
            let root = raw_tree(&repo, &entries);
            commit_of(&repo, &root);
            let tmp = tempfile::tempdir().unwrap();
            let got = tempfile::Builder::new()
                .prefix("judge-ci-rev-")
                .tempdir_in(tmp.path())
                .unwrap();
            let repo_git = Repository::open(&repo).unwrap();
            let id = repo_git.revparse_single("head").unwrap().id();
            let err = write_tree(repo_git.path(), id, got.path()).unwrap_err();
            let text = err.to_string();
            assert!(
                matches!(err, CheckoutError::BadTreeEntry { .. }) && text.contains(rule),
                "{text}"
            );
            assert!(
                text.contains(&format!("{:?}", String::from_utf8_lossy(&name).as_ref())),
                "{text}"
            );
            assert!(
                !tmp.path().join("victim").exists(),
                "written outside: {rule}"
            );
            assert_eq!(std::fs::read_dir(got.path()).unwrap().count(), 0, "{rule}");
            // Left in git, it is refused as well.
            assert!(
                matches!(
                    TreeListing::of(repo_git.path(), id),
                    Err(CheckoutError::BadTreeEntry { .. })
                ),
                "{rule}"
            );
        }
        // Duplicate names within one folder, a link and a file: the file would be written
        // through the link.
        let link = git_in(&repo, &["hash-object", "-w", "--stdin"], b"../../victim/x");
        let root = raw_tree(
            &repo,
            &[("100644", b"same", &blob), ("120000", b"same", &link)],
        );
        commit_of(&repo, &root);
        let repo_git = Repository::open(&repo).unwrap();
        let id = repo_git.revparse_single("head").unwrap().id();
        let got = tempfile::tempdir().unwrap();
        let err = write_tree(repo_git.path(), id, got.path()).unwrap_err();
        assert!(err.to_string().contains("duplicateEntries"), "{err}");
    }

    /// A blob past the bound is refused before anything is written (a 1 GiB blob of zeros
    /// costs about a megabyte in git).
    #[test]
    fn a_blob_larger_than_judge_ci_writes_is_refused_before_writing() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path();
        git_in(repo, &["init", "-q"], b"");
        let big = vec![0u8; MAX_BLOB_BYTES as usize + 1];
        let blob = git_in(repo, &["hash-object", "-w", "--stdin"], &big);
        drop(big);
        let small = git_in(repo, &["hash-object", "-w", "--stdin"], b"x");
        let tree = raw_tree(
            repo,
            &[("100644", b"a.txt", &small), ("100644", b"data.bin", &blob)],
        );
        commit_of(repo, &tree);
        let repo_git = Repository::open(repo).unwrap();
        let id = repo_git.revparse_single("head").unwrap().id();
        let got = tempfile::tempdir().unwrap();
        let err = write_tree(repo_git.path(), id, got.path()).unwrap_err();
        assert!(
            matches!(err, CheckoutError::TooLarge { .. }) && err.to_string().contains("data.bin"),
            "{err}"
        );
        assert_eq!(std::fs::read_dir(got.path()).unwrap().count(), 0);
    }

    /// A tree naming one subtree many times stands for more entries than are read: an
    /// error naming the bound, before anything is written.
    #[test]
    fn a_tree_that_names_one_subtree_many_times_is_bounded() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path();
        git_in(repo, &["init", "-q"], b"");
        let blob = git_in(repo, &["hash-object", "-w", "--stdin"], b"x");
        let names: Vec<Vec<u8>> = (0..16).map(|i| format!("{i:02}").into_bytes()).collect();
        let mut tree = raw_tree(repo, &[("100644", b"f", &blob)]);
        // 16^5 > MAX_TREE_ENTRIES.
        for _ in 0..5 {
            let entries: Vec<(&str, &[u8], &str)> = names
                .iter()
                .map(|n| ("40000", n.as_slice(), tree.as_str()))
                .collect();
            tree = raw_tree(repo, &entries);
        }
        commit_of(repo, &tree);
        let repo_git = Repository::open(repo).unwrap();
        let id = repo_git.revparse_single("head").unwrap().id();
        let got = tempfile::tempdir().unwrap();
        let err = write_tree(repo_git.path(), id, got.path()).unwrap_err();
        assert!(
            err.to_string().contains(&MAX_TREE_ENTRIES.to_string()),
            "{err}"
        );
        assert_eq!(std::fs::read_dir(got.path()).unwrap().count(), 0);
    }

    #[test]
    fn remotes_and_revisions_that_git_would_misread_are_refused() {
        for option_like in ["--upload-pack=touch /tmp/x", "-"] {
            assert!(
                matches!(check_rev(option_like), Err(GitArgError::RevisionLikeOption(r)) if r == option_like)
            );
        }
        assert!(check_rev("origin/solution").is_ok());
        assert!(matches!(
            check_remote("--upload-pack=touch /tmp/pwned"),
            Err(GitArgError::RepositoryLikeOption(_))
        ));
        for helper in ["ext::sh -c touch% /tmp/pwned", "fd::17"] {
            assert!(
                matches!(check_remote(helper), Err(GitArgError::TransportHelper(_))),
                "{helper}"
            );
        }
        for (bad, want) in [
            ("http://127.0.0.1:8080/x.git", "http"),
            ("git://example.com/x.git", "git"),
            ("ftp://example.com/x.git", "ftp"),
        ] {
            assert!(
                matches!(check_remote(bad), Err(GitArgError::Scheme { scheme, .. }) if scheme == want),
                "{bad}"
            );
        }
        for good in [
            "https://github.com/o/r.git",
            "ssh://git@github.com/o/r.git",
            "git@github.com:o/r.git",
            "/srv/git/r.git",
            "../r",
            "file:///srv/git/r.git",
        ] {
            assert!(check_remote(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn the_token_goes_only_to_the_runs_server_over_https() {
        let gh = Some("github.com");
        assert!(token_may_go_to("https://github.com/o/r.git", gh));
        assert!(token_may_go_to("https://GitHub.com/o/r", gh));
        assert!(!token_may_go_to("http://github.com/o/r.git", gh));
        assert!(!token_may_go_to(
            "https://github.com.attacker.example/o/r",
            gh
        ));
        assert!(!token_may_go_to(
            "https://attacker.example/github.com/o/r",
            gh
        ));
        assert!(!token_may_go_to("https://user@github.com/o/r", gh));
        assert!(!token_may_go_to("git@github.com:o/r.git", gh));
        assert!(!token_may_go_to("/srv/r.git", gh));
        assert!(!token_may_go_to("https://github.com/o/r.git", None));
        assert!(token_may_go_to(
            "https://ghe.example.com/o/r.git",
            Some("ghe.example.com")
        ));
    }

    #[test]
    fn sources_parse() {
        let here = tempfile::tempdir().unwrap();
        assert_eq!(
            Source::parse(here.path().to_str().unwrap()),
            Source::Folder(here.path().to_path_buf())
        );
        assert_eq!(
            Source::parse("origin/solution"),
            Source::Rev("origin/solution".into())
        );
        assert_eq!(Source::parse("v1.2"), Source::Rev("v1.2".into()));
        assert_eq!(
            Source::parse("https://github.com/a/b.git#main"),
            Source::Remote {
                url: "https://github.com/a/b.git".into(),
                rev: "main".into()
            }
        );
        assert_eq!(
            Source::parse("./missing"),
            Source::Folder(PathBuf::from("./missing"))
        );
    }
}
