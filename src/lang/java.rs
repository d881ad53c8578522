//! The Java front end: tree-sitter-java parses a file into a small model of what structural
//! judges compare — package, imports, types with their members and annotations — each with
//! its line. Files that do not parse cleanly still yield what the tree has, plus a note of
//! where the errors are; no input makes it panic.
//!
//! The source is read as javac reads it: unicode escapes are translated first
//! ([`super::escapes`]) and every line in the model is a line of the original file. A test
//! (`tests/it/javac_differential.rs`) checks the model against javac's own parser on a corpus.

use sha2::{Digest, Sha256};
use std::cell::RefCell;
use tree_sitter::{Node, Parser, Tree};

use super::escapes::{self, Decoded};
pub use super::model::{
    Annotation, Field, Header, INITIALIZER, Import, MAX_NESTING, Method, STATIC_INITIALIZER,
    SourceFile, TypeDecl, TypeKind, all_types,
};

/// The model of a Java file: the language-neutral [`SourceFile`] (its top-level `fields` and
/// `methods` always empty).
pub type JavaFile = SourceFile;

/// A UTF-8 byte-order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses Java source, body hashes included. Invalid UTF-8 is parsed as it is.
pub fn parse(source: &[u8]) -> JavaFile {
    parse_with(source, true)
}

/// Parses Java source; `bodies: false` skips hashing method bodies (a walk over every token
/// of every body), for comparisons that do not look at bodies.
pub fn parse_with(source: &[u8], bodies: bool) -> JavaFile {
    parse_decoded(&escapes::decode(source), bodies)
}

/// Parses text (escapes translated) with this thread's parser; `None` only if the grammar
/// cannot be loaded.
fn tree(source: &[u8]) -> Option<Tree> {
    PARSER.with(|p| {
        let mut slot = p.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            if parser
                .set_language(&tree_sitter_java::LANGUAGE.into())
                .is_err()
            {
                return None;
            }
            *slot = Some(parser);
        }
        slot.as_mut().and_then(|parser| parser.parse(source, None))
    })
}

/// The qualified names the file spells outside its package and imports
/// ([`super::names`]), read as javac reads them (unicode escapes translated), each with its
/// line in the original file.
pub fn qualified_names(source: &[u8]) -> Vec<super::names::QualifiedName> {
    let decoded = escapes::decode(source);
    let Some(tree) = tree(&decoded.text) else {
        return Vec::new();
    };
    let line = |at: usize| decoded.line(at);
    super::names::qualified_names(
        tree.root_node(),
        &decoded.text,
        &super::names::Grammar {
            is_comment,
            skip_top: |c| matches!(c.kind(), "package_declaration" | "import_declaration"),
            line: &line,
        },
    )
}

/// Parses source whose unicode escapes are already translated.
fn parse_decoded(decoded: &Decoded, bodies: bool) -> JavaFile {
    let source = decoded.text.as_slice();
    let Some(tree) = tree(source) else {
        return JavaFile {
            error_lines: vec![1],
            ..JavaFile::default()
        };
    };
    let root = tree.root_node();
    let src = Src {
        bytes: source,
        decoded,
        bodies,
        too_deep: std::cell::Cell::new(None),
    };
    let mut file = JavaFile {
        unicode_escapes: decoded.suspicious(),
        ..JavaFile::default()
    };
    // javac reads a byte-order mark as an illegal character (tree-sitter skips it).
    if source.starts_with(BOM) {
        file.error_lines.push(1);
    }
    if bodies {
        file.tokens_hash = Some(super::tokens::hash(
            root,
            source,
            super::tokens::Lexis {
                is_comment,
                break_may_end: None,
            },
            |c| matches!(c.kind(), "package_declaration" | "import_declaration"),
        ));
    }
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        match child.kind() {
            "package_declaration" => {
                file.package = named(child)
                    .find(|c| matches!(c.kind(), "identifier" | "scoped_identifier"))
                    .map(|n| src.dotted(n));
            }
            "import_declaration" => {
                let mut path = named(child)
                    .find(|c| matches!(c.kind(), "identifier" | "scoped_identifier"))
                    .map(|n| src.dotted(n))
                    .unwrap_or_default();
                let mut c2 = child.walk();
                let kids: Vec<Node> = child.children(&mut c2).collect();
                if kids.iter().any(|k| k.kind() == "asterisk") {
                    path.push_str(".*");
                }
                let is_static = kids.iter().any(|k| k.kind() == "static");
                file.imports.push(Import {
                    path,
                    is_static,
                    alias: None,
                    line: src.line(child),
                });
            }
            _ => {
                if let Some(t) = type_decl(child, &src, 1) {
                    file.types.push(t);
                }
            }
        }
    }
    if root.has_error() {
        collect_errors(root, &src, &mut file.error_lines);
        file.error_lines.dedup();
    }
    file.too_deep = src.too_deep.get();
    file
}

