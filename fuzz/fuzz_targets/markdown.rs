//! Escaping and truncation: escaped text is valid GFM, and a cut report stays within its budget
//! and stays valid.
//! The property lives in `judge_ci::fuzzing`, which tests/it/corpus.rs replays on tests/corpus/markdown/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = judge_ci::fuzzing::markdown(data) {
        panic!("{broken}");
    }
});
