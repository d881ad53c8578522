//! `import-diff`: per file in both trees, imports missing from and unexpected in the
//! workspace; files only on one side; forbidden and required imports across the workspace.

use rayon::prelude::*;
use regex::Regex;
use serde_json::json;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Mutex;

use crate::config::checks::FileSet;
use crate::lang::Language;
use crate::lang::model::{Header, Import};
use crate::lang::names::QualifiedName;

use super::super::Outcome;
use super::content::{self, Content};
use super::{Comparisons, Finding, compare_files, list, verdict};
use crate::judgment::FindingKind;
use crate::lang::cache::Kind;

/// An import pattern: `javax.persistence.*` (the package and everything below it) or an exact
/// name, where `*` inside stands for one name segment.
struct Pattern {
    text: String,
    re: Regex,
}

/// An import pattern whose expression does not compile.
#[derive(Debug, thiserror::Error)]
#[error("pattern '{pattern}': {source}")]
pub struct PatternError {
    /// The pattern as configured.
    pub pattern: String,
    /// What the regex crate said.
    #[source]
    pub source: regex::Error,
}

impl Pattern {
    #[cfg(test)]
    fn new(p: &str) -> Result<Self, PatternError> {
        Pattern::compiled(p, Regex::new)
    }

    /// The pattern, its expression compiled once per process (`Comparisons::regex`).
    fn in_run(comparisons: &Comparisons, p: &str) -> Result<Self, PatternError> {
        Pattern::compiled(p, |re| comparisons.regex(re))
    }

    fn compiled(
        p: &str,
        compile: impl Fn(&str) -> Result<Regex, regex::Error>,
    ) -> Result<Self, PatternError> {
        let body = p.strip_prefix("static ").unwrap_or(p);
        let re = if let Some(prefix) = body.strip_suffix(".*") {
            format!(
                "^{}(\\..+)?$",
                regex::escape(prefix).replace("\\*", "[^.]*")
            )
        } else {
            format!("^{}$", regex::escape(body).replace("\\*", "[^.]*"))
        };
        Ok(Pattern {
            text: p.to_string(),
            re: compile(&re).map_err(|source| PatternError {
                pattern: p.to_string(),
                source,
            })?,
        })
    }

    /// The literal text every matching import contains (a cheap pre-filter on bytes).
    fn literal(&self) -> &str {
        let body = self.text.strip_prefix("static ").unwrap_or(&self.text);
        let body = body.strip_suffix(".*").unwrap_or(body);
        body.split('*').next().unwrap_or("")
    }

    /// The first segment of [`Pattern::literal`]: what the bytes of a file must contain to
    /// spell a match in code, where a name may be split by whitespace or comments
    /// (`javax . /* x */ servlet`) but a segment cannot.
    fn first_segment(&self) -> &str {
        self.literal().split('.').next().unwrap_or("")
    }

    fn matches(&self, i: &Import) -> bool {
        self.re.is_match(i.path.trim_end_matches(".*")) || self.re.is_match(&i.path)
    }

    /// Whether a qualified name in code names what the pattern forbids: the name or one of
    /// its prefixes of two segments or more matches (`javax.servlet.Filter.class` is a use
    /// of `javax.servlet.Filter`).
    fn matches_name(&self, name: &str) -> bool {
        name.match_indices('.')
            .skip(1)
            .map(|(end, _)| &name[..end])
            .chain(std::iter::once(name))
            .any(|prefix| self.re.is_match(prefix))
    }
}

/// A workspace file scanned for forbidden and required imports: its path, its language, its
/// imports and the qualified names its code spells that a forbid pattern matches.
type Scanned = (String, Language, Vec<Import>, Vec<QualifiedName>);

