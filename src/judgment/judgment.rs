//! The judgment: one judge's answer, valid by construction on every path (jury-semantics §1.2).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::time::Duration;

use super::cause::Cause;
use super::error::BuildError;
use super::finding::Finding;
use super::portable::{MAX_PORTABLE_INT, Metadata, check_metadata};
use super::reason::{Family, ReasonCode};
use super::status::Status;
use super::sub_check::Check;

/// Reserved metadata key holding a strategy's evidence block.
pub const AGGREGATION_KEY: &str = "aggregation";
/// Reserved metadata key holding the judge's run time in whole milliseconds.
pub const ELAPSED_KEY: &str = "elapsedMillis";

/// One judgment. Fields are private: every constructor, the builder and deserialization run the
/// same invariant checks, so an invalid judgment cannot exist.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawJudgment", rename_all = "camelCase")]
pub struct Judgment {
    status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason_code: Option<ReasonCode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<Cause>,
    reasoning: String,
    checks: Vec<Check>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    findings: Vec<Finding>,
    metadata: Metadata,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawJudgment {
    status: Status,
    score: Option<f64>,
    label: Option<String>,
    reason_code: Option<ReasonCode>,
    cause: Option<Cause>,
    #[serde(default)]
    reasoning: String,
    #[serde(default)]
    checks: Vec<Check>,
    #[serde(default)]
    findings: Vec<Finding>,
    #[serde(default)]
    metadata: Metadata,
}

impl TryFrom<RawJudgment> for Judgment {
    type Error = BuildError;
    fn try_from(r: RawJudgment) -> Result<Self, Self::Error> {
        Judgment::validated(Judgment {
            status: r.status,
            score: r.score,
            label: r.label,
            reason_code: r.reason_code,
            cause: r.cause,
            reasoning: r.reasoning,
            checks: r.checks,
            findings: r.findings,
            metadata: r.metadata,
        })
    }
}

impl Judgment {
    /// Checks every construction invariant of §1.2 and returns the judgment unchanged.
    fn validated(j: Judgment) -> Result<Judgment, BuildError> {
        let blank = j.reasoning.trim().is_empty();
        let st = j.status.upper();
        if let Some(s) = j.score {
            if matches!(
                j.status,
                Status::Abstain | Status::NotApplicable | Status::Error
            ) {
                return Err(BuildError::argument(format!("{st} must not carry a score")));
            }
            if !s.is_finite() || !(0.0..=1.0).contains(&s) {
                return Err(BuildError::argument(format!(
                    "score must be finite and within [0.0, 1.0], got {s}"
                )));
            }
        }
        if let Some(l) = &j.label {
            if j.status == Status::Error {
                return Err(BuildError::argument("ERROR must not carry a label"));
            }
            if l.trim().is_empty() {
                return Err(BuildError::argument(
                    "label, when present, must be non-blank",
                ));
            }
        }
        if matches!(
            j.status,
            Status::Abstain | Status::NotApplicable | Status::Error
        ) && blank
        {
            return Err(BuildError::argument(format!(
                "{st} requires non-blank reasoning"
            )));
        }
        match (j.status, j.reason_code) {
            (Status::Pass | Status::Abstain | Status::NotApplicable, Some(c)) => {
                return Err(BuildError::argument(format!(
                    "{st} must not carry a reason code (got {c})"
                )));
            }
            (Status::Fail, Some(c)) if c.family() != Family::Subject => {
                return Err(BuildError::argument(format!(
                    "FAIL may only carry a subject-family reason code, not the instrument code {c}"
                )));
            }
            (Status::Error, None) => {
                return Err(BuildError::argument(
                    "ERROR requires an instrument-family reason code",
                ));
            }
            (Status::Error, Some(c)) if c.family() != Family::Instrument => {
                return Err(BuildError::argument(format!(
                    "ERROR requires an instrument-family reason code, not {c}"
                )));
            }
            _ => {}
        }
        if let Some(c) = j.cause
            && !matches!(j.status, Status::Error | Status::Abstain)
        {
            return Err(BuildError::argument(format!(
                "only ERROR and ABSTAIN carry a cause, not {st} (got {c})"
            )));
        }
        if j.reason_code.is_some() && blank {
            return Err(BuildError::argument(
                "a judgment with a reason code requires non-blank reasoning",
            ));
        }
        check_metadata(&j.metadata)?;
        if let Some(e) = j.metadata.get(ELAPSED_KEY)
            && e.as_i64().is_none_or(|v| v < 0)
        {
            return Err(BuildError::argument(
                "metadata.elapsedMillis must be a non-negative integer",
            ));
        }
        if let Some(a) = j.metadata.get(AGGREGATION_KEY)
            && !a.is_object()
        {
            return Err(BuildError::argument(
                "metadata.aggregation must be an object",
            ));
        }
        if j.reason_code == Some(ReasonCode::ErrorsPropagated) {
            check_origin_counts(&j.metadata)?;
        }
        Ok(j)
    }

