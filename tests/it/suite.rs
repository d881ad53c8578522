//! Suites end to end: 40 generated tasks (accepted, rejected, not assessed, not applicable)
//! judged as one run and as 4 shards merged — the same suite report byte for byte; merge
//! errors that name the shard or task; `compare` classifying every kind of change and gating
//! on regressions; filters.

use crate::common;

use std::path::Path;

use serde_json::{Value, json};

const BENCH: &str = "schema: bench.benchmark.v1\nname: gen\njury:\n  tiers:\n    - name: files\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {type: file-exists, path: judge.sh}\n    - name: verdict\n      policy: FINAL_TIER\n      voting: {not-applicable: exclude}\n      checks:\n        - {type: external, name: oracle, run: ./judge.sh, not-applicable-when: \"the task says it is out of scope\"}\n";

const JUDGE: &str = "#!/bin/sh\ncat > /dev/null\ncase \"$(cat verdict)\" in\n  pass) echo '{\"status\":\"pass\",\"score\":1.0,\"reasoning\":\"ok\"}' ;;\n  low) echo '{\"status\":\"pass\",\"score\":0.6,\"reasoning\":\"barely\"}' ;;\n  fail) echo '{\"status\":\"fail\",\"score\":0.0,\"reasoning\":\"wrong answer\"}' ;;\n  na) echo '{\"status\":\"not_applicable\",\"reasoning\":\"out of scope\"}' ;;\n  *) echo 'this is not json' ;;\nesac >&3\n";

/// The verdict of generated task `i`: pass, fail, error, not applicable in turn.
fn kind(i: usize) -> &'static str {
    ["pass", "fail", "error", "na"][i % 4]
}

fn set_verdict(root: &Path, id: &str, v: &str) {
    std::fs::write(root.join(format!("bench/tasks/{id}/workspace/verdict")), v).unwrap();
}

fn add_task(root: &Path, i: usize, verdict: &str) {
    let id = format!("t{i:02}");
    let dir = root.join("bench/tasks").join(&id);
    common::write_tree(
        &dir,
        &[
            (
                "task.yaml",
                &format!(
                    "schema: bench.task.v1\nid: {id}\ndifficulty: {}\ninstruction: Answer task {i}.\nmetadata:\n  tags: [{}]\n",
                    if i < 10 { "hard" } else { "easy" },
                    if i.is_multiple_of(2) { "even" } else { "odd" }
                ),
            ),
            ("workspace/judge.sh", JUDGE),
            ("workspace/verdict", verdict),
            ("reference/README", "the reference\n"),
        ],
    );
    common::chmod_x(&dir.join("workspace/judge.sh"));
}

/// A layout with 40 tasks.
fn layout() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    common::write_tree(root.path(), &[("bench/benchmark.yaml", BENCH)]);
    for i in 0..40 {
        add_task(root.path(), i, kind(i));
    }
    root
}

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    common::judge_ci(root, args)
}

fn suite(root: &Path, out: &str, extra: &[&str]) -> Value {
    let mut args = vec!["suite", "bench", "--out", out, "--jobs", "2"];
    args.extend_from_slice(extra);
    let o = run(root, &args);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    serde_json::from_str(&std::fs::read_to_string(root.join(out).join("suite.json")).unwrap())
        .unwrap()
}

