//! The built-in rule table: each rule has an id, what it matches, the category it assigns (some
//! choose between categories by the plan and knowledge inputs), a rationale and a confidence.
//! First match wins; user rules run before these, the default rule after.
//!
//! The first rule reads the typed cause a judge set from judge-ci's own knowledge. Text rules
//! come after it and never decide an Environment or Tool gap from text the subject controls
//! (its test output, file contents, names in compiler messages): the only text rule that
//! decides Environment reads an external judge's own reasoning, and the only one that decides
//! Tool reads the agent's journal.

use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::checks::CheckType;
use crate::judgment::{Check, FindingKind, GapCategory, Judgment, Status};

use super::inputs::Inputs;

/// How far a finding can be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// A rule on facts.
    Deterministic,
    /// A pattern that can mislead.
    Heuristic,
}

/// One thing to classify: a non-passing judgment, or a failed check inside a judgment.
pub struct Item<'a> {
    /// The tier (or member) it ran in.
    pub tier: &'a str,
    /// The seat name.
    pub judge: &'a str,
    /// The check type.
    pub judge_type: &'a str,
    /// The judgment.
    pub judgment: &'a Judgment,
    /// The failed check, when the item is one.
    pub check: Option<&'a Check>,
    /// Everything the judgment says, as text: reasoning, checks, metadata values (which hold
    /// what the subject printed). For user rules and rules that never decide Environment or
    /// Tool.
    pub text: String,
}

impl Item<'_> {
    /// The check type, when the seat's type is one judge-ci knows (a stored report may name
    /// one this version does not).
    pub fn check_type(&self) -> Option<CheckType> {
        self.judge_type.parse().ok()
    }

    /// What the judge itself said: the reasoning and the checks' messages, without metadata.
    pub fn said(&self) -> String {
        let mut t = format!("{}\n", self.judgment.reasoning());
        for c in self.judgment.checks() {
            t.push_str(&format!("{}: {}\n", c.name(), c.message()));
        }
        t
    }
}

impl Item<'_> {
    /// The status the item stands for (a failed check counts as FAIL).
    pub fn status(&self) -> Status {
        match self.check {
            Some(_) => Status::Fail,
            None => self.judgment.status(),
        }
    }
}

/// What a rule says about an item.
pub struct Hit {
    /// The category.
    pub category: GapCategory,
    /// Why.
    pub rationale: String,
    /// The exact line or finding that triggered the rule.
    pub evidence: String,
}

