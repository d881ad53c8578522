//! A fence inside the fence, for the subject code an `external` judge runs
//! (`judge-ci fence-exec -- CMD…`, docs/gates.md). The judge and the code it starts share a
//! user and judge-ci's fence; without more, that code can reach the judge: reopen its answer
//! descriptor through `/proc/<judge>/fd/3`, take it with `pidfd_getfd`, write the judge's
//! memory through `/proc/<judge>/mem` or `ptrace`, or kill it. Here the code gets:
//!
//! - no descriptor above standard error (the answer channel above all), and
//! - a Landlock domain nested in the judge's: Landlock denies every ptrace-mode access from a
//!   domain to a process outside it (`/proc/<pid>/fd`, `mem`, `environ`, `pidfd_getfd`,
//!   `process_vm_writev`, `ptrace`) since its first ABI, and from ABI 6 every signal to one.
//!   The new domain restricts no file access beyond the judge's own (it grants all of it
//!   beneath `/`; the outer domain still applies).
//!
//! Without Landlock the nesting cannot be made, and the command is not run: a judge that
//! asked for the fence is never given less without knowing.

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope,
};

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
    /// The descriptors above standard error could not be listed to close them.
    #[error("cannot list this process's descriptors: {0}")]
    Descriptors(#[source] std::io::Error),
    /// The kernel has no Landlock.
    #[error(
        "Landlock is not available on this kernel, so the code cannot be fenced apart from its judge"
    )]
    Unavailable,
    /// The kernel refused the ruleset or a rule.
    #[error("{0}")]
    Ruleset(#[from] landlock::RulesetError),
    /// `/` could not be opened for the rule beneath it.
    #[error("cannot open / for the nested fence: {0}")]
    Root(#[source] landlock::PathFdError),
    /// The kernel made the domain but does not enforce it.
    #[error("the kernel did not enforce the nested Landlock domain")]
    NotEnforced,
}

/// Closes every descriptor above standard error and puts the calling process (and what it
/// execs and starts) in a Landlock domain nested in its current one. Call it in the process
/// about to exec the subject's command, before any other thread exists.
pub fn enter() -> Result<Nested, NestError> {
    close_above_stderr()?;
    let abi = super::rules::kernel_abi();
    if abi < 1 {
        return Err(NestError::Unavailable);
    }
    let fail = NestError::from;
    // Handling the first ABI's rights and granting them all beneath `/` restricts nothing the
    // outer domain allows; the domain exists for its boundary.
    let handled = AccessFs::from_all(ABI::V1);
    let mut rs = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(handled)
        .map_err(fail)?;
    let signals_scoped = abi >= 6;
    if signals_scoped {
        rs = rs.scope(Scope::from_all(ABI::V6)).map_err(fail)?;
    }
    let root = PathFd::new("/").map_err(NestError::Root)?;
    let status = rs
        .create()
        .map_err(fail)?
        .add_rule(PathBeneath::new(root, handled))
        .map_err(fail)?
        .restrict_self()
        .map_err(fail)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(NestError::NotEnforced);
    }
    Ok(Nested {
        abi,
        signals_scoped,
    })
}

/// Closes descriptors 3 and up (`close_range`, or one by one from `/proc/self/fd` on a
/// kernel without it).
fn close_above_stderr() -> Result<(), NestError> {
    // SAFETY: closes descriptors of this process only; nothing else of it uses them (the
    // caller execs next).
    let r = unsafe { libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) };
    if r == 0 {
        return Ok(());
    }
    let fds: Vec<i32> = std::fs::read_dir("/proc/self/fd")
        .map_err(NestError::Descriptors)?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|fd| *fd > 2)
        .collect();
    for fd in fds {
        // SAFETY: as above; a descriptor already closed (the listing's own) gives EBADF.
        unsafe {
            libc::close(fd);
        }
    }
    Ok(())
}