/// The source being modelled.
struct Src<'a> {
    /// Its bytes, escapes translated.
    bytes: &'a [u8],
    /// The map back to original lines.
    decoded: &'a Decoded,
    /// Whether method bodies are hashed.
    bodies: bool,
    /// The line of the first type nested deeper than [`MAX_NESTING`], once met.
    too_deep: std::cell::Cell<Option<u32>>,
}

impl Src<'_> {
    fn raw(&self, n: Node) -> String {
        String::from_utf8_lossy(self.bytes.get(n.byte_range()).unwrap_or_default()).into_owned()
    }

    /// A dotted name with all whitespace removed (`p . q` → `p.q`).
    fn dotted(&self, n: Node) -> String {
        self.raw(n).chars().filter(|c| !c.is_whitespace()).collect()
    }

    /// The node's text with comments dropped and runs of whitespace collapsed to one space
    /// (javac's tree has no comments: `List</* x */String>` is `List<String>`).
    fn text(&self, n: Node) -> String {
        let range = n.byte_range();
        let Some(bytes) = self.bytes.get(range.clone()) else {
            return String::new();
        };
        let mut bytes = bytes.to_vec();
        if bytes.windows(2).any(|w| w == b"/*" || w == b"//") {
            let mut stack = vec![n];
            while let Some(x) = stack.pop() {
                if matches!(x.kind(), "line_comment" | "block_comment") {
                    let (a, b) = (x.start_byte() - range.start, x.end_byte() - range.start);
                    bytes[a..b].iter_mut().for_each(|c| *c = b' ');
                } else {
                    stack.extend((0..x.child_count()).filter_map(|i| x.child(i)));
                }
            }
        }
        String::from_utf8_lossy(&bytes)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The original line where `n` starts.
    fn line(&self, n: Node) -> u32 {
        self.decoded.line(n.start_byte())
    }

    /// The line of a declaration's name (annotations above it belong to the declaration node).
    fn name_line(&self, n: Node) -> u32 {
        self.line(n.child_by_field_name("name").unwrap_or(n))
    }
}

/// Whether a node is a comment.
fn is_comment(n: Node) -> bool {
    matches!(n.kind(), "line_comment" | "block_comment")
}

/// Named children, comments left out (tree-sitter lists them among the named children
/// wherever they appear: `implements A, /* x */ B`).
fn named<'t>(n: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..n.named_child_count())
        .filter_map(move |i| n.named_child(i as u32))
        .filter(|c| !matches!(c.kind(), "line_comment" | "block_comment"))
}

fn collect_errors(n: Node, src: &Src, out: &mut Vec<u32>) {
    // Iterative to stay safe on deeply nested (hostile) input.
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            let l = src.line(n);
            if !out.contains(&l) {
                out.push(l);
            }
            continue;
        }
        if n.has_error() {
            stack.extend((0..n.child_count()).filter_map(|i| n.child(i)));
        }
    }
    out.sort_unstable();
}

/// Keyword modifiers (sorted) and annotations (in order) of a `modifiers` node.
fn modifiers(n: Option<Node>, src: &Src) -> (Vec<String>, Vec<Annotation>) {
    let Some(n) = n else {
        return (Vec::new(), Vec::new());
    };
    let mut words = Vec::new();
    let mut annotations = Vec::new();
    let mut c = n.walk();
    for k in n.children(&mut c) {
        match k.kind() {
            "annotation" | "marker_annotation" => annotations.push(annotation(k, src)),
            _ if !k.is_named() => words.push(k.kind().to_string()),
            _ => {}
        }
    }
    words.sort();
    (words, annotations)
}

