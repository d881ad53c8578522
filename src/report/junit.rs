//! JUnit XML: one testsuite per tier, one testcase per judge; FAIL is a failure, ERROR an
//! error, ABSTAIN / NOT_APPLICABLE skipped, with the reasoning and failed checks. A judge that
//! did not run (its tier was not reached) is a skipped testcase too, so reporters that count
//! test cases (EnricoMi's publish-unit-test-result-action, dorny's test-reporter) show every
//! configured judge.

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

use crate::judgment::Status;

use super::model::Report;

fn secs(ms: u64) -> String {
    format!("{:.3}", ms as f64 / 1000.0)
}

/// Renders the report as JUnit XML.
pub fn junit(r: &Report) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let count = |s: Status| {
        r.tiers
            .iter()
            .flat_map(|t| &t.judges)
            .filter(|j| j.status == s)
            .count()
            .to_string()
    };
    let tests: usize = r
        .tiers
        .iter()
        .map(|t| t.judges.len() + t.not_run.len())
        .sum();
    let skipped_all: usize = r
        .tiers
        .iter()
        .map(|t| {
            t.not_run.len()
                + t.judges
                    .iter()
                    .filter(|j| matches!(j.status, Status::Abstain | Status::NotApplicable))
                    .count()
        })
        .sum();
    let stopped_at = r.tiers.iter().find(|t| t.stopped).map(|t| t.name.as_str());
    let _ = w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let mut root = BytesStart::new("testsuites");
    root.push_attribute(("name", r.config.check_run_name().as_str()));
    root.push_attribute(("tests", tests.to_string().as_str()));
    root.push_attribute(("failures", count(Status::Fail).as_str()));
    root.push_attribute(("errors", count(Status::Error).as_str()));
    root.push_attribute(("skipped", skipped_all.to_string().as_str()));
    root.push_attribute(("time", secs(r.timings.jury_ms).as_str()));
    let _ = w.write_event(Event::Start(root));
    for t in &r.tiers {
        let n = |s: Status| {
            t.judges
                .iter()
                .filter(|j| j.status == s)
                .count()
                .to_string()
        };
        let skipped = t.not_run.len()
            + t.judges
                .iter()
                .filter(|j| matches!(j.status, Status::Abstain | Status::NotApplicable))
                .count();
        let mut suite = BytesStart::new("testsuite");
        suite.push_attribute(("name", t.name.as_str()));
        suite.push_attribute((
            "tests",
            (t.judges.len() + t.not_run.len()).to_string().as_str(),
        ));
        suite.push_attribute(("failures", n(Status::Fail).as_str()));
        suite.push_attribute(("errors", n(Status::Error).as_str()));
        suite.push_attribute(("skipped", skipped.to_string().as_str()));
        suite.push_attribute(("time", secs(t.elapsed_ms).as_str()));
        let _ = w.write_event(Event::Start(suite));
        for j in &t.judges {
            let mut case = BytesStart::new("testcase");
            case.push_attribute(("classname", format!("judge-ci.{}", t.name).as_str()));
            case.push_attribute(("name", j.name.as_str()));
            case.push_attribute(("time", secs(j.elapsed_ms).as_str()));
            let _ = w.write_event(Event::Start(case));
            // Repeated answers: the counts as properties, read by most JUnit consumers.
            if let Some(s) = &j.samples {
                let _ = w.write_event(Event::Start(BytesStart::new("properties")));
                let mut props = vec![
                    ("samples.asked", s.asked.to_string()),
                    ("samples.answered", s.answered.to_string()),
                    ("samples.decided", s.decided.to_string()),
                    ("samples.summary", s.spoken()),
                ];
                for (k, n) in &s.counts {
                    props.push((k.as_str(), n.to_string()));
                }
                for (k, v) in props {
                    let name = if k.starts_with("samples.") {
                        k.to_string()
                    } else {
                        format!("samples.{k}")
                    };
                    let mut p = BytesStart::new("property");
                    p.push_attribute(("name", name.as_str()));
                    p.push_attribute(("value", v.as_str()));
                    let _ = w.write_event(Event::Empty(p));
                }
                let _ = w.write_event(Event::End(BytesEnd::new("properties")));
            }
            let judgment = r.verdict.individual_by_name().get(&j.name);
            let reasoning = judgment
                .map(|x| x.reasoning().to_string())
                .unwrap_or_default();
            let mut body = reasoning.clone();
            for c in judgment
                .map(|x| x.checks())
                .unwrap_or_default()
                .iter()
                .filter(|c| !c.is_passed())
            {
                body.push_str(&format!("\n✗ {}: {}", c.name(), c.message()));
            }
            let element = match j.status {
                Status::Fail => Some("failure"),
                Status::Error => Some("error"),
                Status::Abstain | Status::NotApplicable => Some("skipped"),
                Status::Pass => None,
            };
            if let Some(el) = element {
                let mut e = BytesStart::new(el);
                let message: String = reasoning
                    .chars()
                    .filter(|c| !c.is_control())
                    .take(500)
                    .collect();
                e.push_attribute(("message", message.as_str()));
                e.push_attribute(("type", j.judge_type.as_str()));
                let _ = w.write_event(Event::Start(e));
                let clean: String = body
                    .chars()
                    .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
                    .collect();
                let _ = w.write_event(Event::Text(BytesText::new(&clean)));
                let _ = w.write_event(Event::End(BytesEnd::new(el)));
            }
            let _ = w.write_event(Event::End(BytesEnd::new("testcase")));
        }
        let why_not = match (t.ran, stopped_at) {
            (false, Some(s)) => format!("not run: the cascade stopped at tier '{s}'"),
            (false, None) => "not run: the tier was not reached".to_string(),
            (true, _) => "not run: the tier gave this judge no judgment".to_string(),
        };
        for j in &t.not_run {
            let mut case = BytesStart::new("testcase");
            case.push_attribute(("classname", format!("judge-ci.{}", t.name).as_str()));
            case.push_attribute(("name", j.name.as_str()));
            case.push_attribute(("time", "0.000"));
            let _ = w.write_event(Event::Start(case));
            let mut e = BytesStart::new("skipped");
            e.push_attribute(("message", why_not.as_str()));
            e.push_attribute(("type", j.judge_type.as_str()));
            let _ = w.write_event(Event::Empty(e));
            let _ = w.write_event(Event::End(BytesEnd::new("testcase")));
        }
        if !t.ran {
            // After the test cases, where the JUnit schema puts a suite's output.
            let _ = w.write_event(Event::Start(BytesStart::new("system-out")));
            let _ = w.write_event(Event::Text(BytesText::new(&why_not)));
            let _ = w.write_event(Event::End(BytesEnd::new("system-out")));
        }
        let _ = w.write_event(Event::End(BytesEnd::new("testsuite")));
    }
    if let Some(sets) = &r.tests {
        oracle_suite(&mut w, sets);
    }
    let _ = w.write_event(Event::End(BytesEnd::new("testsuites")));
    let mut s = String::from_utf8_lossy(&w.into_inner()).into_owned();
    s.push('\n');
    s
}

