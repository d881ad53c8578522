//! What a model is shown: the change as a unified diff of the workspace against the reference
//! (bounded; past the budget the remaining files are only listed), and the prompt templates
//! (minijinja; built-in ones in `templates/llm/`, a check's `prompt` file replacing the
//! question's template and able to include `_material.j2`).

use std::collections::BTreeMap;
use std::path::Path;

use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The system instructions every question gets.
pub const SYSTEM: &str = include_str!("../../../templates/llm/system.txt");

const MATERIAL: &str = include_str!("../../../templates/llm/_material.j2");

/// The built-in template of each question.
pub fn builtin(name: &str) -> &'static str {
    match name {
        "llm" => include_str!("../../../templates/llm/llm.md.j2"),
        "test-quality" => include_str!("../../../templates/llm/test-quality.md.j2"),
        "semantic-diff" => include_str!("../../../templates/llm/semantic-diff.md.j2"),
        "correctness" => include_str!("../../../templates/llm/correctness.md.j2"),
        _ => include_str!("../../../templates/llm/requirements.md.j2"),
    }
}

/// SHA-256 of a template's text (part of the cache key).
pub fn template_hash(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// One file that differs.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Changed {
    /// Path relative to the workspace.
    pub path: String,
    /// added, removed, modified or binary.
    pub status: &'static str,
}

/// The change as the model sees it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Change {
    /// Whether a reference exists.
    pub has_reference: bool,
    /// Every file that differs.
    pub changed: Vec<Changed>,
    /// Unified diff of as many files as fit the budget.
    pub diff: String,
    /// Whether some differing files were left out of the diff.
    pub truncated: bool,
    /// How many.
    pub omitted: usize,
    /// Lines of the shown material (added diff lines, changed file names) addressed to a
    /// grader; never shown to a template.
    #[serde(skip)]
    pub injections: Vec<super::injection::Hit>,
}

/// Folders never compared.
const SKIP: &[&str] = &[
    ".git",
    "target",
    "build",
    "node_modules",
    ".judge-ci",
    "judge-ci-out",
];

/// Largest file diffed (bigger ones are listed only).
const MAX_FILE: u64 = 512 * 1024;

fn files(root: &Path) -> BTreeMap<String, std::path::PathBuf> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(e.file_type().is_dir() && SKIP.contains(&&*e.file_name().to_string_lossy()))
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let rel = e
                .path()
                .strip_prefix(root)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            Some((rel, e.path().to_path_buf()))
        })
        .collect()
}

fn text_of(p: &Path) -> Option<String> {
    if std::fs::metadata(p).ok()?.len() > MAX_FILE {
        return None;
    }
    let bytes = std::fs::read(p).ok()?;
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The workspace compared with the reference, the diff cut to `budget` characters.
pub fn change(workspace: &Path, reference: Option<&Path>, budget: usize) -> Change {
    let Some(reference) = reference else {
        return Change::default();
    };
    let (ws, rf) = (files(workspace), files(reference));
    let mut paths: Vec<&String> = ws.keys().chain(rf.keys()).collect();
    paths.sort();
    paths.dedup();
    let mut out = Change {
        has_reference: true,
        ..Change::default()
    };
    for p in paths {
        let (a, b) = (rf.get(p), ws.get(p));
        let status = match (a, b) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            (Some(x), Some(y)) => {
                if crate::judges::paths::same_file(x, y) {
                    continue;
                }
                "modified"
            }
            (None, None) => continue,
        };
        let old = a.map_or(Some(String::new()), |x| text_of(x));
        let new = b.map_or(Some(String::new()), |y| text_of(y));
        let (status, piece, added) = match (old, new) {
            (Some(o), Some(n)) => {
                let td = similar::TextDiff::from_lines(&o, &n);
                let d = td
                    .unified_diff()
                    .context_radius(3)
                    .header(&format!("a/{p}"), &format!("b/{p}"))
                    .to_string();
                // The workspace's side of the diff: the lines the pull request wrote.
                let added: Vec<(u64, String)> = td
                    .iter_all_changes()
                    .filter(|c| c.tag() == similar::ChangeTag::Insert)
                    .filter_map(|c| Some((c.new_index()? as u64 + 1, c.value().to_string())))
                    .collect();
                (status, d, added)
            }
            _ => ("binary", String::new(), Vec::new()),
        };
        out.changed.push(Changed {
            path: p.clone(),
            status,
        });
        if status != "removed"
            && let Some(hit) = super::injection::scan_path(p)
        {
            out.injections.push(hit);
        }
        if piece.is_empty() {
            continue;
        }
        if out.diff.len() + piece.len() <= budget {
            out.diff.push_str(&piece);
            let lines: Vec<(u64, &str)> = added.iter().map(|(n, t)| (*n, t.as_str())).collect();
            out.injections
                .extend(super::injection::scan_lines(p, &lines));
        } else {
            out.truncated = true;
            out.omitted += 1;
        }
    }
    out
}

