//! The child's side of the fence, between fork and exec. Only system calls on data prepared
//! before the fork: no allocation, no lock (the parent is multi-threaded).
//!
//! With namespaces the child unshares a PID and a mount namespace (and a user namespace when
//! not root, a network namespace for `sandbox: {network: false}`), then forks once more: the
//! grandchild is PID 1 of the new namespace, mounts a `/proc` of its own, enters Landlock and
//! execs the program; the child stays outside, closes every descriptor, waits for it and
//! exits as it did. When PID 1 ends, or the child is killed (the grandchild dies with it),
//! the kernel kills every process left in the namespace.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::RawFd;

/// The layers the child reports as held (a bit each), written to the report pipe just
/// before exec.
pub mod held {
    /// A PID and mount namespace with its own `/proc`.
    pub const NAMESPACES: u32 = 1 << 0;
    /// The Landlock ruleset was enforced.
    pub const LANDLOCK: u32 = 1 << 1;
    /// Every capability dropped (bounding set included for root).
    pub const CAPABILITIES: u32 = 1 << 2;
    /// The seccomp filter (no unix sockets, no io_uring, no key rings) was installed.
    pub const SECCOMP: u32 = 1 << 3;
    /// Every git folder of the workspace is mounted read-only.
    pub const GIT_READ_ONLY: u32 = 1 << 4;
    /// `/dev/shm` is a tmpfs of the subject's own.
    pub const PRIVATE_SHM: u32 = 1 << 5;
    /// Every build cache is an overlay whose writes are discarded with the run.
    pub const CACHE_OVERLAY: u32 = 1 << 6;
    /// Every build cache is at least read-only (overlay or read-only bind).
    pub const CACHE_READ_ONLY: u32 = 1 << 7;
    /// The copy with HEAD's objects alone covers every git folder of the workspace (the
    /// reference's objects are out of reach through git).
    pub const GIT_VIEW: u32 = 1 << 8;
    /// Never reported: a required layer that nothing can make hold here (a reference inside
    /// the workspace) asks for it, so that the child refuses to start the program.
    pub const NEVER: u32 = 1 << 31;
    /// judge-ci's test oracle is sealed: every folder it may write (the private temporary
    /// folder, the caches' overlays) and the workspace (read-only) are mounted `noexec`, and
    /// the network is a namespace of its own with only loopback.
    pub const SEALED: u32 = 1 << 9;
    /// Every pinned protected file of the workspace is mounted read-only and every folder
    /// on the way to one is a mount point (so it cannot be moved or replaced).
    pub const PROTECTED_READ_ONLY: u32 = 1 << 10;
}

/// A build cache's per-run view: an overlay on the cache itself whose upper layer lives in
/// the private temporary folder.
#[derive(Debug)]
pub struct Overlay {
    /// The cache folder (overlay target and lower layer).
    pub target: CString,
    /// `lowerdir=…,upperdir=…,workdir=…`, and the same with `userxattr` (needed inside a
    /// user namespace); none when a path cannot be spelled in overlayfs options (a comma,
    /// a colon): the cache is then made read-only.
    pub options: Option<(CString, CString)>,
    /// Flags a read-only remount must keep (locked in a user namespace).
    pub keep_flags: libc::c_ulong,
}

/// A folder to make read-only (a bind mount on itself, remounted read-only).
#[derive(Debug)]
pub struct ReadOnly {
    /// The folder.
    pub path: CString,
    /// Flags the remount must keep (locked in a user namespace).
    pub keep_flags: libc::c_ulong,
}

/// A folder of the sealed test oracle's to bind on itself `noexec` (no file in it can be
/// executed or mapped executable: `mmap(PROT_EXEC)` of it fails, so `System.load` of a
/// library the subject wrote there does), read-only as well when `read_only`.
#[derive(Debug)]
pub struct NoExec {
    /// The folder.
    pub path: CString,
    /// Read-only too (the workspace).
    pub read_only: bool,
    /// Flags the remount must keep (locked in a user namespace).
    pub keep_flags: libc::c_ulong,
}

/// What to do in the child, prepared before the fork.
#[derive(Debug)]
pub struct Plan {
    ruleset: Option<RawFd>,
    namespaces: bool,
    network_cut: bool,
    user_namespace: bool,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// Mounts made in the namespace, before Landlock.
    pub mounts: Mounts,
    seccomp: Option<super::seccomp::Filter>,
    /// Write end of the pipe the held layers are reported on.
    report: Option<RawFd>,
    /// Layers without which the program must not start.
    required: u32,
    /// The Landlock rights of a writable root under the ruleset's ABI.
    writable_access: u64,
    /// The read end of judge-ci's lifeline (see [`super::reaper::lifeline`]).
    lifeline: Option<RawFd>,
    /// The namespace's `/proc` gets no Landlock rule (see `Fence::prepare_sealed`).
    hide_proc: bool,
}

