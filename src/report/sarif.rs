//! SARIF 2.1.0 for GitHub code scanning: every finding with a file becomes a result at a
//! repository-relative, percent-encoded location under `%SRCROOT%`, with a stable
//! `partialFingerprints` entry (so an alert keeps its identity when lines move) and a rule that
//! says what the finding means and what to do. The run's `automationDetails.id` is derived from
//! the config, so two configs uploaded for the same commit do not close each other's alerts.
//! Checked with Microsoft's SARIF Multitool (`validate --rule-kind Ghas --rule-kind Sarif`).

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::location::{encode, repository_path};
use super::model::Report;
use crate::judgment::FindingKind;

/// The key under `partialFingerprints` (versioned: a change of recipe must not match old alerts).
pub const FINGERPRINT_KEY: &str = "judgeCiFinding/v1";

/// One finding on its way to a result.
struct Found<'a> {
    rule: FindingKind,
    level: &'static str,
    judge: &'a str,
    text: String,
    path: String,
    line: Option<u64>,
    column: Option<u64>,
    identity: [&'a str; 2],
}

/// The subject of a `*-missing` / `*-unexpected` / `*-changed` kind, in words.
fn subject(kind: &str, suffix: &str) -> String {
    kind.strip_suffix(suffix).unwrap_or(kind).replace('-', " ")
}

/// "a" or "an" before `word`.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// What a rule means, in one line and in full, and what to do about it: the kinds with their
/// own words first, the rest by what their token says (`-missing`, `-unexpected`, …).
fn describe(kind: FindingKind) -> (String, String, String) {
    let fixed = |s: &str, f: &str, h: &str| (s.to_string(), f.to_string(), h.to_string());
    match kind {
        FindingKind::CompilerError => fixed(
            "The build reports a compiler error.",
            "The build judge ran the project's build on the pull request's code and the compiler reported an error at this place.",
            "Fix the compilation error shown in the message; the build judge fails until the project compiles.",
        ),
        FindingKind::PromptInjection => fixed(
            "Text in the pull request is addressed to the grader.",
            "A file of the pull request holds text written to instruct the model that grades it (to ignore its instructions, fake a prompt boundary or answer for it); the semantic judge reported it instead of obeying it.",
            "Remove the text addressed to the grader; code and comments should speak to people, not to the judge.",
        ),
        FindingKind::SyntaxError => fixed(
            "The source does not parse.",
            "The structural judge could not parse this source file (Java or Kotlin, by its extension), so its types and members could not be compared with the reference.",
            "Make the file valid in its language; the comparison runs once it parses.",
        ),
        FindingKind::NestingTooDeep => fixed(
            "The source nests deeper than the parser follows.",
            "The file nests expressions or blocks deeper than the structural judge's limit, so it was not compared.",
            "Flatten the deeply nested code.",
        ),
        FindingKind::FileUnreadable | FindingKind::PomUnreadable => fixed(
            "A file could not be read or parsed.",
            "A structural judge could not read or parse this file, so it could not compare it with the reference.",
            "Make the file readable and well-formed (a valid UTF-8 text file, or a well-formed POM).",
        ),
        FindingKind::ImportForbidden => fixed(
            "A forbidden import is used.",
            "The file imports a package or class that the configuration forbids (for example a javax.* API after a Jakarta migration).",
            "Replace the import with the allowed equivalent the reference uses.",
        ),
        FindingKind::ReferenceForbidden => fixed(
            "A forbidden API is named in full in the code.",
            "The code names a package or class that the configuration forbids by its fully qualified name, without importing it (for example javax.servlet.Filter after a Jakarta migration).",
            "Use the allowed equivalent the reference uses.",
        ),
        FindingKind::ImportRequired => fixed(
            "A required import is used nowhere.",
            "The configuration requires an import that no file of the change uses.",
            "Use the required API where the reference does.",
        ),
        other => by_token(other.token()),
    }
}

