//! The structural tier through the real binary: a reference produced by Apache's own
//! javax → jakarta converter, and hostile inputs that must yield findings or ERRORs, never a
//! hang or a panic.

use crate::common;

use common::{judge_ci, report, stderr, write_tree};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const CONFIG: &str = "name: structure\njury:\n  tiers:\n    - name: structural\n      voting: {strategy: all-must-pass, errors: treat-as-fail}\n      checks:\n        - {type: import-diff, forbid: [javax.servlet.*, javax.persistence.*]}\n        - type: ast-diff\n        - type: pom-diff\n        - type: file-comparison\n";

fn run(ws: &Path, reference: &Path) -> (i32, Value) {
    write_tree(ws, &[("judge-ci.yml", CONFIG)]);
    let out = tempfile::tempdir().unwrap();
    let o = judge_ci(
        ws,
        &[
            "--dry-run",
            "-q",
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

fn kinds(r: &Value, section: &str) -> Vec<String> {
    r["diffs"][section]
        .as_array()
        .cloned()
        .unwrap_or_default()
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

const JAVAX_SERVLET: &str = "package shop;\n\nimport javax.servlet.http.HttpServlet;\nimport javax.servlet.http.HttpServletRequest;\nimport javax.servlet.http.HttpServletResponse;\nimport java.io.IOException;\n\npublic class CartServlet extends HttpServlet {\n    @Override\n    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {\n        resp.getWriter().write(\"cart\");\n    }\n}\n";
const JAVAX_FILTER: &str = "package shop;\n\nimport javax.servlet.Filter;\nimport javax.servlet.FilterChain;\nimport javax.servlet.ServletRequest;\nimport javax.servlet.ServletResponse;\n\npublic abstract class AuditFilter implements Filter {\n    public void doFilter(ServletRequest a, ServletResponse b, FilterChain c) {}\n}\n";

#[test]
fn findings_against_a_reference_made_by_apaches_converter() {
    let javax = tempfile::tempdir().unwrap();
    write_tree(
        javax.path(),
        &[
            ("src/shop/CartServlet.java", JAVAX_SERVLET),
            ("src/shop/AuditFilter.java", JAVAX_FILTER),
        ],
    );
    let reference = tempfile::tempdir().unwrap();
    let converted = reference.path().join("tree");
    let o = Command::new("javax2jakarta")
        .args(["-profile=EE"])
        .arg(javax.path().join("src"))
        .arg(converted.join("src"))
        .output()
        .expect("javax2jakarta runs (Debian's tomcat-jakartaee-migration; .ci/run installs it)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let migrated = std::fs::read_to_string(converted.join("src/shop/CartServlet.java")).unwrap();
    assert!(
        migrated.contains("import jakarta.servlet.http.HttpServlet;"),
        "{migrated}"
    );

    // Both trees are Maven projects (pom-diff examines their POMs; a tree without one is
    // nothing to examine, never a pass).
    let pom = "<project><modelVersion>4.0.0</modelVersion><groupId>shop</groupId><artifactId>shop</artifactId><version>1</version></project>\n";
    write_tree(&converted, &[("pom.xml", pom)]);
    // Half-migrated: the servlet moved to jakarta (and lost @Override), the filter did not.
    let ws = tempfile::tempdir().unwrap();
    let half = migrated.replace("    @Override\n", "");
    write_tree(
        ws.path(),
        &[
            ("src/shop/CartServlet.java", &half),
            ("src/shop/AuditFilter.java", JAVAX_FILTER),
            ("pom.xml", pom),
        ],
    );
    let (code, r) = run(ws.path(), &converted);
    assert_eq!(code, 1);
    let imports = kinds(&r, "imports");
    assert_eq!(
        imports
            .iter()
            .filter(|k| *k == "import-forbidden src/shop/AuditFilter.java")
            .count(),
        4,
        "{imports:?}"
    );
    assert_eq!(
        imports
            .iter()
            .filter(|k| *k == "import-missing src/shop/AuditFilter.java")
            .count(),
        4,
        "{imports:?}"
    );
    assert!(
        !imports.iter().any(|k| k.ends_with("CartServlet.java")),
        "the servlet's imports match: {imports:?}"
    );
    assert_eq!(
        kinds(&r, "ast"),
        ["annotation-missing src/shop/CartServlet.java"]
    );
    let files = kinds(&r, "files");
    assert!(
        files.contains(&"java-differs src/shop/CartServlet.java".to_string())
            && files.contains(&"java-differs src/shop/AuditFilter.java".to_string()),
        "{files:?}"
    );
    // The workspace judged against itself converted matches completely.
    let (code, _) = run(&converted, &converted);
    assert_eq!(code, 0);
}

#[test]
fn hostile_inputs_give_findings_or_errors_never_a_hang() {
    let reference = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let one_line = format!(
        "class Big {{ String s = \"{}\"; }}",
        "y".repeat(5 * 1024 * 1024)
    );
    for (root, variant) in [(reference.path(), "r"), (ws.path(), "w")] {
        write_tree(
            root,
            &[
                (
                    "src/Bin.java",
                    if variant == "r" { "class Bin {}" } else { "" },
                ),
                ("src/Big.java", &one_line),
                (
                    "pom.xml",
                    "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version></project>",
                ),
            ],
        );
    }
    std::fs::write(
        ws.path().join("src/Bin.java"),
        b"\x00\x01\x02\xff\xfe binary \x00 class",
    )
    .unwrap();
    std::fs::write(
        ws.path().join("src/Utf.java"),
        b"package p;\nimport a.\xc3\x28b;\nclass U { String s = \"\xff\"; }",
    )
    .unwrap();
    std::fs::write(
        reference.path().join("src/Utf.java"),
        "package p;\nimport a.b;\nclass U {}\n",
    )
    .unwrap();
    // A POM with an entity expansion attack, and a symlink loop in the workspace.
    std::fs::write(
        ws.path().join("pom.xml"),
        r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]><project>&lol2;</project>"#,
    )
    .unwrap();
    std::os::unix::fs::symlink("loop", ws.path().join("src/loop")).unwrap();
    std::os::unix::fs::symlink("../src", ws.path().join("src/up")).unwrap();
    let start = std::time::Instant::now();
    let (code, r) = run(ws.path(), reference.path());
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(code, 1, "{}", r["verdict"]["aggregated"]);
    let pom = kinds(&r, "pom");
    // The link to a folder is a finding too: a build would follow it (issue 25).
    assert_eq!(
        pom,
        ["pom-unreadable pom.xml", "file-not-regular src/up"],
        "{pom:?}"
    );
    let ast = kinds(&r, "ast");
    assert!(
        ast.iter()
            .any(|k| k.starts_with("type-missing src/Bin.java")
                || k.starts_with("syntax-error src/Bin.java")),
        "{ast:?}"
    );
    assert!(
        kinds(&r, "imports")
            .iter()
            .any(|k| k.ends_with("src/Utf.java")),
        "{:?}",
        kinds(&r, "imports")
    );
    let files = kinds(&r, "files");
    assert!(
        files.contains(&"binary-differs src/Bin.java".to_string()),
        "{files:?}"
    );
    assert!(
        !files.iter().any(|k| k.contains("src/Big.java")),
        "identical 5 MB files are equal: {files:?}"
    );
}

#[test]
fn without_a_reference_the_structural_judges_abstain() {
    let ws = tempfile::tempdir().unwrap();
    write_tree(
        ws.path(),
        &[
            (
                "judge-ci.yml",
                "name: s\njury:\n  checks:\n    - type: import-diff\n",
            ),
            ("A.java", "class A {}"),
        ],
    );
    let out = tempfile::tempdir().unwrap();
    let o = judge_ci(
        ws.path(),
        &["--dry-run", "-q", "--out", out.path().to_str().unwrap()],
    );
    let r = report(out.path());
    assert_eq!(
        r["verdict"]["individual"][0]["status"],
        "abstain",
        "{}",
        stderr(&o)
    );
}

/// Attack finding FI5-1 (trust.md points 2 and 20): a fixture of the exam changed only in its
/// whitespace — Python's indentation moved into an `if`, spaces widened inside an expected
/// string, CRLF line endings, a blank line — is a `text-differs` finding of file-comparison,
/// never "all files match" (the library's text comparison normalised whitespace away).
#[test]
fn a_fixture_changed_only_in_its_whitespace_is_a_difference() {
    let pom = "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version></project>\n";
    let fixtures = [
        (
            "src/test/resources/smoke.py",
            "def ok(x):\n    if x:\n        pass\n    return True\n",
            "def ok(x):\n    if x:\n        pass\n        return True\n",
        ),
        (
            "src/test/resources/cases.yml",
            "- name: ada\n  want: \"Hello, Ada!\"\n",
            "- name: ada\n  want: \"Hello,     Ada!\"\n",
        ),
        (
            "src/test/resources/golden.json",
            "{\"greeting\": \"Hello, Ada!\"}\n",
            "{\"greeting\": \"Hello,  Ada!\"}\r\n\r\n",
        ),
    ];
    let reference = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    write_tree(reference.path(), &[("pom.xml", pom)]);
    write_tree(ws.path(), &[("pom.xml", pom)]);
    for (path, theirs, ours) in fixtures {
        write_tree(reference.path(), &[(path, theirs)]);
        write_tree(ws.path(), &[(path, ours)]);
    }
    let (code, r) = run(ws.path(), reference.path());
    let fc = r["tiers"][0]["judges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["type"] == "file-comparison")
        .cloned()
        .unwrap();
    assert_eq!(fc["status"], "fail", "{r:#}");
    assert_eq!(code, 1, "{r:#}");
    let files = kinds(&r, "files");
    for (path, _, _) in fixtures {
        assert!(
            files.contains(&format!("text-differs {path}")),
            "{path}: {files:?}"
        );
    }
    assert!(r.to_string().contains("whitespace only differs"), "{r:#}");
}

/// `file-comparison`'s verdict and file findings for one file changed between the reference
/// and the workspace (both Maven projects with the same POM).
fn compare_one(path: &str, theirs: &str, ours: &str) -> (String, Vec<String>) {
    let pom = "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version></project>\n";
    let reference = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    write_tree(reference.path(), &[("pom.xml", pom), (path, theirs)]);
    write_tree(ws.path(), &[("pom.xml", pom), (path, ours)]);
    let (_, r) = run(ws.path(), reference.path());
    let fc = r["tiers"][0]["judges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["type"] == "file-comparison")
        .cloned()
        .unwrap();
    (
        fc["status"].as_str().unwrap_or("").to_string(),
        kinds(&r, "files"),
    )
}

/// Attack finding RC5-1 (trust.md points 14 and 20): a Kotlin file whose declarations are
/// the reference's but whose values differ — a property initialiser, a `const val`, a default
/// argument, a getter, a `by lazy` delegate — is `kotlin-differs`, never "all files match"
/// (the model left out what kotlinc reads); comments and layout still match.
#[test]
fn a_kotlin_value_the_model_does_not_keep_is_a_difference() {
    let path = "src/main/kotlin/a/K.kt";
    for (theirs, ours) in [
        (
            "package a\nclass K { val x: Int = 1 }\n",
            "package a\nclass K { val x: Int = 2 }\n",
        ),
        (
            "package a\nconst val LIMIT = 10\n",
            "package a\nconst val LIMIT = 99\n",
        ),
        (
            "package a\nfun greet(name: String = \"Ada\") = \"Hi $name\"\n",
            "package a\nfun greet(name: String = \"Bob\") = \"Hi $name\"\n",
        ),
        (
            "package a\nclass K { val x: Int get() = 1 }\n",
            "package a\nclass K { val x: Int get() = 2 }\n",
        ),
        (
            "package a\nclass K { val x by lazy { 1 } }\n",
            "package a\nclass K { val x by lazy { 2 } }\n",
        ),
    ] {
        let (status, files) = compare_one(path, theirs, ours);
        assert_eq!(status, "fail", "{ours}");
        assert_eq!(files, vec![format!("kotlin-differs {path}")], "{ours}");
    }
    let (status, _) = compare_one(
        path,
        "package a\nclass K { val x: Int = 1 }\n",
        "package a\n\n// the answer\nclass K {\n    val x: Int =\n        1 /* one */\n}\n",
    );
    assert_eq!(status, "pass");
}

/// Attack findings RC5-2 and F2 (trust.md points 2 and 20): an XML file that an XML consumer
/// reads differently — another namespace URI, text with other whitespace, whitespace under
/// `xml:space="preserve"`, another processing instruction — is `xml-differs`; a namespace
/// prefix, a comment and layout between elements are not.
#[test]
fn xml_a_consumer_reads_differently_is_a_difference() {
    let path = "src/main/resources/beans.xml";
    for (theirs, ours) in [
        (
            "<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\"><b/></beans>",
            "<beans xmlns=\"http://java.sun.com/xml/ns/javaee\"><b/></beans>",
        ),
        (
            "<a><msg>Hello, Ada!</msg></a>",
            "<a><msg> Hello, Ada! </msg></a>",
        ),
        (
            "<a xml:space=\"preserve\"><b/></a>",
            "<a xml:space=\"preserve\">\n  <b/>\n</a>",
        ),
        ("<a><?target keep?></a>", "<a><?target drop?></a>"),
    ] {
        let (status, files) = compare_one(path, theirs, ours);
        assert_eq!(status, "fail", "{ours}");
        assert_eq!(files, vec![format!("xml-differs {path}")], "{ours}");
    }
    let (status, _) = compare_one(
        path,
        "<p:a xmlns:p=\"urn:x\" y=\"2\" x=\"1\"><p:b>t</p:b></p:a>",
        "<q:a xmlns:q=\"urn:x\" x='1' y='2'>\n  <!-- note -->\n  <q:b>t</q:b>\n</q:a>\n",
    );
    assert_eq!(status, "pass");
}
