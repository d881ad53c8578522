//! The config reference as markdown, rendered from the config's JSON Schema
//! ([`super::schema::config_schema`]), so each key is documented once: in the key tables the
//! loader validates with. `judge-ci schema --format markdown` prints it; the committed copy is
//! `docs/config-reference.md`, which a test keeps current.

use serde_json::{Map, Value};

/// Section titles that key tables link to.
const TIER: &str = "`tiers:` entries";
const MEMBER: &str = "`members:` entries";
const VOTING: &str = "`voting:`";
const CHECKS: &str = "`checks:` entries";
const RULES: &str = "`diagnostics: rules:` entries";

/// Keys every check takes; listed once instead of under each check type.
const COMMON_CHECK_KEYS: &[&str] = &[
    "type",
    "name",
    "weight",
    "timeout",
    "description",
    "not-applicable-when",
];

/// The config reference for `schema` (the value of [`super::schema::config_schema`]).
pub fn markdown(schema: &Value) -> String {
    let mut out = String::new();
    out.push_str("# Config reference\n\n");
    out.push_str(
        "Every key of `judge-ci.yml`, generated from the key tables the loader validates with \
         (`judge-ci schema --format markdown > docs/config-reference.md`; do not edit by hand). \
         A default is named in parentheses. [Writing a config](configuration.md) explains how the \
         pieces fit; editors complete the file from `schemas/config.v1.json` \
         (`judge-ci schema`).\n",
    );
    let empty = Map::new();
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .unwrap_or(&empty);

    section(&mut out, "Top level", schema);
    let top = properties(schema);
    for (key, value) in top {
        if value.get("properties").is_some() {
            section(&mut out, &format!("`{key}:`"), value);
        }
    }
    if let Some(limits) = top.get("llm").and_then(|l| l.pointer("/properties/limits")) {
        section(&mut out, "`llm.limits:`", limits);
    }
    if let Some(rules) = top
        .get("diagnostics")
        .and_then(|d| d.pointer("/properties/rules/items"))
    {
        section(&mut out, RULES, rules);
    }
    for (name, title) in [("tier", TIER), ("member", MEMBER), ("voting", VOTING)] {
        if let Some(def) = defs.get(name) {
            section(&mut out, title, def);
        }
    }
    let checks: Vec<&Value> = defs
        .get("check")
        .and_then(|c| c.get("oneOf"))
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    if let Some(first) = checks.first() {
        out.push_str(&format!("\n## {CHECKS}\n\n"));
        out.push_str("Every check takes these keys; each type's own keys follow.\n\n");
        table(
            &mut out,
            properties(first)
                .iter()
                .filter(|(k, _)| COMMON_CHECK_KEYS.contains(&k.as_str()) && k.as_str() != "type"),
        );
    }
    for check in checks {
        let ty = check
            .pointer("/properties/type/const")
            .and_then(Value::as_str)
            .unwrap_or("?");
        out.push_str(&format!("\n### `type: {ty}`\n\n"));
        if let Some(doc) = check.get("description").and_then(Value::as_str) {
            out.push_str(&format!("{}.\n", sentence(doc)));
        }
        let own: Vec<(&String, &Value)> = properties(check)
            .iter()
            .filter(|(k, _)| !COMMON_CHECK_KEYS.contains(&k.as_str()))
            .collect();
        if !own.is_empty() {
            out.push('\n');
            table(&mut out, own.into_iter());
        }
    }
    out
}

/// A `## title` section with the object's description and its key table.
fn section(out: &mut String, title: &str, object: &Value) {
    out.push_str(&format!("\n## {title}\n\n"));
    if let Some(doc) = object.get("description").and_then(Value::as_str) {
        out.push_str(&format!("{}.\n\n", sentence(doc)));
    }
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !required.is_empty() {
        let list: Vec<String> = required.iter().map(|k| format!("`{k}`")).collect();
        out.push_str(&format!("Required: {}.\n\n", list.join(", ")));
    }
    table(out, properties(object).iter());
}

