//! `render`: re-render a stored report to one surface, or to all of them.

use crate::cli;
use anyhow::Context;
use judge_ci::pipeline::{self, save::write_file};
use judge_ci::report::Surface;

/// `render`: prints one surface, or writes every surface into `--out`.
pub fn run(args: cli::RenderArgs) -> anyhow::Result<i32> {
    let cli::RenderArgs {
        report,
        format,
        out,
        template,
        annotations,
    } = args;
    // A stored report someone else wrote: never opened blocking, bounded.
    let text = judge_ci::untrusted::read_string_io(&report, judge_ci::untrusted::MAX_STORED_BYTES)
        .with_context(|| format!("cannot read {}", report.display()))?;
    let parsed =
        judge_ci::report::read::parse(&text).map_err(|e| anyhow::anyhow!(e.at(&report)))?;
    // Rendered as it was revealed when written (`reveal:` is recorded in the report).
    let parsed = judge_ci::report::Revealed::stored(parsed, None)?;
    let template = match template {
        Some(p) => Some(
            std::fs::read_to_string(&p)
                .with_context(|| format!("cannot read the template {}", p.display()))?,
        ),
        None => None,
    };
    match out {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            for s in Surface::ALL.into_iter().filter(|s| *s != Surface::Json) {
                let text = judge_ci::report::render(&parsed, s, template.as_deref(), annotations)?;
                let path = dir.join(s.file_name());
                write_file(&path, text.as_bytes())?;
            }
            println!("wrote every surface into {}", dir.display());
        }
        None => {
            let s = format;
            let text = judge_ci::report::render(&parsed, s, template.as_deref(), annotations)?;
            print!("{}", judge_ci::github::inert::wrap(&text));
        }
    }
    Ok(pipeline::EXIT_PASS)
}
