//! Git-aware file selection: which files of the two trees are byte-identical, decided from what
//! git already knows, so that identical files are neither read nor hashed.
//!
//! A side of a comparison has known content ids (git blob ids) when it is
//! - a commit's tree that judge-ci materialised itself (`--reference REV`, `--head REV`,
//!   `URL#REV`): each file's id is the tree entry's;
//! - the workspace folder as a git working tree, when the reference is a revision: a file's id
//!   is its index entry's when the file's stat data still matches that entry, exactly as
//!   `git status` decides it (size, mtime, ctime, inode, owner; racily clean entries, flagged
//!   entries — assume-unchanged, skip-worktree, intent-to-add, conflicts — never trusted).
//!
//! Two files with known, equal ids are identical without reading them; known, different ids
//! differ; anything else is read and compared byte by byte as for two plain folders, so the
//! listing is the one the folder walk gives (tested on the bundled pairs and a generated
//! repository).
//!
//! What is trusted, and why (the workspace is hostile, spec/trust.md):
//! - The index is read into memory when the run starts ([`Sides::register`]), before any subject
//!   process runs; a build that rewrites `.git/index` later changes nothing. The index as it
//!   was when judge-ci started is trusted, as git itself trusts it: a job that runs PR code
//!   *before* judge-ci can forge it (then judge with `--head REV`: both sides are commits).
//! - A file's ctime is kept by the kernel: any write, rename, link or `utime` sets it to now,
//!   and an unprivileged process cannot set it back. So a file changed after the index was
//!   read (or after judge-ci materialised a revision) no longer matches, whatever size and
//!   mtime it fakes. A file whose ctime is within [`RACY_MARGIN`] of the registration (the
//!   kernel's coarse clock lags by up to a tick) is never trusted; nor is an index entry whose
//!   mtime is not older than the index file (git's racy-git rule).
//! - Blob ids are SHA-1 with collision detection (libgit2's default), as git itself uses them
//!   for content identity. Commits and trees are read from the object database by id, which
//!   checks every object's hash.

use git2::{Oid, Repository};
use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::materialize::{Checkout, Contents, TreeListing};

/// How far behind the precise clock the kernel's coarse clock (which stamps ctime) may be:
/// a file whose ctime is this close to the registration is read, never trusted.
pub const RACY_MARGIN: Duration = Duration::from_millis(20);

/// A point in time as the file system stamps it: seconds and nanoseconds since the epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time {
    /// Seconds since the epoch.
    pub secs: i64,
    /// Nanoseconds within the second.
    pub nanos: u32,
}

impl Time {
    /// The time `t` as the file system stamps it.
    pub fn of(t: SystemTime) -> Time {
        let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
        Time {
            secs: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            nanos: d.subsec_nanos(),
        }
    }
}

/// What the walk of a tree learns of one regular file (an `lstat`): enough to tell whether
/// a remembered comparison or a git index entry still holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stat {
    /// Size in bytes.
    pub len: u64,
    /// Last modification.
    pub mtime: Time,
    /// Last status change (kept by the kernel).
    pub ctime: Time,
    /// Inode number.
    pub ino: u64,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
}

impl Stat {
    /// The stat data of a file's metadata.
    pub fn of(m: &std::fs::Metadata) -> Stat {
        let t = |secs: i64, nanos: i64| Time {
            secs,
            nanos: u32::try_from(nanos).unwrap_or(0),
        };
        Stat {
            len: m.len(),
            mtime: t(m.mtime(), m.mtime_nsec()),
            ctime: t(m.ctime(), m.ctime_nsec()),
            ino: m.ino(),
            uid: m.uid(),
            gid: m.gid(),
        }
    }
}

/// One index entry's stat data and id, as read when the run started.
#[derive(Clone, Debug)]
struct Entry {
    id: Oid,
    size: u32,
    mtime: (i32, u32),
    ctime: (i32, u32),
    ino: u32,
    uid: u32,
    gid: u32,
}

/// `assume-unchanged`: git itself would not look at the file.
const FLAG_VALID: u16 = 0x8000;
/// The merge stage bits: a conflicted entry.
const FLAG_STAGE: u16 = 0x3000;
/// `intent-to-add` (extended flag): the entry's id is the empty blob's.
const EXT_INTENT_TO_ADD: u16 = 1 << 13;
/// `skip-worktree` (extended flag): the working tree file is not what the entry says.
const EXT_SKIP_WORKTREE: u16 = 1 << 14;

