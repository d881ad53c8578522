//! Runs the behavioural cases of the jury engine (format: jury-semantics Appendix A).
//!
//! Cases come from `tests/conformance/jury-cases.json` (a byte-for-byte copy of the steering
//! repository's `shared/spec/conformance/jury-cases.json`, taken last on 2026-12-01 with its
//! two `alsoHoldsFor` cases over a jury-level `notApplicablePolicy` and a meta jury's member
//! failure shapes)
//! and from every file named in `JUDGE_CI_EXTRA_CASES` (colon-separated). Test doubles —
//! judges that return, throw or return nothing, custom strategies, opaque juries — are built
//! from the case data. Every `expected` key is interpreted; a key this harness does not know
//! fails the case rather than passing it silently.

use async_trait::async_trait;
use indexmap::IndexMap;
use judge_ci::judgment::{
    BuildError, Fault, Judge, JudgeMetadata, JudgeType, Judgment, JudgmentContext, Status,
};
use judge_ci::jury::interpret::ReadingSupport;
use judge_ci::jury::strategies::{
    BuiltinStrategy, ErrorPolicy, NotApplicablePolicy, StrategyKind, StrategySpec, TiePolicy,
    VotingStrategy, Weights,
};
use judge_ci::jury::{
    CascadedJury, Decision, Jury, KeySource, MetaJury, NamedJury, Seat, SimpleJury, TierPolicy,
    Verdict, VerdictParts, VoteScope,
};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

type Res<T> = Result<T, String>;

// ---------------------------------------------------------------------------------------------
// Test doubles
// ---------------------------------------------------------------------------------------------

/// A fault of the kind a Java test double would throw: `…Error` classes escape containment.
fn thrown(kind: &str) -> Fault {
    if kind.ends_with("Error") {
        Fault::Fatal {
            kind: kind.to_string(),
            message: Some("thrown by a test double".into()),
        }
    } else {
        Fault::threw(kind, "thrown by a test double")
    }
}

enum Capability {
    None,
    Fixed(String),
    /// Absent on the first `metadata()` call, present afterwards.
    Unstable(AtomicUsize),
}

enum JudgeBehavior {
    Returns(Judgment),
    Throws(String),
    ReturnsNull,
}

struct DoubleJudge {
    name: Option<String>,
    judge_type: JudgeType,
    capability: Capability,
    metadata_throws: Option<String>,
    behavior: JudgeBehavior,
    invoked: AtomicBool,
}

#[async_trait]
impl Judge for DoubleJudge {
    fn metadata(&self) -> Result<Option<JudgeMetadata>, Fault> {
        if let Some(k) = &self.metadata_throws {
            return Err(if k == "<null>" {
                Fault::NoResult
            } else {
                thrown(k)
            });
        }
        let capability = match &self.capability {
            Capability::None => None,
            Capability::Fixed(s) => Some(s.clone()),
            Capability::Unstable(calls) => {
                if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                    None
                } else {
                    Some("declared after the first look".to_string())
                }
            }
        };
        let Some(name) = &self.name else {
            return Ok(None);
        };
        JudgeMetadata::new(name.clone(), None, self.judge_type, capability)
            .map(Some)
            .map_err(|e| Fault::threw(e.java_type(), e.message()))
    }

    async fn judge(&self, _ctx: &JudgmentContext) -> Result<Judgment, Fault> {
        self.invoked.store(true, Ordering::SeqCst);
        match &self.behavior {
            JudgeBehavior::Returns(j) => Ok(j.clone()),
            JudgeBehavior::Throws(k) => Err(thrown(k)),
            JudgeBehavior::ReturnsNull => Err(Fault::NoResult),
        }
    }
}

enum StrategyBehavior {
    Throws(String),
    ReturnsNull,
    Returns(Judgment),
}

struct CustomStrategy {
    name: String,
    na_policy: NotApplicablePolicy,
    behavior: StrategyBehavior,
}

impl VotingStrategy for CustomStrategy {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn not_applicable_policy(&self) -> NotApplicablePolicy {
        self.na_policy
    }
    fn aggregate(&self, _: &[Judgment], _: &Weights) -> Result<Judgment, Fault> {
        match &self.behavior {
            StrategyBehavior::Throws(k) => Err(thrown(k)),
            StrategyBehavior::ReturnsNull => Err(Fault::NoResult),
            StrategyBehavior::Returns(j) => Ok(j.clone()),
        }
    }
}

/// Counts calls to the strategy it wraps.
struct Spy {
    inner: Arc<dyn VotingStrategy>,
    calls: Arc<AtomicUsize>,
}

impl VotingStrategy for Spy {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn not_applicable_policy(&self) -> NotApplicablePolicy {
        self.inner.not_applicable_policy()
    }
    fn aggregate(&self, j: &[Judgment], w: &Weights) -> Result<Judgment, Fault> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.aggregate(j, w)
    }
    fn describe(&self) -> Value {
        self.inner.describe()
    }
}

enum JuryBehavior {
    Throws(String),
    ReturnsNull,
    Returns(Box<Verdict>),
}

struct OpaqueJury {
    behavior: JuryBehavior,
    may_be_na: bool,
}

#[async_trait]
impl Jury for OpaqueJury {
    async fn vote_in(&self, _: &Arc<JudgmentContext>, _: &VoteScope) -> Result<Verdict, Fault> {
        match &self.behavior {
            JuryBehavior::Throws(k) => Err(thrown(k)),
            JuryBehavior::ReturnsNull => Err(Fault::NoResult),
            JuryBehavior::Returns(v) => Ok(v.as_ref().clone()),
        }
    }
    fn aggregate_may_be_not_applicable(&self) -> bool {
        self.may_be_na
    }
}

/// Everything the harness built for one case, for expectations that look inside.
#[derive(Default)]
struct World {
    judges: Mutex<Vec<(String, Arc<DoubleJudge>)>>,
    top_strategy_calls: Mutex<Option<Arc<AtomicUsize>>>,
    opaque_verdicts: Mutex<Vec<(String, Verdict)>>,
}

// ---------------------------------------------------------------------------------------------
// Building from case data
// ---------------------------------------------------------------------------------------------

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn number(v: &Value) -> Res<f64> {
    match v {
        Value::Number(n) => n.as_f64().ok_or_else(|| format!("bad number {n}")),
        Value::String(s) => match s.as_str() {
            "NaN" => Ok(f64::NAN),
            "+Infinity" | "Infinity" => Ok(f64::INFINITY),
            "-Infinity" => Ok(f64::NEG_INFINITY),
            other => other.parse().map_err(|_| format!("bad number {other:?}")),
        },
        other => Err(format!("expected a number, got {other}")),
    }
}

/// A judgment from case data; a missing reasoning is synthesised (the invariants require one
/// for several statuses).
fn judgment(v: &Value, who: &str) -> Res<Judgment> {
    let mut obj = v.as_object().cloned().ok_or("judgment must be an object")?;
    if !obj.contains_key("reasoning") {
        let st = obj.get("status").and_then(Value::as_str).unwrap_or("?");
        obj.insert("reasoning".into(), format!("{who} answered {st}").into());
    }
    serde_json::from_value(Value::Object(obj)).map_err(|e| format!("case judgment {v}: {e}"))
}

fn policy<T: std::str::FromStr<Err = BuildError>>(v: &Value) -> Res<Option<T>> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => s.parse().map(Some).map_err(|e: BuildError| e.to_string()),
        other => Err(format!("bad policy token {other}")),
    }
}

/// A strategy spec from `{name, errorPolicy, notApplicablePolicy, tiePolicy?, threshold?}`:
/// absent keys take the library defaults, explicit `null` stays missing (and is refused).
fn strategy_spec(v: &Value) -> Res<StrategySpec> {
    let name = str_of(v, "name").ok_or("strategy needs a name")?;
    let kind: StrategyKind = name.parse().map_err(|e: BuildError| e.to_string())?;
    let mut spec = StrategySpec::defaults(kind);
    if let Some(t) = v.get("threshold") {
        spec.threshold = if t.is_null() { None } else { Some(number(t)?) };
    }
    if let Some(p) = v.get("errorPolicy") {
        spec.error_policy = policy::<ErrorPolicy>(p)?;
    }
    if let Some(p) = v.get("notApplicablePolicy") {
        spec.not_applicable_policy = policy::<NotApplicablePolicy>(p)?;
    }
    if let Some(p) = v.get("tiePolicy") {
        spec.tie_policy = policy::<TiePolicy>(p)?;
    }
    Ok(spec)
}