    /// The same judgment with `more` appended to its reasoning and `findings` added: a fact
    /// judge-ci observed around the judge (files subject code added while it ran) that does
    /// not change its status; nothing the invariants check changes.
    pub fn noted(mut self, more: &str, findings: impl IntoIterator<Item = Finding>) -> Judgment {
        if self.reasoning.trim().is_empty() {
            self.reasoning = more.to_string();
        } else {
            self.reasoning = format!("{} {more}", self.reasoning.trim_end());
        }
        self.findings.extend(findings);
        self
    }

    /// Starts a builder for a judgment of the given status.
    pub fn builder(status: Status) -> JudgmentBuilder {
        JudgmentBuilder {
            j: Judgment {
                status,
                score: None,
                label: None,
                reason_code: None,
                cause: None,
                reasoning: String::new(),
                checks: Vec::new(),
                findings: Vec::new(),
                metadata: Map::new(),
            },
            error: None,
        }
    }

    /// A PASS without a score.
    pub fn pass(reasoning: impl Into<String>) -> Judgment {
        Judgment::verdict(true, reasoning)
    }

    /// A FAIL without a score or reason code.
    pub fn fail(reasoning: impl Into<String>) -> Judgment {
        Judgment::verdict(false, reasoning)
    }

    /// PASS or FAIL without a score (a Boolean outcome stores no score).
    pub fn verdict(passed: bool, reasoning: impl Into<String>) -> Judgment {
        Judgment {
            status: if passed { Status::Pass } else { Status::Fail },
            score: None,
            label: None,
            reason_code: None,
            cause: None,
            reasoning: reasoning.into(),
            checks: Vec::new(),
            findings: Vec::new(),
            metadata: Map::new(),
        }
    }

    /// An ABSTAIN; the reasoning must say why no decision was reached.
    pub fn abstain(reasoning: impl Into<String>) -> Result<Judgment, BuildError> {
        Judgment::builder(Status::Abstain)
            .reasoning(reasoning)
            .build()
    }

    /// A NOT_APPLICABLE; the reasoning must say why the question does not apply.
    pub fn not_applicable(reasoning: impl Into<String>) -> Result<Judgment, BuildError> {
        Judgment::builder(Status::NotApplicable)
            .reasoning(reasoning)
            .build()
    }

    /// An ERROR reported by a judge itself; carries `judge_reported`.
    pub fn error(reasoning: impl Into<String>) -> Result<Judgment, BuildError> {
        Judgment::error_with(ReasonCode::JudgeReported, reasoning)
    }

    /// An ERROR with the given terminal instrument code. `errors_propagated` is refused here:
    /// use [`Judgment::propagated_error`], which builds the evidence block with it.
    pub fn error_with(
        code: ReasonCode,
        reasoning: impl Into<String>,
    ) -> Result<Judgment, BuildError> {
        if code == ReasonCode::ErrorsPropagated {
            return Err(BuildError::argument(
                "errors_propagated judgments are built with propagated_error(originCounts, reasoning)",
            ));
        }
        Judgment::builder(Status::Error)
            .reason_code(code)
            .reasoning(reasoning)
            .build()
    }

    /// The only way to build an `errors_propagated` ERROR: the origin counts become
    /// `metadata.aggregation.errorCodeCounts` atomically with the code.
    pub fn propagated_error(
        origin: &BTreeMap<ReasonCode, u64>,
        reasoning: impl Into<String>,
    ) -> Result<Judgment, BuildError> {
        let mut block = Map::new();
        block.insert("errorCodeCounts".into(), origin_counts_json(origin));
        let mut metadata = Map::new();
        metadata.insert(AGGREGATION_KEY.into(), Value::Object(block));
        Judgment::validated(Judgment {
            status: Status::Error,
            score: None,
            label: None,
            reason_code: Some(ReasonCode::ErrorsPropagated),
            cause: None,
            reasoning: reasoning.into(),
            checks: Vec::new(),
            findings: Vec::new(),
            metadata,
        })
    }

