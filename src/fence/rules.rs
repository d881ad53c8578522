//! The Landlock ruleset of a fenced process, built in judge-ci before the fork. Reads are an
//! allow-list (attack findings FE2, FE4, N8, N14, N16): the system's own folders (`/usr`,
//! `/bin`, `/sbin`, `/lib*`, what of `/etc` every user may read), the toolchains the
//! environment names ([`toolchains`]), `/proc`, and what judge-ci shows; full access to the
//! writable roots (workspace, private temporary folder, build caches), and the few device
//! files every program writes to. Nothing else: not the workspace's neighbours, not a
//! runner's installation, not `/opt` or `/home` but where a toolchain lies.

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

/// The system's own folders, readable whole (less what judge-ci hides in them); `/etc` is
/// read by [`etc_reads`].
const SYSTEM: [&str; 7] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];

/// Whether `p` lies in one of the system's own folders (`/etc` included).
fn in_system(p: &Path) -> bool {
    SYSTEM
        .iter()
        .chain(["/etc"].iter())
        .any(|s| p.starts_with(s))
        || SYSTEM
            .iter()
            .filter_map(|s| Path::new(s).canonicalize().ok())
            .any(|s| p.starts_with(s))
}

/// Whether `p` lies inside a system folder without being one (`/usr/src`, not `/usr` nor
/// `/bin`'s target `/usr/bin`).
pub fn strictly_in_system(p: &Path) -> bool {
    let roots: Vec<PathBuf> = SYSTEM
        .iter()
        .chain(["/etc"].iter())
        .flat_map(|s| {
            [
                PathBuf::from(s),
                Path::new(s).canonicalize().unwrap_or_default(),
            ]
        })
        .collect();
    in_system(p) && !roots.iter().any(|r| r == p)
}

/// What of `/etc` every user of the machine may read, and the targets of its links that lie
/// outside the system's folders (`/etc/resolv.conf` → `/run/systemd/resolve/…`) when they
/// are files every user may read. A file only its owner (root) may read — `shadow`,
/// `sudoers`, `ssh` host keys, `ssl/private`, a cluster's admin credentials — stays out, also
/// for a root subject (uid 0 without capabilities reads root's files).
fn etc_reads() -> &'static [PathBuf] {
    static ETC: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    ETC.get_or_init(|| {
        let mut out = Vec::new();
        let mut budget = 20_000usize;
        if open_to_all(Path::new("/etc"), &mut out, 0, &mut budget) {
            out.push(PathBuf::from("/etc"));
        }
        out
    })
}

/// Collects in `out` what under `dir` every user may read; true (and nothing collected but
/// link targets) when that is all of it, so that the caller grants `dir` whole.
fn open_to_all(dir: &Path, out: &mut Vec<PathBuf>, depth: usize, budget: &mut usize) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut mine = Vec::new();
    let mut links = Vec::new();
    let mut all = true;
    for e in entries.flatten() {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let p = e.path();
        let Ok(meta) = std::fs::symlink_metadata(&p) else {
            all = false;
            continue;
        };
        let mode = meta.permissions().mode();
        if meta.file_type().is_symlink() {
            // The link itself grants nothing; its target is checked where it lies.
            if let Ok(t) = p.canonicalize()
                && !in_system(&t)
                && std::fs::metadata(&t)
                    .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o004 != 0)
            {
                links.push(t);
            }
        } else if meta.is_dir() {
            if mode & 0o005 == 0o005 && depth < 8 {
                let mut sub = Vec::new();
                if open_to_all(&p, &mut sub, depth + 1, budget) {
                    mine.push(p);
                    links.extend(sub);
                } else {
                    all = false;
                    mine.extend(sub);
                }
            } else {
                all = false;
            }
        } else if mode & 0o004 != 0 {
            mine.push(p);
        } else {
            all = false;
        }
    }
    out.extend(links);
    if !all {
        out.extend(mine);
    }
    all
}

/// The folders readable to every subject process by default: the system's own.
pub fn system_reads() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = SYSTEM
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect();
    out.extend(etc_reads().iter().cloned());
    out
}

