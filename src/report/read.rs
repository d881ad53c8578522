//! Reading a stored report of any version this judge-ci knows. `judge-ci.report.v2` is read
//! as written; a `judge-ci.report.v1` report (judges' findings in `metadata.findings`, no
//! causes) is brought to the v2 shape in memory, so `render`, `interpret`, `diagnose` and
//! `publish --from` work on both and every surface renders from typed findings alone.

use serde::Deserialize;
use thiserror::Error;

use super::model::{REPORT_SCHEMA, REPORT_SCHEMA_V1, Report};
use crate::judgment::{Cause, Judgment, ReasonCode, Status};

/// Why a text is not a report this judge-ci reads.
#[derive(Debug, Error)]
pub enum ReadError {
    /// Not JSON, or not a report's shape.
    #[error("{line}:{column}: not a judge-ci report: {source}")]
    Shape {
        /// Line of the problem, from 1.
        line: usize,
        /// Column of the problem, from 1.
        column: usize,
        /// What serde said.
        source: serde_json::Error,
    },
    /// A report of a schema this judge-ci does not know.
    #[error(
        "schema '{found}' is not one this judge-ci reads (valid: {REPORT_SCHEMA_V1}, {REPORT_SCHEMA})"
    )]
    Schema {
        /// The schema the report names.
        found: String,
    },
}

impl From<serde_json::Error> for ReadError {
    fn from(source: serde_json::Error) -> Self {
        ReadError::Shape {
            line: source.line(),
            column: source.column(),
            source,
        }
    }
}

impl ReadError {
    /// The message with the file it is about in front (`path:line:col: …`, `path: …`).
    pub fn at(&self, path: &std::path::Path) -> String {
        match self {
            ReadError::Shape { .. } => format!("{}:{self}", path.display()),
            ReadError::Schema { .. } => format!("{}: {self}", path.display()),
        }
    }
}

/// Just the schema token, read before the rest so a report of another version is refused by
/// name rather than by its first unknown field.
#[derive(Deserialize)]
struct Schema {
    schema: String,
}

/// Parses a stored report of either version, in the current (v2) shape.
pub fn parse(text: &str) -> Result<Report, ReadError> {
    let Schema { schema } = serde_json::from_str(text)?;
    match schema.as_str() {
        REPORT_SCHEMA => Ok(serde_json::from_str(text)?),
        REPORT_SCHEMA_V1 => {
            let mut r: Report = serde_json::from_str(text)?;
            upgrade_v1(&mut r);
            Ok(r)
        }
        _ => Err(ReadError::Schema { found: schema }),
    }
}

/// A v1 report in the v2 shape: judges' findings typed, the causes v1's judges stated, the
/// schema token the current one.
fn upgrade_v1(r: &mut Report) {
    r.verdict.each_judgment_mut(&mut |j| {
        let cause = v1_cause(j);
        j.upgrade_v1(cause)
    });
    r.schema = REPORT_SCHEMA.to_string();
}

/// The cause a v1 judge-ci judge stated at the start of its own ERROR reasoning, in the fixed
/// words v1 wrote for a limit it enforced, a disk it measured or Maven's own resolution error
/// (after those words comes what the tool said, which is never read). Nothing else in a v1
/// judgment is read for a cause.
fn v1_cause(j: &Judgment) -> Option<Cause> {
    if j.status() != Status::Error || j.reason_code() != Some(ReasonCode::JudgeReported) {
        return None;
    }
    let why = j.reasoning();
    const BUILD: &[(&str, Cause)] = &[
        ("the disk is full: judge-ci measured", Cause::DiskFull),
        (
            "the remote repository cannot be reached",
            Cause::NetworkUnreachable,
        ),
        ("a plugin could not be resolved", Cause::NetworkUnreachable),
        ("the network is unavailable", Cause::NetworkUnreachable),
        (
            "an artifact could not be downloaded",
            Cause::NetworkUnreachable,
        ),
        ("dependency resolution failed", Cause::DependencyUnresolved),
        (
            "the parent POM could not be resolved",
            Cause::DependencyUnresolved,
        ),
    ];
    if let Some(rest) = why.strip_prefix("the build could not run: ") {
        return BUILD
            .iter()
            .find(|(words, _)| rest.starts_with(words))
            .map(|(_, c)| *c);
    }
    // "`<the configured command>` did not finish within 5m; …" and the off-thread limit.
    let command_timeout = why.strip_prefix('`').and_then(|r| {
        let (_, after) = r.split_once('`')?;
        after.starts_with(" did not finish within ").then_some(())
    });
    (command_timeout.is_some() || why.starts_with("the check did not finish within "))
        .then_some(Cause::Timeout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_schema_is_refused_by_name_and_broken_json_with_its_place() {
        let e = parse(r#"{"schema": "judge-ci.report.v9", "whatever": 1}"#).unwrap_err();
        assert!(
            e.to_string().contains("'judge-ci.report.v9'")
                && e.to_string().contains(REPORT_SCHEMA_V1),
            "{e}"
        );
        let e = parse("{\n  \"schema\": ").unwrap_err();
        assert!(e.to_string().starts_with("2:"), "{e}");
    }

    #[test]
    fn v1_causes_come_only_from_the_fixed_words_v1_judges_began_with() {
        let e = |why: &str| Judgment::error(why).unwrap();
        assert_eq!(
            v1_cause(&e(
                "`sleep 5` did not finish within 1s; its process group was killed"
            )),
            Some(Cause::Timeout)
        );
        assert_eq!(
            v1_cause(&e(
                "the build could not run: a plugin could not be resolved (x) (`mvn`)"
            )),
            Some(Cause::NetworkUnreachable)
        );
        assert_eq!(
            v1_cause(&e("the build could not run: something else")),
            None
        );
        // Words further in (a tool's output, a compiler message) decide nothing.
        assert_eq!(
            v1_cause(&e(
                "`mvn` failed: Foo.java: No space left on device; did not finish within"
            )),
            None
        );
        assert_eq!(
            v1_cause(&Judgment::fail("`x` did not finish within 1s")),
            None
        );
    }

    /// The JSON Schema's token lists are the code's: a kind or cause added to one and not the
    /// other fails here.
    #[test]
    fn the_v2_json_schema_lists_every_finding_kind_and_cause() {
        use crate::judgment::{Cause, FindingKind};
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/report.v2.json");
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let tokens = |def: &str| -> Vec<String> {
            schema["$defs"][def]["enum"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        let kinds: Vec<String> = FindingKind::ALL.iter().map(|k| k.token().into()).collect();
        let causes: Vec<String> = Cause::ALL.iter().map(|c| c.token().into()).collect();
        assert_eq!(tokens("findingKind"), kinds);
        assert_eq!(tokens("cause"), causes);
        assert_eq!(schema["properties"]["schema"]["const"], REPORT_SCHEMA);
    }
}
