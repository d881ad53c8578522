//! A fence inside the fence, for the subject code an `external` judge runs
//! (`judge-ci fence-exec -- CMD…`, docs/gates.md). The judge and the code it starts share a
//! user and judge-ci's fence; without more, that code can reach the judge: reopen its answer
//! descriptor through `/proc/<judge>/fd/3`, take it with `pidfd_getfd`, write the judge's
//! memory through `/proc/<judge>/mem` or `ptrace`, kill it, rewrite the files the judge keeps
//! in its temporary folder or home, read the context judge-ci wrote on the judge's standard
//! input, or leave a process behind that changes them once `fence-exec` has returned (attack
//! findings F1b, F1c, G10-3, G10-4, G10-20). Here the code gets:
//!
//! - no descriptor above standard error (the answer channel above all), and standard input
//!   from `/dev/null` unless the judge asks to hand its own on (`--stdin`);
//! - a Landlock domain nested in the judge's: Landlock denies every ptrace-mode access from a
//!   domain to a process outside it (`/proc/<pid>/fd`, `mem`, `environ`, `pidfd_getfd`,
//!   `process_vm_writev`, `ptrace`) since its first ABI, and from ABI 6 every signal to one.
//!   The new domain grants every file access beneath `/` (the outer domain still applies)
//!   *except* beneath the judge's own folders ([`JudgeFolders`]): its temporary folder and
//!   home, `/dev/shm`, the reference and the metadata file judge-ci gave it. The code gets a
//!   temporary folder and home of its own instead, removed when it ends;
//! - a parent that outlives it: `fence-exec` stays outside the new domain as the reaper of
//!   every process the code starts (`PR_SET_CHILD_SUBREAPER`), and when the command ends it
//!   kills every one still alive before it returns, so nothing of the subject runs beside the
//!   judge once the judge has the exit status.
//!
//! Without Landlock the nesting cannot be made, and the command is not run: a judge that
//! asked for the fence is never given less without knowing.

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

/// What the nested fence holds once made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nested {
    /// The kernel's Landlock ABI.
    pub abi: i32,
    /// Whether signals to processes outside the new domain are refused (ABI 6 and later).
    pub signals_scoped: bool,
}

/// Why the nested fence could not be made (`fence-exec` then runs nothing).
#[derive(Debug, thiserror::Error)]
pub enum NestError {
    /// The kernel has no Landlock.
    #[error(
        "Landlock is not available on this kernel, so the code cannot be fenced apart from its judge"
    )]
    Unavailable,
    /// The kernel refused the ruleset or a rule.
    #[error("{0}")]
    Ruleset(#[from] landlock::RulesetError),
    /// The kernel made the ruleset but holds none of it (no descriptor).
    #[error("the kernel did not enforce the nested Landlock domain")]
    NotEnforced,
}

/// The folders of the judge that the code it runs must neither read nor write, taken from
/// the judge's environment when `fence-exec` starts: `TMPDIR`, `HOME`, `/dev/shm`, and what
/// judge-ci handed the judge alone (`JUDGE_REFERENCE`, `JUDGE_METADATA`). Each exists and is
/// canonical; `/` is never one (a `HOME=/` would hide everything), nor a folder inside the
/// workspace (`JUDGE_WORKSPACE`): the workspace is the code's, and a reference kept there is
/// not hidden from it by any fence (the report's fence line says so).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JudgeFolders(pub Vec<PathBuf>);