/// Where a fenced process's toolchains are placed from: the folders the grant must not
/// expose.
pub struct Places<'a> {
    /// judge-ci's user's home folders (hidden; toolchains there by their folder under it).
    pub homes: &'a [PathBuf],
    /// The shared temporary folders (hidden; toolchains there exactly).
    pub shared: &'a [PathBuf],
    /// Every folder hidden from subject processes.
    pub hidden: &'a [PathBuf],
    /// The writable roots (their siblings are not exposed either).
    pub workspaces: &'a [PathBuf],
    /// The runner's work folder (`_work`, the parent of `$RUNNER_WORKSPACE`): what holds it
    /// is the runner's installation (`.credentials`, `_diag`).
    pub runner: &'a [PathBuf],
    /// `$RUNNER_TOOL_CACHE`, canonical.
    pub tool_cache: Option<&'a Path>,
}

/// A folder granted beyond the system's own, and why (for the fence line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Granted {
    /// The folder (or file).
    pub path: PathBuf,
    /// "PATH", "JAVA_HOME", "PATH; not its parent …: it holds …".
    pub label: String,
}

/// The toolchains the environment names, placed: granted folders, and what was named but
/// not granted (with why).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tools {
    /// Readable to subject processes.
    pub granted: Vec<Granted>,
    /// Folders the environment names that are not readable, and why.
    pub refused: Vec<String>,
    /// The paths actually granted (a home toolchain less its credential files: its entries).
    pub paths: Vec<PathBuf>,
}

/// The folders the environment names as toolchains: `JAVA_HOME`, `MAVEN_HOME`, `M2_HOME`,
/// `GRADLE_HOME`, every `PATH` entry, and the folders the links in the `PATH` entries lead
/// to (`/usr/local/bin/az` → `/opt/az/bin`), each with what named it.
pub fn named_tools() -> Vec<(PathBuf, String)> {
    let mut named: Vec<(PathBuf, String)> = Vec::new();
    for k in ["JAVA_HOME", "MAVEN_HOME", "M2_HOME", "GRADLE_HOME"] {
        if let Some(v) = std::env::var_os(k).filter(|v| !v.is_empty())
            && let Ok(p) = PathBuf::from(v).canonicalize()
        {
            named.push((p, k.to_string()));
        }
    }
    let entries: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    for e in entries.iter().filter(|e| e.is_absolute()) {
        if let Ok(p) = e.canonicalize() {
            named.push((p, "PATH".to_string()));
        }
    }
    for e in entries.iter().filter(|e| e.is_absolute()) {
        let Ok(dir) = std::fs::read_dir(e) else {
            continue;
        };
        for f in dir.flatten().take(5_000) {
            if f.file_type().is_ok_and(|t| t.is_symlink())
                && let Ok(t) = f.path().canonicalize()
                && !in_system(&t)
                && let Some(parent) = t.parent()
            {
                named.push((parent.to_path_buf(), "PATH, through a link".to_string()));
            }
        }
    }
    let mut seen = Vec::new();
    named.retain(|(p, _)| {
        let new = p.is_dir() && !seen.contains(p);
        seen.push(p.clone());
        new
    });
    named
}

/// What `p` would expose if granted whole (a hidden folder, a home, a shared temporary
/// folder, the runner's work folder inside it, or a workspace's neighbours), if anything.
fn exposes(p: &Path, places: &Places) -> Option<String> {
    let holds = |list: &[PathBuf]| list.iter().find(|h| h.starts_with(p)).cloned();
    if let Some(r) = holds(places.runner) {
        return Some(format!("the runner's work folder {}", r.display()));
    }
    if let Some(h) = holds(places.homes) {
        return Some(format!("the home folder {}", h.display()));
    }
    if let Some(s) = holds(places.shared) {
        return Some(format!("the temporary folder {}", s.display()));
    }
    if let Some(h) = holds(places.hidden) {
        return Some(format!("{}, which judge-ci hides", h.display()));
    }
    places
        .workspaces
        .iter()
        .find(|w| w.starts_with(p) && *w != p)
        .map(|w| format!("the workspace {} and what lies beside it", w.display()))
}

