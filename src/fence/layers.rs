//! The fence's layers by name: what the report's fence line says of each, and what
//! `sandbox: {require: [...]}` names to turn a missing layer into an ERROR instead of a
//! silent downgrade.

use super::Status;
use super::child::held;

pub use crate::config::sandbox::Layer;

impl Layer {
    /// The layers the fence line lists after Landlock and the namespaces (which keep their
    /// own wording: "landlock ABI 6", "pid namespace").
    pub const REPORTED: [Layer; 7] = [
        Layer::Capabilities,
        Layer::UnixSockets,
        Layer::PrivateShm,
        Layer::PrivateHome,
        Layer::ReadOnlyGit,
        Layer::CacheOverlay,
        Layer::ReadOnlyProtected,
    ];

    /// What the fence line says when the layer held.
    pub fn held_text(self) -> &'static str {
        match self {
            Layer::Landlock => "landlock",
            Layer::Namespaces => "pid namespace",
            Layer::Capabilities => "capabilities dropped",
            Layer::UnixSockets => "no unix sockets (seccomp)",
            Layer::PrivateShm => "private /dev/shm and SysV IPC",
            Layer::PrivateHome => "private HOME",
            Layer::ReadOnlyGit => "read-only .git",
            Layer::CacheOverlay => "cache overlay",
            Layer::ReadOnlyProtected => "read-only protected files",
            Layer::HiddenReference => "reference hidden",
            Layer::SealedOracle => "sealed test oracle",
        }
    }

    /// The child's bits this layer needs.
    pub(super) fn child_bits(self) -> u32 {
        match self {
            Layer::Landlock | Layer::PrivateHome | Layer::HiddenReference => held::LANDLOCK,
            Layer::Namespaces => held::NAMESPACES,
            Layer::Capabilities => held::CAPABILITIES,
            Layer::UnixSockets => held::SECCOMP,
            Layer::PrivateShm => held::PRIVATE_SHM,
            Layer::ReadOnlyGit => held::GIT_READ_ONLY,
            Layer::CacheOverlay => held::CACHE_OVERLAY,
            Layer::ReadOnlyProtected => held::PROTECTED_READ_ONLY,
            Layer::SealedOracle => held::SEALED,
        }
    }

    /// Whether the layer held for the process `status` describes.
    pub(super) fn held_in(self, status: &Status) -> bool {
        let bits = status.held & self.child_bits() == self.child_bits();
        match self {
            Layer::PrivateHome => bits && status.home_hidden,
            Layer::HiddenReference => match &status.reference {
                super::reference::Exposure::NoReference => true,
                super::reference::Exposure::Hidden => bits,
                super::reference::Exposure::InsideWorkspace(_)
                | super::reference::Exposure::CopiedIn(_) => false,
                super::reference::Exposure::ThroughGit { no_copy, .. } => {
                    bits && no_copy.is_none() && status.held & held::GIT_VIEW != 0
                }
            },
            _ => bits,
        }
    }

    /// Why the layer did not hold, as far as judge-ci knows.
    pub(super) fn why_not(self, status: &Status) -> String {
        let no_ns = || match &status.pid_namespace {
            Ok(()) => "the mount failed".to_string(),
            Err(why) => format!("needs a mount namespace: {why}"),
        };
        match self {
            Layer::Landlock => match &status.landlock {
                Ok(_) => "the kernel refused the ruleset".to_string(),
                Err(why) => why.to_string(),
            },
            Layer::Namespaces => no_ns(),
            Layer::Capabilities => "the kernel refused to drop them".to_string(),
            Layer::UnixSockets => "no seccomp filter for this architecture or kernel".to_string(),
            Layer::PrivateHome => {
                if status.landlock.is_err() {
                    "needs landlock to hide the real one".to_string()
                } else {
                    "no home folder known".to_string()
                }
            }
            Layer::PrivateShm | Layer::ReadOnlyGit | Layer::ReadOnlyProtected => no_ns(),
            Layer::HiddenReference => status
                .reference
                .exposed_text(status.pid_namespace.is_ok())
                .unwrap_or_else(|| "needs landlock to hide its folder".to_string()),
            Layer::CacheOverlay => {
                if status.held & held::CACHE_READ_ONLY != 0 {
                    "the caches are read-only instead: nothing written there survives, nothing can be added".to_string()
                } else {
                    no_ns()
                }
            }
            // noexec mounts and a network namespace need a mount namespace.
            Layer::SealedOracle => no_ns(),
        }
    }
}
