//! `class-version`: every class file has the target major version.

use super::read::{CheckNode, get, path_key};
use super::{CheckInfo, CheckKind, Facts, Family, Keeps, WorkspaceReads};
use crate::config::yaml::{Kind, Reader, key};
use crate::judgment::Phase;

/// `class-version`: PASS if every class file has the target major version.
#[rustfmt::skip]
pub const CLASS_VERSION: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    facts: Facts {
        phase: Phase::Inspect,
        builds: None,
        reads: WorkspaceReads::Outputs,
        keeps: Keeps::WhatItReads,
        reads_reference_folder: false,
        replayed_on_resume: true,
        diff: None,
        fail_reports_the_change: true,
    },
    doc: "PASS if every class file has the target major version",
    keys: keys![
        key("target", Kind::Integer, "class-file major version (e.g. 65)"),
        key("java", Kind::Integer, "Java release (e.g. 21 = major 65)"),
        key("dir", Kind::Str, "classes folder (target/classes)")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_class_version),
};

/// Reads one `class-version` check.
fn read_class_version(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, what) = (c.m, c.what);
    let mut target = None;
    if let Some(n) = get(m, "target") {
        let v = r.integer(n, &format!("{what}.target"))?;
        match u16::try_from(v) {
            Ok(v) if v >= 45 => target = Some(v),
            _ => {
                r.error_help(
                    n,
                    format!("{what}.target must be a class-file major version"),
                    "e.g. 61 for Java 17, 65 for Java 21",
                );
                return None;
            }
        }
    }
    if let Some(n) = get(m, "java") {
        let v = r.integer(n, &format!("{what}.java"))?;
        if target.is_some() {
            r.error(
                n,
                format!("{what}: give either `target` or `java`, not both"),
            );
            return None;
        }
        match u16::try_from(v) {
            Ok(v) if (1..=200).contains(&v) => target = Some(if v <= 1 { 45 } else { v + 44 }),
            _ => {
                r.error_help(
                    n,
                    format!("{what}.java must be a Java release"),
                    "e.g. 17 or 21",
                );
                return None;
            }
        }
    }
    Some(CheckKind::ClassVersion {
        target,
        dir: path_key(r, m, "dir", Some("target/classes"), what)?,
    })
}
