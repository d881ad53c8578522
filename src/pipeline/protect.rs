//! The subject cannot weaken what it is judged by (`spec/trust.md` points 2 and 11):
//! `protected:` paths (the workflows, the build wrappers and settings, the config and the files
//! it names) that the pull request changes are findings of their own, and with
//! `protected-action: fail` a FAIL judgment in the first tier; `restore:` files are copied
//! from the reference into the workspace before any judge runs, as SWE-bench's harness
//! restores test files.

use std::path::{Component, Path};

use git2::{ObjectType, Oid};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::programs::Program;
use crate::config::source::GitTree;
use crate::config::{BUILD_FILES, protected_globs};
use crate::report::{ChangeKind, ConfigFileInfo, ProtectedChange};

/// The largest protected file compared (a larger one is a change: the trusted side's are
/// workflows, wrappers and the config's files).
const MAX_PROTECTED_BYTES: u64 = 256 << 20;

/// The pattern shown for the config's own files.
pub const CONFIG_FILES: &str = "the config and the files it names";

/// Why protection or restoring could not be done.
#[derive(Debug, thiserror::Error)]
pub enum ProtectError {
    /// A glob did not compile (the loader checks them; kept for completeness).
    #[error("glob '{glob}': {source}")]
    Glob {
        /// The glob (or the globs, joined).
        glob: String,
        /// What globset said.
        #[source]
        source: globset::Error,
    },
    /// The trusted tree (or the checked-out commit) cannot be read.
    #[error("cannot read {label}: {source}")]
    ReadTree {
        /// The tree's label ("the base commit of pull request #7").
        label: String,
        /// What reading it said.
        #[source]
        source: std::io::Error,
    },
    /// A protected file cannot be read, written or removed.
    #[error("{path}: {source}")]
    File {
        /// The file, as shown to the user.
        path: String,
        /// What the file system said.
        #[source]
        source: std::io::Error,
    },
    /// A protected path that is not a plain relative path.
    #[error("{0}: not a plain relative path")]
    NotPlain(String),
    /// A file the reference does not hold cannot be removed.
    #[error("remove {path}: {source}")]
    Remove {
        /// The file, as shown to the user.
        path: String,
        /// What removing it said.
        #[source]
        source: std::io::Error,
    },
    /// A file cannot be restored from the reference.
    #[error("restore {path}: {source}")]
    Restore {
        /// The file, as shown to the user.
        path: String,
        /// What reading it said.
        #[source]
        source: std::io::Error,
    },
    /// The workspace holds a symbolic link where a restored file goes.
    #[error(
        "{0} passes through a symbolic link in the workspace; judge-ci writes restored and pinned files only through real folders"
    )]
    Symlink(String),
}

/// The protected globs as one set, matched without regard to case: on a case-insensitive
/// checkout (a reviewer's macOS or Windows clone, `core.ignorecase`) `.GitHub/workflows/x.yml`
/// and `MVNW` are `.github/workflows/x.yml` and `mvnw`, so a case variant of a protected path
/// is a protected change too (trust.md point 2; attack finding NC5-2).
fn globset(globs: &[String]) -> Result<GlobSet, ProtectError> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(
            GlobBuilder::new(g)
                .case_insensitive(true)
                .build()
                .map_err(|source| ProtectError::Glob {
                    glob: g.clone(),
                    source,
                })?,
        );
    }
    b.build().map_err(|source| ProtectError::Glob {
        glob: globs.join(", "),
        source,
    })
}

/// `a/b/c` of a relative path.
fn slash(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// What a path holds, as git records it: its mode and object id. Anything git cannot record
/// (a folder where a file was, a FIFO, a socket, a device) is `Other`, named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    /// A regular file (`100644`) or an executable one (`100755`).
    File { id: Oid, executable: bool },
    /// A symbolic link (`120000`); the id is the target's.
    Link(Oid),
    /// A submodule entry (a gitlink, `160000`); the id is the commit it points at. A working
    /// tree shows it as a folder (empty without `--recurse-submodules`), so it is compared
    /// only as a commit records it.
    Submodule(Oid),
    /// Something git does not record as a blob.
    Other(&'static str),
}

impl Entry {
    /// The entry a tree records with `mode` and `id`.
    fn recorded(id: Oid, mode: i32) -> Entry {
        match mode {
            0o120000 => Entry::Link(id),
            0o160000 => Entry::Submodule(id),
            0o100755 => Entry::File {
                id,
                executable: true,
            },
            _ => Entry::File {
                id,
                executable: false,
            },
        }
    }

    /// What is at `p` in the working tree, without following a link; `None` when nothing is.
    fn on_disk(p: &Path) -> Option<Entry> {
        use std::os::unix::fs::{FileTypeExt, PermissionsExt};
        let m = std::fs::symlink_metadata(p).ok()?;
        let t = m.file_type();
        let blob = |bytes: &[u8]| Oid::hash_object(ObjectType::Blob, bytes).ok();
        Some(if t.is_symlink() {
            let target = std::fs::read_link(p).ok()?;
            match blob(target.as_os_str().as_encoded_bytes()) {
                Some(id) => Entry::Link(id),
                None => Entry::Other("an unreadable link"),
            }
        } else if t.is_file() {
            // The one primitive: a file swapped for a FIFO meanwhile is never opened
            // blocking, and one over the bound is not read whole.
            match crate::untrusted::read(p, MAX_PROTECTED_BYTES) {
                Ok(b) => match blob(&b) {
                    Some(id) => Entry::File {
                        id,
                        executable: m.permissions().mode() & 0o100 != 0,
                    },
                    None => Entry::Other("an unreadable file"),
                },
                Err(crate::untrusted::ReadError::TooLarge { .. }) => {
                    Entry::Other("a file over 256 MiB")
                }
                Err(_) => Entry::Other("an unreadable file"),
            }
        } else if t.is_dir() {
            Entry::Other("a folder")
        } else if t.is_fifo() {
            Entry::Other("a FIFO")
        } else if t.is_socket() {
            Entry::Other("a socket")
        } else if t.is_block_device() || t.is_char_device() {
            Entry::Other("a device")
        } else {
            Entry::Other("a special file")
        })
    }

    /// How it is named in a change's detail.
    fn kind(self) -> &'static str {
        match self {
            Entry::File {
                executable: false, ..
            } => "a file (100644)",
            Entry::File {
                executable: true, ..
            } => "an executable file (100755)",
            Entry::Link(_) => "a symbolic link",
            Entry::Submodule(_) => {
                "a submodule entry (a gitlink: its content is another repository's, which no judge reads)"
            }
            Entry::Other(what) => what,
        }
    }

    /// How `head` differs from `self` (the trusted side's), as git would see it; `None` when
    /// it does not.
    fn change_to(self, head: Option<Entry>) -> Option<(ChangeKind, Option<String>)> {
        let Some(head) = head else {
            return Some((ChangeKind::Deleted, None));
        };
        let detail = || Some(format!("{} → {}", self.kind(), head.kind()));
        match (self, head) {
            (a, b) if a == b => None,
            (Entry::File { id: a, .. }, Entry::File { id: b, .. }) if a == b => {
                Some((ChangeKind::ModeChanged, detail()))
            }
            (Entry::File { .. }, Entry::File { .. }) | (Entry::Link(_), Entry::Link(_)) => {
                Some((ChangeKind::Modified, None))
            }
            (Entry::Submodule(a), Entry::Submodule(b)) => Some((
                ChangeKind::Modified,
                Some(format!(
                    "a submodule entry re-pointed from commit {} to {}",
                    short(a),
                    short(b)
                )),
            )),
            _ => Some((ChangeKind::TypeChanged, detail())),
        }
    }
}

/// The first 12 hex digits of an object id.
fn short(id: Oid) -> String {
    id.to_string().chars().take(12).collect()
}

/// Whether protected files could live under the folder `rel`: a glob covers everything
/// under it (`.mvn/**`) or names a path inside it (`.mvn/maven.config`, `gradle/wrapper/x`).
fn holds_protected(set: &GlobSet, globs: &[String], rel: &str) -> bool {
    let dir = format!("{rel}/");
    set.is_match(format!("{rel}/-"))
        || globs.iter().any(|g| {
            let literal = g.split(['*', '?', '[', '{']).next().unwrap_or("");
            literal.starts_with(&dir)
        })
}