/// A working tree's index, read before any subject code ran.
#[derive(Debug)]
pub struct WorkTree {
    /// Index entries by path relative to the judged folder.
    entries: HashMap<String, Entry>,
    /// The index file's mtime when it was read (git's racy-git rule).
    index_mtime: Time,
    /// When the index was read.
    registered: Time,
}

impl WorkTree {
    /// Reads the index of the git working tree holding `folder` (which may be the working
    /// tree's root or a folder inside it). `None` when `folder` is not in a working tree or
    /// the index cannot be read: the folder is then compared as a plain folder.
    pub fn capture(folder: &Path) -> Option<WorkTree> {
        let repo = Repository::discover(folder).ok()?;
        let workdir = repo.workdir()?.canonicalize().ok()?;
        let folder = folder.canonicalize().ok()?;
        let prefix = folder.strip_prefix(&workdir).ok()?.to_str()?.to_string();
        let prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!("{}/", prefix.replace('\\', "/"))
        };
        // The index file's time first: an index rewritten between this and the read below
        // only makes more entries racy, never fewer.
        let index_mtime = Stat::of(&std::fs::metadata(repo.path().join("index")).ok()?).mtime;
        let index = repo.index().ok()?;
        let mut entries = HashMap::new();
        for e in index.iter() {
            let trusted_flags = e.flags & (FLAG_VALID | FLAG_STAGE) == 0
                && e.flags_extended & (EXT_INTENT_TO_ADD | EXT_SKIP_WORKTREE) == 0
                && (e.mode == 0o100644 || e.mode == 0o100755);
            if !trusted_flags {
                continue;
            }
            let Ok(path) = std::str::from_utf8(&e.path) else {
                continue;
            };
            let Some(rel) = path.strip_prefix(prefix.as_str()) else {
                continue;
            };
            entries.insert(
                rel.to_string(),
                Entry {
                    id: e.id,
                    size: e.file_size,
                    mtime: (e.mtime.seconds(), e.mtime.nanoseconds()),
                    ctime: (e.ctime.seconds(), e.ctime.nanoseconds()),
                    ino: e.ino,
                    uid: e.uid,
                    gid: e.gid,
                },
            );
        }
        Some(WorkTree {
            entries,
            index_mtime,
            registered: Time::of(SystemTime::now()),
        })
    }

    /// The blob id of `rel` when the index vouches for the file's content: its stat data
    /// matches the entry as `git status` requires, and the entry is not racily clean.
    fn id(&self, rel: &str, stat: &Stat) -> Option<Oid> {
        let e = self.entries.get(rel)?;
        // Git keeps 32 bits of each of these; it compares them truncated the same way.
        let same_time = |index: (i32, u32), file: Time| {
            index.0 == file.secs as i32 && (index.1 == file.nanos || index.1 == 0)
        };
        let matches = e.size == stat.len as u32
            && same_time(e.mtime, stat.mtime)
            && same_time(e.ctime, stat.ctime)
            && e.ino == stat.ino as u32
            && e.uid == stat.uid
            && e.gid == stat.gid;
        let entry_mtime = Time {
            secs: i64::from(e.mtime.0),
            nanos: e.mtime.1,
        };
        let racy = entry_mtime >= self.index_mtime;
        (matches && !racy && settled(stat, self.registered)).then_some(e.id)
    }
}

/// Whether a file's ctime is old enough, at `registered`, that any later change would have
/// moved it: ctime is set by the kernel's coarse clock, which may lag by a tick.
pub(super) fn settled(stat: &Stat, registered: Time) -> bool {
    let margin = RACY_MARGIN.as_nanos() as i128;
    let ns = |t: Time| i128::from(t.secs) * 1_000_000_000 + i128::from(t.nanos);
    ns(stat.ctime) + margin < ns(registered)
}

/// A commit's tree that judge-ci materialised into a folder of its own, or left in git
/// ([`Contents::InGit`]: the folder is empty and the structural judges read the tree from
/// here, see [`super::tree`]).
pub struct Commit {
    git_dir: PathBuf,
    commit: Oid,
    /// Whether the files are in the folder.
    contents: Contents,
    /// The tree's regular files and folders (read on first use; when the files stay in git,
    /// as walked when the revision was resolved, before any subject code ran).
    index: OnceLock<Arc<TreeListing>>,
    /// When the materialised folder was complete.
    registered: Time,
    /// Opened repositories, for reading blobs from several threads.
    repos: Mutex<Vec<Repository>>,
}

