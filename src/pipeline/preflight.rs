//! Stage 3, preflight: configured paths that would lead out of the workspace are refused
//! before anything runs.

use std::path::Path;

use super::error::{RunError, config_problems};
use crate::config::checks::WorkspacePath;
use crate::config::{CheckSpec, Diagnostic, Diagnostics, JurySpec};
use crate::judges::paths;

/// Every workspace path a check names, with the check.
fn check_paths(spec: &JurySpec) -> Vec<(&CheckSpec, &WorkspacePath)> {
    let checks = spec.all_checks();
    let mut out: Vec<(&CheckSpec, &WorkspacePath)> = Vec::new();
    for c in checks {
        out.extend(c.kind.workspace_paths().into_iter().map(|p| (c, p)));
    }
    out.dedup_by(|a, b| std::ptr::eq(a.0, b.0) && a.1 == b.1);
    out
}

/// Refuses, before anything runs, a configured path that itself leads out of the workspace
/// (the config's doing). One that leads out through a symbolic link the workspace holds is
/// the subject's doing, not a bad config: the check that reads it fails on it (attack finding
/// newer F22), and a suite counts that against the task.
pub fn preflight(spec: &JurySpec, workspace: &Path, color: bool) -> Result<(), RunError> {
    let mut d = Diagnostics::default();
    for (c, p) in check_paths(spec) {
        if let paths::Resolved::Escapes(why) = paths::resolve(workspace, p.as_path()) {
            d.push(
                Diagnostic::error(c.loc.clone(), format!("check '{}': {why}", c.name))
                    .help("a check may only read inside the workspace; remove the symlink or change the path"),
            );
        }
    }
    if d.has_errors() {
        Err(config_problems(d, color))
    } else {
        Ok(())
    }
}
