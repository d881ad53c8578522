//! The reading half of `reveal:` (the policy itself is [`crate::report::reveal`], which does
//! no I/O): the words of the reference's files that the workspace's files do not hold, cut
//! from the report's free text under `reveal: names` and `none`.

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::judges::structural::tree::Tree;
use crate::report::reveal::Vocabulary;

use super::stages::Trees;

/// Most files read per side; a larger tree is read this far and the vocabulary is partial.
const MAX_FILES: usize = 50_000;
/// Most bytes read per side.
const MAX_BYTES: u64 = 512 * 1024 * 1024;

fn everything() -> (GlobSet, GlobSet) {
    let mut all = GlobSetBuilder::new();
    if let Ok(g) = Glob::new("**") {
        all.add(g);
    }
    (
        all.build().unwrap_or_else(|_| GlobSet::empty()),
        GlobSet::empty(),
    )
}

/// Whether `bytes` look like text (no NUL in the first 8 KiB): class files, jars and images
/// hold no words a person reads in a report.
fn is_text(bytes: &[u8]) -> bool {
    !bytes[..bytes.len().min(8192)].contains(&0)
}

/// Reads every text file of `tree` into `add`; false when the tree could not be read whole.
fn read_tree(tree: &Tree, mut add: impl FnMut(&[u8])) -> bool {
    let (include, exclude) = everything();
    let Ok(files) = tree.list(&include, &exclude) else {
        return false;
    };
    let mut whole = files.len() <= MAX_FILES;
    let mut bytes = 0u64;
    for rel in files.keys().take(MAX_FILES) {
        match tree.read(rel) {
            Ok(b) => {
                bytes += b.len() as u64;
                if bytes > MAX_BYTES {
                    whole = false;
                    break;
                }
                if is_text(&b) {
                    add(&b);
                }
            }
            Err(_) => whole = false,
        }
    }
    whole
}

/// The level the run's report is revealed at: the config's, except that `names` becomes
/// `none` when subject code could read the reference (the fence's `hidden-reference` did not
/// hold for its last process: a reference inside the workspace, or its objects in the
/// workspace's repository without a mount namespace). `names` cuts the reference's words
/// from subject output; subject code that read the reference can print it in a form no word
/// list matches (reversed, spaced: attack finding NC6), so its output is withheld as `none`
/// withholds it. The same holds when judge-ci itself put the reference's text where subject
/// code reads it (attack finding OF4): files `restore:` copied into the workspace, or the
/// trusted tests judge-ci's oracle ran in the JVM of the code under test (`handed`). Said
/// on stderr; the report records the level and its fence line why.
pub fn level(
    configured: crate::config::Reveal,
    fence: &crate::fence::Fence,
    handed: Option<&str>,
    verbosity: super::options::Verbosity,
) -> crate::config::Reveal {
    use crate::config::Reveal;
    let exposed = fence
        .last_status()
        .is_some_and(|s| !s.holds(crate::fence::Layer::HiddenReference));
    let why = match (exposed, handed) {
        (true, _) => Some("subject code could read the reference (see the fence line)"),
        (false, Some(h)) => Some(h),
        (false, None) => None,
    };
    if configured == Reveal::Names
        && let Some(why) = why
    {
        if verbosity != super::options::Verbosity::Quiet {
            eprintln!(
                "judge-ci: reveal: names is applied as none: {why}, so its output may carry it in any form"
            );
        }
        return Reveal::None;
    }
    configured
}

/// Why subject code was handed reference text by judge-ci itself, when it was: files
/// restored from the reference into the workspace, or the trusted tests run by the oracle
/// beside the code under test.
pub fn handed(report: &crate::report::Report) -> Option<&'static str> {
    if report
        .trust
        .as_ref()
        .is_some_and(|t| !t.restored.is_empty())
    {
        Some("`restore:` copied the reference's files into the workspace subject code reads")
    } else if report.tests.is_some() {
        Some(
            "judge-ci's oracle ran the trusted tests beside the code under test, which can read them",
        )
    } else {
        None
    }
}

/// The run's vocabulary: the reference's words less the workspace's and the task
/// instruction's (what the subject was told). Without a reference it is empty (nothing of a
/// reference can be quoted).
pub fn vocabulary(trees: &Trees, instruction: Option<&str>) -> Vocabulary {
    let mut v = Vocabulary::default();
    let Some(reference) = &trees.reference else {
        return v;
    };
    let reference = Tree::of(reference, trees.comparisons.sides());
    let whole = read_tree(&reference, |b| v.add_reference(b));
    // A workspace read only in part cuts more, never less: no flag for it.
    read_tree(&Tree::Folder(trees.workspace.clone()), |b| v.add_subject(b));
    if let Some(i) = instruction {
        v.add_subject(i.as_bytes());
    }
    v.partial = !whole;
    v
}
