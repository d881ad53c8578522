//! The reference through git (trust.md points 13 and 23; attack findings FE1, FE3, NC6,
//! N5/N6, F24): a reference that is a revision of the workspace's own repository
//! (`reference: {ref: origin/solution}`), or whose files the workspace's object store holds
//! for another reason (a checkout with `fetch-depth: 0` that fetched the solution branch), is
//! readable to subject code with `git show` through the workspace's `.git` — although its
//! folder is hidden. Where that is so, subject processes see, over each git folder of the
//! workspace, a copy of the repository that holds HEAD's commit, its tree and nothing else
//! (a shallow clone of depth one, with the workspace's index and a configuration without
//! credentials): git still works on the checkout (`status`, `log -1`, `rev-parse HEAD`,
//! `describe --always`), and no other object, branch or tag is there. The copy is mounted
//! in the subject's mount namespace; without one it cannot be, and the fence line says so.
//! A parent folder's `.git` (a workspace that is a subfolder of its repository, FE3) is out
//! of reach anyway: subject processes read nothing outside the workspace but the system's
//! folders and toolchains (see `rules`).

use std::path::{Path, PathBuf};

/// Most reference files whose blobs are looked up in the workspace's object store.
const MOST_FILES: usize = 50_000;

/// How the run's reference stands for the subject processes of one workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exposure {
    /// The run has no reference folder or revision.
    NoReference,
    /// The reference lies where subject processes read nothing (Landlock hides it), and
    /// no git folder of the workspace holds its content.
    Hidden,
    /// The reference lies inside the workspace, which subject processes read and write whole.
    InsideWorkspace(PathBuf),
    /// judge-ci copied reference files into the workspace (`restore:`) whose bytes it did
    /// not hold: subject processes read them there.
    CopiedIn(Vec<String>),
    /// The workspace's git folder holds the reference's objects: covered by a copy with
    /// HEAD's objects alone ([`HeadView`]) where a mount namespace allows it.
    ThroughGit {
        /// The git folder holding them.
        git_dir: PathBuf,
        /// Why no copy could be made, if none could.
        no_copy: Option<String>,
    },
}

impl Exposure {
    /// The fence line's wording when the reference is not kept from subject code.
    pub fn exposed_text(&self, namespaces: bool) -> Option<String> {
        match self {
            Exposure::NoReference | Exposure::Hidden => None,
            Exposure::InsideWorkspace(r) => Some(format!(
                "the reference {} lies inside the workspace: subject code can read it",
                r.display()
            )),
            Exposure::CopiedIn(files) => Some(format!(
                "restore: copied {} of the reference's files into the workspace ({}{}): subject code can read them",
                files.len(),
                files.iter().take(3).cloned().collect::<Vec<_>>().join(", "),
                if files.len() > 3 { ", …" } else { "" }
            )),
            Exposure::ThroughGit { git_dir, no_copy } => {
                let why = match (no_copy, namespaces) {
                    (Some(why), _) => format!("no copy without them could be made: {why}"),
                    (None, false) => "covering them needs a mount namespace".to_string(),
                    (None, true) => "the copy without them could not be mounted".to_string(),
                };
                Some(format!(
                    "the reference revision's objects are in the workspace's repository ({}): subject code can read them through git ({why})",
                    git_dir.display()
                ))
            }
        }
    }
}

/// A copy of a workspace's repository with HEAD's commit and tree alone, in a folder of
/// judge-ci's own (hidden from subject processes but through the mount over `.git`).
#[derive(Debug)]
pub struct HeadView {
    /// The copy (a git folder).
    pub dir: tempfile::TempDir,
}

/// Whether the reference of the run can be read through a git folder of the workspace
/// `root` whose git folders are `git`: `reference_git` is the repository a reference revision
/// was read from; `references` the reference folders (a file whose content differs from the
/// workspace's same file and whose blob the workspace's object store holds — and HEAD's tree
/// does not — can be read through git). Returns the git folder through which it can.
pub fn through_git(
    root: &Path,
    git: &[PathBuf],
    reference_git: Option<&Path>,
    references: &[PathBuf],
) -> Option<PathBuf> {
    let first = git.first()?;
    if let Some(g) = reference_git
        && git.iter().any(|w| w == g || g.starts_with(w))
    {
        return Some(g.to_path_buf());
    }
    let repo = git2::Repository::open(root).ok()?;
    let odb = repo.odb().ok()?;
    let head_blobs = head_blobs(&repo);
    let mut seen = 0usize;
    for r in references.iter().filter(|r| !r.starts_with(root)) {
        let walk = walkdir::WalkDir::new(r)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| e.file_name() != ".git");
        for e in walk.flatten() {
            if !e.file_type().is_file() {
                continue;
            }
            seen += 1;
            if seen > MOST_FILES {
                return None;
            }
            let Ok(oid) = git2::Oid::hash_file(git2::ObjectType::Blob, e.path()) else {
                continue;
            };
            if head_blobs.contains(&oid) || !odb.exists(oid) {
                continue;
            }
            let same = e
                .path()
                .strip_prefix(r)
                .ok()
                .map(|rel| root.join(rel))
                .and_then(|w| git2::Oid::hash_file(git2::ObjectType::Blob, w).ok());
            if same != Some(oid) {
                return Some(first.clone());
            }
        }
    }
    None
}