/// Builds a strategy; `Err(Ok(e))` is a construction refusal, `Err(Err(s))` a harness problem.
fn strategy(v: &Value, w: &World) -> Result<Arc<dyn VotingStrategy>, Result<BuildError, String>> {
    let name = str_of(v, "name").ok_or(Err("strategy needs a name".to_string()))?;
    if let Some(custom) = name.strip_prefix("custom:") {
        let b = v
            .get("behavior")
            .ok_or(Err("custom strategy needs a behavior".into()))?;
        let behavior = if let Some(k) = str_of(b, "throws") {
            StrategyBehavior::Throws(k.into())
        } else if b.get("returnsNull").is_some() {
            StrategyBehavior::ReturnsNull
        } else if let Some(j) = b.get("returns") {
            StrategyBehavior::Returns(judgment(j, "custom strategy").map_err(Err)?)
        } else {
            return Err(Err(format!("unknown custom strategy behavior {b}")));
        };
        let na = match v.get("declaredNotApplicablePolicy") {
            Some(p) => policy::<NotApplicablePolicy>(p)
                .map_err(Err)?
                .unwrap_or_default(),
            None => NotApplicablePolicy::Refuse,
        };
        let _ = w;
        return Ok(Arc::new(CustomStrategy {
            name: custom.to_string(),
            na_policy: na,
            behavior,
        }));
    }
    let spec = strategy_spec(v).map_err(Err)?;
    spec.build()
        .map(|s| Arc::new(s) as Arc<dyn VotingStrategy>)
        .map_err(Ok)
}

fn seat_judge(seat: &Value, index: usize, w: &World) -> Res<Arc<DoubleJudge>> {
    let name = str_of(seat, "name").map(str::to_string);
    let who = name
        .clone()
        .unwrap_or_else(|| format!("Judge#{}", index + 1));
    let behavior = if let Some(r) = seat.get("returns") {
        JudgeBehavior::Returns(judgment(r, &who)?)
    } else if let Some(k) = str_of(seat, "throws") {
        JudgeBehavior::Throws(k.into())
    } else if seat.get("returnsNull").is_some() {
        JudgeBehavior::ReturnsNull
    } else {
        return Err(format!(
            "seat {seat} says neither returns, throws nor returnsNull"
        ));
    };
    let capability = match str_of(seat, "notApplicableWhen") {
        None => Capability::None,
        Some("null on first metadata() call, non-null afterwards") => {
            Capability::Unstable(AtomicUsize::new(0))
        }
        Some(s) => Capability::Fixed(s.into()),
    };
    // "throws X" → metadata() fails with X; "returns null" / "null" → metadata() returns
    // nothing (marked with the reserved kind "<null>").
    let metadata_throws = match str_of(seat, "metadata") {
        Some("returns null" | "returnsNull" | "null") => Some("<null>".to_string()),
        Some(m) => Some(
            m.strip_prefix("throws ")
                .ok_or(format!("unknown seat metadata {m:?}"))?
                .to_string(),
        ),
        None => None,
    };
    let judge = Arc::new(DoubleJudge {
        name,
        judge_type: JudgeType::Deterministic,
        capability,
        metadata_throws,
        behavior,
        invoked: AtomicBool::new(false),
    });
    w.judges.lock().unwrap().push((who, Arc::clone(&judge)));
    Ok(judge)
}

/// A verdict an opaque jury returns: `"Verdict.single"` with `name`/`judgment`, or an object
/// with `aggregated`, optional `individual`/`seatKeys`, and `decision`.
fn opaque_verdict(j: &Value) -> Res<Verdict> {
    let rv = j.get("returnsVerdict").ok_or("no returnsVerdict")?;
    if rv.as_str() == Some("Verdict.single") {
        let name = str_of(j, "name").ok_or("Verdict.single needs a name")?;
        let judgment = judgment(
            j.get("judgment").ok_or("Verdict.single needs a judgment")?,
            name,
        )?;
        return Verdict::single(name, judgment).map_err(|e| e.to_string());
    }
    let aggregated = judgment(
        rv.get("aggregated").ok_or("verdict needs aggregated")?,
        "opaque jury",
    )?;
    let individual: Vec<Judgment> = match rv.get("individual").and_then(Value::as_array) {
        Some(list) => list
            .iter()
            .enumerate()
            .map(|(i, v)| judgment(v, &format!("judge-{}", i + 1)))
            .collect::<Res<_>>()?,
        None => Vec::new(),
    };
    let keys: Vec<String> = match rv.get("seatKeys").and_then(Value::as_array) {
        Some(k) => k
            .iter()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect(),
        None => (0..individual.len())
            .map(|i| format!("judge-{}", i + 1))
            .collect(),
    };
    let decision: Decision =
        serde_json::from_value(rv.get("decision").cloned().unwrap_or(json!({"kind":"own"})))
            .map_err(|e| e.to_string())?;
    let mut map = IndexMap::new();
    let mut seats = Vec::new();
    for (i, (k, j)) in keys.iter().zip(&individual).enumerate() {
        map.insert(k.clone(), j.clone());
        seats.push(Seat {
            position: i,
            verdict_key: k.clone(),
            key_source: KeySource::Declared,
        });
    }
    Verdict::new(VerdictParts {
        aggregated,
        individual,
        individual_by_name: map,
        weights: Weights::new(),
        seats,
        decision,
        composite_attempts: Vec::new(),
    })
    .map_err(|e| e.to_string())
}

/// Builds a jury; `Err(Ok(e))` is a construction refusal, `Err(Err(s))` a harness problem.
fn jury(
    v: &Value,
    w: &World,
    vars: &Map<String, Value>,
    top: bool,
) -> Result<Arc<dyn Jury>, Result<BuildError, String>> {
    if let Value::String(prose) = v {
        let parsed = prose::parse(prose, vars).map_err(Err)?;
        return jury(&parsed, w, vars, top);
    }
    let harness = |s: String| Err(s);
    match str_of(v, "type") {
        Some("simple") => {
            let strat = strategy(
                v.get("strategy")
                    .ok_or(harness("simple jury needs a strategy".into()))?,
                w,
            )?;
            let strat = spy_if_top(strat, w, top);
            let mut b = SimpleJury::builder().strategy(strat);
            let seats = v
                .get("seats")
                .and_then(Value::as_array)
                .ok_or(harness("simple jury needs seats".into()))?;
            for (i, s) in seats.iter().enumerate() {
                let judge = seat_judge(s, i, w).map_err(Err)?;
                b = match s.get("weight") {
                    Some(wt) => b.weighted(judge, number(wt).map_err(Err)?),
                    None => b.judge(judge),
                };
            }
            if v.get("parallel") == Some(&Value::Bool(false)) {
                b = b.parallel(false);
            }
            if v.get("requireDeclaredNames") == Some(&Value::Bool(true)) {
                b = b.require_declared_names();
            }
            Ok(Arc::new(b.build().map_err(Ok)?))
        }
        Some("cascade") => {
            let mut b = CascadedJury::builder();
            for t in v
                .get("tiers")
                .and_then(Value::as_array)
                .ok_or(harness("cascade needs tiers".into()))?
            {
                let name = str_of(t, "name").ok_or(harness("tier needs a name".into()))?;
                let policy: TierPolicy = str_of(t, "policy")
                    .ok_or(harness("tier needs a policy".into()))?
                    .parse()
                    .map_err(Ok)?;
                let child = jury(
                    t.get("jury").ok_or(harness("tier needs a jury".into()))?,
                    w,
                    vars,
                    false,
                )?;
                b = b.tier(name, child, policy);
            }
            Ok(Arc::new(b.build().map_err(Ok)?))
        }
        Some("meta") => {
            let strat = strategy(
                v.get("strategy")
                    .ok_or(harness("meta needs a strategy".into()))?,
                w,
            )?;
            let strat = spy_if_top(strat, w, top);
            let mut members = Vec::new();
            for m in v
                .get("members")
                .and_then(Value::as_array)
                .ok_or(harness("meta needs members".into()))?
            {
                let name = str_of(m, "name").ok_or(harness("member needs a name".into()))?;
                let mv = m.get("jury").ok_or(harness("member needs a jury".into()))?;
                if str_of(mv, "type") == Some("opaque") && mv.get("returnsVerdict").is_some() {
                    let verdict = opaque_verdict(mv).map_err(Err)?;
                    w.opaque_verdicts
                        .lock()
                        .unwrap()
                        .push((name.to_string(), verdict));
                }
                members.push(NamedJury::new(name, jury(mv, w, vars, false)?));
            }
            Ok(Arc::new(MetaJury::new(strat, members).map_err(Ok)?))
        }
        Some("opaque") => {
            let behavior = if let Some(k) = str_of(v, "throws") {
                JuryBehavior::Throws(k.into())
            } else if v.get("returnsNull").is_some() {
                JuryBehavior::ReturnsNull
            } else {
                JuryBehavior::Returns(Box::new(opaque_verdict(v).map_err(Err)?))
            };
            let may_be_na = v
                .get("aggregateMayBeNotApplicable")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            Ok(Arc::new(OpaqueJury {
                behavior,
                may_be_na,
            }))
        }
        other => Err(Err(format!("unknown jury type {other:?} in {v}"))),
    }
}

