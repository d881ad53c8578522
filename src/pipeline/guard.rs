//! Stage 4, the guard: protected paths, pinned build files and `restore:` before any judge
//! runs (the pull request is the adversary; see `spec/trust.md`).

use std::path::Path;

use super::error::{InputError, InstrumentError, RunError};
use super::protect;
use crate::config::checks::CheckKind;
use crate::config::{Benchmark, CheckSpec, ConfigSource, JurySpec};
use crate::report;

/// Where the guard works: the workspace, the reference checkout, and the output folder (left
/// out of what the pull request is said to change).
#[derive(Clone, Copy, Debug)]
pub struct Place<'a> {
    /// The workspace.
    pub workspace: &'a Path,
    /// The reference checkout, if any.
    pub reference: Option<&'a Path>,
    /// The output folder.
    pub out: &'a Path,
}

/// Protected paths and `restore:` before any judge runs: the changes the pull request makes to
/// protected paths (against the trusted tree the config came from; none without one), a FAIL
/// judgment `protected-paths` added to the first tier under `protected-action: fail`, then
/// the restored files.
/// `written` is the head commit when judge-ci wrote the workspace out of it (`--head REV`);
/// `sides` is what git knows of the run's folders (the reference's files, for the comparisons).
pub fn guard(
    bench: &mut Benchmark,
    source: &ConfigSource,
    written: Option<&crate::config::source::GitTree>,
    place: Place<'_>,
    sides: &crate::judges::structural::select::Sides,
    fence: &crate::fence::Fence,
) -> Result<Option<report::TrustInfo>, RunError> {
    let Place {
        workspace,
        reference,
        out,
    } = place;
    // What the pull request changes that no check reads, as it was submitted (before pinned
    // and restored files change the workspace).
    let mut unjudged = super::unjudged::unjudged(
        bench,
        source.tree(),
        written,
        workspace,
        reference,
        sides,
        out,
    );
    // The repository files the checks run as programs or read as settings are the judge's
    // (attack findings GA1, NC19): protected and pinned below, so never "unjudged".
    let programs = match source.tree() {
        Some(t) => {
            let prefix = protect::layout(t, workspace).prefix;
            let blobs = super::programs::blobs_of(t).map_err(|e| {
                InstrumentError::Protected(protect::ProtectError::ReadTree {
                    label: t.label().to_string(),
                    source: e,
                })
            })?;
            let super::programs::Found {
                programs: found,
                unresolved,
            } = super::programs::programs(bench, t, &blobs, &prefix);
            if let Some((check, what)) = unresolved.into_iter().next() {
                return Err(InputError::UnresolvedProgram { check, what }.into());
            }
            let up = "../".repeat(prefix.split('/').filter(|c| !c.is_empty()).count());
            let shown: std::collections::HashSet<String> = found
                .iter()
                .map(|p| {
                    if prefix.is_empty() {
                        p.path.clone()
                    } else {
                        p.path
                            .strip_prefix(&format!("{prefix}/"))
                            .map_or_else(|| format!("{up}{}", p.path), str::to_string)
                    }
                })
                .collect();
            unjudged.retain(|u| !shown.contains(u));
            found
        }
        None => Vec::new(),
    };
    if bench.unjudged_action == crate::config::ProtectedAction::Fail && !unjudged.is_empty() {
        add_first(
            bench,
            UNJUDGED_CHANGES,
            "every file the pull request changes is read by some check",
            CheckKind::ProtectedPaths {
                changes: Vec::new(),
                findings: Vec::new(),
                unjudged: unjudged.clone(),
            },
            "unjudged changes",
        )?;
    }
    let changes = match source.tree() {
        Some(t) => {
            let files: Vec<report::ConfigFileInfo> = config_files(t);
            // Protected globs are relative to the repository root.
            let layout = protect::layout(t, workspace);
            let presented = protect::Presented {
                root: &layout.root,
                prefix: &layout.prefix,
                // The trusted tree's own working tree: what is checked out there counts as
                // git records it (a `--head` checkout is that commit's blobs already).
                head: (layout.root == t.root()).then(|| t.checked_out()).flatten(),
            };
            protect::protected_changes(t, &presented, bench.protected.as_deref(), &files, &programs)
                .map_err(InstrumentError::Protected)?
        }
        None => Vec::new(),
    };
    if bench.protected_action == crate::config::ProtectedAction::Fail && !changes.is_empty() {
        add_first(
            bench,
            "protected-paths",
            "the pull request leaves protected paths unchanged",
            CheckKind::ProtectedPaths {
                changes: changes
                    .iter()
                    .map(|c| {
                        let what = c
                            .detail
                            .as_ref()
                            .map_or_else(|| c.change.to_string(), |d| format!("{}: {d}", c.change));
                        format!("{} ({what}; protected by {})", c.path, c.pattern)
                    })
                    .collect(),
                findings: Vec::new(),
                unjudged: Vec::new(),
            },
            "protected paths",
        )?;
    }
    // The judges run with the base's protected files, wrappers and settings, not the pull
    // request's: whatever `protected-action` says, a changed one is never the one used.
    let base_build_files = match source.tree() {
        Some(t) => {
            let layout = protect::layout(t, workspace);
            let protected = protect::pin_protected(
                t,
                &layout.root,
                bench.protected.as_deref(),
                &layout.prefix,
                &programs,
            )
            .map_err(InstrumentError::Protected)?;
            let build = protect::pin_build_files(t, workspace, &layout.prefix)
                .map_err(InstrumentError::BuildFiles)?;
            // No subject process changes one while a check runs or reads it (G10-22/23).
            fence.pin_protected(&protected.files);
            fence.pin_protected(&build.files);
            let mut pinned = protected.changed;
            for p in build.changed {
                let shown = if layout.prefix.is_empty() {
                    p
                } else {
                    format!("{}/{p}", layout.prefix)
                };
                if !pinned.contains(&shown) {
                    pinned.push(shown);
                }
            }
            pinned
        }
        None => Vec::new(),
    };
    let restored = if bench.restore.is_empty() {
        protect::Restored::default()
    } else {
        let Some(r) = reference else {
            return Err(InputError::RestoreWithoutReference.into());
        };
        protect::restore(r, workspace, &bench.restore).map_err(InstrumentError::Restore)?
    };
    // Code the pull request makes run at build or test time, found before any runs (after
    // `restore:`, so what it removed is not counted): a finding of its own, a FAIL in the
    // first tier under `protected-action: fail`.
    let build_code = if runs_subject_code(bench) {
        crate::judges::build_code::scan(workspace, reference)
    } else {
        Vec::new()
    };
    if bench.protected_action == crate::config::ProtectedAction::Fail && !build_code.is_empty() {
        add_first(
            bench,
            BUILD_CODE_ADDED,
            "the pull request adds no code that runs at build or test time beyond the reference's",
            CheckKind::ProtectedPaths {
                changes: Vec::new(),
                findings: build_code.clone(),
                unjudged: Vec::new(),
            },
            "build code",
        )?;
    }
    // Outside a pull-request context no base pins the build's own files, and the reference
    // is the trusted side: a wrapper or setting the workspace has otherwise is a FAIL whatever
    // the settings say (B11-3, B11-4), as a changed one is a protected change in a pull request.
    if source.tree().is_none()
        && runs_subject_code(bench)
        && let Some(r) = reference
    {
        let tree = crate::judges::structural::tree::Tree::of(r, sides);
        let unlike = protect::build_files_unlike_reference(workspace, &tree)
            .map_err(InstrumentError::Protected)?;
        if !unlike.is_empty() {
            add_first(
                bench,
                BUILD_FILES_UNLIKE_REFERENCE,
                "the build's wrappers and settings are the reference's (outside a pull request the reference is the trusted side)",
                CheckKind::ProtectedPaths {
                    changes: unlike,
                    findings: Vec::new(),
                    unjudged: Vec::new(),
                },
                "build files unlike the reference's",
            )?;
        }
    }
    // Names a program the checks run reads as something else (N7-7): a FAIL whatever the
    // settings say, since an honest change never needs one.
    let names = if runs_subject_code(bench) {
        crate::judges::misread_names::scan(workspace, reference)
    } else {
        Vec::new()
    };
    if !names.is_empty() {
        add_first(
            bench,
            MISREAD_FILE_NAMES,
            "the pull request adds no file name a program reads as an option or as more than one line",
            CheckKind::ProtectedPaths {
                changes: Vec::new(),
                findings: names,
                unjudged: Vec::new(),
            },
            "misread file names",
        )?;
    }
    let any = source.tree().is_some()
        || !bench.restore.is_empty()
        || !build_code.is_empty()
        || !unjudged.is_empty();
    Ok(any.then(|| report::TrustInfo {
        unjudged,
        unjudged_action: bench.unjudged_action.to_string(),
        protected_changes: changes,
        protected_action: bench.protected_action.to_string(),
        restored: restored.restored,
        restore_removed: restored.removed,
        restore_revealed: restored.revealed,
        build_code_added: build_code,
        base_build_files,
    }))
}