    /// PASS iff `score >= threshold`; the score is stored either way.
    pub fn scored(
        score: f64,
        threshold: f64,
        reasoning: impl Into<String>,
    ) -> Result<Judgment, BuildError> {
        if !threshold.is_finite() || !(0.0..=1.0).contains(&threshold) {
            return Err(BuildError::argument(format!(
                "threshold must be finite and within [0.0, 1.0], got {threshold}"
            )));
        }
        let status = if score >= threshold {
            Status::Pass
        } else {
            Status::Fail
        };
        Judgment::builder(status)
            .score(score)
            .reasoning(reasoning)
            .build()
    }

    /// Normalises `value` on `[min, max]` once to `(value − min)/(max − min)`, then as
    /// [`Judgment::scored`].
    pub fn scored_in_range(
        value: f64,
        min: f64,
        max: f64,
        threshold: f64,
        reasoning: impl Into<String>,
    ) -> Result<Judgment, BuildError> {
        if !(value.is_finite() && min.is_finite() && max.is_finite()) {
            return Err(BuildError::argument("score, min and max must be finite"));
        }
        if max <= min {
            return Err(BuildError::argument(format!(
                "max ({max}) must exceed min ({min})"
            )));
        }
        if !(min..=max).contains(&value) {
            return Err(BuildError::argument(format!(
                "score {value} is outside [{min}, {max}]"
            )));
        }
        Judgment::scored((value - min) / (max - min), threshold, reasoning)
    }

    /// The status.
    pub fn status(&self) -> Status {
        self.status
    }

    /// The explicit score, if any.
    pub fn score(&self) -> Option<f64> {
        self.score
    }

    /// The label, if any.
    pub fn label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    /// The reason code, if any.
    pub fn reason_code(&self) -> Option<ReasonCode> {
        self.reason_code
    }

    /// The reasoning (may be empty for PASS and uncoded FAIL).
    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// The checks, in the order the judge reported them.
    pub fn checks(&self) -> &[Check] {
        &self.checks
    }

    /// Why an ERROR or ABSTAIN happened, when the judge that saw it knew (never read from
    /// text the subject controls).
    pub fn cause(&self) -> Option<Cause> {
        self.cause
    }

    /// What the judge found, each at a place (differences, compiler errors, injections).
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The portable metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// Moves what a `judge-ci.report.v1` judgment kept in `metadata.findings` into typed
    /// findings (the entries judge-ci wrote; any other entry stays in metadata), and sets the
    /// cause the v1 judge had stated in its own words (`cause`, for an ERROR or ABSTAIN only).
    /// Used when a stored v1 report is read, so every surface renders from typed data alone.
    pub(crate) fn upgrade_v1(&mut self, cause: Option<Cause>) {
        if matches!(self.status, Status::Error | Status::Abstain) && self.cause.is_none() {
            self.cause = cause;
        }
        let Some(Value::Array(old)) = self.metadata.remove("findings") else {
            return;
        };
        let mut rest = Vec::new();
        for v in old {
            match Finding::from_v1(&v) {
                Some(f) => self.findings.push(f),
                None => rest.push(v),
            }
        }
        if !rest.is_empty() {
            self.metadata.insert("findings".into(), Value::Array(rest));
        }
    }

    /// The strategy evidence block (`metadata.aggregation`), if any.
    pub fn evidence(&self) -> Option<&Map<String, Value>> {
        self.metadata
            .get(AGGREGATION_KEY)
            .and_then(Value::as_object)
    }

    /// The score strategies reduce over: the explicit score, else 1.0 for PASS and 0.0 for
    /// FAIL, else none. Zero is a real assessment; absence is not.
    pub fn effective_score(&self) -> Option<f64> {
        match (self.score, self.status) {
            (Some(s), _) => Some(s),
            (None, Status::Pass) => Some(1.0),
            (None, Status::Fail) => Some(0.0),
            (None, _) => None,
        }
    }

    /// True for PASS.
    pub fn is_pass(&self) -> bool {
        self.status == Status::Pass
    }

