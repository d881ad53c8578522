//! Kotlin, the second language of the structural tier, through the real binary: a
//! half-migrated javax → jakarta Kotlin workspace against its migrated reference
//! (tests/fixtures/kotlin-migration/, hand-written), what the model compares and what it
//! ignores, and the subject-file rules (links, FIFOs, NUL bytes, size bounds, material the
//! model is not shown) holding for `.kt` exactly as for `.java`.

use crate::common;

use common::fake_llm::{FakeLlm, Reply};
use common::{judge_ci, report, stderr, write_tree};
use serde_json::{Value, json};
use std::path::Path;

/// The three structural judges that read sources, in Kotlin.
const CONFIG: &str = "name: kotlin\njury:\n  tiers:\n    - name: structural\n      voting: {strategy: all-must-pass, errors: treat-as-fail}\n      checks:\n        - {type: import-diff, languages: [kotlin], forbid: [javax.servlet.*, javax.persistence.*]}\n        - {type: ast-diff, languages: [kotlin], aspects: [types, annotations, signatures, fields, bodies]}\n        - type: file-comparison\n";

/// Judges `ws` against `reference` with `config`; the exit code and the report.
fn run(ws: &Path, reference: &Path, config: &str) -> (i32, Value) {
    write_tree(ws, &[("judge-ci.yml", config)]);
    let out = tempfile::tempdir().unwrap();
    let o = judge_ci(
        ws,
        &[
            "--dry-run",
            "-q",
            "--model-cache",
            "off",
            "--reference",
            reference.to_str().unwrap(),
            "--out",
            out.path().to_str().unwrap(),
        ],
    );
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let r = report(out.path());
    common::assert_report_schema(&r);
    (o.status.code().unwrap_or(-1), r)
}

/// `kind path` of every finding of a diff section.
fn kinds(r: &Value, section: &str) -> Vec<String> {
    findings(r, section)
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d["kind"].as_str().unwrap_or(""),
                d["path"].as_str().unwrap_or("")
            )
        })
        .collect()
}

fn findings(r: &Value, section: &str) -> Vec<Value> {
    r["diffs"][section].as_array().cloned().unwrap_or_default()
}

/// The judgment of the check named `name` (a check is named after its type by default).
fn judgment<'a>(r: &'a Value, name: &str) -> &'a Value {
    let j = &r["verdict"]["individualByName"][name];
    assert!(j.is_object(), "no {name} judgment: {:#}", r["verdict"]);
    j
}

/// The fixture pair copied to a temporary folder: (root, workspace, reference).
fn fixture() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let from = common::repo_root().join("tests/fixtures/kotlin-migration");
    let (ws, reference) = (root.path().join("workspace"), root.path().join("reference"));
    common::copy_tree(&from.join("workspace"), &ws);
    common::copy_tree(&from.join("reference"), &reference);
    (root, ws, reference)
}

