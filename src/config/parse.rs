//! Parsing and validating the benchmark and task files: every problem is found and reported
//! (file, line, column, what would be valid) before anything runs.

use marked_yaml::Node;
use marked_yaml::types::MarkedMappingNode;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::jury::TierPolicy;
use crate::jury::strategies::{
    ErrorPolicy, NotApplicablePolicy, StrategyKind, StrategySpec, TiePolicy,
};

use super::checks::{self, CheckKind};
use super::diag::{Diagnostic, Diagnostics};
use super::llm::LlmSettings;
use super::model::*;
use super::source::ConfigSource;
use super::token;
use super::yaml::{Key, Kind, Reader, is_null, key, parse, to_json};

/// Top-level keys of a benchmark file.
#[rustfmt::skip]
pub const BENCHMARK_KEYS: &[Key] = &[
    key("schema", Kind::Str, "bench.benchmark.v1 or judge-ci.v1"),
    key("name", Kind::Str, "shown in reports; keys the sticky comment"),
    key("version", Kind::Str, "config version (\"1.0\")"),
    key("description", Kind::Str, "what the benchmark grades"),
    key("default-timeout", Kind::Duration, "limit of task setup/post commands (PT5M)"),
    key("metadata", Kind::Any, "passed to every judge's context"),
    key("reference", Kind::Object, "where the reference comes from: path, or ref (+ repository)"),
    key("base", Kind::Object, "the tree the change starts from (path, or ref + repository): judge-ci runs the trusted tests on it too, for FAIL_TO_PASS and PASS_TO_PASS"),
    key("jury", Kind::Object, "exactly one of tiers, checks, members"),
    key("diagnostics", Kind::Object, "gap-analysis inputs and user rules"),
    key("llm", Kind::Object, "defaults for semantic judges"),
    key("report", Kind::Object, "how results are reported"),
    key("protected", Kind::StrList, "globs of paths a pull request may not change unnoticed (default: .github/**, build wrappers); a list adds to .github/**, the config and the files it names, which always are"),
    key("protected-action", Kind::Enum(token::accepted::<ProtectedAction>), "what a change to a protected path does: report it as a finding (default), or also fail with a FAIL judgment protected-paths in the first tier"),
    key("unjudged-action", Kind::Enum(token::accepted::<ProtectedAction>), "what a changed file no check reads does: report it in the report and the comment (default), or also fail with a FAIL judgment unjudged-changes in the first tier"),
    key("restore", Kind::StrList, "globs of files copied from the reference into the workspace before any judge runs (test files)"),
    key("sandbox", Kind::Object, "the fence around subject processes: network"),
    key("reveal", Kind::Enum(token::accepted::<Reveal>), "how much of the reference reaches what the pull request's author reads (comment, check run, summary, JUnit, SARIF, HTML, report.json): full (its lines), names (what differs and where, no reference text), none (tiers, statuses and counts); default full"),
];

/// Keys of `jury:`.
#[rustfmt::skip]
pub const JURY_KEYS: &[Key] = &[
    key("tiers", Kind::ObjectList, "a cascade: one simple jury per tier"),
    key("checks", Kind::ObjectList, "one simple jury (all-must-pass unless voting says otherwise)"),
    key("members", Kind::ObjectList, "a meta-jury over named sub-juries"),
    key("voting", Kind::Object, "how checks or members are reduced"),
    key("parallel", Kind::Bool, "run the checks concurrently (true) or in order (false)"),
];

/// Keys of a tier.
#[rustfmt::skip]
pub const TIER_KEYS: &[Key] = &[
    key("name", Kind::Str, "unique tier name (tier-N)"),
    key("policy", Kind::Enum(token::accepted::<TierPolicy>), "when the cascade stops after this tier"),
    key("voting", Kind::Object, "how the tier's checks are reduced (majority)"),
    key("checks", Kind::ObjectList, "the tier's checks"),
    key("parallel", Kind::Bool, "run the checks concurrently (true) or in order (false)"),
];

/// Keys of a meta-jury member.
#[rustfmt::skip]
pub const MEMBER_KEYS: &[Key] = &[
    key("name", Kind::Str, "unique member name"),
    key("tiers", Kind::ObjectList, "a cascade"),
    key("checks", Kind::ObjectList, "a simple jury"),
    key("members", Kind::ObjectList, "a nested meta-jury"),
    key("voting", Kind::Object, "how this member's checks or members are reduced"),
    key("parallel", Kind::Bool, "run the checks concurrently (true) or in order (false)"),
];

