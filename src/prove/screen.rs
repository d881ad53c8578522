//! The cheap path for a variant (issue 28, "Cost"): the leading tiers of the cascade that
//! run no subject code and ask no model (the structural and file checks of a `migration`
//! tier) are judged in this process, with the config loaded once, the reference written
//! once and one model store shared by every variant, so a file a variant shares with the
//! reference (all but the one it changes) is never parsed again: its model is found by the
//! SHA-256 of its bytes. A variant one of those tiers rejects is done; every other one (it
//! passed them, a check of theirs could not decide, or the config changes the workspace
//! before judging) gets the ordinary full run, so builds run only for the variants no
//! cheaper tier caught.
//!
//! What the screen decides is what the full run decides: the same preflight stage, the guard
//! stage where the config lets it change the verdict (the checks it adds to the first tier,
//! `restore:`), the same judges built from the same specs, voted tier
//! by tier with the cascade's rejection rule (a `REJECT_ON_ANY_FAIL` tier with an individual
//! FAIL rejects; [`crate::jury::CascadedJury`]), and only a clean rejection (every judgment of the
//! tiers screened PASS, FAIL or NOT_APPLICABLE) is taken, which the gate turns into exit 1
//! under any `fail-on`. `tests/it/prove.rs` checks a screened variant against a full run of
//! the same tree.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::config::checks::WorkspaceReads;
use crate::config::{Benchmark, CheckSpec, ConfigSource, JurySpec, ProtectedAction, TierSpec};
use crate::judges::structural::Comparisons;
use crate::judgment::{JudgmentContext, Status};
use crate::jury::TierPolicy;

use super::model::{CheckRef, Judged, Outcome};

/// The loaded config and what every screened variant shares.
pub struct Screen {
    bench: Benchmark,
    reference: PathBuf,
    comparisons: Arc<Comparisons>,
    fence: Arc<crate::fence::Fence>,
    tiers: Vec<String>,
}

/// Whether a check can be judged without running subject code or asking a model, before any
/// build: it reads the sources as submitted.
fn screenable_check(c: &CheckSpec) -> bool {
    let t = c.check_type();
    let facts = t.facts();
    !facts.runs_subject_code() && !t.asks_model() && facts.reads != WorkspaceReads::Outputs
}

/// The leading tiers the screen judges: `REJECT_ON_ANY_FAIL` tiers whose every check is
/// [`screenable_check`].
fn leading(jury: &JurySpec) -> &[TierSpec] {
    let JurySpec::Tiers(tiers) = jury else {
        return &[];
    };
    let n = tiers
        .iter()
        .take_while(|t| {
            t.policy == TierPolicy::RejectOnAnyFail && t.checks.iter().all(screenable_check)
        })
        .count();
    &tiers[..n]
}

impl Screen {
    /// The screen for `bench`, judging against `reference`, with one model store for every
    /// variant: the `--model-cache` one (`model_cache`, or the default folder), else one of
    /// its own in `scratch` (removed with prove's trees), so that within one prove run no
    /// file content is parsed twice. `None` when no leading tier can be screened.
    pub fn new(
        bench: &Benchmark,
        reference: &Path,
        model_cache: Option<&str>,
        scratch: &Path,
        hidden: Arc<crate::fence::Hidden>,
        tiers: &[String],
    ) -> Option<Screen> {
        if leading(&bench.jury).is_empty() {
            return None;
        }
        let fence = Arc::new(crate::fence::Fence::new(bench.sandbox.network, hidden));
        let configured = crate::lang::cache::configure(
            model_cache,
            reference,
            &|k| std::env::var(k).ok(),
            &fence,
        )
        .ok()
        .flatten();
        let store = configured.unwrap_or_else(|| {
            let _ = std::fs::create_dir_all(scratch);
            fence.hide(scratch);
            crate::lang::cache::Store::new(
                scratch.to_path_buf(),
                crate::lang::cache::DEFAULT_MAX_BYTES,
            )
        });
        let sides = Arc::new(crate::judges::structural::select::Sides::default());
        Some(Screen {
            bench: bench.clone(),
            reference: reference.to_path_buf(),
            comparisons: Arc::new(Comparisons::new(sides, Some(Arc::new(store)))),
            fence,
            tiers: tiers.to_vec(),
        })
    }

