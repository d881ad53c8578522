//! The statistics of agreement with human labels, as pure functions: accuracy, Cohen's κ
//! with its large-sample confidence interval, and Wilson score intervals for the
//! true-positive and true-negative rates. No I/O; unit-tested beside against values worked
//! out by hand.
//!
//! **Which interval for κ, and why.** κ's interval is the estimate ± 1.96 standard errors,
//! with the standard error of Fleiss, Cohen & Everitt (1969), the non-null asymptotic variance
//! that SAS (`PROC FREQ`, "ASE"), R's `psych::cohen.kappa` and most references give. It is
//! deterministic (the same labelled set always gives the same bounds, which a gate needs and
//! a bootstrap with a seed only imitates) and it can be checked by hand. Its weakness is
//! small samples: with about 30 labelled items it is approximate and can be too narrow when
//! κ is near 1, so `--min-kappa` gates on its lower bound (never on κ itself), which is the
//! conservative side, and the report says how many items it rests on. The interval is
//! clipped to [-1, 1].
//!
//! **What is agreement.** The human labels are PASS or FAIL; the model's answer is PASS,
//! FAIL or *undecided* (unstable samples, an ERROR, any other ABSTAIN). An undecided answer is
//! its own third category: it counts against accuracy and κ (it is not agreement with the
//! label), and a human-PASS item it answers counts against the true-positive rate as a
//! human-FAIL one counts against the true-negative rate. A tier that cannot decide is not a
//! tier to gate on, so abstaining is never rewarded.

use serde::Serialize;

/// The two-sided 95% normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A human label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    /// The check (or criterion) should pass.
    Pass,
    /// It should fail.
    Fail,
}

/// The model's decided answer, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Answer {
    /// PASS (a criterion met).
    Pass,
    /// FAIL (a criterion not met).
    Fail,
    /// No decided answer: unstable samples, an ERROR, another ABSTAIN.
    Undecided,
}

impl Answer {
    /// Whether it says what `label` says.
    pub fn agrees(self, label: Label) -> bool {
        matches!(
            (self, label),
            (Answer::Pass, Label::Pass) | (Answer::Fail, Label::Fail)
        )
    }
}

/// The confusion table of labels (rows) against answers (columns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Confusion {
    /// Labelled PASS, answered PASS.
    pub pass_pass: u64,
    /// Labelled PASS, answered FAIL.
    pub pass_fail: u64,
    /// Labelled PASS, undecided.
    pub pass_undecided: u64,
    /// Labelled FAIL, answered PASS.
    pub fail_pass: u64,
    /// Labelled FAIL, answered FAIL.
    pub fail_fail: u64,
    /// Labelled FAIL, undecided.
    pub fail_undecided: u64,
}

impl Confusion {
    /// The table of these (label, answer) pairs.
    pub fn of(pairs: impl IntoIterator<Item = (Label, Answer)>) -> Confusion {
        let mut c = Confusion::default();
        for p in pairs {
            *c.cell(p) += 1;
        }
        c
    }

    fn cell(&mut self, (l, a): (Label, Answer)) -> &mut u64 {
        match (l, a) {
            (Label::Pass, Answer::Pass) => &mut self.pass_pass,
            (Label::Pass, Answer::Fail) => &mut self.pass_fail,
            (Label::Pass, Answer::Undecided) => &mut self.pass_undecided,
            (Label::Fail, Answer::Pass) => &mut self.fail_pass,
            (Label::Fail, Answer::Fail) => &mut self.fail_fail,
            (Label::Fail, Answer::Undecided) => &mut self.fail_undecided,
        }
    }

    /// Every item.
    pub fn total(&self) -> u64 {
        self.labelled_pass() + self.labelled_fail()
    }

    /// Items labelled PASS.
    pub fn labelled_pass(&self) -> u64 {
        self.pass_pass + self.pass_fail + self.pass_undecided
    }

