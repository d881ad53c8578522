//! The analysis's optional inputs: the agent's plan, a knowledge folder, an analysis JSON and
//! the agent's journal (JSON lines). Each one missing only silences the rules that need it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::ConfigSource;
use crate::config::diagnostics::DiagnosticsSettings;
use crate::judges::paths::{MAX_INPUT_BYTES, Resolved, read_text_limited, resolve};

/// What the rules may consult besides the verdict.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// The task's instruction.
    pub instruction: String,
    /// The plan's text.
    pub plan: Option<String>,
    /// Knowledge-base files: (file name, text).
    pub knowledge: Option<Vec<(String, String)>>,
    /// Detected patterns.
    pub analysis: Option<Value>,
    /// Journal entries.
    pub journal: Option<Vec<Value>>,
    /// Inputs that were named but could not be read, for the report.
    pub problems: Vec<String>,
}

/// Why a knowledge folder could not be read.
#[derive(Debug, thiserror::Error)]
pub enum KnowledgeError {
    /// It is not there (or not a folder).
    #[error("the knowledge folder {} does not exist", .0.display())]
    Missing(PathBuf),
    /// Listing or reading it failed.
    #[error("the knowledge folder {} cannot be read: {source}", .dir.display())]
    Unreadable {
        /// The folder.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// Reads every file of a knowledge folder (text files up to 1 MiB, recursively).
pub fn read_knowledge(dir: &Path) -> Result<Vec<(String, String)>, KnowledgeError> {
    read_knowledge_from(dir, &ConfigSource::WorkTree)
}

/// Reads every file of a knowledge folder through `source` (the working tree, or a trusted
/// commit's tree): text files up to 1 MiB, recursively.
pub fn read_knowledge_from(
    dir: &Path,
    source: &ConfigSource,
) -> Result<Vec<(String, String)>, KnowledgeError> {
    if !source.is_dir(dir) {
        return Err(KnowledgeError::Missing(dir.to_path_buf()));
    }
    let files =
        source
            .files_under(dir, MAX_INPUT_BYTES)
            .map_err(|source| KnowledgeError::Unreadable {
                dir: dir.to_path_buf(),
                source,
            })?;
    // Text files up to the limit; binary and oversized ones are not knowledge.
    Ok(files
        .into_iter()
        .filter_map(|(name, bytes)| String::from_utf8(bytes).ok().map(|t| (name, t)))
        .collect())
}

/// Reads a journal: one JSON object per line; blank lines skipped, bad lines reported.
pub fn read_journal(text: &str) -> (Vec<Value>, Option<String>) {
    let mut bad = 0;
    let entries: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| match serde_json::from_str::<Value>(l) {
            Ok(v) => Some(v),
            Err(_) => {
                bad += 1;
                None
            }
        })
        .collect();
    let note = (bad > 0).then(|| format!("{bad} journal line(s) are not JSON and were skipped"));
    (entries, note)
}

impl Inputs {
    /// The inputs `settings` names, read from the workspace (plan, analysis, journal: what
    /// the agent left) and, through `source`, the config's folder (knowledge).
    pub fn load(
        settings: &DiagnosticsSettings,
        workspace: &Path,
        instruction: &str,
        source: &ConfigSource,
    ) -> Inputs {
        let mut i = Inputs {
            instruction: instruction.to_string(),
            ..Inputs::default()
        };
        let mut read = |what: &str, p: &crate::config::checks::WorkspacePath| -> Option<String> {
            match resolve(workspace, p.as_path()) {
                Resolved::Inside(path) => match read_text_limited(&path, MAX_INPUT_BYTES) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        i.problems
                            .push(format!("the {what} {} cannot be read: {e}", path.display()));
                        None
                    }
                },
                Resolved::Missing(path) => {
                    i.problems
                        .push(format!("the {what} {} does not exist", path.display()));
                    None
                }
                Resolved::Escapes(why) => {
                    i.problems
                        .push(format!("the {what} path escapes the workspace: {why}"));
                    None
                }
                Resolved::ThroughLink(link) => {
                    i.problems.push(format!(
                        "the {what} path passes through the symbolic link {link}, which judge-ci does not follow"
                    ));
                    None
                }
            }
        };
        let plan = settings.plan.as_ref().and_then(|p| read("plan", p));
        let analysis = settings.analysis.as_ref().and_then(|p| read("analysis", p));
        let journal = settings.journal.as_ref().and_then(|p| read("journal", p));
        i.plan = plan;
        if let Some(t) = analysis {
            match serde_json::from_str(&t) {
                Ok(v) => i.analysis = Some(v),
                Err(e) => i
                    .problems
                    .push(format!("the analysis file is not JSON: {e}")),
            }
        }
        if let Some(t) = journal {
            let (entries, note) = read_journal(&t);
            i.journal = Some(entries);
            i.problems.extend(note);
        }
        if let Some(dir) = &settings.knowledge {
            match read_knowledge_from(dir, source) {
                Ok(k) => i.knowledge = Some(k),
                Err(e) => i.problems.push(e.to_string()),
            }
        }
        i
    }
}
