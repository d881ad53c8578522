//! The parse floor for `bench/structural.sh`: the time tree-sitter-java alone needs to parse
//! every `.java` file under the given folders, on all cores (rayon), nothing else.
//!
//! Usage: cargo run --release --example parse-floor -- DIR [DIR …]

use rayon::prelude::*;
use std::time::Instant;

fn main() {
    let dirs: Vec<String> = std::env::args().skip(1).collect();
    let files: Vec<std::path::PathBuf> = dirs
        .iter()
        .flat_map(|d| walkdir::WalkDir::new(d).into_iter().filter_map(Result::ok))
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "java"))
        .map(|e| e.into_path())
        .collect();
    let start = Instant::now();
    let bytes: usize = files
        .par_iter()
        .map_init(
            || {
                let mut p = tree_sitter::Parser::new();
                p.set_language(&tree_sitter_java::LANGUAGE.into())
                    .expect("java grammar");
                p
            },
            |parser, f| {
                let src = std::fs::read(f).unwrap_or_default();
                let _tree = parser.parse(&src, None);
                src.len()
            },
        )
        .sum();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "parse floor: {} files, {:.1} MB, {:.3} s wall ({:.1} MB/s)",
        files.len(),
        bytes as f64 / 1e6,
        secs,
        bytes as f64 / 1e6 / secs
    );
}
