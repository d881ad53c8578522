//! Attacks on judge-ci's secrets and outputs by a hostile pull request (trust.md points 3 and
//! 5; THREATS.md lists each with the mechanism that stops it). Each test runs the real binary
//! on a workspace made here and fails if the attack works.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

const TOKEN: &str = "ghs_SENTINELtoken0123456789abcdef";
const KEY: &str = "sk-ant-SENTINELkey0123456789abcdef";

/// A workspace holding `config` as judge-ci.yml and a source file.
fn workspace(config: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    common::write_tree(
        d.path(),
        &[
            ("judge-ci.yml", config),
            ("src/A.java", "package a;\nclass A {}\n"),
        ],
    );
    d
}

/// A one-tier config whose only check runs `run`.
fn command_config(run: &str) -> String {
    format!(
        "schema: judge-ci.v1\nname: attack\nversion: \"1\"\njury:\n  tiers:\n    - name: build\n      policy: FINAL_TIER\n      checks:\n        - type: command\n          name: subject\n          run: {}\n          timeout: PT60S\n",
        serde_json::to_string(run).unwrap()
    )
}

/// judge-ci in a simulated Actions runner (`--dry-run`), holding the sentinel secrets.
fn in_actions(ws: &Path, runner: &Path, extra: &[&str]) -> Output {
    let event = common::repo_root().join("tests/fixtures/github/events/pull_request.opened.json");
    // The workspace is not a repository: its own config (the base-config rule is i15's test).
    let mut args = vec![
        "--dry-run",
        "--config-from",
        "head",
        "--out",
        "judge-ci-out",
    ];
    args.extend_from_slice(extra);
    common::command(ws, &args)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "Codertocat/Hello-World")
        .env("GITHUB_SHA", "ffffffffffffffffffffffffffffffffffffffff")
        .env("GITHUB_SERVER_URL", "https://github.com")
        .env("GITHUB_RUN_ID", "1234")
        .env("GITHUB_STEP_SUMMARY", runner.join("summary.md"))
        .env("GITHUB_OUTPUT", runner.join("output.txt"))
        .env("GITHUB_TOKEN", TOKEN)
        .env("ANTHROPIC_API_KEY", KEY)
        .output()
        .unwrap()
}

/// Every file under `dir`, as text.
fn all_files(dir: &Path) -> Vec<(String, String)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().display().to_string(),
                String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned(),
            )
        })
        .collect()
}

fn assert_no_secret(what: &str, text: &str) {
    for s in [TOKEN, KEY] {
        assert!(!text.contains(s), "{what} holds a secret:\n{text}");
    }
}

