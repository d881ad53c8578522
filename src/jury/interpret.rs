//! Reading a stored verdict of any shape from 0.13 to 0.17 (jury-semantics §9.2).
//!
//! Interpretation never fails: wrong shapes, unknown tokens and missing fields become
//! [`Defect`]s next to whatever could be read. It also does not decide policy: whether a
//! reading counts against the subject or enters a rate is the consumer's choice.

use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

use crate::judgment::{ReasonCode, Status};

use super::verdict::Verdict;

/// The version of the interpretation shape.
pub const INTERPRETATION_SCHEMA_VERSION: u32 = 1;

/// What a verdict says about the subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Reading {
    /// The subject passed.
    Accepted,
    /// The subject failed (a FAIL root, or a rejection anywhere in the decision chain).
    Rejected,
    /// The jury abstained.
    Undecided,
    /// The question did not apply to this subject.
    NotApplicable,
    /// The instrument failed: nothing was assessed.
    NotAssessed,
}

impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reading::Accepted => "ACCEPTED",
            Reading::Rejected => "REJECTED",
            Reading::Undecided => "UNDECIDED",
            Reading::NotApplicable => "NOT_APPLICABLE",
            Reading::NotAssessed => "NOT_ASSESSED",
        })
    }
}

/// Whether the root's own evidence block agrees with its status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReadingSupport {
    /// The evidence implies exactly the recorded status.
    Supported,
    /// The evidence implies another status (one INCONSISTENT defect says which).
    Contradicted,
    /// The facts are absent or the rule is not closed-form (e.g. a majority tie).
    Undetermined,
}

/// The kinds of problem a stored verdict can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, strum::Display)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[strum(serialize_all = "SCREAMING_SNAKE_CASE")]
pub enum DefectKind {
    /// A field the shape requires is missing.
    Absent,
    /// A field is present but of the wrong shape.
    Unparseable,
    /// A token is not in the 0.17 vocabulary (it is carried as read).
    UnknownVocabulary,
    /// Facts contradict each other.
    Inconsistent,
}

/// One problem found while reading, with where it is.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Defect {
    /// What kind of problem.
    pub kind: DefectKind,
    /// JSON path of the object holding the field (`compositeAttempts[1].verdict`).
    pub path: String,
    /// The field.
    pub field: String,
    /// What was wrong, in words.
    pub detail: String,
}

/// One judgment as read: every field optional, tokens carried as read.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeReading {
    /// The seat key (or `Judge#N` when the shape has no names).
    pub name: String,
    /// The status token, when readable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The reason code token, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
    /// The reasoning, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The checks as stored.
    pub checks: Vec<Value>,
    /// The score on [0, 1], when readable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// The original `{min, max}` of a 0.13 scaled score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score_scale: Option<Value>,
}

/// One entered stage (cascade tier or meta member), recursively flattened.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stage {
    /// Stage names from the root, joined by `/`.
    pub path: String,
    /// The stage's own name.
    pub name: String,
    /// `cascade_tier` or `meta_member`, as read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation: Option<String>,
    /// The tier policy, as read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// `used` or `stage_failed`, as read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disposition: Option<String>,
    /// Why the stage failed, as read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disposition_reason: Option<String>,
    /// The stage's aggregate status; absent when it produced no verdict (never read as failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The stage's aggregate reason code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<String>,
    /// The failure code of a stage without a verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_code: Option<String>,
    /// The stage aggregate's evidence block (empty when none).
    pub facts: Map<String, Value>,
    /// The stage's judgments.
    pub judges: Vec<JudgeReading>,
}

/// The root aggregate and its judges.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    /// The root aggregate.
    pub aggregate: JudgeReading,
    /// The root's judgments.
    pub judges: Vec<JudgeReading>,
}

