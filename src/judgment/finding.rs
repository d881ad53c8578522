//! Findings: what a judge found at a place in the workspace (a difference from the reference,
//! a compiler error, text addressed to the grader), carried by a judgment as typed data so
//! every surface (SARIF, check-run annotations, the markdown report, the gap analysis) reads
//! the same fields instead of digging through metadata by string key.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

use super::error::BuildError;

/// Declares [`FindingKind`] from one table: variant, wire token, family. Parsing, the wire
/// form, `Display` and [`FindingKind::ALL`] all come from it.
macro_rules! finding_kinds {
    ($($(#[$doc:meta])* $v:ident => $token:literal, $family:ident;)*) => {
        /// What a finding reports. The wire token is kebab-case (`method-missing`); kinds
        /// order by token, so findings sort as their wire form reads.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum FindingKind {
            $($(#[$doc])* $v,)*
        }

        impl FindingKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [FindingKind] = &[$(FindingKind::$v,)*];

            /// The wire token.
            pub fn token(self) -> &'static str {
                match self {
                    $(FindingKind::$v => $token,)*
                }
            }

            /// Which family the kind belongs to.
            pub fn family(self) -> FindingFamily {
                match self {
                    $(FindingKind::$v => FindingFamily::$family,)*
                }
            }
        }
    };
}

finding_kinds! {
    /// An annotation the reference has and the workspace lacks.
    AnnotationMissing => "annotation-missing", Difference;
    /// An annotation only the workspace has.
    AnnotationUnexpected => "annotation-unexpected", Difference;
    /// A method the reference declares and the workspace lacks.
    MethodMissing => "method-missing", Difference;
    /// A method only the workspace declares.
    MethodUnexpected => "method-unexpected", Difference;
    /// A constructor the reference declares and the workspace lacks.
    ConstructorMissing => "constructor-missing", Difference;
    /// A constructor only the workspace declares.
    ConstructorUnexpected => "constructor-unexpected", Difference;
    /// A method's return type differs.
    ReturnTypeChanged => "return-type-changed", Difference;
    /// A method's `throws` clause differs.
    ThrowsChanged => "throws-changed", Difference;
    /// A member's modifiers differ.
    ModifiersChanged => "modifiers-changed", Difference;
    /// A method's body differs.
    BodyChanged => "body-changed", Difference;
    /// A field the reference declares and the workspace lacks.
    FieldMissing => "field-missing", Difference;
    /// A field's type or modifiers differ.
    FieldChanged => "field-changed", Difference;
    /// A field only the workspace declares.
    FieldUnexpected => "field-unexpected", Difference;
    /// A type is a class in one tree and an interface (enum, record) in the other.
    TypeKindChanged => "type-kind-changed", Difference;
    /// A type extends or implements something else.
    SupertypeChanged => "supertype-changed", Difference;
    /// A type's declaration (modifiers, type parameters) differs.
    TypeDeclarationChanged => "type-declaration-changed", Difference;
    /// A Unicode escape outside a literal, or one inside a literal that changes how it reads
    /// (a backslash, quote, line end, ASCII letter or digit), which can hide code from a reader.
    UnicodeEscape => "unicode-escape", Difference;
    /// A type the reference declares and the workspace lacks.
    TypeMissing => "type-missing", Difference;
    /// A type only the workspace declares.
    TypeUnexpected => "type-unexpected", Difference;
    /// Nesting deeper than the parser follows.
    NestingTooDeep => "nesting-too-deep", Difference;
    /// A file the parser cannot read in its language.
    SyntaxError => "syntax-error", Difference;
    /// The POM's parent differs.
    ParentChanged => "parent-changed", Difference;
    /// A dependency the reference's POM has and the workspace's lacks.
    DependencyMissing => "dependency-missing", Difference;
    /// A dependency's version differs.
    DependencyVersionChanged => "dependency-version-changed", Difference;
    /// A dependency's scope differs.
    DependencyScopeChanged => "dependency-scope-changed", Difference;
    /// A dependency only the workspace's POM has.
    DependencyUnexpected => "dependency-unexpected", Difference;
    /// A plugin the reference's POM has and the workspace's lacks.
    PluginMissing => "plugin-missing", Difference;
    /// A plugin's version differs.
    PluginVersionChanged => "plugin-version-changed", Difference;
    /// A plugin's configuration differs.
    PluginConfigurationChanged => "plugin-configuration-changed", Difference;
    /// A plugin only the workspace's POM has.
    PluginUnexpected => "plugin-unexpected", Difference;
    /// A `<build>` setting (a source or test folder, a resource folder, a build extension)
    /// differs.
    BuildSettingChanged => "build-setting-changed", Difference;
    /// A POM profile that Maven may activate on the build machine (a JDK, OS or environment
    /// condition, or `activeByDefault`) and that differs from the reference's, or that only
    /// one side has.
    ProfileChanged => "profile-changed", Difference;
    /// Code the pull request makes run at build or test time that the trusted side does not
    /// (an annotation processor, a service registration, a build extension, a plugin, a
    /// JUnit extension, a tampering API such as `Runtime.halt`).
    BuildCodeAdded => "build-code-added", Difference;
    /// A property the reference's POM has and the workspace's lacks.
    PropertyMissing => "property-missing", Difference;
    /// A property's value differs.
    PropertyChanged => "property-changed", Difference;
    /// A property only the workspace's POM has.
    PropertyUnexpected => "property-unexpected", Difference;
    /// The Java release the POM compiles for differs.
    JavaVersionChanged => "java-version-changed", Difference;
    /// A file that could not be read.
    FileUnreadable => "file-unreadable", Difference;
    /// A link, FIFO, socket or device where a judge reads files: never read, never skipped.
    FileNotRegular => "file-not-regular", Difference;
    /// A file name the pull request adds that a program reads as something else: a component
    /// starting with `-` (an option) or holding a control character (a split or forged line).
    MisreadFileName => "misread-file-name", Difference;
    /// A submitted file that subject code (a build, a command) changed, removed or replaced
    /// while a check ran, or an entry it added outside the build output folders; put back as
    /// submitted before anything else read the tree.
    SubmittedFileChanged => "submitted-file-changed", Difference;
    /// A POM that could not be read as one.
    PomUnreadable => "pom-unreadable", Difference;
    /// A file the reference has and the workspace lacks.
    FileMissing => "file-missing", Difference;
    /// A file only the workspace has.
    FileUnexpected => "file-unexpected", Difference;
    /// A binary file whose bytes differ.
    BinaryDiffers => "binary-differs", Difference;
    /// A Java file whose text differs.
    JavaDiffers => "java-differs", Difference;
    /// A Kotlin file whose text differs.
    KotlinDiffers => "kotlin-differs", Difference;
    /// An XML file whose content differs.
    XmlDiffers => "xml-differs", Difference;
    /// A text file whose text differs.
    TextDiffers => "text-differs", Difference;
    /// A test that passes on the reference and fails on the workspace.
    TestFailing => "test-failing", Difference;
    /// A test the reference runs and the workspace does not.
    TestMissing => "test-missing", Difference;
    /// A test the workspace skips.
    TestSkipped => "test-skipped", Difference;
    /// An import the reference has and the workspace lacks.
    ImportMissing => "import-missing", Difference;
    /// An import only the workspace has.
    ImportUnexpected => "import-unexpected", Difference;
    /// An import the config forbids, still present.
    ImportForbidden => "import-forbidden", Difference;
    /// A name the config forbids as an import, spelled in full in the code instead
    /// (`javax.servlet.Filter f` without an import).
    ReferenceForbidden => "reference-forbidden", Difference;
    /// An import the config requires, absent from every file.
    ImportRequired => "import-required", Difference;
    /// A compiler error in the build's log.
    CompilerError => "compiler-error", CompilerError;
    /// Text in the change addressed to the grader.
    PromptInjection => "prompt-injection", PromptInjection;
}

/// The families of finding kinds, for the surfaces that show them differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FindingFamily {
    /// A structural difference between the workspace and the reference.
    Difference,
    /// A compiler error the build reported.
    CompilerError,
    /// Text in the pull request addressed to the grader.
    PromptInjection,
}

