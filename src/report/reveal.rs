//! `reveal:` at the one boundary between a report and its surfaces (trust.md point 23). Every
//! surface the pull request's author can read (the comment, the check run and its
//! annotations, the job summary, JUnit, SARIF, HTML, and the report JSON, which workflows
//! upload) is rendered from a [`Revealed`] report, and a `Revealed` is only made here: by
//! [`Revealed::new`] from a freshly judged report, under the config's level and the run's
//! [`Vocabulary`], or by [`Revealed::stored`] from a report that was written earlier (its own
//! recorded level applied again, never a looser one). Renderers therefore never decide what
//! of the reference to show; they show what is left.
//!
//! What each level leaves (see [`Reveal`]):
//!
//! | | `full` | `names` | `none` |
//! |---|---|---|---|
//! | statuses, tiers, counts, gate | ✓ | ✓ | ✓ |
//! | findings: file, line, kind, the subject's text | ✓ | ✓ | counted only |
//! | findings' and diffs' `expected` (the reference's lines) | ✓ | — | — |
//! | free text (reasoning, messages, model answers, gap evidence, labels) | ✓ | reference-only words cut | reasoning withheld (instrument errors kept, cut) |
//! | the trusted tests' names | ✓ | ✓ | withheld |
//!
//! "Reference-only words" are the [`Vocabulary`]: words (identifiers and dotted names such as
//! `jakarta.servlet-api:5.0.0`) that the reference's files hold and the workspace's do not.
//! What the workspace already holds the author has; what only the reference holds is the
//! answer, wherever a judge or a model quoted it.

use std::collections::HashSet;
use std::ops::Deref;

use serde_json::{Map, Value};

pub use crate::config::Reveal;

use super::Report;

/// What cut text is replaced with.
pub const WITHHELD: &str = "[withheld]";

/// The words of the reference that the workspace does not hold: cut from every free-text field
/// of a report under `names` and `none`. Built from the two trees' file contents by the
/// pipeline (this module does no I/O).
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    reference: HashSet<String>,
    subject: HashSet<String>,
    /// The dotted names of the findings' `expected` values (the reference's side by
    /// definition), cut wherever free text quotes them whether the workspace holds them or
    /// not (attack finding S8-1: the gap analysis quoted a finding's message, `expected
    /// jakarta.servlet:jakarta.servlet-api:5.0.0`, which the vocabulary left because the
    /// workspace held each word).
    expected: HashSet<String>,
    /// Whether the reference could not be read whole (a file too large, a tree too big):
    /// words of what was not read are not cut.
    pub partial: bool,
}

/// The smallest word cut: shorter ones (`a`, `of`, version digits) say nothing on their own.
const MIN_WORD: usize = 3;

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn is_dotted_char(c: char) -> bool {
    is_word_char(c) || matches!(c, '.' | ':' | '-')
}

/// The dotted runs of `text` (`jakarta.servlet-api:5.0.0`), trimmed of edge punctuation.
fn dotted_runs(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (is_dotted_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let run = &text[s..i];
                let lead = run.len() - run.trim_start_matches(['.', ':', '-']).len();
                let run = run.trim_matches(['.', ':', '-']);
                if !run.is_empty() {
                    out.push((s + lead, run));
                }
                start = None;
            }
            _ => {}
        }
    }
    out.into_iter()
}

/// The words of a dotted run (`jakarta`, `servlet`, `api`), with their offsets in it.
fn words(run: &str) -> impl Iterator<Item = (usize, &str)> {
    run.split(|c: char| !is_word_char(c))
        .scan(0usize, |at, w| {
            let start = *at;
            *at += w.len() + 1;
            Some((start, w))
        })
        .filter(|(_, w)| w.chars().count() >= MIN_WORD)
}

fn is_compound(run: &str) -> bool {
    run.chars().count() >= MIN_WORD && run.contains(['.', ':', '-'])
}

impl Vocabulary {
    fn add(set: &mut HashSet<String>, text: &str) {
        for (_, run) in dotted_runs(text) {
            if is_compound(run) {
                set.insert(run.to_lowercase());
            }
            for (_, w) in words(run) {
                set.insert(w.to_lowercase());
            }
        }
    }