/// Everything a consumer needs to read a verdict, from a live verdict or stored JSON alike.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Interpretation {
    /// [`INTERPRETATION_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// 1 for the 0.17 seven-component form, 0 for unstamped older shapes.
    pub source_version: u32,
    /// The reading, or none when the root status is unreadable.
    pub reading: Option<Reading>,
    /// Whether the root's evidence supports its status.
    pub reading_support: ReadingSupport,
    /// The stage path named by the recorded decision chain; none when the root decided itself
    /// or the record does not say (never inferred).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// The root.
    pub root: Root,
    /// Every entered stage, depth first.
    pub stages: Vec<Stage>,
    /// Every problem found; empty for the engine's own output.
    pub defects: Vec<Defect>,
}

/// Reads a live verdict exactly as its stored JSON would be read.
pub fn interpret_verdict(v: &Verdict) -> Interpretation {
    match serde_json::to_value(v) {
        Ok(value) => interpret(&value),
        Err(e) => interpret(&Value::String(e.to_string())),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    V013,
    V014,
    V017,
}

struct Reader {
    shape: Shape,
    defects: Vec<Defect>,
}

/// Reads a stored verdict (0.13 `subVerdicts`, 0.14–0.16 `compositeAttempts`, or 0.17).
pub fn interpret(stored: &Value) -> Interpretation {
    let Some(obj) = stored.as_object() else {
        let mut r = Reader {
            shape: Shape::V017,
            defects: Vec::new(),
        };
        r.defect(
            DefectKind::Unparseable,
            "",
            "verdict",
            "a verdict must be a JSON object",
        );
        return Interpretation {
            schema_version: INTERPRETATION_SCHEMA_VERSION,
            source_version: 0,
            reading: None,
            reading_support: ReadingSupport::Undetermined,
            decided_by: None,
            root: Root {
                aggregate: JudgeReading::empty("aggregated"),
                judges: Vec::new(),
            },
            stages: Vec::new(),
            defects: r.defects,
        };
    };
    let shape = if obj.contains_key("subVerdicts") {
        Shape::V013
    } else if obj.contains_key("decision") && obj.contains_key("seats") {
        Shape::V017
    } else {
        Shape::V014
    };
    let mut r = Reader {
        shape,
        defects: Vec::new(),
    };
    let aggregate = match obj.get("aggregated") {
        Some(a) => r.judgment("aggregated", a, "aggregated"),
        None => {
            r.defect(
                DefectKind::Absent,
                "",
                "aggregated",
                "the root aggregate is missing",
            );
            JudgeReading::empty("aggregated")
        }
    };
    let judges = r.judges("", obj);
    if shape == Shape::V014 {
        for f in ["decision", "seats"] {
            if !obj.contains_key(f) {
                r.defect(DefectKind::Absent, "", f, "not recorded before 0.17");
            }
        }
    }
    let mut stages = Vec::new();
    r.stages("", "", obj, &mut stages);
    let (chain, rejected) = r.decision_chain(obj);
    let status = aggregate
        .status
        .as_deref()
        .and_then(|s| s.parse::<Status>().ok());
    let reading = status.map(|s| {
        if rejected {
            return Reading::Rejected;
        }
        match s {
            Status::Error => Reading::NotAssessed,
            Status::NotApplicable => Reading::NotApplicable,
            Status::Fail => Reading::Rejected,
            Status::Pass => Reading::Accepted,
            Status::Abstain => Reading::Undecided,
        }
    });
    let reading_support = match (status, obj.get("aggregated")) {
        (Some(s), Some(a)) => r.support(s, &aggregate, a),
        _ => ReadingSupport::Undetermined,
    };
    Interpretation {
        schema_version: INTERPRETATION_SCHEMA_VERSION,
        source_version: if shape == Shape::V017 { 1 } else { 0 },
        reading,
        reading_support,
        decided_by: (!chain.is_empty()).then(|| chain.join("/")),
        root: Root { aggregate, judges },
        stages,
        defects: r.defects,
    }
}

impl JudgeReading {
    fn empty(name: &str) -> Self {
        JudgeReading {
            name: name.to_string(),
            status: None,
            reason_code: None,
            reasoning: None,
            checks: Vec::new(),
            score: None,
            score_scale: None,
        }
    }
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

impl Reader {
    fn defect(&mut self, kind: DefectKind, path: &str, field: &str, detail: impl Into<String>) {
        self.defects.push(Defect {
            kind,
            path: path.to_string(),
            field: field.to_string(),
            detail: detail.into(),
        });
    }

    /// Reads a token field that must belong to `known`; unknown tokens are carried.
    fn token(
        &mut self,
        obj: &Map<String, Value>,
        path: &str,
        field: &str,
        known: &[&str],
        required: bool,
    ) -> Option<String> {
        match obj.get(field) {
            None | Some(Value::Null) => {
                if required {
                    self.defect(DefectKind::Absent, path, field, "missing");
                }
                None
            }
            Some(Value::String(s)) => {
                if !known.contains(&s.as_str()) {
                    self.defect(
                        DefectKind::UnknownVocabulary,
                        path,
                        field,
                        format!("unknown token '{s}'"),
                    );
                }
                Some(s.clone())
            }
            Some(other) => {
                self.defect(
                    DefectKind::Unparseable,
                    path,
                    field,
                    format!("expected a string, found {other}"),
                );
                None
            }
        }
    }

    fn judgment(&mut self, name: &str, v: &Value, path: &str) -> JudgeReading {
        let mut out = JudgeReading::empty(name);
        let Some(obj) = v.as_object() else {
            self.defect(
                DefectKind::Unparseable,
                path,
                "judgment",
                "a judgment must be an object",
            );
            return out;
        };
        out.status = match obj.get("status") {
            None | Some(Value::Null) => {
                self.defect(DefectKind::Absent, path, "status", "missing");
                None
            }
            Some(Value::String(s)) => {
                let normalised = if self.shape == Shape::V013 {
                    s.to_lowercase()
                } else {
                    s.clone()
                };
                if normalised.parse::<Status>().is_err() {
                    self.defect(
                        DefectKind::UnknownVocabulary,
                        path,
                        "status",
                        format!("unknown status '{s}'"),
                    );
                    None
                } else {
                    Some(normalised)
                }
            }
            Some(other) => {
                self.defect(
                    DefectKind::Unparseable,
                    path,
                    "status",
                    format!("expected a string, found {other}"),
                );
                None
            }
        };
        let codes: Vec<&str> = ReasonCode::ALL.iter().map(|c| c.token()).collect();
        out.reason_code = self.token(obj, path, "reasonCode", &codes, false);
        if out.status.as_deref() == Some("error") && out.reason_code.is_none() {
            self.defect(
                DefectKind::Absent,
                path,
                "reasonCode",
                "an ERROR without a reason code (pre-0.17)",
            );
        }
        out.reasoning = obj
            .get("reasoning")
            .and_then(Value::as_str)
            .map(str::to_string);
        out.checks = obj
            .get("checks")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        match obj.get("score") {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) => match n.as_f64() {
                Some(s) if (0.0..=1.0).contains(&s) => out.score = Some(s),
                _ => self.defect(
                    DefectKind::Unparseable,
                    path,
                    "score",
                    format!("score {n} is outside [0, 1]"),
                ),
            },
            Some(Value::Object(s)) if self.shape == Shape::V013 => {
                let f = |k: &str| s.get(k).and_then(Value::as_f64);
                match (f("value"), f("min"), f("max")) {
                    (Some(v), Some(lo), Some(hi)) if hi > lo && (lo..=hi).contains(&v) => {
                        out.score = Some((v - lo) / (hi - lo));
                        out.score_scale = Some(serde_json::json!({"min": lo, "max": hi}));
                    }
                    (Some(v), None, None) if v.is_finite() && (0.0..=1.0).contains(&v) => {
                        out.score = Some(v)
                    }
                    _ => self.defect(
                        DefectKind::Unparseable,
                        path,
                        "score",
                        format!("unreadable score {}", Value::Object(s.clone())),
                    ),
                }
            }
            Some(other) => self.defect(
                DefectKind::Unparseable,
                path,
                "score",
                format!("unreadable score {other}"),
            ),
        }
        out
    }

    fn judges(&mut self, path: &str, verdict: &Map<String, Value>) -> Vec<JudgeReading> {
        if let Some(map) = verdict.get("individualByName").and_then(Value::as_object) {
            return map
                .iter()
                .map(|(k, v)| self.judgment(k, v, &join(path, &format!("individualByName.{k}"))))
                .collect();
        }
        match verdict.get("individual").and_then(Value::as_array) {
            Some(list) => list
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    self.judgment(
                        &format!("Judge#{}", i + 1),
                        v,
                        &join(path, &format!("individual[{i}]")),
                    )
                })
                .collect(),
            None => Vec::new(),
        }
    }

    fn stages(
        &mut self,
        path: &str,
        name_path: &str,
        verdict: &Map<String, Value>,
        out: &mut Vec<Stage>,
    ) {
        if self.shape == Shape::V013 {
            if let Some(subs) = verdict.get("subVerdicts").and_then(Value::as_array) {
                for (i, sub) in subs.iter().enumerate() {
                    let p = join(path, &format!("subVerdicts[{i}]"));
                    let name = format!("subVerdicts[{i}]");
                    self.stage_from_verdict(
                        &p,
                        &join_names(name_path, &name),
                        &name,
                        sub,
                        None,
                        out,
                    );
                }
            }
            return;
        }
        let Some(attempts) = verdict.get("compositeAttempts") else {
            if self.shape == Shape::V017 {
                self.defect(DefectKind::Absent, path, "compositeAttempts", "missing");
            }
            return;
        };
        let Some(attempts) = attempts.as_array() else {
            self.defect(
                DefectKind::Unparseable,
                path,
                "compositeAttempts",
                "expected a list",
            );
            return;
        };
        for (i, a) in attempts.iter().enumerate() {
            let p = join(path, &format!("compositeAttempts[{i}]"));
            let Some(obj) = a.as_object() else {
                self.defect(
                    DefectKind::Unparseable,
                    &p,
                    "attempt",
                    "an attempt must be an object",
                );
                continue;
            };
            let name = match obj.get("name").and_then(Value::as_str) {
                Some(n) => n.to_string(),
                None => {
                    self.defect(DefectKind::Absent, &p, "name", "missing");
                    format!("#{i}")
                }
            };
            let relation = self.token(obj, &p, "relation", &["cascade_tier", "meta_member"], true);
            let policy = self.token(
                obj,
                &p,
                "policy",
                &["REJECT_ON_ANY_FAIL", "ACCEPT_ON_ALL_PASS", "FINAL_TIER"],
                false,
            );
            let disposition = self.token(obj, &p, "disposition", &["used", "stage_failed"], true);
            let reason = self.token(
                obj,
                &p,
                "dispositionReason",
                &[
                    "execution_failed",
                    "child_undecided",
                    "undeclared_not_applicable",
                ],
                false,
            );
            let failure_code = obj.get("failure").and_then(Value::as_object).and_then(|f| {
                self.token(
                    f,
                    &join(&p, "failure"),
                    "code",
                    &["jury_execution_failed"],
                    true,
                )
            });
            let meta = StageMeta {
                relation,
                policy,
                disposition,
                disposition_reason: reason,
                failure_code,
            };
            let names = join_names(name_path, &name);
            match obj.get("verdict") {
                Some(v) => {
                    self.stage_from_verdict(&join(&p, "verdict"), &names, &name, v, Some(meta), out)
                }
                None => out.push(Stage {
                    path: names,
                    name,
                    relation: meta.relation,
                    policy: meta.policy,
                    disposition: meta.disposition,
                    disposition_reason: meta.disposition_reason,
                    status: None,
                    reason_code: None,
                    failure_code: meta.failure_code,
                    facts: Map::new(),
                    judges: Vec::new(),
                }),
            }
        }
    }

    fn stage_from_verdict(
        &mut self,
        path: &str,
        names: &str,
        name: &str,
        v: &Value,
        meta: Option<StageMeta>,
        out: &mut Vec<Stage>,
    ) {
        let meta = meta.unwrap_or_default();
        let Some(obj) = v.as_object() else {
            self.defect(
                DefectKind::Unparseable,
                path,
                "verdict",
                "a verdict must be an object",
            );
            return;
        };
        let agg = obj
            .get("aggregated")
            .map(|a| self.judgment(name, a, &join(path, "aggregated")))
            .unwrap_or_else(|| JudgeReading::empty(name));
        let facts = obj
            .get("aggregated")
            .and_then(|a| a.pointer("/metadata/aggregation"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let judges = self.judges(path, obj);
        out.push(Stage {
            path: names.to_string(),
            name: name.to_string(),
            relation: meta.relation,
            policy: meta.policy,
            disposition: meta.disposition,
            disposition_reason: meta.disposition_reason,
            status: agg.status,
            reason_code: agg.reason_code,
            failure_code: meta.failure_code,
            facts,
            judges,
        });
        self.stages(path, names, obj, out);
    }

    /// Follows TIER decisions from the root; returns the stage names and whether any hop was
    /// an individual rejection.
    fn decision_chain(&mut self, root: &Map<String, Value>) -> (Vec<String>, bool) {
        let mut names = Vec::new();
        let mut rejected = false;
        let mut cur = root.clone();
        let mut path = String::new();
        for _ in 0..=super::MAX_COMPOSITE_DEPTH {
            let Some(d) = cur.get("decision").and_then(Value::as_object) else {
                break;
            };
            let dpath = join(&path, "decision");
            let kind = self.token(d, &dpath, "kind", &["own", "tier", "undecided"], true);
            if kind.as_deref() != Some("tier") {
                break;
            }
            let basis = self.token(
                d,
                &dpath,
                "basis",
                &["tier_outcome", "individual_rejection"],
                true,
            );
            if basis.as_deref() == Some("individual_rejection") {
                rejected = true;
            }
            let Some(tier) = d.get("tier").and_then(Value::as_str).map(str::to_string) else {
                self.defect(
                    DefectKind::Absent,
                    &dpath,
                    "tier",
                    "a tier decision names no tier",
                );
                break;
            };
            let found = cur
                .get("compositeAttempts")
                .and_then(Value::as_array)
                .and_then(|list| {
                    list.iter()
                        .position(|a| a.get("name").and_then(Value::as_str) == Some(tier.as_str()))
                        .map(|i| (i, list[i].clone()))
                });
            names.push(tier.clone());
            match found.and_then(|(i, a)| {
                a.get("verdict")
                    .and_then(Value::as_object)
                    .cloned()
                    .map(|v| (i, v))
            }) {
                Some((i, v)) => {
                    path = join(&path, &format!("compositeAttempts[{i}].verdict"));
                    cur = v;
                }
                None => {
                    self.defect(
                        DefectKind::Inconsistent,
                        &dpath,
                        "tier",
                        format!("the decision names tier '{tier}' but no attempt of that name holds a verdict"),
                    );
                    break;
                }
            }
        }
        (names, rejected)
    }

    /// Checks the root status against the closed-form rule its own evidence implies.
    fn support(&mut self, status: Status, agg: &JudgeReading, stored: &Value) -> ReadingSupport {
        let Some(ev) = stored
            .pointer("/metadata/aggregation")
            .and_then(Value::as_object)
        else {
            return ReadingSupport::Undetermined;
        };
        let int = |k: &str| ev.get(k).and_then(Value::as_u64);
        let text = |k: &str| ev.get(k).and_then(Value::as_str);
        let code = agg.reason_code.as_deref();
        let expected: Option<(Status, Option<&str>)> = (|| {
            let input = int("inputCount")?;
            let na = int("notApplicableCount")?;
            let errors = int("errorCount")?;
            let eligible = int("eligibleCount")?;
            let ep = text("errorPolicy")?;
            let nap = text("notApplicablePolicy")?;
            if nap == "refuse" && na > 0 {
                return Some((Status::Error, Some("not_applicable_refused")));
            }
            if ep == "propagate" && errors > 0 {
                return Some((Status::Error, Some("errors_propagated")));
            }
            if ep == "treatAsFail" && code == Some("errors_propagated") && errors > 0 {
                // The machinery exit: which errors were machinery-origin is not in the block.
                return Some((Status::Error, Some("errors_propagated")));
            }
            if eligible == 0 {
                return Some(if nap == "exclude" && na == input {
                    (Status::NotApplicable, None)
                } else {
                    (Status::Abstain, None)
                });
            }
            let pass_fail = || Some((int("passCount")?, int("failCount")?));
            let by_threshold = || {
                let t = ev.get("threshold").and_then(Value::as_f64)?;
                let s = agg.score?;
                Some(if s >= t { Status::Pass } else { Status::Fail })
            };
            let st = match text("strategy")? {
                "majority" => {
                    let (p, f) = pass_fail()?;
                    if p == f {
                        return None; // the tie policy is not in the block
                    }
                    if p > f { Status::Pass } else { Status::Fail }
                }
                "consensus" => {
                    let (p, f) = pass_fail()?;
                    match (p, f) {
                        (_, 0) => Status::Pass,
                        (0, _) => Status::Fail,
                        _ => Status::Abstain,
                    }
                }
                "allMustPass" => {
                    let (_, f) = pass_fail()?;
                    if f == 0 { Status::Pass } else { Status::Fail }
                }
                "average" | "median" | "weightedAverage" | "conjunctive" => by_threshold()?,
                _ => return None,
            };
            Some((st, None))
        })();
        match expected {
            None => ReadingSupport::Undetermined,
            Some((st, want_code)) if st == status && (want_code.is_none() || want_code == code) => {
                ReadingSupport::Supported
            }
            Some((st, want_code)) => {
                self.defect(
                    DefectKind::Inconsistent,
                    "aggregated",
                    "status",
                    format!(
                        "the evidence implies {}{} but the aggregate is {}{}",
                        st.upper(),
                        want_code.map(|c| format!(" ({c})")).unwrap_or_default(),
                        status.upper(),
                        code.map(|c| format!(" ({c})")).unwrap_or_default()
                    ),
                );
                ReadingSupport::Contradicted
            }
        }
    }
}

#[derive(Default)]
struct StageMeta {
    relation: Option<String>,
    policy: Option<String>,
    disposition: Option<String>,
    disposition_reason: Option<String>,
    failure_code: Option<String>,
}

fn join_names(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}/{name}")
    }
}