impl FindingKind {
    /// Whether the kind says something the reference has is absent, or something the config
    /// forbids is present: the differences that block rather than warn.
    pub fn is_blocking(self) -> bool {
        match self.family() {
            FindingFamily::CompilerError | FindingFamily::PromptInjection => true,
            FindingFamily::Difference => {
                let t = self.token();
                t.contains("forbidden") || t.contains("missing")
            }
        }
    }
}

impl PartialOrd for FindingKind {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FindingKind {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.token().cmp(other.token())
    }
}

impl fmt::Display for FindingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.token())
    }
}

impl FromStr for FindingKind {
    type Err = BuildError;

    /// Parses a wire token exactly; an unknown token is refused with the valid ones.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FindingKind::ALL
            .iter()
            .copied()
            .find(|k| k.token() == s)
            .ok_or_else(|| {
                BuildError::argument(format!(
                    "unknown finding kind '{s}' (valid: {})",
                    FindingKind::ALL
                        .iter()
                        .map(|k| k.token())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
    }
}

impl Serialize for FindingKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.token())
    }
}

impl<'de> Deserialize<'de> for FindingKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// One finding at a place: a path relative to the workspace (or the reference, for what the
/// workspace lacks), a line when there is one, and what each side has or what was said.
/// Findings order by place, then kind, then content. The judge that found one is the seat of
/// the judgment carrying it (`report::findings` pairs them).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Finding {
    /// Path relative to the tree root (empty for a finding about the whole change).
    pub path: String,
    /// Line in the workspace file, from 1, when the finding has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Column, from 1, when known (compiler errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// What kind of finding.
    pub kind: FindingKind,
    /// What the reference has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What the workspace has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// What a tool said about the place (a compiler's message, what a rule saw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The id of the rule that matched (prompt-injection rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

