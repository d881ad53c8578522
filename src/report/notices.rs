//! What a reader must see before the verdict's details, because it changes what the verdict is
//! worth (`spec/trust.md` points 1, 2 and 7): a tier that could not run under an accepting
//! reading, a pull request that changes the judge's own files, protected paths it touches,
//! files restored from the reference. Plain sentences; every renderer escapes them.

use crate::judgment::{ErrorOrigin, Status};
use crate::jury::Verdict;
use crate::jury::interpret::Reading;

use super::{Against, CountsAgainst, ErroredTier, Report, TierView};

/// The longest reason kept for an errored tier.
const REASON_CHARS: usize = 300;

fn first_line(s: &str) -> String {
    let line = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() > REASON_CHARS {
        let cut: String = line.chars().take(REASON_CHARS).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

/// Finds the judgment of `name` anywhere in the verdict.
fn judgment<'v>(v: &'v Verdict, name: &str) -> Option<&'v crate::judgment::Judgment> {
    if let Some(j) = v.individual_by_name().get(name) {
        return Some(j);
    }
    v.composite_attempts()
        .iter()
        .filter_map(|a| a.verdict())
        .find_map(|c| judgment(c, name))
}

/// Every tier that ran and in which a judge, or the tier itself, ended ERROR.
pub fn errored_tiers(tiers: &[TierView], verdict: &Verdict) -> Vec<ErroredTier> {
    tiers
        .iter()
        .filter(|t| t.ran)
        .filter_map(|t| {
            let judges: Vec<String> = t
                .judges
                .iter()
                .filter(|j| j.status == Status::Error)
                .map(|j| j.name.clone())
                .collect();
            let tier_error = matches!(t.status, None | Some(Status::Error));
            if judges.is_empty() && !tier_error {
                return None;
            }
            let reason = judges
                .first()
                .and_then(|n| judgment(verdict, n))
                .map(|j| first_line(j.reasoning()))
                .filter(|r| !r.is_empty())
                .unwrap_or_else(|| match t.status {
                    None => "the tier produced no verdict".to_string(),
                    Some(_) => "the tier's aggregate is ERROR".to_string(),
                });
            // The instrument's only when every ERROR judgment in the tier has a cause of
            // judge-ci's own instrument; a tier whose aggregate is ERROR with no errored judge
            // has no cause judge-ci observed.
            let origin = if !judges.is_empty()
                && judges.iter().all(|n| {
                    judgment(verdict, n)
                        .is_some_and(|j| ErrorOrigin::of(j.cause()) == ErrorOrigin::Instrument)
                }) {
                ErrorOrigin::Instrument
            } else {
                ErrorOrigin::Subject
            };
            Some(ErroredTier {
                tier: t.name.clone(),
                judges,
                reason,
                origin,
            })
        })
        .collect()
}

/// What the change did that counts against it (see [`CountsAgainst`]): every judge in a tier
/// that ran that abstained with a cause the change brought about
/// ([`crate::judgment::Cause::kept_from_deciding_by_subject`]), and every trust check of
/// judge-ci's own (type `protected-paths`) that failed, wherever its tier's vote went.
pub fn counts_against(tiers: &[TierView], verdict: &Verdict) -> Vec<CountsAgainst> {
    let trust_check = crate::config::checks::CheckType::ProtectedPaths.token();
    tiers
        .iter()
        .filter(|t| t.ran)
        .flat_map(|t| {
            t.judges.iter().filter_map(|j| {
                let judged = judgment(verdict, &j.name)?;
                let what = match j.status {
                    Status::Abstain => Against::Abstained {
                        cause: judged
                            .cause()
                            .filter(|c| c.kept_from_deciding_by_subject())?,
                    },
                    Status::Fail if j.judge_type == trust_check => Against::TrustCheckFailed,
                    Status::Pass | Status::Fail | Status::NotApplicable | Status::Error => {
                        return None;
                    }
                };
                Some(CountsAgainst {
                    tier: t.name.clone(),
                    judge: j.name.clone(),
                    what,
                    reason: first_line(judged.reasoning()),
                })
            })
        })
        .collect()
}

