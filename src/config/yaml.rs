//! YAML with positions: parsing into a tree whose every node knows its line and column, and
//! typed reads that record a diagnostic instead of stopping at the first problem.

use marked_yaml::types::{MarkedMappingNode, MarkedScalarNode};
use marked_yaml::{LoaderOptions, Node, Span};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;

use super::diag::{Diagnostic, Diagnostics, Loc};
use super::token::{self, Tokens};

/// One parsed file and the diagnostics found while reading it.
pub struct Reader {
    /// The file.
    pub file: Arc<PathBuf>,
    /// Everything found so far.
    pub diags: Diagnostics,
    /// Where the files the config names are read from (the working tree, or a trusted
    /// commit's tree).
    pub source: Arc<super::source::ConfigSource>,
}

/// What a key holds, used for validation, suggestions and the JSON Schema.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A string.
    Str,
    /// `true` or `false`.
    Bool,
    /// Any finite number.
    Number,
    /// A whole number.
    Integer,
    /// An ISO-8601 duration such as `PT5M`.
    Duration,
    /// A list of strings; a lone scalar (`goals: 7`, `include: src/**`) is an error, never a
    /// list of one.
    StrList,
    /// A string run with `sh -c`, or a list of arguments.
    CommandLine,
    /// A map of string to string.
    StrMap,
    /// One token of a closed set: `token::accepted::<T>` lists its spellings.
    Enum(fn() -> Vec<String>),
    /// A list of tokens of a closed set.
    EnumList(fn() -> Vec<String>),
    /// Any YAML value (kept as JSON).
    Any,
    /// A nested object described elsewhere.
    Object,
    /// A list of nested objects described elsewhere.
    ObjectList,
}

/// One allowed key of an object.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The key, kebab-case.
    pub name: &'static str,
    /// What it holds.
    pub kind: Kind,
    /// What it means, shown in the JSON Schema.
    pub doc: &'static str,
}

/// Shorthand for a key table entry.
pub const fn key(name: &'static str, kind: Kind, doc: &'static str) -> Key {
    Key { name, kind, doc }
}

/// A position for a node's span.
pub fn loc_of(file: &Arc<PathBuf>, span: &Span, len: usize) -> Option<Loc> {
    span.start().map(|m| Loc {
        file: Arc::clone(file),
        line: m.line(),
        column: m.column(),
        len: len.max(1),
    })
}

/// The position of any node (the first character of its token).
pub fn node_loc(file: &Arc<PathBuf>, node: &Node) -> Option<Loc> {
    match node {
        Node::Scalar(s) => loc_of(file, node.span(), s.as_str().chars().count()),
        // A mapping's own span starts at its first colon; its first key is where a reader looks.
        Node::Mapping(m) => match m.keys().next() {
            Some(k) => loc_of(file, k.span(), k.as_str().chars().count()),
            None => loc_of(file, node.span(), 1),
        },
        Node::Sequence(_) => loc_of(file, node.span(), 1),
    }
}

/// Parses YAML text, or says where it is malformed.
pub fn parse(file: &Arc<PathBuf>, text: &str) -> Result<Node, Diagnostic> {
    let opts = LoaderOptions::default()
        .error_on_duplicate_keys(true)
        .toplevel_mapping();
    marked_yaml::parse_yaml_with_options(0, text, opts).map_err(|e| {
        use marked_yaml::LoadError as E;
        let (marker, msg) = match &e {
            E::TopLevelMustBeMapping(m) => (
                Some(*m),
                "the file must hold a mapping of keys (`name: …`, `jury: …`)".to_string(),
            ),
            E::TopLevelMustBeSequence(m) => (Some(*m), "the file must hold a list".to_string()),
            E::UnexpectedAnchor(m) => (
                Some(*m),
                "YAML anchors and aliases are not supported here".to_string(),
            ),
            E::MappingKeyMustBeScalar(m) => (Some(*m), "keys must be plain strings".to_string()),
            E::UnexpectedTag(m) => (
                Some(*m),
                "YAML tags (`!foo`) are not supported here".to_string(),
            ),
            E::ScanError(m, se) => (Some(*m), format!("malformed YAML: {}", se.info())),
            E::DuplicateKey(inner) => (
                inner.key.span().start().copied(),
                format!(
                    "duplicate key '{}' (first defined at line {})",
                    inner.key.as_str(),
                    inner.prev_key.span().start().map_or(0, |m| m.line())
                ),
            ),
        };
        let loc = marker.map(|m| Loc {
            file: Arc::clone(file),
            line: m.line(),
            column: m.column().max(1),
            len: 1,
        });
        Diagnostic::error(loc, msg)
    })
}

