//! The reference as the structural judges read it: a folder on disk, or a commit's tree read
//! from git without being written out ([`crate::materialize::Contents::InGit`]). Writing a
//! 10,000-file revision into a folder costs more than comparing the 100 files a change
//! touches, so when only the structural judges read the reference its files stay in git and
//! are read from there: listed from the tree, the differing ones read as blobs, paths resolved
//! by name (such a tree holds no symbolic link, see [`crate::materialize`]).
//!
//! Both kinds answer the same questions the same way (the bundled pairs and a generated
//! repository are judged both ways in the tests): which files a file set selects, a file's
//! bytes, whether a path is a file or a folder.

use globset::GlobSet;
use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::select::{self, Commit, Side};
use super::{MAX_FILE_BYTES, Stamp};

/// A tree a structural judge reads the reference from.
#[derive(Clone, Debug)]
pub enum Tree {
    /// A folder on disk (a folder source, or a revision written out).
    Folder(PathBuf),
    /// A revision whose files stay in git; `folder` is its (empty) folder, named in messages.
    Commit {
        /// The empty folder standing for the tree.
        folder: PathBuf,
        /// The commit's tree.
        commit: Arc<Commit>,
    },
}

impl Tree {
    /// The tree `folder` stands for: the commit the run's `sides` hold for it when its files
    /// stay in git, else the folder itself.
    pub fn of(folder: &Path, sides: &select::Sides) -> Tree {
        match sides.side_of(folder) {
            Some(Side::Commit(commit)) if commit.in_git() => Tree::Commit {
                folder: folder.to_path_buf(),
                commit,
            },
            _ => Tree::Folder(folder.to_path_buf()),
        }
    }

    /// Whether the files stay in git (there are no stat data to compare).
    pub fn in_git(&self) -> bool {
        matches!(self, Tree::Commit { .. })
    }

    /// The folder on disk this tree is (or stands for).
    pub fn folder(&self) -> &Path {
        match self {
            Tree::Folder(f) | Tree::Commit { folder: f, .. } => f,
        }
    }

    /// The regular files a file set selects, relative and `/`-separated, with their stamps
    /// (a tree in git has no stat data: its stamps are all zero, and never change).
    pub fn list(
        &self,
        include: &GlobSet,
        exclude: &GlobSet,
    ) -> Result<BTreeMap<String, Stamp>, super::ListingError> {
        match self {
            Tree::Folder(root) => super::walk(root, include, exclude).map(|(files, _)| files),
            Tree::Commit { commit, .. } => Ok(commit
                .files()
                .filter(|(rel, _)| !under_git_dir(rel))
                .filter(|(rel, _)| include.is_match(rel) && !exclude.is_match(rel))
                .map(|(rel, _)| (rel.to_string(), Stamp::default()))
                .collect()),
        }
    }

    /// The blob id of the file `rel` of a tree in git (its content's name).
    pub fn blob_id(&self, rel: &str) -> Option<git2::Oid> {
        match self {
            Tree::Folder(_) => None,
            Tree::Commit { commit, .. } => commit.blob(rel),
        }
    }

    /// The bytes of the file `rel` (relative, `/`-separated), up to [`MAX_FILE_BYTES`].
    pub fn read(&self, rel: &str) -> Result<Vec<u8>, crate::judges::paths::FileError> {
        match self {
            Tree::Folder(root) => super::read_bounded(&root.join(rel)),
            Tree::Commit { commit, .. } => commit.read(rel, MAX_FILE_BYTES),
        }
    }

    /// Resolves `path` (relative to the tree's root, possibly with `.` and `..`) to a regular
    /// file or folder of the tree, as canonicalising it on disk would, never leaving the tree:
    /// the normalised relative path and whether it is a folder. `None` when nothing is there
    /// or the path leaves the tree.
    pub fn resolve(&self, path: &Path) -> Option<(String, bool)> {
        match self {
            Tree::Folder(root) => {
                let root = root.canonicalize().ok()?;
                let canon = root.join(path).canonicalize().ok()?;
                let rel = canon.strip_prefix(&root).ok()?.to_str()?.to_string();
                Some((rel, canon.is_dir()))
            }
            Tree::Commit { commit, .. } => {
                // Each step must exist, as for canonicalize: `missing/../pom.xml` is nothing.
                // A file followed by anything is nothing (`A.java/..`).
                let mut parts: Vec<&str> = Vec::new();
                let mut at_file = false;
                for c in path.components() {
                    if at_file && c != Component::CurDir {
                        return None;
                    }
                    match c {
                        Component::CurDir => {}
                        Component::ParentDir => {
                            parts.pop()?;
                        }
                        Component::Normal(n) => {
                            parts.push(n.to_str()?);
                            let at = parts.join("/");
                            at_file = commit.is_file(&at);
                            if !at_file && !commit.is_dir(&at) {
                                return None;
                            }
                        }
                        Component::RootDir | Component::Prefix(_) => return None,
                    }
                }
                let rel = parts.join("/");
                let dir = commit.is_dir(&rel);
                // `file/` and `file/.` name nothing on disk (ENOTDIR); components() drops them.
                let raw = path.as_os_str().as_bytes();
                if !dir && (raw.ends_with(b"/") || raw.ends_with(b"/.")) {
                    return None;
                }
                Some((rel, dir))
            }
        }
    }

