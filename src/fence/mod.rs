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
//!   refusal when the machine cannot make one;
//! - every descriptor above stderr close-on-exec, capabilities dropped, a seccomp filter
//!   (no unix sockets, io_uring, key rings), `/dev` closed but for a few devices, a private
//!   `/dev/shm` and `HOME` (the real home hidden), the workspace's `.git` read-only (and
//!   restored at the end, [`git_guard`]), the build caches as per-run overlays.
//!
//! [`Status::line`] names each layer as held or not; `sandbox: {require: [...]}` makes a
//! missing one an ERROR (docs/fence.md).
//!
//! The policy is a value, [`Fence`], owned by each run (there is no process-wide fence state):
//! judges register nothing; the pipeline hides the folders judge-ci made for the run and
//! names its workspace, and [`crate::judges::process`] asks the run's fence to
//! [`prepare`](Fence::prepare) each process.

mod child;
pub mod git_guard;
pub mod layers;
pub mod nest;
pub mod reaper;
pub mod reference;
mod rules;
mod seccomp;

pub use layers::Layer;

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
pub struct Hidden(Mutex<Vec<PathBuf>>, Mutex<Vec<PathBuf>>);

impl Hidden {
    /// Makes `path`, a file or folder of judge-ci's own that subject processes must read
    /// (the compiled test oracle, the JUnit jar it runs with), readable although it lies in
    /// a folder hidden from them (the shared temporary folder).
    pub fn show(&self, path: &Path) {
        let p = canonical(path);
        let mut s = lock(&self.1);
        if !s.contains(&p) {
            s.push(p);
        }
    }

    fn shown(&self) -> Vec<PathBuf> {
        lock(&self.1).clone()
    }

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
    /// `sandbox.require`: layers without which no subject process starts.
    required: Vec<Layer>,
    /// The workspaces' git configuration and hooks as before any subject code ran.
    git: Mutex<Vec<git_guard::GitGuard>>,
    /// What [`Fence::restore_git`] put back.
    restored: Mutex<Vec<PathBuf>>,
    /// The reference folders of the run (hidden; see [`Fence::hide_reference`]).
    references: Mutex<Vec<PathBuf>>,
    /// The git folder the reference revision was read from (see
    /// [`Fence::note_reference_objects`]).
    reference_git: Mutex<Option<PathBuf>>,
    /// Per writable root: how the reference stands for its subject processes, and the copy
    /// of its repository with HEAD's objects alone that covers its git folders (made once).
    views: Mutex<Vec<(PathBuf, Arc<ReferenceView>)>>,
    /// The reference's files judge-ci itself copied into the workspace (`restore:`) whose
    /// bytes it did not hold (see [`Fence::note_reference_copied`]).
    copied_in: Mutex<Vec<String>>,
    /// The layers of the last sealed process (judge-ci's test oracle), if one ran.
    last_sealed: Mutex<Option<Status>>,
    /// `PATH` entries withheld from subject processes (see [`Prepared::path`]).
    path_dropped: Mutex<Vec<PathBuf>>,
    /// The protected files pinned to the trusted side's copy (see [`Fence::pin_protected`]).
    protected: Mutex<Vec<PathBuf>>,
}

/// How the run's reference stands for one writable root's subject processes, with the copy
/// of the root's repository that hides it when it is in the root's object store.
#[derive(Debug)]
struct ReferenceView {
    exposure: reference::Exposure,
    view: Option<reference::HeadView>,
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

    /// Hides the run's reference folder, wherever it lies. One inside the workspace cannot
    /// be hidden (the workspace is writable whole): [`Fence::report_line`] says so.
    pub fn hide_reference(&self, path: &Path) {
        self.hidden.hide(path);
        let p = canonical(path);
        let mut r = lock(&self.references);
        if !r.contains(&p) {
            r.push(p);
        }
    }

    /// Records the git folder the reference revision was read from: when it is a workspace's
    /// own (a `ref:` of the same repository), subject code can read the reference's objects
    /// through git, and [`Fence::report_line`] says so.
    pub fn note_reference_objects(&self, git_dir: &Path) {
        *lock(&self.reference_git) = Some(canonical(git_dir));
    }

    /// Records the reference's files judge-ci copied into the workspace (`restore:`) whose
    /// bytes the workspace did not hold: subject processes read them there, so the reference
    /// is not hidden from them, whatever folder rules say (attack finding S8-4: a build read
    /// the restored hidden tests and sent them out while the fence line said "reference
    /// hidden" and `require: [hidden-reference]` was met).
    pub fn note_reference_copied(&self, files: &[String]) {
        if files.is_empty() {
            return;
        }
        lock(&self.copied_in).extend(files.iter().cloned());
        // A view made before (a task's setup ran first) is made again with this exposure.
        lock(&self.views).clear();
    }

    /// Makes `files` (the protected files judge-ci pinned to the trusted side's copy: the
    /// scripts a check runs, the build wrappers and settings) read-only to every subject
    /// process started from now on, and the folders on the way to them immovable (attack
    /// findings G10-22, G10-23: a script rewritten while its shell read it, then put back
    /// before the check ended, decided the check). Needs a mount namespace
    /// ([`Layer::ReadOnlyProtected`]).
    pub fn pin_protected(&self, files: &[PathBuf]) {
        let mut p = lock(&self.protected);
        for f in files {
            let c = canonical(f);
            if !p.contains(&c) {
                p.push(c);
            }
        }
    }