/// How messages name key `k` of `what` (`report.comment`; a top-level key by itself).
fn key_name(what: &str, k: &str) -> String {
    if what.is_empty() {
        k.to_string()
    } else {
        format!("{what}.{k}")
    }
}

/// True for a plain `~`, `null` or empty scalar.
pub fn is_null(n: &Node) -> bool {
    match n {
        Node::Scalar(s) => {
            s.may_coerce() && matches!(s.as_str(), "" | "~" | "null" | "Null" | "NULL")
        }
        _ => false,
    }
}

/// The nearest of `candidates` to `word`, if it is close enough to be a likely typo.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(s, _)| *s > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

fn kind_word(n: &Node) -> &'static str {
    match n {
        Node::Scalar(_) if is_null(n) => "nothing (null)",
        Node::Scalar(_) => "a scalar",
        Node::Sequence(_) => "a list",
        Node::Mapping(_) => "a mapping",
    }
}

impl Reader {
    /// A reader for one file.
    pub fn new(file: Arc<PathBuf>) -> Self {
        Reader {
            file,
            diags: Diagnostics::default(),
            source: Arc::default(),
        }
    }

    /// Position of a node.
    pub fn loc(&self, n: &Node) -> Option<Loc> {
        node_loc(&self.file, n)
    }

    /// Position of a key.
    pub fn key_loc(&self, k: &MarkedScalarNode) -> Option<Loc> {
        loc_of(&self.file, k.span(), k.as_str().chars().count())
    }

    /// Records an error at a node.
    pub fn error(&mut self, n: &Node, msg: impl Into<String>) -> Diagnostic {
        let d = Diagnostic::error(self.loc(n), msg);
        self.diags.push(d.clone());
        d
    }

    /// Records an error with a help line at a node.
    pub fn error_help(&mut self, n: &Node, msg: impl Into<String>, help: impl Into<String>) {
        let d = Diagnostic::error(self.loc(n), msg).help(help);
        self.diags.push(d);
    }

    /// Checks the keys of a mapping against a table: unknown keys are errors (or warnings
    /// when `unknown_is_warning`, see [`Reader::check_keys_lenient`]), with the nearest known
    /// key suggested.
    pub fn check_keys(
        &mut self,
        map: &MarkedMappingNode,
        what: &str,
        table: &[Key],
        unknown_is_warning: bool,
    ) {
        if unknown_is_warning {
            self.check_keys_lenient(map, what, table, &[]);
            return;
        }
        for k in map.keys() {
            let name = k.as_str();
            if table.iter().any(|t| t.name == name) {
                continue;
            }
            let help = Self::unknown_help(name, table);
            let d = Diagnostic::error(self.key_loc(k), format!("unknown key '{name}' in {what}"));
            self.diags.push(d.help(help));
        }
    }

    fn unknown_help(name: &str, table: &[Key]) -> String {
        let known: Vec<&str> = table.iter().map(|t| t.name).collect();
        match nearest(name, known.iter().copied()) {
            Some(n) => format!("did you mean '{n}'?"),
            None => format!("known keys: {}", known.join(", ")),
        }
    }

    /// Checks the keys of a mapping where unknown keys are only warned about and ignored
    /// (the benchmark and task files: agent-bench ignores keys it does not know, and its
    /// files must load unchanged). Except when ignoring the key would silently drop a
    /// setting (attack finding F15: `sandbx: {require: …}` fails open): a key near a known
    /// one (a misspelling, another case) or one that names a key of a section
    /// (`require:` of `sandbox:`, `fail-on:` of `report:`; `sections` pairs each section's
    /// key with its table) is an error.
    pub fn check_keys_lenient(
        &mut self,
        map: &MarkedMappingNode,
        what: &str,
        table: &[Key],
        sections: &[(&str, &[Key])],
    ) {
        for k in map.keys() {
            let name = k.as_str();
            if table.iter().any(|t| t.name == name) {
                continue;
            }
            let loc = self.key_loc(k);
            let lower = name.to_ascii_lowercase();
            let near = table
                .iter()
                .map(|t| t.name)
                .find(|t| *t == lower)
                .or_else(|| nearest(&lower, table.iter().map(|t| t.name)));
            let section = sections
                .iter()
                .find(|(_, keys)| keys.iter().any(|t| t.name == lower))
                .map(|(s, _)| *s);
            let d = match (near, section) {
                (Some(n), _) => Diagnostic::error(loc, format!("unknown key '{name}' in {what}"))
                    .help(format!(
                        "did you mean '{n}'? (an unknown key is ignored, and ignoring this one would drop the setting it looks like)"
                    )),
                (None, Some(s)) => Diagnostic::error(
                    loc,
                    format!("unknown key '{name}' in {what}: it is a key of '{s}'"),
                )
                .help(format!("write it under '{s}:' ({s}: {{{name}: …}})")),
                (None, None) => {
                    Diagnostic::warning(loc, format!("unknown key '{name}' in {what} is ignored"))
                        .help(Self::unknown_help(name, table))
                }
            };
            self.diags.push(d);
        }
    }

