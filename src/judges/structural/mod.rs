//! Structural judges: the workspace against the reference, file by file and symbol by
//! symbol. Shared here: listing both trees through include/exclude globs, reading pairs of
//! files (identical bytes are never parsed), findings with file and line, and the verdict.
//!
//! The cost grows with the change: pairs are compared in parallel (rayon, both cores), each
//! file's model lives only while its pair is compared.

mod ast;
pub mod content;
mod effective_pom;
mod files;
mod imports;
mod pom;
pub mod select;
mod surefire;
pub mod tree;

pub use content::Content;

pub use ast::ast_diff;
pub use files::file_comparison;
pub use imports::import_diff;
pub use pom::{
    At, Dependency, Plugin, Pom, PomError, effective_poms, parent_files, pom_diff, pom_files,
};
pub use surefire::{SurefireError, TestOutcome, read_reports};

use globset::{Glob, GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::checks::FileSet;
use crate::judgment::{Cause, Check, FindingKind, Judgment, JudgmentContext, Status};

use super::{Outcome, build, instrument_because};

/// Largest file compared; a larger one is a finding, never a hang.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Most findings kept in a judgment's metadata (the count of the rest is kept too).
pub const MAX_FINDINGS: usize = 2000;

/// One difference, with where it is in the workspace (or the reference, for what is
/// missing): the finding every judge and surface shares.
pub use crate::judgment::Finding;

/// The reference folder from the context, or the ABSTAIN that ends the check.
pub fn reference(ctx: &JudgmentContext) -> Result<PathBuf, Box<Outcome>> {
    match ctx.reference.as_deref() {
        Some(r) if r.is_dir() => Ok(r.to_path_buf()),
        Some(r) => Err(Box::new(instrument_because(
            Some(Cause::JudgeMisconfigured),
            format!("the reference folder {} does not exist", r.display()),
        ))),
        None => Err(Box::new(build(
            Judgment::builder(Status::Abstain).cause(Cause::JudgeMisconfigured).reasoning(
                "no reference to compare with: pass --reference or set `reference:` in the config",
            ),
        ))),
    }
}

/// A file set's glob that does not compile (the loader checks them; this names the one).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GlobError {
    /// One pattern is not a glob.
    #[error("invalid glob '{pattern}': {source}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// What globset said.
        #[source]
        source: globset::Error,
    },
    /// The set does not build.
    #[error("{0}")]
    Set(#[source] globset::Error),
}

/// A glob set of `patterns` (an invalid one named in the error).
pub(crate) fn globs(patterns: &[String]) -> Result<GlobSet, GlobError> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(Glob::new(p).map_err(|source| GlobError::Pattern {
            pattern: p.clone(),
            source,
        })?);
    }
    b.build().map_err(GlobError::Set)
}

/// Why the trees could not be listed through a file set (the causes are shared, as one
/// listing serves every structural judge of the run).
#[derive(Clone, Debug, thiserror::Error)]
pub enum ListingError {
    /// A file set's glob does not compile.
    #[error(transparent)]
    Glob(#[from] GlobError),
    /// A folder of the tree could not be walked.
    #[error("cannot walk {}: {source}", .root.display())]
    Walk {
        /// The tree's root.
        root: PathBuf,
        /// What the walk met.
        #[source]
        source: Arc<walkdir::Error>,
    },
    /// A selected file's stat data could not be read.
    #[error("cannot read {rel}: {source}")]
    Stat {
        /// The file, relative to the tree.
        rel: String,
        /// Why.
        #[source]
        source: Arc<std::io::Error>,
    },
}

/// The files of both trees that a file set selects.
#[derive(Debug)]
pub struct Listing {
    /// In both trees.
    pub both: Vec<String>,
    /// Only in the reference.
    pub only_reference: Vec<String>,
    /// Only in the workspace.
    pub only_workspace: Vec<String>,
    /// Of `both`, the byte-identical ones (never read again, never parsed).
    identical: HashSet<String>,
    /// Of `identical`, the ones git vouched for (never read at all).
    by_git: HashSet<String>,
    /// Of `both` but not `identical`, each side's stat data (zero for a tree in git).
    stamps: HashMap<String, (Stamp, Stamp)>,
    /// Selected entries of the workspace that are not regular files (never read).
    not_regular: Vec<(String, crate::untrusted::Kind)>,
    /// The reference, as the listing read it.
    reference: tree::Tree,
}

impl Listing {
    /// The two versions of `rel`, a file of `both` not known identical, read when needed.
    fn contents<'a>(
        &'a self,
        run: &'a Comparisons,
        workspace: &'a Path,
        rel: &'a str,
    ) -> (Content<'a>, Content<'a>) {
        let (ws, rf) = self.stamps.get(rel).copied().unwrap_or_default();
        (
            Content::new(rel, content::Side::Workspace(workspace), ws, run),
            Content::new(rel, content::Side::Reference(&self.reference), rf, run),
        )
    }

