//! `validate`: the loading and jury stages only, and a printout of the jury.

use std::path::Path;
use std::sync::Arc;

use super::error::{InstrumentError, RunError};
use super::jury::jury_of;
use super::load::load;
use super::options::Verbosity;
use crate::config::{CheckSpec, JurySpec};
use crate::judges::NoProgress;

/// `validate`: loads, builds and describes the jury; returns the text to print.
pub fn validate(
    config: Option<&Path>,
    task: Option<&Path>,
    verbosity: Verbosity,
    color: bool,
) -> Result<String, RunError> {
    let (bench, task) = load(config, task, verbosity, color)?;
    let (_, description, _) = jury_of(
        &bench,
        Arc::new(NoProgress),
        color,
        crate::judges::split::Mode::Live,
        // Nothing runs: the jury is only built and described.
        &Arc::default(),
        &Arc::default(),
        None,
    )?;
    let mut out = format!(
        "{}: valid ({} {})\n",
        bench.path.display(),
        bench.name,
        bench.version
    );
    if let Some(t) = &task {
        out.push_str(&format!("task {}: valid ({})\n", t.id, t.path.display()));
    }
    out.push_str(&describe_spec(&bench.jury, ""));
    out.push_str(&format!(
        "\njury description:\n{}\n",
        serde_json::to_string_pretty(&description).map_err(InstrumentError::PrintDescription)?
    ));
    Ok(out)
}

fn describe_spec(spec: &JurySpec, indent: &str) -> String {
    let checks = |cs: &[CheckSpec], ind: &str| -> String {
        cs.iter()
            .map(|c| {
                format!(
                    "{ind}  - {} ({}{})\n",
                    c.name,
                    c.check_type(),
                    if c.weight != 1.0 {
                        format!(", weight {}", c.weight)
                    } else {
                        String::new()
                    }
                )
            })
            .collect()
    };
    let voting = |v: &crate::jury::strategies::StrategySpec| {
        let mut s = v.kind.token().to_string();
        if let Some(t) = v.threshold {
            s.push_str(&format!(" ≥ {t}"));
        }
        if let Some(e) = v.error_policy {
            s.push_str(&format!(", errors {e}"));
        }
        if let Some(n) = v.not_applicable_policy {
            s.push_str(&format!(", not-applicable {n}"));
        }
        s
    };
    match spec {
        JurySpec::Checks {
            voting: v,
            parallel,
            checks: cs,
        } => format!(
            "{indent}jury: {} check(s), {}{}\n{}",
            cs.len(),
            voting(v),
            if *parallel { "" } else { ", in order" },
            checks(cs, indent)
        ),
        JurySpec::Tiers(tiers) => {
            let mut s = format!("{indent}cascade: {} tier(s)\n", tiers.len());
            for (i, t) in tiers.iter().enumerate() {
                s.push_str(&format!(
                    "{indent}{}. {} [{}] voting {}{}\n",
                    i + 1,
                    t.name,
                    t.policy,
                    voting(&t.voting),
                    if t.parallel { "" } else { ", in order" }
                ));
                s.push_str(&checks(&t.checks, indent));
            }
            s
        }
        JurySpec::Members { voting: v, members } => {
            let mut s = format!(
                "{indent}meta-jury: {} member(s), {}\n",
                members.len(),
                voting(v)
            );
            for m in members {
                s.push_str(&format!("{indent}member {}:\n", m.name));
                s.push_str(&describe_spec(&m.jury, &format!("{indent}    ")));
            }
            s
        }
    }
}
