//! The output folder: made ready before any subject code runs (judge-ci's own names removed,
//! see [`prepare`]), then the rendered surfaces written so that a full or broken disk loses as
//! little as possible: the report JSON goes first, a JSON the folder cannot take is copied to
//! the runner's temporary folder for a person to read, no file is left half-written or stale,
//! and every failure is named. A file that could not be written, or one a subject process
//! planted beside judge-ci's, fails the run (exit 3): a later step or job reads this folder,
//! and must never read a file judge-ci did not write (trust.md point 22).

use std::path::{Path, PathBuf};

use crate::report::Surface;

/// The names judge-ci writes in an output folder: every surface, the event copy of a run in
/// Actions and the record of a cancelled run. A file of one of these names that this run did
/// not write would be read by a later step as this run's.
pub fn own_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Surface::ALL.iter().map(|s| s.file_name()).collect();
    names.extend([super::publish::EVENT_FILE, super::cancelled::RECORD_FILE]);
    names
}

/// The output folder as it was before any subject process ran: made if missing, emptied of
/// judge-ci's own names, and what else it held (which judge-ci leaves alone).
#[derive(Debug, Default)]
pub struct Prepared {
    /// Entries other than judge-ci's names that were there before the run.
    before: std::collections::BTreeSet<std::ffi::OsString>,
}

/// Why the output folder cannot be made ready: an instrument failure (exit 3), since a later
/// step would otherwise read a file judge-ci did not write.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// The folder cannot be made or listed.
    #[error("cannot make or list the output folder {}: {error}", .out.display())]
    Folder {
        /// The folder.
        out: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// Entries of the folder that the checked-out commit tracks (the pull request committed
    /// them into the output folder): a later step that takes the folder would take them as
    /// judge-ci's (attack finding GA5).
    #[error(
        "the output folder {} holds {} committed in the checked-out tree (git tracks {}), which judge-ci did not write; a later step or job that takes the folder would read {} as this run's. The run fails (exit 3) before any subject code runs; remove {} from the tree, or pass --out a folder outside the workspace",
        .out.display(),
        .names.join(", "),
        if .names.len() == 1 { "it" } else { "them" },
        if .names.len() == 1 { "it" } else { "them" },
        if .names.len() == 1 { "it" } else { "them" }
    )]
    Committed {
        /// The folder.
        out: PathBuf,
        /// The committed entries, by name.
        names: Vec<String>,
    },
    /// A file of judge-ci's own name is there and cannot be removed.
    #[error(
        "the output folder holds {} from before this run and judge-ci cannot remove it ({error}); a later step would read it as this run's. Remove it, or pass --out an empty folder outside the workspace",
        .path.display()
    )]
    Stale {
        /// The file.
        path: PathBuf,
        /// Why it could not be removed.
        error: std::io::Error,
    },
}

/// Makes `out` ready before any subject code runs: creates it, and removes every file of
/// judge-ci's own names ([`own_names`]) that an earlier run, or the pull request's tree, left
/// there. Anything of those names that cannot be removed (a read-only folder, a folder in its
/// place) is an error, never a file judge-ci writes around.
pub fn prepare(out: &Path) -> Result<Prepared, PrepareError> {
    let folder = |error| PrepareError::Folder {
        out: out.to_path_buf(),
        error,
    };
    std::fs::create_dir_all(out).map_err(folder)?;
    for name in own_names() {
        let path = out.join(name);
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(PrepareError::Stale { path, error }),
            Ok(m) if m.is_dir() => {
                return Err(PrepareError::Stale {
                    path,
                    error: std::io::Error::other("a folder, where judge-ci writes a file"),
                });
            }
            Ok(_) => {}
        }
        std::fs::remove_file(&path).map_err(|error| PrepareError::Stale { path, error })?;
    }
    let before = entries(out).map_err(folder)?;
    let names = committed(out, &before);
    if !names.is_empty() {
        return Err(PrepareError::Committed {
            out: out.to_path_buf(),
            // Names the pull request chose, printed on the step log: escaped.
            names: names
                .iter()
                .map(|n| crate::untrusted::shown(Path::new(n)))
                .collect(),
        });
    }
    Ok(Prepared { before })
}