    /// Items labelled FAIL.
    pub fn labelled_fail(&self) -> u64 {
        self.fail_pass + self.fail_fail + self.fail_undecided
    }

    /// Items the model agreed on.
    pub fn agreed(&self) -> u64 {
        self.pass_pass + self.fail_fail
    }

    /// Items the model did not decide.
    pub fn undecided(&self) -> u64 {
        self.pass_undecided + self.fail_undecided
    }

    /// The table as a 3×3 matrix, rows and columns in the order PASS, FAIL, undecided (no
    /// item is labelled undecided, so the last row is zero).
    fn matrix(&self) -> [[f64; 3]; 3] {
        let f = |x: u64| x as f64;
        [
            [f(self.pass_pass), f(self.pass_fail), f(self.pass_undecided)],
            [f(self.fail_pass), f(self.fail_fail), f(self.fail_undecided)],
            [0.0, 0.0, 0.0],
        ]
    }
}

/// A proportion with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rate {
    /// Successes.
    pub hits: u64,
    /// Trials.
    pub of: u64,
    /// hits / of.
    pub value: f64,
    /// The interval's lower bound.
    pub low: f64,
    /// Its upper bound.
    pub high: f64,
}

/// The Wilson score interval at 95% for `hits` of `of`; `None` for no trials. Chosen over
/// the normal (Wald) interval because it stays inside [0, 1] and keeps its coverage at the
/// small counts and the rates near 0 or 1 a labelled set of tens of cases gives.
pub fn wilson(hits: u64, of: u64) -> Option<Rate> {
    if of == 0 || hits > of {
        return None;
    }
    let n = of as f64;
    let p = hits as f64 / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some(Rate {
        hits,
        of,
        value: p,
        // At 0 or all hits the bound is exactly 0 or 1 (rounding would leave 0.999…).
        low: if hits == 0 {
            0.0
        } else {
            (centre - half).max(0.0)
        },
        high: if hits == of {
            1.0
        } else {
            (centre + half).min(1.0)
        },
    })
}

/// Cohen's κ with its standard error and 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Kappa {
    /// κ = (po − pe) / (1 − pe).
    pub value: f64,
    /// Observed agreement po.
    pub observed: f64,
    /// Agreement expected by chance pe, from the marginals.
    pub chance: f64,
    /// The Fleiss–Cohen–Everitt standard error.
    pub standard_error: f64,
    /// κ − 1.96·SE, at least −1.
    pub low: f64,
    /// κ + 1.96·SE, at most 1.
    pub high: f64,
}

/// Cohen's κ of the table; `None` when it is undefined: no items, or chance agreement of 1
/// (every label and every answer the same one category, when agreement says nothing about
/// the model).
pub fn kappa(c: &Confusion) -> Option<Kappa> {
    let total = c.total();
    if total == 0 {
        return None;
    }
    let n = total as f64;
    let m = c.matrix();
    let p = |i: usize, j: usize| m[i][j] / n;
    let row = |i: usize| (0..3).map(|j| p(i, j)).sum::<f64>();
    let col = |j: usize| (0..3).map(|i| p(i, j)).sum::<f64>();
    let po: f64 = (0..3).map(|i| p(i, i)).sum();
    let pe: f64 = (0..3).map(|i| row(i) * col(i)).sum();
    if (1.0 - pe).abs() < 1e-12 {
        return None;
    }
    let k = (po - pe) / (1.0 - pe);
    // Fleiss, Cohen & Everitt (1969): Var(κ) =
    //   [Σ p_ii (1 − (p_i. + p_.i)(1 − κ))² + (1 − κ)² Σ_{i≠j} p_ij (p_.i + p_j.)²
    //    − (κ − pe (1 − κ))²] / (n (1 − pe)²)
    let a: f64 = (0..3)
        .map(|i| p(i, i) * (1.0 - (row(i) + col(i)) * (1.0 - k)).powi(2))
        .sum();
    let mut b = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            if i != j {
                b += p(i, j) * (col(i) + row(j)).powi(2);
            }
        }
    }
    let b = (1.0 - k).powi(2) * b;
    let c2 = (k - pe * (1.0 - k)).powi(2);
    let var = ((a + b - c2) / (n * (1.0 - pe).powi(2))).max(0.0);
    let se = var.sqrt();
    Some(Kappa {
        value: k,
        observed: po,
        chance: pe,
        standard_error: se,
        low: (k - Z95 * se).max(-1.0),
        high: (k + Z95 * se).min(1.0),
    })
}

