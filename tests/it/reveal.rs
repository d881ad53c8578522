//! `reveal:` (trust.md 23, issue 26 point 5): how much of the reference reaches what the pull
//! request's author reads. One project (a javax workspace; a reference in another namespace holding a
//! method the workspace lacks), judged by import-diff, ast-diff and a model (the loopback
//! stand-in) whose answer quotes the reference, at each level; every surface written to the
//! output folder (comment, job summary, HTML, check run with its annotations, JUnit, SARIF,
//! report.json) is searched for the reference's text.

use serde_json::json;

use crate::common::fake_llm::{FakeLlm, Reply};
use crate::llm::{KEY, Project, one_tier, stderr};

/// Words only the reference holds: its import's namespace and its extra method.
const SECRETS: [&str; 2] = ["zebrafin", "zanzibarquux"];
/// The reference's own line, as the diff sections print it under `full`.
const REFERENCE_LINE: &str = "import zebrafin.servlet.Filter;";

const SURFACES: [&str; 7] = [
    "report.md",
    "summary.md",
    "report.html",
    "check-run.json",
    "junit.xml",
    "report.sarif",
    "report.json",
];

fn project(llm: &FakeLlm, reveal: Option<&str>) -> Project {
    let checks = "        - {type: import-diff, forbid: [javax.servlet.*]}\n        - {type: ast-diff}\n        - type: llm\n          name: review\n";
    let p = Project::new("openai", llm, &one_tier(checks));
    crate::common::write_tree(
        p.root.path(),
        &[(
            "reference/src/Filter.java",
            "package p;\nimport zebrafin.servlet.Filter;\nclass F {\n    void zanzibarQuux() {}\n}\n",
        )],
    );
    // A task instruction that names none of the secrets (the subject's own knowledge counts
    // as the workspace's).
    crate::common::write_tree(
        p.root.path(),
        &[(
            "task.yaml",
            "schema: bench.task.v1\nid: t\ninstruction: Finish the servlet migration.\n",
        )],
    );
    if let Some(level) = reveal {
        let path = p.ws().join("judge-ci.yml");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("reveal: {level}\n{text}")).unwrap();
    }
    p
}

fn model_quoting_the_reference(llm: &FakeLlm) {
    llm.on(
        "",
        4,
        Reply::Json(json!({
            "verdict": "FAIL",
            "reasoning": "The reference has `import zebrafin.servlet.Filter;` and a method zanzibarQuux(); the workspace has neither."
        })),
    );
}

fn surfaces(p: &Project) -> Vec<(&'static str, String)> {
    SURFACES
        .iter()
        .map(|s| {
            let text = std::fs::read_to_string(p.out().join(s))
                .unwrap_or_else(|e| panic!("{s} was not written: {e}"));
            (*s, text)
        })
        .collect()
}