    /// The same fence with `sandbox.require` = `layers`: a subject process whose fence
    /// lacks one does not start (its spawn fails with [`FenceError::Required`]).
    pub fn requiring(mut self, layers: &[Layer]) -> Fence {
        self.required = layers.to_vec();
        self
    }

    /// Makes `path` readable to every subject process started from now on (see
    /// [`Hidden::show`]).
    pub fn show(&self, path: &Path) {
        self.hidden.show(path);
    }

    /// Hides `path` (a reference checkout, the output folder, a cache) from every subject
    /// process started from now on, this run's and its neighbours'.
    pub fn hide(&self, path: &Path) {
        self.hidden.hide(path);
    }

    /// The hidden folders inside `root`, relative to it (the output folder when it is in the
    /// workspace): the workspace record ([`crate::judges::baseline`]) leaves them alone.
    pub fn hidden_under(&self, root: &Path) -> Vec<PathBuf> {
        let root = canonical(root);
        self.hidden
            .list()
            .iter()
            .filter_map(|h| h.strip_prefix(&root).ok())
            .filter(|rel| !rel.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .collect()
    }

    /// Makes `path` a writable root: a process whose folder is inside it may write there.
    /// Call it before any subject code runs there: its git configuration and hooks are
    /// recorded then, and [`Fence::restore_git`] puts them back.
    pub fn add_workspace(&self, path: &Path) {
        let p = canonical(path);
        let mut w = lock(&self.workspaces);
        if !w.contains(&p) {
            lock(&self.git).push(git_guard::GitGuard::record(&p));
            w.push(p);
        }
    }

    /// Puts back every git configuration file and hook of the workspaces that subject code
    /// changed (see [`git_guard`]), saying so on stderr; returns what it restored. Call it
    /// when no subject process is left.
    pub fn restore_git(&self) -> Vec<PathBuf> {
        // Orphaned subject processes first (without a PID namespace): none may change
        // anything after this (a `setsid` helper rewriting .git/config or the report).
        let swept = reaper::sweep();
        if swept.survived > 0 {
            eprintln!(
                "judge-ci: warning: {} subject process(es) outlived their step and could not be killed",
                swept.survived
            );
        }
        let changed: Vec<PathBuf> = lock(&self.git).iter().flat_map(|g| g.restore()).collect();
        let mut restored = lock(&self.restored);
        for p in &changed {
            eprintln!(
                "judge-ci: warning: subject code changed {} (git configuration or hook); restored as it was before the run",
                crate::untrusted::shown(p)
            );
            if !restored.contains(p) {
                restored.push(p.clone());
            }
        }
        changed
    }

    /// The report's fence line: the last subject process's layers, and the git files
    /// subject code changed (restored by [`Fence::restore_git`]).
    pub fn report_line(&self) -> Option<String> {
        let mut line = self.last_status().as_ref().map(Status::line)?;
        if matches!(
            self.last_status(),
            Some(Status {
                pid_namespace: Err(_),
                ..
            })
        ) {
            let swept = reaper::totals();
            line.push_str(&if !reaper::is_subreaper() {
                "; subject processes that leave their process group may outlive their step (no pid namespace, and judge-ci could not become their subreaper)".to_string()
            } else if swept.survived > 0 {
                format!(
                    "; {} orphaned subject process(es) outlived their step (no pid namespace; swept as judge-ci's orphans, {} killed)",
                    swept.survived, swept.killed
                )
            } else {
                format!(
                    "; no subject process outlived its step (no pid namespace: orphans swept by judge-ci as their subreaper, {} killed)",
                    swept.killed
                )
            });
        }
        if let Some(s) = lock(&self.last_sealed).as_ref() {
            line.push_str("; ");
            line.push_str(&sealed_words(s));
        }
        let dropped = lock(&self.path_dropped);
        if !dropped.is_empty() {
            let names: Vec<String> = dropped.iter().map(|p| crate::untrusted::shown(p)).collect();
            line.push_str(&format!(
                "; PATH entries that are relative or lie in folders subject code can write were not passed to subject processes (a program there would stand in for a command's): {}",
                names.join(", ")
            ));
        }
        let restored = lock(&self.restored);
        if !restored.is_empty() {
            let names: Vec<String> = restored
                .iter()
                .map(|p| crate::untrusted::shown(p))
                .collect();
            line.push_str(&format!(
                "; subject code changed {} (restored)",
                names.join(", ")
            ));
        }
        Some(line)
    }

    /// How the reference stands for the subject processes of `root` (whose git folders are
    /// `git`), and the copy that hides it from them (made on the first call for the root).
    fn reference_view(&self, root: &Path, git: &[PathBuf]) -> Arc<ReferenceView> {
        let mut views = lock(&self.views);
        if let Some((_, v)) = views.iter().find(|(r, _)| r == root) {
            return Arc::clone(v);
        }
        let references = lock(&self.references).clone();
        let reference_git = lock(&self.reference_git).clone();
        let (exposure, view) = if references.is_empty() && reference_git.is_none() {
            (reference::Exposure::NoReference, None)
        } else if let Some(r) = references.iter().find(|r| r.starts_with(root)) {
            (reference::Exposure::InsideWorkspace(r.clone()), None)
        } else {
            match reference::through_git(root, git, reference_git.as_deref(), &references) {
                None => (reference::Exposure::Hidden, None),
                Some(git_dir) => {
                    let text = std::fs::read_to_string(git_dir.join("config")).unwrap_or_default();
                    let config = git_guard::without_credentials(&text).unwrap_or(text);
                    match reference::HeadView::build(root, &config) {
                        Ok(v) => {
                            self.hidden.hide(v.dir.path());
                            (
                                reference::Exposure::ThroughGit {
                                    git_dir,
                                    no_copy: None,
                                },
                                Some(v),
                            )
                        }
                        Err(why) => (
                            reference::Exposure::ThroughGit {
                                git_dir,
                                no_copy: Some(why.to_string()),
                            },
                            None,
                        ),
                    }
                }
            }
        };
        // What judge-ci copied in is read wherever the reference itself lies.
        let copied = lock(&self.copied_in).clone();
        let exposure = match exposure {
            reference::Exposure::Hidden | reference::Exposure::ThroughGit { .. }
                if !copied.is_empty() =>
            {
                reference::Exposure::CopiedIn(copied)
            }
            other => other,
        };
        let v = Arc::new(ReferenceView { exposure, view });
        views.push((root.to_path_buf(), Arc::clone(&v)));
        v
    }

    /// The fence of this run's last subject process, if any ran.
    pub fn last_status(&self) -> Option<Status> {
        lock(&self.last).clone()
    }

    /// Records that a process started with `prepared` (and the layers its child reported).
    pub fn started(&self, prepared: &Prepared) {
        {
            let mut dropped = lock(&self.path_dropped);
            for p in &prepared.path_dropped {
                if !dropped.contains(p) {
                    dropped.push(p.clone());
                }
            }
        }
        if prepared.namespaces {
            self.namespaces.store(1, Ordering::Relaxed);
        }
        let mut status = prepared.status(prepared.reported().unwrap_or(0));
        if !prepared.namespaces {
            status.pid_namespace = Err(self.namespace_refusal());
        }
        if prepared.sealed {
            *lock(&self.last_sealed) = Some(status.clone());
        }
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
        self.prepare_with(dir, home, false)
    }

    /// The fence of [`Fence::prepare`] with `/proc` hidden as well (no rule grants it, not
    /// even the namespace's own): the process and its children cannot read their own
    /// memory (`/proc/self/mem`, `/proc/self/maps`) nor another's through `/proc`. For judge-ci's
    /// test oracle, whose JVM holds a secret the code under test must not learn, and the
    /// trusted tests it must not send anywhere (`docs/test-oracle.md`). Opening an inherited
    /// pipe through `/proc/self/fd/N` still works (Landlock does not govern pipes). Sealed
    /// too (attack findings OR1, FE5): the workspace is read-only (Landlock, and a read-only
    /// bind with a mount namespace), the network a namespace of its own (or, without one,
    /// internet sockets refused by seccomp), and with a mount namespace the workspace, the
    /// private temporary folder and the caches' overlays are `noexec`, so no native library
    /// the subject wrote can be mapped executable (`Layer::SealedOracle`).
    pub fn prepare_sealed(&self, dir: &Path, home: Option<&Path>) -> Result<Prepared, FenceError> {
        self.prepare_with(dir, home, true)
    }

    fn prepare_with(
        &self,
        dir: &Path,
        home: Option<&Path>,
        sealed: bool,
    ) -> Result<Prepared, FenceError> {
        let mut hidden = self.hidden.list();
        if sealed {
            hidden.push(PathBuf::from("/proc"));
        }
        let workspaces = lock(&self.workspaces).clone();
        let (network, required) = (self.network, self.required.clone());
        let tmp = tempfile::Builder::new()
            .prefix("judge-ci-tmp-")
            .tempdir()
            .map_err(FenceError::Temp)?;
        let private_home = tmp.path().join("home");
        std::fs::create_dir_all(&private_home).map_err(FenceError::Temp)?;
        let dir = canonical(dir);
        // The writable root: the registered workspace holding the folder, else the folder.
        let root = workspaces
            .iter()
            .filter(|w| dir.starts_with(w))
            .max_by_key(|w| w.as_os_str().len())
            .cloned()
            .unwrap_or(dir);
        let git = git_folders(&root, std::slice::from_ref(&root));
        let (protected, protected_dirs) = protected_mounts(&lock(&self.protected), &root);
        // The job's token that actions/checkout leaves in .git/config (F13): subject
        // processes read a copy without it (with a mount namespace; see docs/fence.md).
        // Every configuration file git reads for them (E7-3: submodules', linked work
        // trees', included files), scrubbed by what credentials are (E7-7).
        let mut git_configs = Vec::new();
        let mut n = 0usize;
        for g in &git {
            for file in git_guard::config_files(g) {
                if let Ok(text) = std::fs::read_to_string(&file)
                    && let Some(clean) = git_guard::without_credentials(&text)
                {
                    let copy = tmp.path().join(format!(".git-config-{n}"));
                    n += 1;
                    std::fs::write(&copy, clean).map_err(FenceError::Temp)?;
                    git_configs.push((canonical(&copy), file));
                }
            }
        }
        let reference_view = self.reference_view(&root, &git);
        let views: Vec<PathBuf> = match &reference_view.view {
            Some(v) => vec![canonical(v.dir.path()); git.len()],
            None => Vec::new(),
        };
        // A workspace inside a system folder (`/usr/src/…`): its neighbours, and a parent
        // folder's `.git` holding the reference, are not readable through that folder's
        // grant (the workspace itself is, as a writable root).
        if let Some(parent) = root.parent().filter(|p| rules::strictly_in_system(p)) {
            hidden.push(parent.to_path_buf());
        }
        // The sealed oracle writes nowhere the subject keeps: its workspace is read-only
        // (granted below as readable).
        let workspace = root.clone();
        let mut writable = if sealed {
            vec![canonical(tmp.path())]
        } else {
            vec![root, canonical(tmp.path())]
        };
        let mut readable = Vec::new();
        let mut caches = Vec::new();
        // Files only root may read: a root subject (uid 0 without capabilities) would.
        for f in [
            "/etc/shadow",
            "/etc/gshadow",
            "/etc/shadow-",
            "/etc/gshadow-",
            "/etc/ssh",
            "/etc/sudoers",
            "/etc/sudoers.d",
        ] {
            if Path::new(f).exists() {
                hidden.push(PathBuf::from(f));
            }
        }
        // The shared temporary folders and the runner's (see rules::shared_folders); the
        // private temporary folder and a workspace inside one stay granted (writable).
        let shared = rules::shared_folders();
        readable.extend(
            self.hidden
                .shown()
                .into_iter()
                .filter(|p| !hidden.iter().any(|h| h.starts_with(p) || p.starts_with(h))),
        );
        hidden.extend(shared.iter().cloned());
        if sealed {
            // Reads are an allow-list: the sealed oracle's workspace, no longer a writable
            // root, is granted as readable.
            readable.push(workspace.clone());
        }
        let homes = homes(home);
        hidden.extend(homes.iter().cloned());
        // The toolchains the environment names, each placed so that it exposes nothing
        // (the runner's installation, a home, the workspace's neighbours): see rules.
        let runner: Vec<PathBuf> = ["RUNNER_WORKSPACE", "RUNNER_TEMP"]
            .iter()
            .filter_map(|k| std::env::var_os(k).filter(|v| !v.is_empty()))
            .filter_map(|v| Some(canonical(PathBuf::from(v).parent()?)))
            .filter(|p| p.parent().is_some())
            .collect();
        let tool_cache = std::env::var_os("RUNNER_TOOL_CACHE")
            .filter(|v| !v.is_empty())
            .and_then(|v| PathBuf::from(v).canonicalize().ok());
        let tools = rules::toolchains(
            &rules::named_tools(),
            &rules::Places {
                homes: &homes,
                shared: &shared,
                hidden: &hidden,
                workspaces: &workspaces,
                runner: &runner,
                tool_cache: tool_cache.as_deref(),
            },
        );
        readable.extend(tools.paths.iter().cloned());
        for h in &homes {
            // The home folder is hidden: credentials and configuration earlier steps left
            // there (docker, git, cloud CLIs, Maven's settings) are not the subject's to
            // read. Its build caches stay, through a per-run overlay.
            for c in rules::build_caches(h) {
                if !caches.iter().any(|(p, _, _)| *p == c) {
                    let n = caches.len();
                    let upper = tmp.path().join(format!(".cache-{n}/upper"));
                    let work = tmp.path().join(format!(".cache-{n}/work"));
                    std::fs::create_dir_all(&upper).map_err(FenceError::Temp)?;
                    std::fs::create_dir_all(&work).map_err(FenceError::Temp)?;
                    writable.push(c.clone());
                    caches.push((c, canonical(&upper), canonical(&work)));
                }
            }
        }
        // The workspace counts even where it is read-only (the sealed oracle): the subject
        // wrote it.
        let subject_folders: Vec<PathBuf> = writable
            .iter()
            .cloned()
            .chain(std::iter::once(workspace.clone()))
            .collect();
        let (path, path_dropped) = subject_path(std::env::var_os("PATH"), &subject_folders);
        let namespaces = self.namespaces.load(Ordering::Relaxed) != 2;
        let grants = rules::Grants {
            writable,
            readable,
            private_shm: true,
        };
        let (ruleset, landlock) = match rules::ruleset(&grants, &hidden) {
            Ok((fd, abi)) => (Some(fd), Ok(abi)),
            Err(why) => (None, Err(why)),
        };
        // The sealed oracle never has a network: a namespace of its own, or (without one)
        // no internet socket (seccomp).
        let network_cut = if sealed {
            namespaces
        } else {
            network == Some(false)
        };
        if network_cut && !namespaces {
            return Err(FenceError::NoNetworkNamespace(self.namespace_refusal()));
        }
        let report =
            nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC | nix::fcntl::OFlag::O_NONBLOCK).ok();
        let mut prepared = Prepared {
            namespace_why: self.namespace_refusal(),
            last_report: Mutex::new(None),
            grants,
            hidden,
            tmp,
            home: private_home,
            home_hidden: !homes.is_empty() && landlock.is_ok(),
            ruleset,
            landlock,
            namespaces,
            network_cut,
            git_folders: git,
            protected,
            protected_dirs,
            git_configs,
            views,
            exposure: reference_view.exposure.clone(),
            tools,
            caches,
            required,
            report,
            sealed,
            workspace,
            path,
            path_dropped,
        };
        if !namespaces {
            prepared.rebuild_without_namespaces();
        }
        Ok(prepared)
    }
}

