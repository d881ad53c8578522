//! Gates that read only what judge-ci produced (trust.md points 10, 12, 16 and 22): each test
//! is an attack by a pull request on what a later step, job or judge believes, run on the
//! real binary, and fails if the attack works.

use crate::common;

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

/// A judge that runs the pull request's tests through `run_tests` (a shell prefix), records
/// its own pid for them to find, and answers by their exit code with their output in its
/// reasoning.
fn reaching_judge(run_tests: &str) -> String {
    format!(
        "#!/bin/sh\ncat > /dev/null\necho $$ > judge.pid\nout=$({run_tests} sh ./run-tests.sh 2>&1 | tr -cd 'a-z0-9: \\n' | tr '\\n' ' ')\nif [ \"${{out#*tests:passed}}\" != \"$out\" ]; then s=pass; else s=fail; fi\necho \"{{\\\"status\\\":\\\"$s\\\",\\\"reasoning\\\":\\\"tests said: $out\\\"}}\" >&3\nexit 0\n"
    )
}

/// The pull request's failing tests, which try every way to the judge's answer: the
/// inherited descriptor, the judge's descriptor through /proc, and (with `kill`) a signal
/// that would leave the forged answer the only one.
fn reaching_tests(kill: bool) -> String {
    let pass = r#"{"status":"pass","reasoning":"forged by the subject"}"#;
    format!(
        "#!/bin/sh\nj=$(cat judge.pid)\nif (echo '{pass}' >&3) 2>/dev/null; then echo fd3:open; else echo fd3:closed; fi\nif (echo '{pass}' > /proc/$j/fd/3) 2>/dev/null; then echo proc:open; else echo proc:denied; fi\n{}echo tests:failed\nexit 1\n",
        if kill {
            "if kill -TERM $j 2>/dev/null; then echo signal:sent; else echo signal:denied; fi\n"
        } else {
            ""
        }
    )
}

#[test]
fn subject_code_a_judge_runs_through_fence_exec_cannot_reach_the_judge() {
    // Attack findings F1b/F1c: subject code an external judge runs reopens the judge's answer
    // descriptor through /proc/<judge>/fd/3 (even when the judge closed it with `3>&-`) and
    // writes a passing judgment. Control: without the nested fence it can (the two answers
    // make the check an ERROR; had it killed the judge, its answer would be the only one).
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[
            (
                "judge-ci.yml",
                "name: ext\njury:\n  checks:\n    - {type: external, name: oracle, run: ./judge.sh}\n",
            ),
            ("judge.sh", &reaching_judge("")),
            ("run-tests.sh", &reaching_tests(false)),
        ],
    );
    common::chmod_x(&ws.path().join("judge.sh"));
    let (_, r, err) = judge(ws.path(), &[]);
    let j = &r["verdict"]["individual"][0];
    assert_eq!(
        j["status"], "error",
        "the control's forgery lands: {j}\n{err}"
    );
    assert!(
        j["reasoning"]
            .as_str()
            .unwrap()
            .contains("more than one judgment"),
        "{j}"
    );

    // The judge runs the tests through `"$JUDGE_CI" fence-exec --`: no descriptor reaches
    // them, the judge's /proc entries are closed to them, and (Landlock ABI 6 and later) a
    // signal to the judge is refused; the judge's own answer decides.
    write_tree(
        ws.path(),
        &[
            ("judge.sh", &reaching_judge("\"$JUDGE_CI\" fence-exec --")),
            ("run-tests.sh", &reaching_tests(true)),
        ],
    );
    let (code, r, err) = judge(ws.path(), &[]);
    let j = &r["verdict"]["individual"][0];
    let why = j["reasoning"].as_str().unwrap_or_default();
    assert_ne!(j["status"], "pass", "{j}\n{err}");
    assert_ne!(code, 0, "{j}");
    if j["status"] == "fail" {
        // The judge lived to answer: the tests ran, and every way to its answer was shut.
        assert!(why.contains("tests:failed"), "the tests ran: {why}");
        assert!(
            why.contains("fd3:closed") && why.contains("proc:denied"),
            "{why}"
        );
        assert!(!why.contains("signal:sent"), "{why}");
        assert_eq!(code, 1);
    } else {
        // Before Landlock ABI 6 the signal goes through: the judge died without answering,
        // an ERROR (never the forged pass).
        assert_eq!(j["status"], "error", "{j}");
        assert_eq!(code, 3, "{j}");
    }
}