    /// Adds the text of one file of the reference.
    pub fn add_reference(&mut self, bytes: &[u8]) {
        Self::add(&mut self.reference, &String::from_utf8_lossy(bytes));
    }

    /// Adds the text of one file of the workspace (what the subject has already).
    pub fn add_subject(&mut self, bytes: &[u8]) {
        Self::add(&mut self.subject, &String::from_utf8_lossy(bytes));
    }

    fn secret(&self, word: &str) -> bool {
        let w = word.to_lowercase();
        self.reference.contains(&w) && !self.subject.contains(&w)
    }

    /// Adds a finding's `expected` value: its whole dotted names, and those of their
    /// `:`-separated parts that hold a digit (a version), are cut wherever they appear.
    pub fn add_expected(&mut self, text: &str) {
        for (_, run) in dotted_runs(text) {
            if is_compound(run) {
                self.expected.insert(run.to_lowercase());
            }
            for part in run.split(':') {
                if is_compound(part) && part.chars().any(|c| c.is_ascii_digit()) {
                    self.expected.insert(part.to_lowercase());
                }
            }
        }
    }

    /// How many words are cut (for the tests and the report's note).
    pub fn len(&self) -> usize {
        self.reference.difference(&self.subject).count()
    }

    /// Whether no word is cut.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `text` with every reference-only word (or dotted name) replaced by [`WITHHELD`].
    pub fn cut(&self, text: &str) -> String {
        if self.reference.is_empty() && self.expected.is_empty() {
            return text.to_string();
        }
        let quoted = |run: &str| self.expected.contains(&run.to_lowercase());
        // Spans to cut, in order, never overlapping.
        let mut cuts: Vec<(usize, usize)> = Vec::new();
        for (at, run) in dotted_runs(text) {
            if is_compound(run) && (self.secret(run) || quoted(run)) {
                cuts.push((at, at + run.len()));
                continue;
            }
            // A version part of a coordinate (`g:a:5.0.0`) that an expected value holds.
            let mut off = 0;
            let mut parts_cut = false;
            for part in run.split(':') {
                if is_compound(part) && quoted(part) {
                    cuts.push((at + off, at + off + part.len()));
                    parts_cut = true;
                }
                off += part.len() + 1;
            }
            if parts_cut {
                continue;
            }
            for (off, w) in words(run) {
                if self.secret(w) {
                    cuts.push((at + off, at + off + w.len()));
                }
            }
        }
        if cuts.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (s, e) in cuts {
            out.push_str(&text[last..s]);
            out.push_str(WITHHELD);
            last = e;
        }
        out.push_str(&text[last..]);
        out
    }
}

/// Why a report could not be revealed: its JSON form did not come back as a report (an
/// instrument failure: nothing is rendered rather than something unredacted).
#[derive(Debug, thiserror::Error)]
#[error("cannot apply `reveal: {level}` to the report: {source}")]
pub struct RevealError {
    level: Reveal,
    #[source]
    source: serde_json::Error,
}

/// A report as its surfaces may show it: what `reveal:` allows and nothing more. Only this
/// module makes one; every surface renders from one ([`super::render`]).
#[derive(Clone, Debug)]
pub struct Revealed(Report);

impl Deref for Revealed {
    type Target = Report;
    fn deref(&self) -> &Report {
        &self.0
    }
}

impl Revealed {
    /// `report` as `level` allows, its free text cut by `vocabulary`; the report records the
    /// level it was revealed at.
    pub fn new(
        report: Report,
        level: Reveal,
        vocabulary: &Vocabulary,
    ) -> Result<Revealed, RevealError> {
        if level == Reveal::Full {
            return Ok(Revealed(Report {
                reveal: level,
                ..report
            }));
        }
        let mut value =
            serde_json::to_value(&report).map_err(|source| RevealError { level, source })?;
        let mut vocabulary = vocabulary.clone();
        expected_values(&value, &mut vocabulary);
        redact(&mut value, level, &vocabulary);
        let mut report: Report =
            serde_json::from_value(value).map_err(|source| RevealError { level, source })?;
        report.reveal = level;
        Ok(Revealed(report))
    }