fn spy_if_top(s: Arc<dyn VotingStrategy>, w: &World, top: bool) -> Arc<dyn VotingStrategy> {
    if !top {
        return s;
    }
    let calls = Arc::new(AtomicUsize::new(0));
    *w.top_strategy_calls.lock().unwrap() = Some(Arc::clone(&calls));
    Arc::new(Spy { inner: s, calls })
}

/// The setup's own `strategy`, spied on as the top-level jury's.
fn top_strategy(
    setup: &Value,
    w: &World,
) -> Result<Arc<dyn VotingStrategy>, Result<BuildError, String>> {
    let s = setup
        .get("strategy")
        .ok_or(Err("no strategy".to_string()))?;
    Ok(spy_if_top(strategy(s, w)?, w, true))
}

/// Builds the jury a setup describes: `jury`, or a `factory` with `judges`/`juries`.
fn setup_jury(setup: &Value, w: &World) -> Result<Arc<dyn Jury>, Result<BuildError, String>> {
    let vars = setup.as_object().cloned().unwrap_or_default();
    match str_of(setup, "factory") {
        None => jury(
            setup
                .get("jury")
                .ok_or(Err("setup has no jury".to_string()))?,
            w,
            &vars,
            true,
        ),
        Some("fromJudges") => {
            // A setup about the judges alone leaves the strategy to a valid default.
            let strat = if setup.get("strategy").is_some() {
                top_strategy(setup, w)?
            } else {
                let s = json!({"name": "consensus"});
                spy_if_top(strategy(&s, w)?, w, true)
            };
            let mut judges: Vec<Arc<dyn Judge>> = Vec::new();
            for (i, s) in setup
                .get("judges")
                .and_then(Value::as_array)
                .ok_or(Err("no judges".to_string()))?
                .iter()
                .enumerate()
            {
                judges.push(seat_judge(s, i, w).map_err(Err)?);
            }
            Ok(Arc::new(
                judge_ci::jury::from_judges(strat, judges).map_err(Ok)?,
            ))
        }
        Some(f @ ("allOf" | "combine")) => {
            let strat = top_strategy(setup, w)?;
            let mut juries = Vec::new();
            for j in setup
                .get("juries")
                .and_then(Value::as_array)
                .ok_or(Err("no juries".to_string()))?
            {
                juries.push(jury(j, w, &vars, false)?);
            }
            if f == "combine" {
                if juries.len() != 2 {
                    return Err(Err("combine takes two juries".into()));
                }
                let b = juries.pop().unwrap_or_else(|| unreachable!());
                let a = juries.pop().unwrap_or_else(|| unreachable!());
                return Ok(Arc::new(judge_ci::jury::combine(a, b, strat).map_err(Ok)?));
            }
            Ok(Arc::new(judge_ci::jury::all_of(strat, juries).map_err(Ok)?))
        }
        Some(other) => Err(Err(format!("unknown factory {other}"))),
    }
}

/// The short prose setups ("cascade(name: POLICY = jury, …)", "meta(strategy ep/nap; name=jury, …)",
/// `<var>` for a variant value — including `<variant N>` (the N-th variant's jury, from 1) and
/// `<previous meta>` (the closest earlier variant whose jury is a meta-jury) — `throws`,
/// `passing`, `failing`) turned into structured setups.
mod prose {
    use serde_json::{Map, Value, json};

