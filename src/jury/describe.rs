//! Portable descriptions of judges and strategies for `describe()` (jury-semantics §9.1).

use serde_json::{Map, Value, json};

use crate::judgment::{BuildError, Fault, Implementation, Judge, JudgeMetadata, check_portable};

/// Describes one judge: metadata, the wrapped judge's metadata, exclusion capability,
/// implementation identity and configuration. `expected_capability` is what the seat read at
/// construction; a different answer now is refused.
pub(crate) fn judge(
    judge: &dyn Judge,
    expected_capability: Option<&str>,
) -> Result<Value, BuildError> {
    let unreadable =
        |f: Fault| BuildError::argument(format!("judge metadata is unreadable: metadata() {f}"));
    let metadata = judge.metadata().map_err(unreadable)?;
    let capability = crate::judgment::not_applicable_capability(judge).map_err(unreadable)?;
    if capability.as_deref() != expected_capability {
        return Err(BuildError::argument(
            "exclusion capability changed after the jury was built",
        ));
    }
    let mut out = Map::new();
    out.insert("metadata".into(), metadata_value(metadata.as_ref()));
    if let Some(d) = judge.delegate() {
        let inner = d.metadata().map_err(unreadable)?;
        out.insert("delegateMetadata".into(), metadata_value(inner.as_ref()));
    }
    out.insert(
        "notApplicableWhen".into(),
        match capability {
            Some(v) => json!({"declared": true, "value": v}),
            None => json!({"declared": false}),
        },
    );
    out.insert(
        "implementation".into(),
        match judge.implementation() {
            Implementation::Named(c) => json!({"form": "NAMED", "className": c}),
            Implementation::Hidden => json!({"form": "HIDDEN"}),
            Implementation::Anonymous(c) => json!({"form": "ANONYMOUS", "enclosingClassName": c}),
        },
    );
    let configuration = match judge.configuration() {
        Some(values) => {
            let v = Value::Object(values);
            check_portable(&v, "configuration")?;
            json!({"declared": true, "values": v})
        }
        None => json!({"declared": false}),
    };
    out.insert("configuration".into(), configuration);
    Ok(Value::Object(out))
}

fn metadata_value(m: Option<&JudgeMetadata>) -> Value {
    match m {
        Some(m) => {
            json!({"declared": true, "values": {"name": m.name(), "type": m.judge_type().token()}})
        }
        None => json!({"declared": false}),
    }
}
