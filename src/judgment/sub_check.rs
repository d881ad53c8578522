//! A named sub-result inside a judgment (`{"name","passed","message"}`, a judgment's `checks`);
//! not a configured check, which is a judge (`config::CheckSpec`).

use serde::{Deserialize, Serialize};

use super::error::BuildError;

/// One named check a judge performed; the name is non-blank, the message may be empty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawCheck")]
pub struct Check {
    name: String,
    passed: bool,
    message: String,
}

#[derive(Deserialize)]
struct RawCheck {
    name: String,
    passed: bool,
    message: String,
}

impl TryFrom<RawCheck> for Check {
    type Error = BuildError;
    fn try_from(raw: RawCheck) -> Result<Self, Self::Error> {
        Check::new(raw.name, raw.passed, raw.message)
    }
}

impl Check {
    /// A check; refuses a blank name.
    pub fn new(
        name: impl Into<String>,
        passed: bool,
        message: impl Into<String>,
    ) -> Result<Self, BuildError> {
        let name = name.into();
        if name.trim().is_empty() {
            return Err(BuildError::argument("check name must be non-blank"));
        }
        Ok(Check {
            name,
            passed,
            message: message.into(),
        })
    }

    /// A passed check.
    pub fn passed(name: impl Into<String>, message: impl Into<String>) -> Result<Self, BuildError> {
        Check::new(name, true, message)
    }

    /// A failed check.
    pub fn failed(name: impl Into<String>, message: impl Into<String>) -> Result<Self, BuildError> {
        Check::new(name, false, message)
    }

    /// The check's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether it passed.
    pub fn is_passed(&self) -> bool {
        self.passed
    }

    /// What the judge said about it (may be empty).
    pub fn message(&self) -> &str {
        &self.message
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_name_is_refused_on_every_path() {
        assert!(
            matches!(Check::new("  ", true, ""), Err(BuildError::InvalidArgument(m)) if m.contains("check name must be non-blank"))
        );
        let wire =
            serde_json::from_str::<Check>(r#"{"name":"","passed":true,"message":""}"#).unwrap_err();
        assert!(
            wire.to_string().contains("check name must be non-blank"),
            "{wire}"
        );
        let c: Check =
            serde_json::from_str(r#"{"name":"file_exists","passed":false,"message":""}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"{"name":"file_exists","passed":false,"message":""}"#
        );
    }
}
