//! `judge-ci resume --from DIR`: the second job of a split run (see `judges::split`). It reads
//! the first job's `report.json`, checks that it judged the same head with the same config and
//! the same judge-ci, and hands its judgments to the checks that run subject code; everything
//! else (structural and semantic checks, the cascade, the reading, the report) is computed here
//! from this job's own config and checkout.
//!
//! What the resumed run trusts: the first job's judgments of checks that run subject code
//! (files, commands, builds, class files, coverage, external programs, Surefire reports), and
//! its task-command records: exactly as much as the job that computed them (a fork's own
//! `pull_request` workflow can forge them; a job of the base repository cannot without
//! escaping the fence). What it does not: the stored verdict, tiers, reading and outcome, and
//! anything the first job said about a structural or semantic check.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::Benchmark;
use crate::judges::split::{Mode, Stored, judgments_of};
use crate::report::{CommandRecord, Report};

use super::error::{InputError, RunError};
use super::load::read_report;

/// How a run is split between jobs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Split {
    /// One job does everything.
    #[default]
    Whole,
    /// The first job: semantic checks are deferred (`--stop-before-semantic`).
    StopBeforeSemantic,
    /// The second job: resume the first job's output folder.
    Resume(PathBuf),
}

/// Refuses an output folder that is the first job's folder: judge-ci empties its output
/// folder of its own files before it reads anything, which would remove the input.
pub fn check_out_is_not_input(split: &Split, out: &Path) -> Result<(), RunError> {
    let Split::Resume(from) = split else {
        return Ok(());
    };
    let same = match (from.canonicalize(), out.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => from == out,
    };
    if same {
        return Err(RunError::Input(InputError::FirstJob {
            path: from.join("report.json"),
            why: "--out is the folder --from reads".to_string(),
            help: "pass --out another folder (the default judge-ci-out, or one outside the workspace)",
        }));
    }
    Ok(())
}

/// What the second job takes from the first.
pub struct FirstJob {
    /// The judge mode holding the stored judgments.
    pub mode: Mode,
    /// The task commands the first job ran.
    pub commands: Vec<CommandRecord>,
}

/// What this run acts on, which the first job's report must match (a stored report is bound
/// to its run).
#[derive(Clone, Debug, Default)]
pub struct ThisRun {
    /// The head commit judged.
    pub head_sha: Option<String>,
    /// The base commit of the pull request, when the event names one.
    pub base_sha: Option<String>,
    /// The reference judged against (`trees::reference_digest`): the first job's
    /// judgments (restored tests, FAIL_TO_PASS, comparisons) depend on it.
    pub reference_digest: Option<String>,
    /// `GITHUB_RUN_ID` inside Actions: both jobs of a split run are jobs of one run.
    pub run_id: Option<String>,
    /// The workspace judged, as the report records it (`subject.workspace`); `None` when it
    /// is a checkout judge-ci wrote out of a revision (a folder of its own each run, so the
    /// head commit binds it).
    pub workspace: Option<String>,
    /// The workspace's folder inside the repository checkout, in Actions
    /// (`subject.pathInRepository`): one repository may hold several projects judged by one
    /// config (a monorepo, a matrix).
    pub path_in_repository: Option<String>,
    /// The task judged (`--task`): its id and file, as the report records them.
    pub task: Option<(String, String)>,
}

