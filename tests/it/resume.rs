//! A run split in two jobs (trust.md point 3): the job that runs the pull request's code holds
//! no model key (`--stop-before-semantic`), the second (`judge-ci resume --from DIR`) runs no
//! code of the pull request and asks the model. The split reaches the verdict, reading and
//! report a single run reaches; the first job's stored report decides nothing beyond the
//! judgments of the checks it ran subject code for.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::fake_llm::{FakeLlm, Reply};
use serde_json::{Value, json};

const KEY: &str = "sk-ant-SENTINELKEY-resume-0123456789";

/// A workspace whose build script counts its runs in `target/build-runs.log` (inside the
/// workspace: the fence lets subject code write nowhere else; in a build output folder, beside
/// a `pom.xml`: what subject code adds elsewhere is removed after each check), its reference, and
/// a three-tier config: build (command + file-exists), structure (import-diff), semantic (llm).
struct Split {
    root: tempfile::TempDir,
}

impl Split {
    fn new(llm: &FakeLlm) -> Split {
        let root = tempfile::tempdir().unwrap();
        let config = format!(
            "name: split\nreference: {{path: ../reference}}\nllm:\n  provider: anthropic\n  model: test-model\n  base-url: {}\n  api-key-env: JUDGE_CI_TEST_API_KEY\n  cache: off\njury:\n  tiers:\n    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {{type: command, name: compile, run: \"sh build.sh\"}}\n        - {{type: file-exists, name: readme, path: README.md}}\n    - name: structure\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {{type: import-diff, name: imports, forbid: [javax.servlet.*]}}\n    - name: semantic\n      policy: FINAL_TIER\n      checks:\n        - {{type: llm, name: review}}\n",
            llm.anthropic_url()
        );
        common::write_tree(
            root.path(),
            &[
                ("workspace/judge-ci.yml", &config),
                ("workspace/README.md", "readme\n"),
                (
                    "workspace/build.sh",
                    "mkdir -p target\necho ran >> target/build-runs.log\nenv > target/build-env.txt\n",
                ),
                ("workspace/pom.xml", "<project/>\n"),
                ("reference/pom.xml", "<project/>\n"),
                (
                    "workspace/src/Filter.java",
                    "package p;\nimport jakarta.servlet.Filter;\nclass F implements Filter {}\n",
                ),
                (
                    "reference/src/Filter.java",
                    "package p;\nimport jakarta.servlet.Filter;\nclass F {}\n",
                ),
                ("reference/README.md", "readme\n"),
                ("reference/build.sh", "true\n"),
                (
                    "task.yaml",
                    "schema: bench.task.v1\nid: t\ninstruction: Move the filter to jakarta.servlet.\n",
                ),
            ],
        );
        Split { root }
    }

    fn ws(&self) -> PathBuf {
        self.root.path().join("workspace")
    }