/// The pinned protected files inside `root` (regular files only: a link is decided where it
/// leads), and every folder strictly between `root` and one of them, shallowest first.
fn protected_mounts(files: &[PathBuf], root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut kept = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for f in files.iter().filter(|f| f.starts_with(root) && f != &root) {
        if !std::fs::symlink_metadata(f).is_ok_and(|m| m.is_file()) {
            continue;
        }
        kept.push(f.clone());
        for a in f.ancestors().skip(1) {
            if a == root || !a.starts_with(root) {
                break;
            }
            if !dirs.iter().any(|d| d == a) {
                dirs.push(a.to_path_buf());
            }
        }
    }
    dirs.sort_by_key(|d| d.components().count());
    (kept, dirs)
}

/// What the report says of judge-ci's test oracle's JVM: whether it was sealed (no network,
/// read-only workspace, writable folders `noexec`), and that the trusted tests ran in it
/// beside the subject's code, which can read them (docs/test-oracle.md).
pub fn sealed_words(s: &Status) -> String {
    let shared = "the trusted tests ran in that JVM beside the subject's code, which can read them (their names and expected values) on its class path";
    if s.holds(Layer::SealedOracle) {
        return format!(
            "judge-ci's test oracle was sealed (no network, the workspace read-only, every folder it could write noexec: no native code the subject wrote could be loaded); {shared}: what it learns there leaves only through its own tests' outcomes and failure messages"
        );
    }
    let network = if s.network_cut {
        "it had no network"
    } else if s.pid_namespace.is_err() && s.held & child::held::SECCOMP != 0 {
        "internet sockets were refused (seccomp)"
    } else {
        "it had the network"
    };
    format!(
        "judge-ci's test oracle was NOT sealed ({}): code under test could load native code it wrote and through it reach judge-ci's result channel; {network}; {shared}",
        Layer::SealedOracle.why_not(s)
    )
}