    /// True for ERROR.
    pub fn has_error(&self) -> bool {
        self.status == Status::Error
    }

    /// True for NOT_APPLICABLE.
    pub fn is_not_applicable(&self) -> bool {
        self.status == Status::NotApplicable
    }

    /// How long the judge ran, from `metadata.elapsedMillis`.
    pub fn elapsed(&self) -> Option<Duration> {
        self.metadata
            .get(ELAPSED_KEY)
            .and_then(Value::as_u64)
            .map(Duration::from_millis)
    }

    /// A copy with `elapsedMillis` set, used by juries that time their judges.
    pub fn with_elapsed(mut self, elapsed: Duration) -> Judgment {
        let ms = u64::try_from(elapsed.as_millis())
            .unwrap_or(u64::MAX)
            .min(MAX_PORTABLE_INT as u64);
        self.metadata.insert(ELAPSED_KEY.into(), Value::from(ms));
        self
    }

    /// Builds an aggregate judgment carrying a strategy's evidence block; only the engine's
    /// strategies write the reserved `aggregation` key.
    pub(crate) fn aggregate(
        status: Status,
        score: Option<f64>,
        reason_code: Option<ReasonCode>,
        reasoning: String,
        evidence: Map<String, Value>,
    ) -> Result<Judgment, BuildError> {
        let mut metadata = Map::new();
        metadata.insert(AGGREGATION_KEY.into(), Value::Object(evidence));
        Judgment::validated(Judgment {
            status,
            score,
            label: None,
            reason_code,
            cause: None,
            reasoning,
            checks: Vec::new(),
            findings: Vec::new(),
            metadata,
        })
    }
}

/// Serialises origin counts in reason-code declaration order.
pub(crate) fn origin_counts_json(origin: &BTreeMap<ReasonCode, u64>) -> Value {
    Value::Object(
        origin
            .iter()
            .map(|(c, n)| (c.token().to_string(), Value::from(*n)))
            .collect(),
    )
}

/// Reads `metadata.aggregation.errorCodeCounts` of a judgment, refusing any malformed entry.
pub(crate) fn read_origin_counts(
    metadata: &Metadata,
) -> Result<BTreeMap<ReasonCode, u64>, BuildError> {
    let counts = metadata
        .get(AGGREGATION_KEY)
        .and_then(|a| a.get("errorCodeCounts"))
        .and_then(Value::as_object)
        .ok_or_else(|| {
            BuildError::argument(
                "errors_propagated requires metadata.aggregation.errorCodeCounts to be an object",
            )
        })?;
    let mut out = BTreeMap::new();
    for (k, v) in counts {
        let code: ReasonCode = k.parse().map_err(|_| {
            BuildError::argument(format!("errorCodeCounts key '{k}' is not a reason code"))
        })?;
        if !code.is_terminal_instrument() {
            return Err(BuildError::argument(format!(
                "errorCodeCounts key '{k}' is not a terminal instrument code"
            )));
        }
        let n = v
            .as_u64()
            .filter(|n| *n > 0 && *n <= MAX_PORTABLE_INT as u64)
            .ok_or_else(|| {
                BuildError::argument(format!(
                    "errorCodeCounts['{k}'] must be a positive integer, got {v}"
                ))
            })?;
        out.insert(code, n);
    }
    Ok(out)
}

fn check_origin_counts(metadata: &Metadata) -> Result<(), BuildError> {
    if read_origin_counts(metadata)?.is_empty() {
        return Err(BuildError::argument(
            "errors_propagated requires a non-empty errorCodeCounts",
        ));
    }
    Ok(())
}

/// Builds a judgment field by field; `build` runs the invariant checks. Ordinary builders
/// refuse the reserved `aggregation` key.
#[derive(Debug)]
pub struct JudgmentBuilder {
    j: Judgment,
    error: Option<BuildError>,
}

impl JudgmentBuilder {
    /// Sets the score.
    pub fn score(mut self, score: f64) -> Self {
        self.j.score = Some(score);
        self
    }

    /// Sets the label.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.j.label = Some(label.into());
        self
    }

    /// Sets the reason code.
    pub fn reason_code(mut self, code: ReasonCode) -> Self {
        self.j.reason_code = Some(code);
        self
    }

    /// Sets the reasoning.
    pub fn reasoning(mut self, reasoning: impl Into<String>) -> Self {
        self.j.reasoning = reasoning.into();
        self
    }