    fn tokens(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        for c in s.chars() {
            if "(),;:=/<>".contains(c) || c.is_whitespace() {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                if !c.is_whitespace() {
                    out.push(c.to_string());
                }
            } else {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    struct P<'a> {
        t: Vec<String>,
        i: usize,
        vars: &'a Map<String, Value>,
    }

    impl P<'_> {
        fn next(&mut self) -> Result<String, String> {
            let t = self
                .t
                .get(self.i)
                .cloned()
                .ok_or("unexpected end of prose setup")?;
            self.i += 1;
            Ok(t)
        }
        fn expect(&mut self, s: &str) -> Result<(), String> {
            let t = self.next()?;
            if t == s {
                Ok(())
            } else {
                Err(format!("expected {s:?}, found {t:?}"))
            }
        }
        fn peek(&self) -> Option<&str> {
            self.t.get(self.i).map(String::as_str)
        }
        fn simple(pass: bool) -> Value {
            let status = if pass { "pass" } else { "fail" };
            json!({"type":"simple","strategy":{"name":"consensus","errorPolicy":"propagate","notApplicablePolicy":"refuse"},
                   "seats":[{"name":"ok","returns":{"status":status}}]})
        }
        fn jury(&mut self) -> Result<Value, String> {
            let head = self.next()?;
            match head.as_str() {
                "<" => {
                    // `<name>` or a multi-word `<variant 1>` / `<previous meta>`.
                    let mut words = vec![self.next()?];
                    while self.peek() != Some(">") {
                        words.push(self.next()?);
                    }
                    self.expect(">")?;
                    let var = words.join(" ");
                    self.vars
                        .get(&var)
                        .cloned()
                        .ok_or(format!("prose names unknown variable <{var}>"))
                }
                "throws" => Ok(json!({"type":"opaque","throws":"IllegalStateException"})),
                "passing" => Ok(Self::simple(true)),
                "failing" => Ok(Self::simple(false)),
                "cascade" => {
                    self.expect("(")?;
                    let mut tiers = Vec::new();
                    loop {
                        let name = self.next()?;
                        self.expect(":")?;
                        let policy = self.next()?;
                        self.expect("=")?;
                        tiers.push(json!({"name": name, "policy": policy, "jury": self.jury()?}));
                        match self.next()?.as_str() {
                            "," => continue,
                            ")" => break,
                            t => return Err(format!("unexpected {t:?} in cascade")),
                        }
                    }
                    Ok(json!({"type":"cascade","tiers":tiers}))
                }
                "meta" => {
                    self.expect("(")?;
                    let name = self.next()?;
                    let ep = self.next()?;
                    self.expect("/")?;
                    let nap = self.next()?;
                    self.expect(";")?;
                    let mut members = Vec::new();
                    loop {
                        let m = self.next()?;
                        self.expect("=")?;
                        members.push(json!({"name": m, "jury": self.jury()?}));
                        match self.next()?.as_str() {
                            "," => continue,
                            ")" => break,
                            t => return Err(format!("unexpected {t:?} in meta")),
                        }
                    }
                    Ok(
                        json!({"type":"meta","strategy":{"name":name,"errorPolicy":ep,"notApplicablePolicy":nap},"members":members}),
                    )
                }
                other => Err(format!("unknown prose jury {other:?}")),
            }
        }
    }

    pub fn parse(s: &str, vars: &Map<String, Value>) -> Result<Value, String> {
        let mut p = P {
            t: tokens(s),
            i: 0,
            vars,
        };
        let v = p.jury()?;
        match p.peek() {
            None => Ok(v),
            Some(t) => Err(format!("trailing {t:?} in prose setup")),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Expectations
// ---------------------------------------------------------------------------------------------

fn list_of_str(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// JSON equality with numbers compared as doubles.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn check_error(e: &BuildError, exp: &Value, what: &str) -> Res<()> {
    if let Some(t) = str_of(exp, "type")
        && t != e.java_type()
    {
        return Err(format!(
            "{what}: expected {t}, got {} ({})",
            e.java_type(),
            e.message()
        ));
    }
    if let Some(m) = str_of(exp, "message")
        && m != e.message()
    {
        return Err(format!(
            "{what}: expected message {m:?}, got {:?}",
            e.message()
        ));
    }
    if let Some(mc) = exp.get("messageContains") {
        for m in list_of_str(mc) {
            if !e.message().contains(&m) {
                return Err(format!("{what}: message {:?} lacks {m:?}", e.message()));
            }
        }
    }
    if let Some(any) = exp.get("messageContainsOneOf") {
        let options = list_of_str(any);
        if !options.iter().any(|m| e.message().contains(m.as_str())) {
            return Err(format!(
                "{what}: message {:?} contains none of {options:?}",
                e.message()
            ));
        }
    }
    Ok(())
}

fn fault_error(f: &Fault) -> BuildError {
    match f {
        Fault::Threw { kind, message } if kind == "IllegalStateException" => {
            BuildError::state(message.clone().unwrap_or_default())
        }
        Fault::Threw { message, .. } => BuildError::argument(message.clone().unwrap_or_default()),
        other => BuildError::argument(other.to_string()),
    }
}

/// Checks one judgment against judgment-level keys; returns the keys it handled.
fn check_judgment(
    j: &Judgment,
    exp: &Map<String, Value>,
    placeholder: Option<&str>,
) -> Res<BTreeSet<String>> {
    let mut used = BTreeSet::new();
    for (k, v) in exp {
        let ok = match k.as_str() {
            "status" => Some(j.status().token() == v.as_str().unwrap_or("")),
            "statusNot" => Some(j.status().token() != v.as_str().unwrap_or("")),
            "reasonCode" => Some(j.reason_code().map(|c| c.token()) == v.as_str()),
            "reasonCodeNot" => Some(j.reason_code().map(|c| c.token()) != v.as_str()),
            "score" => Some(match v {
                Value::Null => j.score().is_none(),
                n => j
                    .score()
                    .is_some_and(|s| n.as_f64().is_some_and(|e| (s - e).abs() < 1e-9)),
            }),
            "scoreApprox" => {
                let a = v
                    .as_array()
                    .ok_or("scoreApprox must be [value, tolerance]")?;
                let (e, tol) = (number(&a[0])?, number(&a[1])?);
                Some(j.score().is_some_and(|s| (s - e).abs() <= tol))
            }
            "effectiveScore" => Some(match v {
                Value::Null => j.effective_score().is_none(),
                n => j
                    .effective_score()
                    .is_some_and(|s| n.as_f64().is_some_and(|e| (s - e).abs() < 1e-9)),
            }),
            "evidenceBlockPresent" => Some(j.evidence().is_some() == v.as_bool().unwrap_or(true)),
            "evidence" => {
                let ev = j
                    .evidence()
                    .ok_or(format!("no evidence block in {}", ser(j)))?;
                for (ek, evv) in v.as_object().ok_or("evidence must be an object")? {
                    if !ev.get(ek).is_some_and(|a| same(a, evv)) {
                        return Err(format!(
                            "evidence.{ek}: expected {evv}, got {:?} in {}",
                            ev.get(ek),
                            Value::Object(ev.clone())
                        ));
                    }
                }
                Some(true)
            }
            "evidenceAbsentKeys" => {
                let ev = j.evidence().ok_or("no evidence block")?;
                Some(list_of_str(v).iter().all(|key| !ev.contains_key(key)))
            }
            key if key.starts_with("reasoningNotContains") => Some(
                list_of_str(v)
                    .iter()
                    .all(|s| !j.reasoning().contains(s.as_str())),
            ),
            key if key.starts_with("reasoningContains") => Some(list_of_str(v).iter().all(|s| {
                let s = if s.starts_with('<') && s.ends_with('>') {
                    placeholder.unwrap_or(s)
                } else {
                    s
                };
                j.reasoning().contains(s)
            })),
            key if key.starts_with("reasoningEquals") => Some(v.as_str() == Some(j.reasoning())),
            _ => None,
        };
        match ok {
            Some(true) => {
                used.insert(k.clone());
            }
            Some(false) => return Err(format!("{k}: expected {v}, got {}", ser(j))),
            None => {}
        }
    }
    Ok(used)
}

fn ser<T: serde::Serialize>(t: &T) -> String {
    let s = serde_json::to_string(t).unwrap_or_default();
    if s.len() > 600 {
        format!("{}…", &s[..600])
    } else {
        s
    }
}

fn statuses(js: &[Judgment]) -> Value {
    Value::Array(js.iter().map(|j| j.status().token().into()).collect())
}

fn codes(js: &[Judgment]) -> Value {
    Value::Array(
        js.iter()
            .map(|j| j.reason_code().map_or(Value::Null, |c| c.token().into()))
            .collect(),
    )
}

fn check_attempt(v: &Verdict, exp: &Value, w: &World, jury: &dyn Jury, setup: &Value) -> Res<()> {
    let name = str_of(exp, "name").ok_or("attempt expectation needs a name")?;
    let a = v.attempt(name).ok_or(format!(
        "no attempt named {name:?}; attempts: {}",
        ser(&v.composite_attempts())
    ))?;
    let wire = serde_json::to_value(a).map_err(|e| e.to_string())?;
    let child = a.verdict();
    for (k, e) in exp
        .as_object()
        .ok_or("attempt expectation must be an object")?
    {
        let actual: Value = match k.as_str() {
            "name" => continue,
            "disposition" => wire["disposition"].clone(),
            "dispositionReason" => wire
                .get("dispositionReason")
                .cloned()
                .unwrap_or(Value::Null),
            "failureCode" => a.failure().map_or(Value::Null, |f| json!(f)),
            "verdictPresent" => Value::Bool(child.is_some()),
            "childIndividualStatuses" => child.map_or(Value::Null, |c| statuses(c.individual())),
            "childIndividualReasonCodes" => child.map_or(Value::Null, |c| codes(c.individual())),
            "childAggregateStatus" => {
                child.map_or(Value::Null, |c| c.aggregated().status().token().into())
            }
            "childDecisionBasis" => child.map_or(Value::Null, |c| {
                serde_json::to_value(c.decision()).unwrap_or_default()["basis"].clone()
            }),
            "verdictKeptUnchanged" => {
                let returned = w
                    .opaque_verdicts
                    .lock()
                    .unwrap()
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone());
                let r = returned.ok_or(format!("attempt {name}: no opaque verdict recorded"))?;
                Value::Bool(child == Some(&r))
            }
            other => match (other.strip_prefix("child"), child) {
                // Any other `childX` fact is X checked on the child's verdict.
                (Some(rest), Some(c)) if !rest.is_empty() => {
                    let mut key = rest[..1].to_lowercase() + &rest[1..];
                    key = match key.as_str() {
                        "aggregateStatus" => "status".into(),
                        "aggregateReasonCode" => "reasonCode".into(),
                        "aggregateScore" => "score".into(),
                        _ => key,
                    };
                    let one: Map<String, Value> = [(key.clone(), e.clone())].into_iter().collect();
                    let done = check_verdict(c, &one, w, jury, setup)?;
                    if !done.contains(&key) {
                        return Err(format!("unknown attempt expectation key {other:?}"));
                    }
                    continue;
                }
                (Some(_), None) => {
                    return Err(format!("attempt {name}.{k}: the attempt has no verdict"));
                }
                _ => return Err(format!("unknown attempt expectation key {other:?}")),
            },
        };
        if !same(&actual, e) {
            return Err(format!(
                "attempt {name}.{k}: expected {e}, got {actual}; attempt: {}",
                ser(a)
            ));
        }
    }
    Ok(())
}

/// The attempt the root decision names, if any.
fn decided_attempt(v: &Verdict) -> Option<&Verdict> {
    match v.decision() {
        Decision::Tier { tier, .. } => v.attempt(tier).and_then(|a| a.verdict()),
        _ => None,
    }
}

fn check_verdict(
    v: &Verdict,
    exp: &Map<String, Value>,
    w: &World,
    jury: &dyn Jury,
    setup: &Value,
) -> Res<BTreeSet<String>> {
    let mut used = check_judgment(v.aggregated(), exp, None)?;
    for (k, e) in exp {
        if used.contains(k) {
            continue;
        }
        let actual: Value = match k.as_str() {
            "decision" => serde_json::to_value(v.decision()).map_err(|e| e.to_string())?,
            "attempts" => {
                for a in e.as_array().ok_or("attempts must be a list")? {
                    check_attempt(v, a, w, jury, setup)?;
                }
                used.insert(k.clone());
                continue;
            }
            "tiersRan" | "attemptNames" => Value::Array(
                v.composite_attempts()
                    .iter()
                    .map(|a| a.name().into())
                    .collect(),
            ),
            "individualStatuses" => statuses(v.individual()),
            "individualReasonCodes" => codes(v.individual()),
            "individualByNameKeys" => Value::Array(
                v.individual_by_name()
                    .keys()
                    .map(|k| k.as_str().into())
                    .collect(),
            ),
            "individualCount" => v.individual().len().into(),
            "individualByNameSize" => v.individual_by_name().len().into(),
            "individual" => {
                for (name, je) in e.as_object().ok_or("individual must be an object")? {
                    let j = v
                        .individual_by_name()
                        .get(name)
                        .ok_or(format!("no individual {name:?}"))?;
                    let own = w
                        .judges
                        .lock()
                        .unwrap()
                        .iter()
                        .find(|(n, _)| n == name)
                        .and_then(|(_, d)| match &d.behavior {
                            JudgeBehavior::Returns(r) => Some(r.reasoning().to_string()),
                            _ => None,
                        });
                    let je = je
                        .as_object()
                        .ok_or("individual expectation must be an object")?;
                    let done = check_judgment(j, je, own.as_deref())?;
                    if let Some(extra) = je.keys().find(|k| !done.contains(*k)) {
                        return Err(format!("unknown individual expectation key {extra:?}"));
                    }
                }
                used.insert(k.clone());
                continue;
            }
            "seats" => serde_json::to_value(v.seats()).map_err(|e| e.to_string())?,
            "seatKeySources" => {
                Value::Array(v.seats().iter().map(|s| json!(s.key_source)).collect())
            }
            "seatPositions" => Value::Array(v.seats().iter().map(|s| s.position.into()).collect()),
            "weights" => serde_json::to_value(v.weights()).map_err(|e| e.to_string())?,
            "firstAttemptAggregateStatus" => v
                .composite_attempts()
                .first()
                .and_then(|a| a.verdict())
                .map_or(Value::Null, |c| c.aggregated().status().token().into()),
            "childDecisionTier" => decided_attempt(v).map_or(Value::Null, |c| {
                serde_json::to_value(c.decision()).unwrap_or_default()["tier"].clone()
            }),
            "rootEqualsInnerAggregate" => {
                Value::Bool(decided_attempt(v).is_some_and(|c| c.aggregated() == v.aggregated()))
            }
            "selectedDetermination" => {
                let c = decided_attempt(v).ok_or("no decided tier")?;
                let d = serde_json::to_value(c.decision()).map_err(|e| e.to_string())?;
                let mut m = e
                    .as_object()
                    .cloned()
                    .ok_or("selectedDetermination must be an object")?;
                for key in ["basis", "tier"] {
                    if let Some(x) = m.remove(key)
                        && !same(&d[key], &x)
                    {
                        return Err(format!(
                            "selectedDetermination.{key}: expected {x}, got {}",
                            d[key]
                        ));
                    }
                }
                let done = check_judgment(c.aggregated(), &m, None)?;
                if let Some(extra) = m.keys().find(|k| !done.contains(*k)) {
                    return Err(format!("unknown selectedDetermination key {extra:?}"));
                }
                used.insert(k.clone());
                continue;
            }
            "strategyCalled" => {
                let calls = w
                    .top_strategy_calls
                    .lock()
                    .unwrap()
                    .clone()
                    .ok_or("no top-level strategy to spy on")?;
                Value::Bool(calls.load(Ordering::SeqCst) > 0)
            }
            "judgeInvoked" => Value::Bool(
                w.judges
                    .lock()
                    .unwrap()
                    .iter()
                    .any(|(_, d)| d.invoked.load(Ordering::SeqCst)),
            ),
            _ => match jury_level(k, e, jury, setup, w)? {
                Some(a) => a,
                None => continue,
            },
        };
        if !same(&actual, e) {
            return Err(format!(
                "{k}: expected {e}, got {actual}; verdict: {}",
                ser(v)
            ));
        }
        used.insert(k.clone());
    }
    Ok(used)
}

/// Expectations about the jury itself rather than a verdict; `None` for keys it does not know.
fn jury_level(k: &str, e: &Value, jury: &dyn Jury, setup: &Value, w: &World) -> Res<Option<Value>> {
    Ok(Some(match k {
        "builds" => Value::Bool(true),
        "aggregateMayBeNotApplicable" => Value::Bool(jury.aggregate_may_be_not_applicable()),
        "memberAggregateMayBeNotApplicable" => {
            let members = setup
                .pointer("/jury/members")
                .and_then(Value::as_array)
                .ok_or("no members in setup")?;
            let vars = Map::new();
            let mut flags = Vec::new();
            for m in members {
                let built = jury_fn(m.get("jury").ok_or("member without jury")?, w, &vars)?;
                flags.push(built.aggregate_may_be_not_applicable());
            }
            let expected = e
                .as_bool()
                .ok_or("memberAggregateMayBeNotApplicable must be a bool")?;
            Value::Bool(if flags.iter().all(|f| *f == expected) {
                expected
            } else {
                !expected
            })
        }
        "describeThrows" => match jury.describe() {
            Ok(d) => return Err(format!("describe() should fail but gave {d}")),
            Err(err) => Value::String(err.java_type().into()),
        },
        "describeError" => match jury.describe() {
            Ok(d) => return Err(format!("describe() should fail but gave {d}")),
            Err(err) => {
                check_error(&err, e, "describe")?;
                e.clone()
            }
        },
        "describedSeatConditions" => {
            let d = jury.describe().map_err(|e| e.to_string())?;
            let seats = d["seats"].as_array().ok_or("description has no seats")?;
            Value::Array(
                seats
                    .iter()
                    .map(|s| s["judge"]["notApplicableWhen"]["value"].clone())
                    .collect(),
            )
        }
        _ => return Ok(None),
    }))
}

fn jury_fn(v: &Value, w: &World, vars: &Map<String, Value>) -> Res<Arc<dyn Jury>> {
    jury(v, w, vars, false).map_err(|e| match e {
        Ok(b) => b.to_string(),
        Err(s) => s,
    })
}

// ---------------------------------------------------------------------------------------------
// Running cases
// ---------------------------------------------------------------------------------------------

fn finish(exp: &Map<String, Value>, used: BTreeSet<String>, extra_known: &[&str]) -> Res<()> {
    let unknown: Vec<&String> = exp
        .keys()
        .filter(|k| !used.contains(*k) && !extra_known.contains(&k.as_str()))
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "expectation keys not checked (unknown to the harness or not applicable): {unknown:?}"
        ))
    }
}

