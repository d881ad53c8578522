//! Files the pull request changes that no judge reads (trust.md point 19): listed in the report
//! and the comment, and with `unjudged-action: fail` a FAIL judgment in the first tier, so a
//! change where no judge looks (a resource, a script, a source in a language no judge parses)
//! is never accepted silently.
//!
//! "Changes" is against the trusted base tree in a pull-request context, else against the
//! reference folder. "Reads" is what the config's checks declare they read: a structural
//! check's globs (for a comparison, only the files the reference has too), a file check's
//! path, and every differing file its material shows for a semantic check (the model is shown
//! each one, or the judgment cannot pass; a build-output folder or judge-ci's own folder is
//! not shown). A submodule entry is read by no check. Builds, commands and external judges
//! run code over the tree but do not say which files they judged, so they cover none.

use std::collections::BTreeSet;
use std::path::Path;

use git2::{ObjectType, Oid};
use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::config::checks::SourceSelection;
use crate::config::source::GitTree;
use crate::config::{Benchmark, protected_globs};

/// Most files looked at on either side; a larger tree is listed up to this bound.
const MAX_FILES: usize = 200_000;

/// Most paths listed: the rest are counted.
pub const MAX_LISTED: usize = 200;

/// What the config's checks read of the workspace.
struct Reads {
    /// A semantic check is shown every file that differs, except what its material leaves
    /// out ([`crate::judges::llm::prompt::left_out`]: judge-ci's own folders at the top,
    /// build-output folders), which it claims no more than any other check does (attack FI3).
    model: bool,
    /// The files some check reads: each check's (include, exclude) globs, workspace-relative,
    /// and whether it reads only files the reference has too (a comparison that never looks
    /// at a file only the workspace has: `file-comparison`, `ast-diff`; attack FI4).
    sets: Vec<(GlobSet, GlobSet, bool)>,
}

impl Reads {
    /// Whether some check reads `rel`: one of them includes it and does not exclude it (and,
    /// for a comparison, the reference has it: `in_reference`), or the model is shown it.
    fn covers(&self, workspace: &Path, rel: &str, in_reference: &dyn Fn(&str) -> bool) -> bool {
        (self.model && !crate::judges::llm::prompt::left_out(workspace, rel))
            || self.sets.iter().any(|(inc, exc, compared)| {
                inc.is_match(rel) && !exc.is_match(rel) && (!compared || in_reference(rel))
            })
    }
}

