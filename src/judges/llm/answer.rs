//! The output contract: the JSON Schema each question asks for, reading a reply into it
//! (prose or code fences around the JSON are tolerated; a wrong shape is an error, never a
//! guess), and the rollup of each answer into a judgment. Pure functions: no I/O.

use serde_json::{Value, json};

use crate::config::llm::{RosterItem, RosterKind};
use crate::judgment::{Check, Judgment, ReasonCode, Status};

use super::super::{Outcome, build};

/// The JSON object in a reply: the whole text, or the outermost `{…}` inside prose or a code
/// fence.
pub fn extract_json(text: &str) -> Result<Value, String> {
    let t = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(t)
        && v.is_object()
    {
        return Ok(v);
    }
    let (Some(start), Some(end)) = (t.find('{'), t.rfind('}')) else {
        return Err("the reply holds no JSON object".into());
    };
    if end < start {
        return Err("the reply holds no JSON object".into());
    }
    serde_json::from_str::<Value>(&t[start..=end])
        .map_err(|e| format!("the JSON in the reply does not parse: {e}"))
        .and_then(|v| {
            if v.is_object() {
                Ok(v)
            } else {
                Err("the reply's JSON is not an object".into())
            }
        })
}

fn string(v: &Value, k: &str) -> Result<String, String> {
    v.get(k)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("`{k}` must be a string"))
}

fn unit(v: &Value, k: &str) -> Result<f64, String> {
    match v.get(k).and_then(Value::as_f64) {
        Some(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Some(x) => Err(format!("`{k}` must be between 0 and 1, not {x}")),
        None => Err(format!("`{k}` must be a number between 0 and 1")),
    }
}

fn list<'v>(v: &'v Value, k: &str) -> Result<&'v Vec<Value>, String> {
    match v.get(k).and_then(Value::as_array) {
        Some(l) if !l.is_empty() => Ok(l),
        _ => Err(format!("`{k}` must be a non-empty list")),
    }
}

/// `{verdict: PASS|FAIL, reasoning}`.
pub fn verdict_schema() -> Value {
    json!({"type": "object", "required": ["verdict", "reasoning"], "properties": {
        "verdict": {"type": "string", "enum": ["PASS", "FAIL"]},
        "reasoning": {"type": "string"}}})
}

/// Reads a verdict answer: (passed, reasoning).
pub fn verdict(v: &Value) -> Result<(bool, String), String> {
    let r = string(v, "reasoning")?;
    match string(v, "verdict")?.as_str() {
        "PASS" => Ok((true, r)),
        "FAIL" => Ok((false, r)),
        other => Err(format!("`verdict` must be PASS or FAIL, not {other:?}")),
    }
}

/// `{score: 0..1, reasoning}`.
pub fn score_schema() -> Value {
    json!({"type": "object", "required": ["score", "reasoning"], "properties": {
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "reasoning": {"type": "string"}}})
}

/// Reads a score answer.
pub fn score(v: &Value) -> Result<(f64, String), String> {
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
pub fn criteria(v: &Value) -> Result<Vec<(String, bool, String)>, String> {
    list(v, "criteria")?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let passed = c
                .get("passed")
                .and_then(Value::as_bool)
                .ok_or_else(|| format!("criteria[{i}].passed must be true or false"))?;
            Ok((
                string(c, "name").map_err(|e| format!("criteria[{i}]: {e}"))?,
                passed,
                string(c, "evidence").map_err(|e| format!("criteria[{i}]: {e}"))?,
            ))
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
pub fn rubric(v: &Value) -> Result<Vec<(String, f64, String)>, String> {
    list(v, "criteria")?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            Ok((
                string(c, "name").map_err(|e| format!("criteria[{i}]: {e}"))?,
                unit(c, "score").map_err(|e| format!("criteria[{i}]: {e}"))?,
                string(c, "evidence").map_err(|e| format!("criteria[{i}]: {e}"))?,
            ))
        })
        .collect()
}

/// `{passed, evidence}`: one criterion of semantic-diff.
pub fn check_schema() -> Value {
    json!({"type": "object", "required": ["passed", "evidence"], "properties": {
        "passed": {"type": "boolean"}, "evidence": {"type": "string"}}})
}

/// Reads one criterion's answer.
pub fn check(v: &Value) -> Result<(bool, String), String> {
    let passed = v
        .get("passed")
        .and_then(Value::as_bool)
        .ok_or("`passed` must be true or false")?;
    Ok((passed, string(v, "evidence")?))
}

/// `{answer: YES|NO, reasoning}`.
pub fn yes_no_schema() -> Value {
    json!({"type": "object", "required": ["answer", "reasoning"], "properties": {
        "answer": {"type": "string", "enum": ["YES", "NO"]},
        "reasoning": {"type": "string"}}})
}

/// Reads a YES/NO answer strictly: exactly "YES" or "NO", nothing else counts.
pub fn yes_no(v: &Value) -> Result<(bool, String), String> {
    let r = string(v, "reasoning")?;
    match string(v, "answer")?.as_str() {
        "YES" => Ok((true, r)),
        "NO" => Ok((false, r)),
        other => Err(format!("`answer` must be exactly YES or NO, not {other:?}")),
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
pub fn roster(v: &Value) -> Result<(Vec<ItemAnswer>, Observations), String> {
    let items = v
        .get("items")
        .and_then(Value::as_array)
        .ok_or("`items` must be a list")?;
    let answers = items
        .iter()
        .enumerate()
        .map(|(i, it)| {
            Ok(ItemAnswer {
                id: string(it, "id").map_err(|e| format!("items[{i}]: {e}"))?,
                verdict: string(it, "verdict").map_err(|e| format!("items[{i}]: {e}"))?,
                evidence: it
                    .get("evidence")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
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
        assert!(extract_json("YES, it does").is_err());
        assert!(extract_json("} nothing {").is_err());
        assert!(extract_json("[1, 2]").is_err());
    }

    #[test]
    fn shapes_are_strict() {
        assert_eq!(
            verdict(&json!({"verdict": "PASS", "reasoning": "r"})).unwrap(),
            (true, "r".to_string())
        );
        assert!(verdict(&json!({"verdict": "pass", "reasoning": "r"})).is_err());
        assert!(score(&json!({"score": 1.5, "reasoning": "r"})).is_err());
        assert!(criteria(&json!({"criteria": []})).is_err());
        assert!(yes_no(&json!({"answer": "YES, mostly", "reasoning": ""})).is_err());
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
