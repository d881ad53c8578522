//! The workspace as submitted (trust.md points 13 and 20): a copy taken when judging starts,
//! before any subject code runs, that every judge reading the workspace's sources (the
//! structural comparisons, the semantic tier's material and plan; the registry's
//! [`WorkspaceReads`] fact) reads instead of the live workspace, when one of them can run
//! after subject code (see [`needed`]; otherwise they read the live workspace, untouched
//! until then, with git's help). This is the one place the rule is decided.
//! A build step in an earlier tier that rewrites the sources (copying the reference over them,
//! say) changes the live workspace only. The copy lives in a folder hidden from subject
//! processes (see [`crate::fence`]), and its content hashes, recorded when it is taken, are
//! checked again when judging ends: a copy changed in between makes the run an instrument
//! failure instead of a verdict.
//!
//! Only what the structural judges can read is copied ([`Reads`]): the files their selectors
//! select — the config's globs, never the workspace's `.gitignore`, which the pull request
//! controls — and for `pom-diff` each POM's parents; with `pom-diff`, every other file is an
//! empty stand-in, since profile activation asks whether a file exists. So `target/` and
//! `node_modules/` are not copied unless a selector selects them. Where git vouched for a
//! copied file's content in the workspace ([`super::structural::select`]), the copy is
//! registered with the same id, so that git-aware selection still holds.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::structural::{MAX_FILE_BYTES, globs, parent_files, pom_files, select};

use crate::config::checks::{SourceSelection, WorkspaceReads};
use crate::config::{CheckSpec, JurySpec};

/// The folder the source-reading judges read: the snapshot when one was taken, else the
/// workspace.
pub fn submitted(ctx: &crate::judgment::JudgmentContext) -> PathBuf {
    ctx.submitted
        .clone()
        .unwrap_or_else(|| ctx.workspace.clone())
}

/// [`needed`], or `code_first` (subject code runs before the jury: a task's `setup` or `post`
/// commands) while the jury has a structural judge.
pub fn needed_after(spec: &JurySpec, code_first: bool) -> bool {
    needed(spec) || code_first && spec.all_checks().iter().any(|c| reads_sources(c))
}

/// A check that reads the workspace's own sources (the structural comparisons, the semantic
/// tier): the registry's [`WorkspaceReads`] fact, the one place this is decided.
fn reads_sources(c: &CheckSpec) -> bool {
    c.kind.facts().reads != WorkspaceReads::Outputs
}

/// A check that runs the subject's code: the registry's phase fact.
fn runs_code(c: &CheckSpec) -> bool {
    c.kind.facts().runs_subject_code()
}

/// Whether a check that reads sources could run after (or beside) subject code: it sits in a
/// tier at or after the first tier with a check that runs subject code, or in a jury that
/// also runs one. When every such check runs before any subject code, the live workspace is
/// the workspace as submitted and no copy is needed. Every judge that reads sources reads
/// [`submitted`], so this one rule decides for all of them.
pub fn needed(spec: &JurySpec) -> bool {
    match spec {
        JurySpec::Tiers(tiers) => {
            let mut code_ran = false;
            for t in tiers {
                code_ran |= t.checks.iter().any(runs_code);
                if code_ran && t.checks.iter().any(reads_sources) {
                    return true;
                }
            }
            false
        }
        // One jury (or members voting side by side): any order is possible.
        JurySpec::Checks { .. } | JurySpec::Members { .. } => {
            let checks = spec.all_checks();
            checks.iter().any(|c| runs_code(c)) && checks.iter().any(|c| reads_sources(c))
        }
    }
}

/// What the structural judges of a jury can read of a tree.
#[derive(Debug)]
pub struct Reads {
    /// Include and exclude globs of each structural check.
    sets: Vec<(globset::GlobSet, globset::GlobSet)>,
    /// The paths file checks name (a file, or a folder and what is under it).
    paths: Vec<String>,
    /// A `pom-diff` runs: POMs, their parents, and the tree's shape.
    poms: bool,
    /// A check reads every file (the semantic tier).
    everything: bool,
}

/// Why the snapshot's reads could not be decided from the jury.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadsError {
    /// A check whose facts say it reads sources selects none (a registry defect).
    #[error("check '{check}' ({check_type}) reads sources but selects none")]
    SelectsNone {
        /// The check's name.
        check: String,
        /// Its type.
        check_type: String,
    },
    /// A file set's glob does not compile.
    #[error(transparent)]
    Glob(#[from] super::structural::GlobError),
}

