//! Evidence is made in this run, not found in the pull request (`spec/trust.md` point 11).
//! The first build of a run (`maven-build`, `gradle-build`) starts from clean output folders,
//! with the properties that switch tests off pinned on its command line; the judges that read
//! what a build leaves (Surefire and JaCoCo reports, class files) refuse a file that git
//! tracks, or one older than this run's first build: the subject could have committed it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use crate::config::checks::BuildTool;

/// Maven properties pinned on the build's command line, after whatever `.mvn/maven.config`
/// (the subject's) says: tests run, and their failures fail the build.
pub const MAVEN_PINNED: &[&str] = &[
    "-DskipTests=false",
    "-Dmaven.test.skip=false",
    "-Dmaven.test.skip.exec=false",
    "-Dmaven.test.failure.ignore=false",
    "-Dmaven.test.error.ignore=false",
    "-Dsurefire.skip=false",
    "-DskipITs=false",
    "-Djacoco.skip=false",
];

/// How far a file's time stamp may lag the clock judge-ci reads (file systems stamp with a
/// coarse clock, a few milliseconds behind).
const CLOCK_SLACK: Duration = Duration::from_millis(20);

/// When this run's first build started; shared by the judges of one run.
#[derive(Debug, Default)]
pub struct EvidenceClock {
    first_build: OnceLock<SystemTime>,
    cleaned: OnceLock<()>,
}

impl EvidenceClock {
    /// Marks a build (any build-phase judge) starting; true for the run's first.
    pub fn build_starts(&self) -> bool {
        let mut first = false;
        self.first_build.get_or_init(|| {
            first = true;
            SystemTime::now()
        });
        first
    }

    /// True once per run: for the first `maven-build` or `gradle-build`, which cleans the
    /// output folders (a later build keeps what an earlier one of this run wrote).
    pub fn clean_once(&self) -> bool {
        let mut first = false;
        self.cleaned.get_or_init(|| first = true);
        first
    }

    /// Evidence older than this is not this run's; `None` before any build started (then only
    /// files tracked in git are refused).
    pub fn since(&self) -> Option<SystemTime> {
        self.first_build
            .get()
            .map(|t| t.checked_sub(CLOCK_SLACK).unwrap_or(*t))
    }
}

/// A build output folder the pull request committed that judge-ci could not remove before
/// the run's first build (the build would start on what the pull request put there).
#[derive(Debug, thiserror::Error)]
#[error("cannot remove the old build output {folder}: {source}")]
pub struct CleanError {
    /// The folder, relative to the workspace.
    pub folder: String,
    /// Why.
    #[source]
    pub source: std::io::Error,
}

/// Removes the build output folders of the workspace before the run's first build
/// ([`BuildTool::output_folder`] beside every one of [`BuildTool::build_files`]: `target/`
/// beside every `pom.xml`, `build/` beside every Gradle build). Symbolic links are removed as
/// links, never followed. Returns the folders removed.
pub fn clean_outputs(workspace: &Path, tool: BuildTool) -> Result<Vec<String>, CleanError> {
    let (markers, out_dir) = (tool.build_files(), tool.output_folder());
    let mut removed = Vec::new();
    let projects: Vec<PathBuf> = walkdir::WalkDir::new(workspace)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || (e.file_type().is_dir()
                    && e.file_name() != ".git"
                    && e.file_name() != out_dir
                    && e.file_name() != "node_modules")
                || e.file_type().is_file()
        })
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_type().is_file() && markers.iter().any(|m| e.file_name().to_str() == Some(*m))
        })
        .filter_map(|e| e.path().parent().map(Path::to_path_buf))
        .collect();
    for dir in projects {
        let out = dir.join(out_dir);
        let Ok(m) = std::fs::symlink_metadata(&out) else {
            continue;
        };
        let result = if m.is_dir() {
            std::fs::remove_dir_all(&out)
        } else {
            std::fs::remove_file(&out)
        };
        let shown = out
            .strip_prefix(workspace)
            .unwrap_or(&out)
            .display()
            .to_string();
        result.map_err(|source| CleanError {
            folder: shown.clone(),
            source,
        })?;
        removed.push(shown);
    }
    Ok(removed)
}

/// Checks files a build should have written in this run.
pub struct Freshness {
    since: Option<SystemTime>,
    root: Option<PathBuf>,
    tracked: HashSet<PathBuf>,
}

impl Freshness {
    /// A checker for files of `workspace`, with the run's first build start (if any).
    pub fn new(workspace: &Path, since: Option<SystemTime>) -> Freshness {
        let repo = git2::Repository::discover(workspace).ok();
        let root = repo
            .as_ref()
            .and_then(|r| r.workdir())
            .and_then(|w| w.canonicalize().ok());
        let tracked = repo
            .and_then(|r| r.index().ok())
            .map(|idx| {
                idx.iter()
                    .map(|e| PathBuf::from(String::from_utf8_lossy(&e.path).into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        Freshness {
            since,
            root,
            tracked,
        }
    }

    /// Why the first of `files` (of the workspace) that is not this run's evidence is not,
    /// named relative to the workspace; `None` when every one may be.
    pub fn refuse_any(&self, workspace: &Path, files: &[PathBuf]) -> Option<String> {
        files.iter().find_map(|f| {
            let rel = f.strip_prefix(workspace).unwrap_or(f).display().to_string();
            self.refuse(f, &rel)
        })
    }

    /// Why `file` is not this run's evidence (`shown` names it), or `None` when it may be.
    pub fn refuse(&self, file: &Path, shown: &str) -> Option<String> {
        if let (Some(root), Ok(real)) = (&self.root, file.canonicalize())
            && let Ok(rel) = real.strip_prefix(root)
            && self.tracked.contains(rel)
        {
            return Some(format!(
                "{shown} is tracked in git: it came with the pull request, not from this run's build"
            ));
        }
        let since = self.since?;
        let modified = std::fs::metadata(file).and_then(|m| m.modified()).ok()?;
        (modified < since)
            .then(|| format!("{shown} is older than this run's build: it was not written by it"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_cleaned_and_old_evidence_refused() {
        let d = tempfile::tempdir().unwrap();
        let ws = d.path();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep"), "x").unwrap();
        std::fs::create_dir_all(ws.join("target/surefire-reports")).unwrap();
        std::fs::write(ws.join("pom.xml"), "<project/>").unwrap();
        std::fs::write(ws.join("target/surefire-reports/TEST-a.xml"), "<x/>").unwrap();
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::write(ws.join("sub/pom.xml"), "<project/>").unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.join("sub/target")).unwrap();
        let removed = clean_outputs(ws, BuildTool::Maven).unwrap();
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert!(!ws.join("target").exists() && !ws.join("sub/target").exists());
        assert!(
            outside.path().join("keep").exists(),
            "a link is removed, not followed"
        );

        std::fs::write(ws.join("old.xml"), "<x/>").unwrap();
        std::thread::sleep(Duration::from_millis(60));
        let clock = EvidenceClock::default();
        assert!(clock.since().is_none());
        assert!(clock.build_starts());
        assert!(!clock.build_starts());
        std::fs::write(ws.join("new.xml"), "<x/>").unwrap();
        let f = Freshness::new(ws, clock.since());
        assert!(f.refuse(&ws.join("old.xml"), "old.xml").is_some());
        assert!(f.refuse(&ws.join("new.xml"), "new.xml").is_none());
    }
}
