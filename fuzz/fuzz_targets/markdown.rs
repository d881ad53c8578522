//! Escaping and truncation: escaped text is valid GFM that shows the input literally (its text
//! is the input's, whitespace aside), and a cut report stays within its budget and stays valid.
#![no_main]
use judge_ci::report::{budget, escape};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let line = escape::inline(text);
    budget::validate(&line).expect("escaped text is valid markdown");
    let span = escape::code_span(text);
    budget::validate(&span).expect("a code span is valid markdown");
    let block = escape::code_block(text, "text");
    budget::validate(&block).expect("a code block is valid markdown");
    // A document of many escaped paragraphs, cut to a small budget.
    let doc: String = (0..20).map(|i| format!("## {i}\n\n{line}\n\n{block}\n")).collect();
    let cut = budget::truncate(&doc, 2_000, "the report artifact");
    assert!(cut.len() <= 2_000, "{} bytes over a 2000-byte budget", cut.len());
    budget::validate(&cut).expect("a cut document is valid markdown");
});
