//! The suite's markdown (job summary, PR or release comment) and HTML page: totals,
//! regressions first when compared with a baseline, per-tier failures and pass rates as
//! mermaid `xychart-beta` charts (drawn as SVG bars in the HTML page), the gap distribution,
//! and one collapsed row per task.

use crate::jury::interpret::Reading;
use crate::report::escape::{code_span, inline};
use crate::report::{gfm, icons};

use super::compare::{Change, Comparison};
use super::model::SuiteReport;

fn pct(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{:.0}%", v * 100.0))
}

fn reading_word(r: Option<Reading>) -> String {
    icons::task(r).icon_lower()
}

/// A task's reading in a row: "not assessed" is judge-ci's own failure only when only its
/// instrument failed; a task the subject made unjudgeable (its code ran past a limit, broke
/// a judge) is said to count against it (trust.md point 12; attack finding NC5-4).
fn task_word(x: &super::model::TaskResult) -> String {
    match x.reading {
        Some(Reading::NotAssessed) if !x.instrument_failed && x.error.is_none() => {
            "⛔ not assessed, counted against the subject (an ERROR it can cause)".to_string()
        }
        // A reading that would pass beside an ERROR the subject can cause is no pass: the
        // row says so instead of ✅ (attack finding NC5-8).
        Some(r @ (Reading::Accepted | Reading::NotApplicable | Reading::Undecided))
            if x.subject_error.is_some() =>
        {
            format!(
                "⛔ {}, but no pass (an ERROR the subject can cause)",
                icons::reading(Some(r)).lower()
            )
        }
        r if !x.criteria_set_by_subject.is_empty() => {
            format!("{} (criteria set by the subject)", reading_word(r))
        }
        r => reading_word(r),
    }
}

/// A mermaid label: letters, digits and a few marks only (tier names are config text).
fn label(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_. ".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("\"{t}\"")
}