fn annotation(n: Node, src: &Src) -> Annotation {
    Annotation {
        name: n
            .child_by_field_name("name")
            .map(|x| src.text(x))
            .unwrap_or_default(),
        args: n.child_by_field_name("arguments").map(|x| src.text(x)),
    }
}

fn modifiers_child(n: Node) -> Option<Node> {
    named(n).find(|c| c.kind() == "modifiers")
}

fn type_list(n: Node, src: &Src) -> Vec<String> {
    // superclass / super_interfaces / extends_interfaces → their types, in order.
    let mut out = Vec::new();
    for c in named(n) {
        if c.kind() == "type_list" {
            out.extend(named(c).map(|t| src.text(t)));
        } else {
            out.push(src.text(c));
        }
    }
    out
}

/// The kind of type `n` declares, if it declares one.
fn type_decl_kind(n: Node) -> Option<TypeKind> {
    Some(match n.kind() {
        "class_declaration" => TypeKind::Class,
        "interface_declaration" => TypeKind::Interface,
        "enum_declaration" => TypeKind::Enum,
        "record_declaration" => TypeKind::Record,
        "annotation_type_declaration" => TypeKind::Annotation,
        _ => return None,
    })
}

/// The type declared by `n`, at nesting `depth` (1 for a top-level type).
fn type_decl(n: Node, src: &Src, depth: usize) -> Option<TypeDecl> {
    let kind = type_decl_kind(n)?;
    let (mods, anns) = modifiers(modifiers_child(n), src);
    let mut t = TypeDecl {
        kind,
        name: n
            .child_by_field_name("name")
            .map(|x| src.text(x))
            .unwrap_or_default(),
        modifiers: mods,
        annotations: anns,
        type_params: n
            .child_by_field_name("type_parameters")
            .map(|x| src.text(x)),
        supertypes: Vec::new(),
        fields: Vec::new(),
        methods: Vec::new(),
        constructors: Vec::new(),
        nested: Vec::new(),
        line: src.name_line(n),
    };
    for f in ["superclass", "interfaces"] {
        if let Some(s) = n.child_by_field_name(f) {
            t.supertypes.extend(type_list(s, src));
        }
    }
    if let Some(ext) = named(n).find(|c| c.kind() == "extends_interfaces") {
        t.supertypes.extend(type_list(ext, src));
    }
    let mut record_params = Vec::new();
    if kind == TypeKind::Record
        && let Some(ps) = n.child_by_field_name("parameters")
    {
        for p in named(ps) {
            let (m, a) = modifiers(modifiers_child(p), src);
            let (name, ty) = match p.kind() {
                "formal_parameter" => (
                    p.child_by_field_name("name"),
                    p.child_by_field_name("type").map(|x| {
                        let dims = p
                            .child_by_field_name("dimensions")
                            .map(|d| src.text(d))
                            .unwrap_or_default();
                        format!("{}{dims}", src.text(x))
                    }),
                ),
                // `int... xs`: the component (and its field) is an array.
                "spread_parameter" => (
                    named(p)
                        .find(|c| c.kind() == "variable_declarator")
                        .and_then(|d| d.child_by_field_name("name")),
                    spread_type(p).map(|x| format!("{}[]", src.text(x))),
                ),
                _ => continue,
            };
            let ty = ty.unwrap_or_default();
            record_params.push(match ty.strip_suffix("[]") {
                Some(elem) if p.kind() == "spread_parameter" => format!("{elem}..."),
                _ => ty.clone(),
            });
            t.fields.push(Field {
                name: name.map(|x| src.text(x)).unwrap_or_default(),
                ty,
                modifiers: m,
                annotations: a,
                init_hash: None,
                line: src.line(p),
            });
        }
    }
    if let Some(body) = n.child_by_field_name("body") {
        members(body, src, &mut t, depth, &record_params);
    }
    Some(t)
}

