//! The structural checks: the workspace compared with the reference (imports, declarations,
//! the POM, every file, the test count).

use marked_yaml::types::MarkedMappingNode;

use super::read::{CheckNode, get, list, path_key};
use super::{CheckInfo, CheckKind, DiffSection, Facts, Family, Keeps, WorkspaceReads};
use crate::config::token;
use crate::config::yaml::{Kind, Reader, key};
use crate::judgment::Phase;
use crate::lang::Language;

/// `import-diff`: compares import sets per file against the reference.
#[rustfmt::skip]
pub const IMPORT_DIFF: CheckInfo = CheckInfo {
    family: Family::Structural,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Sources,
        keeps: Keeps::Nothing,
        reads_reference_folder: false,
        replayed_on_resume: false,
        diff: Some(DiffSection::Imports),
        fail_reports_the_change: true,
    },
    doc: "compares import sets per file against the reference",
    keys: keys![
        key("include", Kind::StrList, "globs (the languages' sources: **/*.java)"),
        key("exclude", Kind::StrList, "globs"),
        key("languages", Kind::EnumList(token::accepted::<Language>), "source languages (java); a file is read in the language of its extension"),
        key(
            "forbid",
            Kind::StrList,
            "forbidden import patterns, also matched against every fully qualified name in the code (`javax.servlet.Filter f` without an import)",
        ),
        key("require", Kind::StrList, "required import patterns")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_import_diff),
};

/// Reads one `import-diff` check.
fn read_import_diff(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    let languages = languages(r, m, what);
    let files = file_set(r, m, &default_globs(languages.as_deref()), &[], what);
    let forbid = list(r, m, what, "forbid", &[]);
    let require = list(r, m, what, "require", &[]);
    Some(CheckKind::ImportDiff {
        files: files?,
        languages: languages?,
        forbid: forbid?,
        require: require?,
    })
}

/// `ast-diff`: compares types, members and annotations against the reference.
#[rustfmt::skip]
pub const AST_DIFF: CheckInfo = CheckInfo {
    family: Family::Structural,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Sources,
        keeps: Keeps::Nothing,
        reads_reference_folder: false,
        replayed_on_resume: false,
        diff: Some(DiffSection::Ast),
        fail_reports_the_change: true,
    },
    doc: "compares types, members and annotations against the reference",
    keys: keys![
        key("include", Kind::StrList, "globs (the languages' sources: **/*.java)"),
        key("exclude", Kind::StrList, "globs"),
        key("languages", Kind::EnumList(token::accepted::<Language>), "source languages (java); a file is read in the language of its extension"),
        key("aspects", Kind::EnumList(token::accepted::<AstAspect>), "what to compare (all but bodies)")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_ast_diff),
};

/// Reads one `ast-diff` check.
fn read_ast_diff(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    let languages = languages(r, m, what);
    let files = file_set(r, m, &default_globs(languages.as_deref()), &[], what);
    let aspects = match get(m, "aspects") {
        Some(n) => r.token_list(n, &format!("{what}.aspects"))?,
        None => vec![
            AstAspect::Types,
            AstAspect::Annotations,
            AstAspect::Signatures,
            AstAspect::Fields,
        ],
    };
    Some(CheckKind::AstDiff {
        files: files?,
        languages: languages?,
        aspects,
    })
}

/// `languages:` (default `[java]`): at least one, each once, in the order given (the first
/// reads a selected file whose extension names no language).
fn languages(r: &mut Reader, m: &MarkedMappingNode, what: &str) -> Option<Vec<Language>> {
    let Some(n) = get(m, "languages") else {
        return Some(vec![Language::Java]);
    };
    let mut v: Vec<Language> = r.token_list(n, &format!("{what}.languages"))?;
    if v.is_empty() {
        let valid = Language::ALL.map(|l| l.to_string()).join(", ");
        r.error_help(
            n,
            format!("{what}.languages: the list is empty"),
            format!("name at least one of {valid}"),
        );
        return None;
    }
    let mut seen = Vec::new();
    v.retain(|l| {
        let first = !seen.contains(l);
        seen.push(*l);
        first
    });
    Some(v)
}

/// The globs a check selects by default: each language's sources (Java's when `languages:`
/// did not read).
fn default_globs(languages: Option<&[Language]>) -> Vec<&'static str> {
    languages
        .unwrap_or(&[Language::Java])
        .iter()
        .flat_map(|l| l.default_globs().iter().copied())
        .collect()
}

/// `pom-diff`: compares effective POM coordinates against the reference.
#[rustfmt::skip]
pub const POM_DIFF: CheckInfo = CheckInfo {
    family: Family::Structural,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Sources,
        keeps: Keeps::Nothing,
        reads_reference_folder: false,
        replayed_on_resume: false,
        diff: Some(DiffSection::Pom),
        fail_reports_the_change: false,
    },
    doc: "compares effective POM coordinates against the reference",
    keys: keys![
        key("aspects", Kind::EnumList(token::accepted::<PomAspect>), "what to compare (all)"),
        key("ignore-versions", Kind::Bool, "ignore versions (false)")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_pom_diff),
};