#[test]
fn a_half_migrated_kotlin_workspace_is_judged_by_its_imports_and_model() {
    let (_root, ws, reference) = fixture();
    let (code, r) = run(&ws, &reference, CONFIG);
    assert_eq!(code, 1, "{:#}", r["verdict"]);
    let imports = kinds(&r, "imports");
    let count = |k: &str| imports.iter().filter(|x| *x == k).count();
    let filter = "src/main/kotlin/shop/AuditFilter.kt";
    assert_eq!(
        count(&format!("import-forbidden {filter}")),
        4,
        "{imports:?}"
    );
    assert_eq!(count(&format!("import-missing {filter}")), 4, "{imports:?}");
    assert_eq!(
        count("import-missing src/main/kotlin/shop/Book.kt"),
        1,
        "{imports:?}"
    );
    assert_eq!(imports.len(), 9, "{imports:?}");
    // Written as Kotlin writes it (no semicolon), at the import's line.
    let forbidden: Vec<Value> = findings(&r, "imports")
        .into_iter()
        .filter(|f| f["kind"] == "import-forbidden")
        .collect();
    assert!(
        forbidden
            .iter()
            .any(|f| f["actual"] == "import javax.servlet.Filter" && f["line"] == 3),
        "{forbidden:#?}"
    );
    // The model: the entity lost its @Table; nothing else differs (Prices.kt and
    // BookService.kt are the reference's bytes, AuditFilter.kt differs only in imports).
    let ast = findings(&r, "ast");
    assert_eq!(
        kinds(&r, "ast"),
        ["annotation-missing src/main/kotlin/shop/Book.kt"],
        "{ast:#?}"
    );
    assert_eq!(ast[0]["expected"], "@Table(name = \"books\") on Book");
    let files = kinds(&r, "files");
    assert_eq!(
        files,
        [
            "kotlin-differs src/main/kotlin/shop/AuditFilter.kt",
            "kotlin-differs src/main/kotlin/shop/Book.kt"
        ],
        "{files:?}"
    );
    // `languages: [kotlin]` selects **/*.kt: the four sources of each tree.
    for ty in ["import-diff", "ast-diff"] {
        assert_eq!(
            judgment(&r, ty)["metadata"]["filesCompared"],
            4,
            "{ty}: {:#}",
            judgment(&r, ty)
        );
    }
    // The reference judged against itself matches completely.
    let (code, r) = run(&reference.clone(), &reference, CONFIG);
    assert_eq!(code, 0, "{:#}", r["verdict"]);
}

#[test]
fn kotlin_declarations_are_compared_and_layout_is_not() {
    let root = tempfile::tempdir().unwrap();
    let (ws, reference) = (root.path().join("ws"), root.path().join("ref"));
    let original = "package p\n\nclass Cart(val owner: String) {\n    private val items = mutableListOf<String>()\n\n    fun add(item: String): Int {\n        items += item\n        return items.size\n    }\n}\n\nfun total(cart: Cart): Int = 0\n";
    // Comments and layout only: nothing differs, bodies included.
    let relaid = "package p\n\n// a cart\nclass Cart(\n    val owner: String,\n) {\n    private val items =\n        mutableListOf<String>()\n\n    fun add(item: String): Int {\n        items += item // keep\n        return items.size\n    }\n}\n\nfun total(cart: Cart): Int =\n    0\n";
    write_tree(&reference, &[("src/Cart.kt", original)]);
    write_tree(&ws, &[("src/Cart.kt", relaid)]);
    let config = "name: kt\njury:\n  tiers:\n    - name: structural\n      checks:\n        - {type: ast-diff, languages: [kotlin], aspects: [types, annotations, signatures, fields, bodies]}\n";
    let (code, r) = run(&ws, &reference, config);
    assert_eq!(code, 0, "{:#}", r["verdict"]);
    // val → var, a changed return type, a changed body, a top-level function gone.
    let changed = "package p\n\nclass Cart(var owner: String) {\n    private val items = mutableListOf<String>()\n\n    fun add(item: String): Long {\n        items += item\n        return items.size.toLong()\n    }\n}\n";
    write_tree(&ws, &[("src/Cart.kt", changed)]);
    let (code, r) = run(&ws, &reference, config);
    assert_eq!(code, 1);
    let ast: Vec<(String, String)> = findings(&r, "ast")
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap().to_string(),
                format!(
                    "{} | {}",
                    f["expected"].as_str().unwrap_or(""),
                    f["actual"].as_str().unwrap_or("")
                ),
            )
        })
        .collect();
    for (kind, text) in [
        (
            "field-changed",
            "val String Cart.owner | var String Cart.owner",
        ),
        (
            "return-type-changed",
            "Cart.add(String): Int | Cart.add(String): Long",
        ),
        ("body-changed", "Cart.add(String) | Cart.add(String)"),
        ("method-missing", "p.total(Cart) | "),
    ] {
        assert!(
            ast.iter().any(|(k, t)| k == kind && t == text),
            "{kind} {text}: {ast:#?}"
        );
    }
}