    /// A required mapping.
    pub fn mapping<'n>(&mut self, n: &'n Node, what: &str) -> Option<&'n MarkedMappingNode> {
        match n {
            Node::Mapping(m) => Some(m),
            other => {
                let w = kind_word(other);
                self.error(n, format!("{what} must be a mapping of keys, found {w}"));
                None
            }
        }
    }

    /// A string (quoted or plain); numbers and booleans written plainly are taken as text.
    pub fn string(&mut self, n: &Node, what: &str) -> Option<String> {
        match n {
            Node::Scalar(s) if !is_null(n) => Some(s.as_str().to_string()),
            other => {
                let w = kind_word(other);
                self.error(n, format!("{what} must be a string, found {w}"));
                None
            }
        }
    }

    /// A non-blank string.
    pub fn non_blank(&mut self, n: &Node, what: &str) -> Option<String> {
        let s = self.string(n, what)?;
        if s.trim().is_empty() {
            self.error(n, format!("{what} must not be blank"));
            return None;
        }
        Some(s)
    }

    /// `true` or `false`.
    pub fn boolean(&mut self, n: &Node, what: &str) -> Option<bool> {
        match n.as_scalar().and_then(MarkedScalarNode::as_bool) {
            Some(b) => Some(b),
            None => {
                self.error_help(
                    n,
                    format!("{what} must be true or false"),
                    "write true or false without quotes",
                );
                None
            }
        }
    }

    /// A finite number.
    pub fn number(&mut self, n: &Node, what: &str) -> Option<f64> {
        let parsed = n.as_scalar().and_then(|s| {
            let t = s.as_str().trim();
            match t {
                ".nan" | ".NaN" | ".NAN" => Some(f64::NAN),
                ".inf" | ".Inf" | "+.inf" => Some(f64::INFINITY),
                "-.inf" | "-.Inf" => Some(f64::NEG_INFINITY),
                _ => t.parse::<f64>().ok(),
            }
        });
        match parsed {
            Some(v) if v.is_finite() => Some(v),
            Some(v) => {
                self.error(n, format!("{what} must be a finite number, got {v}"));
                None
            }
            None => {
                let shown = n
                    .as_scalar()
                    .map_or_else(|| kind_word(n).to_string(), |s| format!("'{}'", s.as_str()));
                self.error(n, format!("{what} must be a number, found {shown}"));
                None
            }
        }
    }

    /// A whole number.
    pub fn integer(&mut self, n: &Node, what: &str) -> Option<i64> {
        match n
            .as_scalar()
            .and_then(|s| s.as_str().trim().parse::<i64>().ok())
        {
            Some(v) => Some(v),
            None => {
                self.error(n, format!("{what} must be a whole number"));
                None
            }
        }
    }

    /// Reads key `k` of `m` (named `{what}.{k}` in messages) with `read` when present; a
    /// refused value clears `ok`, so a caller can go on and report every problem.
    pub fn key<T>(
        &mut self,
        m: &MarkedMappingNode,
        what: &str,
        k: &str,
        ok: &mut bool,
        read: impl FnOnce(&mut Self, &Node, &str) -> Option<T>,
    ) -> Option<T> {
        let n = m.get_node(k)?;
        let v = read(self, n, &key_name(what, k));
        *ok &= v.is_some();
        v
    }

    /// As [`Reader::key`], with `default` when the key is absent; `None` only when refused.
    pub fn key_or<T>(
        &mut self,
        m: &MarkedMappingNode,
        what: &str,
        k: &str,
        default: T,
        read: impl FnOnce(&mut Self, &Node, &str) -> Option<T>,
    ) -> Option<T> {
        match m.get_node(k) {
            Some(n) => read(self, n, &key_name(what, k)),
            None => Some(default),
        }
    }

    /// A whole number within `range`; one outside it is an error naming the range.
    pub fn integer_in(
        &mut self,
        n: &Node,
        what: &str,
        range: std::ops::RangeInclusive<i64>,
    ) -> Option<i64> {
        let v = self.integer(n, what)?;
        self.within(n, what, v, range)
    }

    /// A finite number within `range`; one outside it is an error naming the range.
    pub fn number_in(
        &mut self,
        n: &Node,
        what: &str,
        range: std::ops::RangeInclusive<f64>,
    ) -> Option<f64> {
        let v = self.number(n, what)?;
        self.within(n, what, v, range)
    }

    fn within<T: PartialOrd + std::fmt::Display>(
        &mut self,
        n: &Node,
        what: &str,
        v: T,
        range: std::ops::RangeInclusive<T>,
    ) -> Option<T> {
        if range.contains(&v) {
            return Some(v);
        }
        let (lo, hi) = range.into_inner();
        self.error(n, format!("{what} must be from {lo} to {hi}, got {v}"));
        None
    }

    /// One token of the set `T` (exact; the set's aliases count too). An unknown one is an
    /// error at its position naming the valid tokens.
    pub fn token<T: Tokens>(&mut self, n: &Node, what: &str) -> Option<T> {
        let s = self.string(n, what)?;
        let found = token::parse::<T>(&s);
        if found.is_none() {
            let valid = token::preferred::<T>();
            let help = match nearest(&s, valid.iter().map(String::as_str)) {
                Some(t) => format!("did you mean '{t}'? valid: {}", valid.join(", ")),
                None => format!("valid: {}", valid.join(", ")),
            };
            self.error_help(n, format!("{what} '{s}' is not valid"), help);
        }
        found
    }

    /// A list of tokens of the set `T`; each unknown one is an error at its own position.
    pub fn token_list<T: Tokens>(&mut self, n: &Node, what: &str) -> Option<Vec<T>> {
        let Node::Sequence(items) = n else {
            // Refused with the list's own message.
            return self.string_list(n, what).and(None);
        };
        let mut out = Vec::new();
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match self.token(item, &format!("{what}[{i}]")) {
                Some(t) => out.push(t),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// A list of strings. A scalar in its place is refused at its position (a plain `7` would
    /// otherwise become the string "7" and a glob meant as one of several would pass quietly).
    pub fn string_list(&mut self, n: &Node, what: &str) -> Option<Vec<String>> {
        match n {
            Node::Sequence(items) => {
                let mut out = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    out.push(self.string(item, &format!("{what}[{i}]"))?);
                }
                Some(out)
            }
            Node::Scalar(s) if !is_null(n) => {
                // `goals: 7` or `include: src/**` is almost always a slip (a number read as
                // the goal "7", a glob meant as one of several); the list form is required.
                let shown = s.as_str();
                let d = Diagnostic::error(
                    self.loc(n),
                    format!("{what} must be a list of strings, found the scalar '{shown}'"),
                )
                .help(format!(
                    "write a YAML list: [{shown}] (or one `- item` per line); items are strings"
                ));
                self.diags.push(d);
                None
            }
            other => {
                let w = kind_word(other);
                self.error(n, format!("{what} must be a list of strings, found {w}"));
                None
            }
        }
    }

    /// A mapping of string to string (environment variables).
    pub fn string_map(&mut self, n: &Node, what: &str) -> Option<Vec<(String, String)>> {
        let m = self.mapping(n, what)?;
        let mut out = Vec::new();
        for (k, v) in m.iter() {
            let val = self.string(v, &format!("{what}.{}", k.as_str()))?;
            out.push((k.as_str().to_string(), val));
        }
        Some(out)
    }
}

/// Any node as JSON: plain scalars become booleans, numbers or null where they read as such,
/// quoted scalars stay strings.
pub fn to_json(n: &Node) -> Value {
    match n {
        Node::Scalar(s) => {
            if is_null(n) {
                return Value::Null;
            }
            if !s.may_coerce() {
                return Value::String(s.as_str().to_string());
            }
            if let Some(b) = s.as_bool() {
                return Value::Bool(b);
            }
            let t = s.as_str();
            if let Ok(i) = t.parse::<i64>() {
                return Value::from(i);
            }
            if let Ok(f) = t.parse::<f64>()
                && f.is_finite()
                && t.chars().any(|c| c.is_ascii_digit())
            {
                return Value::from(f);
            }
            Value::String(t.to_string())
        }
        Node::Sequence(items) => Value::Array(items.iter().map(to_json).collect()),
        Node::Mapping(m) => {
            let mut out = Map::new();
            for (k, v) in m.iter() {
                out.insert(k.as_str().to_string(), to_json(v));
            }
            Value::Object(out)
        }
    }
}