/// Everything a template may use.
#[derive(Clone, Debug, Serialize)]
pub struct Vars<'a> {
    /// The task's goal.
    pub goal: &'a str,
    /// The check's name.
    pub name: &'a str,
    /// The change.
    #[serde(flatten)]
    pub change: &'a Change,
    /// `llm`'s requested output: verdict, score or criteria.
    pub output: &'a str,
    /// semantic-diff's criterion.
    pub criterion: &'a str,
    /// Roster items.
    pub items: Vec<BTreeMap<&'static str, String>>,
    /// Ids of conditional roster items.
    pub conditional: Vec<String>,
    /// ears or rfc2119.
    pub kind: &'a str,
    /// The line that opens the untrusted material of this request (random per request).
    pub untrusted_begin: String,
    /// The line that closes it.
    pub untrusted_end: String,
}

/// Renders `template` (a built-in or a user's) with `vars`; a missing variable is an error.
pub fn render(template: &str, vars: &Vars<'_>) -> Result<String, String> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.add_template("_material.j2", MATERIAL)
        .map_err(|e| e.to_string())?;
    env.add_template("question", template)
        .map_err(|e| format!("the prompt template does not parse: {e}"))?;
    env.get_template("question")
        .and_then(|t| t.render(vars))
        .map_err(|e| format!("the prompt template does not render: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_change_is_a_bounded_unified_diff() {
        let ws = tempfile::tempdir().unwrap();
        let rf = tempfile::tempdir().unwrap();
        std::fs::write(rf.path().join("A.java"), "import jakarta.x;\nclass A {}\n").unwrap();
        std::fs::write(ws.path().join("A.java"), "import javax.x;\nclass A {}\n").unwrap();
        std::fs::write(ws.path().join("Same.java"), "same\n").unwrap();
        std::fs::write(rf.path().join("Same.java"), "same\n").unwrap();
        std::fs::write(ws.path().join("bin.dat"), [0u8, 1, 2]).unwrap();
        std::fs::create_dir_all(ws.path().join("target")).unwrap();
        std::fs::write(ws.path().join("target/x.class"), "x").unwrap();
        // A symlink out of the workspace is never followed into the prompt.
        std::os::unix::fs::symlink("/etc/passwd", ws.path().join("passwd")).unwrap();
        let c = change(ws.path(), Some(rf.path()), 10_000);
        assert!(!c.diff.contains("root:"), "{}", c.diff);
        let names: Vec<(&str, &str)> = c
            .changed
            .iter()
            .map(|f| (f.path.as_str(), f.status))
            .collect();
        assert_eq!(names, vec![("A.java", "modified"), ("bin.dat", "binary")]);
        assert!(
            c.diff.contains("-import jakarta.x;\n+import javax.x;"),
            "{}",
            c.diff
        );
        assert!(!c.truncated);
        let small = change(ws.path(), Some(rf.path()), 10);
        assert!(small.truncated && small.diff.is_empty() && small.omitted == 1);
        assert!(!change(ws.path(), None, 10).has_reference);
    }

    #[test]
    fn templates_render_strictly() {
        let c = Change::default();
        let vars = Vars {
            goal: "Move to jakarta",
            name: "review",
            change: &c,
            output: "verdict",
            criterion: "",
            items: Vec::new(),
            conditional: Vec::new(),
            kind: "",
            untrusted_begin: "<u>".into(),
            untrusted_end: "</u>".into(),
        };
        let text = render(builtin("llm"), &vars).unwrap();
        assert!(text.contains("Move to jakarta") && text.contains("\"verdict\""));
        assert!(
            render("{{ nope }}", &vars)
                .unwrap_err()
                .contains("does not render")
        );
        assert!(
            render("{% if %}", &vars)
                .unwrap_err()
                .contains("does not parse")
        );
        let mine = render("{% include \"_material.j2\" %}\nIs {{ name }} fine?", &vars).unwrap();
        assert!(mine.contains("Is review fine?"));
    }
}
