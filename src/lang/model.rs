//! The language-neutral model every front end ([`super::java`], [`super::kotlin`]) parses a
//! source file into, and the structural judges compare: package, imports, types with their
//! members and annotations, top-level members, each with its line; where the file does not
//! parse, the lines that do not; what the model leaves out and why (nesting too deep).
//!
//! Words are kept as the language writes them (`fun`, `val`, `static`): the model compares
//! a file with another file of the same language, never across languages.

/// One import.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Import {
    /// The dotted name, with `.*` for wildcards.
    pub path: String,
    /// `import static …` (Java).
    pub is_static: bool,
    /// The name it is imported as (`import a.B as C`, Kotlin).
    pub alias: Option<String>,
    /// The line, from 1.
    pub line: u32,
}

impl Import {
    /// `static a.b.C.m`, `a.b.*` or `a.b.C as D`, the way the import set is compared.
    pub fn key(&self) -> String {
        let path = if self.is_static {
            format!("static {}", self.path)
        } else {
            self.path.clone()
        };
        match &self.alias {
            Some(a) => format!("{path} as {a}"),
            None => path,
        }
    }
}

/// The kind of a type declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TypeKind {
    /// `class`.
    Class,
    /// `interface`.
    Interface,
    /// `enum`.
    Enum,
    /// `record`.
    Record,
    /// `@interface` (Java), `annotation class` (Kotlin).
    Annotation,
    /// `object` and `companion object` (Kotlin).
    Object,
    /// `typealias` (Kotlin): its one supertype is the aliased type.
    Alias,
}

impl TypeKind {
    /// The keyword.
    pub fn word(self) -> &'static str {
        match self {
            TypeKind::Class => "class",
            TypeKind::Interface => "interface",
            TypeKind::Enum => "enum",
            TypeKind::Record => "record",
            TypeKind::Annotation => "@interface",
            TypeKind::Object => "object",
            TypeKind::Alias => "typealias",
        }
    }
}

/// An annotation with its arguments as written (whitespace collapsed).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Annotation {
    /// The name as written (`Override`, `jakarta.persistence.Entity`).
    pub name: String,
    /// The argument list, if any (`(name = "x")`).
    pub args: Option<String>,
}

impl Annotation {
    /// `@Name(args)`.
    pub fn text(&self) -> String {
        format!("@{}{}", self.name, self.args.as_deref().unwrap_or(""))
    }
}

/// A field.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Field {
    /// Its name.
    pub name: String,
    /// Its type as written.
    pub ty: String,
    /// Keyword modifiers, sorted.
    pub modifiers: Vec<String>,
    /// Annotations, in order.
    pub annotations: Vec<Annotation>,
    /// SHA-256 (16 hex digits) of its initialiser's tokens (`= new Greeter("Hello")`, an enum
    /// constant's arguments and body), comments and layout ignored; `None` without one, when
    /// bodies are not hashed, or for a language that does not record it.
    #[serde(default)]
    pub init_hash: Option<String>,
    /// The line.
    pub line: u32,
}

/// The name of the `n`th static initializer block of a type (`static { … }`), as a member.
pub const STATIC_INITIALIZER: &str = "static {}";
/// The name of the `n`th instance initializer block of a type (`{ … }`), as a member.
pub const INITIALIZER: &str = "{}";

/// A method or constructor; also an initializer block (`static { … }` or `{ … }`, named by
/// [`INITIALIZER`] / [`STATIC_INITIALIZER`] and its place among the type's blocks), which the
/// compiler runs as code and so is compared as a member with a body.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Method {
    /// Its name.
    pub name: String,
    /// Parameter types as written.
    pub params: Vec<String>,
    /// Return type (none for constructors).
    pub returns: Option<String>,
    /// Keyword modifiers, sorted.
    pub modifiers: Vec<String>,
    /// Annotations, in order.
    pub annotations: Vec<Annotation>,
    /// Declared exceptions, as written.
    pub throws: Vec<String>,
    /// SHA-256 (16 hex digits) of the body's tokens, comments and layout ignored.
    pub body_hash: Option<String>,
    /// The line.
    pub line: u32,
}