    fn builds(&self) -> usize {
        std::fs::read_to_string(self.ws().join("target/build-runs.log"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    }

    /// Runs judge-ci with `args` (plus --dry-run, --task, --out OUT) in the workspace, with the
    /// model key only when `key`.
    fn judge(&self, args: &[&str], out: &str, key: bool) -> (Output, Value) {
        self.judge_with(args, out, key, &[])
    }

    /// [`Split::judge`] with `env` set too.
    fn judge_with(
        &self,
        args: &[&str],
        out: &str,
        key: bool,
        env: &[(&str, &str)],
    ) -> (Output, Value) {
        let out = self.root.path().join(out);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_judge-ci"));
        cmd.args(args)
            .args([
                "--dry-run",
                "--task",
                self.root.path().join("task.yaml").to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .current_dir(self.ws())
            .env("NO_COLOR", "1")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_EVENT_PATH")
            .env_remove("GITHUB_EVENT_NAME")
            .env_remove("JUDGE_CI_LLM_PROVIDER")
            .env_remove("JUDGE_CI_LLM_MODEL")
            .env_remove("JUDGE_CI_LLM_BASE_URL")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("JUDGE_CI_TEST_API_KEY");
        if key {
            cmd.env("JUDGE_CI_TEST_API_KEY", KEY);
        }
        cmd.env_remove("JUDGE_CI_REFERENCE_KEY")
            .envs(env.iter().copied());
        let o = cmd.output().unwrap();
        let report = std::fs::read_to_string(out.join("report.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null);
        (o, report)
    }

    fn out(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// What a verdict amounts to: the reading, the root status, and each tier's and judge's
/// status and score (timings and paths left out).
fn essence(r: &Value) -> Value {
    let tiers: Vec<Value> = r["tiers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            json!({
                "name": t["name"], "ran": t["ran"], "status": t["status"], "stopped": t["stopped"],
                "judges": t["judges"].as_array().into_iter().flatten().map(|j| json!({
                    "name": j["name"], "type": j["type"], "status": j["status"], "score": j["score"],
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "reading": r["interpretation"]["reading"],
        "decidedBy": r["interpretation"]["decidedBy"],
        "root": r["verdict"]["aggregated"]["status"],
        "outcome": r["outcome"]["exitCode"],
        "tiers": tiers,
    })
}

fn answer(llm: &FakeLlm, verdict: &str) {
    llm.on(
        "",
        1,
        Reply::Json(json!({"verdict": verdict, "reasoning": "Filter.java is migrated"})),
    );
}

#[test]
fn a_split_run_reaches_the_single_runs_verdict_and_the_first_job_holds_no_key() {
    for verdict in ["PASS", "FAIL"] {
        let llm = FakeLlm::start(KEY);
        let s = Split::new(&llm);

        // The single run, for comparison.
        answer(&llm, verdict);
        let (single_o, single) = s.judge(&[], "single", true);
        assert_eq!(llm.seen().len(), 1, "{}", stderr(&single_o));
        assert_eq!(s.builds(), 1);

        // Job 1: no key in its environment; the build runs, the model is not asked.
        let (o1, first) = s.judge(&["--stop-before-semantic"], "first", false);
        let err1 = stderr(&o1);
        assert!(
            matches!(o1.status.code(), Some(0..=1)),
            "the first job judged: {err1}"
        );
        assert_eq!(s.builds(), 2, "the first job ran the build: {err1}");
        assert_eq!(llm.seen().len(), 1, "the first job asked no model");
        let env = std::fs::read_to_string(s.ws().join("target/build-env.txt")).unwrap();
        assert!(!env.contains("SENTINELKEY"), "{env}");
        let semantic = &first["tiers"][2]["judges"][0];
        assert_eq!(semantic["status"], "abstain", "{:#}", first["tiers"]);
        assert!(
            first.to_string().contains("deferred"),
            "{:#}",
            first["verdict"]
        );

        // Job 2: the key, no subject code.
        answer(&llm, verdict);
        let (o2, resumed) = s.judge(
            &["resume", "--from", s.out("first").to_str().unwrap()],
            "resumed",
            true,
        );
        let err2 = stderr(&o2);
        assert_eq!(s.builds(), 2, "the resumed job ran no subject code: {err2}");
        assert_eq!(
            llm.seen().len(),
            2,
            "the resumed job asked the model: {err2}"
        );
        assert_eq!(
            essence(&resumed),
            essence(&single),
            "{verdict}: {err2}\n{:#}",
            resumed["tiers"]
        );
        assert_eq!(o2.status.code(), single_o.status.code(), "{err2}");
        let md = std::fs::read_to_string(s.out("resumed").join("report.md")).unwrap();
        let single_md = std::fs::read_to_string(s.out("single").join("report.md")).unwrap();
        assert_eq!(
            md.lines().next(),
            single_md.lines().next(),
            "the same headline"
        );
        // The replayed judgments say where they came from.
        assert!(
            resumed.to_string().contains("replayedFrom"),
            "{:#}",
            resumed["verdict"]
        );
        for dir in ["first", "resumed"] {
            for e in walkdir::WalkDir::new(s.out(dir))
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
            {
                let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                assert!(!text.contains("SENTINELKEY"), "{}", e.path().display());
            }
        }
        assert!(llm.violations().is_empty(), "{:?}", llm.violations());
    }
}

/// Rewrites the stored report with `edit`.
fn forge(dir: &Path, edit: impl FnOnce(&mut Value)) {
    let p = dir.join("report.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn the_stored_report_cannot_decide_what_the_first_job_did_not_compute() {
    let llm = FakeLlm::start(KEY);
    let s = Split::new(&llm);
    let (o1, _) = s.judge(&["--stop-before-semantic"], "first", false);
    assert!(matches!(o1.status.code(), Some(0..=1)), "{}", stderr(&o1));
    let first = s.out("first");

    // A stored PASS for the semantic check, an accepted verdict and outcome: ignored; the
    // model is asked, and its FAIL rejects.
    forge(&first, |v| {
        let stored = v
            .to_string()
            .replace("\"status\":\"abstain\"", "\"status\":\"pass\"");
        *v = serde_json::from_str(&stored).unwrap();
        v["interpretation"]["reading"] = json!("ACCEPTED");
        v["outcome"]["exitCode"] = json!(0);
    });
    answer(&llm, "FAIL");
    let (o2, r) = s.judge(
        &["resume", "--from", first.to_str().unwrap()],
        "resumed",
        true,
    );
    assert_eq!(llm.seen().len(), 1, "{}", stderr(&o2));
    assert_eq!(r["tiers"][2]["judges"][0]["status"], "fail");
    assert_eq!(r["interpretation"]["reading"], "REJECTED");
    assert_eq!(o2.status.code(), Some(1), "{}", stderr(&o2));

    // A stored structural judgment is not taken either: the import check runs again here.
    let (o1, _) = s.judge(&["--stop-before-semantic"], "first", false);
    assert!(matches!(o1.status.code(), Some(0..=1)));
    std::fs::write(
        s.ws().join("src/Old.java"),
        "package p;\nimport javax.servlet.Filter;\nclass Old {}\n",
    )
    .unwrap();
    let (o1, first_r) = s.judge(&["--stop-before-semantic"], "first", false);
    assert_eq!(o1.status.code(), Some(1), "the import tier rejects");
    assert_eq!(first_r["tiers"][1]["judges"][0]["status"], "fail");
    forge(&first, |v| {
        let stored = v
            .to_string()
            .replace("\"status\":\"fail\"", "\"status\":\"pass\"");
        *v = serde_json::from_str(&stored).unwrap();
    });
    let (o2, r) = s.judge(
        &["resume", "--from", first.to_str().unwrap()],
        "resumed",
        true,
    );
    assert_eq!(
        r["tiers"][1]["judges"][0]["status"],
        "fail",
        "{}",
        stderr(&o2)
    );
    assert_eq!(o2.status.code(), Some(1));
    assert_eq!(llm.seen().len(), 1, "rejected before the model");
    std::fs::remove_file(s.ws().join("src/Old.java")).unwrap();

    // Another config, another head or another judge-ci: refused with exit 2, naming the file.
    for (what, edit) in [
        (
            "another config",
            Box::new(|v: &mut Value| v["config"]["sha256"] = json!("00"))
                as Box<dyn Fn(&mut Value)>,
        ),
        (
            "judged head",
            Box::new(|v: &mut Value| v["subject"]["headSha"] = json!("f".repeat(40))),
        ),
        (
            "written by judge-ci",
            Box::new(|v: &mut Value| v["tool"]["version"] = json!("0.0.1")),
        ),
        (
            "judged against base",
            Box::new(|v: &mut Value| v["subject"]["baseSha"] = json!("e".repeat(40))),
        ),
        (
            "records no surfaceDigests",
            Box::new(|v: &mut Value| {
                v.as_object_mut().unwrap().remove("surfaceDigests");
            }),
        ),
        (
            "is not the file the run wrote",
            Box::new(|v: &mut Value| {
                v["surfaceDigests"]["report.md"] = json!("0".repeat(64));
            }),
        ),
    ] {
        let (o1, _) = s.judge(&["--stop-before-semantic"], "first", false);
        assert!(matches!(o1.status.code(), Some(0..=1)));
        forge(&first, |v| edit(v));
        let before = s.builds();
        let (o2, _) = s.judge(
            &["resume", "--from", first.to_str().unwrap()],
            "resumed",
            true,
        );
        let err = stderr(&o2);
        assert_eq!(o2.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains(what) && err.contains("report.json"), "{err}");
        assert_eq!(s.builds(), before);
    }
    assert_eq!(llm.seen().len(), 1);

    // No first job at all: refused, nothing judged.
    let (o2, r) = s.judge(
        &["resume", "--from", s.out("nowhere").to_str().unwrap()],
        "resumed-nowhere",
        true,
    );
    let err = stderr(&o2);
    assert_eq!(o2.status.code(), Some(2), "{err}");
    assert!(err.contains("--stop-before-semantic"), "{err}");
    assert_eq!(r, Value::Null);
    assert_eq!(llm.seen().len(), 1);
}

#[test]
fn resume_refuses_a_first_job_judged_against_another_reference() {
    // Attack finding GA2: part 1 run with --reference (another folder, or the pull request's
    // own tree) restored and compared against it, and resume took its judgments.
    let llm = FakeLlm::start(KEY);
    let s = Split::new(&llm);
    let other = s.out("otherref");
    std::fs::create_dir_all(other.join("src")).unwrap();
    for f in ["pom.xml", "README.md", "build.sh", "src/Filter.java"] {
        std::fs::copy(s.out("reference").join(f), other.join(f)).unwrap();
    }
    std::fs::write(other.join("README.md"), "another answer key\n").unwrap();
    let (o1, first) = s.judge(
        &[
            "--stop-before-semantic",
            "--reference",
            other.to_str().unwrap(),
        ],
        "first-other",
        false,
    );
    assert!(matches!(o1.status.code(), Some(0..=1)), "{}", stderr(&o1));
    assert!(
        first["subject"]["referenceDigest"]
            .as_str()
            .is_some_and(|d| d.starts_with("sha256:")),
        "{:#}",
        first["subject"]
    );
    let (o2, _) = s.judge(
        &["resume", "--from", s.out("first-other").to_str().unwrap()],
        "resumed-other",
        true,
    );
    assert_eq!(o2.status.code(), Some(2), "{}", stderr(&o2));
    assert!(stderr(&o2).contains("another reference"), "{}", stderr(&o2));
    assert!(llm.seen().is_empty(), "nothing asked");
}

/// Attack finding N7-5: under `reveal: none` the report held the reference's plain SHA-256,
/// an offline oracle for the answer key (a guessed reference whose digest matches is it).
/// Now it is withheld, and `resume` refuses to bind a job to a withheld digest; with
/// `JUDGE_CI_REFERENCE_KEY` in both jobs it is an HMAC and the split run goes on.
#[test]
fn under_reveal_none_the_reference_digest_is_keyed_or_withheld() {
    let llm = FakeLlm::start(KEY);
    let s = Split::new(&llm);
    let config = s.ws().join("judge-ci.yml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("reveal: none\n{text}")).unwrap();
    let (o1, first) = s.judge(&["--stop-before-semantic"], "first-hidden", false);
    assert!(matches!(o1.status.code(), Some(0..=1)), "{}", stderr(&o1));
    assert_eq!(
        first["subject"]["referenceDigest"], "withheld",
        "{:#}",
        first["subject"]
    );
    let (o2, _) = s.judge(
        &["resume", "--from", s.out("first-hidden").to_str().unwrap()],
        "resumed-hidden",
        true,
    );
    assert_eq!(o2.status.code(), Some(2), "{}", stderr(&o2));
    assert!(
        stderr(&o2).contains("JUDGE_CI_REFERENCE_KEY"),
        "{}",
        stderr(&o2)
    );
    let key = [("JUDGE_CI_REFERENCE_KEY", "a repository secret")];
    let (o1, first) = s.judge_with(&["--stop-before-semantic"], "first-keyed", false, &key);
    assert!(matches!(o1.status.code(), Some(0..=1)), "{}", stderr(&o1));
    let digest = first["subject"]["referenceDigest"].as_str().unwrap_or("");
    assert!(digest.starts_with("hmac-sha256:"), "{:#}", first["subject"]);
    answer(&llm, "PASS");
    let (o2, _) = s.judge_with(
        &["resume", "--from", s.out("first-keyed").to_str().unwrap()],
        "resumed-keyed",
        true,
        &key,
    );
    assert!(matches!(o2.status.code(), Some(0..=1)), "{}", stderr(&o2));
}

/// Attack finding S8-5: outside Actions the report held no head, so `resume` took a first
/// job's judgments (its build's PASS) for another commit checked out after it. Now the
/// commit judge-ci sees checked out binds the later job in every environment.
#[test]
fn outside_actions_resume_is_bound_to_the_commit_checked_out() {
    let llm = FakeLlm::start(KEY);
    let s = Split::new(&llm);
    common::git(&s.ws(), &["init", "-q", "-b", "main"]);
    common::commit_all(&s.ws(), "the first job's commit");
    let (o1, first) = s.judge(&["--stop-before-semantic"], "first-git", false);
    assert!(matches!(o1.status.code(), Some(0..=1)), "{}", stderr(&o1));
    assert!(
        first["subject"]["headSha"]
            .as_str()
            .is_some_and(|h| h.len() == 40),
        "{:#}",
        first["subject"]
    );
    std::fs::write(s.ws().join("README.md"), "another commit\n").unwrap();
    common::commit_all(&s.ws(), "another commit");
    let (o2, _) = s.judge(
        &["resume", "--from", s.out("first-git").to_str().unwrap()],
        "resumed-git",
        true,
    );
    assert_eq!(o2.status.code(), Some(2), "{}", stderr(&o2));
    assert!(stderr(&o2).contains("judged head"), "{}", stderr(&o2));
    assert!(llm.seen().is_empty(), "nothing asked");
}
