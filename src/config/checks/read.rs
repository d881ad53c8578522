//! What every check reader shares: the check's mapping, and typed reads of the keys many
//! types take (paths in the workspace, required keys, string lists, environments).

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;

use super::WorkspacePath;
use crate::config::yaml::Reader;

/// The check being read: its mapping, the whole node (for errors about a missing key) and its
/// name in messages (`jury.checks[0] (command)`).
#[derive(Clone, Copy)]
pub struct CheckNode<'a> {
    /// The check's keys.
    pub m: &'a MarkedMappingNode,
    /// The check as a whole.
    pub whole: &'a Node,
    /// How messages name it.
    pub what: &'a str,
}

/// The value of key `k`, if present.
pub fn get<'n>(m: &'n MarkedMappingNode, k: &str) -> Option<&'n Node> {
    m.get_node(k)
}

/// A list of strings at `k`, or `default`.
pub fn list(
    r: &mut Reader,
    m: &MarkedMappingNode,
    what: &str,
    k: &str,
    default: &[&str],
) -> Option<Vec<String>> {
    match get(m, k) {
        Some(n) => r.string_list(n, &format!("{what}.{k}")),
        None => Some(default.iter().map(|s| s.to_string()).collect()),
    }
}

/// `env`: extra environment variables (none by default).
pub fn env(r: &mut Reader, m: &MarkedMappingNode, what: &str) -> Option<Vec<(String, String)>> {
    match get(m, "env") {
        Some(n) => r.string_map(n, &format!("{what}.env")),
        None => Some(Vec::new()),
    }
}

/// A path in the workspace at `k`, or `default`.
pub fn path_key(
    r: &mut Reader,
    m: &MarkedMappingNode,
    k: &str,
    default: Option<&str>,
    what: &str,
) -> Option<WorkspacePath> {
    let text = match get(m, k) {
        Some(n) => {
            let s = r.string(n, &format!("{what}.{k}"))?;
            match WorkspacePath::new(&s) {
                Ok(p) => return Some(p),
                Err(e) => {
                    r.error_help(
                        n,
                        format!("{what}.{k}: {e}"),
                        "write a path relative to the workspace, without '..'",
                    );
                    return None;
                }
            }
        }
        None => default?.to_string(),
    };
    WorkspacePath::new(&text).ok()
}

/// The node at `k`; its absence is an error at the check.
pub fn required<'n>(
    r: &mut Reader,
    m: &'n MarkedMappingNode,
    whole: &Node,
    k: &str,
    what: &str,
) -> Option<&'n Node> {
    let n = get(m, k);
    if n.is_none() {
        r.error_help(
            whole,
            format!("{what} needs the key '{k}'"),
            format!("add `{k}: …`"),
        );
    }
    n
}
