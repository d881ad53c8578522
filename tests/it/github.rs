//! Publishing to GitHub, end to end: the real binary in a simulated Actions runner against a
//! loopback GitHub (tests/it/common/fake_github.rs) that validates every request body against
//! GitHub's OpenAPI description. Sticky comment (create, skip unchanged, update, modes, races,
//! lost answers), check run (head commit per event, annotation batches), retries, forks,
//! GitHub Enterprise URLs and `judge-ci publish --from`.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::fake_github::{BOT, FakeGitHub, Fault, Layout};
use serde_json::{Value, json};

const TOKEN: &str = "ghs_SENTINELTOKEN0123456789abcdef";
const PR_HEAD: &str = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";

/// A workspace and reference whose verdict is set by `bad`: that many files still import
/// `javax.servlet` (each an annotation), or none (accepted).
struct Project {
    root: tempfile::TempDir,
}

impl Project {
    fn new(bad: usize, extra_report: &str) -> Project {
        let root = tempfile::tempdir().unwrap();
        let config = format!(
            "schema: judge-ci.v1\nname: gh-test\nreference: {{path: ../reference}}\njury:\n  tiers:\n    - name: imports\n      policy: FINAL_TIER\n      checks:\n        - type: import-diff\n          forbid: [javax.servlet.*]\nreport:\n  annotations: 150\n{extra_report}"
        );
        common::write_tree(
            root.path(),
            &[
                ("workspace/judge-ci.yml", &config),
                (
                    "reference/src/A.java",
                    "package p;\nimport jakarta.servlet.Filter;\nclass A {}\n",
                ),
            ],
        );
        let p = Project { root };
        p.set_bad(bad);
        p
    }

    fn ws(&self) -> PathBuf {
        self.root.path().join("workspace")
    }

    /// Rewrites the workspace so `bad` files import javax.servlet.
    fn set_bad(&self, bad: usize) {
        let src = self.ws().join("src");
        let _ = std::fs::remove_dir_all(&src);
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(
            src.join("A.java"),
            "package p;\nimport jakarta.servlet.Filter;\nclass A {}\n",
        )
        .unwrap();
        for i in 0..bad {
            std::fs::write(
                src.join(format!("B{i}.java")),
                format!("package p;\nimport javax.servlet.Filter;\nclass B{i} {{}}\n"),
            )
            .unwrap();
        }
    }
}

/// A simulated runner: temp files for the summary and outputs, and optionally a small disk
/// for the report folder.
struct Runner {
    dir: tempfile::TempDir,
    /// The report folder is a tmpfs of this many KiB (in a user and mount namespace of its
    /// own), whose contents are copied to `after/` when judge-ci exits.
    small_disk_kib: Option<u64>,
}

struct Run {
    out: Output,
    outputs: HashMap<String, String>,
    stderr: String,
    stdout: String,
}

fn event(name: &str) -> PathBuf {
    common::repo_root()
        .join("tests/fixtures/github/events")
        .join(name)
}

/// A copy of an event payload with `edit` applied.
fn edited_event(dir: &Path, name: &str, edit: impl Fn(&mut Value)) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(event(name)).unwrap()).unwrap();
    edit(&mut v);
    let p = dir.join(format!("edited-{n}-{name}"));
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

impl Runner {
    fn new() -> Runner {
        Runner {
            dir: tempfile::tempdir().unwrap(),
            small_disk_kib: None,
        }
    }

    /// A runner whose report folder is a `kib` KiB disk.
    fn with_small_disk(kib: u64) -> Runner {
        let r = Runner {
            dir: tempfile::tempdir().unwrap(),
            small_disk_kib: Some(kib),
        };
        std::fs::create_dir_all(r.out_dir()).unwrap();
        std::fs::create_dir_all(r.after_dir()).unwrap();
        // An earlier run's report.md, which must not pass for this run's.
        std::fs::create_dir_all(r.seed_dir()).unwrap();
        std::fs::write(r.seed_dir().join("report.md"), "stale").unwrap();
        r
    }

    /// What the small disk holds before the run.
    fn seed_dir(&self) -> PathBuf {
        self.dir.path().join("seed")
    }

    /// Where the small disk's contents are copied after the run.
    fn after_dir(&self) -> PathBuf {
        self.dir.path().join("after")
    }

    fn temp_dir(&self) -> PathBuf {
        self.dir.path().join("runner-temp")
    }

