//! Confining configured paths to the workspace, symlinks included.

use std::path::{Path, PathBuf};

/// Where a workspace-relative path leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// An existing entry inside the workspace (symlinks followed).
    Inside(PathBuf),
    /// Nothing there (the path itself stays inside the workspace).
    Missing(PathBuf),
    /// The path, or a symlink on it, leads outside the workspace.
    Escapes(String),
}

/// Resolves `rel` against `workspace`, following symlinks, refusing anything that leaves it.
pub fn resolve(workspace: &Path, rel: &Path) -> Resolved {
    let root = match workspace.canonicalize() {
        Ok(r) => r,
        Err(e) => {
            return Resolved::Escapes(format!(
                "the workspace {} cannot be read: {e}",
                workspace.display()
            ));
        }
    };
    let joined = root.join(rel);
    if !joined.starts_with(&root) || rel.is_absolute() {
        return Resolved::Escapes(format!("'{}' is outside the workspace", rel.display()));
    }
    match joined.canonicalize() {
        Ok(real) if real.starts_with(&root) => Resolved::Inside(real),
        Ok(real) => Resolved::Escapes(format!(
            "'{}' leads outside the workspace (to {})",
            rel.display(),
            real.display()
        )),
        Err(_) => {
            // Missing (or a dangling link): the deepest existing ancestor must be inside.
            let mut anc = joined.parent();
            while let Some(a) = anc {
                if let Ok(real) = a.canonicalize() {
                    if real.starts_with(&root) {
                        return Resolved::Missing(joined);
                    }
                    return Resolved::Escapes(format!(
                        "'{}' leads outside the workspace (through {})",
                        rel.display(),
                        real.display()
                    ));
                }
                anc = a.parent();
            }
            Resolved::Missing(joined)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlinks_out_of_the_workspace_are_caught() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "x").unwrap();
        std::fs::write(ws.path().join("ok.txt"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), ws.path().join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join("dirlink")).unwrap();
        assert!(matches!(
            resolve(ws.path(), Path::new("ok.txt")),
            Resolved::Inside(_)
        ));
        assert!(matches!(
            resolve(ws.path(), Path::new("nope.txt")),
            Resolved::Missing(_)
        ));
        assert!(matches!(
            resolve(ws.path(), Path::new("link")),
            Resolved::Escapes(_)
        ));
        assert!(matches!(
            resolve(ws.path(), Path::new("dirlink/secret")),
            Resolved::Escapes(_)
        ));
        assert!(matches!(
            resolve(ws.path(), Path::new("dirlink/new")),
            Resolved::Escapes(_)
        ));
    }
}