/// `path` (a `PATH` value) without its relative or empty entries and those inside one of
/// `writable`, and the entries left out; see [`Prepared::path`].
pub fn subject_path(
    path: Option<std::ffi::OsString>,
    writable: &[PathBuf],
) -> (Option<std::ffi::OsString>, Vec<PathBuf>) {
    let Some(path) = path else {
        return (None, Vec::new());
    };
    let writable: Vec<PathBuf> = writable
        .iter()
        .flat_map(|w| [w.clone(), canonical(w)])
        .collect();
    let (mut kept, mut dropped) = (Vec::new(), Vec::new());
    for e in std::env::split_paths(&path) {
        let inside = |p: &Path| writable.iter().any(|w| p.starts_with(w));
        if !e.is_absolute() || inside(&e) || inside(&resolved(&e)) {
            dropped.push(e);
        } else {
            kept.push(e);
        }
    }
    let joined = std::env::join_paths(&kept).ok();
    (joined, dropped)
}

/// judge-ci's own `PATH` for the programs it starts itself (`git`, `rm`): without relative or
/// empty entries and those inside the checkout (`$GITHUB_WORKSPACE`), where a file the pull
/// request commits would stand in for the program (attack finding NC15); `None` when nothing
/// is left out. Subject processes get less still ([`Prepared::path`]).
pub fn own_path() -> Option<std::ffi::OsString> {
    let checkout: Vec<PathBuf> = std::env::var_os("GITHUB_WORKSPACE")
        .map(PathBuf::from)
        .filter(|w| w.is_absolute() && w.parent().is_some())
        .into_iter()
        .collect();
    let (path, dropped) = subject_path(std::env::var_os("PATH"), &checkout);
    (!dropped.is_empty()).then_some(path).flatten()
}

