//! The integration tests: one binary (one compile of `common`), one module per area.
//! Run one area with `cargo test --test it <module>::`, e.g. `cargo test --test it fence::`.

mod common;

mod accounted;
mod action;
mod actions;
mod attacks;
mod calibrate;
mod checkout;
mod cli;
mod compiler_view;
mod conformance;
mod conformance_cases;
mod corpus;
mod deterministic;
mod diagnose;
mod example;
mod fence;
mod gates;
mod git_selection;
mod github;
mod html_preview;
mod javac_differential;
mod kotlin;
mod llm;
mod oracle;
mod protect;
mod prove;
mod prove_workflow;
mod real_model;
mod regression_workflow;
mod reliability;
mod render;
mod report_v1;
mod resume;
mod reveal;
mod semantic;
mod structural;
mod subject_files;
mod suite;
mod trust;

/// With `autotests = false` a top-level `tests/<name>.rs` would never compile or run, and a file
/// under tests/it/ without its `mod` line would be silently left out: both fail here.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let rust_files = |dir: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".rs"))
            .collect();
        names.sort();
        names
    };
    let stray = rust_files(&root);
    assert!(
        stray.is_empty(),
        "tests/{stray:?} would never run (autotests = false): move it to tests/it/ and add its `mod` line to tests/it/main.rs"
    );
    let main = include_str!("main.rs");
    for name in rust_files(&root.join("it")) {
        let module = name.trim_end_matches(".rs");
        if module == "main" {
            continue;
        }
        assert!(
            main.contains(&format!("\nmod {module};\n")),
            "tests/it/{name} has no `mod {module};` line in tests/it/main.rs, so none of its tests run"
        );
    }
}
