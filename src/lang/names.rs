//! The qualified names a file spells in its code, outside its package and import
//! declarations: every run of identifiers joined by `.` (`javax.servlet.Filter` as a type,
//! `@javax.persistence.Entity`, `javax.servlet.http.HttpServletRequest::class`), read from
//! the tree's leaves in order with comments skipped, as the compiler reads them
//! (`javax . /* x */ servlet` is `javax.servlet`). `import-diff`'s `forbid` reads them so that
//! a forbidden API named in full in a body, without an import, is still found (trust.md
//! point 14; attack finding S8-6).

use tree_sitter::Node;

/// A dotted name of at least two segments, with the line of its first segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QualifiedName {
    /// The segments joined by `.`, without whitespace, comments or backticks.
    pub name: String,
    /// The line, from 1.
    pub line: u32,
}

/// What a front end tells the walk about its grammar.
pub(crate) struct Grammar<'a> {
    /// Whether a node is a comment (skipped; it does not break a name).
    pub is_comment: fn(Node) -> bool,
    /// Whether a top-level node is left out (the package and import declarations).
    pub skip_top: fn(Node) -> bool,
    /// The line of a byte offset of the parsed text.
    pub line: &'a dyn Fn(usize) -> u32,
}

/// The name being read: its segments, where it began, and whether the last token was `.`.
#[derive(Default)]
struct Run {
    segments: Vec<String>,
    start: usize,
    after_dot: bool,
}

impl Run {
    /// Ends the run, keeping it when it has two segments or more.
    fn close(&mut self, out: &mut Vec<(String, usize)>) {
        if self.segments.len() >= 2 {
            out.push((self.segments.join("."), self.start));
        }
        *self = Run::default();
    }
}

/// Every qualified name under `root` (see the module's documentation).
pub(crate) fn qualified_names(root: Node, bytes: &[u8], grammar: &Grammar) -> Vec<QualifiedName> {
    let mut found: Vec<(String, usize)> = Vec::new();
    let mut run = Run::default();
    let mut cursor = root.walk();
    for top in root.children(&mut cursor) {
        if (grammar.skip_top)(top) {
            run.close(&mut found);
            continue;
        }
        leaves(top, bytes, grammar, &mut run, &mut found);
    }
    run.close(&mut found);
    found
        .into_iter()
        .map(|(name, at)| QualifiedName {
            name,
            line: (grammar.line)(at),
        })
        .collect()
}

/// Reads the leaves under `node` in order into `run`, closing it at any token that is neither
/// an identifier nor `.`.
fn leaves(
    node: Node,
    bytes: &[u8],
    grammar: &Grammar,
    run: &mut Run,
    found: &mut Vec<(String, usize)>,
) {
    // An explicit stack: nesting depth is the subject's to choose.
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if (grammar.is_comment)(n) {
            continue;
        }
        if n.child_count() > 0 {
            let mut c = n.walk();
            let kids: Vec<Node> = n.children(&mut c).collect();
            stack.extend(kids.into_iter().rev());
            continue;
        }
        match n.kind() {
            "identifier" | "type_identifier" => {
                let text: String = bytes
                    .get(n.byte_range())
                    .map(|b| String::from_utf8_lossy(b).replace('`', ""))
                    .unwrap_or_default();
                if run.after_dot {
                    run.segments.push(text);
                    run.after_dot = false;
                } else {
                    run.close(found);
                    run.start = n.start_byte();
                    run.segments.push(text);
                }
            }
            "." if !run.segments.is_empty() && !run.after_dot => run.after_dot = true,
            _ => run.close(found),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::lang::Language;

    fn names(language: Language, src: &str) -> Vec<(String, u32)> {
        language
            .qualified_names(src.as_bytes())
            .into_iter()
            .map(|q| (q.name, q.line))
            .collect()
    }

    #[test]
    fn java_names_in_code_as_javac_reads_them() {
        let src = "package a.b;\nimport c.d.E;\nclass K {\n  javax.servlet.Filter f;\n  \
                   @javax.persistence.Entity Object o = javax . /* x */ servlet\n .Servlet.class;\n  \
                   String s = \"javax.servlet.Fake\"; // javax.servlet.Comment\n  \
                   java.util.List<javax.ws.rs.Path> l;\n  Object u = \\u006a\\u0061vax.mail.Session.class;\n}\n";
        let got = names(Language::Java, src);
        assert_eq!(
            got,
            [
                ("javax.servlet.Filter".to_string(), 4),
                ("javax.persistence.Entity".to_string(), 5),
                ("javax.servlet.Servlet".to_string(), 5),
                ("java.util.List".to_string(), 8),
                ("javax.ws.rs.Path".to_string(), 8),
                ("javax.mail.Session".to_string(), 9),
            ],
            "{got:?}"
        );
    }

    #[test]
    fn kotlin_names_in_code_with_backticks_and_templates() {
        let src = "package a.b\nimport c.d.E\ntypealias F = `javax`.servlet.Filter\n\
                   val s = \"${javax.mail.Session.getInstance(null)} javax.not.Code\"\n";
        let got = names(Language::Kotlin, src);
        assert!(
            got.contains(&("javax.servlet.Filter".to_string(), 3)),
            "{got:?}"
        );
        assert!(
            got.iter()
                .any(|(n, l)| n.starts_with("javax.mail.Session") && *l == 4),
            "{got:?}"
        );
        assert!(!got.iter().any(|(n, _)| n.contains("not")), "{got:?}");
        assert!(!got.iter().any(|(n, _)| n.starts_with("c.d")), "{got:?}");
    }

    /// No nesting depth makes the walk overflow the stack.
    #[test]
    fn deep_nesting_does_not_overflow() {
        let src = format!(
            "class K {{ Object o = {}javax.a.B{}; }}",
            "(".repeat(20_000),
            ")".repeat(20_000)
        );
        let got = names(Language::Java, &src);
        assert!(got.iter().any(|(n, _)| n == "javax.a.B"), "{got:?}");
    }
}
