//! `sandbox:`: what the fence around subject processes must add beyond its defaults (see
//! [`crate::fence`]): `network: false` runs every subject process in a network namespace of
//! its own with only a loopback interface, and refuses to run them where the machine cannot
//! make one; `require: [...]` names layers of the fence without which no subject process
//! starts (see docs/fence.md).

use marked_yaml::Node;

use super::yaml::{Key, Kind, Reader, key};

/// One layer of the fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Landlock's file-system rules (and its scoping of abstract sockets and signals).
    Landlock,
    /// A PID and mount namespace with a `/proc` of its own.
    Namespaces,
    /// Every capability dropped, the bounding set included.
    Capabilities,
    /// No unix-domain socket can be made (seccomp), so none outside the workspace is
    /// reached; no io_uring, no key rings.
    UnixSockets,
    /// `/dev/shm` is a tmpfs of the subject's own, SysV IPC a namespace of its own.
    PrivateShm,
    /// `HOME` is a private folder and the real home folder is hidden.
    PrivateHome,
    /// The workspace's git folders are mounted read-only.
    ReadOnlyGit,
    /// Build caches are per-run overlays whose writes are discarded.
    CacheOverlay,
    /// The protected files judge-ci pinned to the trusted side's copy (the scripts a check
    /// runs, the build wrappers and settings) are mounted read-only, and the folders on the
    /// way to them cannot be moved, so no subject process changes one while a check reads
    /// it, even to put it back before the check ends.
    ReadOnlyProtected,
    /// Subject processes can read the reference in no form the run knows of: its folder is
    /// hidden (not inside the workspace), and where the workspace's git objects hold it, a
    /// copy of the repository with HEAD's objects alone covers `.git`.
    HiddenReference,
    /// judge-ci's test oracle JVM (which runs the subject's code beside the trusted tests
    /// and judge-ci's result channel) has no network, a read-only workspace, and every
    /// folder it may write mounted `noexec`, so no native code the subject wrote can be
    /// loaded into it (docs/test-oracle.md). Only the oracle's processes need it.
    SealedOracle,
}

impl Layer {
    /// Every layer, in the order of the config's names.
    pub const ALL: [Layer; 11] = [
        Layer::Landlock,
        Layer::Namespaces,
        Layer::Capabilities,
        Layer::UnixSockets,
        Layer::PrivateShm,
        Layer::PrivateHome,
        Layer::ReadOnlyGit,
        Layer::CacheOverlay,
        Layer::ReadOnlyProtected,
        Layer::HiddenReference,
        Layer::SealedOracle,
    ];

    /// The name in `sandbox.require`.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Landlock => "landlock",
            Layer::Namespaces => "namespaces",
            Layer::Capabilities => "capabilities",
            Layer::UnixSockets => "unix-sockets",
            Layer::PrivateShm => "private-shm",
            Layer::PrivateHome => "private-home",
            Layer::ReadOnlyGit => "read-only-git",
            Layer::CacheOverlay => "cache-overlay",
            Layer::ReadOnlyProtected => "read-only-protected",
            Layer::HiddenReference => "hidden-reference",
            Layer::SealedOracle => "sealed-oracle",
        }
    }

    /// The layer a `sandbox.require` entry names.
    pub fn from_name(name: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl super::token::Tokens for Layer {
    fn values() -> Vec<Self> {
        Layer::ALL.to_vec()
    }
    fn preferred(self) -> std::borrow::Cow<'static, str> {
        self.name().into()
    }
}

/// Keys of `sandbox:`.
#[rustfmt::skip]
pub const SANDBOX_KEYS: &[Key] = &[
    key("network", Kind::Bool, "false: subject processes get no network (a network namespace; refused where none can be made)"),
    key("require", Kind::EnumList(super::token::accepted::<Layer>), "fence layers without which no subject process starts (its check is an ERROR naming the layer): landlock, namespaces, capabilities, unix-sockets, private-shm, private-home, read-only-git, cache-overlay, read-only-protected (the pinned protected files a check runs or reads), hidden-reference, sealed-oracle (judge-ci's test oracle only: no network, read-only workspace, no native code from a writable folder)"),
];

/// The fence settings of a config.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SandboxSettings {
    /// `network`; `None` leaves the network as it is.
    pub network: Option<bool>,
    /// `require`: layers that must hold for every subject process.
    pub require: Vec<Layer>,
}

/// Reads `sandbox:`.
pub fn read(r: &mut Reader, n: &Node) -> Option<SandboxSettings> {
    let m = r.mapping(n, "sandbox")?;
    r.check_keys(m, "sandbox", SANDBOX_KEYS, false);
    let mut s = SandboxSettings::default();
    if let Some(x) = m.get_node("network") {
        s.network = Some(r.boolean(x, "sandbox.network")?);
    }
    if let Some(x) = m.get_node("require") {
        s.require = r.token_list(x, "sandbox.require")?;
    }
    Some(s)
}
