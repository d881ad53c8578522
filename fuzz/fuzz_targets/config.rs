//! Config loading: any bytes as judge-ci.yml load to a config or to diagnostics, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("judge-ci-fuzz-{}.yml", std::process::id()));
    if std::fs::write(&path, data).is_ok() {
        let _ = judge_ci::config::load_benchmark(&path);
    }
});
