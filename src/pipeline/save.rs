//! Writing the rendered surfaces to the output folder so that a full or broken disk loses as
//! little as possible: the report JSON goes first, a JSON the folder cannot take is spilled to
//! the runner's temporary folder, no file is left half-written or stale, and every failure is
//! named instead of ending the run (the verdict was reached; its exit code still holds).

use std::path::{Path, PathBuf};

use crate::report::Surface;

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
    /// The warnings to print: each file that could not be written, and where the JSON went
    /// instead.
    pub fn warnings(&self, out: &Path) -> Vec<String> {
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
                    "judge-ci: warning: cannot write {} in {}: {e}",
                    names.join(", "),
                    out.display()
                )
            })
            .collect();
        let in_place = out.join(Surface::Json.file_name());
        match &self.report_json {
            Some(p) if *p != in_place => lines.push(format!(
                "judge-ci: warning: the report JSON was written to {} instead of {}",
                p.display(),
                in_place.display()
            )),
            Some(_) => {}
            None => lines.push(
                "judge-ci: warning: the report JSON could not be written anywhere; the verdict is on standard output (and in the job summary in GitHub Actions)"
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
        assert!(saved.warnings(&out).is_empty());
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
        let w = saved.warnings(&out);
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
                .warnings(&out)
                .last()
                .unwrap()
                .contains("standard output")
        );
    }
}
