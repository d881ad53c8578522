//! Whether a workspace is a submission at all: a workspace folder that is a symbolic link
//! (to the task's `reference/`, or anywhere), or that is or lies inside the reference, would
//! have the answer key judged as the subject's work (attack findings GA3, NC14; trust.md
//! points 12, 19 and 23). `run` refuses such a workspace and `suite` counts the task
//! against the subject, never as a submission.

use std::path::{Path, PathBuf};

/// Why `workspace` (as given, before anything follows it) is not the subject's submission
/// when judged against `references` (the folders the reference is read from: the checkout
/// judge-ci compares with and the folder the config or task names), or None.
pub fn not_a_submission(workspace: &Path, references: &[&Path]) -> Option<String> {
    // `a/` would be read through the link; the path as named, without a trailing slash.
    let named: PathBuf = workspace.components().collect();
    if let Ok(m) = std::fs::symlink_metadata(&named)
        && m.file_type().is_symlink()
    {
        let to = std::fs::read_link(&named)
            .map(|t| format!(" to {}", t.display()))
            .unwrap_or_default();
        return Some(format!(
            "the workspace {} is a symbolic link{to}, not a folder: a link is never followed as the subject's submission (it can point at the reference, the answer key)",
            workspace.display()
        ));
    }
    // A folder inside the reference is part of the answer key. The reference itself, named as
    // the workspace on the command line, is its author's own check that the config accepts
    // its reference (what `prove`'s gold run asks): the command line is trusted, a link the
    // subject made is not (refused above).
    let ws = std::fs::canonicalize(&named).ok()?;
    references.iter().find_map(|r| {
        let r = std::fs::canonicalize(r).ok()?;
        (ws != r && ws.starts_with(&r)).then(|| {
            format!(
                "the workspace {} is inside the reference {}: the answer key is not the subject's submission",
                workspace.display(),
                r.display()
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_or_a_folder_inside_the_reference_is_no_submission() {
        let d = tempfile::tempdir().unwrap();
        let (ws, reference) = (d.path().join("workspace"), d.path().join("reference"));
        std::fs::create_dir_all(reference.join("src")).unwrap();
        std::fs::create_dir_all(&ws).unwrap();
        assert_eq!(not_a_submission(&ws, &[&reference]), None);
        let link = d.path().join("link");
        std::os::unix::fs::symlink("reference", &link).unwrap();
        let mut with_slash = link.clone().into_os_string();
        with_slash.push("/");
        for given in [link.clone(), PathBuf::from(with_slash)] {
            let why = not_a_submission(&given, &[]).unwrap();
            assert!(why.contains("is a symbolic link to reference"), "{why}");
        }
        // The command line naming the reference as its own workspace: the author's gold check.
        assert_eq!(not_a_submission(&reference, &[&reference]), None);
        let inside = not_a_submission(&reference.join("src"), &[&reference]).unwrap();
        assert!(inside.contains("inside"), "{inside}");
    }
}