/// The home folder (judge-ci's, `/root`, or `/home/<user>`) that `p` lies in.
fn home_of(p: &Path, homes: &[PathBuf]) -> Option<PathBuf> {
    if let Some(h) = homes.iter().find(|h| p.starts_with(h)) {
        return Some(h.clone());
    }
    if p.starts_with("/root") {
        return Some(PathBuf::from("/root"));
    }
    let mut c = p.components();
    let (_, home, user) = (c.next()?, c.next()?, c.next()?);
    (home.as_os_str() == "home").then(|| Path::new("/home").join(user.as_os_str()))
}

/// Places each toolchain the environment names: nothing for one in the system's folders or a
/// workspace; one in a home folder by the folder directly under the home that holds it
/// (`~/.pyenv` for `~/.pyenv/shims`), less the credential files known to live there; one in
/// a shared temporary folder exactly; anywhere else its tool folder (the parent of a `bin`,
/// a `$RUNNER_TOOL_CACHE/<tool>/<version>/<arch>` folder) — or, where that would expose
/// something ([`Places`]: the runner's installation above all), the named folder alone, or
/// nothing. Every grant and refusal is named for the fence line.
pub fn toolchains(named: &[(PathBuf, String)], places: &Places) -> Tools {
    let mut tools = Tools::default();
    for (p, label) in named {
        if in_system(p) || places.workspaces.iter().any(|w| p.starts_with(w)) {
            continue;
        }
        // A tool of the runner's tool cache, wherever the cache lies (a self-hosted runner's
        // `_work/_tool` is often in its user's home): its `<tool>/<version>/<arch>` folder.
        let cached = places.tool_cache.and_then(|c| {
            let rel = p.strip_prefix(c).ok()?;
            let parts: Vec<_> = rel.components().take(3).collect();
            (parts.len() == 3).then(|| parts.iter().fold(c.to_path_buf(), |a, b| a.join(b)))
        });
        if let Some(root) = cached {
            match exposes(&root, places) {
                Some(what) => tools
                    .refused
                    .push(format!("{} ({label}: it holds {what})", p.display())),
                None if tools.granted.iter().any(|g| root.starts_with(&g.path)) => {}
                None => {
                    tools.paths.push(root.clone());
                    tools.granted.push(Granted {
                        path: root,
                        label: label.clone(),
                    });
                }
            }
            continue;
        }
        if places.shared.iter().any(|s| p.starts_with(s)) {
            match exposes(p, places) {
                Some(what) if places.hidden.iter().any(|h| h.starts_with(p)) => tools
                    .refused
                    .push(format!("{} ({label}: it holds {what})", p.display())),
                _ => {
                    tools.paths.push(p.clone());
                    tools.granted.push(Granted {
                        path: p.clone(),
                        label: label.clone(),
                    });
                }
            }
            continue;
        }
        if let Some(home) = home_of(p, places.homes) {
            let Some(first) = p
                .strip_prefix(&home)
                .ok()
                .and_then(|r| r.components().next())
            else {
                tools
                    .refused
                    .push(format!("{} ({label}: a home folder)", p.display()));
                continue;
            };
            let top = home.join(first);
            if tools.granted.iter().any(|g| g.path == top) {
                continue;
            }
            let creds: Vec<PathBuf> = CREDENTIALS.iter().map(|c| home.join(c)).collect();
            if let Some(what) = exposes(&top, places) {
                tools.refused.push(format!(
                    "{} ({label}: {} holds {what})",
                    p.display(),
                    top.display()
                ));
            } else if creds.contains(&top) {
                tools.refused.push(format!(
                    "{} ({label}: {} holds credentials)",
                    p.display(),
                    top.display()
                ));
            } else if creds.iter().any(|c| c.starts_with(&top)) {
                read_roots(&top, &creds, &mut tools.paths);
                tools.granted.push(Granted {
                    path: top,
                    label: format!("{label}, less its credential files"),
                });
            } else {
                tools.paths.push(top.clone());
                tools.granted.push(Granted {
                    path: top,
                    label: label.clone(),
                });
            }
            continue;
        }
        if let Some(h) = places.hidden.iter().find(|h| p.starts_with(h)) {
            tools.refused.push(format!(
                "{} ({label}: inside {}, which judge-ci hides)",
                p.display(),
                h.display()
            ));
            continue;
        }
        let root = match p.file_name().and_then(|n| n.to_str()) {
            Some("bin" | "sbin") => p.parent().map_or_else(|| p.clone(), Path::to_path_buf),
            _ => p.clone(),
        };
        let (path, label) = match exposes(&root, places) {
            None => (root, label.clone()),
            Some(what) if root != *p && exposes(p, places).is_none() => (
                p.clone(),
                format!(
                    "{label}; not its parent {}: it holds {what}",
                    root.display()
                ),
            ),
            Some(what) => {
                tools
                    .refused
                    .push(format!("{} ({label}: it holds {what})", p.display()));
                continue;
            }
        };
        if tools.granted.iter().any(|g| path.starts_with(&g.path)) {
            continue;
        }
        tools.paths.push(path.clone());
        tools.granted.push(Granted { path, label });
    }
    tools
}

