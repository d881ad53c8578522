//! Portable metadata: the JSON values a judgment may carry, checked recursively.

use serde_json::{Map, Value};

use super::error::BuildError;

/// The largest integer every JSON reader represents exactly (2^53 − 1).
pub const MAX_PORTABLE_INT: i64 = 9_007_199_254_740_991;

/// An ordered string-keyed map of portable JSON values.
pub type Metadata = Map<String, Value>;

/// Refuses any value that is not portable: integers beyond ±(2^53 − 1) and non-finite numbers,
/// naming the offending path (`metadata.counts[2]`).
pub fn check_portable(value: &Value, path: &str) -> Result<(), BuildError> {
    match value {
        Value::Null => Err(BuildError::argument(format!(
            "{path} is null; portable metadata has no null values"
        ))),
        Value::Bool(_) | Value::String(_) => Ok(()),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                if !(-MAX_PORTABLE_INT..=MAX_PORTABLE_INT).contains(&i) {
                    return Err(BuildError::argument(format!(
                        "{path} = {i} is outside the portable integer range ±{MAX_PORTABLE_INT}"
                    )));
                }
                Ok(())
            } else if n.as_u64().is_some() {
                Err(BuildError::argument(format!(
                    "{path} = {n} is outside the portable integer range ±{MAX_PORTABLE_INT}"
                )))
            } else if n.as_f64().is_some_and(f64::is_finite) {
                Ok(())
            } else {
                Err(BuildError::argument(format!(
                    "{path} is not a finite number"
                )))
            }
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, v)| check_portable(v, &format!("{path}[{i}]"))),
        Value::Object(map) => map
            .iter()
            .try_for_each(|(k, v)| check_portable(v, &format!("{path}.{k}"))),
    }
}

/// Checks every value of a metadata map.
pub fn check_metadata(map: &Metadata) -> Result<(), BuildError> {
    map.iter()
        .try_for_each(|(k, v)| check_portable(v, &format!("metadata.{k}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_beyond_2_pow_53_are_refused_with_their_path() {
        let err = check_portable(&json!({"a": [1, 9007199254740992i64]}), "metadata").unwrap_err();
        assert!(err.message().contains("metadata.a[1]"), "{err}");
        assert!(
            matches!(check_portable(&json!(u64::MAX), "m"), Err(BuildError::InvalidArgument(m)) if m.contains("outside the portable integer range"))
        );
        assert!(check_portable(&json!(-9007199254740991i64), "m").is_ok());
        assert!(
            matches!(check_portable(&json!(null), "m"), Err(BuildError::InvalidArgument(m)) if m.contains("m is null"))
        );
        assert!(check_portable(&json!({"x": 1.5, "y": "s", "z": [true]}), "m").is_ok());
    }
}
