//! `file-comparison`: every reference file against the workspace, by kind — POMs by their
//! model, other XML as its consumer reads it (comments, namespace prefixes,
//! attribute order and layout between elements ignored), Java and Kotlin by their model and
//! then by every token the compiler reads (comments and layout ignored), any other text byte
//! for byte; a short diff for what differs.
//!
//! Text is compared as submitted, not with whitespace normalised as the library's
//! `TextFileJudge` does: whitespace carries meaning in the files a test suite reads (Python's
//! indentation, YAML's nesting, the spaces inside an expected string, a CRLF in a shell
//! script), so a normalised comparison let a pull request bend a fixture of its exam and pass
//! (trust.md points 2 and 20; attack finding FI5-1).

use similar::TextDiff;
use std::path::Path;

use crate::config::checks::{AstAspect, FileSet, PomAspect};
use crate::lang::Language;
use crate::lang::model::{Import, SourceFile};

use super::super::{Outcome, instrument};
use super::pom::{Pom, diff_poms};
use super::{Comparisons, Finding, ast, compare_files, list, verdict};
use crate::judgment::FindingKind;
use crate::lang::cache::Store;

/// Most lines of a unified diff kept per file.
const DIFF_LINES: usize = 40;

fn short_diff(rel: &str, expected: &str, actual: &str) -> String {
    let diff = TextDiff::from_lines(expected, actual);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header(&format!("reference/{rel}"), &format!("workspace/{rel}"))
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= DIFF_LINES {
        return text;
    }
    format!(
        "{}\n… {} more diff lines",
        lines[..DIFF_LINES].join("\n"),
        lines.len() - DIFF_LINES
    )
}

/// The namespace of `xml:` names (`xml:space`).
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// A name as an XML consumer reads it: its namespace URI and local name (the prefix is the
/// document's choice and is not compared).
fn expanded(ns: Option<&str>, local: &str) -> String {
    match ns {
        Some(ns) => format!("{{{ns}}}{local}"),
        None => local.to_string(),
    }
}

/// Whether whitespace-only text under `n` is content: an `xml:space="preserve"` on it or on
/// its nearest ancestor that says (`default` turns it off again).
fn preserves_space(n: roxmltree::Node) -> bool {
    n.ancestors()
        .filter(roxmltree::Node::is_element)
        .find_map(|a| a.attribute((XML_NS, "space")))
        == Some("preserve")
}

/// An XML document as what its consumer reads, one event a line: elements by namespace URI
/// and local name, attributes sorted (by expanded name) with their values exactly, text
/// exactly (CDATA and entities resolved), processing instructions with their data, in
/// document order, those before and after the root element included. Left out: comments,
/// namespace prefixes, attribute order, quoting, and whitespace-only text between elements
/// unless `xml:space="preserve"` is in force. No DTD is read (a file with one is compared
/// as text).
fn canonical_xml(text: &str) -> Result<Vec<String>, crate::untrusted::XmlError> {
    let doc = crate::untrusted::parse_xml("the file", text, false)?;
    enum Item<'a, 'i> {
        Open(roxmltree::Node<'a, 'i>),
        Close(String),
    }
    let mut out = Vec::new();
    // Iterative, so deeply nested (hostile) documents cannot overflow the stack.
    let mut stack: Vec<Item> = doc.root().children().rev().map(Item::Open).collect();
    while let Some(item) = stack.pop() {
        let n = match item {
            Item::Close(name) => {
                out.push(format!("){name}"));
                continue;
            }
            Item::Open(n) => n,
        };
        match n.node_type() {
            roxmltree::NodeType::Element => {
                let name = expanded(n.tag_name().namespace(), n.tag_name().name());
                let mut attrs: Vec<String> = n
                    .attributes()
                    .map(|a| format!("{}={:?}", expanded(a.namespace(), a.name()), a.value()))
                    .collect();
                attrs.sort();
                out.push(format!("({name} {}", attrs.join(" ")));
                stack.push(Item::Close(name));
                stack.extend(n.children().rev().map(Item::Open));
            }
            roxmltree::NodeType::Text => {
                let t = n.text().unwrap_or("");
                let layout = t.chars().all(char::is_whitespace) && !preserves_space(n);
                if !layout {
                    out.push(format!("text {t:?}"));
                }
            }
            roxmltree::NodeType::PI => {
                if let Some(pi) = n.pi() {
                    out.push(format!("?{} {:?}", pi.target, pi.value.unwrap_or("")));
                }
            }
            roxmltree::NodeType::Comment | roxmltree::NodeType::Root => {}
        }
    }
    Ok(out)
}

