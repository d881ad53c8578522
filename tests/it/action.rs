//! The composite action, run as the runner would run it: each step of `action.yml` with bash,
//! its `${{ … }}` expressions filled from inputs (defaults from `action.yml`) and step outputs,
//! in a simulated runner (`GITHUB_*`, `RUNNER_*`, temp files for outputs and the summary),
//! against the loopback GitHub. The action runs from a copy of its files (action.yml, action/,
//! Cargo.toml), as a checkout of its ref would hold them; the release download is a `file://`
//! mirror holding this build's binary, whose SHA-256 the test commits to the copy's
//! action/checksums.txt as the release workflow does; the cargo fallback is observed through a
//! stand-in `cargo`.

use crate::common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::fake_github::{FakeGitHub, Layout};
use marked_yaml::Node;

const TOKEN: &str = "ghs_SENTINELTOKEN0123456789abcdef";

/// One step of the composite action.
pub(crate) struct Step {
    id: String,
    env: Vec<(String, String)>,
    run: String,
}

fn scalar(n: &Node) -> String {
    n.as_scalar()
        .map(|s| s.as_str().to_string())
        .unwrap_or_default()
}

/// The step of the action with this id (a bash step).
pub(crate) fn step_of<'a>(steps: &'a [Step], id: &str) -> &'a Step {
    steps
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("action.yml has no bash step {id}"))
}

/// A `uses:` step of the action.
struct UsesStep {
    /// What it uses (`actions/cache/restore@…`).
    uses: String,
    /// Its `if:` condition.
    condition: String,
    /// Its `with:` inputs.
    with: HashMap<String, String>,
}

/// The `uses:` steps of the action, in order.
fn uses_steps() -> Vec<UsesStep> {
    let text = std::fs::read_to_string(common::repo_root().join("action.yml")).unwrap();
    let doc = marked_yaml::parse_yaml(0, &text).unwrap();
    let steps = doc
        .as_mapping()
        .unwrap()
        .get_mapping("runs")
        .unwrap()
        .get_sequence("steps")
        .unwrap();
    let mut found = Vec::new();
    for s in steps.iter() {
        let m = s.as_mapping().unwrap();
        if let Some(uses) = m.get_scalar("uses") {
            let with = m
                .get_mapping("with")
                .map(|w| {
                    w.iter()
                        .map(|(k, v)| (k.as_str().to_string(), scalar(v)))
                        .collect()
                })
                .unwrap_or_default();
            found.push(UsesStep {
                uses: uses.as_str().to_string(),
                condition: m
                    .get_scalar("if")
                    .map(|x| x.as_str().to_string())
                    .unwrap_or_default(),
                with,
            });
        }
    }
    found
}

/// The action's input defaults and its bash steps (the `uses:` ones: [`uses_steps`]).
pub(crate) fn action() -> (HashMap<String, String>, Vec<String>, Vec<Step>) {
    let text = std::fs::read_to_string(common::repo_root().join("action.yml")).unwrap();
    let doc = marked_yaml::parse_yaml(0, &text).unwrap();
    let root = doc.as_mapping().unwrap();
    let mut defaults = HashMap::new();
    for (k, v) in root.get_mapping("inputs").unwrap().iter() {
        let d = v.as_mapping().and_then(|m| m.get_node("default"));
        defaults.insert(k.as_str().to_string(), d.map(scalar).unwrap_or_default());
    }
    let outputs: Vec<String> = root
        .get_mapping("outputs")
        .unwrap()
        .iter()
        .map(|(_, v)| scalar(v.as_mapping().unwrap().get_node("value").unwrap()))
        .collect();
    let runs = root.get_mapping("runs").unwrap();
    assert_eq!(runs.get_scalar("using").unwrap().as_str(), "composite");
    let steps = runs
        .get_sequence("steps")
        .unwrap()
        .iter()
        .filter(|s| s.as_mapping().unwrap().get_scalar("uses").is_none())
        .map(|s| {
            let m = s.as_mapping().unwrap();
            assert_eq!(m.get_scalar("shell").unwrap().as_str(), "bash");
            Step {
                id: m.get_scalar("id").unwrap().as_str().to_string(),
                env: m
                    .get_mapping("env")
                    .map(|e| {
                        e.iter()
                            .map(|(k, v)| (k.as_str().to_string(), scalar(v)))
                            .collect()
                    })
                    .unwrap_or_default(),
                run: m.get_scalar("run").unwrap().as_str().to_string(),
            }
        })
        .collect();
    (defaults, outputs, steps)
}

