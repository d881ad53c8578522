//! The fuzzing regression corpus, replayed by the normal tests: every file under
//! `tests/corpus/<target>/` goes through that fuzz target's property (`judge_ci::fuzzing`, the
//! very checks `fuzz/fuzz_targets/` run), so an input that once crashed a target, or a hostile
//! input kept as a seed, must pass it on every change.

use crate::common;

use judge_ci::fuzzing;

#[test]
fn every_corpus_input_passes_its_fuzz_targets_property() {
    let root = common::repo_root().join("tests/corpus");
    let mut replayed = 0;
    let mut folders: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    folders.sort();
    for dir in folders {
        let target = dir.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            fuzzing::TARGETS.contains(&target.as_str()),
            "tests/corpus/{target} is named after no fuzz target ({:?})",
            fuzzing::TARGETS
        );
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let data = std::fs::read(&f).unwrap();
            eprintln!("replaying {}", f.display());
            fuzzing::check(&target, &data)
                .unwrap_or_else(|e| panic!("{}: {e}", f.strip_prefix(&root).unwrap().display()));
            replayed += 1;
        }
    }
    println!("replayed {replayed} corpus input(s)");
    assert!(
        root.join("markdown").read_dir().unwrap().count() >= 1,
        "the markdown crash found by fuzzing is kept"
    );
}