#[test]
fn environment_theft_through_proc_finds_no_secret() {
    // The subject reads its parent's environment and every other process's and looks for the
    // sentinel secrets itself (a file it left in the workspace would be removed after the
    // check): exit 5 if the reads did not work, 6 if it found a secret, else 1.
    let ws = workspace(&command_config(
        "s=$({ tr '\\0' '\\n' < /proc/$PPID/environ; for p in $(find /proc -maxdepth 1 -name '[0-9]*'); do tr '\\0' '\\n' < $p/environ; done; } 2>/dev/null); case \"$s\" in *PATH=*) ;; *) exit 5;; esac; case \"$s\" in *SENTINEL*) exit 6;; esac; exit 1",
    ));
    let runner = tempfile::tempdir().unwrap();
    let o = in_actions(ws.path(), runner.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let report = common::report(&ws.path().join("judge-ci-out"));
    let exit = &report["verdict"]["individual"][0]["metadata"]["exitCode"];
    assert_ne!(exit, 5, "the reads work: {report}");
    assert_ne!(exit, 6, "the subject found a secret in /proc: {report}");
    assert_eq!(exit, 1, "{report}");
    assert_no_secret("stdout", &common::stdout(&o));
    assert_no_secret("stderr", &common::stderr(&o));
    for (name, text) in all_files(runner.path())
        .into_iter()
        .chain(all_files(&ws.path().join("judge-ci-out")))
    {
        assert_no_secret(&name, &text);
    }
}

#[test]
fn secrets_the_subject_prints_are_masked_in_every_surface() {
    // Defence in depth: however a secret reached the subject, it is `***` wherever judge-ci
    // writes or prints (here the subject knows the values and prints them).
    let ws = workspace(&command_config(&format!(
        "echo \"token {TOKEN} key {KEY}\"; echo \"{TOKEN}\" >&2; exit 1"
    )));
    let runner = tempfile::tempdir().unwrap();
    let o = in_actions(ws.path(), runner.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let out = ws.path().join("judge-ci-out");
    let files = all_files(&out);
    for surface in [
        "report.json",
        "report.md",
        "summary.md",
        "check-run.json",
        "junit.xml",
        "report.sarif",
        "report.html",
    ] {
        assert!(
            files.iter().any(|(n, _)| n.ends_with(surface)),
            "{surface} written: {:?}",
            files.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
    }
    let report = std::fs::read_to_string(out.join("report.json")).unwrap();
    assert!(report.contains("token *** key ***"), "{report}");
    for (name, text) in files.into_iter().chain(all_files(runner.path())) {
        assert_no_secret(&name, &text);
    }
    assert_no_secret("stdout", &common::stdout(&o));
    assert_no_secret("stderr", &common::stderr(&o));
    assert!(common::stdout(&o).contains("***"));
}

#[test]
fn a_committed_out_symlink_is_refused_and_nothing_is_written_through_it() {
    let ws = workspace(&command_config("exit 0"));
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("report.md"), "precious").unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), ws.path().join("judge-ci-out")).unwrap();
    // Committed, as a pull request would.
    let git = |args: &[&str]| {
        let st = Command::new("git")
            .args(args)
            .current_dir(ws.path())
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap();
        assert!(st.status.success(), "{}", common::stderr(&st));
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "x"]);
    for args in [vec![], vec!["--out", "judge-ci-out/nested"]] {
        let o = common::judge_ci(ws.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
        assert!(
            common::stderr(&o).contains("symbolic link"),
            "{}",
            common::stderr(&o)
        );
    }
    let left: Vec<_> = std::fs::read_dir(elsewhere.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "nothing written or removed through the link");
    assert_eq!(
        std::fs::read_to_string(elsewhere.path().join("report.md")).unwrap(),
        "precious"
    );
}

#[test]
fn an_out_folder_the_subject_turns_into_a_symlink_takes_nothing() {
    // judge-ci makes the folder before any subject code runs; the subject replaces it with a
    // link while it runs. The reports are refused there (a copy of the JSON goes to the
    // temporary folder) and the run fails.
    let elsewhere = tempfile::tempdir().unwrap();
    let ws = workspace(&command_config(&format!(
        "rm -rf judge-ci-out && ln -s {} judge-ci-out; exit 0",
        elsewhere.path().display()
    )));
    let spill = tempfile::tempdir().unwrap();
    let o = common::command(ws.path(), &[])
        .env("RUNNER_TEMP", spill.path())
        .output()
        .unwrap();
    assert_eq!(
        ws.path()
            .join("judge-ci-out")
            .symlink_metadata()
            .map_err(|e| e.kind())
            .err(),
        Some(std::io::ErrorKind::NotFound),
        "the link the subject left is removed, so no later step reads through it"
    );
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    assert!(
        common::stderr(&o).contains("symbolic link"),
        "{}",
        common::stderr(&o)
    );
    assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 1);
    assert_eq!(o.status.code(), Some(3), "{}", common::stderr(&o));
    assert!(
        common::stderr(&o).contains("removed the symbolic link"),
        "{}",
        common::stderr(&o)
    );
}

/// A loopback "git server" that records every request's headers and answers 404.
fn recording_server() -> (common::loopback::Server, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let server = common::loopback::Server::start(move |req| {
        let s = s.clone();
        async move {
            let auth = req
                .headers
                .get("authorization")
                .map(|v| v.to_str().unwrap_or("?").to_string())
                .unwrap_or_default();
            s.lock()
                .unwrap()
                .push(format!("{} {} auth={auth}", req.method, req.path));
            common::loopback::Answer::text(404, "text/plain", "no")
        }
    });
    (server, seen)
}

