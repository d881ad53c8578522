//! The base → reference change split into units, each of which `prove` reverts alone: one per
//! diff hunk of a text file (`diff -U0`'s hunks, computed with `similar`), one per file added,
//! deleted or changed as bytes, and in a POM one per dependency, plugin, extension or
//! property (every hunk inside one such element is one unit).

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Serialize;

use super::tree::{Entry, Files};

/// What kind of unit a change is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum UnitKind {
    /// Lines of a text file.
    Hunk,
    /// A POM `<dependency>`.
    PomDependency,
    /// A POM `<plugin>`.
    PomPlugin,
    /// A POM build `<extension>`.
    PomExtension,
    /// A POM property.
    PomProperty,
    /// A file the reference adds.
    FileAdded,
    /// A file the reference deletes.
    FileDeleted,
    /// A file that is not text, changed as a whole (or its mode).
    FileReplaced,
}

/// One unit of the change.
#[derive(Clone, Debug)]
pub struct Unit {
    /// 1-based, in path order.
    pub id: usize,
    /// The file.
    pub path: String,
    /// The first line of the change in the reference (1-based; for a deletion, the line the
    /// removed text stood before; 1 for whole files).
    pub line: usize,
    /// The last line of the change in the reference (equal to `line` for one line).
    pub end_line: usize,
    /// Its kind.
    pub kind: UnitKind,
    /// What changed, in a few words (`dependency jakarta.servlet:jakarta.servlet-api`,
    /// `lines 3-7`).
    pub what: String,
    /// How to take it back out of the reference.
    edit: Edit,
}

/// How a unit is reverted.
#[derive(Clone, Debug)]
enum Edit {
    /// Replace reference line ranges (0-based, end exclusive) with the base's lines.
    Lines(Vec<(Range<usize>, Vec<String>)>),
    /// Put the base's entry back (a deleted or byte-changed file).
    Restore(Entry),
    /// Remove the file (one the reference added).
    Remove,
}

impl Unit {
    /// The reference with this unit reverted: the variant `prove` judges.
    pub fn revert(&self, reference: &Files) -> Files {
        let mut out = reference.clone();
        match &self.edit {
            Edit::Remove => {
                out.remove(&self.path);
            }
            Edit::Restore(e) => {
                out.insert(self.path.clone(), e.clone());
            }
            Edit::Lines(edits) => {
                if let Some(entry) = reference.get(&self.path)
                    && let Some(text) = entry.text()
                {
                    let mut lines: Vec<String> =
                        text.split_inclusive('\n').map(str::to_string).collect();
                    let mut edits = edits.clone();
                    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
                    for (range, base) in edits {
                        let end = range.end.min(lines.len());
                        let start = range.start.min(end);
                        lines.splice(start..end, base);
                    }
                    let executable = matches!(
                        entry,
                        Entry::File {
                            executable: true,
                            ..
                        }
                    );
                    out.insert(
                        self.path.clone(),
                        Entry::File {
                            bytes: lines.concat().into_bytes(),
                            executable,
                        },
                    );
                }
            }
        }
        out
    }

    /// `path:line`, or `path:line-end` for a range.
    pub fn location(&self) -> String {
        if self.end_line > self.line {
            format!("{}:{}-{}", self.path, self.line, self.end_line)
        } else {
            format!("{}:{}", self.path, self.line)
        }
    }
}

/// Every unit of the change from `base` to `reference`, in path order.
pub fn split(base: &Files, reference: &Files) -> Vec<Unit> {
    let mut units = Vec::new();
    let paths: std::collections::BTreeSet<&String> = base.keys().chain(reference.keys()).collect();
    for path in paths {
        match (base.get(path), reference.get(path)) {
            (None, Some(_)) => units.push(whole(path, UnitKind::FileAdded, Edit::Remove)),
            (Some(b), None) => {
                units.push(whole(path, UnitKind::FileDeleted, Edit::Restore(b.clone())))
            }
            (Some(b), Some(r)) if b != r => match (b.text(), r.text()) {
                (Some(bt), Some(rt)) if bt != rt => {
                    let hunks = line_hunks(bt, rt);
                    if is_pom(path) {
                        units.extend(pom_units(path, bt, rt, hunks));
                    } else {
                        units.extend(hunks.into_iter().map(|h| text_unit(path, vec![h])));
                    }
                }
                _ => units.push(whole(
                    path,
                    UnitKind::FileReplaced,
                    Edit::Restore(b.clone()),
                )),
            },
            _ => {}
        }
    }
    for (i, u) in units.iter_mut().enumerate() {
        u.id = i + 1;
    }
    units
}