    /// A `file-not-regular` finding for each selected workspace entry that is not a regular
    /// file (a link, FIFO, socket, device): the compiler may read what a link points to, so a
    /// judge that skipped it would pass code it never saw.
    pub fn not_regular_findings(&self) -> impl Iterator<Item = Finding> + '_ {
        self.not_regular.iter().map(|(rel, kind)| {
            Finding::new(rel.as_str(), FindingKind::FileNotRegular)
                .actual(kind.word())
                .message(format!(
                    "{rel} is a {kind}, not a regular file: judge-ci reads no {kind} of the subject, so what it stands for is unjudged"
                ))
        })
    }

    /// The reference tree the listing was made of.
    pub fn reference_tree(&self) -> &tree::Tree {
        &self.reference
    }

    /// Judgment metadata saying how many identical files were known from git without being
    /// read (`identicalByGit`).
    pub fn git_metadata(&self) -> (&'static str, Value) {
        ("identicalByGit", Value::from(self.by_git.len() as u64))
    }
}

/// Stat data (size, times, inode, owner): what decides whether a remembered comparison, or
/// a git index entry, still holds.
type Stamp = select::Stat;

/// What is remembered of one file's comparison: both stamps, whether the two are identical,
/// and whether git said so (without reading them).
#[derive(Clone, Copy, Debug)]
struct Compared {
    workspace: Stamp,
    reference: Stamp,
    same: bool,
    by_git: bool,
}

/// Remembered byte comparisons of one (workspace, reference) pair of trees.
type Index = HashMap<String, Compared>;

/// The index of each (workspace, reference) pair.
type Pairs = HashMap<(PathBuf, PathBuf), Arc<Mutex<Index>>>;

/// A listing made once and shared: the judge that asks first makes it, the others wait.
type Shared = Arc<OnceLock<Result<Arc<Listing>, ListingError>>>;

/// Which listing: the two folders and the file set's globs.
type ListingKey = (PathBuf, PathBuf, Vec<String>, Vec<String>);

/// The reference's effective POMs, read once per run: by reference folder, its `.mvn/`
/// settings and each POM (by path) resolved as Maven builds it, or why it cannot be read.
type ReferencePoms = HashMap<PathBuf, Arc<pom::ReferencePoms>>;

/// Which listing of the reference alone: its folder and the file set's globs.
type ReferenceKey = (PathBuf, Vec<String>, Vec<String>);

/// The reference's files a file set selects, with their stamps ([`tree::Tree::list`]).
type ReferenceFiles = Arc<BTreeMap<String, Stamp>>;

/// The structural judges' share of a run: what git knows of the run's folders
/// ([`select::Sides`]), the run's model cache, and the byte comparisons of its pairs of trees,
/// shared by every structural judge of the run so that each file is read once, not once per
/// judge. Owned by the run (the judges' [`crate::judges::Services`]) and dropped with it:
/// nothing outlives the run that made it, and concurrent runs (a suite's tasks) share none
/// of it.
///
/// Judges with the same file set share one listing (one walk, one comparison): the trees they
/// read do not change while they run. The reference is judge-ci's own (hidden, or in git);
/// the workspace is either the snapshot (hidden, and checked for changes when judging ends)
/// or, when no subject code runs before or beside a structural judge
/// ([`crate::judges::snapshot::needed`]), the live workspace that nothing else writes then.
#[derive(Default)]
pub struct Comparisons {
    pairs: Mutex<Pairs>,
    listings: Mutex<HashMap<ListingKey, Shared>>,
    sides: Arc<select::Sides>,
    store: Option<Arc<crate::lang::cache::Store>>,
    reference_poms: Mutex<ReferencePoms>,
    /// Digests of the reference's files learnt in this run, by the file's name and stat data
    /// ([`Content`]'s id): the reference does not change while the run lasts, so a file is
    /// hashed once however many workspaces are compared with it.
    reference_digests: Mutex<HashMap<Vec<u8>, crate::lang::cache::Key>>,
    /// The reference's files each file set selects, listed once per run: the reference
    /// does not change while the run lasts, so however many workspaces are compared with it
    /// (`judge-ci prove`'s variants) each file set walks it once, not once per workspace.
    reference_listings: Mutex<HashMap<ReferenceKey, ReferenceFiles>>,
}