/// Reads the members of a type body into `t`; `record_params` are a record's component types
/// as parameters (`int...` for a varargs one).
fn members(body: Node, src: &Src, t: &mut TypeDecl, depth: usize, record_params: &[String]) {
    for m in named(body) {
        match m.kind() {
            "field_declaration" | "constant_declaration" => {
                let (mods, anns) = modifiers(modifiers_child(m), src);
                let ty = m
                    .child_by_field_name("type")
                    .map(|x| src.text(x))
                    .unwrap_or_default();
                let mut c = m.walk();
                for d in m.children_by_field_name("declarator", &mut c) {
                    // `int a, b[];`: b is an int[].
                    let dims = d
                        .child_by_field_name("dimensions")
                        .map(|x| src.text(x))
                        .unwrap_or_default();
                    t.fields.push(Field {
                        name: d
                            .child_by_field_name("name")
                            .map(|x| src.text(x))
                            .unwrap_or_default(),
                        ty: format!("{ty}{dims}"),
                        modifiers: mods.clone(),
                        annotations: anns.clone(),
                        init_hash: d
                            .child_by_field_name("value")
                            .filter(|_| src.bodies)
                            .map(|v| body_hash(v, src)),
                        line: src.line(d),
                    });
                }
            }
            "enum_constant" => {
                let (mods, anns) = modifiers(modifiers_child(m), src);
                // Its arguments and class body, as one initialiser.
                let init = src.bodies.then(|| {
                    let mut h = Sha256::new();
                    for part in ["arguments", "body"] {
                        if let Some(n) = m.child_by_field_name(part) {
                            h.update(body_hash(n, src).as_bytes());
                        }
                        h.update([0u8]);
                    }
                    hex::encode(&h.finalize()[..8])
                });
                t.fields.push(Field {
                    name: m
                        .child_by_field_name("name")
                        .map(|x| src.text(x))
                        .unwrap_or_default(),
                    ty: t.name.clone(),
                    modifiers: mods,
                    annotations: anns,
                    init_hash: init,
                    line: src.line(m),
                });
            }
            "enum_body_declarations" => members(m, src, t, depth, record_params),
            "method_declaration" | "annotation_type_element_declaration" => {
                t.methods.push(method(m, src, false))
            }
            "constructor_declaration" => t.constructors.push(method(m, src, true)),
            // Code the compiler runs when the class is loaded or an instance made.
            "static_initializer" | "block" => {
                let is_static = m.kind() == "static_initializer";
                let base = if is_static {
                    STATIC_INITIALIZER
                } else {
                    INITIALIZER
                };
                let n = 1 + t
                    .methods
                    .iter()
                    .filter(|x| x.name.starts_with(base))
                    .count();
                let block = if is_static {
                    named(m).find(|c| c.kind() == "block")
                } else {
                    Some(m)
                };
                t.methods.push(Method {
                    name: format!("{base}#{n}"),
                    params: Vec::new(),
                    returns: None,
                    modifiers: if is_static {
                        vec!["static".into()]
                    } else {
                        Vec::new()
                    },
                    annotations: Vec::new(),
                    throws: Vec::new(),
                    body_hash: block.filter(|_| src.bodies).map(|b| body_hash(b, src)),
                    line: src.line(m),
                });
            }
            // A compact constructor is the canonical one: its parameters are the components
            // (as javac's parser gives them; a varargs component stays varargs).
            "compact_constructor_declaration" => {
                let mut c = method(m, src, true);
                c.params = record_params.to_vec();
                t.constructors.push(c)
            }
            _ if depth >= MAX_NESTING => {
                if src.too_deep.get().is_none() && type_decl_kind(m).is_some() {
                    src.too_deep.set(Some(src.name_line(m)));
                }
            }
            _ => {
                if let Some(nested) = type_decl(m, src, depth + 1) {
                    t.nested.push(nested);
                }
            }
        }
    }
}

