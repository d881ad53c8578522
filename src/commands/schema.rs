//! `schema`: print the JSON Schema of the config file.

use judge_ci::pipeline;

/// `schema`: prints the schema.
pub fn run() -> anyhow::Result<i32> {
    println!(
        "{}",
        serde_json::to_string_pretty(&judge_ci::config::schema::config_schema())?
    );
    Ok(pipeline::EXIT_PASS)
}