    fn env(&self, gh: &FakeGitHub, event_name: &str, event_path: &Path) -> Vec<(String, String)> {
        [
            ("GITHUB_ACTIONS", "true".to_string()),
            ("GITHUB_EVENT_NAME", event_name.to_string()),
            ("GITHUB_EVENT_PATH", event_path.display().to_string()),
            ("GITHUB_REPOSITORY", "Codertocat/Hello-World".to_string()),
            (
                "GITHUB_SHA",
                "ffffffffffffffffffffffffffffffffffffffff".to_string(),
            ),
            ("GITHUB_SERVER_URL", "https://github.com".to_string()),
            ("GITHUB_RUN_ID", "4242".to_string()),
            ("GITHUB_RUN_ATTEMPT", "1".to_string()),
            ("GITHUB_API_URL", gh.api_url()),
            ("GITHUB_GRAPHQL_URL", gh.graphql_url()),
            (
                "GITHUB_STEP_SUMMARY",
                self.dir.path().join("summary.md").display().to_string(),
            ),
            (
                "GITHUB_OUTPUT",
                self.dir.path().join("output.txt").display().to_string(),
            ),
            ("RUNNER_TEMP", self.temp_dir().display().to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// Runs `judge-ci ARGS` in `dir` as a step of an Actions job.
    fn run(
        &self,
        dir: &Path,
        gh: &FakeGitHub,
        event_name: &str,
        event_path: &Path,
        token: Option<&str>,
        args: &[&str],
    ) -> Run {
        let _ = std::fs::remove_file(self.dir.path().join("output.txt"));
        std::fs::create_dir_all(self.temp_dir()).unwrap();
        let bin = env!("CARGO_BIN_EXE_judge-ci");
        let mut cmd = match self.small_disk_kib {
            None => Command::new(bin),
            Some(kib) => common::small_disk::command(
                kib,
                Path::new(&self.out_dir()),
                &self.seed_dir(),
                &self.after_dir(),
                bin,
            ),
        };
        // These tests are about publishing, not about where the config comes from (that is
        // tests/it/trust.rs): the workspace is not a git repository, so the pull request's own
        // config is read, explicitly.
        if args.first() != Some(&"publish") {
            cmd.args(["--config-from", "head"]);
        }
        cmd.args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .env_remove("GITHUB_TOKEN")
            .env_remove("GH_TOKEN");
        for (k, v) in self.env(gh, event_name, event_path) {
            cmd.env(k, v);
        }
        if let Some(t) = token {
            cmd.env("GITHUB_TOKEN", t);
        }
        let out = cmd.output().unwrap();
        let outputs = common::read_outputs(&self.dir.path().join("output.txt"));
        Run {
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            out,
            outputs,
        }
    }

    fn out_dir(&self) -> String {
        self.dir.path().join("out").display().to_string()
    }
}

fn judge(p: &Project, r: &Runner, gh: &FakeGitHub, args: &[&str]) -> Run {
    let out = r.out_dir();
    let mut all = vec!["--out", out.as_str()];
    all.extend_from_slice(args);
    r.run(
        &p.ws(),
        gh,
        "pull_request",
        &event("pull_request.opened.json"),
        Some(TOKEN),
        &all,
    )
}

fn assert_clean(gh: &FakeGitHub, r: &Run) {
    assert!(gh.violations().is_empty(), "{:#?}", gh.violations());
    for req in gh.requests() {
        assert_eq!(
            req.auth.as_deref(),
            Some(format!("Bearer {TOKEN}").as_str()),
            "{} {} is authenticated with the token",
            req.method,
            req.path
        );
    }
    assert!(
        !r.stdout.contains("SENTINEL") && !r.stderr.contains("SENTINEL"),
        "the token is never printed"
    );
}

fn ours(gh: &FakeGitHub) -> Vec<common::fake_github::Comment> {
    gh.comments()
        .into_iter()
        .filter(|c| c.body.starts_with("<!-- judge-ci:sticky:v1"))
        .collect()
}

#[test]
fn first_run_posts_rerun_skips_unchanged_and_a_new_result_edits_the_same_comment() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    // Someone else's comment, and someone else quoting our marker, are never touched.
    gh.add_comment(2, "octocat", "LGTM");
    gh.add_comment(
        2,
        "octocat",
        "<!-- judge-ci:sticky:v1 key=whatever digest=0 sha=- -->\nfake",
    );
    let p = Project::new(3, "");
    let r = Runner::new();

    let first = judge(&p, &r, &gh, &[]);
    assert_eq!(first.out.status.code(), Some(1), "{}", first.stderr);
    assert_clean(&gh, &first);
    let c = ours(&gh);
    assert_eq!(c.len(), 2, "ours plus the quoting one");
    let mine: Vec<_> = c
        .iter()
        .filter(|c| c.login == format!("{BOT}[bot]"))
        .collect();
    assert_eq!(mine.len(), 1);
    assert!(mine[0].body.contains("Rejected"), "{}", mine[0].body);
    assert!(mine[0].body.len() <= 65_536);
    let runs = gh.check_runs();
    assert_eq!(runs.len(), 1);
    let create = &runs[0].create;
    assert_eq!(create["head_sha"], PR_HEAD, "the PR head, never GITHUB_SHA");
    assert_eq!(create["name"], "judge-ci / gh-test");
    assert_eq!(create["conclusion"], "failure");
    assert_eq!(
        create["details_url"],
        "https://github.com/Codertocat/Hello-World/actions/runs/4242"
    );
    assert_eq!(
        runs[0].annotations(),
        6,
        "per file: the forbidden import and the import the reference lacks"
    );
    assert_eq!(first.outputs["publish-mode"], "api");
    assert!(first.outputs["comment-url"].contains(&format!("issuecomment-{}", mine[0].id)));
    assert!(first.outputs["check-run-url"].ends_with(&format!("/runs/{}", runs[0].id)));
    assert!(
        !first.stdout.contains("::error "),
        "the check run carries the annotations: {}",
        first.stdout
    );

    // Same result: nothing new is written to the comment.
    gh.clear_requests();
    let second = judge(&p, &r, &gh, &[]);
    assert_eq!(second.out.status.code(), Some(1));
    assert_eq!(
        gh.count("POST", "/comments") + gh.count("PATCH", "/comments/"),
        0
    );
    assert!(
        second.stderr.contains("has not changed"),
        "{}",
        second.stderr
    );
    assert_eq!(second.outputs["comment-url"], first.outputs["comment-url"]);

    // A different result edits the same comment.
    p.set_bad(1);
    gh.clear_requests();
    let third = judge(&p, &r, &gh, &[]);
    assert_eq!(third.out.status.code(), Some(1));
    assert_eq!(gh.count("POST", "/comments"), 0);
    assert_eq!(gh.count("PATCH", &format!("/comments/{}", mine[0].id)), 1);
    let now: Vec<_> = ours(&gh)
        .into_iter()
        .filter(|c| c.login != "octocat")
        .collect();
    assert_eq!(now.len(), 1);
    assert_eq!(now[0].id, mine[0].id);
    assert_ne!(now[0].body, mine[0].body);
    assert_clean(&gh, &third);
}

#[test]
fn one_hundred_and_twenty_annotations_go_in_three_batches() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    let p = Project::new(60, "");
    let r = Runner::new();
    let run = judge(&p, &r, &gh, &["--comment-mode", "off"]);
    assert_eq!(run.out.status.code(), Some(1), "{}", run.stderr);
    let runs = gh.check_runs();
    assert_eq!(runs.len(), 1);
    let sizes: Vec<usize> = std::iter::once(&runs[0].create)
        .chain(&runs[0].updates)
        .map(|b| b["output"]["annotations"].as_array().unwrap().len())
        .collect();
    assert_eq!(sizes, vec![50, 50, 20]);
    assert_eq!(gh.count("POST", "/comments"), 0, "comments are off");
    assert_clean(&gh, &run);
}

#[test]
fn a_forks_read_only_token_falls_back_and_keeps_the_exit_code() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.read_only(TOKEN);
    let p = Project::new(2, "");
    let r = Runner::new();
    let fork = edited_event(r.dir.path(), "pull_request.opened.json", |v| {
        v["pull_request"]["head"]["repo"]["full_name"] = "someone/Hello-World".into();
    });
    let out = r.out_dir();
    let run = r.run(
        &p.ws(),
        &gh,
        "pull_request",
        &fork,
        Some(TOKEN),
        &["--out", &out],
    );
    assert_eq!(
        run.out.status.code(),
        Some(1),
        "the verdict's code: {}",
        run.stderr
    );
    assert!(run.stderr.contains("read-only token"), "{}", run.stderr);
    assert!(run.stderr.contains("workflow_run"), "{}", run.stderr);
    assert!(
        run.stderr.contains("judge-ci publish --from"),
        "{}",
        run.stderr
    );
    assert_eq!(run.outputs["publish-mode"], "summary-only");
    assert_eq!(run.outputs["comment-url"], "");
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("::error "))
            .count(),
        2,
        "annotations as workflow commands instead: {}",
        run.stdout
    );
    assert!(gh.comments().is_empty() && gh.check_runs().is_empty());
    let summary = std::fs::read_to_string(r.dir.path().join("summary.md")).unwrap();
    assert!(summary.contains("Rejected"));
    assert!(
        Path::new(&out).join("event.json").is_file(),
        "the event is kept for publish --from"
    );
    assert_clean(&gh, &run);

    // Same repository, missing permissions: the message names them.
    let same = r.run(
        &p.ws(),
        &gh,
        "pull_request",
        &event("pull_request.opened.json"),
        Some(TOKEN),
        &["--out", &out],
    );
    assert_eq!(same.out.status.code(), Some(1));
    assert!(same.stderr.contains("`checks: write`"), "{}", same.stderr);
    assert!(
        same.stderr.contains("`pull-requests: write`"),
        "{}",
        same.stderr
    );
}

