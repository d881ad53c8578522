//! Stage 5, task commands: a task's `setup` and `post` lines, recorded for the report.

use std::path::Path;
use std::time::Instant;

use crate::config::{Benchmark, Task};
use crate::judges::process::{self, Exit, ProcessSpec};
use crate::report::CommandRecord;

pub(super) async fn task_commands(
    task: &Task,
    bench: &Benchmark,
    workspace: &Path,
    setup: bool,
) -> Vec<CommandRecord> {
    let mut out = Vec::new();
    let none = Vec::new();
    let setup_list = if setup { &task.setup } else { &none };
    for (phase, list) in [("setup", setup_list), ("post", &task.post)] {
        for line in list {
            let spec = ProcessSpec::shell(line, workspace.to_path_buf(), bench.default_timeout);
            let start = Instant::now();
            let (exit_code, problem) = match process::run(&spec).await {
                Ok(o) => match o.exit {
                    Exit::Code(0) => (Some(0), None),
                    Exit::Code(c) => {
                        let tail: String = o
                            .stderr
                            .text()
                            .lines()
                            .rev()
                            .take(3)
                            .collect::<Vec<_>>()
                            .into_iter()
                            .rev()
                            .collect::<Vec<_>>()
                            .join(" / ");
                        (
                            Some(c),
                            Some(format!(
                                "exited with {c}{}",
                                if tail.is_empty() {
                                    String::new()
                                } else {
                                    format!(": {tail}")
                                }
                            )),
                        )
                    }
                    Exit::Signal(s) => (None, Some(format!("terminated by signal {s}"))),
                    Exit::TimedOut => (
                        None,
                        Some(format!(
                            "did not finish within {}",
                            crate::judges::humantime(bench.default_timeout)
                        )),
                    ),
                },
                Err(e) => (None, Some(format!("could not be started: {e}"))),
            };
            out.push(CommandRecord {
                phase: phase.into(),
                command: line.clone(),
                exit_code,
                problem,
                elapsed_ms: start.elapsed().as_millis() as u64,
            });
        }
    }
    out
}