/// Glob sets and import patterns compiled once per process, by their text: compiling them is
/// most of what judging a small tree costs, and `judge-ci prove` judges many trees with one
/// config (its gold run compiles them, each variant reuses them). What is kept is a pure
/// function of the text, so runs that share it (a suite's tasks) share nothing else by it.
#[derive(Default)]
struct Compiled {
    globs: HashMap<Vec<String>, Arc<GlobSet>>,
    regexes: HashMap<String, regex::Regex>,
}

/// The process's [`Compiled`].
static COMPILED: OnceLock<Mutex<Compiled>> = OnceLock::new();

impl std::fmt::Debug for Comparisons {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Comparisons")
            .field("sides", &self.sides)
            .field("store", &self.store.as_ref().map(|s| s.dir().to_path_buf()))
            .finish_non_exhaustive()
    }
}

impl Comparisons {
    /// A run's comparisons, with what git knows of its folders and its model cache (`None`:
    /// models are parsed, never stored).
    pub fn new(
        sides: Arc<select::Sides>,
        store: Option<Arc<crate::lang::cache::Store>>,
    ) -> Comparisons {
        Comparisons {
            sides,
            store,
            ..Comparisons::default()
        }
    }

    /// What git knows of the run's folders.
    pub fn sides(&self) -> &select::Sides {
        &self.sides
    }

    /// The run's model cache, if it has one.
    pub fn store(&self) -> Option<&crate::lang::cache::Store> {
        self.store.as_deref()
    }

    /// The reference `reference`'s effective POMs, made empty on first use: the reference
    /// is judge-ci's own (hidden, or in git) and does not change while the run that owns
    /// these comparisons lasts, so each of its POMs is resolved once however many
    /// workspaces are compared with it (`judge-ci prove`'s variants).
    fn reference_poms(&self, reference: &Path) -> Arc<pom::ReferencePoms> {
        let mut all = self
            .reference_poms
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        Arc::clone(all.entry(reference.to_path_buf()).or_default())
    }

    /// The files of `reference` that `set` selects (compiled as `include`, `exclude`),
    /// listed on first use and remembered for the run (a listing that fails is not).
    fn reference_files(
        &self,
        reference: &tree::Tree,
        set: &FileSet,
        include: &GlobSet,
        exclude: &GlobSet,
    ) -> Result<ReferenceFiles, ListingError> {
        let key = (
            reference.folder().to_path_buf(),
            set.include.clone(),
            set.exclude.clone(),
        );
        let known = self
            .reference_listings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        if let Some(files) = known {
            return Ok(files);
        }
        let files = Arc::new(reference.list(include, exclude)?);
        self.reference_listings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, Arc::clone(&files));
        Ok(files)
    }

    /// The digest learnt in this run for the reference file `id` names.
    pub(crate) fn reference_digest(&self, id: &[u8]) -> Option<crate::lang::cache::Key> {
        self.reference_digests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .copied()
    }

    /// Remembers, for this run, the digest of the reference file `id` names.
    pub(crate) fn remember_reference_digest(&self, id: Vec<u8>, digest: crate::lang::cache::Key) {
        self.reference_digests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, digest);
    }

    /// `patterns` compiled as one glob set, once per process ([`Compiled`]).
    pub(crate) fn globs(&self, patterns: &[String]) -> Result<Arc<GlobSet>, GlobError> {
        if let Some(g) = compiled().globs.get(patterns) {
            return Ok(Arc::clone(g));
        }
        let g = Arc::new(globs(patterns)?);
        compiled().globs.insert(patterns.to_vec(), Arc::clone(&g));
        Ok(g)
    }

    /// The regular expression `re`, compiled once per process ([`Compiled`]; a clone shares
    /// the compiled program).
    pub(crate) fn regex(&self, re: &str) -> Result<regex::Regex, regex::Error> {
        if let Some(r) = compiled().regexes.get(re) {
            return Ok(r.clone());
        }
        let r = regex::Regex::new(re)?;
        compiled().regexes.insert(re.to_string(), r.clone());
        Ok(r)
    }

    /// The index of one pair, created empty on first use.
    fn index_for(&self, workspace: &Path, reference: &Path) -> Arc<Mutex<Index>> {
        let mut all = self.pairs.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(
            all.entry((workspace.to_path_buf(), reference.to_path_buf()))
                .or_default(),
        )
    }
}