impl Reads {
    /// What the structural checks of `spec` read.
    pub fn of(spec: &JurySpec) -> Result<Reads, ReadsError> {
        let mut sets = Vec::new();
        let mut poms = false;
        let mut everything = false;
        let mut paths = Vec::new();
        for c in spec.all_checks() {
            let set = match c.kind.facts().reads {
                WorkspaceReads::Outputs => continue,
                WorkspaceReads::Everything => {
                    everything = true;
                    continue;
                }
                WorkspaceReads::Sources => match c.kind.sources() {
                    Some(SourceSelection::Files(files)) => files.clone(),
                    Some(SourceSelection::Poms) => {
                        poms = true;
                        pom_files()
                    }
                    Some(SourceSelection::Path(p)) => {
                        let p = p.as_path().to_string_lossy().replace('\\', "/");
                        paths.push(p);
                        continue;
                    }
                    None => {
                        return Err(ReadsError::SelectsNone {
                            check: c.name.clone(),
                            check_type: c.check_type().to_string(),
                        });
                    }
                },
            };
            sets.push((globs(&set.include)?, globs(&set.exclude)?));
        }
        if poms {
            // `.mvn/maven.config` and `.mvn/jvm.config`, read for every POM.
            let mvn = [".mvn/**".to_string()];
            sets.push((globs(&mvn)?, globs(&[])?));
        }
        Ok(Reads {
            sets,
            paths,
            poms,
            everything,
        })
    }

    fn selects(&self, rel: &str) -> bool {
        self.everything
            || self.paths.iter().any(|p| {
                rel == p
                    || rel
                        .strip_prefix(p.as_str())
                        .is_some_and(|r| r.starts_with('/'))
            })
            || self
                .sets
                .iter()
                .any(|(include, exclude)| include.is_match(rel) && !exclude.is_match(rel))
    }
}

/// A copy of what the structural judges read of the workspace, with the hash of every file.
#[derive(Debug)]
pub struct Snapshot {
    dir: crate::materialize::scratch::Scratch,
    /// Each file's hash, or for a file larger than the structural judges read, its length.
    files: HashMap<PathBuf, Content>,
}

/// What is recorded of one file of the copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Content {
    /// Its SHA-256.
    Hash([u8; 32]),
    /// Larger than the structural judges read: a sparse file of the same length.
    TooLarge(u64),
}

fn hash(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn content_of(p: &Path) -> std::io::Result<Content> {
    let len = std::fs::symlink_metadata(p)?.len();
    if len > MAX_FILE_BYTES {
        return Ok(Content::TooLarge(len));
    }
    Ok(Content::Hash(hash(&read(p)?)))
}

/// A file of the workspace or the copy, through the one primitive for subject files.
fn read(p: &Path) -> std::io::Result<Vec<u8>> {
    crate::untrusted::read(p, MAX_FILE_BYTES).map_err(std::io::Error::other)
}

/// A stand-in in the copy for a selected entry that is neither a file, a folder nor a link
/// (a FIFO, a socket, a device): of the same kind where an unprivileged process can make
/// one (a FIFO, a socket), else a FIFO, so the judges reading the copy report it as not
/// regular rather than never seeing it.
fn stand_in(kind: crate::untrusted::Kind, target: &Path) -> std::io::Result<()> {
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if kind == crate::untrusted::Kind::Socket {
        drop(std::os::unix::net::UnixListener::bind(target)?);
        return Ok(());
    }
    nix::unistd::mkfifo(target, nix::sys::stat::Mode::from_bits_truncate(0o600))
        .map_err(std::io::Error::from)
}

/// Copies one file (a sparse stand-in when too large to read); returns what is recorded.
fn copy_file(from: &Path, to: &Path, len: u64) -> std::io::Result<Content> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if len > MAX_FILE_BYTES {
        std::fs::File::create(to)?.set_len(len)?;
        return Ok(Content::TooLarge(len));
    }
    let bytes = read(from)?;
    std::fs::write(to, &bytes)?;
    Ok(Content::Hash(hash(&bytes)))
}