/// The mounts of a fenced process (made only with namespaces).
#[derive(Debug, Default)]
pub struct Mounts {
    /// (a copy of the repository with HEAD's objects alone, the git folder it covers):
    /// bound first, so that the folder's read-only remount and its configuration's cover
    /// apply to the copy.
    pub views: Vec<(CString, CString)>,
    /// Git folders to make read-only.
    pub read_only: Vec<ReadOnly>,
    /// The pinned protected files to make read-only (see [`held::PROTECTED_READ_ONLY`]).
    pub protected: Vec<ReadOnly>,
    /// The folders on the way to them, inside the workspace, each bound on itself so that
    /// renaming or removing it fails (a mount point is busy).
    pub protected_dirs: Vec<CString>,
    /// A private tmpfs on `/dev/shm`.
    pub shm: bool,
    /// Build caches to overlay.
    pub overlays: Vec<Overlay>,
    /// Credential files inside a cache (`~/.gradle/gradle.properties`) covered by
    /// `/dev/null` once the overlays are made.
    pub masked: Vec<CString>,
    /// Files covered by another (a git configuration by its copy without credentials,
    /// [`super::git_guard::without_credentials`]): (the copy, the file), bound before the
    /// git folders are made read-only.
    pub covered: Vec<(CString, CString)>,
    /// The sealed oracle's folders made `noexec` (last, over the mounts above); when not
    /// empty, the caches' overlays (or their read-only binds) are `noexec` too.
    pub no_exec: Vec<NoExec>,
}

/// The flags of the mount holding `path` that a remount must keep (`statvfs`).
pub fn locked_flags(path: &CStr) -> libc::c_ulong {
    // SAFETY: statvfs on a valid C string into a zeroed struct.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(path.as_ptr(), &mut st) != 0 {
            return 0;
        }
        let f = st.f_flag;
        let mut out = 0;
        for (st_flag, ms) in [
            (libc::ST_NOSUID, libc::MS_NOSUID),
            (libc::ST_NODEV, libc::MS_NODEV),
            (libc::ST_NOEXEC, libc::MS_NOEXEC),
            (libc::ST_NOATIME, libc::MS_NOATIME),
            (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
            (libc::ST_RELATIME, libc::MS_RELATIME),
        ] {
            if f & st_flag != 0 {
                out |= ms;
            }
        }
        out
    }
}

/// Bind-mounts `path` on itself and remounts it read-only.
fn read_only(path: &CStr, keep: libc::c_ulong) -> bool {
    restricted(path, libc::MS_RDONLY | keep)
}

/// Bind-mounts `path` (with what is mounted beneath it) on itself: it becomes a mount
/// point, which cannot be renamed or removed.
fn bound_on_itself(path: &CStr) -> bool {
    // SAFETY: mount on valid C strings.
    unsafe {
        libc::mount(
            path.as_ptr(),
            path.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        ) == 0
    }
}

/// Bind-mounts `path` (with what is mounted beneath it) on itself and remounts it with
/// `nosuid`, `nodev` and `flags`.
fn restricted(path: &CStr, flags: libc::c_ulong) -> bool {
    // SAFETY: mount on valid C strings.
    bound_on_itself(path)
        && unsafe {
            libc::mount(
                std::ptr::null(),
                path.as_ptr(),
                std::ptr::null(),
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_NOSUID | libc::MS_NODEV | flags,
                std::ptr::null(),
            ) == 0
        }
}