/// The imports of one file of both trees, in `language`.
fn compare(rel: &str, w: &Content, r: &Content, language: Language) -> Vec<Finding> {
    let (wh, rh): (Header, Header) =
        match content::models(rel, w, r, Kind::header(language), |b| language.header(b)) {
            Ok(pair) => pair,
            Err(unreadable) => return unreadable,
        };
    let (ws, rf) = (&wh.imports, &rh.imports);
    let wkeys: BTreeSet<String> = ws.iter().map(Import::key).collect();
    let rkeys: BTreeSet<String> = rf.iter().map(Import::key).collect();
    let mut findings = Vec::new();
    for i in rf.iter().filter(|i| !wkeys.contains(&i.key())) {
        findings.push(
            Finding::new(rel, FindingKind::ImportMissing).expected(language.import_line(&i.key())),
        );
    }
    for i in ws.iter().filter(|i| !rkeys.contains(&i.key())) {
        findings.push(
            Finding::new(rel, FindingKind::ImportUnexpected)
                .at(i.line)
                .actual(language.import_line(&i.key())),
        );
    }
    findings.extend(super::ast::escape_findings(
        rel,
        &rh.unicode_escapes,
        &wh.unicode_escapes,
    ));
    findings
}

/// Runs the judge over both trees: each selected file is read in the language its extension
/// names, else in the first of `languages`.
pub fn import_diff(
    comparisons: &Comparisons,
    workspace: &Path,
    reference: &Path,
    files: &FileSet,
    languages: &[Language],
    forbid: &[String],
    require: &[String],
) -> Outcome {
    let listing = match list(comparisons, workspace, reference, files) {
        Ok(l) => l,
        Err(e) => return super::super::instrument(e.to_string()),
    };
    if let Some(na) = super::nothing_examined("import-diff", &listing, files, true) {
        return na;
    }
    let compile = |p: &String| Pattern::in_run(comparisons, p);
    let forbid: Vec<Pattern> = match forbid.iter().map(compile).collect() {
        Ok(v) => v,
        Err(e) => return super::super::instrument(e.to_string()),
    };
    let require: Vec<Pattern> = match require.iter().map(compile).collect() {
        Ok(v) => v,
        Err(e) => return super::super::instrument(e.to_string()),
    };
    let fallback = languages.first().copied().unwrap_or(Language::Java);
    let language = |rel: &str| Language::of_path(rel).unwrap_or(fallback);
    let (mut findings, matched, total) =
        compare_files(comparisons, &listing, workspace, |rel, w, r| {
            compare(rel, w, r, language(rel))
        });
    findings.extend(
        listing.only_workspace.iter().map(|rel| {
            Finding::new(rel.as_str(), FindingKind::FileUnexpected).actual(rel.as_str())
        }),
    );

    // Forbidden and required imports are rules on the whole workspace, read as javac reads
    // them (escapes translated); a file is parsed only if its bytes contain the first segment
    // of some pattern or a unicode escape (which could spell one).
    if !forbid.is_empty() || !require.is_empty() {
        let needles: Vec<&str> = forbid
            .iter()
            .chain(&require)
            .map(Pattern::first_segment)
            .collect();
        let forbid_needles: Vec<&str> = forbid.iter().map(Pattern::first_segment).collect();
        let ws_files: Vec<&String> = listing.both.iter().chain(&listing.only_workspace).collect();
        let escapes: Mutex<Vec<Finding>> = Mutex::new(Vec::new());
        // A file too large to read cannot be cleared of a forbidden import: a finding.
        let scanned: Vec<Result<Scanned, Finding>> = ws_files
            .par_iter()
            .filter_map(|rel| {
                let bytes = match super::read_bounded(&workspace.join(rel)) {
                    Ok(b) => b,
                    Err(why) => {
                        return Some(Err(Finding::new(rel.as_str(), FindingKind::FileUnreadable)
                            .actual(format!("workspace: {why}"))));
                    }
                };
                let text = String::from_utf8_lossy(&bytes);
                if !text.contains("\\u") && !needles.iter().any(|n| text.contains(n)) {
                    return None;
                }
                let h = crate::lang::cache::file_header(comparisons.store(), language(rel), &bytes);
                // A new file has no reference to excuse its escapes.
                if listing.only_workspace.contains(*rel) {
                    escapes
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .extend(super::ast::escape_findings(rel, &[], &h.unicode_escapes));
                }
                // A forbidden API named in full in the code, without an import (S8-6).
                let named =
                    if text.contains("\\u") || forbid_needles.iter().any(|n| text.contains(n)) {
                        language(rel)
                            .qualified_names(&bytes)
                            .into_iter()
                            .filter(|q| forbid.iter().any(|p| p.matches_name(&q.name)))
                            .collect()
                    } else {
                        Vec::new()
                    };
                Some(Ok(((*rel).clone(), language(rel), h.imports, named)))
            })
            .collect();
        findings.extend(escapes.into_inner().unwrap_or_else(|e| e.into_inner()));
        let mut hits: Vec<Scanned> = Vec::new();
        for s in scanned {
            match s {
                Ok(hit) => hits.push(hit),
                // compare_files already reported an unreadable file present on both sides.
                Err(f)
                    if !findings
                        .iter()
                        .any(|g| g.path == f.path && g.kind == f.kind) =>
                {
                    findings.push(f)
                }
                Err(_) => {}
            }
        }
        for (rel, lang, imports, named) in &hits {
            findings.extend(named.iter().map(|q| {
                Finding::new(rel.as_str(), FindingKind::ReferenceForbidden)
                    .at(q.line)
                    .actual(q.name.clone())
            }));
            for i in imports
                .iter()
                .filter(|i| forbid.iter().any(|p| p.matches(i)))
            {
                let line = lang.import_line(&i.key());
                // A forbidden import is reported once, as forbidden, not also as unexpected.
                findings.retain(|f| {
                    !(f.kind == FindingKind::ImportUnexpected
                        && f.path == *rel
                        && f.actual.as_deref() == Some(line.as_str()))
                });
                findings.push(
                    Finding::new(rel.as_str(), FindingKind::ImportForbidden)
                        .at(i.line)
                        .actual(line),
                );
            }
        }
        for p in &require {
            if !hits
                .iter()
                .any(|(_, _, imports, _)| imports.iter().any(|i| p.matches(i)))
            {
                findings.push(
                    Finding::new("", FindingKind::ImportRequired)
                        .expected(format!("an import matching {}", p.text)),
                );
            }
        }
    }
    verdict(
        "import-diff",
        findings,
        matched,
        total,
        vec![
            ("onlyInWorkspace", json!(listing.only_workspace.len())),
            listing.git_metadata(),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imp(p: &str) -> Import {
        Import {
            path: p.into(),
            is_static: false,
            alias: None,
            line: 1,
        }
    }

    #[test]
    fn patterns() {
        let p = Pattern::new("javax.persistence.*").unwrap();
        assert!(p.matches(&imp("javax.persistence.Entity")));
        assert!(p.matches(&imp("javax.persistence.*")));
        assert!(p.matches(&imp("javax.persistence.criteria.Root")));
        assert!(!p.matches(&imp("javax.persistencex.Entity")));
        assert!(!p.matches(&imp("jakarta.persistence.Entity")));
        assert_eq!(p.literal(), "javax.persistence");
        let q = Pattern::new("javax.*.Filter").unwrap();
        assert!(q.matches(&imp("javax.servlet.Filter")));
        assert!(!q.matches(&imp("javax.servlet.http.Filter")));
    }

    #[test]
    fn names_in_code() {
        let p = Pattern::new("javax.servlet.*").unwrap();
        assert!(p.matches_name("javax.servlet.Filter"));
        assert!(p.matches_name("javax.servlet.http.HttpServletRequest.getSession"));
        assert!(!p.matches_name("javaxx.servlet.Filter"));
        assert!(!p.matches_name("jakarta.servlet.Filter"));
        assert_eq!(p.first_segment(), "javax");
        let exact = Pattern::new("javax.servlet.Filter").unwrap();
        assert!(exact.matches_name("javax.servlet.Filter.class"));
        assert!(exact.matches_name("javax.servlet.Filter"));
        assert!(!exact.matches_name("javax.servlet.FilterChain"));
        assert!(!exact.matches_name("javax.servlet"));
    }
}