async fn run_jury_case(setup: &Value, exp: &Map<String, Value>) -> Res<()> {
    let w = World::default();
    let jury = match setup_jury(setup, &w) {
        Ok(j) => j,
        Err(Ok(e)) => {
            let ce = exp
                .get("constructionError")
                .ok_or(format!("construction refused: {e}"))?;
            check_error(&e, ce, "construction")?;
            let used: BTreeSet<String> = ["constructionError".to_string()].into();
            return finish(exp, used, &[]);
        }
        Err(Err(s)) => return Err(s),
    };
    if exp.contains_key("constructionError") {
        return Err("construction should have been refused".into());
    }
    let only_jury_level = exp.keys().all(|k| {
        matches!(
            k.as_str(),
            "builds"
                | "aggregateMayBeNotApplicable"
                | "memberAggregateMayBeNotApplicable"
                | "describeError"
                | "describeThrows"
                | "describedSeatConditions"
        )
    });
    let mut used = BTreeSet::new();
    if only_jury_level {
        for (k, e) in exp {
            let a =
                jury_level(k, e, jury.as_ref(), setup, &w)?.ok_or(format!("unknown key {k}"))?;
            if !same(&a, e) {
                return Err(format!("{k}: expected {e}, got {a}"));
            }
            used.insert(k.clone());
        }
        return finish(exp, used, &[]);
    }
    let ctx = Arc::new(JudgmentContext::new("."));
    match judge_ci::jury::vote(jury.as_ref(), ctx).await {
        Err(f) => {
            let want = exp
                .get("voteThrows")
                .and_then(Value::as_str)
                .ok_or(format!("vote failed: {f}"))?;
            match f {
                Fault::Fatal { kind, .. } | Fault::Threw { kind, .. } if kind == want => {}
                other => return Err(format!("voteThrows: expected {want}, got {other}")),
            }
            used.insert("voteThrows".into());
            finish(exp, used, &[])
        }
        Ok(v) => {
            if exp.contains_key("voteThrows") {
                return Err(format!("vote should have thrown but gave {}", ser(&v)));
            }
            // The wire form must round-trip byte for byte.
            let text = serde_json::to_string(&v).map_err(|e| e.to_string())?;
            let back: Verdict = serde_json::from_str(&text)
                .map_err(|e| format!("verdict does not re-read: {e}: {text}"))?;
            if serde_json::to_string(&back).map_err(|e| e.to_string())? != text {
                return Err("verdict JSON does not round-trip".into());
            }
            // The engine's own output reads without defects and is never contradicted by its evidence.
            let reading = judge_ci::jury::interpret::interpret_verdict(&v);
            if !reading.defects.is_empty()
                || reading.reading_support == ReadingSupport::Contradicted
            {
                return Err(format!(
                    "interpretation of the verdict found {:?}",
                    reading.defects
                ));
            }
            let used = check_verdict(&v, exp, &w, jury.as_ref(), setup)?;
            finish(exp, used, &[])
        }
    }
}