    /// The names of the tiers it judges.
    pub fn tiers(&self) -> Vec<String> {
        leading(&self.bench.jury)
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    /// Judges the variant written at `dir`: `Some` when a screened tier rejects it cleanly,
    /// `None` when it needs the full run.
    pub async fn judge(&self, dir: &Path, report: String) -> Option<Judged> {
        let started = Instant::now();
        // The preflight stage: a configured path that leads out of the tree through a link
        // makes the run refuse it; the full run says so.
        crate::pipeline::preflight::preflight(&self.bench.jury, dir, false).ok()?;
        let mut bench = self.bench.clone();
        // The guard stage as the run has it, where the config lets it change the verdict: the
        // checks it adds to the first tier (`unjudged-action` or `protected-action: fail`),
        // the files `restore:` puts back. Otherwise it only adds facts to the run's report.
        let guarded = bench.unjudged_action == ProtectedAction::Fail
            || bench.protected_action == ProtectedAction::Fail
            || !bench.restore.is_empty();
        if guarded {
            // The output folder named is one the variant cannot hold.
            let out = dir.join("judge-ci-out");
            crate::pipeline::guard::guard(
                &mut bench,
                &ConfigSource::WorkTree,
                None,
                crate::pipeline::guard::Place {
                    workspace: dir,
                    reference: Some(&self.reference),
                    out: &out,
                },
                self.comparisons.sides(),
                &self.fence,
            )
            .ok()?;
        }
        let services = crate::judges::Services {
            fence: Arc::clone(&self.fence),
            progress: Arc::new(crate::judges::NoProgress),
            llm: Arc::new(crate::judges::llm::Runtime::new(bench.llm.clone())),
            evidence: Arc::default(),
            split: crate::judges::split::Mode::Live,
            comparisons: Arc::clone(&self.comparisons),
            oracle: Arc::default(),
            submitted: Arc::new(crate::judges::baseline::Guard::of(&bench.jury)),
        };
        let mut ctx = JudgmentContext::new(dir).with_reference(Some(self.reference.clone()));
        ctx.conventions = crate::judgment::Conventions::of(&bench.metadata).ok()?;
        ctx.metadata = bench.metadata.clone();
        let ctx = Arc::new(ctx);
        let mut failed = Vec::new();
        let mut reached = Vec::new();
        for (at, tier) in leading(&bench.jury).iter().enumerate() {
            let spec = JurySpec::Checks {
                voting: tier.voting.clone(),
                parallel: tier.parallel,
                checks: tier.checks.clone(),
            };
            let jury = crate::judges::build_jury(&spec, &tier.name, &services).ok()?;
            let verdict = crate::jury::vote(jury.as_ref(), Arc::clone(&ctx))
                .await
                .ok()?;
            let mut any_fail = false;
            for (name, j) in verdict.individual_by_name() {
                match j.status() {
                    Status::Pass | Status::NotApplicable => {}
                    Status::Fail => any_fail = true,
                    // An ERROR or ABSTAIN: the gate and the cascade weigh it; the full run
                    // decides.
                    Status::Error | Status::Abstain => return None,
                }
                let check_type = tier
                    .checks
                    .iter()
                    .find(|c| &c.name == name)
                    .map(|c| c.check_type().to_string())
                    .unwrap_or_default();
                reached.push(super::aims_of(&check_type));
                if j.status() == Status::Fail {
                    failed.push(CheckRef {
                        tier: tier.name.clone(),
                        check: name.clone(),
                        aims: super::aims_of(&check_type),
                        check_type,
                        status: "fail".into(),
                        reasoning: super::one_line(j.reasoning()),
                    });
                }
            }
            if any_fail {
                reached.sort_by_key(|a| *a as u8);
                reached.dedup();
                let elapsed = started.elapsed();
                return Some(Judged {
                    outcome: Outcome::Rejected,
                    exit_code: crate::pipeline::EXIT_REJECTED,
                    decided_by: Some(tier.name.clone()),
                    decided_at: self.tiers.iter().position(|t| *t == tier.name).or(Some(at)),
                    failed,
                    reached,
                    error: None,
                    report,
                    elapsed_ms: elapsed.as_millis() as u64,
                    elapsed_us: elapsed.as_micros() as u64,
                    screened: true,
                });
            }
        }
        None
    }

    /// Ends the use of the model store (its pack into place).
    pub fn finish(&self) {
        if let Some(s) = self.comparisons.store() {
            s.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Benchmark {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("judge-ci.yml");
        std::fs::write(&p, text).unwrap();
        crate::pipeline::load_from(
            Some(&p),
            None,
            Arc::new(ConfigSource::WorkTree),
            crate::pipeline::Verbosity::Quiet,
            false,
        )
        .unwrap()
        .0
    }

    #[test]
    fn only_leading_reject_tiers_without_subject_code_or_models_are_screened() {
        let b = config(
            "schema: judge-ci.v1\nname: t\nversion: \"1\"\njury:\n  tiers:\n    - name: s\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - type: import-diff\n        - type: pom-diff\n    - name: b\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - type: command\n          run: \"true\"\n    - name: s2\n      policy: FINAL_TIER\n      checks:\n        - type: ast-diff\n",
        );
        let names: Vec<&str> = leading(&b.jury).iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["s"]);
        let b = config(
            "schema: judge-ci.v1\nname: t\nversion: \"1\"\njury:\n  tiers:\n    - name: mixed\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - type: import-diff\n        - type: command\n          run: \"true\"\n    - name: f\n      policy: FINAL_TIER\n      checks:\n        - type: ast-diff\n",
        );
        assert!(leading(&b.jury).is_empty());
    }
}
