//! The output contract: the JSON Schema each question asks for, reading a reply into it
//! (prose or code fences around the JSON are tolerated; a wrong shape is an error, never a
//! guess), and the rollup of each answer into a judgment. Pure functions: no I/O.

use serde_json::{Value, json};

use crate::config::llm::{RosterItem, RosterKind};
use crate::judgment::{Check, Judgment, ReasonCode, Status};

use super::super::{Outcome, build};

/// Why a model's reply does not fit the requested shape. The message is shown to the model
/// in the repair request, and kept in the ERROR's reasoning when the repair fails too.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    /// No `{…}` in the reply at all.
    #[error("the reply holds no JSON object")]
    NoObject,
    /// The outermost `{…}` is not JSON.
    #[error("the JSON in the reply does not parse: {0}")]
    Unparsable(#[source] serde_json::Error),
    /// The reply's JSON is a list, a string or a number.
    #[error("the reply's JSON is not an object")]
    NotObject,
    /// A field that must be a string is absent or another type.
    #[error("`{0}` must be a string")]
    NotString(&'static str),
    /// A field that must be `true` or `false` is absent or another type.
    #[error("`{0}` must be true or false")]
    NotBool(&'static str),
    /// A field that must be a list is absent or another type.
    #[error("`{0}` must be a list")]
    NotList(&'static str),
    /// A list that must hold something is absent, another type or empty.
    #[error("`{0}` must be a non-empty list")]
    EmptyList(&'static str),
    /// A number in [0, 1] is absent or another type.
    #[error("`{0}` must be a number between 0 and 1")]
    NotUnit(&'static str),
    /// A number outside [0, 1].
    #[error("`{field}` must be between 0 and 1, not {value}")]
    OutOfUnit {
        /// The field.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// A string that must be one of a few tokens is another.
    #[error("`{field}` must be {valid}, not {got:?}")]
    NotOneOf {
        /// The field.
        field: &'static str,
        /// What would be valid.
        valid: &'static str,
        /// What the model wrote.
        got: String,
    },
    /// One entry of a list is wrong.
    #[error("{list}[{index}]: {inner}")]
    Entry {
        /// The list.
        list: &'static str,
        /// The entry's index.
        index: usize,
        /// What is wrong with it.
        inner: Box<AnswerError>,
    },
}

impl AnswerError {
    /// Every misfit is an unusable reply: the model did not give the requested shape.
    pub fn cause(&self) -> crate::judgment::Cause {
        match self {
            AnswerError::NoObject
            | AnswerError::Unparsable(_)
            | AnswerError::NotObject
            | AnswerError::NotString(_)
            | AnswerError::NotBool(_)
            | AnswerError::NotList(_)
            | AnswerError::EmptyList(_)
            | AnswerError::NotUnit(_)
            | AnswerError::OutOfUnit { .. }
            | AnswerError::NotOneOf { .. }
            | AnswerError::Entry { .. } => crate::judgment::Cause::ModelReplyUnusable,
        }
    }

    /// This error, as the one of entry `index` of `list`.
    fn at(self, list: &'static str, index: usize) -> AnswerError {
        AnswerError::Entry {
            list,
            index,
            inner: Box::new(self),
        }
    }
}

/// The JSON object in a reply: the whole text, or the outermost `{…}` inside prose or a code
/// fence.
pub fn extract_json(text: &str) -> Result<Value, AnswerError> {
    let t = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(t)
        && v.is_object()
    {
        return Ok(v);
    }
    let (Some(start), Some(end)) = (t.find('{'), t.rfind('}')) else {
        return Err(AnswerError::NoObject);
    };
    if end < start {
        return Err(AnswerError::NoObject);
    }
    serde_json::from_str::<Value>(&t[start..=end])
        .map_err(AnswerError::Unparsable)
        .and_then(|v| {
            if v.is_object() {
                Ok(v)
            } else {
                Err(AnswerError::NotObject)
            }
        })
}

fn string(v: &Value, k: &'static str) -> Result<String, AnswerError> {
    v.get(k)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or(AnswerError::NotString(k))
}

fn boolean(v: &Value, k: &'static str) -> Result<bool, AnswerError> {
    v.get(k)
        .and_then(Value::as_bool)
        .ok_or(AnswerError::NotBool(k))
}

fn unit(v: &Value, k: &'static str) -> Result<f64, AnswerError> {
    match v.get(k).and_then(Value::as_f64) {
        Some(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Some(x) => Err(AnswerError::OutOfUnit { field: k, value: x }),
        None => Err(AnswerError::NotUnit(k)),
    }
}

fn list<'v>(v: &'v Value, k: &'static str) -> Result<&'v Vec<Value>, AnswerError> {
    match v.get(k).and_then(Value::as_array) {
        Some(l) if !l.is_empty() => Ok(l),
        _ => Err(AnswerError::EmptyList(k)),
    }
}

/// `{verdict: PASS|FAIL, reasoning}`.
pub fn verdict_schema() -> Value {
    json!({"type": "object", "required": ["verdict", "reasoning"], "properties": {
        "verdict": {"type": "string", "enum": ["PASS", "FAIL"]},
        "reasoning": {"type": "string"}}})
}

/// Reads a verdict answer: (passed, reasoning).
pub fn verdict(v: &Value) -> Result<(bool, String), AnswerError> {
    let r = string(v, "reasoning")?;
    match string(v, "verdict")?.as_str() {
        "PASS" => Ok((true, r)),
        "FAIL" => Ok((false, r)),
        other => Err(AnswerError::NotOneOf {
            field: "verdict",
            valid: "PASS or FAIL",
            got: other.to_string(),
        }),
    }
}

/// `{score: 0..1, reasoning}`.
pub fn score_schema() -> Value {
    json!({"type": "object", "required": ["score", "reasoning"], "properties": {
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "reasoning": {"type": "string"}}})
}

/// Reads a score answer.
pub fn score(v: &Value) -> Result<(f64, String), AnswerError> {
    Ok((unit(v, "score")?, string(v, "reasoning")?))
}

/// `{criteria: [{name, passed, evidence}]}`.
pub fn criteria_schema() -> Value {
    json!({"type": "object", "required": ["criteria"], "properties": {"criteria": {
        "type": "array", "minItems": 1, "items": {"type": "object",
        "required": ["name", "passed", "evidence"], "properties": {
            "name": {"type": "string"}, "passed": {"type": "boolean"},
            "evidence": {"type": "string"}}}}}})
}

/// Reads a criteria answer: (name, passed, evidence) per criterion.
pub fn criteria(v: &Value) -> Result<Vec<(String, bool, String)>, AnswerError> {
    list(v, "criteria")?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let one = || {
                Ok((
                    string(c, "name")?,
                    boolean(c, "passed")?,
                    string(c, "evidence")?,
                ))
            };
            one().map_err(|e: AnswerError| e.at("criteria", i))
        })
        .collect()
}

/// `{criteria: [{name, score, evidence}]}` (agent-bench's rubric).
pub fn rubric_schema() -> Value {
    json!({"type": "object", "required": ["criteria"], "properties": {"criteria": {
        "type": "array", "minItems": 1, "items": {"type": "object",
        "required": ["name", "score", "evidence"], "properties": {
            "name": {"type": "string"}, "score": {"type": "number", "minimum": 0, "maximum": 1},
            "evidence": {"type": "string"}}}}}})
}

/// Reads a rubric answer: (name, score, evidence) per criterion.
pub fn rubric(v: &Value) -> Result<Vec<(String, f64, String)>, AnswerError> {
    list(v, "criteria")?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let one = || {
                Ok((
                    string(c, "name")?,
                    unit(c, "score")?,
                    string(c, "evidence")?,
                ))
            };
            one().map_err(|e: AnswerError| e.at("criteria", i))
        })
        .collect()
}

/// `{passed, evidence}`: one criterion of semantic-diff.
pub fn check_schema() -> Value {
    json!({"type": "object", "required": ["passed", "evidence"], "properties": {
        "passed": {"type": "boolean"}, "evidence": {"type": "string"}}})
}

/// Reads one criterion's answer.
pub fn check(v: &Value) -> Result<(bool, String), AnswerError> {
    Ok((boolean(v, "passed")?, string(v, "evidence")?))
}

/// `{answer: YES|NO, reasoning}`.
pub fn yes_no_schema() -> Value {
    json!({"type": "object", "required": ["answer", "reasoning"], "properties": {
        "answer": {"type": "string", "enum": ["YES", "NO"]},
        "reasoning": {"type": "string"}}})
}

/// Reads a YES/NO answer strictly: exactly "YES" or "NO", nothing else counts.
pub fn yes_no(v: &Value) -> Result<(bool, String), AnswerError> {
    let r = string(v, "reasoning")?;
    match string(v, "answer")?.as_str() {
        "YES" => Ok((true, r)),
        "NO" => Ok((false, r)),
        other => Err(AnswerError::NotOneOf {
            field: "answer",
            valid: "exactly YES or NO",
            got: other.to_string(),
        }),
    }
}

/// The roster answer's schema; NOT_APPLICABLE is offered only when some item is conditional.
pub fn roster_schema(items: &[RosterItem]) -> Value {
    let mut verdicts = vec!["PASS", "FAIL", "CANNOT_DETERMINE"];
    if items.iter().any(|i| i.applies_when.is_some()) {
        verdicts.push("NOT_APPLICABLE");
    }
    json!({"type": "object", "required": ["items"], "properties": {
        "items": {"type": "array", "items": {"type": "object",
            "required": ["id", "verdict", "evidence"], "properties": {
                "id": {"type": "string"}, "verdict": {"type": "string", "enum": verdicts},
                "evidence": {"type": "string"}}}},
        "observations": {"type": "array", "items": {"type": "object",
            "required": ["id", "text"], "properties": {
                "id": {"type": "string"}, "text": {"type": "string"}}}}}})
}

/// One roster answer as the model gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemAnswer {
    /// The item id.
    pub id: String,
    /// PASS, FAIL, CANNOT_DETERMINE or NOT_APPLICABLE.
    pub verdict: String,
    /// The model's evidence or reason.
    pub evidence: String,
}

/// Non-binding observations: (item id, text).
pub type Observations = Vec<(String, String)>;

/// Reads a roster answer (its shape only; the rollup judges its content).
pub fn roster(v: &Value) -> Result<(Vec<ItemAnswer>, Observations), AnswerError> {
    let items = v
        .get("items")
        .and_then(Value::as_array)
        .ok_or(AnswerError::NotList("items"))?;
    let answers = items
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let one = || {
                Ok(ItemAnswer {
                    id: string(it, "id")?,
                    verdict: string(it, "verdict")?,
                    evidence: it
                        .get("evidence")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                })
            };
            one().map_err(|e: AnswerError| e.at("items", i))
        })
        .collect::<Result<Vec<_>, AnswerError>>()?;
    let observations = v
        .get("observations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|o| Some((string(o, "id").ok()?, string(o, "text").ok()?)))
        .collect();
    Ok((answers, observations))
}

/// The roster rollup of jury-semantics §3.4: a roster or protocol error → ERROR
/// (`judge_reported`, checks and totals kept); else any FAIL → FAIL; else anything
/// unestablished → ABSTAIN; else everything excluded → NOT_APPLICABLE; else PASS. No score.
pub fn roster_rollup(
    kind: RosterKind,
    items: &[RosterItem],
    answers: &[ItemAnswer],
    observations: &[(String, String)],
) -> Outcome {
    let mut checks = Vec::new();
    let mut unestablished = Vec::new();
    let mut excluded: Vec<Value> = Vec::new();
    let mut problems = Vec::new();
    let mut any_fail = false;
    for a in answers {
        if !items.iter().any(|i| i.id == a.id) {
            problems.push(format!(
                "answered an item that is not on the roster: {}",
                a.id
            ));
        }
    }
    for item in items {
        let mine: Vec<&ItemAnswer> = answers.iter().filter(|a| a.id == item.id).collect();
        let Some(a) = mine.first() else {
            problems.push(format!("{} was not answered", item.id));
            continue;
        };
        if mine.len() > 1 {
            problems.push(format!("{} was answered {} times", item.id, mine.len()));
            continue;
        }
        match a.verdict.as_str() {
            "PASS" => checks.push(Check::passed(&item.id, &a.evidence)?),
            "FAIL" => {
                any_fail = true;
                checks.push(Check::failed(&item.id, &a.evidence)?);
            }
            "CANNOT_DETERMINE" => {
                unestablished.push(item.id.clone());
                checks.push(Check::failed(
                    &item.id,
                    format!("could not be established: {}", a.evidence),
                )?);
            }
            "NOT_APPLICABLE" if item.applies_when.is_none() => problems.push(format!(
                "{} is unconditional but was answered NOT_APPLICABLE",
                item.id
            )),
            "NOT_APPLICABLE" if a.evidence.trim().is_empty() => problems.push(format!(
                "{} was answered NOT_APPLICABLE without a reason",
                item.id
            )),
            "NOT_APPLICABLE" => excluded.push(json!({"id": item.id, "reason": a.evidence})),
            other => problems.push(format!("{} has the unknown verdict {other:?}", item.id)),
        }
    }
    let total_key = match kind {
        RosterKind::Ears => "criteriaTotal",
        RosterKind::Rfc2119 => "constraintsTotal",
    };
    let established = checks.len() - unestablished.len();
    let (status, reasoning) = if !problems.is_empty() {
        (
            Status::Error,
            format!("The audit broke the protocol: {}", problems.join("; ")),
        )
    } else if any_fail {
        let failed: Vec<&str> = checks
            .iter()
            .filter(|c| !c.is_passed() && !unestablished.iter().any(|u| u == c.name()))
            .map(|c| c.name())
            .collect();
        (Status::Fail, format!("Not met: {}", failed.join(", ")))
    } else if !unestablished.is_empty() {
        (
            Status::Abstain,
            format!("Could not be established: {}", unestablished.join(", ")),
        )
    } else if checks.is_empty() {
        (
            Status::NotApplicable,
            "No item applies to this change".to_string(),
        )
    } else {
        (
            Status::Pass,
            format!("All {} applicable item(s) met", checks.len()),
        )
    };
    let mut b = Judgment::builder(status)
        .reasoning(reasoning)
        .checks(checks)
        .metadata(total_key, items.len() as u64)
        .metadata("established", established as u64)
        .metadata("unestablished", unestablished.join(","))
        .metadata("notApplicableCount", excluded.len() as u64)
        .metadata("notApplicable", Value::Array(excluded));
    if status == Status::Error {
        b = b.reason_code(ReasonCode::JudgeReported);
    }
    if !observations.is_empty() {
        b = b.metadata(
            "observations",
            observations
                .iter()
                .map(|(id, t)| json!({"id": id, "text": t}))
                .collect::<Vec<_>>(),
        );
    }
    build(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, cond: bool) -> RosterItem {
        RosterItem {
            id: id.into(),
            text: format!("{id} text"),
            applies_when: cond.then(|| "when it applies".to_string()),
        }
    }

    fn ans(id: &str, verdict: &str, evidence: &str) -> ItemAnswer {
        ItemAnswer {
            id: id.into(),
            verdict: verdict.into(),
            evidence: evidence.into(),
        }
    }

    #[test]
    fn json_is_found_in_prose_and_fences_and_nowhere_else() {
        assert_eq!(extract_json(r#"{"a":1}"#).unwrap()["a"], 1);
        assert_eq!(
            extract_json("Sure! Here it is:\n```json\n{\"a\": 2}\n```\nHope it helps").unwrap()["a"],
            2
        );
        assert!(matches!(
            extract_json("YES, it does"),
            Err(AnswerError::NoObject)
        ));
        assert!(matches!(
            extract_json("} nothing {"),
            Err(AnswerError::NoObject)
        ));
        assert!(matches!(extract_json("[1, 2]"), Err(AnswerError::NoObject)));
        assert!(matches!(
            extract_json("here: {\"a\": } done"),
            Err(AnswerError::Unparsable(_))
        ));
        assert!(matches!(
            extract_json("{not json} and {\"a\": 1}"),
            Err(AnswerError::Unparsable(_))
        ));
    }

    #[test]
    fn shapes_are_strict() {
        assert_eq!(
            verdict(&json!({"verdict": "PASS", "reasoning": "r"})).unwrap(),
            (true, "r".to_string())
        );
        let lower = verdict(&json!({"verdict": "pass", "reasoning": "r"})).unwrap_err();
        assert!(
            matches!(&lower, AnswerError::NotOneOf { field: "verdict", got, .. } if got == "pass"),
            "{lower:?}"
        );
        assert_eq!(
            lower.to_string(),
            "`verdict` must be PASS or FAIL, not \"pass\""
        );
        assert!(matches!(
            score(&json!({"score": 1.5, "reasoning": "r"})),
            Err(AnswerError::OutOfUnit {
                field: "score",
                value: 1.5
            })
        ));
        assert!(matches!(
            criteria(&json!({"criteria": []})),
            Err(AnswerError::EmptyList("criteria"))
        ));
        let entry =
            criteria(&json!({"criteria": [{"name": "a", "passed": "yes", "evidence": ""}]}))
                .unwrap_err();
        assert!(
            matches!(&entry, AnswerError::Entry { list: "criteria", index: 0, inner } if matches!(**inner, AnswerError::NotBool("passed"))),
            "{entry:?}"
        );
        assert_eq!(
            entry.to_string(),
            "criteria[0]: `passed` must be true or false"
        );
        assert!(matches!(
            yes_no(&json!({"answer": "YES, mostly", "reasoning": ""})),
            Err(AnswerError::NotOneOf {
                field: "answer",
                ..
            })
        ));
        assert!(matches!(
            roster(&json!({"items": {}})),
            Err(AnswerError::NotList("items"))
        ));
        assert!(
            !yes_no(&json!({"answer": "NO", "reasoning": "yesterday it did"}))
                .unwrap()
                .0,
            "no substring guessing"
        );
        assert_eq!(
            rubric(&json!({"criteria": [{"name": "a", "score": 0.25, "evidence": "e"}]})).unwrap()
                [0]
            .1,
            0.25
        );
    }

    #[test]
    fn roster_rollup_follows_the_library() {
        let items = [item("R1", false), item("R2", true)];
        let k = RosterKind::Ears;
        let pass = roster_rollup(
            k,
            &items,
            &[ans("R1", "PASS", "e"), ans("R2", "PASS", "e")],
            &[],
        )
        .unwrap();
        assert_eq!(pass.status(), Status::Pass);
        assert_eq!(pass.metadata().get("criteriaTotal"), Some(&json!(2)));
        let fail = roster_rollup(
            k,
            &items,
            &[ans("R1", "FAIL", "e"), ans("R2", "CANNOT_DETERMINE", "?")],
            &[],
        )
        .unwrap();
        assert_eq!(
            fail.status(),
            Status::Fail,
            "a FAIL outranks the unestablished"
        );
        let abstain = roster_rollup(
            k,
            &items,
            &[ans("R1", "PASS", "e"), ans("R2", "CANNOT_DETERMINE", "?")],
            &[],
        )
        .unwrap();
        assert_eq!(abstain.status(), Status::Abstain);
        assert_eq!(abstain.metadata().get("unestablished"), Some(&json!("R2")));
        let excl = roster_rollup(
            k,
            &items,
            &[ans("R1", "PASS", "e"), ans("R2", "NOT_APPLICABLE", "no UI")],
            &[],
        )
        .unwrap();
        assert_eq!(excl.status(), Status::Pass);
        assert_eq!(excl.metadata().get("notApplicableCount"), Some(&json!(1)));
        let all_out = roster_rollup(
            k,
            &[item("R2", true)],
            &[ans("R2", "NOT_APPLICABLE", "no UI")],
            &[],
        )
        .unwrap();
        assert_eq!(all_out.status(), Status::NotApplicable);
        // Protocol and roster errors are the instrument's: ERROR with the checks kept.
        for bad in [
            vec![ans("R1", "NOT_APPLICABLE", "why"), ans("R2", "PASS", "e")],
            vec![ans("R1", "PASS", "e"), ans("R2", "NOT_APPLICABLE", "")],
            vec![ans("R1", "PASS", "e")],
            vec![
                ans("R1", "PASS", "e"),
                ans("R2", "PASS", "e"),
                ans("R9", "PASS", "e"),
            ],
        ] {
            let j = roster_rollup(RosterKind::Rfc2119, &items, &bad, &[]).unwrap();
            assert_eq!(j.status(), Status::Error, "{bad:?}");
            assert_eq!(j.reason_code(), Some(ReasonCode::JudgeReported));
            assert!(!j.checks().is_empty());
            assert_eq!(j.metadata().get("constraintsTotal"), Some(&json!(2)));
        }
    }
}
