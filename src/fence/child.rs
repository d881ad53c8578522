//! The child's side of the fence, between fork and exec. Only system calls on data prepared
//! before the fork: no allocation, no lock (the parent is multi-threaded).
//!
//! With namespaces the child unshares a PID and a mount namespace (and a user namespace when
//! not root, a network namespace for `sandbox: {network: false}`), then forks once more: the
//! grandchild is PID 1 of the new namespace, mounts a `/proc` of its own, enters Landlock and
//! execs the program; the child stays outside, closes every descriptor, waits for it and
//! exits as it did. When PID 1 ends, or the child is killed (the grandchild dies with it),
//! the kernel kills every process left in the namespace.

use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;

/// What to do in the child, prepared before the fork.
#[derive(Debug)]
pub struct Plan {
    ruleset: Option<RawFd>,
    namespaces: bool,
    network_cut: bool,
    user_namespace: bool,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Writes `bytes` to `path` with raw system calls.
fn write_file(path: &CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: plain system calls on a valid C string and buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let err = io::Error::last_os_error();
        libc::close(fd);
        if n < 0 || n as usize != bytes.len() {
            return Err(err);
        }
    }
    Ok(())
}

/// `struct landlock_path_beneath_attr` of the kernel's UAPI.
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: RawFd,
}

/// Execute, read file, read directory: what every folder outside the writable roots gets.
const LANDLOCK_READ: u64 = (1 << 0) | (1 << 2) | (1 << 3);

/// Grants read access beneath the `/proc` mounted in the namespace (a new file system the
/// rules made before the fork cannot name).
fn allow_proc(ruleset: RawFd) -> io::Result<()> {
    // SAFETY: open, the landlock_add_rule system call on a stack value, close.
    unsafe {
        let fd = libc::open(c"/proc".as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let attr = PathBeneathAttr {
            allowed_access: LANDLOCK_READ,
            parent_fd: fd,
        };
        let r = libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            1u32, // LANDLOCK_RULE_PATH_BENEATH
            &attr as *const PathBeneathAttr,
            0u32,
        );
        let err = io::Error::last_os_error();
        libc::close(fd);
        if r < 0 {
            return Err(err);
        }
    }
    Ok(())
}

/// Brings the loopback interface of a new network namespace up (best effort).
fn loopback_up() {
    // SAFETY: an ioctl on a fresh socket with a zeroed, then filled, ifreq.
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return;
        }
        let mut req: libc::ifreq = std::mem::zeroed();
        req.ifr_name[0] = b'l' as libc::c_char;
        req.ifr_name[1] = b'o' as libc::c_char;
        if libc::ioctl(s, libc::SIOCGIFFLAGS, &mut req) == 0 {
            req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(s, libc::SIOCSIFFLAGS, &mut req);
        }
        libc::close(s);
    }
}

/// Marks every descriptor above standard error close-on-exec, so the subject's program
/// starts with standard input, output and error only, whatever judge-ci or a library it
/// links holds open without `O_CLOEXEC` (the redacted streams' originals, a log file, a
/// socket). Descriptors still needed before exec (the Landlock ruleset, std's error pipe)
/// stay usable until then.
fn close_on_exec_above_stderr() -> io::Result<()> {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: system calls on integers.
    unsafe {
        let r = libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, CLOSE_RANGE_CLOEXEC);
        if r == 0 {
            return Ok(());
        }
        // Kernels before 5.11: every descriptor below the limit, one by one.
        let mut lim: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return Err(io::Error::last_os_error());
        }
        let top = lim.rlim_cur.min(1 << 20) as libc::c_int;
        for fd in 3..top {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 && flags & libc::FD_CLOEXEC == 0 {
                check(libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC))?;
            }
        }
    }
    Ok(())
}

/// The child outside the namespace: waits for PID 1 and exits as it did. Never returns.
fn wait_and_mirror(pid: libc::pid_t) -> ! {
    // SAFETY: system calls only; _exit never returns.
    unsafe {
        // Every descriptor, the pipe std reports exec errors through included: only the
        // grandchild's exec may close that one.
        libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32);
        let mut status = 0;
        loop {
            let r = libc::waitpid(pid, &mut status, 0);
            if r == pid {
                break;
            }
            if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(125);
            }
        }
        if libc::WIFEXITED(status) {
            libc::_exit(libc::WEXITSTATUS(status));
        }
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
            libc::_exit(128 + sig);
        }
        libc::_exit(125)
    }
}

impl Plan {
    /// A plan for a process; `ruleset` stays open in the parent until the spawn returns.
    pub fn new(ruleset: Option<RawFd>, namespaces: bool, network_cut: bool) -> Plan {
        // SAFETY: getters without side effects.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Plan {
            ruleset,
            namespaces,
            network_cut,
            user_namespace: uid != 0,
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
        }
    }

    /// Runs in the child between fork and exec. An error makes the spawn fail in the parent
    /// (which retries without namespaces, or reports it).
    pub fn enter(&self) -> io::Result<()> {
        // SAFETY: system calls on data prepared before the fork.
        unsafe {
            close_on_exec_above_stderr()?;
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
            if self.namespaces {
                let mut flags = libc::CLONE_NEWPID | libc::CLONE_NEWNS;
                if self.user_namespace {
                    flags |= libc::CLONE_NEWUSER;
                }
                if self.network_cut {
                    flags |= libc::CLONE_NEWNET;
                }
                check(libc::unshare(flags))?;
                if self.user_namespace {
                    // judge-ci is not dumpable, which makes /proc/self root's; the maps can
                    // be written only by the process itself once it is dumpable again (no
                    // subject process can see it: each runs in a PID namespace of its own).
                    check(libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0))?;
                    // "deny" first: an unprivileged process may map its group only then.
                    let _ = write_file(c"/proc/self/setgroups", b"deny");
                    write_file(c"/proc/self/uid_map", &self.uid_map)?;
                    write_file(c"/proc/self/gid_map", &self.gid_map)?;
                    check(libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0))?;
                }
                // Mounts made in here stay in here.
                check(libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ))?;
                let pid = libc::fork();
                if pid < 0 {
                    return Err(io::Error::last_os_error());
                }
                if pid > 0 {
                    wait_and_mirror(pid);
                }
                // PID 1 of the new namespace: dies with the child outside.
                check(libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGKILL as libc::c_ulong,
                    0,
                    0,
                    0,
                ))?;
                // A /proc that shows only this namespace's processes.
                check(libc::mount(
                    c"proc".as_ptr(),
                    c"/proc".as_ptr(),
                    c"proc".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    std::ptr::null(),
                ))?;
                if self.network_cut {
                    loopback_up();
                }
                if let Some(fd) = self.ruleset {
                    allow_proc(fd)?;
                }
            }
            if let Some(fd) = self.ruleset {
                let r = libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32);
                if r < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }
}
