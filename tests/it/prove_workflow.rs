//! The prove workflow (`examples/workflows/prove-config.yml`) run as the runner would run it,
//! against a real repository whose base branch holds the trusted base, reference and config
//! and whose pull request proposes another config (attack GA5-1, spec/trust.md points 22 and
//! 2): everything prove judges except the config under test must come from the base branch.
//!
//! Each step is taken from the workflow file in order, with its `if:` condition and
//! `${{ … }}` expressions: checkout clones the repository at the step's `ref` (the base
//! branch without one, as `pull_request_target` checks out) into its `path`, `run:` steps run
//! with bash as the runner runs them, and `judge-ci/judge-ci` runs the composite action's own
//! judge step (`action.yml`). A sparse checkout is cloned whole: the workflow must not rely on
//! what it leaves out. A construct this interpreter does not know fails the test, so the
//! workflow cannot drift from what is tested.

use crate::action::{Runner, action, base_values, fill, step_of};
use crate::common::{self, git, judge_ci, write_tree};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use marked_yaml::Node;
use serde_json::Value;

/// The workflow under test.
const WORKFLOW: &str = "examples/workflows/prove-config.yml";

/// One step of the workflow's job.
struct WfStep {
    name: String,
    uses: Option<String>,
    run: Option<String>,
    condition: String,
    with: Vec<(String, String)>,
    env: Vec<(String, String)>,
}

fn scalar(n: &Node) -> String {
    n.as_scalar()
        .map(|s| s.as_str().to_string())
        .unwrap_or_default()
}

fn pairs(m: Option<&marked_yaml::types::MarkedMappingNode>) -> Vec<(String, String)> {
    m.map(|m| {
        m.iter()
            .map(|(k, v)| (k.as_str().to_string(), scalar(v)))
            .collect()
    })
    .unwrap_or_default()
}

/// The workflow's one job: its environment and its steps.
struct Workflow {
    triggers: Vec<String>,
    env: Vec<(String, String)>,
    steps: Vec<WfStep>,
}

fn workflow() -> Workflow {
    let text = std::fs::read_to_string(common::repo_root().join(WORKFLOW)).unwrap();
    let doc = marked_yaml::parse_yaml(0, &text).unwrap();
    let root = doc.as_mapping().unwrap();
    let triggers = root
        .get_mapping("on")
        .unwrap()
        .iter()
        .map(|(k, _)| k.as_str().to_string())
        .collect();
    let jobs = root.get_mapping("jobs").unwrap();
    assert_eq!(jobs.len(), 1, "one job");
    let (_, job) = jobs.iter().next().unwrap();
    let job = job.as_mapping().unwrap();
    let steps = job
        .get_sequence("steps")
        .unwrap()
        .iter()
        .map(|s| {
            let m = s.as_mapping().unwrap();
            WfStep {
                name: m
                    .get_scalar("name")
                    .or_else(|| m.get_scalar("uses"))
                    .map(|x| x.as_str().to_string())
                    .unwrap_or_default(),
                uses: m.get_scalar("uses").map(|x| x.as_str().to_string()),
                run: m.get_scalar("run").map(|x| x.as_str().to_string()),
                condition: m
                    .get_scalar("if")
                    .map(|x| x.as_str().to_string())
                    .unwrap_or_default(),
                with: pairs(m.get_mapping("with")),
                env: pairs(m.get_mapping("env")),
            }
        })
        .collect();
    Workflow {
        triggers,
        env: pairs(job.get_mapping("env")),
        steps,
    }
}

/// What one run of the job did.
struct Ran {
    /// The steps that ran, by name, and whether each succeeded.
    steps: Vec<(String, bool)>,
    /// prove's report, when the prove step wrote one.
    prove: Option<Value>,
    log: String,
}

impl Ran {
    fn failed(&self) -> bool {
        self.steps.iter().any(|(_, ok)| !ok)
    }

    fn ran(&self, name: &str) -> Option<bool> {
        self.steps
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, ok)| *ok)
    }
}

/// The runner of one job for a pull request whose head is `head` in `repo`.
struct Job<'a> {
    runner: &'a Runner,
    action_steps: &'a [crate::action::Step],
    values: HashMap<String, String>,
    repo: &'a Path,
    dir: PathBuf,
    temp: PathBuf,
    log: String,
}

