//! Source-language front ends: each parses a file into the language-neutral [`model`] the
//! structural judges compare. [`Language`] is the seam: what a language's files are called,
//! how they are parsed, how their header (package, imports) is read, which globs select them
//! by default, and how a difference in one is named. Java and Kotlin are its implementations;
//! [docs/languages.md](../../docs/languages.md) says how to add one.

pub mod cache;
pub mod digests;
pub mod escapes;
pub mod java;
pub mod kotlin;
pub mod model;
pub mod names;
pub mod tokens;

use crate::judgment::FindingKind;
use model::{Header, SourceFile};

/// The version of every parsed model judge-ci caches between runs ([`cache`]): the model of
/// [`model`] (`SourceFile`, `Header`) and what each front end's `parse`, `parse_with` and
/// `header` put in it, Java's unicode-escape translation included. Bump it with any change
/// to those types or to what a parser produces, so that entries written by an older judge-ci
/// are never read as current ones.
pub const MODEL_VERSION: u32 = 7;

/// A source language the structural judges read (`languages:` on `import-diff` and
/// `ast-diff`; `file-comparison` compares a file of one by its model).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::Display,
    strum::EnumIter,
    strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum Language {
    /// Java (tree-sitter-java; unicode escapes translated as javac does).
    Java,
    /// Kotlin (tree-sitter-kotlin-ng).
    Kotlin,
}

impl Language {
    /// Every language, in the order a file's extension is looked up.
    pub const ALL: [Language; 2] = [Language::Java, Language::Kotlin];

    /// The name in messages (`Java`).
    pub fn name(self) -> &'static str {
        match self {
            Language::Java => "Java",
            Language::Kotlin => "Kotlin",
        }
    }

    /// The file extensions of its sources, without the dot. Kotlin scripts (`.kts`, build
    /// files mostly) are not sources the judges compare.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Language::Java => &["java"],
            Language::Kotlin => &["kt"],
        }
    }

    /// The globs a check selects when it names no `include:`.
    pub fn default_globs(self) -> &'static [&'static str] {
        match self {
            Language::Java => &["**/*.java"],
            Language::Kotlin => &["**/*.kt"],
        }
    }

    /// The language a path's extension names, if any.
    pub fn of_path(path: &str) -> Option<Language> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let (_, ext) = name.rsplit_once('.')?;
        Language::ALL
            .into_iter()
            .find(|l| l.extensions().contains(&ext))
    }

    /// Parses a file into the model; `bodies: false` skips hashing function bodies (for
    /// comparisons that do not look at them). Never panics, whatever the bytes.
    pub fn parse(self, source: &[u8], bodies: bool) -> SourceFile {
        match self {
            Language::Java => java::parse_with(source, bodies),
            Language::Kotlin => kotlin::parse_with(source, bodies),
        }
    }

    /// A file's header as its compiler reads it: package and imports (and, for Java, the
    /// unicode escapes of the whole file).
    pub fn header(self, source: &[u8]) -> Header {
        match self {
            Language::Java => java::header(source),
            Language::Kotlin => kotlin::header(source),
        }
    }

    /// The qualified names a file spells in its code outside its package and imports
    /// ([`names`]): what `import-diff`'s `forbid` reads beside the imports.
    pub fn qualified_names(self, source: &[u8]) -> Vec<names::QualifiedName> {
        match self {
            Language::Java => java::qualified_names(source),
            Language::Kotlin => kotlin::qualified_names(source),
        }
    }

    /// An import as the language writes it, from its key ([`model::Import::key`]).
    pub fn import_line(self, key: &str) -> String {
        match self {
            Language::Java => format!("import {key};"),
            Language::Kotlin => format!("import {key}"),
        }
    }

    /// The finding kind of a file of this language whose model differs (`file-comparison`).
    pub fn differs(self) -> FindingKind {
        match self {
            Language::Java => FindingKind::JavaDiffers,
            Language::Kotlin => FindingKind::KotlinDiffers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_s_extension_names_its_language() {
        assert_eq!(Language::of_path("src/A.java"), Some(Language::Java));
        assert_eq!(
            Language::of_path("src/main/kotlin/a/B.kt"),
            Some(Language::Kotlin)
        );
        assert_eq!(Language::of_path("build.gradle.kts"), None);
        assert_eq!(Language::of_path("src/kt"), None);
        assert_eq!(Language::of_path("a.kt/B.java"), Some(Language::Java));
        assert_eq!(Language::of_path("README"), None);
        for l in Language::ALL {
            for g in l.default_globs() {
                let ext = g.rsplit('.').next().unwrap();
                assert!(l.extensions().contains(&ext), "{l}: {g}");
            }
        }
    }
}
