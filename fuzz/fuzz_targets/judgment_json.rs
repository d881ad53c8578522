//! The external-judge protocol: a judgment that parses serializes and parses back to itself.
//! The property lives in `judge_ci::fuzzing`, which tests/it/corpus.rs replays on tests/corpus/judgment_json/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = judge_ci::fuzzing::judgment_json(data) {
        panic!("{broken}");
    }
});