/// `p` with its longest existing ancestor made canonical and `..` taken off lexically: where a
/// folder that does not exist yet would be (a `node_modules/.bin` the build creates).
fn resolved(p: &Path) -> PathBuf {
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let mut at = p.to_path_buf();
    loop {
        if let Ok(mut out) = at.canonicalize() {
            for part in rest.iter().rev() {
                if part == ".." {
                    out.pop();
                } else if part != "." {
                    out.push(part);
                }
            }
            return out;
        }
        let Some(last) = at
            .components()
            .next_back()
            .map(|c| c.as_os_str().to_os_string())
        else {
            return p.to_path_buf();
        };
        rest.push(last);
        if !at.pop() {
            return p.to_path_buf();
        }
    }
}

/// The home folders of judge-ci's user: `$HOME` and the password database's (which Java
/// reads for `user.home`), each once.
fn homes(home: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = home.map(canonical).into_iter().collect();
    if let Ok(Some(u)) = nix::unistd::User::from_uid(nix::unistd::geteuid()) {
        let p = canonical(&u.dir);
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out.retain(|h| h.parent().is_some() && h.is_dir());
    out
}

/// The git folders of the repository whose work tree is `root` that lie inside `writable`:
/// its git folder and, for a linked work tree, the common one.
fn git_folders(root: &Path, writable: &[PathBuf]) -> Vec<PathBuf> {
    let dot_git = root.join(".git");
    let mut out = Vec::new();
    if dot_git.is_dir() {
        out.push(canonical(&dot_git));
    } else if dot_git.is_file()
        && let Ok(repo) = git2::Repository::open(root)
    {
        out.push(canonical(repo.path()));
        out.push(canonical(repo.commondir()));
    }
    out.dedup();
    out.retain(|g| writable.iter().any(|w| g.starts_with(w)));
    out
}

fn cstring(p: &Path) -> Option<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(p.as_os_str().as_bytes()).ok()
}

