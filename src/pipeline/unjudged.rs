//! Files the pull request changes that no judge reads (trust.md point 19): listed in the report
//! and the comment, and with `unjudged-action: fail` a FAIL judgment in the first tier, so a
//! change where no judge looks (a resource, a script, a source in a language no judge parses)
//! is never accepted silently.
//!
//! "Changes" is against the trusted base tree in a pull-request context, else against the
//! reference folder. "Reads" is what the config's checks declare they read: a structural
//! check's globs, a file check's path, and every differing file for a semantic check (the
//! model is shown each one, or the judgment cannot pass). Builds, commands and external judges
//! run code over the tree but do not say which files they judged, so they cover none.

use std::collections::BTreeSet;
use std::path::Path;

use git2::{ObjectType, Oid};
use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::config::checks::SourceSelection;
use crate::config::source::GitTree;
use crate::config::{Benchmark, default_protected};

/// Most files looked at on either side; a larger tree is listed up to this bound.
const MAX_FILES: usize = 200_000;

/// Most paths listed: the rest are counted.
pub const MAX_LISTED: usize = 200;

/// What the config's checks read of the workspace.
enum Reads {
    /// Every file (a semantic check is shown the whole change).
    Everything,
    /// The files these globs match (workspace-relative).
    Matching(GlobSet),
}

/// What the checks of `bench` read, from the facts each check type declares: the files a
/// structural check selects, the paths an inspecting check names; a semantic check is shown the
/// whole change; a check that runs subject code covers nothing.
fn reads(bench: &Benchmark) -> Reads {
    let mut b = GlobSetBuilder::new();
    let mut add = |g: &str| {
        if let Ok(g) = Glob::new(g) {
            b.add(g);
        }
    };
    for c in bench.jury.all_checks() {
        let t = c.kind.check_type();
        if t.asks_model() {
            return Reads::Everything;
        }
        if t.facts().runs_subject_code() {
            continue;
        }
        match c.kind.sources() {
            // Excludes are not subtracted: erring toward listing more.
            Some(SourceSelection::Files(files)) => files.include.iter().for_each(|g| add(g)),
            Some(SourceSelection::Poms) => crate::judges::structural::pom_files()
                .include
                .iter()
                .for_each(|g| add(g)),
            // Listed below with the other named paths.
            Some(SourceSelection::Path(_)) | None => {}
        }
        for p in c.kind.workspace_paths() {
            // A file, or a folder whose files the check reads.
            let p = p.as_path().to_string_lossy();
            add(&p);
            add(&format!("{p}/**"));
        }
    }
    Reads::Matching(b.build().unwrap_or_else(|_| GlobSet::empty()))
}

/// `a/b/c` of a relative path.
fn slash(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The blob id of the regular file or link at `p` (not followed), `None` for anything else.
fn id_on_disk(p: &Path) -> Option<Oid> {
    let m = std::fs::symlink_metadata(p).ok()?;
    let bytes = if m.file_type().is_symlink() {
        std::fs::read_link(p)
            .ok()?
            .into_os_string()
            .into_encoded_bytes()
    } else if m.is_file() {
        crate::untrusted::read(p, crate::judges::structural::MAX_FILE_BYTES).ok()?
    } else {
        return None;
    };
    Oid::hash_object(ObjectType::Blob, &bytes).ok()
}

/// judge-ci's default output folder, whatever `--out` says this run: its own files are not the
/// pull request's change.
const DEFAULT_OUT: &str = "judge-ci-out";

/// The workspace's files (not `.git`, not the output folders, links not followed), relative.
fn workspace_files(workspace: &Path, out: &Path) -> Vec<String> {
    let out = out.canonicalize().ok();
    walkdir::WalkDir::new(workspace)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || (e.file_name() != ".git"
                    && !(e.depth() == 1 && e.file_name() == DEFAULT_OUT)
                    && out
                        .as_deref()
                        .is_none_or(|o| e.path().canonicalize().ok().as_deref() != Some(o)))
        })
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
        .take(MAX_FILES)
        .filter_map(|e| e.path().strip_prefix(workspace).ok().map(slash))
        .collect()
}

/// The workspace's files that differ from `base` (the trusted tree; the workspace sits at
/// `prefix` in it) or are not in it.
fn changed_against_tree(tree: &GitTree, workspace: &Path, prefix: &str, out: &Path) -> Vec<String> {
    let under = |p: &str| -> Option<String> {
        if prefix.is_empty() {
            Some(p.to_string())
        } else {
            p.strip_prefix(prefix)
                .and_then(|r| r.strip_prefix('/'))
                .map(str::to_string)
        }
    };
    let base: std::collections::HashMap<String, Oid> = tree
        .blobs(&|p| under(p).is_some())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(p, id, _)| under(&p).map(|r| (r, id)))
        .collect();
    workspace_files(workspace, out)
        .into_iter()
        .filter(|rel| base.get(rel).copied() != id_on_disk(&workspace.join(rel)))
        .collect()
}

/// The workspace's files that differ from the reference folder's or are not in it.
fn changed_against_folder(reference: &Path, workspace: &Path, out: &Path) -> Vec<String> {
    workspace_files(workspace, out)
        .into_iter()
        .filter(|rel| id_on_disk(&reference.join(rel)) != id_on_disk(&workspace.join(rel)))
        .collect()
}

/// The files the pull request changes (against the trusted tree when there is one, else the
/// reference folder) that no check of `bench` reads, sorted; protected paths (reported on
/// their own) and the config's own files are left out.
pub fn unjudged(
    bench: &Benchmark,
    tree: Option<&GitTree>,
    workspace: &Path,
    reference: Option<&Path>,
    out: &Path,
) -> Vec<String> {
    let Reads::Matching(read) = reads(bench) else {
        return Vec::new();
    };
    let changed = match (tree, reference) {
        (Some(t), _) => {
            let layout = super::protect::layout(t, workspace);
            changed_against_tree(t, workspace, &layout.prefix, out)
        }
        (None, Some(r)) => changed_against_folder(r, workspace, out),
        (None, None) => return Vec::new(),
    };
    let mut own = GlobSetBuilder::new();
    for g in bench.protected.clone().unwrap_or_else(default_protected) {
        if let Ok(g) = Glob::new(&g) {
            own.add(g);
        }
    }
    let own = own.build().unwrap_or_else(|_| GlobSet::empty());
    let config = bench
        .path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned());
    changed
        .into_iter()
        .filter(|rel| !read.is_match(rel) && !own.is_match(rel))
        .filter(|rel| Some(rel.as_str()) != config.as_deref())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}
