//! A seccomp filter for subject processes, built before the fork and installed between fork
//! and exec (after `no_new_privs`): no unix-domain socket can be made (so none outside the
//! workspace can be reached, the Docker socket above all; Landlock up to ABI 7 does not
//! govern `connect` on a socket file, and a network namespace does not cut it), no io_uring
//! (whose operations bypass the filter), no access to the kernel's key rings (shared by every
//! process of the same user), no `ptrace`, `process_vm_readv`/`writev`, `pidfd_getfd` or `perf_event_open` (one
//! subject process does not take over another, a grader it was started by above all), and no
//! system call of another ABI (32-bit, x32) through
//! which the same calls could be made by other numbers. `socketpair` stays for stream and
//! seqpacket sockets (connected to each other for good); a datagram pair is refused, since
//! a datagram socket can be re-connected to any socket file.

use std::io;

/// The filter program, or `None` on an architecture this code does not know.
#[derive(Debug)]
pub struct Filter {
    program: Vec<libc::sock_filter>,
}

const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
/// `offsetof(struct seccomp_data, nr)`, `arch`, `args[0]` and `args[1]` (low halves on
/// little endian).
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const OFF_ARG0: u32 = 16;
const OFF_ARG1: u32 = 24;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xc000_00b7;

fn stmt(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jeq(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    }
}

const LD_W_ABS: u32 = libc::BPF_LD | libc::BPF_W | libc::BPF_ABS;
const RET_K: u32 = libc::BPF_RET | libc::BPF_K;

impl Filter {
    /// The filter for this architecture.
    pub fn new() -> Option<Filter> {
        Filter::build(false)
    }