impl Finding {
    /// A finding of `kind` at `path`, with nothing else yet.
    pub fn new(path: impl Into<String>, kind: FindingKind) -> Self {
        Finding {
            kind,
            path: path.into(),
            line: None,
            column: None,
            expected: None,
            actual: None,
            message: None,
            rule: None,
        }
    }

    /// With a workspace line.
    pub fn at(mut self, line: u32) -> Self {
        self.line = Some(line);
        self
    }

    /// [`Finding::at`] when `line` is known: 0 (what a parser records for an element
    /// that is absent) leaves the finding without a line.
    pub fn at_known(self, line: u32) -> Self {
        if line > 0 { self.at(line) } else { self }
    }

    /// With a column.
    pub fn column(mut self, column: u32) -> Self {
        self.column = Some(column);
        self
    }

    /// With what the reference has.
    pub fn expected(mut self, e: impl Into<String>) -> Self {
        self.expected = Some(e.into());
        self
    }

    /// With what the workspace has.
    pub fn actual(mut self, a: impl Into<String>) -> Self {
        self.actual = Some(a.into());
        self
    }

    /// With what a tool said.
    pub fn message(mut self, m: impl Into<String>) -> Self {
        self.message = Some(m.into());
        self
    }

    /// With the id of the rule that matched.
    pub fn rule(mut self, r: impl Into<String>) -> Self {
        self.rule = Some(r.into());
        self
    }

    /// `path:line[:col]: message` (or the kind when there is no message).
    pub fn one_line(&self) -> String {
        let mut s = self.path.clone();
        if let Some(l) = self.line {
            s.push_str(&format!(":{l}"));
            if let Some(c) = self.column {
                s.push_str(&format!(":{c}"));
            }
        }
        let what = self.message.as_deref().unwrap_or(self.kind.token());
        format!("{s}: {what}")
    }

    /// Reads a finding as a `judge-ci.report.v1` judgment kept it in `metadata.findings`
    /// (every shape judge-ci wrote there: structural differences, compiler errors, prompt
    /// injections). `None` for anything else, such as an external judge's own entries.
    pub fn from_v1(v: &serde_json::Value) -> Option<Finding> {
        let s = |k: &str| v.get(k).and_then(serde_json::Value::as_str);
        let n = |k: &str| {
            v.get(k)
                .and_then(serde_json::Value::as_u64)
                .and_then(|x| u32::try_from(x).ok())
        };
        let kind: FindingKind = s("kind")?.parse().ok()?;
        Some(Finding {
            kind,
            path: s("path")?.to_string(),
            line: n("line"),
            column: n("column"),
            expected: s("expected").map(str::to_string),
            actual: s("actual").map(str::to_string),
            message: s("message").map(str::to_string),
            rule: s("rule").map(str::to_string),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_unknown_kinds_are_refused_with_the_valid_ones() {
        for k in FindingKind::ALL {
            assert_eq!(k.token().parse::<FindingKind>().unwrap(), *k);
            assert_eq!(
                serde_json::to_string(k).unwrap(),
                format!("\"{}\"", k.token())
            );
        }
        let e = "method-gone".parse::<FindingKind>().unwrap_err();
        assert!(e.message().contains("method-missing"), "{}", e.message());
        let wire = serde_json::from_str::<FindingKind>("\"Method-Missing\"").unwrap_err();
        assert!(wire.to_string().contains("Method-Missing"), "{wire}");
    }

    #[test]
    fn wire_form_omits_absent_fields_and_v1_shapes_are_read() {
        let f = Finding::new("src/A.java", FindingKind::MethodMissing)
            .at(3)
            .expected("A.run()");
        assert_eq!(
            serde_json::to_string(&f).unwrap(),
            r#"{"path":"src/A.java","line":3,"kind":"method-missing","expected":"A.run()"}"#
        );
        let v1 = serde_json::json!({"path": "A.java", "line": 4, "column": 2,
            "message": "cannot find symbol", "kind": "compiler-error"});
        let c = Finding::from_v1(&v1).unwrap();
        assert_eq!(c.kind, FindingKind::CompilerError);
        assert_eq!((c.line, c.column), (Some(4), Some(2)));
        assert_eq!(c.one_line(), "A.java:4:2: cannot find symbol");
        assert!(Finding::from_v1(&serde_json::json!({"kind": "mine", "path": "x"})).is_none());
        assert!(FindingKind::ImportForbidden.is_blocking());
        assert!(!FindingKind::BodyChanged.is_blocking());
    }
}