/// The trusted tests judge-ci ran itself, one testcase each under the suite
/// `judge-ci.tests`, with its set (FAIL_TO_PASS, PASS_TO_PASS, EXPECTED) as a property; a
/// test that fails on the reference too is skipped (not charged).
fn oracle_suite(w: &mut Writer<Vec<u8>>, sets: &crate::judges::oracle::TestSets) {
    let rows = sets.rows();
    let failing = rows
        .iter()
        .filter(|(set, g)| *set != "NOT_CHARGED" && !g.subject.passed())
        .count();
    let mut suite = BytesStart::new("testsuite");
    suite.push_attribute(("name", "judge-ci.tests"));
    suite.push_attribute(("tests", rows.len().to_string().as_str()));
    suite.push_attribute(("failures", failing.to_string().as_str()));
    suite.push_attribute(("errors", "0"));
    suite.push_attribute(("skipped", sets.not_charged.len().to_string().as_str()));
    let _ = w.write_event(Event::Start(suite));
    for (set, g) in rows {
        let (class, method) = g.name.split_once('#').unwrap_or(("", g.name.as_str()));
        let mut case = BytesStart::new("testcase");
        case.push_attribute(("classname", class));
        case.push_attribute(("name", method));
        let _ = w.write_event(Event::Start(case));
        let _ = w.write_event(Event::Start(BytesStart::new("properties")));
        let mut p = BytesStart::new("property");
        p.push_attribute(("name", "set"));
        p.push_attribute(("value", set));
        let _ = w.write_event(Event::Empty(p));
        let _ = w.write_event(Event::End(BytesEnd::new("properties")));
        if set == "NOT_CHARGED" {
            let mut e = BytesStart::new("skipped");
            e.push_attribute((
                "message",
                format!("not charged: on the reference it {}", g.reference.words()).as_str(),
            ));
            let _ = w.write_event(Event::Empty(e));
        } else if !g.subject.passed() {
            let mut e = BytesStart::new("failure");
            e.push_attribute((
                "message",
                format!("{set}: {} (observed by judge-ci)", g.subject.words()).as_str(),
            ));
            e.push_attribute(("type", set));
            let _ = w.write_event(Event::Empty(e));
        }
        let _ = w.write_event(Event::End(BytesEnd::new("testcase")));
    }
    let _ = w.write_event(Event::End(BytesEnd::new("testsuite")));
}