fn weights_of(v: Option<&Value>) -> Res<Weights> {
    let mut w = Weights::new();
    if let Some(obj) = v.and_then(Value::as_object) {
        for (k, x) in obj {
            w.insert(k.clone(), number(x)?);
        }
    }
    Ok(w)
}

fn judgments_of(v: Option<&Value>) -> Res<Vec<Judgment>> {
    v.and_then(Value::as_array)
        .ok_or("setup needs judgments")?
        .iter()
        .enumerate()
        .map(|(i, j)| judgment(j, &format!("input {i}")))
        .collect()
}

/// The first member's jury for one `memberFailureShape` alternative of a meta-jury case: the
/// shape is named by the reason code in its parentheses (`throws (execution_failed)`,
/// `undecided with any machinery code (child_undecided)`: one jury per machinery code,
/// `undeclared NOT_APPLICABLE aggregate (undeclared_not_applicable)`).
fn member_failure_shapes(shape: &str) -> Res<Vec<Value>> {
    let code = shape
        .rsplit_once('(')
        .and_then(|(_, c)| c.strip_suffix(')'))
        .ok_or(format!(
            "memberFailureShape {shape:?} names no code in parentheses"
        ))?;
    match code {
        "execution_failed" => Ok(vec![
            json!({"type":"opaque","throws":"IllegalStateException"}),
        ]),
        "child_undecided" => Ok([
            "not_applicable_refused",
            "aggregation_failed",
            "stage_failed",
            "no_tier_decided",
        ]
        .iter()
        .map(|c| {
            json!({"type":"opaque","returnsVerdict":{
                "aggregated":{"status":"error","reasonCode":c},
                "decision":{"kind":"undecided"}}})
        })
        .collect()),
        "undeclared_not_applicable" => Ok(vec![json!({"type":"opaque",
            "aggregateMayBeNotApplicable": false,
            "returnsVerdict":{"aggregated":{"status":"not_applicable"},"decision":{"kind":"own"}}})]),
        other => Err(format!("unknown memberFailureShape code {other:?}")),
    }
}

/// Every combination of the `alsoHoldsFor` alternatives applied to the base setup. A
/// strategy parameter applies to the setup's own strategy, or to its jury's when the setup is
/// a jury (a `construction` case).
fn variations(setup: &Value) -> Res<Vec<Value>> {
    let mut out = vec![setup.clone()];
    let Some(also) = setup.get("alsoHoldsFor").and_then(Value::as_object) else {
        return Ok(out);
    };
    for (key, values) in also {
        let strategy_key = |name: &str| {
            if setup.get("strategy").is_some() {
                format!("/strategy/{name}")
            } else {
                format!("/jury/strategy/{name}")
            }
        };
        let pointer = match key.as_str() {
            "strategy" => strategy_key("name"),
            "errorPolicy" => strategy_key("errorPolicy"),
            "notApplicablePolicy" => strategy_key("notApplicablePolicy"),
            "tiePolicy" => strategy_key("tiePolicy"),
            "metaErrorPolicy" => "/jury/strategy/errorPolicy".to_string(),
            "returnedCode" => "/jury/strategy/behavior/returns/reasonCode".to_string(),
            "metaNotApplicablePolicy" => "/jury/strategy/notApplicablePolicy".to_string(),
            "memberFailureShape" => "/jury/members/0/jury".to_string(),
            other => return Err(format!("unknown alsoHoldsFor key {other:?}")),
        };
        let mut next = Vec::new();
        for base in &out {
            next.push(base.clone());
            for v in values
                .as_array()
                .ok_or("alsoHoldsFor values must be a list")?
            {
                let replacements = if key == "memberFailureShape" {
                    member_failure_shapes(v.as_str().ok_or("memberFailureShape: not a string")?)?
                } else {
                    vec![v.clone()]
                };
                for r in replacements {
                    let mut s = base.clone();
                    *s.pointer_mut(&pointer)
                        .ok_or(format!("alsoHoldsFor: setup has no {pointer}"))? = r;
                    if key == "strategy"
                        && v.as_str() != Some("majority")
                        && let Some(st) = s.get_mut("strategy").and_then(Value::as_object_mut)
                    {
                        st.remove("tiePolicy");
                    }
                    next.push(s);
                }
            }
        }
        out = next;
    }
    Ok(out)
}

fn run_strategy_case(setup: &Value, exp: &Map<String, Value>) -> Res<()> {
    let mut used = BTreeSet::new();
    for s in variations(setup)? {
        let w = World::default();
        let strat = match strategy(s.get("strategy").ok_or("no strategy")?, &w) {
            Ok(x) => x,
            Err(Ok(e)) => {
                check_error(
                    &e,
                    exp.get("constructionError")
                        .ok_or(format!("strategy refused: {e}"))?,
                    "construction",
                )?;
                used.insert("constructionError".to_string());
                continue;
            }
            Err(Err(m)) => return Err(m),
        };
        let inputs = judgments_of(s.get("judgments"))?;
        let weight_sets: Vec<Weights> = match s.get("weightsVariants").and_then(Value::as_array) {
            Some(list) => list
                .iter()
                .map(|x| weights_of(Some(x)))
                .collect::<Res<_>>()?,
            None => vec![weights_of(s.get("weights"))?],
        };
        for weights in weight_sets {
            let before = inputs.clone();
            let result = strat.aggregate(&inputs, &weights);
            if inputs != before {
                return Err("the strategy changed its inputs".into());
            }
            let j = match result {
                Err(f) => {
                    let ae = exp
                        .get("aggregateError")
                        .ok_or(format!("aggregate failed: {f}"))?;
                    check_error(&fault_error(&f), ae, "aggregate")?;
                    used.insert("aggregateError".into());
                    continue;
                }
                Ok(j) => j,
            };
            if exp.contains_key("aggregateError") {
                return Err(format!("aggregate should have failed but gave {}", ser(&j)));
            }
            used.extend(check_judgment(&j, exp, None)?);
            if let Some(by) = exp.get("evidenceByErrorPolicy").and_then(Value::as_object) {
                let ep = s
                    .pointer("/strategy/errorPolicy")
                    .and_then(Value::as_str)
                    .unwrap_or("propagate");
                if let Some(sub) = by.get(ep) {
                    let m: Map<String, Value> = [("evidence".to_string(), sub.clone())]
                        .into_iter()
                        .collect();
                    check_judgment(&j, &m, None)?;
                }
                used.insert("evidenceByErrorPolicy".into());
            }
            if exp.get("originalNotApplicableUnchanged") == Some(&Value::Bool(true)) {
                let na_in = inputs
                    .iter()
                    .filter(|j| j.status() == Status::NotApplicable)
                    .count();
                if na_in == 0 || inputs != before {
                    return Err(
                        "originalNotApplicableUnchanged: no NOT_APPLICABLE input, or it changed"
                            .into(),
                    );
                }
                used.insert("originalNotApplicableUnchanged".into());
            }
            if let Some(cmp) = s.get("compareWith") {
                let other = judgments_of(cmp.get("judgments"))?;
                let oj = strat
                    .aggregate(&other, &weights_of(cmp.get("weights"))?)
                    .map_err(|f| format!("comparison aggregate failed: {f}"))?;
                if let Some(cs) = exp.get("comparisonStatus") {
                    if cs.as_str() != Some(oj.status().token()) {
                        return Err(format!("comparisonStatus: expected {cs}, got {}", ser(&oj)));
                    }
                    used.insert("comparisonStatus".into());
                }
                if let Some(same_flag) = exp.get("sameReasoningAndEvidenceAsComparison") {
                    let eq = oj.reasoning() == j.reasoning() && oj.evidence() == j.evidence();
                    if Some(eq) != same_flag.as_bool() {
                        return Err(format!(
                            "sameReasoningAndEvidenceAsComparison: {} vs {}",
                            ser(&j),
                            ser(&oj)
                        ));
                    }
                    used.insert("sameReasoningAndEvidenceAsComparison".into());
                }
            }
        }
    }
    finish(exp, used, &[])
}