impl Job<'_> {
    fn runs(condition: &str, failed: bool) -> bool {
        match condition.trim() {
            "" => !failed,
            "always()" => true,
            c => panic!("the workflow has a condition this test does not know: {c}"),
        }
    }

    fn uses(
        &mut self,
        uses: &str,
        with: &HashMap<String, String>,
        env: &[(String, String)],
    ) -> bool {
        let action = uses.split('@').next().unwrap();
        match action {
            "actions/checkout" => {
                assert_eq!(
                    with.get("persist-credentials").map(String::as_str),
                    Some("false"),
                    "every checkout keeps no credentials"
                );
                let into = match with.get("path") {
                    Some(p) => self.dir.join(p),
                    None => self.dir.clone(),
                };
                let repo = self.repo.display().to_string();
                let into_s = into.display().to_string();
                git(self.repo, &["clone", "-q", &repo, &into_s]);
                // pull_request_target checks out the base branch unless told otherwise.
                let at = with.get("ref").map_or("main", String::as_str);
                git(&into, &["checkout", "-q", "--detach", at]);
                true
            }
            "actions/setup-java" | "actions/upload-artifact" => true,
            "judge-ci/judge-ci" => {
                assert!(
                    !uses.starts_with("./"),
                    "the action is never taken from a checkout"
                );
                let mut v = self.values.clone();
                for (k, x) in with {
                    v.insert(format!("inputs.{k}"), x.clone());
                }
                let mut extra: Vec<(&str, String)> = vec![
                    ("GITHUB_EVENT_NAME", "pull_request_target".to_string()),
                    ("RUNNER_TEMP", self.temp.display().to_string()),
                ];
                for (k, x) in env {
                    extra.push((k.as_str(), x.clone()));
                }
                let (code, log, _) =
                    self.runner
                        .step(step_of(self.action_steps, "judge"), &v, &self.dir, &extra);
                self.log.push_str(&log);
                code == Some(0)
            }
            other => panic!("the workflow uses an action this test does not know: {other}"),
        }
    }

    fn bash(&mut self, script: &str, env: &[(String, String)]) -> bool {
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(&self.dir)
            .env_remove("GH_TOKEN")
            .env_remove("GITHUB_TOKEN")
            .env("GITHUB_EVENT_NAME", "pull_request_target")
            .env("RUNNER_TEMP", &self.temp);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let o = cmd.output().unwrap();
        self.log.push_str(&String::from_utf8_lossy(&o.stdout));
        self.log.push_str(&String::from_utf8_lossy(&o.stderr));
        o.status.success()
    }
}

/// Runs the workflow's job for the pull request whose head is `head` in `repo` (whose `main`
/// is the base branch).
fn run_workflow(repo: &Path, head: &str) -> Ran {
    let wf = workflow();
    let (defaults, _, action_steps) = action();
    let runner = Runner::new();
    let mut values = base_values(&defaults);
    values.insert(
        "steps.install.outputs.bin".into(),
        env!("CARGO_BIN_EXE_judge-ci").into(),
    );
    values.insert("github.event.pull_request.head.sha".into(), head.into());
    values.insert("github.event.pull_request.number".into(), "7".into());
    let dir = runner.path("work");
    let temp = runner.path("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let mut job = Job {
        runner: &runner,
        action_steps: &action_steps,
        values,
        repo,
        dir: dir.clone(),
        temp,
        log: String::new(),
    };
    let mut ran = Vec::new();
    let mut failed = false;
    for step in &wf.steps {
        if !Job::runs(&step.condition, failed) {
            continue;
        }
        let env: Vec<(String, String)> = wf
            .env
            .iter()
            .chain(&step.env)
            .map(|(k, v)| (k.clone(), fill(v, &job.values)))
            .collect();
        let with: HashMap<String, String> = step
            .with
            .iter()
            .map(|(k, v)| (k.clone(), fill(v, &job.values)))
            .collect();
        let ok = match (&step.uses, &step.run) {
            (Some(u), None) => job.uses(u, &with, &env),
            (None, Some(run)) => {
                // No value the pull request controls is written into a script.
                assert!(
                    !run.contains("${{"),
                    "step {}: an expression in a run: line",
                    step.name
                );
                job.bash(run, &env)
            }
            _ => panic!("step {}: neither uses nor run", step.name),
        };
        job.log.push_str(&format!(
            "{}: {}\n",
            step.name,
            if ok { "ok" } else { "FAILED" }
        ));
        failed |= !ok;
        ran.push((step.name.clone(), ok));
    }
    let prove = std::fs::read_to_string(dir.join("judge-ci-prove/prove.json"))
        .ok()
        .map(|t| serde_json::from_str(&t).unwrap());
    Ran {
        steps: ran,
        prove,
        log: job.log,
    }
}

/// Where the workflow finds the task.
const CONFIG: &str = "examples/jakarta-migration/workspace/judge-ci.yml";
const BASE: &str = "examples/jakarta-migration/base";
const REFERENCE: &str = "examples/jakarta-migration/reference";

/// A config that compares every file with the reference: it rejects the base.
const STRICT: &str = "schema: judge-ci.v1\nname: strict\nversion: \"1\"\njury:\n  tiers:\n    - name: files\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - type: file-comparison\n          include: [\"**/*\"]\n    - name: final\n      policy: FINAL_TIER\n      checks:\n        - type: file-exists\n          path: a.txt\nreport:\n  fail-on: fail\n";

/// A config that asks only that `a.txt` exists: it accepts the trusted base, which has it.
const LENIENT: &str = "schema: judge-ci.v1\nname: lenient\nversion: \"1\"\njury:\n  tiers:\n    - name: final\n      policy: FINAL_TIER\n      checks:\n        - type: file-exists\n          path: a.txt\nreport:\n  fail-on: fail\n";