/// Files and folders under a home folder that hold credentials, kept hidden even inside a
/// toolchain folder granted below.
const CREDENTIALS: [&str; 11] = [
    ".m2/settings.xml",
    ".m2/settings-security.xml",
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
/// A link is left out: access through it is decided where it leads.
pub(super) fn read_roots(dir: &Path, hidden: &[PathBuf], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let kind = e.file_type();
        if hidden.contains(&p) || kind.as_ref().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        let is_dir = kind.is_ok_and(|t| t.is_dir());
        if is_dir && hidden.iter().any(|h| h.starts_with(&p)) {
            read_roots(&p, hidden, out);
        } else {
            out.push(p);
        }
    }
}

fn rule(path: &Path, access: landlock::BitFlags<AccessFs>) -> Option<PathBeneath<PathFd>> {
    let fd = PathFd::new(path).ok()?;
    Some(PathBeneath::new(fd, rights_at(path, access)))
}

/// `access` as Landlock takes it beneath `path`: a file gets only the rights a file can have
/// (a rule granting a folder's rights on a file is refused), a folder all of them.
pub(super) fn rights_at(
    path: &Path,
    access: landlock::BitFlags<AccessFs>,
) -> landlock::BitFlags<AccessFs> {
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        access
    } else {
        access & AccessFs::from_file(ABI_USED)
    }
}

/// What the ruleset grants beyond reading the system's folders.
#[derive(Debug, Default)]
pub struct Grants {
    /// Full access (but no device nodes): workspace, private temporary folder, caches.
    pub writable: Vec<PathBuf>,
    /// Read access beyond the system's folders: toolchains, what judge-ci shows.
    pub readable: Vec<PathBuf>,
    /// `/dev/shm` is the subject's own (a tmpfs in its mount namespace): full access.
    pub private_shm: bool,
}

impl Grants {
    /// Every folder and file beneath which the ruleset grants some access (the system's
    /// folders, `/proc`, the grants, the devices): what a fence nested in this one starts
    /// from when the folders above them cannot be listed ([`super::nest`]).
    pub fn roots(&self) -> Vec<PathBuf> {
        let mut out = system_reads();
        out.push(PathBuf::from("/proc"));
        out.extend(self.readable.iter().cloned());
        out.extend(self.writable.iter().cloned());
        out.extend(DEVICES_RW.iter().chain(DEVICES_R.iter()).map(PathBuf::from));
        if self.private_shm {
            out.push(PathBuf::from("/dev/shm"));
        }
        out
    }
}

/// The device files a program may open: read and write for the null, zero and full
/// devices and the controlling terminal; read for the random devices (`/dev/stdout` and
/// `/dev/fd/N` lead into `/proc` and to pipes, which Landlock leaves alone). Every other device (block
/// devices above all) is neither readable nor writable.
const DEVICES_RW: [&str; 4] = ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];
const DEVICES_R: [&str; 2] = ["/dev/random", "/dev/urandom"];

/// Why Landlock does not fence a process; kept in the fence's [`Status`](super::Status) (so
/// `Clone` and comparable) and shown on its line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LandlockError {
    /// The kernel has no Landlock (or it is switched off).
    #[error("not available on this kernel")]
    Unavailable,
    /// The kernel refused to make the ruleset or one of its rules: what the landlock crate
    /// said.
    #[error("{0}")]
    Ruleset(String),
}