impl std::fmt::Debug for Commit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Commit")
            .field("git_dir", &self.git_dir)
            .field("commit", &self.commit)
            .field("contents", &self.contents)
            .finish_non_exhaustive()
    }
}

impl Commit {
    /// The tree of `commit` in the repository at `git_dir`, materialised into a folder whose
    /// files were all written more than [`RACY_MARGIN`] before this call, or left in git.
    pub fn new(
        git_dir: PathBuf,
        commit: Oid,
        contents: Contents,
        listing: Option<Arc<TreeListing>>,
    ) -> Commit {
        let index = OnceLock::new();
        let listing = listing.or_else(|| {
            (contents == Contents::InGit)
                .then(|| Arc::new(TreeListing::of(&git_dir, commit).unwrap_or_default()))
        });
        if let Some(l) = listing {
            let _ = index.set(l);
        }
        Commit {
            git_dir,
            commit,
            contents,
            index,
            registered: Time::of(SystemTime::now()),
            repos: Mutex::new(Vec::new()),
        }
    }

    fn index(&self) -> &TreeListing {
        self.index.get_or_init(|| {
            Arc::new(TreeListing::of(&self.git_dir, self.commit).unwrap_or_default())
        })
    }

    fn id(&self, rel: &str, stat: &Stat) -> Option<Oid> {
        let id = *self.index().files.get(rel)?;
        match self.contents {
            Contents::Written => settled(stat, self.registered).then_some(id),
            // Nothing on disk to change: the id is the content.
            Contents::InGit => Some(id),
        }
    }

    /// Whether the tree's files stay in git (its folder is empty).
    pub fn in_git(&self) -> bool {
        self.contents == Contents::InGit
    }

    /// The tree's regular files (path → blob id).
    pub fn files(&self) -> impl Iterator<Item = (&str, Oid)> {
        self.index().files.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// The blob id of the regular file `rel`.
    pub fn blob(&self, rel: &str) -> Option<Oid> {
        self.index().files.get(rel).copied()
    }

    /// Whether `rel` (`/`-separated, normalised) is a regular file of the tree.
    pub fn is_file(&self, rel: &str) -> bool {
        self.index().files.contains_key(rel)
    }

    /// Whether `rel` (`/`-separated, normalised; empty for the root) is a folder of the tree.
    pub fn is_dir(&self, rel: &str) -> bool {
        rel.is_empty() || self.index().dirs.contains(rel)
    }

    /// The bytes of the regular file `rel`, up to `limit` (a larger blob is refused with the
    /// same words as a larger file on disk). The object database checks each object's hash
    /// as it reads it.
    pub fn read(&self, rel: &str, limit: u64) -> Result<Vec<u8>, crate::judges::paths::FileError> {
        use crate::judges::paths::FileError;
        let id = *self.index().files.get(rel).ok_or_else(FileError::missing)?;
        let fail = |source: git2::Error| FileError::Git {
            rel: rel.to_string(),
            source,
        };
        let pooled = self.repos.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let repo = match pooled {
            Some(r) => r,
            None => Repository::open(&self.git_dir).map_err(fail)?,
        };
        let read = || -> Result<Vec<u8>, FileError> {
            let (size, _) = repo.odb().and_then(|o| o.read_header(id)).map_err(fail)?;
            if size as u64 > limit {
                return Err(FileError::TooLarge {
                    size: format!("{size} bytes"),
                    limit,
                });
            }
            Ok(repo.find_blob(id).map_err(fail)?.content().to_vec())
        };
        let out = read();
        self.repos
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(repo);
        out
    }
}

/// A copy judge-ci made of files whose ids git vouched for in the original (the snapshot of
/// the workspace as submitted): each copied file's id, and its stat data once written.
#[derive(Debug)]
pub struct Copy {
    files: HashMap<String, (Oid, Stat)>,
    registered: Time,
}

impl Copy {
    /// The copy of files with known ids: `files` gives, per path, the original's id and the
    /// copy's path. Waits out the coarse clock's lag, then reads each copy's stat data, so
    /// that any later change to a copy shows in its ctime.
    pub fn new(files: Vec<(String, Oid, PathBuf)>) -> Copy {
        std::thread::sleep(RACY_MARGIN + Duration::from_millis(5));
        let registered = Time::of(SystemTime::now());
        let files = files
            .into_iter()
            .filter_map(|(rel, id, path)| {
                let m = std::fs::symlink_metadata(&path).ok()?;
                m.is_file().then(|| (rel, (id, Stat::of(&m))))
            })
            .collect();
        Copy { files, registered }
    }

