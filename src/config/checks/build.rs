//! `maven-build` and `gradle-build`: the project's own build, through its wrapper if present.

use super::read::{CheckNode, list};
use super::{BuildTool, CheckInfo, CheckKind, Facts, Family, Keeps, WorkspaceReads};
use crate::config::yaml::{Kind, Reader, key};
use crate::judgment::Phase;

/// `maven-build`: runs ./mvnw (if executable) or mvn; PASS on exit 0.
#[rustfmt::skip]
pub const MAVEN_BUILD: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    facts: Facts {
        phase: Phase::Build,
        builds: Some(BuildTool::Maven),
        reads: WorkspaceReads::Outputs,
        keeps: Keeps::ItsBuildOutputs,
        reads_reference_folder: true,
        replayed_on_resume: true,
        diff: None,
        fail_reports_the_change: true,
    },
    doc: "runs ./mvnw (if executable) or mvn; PASS on exit 0",
    keys: keys![
        key("goals", Kind::StrList, "goals ([clean, test])"),
        key("args", Kind::StrList, "extra arguments")
    ],
    default_timeout: super::BUILD_TIMEOUT,
    read: Some(read_maven_build),
};

/// Reads one `maven-build` check.
fn read_maven_build(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    Some(CheckKind::MavenBuild {
        goals: list(r, m, what, "goals", &["clean", "test"])?,
        args: list(r, m, what, "args", &[])?,
    })
}

/// `gradle-build`: runs ./gradlew (if executable) or gradle; PASS on exit 0.
#[rustfmt::skip]
pub const GRADLE_BUILD: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    facts: Facts {
        phase: Phase::Build,
        builds: Some(BuildTool::Gradle),
        reads: WorkspaceReads::Outputs,
        keeps: Keeps::ItsBuildOutputs,
        reads_reference_folder: false,
        replayed_on_resume: true,
        diff: None,
        fail_reports_the_change: true,
    },
    doc: "runs ./gradlew (if executable) or gradle; PASS on exit 0",
    keys: keys![
        key("tasks", Kind::StrList, "tasks ([build])"),
        key("args", Kind::StrList, "extra arguments")
    ],
    default_timeout: super::BUILD_TIMEOUT,
    read: Some(read_gradle_build),
};

/// Reads one `gradle-build` check.
fn read_gradle_build(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    Some(CheckKind::GradleBuild {
        tasks: list(r, m, what, "tasks", &["build"])?,
        args: list(r, m, what, "args", &[])?,
    })
}