    /// The filter, also refusing internet sockets (`AF_INET`, `AF_INET6`): for judge-ci's
    /// sealed test oracle where no network namespace can be made, so nothing the code under
    /// test reads there (the trusted tests on its class path) leaves over the network.
    pub fn with_inet_denied() -> Option<Filter> {
        Filter::build(true)
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn build(deny_inet: bool) -> Option<Filter> {
        let deny = |errno: i32| stmt(RET_K, SECCOMP_RET_ERRNO | errno as u32);
        let denied: [libc::c_long; 11] = [
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
            libc::SYS_keyctl,
            libc::SYS_add_key,
            libc::SYS_request_key,
            // One subject process may not take over another in the same fence: an
            // `external` grader that runs the pull request's code was attached to and its
            // answer rewritten from FAIL to PASS (attack finding s3 N7).
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_pidfd_getfd,
            // Nor sample another process's memory and registers (judge-ci's test oracle's
            // JVM holds a secret: docs/test-oracle.md).
            libc::SYS_perf_event_open,
        ];
        let mut p = vec![
            stmt(LD_W_ABS, OFF_ARCH),
            jeq(AUDIT_ARCH, 1, 0),
            deny(libc::ENOSYS),
            stmt(LD_W_ABS, OFF_NR),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            // x32 system calls: the same numbers with bit 30 set.
            p.push(libc::sock_filter {
                code: (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16,
                jt: 0,
                jf: 1,
                k: 0x4000_0000,
            });
            p.push(deny(libc::ENOSYS));
        }
        for nr in denied {
            p.push(jeq(nr as u32, 0, 1));
            p.push(deny(libc::EPERM));
        }
        // socket(AF_UNIX, …): EACCES, as a permission refusal reads to programs (and
        // socket(AF_INET or AF_INET6, …) when `deny_inet`).
        let (inet, inet6) = if deny_inet {
            (libc::AF_INET as u32, libc::AF_INET6 as u32)
        } else {
            (libc::AF_UNIX as u32, libc::AF_UNIX as u32)
        };
        p.push(jeq(libc::SYS_socket as u32, 0, 5));
        p.push(stmt(LD_W_ABS, OFF_ARG0));
        p.push(jeq(libc::AF_UNIX as u32, 2, 0));
        p.push(jeq(inet, 1, 0));
        p.push(jeq(inet6, 0, 1));
        p.push(deny(libc::EACCES));
        // socketpair(AF_UNIX, SOCK_DGRAM, …): a datagram socket can be connect()ed (or
        // sendto()) to any socket file afterwards, the pair notwithstanding (attack finding
        // F22: journald's /dev/log, a service's notify socket). Stream and seqpacket pairs
        // are connected for good (connect gives EISCONN) and stay.
        p.push(stmt(LD_W_ABS, OFF_NR));
        // (SOCK_RAW is made a datagram socket by the kernel: only those two types pass.)
        p.push(jeq(libc::SYS_socketpair as u32, 0, 7));
        p.push(stmt(LD_W_ABS, OFF_ARG0));
        p.push(jeq(libc::AF_UNIX as u32, 0, 5));
        p.push(stmt(LD_W_ABS, OFF_ARG1));
        // The type's low bits; SOCK_NONBLOCK and SOCK_CLOEXEC are flags above them.
        p.push(stmt(libc::BPF_ALU | libc::BPF_AND | libc::BPF_K, 0xf));
        p.push(jeq(libc::SOCK_STREAM as u32, 2, 0));
        p.push(jeq(libc::SOCK_SEQPACKET as u32, 1, 0));
        p.push(deny(libc::EACCES));
        p.push(stmt(RET_K, SECCOMP_RET_ALLOW));
        Some(Filter { program: p })
    }

    /// No filter on other architectures: the report says the layer did not hold.
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    fn build(_deny_inet: bool) -> Option<Filter> {
        None
    }

    /// Installs the filter on the calling thread (between fork and exec: no allocation).
    pub fn install(&self) -> io::Result<()> {
        let prog = libc::sock_fprog {
            len: self.program.len() as u16,
            filter: self.program.as_ptr() as *mut libc::sock_filter,
        };
        // SAFETY: prctl with a pointer to a valid program that outlives the call.
        let r = unsafe {
            libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER as libc::c_ulong,
                &prog as *const libc::sock_fprog,
                0,
                0,
            )
        };
        if r < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` in a forked child with the filter installed; returns its exit code.
    fn in_child(f: fn() -> i32) -> i32 {
        in_child_with(Filter::new().expect("a known architecture"), f)
    }

    #[test]
    fn the_sealed_oracle_s_filter_refuses_internet_sockets_too() {
        let filter = Filter::with_inet_denied().expect("a known architecture");
        assert_eq!(
            in_child_with(filter, || {
                // SAFETY: plain system calls.
                unsafe {
                    for family in [libc::AF_INET, libc::AF_INET6, libc::AF_UNIX] {
                        let s = libc::socket(family, libc::SOCK_STREAM, 0);
                        if s >= 0 || *libc::__errno_location() != libc::EACCES {
                            return 1;
                        }
                    }
                    let mut sv = [0; 2];
                    if libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, sv.as_mut_ptr()) != 0 {
                        return 2;
                    }
                    0
                }
            }),
            0
        );
    }

    fn in_child_with(filter: Filter, f: fn() -> i32) -> i32 {
        // SAFETY: the child makes system calls only and exits with _exit.
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                    || filter.install().is_err()
                {
                    libc::_exit(90);
                }
                libc::_exit(f());
            }
            let mut st = 0;
            libc::waitpid(pid, &mut st, 0);
            libc::WEXITSTATUS(st)
        }
    }

    #[test]
    fn unix_sockets_and_io_uring_are_refused_other_sockets_are_not() {
        assert_eq!(
            in_child(|| {
                // SAFETY: plain system calls.
                unsafe {
                    let u = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0);
                    let e = *libc::__errno_location();
                    if u >= 0 || e != libc::EACCES {
                        return 1;
                    }
                    let i = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
                    if i < 0 {
                        return 2;
                    }
                    let mut sv = [0; 2];
                    if libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, sv.as_mut_ptr()) != 0 {
                        return 3;
                    }
                    // A datagram pair could be re-connected to any socket file (F22).
                    let flags = libc::SOCK_DGRAM | libc::SOCK_CLOEXEC;
                    if libc::socketpair(libc::AF_UNIX, flags, 0, sv.as_mut_ptr()) == 0
                        || *libc::__errno_location() != libc::EACCES
                    {
                        return 5;
                    }
                    if libc::socketpair(libc::AF_UNIX, libc::SOCK_RAW, 0, sv.as_mut_ptr()) == 0 {
                        return 6;
                    }
                    let flags = libc::SOCK_SEQPACKET | libc::SOCK_NONBLOCK;
                    if libc::socketpair(libc::AF_UNIX, flags, 0, sv.as_mut_ptr()) != 0 {
                        return 7;
                    }
                    // Another process's memory: not even the parent's.
                    let mut byte = 0u8;
                    let local = libc::iovec {
                        iov_base: (&mut byte as *mut u8).cast(),
                        iov_len: 1,
                    };
                    let remote = libc::iovec {
                        iov_base: (&byte as *const u8 as *mut u8).cast(),
                        iov_len: 1,
                    };
                    if libc::syscall(
                        libc::SYS_process_vm_readv,
                        libc::getppid(),
                        &local as *const libc::iovec,
                        1u64,
                        &remote as *const libc::iovec,
                        1u64,
                        0u64,
                    ) >= 0
                        || libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) >= 0
                    {
                        return 8;
                    }
                    let mut params = [0u8; 120];
                    if libc::syscall(libc::SYS_io_uring_setup, 1u32, params.as_mut_ptr()) >= 0 {
                        return 4;
                    }
                    // No process of the fence traces or reads another (s3 N7).
                    if libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) != -1
                        || *libc::__errno_location() != libc::EPERM
                    {
                        return 8;
                    }
                    0
                }
            }),
            0
        );
    }
}