impl Snapshot {
    /// Copies what the structural checks of `spec` read of `workspace` (without `.git`) into
    /// a new hidden temporary folder. Symbolic links are copied as links; a file larger than
    /// the structural judges read becomes a sparse file of the same length (they only see
    /// its size).
    pub fn take(
        workspace: &Path,
        spec: &JurySpec,
        fence: &crate::fence::Fence,
        sides: &select::Sides,
    ) -> std::io::Result<Snapshot> {
        let reads = Reads::of(spec).map_err(std::io::Error::other)?;
        let dir = tempfile::Builder::new()
            .prefix("judge-ci-snapshot-")
            .tempdir()?;
        fence.hide(dir.path());
        let git = sides.side_of(workspace);
        let mut files = HashMap::new();
        let mut known = Vec::new();
        let mut poms = Vec::new();
        let walk = walkdir::WalkDir::new(workspace)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| !(e.depth() == 1 && e.file_name() == ".git"));
        for e in walk {
            let e = e.map_err(std::io::Error::other)?;
            let rel = e.path().strip_prefix(workspace).unwrap_or(e.path());
            let rel_str = rel.to_string_lossy().into_owned();
            let target = dir.path().join(rel);
            let t = e.file_type();
            let selected = reads.selects(&rel_str);
            if t.is_dir() {
                if reads.poms || selected {
                    std::fs::create_dir_all(&target)?;
                }
            } else if t.is_symlink() {
                // Every link is kept (as a link): a link to a folder is a finding of the
                // structural judges whatever their globs select.
                {
                    if let Some(parent) = target.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    std::os::unix::fs::symlink(std::fs::read_link(e.path())?, &target)?;
                }
            } else if t.is_file() {
                let meta = e.metadata().map_err(std::io::Error::other)?;
                let content = if selected {
                    let c = copy_file(e.path(), &target, meta.len())?;
                    if let Some(id) = git
                        .as_ref()
                        .and_then(|g| g.id(&rel_str, &select::Stat::of(&meta)))
                    {
                        known.push((rel_str.clone(), id, target.clone()));
                    }
                    c
                } else if reads.poms {
                    std::fs::File::create(&target)?;
                    Content::Hash(hash(b""))
                } else {
                    continue;
                };
                if reads.poms && selected && rel_str.ends_with("pom.xml") {
                    poms.push(rel_str);
                }
                files.insert(rel.to_path_buf(), content);
            } else if selected {
                stand_in(crate::untrusted::Kind::of(t), &target)?;
            }
        }
        // The parents of each POM, whatever their names, as `pom-diff` follows them.
        for pom in &poms {
            for parent in parent_files(workspace, pom) {
                let rel = PathBuf::from(&parent);
                if matches!(files.get(&rel), Some(Content::Hash(h)) if *h != hash(b"")) {
                    continue;
                }
                let from = workspace.join(&rel);
                let len = std::fs::metadata(&from)?.len();
                let c = copy_file(&from, &dir.path().join(&rel), len)?;
                files.insert(rel, c);
            }
        }
        // The copy's git ids, for the run's selection.
        if !known.is_empty() {
            sides.register_side(
                dir.path(),
                select::Side::Copy(std::sync::Arc::new(select::Copy::new(known))),
            );
        }
        Ok(Snapshot {
            dir: crate::materialize::scratch::Scratch::new(dir),
            files,
        })
    }

    /// The folder holding the copy.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The files whose copy no longer matches what was recorded with it (changed, removed),
    /// or that were added since, sorted.
    pub fn tampered(&self) -> Vec<PathBuf> {
        let mut bad: Vec<PathBuf> = self
            .files
            .iter()
            .filter(|(rel, c)| content_of(&self.dir.path().join(rel)).ok() != Some(**c))
            .map(|(rel, _)| rel.clone())
            .collect();
        for e in walkdir::WalkDir::new(self.dir.path())
            .follow_links(false)
            .into_iter()
            .flatten()
        {
            if e.file_type().is_file() {
                let rel = e.path().strip_prefix(self.dir.path()).unwrap_or(e.path());
                if !self.files.contains_key(rel) {
                    bad.push(rel.to_path_buf());
                }
            }
        }
        bad.sort();
        bad
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jury(tiers: &str) -> JurySpec {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("judge-ci.yml");
        std::fs::write(
            &p,
            format!("schema: judge-ci.v1\nname: t\nversion: \"1\"\njury:\n{tiers}"),
        )
        .unwrap();
        crate::config::load_benchmark(&p).unwrap().0.jury
    }

    #[test]
    fn a_copy_is_needed_only_when_subject_code_can_run_first() {
        let structural = "      - type: import-diff\n        forbid: [javax.*]\n";
        let command = "      - type: command\n        run: \"true\"\n";
        let tiers = |a: &str, b: &str| {
            format!(
                "  tiers:\n    - name: a\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n{a}    - name: b\n      checks:\n{b}"
            )
        };
        assert!(!needed(&jury(&tiers(structural, command))));
        assert!(needed(&jury(&tiers(command, structural))));
        assert!(needed(&jury(&format!("  checks:\n{command}{structural}"))));
        assert!(!needed(&jury(&format!("  checks:\n{structural}"))));
    }

    #[test]
    fn the_copy_is_the_workspace_as_it_was_and_changes_to_it_are_found() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(ws.path().join("src/a")).unwrap();
        std::fs::create_dir_all(ws.path().join(".git")).unwrap();
        std::fs::write(ws.path().join("src/a/A.java"), "class A {}").unwrap();
        std::fs::write(ws.path().join(".git/HEAD"), "ref").unwrap();
        std::os::unix::fs::symlink("src/a/A.java", ws.path().join("link.java")).unwrap();
        let spec = jury("  checks:\n      - type: file-comparison\n        include: [\"**\"]\n");
        let snap = Snapshot::take(
            ws.path(),
            &spec,
            &crate::fence::Fence::default(),
            &Default::default(),
        )
        .unwrap();
        // The live workspace changes; the copy does not.
        std::fs::write(ws.path().join("src/a/A.java"), "class A { int x; }").unwrap();
        assert_eq!(
            std::fs::read_to_string(snap.path().join("src/a/A.java")).unwrap(),
            "class A {}"
        );
        assert!(!snap.path().join(".git").exists());
        assert!(
            snap.path()
                .join("link.java")
                .symlink_metadata()
                .unwrap()
                .is_symlink()
        );
        assert!(snap.tampered().is_empty());
        std::fs::write(snap.path().join("src/a/A.java"), "forged").unwrap();
        std::fs::write(snap.path().join("new.txt"), "x").unwrap();
        assert_eq!(
            snap.tampered(),
            vec![PathBuf::from("new.txt"), PathBuf::from("src/a/A.java")]
        );
    }

    fn files_of(root: &Path) -> Vec<String> {
        let mut v: Vec<String> = walkdir::WalkDir::new(root)
            .into_iter()
            .flatten()
            .filter(|e| !e.file_type().is_dir())
            .map(|e| e.path().strip_prefix(root).unwrap().display().to_string())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn only_what_the_selectors_select_is_copied_whatever_gitignore_says() {
        let ws = tempfile::tempdir().unwrap();
        let w = |rel: &str, text: &str| {
            let p = ws.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w("src/main/java/A.java", "class A {}");
        w("target/classes/A.class", "bytes");
        w("target/generated/B.java", "class B {}");
        w("node_modules/x/index.js", "x");
        w("README.md", "r");
        // The pull request "ignores" its sources; the config's globs decide, not this.
        w(".gitignore", "src/\n*.java\n");
        let spec = jury(
            "  checks:\n      - type: ast-diff\n        exclude: [\"target/**\"]\n      - type: import-diff\n        include: [\"target/generated/**\"]\n",
        );
        let snap = Snapshot::take(
            ws.path(),
            &spec,
            &crate::fence::Fence::default(),
            &Default::default(),
        )
        .unwrap();
        assert_eq!(
            files_of(snap.path()),
            ["src/main/java/A.java", "target/generated/B.java"]
        );
        assert!(snap.tampered().is_empty());
    }

    #[test]
    fn with_pom_diff_parents_are_copied_and_every_other_file_stands_in_empty() {
        let ws = tempfile::tempdir().unwrap();
        let w = |rel: &str, text: &str| {
            let p = ws.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w(
            "app/pom.xml",
            "<project><parent><groupId>g</groupId><artifactId>p</artifactId><version>1</version><relativePath>../build/parent.xml</relativePath></parent><artifactId>a</artifactId></project>",
        );
        w(
            "build/parent.xml",
            "<project><groupId>g</groupId><artifactId>p</artifactId><version>1</version></project>",
        );
        w(".mvn/maven.config", "-Dx=1");
        w("app/src/marker.txt", "profile activation looks for me");
        std::fs::create_dir_all(ws.path().join("empty/dir")).unwrap();
        let spec = jury("  checks:\n      - type: pom-diff\n");
        let snap = Snapshot::take(
            ws.path(),
            &spec,
            &crate::fence::Fence::default(),
            &Default::default(),
        )
        .unwrap();
        let read = |rel: &str| std::fs::read_to_string(snap.path().join(rel)).unwrap();
        assert!(read("app/pom.xml").contains("parent.xml"));
        assert!(read("build/parent.xml").contains("<artifactId>p</artifactId>"));
        assert_eq!(read(".mvn/maven.config"), "-Dx=1");
        assert_eq!(
            read("app/src/marker.txt"),
            "",
            "a stand-in: it exists, empty"
        );
        assert!(snap.path().join("empty/dir").is_dir());
        assert!(snap.tampered().is_empty());
    }
}
