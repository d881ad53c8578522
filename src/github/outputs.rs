//! What a step leaves behind without any API call: the job summary (`GITHUB_STEP_SUMMARY`),
//! step outputs (`GITHUB_OUTPUT`, heredoc delimiters that cannot collide with a value), and
//! workflow-command annotations (at most 10 of each type per step, as Actions shows no more).

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

use crate::report::Report;

/// Most workflow-command annotations of one type Actions shows per step.
pub const ANNOTATIONS_PER_TYPE: usize = 10;

/// Appends `text` to the file (Actions concatenates every step's summary). The redaction
/// boundary for the runner's files: every known secret is written as `***`.
pub fn append(path: &Path, text: &str) -> std::io::Result<()> {
    let text = crate::secrets::redact(text);
    let text = text.as_ref();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        f.write_all(b"\n")?;
    }
    Ok(())
}

/// The step outputs of a report: `verdict`, `reading`, `score`, `failed-tier`, `errors`,
/// `gate` (pass or fail), `fail-on` (the rule in force) and `gate-reason` (what decided, in
/// words), `gap-categories`, `report-path`, `comment-url`, `check-run-url` (empty when
/// unknown).
pub fn outputs(r: &Report, report_path: Option<&Path>) -> Vec<(&'static str, String)> {
    let reading = r
        .interpretation
        .reading
        .map(|x| {
            serde_json::to_value(x)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let failed_tier = match r.interpretation.reading {
        Some(crate::jury::interpret::Reading::Rejected)
        | Some(crate::jury::interpret::Reading::NotAssessed) => {
            r.interpretation.decided_by.clone().unwrap_or_default()
        }
        _ => String::new(),
    };
    vec![
        (
            "verdict",
            r.verdict.aggregated().status().token().to_string(),
        ),
        ("reading", reading),
        (
            "score",
            r.verdict
                .aggregated()
                .score()
                .map(|s| format!("{s}"))
                .unwrap_or_default(),
        ),
        ("failed-tier", failed_tier),
        // Tiers that could not run, whatever the reading: an accepted run with errors > 0
        // is not a clean pass (spec/trust.md point 7).
        ("errors", r.outcome.errored_tiers.len().to_string()),
        // What decided, so that a later step can tell which rule passed or failed the step.
        (
            "gate",
            match r.outcome.gate {
                crate::report::Gate::Pass => "pass",
                crate::report::Gate::Fail => "fail",
            }
            .to_string(),
        ),
        ("fail-on", r.outcome.fail_on.clone().unwrap_or_default()),
        ("gate-reason", r.outcome.reason.clone()),
        (
            "gap-categories",
            r.diagnostics
                .as_ref()
                .map(|d| d.categories_line())
                .unwrap_or_default(),
        ),
        (
            "report-path",
            report_path
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        ),
        ("comment-url", String::new()),
        ("check-run-url", String::new()),
    ]
}

/// `name<<DELIM\nvalue\nDELIM` lines; the delimiter is derived from the value and lengthened
/// until no line of the value equals it.
pub fn format_outputs(pairs: &[(&str, String)]) -> String {
    let mut out = String::new();
    for (k, v) in pairs {
        let digest = hex::encode(&Sha256::digest(v.as_bytes())[..8]);
        let mut delim = format!("judge_ci_{digest}");
        while v.lines().any(|l| l == delim) {
            delim.push('_');
        }
        out.push_str(&format!("{k}<<{delim}\n{v}\n{delim}\n"));
    }
    out
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Workflow-command annotations from the check-run annotations (failures as `::error`,
/// warnings as `::warning`), at most 10 per type, then a notice of how many were left out.
pub fn workflow_commands(annotations: &[serde_json::Value]) -> Vec<String> {
    let mut out = Vec::new();
    let mut left = std::collections::BTreeMap::new();
    let mut shown = std::collections::BTreeMap::new();
    for a in annotations {
        let kind = match a["annotation_level"].as_str() {
            Some("failure") => "error",
            Some("warning") => "warning",
            _ => "notice",
        };
        let n = shown.entry(kind).or_insert(0usize);
        if *n >= ANNOTATIONS_PER_TYPE {
            *left.entry(kind).or_insert(0usize) += 1;
            continue;
        }
        *n += 1;
        let mut props = vec![
            format!("file={}", escape_property(a["path"].as_str().unwrap_or(""))),
            format!("line={}", a["start_line"].as_u64().unwrap_or(1)),
        ];
        if let Some(c) = a["start_column"].as_u64() {
            props.push(format!("col={c}"));
        }
        props.push(format!(
            "title={}",
            escape_property(a["title"].as_str().unwrap_or("judge-ci"))
        ));
        out.push(format!(
            "::{kind} {}::{}",
            props.join(","),
            escape_data(a["message"].as_str().unwrap_or(""))
        ));
    }
    let hidden: usize = left.values().sum();
    if hidden > 0 {
        out.push(format!(
            "::notice title=judge-ci::{}",
            escape_data(&format!("{hidden} more annotation(s) are not shown (Actions shows {ANNOTATIONS_PER_TYPE} per type); every finding is in the job summary and the report artifact"))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outputs_cannot_be_broken_by_their_values() {
        let tricky = "a\njudge_ci_x\nb".to_string();
        let text = format_outputs(&[
            ("reading", "ACCEPTED".into()),
            ("report-path", tricky.clone()),
        ]);
        let mut lines = text.lines();
        let header = lines.next().unwrap();
        assert!(header.starts_with("reading<<judge_ci_"));
        // Parse as Actions does: the value ends at the first line equal to the delimiter.
        let mut found = Vec::new();
        let mut it = text.lines();
        while let Some(h) = it.next() {
            let (k, d) = h.split_once("<<").unwrap();
            let value: Vec<&str> = it.by_ref().take_while(|l| *l != d).collect();
            found.push((k.to_string(), value.join("\n")));
        }
        assert_eq!(
            found,
            [
                ("reading".to_string(), "ACCEPTED".to_string()),
                ("report-path".to_string(), tricky)
            ]
        );
    }

    #[test]
    fn workflow_commands_are_escaped_and_capped() {
        let a: Vec<serde_json::Value> = (0..25)
            .map(|i| json!({"path": "src/a,b:c.java", "start_line": i + 1, "annotation_level": if i % 2 == 0 { "failure" } else { "warning" },
                "title": "t: x", "message": "line1\nline2 100%"}))
            .collect();
        let cmds = workflow_commands(&a);
        assert_eq!(
            cmds.iter().filter(|c| c.starts_with("::error ")).count(),
            10
        );
        assert_eq!(
            cmds.iter().filter(|c| c.starts_with("::warning ")).count(),
            10
        );
        assert!(cmds.last().unwrap().contains("5 more annotation(s)"));
        assert!(
            cmds[0].contains("file=src/a%2Cb%3Ac.java")
                && cmds[0].ends_with("::line1%0Aline2 100%25"),
            "{}",
            cmds[0]
        );
    }
}
