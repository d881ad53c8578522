//! The Java front end: any bytes parse to a model (tree-sitter recovers), and the header scanner
//! agrees with itself.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let file = judge_ci::lang::java::parse_with(data, true);
    let _ = judge_ci::lang::java::all_types(&file);
    let _ = judge_ci::lang::java::scan_header(data);
});