/// Fills `${{ expr }}` from `values` (inputs as `inputs.NAME`, step outputs as
/// `steps.ID.outputs.NAME`, `github.*`); an unknown expression fails the test.
pub(crate) fn fill(text: &str, values: &HashMap<String, String>) -> String {
    let re = regex::Regex::new(r"\$\{\{\s*([^}]+?)\s*\}\}").unwrap();
    re.replace_all(text, |c: &regex::Captures| {
        values
            .get(&c[1])
            .cloned()
            .unwrap_or_else(|| panic!("no value for the expression {}", &c[1]))
    })
    .into_owned()
}

/// The simulated runner.
pub(crate) struct Runner {
    pub(crate) tmp: tempfile::TempDir,
    pub(crate) gh: FakeGitHub,
    /// The action's checkout (`GITHUB_ACTION_PATH`).
    action: PathBuf,
}

impl Runner {
    pub(crate) fn new() -> Runner {
        let tmp = tempfile::tempdir().unwrap();
        let action = tmp.path().join("action-checkout");
        let root = common::repo_root();
        std::fs::create_dir_all(&action).unwrap();
        common::copy_tree(&root.join("action"), &action.join("action"));
        for f in ["action.yml", "Cargo.toml"] {
            std::fs::copy(root.join(f), action.join(f)).unwrap();
        }
        Runner {
            tmp,
            gh: FakeGitHub::start(Layout::DOTCOM),
            action,
        }
    }

    pub(crate) fn path(&self, p: &str) -> PathBuf {
        self.tmp.path().join(p)
    }

    /// Runs one step; returns its exit code, stdout+stderr, and outputs.
    pub(crate) fn step(
        &self,
        step: &Step,
        values: &HashMap<String, String>,
        cwd: &Path,
        extra_env: &[(&str, String)],
    ) -> (Option<i32>, String, HashMap<String, String>) {
        let output = self.path(&format!("output-{}.txt", step.id));
        let _ = std::fs::remove_file(&output);
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg(fill(&step.run, values))
            .current_dir(cwd)
            .env_remove("GITHUB_TOKEN")
            .env("NO_COLOR", "1")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_ACTION_PATH", &self.action)
            .env("GITHUB_EVENT_NAME", "pull_request")
            .env(
                "GITHUB_EVENT_PATH",
                common::repo_root().join("tests/fixtures/github/events/pull_request.opened.json"),
            )
            .env("GITHUB_REPOSITORY", "Codertocat/Hello-World")
            .env("GITHUB_SHA", "ffffffffffffffffffffffffffffffffffffffff")
            .env("GITHUB_SERVER_URL", "https://github.com")
            .env("GITHUB_RUN_ID", "77")
            .env("GITHUB_API_URL", self.gh.api_url())
            .env("GITHUB_GRAPHQL_URL", self.gh.graphql_url())
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", self.path("summary.md"))
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("RUNNER_TEMP", self.tmp.path())
            .env("RUNNER_TOOL_CACHE", self.path("toolcache"));
        for (k, v) in &step.env {
            cmd.env(k, fill(v, values));
        }
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let o = cmd.output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.code(), text, common::read_outputs(&output))
    }
}