/// Keys of `voting:`.
#[rustfmt::skip]
pub const VOTING_KEYS: &[Key] = &[
    key("strategy", Kind::Enum(token::accepted::<StrategyKind>), "how the votes are reduced (majority unless the jury says otherwise; the library's camelCase is accepted too)"),
    key("threshold", Kind::Number, "pass threshold of numeric strategies (0.5; required for conjunctive)"),
    key("tie", Kind::Enum(token::accepted::<TiePolicy>), "majority's tie policy (FAIL)"),
    key("errors", Kind::Enum(token::accepted::<ErrorPolicy>), "error policy (propagate)"),
    key("not-applicable", Kind::Enum(token::accepted::<NotApplicablePolicy>), "not-applicable policy (refuse)"),
];

/// Keys of `report:`.
#[rustfmt::skip]
pub const REPORT_KEYS: &[Key] = &[
    key("title", Kind::Str, "headline title"),
    key("comment", Kind::Enum(token::accepted::<CommentMode>), "sticky comment mode (update)"),
    key("check-run", Kind::Bool, "create a check run (true)"),
    key("delete-on-pass", Kind::Bool, "delete the sticky comment when accepted (false)"),
    key("annotations", Kind::Integer, "most annotations (50)"),
    key("fail-on", Kind::Enum(token::accepted::<FailOn>), "which readings fail the step (error in GitHub Actions, else fail)"),
    key("template", Kind::Str, "markdown template file"),
    key("check-name", Kind::Str, "the check run's name, for several instances on one commit (judge-ci / <name>)"),
    key("comment-key", Kind::Str, "which sticky comment this run keeps: runs with the same key share one per pull request (the config name)"),
];

/// Keys of `reference:`.
#[rustfmt::skip]
pub const REFERENCE_KEYS: &[Key] = &[
    key("path", Kind::Str, "a folder, relative to the config file"),
    key("ref", Kind::Str, "a git revision (origin/solution, a tag, a SHA)"),
    key("repository", Kind::Str, "another repository's URL for ref"),
];

/// Keys of a task file.
#[rustfmt::skip]
pub const TASK_KEYS: &[Key] = &[
    key("schema", Kind::Str, "bench.task.v1"),
    key("id", Kind::Str, "task id"),
    key("instruction", Kind::Str, "the goal given to semantic judges"),
    key("difficulty", Kind::Str, "free text"),
    key("timeout", Kind::Duration, "the agent's limit"),
    key("metadata", Kind::Any, "passed to judges"),
    key("setup", Kind::StrList, "commands run in the workspace before judging"),
    key("post", Kind::StrList, "commands run in the workspace after setup, before judging"),
];

/// The files looked for, in order, when `--config` is not given.
pub const DISCOVERED: &[&str] = &["judge-ci.yml", ".github/judge-ci.yml", "benchmark.yaml"];

/// The first discoverable config file in `dir`.
pub fn discover(dir: &Path) -> Option<PathBuf> {
    discover_in(dir, &ConfigSource::WorkTree)
}

/// The first discoverable config file in `dir`, as `source` sees it (a trusted commit's
/// tree holds the config the pull request is judged by, whatever the working tree holds).
pub fn discover_in(dir: &Path, source: &ConfigSource) -> Option<PathBuf> {
    DISCOVERED
        .iter()
        .map(|f| dir.join(f))
        .find(|p| source.is_file(p))
}

fn read_file(
    path: &Path,
    source: &ConfigSource,
) -> Result<(Arc<PathBuf>, String, Vec<u8>), Diagnostics> {
    let file = Arc::new(path.to_path_buf());
    let fail = |msg: String| {
        let mut d = Diagnostics::default();
        d.push(Diagnostic::error(None, msg));
        d
    };
    let bytes = source
        .read(path)
        .map_err(|e| fail(format!("cannot read {}: {e}", path.display())))?;
    let text = String::from_utf8(bytes.clone())
        .map_err(|_| fail(format!("{} is not UTF-8 text", path.display())))?;
    Ok((file, text, bytes))
}

fn parse_root(r: &mut Reader, text: &str) -> Option<Node> {
    match parse(&r.file, text) {
        Ok(n) => Some(n),
        Err(d) => {
            r.diags.push(d);
            None
        }
    }
}

/// Loads and validates a benchmark file from the working tree. On success also returns its
/// warnings.
pub fn load_benchmark(path: &Path) -> Result<(Benchmark, Diagnostics), Diagnostics> {
    load_benchmark_from(path, Arc::new(ConfigSource::WorkTree))
}

/// Loads and validates a benchmark file, reading it and every file it names through
/// `source`. On success also returns its warnings.
pub fn load_benchmark_from(
    path: &Path,
    source: Arc<ConfigSource>,
) -> Result<(Benchmark, Diagnostics), Diagnostics> {
    let (file, text, bytes) = read_file(path, &source)?;
    let mut r = Reader::new(Arc::clone(&file));
    r.source = Arc::clone(&source);
    if source.tree().is_some() {
        r.diags.texts.push((path.to_path_buf(), text.clone()));
    }
    let Some(root) = parse_root(&mut r, &text) else {
        return Err(r.diags);
    };
    let b = read_benchmark(&mut r, &root, path, &bytes);
    match b {
        Some(b) if !r.diags.has_errors() => Ok((b, r.diags)),
        _ => Err(r.diags),
    }
}

