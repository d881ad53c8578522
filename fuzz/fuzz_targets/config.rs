//! Config loading: any bytes as judge-ci.yml load to a config or to diagnostics, never a panic.
//! The property lives in `judge_ci::fuzzing`, which tests/it/corpus.rs replays on tests/corpus/config/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = judge_ci::fuzzing::config(data) {
        panic!("{broken}");
    }
});