/// The entries of `names` in `out` that the commit checked out around `out` tracks: the
/// subject's files (a pull request's tree), never the maintainer's or a step's. Entries that
/// no repository tracks (a file an earlier trusted step left) are not named.
fn committed(out: &Path, names: &std::collections::BTreeSet<std::ffi::OsString>) -> Vec<String> {
    if names.is_empty() {
        return Vec::new();
    }
    let Ok(repo) = git2::Repository::discover(out) else {
        return Vec::new();
    };
    let (Some(root), Ok(tree)) = (
        repo.workdir().and_then(|w| std::fs::canonicalize(w).ok()),
        repo.head().and_then(|h| h.peel_to_tree()),
    ) else {
        return Vec::new();
    };
    let Some(rel) = std::fs::canonicalize(out)
        .ok()
        .and_then(|o| o.strip_prefix(&root).ok().map(Path::to_path_buf))
    else {
        return Vec::new();
    };
    names
        .iter()
        .filter(|n| tree.get_path(&rel.join(n)).is_ok())
        .map(|n| crate::untrusted::shown(Path::new(n)))
        .collect()
}

fn entries(out: &Path) -> std::io::Result<std::collections::BTreeSet<std::ffi::OsString>> {
    let own = own_names();
    let mut names = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(out)? {
        let name = e?.file_name();
        if !own.iter().any(|o| std::ffi::OsStr::new(o) == name) {
            names.insert(name);
        }
    }
    Ok(names)
}

impl Prepared {
    /// Entries of `out` that are neither judge-ci's names nor there before the run: written
    /// by a subject process while it ran (the folder is inside the workspace, where the fence
    /// cannot hide it). A later step that takes the whole folder would take them too.
    pub fn planted(&self, out: &Path) -> Vec<PathBuf> {
        match entries(out) {
            Ok(now) => now.difference(&self.before).map(|n| out.join(n)).collect(),
            Err(e) => vec![out.join(format!("(cannot list the folder: {e})"))],
        }
    }
}

/// The SHA-256 (hex) of every surface but the JSON, by file name, of the bytes
/// [`write_atomically`] writes (secrets masked).
pub fn digests(surfaces: &[(Surface, String)]) -> std::collections::BTreeMap<String, String> {
    use sha2::Digest;
    surfaces
        .iter()
        .filter(|(s, _)| *s != Surface::Json)
        .map(|(s, text)| {
            let bytes = crate::secrets::redact_bytes(text.as_bytes());
            (
                s.file_name().to_string(),
                hex::encode(sha2::Sha256::digest(bytes.as_ref())),
            )
        })
        .collect()
}

/// Replaces the JSON surface's text with `json`.
pub fn replace_json(surfaces: &mut [(Surface, String)], json: String) {
    if let Some((_, text)) = surfaces.iter_mut().find(|(s, _)| *s == Surface::Json) {
        *text = json;
    }
}

/// Prints an error naming each entry a subject process planted in the output folder while
/// the run went on (see [`Prepared::planted`]); whether there was any.
pub fn report_planted(prepared: &Prepared, out: &Path) -> bool {
    let planted = prepared.planted(out);
    for p in &planted {
        eprintln!(
            "judge-ci: error: {} appeared in the output folder while the run went on, and judge-ci did not write it: a subject process wrote there (the folder is inside the workspace, where the fence cannot hide it). The run fails (exit 3); pass --out a folder outside the workspace",
            crate::untrusted::shown(p)
        );
    }
    !planted.is_empty()
}

