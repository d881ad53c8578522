//! `prove.md` (the sensitivity table, the battery, the defects) and `prove.json`.

use std::fmt::Write as _;
use std::path::Path;

use super::model::{BatteryStatus, Judged, Outcome, ProveReport, Verdict};
use crate::report::escape;

/// Writes `prove.json` and `prove.md` into `out`.
pub fn write(report: &ProveReport, out: &Path) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(report).map_err(std::io::Error::other)?;
    crate::pipeline::save::write_atomically(
        &out.join("prove.json"),
        format!("{json}\n").as_bytes(),
    )?;
    crate::pipeline::save::write_atomically(&out.join("prove.md"), markdown(report).as_bytes())
}

/// Inline code in a table cell.
fn code(s: &str) -> String {
    escape::code_span(s).replace('|', "\\|")
}

/// The checks that decided a rejection: the failed checks of the deciding tier.
fn caught_by(j: &Judged) -> String {
    let decided: Vec<String> = j
        .failed
        .iter()
        .filter(|c| j.decided_by.as_deref().is_none_or(|d| d == c.tier))
        .map(|c| code(&c.check))
        .collect();
    if decided.is_empty() {
        "—".into()
    } else {
        decided.join(", ")
    }
}

fn tier(j: &Judged) -> String {
    j.decided_by.as_deref().map_or("—".into(), code)
}

fn outcome(o: Outcome) -> &'static str {
    match o {
        Outcome::Accepted => "✅ accepted",
        Outcome::Rejected => "❌ rejected",
        Outcome::Refused => "🚫 refused as bad input",
        Outcome::CouldNotJudge => "⚠️ could not judge",
    }
}

