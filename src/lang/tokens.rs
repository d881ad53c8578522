//! What a compiler reads of a file, as one hash: every token of a tree-sitter tree in order
//! with the tree's shape around it, comments and layout between tokens left out — the
//! comparison `file-comparison` makes last, so that nothing a compiler reads (a property's
//! initialiser, a `const val`'s value, a default argument, a getter, a delegate, an
//! annotation's value, a static block) can change while "all files match" (trust.md point 14;
//! attack finding RC5-1).
//!
//! Three things make it cover every byte the compiler reads, whatever the grammar leaves out
//! of its leaves:
//! - the shape (each node's kind, opened and closed) is hashed with the leaves, so that the
//!   same tokens parsed another way (Kotlin reads a line break as the end of a statement:
//!   `a\n-b` is two statements, `a -b` one) differ;
//! - bytes between two tokens that no token covers (a grammar's hidden text) are hashed
//!   exactly unless they are whitespace only;
//! - inside a string or character literal even whitespace between tokens is hashed exactly:
//!   there it is the literal's content, not layout.

use sha2::{Digest, Sha256};
use tree_sitter::Node;

/// Whether a node's kind is a literal whose whitespace is content.
fn is_literal(kind: &str) -> bool {
    kind.contains("string") || kind.contains("text_block") || kind == "character_literal"
}

/// Whether a line break between the tokens `prev` and `next` may end a statement.
pub type BreakRule = fn(prev: &[u8], next: &[u8]) -> bool;

/// What of a language's lexis the hash must know.
#[derive(Clone, Copy, Debug)]
pub struct Lexis {
    /// Whether a node is a comment (left out).
    pub is_comment: fn(Node) -> bool,
    /// For a language where a line break can end a statement (Kotlin): whether one between
    /// the tokens `prev` and `next` may (it is then hashed). `None`: line breaks are layout.
    pub break_may_end: Option<BreakRule>,
}

/// Kotlin: whether a line break between `prev` and `next` may end a statement, so that
/// kotlinc may read the two sides apart (`b` / `-c` is two statements, `b -c` one) where
/// tree-sitter's grammar reads one expression. A break after a token that cannot end an
/// expression (an opening bracket, a comma, an operator, `=`, `.`) or before one that only
/// continues one (a closing bracket, `.`, `?.`, `?:`, `&&`, `||`, `else`) is layout;
/// elsewhere it is counted (a reflow there is a difference: conservative, never a pass).
pub fn kotlin_break_may_end(prev: &[u8], next: &[u8]) -> bool {
    const OPEN: &[&[u8]] = &[
        b"(", b"[", b"{", b",", b"=", b"->", b".", b"?.", b":", b"::", b"&&", b"||", b"?:", b"+",
        b"-", b"*", b"/", b"%", b"+=", b"-=", b"*=", b"/=", b"%=", b"==", b"!=", b"===", b"!==",
        b"<", b"<=", b">=", b"..", b"..<", b"!", b";",
    ];
    const CONTINUES: &[&[u8]] = &[
        b")", b"]", b"}", b",", b".", b"?.", b"?:", b"&&", b"||", b"else", b";",
    ];
    !OPEN.contains(&prev) && !CONTINUES.contains(&next)
}

/// The hasher and where the last token (or comment, or skipped node) ended.
struct Walk<'s> {
    h: Sha256,
    bytes: &'s [u8],
    lexis: Lexis,
    end: usize,
    /// How many literals the walk is inside.
    literals: usize,
    /// The last token hashed.
    prev: &'s [u8],
    /// Whether a line break came since it.
    broke: bool,
}

impl<'s> Walk<'s> {
    /// Hashes the bytes between the last token and `start` when they are more than layout.
    fn gap(&mut self, start: usize) {
        let gap = self.bytes.get(self.end..start).unwrap_or_default();
        if gap.is_empty() {
            return;
        }
        if self.literals > 0 || !gap.iter().all(u8::is_ascii_whitespace) {
            self.h.update(b"\x01gap\x00");
            self.h.update(gap);
            self.h.update([0u8]);
        } else if gap.contains(&b'\n') {
            self.broke = true;
        }
    }