/// After a run that failed on its outputs (exit 3), once [`withdraw`] took judge-ci's files
/// out: removes everything else a subject process left in `out` while the run went on (a
/// forged `report.json` it made read-only, a `report.sarif/` folder whose files a code-scanning
/// upload would take), so that no later step, `if: always()` or not, reads a file judge-ci
/// did not write (attack finding G6). The folder's mode is made writable for its owner first
/// (a subject of the same user may have made it read-only); entries that were there before
/// the run are the maintainer's and stay. Each removal that fails is named.
pub fn clear_planted(prepared: &Prepared, out: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(out) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    let mode = meta.permissions().mode();
    if mode & 0o700 != 0o700 {
        let _ = std::fs::set_permissions(out, std::fs::Permissions::from_mode(mode | 0o700));
    }
    let own = own_names();
    let Ok(entries) = std::fs::read_dir(out) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let judge_cis = own.iter().any(|o| std::ffi::OsStr::new(o) == name);
        if !judge_cis && prepared.before.contains(&name) {
            continue;
        }
        let path = e.path();
        let gone = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
            Ok(_) => std::fs::remove_file(&path),
            Err(e) => Err(e),
        };
        match gone {
            // The name is the subject's: escaped, so a newline in it never starts a line
            // the runner reads as a workflow command (attack finding B11-12).
            Ok(()) => eprintln!(
                "judge-ci: error: removed {}, which a subject process left in the output folder",
                crate::untrusted::shown(&path)
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => eprintln!(
                "judge-ci: error: cannot remove {}: {e}; a subject process left it there: do not read it",
                crate::untrusted::shown(&path)
            ),
        }
    }
}

/// After a run that failed on its outputs (exit 3): takes judge-ci's files out of `out`, so that
/// no later step or job reads a report of a run that failed, or a folder a subject process
/// tampered with, as if it were whole (the verdict stays in the log, the job summary and a copy
/// in `spill_dir`, which is printed). An output folder the subject turned into a symbolic link
/// is removed as a link (nothing is removed through it). Returns where the report JSON is now:
/// `kept` unless it was in `out`, then its copy.
pub fn withdraw(out: &Path, spill_dir: &Path, kept: Option<PathBuf>) -> Option<PathBuf> {
    if std::fs::symlink_metadata(out).is_ok_and(|m| m.file_type().is_symlink()) {
        match std::fs::remove_file(out) {
            Ok(()) => eprintln!(
                "judge-ci: error: removed the symbolic link {} that a subject process left where the output folder was",
                out.display()
            ),
            Err(e) => eprintln!(
                "judge-ci: error: cannot remove the symbolic link {}: {e}; do not read it",
                out.display()
            ),
        }
        return kept;
    }
    if check_out_dir(out).is_err() {
        return kept;
    }
    let in_place = out.join(Surface::Json.file_name());
    let mut now = kept.filter(|p| *p != in_place);
    if let Ok(text) = std::fs::read_to_string(&in_place)
        && let Ok(p) = spill(spill_dir, &text)
    {
        eprintln!(
            "judge-ci: error: the run failed on its outputs; its report is kept at {} for you to read, and taken out of {}",
            p.display(),
            out.display()
        );
        now = Some(p);
    }
    for name in own_names() {
        match std::fs::remove_file(out.join(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => eprintln!(
                "judge-ci: error: cannot remove {}: {e}; it is not a whole report of this run",
                out.join(name).display()
            ),
        }
    }
    now
}

/// Where the run's files went, and which could not be written.
#[derive(Debug, Default)]
pub struct Saved {
    /// The report JSON as written: in the output folder, in a spill file when the folder could
    /// not take it, or nowhere when neither could.
    pub report_json: Option<PathBuf>,
    /// The files that could not be written, with the error.
    pub failed: Vec<(PathBuf, std::io::Error)>,
}

impl Saved {
    /// Whether anything could not be written: an instrument failure of the run (exit 3),
    /// whatever the verdict, since a later step would read a missing, stale or spilled file.
    pub fn failed_any(&self) -> bool {
        !self.failed.is_empty() || self.report_json.is_none()
    }

    /// The errors to print: each file that could not be written, and where the JSON went
    /// instead.
    pub fn errors(&self, out: &Path) -> Vec<String> {
        // One line per error: a full disk refuses every file for the same reason.
        let mut by_error: Vec<(String, Vec<String>)> = Vec::new();
        for (p, e) in &self.failed {
            let name = p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            let e = e.to_string();
            match by_error.iter_mut().find(|(k, _)| *k == e) {
                Some((_, names)) => names.push(name),
                None => by_error.push((e, vec![name])),
            }
        }
        let mut lines: Vec<String> = by_error
            .into_iter()
            .map(|(e, names)| {
                format!(
                    "judge-ci: error: cannot write {} in {}: {e}",
                    names.join(", "),
                    out.display()
                )
            })
            .collect();
        let in_place = out.join(Surface::Json.file_name());
        match &self.report_json {
            Some(p) if *p != in_place => lines.push(format!(
                "judge-ci: error: the report JSON was written to {} instead of {} (a copy for you to read; the run fails with exit 3, since a later step reads the folder)",
                p.display(),
                in_place.display()
            )),
            Some(_) => {}
            None => lines.push(
                "judge-ci: error: the report JSON could not be written anywhere; the verdict is on standard output (and in the job summary in GitHub Actions)"
                    .to_string(),
            ),
        }
        lines
    }
}

/// Why the output folder is refused.
#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    /// The working folder, which a relative `--out` is under, cannot be read.
    #[error("cannot read the working folder: {0}")]
    WorkingFolder(#[source] std::io::Error),
    /// A symbolic link on the way to the output folder.
    #[error(
        "the output folder {} is, or is under, a symbolic link ({}); judge-ci does not write its reports through a link. Remove the link, or pass --out a real folder outside the workspace",
        .out.display(),
        .link.display()
    )]
    Link {
        /// `--out` as given.
        out: PathBuf,
        /// The link found on the way.
        link: PathBuf,
    },
}