/// Which layers were in force for the last subject process, or why not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// `no_new_privs` was set.
    pub no_new_privs: bool,
    /// The Landlock ABI the ruleset was enforced with, or why there was none.
    pub landlock: Result<i32, rules::LandlockError>,
    /// PID and mount namespace, or why there was none: the kernel's refusal as the
    /// namespace probe worded it (shown on the fence line, never matched on).
    pub pid_namespace: Result<(), String>,
    /// The network was cut (only asked for with `sandbox: {network: false}`).
    pub network_cut: bool,
    /// The layers the process reported as held when it started (`child::held` bits).
    pub held: u32,
    /// The real home folder was hidden (a home was known and Landlock held).
    pub home_hidden: bool,
    /// How the run's reference stood for the process.
    pub reference: reference::Exposure,
    /// Folders readable beyond the system's own (toolchains), with what named them.
    pub tools: Vec<rules::Granted>,
    /// Toolchain folders the environment named that were not made readable, and why.
    pub refused_tools: Vec<String>,
}

impl Status {
    /// Whether `layer` held for this process.
    pub fn holds(&self, layer: Layer) -> bool {
        layer.held_in(self)
    }

    /// One line for the report and the log: "landlock ABI 7, pid namespace, no_new_privs,
    /// …; not available: …", every layer named as held or not (with why).
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
        // SAFETY: a getter. Without a user namespace a root judge-ci's subject runs as uid 0.
        if unsafe { libc::geteuid() } == 0 {
            off.push(
                "unprivileged uid (subject code runs as uid 0 without capabilities: root's files Landlock leaves readable stay readable)"
                    .to_string(),
            );
        }
        for layer in Layer::REPORTED {
            if self.holds(layer) {
                on.push(layer.held_text().to_string());
            } else {
                off.push(format!("{} ({})", layer.name(), layer.why_not(self)));
            }
        }
        if self.reference != reference::Exposure::NoReference {
            let layer = Layer::HiddenReference;
            if self.holds(layer) {
                on.push(match self.reference {
                    reference::Exposure::ThroughGit { .. } => {
                        "reference hidden (the workspace's git objects: HEAD's alone)".to_string()
                    }
                    _ => layer.held_text().to_string(),
                });
            } else {
                off.push(format!("{} ({})", layer.name(), layer.why_not(self)));
            }
        }
        let mut s = on.join(", ");
        if !off.is_empty() {
            if !s.is_empty() {
                s.push_str("; ");
            }
            s.push_str("not available: ");
            s.push_str(&off.join(", "));
        }
        let listed = |items: Vec<String>| {
            const MOST: usize = 12;
            let n = items.len();
            let mut text = items.into_iter().take(MOST).collect::<Vec<_>>().join(", ");
            if n > MOST {
                text.push_str(&format!(" and {} more", n - MOST));
            }
            text
        };
        if !self.tools.is_empty() {
            s.push_str("; readable beyond the system folders: ");
            s.push_str(&listed(
                self.tools
                    .iter()
                    .map(|g| format!("{} ({})", g.path.display(), g.label))
                    .collect(),
            ));
        }
        if !self.refused_tools.is_empty() {
            s.push_str("; named by the environment but not readable: ");
            s.push_str(&listed(self.refused_tools.clone()));
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
    /// A layer `sandbox.require` names did not hold.
    #[error(
        "sandbox.require names {missing}, which did not hold for this process ({line}); run where the kernel and runner allow it (user namespaces, Landlock), or remove it from sandbox.require"
    )]
    Required {
        /// The layers that did not hold.
        missing: String,
        /// The fence line of the attempt.
        line: String,
    },
}

/// What a fenced process needs until it has started: the private temporary folder (removed
/// when this is dropped) and the Landlock ruleset's descriptor.
pub struct Prepared {
    /// The process's private temporary folder (its `TMPDIR`).
    pub tmp: tempfile::TempDir,
    /// The process's private home folder (its `HOME`), inside `tmp`.
    pub home: PathBuf,
    ruleset: Option<std::os::fd::OwnedFd>,
    landlock: Result<i32, rules::LandlockError>,
    namespaces: bool,
    network_cut: bool,
    git_folders: Vec<PathBuf>,
    /// The pinned protected files inside the writable root, and the folders on the way to
    /// them (shallowest first; see [`protected_mounts`]).
    protected: Vec<PathBuf>,
    protected_dirs: Vec<PathBuf>,
    /// (a copy without credentials, the git configuration file it covers).
    git_configs: Vec<(PathBuf, PathBuf)>,
    /// The copy with HEAD's objects alone mounted over each of `git_folders` (one each, in
    /// order), when the reference is in their object store.
    views: Vec<PathBuf>,
    /// How the run's reference stands for this process.
    exposure: reference::Exposure,
    /// The toolchains granted beyond the system's folders, and those named but refused.
    tools: rules::Tools,
    caches: Vec<(PathBuf, PathBuf, PathBuf)>,
    home_hidden: bool,
    required: Vec<Layer>,
    report: Option<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)>,
    grants: rules::Grants,
    hidden: Vec<PathBuf>,
    /// What the child last reported (read once from the pipe, asked for more than once).
    last_report: Mutex<Option<u32>>,
    /// Why namespaces cannot be made here, as the run knew when this was prepared.
    namespace_why: String,
    /// `/proc` is hidden, the network cut, the workspace read-only and every writable
    /// folder `noexec` ([`Fence::prepare_sealed`]).
    sealed: bool,
    /// The process's workspace (its writable root unless sealed).
    workspace: PathBuf,
    /// The process's `PATH`: judge-ci's, less the entries that are relative or empty (they
    /// resolve in the folder the process runs in) and those inside a folder the process may
    /// write (the workspace, its temporary folder, the build caches), where a file the pull
    /// request commits (`node_modules/.bin/grep`) would stand in for a program a trusted
    /// command names (trust.md point 25; attack finding NC15). `None` without one.
    pub path: Option<std::ffi::OsString>,
    /// The entries left out of [`Prepared::path`].
    pub path_dropped: Vec<PathBuf>,
}