/// A built-in rule.
pub struct Rule {
    /// Its id in findings.
    pub id: &'static str,
    /// What it matches, for documentation.
    pub matches: &'static str,
    /// Its confidence.
    pub confidence: Confidence,
    /// The test.
    pub test: fn(&Item<'_>, &Inputs) -> Option<Hit>,
}

/// The built-in rules, in order.
pub static BUILTIN: &[Rule] = &[
    Rule {
        id: "cause",
        matches: "the typed cause an ERROR or ABSTAIN carries, set by the judge from judge-ci's own knowledge (a time limit it enforced, a spawn error, its own disk measurement or errno, Maven's own resolution error, the provider's HTTP status): Environment, Tool, Evaluation or Analysis by the cause",
        confidence: Confidence::Deterministic,
        test: cause,
    },
    Rule {
        id: "external-judge-fault",
        matches: "an external judge's ERROR whose own reasoning names a timeout, signal 9/15, full disk, out of memory, network or resolution failure, or provider 5xx/429: Evaluation, never Environment, since that text can quote what the subject printed (trust.md point 12); only a typed cause decides Environment",
        confidence: Confidence::Heuristic,
        test: environment,
    },
    Rule {
        id: "instrument",
        matches: "an ERROR from the jury's machinery or from a judge's own configuration (path escape, missing metadata or API key, unparseable model reply, undeclared NOT_APPLICABLE)",
        confidence: Confidence::Deterministic,
        test: instrument,
    },
    Rule {
        id: "missing-evidence",
        matches: "ABSTAIN for evidence the run should have produced (classes, Surefire or JaCoCo reports, a baseline)",
        confidence: Confidence::Deterministic,
        test: missing_evidence,
    },
    Rule {
        id: "namespace",
        matches: "a package the reference has under another name, a forbidden import still present, or a JDK module removed after Java 8 (Planning or Execution by the plan, Analysis when the analysis file misses it, Knowledge by the knowledge folder)",
        confidence: Confidence::Heuristic,
        test: namespace,
    },
    Rule {
        id: "build-file",
        matches: "pom-diff: a dependency, parent or plugin not changed to the reference's",
        confidence: Confidence::Deterministic,
        test: build_file,
    },
    Rule {
        id: "execution",
        matches: "class-version FAIL, other AST and import differences, a failing build or command",
        confidence: Confidence::Deterministic,
        test: execution,
    },
    Rule {
        id: "repeated-tool-error",
        matches: "the journal shows the same tool error (first 80 characters) two or more times",
        confidence: Confidence::Deterministic,
        test: repeated_tool_error,
    },
    Rule {
        id: "semantic-criterion",
        matches: "a semantic criterion the instruction does not ask for, or an instruction reported ambiguous (Prompt); a criterion about compiling, building or testing (Evaluation)",
        confidence: Confidence::Heuristic,
        test: semantic_criterion,
    },
];

/// The built-in rules' patterns. Each is compiled once, on first use; the unit test
/// `every_builtin_pattern_compiles` compiles all of them, so none can fail at run time (before,
/// a broken one silently became a pattern that never matches).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pattern {
    /// An external judge's own words for a fault outside the subject (time, disk, memory, network, repositories).
    ExternalFault,
    /// A judge that says its own configuration is wrong.
    JudgeMisconfigured,
    /// An ABSTAIN for want of the judge's own configuration.
    JudgeUnconfigured,
    /// A judge that says the evidence it reads was not produced.
    EvidenceMissing,
    /// A compiler error naming a missing `javax`, `jakarta` or `java` package.
    MissingPackage,
    /// Text naming a missing `javax` or `jakarta` package.
    MissingJakartaOrJavaxPackage,
    /// A plan step about the build file.
    BuildFileStep,
    /// A model reporting the instruction ambiguous.
    Ambiguous,
    /// A criterion about compiling, building or testing.
    BuildCriterion,
}

impl Pattern {
    /// Every pattern, in declaration order.
    const ALL: [Pattern; 9] = [
        Pattern::ExternalFault,
        Pattern::JudgeMisconfigured,
        Pattern::JudgeUnconfigured,
        Pattern::EvidenceMissing,
        Pattern::MissingPackage,
        Pattern::MissingJakartaOrJavaxPackage,
        Pattern::BuildFileStep,
        Pattern::Ambiguous,
        Pattern::BuildCriterion,
    ];