#[test]
fn the_code_fence_exec_runs_reaches_none_of_the_judges_files_nor_its_input_and_leaves_nothing_running()
 {
    // Attack findings G10-3, G10-4, G10-20: the judge keeps its expected answer in its own
    // TMPDIR, runs the pull request's code through fence-exec, then reads its context from
    // standard input. The code read the answer there (or rewrote it), forged the context on
    // the judge's stdin (`/proc/self/fd/0` is that pipe), and left a `setsid` helper that
    // rewrote both files once fence-exec had returned: each made the judge pass.
    let ws = tempfile::tempdir().unwrap();
    let judge_sh = r#"#!/bin/sh
echo 42 > "$TMPDIR/expected.txt"
echo judge > "$HOME/note"
"$JUDGE_CI" fence-exec -- sh ./run-tests.sh > "$TMPDIR/actual.txt" 2>/dev/null
sleep 2
case "$(cat)" in *forged*) in=forged;; *workspace*) in=intact;; *) in=missing;; esac
if cmp -s "$TMPDIR/expected.txt" "$TMPDIR/actual.txt"; then s=pass; else s=fail; fi
echo "{\"status\":\"$s\",\"reasoning\":\"expected $(cat "$TMPDIR/expected.txt") got $(cat "$TMPDIR/actual.txt") stdin=$in home=$(cat "$HOME/note")\"}" >&3
"#;
    // The judge's TMPDIR is the code's own, or (fence-exec's private one) its parent.
    let tests_sh = r#"#!/bin/sh
for j in "$TMPDIR" "$(dirname "$TMPDIR")"; do
  [ -f "$j/expected.txt" ] || [ -d "$j/home" ] || continue
  ans=$(cat "$j/expected.txt" 2>/dev/null)
  if echo 41 > "$j/expected.txt" 2>/dev/null; then ans=41; fi
  echo subject > "$j/home/note" 2>/dev/null
  setsid sh -c "sleep 1; echo 41 > '$j/expected.txt'; echo 41 > '$j/actual.txt'" >/dev/null 2>&1 </dev/null &
done
echo subject > "$HOME/note" 2>/dev/null
read -r line && ans=stdin-was-readable
echo '{"forged":true}' > /proc/self/fd/0 2>/dev/null
echo "${ans:-41}"
"#;
    write_tree(
        ws.path(),
        &[
            (
                "judge-ci.yml",
                "name: ext\njury:\n  checks:\n    - {type: external, name: oracle, run: ./judge.sh}\n",
            ),
            ("judge.sh", judge_sh),
            ("run-tests.sh", tests_sh),
        ],
    );
    common::chmod_x(&ws.path().join("judge.sh"));
    let (code, r, err) = judge(ws.path(), &[]);
    let j = &r["verdict"]["individual"][0];
    let why = j["reasoning"].as_str().unwrap_or_default();
    assert_eq!(j["status"], "fail", "{j}\n{err}");
    assert!(why.contains("expected 42 got 41"), "{why}");
    assert!(why.contains("stdin=intact"), "{why}");
    assert!(why.contains("home=judge"), "{why}");
    assert_eq!(code, 1, "{j}");
}

