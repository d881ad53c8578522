//! The judge interface, its metadata, naming wrappers and the exclusion-capability lookup
//! (jury-semantics §2).

use async_trait::async_trait;
use serde_json::{Map, Value};
use std::sync::Arc;

use super::context::JudgmentContext;
use super::error::BuildError;
use super::fault::Fault;
use super::judgment::Judgment;

/// The kind of instrument a judge is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JudgeType {
    /// Reads files, runs builds or commands.
    Deterministic,
    /// Asks a language model.
    LlmPowered,
    /// Both.
    Hybrid,
    /// An agent.
    Agent,
}

impl JudgeType {
    /// The upper-case token used in descriptions.
    pub fn token(self) -> &'static str {
        match self {
            JudgeType::Deterministic => "DETERMINISTIC",
            JudgeType::LlmPowered => "LLM_POWERED",
            JudgeType::Hybrid => "HYBRID",
            JudgeType::Agent => "AGENT",
        }
    }
}

/// A judge's self-description: name (its seat key), description, type and the sentence that
/// declares when it may answer NOT_APPLICABLE (`None`: it never excludes a subject).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeMetadata {
    name: String,
    description: Option<String>,
    judge_type: JudgeType,
    not_applicable_when: Option<String>,
}

impl JudgeMetadata {
    /// Metadata; refuses a blank name and a blank exclusion declaration.
    pub fn new(
        name: impl Into<String>,
        description: Option<String>,
        judge_type: JudgeType,
        not_applicable_when: Option<String>,
    ) -> Result<Self, BuildError> {
        let name = name.into();
        if name.trim().is_empty() {
            return Err(BuildError::argument("judge name must be non-blank"));
        }
        if let Some(w) = &not_applicable_when
            && w.trim().is_empty()
        {
            return Err(BuildError::argument(
                "notApplicableWhen must be non-blank when declared (omit it to declare nothing)",
            ));
        }
        Ok(JudgeMetadata {
            name,
            description,
            judge_type,
            not_applicable_when,
        })
    }

    /// Deterministic metadata with only a name.
    pub fn named(name: impl Into<String>) -> Result<Self, BuildError> {
        JudgeMetadata::new(name, None, JudgeType::Deterministic, None)
    }

    /// The same metadata declaring when the judge may answer NOT_APPLICABLE.
    pub fn excluding_when(mut self, sentence: impl Into<String>) -> Result<Self, BuildError> {
        let s = sentence.into();
        if s.trim().is_empty() {
            return Err(BuildError::argument("notApplicableWhen must be non-blank"));
        }
        self.not_applicable_when = Some(s);
        Ok(self)
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The type.
    pub fn judge_type(&self) -> JudgeType {
        self.judge_type
    }

    /// When the judge may answer NOT_APPLICABLE, if it declares that at all.
    pub fn not_applicable_when(&self) -> Option<&str> {
        self.not_applicable_when.as_deref()
    }
}

/// How a judge's implementation is identified in a jury description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Implementation {
    /// A named type.
    Named(String),
    /// Deliberately not disclosed.
    Hidden,
    /// An anonymous implementation inside the named enclosing type.
    Anonymous(String),
}

/// When a judge runs among its jury's judges. Only scheduling: results keep configuration
/// order and the verdict is the same either way, but a check that reads build output (class
/// files, coverage, test reports) must not race the build that writes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    /// Changes the workspace (a build, a command): runs first, one at a time, in
    /// configuration order.
    Build,
    /// Only reads: runs after every build judge of the jury, concurrently.
    #[default]
    Inspect,
}

/// What every judge does: answer one question about a subject. Object safe and async, so
/// juries hold `Arc<dyn Judge>` and run judges concurrently.
///
/// A judge that cannot reach a finding returns an ERROR judgment (via [`Judgment::error`]) or a
/// [`Fault`]; the jury turns a fault into `ERROR judge_failed`. Only a real finding is a FAIL.
#[async_trait]
pub trait Judge: Send + Sync {
    /// The judge's metadata: `Ok(None)` when it has none (its seat gets a positional key),
    /// `Err` when it cannot be read (the judge is then not run).
    fn metadata(&self) -> Result<Option<JudgeMetadata>, Fault>;

    /// Judges the subject described by `ctx`.
    async fn judge(&self, ctx: &JudgmentContext) -> Result<Judgment, Fault>;

    /// The wrapped judge, for wrappers such as [`NamedJudge`].
    fn delegate(&self) -> Option<&dyn Judge> {
        None
    }

    /// The judge's portable configuration for descriptions, if it declares one.
    fn configuration(&self) -> Option<Map<String, Value>> {
        None
    }

    /// How the implementation is identified in descriptions.
    fn implementation(&self) -> Implementation {
        Implementation::Named(std::any::type_name::<Self>().to_string())
    }