    /// The pattern's source.
    fn source(self) -> &'static str {
        match self {
            Pattern::ExternalFault => {
                r"(?i)(did not finish within|did not answer within|no answer within|timed? ?out\b|terminated by signal (9|15)\b|exited with 13[7]|exited with 143|no space left on device|OutOfMemoryError|out of memory|connection (refused|reset)|unknown ?host|could not resolve (dependencies|host)|could not transfer artifact|answered (HTTP )?(5\d\d|429)\b|could not be reached)"
            }
            Pattern::JudgeMisconfigured => {
                r"(?i)(escapes the workspace|targetClassVersion|no target class version|API key|did not fit the requested JSON shape|not declared|undeclared|refused|prompt template|is not set|check type)"
            }
            Pattern::JudgeUnconfigured => r"(?i)(no target class version|targetClassVersion)",
            Pattern::EvidenceMissing => {
                r"(?i)(holds no class files|was the project compiled|classes does not exist|surefire-reports|jacoco\.xml|coverage report|no baseline|no JaCoCo|no Surefire|no criteria to verify)"
            }
            Pattern::MissingPackage => {
                r"package ((?:javax|jakarta|java)\.[a-z0-9_.]+) does not exist"
            }
            Pattern::MissingJakartaOrJavaxPackage => {
                r"package ((?:javax|jakarta)\.[a-z0-9_.]+) does not exist"
            }
            Pattern::BuildFileStep => {
                r"(?i)(pom\.xml|pom\b|build\.gradle|dependenc|maven|gradle|parent)"
            }
            Pattern::Ambiguous => r"(?i)\b(ambiguous|unclear|underspecified|contradictory)\b",
            Pattern::BuildCriterion => {
                r"(?i)\b(compil\w*|build\w*|tests? pass\w*|test suite|unit tests?)\b"
            }
        }
    }

    /// The compiled pattern.
    fn regex(self) -> &'static Regex {
        static CELLS: [OnceLock<Regex>; Pattern::ALL.len()] =
            [const { OnceLock::new() }; Pattern::ALL.len()];
        CELLS[self as usize].get_or_init(|| {
            // A proven invariant: `every_builtin_pattern_compiles` compiles each source.
            Regex::new(self.source()).expect("a built-in pattern compiles (tested)")
        })
    }
}

/// The line of `text` holding the match of `r`, trimmed and bounded.
fn line_of(text: &str, r: &Regex) -> Option<String> {
    let m = r.find(text)?;
    let start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
    let end = text[m.end()..]
        .find('\n')
        .map_or(text.len(), |i| m.end() + i);
    Some(text[start..end].trim().chars().take(300).collect())
}

fn cause(item: &Item<'_>, _: &Inputs) -> Option<Hit> {
    let c = item.judgment.cause()?;
    let reasoning: String = item.judgment.reasoning().chars().take(300).collect();
    Some(Hit {
        category: c.gap(),
        rationale: format!("{} (cause {c}, set by the judge)", c.meaning()),
        evidence: format!("cause {c}: {reasoning}"),
    })
}

/// An external judge's own ERROR reasoning that names an external fault: free text judge-ci
/// did not produce, and which can quote what the subject printed (a test that echoes "No
/// space left on device" and exits 137; attack finding NC5-8), so it never decides an
/// Environment gap (trust.md point 12, diagnostics rule 1). It is the judge's report of a
/// fault: Evaluation, with the runner named as one possibility. judge-ci's judges set a typed
/// cause instead, and their text and metadata are never read here.
fn environment(item: &Item<'_>, _: &Inputs) -> Option<Hit> {
    if item.check_type() != Some(CheckType::External) || item.status() != Status::Error {
        return None;
    }
    let r = Pattern::ExternalFault.regex();
    let evidence = line_of(item.judgment.reasoning(), r)?;
    Some(Hit {
        category: GapCategory::Evaluation,
        rationale: "the external judge reports a fault in its own words, which can quote the subject's output, so judge-ci does not take it as the runner's: read its reasoning (the runner, or the subject's code, may have failed); a judge that knows the fault is external should say so with a typed cause".into(),
        evidence,
    })
}

fn instrument(item: &Item<'_>, _: &Inputs) -> Option<Hit> {
    let r = match item.status() {
        Status::Error | Status::NotApplicable => Pattern::JudgeMisconfigured.regex(),
        // An ABSTAIN for want of the judge's own configuration (not of the run's evidence).
        Status::Abstain => Pattern::JudgeUnconfigured.regex(),
        _ => return None,
    };
    if let Some(code) = item.judgment.reason_code()
        && code.is_machinery()
    {
        return Some(Hit {
            category: GapCategory::Evaluation,
            rationale: format!(
                "the jury's machinery failed ({}): the judges or the config need repair, not the subject",
                code.token()
            ),
            evidence: item.judgment.reasoning().chars().take(300).collect(),
        });
    }
    let evidence = line_of(&item.said(), r)?;
    Some(Hit {
        category: GapCategory::Evaluation,
        rationale: "the judge could not run for reasons of its own configuration: repair the judge or its settings".into(),
        evidence,
    })
}

