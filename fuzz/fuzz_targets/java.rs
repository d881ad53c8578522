//! The Java front end: any bytes parse to a model (tree-sitter recovers) and the header
//! scanner answers, never a panic.
//! The property lives in `judge_ci::fuzzing`, which tests/it/corpus.rs replays on tests/corpus/java/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = judge_ci::fuzzing::java(data) {
        panic!("{broken}");
    }
});