#[test]
fn four_shards_merged_equal_one_run() {
    let l = layout();
    let root = l.path();
    let whole = suite(root, "whole", &["--html"]);
    let t = &whole["totals"];
    assert_eq!(
        (
            t["tasks"].as_u64(),
            t["accepted"].as_u64(),
            t["rejected"].as_u64(),
            t["notAssessed"].as_u64(),
            t["notApplicable"].as_u64()
        ),
        (Some(40), Some(10), Some(10), Some(10), Some(10)),
        "{t:#}"
    );
    // The not-assessed tasks broke the external judge's protocol (a judge the subject's
    // workspace can break): they count against the pass rate (trust.md point 12).
    assert_eq!(
        t["passRate"]
            .as_f64()
            .map(|r| (r * 1000.0).round() / 1000.0),
        Some(0.333),
        "accepted of accepted + rejected + not assessed by the subject's doing"
    );
    let tiers = whole["tiers"].as_array().unwrap();
    assert_eq!(tiers[1]["name"], "verdict");
    assert_eq!(tiers[1]["failed"], 10);
    assert!(root.join("whole/tasks/gen/t00/report.json").is_file());
    let html = std::fs::read_to_string(root.join("whole/suite.html")).unwrap();
    assert!(
        html.contains("<svg") && !html.contains("xychart-beta"),
        "charts are drawn"
    );
    let md = std::fs::read_to_string(root.join("whole/suite.md")).unwrap();
    assert!(
        md.contains("xychart-beta") && md.contains("**40 task(s)**"),
        "{md}"
    );

    let mut sizes = Vec::new();
    for k in 1..=4 {
        let s = suite(root, &format!("shard{k}"), &["--shard", &format!("{k}/4")]);
        sizes.push(s["totals"]["tasks"].as_u64().unwrap());
        assert_eq!(s["suite"]["shard"], format!("{k}/4"));
    }
    assert_eq!(sizes.iter().sum::<u64>(), 40, "{sizes:?}");
    assert!(sizes.iter().all(|&n| n > 0), "{sizes:?}");
    let o = run(
        root,
        &[
            "merge", "shard1", "shard2", "shard3", "shard4", "--out", "merged",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert_eq!(
        std::fs::read_to_string(root.join("merged/suite.json")).unwrap(),
        std::fs::read_to_string(root.join("whole/suite.json")).unwrap(),
        "the merged shards are the whole run"
    );
    assert!(root.join("merged/tasks/gen/t39/report.json").is_file());

    // Merge errors name what is wrong.
    let o = run(
        root,
        &["merge", "shard1", "shard2", "shard3", "--out", "m2"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("shard 4/4 is missing"),
        "{}",
        common::stderr(&o)
    );
    let o = run(
        root,
        &[
            "merge", "shard1", "shard1", "shard2", "shard3", "shard4", "--out", "m3",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("shard 1/4 is given twice"),
        "{}",
        common::stderr(&o)
    );
    let o = run(root, &["merge", "whole", "shard1", "--out", "m4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("different splits"),
        "{}",
        common::stderr(&o)
    );
    for dir in ["shard1", "merged"] {
        let m: Value = serde_json::from_str(
            &std::fs::read_to_string(root.join(dir).join("manifest.json")).unwrap(),
        )
        .unwrap();
        common::assert_report_schema_file(&m, "schemas/shard-manifest.v1.json");
    }
    forged_shards_are_refused(root);
    // One shard compared as the whole suite would only miss the others' tasks.
    let o = run(root, &["compare", "--baseline", "whole", "shard1"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("the current suite is shard 1/4"),
        "{}",
        common::stderr(&o)
    );
}

/// A copy of shard K's folder as `name`, changed by `edit`, merged with the other three: exit
/// 2 with `says` in the error, nothing merged.
fn refuse_forged(root: &Path, k: usize, name: &str, edit: impl FnOnce(&Path), says: &str) {
    let forged = root.join(name);
    common::copy_tree(&root.join(format!("shard{k}")), &forged);
    edit(&forged);
    let mut args = vec!["merge".to_string()];
    for i in 1..=4 {
        args.push(if i == k {
            name.to_string()
        } else {
            format!("shard{i}")
        });
    }
    args.extend(["--out".into(), format!("merged-{name}")]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(root, &args);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{name}: {err}");
    assert!(err.contains(says), "{name}: wanted {says:?} in\n{err}");
    assert!(
        !root.join(format!("merged-{name}/suite.json")).exists(),
        "{name}"
    );
}

/// Edits `dir/suite.json` as JSON.
fn edit_suite(dir: &Path, f: impl FnOnce(&mut Value)) {
    let p = dir.join("suite.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap() + "\n").unwrap();
}

/// The attacks on merge (issue 27): a partial shard, a rosier suite.json, an altered task
/// report, a truncated suite.json, a shard of another run or another suite, a folder with no
/// manifest. Each is refused and named.
fn forged_shards_are_refused(root: &Path) {
    let s2: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("shard2/suite.json")).unwrap())
            .unwrap();
    let victim = s2["tasks"][0]["key"].as_str().unwrap().to_string();
    let (rejected, was) = s2["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|t| {
            let r = t["reading"].as_str()?;
            Some((t["key"].as_str()?.to_string(), r.to_string()))
        })
        .expect("a judged task in shard 2");
    let rosier = if was == "ACCEPTED" {
        "REJECTED"
    } else {
        "ACCEPTED"
    };
    // A task dropped from the shard (its result and its report): the manifest names it.
    refuse_forged(
        root,
        2,
        "partial",
        |d| {
            edit_suite(d, |v| {
                v["tasks"].as_array_mut().unwrap().remove(0);
            });
            let id = victim.split('/').nth(1).unwrap();
            std::fs::remove_dir_all(d.join("tasks/gen").join(id)).unwrap();
        },
        &format!("task {victim} has no result in suite.json"),
    );
    // The same with the manifest rewritten to own less: the suite still lists the task.
    refuse_forged(
        root,
        2,
        "partial-manifest",
        |d| {
            edit_suite(d, |v| {
                v["tasks"].as_array_mut().unwrap().remove(0);
            });
            let p = d.join("manifest.json");
            let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            m["owned"]
                .as_array_mut()
                .unwrap()
                .retain(|k| k != victim.as_str());
            std::fs::write(&p, m.to_string()).unwrap();
        },
        &format!("task {victim} of shard 2/4 is missing"),
    );
    // suite.json reads a task otherwise than the task's own report.
    refuse_forged(
        root,
        2,
        "rosier",
        |d| {
            edit_suite(d, |v| {
                for t in v["tasks"].as_array_mut().unwrap() {
                    if t["key"] == rejected.as_str() {
                        t["reading"] = rosier.into();
                    }
                }
            })
        },
        "suite.json is not the file the shard wrote",
    );
    // A task report altered after the shard wrote it.
    refuse_forged(
        root,
        2,
        "altered-report",
        |d| {
            let id = rejected.split('/').nth(1).unwrap();
            let p = d.join("tasks/gen").join(id).join("report.json");
            let text = std::fs::read_to_string(&p)
                .unwrap()
                .replace(&format!("\"{was}\""), &format!("\"{rosier}\""));
            std::fs::write(&p, text).unwrap();
        },
        "is not the report the shard wrote",
    );
    // A key that climbs out of the shard folder, and a link where a report folder's file is.
    refuse_forged(
        root,
        2,
        "climbing-key",
        |d| {
            edit_suite(d, |v| {
                v["tasks"][0]["key"] = "../../../payload".into();
                v["tasks"][0]["reportPath"] = "tasks/../../../payload/report.json".into();
            })
        },
        "is not benchmark/id",
    );
    refuse_forged(
        root,
        2,
        "linked-file",
        |d| {
            let id = victim.split('/').nth(1).unwrap();
            std::os::unix::fs::symlink(
                "/proc/self/environ",
                d.join("tasks/gen").join(id).join("env.txt"),
            )
            .unwrap();
        },
        "is not a regular file",
    );
    refuse_forged(
        root,
        3,
        "empty",
        |d| std::fs::write(d.join("suite.json"), "").unwrap(),
        "not a suite report",
    );
    refuse_forged(
        root,
        4,
        "no-manifest",
        |d| std::fs::remove_file(d.join("manifest.json")).unwrap(),
        "manifest.json: cannot be read",
    );
    refuse_forged(
        root,
        1,
        "other-run",
        |d| {
            let p = d.join("manifest.json");
            let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            m["runId"] = "999".into();
            std::fs::write(&p, m.to_string()).unwrap();
        },
        "by run 999: merge the shards of one run",
    );
    refuse_forged(
        root,
        1,
        "other-commit",
        |d| {
            let p = d.join("manifest.json");
            let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            m["headSha"] = "1".repeat(40).into();
            std::fs::write(&p, m.to_string()).unwrap();
        },
        "merge the shards of one commit",
    );
    // Attack finding G4: shards all of one run, merged in another (an older run's artifacts).
    let o = common::command(
        root,
        &[
            "merge",
            "shard1",
            "shard2",
            "shard3",
            "shard4",
            "--out",
            "merged-elsewhere",
        ],
    )
    .env("GITHUB_ACTIONS", "true")
    .env("GITHUB_RUN_ID", "333")
    .output()
    .unwrap();
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("and this merge runs in run 333"), "{err}");
    refuse_forged(
        root,
        1,
        "other-suite",
        |d| {
            let p = d.join("manifest.json");
            let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            m["suiteDigest"] = "0".repeat(64).into();
            std::fs::write(&p, m.to_string()).unwrap();
        },
        "is a shard of another suite",
    );
}

#[test]
fn compare_classifies_every_change_and_gates_on_regressions() {
    let l = layout();
    let root = l.path();
    suite(root, "base", &[]);
    set_verdict(root, "t00", "fail"); // accepted → rejected: regressed
    set_verdict(root, "t04", "low"); // accepted, score 1.0 → 0.6: regressed
    set_verdict(root, "t01", "pass"); // rejected → accepted: improved
    set_verdict(root, "t08", "error"); // accepted → not assessed: regressed (not judged)
    set_verdict(root, "t06", "fail"); // not assessed → rejected: its dominant gap changes
    std::fs::remove_dir_all(root.join("bench/tasks/t05")).unwrap(); // missing: regressed
    add_task(root, 40, "pass"); // new
    suite(root, "current", &[]);

    let o = run(
        root,
        &[
            "compare",
            "--baseline",
            "base",
            "current",
            "--format",
            "json",
            "--out",
            "cmp",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "four regressions fail the gate: {}",
        common::stderr(&o)
    );
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let of = |k: &str| {
        c["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["key"] == format!("gen/{k}"))
            .unwrap()["change"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(of("t00"), "REGRESSED");
    assert_eq!(of("t04"), "REGRESSED");
    assert_eq!(of("t01"), "IMPROVED");
    assert_eq!(
        of("t08"),
        "REGRESSED",
        "accepted in the baseline, now not assessed"
    );
    assert_eq!(of("t05"), "REGRESSED", "missing from the current run");
    assert_eq!(of("t40"), "NEW");
    // Not assessed in both runs through an ERROR judge-ci cannot place (so one the subject
    // can cause): no pass either time, never "could not judge" (trust.md point 12, NC5-4).
    assert_eq!(
        of("t02"),
        "UNCHANGED",
        "not assessed by the subject's doing in both runs"
    );
    assert_eq!(of("t03"), "UNCHANGED");
    assert_eq!(c["regressions"], 4);
    assert_eq!(
        c["regressionKinds"],
        json!([
            ["worse-reading", 1],
            ["lower-score", 1],
            ["not-judged", 1],
            ["missing", 1]
        ])
    );
    assert!(
        common::stderr(&o).contains("4 task(s) regressed: 1 worse reading, 1 lower score, 1 task not judged where the baseline judged it, 1 task missing from the current run"),
        "{}",
        common::stderr(&o)
    );
    let unstable = c["unstable"].as_array().unwrap();
    assert!(
        unstable.iter().any(|u| u[0] == "gen/t06"),
        "the dominant gap of t06 moved: {unstable:?}"
    );
    assert_eq!(c["changes"][0]["change"], "REGRESSED", "regressions first");
    let md = std::fs::read_to_string(root.join("cmp/compare.md")).unwrap();
    assert!(
        md.contains("### Regressions (4)") && md.contains("accepted → rejected"),
        "{md}"
    );
    assert!(md.find("### Regressions").unwrap() < md.find("### Improved").unwrap());
    assert!(
        md.contains("Pass rate per tier: baseline, then current"),
        "{md}"
    );
    assert!(root.join("cmp/compare.html").is_file());

    let o = run(
        root,
        &[
            "compare",
            "--baseline",
            "base/suite.json",
            "current",
            "--max-regressions",
            "4",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "within the allowance");

    let o = run(root, &["compare", "--baseline", "nowhere", "current"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("nowhere"),
        "{}",
        common::stderr(&o)
    );

    // G10-19: the output folder's rules are run's: never written through a link (bad
    // input, nothing written where it leads), and one that cannot be made is the
    // instrument's failure (exit 3), since a later step reads it.
    std::fs::create_dir_all(root.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(root.join("elsewhere"), root.join("linked")).unwrap();
    std::fs::write(root.join("plain-file"), "").unwrap();
    let compare = |out: &str| {
        run(
            root,
            &[
                "compare",
                "--baseline",
                "base/suite.json",
                "current",
                "--max-regressions",
                "4",
                "--out",
                out,
            ],
        )
    };
    let o = compare("linked");
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("symbolic link"),
        "{}",
        common::stderr(&o)
    );
    assert_eq!(
        std::fs::read_dir(root.join("elsewhere")).unwrap().count(),
        0
    );
    let o = run(root, &["merge", "current", "--out", "linked/merged"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert_eq!(
        std::fs::read_dir(root.join("elsewhere")).unwrap().count(),
        0
    );
    let o = compare("plain-file/cmp");
    assert_eq!(o.status.code(), Some(3), "{}", common::stderr(&o));

    // G10-7: what a suite report says its tasks add up to is counted again from its tasks
    // (a forged pass rate of 100% beside a regression), and a task twice is refused.
    let mut forged: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("current/suite.json")).unwrap())
            .unwrap();
    let rate = forged["totals"]["passRate"].clone();
    forged["totals"]["passRate"] = 1.0.into();
    forged["totals"]["accepted"] = forged["totals"]["tasks"].clone();
    std::fs::create_dir_all(root.join("lying")).unwrap();
    std::fs::write(root.join("lying/suite.json"), forged.to_string()).unwrap();
    let o = run(
        root,
        &[
            "compare",
            "--baseline",
            "base/suite.json",
            "lying",
            "--format",
            "json",
            "--max-regressions",
            "4",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let c: Value = serde_json::from_str(&common::stdout(&o)).unwrap();
    assert_eq!(c["currentPassRate"], rate, "{c:#}");
    let first = forged["tasks"][0].clone();
    forged["tasks"].as_array_mut().unwrap().push(first);
    std::fs::write(root.join("lying/suite.json"), forged.to_string()).unwrap();
    let o = run(root, &["compare", "--baseline", "base/suite.json", "lying"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("appears more than once"),
        "{}",
        common::stderr(&o)
    );
}

#[test]
fn filters_and_bad_flags() {
    let l = layout();
    let root = l.path();
    let even = suite(root, "even", &["--filter", "tag:even"]);
    assert_eq!(even["totals"]["tasks"], 20);
    let hard = suite(
        root,
        "hard",
        &["--filter", "difficulty:hard", "--filter", "t0[0-4]"],
    );
    assert_eq!(hard["totals"]["tasks"], 5);
    for (args, says) in [
        (
            vec!["suite", "bench", "--shard", "5/4"],
            "K must be between 1 and N",
        ),
        (
            vec!["suite", "bench", "--filter", "colour:red"],
            "unknown field",
        ),
        (vec!["suite", "missing-dir"], "is not a folder"),
    ] {
        let o = run(root, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            common::stderr(&o).contains(says),
            "{args:?}: {}",
            common::stderr(&o)
        );
    }
}

/// Two benchmarks of one suite with different `sandbox` settings, their tasks judged at the
/// same time in one process: each task's subject process reaches the network as its own
/// config says, and each report's fence line describes its own process. (The fence was a
/// process global: the run that set `sandbox.network` last decided it for both.)
#[test]
fn concurrent_tasks_each_keep_their_own_sandbox() {
    // SAFETY: a getter.
    assert!(
        unsafe { libc::geteuid() } == 0,
        "a network namespace needs root or a user namespace; run the tests as root"
    );
    // A listener on this machine's loopback stands for every host a build could reach.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let root = tempfile::tempdir().unwrap();
    // Both runs have set up their fence by the time either connects (the sleep), so a shared
    // setting would be wrong for one of them whichever wrote it last.
    let check = format!(
        "        - {{type: command, name: reach, run: \"sleep 2; bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}'\"}}\n"
    );
    for (bench, sandbox) in [("cut", "sandbox:\n  network: false\n"), ("open", "")] {
        common::write_tree(
            &root.path().join("bench").join(bench),
            &[
                (
                    "benchmark.yaml",
                    &format!(
                        "schema: bench.benchmark.v1\nname: {bench}\n{sandbox}jury:\n  tiers:\n    - name: net\n      policy: FINAL_TIER\n      checks:\n{check}"
                    ),
                ),
                (
                    "tasks/t/task.yaml",
                    "schema: bench.task.v1\nid: t\ninstruction: Reach the network.\n",
                ),
                ("tasks/t/workspace/README", "subject\n"),
            ],
        );
    }
    let o = common::judge_ci(
        root.path(),
        &["suite", "bench", "--out", "out", "--jobs", "2"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let task = |bench: &str| common::report(&root.path().join("out/tasks").join(bench).join("t"));
    let (cut, open) = (task("cut"), task("open"));
    let status = |r: &Value| {
        r["tiers"][0]["judges"][0]["status"]
            .as_str()
            .map(str::to_string)
    };
    let fence = |r: &Value| r["fence"].as_str().unwrap_or_default().to_string();
    assert_eq!(
        status(&cut).as_deref(),
        Some("fail"),
        "the task with network: false reached the network: {}",
        fence(&cut)
    );
    assert_eq!(
        status(&open).as_deref(),
        Some("pass"),
        "the task without a sandbox was cut off the network: {}",
        fence(&open)
    );
    assert!(fence(&cut).contains("no network"), "{}", fence(&cut));
    assert!(
        fence(&open).contains("landlock") && !fence(&open).contains("no network"),
        "{}",
        fence(&open)
    );
    let accepted = std::iter::from_fn(|| listener.accept().ok()).count();
    assert_eq!(accepted, 1, "only the open task's connection arrived");
}

#[test]
fn a_task_the_subject_made_unjudgeable_counts_against_it_and_only_the_instruments_failures_leave_the_pass_rate()
 {
    // Three tasks: one passes; in one the subject's own check runs past its time limit (the
    // subject made it unjudgeable); in one the check's program is not installed (judge-ci's
    // instrument failed). Only the last leaves the pass rate (trust.md point 12).
    let root = tempfile::tempdir().unwrap();
    let bench = "schema: bench.benchmark.v1\nname: esc\njury:\n  tiers:\n    - name: t\n      policy: FINAL_TIER\n      checks:\n        - {type: command, name: check, run: [sh, ./check.sh], timeout: PT2S}\n";
    common::write_tree(root.path(), &[("bench/benchmark.yaml", bench)]);
    for (id, script) in [("ok", "exit 0\n"), ("stall", "sleep 30\n"), ("gone", "")] {
        let dir = root.path().join("bench/tasks").join(id);
        common::write_tree(
            &dir,
            &[(
                "task.yaml",
                &format!("schema: bench.task.v1\nid: {id}\ninstruction: x\n"),
            )],
        );
        if script.is_empty() {
            // The same check, but its program is missing on this runner.
            common::write_tree(&dir, &[("benchmark.yaml", "")]);
            std::fs::remove_file(dir.join("benchmark.yaml")).unwrap();
            common::write_tree(&dir, &[("workspace/README", "x\n")]);
        } else {
            common::write_tree(&dir, &[("workspace/check.sh", script)]);
        }
    }
    // The missing program: its own benchmark, so its check names a tool the runner lacks.
    let gone_bench = "schema: bench.benchmark.v1\nname: gone\njury:\n  tiers:\n    - name: t\n      policy: FINAL_TIER\n      checks:\n        - {type: command, name: check, run: [judge-ci-no-such-tool-12], timeout: PT2S}\n";
    std::fs::rename(
        root.path().join("bench/tasks/gone"),
        root.path().join("gone-task"),
    )
    .unwrap();
    common::write_tree(root.path(), &[("bench2/gone/benchmark.yaml", gone_bench)]);
    std::fs::create_dir_all(root.path().join("bench2/gone/tasks")).unwrap();
    std::fs::rename(
        root.path().join("gone-task"),
        root.path().join("bench2/gone/tasks/gone"),
    )
    .unwrap();
    std::fs::rename(root.path().join("bench"), root.path().join("bench2/esc")).unwrap();
    let o = common::judge_ci(
        root.path(),
        &["suite", "bench2", "--out", "out", "--jobs", "2"],
    );
    let s: Value = serde_json::from_str(
        &std::fs::read_to_string(root.path().join("out/suite.json"))
            .unwrap_or_else(|e| panic!("{e}: {}", common::stderr(&o))),
    )
    .unwrap();
    let t = &s["totals"];
    assert_eq!(t["tasks"], 3, "{t:#}");
    assert_eq!(t["notAssessed"], 2, "{t:#}");
    let rate = t["passRate"].as_f64().unwrap();
    assert!((rate - 0.5).abs() < 1e-9, "1 accepted of 2 counted: {t:#}");
    let gone = s["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == "gone")
        .unwrap();
    assert_eq!(
        gone["instrumentFailed"], true,
        "only the missing tool is the instrument's: {gone:#}"
    );
    let md = std::fs::read_to_string(root.path().join("out/suite.md")).unwrap_or_default();
    assert!(md.contains("Left out of the pass rate"), "{md}");
    // The stalled task is said to count against the subject, never as judge-ci's failure
    // (attack finding NC5-4); the missing tool keeps the instrument's wording.
    assert!(
        md.contains("2 not assessed (1 of them counted against the subject"),
        "{md}"
    );
    let row = md
        .lines()
        .find(|l| l.contains("stall"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        row.contains("⛔ not assessed, counted against the subject"),
        "{row}"
    );
    let row = md
        .lines()
        .find(|l| l.starts_with("| `") && l.contains("gone"))
        .unwrap();
    assert!(row.contains("🛠️"), "{row}");

    // G10-9: against a baseline that accepted the task, a run whose instrument could not
    // judge it says nothing about a regression: compare exits 3 (not 0), so the run neither
    // passes the gate nor becomes the next baseline.
    let mut base = s.clone();
    for t in base["tasks"].as_array_mut().unwrap() {
        if t["id"] == "gone" {
            t["reading"] = "ACCEPTED".into();
            t["instrumentFailed"] = false.into();
            t.as_object_mut().unwrap().remove("error");
        }
    }
    std::fs::write(
        root.path().join("base.json"),
        serde_json::to_string(&base).unwrap(),
    )
    .unwrap();
    let o = common::judge_ci(
        root.path(),
        &["compare", "--baseline", "base.json", "out/suite.json"],
    );
    assert_eq!(o.status.code(), Some(3), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("could not be judged where the baseline"),
        "{}",
        common::stderr(&o)
    );
}

/// trust.md point 12 (attack findings F21, F34): in a suite, a task whose tests tier ends
/// ERROR because the subject's tests run past the limit, and one whose `post` command (the
/// hidden tests) fails, are accepted by their last tier but are no pass: not in the pass rate,
/// a regression of kind subject-error against a baseline that accepted them cleanly.
#[test]
fn an_acceptance_with_an_error_the_subject_caused_is_no_pass_in_a_suite() {
    let root = tempfile::tempdir().unwrap();
    let bench = "schema: bench.benchmark.v1\nname: ae\njury:\n  tiers:\n    - name: tests\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {type: command, name: tests, run: [sh, ./tests.sh], timeout: PT2S}\n    - name: final\n      policy: FINAL_TIER\n      checks:\n        - {type: command, name: final, run: \"true\"}\n";
    common::write_tree(root.path(), &[("bench/benchmark.yaml", bench)]);
    let task = |id: &str, tests: &str, hidden: &str| {
        let dir = root.path().join("bench/tasks").join(id);
        common::write_tree(
            &dir,
            &[
                (
                    "task.yaml",
                    &format!(
                        "schema: bench.task.v1\nid: {id}\ninstruction: x\npost:\n  - sh ./hidden.sh\n"
                    ),
                ),
                ("workspace/tests.sh", tests),
                ("workspace/hidden.sh", hidden),
            ],
        );
    };
    task("stall", "exit 0\n", "exit 0\n");
    task("hidden", "exit 0\n", "exit 0\n");
    let base = suite(root.path(), "base", &[]);
    assert_eq!(base["totals"]["passRate"], 1.0, "{:#}", base["totals"]);
    task("stall", "sleep 30\n", "exit 0\n");
    task("hidden", "exit 0\n", "echo 3 hidden tests failed; exit 1\n");
    let cur = suite(root.path(), "cur", &[]);
    let t = &cur["totals"];
    assert_eq!(t["accepted"], 2, "the readings stay the library's: {t:#}");
    assert_eq!(t["acceptedWithSubjectError"], 2, "{t:#}");
    assert_eq!(t["passRate"], 0.0, "{t:#}");
    for x in cur["tasks"].as_array().unwrap() {
        assert_eq!(x["reading"], "ACCEPTED", "{x:#}");
        assert!(x["subjectError"].is_string(), "{x:#}");
        assert_eq!(x["exitCode"], 3, "the task's own gate fails: {x:#}");
    }
    let md = std::fs::read_to_string(root.path().join("cur/suite.md")).unwrap();
    assert!(
        md.contains("an ERROR the change can cause counts against it"),
        "{md}"
    );
    // Each task's row says it is no pass, never a bare ✅ accepted (NC5-8).
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| `")).collect();
    assert!(!rows.is_empty(), "{md}");
    for row in rows {
        assert!(
            row.contains("⛔ accepted, but no pass (an ERROR the subject can cause)"),
            "{row}"
        );
    }
    let o = run(
        root.path(),
        &["compare", "--baseline", "base", "cur", "--out", "cmp"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let c: Value = serde_json::from_str(
        &std::fs::read_to_string(root.path().join("cmp/compare.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(c["regressions"], 2, "{c:#}");
    assert_eq!(c["regressionKinds"][0][0], "subject-error", "{c:#}");
}

/// A task whose workspace folder is missing (the agent submitted nothing) counts against the
/// suite's pass rate and regresses an accepted baseline; it is no task that "could not run"
/// (trust.md point 12, attack finding F33).
#[test]
fn a_missing_submission_counts_against_the_task() {
    let root = tempfile::tempdir().unwrap();
    let bench = "schema: bench.benchmark.v1\nname: nw\njury:\n  checks:\n    - {type: command, name: ok, run: \"true\"}\n";
    common::write_tree(root.path(), &[("bench/benchmark.yaml", bench)]);
    for id in ["a", "b"] {
        common::write_tree(
            &root.path().join("bench/tasks").join(id),
            &[
                (
                    "task.yaml",
                    &format!("schema: bench.task.v1\nid: {id}\ninstruction: x\n"),
                ),
                ("workspace/README", "x\n"),
            ],
        );
    }
    suite(root.path(), "base", &[]);
    std::fs::remove_dir_all(root.path().join("bench/tasks/a/workspace")).unwrap();
    let o = run(root.path(), &["suite", "bench", "--out", "cur"]);
    let s: Value = serde_json::from_str(
        &std::fs::read_to_string(root.path().join("cur/suite.json"))
            .unwrap_or_else(|e| panic!("{e}: {}", common::stderr(&o))),
    )
    .unwrap();
    assert_eq!(s["totals"]["passRate"], 0.5, "{:#}", s["totals"]);
    let o = run(root.path(), &["compare", "--baseline", "base", "cur"]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
}

#[test]
fn a_workspace_that_is_a_link_to_its_reference_or_the_reference_itself_is_no_submission() {
    // Attack findings GA3 / NC14: `workspace -> reference` was judged as the subject's work
    // and accepted (the answer key submitted by reference), in `suite` and in `run`.
    let root = tempfile::tempdir().unwrap();
    let jury = "jury:\n  checks:\n    - {type: file-content, path: app.txt, expected: hello, match: CONTAINS}\n";
    let bench = format!("schema: bench.benchmark.v1\nname: ln\n{jury}");
    common::write_tree(
        root.path(),
        &[
            ("bench/benchmark.yaml", bench.as_str()),
            ("judge-ci.yml", &format!("name: ln\n{jury}")),
        ],
    );
    for id in ["a", "b"] {
        common::write_tree(
            &root.path().join("bench/tasks").join(id),
            &[
                (
                    "task.yaml",
                    &format!("schema: bench.task.v1\nid: {id}\ninstruction: x\n"),
                ),
                ("workspace/app.txt", "hellx\n"),
                ("reference/app.txt", "hello\n"),
            ],
        );
    }
    let b = root.path().join("bench/tasks/b");
    std::fs::remove_dir_all(b.join("workspace")).unwrap();
    std::os::unix::fs::symlink("reference", b.join("workspace")).unwrap();
    let o = run(root.path(), &["suite", "bench", "--out", "cur"]);
    let s: Value = serde_json::from_str(
        &std::fs::read_to_string(root.path().join("cur/suite.json"))
            .unwrap_or_else(|e| panic!("{e}: {}", common::stderr(&o))),
    )
    .unwrap();
    assert_eq!(s["totals"]["accepted"], 0, "{:#}", s["totals"]);
    assert_eq!(s["totals"]["passRate"], 0.0, "{:#}", s["totals"]);
    let task = s["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "b")
        .unwrap();
    assert!(
        task["subjectError"]
            .as_str()
            .is_some_and(|w| w.contains("symbolic link")),
        "{task:#}"
    );
    // `run` on the link, and on a folder inside the reference: refused, nothing judged. (The
    // reference named as its own workspace on the command line is its author's gold check:
    // judged, as example::the_reference_passes_every_tier_with_a_real_build does.)
    std::fs::create_dir_all(root.path().join("bench/tasks/a/reference/sub")).unwrap();
    for args in [
        vec![
            "--workspace",
            "bench/tasks/b/workspace",
            "--reference",
            "bench/tasks/b/reference",
        ],
        vec!["--workspace", "bench/tasks/b/workspace/"],
        vec![
            "--workspace",
            "bench/tasks/a/reference/sub",
            "--reference",
            "bench/tasks/a/reference",
        ],
    ] {
        let mut all = vec![
            "run",
            "--dry-run",
            "--config",
            "judge-ci.yml",
            "--out",
            "run-out",
        ];
        all.extend(&args);
        let o = run(root.path(), &all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", common::stderr(&o));
        assert!(
            common::stderr(&o).contains("not the subject's submission")
                || common::stderr(&o).contains("symbolic link"),
            "{args:?}: {}",
            common::stderr(&o)
        );
        assert!(!root.path().join("run-out/report.json").exists());
    }
}

#[test]
fn a_suite_in_a_pull_request_context_is_judged_by_the_bases_definitions() {
    // Attack findings F25/G2: the pull request loosens the benchmark's jury (the command its
    // task fails is gone) and rewrites the task's post command; in a pull-request context the
    // base's benchmark.yaml, task file and reference judge the pull request's workspace.
    let root = tempfile::tempdir().unwrap();
    let repo = root.path().join("repo");
    let strict = "schema: bench.benchmark.v1\nname: b\njury:\n  checks:\n    - {type: command, name: tests, run: \"sh ./test.sh\"}\n";
    common::write_tree(
        &repo,
        &[
            ("bench/benchmark.yaml", strict),
            (
                "bench/tasks/hard/task.yaml",
                "schema: bench.task.v1\nid: hard\ninstruction: make test.sh pass\n",
            ),
            ("bench/tasks/hard/workspace/test.sh", "exit 1\n"),
            ("bench/tasks/hard/reference/test.sh", "exit 0\n"),
        ],
    );
    let base = common::commit_all(&repo, "base");
    common::write_tree(
        &repo,
        &[
            (
                "bench/benchmark.yaml",
                "schema: bench.benchmark.v1\nname: b\njury:\n  checks:\n    - {type: command, name: tests, run: \"true\"}\n",
            ),
            (
                "bench/tasks/extra/task.yaml",
                "schema: bench.task.v1\nid: extra\ninstruction: a task only the pull request defines\n",
            ),
            ("bench/tasks/extra/workspace/test.sh", "exit 0\n"),
        ],
    );
    let head = common::commit_all(&repo, "the pull request");
    let runner = root.path().join("runner");
    std::fs::create_dir_all(&runner).unwrap();
    let event = common::pull_request_event(&runner, &base, &head);
    let suite_in = |out: &str, pr: bool| {
        let mut cmd = common::command(&repo, &["suite", "bench", "--out", out]);
        if pr {
            cmd.env("GITHUB_ACTIONS", "true")
                .env("GITHUB_EVENT_NAME", "pull_request")
                .env("GITHUB_EVENT_PATH", &event)
                .env("GITHUB_REPOSITORY", "Codertocat/Hello-World");
        }
        let o = cmd.output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
        let s: Value = serde_json::from_str(
            &std::fs::read_to_string(repo.join(out).join("suite.json")).unwrap(),
        )
        .unwrap();
        s
    };
    // Outside a pull-request context the layout is taken as it is (control).
    let local = suite_in("local", false);
    let readings: Vec<(&str, &str)> = local["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["key"].as_str().unwrap(),
                t["reading"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(readings, [("b/extra", "ACCEPTED"), ("b/hard", "ACCEPTED")]);
    let pr = suite_in("pr", true);
    let readings: Vec<(&str, &str)> = pr["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["key"].as_str().unwrap(),
                t["reading"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(readings, [("b/hard", "REJECTED")], "{pr:#}");
    let from = pr["suite"]["definitionsFrom"].as_str().unwrap();
    assert!(from.contains(&base[..12]), "{from}");
    let md = std::fs::read_to_string(repo.join("pr/suite.md")).unwrap();
    assert!(md.contains("read from the base commit"), "{md}");
    // The event cannot be read: refused, never the pull request's definitions.
    let o = common::command(&repo, &["suite", "bench", "--out", "broken"])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", runner.join("missing.json"))
        .env("GITHUB_REPOSITORY", "Codertocat/Hello-World")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
}

/// A suite task whose `semantic-diff` criteria are the VERIFY: lines of the submitted
/// workspace's own PLAN.md sat an exam it wrote: its JSON row, the markdown's list and the
/// task's row say so, and the judgment's reasoning (every per-task surface) too
/// (trust.md point 26, attack B11-11).
#[test]
fn criteria_a_subject_wrote_in_its_own_plan_are_marked_as_set_by_it() {
    use common::fake_llm::{FakeLlm, Reply};
    let key = "sk-ant-SENTINELKEY-0123456789";
    let llm = FakeLlm::start(key);
    llm.on(
        "the file A.java exists",
        10,
        Reply::Json(json!({"passed": true, "evidence": "A.java is there"})),
    );
    let root = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let bench = format!(
        "schema: bench.benchmark.v1\nname: planned\nllm:\n  provider: anthropic\n  model: test-model\n  base-url: {}\n  api-key-env: JUDGE_CI_TEST_API_KEY\n  cache: {}\njury:\n  checks:\n    - type: semantic-diff\n      name: plan\n      plan: PLAN.md\n",
        llm.anthropic_url(),
        cache.path().display()
    );
    common::write_tree(
        root.path(),
        &[
            ("bench/benchmark.yaml", bench.as_str()),
            (
                "bench/tasks/p1/task.yaml",
                "schema: bench.task.v1\nid: p1\ninstruction: Make f return 1.\n",
            ),
            (
                "bench/tasks/p1/workspace/PLAN.md",
                "# Plan\nVERIFY: the file A.java exists\n",
            ),
            (
                "bench/tasks/p1/workspace/A.java",
                "class A { int f() { return 2; } }\n",
            ),
            (
                "bench/tasks/p1/reference/A.java",
                "class A { int f() { return 1; } }\n",
            ),
        ],
    );
    let mut cmd = common::command(
        root.path(),
        &["suite", "bench", "--out", "out", "--jobs", "1"],
    );
    cmd.env("JUDGE_CI_TEST_API_KEY", key);
    let o = cmd.output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let s: Value =
        serde_json::from_str(&std::fs::read_to_string(root.path().join("out/suite.json")).unwrap())
            .unwrap();
    let task = &s["tasks"][0];
    assert_eq!(task["criteriaSetBySubject"], json!(["plan"]), "{task:#}");
    let md = std::fs::read_to_string(root.path().join("out/suite.md")).unwrap();
    assert!(md.contains("Criteria set by the subject"), "{md}");
    let row = md
        .lines()
        .find(|l| l.starts_with("| `") && l.contains("p1"))
        .unwrap_or_default();
    assert!(row.contains("(criteria set by the subject)"), "{md}");
    let report = task["reportPath"].as_str().unwrap();
    let r: Value = serde_json::from_str(
        &std::fs::read_to_string(root.path().join("out").join(report))
            .or_else(|_| std::fs::read_to_string(report))
            .unwrap(),
    )
    .unwrap();
    let text = r.to_string();
    assert!(text.contains("(set by the subject)"), "{r:#}");
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
}