fn missing_evidence(item: &Item<'_>, _: &Inputs) -> Option<Hit> {
    if !matches!(item.status(), Status::Abstain | Status::Error) {
        return None;
    }
    let r = Pattern::EvidenceMissing.regex();
    let evidence = line_of(&item.said(), r)?;
    Some(Hit {
        category: GapCategory::Analysis,
        rationale: "the evidence this judge needs was not produced: make the run (or the pre-analysis) produce it".into(),
        evidence,
    })
}

/// Removed-after-Java-8 JDK modules.
const REMOVED_MODULES: &[&str] = &[
    "javax.xml.bind",
    "javax.annotation",
    "javax.activation",
    "javax.xml.ws",
];

/// The namespace (first two segments) of a dotted name.
fn namespace_of(name: &str) -> String {
    let name = name
        .trim_start_matches("import ")
        .trim_end_matches(';')
        .trim();
    let name = name.strip_prefix("static ").unwrap_or(name);
    name.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// Finds a renamed or forbidden namespace in an item: (namespace, evidence).
fn renamed_namespace(item: &Item<'_>) -> Option<(String, String)> {
    for f in item.judgment.findings() {
        let at = format!(
            "{}{}",
            f.path,
            f.line.map(|l| format!(":{l}")).unwrap_or_default()
        );
        match f.kind {
            FindingKind::ImportForbidden => {
                let actual = f.actual.as_deref().unwrap_or_default();
                return Some((
                    namespace_of(actual),
                    format!("forbidden import still present: {actual} at {at}"),
                ));
            }
            FindingKind::ReferenceForbidden => {
                let actual = f.actual.as_deref().unwrap_or_default();
                return Some((
                    namespace_of(actual),
                    format!("forbidden API still named in full: {actual} at {at}"),
                ));
            }
            FindingKind::CompilerError => {
                let r = Pattern::MissingPackage.regex();
                let msg = f.message.as_deref().unwrap_or_default();
                if let Some(c) = r.captures(msg) {
                    return Some((namespace_of(&c[1]), format!("{msg} at {at}")));
                }
            }
            _ => {}
        }
    }
    let r = Pattern::MissingJakartaOrJavaxPackage.regex();
    let c = r.captures(&item.text)?;
    let evidence = line_of(&item.text, r)?;
    Some((namespace_of(&c[1]), evidence))
}

/// The mark on a category the plan decided: the plan is the subject's own text (trust.md
/// point 26; attack finding NC12), so what it decides is set by the subject.
const SUBJECT_PLAN: &str = "(the plan is the subject's own text, set by the subject)";

fn namespace(item: &Item<'_>, inputs: &Inputs) -> Option<Hit> {
    let (ns, evidence) = renamed_namespace(item)?;
    let removed = REMOVED_MODULES
        .iter()
        .any(|m| ns.starts_with(m) || m.starts_with(&ns));
    let what = if removed {
        format!("{ns} left the JDK after Java 8 and needs a dependency")
    } else {
        format!("{ns} is still used where the reference has moved on")
    };
    let (category, rationale) = match (&inputs.plan, &inputs.knowledge) {
        (Some(plan), _) if !plan.contains(&ns) => (
            GapCategory::Planning,
            format!(
                "{what}; the plan never mentions {ns}, so the step was not planned {SUBJECT_PLAN}"
            ),
        ),
        (Some(_), _) => (
            GapCategory::Execution,
            format!(
                "{what}; the plan mentions {ns}, so the step was planned but not carried out {SUBJECT_PLAN}"
            ),
        ),
        (None, _)
            if inputs
                .analysis
                .as_ref()
                .is_some_and(|a| !a.to_string().contains(&ns)) =>
        {
            (
                GapCategory::Analysis,
                format!(
                    "{what}; the pre-analysis lists no pattern for {ns}, so nothing downstream knew to look for it"
                ),
            )
        }
        (None, Some(files)) if !files.iter().any(|(_, t)| t.contains(&ns)) => (
            GapCategory::Knowledge,
            format!("{what}; no knowledge-base file mentions {ns}: add an entry for it"),
        ),
        (None, Some(files)) => {
            let name = files
                .iter()
                .find(|(_, t)| t.contains(&ns))
                .map(|(n, _)| n.as_str())
                .unwrap_or_default();
            (
                GapCategory::Execution,
                format!(
                    "{what}; the knowledge base covers it ({name}), so the agent did not apply it"
                ),
            )
        }
        (None, None) => (
            GapCategory::Knowledge,
            format!(
                "{what}; most likely the agent did not know the mapping (a plan or a knowledge folder under diagnostics: would tell Planning, Execution and Knowledge apart)"
            ),
        ),
    };
    Some(Hit {
        category,
        rationale,
        evidence,
    })
}

fn build_file(item: &Item<'_>, inputs: &Inputs) -> Option<Hit> {
    if item.check_type() != Some(CheckType::PomDiff) || item.status() != Status::Fail {
        return None;
    }
    let f = item.judgment.findings().iter().find(|f| {
        matches!(
            f.kind,
            FindingKind::DependencyMissing
                | FindingKind::DependencyVersionChanged
                | FindingKind::DependencyScopeChanged
                | FindingKind::DependencyUnexpected
                | FindingKind::ParentChanged
                | FindingKind::PluginMissing
                | FindingKind::PluginVersionChanged
                | FindingKind::PluginConfigurationChanged
                | FindingKind::PluginUnexpected
                | FindingKind::BuildSettingChanged
        )
    })?;
    let evidence = format!(
        "{}: expected {}, found {}",
        f.kind,
        f.expected.as_deref().unwrap_or("nothing"),
        f.actual.as_deref().unwrap_or("nothing"),
    );
    let build_step = Pattern::BuildFileStep.regex();
    let (category, rationale) = match &inputs.plan {
        Some(p) if !build_step.is_match(p) => (
            GapCategory::Planning,
            "the build file differs from the reference and the plan has no build-file step"
                .to_string(),
        ),
        _ => (
            GapCategory::Execution,
            "the build file was not brought to the reference's dependencies, parent or plugins"
                .to_string(),
        ),
    };
    Some(Hit {
        category,
        rationale,
        evidence,
    })
}

fn execution(item: &Item<'_>, _: &Inputs) -> Option<Hit> {
    if item.status() != Status::Fail {
        return None;
    }
    if !item.check_type().is_some_and(reports_the_change) {
        return None;
    }
    let evidence = match item.check {
        Some(c) => format!("{}: {}", c.name(), c.message()),
        None => item.judgment.reasoning().chars().take(300).collect(),
    };
    Some(Hit {
        category: GapCategory::Execution,
        rationale: format!(
            "{} found the change incomplete or wrong: the agent did the step badly",
            item.judge_type
        ),
        evidence,
    })
}

fn repeated_tool_error(_: &Item<'_>, inputs: &Inputs) -> Option<Hit> {
    let journal = inputs.journal.as_ref()?;
    let mut counts: std::collections::BTreeMap<(String, String), usize> = Default::default();
    for e in journal {
        let err = e
            .get("error")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty());
        if let Some(err) = err {
            let tool = e
                .get("tool")
                .and_then(Value::as_str)
                .unwrap_or("a tool")
                .to_string();
            *counts
                .entry((tool, err.chars().take(80).collect()))
                .or_default() += 1;
        }
    }
    let ((tool, err), n) = counts.into_iter().max_by_key(|(_, n)| *n)?;
    (n >= 2).then(|| Hit {
        category: GapCategory::Tool,
        rationale: format!(
            "the agent's tool {tool} failed the same way {n} times: fix or build the tool"
        ),
        evidence: format!("{tool}: {err} (×{n})"),
    })
}

