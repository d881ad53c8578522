//! The check-run payload: request bodies the GitHub publisher sends unchanged (`--dry-run`
//! shows them): the create call with title, summary, text, conclusion and the first 50
//! annotations, then one update per further batch of 50.

use serde_json::{Value, json};

use crate::judgment::{FindingFamily, FindingKind};
use crate::jury::interpret::Reading;

use super::gfm::{CHECK_RUN_BUDGET, truncate};
use super::markdown;
use super::model::{Gate, Report};

/// Annotations per request (GitHub's limit).
pub const BATCH: usize = 50;
/// Longest annotation title and check-run title.
pub const TITLE_CHARS: usize = 255;
/// Longest annotation message.
const MESSAGE_BYTES: usize = 60_000;

/// The conclusion for a report: accepted → success, rejected → failure, not assessed →
/// failure (neutral when `fail-on: never` let the gate pass), not applicable and undecided →
/// neutral unless the gate failed. A failed gate is always a failure: GitHub counts `neutral`
/// as passing a required check, so a not-applicable reading whose gate failed (an ERROR the
/// change caused, what counts against it) must not be neutral.
///
/// A report computed in the pull request's own workflow and published unverified is always
/// neutral (advisory); an accepted reading whose gate failed (an ERROR under `fail-on: error`)
/// is a failure.
pub fn conclusion(r: &Report) -> &'static str {
    if r.provenance.as_ref().is_some_and(|p| !p.verified) {
        return "neutral";
    }
    match (r.interpretation.reading, r.outcome.gate) {
        (_, Gate::Fail) => "failure",
        (Some(Reading::Accepted), Gate::Pass) => "success",
        (_, Gate::Pass) => "neutral",
    }
}

fn cut_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// "Rejected at tier build: 2 of 3 judges failed".
pub fn title(r: &Report) -> String {
    let (_, word) = markdown::reading_word(r.interpretation.reading);
    let tier = r.interpretation.decided_by.as_deref();
    let judges: Vec<_> = match tier {
        Some(t) => r
            .tiers
            .iter()
            .filter(|x| x.name == t.split('/').next().unwrap_or(t))
            .flat_map(|x| &x.judges)
            .collect(),
        None => r
            .tiers
            .iter()
            .filter(|x| x.ran)
            .flat_map(|x| &x.judges)
            .collect(),
    };
    let bad = judges
        .iter()
        .filter(|j| j.status != crate::judgment::Status::Pass)
        .count();
    let counts = if bad == 0 {
        format!("all {} judges passed", judges.len())
    } else {
        format!("{bad} of {} judges did not pass", judges.len())
    };
    // A reading the gate fails for what the change did says so after the reading (attack
    // finding NC4: the title read "Accepted …" over a failed check run).
    let but = markdown::overruled(r)
        .map(|b| format!(", {b}"))
        .unwrap_or_default();
    let t = match tier {
        Some(t) => format!("{word} at tier {t}{but}: {counts}"),
        None => format!("{word}{but}: {counts}"),
    };
    // An accepting reading that hides an ERROR says so first (spec/trust.md point 7).
    let t = match super::notices::title_prefix(r) {
        Some(p) => format!("{p} · {t}"),
        None => t,
    };
    // An unverified report says so before anything else (spec/trust.md point 10).
    let t = if r.provenance.as_ref().is_some_and(|p| !p.verified) {
        format!("Not verified (computed in the pull request's own workflow) · {t}")
    } else {
        t
    };
    cut_chars(&t, TITLE_CHARS)
}

/// Annotations from every finding with a file and line: compiler errors and failing findings
/// first, then structural differences. Returns them all; callers batch and cap.
pub fn annotations(r: &Report) -> Vec<Value> {
    let mut out: Vec<(u8, Value)> = Vec::new();
    let mut push = |rank: u8,
                    path: &str,
                    line: u64,
                    column: Option<u64>,
                    level: &str,
                    title: String,
                    message: String| {
        if path.is_empty() || path.starts_with('/') || path.contains("..") {
            return;
        }
        let line = line.max(1);
        let mut a = json!({
            "path": path, "start_line": line, "end_line": line, "annotation_level": level,
            "title": cut_chars(&title, TITLE_CHARS), "message": cut_chars(&message, MESSAGE_BYTES),
        });
        if let Some(c) = column {
            a["start_column"] = c.into();
            a["end_column"] = c.into();
        }
        out.push((rank, a));
    };
    for (name, f) in super::findings::evidence(r) {
        let what = match f.kind.family() {
            FindingFamily::CompilerError => "compiler error",
            FindingFamily::PromptInjection => "prompt injection",
            FindingFamily::Difference => "difference",
        };
        push(
            0,
            &f.path,
            f.line.map_or(1, u64::from),
            f.column.map(u64::from),
            "failure",
            format!("{name}: {what}"),
            f.message.clone().unwrap_or_default(),
        );
    }
    for (section, level, rank) in [
        (&r.diffs.files, "failure", 1u8),
        (&r.diffs.imports, "warning", 2),
        (&r.diffs.ast, "warning", 2),
        (&r.diffs.pom, "warning", 2),
    ] {
        for d in section {
            let mut msg = String::new();
            if let Some(a) = &d.actual {
                msg.push_str(&format!("workspace: {a}\n"));
            }
            if let Some(e) = &d.expected {
                msg.push_str(&format!("reference: {e}\n"));
            }
            let level = if matches!(
                d.kind,
                FindingKind::ImportForbidden
                    | FindingKind::ReferenceForbidden
                    | FindingKind::TestFailing
            ) {
                "failure"
            } else {
                level
            };
            let rank = if level == "failure" {
                rank.min(1)
            } else {
                rank
            };
            push(
                rank,
                &d.path,
                d.line.unwrap_or(1),
                None,
                level,
                format!("{}: {}", d.judge, d.kind),
                msg.trim_end().to_string(),
            );
        }
    }
    out.sort_by_key(|(rank, _)| *rank);
    out.into_iter().map(|(_, a)| a).collect()
}

/// The create request and the update requests for the remaining annotation batches; at most
/// `cap` annotations in all, the rest counted in the summary.
pub fn payload(r: &Report, cap: usize) -> Value {
    let md = markdown::render(r);
    // The summary holds the headline, table and why; the text holds the collapsible details.
    let split = md.find("<details>").unwrap_or(md.len());
    let all = annotations(r);
    let shown: Vec<Value> = all.iter().take(cap).cloned().collect();
    let mut summary = md[..split].to_string();
    if all.len() > shown.len() {
        summary.push_str(&format!(
            "\n{} more annotation(s) are not shown; every finding is in the report JSON.\n",
            all.len() - shown.len()
        ));
    }
    let summary = truncate(
        &summary,
        CHECK_RUN_BUDGET,
        "the job summary and the report artifact",
    );
    let text = truncate(
        &md[split..],
        CHECK_RUN_BUDGET,
        "the job summary and the report artifact",
    );
    let title = title(r);
    let mut batches = shown.chunks(BATCH);
    let first: Vec<Value> = batches.next().map(<[Value]>::to_vec).unwrap_or_default();
    let mut create = json!({
        "name": r.config.check_run_name(),
        "status": "completed",
        "conclusion": conclusion(r),
        "output": {"title": title, "summary": summary, "text": text, "annotations": first},
    });
    if let Some(sha) = &r.subject.head_sha {
        create["head_sha"] = sha.clone().into();
    }
    let updates: Vec<Value> = batches
        .map(|b| json!({"output": {"title": title, "summary": summary, "annotations": b}}))
        .collect();
    json!({"create": create, "updates": updates})
}