#[test]
fn no_token_means_summary_and_annotations_only() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    let p = Project::new(1, "");
    let r = Runner::new();
    let out = r.out_dir();
    let run = r.run(
        &p.ws(),
        &gh,
        "pull_request",
        &event("pull_request.opened.json"),
        None,
        &["--out", &out],
    );
    assert_eq!(run.out.status.code(), Some(1));
    assert!(run.stderr.contains("no GitHub token"), "{}", run.stderr);
    assert!(gh.requests().is_empty());
    assert_eq!(run.outputs["publish-mode"], "summary-only");
    assert!(
        run.stdout.contains("::error file=src/B0.java,line=2"),
        "{}",
        run.stdout
    );
}

#[test]
fn require_publish_turns_a_publishing_shortfall_into_exit_4() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    let p = Project::new(0, "");
    let r = Runner::new();
    let out = r.out_dir();
    let args = ["--out", out.as_str(), "--require-publish", "-q"];
    let pr = event("pull_request.opened.json");
    // Accepted, but no token: the gate would pass; required publishing makes it 4.
    let run = r.run(&p.ws(), &gh, "pull_request", &pr, None, &args);
    assert_eq!(run.out.status.code(), Some(4), "{}", run.stderr);
    assert!(
        run.stderr.contains("no GitHub token") && run.stderr.contains("--require-publish"),
        "even with -q the shortfall is said: {}",
        run.stderr
    );
    // The comment fails after retries, the check run succeeds: still short.
    gh.fail(
        "POST",
        "/issues/2/comments",
        1,
        Fault::Status(422, vec![], json!({"message": "Validation Failed"})),
    );
    let run = r.run(&p.ws(), &gh, "pull_request", &pr, Some(TOKEN), &args);
    assert_eq!(run.out.status.code(), Some(4), "{}", run.stderr);
    assert!(run.stderr.contains("could not comment"), "{}", run.stderr);
    assert_eq!(gh.check_runs().len(), 1);
    // Everything posted: the verdict's code.
    let run = r.run(&p.ws(), &gh, "pull_request", &pr, Some(TOKEN), &args);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(ours(&gh).len(), 1);
    // A push has no pull request to comment on: not a shortfall.
    let push = event("push.json");
    let run = r.run(&p.ws(), &gh, "push", &push, Some(TOKEN), &args);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    assert_clean(&gh, &run);
}

#[test]
fn reads_are_retried_after_500_and_429_and_writes_only_when_github_refused_them() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.fail(
        "GET",
        "/issues/2/comments",
        1,
        Fault::Status(500, vec![], json!({"message": "Server Error"})),
    );
    gh.fail(
        "POST",
        "/check-runs",
        1,
        Fault::Status(
            429,
            vec![("retry-after", "1".to_string())],
            json!({"message": "You have exceeded a secondary rate limit"}),
        ),
    );
    let p = Project::new(1, "");
    let r = Runner::new();
    let run = judge(&p, &r, &gh, &[]);
    assert_eq!(run.out.status.code(), Some(1), "{}", run.stderr);
    assert_eq!(
        gh.count("GET", "/issues/2/comments"),
        3,
        "500, then the list, then the re-read after create"
    );
    assert_eq!(
        gh.count("POST", "/check-runs"),
        2,
        "a 429 was not processed: sent again"
    );
    assert_eq!(gh.check_runs().len(), 1);
    assert_eq!(ours(&gh).len(), 1);
    assert_clean(&gh, &run);

    // A 502 on a create is an unknown outcome: not blindly repeated.
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.fail(
        "POST",
        "/issues/2/comments",
        1,
        Fault::Status(502, vec![], json!({"message": "Bad Gateway"})),
    );
    let run = judge(&p, &r, &gh, &["--check-run", "false"]);
    assert_eq!(run.out.status.code(), Some(1));
    assert_eq!(ours(&gh).len(), 1, "re-found nothing, so posted once more");
    assert_eq!(gh.count("POST", "/issues/2/comments"), 2);
    assert_eq!(gh.count("POST", "/check-runs"), 0, "--check-run false");
}

#[test]
fn two_concurrent_runs_leave_one_comment() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.list_barrier(2);
    let p = Project::new(2, "");
    let (a, b) = (Runner::new(), Runner::new());
    let (ra, rb) = std::thread::scope(|s| {
        let ha = s.spawn(|| judge(&p, &a, &gh, &["--check-run", "false"]));
        let hb = s.spawn(|| judge(&p, &b, &gh, &["--check-run", "false"]));
        (ha.join().unwrap(), hb.join().unwrap())
    });
    assert_eq!(ra.out.status.code(), Some(1), "{}", ra.stderr);
    assert_eq!(rb.out.status.code(), Some(1), "{}", rb.stderr);
    assert_eq!(
        gh.count("POST", "/issues/2/comments"),
        2,
        "both raced to create: {:?}\n{}\n{}",
        gh.requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect::<Vec<_>>(),
        ra.stderr,
        rb.stderr
    );
    let left = ours(&gh);
    assert_eq!(left.len(), 1, "converged on one comment");
    assert_eq!(ra.outputs["comment-url"], rb.outputs["comment-url"]);
    assert!(ra.outputs["comment-url"].contains(&left[0].id.to_string()));
    assert_clean(&gh, &ra);
}

#[test]
fn recreate_minimize_and_delete_on_pass() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    let p = Project::new(2, "");
    let r = Runner::new();
    judge(&p, &r, &gh, &["--check-run", "false"]);
    let first = ours(&gh)[0].id;

    p.set_bad(1);
    judge(
        &p,
        &r,
        &gh,
        &["--check-run", "false", "--comment-mode", "recreate"],
    );
    let c = ours(&gh);
    assert_eq!(c.len(), 1);
    assert!(c[0].id > first, "deleted and posted anew");

    p.set_bad(3);
    let run = judge(
        &p,
        &r,
        &gh,
        &["--check-run", "false", "--comment-mode", "minimize"],
    );
    let c = ours(&gh);
    assert_eq!(c.len(), 2, "{}", run.stderr);
    assert!(c[0].minimized && !c[1].minimized);
    // An unchanged result posts nothing, even in minimize mode.
    judge(
        &p,
        &r,
        &gh,
        &["--check-run", "false", "--comment-mode", "minimize"],
    );
    assert_eq!(ours(&gh).len(), 2);

    // Accepted with delete-on-pass: our comments go, none is posted.
    p.set_bad(0);
    let run = judge(&p, &r, &gh, &["--check-run", "false", "--delete-on-pass"]);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    assert!(ours(&gh).is_empty());
    assert!(run.stderr.contains("delete-on-pass"), "{}", run.stderr);
    assert_clean(&gh, &run);
}