fn is_pom(path: &str) -> bool {
    path == "pom.xml" || path.ends_with("/pom.xml")
}

fn whole(path: &str, kind: UnitKind, edit: Edit) -> Unit {
    let what = match kind {
        UnitKind::FileAdded => "file added",
        UnitKind::FileDeleted => "file deleted",
        _ => "file changed",
    };
    Unit {
        id: 0,
        path: path.to_string(),
        line: 1,
        end_line: 1,
        kind,
        what: what.into(),
        edit,
    }
}

/// One hunk: the base's lines `old` became the reference's lines `new` (0-based ranges).
#[derive(Clone, Debug)]
struct LineHunk {
    old: Range<usize>,
    new: Range<usize>,
    base_lines: Vec<String>,
}

/// `diff -U0`'s hunks: each run of changed lines between unchanged ones.
fn line_hunks(base: &str, reference: &str) -> Vec<LineHunk> {
    // Patience anchors on lines that occur once, so that a POM's repeated `</dependency>`
    // lines do not pull two elements' changes into one hunk.
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .diff_lines(base, reference);
    let old: Vec<&str> = base.split_inclusive('\n').collect();
    let mut out: Vec<LineHunk> = Vec::new();
    let mut current: Option<(Range<usize>, Range<usize>)> = None;
    for op in diff.ops() {
        let (tag, o, n) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            if let Some((o, n)) = current.take() {
                out.push(hunk(&old, o, n));
            }
            continue;
        }
        current = Some(match current {
            None => (o, n),
            Some((po, pn)) => (po.start..o.end, pn.start..n.end),
        });
    }
    if let Some((o, n)) = current {
        out.push(hunk(&old, o, n));
    }
    out
}

fn hunk(old: &[&str], o: Range<usize>, n: Range<usize>) -> LineHunk {
    LineHunk {
        base_lines: old[o.start.min(old.len())..o.end.min(old.len())]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        old: o,
        new: n,
    }
}

fn text_unit(path: &str, hunks: Vec<LineHunk>) -> Unit {
    let line = hunks.first().map_or(1, |h| h.new.start + 1);
    let end_line = hunks
        .last()
        .map_or(line, |h| h.new.end.max(h.new.start + 1))
        .max(line);
    let what = match hunks.as_slice() {
        [h] if h.new.is_empty() => format!("{} line(s) removed", h.old.len()),
        [h] if h.old.is_empty() => format!("{} line(s) added", h.new.len()),
        [h] => format!("{} line(s) changed", h.new.len().max(h.old.len())),
        _ => format!("{} hunks", hunks.len()),
    };
    Unit {
        id: 0,
        path: path.to_string(),
        line,
        end_line,
        kind: UnitKind::Hunk,
        what,
        edit: Edit::Lines(hunks.into_iter().map(|h| (h.new, h.base_lines)).collect()),
    }
}

/// One element of a POM that is a unit of its own: its kind, name and lines (0-based,
/// inclusive).
#[derive(Clone, Debug)]
struct PomElement {
    kind: UnitKind,
    name: String,
    lines: Range<usize>,
}