impl Mounts {
    /// Makes the mounts (granting `writable` beneath the new file systems in `ruleset`);
    /// returns the layers that held.
    fn make(&self, ruleset: Option<RawFd>, writable: u64) -> u32 {
        let grant = |path: &CStr| ruleset.is_none_or(|fd| allow(fd, path, writable).is_ok());
        let mut held = 0;
        // SAFETY: mount on valid C strings.
        let bound = self.views.iter().all(|(view, git)| unsafe {
            libc::mount(
                view.as_ptr(),
                git.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            ) == 0
        });
        if bound && !self.views.is_empty() {
            held |= held::GIT_VIEW;
        }
        for (copy, file) in &self.covered {
            // SAFETY: mount on valid C strings.
            unsafe {
                libc::mount(
                    copy.as_ptr(),
                    file.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND,
                    std::ptr::null(),
                );
            }
        }
        // The sealed oracle's git folders are noexec too (see `no_exec` below).
        let git_flags = if self.no_exec.is_empty() {
            0
        } else {
            libc::MS_NOEXEC
        };
        // No git folder in a writable root: nothing to protect.
        if self
            .read_only
            .iter()
            .all(|r| read_only(&r.path, r.keep_flags | git_flags))
        {
            held |= held::GIT_READ_ONLY;
        }
        // Folders first (a file bound read-only, then its folder bound on itself, would leave
        // the file's mount beneath the folder's new one, out of sight).
        let pinned = self.protected_dirs.iter().all(|d| bound_on_itself(d))
            && self
                .protected
                .iter()
                .all(|r| read_only(&r.path, r.keep_flags));
        if pinned {
            held |= held::PROTECTED_READ_ONLY;
        }
        // SAFETY: mount on valid C strings.
        unsafe {
            if self.shm
                && libc::mount(
                    c"tmpfs".as_ptr(),
                    c"/dev/shm".as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    c"mode=1777,size=25%".as_ptr().cast(),
                ) == 0
                && grant(c"/dev/shm")
            {
                held |= held::PRIVATE_SHM;
            }
            let mut overlaid = true;
            let mut read_only_all = true;
            let sealing = !self.no_exec.is_empty();
            let cache_flags = if sealing { libc::MS_NOEXEC } else { 0 };
            for o in &self.overlays {
                let mount = |opts: &CStr| {
                    libc::mount(
                        c"overlay".as_ptr(),
                        o.target.as_ptr(),
                        c"overlay".as_ptr(),
                        libc::MS_NOSUID | libc::MS_NODEV | cache_flags,
                        opts.as_ptr().cast(),
                    ) == 0
                };
                if let Some((plain, userxattr)) = &o.options
                    && (mount(plain) || mount(userxattr))
                    && grant(&o.target)
                {
                    continue;
                }
                overlaid = false;
                if !read_only(&o.target, o.keep_flags | cache_flags) {
                    read_only_all = false;
                }
            }
            if overlaid {
                held |= held::CACHE_OVERLAY;
            }
            if read_only_all {
                held |= held::CACHE_READ_ONLY;
            }
            for m in &self.masked {
                libc::mount(
                    c"/dev/null".as_ptr(),
                    m.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND,
                    std::ptr::null(),
                );
            }
            // The sealed oracle: its workspace read-only and every folder it may write
            // noexec (the caches above too, and /dev/shm always is).
            if sealing
                && read_only_all
                && self.no_exec.iter().all(|n| {
                    let ro = if n.read_only { libc::MS_RDONLY } else { 0 };
                    restricted(&n.path, libc::MS_NOEXEC | ro | n.keep_flags)
                })
            {
                held |= held::SEALED;
            }
        }
        held
    }
}

/// `struct __user_cap_header_struct` / `__user_cap_data_struct` of the kernel's UAPI.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Drops every capability: the bounding set (so a root program gains none at exec), the
/// ambient set, and the effective, permitted and inheritable sets. True when none is left
/// that an exec could give back.
fn drop_capabilities() -> bool {
    const VERSION_3: u32 = 0x2008_0522;
    // SAFETY: prctl and capset/capget system calls on stack values.
    unsafe {
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
            0,
            0,
            0,
        );
        let mut header = CapHeader {
            version: VERSION_3,
            pid: 0,
        };
        let mut data = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        libc::syscall(
            libc::SYS_capset,
            &mut header as *mut CapHeader,
            data.as_ptr(),
        );
        header = CapHeader {
            version: VERSION_3,
            pid: 0,
        };
        if libc::syscall(
            libc::SYS_capget,
            &mut header as *mut CapHeader,
            data.as_mut_ptr(),
        ) != 0
        {
            return false;
        }
        let none = data
            .iter()
            .all(|d| d.effective == 0 && d.permitted == 0 && d.inheritable == 0);
        let bounding_empty = (0..64)
            .all(|cap| libc::prctl(libc::PR_CAPBSET_READ, cap as libc::c_ulong, 0, 0, 0) <= 0);
        // Without CAP_SETPCAP the bounding set stays, but then the process is not root and
        // no_new_privs keeps exec from granting anything.
        none && (bounding_empty || (libc::getuid() != 0 && libc::geteuid() != 0))
    }
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
    allow(ruleset, c"/proc", LANDLOCK_READ)
}