/// The process's compiled patterns, locked.
fn compiled() -> std::sync::MutexGuard<'static, Compiled> {
    COMPILED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// What a walk of a tree found: the regular files the globs select, with their stamps, and
/// the selected entries that are not regular files (links, FIFOs, sockets, devices), which
/// are never read and never skipped silently: each becomes a `file-not-regular` finding.
pub type Walked = (
    BTreeMap<String, Stamp>,
    Vec<(String, crate::untrusted::Kind)>,
);

/// Regular files under `root` (symlinks are not followed, so loops cannot hang the walk),
/// relative, `/`-separated, selected by the globs, with their stamps; and the selected
/// entries that are not regular files ([`Walked`]).
pub fn walk(root: &Path, include: &GlobSet, exclude: &GlobSet) -> Result<Walked, ListingError> {
    let mut selected = Vec::new();
    let mut not_regular = Vec::new();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            !(e.depth() > 0 && e.file_type().is_dir() && name == ".git")
        });
    for entry in walker {
        let entry = entry.map_err(|e| ListingError::Walk {
            root: root.to_path_buf(),
            source: Arc::new(e),
        })?;
        let kind = crate::untrusted::Kind::of(entry.file_type());
        if kind == crate::untrusted::Kind::Directory {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        // A name is data: a backslash is part of it on this system, never a separator (a
        // file named `com\example\X.java` is not `com/example/X.java`).
        let rel = rel.to_string_lossy().into_owned();
        if include.is_match(&rel) && !exclude.is_match(&rel) {
            if kind == crate::untrusted::Kind::Regular {
                selected.push((rel, entry.into_path()));
            } else {
                not_regular.push((rel, kind));
            }
        } else if kind == crate::untrusted::Kind::Symlink
            && !exclude.is_match(&rel)
            && std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir())
        {
            // A link to a folder: a build follows it into whatever it points at, which the
            // globs would select there; the walk never does, so it is a finding.
            not_regular.push((rel, kind));
        }
    }
    // The stat calls, the walk's cost, on both cores (links are not followed).
    let files = selected
        .into_par_iter()
        .with_min_len(256)
        .map(|(rel, path)| {
            let meta = std::fs::symlink_metadata(&path).map_err(|e| ListingError::Stat {
                rel: rel.clone(),
                source: Arc::new(e),
            })?;
            Ok((rel, Stamp::of(&meta)))
        })
        .collect::<Result<_, ListingError>>()?;
    not_regular.sort();
    Ok((files, not_regular))
}

/// Lists both trees through a file set and finds the identical files of both (in parallel,
/// remembering the answer for the run's other structural judges). Where git vouches for both
/// sides' content ids ([`select`]), a file is decided by its ids without being read.
pub fn list(
    comparisons: &Comparisons,
    workspace: &Path,
    reference: &Path,
    set: &FileSet,
) -> Result<Arc<Listing>, ListingError> {
    let key = (
        workspace.to_path_buf(),
        reference.to_path_buf(),
        set.include.clone(),
        set.exclude.clone(),
    );
    let shared = Arc::clone(
        comparisons
            .listings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key)
            .or_default(),
    );
    shared
        .get_or_init(|| {
            list_in(
                comparisons,
                workspace,
                reference,
                set,
                comparisons.sides.sides(workspace, reference),
            )
            .map(Arc::new)
        })
        .clone()
}