/// Lower-case words of four or more letters.
fn terms(s: &str) -> std::collections::BTreeSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 4)
        .map(str::to_lowercase)
        .collect()
}

/// Check types whose FAIL says the change is incomplete or wrong (the `execution` rule).
fn reports_the_change(t: CheckType) -> bool {
    t.facts().fail_reports_the_change
}

/// Check types that ask a model (the `semantic-criterion` rule).
fn asks_a_model(t: CheckType) -> bool {
    t.asks_model()
}

fn semantic_criterion(item: &Item<'_>, inputs: &Inputs) -> Option<Hit> {
    if !item.check_type().is_some_and(asks_a_model) {
        return None;
    }
    let amb = Pattern::Ambiguous.regex();
    if let Some(evidence) = line_of(item.judgment.reasoning(), amb) {
        return Some(Hit {
            category: GapCategory::Prompt,
            rationale:
                "the model judge reports the instruction as unclear: rewrite the task instruction"
                    .into(),
            evidence,
        });
    }
    let criterion = item.check?.name();
    let build = Pattern::BuildCriterion.regex();
    if build.is_match(criterion) {
        return Some(Hit {
            category: GapCategory::Evaluation,
            rationale: "a model was asked about compiling, building or testing, which deterministic judges settle: move the criterion to a build or test check".into(),
            evidence: format!("criterion: {criterion}"),
        });
    }
    if !inputs.instruction.trim().is_empty()
        && terms(criterion).is_disjoint(&terms(&inputs.instruction))
    {
        return Some(Hit {
            category: GapCategory::Prompt,
            rationale: "the criterion shares no key term with the task instruction: the instruction does not ask for it".into(),
            evidence: format!("criterion: {criterion}"),
        });
    }
    None
}

