//! The Landlock ruleset of a fenced process, built in judge-ci before the fork: read access
//! everywhere except the hidden folders (judge-ci's own, outside the writable roots), full
//! access to the writable roots (workspace, private temporary folder, build caches), and
//! the few device files every program writes to.

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

/// The newest ABI this code was written and tested against; a newer kernel enforces this
/// set, an older one what it has (best effort).
const ABI_USED: ABI = ABI::V6;

/// The kernel's Landlock ABI version (0 or less: none).
pub fn kernel_abi() -> i32 {
    // SAFETY: LANDLOCK_CREATE_RULESET_VERSION with a null attribute only returns a number.
    unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        ) as i32
    }
}

/// The build caches under `home` a build may write (created when missing, as the build
/// would): `~/.m2/repository`, and `$GRADLE_USER_HOME` or `~/.gradle`.
pub fn build_caches(home: &Path) -> Vec<PathBuf> {
    let gradle = std::env::var_os("GRADLE_USER_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".gradle"));
    [home.join(".m2").join("repository"), gradle]
        .into_iter()
        .filter(|p| std::fs::create_dir_all(p).is_ok())
        .map(|p| p.canonicalize().unwrap_or(p))
        .collect()
}

/// The folders and files to grant read access beneath, so that everything is readable
/// except `hidden`: the entries of every folder on the way to a hidden path, minus it.
fn read_roots(dir: &Path, hidden: &[PathBuf], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if hidden.contains(&p) {
            continue;
        }
        let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && hidden.iter().any(|h| h.starts_with(&p)) {
            read_roots(&p, hidden, out);
        } else {
            out.push(p);
        }
    }
}

fn rule(path: &Path, access: landlock::BitFlags<AccessFs>) -> Option<PathBeneath<PathFd>> {
    let fd = PathFd::new(path).ok()?;
    let is_dir = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
    let access = if is_dir {
        access
    } else {
        access & AccessFs::from_file(ABI_USED)
    };
    Some(PathBeneath::new(fd, access))
}

/// The ruleset's descriptor and the kernel's ABI, or why Landlock cannot be used.
pub fn ruleset(writable: &[PathBuf], hidden: &[PathBuf]) -> Result<(OwnedFd, i32), String> {
    let abi = kernel_abi();
    if abi < 1 {
        return Err("not available on this kernel".to_string());
    }
    let fail = |e: landlock::RulesetError| e.to_string();
    let all = AccessFs::from_all(ABI_USED);
    let read = AccessFs::from_read(ABI_USED);
    let mut rs = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(fail)?;
    if abi >= 6 {
        // Nor may the subject signal judge-ci or reach its abstract sockets.
        rs = rs.scope(Scope::from_all(ABI_USED)).map_err(fail)?;
    }
    let mut created = rs.create().map_err(fail)?;
    // Hidden folders inside a writable root cannot be hidden by Landlock (the root is
    // granted whole); judge-ci checks those again before it writes there.
    let hidden: Vec<PathBuf> = hidden
        .iter()
        .filter(|h| !writable.iter().any(|w| h.starts_with(w)))
        .cloned()
        .collect();
    let mut readable = Vec::new();
    if hidden.is_empty() {
        readable.push(PathBuf::from("/"));
    } else {
        read_roots(Path::new("/"), &hidden, &mut readable);
    }
    for p in &readable {
        if let Some(r) = rule(p, read) {
            created = created.add_rule(r).map_err(fail)?;
        }
    }
    for w in writable {
        if let Some(r) = rule(w, all) {
            created = created.add_rule(r).map_err(fail)?;
        }
    }
    let dev_rw = AccessFs::ReadFile | AccessFs::WriteFile;
    for d in ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"] {
        if let Some(r) = rule(Path::new(d), dev_rw) {
            created = created.add_rule(r).map_err(fail)?;
        }
    }
    if let Some(r) = rule(Path::new("/dev/shm"), all) {
        created = created.add_rule(r).map_err(fail)?;
    }
    let fd: Option<OwnedFd> = created.into();
    let fd = fd.ok_or_else(|| "not available on this kernel".to_string())?;
    Ok((fd, abi.min(ABI_USED as i32)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_roots_leave_out_only_the_hidden_folder() {
        let d = tempfile::tempdir().unwrap();
        let base = d.path().canonicalize().unwrap();
        for p in ["a/secret/x", "a/open", "b"] {
            std::fs::create_dir_all(base.join(p)).unwrap();
        }
        std::fs::write(base.join("a/file"), "").unwrap();
        let mut out = Vec::new();
        read_roots(&base, &[base.join("a/secret")], &mut out);
        out.sort();
        assert_eq!(
            out,
            vec![base.join("a/file"), base.join("a/open"), base.join("b")]
        );
    }
}
