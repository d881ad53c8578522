//! The real binary on bad input (exit 2, a message naming file:line:col or the flag, no
//! panic, nothing run), on every shared fixture, and on the stored-report readers.

use crate::common;

use common::{judge_ci, stderr, stdout, write_tree};
use std::path::Path;

/// A config whose first check leaves a marker, so "nothing half-run" can be checked.
fn with_marker(rest: &str) -> String {
    format!(
        "name: bad\njury:\n  tiers:\n    - name: first\n      checks:\n        - type: command\n          run: touch ran.marker\n{rest}"
    )
}

/// Runs `judge-ci --dry-run` on a workspace holding `config`; asserts exit 2, no panic, no
/// marker, and that stderr holds every `needle`.
fn refused(config: &str, needles: &[&str]) -> String {
    let ws = tempfile::tempdir().unwrap();
    write_tree(ws.path(), &[("judge-ci.yml", config)]);
    let o = judge_ci(ws.path(), &["--dry-run"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "exit code; stderr:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        !ws.path().join("ran.marker").exists(),
        "a judge ran despite the bad config"
    );
    assert!(
        !ws.path().join("judge-ci-out").exists(),
        "a report was written for a refused config"
    );
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}:\n{err}");
    }
    err
}

#[test]
fn malformed_yaml_names_line_and_column() {
    refused(
        "name: x\njury:\n  checks: [unclosed\n",
        &["judge-ci.yml:", "malformed YAML"],
    );
}

#[test]
fn wrong_types_are_refused_with_position() {
    refused(
        &with_marker("          weight: heavy\n"),
        &["judge-ci.yml:8:19", "weight must be a number"],
    );
    refused(
        "name: x\njury:\n  checks:\n    - type: file-exists\n      path: [a, b]\n",
        &["judge-ci.yml:5:13", "must be a string"],
    );
}

