//! `calibrate.md` (the figures, each check's, every disagreement), `calibrate.junit.xml`
//! (one test case per labelled case) and `calibrate.json`.

use std::fmt::Write as _;
use std::path::Path;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

use super::model::{CalibrateReport, CaseOutcome, CaseResult};
use super::stats::{Agreement, Answer, Kappa, Label, Rate};
use crate::report::escape;

/// Writes `calibrate.json`, `calibrate.md` and `calibrate.junit.xml` into `out`.
pub fn write(report: &CalibrateReport, out: &Path) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(report).map_err(std::io::Error::other)?;
    let save = crate::pipeline::save::write_atomically;
    save(&out.join("calibrate.json"), format!("{json}\n").as_bytes())?;
    save(&out.join("calibrate.md"), markdown(report).as_bytes())?;
    save(&out.join("calibrate.junit.xml"), junit(report).as_bytes())
}

fn code(s: &str) -> String {
    escape::code_span(s).replace('|', "\\|")
}

fn cell(s: &str) -> String {
    escape::inline(s).replace('|', "\\|")
}

/// "0.80 [0.49, 0.94] (8/10)".
pub fn rate(r: Option<&Rate>) -> String {
    match r {
        Some(r) => format!(
            "{:.2} [{:.2}, {:.2}] ({}/{})",
            r.value, r.low, r.high, r.hits, r.of
        ),
        None => "—".into(),
    }
}

/// "0.60 [0.10, 1.00]".
pub fn kappa(k: Option<&Kappa>) -> String {
    match k {
        Some(k) => format!("{:.2} [{:.2}, {:.2}]", k.value, k.low, k.high),
        None => "undefined".into(),
    }
}

fn label(l: Label) -> &'static str {
    match l {
        Label::Pass => "pass",
        Label::Fail => "fail",
    }
}

fn answer(a: Answer) -> &'static str {
    match a {
        Answer::Pass => "pass",
        Answer::Fail => "fail",
        Answer::Undecided => "undecided",
    }
}

fn row(s: &mut String, what: &str, a: &Agreement) {
    let c = &a.confusion;
    let _ = writeln!(
        s,
        "| {what} | {} | {} | {} | {} | {} | {} |",
        c.total(),
        rate(a.accuracy.as_ref()),
        kappa(a.kappa.as_ref()),
        rate(a.true_positive_rate.as_ref()),
        rate(a.true_negative_rate.as_ref()),
        c.undecided()
    );
}

