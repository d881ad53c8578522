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
//! The policy is a value, [`Fence`], owned by each run (there is no process-wide fence state):
//! judges register nothing; the pipeline hides the folders judge-ci made for the run and
//! names its workspace, and [`crate::judges::process`] asks the run's fence to
//! [`prepare`](Fence::prepare) each process.

mod child;
mod rules;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Folders no subject process may read (outside its writable root): reference checkouts,
/// snapshots, output and cache folders judge-ci made. One list is shared by every run that
/// lives in the same process (the tasks of a `judge-ci suite`): what judge-ci made for one
/// task is hidden from the subject processes of every other task too.
#[derive(Debug, Default)]
pub struct Hidden(Mutex<Vec<PathBuf>>);

impl Hidden {
    /// Hides `path` from every subject process prepared from now on.
    pub fn hide(&self, path: &Path) {
        let p = canonical(path);
        let mut h = lock(&self.0);
        if !h.contains(&p) {
            h.push(p);
        }
    }

    fn list(&self) -> Vec<PathBuf> {
        lock(&self.0).clone()
    }
}

/// The fence policy of one run: what its subject processes may not read ([`Hidden`], shared
/// with the runs beside it), the roots they may write, whether they reach the network (the
/// run's own `sandbox.network`), and which layers the last of them started with (for the
/// run's report). Owned by the run and handed to whatever starts its processes; nothing of
/// it is process-wide, so concurrent runs with different `sandbox` settings each get their
/// own.
#[derive(Debug, Default)]
pub struct Fence {
    hidden: Arc<Hidden>,
    workspaces: Mutex<Vec<PathBuf>>,
    network: Option<bool>,
    last: Mutex<Option<Status>>,
    /// Whether namespaces can be made here: 0 unknown, 1 yes, 2 no (learnt by this run's
    /// first process).
    namespaces: AtomicU8,
    /// Why they cannot, when a spawn with them failed.
    namespace_why: Mutex<String>,
}

impl Fence {
    /// The fence of a run with `sandbox.network` = `network` (`Some(false)` cuts its subject
    /// processes off the network), hiding what `hidden` lists.
    pub fn new(network: Option<bool>, hidden: Arc<Hidden>) -> Fence {
        Fence {
            hidden,
            network,
            ..Fence::default()
        }
    }

    /// Hides `path` (a reference checkout, the output folder, a cache) from every subject
    /// process started from now on, this run's and its neighbours'.
    pub fn hide(&self, path: &Path) {
        self.hidden.hide(path);
    }

    /// Makes `path` a writable root: a process whose folder is inside it may write there.
    pub fn add_workspace(&self, path: &Path) {
        let p = canonical(path);
        let mut w = lock(&self.workspaces);
        if !w.contains(&p) {
            w.push(p);
        }
    }

    /// The fence of this run's last subject process, if any ran.
    pub fn last_status(&self) -> Option<Status> {
        lock(&self.last).clone()
    }

    /// Records that a process started with `prepared`.
    pub fn started(&self, prepared: &Prepared) {
        if prepared.namespaces {
            self.namespaces.store(1, Ordering::Relaxed);
        }
        let status = Status {
            no_new_privs: true,
            landlock: prepared.landlock.clone(),
            pid_namespace: if prepared.namespaces {
                Ok(())
            } else {
                Err(self.namespace_refusal())
            },
            network_cut: prepared.network_cut,
        };
        *lock(&self.last) = Some(status);
    }

    /// Records that namespaces cannot be made here (a spawn with them failed, the same
    /// without them started): this run's later processes skip the attempt, and the report
    /// says why.
    pub fn namespaces_unavailable(&self, why: &std::io::Error) {
        self.namespaces.store(2, Ordering::Relaxed);
        *lock(&self.namespace_why) = why.to_string();
    }

    fn namespace_refusal(&self) -> String {
        let why = lock(&self.namespace_why).trim().to_string();
        if why.is_empty() {
            "refused by the kernel".to_string()
        } else {
            why
        }
    }

    /// The fence for a process running in `dir` with `home` as its home folder.
    pub fn prepare(&self, dir: &Path, home: Option<&Path>) -> Result<Prepared, FenceError> {
        let hidden = self.hidden.list();
        let workspaces = lock(&self.workspaces).clone();
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
        let namespaces = self.namespaces.load(Ordering::Relaxed) != 2;
        let network_cut = self.network == Some(false);
        if network_cut && !namespaces {
            return Err(FenceError::NoNetworkNamespace(self.namespace_refusal()));
        }
        Ok(Prepared {
            tmp,
            ruleset,
            landlock,
            namespaces,
            network_cut,
        })
    }
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
