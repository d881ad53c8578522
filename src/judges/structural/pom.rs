//! `pom-diff`: the effective coordinates of each POM against the reference's — parent,
//! dependencies (version and scope, `${…}` properties and dependencyManagement resolved within
//! the file and its parent when the parent is in the tree), plugins, properties, Java release.
//! DTDs are never read, so no entity can expand.

use std::collections::BTreeMap;
use std::path::Path;

use crate::config::checks::{FileSet, PomAspect};

use super::super::{Outcome, instrument};
use super::{Finding, Pair, list, verdict};

/// A value with the line it was declared on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct At<T> {
    /// The value.
    pub value: T,
    /// Its line in the POM.
    pub line: u32,
}

/// One dependency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependency {
    /// Resolved version, if any.
    pub version: Option<String>,
    /// Scope (`compile` when absent).
    pub scope: String,
}

/// What pom-diff compares of one POM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pom {
    /// `groupId:artifactId:version` of the parent.
    pub parent: Option<At<String>>,
    /// The parent's `relativePath` (default `../pom.xml`).
    pub parent_path: Option<String>,
    /// This project's version (or the parent's).
    pub version: Option<String>,
    /// `<properties>`.
    pub properties: BTreeMap<String, At<String>>,
    /// Dependencies by `groupId:artifactId`.
    pub dependencies: BTreeMap<String, At<Dependency>>,
    /// dependencyManagement versions by `groupId:artifactId`.
    pub managed: BTreeMap<String, String>,
    /// Build plugins by `groupId:artifactId` with their versions.
    pub plugins: BTreeMap<String, At<Option<String>>>,
    /// The Java release (`maven.compiler.release`, then `source`, then the compiler plugin).
    pub java: Option<At<String>>,
}

fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    n.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// `<dependencies>` of `n`, keyed `groupId:artifactId[:classifier]`.
fn deps_of<'a, 'i>(n: roxmltree::Node<'a, 'i>) -> Vec<(String, roxmltree::Node<'a, 'i>)> {
    child(n, "dependencies")
        .map(|ds| {
            ds.children()
                .filter(|c| c.is_element() && c.tag_name().name() == "dependency")
                .map(|d| {
                    let mut key = format!(
                        "{}:{}",
                        text(d, "groupId").unwrap_or_default(),
                        text(d, "artifactId").unwrap_or_default()
                    );
                    if let Some(c) = text(d, "classifier") {
                        key.push_str(&format!(":{c}"));
                    }
                    (key, d)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn text(n: roxmltree::Node, name: &str) -> Option<String> {
    child(n, name)
        .and_then(|c| c.text())
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

impl Pom {
    /// Parses a POM. A DTD (and with it any entity) is refused.
    pub fn parse(xml: &str) -> Result<Pom, String> {
        let doc = roxmltree::Document::parse_with_options(
            xml,
            roxmltree::ParsingOptions {
                allow_dtd: false,
                ..Default::default()
            },
        )
        .map_err(|e| format!("not a readable POM: {e}"))?;
        let root = doc.root_element();
        if root.tag_name().name() != "project" {
            return Err(format!(
                "not a POM: the root element is <{}>",
                root.tag_name().name()
            ));
        }
        let line = |n: roxmltree::Node| doc.text_pos_at(n.range().start).row;
        let mut pom = Pom::default();
        if let Some(p) = child(root, "parent") {
            let gav = format!(
                "{}:{}:{}",
                text(p, "groupId").unwrap_or_default(),
                text(p, "artifactId").unwrap_or_default(),
                text(p, "version").unwrap_or_default()
            );
            pom.parent = Some(At {
                value: gav,
                line: line(p),
            });
            pom.parent_path = Some(text(p, "relativePath").unwrap_or_else(|| "../pom.xml".into()));
        }
        pom.version = text(root, "version")
            .or_else(|| child(root, "parent").and_then(|p| text(p, "version")));
        if let Some(props) = child(root, "properties") {
            for p in props.children().filter(|c| c.is_element()) {
                let v = p.text().unwrap_or("").trim().to_string();
                pom.properties.insert(
                    p.tag_name().name().to_string(),
                    At {
                        value: v,
                        line: line(p),
                    },
                );
            }
        }
        for (k, d) in deps_of(root) {
            let dep = Dependency {
                version: text(d, "version"),
                scope: text(d, "scope").unwrap_or_else(|| "compile".into()),
            };
            pom.dependencies.insert(
                k,
                At {
                    value: dep,
                    line: line(d),
                },
            );
        }
        if let Some(dm) = child(root, "dependencyManagement") {
            for (k, d) in deps_of(dm) {
                if let Some(v) = text(d, "version") {
                    pom.managed.insert(k, v);
                }
            }
        }
        if let Some(build) = child(root, "build") {
            let plugin_nodes = child(build, "plugins").into_iter().flat_map(|ps| {
                ps.children()
                    .filter(|c| c.is_element() && c.tag_name().name() == "plugin")
                    .collect::<Vec<_>>()
            });
            for p in plugin_nodes {
                let key = format!(
                    "{}:{}",
                    text(p, "groupId").unwrap_or_else(|| "org.apache.maven.plugins".into()),
                    text(p, "artifactId").unwrap_or_default()
                );
                if key.ends_with(":maven-compiler-plugin")
                    && let Some(cfg) = child(p, "configuration")
                    && let Some(r) = text(cfg, "release").or_else(|| text(cfg, "source"))
                {
                    pom.java.get_or_insert(At {
                        value: r,
                        line: line(p),
                    });
                }
                pom.plugins.insert(
                    key,
                    At {
                        value: text(p, "version"),
                        line: line(p),
                    },
                );
            }
        }
        for k in [
            "maven.compiler.release",
            "maven.compiler.source",
            "java.version",
        ] {
            if let Some(v) = pom.properties.get(k) {
                pom.java = Some(v.clone());
                break;
            }
        }
        Ok(pom)
    }

    /// Fills in what the parent provides (properties, managed versions) and resolves
    /// `${…}` in versions and the Java release.
    pub fn resolve(&mut self, parent: Option<&Pom>) {
        let mut props: BTreeMap<String, String> = BTreeMap::new();
        if let Some(p) = parent {
            props.extend(
                p.properties
                    .iter()
                    .map(|(k, v)| (k.clone(), v.value.clone())),
            );
            for (k, v) in &p.managed {
                self.managed.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        props.extend(
            self.properties
                .iter()
                .map(|(k, v)| (k.clone(), v.value.clone())),
        );
        if let Some(v) = &self.version {
            props.insert("project.version".into(), v.clone());
        }
        if let Some(p) = &self.parent {
            props.insert(
                "project.parent.version".into(),
                p.value.rsplit(':').next().unwrap_or("").to_string(),
            );
        }
        let subst = |s: &str| expand(s, &props);
        for d in self.dependencies.values_mut() {
            d.value.version = d.value.version.as_deref().map(subst);
        }
        for v in self.managed.values_mut() {
            *v = subst(v);
        }
        for (k, d) in &mut self.dependencies {
            if d.value.version.is_none() {
                d.value.version = self.managed.get(k).cloned();
            }
        }
        for p in self.plugins.values_mut() {
            p.value = p.value.as_deref().map(subst);
        }
        if let Some(j) = &mut self.java {
            j.value = subst(&j.value);
        }
        if self.java.is_none()
            && let Some(p) = parent
            && let Some(j) = &p.java
        {
            self.java = Some(At {
                value: expand(&j.value, &props),
                line: 0,
            });
        }
    }
}

/// Expands `${name}` references, at most 10 levels deep (cycles stop there, unexpanded).
fn expand(s: &str, props: &BTreeMap<String, String>) -> String {
    let mut out = s.to_string();
    for _ in 0..10 {
        let Some(start) = out.find("${") else {
            break;
        };
        let Some(len) = out[start..].find('}') else {
            break;
        };
        let name = &out[start + 2..start + len];
        match props.get(name) {
            Some(v) => out = format!("{}{}{}", &out[..start], v, &out[start + len + 1..]),
            None => break,
        }
    }
    out
}

/// Reads and resolves `rel` in `root`, with its parent when the parent POM is in the tree.
fn load(root: &Path, rel: &str, bytes: &[u8]) -> Result<Pom, String> {
    let mut pom = Pom::parse(&String::from_utf8_lossy(bytes))?;
    let parent = pom.parent_path.as_ref().and_then(|pp| {
        let dir = Path::new(rel).parent().unwrap_or(Path::new(""));
        let p = root.join(dir).join(pp);
        let p = if p.is_dir() { p.join("pom.xml") } else { p };
        let canon = p.canonicalize().ok()?;
        let root_canon = root.canonicalize().ok()?;
        if !canon.starts_with(&root_canon) {
            return None;
        }
        let text = String::from_utf8(super::read_bounded(&canon).ok()?).ok()?;
        let mut parent = Pom::parse(&text).ok()?;
        parent.resolve(None);
        Some(parent)
    });
    pom.resolve(parent.as_ref());
    Ok(pom)
}

/// Compares two resolved POMs.
pub fn diff_poms(
    rel: &str,
    e: &Pom,
    a: &Pom,
    aspects: &[PomAspect],
    ignore_versions: bool,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let has = |x: PomAspect| aspects.contains(&x);
    let strip = |gav: &str| {
        if ignore_versions {
            gav.rsplitn(2, ':').last().unwrap_or(gav).to_string()
        } else {
            gav.to_string()
        }
    };
    if has(PomAspect::Parent)
        && e.parent.as_ref().map(|p| strip(&p.value)) != a.parent.as_ref().map(|p| strip(&p.value))
    {
        let mut f = Finding::new(rel, "parent-changed");
        if let Some(p) = &e.parent {
            f = f.expected(p.value.clone());
        }
        if let Some(p) = &a.parent {
            f = f.at(p.line).actual(p.value.clone());
        }
        out.push(f);
    }
    if has(PomAspect::Dependencies) {
        for (k, d) in &e.dependencies {
            let show = |d: &Dependency| {
                format!("{k}:{} ({})", d.version.as_deref().unwrap_or("?"), d.scope)
            };
            match a.dependencies.get(k) {
                None => out.push(Finding::new(rel, "dependency-missing").expected(show(&d.value))),
                Some(w) => {
                    if !ignore_versions && w.value.version != d.value.version {
                        out.push(
                            Finding::new(rel, "dependency-version-changed")
                                .at(w.line)
                                .expected(show(&d.value))
                                .actual(show(&w.value)),
                        );
                    }
                    if w.value.scope != d.value.scope {
                        out.push(
                            Finding::new(rel, "dependency-scope-changed")
                                .at(w.line)
                                .expected(show(&d.value))
                                .actual(show(&w.value)),
                        );
                    }
                }
            }
        }
        for (k, w) in a
            .dependencies
            .iter()
            .filter(|(k, _)| !e.dependencies.contains_key(*k))
        {
            out.push(
                Finding::new(rel, "dependency-unexpected")
                    .at(w.line)
                    .actual(format!(
                        "{k}:{} ({})",
                        w.value.version.as_deref().unwrap_or("?"),
                        w.value.scope
                    )),
            );
        }
    }
    if has(PomAspect::Plugins) {
        let show =
            |k: &str, v: &Option<String>| format!("{k}:{}", v.as_deref().unwrap_or("(default)"));
        for (k, p) in &e.plugins {
            match a.plugins.get(k) {
                None => out.push(Finding::new(rel, "plugin-missing").expected(show(k, &p.value))),
                Some(w) if !ignore_versions && w.value != p.value => out.push(
                    Finding::new(rel, "plugin-version-changed")
                        .at(w.line)
                        .expected(show(k, &p.value))
                        .actual(show(k, &w.value)),
                ),
                Some(_) => {}
            }
        }
        for (k, w) in a
            .plugins
            .iter()
            .filter(|(k, _)| !e.plugins.contains_key(*k))
        {
            out.push(
                Finding::new(rel, "plugin-unexpected")
                    .at(w.line)
                    .actual(show(k, &w.value)),
            );
        }
    }
    if has(PomAspect::Properties) {
        for (k, p) in &e.properties {
            match a.properties.get(k) {
                None => out.push(
                    Finding::new(rel, "property-missing").expected(format!("{k} = {}", p.value)),
                ),
                Some(w) if w.value != p.value && !(ignore_versions && k.ends_with("version")) => {
                    out.push(
                        Finding::new(rel, "property-changed")
                            .at(w.line)
                            .expected(format!("{k} = {}", p.value))
                            .actual(format!("{k} = {}", w.value)),
                    )
                }
                Some(_) => {}
            }
        }
        for (k, w) in a
            .properties
            .iter()
            .filter(|(k, _)| !e.properties.contains_key(*k))
        {
            out.push(
                Finding::new(rel, "property-unexpected")
                    .at(w.line)
                    .actual(format!("{k} = {}", w.value)),
            );
        }
    }
    if has(PomAspect::JavaVersion)
        && e.java.as_ref().map(|j| &j.value) != a.java.as_ref().map(|j| &j.value)
    {
        let mut f = Finding::new(rel, "java-version-changed").expected(
            e.java
                .as_ref()
                .map_or("(unset)".into(), |j| j.value.clone()),
        );
        f = f.actual(
            a.java
                .as_ref()
                .map_or("(unset)".into(), |j| j.value.clone()),
        );
        if let Some(j) = a.java.as_ref().filter(|j| j.line > 0) {
            f = f.at(j.line);
        }
        out.push(f);
    }
    out
}

/// Runs the judge over every `pom.xml` of the reference.
pub fn pom_diff(
    workspace: &Path,
    reference: &Path,
    aspects: &[PomAspect],
    ignore_versions: bool,
) -> Outcome {
    let set = FileSet {
        include: vec!["pom.xml".into(), "**/pom.xml".into()],
        exclude: vec!["target/**".into(), "**/target/**".into()],
    };
    let listing = match list(workspace, reference, &set) {
        Ok(l) => l,
        Err(e) => return instrument(e),
    };
    if listing.both.is_empty() && listing.only_reference.is_empty() {
        return super::super::build(
            crate::judgment::Judgment::builder(crate::judgment::Status::Abstain)
                .reasoning("the reference has no pom.xml to compare"),
        );
    }
    let mut findings = Vec::new();
    let mut matched = 0;
    for rel in &listing.both {
        match listing.pair(workspace, reference, rel) {
            Pair::Same => matched += 1,
            Pair::Unreadable(why) => {
                findings.push(Finding::new(rel.as_str(), "file-unreadable").actual(why))
            }
            Pair::Differ(w, r) => {
                let expected = match load(reference, rel, &r) {
                    Ok(p) => p,
                    Err(e) => {
                        return instrument(format!("the reference's {rel} cannot be read: {e}"));
                    }
                };
                match load(workspace, rel, &w) {
                    Ok(actual) => {
                        let f = diff_poms(rel, &expected, &actual, aspects, ignore_versions);
                        if f.is_empty() {
                            matched += 1;
                        }
                        findings.extend(f);
                    }
                    Err(e) => findings.push(Finding::new(rel.as_str(), "pom-unreadable").actual(e)),
                }
            }
        }
    }
    findings.extend(
        listing
            .only_reference
            .iter()
            .map(|rel| Finding::new(rel.as_str(), "file-missing").expected(rel.as_str())),
    );
    let total = listing.both.len() + listing.only_reference.len();
    verdict(
        "pom-diff",
        findings,
        matched,
        total,
        vec![listing.git_metadata()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARENT: &str = r#"<project><groupId>g</groupId><artifactId>parent</artifactId><version>2.0</version>
<properties><servlet.version>5.0.0</servlet.version><maven.compiler.release>17</maven.compiler.release></properties>
<dependencyManagement><dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version></dependency></dependencies></dependencyManagement>
</project>"#;

    #[test]
    fn properties_management_and_parent_are_resolved() {
        let mut parent = Pom::parse(PARENT).unwrap();
        parent.resolve(None);
        let child = r#"<project><parent><groupId>g</groupId><artifactId>parent</artifactId><version>2.0</version></parent>
<artifactId>app</artifactId>
<dependencies>
  <dependency><groupId>jakarta.servlet</groupId><artifactId>jakarta.servlet-api</artifactId><version>${servlet.version}</version><scope>provided</scope></dependency>
  <dependency><groupId>junit</groupId><artifactId>junit</artifactId><scope>test</scope></dependency>
</dependencies></project>"#;
        let mut pom = Pom::parse(child).unwrap();
        pom.resolve(Some(&parent));
        assert_eq!(
            pom.dependencies["jakarta.servlet:jakarta.servlet-api"]
                .value
                .version
                .as_deref(),
            Some("5.0.0")
        );
        assert_eq!(
            pom.dependencies["junit:junit"].value.version.as_deref(),
            Some("4.13.2")
        );
        assert_eq!(pom.java.as_ref().map(|j| j.value.as_str()), Some("17"));
        assert_eq!(pom.dependencies["junit:junit"].line, 5);
    }

    #[test]
    fn differences_and_hostile_poms() {
        let r = Pom::parse(r#"<project><properties><maven.compiler.release>17</maven.compiler.release></properties><dependencies><dependency><groupId>jakarta.servlet</groupId><artifactId>jakarta.servlet-api</artifactId><version>5.0.0</version><scope>provided</scope></dependency></dependencies></project>"#).unwrap();
        let w = Pom::parse("<project>\n<properties><maven.compiler.release>11</maven.compiler.release></properties>\n<dependencies>\n<dependency><groupId>javax.servlet</groupId><artifactId>javax.servlet-api</artifactId><version>4.0.1</version></dependency>\n</dependencies></project>").unwrap();
        let all = [
            PomAspect::Parent,
            PomAspect::Dependencies,
            PomAspect::Plugins,
            PomAspect::Properties,
            PomAspect::JavaVersion,
        ];
        let f = diff_poms("pom.xml", &r, &w, &all, false);
        let kinds: Vec<&str> = f.iter().map(|x| x.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "dependency-missing",
                "dependency-unexpected",
                "property-changed",
                "java-version-changed"
            ]
        );
        assert_eq!(f[1].line, Some(4));
        let billion_laughs = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><project>&lol2;</project>"#;
        assert!(
            Pom::parse(billion_laughs)
                .unwrap_err()
                .contains("not a readable POM")
        );
        assert!(Pom::parse("<html/>").is_err());
        let mut cyclic = Pom::parse("<project><properties><a>${b}</a><b>${a}</b></properties><dependencies><dependency><groupId>x</groupId><artifactId>y</artifactId><version>${a}</version></dependency></dependencies></project>").unwrap();
        cyclic.resolve(None);
        assert!(cyclic.dependencies["x:y"].value.version.is_some());
    }
}
