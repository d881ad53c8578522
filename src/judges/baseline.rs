//! The workspace as the jury's subject code first met it (trust.md points 13 and 20): every
//! check that runs the pull request's code (a build, a `command`, an `external` judge; the
//! registry's phase fact) starts on the submitted files, whatever an earlier one did to them.
//!
//! When the run's first such check starts (after the committed build outputs were removed),
//! every entry of the workspace but `.git`, the build output folders (below) and folders
//! judge-ci hides is recorded and copied into a folder hidden from subject processes. When each such check ends, the workspace is
//! compared with the record: a submitted file that subject code changed, removed or replaced
//! (by a link, a folder) is put back as submitted, and the check FAILs with a
//! `submitted-file-changed` finding for each (what it built and tested is not the code that
//! was submitted); an entry subject code added outside what the jury's checks keep is removed
//! and listed, without failing the check (tests write scratch files). What is kept is each
//! check's registry fact ([`Keeps`](crate::config::checks::Keeps)): a build keeps its tool's output folders (`target/` beside
//! a `pom.xml`; `build/` and `.gradle/` beside a Gradle build), a `command` or `external`
//! judge every known tool's (it may run any build), an evidence check the paths it reads (a
//! class folder, a report). So a later `command` (a grep over the sources, a run of the
//! classes a build compiled) reads the submitted tree plus what builds wrote to their output
//! folders and the evidence paths, never sources a build rewrote; `node_modules/` or any
//! other folder a command fills is scratch. Nothing is written or
//! removed through a link the subject planted: a folder on the way that became a link is
//! removed as a link and made a folder again.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::checks::{BuildTool, Kept};
use crate::untrusted::Kind;

/// The most bytes of files the record copies (past it, the check is an ERROR naming it).
pub const MAX_BYTES: u64 = 4 << 30;
/// The most entries the record holds.
pub const MAX_ENTRIES: usize = 1_000_000;

/// What was recorded of one entry.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Entry {
    /// A regular file: its SHA-256 and permission bits (its copy is in the record's folder).
    File { hash: [u8; 32], mode: u32 },
    /// A folder and its permission bits.
    Dir { mode: u32 },
    /// A symbolic link and its target.
    Link(PathBuf),
    /// A FIFO, socket or device (never opened): only its kind.
    Special(Kind),
}

/// How subject code left a recorded entry, or an entry it added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// A file's bytes or permission bits, or a link's target, differ.
    Changed,
    /// It is gone.
    Removed,
    /// Something of another kind is there (a link where a file was, say).
    TypeChanged,
    /// It was not there (outside what the jury's checks keep).
    Added,
    /// It was left where a later check reads (a kept output folder or evidence path) without
    /// the owner's read (and, for a folder, search) permission; judge-ci added them, so a
    /// later check reads it instead of failing on it (`grep -r` exits 2, which `! grep` turns
    /// into a pass).
    MadeReadable,
    /// It was left in a kept output folder or evidence path and is not plain data: a link, a
    /// FIFO, a socket, a device, an entry named `.git` (attack findings E7-9, E7-10,
    /// N7-2), or one whose name a program reads as an option or as more than one line
    /// ([`super::misread_names`], N7-7). What is kept is read after the check by later checks and, once judge-ci
    /// exits, by the job's next steps outside any fence (the checkout action's clean-up runs
    /// git in every repository it finds at a submodule path, with the step's token); a link
    /// leads them out of the tree, a dangling or looping one makes `grep -R` exit 2, a FIFO
    /// blocks them, a planted repository configures what git runs. judge-ci removed it, and
    /// the check that left it FAILs (what it left is not output).
    NotData,
}

impl Change {
    /// The word a finding and the reasoning use.
    pub fn word(self) -> &'static str {
        match self {
            Change::Changed => "changed",
            Change::Removed => "removed",
            Change::TypeChanged => "type changed",
            Change::Added => "added",
            Change::MadeReadable => "made readable",
            Change::NotData => "not plain data, removed",
        }
    }

    /// Whether it changed the submitted files (the check FAILs), rather than only leaving
    /// something behind ([`Change::NotData`] FAILs it too, in words of its own).
    pub fn changes_the_submission(self) -> bool {
        match self {
            Change::Changed | Change::Removed | Change::TypeChanged => true,
            Change::Added | Change::MadeReadable | Change::NotData => false,
        }
    }
}

/// The record of the workspace as submitted, with the copy it restores from.
#[derive(Debug)]
pub struct Baseline {
    dir: crate::materialize::scratch::Scratch,
    entries: BTreeMap<PathBuf, Entry>,
}

/// Why the record of the workspace as submitted could not be taken, compared or put back
/// (the check is then an instrument ERROR with these words). `Clone`: one record serves every
/// check of the run, and each that cannot use it says why.
#[derive(Clone, Debug, thiserror::Error)]
pub enum GuardError {
    /// An entry of the workspace could not be listed, made, read or removed.
    #[error("{}: {source}", .path.display())]
    Entry {
        /// The entry, relative to the workspace.
        path: PathBuf,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// A submitted file could not be read while it was copied into the record.
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file in the workspace.
        path: PathBuf,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// The record's copy of a file could not be written.
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        /// The copy in the record's folder.
        path: PathBuf,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// An entry subject code left unreadable could not be given its owner's permissions back.
    #[error("{}: cannot make it readable: {source}", .path.display())]
    MakeReadable {
        /// The entry, relative to the workspace.
        path: PathBuf,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// A submitted entry subject code changed could not be put back as recorded.
    #[error("{}: cannot put it back as submitted: {source}", .path.display())]
    PutBack {
        /// The entry, relative to the workspace.
        path: PathBuf,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// The folder the record is kept in could not be made.
    #[error("cannot make the record's folder: {0}")]
    Folder(Arc<std::io::Error>),
    /// The walk over the workspace failed.
    #[error("{0}")]
    Walk(Arc<walkdir::Error>),
    /// A submitted file could not be opened as a regular file.
    #[error("{0}")]
    Open(Arc<crate::untrusted::ReadError>),
    /// The workspace holds more entries than the record keeps ([`MAX_ENTRIES`]).
    #[error(
        "the workspace holds more than {MAX_ENTRIES} entries, the most judge-ci keeps as submitted"
    )]
    TooManyEntries,
    /// The workspace's files hold more bytes than the record copies ([`MAX_BYTES`]).
    #[error(
        "the workspace holds more than {} of files, the most judge-ci keeps as submitted",
        crate::untrusted::size_words(MAX_BYTES)
    )]
    TooManyBytes,
    /// The record could not be taken, before the run's first subject code (every check
    /// that runs subject code then says so).
    #[error("cannot record the workspace as submitted: {0}")]
    Record(Box<GuardError>),
}