#[test]
fn github_enterprise_urls() {
    let gh = FakeGitHub::start(Layout::ENTERPRISE);
    let p = Project::new(1, "");
    let r = Runner::new();
    let run = judge(&p, &r, &gh, &[]);
    assert_eq!(run.out.status.code(), Some(1), "{}", run.stderr);
    assert_eq!(ours(&gh).len(), 1);
    assert_eq!(gh.check_runs().len(), 1);
    assert!(gh.requests().iter().all(|q| q.path.starts_with("/api/")));
    assert!(
        gh.count("POST", "/api/graphql") >= 1,
        "GraphQL at /api/graphql, not /api/v3/graphql"
    );
    assert_clean(&gh, &run);
}

#[test]
fn every_event_kind_reports_on_its_head_commit() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.add_pull(
        1,
        "c0ffee0000000000000000000000000000000001",
        "Codertocat:feature",
    );
    let p = Project::new(1, "");
    let r = Runner::new();
    let out = r.out_dir();
    let cases = [
        ("pull_request", event("pull_request.opened.json"), PR_HEAD),
        (
            "pull_request_target",
            event("pull_request.synchronize.json"),
            PR_HEAD,
        ),
        (
            "push",
            event("push.json"),
            "ffffffffffffffffffffffffffffffffffffffff",
        ),
        (
            "workflow_run",
            event("workflow_run.completed.json"),
            "5779607b49aab1200488439f02372c57b4f75444",
        ),
        (
            "merge_group",
            event("merge_group.checks_requested.json"),
            "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d",
        ),
        (
            "issue_comment",
            edited_event(r.dir.path(), "issue_comment.created.json", |v| {
                v["issue"]["pull_request"] =
                    json!({"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"});
            }),
            "c0ffee0000000000000000000000000000000001",
        ),
    ];
    for (i, (name, path, sha)) in cases.iter().enumerate() {
        let run = r.run(
            &p.ws(),
            &gh,
            name,
            path,
            Some(TOKEN),
            &["--out", &out, "--comment-mode", "off"],
        );
        assert_eq!(run.out.status.code(), Some(1), "{name}: {}", run.stderr);
        let runs = gh.check_runs();
        assert_eq!(runs.len(), i + 1, "{name}: {}", run.stderr);
        assert_eq!(runs[i].create["head_sha"], *sha, "{name}");
    }
    assert!(gh.violations().is_empty(), "{:#?}", gh.violations());
}

/// `GITHUB_RUN_ID` of every simulated run: the run a `workflow_run` event follows.
const RUN_ID: u64 = 4242;

/// The head commit of the fork's pull request in the two-workflow tests.
const FORK_HEAD: &str = "aaaabbbbccccddddeeeeffff0000111122223333";

/// The untrusted half of the two-workflow pattern: judge-ci in a fork's `pull_request` run
/// with a read-only token. Returns the runner (it owns the artifact's folder), the out
/// folder (the artifact a trusted `workflow_run` job downloads) and the run.
fn fork_pull_request_run(p: &Project, gh: &FakeGitHub) -> (Runner, String, Run) {
    let untrusted = Runner::new();
    let fork = edited_event(untrusted.dir.path(), "pull_request.opened.json", |v| {
        v["pull_request"]["head"]["repo"]["full_name"] = "someone/Hello-World".into();
        v["pull_request"]["head"]["sha"] = FORK_HEAD.into();
    });
    let artifact = untrusted.out_dir();
    let run = untrusted.run(
        &p.ws(),
        gh,
        "pull_request",
        &fork,
        Some(TOKEN),
        &["--out", &artifact],
    );
    (untrusted, artifact, run)
}