/// The dependencies, plugins, extensions and properties of a POM with their lines (the
/// outermost such element where they nest: a plugin's own dependency is the plugin's).
fn pom_elements(xml: &str) -> Vec<PomElement> {
    let Ok(doc) = roxmltree::Document::parse_with_options(
        xml,
        roxmltree::ParsingOptions {
            allow_dtd: false,
            ..Default::default()
        },
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let child_text = |n: roxmltree::Node, name: &str| {
        n.children()
            .find(|c| c.tag_name().name() == name)
            .and_then(|c| c.text())
            .map(str::trim)
            .unwrap_or("")
            .to_string()
    };
    let mut stack = vec![doc.root_element()];
    while let Some(n) = stack.pop() {
        let parent = n
            .parent_element()
            .map(|p| p.tag_name().name())
            .unwrap_or("");
        let kind = match (n.tag_name().name(), parent) {
            (_, "properties") => Some(UnitKind::PomProperty),
            ("dependency", _) => Some(UnitKind::PomDependency),
            ("plugin", _) => Some(UnitKind::PomPlugin),
            ("extension", _) => Some(UnitKind::PomExtension),
            _ => None,
        };
        match kind {
            Some(kind) => {
                let name = match kind {
                    UnitKind::PomProperty => n.tag_name().name().to_string(),
                    _ => format!(
                        "{}:{}",
                        child_text(n, "groupId"),
                        child_text(n, "artifactId")
                    ),
                };
                let start = doc.text_pos_at(n.range().start).row as usize - 1;
                let end = doc.text_pos_at(n.range().end).row as usize - 1;
                out.push(PomElement {
                    kind,
                    name,
                    lines: start..end + 1,
                });
            }
            None => stack.extend(n.children().filter(|c| c.is_element())),
        }
    }
    out.sort_by_key(|e| e.lines.start);
    out
}

/// Whether the hunk range `r` lies in `lines`: a changed range within it, or an insertion
/// strictly inside it.
fn inside(r: &Range<usize>, lines: &Range<usize>) -> bool {
    if r.is_empty() {
        r.start > lines.start && r.start < lines.end
    } else {
        r.start >= lines.start && r.end <= lines.end
    }
}

/// The hunks that fall in one POM element: its kind, name and what it was in the base.
type Group = (Option<(UnitKind, String, String)>, Vec<LineHunk>);

/// A POM's hunks grouped by the element they fall in: each dependency, plugin, extension or
/// property is one unit; a hunk in no such element (or across several) stays its own.
fn pom_units(path: &str, base: &str, reference: &str, hunks: Vec<LineHunk>) -> Vec<Unit> {
    let (ref_elems, base_elems) = (pom_elements(reference), pom_elements(base));
    let mut groups: BTreeMap<(u8, usize), Group> = BTreeMap::new();
    let mut loose = Vec::new();
    for h in hunks {
        let in_ref = ref_elems.iter().position(|e| inside(&h.new, &e.lines));
        let in_base = base_elems.iter().position(|e| inside(&h.old, &e.lines));
        match (in_ref, in_base) {
            (Some(i), b) => {
                let e = &ref_elems[i];
                let was = b
                    .map(|j| &base_elems[j])
                    .filter(|b| b.name != e.name)
                    .map(|b| format!(" (base: {})", b.name))
                    .unwrap_or_default();
                let g = groups.entry((0, i)).or_default();
                g.0 = Some((e.kind, e.name.clone(), was));
                g.1.push(h);
            }
            (None, Some(j)) if h.new.is_empty() => {
                let e = &base_elems[j];
                let g = groups.entry((1, j)).or_default();
                g.0 = Some((e.kind, e.name.clone(), " (removed)".into()));
                g.1.push(h);
            }
            (None, _) => loose.push(h),
        }
    }
    let mut units: Vec<Unit> = groups
        .into_values()
        .filter_map(|(elem, hunks)| {
            let (kind, name, was) = elem?;
            let mut u = text_unit(path, hunks);
            let noun = match kind {
                UnitKind::PomProperty => "property",
                UnitKind::PomPlugin => "plugin",
                UnitKind::PomExtension => "extension",
                _ => "dependency",
            };
            u.kind = kind;
            u.what = format!("{noun} {name}{was}");
            Some(u)
        })
        .collect();
    units.extend(loose.into_iter().map(|h| text_unit(path, vec![h])));
    units.sort_by_key(|u| u.line);
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Files {
        list.iter()
            .map(|(p, t)| (p.to_string(), Entry::file(*t)))
            .collect()
    }

    const POM_BASE: &str = "<project>\n  <properties>\n    <java.version>11</java.version>\n  </properties>\n  <dependencies>\n    <dependency>\n      <groupId>javax.servlet</groupId>\n      <artifactId>javax.servlet-api</artifactId>\n      <version>4.0.1</version>\n    </dependency>\n    <dependency>\n      <groupId>junit</groupId>\n      <artifactId>junit</artifactId>\n    </dependency>\n  </dependencies>\n</project>\n";
    const POM_REF: &str = "<project>\n  <properties>\n    <java.version>17</java.version>\n  </properties>\n  <dependencies>\n    <dependency>\n      <groupId>jakarta.servlet</groupId>\n      <artifactId>jakarta.servlet-api</artifactId>\n      <version>5.0.0</version>\n    </dependency>\n    <dependency>\n      <groupId>junit</groupId>\n      <artifactId>junit</artifactId>\n    </dependency>\n    <dependency>\n      <groupId>org.mockito</groupId>\n      <artifactId>mockito-core</artifactId>\n      <version>5.0</version>\n    </dependency>\n  </dependencies>\n</project>\n";

    #[test]
    fn each_hunk_and_each_pom_element_is_one_unit_and_reverts_alone() {
        let base = files(&[
            ("A.java", "a\nb\nc\nd\ne\n"),
            ("gone.txt", "x\n"),
            ("pom.xml", POM_BASE),
        ]);
        let reference = files(&[
            ("A.java", "a\nB\nc\nd\nE\nF\n"),
            ("new.txt", "y\n"),
            ("pom.xml", POM_REF),
        ]);
        let units = split(&base, &reference);
        let seen: Vec<(String, UnitKind, String)> = units
            .iter()
            .map(|u| (u.location(), u.kind, u.what.clone()))
            .collect();
        assert_eq!(
            seen,
            vec![
                ("A.java:2".into(), UnitKind::Hunk, "1 line(s) changed".into()),
                ("A.java:5-6".into(), UnitKind::Hunk, "2 line(s) changed".into()),
                ("gone.txt:1".into(), UnitKind::FileDeleted, "file deleted".into()),
                ("new.txt:1".into(), UnitKind::FileAdded, "file added".into()),
                ("pom.xml:3".into(), UnitKind::PomProperty, "property java.version".into()),
                (
                    "pom.xml:7-9".into(),
                    UnitKind::PomDependency,
                    "dependency jakarta.servlet:jakarta.servlet-api (base: javax.servlet:javax.servlet-api)".into()
                ),
                ("pom.xml:15-19".into(), UnitKind::PomDependency, "dependency org.mockito:mockito-core".into()),
            ]
        );
        assert_eq!(
            units.iter().map(|u| u.id).collect::<Vec<_>>(),
            (1..=7).collect::<Vec<_>>()
        );
        // Each variant is the reference with exactly that unit taken back.
        let v = units[1].revert(&reference);
        assert_eq!(v["A.java"].text(), Some("a\nB\nc\nd\ne\n"));
        assert!(!units[3].revert(&reference).contains_key("new.txt"));
        assert_eq!(units[2].revert(&reference)["gone.txt"].text(), Some("x\n"));
        let dep = units[5].revert(&reference);
        let pom = dep["pom.xml"].text().unwrap();
        assert!(
            pom.contains("javax.servlet-api") && pom.contains("<java.version>17"),
            "{pom}"
        );
        assert!(
            pom.contains("<artifactId>mockito-core</artifactId>"),
            "{pom}"
        );
        let added = units[6].revert(&reference);
        let pom = added["pom.xml"].text().unwrap();
        assert!(
            !pom.contains("mockito") && pom.contains("<artifactId>junit</artifactId>"),
            "{pom}"
        );
        // Reverting every unit gives the base back.
        let mut all = reference.clone();
        for u in units.iter().rev() {
            let one = u.revert(&all);
            all = one;
        }
        assert_eq!(all, base);
    }
}