/// Deterministic prose built only from the interpretation's fields.
pub fn summary(i: &Interpretation) -> String {
    let mut s = match i.reading {
        Some(r) => format!("Reading: {r}"),
        None => "Reading: unreadable (the root status could not be read)".to_string(),
    };
    s.push_str(match i.reading_support {
        ReadingSupport::Supported => ", supported by the root's evidence",
        ReadingSupport::Contradicted => ", contradicted by the root's evidence",
        ReadingSupport::Undetermined => ", not checkable against the root's evidence",
    });
    match &i.decided_by {
        Some(d) => s.push_str(&format!("; decided by stage '{d}'.")),
        None => s.push('.'),
    }
    if let Some(r) = &i.root.aggregate.reasoning
        && !r.is_empty()
    {
        s.push_str(&format!(" Root: {r}"));
    }
    s.push_str(&format!(
        " {} stage(s) entered, {} judge(s) at the root, {} defect(s).",
        i.stages.len(),
        i.root.judges.len(),
        i.defects.len()
    ));
    for d in &i.defects {
        let at = if d.path.is_empty() {
            d.field.clone()
        } else {
            format!("{}.{}", d.path, d.field)
        };
        s.push_str(&format!("\n- {} at {at}: {}", d.kind, d.detail));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn non_objects_and_garbage_degrade_to_defects() {
        for v in [
            json!(null),
            json!(3),
            json!("x"),
            json!([1]),
            json!({}),
            json!({"aggregated": 5}),
        ] {
            let i = interpret(&v);
            assert_eq!(i.reading, None, "{v}");
            assert!(!i.defects.is_empty(), "{v}");
        }
    }

    #[test]
    fn legacy_shapes_read_with_defects() {
        let v014 = json!({
            "aggregated": {"status": "error", "reasoning": "boom"},
            "individual": [{"status": "pass"}],
            "compositeAttempts": [{"name": "t", "relation": "cascade_tier", "policy": "FINAL_TIER",
                "verdict": {"aggregated": {"status": "pass"}, "individual": []}}]
        });
        let i = interpret(&v014);
        assert_eq!(i.source_version, 0);
        assert_eq!(i.reading, Some(Reading::NotAssessed));
        let fields: Vec<&str> = i.defects.iter().map(|d| d.field.as_str()).collect();
        assert!(fields.contains(&"decision") && fields.contains(&"seats"));
        assert!(
            fields.contains(&"disposition") && fields.contains(&"reasonCode"),
            "{fields:?}"
        );
        assert_eq!(i.stages.len(), 1);

        let v013 = json!({
            "aggregated": {"status": "PASS", "score": {"value": 8, "min": 0, "max": 10}},
            "subVerdicts": [{"aggregated": {"status": "FAIL", "score": {"value": true}}}]
        });
        let i = interpret(&v013);
        assert_eq!(i.reading, Some(Reading::Accepted));
        assert_eq!(i.root.aggregate.score, Some(0.8));
        assert!(i.root.aggregate.score_scale.is_some());
        assert_eq!(i.stages[0].status.as_deref(), Some("fail"));
        assert!(
            i.defects
                .iter()
                .any(|d| d.kind == DefectKind::Unparseable && d.field == "score")
        );
    }

    #[test]
    fn unknown_tokens_are_carried_and_flagged() {
        let v = json!({"aggregated": {"status": "maybe"}, "individual": [], "individualByName": {},
            "weights": {}, "seats": [], "decision": {"kind": "own"}, "compositeAttempts": []});
        let i = interpret(&v);
        assert_eq!(i.reading, None);
        assert_eq!(i.defects[0].kind, DefectKind::UnknownVocabulary);
    }

    #[test]
    fn contradicted_evidence_is_one_inconsistent_defect() {
        let v = json!({"aggregated": {"status": "pass", "reasoning": "r", "metadata": {"aggregation": {
            "strategy": "consensus", "errorPolicy": "propagate", "notApplicablePolicy": "refuse",
            "inputCount": 2, "eligibleCount": 2, "notApplicableCount": 0, "errorCount": 0,
            "passCount": 1, "failCount": 1}}},
            "individual": [], "individualByName": {}, "weights": {}, "seats": [],
            "decision": {"kind": "own"}, "compositeAttempts": []});
        let i = interpret(&v);
        assert_eq!(i.reading_support, ReadingSupport::Contradicted);
        assert_eq!(i.defects.len(), 1);
        assert_eq!(i.defects[0].kind, DefectKind::Inconsistent);
        assert!(summary(&i).contains("contradicted"));
    }
}
