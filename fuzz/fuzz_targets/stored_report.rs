//! Stored verdicts and reports: any JSON is interpreted (0.13–0.17 shapes) without a panic, and a
//! report that parses renders to every surface within its budget.
//! The property lives in `judge_ci::fuzzing`, which tests/it/corpus.rs replays on tests/corpus/stored_report/.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = judge_ci::fuzzing::stored_report(data) {
        panic!("{broken}");
    }
});