    /// When the judge runs among its jury's (see [`Phase`]).
    fn phase(&self) -> Phase {
        Phase::Inspect
    }
}

/// Gives a judge a (new) name and type without changing what it does; naming never adds an
/// exclusion capability, and the inner judge's capability stays visible through it.
pub struct NamedJudge {
    delegate: Arc<dyn Judge>,
    metadata: JudgeMetadata,
}

impl NamedJudge {
    /// Wraps `delegate` under `name` with the given type and no capability of its own.
    pub fn new(
        delegate: Arc<dyn Judge>,
        name: impl Into<String>,
        judge_type: JudgeType,
    ) -> Result<Self, BuildError> {
        Ok(NamedJudge {
            delegate,
            metadata: JudgeMetadata::new(name, None, judge_type, None)?,
        })
    }

    /// Wraps `delegate` with full metadata (which may declare its own capability).
    pub fn with_metadata(delegate: Arc<dyn Judge>, metadata: JudgeMetadata) -> Self {
        NamedJudge { delegate, metadata }
    }
}

#[async_trait]
impl Judge for NamedJudge {
    fn metadata(&self) -> Result<Option<JudgeMetadata>, Fault> {
        Ok(Some(self.metadata.clone()))
    }

    async fn judge(&self, ctx: &JudgmentContext) -> Result<Judgment, Fault> {
        self.delegate.judge(ctx).await
    }

    fn delegate(&self) -> Option<&dyn Judge> {
        Some(self.delegate.as_ref())
    }

    fn configuration(&self) -> Option<Map<String, Value>> {
        self.delegate.configuration()
    }

    fn implementation(&self) -> Implementation {
        self.delegate.implementation()
    }

    fn phase(&self) -> Phase {
        self.delegate.phase()
    }
}

/// Walks wrappers outside-in and returns the first declared exclusion capability. A wrapper
/// that declares nothing is transparent; an outer declaration overrides an inner one; a judge
/// in the chain whose metadata cannot be read makes the whole lookup fail (unreadable is not
/// "incapable").
pub fn not_applicable_capability(judge: &dyn Judge) -> Result<Option<String>, Fault> {
    let mut current = Some(judge);
    while let Some(j) = current {
        if let Some(m) = j.metadata()?
            && let Some(w) = m.not_applicable_when()
        {
            return Ok(Some(w.to_string()));
        }
        current = j.delegate();
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Plain(Option<JudgeMetadata>);

    #[async_trait]
    impl Judge for Plain {
        fn metadata(&self) -> Result<Option<JudgeMetadata>, Fault> {
            Ok(self.0.clone())
        }
        async fn judge(&self, _: &JudgmentContext) -> Result<Judgment, Fault> {
            Ok(Judgment::pass(""))
        }
    }

    struct Unreadable;

    #[async_trait]
    impl Judge for Unreadable {
        fn metadata(&self) -> Result<Option<JudgeMetadata>, Fault> {
            Err(Fault::threw("IllegalStateException", "no"))
        }
        async fn judge(&self, _: &JudgmentContext) -> Result<Judgment, Fault> {
            Ok(Judgment::pass(""))
        }
    }

    #[test]
    fn metadata_refuses_blank_name_and_blank_declaration() {
        assert!(
            matches!(JudgeMetadata::named(" "), Err(BuildError::InvalidArgument(m)) if m.contains("must be non-blank"))
        );
        let e = JudgeMetadata::new(
            "j",
            Some(String::new()),
            JudgeType::Deterministic,
            Some("   ".into()),
        );
        assert!(
            e.unwrap_err()
                .message()
                .contains("notApplicableWhen must be non-blank")
        );
    }

    #[test]
    fn capability_lookup_walks_wrappers_outside_in() {
        let inner = JudgeMetadata::named("inner")
            .unwrap()
            .excluding_when("no java")
            .unwrap();
        let capable: Arc<dyn Judge> = Arc::new(Plain(Some(inner)));
        let renamed = NamedJudge::new(capable.clone(), "outer", JudgeType::Deterministic).unwrap();
        assert_eq!(
            not_applicable_capability(&renamed).unwrap().as_deref(),
            Some("no java")
        );
        let outer_meta = JudgeMetadata::named("o")
            .unwrap()
            .excluding_when("outer says")
            .unwrap();
        let overriding = NamedJudge::with_metadata(capable, outer_meta);
        assert_eq!(
            not_applicable_capability(&overriding).unwrap().as_deref(),
            Some("outer says")
        );
        assert_eq!(not_applicable_capability(&Plain(None)).unwrap(), None);
        let broken = NamedJudge::new(Arc::new(Unreadable), "n", JudgeType::Deterministic).unwrap();
        assert!(matches!(
            not_applicable_capability(&broken),
            Err(Fault::Threw { kind, .. }) if kind == "IllegalStateException"
        ));
    }
}