/// Refuses an output folder that is, or sits under, a symbolic link: a pull request that
/// commits `judge-ci-out` (or a folder above it) as a link would otherwise have the reports
/// written, and stale ones removed, wherever it points. Folders above the working folder
/// are the machine's, not the subject's, and are not checked; every component from there
/// down that exists must be a real folder.
pub fn check_out_dir(out: &Path) -> Result<(), OutDirError> {
    let cwd = std::env::current_dir().map_err(OutDirError::WorkingFolder)?;
    let full = cwd.join(out);
    let mut prefix = PathBuf::new();
    for c in full.components() {
        prefix.push(c);
        if !matches!(c, std::path::Component::Normal(_)) || cwd.starts_with(&prefix) {
            continue;
        }
        match std::fs::symlink_metadata(&prefix) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(OutDirError::Link {
                    out: out.to_path_buf(),
                    link: prefix,
                });
            }
            Ok(_) => {}
            // The rest does not exist yet and will be created as real folders.
            Err(_) => break,
        }
    }
    Ok(())
}

/// Writes `surfaces` (the report JSON first) into `out`. A file that cannot be written is
/// recorded, its stale copy from an earlier run removed, and the rest still tried; a JSON
/// that cannot go to `out` goes to `spill_dir`. An output folder that became a symbolic
/// link while the subject ran (see [`check_out_dir`]) takes nothing, and nothing is removed
/// through it.
pub fn surfaces(out: &Path, surfaces: &[(Surface, String)], spill_dir: &Path) -> Saved {
    let mut saved = Saved::default();
    if let Err(why) = check_out_dir(out) {
        for (surface, text) in surfaces {
            if *surface == Surface::Json {
                saved.report_json = spill(spill_dir, text).ok();
            }
            saved.failed.push((
                out.join(surface.file_name()),
                std::io::Error::other(why.to_string()),
            ));
        }
        return saved;
    }
    let folder = std::fs::create_dir_all(out);
    let mut ordered: Vec<&(Surface, String)> = surfaces.iter().collect();
    ordered.sort_by_key(|(s, _)| *s != Surface::Json);
    for (surface, text) in ordered {
        let path = out.join(surface.file_name());
        let result = match &folder {
            Ok(()) => write_atomically(&path, text.as_bytes()),
            Err(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
        };
        match result {
            Ok(()) if *surface == Surface::Json => saved.report_json = Some(path),
            Ok(()) => {}
            Err(e) => {
                // An earlier run's file of the same name would now be mistaken for this one.
                let _ = std::fs::remove_file(&path);
                if *surface == Surface::Json {
                    saved.report_json = spill(spill_dir, text).ok();
                }
                saved.failed.push((path, e));
            }
        }
    }
    saved
}

/// The folder for a spilled report JSON: the runner's temporary folder in GitHub Actions,
/// else the system's.
pub fn spill_dir() -> PathBuf {
    std::env::var_os("RUNNER_TEMP")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
}

/// Writes the report JSON to a new file `judge-ci-report-*.json` in `dir`, kept.
fn spill(dir: &Path, text: &str) -> std::io::Result<PathBuf> {
    let mut f = tempfile::Builder::new()
        .prefix("judge-ci-report-")
        .suffix(".json")
        .tempfile_in(dir)?;
    std::io::Write::write_all(f.as_file_mut(), crate::secrets::redact(text).as_bytes())?;
    let (_, path) = f.keep().map_err(|e| e.error)?;
    Ok(path)
}

/// A file of the output that could not be written: an instrument failure (exit 3), never a
/// bad input.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {error}", path.display())]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// Why (in the message, so not a `source` too: it would be printed twice).
    pub error: std::io::Error,
}

