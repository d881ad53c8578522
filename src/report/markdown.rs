//! The markdown report, rendered only from a stored [`Report`] (so any stored report can be
//! re-rendered): marker, headline, cascade table, why it failed, all judgments, footer.

use serde_json::Value;
use std::fmt::Write;

use crate::judgment::{Judgment, Status};
use crate::jury::TierPolicy;
use crate::jury::interpret::Reading;

use super::escape::{code_block, code_span, inline};
use super::model::{DiffEntry, Report};

/// The hidden marker that identifies a sticky comment per config name.
pub fn marker(name: &str) -> String {
    let key: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
        .collect();
    format!("<!-- judge-ci:v1 key={key} -->")
}

fn reading_word(r: Option<Reading>) -> (&'static str, &'static str) {
    match r {
        Some(Reading::Accepted) => ("✅", "Accepted"),
        Some(Reading::Rejected) => ("❌", "Rejected"),
        Some(Reading::Undecided) => ("⚠️", "Undecided"),
        Some(Reading::NotApplicable) => ("➖", "Not applicable"),
        Some(Reading::NotAssessed) | None => ("🛠️", "Not assessed"),
    }
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Pass => "✅ pass",
        Status::Fail => "❌ fail",
        Status::Abstain => "⚠️ abstain",
        Status::NotApplicable => "➖ not applicable",
        Status::Error => "🛠️ error",
    }
}

fn policy_words(p: Option<TierPolicy>) -> &'static str {
    match p {
        Some(TierPolicy::RejectOnAnyFail) => "stop on any fail",
        Some(TierPolicy::AcceptOnAllPass) => "stop when all pass",
        Some(TierPolicy::FinalTier) => "final",
        None => "—",
    }
}

fn seconds(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// Renders the whole report.
pub fn render(r: &Report) -> String {
    let mut md = String::new();
    let (icon, word) = reading_word(r.interpretation.reading);
    let _ = writeln!(md, "{}", marker(&r.config.name));
    let _ = writeln!(
        md,
        "## {icon} {word} · judge-ci · {}\n",
        inline(&r.config.name)
    );
    let place = match (&r.interpretation.decided_by, r.interpretation.reading) {
        (Some(t), Some(Reading::Accepted)) => format!("accepted at tier {}", code_span(t)),
        (Some(t), Some(Reading::Rejected)) => format!("rejected at tier {}", code_span(t)),
        (Some(t), _) => format!("decided at tier {}", code_span(t)),
        (None, _) => "decided by the jury".to_string(),
    };
    let against = match &r.subject.reference {
        Some(reference) => format!(
            " · workspace {} against reference {}",
            code_span(&r.subject.workspace),
            code_span(reference)
        ),
        None => format!(" · workspace {}", code_span(&r.subject.workspace)),
    };
    let head = r
        .subject
        .head_sha
        .as_deref()
        .map(|s| {
            format!(
                " · head {}",
                code_span(&s.chars().take(12).collect::<String>())
            )
        })
        .unwrap_or_default();
    let _ = writeln!(md, "**{word}**: {place}{against}{head}.\n");
    let _ = writeln!(md, "{}\n", inline(&r.outcome.reason));

    let _ = writeln!(md, "| Tier | Policy | Result | Judges passed | Time |");
    let _ = writeln!(md, "|---|---|---|---|---|");
    for t in &r.tiers {
        let result = match (t.ran, t.status) {
            (false, _) => "not reached".to_string(),
            (true, Some(s)) => format!(
                "{}{}",
                status_word(s),
                if t.stopped { " (stopped here)" } else { "" }
            ),
            (true, None) => "🛠️ failed to run".to_string(),
        };
        let passed = if t.ran {
            format!(
                "{}/{}",
                t.judges.iter().filter(|j| j.status == Status::Pass).count(),
                t.judges.len()
            )
        } else {
            "—".into()
        };
        let time = if t.ran {
            seconds(t.elapsed_ms)
        } else {
            "—".into()
        };
        let _ = writeln!(
            md,
            "| {} | {} | {result} | {passed} | {time} |",
            inline(&t.name),
            policy_words(t.policy)
        );
    }
    md.push('\n');

    if let Some(task) = &r.task {
        let failed: Vec<_> = task
            .commands
            .iter()
            .filter(|c| c.problem.is_some())
            .collect();
        if !failed.is_empty() {
            let _ = writeln!(
                md,
                "> [!WARNING]\n> {} task command(s) failed; the subject was judged anyway:",
                failed.len()
            );
            for c in failed {
                let _ = writeln!(
                    md,
                    "> - {} {}: {}",
                    c.phase,
                    code_span(&c.command),
                    inline(c.problem.as_deref().unwrap_or(""))
                );
            }
            md.push('\n');
        }
    }

    let verdict = &r.verdict;
    let non_passing: Vec<(&String, &Judgment)> = verdict
        .individual_by_name()
        .iter()
        .filter(|(_, j)| j.status() != Status::Pass)
        .collect();
    if !non_passing.is_empty() || verdict.aggregated().status() != Status::Pass {
        let _ = writeln!(md, "### Why\n");
        let agg = verdict.aggregated();
        if !agg.reasoning().is_empty() {
            let _ = writeln!(md, "Aggregate: {}\n", inline(agg.reasoning()));
        }
        for (name, j) in non_passing {
            why(&mut md, r, name, j);
        }
    }

    for (title, entries) in [
        ("Import diff", &r.diffs.imports),
        ("AST diff", &r.diffs.ast),
        ("POM diff", &r.diffs.pom),
        ("File diff", &r.diffs.files),
    ] {
        if !entries.is_empty() {
            diff_section(&mut md, title, entries);
        }
    }
    let _ = writeln!(md, "<details><summary>All judgments</summary>\n");
    for t in r.tiers.iter().filter(|t| t.ran) {
        let _ = writeln!(md, "**{}**\n", inline(&t.name));
        for j in &t.judges {
            let score = j
                .score
                .map(|s| format!(", score {s:.2}"))
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "- {} ({}): {}{score}, {}",
                code_span(&j.name),
                inline(&j.judge_type),
                status_word(j.status),
                seconds(j.elapsed_ms)
            );
        }
        md.push('\n');
    }
    let _ = writeln!(md, "</details>\n");
    let _ = writeln!(
        md,
        "<sub>judge-ci {} · config {} sha256 {} · reading {}</sub>",
        inline(&r.tool.version),
        code_span(&r.config.path),
        code_span(&r.config.sha256.chars().take(12).collect::<String>()),
        word
    );
    md
}

