//! File names a trusted program reads as something other than a file name (attack finding
//! N7-7; trust.md points 4 and 20): a path component that starts with `-` is an option to
//! `grep`, `xargs`, `sed` or `javac` given it as an argument (`git ls-files -z | xargs -0 grep
//! …` with a file `--exclude=*.java` greps nothing), and one that holds a control character
//! (a line break, a tab, an escape) splits or forges the line-oriented lists a command
//! pipes (`git ls-files | while read f`, `find | xargs`). A check whose `run:` handles
//! names carefully is unaffected, but judge-ci cannot see which does; an honest change never
//! needs such a name, so each the pull request adds is a finding and the run FAILs on it
//! (`misread-file-names`) whenever a check runs a program over the workspace. So is a folder
//! laid out as a git repository under any name (attack finding S8-8), which git reads as one.

use std::path::Path;

use crate::judgment::{Finding, FindingKind};

/// At most this many names are listed.
const MAX_FINDINGS: usize = 200;

/// Why a program may misread the name `component`, or `None`.
pub fn why(component: &[u8]) -> Option<&'static str> {
    if component.first() == Some(&b'-') {
        Some("it starts with '-', so a program given it as an argument reads an option")
    } else if component.iter().any(|b| *b < 0x20 || *b == 0x7f) {
        Some(
            "it holds a control character (a line break, a tab, an escape), which splits or forges a line-oriented list of names",
        )
    } else {
        None
    }
}

/// Whether the folder `dir` is laid out as a git repository (a `HEAD` file, `objects/` and
/// `refs/` folders), whatever its name: git run inside it reads it as one (a bare
/// repository), with its configuration (`core.fsmonitor`, `core.worktree`, hooks), as git
/// itself guards against with `safe.bareRepository` (attack finding S8-8).
pub fn is_git_repository(dir: &Path) -> bool {
    let is = |name: &str, dir_wanted: bool| {
        std::fs::symlink_metadata(dir.join(name))
            .is_ok_and(|m| if dir_wanted { m.is_dir() } else { m.is_file() })
    };
    is("HEAD", false) && is("objects", true) && is("refs", true)
}

/// Every entry of `workspace` (links not followed, `.git` at the top left out) whose name a
/// program may misread ([`why`]) and that the reference does not have at the same path, as a
/// `misread-file-name` finding naming it escaped.
pub fn scan(workspace: &Path, reference: Option<&Path>) -> Vec<Finding> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::new();
    let mut it = walkdir::WalkDir::new(workspace)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter();
    while let Some(e) = it.next() {
        let Ok(e) = e else { continue };
        if e.depth() == 1 && e.file_name() == ".git" {
            it.skip_current_dir();
            continue;
        }
        let why = match why(e.file_name().as_bytes()) {
            Some(why) => why,
            None if e.file_type().is_dir() && is_git_repository(e.path()) => {
                "it is laid out as a git repository (HEAD, objects/, refs/): git run inside it reads its configuration and hooks, outside any fence in the job's later steps"
            }
            None => continue,
        };
        let Ok(rel) = e.path().strip_prefix(workspace) else {
            continue;
        };
        if reference.is_some_and(|r| std::fs::symlink_metadata(r.join(rel)).is_ok()) {
            continue;
        }
        if e.file_type().is_dir() {
            it.skip_current_dir();
        }
        let shown = rel.to_string_lossy().escape_debug().to_string();
        out.push(
            Finding::new(shown.as_str(), FindingKind::MisreadFileName)
                .message(format!("{shown}: {why}")),
        );
        if out.len() >= MAX_FINDINGS {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn a_name_a_program_reads_otherwise_is_found_unless_the_reference_has_it() {
        let ws = tempfile::tempdir().unwrap();
        let reference = tempfile::tempdir().unwrap();
        let w = |root: &Path, rel: &[u8]| {
            let p = root.join(std::ffi::OsStr::from_bytes(rel));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        };
        for name in [
            &b"--exclude=*.java"[..],
            b"src/-n",
            b"src/a\nb.java",
            b"src/tab\there",
            b"-dir/inside.txt",
            b"src/ok-name.java",
            b"src/Main.java",
            b"docs/-kept-by-reference.md",
            b".git/-ignored",
        ] {
            w(ws.path(), name);
        }
        w(reference.path(), b"docs/-kept-by-reference.md");
        let found: Vec<String> = scan(ws.path(), Some(reference.path()))
            .iter()
            .map(|f| f.path.clone())
            .collect();
        assert_eq!(
            found,
            [
                "--exclude=*.java",
                "-dir",
                "src/-n",
                "src/a\\nb.java",
                "src/tab\\there"
            ]
        );
        assert!(scan(ws.path(), None).len() == 6);
        // A repository laid out under another name (S8-8).
        for f in ["tools/HEAD", "tools/objects/.keep", "tools/refs/.keep"] {
            w(ws.path(), f.as_bytes());
        }
        let found: Vec<String> = scan(ws.path(), Some(reference.path()))
            .iter()
            .map(|f| f.path.clone())
            .collect();
        assert!(found.contains(&"tools".to_string()), "{found:?}");
    }
}