    /// A report written earlier (`publish --from`, `render`): its recorded level applied
    /// again, or `at_least` when that is stricter (a config may never loosen what a stored
    /// report withheld, and may withhold more). The words were cut when it was written.
    pub fn stored(report: Report, at_least: Option<Reveal>) -> Result<Revealed, RevealError> {
        let level = report.reveal.max(at_least.unwrap_or(Reveal::Full));
        Revealed::new(report, level, &Vocabulary::default())
    }

    /// Records the digests of the other surfaces (written last, into the JSON).
    pub fn set_surface_digests(&mut self, d: std::collections::BTreeMap<String, String>) {
        self.0.surface_digests = d;
    }

    /// Replaces the gate's outcome (judge-ci's own words, never the reference's): a run that
    /// failed on its outputs says so on every surface written after.
    pub fn set_outcome(&mut self, outcome: super::Outcome) {
        self.0.outcome = outcome;
    }

    /// The report, revealed.
    pub fn into_report(self) -> Report {
        self.0
    }
}

/// Adds every finding's `expected` value in `v` to `vocabulary` ([`Vocabulary::add_expected`]).
fn expected_values(v: &Value, vocabulary: &mut Vocabulary) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| expected_values(x, vocabulary)),
        Value::Object(o) => {
            if o.contains_key("kind")
                && let Some(Value::String(e)) = o.get("expected")
            {
                vocabulary.add_expected(e);
            }
            o.values().for_each(|x| expected_values(x, vocabulary));
        }
        _ => {}
    }
}

/// Free-text fields: cut by the vocabulary under `names` and `none`.
const FREE_TEXT: &[&str] = &[
    "reasoning",
    "message",
    "evidence",
    "rationale",
    "recommendations",
    "detail",
    "reason",
    "problem",
    "label",
    "actual",
    "note",
];

fn cut_strings(v: &mut Value, vocabulary: &Vocabulary) {
    match v {
        Value::String(s) => *s = vocabulary.cut(s),
        Value::Array(a) => a.iter_mut().for_each(|x| cut_strings(x, vocabulary)),
        Value::Object(o) => o.values_mut().for_each(|x| cut_strings(x, vocabulary)),
        _ => {}
    }
}

fn is_judgment(o: &Map<String, Value>) -> bool {
    o.contains_key("status") && o.contains_key("reasoning") && o.contains_key("checks")
}

fn redact(v: &mut Value, level: Reveal, vocabulary: &Vocabulary) {
    let Value::Object(top) = v else { return };
    for (key, field) in top.iter_mut() {
        match key.as_str() {
            // The trusted config (its author's, not the reference's) and judge-ci's own
            // bookkeeping: left alone.
            "config" | "tool" | "timings" | "schema" | "surfaceDigests" | "subject" => {}
            "diffs" => diffs(field, level, vocabulary),
            "tests" => {
                test_messages(field);
                if level == Reveal::None {
                    test_names(field);
                }
            }
            "trust" if level == Reveal::None => {
                restored_names(field);
                walk(field, level, vocabulary);
            }
            _ => walk(field, level, vocabulary),
        }
    }
}

/// Every finding-like object (`expected` beside a `kind`), every judgment, every free-text
/// field, wherever it lies.
fn walk(v: &mut Value, level: Reveal, vocabulary: &Vocabulary) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| walk(x, level, vocabulary)),
        Value::Object(o) => {
            if is_judgment(o) {
                judgment(o, level);
            }
            if o.contains_key("kind") {
                o.remove("expected");
            }
            for (k, x) in o.iter_mut() {
                if level == Reveal::None && k == "evidence" {
                    // The gap analysis's quote of a finding: findings are counted only.
                    *x = Value::String(WITHHELD.into());
                } else if level == Reveal::None && k == "recommendations" {
                    without_examples(x);
                } else if FREE_TEXT.contains(&k.as_str()) {
                    cut_strings(x, vocabulary);
                } else if k == "metadata" {
                    metadata(x, level, vocabulary);
                } else {
                    walk(x, level, vocabulary);
                }
            }
        }
        _ => {}
    }
}

/// The gap analysis's recommendations under `none`: their "(e.g. …)" quote of a finding cut.
fn without_examples(v: &mut Value) {
    let Value::Array(list) = v else { return };
    for r in list.iter_mut() {
        if let Value::String(s) = r
            && let Some(at) = s.find(" (e.g. ")
        {
            s.truncate(at);
        }
    }
}