#[test]
fn scalars_where_lists_of_strings_belong_are_refused() {
    // `goals: 7` used to become the goal "7"; every list-of-strings key now refuses a scalar.
    let cases: &[(&str, &str)] = &[
        ("type: maven-build\n      goals: 7", "judge-ci.yml:5:14"),
        ("type: maven-build\n      args: -q", "judge-ci.yml:5:13"),
        ("type: gradle-build\n      tasks: true", "judge-ci.yml:5:14"),
        (
            "type: import-diff\n      forbid: javax.*",
            "judge-ci.yml:5:15",
        ),
        (
            "type: ast-diff\n      include: \"**/*.java\"",
            "judge-ci.yml:5:16",
        ),
        ("type: ast-diff\n      aspects: types", "judge-ci.yml:5:16"),
        (
            "type: file-comparison\n      exclude: 3.5",
            "judge-ci.yml:5:16",
        ),
        (
            "type: semantic-diff\n      criteria: it compiles",
            "judge-ci.yml:5:17",
        ),
    ];
    for (check, at) in cases {
        let err = refused(
            &format!("name: x\njury:\n  checks:\n    - {check}\n"),
            &[
                at,
                "must be a list of strings, found the scalar",
                "write a YAML list",
            ],
        );
        assert_eq!(
            err.matches("must be a list").count(),
            1,
            "reported once:\n{err}"
        );
    }
    // Lists stay accepted, a task file's `setup`/`post` refuse a scalar too.
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            (
                "judge-ci.yml",
                "name: x\njury:\n  checks:\n    - type: maven-build\n      goals: [clean, \"7\"]\n",
            ),
            (
                "task.yaml",
                "schema: bench.task.v1\nid: t\ninstruction: do it\nsetup: ./mvnw -q compile\npost:\n  - ok\n",
            ),
        ],
    );
    let o = judge_ci(dir.path(), &["validate"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = judge_ci(dir.path(), &["validate", "--task", "task.yaml"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("task.yaml:4:8") && err.contains("setup must be a list of strings"),
        "{err}"
    );
}

#[test]
fn unknown_type_lists_the_known_ones() {
    refused(
        "name: x\njury:\n  checks:\n    - type: fiel-exists\n      path: a\n",
        &[
            "judge-ci.yml:4:13",
            "unknown check type 'fiel-exists'",
            "did you mean 'file-exists'?",
            "maven-build",
        ],
    );
}

#[test]
fn missing_required_key() {
    refused(
        "name: x\njury:\n  checks:\n    - type: file-exists\n",
        &["judge-ci.yml:4:7", "needs the key 'path'"],
    );
    refused("name: x\n", &["has no `jury`"]);
}

#[test]
fn last_tier_must_be_final_and_tier_names_unique() {
    refused(
        &with_marker(
            "    - name: first\n      policy: ACCEPT_ON_ALL_PASS\n      checks:\n        - type: file-exists\n          path: a\n",
        ),
        &[
            "judge-ci.yml:8:13",
            "duplicate tier name 'first'",
            "judge-ci.yml:9:15",
            "the last tier must be FINAL_TIER",
        ],
    );
}

#[test]
fn a_reject_tier_whose_vote_can_outvote_a_fail_is_warned_about() {
    // The trap of jury-semantics §12.1: 2 PASS and 1 FAIL under majority stop with PASS.
    let ws = tempfile::tempdir().unwrap();
    let config = "name: x\njury:\n  tiers:\n    - name: gate\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {type: file-exists, path: a, name: a}\n        - {type: file-exists, path: b, name: b}\n        - {type: file-exists, path: c, name: c}\n    - name: last\n      checks:\n        - {type: file-exists, path: a}\n";
    write_tree(ws.path(), &[("judge-ci.yml", config), ("a", ""), ("b", "")]);
    let o = judge_ci(ws.path(), &["--dry-run", "--format", "json"]);
    let err = stderr(&o);
    assert!(
        err.contains("judge-ci.yml:5:15")
            && err.contains("its majority vote decides what it stops with")
            && err.contains("voting: {strategy: all-must-pass}"),
        "{err}"
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        report["interpretation"]["reading"], "ACCEPTED",
        "what the warning is about: c is missing, and the subject is accepted"
    );
    // With all-must-pass, the same tier rejects, and nothing is said.
    let strict = config.replace(
        "      policy: REJECT_ON_ANY_FAIL\n",
        "      policy: REJECT_ON_ANY_FAIL\n      voting: {strategy: all-must-pass}\n",
    );
    write_tree(ws.path(), &[("judge-ci.yml", &strict)]);
    let o = judge_ci(ws.path(), &["--dry-run", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

#[test]
fn nan_and_negative_weights() {
    refused(
        &with_marker("          weight: .nan\n"),
        &["judge-ci.yml:8:19", "finite"],
    );
    refused(
        &with_marker("          weight: -2\n"),
        &["judge-ci.yml:8:19", "must not be negative"],
    );
}

#[test]
fn capable_seat_under_refuse() {
    refused(
        &with_marker("          not-applicable-when: \"the change has no Java sources\"\n"),
        &[
            "judge-ci.yml:8:32",
            "refuses exclusions",
            "not-applicable: exclude",
        ],
    );
}

#[test]
fn threshold_out_of_range_and_conjunctive_without_one() {
    refused(
        "name: x\njury:\n  voting: {strategy: average, threshold: 1.5}\n  checks:\n    - type: file-exists\n      path: a\n",
        &["judge-ci.yml:3:42", "within [0.0, 1.0]"],
    );
    refused(
        "name: x\njury:\n  voting: {strategy: conjunctive}\n  checks:\n    - type: file-exists\n      path: a\n",
        &["judge-ci.yml:3:12", "requires a threshold"],
    );
}

#[test]
fn bad_duration() {
    refused(
        &with_marker("          timeout: 5m\n"),
        &["judge-ci.yml:8:20", "not an ISO-8601 duration", "PT5M"],
    );
}

#[test]
fn paths_that_escape_the_workspace() {
    let base = "name: x\njury:\n  checks:\n    - type: file-exists\n      path: ";
    refused(
        &format!("{base}../x\n"),
        &["judge-ci.yml:5:13", "escapes the workspace"],
    );
    refused(
        &format!("{base}/etc/passwd\n"),
        &["judge-ci.yml:5:13", "is absolute"],
    );

    // A symlink out is the workspace's, not the config's: the check that reads through it
    // fails on it (never following it), and the run is a rejection, not a bad config (attack
    // finding newer F22: "could not run" left the task out of a suite's pass rate).
    let ws = tempfile::tempdir().unwrap();
    let cfg = with_marker(
        "    - name: files\n      checks:\n        - type: file-content\n          path: conf/passwd\n          expected: root\n",
    );
    write_tree(ws.path(), &[("judge-ci.yml", &cfg)]);
    std::os::unix::fs::symlink("/etc", ws.path().join("conf")).unwrap();
    let o = judge_ci(ws.path(), &["--dry-run", "--format", "json"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let j = &r["verdict"]["individualByName"]["file-content"];
    assert_eq!(j["status"], "fail", "{j}");
    assert!(
        j["reasoning"]
            .as_str()
            .unwrap()
            .contains("not a regular file, never read: conf (symlink)"),
        "{j}"
    );
}

#[test]
fn missing_workspace_reference_and_config() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[(
            "judge-ci.yml",
            "name: x\njury:\n  checks:\n    - type: file-exists\n      path: a\n",
        )],
    );
    let o = judge_ci(dir.path(), &["--dry-run", "--workspace", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("workspace folder nope does not exist"),
        "{}",
        stderr(&o)
    );
    let o = judge_ci(dir.path(), &["--dry-run", "--reference", "./gone"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("the folder ./gone does not exist"),
        "{}",
        stderr(&o)
    );
    // Not a folder and no repository around: named as a revision that cannot be had.
    let o = judge_ci(dir.path(), &["--dry-run", "--reference", "gone"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("'gone' is not a folder")
            && stderr(&o).contains("not inside a git repository"),
        "{}",
        stderr(&o)
    );
    let empty = tempfile::tempdir().unwrap();
    let o = judge_ci(empty.path(), &["--dry-run"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no configuration found"),
        "{}",
        stderr(&o)
    );
    let o = judge_ci(dir.path(), &["--dry-run", "--format", "yaml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--format"), "{}", stderr(&o));
}

#[test]
fn a_task_file_that_is_not_a_task() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            (
                "judge-ci.yml",
                "name: x\njury:\n  checks:\n    - type: file-exists\n      path: a\n",
            ),
            (
                "other.yml",
                "schema: bench.benchmark.v1\nname: y\njury:\n  checks: []\n",
            ),
        ],
    );
    let o = judge_ci(dir.path(), &["--dry-run", "--task", "other.yml"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("other.yml:1:9")
            && err.contains("is not a task file")
            && err.contains("--config"),
        "{err}"
    );
}

/// Every token set's unknown value is refused at its own line and column, naming the valid
/// tokens, and all of them in one load.
#[test]
fn every_unknown_token_is_reported_at_once_with_the_valid_ones() {
    let yaml = "\
name: t
protected-action: explode
report:
  comment: loud
  fail-on: sometimes
llm:
  provider: acme
  injection: shrug
jury:
  tiers:
    - name: a
      policy: STOP
      voting: {strategy: plurality, tie: COIN, errors: swallow, not-applicable: skip}
      checks:
        - {type: file-content, path: a, expected: x, match: FUZZY}
        - {type: ast-diff, aspects: [types, colours]}
        - {type: pom-diff, aspects: [parent, licence]}
        - {type: llm, output: poem}
    - name: b
      checks:
        - {type: file-exists, path: a}
diagnostics:
  rules:
    - {status: PASS, category: Tool}
    - {category: Luck}
";
    let err = refused(yaml, &[]);
    // (the unknown word, which is unique in the file; the help that must follow it)
    let expected: &[(&str, &str)] = &[
        ("explode", "valid: report, fail"),
        ("loud", "valid: update, recreate, minimize, off"),
        ("sometimes", "valid: fail, not-pass, never, error"),
        ("acme", "valid: anthropic, openai"),
        ("shrug", "valid: abstain, fail, report"),
        (
            "STOP",
            "valid: REJECT_ON_ANY_FAIL, ACCEPT_ON_ALL_PASS, FINAL_TIER",
        ),
        (
            "plurality",
            "valid: majority, consensus, all-must-pass, average, median, weighted-average, conjunctive",
        ),
        ("COIN", "valid: PASS, FAIL, ABSTAIN"),
        (
            "swallow",
            "valid: propagate, treat-as-fail, treat-as-abstain, ignore",
        ),
        ("skip", "valid: refuse, exclude, treat-as-fail"),
        ("FUZZY", "valid: EXACT, CONTAINS, REGEX"),
        (
            "colours",
            "valid: types, annotations, signatures, fields, bodies",
        ),
        (
            "licence",
            "valid: parent, dependencies, plugins, properties, java-version",
        ),
        ("poem", "valid: verdict, score, criteria"),
        ("PASS", "valid: FAIL, ABSTAIN, NOT_APPLICABLE, ERROR"),
        (
            "Luck",
            "valid: Knowledge, Analysis, Planning, Execution, Tool, Prompt, Evaluation, Environment",
        ),
    ];
    for (word, valid) in expected {
        let (line, column) = yaml
            .lines()
            .enumerate()
            .find_map(|(i, l)| l.find(&format!(" {word}")).map(|c| (i + 1, c + 2)))
            .unwrap();
        assert!(
            err.contains(&format!("judge-ci.yml:{line}:{column}")),
            "no error at {line}:{column} for '{word}':\n{err}"
        );
        assert!(
            err.contains(&format!("'{word}' is not valid")),
            "{word}:\n{err}"
        );
        assert!(err.contains(valid), "no '{valid}' for '{word}':\n{err}");
    }
    assert_eq!(err.matches("is not valid").count(), expected.len(), "{err}");
}

#[test]
fn every_problem_is_reported_at_once() {
    let err = refused(
        "name: x\njury:\n  tiers:\n    - name: a\n      voting: {strategy: averge}\n      checks:\n        - type: command\n          run: \"true\"\n          weight: -1\n    - name: a\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {type: file-exists, path: ../up, timeout: soon}\n",
        &[
            "'averge' is not valid",
            "must not be negative",
            "duplicate tier name",
            "FINAL_TIER",
            "escapes the workspace",
            "soon",
        ],
    );
    assert!(err.matches("error:").count() >= 6, "{err}");
}

#[test]
fn every_shared_fixture_validates() {
    let root = common::repo_root().join("tests/fixtures/bench");
    let mut seen = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let bench = dir.join("benchmark.yaml");
        let o = judge_ci(&dir, &["validate", "--config", bench.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}: {}",
            bench.display(),
            stderr(&o)
        );
        assert!(stdout(&o).contains("valid"), "{}", stdout(&o));
        for task in std::fs::read_dir(dir.join("tasks")).into_iter().flatten() {
            let t = task.unwrap().path().join("task.yaml");
            let o = judge_ci(
                &dir,
                &[
                    "validate",
                    "--config",
                    bench.to_str().unwrap(),
                    "--task",
                    t.to_str().unwrap(),
                ],
            );
            assert_eq!(o.status.code(), Some(0), "{}: {}", t.display(), stderr(&o));
        }
        seen += 1;
    }
    assert_eq!(seen, 3);
}

#[test]
fn committed_config_schema_is_current() {
    let o = judge_ci(Path::new("."), &["schema"]);
    assert_eq!(o.status.code(), Some(0));
    let committed =
        std::fs::read_to_string(common::repo_root().join("schemas/config.v1.json")).unwrap();
    assert_eq!(
        stdout(&o),
        committed,
        "schemas/config.v1.json is stale: run `judge-ci schema > schemas/config.v1.json`"
    );
    let schema: serde_json::Value = serde_json::from_str(&committed).unwrap();
    jsonschema::validator_for(&schema).expect("the config schema is itself valid");
}

#[test]
fn committed_config_reference_is_current() {
    let o = judge_ci(Path::new("."), &["schema", "--format", "markdown"]);
    assert_eq!(o.status.code(), Some(0));
    let committed =
        std::fs::read_to_string(common::repo_root().join("docs/config-reference.md")).unwrap();
    assert_eq!(
        stdout(&o),
        committed,
        "docs/config-reference.md is stale: run `judge-ci schema --format markdown > docs/config-reference.md`"
    );
}

#[test]
fn interpret_reads_stored_verdicts_and_garbage_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            (
                "old.json",
                r#"{"aggregated":{"status":"PASS"},"subVerdicts":[]}"#,
            ),
            ("bad.json", "{not json"),
            (
                "weird.json",
                r#"{"aggregated":{"status":"error"},"compositeAttempts":[7]}"#,
            ),
        ],
    );
    let o = judge_ci(dir.path(), &["interpret", "old.json"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Reading: ACCEPTED"), "{}", stdout(&o));
    let o = judge_ci(dir.path(), &["interpret", "weird.json", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("\"NOT_ASSESSED\"") && stdout(&o).contains("UNPARSEABLE"),
        "{}",
        stdout(&o)
    );
    let o = judge_ci(dir.path(), &["interpret", "bad.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.json:1:2"), "{}", stderr(&o));
}

/// Attack finding F15: a misspelt or misplaced security setting at the top level (where
/// unknown keys are only warned about, as agent-bench ignores them) would leave the run
/// without it — `sandbx: {require: …}` fails open. A key that is near a known one, or that
/// names a setting of a section, is an error at its line and column; other unknown keys
/// stay warnings.
#[test]
fn a_misspelt_or_misplaced_top_level_setting_is_an_error_not_a_warning() {
    let jury = "jury:\n  checks:\n    - type: command\n      run: touch ran.marker\n";
    refused(
        &format!("name: x\nsandbx:\n  require: [landlock]\n{jury}"),
        &[
            "judge-ci.yml:2:1",
            "unknown key 'sandbx'",
            "did you mean 'sandbox'?",
        ],
    );
    refused(
        &format!("name: x\nSandbox:\n  network: false\n{jury}"),
        &[
            "judge-ci.yml:2:1",
            "unknown key 'Sandbox'",
            "did you mean 'sandbox'?",
        ],
    );
    refused(
        &format!("name: x\nrequire: [landlock]\n{jury}"),
        &["judge-ci.yml:2:1", "unknown key 'require'", "sandbox"],
    );
    refused(
        &format!("name: x\nfail-on: never\n{jury}"),
        &["judge-ci.yml:2:1", "unknown key 'fail-on'", "report"],
    );
    // A key judge-ci knows nothing about is ignored with a warning (agent-bench's files
    // load unchanged).
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[("judge-ci.yml", &format!("name: x\nx-owner: team-a\n{jury}"))],
    );
    let o = judge_ci(ws.path(), &["validate"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("unknown key 'x-owner'") && err.contains("ignored"),
        "{err}"
    );
}

/// The conventional metadata keys judges read (`baselineCoverage`, `targetClassVersion`) are
/// typed when the config is read: a value no judge can use is an error at its line, naming
/// what would be valid, not a silent "no baseline" ABSTAIN at the first vote (issue 29,
/// typed context fields). Other metadata keys stay free-form.
#[test]
fn a_conventional_metadata_key_no_judge_can_use_is_refused_at_its_line() {
    let jury = "jury:\n  checks:\n    - type: command\n      run: touch ran.marker\n";
    refused(
        &format!("name: x\nmetadata:\n  baselineCoverage: lots\n{jury}"),
        &[
            "judge-ci.yml:3:21",
            "metadata.baselineCoverage is \"lots\"",
            "a number from 0 to 100",
        ],
    );
    refused(
        &format!("name: x\nmetadata:\n  baselineCoverage: 187.5\n{jury}"),
        &["judge-ci.yml:3:21", "metadata.baselineCoverage is 187.5"],
    );
    refused(
        &format!("name: x\nmetadata:\n  owner: me\n  targetClassVersion: 17\n{jury}"),
        &[
            "judge-ci.yml:4:23",
            "metadata.targetClassVersion is 17",
            "61 is Java 17",
        ],
    );
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[(
            "judge-ci.yml",
            &format!(
                "name: x\nmetadata:\n  owner: me\n  baselineCoverage: \"87.5%\"\n  targetClassVersion: 61\n{jury}"
            ),
        )],
    );
    let o = judge_ci(ws.path(), &["validate"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// G10-8: `fence-exec --help` prints its help; it never runs a program called `--help`.
#[test]
fn fence_exec_help_is_help() {
    let tmp = tempfile::tempdir().unwrap();
    for flag in ["--help", "-h"] {
        let o = judge_ci(tmp.path(), &["fence-exec", flag]);
        assert_eq!(o.status.code(), Some(0), "{flag}: {}", stderr(&o));
        assert!(
            stdout(&o).contains("Usage: judge-ci fence-exec"),
            "{flag}: {}",
            stdout(&o)
        );
    }
}

/// G10-12: `compare --tolerance` takes a finite number from 0 below 1; NaN, infinity, 1 and
/// negative values are refused as bad input (exit 2) naming the flag.
#[test]
fn compare_refuses_a_tolerance_outside_its_range() {
    let tmp = tempfile::tempdir().unwrap();
    for bad in ["NaN", "inf", "1", "-0.5", "x"] {
        let o = judge_ci(
            tmp.path(),
            &[
                "compare",
                "--baseline",
                "a.json",
                "b.json",
                &format!("--tolerance={bad}"),
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("--tolerance"), "{bad}: {}", stderr(&o));
    }
}