impl Drop for Prepared {
    /// The private temporary folder (the private HOME, the caches' upper layers) goes with
    /// the process, whatever modes subject code left in it: a folder it made unreadable
    /// (`chmod 000`) is opened up first, so the removal that follows cannot stop there and
    /// leave the rest behind (attack finding s3 N10).
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        // A folder is listed before it is handed out, so one opened up in a pass is walked
        // into on the next; nested locked folders take a pass each.
        for _ in 0..32 {
            let mut locked = false;
            let walk = walkdir::WalkDir::new(self.tmp.path()).follow_links(false);
            for e in walk {
                match e {
                    Ok(e) if e.file_type().is_dir() => {
                        let _ = std::fs::set_permissions(
                            e.path(),
                            std::fs::Permissions::from_mode(0o700),
                        );
                    }
                    Ok(_) => {}
                    Err(_) => locked = true,
                }
            }
            if !locked {
                break;
            }
        }
    }
}

impl Prepared {
    /// Where the process's Landlock ruleset grants access, as a JSON list (see
    /// `Grants::roots` in the rules module); `None` without one.
    pub fn landlock_roots(&self) -> Option<String> {
        self.ruleset.as_ref()?;
        serde_json::to_string(&self.grants.roots()).ok()
    }

    fn mounts(&self) -> child::Mounts {
        let read_only_of = |p: &PathBuf| {
            let path = cstring(p)?;
            let keep_flags = child::locked_flags(&path);
            Some(child::ReadOnly { path, keep_flags })
        };
        let read_only = self.git_folders.iter().filter_map(read_only_of).collect();
        let protected = self.protected.iter().filter_map(read_only_of).collect();
        let protected_dirs = self
            .protected_dirs
            .iter()
            .filter_map(|d| cstring(d))
            .collect();
        let overlays = self
            .caches
            .iter()
            .filter_map(|(target, upper, work)| {
                // overlayfs splits its options at commas and colons.
                let plain = |p: &Path| !p.to_string_lossy().contains([',', ':', '\\']);
                let options = (plain(target) && plain(upper) && plain(work)).then(|| {
                    format!(
                        "lowerdir={},upperdir={},workdir={}",
                        target.display(),
                        upper.display(),
                        work.display()
                    )
                });
                let t = cstring(target)?;
                let keep_flags = child::locked_flags(&t);
                Some(child::Overlay {
                    target: t,
                    options: options.and_then(|o| {
                        Some((
                            std::ffi::CString::new(o.clone()).ok()?,
                            std::ffi::CString::new(format!("{o},userxattr")).ok()?,
                        ))
                    }),
                    keep_flags,
                })
            })
            .collect();
        // Gradle's user properties often hold publishing and signing credentials.
        let masked = self
            .caches
            .iter()
            .map(|(c, _, _)| c.join("gradle.properties"))
            .filter(|p| p.is_file())
            .filter_map(|p| cstring(&p))
            .collect();
        let covered = self
            .git_configs
            .iter()
            .filter_map(|(copy, file)| Some((cstring(copy)?, cstring(file)?)))
            .collect();
        let views = self
            .views
            .iter()
            .zip(&self.git_folders)
            .filter_map(|(v, g)| Some((cstring(v)?, cstring(g)?)))
            .collect();
        // The sealed oracle: the workspace read-only and noexec, the private temporary
        // folder (its HOME inside) noexec; the caches' overlays follow (child::Mounts).
        let no_exec = if self.sealed {
            [
                (&self.workspace, true),
                (&self.tmp.path().to_path_buf(), false),
            ]
            .into_iter()
            .filter_map(|(p, read_only)| {
                let path = cstring(&canonical(p))?;
                let keep_flags = child::locked_flags(&path);
                Some(child::NoExec {
                    path,
                    read_only,
                    keep_flags,
                })
            })
            .collect()
        } else {
            Vec::new()
        };
        child::Mounts {
            views,
            read_only,
            protected,
            protected_dirs,
            shm: true,
            overlays,
            masked,
            covered,
            no_exec,
        }
    }

    /// Lets this process alone read `paths` although the run hides them (an `external`
    /// judge's reference): the ruleset is made again with them granted.
    pub fn grant_read(&mut self, paths: &[PathBuf]) {
        if paths.is_empty() || self.ruleset.is_none() {
            return;
        }
        self.grants
            .readable
            .extend(paths.iter().map(|p| canonical(p)));
        let (ruleset, landlock) = match rules::ruleset(&self.grants, &self.hidden) {
            Ok((fd, abi)) => (Some(fd), Ok(abi)),
            Err(why) => (None, Err(why)),
        };
        self.ruleset = ruleset;
        self.landlock = landlock;
    }