/// A judgment's own fields under `none`: findings counted, reasoning withheld (but an
/// instrument error's), sub-check messages withheld.
fn judgment(o: &mut Map<String, Value>, level: Reveal) {
    if level != Reveal::None {
        return;
    }
    let findings = o
        .remove("findings")
        .and_then(|f| f.as_array().map(Vec::len))
        .unwrap_or(0);
    let error = o.get("status").and_then(Value::as_str) == Some("error");
    if !error {
        let status = o.get("status").and_then(Value::as_str).unwrap_or("?");
        o.insert(
            "reasoning".into(),
            Value::String(format!("{status}: {WITHHELD} (reveal: none)")),
        );
    }
    if let Some(Value::Array(checks)) = o.get_mut("checks") {
        for c in checks.iter_mut().filter_map(Value::as_object_mut) {
            c.insert("message".into(), Value::String(WITHHELD.into()));
        }
    }
    if findings > 0
        && let Some(Value::Object(m)) = o.get_mut("metadata")
    {
        m.insert("findingsWithheld".into(), Value::from(findings));
    }
}

/// Metadata: the jury's `aggregation` block is counts; everything else a judge put there is
/// cut like free text under `names`, and only numbers and booleans survive under `none`.
fn metadata(v: &mut Value, level: Reveal, vocabulary: &Vocabulary) {
    let Value::Object(m) = v else {
        return walk(v, level, vocabulary);
    };
    for (k, x) in m.iter_mut() {
        if k == "aggregation" {
            continue;
        }
        match level {
            Reveal::None if !(x.is_number() || x.is_boolean()) => {
                *x = Value::String(WITHHELD.into())
            }
            _ => cut_strings(x, vocabulary),
        }
    }
}

fn diffs(v: &mut Value, level: Reveal, vocabulary: &Vocabulary) {
    let Value::Object(sections) = v else { return };
    for entries in sections.values_mut() {
        let Value::Array(list) = entries else {
            continue;
        };
        if level == Reveal::None {
            list.clear();
            continue;
        }
        for e in list.iter_mut().filter_map(Value::as_object_mut) {
            e.remove("expected");
            if let Some(a) = e.get_mut("actual") {
                cut_strings(a, vocabulary);
            }
        }
    }
}

/// The trusted tests under `none`: their names withheld, their grades and counts kept.
/// Under `none`: the names of files restored from the reference (hidden tests among them)
/// are the reference's, counted only (attack finding NC17).
fn restored_names(v: &mut Value) {
    if let Some(Value::Array(names)) = v.get_mut("restored") {
        for n in names.iter_mut() {
            *n = Value::String(WITHHELD.into());
        }
    }
}

/// The trusted tests under `names` and `none`: what a run of each said when it failed is
/// withheld, its outcome kept. A trusted test's failure message is the hidden test's own
/// text (its expected value: `expected:<ANSWER> but was:<guess>`), and the reference run's
/// holds what the solution computes (attack finding OF1): no word list can cut either.
fn test_messages(v: &mut Value) {
    match v {
        Value::Array(a) => a.iter_mut().for_each(test_messages),
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                if k == "message" {
                    *x = Value::String(WITHHELD.into());
                } else {
                    test_messages(x);
                }
            }
        }
        _ => {}
    }
}

