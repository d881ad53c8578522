//! The JSON Schema of the config file, generated from the same key tables the loader
//! validates with, so an editor completes exactly what judge-ci accepts.

use serde_json::{Map, Value, json};

use super::checks::{catalog, keys_of};
use super::parse::{
    BENCHMARK_KEYS, JURY_KEYS, MEMBER_KEYS, REFERENCE_KEYS, REPORT_KEYS, TIER_KEYS, VOTING_KEYS,
};
use super::yaml::{Key, Kind};

fn kind_schema(k: &Key) -> Value {
    let mut s = match k.kind {
        Kind::Str => json!({"type": "string"}),
        Kind::Bool => json!({"type": "boolean"}),
        Kind::Number => json!({"type": "number"}),
        Kind::Integer => json!({"type": "integer"}),
        Kind::Duration => json!({"type": "string", "pattern": "^P"}),
        Kind::StrList => json!({"type": "array", "items": {"type": "string"}}),
        Kind::CommandLine => {
            json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}]})
        }
        Kind::StrMap => json!({"type": "object", "additionalProperties": {"type": "string"}}),
        Kind::Enum(tokens) => json!({"enum": tokens()}),
        Kind::EnumList(tokens) => json!({"type": "array", "items": {"enum": tokens()}}),
        Kind::Any => json!({}),
        Kind::Object => json!({"type": "object"}),
        Kind::ObjectList => json!({"type": "array"}),
    };
    if let Value::Object(m) = &mut s {
        m.insert("description".into(), k.doc.into());
    }
    s
}

fn object(table: &[Key], overrides: &[(&str, Value)], additional: bool) -> Value {
    let mut props = Map::new();
    for k in table {
        let v = overrides
            .iter()
            .find(|(n, _)| *n == k.name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| kind_schema(k));
        props.insert(k.name.into(), v);
    }
    json!({"type": "object", "properties": props, "additionalProperties": additional})
}

/// The schema (draft 2020-12) for `judge-ci.yml`.
pub fn config_schema() -> Value {
    let checks: Vec<Value> = catalog()
        .map(|(ty, t)| {
            let mut o = object(&keys_of(t), &[("type", json!({"const": ty.token()}))], true);
            o["description"] = t.doc.into();
            o["required"] = json!(["type"]);
            o
        })
        .collect();
    let check_list = json!({"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/check"}});
    let voting = json!({"$ref": "#/$defs/voting"});
    let tier = object(
        TIER_KEYS,
        &[("checks", check_list.clone()), ("voting", voting.clone())],
        false,
    );
    let tiers = json!({"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/tier"}});
    let members = json!({"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/member"}});
    let member_overrides = [
        ("tiers", tiers.clone()),
        ("checks", check_list.clone()),
        ("members", members.clone()),
        ("voting", voting.clone()),
    ];
    let mut member = object(MEMBER_KEYS, &member_overrides, false);
    member["required"] = json!(["name"]);
    let jury_overrides = [
        ("tiers", tiers),
        ("checks", check_list),
        ("members", members),
        ("voting", voting),
    ];
    let jury = object(JURY_KEYS, &jury_overrides, false);
    let top = object(
        BENCHMARK_KEYS,
        &[
            ("jury", jury),
            ("report", object(REPORT_KEYS, &[], false)),
            ("reference", object(REFERENCE_KEYS, &[], false)),
            ("base", object(REFERENCE_KEYS, &[], false)),
            (
                "llm",
                object(
                    &super::llm::config_keys(),
                    &[("limits", {
                        let mut l = object(super::llm::LIMIT_KEYS, &[], false);
                        l["description"] = "spending limits of the run (for judge-ci suite, the suite's --llm-limit flags bound the whole suite too); a request that would pass one is not sent and the check is ERROR with cause llm_budget_exhausted; see `llm.limits:`".into();
                        l
                    })],
                    false,
                ),
            ),
            ("sandbox", object(super::sandbox::SANDBOX_KEYS, &[], false)),
            (
                "diagnostics",
                object(
                    super::diagnostics::DIAGNOSTICS_KEYS,
                    &[(
                        "rules",
                        json!({"type": "array", "items": object(super::diagnostics::RULE_KEYS, &[], false)}),
                    )],
                    false,
                ),
            ),
            (
                "metadata",
                json!({"type": "object", "description": "passed to every judge's context"}),
            ),
        ],
        true,
    );
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://judge-ci.dev/schemas/config.v1.json",
        "title": "judge-ci configuration (a superset of agent-bench's bench.benchmark.v1)",
        "$defs": {
            "check": {"oneOf": checks},
            "voting": object(VOTING_KEYS, &[], false),
            "tier": tier,
            "member": member,
        },
    });
    if let (Value::Object(s), Value::Object(t)) = (&mut schema, top) {
        for (k, v) in t {
            s.insert(k, v);
        }
        s.insert("required".into(), json!(["jury"]));
    }
    schema
}
