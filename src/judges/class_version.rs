//! `class-version`: every class file's major version against a target (jury-semantics §3.2).

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::config::checks::WorkspacePath;
use crate::judgment::{Cause, Check, Judgment, JudgmentContext, Status};

use super::paths::{Resolved, resolve};
use super::{Outcome, build, instrument};

/// Checks listed one by one before the rest are summarised in one check.
const MAX_CHECKS: usize = 500;

/// The Java release of a class-file major version (61 → 17).
pub fn java_release(major: u16) -> u16 {
    major.saturating_sub(44).max(1)
}

fn target_of(configured: Option<u16>, ctx: &JudgmentContext) -> Option<u16> {
    configured.or(ctx.conventions.target_class_version)
}

fn class_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let ft = entry.file_type()?;
        let p = entry.path();
        if ft.is_dir() {
            class_files(&p, out)?;
        } else if ft.is_file() && p.extension().is_some_and(|e| e == "class") {
            out.push(p);
        }
    }
    Ok(())
}

/// Why a file under the class folder has no major version to check (a failed check of its
/// own, never a pass).
#[derive(Debug, thiserror::Error)]
pub enum ClassFileError {
    /// Not opened: a link, FIFO, device, or the kernel refused (names the path).
    #[error(transparent)]
    Open(#[from] crate::untrusted::ReadError),
    /// Shorter than a class file's header, or the read failed.
    #[error("cannot read: {0}")]
    Read(#[source] std::io::Error),
    /// The first four bytes are not `CAFEBABE`.
    #[error("not a class file (bad magic number)")]
    BadMagic,
}

/// Reads the major version after checking the magic number.
fn major_version(p: &Path) -> Result<u16, ClassFileError> {
    let mut head = [0u8; 8];
    let (mut f, _) = crate::untrusted::open(p)?;
    f.read_exact(&mut head).map_err(ClassFileError::Read)?;
    if head[..4] != [0xCA, 0xFE, 0xBA, 0xBE] {
        return Err(ClassFileError::BadMagic);
    }
    Ok(u16::from_be_bytes([head[6], head[7]]))
}

/// ABSTAIN without a target or without classes; ERROR if the folder cannot be walked; PASS iff
/// every class file has the target version.
pub fn class_version(
    ctx: &JudgmentContext,
    since: Option<std::time::SystemTime>,
    target: Option<u16>,
    dir: &WorkspacePath,
) -> Outcome {
    let Some(target) = target_of(target, ctx) else {
        return build(Judgment::builder(Status::Abstain).cause(Cause::JudgeMisconfigured).reasoning(
            "no target class version: set `target` or `java` on the check, or metadata targetClassVersion",
        ));
    };
    let shown = dir.as_path().display();
    let root = match resolve(&ctx.workspace, dir.as_path()) {
        Resolved::Escapes(why) => return instrument(format!("path escapes the workspace: {why}")),
        Resolved::ThroughLink(link) => {
            return super::not_regular_fail(
                "class-version",
                Path::new(""),
                &[(link, crate::untrusted::Kind::Symlink)],
            );
        }
        Resolved::Inside(p) if p.is_dir() => p,
        _ => {
            return build(
                Judgment::builder(Status::Abstain)
                    .cause(Cause::EvidenceMissing)
                    .reasoning(format!(
                        "{shown} does not exist; was the project compiled before this check?"
                    )),
            );
        }
    };
    // A link, FIFO or device among the class files (a Java 8 class behind a link) is a
    // finding, never skipped.
    let odd = crate::untrusted::not_regular_under(&root, 64, |_| true);
    if !odd.is_empty() {
        return super::not_regular_fail("class-version", dir.as_path(), &odd);
    }
    let mut files = Vec::new();
    if let Err(e) = class_files(&root, &mut files) {
        return instrument(format!("cannot walk {shown}: {e}"));
    }
    files.sort();
    // Class files are evidence too: the pull request's own (tracked, or older than this
    // run's build) are refused.
    let fresh = super::evidence::Freshness::new(&ctx.workspace, since);
    if let Some(why) = fresh.refuse_any(&ctx.workspace, &files) {
        return instrument(format!("refused as evidence: {why}"));
    }
    if files.is_empty() {
        return build(
            Judgment::builder(Status::Abstain)
                .cause(Cause::EvidenceMissing)
                .reasoning(format!("{shown} holds no class files")),
        );
    }
    let mut checks = Vec::new();
    let mut wrong = 0usize;
    let mut first_wrong = None;
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        let (ok, msg) = match major_version(f) {
            Ok(v) if v == target => (
                true,
                format!("major version {v} (Java {})", java_release(v)),
            ),
            Ok(v) => (
                false,
                format!(
                    "major version {v} (Java {}), expected {target} (Java {})",
                    java_release(v),
                    java_release(target)
                ),
            ),
            Err(e) => (false, e.to_string()),
        };
        if !ok {
            wrong += 1;
            first_wrong.get_or_insert_with(|| format!("{rel}: {msg}"));
        }
        if checks.len() < MAX_CHECKS {
            checks.push(Check::new(rel, ok, msg)?);
        }
    }
    if files.len() > MAX_CHECKS {
        checks.push(Check::new(
            "more class files",
            wrong == 0 || checks.iter().filter(|c| !c.is_passed()).count() == wrong,
            format!(
                "{} more class file(s) checked, not listed",
                files.len() - MAX_CHECKS
            ),
        )?);
    }
    let passed = wrong == 0;
    let reasoning = if passed {
        format!(
            "all {} class file(s) in {shown} have major version {target} (Java {})",
            files.len(),
            java_release(target)
        )
    } else {
        format!(
            "{wrong} of {} class file(s) in {shown} are not at major version {target}; first: {}",
            files.len(),
            first_wrong.unwrap_or_default()
        )
    };
    build(
        Judgment::builder(if passed { Status::Pass } else { Status::Fail })
            .reasoning(reasoning)
            .checks(checks)
            .metadata("targetClassVersion", target)
            .metadata("classFiles", files.len() as u64)
            .metadata("mismatched", wrong as u64),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_a_class_file_says_which_way() {
        let d = tempfile::tempdir().unwrap();
        let good = d.path().join("A.class");
        std::fs::write(&good, [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61]).unwrap();
        assert_eq!(major_version(&good).unwrap(), 61);
        let bad = d.path().join("B.class");
        std::fs::write(&bad, b"not a class").unwrap();
        assert!(matches!(major_version(&bad), Err(ClassFileError::BadMagic)));
        let short = d.path().join("C.class");
        std::fs::write(&short, [0xCA, 0xFE]).unwrap();
        assert!(matches!(
            major_version(&short),
            Err(ClassFileError::Read(_))
        ));
        std::os::unix::fs::symlink(&good, d.path().join("L.class")).unwrap();
        assert!(matches!(
            major_version(&d.path().join("L.class")),
            Err(ClassFileError::Open(e)) if e.not_regular() == Some(crate::untrusted::Kind::Symlink)
        ));
    }
}
