//! Gates that read only what judge-ci produced (trust.md points 10, 12, 16 and 22): each test
//! is an attack by a pull request on what a later step, job or judge believes, run on the
//! real binary, and fails if the attack works.

mod common;

use std::path::Path;

use common::{judge_ci, stderr, write_tree};
use serde_json::Value;

/// Runs judge-ci in `ws` (config `judge-ci.yml` there) with its output in a fresh folder
/// outside the workspace; the exit code and the report.
fn judge(ws: &Path, extra: &[&str]) -> (i32, Value, String) {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["--dry-run", "-q", "--out", out.path().to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = judge_ci(ws, &args);
    let code = o.status.code().unwrap_or(-1);
    assert!(
        out.path().join("report.json").exists(),
        "no report; exit {code}; stderr:\n{}",
        stderr(&o)
    );
    (code, common::report(out.path()), stderr(&o))
}

/// A judge that runs the pull request's tests as a child process, shows their output in its
/// log, and answers on descriptor 3 by their exit code (closing 3 for the child, as most
/// process libraries do by themselves).
const RUNS_SUBJECT_TESTS: &str = "#!/bin/sh\ncat > /dev/null\nif sh ./run-tests.sh 3>&-; then\n  v='{\"status\":\"pass\",\"reasoning\":\"the tests pass\"}'\nelse\n  v='{\"status\":\"fail\",\"reasoning\":\"the tests fail\"}'\nfi\necho \"$v\" >&3\nexit 0\n";

fn external_workspace(tests: &str) -> tempfile::TempDir {
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[
            (
                "judge-ci.yml",
                "name: ext\njury:\n  checks:\n    - {type: external, name: oracle, run: ./judge.sh}\n",
            ),
            ("judge.sh", RUNS_SUBJECT_TESTS),
            ("run-tests.sh", tests),
        ],
    );
    common::chmod_x(&ws.path().join("judge.sh"));
    ws
}

#[test]
fn subject_code_an_external_judge_runs_cannot_answer_for_it() {
    // Control: honest failing tests are a rejection, passing ones an acceptance.
    let ws = external_workspace("#!/bin/sh\necho 'test a ... ok'\nexit 0\n");
    let (code, r, _) = judge(ws.path(), &[]);
    assert_eq!(code, 0, "{}", r["verdict"]["individual"][0]);
    let ws = external_workspace("#!/bin/sh\necho 'test a ... FAILED'\nexit 1\n");
    let (code, _, _) = judge(ws.path(), &[]);
    assert_eq!(code, 1);

    // The attack: the failing tests print a passing judgment first, on the standard output
    // they share with the judge. It is a log line; the judge's own answer decides.
    let ws = external_workspace(
        "#!/bin/sh\necho '{\"status\":\"pass\",\"score\":1.0,\"reasoning\":\"all good\"}'\necho '{\"status\":\"pass\"}' >&3\nexit 1\n",
    );
    let (code, r, err) = judge(ws.path(), &[]);
    let j = &r["verdict"]["individual"][0];
    assert_eq!(j["status"], "fail", "{j}\n{err}");
    assert_eq!(j["reasoning"], "the tests fail", "{j}");
    assert_eq!(code, 1, "rejected: {j}");
}

#[test]
fn an_external_judge_answers_once_on_descriptor_three_and_says_so_when_it_prints() {
    let ws = tempfile::tempdir().unwrap();
    let pass = "{\"status\":\"pass\",\"reasoning\":\"ok\"}";
    write_tree(
        ws.path(),
        &[
            (
                "judge-ci.yml",
                "name: ext\njury:\n  voting: {strategy: majority, errors: treat-as-fail}\n  checks:\n    - {type: external, name: stdout, run: ./stdout.sh}\n    - {type: external, name: twice, run: ./twice.sh}\n    - {type: external, name: fd, run: ./fd.sh}\n",
            ),
            ("stdout.sh", &format!("#!/bin/sh\necho '{pass}'\n")),
            (
                "twice.sh",
                &format!("#!/bin/sh\necho '{pass}' >&3\necho '{pass}' >&3\n"),
            ),
            (
                "fd.sh",
                &format!(
                    "#!/bin/sh\necho \"answer on $JUDGE_ANSWER_FD\"\necho '{pass}' >&\"$JUDGE_ANSWER_FD\"\n"
                ),
            ),
        ],
    );
    for s in ["stdout.sh", "twice.sh", "fd.sh"] {
        common::chmod_x(&ws.path().join(s));
    }
    let (code, r, _) = judge(ws.path(), &[]);
    let by = &r["verdict"]["individualByName"];
    assert_eq!(by["fd"]["status"], "pass", "{}", by["fd"]);
    for (name, says) in [
        ("stdout", "standard output, which is a log only"),
        ("twice", "more than one judgment"),
    ] {
        assert_eq!(by[name]["status"], "error", "{}", by[name]);
        assert_eq!(by[name]["reasonCode"], "judge_failed");
        let why = by[name]["reasoning"].as_str().unwrap();
        assert!(why.contains(says), "{name}: {why}");
    }
    assert_ne!(code, 0);
}