/// The words of a kind without its own, from what its token says.
fn by_token(kind: &str) -> (String, String, String) {
    match kind {
        k if k.ends_with("-differs") => (
            format!("The {} content differs from the reference.", subject(k, "-differs")),
            format!(
                "The file's {} content is not the same as the reference's after normalisation.",
                subject(k, "-differs")
            ),
            "Compare the file with the reference and bring it in line; the message shows the first differing lines.".to_string(),
        ),
        k if k.ends_with("-missing") => (
            format!(
                "{} {} of the reference is missing.",
                if article(&subject(k, "-missing")) == "an" {
                    "An"
                } else {
                    "A"
                },
                subject(k, "-missing")
            ),
            format!(
                "The reference has {} {} at this place that the pull request's code lacks.",
                article(&subject(k, "-missing")),
                subject(k, "-missing")
            ),
            format!(
                "Add the {} the reference has (the message names it).",
                subject(k, "-missing")
            ),
        ),
        k if k.ends_with("-unexpected") => (
            format!("An unexpected {} is present.", subject(k, "-unexpected")),
            format!(
                "The pull request's code has {} {} that the reference does not have.",
                article(&subject(k, "-unexpected")),
                subject(k, "-unexpected")
            ),
            format!(
                "Remove the {} or justify it; the reference does without it.",
                subject(k, "-unexpected")
            ),
        ),
        k if k.ends_with("-changed") => (
            format!("The {} differs from the reference.", subject(k, "-changed")),
            format!(
                "The {} here is not the one the reference has.",
                subject(k, "-changed")
            ),
            format!(
                "Change the {} to what the reference has (the message shows both).",
                subject(k, "-changed")
            ),
        ),
        k => (
            format!("A structural difference: {}.", k.replace('-', " ")),
            format!(
                "A structural judge found a difference of kind '{k}' between the pull request's code and the reference."
            ),
            "Compare this place with the reference and bring it in line.".to_string(),
        ),
    }
}

/// A rule's PascalCase name (`import-missing` → `ImportMissing`).
fn rule_name(kind: &str) -> String {
    kind.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn rule(kind: FindingKind, level: &str) -> Value {
    let (short, full, help) = describe(kind);
    json!({
        "id": kind.token(),
        "name": rule_name(kind.token()),
        "shortDescription": {"text": short},
        "fullDescription": {"text": full},
        "help": {"text": help, "markdown": help},
        "helpUri": format!("{}#reports", env!("CARGO_PKG_REPOSITORY")),
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["judge-ci", "reference-comparison"]},
    })
}

/// The run's automation id, `judge-ci/<config>/`: the config's path (or name) reduced to
/// characters GitHub keeps in a category.
pub fn automation_id(r: &Report) -> String {
    let source = if r.config.path.is_empty() {
        &r.config.name
    } else {
        &r.config.path
    };
    let file = std::path::Path::new(source)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or(source);
    let key: String = format!("{}-{file}", r.config.sticky_key())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("judge-ci/{}/", key.trim_matches('-'))
}

/// A stable identity for a finding: config, judge, rule, path and what it is about (never the
/// line, so an alert survives code moving above it).
fn fingerprint(automation: &str, f: &Found) -> String {
    let mut h = Sha256::new();
    for part in [
        automation,
        f.judge,
        f.rule.token(),
        f.path.as_str(),
        f.identity[0],
        f.identity[1],
    ] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    hex::encode(h.finalize())
}

/// Ends a message with a period, as SARIF's guidance asks.
fn sentence(mut s: String) -> String {
    let t = s.trim_end().len();
    s.truncate(t);
    if !s.ends_with('.') {
        s.push('.');
    }
    s
}

fn result(f: &Found, fingerprint: String) -> Value {
    let mut region = Map::new();
    region.insert("startLine".into(), f.line.unwrap_or(1).max(1).into());
    if let Some(c) = f.column {
        region.insert("startColumn".into(), c.max(1).into());
    }
    json!({
        "ruleId": f.rule.token(),
        "level": f.level,
        "message": {"text": sentence(f.text.clone())},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": encode(&f.path), "uriBaseId": "%SRCROOT%"},
            "region": Value::Object(region),
        }}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    })
}