fn sha256(p: &Path) -> String {
    let sum = Command::new("sha256sum").arg(p).output().unwrap();
    assert!(sum.status.success());
    String::from_utf8_lossy(&sum.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

/// Packs `binary` as the x86_64 Linux release asset of `version` under `dir`.
fn pack(dir: &Path, version: &str, binary: &Path) -> PathBuf {
    let name = format!("judge-ci-{version}-x86_64-unknown-linux-musl");
    let at = dir.join(format!("v{version}"));
    let stage = dir.join("stage").join(&name);
    let _ = std::fs::remove_dir_all(dir.join("stage"));
    std::fs::create_dir_all(&at).unwrap();
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::copy(binary, stage.join("judge-ci")).unwrap();
    let asset = at.join(format!("{name}.tar.gz"));
    let st = Command::new("tar")
        .arg("-czf")
        .arg(&asset)
        .arg("-C")
        .arg(dir.join("stage"))
        .arg(&name)
        .status()
        .unwrap();
    assert!(st.success());
    asset
}

/// Publishes this build's binary as release `v{version}` for x86_64 Linux under `dir`, and
/// commits the SHA-256 of the archive and of the binary to the action's checksums.txt, as the
/// release workflow does at the tag. Returns the asset.
fn release(r: &Runner, dir: &Path, version: &str) -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_judge-ci"));
    let asset = pack(dir, version, bin);
    let name = asset.file_name().unwrap().to_string_lossy().into_owned();
    let stem = name.trim_end_matches(".tar.gz");
    let list = r.action.join("action/checksums.txt");
    let mut text = std::fs::read_to_string(&list).unwrap();
    text.push_str(&format!(
        "{}  {name}\n{}  {stem}/judge-ci\n",
        sha256(&asset),
        sha256(bin)
    ));
    std::fs::write(&list, text).unwrap();
    asset
}

fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

pub(crate) fn base_values(defaults: &HashMap<String, String>) -> HashMap<String, String> {
    let mut v: HashMap<String, String> = HashMap::new();
    for (k, d) in defaults {
        v.insert(format!("inputs.{k}"), d.clone());
    }
    v.insert("github.token".into(), TOKEN.into());
    v.insert(
        "github.action_repository".into(),
        "judge-ci/judge-ci".into(),
    );
    // Input defaults may themselves be expressions (github-token).
    let snapshot = v.clone();
    for val in v.values_mut() {
        *val = fill(val, &snapshot);
    }
    v
}

#[test]
fn the_composite_action_installs_from_a_verified_release_judges_and_publishes() {
    let (defaults, outputs, steps) = action();
    assert_eq!(steps.len(), 3, "key, install, judge");
    let r = Runner::new();
    let mirror = r.path("releases");
    release(&r, &mirror, &version());
    let mirror_env = [(
        "JUDGE_CI_RELEASE_URL",
        format!("file://{}", mirror.display()),
    )];

    let project = tempfile::tempdir().unwrap();
    let ws = common::copy_example(project.path());

    let mut values = base_values(&defaults);
    let (code, log, install_out) = r.step(step_of(&steps, "install"), &values, &ws, &mirror_env);
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("downloaded from file://"), "{log}");
    let bin = install_out["bin"].clone();
    assert!(
        bin.starts_with(&r.path("toolcache").display().to_string()),
        "{bin}"
    );
    values.insert("steps.install.outputs.bin".into(), bin.clone());

    values.insert("inputs.comment-mode".into(), "update".into());
    // A checkout whose base commit holds the config: the action reads it from there.
    let base = common::commit_all(&ws, "base");
    let event = common::pull_request_event(r.tmp.path(), &base, &base);
    let (code, log, judge_out) = r.step(
        step_of(&steps, "judge"),
        &values,
        &ws,
        &[("GITHUB_EVENT_PATH", event.display().to_string())],
    );
    assert_eq!(code, Some(1), "rejected, as the example is: {log}");
    assert!(!log.contains("SENTINEL"), "{log}");
    assert_eq!(r.gh.comments().len(), 1, "{log}");
    assert_eq!(r.gh.check_runs().len(), 1, "{log}");
    assert!(r.gh.violations().is_empty(), "{:?}", r.gh.violations());
    // Every output the action declares is one the step wrote.
    for value in &outputs {
        let key = value
            .trim_start_matches("${{ steps.judge.outputs.")
            .trim_end_matches(" }}");
        assert!(
            judge_out.contains_key(key),
            "the step writes {key}: {judge_out:?}"
        );
    }
    assert_eq!(judge_out["reading"], "REJECTED");
    assert_eq!(judge_out["publish-mode"], "api");
    assert!(ws.join("judge-ci-out/report.json").is_file());

    // A second job finds the binary in the tool cache without downloading, and checks it
    // against the committed list first.
    std::fs::remove_dir_all(&mirror).unwrap();
    let (code, log, again) = r.step(step_of(&steps, "install"), &values, &ws, &mirror_env);
    assert_eq!(code, Some(0), "{log}");
    assert!(
        log.contains("found in the tool cache") && log.contains("matches action/checksums.txt"),
        "{log}"
    );
    assert_eq!(again["bin"], bin);
}