/// The markdown report.
pub fn markdown(r: &CalibrateReport) -> String {
    let mut s = String::new();
    let head = match &r.gate {
        Some(g) if g.passed => "✅ Calibrated",
        Some(_) => "❌ Not calibrated",
        None => "Calibration",
    };
    let _ = writeln!(s, "## {head} · {}\n", escape::inline(&r.name));
    let agreed = r
        .cases
        .iter()
        .filter(|c| c.outcome == CaseOutcome::Agrees)
        .count();
    let _ = writeln!(
        s,
        "{} labelled case(s) of {}, {} item(s); {agreed} case(s) agree on every label. Config {}; model {}.\n",
        r.cases.len(),
        code(&r.cases_dir),
        r.overall.confusion.total(),
        code(&r.config),
        if r.models.is_empty() {
            "—".to_string()
        } else {
            r.models
                .iter()
                .map(|m| code(m))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    if let Some(g) = &r.gate {
        let _ = writeln!(
            s,
            "**Gate** (`--min-kappa {}`): {}\n",
            g.min_kappa,
            escape::inline(&g.reason)
        );
    }
    let _ = writeln!(
        s,
        "| | items | accuracy | Cohen's κ | true-positive rate | true-negative rate | undecided |"
    );
    let _ = writeln!(s, "|---|---:|---|---|---|---|---:|");
    row(&mut s, "**all**", &r.overall);
    for c in &r.checks {
        row(
            &mut s,
            &format!("{} ({})", code(&c.check), cell(&c.check_type)),
            &c.agreement,
        );
    }
    let _ = writeln!(
        s,
        "\nIntervals are 95%: Wilson score intervals for the rates, κ ± 1.96 standard errors (Fleiss, Cohen & Everitt 1969) for κ. A positive is a PASS label; an undecided answer (unstable samples, an ERROR) counts as a disagreement.\n"
    );
    let _ = writeln!(
        s,
        "- Instability (items undecided because the samples disagreed): {}",
        rate(r.instability.as_ref())
    );
    let _ = writeln!(
        s,
        "- Order-swap flips (judgments asked in both orders whose answer changed with the order): {}",
        match &r.order_flip {
            Some(f) => rate(Some(f)),
            None => "— (no check asked with `order: swap` and samples of 2 or more)".into(),
        }
    );
    let u = &r.usage;
    let _ = writeln!(
        s,
        "- Requests {}, cache hits {}, tokens {} in / {} out{}; {:.1} s\n",
        u.requests,
        u.cache_hits,
        u.input_tokens,
        u.output_tokens,
        u.cost_usd
            .map_or(String::new(), |c| format!(", cost ${c:.4}")),
        r.total_ms as f64 / 1000.0
    );
    let wrong: Vec<(&CaseResult, &super::model::Item)> = r
        .cases
        .iter()
        .flat_map(|c| c.items.iter().filter(|i| !i.agrees).map(move |i| (c, i)))
        .collect();
    if !wrong.is_empty() {
        let _ = writeln!(s, "### Disagreements ({})\n", wrong.len());
        let _ = writeln!(
            s,
            "| case | check | label | answer | label's reason | model's reasoning |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for (c, i) in wrong {
            let what = match &i.criterion {
                Some(k) => format!("{} · {}", code(&i.check), cell(k)),
                None => code(&i.check),
            };
            let said = match (&i.cause, i.answer) {
                (Some(cause), Answer::Undecided) => {
                    format!("undecided ({} {})", i.status, code(cause))
                }
                _ => answer(i.answer).to_string(),
            };
            let _ = writeln!(
                s,
                "| {} | {what} | {} | {said} | {} | {} |",
                code(&c.name),
                label(i.label),
                cell(&i.why),
                cell(&i.reasoning)
            );
        }
        s.push('\n');
    }
    let _ = writeln!(s, "### Cases\n");
    let _ = writeln!(
        s,
        "| case | outcome | items agreed | requests | time | from |"
    );
    let _ = writeln!(s, "|---|---|---:|---:|---:|---|");
    for c in &r.cases {
        let outcome = match c.outcome {
            CaseOutcome::Agrees => "✅ agrees".to_string(),
            CaseOutcome::Disagrees => "❌ disagrees".to_string(),
            CaseOutcome::CouldNotRun => format!(
                "⚠️ could not run: {}",
                cell(c.error.as_deref().unwrap_or(""))
            ),
        };
        let _ = writeln!(
            s,
            "| {} | {outcome} | {}/{} | {} | {:.1} s | {} |",
            code(&c.name),
            c.items.iter().filter(|i| i.agrees).count(),
            c.items.len(),
            c.usage.requests,
            c.elapsed_ms as f64 / 1000.0,
            cell(c.from.as_deref().unwrap_or("—"))
        );
    }
    s
}

/// JUnit XML: one testsuite, one testcase per labelled case; a disagreement is a failure,
/// a case that could not run an error.
pub fn junit(r: &CalibrateReport) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let failures = r
        .cases
        .iter()
        .filter(|c| c.outcome == CaseOutcome::Disagrees)
        .count();
    let errors = r
        .cases
        .iter()
        .filter(|c| c.outcome == CaseOutcome::CouldNotRun)
        .count();
    let secs = |ms: u64| format!("{:.3}", ms as f64 / 1000.0);
    let _ = w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let tests = r.cases.len().to_string();
    let (failures, errors) = (failures.to_string(), errors.to_string());
    let total = secs(r.total_ms);
    let name = format!("calibrate: {}", r.name);
    let mut suites = BytesStart::new("testsuites");
    suites.push_attribute(("name", name.as_str()));
    suites.push_attribute(("tests", tests.as_str()));
    suites.push_attribute(("failures", failures.as_str()));
    suites.push_attribute(("errors", errors.as_str()));
    suites.push_attribute(("time", total.as_str()));
    let _ = w.write_event(Event::Start(suites));
    let mut suite = BytesStart::new("testsuite");
    suite.push_attribute(("name", name.as_str()));
    suite.push_attribute(("tests", tests.as_str()));
    suite.push_attribute(("failures", failures.as_str()));
    suite.push_attribute(("errors", errors.as_str()));
    suite.push_attribute(("skipped", "0"));
    suite.push_attribute(("time", total.as_str()));
    let _ = w.write_event(Event::Start(suite));
    let _ = w.write_event(Event::Start(BytesStart::new("properties")));
    let mut props = vec![
        ("kappa".to_string(), kappa(r.overall.kappa.as_ref())),
        ("accuracy".to_string(), rate(r.overall.accuracy.as_ref())),
        ("requests".to_string(), r.usage.requests.to_string()),
    ];
    if let Some(g) = &r.gate {
        props.push(("minKappa".into(), g.min_kappa.to_string()));
        props.push((
            "gate".into(),
            if g.passed { "passed" } else { "failed" }.into(),
        ));
    }
    for (k, v) in &props {
        let mut p = BytesStart::new("property");
        p.push_attribute(("name", k.as_str()));
        p.push_attribute(("value", v.as_str()));
        let _ = w.write_event(Event::Empty(p));
    }
    let _ = w.write_event(Event::End(BytesEnd::new("properties")));
    for c in &r.cases {
        let mut tc = BytesStart::new("testcase");
        tc.push_attribute(("classname", "calibrate"));
        tc.push_attribute(("name", c.name.as_str()));
        let t = secs(c.elapsed_ms);
        tc.push_attribute(("time", t.as_str()));
        let _ = w.write_event(Event::Start(tc));
        let detail: String = c
            .items
            .iter()
            .map(|i| {
                let what = match &i.criterion {
                    Some(k) => format!("{} / {k}", i.check),
                    None => i.check.clone(),
                };
                format!(
                    "{} {what}: labelled {} ({}), answered {}{}: {}\n",
                    if i.agrees { "agrees" } else { "DISAGREES" },
                    label(i.label),
                    i.why,
                    answer(i.answer),
                    i.cause
                        .as_ref()
                        .map_or(String::new(), |c| format!(" ({c})")),
                    i.reasoning
                )
            })
            .collect();
        let wrong = c.items.iter().filter(|i| !i.agrees).count();
        match c.outcome {
            CaseOutcome::Agrees => {}
            CaseOutcome::Disagrees => {
                let msg = format!("{wrong} of {} label(s) not matched", c.items.len());
                let mut f = BytesStart::new("failure");
                f.push_attribute(("message", msg.as_str()));
                f.push_attribute(("type", "disagrees"));
                let _ = w.write_event(Event::Start(f));
                let _ = w.write_event(Event::Text(BytesText::new(&detail)));
                let _ = w.write_event(Event::End(BytesEnd::new("failure")));
            }
            CaseOutcome::CouldNotRun => {
                let msg = c.error.clone().unwrap_or_default();
                let mut f = BytesStart::new("error");
                f.push_attribute(("message", msg.as_str()));
                f.push_attribute(("type", "could-not-run"));
                let _ = w.write_event(Event::Start(f));
                let _ = w.write_event(Event::Text(BytesText::new(&detail)));
                let _ = w.write_event(Event::End(BytesEnd::new("error")));
            }
        }
        if c.outcome == CaseOutcome::Agrees {
            let _ = w.write_event(Event::Start(BytesStart::new("system-out")));
            let _ = w.write_event(Event::Text(BytesText::new(&detail)));
            let _ = w.write_event(Event::End(BytesEnd::new("system-out")));
        }
        let _ = w.write_event(Event::End(BytesEnd::new("testcase")));
    }
    let _ = w.write_event(Event::End(BytesEnd::new("testsuite")));
    let _ = w.write_event(Event::End(BytesEnd::new("testsuites")));
    let mut out = String::from_utf8_lossy(&w.into_inner()).into_owned();
    out.push('\n');
    out
}