fn test_names(v: &mut Value) {
    let mut n = 0;
    let mut rename = |g: &mut Value| {
        if let Some(o) = g.as_object_mut() {
            n += 1;
            o.insert("name".into(), Value::String(format!("{WITHHELD} #{n}")));
        }
    };
    if let Value::Object(sets) = v {
        for list in sets.values_mut() {
            if let Value::Array(l) = list {
                l.iter_mut().for_each(&mut rename);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab(reference: &str, subject: &str) -> Vocabulary {
        let mut v = Vocabulary::default();
        v.add_reference(reference.as_bytes());
        v.add_subject(subject.as_bytes());
        v
    }

    #[test]
    fn words_only_the_reference_holds_are_cut_and_shared_ones_stay() {
        let v = vocab(
            "import jakarta.servlet.Filter;\n<version>5.0.0</version>",
            "import javax.servlet.Filter;\n<version>4.0.1</version>",
        );
        assert_eq!(
            v.cut(
                "the reference imports jakarta.servlet.Filter where you have javax.servlet.Filter"
            ),
            "the reference imports [withheld] where you have javax.servlet.Filter"
        );
        assert_eq!(
            v.cut("Jakarta is the new namespace"),
            "[withheld] is the new namespace"
        );
        assert_eq!(
            v.cut("use version 5.0.0, not 4.0.1"),
            "use version [withheld], not 4.0.1"
        );
        assert_eq!(v.cut("nothing secret here"), "nothing secret here");
    }

    /// S8-1: a finding's expected value is cut wherever free text quotes it, even where the
    /// workspace holds every word of it; the subject's own value stays.
    #[test]
    fn an_expected_value_is_cut_wherever_it_is_quoted() {
        let mut v = vocab("", "");
        v.add_expected("jakarta.servlet:jakarta.servlet-api:5.0.0 (provided)");
        assert_eq!(
            v.cut("dependency-missing: expected jakarta.servlet:jakarta.servlet-api:5.0.0 (provided), found nothing"),
            format!("dependency-missing: expected {WITHHELD} (provided), found nothing")
        );
        assert_eq!(
            v.cut("found jakarta.servlet:jakarta.servlet-api:5.0.1, the reference has 5.0.0"),
            format!(
                "found jakarta.servlet:jakarta.servlet-api:5.0.1, the reference has {WITHHELD}"
            )
        );
        assert_eq!(
            v.cut("g:a:5.0.0 in the workspace"),
            format!("g:a:{WITHHELD} in the workspace")
        );
    }

    #[test]
    fn an_empty_vocabulary_cuts_nothing() {
        let v = Vocabulary::default();
        assert_eq!(
            v.cut("import jakarta.servlet.Filter;"),
            "import jakarta.servlet.Filter;"
        );
        assert!(v.is_empty());
    }

    #[test]
    fn levels_are_ordered_from_the_loosest() {
        assert!(Reveal::Full < Reveal::Names && Reveal::Names < Reveal::None);
        assert_eq!(Reveal::default(), Reveal::Full);
    }

    #[test]
    fn restored_names_are_the_references_and_counted_only_under_none() {
        // Attack finding NC17: the restore banner named the hidden tests under reveal: none.
        let v = serde_json::json!({"trust": {"restored": ["src/test/HiddenAnswerTest.java"]}});
        let voc = Vocabulary::default();
        let mut names = v.clone();
        redact(&mut names, Reveal::Names, &voc);
        assert_eq!(names, v);
        let mut none = v;
        redact(&mut none, Reveal::None, &voc);
        assert_eq!(none["trust"]["restored"], serde_json::json!([WITHHELD]));
    }

    #[test]
    fn findings_lose_expected_under_names_and_are_counted_under_none() {
        let mut v = serde_json::json!({
            "verdict": {"aggregated": {"status": "fail", "reasoning": "jakarta missing", "checks": [{"name": "x", "passed": false, "message": "jakarta"}],
                "findings": [{"path": "A.java", "kind": "import-missing", "expected": "import jakarta.servlet.Filter;", "actual": "import javax.servlet.Filter;"}],
                "metadata": {"answer": "jakarta", "n": 3}}},
            "diffs": {"imports": [{"path": "A.java", "kind": "import-missing", "expected": "import jakarta.servlet.Filter;", "judge": "import-diff"}]},
            "tests": {"failToPass": [{"name": "RefTest#secret"}]}
        });
        let voc = vocab(
            "import jakarta.servlet.Filter;",
            "import javax.servlet.Filter;",
        );
        let mut names = v.clone();
        redact(&mut names, Reveal::Names, &voc);
        let text = names.to_string();
        assert!(!text.contains("jakarta"), "{text}");
        assert!(
            text.contains("import-missing")
                && text.contains("A.java")
                && text.contains("RefTest#secret")
        );
        redact(&mut v, Reveal::None, &voc);
        let text = v.to_string();
        assert!(
            !text.contains("jakarta") && !text.contains("A.java") && !text.contains("RefTest"),
            "{text}"
        );
        assert_eq!(
            v["verdict"]["aggregated"]["metadata"]["findingsWithheld"],
            1
        );
        assert_eq!(v["verdict"]["aggregated"]["metadata"]["n"], 3);
    }
}