#[test]
fn publish_from_a_stored_report_in_a_workflow_run() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.read_only(TOKEN);
    let p = Project::new(2, "");
    // The untrusted run: a fork's PR, read-only token; its out folder is the artifact.
    let (_untrusted, artifact, run) = fork_pull_request_run(&p, &gh);
    assert_eq!(run.out.status.code(), Some(1));
    assert!(gh.comments().is_empty());

    // The trusted run: workflow_run with a write token; the PR list in the payload is empty
    // (forks), the saved event proposes PR 2, and GitHub confirms its head.
    let gh2 = FakeGitHub::start(Layout::DOTCOM);
    gh2.add_pull(2, FORK_HEAD, "someone:main");
    let trusted = Runner::new();
    let wr = edited_event(trusted.dir.path(), "workflow_run.completed.json", |v| {
        v["workflow_run"]["head_sha"] = FORK_HEAD.into();
        v["workflow_run"]["id"] = RUN_ID.into();
        v["workflow_run"]["pull_requests"] = json!([]);
        v["workflow_run"]["head_repository"]["full_name"] = "someone/Hello-World".into();
    });
    // The trusted job's checkout of the base branch holds the config (its name keys the
    // check run and the comment).
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::copy(
        p.ws().join("judge-ci.yml"),
        elsewhere.path().join("judge-ci.yml"),
    )
    .unwrap();
    let run = trusted.run(
        elsewhere.path(),
        &gh2,
        "workflow_run",
        &wr,
        Some(TOKEN),
        &["publish", "--from", &artifact],
    );
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    let c = ours(&gh2);
    assert_eq!(c.len(), 1, "{}", run.stderr);
    assert_eq!(c[0].issue, 2);
    assert_eq!(gh2.check_runs()[0].create["head_sha"], FORK_HEAD);
    assert_eq!(run.outputs["publish-mode"], "api");
    assert!(gh2.violations().is_empty(), "{:#?}", gh2.violations());

    // A report of another commit is refused.
    let gh3 = FakeGitHub::start(Layout::DOTCOM);
    let other = edited_event(trusted.dir.path(), "workflow_run.completed.json", |v| {
        v["workflow_run"]["head_sha"] = "1111111111111111111111111111111111111111".into();
    });
    let run = trusted.run(
        elsewhere.path(),
        &gh3,
        "workflow_run",
        &other,
        Some(TOKEN),
        &["publish", "--from", &artifact],
    );
    assert_eq!(run.out.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("not publishing a report of another commit"),
        "{}",
        run.stderr
    );
    assert!(gh3.requests().is_empty());

    // A report of the same commit from another run (an older run, another base or config)
    // is refused: the report is bound to the run this event follows.
    let gh5 = FakeGitHub::start(Layout::DOTCOM);
    let later = edited_event(trusted.dir.path(), "workflow_run.completed.json", |v| {
        v["workflow_run"]["head_sha"] = FORK_HEAD.into();
        v["workflow_run"]["id"] = (RUN_ID + 1).into();
        v["workflow_run"]["pull_requests"] = json!([]);
    });
    let run = trusted.run(
        elsewhere.path(),
        &gh5,
        "workflow_run",
        &later,
        Some(TOKEN),
        &["publish", "--from", &artifact],
    );
    assert_eq!(run.out.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("it was written by run 4242, and this event is for run 4243"),
        "{}",
        run.stderr
    );
    assert!(gh5.requests().is_empty());

    // A report judged under another config than the trusted checkout's is refused (G7/F10:
    // a fork's workflow_run names no pull request, so no base binds the report; the config
    // digest does), before any request.
    let changed = tempfile::tempdir().unwrap();
    let mut config = std::fs::read_to_string(p.ws().join("judge-ci.yml")).unwrap();
    config.push_str("# the default branch's config changed after the judging run\n");
    std::fs::write(changed.path().join("judge-ci.yml"), config).unwrap();
    let gh6 = FakeGitHub::start(Layout::DOTCOM);
    gh6.add_pull(2, FORK_HEAD, "someone:main");
    let run = trusted.run(
        changed.path(),
        &gh6,
        "workflow_run",
        &wr,
        Some(TOKEN),
        &["publish", "--from", &artifact],
    );
    assert_eq!(run.out.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("it was judged with a config of sha256")
            && run
                .stderr
                .contains("not publishing a report of another run"),
        "{}",
        run.stderr
    );
    assert!(gh6.requests().is_empty());

    // G10-1: a report that leaves out a binding field the event knows (its commit, its
    // config digest) is refused, never taken as a match.
    for (field, pointer) in [
        ("headSha", "/subject/headSha"),
        ("sha256", "/config/sha256"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let forged = tmp.path().join("out");
        common::copy_tree(Path::new(&artifact), &forged);
        let path = forged.join("report.json");
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        // The commit left out; the config digest (a required field) left empty.
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let fields = v.pointer_mut(parent).unwrap().as_object_mut().unwrap();
        if field == "headSha" {
            fields.remove(key);
        } else {
            fields.insert(key.into(), "".into());
        }
        v["interpretation"]["reading"] = "ACCEPTED".into();
        std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
        let gh7 = FakeGitHub::start(Layout::DOTCOM);
        gh7.add_pull(2, FORK_HEAD, "someone:main");
        let run = trusted.run(
            elsewhere.path(),
            &gh7,
            "workflow_run",
            &wr,
            Some(TOKEN),
            &[
                "publish",
                "--trust-report",
                "--from",
                forged.to_str().unwrap(),
            ],
        );
        assert_eq!(run.out.status.code(), Some(2), "{field}: {}", run.stderr);
        assert!(run.stderr.contains("(no"), "{field}: {}", run.stderr);
        assert!(gh7.requests().is_empty(), "{field}");
    }

    // G10-2's class: the folder must be as the judging run wrote it, by the same judge-ci
    // (what `resume` already refused): another version's report, a surface changed after the
    // run, a file planted beside the report.
    for (what, says) in [
        ("version", "this is judge-ci"),
        ("surface", "is not the file the run wrote"),
        ("planted", "is not a file the run wrote"),
        // G10-25: a derived field is derived again, never believed.
        ("reading", "the report was edited"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let forged = tmp.path().join("out");
        common::copy_tree(Path::new(&artifact), &forged);
        match what {
            "version" => {
                let path = forged.join("report.json");
                let mut v: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                v["tool"]["version"] = "0.0.1".into();
                std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
            }
            "surface" => std::fs::write(forged.join("report.md"), "accepted\n").unwrap(),
            "reading" => {
                let path = forged.join("report.json");
                let mut v: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                v["interpretation"]["reading"] = "ACCEPTED".into();
                std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
            }
            _ => std::fs::write(forged.join("extra.json"), "{}").unwrap(),
        }
        let gh9 = FakeGitHub::start(Layout::DOTCOM);
        gh9.add_pull(2, FORK_HEAD, "someone:main");
        let run = trusted.run(
            elsewhere.path(),
            &gh9,
            "workflow_run",
            &wr,
            Some(TOKEN),
            &["publish", "--from", forged.to_str().unwrap()],
        );
        assert_eq!(run.out.status.code(), Some(2), "{what}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{what}: {}", run.stderr);
        assert!(gh9.requests().is_empty(), "{what}");
    }

    // G10-24: the links the surfaces build are on this event's server and repository, not
    // the report's.
    let tmp = tempfile::tempdir().unwrap();
    let forged = tmp.path().join("out");
    common::copy_tree(Path::new(&artifact), &forged);
    let path = forged.join("report.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["subject"]["serverUrl"] = "https://evil.example".into();
    v["subject"]["repository"] = "attacker/lookalike".into();
    std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
    let gh10 = FakeGitHub::start(Layout::DOTCOM);
    gh10.add_pull(2, FORK_HEAD, "someone:main");
    let run = trusted.run(
        elsewhere.path(),
        &gh10,
        "workflow_run",
        &wr,
        Some(TOKEN),
        &["publish", "--from", forged.to_str().unwrap()],
    );
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    let posted = format!("{:?}{:?}", gh10.comments(), gh10.check_runs());
    assert!(posted.contains("Hello-World/blob/"), "{posted}");
    assert!(
        !posted.contains("evil.example") && !posted.contains("lookalike"),
        "{posted}"
    );

    // G10-2: where the event names the base (a same-repository run lists its pull request),
    // a report that names none is refused too.
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(&artifact).join("report.json")).unwrap(),
    )
    .unwrap();
    let base = stored["subject"]["baseSha"].as_str().unwrap().to_string();
    let with_base = edited_event(trusted.dir.path(), "workflow_run.completed.json", |v| {
        v["workflow_run"]["head_sha"] = FORK_HEAD.into();
        v["workflow_run"]["id"] = RUN_ID.into();
        v["workflow_run"]["pull_requests"] = json!([{
            "number": 2,
            "head": {"sha": FORK_HEAD, "ref": "main"},
            "base": {"sha": base, "ref": "master"}
        }]);
    });
    let tmp = tempfile::tempdir().unwrap();
    let forged = tmp.path().join("out");
    common::copy_tree(Path::new(&artifact), &forged);
    let mut v = stored.clone();
    v["subject"].as_object_mut().unwrap().remove("baseSha");
    std::fs::write(
        forged.join("report.json"),
        serde_json::to_string(&v).unwrap(),
    )
    .unwrap();
    let gh8 = FakeGitHub::start(Layout::DOTCOM);
    let run = trusted.run(
        elsewhere.path(),
        &gh8,
        "workflow_run",
        &with_base,
        Some(TOKEN),
        &["publish", "--from", forged.to_str().unwrap()],
    );
    assert_eq!(run.out.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("judged against base (none named)"),
        "{}",
        run.stderr
    );
    assert!(gh8.requests().is_empty());

    // A saved event naming a PR whose head is another commit is not believed.
    let gh4 = FakeGitHub::start(Layout::DOTCOM);
    gh4.add_pull(
        2,
        "9999999999999999999999999999999999999999",
        "Codertocat:x",
    );
    let run = trusted.run(
        elsewhere.path(),
        &gh4,
        "workflow_run",
        &wr,
        Some(TOKEN),
        &["publish", "--from", &artifact],
    );
    assert_eq!(run.out.status.code(), Some(0));
    assert!(ours(&gh4).is_empty(), "{}", run.stderr);
    assert!(run.stderr.contains("is not at"), "{}", run.stderr);
    assert_eq!(
        gh4.check_runs().len(),
        1,
        "the check run is still posted on the head"
    );
}