/// `"Average(threshold,EP)"` → a spec with the given parameters; absent ones take valid values.
fn constructor_spec(name: &str, setup: &Value, ep_override: Option<&Value>) -> Res<StrategySpec> {
    let (class, params) = name
        .split_once('(')
        .ok_or(format!("bad constructor {name:?}"))?;
    let params: Vec<&str> = params
        .trim_end_matches(')')
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let kind = match class {
        "AllMustPass" => StrategyKind::AllMustPass,
        "Average" => StrategyKind::Average,
        "Conjunctive" => StrategyKind::Conjunctive,
        "Consensus" => StrategyKind::Consensus,
        "Majority" => StrategyKind::Majority,
        "Median" => StrategyKind::Median,
        "WeightedAverage" => StrategyKind::WeightedAverage,
        other => return Err(format!("unknown constructor class {other}")),
    };
    let mut spec = StrategySpec::defaults(kind);
    if params.contains(&"threshold") {
        spec.threshold = Some(match setup.get("threshold") {
            Some(t) => number(t)?,
            None => 0.5,
        });
    }
    if params.contains(&"EP") {
        let ep = ep_override
            .or(setup.get("errorPolicy"))
            .cloned()
            .unwrap_or(json!("propagate"));
        spec.error_policy = policy::<ErrorPolicy>(&ep)?;
    }
    if params.contains(&"TiePolicy") {
        spec.tie_policy = policy::<TiePolicy>(setup.get("tiePolicy").unwrap_or(&json!("FAIL")))?;
    }
    Ok(spec)
}

fn expect_refusal(spec: &StrategySpec, exp: &Value) -> Res<()> {
    match spec.build() {
        Ok(_) => Err(format!("{spec:?} should have been refused")),
        Err(e) => check_error(&e, exp, "construction"),
    }
}

fn run_construction_case(setup: &Value, exp: &Map<String, Value>) -> Res<()> {
    let mut used = BTreeSet::new();
    if let Some(list) = setup.get("strategies").and_then(Value::as_array) {
        let inputs = judgments_of(setup.get("judgments"))?;
        for s in list {
            let s = s.as_str().ok_or("strategies must be strings")?;
            let (name, arg) = s.split_once('(').ok_or(format!("bad strategy {s:?}"))?;
            let arg = arg.trim_end_matches(')');
            let mut spec =
                StrategySpec::defaults(name.parse().map_err(|e: BuildError| e.to_string())?);
            if !arg.is_empty() {
                spec.threshold = Some(arg.parse().map_err(|_| format!("bad threshold in {s}"))?);
            }
            let built: BuiltinStrategy = spec.build().map_err(|e| format!("{s}: {e}"))?;
            let d = built.describe();
            if let Some(ep) = exp.get("describedErrorPolicy") {
                if d.pointer("/parameters/values/errorPolicy") != Some(ep) {
                    return Err(format!("{s}: described error policy {d}"));
                }
                used.insert("describedErrorPolicy".to_string());
            }
            if let Some(tp) = exp.get("majorityDescribedTiePolicy") {
                if name == "majority" && d.pointer("/parameters/values/tiePolicy") != Some(tp) {
                    return Err(format!("{s}: described tie policy {d}"));
                }
                used.insert("majorityDescribedTiePolicy".to_string());
            }
            if exp.get("aggregateDoesNotThrow") == Some(&Value::Bool(true)) {
                built
                    .try_aggregate(&inputs, &Weights::new())
                    .map_err(|e| format!("{s}: {e}"))?;
                used.insert("aggregateDoesNotThrow".to_string());
            }
        }
        return finish(exp, used, &[]);
    }
    let ce = exp.get("constructionError");
    if let Some(list) = setup.get("constructors").and_then(Value::as_array) {
        let ce = ce.ok_or("constructors case needs constructionError")?;
        for c in list {
            expect_refusal(
                &constructor_spec(c.as_str().unwrap_or(""), setup, None)?,
                ce,
            )?;
        }
        return finish(exp, ["constructionError".to_string()].into(), &[]);
    }
    if let Some(c) = setup.get("constructor").and_then(Value::as_str) {
        let ce = ce.ok_or("constructor case needs constructionError")?;
        match setup.get("errorPolicyVariants").and_then(Value::as_array) {
            Some(eps) => {
                for ep in eps {
                    expect_refusal(&constructor_spec(c, setup, Some(ep))?, ce)?;
                }
            }
            None => expect_refusal(&constructor_spec(c, setup, None)?, ce)?,
        }
        return finish(exp, ["constructionError".to_string()].into(), &[]);
    }
    if let Some(list) = setup.get("constructorVariants").and_then(Value::as_array) {
        let ce = ce.ok_or("constructorVariants case needs constructionError")?;
        for v in list {
            let c = str_of(v, "constructor").ok_or("variant needs a constructor")?;
            expect_refusal(&constructor_spec(c, v, None)?, ce)?;
        }
        return finish(exp, ["constructionError".to_string()].into(), &[]);
    }
    if let Some(m) = setup.get("judgeMetadata") {
        let jt = match str_of(m, "type").unwrap_or("DETERMINISTIC") {
            "DETERMINISTIC" => JudgeType::Deterministic,
            "LLM_POWERED" => JudgeType::LlmPowered,
            "HYBRID" => JudgeType::Hybrid,
            "AGENT" => JudgeType::Agent,
            other => return Err(format!("unknown judge type {other}")),
        };
        let r = JudgeMetadata::new(
            str_of(m, "name").unwrap_or(""),
            str_of(m, "description").map(str::to_string),
            jt,
            str_of(m, "notApplicableWhen").map(str::to_string),
        );
        return match (r, ce) {
            (Err(e), Some(ce)) => {
                check_error(&e, ce, "metadata")?;
                finish(exp, ["constructionError".to_string()].into(), &[])
            }
            (Ok(_), Some(_)) => Err("metadata should have been refused".into()),
            (Err(e), None) => Err(format!("metadata refused: {e}")),
            (Ok(_), None) => finish(exp, used, &[]),
        };
    }
    Err("construction setup not understood".into())
}

/// Jury-builder variants: `{strategy: null|name, seats: N}`, `{weight: w}`.
fn run_builder_variants(variants: &[Value], exp: &Map<String, Value>) -> Res<()> {
    let errors = exp
        .get("variantErrors")
        .and_then(Value::as_array)
        .ok_or("variants need variantErrors")?;
    if errors.len() != variants.len() {
        return Err("variants and variantErrors differ in length".into());
    }
    for (v, e) in variants.iter().zip(errors) {
        let obj = v.as_object().ok_or("variant must be an object")?;
        if obj.get("judge").is_some_and(Value::is_null) {
            return Err("a null judge cannot be expressed: seats take Arc<dyn Judge>".into());
        }
        let mut b = SimpleJury::builder();
        match obj.get("strategy") {
            Some(Value::Null) => {}
            Some(Value::String(s)) => {
                let k: StrategyKind = s.parse().map_err(|e: BuildError| e.to_string())?;
                b = b.strategy(Arc::new(
                    StrategySpec::defaults(k)
                        .build()
                        .map_err(|e| e.to_string())?,
                ));
            }
            None => {
                b = b.strategy(Arc::new(
                    StrategySpec::defaults(StrategyKind::Majority)
                        .build()
                        .map_err(|e| e.to_string())?,
                ))
            }
            Some(other) => return Err(format!("bad variant strategy {other}")),
        }
        let w = World::default();
        let pass = json!({"name": "j", "returns": {"status": "pass"}});
        if let Some(wt) = obj.get("weight") {
            b = b.weighted(seat_judge(&pass, 0, &w)?, number(wt)?);
        } else {
            let n = obj.get("seats").and_then(Value::as_u64).unwrap_or(1);
            for i in 0..n {
                b = b.judge(seat_judge(&pass, i as usize, &w)?);
            }
        }
        match b.build() {
            Ok(_) => return Err(format!("variant {v} should have been refused")),
            Err(err) => check_error(&err, e, &format!("variant {v}"))?,
        }
    }
    finish(exp, ["variantErrors".to_string()].into(), &[])
}

