//! `command` and `external`: a program the check runs, by a shell line or an argument vector.

use marked_yaml::Node;

use super::read::{CheckNode, env, get, path_key, required};
use super::{CheckInfo, CheckKind, Family};
use crate::config::yaml::{Kind, Reader, key};

/// `command`: PASS if the command exits with the expected code.
#[rustfmt::skip]
pub const COMMAND: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    doc: "PASS if the command exits with the expected code",
    keys: keys![
        key("run", Kind::CommandLine, "a string for sh -c, or a list of arguments"),
        key("expect-exit", Kind::Integer, "expected exit code (0)"),
        key("env", Kind::StrMap, "extra environment variables"),
        key("dir", Kind::Str, "working folder relative to the workspace")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_command),
};

/// Reads one `command` check.
fn read_command(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, whole, what) = (c.m, c.whole, c.what);
    let run =
        required(r, m, whole, "run", what).and_then(|n| command_line(r, n, &format!("{what}.run")));
    let expect_exit = match get(m, "expect-exit") {
        // An exit code, so 0 to 255: the cast cannot truncate.
        Some(n) => r.integer_in(n, &format!("{what}.expect-exit"), 0..=255)? as i32,
        None => 0,
    };
    let env = env(r, m, what);
    let dir = match get(m, "dir") {
        Some(_) => Some(path_key(r, m, "dir", None, what)?),
        None => None,
    };
    Some(CheckKind::Command {
        run: run?,
        expect_exit,
        env: env?,
        dir,
    })
}

/// `external`: runs a program that writes one judgment as JSON on descriptor 3.
#[rustfmt::skip]
pub const EXTERNAL: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    doc: "runs a program that writes one judgment as JSON on descriptor 3 ($JUDGE_ANSWER_FD); its standard output and error are logs",
    keys: keys![
        key("run", Kind::CommandLine, "a string for sh -c, or a list of arguments"),
        key("env", Kind::StrMap, "extra environment variables")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_external),
};

/// Reads one `external` check.
fn read_external(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, whole, what) = (c.m, c.whole, c.what);
    let run =
        required(r, m, whole, "run", what).and_then(|n| command_line(r, n, &format!("{what}.run")));
    let env = env(r, m, what);
    Some(CheckKind::External {
        run: run?,
        env: env?,
    })
}

/// A program to run: a shell line or an argument vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandLine {
    /// Run with `sh -c`.
    Shell(String),
    /// Run directly: program and arguments.
    Argv(Vec<String>),
}

fn command_line(r: &mut Reader, n: &Node, what: &str) -> Option<CommandLine> {
    match n {
        Node::Sequence(_) => {
            let argv = r.string_list(n, what)?;
            if argv.is_empty() {
                r.error(n, format!("{what} must name a program"));
                return None;
            }
            Some(CommandLine::Argv(argv))
        }
        _ => r.non_blank(n, what).map(CommandLine::Shell),
    }
}
