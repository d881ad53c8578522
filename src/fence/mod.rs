//! The fence every process that runs subject code starts through (builds, `command`,
//! `external`, task setup and post; trust.md points 4, 13 and 15). Best effort, each layer on
//! its own, and the report says which were in force:
//!
//! - `no_new_privs`: `sudo` and setuid programs cannot raise privileges;
//! - a PID and mount namespace (with a user namespace when judge-ci is not root): `/proc`
//!   shows only the subject's own processes (not the runner's step shells and their tokens),
//!   and when the judge's process ends the kernel kills every process left in the namespace,
//!   `setsid` helpers included;
//! - Landlock: writes only to the workspace, a private temporary folder and the build caches
//!   (`~/.m2/repository`, `~/.gradle`), so nothing can append to the runner's
//!   `$GITHUB_ENV`/`$GITHUB_PATH` files or plant files in `$HOME`; and no read access to
//!   judge-ci's own folders (reference checkouts, the output folder) outside the workspace;
//! - `sandbox: {network: false}`: a network namespace with no interface but loopback, or a
//!   refusal when the machine cannot make one.
//!
//! Judges register nothing: [`hide`] and [`add_workspace`] are called where judge-ci creates
//! those folders (checkout, pipeline), and [`crate::judges::process`] asks [`prepare`].

mod child;
mod rules;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};

/// Folders subject processes may not read (outside a writable root), and the roots they may
/// write, for every process of this judge-ci.
#[derive(Debug, Default)]
struct Registry {
    hidden: Vec<PathBuf>,
    workspaces: Vec<PathBuf>,
    network: Option<bool>,
    last: Option<Status>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    hidden: Vec::new(),
    workspaces: Vec::new(),
    network: None,
    last: None,
});

/// Whether namespaces can be made here: 0 unknown, 1 yes, 2 no.
static NAMESPACES: AtomicU8 = AtomicU8::new(0);

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    match REGISTRY.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Hides `path` (a reference checkout, the output folder, a cache) from every subject
/// process started from now on.
pub fn hide(path: &Path) {
    let p = canonical(path);
    let mut r = registry();
    if !r.hidden.contains(&p) {
        r.hidden.push(p);
    }
}

/// Makes `path` a writable root: a process whose folder is inside it may write there.
pub fn add_workspace(path: &Path) {
    let p = canonical(path);
    let mut r = registry();
    if !r.workspaces.contains(&p) {
        r.workspaces.push(p);
    }
}

/// `sandbox.network` of the run: `Some(false)` cuts subject processes off the network.
pub fn set_network(allowed: Option<bool>) {
    registry().network = allowed;
}

/// Which layers were in force for the last subject process, or why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// `no_new_privs` was set.
    pub no_new_privs: bool,
    /// The Landlock ABI the ruleset was enforced with, or why there was none.
    pub landlock: Result<i32, String>,
    /// PID and mount namespace, or why there was none.
    pub pid_namespace: Result<(), String>,
    /// The network was cut (only asked for with `sandbox: {network: false}`).
    pub network_cut: bool,
}

impl Status {
    /// One line for the report and the log: "landlock ABI 7, pid namespace, no_new_privs".
    pub fn line(&self) -> String {
        let mut on = Vec::new();
        let mut off = Vec::new();
        match &self.landlock {
            Ok(abi) => on.push(format!("landlock ABI {abi}")),
            Err(why) => off.push(format!("landlock ({why})")),
        }
        match &self.pid_namespace {
            Ok(()) => on.push("pid namespace".to_string()),
            Err(why) => off.push(format!("pid namespace ({why})")),
        }
        if self.no_new_privs {
            on.push("no_new_privs".to_string());
        }
        if self.network_cut {
            on.push("no network".to_string());
        }
        let mut s = on.join(", ");
        if !off.is_empty() {
            if !s.is_empty() {
                s.push_str("; ");
            }
            s.push_str("not available: ");
            s.push_str(&off.join(", "));
        }
        s
    }
}

/// The fence of the last subject process started, if any ran.
pub fn last_status() -> Option<Status> {
    registry().last.clone()
}

/// Why a process could not be fenced as the config demands.
#[derive(Debug, thiserror::Error)]
pub enum FenceError {
    /// `sandbox: {network: false}` on a machine that cannot make a network namespace.
    #[error(
        "sandbox.network is false, but this machine cannot make a network namespace for the subject's processes ({0}); run on a machine that allows user namespaces (or as root), or remove sandbox.network"
    )]
    NoNetworkNamespace(String),
    /// A private temporary folder could not be created.
    #[error("cannot create the private temporary folder: {0}")]
    Temp(std::io::Error),
}

