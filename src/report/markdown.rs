//! The markdown report, rendered only from a stored [`Report`] (so any stored report can be
//! re-rendered) through a minijinja template: `templates/report.md.j2` by default, or the
//! config's `report.template`. The data handed to templates is [`View`]; text in it is raw
//! and templates escape it with the filters `inline`, `cell`, `code` and `fence(lang)`.

use minijinja::{Environment, Value as JinjaValue};
use serde::Serialize;
use serde_json::Value;

use crate::judgment::{Finding, FindingKind, Judgment, Status};
use crate::jury::TierPolicy;
use crate::jury::interpret::Reading;

use super::escape::{code_block, code_span, inline};
use super::location::CodeLinks;
use super::model::{DiffEntry, ErroredTier, Gate, Report};

/// The built-in template.
pub const DEFAULT_TEMPLATE: &str = include_str!("../../templates/report.md.j2");

/// Most characters of a judgment's reasoning shown; the JSON report has all of it.
const REASONING_CHARS: usize = 3000;

/// At most `n` characters, with a note of how many were left out.
fn bounded(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        return s.to_string();
    }
    let head: String = s.chars().take(n).collect();
    format!("{head} … ({} more characters in report.json)", count - n)
}

/// Most files shown per diff section; the JSON report has them all.
const DIFF_FILES: usize = 25;

/// The hidden marker that identifies a sticky comment per key (the config name unless
/// `comment-key` says otherwise).
pub fn marker(name: &str) -> String {
    let key: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
        .collect();
    format!("<!-- judge-ci:v1 key={key} -->")
}

/// Icon and word of a reading (from the one table in [`super::icons`]).
pub fn reading_word(r: Option<Reading>) -> (&'static str, &'static str) {
    let l = super::icons::reading(r);
    (l.icon, l.word)
}

/// Icon and word of a status ("✅ pass"), from the one table in [`super::icons`].
pub fn status_word(s: Status) -> String {
    super::icons::status(s).icon_lower()
}

fn policy_words(p: Option<TierPolicy>) -> &'static str {
    match p {
        Some(TierPolicy::RejectOnAnyFail) => "stop on any fail",
        Some(TierPolicy::AcceptOnAllPass) => "stop when all pass",
        Some(TierPolicy::FinalTier) => "final",
        None => "—",
    }
}

