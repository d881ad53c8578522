//! The workspace as submitted (trust.md point 13): a copy taken when judging starts, before
//! any subject code runs, that the structural judges (import, AST, POM and file comparisons)
//! read instead of the live workspace, when one of them can run after subject code (see
//! [`needed`]; otherwise they read the live workspace, untouched until then, with git's help). A build step in an earlier tier
//! that rewrites the sources (copying the reference over them, say) changes the live
//! workspace only. The copy lives in a folder hidden from subject processes (see
//! [`crate::fence`]), and its content hashes, recorded when it is taken, are checked again
//! when judging ends: a copy changed in between makes the run an instrument failure instead
//! of a verdict.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::structural::MAX_FILE_BYTES;

use crate::config::checks::CheckKind;
use crate::config::{CheckSpec, JurySpec};

/// The metadata key naming the snapshot folder in a judgment context.
pub const SUBMITTED_DIR_KEY: &str = "submittedDir";

/// The folder the source-reading judges read: the snapshot when one was taken, else the
/// workspace.
pub fn submitted(ctx: &crate::judgment::JudgmentContext) -> PathBuf {
    ctx.metadata
        .get(SUBMITTED_DIR_KEY)
        .and_then(|v| v.as_str())
        .map(PathBuf::from)
        .unwrap_or_else(|| ctx.workspace.clone())
}

/// Whether a structural judge could run after (or beside) subject code: it sits in a tier at
/// or after the first tier with a build, `command` or `external` check, or in a jury that
/// also runs one. When every structural judge runs before any subject code, the live
/// workspace is the workspace as submitted and no copy is needed.
pub fn needed(spec: &JurySpec) -> bool {
    fn runs_code(c: &CheckSpec) -> bool {
        matches!(
            c.kind,
            CheckKind::Command { .. }
                | CheckKind::MavenBuild { .. }
                | CheckKind::GradleBuild { .. }
                | CheckKind::External { .. }
        )
    }
    fn structural(c: &CheckSpec) -> bool {
        matches!(
            c.kind,
            CheckKind::ImportDiff { .. }
                | CheckKind::AstDiff { .. }
                | CheckKind::PomDiff { .. }
                | CheckKind::FileComparison { .. }
        )
    }
    fn all(spec: &JurySpec) -> Vec<&CheckSpec> {
        match spec {
            JurySpec::Checks { checks, .. } => checks.iter().collect(),
            JurySpec::Tiers(t) => t.iter().flat_map(|t| &t.checks).collect(),
            JurySpec::Members { members, .. } => {
                members.iter().flat_map(|m| all(&m.jury)).collect()
            }
        }
    }
    match spec {
        JurySpec::Tiers(tiers) => {
            let mut code_ran = false;
            for t in tiers {
                code_ran |= t.checks.iter().any(runs_code);
                if code_ran && t.checks.iter().any(structural) {
                    return true;
                }
            }
            false
        }
        // One jury (or members voting side by side): any order is possible.
        JurySpec::Checks { .. } | JurySpec::Members { .. } => {
            let checks = all(spec);
            checks.iter().any(|c| runs_code(c)) && checks.iter().any(|c| structural(c))
        }
    }
}

/// A copy of the workspace with the hash of every file.
#[derive(Debug)]
pub struct Snapshot {
    dir: tempfile::TempDir,
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
    Ok(Content::Hash(hash(&std::fs::read(p)?)))
}

impl Snapshot {
    /// Copies `workspace` (without `.git`) into a new hidden temporary folder. Symbolic
    /// links are copied as links; a file larger than the structural judges read becomes a
    /// sparse file of the same length (they only see its size).
    pub fn take(workspace: &Path) -> std::io::Result<Snapshot> {
        let dir = tempfile::Builder::new()
            .prefix("judge-ci-snapshot-")
            .tempdir()?;
        crate::fence::hide(dir.path());
        let mut files = HashMap::new();
        let walk = walkdir::WalkDir::new(workspace)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| !(e.depth() == 1 && e.file_name() == ".git"));
        for e in walk {
            let e = e.map_err(std::io::Error::other)?;
            let rel = e.path().strip_prefix(workspace).unwrap_or(e.path());
            let target = dir.path().join(rel);
            let t = e.file_type();
            if t.is_dir() {
                std::fs::create_dir_all(&target)?;
            } else if t.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(e.path())?, &target)?;
            } else if t.is_file() {
                let len = e.metadata().map_err(std::io::Error::other)?.len();
                let content = if len > MAX_FILE_BYTES {
                    std::fs::File::create(&target)?.set_len(len)?;
                    Content::TooLarge(len)
                } else {
                    let bytes = std::fs::read(e.path())?;
                    std::fs::write(&target, &bytes)?;
                    Content::Hash(hash(&bytes))
                };
                files.insert(rel.to_path_buf(), content);
            }
        }
        Ok(Snapshot { dir, files })
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
        std::os::unix::fs::symlink("src/a/A.java", ws.path().join("link")).unwrap();
        let snap = Snapshot::take(ws.path()).unwrap();
        // The live workspace changes; the copy does not.
        std::fs::write(ws.path().join("src/a/A.java"), "class A { int x; }").unwrap();
        assert_eq!(
            std::fs::read_to_string(snap.path().join("src/a/A.java")).unwrap(),
            "class A {}"
        );
        assert!(!snap.path().join(".git").exists());
        assert!(
            snap.path()
                .join("link")
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
}