/// The symbolic links in `dir` (not followed, `.git` skipped) that stand where protected
/// files live without being matched themselves (`.mvn` made a link to a folder of the pull
/// request's: the build reads `.mvn/maven.config` through it, while a walk that does not
/// follow links never sees a protected path), with their paths relative to `dir`.
fn links_over_protected(
    dir: &Path,
    set: &GlobSet,
    globs: &[String],
) -> Vec<(std::path::PathBuf, String)> {
    walkdir::WalkDir::new(dir)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || e.file_name() != ".git")
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_symlink())
        .filter_map(|e| {
            let rel = slash(e.path().strip_prefix(dir).ok()?);
            (!set.is_match(&rel) && holds_protected(set, globs, &rel))
                .then(|| (e.path().to_path_buf(), rel))
        })
        .collect()
}

/// What the pull request presents besides its working tree: the commit checked out there
/// (`HEAD` of the repository the trusted tree comes from), whose tree is what a merge takes.
/// A change git records there but a checkout hides (`working-tree-encoding` re-encoding a
/// rewritten workflow back to the base's bytes, a folder made a link to a copy of itself) is
/// a change all the same.
pub struct Presented<'a> {
    /// The subject's copy of the repository root ([`Layout::root`]).
    pub root: &'a Path,
    /// The workspace's place in it ([`Layout::prefix`]): its build wrappers and settings
    /// ([`BUILD_FILES`]) are protected there whatever `protected:` says, as they are pinned.
    pub prefix: &'a str,
    /// The tree of the commit checked out at `root`, when `root` is the trusted tree's working
    /// tree (not a `--head` checkout, whose files are that commit's blobs as they are).
    pub head: Option<GitTree>,
}

/// The globs a run protects, each with how the report names why: `protected` (the defaults
/// when `None`), the workspace's build wrappers and settings ([`BUILD_FILES`] at `prefix`), the
/// repository files the checks run as programs ([`Program`], attack findings GA1 and NC19),
/// and whatever a protected symbolic link of the trusted tree leads to inside the repository
/// (attack finding NC20: `check.sh -> scripts/impl.sh` protects `scripts/impl.sh` too, and a
/// linked folder everything under it).
struct Watched {
    globs: Vec<String>,
    why: Vec<String>,
}

/// The files that decide how git records and presents paths, protected in every run.
const GIT_RECORDING_FILES: [&str; 2] = ["**/.gitattributes", ".gitmodules"];

fn watched(
    tree: &GitTree,
    protected: Option<&[String]>,
    prefix: &str,
    programs: &[Program],
) -> Result<Watched, ProtectError> {
    let mut w = Watched {
        globs: Vec::new(),
        why: Vec::new(),
    };
    let add = |w: &mut Watched, glob: String, why: String| {
        if w.globs.contains(&glob) {
            return false;
        }
        w.globs.push(glob);
        w.why.push(why);
        true
    };
    for g in protected_globs(protected) {
        add(&mut w, g.clone(), g);
    }
    // What decides how git records and presents every path, protected ones included: the
    // attributes (`eol`, `-diff`, `merge=ours`, `linguist-generated` on `.github/**` hide or
    // change a protected change in the pull request's view) and the submodules' addresses.
    // Protected whatever `protected:` says (attack findings NC11, NC3's `.gitmodules` part).
    for g in GIT_RECORDING_FILES {
        add(
            &mut w,
            g.to_string(),
            format!("{g} (how git records protected paths)"),
        );
    }
    for b in BUILD_FILES {
        let g = if prefix.is_empty() {
            b.to_string()
        } else {
            format!("{prefix}/{b}")
        };
        add(&mut w, g.clone(), g);
    }
    for p in programs {
        add(
            &mut w,
            globset::escape(&p.path),
            format!("run by check `{}`", p.check),
        );
    }
    // What a protected program or file is read with by convention, beside it (attack
    // findings N7-3, N7-4): a pinned script is not the judge's if the pull request decides
    // what it imports or which makefile make reads first.
    let literal: Vec<String> = w
        .globs
        .iter()
        .filter(|g| !g.contains(['*', '?', '[', '{']))
        .cloned()
        .collect();
    for path in literal {
        for (glob, why) in implicit_inputs(&path, prefix) {
            add(&mut w, glob, why);
        }
    }
    let blobs = super::programs::blobs_of(tree).map_err(|source| ProtectError::ReadTree {
        label: tree.label().to_string(),
        source,
    })?;
    let mut links: Vec<&String> = blobs
        .iter()
        .filter(|(_, (_, mode))| *mode == 0o120000)
        .map(|(p, _)| p)
        .collect();
    links.sort();
    // A link may lead to another protected link: until nothing new is protected (bounded).
    for _ in 0..8 {
        let set = globset(&w.globs)?;
        let mut grew = false;
        for link in links.iter().filter(|l| set.is_match(l.as_str())) {
            let Some((through, end)) = super::programs::follow(tree, &blobs, link) else {
                continue;
            };
            for p in through.iter().chain(std::iter::once(&end)) {
                if p == *link {
                    continue;
                }
                let dir = format!("{p}/");
                let glob = if blobs.contains_key(p) {
                    globset::escape(p)
                } else if blobs.keys().any(|k| k.starts_with(&dir)) {
                    format!("{}/**", globset::escape(p))
                } else {
                    continue;
                };
                grew |= add(
                    &mut w,
                    glob,
                    format!("the target of the protected link {link}"),
                );
            }
        }
        if !grew {
            break;
        }
    }
    Ok(w)
}

/// The files a program at the repository-relative `path` is read with by convention, as
/// globs beside it, each with why (attack findings N7-3, N7-4): a Python script imports from
/// its own folder first (`sys.path[0]`: a `json.py`, a `json/__init__.py`, a compiled `json.so`
/// or sourceless `json.pyc` there shadows the standard library's), a Node script resolves
/// packages from the `node_modules` beside it and reads the module type from `package.json`,
/// and `make` reads `GNUmakefile`, then `makefile`, before `Makefile`. A script at the
/// workspace's top (`workspace`, repository-relative) gets no Python or Node siblings: that
/// folder is the subject's own code, which pinning would replace by the base's unseen (a
/// Python task whose judge is `python3 check.py` beside `app.py`); keep such a judge in a
/// folder of its own.
pub fn implicit_inputs(path: &str, workspace: &str) -> Vec<(String, String)> {
    let (folder, name) = path.rsplit_once('/').unwrap_or(("", path));
    let dir = if folder.is_empty() {
        String::new()
    } else {
        format!("{}/", globset::escape(folder))
    };
    let at_top = folder == workspace.trim_matches('/');
    let beside = |what: &[&str], why: &str| -> Vec<(String, String)> {
        what.iter()
            .map(|g| (format!("{dir}{g}"), format!("{why} {path}")))
            .collect()
    };
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    match (name, ext) {
        ("GNUmakefile" | "makefile" | "Makefile", _) => beside(
            &["GNUmakefile", "makefile", "Makefile"],
            "read by make before or instead of",
        ),
        (_, Some("py" | "js" | "mjs" | "cjs")) if at_top => Vec::new(),
        (_, Some("py")) => beside(
            &[
                "*.py",
                "*.pyc",
                "*.so",
                "*/__init__.py",
                "*/__init__.pyc",
                "*/__init__.so",
                "__pycache__/**",
            ],
            "imported first by the Python script",
        ),
        (_, Some("js" | "mjs" | "cjs")) => beside(
            &["node_modules/**", "package.json"],
            "resolved first by the Node script",
        ),
        _ => Vec::new(),
    }
}

