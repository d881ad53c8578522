//! JaCoCo reports and POMs: any text parses or is refused, never a panic, no entity expansion.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = judge_ci::judges::coverage::parse_jacoco(text);
        let _ = judge_ci::judges::structural::Pom::parse(text);
    }
});