/// The sentences a report opens with, most important first.
pub fn notices(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = r.provenance.as_ref().filter(|p| !p.verified) {
        out.push(p.note.clone());
    }
    if matches!(
        r.interpretation.reading,
        Some(Reading::Accepted | Reading::NotApplicable)
    ) {
        let word = match r.interpretation.reading {
            Some(Reading::NotApplicable) => "Not applicable",
            _ => "Accepted",
        };
        for t in &r.outcome.errored_tiers {
            let who = if t.judges.is_empty() {
                String::new()
            } else {
                format!(" ({})", t.judges.join(", "))
            };
            // Whose doing the ERROR can be, said where it is reported (attack finding NC4):
            // a limit the change's code ran into is not judge-ci's instrument failing.
            let whose = if t.subject_can_cause() {
                "a cause the change can bring about, so it counts against the change"
            } else {
                "judge-ci's own instrument failed, a cause the change cannot bring about"
            };
            out.push(format!(
                "{word}, but {}{who}: {} ({whose})",
                t.clause(),
                t.reason
            ));
        }
    }
    if matches!(
        r.interpretation.reading,
        Some(Reading::Accepted | Reading::NotApplicable | Reading::Undecided)
    ) {
        for w in &r.outcome.counts_against {
            out.push(format!(
                "This counts against the change whatever the reading: {}: {}",
                w.clause(),
                w.reason
            ));
        }
    }
    if let Some(src) = &r.config.source {
        let changed: Vec<&str> = src.changed().map(|f| f.path.as_str()).collect();
        if !changed.is_empty() {
            out.push(format!(
                "This pull request changes the judge's own files ({}); they were read from {} ({}), and the pull request's versions were not used.",
                changed.join(", "),
                src.from,
                src.commit.chars().take(12).collect::<String>()
            ));
        }
    }
    if let Some(t) = &r.trust {
        if !t.protected_changes.is_empty() {
            let list: Vec<String> = t
                .protected_changes
                .iter()
                .map(super::ProtectedChange::describe)
                .collect();
            out.push(format!(
                "This pull request changes protected paths: {}{}",
                list.join(", "),
                if t.protected_action == "fail" {
                    "; protected-action is fail, so the judgment protected-paths fails."
                } else {
                    "; protected-action is report, so this is reported only."
                }
            ));
        }
        if !t.unjudged.is_empty() {
            let shown: Vec<&str> = t.unjudged.iter().take(10).map(String::as_str).collect();
            out.push(format!(
                "No check reads {} file(s) this pull request changes: {}{}{}",
                t.unjudged.len(),
                shown.join(", "),
                if t.unjudged.len() > 10 { ", …" } else { "" },
                if t.unjudged_action == "fail" {
                    "; unjudged-action is fail, so the judgment unjudged-changes fails."
                } else {
                    "; they were not judged (unjudged-action: fail makes this a failure)."
                }
            ));
        }
        if !t.base_build_files.is_empty() {
            out.push(format!(
                "The judges ran with the base's copies of protected files, build wrappers and settings: {}.",
                t.base_build_files.join(", ")
            ));
        }
        if !t.restored.is_empty() {
            // Under `reveal: none` the names are the reference's (hidden tests among them):
            // a count only (attack finding NC17; trust.md point 23).
            if r.reveal == crate::config::Reveal::None
                || t.restored.iter().all(|n| n == super::reveal::WITHHELD)
            {
                out.push(format!(
                    "Restored {} file(s) from the reference before judging (their names are withheld: reveal: none).",
                    t.restored.len()
                ));
            } else {
                out.push(format!(
                    "Restored from the reference before judging: {}.",
                    t.restored.join(", ")
                ));
            }
        }
        if !t.build_code_added.is_empty() {
            let first: Vec<String> = t
                .build_code_added
                .iter()
                .take(3)
                .map(|f| f.one_line())
                .collect();
            out.push(format!(
                "This pull request adds code that runs at build or test time ({} finding(s): {}{}){}",
                t.build_code_added.len(),
                first.join("; "),
                if t.build_code_added.len() > 3 { "; …" } else { "" },
                if t.protected_action == "fail" {
                    "; protected-action is fail, so the judgment build-code-added fails."
                } else {
                    "; protected-action is report, so this is reported only."
                }
            ));
        }
        if !t.restore_removed.is_empty() {
            out.push(format!(
                "Removed before judging, as the pull request added them under the restored globs and the reference has no such files: {}.",
                t.restore_removed.join(", ")
            ));
        }
    }
    out
}

/// The check-run title's opening when an accepting reading hides an ERROR: "Accepted, but
/// tier build could not run".
pub fn title_prefix(r: &Report) -> Option<String> {
    if !matches!(
        r.interpretation.reading,
        Some(Reading::Accepted | Reading::NotApplicable)
    ) {
        return None;
    }
    let (task, tiers): (Vec<&ErroredTier>, Vec<&ErroredTier>) = r
        .outcome
        .errored_tiers
        .iter()
        .partition(|t| t.is_task_commands());
    let names: Vec<&str> = tiers.iter().map(|t| t.tier.as_str()).collect();
    let (_, word) = super::markdown::reading_word(r.interpretation.reading);
    let tiers = match names.as_slice() {
        [] => None,
        [one] => Some(format!("tier {one} could not run")),
        many => Some(format!("tiers {} could not run", many.join(", "))),
    };
    let task = (!task.is_empty()).then(|| "the task commands failed".to_string());
    let what: Vec<String> = task.into_iter().chain(tiers).collect();
    (!what.is_empty()).then(|| format!("{word}, but {}", what.join(" and ")))
}