    /// Whether `path` (relative to the tree's root) names a file or folder of the tree, never
    /// one outside it: `app/../../x` or a link out of the tree names nothing (a folder's answer
    /// used to depend on what lay beside the tree: the unit test below failed when /tmp/x
    /// existed).
    pub fn exists(&self, path: &Path) -> bool {
        self.resolve(path).is_some()
    }
}

/// A path under a `.git` folder, which the folder walk never enters.
fn under_git_dir(rel: &str) -> bool {
    rel.split('/').rev().skip(1).any(|c| c == ".git")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;
    use crate::materialize::{Contents, Source, materialize_as};
    use crate::test_support::{git, write};

    /// The same revision written out and left in git answers every question alike.
    #[test]
    fn a_tree_in_git_answers_as_the_folder_it_would_be_written_to() {
        let repo = tempfile::tempdir().unwrap();
        let d = repo.path();
        git(d, &["init", "-q"]);
        write(d, "pom.xml", "<project/>");
        write(d, "app/pom.xml", "<project><parent/></project>");
        write(d, "app/src/A.java", "class A {}");
        write(d, "build/base.xml", "<project/>");
        write(d, "big.bin", &"x".repeat(100));
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "r"]);
        git(d, &["tag", "ref"]);
        let written =
            materialize_as(&Source::Rev("ref".into()), d, false, Contents::Written).unwrap();
        let in_git = materialize_as(&Source::Rev("ref".into()), d, false, Contents::InGit).unwrap();
        assert_eq!(in_git.contents, Contents::InGit);
        assert_eq!(std::fs::read_dir(&in_git.path).unwrap().count(), 0);
        let sides = select::Sides::default();
        sides.register(&written, Some(&in_git));
        let (a, b) = (
            Tree::of(&written.path, &sides),
            Tree::of(&in_git.path, &sides),
        );
        assert!(matches!(a, Tree::Folder(_)));
        assert!(matches!(b, Tree::Commit { .. }));
        let all = super::super::globs(&["**/*".into()]).unwrap();
        let none = super::super::globs(&[]).unwrap();
        let keys = |t: &Tree| t.list(&all, &none).unwrap().into_keys().collect::<Vec<_>>();
        assert_eq!(keys(&a), keys(&b));
        for rel in ["pom.xml", "app/src/A.java", "big.bin", "missing", "app"] {
            assert_eq!(a.read(rel).is_ok(), b.read(rel).is_ok(), "{rel}");
            assert_eq!(a.read(rel).ok(), b.read(rel).ok(), "{rel}");
        }
        for p in [
            "app/../pom.xml",
            "app/./pom.xml",
            "app",
            "app/",
            "./build/base.xml",
            "missing/../pom.xml",
            "../pom.xml",
            "app/../../x",
            "app/src/A.java/..",
            "app/src/A.java/",
            "app/src/A.java/.",
            "pom.xml/",
            "app/",
            "app/.",
            "",
        ] {
            assert_eq!(a.resolve(Path::new(p)), b.resolve(Path::new(p)), "{p}");
            assert_eq!(a.exists(Path::new(p)), b.exists(Path::new(p)), "{p}");
        }
    }

    /// Every structural judge gives the same judgment with the reference written out and
    /// left in git: parents found by `relativePath` (a folder, `..`), `.mvn/maven.config`,
    /// a profile switched on by a file that exists, Java files that differ.
    #[test]
    fn the_judges_judge_a_reference_in_git_as_the_written_one() {
        use crate::config::checks::{AstAspect, FileSet, PomAspect};
        use crate::judges::structural::{
            Comparisons, ast_diff, file_comparison, import_diff, pom_diff,
        };
        let repo = tempfile::tempdir().unwrap();
        let d = repo.path();
        git(d, &["init", "-q"]);
        let parent = "<project><groupId>g</groupId><artifactId>parent</artifactId><version>1</version><properties><jakarta.version>6.0.0</jakarta.version></properties><profiles><profile><id>marked</id><activation><file><exists>marker.txt</exists></file></activation><properties><release>21</release></properties></profile></profiles></project>";
        let child = |dep: &str| {
            format!(
                "<project><parent><groupId>g</groupId><artifactId>parent</artifactId><version>1</version><relativePath>../build</relativePath></parent><artifactId>app</artifactId><properties><maven.compiler.release>${{release}}</maven.compiler.release></properties><dependencies><dependency><groupId>jakarta.servlet</groupId><artifactId>{dep}</artifactId><version>${{jakarta.version}}</version></dependency></dependencies></project>"
            )
        };
        write(d, "build/pom.xml", parent);
        write(d, "app/pom.xml", &child("jakarta.servlet-api"));
        write(d, "app/marker.txt", "");
        write(d, ".mvn/maven.config", "-Dextra=1\n");
        write(
            d,
            "app/src/A.java",
            "package p;\nimport jakarta.servlet.Servlet;\nclass A { void m() {} }\n",
        );
        write(d, "app/src/B.java", "package p;\nclass B {}\n");
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "r"]);
        git(d, &["tag", "ref"]);
        let ws = tempfile::tempdir().unwrap();
        let w = ws.path();
        write(w, "build/pom.xml", parent);
        write(w, "app/pom.xml", &child("servlet-api"));
        write(w, ".mvn/maven.config", "-Dextra=2\n");
        write(
            w,
            "app/src/A.java",
            "package p;\nimport javax.servlet.Servlet;\nclass A { int m() { return 1; } }\n",
        );
        write(w, "app/src/B.java", "package p;\nclass B {}\n");
        write(w, "app/src/C.java", "package p;\nclass C {}\n");
        let workspace =
            crate::materialize::materialize(&Source::Folder(w.to_path_buf()), d, false).unwrap();
        let judge_all = |reference: &Path, sides: select::Sides| {
            let c = Comparisons::new(std::sync::Arc::new(sides), None);
            let java = FileSet {
                include: vec!["**/*.java".into()],
                exclude: Vec::new(),
            };
            let every = FileSet {
                include: vec!["**/*".into()],
                exclude: Vec::new(),
            };
            let aspects = [AstAspect::Types, AstAspect::Signatures, AstAspect::Bodies];
            let poms = [
                PomAspect::Dependencies,
                PomAspect::JavaVersion,
                PomAspect::Properties,
            ];
            [
                import_diff(
                    &c,
                    w,
                    reference,
                    &java,
                    &[Language::Java],
                    &["javax.*".into()],
                    &[],
                ),
                ast_diff(&c, w, reference, &java, &[Language::Java], &aspects),
                pom_diff(&c, w, reference, &poms, false),
                file_comparison(&c, w, reference, &every),
            ]
            .map(|o| {
                let j = o.unwrap();
                (
                    j.status(),
                    j.score(),
                    j.reasoning().to_string(),
                    j.findings().to_vec(),
                )
            })
        };
        let written =
            materialize_as(&Source::Rev("ref".into()), d, false, Contents::Written).unwrap();
        let expected = {
            let sides = select::Sides::default();
            sides.register(&workspace, Some(&written));
            judge_all(&written.path, sides)
        };
        let in_git = materialize_as(&Source::Rev("ref".into()), d, false, Contents::InGit).unwrap();
        let sides = select::Sides::default();
        sides.register(&workspace, Some(&in_git));
        assert!(matches!(
            Tree::of(&in_git.path, &sides),
            Tree::Commit { .. }
        ));
        let got = judge_all(&in_git.path, sides);
        assert_eq!(got, expected);
        // The comparison found what differs (so the sameness above is not two empty runs).
        assert!(got.iter().all(|(_, _, _, f)| !f.is_empty()), "{got:#?}");
    }

    #[test]
    fn a_blob_over_the_bound_is_refused_as_a_file_over_it_is() {
        let repo = tempfile::tempdir().unwrap();
        let d = repo.path();
        git(d, &["init", "-q"]);
        let big = "y".repeat((MAX_FILE_BYTES + 1) as usize);
        write(d, "big.txt", &big);
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "r"]);
        let written =
            materialize_as(&Source::Rev("HEAD".into()), d, false, Contents::Written).unwrap();
        let in_git =
            materialize_as(&Source::Rev("HEAD".into()), d, false, Contents::InGit).unwrap();
        let sides = select::Sides::default();
        sides.register(&written, Some(&in_git));
        let (a, b) = (
            Tree::of(&written.path, &sides),
            Tree::of(&in_git.path, &sides),
        );
        let (ea, eb) = (
            a.read("big.txt").unwrap_err(),
            b.read("big.txt").unwrap_err(),
        );
        assert!(
            matches!(
                (&ea, &eb),
                (
                    crate::judges::paths::FileError::TooLarge { .. },
                    crate::judges::paths::FileError::TooLarge { .. }
                )
            ),
            "{ea} / {eb}"
        );
        assert_eq!(ea.to_string(), eb.to_string());
    }
}
