//! SARIF 2.1.0: every finding with a file as a result with its location, rules named by the
//! finding's kind, so code-scanning tools can show them.

use serde_json::{Map, Value, json};

use super::model::Report;

fn result(
    rule: &str,
    level: &str,
    text: String,
    path: &str,
    line: Option<u64>,
    column: Option<u64>,
) -> Value {
    let mut region = Map::new();
    region.insert("startLine".into(), line.unwrap_or(1).max(1).into());
    if let Some(c) = column {
        region.insert("startColumn".into(), c.max(1).into());
    }
    json!({
        "ruleId": rule,
        "level": level,
        "message": {"text": text},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": path}, "region": Value::Object(region)}}],
    })
}

/// Renders the report's findings as a SARIF 2.1.0 log.
pub fn sarif(r: &Report) -> Value {
    let mut results = Vec::new();
    for (name, j) in r.verdict.individual_by_name() {
        if let Some(Value::Array(fs)) = j.metadata().get("findings") {
            for f in fs.iter().filter(|f| f["kind"] == "compiler-error") {
                let path = f["path"].as_str().unwrap_or("");
                if !path.is_empty() {
                    results.push(result(
                        "compiler-error",
                        "error",
                        format!("{name}: {}", f["message"].as_str().unwrap_or("")),
                        path,
                        f["line"].as_u64(),
                        f["column"].as_u64(),
                    ));
                }
            }
            // Text in the PR addressed to the grader (a file name has no line: line 1).
            for f in fs.iter().filter(|f| f["kind"] == "prompt-injection") {
                let path = f["path"].as_str().unwrap_or("");
                if !path.is_empty() {
                    results.push(result(
                        "prompt-injection",
                        "error",
                        format!("{name}: {}", f["message"].as_str().unwrap_or("")),
                        path,
                        f["line"].as_u64(),
                        None,
                    ));
                }
            }
        }
    }
    for d in r
        .diffs
        .imports
        .iter()
        .chain(&r.diffs.ast)
        .chain(&r.diffs.pom)
        .chain(&r.diffs.files)
    {
        if d.path.is_empty() {
            continue;
        }
        let mut text = format!("{}: {}", d.judge, d.kind);
        if let Some(a) = &d.actual {
            text.push_str(&format!("; workspace: {a}"));
        }
        if let Some(e) = &d.expected {
            text.push_str(&format!("; reference: {e}"));
        }
        let level = if d.kind.contains("forbidden") || d.kind.contains("missing") {
            "error"
        } else {
            "warning"
        };
        results.push(result(&d.kind, level, text, &d.path, d.line, None));
    }
    let mut rules: Vec<&str> = results
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    rules.sort_unstable();
    rules.dedup();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "judge-ci",
                "version": r.tool.version,
                "rules": rules.iter().map(|id| json!({"id": id, "shortDescription": {"text": id.replace('-', " ")}})).collect::<Vec<_>>(),
            }},
            "results": results,
        }],
    })
}