/// Milliseconds as `850 ms` or `3.2 s`.
pub fn seconds(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// Everything a template sees.
#[derive(Serialize)]
pub struct View {
    /// The hidden sticky-comment marker.
    pub marker: String,
    /// Sentences the report opens with (a tier that could not run under an accepting
    /// reading, the judge's own files changed by the PR, protected paths, restored files);
    /// unescaped: templates pass them through `inline`.
    pub notices: Vec<String>,
    /// `{icon, word}` of the reading.
    pub reading: ReadingView,
    /// Where it was decided: "at tier `x`" (already formatted markdown), or empty.
    pub place: String,
    /// Which surface is rendered: `comment` (the pull-request comment, where the gap
    /// analysis is folded), `summary` (the job summary) or `html` (the preview page).
    pub surface: &'static str,
    /// How many of the checks that ran did not pass, in words ("3 of 3 checks did not pass").
    pub checks_line: String,
    /// Config name, path and short sha256.
    pub config: ConfigView,
    /// Workspace, reference and head.
    pub subject: SubjectView,
    /// The gate's reason.
    pub outcome: OutcomeView,
    /// One row per configured tier.
    pub tiers: Vec<TierRow>,
    /// Task commands that failed.
    pub task_failures: Vec<TaskFailure>,
    /// The trusted tests judge-ci ran itself, one row each.
    pub oracle_tests: Vec<OracleTestRow>,
    /// Whether the oracle's tests were also run on the base.
    pub oracle_base_run: bool,
    /// The root aggregate's reasoning.
    pub aggregate_reasoning: String,
    /// Non-passing judgments of the deciding jury.
    pub why: Vec<WhyView>,
    /// Diff sections (import, AST, POM, file).
    pub diffs: Vec<DiffSection>,
    /// Every judgment per tier that ran.
    pub judgments: Vec<JudgmentGroup>,
    /// judge-ci's version.
    pub tool_version: String,
    /// A link to the CI run, when known.
    pub run_url: Option<String>,
    /// The gap analysis, when there are findings.
    pub gaps: Option<GapsView>,
    /// Model usage: "LLM claude-sonnet-4-6: 3 requests (1 cached), 12,345 tokens in, 678 out, $0.0123".
    pub llm: Option<String>,
    /// The fence the subject's processes ran in ("landlock ABI 6, pid namespace, …").
    pub fence: Option<String>,
}

/// The gap analysis for templates.
#[derive(Serialize)]
pub struct GapsView {
    /// Findings in all.
    pub total: usize,
    /// One row per non-empty category: category, count, percent.
    pub rows: Vec<GapRow>,
    /// Recommendations.
    pub recommendations: Vec<String>,
    /// Up to 30 findings.
    pub findings: Vec<GapFinding>,
    /// How many more are in report.json.
    pub more: usize,
}

/// One category's row.
#[derive(Serialize)]
pub struct GapRow {
    /// Its name.
    pub category: &'static str,
    /// Findings.
    pub count: usize,
    /// "62%".
    pub percent: String,
}

/// One finding's line.
#[derive(Serialize)]
pub struct GapFinding {
    /// Category name.
    pub category: &'static str,
    /// Judge.
    pub judge: String,
    /// Failed check, if any.
    pub check: Option<String>,
    /// Tier.
    pub tier: String,
    /// Status token.
    pub status: &'static str,
    /// Evidence.
    pub evidence: String,
    /// Rationale.
    pub rationale: String,
    /// Rule id.
    pub rule: String,
    /// deterministic or heuristic.
    pub confidence: &'static str,
}

/// Findings shown in the markdown.
const GAP_LINES: usize = 30;

fn gaps_view(d: &crate::diagnose::GapAnalysis) -> Option<GapsView> {
    if d.total == 0 {
        return None;
    }
    Some(GapsView {
        total: d.total,
        rows: d
            .distribution
            .iter()
            .map(|s| GapRow {
                category: s.category.name(),
                count: s.count,
                percent: format!("{:.0}%", s.fraction * 100.0),
            })
            .collect(),
        recommendations: d.recommendations.clone(),
        findings: d
            .gaps
            .iter()
            .take(GAP_LINES)
            .map(|f| GapFinding {
                category: f.category.name(),
                judge: f.judge.clone(),
                check: f.check.clone(),
                tier: f.tier.clone(),
                status: f.status.token(),
                evidence: f.evidence.clone(),
                rationale: f.rationale.clone(),
                rule: f.rule.clone(),
                confidence: match f.confidence {
                    crate::diagnose::rules::Confidence::Deterministic => "deterministic",
                    crate::diagnose::rules::Confidence::Heuristic => "heuristic",
                },
            })
            .collect(),
        more: d.gaps.len().saturating_sub(GAP_LINES),
    })
}

/// Groups digits by thousands.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The footer's model-usage phrase.
pub fn llm_phrase(t: &super::LlmTotals) -> String {
    let mut s = format!(
        "LLM {}: {} request(s)",
        if t.models.is_empty() {
            "-".to_string()
        } else {
            t.models.join(", ")
        },
        t.counts.requests
    );
    if t.counts.cache_hits > 0 {
        s.push_str(&format!(", {} answer(s) from cache", t.counts.cache_hits));
    }
    s.push_str(&format!(
        ", {} tokens in, {} out",
        thousands(t.counts.input_tokens),
        thousands(t.counts.output_tokens)
    ));
    if let Some(c) = t.cost_usd {
        s.push_str(&format!(", ${c:.4}"));
    }
    if !t.limits.is_empty() {
        s.push_str(&format!("; spent/limit: {}", limits_line(&t.limits)));
    }
    s
}

/// "requests 2/2 (run), cost-usd $0.0123/$1 (suite)": each limit with what was spent.
pub fn limits_line(limits: &[crate::judges::llm::budget::LimitUse]) -> String {
    limits
        .iter()
        .map(|l| {
            let (spent, limit) = if l.quantity == "cost-usd" {
                (format!("${:.4}", l.spent), format!("${}", l.limit))
            } else {
                (thousands(l.spent as u64), thousands(l.limit as u64))
            };
            format!("{} {spent}/{limit} ({})", l.quantity, l.scope)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reading for templates.
#[derive(Serialize)]
pub struct ReadingView {
    /// An emoji: the reading's, or ⛔ when the gate fails a reading that is not a rejection
    /// for something the change did (so a failed gate never shows ✅).
    pub icon: &'static str,
    /// A word.
    pub word: &'static str,
    /// What the headline must add after the reading when the gate overrules it: "but the
    /// gate fails (exit 3)", or for a subject not assessed through a cause the change can
    /// bring about, "counted against the change (exit 3)"; empty otherwise.
    pub but: String,
}

/// What the headline adds when the gate fails a reading that is not a rejection, and whether
/// that failure is the change's doing (then the icon is ⛔, never the reading's own ✅, ➖,
/// ⚠️, or the 🛠️ of judge-ci's own instrument failing): `spec/trust.md` point 12, attack
/// finding NC4 (a test the change made run past the time limit was headed "🛠️ Not assessed"
/// and an accepted reading the gate failed "✅ Accepted").
pub(crate) fn overruled(r: &Report) -> Option<String> {
    if r.outcome.gate != Gate::Fail {
        return None;
    }
    let code = r.outcome.exit_code;
    match r.interpretation.reading {
        Some(Reading::Rejected) => None,
        Some(Reading::Accepted | Reading::NotApplicable | Reading::Undecided) => {
            Some(format!("but the gate fails (exit {code})"))
        }
        Some(Reading::NotAssessed) | None => r
            .outcome
            .errored_tiers
            .iter()
            .any(ErroredTier::subject_can_cause)
            .then(|| format!("counted against the change (exit {code})")),
    }
}

/// Config for templates.
#[derive(Serialize)]
pub struct ConfigView {
    /// `name`.
    pub name: String,
    /// The file.
    pub path: String,
    /// The first 12 hex digits of its sha256.
    pub sha: String,
}

/// Subject for templates.
#[derive(Serialize)]
pub struct SubjectView {
    /// Workspace folder.
    pub workspace: String,
    /// Reference folder or revision.
    pub reference: Option<String>,
    /// Head commit, short.
    pub head: Option<String>,
}

/// Outcome for templates.
#[derive(Serialize)]
pub struct OutcomeView {
    /// One sentence.
    pub reason: String,
    /// The reason when it says more than the headline (the gate overruled the result, a tier
    /// could not run); empty when it only repeats "accepted" or "rejected".
    pub note: String,
    /// 0, 1 or 3.
    pub exit_code: i32,
}

/// A cascade table row.
#[derive(Serialize)]
pub struct TierRow {
    /// Tier name.
    pub name: String,
    /// Policy in words.
    pub policy: &'static str,
    /// Result in words (with an icon), or "not reached".
    pub result: String,
    /// `passed/total`.
    pub passed: String,
    /// Longest judge time.
    pub time: String,
}

/// One trusted test judge-ci ran itself.
#[derive(Serialize)]
pub struct OracleTestRow {
    /// FAIL_TO_PASS, PASS_TO_PASS, EXPECTED or NOT_CHARGED.
    pub set: &'static str,
    /// `pkg.Class#method`.
    pub name: String,
    /// On the base (empty without a base run).
    pub base: String,
    /// On the reference.
    pub reference: String,
    /// On the pull request.
    pub subject: String,
    /// Whether it counts against the pull request.
    pub failing: bool,
}

/// A failed task command.
#[derive(Serialize)]
pub struct TaskFailure {
    /// setup or post.
    pub phase: String,
    /// The command.
    pub command: String,
    /// What happened.
    pub problem: String,
}

/// A non-passing judgment.
#[derive(Serialize)]
pub struct WhyView {
    /// Seat name.
    pub name: String,
    /// Check type.
    #[serde(rename = "type")]
    pub judge_type: String,
    /// Status in words.
    pub status: String,
    /// Reasoning.
    pub reasoning: String,
    /// Failed checks (at most 10) that say more than the reasoning already does.
    pub failed_checks: Vec<CheckView>,
    /// The first few concrete findings (file:line, what, expected vs actual, a link to the
    /// code inside Actions), shown before the counts.
    pub evidence: Vec<EvidenceView>,
    /// Findings not shown in `evidence`.
    pub more_findings: usize,
    /// True when its findings are in the diff sections.
    pub structural: bool,
    /// The relevant output lines (Maven's error lines or the end of the output) when the
    /// judge reported no findings with a place.
    pub lines: String,
}

/// One concrete finding, leading a judge's explanation.
#[derive(Serialize)]
pub struct EvidenceView {
    /// `path:line` (or `path`, or "(no file)").
    pub place: String,
    /// A link to the line in the judged commit (GitHub Actions only), percent-encoded.
    pub url: Option<String>,
    /// The kind (`import-forbidden`, `compiler-error`, …).
    pub kind: String,
    /// The compiler's message, for compiler errors.
    pub message: Option<String>,
    /// What the reference has (first line, at most 120 characters).
    pub expected: Option<String>,
    /// What the workspace has (first line, at most 120 characters).
    pub actual: Option<String>,
    /// For a replacement (`kind` "replace"): what the workspace still has …
    pub from: Option<String>,
    /// … and what the reference has instead.
    pub to: Option<String>,
    /// How many findings this line stands for (2 for a replacement).
    pub count: usize,
}

/// Findings shown first per judge; the rest are counted (and in the diff sections).
const EVIDENCE_LINES: usize = 6;

/// The first line of `s`, at most 120 characters, with `…` when cut.
fn first_line(s: &str) -> String {
    let line = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let cut: String = line.chars().take(120).collect();
    if cut.len() < line.len() || s.trim().lines().count() > 1 {
        format!("{cut} …")
    } else {
        cut
    }
}

/// The first change of a unified diff from the reference (`---`) to the workspace (`+++`):
/// the workspace line it is at, the reference's line and the workspace's line.
fn first_change(diff: &str) -> Option<(Option<u64>, Option<String>, Option<String>)> {
    let mut lines = diff.lines();
    if !lines.next()?.starts_with("--- ") {
        return None;
    }
    let (mut at, mut line, mut expected, mut actual) = (None::<u64>, None, None, None);
    for l in lines {
        if let Some(h) = l.strip_prefix("@@ ") {
            if expected.is_some() || actual.is_some() {
                break;
            }
            // "@@ -a,b +c,d @@": the workspace side starts at line c.
            at = h
                .split_whitespace()
                .find_map(|p| p.strip_prefix('+'))
                .and_then(|p| p.split(',').next())
                .and_then(|n| n.parse().ok());
        } else if l.starts_with("+++ ") {
        } else if let Some(text) = l.strip_prefix('-') {
            line = line.or(at);
            expected.get_or_insert_with(|| first_line(text));
        } else if let Some(text) = l.strip_prefix('+') {
            line = line.or(at);
            actual.get_or_insert_with(|| first_line(text));
            at = at.map(|n| n + 1);
        } else {
            if expected.is_some() || actual.is_some() {
                break;
            }
            at = at.map(|n| n + 1);
        }
    }
    (expected.is_some() || actual.is_some()).then_some((line, expected, actual))
}

/// Up to [`EVIDENCE_LINES`] findings, taken in turn from each kind (kinds with a line in the
/// workspace first, then in order of first appearance) so a forbidden import and its missing
/// replacement are both shown.
fn evidence(findings: &[Finding], links: Option<&CodeLinks>) -> Vec<EvidenceView> {
    let (pairs, rest) = replacements(findings);
    let mut shown: Vec<EvidenceView> = pairs
        .iter()
        .take(EVIDENCE_LINES)
        .map(|p| {
            let line = p.line.map(u64::from).filter(|l| *l > 0);
            EvidenceView {
                url: links.and_then(|l| l.url(&p.path, line)),
                place: match line {
                    Some(l) => format!("{}:{l}", p.path),
                    None => p.path.clone(),
                },
                kind: "replace".to_string(),
                message: None,
                expected: None,
                actual: None,
                from: Some(p.from.clone()),
                to: Some(p.to.clone()),
                count: 2,
            }
        })
        .collect();
    let room = EVIDENCE_LINES.saturating_sub(shown.len());
    shown.extend(single_evidence(&rest, links, room));
    shown
}

/// A finding of the workspace and its counterpart in the reference, shown as one replacement:
/// an import the reference lacks and the import of the same simple name it has instead
/// (`javax.servlet.Filter → jakarta.servlet.Filter`), or a file's only unexpected dependency
/// and its only missing one.
struct Replacement {
    path: String,
    line: Option<u32>,
    from: String,
    to: String,
}

/// The imported name of an import line (`import static a.B.c;` → `a.B.c`).
fn imported(text: &str) -> &str {
    let t = text.trim().trim_end_matches(';').trim();
    let t = t.strip_prefix("import").map(str::trim_start).unwrap_or(t);
    t.strip_prefix("static ").map(str::trim_start).unwrap_or(t)
}

/// Splits `findings` into replacements and the findings left over, in their order.
fn replacements(findings: &[Finding]) -> (Vec<Replacement>, Vec<&Finding>) {
    use FindingKind::{
        DependencyMissing, DependencyUnexpected, ImportForbidden, ImportMissing, ImportUnexpected,
    };
    let mut used = vec![false; findings.len()];
    let mut pairs = Vec::new();
    let simple = |name: &str| name.rsplit('.').next().unwrap_or(name).to_string();
    for (i, gone) in findings.iter().enumerate() {
        if used[i] {
            continue;
        }
        let partner = match gone.kind {
            ImportForbidden | ImportUnexpected => {
                let Some(from) = gone.actual.as_deref().map(imported) else {
                    continue;
                };
                findings.iter().enumerate().position(|(k, f)| {
                    !used[k]
                        && f.kind == ImportMissing
                        && f.path == gone.path
                        && f.expected
                            .as_deref()
                            .map(imported)
                            .is_some_and(|to| to != from && simple(to) == simple(from))
                })
            }
            DependencyUnexpected => {
                let same = |k: FindingKind| {
                    findings
                        .iter()
                        .filter(|f| f.kind == k && f.path == gone.path)
                        .count()
                };
                if same(DependencyUnexpected) == 1 && same(DependencyMissing) == 1 {
                    findings
                        .iter()
                        .position(|f| f.kind == DependencyMissing && f.path == gone.path)
                } else {
                    None
                }
            }
            _ => None,
        };
        let Some(k) = partner else { continue };
        let (Some(from), Some(to)) = (gone.actual.as_deref(), findings[k].expected.as_deref())
        else {
            continue;
        };
        let name = |s: &str, import: bool| {
            let s = first_line(s);
            if import { imported(&s).to_string() } else { s }
        };
        let import = gone.kind != DependencyUnexpected;
        used[i] = true;
        used[k] = true;
        pairs.push(Replacement {
            path: gone.path.clone(),
            line: gone.line,
            from: name(from, import),
            to: name(to, import),
        });
    }
    let rest = findings
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(f, _)| f)
        .collect();
    (pairs, rest)
}

/// Up to `room` single findings, as [`evidence`] picks them.
fn single_evidence(
    findings: &[&Finding],
    links: Option<&CodeLinks>,
    room: usize,
) -> Vec<EvidenceView> {
    let mut kinds: Vec<FindingKind> = Vec::new();
    for f in findings.iter().copied() {
        if !kinds.contains(&f.kind) {
            kinds.push(f.kind);
        }
    }
    let has_line = |k: FindingKind| findings.iter().any(|f| f.kind == k && f.line.is_some());
    kinds.sort_by_key(|k| !has_line(*k));
    let by_kind: Vec<Vec<&Finding>> = kinds
        .iter()
        .map(|k| findings.iter().copied().filter(|f| f.kind == *k).collect())
        .collect();
    let mut picked: Vec<&Finding> = Vec::new();
    let mut round = 0;
    while picked.len() < room && by_kind.iter().any(|l| l.len() > round) {
        for list in &by_kind {
            if let Some(f) = list.get(round)
                && picked.len() < room
            {
                picked.push(f);
            }
        }
        round += 1;
    }
    picked
        .into_iter()
        .map(|f| {
            let path = f.path.as_str();
            let text = |t: &Option<String>| t.as_deref().map(first_line).filter(|s| !s.is_empty());
            let (mut line, mut expected, mut actual) = (
                f.line.map(u64::from).filter(|l| *l > 0),
                text(&f.expected),
                text(&f.actual),
            );
            // A file comparison's finding carries a short unified diff: show its first change.
            if let Some((l, e, a)) = f.actual.as_deref().and_then(first_change) {
                (line, expected, actual) = (line.or(l), e, a);
            }
            let place = match (path, line) {
                ("", _) => "(no file)".to_string(),
                (p, Some(l)) => format!("{p}:{l}"),
                (p, None) => p.to_string(),
            };
            EvidenceView {
                url: links.and_then(|l| l.url(path, line)),
                place,
                kind: f.kind.token().to_string(),
                message: text(&f.message),
                expected,
                actual,
                from: None,
                to: None,
                count: 1,
            }
        })
        .collect()
}

/// A failed check.
#[derive(Serialize)]
pub struct CheckView {
    /// Its name.
    pub name: String,
    /// Its message.
    pub message: String,
}

/// A collapsible diff section.
#[derive(Serialize)]
pub struct DiffSection {
    /// "Import diff", …
    pub title: &'static str,
    /// Findings in all.
    pub count: usize,
    /// Files in all.
    pub file_count: usize,
    /// One `diff` block text per shown file (unescaped; use `fence("diff")`).
    pub files: Vec<DiffFile>,
    /// Files not shown.
    pub more_files: usize,
}

/// One file's diff block.
#[derive(Serialize)]
pub struct DiffFile {
    /// Path.
    pub path: String,
    /// `--- workspace/…` `+++ reference/…` and `-`/`+` lines.
    pub block: String,
}

/// Judgments of one tier.
#[derive(Serialize)]
pub struct JudgmentGroup {
    /// Tier name.
    pub name: String,
    /// Its judges.
    pub judges: Vec<JudgeLine>,
}

/// One judge's line.
#[derive(Serialize)]
pub struct JudgeLine {
    /// Seat name.
    pub name: String,
    /// Check type.
    #[serde(rename = "type")]
    pub judge_type: String,
    /// Status in words.
    pub status: String,
    /// Score with two decimals.
    pub score: Option<String>,
    /// Time.
    pub time: String,
    /// How repeated answers decided it, in words ("3 of 3 answers agree").
    pub samples: Option<String>,
}

fn judge_type(r: &Report, name: &str) -> String {
    r.tiers
        .iter()
        .flat_map(|t| &t.judges)
        .find(|j| j.name == name)
        .map(|j| j.judge_type.clone())
        .unwrap_or_default()
}

fn why_view(r: &Report, name: &str, j: &Judgment, links: Option<&CodeLinks>) -> WhyView {
    let findings = j.findings();
    // Its findings are in the diff sections when a structural judge reported them (compiler
    // errors and text addressed to the grader are evidence, never diffs).
    let d = &r.diffs;
    let structural = d
        .imports
        .iter()
        .chain(&d.ast)
        .chain(&d.pom)
        .chain(&d.files)
        .any(|e| e.judge == name);
    let lines = if !findings.is_empty() {
        String::new()
    } else if let Some(Value::Array(lines)) = j.metadata().get("errorLines") {
        lines
            .iter()
            .filter_map(Value::as_str)
            .take(15)
            .collect::<Vec<_>>()
            .join("\n")
    } else if let Some(Value::String(out)) = j.metadata().get("output") {
        let all: Vec<&str> = out.lines().collect();
        all[all.len().saturating_sub(15)..].join("\n")
    } else {
        String::new()
    };
    let shown = evidence(findings, links);
    WhyView {
        name: name.to_string(),
        judge_type: judge_type(r, name),
        status: status_word(j.status()),
        // A structural judge's reasoning only counts the findings shown above and in the
        // diff sections: said once, there.
        reasoning: if structural && !shown.is_empty() {
            String::new()
        } else {
            bounded(j.reasoning(), REASONING_CHARS)
        },
        more_findings: findings
            .len()
            .saturating_sub(shown.iter().map(|e| e.count).sum()),
        evidence: shown,
        failed_checks: j
            .checks()
            .iter()
            .filter(|c| !c.is_passed())
            // A check that only repeats the reasoning or sums up the findings shown above
            // ("3/4 files match") adds nothing.
            .filter(|c| {
                !structural
                    && !c.message().trim().is_empty()
                    && !j.reasoning().contains(c.message().trim())
            })
            .take(10)
            .map(|c| CheckView {
                name: c.name().to_string(),
                message: c.message().to_string(),
            })
            .collect(),
        structural,
        lines: if lines.trim().is_empty() {
            String::new()
        } else {
            lines
        },
    }
}

fn diff_section(title: &'static str, entries: &[DiffEntry]) -> DiffSection {
    let mut files: Vec<&str> = Vec::new();
    for e in entries {
        if !files.contains(&e.path.as_str()) {
            files.push(&e.path);
        }
    }
    let shown = files
        .iter()
        .take(DIFF_FILES)
        .map(|path| {
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
                    for line in text.iter().flat_map(|t| t.lines()) {
                        block.push(sign);
                        block.push(' ');
                        block.push_str(line);
                        block.push('\n');
                    }
                }
            }
            DiffFile {
                path: path.to_string(),
                block,
            }
        })
        .collect();
    DiffSection {
        title,
        count: entries.len(),
        file_count: files.len(),
        files: shown,
        more_files: files.len().saturating_sub(DIFF_FILES),
    }
}

/// The surface a markdown rendering is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    /// The pull-request comment: long sections folded.
    Comment,
    /// The job summary: everything open.
    Summary,
    /// The HTML preview: everything open.
    Html,
}