/// [`list`] with what git knows of the two sides given (`None`: read and compare).
fn list_in(
    comparisons: &Comparisons,
    workspace: &Path,
    reference: &Path,
    set: &FileSet,
    git: Option<(select::Side, select::Side)>,
) -> Result<Listing, ListingError> {
    let include = comparisons.globs(&set.include)?;
    let exclude = comparisons.globs(&set.exclude)?;
    let reference_tree = tree::Tree::of(reference, &comparisons.sides);
    let (ws, rf) = rayon::join(
        || walk(workspace, &include, &exclude),
        || comparisons.reference_files(&reference_tree, set, &include, &exclude),
    );
    let ((ws, mut not_regular), rf) = (ws?, rf?);
    // A link the reference holds too, to the same target, is no change of the subject's: it
    // is accounted for by that comparison (a reference with links is always a folder).
    not_regular.retain(|(rel, kind)| {
        let same_link = *kind == crate::untrusted::Kind::Symlink
            && !reference_tree.in_git()
            && matches!(
                (
                    std::fs::read_link(workspace.join(rel)),
                    std::fs::read_link(reference_tree.folder().join(rel)),
                ),
                (Ok(a), Ok(b)) if a == b
            );
        !same_link
    });
    let both: Vec<String> = rf.keys().filter(|k| ws.contains_key(*k)).cloned().collect();
    let index = comparisons.index_for(workspace, reference);
    let mut index = index.lock().unwrap_or_else(|e| e.into_inner());
    let stale: Vec<&String> = both
        .iter()
        .filter(|rel| {
            !matches!(index.get(*rel), Some(c) if c.workspace == ws[*rel] && c.reference == rf[*rel])
        })
        .collect();
    let fresh: Vec<(String, Compared)> = stale
        .par_iter()
        .with_max_len(64)
        .map(|rel| {
            let (w, r) = (ws[*rel], rf[*rel]);
            let ids = git
                .as_ref()
                .and_then(|(gw, gr)| Some((gw.id(rel, &w)?, gr.id(rel, &r)?)));
            let (same, by_git) = match ids {
                // Known to differ without reading.
                Some((a, b)) if a != b => (false, false),
                // Known identical; a file too large to read stays a finding, as it is read.
                // (A tree in git has no stat data: equal ids are equal lengths.)
                Some(_)
                    if w.len <= MAX_FILE_BYTES && (w.len == r.len || reference_tree.in_git()) =>
                {
                    (true, true)
                }
                // Different sizes differ without reading. (A tree in git has no sizes to
                // compare.) Otherwise the digests remembered from an earlier run decide, or
                // both are read and compared (and their digests remembered for the next run,
                // when there is a model cache).
                _ if w.len != r.len && !reference_tree.in_git() => (false, false),
                _ => {
                    let cw = Content::new(rel, content::Side::Workspace(workspace), w, comparisons);
                    let cr = Content::new(
                        rel,
                        content::Side::Reference(&reference_tree),
                        r,
                        comparisons,
                    );
                    let same = match (cw.known_digest(), cr.known_digest()) {
                        (Some(a), Some(b)) => a == b,
                        _ => matches!((cw.bytes(), cr.bytes()), (Ok(a), Ok(b)) if a == b),
                    };
                    if comparisons.store.is_some() {
                        // Bytes found equal share the reference's digest: the workspace's
                        // copy is not hashed again.
                        let _ = if same { cw.digest_as(&cr) } else { cw.digest() };
                        let _ = cr.digest();
                    }
                    (same, false)
                }
            };
            let c = Compared {
                workspace: w,
                reference: r,
                same,
                by_git,
            };
            ((*rel).clone(), c)
        })
        .collect();
    index.extend(fresh);
    let of = |keep: fn(&Compared) -> bool| -> HashSet<String> {
        both.iter()
            .filter(|rel| index.get(*rel).is_some_and(keep))
            .cloned()
            .collect()
    };
    let identical = of(|c| c.same);
    let by_git = of(|c| c.same && c.by_git);
    let stamps = both
        .iter()
        .filter(|rel| !identical.contains(*rel))
        .map(|rel| (rel.clone(), (ws[rel], rf[rel])))
        .collect();
    Ok(Listing {
        stamps,
        only_reference: rf
            .keys()
            .filter(|k| !ws.contains_key(*k))
            .cloned()
            .collect(),
        only_workspace: ws
            .keys()
            .filter(|k| !rf.contains_key(*k))
            .cloned()
            .collect(),
        both,
        identical,
        by_git,
        not_regular,
        reference: reference_tree,
    })
}