/// Every protected file the subject ([`Presented`]: the pull request's working tree laid out as
/// the repository, and the commit checked out there) changes against the trusted tree: the
/// globs of `protected` (the defaults when `None`) and the workspace's build wrappers and
/// settings, and the config-side files, each compared by content, mode and type.
pub fn protected_changes(
    tree: &GitTree,
    presented: &Presented<'_>,
    protected: Option<&[String]>,
    config_files: &[ConfigFileInfo],
    programs: &[Program],
) -> Result<Vec<ProtectedChange>, ProtectError> {
    let subject = presented.root;
    let Watched { globs, why } = watched(tree, protected, presented.prefix, programs)?;
    let set = globset(&globs)?;
    let named: std::collections::HashSet<&str> =
        config_files.iter().map(|f| f.path.as_str()).collect();
    let pattern_of = |path: &str| {
        set.matches(path)
            .first()
            .map(|&i| why[i].clone())
            .unwrap_or_else(|| CONFIG_FILES.to_string())
    };
    let watched = |p: &str| set.is_match(p) || named.contains(p);
    let mut out: Vec<ProtectedChange> = Vec::new();
    let base = tree
        .entries(&watched)
        .map_err(|source| ProtectError::ReadTree {
            label: tree.label().to_string(),
            source,
        })?;
    let mut seen = std::collections::HashSet::new();
    for (path, id, mode) in &base {
        seen.insert(path.clone());
        if matches!(Entry::recorded(*id, *mode), Entry::Submodule(_)) {
            // A working tree shows a submodule as a folder: compared below, as the
            // checked-out commit records it.
            continue;
        }
        let head = Entry::on_disk(&subject.join(path));
        if let Some((change, detail)) = Entry::recorded(*id, *mode).change_to(head) {
            out.push(ProtectedChange {
                path: path.clone(),
                pattern: pattern_of(path),
                change,
                detail,
            });
        }
    }
    for e in walkdir::WalkDir::new(subject)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || e.file_name() != ".git")
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
    {
        let Ok(rel) = e.path().strip_prefix(subject) else {
            continue;
        };
        let rel = slash(rel);
        if set.is_match(&rel) && !seen.contains(&rel) {
            out.push(ProtectedChange {
                pattern: pattern_of(&rel),
                path: rel,
                change: ChangeKind::Added,
                detail: None,
            });
        }
    }
    // A link where protected files live (`.mvn -> cfg`): a type change git records, named.
    for (_, rel) in links_over_protected(subject, &set, &globs) {
        let had_files = base
            .iter()
            .any(|(p, _, _)| p.starts_with(&format!("{rel}/")));
        out.push(ProtectedChange {
            pattern: globs
                .iter()
                .find(|g| {
                    let one = std::slice::from_ref(*g);
                    globset(one).is_ok_and(|set| holds_protected(&set, one, &rel))
                })
                .cloned()
                .unwrap_or_default(),
            detail: Some(format!(
                "{} → a symbolic link (protected files would be read through it)",
                if had_files { "a folder" } else { "nothing" }
            )),
            change: if had_files {
                ChangeKind::TypeChanged
            } else {
                ChangeKind::Added
            },
            path: rel,
        });
    }
    // What the checked-out commit records, where the working tree does not show it.
    if let Some(head) = &presented.head {
        let recorded: std::collections::HashMap<String, Entry> = head
            .entries(&watched)
            .map_err(|source| ProtectError::ReadTree {
                label: head.label().to_string(),
                source,
            })?
            .into_iter()
            .map(|(p, id, mode)| (p, Entry::recorded(id, mode)))
            .collect();
        let mut found = Vec::new();
        for (path, id, mode) in &base {
            if let Some((change, detail)) =
                Entry::recorded(*id, *mode).change_to(recorded.get(path).copied())
            {
                found.push((path.clone(), change, detail));
            }
        }
        let in_base: std::collections::HashSet<&str> =
            base.iter().map(|(p, _, _)| p.as_str()).collect();
        for path in recorded.keys().filter(|p| !in_base.contains(p.as_str())) {
            found.push((path.clone(), ChangeKind::Added, None));
        }
        for (path, change, detail) in found {
            if out.iter().any(|c| c.path == path) {
                continue;
            }
            out.push(ProtectedChange {
                pattern: pattern_of(&path),
                detail: Some(match detail {
                    Some(d) => format!("{d}, as {} records it", head.label()),
                    None => format!(
                        "as {} records it; the checked-out files do not show it",
                        head.label()
                    ),
                }),
                change,
                path,
            });
        }
    }
    for f in config_files.iter().filter(|f| f.changed) {
        if out.iter().any(|c| c.path == f.path) {
            continue;
        }
        out.push(ProtectedChange {
            path: f.path.clone(),
            pattern: CONFIG_FILES.into(),
            change: match (&f.sha256, &f.head_sha256) {
                (None, _) => ChangeKind::Added,
                (_, None) => ChangeKind::Deleted,
                _ => ChangeKind::Modified,
            },
            detail: None,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Writes `bytes` at `rel` inside `workspace`, creating real folders; a symbolic link the
/// subject put where the file goes is replaced, one on the way to it (a linked folder) is
/// refused, so nothing is written outside the workspace.
fn write_inside(
    workspace: &Path,
    rel: &Path,
    bytes: &[u8],
    shown: &str,
) -> Result<(), ProtectError> {
    let io = |source: std::io::Error| ProtectError::File {
        path: shown.to_string(),
        source,
    };
    let mut dir = workspace.to_path_buf();
    let parts: Vec<Component> = rel.components().collect();
    let Some((name, parents)) = parts.split_last() else {
        return Ok(());
    };
    for c in parents {
        if !matches!(c, Component::Normal(_)) {
            return Err(ProtectError::NotPlain(shown.to_string()));
        }
        dir.push(c);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(ProtectError::Symlink(shown.to_string()));
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => std::fs::remove_file(&dir)
                .and_then(|_| std::fs::create_dir(&dir))
                .map_err(io)?,
            Err(_) => std::fs::create_dir(&dir).map_err(io)?,
        }
    }
    let target = dir.join(name);
    if let Ok(m) = std::fs::symlink_metadata(&target) {
        if m.is_dir() {
            std::fs::remove_dir_all(&target).map_err(io)?;
        } else {
            std::fs::remove_file(&target).map_err(io)?;
        }
    }
    std::fs::write(&target, bytes).map_err(io)
}

/// Where the subject lies against the trusted tree: the folder laid out as the repository
/// (the working tree's root when the workspace is inside it, else the workspace itself, a
/// materialised `--head`), and the workspace's path inside it (`""` at the root).
pub struct Layout {
    /// The subject's copy of the repository root.
    pub root: std::path::PathBuf,
    /// The workspace relative to that root, with `/`, without a trailing one.
    pub prefix: String,
}

/// The [`Layout`] of `workspace` against `tree`.
pub fn layout(tree: &GitTree, workspace: &Path) -> Layout {
    let ws = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_path_buf());
    match ws.strip_prefix(tree.root()) {
        Ok(rel) => Layout {
            root: tree.root().to_path_buf(),
            prefix: slash(rel),
        },
        Err(_) => Layout {
            root: ws.clone(),
            prefix: String::new(),
        },
    }
}

/// Makes the workspace's build wrappers and settings ([`BUILD_FILES`], relative to the
/// workspace, where the build runs) the trusted tree's. `prefix` is the workspace's place in
/// the tree ([`layout`]). Returns what changed.
pub fn pin_build_files(
    tree: &GitTree,
    workspace: &Path,
    prefix: &str,
) -> Result<Pinned, ProtectError> {
    let globs: Vec<String> = BUILD_FILES.iter().map(|s| s.to_string()).collect();
    pin_to_trusted(tree, workspace, prefix, &globs)
}

/// Outside a pull-request context there is no base to pin the build's own files from, and
/// the reference is the trusted side: each build wrapper or setting ([`BUILD_FILES`], at the
/// workspace's root, where the build runs) that the workspace has otherwise than the reference
/// (added, removed, another content or executable bit, not a regular file), as "path (what)".
/// A subject that rewrites `mvnw` to exit 0, or deletes it so that a missing system tool is
/// blamed on judge-ci, is found before any build runs (attack findings B11-3, B11-4).
pub fn build_files_unlike_reference(
    workspace: &Path,
    reference: &crate::judges::structural::tree::Tree,
) -> Result<Vec<String>, ProtectError> {
    use std::os::unix::fs::PermissionsExt;
    let globs: Vec<String> = BUILD_FILES.iter().map(|s| s.to_string()).collect();
    let include = globset(&globs)?;
    let none = GlobSet::empty();
    let unreadable = |what: &str, e: &dyn std::fmt::Display| ProtectError::ReadTree {
        label: what.to_string(),
        source: std::io::Error::other(e.to_string()),
    };
    let (ours, odd) = crate::judges::structural::walk(workspace, &include, &none)
        .map_err(|e| unreadable("the workspace's build files", &e))?;
    let theirs = reference
        .list(&include, &none)
        .map_err(|e| unreadable("the reference's build files", &e))?;
    let executable = |root: &Path, rel: &str| {
        std::fs::metadata(root.join(rel)).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    };
    let mut out: Vec<String> = odd
        .into_iter()
        .map(|(rel, kind)| format!("{rel} (a {kind}, not a regular file)"))
        .collect();
    let names: std::collections::BTreeSet<&String> = ours.keys().chain(theirs.keys()).collect();
    for rel in names {
        let what = match (ours.contains_key(rel), theirs.contains_key(rel)) {
            (true, false) => Some("added: the reference has no such file"),
            (false, true) => {
                if out.iter().any(|o| o.starts_with(&format!("{rel} ("))) {
                    None
                } else {
                    Some("removed: the reference has it")
                }
            }
            _ => {
                let ws = crate::untrusted::read(&workspace.join(rel), MAX_PROTECTED_BYTES);
                match (ws, reference.read(rel)) {
                    (Ok(a), Ok(b)) if a != b => Some("modified"),
                    (Ok(_), Ok(_)) => (!reference.in_git()
                        && executable(workspace, rel) != executable(reference.folder(), rel))
                    .then_some("mode changed"),
                    _ => Some("cannot be compared with the reference's"),
                }
            }
        };
        if let Some(w) = what {
            out.push(format!("{rel} ({w})"));
        }
    }
    out.sort();
    Ok(out)
}

/// Makes every protected path (`protected`, the defaults when `None`; the workspace's build
/// files at `prefix`; the programs the checks run; what protected links lead to: see
/// `watched`; relative to the repository root `root`) what the trusted tree records, so a
/// judge that runs or reads one (a wrapper, a settings file, a script a check runs) uses the
/// trusted side's copy whatever `protected-action` says (trust.md point 2). Returns what
/// changed and what is pinned.
pub fn pin_protected(
    tree: &GitTree,
    root: &Path,
    protected: Option<&[String]>,
    prefix: &str,
    programs: &[Program],
) -> Result<Pinned, ProtectError> {
    let globs = watched(tree, protected, prefix, programs)?.globs;
    pin_to_trusted(tree, root, "", &globs)
}

/// Makes every path under `dir` that `globs` match (relative to `dir`, which is at `prefix` in
/// the tree) exactly what the trusted tree records: its content, its mode (executable or not)
/// and its type (a file, or a link with the recorded target); one the tree lacks is removed.
/// Returns what changed and every file it pinned.
fn pin_to_trusted(
    tree: &GitTree,
    dir: &Path,
    prefix: &str,
    globs: &[String],
) -> Result<Pinned, ProtectError> {
    use std::os::unix::fs::PermissionsExt;
    let set = globset(globs)?;
    let under = |p: &str| -> Option<String> {
        if prefix.is_empty() {
            Some(p.to_string())
        } else {
            p.strip_prefix(prefix)
                .and_then(|r| r.strip_prefix('/'))
                .map(str::to_string)
        }
    };
    let base: Vec<(String, Oid, i32)> = tree
        .blobs(&|p| under(p).is_some_and(|r| set.is_match(&r)))
        .map_err(|source| ProtectError::ReadTree {
            label: tree.label().to_string(),
            source,
        })?
        .into_iter()
        .filter_map(|(p, id, mode)| under(&p).map(|r| (r, id, mode)))
        .collect();
    let mut changed = Vec::new();
    // A link the pull request planted where protected files live goes first (removed as a
    // link, never followed), so the trusted files are written into a real folder.
    for (link, rel) in links_over_protected(dir, &set, globs) {
        std::fs::remove_file(&link).map_err(|source| ProtectError::File {
            path: rel.clone(),
            source,
        })?;
        changed.push(format!(
            "{rel} (removed: a link where protected files live)"
        ));
    }
    let mut keep = std::collections::HashSet::new();
    for (path, id, mode) in &base {
        keep.insert(path.clone());
        let here = dir.join(path);
        let recorded = Entry::recorded(*id, *mode);
        if Entry::on_disk(&here) == Some(recorded) {
            continue;
        }
        let io = |source: std::io::Error| ProtectError::File {
            path: path.clone(),
            source,
        };
        let bytes = tree.blob(*id).map_err(io)?;
        match recorded {
            Entry::Link(_) => {
                // The recorded link, as a checkout of the base would make it.
                write_inside(dir, Path::new(path), &[], path)?;
                std::fs::remove_file(&here).map_err(io)?;
                let target = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&bytes);
                std::os::unix::fs::symlink(target, &here).map_err(io)?;
            }
            Entry::File { executable, .. } => {
                write_inside(dir, Path::new(path), &bytes, path)?;
                let mode = if executable { 0o755 } else { 0o644 };
                std::fs::set_permissions(&here, std::fs::Permissions::from_mode(mode))
                    .map_err(io)?;
            }
            // `blobs` lists no submodule entry, and nothing else can be written back.
            Entry::Submodule(_) | Entry::Other(_) => {}
        }
        changed.push(format!("{path} (the base's)"));
    }
    for e in walkdir::WalkDir::new(dir)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || e.file_name() != ".git")
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
    {
        let Ok(rel) = e.path().strip_prefix(dir) else {
            continue;
        };
        let rel = slash(rel);
        if set.is_match(&rel) && !keep.contains(&rel) {
            std::fs::remove_file(e.path()).map_err(|source| ProtectError::File {
                path: rel.clone(),
                source,
            })?;
            changed.push(format!("{rel} (removed: not in the base)"));
        }
    }
    let files = base
        .iter()
        .filter(|(_, _, mode)| matches!(Entry::recorded(Oid::ZERO_SHA1, *mode), Entry::File { .. }))
        .map(|(p, _, _)| dir.join(p))
        .collect();
    Ok(Pinned { changed, files })
}