/// A stand-in for a tampered judge-ci: any run of it leaves `marker` behind.
fn tampered(dir: &Path, marker: &Path) -> PathBuf {
    let p = dir.join("evil-judge-ci");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        &p,
        format!(
            "#!/bin/sh\ntouch {}\necho judge-ci 0.0.0\n",
            marker.display()
        ),
    )
    .unwrap();
    common::chmod_x(&p);
    p
}

#[test]
fn a_tampered_release_asset_is_refused_even_with_a_matching_sha256_beside_it() {
    // Whoever can replace a release asset can replace a checksum file in the same release:
    // the action checks the committed action/checksums.txt instead, and refuses the swap.
    let (defaults, _, steps) = action();
    let values = base_values(&defaults);
    let cwd = tempfile::tempdir().unwrap();
    let r = Runner::new();
    let mirror = r.path("releases");
    let asset = release(&r, &mirror, &version());
    let marker = r.path("tampered-binary-ran");
    let evil = tampered(&r.path("evil"), &marker);
    let swapped = pack(&mirror, &version(), &evil);
    assert_eq!(swapped, asset);
    std::fs::write(
        PathBuf::from(format!("{}.sha256", asset.display())),
        format!(
            "{}  {}\n",
            sha256(&asset),
            asset.file_name().unwrap().to_string_lossy()
        ),
    )
    .unwrap();
    let (code, log, out) = r.step(
        step_of(&steps, "install"),
        &values,
        cwd.path(),
        &[(
            "JUDGE_CI_RELEASE_URL",
            format!("file://{}", mirror.display()),
        )],
    );
    assert_eq!(code, Some(1), "{log}");
    assert!(
        log.contains("checksum mismatch") && log.contains("action/checksums.txt says"),
        "{log}"
    );
    assert!(!out.contains_key("bin"));
    assert!(!marker.exists(), "the tampered binary never runs");
    assert!(
        walkdir::WalkDir::new(r.path("toolcache"))
            .into_iter()
            .filter_map(Result::ok)
            .all(|e| e.file_name() != "judge-ci"),
        "nothing is installed"
    );
}