/// Everything computed from one table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Agreement {
    /// The table.
    pub confusion: Confusion,
    /// Agreed / all items, with its Wilson interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<Rate>,
    /// Cohen's κ; absent when undefined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kappa: Option<Kappa>,
    /// Of the items labelled PASS, the share answered PASS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub true_positive_rate: Option<Rate>,
    /// Of the items labelled FAIL, the share answered FAIL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub true_negative_rate: Option<Rate>,
}

/// The agreement statistics of `pairs`.
pub fn agreement(pairs: impl IntoIterator<Item = (Label, Answer)>) -> Agreement {
    let c = Confusion::of(pairs);
    Agreement {
        accuracy: wilson(c.agreed(), c.total()),
        kappa: kappa(&c),
        true_positive_rate: wilson(c.pass_pass, c.labelled_pass()),
        true_negative_rate: wilson(c.fail_fail, c.labelled_fail()),
        confusion: c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-5
    }

    fn pairs(spec: &[(Label, Answer, usize)]) -> Vec<(Label, Answer)> {
        spec.iter()
            .flat_map(|(l, a, n)| std::iter::repeat_n((*l, *a), *n))
            .collect()
    }

    #[test]
    fn wilson_matches_hand_computed_bounds() {
        // 4 of 5: p = .8, z² = 3.841459, denominator 1.768292,
        // centre (.8 + .384146) / 1.768292 = .669655,
        // half 1.108394 · √(.032 + .038415) = .294121 → [.375535, .963776].
        let r = wilson(4, 5).unwrap();
        assert!(close(r.value, 0.8));
        assert!(close(r.low, 0.375_535), "{r:?}");
        assert!(close(r.high, 0.963_776), "{r:?}");
        // 0 of 10: [0, z²/(n + z²)] = [0, 3.841459 / 13.841459].
        let r = wilson(0, 10).unwrap();
        assert_eq!(r.low, 0.0);
        assert!(close(r.high, 0.277_533), "{r:?}");
        // 10 of 10 mirrors it.
        let r = wilson(10, 10).unwrap();
        assert!(close(r.low, 1.0 - 0.277_533), "{r:?}");
        assert_eq!(r.high, 1.0);
        assert_eq!(wilson(0, 0), None);
        assert_eq!(wilson(3, 2), None);
    }

    #[test]
    fn kappa_and_its_interval_match_hand_computed_values() {
        use Answer as A;
        use Label as L;
        // 10 items: 4 agree PASS, 4 agree FAIL, one each way wrong.
        // po = .8, every marginal .5, pe = .5, κ = .6.
        // A = 2 · .4 · (1 − 1·.4)² = .288; B = .16 · (.1·1² + .1·1²) = .032;
        // C = (.6 − .5·.4)² = .16; Var = (.288 + .032 − .16) / (10 · .25) = .064,
        // SE = .252982; interval .6 ± .495841 → [.104159, 1].
        let c = Confusion::of(pairs(&[
            (L::Pass, A::Pass, 4),
            (L::Pass, A::Fail, 1),
            (L::Fail, A::Pass, 1),
            (L::Fail, A::Fail, 4),
        ]));
        let k = kappa(&c).unwrap();
        assert!(close(k.value, 0.6), "{k:?}");
        assert!(close(k.observed, 0.8) && close(k.chance, 0.5));
        assert!(close(k.standard_error, 0.252_982), "{k:?}");
        assert!(close(k.low, 0.104_159), "{k:?}");
        assert_eq!(k.high, 1.0);
    }

    #[test]
    fn an_undecided_answer_is_its_own_category_and_counts_against_agreement() {
        use Answer as A;
        use Label as L;
        // 8 items: labelled PASS 4 (3 PASS, 1 undecided), FAIL 4 (1 PASS, 3 FAIL).
        // p: [[.375, 0, .125], [.125, .375, 0], [0, 0, 0]]; rows .5 .5 0; cols .5 .375 .125.
        // po = .75; pe = .25 + .1875 + 0 = .4375; κ = .3125 / .5625 = .555556.
        // A = .375·(1 − 1·.444444)² + .375·(1 − .875·.444444)² + 0
        //   = .375·.308642 + .375·.373457 = .115741 + .140046 = .255787;
        // B = .197531 · (.125·(col0 + row2)² + .125·(col1 + row0)²)
        //   = .197531 · (.125·.25 + .125·.765625) = .197531 · .126953 = .025077;
        // C = (.555556 − .4375·.444444)² = .361111² = .130401;
        // Var = (.255787 + .025077 − .130401) / (8 · .316406) = .150463 / 2.53125 = .059442;
        // SE = .243808; low = .555556 − 1.959964 · .243808 = .555556 − .477855 = .077701.
        let c = Confusion::of(pairs(&[
            (L::Pass, A::Pass, 3),
            (L::Pass, A::Undecided, 1),
            (L::Fail, A::Pass, 1),
            (L::Fail, A::Fail, 3),
        ]));
        let k = kappa(&c).unwrap();
        assert!(close(k.value, 0.555_556), "{k:?}");
        assert!(close(k.chance, 0.4375), "{k:?}");
        assert!(close(k.standard_error, 0.243_808), "{k:?}");
        assert!(close(k.low, 0.077_701), "{k:?}");
        let a = agreement(pairs(&[
            (L::Pass, A::Pass, 3),
            (L::Pass, A::Undecided, 1),
            (L::Fail, A::Pass, 1),
            (L::Fail, A::Fail, 3),
        ]));
        assert_eq!(a.accuracy.unwrap().hits, 6);
        assert_eq!(a.accuracy.unwrap().of, 8);
        assert_eq!(
            (
                a.true_positive_rate.unwrap().hits,
                a.true_positive_rate.unwrap().of
            ),
            (3, 4)
        );
        assert_eq!(
            (
                a.true_negative_rate.unwrap().hits,
                a.true_negative_rate.unwrap().of
            ),
            (3, 4)
        );
    }

    #[test]
    fn kappa_is_undefined_without_items_or_without_variation_and_never_below_minus_one() {
        use Answer as A;
        use Label as L;
        assert_eq!(kappa(&Confusion::default()), None);
        // Every label PASS and every answer PASS: pe = 1.
        assert_eq!(kappa(&Confusion::of(pairs(&[(L::Pass, A::Pass, 5)]))), None);
        // Always wrong: po = 0, pe = .5, κ = −1, SE 0 → [−1, −1].
        let k = kappa(&Confusion::of(pairs(&[
            (L::Pass, A::Fail, 3),
            (L::Fail, A::Pass, 3),
        ])))
        .unwrap();
        assert!(close(k.value, -1.0), "{k:?}");
        assert!(k.low >= -1.0);
        // Perfect agreement over both labels: κ = 1, SE 0.
        let k = kappa(&Confusion::of(pairs(&[
            (L::Pass, A::Pass, 3),
            (L::Fail, A::Fail, 2),
        ])))
        .unwrap();
        assert!(close(k.value, 1.0) && close(k.low, 1.0), "{k:?}");
        // Labels all PASS but answers mixed: pe = .6, po = .6, κ = 0.
        let k = kappa(&Confusion::of(pairs(&[
            (L::Pass, A::Pass, 3),
            (L::Pass, A::Fail, 2),
        ])))
        .unwrap();
        assert!(close(k.value, 0.0), "{k:?}");
    }
}