impl Audience {
    /// The `surface` value templates see.
    fn token(self) -> &'static str {
        match self {
            Audience::Comment => "comment",
            Audience::Summary => "summary",
            Audience::Html => "html",
        }
    }
}

/// The template data of a report, for the pull-request comment.
pub fn view(r: &Report) -> View {
    view_for(r, Audience::Comment)
}

/// The template data of a report for one surface.
pub fn view_for(r: &Report, audience: Audience) -> View {
    let (icon, word) = reading_word(r.interpretation.reading);
    let but = overruled(r);
    let icon = if but.is_some() { "⛔" } else { icon };
    let place = match &r.interpretation.decided_by {
        Some(t) => format!("at tier {}", code_span(t)),
        None => String::new(),
    };
    // The gate's sentence says more than the headline only when the gate did not simply
    // follow an accepting or rejecting result (exit 0 for accepted, 1 for rejected).
    let plain = r.outcome.errored_tiers.is_empty()
        && matches!(
            (r.interpretation.reading, r.outcome.exit_code),
            (Some(Reading::Accepted), 0) | (Some(Reading::Rejected), 1)
        );
    let ran: Vec<_> = r
        .tiers
        .iter()
        .filter(|t| t.ran)
        .flat_map(|t| &t.judges)
        .collect();
    let not_passed = ran.iter().filter(|j| j.status != Status::Pass).count();
    let checks_line = match (not_passed, ran.len()) {
        (_, 0) => String::new(),
        (0, n) => format!("All {n} checks that ran passed."),
        (k, n) => format!("{k} of {n} checks that ran did not pass."),
    };
    let tiers = r
        .tiers
        .iter()
        .map(|t| TierRow {
            name: t.name.clone(),
            policy: policy_words(t.policy),
            result: match (t.ran, t.status) {
                (false, _) => "not reached".to_string(),
                (true, Some(s)) => format!(
                    "{}{}",
                    status_word(s),
                    if t.stopped { " (stopped here)" } else { "" }
                ),
                (true, None) => "🛠️ failed to run".to_string(),
            },
            passed: if t.ran {
                format!(
                    "{}/{}",
                    t.judges.iter().filter(|j| j.status == Status::Pass).count(),
                    t.judges.len()
                )
            } else {
                "—".into()
            },
            time: if t.ran {
                seconds(t.elapsed_ms)
            } else {
                "—".into()
            },
        })
        .collect();
    let task_failures = r
        .task
        .iter()
        .flat_map(|t| &t.commands)
        .filter_map(|c| {
            c.problem.as_ref().map(|p| TaskFailure {
                phase: c.phase.clone(),
                command: c.command.clone(),
                problem: p.clone(),
            })
        })
        .collect();
    let verdict = &r.verdict;
    let links = CodeLinks::of(r);
    let why: Vec<WhyView> = verdict
        .individual_by_name()
        .iter()
        .filter(|(_, j)| j.status() != Status::Pass)
        .map(|(n, j)| why_view(r, n, j, links.as_ref()))
        .collect();
    let show_why = !why.is_empty() || verdict.aggregated().status() != Status::Pass;
    let diffs = [
        ("Import diff", &r.diffs.imports),
        ("AST diff", &r.diffs.ast),
        ("POM diff", &r.diffs.pom),
        ("File diff", &r.diffs.files),
    ]
    .into_iter()
    .filter(|(_, e)| !e.is_empty())
    .map(|(t, e)| diff_section(t, e))
    .collect();
    let judgments = r
        .tiers
        .iter()
        .filter(|t| t.ran)
        .map(|t| JudgmentGroup {
            name: t.name.clone(),
            judges: t
                .judges
                .iter()
                .map(|j| JudgeLine {
                    name: j.name.clone(),
                    judge_type: j.judge_type.clone(),
                    status: status_word(j.status),
                    score: j.score.map(|s| format!("{s:.2}")),
                    time: seconds(j.elapsed_ms),
                    samples: j.samples.as_ref().map(|s| s.spoken()),
                })
                .collect(),
        })
        .collect();
    View {
        marker: marker(r.config.sticky_key()),
        notices: super::notices::notices(r),
        reading: ReadingView {
            icon,
            word,
            but: but.unwrap_or_default(),
        },
        place,
        surface: audience.token(),
        checks_line,
        config: ConfigView {
            name: r.config.name.clone(),
            path: r.config.path.clone(),
            sha: r.config.sha256.chars().take(12).collect(),
        },
        subject: SubjectView {
            workspace: r.subject.workspace.clone(),
            reference: r
                .subject
                .reference_rev
                .clone()
                .or_else(|| r.subject.reference.clone()),
            head: r
                .subject
                .head_sha
                .as_ref()
                .map(|s| s.chars().take(12).collect()),
        },
        outcome: OutcomeView {
            note: if plain {
                String::new()
            } else {
                r.outcome.reason.clone()
            },
            reason: r.outcome.reason.clone(),
            exit_code: r.outcome.exit_code,
        },
        tiers,
        task_failures,
        oracle_tests: r
            .tests
            .iter()
            .flat_map(|t| t.rows())
            .map(|(set, g)| OracleTestRow {
                set,
                name: g.name.clone(),
                base: g.base.as_ref().map(|b| b.words()).unwrap_or_default(),
                reference: g.reference.words(),
                subject: g.subject.words(),
                failing: set != "NOT_CHARGED" && !g.subject.passed(),
            })
            .collect(),
        oracle_base_run: r.tests.as_ref().is_some_and(|t| t.base_run),
        aggregate_reasoning: if show_why {
            verdict.aggregated().reasoning().to_string()
        } else {
            String::new()
        },
        why: if show_why { why } else { Vec::new() },
        diffs,
        judgments,
        tool_version: r.tool.version.clone(),
        run_url: r.subject.run_url.as_deref().and_then(safe_link),
        llm: r.llm.as_ref().map(llm_phrase),
        fence: r.fence.clone(),
        gaps: r.diagnostics.as_ref().and_then(gaps_view),
    }
}

