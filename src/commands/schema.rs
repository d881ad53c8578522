//! `schema`: print the JSON Schema of the config file, or the config reference made from it.

use crate::cli::{SchemaArgs, SchemaFormat};
use judge_ci::pipeline;

/// `schema`: prints the schema (`--format json`) or the markdown reference (`--format markdown`).
pub fn run(args: &SchemaArgs) -> anyhow::Result<i32> {
    let schema = judge_ci::config::schema::config_schema();
    match args.format {
        SchemaFormat::Json => println!("{}", serde_json::to_string_pretty(&schema)?),
        SchemaFormat::Markdown => print!("{}", judge_ci::config::schema_doc::markdown(&schema)),
    }
    Ok(pipeline::EXIT_PASS)
}
