//! Stored verdicts and reports: any JSON is interpreted (0.13–0.17 shapes) without a panic, and a
//! report that parses renders to every surface within its budget.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        let i = judge_ci::jury::interpret::interpret(&v);
        let _ = judge_ci::jury::interpret::summary(&i);
    }
    if let Ok(r) = serde_json::from_slice::<judge_ci::report::Report>(data) {
        for s in judge_ci::report::Surface::ALL {
            let _ = judge_ci::report::render(&r, s, None, 50);
        }
        let md = judge_ci::report::render(&r, judge_ci::report::Surface::Markdown, None, 50)
            .unwrap_or_default();
        assert!(md.len() <= judge_ci::report::budget::COMMENT_BUDGET);
    }
});
