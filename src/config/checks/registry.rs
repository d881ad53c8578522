//! The registry: one line per check type, in documentation order. A line names the
//! [`CheckType`] variant (its kebab-case form is the `type:` token) and the [`CheckInfo`] in the
//! type's own file; `registry!` makes the enum, its strum derives and [`CheckType::info`]
//! from these lines, so adding a type is its file plus one line here.

use super::{
    CheckInfo, build, class_version, command, coverage, file, protected, semantic, structural,
};

/// Makes [`CheckType`] and [`CheckType::info`] from `Variant => ENTRY` lines.
macro_rules! registry {
    ($($variant:ident => $entry:path),+ $(,)?) => {
        /// Every check type judge-ci knows: the `type:` token of a check, one variant per
        /// type. The strum derives give the token (kebab-case, `import-diff`) for parsing,
        /// Display and the schema, so no other place spells the tokens.
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
            strum::Display, strum::AsRefStr, strum::EnumString, strum::EnumIter,
            strum::IntoStaticStr,
        )]
        #[strum(serialize_all = "kebab-case")]
        pub enum CheckType {
            $(
                #[doc = concat!("Its entry: `", stringify!($entry), "`.")]
                $variant,
            )+
        }

        impl CheckType {
            /// The type's entry: family, keys, documentation, default limit, reader.
            pub fn info(self) -> &'static CheckInfo {
                match self {
                    $(CheckType::$variant => &$entry,)+
                }
            }
        }
    };
}

registry! {
    FileExists => file::FILE_EXISTS,
    FileContent => file::FILE_CONTENT,
    Command => command::COMMAND,
    MavenBuild => build::MAVEN_BUILD,
    GradleBuild => build::GRADLE_BUILD,
    ClassVersion => class_version::CLASS_VERSION,
    CoveragePreservation => coverage::COVERAGE_PRESERVATION,
    CoverageImprovement => coverage::COVERAGE_IMPROVEMENT,
    External => command::EXTERNAL,
    ImportDiff => structural::IMPORT_DIFF,
    AstDiff => structural::AST_DIFF,
    PomDiff => structural::POM_DIFF,
    FileComparison => structural::FILE_COMPARISON,
    TestInvariance => structural::TEST_INVARIANCE,
    ProtectedPaths => protected::PROTECTED_PATHS,
    Llm => semantic::LLM,
    TestQualityLlm => semantic::TEST_QUALITY_LLM,
    SemanticDiff => semantic::SEMANTIC_DIFF,
    Correctness => semantic::CORRECTNESS,
    Ears => semantic::EARS,
    Rfc2119 => semantic::RFC2119,
}