/// What a fenced process needs until it has started: the private temporary folder (removed
/// when this is dropped) and the Landlock ruleset's descriptor.
pub struct Prepared {
    /// The process's private temporary folder (its `TMPDIR`).
    pub tmp: tempfile::TempDir,
    ruleset: Option<std::os::fd::OwnedFd>,
    landlock: Result<i32, String>,
    namespaces: bool,
    network_cut: bool,
}

impl Prepared {
    /// Installs the fence on `cmd` (runs in the child between fork and exec).
    pub fn apply(&self, cmd: &mut tokio::process::Command) {
        let plan = child::Plan::new(
            self.ruleset.as_ref().map(std::os::fd::AsRawFd::as_raw_fd),
            self.namespaces,
            self.network_cut,
        );
        // SAFETY: the closure only makes system calls on data prepared before the fork
        // (see child.rs); it allocates nothing.
        unsafe {
            cmd.pre_exec(move || plan.enter());
        }
    }

    /// Whether this attempt uses namespaces (a failed spawn is retried without).
    pub fn namespaces(&self) -> bool {
        self.namespaces
    }

    /// Records that the process started with this fence.
    pub fn started(&self) {
        if self.namespaces {
            NAMESPACES.store(1, Ordering::Relaxed);
        }
        let status = Status {
            no_new_privs: true,
            landlock: self.landlock.clone(),
            pid_namespace: if self.namespaces {
                Ok(())
            } else {
                Err(namespace_refusal())
            },
            network_cut: self.network_cut,
        };
        registry().last = Some(status);
    }

    /// After a spawn with namespaces failed: the same fence without them, or the refusal
    /// when the config needs them.
    pub fn without_namespaces(mut self) -> Result<Prepared, FenceError> {
        if self.network_cut {
            return Err(FenceError::NoNetworkNamespace(
                "the kernel refused to make one".to_string(),
            ));
        }
        self.namespaces = false;
        Ok(self)
    }
}

static NAMESPACE_WHY: Mutex<String> = Mutex::new(String::new());

/// Records that namespaces cannot be made here (a spawn with them failed, the same without
/// them started): later processes skip the attempt, and the report says why.
pub fn namespaces_unavailable(why: &std::io::Error) {
    NAMESPACES.store(2, Ordering::Relaxed);
    if let Ok(mut w) = NAMESPACE_WHY.lock() {
        *w = why.to_string();
    }
}

fn namespace_refusal() -> String {
    let why = NAMESPACE_WHY
        .lock()
        .map(|w| w.trim().to_string())
        .unwrap_or_default();
    if why.is_empty() {
        "refused by the kernel".to_string()
    } else {
        why
    }
}

/// The fence for a process running in `dir` with `home` as its home folder.
pub fn prepare(dir: &Path, home: Option<&Path>) -> Result<Prepared, FenceError> {
    let (hidden, workspaces, network) = {
        let r = registry();
        (r.hidden.clone(), r.workspaces.clone(), r.network)
    };
    let tmp = tempfile::Builder::new()
        .prefix("judge-ci-tmp-")
        .tempdir()
        .map_err(FenceError::Temp)?;
    let dir = canonical(dir);
    // The writable root: the registered workspace holding the folder, else the folder.
    let root = workspaces
        .iter()
        .filter(|w| dir.starts_with(w))
        .max_by_key(|w| w.as_os_str().len())
        .cloned()
        .unwrap_or(dir);
    let mut writable = vec![root, canonical(tmp.path())];
    if let Some(home) = home {
        writable.extend(rules::build_caches(home));
    }
    let (ruleset, landlock) = match rules::ruleset(&writable, &hidden) {
        Ok((fd, abi)) => (Some(fd), Ok(abi)),
        Err(why) => (None, Err(why)),
    };
    let namespaces = NAMESPACES.load(Ordering::Relaxed) != 2;
    let network_cut = network == Some(false);
    if network_cut && !namespaces {
        return Err(FenceError::NoNetworkNamespace(namespace_refusal()));
    }
    Ok(Prepared {
        tmp,
        ruleset,
        landlock,
        namespaces,
        network_cut,
    })
}
