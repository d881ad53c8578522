//! `sandbox:`: what the fence around subject processes must add beyond its defaults (see
//! [`crate::fence`]). Today one key: `network: false` runs every subject process in a network
//! namespace of its own with only a loopback interface, and refuses to run them where the
//! machine cannot make one.

use marked_yaml::Node;

use super::yaml::{Key, Kind, Reader, key};

/// Keys of `sandbox:`.
#[rustfmt::skip]
pub const SANDBOX_KEYS: &[Key] = &[key("network", Kind::Bool, "false: subject processes get no network (a network namespace; refused where none can be made)")];

/// The fence settings of a config.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SandboxSettings {
    /// `network`; `None` leaves the network as it is.
    pub network: Option<bool>,
}

/// Reads `sandbox:`.
pub fn read(r: &mut Reader, n: &Node) -> Option<SandboxSettings> {
    let m = r.mapping(n, "sandbox")?;
    r.check_keys(m, "sandbox", SANDBOX_KEYS, false);
    let mut s = SandboxSettings::default();
    if let Some(x) = m.get_node("network") {
        s.network = Some(r.boolean(x, "sandbox.network")?);
    }
    Some(s)
}