    /// Hashes the token `n`, after a line break when the language reads one before it.
    fn token(&mut self, n: Node) {
        self.gap(n.start_byte());
        let text: &'s [u8] = self.bytes.get(n.byte_range()).unwrap_or_default();
        if self.broke
            && self.literals == 0
            && let Some(may_end) = self.lexis.break_may_end
            && may_end(self.prev, text)
        {
            self.h.update(b"\x01break\x00");
        }
        self.broke = false;
        self.h.update(text);
        self.h.update([0u8]);
        self.prev = text;
        self.pass(n);
    }

    /// Marks `n` as read without hashing it (a comment, a part compared another way).
    fn pass(&mut self, n: Node) {
        self.end = self.end.max(n.end_byte());
    }

    /// Hashes `n` and everything under it, comments (`is_comment`) left out. One cursor
    /// walks the tree (no recursion, no stack: hostile nesting costs nothing more; each
    /// node visited once).
    fn node(&mut self, n: Node<'s>) {
        let mut cursor = n.walk();
        loop {
            let n = cursor.node();
            // Enter `n`; descend when it has children to hash.
            if (self.lexis.is_comment)(n) || self.trailing_comma(n) {
                self.gap(n.start_byte());
                // A line comment ends its line.
                self.broke |= self
                    .bytes
                    .get(n.byte_range())
                    .is_some_and(|c| c.starts_with(b"//"));
                self.pass(n);
            } else {
                self.h.update(b"(");
                self.h.update(n.kind().as_bytes());
                self.h.update([0u8]);
                if n.is_missing() {
                    self.h.update(b"\x01missing");
                }
                if n.child_count() == 0 {
                    self.token(n);
                } else if cursor.goto_first_child() {
                    if is_literal(n.kind()) {
                        self.literals += 1;
                    }
                    continue;
                }
                self.h.update(b")");
            }
            // Leave: to the next sibling, else up, closing each parent left.
            loop {
                if cursor.depth() == 0 {
                    return;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                self.leave(cursor.node());
            }
        }
    }

    /// Whether `n` is a comma that only trails a list: the next token, comments skipped, in
    /// the same parent closes it (`)`, `]`, `}`, `>`, `->`, `;`). Kotlin and Java read
    /// `f(a, b,)` as `f(a, b)`, so it is layout, like the line break after it. A comma the
    /// grammar puts elsewhere is hashed (conservative: never a pass).
    fn trailing_comma(&self, n: Node) -> bool {
        const CLOSERS: &[&[u8]] = &[b")", b"]", b"}", b">", b"->", b";"];
        if n.child_count() != 0 || self.bytes.get(n.byte_range()) != Some(b",".as_slice()) {
            return false;
        }
        let mut next = n.next_sibling();
        while let Some(s) = next.filter(|s| (self.lexis.is_comment)(*s)) {
            next = s.next_sibling();
        }
        // The first token of the next sibling (a closer may open a node of its own, as
        // Java's `;` opens an enum's declarations).
        while let Some(s) = next.filter(|s| s.child_count() != 0) {
            next = s.child(0);
        }
        next.and_then(|t| self.bytes.get(t.byte_range()))
            .is_some_and(|t| CLOSERS.contains(&t))
    }

    /// Closes a node that had children.
    fn leave(&mut self, n: Node) {
        self.h.update(b")");
        if is_literal(n.kind()) {
            self.literals = self.literals.saturating_sub(1);
        }
    }
}

/// The hash (16 hex digits) of every token under `root` with the tree's shape, comments and
/// layout (as `lexis` says) left out, and the top-level children `skip` names left out too
/// (the package and imports, which a comparison reads as a header).
pub fn hash<'s>(
    root: Node<'s>,
    bytes: &'s [u8],
    lexis: Lexis,
    skip: impl Fn(Node) -> bool,
) -> String {
    let mut w = Walk {
        h: Sha256::new(),
        bytes,
        lexis,
        end: root.start_byte(),
        literals: 0,
        prev: b"",
        broke: false,
    };
    let mut cursor = root.walk();
    for child in root.children(&mut cursor) {
        if skip(child) {
            w.gap(child.start_byte());
            w.pass(child);
        } else {
            w.node(child);
        }
    }
    w.gap(root.end_byte());
    hex::encode(&w.h.finalize()[..8])
}

#[cfg(test)]
mod tests {
    use crate::lang::{java, kotlin};

    fn kt(s: &str) -> Option<String> {
        kotlin::parse(s.as_bytes()).tokens_hash
    }

    fn jv(s: &str) -> Option<String> {
        java::parse(s.as_bytes()).tokens_hash
    }