fn run(reveal: Option<&str>) -> (Project, serde_json::Value, Vec<(&'static str, String)>) {
    let llm = FakeLlm::start(KEY);
    model_quoting_the_reference(&llm);
    let p = project(&llm, reveal);
    let (o, r) = p.run(Some(KEY));
    assert_eq!(o.status.code(), Some(1), "rejected: {}", stderr(&o));
    assert!(!llm.seen().is_empty(), "the model was asked");
    crate::common::assert_report_schema(&r);
    let s = surfaces(&p);
    (p, r, s)
}

fn leaks(surfaces: &[(&'static str, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, text) in surfaces {
        let lower = text.to_lowercase();
        for secret in SECRETS {
            if let Some(at) = lower.find(secret) {
                let from = at.saturating_sub(60);
                let to = (at + 60).min(text.len());
                out.push(format!(
                    "{name}: {secret} in …{}…",
                    text.get(from..to).unwrap_or("")
                ));
            }
        }
    }
    out
}

#[test]
fn under_full_the_reference_reaches_the_surfaces() {
    // The control: without `reveal:` withholding it, the reference's line and the model's
    // quote of it are printed for the author. `full` is the default.
    for reveal in [Some("full"), None] {
        let (_, r, s) = run(reveal);
        assert_eq!(r["reveal"], "full");
        let md = &s[0].1;
        assert!(md.contains(REFERENCE_LINE), "{md}");
        assert!(md.contains("zanzibarQuux"), "{md}");
        assert!(!leaks(&s).is_empty());
    }
}

#[test]
fn under_names_no_surface_carries_reference_text_but_each_difference_is_named() {
    {
        let (_, r, s) = run(Some("names"));
        assert_eq!(r["reveal"], "names");
        let found = leaks(&s);
        assert!(found.is_empty(), "reference text on a surface: {found:#?}");
        let md = &s[0].1;
        assert!(!md.contains(REFERENCE_LINE), "{md}");
        // What differs, and where: the file, the kinds, the subject's own line.
        assert!(md.contains("import-missing"), "{md}");
        assert!(md.contains("import javax.servlet.Filter;"), "{md}");
        assert!(md.contains("Filter.java"), "{md}");
        assert!(
            r["diffs"]["imports"]
                .as_array()
                .is_some_and(|d| !d.is_empty() && d.iter().all(|e| e.get("expected").is_none())),
            "{}",
            r["diffs"]
        );
        // The model's answer is kept, its reference words cut.
        let review = &r["verdict"]["individualByName"]["review"];
        assert!(
            review["reasoning"]
                .as_str()
                .unwrap_or("")
                .contains("[withheld]")
                || review.to_string().contains("[withheld]"),
            "{review}"
        );
    }
}

#[test]
fn under_none_only_tiers_statuses_and_counts_remain() {
    let (_, r, s) = run(Some("none"));
    assert_eq!(r["reveal"], "none");
    let found = leaks(&s);
    assert!(found.is_empty(), "reference text on a surface: {found:#?}");
    let md = &s[0].1;
    assert!(
        !md.contains("import-missing") && !md.contains("Filter.java"),
        "{md}"
    );
    assert_eq!(r["interpretation"]["reading"], "REJECTED");
    assert!(
        r["diffs"]
            .as_object()
            .is_none_or(|d| d.values().all(|v| v.as_array().is_none_or(Vec::is_empty))),
        "{}",
        r["diffs"]
    );
    let import = &r["verdict"]["individualByName"]["import-diff"];
    assert_eq!(import["status"], "fail");
    assert!(import.get("findings").is_none(), "{import}");
    assert!(
        import["metadata"]["findingsWithheld"].as_u64().unwrap_or(0) > 0,
        "{import}"
    );
}

#[test]
fn a_stored_report_renders_no_looser_than_it_was_written() {
    let (p, _, _) = run(Some("names"));
    let again = p.root.path().join("again");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_judge-ci"))
        .args([
            "render",
            p.out().join("report.json").to_str().unwrap(),
            "--out",
            again.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let texts: Vec<(&'static str, String)> = SURFACES[..6]
        .iter()
        .map(|s| (*s, std::fs::read_to_string(again.join(s)).unwrap()))
        .collect();
    let found = leaks(&texts);
    assert!(found.is_empty(), "{found:#?}");
}

/// Attack finding NC6: under `names` the reference's words are cut from subject output, but
/// subject code that can read the reference prints it transformed (reversed, spaced), and
/// that reached the comment. Where the fence could not hide the reference (here it lies
/// inside the workspace; so too a reference branch of the workspace's repository where no
/// mount namespace can be made), `names` withholds subject output as `none` does. The
/// control: under `full` the transformed lines reach the comment.
#[test]
fn under_names_subject_output_is_withheld_when_the_fence_could_not_hide_the_reference() {
    use std::process::Command;
    let run = |reveal: &str| {
        let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let ws = root.path().join("ws");
        let config = format!(
            "schema: judge-ci.v1\nname: r\nversion: \"1\"\nreveal: {reveal}\nreference:\n  path: ref\njury:\n  checks:\n    - type: command\n      name: leak\n      run: {}\n",
            serde_json::to_string("rev ref/Secret.java; sed 's/./& /g' ref/Secret.java; exit 1")
                .unwrap()
        );
        crate::common::write_tree(
            &ws,
            &[
                ("judge-ci.yml", &config),
                ("ref/Secret.java", "// SECRET-ANSWER-KEY-7731\n"),
            ],
        );
        crate::common::commit_all(&ws, "subject");
        let o = Command::new(env!("CARGO_BIN_EXE_judge-ci"))
            .current_dir(&ws)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_EVENT_PATH")
            .env_remove("GITHUB_EVENT_NAME")
            .env("NO_COLOR", "1")
            .env("TMPDIR", root.path())
            .output()
            .unwrap();
        let md = std::fs::read_to_string(ws.join("judge-ci-out/report.md"))
            .unwrap_or_else(|_| panic!("no report: {}", stderr(&o)));
        let json = std::fs::read_to_string(ws.join("judge-ci-out/report.json")).unwrap();
        (md, json)
    };
    let reversed = "1377-YEK-REWSNA-TERCES";
    let spaced = "S E C R E T";
    let (md, _) = run("full");
    assert!(md.contains(reversed) && md.contains(spaced), "{md}");
    let (md, json) = run("names");
    for text in [&md, &json] {
        assert!(
            !text.contains(reversed) && !text.contains(spaced),
            "the reference, transformed, reached a surface: {text}"
        );
    }
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["reveal"], "none", "{json}");
    assert!(
        md.contains("hidden-reference") && md.contains("lies inside the workspace"),
        "the fence line says why: {md}"
    );
}