#[test]
fn a_hand_made_pass_report_from_a_forks_workflow_is_only_advisory() {
    // The fork's own pull_request workflow (its file is the PR's) uploads a report saying
    // ACCEPTED, with a run URL carrying markup and a ping, under another gate's config name.
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.read_only(TOKEN);
    let p = Project::new(0, "");
    let (_untrusted, artifact, run) = fork_pull_request_run(&p, &gh);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    let path = Path::new(&artifact).join("report.json");
    let mut forged: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(forged["interpretation"]["reading"], "ACCEPTED");
    forged["subject"]["runUrl"] =
        "https://evil.example/x) <img src=https://evil.example/p.png> @octo-org/owners".into();
    forged["config"]["name"] = "release-gate".into();
    std::fs::write(&path, forged.to_string()).unwrap();

    // The trusted workflow_run job: its checkout of the base branch holds the real config.
    let trusted = Runner::new();
    let wr = edited_event(trusted.dir.path(), "workflow_run.completed.json", |v| {
        v["workflow_run"]["head_sha"] = FORK_HEAD.into();
        v["workflow_run"]["id"] = RUN_ID.into();
        v["workflow_run"]["pull_requests"] = json!([]);
        v["workflow_run"]["head_repository"]["full_name"] = "someone/Hello-World".into();
    });
    let base_checkout = tempfile::tempdir().unwrap();
    std::fs::copy(
        p.ws().join("judge-ci.yml"),
        base_checkout.path().join("judge-ci.yml"),
    )
    .unwrap();
    let publish = |gh: &FakeGitHub, extra: &[&str]| {
        let mut args = vec!["publish", "--from", artifact.as_str()];
        args.extend_from_slice(extra);
        trusted.run(
            base_checkout.path(),
            gh,
            "workflow_run",
            &wr,
            Some(TOKEN),
            &args,
        )
    };
    let gh2 = FakeGitHub::start(Layout::DOTCOM);
    gh2.add_pull(2, FORK_HEAD, "someone:main");
    let run = publish(&gh2, &[]);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    let runs = gh2.check_runs();
    assert_eq!(runs.len(), 1, "{}", run.stderr);
    let create = &runs[0].create;
    assert_eq!(
        create["name"], "judge-ci / gh-test (advisory)",
        "the trusted config names the check run, marked advisory: never the gate's name"
    );
    assert_eq!(create["conclusion"], "neutral", "advisory, never success");
    let title = create["output"]["title"].as_str().unwrap();
    assert!(title.starts_with("Not verified"), "{title}");
    let c = ours(&gh2);
    assert_eq!(c.len(), 1);
    let body = &c[0].body;
    assert!(body.contains("not verified"), "{body}");
    assert!(
        !body.contains("<img") && !body.contains("@octo-org/owners"),
        "{body}"
    );
    assert!(
        !body.contains("evil.example"),
        "the run URL is the trusted event's: {body}"
    );
    assert!(
        body.contains("https://github.com/octo-org/octo-repo/actions/runs/1589141559"),
        "{body}"
    );
    assert!(
        body.contains("key=") && !body.contains("release-gate"),
        "the sticky key is the trusted config's: {body}"
    );
    assert!(gh2.violations().is_empty(), "{:#?}", gh2.violations());

    // --trust-report is the workflow's explicit choice (wrong for forks): then it gates.
    let gh3 = FakeGitHub::start(Layout::DOTCOM);
    gh3.add_pull(2, FORK_HEAD, "someone:main");
    let run = publish(&gh3, &["--trust-report"]);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(gh3.check_runs()[0].create["conclusion"], "success");
    assert_eq!(gh3.check_runs()[0].create["name"], "judge-ci / gh-test");

    // Without a trusted config there is nothing to name the check run by: refused.
    let gh4 = FakeGitHub::start(Layout::DOTCOM);
    let nowhere = tempfile::tempdir().unwrap();
    let run = trusted.run(
        nowhere.path(),
        &gh4,
        "workflow_run",
        &wr,
        Some(TOKEN),
        &["publish", "--from", &artifact],
    );
    assert_eq!(run.out.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("needs the trusted config"),
        "{}",
        run.stderr
    );
    assert!(gh4.requests().is_empty());
}

#[test]
fn malformed_answers_and_dropped_connections_neither_duplicate_nor_lose() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.fail("POST", "/graphql", 1, Fault::Drop);
    gh.fail("GET", "/issues/2/comments", 1, Fault::Malformed);
    gh.fail("POST", "/issues/2/comments", 1, Fault::Drop);
    gh.fail("POST", "/check-runs", 1, Fault::Drop);
    let p = Project::new(1, "");
    let r = Runner::new();
    let run = judge(&p, &r, &gh, &[]);
    assert_eq!(run.out.status.code(), Some(1), "{}", run.stderr);
    assert_eq!(ours(&gh).len(), 1, "{}", run.stderr);
    assert_eq!(
        gh.count("POST", "/issues/2/comments"),
        2,
        "the dropped create was not processed, re-found nothing, and was posted once more"
    );
    assert_eq!(gh.check_runs().len(), 1, "{}", run.stderr);
    assert_eq!(run.outputs["publish-mode"], "api");
    assert!(gh.unused_faults().is_empty(), "{:?}", gh.unused_faults());
    assert_clean(&gh, &run);
}

/// A fault for the requests of one method whose path contains a part.
type Scripted = (&'static str, &'static str, Fault);

#[test]
fn answers_lost_or_cut_off_mid_body_are_retried_or_found_again_never_duplicated() {
    let secs = Duration::from_secs;
    let scripts: [(&str, Vec<Scripted>); 2] = [
        (
            "answers to two processed writes lost past the timeout",
            vec![
                ("POST", "/issues/2/comments", Fault::Lose(secs(4))),
                ("POST", "/check-runs", Fault::Lose(secs(4))),
            ],
        ),
        (
            "answers cut off mid-body: after a short stall on a read, past the timeout on a \
             read and on two processed writes",
            vec![
                ("POST", "/graphql", Fault::Stall(Duration::from_millis(200))),
                ("GET", "/issues/2/comments", Fault::Stall(secs(4))),
                ("POST", "/issues/2/comments", Fault::Stall(secs(4))),
                ("POST", "/check-runs", Fault::Stall(secs(4))),
            ],
        ),
    ];
    for (what, faults) in scripts {
        let gh = FakeGitHub::start(Layout::DOTCOM);
        for (method, path, fault) in faults {
            gh.fail(method, path, 1, fault);
        }
        let p = Project::new(1, "");
        let r = Runner::new();
        let run = judge(&p, &r, &gh, &["--api-timeout", "1s"]);
        assert_eq!(run.out.status.code(), Some(1), "{what}: {}", run.stderr);
        assert_eq!(
            gh.count("POST", "/issues/2/comments"),
            1,
            "{what}: the processed create is never sent again"
        );
        assert_eq!(ours(&gh).len(), 1, "{what}: found by its marker");
        assert_eq!(gh.count("POST", "/check-runs"), 1, "{what}");
        assert_eq!(gh.check_runs().len(), 1, "{what}: found by external_id");
        assert!(
            run.outputs["comment-url"].contains("issuecomment-"),
            "{what}"
        );
        assert!(run.outputs["check-run-url"].contains("/runs/"), "{what}");
        assert_eq!(run.outputs["publish-mode"], "api", "{what}");
        assert!(
            gh.unused_faults().is_empty(),
            "{what}: {:?}",
            gh.unused_faults()
        );
        assert_clean(&gh, &run);
    }
}