#[test]
fn an_external_judge_reads_its_reference_and_metadata_and_the_code_it_fences_reads_neither() {
    // Attack finding G10-5: the judge was handed JUDGE_REFERENCE and JUDGE_METADATA and the
    // fence hid both from it. Now they are its own (the metadata in its private folder, the
    // reference readable to it alone); the code it runs through fence-exec reads neither.
    let d = tempfile::tempdir().unwrap();
    let (ws, reference) = (d.path().join("ws"), d.path().join("ref"));
    std::fs::create_dir_all(&reference).unwrap();
    std::fs::write(reference.join("answer.txt"), "42\n").unwrap();
    let judge_sh = r#"#!/bin/sh
m=$(cat "$JUDGE_METADATA" 2>/dev/null | tr -d '"{} ' ); r=$(cat "$JUDGE_REFERENCE/answer.txt" 2>/dev/null)
sub=$("$JUDGE_CI" fence-exec -- sh -c 'cat "$JUDGE_METADATA" "$JUDGE_REFERENCE/answer.txt" 2>/dev/null' | tr -d '\n"{} ')
echo "{\"status\":\"pass\",\"reasoning\":\"meta=$m ref=$r sub=[$sub]\"}" >&3
"#;
    write_tree(
        &ws,
        &[
            (
                "judge-ci.yml",
                "name: ext\nmetadata: {expected: \"42\"}\nreference:\n  path: ../ref\njury:\n  checks:\n    - {type: external, name: oracle, run: ./judge.sh}\n",
            ),
            ("judge.sh", judge_sh),
        ],
    );
    common::chmod_x(&ws.join("judge.sh"));
    let (_, r, err) = judge(&ws, &[]);
    let why = r["verdict"]["individual"][0]["reasoning"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(why.contains("meta=expected:42"), "{why}\n{err}");
    assert!(why.contains("ref=42"), "{why}");
    assert!(why.contains("sub=[]"), "the fenced code read them: {why}");
}

#[test]
fn fence_exec_runs_the_command_and_refuses_without_one() {
    let ws = tempfile::tempdir().unwrap();
    let o = judge_ci(
        ws.path(),
        &["fence-exec", "--", "sh", "-c", "echo ran; exit 7"],
    );
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert_eq!(common::stdout(&o).trim(), "ran");
    let o = judge_ci(ws.path(), &["fence-exec", "--"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // Standard input is /dev/null unless the judge hands its own on.
    for (flags, seen) in [(&[][..], ""), (&["--stdin"][..], "fed")] {
        use std::io::Write;
        let mut args = vec!["fence-exec"];
        args.extend_from_slice(flags);
        args.extend(["--", "cat"]);
        let mut c = common::command(ws.path(), &args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The command may have ended before it is fed (a closed pipe).
        let _ = c.stdin.take().unwrap().write_all(b"fed");
        let o = c.wait_with_output().unwrap();
        assert_eq!(common::stdout(&o), seen, "{flags:?}");
    }
    let o = judge_ci(
        ws.path(),
        &["fence-exec", "--", "judge-ci-no-such-program-27"],
    );
    assert_eq!(o.status.code(), Some(127), "{}", stderr(&o));
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

const NOBODY: u32 = 65534;

/// A workspace (a folder `nobody` owns, inside a root that is traversable) whose only check
/// runs `run` and fails; judge-ci runs in it as `nobody`, as on a hosted runner.
struct Unprivileged {
    root: tempfile::TempDir,
}

impl Unprivileged {
    fn new(run: &str) -> Unprivileged {
        let root = tempfile::tempdir().unwrap();
        let s = Unprivileged { root };
        let config = format!(
            "name: first\njury:\n  checks:\n    - type: command\n      name: subject\n      run: {}\n",
            serde_json::to_string(run).unwrap()
        );
        write_tree(&s.ws(), &[("judge-ci.yml", &config)]);
        std::fs::create_dir_all(s.root.path().join("tmp")).unwrap();
        s.chown();
        s
    }

    fn ws(&self) -> std::path::PathBuf {
        self.root.path().join("ws")
    }

    fn chown(&self) {
        let st = std::process::Command::new("chown")
            .args(["-R", &format!("{NOBODY}:{NOBODY}")])
            .arg(self.root.path())
            .status()
            .unwrap();
        assert!(st.success());
    }

    /// judge-ci as `nobody` in the workspace.
    fn judge(&self, args: &[&str]) -> std::process::Output {
        std::process::Command::new("setpriv")
            .args([
                &format!("--reuid={NOBODY}"),
                &format!("--regid={NOBODY}"),
                "--clear-groups",
                "--",
                env!("CARGO_BIN_EXE_judge-ci"),
            ])
            .args(args)
            .current_dir(self.ws())
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_EVENT_PATH")
            .env_remove("GITHUB_EVENT_NAME")
            .env("NO_COLOR", "1")
            .env("TMPDIR", self.root.path().join("tmp"))
            .env("RUNNER_TEMP", self.root.path().join("tmp"))
            .env("HOME", self.root.path().join("tmp"))
            .output()
            .unwrap()
    }
}

fn is_root() -> bool {
    // SAFETY: a getter without side effects.
    unsafe { libc::geteuid() == 0 }
}

const FORGED: &str = "{\"schema\":\"forged\",\"verdict\":\"ACCEPTED\"}";

#[test]
fn a_forged_read_only_first_job_folder_fails_the_run_and_is_never_written_around() {
    assert!(
        is_root(),
        "dropping to an unprivileged user (setpriv) needs root; run the tests as root"
    );
    // The subject's code plants a forged report in the folder the next job reads, and makes
    // the folder read-only, so judge-ci (not root) cannot replace it. Before, judge-ci wrote
    // its rejection elsewhere and exited 0 under fail-on never; the next job read the forgery.
    let s = Unprivileged::new(&format!(
        "mkdir -p judge-ci-first && printf '%s' '{FORGED}' > judge-ci-first/report.json && chmod 444 judge-ci-first/report.json && chmod 555 judge-ci-first; exit 1"
    ));
    let o = s.judge(&[
        "--dry-run",
        "--out",
        "judge-ci-first",
        "--fail-on",
        "never",
        "--stop-before-semantic",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "an error of the run: {err}");
    assert!(
        err.contains("judge-ci: error: cannot write") && err.contains("report.json"),
        "the attack ran: {err}"
    );
    // And the forgery is not left for the next job (attack finding G6): judge-ci, the
    // folder's owner, makes it writable again and removes what the subject left.
    assert!(
        !s.ws().join("judge-ci-first/report.json").exists(),
        "the forgery stays for the next job: {err}"
    );
    assert!(err.contains("which a subject process left"), "{err}");

    // The same forgery committed in the pull request's tree, read-only before judge-ci
    // starts: refused before any subject code runs, nothing judged or written around it.
    let s = Unprivileged::new("exit 1");
    std::fs::create_dir(s.ws().join("judge-ci-first")).unwrap();
    std::fs::write(s.ws().join("judge-ci-first/report.json"), FORGED).unwrap();
    s.chown();
    let ro = |p: &Path, mode| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    ro(&s.ws().join("judge-ci-first"), 0o555);
    let o = s.judge(&["--dry-run", "--out", "judge-ci-first", "--fail-on", "never"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("from before this run and judge-ci cannot remove it"),
        "{err}"
    );
    assert!(
        std::fs::read_dir(s.root.path().join("tmp"))
            .unwrap()
            .flatten()
            .all(|e| !e
                .file_name()
                .to_string_lossy()
                .starts_with("judge-ci-report-")),
        "no report written around the folder"
    );

    // Writable, the committed forgery is removed before the subject runs and replaced.
    ro(&s.ws().join("judge-ci-first"), 0o755);
    let o = s.judge(&["--dry-run", "--out", "judge-ci-first", "--fail-on", "never"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = common::report(&s.ws().join("judge-ci-first"));
    assert_eq!(r["interpretation"]["reading"], "REJECTED", "{r}");
}

#[test]
fn a_file_a_subject_plants_beside_the_reports_fails_the_run() {
    // A later step that uploads the folder (or code-scanning's SARIF upload) would take it.
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[
            (
                "judge-ci.yml",
                "name: plant\njury:\n  checks:\n    - type: command\n      run: \"mkdir -p judge-ci-out && echo '{}' > judge-ci-out/extra.sarif && echo x > \\\"judge-ci-out/$(printf 'n\\\\n::error::planted')\\\"\"\n",
            ),
            (
                "judge-ci-out/notes.txt",
                "the maintainer's own file, there before the run\n",
            ),
        ],
    );
    let o = judge_ci(ws.path(), &["--dry-run", "-q"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("extra.sarif appeared in the output folder") && !err.contains("notes.txt"),
        "{err}"
    );
    // The run failed: no report of it stays where a later step or job would read it as whole.
    assert!(
        !ws.path().join("judge-ci-out/report.json").exists(),
        "{err}"
    );
    assert!(!ws.path().join("judge-ci-out/report.sarif").exists());
    assert!(err.contains("taken out of"), "{err}");
    // Nor does what the subject planted stay for a later step (attack finding G6); the
    // maintainer's own file does.
    assert!(
        !ws.path().join("judge-ci-out/extra.sarif").exists(),
        "{err}"
    );
    assert!(ws.path().join("judge-ci-out/notes.txt").exists(), "{err}");
    // A name the subject chose never starts a line of the log of its own (attack finding
    // B11-12: a newline in it made `::error::…` a workflow command).
    assert!(
        err.contains("::error::planted"),
        "the planted name is said: {err}"
    );
    assert!(
        !err.lines().any(|l| l.starts_with("::error::planted")),
        "{err}"
    );

    // In Actions the step outputs and the job summary a later step or person reads say the
    // gate failed and why, never the verdict's own "pass" (attack finding G1).
    let runner = tempfile::tempdir().unwrap();
    let (output, summary) = (runner.path().join("output"), runner.path().join("summary"));
    let o = common::command(ws.path(), &["--dry-run", "-q"])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "push")
        .env("GITHUB_REPOSITORY", "o/r")
        .env("GITHUB_SHA", "0123456789012345678901234567890123456789")
        .env_remove("GITHUB_EVENT_PATH")
        .env("GITHUB_OUTPUT", &output)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("RUNNER_TEMP", runner.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let outputs = std::fs::read_to_string(&output).unwrap();
    let gate = outputs
        .split("gate<<")
        .nth(1)
        .and_then(|rest| rest.lines().nth(1))
        .unwrap_or_default();
    assert_eq!(gate, "fail", "{outputs}");
    assert!(
        outputs.contains("failed on its outputs") && outputs.contains("exit 3"),
        "{outputs}"
    );
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(summary.contains("failed on its outputs"), "{summary}");
}

#[test]
fn files_the_pull_request_commits_into_the_output_folder_fail_the_run_before_it_judges() {
    // Attack finding GA5: `judge-ci-out/suite.json` and `extra.sarif` committed in the pull
    // request's tree stayed beside judge-ci's reports (exit 0) and were uploaded as its own.
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[
            (
                "judge-ci.yml",
                "name: committed\njury:\n  checks:\n    - {type: command, run: \"touch ran\"}\n",
            ),
            ("judge-ci-out/suite.json", "{\"forged\":true}\n"),
            ("judge-ci-out/extra.sarif", "{}\n"),
        ],
    );
    common::commit_all(ws.path(), "the pull request");
    let o = judge_ci(ws.path(), &["--dry-run", "-q"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("extra.sarif, suite.json committed in the checked-out tree"),
        "{err}"
    );
    assert!(
        !ws.path().join("ran").exists(),
        "no subject code ran: {err}"
    );
    assert!(!ws.path().join("judge-ci-out/report.json").exists());
}

#[test]
fn a_folder_a_subject_plants_where_a_report_goes_is_not_left_for_a_later_step() {
    // Attack finding G6: a `report.sarif/` folder holding the subject's own SARIF (a
    // code-scanning upload takes every *.sarif in a folder) in an output folder it then made
    // read-only: judge-ci fails the run (exit 3) and leaves none of it.
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[(
            "judge-ci.yml",
            "name: plant\njury:\n  checks:\n    - type: command\n      run: \"mkdir -p judge-ci-out/report.sarif && echo '{}' > judge-ci-out/report.sarif/forged.sarif && echo '{}' > judge-ci-out/report.json && chmod 444 judge-ci-out/report.json && chmod 555 judge-ci-out\"\n",
        )],
    );
    let o = judge_ci(ws.path(), &["--dry-run", "-q"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    let out = ws.path().join("judge-ci-out");
    let left: Vec<String> = std::fs::read_dir(&out)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "left for a later step: {left:?}\n{err}");
}

#[test]
fn resume_takes_only_the_first_job_of_its_own_run_as_it_was_written() {
    // Both jobs of a split run are jobs of one workflow run, judging one event.
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    write_tree(
        &ws,
        &[(
            "judge-ci.yml",
            "name: split\njury:\n  checks:\n    - {type: command, name: build, run: \"true\"}\n",
        )],
    );
    let first = root.path().join("first");
    let job = |args: &[&str], run_id: &str| {
        let o = common::command(&ws, args)
            .args(["--dry-run", "-q"])
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", "push")
            .env("GITHUB_REPOSITORY", "o/r")
            .env("GITHUB_SHA", "0123456789012345678901234567890123456789")
            .env("GITHUB_RUN_ID", run_id)
            .env_remove("GITHUB_EVENT_PATH")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("GITHUB_OUTPUT")
            .output()
            .unwrap();
        (o.status.code(), stderr(&o))
    };
    let first_job = || {
        let (code, err) = job(
            &["--stop-before-semantic", "--out", first.to_str().unwrap()],
            "100",
        );
        assert_eq!(code, Some(0), "{err}");
    };
    first_job();
    let resume = ["resume", "--from", first.to_str().unwrap()];
    let (code, err) = job(&resume, "100");
    assert_eq!(code, Some(0), "the same run: {err}");
    let r = common::report(&first);
    assert_eq!(r["subject"]["runId"], "100");
    common::assert_report_schema(&r);
    for name in ["report.md", "report.sarif", "junit.xml", "check-run.json"] {
        assert!(
            r["surfaceDigests"][name]
                .as_str()
                .is_some_and(|d| d.len() == 64),
            "{name}: {}",
            r["surfaceDigests"]
        );
    }

    // The first job of another run (an older run of the same commit, another event).
    let (code, err) = job(&resume, "101");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("written by run 100, and this is run 101"),
        "{err}"
    );

    // A file beside what the first job wrote.
    std::fs::write(first.join("planted.json"), "{}").unwrap();
    let (code, err) = job(&resume, "100");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("planted.json is not a file the run wrote"),
        "{err}"
    );
    std::fs::remove_file(first.join("planted.json")).unwrap();

    // A surface name that is not a file of the folder (attack finding G10): refused before
    // anything outside the folder is opened.
    let report_path = first.join("report.json");
    let original = std::fs::read_to_string(&report_path).unwrap();
    for name in ["/etc/hostname", "../report.json", "/proc/self/environ"] {
        let mut r: Value = serde_json::from_str(&original).unwrap();
        r["surfaceDigests"][name] = "0".repeat(64).into();
        std::fs::write(&report_path, r.to_string()).unwrap();
        let (code, err) = job(&resume, "100");
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(
            err.contains("which is not a file name of its folder") && !err.contains("SHA-256"),
            "{name}: {err}"
        );
    }
    std::fs::write(&report_path, &original).unwrap();

    // A file of the folder changed after the first job wrote it.
    std::fs::write(first.join("report.sarif"), "{}").unwrap();
    let (code, err) = job(&resume, "100");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("report.sarif is not the file the run wrote"),
        "{err}"
    );
}

#[test]
fn resume_takes_only_a_first_job_of_the_same_workspace_and_task() {
    // Attack findings F27 (one repository, two projects judged by one config: the first job of
    // good/ resumed for bad/) and F26 (a first job judged without the task, whose `post`
    // command, the hidden tests, then ran nowhere).
    let root = tempfile::tempdir().unwrap();
    let repo = root.path().join("repo");
    write_tree(
        &repo,
        &[
            (
                "judge-ci.yml",
                "name: split\njury:\n  checks:\n    - {type: command, name: tests, run: \"sh ./test.sh\"}\n",
            ),
            ("good/test.sh", "exit 0\n"),
            ("bad/test.sh", "exit 1\n"),
            (
                "task.yaml",
                "schema: bench.task.v1\nid: t\ninstruction: do it\npost:\n  - sh ./hidden-tests.sh\n",
            ),
            ("good/hidden-tests.sh", "exit 1\n"),
        ],
    );
    let job = |args: &[&str], actions: bool| {
        let mut cmd = common::command(&repo, args);
        cmd.args(["--dry-run", "-q"]);
        if actions {
            cmd.env("GITHUB_ACTIONS", "true")
                .env("GITHUB_EVENT_NAME", "push")
                .env("GITHUB_REPOSITORY", "o/r")
                .env("GITHUB_SHA", "0123456789012345678901234567890123456789")
                .env("GITHUB_RUN_ID", "100")
                .env("GITHUB_WORKSPACE", &repo)
                .env_remove("GITHUB_EVENT_PATH")
                .env_remove("GITHUB_STEP_SUMMARY")
                .env_remove("GITHUB_OUTPUT");
        }
        let o = cmd.output().unwrap();
        (o.status.code(), stderr(&o))
    };
    for actions in [true, false] {
        let first = root.path().join(format!("first-{actions}"));
        let (code, err) = job(
            &[
                "--workspace",
                "good",
                "--stop-before-semantic",
                "--out",
                first.to_str().unwrap(),
            ],
            actions,
        );
        assert_eq!(code, Some(0), "{err}");
        let from = first.to_str().unwrap();
        // Control: the same workspace resumes.
        let out = root.path().join(format!("second-{actions}"));
        let out = out.to_str().unwrap();
        let (code, err) = job(
            &[
                "resume",
                "--from",
                from,
                "--workspace",
                "good",
                "--out",
                out,
            ],
            actions,
        );
        assert_eq!(code, Some(0), "actions {actions}: {err}");
        // Another project of the repository: refused, never good/'s judgment for bad/.
        let (code, err) = job(
            &["resume", "--from", from, "--workspace", "bad", "--out", out],
            actions,
        );
        assert_eq!(code, Some(2), "actions {actions}: {err}");
        assert!(err.contains("judged the workspace"), "{err}");
        // A task the first job did not run: refused.
        let (code, err) = job(
            &[
                "resume",
                "--from",
                from,
                "--workspace",
                "good",
                "--task",
                "task.yaml",
                "--out",
                out,
            ],
            actions,
        );
        assert_eq!(code, Some(2), "actions {actions}: {err}");
        assert!(
            err.contains("judged no task, and this run judges task `t`"),
            "{err}"
        );
    }
}

/// A cascade whose first tier runs `build` (REJECT_ON_ANY_FAIL) and whose last accepts, under
/// the lenient `fail-on: fail` (the bundled example's config used to say it).
fn lenient_cascade(build: &str) -> String {
    format!(
        "name: lenient\njury:\n  tiers:\n    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {build}\n    - name: final\n      policy: FINAL_TIER\n      checks:\n        - {{type: file-exists, path: README.md}}\n report:\n  fail-on: fail\n"
    )
    .replace("\n report:", "\nreport:")
}

/// trust.md point 12 (attack findings F17, F31): an ERROR the subject can cause (a bound its
/// code exceeds, a program of its tree that is not there, a failed task command) does not let
/// a later tier accept under `fail-on: fail` or `not-pass`; only an ERROR of judge-ci's own
/// instrument (a tool missing from the PATH) is waived there, and the report says which.
#[test]
fn an_error_the_subject_can_cause_fails_a_lenient_gate() {
    let cases: [(&str, &str, i32, &str); 4] = [
        (
            "timeout",
            "{type: command, name: tests, run: \"sleep 30\", timeout: PT1S}",
            3,
            "subject",
        ),
        (
            "a program of the subject's tree",
            "{type: command, name: tests, run: [./run-tests.sh]}",
            3,
            "subject",
        ),
        (
            "an external judge the subject's code breaks",
            "{type: external, name: oracle, run: \"sh ./two-answers.sh\"}",
            3,
            "subject",
        ),
        (
            "a tool missing from the runner",
            "{type: command, name: tests, run: [judge-ci-no-such-tool-on-the-path]}",
            0,
            "instrument",
        ),
    ];
    for (what, build, code, origin) in cases {
        for fail_on in ["fail", "not-pass"] {
            let ws = tempfile::tempdir().unwrap();
            write_tree(
                ws.path(),
                &[
                    ("judge-ci.yml", &lenient_cascade(build)),
                    ("README.md", "x\n"),
                    (
                        "two-answers.sh",
                        "cat >/dev/null\necho '{\"status\":\"pass\",\"reasoning\":\"a\"}' >&3\necho '{\"status\":\"pass\",\"reasoning\":\"b\"}' >&3\n",
                    ),
                ],
            );
            let (got, r, err) = judge(ws.path(), &["--fail-on", fail_on]);
            let why = format!("{what} under {fail_on}: {:#}\n{err}", r["outcome"]);
            assert_eq!(r["interpretation"]["reading"], "ACCEPTED", "{why}");
            assert_eq!(got, code, "{why}");
            assert_eq!(r["outcome"]["erroredTiers"][0]["origin"], origin, "{why}");
            let reason = r["outcome"]["reason"].as_str().unwrap();
            if code == 3 {
                assert!(reason.contains("no fail-on waives"), "{why}");
                assert_eq!(r["outcome"]["gate"], "fail", "{why}");
            } else {
                assert!(reason.contains("judge-ci's own instrument failed"), "{why}");
            }
        }
    }
}

/// A failed task command (the hidden tests a `post` applies) is an error of the run the
/// subject can cause: no `fail-on` but `never` lets the run pass (attack finding F31).
#[test]
fn failed_task_commands_fail_a_lenient_gate() {
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[
            (
                "judge-ci.yml",
                "name: t\njury:\n  checks:\n    - {type: command, name: ok, run: \"true\"}\nreport:\n  fail-on: fail\n",
            ),
            (
                "task.yaml",
                "schema: bench.task.v1\nid: t\ninstruction: do it\npost:\n  - sh ./hidden-tests.sh\n",
            ),
            ("hidden-tests.sh", "echo '3 hidden tests failed'; exit 1\n"),
        ],
    );
    let (code, r, err) = judge(ws.path(), &["--task", "task.yaml"]);
    assert_eq!(code, 3, "{:#}\n{err}", r["outcome"]);
    assert_eq!(r["outcome"]["erroredTiers"][0]["origin"], "subject");
    assert!(
        r["outcome"]["reason"]
            .as_str()
            .unwrap()
            .contains("the task commands failed: an ERROR the change can cause"),
        "{:#}",
        r["outcome"]
    );
    let (code, r, _) = judge(ws.path(), &["--task", "task.yaml", "--fail-on", "never"]);
    assert_eq!(code, 0, "never waives everything: {:#}", r["outcome"]);
}

/// trust.md point 12, attack finding NC4: a limit the change's own code runs into (its test
/// sleeps past the check's time limit) is said to be the change's doing on every surface —
/// the headline is never ✅ or the 🛠️ of judge-ci's instrument, the notice says whose cause
/// it is, the gate's sentence does not say "the instrument failed", and the gap rationale
/// does not send the reader only to the runner. An ERROR of judge-ci's own instrument (a tool
/// missing from the runner) keeps its wording.
#[test]
fn a_limit_the_change_runs_into_is_said_to_be_its_doing_on_every_surface() {
    let slow = "{type: command, name: tests, run: \"sleep 30\", timeout: PT1S}";
    let cases = [
        (lenient_cascade(slow), "accepted"),
        (
            "name: alone\njury:\n  tiers:\n    - name: build\n      policy: FINAL_TIER\n      checks:\n        - {type: command, name: tests, run: \"sleep 30\", timeout: PT1S}\n"
                .to_string(),
            "not assessed",
        ),
    ];
    for (config, reading) in cases {
        let ws = tempfile::tempdir().unwrap();
        write_tree(
            ws.path(),
            &[("judge-ci.yml", &config), ("README.md", "x\n")],
        );
        let out = tempfile::tempdir().unwrap();
        let o = judge_ci(
            ws.path(),
            &["--dry-run", "-q", "--out", out.path().to_str().unwrap()],
        );
        assert_eq!(o.status.code(), Some(3), "{reading}: {}", stderr(&o));
        let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
        let head = md.lines().find(|l| l.starts_with("## ")).unwrap();
        assert!(head.starts_with("## ⛔ "), "{reading}: {head}");
        let r = common::report(out.path());
        let reason = r["outcome"]["reason"].as_str().unwrap();
        assert!(!reason.contains("instrument failed"), "{reading}: {reason}");
        if reading == "accepted" {
            assert!(
                head.contains("Accepted") && head.contains("but the gate fails (exit 3)"),
                "{head}"
            );
            assert!(
                md.contains("a cause the change can bring about, so it counts against the change"),
                "{md}"
            );
        } else {
            assert!(
                head.contains("Not assessed")
                    && head.contains(", counted against the change (exit 3)"),
                "{head}"
            );
            assert!(
                reason.starts_with("The subject was not assessed: tier 'build'"),
                "{reason}"
            );
        }
        assert!(
            md.contains("the change's code may hang or run slowly"),
            "{md}"
        );
        let run: Value = serde_json::from_str(
            &std::fs::read_to_string(out.path().join("check-run.json")).unwrap(),
        )
        .unwrap();
        let title = run["create"]["output"]["title"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(run["create"]["conclusion"], "failure", "{run:#}");
        assert!(
            title.contains(", but the gate fails (exit 3)")
                || title.contains(", counted against the change (exit 3)"),
            "{reading}: {title}"
        );
    }
    // judge-ci's own instrument: the tool is not on the runner.
    let ws = tempfile::tempdir().unwrap();
    let config = "name: alone\njury:\n  tiers:\n    - name: build\n      policy: FINAL_TIER\n      checks:\n        - {type: command, name: tests, run: [judge-ci-no-such-tool-on-the-path]}\n";
    write_tree(ws.path(), &[("judge-ci.yml", config), ("README.md", "x\n")]);
    let out = tempfile::tempdir().unwrap();
    let o = judge_ci(
        ws.path(),
        &["--dry-run", "-q", "--out", out.path().to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    let head = md.lines().find(|l| l.starts_with("## ")).unwrap();
    assert!(
        head.starts_with("## 🛠️ Not assessed") && !head.contains("counted against"),
        "{head}"
    );
    let r = common::report(out.path());
    assert!(
        r["outcome"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("The instrument failed"),
        "{r:#}"
    );
}