/// Whether two texts differ only in whitespace (said in the finding, since the diff of such a
/// change can look empty).
fn whitespace_only(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

fn compare(rel: &str, w: &[u8], r: &[u8], store: Option<&Store>) -> Vec<Finding> {
    let (Ok(ws), Ok(rf)) = (std::str::from_utf8(w), std::str::from_utf8(r)) else {
        return vec![
            Finding::new(rel, FindingKind::BinaryDiffers)
                .expected(format!("{} bytes", r.len()))
                .actual(format!("{} bytes", w.len())),
        ];
    };
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name == "pom.xml" {
        let all = [
            PomAspect::Parent,
            PomAspect::Dependencies,
            PomAspect::Plugins,
            PomAspect::Properties,
            PomAspect::JavaVersion,
        ];
        return match (Pom::parse(rf), Pom::parse(ws)) {
            (Ok(mut e), Ok(mut a)) => {
                e.resolve(None);
                a.resolve(None);
                diff_poms(rel, &e, &a, &all, false)
            }
            (Err(_), _) => text_compare(rel, ws, rf),
            (_, Err(e)) => {
                vec![Finding::new(rel, FindingKind::PomUnreadable).actual(e.to_string())]
            }
        };
    }
    if let Some(language) = Language::of_path(name) {
        let all = [
            AstAspect::Types,
            AstAspect::Annotations,
            AstAspect::Signatures,
            AstAspect::Fields,
            AstAspect::Bodies,
        ];
        let (expected, actual) = (
            crate::lang::cache::model(store, language, r, true),
            crate::lang::cache::model(store, language, w, true),
        );
        let imports = |f: &SourceFile| {
            f.imports
                .iter()
                .map(Import::key)
                .collect::<std::collections::BTreeSet<_>>()
        };
        let same_header =
            expected.package == actual.package && imports(&expected) == imports(&actual);
        let f = ast::diff_files(rel, &expected, &actual, &all);
        return if f.is_empty() && same_header {
            Vec::new()
        } else {
            vec![Finding::new(rel, language.differs()).actual(short_diff(rel, rf, ws))]
        };
    }
    if name.ends_with(".xml") {
        return match (canonical_xml(rf), canonical_xml(ws)) {
            (Ok(a), Ok(b)) if a == b => Vec::new(),
            (Ok(_), Ok(_)) => {
                vec![Finding::new(rel, FindingKind::XmlDiffers).actual(short_diff(rel, rf, ws))]
            }
            _ => text_compare(rel, ws, rf),
        };
    }
    text_compare(rel, ws, rf)
}

fn text_compare(rel: &str, ws: &str, rf: &str) -> Vec<Finding> {
    if ws == rf {
        return Vec::new();
    }
    let diff = short_diff(rel, rf, ws);
    let f = Finding::new(rel, FindingKind::TextDiffers);
    vec![if whitespace_only(ws, rf) {
        f.actual(format!("whitespace only differs (indentation, spaces, line endings or blank lines carry meaning in a text file):\n{diff}"))
    } else {
        f.actual(diff)
    }]
}

/// Runs the judge over every selected reference file.
pub fn file_comparison(
    comparisons: &Comparisons,
    workspace: &Path,
    reference: &Path,
    files: &FileSet,
) -> Outcome {
    let listing = match list(comparisons, workspace, reference, files) {
        Ok(l) => l,
        Err(e) => return instrument(e.to_string()),
    };
    if let Some(na) = super::nothing_examined("file-comparison", &listing, files, false) {
        return na;
    }
    let (findings, matched, total) = compare_files(
        comparisons,
        &listing,
        workspace,
        |rel, w, r| match super::content::bytes(rel, w, r) {
            Ok((w, r)) => compare(rel, w, r, comparisons.store()),
            Err(unreadable) => unreadable,
        },
    );
    verdict(
        "file-comparison",
        findings,
        matched,
        total,
        vec![
            ("extraWorkspaceFiles", listing.only_workspace.len().into()),
            listing.git_metadata(),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RC5-2 / F2: what an XML consumer reads differs — a namespace URI, text's own
    /// whitespace, whitespace under `xml:space="preserve"`, a processing instruction — so
    /// the files differ; a prefix, a comment, attribute order and layout between elements
    /// do not.
    #[test]
    fn xml_is_compared_as_its_consumer_reads_it() {
        let differs = |r: &str, w: &str| {
            compare("c.xml", w.as_bytes(), r.as_bytes(), None)
                .iter()
                .any(|f| f.kind == FindingKind::XmlDiffers)
        };
        for (r, w) in [
            ("<a xmlns='urn:one'><b/></a>", "<a xmlns='urn:two'><b/></a>"),
            (
                "<p:a xmlns:p='urn:one' p:x='1'/>",
                "<p:a xmlns:p='urn:one' xmlns:q='urn:two' q:x='1'/>",
            ),
            ("<a><b>t</b></a>", "<a><b> t </b></a>"),
            ("<a><b>t</b></a>", "<a><b>t\n</b></a>"),
            (
                "<a xml:space='preserve'><b>t</b></a>",
                "<a xml:space='preserve'> <b>t</b></a>",
            ),
            ("<a><?keep x?></a>", "<a><?keep y?></a>"),
            ("<a/>", "<?pi x?><a/>"),
            ("<a><b x='1'/></a>", "<a><b x=' 1'/></a>"),
            ("<a>x<![CDATA[y]]></a>", "<a>x<![CDATA[ y]]></a>"),
        ] {
            assert!(differs(r, w), "{r} vs {w}");
        }
        for (r, w) in [
            (
                "<p:a xmlns:p='urn:one'><p:b/></p:a>",
                "<q:a xmlns:q='urn:one'>\n  <q:b/>\n</q:a>",
            ),
            ("<a><b>t</b></a>", "<a><!-- note --><b>t</b></a>"),
            (
                "<a xml:space='preserve'><c xml:space='default'><b/></c></a>",
                "<a xml:space='preserve'><c xml:space='default'> <b/> </c></a>",
            ),
            ("<a>x&amp;y</a>", "<a>x<![CDATA[&]]>y</a>"),
        ] {
            assert!(!differs(r, w), "{r} vs {w}");
        }
    }

    #[test]
    fn kinds_are_compared_by_their_own_rules() {
        assert!(compare("a.txt", b"hello world\n", b"hello world\n", None).is_empty());
        // Whitespace is compared too (FI5-1): indentation, spaces in a value, CRLF, blank
        // lines and the final newline each differ, and the finding says it is whitespace.
        for (ws, rf) in [
            (
                &b"def ok():\n    if x:\n        return True\n"[..],
                &b"def ok():\n    if x:\n        pass\n    return True\n"[..],
            ),
            (b"want: \"Hello,     Ada!\"\n", b"want: \"Hello, Ada!\"\n"),
            (b"a\r\nb\r\n", b"a\nb\n"),
            (b"a\n\nb\n", b"a\nb\n"),
            (b"a", b"a\n"),
            (b"hello   world\n", b"hello world"),
        ] {
            let f = compare("t.txt", ws, rf, None);
            assert_eq!(f.len(), 1, "{:?}", String::from_utf8_lossy(ws));
            assert_eq!(f[0].kind, FindingKind::TextDiffers);
        }
        let f = compare("t.yml", b"a:  1\n", b"a: 1\n", None);
        assert!(
            f[0].actual
                .as_deref()
                .unwrap_or("")
                .starts_with("whitespace only differs"),
            "{f:?}"
        );
        assert_eq!(
            compare("a.txt", b"hello", b"bye", None)[0].kind,
            FindingKind::TextDiffers
        );
        assert!(
            compare(
                "c.xml",
                b"<a y='2' x='1'>\n  <b>t</b>\n</a>",
                b"<a x=\"1\" y=\"2\"><!-- c --><b>t</b></a>",
                None
            )
            .is_empty()
        );
        assert_eq!(
            compare("c.xml", b"<a><b>t</b></a>", b"<a><b>u</b></a>", None)[0].kind,
            FindingKind::XmlDiffers
        );
        assert!(
            compare(
                "A.java",
                b"class A { int f() { return 1; } }",
                b"class A {\n int f() {\n  return 1; // same\n }\n}",
                None
            )
            .is_empty()
        );
        assert_eq!(
            compare(
                "A.java",
                b"class A { int f() { return 2; } }",
                b"class A { int f() { return 1; } }",
                None
            )[0]
            .kind,
            FindingKind::JavaDiffers
        );
        assert_eq!(
            compare("x.bin", b"\xff\x00", b"\xfe\x00", None)[0].kind,
            FindingKind::BinaryDiffers
        );
        let d = short_diff("a.txt", "a\nb\nc\n", "a\nB\nc\n");
        assert!(
            d.contains("-b") && d.contains("+B") && d.contains("reference/a.txt"),
            "{d}"
        );
    }
}