/// Writes, for one source extension, the hostile entries of the subject-file rules into `ws`
/// (with the reference's sound versions in `reference`): a link, a FIFO, NUL bytes, a file
/// over the 16 MiB bound.
fn hostile_sources(ws: &Path, reference: &Path, ext: &str) {
    let sound = match ext {
        "java" => "package a;\nclass K {}\n",
        _ => "package a\nclass K\n",
    };
    for name in ["Nul", "Big", "Linked", "Piped"] {
        write_tree(reference, &[(&format!("src/{name}.{ext}"), sound)]);
    }
    write_tree(
        ws,
        &[
            (
                &format!("src/Nul.{ext}"),
                &format!("{sound}\0\0 class Hidden\n"),
            ),
            ("outside.txt", sound),
        ],
    );
    let big = vec![b'x'; 16 * 1024 * 1024 + 1];
    std::fs::write(ws.join(format!("src/Big.{ext}")), big).unwrap();
    std::os::unix::fs::symlink("../outside.txt", ws.join(format!("src/Linked.{ext}"))).unwrap();
    let fifo = ws.join(format!("src/Piped.{ext}"));
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a path we own, a plain mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// Each judge's findings as `kind file actual-word`, the extension replaced by `EXT`.
fn hostile_findings(r: &Value, ext: &str) -> Vec<String> {
    let mut out: Vec<String> = r["verdict"]["individualByName"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(judge, j)| {
            let judge = judge.clone();
            j["findings"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |f| {
                    let actual = f["actual"].as_str().unwrap_or("");
                    let word = match f["kind"].as_str().unwrap_or("") {
                        "file-not-regular" => actual.to_string(),
                        "file-unreadable" => {
                            if actual.contains("16777216") || actual.contains("16 MiB") {
                                "over the bound".into()
                            } else {
                                actual.into()
                            }
                        }
                        _ => String::new(),
                    };
                    format!(
                        "{judge} {} {} {word}",
                        f["kind"].as_str().unwrap_or(""),
                        f["path"].as_str().unwrap_or("").replace(ext, "EXT")
                    )
                })
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_subject_file_rules_hold_for_kotlin_sources_exactly_as_for_java_ones() {
    let mut seen: Vec<(String, i32, Vec<String>)> = Vec::new();
    for (ext, language) in [("java", "java"), ("kt", "kotlin")] {
        let root = tempfile::tempdir().unwrap();
        let (ws, reference) = (root.path().join("ws"), root.path().join("ref"));
        hostile_sources(&ws, &reference, ext);
        let config = format!(
            "name: hostile\njury:\n  tiers:\n    - name: structural\n      voting: {{strategy: all-must-pass}}\n      checks:\n        - {{type: import-diff, languages: [{language}], forbid: [javax.*]}}\n        - {{type: ast-diff, languages: [{language}]}}\n        - {{type: file-comparison, include: ['src/**']}}\n"
        );
        let (code, r) = run(&ws, &reference, &config);
        let found = hostile_findings(&r, ext);
        for rule in [
            "ast-diff file-not-regular src/Linked.EXT symlink",
            "ast-diff file-not-regular src/Piped.EXT fifo",
            "import-diff file-not-regular src/Linked.EXT symlink",
            "import-diff file-not-regular src/Piped.EXT fifo",
            "file-comparison file-not-regular src/Piped.EXT fifo",
            "ast-diff syntax-error src/Nul.EXT ",
            "ast-diff file-unreadable src/Big.EXT over the bound",
            "import-diff file-unreadable src/Big.EXT over the bound",
        ] {
            assert!(
                found.iter().any(|f| f.starts_with(rule.trim_end())),
                "{ext}: {rule} not found in {found:#?}"
            );
        }
        for j in r["verdict"]["individual"].as_array().unwrap() {
            assert_eq!(j["status"], "fail", "{ext}: {j:#}");
        }
        // The NUL bytes differ from the reference as a file of its own language.
        let differs = format!("file-comparison {language}-differs src/Nul.EXT ");
        assert!(found.contains(&differs), "{ext}: {found:#?}");
        let found = found
            .into_iter()
            .map(|f| f.replace(&format!("{language}-differs"), "LANGUAGE-differs"))
            .collect();
        seen.push((ext.to_string(), code, found));
    }
    // The same findings, the same exit code, whichever the language.
    let (java, kotlin) = (&seen[0], &seen[1]);
    assert_eq!(java.1, 1);
    assert_eq!((java.1, &java.2), (kotlin.1, &kotlin.2), "java vs kotlin");
}

#[test]
fn a_kotlin_file_the_model_is_not_shown_in_full_does_not_pass() {
    let key = "sk-ant-SENTINELKEY-0123456789";
    let mut causes = Vec::new();
    for file in ["src/Filter.java", "src/Filter.kt"] {
        let llm = FakeLlm::start(key);
        llm.on(
            "",
            1,
            Reply::Json(json!({"verdict": "PASS", "reasoning": "fine"})),
        );
        let root = tempfile::tempdir().unwrap();
        let config = format!(
            "name: semantic\nreference: {{path: ../reference}}\nllm:\n  provider: anthropic\n  model: test-model\n  base-url: {}\n  api-key-env: JUDGE_CI_TEST_API_KEY\n  cache: off\njury:\n  tiers:\n    - name: semantic\n      policy: FINAL_TIER\n      checks:\n        - type: llm\n          name: review\n",
            llm.anthropic_url()
        );
        write_tree(
            root.path(),
            &[
                ("workspace/judge-ci.yml", &config),
                (
                    &format!("workspace/{file}"),
                    "package p\nimport javax.servlet.Filter\nclass F // \0\n",
                ),
                (
                    &format!("reference/{file}"),
                    "package p\nimport jakarta.servlet.Filter\nclass F\n",
                ),
                (
                    "task.yaml",
                    "schema: bench.task.v1\nid: t\ninstruction: Move the filter to jakarta.servlet.\n",
                ),
            ],
        );
        let out = root.path().join("out");
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_judge-ci"))
            .args([
                "--dry-run",
                "--task",
                root.path().join("task.yaml").to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .current_dir(root.path().join("workspace"))
            .env("NO_COLOR", "1")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_EVENT_PATH")
            .env_remove("GITHUB_EVENT_NAME")
            .env("JUDGE_CI_TEST_API_KEY", key)
            .output()
            .unwrap();
        let r = report(&out);
        let j = &r["verdict"]["individual"][0];
        assert_eq!(j["status"], "abstain", "{file}: {}\n{j:#}", stderr(&o));
        assert!(
            j["metadata"]["materialNotShown"].to_string().contains(file),
            "{file}: {j:#}"
        );
        causes.push(j["cause"].clone());
    }
    assert_eq!(
        causes,
        [json!("material_incomplete"), json!("material_incomplete")]
    );
}

#[test]
fn a_languages_key_that_names_no_language_is_refused_with_the_valid_ones() {
    for (value, says) in [
        ("[]", "(import-diff).languages: the list is empty"),
        ("[kotlin, cobol]", "cobol"),
    ] {
        let d = tempfile::tempdir().unwrap();
        let config = format!(
            "name: bad\njury:\n  tiers:\n    - name: structural\n      checks:\n        - {{type: import-diff, languages: {value}}}\n"
        );
        write_tree(d.path(), &[("judge-ci.yml", &config)]);
        let o = judge_ci(d.path(), &["validate"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{value}: {err}");
        assert!(err.contains(says), "{value}: {err}");
        assert!(
            err.contains("java") && err.contains("kotlin"),
            "{value}: {err}"
        );
        assert!(err.contains("judge-ci.yml:6:"), "{value}: {err}");
    }
}
