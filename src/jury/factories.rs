//! Convenience constructors for juries (jury-semantics §7.1).

use std::collections::HashMap;
use std::sync::Arc;

use crate::judgment::{BuildError, Judge, JudgeType, NamedJudge};

use super::strategies::VotingStrategy;
use super::{Jury, MetaJury, SimpleJury};

/// A jury with the name it has inside a meta-jury.
#[derive(Clone)]
pub struct NamedJury {
    /// The member name (validated like a tier name).
    pub name: String,
    /// The member jury.
    pub jury: Arc<dyn Jury>,
}

impl NamedJury {
    /// Pairs a name with a jury.
    pub fn new(name: impl Into<String>, jury: Arc<dyn Jury>) -> Self {
        NamedJury {
            name: name.into(),
            jury,
        }
    }
}

/// A simple jury over `judges`. Unnamed judges get `Judge#N`; a repeated name gets `-2`, `-3`…
/// by wrapping the judge under the new name (seat key `DEDUPLICATED`, inner capability kept).
/// A judge whose metadata cannot be read is refused, naming its position.
pub fn from_judges(
    strategy: Arc<dyn VotingStrategy>,
    judges: Vec<Arc<dyn Judge>>,
) -> Result<SimpleJury, BuildError> {
    if judges.is_empty() {
        return Err(BuildError::argument("At least one judge is required"));
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut builder = SimpleJury::builder().strategy(strategy);
    for (i, judge) in judges.into_iter().enumerate() {
        let meta = judge.metadata().map_err(|f| {
            BuildError::argument(format!(
                "judges[{i}]: metadata is unreadable (metadata() {f})"
            ))
        })?;
        let (base, judge_type) = match &meta {
            Some(m) => (m.name().to_string(), m.judge_type()),
            None => (format!("Judge#{}", i + 1), JudgeType::Deterministic),
        };
        let n = seen.entry(base.clone()).or_insert(0);
        *n += 1;
        builder = if *n == 1 {
            builder.judge(judge)
        } else {
            let renamed = NamedJudge::new(judge, format!("{base}-{n}"), judge_type)?;
            builder.deduplicated(Arc::new(renamed))
        };
    }
    builder.build()
}

/// A meta-jury over `juries`, named `member-1`, `member-2`, … (deprecated in the library).
pub fn all_of(
    strategy: Arc<dyn VotingStrategy>,
    juries: Vec<Arc<dyn Jury>>,
) -> Result<MetaJury, BuildError> {
    if juries.is_empty() {
        return Err(BuildError::argument("At least one jury is required"));
    }
    let members = juries
        .into_iter()
        .enumerate()
        .map(|(i, j)| NamedJury::new(format!("member-{}", i + 1), j))
        .collect();
    MetaJury::new(strategy, members)
}

/// A meta-jury over two juries named `member-1` and `member-2` (deprecated in the library).
pub fn combine(
    a: Arc<dyn Jury>,
    b: Arc<dyn Jury>,
    strategy: Arc<dyn VotingStrategy>,
) -> Result<MetaJury, BuildError> {
    all_of(strategy, vec![a, b])
}