fn read_benchmark(r: &mut Reader, root: &Node, path: &Path, bytes: &[u8]) -> Option<Benchmark> {
    let m = r.mapping(root, "the config file")?;
    r.check_keys_lenient(
        m,
        "the config file",
        BENCHMARK_KEYS,
        &[
            ("sandbox", super::sandbox::SANDBOX_KEYS),
            ("report", REPORT_KEYS),
            ("reference", REFERENCE_KEYS),
            ("jury", JURY_KEYS),
        ],
    );
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let schema = m.get_node("schema").and_then(|n| r.string(n, "schema"));
    if let (Some(s), Some(n)) = (&schema, m.get_node("schema"))
        && s != "bench.benchmark.v1"
        && s != "judge-ci.v1"
    {
        if s == "bench.task.v1" {
            r.error_help(
                n,
                "this is a task file, not a benchmark",
                "pass it with --task, and the benchmark with --config",
            );
        } else {
            let d = Diagnostic::warning(
                r.loc(n),
                format!("unknown schema '{s}'; reading it as judge-ci.v1"),
            )
            .help("valid: bench.benchmark.v1, judge-ci.v1");
            r.diags.push(d);
        }
    }
    let name = match m.get_node("name") {
        Some(n) => r.non_blank(n, "name"),
        None => Some(
            dir.canonicalize()
                .ok()
                .and_then(|d| d.file_name().map(|f| f.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "judge-ci".into()),
        ),
    };
    let version = r.key_or(m, "", "version", "1.0".into(), Reader::string);
    let description = m
        .get_node("description")
        .and_then(|n| r.string(n, "description"));
    let default_timeout = r.key_or(
        m,
        "",
        "default-timeout",
        Duration::from_secs(300),
        checks::timeout,
    );
    let metadata = metadata(r, m.get_node("metadata"), "metadata");
    let reference = r.key_or(m, "", "reference", None, |r, n, _| {
        tree_spec(r, n, &dir, "reference")
    });
    let base = r.key_or(m, "", "base", None, |r, n, _| tree_spec(r, n, &dir, "base"));
    let jury = match m.get_node("jury") {
        Some(n) => jury(r, n, "jury", true),
        None => {
            r.error_help(
                root,
                "the config has no `jury`",
                "add `jury:` with one of `tiers:`, `checks:` or `members:`",
            );
            None
        }
    };
    let report = r.key_or(m, "", "report", ReportSettings::default(), |r, n, _| {
        report(r, n, &dir)
    });
    let reveal = r.key_or(m, "", "reveal", Reveal::default(), Reader::token);
    let report = match (report, reveal) {
        (Some(report), Some(reveal)) => Some(ReportSettings { reveal, ..report }),
        _ => None,
    };
    let llm = match m.get_node("llm") {
        Some(n) => {
            let lm = r.mapping(n, "llm")?;
            r.check_keys(lm, "llm", &super::llm::config_keys(), false);
            super::llm::read(r, lm, "llm")
        }
        None => Some(LlmSettings::default()),
    };
    let diagnostics = r.key_or(m, "", "diagnostics", Default::default(), |r, n, _| {
        super::diagnostics::read(r, n)
    });
    let protected = r.key_or(m, "", "protected", None, |r, n, w| globs(r, n, w).map(Some));
    let protected_action = r.key_or(
        m,
        "",
        "protected-action",
        ProtectedAction::Report,
        Reader::token,
    );
    let unjudged_action = r.key_or(
        m,
        "",
        "unjudged-action",
        ProtectedAction::Report,
        Reader::token,
    );
    let restore = r.key_or(m, "", "restore", Vec::new(), globs);
    let sandbox = r.key_or(m, "", "sandbox", Default::default(), |r, n, _| {
        super::sandbox::read(r, n)
    });
    Some(Benchmark {
        sandbox: sandbox?,
        path: path.to_path_buf(),
        sha256: hex::encode(Sha256::digest(bytes)),
        schema,
        name: name?,
        version: version?,
        description,
        default_timeout: default_timeout?,
        metadata: metadata?,
        reference: reference?,
        base: base?,
        jury: jury?,
        report: report?,
        llm: llm?,
        diagnostics: diagnostics?,
        protected: protected?,
        protected_action: protected_action?,
        unjudged_action: unjudged_action?,
        restore: restore?,
        source: Arc::clone(&r.source),
    })
}

/// A list of globs (`protected:`, `restore:`), each relative to the repository root and
/// checked to compile.
fn globs(r: &mut Reader, n: &Node, what: &str) -> Option<Vec<String>> {
    let list = r.string_list(n, what)?;
    let mut ok = true;
    for g in &list {
        let bad = if g.trim().is_empty() {
            Some("an empty glob".to_string())
        } else if g.starts_with('/') || g.split('/').any(|c| c == "..") {
            Some(format!(
                "'{g}' leaves the repository (no leading '/', no '..')"
            ))
        } else {
            globset::Glob::new(g)
                .err()
                .map(|e| format!("'{g}' is not a valid glob: {e}"))
        };
        if let Some(why) = bad {
            r.error_help(
                n,
                format!("{what}: {why}"),
                "write globs relative to the repository root, e.g. .github/** or src/test/**",
            );
            ok = false;
        }
    }
    ok.then_some(list)
}

fn metadata(r: &mut Reader, n: Option<&Node>, what: &str) -> Option<Map<String, Value>> {
    let Some(n) = n else {
        return Some(Map::new());
    };
    if is_null(n) {
        return Some(Map::new());
    }
    let mapping = r.mapping(n, what)?;
    // The conventional keys judges read are typed here, so a value no judge can use is an
    // error at its line, not a silent "no baseline" at the first vote.
    let mut ok = true;
    for (key, value) in mapping.iter() {
        let mut typed = crate::judgment::Conventions::default();
        if crate::judgment::Conventions::is_conventional(key.as_str())
            && let Err(e) = typed.set(key.as_str(), &to_json(value))
        {
            r.error_help(
                value,
                format!("{what}.{} is {}", e.key, e.found),
                e.expected,
            );
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    match to_json(n) {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// `reference:` or `base:` (named `what`): a folder, or a revision (of another repository).
fn tree_spec(r: &mut Reader, n: &Node, dir: &Path, what: &str) -> Option<Option<ReferenceSpec>> {
    let m = r.mapping(n, what)?;
    r.check_keys(m, what, REFERENCE_KEYS, false);
    match (m.get_node("path"), m.get_node("ref")) {
        (Some(p), None) => {
            if m.get_node("repository").is_some() {
                r.error(
                    n,
                    format!("{what}.repository goes with {what}.ref, not {what}.path"),
                );
                return None;
            }
            let s = r.non_blank(p, &format!("{what}.path"))?;
            Some(Some(ReferenceSpec::Path(dir.join(s))))
        }
        (None, Some(rv)) => {
            let rev = r.non_blank(rv, &format!("{what}.ref"))?;
            if let Err(why) = crate::materialize::check_rev(&rev) {
                r.error(rv, format!("{what}.ref: {why}"));
                return None;
            }
            let repository = match m.get_node("repository") {
                Some(x) => {
                    let url = r.non_blank(x, &format!("{what}.repository"))?;
                    if let Err(why) = crate::materialize::check_remote(&url) {
                        r.error(x, format!("{what}.repository: {why}"));
                        return None;
                    }
                    Some(url)
                }
                None => None,
            };
            Some(Some(ReferenceSpec::Rev { rev, repository }))
        }
        _ => {
            r.error_help(
                n,
                format!("{what} needs exactly one of `path` and `ref`"),
                if what == "base" {
                    "e.g. `base: {path: ../base}` or `base: {ref: origin/main}`".to_string()
                } else {
                    "e.g. `reference: {path: ../solution}` or `reference: {ref: origin/solution}`"
                        .to_string()
                },
            );
            None
        }
    }
}

fn report(r: &mut Reader, n: &Node, dir: &Path) -> Option<ReportSettings> {
    let m = r.mapping(n, "report")?;
    r.check_keys(m, "report", REPORT_KEYS, false);
    let mut s = ReportSettings::default();
    let mut ok = true;
    s.title = r.key(m, "report", "title", &mut ok, Reader::string);
    let comment = r.key(m, "report", "comment", &mut ok, Reader::token);
    s.comment = comment.unwrap_or(s.comment);
    let delete = r.key(m, "report", "delete-on-pass", &mut ok, Reader::boolean);
    s.delete_on_pass = delete.unwrap_or(s.delete_on_pass);
    let check_run = r.key(m, "report", "check-run", &mut ok, Reader::boolean);
    s.check_run = check_run.unwrap_or(s.check_run);
    if let Some(x) = m.get_node("annotations") {
        match r.integer(x, "report.annotations").map(usize::try_from) {
            Some(Ok(v)) => s.annotations = v,
            Some(Err(_)) => {
                r.error(x, "report.annotations must not be negative");
                ok = false;
            }
            None => ok = false,
        }
    }
    s.fail_on = r.key(m, "report", "fail-on", &mut ok, Reader::token);
    for (key, slot) in [
        ("check-name", &mut s.check_name),
        ("comment-key", &mut s.comment_key),
    ] {
        if let Some(x) = m.get_node(key) {
            let what = format!("report.{key}");
            match r.non_blank(x, &what) {
                Some(v) => match super::instance::check(&v) {
                    Ok(()) => *slot = Some(v),
                    Err(why) => {
                        r.error(x, format!("{what}: {why}"));
                        ok = false;
                    }
                },
                None => ok = false,
            }
        }
    }
    if let Some(x) = m.get_node("template") {
        match r.non_blank(x, "report.template") {
            Some(t) => {
                let p = dir.join(t);
                if !r.source.is_file(&p) {
                    r.error(x, format!("report.template: no file at {}", p.display()));
                    ok = false;
                }
                s.template = Some(p);
            }
            None => ok = false,
        }
    }
    ok.then_some(s)
}

/// Reads `voting:`; `default` is the strategy when none is named.
fn voting(
    r: &mut Reader,
    n: Option<&Node>,
    default: StrategyKind,
    what: &str,
) -> Option<StrategySpec> {
    let Some(n) = n else {
        return Some(StrategySpec::defaults(default));
    };
    let m = r.mapping(n, what)?;
    r.check_keys(m, what, VOTING_KEYS, false);
    let mut ok = true;
    let kind = match m.get_node("strategy") {
        Some(x) => r.token(x, &format!("{what}.strategy")).unwrap_or_else(|| {
            ok = false;
            default
        }),
        None => default,
    };
    let mut spec = StrategySpec::defaults(kind);
    if let Some(x) = m.get_node("threshold") {
        match r.number(x, &format!("{what}.threshold")) {
            Some(t) if !(0.0..=1.0).contains(&t) => {
                r.error_help(
                    x,
                    format!("{what}.threshold must be within [0.0, 1.0], got {t}"),
                    "a threshold is a number from 0.0 to 1.0",
                );
                ok = false;
            }
            Some(t) => spec.threshold = Some(t),
            None => ok = false,
        }
    }
    spec.tie_policy = r
        .key(m, what, "tie", &mut ok, Reader::token)
        .or(spec.tie_policy);
    spec.error_policy = r
        .key(m, what, "errors", &mut ok, Reader::token)
        .or(spec.error_policy);
    spec.not_applicable_policy = r
        .key(m, what, "not-applicable", &mut ok, Reader::token)
        .or(spec.not_applicable_policy);
    if !ok {
        return None;
    }
    if let Err(e) = spec.build() {
        let at = if e.message().contains("threshold") {
            m.get_node("threshold").unwrap_or(n)
        } else if e.message().contains("tie") {
            m.get_node("tie").unwrap_or(n)
        } else {
            n
        };
        let help = if kind == StrategyKind::Conjunctive && spec.threshold.is_none() {
            "add `threshold:` (a number from 0 to 1)".to_string()
        } else if e.message().contains("threshold must be finite") {
            "a threshold is a number from 0.0 to 1.0".to_string()
        } else {
            "see the voting keys in docs/config-reference.md".to_string()
        };
        r.error_help(at, format!("{what}: {}", e.message()), help);
        return None;
    }
    Some(spec)
}

/// Reads a jury mapping (`tiers`, `checks` or `members`, plus `voting`).
fn jury(r: &mut Reader, n: &Node, what: &str, top: bool) -> Option<JurySpec> {
    let m = r.mapping(n, what)?;
    let table = if top { JURY_KEYS } else { MEMBER_KEYS };
    r.check_keys(m, what, table, false);
    jury_from(r, m, n, what)
}

fn jury_from(r: &mut Reader, m: &MarkedMappingNode, n: &Node, what: &str) -> Option<JurySpec> {
    let present: Vec<&str> = ["tiers", "checks", "members"]
        .into_iter()
        .filter(|k| m.get_node(k).is_some())
        .collect();
    if present.len() != 1 {
        let msg = if present.is_empty() {
            format!("{what} needs one of `tiers`, `checks` or `members`")
        } else {
            format!("{what} has {}; give exactly one", present.join(" and "))
        };
        r.error_help(
            n,
            msg,
            "tiers: a cascade; checks: one jury; members: a jury of juries",
        );
        return None;
    }
    let list_node = m.get_node(present[0])?;
    let Node::Sequence(items) = list_node else {
        r.error(list_node, format!("{what}.{} must be a list", present[0]));
        return None;
    };
    if items.is_empty() {
        r.error(
            list_node,
            format!("{what}.{} must not be empty", present[0]),
        );
        return None;
    }
    match present[0] {
        "tiers" => {
            if let Some(v) = m.get_node("voting") {
                r.error_help(
                    v,
                    format!("{what}.voting does not apply to tiers"),
                    "put `voting:` inside each tier",
                );
                return None;
            }
            tiers(r, items, what).map(JurySpec::Tiers)
        }
        "checks" => {
            let voting = voting(
                r,
                m.get_node("voting"),
                StrategyKind::AllMustPass,
                &format!("{what}.voting"),
            );
            let checks = checks_of(r, items, voting.as_ref(), &format!("{what}.checks"));
            let parallel = parallel_key(r, m, what);
            Some(JurySpec::Checks {
                voting: voting?,
                parallel: parallel?,
                checks: checks?,
            })
        }
        _ => {
            let voting = voting(
                r,
                m.get_node("voting"),
                StrategyKind::Majority,
                &format!("{what}.voting"),
            );
            let mut members = Vec::new();
            let mut ok = true;
            for (i, item) in items.iter().enumerate() {
                let w = format!("{what}.members[{i}]");
                let Some(mm) = r.mapping(item, &w) else {
                    ok = false;
                    continue;
                };
                r.check_keys(mm, &w, MEMBER_KEYS, false);
                let name = match mm.get_node("name") {
                    Some(x) => r.non_blank(x, &format!("{w}.name")),
                    None => {
                        r.error_help(
                            item,
                            format!("{w} needs a `name`"),
                            "members are named: `- name: build`",
                        );
                        None
                    }
                };
                if let (Some(nm), Some(x)) = (&name, mm.get_node("name")) {
                    if let Err(e) = crate::jury::validate_stage_name("member", nm) {
                        r.error(x, e.message().to_string());
                        ok = false;
                    }
                    if members.iter().any(|o: &MemberSpec| &o.name == nm) {
                        r.error(x, format!("duplicate member name '{nm}'"));
                        ok = false;
                    }
                }
                let sub = jury_from(r, mm, item, &w);
                match (name, sub) {
                    (Some(name), Some(jury)) => members.push(MemberSpec {
                        name,
                        jury,
                        loc: r.loc(item),
                    }),
                    _ => ok = false,
                }
            }
            let voting = voting?;
            if ok && voting.not_applicable_policy == Some(NotApplicablePolicy::Refuse) {
                for (i, mem) in members.iter().enumerate() {
                    if may_exclude(&mem.jury) {
                        r.error_help(&items[i], format!("member '{}' may answer NOT_APPLICABLE, but {what}.voting refuses exclusions", mem.name),
                            "set `not-applicable: exclude` in the voting that reduces the members");
                        ok = false;
                    }
                }
            }
            (ok).then_some(JurySpec::Members { voting, members })
        }
    }
}

/// Whether a jury spec may produce a NOT_APPLICABLE aggregate (as the engine computes it).
fn may_exclude(j: &JurySpec) -> bool {
    match j {
        JurySpec::Tiers(t) => t.iter().any(|t| {
            t.voting.not_applicable_policy == Some(NotApplicablePolicy::Exclude)
                && t.checks.iter().any(|c| c.not_applicable_when.is_some())
        }),
        JurySpec::Checks { voting, checks, .. } => {
            voting.not_applicable_policy == Some(NotApplicablePolicy::Exclude)
                && checks.iter().any(|c| c.not_applicable_when.is_some())
        }
        JurySpec::Members { voting, members } => {
            voting.not_applicable_policy == Some(NotApplicablePolicy::Exclude)
                && members.iter().any(|m| may_exclude(&m.jury))
        }
    }
}

/// `parallel:` (default true).
fn parallel_key(r: &mut Reader, m: &MarkedMappingNode, what: &str) -> Option<bool> {
    match m.get_node("parallel") {
        Some(x) => r.boolean(x, &format!("{what}.parallel")),
        None => Some(true),
    }
}

fn tiers(r: &mut Reader, items: &[Node], what: &str) -> Option<Vec<TierSpec>> {
    let mut out: Vec<TierSpec> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut ok = true;
    let last = items.len() - 1;
    for (i, item) in items.iter().enumerate() {
        let w = format!("{what}.tiers[{i}]");
        let Some(m) = r.mapping(item, &w) else {
            ok = false;
            continue;
        };
        r.check_keys(m, &w, TIER_KEYS, false);
        let name = match m.get_node("name") {
            Some(x) => {
                let nm = r.non_blank(x, &format!("{w}.name"));
                if let Some(nm) = &nm {
                    if let Err(e) = crate::jury::validate_stage_name("tier", nm) {
                        r.error(x, e.message().to_string());
                        ok = false;
                    }
                    if seen.contains(nm) {
                        r.error_help(
                            x,
                            format!("duplicate tier name '{nm}'"),
                            "tier names must be unique",
                        );
                        ok = false;
                    }
                    seen.push(nm.clone());
                }
                nm
            }
            None => Some(format!("tier-{}", i + 1)),
        };
        let policy = match m.get_node("policy") {
            Some(x) => {
                match r.token::<TierPolicy>(x, &format!("{w}.policy")) {
                    Some(p) => {
                        if i == last && p != TierPolicy::FinalTier {
                            r.error_help(x, format!("the last tier must be FINAL_TIER, not {p}"), "set `policy: FINAL_TIER` on the last tier (or leave policy out there)");
                            ok = false;
                        }
                        Some(p)
                    }
                    None => None,
                }
            }
            None => Some(if i == last {
                TierPolicy::FinalTier
            } else {
                TierPolicy::RejectOnAnyFail
            }),
        };
        let voting = voting(
            r,
            m.get_node("voting"),
            StrategyKind::Majority,
            &format!("{w}.voting"),
        );
        let checks = match m.get_node("checks") {
            Some(Node::Sequence(list)) if !list.is_empty() => {
                checks_of(r, list, voting.as_ref(), &format!("{w}.checks"))
            }
            Some(x) => {
                r.error(x, format!("{w}.checks must be a non-empty list of checks"));
                None
            }
            None => {
                r.error_help(
                    item,
                    format!("{w} has no `checks`"),
                    "add `checks:` with at least one check",
                );
                None
            }
        };
        let parallel = parallel_key(r, m, &w);
        if let (Some(TierPolicy::RejectOnAnyFail), Some(v), Some(c), Some(nm)) =
            (policy, &voting, &checks, &name)
        {
            let at = m
                .get_node("voting")
                .or_else(|| m.get_node("policy"))
                .unwrap_or(item);
            lenient_reject_tier(r, at, nm, v.kind, c.len());
        }
        match (name, policy, voting, checks, parallel) {
            (Some(name), Some(policy), Some(voting), Some(checks), Some(parallel)) => {
                out.push(TierSpec {
                    name,
                    policy,
                    voting,
                    parallel,
                    checks,
                    loc: r.loc(item),
                })
            }
            _ => ok = false,
        }
    }
    ok.then_some(out)
}

/// Warns about jury-semantics §12 trap 1 where it bites gates: a REJECT_ON_ANY_FAIL tier
/// stops on a FAIL, but the root is the tier's aggregate, so a vote that can outvote a FAIL
/// (2 PASS, 1 FAIL under majority) stops the cascade with PASS and accepts the subject.
fn lenient_reject_tier(r: &mut Reader, at: &Node, tier: &str, kind: StrategyKind, checks: usize) {
    match kind {
        StrategyKind::Majority
        | StrategyKind::Average
        | StrategyKind::Median
        | StrategyKind::WeightedAverage => {}
        StrategyKind::Consensus | StrategyKind::AllMustPass | StrategyKind::Conjunctive => return,
    }
    let name = token::Tokens::preferred(kind);
    if checks < 2 {
        return;
    }
    let d = Diagnostic::warning(
        r.loc(at),
        format!(
            "tier '{tier}' stops on any FAIL, but its {name} vote decides what it stops with: \
             a FAIL outvoted by PASSes stops the cascade with PASS and accepts the subject"
        ),
    )
    .help("to reject on any FAIL, set `voting: {strategy: all-must-pass}` on this tier");
    r.diags.push(d);
}

fn checks_of(
    r: &mut Reader,
    items: &[Node],
    voting: Option<&StrategySpec>,
    what: &str,
) -> Option<Vec<CheckSpec>> {
    let mut out: Vec<CheckSpec> = Vec::new();
    let mut ok = true;
    let mut explicit: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match check(r, item, &format!("{what}[{i}]"), voting) {
            Some((mut c, named)) => {
                if named {
                    if explicit.contains(&c.name) || out.iter().any(|o| o.name == c.name) {
                        let at = item
                            .as_mapping()
                            .and_then(|m| m.get_node("name"))
                            .unwrap_or(item);
                        r.error_help(
                            at,
                            format!("duplicate check name '{}'", c.name),
                            "check names must be unique within a jury",
                        );
                        ok = false;
                    }
                    explicit.push(c.name.clone());
                } else {
                    let base = c.name.clone();
                    let mut k = 1;
                    while out.iter().any(|o| o.name == c.name) || explicit.contains(&c.name) {
                        k += 1;
                        c.name = format!("{base}-{k}");
                    }
                }
                out.push(c);
            }
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn check(
    r: &mut Reader,
    n: &Node,
    what: &str,
    voting: Option<&StrategySpec>,
) -> Option<(CheckSpec, bool)> {
    let m = r.mapping(n, what)?;
    let Some(type_node) = m.get_node("type") else {
        r.error_help(n, format!("{what} has no `type`"), checks::suggest_type(""));
        return None;
    };
    let type_name = r.string(type_node, &format!("{what}.type"))?;
    let Some(t) = type_name
        .parse::<checks::CheckType>()
        .ok()
        .and_then(checks::check_info)
    else {
        r.error_help(
            type_node,
            format!("unknown check type '{type_name}'"),
            checks::suggest_type(&type_name),
        );
        return None;
    };
    let what = format!("{what} ({type_name})");
    r.check_keys(
        m,
        &format!("check '{type_name}'"),
        &checks::keys_of(t),
        true,
    );
    let name = m
        .get_node("name")
        .map(|x| r.non_blank(x, &format!("{what}.name")));
    let weight = match m.get_node("weight") {
        Some(x) => match r.number(x, &format!("{what}.weight")) {
            Some(w) if w >= 0.0 => Some(w),
            Some(w) => {
                r.error_help(
                    x,
                    format!("{what}.weight must not be negative, got {w}"),
                    "a weight is a finite number ≥ 0",
                );
                None
            }
            None => None,
        },
        None => Some(1.0),
    };
    let timeout_override = m
        .get_node("timeout")
        .map(|x| checks::timeout(r, x, &format!("{what}.timeout")));
    let description = m
        .get_node("description")
        .and_then(|x| r.string(x, &format!("{what}.description")));
    let naw = match m.get_node("not-applicable-when") {
        Some(x) => {
            let s = r.non_blank(x, &format!("{what}.not-applicable-when"));
            if s.is_some()
                && voting
                    .is_some_and(|v| v.not_applicable_policy == Some(NotApplicablePolicy::Refuse))
            {
                r.error_help(x, format!("{what} declares `not-applicable-when`, but its jury's voting refuses exclusions"),
                    "set `voting: {not-applicable: exclude}` (or treat-as-fail) for this jury, or remove not-applicable-when");
                return None;
            }
            Some(s?)
        }
        None => None,
    };
    let kind: CheckKind = checks::read_kind(r, t, m, n, &what)?;
    let timeout = match timeout_override {
        Some(t) => t?,
        None => checks::default_timeout(&kind),
    };
    let named = name.is_some();
    Some((
        CheckSpec {
            name: match name {
                Some(nm) => nm?,
                None => type_name,
            },
            weight: weight?,
            timeout,
            description,
            not_applicable_when: naw,
            kind,
            loc: r.loc(n),
        },
        named,
    ))
}

/// Loads and validates a task file from the working tree.
pub fn load_task(path: &Path) -> Result<(Task, Diagnostics), Diagnostics> {
    load_task_from(path, &ConfigSource::WorkTree)
}

/// Loads and validates a task file read through `source` (its instruction is the goal the
/// semantic judges grade against, so in a pull request it is the base's).
pub fn load_task_from(
    path: &Path,
    source: &ConfigSource,
) -> Result<(Task, Diagnostics), Diagnostics> {
    let (file, text, _) = read_file(path, source)?;
    let mut r = Reader::new(Arc::clone(&file));
    if source.tree().is_some() {
        r.diags.texts.push((path.to_path_buf(), text.clone()));
    }
    let Some(root) = parse_root(&mut r, &text) else {
        return Err(r.diags);
    };
    let t = read_task(&mut r, &root, path);
    match t {
        Some(t) if !r.diags.has_errors() => Ok((t, r.diags)),
        _ => Err(r.diags),
    }
}

fn read_task(r: &mut Reader, root: &Node, path: &Path) -> Option<Task> {
    let m = r.mapping(root, "the task file")?;
    if let Some(s) = m.get_node("schema")
        && let Some(sv) = r.string(s, "schema")
        && sv != "bench.task.v1"
    {
        let help = if sv == "bench.benchmark.v1" || m.get_node("jury").is_some() {
            "this looks like a benchmark: pass it with --config"
        } else {
            "a task file has `schema: bench.task.v1`, `id` and `instruction`"
        };
        r.error_help(
            s,
            format!("{} is not a task file (schema '{sv}')", path.display()),
            help,
        );
        return None;
    }
    if m.get_node("jury").is_some() && m.get_node("id").is_none() {
        r.error_help(
            root,
            format!(
                "{} is not a task file: it has a `jury` and no `id`",
                path.display()
            ),
            "this looks like a benchmark: pass it with --config",
        );
        return None;
    }
    r.check_keys(m, "the task file", TASK_KEYS, true);
    let id = match m.get_node("id") {
        Some(n) => r.non_blank(n, "id"),
        None => {
            r.error_help(
                root,
                format!("{} is not a task file: it has no `id`", path.display()),
                "a task file has `schema: bench.task.v1`, `id` and `instruction`",
            );
            None
        }
    };
    let instruction = match m.get_node("instruction") {
        Some(n) => r.string(n, "instruction"),
        None => Some(String::new()),
    };
    let difficulty = m
        .get_node("difficulty")
        .and_then(|n| r.string(n, "difficulty"));
    let timeout = m
        .get_node("timeout")
        .map(|n| checks::timeout(r, n, "timeout"));
    let metadata = metadata(r, m.get_node("metadata"), "metadata");
    let list = |r: &mut Reader, k: &str| match m.get_node(k) {
        Some(n) => r.string_list(n, k),
        None => Some(Vec::new()),
    };
    let setup = list(r, "setup");
    let post = list(r, "post");
    Some(Task {
        path: path.to_path_buf(),
        id: id?,
        instruction: instruction?,
        difficulty,
        timeout: match timeout {
            Some(t) => Some(t?),
            None => None,
        },
        metadata: metadata?,
        setup: setup?,
        post: post?,
    })
}