fn method(m: Node, src: &Src, constructor: bool) -> Method {
    let (mods, mut anns) = modifiers(modifiers_child(m), src);
    // Annotations may also sit directly on the declaration (after type parameters).
    for a in named(m).filter(|c| matches!(c.kind(), "annotation" | "marker_annotation")) {
        anns.push(annotation(a, src));
    }
    let params = m
        .child_by_field_name("parameters")
        .map(|ps| {
            named(ps)
                .filter_map(|p| match p.kind() {
                    "formal_parameter" => {
                        let ty = p
                            .child_by_field_name("type")
                            .map(|x| src.text(x))
                            .unwrap_or_default();
                        let dims = p
                            .child_by_field_name("dimensions")
                            .map(|x| src.text(x))
                            .unwrap_or_default();
                        Some(format!("{ty}{dims}"))
                    }
                    "spread_parameter" => spread_type(p).map(|ty| format!("{}...", src.text(ty))),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let throws = named(m)
        .find(|c| c.kind() == "throws")
        .map(|th| named(th).map(|x| src.text(x)).collect())
        .unwrap_or_default();
    Method {
        name: m
            .child_by_field_name("name")
            .map(|x| src.text(x))
            .unwrap_or_default(),
        params,
        returns: if constructor {
            None
        } else {
            m.child_by_field_name("type").map(|x| {
                let dims = m
                    .child_by_field_name("dimensions")
                    .map(|d| src.text(d))
                    .unwrap_or_default();
                format!("{}{dims}", src.text(x))
            })
        },
        modifiers: mods,
        annotations: anns,
        throws,
        body_hash: if src.bodies {
            m.child_by_field_name("body").map(|b| body_hash(b, src))
        } else {
            None
        },
        line: src.name_line(m),
    }
}

/// The element type of a `T... xs` parameter.
fn spread_type(p: Node) -> Option<Node> {
    named(p).find(|c| {
        !matches!(
            c.kind(),
            "modifiers" | "variable_declarator" | "annotation" | "marker_annotation"
        )
    })
}

/// Hashes the leaf tokens of a body, comments and layout ignored.
fn body_hash(body: Node, src: &Src) -> String {
    let mut h = Sha256::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "line_comment" | "block_comment") {
            continue;
        }
        if n.child_count() == 0 {
            h.update(src.bytes.get(n.byte_range()).unwrap_or_default());
            h.update([0u8]);
        } else {
            // Children reversed so tokens are hashed in source order.
            stack.extend((0..n.child_count()).rev().filter_map(|i| n.child(i)));
        }
    }
    hex::encode(&h.finalize()[..8])
}

/// The header of a file: [`scan_header`]'s fast path when it can read it, the full parse when
/// it declines. Escapes are translated once for both.
pub fn header(source: &[u8]) -> Header {
    let decoded = escapes::decode(source);
    let (package, imports) = match scan_decoded(&decoded) {
        Some(h) => h,
        None => {
            let f = parse_decoded(&decoded, false);
            (f.package, f.imports)
        }
    };
    Header {
        package,
        imports,
        unicode_escapes: decoded.suspicious(),
    }
}

/// Reads only the header of a file — package and imports — without parsing the rest.
/// Import comparison needs nothing more, and skipping the bodies makes it cost about as much
/// as reading the bytes (tree-sitter parses the whole file). Unicode escapes are translated
/// first and empty declarations (`;`) among the imports are skipped, as javac 17 does.
/// Returns `None` for anything the scanner does not expect (annotations on a package, stray
/// tokens); callers then use [`parse`]. Tests check it against [`parse`] and javac.
pub fn scan_header(src: &[u8]) -> Option<(Option<String>, Vec<Import>)> {
    scan_decoded(&escapes::decode(src))
}

fn scan_decoded(decoded: &Decoded) -> Option<(Option<String>, Vec<Import>)> {
    if decoded.text.starts_with(BOM) {
        return None;
    }
    let mut lx = Lexer {
        s: &decoded.text,
        i: 0,
    };
    let mut package = None;
    let mut imports = Vec::new();
    let mut first = true;
    loop {
        let (tok, at) = match lx.word()? {
            Some(t) => t,
            None => return Some((package, imports)),
        };
        match tok.as_str() {
            "package" if first => {
                let (name, end) = lx.name()?;
                if end != b';' {
                    return None;
                }
                package = Some(name);
            }
            "import" => {
                let save = lx.i;
                let is_static = matches!(lx.word()?, Some((ref w, _)) if w == "static");
                if !is_static {
                    lx.i = save;
                }
                let (name, end) = lx.name()?;
                if end != b';' {
                    return None;
                }
                imports.push(Import {
                    path: name,
                    is_static,
                    alias: None,
                    line: decoded.line(at),
                });
            }
            // An empty declaration: javac 17 reads on, imports included.
            ";" if !first => {}
            // An annotated package or a module declaration: the full parse reads those.
            "@" | "open" | "module" if first => return None,
            // The first token of anything else ends the header.
            _ => return Some((package, imports)),
        }
        first = false;
    }
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl Lexer<'_> {
    /// Skips whitespace and comments; `None` for an unterminated comment.
    fn skip(&mut self) -> Option<()> {
        while self.i < self.s.len() {
            match self.s[self.i] {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0c => self.i += 1,
                b'/' if self.s.get(self.i + 1) == Some(&b'/') => {
                    while self.i < self.s.len() && !matches!(self.s[self.i], b'\n' | b'\r') {
                        self.i += 1;
                    }
                }
                b'/' if self.s.get(self.i + 1) == Some(&b'*') => {
                    let end = self.s[self.i + 2..].windows(2).position(|w| w == b"*/")?;
                    self.i += 2 + end + 2;
                }
                _ => return Some(()),
            }
        }
        Some(())
    }

    fn is_ident(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
    }

    /// The next identifier-like word with its offset; `Some(None)` at the end of input; a
    /// non-word token yields it as a one-character word.
    fn word(&mut self) -> Option<Option<(String, usize)>> {
        self.skip()?;
        if self.i >= self.s.len() {
            return Some(None);
        }
        let start = self.i;
        if !Self::is_ident(self.s[self.i]) {
            self.i += 1;
        } else {
            while self.i < self.s.len() && Self::is_ident(self.s[self.i]) {
                self.i += 1;
            }
        }
        Some(Some((
            String::from_utf8_lossy(&self.s[start..self.i]).into_owned(),
            start,
        )))
    }

    /// A dotted name (`a.b.C`, `a.b.*`) and the byte that ends it.
    fn name(&mut self) -> Option<(String, u8)> {
        let mut out = String::new();
        loop {
            self.skip()?;
            let b = *self.s.get(self.i)?;
            if b == b'*' {
                out.push('*');
                self.i += 1;
            } else if Self::is_ident(b) {
                let (w, _) = self.word()??;
                out.push_str(&w);
            } else {
                return None;
            }
            self.skip()?;
            match *self.s.get(self.i)? {
                b'.' => {
                    out.push('.');
                    self.i += 1;
                }
                end => {
                    self.i += 1;
                    return Some((out, end));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"package com.acme;

import java.util.List;
import static org.junit.Assert.*;
import jakarta.persistence.Entity;

@Entity
@Table(name = "owners")
public class Owner<T extends Comparable<T>> extends Person implements Serializable, Cloneable {
    @Id private Long id;
    private final List<String> pets = new ArrayList<>(), tags;

    public Owner() { }
    protected Owner(String name) throws IllegalArgumentException { super(name); }

    @Override
    public String toString() {
        // a comment
        return "owner " + id;
    }

    static <X> void each(List<X> xs, String... names) throws java.io.IOException, InterruptedException {}

    enum Kind { CAT, DOG; void bark() {} }
    interface Visitor extends Runnable { void visit(Owner o); }
    record Pair(int a, @Nullable String b) {}
}
"#;

    #[test]
    fn parses_the_model() {
        let f = parse(SRC.as_bytes());
        assert!(f.error_lines.is_empty(), "{:?}", f.error_lines);
        assert_eq!(f.package.as_deref(), Some("com.acme"));
        let keys: Vec<String> = f.imports.iter().map(Import::key).collect();
        assert_eq!(
            keys,
            [
                "java.util.List",
                "static org.junit.Assert.*",
                "jakarta.persistence.Entity"
            ]
        );
        assert_eq!(f.imports[2].line, 5);
        let t = &f.types[0];
        assert_eq!(
            (t.kind, t.name.as_str(), t.line),
            (TypeKind::Class, "Owner", 9)
        );
        assert_eq!(t.modifiers, ["public"]);
        assert_eq!(
            t.annotations
                .iter()
                .map(Annotation::text)
                .collect::<Vec<_>>(),
            ["@Entity", "@Table(name = \"owners\")"]
        );
        assert_eq!(t.type_params.as_deref(), Some("<T extends Comparable<T>>"));
        assert_eq!(t.supertypes, ["Person", "Serializable", "Cloneable"]);
        let fields: Vec<(&str, &str)> = t
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.ty.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("id", "Long"),
                ("pets", "List<String>"),
                ("tags", "List<String>")
            ]
        );
        assert_eq!(t.fields[0].annotations[0].name, "Id");
        assert_eq!(t.fields[1].modifiers, ["final", "private"]);
        assert_eq!(t.constructors.len(), 2);
        assert_eq!(t.constructors[1].signature(), "Owner(String)");
        assert_eq!(t.constructors[1].throws, ["IllegalArgumentException"]);
        let sigs: Vec<String> = t.methods.iter().map(Method::signature).collect();
        assert_eq!(sigs, ["toString()", "each(List<X>, String...)"]);
        assert_eq!(t.methods[0].annotations[0].name, "Override");
        assert_eq!(t.methods[0].returns.as_deref(), Some("String"));
        assert_eq!(
            t.methods[1].throws,
            ["java.io.IOException", "InterruptedException"]
        );
        let nested: Vec<String> = all_types(&f).into_iter().map(|(p, _)| p).collect();
        assert_eq!(
            nested,
            ["Owner", "Owner.Kind", "Owner.Visitor", "Owner.Pair"]
        );
        assert_eq!(t.nested[0].fields.len(), 2);
        assert_eq!(t.nested[0].methods[0].name, "bark");
        assert_eq!(t.nested[1].supertypes, ["Runnable"]);
        assert_eq!(t.nested[2].fields[1].annotations[0].name, "Nullable");
    }

    #[test]
    fn the_header_scanner_agrees_with_the_parser() {
        let sources: Vec<&[u8]> = vec![
            SRC.as_bytes(),
            b"import a.b.C; import static a.b.C.d; import x.*; class A {}",
            b"// lead\n/* block\n comment */ package p . q ;\nimport   java\n.util.List;\n\n@Deprecated public class A {}",
            "package p;\nimport a.\u{e9}t\u{e9}.B;\nenum E { X }".as_bytes(),
            b"package p;",
            b"",
        ];
        for src in sources {
            let parsed = parse(src);
            let (package, imports) = scan_header(src).expect("scannable");
            assert_eq!(package, parsed.package, "{}", String::from_utf8_lossy(src));
            assert_eq!(imports, parsed.imports, "{}", String::from_utf8_lossy(src));
        }
        assert!(
            scan_header(b"@Ann package p;").is_none()
                || scan_header(b"@Ann package p;").unwrap().1.is_empty()
        );
        assert!(scan_header(b"import a.b /* unterminated").is_none());
        assert!(scan_header(b"import a.b").is_none());
    }

    #[test]
    fn body_hash_ignores_comments_and_layout() {
        let a = parse(b"class A { int f() { return 1 + 2; } }");
        let b = parse(b"class A {\n  int f() {\n    // why\n    return 1+2; /* x */\n  }\n}");
        let c = parse(b"class A { int f() { return 1 + 3; } }");
        let h = |f: &JavaFile| f.types[0].methods[0].body_hash.clone();
        assert_eq!(h(&a), h(&b));
        assert_ne!(h(&a), h(&c));
    }

    #[test]
    fn broken_and_hostile_input_never_panics() {
        let broken = parse(b"package x;\nimport a.b.C;\npublic class { void m( { }\n");
        assert!(!broken.error_lines.is_empty());
        assert_eq!(broken.imports.len(), 1);
        for input in [
            &b"\xff\xfe\x00\x01garbage"[..],
            b"",
            b"class",
            &vec![b'{'; 100_000][..],
            &vec![b'('; 50_000][..],
        ] {
            let _ = parse(input);
        }
        let long = format!("class A {{ String s = \"{}\"; }}", "x".repeat(5_000_000));
        assert_eq!(parse(long.as_bytes()).types[0].fields.len(), 1);
    }

    #[test]
    fn types_nested_past_the_limit_are_cut_and_marked() {
        // 3,000 nested classes once overflowed the stack (tests/corpus/java/).
        let deep: String = (0..3_000)
            .map(|i| format!("class C{i} {{\n"))
            .collect::<String>()
            + &"}".repeat(3_000);
        let f = parse(deep.as_bytes());
        assert_eq!(all_types(&f).len(), MAX_NESTING);
        assert_eq!(f.too_deep, Some(MAX_NESTING as u32 + 1));
        let shallow = parse(b"class A { class B { class C {} } }");
        assert_eq!(all_types(&shallow).len(), 3);
        assert_eq!(shallow.too_deep, None);
    }
}