#[test]
fn a_tampered_binary_in_the_tool_cache_is_never_run_and_is_replaced_by_a_verified_copy() {
    let (defaults, _, steps) = action();
    let values = base_values(&defaults);
    let cwd = tempfile::tempdir().unwrap();
    let r = Runner::new();
    let mirror = r.path("releases");
    release(&r, &mirror, &version());
    let mirror_env = [(
        "JUDGE_CI_RELEASE_URL",
        format!("file://{}", mirror.display()),
    )];
    let (code, log, out) = r.step(step_of(&steps, "install"), &values, cwd.path(), &mirror_env);
    assert_eq!(code, Some(0), "{log}");
    let bin = PathBuf::from(&out["bin"]);
    let good = sha256(&bin);

    // An earlier job (or anything else that could write the tool cache) swapped the binary.
    let marker = r.path("tampered-binary-ran");
    let evil = tampered(&r.path("evil"), &marker);
    std::fs::copy(&evil, &bin).unwrap();
    let (code, log, out) = r.step(step_of(&steps, "install"), &values, cwd.path(), &mirror_env);
    assert_eq!(code, Some(0), "{log}");
    assert!(
        log.contains("not running it, installing a verified copy"),
        "{log}"
    );
    assert!(log.contains("downloaded from file://"), "{log}");
    assert_eq!(PathBuf::from(&out["bin"]), bin);
    assert_eq!(sha256(&bin), good, "the verified binary is back");
    assert!(!marker.exists(), "the tampered binary never ran");

    // Swapped again, and no release to download and no cargo: the step fails rather than
    // run it.
    std::fs::copy(&evil, &bin).unwrap();
    std::fs::remove_dir_all(&mirror).unwrap();
    let (code, log, out) = r.step(
        step_of(&steps, "install"),
        &values,
        cwd.path(),
        &[mirror_env[0].clone(), ("PATH", "/usr/bin:/bin".to_string())],
    );
    assert_ne!(code, Some(0), "{log}");
    assert!(!out.contains_key("bin"), "{log}");
    assert!(!marker.exists(), "the tampered binary never ran: {log}");
}

#[test]
fn a_version_without_a_committed_checksum_is_not_downloaded_and_a_missing_asset_builds_with_cargo()
{
    let (defaults, _, steps) = action();
    let mut values = base_values(&defaults);
    let cwd = tempfile::tempdir().unwrap();

    // A version other than the action's own, with no committed checksum at this ref: refused
    // before anything is downloaded, even though the release holds an asset and a .sha256.
    let r = Runner::new();
    let mirror = r.path("releases");
    let asset = pack(&mirror, "9.9.9", Path::new(env!("CARGO_BIN_EXE_judge-ci")));
    std::fs::write(
        PathBuf::from(format!("{}.sha256", asset.display())),
        format!("{}  x\n", sha256(&asset)),
    )
    .unwrap();
    values.insert("inputs.version".into(), "9.9.9".into());
    let (code, log, out) = r.step(
        step_of(&steps, "install"),
        &values,
        cwd.path(),
        &[(
            "JUDGE_CI_RELEASE_URL",
            format!("file://{}", mirror.display()),
        )],
    );
    assert_eq!(code, Some(1), "{log}");
    assert!(log.contains("cannot be verified"), "{log}");
    assert!(!out.contains_key("bin"));
    values.insert("inputs.version".into(), String::new());

    // A committed checksum but no asset for this version: `cargo install --locked --path
    // <action>` (a stand-in cargo records its arguments and installs this build's binary where
    // --root says).
    let r = Runner::new();
    release(&r, &r.path("elsewhere"), &version());
    let fake_bin = r.path("fakebin");
    std::fs::create_dir_all(&fake_bin).unwrap();
    let record = r.path("cargo-args.txt");
    let script = format!(
        "#!/bin/sh\necho \"$@\" > {}\nroot=''\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\nmkdir -p \"$root/bin\" && cp {} \"$root/bin/judge-ci\"\n",
        record.display(),
        env!("CARGO_BIN_EXE_judge-ci")
    );
    std::fs::write(fake_bin.join("cargo"), script).unwrap();
    common::chmod_x(&fake_bin.join("cargo"));
    let path = format!("{}:{}", fake_bin.display(), std::env::var("PATH").unwrap());
    let (code, log, out) = r.step(
        step_of(&steps, "install"),
        &values,
        cwd.path(),
        &[
            (
                "JUDGE_CI_RELEASE_URL",
                format!("file://{}", r.path("empty-mirror").display()),
            ),
            ("PATH", path),
        ],
    );
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("building from the action's source"), "{log}");
    let args = std::fs::read_to_string(&record).unwrap();
    assert!(
        args.starts_with(&format!(
            "install --locked --path {} --root ",
            r.action.display()
        )),
        "{args}"
    );
    assert!(out["bin"].ends_with("/bin/judge-ci"));
}