    /// RC5-1: what kotlinc reads outside the declarations the model keeps — initialisers,
    /// `const val` values, default arguments, getters, delegates — changes the hash; comments
    /// and layout do not.
    #[test]
    fn every_token_kotlinc_reads_is_in_the_hash() {
        for (a, b) in [
            ("class K { val x: Int = 1 }", "class K { val x: Int = 2 }"),
            ("const val LIMIT = 10", "const val LIMIT = 99"),
            (
                "fun greet(name: String = \"Ada\") = name",
                "fun greet(name: String = \"Bob\") = name",
            ),
            (
                "class K { val x: Int get() = 1 }",
                "class K { val x: Int get() = 2 }",
            ),
            (
                "class K { val x by lazy { 1 } }",
                "class K { val x by lazy { 2 } }",
            ),
            ("val s = \"a b\"", "val s = \"a  b\""),
            ("val s = \"\"\"a\n b\"\"\"", "val s = \"\"\"a\n  b\"\"\""),
            ("val s = \"${1} x\"", "val s = \"${1}  x\""),
            ("fun f() { val a = b\n-c }", "fun f() { val a = b -c }"),
            ("val x = f(a, b)", "val x = f(a, b, c)"),
            ("val x = f(a, b)", "val x = f(a,, b)"),
            (
                "@file:JvmName(\"A\")\npackage p",
                "@file:JvmName(\"B\")\npackage p",
            ),
        ] {
            assert_ne!(kt(a), kt(b), "{a} vs {b}");
        }
        // A trailing comma is layout: kotlinc reads the list without it.
        for (a, b) in [
            (
                "class K(val a: Int, val b: Int)",
                "class K(\n    val a: Int,\n    val b: Int, // b\n)",
            ),
            ("val x = listOf(1, 2)", "val x = listOf(1, 2,)"),
            (
                "fun f(x: Int) = when (x) { 1, 2 -> 0\n else -> 1 }",
                "fun f(x: Int) = when (x) { 1, 2, -> 0\n else -> 1 }",
            ),
        ] {
            assert_eq!(kt(a), kt(b), "{a} vs {b}");
        }
        assert_eq!(
            kt("package p\nimport a.B\nclass K { val x: Int = 1 }"),
            kt(
                "package p\n\n// a comment\nimport a.B\nclass K {\n    /* doc */ val x: Int =\n        1\n}\n"
            )
        );
    }

    /// Java: field initialisers, annotation values, enum constant arguments, static blocks,
    /// literal content (escapes decoded as javac does) change the hash; layout does not.
    #[test]
    fn every_token_javac_reads_is_in_the_hash() {
        for (a, b) in [
            (
                "class J { static final int X = 1; }",
                "class J { static final int X = 2; }",
            ),
            (
                "class J { @A(\"a\") void f() {} }",
                "class J { @A(\"b\") void f() {} }",
            ),
            ("enum J { A(1) }", "enum J { A(2) }"),
            (
                "class J { static { x = 1; } }",
                "class J { static { x = 2; } }",
            ),
            ("class J { int x = 1; }", "class J { int x = \\u0032; }"),
            (
                "class J { String s = \"a b\"; }",
                "class J { String s = \"a  b\"; }",
            ),
            ("class J { char c = ' '; }", "class J { char c = '\\t'; }"),
        ] {
            assert_ne!(jv(a), jv(b), "{a} vs {b}");
        }
        assert_eq!(
            jv("package p; import a.B; class J { int x = 1; }"),
            jv("package p;\nimport a.B;\n// c\nclass J {\n  int x =\n    1; /* d */\n}\n")
        );
        for (a, b) in [
            (
                "class J { int[] a = {1, 2}; }",
                "class J { int[] a = {1, 2,}; }",
            ),
            ("enum J { A, B; int x; }", "enum J { A, B, ; int x; }"),
            ("enum J { A, B }", "enum J { A, B, }"),
        ] {
            assert_eq!(jv(a), jv(b), "a trailing comma is layout: {a} vs {b}");
        }
        assert_ne!(
            jv("class J { int[] a = {1, 2}; }"),
            jv("class J { int[] a = {1, 2, 3}; }")
        );
        assert_eq!(
            jv("class J { int x = 1; }"),
            jv("class J { int x = \\u0031; }"),
            "an escape is the character javac reads"
        );
    }
}