/// The name of the judgment the run adds for changed files no check reads.
pub const UNJUDGED_CHANGES: &str = "unjudged-changes";

/// The name of the judgment the run adds for file names a program reads as something else.
pub const MISREAD_FILE_NAMES: &str = "misread-file-names";

/// The name of the judgment the run adds for code the pull request makes run at build time.
pub const BUILD_CODE_ADDED: &str = "build-code-added";

/// The name of the judgment the run adds, outside a pull-request context, for build
/// wrappers and settings the workspace has otherwise than the reference.
pub const BUILD_FILES_UNLIKE_REFERENCE: &str = "build-files-unlike-reference";

/// Whether any check runs subject code (a build, a command, an external judge) or reads what
/// it produced: then code the pull request makes run at build time matters.
fn runs_subject_code(bench: &Benchmark) -> bool {
    bench
        .jury
        .all_checks()
        .iter()
        .any(|c| crate::judges::split::replayed(&c.kind))
}

/// Adds judge-ci's own trust check `name` (a [`CheckKind::ProtectedPaths`] judgment) to the
/// first tier, refusing a jury without one (`what` names what it is about).
fn add_first(
    bench: &mut Benchmark,
    name: &'static str,
    description: &str,
    kind: CheckKind,
    what: &'static str,
) -> Result<(), RunError> {
    let spec = CheckSpec {
        name: name.into(),
        weight: 1.0,
        timeout: std::time::Duration::from_secs(10),
        description: Some(description.into()),
        not_applicable_when: None,
        kind,
        loc: None,
    };
    match first_checks(&mut bench.jury) {
        Some(checks) => {
            checks.push(spec);
            Ok(())
        }
        None => Err(InstrumentError::NoFirstTier { what, check: name }.into()),
    }
}

/// The checks of the first tier (or the flat jury, or the first member's); `None` only for
/// an empty cascade or meta-jury, which the loader refuses.
fn first_checks(spec: &mut JurySpec) -> Option<&mut Vec<CheckSpec>> {
    match spec {
        JurySpec::Checks { checks, .. } => Some(checks),
        JurySpec::Tiers(tiers) => tiers.first_mut().map(|t| &mut t.checks),
        JurySpec::Members { members, .. } => {
            members.first_mut().and_then(|m| first_checks(&mut m.jury))
        }
    }
}

/// The config-side files read from a tree, for the report.
pub(super) fn config_files(t: &crate::config::source::GitTree) -> Vec<report::ConfigFileInfo> {
    t.files()
        .into_iter()
        .map(|f| report::ConfigFileInfo {
            changed: f.changed(),
            path: f.path,
            sha256: f.sha256,
            head_sha256: f.head_sha256,
        })
        .collect()
}
