//! Diagnostics for configuration files: where (file, line, column), what, and what would be
//! valid; rendered with the offending source line.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A position in a configuration file (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    /// The file.
    pub file: Arc<PathBuf>,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1 (in characters).
    pub column: usize,
    /// Length of the marked token in characters (at least 1).
    pub len: usize,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The configuration is refused.
    Error,
    /// Accepted, but probably not what was meant (an ignored key, an unusual schema).
    Warning,
}

/// One problem found in a configuration file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where, when known (a missing file has no position).
    pub loc: Option<Loc>,
    /// What is wrong.
    pub message: String,
    /// What would be valid, or a nearest suggestion.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at a position.
    pub fn error(loc: Option<Loc>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            loc,
            message: message.into(),
            help: None,
        }
    }

    /// A warning at a position.
    pub fn warning(loc: Option<Loc>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            loc,
            message: message.into(),
            help: None,
        }
    }

    /// The same diagnostic with a help line.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Renders the diagnostic with a snippet of `source` (the text of `loc.file`).
    pub fn render(&self, source: Option<&str>, color: bool) -> String {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let title = level.clone().primary_title(&self.message);
        let mut groups = Vec::new();
        let help_group;
        match (&self.loc, source) {
            (Some(loc), Some(src)) => {
                let range = byte_range(src, loc.line, loc.column, loc.len);
                let path = loc.file.display().to_string();
                groups.push(
                    title.element(
                        Snippet::source(src)
                            .path(path)
                            .annotation(AnnotationKind::Primary.span(range)),
                    ),
                );
            }
            (Some(loc), None) => {
                let t = level.primary_title(format!("{loc}: {}", self.message));
                groups.push(Group::with_title(t));
            }
            (None, _) => groups.push(Group::with_title(title)),
        }
        if let Some(h) = &self.help {
            help_group = Group::with_title(Level::HELP.secondary_title(h));
            groups.push(help_group);
        }
        renderer.render(&groups).to_string()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match &self.loc {
            Some(l) => write!(f, "{l}: {sev}: {}", self.message)?,
            None => write!(f, "{sev}: {}", self.message)?,
        }
        if let Some(h) = &self.help {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

/// The byte range of `len` characters at a 1-based line and column, clamped to the text.
fn byte_range(src: &str, line: usize, column: usize, len: usize) -> std::ops::Range<usize> {
    let line_start: usize = src
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = &src[line_start.min(src.len())..];
    let line_text = rest.split('\n').next().unwrap_or("");
    let start = line_text
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(line_text.len(), |(i, _)| i);
    let end = line_text[start..]
        .char_indices()
        .nth(len.max(1))
        .map_or(line_text.len(), |(i, _)| start + i);
    let s = line_start + start;
    let e = (line_start + end).max(s);
    s.min(src.len())..e.min(src.len())
}

/// Every diagnostic of one load, errors and warnings alike.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    /// The diagnostics, in the order they were found.
    pub items: Vec<Diagnostic>,
    /// Texts of files not read from disk (a config read from a commit's tree), for snippets:
    /// the disk holds another version of them.
    pub texts: Vec<(PathBuf, String)>,
}

impl Diagnostics {
    /// Adds one.
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The warnings only.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
    }

    /// Renders every diagnostic, reading each file's text once for its snippets.
    pub fn render(&self, color: bool) -> String {
        let mut cache: Vec<(PathBuf, Option<String>)> = Vec::new();
        let mut out = String::new();
        for d in &self.items {
            let src = d.loc.as_ref().and_then(|l| {
                let p: &Path = l.file.as_ref();
                if let Some((_, s)) = cache.iter().find(|(q, _)| q == p) {
                    return s.clone();
                }
                if let Some((_, s)) = self.texts.iter().find(|(q, _)| q == p) {
                    return Some(s.clone());
                }
                let s = std::fs::read_to_string(p).ok();
                cache.push((p.to_path_buf(), s.clone()));
                s
            });
            out.push_str(&d.render(src.as_deref(), color));
            out.push_str("\n\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_file_line_column_and_snippet() {
        let src = "jury:\n  checks:\n    - type: fiel-exists\n";
        let loc = Loc {
            file: Arc::new(PathBuf::from("judge-ci.yml")),
            line: 3,
            column: 13,
            len: 11,
        };
        let d = Diagnostic::error(Some(loc), "unknown check type 'fiel-exists'")
            .help("did you mean 'file-exists'?");
        let text = d.render(Some(src), false);
        assert!(text.contains("judge-ci.yml:3:13"), "{text}");
        assert!(text.contains("fiel-exists"), "{text}");
        assert!(text.contains("^^^^^^^^^^^"), "{text}");
        assert!(text.contains("did you mean 'file-exists'?"), "{text}");
        assert_eq!(byte_range("ab\ncdé f\n", 2, 3, 1), 5..7);
        assert_eq!(byte_range("ab\ncdé f\n", 2, 4, 1), 7..8);
    }
}
