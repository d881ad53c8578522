//! The parse rate of judge-ci's language front ends on real sources, for
//! `bench/parse-rate.sh`: every file under the given folders whose extension names a
//! language ([`judge_ci::lang::Language::of_path`]) is parsed into the model as the
//! structural judges parse it; per language it prints the files, how many parse without a
//! syntax error (the rate), the types, members and imports the model holds, and the
//! throughput. Files with errors are listed with their first error line (at most 50).
//!
//! Usage: cargo run --release --example parse-rate -- DIR [DIR …]

use judge_ci::lang::Language;
use judge_ci::lang::model::{SourceFile, all_types};
use std::collections::BTreeMap;
use std::time::Instant;

/// What one language's files gave.
#[derive(Default)]
struct Tally {
    files: usize,
    clean: usize,
    bytes: usize,
    types: usize,
    members: usize,
    imports: usize,
    header_mismatches: usize,
    broken: Vec<(String, u32)>,
    secs: f64,
}

fn members(f: &SourceFile) -> usize {
    f.fields.len()
        + f.methods.len()
        + all_types(f)
            .iter()
            .map(|(_, t)| t.fields.len() + t.methods.len() + t.constructors.len())
            .sum::<usize>()
}

fn main() {
    let dirs: Vec<String> = std::env::args().skip(1).collect();
    if dirs.is_empty() {
        eprintln!("usage: parse-rate DIR [DIR …]");
        std::process::exit(2);
    }
    let mut by_language: BTreeMap<Language, Tally> = BTreeMap::new();
    for entry in dirs
        .iter()
        .flat_map(|d| walkdir::WalkDir::new(d).sort_by_file_name())
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
    {
        let path = entry.path().to_string_lossy().into_owned();
        let Some(language) = Language::of_path(&path) else {
            continue;
        };
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        let start = Instant::now();
        let model = language.parse(&bytes, true);
        let header = language.header(&bytes);
        let t = by_language.entry(language).or_default();
        t.secs += start.elapsed().as_secs_f64();
        t.files += 1;
        t.bytes += bytes.len();
        t.types += all_types(&model).len();
        t.members += members(&model);
        t.imports += model.imports.len();
        if (&header.package, &header.imports) != (&model.package, &model.imports) {
            t.header_mismatches += 1;
        }
        match model.error_lines.first() {
            None => t.clean += 1,
            Some(line) => t.broken.push((path, *line)),
        }
    }
    for (language, t) in &by_language {
        println!(
            "{}: {} files, {} parse without a syntax error ({:.1}%), {} with errors; model: {} types, {} members, {} imports; header differs from the model's in {} file(s); {:.1} MB in {:.2} s ({:.1} MB/s, one core, parse and header)",
            language.name(),
            t.files,
            t.clean,
            100.0 * t.clean as f64 / t.files.max(1) as f64,
            t.files - t.clean,
            t.types,
            t.members,
            t.imports,
            t.header_mismatches,
            t.bytes as f64 / 1e6,
            t.secs,
            t.bytes as f64 / 1e6 / t.secs.max(1e-9),
        );
        for (path, line) in t.broken.iter().take(50) {
            println!("  error: {path}:{line}");
        }
    }
}
