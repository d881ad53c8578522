//! The Kotlin front end: any bytes parse to a model (tree-sitter recovers) and the header
//! is the model's package and imports, never a panic.
//! The property lives in `judge_ci::fuzzing`, which tests/corpus.rs replays on tests/corpus/kotlin/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = judge_ci::fuzzing::kotlin(data) {
        panic!("{broken}");
    }
});