/// A URL fit for a markdown link destination: http(s) only, and every character that could
/// end the destination, open markup or ping someone percent-encoded; anything else is dropped.
pub fn safe_link(s: &str) -> Option<String> {
    let u = url::Url::parse(s).ok()?;
    if !matches!(u.scheme(), "https" | "http") || u.host_str().is_none() {
        return None;
    }
    let mut out = String::new();
    for c in u.as_str().chars() {
        match c {
            '(' | ')' | '<' | '>' | '[' | ']' | '@' | '\\' | '`' | '*' | '_' | '"' | '\'' | ' '
            | '!' => out.push_str(&format!("%{:02X}", c as u32)),
            c if c.is_ascii_graphic() => out.push(c),
            c => {
                let mut b = [0u8; 4];
                for byte in c.encode_utf8(&mut b).bytes() {
                    out.push_str(&format!("%{byte:02X}"));
                }
            }
        }
    }
    Some(out)
}

/// A template that cannot be rendered, with minijinja's explanation (file and line).
#[derive(Debug, thiserror::Error)]
#[error("report template: {0:#}")]
pub struct TemplateError(minijinja::Error);

/// The environment with judge-ci's escaping filters.
fn environment(template: &str) -> Result<Environment<'_>, TemplateError> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_keep_trailing_newline(true);
    env.add_filter("inline", |s: String| inline(&s));
    env.add_filter("cell", |s: String| inline(&s));
    env.add_filter("code", |s: String| code_span(&s));
    env.add_filter("fence", |s: String, lang: Option<String>| {
        code_block(&s, lang.as_deref().unwrap_or(""))
    });
    env.add_template("report", template)
        .map_err(TemplateError)?;
    Ok(env)
}

