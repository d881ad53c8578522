//! JaCoCo reports and POMs: any text parses or is refused, never a panic.
//! The property lives in `judge_ci::fuzzing`, which tests/it/corpus.rs replays on tests/corpus/xml/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = judge_ci::fuzzing::xml(data) {
        panic!("{broken}");
    }
});