/// The globs `globs` as one set (a glob that does not compile is left out: the loader
/// refused it already).
fn set_of<'a>(globs: impl IntoIterator<Item = &'a String>) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        if let Ok(g) = Glob::new(g) {
            b.add(g);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

/// What the checks of `bench` read, from the facts each check type declares: the files a
/// structural check selects, the paths an inspecting check names; a semantic check is shown the
/// whole change; a check that runs subject code covers nothing.
fn reads(bench: &Benchmark) -> Reads {
    let mut sets = Vec::new();
    let mut model = false;
    for c in bench.jury.all_checks() {
        let t = c.kind.check_type();
        if t.asks_model() {
            model = true;
            continue;
        }
        if t.facts().runs_subject_code() {
            continue;
        }
        // A comparison that reads a file only when the reference has it too.
        let compared = matches!(
            c.kind,
            crate::config::checks::CheckKind::FileComparison { .. }
                | crate::config::checks::CheckKind::AstDiff { .. }
        );
        match c.kind.sources() {
            // A file every check that could read it excludes was read by none (attack S13:
            // a weakened test under an excluded `src/test/**`).
            Some(SourceSelection::Files(files)) => {
                sets.push((set_of(&files.include), set_of(&files.exclude), compared));
            }
            Some(SourceSelection::Poms) => {
                let poms = crate::judges::structural::pom_files();
                sets.push((set_of(&poms.include), set_of(&poms.exclude), false));
            }
            // Listed below with the other named paths.
            Some(SourceSelection::Path(_)) | None => {}
        }
        for p in c.kind.workspace_paths() {
            // A file, or a folder whose files the check reads.
            let p = p.as_path().to_string_lossy().into_owned();
            let named = [p.clone(), format!("{p}/**")];
            sets.push((set_of(&named), GlobSet::empty(), false));
        }
    }
    Reads { model, sets }
}

/// `a/b/c` of a relative path.
fn slash(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A blob as git records it: its id and its mode, `100644`, `100755` or `120000` (a mode
/// change is a change: attack S3).
type Recorded = (Oid, i32);

/// The mode git records for `mode` (a tree's, or a file's permission bits with its type).
fn git_mode(link: bool, mode: u32) -> i32 {
    if link {
        0o120000
    } else if mode & 0o111 != 0 {
        0o100755
    } else {
        0o100644
    }
}

/// The blob id and mode of the regular file or link at `p` (not followed), `None` for
/// anything else.
fn id_on_disk(p: &Path) -> Option<Recorded> {
    use std::os::unix::fs::PermissionsExt;
    let m = std::fs::symlink_metadata(p).ok()?;
    let mode = git_mode(m.file_type().is_symlink(), m.permissions().mode());
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
    Oid::hash_object(ObjectType::Blob, &bytes)
        .ok()
        .map(|id| (id, mode))
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

/// What the pull request changes against `tree` (the trusted tree), split by where it lies:
/// inside the workspace (at `prefix` in the tree; workspace-relative paths), and elsewhere in
/// the repository (`root`, the working tree the trusted tree stands in for; repository-relative
/// paths), each a file that differs, is new or is gone, and a submodule entry the checked-out
/// commit adds.
struct Changed {
    inside: Vec<String>,
    outside: Vec<String>,
    /// Submodule entries (gitlinks) the head commit adds, workspace-relative: no check reads a
    /// submodule's content, so each is listed whatever a check's globs say (attack FI2).
    links: Vec<String>,
}

/// The files of the repository at `root` outside the workspace folder `prefix` (not `.git`,
/// links not followed), repository-relative.
fn files_outside(root: &Path, prefix: &str) -> Vec<String> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let rel = e.path().strip_prefix(root).map(slash).unwrap_or_default();
            e.depth() == 0 || (e.file_name() != ".git" && rel != prefix)
        })
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
        .take(MAX_FILES)
        .filter_map(|e| e.path().strip_prefix(root).ok().map(slash))
        .collect()
}

/// See [`Changed`]. `written` is the head commit when judge-ci wrote the workspace out of it
/// (`--head REV`), so that what that commit records but a written folder does not show (a
/// gitlink is not written at all) is listed as in a checkout.
fn changed_against_tree(
    tree: &GitTree,
    written: Option<&GitTree>,
    workspace: &Path,
    prefix: &str,
    out: &Path,
) -> Changed {
    let under = |p: &str| -> Option<String> {
        if prefix.is_empty() {
            Some(p.to_string())
        } else {
            p.strip_prefix(prefix)
                .and_then(|r| r.strip_prefix('/'))
                .map(str::to_string)
        }
    };
    let all: std::collections::HashMap<String, Recorded> = tree
        .blobs(&|_| true)
        .unwrap_or_default()
        .into_iter()
        .map(|(p, id, mode)| (p, (id, git_mode(mode == 0o120000, mode as u32))))
        .collect();
    let base: std::collections::HashMap<String, Recorded> = all
        .iter()
        .filter_map(|(p, id)| under(p).map(|r| (r, *id)))
        .collect();
    let here = workspace_files(workspace, out);
    let mut inside: Vec<String> = here
        .iter()
        .filter(|rel| base.get(*rel).copied() != id_on_disk(&workspace.join(rel)))
        .cloned()
        .collect();
    // Gone: in the base, not in the workspace (nor anything else there now: a folder).
    let present: std::collections::HashSet<&str> = here.iter().map(String::as_str).collect();
    inside.extend(
        base.keys()
            .filter(|rel| !present.contains(rel.as_str()))
            .filter(|rel| std::fs::symlink_metadata(workspace.join(rel)).is_err())
            .cloned(),
    );
    // Submodule entries the head commit adds: an empty folder in a checkout (nothing at all in
    // a tree judge-ci wrote), which no walk of files meets.
    let root = tree.root();
    let is_checkout = workspace.canonicalize().is_ok_and(|w| w.starts_with(root));
    let checked_out = if is_checkout {
        tree.checked_out()
    } else {
        None
    };
    let mut links = Vec::new();
    if let Some(head) = checked_out.as_ref().or(written) {
        let base_links = tree.gitlinks().unwrap_or_default();
        for p in head.gitlinks().unwrap_or_default() {
            if !base_links.contains(&p)
                && let Some(rel) = under(&p)
            {
                links.push(rel);
            }
        }
        // What the commit records under judge-ci's default output folder: the walk leaves
        // that folder out (this run may write there), but a file committed there is the pull
        // request's change like any other (attack FI3).
        let committed = head
            .blobs(&|p| under(p).is_some_and(|r| r.starts_with(&format!("{DEFAULT_OUT}/"))))
            .unwrap_or_default();
        for (p, id, mode) in committed {
            let recorded = (id, git_mode(mode == 0o120000, mode as u32));
            if all.get(&p) != Some(&recorded)
                && let Some(rel) = under(&p)
            {
                inside.push(rel);
            }
        }
    }
    // Elsewhere in the repository, when the workspace is a folder of it.
    let mut outside = Vec::new();
    if is_checkout && !prefix.is_empty() {
        let there = files_outside(root, prefix);
        let present: std::collections::HashSet<&str> = there.iter().map(String::as_str).collect();
        outside.extend(
            there
                .iter()
                .filter(|p| all.get(*p).copied() != id_on_disk(&root.join(p)))
                .cloned(),
        );
        outside.extend(
            all.keys()
                .filter(|p| under(p).is_none() && !present.contains(p.as_str()))
                .filter(|p| std::fs::symlink_metadata(root.join(p)).is_err())
                .cloned(),
        );
    }
    Changed {
        inside,
        outside,
        links,
    }
}

/// The submodule entries (gitlinks) the subject's own commit records, workspace-relative,
/// when there is no trusted tree to compare with: the head judge-ci wrote (`--head`), or the
/// commit checked out in the workspace's repository. No check reads a submodule's content and
/// no walk of files meets one (a checkout shows an empty folder), so each is listed whatever
/// a check's globs say (attack finding FI5-2: a gitlink added under the source root was
/// neither judged nor listed). Nothing when the workspace is no checkout.
fn recorded_gitlinks(written: Option<&GitTree>, workspace: &Path) -> Vec<String> {
    if let Some(head) = written {
        return head.gitlinks().unwrap_or_default();
    }
    let Ok(repo) = git2::Repository::discover(workspace) else {
        return Vec::new();
    };
    let (Some(root), Ok(here)) = (repo.workdir(), workspace.canonicalize()) else {
        return Vec::new();
    };
    let Ok(root) = root.canonicalize() else {
        return Vec::new();
    };
    let Ok(prefix) = here.strip_prefix(&root).map(slash) else {
        return Vec::new();
    };
    let Some(tree) = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .and_then(|c| c.tree().ok())
    else {
        return Vec::new();
    };
    let mut links = Vec::new();
    let _ = tree.walk(git2::TreeWalkMode::PreOrder, |dir, e| {
        if e.kind() == Some(git2::ObjectType::Commit) {
            let path = format!("{dir}{}", e.name().unwrap_or(""));
            let rel = if prefix.is_empty() {
                Some(path)
            } else {
                path.strip_prefix(&format!("{prefix}/")).map(str::to_string)
            };
            links.extend(rel);
        }
        if links.len() >= MAX_FILES {
            git2::TreeWalkResult::Abort
        } else {
            git2::TreeWalkResult::Ok
        }
    });
    links
}

/// What the workspace's checkout commits under judge-ci's default output folder that the
/// reference does not hold alike: the walk leaves that folder out (this run may write there),
/// but a committed file there is the change's (attack findings FI3 and FI5-4, here without a
/// trusted tree).
fn committed_in_own_folder(reference: &Path, workspace: &Path) -> Vec<String> {
    crate::judges::llm::prompt::committed_out_of_sight(workspace)
        .into_iter()
        .filter(|(rel, _)| rel.starts_with(&format!("{DEFAULT_OUT}/")))
        .filter(|(rel, bytes)| {
            crate::untrusted::read(&reference.join(rel), bytes.len() as u64 + 1)
                .ok()
                .as_deref()
                != Some(bytes.as_slice())
        })
        .map(|(rel, _)| rel)
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
    written: Option<&GitTree>,
    workspace: &Path,
    reference: Option<&Path>,
    sides: &crate::judges::structural::select::Sides,
    out: &Path,
) -> Vec<String> {
    let read = reads(bench);
    let (changed, outside, links, prefix) = match (tree, reference) {
        (Some(t), _) => {
            let layout = super::protect::layout(t, workspace);
            let c = changed_against_tree(t, written, workspace, &layout.prefix, out);
            (c.inside, c.outside, c.links, layout.prefix)
        }
        (None, Some(r)) => (
            changed_against_folder(r, workspace, out)
                .into_iter()
                .chain(committed_in_own_folder(r, workspace))
                .collect(),
            Vec::new(),
            recorded_gitlinks(written, workspace),
            String::new(),
        ),
        (None, None) => return Vec::new(),
    };
    // The reference's files, listed once when a comparison's globs select a changed file.
    let reference_files: std::cell::OnceCell<std::collections::HashSet<String>> =
        std::cell::OnceCell::new();
    let in_reference = |rel: &str| {
        reference_files
            .get_or_init(|| {
                reference
                    .and_then(|r| {
                        crate::judges::structural::tree::Tree::of(r, sides)
                            .list(&set_of(&["**".to_string()]), &GlobSet::empty())
                            .ok()
                    })
                    .map(|files| files.into_keys().collect())
                    .unwrap_or_default()
            })
            .contains(rel)
    };
    let mut own = GlobSetBuilder::new();
    for g in protected_globs(bench.protected.as_deref()) {
        if let Ok(g) = Glob::new(&g) {
            own.add(g);
        }
    }
    let own = own.build().unwrap_or_else(|_| GlobSet::empty());
    let config = bench
        .path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned());
    // Outside the workspace no check reads anything: every change there is listed, but the
    // protected paths (repository-relative globs, reported on their own) and the files the
    // config names (the reference folder), as `../`-relative paths from the workspace.
    let named: std::collections::HashSet<String> = tree
        .map(|t| t.files().into_iter().map(|f| f.path).collect())
        .unwrap_or_default();
    let up = "../".repeat(prefix.split('/').filter(|c| !c.is_empty()).count());
    let outside = outside
        .into_iter()
        .filter(|p| !own.is_match(p) && !named.contains(p))
        .map(|p| format!("{up}{p}"));
    let mut listed: Vec<String> = changed
        .into_iter()
        .filter(|rel| !read.covers(workspace, rel, &in_reference) && !own.is_match(rel))
        .filter(|rel| Some(rel.as_str()) != config.as_deref())
        .chain(links.into_iter().filter(|rel| !own.is_match(rel)))
        .chain(outside)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // What a reader of a cut list must see first: code and scripts before documents.
    listed.sort_by_key(|p| (rank(workspace, p), p.clone()));
    listed
}

/// How much a reader of a cut list needs to see a changed file: 0 for what runs (an
/// executable, a script, source code, a build file), 1 for anything else, 2 for documents
/// and images.
fn rank(workspace: &Path, rel: &str) -> u8 {
    use std::os::unix::fs::PermissionsExt;
    let ext = Path::new(rel)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let executable = std::fs::symlink_metadata(workspace.join(rel))
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    const DOCS: &[&str] = &[
        "md", "markdown", "txt", "rst", "adoc", "png", "jpg", "jpeg", "gif", "svg", "pdf",
    ];
    const CODE: &[&str] = &[
        "sh",
        "bash",
        "py",
        "rb",
        "pl",
        "js",
        "mjs",
        "ts",
        "java",
        "kt",
        "kts",
        "groovy",
        "gradle",
        "scala",
        "c",
        "h",
        "cc",
        "cpp",
        "rs",
        "go",
        "jar",
        "class",
        "so",
        "xml",
        "yml",
        "yaml",
        "json",
        "properties",
        "toml",
        "cmd",
        "bat",
        "ps1",
    ];
    if executable || CODE.contains(&ext.as_str()) {
        0
    } else if DOCS.contains(&ext.as_str()) {
        2
    } else {
        1
    }
}
