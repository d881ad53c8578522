//! The manifest every suite output folder carries (`manifest.json`): which suite it is a
//! share of (the digest of the suite definition and its task keys), which shard, the tasks
//! it owns, the run, and the SHA-256 of `suite.json` and of every task report. `merge`
//! checks each shard folder against its manifest and the manifests against one another, so a
//! missing, doubled, overlapping, foreign or altered shard is refused, naming it, never merged
//! into a smaller or rosier suite (trust.md point 22).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{InputError, OutputError, Shard, SuiteError, SuiteReport, TaskEntry};

/// The manifest's schema name.
pub const MANIFEST_SCHEMA: &str = "judge-ci.shard-manifest.v1";

/// The manifest's file name in a suite output folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// What a suite output folder holds, and what it was meant to hold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// [`MANIFEST_SCHEMA`].
    pub schema: String,
    /// judge-ci's version.
    pub tool_version: String,
    /// SHA-256 of the suite definition: every selected task's key with the SHA-256 of its
    /// benchmark and task files, and the filters.
    pub suite_digest: String,
    /// Every task of the suite (after filters, before sharding), by key.
    pub suite_tasks: Vec<String>,
    /// `K/N`, or absent for a whole (or merged) suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// The tasks this folder owns, by key.
    pub owned: Vec<String>,
    /// `GITHUB_RUN_ID` of the run that wrote it, inside Actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// `GITHUB_SHA` of the run that wrote it, inside Actions: the commit it judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_sha: Option<String>,
    /// SHA-256 of `suite.json` as written.
    pub suite_json: String,
    /// SHA-256 of each owned task's `report.json`, by key; absent for a task that produced
    /// none (a config that did not load).
    pub reports: BTreeMap<String, String>,
}