#[test]
fn a_config_named_http_remote_never_receives_the_token() {
    let (server, seen) = recording_server();
    let url = format!("http://127.0.0.1:{}/x.git", server.addr.port());
    let config = format!(
        "{}reference:\n  repository: {url}\n  ref: main\n",
        command_config("exit 0")
    );
    let ws = workspace(&config);
    let o = common::command(ws.path(), &[])
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    let err = common::stderr(&o);
    assert!(
        err.contains("judge-ci.yml:") && err.contains("http://") && err.contains("https"),
        "the line is named and https asked for: {err}"
    );
    // On the command line too.
    let ws2 = workspace(&command_config("exit 0"));
    let o = common::command(ws2.path(), &["--reference", &format!("{url}#main")])
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter().all(|r| r.ends_with("auth=")),
        "no Authorization header: {seen:?}"
    );
    assert!(seen.is_empty(), "nothing fetched over plain http: {seen:?}");
}

#[test]
fn option_injection_through_a_repository_or_revision_is_refused() {
    let marker = tempfile::tempdir().unwrap();
    let pwned = marker.path().join("pwned");
    for (repository, rev) in [
        (format!("--upload-pack=touch {}", pwned.display()), "."),
        ("../somewhere".to_string(), "--output=/tmp/x"),
    ] {
        let config = format!(
            "{}reference:\n  repository: {}\n  ref: {}\n",
            command_config("exit 0"),
            serde_json::to_string(&repository).unwrap(),
            serde_json::to_string(rev).unwrap()
        );
        let ws = workspace(&config);
        let o = common::judge_ci(ws.path(), &[]);
        assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
        let err = common::stderr(&o);
        assert!(
            err.contains("judge-ci.yml:") && err.contains("starts with '-'"),
            "{err}"
        );
    }
    // A revision on the command line, and `judge-ci checkout`.
    let ws = workspace(&command_config("exit 0"));
    let o = common::judge_ci(
        ws.path(),
        &[&format!(
            "--reference=--upload-pack=touch {}",
            pwned.display()
        )],
    );
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    let o = common::judge_ci(
        ws.path(),
        &[
            "checkout",
            &format!("/tmp/x#--upload-pack=touch {}", pwned.display()),
            "dest",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    assert!(!pwned.exists(), "the injected command never ran");
}

fn llm_config(extra: &str) -> String {
    format!(
        "schema: judge-ci.v1\nname: llm\nversion: \"1\"\nllm:\n{extra}jury:\n  checks:\n    - type: correctness\n"
    )
}

#[test]
fn api_key_env_must_be_an_api_key_unless_the_workflow_allows_it() {
    let ws = workspace(&llm_config(
        "  api-key-env: GITHUB_TOKEN\n  base-url: https://llm.example/v1\n",
    ));
    let o = common::judge_ci(ws.path(), &["validate"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    let err = common::stderr(&o);
    assert!(
        err.contains("judge-ci.yml:5:")
            && err.contains("_API_KEY")
            && err.contains("--allow-key-env GITHUB_TOKEN"),
        "{err}"
    );
    let o = common::judge_ci(ws.path(), &["validate", "--allow-key-env", "GITHUB_TOKEN"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let ok = workspace(&llm_config("  api-key-env: MY_PROVIDER_API_KEY\n"));
    let o = common::judge_ci(ok.path(), &["validate"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
}

#[test]
fn a_plain_http_base_url_off_this_machine_is_refused() {
    let ws = workspace(&llm_config("  base-url: http://attacker.example/v1\n"));
    let o = common::judge_ci(ws.path(), &["validate"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::stderr(&o));
    let err = common::stderr(&o);
    assert!(
        err.contains("judge-ci.yml:5:") && err.contains("https"),
        "{err}"
    );
    let local = workspace(&llm_config("  base-url: http://127.0.0.1:11434/v1\n"));
    let o = common::judge_ci(local.path(), &["validate"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
}

/// The commands the runner would execute from a log, following its stop-commands rule.
fn commands_seen(log: &str) -> Vec<String> {
    let mut stopped: Option<String> = None;
    let mut seen = Vec::new();
    for line in log.lines() {
        match &stopped {
            Some(t) if line.trim() == format!("::{t}::") => stopped = None,
            Some(_) => {}
            None => {
                if let Some(t) = line.trim().strip_prefix("::stop-commands::") {
                    stopped = Some(t.to_string());
                } else if line.trim_start().starts_with("::") {
                    seen.push(line.trim().to_string());
                }
            }
        }
    }
    seen
}

#[test]
fn workflow_commands_in_a_build_log_are_inert() {
    let ws = workspace(&command_config(
        "echo '::add-mask::Rejected'; echo '::error file=src/A.java,line=1::forged by the subject'; echo '::stop-commands::x'; exit 1",
    ));
    let runner = tempfile::tempdir().unwrap();
    let o = in_actions(ws.path(), runner.path(), &[]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let stdout = common::stdout(&o);
    assert!(
        stdout.contains("forged by the subject"),
        "the log is in the report: {stdout}"
    );
    for log in [&stdout, &common::stderr(&o)] {
        let seen = commands_seen(log);
        assert!(
            seen.iter()
                .all(|c| !c.contains("forged") && !c.starts_with("::add-mask::")),
            "{seen:#?}"
        );
    }
}

#[test]
fn a_build_that_rewrites_the_sources_does_not_pass_the_structural_tier() {
    // Tier 1 runs subject code that rewrites the sources to match the reference; tier 2
    // (structural) must still see the files as submitted. The build FAILs for it (the files
    // are put back), and its lenient tier lets the cascade go on to the structural tier.
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    let config = "schema: judge-ci.v1\nname: snapshot\nversion: \"1\"\nreference:\n  path: ../reference\njury:\n  tiers:\n    - name: build\n      policy: ACCEPT_ON_ALL_PASS\n      checks:\n        - type: command\n          name: build\n          run: \"sed -i 's/javax/jakarta/' src/main/java/a/A.java\"\n    - name: structural\n      policy: FINAL_TIER\n      checks:\n        - type: import-diff\n          forbid: [javax.servlet.*]\n";
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            (
                "src/main/java/a/A.java",
                "package a;\nimport javax.servlet.Servlet;\nclass A {}\n",
            ),
        ],
    );
    common::write_tree(
        &root.path().join("reference"),
        &[(
            "src/main/java/a/A.java",
            "package a;\nimport jakarta.servlet.Servlet;\nclass A {}\n",
        )],
    );
    let o = common::judge_ci(&ws, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let report = common::report(&ws.join("judge-ci-out"));
    assert_eq!(report["interpretation"]["decidedBy"], "structural");
    assert_eq!(report["interpretation"]["reading"], "REJECTED");
}

#[test]
fn a_task_command_that_rewrites_the_sources_does_not_pass_the_structural_tier() {
    // The task's `post` command (run before the jury, in the workspace) runs code that copies
    // the migrated file over the submitted one; the structural tier, the first tier, must
    // still judge the files as submitted, and with the reference as a revision of the
    // workspace's own repository.
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    let config = "schema: judge-ci.v1\nname: task-rewrite\nversion: \"1\"\njury:\n  tiers:\n    - name: structural\n      policy: FINAL_TIER\n      checks:\n        - type: import-diff\n          forbid: [javax.servlet.*]\n";
    let migrated = "package a;\nimport jakarta.servlet.Servlet;\nclass A {}\n";
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            ("src/main/java/a/A.java", migrated),
        ],
    );
    common::git(&ws, &["init", "-q"]);
    common::git(&ws, &["add", "-A"]);
    common::git(&ws, &["commit", "-qm", "reference"]);
    common::git(&ws, &["tag", "solution"]);
    common::write_tree(
        &ws,
        &[(
            "src/main/java/a/A.java",
            "package a;\nimport javax.servlet.Servlet;\nclass A {}\n",
        )],
    );
    common::git(&ws, &["commit", "-qam", "submitted"]);
    let task = root.path().join("task.yml");
    std::fs::write(
        &task,
        "schema: bench.task.v1\nid: t\ninstruction: migrate\npost:\n  - git show solution:src/main/java/a/A.java > src/main/java/a/A.java\n",
    )
    .unwrap();
    let o = common::judge_ci(
        &ws,
        &["--task", task.to_str().unwrap(), "--reference", "solution"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let report = common::report(&ws.join("judge-ci-out"));
    assert_eq!(report["interpretation"]["reading"], "REJECTED", "{report}");
}

#[test]
fn a_build_that_kills_itself_is_a_fail_and_a_lenient_later_tier_cannot_accept() {
    // The subject's program dies of a signal judge-ci never sent (here a real segfault, which
    // even a PID namespace's first process cannot ignore). Were that an instrument ERROR, the
    // cascade would go on and the lenient tier below would accept the PR.
    let config = "schema: judge-ci.v1\nname: crash\nversion: \"1\"\njury:\n  tiers:\n    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - type: command\n          name: build\n          run: \"exec python3 -c 'import ctypes; ctypes.string_at(0)'\"\n          timeout: PT60S\n    - name: lenient\n      policy: FINAL_TIER\n      checks:\n        - {type: file-exists, path: src/A.java}\n";
    let ws = workspace(config);
    let o = common::command(ws.path(), &["--dry-run", "--out", "judge-ci-out"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_EVENT_NAME")
        .output()
        .unwrap();
    let report = common::report(&ws.path().join("judge-ci-out"));
    assert_eq!(
        report["tiers"][0]["judges"][0]["status"], "fail",
        "{report}"
    );
    let build = &report["verdict"]["individual"][0];
    assert!(
        build["reasoning"]
            .as_str()
            .is_some_and(|r| r.contains("signal 11") && r.contains("did not send")),
        "{build}"
    );
    assert_eq!(report["interpretation"]["reading"], "REJECTED", "{report}");
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
}

/// Attack finding NC5-7 (trust.md points 19 and 25): `grep -r` passes over symbolic links it
/// meets, while javac and Maven read through them, so sources moved aside and linked back
/// kept their javax imports from the example's old `! grep -rn …` check. Such a walk is not
/// run over a tree that holds links (a FAIL naming them); the shipped example now says
/// `grep -R`, which follows them and finds the import.
#[test]
fn a_walk_that_passes_over_links_is_not_run_over_a_tree_that_holds_them() {
    for (run, says_not_run) in [
        ("! grep -rn 'javax\\.servlet' --include=*.java .", true),
        ("! grep -Rn 'javax\\.servlet' --include=*.java .", false),
    ] {
        let d = workspace(&command_config(run));
        common::write_tree(
            d.path(),
            &[(
                "legacy/Legacy.java.txt",
                "import javax.servlet.Filter;\nclass Legacy {}\n",
            )],
        );
        std::fs::create_dir_all(d.path().join("src")).unwrap();
        std::os::unix::fs::symlink(
            "../legacy/Legacy.java.txt",
            d.path().join("src/Legacy.java"),
        )
        .unwrap();
        let out = d.path().join("judge-ci-out");
        let o = common::judge_ci(d.path(), &["--dry-run", "--out", out.to_str().unwrap()]);
        let r = common::report(&out);
        let j = &r["verdict"]["individual"][0];
        assert_eq!(j["status"], "fail", "{run}: {j:#}");
        assert_eq!(o.status.code(), Some(1), "{run}: {}", common::stderr(&o));
        let reasoning = j["reasoning"].as_str().unwrap_or_default();
        if says_not_run {
            assert!(
                reasoning.contains("passes over symbolic links")
                    && j["metadata"]["symbolicLinks"][0] == "src/Legacy.java",
                "{j:#}"
            );
        } else {
            assert!(
                j["metadata"]["output"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("import javax.servlet.Filter"),
                "grep -R read through the link: {j:#}"
            );
        }
    }
}

#[test]
fn names_the_pull_request_puts_in_the_tree_never_become_words_of_a_command() {
    // The bundled example's own check: `--include=*.java` is meant for grep. A shell that
    // expands globs turns it into `--include=x.java` once the PR adds a file of that name, so
    // grep searches x.java alone, finds no javax and the check passes (trust.md point 25).
    let run = "! grep -rn 'javax\\.servlet' --include=*.java --include=pom.xml .";
    let d = workspace(&command_config(run));
    common::write_tree(
        d.path(),
        &[
            (
                "src/Legacy.java",
                "import javax.servlet.Filter;\nclass Legacy {}\n",
            ),
            ("--include=x.java", "\n"),
        ],
    );
    let out = d.path().join("judge-ci-out");
    let o = common::judge_ci(d.path(), &["--dry-run", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let r = common::report(&out);
    let j = &r["verdict"]["individual"][0];
    assert_eq!(j["status"], "fail", "{j:#}");
    assert!(
        j["metadata"]["output"]
            .as_str()
            .unwrap_or_default()
            .contains("src/Legacy.java:1:import javax.servlet.Filter"),
        "grep searched the tree as written: {j:#}"
    );

    // A config that asks for expansion (glob: true) is not run over such a tree.
    let config = command_config(run).replace(
        "          timeout:",
        "          glob: true\n          timeout:",
    );
    std::fs::write(d.path().join("judge-ci.yml"), config).unwrap();
    std::fs::remove_file(d.path().join("src/Legacy.java")).unwrap();
    let o = common::judge_ci(d.path(), &["--dry-run", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let r = common::report(&out);
    let j = &r["verdict"]["individual"][0];
    assert_eq!(j["status"], "fail", "{j:#}");
    assert!(
        j["reasoning"].as_str().unwrap().contains("was not run")
            && j["metadata"]["optionLikeNames"][0] == "--include=x.java",
        "{j:#}"
    );
}

/// Attack findings NC5 and NC10 (trust.md point 25), the same class as the `--include=`
/// name above: a name the pull request chooses becomes other words of the config's command.
/// Under `glob: true`, `@opts.java` is an argument file for javadoc, javac, java and gcc
/// (`*.java` expands to `@opts.java Util.java opts.java`, and `opts.java` says `--version`);
/// in `find … | xargs grep`, `Legacy Filter.java` becomes the two words `…/Legacy` and
/// `Filter.java`, so grep finds neither and the check passed. Neither command is run over
/// such a tree now: each is a FAIL naming the file.
#[test]
fn names_that_become_argument_files_or_split_into_words_are_never_read_by_a_command() {
    let cases = [
        (
            "find src -name '*.java' | xargs grep -l 'javax.servlet' && exit 1 || exit 0",
            false,
            "src/Legacy Filter.java",
            "reads a list of names back as words or lines",
        ),
        // Attack finding NC5-3: `read` without -r drops the backslash of `\Legacy.java`, grep
        // opens a file that is not there, and the loop passed.
        (
            "find src -name '*.java' | while read f; do if grep -q javax.servlet \"$f\"; then echo \"$f\"; exit 1; fi; done",
            false,
            "src/\\Legacy.java",
            "reads a list of names back as words or lines",
        ),
        (
            "while IFS= read -r f; do grep -q javax.servlet \"$f\" && exit 1; done < <(git ls-files -- src); exit 0",
            false,
            "src/ Legacy.java",
            "reads a list of names back as words or lines",
        ),
        (
            "! grep -l 'javax.servlet' src/*.java",
            true,
            "src/@opts.java",
            "expands globs",
        ),
    ];
    for (run, glob, name, how) in cases {
        let mut config = command_config(run);
        if glob {
            config = config.replace(
                "          timeout:",
                "          glob: true\n          timeout:",
            );
        }
        let d = workspace(&config);
        common::write_tree(
            d.path(),
            &[(name, "import javax.servlet.Filter;\nclass Legacy {}\n")],
        );
        let out = d.path().join("judge-ci-out");
        let o = common::judge_ci(d.path(), &["--dry-run", "--out", out.to_str().unwrap()]);
        let r = common::report(&out);
        let j = &r["verdict"]["individual"][0];
        let what = format!("{run}: {}\n{j:#}", common::stderr(&o));
        assert_eq!(o.status.code(), Some(1), "{what}");
        assert_eq!(j["status"], "fail", "{what}");
        let reasoning = j["reasoning"].as_str().unwrap();
        assert!(
            reasoning.contains("was not run") && reasoning.contains(how),
            "{what}"
        );
        // Names are shown escaped (a backslash doubled, a newline as \n).
        assert_eq!(
            j["metadata"]["optionLikeNames"][0],
            name.escape_debug().to_string(),
            "{what}"
        );
    }
}

#[test]
fn validate_warns_about_commands_whose_meaning_depends_on_the_tree() {
    let d = workspace(&command_config(
        "find . -name '*.java' | xargs grep -l javax",
    ));
    let o = common::judge_ci(d.path(), &["validate"]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(0), "a warning, not an error: {err}");
    assert!(err.contains("xargs without -0"), "{err}");
    let d = workspace(&command_config(
        "find src -name '*.java' | while read f; do grep -q javax \"$f\" && exit 1; done; exit 0",
    ));
    let o = common::judge_ci(d.path(), &["validate"]);
    let err = common::stderr(&o);
    assert!(
        err.contains("are read back as text (read, mapfile"),
        "{err}"
    );
    let d = workspace(&command_config(
        "find . -name '*.java' -print0 | xargs -0 grep -l javax --",
    ));
    let o = common::judge_ci(d.path(), &["validate"]);
    assert!(
        !common::stderr(&o).contains("xargs without -0"),
        "{}",
        common::stderr(&o)
    );
}

#[test]
fn a_change_in_a_language_no_judge_reads_is_never_accepted_as_all_zero_files_match() {
    // A Kotlin project that still imports javax.persistence, judged against its migrated
    // reference with Java's structural judges: no file matches their globs, so nothing was
    // examined; that is never "all 0 compared file(s) match" (trust.md point 19).
    let d = tempfile::tempdir().unwrap();
    let (ws, reference) = (d.path().join("workspace"), d.path().join("reference"));
    let config = "schema: judge-ci.v1\nname: kotlin\nversion: \"1\"\nreference:\n  path: ../reference\njury:\n  tiers:\n    - name: migration\n      policy: FINAL_TIER\n      checks:\n        - type: import-diff\n          forbid: [javax.persistence.*]\n        - type: ast-diff\n";
    common::write_tree(
        &ws,
        &[
            ("judge-ci.yml", config),
            (
                "src/main/kotlin/a/Book.kt",
                "package a\nimport javax.persistence.Entity\n@Entity class Book\n",
            ),
        ],
    );
    common::write_tree(
        &reference,
        &[(
            "src/main/kotlin/a/Book.kt",
            "package a\nimport jakarta.persistence.Entity\n@Entity class Book\n",
        )],
    );
    let out = d.path().join("out");
    let o = common::judge_ci(&ws, &["--dry-run", "--out", out.to_str().unwrap()]);
    assert_ne!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let r = common::report(&out);
    for j in r["verdict"]["individual"].as_array().unwrap() {
        assert_ne!(j["status"], "pass", "{j:#}");
        assert!(
            j["reasoning"]
                .as_str()
                .unwrap()
                .contains("nothing was examined"),
            "{j:#}"
        );
    }
    // With the exclusion declared and honoured, the judges are not applicable, never a pass.
    let declared = config
        .replace(
            "      checks:\n",
            "      voting: {strategy: all-must-pass, not-applicable: exclude}\n      checks:\n",
        )
        .replace(
            "        - type: ast-diff\n",
            "        - type: ast-diff\n          not-applicable-when: no Java source in either tree\n",
        )
        .replace(
            "          forbid:",
            "          not-applicable-when: no Java source in either tree\n          forbid:",
        );
    std::fs::write(ws.join("judge-ci.yml"), declared).unwrap();
    let o = common::judge_ci(&ws, &["--dry-run", "--out", out.to_str().unwrap()]);
    let r = common::report(&out);
    assert_eq!(
        r["verdict"]["individual"][0]["status"],
        "not_applicable",
        "{}\n{:#}",
        common::stderr(&o),
        r["verdict"]
    );
    assert_ne!(
        r["interpretation"]["reading"], "accepted",
        "{:#}",
        r["interpretation"]
    );
}