/// An [`GuardError::Entry`] for `rel`.
fn entry_error(rel: &Path) -> impl FnOnce(std::io::Error) -> GuardError + '_ {
    move |e| GuardError::Entry {
        path: rel.to_path_buf(),
        source: Arc::new(e),
    }
}

/// Copies the regular file `from` to `to` (created fresh), hashing what it copies.
fn copy_hashed(from: &Path, to: &Path) -> Result<([u8; 32], u32, u64), GuardError> {
    let (mut f, meta) = crate::untrusted::open(from).map_err(|e| GuardError::Open(Arc::new(e)))?;
    let write = |e| GuardError::Write {
        path: to.to_path_buf(),
        source: Arc::new(e),
    };
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(to)
        .map_err(write)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf).map_err(|e| GuardError::Read {
            path: from.to_path_buf(),
            source: Arc::new(e),
        })?;
        if k == 0 {
            break;
        }
        let chunk = &buf[..k];
        hasher.update(chunk);
        std::io::Write::write_all(&mut out, chunk).map_err(write)?;
        n += k as u64;
    }
    Ok((
        hasher.finalize().into(),
        meta.permissions().mode() & 0o7777,
        n,
    ))
}

/// The SHA-256 and permission bits of the regular file `p`, or `None` if it is not one.
fn hash_of(p: &Path) -> Option<([u8; 32], u32)> {
    let (mut f, meta) = crate::untrusted::open(p).ok()?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let k = f.read(&mut buf).ok()?;
        if k == 0 {
            break;
        }
        hasher.update(&buf[..k]);
    }
    Some((hasher.finalize().into(), meta.permissions().mode() & 0o7777))
}

/// The entry at `p` now, as the record would hold it (`None`: nothing there).
fn entry_at(p: &Path) -> Option<Entry> {
    let meta = std::fs::symlink_metadata(p).ok()?;
    Some(match Kind::of(meta.file_type()) {
        Kind::Regular => match hash_of(p) {
            Some((hash, mode)) => Entry::File { hash, mode },
            None => Entry::Special(Kind::Other),
        },
        Kind::Directory => Entry::Dir {
            mode: meta.permissions().mode() & 0o7777,
        },
        Kind::Symlink => Entry::Link(std::fs::read_link(p).ok()?),
        k => Entry::Special(k),
    })
}

fn same_kind(a: &Entry, b: &Entry) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
        && match (a, b) {
            (Entry::Special(x), Entry::Special(y)) => x == y,
            _ => true,
        }
}

/// What the jury's checks keep of what subject code adds: the output folders of the build
/// tools its builds run, and the paths its evidence checks read (each check's
/// [`Keeps`](crate::config::checks::Keeps) fact, through [`crate::config::checks::CheckKind::kept`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keep {
    /// Tools whose output folders are kept.
    pub tools: Vec<BuildTool>,
    /// Paths kept, with what is under them.
    pub paths: Vec<PathBuf>,
}

impl Keep {
    /// What the checks of `spec` keep (in the order they name it).
    pub fn of(spec: &crate::config::JurySpec) -> Keep {
        let mut keep = Keep::default();
        for c in spec.all_checks() {
            for k in c.kind.kept() {
                match k {
                    Kept::OutputsOf(tool) => {
                        if !keep.tools.contains(&tool) {
                            keep.tools.push(tool);
                        }
                    }
                    Kept::Path(p) => keep.paths.push(p.as_path().to_path_buf()),
                }
            }
        }
        keep
    }

    /// Whether `rel` (a folder of the workspace) is an output folder of a kept tool: its
    /// name is one the tool writes beside its build files, one of those files is there, and
    /// it is not inside a `src` folder (a `pom.xml` planted among the sources does not make a
    /// package folder named `target` output).
    fn is_output_folder(&self, workspace: &Path, rel: &Path) -> bool {
        let Some(name) = rel.file_name().and_then(|n| n.to_str()) else {
            return false;
        };
        if rel
            .parent()
            .is_some_and(|p| p.components().any(|c| c.as_os_str() == "src"))
        {
            return false;
        }
        let parent = workspace.join(rel.parent().unwrap_or(Path::new("")));
        self.tools.iter().any(|t| {
            t.output_folders().contains(&name)
                && t.build_files().iter().any(|f| parent.join(f).is_file())
        })
    }

    /// Whether `rel` is a kept path or under one.
    fn holds(&self, rel: &Path) -> bool {
        self.paths.iter().any(|k| rel.starts_with(k))
    }

    /// Whether a kept path is under `rel` (so `rel` itself stays, as a folder on the way).
    fn leads_to_kept(&self, rel: &Path) -> bool {
        self.paths.iter().any(|k| k.starts_with(rel))
    }
}

/// Walks `workspace` (links not followed), skipping `.git` at the top and what `skip` says,
/// giving each entry's path relative to the workspace.
fn walk<'a>(
    workspace: &'a Path,
    skip: &'a dyn Fn(&Path, bool) -> bool,
) -> impl Iterator<Item = Result<(PathBuf, std::fs::FileType), GuardError>> + 'a {
    walkdir::WalkDir::new(workspace)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(move |e| {
            let rel = e.path().strip_prefix(workspace).unwrap_or(e.path());
            let git = e.depth() == 1 && e.file_name() == ".git";
            !(git || skip(rel, e.file_type().is_dir()))
        })
        .map(move |e| {
            let e = e.map_err(|e| GuardError::Walk(Arc::new(e)))?;
            let rel = e
                .path()
                .strip_prefix(workspace)
                .unwrap_or(e.path())
                .to_path_buf();
            Ok((rel, e.file_type()))
        })
}