/// Grants `access` beneath `path`: for file systems mounted in the namespace (`/proc`, the
/// private `/dev/shm`, the caches' overlays), which rules made before the fork cannot name
/// (Landlock does not look at the folder a mount covers).
fn allow(ruleset: RawFd, path: &CStr, access: u64) -> io::Result<()> {
    // SAFETY: open, the landlock_add_rule system call on a stack value, close.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let attr = PathBeneathAttr {
            allowed_access: access,
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
pub(super) fn close_on_exec_above_stderr() -> io::Result<()> {
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

/// The child outside the namespace: waits for PID 1 and exits as it did; kills it (and with
/// it the whole namespace) when the lifeline closes, that is when judge-ci is gone however
/// it ended (see [`super::reaper`]). Never returns.
fn wait_and_mirror(pid: libc::pid_t, lifeline: Option<RawFd>) -> ! {
    // SAFETY: system calls only; _exit never returns.
    unsafe {
        // Every descriptor but the lifeline's read end, the pipe std reports exec errors
        // through included (only the grandchild's exec may close that one), and the
        // lifeline's write end (judge-ci's alone).
        match lifeline {
            Some(l) if l >= 0 => {
                if l > 0 {
                    libc::syscall(libc::SYS_close_range, 0u32, (l - 1) as u32, 0u32);
                }
                libc::syscall(libc::SYS_close_range, (l + 1) as u32, u32::MAX, 0u32);
            }
            _ => {
                libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32);
            }
        }
        let pidfd = libc::syscall(libc::SYS_pidfd_open, pid, 0u32) as libc::c_int;
        let mut status = 0;
        loop {
            if let Some(l) = lifeline {
                let mut fds = [
                    libc::pollfd {
                        fd: l,
                        events: libc::POLLIN,
                        revents: 0,
                    },
                    libc::pollfd {
                        fd: pidfd,
                        events: libc::POLLIN,
                        revents: 0,
                    },
                ];
                // Without a pidfd (Linux before 5.3): look every 100 ms.
                let (n, timeout) = if pidfd >= 0 { (2, -1) } else { (1, 100) };
                let r = libc::poll(fds.as_mut_ptr(), n, timeout);
                if r > 0 && fds[0].revents != 0 {
                    // judge-ci is gone: nothing of the subject may stay.
                    libc::kill(pid, libc::SIGKILL);
                    libc::waitpid(pid, &mut status, 0);
                    libc::_exit(137);
                }
                let r = libc::waitpid(pid, &mut status, libc::WNOHANG);
                if r == pid {
                    break;
                }
                if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                    libc::_exit(125);
                }
                continue;
            }
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
    pub fn new(
        ruleset: Option<RawFd>,
        namespaces: bool,
        network_cut: bool,
        mounts: Mounts,
        report: Option<RawFd>,
        required: u32,
        writable_access: u64,
    ) -> Plan {
        // SAFETY: getters without side effects.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Plan {
            ruleset,
            namespaces,
            network_cut,
            user_namespace: uid != 0,
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            mounts,
            seccomp: super::seccomp::Filter::new(),
            report,
            required,
            writable_access,
            lifeline: super::reaper::lifeline(),
            hide_proc: false,
        }
    }

    /// The same plan with the namespace's `/proc` left out of the Landlock ruleset when
    /// `hide` (see `Fence::prepare_sealed`).
    pub fn hiding_proc(mut self, hide: bool) -> Plan {
        self.hide_proc = hide;
        self
    }

    /// The same plan whose seccomp filter also refuses internet sockets (the sealed oracle
    /// where no network namespace can be made).
    pub fn denying_inet(mut self, deny: bool) -> Plan {
        if deny {
            self.seccomp = super::seccomp::Filter::with_inet_denied();
        }
        self
    }

    /// Runs in the child between fork and exec. An error makes the spawn fail in the parent
    /// (which retries without namespaces, or reports it).
    pub fn enter(&self) -> io::Result<()> {
        // SAFETY: system calls on data prepared before the fork.
        unsafe {
            close_on_exec_above_stderr()?;
            check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
            let mut held = 0u32;
            if self.namespaces {
                // An IPC namespace too: SysV shared memory, semaphores and message queues of
                // the runner are out of sight, and what the subject makes dies with it.
                let mut flags = libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWIPC;
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
                    wait_and_mirror(pid, self.lifeline);
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
                if let Some(fd) = self.ruleset
                    && !self.hide_proc
                {
                    allow_proc(fd)?;
                }
                let mut made = self.mounts.make(self.ruleset, self.writable_access);
                if !self.network_cut {
                    // Sealed only without a network too.
                    made &= !held::SEALED;
                }
                held |= held::NAMESPACES | made;
            }
            if drop_capabilities() {
                held |= held::CAPABILITIES;
            }
            if let Some(fd) = self.ruleset {
                let r = libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32);
                if r < 0 {
                    return Err(io::Error::last_os_error());
                }
                held |= held::LANDLOCK;
            }
            if self.seccomp.as_ref().is_some_and(|f| f.install().is_ok()) {
                held |= held::SECCOMP;
            }
            if let Some(fd) = self.report {
                let bytes = held.to_ne_bytes();
                libc::write(fd, bytes.as_ptr().cast(), bytes.len());
            }
            if held & self.required != self.required {
                // The parent reads the held layers and names the missing ones.
                return Err(io::Error::from_raw_os_error(libc::EPERM));
            }
        }
        Ok(())
    }
}
