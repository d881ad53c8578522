//! Stage 5, task commands: a task's `setup` and `post` lines, recorded for the report.

use std::path::Path;
use std::time::Instant;

use crate::config::{Benchmark, Task};
use crate::fence::Fence;
use crate::judges::process::{self, Exit, ProcessSpec};
use crate::report::{CommandRecord, ErroredTier};

pub(super) async fn task_commands(
    task: &Task,
    bench: &Benchmark,
    workspace: &Path,
    setup: bool,
    fence: &Fence,
) -> Vec<CommandRecord> {
    let mut out = Vec::new();
    let none = Vec::new();
    let setup_list = if setup { &task.setup } else { &none };
    for (phase, list) in [("setup", setup_list), ("post", &task.post)] {
        for line in list {
            let spec = ProcessSpec::shell(line, workspace.to_path_buf(), bench.default_timeout);
            let start = Instant::now();
            let (exit_code, problem) = match process::run(&spec, fence).await {
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

/// The failed task commands as an ERROR of the run: one entry for the gate, naming each
/// failed command and why (`spec/trust.md` point 17: a failed task command is never judged
/// past).
pub(super) fn failed_commands(commands: &[CommandRecord]) -> Vec<ErroredTier> {
    let failed: Vec<String> = commands
        .iter()
        .filter_map(|c| {
            c.problem
                .as_ref()
                .map(|p| format!("{} `{}` {p}", c.phase, c.command))
        })
        .collect();
    if failed.is_empty() {
        return Vec::new();
    }
    vec![ErroredTier {
        tier: ErroredTier::TASK_COMMANDS.to_string(),
        judges: Vec::new(),
        reason: format!(
            "{} task command(s) failed, so the workspace judged is not the one the task prepares: {}",
            failed.len(),
            failed.join("; ")
        ),
        // judge-ci cannot tell a setup the environment broke from one the workspace broke,
        // and a `post` that applies the hidden tests fails on the subject's code.
        origin: crate::judgment::ErrorOrigin::Subject,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_command_is_an_error_of_the_run_naming_it() {
        let ok = CommandRecord {
            phase: "setup".into(),
            command: "true".into(),
            exit_code: Some(0),
            problem: None,
            elapsed_ms: 1,
        };
        assert!(failed_commands(std::slice::from_ref(&ok)).is_empty());
        let bad = CommandRecord {
            phase: "post".into(),
            command: "git apply hidden.patch".into(),
            exit_code: Some(1),
            problem: Some("exited with 1: patch does not apply".into()),
            elapsed_ms: 1,
        };
        let e = failed_commands(&[ok, bad]);
        assert_eq!(e.len(), 1);
        assert!(e[0].is_task_commands());
        assert!(
            e[0].reason
                .contains("post `git apply hidden.patch` exited with 1"),
            "{}",
            e[0].reason
        );
    }
}