/// Makes every folder above `rel` in `root` a real folder: a link or file on the way is
/// removed (as itself, never followed) and a folder made in its place.
fn real_folders_to(root: &Path, rel: &Path) -> std::io::Result<()> {
    let mut at = root.to_path_buf();
    let Some(parent) = rel.parent() else {
        return Ok(());
    };
    for c in parent.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_dir() => continue,
            Ok(_) => std::fs::remove_file(&at)?,
            Err(_) => {}
        }
        std::fs::create_dir(&at)?;
    }
    Ok(())
}

/// Removes whatever is at `p` without following a link.
fn remove_entry(p: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.file_type().is_dir() => std::fs::remove_dir_all(p),
        Ok(_) => std::fs::remove_file(p),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Gives every folder under `workspace` (links not followed, `.git` at the top and what
/// `skip` says left out) the owner's read, write and search permission and every regular
/// file the owner's read permission where they lack them, so that subject code cannot leave
/// an entry a later check cannot read (or judge-ci cannot remove). Returns what it changed,
/// relative to the workspace. Folders are opened before their content is listed: a walk that
/// lists first could not enter a folder left with mode 000.
fn open_up(workspace: &Path, skip: &dyn Fn(&Path) -> bool) -> Result<Vec<PathBuf>, GuardError> {
    let mut opened = Vec::new();
    let mut todo = vec![PathBuf::new()];
    let mut seen = 0usize;
    while let Some(rel) = todo.pop() {
        let dir = workspace.join(&rel);
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .map_err(entry_error(&rel))?
            .map(|e| e.map(|e| e.file_name()))
            .collect::<Result<_, _>>()
            .map_err(entry_error(&rel))?;
        names.sort();
        for name in names {
            seen += 1;
            if seen > MAX_ENTRIES {
                return Err(GuardError::TooManyEntries);
            }
            let child = rel.join(&name);
            if rel.as_os_str().is_empty() && name == ".git" || skip(&child) {
                continue;
            }
            let p = workspace.join(&child);
            let Ok(meta) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            let mode = meta.permissions().mode() & 0o7777;
            let want = match Kind::of(meta.file_type()) {
                Kind::Directory => mode | 0o700,
                Kind::Regular => mode | 0o400,
                _ => mode,
            };
            if want != mode {
                std::fs::set_permissions(&p, std::fs::Permissions::from_mode(want)).map_err(
                    |e| GuardError::MakeReadable {
                        path: child.clone(),
                        source: Arc::new(e),
                    },
                )?;
                opened.push(child.clone());
            }
            if meta.file_type().is_dir() {
                todo.push(child);
            }
        }
    }
    opened.sort();
    Ok(opened)
}

impl Baseline {
    /// Records `workspace` (but `.git`, the folders `hidden` lists, relative to it: those
    /// judge-ci hides, its output folder; and the output folders of the tools `keep` names,
    /// which the run's first build empties) into a new temporary folder, which `hide` is
    /// given to hide from subject processes.
    pub fn take(
        workspace: &Path,
        hidden: &[PathBuf],
        keep: &Keep,
        hide: &dyn Fn(&Path),
    ) -> Result<Baseline, GuardError> {
        let dir = tempfile::Builder::new()
            .prefix("judge-ci-submitted-")
            .tempdir()
            .map_err(|e| GuardError::Folder(Arc::new(e)))?;
        hide(dir.path());
        let skip = |rel: &Path, is_dir: bool| {
            hidden.iter().any(|h| rel.starts_with(h))
                || is_dir && keep.is_output_folder(workspace, rel)
        };
        // Read as a later check would read it: nothing of it unreadable to its owner (a
        // folder workspace can hold such entries; a git checkout cannot).
        open_up(workspace, &|rel| hidden.iter().any(|h| rel.starts_with(h)))?;
        let mut entries = BTreeMap::new();
        let mut bytes = 0u64;
        for e in walk(workspace, &skip) {
            let (rel, t) = e?;
            if entries.len() >= MAX_ENTRIES {
                return Err(GuardError::TooManyEntries);
            }
            let from = workspace.join(&rel);
            let to = dir.path().join(&rel);
            let entry = match Kind::of(t) {
                Kind::Directory => {
                    std::fs::create_dir(&to).map_err(entry_error(&rel))?;
                    let meta = std::fs::symlink_metadata(&from).map_err(entry_error(&rel))?;
                    Entry::Dir {
                        mode: meta.permissions().mode() & 0o7777,
                    }
                }
                Kind::Regular => {
                    let (hash, mode, n) = copy_hashed(&from, &to)?;
                    bytes += n;
                    if bytes > MAX_BYTES {
                        return Err(GuardError::TooManyBytes);
                    }
                    Entry::File { hash, mode }
                }
                Kind::Symlink => Entry::Link(std::fs::read_link(&from).map_err(entry_error(&rel))?),
                k => Entry::Special(k),
            };
            entries.insert(rel, entry);
        }
        Ok(Baseline {
            dir: crate::materialize::scratch::Scratch::new(dir),
            entries,
        })
    }

    /// Compares `workspace` with the record and puts it back as submitted: every recorded
    /// entry changed, removed or replaced, and every entry added outside what `keep` keeps
    /// (and the folders `hidden` lists), with what happened to it.
    /// A FIFO, socket or device that was submitted is not made again (it is listed).
    pub fn restore(
        &self,
        workspace: &Path,
        hidden: &[PathBuf],
        keep: &Keep,
    ) -> Result<Vec<(PathBuf, Change)>, GuardError> {
        let mut changes = Vec::new();
        // Nothing left unreadable: a submitted entry whose mode subject code changed is put
        // back below (listed as changed), one kept for a later check is listed as opened.
        let opened = open_up(workspace, &|rel| hidden.iter().any(|h| rel.starts_with(h)))?;
        // What subject code added: removed (whole folders at once), outside what is kept.
        // The kept folders the walk passes are listed, to be searched below.
        let kept = std::cell::RefCell::new(Vec::new());
        let skip = |rel: &Path, is_dir: bool| {
            if hidden.iter().any(|h| rel.starts_with(h)) {
                return true;
            }
            let held = keep.holds(rel)
                || is_dir
                    && !self.entries.contains_key(rel)
                    && keep.is_output_folder(workspace, rel);
            if held {
                kept.borrow_mut().push(rel.to_path_buf());
            }
            held
        };
        let mut added: Vec<PathBuf> = Vec::new();
        // An entry the walk cannot read does not stop the put-back (E7-8: a path longer
        // than PATH_MAX aborted it, leaving every change in place): the first such error is
        // returned once everything else is put back.
        // returned once everything else is put back; one under an added folder judge-ci
        // then removed whole is forgiven.
        let mut failed: Option<GuardError> = None;
        let mut unread: Vec<GuardError> = Vec::new();
        for e in walk(workspace, &skip) {
            let rel = match e {
                Ok((rel, _)) => rel,
                Err(e) => {
                    unread.push(e);
                    continue;
                }
            };
            if !self.entries.contains_key(&rel)
                && !keep.leads_to_kept(&rel)
                && !added.iter().any(|a| rel.starts_with(a))
            {
                added.push(rel);
            }
        }
        for root in kept.into_inner() {
            match self.not_data(workspace, &root, hidden) {
                Ok(found) => {
                    for rel in found {
                        match remove_entry(&workspace.join(&rel)) {
                            Ok(()) => changes.push((rel, Change::NotData)),
                            Err(e) => {
                                failed.get_or_insert(entry_error(&rel)(e));
                            }
                        }
                    }
                }
                Err(e) => {
                    failed.get_or_insert(e);
                }
            }
        }
        for rel in opened {
            let gone = added.iter().any(|a| rel.starts_with(a));
            if !gone && !self.entries.contains_key(&rel) {
                changes.push((rel, Change::MadeReadable));
            }
        }
        for rel in added {
            match remove_entry(&workspace.join(&rel)) {
                Ok(()) => {
                    let gone = workspace.join(&rel);
                    unread.retain(|e| match e {
                        GuardError::Walk(w) => !w.path().is_some_and(|p| p.starts_with(&gone)),
                        _ => true,
                    });
                    changes.push((rel, Change::Added));
                }
                Err(e) => {
                    failed.get_or_insert(entry_error(&rel)(e));
                }
            }
        }
        if let Some(e) = unread.into_iter().next() {
            failed.get_or_insert(e);
        }
        // Recorded entries, parents before children.
        let mut remade: Vec<&Path> = Vec::new();
        for (rel, want) in &self.entries {
            let live = workspace.join(rel);
            let now = entry_at(&live);
            let change = match &now {
                None => Change::Removed,
                Some(n) if !same_kind(n, want) => Change::TypeChanged,
                Some(n) if n != want => Change::Changed,
                Some(_) => continue,
            };
            // Inside a folder that was itself made again: put back with it, listed as it.
            if !remade.iter().any(|p| rel.starts_with(p)) {
                changes.push((rel.clone(), change));
            }
            if let Entry::Special(_) = want {
                continue;
            }
            if matches!(want, Entry::Dir { .. }) && change != Change::Changed {
                remade.push(rel);
            }
            if let Err(e) = self.put_back(workspace, rel, want, now.is_some()) {
                failed.get_or_insert(GuardError::PutBack {
                    path: rel.to_path_buf(),
                    source: Arc::new(e),
                });
            }
        }
        if let Some(e) = failed {
            return Err(e);
        }
        changes.sort();
        Ok(changes)
    }

    /// What under the kept path `root` (relative to `workspace`; the path itself included) is
    /// not plain data ([`Change::NotData`]): links, FIFOs, sockets, devices, entries named
    /// `.git` and names a program misreads, each as the topmost such entry, leaving out what was submitted (restored as
    /// recorded) and the folders `hidden` lists.
    fn not_data(
        &self,
        workspace: &Path,
        root: &Path,
        hidden: &[PathBuf],
    ) -> Result<Vec<PathBuf>, GuardError> {
        let mut found = Vec::new();
        // Not even the kept path itself is followed: a link there (`classes -> /etc`) is the
        // entry to remove, never a way into what it leads to.
        let mut it = walkdir::WalkDir::new(workspace.join(root))
            .follow_links(false)
            .follow_root_links(false)
            .sort_by_file_name()
            .into_iter();
        let mut seen = 0usize;
        while let Some(e) = it.next() {
            let e = e.map_err(|e| GuardError::Walk(Arc::new(e)))?;
            seen += 1;
            if seen > MAX_ENTRIES {
                return Err(GuardError::TooManyEntries);
            }
            let rel = e.path().strip_prefix(workspace).unwrap_or(e.path());
            let submitted = self.entries.contains_key(rel);
            if hidden.iter().any(|h| rel.starts_with(h)) {
                if e.file_type().is_dir() {
                    it.skip_current_dir();
                }
                continue;
            }
            let plain = matches!(Kind::of(e.file_type()), Kind::Regular | Kind::Directory)
                && e.file_name() != ".git"
                && !(e.file_type().is_dir() && super::misread_names::is_git_repository(e.path()))
                && super::misread_names::why(std::os::unix::ffi::OsStrExt::as_bytes(e.file_name()))
                    .is_none();
            if !plain && !submitted {
                found.push(rel.to_path_buf());
                if e.file_type().is_dir() {
                    it.skip_current_dir();
                }
            }
        }
        Ok(found)
    }

    /// Writes the recorded `want` at `rel` in `workspace` (removing what is there when
    /// `present`), every folder on the way a real one.
    fn put_back(
        &self,
        workspace: &Path,
        rel: &Path,
        want: &Entry,
        present: bool,
    ) -> std::io::Result<()> {
        real_folders_to(workspace, rel)?;
        let live = workspace.join(rel);
        if present {
            // A folder whose kind is right keeps its content (restored entry by entry).
            let keep = matches!(want, Entry::Dir { .. })
                && std::fs::symlink_metadata(&live).is_ok_and(|m| m.file_type().is_dir());
            if !keep {
                remove_entry(&live)?;
            }
        }
        match want {
            Entry::Dir { mode } => {
                if std::fs::symlink_metadata(&live).is_err() {
                    std::fs::create_dir(&live)?;
                }
                std::fs::set_permissions(&live, std::fs::Permissions::from_mode(*mode))
            }
            Entry::Link(target) => std::os::unix::fs::symlink(target, &live),
            Entry::File { mode, .. } => {
                let mut from = std::fs::File::open(self.dir.path().join(rel))?;
                let mut out = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .custom_flags(libc::O_NOFOLLOW)
                    .open(&live)?;
                std::io::copy(&mut from, &mut out)?;
                out.set_permissions(std::fs::Permissions::from_mode(*mode))
            }
            Entry::Special(_) => Ok(()),
        }
    }
}

/// The run's record, taken when its first check that runs subject code starts; one per run
/// (in [`super::Services`]).
#[derive(Debug, Default)]
pub struct Guard {
    /// What the jury's checks keep of what subject code adds.
    keep: Keep,
    baseline: OnceLock<Result<Baseline, GuardError>>,
    /// One check at a time compares and restores.
    busy: Mutex<()>,
}

impl Guard {
    /// The guard of a jury, keeping what its checks' [`Keeps`](crate::config::checks::Keeps) facts name.
    pub fn of(spec: &crate::config::JurySpec) -> Guard {
        Guard {
            keep: Keep::of(spec),
            ..Guard::default()
        }
    }

    /// Takes the record if it is not taken yet (call before subject code runs).
    pub fn before(&self, workspace: &Path, fence: &crate::fence::Fence) -> Result<(), GuardError> {
        let _g = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        self.baseline
            .get_or_init(|| {
                Baseline::take(
                    workspace,
                    &fence.hidden_under(workspace),
                    &self.keep,
                    &|p| fence.hide(p),
                )
                .map_err(|e| GuardError::Record(Box::new(e)))
            })
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    /// Puts the workspace back as recorded (call when the check's processes are gone);
    /// what subject code had changed.
    pub fn after(
        &self,
        workspace: &Path,
        fence: &crate::fence::Fence,
    ) -> Result<Vec<(PathBuf, Change)>, GuardError> {
        let _g = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        match self.baseline.get() {
            Some(Ok(b)) => b.restore(workspace, &fence.hidden_under(workspace), &self.keep),
            Some(Err(e)) => Err(e.clone()),
            None => Ok(Vec::new()),
        }
    }
}

/// The most paths one reasoning names; the findings name every one.
const NAMED: usize = 8;

fn named(paths: &[&(PathBuf, Change)]) -> String {
    let mut words: Vec<String> = paths
        .iter()
        .take(NAMED)
        .map(|(p, c)| format!("{} ({})", p.display(), c.word()))
        .collect();
    if paths.len() > NAMED {
        words.push(format!("and {} more", paths.len() - NAMED));
    }
    words.join(", ")
}

/// The judgment of a check that ran subject code, given what [`Guard::after`] put back: a
/// submitted file changed, removed or replaced makes it FAIL (what it built and tested is not
/// the code that was submitted), with a `submitted-file-changed` finding for each entry;
/// entries only added are listed without changing the status.
pub fn judged_on_changed_files(
    outcome: super::Outcome,
    changes: &[(PathBuf, Change)],
) -> super::Outcome {
    use crate::judgment::{Check, Finding, FindingKind, Judgment, Status};
    if changes.is_empty() {
        return outcome;
    }
    let findings = changes.iter().map(|(p, c)| {
        let shown = p.display().to_string();
        Finding::new(shown.as_str(), FindingKind::SubmittedFileChanged)
            .actual(c.word())
            .message(match c {
                Change::Added => format!(
                    "subject code added {shown} outside what the jury's checks keep; judge-ci removed it"
                ),
                Change::MadeReadable => format!(
                    "subject code left {shown} unreadable where later checks read; judge-ci made it readable"
                ),
                Change::NotData => format!(
                    "subject code left {shown} where later checks and the job's next steps read, and it is not plain data (a link, FIFO, socket, device or git folder); judge-ci removed it"
                ),
                c => format!(
                    "subject code left the submitted {shown} {}; judge-ci put it back as submitted",
                    c.word()
                ),
            })
    });
    let of = |kind: Change| -> Vec<&(PathBuf, Change)> {
        changes.iter().filter(|(_, c)| *c == kind).collect()
    };
    let submitted: Vec<_> = changes
        .iter()
        .filter(|(_, c)| c.changes_the_submission())
        .collect();
    let (added, opened, odd) = (
        of(Change::Added),
        of(Change::MadeReadable),
        of(Change::NotData),
    );
    if submitted.is_empty() && odd.is_empty() {
        let mut notes = Vec::new();
        if !added.is_empty() {
            notes.push(format!(
                "Subject code added {} outside what the jury's checks keep; judge-ci removed {} before anything else read the tree.",
                named(&added),
                if added.len() == 1 { "it" } else { "them" }
            ));
        }
        if !opened.is_empty() {
            notes.push(format!(
                "Subject code left {} unreadable where later checks read; judge-ci made {} readable.",
                named(&opened),
                if opened.len() == 1 { "it" } else { "them" }
            ));
        }
        return outcome.map(|j| j.noted(&notes.join(" "), findings));
    }
    let mut mine = Vec::new();
    let mut failed = Vec::new();
    if !submitted.is_empty() {
        mine.push(format!(
            "Subject code changed the submitted files while this check ran: {}. What it built and tested is not the code that was submitted; judge-ci put the files back as submitted before anything else read the tree.",
            named(&submitted)
        ));
        failed.push(Check::failed(
            "submitted_files_unchanged",
            format!(
                "{} submitted file(s) changed by subject code",
                submitted.len()
            ),
        )?);
    }
    if !odd.is_empty() {
        // A build's output is files and folders; what else it leaves where the next checks
        // and steps read is a way to steer them, not output (E7-9, E7-10, N7-2).
        mine.push(format!(
            "Subject code left {} where later checks and the job's next steps read, and it is not output but a link, FIFO, socket, device or git folder; judge-ci removed {} before anything else read the tree.",
            named(&odd),
            if odd.len() == 1 { "it" } else { "them" }
        ));
        failed.push(Check::failed(
            "outputs_plain_data",
            format!("{} entr(ies) left that are not plain data", odd.len()),
        )?);
    }
    let (before, checks, found) = match &outcome {
        Ok(j) => (
            format!("{}: {}", j.status().upper(), j.reasoning()),
            j.checks().to_vec(),
            j.findings().to_vec(),
        ),
        Err(f) => (format!("could not finish: {f}"), Vec::new(), Vec::new()),
    };
    let mut b = Judgment::builder(Status::Fail)
        .reasoning(format!(
            "{} The check's own result was {before}",
            mine.join(" ")
        ))
        .checks(checks);
    for c in failed {
        b = b.check(c);
    }
    super::build(b.findings(found).findings(findings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn what_subject_code_changed_is_put_back_and_listed() {
        let ws = tempfile::tempdir().unwrap();
        let r = ws.path();
        w(r, "pom.xml", "<project/>");
        w(
            r,
            "src/main/java/A.java",
            "class A { String s = \"javax.servlet\"; }",
        );
        w(r, "src/main/java/B.java", "class B {}");
        w(r, "src/main/java/C.java", "class C {}");
        w(r, ".git/HEAD", "ref");
        // Output left by an earlier run: not the record's; a `target` package among the
        // sources is, whatever `pom.xml` sits beside it.
        w(r, "target/runs.log", "1");
        w(r, "src/main/java/pom.xml", "<project/>");
        w(r, "src/main/java/target/T.java", "class T {}");
        let outside = tempfile::tempdir().unwrap();
        let none: &[PathBuf] = &[];
        let maven = Keep {
            tools: vec![BuildTool::Maven],
            paths: Vec::new(),
        };
        let b = Baseline::take(r, none, &maven, &|_| {}).unwrap();
        assert!(b.restore(r, none, &maven).unwrap().is_empty());
        // A build rewrites A, removes B, swaps C for a link, adds files, writes outputs.
        w(
            r,
            "src/main/java/A.java",
            "class A { String s = \"jakarta.servlet\"; }",
        );
        std::fs::remove_file(r.join("src/main/java/B.java")).unwrap();
        std::fs::remove_file(r.join("src/main/java/C.java")).unwrap();
        std::os::unix::fs::symlink(outside.path(), r.join("src/main/java/C.java")).unwrap();
        w(r, "NOTICE", "written by a test");
        w(r, "src/gen/D.java", "class D {}");
        w(r, "target/classes/A.class", "bytes");
        w(r, "target/runs.log", "2");
        w(r, "src/main/java/target/T.java", "class T { int forged; }");
        w(r, ".git/HEAD", "other");
        let changes = b.restore(r, none, &maven).unwrap();
        let shown: Vec<(String, &str)> = changes
            .iter()
            .map(|(p, c)| (p.display().to_string(), c.word()))
            .collect();
        assert_eq!(
            shown,
            [
                ("NOTICE".to_string(), "added"),
                ("src/gen".to_string(), "added"),
                ("src/main/java/A.java".to_string(), "changed"),
                ("src/main/java/B.java".to_string(), "removed"),
                ("src/main/java/C.java".to_string(), "type changed"),
                ("src/main/java/target/T.java".to_string(), "changed"),
            ]
        );
        let read = |rel: &str| std::fs::read_to_string(r.join(rel)).unwrap();
        assert!(read("src/main/java/A.java").contains("javax.servlet"));
        assert_eq!(read("src/main/java/B.java"), "class B {}");
        assert!(!r.join("src/main/java/C.java").is_symlink());
        assert!(!r.join("NOTICE").exists() && !r.join("src/gen").exists());
        // Build output and git's folder are not the record's business.
        assert_eq!(read("target/classes/A.class"), "bytes");
        assert_eq!(read(".git/HEAD"), "other");
        assert!(b.restore(r, none, &maven).unwrap().is_empty());
    }

    #[test]
    fn a_record_that_cannot_be_taken_says_why_to_every_check() {
        let gone = tempfile::tempdir().unwrap();
        let ws = gone.path().join("never-made");
        let guard = Guard::of(&jury("    - {type: maven-build}\n"));
        let fence = crate::fence::Fence::default();
        let first = guard.before(&ws, &fence).unwrap_err();
        assert!(
            matches!(&first, GuardError::Record(inner) if matches!(**inner, GuardError::Entry { .. })),
            "{first:?}"
        );
        assert!(
            first
                .to_string()
                .starts_with("cannot record the workspace as submitted: : "),
            "{first}"
        );
        // Every later check that runs subject code meets the same error, not a record.
        let again = guard.before(&ws, &fence).unwrap_err();
        let after = guard.after(&ws, &fence).unwrap_err();
        assert_eq!(again.to_string(), first.to_string());
        assert_eq!(after.to_string(), first.to_string());
    }

    #[test]
    fn nothing_is_written_through_a_folder_made_a_link() {
        let ws = tempfile::tempdir().unwrap();
        let r = ws.path();
        w(r, "src/a/A.java", "class A {}");
        let none: &[PathBuf] = &[];
        let b = Baseline::take(r, none, &Keep::default(), &|_| {}).unwrap();
        let outside = tempfile::tempdir().unwrap();
        w(outside.path(), "keep.txt", "mine");
        std::fs::remove_dir_all(r.join("src/a")).unwrap();
        std::os::unix::fs::symlink(outside.path(), r.join("src/a")).unwrap();
        let changes = b.restore(r, none, &Keep::default()).unwrap();
        assert_eq!(
            changes,
            [(PathBuf::from("src/a"), Change::TypeChanged)],
            "the folder's file comes back with it"
        );
        assert_eq!(
            std::fs::read_to_string(r.join("src/a/A.java")).unwrap(),
            "class A {}"
        );
        assert!(!r.join("src/a").is_symlink());
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            1,
            "nothing written or removed in the link's target"
        );
    }

    fn jury(checks: &str) -> crate::config::JurySpec {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("judge-ci.yml");
        std::fs::write(
            &p,
            format!("schema: judge-ci.v1\nname: t\nversion: \"1\"\njury:\n  checks:\n{checks}"),
        )
        .unwrap();
        crate::config::load_benchmark(&p).unwrap().0.jury
    }

    /// What is kept is each check's registry fact: a build its tool's output folders, an
    /// evidence check the path it reads, a command nothing.
    #[test]
    fn what_is_kept_comes_from_the_checks_facts() {
        let keep = Keep::of(&jury(
            "    - {type: maven-build}\n    - {type: class-version, java: 17, dir: out/classes}\n    - {type: test-invariance, reports: out/reports}\n    - {type: file-exists, path: NOTICE}\n    - {type: import-diff, forbid: [javax.*]}\n",
        ));
        assert_eq!(
            keep,
            Keep {
                tools: vec![BuildTool::Maven],
                paths: vec![PathBuf::from("out/classes"), PathBuf::from("out/reports")],
            }
        );
        let gradle = Keep::of(&jury("    - {type: gradle-build}\n"));
        assert_eq!(gradle.tools, [BuildTool::Gradle]);
        let commands = Keep::of(&jury(
            "    - {type: command, run: \"true\", dir: tools}\n    - {type: external, run: \"true\"}\n",
        ));
        assert_eq!(
            commands,
            Keep {
                tools: vec![BuildTool::Maven, BuildTool::Gradle],
                paths: Vec::new(),
            }
        );
    }

    #[test]
    fn what_evidence_checks_read_is_kept() {
        let ws = tempfile::tempdir().unwrap();
        let r = ws.path();
        w(r, "a.txt", "a");
        let none: &[PathBuf] = &[];
        let keep = Keep {
            tools: Vec::new(),
            paths: vec![PathBuf::from("out/reports")],
        };
        let b = Baseline::take(r, none, &keep, &|_| {}).unwrap();
        w(r, "out/reports/TEST-x.xml", "<testsuite/>");
        w(r, "out/other.txt", "scratch");
        assert_eq!(
            b.restore(r, none, &keep).unwrap(),
            [(PathBuf::from("out/other.txt"), Change::Added)]
        );
        assert!(r.join("out/reports/TEST-x.xml").exists());
    }

    /// Output folders are kept only for a tool a check of the jury can run: with none,
    /// `target/` beside a `pom.xml` is scratch like any other added entry; with a Gradle
    /// build, `build/` and `.gradle/` are kept and `target/` is not; `node_modules/` beside a
    /// `package.json` is no known tool's, so never kept.
    #[test]
    fn output_folders_are_kept_only_for_the_jury_s_build_tools() {
        let ws = tempfile::tempdir().unwrap();
        let r = ws.path();
        w(r, "pom.xml", "<project/>");
        w(r, "build.gradle", "");
        w(r, "package.json", "{}");
        let none: &[PathBuf] = &[];
        let added = |keep: &Keep| {
            let b = Baseline::take(r, none, keep, &|_| {}).unwrap();
            for f in [
                "target/classes/A.class",
                "build/classes/A.class",
                ".gradle/state",
                "node_modules/x/index.js",
            ] {
                w(r, f, "x");
            }
            let changes = b.restore(r, none, keep).unwrap();
            for rel in ["target", "build", ".gradle", "node_modules"] {
                let _ = std::fs::remove_dir_all(r.join(rel));
            }
            changes
                .into_iter()
                .map(|(p, c)| {
                    assert_eq!(c, Change::Added);
                    p.display().to_string()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            added(&Keep::default()),
            [".gradle", "build", "node_modules", "target"]
        );
        let gradle = Keep {
            tools: vec![BuildTool::Gradle],
            paths: Vec::new(),
        };
        assert_eq!(added(&gradle), ["node_modules", "target"]);
    }

    /// Attack findings E7-9, E7-10, N7-2: a build leaves, in its kept `target/`, a git
    /// repository at a path `.gitmodules` names (the checkout action's clean-up runs git in
    /// it, unfenced, with the step's token), links out of the tree, a dangling and a looping
    /// link (`! grep -R` exits 2 on them: a pass), a FIFO (a later reader blocks). Each is
    /// removed and listed; the class files stay; the check that left them FAILs.
    #[test]
    fn what_is_kept_is_plain_data() {
        let ws = tempfile::tempdir().unwrap();
        let r = ws.path();
        w(r, "pom.xml", "<project/>");
        let none: &[PathBuf] = &[];
        let keep = Keep {
            tools: vec![BuildTool::Maven],
            paths: vec![PathBuf::from("out/report"), PathBuf::from("classes")],
        };
        let b = Baseline::take(r, none, &keep, &|_| {}).unwrap();
        w(r, "target/classes/A.class", "x");
        w(r, "target/sub/.git/config", "[core]\n\tfsmonitor = evil\n");
        w(r, "target/sub/file", "x");
        w(r, "target/gitfile/.git", "gitdir: ../../.git/modules/x");
        w(r, "out/report/r.xml", "<r/>");
        w(r, "target/--exclude=*.java", "");
        // A bare repository under another name (S8-8).
        w(r, "target/tools/HEAD", "ref: refs/heads/main\n");
        w(r, "target/tools/objects/.keep", "");
        w(r, "target/tools/refs/.keep", "");
        std::os::unix::fs::symlink("/etc", r.join("target/out")).unwrap();
        std::os::unix::fs::symlink("nowhere", r.join("target/classes/dangling")).unwrap();
        std::os::unix::fs::symlink("loop", r.join("target/loop")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", r.join("out/report/link.xml")).unwrap();
        // A kept path that is itself a link out of the tree: removed as a link, nothing
        // under it walked (an evidence path `classes -> <a folder outside>`).
        let outside = tempfile::tempdir().unwrap();
        w(outside.path(), "victim/keep.txt", "x");
        std::os::unix::fs::symlink(
            outside.path().join("victim/keep.txt"),
            outside.path().join("victim/link"),
        )
        .unwrap();
        std::os::unix::fs::symlink(outside.path().join("victim"), r.join("classes")).unwrap();
        nix::unistd::mkfifo(&r.join("target/pipe"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let changes = b.restore(r, none, &keep).unwrap();
        let odd: Vec<String> = changes
            .iter()
            .map(|(p, c)| {
                assert_eq!(*c, Change::NotData, "{}", p.display());
                p.display().to_string()
            })
            .collect();
        assert_eq!(
            odd,
            [
                "classes",
                "out/report/link.xml",
                "target/--exclude=*.java",
                "target/classes/dangling",
                "target/gitfile/.git",
                "target/loop",
                "target/out",
                "target/pipe",
                "target/sub/.git",
                "target/tools",
            ]
        );
        for gone in &odd {
            assert!(std::fs::symlink_metadata(r.join(gone)).is_err(), "{gone}");
        }
        for kept in [
            "target/classes/A.class",
            "target/sub/file",
            "out/report/r.xml",
        ] {
            assert!(r.join(kept).is_file(), "{kept}");
        }
        assert!(
            Path::new("/etc/passwd").exists(),
            "a link is removed, not followed"
        );
        assert!(outside.path().join("victim/keep.txt").exists());
        assert!(
            std::fs::symlink_metadata(outside.path().join("victim/link")).is_ok(),
            "nothing through the kept path's link is removed"
        );
        let outcome = judged_on_changed_files(
            super::super::build(
                crate::judgment::Judgment::builder(crate::judgment::Status::Pass).reasoning("ok"),
            ),
            &changes,
        )
        .unwrap();
        assert_eq!(outcome.status(), crate::judgment::Status::Fail);
        assert!(
            outcome.reasoning().contains("not output but a link"),
            "{}",
            outcome.reasoning()
        );
    }

    /// Attack finding E7-8: subject code adds a folder deeper than `PATH_MAX` and changes a
    /// submitted file; the walk cannot read the deep entries, which aborted the put-back and
    /// left the change in place. Now the added folder is removed whole and the file put back.
    #[test]
    fn an_entry_too_deep_to_walk_does_not_stop_the_put_back() {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        let ws = tempfile::tempdir().unwrap();
        let r = ws.path();
        w(r, "src/A.java", "class A {}");
        let none: &[PathBuf] = &[];
        let b = Baseline::take(r, none, &Keep::default(), &|_| {}).unwrap();
        w(r, "src/A.java", "class A { evil }");
        // 20 levels of 250-byte names: 5000 bytes, past PATH_MAX; made relative to fds.
        std::fs::create_dir(r.join("deep")).unwrap();
        let name = std::ffi::CString::new("d".repeat(250)).unwrap();
        let mut at = std::fs::File::open(r.join("deep")).unwrap();
        for _ in 0..20 {
            let fd = at.as_raw_fd();
            // SAFETY: `fd` is open, `name` is a valid C string.
            assert_eq!(unsafe { libc::mkdirat(fd, name.as_ptr(), 0o700) }, 0);
            // SAFETY: as above; the result is checked and owned.
            let next =
                unsafe { libc::openat(fd, name.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY) };
            assert!(next >= 0);
            // SAFETY: `next` is a new descriptor no one else owns.
            at = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(next) });
        }
        let changes = b.restore(r, none, &Keep::default()).unwrap();
        assert!(
            changes.contains(&(PathBuf::from("deep"), Change::Added)),
            "{changes:?}"
        );
        assert!(
            changes.contains(&(PathBuf::from("src/A.java"), Change::Changed)),
            "{changes:?}"
        );
        assert_eq!(
            std::fs::read_to_string(r.join("src/A.java")).unwrap(),
            "class A {}"
        );
        assert!(!r.join("deep").exists());
    }

    /// The attack (newer F13): a build leaves a mode-000 folder where a later `! grep -r`
    /// reads, or takes the permissions off a submitted folder: grep exits 2 on it, which `!`
    /// makes a pass. Nothing is left unreadable: a submitted folder's mode is put back (a
    /// change of the submission), a kept folder is opened and listed, scratch is removed.
    #[test]
    fn nothing_subject_code_leaves_is_unreadable() {
        use std::os::unix::fs::PermissionsExt;
        let ws = tempfile::tempdir().unwrap();
        let r = ws.path();
        w(r, "pom.xml", "<project/>");
        w(r, "src/a/A.java", "class A {}");
        let none: &[PathBuf] = &[];
        let maven = Keep {
            tools: vec![BuildTool::Maven],
            paths: Vec::new(),
        };
        let b = Baseline::take(r, none, &maven, &|_| {}).unwrap();
        let mode = |rel: &str| {
            std::fs::symlink_metadata(r.join(rel))
                .unwrap()
                .permissions()
                .mode()
                & 0o7777
        };
        let submitted = mode("src/a");
        let lock = |rel: &str| {
            std::fs::set_permissions(r.join(rel), std::fs::Permissions::from_mode(0o000)).unwrap()
        };
        w(r, "target/locked/x.txt", "javax.servlet");
        w(r, "target/unreadable.txt", "javax.servlet");
        w(r, "out/locked/y.txt", "y");
        lock("target/locked");
        lock("target/unreadable.txt");
        lock("out/locked");
        lock("src/a");
        let changes = b.restore(r, none, &maven).unwrap();
        let shown: Vec<(String, &str)> = changes
            .iter()
            .map(|(p, c)| (p.display().to_string(), c.word()))
            .collect();
        assert_eq!(
            shown,
            [
                ("out".to_string(), "added"),
                ("src/a".to_string(), "changed"),
                ("target/locked".to_string(), "made readable"),
                ("target/unreadable.txt".to_string(), "made readable"),
            ]
        );
        assert_eq!(mode("src/a"), submitted);
        assert_eq!(mode("target/locked") & 0o700, 0o700);
        assert_eq!(mode("target/unreadable.txt") & 0o400, 0o400);
        assert!(!r.join("out").exists());
        let outcome = judged_on_changed_files(
            super::super::build(
                crate::judgment::Judgment::builder(crate::judgment::Status::Pass).reasoning("ok"),
            ),
            &changes[2..],
        )
        .unwrap();
        assert_eq!(outcome.status(), crate::judgment::Status::Pass);
        assert!(
            outcome.reasoning().contains("made them readable"),
            "{}",
            outcome.reasoning()
        );
    }

    #[test]
    fn folders_judge_ci_hides_are_left_alone() {
        let ws = tempfile::tempdir().unwrap();
        let r = ws.path();
        w(r, "a.txt", "a");
        let out = r.join("judge-ci-out");
        let hidden = [PathBuf::from("judge-ci-out")];
        let b = Baseline::take(r, &hidden, &Keep::default(), &|_| {}).unwrap();
        w(r, "judge-ci-out/report.json", "{}");
        assert!(b.restore(r, &hidden, &Keep::default()).unwrap().is_empty());
        assert!(out.join("report.json").exists());
    }
}