/// Whether a variant's jury (structured or prose) is a meta-jury.
fn is_meta(j: &Value) -> bool {
    match j {
        Value::String(prose) => prose.trim_start().starts_with("meta("),
        other => str_of(other, "type") == Some("meta"),
    }
}

/// The expectations for variant `i` of `n`: a per-jury fact given as a list of `n` values (one
/// per variant, e.g. `aggregateMayBeNotApplicable: [true, false, …]`) becomes that variant's value.
fn pick_variant(exp: &Map<String, Value>, i: usize, n: usize) -> Res<Map<String, Value>> {
    let mut out = exp.clone();
    for key in ["aggregateMayBeNotApplicable", "builds"] {
        if let Some(Value::Array(list)) = exp.get(key) {
            if list.len() != n {
                return Err(format!(
                    "{key} lists {} values for {n} variants",
                    list.len()
                ));
            }
            out.insert(key.into(), list[i].clone());
        }
    }
    Ok(out)
}

/// Meta-jury builder variants: `{members: null | [] | [jury…]}`, `{strategy: null | {…}}`; what a
/// variant leaves out is valid (one passing member, consensus). `null` is "never set", the only
/// way a Rust caller can omit a value; every variant must be refused with `constructionError`.
fn run_meta_builder_variants(variants: &[Value], exp: &Map<String, Value>) -> Res<()> {
    let ce = exp
        .get("constructionError")
        .ok_or("meta-jury variants need constructionError")?;
    for v in variants {
        let w = World::default();
        let vars = Map::new();
        let mut b = MetaJury::builder();
        match v.get("strategy") {
            Some(Value::Null) => {}
            Some(s) => {
                b = b.strategy(strategy(s, &w).map_err(|e| format!("variant {v}: {e:?}"))?);
            }
            None => {
                b = b.strategy(Arc::new(
                    StrategySpec::defaults(StrategyKind::Consensus)
                        .build()
                        .map_err(|e| e.to_string())?,
                ));
            }
        }
        let members = match v.get("members") {
            Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list.clone(),
            Some(other) => return Err(format!("bad variant members {other}")),
            None => vec![json!({"name": "member", "jury": "passing"})],
        };
        for m in &members {
            let name = str_of(m, "name").ok_or("member needs a name")?;
            let j = jury_fn(m.get("jury").ok_or("member needs a jury")?, &w, &vars)?;
            b = b.member(NamedJury::new(name, j));
        }
        match b.build() {
            Ok(_) => return Err(format!("variant {v} should have been refused")),
            Err(err) => check_error(&err, ce, &format!("variant {v}"))?,
        }
    }
    finish(exp, ["constructionError".to_string()].into(), &[])
}

async fn run_case(case: &Value) -> Res<()> {
    let setup = case.get("setup").ok_or("case has no setup")?;
    let exp = case
        .get("expected")
        .and_then(Value::as_object)
        .ok_or("case has no expected")?;
    if let Some(variants) = setup.get("variants").and_then(Value::as_array) {
        let structural = variants
            .iter()
            .all(|v| v.get("jury").is_some() || v.get("memberJury").is_some());
        if variants.iter().any(|v| v.get("members").is_some()) {
            return run_meta_builder_variants(variants, exp);
        }
        if !structural {
            return run_builder_variants(variants, exp);
        }
        let results = exp.get("variantResults").and_then(Value::as_array);
        for (i, v) in variants.iter().enumerate() {
            let mut s = setup
                .as_object()
                .cloned()
                .ok_or("setup must be an object")?;
            s.remove("variants");
            for (k, x) in v.as_object().ok_or("variant must be an object")? {
                s.insert(k.clone(), x.clone());
            }
            // Prose may name other variants' juries: `<variant N>` and `<previous meta>`.
            for (n, other) in variants.iter().enumerate() {
                if let Some(j) = other.get("jury") {
                    s.insert(format!("variant {}", n + 1), j.clone());
                }
            }
            if let Some(j) = variants[..i]
                .iter()
                .rev()
                .filter_map(|o| o.get("jury"))
                .find(|j| is_meta(j))
            {
                s.insert("previous meta".into(), j.clone());
            }
            let per_variant;
            let e = match results {
                Some(r) => r
                    .get(i)
                    .and_then(Value::as_object)
                    .ok_or(format!("no variantResults[{i}]"))?,
                None => {
                    per_variant = pick_variant(exp, i, variants.len())?;
                    &per_variant
                }
            };
            Box::pin(run_jury_case(&Value::Object(s), e))
                .await
                .map_err(|m| format!("variant {i}: {m}"))?;
        }
        return Ok(());
    }
    if setup.get("jury").is_some() || setup.get("factory").is_some() {
        for (i, s) in variations(setup)?.iter().enumerate() {
            run_jury_case(s, exp)
                .await
                .map_err(|m| format!("alternative {i}: {m}"))?;
        }
        return Ok(());
    }
    if setup.get("judgments").is_some() && setup.get("strategy").is_some() {
        return run_strategy_case(setup, exp);
    }
    run_construction_case(setup, exp)
}

/// The shipped cases, as JSON values.
fn shipped_cases() -> Vec<Value> {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/jury-cases.json");
    read_cases(&f)
}

fn read_cases(f: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Runs the shipped case `id` (one named test per case in `conformance_cases.rs`).
pub(crate) fn run_named(id: &str) {
    let cases = shipped_cases();
    let case = cases
        .iter()
        .find(|c| str_of(c, "id") == Some(id))
        .unwrap_or_else(|| panic!("no conformance case {id} in tests/conformance/jury-cases.json"));
    if let Err(m) = runtime().block_on(run_case(case)) {
        panic!("conformance case {id} failed: {m}");
    }
}

fn skips() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance-skips.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (id, why) = l.split_once(':').unwrap_or((l, ""));
            (id.trim().to_string(), why.trim().to_string())
        })
        .collect()
}

/// Every shipped case has exactly one named test, each skip names a real case, the skipped
/// cases are the ignored tests, and at most five non-disputed cases are skipped.
#[test]
fn every_case_has_its_own_test() {
    let generated = include_str!("conformance_cases.rs");
    let cases = shipped_cases();
    let ids: BTreeSet<&str> = cases.iter().filter_map(|c| str_of(c, "id")).collect();
    let named: Vec<&str> = generated
        .split("run_named(\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    let named_set: BTreeSet<&str> = named.iter().copied().collect();
    assert_eq!(
        named.len(),
        named_set.len(),
        "a case has two tests in conformance_cases.rs"
    );
    assert_eq!(
        ids, named_set,
        "tests/it/conformance_cases.rs is stale: run scripts/conformance-tests"
    );
    let skips = skips();
    let missing: Vec<&String> = skips
        .iter()
        .map(|(id, _)| id)
        .filter(|id| !ids.contains(id.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "conformance-skips.txt names cases that do not exist: {missing:?}"
    );
    let ignored = generated.matches("#[ignore = ").count();
    assert_eq!(
        ignored,
        skips.len(),
        "conformance_cases.rs ignores other cases than conformance-skips.txt: run scripts/conformance-tests"
    );
    let counted = skips
        .iter()
        .filter(|(_, why)| !why.starts_with("disputed:"))
        .count();
    assert!(
        counted <= 5,
        "at most 5 non-disputed skips are allowed, found {counted}"
    );
}

/// Runs the cases of the files named in `JUDGE_CI_EXTRA_CASES` (colon-separated), e.g. a newer
/// copy of the shared conformance suite.
#[test]
#[ignore = "runs only the case files named in JUDGE_CI_EXTRA_CASES; run with --ignored"]
fn extra_cases() {
    let extra = std::env::var("JUDGE_CI_EXTRA_CASES")
        .expect("JUDGE_CI_EXTRA_CASES names the case files to run (colon-separated)");
    let rt = runtime();
    let mut failed = Vec::new();
    let mut ran = 0;
    for f in extra.split(':').filter(|s| !s.is_empty()) {
        for case in read_cases(&PathBuf::from(f)) {
            let id = str_of(&case, "id").unwrap_or("(no id)").to_string();
            ran += 1;
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                rt.block_on(run_case(&case))
            }));
            match outcome {
                Ok(Ok(())) => {}
                Ok(Err(m)) => failed.push(format!("{id}: {m}")),
                Err(_) => failed.push(format!("{id}: panicked")),
            }
        }
    }
    assert!(ran > 0, "JUDGE_CI_EXTRA_CASES named no case");
    assert!(
        failed.is_empty(),
        "{} case(s) failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
