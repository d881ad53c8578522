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
/// would): `~/.m2/repository`, and `$GRADLE_USER_HOME` or `~/.gradle`; Maven's wrapper
/// distributions (`~/.m2/wrapper`) when present.
pub fn build_caches(home: &Path) -> Vec<PathBuf> {
    let gradle = std::env::var_os("GRADLE_USER_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".gradle"));
    let wrapper = home.join(".m2").join("wrapper");
    let mut caches: Vec<PathBuf> = [home.join(".m2").join("repository"), gradle]
        .into_iter()
        .filter(|p| std::fs::create_dir_all(p).is_ok())
        .collect();
    if wrapper.is_dir() {
        caches.push(wrapper);
    }
    caches
        .into_iter()
        .map(|p| p.canonicalize().unwrap_or(p))
        .collect()
}

/// The machine's shared temporary folders and the runner's own folders, hidden from subject
/// processes wherever they lie (attack findings F10, F18, F19): `/tmp`, `/var/tmp`,
/// judge-ci's `TMPDIR`, `$RUNNER_TEMP` (earlier steps' files, the event payload, the
/// file-command files, earlier `--out` folders) and the `_actions` folder beside it. What
/// earlier steps, other runs (their reference copies) or judge-ci itself left there is no
/// subject's to read; each subject process has a private temporary folder instead.
pub fn shared_folders() -> Vec<PathBuf> {
    let mut named: Vec<PathBuf> = vec![
        PathBuf::from("/tmp"),
        PathBuf::from("/var/tmp"),
        std::env::temp_dir(),
    ];
    if let Some(t) = std::env::var_os("RUNNER_TEMP").filter(|t| !t.is_empty()) {
        let t = PathBuf::from(t);
        if let Some(parent) = t.parent() {
            named.push(parent.join("_actions"));
        }
        named.push(t);
    }
    let mut out: Vec<PathBuf> = named
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .filter(|p| p.is_dir() && p.parent().is_some())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The toolchain folders the environment names (`JAVA_HOME`, `MAVEN_HOME`, `M2_HOME`,
/// `GRADLE_HOME`, `PATH` entries) that lie inside one of `shared` (a JDK unpacked in
/// `/tmp`): readable, each exactly, unless it holds or lies in a `hidden` folder.
pub fn tools_in(shared: &[PathBuf], hidden: &[PathBuf]) -> Vec<PathBuf> {
    let mut named = Vec::new();
    for k in ["JAVA_HOME", "MAVEN_HOME", "M2_HOME", "GRADLE_HOME"] {
        if let Some(v) = std::env::var_os(k) {
            named.push(PathBuf::from(v));
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        named.extend(std::env::split_paths(&path));
    }
    let mut out: Vec<PathBuf> = named
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .filter(|p| p.is_dir() && shared.iter().any(|s| p.starts_with(s) && p != s))
        .filter(|p| !hidden.iter().any(|h| h.starts_with(p) || p.starts_with(h)))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Files and folders under a home folder that hold credentials, kept hidden even inside a
/// toolchain folder granted below.
const CREDENTIALS: [&str; 9] = [
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".local/share/keyrings",
    ".local/share/containers",
    ".config",
    ".pyenv/.netrc",
    ".sdkman/etc",
    ".nvm/.npmrc",
    ".local/share/gh",
];

/// What a build needs to read under a hidden home folder: Maven's user settings (mirrors and
/// proxies; not its `settings-security.xml`) and the toolchains the environment names there
/// (`JAVA_HOME`, `MAVEN_HOME`, `M2_HOME`, `GRADLE_HOME`, `PATH` entries), each by the folder
/// directly under the home folder that holds it (`~/.pyenv` for `~/.pyenv/shims`: its shims
/// run what lies beside them), less the credential files known to live there.
pub fn home_exceptions(home: &Path) -> Vec<PathBuf> {
    let home = home.canonicalize().unwrap_or_else(|_| home.to_path_buf());
    let mut named = Vec::new();
    for k in ["JAVA_HOME", "MAVEN_HOME", "M2_HOME", "GRADLE_HOME"] {
        if let Some(v) = std::env::var_os(k) {
            named.push(PathBuf::from(v));
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        named.extend(std::env::split_paths(&path));
    }
    let mut tops: Vec<PathBuf> = named
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .filter_map(|p| {
            let first = p.strip_prefix(&home).ok()?.components().next()?;
            Some(home.join(first))
        })
        .collect();
    tops.sort();
    tops.dedup();
    let hidden: Vec<PathBuf> = CREDENTIALS.iter().map(|c| home.join(c)).collect();
    let mut out = vec![home.join(".m2").join("settings.xml")];
    for t in tops {
        if hidden.iter().any(|h| h.starts_with(&t)) {
            if t.is_dir() && !hidden.contains(&t) {
                read_roots(&t, &hidden, &mut out);
            }
        } else {
            out.push(t);
        }
    }
    out.retain(|p| p.exists());
    out
}

/// The Landlock rights of a writable root (all but making device nodes) as the kernel's
/// bits, under the ABI the ruleset handles: for rules added in the child.
pub fn writable_bits(abi: i32) -> u64 {
    let rights = match abi.min(ABI_USED as i32) {
        ..=0 => 0,
        1 => 13,
        2 => 14,
        3 | 4 => 15,
        _ => 16,
    };
    let all = (1u64 << rights) - 1;
    // LANDLOCK_ACCESS_FS_MAKE_CHAR and _MAKE_BLOCK.
    all & !((1 << 6) | (1 << 11))
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

/// What the ruleset grants beyond "read everything but the hidden folders".
#[derive(Debug, Default)]
pub struct Grants {
    /// Full access (but no device nodes): workspace, private temporary folder, caches.
    pub writable: Vec<PathBuf>,
    /// Read access inside hidden folders (toolchains under the hidden home).
    pub readable: Vec<PathBuf>,
    /// `/dev/shm` is the subject's own (a tmpfs in its mount namespace): full access.
    pub private_shm: bool,
}

/// The device files a program may open: read and write for the null, zero and full
/// devices and the controlling terminal; read for the random devices (`/dev/stdout` and
/// `/dev/fd/N` lead into `/proc` and to pipes, which Landlock leaves alone). Every other device (block
/// devices above all) is neither readable nor writable.
const DEVICES_RW: [&str; 4] = ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];
const DEVICES_R: [&str; 2] = ["/dev/random", "/dev/urandom"];

/// The ruleset's descriptor and the kernel's ABI, or why Landlock cannot be used.
pub fn ruleset(grants: &Grants, hidden: &[PathBuf]) -> Result<(OwnedFd, i32), String> {
    let writable = &grants.writable;
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
    let mut hidden: Vec<PathBuf> = hidden
        .iter()
        .filter(|h| !writable.iter().any(|w| h.starts_with(w)))
        .cloned()
        .collect();
    // Devices are granted one by one below.
    hidden.push(PathBuf::from("/dev"));
    let mut readable = Vec::new();
    read_roots(Path::new("/"), &hidden, &mut readable);
    readable.extend(grants.readable.iter().cloned());
    for p in &readable {
        if let Some(r) = rule(p, read) {
            created = created.add_rule(r).map_err(fail)?;
        }
    }
    // No device node may be made anywhere, the writable roots included.
    let no_devices = all & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    for w in writable {
        if let Some(r) = rule(w, no_devices) {
            created = created.add_rule(r).map_err(fail)?;
        }
    }
    let dev_rw = AccessFs::ReadFile | AccessFs::WriteFile;
    for d in DEVICES_RW {
        if let Some(r) = rule(Path::new(d), dev_rw) {
            created = created.add_rule(r).map_err(fail)?;
        }
    }
    for d in DEVICES_R {
        if let Some(r) = rule(Path::new(d), AccessFs::ReadFile.into()) {
            created = created.add_rule(r).map_err(fail)?;
        }
    }
    if grants.private_shm
        && let Some(r) = rule(Path::new("/dev/shm"), no_devices)
    {
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
