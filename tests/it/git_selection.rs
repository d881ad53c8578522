//! Git-aware file selection through the real binary: the structural tier run with the
//! reference as a revision (files chosen from git: identical ones never read) gives exactly
//! the findings, scores and verdict of the same pair given as two folders — on the bundled
//! example and on a generated repository with every kind of change.

use crate::common;

use common::{copy_tree, git, judge_ci, report, stderr, write_tree};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const CONFIG: &str = "name: git-selection\njury:\n  tiers:\n    - name: structural\n      voting: {strategy: all-must-pass, errors: treat-as-fail}\n      checks:\n        - {type: import-diff, forbid: [javax.servlet.*], require: [jakarta.servlet.*]}\n        - type: ast-diff\n        - type: pom-diff\n        - {type: file-comparison, include: ['**/*'], exclude: ['judge-ci-out/**', '.cache/**']}\n";

/// Every regular file under `root` (but `.git`) an hour old, so the index written next is
/// not racily clean for them.
fn age(root: &Path) {
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    for e in walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git")
        .flatten()
    {
        if e.file_type().is_file() {
            let f = std::fs::File::options().write(true).open(e.path()).unwrap();
            f.set_modified(hour_ago).unwrap();
        }
    }
}

/// A repository in `dir` whose tag `reference` holds `reference`'s files and whose working
/// tree holds `workspace`'s, committed.
fn as_repo(dir: &Path, reference: &Path, workspace: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    copy_tree(&reference.join("."), dir);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "reference"]);
    git(dir, &["tag", "reference"]);
    git(dir, &["rm", "-rq", "."]);
    copy_tree(&workspace.join("."), dir);
    age(dir);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "workspace"]);
}

/// Runs the structural tier in `repo` against `reference` (a revision or a folder).
fn judged(repo: &Path, config: &Path, reference: &str) -> Value {
    let out = tempfile::tempdir().unwrap();
    let o = judge_ci(
        repo,
        &[
            "--dry-run",
            "-q",
            "--config",
            config.to_str().unwrap(),
            "--workspace",
            ".",
            "--reference",
            reference,
            "--format",
            "json",
            "--out",
            out.path().to_str().unwrap(),
        ],
    );
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "exit {:?}: {}",
        o.status.code(),
        stderr(&o)
    );
    report(out.path())
}