/// The default rule: FAIL → Execution, ABSTAIN → Analysis, ERROR (and anything else) →
/// Evaluation.
pub fn default_hit(item: &Item<'_>) -> Hit {
    let evidence = match item.check {
        Some(c) => format!("{}: {}", c.name(), c.message()),
        None => item.judgment.reasoning().chars().take(300).collect(),
    };
    let (category, rationale) = match item.status() {
        Status::Fail => (
            GapCategory::Execution,
            "default rule: a FAIL that no specific rule explains is counted as execution",
        ),
        Status::Abstain => (
            GapCategory::Analysis,
            "default rule: an ABSTAIN that no specific rule explains is counted as missing analysis",
        ),
        _ => (
            GapCategory::Evaluation,
            "default rule: an ERROR that no specific rule explains is counted against the judge",
        ),
    };
    Hit {
        category,
        rationale: rationale.to_string(),
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_pattern_compiles() {
        for (i, p) in Pattern::ALL.into_iter().enumerate() {
            // The cell index is the declaration order.
            assert_eq!(p as usize, i, "{p:?}");
            if let Err(e) = Regex::new(p.source()) {
                panic!("{p:?}: {e}");
            }
        }
    }

    #[test]
    fn namespaces_and_terms() {
        assert_eq!(
            namespace_of("import javax.persistence.Entity;"),
            "javax.persistence"
        );
        assert_eq!(
            namespace_of("javax.servlet.http.HttpServlet"),
            "javax.servlet"
        );
        assert!(terms("the build passes").contains("build"));
        assert!(terms("Keep the class name").is_disjoint(&terms("Move to jakarta")));
    }

    #[test]
    fn every_builtin_rule_has_an_id_and_a_description() {
        let mut ids = std::collections::HashSet::new();
        for r in BUILTIN {
            assert!(ids.insert(r.id) && !r.matches.is_empty());
        }
    }
}
