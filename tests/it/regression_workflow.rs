//! The release regression workflow (`examples/workflows/regression.yml`) run end to end, as the
//! runner would run it, against a stand-in GitHub (issue 27: "the regression example workflow
//! is tested end to end"). Each job's steps are taken from the workflow file in order, with
//! their `if:` conditions and `${{ … }}` expressions: `judge-ci/judge-ci` steps run the
//! composite action's own judge step (`action.yml`), `run:` steps run with bash as the runner
//! runs them (`bash --noprofile --norc -eo pipefail`), checkout copies the repository,
//! upload/download-artifact copy folders the way those actions lay them out, and `gh release
//! download|upload` goes to a stand-in `gh` over a folder of releases (an asset is never
//! replaced, as `gh release upload` without `--clobber` refuses). A construct this interpreter
//! does not know (another action, another condition or expression) fails the test, so the
//! workflow cannot drift from what is tested.
//!
//! The releases: the first has no baseline recorded (it becomes one), the second compares
//! with the first through the two lines the job summary says to commit, a third that regresses
//! fails and attaches nothing, and a baseline asset replaced after it was recorded fails the
//! run before any comparison.

use crate::action::{Runner, action, base_values, fill, step_of};
use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use marked_yaml::Node;

/// The stand-in for the GitHub CLI: `gh release download TAG --repo R --pattern P --dir D` and
/// `gh release upload TAG FILE --repo R` over `$JUDGE_CI_TEST_RELEASES/<tag>/`, refusing a
/// missing token, another repository, a release that does not exist, and an upload over an
/// asset of the same name. Every call is logged to `calls.log` there.
const GH: &str = r#"#!/usr/bin/env bash
set -euo pipefail
store="$JUDGE_CI_TEST_RELEASES"
echo "gh $*" >> "$store/calls.log"
[ -n "${GH_TOKEN:-}" ] || { echo "gh: GH_TOKEN is not set" >&2; exit 4; }
[ "${1:-}" = release ] || { echo "gh stand-in: only 'gh release' is here" >&2; exit 2; }
verb=$2; tag=$3; shift 3
file=""; pattern="*"; dir="."; repo=""
if [ "$verb" = upload ]; then file=$1; shift; fi
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) repo=$2; shift 2 ;;
    --pattern) pattern=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "gh stand-in: unknown flag $1" >&2; exit 2 ;;
  esac
done
[ "$repo" = "$GITHUB_REPOSITORY" ] || { echo "gh: wrong repository '$repo'" >&2; exit 1; }
[ -d "$store/$tag" ] || { echo "release not found" >&2; exit 1; }
case "$verb" in
  download)
    found=0
    for f in "$store/$tag"/$pattern; do
      [ -f "$f" ] || continue
      mkdir -p "$dir"; cp "$f" "$dir/"; found=1
    done
    [ "$found" = 1 ] || { echo "no assets to download" >&2; exit 1; } ;;
  upload)
    name=$(basename "$file")
    [ ! -e "$store/$tag/$name" ] || { echo "asset under the same name already exists: $name" >&2; exit 1; }
    cp "$file" "$store/$tag/$name" ;;
  *) echo "gh stand-in: unknown verb $verb" >&2; exit 2 ;;
esac
"#;

/// One step of a workflow job.
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

/// The workflow's jobs, in file order: (id, matrix shards, steps).
fn jobs() -> Vec<(String, Vec<String>, Vec<WfStep>)> {
    let text =
        std::fs::read_to_string(common::repo_root().join("examples/workflows/regression.yml"))
            .unwrap();
    let doc = marked_yaml::parse_yaml(0, &text).unwrap();
    let jobs = doc.as_mapping().unwrap().get_mapping("jobs").unwrap();
    jobs.iter()
        .map(|(id, job)| {
            let job = job.as_mapping().unwrap();
            let shards = job
                .get_mapping("strategy")
                .and_then(|s| s.get_mapping("matrix"))
                .and_then(|m| m.get_sequence("shard"))
                .map(|s| s.iter().map(scalar).collect())
                .unwrap_or_default();
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
            (id.as_str().to_string(), shards, steps)
        })
        .collect()
}

/// The machine every job of one workflow run shares: the stand-in runner, the artifact store,
/// the releases, and the repository the checkouts copy.
struct Run<'a> {
    runner: &'a Runner,
    action_steps: &'a [crate::action::Step],
    defaults: &'a HashMap<String, String>,
    repo: PathBuf,
    artifacts: PathBuf,
    releases: PathBuf,
    bin: PathBuf,
    event: PathBuf,
    tag: String,
    log: String,
}