#[test]
fn a_full_report_folder_loses_nothing_judged_and_posts_once() {
    common::small_disk::require();
    let p = Project::new(1, "");
    let gh = FakeGitHub::start(Layout::DOTCOM);
    let r = Runner::new();
    let normal = judge(&p, &r, &gh, &[]);
    assert_eq!(normal.out.status.code(), Some(1), "{}", normal.stderr);
    let json_bytes = std::fs::metadata(Path::new(&r.out_dir()).join("report.json"))
        .unwrap()
        .len();
    let pages = json_bytes.div_ceil(4096);
    // One page (taken by the stale report.md): nothing fits. Room for the JSON beside the
    // stale file and one page more: the JSON fits, most of the rest does not.
    for (kib, json_in_place) in [(4, false), ((pages + 2) * 4, true)] {
        let what = format!("a {kib} KiB report folder");
        let gh = FakeGitHub::start(Layout::DOTCOM);
        let r = Runner::with_small_disk(kib);
        let run = judge(&p, &r, &gh, &[]);
        // A file a later step reads could not be written: an error of the run, whatever the
        // verdict (which still reaches the comment, the check run and the summary).
        assert_eq!(
            run.out.status.code(),
            Some(3),
            "{what}: an instrument failure: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("No space left on device"),
            "{what}: {}",
            run.stderr
        );
        assert_eq!(ours(&gh).len(), 1, "{what}: the comment is posted once");
        assert_eq!(gh.count("POST", "/issues/2/comments"), 1, "{what}");
        assert_eq!(gh.check_runs().len(), 1, "{what}");
        let summary = std::fs::read_to_string(r.dir.path().join("summary.md")).unwrap();
        assert!(
            summary.contains("Rejected"),
            "{what}: the job summary holds the result"
        );

        // The run failed on its outputs: its JSON is a copy in RUNNER_TEMP, named by the step
        // output, and the folder holds no report a later step would take as whole.
        let json_path = PathBuf::from(&run.outputs["report-path"]);
        assert!(
            json_path.starts_with(r.temp_dir()),
            "{what}: {}",
            json_path.display()
        );
        let said = if json_in_place {
            "taken out of"
        } else {
            "instead of"
        };
        assert!(run.stderr.contains(said), "{what}: {}", run.stderr);
        assert!(!r.after_dir().join("report.json").exists(), "{what}");
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        assert_eq!(report["interpretation"]["reading"], "REJECTED", "{what}");

        // What the folder held at the end: whole files of this run, nothing half-written,
        // no temporary file, no stale report.md.
        let mut known: Vec<&str> = judge_ci::report::Surface::ALL
            .iter()
            .map(|s| s.file_name())
            .collect();
        known.push("event.json");
        for e in std::fs::read_dir(r.after_dir()).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(known.contains(&name.as_str()), "{what}: left behind {name}");
            let text = std::fs::read_to_string(e.path()).unwrap();
            assert_ne!(text, "stale", "{what}: the stale {name} is gone");
            let whole = match name.rsplit('.').next() {
                Some("json" | "sarif") => serde_json::from_str::<Value>(&text).is_ok(),
                Some("xml") => text.trim_end().ends_with("</testsuites>"),
                Some("html") => text.trim_end().ends_with("</html>"),
                _ => !text.is_empty(),
            };
            assert!(whole, "{what}: {name} is whole");
        }
        assert_clean(&gh, &run);
    }
}

