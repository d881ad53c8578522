//! `interpret`: read a stored verdict (or a report holding one) and print its reading.

use crate::cli;
use anyhow::Context;
use judge_ci::jury::interpret;
use judge_ci::pipeline;

/// `interpret`: prints the reading as prose or JSON.
pub fn run(args: cli::InterpretArgs) -> anyhow::Result<i32> {
    let cli::InterpretArgs { file, format } = args;
    // A stored verdict someone else wrote: never opened blocking, bounded.
    let text = judge_ci::untrusted::read_string_io(&file, judge_ci::untrusted::MAX_STORED_BYTES)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}:{}:{}: not JSON: {e}",
            file.display(),
            e.line(),
            e.column()
        )
    })?;
    // A report wraps the verdict; a bare verdict is read as it is.
    let verdict = match value.get("verdict") {
        Some(v) if value.get("schema").is_some() => v,
        _ => &value,
    };
    let reading = interpret::interpret(verdict);
    match format {
        cli::InterpretFormat::Text => println!("{}", interpret::summary(&reading)),
        cli::InterpretFormat::Json => {
            println!("{}", serde_json::to_string_pretty(&reading)?)
        }
    }
    Ok(pipeline::EXIT_PASS)
}