/// Most files shown per diff section; the JSON report has them all.
const DIFF_FILES: usize = 25;

/// A collapsible section with one `diff` block per file: `-` what the workspace has, `+` what
/// the reference has (the change that would reach the reference).
fn diff_section(md: &mut String, title: &str, entries: &[DiffEntry]) {
    let mut files: Vec<&str> = Vec::new();
    for e in entries {
        if !files.contains(&e.path.as_str()) {
            files.push(&e.path);
        }
    }
    let _ = writeln!(
        md,
        "<details><summary>{title}: {} finding(s) in {} file(s)</summary>\n",
        entries.len(),
        files.len()
    );
    for path in files.iter().take(DIFF_FILES) {
        let mut block = if path.is_empty() {
            "--- workspace\n+++ reference\n".to_string()
        } else {
            format!("--- workspace/{path}\n+++ reference/{path}\n")
        };
        // What the workspace has (with lines) first, then what only the reference has.
        let mut here: Vec<&DiffEntry> = entries.iter().filter(|e| e.path == *path).collect();
        here.sort_by_key(|e| (e.line.is_none(), e.line));
        for e in here {
            match e.line {
                Some(l) => block.push_str(&format!("@@ line {l}: {} @@\n", e.kind)),
                None => block.push_str(&format!("@@ {} @@\n", e.kind)),
            }
            for (sign, text) in [('-', &e.actual), ('+', &e.expected)] {
                if let Some(t) = text {
                    for line in t.lines() {
                        block.push(sign);
                        block.push(' ');
                        block.push_str(line);
                        block.push('\n');
                    }
                }
            }
        }
        md.push_str(&code_block(&block, "diff"));
        md.push('\n');
    }
    if files.len() > DIFF_FILES {
        let _ = writeln!(
            md,
            "{} more file(s) in report.json.\n",
            files.len() - DIFF_FILES
        );
    }
    let _ = writeln!(md, "</details>\n");
}

fn judge_type(r: &Report, name: &str) -> String {
    r.tiers
        .iter()
        .flat_map(|t| &t.judges)
        .find(|j| j.name == name)
        .map(|j| j.judge_type.clone())
        .unwrap_or_default()
}

fn why(md: &mut String, r: &Report, name: &str, j: &Judgment) {
    let _ = writeln!(
        md,
        "#### {} ({}) · {}\n",
        code_span(name),
        inline(&judge_type(r, name)),
        status_word(j.status())
    );
    if !j.reasoning().is_empty() {
        let _ = writeln!(md, "{}\n", inline(j.reasoning()));
    }
    let failed: Vec<_> = j
        .checks()
        .iter()
        .filter(|c| !c.is_passed())
        .take(10)
        .collect();
    for c in &failed {
        let _ = writeln!(md, "- ✗ {}: {}", code_span(c.name()), inline(c.message()));
    }
    if !failed.is_empty() {
        md.push('\n');
    }
    let compiler: Vec<&Value> = match j.metadata().get("findings") {
        Some(Value::Array(f)) => f.iter().filter(|f| f["kind"] == "compiler-error").collect(),
        _ => Vec::new(),
    };
    let structural = matches!(j.metadata().get("findings"), Some(Value::Array(f)) if !f.is_empty())
        && compiler.is_empty();
    if structural {
        let _ = writeln!(
            md,
            "The differences are listed in the diff sections below.\n"
        );
    } else if !compiler.is_empty() {
        let lines: Vec<String> = compiler
            .iter()
            .take(10)
            .map(|f| {
                format!(
                    "{}:{}: {}",
                    f["path"].as_str().unwrap_or("?"),
                    f["line"].as_u64().unwrap_or(0),
                    f["message"].as_str().unwrap_or("")
                )
            })
            .collect();
        md.push_str(&code_block(&lines.join("\n"), "text"));
        md.push('\n');
    } else if let Some(Value::Array(lines)) = j.metadata().get("errorLines") {
        let text: Vec<&str> = lines.iter().filter_map(Value::as_str).take(15).collect();
        md.push_str(&code_block(&text.join("\n"), "text"));
        md.push('\n');
    } else if let Some(Value::String(out)) = j.metadata().get("output")
        && !out.trim().is_empty()
    {
        let lines: Vec<&str> = out.lines().collect();
        let tail = &lines[lines.len().saturating_sub(15)..];
        md.push_str(&code_block(&tail.join("\n"), "text"));
        md.push('\n');
    }
}
