//! `judge-ci prove` on real git repositories and folders: a blind spot is named with
//! file:line and a suggestion, a config that rejects its own reference fails naming the
//! check, a gaming transformation that works is reported, and the bundled example is proven.

use crate::common::{self, commit_all, judge_ci, stderr, stdout, write_tree};
use serde_json::Value;
use std::path::Path;

/// A tier per line of `checks` (REJECT_ON_ANY_FAIL), then a final tier that passes.
fn config(tiers: &[(&str, &str)]) -> String {
    let mut s = String::from("name: proven\njury:\n  tiers:\n");
    for (name, checks) in tiers {
        s.push_str(&format!(
            "    - name: {name}\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n{checks}"
        ));
    }
    s.push_str("    - name: final\n      policy: FINAL_TIER\n      checks:\n        - type: file-exists\n          path: src/main/java/a/A.java\nreport:\n  fail-on: fail\n");
    s
}

const JAVA_BASE: &str = "package a;\n\nimport javax.x.Y;\n\npublic class A {\n    Y y;\n}\n";
const JAVA_REF: &str = "package a;\n\nimport jakarta.x.Y;\n\npublic class A {\n    Y y;\n}\n";

fn prove_json(out: &Path) -> Value {
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("prove.json")).expect("prove.json written"),
    )
    .expect("prove.json is JSON");
    common::assert_report_schema_file(&v, "schemas/prove.v1.json");
    v
}