/// What one job did: the steps it ran (by name) and whether it failed.
struct Job {
    ran: Vec<String>,
    failed: bool,
}

impl Run<'_> {
    /// Whether a step runs: GitHub's default `success()` unless the condition says otherwise.
    fn runs(&self, condition: &str, failed: bool, dir: &Path) -> bool {
        let c = condition.trim();
        let hash = regex::Regex::new(r"^hashFiles\('([^']+)'\) (==|!=) ''$").unwrap();
        if c.is_empty() {
            !failed
        } else if c == "always()" {
            true
        } else if c == "github.event_name == 'release'" {
            !failed
        } else if let Some(m) = hash.captures(c) {
            let exists = dir.join(&m[1]).is_file();
            !failed && (exists == (&m[2] == "!="))
        } else {
            panic!("the workflow has a condition this test does not know: {c}")
        }
    }

    fn values(&self, shard: &str) -> HashMap<String, String> {
        let mut v = base_values(self.defaults);
        v.insert(
            "steps.install.outputs.bin".into(),
            self.bin.display().to_string(),
        );
        v.insert("matrix.shard".into(), shard.to_string());
        v.insert("github.event.release.tag_name".into(), self.tag.clone());
        v
    }

    fn copy_into(&self, from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            common::copy_tree(&e.unwrap().path(), to);
        }
    }

    /// Runs one job's steps in a fresh workspace folder.
    fn job(&mut self, id: &str, shard: &str, steps: &[WfStep]) -> Job {
        let dir = self
            .runner
            .path(&format!("{}-{id}-{shard}", self.tag.replace('.', "_")));
        std::fs::create_dir_all(&dir).unwrap();
        let values = self.values(shard);
        let mut job = Job {
            ran: Vec::new(),
            failed: false,
        };
        for step in steps {
            let name = fill(&step.name, &values);
            if !self.runs(&step.condition, job.failed, &dir) {
                continue;
            }
            job.ran.push(name.clone());
            let with: HashMap<String, String> = step
                .with
                .iter()
                .map(|(k, v)| (k.clone(), fill(v, &values)))
                .collect();
            let ok = match (&step.uses, &step.run) {
                (Some(u), None) => self.uses(u, &with, &values, &dir),
                (None, Some(run)) => self.bash(&fill(run, &values), &step.env, &values, &dir),
                _ => panic!("step {name}: neither uses nor run"),
            };
            self.log.push_str(&format!(
                "[{id} {shard}] {name}: {}\n",
                if ok { "ok" } else { "FAILED" }
            ));
            if !ok {
                job.failed = true;
            }
        }
        job
    }

    fn uses(
        &mut self,
        uses: &str,
        with: &HashMap<String, String>,
        values: &HashMap<String, String>,
        dir: &Path,
    ) -> bool {
        let action = uses.split('@').next().unwrap();
        match action {
            "actions/checkout" => {
                assert_eq!(
                    with.get("persist-credentials").map(String::as_str),
                    Some("false")
                );
                let into = dir.join(with.get("path").map_or(".", String::as_str));
                match with.get("sparse-checkout") {
                    Some(part) => {
                        std::fs::create_dir_all(&into).unwrap();
                        common::copy_tree(&self.repo.join(part), &into);
                    }
                    None => self.copy_into(&self.repo, &into),
                }
                true
            }
            "actions/setup-java" => true,
            "actions/upload-artifact" => {
                let name = &with["name"];
                let paths: Vec<&str> = with["path"]
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .collect();
                let to = self.artifacts.join(name);
                assert!(!to.exists(), "artifact {name} uploaded twice");
                std::fs::create_dir_all(&to).unwrap();
                match paths.as_slice() {
                    [one] => self.copy_into(&dir.join(one), &to),
                    many => {
                        for p in many {
                            let from = dir.join(p.trim_end_matches('/'));
                            if from.exists() {
                                common::copy_tree(&from, &to);
                            }
                        }
                    }
                }
                true
            }
            "actions/download-artifact" => {
                assert_eq!(
                    with.get("digest-mismatch").map(String::as_str),
                    Some("error")
                );
                let glob = with["pattern"].trim_end_matches('*');
                let into = dir.join(&with["path"]);
                for e in std::fs::read_dir(&self.artifacts).unwrap() {
                    let e = e.unwrap();
                    let n = e.file_name().to_string_lossy().into_owned();
                    if n.starts_with(glob) {
                        self.copy_into(&e.path(), &into.join(&n));
                    }
                }
                true
            }
            "judge-ci/judge-ci" => {
                let mut v = values.clone();
                for (k, x) in with {
                    v.insert(format!("inputs.{k}"), x.clone());
                }
                let env = [
                    ("GITHUB_EVENT_NAME", "release".to_string()),
                    ("GITHUB_EVENT_PATH", self.event.display().to_string()),
                ];
                let (code, log, _) =
                    self.runner
                        .step(step_of(self.action_steps, "judge"), &v, dir, &env);
                self.log.push_str(&log);
                code == Some(0)
            }
            other => panic!("the workflow uses an action this test does not know: {other}"),
        }
    }

    fn bash(
        &mut self,
        script: &str,
        env: &[(String, String)],
        values: &HashMap<String, String>,
        dir: &Path,
    ) -> bool {
        let mut cmd = Command::new("bash");
        let path = format!(
            "{}:{}",
            self.runner.path("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(dir)
            .env("PATH", path)
            .env_remove("GH_TOKEN")
            .env_remove("GITHUB_TOKEN")
            .env("GITHUB_REPOSITORY", "Codertocat/Hello-World")
            .env("GITHUB_EVENT_NAME", "release")
            .env("GITHUB_STEP_SUMMARY", self.runner.path("summary.md"))
            .env("JUDGE_CI_TEST_RELEASES", &self.releases);
        for (k, v) in env {
            cmd.env(k, fill(v, values));
        }
        let o = cmd.output().unwrap();
        self.log.push_str(&String::from_utf8_lossy(&o.stdout));
        self.log.push_str(&String::from_utf8_lossy(&o.stderr));
        o.status.success()
    }

    /// The whole workflow for a release `tag`: every shard of the matrix, then the gate job.
    fn release(&mut self, tag: &str) -> Job {
        self.tag = tag.to_string();
        let _ = std::fs::remove_dir_all(&self.artifacts);
        std::fs::create_dir_all(&self.artifacts).unwrap();
        std::fs::create_dir_all(self.releases.join(tag)).unwrap();
        let _ = std::fs::remove_file(self.runner.path("summary.md"));
        let all = jobs();
        let mut gate = None;
        for (id, shards, steps) in &all {
            if shards.is_empty() {
                gate = Some(self.job(id, "-", steps));
            } else {
                for s in shards {
                    let j = self.job(id, s, steps);
                    assert!(!j.failed, "shard {s} failed:\n{}", self.log);
                }
            }
        }
        gate.expect("the workflow has a gate job")
    }
}

/// The lines between the fences of the job summary's "Next baseline" section.
fn next_baseline(summary: &str) -> Vec<String> {
    let at = summary
        .find("### Next baseline")
        .expect("a Next baseline section");
    summary[at..]
        .split("```")
        .nth(1)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_regression_workflow_records_a_baseline_compares_with_it_and_never_promotes_a_regressed_run()
{
    let (defaults, _, action_steps) = action();
    let runner = Runner::new();
    let bin = runner.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("gh"), GH).unwrap();
    common::chmod_x(&bin.join("gh"));
    let event = runner.path("release.json");
    // A `release` (published) payload: the push fixture's repository and sender with a release
    // object in GitHub's shape (tests/fixtures/github/events has no release example).
    let push: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            common::repo_root().join("tests/fixtures/github/events/push.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut run = Run {
        runner: &runner,
        action_steps: &action_steps,
        defaults: &defaults,
        repo: runner.path("repo"),
        artifacts: runner.path("artifacts"),
        releases: runner.path("releases"),
        bin: PathBuf::from(env!("CARGO_BIN_EXE_judge-ci")),
        event: event.clone(),
        tag: String::new(),
        log: String::new(),
    };
    common::done_txt_bench(&run.repo, "release-suite", &["a", "b", "c", "d", "e"]);
    let write_event = |tag: &str| {
        let payload = serde_json::json!({
            "action": "published",
            "release": {"tag_name": tag, "draft": false, "prerelease": false, "assets": []},
            "repository": push["repository"],
            "sender": push["sender"],
        });
        std::fs::write(&event, payload.to_string()).unwrap();
    };
    let summary = || std::fs::read_to_string(runner.path("summary.md")).unwrap_or_default();

    // 0. No baseline recorded and nothing saying this is the first (a change deleted the
    //    record, attack finding G10-16): the run fails before any comparison, attaches nothing.
    write_event("v0.9.0");
    let job = run.release("v0.9.0");
    assert!(job.failed, "{}", run.log);
    assert!(
        !run.releases.join("v0.9.0/suite.json").exists(),
        "{}",
        run.log
    );
    assert!(run.log.contains("bench/baseline.first"), "{}", run.log);

    // 1. No baseline recorded, and the repository says this is the first: the run is the
    //    first baseline, attached to its release.
    std::fs::write(run.repo.join("bench/baseline.first"), "").unwrap();
    write_event("v1.0.0");
    let job = run.release("v1.0.0");
    assert!(!job.failed, "{}", run.log);
    assert!(
        job.ran.iter().any(|s| s == "No baseline yet"),
        "{:?}",
        job.ran
    );
    assert!(
        !job.ran.iter().any(|s| s == "Compare and gate"),
        "{:?}",
        job.ran
    );
    let first = run.releases.join("v1.0.0/suite.json");
    assert!(first.is_file(), "the first run is attached: {}", run.log);
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&first).unwrap()).unwrap();
    assert_eq!(
        merged.to_string().matches("\"ACCEPTED\"").count(),
        5,
        "every task of every shard is in the attached suite: {merged:#}"
    );
    // The summary's two lines, committed, make it the baseline.
    let lines = next_baseline(&summary());
    assert_eq!(lines.len(), 3, "{lines:?}");
    let st = Command::new("bash")
        .args(["-euc", &lines.join("\n")])
        .current_dir(&run.repo)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(
        std::fs::read_to_string(run.repo.join("bench/baseline.tag"))
            .unwrap()
            .trim(),
        "v1.0.0"
    );
    assert!(!run.repo.join("bench/baseline.first").exists());

    // 2. The next release compares with it, passes, and becomes a candidate.
    write_event("v1.1.0");
    let job = run.release("v1.1.0");
    assert!(!job.failed, "{}", run.log);
    assert!(
        job.ran.iter().any(|s| s == "Compare and gate"),
        "{:?}",
        job.ran
    );
    assert!(
        run.releases.join("v1.1.0/suite.json").is_file(),
        "{}",
        run.log
    );

    // 3. A release in which a task regresses fails at the gate and attaches nothing; the
    //    suite and the comparison are still uploaded for the reader.
    std::fs::remove_file(run.repo.join("bench/tasks/c/workspace/done.txt")).unwrap();
    write_event("v1.2.0");
    let job = run.release("v1.2.0");
    assert!(job.failed, "a regression fails the run: {}", run.log);
    assert!(
        !run.releases.join("v1.2.0/suite.json").exists(),
        "a regressed run is never offered as a baseline: {}",
        run.log
    );
    assert!(!summary().contains("### Next baseline"), "{}", summary());
    assert!(
        run.artifacts.join("suite/compare").is_dir(),
        "{:?}",
        job.ran
    );
    assert!(run.log.contains("regress"), "{}", run.log);

    // 4. The recorded baseline's asset replaced after it was recorded: the run fails before
    //    any comparison, and attaches nothing.
    std::fs::write(run.repo.join("bench/tasks/c/workspace/done.txt"), "yes\n").unwrap();
    let mut forged = std::fs::read_to_string(&first).unwrap();
    forged.push('\n');
    std::fs::write(&first, forged).unwrap();
    write_event("v1.3.0");
    let job = run.release("v1.3.0");
    assert!(job.failed, "{}", run.log);
    assert!(
        !job.ran.iter().any(|s| s == "Compare and gate"),
        "{:?}",
        job.ran
    );
    assert!(
        !run.releases.join("v1.3.0/suite.json").exists(),
        "{}",
        run.log
    );
    assert!(run.log.contains("FAILED"), "{}", run.log);

    // Every `gh` call carried the job's token and this repository (the stand-in refuses
    // otherwise), and no upload replaced an asset.
    let calls = std::fs::read_to_string(run.releases.join("calls.log")).unwrap();
    assert_eq!(calls.matches("gh release upload").count(), 2, "{calls}");
    assert!(
        runner.gh.violations().is_empty(),
        "{:?}",
        runner.gh.violations()
    );
}