    fn id(&self, rel: &str, stat: &Stat) -> Option<Oid> {
        let (id, copied) = self.files.get(rel)?;
        (copied == stat && settled(stat, self.registered)).then_some(*id)
    }
}

/// A side of the comparison whose content ids git knows.
#[derive(Clone, Debug)]
pub enum Side {
    /// A commit's tree materialised by judge-ci.
    Commit(Arc<Commit>),
    /// A git working tree, with its index as read when the run started.
    WorkTree(Arc<WorkTree>),
    /// judge-ci's copy of files of another side.
    Copy(Arc<Copy>),
}

impl Side {
    /// The blob id of `rel`, a regular file of the side's folder with stat data `stat`,
    /// when git vouches for its content; `None` when the file must be read.
    pub fn id(&self, rel: &str, stat: &Stat) -> Option<Oid> {
        match self {
            Side::Commit(c) => c.id(rel, stat),
            Side::WorkTree(w) => w.id(rel, stat),
            Side::Copy(c) => c.id(rel, stat),
        }
    }
}

/// What git knows of the folders of one run (its workspace, reference, snapshot), by folder.
/// Owned by the run (in [`super::Comparisons`]): concurrent runs never see each other's.
#[derive(Debug, Default)]
pub struct Sides(Mutex<HashMap<PathBuf, Side>>);

impl Sides {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Side>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers what git knows of the workspace and the reference of a run, before any
    /// subject code runs: a materialised revision (either side) by its tree; the workspace
    /// folder as a working tree when the reference is a revision (a folder-against-folder
    /// run reads both trees as it always did).
    pub fn register(&self, workspace: &Checkout, reference: Option<&Checkout>) {
        let Some(reference) = reference else {
            return;
        };
        type Known = (PathBuf, Oid, Contents, Option<Arc<TreeListing>>);
        let of = |c: &Checkout| -> Option<Known> {
            Some((
                c.git_dir.clone()?,
                Oid::from_str(c.commit.as_deref()?).ok()?,
                c.contents,
                c.listing.clone(),
            ))
        };
        let Some(reference_tree) = of(reference) else {
            return;
        };
        // Every file judge-ci materialised was written before now; waiting out the coarse
        // clock's lag lets all of them be trusted while any later change still shows in its
        // ctime. (A tree left in git has no files to wait for; a working tree has its own
        // racy rule.)
        let written = |c: &Checkout| c.commit.is_some() && c.contents == Contents::Written;
        if written(reference) || written(workspace) {
            std::thread::sleep(RACY_MARGIN + Duration::from_millis(5));
        }
        let commit_side = |(git_dir, id, contents, listing): Known| {
            Side::Commit(Arc::new(Commit::new(git_dir, id, contents, listing)))
        };
        let r = commit_side(reference_tree);
        let w = of(workspace)
            .map(commit_side)
            .or_else(|| WorkTree::capture(&workspace.path).map(|w| Side::WorkTree(Arc::new(w))));
        let mut sides = self.lock();
        sides.insert(reference.path.clone(), r);
        if let Some(w) = w {
            sides.insert(workspace.path.clone(), w);
        }
    }

    /// Registers one side for `folder` directly (the snapshot, tests).
    pub fn register_side(&self, folder: &Path, side: Side) {
        self.lock().insert(folder.to_path_buf(), side);
    }

    /// What git knows of `folder`, when it was registered.
    pub fn side_of(&self, folder: &Path) -> Option<Side> {
        self.lock().get(folder).cloned()
    }