/// Reads and checks the first job's report in `dir` against this run's config, version,
/// head, base and run, and the files beside it against the digests it records.
pub fn first_job(dir: &Path, bench: &Benchmark, this: &ThisRun) -> Result<FirstJob, RunError> {
    let head_sha = this.head_sha.as_deref();
    let path = dir.join("report.json");
    let report: Report = read_report(
        &path,
        "; pass the output folder of the run made with --stop-before-semantic",
    )?;
    let refuse = |why: String, help: &'static str| {
        Err(RunError::Input(InputError::FirstJob {
            path: path.clone(),
            why,
            help,
        }))
    };
    let version = env!("CARGO_PKG_VERSION");
    if report.tool.version != version {
        return refuse(
            format!(
                "written by judge-ci {}, and this is judge-ci {version}",
                report.tool.version
            ),
            "run the same judge-ci version in both jobs",
        );
    }
    if report.config.sha256 != bench.sha256 {
        return refuse(
            format!(
                "judged with another config ({} with SHA-256 {}, here {} with {})",
                report.config.path,
                report.config.sha256,
                bench.path.display(),
                bench.sha256
            ),
            "resume with the config the first job used (both jobs read it from the same commit)",
        );
    }
    if report.subject.head_sha.as_deref() != head_sha {
        return refuse(
            format!(
                "judged head {}, and this checkout is {}",
                report.subject.head_sha.as_deref().unwrap_or("(none)"),
                head_sha.unwrap_or("(none)")
            ),
            "check out the same commit of the pull request in both jobs",
        );
    }
    if report.subject.base_sha != this.base_sha {
        return refuse(
            format!(
                "judged against base {}, and this event's base is {}",
                report.subject.base_sha.as_deref().unwrap_or("(none)"),
                this.base_sha.as_deref().unwrap_or("(none)")
            ),
            "resume in the same workflow run as the first job, for the same event",
        );
    }
    let withheld = |d: &Option<String>| d.as_deref() == Some(super::trees::WITHHELD_DIGEST);
    if withheld(&report.subject.reference_digest) || withheld(&this.reference_digest) {
        return refuse(
            "judged against a reference this run cannot bind it to: the config's reveal hides the reference, so the report holds no digest of it without a key".to_string(),
            "set JUDGE_CI_REFERENCE_KEY from a repository secret in both jobs (the digest is then keyed), or use reveal: full",
        );
    }
    if report.subject.reference_digest != this.reference_digest {
        return refuse(
            format!(
                "judged against another reference ({}, and this run's is {})",
                report.subject.reference_digest.as_deref().unwrap_or("none"),
                this.reference_digest.as_deref().unwrap_or("none")
            ),
            "resume with the reference the first job used (the config's, with no --reference in either job, or the same --reference in both)",
        );
    }
    if this.run_id.is_some() && report.subject.run_id != this.run_id {
        return refuse(
            format!(
                "written by run {}, and this is run {}",
                report.subject.run_id.as_deref().unwrap_or("(none)"),
                this.run_id.as_deref().unwrap_or("(none)")
            ),
            "resume the first job of this workflow run (download its artifact by this run's id)",
        );
    }
    // The same subject folder (attack finding F27): in Actions its place in the repository,
    // else the folder as recorded.
    let workspace_differs =
        if this.path_in_repository.is_some() || report.subject.path_in_repository.is_some() {
            report.subject.path_in_repository != this.path_in_repository
        } else {
            this.workspace
                .as_ref()
                .is_some_and(|w| *w != report.subject.workspace)
        };
    if workspace_differs {
        return refuse(
            format!(
                "judged the workspace {}, and this run judges {}",
                report
                    .subject
                    .path_in_repository
                    .as_ref()
                    .map_or(report.subject.workspace.clone(), |p| format!(
                        "`{p}` of the repository"
                    )),
                this.path_in_repository.as_ref().map_or_else(
                    || this.workspace.clone().unwrap_or_default(),
                    |p| format!("`{p}` of the repository")
                )
            ),
            "resume with the --workspace the first job judged (one first job per project)",
        );
    }
    // The same task (attack finding F26): a first job judged without the task ran none of its
    // commands (the hidden tests of `post` above all), and its report must not stand for a
    // run of it; nor one of another task.
    let theirs = report.task.as_ref().map(|t| (t.id.clone(), t.path.clone()));
    if theirs != this.task {
        let name = |t: &Option<(String, String)>| {
            t.as_ref().map_or("no task".to_string(), |(id, path)| {
                format!("task `{id}` ({path})")
            })
        };
        return refuse(
            format!(
                "judged {}, and this run judges {}",
                name(&theirs),
                name(&this.task)
            ),
            "resume with the --task the first job ran (its setup and post commands run there, never in the second job)",
        );
    }
    if let Err(why) = as_written(dir, &report) {
        return refuse(
            why,
            "pass the first job's folder as it wrote it (its artifact, downloaded whole)",
        );
    }
    let mut judgments = judgments_of(&report.verdict);
    // A stored judgment counts only for a check of the same name and type in this config.
    let types: std::collections::HashMap<&str, &str> = report
        .tiers
        .iter()
        .flat_map(|t| &t.judges)
        .map(|j| (j.name.as_str(), j.judge_type.as_str()))
        .collect();
    let checks = bench.jury.all_checks();
    judgments.retain(|name, _| {
        checks
            .iter()
            .any(|c| &c.name == name && types.get(name.as_str()) == Some(&c.check_type().token()))
    });
    Ok(FirstJob {
        mode: Mode::Resume(Arc::new(Stored {
            from: path.clone(),
            judgments,
        })),
        commands: report.task.map(|t| t.commands).unwrap_or_default(),
    })
}

/// Whether `dir` holds what the judge-ci run that wrote `report` (its `report.json`) left
/// there and nothing else: every surface the report records, with the digest it records,
/// and no other file but the event copy. A later step that reads the folder (`resume`,
/// `publish`) refuses anything else, saying why: a file planted beside the reports, one
/// changed after the run, a report edited to drop its digests.
pub fn as_written(dir: &Path, report: &Report) -> Result<(), String> {
    // This judge-ci always records the digests: a report without them was edited.
    if report.surface_digests.is_empty() {
        return Err(
            "records no surfaceDigests, which every report of this judge-ci holds".to_string(),
        );
    }
    // A surface is a plain file name of the folder: the report names no other file for this
    // job to open (attack finding G10: `/proc/self/environ`, `../x`).
    if let Some(name) = report
        .surface_digests
        .keys()
        .find(|n| n.is_empty() || n.contains('/') || n.contains('\\') || *n == "." || *n == "..")
    {
        return Err(format!(
            "names {name:?} in surfaceDigests, which is not a file name of its folder"
        ));
    }
    // Nothing but what the run wrote: a file beside them was planted or added later.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let written = name == "report.json"
                || name == super::publish::EVENT_FILE
                || report.surface_digests.contains_key(&name);
            if !written {
                return Err(format!(
                    "{} is not a file the run wrote",
                    dir.join(&name).display()
                ));
            }
        }
    }
    for (name, digest) in &report.surface_digests {
        use sha2::Digest;
        let file = dir.join(name);
        let found = crate::untrusted::read_io(&file, crate::untrusted::MAX_STORED_BYTES)
            .map(|b| hex::encode(sha2::Sha256::digest(&b)))
            .map_err(|e| e.to_string());
        if found.as_ref() != Ok(digest) {
            return Err(format!(
                "{} is not the file the run wrote ({})",
                file.display(),
                match found {
                    Ok(d) => format!("SHA-256 {d}, the report records {digest}"),
                    Err(e) => e,
                }
            ));
        }
    }
    Ok(())
}