#[test]
fn a_runner_that_is_not_linux_is_refused_before_anything_is_installed() {
    let (defaults, _, steps) = action();
    let values = base_values(&defaults);
    let cwd = tempfile::tempdir().unwrap();
    for (os, arch) in [("macOS", "ARM64"), ("Windows", "X64")] {
        let r = Runner::new();
        let (code, log, out) = r.step(
            step_of(&steps, "install"),
            &values,
            cwd.path(),
            &[("RUNNER_OS", os.into()), ("RUNNER_ARCH", arch.into())],
        );
        assert_eq!(code, Some(1), "{log}");
        assert!(log.contains("judge-ci runs on Linux runners only"), "{log}");
        assert!(log.contains(&format!("{os}/{arch}")), "{log}");
        assert!(!out.contains_key("bin"), "{out:?}");
        assert!(
            !r.path("toolcache").exists(),
            "nothing may be installed for {os}"
        );
    }
}

#[test]
fn the_command_input_runs_suite_merge_compare_and_publish_and_refuses_inputs_they_do_not_take() {
    let (defaults, _, steps) = action();
    let r = Runner::new();
    let mut values = base_values(&defaults);
    values.insert(
        "steps.install.outputs.bin".into(),
        env!("CARGO_BIN_EXE_judge-ci").into(),
    );
    let with = |pairs: &[(&str, &str)]| {
        let mut v = values.clone();
        for (k, x) in pairs {
            v.insert(format!("inputs.{k}"), (*x).to_string());
        }
        v
    };

    // A two-task suite layout, judged whole and as two shards through the action.
    let root = tempfile::tempdir().unwrap();
    common::done_txt_bench(root.path(), "s", &["a", "b"]);
    let ws = root.path();
    for (out, args) in [
        ("whole", "bench"),
        ("shard-1", "bench --shard 1/2"),
        ("shard-2", "bench --shard 2/2"),
    ] {
        let v = with(&[("command", "suite"), ("args", args), ("out", out)]);
        // A suite of a push (a benchmark run): in a pull-request context its definitions come
        // from the base commit, which this folder outside git does not have (tests/it/suite.rs
        // a_suite_in_a_pull_request_context_is_judged_by_the_bases_definitions).
        let push = [
            ("GITHUB_EVENT_NAME", "push".to_string()),
            (
                "GITHUB_EVENT_PATH",
                common::repo_root()
                    .join("tests/fixtures/github/events/push.json")
                    .display()
                    .to_string(),
            ),
        ];
        let (code, log, _) = r.step(step_of(&steps, "judge"), &v, ws, &push);
        assert_eq!(code, Some(0), "suite {args}: {log}");
        assert!(ws.join(out).join("suite.json").is_file(), "{log}");
    }
    let v = with(&[
        ("command", "merge"),
        ("args", "shard-1 shard-2"),
        ("out", "merged"),
    ]);
    let (code, log, _) = r.step(step_of(&steps, "judge"), &v, ws, &[]);
    assert_eq!(code, Some(0), "merge: {log}");
    assert_eq!(
        std::fs::read_to_string(ws.join("merged/suite.json")).unwrap(),
        std::fs::read_to_string(ws.join("whole/suite.json")).unwrap(),
        "the merged shards are the whole run"
    );
    let v = with(&[
        ("command", "compare"),
        (
            "args",
            "--baseline whole/suite.json merged --max-regressions 0",
        ),
        ("out", "compare"),
    ]);
    let (code, log, _) = r.step(step_of(&steps, "judge"), &v, ws, &[]);
    assert_eq!(code, Some(0), "compare: {log}");
    assert!(ws.join("compare").is_dir(), "{log}");

    // An input the command does not take is refused, not ignored; so is an unknown command.
    for (pairs, says) in [
        (
            vec![("command", "merge"), ("config", "judge-ci.yml")],
            "input 'config' does not apply to command 'merge'",
        ),
        (
            vec![("command", "publish"), ("fail-on", "never")],
            "input 'fail-on' does not apply to command 'publish'",
        ),
        (
            vec![("command", "prove"), ("task", "task.yaml")],
            "input 'task' does not apply to command 'prove'; it takes: config reference",
        ),
        (
            vec![("command", "frobnicate")],
            "command 'frobnicate' is not one of run, publish, suite, merge, compare, prove, calibrate",
        ),
        (
            vec![("command", "calibrate"), ("config", "judge-ci.yml")],
            "input 'config' does not apply to command 'calibrate'",
        ),
        (
            // The command reaches `judge-ci calibrate`, which refuses a folder without cases.yml.
            vec![("command", "calibrate"), ("args", "bench")],
            "cases.yml",
        ),
    ] {
        let (code, log, _) = r.step(step_of(&steps, "judge"), &with(&pairs), ws, &[]);
        assert_eq!(code, Some(2), "{log}");
        assert!(log.contains(says), "{log}");
    }

    // publish: a stored run posted from a trusted job, read from `from`.
    let project = tempfile::tempdir().unwrap();
    let example = common::copy_example(project.path());
    let base = common::commit_all(&example, "base");
    let event = common::pull_request_event(r.tmp.path(), &base, &base);
    let event_env = [("GITHUB_EVENT_PATH", event.display().to_string())];
    let v = with(&[
        ("out", "first-job"),
        ("check-run", "false"),
        ("comment-mode", "off"),
    ]);
    let (code, log, _) = r.step(step_of(&steps, "judge"), &v, &example, &event_env);
    assert_eq!(code, Some(1), "the example is rejected: {log}");
    assert!(
        r.gh.comments().is_empty() && r.gh.check_runs().is_empty(),
        "{log}"
    );
    let v = with(&[
        ("command", "publish"),
        ("from", "first-job"),
        ("config", "judge-ci.yml"),
    ]);
    let (code, log, _) = r.step(step_of(&steps, "judge"), &v, &example, &event_env);
    assert_eq!(code, Some(0), "published: {log}");
    assert_eq!(r.gh.comments().len(), 1, "{log}");
    let runs = r.gh.check_runs();
    assert_eq!(runs.len(), 1, "{log}");
    assert_eq!(
        runs[0].create["conclusion"], "neutral",
        "advisory without --trust-report"
    );
    assert!(r.gh.violations().is_empty(), "{:?}", r.gh.violations());
}