/// The `properties` of a schema object (empty when it has none).
fn properties(object: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    object
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

/// A `key | type | meaning` table.
fn table<'a>(out: &mut String, rows: impl Iterator<Item = (&'a String, &'a Value)>) {
    out.push_str("| key | type | meaning |\n|---|---|---|\n");
    for (key, value) in rows {
        let doc = match value.get("description").and_then(Value::as_str) {
            Some(doc) => cell(doc),
            None => match link_of(key, value) {
                Some(title) => format!("see [{title}](#{})", anchor(&title)),
                None => String::new(),
            },
        };
        out.push_str(&format!(
            "| `{key}` | {} | {doc} |\n",
            cell(&type_of(value))
        ));
    }
}

/// The title of the section that documents `key`'s value, when it has one of its own.
fn link_of(key: &str, value: &Value) -> Option<String> {
    if value.get("properties").is_some() {
        return Some(format!("`{key}:`"));
    }
    let target = value.get("$ref").or_else(|| value.pointer("/items/$ref"));
    match target
        .and_then(Value::as_str)
        .and_then(|r| r.rsplit('/').next())
    {
        Some("tier") => Some(TIER.to_string()),
        Some("member") => Some(MEMBER.to_string()),
        Some("voting") => Some(VOTING.to_string()),
        Some("check") => Some(CHECKS.to_string()),
        _ if key == "rules" => Some(RULES.to_string()),
        _ => None,
    }
}

/// GitHub's anchor for a heading: lower case, spaces as hyphens, other punctuation dropped.
fn anchor(title: &str) -> String {
    title
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// A short rendering of a property's type: `string`, `list of check`, `` `a` or `b` ``.
fn type_of(value: &Value) -> String {
    if let Some(r) = value.get("$ref").and_then(Value::as_str) {
        return r.rsplit('/').next().unwrap_or(r).to_string();
    }
    if let Some(values) = value.get("enum").and_then(Value::as_array) {
        let tokens: Vec<String> = values
            .iter()
            .map(|v| match v {
                Value::String(s) => format!("`{s}`"),
                other => format!("`{other}`"),
            })
            .collect();
        return tokens.join(", ");
    }
    if let Some(any) = value.get("anyOf").and_then(Value::as_array) {
        let kinds: Vec<String> = any.iter().map(type_of).collect();
        return kinds.join(" or ");
    }
    match value.get("type").and_then(Value::as_str) {
        Some("array") => match value.get("items") {
            Some(items) => format!("list of {}", type_of(items)),
            None => "list".to_string(),
        },
        Some("object") => "mapping".to_string(),
        Some("string") if value.get("pattern").and_then(Value::as_str) == Some("^P") => {
            "ISO-8601 duration".to_string()
        }
        Some(t) => t.to_string(),
        None => "any".to_string(),
    }
}

/// `text` with its first letter capitalised and no final full stop (one is added).
fn sentence(text: &str) -> String {
    let text = text.trim_end_matches('.');
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Text safe inside a markdown table cell: pipes escaped, line breaks joined.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_top_level_key_and_check_type_is_documented() {
        let schema = crate::config::schema::config_schema();
        let doc = markdown(&schema);
        for key in properties(&schema).keys() {
            assert!(doc.contains(&format!("| `{key}` |")), "{key} missing");
        }
        for (ty, _) in crate::config::checks::catalog() {
            assert!(
                doc.contains(&format!("### `type: {}`", ty.token())),
                "{} missing",
                ty.token()
            );
        }
        assert!(doc.contains("## `voting:`"), "{doc}");
        assert!(
            doc.contains("see [`tiers:` entries](#tiers-entries)"),
            "{doc}"
        );
    }

    #[test]
    fn types_render_in_words_and_cells_are_escaped() {
        assert_eq!(type_of(&json!({"enum": ["a", "b"]})), "`a`, `b`");
        assert_eq!(
            type_of(&json!({"type": "array", "items": {"$ref": "#/$defs/check"}})),
            "list of check"
        );
        assert_eq!(
            type_of(&json!({"type": "string", "pattern": "^P"})),
            "ISO-8601 duration"
        );
        assert_eq!(cell("a | b\nc"), "a \\| b c");
        assert_eq!(sentence("what it does."), "What it does");
    }
}