#[test]
fn instances_with_their_own_check_name_and_comment_key_keep_their_own_comment_and_check_run() {
    let gh = FakeGitHub::start(Layout::DOTCOM);
    // Two projects of a monorepo whose configs share the name `gh-test`: one sets
    // report.check-name and report.comment-key, the other keeps the defaults.
    let web = Project::new(1, "  check-name: \"judge-ci / web\"\n  comment-key: web\n");
    let api = Project::new(2, "");
    let r = Runner::new();
    for p in [&web, &api] {
        let run = judge(p, &r, &gh, &[]);
        assert_eq!(run.out.status.code(), Some(1), "{}", run.stderr);
        assert_clean(&gh, &run);
    }
    // A matrix leg of the second project names itself on the command line (the Action's
    // check-name and comment-key inputs).
    let leg = judge(
        &api,
        &r,
        &gh,
        &[
            "--check-name",
            "judge-ci / api (java 21)",
            "--comment-key",
            "api-java-21",
        ],
    );
    assert_eq!(leg.out.status.code(), Some(1), "{}", leg.stderr);
    assert_clean(&gh, &leg);

    let names: Vec<String> = gh
        .check_runs()
        .iter()
        .map(|c| c.create["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "judge-ci / web",
            "judge-ci / gh-test",
            "judge-ci / api (java 21)"
        ]
    );
    let comments = ours(&gh);
    assert_eq!(comments.len(), 3, "one comment per key: {comments:#?}");
    let keys: std::collections::HashSet<&str> = comments
        .iter()
        .map(|c| c.body.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(keys.len(), 3, "three different sticky keys: {keys:?}");

    // A new result for `web` edits web's comment and no other.
    web.set_bad(3);
    gh.clear_requests();
    let again = judge(&web, &r, &gh, &[]);
    assert_eq!(again.out.status.code(), Some(1), "{}", again.stderr);
    assert_eq!(gh.count("POST", "/comments"), 0, "no new comment");
    assert_eq!(
        gh.count("PATCH", &format!("/comments/{}", comments[0].id)),
        1
    );
    assert_eq!(
        gh.count("PATCH", "/comments/"),
        1,
        "only web's comment changes"
    );
    let now = ours(&gh);
    assert_eq!(now.len(), 3);
    assert_eq!(now[1].body, comments[1].body);
    assert_eq!(now[2].body, comments[2].body);
    assert_ne!(now[0].body, comments[0].body);

    // Names that cannot name an instance are refused before anything is judged or posted.
    gh.clear_requests();
    for (flag, value, why) in [
        ("--check-name", "judge-ci\nforged", "control characters"),
        ("--comment-key", " ", "blank"),
    ] {
        let bad = judge(&api, &r, &gh, &[flag, value]);
        assert_eq!(bad.out.status.code(), Some(2), "{}", bad.stderr);
        assert!(
            bad.stderr.contains(flag) && bad.stderr.contains(why),
            "{}",
            bad.stderr
        );
    }
    assert!(gh.requests().is_empty(), "nothing posted");
}

/// A stored report decides neither its own gate nor which comments go (trust.md 10, 16;
/// attack findings F11, F35, F19): with `--trust-report` the check run's conclusion comes from
/// the trusted config's fail-on, not from the report's `outcome` (a judging job run with
/// `--fail-on never` wrote "pass" for a rejection); a report that only says it was accepted
/// deletes no comment under `--delete-on-pass` unless it is trusted; and a first job's folder
/// (`--stop-before-semantic`, semantic checks deferred) is no verdict to publish.
#[test]
fn a_stored_report_decides_neither_its_gate_nor_which_comments_go() {
    let trusted = Runner::new();
    let wr = edited_event(trusted.dir.path(), "workflow_run.completed.json", |v| {
        v["workflow_run"]["head_sha"] = FORK_HEAD.into();
        v["workflow_run"]["id"] = RUN_ID.into();
        v["workflow_run"]["pull_requests"] = json!([]);
        v["workflow_run"]["head_repository"]["full_name"] = "someone/Hello-World".into();
    });
    let publish = |p: &Project, gh: &FakeGitHub, artifact: &str, extra: &[&str]| {
        let base_checkout = tempfile::tempdir().unwrap();
        std::fs::copy(
            p.ws().join("judge-ci.yml"),
            base_checkout.path().join("judge-ci.yml"),
        )
        .unwrap();
        let mut args = vec!["publish", "--from", artifact];
        args.extend_from_slice(extra);
        trusted.run(
            base_checkout.path(),
            gh,
            "workflow_run",
            &wr,
            Some(TOKEN),
            &args,
        )
    };
    let edit = |artifact: &str, f: &dyn Fn(&mut Value)| {
        let path = Path::new(artifact).join("report.json");
        let mut r: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        f(&mut r);
        std::fs::write(&path, r.to_string()).unwrap();
    };

    // F11: a rejection whose job said --fail-on never.
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.read_only(TOKEN);
    let p = Project::new(2, "");
    let (_u, artifact, run) = fork_pull_request_run(&p, &gh);
    assert_eq!(run.out.status.code(), Some(1), "{}", run.stderr);
    edit(&artifact, &|r| {
        r["outcome"]["gate"] = "pass".into();
        r["outcome"]["exitCode"] = 0.into();
        r["outcome"]["failOn"] = "never".into();
    });
    let gh2 = FakeGitHub::start(Layout::DOTCOM);
    gh2.add_pull(2, FORK_HEAD, "someone:main");
    let run = publish(&p, &gh2, &artifact, &["--trust-report"]);
    // ... and this job's exit (G10-10).
    assert_eq!(run.out.status.code(), Some(1), "{}", run.stderr);
    assert_eq!(
        gh2.check_runs()[0].create["conclusion"],
        "failure",
        "the trusted config's fail-on (Actions default error) decides: {}",
        run.stderr
    );

    // F35: an accepted report, advisory, with --delete-on-pass: the earlier comment stays.
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.read_only(TOKEN);
    let p = Project::new(0, "");
    let (_u, artifact, run) = fork_pull_request_run(&p, &gh);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    let gh2 = FakeGitHub::start(Layout::DOTCOM);
    gh2.add_pull(2, FORK_HEAD, "someone:main");
    let run = publish(&p, &gh2, &artifact, &[]);
    assert_eq!(ours(&gh2).len(), 1, "{}", run.stderr);
    let run = publish(&p, &gh2, &artifact, &["--delete-on-pass"]);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(
        ours(&gh2).len(),
        1,
        "an untrusted acceptance deletes nothing: {}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("delete-on-pass applies only to a trusted verdict"),
        "{}",
        run.stderr
    );
    // The same report, trusted: delete-on-pass does what it says.
    let run = publish(&p, &gh2, &artifact, &["--delete-on-pass", "--trust-report"]);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    assert_eq!(ours(&gh2).len(), 1, "{}", run.stderr);
    assert!(
        ours(&gh2)[0].body.contains("-advisory"),
        "only the advisory comment is left (it has a key of its own): {}",
        ours(&gh2)[0].body
    );

    // GA5-2: an advisory report speaks under names of its own, never the gate's. A neutral
    // check run under the gate's name would satisfy the required check the gate failed, and
    // the gate's sticky comment would be rewritten to the report's verdict.
    let gh = FakeGitHub::start(Layout::DOTCOM);
    gh.read_only(TOKEN);
    let rejected = Project::new(2, "");
    let (_u1, rejected_artifact, run) = fork_pull_request_run(&rejected, &gh);
    assert_eq!(run.out.status.code(), Some(1), "{}", run.stderr);
    let accepted = Project::new(0, "");
    let (_u2, accepted_artifact, run) = fork_pull_request_run(&accepted, &gh);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    let gh2 = FakeGitHub::start(Layout::DOTCOM);
    gh2.add_pull(2, FORK_HEAD, "someone:main");
    let run = publish(&rejected, &gh2, &rejected_artifact, &["--trust-report"]);
    // A trusted rejection gates this job as the run would have (G10-10): exit 1, the reading
    // and the gate as step outputs, and what decided on stderr.
    assert_eq!(run.out.status.code(), Some(1), "{}", run.stderr);
    assert_eq!(run.outputs["reading"], "REJECTED", "{:?}", run.outputs);
    assert_eq!(run.outputs["gate"], "fail", "{:?}", run.outputs);
    assert!(run.stderr.contains("fail-on"), "{}", run.stderr);
    let gate_comment = ours(&gh2);
    assert_eq!(gate_comment.len(), 1, "{}", run.stderr);
    let run = publish(&accepted, &gh2, &accepted_artifact, &[]);
    assert_eq!(run.out.status.code(), Some(0), "{}", run.stderr);
    let runs: Vec<(String, String)> = gh2
        .check_runs()
        .iter()
        .map(|r| {
            let concluded = r
                .updates
                .iter()
                .rev()
                .find_map(|u| u["conclusion"].as_str())
                .or_else(|| r.create["conclusion"].as_str());
            (
                r.create["name"].as_str().unwrap_or_default().to_string(),
                concluded.unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[0].1, "failure", "{runs:?}");
    assert_eq!(runs[1].1, "neutral", "{runs:?}");
    assert_eq!(
        runs[1].0,
        format!("{} (advisory)", runs[0].0),
        "the advisory check run is not the gate's"
    );
    let comments = ours(&gh2);
    assert_eq!(comments.len(), 2, "the gate's comment is not rewritten");
    assert_eq!(comments[0].id, gate_comment[0].id);
    assert_eq!(comments[0].body, gate_comment[0].body);

    // F19: a first job's folder, a semantic check deferred in it, is refused. (Every copy of
    // the judgment is marked, as the first job writes it: the verdict checks they agree.)
    fn defer(v: &mut Value) -> bool {
        match v {
            Value::Object(m) if m.contains_key("reasoning") && m.contains_key("status") => {
                m.entry("metadata")
                    .or_insert_with(|| json!({}))
                    .as_object_mut()
                    .unwrap()
                    .insert("deferredToResume".into(), true.into());
                true
            }
            Value::Object(m) => m.values_mut().fold(false, |any, x| defer(x) | any),
            Value::Array(a) => a.iter_mut().fold(false, |any, x| defer(x) | any),
            _ => false,
        }
    }
    edit(&artifact, &|r| {
        assert!(defer(&mut r["verdict"]), "{r:#}");
    });
    let gh3 = FakeGitHub::start(Layout::DOTCOM);
    let run = publish(&p, &gh3, &artifact, &["--trust-report"]);
    assert_eq!(run.out.status.code(), Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("first job of a split run"),
        "{}",
        run.stderr
    );
    assert!(gh3.check_runs().is_empty());
}