/// A file of either tree, up to [`MAX_FILE_BYTES`].
pub fn read_bounded(p: &Path) -> Result<Vec<u8>, crate::judges::paths::FileError> {
    crate::judges::paths::read_limited(p, MAX_FILE_BYTES)
}

/// The NOT_APPLICABLE of a structural judge whose selection matched no file it examines,
/// naming the globs: examining nothing is never a PASS (trust.md point 19). A tree whose
/// sources are all in a language the check does not read (Kotlin under `languages: [java]`) is not
/// "all 0 files match". Where the check does not declare that it may be not applicable
/// (`not-applicable-when`), the jury turns this into an ERROR that says so, which no gate
/// under `fail-on: error` accepts either. `workspace_only` says whether the judge examines a
/// file only the workspace has (import-diff and pom-diff report one; file-comparison and
/// ast-diff compare reference files only, so a file the pull request adds there cannot turn
/// "nothing examined" into a PASS: attack FI4, and the unjudged listing names it).
pub fn nothing_examined(
    what: &str,
    listing: &Listing,
    files: &FileSet,
    workspace_only: bool,
) -> Option<Outcome> {
    if !(listing.both.is_empty()
        && listing.only_reference.is_empty()
        && listing.not_regular.is_empty()
        && (!workspace_only || listing.only_workspace.is_empty()))
    {
        return None;
    }
    let (whose, unexamined) = match listing.only_workspace.first() {
        None => ("the workspace or the reference", String::new()),
        Some(first) => (
            "the reference",
            format!(
                "; {} file(s) only the workspace has are not compared, so no check read them (first: {first})",
                listing.only_workspace.len()
            ),
        ),
    };
    let exclude = if files.exclude.is_empty() {
        String::new()
    } else {
        format!(", excluding {}", files.exclude.join(", "))
    };
    Some(
        Judgment::builder(Status::NotApplicable)
            .reasoning(format!(
                "{what}: no file of {whose} matches {}{exclude}; nothing was examined{unexamined}",
                files.include.join(", ")
            ))
            .metadata("filesCompared", 0u64)
            .metadata(
                "selection",
                serde_json::json!({"include": files.include, "exclude": files.exclude}),
            )
            .build()
            .map_err(Into::into),
    )
}

/// Compares every file of `both` with `compare` (identical files are never read or parsed,
/// unreadable ones become findings) and adds a `file-missing` finding for each reference file
/// the workspace lacks. Returns the findings, the files without any, and the files compared.
pub fn compare_files(
    run: &Comparisons,
    listing: &Listing,
    workspace: &Path,
    compare: impl Fn(&str, &Content, &Content) -> Vec<Finding> + Sync,
) -> (Vec<Finding>, usize, usize) {
    // Only the files not known identical are work, and they may sit together in the listing
    // (one package changed): split them one by one so that both cores share them.
    let work: Vec<&String> = listing
        .both
        .iter()
        .filter(|rel| !listing.identical.contains(*rel))
        .collect();
    let per_file: Vec<Vec<Finding>> = work
        .par_iter()
        .with_max_len(1)
        .map(|rel| {
            let (w, r) = listing.contents(run, workspace, rel);
            compare(rel, &w, &r)
        })
        .collect();
    let matched =
        listing.both.len() - work.len() + per_file.iter().filter(|f| f.is_empty()).count();
    let mut findings: Vec<Finding> = per_file.into_iter().flatten().collect();
    findings.extend(listing.not_regular_findings());
    findings.extend(
        listing
            .only_reference
            .iter()
            .map(|rel| Finding::new(rel.as_str(), FindingKind::FileMissing).expected(rel.as_str())),
    );
    (
        findings,
        matched,
        listing.both.len() + listing.only_reference.len() + listing.not_regular.len(),
    )
}