    /// What git knows of the two folders of a comparison, when it knows both.
    pub fn sides(&self, workspace: &Path, reference: &Path) -> Option<(Side, Side)> {
        let sides = self.lock();
        Some((sides.get(workspace)?.clone(), sides.get(reference)?.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::checks::FileSet;
    use crate::judges::structural::{Comparisons, Listing, list, list_in};
    use crate::materialize::{Source, materialize};

    use crate::test_support::{git, write};

    /// Sets a file's mtime an hour back, so that the index written next is not racy for it.
    fn age(root: &Path, rel: &str) {
        let f = std::fs::File::options()
            .write(true)
            .open(root.join(rel))
            .unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
    }

    /// Overwrites a file with different bytes of the same size and puts its mtime back: stat
    /// data that lies about the content, except for the ctime the kernel keeps.
    fn lie(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        let before = std::fs::metadata(&p).unwrap();
        assert_eq!(before.len(), text.len() as u64);
        std::fs::write(&p, text).unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(before.modified().unwrap()).unwrap();
        let after = std::fs::metadata(&p).unwrap();
        assert_eq!(
            (after.len(), after.mtime(), after.mtime_nsec(), after.ino()),
            (
                before.len(),
                before.mtime(),
                before.mtime_nsec(),
                before.ino()
            )
        );
    }

    fn java(name: &str, body: &str) -> String {
        format!("package p;\nimport java.util.List;\npublic class {name} {{ {body} }}\n")
    }

    fn all() -> FileSet {
        FileSet {
            include: vec!["**/*".into()],
            exclude: Vec::new(),
        }
    }

    fn sorted(l: &Listing) -> (Vec<String>, Vec<String>, Vec<String>, Vec<String>) {
        let mut identical: Vec<String> = l.identical.iter().cloned().collect();
        identical.sort();
        (
            l.both.clone(),
            l.only_reference.clone(),
            l.only_workspace.clone(),
            identical,
        )
    }

    /// Every file of the pair listed, with fresh comparisons.
    fn listed(sides: &Arc<Sides>, ws: &Path, rf: &Path) -> std::sync::Arc<Listing> {
        list(&Comparisons::new(Arc::clone(sides), None), ws, rf, &all()).unwrap()
    }

    /// The listing of a pair read as two folders and decided from git, which must agree;
    /// returns the files git vouched for.
    fn both_ways(sides: &Arc<Sides>, ws: &Path, rf: &Path) -> Vec<String> {
        // A fresh set of comparisons each way, so neither listing reuses the other's.
        let fresh = || Comparisons::new(Arc::clone(sides), None);
        let git = sides.sides(ws, rf);
        let by_folder = list_in(&fresh(), ws, rf, &all(), None).unwrap();
        let by_git = list_in(&fresh(), ws, rf, &all(), git).unwrap();
        assert_eq!(sorted(&by_git), sorted(&by_folder));
        let mut v: Vec<String> = by_git.by_git.iter().cloned().collect();
        v.sort();
        v
    }

    /// A repository whose tag `ref` is the reference and whose working tree is the workspace:
    /// unchanged, committed and uncommitted changes, a file whose stat data lies, touched,
    /// assume-unchanged, untracked, ignored and deleted files.
    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        let files = [
            ("src/p/Same.java", java("Same", "")),
            ("src/p/Committed.java", java("Committed", "int a;")),
            ("src/p/Edited.java", java("Edited", "int a;")),
            ("src/p/Lying.java", java("Lying", "int a;")),
            ("src/p/Touched.java", java("Touched", "int a;")),
            ("src/p/Assumed.java", java("Assumed", "int a;")),
            ("src/p/Ignored.java", java("Ignored", "int a;")),
            ("src/p/Gone.java", java("Gone", "")),
            (
                "pom.xml",
                "<project><version>1</version></project>\n".into(),
            ),
        ];
        for (rel, text) in &files {
            write(d, rel, text);
        }
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "reference"]);
        git(d, &["tag", "ref"]);
        write(d, "src/p/Committed.java", &java("Committed", "int b;"));
        write(d, ".gitignore", "src/p/Ignored.java\n");
        std::fs::remove_file(d.join("src/p/Gone.java")).unwrap();
        write(d, "src/p/Ignored.java", &java("Ignored", "int b;"));
        for (rel, _) in &files {
            if d.join(rel).exists() {
                age(d, rel);
            }
        }
        git(d, &["rm", "-q", "--cached", "src/p/Ignored.java"]);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "workspace"]);
        // After the index was written: an edit, a lie, a touch, an assume-unchanged edit,
        // an untracked file.
        write(d, "src/p/Edited.java", &java("Edited", "int b; int c;"));
        lie(d, "src/p/Lying.java", &java("Lying", "int b;"));
        age(d, "src/p/Touched.java");
        git(
            d,
            &["update-index", "--assume-unchanged", "src/p/Assumed.java"],
        );
        lie(d, "src/p/Assumed.java", &java("Assumed", "int b;"));
        write(d, "src/p/Untracked.java", &java("Untracked", ""));
        dir
    }

    #[test]
    fn git_decides_what_it_knows_and_the_listing_is_the_folders() {
        let dir = repo();
        let d = dir.path();
        let workspace = materialize(&Source::Folder(d.to_path_buf()), d, false).unwrap();
        let reference = materialize(&Source::Rev("ref".into()), d, false).unwrap();
        let sides = Arc::new(Sides::default());
        sides.register(&workspace, Some(&reference));
        assert!(sides.sides(&workspace.path, &reference.path).is_some());
        let vouched = both_ways(&sides, &workspace.path, &reference.path);
        // Only the untouched identical files; the lying, assumed, touched and ignored ones
        // are read (Touched is identical, found so by reading).
        assert_eq!(vouched, ["pom.xml", "src/p/Same.java"]);
        let l = listed(&sides, &workspace.path, &reference.path);
        assert!(l.identical.contains("src/p/Touched.java"));
        assert!(!l.identical.contains("src/p/Lying.java"));
        assert!(!l.identical.contains("src/p/Assumed.java"));
        assert_eq!(l.git_metadata().1, 2);
    }

    #[test]
    fn an_index_rewritten_after_the_run_started_is_not_believed() {
        let dir = repo();
        let d = dir.path();
        let workspace = materialize(&Source::Folder(d.to_path_buf()), d, false).unwrap();
        let reference = materialize(&Source::Rev("ref".into()), d, false).unwrap();
        let sides = Arc::new(Sides::default());
        sides.register(&workspace, Some(&reference));
        // A build forges the index: the lying file's entry gets the reference's blob and the
        // file's present stat data.
        let repo = Repository::open(d).unwrap();
        let ref_id = repo.revparse_single("ref:src/p/Lying.java").unwrap().id();
        let mut index = repo.index().unwrap();
        let mut e = index.get_path(Path::new("src/p/Lying.java"), 0).unwrap();
        let m = std::fs::metadata(d.join("src/p/Lying.java")).unwrap();
        e.id = ref_id;
        e.ctime = git2::IndexTime::new(m.ctime() as i32, m.ctime_nsec() as u32);
        e.mtime = git2::IndexTime::new(m.mtime() as i32, m.mtime_nsec() as u32);
        e.ino = m.ino() as u32;
        index.add(&e).unwrap();
        index.write().unwrap();
        std::thread::sleep(RACY_MARGIN * 2);
        // Read now, the forged index would vouch for the file…
        let late = WorkTree::capture(d).unwrap();
        let stat = Stat::of(&m);
        assert_eq!(late.id("src/p/Lying.java", &stat), Some(ref_id));
        // …but the run uses the index as it was when it started.
        assert!(sides.sides(&workspace.path, &reference.path).is_some());
        let vouched = both_ways(&sides, &workspace.path, &reference.path);
        assert!(
            !vouched.contains(&"src/p/Lying.java".to_string()),
            "{vouched:?}"
        );
    }

    #[test]
    fn a_materialised_revision_changed_after_the_run_started_is_read() {
        let dir = repo();
        let d = dir.path();
        git(d, &["tag", "head"]);
        let workspace = materialize(&Source::Rev("head".into()), d, false).unwrap();
        let reference = materialize(&Source::Rev("ref".into()), d, false).unwrap();
        let sides = Arc::new(Sides::default());
        sides.register(&workspace, Some(&reference));
        // A build rewrites a file that is identical in both commits, keeping size and mtime.
        lie(&workspace.path, "src/p/Same.java", &java("Smae", ""));
        assert!(sides.sides(&workspace.path, &reference.path).is_some());
        let vouched = both_ways(&sides, &workspace.path, &reference.path);
        // Edited, Lying, Assumed and Touched are committed as the reference has them.
        assert_eq!(
            vouched,
            [
                "pom.xml",
                "src/p/Assumed.java",
                "src/p/Edited.java",
                "src/p/Lying.java",
                "src/p/Touched.java"
            ]
        );
        let l = listed(&sides, &workspace.path, &reference.path);
        assert!(!l.identical.contains("src/p/Same.java"));
    }

    #[test]
    fn folders_against_folders_are_read_as_before() {
        let dir = repo();
        let d = dir.path();
        let workspace = materialize(&Source::Folder(d.to_path_buf()), d, false).unwrap();
        let other = tempfile::tempdir().unwrap();
        write(other.path(), "src/p/Same.java", &java("Same", ""));
        let reference = materialize(&Source::Folder(other.path().to_path_buf()), d, false).unwrap();
        let sides = Arc::new(Sides::default());
        sides.register(&workspace, Some(&reference));
        assert!(sides.sides(&workspace.path, &reference.path).is_none());
    }
}