/// [`write_atomically`], with the path in the error.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_atomically(path, bytes).map_err(|error| WriteError {
        path: path.to_path_buf(),
        error,
    })
}

/// Writes through a temporary file in the same folder, then renames: a reader never sees a
/// half-written file, and a failed write leaves none behind.
///
/// The redaction boundary for files: every known secret in `bytes` is written as `***`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let bytes = crate::secrets::redact_bytes(bytes);
    let bytes = bytes.as_ref();
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    // Through the file itself: NamedTempFile's own writer adds the temporary name to its
    // errors, which means nothing to a user.
    std::io::Write::write_all(tmp.as_file_mut(), bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(json: &str) -> Vec<(Surface, String)> {
        vec![
            (Surface::Markdown, "# md\n".into()),
            (Surface::Json, json.into()),
            (Surface::Junit, "<testsuites/>".into()),
        ]
    }

    #[test]
    fn writes_the_json_first_and_reports_it_in_place() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("out");
        let saved = surfaces(&out, &all("{}"), d.path());
        assert!(saved.failed.is_empty());
        assert_eq!(saved.report_json, Some(out.join("report.json")));
        assert_eq!(
            std::fs::read_to_string(out.join("report.md")).unwrap(),
            "# md\n"
        );
        assert!(saved.errors(&out).is_empty());
    }

    #[test]
    fn an_unwritable_folder_spills_the_json_and_removes_nothing_it_should_keep() {
        let d = tempfile::tempdir().unwrap();
        // A file where the output folder should be: nothing can be created inside it.
        let out = d.path().join("out");
        std::fs::write(&out, "not a folder").unwrap();
        let spill_to = d.path().join("spill");
        std::fs::create_dir(&spill_to).unwrap();
        let saved = surfaces(&out, &all("{\"a\":1}"), &spill_to);
        assert_eq!(saved.failed.len(), 3);
        let spilled = saved.report_json.clone().unwrap();
        assert!(spilled.starts_with(&spill_to));
        assert_eq!(std::fs::read_to_string(&spilled).unwrap(), "{\"a\":1}");
        let w = saved.errors(&out);
        assert_eq!(
            w.len(),
            2,
            "a line for the three files, one for the spill: {w:?}"
        );
        assert!(
            w[0].contains("cannot write report.json, report.md, junit.xml in"),
            "{w:?}"
        );
        assert!(w[1].contains("instead of"), "{w:?}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "not a folder");
    }

    #[test]
    fn an_output_folder_that_is_or_sits_under_a_link_takes_nothing() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("elsewhere");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("report.md"), "precious").unwrap();
        let link = d.path().join("out");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let spill_to = d.path().join("spill");
        std::fs::create_dir(&spill_to).unwrap();
        for out in [link.clone(), link.join("below")] {
            assert!(
                check_out_dir(&out)
                    .unwrap_err()
                    .to_string()
                    .contains("symbolic link")
            );
            let saved = surfaces(&out, &all("{}"), &spill_to);
            assert_eq!(saved.failed.len(), 3);
            assert!(saved.report_json.unwrap().starts_with(&spill_to));
        }
        assert_eq!(
            std::fs::read_dir(&target).unwrap().count(),
            1,
            "nothing written or removed through the link"
        );
        assert_eq!(
            std::fs::read_to_string(target.join("report.md")).unwrap(),
            "precious"
        );
        assert!(check_out_dir(&d.path().join("real/new")).is_ok());
    }

    #[test]
    fn files_that_are_links_are_replaced_not_followed() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let out = d.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink(&victim, out.join("report.md")).unwrap();
        let saved = surfaces(&out, &all("{}"), d.path());
        assert!(saved.failed.is_empty());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert!(
            !out.join("report.md")
                .symlink_metadata()
                .unwrap()
                .is_symlink()
        );
    }

    #[test]
    fn nowhere_to_write_says_where_the_verdict_is() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("out");
        std::fs::write(&out, "x").unwrap();
        let saved = surfaces(&out, &all("{}"), &d.path().join("missing"));
        assert_eq!(saved.report_json, None);
        assert!(
            saved
                .errors(&out)
                .last()
                .unwrap()
                .contains("standard output")
        );
    }

    #[test]
    fn prepare_removes_judge_cis_own_names_keeps_the_rest_and_finds_what_appears() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("out");
        std::fs::create_dir(&out).unwrap();
        for n in [
            "report.json",
            "report.sarif",
            "event.json",
            "cancelled.json",
            "mine.txt",
        ] {
            std::fs::write(out.join(n), "old").unwrap();
        }
        let prepared = prepare(&out).unwrap();
        let left: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, vec!["mine.txt"]);
        assert!(prepared.planted(&out).is_empty());
        std::fs::write(out.join("report.json"), "this run's").unwrap();
        std::fs::write(out.join("planted.sarif"), "x").unwrap();
        assert_eq!(prepared.planted(&out), vec![out.join("planted.sarif")]);
        // Made when missing.
        assert!(prepare(&d.path().join("new/out")).is_ok());
    }

    #[test]
    fn files_the_checked_out_tree_commits_into_the_output_folder_are_refused() {
        // Attack finding GA5: a pull request's `judge-ci-out/suite.json` and `extra.sarif`
        // stayed beside the reports and were uploaded as judge-ci's.
        let d = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(d.path()).unwrap();
        let out = d.path().join("judge-ci-out");
        std::fs::create_dir(&out).unwrap();
        for n in ["suite.json", "extra.sarif", "report.json"] {
            std::fs::write(out.join(n), "forged").unwrap();
        }
        let mut index = repo.index().unwrap();
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "pr", &tree, &[])
            .unwrap();
        std::fs::write(out.join("notes.txt"), "a step's own file, not committed").unwrap();
        let e = prepare(&out).unwrap_err();
        let PrepareError::Committed { names, .. } = &e else {
            panic!("{e}")
        };
        assert_eq!(names, &["extra.sarif", "suite.json"], "{e}");
        // judge-ci's own name was removed as before, the step's file is not named.
        assert!(!out.join("report.json").exists());
        assert!(!e.to_string().contains("notes.txt"));
    }

    #[test]
    fn a_folder_of_judge_cis_own_name_is_refused() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("report.json/inside")).unwrap();
        let e = prepare(d.path()).unwrap_err().to_string();
        assert!(e.contains("cannot remove it"), "{e}");
    }

    #[test]
    fn any_file_not_written_fails_the_run() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("out");
        std::fs::write(&out, "not a folder").unwrap();
        assert!(surfaces(&out, &all("{}"), d.path()).failed_any());
        let ok = d.path().join("ok");
        assert!(!surfaces(&ok, &all("{}"), d.path()).failed_any());
    }
}
