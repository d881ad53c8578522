//! The subject cannot weaken what it is judged by (`spec/trust.md` points 2 and 11):
//! `protected:` paths (the workflows, the build wrappers and settings, the config and the files
//! it names) that the pull request changes are findings of their own, and with
//! `protected-action: fail` a FAIL judgment in the first tier; `restore:` files are copied
//! from the reference into the workspace before any judge runs, as SWE-bench's harness
//! restores test files.

use std::path::{Component, Path};

use git2::{ObjectType, Oid};
use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::config::source::GitTree;
use crate::config::{BUILD_FILES, default_protected};
use crate::report::{ConfigFileInfo, ProtectedChange};

/// The pattern shown for the config's own files.
pub const CONFIG_FILES: &str = "the config and the files it names";

/// Why protection or restoring could not be done.
#[derive(Debug, thiserror::Error)]
pub enum ProtectError {
    /// A glob did not compile (the loader checks them; kept for completeness).
    #[error("glob '{0}': {1}")]
    Glob(String, String),
    /// Reading the trusted tree or the workspace failed.
    #[error("{0}")]
    Io(String),
    /// The workspace holds a symbolic link where a restored file goes.
    #[error(
        "{0} passes through a symbolic link in the workspace; judge-ci writes restored and pinned files only through real folders"
    )]
    Symlink(String),
}

fn globset(globs: &[String]) -> Result<GlobSet, ProtectError> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| ProtectError::Glob(g.clone(), e.to_string()))?);
    }
    b.build()
        .map_err(|e| ProtectError::Glob(globs.join(", "), e.to_string()))
}

/// `a/b/c` of a relative path.
fn slash(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The git blob id of a working-tree entry (a link's target for symbolic links), with whether
/// it is a link.
fn blob_id(p: &Path) -> Option<(Oid, bool)> {
    let m = std::fs::symlink_metadata(p).ok()?;
    if m.file_type().is_symlink() {
        let target = std::fs::read_link(p).ok()?;
        let bytes = target.as_os_str().as_encoded_bytes().to_vec();
        return Oid::hash_object(ObjectType::Blob, &bytes)
            .ok()
            .map(|o| (o, true));
    }
    if !m.is_file() {
        return None;
    }
    let bytes = std::fs::read(p).ok()?;
    Oid::hash_object(ObjectType::Blob, &bytes)
        .ok()
        .map(|o| (o, false))
}

/// Every protected file the subject at `subject` (the pull request's tree, laid out as the
/// repository) changes against the trusted tree: the globs of `protected` (the defaults when
/// `None`), and the config-side files whose working-tree version differs.
pub fn protected_changes(
    tree: &GitTree,
    subject: &Path,
    protected: Option<&[String]>,
    config_files: &[ConfigFileInfo],
) -> Result<Vec<ProtectedChange>, ProtectError> {
    let globs: Vec<String> = match protected {
        Some(g) => g.to_vec(),
        None => default_protected(),
    };
    let set = globset(&globs)?;
    let pattern_of = |path: &str| {
        set.matches(path)
            .first()
            .map(|&i| globs[i].clone())
            .unwrap_or_default()
    };
    let mut out: Vec<ProtectedChange> = Vec::new();
    let base = tree
        .blobs(&|p| set.is_match(p))
        .map_err(|e| ProtectError::Io(format!("cannot read {}: {e}", tree.label())))?;
    let mut seen = std::collections::HashSet::new();
    for (path, id, mode) in &base {
        seen.insert(path.clone());
        let change = match blob_id(&subject.join(path)) {
            None => Some("deleted"),
            Some((head, link)) if head != *id || link != (*mode == 0o120000) => Some("modified"),
            Some(_) => None,
        };
        if let Some(c) = change {
            out.push(ProtectedChange {
                path: path.clone(),
                pattern: pattern_of(path),
                change: c.into(),
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
                change: "added".into(),
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
                (None, _) => "added",
                (_, None) => "deleted",
                _ => "modified",
            }
            .into(),
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
    let io = |err: std::io::Error| ProtectError::Io(format!("{shown}: {err}"));
    let mut dir = workspace.to_path_buf();
    let parts: Vec<Component> = rel.components().collect();
    let Some((name, parents)) = parts.split_last() else {
        return Ok(());
    };
    for c in parents {
        if !matches!(c, Component::Normal(_)) {
            return Err(ProtectError::Io(format!(
                "{shown}: not a plain relative path"
            )));
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
/// workspace, where the build runs) the trusted tree's: each is written from the tree
/// (executable when the tree says so), and one the tree lacks is removed. `prefix` is the
/// workspace's place in the tree ([`layout`]). Returns what changed.
pub fn pin_build_files(
    tree: &GitTree,
    workspace: &Path,
    prefix: &str,
) -> Result<Vec<String>, ProtectError> {
    let globs: Vec<String> = BUILD_FILES.iter().map(|s| s.to_string()).collect();
    let set = globset(&globs)?;
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
        .map_err(|e| ProtectError::Io(format!("cannot read {}: {e}", tree.label())))?
        .into_iter()
        .filter_map(|(p, id, mode)| under(&p).map(|r| (r, id, mode)))
        .collect();
    let mut changed = Vec::new();
    let mut keep = std::collections::HashSet::new();
    for (path, id, mode) in &base {
        keep.insert(path.clone());
        let here = workspace.join(path);
        if blob_id(&here).is_some_and(|(h, link)| h == *id && !link) {
            continue;
        }
        if *mode == 0o120000 {
            // A link in the trusted tree is not followed into the workspace; it is left out.
            continue;
        }
        let bytes = tree
            .blob(*id)
            .map_err(|e| ProtectError::Io(format!("{path}: {e}")))?;
        write_inside(workspace, Path::new(path), &bytes, path)?;
        if *mode == 0o100755 {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&here, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| ProtectError::Io(format!("{path}: {e}")))?;
        }
        changed.push(format!("{path} (the base's)"));
    }
    for e in walkdir::WalkDir::new(workspace)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || e.file_name() != ".git")
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
    {
        let Ok(rel) = e.path().strip_prefix(workspace) else {
            continue;
        };
        let rel = slash(rel);
        if set.is_match(&rel) && !keep.contains(&rel) {
            std::fs::remove_file(e.path())
                .map_err(|err| ProtectError::Io(format!("{rel}: {err}")))?;
            changed.push(format!("{rel} (removed: not in the base)"));
        }
    }
    Ok(changed)
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
        std::fs::remove_file(&path)
            .map_err(|err| ProtectError::Io(format!("remove {shown}: {err}")))?;
        out.removed.push(shown);
    }
    for (rel, shown) in theirs {
        let bytes = std::fs::read(reference.join(&rel))
            .map_err(|err| ProtectError::Io(format!("restore {shown}: {err}")))?;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_support::git;

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
        let changed = pin_build_files(&tree, &ws, &l.prefix).unwrap();
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
        let found = protected_changes(&tree, &l.root, Some(&[".github/**".into()]), &[]).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, ".github/workflows/ci.yml");
        assert_eq!(found[0].change, "modified");
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
}