impl JudgeFolders {
    /// The judge's folders named by `var` (the process environment in `fence-exec`).
    pub fn from_env(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> JudgeFolders {
        let mut out: Vec<PathBuf> = Vec::new();
        let workspace = var("JUDGE_WORKSPACE")
            .filter(|s| !s.is_empty())
            .and_then(|w| std::fs::canonicalize(w).ok());
        let named = ["TMPDIR", "HOME", "JUDGE_REFERENCE", "JUDGE_METADATA"]
            .into_iter()
            .filter_map(|v| var(v).filter(|s| !s.is_empty()).map(PathBuf::from))
            .chain([PathBuf::from("/dev/shm")]);
        for p in named {
            if let Ok(c) = std::fs::canonicalize(&p)
                && c != Path::new("/")
                && !workspace.as_ref().is_some_and(|w| c.starts_with(w))
                && !out.contains(&c)
            {
                out.push(c);
            }
        }
        JudgeFolders(out)
    }
}

/// The nested domain, made in `fence-exec` before it forks; [`Prepared::enter`] puts the
/// child in it.
#[derive(Debug)]
pub struct Prepared {
    ruleset: OwnedFd,
    /// What the domain holds.
    pub nested: Nested,
}

/// Makes the nested domain: every file access beneath each of `roots` (the judge's fence's,
/// [`fence_roots`]) except beneath `judge`'s folders, and beneath each of `granted` except the
/// judge's folders inside it (the code's private folder, which lies in the judge's temporary
/// folder; the workspace; the folder it runs in). A `granted` folder that is one of the
/// judge's is left out.
pub fn prepare(
    roots: &[PathBuf],
    judge: &JudgeFolders,
    granted: &[PathBuf],
) -> Result<Prepared, NestError> {
    let abi = super::rules::kernel_abi();
    if abi < 1 {
        return Err(NestError::Unavailable);
    }
    let fail = NestError::from;
    let handled = AccessFs::from_all(ABI::V6);
    let mut rs = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(handled)
        .map_err(fail)?;
    let signals_scoped = abi >= 6;
    if signals_scoped {
        rs = rs.scope(Scope::from_all(ABI::V6)).map_err(fail)?;
    }
    let mut rules = Vec::new();
    for r in roots {
        if let Ok(c) = std::fs::canonicalize(r) {
            grant_except(&c, &judge.0, false, &mut rules);
        }
    }
    for g in granted {
        if let Ok(c) = std::fs::canonicalize(g) {
            grant_except(&c, &judge.0, true, &mut rules);
        }
    }
    let mut created = rs.create().map_err(fail)?;
    for root in rules {
        // A path the judge's own fence does not let it open is out of reach anyway.
        let Ok(fd) = PathFd::new(&root) else { continue };
        let access = super::rules::rights_at(&root, handled);
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(fail)?;
    }
    let Some(ruleset) = Option::<OwnedFd>::from(created) else {
        return Err(NestError::NotEnforced);
    };
    Ok(Prepared {
        ruleset,
        nested: Nested {
            abi,
            signals_scoped,
        },
    })
}

/// Adds to `roots` what grants everything beneath `dir` except beneath `excluded`: `dir`
/// itself when no excluded folder lies inside it, else each of its entries that is not one,
/// walked the same way (links are left out: access through one is decided where it leads; a
/// folder that cannot be listed gets nothing). `dir` inside an excluded folder is left out
/// unless `inside_ok` (a folder granted on purpose, as the code's private one).
fn grant_except(dir: &Path, excluded: &[PathBuf], inside_ok: bool, roots: &mut Vec<PathBuf>) {
    let hidden = |e: &PathBuf| {
        if inside_ok {
            e == dir
        } else {
            dir.starts_with(e)
        }
    };
    if excluded.iter().any(hidden) {
        return;
    }
    if excluded.iter().any(|e| e.starts_with(dir)) {
        super::rules::read_roots(dir, excluded, roots);
    } else {
        roots.push(dir.to_path_buf());
    }
}

/// Where the judge's own fence grants access (`JUDGE_CI_FENCE_ROOTS`, a JSON list judge-ci
/// gives every fenced process: its fence may not let it list `/`), or `/` outside one.
pub fn fence_roots(var: Option<std::ffi::OsString>) -> Vec<PathBuf> {
    var.and_then(|v| serde_json::from_str::<Vec<PathBuf>>(v.to_str()?).ok())
        .unwrap_or_else(|| vec![PathBuf::from("/")])
}

impl Prepared {
    /// Puts the calling process (the child about to exec the command) in the nested domain
    /// and marks every descriptor above standard error close-on-exec. Only system calls: it
    /// runs between fork and exec.
    pub fn enter(&self) -> std::io::Result<()> {
        super::child::close_on_exec_above_stderr()?;
        // SAFETY: prctl and landlock_restrict_self with integer arguments.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::syscall(
                    libc::SYS_landlock_restrict_self,
                    self.ruleset.as_raw_fd(),
                    0u32,
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }
}

/// Makes this process the reaper of every process its children leave behind
/// (`PR_SET_CHILD_SUBREAPER`), so that none escapes [`kill_descendants`] by a double fork.
pub fn become_reaper() -> std::io::Result<()> {
    // SAFETY: prctl with integer arguments.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Kills every child of this process (with [`become_reaper`], every descendant: an orphan
/// becomes a child as its parent dies) and reaps them, until none is left. Returns how many
/// it killed.
pub fn kill_descendants() -> usize {
    let me = std::process::id() as i32;
    let mut killed = 0;
    loop {
        for p in super::reaper::children(me) {
            // SAFETY: kill on a child of this process.
            if unsafe { libc::kill(p, libc::SIGKILL) } == 0 {
                killed += 1;
            }
        }
        let mut st = 0;
        // SAFETY: waitpid on this process's children; an orphan is re-parented here
        // before its dead parent can be reaped, so the next round sees it.
        let r = unsafe { libc::waitpid(-1, &mut st, 0) };
        if r < 0 {
            match std::io::Error::last_os_error().raw_os_error() {
                Some(libc::EINTR) => continue,
                _ => return killed,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_beneath_root_is_granted_but_the_judges_folders() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        for d in ["a/keep", "a/judge/inner", "b"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("a/file"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("a/judge"), root.join("a/link")).unwrap();
        let excluded = vec![root.join("a/judge")];
        let mut roots = Vec::new();
        grant_except(&root, &excluded, false, &mut roots);
        roots.sort();
        assert_eq!(
            roots,
            vec![root.join("a/file"), root.join("a/keep"), root.join("b")],
            "the link to the judge's folder is not followed"
        );
        // A folder granted inside an excluded one: only it, and not what is excluded in it.
        let mut roots = Vec::new();
        grant_except(&root.join("a/judge/inner"), &excluded, true, &mut roots);
        assert_eq!(roots, vec![root.join("a/judge/inner")]);
        // ... but not as one of the judge's fence's roots, nor the excluded folder itself.
        let mut roots = Vec::new();
        grant_except(&root.join("a/judge/inner"), &excluded, false, &mut roots);
        grant_except(&root.join("a/judge"), &excluded, true, &mut roots);
        assert!(roots.is_empty());
    }

    #[test]
    fn the_judges_folders_come_from_its_environment_and_never_include_root() {
        let t = tempfile::tempdir().unwrap();
        let tmp = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(tmp.join("ws/ref")).unwrap();
        let f = JudgeFolders::from_env(|v| match v {
            "TMPDIR" => Some(tmp.clone().into()),
            "JUDGE_WORKSPACE" => Some(tmp.join("ws").into()),
            "JUDGE_METADATA" => Some(tmp.join("ws/ref").into()),
            "HOME" => Some("/".into()),
            "JUDGE_REFERENCE" => Some("".into()),
            _ => None,
        });
        assert!(f.0.contains(&tmp));
        assert!(!f.0.contains(&PathBuf::from("/")));
        assert!(!f.0.contains(&tmp.join("ws/ref")), "inside the workspace");
        assert_eq!(f.0.len(), 1 + usize::from(Path::new("/dev/shm").exists()));
    }
}