/// Renders the report's findings as a SARIF 2.1.0 log.
pub fn sarif(r: &Report) -> Value {
    let prefix = r.subject.path_in_repository.as_deref();
    let mut found: Vec<Found> = Vec::new();
    // Compiler errors and text addressed to the grader come from the judgments' own typed
    // findings; structural differences from the report's diff sections (a file name has no
    // line: line 1).
    for (name, f) in super::findings::evidence(r) {
        let Some(path) = repository_path(prefix, &f.path) else {
            continue;
        };
        let message = f.message.as_deref().unwrap_or("");
        found.push(Found {
            rule: f.kind,
            level: "error",
            judge: name,
            text: format!("{name}: {message}"),
            path,
            line: f.line.map(u64::from),
            column: f.column.map(u64::from),
            identity: [message, f.rule.as_deref().unwrap_or("")],
        });
    }
    for d in r
        .diffs
        .imports
        .iter()
        .chain(&r.diffs.ast)
        .chain(&r.diffs.pom)
        .chain(&r.diffs.files)
    {
        let Some(path) = repository_path(prefix, &d.path) else {
            continue;
        };
        let mut text = format!("{}: {}", d.judge, d.kind);
        if let Some(a) = &d.actual {
            text.push_str(&format!("; workspace: {a}"));
        }
        if let Some(e) = &d.expected {
            text.push_str(&format!("; reference: {e}"));
        }
        if d.line.is_none() {
            text.push_str(" (about the whole file)");
        }
        let level = if d.kind.is_blocking() {
            "error"
        } else {
            "warning"
        };
        found.push(Found {
            rule: d.kind,
            level,
            judge: &d.judge,
            text,
            path,
            line: d.line,
            column: None,
            identity: [
                d.expected.as_deref().unwrap_or(""),
                d.actual.as_deref().unwrap_or(""),
            ],
        });
    }
    let automation = automation_id(r);
    let mut rules: Vec<(FindingKind, &str)> = Vec::new();
    for f in &found {
        if !rules.iter().any(|(id, _)| *id == f.rule) {
            rules.push((f.rule, f.level));
        }
    }
    rules.sort_unstable();
    // The same finding twice in a file (an import missing in two places) is told apart by
    // its occurrence, never by its line.
    let mut seen: Vec<String> = Vec::new();
    let results: Vec<Value> = found
        .iter()
        .map(|f| {
            let base = fingerprint(&automation, f);
            let n = seen.iter().filter(|s| **s == base).count();
            seen.push(base.clone());
            result(
                f,
                if n == 0 {
                    base
                } else {
                    format!("{base}:{}", n + 1)
                },
            )
        })
        .collect();
    // A semantic judgment decided (or left undecided) by repeated answers has no place in a
    // file, so its counts travel in the run's property bag.
    let samples: Vec<Value> = r
        .tiers
        .iter()
        .flat_map(|t| &t.judges)
        .filter_map(|j| {
            j.samples.as_ref().map(|s| {
                json!({"judge": j.name, "status": j.status, "asked": s.asked, "answered": s.answered,
                       "counts": s.counts, "decided": s.decided, "summary": s.spoken()})
            })
        })
        .collect();
    let mut run = json!({
        "tool": {"driver": {
            "name": "judge-ci",
            "version": r.tool.version,
            "semanticVersion": r.tool.version,
            "informationUri": env!("CARGO_PKG_REPOSITORY"),
            "rules": rules.iter().map(|(id, level)| rule(*id, level)).collect::<Vec<_>>(),
        }},
        "automationDetails": {"id": automation},
        "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The root of the repository the pull request belongs to."}}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    if !samples.is_empty() {
        run["properties"] = json!({"judgeCiSamples": samples});
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_gets_a_full_description_and_help() {
        for k in FindingKind::ALL {
            let (s, f, h) = describe(*k);
            assert!(
                s.ends_with('.') && f.ends_with('.') && h.ends_with('.'),
                "{k}"
            );
            assert!(!f.is_empty() && !h.is_empty());
        }
        assert!(by_token("something-new").0.ends_with('.'));
        assert_eq!(rule_name("return-type-changed"), "ReturnTypeChanged");
        assert!(
            describe(FindingKind::AnnotationMissing)
                .0
                .starts_with("An annotation")
        );
        assert!(
            describe(FindingKind::ImportMissing)
                .1
                .contains("has an import")
        );
        assert_eq!(sentence("x ".into()), "x.");
    }
}