/// Reads one `pom-diff` check.
fn read_pom_diff(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    let aspects = r.key_or(
        m,
        what,
        "aspects",
        token::Tokens::values(),
        Reader::token_list,
    )?;
    let ignore_versions = r.key_or(m, what, "ignore-versions", false, Reader::boolean)?;
    Some(CheckKind::PomDiff {
        aspects,
        ignore_versions,
    })
}

/// `file-comparison`: compares every reference file with the workspace.
#[rustfmt::skip]
pub const FILE_COMPARISON: CheckInfo = CheckInfo {
    family: Family::Structural,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Sources,
        keeps: Keeps::Nothing,
        reads_reference_folder: false,
        replayed_on_resume: false,
        diff: Some(DiffSection::Files),
        fail_reports_the_change: true,
    },
    doc: "compares every reference file with the workspace: POMs by their model, other XML as a tree, Java and Kotlin by their model, any other text byte for byte (whitespace included, unlike the library's TextFileJudge: indentation, spaces in a value and line endings carry meaning in a test's fixtures); docs/languages.md says what each kind tolerates",
    keys: keys![
        key("include", Kind::StrList, "globs"),
        key("exclude", Kind::StrList, "globs (target/**, .git/**)")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_file_comparison),
};

/// Reads one `file-comparison` check.
fn read_file_comparison(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    let files = file_set(r, m, &["**"], &["target/**", ".git/**"], what)?;
    Some(CheckKind::FileComparison { files })
}

/// `test-invariance`: fails on failing tests or fewer tests than the reference.
#[rustfmt::skip]
pub const TEST_INVARIANCE: CheckInfo = CheckInfo {
    family: Family::Structural,
    facts: Facts {
        // judge-ci's oracle runs the pull request's classes under the trusted tests.
        phase: Phase::Build,
        builds: None,
        reads: WorkspaceReads::Outputs,
        keeps: Keeps::WhatItReads,
        reads_reference_folder: true,
        replayed_on_resume: true,
        diff: Some(DiffSection::Files),
        fail_reports_the_change: true,
    },
    doc: "judge-ci compiles and runs the reference's tests on the built classes (and on the reference); fails on any the reference passes that the workspace does not; Surefire's reports only cross-check",
    keys: keys![key("reports", Kind::Str, "Surefire reports folder (a cross-check only)")],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_test_invariance),
};

/// Reads one `test-invariance` check.
fn read_test_invariance(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    Some(CheckKind::TestInvariance {
        reports: path_key(r, m, "reports", Some("target/surefire-reports"), what)?,
    })
}

/// Include and exclude globs over paths relative to the tree root (`**/*.java`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSet {
    /// Globs a file must match (any).
    pub include: Vec<String>,
    /// Globs that exclude a file (any).
    pub exclude: Vec<String>,
}

/// What `ast-diff` compares (`aspects`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::Display, strum::EnumIter, strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum AstAspect {
    /// Type declarations: kind, modifiers, type parameters, supertypes.
    Types,
    /// Annotations on types, members and fields.
    Annotations,
    /// Method and constructor signatures, return types, throws, modifiers.
    Signatures,
    /// Fields: presence, type, modifiers.
    Fields,
    /// Normalised method, constructor and initializer-block bodies and field initialisers
    /// (opt-in).
    Bodies,
}

/// What `pom-diff` compares (`aspects`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, strum::Display, strum::EnumIter, strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
pub enum PomAspect {
    /// The parent coordinates.
    Parent,
    /// Dependencies: version and scope per groupId:artifactId.
    Dependencies,
    /// Build plugins, their versions and configuration (pluginManagement applied).
    Plugins,
    /// `<properties>`.
    Properties,
    /// The Java release (maven.compiler.release/source/target, compiler plugin release).
    JavaVersion,
}

/// `include`/`exclude` globs, each checked to compile.
fn file_set(
    r: &mut Reader,
    m: &MarkedMappingNode,
    include: &[&str],
    exclude: &[&str],
    what: &str,
) -> Option<FileSet> {
    let mut read = |k: &str, default: &[&str]| -> Option<Vec<String>> {
        let Some(n) = get(m, k) else {
            return Some(default.iter().map(|s| s.to_string()).collect());
        };
        let globs = r.string_list(n, &format!("{what}.{k}"))?;
        for g in &globs {
            if let Err(e) = globset::Glob::new(g) {
                r.error_help(
                    n,
                    format!("{what}.{k}: '{g}' is not a valid glob: {e}"),
                    "e.g. **/*.java or src/main/**",
                );
                return None;
            }
        }
        Some(globs)
    };
    let include = read("include", include);
    let exclude = read("exclude", exclude);
    Some(FileSet {
        include: include?,
        exclude: exclude?,
    })
}

crate::config::token::strum_tokens!(AstAspect, PomAspect, Language);
