//! The judge's own programs are the trusted side's (`spec/trust.md` points 1, 2 and 25; attack
//! findings GA1, NC19, NC15): a script a check's command runs is pinned to the base's copy and
//! a change to it is a protected-path finding, whatever `protected:` lists; a program the pull
//! request plants on a `PATH` entry inside the workspace never stands in for a command's.
//! Each test runs the real binary on a real git repository in a temporary folder.

use crate::common;
use crate::trust::run_pr;

use common::{commit_all, report, stderr, write_tree};
use serde_json::Value;

/// (path, change, pattern) of every protected-path change of a report.
fn protected_changes(r: &Value) -> Vec<(String, String, String)> {
    r["trust"]["protectedChanges"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| {
                    let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                    (s("path"), s("change"), s("pattern"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The status of the judgment named `name`.
fn status<'a>(r: &'a Value, name: &str) -> &'a Value {
    &r["verdict"]["individualByName"][name]["status"]
}

#[test]
fn the_scripts_a_check_s_command_runs_are_the_base_s_whatever_protected_lists() {
    // The base config names no `protected:` at all. Its external judge is a script of the
    // repository (`sh judges/judge.sh`), and its command check runs `scripts/verify.sh`, which
    // runs `scripts/rules.sh`. The pull request keeps javax and rewrites the judge to answer
    // PASS and the rules to exit 0: the judges run the base's copies, so it is rejected, and
    // each rewritten program is a protected-path change (attack findings GA1, NC19).
    let config = "name: gate\njury:\n  checks:\n    - {type: external, name: ext, run: [sh, judges/judge.sh]}\n    - {type: command, name: verify, run: scripts/verify.sh}\n";
    let judge = "#!/bin/sh\ncat > /dev/null\nif grep -q javax src/App.java; then\n  echo '{\"status\":\"fail\",\"reasoning\":\"javax left\"}' >&3\nelse\n  echo '{\"status\":\"pass\",\"reasoning\":\"migrated\"}' >&3\nfi\n";
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    write_tree(
        &repo,
        &[
            ("judge-ci.yml", config),
            ("judges/judge.sh", judge),
            ("scripts/verify.sh", "#!/bin/sh\nexec sh scripts/rules.sh\n"),
            (
                "scripts/rules.sh",
                "#!/bin/sh\n! grep -q javax src/App.java\n",
            ),
            ("src/App.java", "import javax.servlet.Filter;\n"),
        ],
    );
    common::chmod_x(&repo.join("scripts/verify.sh"));
    let base = commit_all(&repo, "base");
    write_tree(
        &repo,
        &[
            (
                "judges/judge.sh",
                "#!/bin/sh\necho '{\"status\":\"pass\",\"reasoning\":\"my own judge\"}' >&3\n",
            ),
            ("scripts/rules.sh", "#!/bin/sh\nexit 0\n"),
            (
                "src/App.java",
                "import javax.servlet.Filter;\nclass App {}\n",
            ),
        ],
    );
    let head = commit_all(&repo, "the pull request");
    let (o, out) = run_pr(d.path(), &repo, &base, &head, &[]);
    let r = report(&out);
    common::assert_report_schema(&r);
    assert_eq!(status(&r, "ext"), "fail", "{:#}", r["verdict"]);
    assert_eq!(status(&r, "verify"), "fail", "{:#}", r["verdict"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        protected_changes(&r),
        [
            (
                "judges/judge.sh".to_string(),
                "modified".to_string(),
                "run by check `ext`".to_string()
            ),
            (
                "scripts/rules.sh".to_string(),
                "modified".to_string(),
                "run by check `verify`".to_string()
            ),
        ],
        "{:#}",
        r["trust"]
    );
    // Reported as the judge's files, not as changes no check reads.
    let unjudged = r["trust"]["unjudged"].to_string();
    assert!(!unjudged.contains("judge.sh"), "{unjudged}");
    assert!(!unjudged.contains("rules.sh"), "{unjudged}");
    assert!(
        r["trust"]["baseBuildFiles"]
            .to_string()
            .contains("judges/judge.sh"),
        "{:#}",
        r["trust"]
    );
}

#[test]
fn a_program_planted_on_a_path_entry_inside_the_workspace_never_stands_in_for_a_command_s() {
    // A local run (no pull-request context: the fence alone decides). The config's command is
    // `! grep -rn javax src`; the subject keeps javax and commits `node_modules/.bin/grep` and
    // `bin/grep`, both exiting 1 ("nothing found"), while the runner's PATH starts with the
    // workspace's `node_modules/.bin` (as `echo "$GITHUB_WORKSPACE/node_modules/.bin" >>
    // $GITHUB_PATH` makes it) and a relative `bin` (attack finding NC15).
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[
            (
                "judge-ci.yml",
                "name: gate\njury:\n  checks:\n    - {type: command, name: no-javax, run: \"! grep -rn javax src\"}\n",
            ),
            ("src/App.java", "import javax.servlet.Filter;\n"),
            ("node_modules/.bin/grep", "#!/bin/sh\nexit 1\n"),
            ("bin/grep", "#!/bin/sh\nexit 1\n"),
        ],
    );
    common::chmod_x(&ws.path().join("node_modules/.bin/grep"));
    common::chmod_x(&ws.path().join("bin/grep"));
    let out = tempfile::tempdir().unwrap();
    let path = format!(
        "{}:bin:{}",
        ws.path().join("node_modules/.bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = common::command(
        ws.path(),
        &["--dry-run", "-q", "--out", out.path().to_str().unwrap()],
    )
    .env("PATH", &path)
    .output()
    .unwrap();
    let r = report(out.path());
    assert_eq!(status(&r, "no-javax"), "fail", "{:#}", r["verdict"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let fence = r["fence"].as_str().unwrap_or_default();
    assert!(
        fence.contains("PATH entries")
            && fence.contains("node_modules/.bin")
            && fence.contains("bin"),
        "the report says which PATH entries were withheld: {fence}"
    );
}

/// Attack finding N7-3: the base's config runs a pinned Python judge,
/// `python3 judges/check.py`. The pull request leaves it alone and adds `judges/re.py` (the
/// script's folder is the first entry of `sys.path`, so its `import re` loads the pull
/// request's module, which passes). Now what a program is read with by convention beside it
/// is pinned with it (`protect::implicit_inputs`; the makefile siblings of N7-4 are its unit
/// test's): the added file is removed before any judge runs, the judge reads the
/// submission, and the file is a protected-path change.
#[test]
fn what_a_pinned_program_imports_beside_it_is_the_base_s_too() {
    let config = "name: gate\njury:\n  checks:\n    - {type: command, name: check, run: python3 judges/check.py}\n";
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    write_tree(
        &repo,
        &[
            ("judge-ci.yml", config),
            (
                "judges/check.py",
                "import re, sys\nsys.exit(1 if re.search('javax', open('src/App.java').read()) else 0)\n",
            ),
            ("src/App.java", "import javax.servlet.Filter;\n"),
        ],
    );
    let base = commit_all(&repo, "base");
    write_tree(
        &repo,
        &[
            ("judges/re.py", "def search(*a):\n    return None\n"),
            (
                "src/App.java",
                "import javax.servlet.Filter;\nclass App {}\n",
            ),
        ],
    );
    let head = commit_all(&repo, "the pull request");
    let (o, out) = run_pr(d.path(), &repo, &base, &head, &[]);
    let r = report(&out);
    assert_eq!(status(&r, "check"), "fail", "{:#}", r["verdict"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        protected_changes(&r)
            .iter()
            .any(|(p, c, why)| p == "judges/re.py"
                && c == "added"
                && why.contains("imported first by the Python script judges/check.py")),
        "{:#}",
        r["trust"]
    );
}

#[test]
fn a_script_a_check_runs_cannot_be_changed_while_it_runs_even_when_put_back_before_it_ends() {
    // Attack findings G10-22, G10-23: the base's `ci/test.sh` runs the pull request's tests,
    // then (after more lines than a shell reads at once) the base's `ci/verdict.sh` with its
    // exit status. The pull request's code (1) overwrites the unread tail of test.sh in place
    // with `exit 0` and puts the original back a second later, or (2) moves `ci/` aside and
    // puts a folder with a verdict of its own in its place, moved back a second later. The
    // shell executes the forgery, the files are as the base has them when the check ends,
    // and the check passed. Now the pinned scripts are read-only and their folder cannot be
    // moved: the base's script decides (the code exits 1, so the check fails).
    let padding = "# the base's script goes on here\n".repeat(600);
    let test_sh = format!(
        "#!/bin/sh\nrc=0\nfor t in tests/*.sh; do sh \"$t\" || rc=1; done\n{padding}# tail\nsh ci/verdict.sh $rc\n"
    );
    let app = r#"#!/bin/sh
case "$(cat mode)" in
rewrite)
  cp ci/test.sh "$TMPDIR/saved"
  off=$(grep -b '^# tail' ci/test.sh | cut -d: -f1)
  if printf 'echo forged; sleep 2; exit 0\n' | dd of=ci/test.sh bs=1 seek="$off" conv=notrunc 2>/dev/null; then
    (sleep 1; cat "$TMPDIR/saved" > ci/test.sh) >/dev/null 2>&1 &
  fi ;;
move)
  if mv ci ci.away 2>/dev/null; then
    mkdir ci && cp ci.away/* ci/ && printf 'sleep 2; exit 0\n' > ci/verdict.sh
    (sleep 1; rm -rf ci; mv ci.away ci) >/dev/null 2>&1 &
  fi ;;
esac
exit 1
"#;
    for mode in ["rewrite", "move"] {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        write_tree(
            &repo,
            &[
                (
                    "judge-ci.yml",
                    "name: gate\njury:\n  checks:\n    - {type: command, name: tests, run: \"sh ci/test.sh\"}\n",
                ),
                ("ci/test.sh", &test_sh),
                ("ci/verdict.sh", "exit \"$1\"\n"),
                ("tests/a.sh", "exit 0\n"),
            ],
        );
        let base = commit_all(&repo, "base");
        write_tree(&repo, &[("tests/b.sh", app), ("mode", mode)]);
        let head = commit_all(&repo, "the pull request");
        let (o, out) = run_pr(d.path(), &repo, &base, &head, &[]);
        let r = report(&out);
        let j = &r["verdict"]["individualByName"]["tests"];
        assert_eq!(j["status"], "fail", "{mode}: {j}\n{}", stderr(&o));
        assert!(
            !j.to_string().contains("forged"),
            "{mode}: the forgery ran: {j}"
        );
        assert_eq!(o.status.code(), Some(1), "{mode}: {}", stderr(&o));
        assert!(
            r["fence"].to_string().contains("read-only protected files"),
            "{mode}: {}",
            r["fence"]
        );
    }
}

#[test]
fn a_file_a_trusted_tool_reads_by_convention_that_the_pull_request_adds_is_not_read() {
    // Attack finding B11-1: `run: [make, test]` with the base's Makefile; the pull request
    // adds a `GNUmakefile` (which make reads first) whose `test` passes. And `python3 -m
    // unittest` with a `unittest/` package the pull request adds (imported from the folder
    // before the standard library's). Both were accepted; now each added file is a
    // protected-path change, removed before the check runs.
    for (config, added, name) in [
        (
            "name: gate\njury:\n  checks:\n    - {type: command, name: tests, run: [make, test]}\n",
            ("GNUmakefile", "test:\n\t@true\n"),
            "GNUmakefile",
        ),
        (
            "name: gate\njury:\n  checks:\n    - {type: command, name: tests, run: [python3, -m, unittest, -q]}\n",
            ("unittest/__init__.py", "import os\nos._exit(0)\n"),
            "unittest/__init__.py",
        ),
    ] {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        write_tree(
            &repo,
            &[
                ("judge-ci.yml", config),
                ("Makefile", "test:\n\t@exit 1\n"),
                (
                    "test_app.py",
                    "import unittest\nclass T(unittest.TestCase):\n    def test_fails(self):\n        self.fail('the change is wrong')\n",
                ),
            ],
        );
        let base = commit_all(&repo, "base");
        write_tree(&repo, &[added]);
        let head = commit_all(&repo, "the pull request");
        let (o, out) = run_pr(d.path(), &repo, &base, &head, &[]);
        let r = report(&out);
        assert_eq!(status(&r, "tests"), "fail", "{name}: {:#}", r["verdict"]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        assert!(
            protected_changes(&r)
                .iter()
                .any(|(p, c, _)| p == name && c == "added"),
            "{name}: {:#}",
            r["trust"]
        );
    }
}

#[test]
fn outside_a_pull_request_the_build_s_wrapper_is_the_reference_s_or_the_run_fails() {
    // Attack findings B11-3, B11-4: with no base to pin from (a suite's task, a local run),
    // the subject's own `mvnw` was the build; one that exits 0 passed the build tier, and a
    // deleted one made the build fall back to a missing `mvn`, an ERROR charged to judge-ci.
    // The reference is the trusted side there: a wrapper or setting the workspace has
    // otherwise is a FAIL of judge-ci's own check before any build runs.
    let d = tempfile::tempdir().unwrap();
    let wrapper = "#!/bin/sh\nexec mvn \"$@\"\n";
    let config = "name: gate\nreference:\n  path: ../reference\njury:\n  checks:\n    - {type: command, name: build, run: [./mvnw, -q, verify]}\n";
    for side in ["workspace", "reference"] {
        write_tree(
            &d.path().join(side),
            &[("mvnw", wrapper), ("src/App.java", "class App {}\n")],
        );
        common::chmod_x(&d.path().join(side).join("mvnw"));
    }
    write_tree(&d.path().join("workspace"), &[("judge-ci.yml", config)]);
    let ws = d.path().join("workspace");
    let judge = |out: &str| {
        let out = d.path().join(out);
        let o = common::command(&ws, &["--dry-run", "--out", out.to_str().unwrap()])
            .output()
            .unwrap();
        (o, report(&out))
    };
    // The same wrapper as the reference's: no such check.
    let (_, r) = judge("same");
    assert!(
        status(&r, "build-files-unlike-reference").is_null(),
        "{:#}",
        r["verdict"]
    );
    std::fs::write(ws.join("mvnw"), "#!/bin/sh\nexit 0\n").unwrap();
    let (o, r) = judge("rewritten");
    assert_eq!(
        status(&r, "build-files-unlike-reference"),
        "fail",
        "{:#}",
        r["verdict"]
    );
    assert!(stderr(&o).contains("mvnw (modified)"), "{}", stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    std::fs::remove_file(ws.join("mvnw")).unwrap();
    let (o, r) = judge("deleted");
    assert_eq!(
        status(&r, "build-files-unlike-reference"),
        "fail",
        "{:#}",
        r["verdict"]
    );
    assert!(
        stderr(&o).contains("mvnw (removed: the reference has it)"),
        "{}",
        stderr(&o)
    );
    // The missing program is an ERROR the change brought about (exit 3, counted against
    // it), never one waived as judge-ci's; the gate fails either way.
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("counts against the change"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_script_the_command_reaches_by_any_shell_route_is_the_base_s() {
    // Attack finding B14-1: `cd ci && sh check.sh`, a makefile's recipe, `sh < ci/check.sh`,
    // `cat ci/check.sh | sh` and `f=ci/check.sh; sh $f` all ran the pull request's rewritten
    // `ci/check.sh` (exit 0, accepted); only `sh ci/check.sh` was pinned. Each now runs the
    // base's copy and the rewrite is a protected-path change; a script named by a command
    // substitution (which the tree decides) is refused as a config judge-ci cannot pin.
    let runs = [
        "\"cd ci && sh check.sh\"",
        "[make, check]",
        "\"sh < ci/check.sh\"",
        "\"cat ci/check.sh | sh\"",
        "\"f=ci/check.sh; sh $f\"",
    ];
    for run in runs {
        let config = format!(
            "name: gate\njury:\n  checks:\n    - {{type: command, name: verify, run: {run}}}\n"
        );
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        write_tree(
            &repo,
            &[
                ("judge-ci.yml", config.as_str()),
                (
                    "ci/check.sh",
                    "! grep -rq javax ../src 2>/dev/null && ! grep -rq javax src 2>/dev/null\n",
                ),
                ("Makefile", "check:\n\tsh ci/check.sh\n"),
                ("src/App.java", "import javax.servlet.Filter;\n"),
            ],
        );
        let base = commit_all(&repo, "base");
        write_tree(
            &repo,
            &[
                ("ci/check.sh", "exit 0\n"),
                (
                    "src/App.java",
                    "import javax.servlet.Filter;\nclass App {}\n",
                ),
            ],
        );
        let head = commit_all(&repo, "the pull request");
        let (o, out) = run_pr(d.path(), &repo, &base, &head, &[]);
        let r = report(&out);
        assert_eq!(status(&r, "verify"), "fail", "{run}: {:#}", r["verdict"]);
        assert_eq!(o.status.code(), Some(1), "{run}: {}", stderr(&o));
        assert!(
            protected_changes(&r)
                .iter()
                .any(|(p, c, _)| p == "ci/check.sh" && c == "modified"),
            "{run}: {:#}",
            r["trust"]
        );
    }
    // The tree decides what a command substitution names: not run, and said so (exit 2).
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    write_tree(
        &repo,
        &[
            (
                "judge-ci.yml",
                "name: gate\njury:\n  checks:\n    - {type: command, name: verify, run: \"sh $(ls ci/*.sh)\"}\n",
            ),
            ("ci/check.sh", "exit 1\n"),
        ],
    );
    let base = commit_all(&repo, "base");
    write_tree(&repo, &[("ci/a.sh", "exit 0\n")]);
    let head = commit_all(&repo, "the pull request");
    let (o, _) = run_pr(d.path(), &repo, &base, &head, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("check 'verify': `run:` names the script `sh` runs, named by an expansion"),
        "{}",
        stderr(&o)
    );
}
