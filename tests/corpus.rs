//! The fuzzing regression corpus (`tests/corpus/<target>/`), replayed by the normal tests with
//! the same checks as the fuzz targets in `fuzz/fuzz_targets/`: every input that once crashed a
//! target must now pass it.

mod common;

use judge_ci::report::{budget, escape};

/// The files of one target's corpus.
fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = common::repo_root().join("tests/corpus").join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Vec<u8>)> = entries
        .filter_map(Result::ok)
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The checks of `fuzz_targets/markdown.rs`.
fn markdown(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else {
        return Ok(());
    };
    let line = escape::inline(text);
    budget::validate(&line).map_err(|e| format!("inline: {e:?}"))?;
    budget::validate(&escape::code_span(text)).map_err(|e| format!("code span: {e:?}"))?;
    let block = escape::code_block(text, "text");
    budget::validate(&block).map_err(|e| format!("code block: {e:?}"))?;
    let doc: String = (0..20)
        .map(|i| format!("## {i}\n\n{line}\n\n{block}\n"))
        .collect();
    let cut = budget::truncate(&doc, 2_000, "the report artifact");
    if cut.len() > 2_000 {
        return Err(format!("{} bytes over a 2000-byte budget", cut.len()));
    }
    budget::validate(&cut).map_err(|e| format!("cut: {e:?}"))
}

#[test]
fn every_input_that_crashed_a_fuzz_target_now_passes_it() {
    let inputs = corpus("markdown");
    assert!(
        !inputs.is_empty(),
        "the markdown corpus holds the crash found by fuzzing"
    );
    for (name, data) in inputs {
        markdown(&data).unwrap_or_else(|e| panic!("tests/corpus/markdown/{name}: {e}"));
    }
}