impl From<landlock::RulesetError> for LandlockError {
    fn from(e: landlock::RulesetError) -> LandlockError {
        LandlockError::Ruleset(e.to_string())
    }
}

/// The ruleset's descriptor and the kernel's ABI, or why Landlock cannot be used.
pub fn ruleset(grants: &Grants, hidden: &[PathBuf]) -> Result<(OwnedFd, i32), LandlockError> {
    let writable = &grants.writable;
    let abi = kernel_abi();
    if abi < 1 {
        return Err(LandlockError::Unavailable);
    }
    let fail = LandlockError::from;
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
    // Reads are an allow-list: the system's folders (less what is hidden in them), `/proc`
    // (the namespace's own is granted in the child), and what the grants name.
    let mut readable = Vec::new();
    let mut defaults = system_reads();
    defaults.push(PathBuf::from("/proc"));
    for d in defaults {
        if hidden.iter().any(|h| d.starts_with(h)) {
            continue;
        }
        if hidden.iter().any(|h| h.starts_with(&d)) {
            read_roots(&d, &hidden, &mut readable);
        } else {
            readable.push(d);
        }
    }
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
    let fd = fd.ok_or(LandlockError::Unavailable)?;
    Ok((fd, abi.min(ABI_USED as i32)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_folder_inside_a_system_folder_is_strictly_in_it() {
        assert!(strictly_in_system(Path::new("/usr/src")));
        assert!(strictly_in_system(Path::new("/etc/ssl")));
        for p in ["/usr", "/etc", "/bin", "/", "/opt/x", "/home/runner"] {
            assert!(!strictly_in_system(Path::new(p)), "{p}");
        }
    }

    #[test]
    fn a_toolchain_is_granted_by_its_folder_unless_that_holds_the_runner() {
        let d = tempfile::tempdir().unwrap();
        let base = d.path().canonicalize().unwrap();
        for p in [
            "runner/bin",
            "runner/_work/r/ws",
            "jdk/bin",
            "runner/externals/node/bin",
        ] {
            std::fs::create_dir_all(base.join(p)).unwrap();
        }
        let named = [
            (base.join("jdk/bin"), "PATH".to_string()),
            (base.join("runner/bin"), "PATH".to_string()),
            (base.join("runner/externals/node/bin"), "PATH".to_string()),
            (base.join("runner"), "JAVA_HOME".to_string()),
        ];
        let workspaces = [base.join("runner/_work/r/ws")];
        let runner = [base.join("runner/_work")];
        let places = Places {
            homes: &[],
            shared: &[],
            hidden: &[],
            workspaces: &workspaces,
            runner: &runner,
            tool_cache: None,
        };
        let tools = toolchains(&named, &places);
        assert_eq!(
            tools.paths,
            vec![
                base.join("jdk"),
                base.join("runner/bin"),
                base.join("runner/externals/node")
            ]
        );
        assert!(tools.granted[1].label.starts_with("PATH; not its parent"));
        assert_eq!(tools.refused.len(), 1, "{:?}", tools.refused);
        assert!(tools.refused[0].contains("JAVA_HOME: it holds the runner's work folder"));
        // A self-hosted runner in its user's home, its tool cache in `_work/_tool`: the JDK
        // there is granted by its <tool>/<version>/<arch> folder, not refused with the home.
        let home = base.join("home/runner");
        let cache = home.join("actions-runner/_work/_tool");
        let jdk = cache.join("Java_Temurin-Hotspot_jdk/17.0.9/x64");
        std::fs::create_dir_all(jdk.join("bin")).unwrap();
        let homes = [home.clone()];
        let runner = [home.join("actions-runner/_work")];
        let places = Places {
            homes: &homes,
            shared: &[],
            hidden: &homes,
            workspaces: &[],
            runner: &runner,
            tool_cache: Some(&cache),
        };
        let named = [
            (jdk.clone(), "JAVA_HOME".to_string()),
            (jdk.join("bin"), "PATH".to_string()),
        ];
        let tools = toolchains(&named, &places);
        assert_eq!(tools.paths, vec![jdk], "{tools:?}");
        assert!(tools.refused.is_empty(), "{tools:?}");
    }

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