    /// Appends a check.
    pub fn check(mut self, check: Check) -> Self {
        self.j.checks.push(check);
        self
    }

    /// Appends several checks.
    pub fn checks(mut self, checks: impl IntoIterator<Item = Check>) -> Self {
        self.j.checks.extend(checks);
        self
    }

    /// Sets the cause (ERROR and ABSTAIN only; `build` refuses it on any other status).
    pub fn cause(mut self, cause: Cause) -> Self {
        self.j.cause = Some(cause);
        self
    }

    /// Sets the cause when there is one.
    pub fn maybe_cause(mut self, cause: Option<Cause>) -> Self {
        self.j.cause = cause;
        self
    }

    /// Appends one finding.
    pub fn finding(mut self, finding: Finding) -> Self {
        self.j.findings.push(finding);
        self
    }

    /// Appends several findings.
    pub fn findings(mut self, findings: impl IntoIterator<Item = Finding>) -> Self {
        self.j.findings.extend(findings);
        self
    }

    /// Sets one metadata entry; the reserved `aggregation` key is refused.
    pub fn metadata(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        let key = key.into();
        if key == AGGREGATION_KEY {
            self.error.get_or_insert(BuildError::argument(
                "metadata key 'aggregation' is reserved for strategy evidence",
            ));
        } else {
            self.j.metadata.insert(key, value.into());
        }
        self
    }