/// What [`pin_protected`] and [`pin_build_files`] did.
#[derive(Debug, Default)]
pub struct Pinned {
    /// What changed, each "path (the base's)" or "path (removed: not in the base)".
    pub changed: Vec<String>,
    /// Every regular file now as the trusted tree records it (the fence makes them
    /// read-only to subject processes: [`crate::fence::Fence::pin_protected`]).
    pub files: Vec<std::path::PathBuf>,
}

/// Copies every file of `reference` that `globs` match into `workspace` at the same path,
/// replacing what is there, after removing every file of the workspace under `globs` that the
/// reference does not have; returns both lists. A symbolic link the subject put where a
/// restored file goes is replaced; one on the way to it (a linked folder) is removed when the
/// globs cover it and refused otherwise, so nothing is written outside the workspace.
pub fn restore(
    reference: &Path,
    workspace: &Path,
    globs: &[String],
) -> Result<Restored, ProtectError> {
    if globs.is_empty() {
        return Ok(Restored::default());
    }
    let set = globset(globs)?;
    let mut out = Restored::default();
    let theirs: Vec<(std::path::PathBuf, String)> = walkdir::WalkDir::new(reference)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || e.file_name() != ".git")
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let rel = e.path().strip_prefix(reference).ok()?.to_path_buf();
            let shown = slash(&rel);
            set.is_match(&shown).then_some((rel, shown))
        })
        .collect();
    let names: std::collections::HashSet<&str> = theirs.iter().map(|(_, s)| s.as_str()).collect();
    // What the pull request added under the restored globs (a listener, a JUnit extension,
    // a `META-INF/services` file, `junit-platform.properties`, a Surefire report) is not the
    // reference's: removed, so the restored globs hold exactly the reference's files. A link
    // where restored files would live is removed as a link, never followed.
    let mut extra = Vec::new();
    for e in walkdir::WalkDir::new(workspace)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || e.file_name() != ".git")
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
    {
        let Ok(rel) = e.path().strip_prefix(workspace) else {
            continue;
        };
        let shown = slash(rel);
        let under = set.is_match(&shown)
            || (e.file_type().is_symlink() && set.is_match(format!("{shown}/-")));
        if under && !names.contains(shown.as_str()) {
            extra.push((e.path().to_path_buf(), shown));
        }
    }
    for (path, shown) in extra {
        std::fs::remove_file(&path).map_err(|source| ProtectError::Remove {
            path: shown.clone(),
            source,
        })?;
        out.removed.push(shown);
    }
    for (rel, shown) in theirs {
        let bytes =
            std::fs::read(reference.join(&rel)).map_err(|source| ProtectError::Restore {
                path: shown.clone(),
                source,
            })?;
        // What the workspace held there, read without following a link or blocking.
        let held = crate::untrusted::read(&workspace.join(&rel), bytes.len() as u64 + 1).ok();
        if held.as_deref() != Some(bytes.as_slice()) {
            out.revealed.push(shown.clone());
        }
        write_inside(workspace, &rel, &bytes, &shown)?;
        out.restored.push(shown);
    }
    Ok(out)
}