    /// Without a mount namespace there is no overlay: the caches become read-only (nothing
    /// planted survives, nothing can be added) and `/dev/shm` is not granted at all.
    fn rebuild_without_namespaces(&mut self) {
        // No PID namespace to kill what is left: orphans of subject processes come to
        // judge-ci instead, which kills them (see reaper). Before the process starts.
        reaper::become_subreaper();
        let caches: Vec<PathBuf> = self.caches.iter().map(|(c, _, _)| c.clone()).collect();
        self.grants.writable.retain(|w| !caches.contains(w));
        self.grants.readable.extend(caches);
        self.grants.private_shm = false;
        let (ruleset, landlock) = match rules::ruleset(&self.grants, &self.hidden) {
            Ok((fd, abi)) => (Some(fd), Ok(abi)),
            Err(why) => (None, Err(why)),
        };
        self.ruleset = ruleset;
        self.landlock = landlock;
    }

    /// The required layers that apply to this process: `sealed-oracle` only to the sealed
    /// oracle's.
    fn applying(&self) -> impl Iterator<Item = &Layer> {
        self.required
            .iter()
            .filter(|l| self.sealed || **l != Layer::SealedOracle)
    }

    fn required_bits(&self) -> u32 {
        self.applying().fold(0, |b, l| match l {
            Layer::HiddenReference => b | self.exposure_bits(),
            _ => b | l.child_bits(),
        })
    }

    /// The child's bits that keep the reference from this process: none without a
    /// reference, Landlock for a hidden folder, and the copy over `.git` when its objects
    /// are there; one the child never reports where nothing can (inside the workspace).
    fn exposure_bits(&self) -> u32 {
        use reference::Exposure;
        match &self.exposure {
            Exposure::NoReference => 0,
            Exposure::Hidden => child::held::LANDLOCK,
            Exposure::ThroughGit { no_copy: None, .. } if !self.views.is_empty() => {
                child::held::LANDLOCK | child::held::GIT_VIEW
            }
            Exposure::InsideWorkspace(_) | Exposure::ThroughGit { .. } | Exposure::CopiedIn(_) => {
                child::held::NEVER
            }
        }
    }

    /// Installs the fence on `cmd` (runs in the child between fork and exec).
    pub fn apply(&self, cmd: &mut tokio::process::Command) {
        let plan = child::Plan::new(
            self.ruleset.as_ref().map(std::os::fd::AsRawFd::as_raw_fd),
            self.namespaces,
            self.network_cut,
            self.mounts(),
            self.report
                .as_ref()
                .map(|(_, w)| std::os::fd::AsRawFd::as_raw_fd(w)),
            self.required_bits(),
            self.landlock
                .as_ref()
                .map_or(0, |abi| rules::writable_bits(*abi)),
        )
        .hiding_proc(self.sealed)
        .denying_inet(self.sealed && !self.namespaces);
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

    /// The layers the child reported (what it wrote to the report pipe before exec or
    /// before it refused to start).
    pub(crate) fn reported(&self) -> Option<u32> {
        let (read, _) = self.report.as_ref()?;
        let mut buf = [0u8; 4];
        // SAFETY: a non-blocking read into a stack buffer.
        let n = unsafe {
            libc::read(
                std::os::fd::AsRawFd::as_raw_fd(read),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        };
        if n == 4 {
            let held = u32::from_ne_bytes(buf);
            if let Ok(mut last) = self.last_report.lock() {
                *last = Some(held);
            }
            Some(held)
        } else {
            self.last_report.lock().ok().and_then(|l| *l)
        }
    }

    /// After a spawn failed: whether it failed because a required layer did not hold.
    pub fn refused_now(&self) -> bool {
        self.required_bits() != 0 && self.refused().is_some()
    }

    pub(crate) fn status(&self, mut held: u32) -> Status {
        if !self.namespaces && self.landlock.is_ok() {
            // Landlock made the caches read-only (see rebuild_without_namespaces).
            held |= child::held::CACHE_READ_ONLY;
        }
        Status {
            no_new_privs: true,
            landlock: self.landlock.clone(),
            pid_namespace: if self.namespaces {
                Ok(())
            } else {
                Err(self.namespace_why.clone())
            },
            network_cut: self.network_cut,
            held,
            home_hidden: self.home_hidden,
            reference: self.exposure.clone(),
            tools: self.tools.granted.clone(),
            refused_tools: self.tools.refused.clone(),
        }
    }

    /// After a spawn failed: the refusal when it failed because a required layer did not
    /// hold (the child reported its layers, then refused to exec).
    pub fn refused(&self) -> Option<FenceError> {
        let required = self.required_bits();
        if required == 0 {
            return None;
        }
        // Nothing reported: the child failed before (no namespaces here, say).
        let held = self.reported()?;
        let status = self.status(held);
        let missing: Vec<&str> = self
            .applying()
            .filter(|l| !status.holds(**l))
            .map(|l| l.name())
            .collect();
        if missing.is_empty() {
            return None;
        }
        Some(FenceError::Required {
            missing: missing.join(", "),
            line: status.line(),
        })
    }

    /// After a spawn with namespaces failed: the same fence without them, or the refusal
    /// when the config needs them.
    pub fn without_namespaces(mut self) -> Result<Prepared, FenceError> {
        if self.sealed {
            // No network namespace: internet sockets are refused instead (seccomp).
            self.network_cut = false;
        }
        if self.network_cut {
            return Err(FenceError::NoNetworkNamespace(
                "the kernel refused to make one".to_string(),
            ));
        }
        self.namespaces = false;
        self.rebuild_without_namespaces();
        Ok(self)
    }
}