impl Method {
    /// Whether it is an initializer block (`static { … }` or `{ … }`), not a declared method
    /// (javac's declarations do not list them).
    pub fn is_initializer(&self) -> bool {
        [STATIC_INITIALIZER, INITIALIZER].iter().any(|b| {
            self.name
                .strip_prefix(b)
                .is_some_and(|r| r.starts_with('#'))
        })
    }

    /// `name(T1, T2)`: how methods are matched between trees.
    pub fn signature(&self) -> String {
        format!("{}({})", self.name, self.params.join(", "))
    }
}

/// A type declaration (a class, an object, an alias …).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TypeDecl {
    /// class, interface, …
    pub kind: TypeKind,
    /// Simple name.
    pub name: String,
    /// Keyword modifiers, sorted.
    pub modifiers: Vec<String>,
    /// Annotations, in order.
    pub annotations: Vec<Annotation>,
    /// Type parameters as written.
    pub type_params: Option<String>,
    /// `extends` and `implements` types as written, in order.
    pub supertypes: Vec<String>,
    /// Fields (and interface constants, record components, enum constants).
    pub fields: Vec<Field>,
    /// Methods.
    pub methods: Vec<Method>,
    /// Constructors.
    pub constructors: Vec<Method>,
    /// Nested types.
    pub nested: Vec<TypeDecl>,
    /// The line.
    pub line: u32,
}

/// What a source file holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SourceFile {
    /// The package, if declared.
    pub package: Option<String>,
    /// Imports in order.
    pub imports: Vec<Import>,
    /// Top-level types.
    pub types: Vec<TypeDecl>,
    /// Top-level properties (Kotlin; Java has none).
    pub fields: Vec<Field>,
    /// Top-level functions (Kotlin; Java has none).
    pub methods: Vec<Method>,
    /// Lines holding syntax errors (empty for a clean parse).
    pub error_lines: Vec<u32>,
    /// The line of the first type nested deeper than [`MAX_NESTING`]: it and what it holds
    /// are not modelled (a hostile file must not exhaust the stack).
    pub too_deep: Option<u32>,
    /// Unicode escapes outside string, char and text-block literals (and not harmlessly
    /// inside a comment), with their original line and the character they spell: honest code
    /// almost never has one, and they can hide code from a reader of the raw text. Only a
    /// language whose compiler translates them before lexing (Java) has any.
    pub unicode_escapes: Vec<(u32, char)>,
    /// SHA-256 (16 hex digits) of every token after the package and imports, comments and
    /// layout ignored (`None` when bodies are not hashed or the front end does not record
    /// it): what a comparison of the model checks last, so that code the model does not
    /// represent never compares equal.
    #[serde(default)]
    pub tokens_hash: Option<String>,
}

/// How deep types may nest in the model; real code stays far below.
pub const MAX_NESTING: usize = 64;

/// A file's header as the compiler reads it: package, imports and the suspicious unicode
/// escapes of the whole file (see [`SourceFile::unicode_escapes`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Header {
    /// The package, if declared.
    pub package: Option<String>,
    /// Imports in order.
    pub imports: Vec<Import>,
    /// Unicode escapes outside literals, with their original lines.
    pub unicode_escapes: Vec<(u32, char)>,
}

/// Every type of a file, nested ones included, with its dotted path (`Outer.Inner`).
pub fn all_types(file: &SourceFile) -> Vec<(String, &TypeDecl)> {
    let mut out = Vec::new();
    let mut stack: Vec<(String, &TypeDecl)> = file
        .types
        .iter()
        .rev()
        .map(|t| (t.name.clone(), t))
        .collect();
    while let Some((path, t)) = stack.pop() {
        for n in t.nested.iter().rev() {
            stack.push((format!("{path}.{}", n.name), n));
        }
        out.push((path, t));
    }
    out
}