/// What must not depend on how files were chosen: every judgment's status, score, reasoning,
/// checks, findings and metadata, the diffs and the outcome; times left out.
fn judged_view(r: &Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for k in ["elapsedMillis", "identicalByGit", "startedAt", "durationMs"] {
                    m.remove(k);
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::json!({
        "verdict": r["verdict"],
        "diffs": r["diffs"],
        "outcome": r["outcome"],
    });
    strip(&mut v);
    v
}

/// How many identical files the judgments knew from git, summed over the structural checks.
fn by_git(r: &Value) -> u64 {
    r["verdict"]["individual"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|j| j["metadata"]["identicalByGit"].as_u64())
        .sum()
}

/// The pair judged both ways; returns the git run's report.
fn same_both_ways(repo: &Path, reference_folder: &Path, config: &Path) -> Value {
    let from_git = judged(repo, config, "reference");
    let from_folders = judged(repo, config, reference_folder.to_str().unwrap());
    assert_eq!(by_git(&from_folders), 0);
    assert_eq!(
        judged_view(&from_git),
        judged_view(&from_folders),
        "git-aware selection changed the judgment"
    );
    from_git
}

/// The bundled example copied under `root` without its output folder, and the structural
/// config written beside it as `name`: the workspace, the reference folder and the config.
fn example(root: &Path, name: &str, config: &str) -> (PathBuf, PathBuf, PathBuf) {
    let ws = common::copy_example(root);
    let _ = std::fs::remove_dir_all(ws.join("judge-ci-out"));
    let path = root.join(name);
    std::fs::write(&path, config).unwrap();
    (ws, root.join("reference"), path)
}

#[test]
fn the_bundled_example_is_judged_the_same_from_git_and_from_folders() {
    let root = tempfile::tempdir().unwrap();
    let (ws, _, config) = example(root.path(), "judge-ci.yml", CONFIG);
    let repo = root.path().join("repo");
    as_repo(&repo, &root.path().join("reference"), &ws);
    let r = same_both_ways(&repo, &root.path().join("reference"), &config);
    assert!(by_git(&r) > 0, "git decided nothing: {r:#}");
    assert_eq!(r["outcome"]["exitCode"], 1);
}

fn java(i: usize, changed: bool) -> String {
    let (ns, extra) = if changed {
        ("jakarta", "\n    @Deprecated void added() {}")
    } else {
        ("javax", "")
    };
    format!(
        "package p{m};\n\nimport {ns}.servlet.Filter;\nimport java.util.List;\n\npublic class C{i} {{\n    List<String> names;\n    int f(int n) {{ return n * {i}; }}{extra}\n}}\n",
        m = i % 3
    )
}

#[test]
fn a_generated_repository_is_judged_the_same_from_git_and_from_folders() {
    let root = tempfile::tempdir().unwrap();
    let (rf, ws) = (root.path().join("ref"), root.path().join("ws"));
    for i in 0..60 {
        let rel = format!("src/main/java/p{}/C{i}.java", i % 3);
        write_tree(&rf, &[(&rel, &java(i, true))]);
        // Every fourth file still on javax, every seventh with a body-only change.
        let mut text = java(i, i % 4 != 0);
        if i % 7 == 0 {
            text = text.replace("n * ", "n + ");
        }
        write_tree(&ws, &[(&rel, &text)]);
    }
    let pom = |v: &str| {
        format!(
            "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version><properties><maven.compiler.release>{v}</maven.compiler.release></properties></project>\n"
        )
    };
    write_tree(
        &rf,
        &[
            ("pom.xml", &pom("17")),
            ("module/pom.xml", &pom("21")),
            (
                "src/main/resources/app.xml",
                "<app a='1' b='2'><x>t</x></app>",
            ),
            ("README.txt", "hello   world\n"),
            ("NOTES.txt", "one\n"),
            ("only-in-reference.txt", "gone\n"),
        ],
    );
    write_tree(
        &ws,
        &[
            ("pom.xml", &pom("11")),
            ("module/pom.xml", &pom("21")),
            (
                "src/main/resources/app.xml",
                "<app b=\"2\" a=\"1\">\n  <x> t </x>\n</app>",
            ),
            ("README.txt", "hello world"),
            ("NOTES.txt", "two\n"),
            ("only-in-workspace.txt", "new\n"),
        ],
    );
    std::fs::write(rf.join("logo.bin"), [0u8, 159, 146, 150]).unwrap();
    std::fs::write(ws.join("logo.bin"), [0u8, 159, 146, 151]).unwrap();
    let config = root.path().join("judge-ci.yml");
    std::fs::write(&config, CONFIG).unwrap();
    let repo = root.path().join("repo");
    as_repo(&repo, &rf, &ws);
    // Then, in the working tree: an uncommitted edit that makes a file match the reference,
    // one that makes a matching file differ, an untracked and an ignored file, a symlink.
    std::fs::copy(
        rf.join("src/main/java/p0/C0.java"),
        repo.join("src/main/java/p0/C0.java"),
    )
    .unwrap();
    std::fs::write(repo.join("src/main/java/p1/C1.java"), java(1, false)).unwrap();
    write_tree(
        &repo,
        &[
            ("src/main/java/p2/Untracked.java", &java(99, true)),
            (".gitignore", "target/\n"),
            ("target/generated/C5.java", &java(5, false)),
        ],
    );
    std::os::unix::fs::symlink(
        "../../../../NOTES.txt",
        repo.join("src/main/java/p2/L.java"),
    )
    .unwrap();
    let r = same_both_ways(&repo, &rf, &config);
    assert!(by_git(&r) > 0, "git decided nothing: {r:#}");
    // The edits after the commit were seen: C0 now matches, C1 no longer does.
    let files = r["diffs"]["files"].to_string();
    assert!(!files.contains("p0/C0.java"), "{files}");
    assert!(files.contains("p1/C1.java"), "{files}");
}

/// A build step that deletes the sources and rewrites the POM before the structural tier.
const CONFIG_AFTER_BUILD: &str = "name: git-selection\njury:\n  tiers:\n    - name: build\n      policy: ACCEPT_ON_ALL_PASS\n      checks:\n        - {type: command, name: vandal, run: \"rm -rf src && echo '<project/>' > pom.xml\"}\n    - name: structural\n      voting: {strategy: all-must-pass, errors: treat-as-fail}\n      checks:\n        - {type: import-diff, forbid: [javax.servlet.*], require: [jakarta.servlet.*]}\n        - type: ast-diff\n        - type: pom-diff\n        - {type: file-comparison, include: ['**/*'], exclude: ['judge-ci-out/**', '.cache/**']}\n";

/// The structural judgments of a report (the build tier left out).
fn structural_view(r: &Value) -> Value {
    let v = judged_view(r);
    let mut judgments: Vec<Value> = v["verdict"]["individual"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["metadata"].get("filesCompared").is_some())
        .cloned()
        .collect();
    judgments.sort_by_key(|j| j["reasoning"].to_string());
    serde_json::json!({"judgments": judgments, "diffs": v["diffs"]})
}

#[test]
fn after_a_build_the_snapshot_is_judged_the_same_and_git_still_selects() {
    let root = tempfile::tempdir().unwrap();
    let (ws, reference, plain) = example(root.path(), "plain.yml", CONFIG);
    let after_build = root.path().join("after-build.yml");
    std::fs::write(&after_build, CONFIG_AFTER_BUILD).unwrap();
    let fresh = |name: &str| {
        let repo = root.path().join(name);
        as_repo(&repo, &reference, &ws);
        repo
    };
    // The structural tier alone, on the untouched workspace: what it says as submitted.
    let expected = judged(&fresh("plain"), &plain, "reference");
    // After the build step ran, from the snapshot: from git, then as folders.
    let git_repo = fresh("git");
    let from_git = judged(&git_repo, &after_build, "reference");
    assert!(
        from_git
            .to_string()
            .contains("judge-ci put it back as submitted"),
        "the build step ran: {from_git:#}"
    );
    let from_folders = judged(&fresh("folders"), &after_build, reference.to_str().unwrap());
    assert_eq!(structural_view(&from_git), structural_view(&expected));
    assert_eq!(structural_view(&from_folders), structural_view(&expected));
    assert!(
        by_git(&from_git) > 0,
        "the snapshot lost git's ids: {from_git:#}"
    );
    assert_eq!(by_git(&from_folders), 0);
}

/// The structural tier with the model cache in `cache` (a folder or `off`), XDG_CACHE_HOME
/// pointed at `xdg`.
fn judged_with_cache(
    ws: &Path,
    reference: &Path,
    config: &Path,
    cache: Option<&Path>,
    xdg: &Path,
) -> (i32, Value, String) {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec![
        "--dry-run".to_string(),
        "-q".into(),
        "--config".into(),
        config.display().to_string(),
        "--reference".into(),
        reference.display().to_string(),
        "--format".into(),
        "json".into(),
        "--out".into(),
        out.path().display().to_string(),
    ];
    if let Some(c) = cache {
        args.extend(["--model-cache".into(), c.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = common::command(ws, &args)
        .env("XDG_CACHE_HOME", xdg)
        .env_remove("JUDGE_CI_MODEL_CACHE")
        .output()
        .unwrap();
    let code = o.status.code().unwrap_or(-1);
    let r = if matches!(code, 0 | 1) {
        report(out.path())
    } else {
        Value::Null
    };
    (code, r, stderr(&o))
}

fn entry_files(dir: &Path) -> Vec<std::path::PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect()
}

#[test]
fn the_model_cache_gives_the_same_judgment_warm_corrupt_and_never_from_the_workspace() {
    use judge_ci::lang::cache::{Kind, Store};
    let root = tempfile::tempdir().unwrap();
    let (ws, reference, config) = example(root.path(), "judge-ci.yml", CONFIG);
    let cache = root.path().join("models");
    let xdg = root.path().join("xdg");
    let (code, uncached, _) =
        judged_with_cache(&ws, &reference, &config, Some(Path::new("off")), &xdg);
    assert_eq!(code, 1);
    assert!(!xdg.exists(), "off writes nothing");
    let (_, cold, _) = judged_with_cache(&ws, &reference, &config, Some(&cache), &xdg);
    let written = entry_files(&cache);
    assert!(!written.is_empty());
    let (_, warm, _) = judged_with_cache(&ws, &reference, &config, Some(&cache), &xdg);
    assert_eq!(judged_view(&cold), judged_view(&uncached));
    assert_eq!(judged_view(&warm), judged_view(&uncached));
    // Every pack corrupted: ignored (and removed), the models parsed again into a new pack.
    for p in written
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jcp"))
    {
        std::fs::write(p, b"not a model").unwrap();
    }
    let (_, after, _) = judged_with_cache(&ws, &reference, &config, Some(&cache), &xdg);
    assert_eq!(judged_view(&after), judged_view(&uncached));
    let replaced = entry_files(&cache);
    for p in &replaced {
        assert_ne!(std::fs::read(p).unwrap(), b"not a model", "{}", p.display());
    }
    assert!(
        replaced
            .iter()
            .any(|p| p.extension().is_some_and(|x| x == "jcp"))
    );
    let (_, warm_again, _) = judged_with_cache(&ws, &reference, &config, Some(&cache), &xdg);
    assert_eq!(judged_view(&warm_again), judged_view(&uncached));
    // The default folder is XDG_CACHE_HOME's.
    let (_, _, _) = judged_with_cache(&ws, &reference, &config, None, &xdg);
    assert!(!entry_files(&xdg.join("judge-ci/models")).is_empty());

    // A pull request plants, under a cache folder of its own, the model of the migrated
    // HealthFilter.java as the model of its unmigrated one.
    let rel = "src/main/java/com/example/greeting/HealthFilter.java";
    let theirs = std::fs::read(ws.join(rel)).unwrap();
    let migrated_bytes = std::fs::read(reference.join(rel)).unwrap();
    let migrated = judge_ci::lang::java::parse(&migrated_bytes);
    let migrated_header = judge_ci::lang::java::header(&migrated_bytes);
    let plant = |dir: &Path| {
        let store = Store::new(dir.to_path_buf(), u64::MAX);
        store.insert(Kind::JavaWithBodies, &theirs, &migrated);
        store.insert(Kind::JavaSignatures, &theirs, &migrated);
        store.insert(Kind::Header, &theirs, &migrated_header);
        store.flush().unwrap();
    };
    plant(&ws.join(".cache/judge-ci/models"));
    // Named on the command line: refused.
    let (code, _, err) = judged_with_cache(
        &ws,
        &reference,
        &config,
        Some(&ws.join(".cache/judge-ci/models")),
        &xdg,
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--model-cache") && err.contains("inside the workspace"),
        "{err}"
    );
    // Reached through XDG_CACHE_HOME: not used, the findings stand.
    let (code, r, _) = judged_with_cache(&ws, &reference, &config, None, &ws.join(".cache"));
    assert_eq!(code, 1);
    assert_eq!(judged_view(&r), judged_view(&uncached));
    // Control: the same entries in a folder judge-ci is told to use are believed (the cache
    // trusts its own folder, which is why it never lives where the pull request writes).
    let outside = root.path().join("planted");
    plant(&outside);
    let (_, fooled, _) = judged_with_cache(&ws, &reference, &config, Some(&outside), &xdg);
    assert_ne!(judged_view(&fooled), judged_view(&uncached));
}

/// A pack giving, as the model of the workspace's unmigrated HealthFilter.java, the model of
/// the reference's migrated one; returns its bytes.
fn forged_pack(ws: &Path, reference: &Path) -> Vec<u8> {
    use judge_ci::lang::cache::{Kind, Store};
    let rel = "src/main/java/com/example/greeting/HealthFilter.java";
    let theirs = std::fs::read(ws.join(rel)).unwrap();
    let migrated_bytes = std::fs::read(reference.join(rel)).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let store = Store::new(scratch.path().to_path_buf(), u64::MAX);
    let migrated = judge_ci::lang::java::parse(&migrated_bytes);
    store.insert(Kind::JavaWithBodies, &theirs, &migrated);
    store.insert(Kind::JavaSignatures, &theirs, &migrated);
    store.insert(
        Kind::Header,
        &theirs,
        &judge_ci::lang::java::header(&migrated_bytes),
    );
    std::fs::read(store.flush().unwrap()).unwrap()
}

#[test]
fn a_build_step_cannot_poison_the_model_cache() {
    let root = tempfile::tempdir().unwrap();
    let (ws, reference, plain) = example(root.path(), "plain.yml", CONFIG);
    let cache = root.path().join("models");
    let packs = cache.join(format!("v{}", judge_ci::lang::MODEL_VERSION));
    let xdg = root.path().join("xdg");
    // The honest judgment, and a warm cache.
    let (code, honest, _) = judged_with_cache(&ws, &reference, &plain, Some(&cache), &xdg);
    assert_eq!(code, 1);
    let pack_bytes = |dir: &Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut v: Vec<_> = entry_files(dir)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "jcp"))
            .map(|p| {
                let b = std::fs::read(&p).unwrap();
                (p, b)
            })
            .collect();
        v.sort();
        v
    };
    let before = pack_bytes(&cache);
    assert!(!before.is_empty());
    // The pull request carries the forged pack; its build step plants it beside the packs
    // and over each of them, and looks into the folder. Each is a check that passes only
    // when the attack failed.
    std::fs::create_dir_all(ws.join(".cache")).unwrap();
    std::fs::write(ws.join(".cache/forged.jcp"), forged_pack(&ws, &reference)).unwrap();
    let d = packs.display();
    let attack = format!(
        "name: poison\njury:\n  tiers:\n    - name: build\n      policy: REJECT_ON_ANY_FAIL\n      checks:\n        - {{type: command, name: plant-a-pack, run: \"! cp .cache/forged.jcp {d}/pack-planted.jcp 2>/dev/null\"}}\n        - {{type: command, name: overwrite-the-packs, glob: true, run: \"for f in {d}/pack-*.jcp; do if cp .cache/forged.jcp $f 2>/dev/null; then exit 1; fi; done\"}}\n        - {{type: command, name: read-the-folder, run: \"! ls {d} 2>/dev/null\"}}\n{}",
        &CONFIG[CONFIG.find("    - name: structural").unwrap()..]
    );
    let attack_config = root.path().join("attack.yml");
    std::fs::write(&attack_config, attack).unwrap();
    let (code, attacked, err) =
        judged_with_cache(&ws, &reference, &attack_config, Some(&cache), &xdg);
    assert_eq!(code, 1, "{err}");
    fn commands(v: &Value, out: &mut std::collections::BTreeMap<String, String>) {
        match v {
            Value::Object(m) => {
                if let Some(c) = m.get("metadata").and_then(|md| md.get("command")) {
                    out.insert(c.to_string(), m["status"].to_string());
                }
                m.values().for_each(|x| commands(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| commands(x, out)),
            _ => {}
        }
    }
    let mut build = std::collections::BTreeMap::new();
    commands(&attacked, &mut build);
    assert_eq!(build.len(), 3, "{build:?}");
    for (what, status) in &build {
        assert_eq!(status, "\"pass\"", "the attack worked: {what}");
    }
    assert_eq!(structural_view(&attacked), structural_view(&honest));
    assert!(!packs.join("pack-planted.jcp").exists());
    let after = pack_bytes(&cache);
    for (p, b) in &before {
        assert_eq!(
            after.iter().find(|(q, _)| q == p).map(|(_, c)| c),
            Some(b),
            "{} changed",
            p.display()
        );
    }
    // A re-run reads the folder as the attacked run left it: still honest.
    let (_, rerun, _) = judged_with_cache(&ws, &reference, &plain, Some(&cache), &xdg);
    assert_eq!(judged_view(&rerun), judged_view(&honest));
    // Control: the forged pack is one the cache would believe, had it got in.
    std::fs::copy(ws.join(".cache/forged.jcp"), packs.join("pack-planted.jcp")).unwrap();
    let (_, fooled, _) = judged_with_cache(&ws, &reference, &plain, Some(&cache), &xdg);
    assert_ne!(structural_view(&fooled), structural_view(&honest));
}

/// A workspace file rewritten after a run with other bytes of the same size, its mtime put
/// back: the digest remembered for it (by path and stat data) no longer holds, because the
/// kernel moved its ctime, so the re-run reads it and judges what it now says.
#[test]
fn a_file_rewritten_behind_the_digest_memory_is_read_again() {
    let root = tempfile::tempdir().unwrap();
    let (ws, reference, config) = example(root.path(), "judge-ci.yml", CONFIG);
    let (cache, xdg) = (root.path().join("models"), root.path().join("xdg"));
    age(&ws);
    age(&reference);
    // Past the coarse clock's lag: files this fresh are read, never remembered.
    std::thread::sleep(Duration::from_millis(100));
    let (_, cold, _) = judged_with_cache(&ws, &reference, &config, Some(&cache), &xdg);
    assert!(
        std::fs::metadata(cache.join(format!("v{}/digests", judge_ci::lang::MODEL_VERSION)))
            .is_ok(),
        "the cold run remembered the digests"
    );
    let rel = "src/main/java/com/example/greeting/HealthFilter.java";
    let path = ws.join(rel);
    let before = std::fs::metadata(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("import javax."), "{text}");
    let lied = text.replacen("import javax.", "import jbvax.", 1);
    assert_eq!(lied.len(), text.len());
    std::fs::write(&path, &lied).unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap()),
        (before.len(), before.modified().unwrap())
    );
    let (_, warm, _) = judged_with_cache(&ws, &reference, &config, Some(&cache), &xdg);
    let (_, uncached, _) =
        judged_with_cache(&ws, &reference, &config, Some(Path::new("off")), &xdg);
    assert_ne!(
        judged_view(&uncached),
        judged_view(&cold),
        "the lie changed the judgment"
    );
    assert_eq!(judged_view(&warm), judged_view(&uncached));
    assert!(warm["diffs"].to_string().contains("jbvax"), "{warm:#}");
}