/// The suite as markdown; with `cmp`, the comparison with the baseline comes first.
pub fn markdown(s: &SuiteReport, cmp: Option<&Comparison>) -> String {
    let t = &s.totals;
    let mut md = format!(
        "## judge-ci suite · {}{}\n\n",
        inline(&s.suite.root),
        s.suite
            .shard
            .as_deref()
            .map(|x| format!(" · shard {x}"))
            .unwrap_or_default()
    );
    if let Some(from) = &s.suite.definitions_from {
        md.push_str(&format!(
            "The benchmark definitions, task files and references were read from {}; the workspaces are the pull request's.\n\n",
            inline(from)
        ));
    }
    let by_subject = s
        .tasks
        .iter()
        .filter(|x| {
            x.reading == Some(Reading::NotAssessed) && !x.instrument_failed && x.error.is_none()
        })
        .count();
    let not_assessed = if by_subject == 0 {
        format!("{} not assessed", t.not_assessed)
    } else {
        format!(
            "{} not assessed ({by_subject} of them counted against the subject: an ERROR it can cause)",
            t.not_assessed
        )
    };
    md.push_str(&format!(
        "**{} task(s)**: {} accepted, {} rejected, {} undecided, {} not applicable, {not_assessed}, {} could not run · pass rate {} of judged tasks\n\n",
        t.tasks, t.accepted, t.rejected, t.undecided, t.not_applicable, t.errors, pct(t.pass_rate)
    ));
    if !s.llm_limits.is_empty() {
        md.push_str(&format!(
            "Model spending over the suite (`--llm-limit`), spent/limit: {}\n\n",
            crate::report::markdown::limits_line(&s.llm_limits)
        ));
    }
    let left_out: Vec<String> = s
        .tasks
        .iter()
        .filter(|x| x.instrument_failed)
        .map(|x| {
            format!(
                "- `{}`: only judge-ci's own instrument failed",
                inline(&x.key)
            )
        })
        .collect();
    if !left_out.is_empty() {
        md.push_str(&format!(
            "Left out of the pass rate (a task the subject made unjudgeable counts as not passing):\n{}\n\n",
            left_out.join("\n")
        ));
    }
    let errored: Vec<String> = s
        .tasks
        .iter()
        .filter_map(|x| {
            x.subject_error.as_deref().map(|what| {
                format!(
                    "- `{}`: {}, but {}",
                    inline(&x.key),
                    reading_word(x.reading),
                    inline(what)
                )
            })
        })
        .collect();
    if !errored.is_empty() {
        md.push_str(&format!(
            "Not passing though the reading would pass: an ERROR the change can cause counts against it (trust.md point 12):\n{}\n\n",
            errored.join("\n")
        ));
    }
    let set_by_subject: Vec<String> = s
        .tasks
        .iter()
        .filter(|x| !x.criteria_set_by_subject.is_empty())
        .map(|x| {
            format!(
                "- `{}`: {}, by {}",
                inline(&x.key),
                reading_word(x.reading),
                x.criteria_set_by_subject
                    .iter()
                    .map(|c| code_span(c))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    if !set_by_subject.is_empty() {
        md.push_str(&format!(
            "Criteria set by the subject: these checks verified the VERIFY: lines of the submitted workspace's own plan, an exam the subject wrote (trust.md point 26):\n{}\n\n",
            set_by_subject.join("\n")
        ));
    }
    if let Some(c) = cmp {
        let kinds: Vec<String> = c
            .regression_kinds
            .iter()
            .map(|(k, n)| k.counted(*n))
            .collect();
        md.push_str(&format!(
            "Compared with the baseline: **{} regression(s)**{}, pass rate {} → {}.\n\n",
            c.regressions,
            if kinds.is_empty() {
                String::new()
            } else {
                format!(" ({})", kinds.join(", "))
            },
            pct(c.baseline_pass_rate),
            pct(c.current_pass_rate)
        ));
        for (kind, title) in [
            (Change::Regressed, "Regressions"),
            (
                Change::CouldNotJudge,
                "Could not judge (rejected in the baseline too, not counted as regressions)",
            ),
            (Change::Improved, "Improved"),
            (Change::New, "New"),
        ] {
            let rows: Vec<_> = c.changes.iter().filter(|x| x.change == kind).collect();
            if rows.is_empty() {
                continue;
            }
            md.push_str(&format!(
                "### {title} ({})\n\n| Task | Change |\n|---|---|\n",
                rows.len()
            ));
            for r in rows {
                md.push_str(&format!(
                    "| {} | {} |\n",
                    code_span(&r.key),
                    inline(&r.note)
                ));
            }
            md.push('\n');
        }
    }
    if !s.tiers.is_empty() {
        md.push_str("### Tiers\n\n| Tier | Ran | Passed | Failed | Pass rate |\n|---|---:|---:|---:|---:|\n");
        for x in &s.tiers {
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                inline(&x.name),
                x.ran,
                x.passed,
                x.failed,
                pct(x.pass_rate)
            ));
        }
        let names: Vec<String> = s.tiers.iter().map(|x| label(&x.name)).collect();
        let max = s.tiers.iter().map(|x| x.failed).max().unwrap_or(0).max(1);
        md.push_str(&format!(
            "\n```mermaid\nxychart-beta\n    title \"Failures per tier\"\n    x-axis [{}]\n    y-axis \"Tasks\" 0 --> {max}\n    bar [{}]\n```\n\n",
            names.join(", "),
            s.tiers.iter().map(|x| x.failed.to_string()).collect::<Vec<_>>().join(", ")
        ));
        if let Some(c) = cmp {
            let n: Vec<String> = c.tiers.iter().map(|x| label(&x.name)).collect();
            let series = |f: &dyn Fn(&super::compare::TierRates) -> Option<f64>| {
                c.tiers
                    .iter()
                    .map(|x| format!("{:.0}", f(x).unwrap_or(0.0) * 100.0))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            md.push_str(&format!(
                "```mermaid\nxychart-beta\n    title \"Pass rate per tier: baseline, then current (%)\"\n    x-axis [{}]\n    y-axis \"Pass rate\" 0 --> 100\n    bar [{}]\n    bar [{}]\n```\n\n",
                n.join(", "),
                series(&|x| x.baseline),
                series(&|x| x.current)
            ));
        }
    }
    if !s.gaps.is_empty() {
        let total: usize = s.gaps.iter().map(|(_, n)| n).sum();
        md.push_str("### Gap distribution\n\n| Category | Findings | Share |\n|---|---:|---:|\n");
        for (c, n) in &s.gaps {
            md.push_str(&format!(
                "| {} | {n} | {:.0}% |\n",
                c.name(),
                *n as f64 * 100.0 / total as f64
            ));
        }
        if let Some(c) = cmp {
            let shifted: Vec<String> = c
                .gap_shift
                .iter()
                .filter(|(_, a, b)| a != b)
                .map(|(k, a, b)| format!("{} {a} → {b}", k.name()))
                .collect();
            if !shifted.is_empty() {
                md.push_str(&format!(
                    "\nShifts since the baseline: {}.\n",
                    shifted.join(", ")
                ));
            }
        }
        if let Some(c) = cmp
            && !c.unstable.is_empty()
        {
            md.push_str(&format!(
                "\nUnstable (the dominant gap changed): {}.\n",
                c.unstable
                    .iter()
                    .map(|(k, a, b)| format!("{} {} → {}", code_span(k), a.name(), b.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        md.push_str("\n```mermaid\npie showData title Failures by gap category\n");
        for (c, n) in &s.gaps {
            md.push_str(&format!("    \"{}\" : {n}\n", c.name()));
        }
        md.push_str("```\n\n");
    }
    md.push_str(&format!("<details><summary>All {} task(s)</summary>\n\n| Task | Reading | Score | Decided by | Dominant gap |\n|---|---|---:|---|---|\n", s.tasks.len()));
    for x in &s.tasks {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            code_span(&x.key),
            task_word(x),
            x.score.map_or("—".into(), |v| format!("{v:.2}")),
            x.decided_by.as_deref().map_or("—".into(), inline),
            x.dominant_gap.map_or("—", |g| g.name()),
        ));
    }
    md.push_str("\n</details>\n");
    gfm::truncate(&md, gfm::JOB_SUMMARY_BUDGET, "suite.json")
}

/// The suite as a self-contained HTML page with drawn charts.
pub fn html(s: &SuiteReport, cmp: Option<&Comparison>) -> String {
    gfm::html_page(
        &markdown(s, cmp),
        &format!("judge-ci suite · {}", s.suite.root),
    )
}