#[test]
fn a_blind_spot_is_reported_with_file_line_and_a_suggestion() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let cfg = config(&[("structure", "        - type: import-diff\n")]);
    write_tree(
        &repo,
        &[
            ("judge-ci.yml", &cfg),
            ("src/main/java/a/A.java", JAVA_BASE),
            ("README.md", "# A\n\nUses javax.\n"),
        ],
    );
    let base = commit_all(&repo, "base");
    write_tree(
        &repo,
        &[
            ("src/main/java/a/A.java", JAVA_REF),
            ("README.md", "# A\n\nUses jakarta.\n"),
        ],
    );
    let reference = commit_all(&repo, "reference");
    let out = d.path().join("out");
    let o = judge_ci(
        &repo,
        &[
            "prove",
            "--base",
            &base,
            "--reference",
            &reference,
            "--jobs",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{md}\n{}", stderr(&o));
    let r = prove_json(&out);
    assert_eq!(r["gold"]["outcome"], "accepted", "{:#}", r["gold"]);
    assert_eq!(r["baseRun"]["outcome"], "rejected");
    assert_eq!(r["verdict"], "defects");
    // The config file is the judge, not part of the change: two units, in path order.
    let units = r["units"].as_array().unwrap();
    assert_eq!(units.len(), 2, "{units:#?}");
    assert_eq!(units[0]["path"], "README.md");
    assert_eq!(units[0]["line"], 3);
    assert_eq!(units[0]["judged"]["outcome"], "accepted");
    let hint = units[0]["suggestion"].as_str().unwrap();
    assert!(hint.contains("file-comparison"), "{hint}");
    assert_eq!(units[1]["path"], "src/main/java/a/A.java");
    assert_eq!(units[1]["judged"]["outcome"], "rejected");
    assert_eq!(units[1]["judged"]["decidedBy"], "structure");
    assert_eq!(units[1]["judged"]["failed"][0]["type"], "import-diff");
    assert!(
        md.contains(
            "| 1 | `README.md:3` | 1 line(s) changed | **blind spot**: add a `file-comparison`"
        ) || md.contains(
            "| 1 | `README.md:3` | 1 line(s) changed | **blind spot**: add a \\`file-comparison"
        ),
        "{md}"
    );
    assert!(
        md.contains(
            "| 2 | `src/main/java/a/A.java:3` | 1 line(s) changed | `import-diff` | `structure` |"
        ),
        "{md}"
    );
    let defects: Vec<&str> = r["defects"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        defects
            .iter()
            .any(|d| d.starts_with("blind spot: README.md:3")),
        "{defects:?}"
    );
    // The battery ran against the rejected variant, and none of it was accepted.
    let battery = r["battery"].as_array().unwrap();
    assert_eq!(battery.len(), 12);
    assert!(
        battery.iter().all(|b| b["status"] != "accepted"),
        "{battery:#?}"
    );
    let link = battery
        .iter()
        .find(|b| b["transformation"] == "symlinked-source")
        .unwrap();
    assert_eq!(link["target"], "unit 2");
    assert_eq!(link["status"], "held", "{link:#}");
    // The link leads out of the workspace where a check reads: the subject's doing, so the
    // check that reads it fails on it (attack finding newer F22), never an acceptance.
    assert_eq!(link["judged"]["outcome"], "rejected", "{link:#}");
}

/// Inside Actions, prove's markdown on standard output (file names and text of the change,
/// which the pull request chose) is inert: between `::stop-commands::` lines, as `run`,
/// `suite`, `render` and `diagnose` print theirs (trust.md point 5). A changed file whose
/// text is a workflow command stays text.
#[test]
fn inside_actions_prove_s_markdown_cannot_act_as_workflow_commands() {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    let cfg = config(&[("structure", "        - type: import-diff\n")]);
    write_tree(
        &repo,
        &[
            ("judge-ci.yml", &cfg),
            ("src/main/java/a/A.java", JAVA_BASE),
        ],
    );
    let base = commit_all(&repo, "base");
    write_tree(&repo, &[("src/main/java/a/A.java", JAVA_REF)]);
    let reference = commit_all(&repo, "reference");
    let event = d.path().join("event.json");
    std::fs::write(&event, "{}").unwrap();
    let out = d.path().join("out");
    let o = common::command(
        &repo,
        &[
            "prove",
            "--base",
            &base,
            "--reference",
            &reference,
            "--jobs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
    )
    .env("GITHUB_ACTIONS", "true")
    .env("GITHUB_EVENT_NAME", "push")
    .env("GITHUB_EVENT_PATH", &event)
    .output()
    .unwrap();
    let md = stdout(&o);
    assert!(
        md.starts_with("::stop-commands::"),
        "exit {:?}: {md}\n{}",
        o.status.code(),
        stderr(&o)
    );
    let token = md
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("::stop-commands::");
    assert!(md.trim_end().ends_with(&format!("::{token}::")), "{md}");
}

#[test]
fn a_config_that_rejects_its_own_reference_fails_naming_the_check() {
    let d = tempfile::tempdir().unwrap();
    let cfg = config(&[(
        "notes",
        "        - type: file-exists\n          path: NOTES.md\n",
    )]);
    write_tree(d.path(), &[("judge-ci.yml", &cfg)]);
    write_tree(
        &d.path().join("base"),
        &[("src/main/java/a/A.java", JAVA_BASE)],
    );
    write_tree(
        &d.path().join("reference"),
        &[("src/main/java/a/A.java", JAVA_REF)],
    );
    let out = d.path().join("out");
    let o = judge_ci(
        d.path(),
        &[
            "prove",
            "--base",
            "base",
            "--reference",
            "reference",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}\n{}", stdout(&o), stderr(&o));
    let r = prove_json(&out);
    assert_eq!(r["gold"]["outcome"], "rejected");
    assert_eq!(r["gold"]["failed"][0]["check"], "file-exists");
    let first = r["defects"][0].as_str().unwrap();
    assert!(
        first.starts_with("the config rejects its own reference: check `file-exists` (file-exists) in tier `notes` failed"),
        "{first}"
    );
    assert!(first.contains("NOTES.md"), "{first}");
    // No variant is judged against a broken gold: each would be rejected for its failure.
    assert_eq!(r["units"].as_array().unwrap().len(), 0);
    assert!(stdout(&o).contains("The reference is not accepted, so no variant was judged"));
}

#[test]
fn a_gaming_transformation_that_works_is_reported() {
    // A config that greps the text for the new import: a line javac reads as a comment
    // satisfies it, while the code still imports javax. (A link to the reference's copy is
    // refused by the run: the final tier's check reads that path.)
    let d = tempfile::tempdir().unwrap();
    let cfg = config(&[(
        "grep",
        "        - type: command\n          name: imports-jakarta\n          run: \"grep -q 'import jakarta.x.Y;' src/main/java/a/A.java\"\n",
    )]);
    write_tree(d.path(), &[("judge-ci.yml", &cfg)]);
    write_tree(
        &d.path().join("base"),
        &[("src/main/java/a/A.java", JAVA_BASE)],
    );
    write_tree(
        &d.path().join("reference"),
        &[("src/main/java/a/A.java", JAVA_REF)],
    );
    let out = d.path().join("out");
    let o = judge_ci(
        d.path(),
        &[
            "prove",
            "--base",
            "base",
            "--reference",
            "reference",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{md}\n{}", stderr(&o));
    let r = prove_json(&out);
    assert_eq!(r["gold"]["outcome"], "accepted", "{:#}", r["gold"]);
    assert_eq!(r["units"][0]["judged"]["outcome"], "rejected");
    let status = |name: &str| {
        r["battery"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["transformation"] == name)
            .map(|b| b["status"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(status("unicode-escapes"), "accepted", "{:#}", r["battery"]);
    assert_eq!(status("symlinked-source"), "held", "{:#}", r["battery"]);
    let defects: Vec<&str> = r["defects"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        defects.contains(&"gaming accepted: unicode-escapes (spec/trust.md point 14) applied to unit 1 is accepted"),
        "{defects:?}"
    );
    assert!(md.contains("| `unicode-escapes` ("), "{md}");
    assert!(md.contains("❌ **accepted**"), "{md}");
}

/// A variant the leading structural tier rejects is judged by the screen (prove's own
/// process, config loaded once, models shared), and what it decides is what a full run of
/// the same tree decides. The final tier's command lists the folder holding the trees: the
/// fence hides the other variants (and the reference) from every run's subject processes,
/// so the gold is accepted only if it cannot.
#[test]
fn a_screened_variant_is_judged_as_a_full_run_judges_it_and_trees_are_fenced_apart() {
    let d = tempfile::tempdir().unwrap();
    let cfg = "name: screened\njury:\n  tiers:\n    - name: structure\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - type: import-diff\n        - type: ast-diff\n    - name: final\n      policy: FINAL_TIER\n      checks:\n        - type: command\n          name: no-sibling-trees\n          run: \"! ls .. > /dev/null 2>&1\"\nreport:\n  fail-on: fail\n";
    write_tree(d.path(), &[("judge-ci.yml", cfg)]);
    const B_BASE: &str = "package a;\n\npublic class B {\n    public int size() { return 1; }\n}\n";
    const B_REF: &str = "package a;\n\npublic class B {\n    public long size() { return 1; }\n}\n";
    write_tree(
        &d.path().join("base"),
        &[
            ("src/main/java/a/A.java", JAVA_BASE),
            ("src/main/java/a/B.java", B_BASE),
        ],
    );
    write_tree(
        &d.path().join("reference"),
        &[
            ("src/main/java/a/A.java", JAVA_REF),
            ("src/main/java/a/B.java", B_REF),
        ],
    );
    let out = d.path().join("out");
    let o = judge_ci(
        d.path(),
        &[
            "prove",
            "--base",
            "base",
            "--reference",
            "reference",
            "--keep-trees",
            "--model-cache",
            d.path().join("models").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let md = stdout(&o);
    let r = prove_json(&out);
    assert_eq!(r["gold"]["outcome"], "accepted", "{:#}", r["gold"]);
    assert_eq!(o.status.code(), Some(0), "{md}\n{}", stderr(&o));
    let units = r["units"].as_array().unwrap();
    assert_eq!(units.len(), 2, "{units:#?}");
    for u in units {
        let j = &u["judged"];
        assert_eq!(j["screened"], true, "{j:#}");
        assert_eq!(j["decidedBy"], "structure", "{j:#}");
        // The same tree, judged by the ordinary run.
        let tree = out.join("trees").join(format!("unit-{}", u["id"]));
        let run_out = d.path().join(format!("full-{}", u["id"]));
        let full = judge_ci(
            d.path(),
            &[
                "--dry-run",
                "--config",
                "judge-ci.yml",
                "--workspace",
                tree.to_str().unwrap(),
                "--reference",
                out.join("trees/reference").to_str().unwrap(),
                "--model-cache",
                "off",
                "--out",
                run_out.to_str().unwrap(),
            ],
        );
        assert_eq!(full.status.code(), j["exitCode"].as_i64().map(|c| c as i32));
        let report = common::report(&run_out);
        assert_eq!(report["interpretation"]["decidedBy"], j["decidedBy"]);
        let mut failed_full: Vec<String> = report["tiers"][0]["judges"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["status"] == "fail")
            .map(|x| x["name"].as_str().unwrap().to_string())
            .collect();
        let mut failed_screen: Vec<String> = j["failed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["check"].as_str().unwrap().to_string())
            .collect();
        failed_full.sort();
        failed_screen.sort();
        assert_eq!(
            failed_screen, failed_full,
            "{j:#}\n{:#}",
            report["tiers"][0]
        );
    }
    assert_eq!(units[0]["judged"]["failed"][0]["type"], "import-diff");
    assert_eq!(units[1]["judged"]["failed"][0]["type"], "ast-diff");
    assert!(
        md.contains("2 of 2 variant(s) were rejected by the screen"),
        "{md}"
    );
    // No tree reaches the final tier's command, and no literal is there to break: build-class
    // gaming says why it was not exercised.
    let skipping = r["battery"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["transformation"] == "test-skipping-switches")
        .unwrap();
    assert_eq!(skipping["exercised"], false);
    let note = skipping["note"].as_str().unwrap();
    assert!(
        note.starts_with("not exercised: no rejected tree reaches a check that builds")
            && note.contains("no string literal in a main source to break"),
        "{skipping:#}"
    );
    assert!(r.get("synthesized").is_none(), "{:#}", r["synthesized"]);
    // The final tier's command is code prove cannot verify from outside (attack finding
    // GA6: a command that looks at its path passes prove and everything elsewhere): listed.
    assert_eq!(
        r["unverified"],
        serde_json::json!([
            "tier `final`: `no-sibling-trees` (command) runs `! ls .. > /dev/null 2>&1`"
        ]),
        "{r:#}"
    );
    assert!(
        md.contains("### Checks prove cannot verify from outside"),
        "{md}"
    );
}

#[test]
fn bad_input_is_exit_2_naming_the_flag() {
    let d = tempfile::tempdir().unwrap();
    write_tree(d.path(), &[("judge-ci.yml", &config(&[]))]);
    write_tree(&d.path().join("same"), &[("a.txt", "x\n")]);
    let o = judge_ci(
        d.path(),
        &["prove", "--base", "nope-rev", "--reference", "same"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--base nope-rev"), "{}", stderr(&o));
    let o = judge_ci(
        d.path(),
        &["prove", "--base", "same", "--reference", "same"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("hold the same files"), "{}", stderr(&o));
    let o = judge_ci(
        d.path(),
        &[
            "prove",
            "--config",
            "missing.yml",
            "--base",
            "same",
            "--reference",
            "same",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--config missing.yml"),
        "{}",
        stderr(&o)
    );
}

/// The bundled example's config, proven as CI proves it: from its workspace folder, with the
/// task's javax starting point (`base/`) and the reference; a real offline Maven build for the
/// reference.
#[test]
fn the_bundled_example_is_proven() {
    common::require_maven();
    let d = tempfile::tempdir().unwrap();
    for part in ["workspace", "reference", "base"] {
        common::copy_tree(
            &common::repo_root()
                .join("examples/jakarta-migration")
                .join(part),
            &d.path().join(part),
        );
    }
    let out = d.path().join("out");
    let o = judge_ci(
        &d.path().join("workspace"),
        &[
            "prove",
            "--base",
            "../base",
            "--reference",
            "../reference",
            "--jobs",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let md = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{md}\n{}", stderr(&o));
    let r = prove_json(&out);
    assert_eq!(r["verdict"], "proven");
    assert_eq!(r["gold"]["decidedBy"], "final");
    let units = r["units"].as_array().unwrap();
    assert_eq!(units.len(), 3, "{units:#?}");
    assert_eq!(units[0]["kind"], "pom-dependency");
    assert!(units.iter().all(|u| u["judged"]["outcome"] == "rejected"));
    assert!(
        md.contains("### Sensitivity: 3 unit(s) of the change, 3 caught, 0 blind spot(s)"),
        "{md}"
    );
    // The structural tier catches every unit: each is screened, no build runs for them.
    assert!(
        units.iter().all(|u| u["judged"]["screened"] == true),
        "{units:#?}"
    );
    // No unit reaches the build, so prove breaks the reference's behaviour for the
    // build-class gaming: a literal of Greeter, which GreeterTest asserts.
    let b = &r["synthesized"];
    assert_eq!(
        b["applied"]["path"], "src/main/java/com/example/greeting/Greeter.java",
        "{b:#}"
    );
    assert_eq!(b["judged"]["decidedBy"], "build", "{b:#}");
    assert_eq!(b["judged"]["failed"][0]["check"], "maven-build", "{b:#}");
    // Every transformation is applied and held; each is exercised but model-instructions,
    // whose reason is named (the config asks no model).
    let battery = r["battery"].as_array().unwrap();
    assert_eq!(battery.len(), 12);
    for t in battery {
        assert_eq!(t["status"], "held", "{t:#}");
        if t["transformation"] == "model-instructions" {
            assert_eq!(t["exercised"], false, "{t:#}");
            assert!(
                t["note"]
                    .as_str()
                    .unwrap()
                    .contains("no check that asks a model"),
                "{t:#}"
            );
        } else {
            assert_eq!(t["exercised"], true, "{t:#}");
        }
    }
    // The exam the PR could rewrite: the build runs the workspace's tests, pinned by the
    // tests-unchanged file-comparison (without it, tests-weakened on the break is accepted).
    let exam = r["exam"].as_array().unwrap();
    assert_eq!(exam.len(), 1, "{exam:#?}");
    assert_eq!(exam[0]["check"], "maven-build");
    assert_eq!(exam[0]["pinned"], true, "{exam:#?}");
}