/// The variable `k` inside GitHub Actions; `None` outside.
fn in_actions(k: &str) -> Option<String> {
    std::env::var(k)
        .ok()
        .filter(|_| std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true"))
}

fn hex_digest(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The digest of a suite definition: each selected task's key, benchmark file and task file
/// (by the SHA-256 of their bytes; the filters show in which keys are there). A file that
/// cannot be read is digested as its error, so two runs that could not read it differ from one
/// that could.
pub fn suite_digest(tasks: &[TaskEntry]) -> String {
    let file = |p: &Path| match std::fs::read(p) {
        Ok(b) => hex_digest(&b),
        Err(e) => format!("unreadable: {e}"),
    };
    let mut h = Sha256::new();
    for t in tasks {
        h.update(format!(
            "task {} {} {}\n",
            t.key,
            file(&t.config),
            file(&t.task)
        ));
    }
    hex::encode(h.finalize())
}

/// The digest of what a task is judged by: its benchmark file, its task file and its
/// reference (a folder's every entry by path and bytes, a link by its target; a revision by
/// its name). Two runs of a task with different digests did not sit the same exam, so
/// `compare` does not read their readings as better or worse (attack finding GA8).
pub fn definition_digest(t: &TaskEntry) -> String {
    let file = |p: &Path| match std::fs::read(p) {
        Ok(b) => hex_digest(&b),
        Err(e) => format!("unreadable: {e}"),
    };
    let mut h = Sha256::new();
    h.update(format!(
        "config {}\ntask {}\n",
        file(&t.config),
        file(&t.task)
    ));
    match t.reference.as_deref() {
        Some(r) if Path::new(r).is_dir() => h.update(format!(
            "reference {}\n",
            crate::pipeline::trees::folder_digest(Path::new(r))
        )),
        Some(r) => h.update(format!("reference {r}\n")),
        None => {}
    }
    hex::encode(h.finalize())
}

impl Manifest {
    /// The manifest of `report` as written in `out`: the digests of its files as they are now.
    pub fn of(
        report: &SuiteReport,
        out: &Path,
        suite_digest: String,
        suite_tasks: Vec<String>,
    ) -> Result<Manifest, SuiteError> {
        let suite_json = std::fs::read(out.join("suite.json"))
            .map(|b| hex_digest(&b))
            .map_err(|source| OutputError::ReadBack {
                path: out.join("suite.json"),
                source,
            })?;
        let mut reports = BTreeMap::new();
        for t in &report.tasks {
            if t.report_path.is_empty() {
                continue;
            }
            let p = out.join(&t.report_path);
            let d = std::fs::read(&p)
                .map(|b| hex_digest(&b))
                .map_err(|source| OutputError::ReadBack {
                    path: p.clone(),
                    source,
                })?;
            reports.insert(t.key.clone(), d);
        }
        Ok(Manifest {
            schema: MANIFEST_SCHEMA.into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            suite_digest,
            suite_tasks,
            shard: report.suite.shard.clone(),
            owned: report.tasks.iter().map(|t| t.key.clone()).collect(),
            run_id: in_actions("GITHUB_RUN_ID"),
            head_sha: in_actions("GITHUB_SHA"),
            suite_json,
            reports,
        })
    }

    /// Writes it as `out/manifest.json`.
    pub fn write(&self, out: &Path) -> Result<(), SuiteError> {
        let json = serde_json::to_string_pretty(self).map_err(|source| OutputError::Serialise {
            what: "manifest",
            source,
        })?;
        let p = out.join(MANIFEST_FILE);
        crate::pipeline::save::write_atomically(&p, format!("{json}\n").as_bytes()).map_err(
            |source| {
                OutputError::Write {
                    path: p.clone(),
                    source,
                }
                .into()
            },
        )
    }

    /// Reads `dir/manifest.json`.
    pub fn read(dir: &Path) -> Result<Manifest, SuiteError> {
        let p = dir.join(MANIFEST_FILE);
        let text = crate::untrusted::read_string_io(&p, crate::untrusted::MAX_STORED_BYTES)
            .map_err(|source| InputError::ManifestUnreadable {
                path: p.clone(),
                source,
            })?;
        let m: Manifest =
            serde_json::from_str(&text).map_err(|source| InputError::NotAManifest {
                path: p.clone(),
                source,
            })?;
        if m.schema != MANIFEST_SCHEMA {
            return Err(InputError::ManifestSchema {
                path: p,
                found: m.schema,
            }
            .into());
        }
        Ok(m)
    }
}

/// One shard folder as `merge` found it.
pub struct Part {
    /// The folder.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
    /// Its suite report.
    pub report: SuiteReport,
}

/// Checks the shard folders against their manifests and one another; every problem found is
/// listed, each naming the folder and the task or shard.
pub fn check(parts: &[Part]) -> Result<(), SuiteError> {
    let mut problems: Vec<String> = Vec::new();
    let Some(first) = parts.first() else {
        return Err(InputError::NoShards.into());
    };
    for p in parts {
        let d = p.dir.display();
        let m = &p.manifest;
        // Keys and report paths are data: a key is `benchmark/id`, a report lies at
        // `tasks/<benchmark>/<id>/report.json` inside the shard folder, nothing else.
        for t in &p.report.tasks {
            if let Err(why) = check_key(&t.key) {
                problems.push(format!("{d}: task key {:?} {why}", t.key));
            } else if !t.report_path.is_empty()
                && t.report_path != format!("tasks/{}/report.json", t.key)
            {
                problems.push(format!(
                    "{d}: task {}'s report path {:?} is not tasks/{}/report.json",
                    t.key, t.report_path, t.key
                ));
            }
        }
        if m.suite_digest != first.manifest.suite_digest
            || m.suite_tasks != first.manifest.suite_tasks
        {
            problems.push(format!(
                "{d} is a shard of another suite (definition {}, {} task(s)) than {} ({}, {} task(s))",
                short(&m.suite_digest),
                m.suite_tasks.len(),
                first.dir.display(),
                short(&first.manifest.suite_digest),
                first.manifest.suite_tasks.len()
            ));
        }
        if m.run_id != first.manifest.run_id {
            problems.push(format!(
                "{d} was written by run {}, {} by run {}: merge the shards of one run",
                m.run_id.as_deref().unwrap_or("(none)"),
                first.dir.display(),
                first.manifest.run_id.as_deref().unwrap_or("(none)")
            ));
        }
        if m.head_sha != first.manifest.head_sha {
            problems.push(format!(
                "{d} judged commit {}, {} commit {}: merge the shards of one commit",
                m.head_sha.as_deref().unwrap_or("(none)"),
                first.dir.display(),
                first.manifest.head_sha.as_deref().unwrap_or("(none)")
            ));
        }
        // Inside Actions the shards are this run's (attack finding G4): an older run's
        // shards, all of one run, must not stand in for the ones this run judged.
        if let Some(ours) = in_actions("GITHUB_RUN_ID")
            && m.run_id.as_deref() != Some(ours.as_str())
        {
            problems.push(format!(
                "{d} was written by run {}, and this merge runs in run {ours}: merge the shards this run judged (download its artifacts by this run's id)",
                m.run_id.as_deref().unwrap_or("(none, outside Actions)")
            ));
        }
        if m.tool_version != first.manifest.tool_version {
            problems.push(format!(
                "{d} was written by judge-ci {}, {} by {}",
                m.tool_version,
                first.dir.display(),
                first.manifest.tool_version
            ));
        }
        if m.shard != p.report.suite.shard {
            problems.push(format!(
                "{d}: suite.json says shard {}, the manifest {}",
                p.report.suite.shard.as_deref().unwrap_or("(none)"),
                m.shard.as_deref().unwrap_or("(none)")
            ));
        }
        match crate::untrusted::read_io(&p.dir.join("suite.json"), crate::untrusted::MAX_STORED_BYTES) {
            Ok(b) if hex_digest(&b) == m.suite_json => {}
            Ok(_) => problems.push(format!(
                "{d}/suite.json is not the file the shard wrote (its SHA-256 differs from the manifest's)"
            )),
            Err(e) => problems.push(format!("{d}/suite.json: {e}")),
        }
        // The tasks the shard owns: its share of the suite, all with a result.
        if let Some(Ok(shard)) = m.shard.as_deref().map(Shard::parse) {
            let expected: BTreeSet<&String> =
                m.suite_tasks.iter().filter(|k| shard.holds(k)).collect();
            let owned: BTreeSet<&String> = m.owned.iter().collect();
            for k in expected.difference(&owned) {
                problems.push(format!("{d}: task {k} of shard {shard} is missing"));
            }
            for k in owned.difference(&expected) {
                problems.push(format!("{d}: task {k} does not belong to shard {shard}"));
            }
        }
        let results: BTreeSet<&String> = p.report.tasks.iter().map(|t| &t.key).collect();
        let owned: BTreeSet<&String> = m.owned.iter().collect();
        for k in owned.difference(&results) {
            problems.push(format!("{d}: task {k} has no result in suite.json"));
        }
        for k in results.difference(&owned) {
            problems.push(format!(
                "{d}: task {k} in suite.json is not one the shard owns"
            ));
        }
        for t in &p.report.tasks {
            let Some(want) = m.reports.get(&t.key) else {
                if !t.report_path.is_empty() {
                    problems.push(format!(
                        "{d}: task {}'s report is not in the manifest",
                        t.key
                    ));
                }
                continue;
            };
            let file = p.dir.join(&t.report_path);
            let bytes = match crate::untrusted::read_io(&file, crate::untrusted::MAX_STORED_BYTES) {
                Ok(b) => b,
                Err(e) => {
                    problems.push(format!("{}: {e}", file.display()));
                    continue;
                }
            };
            if hex_digest(&bytes) != *want {
                problems.push(format!(
                    "{} is not the report the shard wrote (its SHA-256 differs from the manifest's)",
                    file.display()
                ));
                continue;
            }
            // The summary line must say what the task's own report says.
            let reading = serde_json::from_slice::<crate::report::Report>(&bytes)
                .map(|r| r.interpretation.reading);
            match reading {
                Ok(r) if r == t.reading => {}
                Ok(r) => problems.push(format!(
                    "{d}: suite.json reads task {} as {}, its report as {}",
                    t.key,
                    t.reading
                        .map_or("nothing".to_string(), |x| format!("{x:?}")),
                    r.map_or("nothing".to_string(), |x| format!("{x:?}"))
                )),
                Err(e) => problems.push(format!("{}: not a report: {e}", file.display())),
            }
        }
    }
    // Across shards: no task twice, and together the whole suite.
    let mut owner: BTreeMap<&String, &Path> = BTreeMap::new();
    for p in parts {
        for k in &p.manifest.owned {
            if let Some(prev) = owner.insert(k, &p.dir) {
                problems.push(format!(
                    "task {k} is in two shards ({} and {})",
                    prev.display(),
                    p.dir.display()
                ));
            }
        }
    }
    for k in &first.manifest.suite_tasks {
        if !owner.contains_key(k) {
            problems.push(format!("task {k} of the suite is in no shard given"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(InputError::Unmergeable(problems).into())
    }
}

/// A task key as `discover` makes it: `benchmark/id`, two plain path components.
fn check_key(key: &str) -> Result<(), &'static str> {
    let parts: Vec<&str> = key.split('/').collect();
    let plain =
        |p: &str| !p.is_empty() && p != "." && p != ".." && !p.contains('\\') && !p.contains('\0');
    if parts.len() == 2 && parts.iter().all(|p| plain(p)) {
        Ok(())
    } else {
        Err("is not benchmark/id (two plain names)")
    }
}

fn short(d: &str) -> &str {
    &d[..d.len().min(12)]
}