/// A repository whose `main` (the base branch) holds the strict config, a base with `a.txt`
/// as `old` and a reference with it `new`.
fn repo(d: &Path) -> PathBuf {
    let repo = d.join("repo");
    write_tree(
        &repo,
        &[
            (CONFIG, STRICT),
            (&format!("{BASE}/a.txt"), "old\n"),
            (&format!("{REFERENCE}/a.txt"), "new\n"),
        ],
    );
    git(&repo, &["init", "-q"]);
    common::commit_all(&repo, "the task");
    repo
}

/// A pull request branch off `main` with `change` applied, committed; its head.
fn pull_request(repo: &Path, branch: &str, change: impl FnOnce(&Path)) -> String {
    git(repo, &["checkout", "-q", "-b", branch, "main"]);
    change(repo);
    let head = common::commit_all(repo, branch);
    git(repo, &["checkout", "-q", "main"]);
    head
}

#[test]
fn the_workflow_trusts_nothing_of_the_pull_request_but_its_config() {
    let wf = workflow();
    // The base branch's workflow file runs, never the pull request's.
    assert_eq!(wf.triggers, ["pull_request_target"]);
    let judge = wf
        .steps
        .iter()
        .find(|s| {
            s.uses
                .as_deref()
                .is_some_and(|u| u.contains("judge-ci/judge-ci"))
        })
        .expect("a judge-ci step");
    let with: HashMap<&str, &str> = judge
        .with
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(with.get("command"), Some(&"prove"));
    // The reference is given: the proposed config's `reference:` is not used.
    assert_eq!(with.get("reference"), Some(&REFERENCE));
    assert_eq!(with.get("config"), Some(&CONFIG));
    for s in &wf.steps {
        if let Some(u) = &s.uses {
            assert!(!u.starts_with("./"), "{u}: no action from a checkout");
        }
    }
}

/// GA5-1: the pull request proposes a lenient config AND rewrites the base and the reference
/// so that the lenient config is proven against them. Judged on its own checkout (what the
/// workflow did before) it is proven; the workflow proves it against the base branch's trees,
/// where it accepts the base.
#[test]
fn a_lenient_config_with_rewritten_base_and_reference_is_not_proven() {
    let d = tempfile::tempdir().unwrap();
    let repo = repo(d.path());
    let head = pull_request(&repo, "lenient", |r| {
        write_tree(
            r,
            &[
                (CONFIG, LENIENT),
                (&format!("{REFERENCE}/a.txt"), "a\n"),
                (&format!("{REFERENCE}/b.txt"), "b\n"),
                (&format!("{BASE}/b.txt"), "b\n"),
            ],
        );
        std::fs::remove_file(r.join(BASE).join("a.txt")).unwrap();
    });
    // The attack is real: on the pull request's own trees the lenient config is proven.
    let own = d.path().join("own");
    git(
        &repo,
        &["worktree", "add", "-q", own.to_str().unwrap(), &head],
    );
    let out = d.path().join("own-out");
    let o = judge_ci(
        &own,
        &[
            "prove",
            "-q",
            "--config",
            CONFIG,
            "--base",
            BASE,
            "--reference",
            REFERENCE,
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stdout(&o));

    let ran = run_workflow(&repo, &head);
    assert_eq!(ran.ran("judge-ci/judge-ci@v0"), Some(false), "{}", ran.log);
    let p = ran.prove.as_ref().expect("prove wrote its report");
    // The config proven is the pull request's…
    assert_eq!(p["name"], "lenient", "{}", ran.log);
    // …against the base branch's base and reference, which it does not reject.
    assert_eq!(p["exitCode"], 1);
    let defects = p["defects"].to_string();
    assert!(defects.contains("accepts the base"), "{defects}");
    assert!(p["base"].as_str().unwrap().ends_with(BASE), "{}", p["base"]);
}

/// The same workflow proves an honest config change, so it does not fail for everything.
#[test]
fn a_config_change_that_keeps_the_jury_strict_is_proven() {
    let d = tempfile::tempdir().unwrap();
    let repo = repo(d.path());
    let head = pull_request(&repo, "honest", |r| {
        write_tree(
            r,
            &[(CONFIG, &STRICT.replace("name: strict", "name: renamed"))],
        );
    });
    let ran = run_workflow(&repo, &head);
    assert!(!ran.failed(), "{}", ran.log);
    let p = ran.prove.as_ref().expect("prove wrote its report");
    assert_eq!(p["name"], "renamed");
    assert_eq!(p["exitCode"], 0);
}

/// A proposed config that is a link (here to the reference's file, which the runner would
/// read through it) is not taken: only a regular file's blob is, and judge-ci never runs.
#[test]
fn a_proposed_config_that_is_a_link_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let repo = repo(d.path());
    let head = pull_request(&repo, "link", |r| {
        let at = r.join(CONFIG);
        std::fs::remove_file(&at).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", &at).unwrap();
    });
    let ran = run_workflow(&repo, &head);
    assert_eq!(
        ran.ran("Take the proposed config, and nothing else, from the pull request"),
        Some(false),
        "{}",
        ran.log
    );
    assert_eq!(ran.ran("judge-ci/judge-ci@v0"), None, "{}", ran.log);
    assert!(ran.log.contains("is not a regular file"), "{}", ran.log);
}