    /// Finishes the judgment, or says which invariant it breaks.
    pub fn build(self) -> Result<Judgment, BuildError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        Judgment::validated(self.j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn from(v: Value) -> Result<Judgment, serde_json::Error> {
        serde_json::from_value(v)
    }

    /// Asserts that `v` is refused on the wire path for the invariant whose message contains
    /// `why` (not merely that it is refused).
    #[track_caller]
    fn refused(v: Value, why: &str) {
        match from(v.clone()) {
            Ok(j) => panic!("{v} was accepted as {j:?}"),
            Err(e) => assert!(e.to_string().contains(why), "{v}: {e}, expected: {why}"),
        }
    }

    /// Asserts that a constructor refused its arguments with an `InvalidArgument` saying `why`.
    #[track_caller]
    fn invalid_argument<T: std::fmt::Debug>(r: Result<T, BuildError>, why: &str) {
        match r {
            Err(BuildError::InvalidArgument(m)) => assert!(m.contains(why), "{m}, expected: {why}"),
            other => panic!("expected InvalidArgument({why}), got {other:?}"),
        }
    }

    #[test]
    fn invariants_are_enforced_on_the_wire_path() {
        refused(
            json!({"status":"pass","reasonCode":"judge_failed","reasoning":"x"}),
            "PASS must not carry a reason code",
        );
        refused(
            json!({"status":"abstain","score":0.5,"reasoning":"x"}),
            "ABSTAIN must not carry a score",
        );
        refused(
            json!({"status":"abstain","reasoning":"  "}),
            "ABSTAIN requires non-blank reasoning",
        );
        refused(
            json!({"status":"not_applicable","reasoning":""}),
            "NOT_APPLICABLE requires non-blank reasoning",
        );
        refused(
            json!({"status":"error","reasoning":"x"}),
            "ERROR requires an instrument-family reason code",
        );
        refused(
            json!({"status":"error","reasonCode":"subject_empty","reasoning":"x"}),
            "ERROR requires an instrument-family reason code, not",
        );
        refused(
            json!({"status":"error","reasonCode":"judge_failed","label":"l","reasoning":"x"}),
            "ERROR must not carry a label",
        );
        refused(
            json!({"status":"fail","reasonCode":"judge_failed","reasoning":"x"}),
            "FAIL may only carry a subject-family reason code",
        );
        refused(
            json!({"status":"fail","reasonCode":"subject_empty","reasoning":" "}),
            "a judgment with a reason code requires non-blank reasoning",
        );
        assert!(
            from(json!({"status":"fail","reasonCode":"subject_empty","reasoning":"none"})).is_ok()
        );
        refused(
            json!({"status":"pass","score":1.5}),
            "score must be finite and within [0.0, 1.0]",
        );
        refused(
            json!({"status":"pass","score":-0.1}),
            "score must be finite and within [0.0, 1.0]",
        );
        refused(
            json!({"status":"pass","label":" "}),
            "label, when present, must be non-blank",
        );
        refused(
            json!({"status":"pass","metadata":{"elapsedMillis":-1}}),
            "metadata.elapsedMillis must be a non-negative integer",
        );
        refused(
            json!({"status":"pass","metadata":{"n":9007199254740992u64}}),
            "9007199254740992",
        );
        refused(json!({"status":"PASS"}), "unknown variant `PASS`");
        refused(json!({"status":"pass","bogus":1}), "unknown field `bogus`");
    }

    #[test]
    fn errors_propagated_needs_terminal_positive_counts() {
        let bad = [
            json!({}),
            json!({"aggregation":{}}),
            json!({"aggregation":{"errorCodeCounts":{}}}),
            json!({"aggregation":{"errorCodeCounts":{"errors_propagated":1}}}),
            json!({"aggregation":{"errorCodeCounts":{"subject_empty":1}}}),
            json!({"aggregation":{"errorCodeCounts":{"judge_failed":0}}}),
            json!({"aggregation":{"errorCodeCounts":{"judge_failed":"1"}}}),
        ];
        for m in bad {
            let v = json!({"status":"error","reasonCode":"errors_propagated","reasoning":"r","metadata":m});
            refused(v, "errorCodeCounts");
        }
        let ok = json!({"status":"error","reasonCode":"errors_propagated","reasoning":"r",
            "metadata":{"aggregation":{"errorCodeCounts":{"judge_failed":2}}}});
        assert!(from(ok).is_ok());
        invalid_argument(
            Judgment::error_with(ReasonCode::ErrorsPropagated, "r"),
            "built with propagated_error",
        );
        let mut origin = BTreeMap::new();
        invalid_argument(Judgment::propagated_error(&origin, "r"), "errorCodeCounts");
        origin.insert(ReasonCode::JudgeReported, 1);
        let j = Judgment::propagated_error(&origin, "r").unwrap();
        assert_eq!(j.reason_code(), Some(ReasonCode::ErrorsPropagated));
    }

    #[test]
    fn builder_refuses_reserved_aggregation_key() {
        let r = Judgment::builder(Status::Pass)
            .metadata("aggregation", json!({}))
            .build();
        invalid_argument(r, "metadata key 'aggregation' is reserved");
    }

    #[test]
    fn effective_score_and_factories() {
        assert_eq!(Judgment::pass("").effective_score(), Some(1.0));
        assert_eq!(Judgment::pass("").score(), None);
        assert_eq!(Judgment::fail("").effective_score(), Some(0.0));
        assert_eq!(Judgment::abstain("x").unwrap().effective_score(), None);
        let s = Judgment::scored(0.1, 0.5, "low").unwrap();
        assert_eq!(s.status(), Status::Fail);
        assert_eq!(s.effective_score(), Some(0.1));
        let p = Judgment::scored(0.5, 0.5, "edge").unwrap();
        assert_eq!(p.status(), Status::Pass);
        let n = Judgment::scored_in_range(7.0, 0.0, 10.0, 0.5, "r").unwrap();
        assert!((n.score().unwrap() - 0.7).abs() < 1e-12);
        invalid_argument(
            Judgment::scored_in_range(1.0, 1.0, 1.0, 0.5, "r"),
            "max (1) must exceed min (1)",
        );
        invalid_argument(
            Judgment::scored_in_range(11.0, 0.0, 10.0, 0.5, "r"),
            "score 11 is outside [0, 10]",
        );
        assert_eq!(
            Judgment::error("boom").unwrap().reason_code(),
            Some(ReasonCode::JudgeReported)
        );
        let e = Judgment::pass("").with_elapsed(Duration::from_millis(42));
        assert_eq!(e.elapsed(), Some(Duration::from_millis(42)));
    }

    #[test]
    fn wire_form_has_fixed_key_order_and_omits_absent_optionals() {
        let j = Judgment::not_applicable("no java sources").unwrap();
        assert_eq!(
            serde_json::to_string(&j).unwrap(),
            r#"{"status":"not_applicable","reasoning":"no java sources","checks":[],"metadata":{}}"#
        );
        let text = r#"{"status":"fail","score":0.25,"label":"weak","reasonCode":"subject_empty","reasoning":"r","checks":[{"name":"c","passed":false,"message":"m"}],"metadata":{"k":[1,2.5,"s"]}}"#;
        let back: Judgment = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
    }
}