/// The markdown report.
pub fn markdown(r: &ProveReport) -> String {
    let mut s = String::new();
    let blind = r
        .units
        .iter()
        .filter(|u| u.judged.outcome == Outcome::Accepted)
        .count();
    let head = match r.verdict {
        Verdict::Proven => format!("## ✅ Proven · {}", escape::inline(&r.name)),
        Verdict::Defects => format!(
            "## ❌ {} defect(s) · {}",
            r.defects.len(),
            escape::inline(&r.name)
        ),
        Verdict::Unjudged => format!(
            "## ⚠️ Not proven: a tree could not be judged · {}",
            escape::inline(&r.name)
        ),
    };
    let _ = writeln!(s, "{head}\n");
    let _ = writeln!(
        s,
        "Config {} proven with base {} and reference {}.\n",
        code(&r.config),
        code(&r.base),
        code(&r.reference)
    );
    let _ = writeln!(
        s,
        "| tree | must be | result | decided by |\n|---|---|---|---|"
    );
    let _ = writeln!(
        s,
        "| reference (gold) | accepted | {} | {} |",
        outcome(r.gold.outcome),
        tier(&r.gold)
    );
    let _ = writeln!(
        s,
        "| base | rejected | {} | {} |\n",
        outcome(r.base_run.outcome),
        tier(&r.base_run)
    );
    if r.gold.outcome != Outcome::Accepted {
        let _ = writeln!(
            s,
            "The reference is not accepted, so no variant was judged: every variant would be rejected for the reference's own failure.\n"
        );
    } else {
        let caught = r
            .units
            .iter()
            .filter(|u| matches!(u.judged.outcome, Outcome::Rejected | Outcome::Refused))
            .count();
        let _ = writeln!(
            s,
            "### Sensitivity: {} unit(s) of the change, {caught} caught, {blind} blind spot(s)\n",
            r.units.len()
        );
        let _ = writeln!(
            s,
            "Each row is the reference with that one unit reverted.\n\n| # | change | what | caught by | tier |\n|---|---|---|---|---|"
        );
        for u in &r.units {
            let loc = if u.end_line > u.line {
                format!("{}:{}-{}", u.path, u.line, u.end_line)
            } else {
                format!("{}:{}", u.path, u.line)
            };
            let (by, t) = match u.judged.outcome {
                Outcome::Rejected => (caught_by(&u.judged), tier(&u.judged)),
                Outcome::Refused => (
                    format!(
                        "refused as bad input: {}",
                        escape::inline(u.judged.error.as_deref().unwrap_or(""))
                    ),
                    "—".into(),
                ),
                Outcome::Accepted => (
                    format!(
                        "**blind spot**: {}",
                        escape::inline(u.suggestion.as_deref().unwrap_or(""))
                    ),
                    "—".into(),
                ),
                Outcome::CouldNotJudge => (
                    format!(
                        "⚠️ could not judge: {}",
                        escape::inline(u.judged.error.as_deref().unwrap_or(""))
                    ),
                    tier(&u.judged),
                ),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {by} | {t} |",
                u.id,
                code(&loc),
                escape::inline(&u.what)
            );
        }
        let _ = writeln!(s);
        let screened = r.units.iter().filter(|u| u.judged.screened).count();
        if screened > 0 {
            let _ = writeln!(
                s,
                "{screened} of {} variant(s) were rejected by the screen (the leading tiers without subject code, judged in prove's process with the parsed models shared); the others had a full run.\n",
                r.units.len()
            );
        }
        if let Some(b) = &r.synthesized {
            let _ = writeln!(
                s,
                "No variant reached a check that builds, so prove made a behaviour break: the literal `\"{}\"` at {} became `\"{}\"`. {}.\n",
                escape::inline(&b.applied.was).replace('`', "'"),
                code(&format!("{}:{}", b.applied.path, b.applied.line)),
                escape::inline(&b.applied.now).replace('`', "'"),
                match b.judged.outcome {
                    Outcome::Rejected => format!(
                        "It was rejected by {} in {}; build-class gaming is applied to it",
                        caught_by(&b.judged),
                        tier(&b.judged)
                    ),
                    Outcome::Accepted => "It was **accepted**: no check sees the change, so build-class gaming cannot be put to the test on this tree".into(),
                    other => outcome(other).to_string(),
                }
            );
        }
        let held = r
            .battery
            .iter()
            .filter(|b| b.status == BatteryStatus::Held)
            .count();
        let exercised = r.battery.iter().filter(|b| b.exercised).count();
        let _ = writeln!(
            s,
            "### Gaming battery: {} transformation(s), {held} held, {exercised} exercised (applied to a tree only the checks they aim at reject)\n",
            r.battery.len()
        );
        let _ = writeln!(
            s,
            "Each applies one class of `spec/trust.md` to a rejected tree; none may turn it accepted.\n\n| transformation | trust.md | applied to | result | rejected by | note |\n|---|---|---|---|---|---|"
        );
        for b in &r.battery {
            let result = match b.status {
                BatteryStatus::Held if !b.exercised => "held, **not exercised**",
                BatteryStatus::Held => "✅ held (rejected)",
                BatteryStatus::Accepted => "❌ **accepted**",
                BatteryStatus::CouldNotJudge => "⚠️ could not judge",
                BatteryStatus::NotApplicable => "not applicable",
            };
            let by = b.judged.as_ref().map_or("—".into(), |j| match j.outcome {
                Outcome::Rejected => format!("{} in {}", caught_by(j), tier(j)),
                Outcome::Refused => format!(
                    "refused as bad input: {}",
                    escape::inline(j.error.as_deref().unwrap_or(""))
                ),
                _ => "—".into(),
            });
            let _ = writeln!(
                s,
                "| {} ({}) | {} | {} | {result} | {by} | {} |",
                code(&b.transformation.to_string()),
                escape::inline(&b.description),
                b.trust_point,
                escape::inline(&b.target),
                escape::inline(b.note.as_deref().unwrap_or("")).replace('|', "\\|")
            );
        }
        let _ = writeln!(s);
    }
    if !r.exam.is_empty() {
        let _ = writeln!(
            s,
            "### The exam the pull request could rewrite (trust.md point 26)\n"
        );
        for e in &r.exam {
            let _ = writeln!(
                s,
                "- {} `{}`{}: {}",
                if e.pinned { "✅" } else { "⚠️" },
                escape::inline(&e.check),
                e.tier
                    .as_deref()
                    .map(|t| format!(" (tier `{}`)", escape::inline(t)))
                    .unwrap_or_default(),
                escape::inline(&e.what)
            );
        }
        let _ = writeln!(s);
    }
    if !r.unverified.is_empty() {
        let _ = writeln!(
            s,
            "### Checks prove cannot verify from outside\n\nTheir verdict is a program the config names; prove ran it on its own trees, but a program can tell those from a real workspace (their path, the environment) and pass everything elsewhere. Read these commands as code:\n"
        );
        for u in &r.unverified {
            let _ = writeln!(s, "- {}", escape::inline(u));
        }
        let _ = writeln!(s);
    }
    if !r.defects.is_empty() {
        let _ = writeln!(s, "### Defects\n");
        for d in &r.defects {
            let _ = writeln!(s, "- {}", escape::inline(d));
        }
        let _ = writeln!(s);
    }
    let t = &r.timings;
    let _ = writeln!(
        s,
        "<sub>judge-ci {} · reference {} ms · variants {} ms · battery {} ms · total {} ms · each run's report under `runs/`</sub>",
        escape::inline(&r.version),
        t.gold_ms,
        t.variants_ms,
        t.battery_ms,
        t.total_ms
    );
    s
}