/// The verdict of a structural judge: PASS iff there is no finding; the score is the share
/// of compared reference files without a difference; findings go to metadata.
pub fn verdict(
    what: &str,
    mut findings: Vec<Finding>,
    matched: usize,
    total: usize,
    extra: Vec<(&str, Value)>,
) -> Outcome {
    findings.sort();
    findings.dedup();
    let passed = findings.is_empty();
    let score = if total == 0 {
        if passed { 1.0 } else { 0.0 }
    } else {
        matched as f64 / total as f64
    };
    let mut kinds: Vec<(crate::judgment::FindingKind, usize)> = Vec::new();
    for f in &findings {
        match kinds.iter_mut().find(|(k, _)| *k == f.kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((f.kind, 1)),
        }
    }
    let summary = kinds
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect::<Vec<_>>()
        .join(", ");
    let reasoning = if passed {
        format!("{what}: all {total} compared file(s) match the reference")
    } else {
        format!("{what}: {matched} of {total} file(s) match the reference; {summary}")
    };
    let mut b = Judgment::builder(if passed { Status::Pass } else { Status::Fail })
        .score(score)
        .reasoning(reasoning)
        .check(Check::new(
            what,
            passed,
            format!("{matched}/{total} files match"),
        )?)
        .metadata("filesCompared", total as u64)
        .metadata("filesMatched", matched as u64);
    if findings.len() > MAX_FINDINGS {
        b = b.metadata("findingsNotListed", (findings.len() - MAX_FINDINGS) as u64);
    }
    findings.truncate(MAX_FINDINGS);
    b = b.findings(findings);
    for (k, v) in extra {
        b = b.metadata(k, v);
    }
    build(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_that_cannot_be_listed_says_how() {
        let none = std::path::Path::new("/nonexistent/judge-ci/tree");
        let all = globs(&["**".into()]).unwrap();
        let nothing = globs(&[]).unwrap();
        assert!(matches!(
            walk(none, &all, &nothing),
            Err(ListingError::Walk { root, .. }) if root == none
        ));
        let run = Comparisons::new(Default::default(), None);
        let set = FileSet {
            include: vec!["[".into()],
            exclude: Vec::new(),
        };
        let e = list(&run, none, none, &set).unwrap_err();
        assert!(
            matches!(&e, ListingError::Glob(GlobError::Pattern { pattern, .. }) if pattern == "["),
            "{e}"
        );
    }

    /// Two workspaces listed against one reference in one run: the reference is walked once
    /// per file set, and each listing is the one fresh comparisons give.
    #[test]
    fn the_reference_is_listed_once_per_file_set_for_every_workspace() {
        let rf = tempfile::tempdir().unwrap();
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for (d, x) in [(rf.path(), "1"), (a.path(), "1"), (b.path(), "2")] {
            std::fs::create_dir_all(d.join("src")).unwrap();
            std::fs::write(d.join("src/A.java"), x).unwrap();
            std::fs::write(d.join("pom.xml"), "<project/>").unwrap();
        }
        let set = |inc: &str| FileSet {
            include: vec![inc.into()],
            exclude: Vec::new(),
        };
        let run = Comparisons::new(Default::default(), None);
        for ws in [a.path(), b.path()] {
            for s in [set("**/*.java"), set("**/*")] {
                let shared = list(&run, ws, rf.path(), &s).unwrap();
                let fresh = list(
                    &Comparisons::new(Default::default(), None),
                    ws,
                    rf.path(),
                    &s,
                )
                .unwrap();
                assert_eq!(shared.both, fresh.both);
                assert_eq!(shared.only_reference, fresh.only_reference);
                assert_eq!(shared.identical, fresh.identical);
            }
        }
        let listed = run
            .reference_listings
            .lock()
            .unwrap()
            .keys()
            .map(|(_, inc, _)| inc.join(","))
            .collect::<std::collections::BTreeSet<_>>();
        assert_eq!(listed.len(), 2, "{listed:?}");
        assert_eq!(run.reference_listings.lock().unwrap().len(), 2);
        let java = list(&run, b.path(), rf.path(), &set("**/*.java")).unwrap();
        assert!(!java.identical.contains("src/A.java"));
    }

    #[test]
    fn an_invalid_glob_is_named() {
        let e = globs(&["src/**".into(), "[a".into()]).unwrap_err();
        assert!(
            matches!(&e, GlobError::Pattern { pattern, .. } if pattern == "[a"),
            "{e:?}"
        );
        assert!(e.to_string().starts_with("invalid glob '[a': "), "{e}");
    }
}