/// What `restore:` did to the workspace: the reference's files it wrote, and the files the
/// pull request had added under the restored globs that it removed.
#[derive(Debug, Default)]
pub struct Restored {
    /// Files copied from the reference.
    pub restored: Vec<String>,
    /// Files under the restored globs the reference does not have, removed before judging.
    pub removed: Vec<String>,
    /// The restored files whose bytes the workspace did not hold before: reference content
    /// subject processes can now read (the fence says so: attack finding S8-4).
    pub revealed: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::git;

    /// The working tree at `root`, the repository's root, without its commit.
    fn at(root: &Path) -> Presented<'_> {
        Presented {
            root,
            prefix: "",
            head: None,
        }
    }

    /// The base commit of a fresh repository at `root` holding `files` (path, content, mode).
    fn base_of(root: &Path, files: &[(&str, &str, u32)]) -> GitTree {
        use std::os::unix::fs::PermissionsExt;
        git(root, &["init", "-q"]);
        for (p, c, mode) in files {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), c).unwrap();
            std::fs::set_permissions(root.join(p), std::fs::Permissions::from_mode(*mode)).unwrap();
        }
        git(root, &["add", "."]);
        git(root, &["commit", "-qm", "base"]);
        let repo = git2::Repository::open(root).unwrap();
        let id = repo.head().unwrap().peel_to_commit().unwrap().id();
        GitTree::new(repo.path().to_path_buf(), root, id, "base".into())
    }

    /// Attack finding B11-14: a config listing its own `protected:` (here only the tests)
    /// still protects the workflows, which in a `pull_request` run are the gate itself.
    #[test]
    fn build_files_unlike_the_reference_are_found_outside_a_pull_request() {
        use std::os::unix::fs::PermissionsExt;
        let write = |root: &Path, files: &[(&str, &str)]| {
            for (p, c) in files {
                std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
                std::fs::write(root.join(p), c).unwrap();
            }
        };
        let root = tempfile::tempdir().unwrap();
        let (ws, rf) = (root.path().join("ws"), root.path().join("rf"));
        for d in [&ws, &rf] {
            write(
                d,
                &[
                    ("mvnw", "#!/bin/sh\nexec mvn \"$@\"\n"),
                    ("gradlew", "#!/bin/sh\n"),
                    (
                        ".mvn/wrapper/maven-wrapper.properties",
                        "distributionUrl=x\n",
                    ),
                    ("src/A.java", "class A {}\n"),
                ],
            );
            for x in ["mvnw", "gradlew"] {
                std::fs::set_permissions(d.join(x), std::fs::Permissions::from_mode(0o755))
                    .unwrap();
            }
        }
        let tree = crate::judges::structural::tree::Tree::Folder(rf.clone());
        assert!(build_files_unlike_reference(&ws, &tree).unwrap().is_empty());
        // B11-3: a wrapper that exits 0; B11-4: a deleted one; a setting the reference has
        // not; a mode change; a link where a setting lives.
        std::fs::write(ws.join("mvnw"), "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::remove_file(ws.join(".mvn/wrapper/maven-wrapper.properties")).unwrap();
        write(&ws, &[(".mvn/jvm.config", "-javaagent:x.jar\n")]);
        std::fs::set_permissions(ws.join("gradlew"), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        std::os::unix::fs::symlink("/etc/passwd", ws.join("gradle.properties")).unwrap();
        std::fs::write(ws.join("src/A.java"), "class A { int x; }\n").unwrap();
        assert_eq!(
            build_files_unlike_reference(&ws, &tree).unwrap(),
            [
                ".mvn/jvm.config (added: the reference has no such file)",
                ".mvn/wrapper/maven-wrapper.properties (removed: the reference has it)",
                "gradle.properties (a symlink, not a regular file)",
                "gradlew (mode changed)",
                "mvnw (modified)",
            ]
        );
    }

    #[test]
    fn a_protected_list_adds_to_the_workflows_never_replaces_them() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let tree = base_of(
            root,
            &[
                (".github/workflows/judge.yml", "on: pull_request\n", 0o644),
                ("src/test/T.java", "class T {}\n", 0o644),
            ],
        );
        std::fs::write(root.join(".github/workflows/judge.yml"), "on: push\n").unwrap();
        std::fs::write(root.join("src/test/T.java"), "class T { }\n").unwrap();
        let globs = ["src/test/**".to_string()];
        let found = protected_changes(&tree, &at(root), Some(&globs), &[], &[]).unwrap();
        let got: Vec<(&str, &str)> = found
            .iter()
            .map(|c| (c.path.as_str(), c.pattern.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (".github/workflows/judge.yml", ".github/**"),
                ("src/test/T.java", "src/test/**"),
            ],
            "{found:?}"
        );
    }

    /// Newer attack pass F3 and F20: what the pull request commits is compared as git
    /// records it, not only as the checkout shows it. `.github` replaced by a link to a copy
    /// (the workflow is gone from the tree; the checkout reads the same bytes through the
    /// link) and a workflow whose blob was rewritten while a `working-tree-encoding` attribute
    /// makes the checkout byte-identical to the base (here: the blob committed, the file put
    /// back in the working tree) are both changes.
    #[test]
    fn what_the_checked_out_commit_records_is_compared_too() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let tree = base_of(
            root,
            &[
                ("ci/gate.yml", "on: pull_request\n", 0o644),
                (".github/CODEOWNERS", "* @owner\n", 0o644),
                ("src/A.java", "class A {}\n", 0o644),
            ],
        );
        // The rewritten blob, then the checkout's bytes as the base's.
        std::fs::write(root.join(".github/CODEOWNERS"), "\u{2123}garbage\n").unwrap();
        git(root, &["commit", "-qam", "re-encoded"]);
        std::fs::write(root.join(".github/CODEOWNERS"), "* @owner\n").unwrap();
        // The protected folder moved and linked back (`mv .github gh2; ln -s gh2 .github`).
        git(root, &["mv", "ci", "ci2"]);
        std::os::unix::fs::symlink("ci2", root.join("ci")).unwrap();
        git(root, &["add", "ci"]);
        git(root, &["commit", "-qm", "linked"]);
        let mut presented = at(root);
        let globs = [".github/**".to_string(), "ci/**".to_string()];
        let before = protected_changes(&tree, &presented, Some(&globs), &[], &[]).unwrap();
        assert!(
            !before.iter().any(|c| c.path == ".github/CODEOWNERS"),
            "the checkout alone does not show the re-encoded blob: {before:?}"
        );
        presented.head = tree.checked_out();
        let found = protected_changes(&tree, &presented, Some(&globs), &[], &[]).unwrap();
        let got: Vec<(&str, ChangeKind)> =
            found.iter().map(|c| (c.path.as_str(), c.change)).collect();
        assert_eq!(
            got,
            [
                (".github/CODEOWNERS", ChangeKind::Modified),
                ("ci", ChangeKind::TypeChanged),
                ("ci/gate.yml", ChangeKind::Deleted),
            ],
            "{found:?}"
        );
        assert!(
            found[0]
                .detail
                .as_deref()
                .unwrap_or("")
                .contains("records it"),
            "{found:?}"
        );
    }

    /// Attack findings NC3, NC5-1 and FI5-2 (trust.md point 2): a submodule entry (gitlink)
    /// is a change git records like any other — added under a protected glob, put where a
    /// protected folder was, or re-pointed to another commit — and each is a protected change
    /// named as a gitlink, compared as the checked-out commit records it (a checkout without
    /// submodules shows only an empty folder).
    #[test]
    fn a_gitlink_under_a_protected_glob_is_a_protected_change() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let tree = base_of(
            root,
            &[
                (".github/workflows/ci.yml", "on: push\n", 0o644),
                ("tools/gen.sh", "echo hi\n", 0o755),
                ("README.md", "hello\n", 0o644),
            ],
        );
        let base = tree.commit();
        let link = |path: &str, id: &str| {
            git(
                root,
                &[
                    "update-index",
                    "--add",
                    "--cacheinfo",
                    &format!("160000,{id},{path}"),
                ],
            );
        };
        // A gitlink added under .github/**, and tools/ made one.
        link(".github/actions", &base);
        git(root, &["rm", "-rq", "--cached", "tools"]);
        std::fs::remove_dir_all(root.join("tools")).unwrap();
        link("tools", &base);
        // A checkout without submodules: empty folders where the gitlinks are.
        std::fs::create_dir_all(root.join(".github/actions")).unwrap();
        std::fs::create_dir_all(root.join("tools")).unwrap();
        git(root, &["commit", "-qm", "gitlinks"]);
        let mut presented = at(root);
        presented.head = tree.checked_out();
        let globs = [
            ".github/**".to_string(),
            "tools/**".to_string(),
            "tools".to_string(),
        ];
        let found = protected_changes(&tree, &presented, Some(&globs), &[], &[]).unwrap();
        let got: Vec<(&str, ChangeKind)> =
            found.iter().map(|c| (c.path.as_str(), c.change)).collect();
        assert!(
            got.contains(&(".github/actions", ChangeKind::Added)),
            "{found:?}"
        );
        assert!(got.contains(&("tools", ChangeKind::Added)), "{found:?}");
        assert!(
            got.contains(&("tools/gen.sh", ChangeKind::Deleted)),
            "{found:?}"
        );
        // Re-pointed: a base that records the gitlink, a head that points it elsewhere.
        let with_link = GitTree::new(
            git2::Repository::open(root).unwrap().path().to_path_buf(),
            root,
            git2::Repository::open(root)
                .unwrap()
                .head()
                .unwrap()
                .peel_to_commit()
                .unwrap()
                .id(),
            "base with a gitlink".into(),
        );
        let other = "1111111111111111111111111111111111111111";
        link(".github/actions", other);
        git(root, &["commit", "-qm", "re-pointed"]);
        presented.head = with_link.checked_out();
        let found = protected_changes(&with_link, &presented, Some(&globs), &[], &[]).unwrap();
        let re = found
            .iter()
            .find(|c| c.path == ".github/actions")
            .unwrap_or_else(|| panic!("{found:?}"));
        assert_eq!(re.change, ChangeKind::Modified, "{found:?}");
        assert!(
            re.detail
                .as_deref()
                .unwrap_or("")
                .contains("re-pointed from commit"),
            "{found:?}"
        );
        // The same gitlink on both sides, shown as an empty folder: no change.
        presented.head = None;
        let unchanged = protected_changes(&with_link, &presented, Some(&globs), &[], &[]).unwrap();
        assert!(
            !unchanged.iter().any(|c| c.path == ".github/actions"),
            "an empty folder where the base records a gitlink is not a change: {unchanged:?}"
        );
    }

    /// Newer attack pass F4 and F17: a mode change of a file the config names (the
    /// reference's `mvnw` losing its executable bit) is a change like a content change, and
    /// the workspace's build wrappers and settings, which are always pinned to the base's,
    /// are protected paths whatever `protected:` lists and wherever the workspace sits.
    #[test]
    fn config_files_modes_and_the_workspace_s_wrappers_are_protected() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let tree = base_of(
            root,
            &[
                ("reference/mvnw", "#!/bin/sh\n", 0o755),
                ("workspace/mvnw", "#!/bin/sh\nexec mvn \"$@\"\n", 0o755),
                ("workspace/pom.xml", "<project/>\n", 0o644),
            ],
        );
        std::fs::set_permissions(
            root.join("reference/mvnw"),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        std::fs::write(root.join("workspace/mvnw"), "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::create_dir_all(root.join("workspace/.mvn")).unwrap();
        std::fs::write(root.join("workspace/.mvn/maven.config"), "-DskipTests\n").unwrap();
        let digest = |p: &str| {
            Some(hex::encode(<sha2::Sha256 as sha2::Digest>::digest(
                std::fs::read(root.join(p)).unwrap(),
            )))
        };
        let named = [ConfigFileInfo {
            changed: false,
            path: "reference/mvnw".into(),
            sha256: digest("reference/mvnw"),
            head_sha256: digest("reference/mvnw"),
        }];
        let presented = Presented {
            root,
            prefix: "workspace",
            head: None,
        };
        let found = protected_changes(&tree, &presented, Some(&[".github/**".into()]), &named, &[])
            .unwrap();
        let got: Vec<(&str, ChangeKind, &str)> = found
            .iter()
            .map(|c| (c.path.as_str(), c.change, c.pattern.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("reference/mvnw", ChangeKind::ModeChanged, CONFIG_FILES),
                (
                    "workspace/.mvn/maven.config",
                    ChangeKind::Added,
                    "workspace/.mvn/**"
                ),
                ("workspace/mvnw", ChangeKind::Modified, "workspace/mvnw"),
            ],
            "{found:?}"
        );
    }

    #[test]
    fn a_workspace_in_a_subfolder_gets_its_own_build_files_from_the_base() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        git(root, &["init", "-q"]);
        for (p, c) in [
            (".mvn/jvm.config", "-Xmx1g\n"),
            ("svc/.mvn/maven.config", "-T2\n"),
            ("svc/mvnw", "#!/bin/sh\nexec mvn \"$@\"\n"),
            (".github/workflows/ci.yml", "on: push\n"),
        ] {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), c).unwrap();
        }
        git(root, &["add", "."]);
        git(root, &["commit", "-qm", "base"]);
        let repo = git2::Repository::open(root).unwrap();
        let id = repo.head().unwrap().peel_to_commit().unwrap().id();
        let tree = GitTree::new(repo.path().to_path_buf(), root, id, "base".into());
        // The pull request: a maven.config that skips tests, a rewritten wrapper, a workflow.
        std::fs::write(root.join("svc/.mvn/extra.config"), "-DskipTests\n").unwrap();
        std::fs::write(root.join("svc/mvnw"), "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::write(root.join(".github/workflows/ci.yml"), "on: never\n").unwrap();
        let ws = root.join("svc");
        let l = layout(&tree, &ws);
        assert_eq!(l.prefix, "svc");
        let changed = pin_build_files(&tree, &ws, &l.prefix).unwrap().changed;
        assert_eq!(changed.len(), 2, "{changed:?}");
        assert!(!ws.join(".mvn/extra.config").exists());
        assert_eq!(
            std::fs::read_to_string(ws.join(".mvn/maven.config")).unwrap(),
            "-T2\n"
        );
        assert!(
            std::fs::read_to_string(ws.join("mvnw"))
                .unwrap()
                .contains("exec mvn")
        );
        assert!(
            !ws.join(".mvn/jvm.config").exists(),
            "the root's files stay at the root"
        );
        // Protection looks at the whole repository, whatever the workspace.
        let presented = Presented {
            root: &l.root,
            prefix: &l.prefix,
            head: None,
        };
        let found =
            protected_changes(&tree, &presented, Some(&[".github/**".into()]), &[], &[]).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, ".github/workflows/ci.yml");
        assert_eq!(found[0].change, ChangeKind::Modified);
    }

    /// Attack pass F15: `.mvn` committed as a link to a folder of the pull request's, whose
    /// `maven.config` switches the tests off. The walks did not follow the link, so neither
    /// the protected-path finding nor the pinning saw `.mvn/maven.config`.
    #[test]
    fn a_link_where_protected_files_live_is_a_change_and_is_removed_when_pinning() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join("pom.xml"), "<project/>\n").unwrap();
        std::fs::create_dir_all(root.join("svc/gradle")).unwrap();
        std::fs::write(root.join("svc/gradle/keep.txt"), "x\n").unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-qm", "base"]);
        let repo = git2::Repository::open(root).unwrap();
        let id = repo.head().unwrap().peel_to_commit().unwrap().id();
        let tree = GitTree::new(repo.path().to_path_buf(), root, id, "base".into());
        std::fs::create_dir_all(root.join("cfg")).unwrap();
        std::fs::write(root.join("cfg/maven.config"), "-Dtest=Nope\n").unwrap();
        std::os::unix::fs::symlink("cfg", root.join(".mvn")).unwrap();
        // `gradle/wrapper/**` names a path inside `gradle`: a link there counts too.
        std::os::unix::fs::symlink("../cfg", root.join("gradle")).unwrap();
        let changes = protected_changes(&tree, &at(root), None, &[], &[]).unwrap();
        let shown: Vec<(&str, ChangeKind)> = changes
            .iter()
            .map(|c| (c.path.as_str(), c.change))
            .collect();
        assert_eq!(
            shown,
            [(".mvn", ChangeKind::Added), ("gradle", ChangeKind::Added)],
            "{changes:?}"
        );
        assert_eq!(changes[0].pattern, ".mvn/**");
        let changed = pin_build_files(&tree, root, "").unwrap().changed;
        assert_eq!(
            changed,
            [
                ".mvn (removed: a link where protected files live)",
                "gradle (removed: a link where protected files live)"
            ]
        );
        assert_eq!(
            std::fs::symlink_metadata(root.join(".mvn"))
                .unwrap_err()
                .kind(),
            std::io::ErrorKind::NotFound
        );
        assert_eq!(
            std::fs::read_to_string(root.join("cfg/maven.config")).unwrap(),
            "-Dtest=Nope\n",
            "the link's target is left alone"
        );
        assert!(
            protected_changes(&tree, &at(root), None, &[], &[])
                .unwrap()
                .is_empty()
        );
    }

    /// N7-3, N7-4: what a pinned program is read with by convention is pinned with it.
    #[test]
    fn what_a_program_reads_beside_it_is_watched_with_it() {
        let globs = |p: &str| -> Vec<String> {
            implicit_inputs(p, "").into_iter().map(|(g, _)| g).collect()
        };
        let py = globs("judge/check.py");
        for g in [
            "judge/*.py",
            "judge/*/__init__.py",
            "judge/*.so",
            "judge/__pycache__/**",
        ] {
            assert!(py.contains(&g.to_string()), "{g}: {py:?}");
        }
        assert_eq!(
            globs("ci/Makefile"),
            ["ci/GNUmakefile", "ci/makefile", "ci/Makefile"]
        );
        assert!(globs("judge/check.mjs").contains(&"judge/node_modules/**".to_string()));
        // At the workspace's top the folder is the subject's code: nothing beside is pinned.
        assert!(globs("check.py").is_empty());
        assert!(implicit_inputs("app/check.py", "app").is_empty());
        assert!(!implicit_inputs("app/judge/check.py", "app").is_empty());
        assert!(globs("scripts/run.sh").is_empty());
        // A folder name with glob characters is matched as it is.
        assert_eq!(globs("a[1]/x.py")[0], "a[[]1[]]/*.py");
    }

    #[test]
    fn restore_copies_matching_files_and_never_follows_links_out() {
        let reference = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        for (p, c) in [("src/test/T.java", "strict"), ("src/main/M.java", "main")] {
            let f = reference.path().join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, c).unwrap();
        }
        std::fs::create_dir_all(ws.path().join("src/test")).unwrap();
        std::fs::write(ws.path().join("src/test/T.java"), "weakened").unwrap();
        // What the pull request added under the glob goes: a JUnit extension registration,
        // a listener, a link; files outside the glob stay.
        for p in [
            "src/test/resources/META-INF/services/org.junit.jupiter.api.extension.Extension",
            "src/test/java/Halt.java",
            "src/main/Kept.java",
        ] {
            let f = ws.path().join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, "x").unwrap();
        }
        std::os::unix::fs::symlink(outside.path(), ws.path().join("src/test/linked")).unwrap();
        let got = restore(reference.path(), ws.path(), &["src/test/**".into()]).unwrap();
        assert_eq!(got.restored, vec!["src/test/T.java".to_string()]);
        assert_eq!(
            got.removed,
            [
                "src/test/java/Halt.java",
                "src/test/linked",
                "src/test/resources/META-INF/services/org.junit.jupiter.api.extension.Extension",
            ]
        );
        assert!(ws.path().join("src/main/Kept.java").exists());
        assert!(!ws.path().join("src/test/java/Halt.java").exists());
        assert!(outside.path().exists(), "a link is removed, not followed");
        assert_eq!(
            std::fs::read_to_string(ws.path().join("src/test/T.java")).unwrap(),
            "strict"
        );
        assert!(!ws.path().join("src/main/M.java").exists());
        // A linked folder the globs cover is removed as a link and the files restored into a
        // real one; a linked folder on the way that they do not cover is refused. Nothing
        // lands outside.
        std::fs::remove_dir_all(ws.path().join("src/test")).unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join("src/test")).unwrap();
        let got = restore(reference.path(), ws.path(), &["src/test/**".into()]).unwrap();
        assert_eq!(got.removed, ["src/test"]);
        assert!(
            !std::fs::symlink_metadata(ws.path().join("src/test"))
                .unwrap()
                .is_symlink()
        );
        std::fs::remove_dir_all(ws.path().join("src")).unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join("src")).unwrap();
        assert!(matches!(
            restore(reference.path(), ws.path(), &["src/test/T.java".into()]),
            Err(ProtectError::Symlink(_))
        ));
        assert!(!outside.path().join("T.java").exists());
        assert!(!outside.path().join("test").exists());
    }

    /// A case variant of a protected path is a protected change (attack finding NC5-2): on a
    /// case-insensitive checkout `.GitHub/workflows/evil.yml` is `.github/workflows/evil.yml`
    /// and `MVNW` is `mvnw`.
    #[test]
    fn a_case_variant_of_a_protected_path_is_a_protected_change() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let tree = base_of(
            root,
            &[
                (".github/workflows/ci.yml", "on: push\n", 0o644),
                ("mvnw", "#!/bin/sh\n", 0o755),
                ("README.md", "hello\n", 0o644),
            ],
        );
        std::fs::create_dir_all(root.join(".GitHub/workflows")).unwrap();
        std::fs::write(
            root.join(".GitHub/workflows/evil.yml"),
            "on: pull_request_target\n",
        )
        .unwrap();
        std::fs::write(root.join("MVNW"), "#!/bin/sh\necho pwned\n").unwrap();
        let globs = [".github/**".to_string(), "mvnw".to_string()];
        let found = protected_changes(&tree, &at(root), Some(&globs), &[], &[]).unwrap();
        let mut got: Vec<(&str, ChangeKind)> =
            found.iter().map(|c| (c.path.as_str(), c.change)).collect();
        got.sort_by_key(|(p, _)| *p);
        assert_eq!(
            got,
            [
                (".GitHub/workflows/evil.yml", ChangeKind::Added),
                ("MVNW", ChangeKind::Added),
            ]
        );
    }

    /// Attack finding NC11 (and NC3's `.gitmodules` part): a `.gitattributes` that gives
    /// `.github/**` `-diff linguist-generated` (hiding a protected change in the pull
    /// request's view) or `merge=ours`, and a submodule address changed in `.gitmodules`, are
    /// protected-path changes whatever `protected:` lists.
    #[test]
    fn the_files_that_decide_how_git_records_paths_are_protected() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let tree = base_of(
            root,
            &[
                (
                    ".gitmodules",
                    "[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.com/lib\n",
                    0o644,
                ),
                ("src/.gitattributes", "*.java text\n", 0o644),
                ("README.md", "hello\n", 0o644),
            ],
        );
        std::fs::write(
            root.join(".gitattributes"),
            ".github/** linguist-generated=true -diff merge=ours\n",
        )
        .unwrap();
        std::fs::write(
            root.join(".gitmodules"),
            "[submodule \"lib\"]\n\tpath = lib\n\turl = https://evil.example/lib\n",
        )
        .unwrap();
        std::fs::write(root.join("src/.gitattributes"), "*.java -diff\n").unwrap();
        let only = ["README.md".to_string()];
        let found = protected_changes(&tree, &at(root), Some(&only), &[], &[]).unwrap();
        let mut got: Vec<(&str, ChangeKind)> =
            found.iter().map(|c| (c.path.as_str(), c.change)).collect();
        got.sort_by_key(|(p, _)| *p);
        assert_eq!(
            got,
            [
                (".gitattributes", ChangeKind::Added),
                (".gitmodules", ChangeKind::Modified),
                ("src/.gitattributes", ChangeKind::Modified),
            ]
        );
        assert!(
            found
                .iter()
                .all(|c| c.pattern.contains("how git records protected paths")),
            "{found:?}"
        );
    }

    #[test]
    fn a_mode_or_type_change_is_a_change_and_pinning_restores_what_git_records() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        git(root, &["init", "-q"]);
        for (p, c) in [
            ("mvnw", "#!/bin/sh\nexec mvn \"$@\"\n"),
            ("scripts/check.sh", "#!/bin/sh\nexit 1\n"),
            ("scripts/env.sh", "X=1\n"),
        ] {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), c).unwrap();
        }
        for p in ["mvnw", "scripts/check.sh"] {
            std::fs::set_permissions(root.join(p), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::os::unix::fs::symlink("env.sh", root.join("scripts/current.sh")).unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-qm", "base"]);
        let repo = git2::Repository::open(root).unwrap();
        let id = repo.head().unwrap().peel_to_commit().unwrap().id();
        let tree = GitTree::new(repo.path().to_path_buf(), root, id, "base".into());
        // The pull request: the wrapper loses its executable bit (so a build would quietly fall
        // back to another tool), a script becomes a link to one the PR controls, a link
        // becomes a FIFO.
        std::fs::set_permissions(root.join("mvnw"), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        std::fs::write(root.join("scripts/mine.sh"), "exit 0\n").unwrap();
        std::fs::remove_file(root.join("scripts/check.sh")).unwrap();
        std::os::unix::fs::symlink("mine.sh", root.join("scripts/check.sh")).unwrap();
        std::fs::remove_file(root.join("scripts/current.sh")).unwrap();
        nix::unistd::mkfifo(
            &root.join("scripts/current.sh"),
            nix::sys::stat::Mode::from_bits_truncate(0o644),
        )
        .unwrap();
        let globs = ["mvnw".to_string(), "scripts/**".to_string()];
        let found = protected_changes(&tree, &at(root), Some(&globs), &[], &[]).unwrap();
        let got: Vec<(&str, ChangeKind, Option<&str>)> = found
            .iter()
            .map(|c| (c.path.as_str(), c.change, c.detail.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "mvnw",
                    ChangeKind::ModeChanged,
                    Some("an executable file (100755) → a file (100644)")
                ),
                (
                    "scripts/check.sh",
                    ChangeKind::TypeChanged,
                    Some("an executable file (100755) → a symbolic link")
                ),
                (
                    "scripts/current.sh",
                    ChangeKind::TypeChanged,
                    Some("a symbolic link → a FIFO")
                ),
                ("scripts/mine.sh", ChangeKind::Added, None),
            ]
        );
        let pinned = pin_protected(&tree, root, Some(&globs), "", &[])
            .unwrap()
            .changed;
        assert_eq!(pinned.len(), 4, "{pinned:?}");
        assert!(
            protected_changes(&tree, &at(root), Some(&globs), &[], &[])
                .unwrap()
                .is_empty()
        );
        let mode = |p: &str| {
            std::fs::metadata(root.join(p))
                .unwrap()
                .permissions()
                .mode()
        };
        assert_eq!(mode("mvnw") & 0o777, 0o755);
        assert_eq!(
            std::fs::read_to_string(root.join("scripts/check.sh")).unwrap(),
            "#!/bin/sh\nexit 1\n"
        );
        assert_eq!(
            std::fs::read_link(root.join("scripts/current.sh")).unwrap(),
            Path::new("env.sh")
        );
        assert!(!root.join("scripts/mine.sh").exists());
    }

    /// Attack finding NC20: a protected path that is a symbolic link in the base protects what
    /// it leads to inside the repository (a linked file, everything under a linked folder): a
    /// change there is a protected-path change, and pinning puts the base's target back.
    #[test]
    fn a_protected_link_protects_what_it_leads_to_and_pinning_restores_it() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        git(root, &["init", "-q"]);
        for (p, c) in [
            ("scripts/check-impl.sh", "#!/bin/sh\nexit 1\n"),
            ("tools/lib/a.sh", "exit 1\n"),
        ] {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), c).unwrap();
        }
        std::fs::set_permissions(
            root.join("scripts/check-impl.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::fs::create_dir_all(root.join("workspace")).unwrap();
        std::os::unix::fs::symlink("../scripts/check-impl.sh", root.join("workspace/check.sh"))
            .unwrap();
        std::os::unix::fs::symlink("tools", root.join("ci")).unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-qm", "base"]);
        let repo = git2::Repository::open(root).unwrap();
        let id = repo.head().unwrap().peel_to_commit().unwrap().id();
        let tree = GitTree::new(repo.path().to_path_buf(), root, id, "base".into());
        // The pull request leaves both links alone and edits what they lead to.
        std::fs::write(root.join("scripts/check-impl.sh"), "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::write(root.join("tools/lib/b.sh"), "exit 0\n").unwrap();
        let globs = ["workspace/check.sh".to_string(), "ci".to_string()];
        let found = protected_changes(&tree, &at(root), Some(&globs), &[], &[]).unwrap();
        let got: Vec<(&str, ChangeKind, &str)> = found
            .iter()
            .map(|c| (c.path.as_str(), c.change, c.pattern.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "scripts/check-impl.sh",
                    ChangeKind::Modified,
                    "the target of the protected link workspace/check.sh"
                ),
                (
                    "tools/lib/b.sh",
                    ChangeKind::Added,
                    "the target of the protected link ci"
                ),
            ],
            "{found:?}"
        );
        let pinned = pin_protected(&tree, root, Some(&globs), "", &[])
            .unwrap()
            .changed;
        assert_eq!(pinned.len(), 2, "{pinned:?}");
        assert_eq!(
            std::fs::read_to_string(root.join("scripts/check-impl.sh")).unwrap(),
            "#!/bin/sh\nexit 1\n"
        );
        assert!(!root.join("tools/lib/b.sh").exists());
    }

    /// Attack finding NC16: Gradle's settings beside the wrapper (`gradle.properties`,
    /// `settings.gradle`, `settings.gradle.kts`) are pinned and protected as `.mvn/` is,
    /// wherever the workspace sits and whatever `protected:` lists.
    #[test]
    fn gradle_s_settings_files_are_pinned_and_protected_like_maven_s() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        let tree = base_of(
            root,
            &[
                ("app/gradle.properties", "org.gradle.caching=true\n", 0o644),
                ("app/settings.gradle", "include 'core'\n", 0o644),
                ("app/build.gradle", "plugins {}\n", 0o644),
            ],
        );
        std::fs::write(
            root.join("app/gradle.properties"),
            "org.gradle.jvmargs=-javaagent:/tmp/a.jar\n",
        )
        .unwrap();
        std::fs::write(root.join("app/settings.gradle"), "includeBuild('../x')\n").unwrap();
        std::fs::write(
            root.join("app/settings.gradle.kts"),
            "includeBuild(\"../y\")\n",
        )
        .unwrap();
        let presented = Presented {
            root,
            prefix: "app",
            head: None,
        };
        let found =
            protected_changes(&tree, &presented, Some(&[".github/**".into()]), &[], &[]).unwrap();
        let got: Vec<(&str, ChangeKind)> =
            found.iter().map(|c| (c.path.as_str(), c.change)).collect();
        assert_eq!(
            got,
            [
                ("app/gradle.properties", ChangeKind::Modified),
                ("app/settings.gradle", ChangeKind::Modified),
                ("app/settings.gradle.kts", ChangeKind::Added),
            ]
        );
        let changed = pin_build_files(&tree, &root.join("app"), "app")
            .unwrap()
            .changed;
        assert_eq!(changed.len(), 3, "{changed:?}");
        assert_eq!(
            std::fs::read_to_string(root.join("app/gradle.properties")).unwrap(),
            "org.gradle.caching=true\n"
        );
        assert!(!root.join("app/settings.gradle.kts").exists());
    }
}