#[test]
fn a_binary_built_from_source_is_cached_by_source_os_and_arch_and_the_second_job_does_not_compile()
{
    let (defaults, _, steps) = action();
    let values = base_values(&defaults);
    let cwd = tempfile::tempdir().unwrap();

    // The cache steps: restored only for a source build, saved only when this job compiled,
    // under the key step's key and path, and saved before the judge step runs any PR code.
    let uses = uses_steps();
    let restore = uses
        .iter()
        .find(|u| u.uses.starts_with("actions/cache/restore@"))
        .unwrap();
    let save = uses
        .iter()
        .find(|u| u.uses.starts_with("actions/cache/save@"))
        .unwrap();
    assert_eq!(
        restore.condition,
        "steps.key.outputs.source-build == 'true'"
    );
    assert_eq!(save.condition, "steps.install.outputs.built == 'true'");
    for u in [restore, save] {
        assert_eq!(u.with["key"], "${{ steps.key.outputs.key }}");
        assert_eq!(u.with["path"], "${{ steps.key.outputs.path }}");
    }
    let text = std::fs::read_to_string(common::repo_root().join("action.yml")).unwrap();
    let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle}"));
    assert!(at("id: key") < at("actions/cache/restore@"));
    assert!(at("actions/cache/restore@") < at("id: install"));
    assert!(at("id: install") < at("actions/cache/save@"));
    assert!(at("actions/cache/save@") < at("id: judge"));

    // The key names the OS, the architecture, the version and the source tree's digest.
    let r = Runner::new();
    let (code, log, key) = r.step(step_of(&steps, "key"), &values, cwd.path(), &[]);
    assert_eq!(code, Some(0), "{log}");
    assert_eq!(
        key["source-build"], "true",
        "no release checksum at this ref"
    );
    assert!(
        key["key"].starts_with(&format!(
            "judge-ci-source-build-v1-Linux-X64-{}-",
            version()
        )),
        "{key:?}"
    );
    let (_, _, arm) = r.step(
        step_of(&steps, "key"),
        &values,
        cwd.path(),
        &[("RUNNER_ARCH", "ARM64".into())],
    );
    assert_ne!(arm["key"], key["key"], "another architecture, another key");
    std::fs::write(
        r.action.join("Cargo.toml"),
        format!(
            "{}\n# changed\n",
            std::fs::read_to_string(r.action.join("Cargo.toml")).unwrap()
        ),
    )
    .unwrap();
    let (_, _, changed) = r.step(step_of(&steps, "key"), &values, cwd.path(), &[]);
    assert_ne!(changed["key"], key["key"], "other source, another key");
    std::fs::copy(
        common::repo_root().join("Cargo.toml"),
        r.action.join("Cargo.toml"),
    )
    .unwrap();

    // First job: nothing restored, so it compiles (a stand-in cargo installs this build's
    // binary where --root says) and says so for the save step.
    let fake_bin = r.path("fakebin");
    std::fs::create_dir_all(&fake_bin).unwrap();
    let compiled = r.path("compiled.txt");
    std::fs::write(
        fake_bin.join("cargo"),
        format!(
            "#!/bin/sh\necho compiled >> {}\nroot=''\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\nmkdir -p \"$root/bin\" && cp {} \"$root/bin/judge-ci\"\n",
            compiled.display(),
            env!("CARGO_BIN_EXE_judge-ci")
        ),
    )
    .unwrap();
    common::chmod_x(&fake_bin.join("cargo"));
    let path = format!("{}:{}", fake_bin.display(), std::env::var("PATH").unwrap());
    let env = [("PATH", path.clone())];
    let (code, log, first) = r.step(step_of(&steps, "install"), &values, cwd.path(), &env);
    assert_eq!(code, Some(0), "{log}");
    assert_eq!(first["built"], "true", "{first:?}");
    assert!(first["bin"].starts_with(&key["path"]), "{first:?} {key:?}");

    // Second job, on a fresh runner: the cache restores the key's path (as actions/cache does,
    // to the same path) and the install step finds the binary without compiling.
    let saved = r.path("saved-cache");
    common::copy_tree(Path::new(&key["path"]), &saved);
    std::fs::remove_dir_all(r.path("toolcache")).unwrap();
    let restored = Path::new(&key["path"]);
    std::fs::create_dir_all(restored.parent().unwrap()).unwrap();
    common::copy_tree(&saved, restored);
    let began = std::time::Instant::now();
    let (code, log, second) = r.step(step_of(&steps, "install"), &values, cwd.path(), &env);
    let took = began.elapsed();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("found in the tool cache"), "{log}");
    assert!(!second.contains_key("built"), "nothing to save: {second:?}");
    assert_eq!(
        std::fs::read_to_string(&compiled).unwrap().lines().count(),
        1,
        "only the first job compiled"
    );
    eprintln!(
        "action cache: the second job's install step (action/install.sh, binary restored) took {:.2} s",
        took.as_secs_f64()
    );
}
