//! No subject process outlives its step (trust.md point 15), also where no PID namespace can
//! be made.
//!
//! With a PID namespace the kernel kills every process left in it when its PID 1 ends, and
//! PID 1 ends with judge-ci however judge-ci ends: the child outside the namespace that waits
//! for it also watches a *lifeline*, a pipe whose write end only judge-ci holds, and kills
//! PID 1 when the pipe closes (judge-ci killed with SIGKILL, or by the OOM killer; attack
//! finding F14).
//!
//! Without one (a runner that forbids user namespaces), judge-ci makes itself a child
//! subreaper: a subject process that leaves its process group and its parent (`setsid` and a
//! double fork; attack finding F5) becomes judge-ci's child instead of init's. After each step
//! (when no other subject process is running) and before the report is written, [`sweep`]
//! kills every such orphan, again and again until none is left, and counts what it killed
//! and what it could not. An orphan is recognised as a subject process by the seccomp filter
//! the fence installs (more filters than judge-ci's own, which no process can shed), so
//! programs judge-ci itself runs are never touched; the subject processes judge-ci is still
//! waiting for are registered ([`spawning`]) and skipped.

use std::collections::HashSet;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Subject processes judge-ci started and has not yet waited for.
static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());
static SUBREAPER: AtomicBool = AtomicBool::new(false);
static KILLED: AtomicUsize = AtomicUsize::new(0);
static SURVIVED: AtomicUsize = AtomicUsize::new(0);

fn live() -> MutexGuard<'static, Vec<i32>> {
    match LIVE.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// The lifeline's read end (inherited by every fork of judge-ci, close-on-exec; the write
/// end is never closed while judge-ci lives), or `None` when no pipe could be made.
pub fn lifeline() -> Option<RawFd> {
    static PIPE: OnceLock<Option<(OwnedFd, OwnedFd)>> = OnceLock::new();
    PIPE.get_or_init(|| nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).ok())
        .as_ref()
        .map(|(read, _)| read.as_raw_fd())
}

/// Makes judge-ci the reaper of its subject processes' orphans (once; called when a process
/// starts without a PID namespace). False when the kernel refused.
pub fn become_subreaper() -> bool {
    if SUBREAPER.load(Ordering::Relaxed) {
        return true;
    }
    // SAFETY: prctl with integer arguments.
    let ok = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0;
    if ok {
        SUBREAPER.store(true, Ordering::Relaxed);
    }
    ok
}

/// Whether judge-ci reaps its subject processes' orphans.
pub fn is_subreaper() -> bool {
    SUBREAPER.load(Ordering::Relaxed)
}

/// Held while a subject process is spawned, so that a [`sweep`] of another step cannot take
/// it for an orphan before it is registered.
pub struct Spawning(MutexGuard<'static, Vec<i32>>);

/// Starts registering a spawn (see [`Spawning`]).
pub fn spawning() -> Spawning {
    Spawning(live())
}

impl Spawning {
    /// Registers the spawned subject process `pid` as one judge-ci waits for, until the
    /// returned guard is dropped (after judge-ci waited for it).
    pub fn register(mut self, pid: Option<u32>) -> Running {
        let pid = pid.and_then(|p| i32::try_from(p).ok());
        if let Some(p) = pid {
            self.0.push(p);
        }
        Running(pid)
    }
}

/// A registered subject process; dropping it says judge-ci has waited for it: when no other
/// one is running, the orphans are swept (see [`sweep`]).
pub struct Running(Option<i32>);

impl Drop for Running {
    fn drop(&mut self) {
        let mut l = live();
        if let Some(p) = self.0 {
            l.retain(|x| *x != p);
        }
        if l.is_empty() && is_subreaper() {
            sweep_locked(&l);
        }
    }
}

/// What the sweeps of this judge-ci process found so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swept {
    /// Orphaned subject processes killed.
    pub killed: usize,
    /// Orphaned subject processes still alive after the last sweep.
    pub survived: usize,
}

/// Kills every orphaned subject process (see the module's documentation), until none is
/// left or a bound of rounds is reached; returns the totals so far. Does nothing unless
/// judge-ci is a subreaper.
pub fn sweep() -> Swept {
    if is_subreaper() {
        let l = live();
        sweep_locked(&l);
    }
    totals()
}

/// The totals of every sweep so far.
pub fn totals() -> Swept {
    Swept {
        killed: KILLED.load(Ordering::Relaxed),
        survived: SURVIVED.load(Ordering::Relaxed),
    }
}

fn sweep_locked(live: &[i32]) {
    let me = std::process::id() as i32;
    let Some(own) = seccomp_filters(me) else {
        return;
    };
    let live: HashSet<i32> = live.iter().copied().collect();
    let mut left = 0;
    for _round in 0..200 {
        let orphans: Vec<i32> = children(me)
            .into_iter()
            .filter(|p| !live.contains(p))
            .filter(|p| seccomp_filters(*p).is_some_and(|n| n > own))
            .collect();
        left = orphans.len();
        if orphans.is_empty() {
            break;
        }
        for p in orphans {
            // SAFETY: kill and waitpid on a child of this process.
            unsafe {
                if libc::kill(p, libc::SIGKILL) == 0 {
                    KILLED.fetch_add(1, Ordering::Relaxed);
                }
                for _ in 0..50 {
                    let mut st = 0;
                    if libc::waitpid(p, &mut st, libc::WNOHANG) != 0 {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            }
        }
    }
    SURVIVED.store(left, Ordering::Relaxed);
}

/// The processes whose parent is `parent` (from `/proc/<pid>/stat`).
pub(crate) fn children(parent: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    // "pid (comm) state ppid …": comm may hold spaces and parentheses.
                    let rest = &s[s.rfind(')')? + 1..];
                    rest.split_whitespace().nth(1)?.parse::<i32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// The number of seccomp filters of process `pid` (`Seccomp_filters:` of its status; Linux
/// 5.9), or `None` when it cannot be read.
fn seccomp_filters(pid: i32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Seccomp_filters:"))
        .and_then(|v| v.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_children_of_a_process_are_found_and_judge_cis_own_filters_counted() {
        let mut c = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep");
        let me = std::process::id() as i32;
        assert!(children(me).contains(&(c.id() as i32)));
        assert!(seccomp_filters(me).is_some(), "Linux 5.9 or later");
        c.kill().expect("kill");
        c.wait().expect("wait");
    }
}