/// Renders a report for the pull-request comment with a template (the built-in one when
/// `None`).
pub fn render_with(r: &Report, template: Option<&str>) -> Result<String, TemplateError> {
    render_for(r, template, Audience::Comment)
}

/// Renders a report for one surface with a template (the built-in one when `None`).
pub fn render_for(
    r: &Report,
    template: Option<&str>,
    audience: Audience,
) -> Result<String, TemplateError> {
    let env = environment(template.unwrap_or(DEFAULT_TEMPLATE))?;
    let tmpl = env.get_template("report").map_err(TemplateError)?;
    tmpl.render(JinjaValue::from_serialize(view_for(r, audience)))
        .map_err(TemplateError)
}

/// Renders a report with the built-in template.
pub fn render(r: &Report) -> String {
    // The built-in template is tested; a failure here is a bug, shown rather than hidden.
    render_with(r, None).unwrap_or_else(|e| {
        format!(
            "{}\n\njudge-ci could not render its report: {e}\n",
            marker(r.config.sticky_key())
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_import_or_dependency_is_one_finding_and_unrelated_ones_stay_apart() {
        use FindingKind::*;
        let f = |kind, path: &str| Finding::new(path, kind);
        let findings = vec![
            f(ImportForbidden, "A.java")
                .at(3)
                .actual("import javax.servlet.Filter;"),
            f(ImportMissing, "A.java").expected("import jakarta.servlet.Filter;"),
            // Same simple name in another file: not a partner.
            f(ImportMissing, "B.java").expected("import jakarta.servlet.Filter;"),
            // A different simple name: not a replacement.
            f(ImportUnexpected, "A.java")
                .at(4)
                .actual("import java.util.List;"),
            f(ImportMissing, "A.java").expected("import java.util.Set;"),
            f(DependencyUnexpected, "pom.xml")
                .at(17)
                .actual("javax.servlet:javax.servlet-api:4.0.1"),
            f(DependencyMissing, "pom.xml").expected("jakarta.servlet:jakarta.servlet-api:5.0.0"),
        ];
        let (pairs, rest) = replacements(&findings);
        let shown: Vec<(&str, Option<u32>, &str, &str)> = pairs
            .iter()
            .map(|p| (p.path.as_str(), p.line, p.from.as_str(), p.to.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "A.java",
                    Some(3),
                    "javax.servlet.Filter",
                    "jakarta.servlet.Filter"
                ),
                (
                    "pom.xml",
                    Some(17),
                    "javax.servlet:javax.servlet-api:4.0.1",
                    "jakarta.servlet:jakarta.servlet-api:5.0.0"
                ),
            ]
        );
        assert_eq!(rest.len(), 3, "{}", rest.len());
        let ev = evidence(&findings, None);
        assert_eq!(ev[0].kind, "replace");
        assert_eq!(ev.iter().map(|e| e.count).sum::<usize>(), findings.len());

        // Two unexpected dependencies and one missing: which replaced which is unknown.
        let deps = vec![
            f(DependencyUnexpected, "pom.xml").actual("a:b:1"),
            f(DependencyUnexpected, "pom.xml").actual("c:d:1"),
            f(DependencyMissing, "pom.xml").expected("e:f:1"),
        ];
        assert!(replacements(&deps).0.is_empty());
    }

    #[test]
    fn the_first_change_of_a_short_diff_is_found_with_its_workspace_line() {
        let d = "--- reference/A.java\n+++ workspace/A.java\n@@ -4,3 +4,3 @@\n package p;\n import x;\n-class A { int f() { return 1; } }\n+class A { int f() { return 2; } }\n";
        assert_eq!(
            first_change(d),
            Some((
                Some(6),
                Some("class A { int f() { return 1; } }".into()),
                Some("class A { int f() { return 2; } }".into())
            ))
        );
        assert_eq!(first_change("not a diff"), None);
        assert_eq!(first_change("--- a\n+++ b\n@@ -1 +1 @@\n same\n"), None);
    }
}