/// The blobs of HEAD's tree (what the subject has in its own checkout anyway).
fn head_blobs(repo: &git2::Repository) -> std::collections::HashSet<git2::Oid> {
    let mut out = std::collections::HashSet::new();
    if let Ok(tree) = repo.head().and_then(|h| h.peel_to_tree()) {
        let _ = tree.walk(git2::TreeWalkMode::PreOrder, |_, e| {
            if e.kind() == Some(git2::ObjectType::Blob) {
                out.insert(e.id());
            }
            git2::TreeWalkResult::Ok
        });
    }
    out
}

/// Why the copy of the repository with HEAD's objects alone could not be made (the reference
/// then stays readable through git, and the fence line says why).
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// git refused an operation (what libgit2 said).
    #[error("{}", .0.message())]
    Git(#[source] git2::Error),
    /// A file or folder of the copy could not be made.
    #[error("cannot {doing}: {source}")]
    Io {
        /// What judge-ci was doing.
        doing: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl ViewError {
    fn io(doing: &'static str) -> impl FnOnce(std::io::Error) -> ViewError {
        move |source| ViewError::Io { doing, source }
    }
}

impl HeadView {
    /// Makes the copy of the repository whose work tree is `root`: HEAD's commit and tree
    /// packed (no parent: marked shallow), HEAD's branch pointing at it, the index, and the
    /// configuration `config` (without credentials).
    pub fn build(root: &Path, config: &str) -> Result<HeadView, ViewError> {
        let fail = ViewError::Git;
        let repo = git2::Repository::open(root).map_err(fail)?;
        let dir = tempfile::Builder::new()
            .prefix("judge-ci-git-view-")
            .tempdir()
            .map_err(ViewError::io("create the copy's folder"))?;
        let mut opts = git2::RepositoryInitOptions::new();
        opts.bare(true).no_reinit(true);
        let view = git2::Repository::init_opts(dir.path(), &opts).map_err(fail)?;
        let head = repo.head().ok();
        let commit = head.as_ref().and_then(|h| h.peel_to_commit().ok());
        if let Some(c) = &commit {
            let mut pb = repo.packbuilder().map_err(fail)?;
            pb.insert_commit(c.id()).map_err(fail)?;
            let mut buf = git2::Buf::new();
            pb.write_buf(&mut buf).map_err(fail)?;
            let odb = view.odb().map_err(fail)?;
            let mut w = odb.packwriter().map_err(fail)?;
            std::io::Write::write_all(&mut w, &buf)
                .map_err(ViewError::io("write the copy's pack"))?;
            w.commit().map_err(fail)?;
            match head
                .as_ref()
                .and_then(|h| h.name().ok())
                .filter(|n| *n != "HEAD")
            {
                Some(branch) if branch.starts_with("refs/heads/") => {
                    view.reference(branch, c.id(), true, "judge-ci: HEAD alone")
                        .map_err(fail)?;
                    view.set_head(branch).map_err(fail)?;
                }
                _ => view.set_head_detached(c.id()).map_err(fail)?,
            }
            std::fs::write(dir.path().join("shallow"), format!("{}\n", c.id()))
                .map_err(ViewError::io("write the copy's shallow file"))?;
        }
        std::fs::write(dir.path().join("config"), config.as_bytes())
            .map_err(ViewError::io("write the copy's config"))?;
        if let Ok(index) = std::fs::read(repo.path().join("index")) {
            std::fs::write(dir.path().join("index"), &index)
                .map_err(ViewError::io("write the copy's index"))?;
        }
        Ok(HeadView { dir })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        let o = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "git {args:?}: {o:?}");
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    #[test]
    fn a_reference_branch_is_found_and_the_copy_holds_head_alone() {
        let d = tempfile::tempdir().unwrap();
        let ws = d.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        git(&ws, &["init", "-q", "-b", "main"]);
        std::fs::write(ws.join("A.java"), "class A {}\n").unwrap();
        git(&ws, &["add", "-A"]);
        git(&ws, &["commit", "-qm", "subject"]);
        git(&ws, &["checkout", "-qb", "solution"]);
        std::fs::write(ws.join("A.java"), "class A { int answer; }\n").unwrap();
        git(&ws, &["commit", "-qam", "reference"]);
        let secret = git(&ws, &["rev-parse", "solution:A.java"]);
        git(&ws, &["checkout", "-q", "main"]);
        // The reference written out as judge-ci does, outside the workspace.
        let reference = d.path().join("reference");
        std::fs::create_dir_all(&reference).unwrap();
        std::fs::write(reference.join("A.java"), "class A { int answer; }\n").unwrap();
        let gits = vec![ws.join(".git").canonicalize().unwrap()];
        assert_eq!(
            through_git(&ws, &gits, None, std::slice::from_ref(&reference)),
            Some(gits[0].clone())
        );
        // A reference equal to the workspace's own files reveals nothing.
        std::fs::write(reference.join("A.java"), "class A {}\n").unwrap();
        assert_eq!(through_git(&ws, &gits, None, &[reference]), None);

        let view = HeadView::build(&ws, "[core]\n\tbare = false\n").unwrap();
        let v = git2::Repository::open_bare(view.dir.path()).unwrap();
        let head = v.head().unwrap().peel_to_commit().unwrap();
        assert_eq!(head.id().to_string(), git(&ws, &["rev-parse", "HEAD"]));
        assert_eq!(v.head().unwrap().name().ok(), Some("refs/heads/main"));
        assert!(
            !v.odb()
                .unwrap()
                .exists(git2::Oid::from_str(&secret).unwrap())
        );
        assert_eq!(
            v.find_reference("refs/heads/solution")
                .map(|_| ())
                .unwrap_err()
                .code(),
            git2::ErrorCode::NotFound
        );
    }
}
