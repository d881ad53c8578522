//! `pom-diff`: the effective model of each POM against the reference's, read as Maven builds
//! it — parent (the chain of parents in the tree, whatever their file names), dependencies
//! (version and scope, `${…}` properties and dependencyManagement resolved), plugins with their
//! versions and configuration (`pluginManagement` applied, default lifecycle plugins
//! included), properties, Java release — with the profiles Maven would activate merged in and
//! the settings of `.mvn/` applied ([`effective_pom`](super::effective_pom)). XML character
//! references are decoded by the XML parser; DTDs are never read, so no entity can expand.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::checks::{FileSet, PomAspect};

use super::super::{Outcome, instrument};
use super::effective_pom::{self, BuildContext, MvnConfig, own_text};
use super::tree::Tree;
use super::{Comparisons, Finding, list, verdict};
use crate::judgment::FindingKind;

/// A value with the line it was declared on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct At<T> {
    /// The value.
    pub value: T,
    /// Its line in the POM (0 when it comes from a parent POM).
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

/// One build plugin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plugin {
    /// Its version, if declared (or managed).
    pub version: Option<String>,
    /// Its configuration and executions, flattened
    /// (`effective_pom::flatten_configuration`).
    pub configuration: BTreeMap<String, String>,
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
    /// `<packaging>` (`jar` when absent).
    pub packaging: String,
    /// `<properties>`, active profiles' included.
    pub properties: BTreeMap<String, At<String>>,
    /// Dependencies by `groupId:artifactId`.
    pub dependencies: BTreeMap<String, At<Dependency>>,
    /// dependencyManagement versions by `groupId:artifactId`.
    pub managed: BTreeMap<String, String>,
    /// Build plugins by `groupId:artifactId` (after [`Pom::resolve`]: with management applied
    /// and the packaging's default plugins that are managed).
    pub plugins: BTreeMap<String, At<Plugin>>,
    /// `pluginManagement` by `groupId:artifactId`.
    pub managed_plugins: BTreeMap<String, At<Plugin>>,
    /// The Java release (compiler plugin `release` or `source`, then `maven.compiler.release`,
    /// `maven.compiler.source`, `java.version`); set by [`Pom::resolve`].
    pub java: Option<At<String>>,
    /// Ids of the profiles merged into this model.
    pub profiles: Vec<String>,
    /// Properties `.mvn/` sets for every build (they override the POM's).
    pub user_properties: BTreeMap<String, String>,
    /// What `<build>` sets besides plugins, as Maven builds it: its folders
    /// (`testSourceDirectory`, `outputDirectory`, resource folders …), `finalName`,
    /// `defaultGoal`, and each build extension (`extension g:a` = version), which Maven loads
    /// into its own JVM.
    pub build: BTreeMap<String, At<String>>,
    /// The line of `<packaging>` (0 when absent).
    pub packaging_line: u32,
    /// `<modules>` of the project and its active profiles: each module's folder and line.
    /// Maven builds those modules, so naming one changes what is built (attack FI6).
    pub modules: BTreeMap<String, u32>,
    /// Each profile whose activation judge-ci cannot decide (a JDK, OS or environment
    /// condition, or `activeByDefault` while no profile is certainly on), by id: its whole
    /// text as Maven reads it (`profile_text`) and its line. Merging such profiles into
    /// one model in document order is not what Maven does (it activates only those whose
    /// condition holds on the build machine, and drops `activeByDefault` ones when another is
    /// active), so a decoy profile could reset in the model what another sets in the build
    /// (attack findings F7-1, F7-4): pom-diff compares them as they are, whatever its
    /// aspects.
    pub undecided_profiles: BTreeMap<String, At<String>>,
}

/// A profile's text as Maven reads it: every element, attribute and non-blank text in
/// document order, comments and layout left out; one value to compare a profile by.
pub fn profile_text(n: roxmltree::Node) -> String {
    let mut out = String::new();
    for d in n.descendants() {
        match d.node_type() {
            roxmltree::NodeType::Element => {
                out.push('<');
                out.push_str(d.tag_name().name());
                let mut attrs: Vec<_> = d.attributes().map(|a| (a.name(), a.value())).collect();
                attrs.sort_unstable();
                for (k, v) in attrs {
                    out.push_str(&format!(" {k}={v:?}"));
                }
                out.push_str(&format!(" depth={}>", d.ancestors().count()));
            }
            roxmltree::NodeType::Text => {
                let t = d.text().unwrap_or_default().trim();
                if !t.is_empty() {
                    out.push_str(&format!("{t:?}"));
                }
            }
            _ => {}
        }
    }
    out
}

fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    n.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn children<'a, 'i>(
    n: Option<roxmltree::Node<'a, 'i>>,
    name: &'static str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    n.into_iter().flat_map(move |n| {
        n.children()
            .filter(move |c| c.is_element() && c.tag_name().name() == name)
    })
}

/// `<dependencies>` of `n`, keyed as Maven keys them: `groupId:artifactId[:type][:classifier]`
/// (the type shown when it is not the default `jar`): a `<type>pom</type>` is another
/// artifact, whose classes are not on the class path (attack finding F1).
fn deps_of<'a, 'i>(n: roxmltree::Node<'a, 'i>) -> Vec<(String, roxmltree::Node<'a, 'i>)> {
    children(child(n, "dependencies"), "dependency")
        .map(|d| {
            let mut key = format!(
                "{}:{}",
                text(d, "groupId").unwrap_or_default(),
                text(d, "artifactId").unwrap_or_default()
            );
            if let Some(t) = text(d, "type").filter(|t| t != "jar") {
                key.push_str(&format!(":{t}"));
            }
            if let Some(c) = text(d, "classifier") {
                key.push_str(&format!(":{c}"));
            }
            (key, d)
        })
        .collect()
}

/// The `<build>` elements that are not plugins: its folders, `finalName`, `defaultGoal`,
/// resource folders and build extensions, into `into` (a profile's override the project's).
fn build_settings(
    b: roxmltree::Node,
    into: &mut BTreeMap<String, At<String>>,
    line: &dyn Fn(roxmltree::Node) -> u32,
) {
    const SCALARS: &[&str] = &[
        "sourceDirectory",
        "testSourceDirectory",
        "scriptSourceDirectory",
        "outputDirectory",
        "testOutputDirectory",
        "directory",
        "finalName",
        "defaultGoal",
    ];
    for name in SCALARS {
        if let Some(n) = child(b, name) {
            into.insert(
                (*name).to_string(),
                At {
                    value: own_text(n),
                    line: line(n),
                },
            );
        }
    }
    for (list, item) in [("resources", "resource"), ("testResources", "testResource")] {
        for (i, r) in children(child(b, list), item).enumerate() {
            for field in ["directory", "targetPath", "filtering"] {
                if let Some(n) = child(r, field) {
                    into.insert(
                        format!("{list}/{item}[{}]/{field}", i + 1),
                        At {
                            value: own_text(n),
                            line: line(n),
                        },
                    );
                }
            }
        }
    }
    for e in children(child(b, "extensions"), "extension") {
        into.insert(
            format!(
                "extension {}:{}",
                text(e, "groupId").unwrap_or_default(),
                text(e, "artifactId").unwrap_or_default()
            ),
            At {
                value: text(e, "version").unwrap_or_else(|| "(no version)".into()),
                line: line(e),
            },
        );
    }
}

fn text(n: roxmltree::Node, name: &str) -> Option<String> {
    child(n, name).map(own_text).filter(|t| !t.is_empty())
}

fn plugin_key(p: roxmltree::Node) -> String {
    format!(
        "{}:{}",
        text(p, "groupId").unwrap_or_else(|| "org.apache.maven.plugins".into()),
        text(p, "artifactId").unwrap_or_default()
    )
}

/// The plugins Maven binds to the default lifecycle of a packaging: configuration managed
/// for them applies even when `<plugins>` does not name them.
fn lifecycle_plugins(packaging: &str) -> &'static [&'static str] {
    match packaging {
        "pom" => &["maven-install-plugin", "maven-deploy-plugin"],
        "war" => &[
            "maven-resources-plugin",
            "maven-compiler-plugin",
            "maven-surefire-plugin",
            "maven-war-plugin",
            "maven-install-plugin",
            "maven-deploy-plugin",
        ],
        _ => &[
            "maven-resources-plugin",
            "maven-compiler-plugin",
            "maven-surefire-plugin",
            "maven-jar-plugin",
            "maven-install-plugin",
            "maven-deploy-plugin",
        ],
    }
}

/// Why a POM gives no model.
#[derive(Debug, thiserror::Error)]
pub enum PomError {
    /// Not XML judge-ci reads (malformed, a DTD, over a bound).
    #[error("not a readable POM: {0}")]
    Xml(#[source] crate::untrusted::XmlError),
    /// XML whose root is not `<project>`.
    #[error("not a POM: the root element is <{root}>")]
    NotAPom {
        /// The root element's name.
        root: String,
    },
    /// An element Maven reads once appears twice where it is: Maven refuses such a POM
    /// ("Duplicated tag"), so judge-ci never compares only the first of them (attack A14-1).
    #[error(
        "not a POM Maven reads: <{tag}> appears more than once in <{parent}> (line {line}); Maven refuses it with \"Duplicated tag\""
    )]
    DuplicatedTag {
        /// The repeated element.
        tag: String,
        /// The element it repeats in.
        parent: String,
        /// The line of its second appearance.
        line: u32,
    },
    /// An element of another XML namespace than the project's: Maven's reader knows no
    /// namespaces and reads `<x:dependencies>` as an unknown tag, which it skips, while a
    /// namespace-aware reader would see dependencies there (attack class A14-1).
    #[error(
        "not a POM as Maven reads it: <{tag}> (line {line}) is in the XML namespace {namespace}, which Maven does not read as a POM element"
    )]
    ForeignElement {
        /// The element's name.
        tag: String,
        /// Its namespace.
        namespace: String,
        /// Its line.
        line: u32,
    },
    /// The tree the POM is resolved in cannot be read.
    #[error("cannot read {}", .folder.display())]
    Tree {
        /// The tree's folder.
        folder: PathBuf,
    },
}

/// The POM elements whose children are a list (each child an item, repeated by design).
const LIST_ELEMENTS: &[&str] = &[
    "dependencies",
    "modules",
    "plugins",
    "executions",
    "goals",
    "profiles",
    "repositories",
    "pluginRepositories",
    "exclusions",
    "resources",
    "testResources",
    "includes",
    "excludes",
    "extensions",
    "developers",
    "contributors",
    "licenses",
    "mailingLists",
    "roles",
    "otherArchives",
    "notifiers",
    "reports",
    "reportSets",
    "filters",
    "reportPlugins",
];

/// The first element of the POM `root` that repeats where Maven's model reads one (its name,
/// its parent's, the second one): every element but a list's items, outside the free-form
/// `configuration` of plugins and the `properties` map, as Maven's strict reader refuses them.
fn duplicated_tag<'a, 'i>(
    root: roxmltree::Node<'a, 'i>,
) -> Option<(String, String, roxmltree::Node<'a, 'i>)> {
    let mut pending = vec![root];
    while let Some(n) = pending.pop() {
        let name = n.tag_name().name();
        if matches!(name, "configuration" | "properties") {
            continue;
        }
        let list = LIST_ELEMENTS.contains(&name);
        let mut seen = std::collections::HashSet::new();
        for c in n.children().filter(roxmltree::Node::is_element) {
            if !list && !seen.insert(c.tag_name().name()) {
                return Some((c.tag_name().name().to_string(), name.to_string(), c));
            }
            pending.push(c);
        }
    }
    None
}

/// The first element outside a plugin's free-form `configuration` whose XML namespace is not
/// the project element's.
fn foreign_element<'a, 'i>(root: roxmltree::Node<'a, 'i>) -> Option<roxmltree::Node<'a, 'i>> {
    let own = root.tag_name().namespace();
    let mut pending = vec![root];
    while let Some(n) = pending.pop() {
        if n.tag_name().namespace() != own {
            return Some(n);
        }
        if n.tag_name().name() == "configuration" {
            continue;
        }
        pending.extend(n.children().filter(roxmltree::Node::is_element));
    }
    None
}

impl Pom {
    /// Parses a POM on its own (no `.mvn/`, no folder). A DTD (and with it any entity) is
    /// refused.
    pub fn parse(xml: &str) -> Result<Pom, PomError> {
        Pom::parse_in(xml, &BuildContext::default())
    }

    /// Parses a POM as Maven reads it in `ctx`: the profiles it would activate merged in.
    pub fn parse_in(xml: &str, ctx: &BuildContext) -> Result<Pom, PomError> {
        let doc = crate::untrusted::parse_xml("the POM", xml, false).map_err(PomError::Xml)?;
        let root = doc.root_element();
        if root.tag_name().name() != "project" {
            return Err(PomError::NotAPom {
                root: root.tag_name().name().to_string(),
            });
        }
        let line = |n: roxmltree::Node| doc.text_pos_at(n.range().start).row;
        if let Some(n) = foreign_element(root) {
            return Err(PomError::ForeignElement {
                tag: n.tag_name().name().to_string(),
                namespace: n.tag_name().namespace().unwrap_or_default().to_string(),
                line: line(n),
            });
        }
        if let Some((tag, parent, at)) = duplicated_tag(root) {
            return Err(PomError::DuplicatedTag {
                tag,
                parent,
                line: line(at),
            });
        }
        let mut pom = Pom {
            packaging: text(root, "packaging").unwrap_or_else(|| "jar".into()),
            packaging_line: child(root, "packaging").map_or(0, line),
            user_properties: ctx.config.properties.clone(),
            ..Pom::default()
        };
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
        // The project, then the profiles Maven activates, in document order (a profile's
        // values override the project's).
        let profiles: Vec<roxmltree::Node> = children(child(root, "profiles"), "profile").collect();
        let states: Vec<effective_pom::Activation> = profiles
            .iter()
            .map(|p| effective_pom::activation(*p, ctx))
            .collect();
        let any_on = states.contains(&effective_pom::Activation::On);
        for (p, state) in profiles.iter().zip(&states) {
            let undecided = match state {
                effective_pom::Activation::Maybe => true,
                effective_pom::Activation::Default => !any_on,
                effective_pom::Activation::On | effective_pom::Activation::Off => false,
            };
            if undecided {
                pom.undecided_profiles.insert(
                    text(*p, "id").unwrap_or_default(),
                    At {
                        value: profile_text(*p),
                        line: line(*p),
                    },
                );
            }
        }
        let mut sections = vec![root];
        for i in effective_pom::merged(&states) {
            pom.profiles
                .push(text(profiles[i], "id").unwrap_or_else(|| format!("#{i}")));
            sections.push(profiles[i]);
        }
        for s in sections {
            for p in child(s, "properties")
                .into_iter()
                .flat_map(|ps| ps.children().filter(|c| c.is_element()))
            {
                pom.properties.insert(
                    p.tag_name().name().to_string(),
                    At {
                        value: own_text(p),
                        line: line(p),
                    },
                );
            }
            for (k, d) in deps_of(s) {
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
            if let Some(dm) = child(s, "dependencyManagement") {
                for (k, d) in deps_of(dm) {
                    if let Some(v) = text(d, "version") {
                        pom.managed.insert(k, v);
                    }
                }
            }
            for m in children(child(s, "modules"), "module") {
                pom.modules.insert(own_text(m), line(m));
            }
            let build = child(s, "build");
            if let Some(b) = build {
                build_settings(b, &mut pom.build, &line);
            }
            for (into, list) in [
                (&mut pom.plugins, build.and_then(|b| child(b, "plugins"))),
                (
                    &mut pom.managed_plugins,
                    build
                        .and_then(|b| child(b, "pluginManagement"))
                        .and_then(|m| child(m, "plugins")),
                ),
            ] {
                for p in children(list, "plugin") {
                    let own = Plugin {
                        version: text(p, "version"),
                        configuration: effective_pom::flatten_configuration(p),
                    };
                    let key = plugin_key(p);
                    // A profile's plugin merges into the project's declaration.
                    let merged = match into.get(&key) {
                        Some(base) => Plugin {
                            version: own.version.or_else(|| base.value.version.clone()),
                            configuration: effective_pom::overlay(
                                &base.value.configuration,
                                &own.configuration,
                            ),
                        },
                        None => own,
                    };
                    into.insert(
                        key,
                        At {
                            value: merged,
                            line: line(p),
                        },
                    );
                }
            }
        }
        Ok(pom)
    }

    /// Inherits from the parent (properties, managed versions and plugins, dependencies and
    /// plugins), applies plugin management, and resolves `${…}` (`.mvn/` properties first,
    /// then the POM's, then the parent's).
    pub fn resolve(&mut self, parent: Option<&Pom>) {
        let mut props: BTreeMap<String, String> = BTreeMap::new();
        if let Some(p) = parent {
            props.extend(
                p.properties
                    .iter()
                    .map(|(k, v)| (k.clone(), v.value.clone())),
            );
            // Inherited properties are part of this model (and of its children's).
            for (k, v) in &p.properties {
                self.properties.entry(k.clone()).or_insert_with(|| At {
                    value: v.value.clone(),
                    line: 0,
                });
            }
            for (k, v) in &p.managed {
                self.managed.entry(k.clone()).or_insert_with(|| v.clone());
            }
            for (k, d) in &p.dependencies {
                self.dependencies.entry(k.clone()).or_insert_with(|| At {
                    value: d.value.clone(),
                    line: 0,
                });
            }
            for (into, from) in [
                (&mut self.managed_plugins, &p.managed_plugins),
                (&mut self.plugins, &p.plugins),
            ] {
                for (k, pl) in from {
                    match into.get_mut(k) {
                        Some(own) => {
                            own.value.configuration = effective_pom::overlay(
                                &pl.value.configuration,
                                &own.value.configuration,
                            );
                            if own.value.version.is_none() {
                                own.value.version = pl.value.version.clone();
                            }
                        }
                        None => {
                            into.insert(
                                k.clone(),
                                At {
                                    value: pl.value.clone(),
                                    line: 0,
                                },
                            );
                        }
                    }
                }
            }
            if self.java.is_none()
                && let Some(j) = &p.java
            {
                self.java = Some(At {
                    value: j.value.clone(),
                    line: 0,
                });
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
        props.extend(self.user_properties.clone());
        let subst = |s: &str| expand(s, &props);
        // Coordinates are resolved too: a dependency or plugin spelled through a property
        // (`${absent.group}`) is the artifact Maven resolves, not the text.
        rekey(&mut self.dependencies, &props);
        rekey(&mut self.plugins, &props);
        rekey(&mut self.managed_plugins, &props);
        rekey(&mut self.managed, &props);
        if let Some(p) = &mut self.parent {
            p.value = subst(&p.value);
        }
        if let Some(p) = parent {
            for (k, v) in &p.build {
                self.build.entry(k.clone()).or_insert_with(|| At {
                    value: v.value.clone(),
                    line: 0,
                });
            }
        }
        for v in self.build.values_mut() {
            v.value = subst(&v.value);
        }
        // Plugin management: versions and configuration under each declared plugin, and the
        // packaging's lifecycle plugins that are managed but not declared.
        for (k, m) in &self.managed_plugins {
            match self.plugins.get_mut(k) {
                Some(own) => {
                    own.value.configuration =
                        effective_pom::overlay(&m.value.configuration, &own.value.configuration);
                    if own.value.version.is_none() {
                        own.value.version = m.value.version.clone();
                    }
                }
                None if k.starts_with("org.apache.maven.plugins:")
                    && lifecycle_plugins(&self.packaging)
                        .iter()
                        .any(|a| k.ends_with(&format!(":{a}"))) =>
                {
                    self.plugins.insert(k.clone(), m.clone());
                }
                None => {}
            }
        }
        for d in self.dependencies.values_mut() {
            d.value.version = d.value.version.as_deref().map(subst);
            d.value.scope = subst(&d.value.scope);
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
            p.value.version = p.value.version.as_deref().map(subst);
            for v in p.value.configuration.values_mut() {
                *v = subst(v);
            }
        }
        // The Java release: the compiler plugin's own setting wins over the properties it
        // defaults to.
        let compiler = self
            .plugins
            .get("org.apache.maven.plugins:maven-compiler-plugin")
            .and_then(|p| {
                let c = &p.value.configuration;
                c.get("release").or_else(|| c.get("source")).map(|v| At {
                    value: v.clone(),
                    line: p.line,
                })
            });
        let from_props = [
            "maven.compiler.release",
            "maven.compiler.source",
            "java.version",
        ]
        .iter()
        .find_map(|k| {
            props.get(*k).map(|v| At {
                value: subst(v),
                line: self.properties.get(*k).map_or(0, |p| p.line),
            })
        });
        if let Some(j) = compiler.or(from_props) {
            self.java = Some(j);
        } else if let Some(j) = &mut self.java {
            j.value = subst(&j.value);
        }
    }
}

/// Re-keys a map whose keys are coordinates with their `${…}` references expanded.
fn rekey<V>(m: &mut BTreeMap<String, V>, props: &BTreeMap<String, String>) {
    if m.keys().any(|k| k.contains("${")) {
        let old = std::mem::take(m);
        m.extend(old.into_iter().map(|(k, v)| (expand(&k, props), v)));
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

/// Most parents followed up a chain (a cycle stops there).
const MAX_PARENTS: usize = 10;

/// Every `pom.xml` of the folder `root` (outside `target/`, at most 8 MiB each), read and
/// resolved as Maven builds it, by path relative to `root`; a POM that cannot be read is
/// left out.
pub fn effective_poms(root: &Path) -> Vec<(String, Pom)> {
    let tree = Tree::Folder(root.to_path_buf());
    let config = MvnConfig::read(&tree);
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .max_depth(12)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let n = e.file_name().to_string_lossy();
            !(e.file_type().is_dir() && (n == ".git" || n == "target" || n == "node_modules"))
        })
        .flatten()
        .filter(|e| e.file_type().is_file() && e.file_name() == "pom.xml")
        .filter(|e| e.metadata().is_ok_and(|m| m.len() <= 8 * 1024 * 1024))
        .filter_map(|e| {
            let rel = e
                .path()
                .strip_prefix(root)
                .ok()?
                .to_string_lossy()
                .into_owned();
            let bytes = crate::untrusted::read(e.path(), 8 * 1024 * 1024).ok()?;
            let pom = load(&tree, &rel, &bytes, &config).ok()?;
            Some((rel, pom))
        })
        .collect()
}

/// Reads and resolves `rel` in `tree` as Maven builds it: `.mvn/` of the tree, active
/// profiles, and the chain of parents found in the tree (by `relativePath`, any file name).
fn load(tree: &Tree, rel: &str, bytes: &[u8], config: &MvnConfig) -> Result<Pom, PomError> {
    let ctx = |rel: &Path| BuildContext {
        config: config.clone(),
        dir: rel.parent().map(|d| (tree.clone(), d.to_path_buf())),
    };
    let pom = Pom::parse_in(&String::from_utf8_lossy(bytes), &ctx(Path::new(rel)))?;
    if tree.resolve(Path::new("")).is_none() {
        return Err(PomError::Tree {
            folder: tree.folder().to_path_buf(),
        });
    }
    // The chain of parents, child first.
    let mut parents: Vec<Pom> = Vec::new();
    let mut at = PathBuf::from(rel);
    while parents.len() < MAX_PARENTS {
        let Some(pp) = parents.last().unwrap_or(&pom).parent_path.clone() else {
            break;
        };
        let Some(found) = parent_in(tree, &at, &pp) else {
            break;
        };
        let Ok(bytes) = tree.read(&found) else {
            break;
        };
        let Ok(parent) = Pom::parse_in(&String::from_utf8_lossy(&bytes), &ctx(Path::new(&found)))
        else {
            break;
        };
        parents.push(parent);
        at = PathBuf::from(found);
    }
    let mut above: Option<Pom> = None;
    while let Some(mut p) = parents.pop() {
        p.resolve(above.as_ref());
        above = Some(p);
    }
    let mut pom = pom;
    pom.resolve(above.as_ref());
    Ok(pom)
}

/// The parent a POM at `at` names by `relative_path` (a file, or a folder holding
/// `pom.xml`), relative to the tree's root, never outside the tree.
fn parent_in(tree: &Tree, at: &Path, relative_path: &str) -> Option<String> {
    let p = at.parent().unwrap_or(Path::new("")).join(relative_path);
    match tree.resolve(&p)? {
        (dir, true) => match tree.resolve(&Path::new(&dir).join("pom.xml"))? {
            (file, false) => Some(file),
            (_, true) => None,
        },
        (file, false) => Some(file),
    }
}

/// `f` at `line`, unless the value came from a parent POM (line 0).
fn at(f: Finding, line: u32) -> Finding {
    f.at_known(line)
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
    // Profiles Maven may or may not activate on the build machine: as they are, whatever
    // the aspects (F7-1, F7-4).
    let ids: std::collections::BTreeSet<&String> = e
        .undecided_profiles
        .keys()
        .chain(a.undecided_profiles.keys())
        .collect();
    for id in ids {
        let (ep, ap) = (e.undecided_profiles.get(id), a.undecided_profiles.get(id));
        if ep.map(|p| &p.value) == ap.map(|p| &p.value) {
            continue;
        }
        let side = |p: Option<&At<String>>| match p {
            Some(_) => format!("<profile> {id}, which the build machine may activate"),
            None => format!("<profile> {id} absent, or certainly on or off"),
        };
        let mut f = at(
            Finding::new(rel, FindingKind::ProfileChanged),
            ap.map_or(0, |p| p.line),
        )
        .expected(side(ep))
        .actual(side(ap));
        if ep.is_some() && ap.is_some() {
            f = f.message(format!(
                "{rel}: profile {id} differs from the reference's, and judge-ci cannot tell whether Maven activates it where the build runs"
            ));
        }
        out.push(f);
    }
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
        let mut f = Finding::new(rel, FindingKind::ParentChanged);
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
                None => out.push(
                    Finding::new(rel, FindingKind::DependencyMissing).expected(show(&d.value)),
                ),
                Some(w) => {
                    if !ignore_versions && w.value.version != d.value.version {
                        out.push(
                            at(
                                Finding::new(rel, FindingKind::DependencyVersionChanged),
                                w.line,
                            )
                            .expected(show(&d.value))
                            .actual(show(&w.value)),
                        );
                    }
                    if w.value.scope != d.value.scope {
                        out.push(
                            at(
                                Finding::new(rel, FindingKind::DependencyScopeChanged),
                                w.line,
                            )
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
                at(Finding::new(rel, FindingKind::DependencyUnexpected), w.line).actual(format!(
                    "{k}:{} ({})",
                    w.value.version.as_deref().unwrap_or("?"),
                    w.value.scope
                )),
            );
        }
    }
    if has(PomAspect::Plugins) {
        let show =
            |k: &str, v: &Plugin| format!("{k}:{}", v.version.as_deref().unwrap_or("(default)"));
        for (k, p) in &e.plugins {
            match a.plugins.get(k) {
                None => out.push(
                    Finding::new(rel, FindingKind::PluginMissing).expected(show(k, &p.value)),
                ),
                Some(w) => {
                    if !ignore_versions && w.value.version != p.value.version {
                        out.push(
                            at(Finding::new(rel, FindingKind::PluginVersionChanged), w.line)
                                .expected(show(k, &p.value))
                                .actual(show(k, &w.value)),
                        );
                    }
                    let (ec, ac) = (&p.value.configuration, &w.value.configuration);
                    let keys: std::collections::BTreeSet<&String> =
                        ec.keys().chain(ac.keys()).collect();
                    for key in keys.into_iter().filter(|x| ec.get(*x) != ac.get(*x)) {
                        let side = |v: Option<&String>| match v {
                            Some(v) => format!("{k} {key} = {v}"),
                            None => format!("{k} {key} (unset)"),
                        };
                        out.push(
                            at(
                                Finding::new(rel, FindingKind::PluginConfigurationChanged),
                                w.line,
                            )
                            .expected(side(ec.get(key)))
                            .actual(side(ac.get(key))),
                        );
                    }
                }
            }
        }
        for (k, w) in a
            .plugins
            .iter()
            .filter(|(k, _)| !e.plugins.contains_key(*k))
        {
            out.push(
                at(Finding::new(rel, FindingKind::PluginUnexpected), w.line)
                    .actual(show(k, &w.value)),
            );
        }
    }
    if has(PomAspect::Plugins) {
        // `<build>` as Maven builds it: folders (a test source folder pointed at an empty
        // one runs no test), resources and build extensions.
        let keys: std::collections::BTreeSet<&String> =
            e.build.keys().chain(a.build.keys()).collect();
        for k in keys {
            let (ev, av) = (e.build.get(k), a.build.get(k));
            if ev.map(|v| &v.value) == av.map(|v| &v.value) {
                continue;
            }
            let side = |v: Option<&At<String>>| match v {
                Some(v) => format!("<build> {k} = {}", v.value),
                None => format!("<build> {k} (unset)"),
            };
            out.push(
                at(
                    Finding::new(rel, FindingKind::BuildSettingChanged),
                    av.map_or(0, |v| v.line),
                )
                .expected(side(ev))
                .actual(side(av)),
            );
        }
    }
    if has(PomAspect::Plugins) {
        // What Maven builds: the packaging (`pom` builds none of the project's sources) and
        // the modules it names (attack FI6).
        if e.packaging != a.packaging {
            out.push(
                at(
                    Finding::new(rel, FindingKind::BuildSettingChanged),
                    a.packaging_line,
                )
                .expected(format!("<packaging> {}", e.packaging))
                .actual(format!("<packaging> {}", a.packaging)),
            );
        }
        let names: std::collections::BTreeSet<&String> =
            e.modules.keys().chain(a.modules.keys()).collect();
        for m in names {
            let side = |p: &Pom| {
                if p.modules.contains_key(m) {
                    format!("<module> {m}")
                } else {
                    format!("<module> {m} (not named)")
                }
            };
            if e.modules.contains_key(m) != a.modules.contains_key(m) {
                out.push(
                    at(
                        Finding::new(rel, FindingKind::BuildSettingChanged),
                        a.modules.get(m).copied().unwrap_or(0),
                    )
                    .expected(side(e))
                    .actual(side(a)),
                );
            }
        }
    }
    if has(PomAspect::Properties) {
        for (k, p) in &e.properties {
            match a.properties.get(k) {
                None => out.push(
                    Finding::new(rel, FindingKind::PropertyMissing)
                        .expected(format!("{k} = {}", p.value)),
                ),
                Some(w) if w.value != p.value && !(ignore_versions && k.ends_with("version")) => {
                    out.push(
                        at(Finding::new(rel, FindingKind::PropertyChanged), w.line)
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
                at(Finding::new(rel, FindingKind::PropertyUnexpected), w.line)
                    .actual(format!("{k} = {}", w.value)),
            );
        }
    }
    if has(PomAspect::JavaVersion)
        && e.java.as_ref().map(|j| &j.value) != a.java.as_ref().map(|j| &j.value)
    {
        let mut f = Finding::new(rel, FindingKind::JavaVersionChanged).expected(
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

/// The files `pom-diff` compares: every `pom.xml` outside `target/`.
pub fn pom_files() -> FileSet {
    FileSet {
        include: vec!["pom.xml".into(), "**/pom.xml".into()],
        exclude: vec!["target/**".into(), "**/target/**".into()],
    }
}

/// The parents `pom-diff` reads for the POM `rel` of `root` (by `relativePath`, any file name,
/// never outside `root`), relative to `root`, child's parent first.
pub fn parent_files(root: &Path, rel: &str) -> Vec<String> {
    let tree = Tree::Folder(root.to_path_buf());
    let ctx = BuildContext {
        config: MvnConfig::default(),
        dir: None,
    };
    let mut out = Vec::new();
    let mut at = rel.to_string();
    while out.len() < MAX_PARENTS {
        let Ok(bytes) = tree.read(&at) else {
            break;
        };
        let Some(pp) = Pom::parse_in(&String::from_utf8_lossy(&bytes), &ctx)
            .ok()
            .and_then(|p| p.parent_path)
        else {
            break;
        };
        let Some(found) = parent_in(&tree, Path::new(&at), &pp) else {
            break;
        };
        if out.contains(&found) {
            break;
        }
        out.push(found.clone());
        at = found;
    }
    out
}

/// Why the reference's POM gives no effective model.
#[derive(Debug)]
enum ReferenceProblem {
    /// Its bytes cannot be read.
    Unreadable(super::super::paths::FileError),
    /// It cannot be parsed or resolved.
    Unresolved(PomError),
}

/// The reference's effective POMs of one run ([`Comparisons`] keeps one per reference
/// folder): its `.mvn/` settings read once, each POM resolved once, whatever number of
/// workspaces is compared with it.
#[derive(Debug, Default)]
pub(super) struct ReferencePoms {
    config: OnceLock<MvnConfig>,
    poms: Mutex<HashMap<String, Arc<Result<Pom, ReferenceProblem>>>>,
}

impl ReferencePoms {
    /// The effective model of the reference's POM `rel` in `tree`, resolved on first use.
    fn pom(&self, tree: &Tree, rel: &str) -> Arc<Result<Pom, ReferenceProblem>> {
        if let Some(p) = self.lock().get(rel) {
            return Arc::clone(p);
        }
        let config = self.config.get_or_init(|| MvnConfig::read(tree));
        let made = Arc::new(
            tree.read(rel)
                .map_err(ReferenceProblem::Unreadable)
                .and_then(|bytes| {
                    load(tree, rel, &bytes, config).map_err(ReferenceProblem::Unresolved)
                }),
        );
        Arc::clone(self.lock().entry(rel.to_string()).or_insert(made))
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Result<Pom, ReferenceProblem>>>> {
        self.poms.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Runs the judge over every `pom.xml` of the reference.
pub fn pom_diff(
    comparisons: &Comparisons,
    workspace: &Path,
    reference: &Path,
    aspects: &[PomAspect],
    ignore_versions: bool,
) -> Outcome {
    let listing = match list(comparisons, workspace, reference, &pom_files()) {
        Ok(l) => l,
        Err(e) => return instrument(e.to_string()),
    };
    if let Some(na) = super::nothing_examined("pom-diff", &listing, &pom_files(), true) {
        return na;
    }
    let mut findings: Vec<Finding> = listing.not_regular_findings().collect();
    let mut matched = 0;
    // Identical bytes are no proof of an identical build: a parent elsewhere in the tree or
    // `.mvn/` may differ, so every workspace POM is read and resolved (POMs are few and
    // small). The reference's are resolved once per run (it does not change).
    let ws_tree = Tree::Folder(workspace.to_path_buf());
    let rf_tree = listing.reference_tree();
    let reference_poms = comparisons.reference_poms(reference);
    let ws_config = MvnConfig::read(&ws_tree);
    for rel in &listing.both {
        let w = match ws_tree.read(rel) {
            Ok(w) => w,
            Err(why) => {
                findings.push(
                    Finding::new(rel.as_str(), FindingKind::FileUnreadable)
                        .actual(format!("workspace: {why}")),
                );
                continue;
            }
        };
        let expected = reference_poms.pom(rf_tree, rel);
        let expected = match expected.as_ref() {
            Ok(p) => p,
            Err(ReferenceProblem::Unreadable(why)) => {
                findings.push(
                    Finding::new(rel.as_str(), FindingKind::FileUnreadable)
                        .actual(format!("reference: {why}")),
                );
                continue;
            }
            Err(ReferenceProblem::Unresolved(e)) => {
                return instrument(format!("the reference's {rel} cannot be read: {e}"));
            }
        };
        match load(&ws_tree, rel, &w, &ws_config) {
            Ok(actual) => {
                let f = diff_poms(rel, expected, &actual, aspects, ignore_versions);
                if f.is_empty() {
                    matched += 1;
                }
                findings.extend(f);
            }
            Err(e) => findings
                .push(Finding::new(rel.as_str(), FindingKind::PomUnreadable).actual(e.to_string())),
        }
    }
    findings.extend(
        listing
            .only_reference
            .iter()
            .map(|rel| Finding::new(rel.as_str(), FindingKind::FileMissing).expected(rel.as_str())),
    );
    // A POM only the workspace has is compared with nothing, yet Maven builds it when a POM
    // names it as a module (attack FI6): a difference of its own, never read silently.
    findings.extend(listing.only_workspace.iter().map(|rel| {
        Finding::new(rel.as_str(), FindingKind::FileUnexpected)
            .actual(rel.as_str())
            .message(format!(
                "{rel} is a POM the reference does not have: Maven builds it as a module where a POM names it, and nothing compared it"
            ))
    }));
    let total = listing.both.len() + listing.only_reference.len() + listing.only_workspace.len();
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
    #[test]
    fn a_pom_with_a_tag_maven_reads_once_repeated_is_not_read() {
        // A14-1: a second <dependencies> (or a second <groupId> in one dependency) that only
        // the first of was compared; Maven refuses both POMs.
        let deps = "<dependencies><dependency><groupId>jakarta.servlet</groupId><artifactId>a</artifactId></dependency></dependencies>";
        let twice = format!(
            "<project>\n{deps}\n<dependencies><dependency><groupId>javax.servlet</groupId><artifactId>a</artifactId></dependency></dependencies></project>"
        );
        let e = Pom::parse(&twice).unwrap_err().to_string();
        assert!(
            e.contains("<dependencies> appears more than once in <project> (line 3)"),
            "{e}"
        );
        let inner = "<project><dependencies><dependency><groupId>jakarta.servlet</groupId><groupId>javax.servlet</groupId><artifactId>a</artifactId></dependency></dependencies></project>";
        let e = Pom::parse(inner).unwrap_err().to_string();
        assert!(
            e.contains("<groupId> appears more than once in <dependency>"),
            "{e}"
        );
        // Lists repeat their items, and a plugin's configuration is free-form.
        let fine = "<project><modules><module>a</module><module>b</module></modules><build><plugins><plugin><artifactId>p</artifactId><configuration><arg>x</arg><arg>y</arg></configuration><executions><execution><goals><goal>a</goal><goal>b</goal></goals></execution><execution/></executions></plugin></plugins></build></project>";
        assert!(Pom::parse(fine).is_ok());
        // An element of another namespace, which Maven skips as an unknown tag.
        let foreign = "<project xmlns=\"http://maven.apache.org/POM/4.0.0\" xmlns:x=\"urn:x\"><x:dependencies><x:dependency><x:groupId>jakarta.servlet</x:groupId></x:dependency></x:dependencies></project>";
        let e = Pom::parse(foreign).unwrap_err().to_string();
        assert!(
            e.contains("<dependencies> (line 1) is in the XML namespace urn:x"),
            "{e}"
        );
        let own = "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><dependencies/><build><plugins><plugin><configuration><y:a xmlns:y=\"urn:y\"/></configuration></plugin></plugins></build></project>";
        assert!(Pom::parse(own).is_ok());
    }

    use super::*;

    #[test]
    fn a_dependency_of_another_type_is_another_artifact() {
        // Attack finding F1: `<type>pom</type>` puts no jar on the class path, yet pom-diff
        // said the POMs match.
        let dep = |extra: &str| {
            format!(
                "<project><dependencies><dependency><groupId>jakarta.servlet</groupId><artifactId>jakarta.servlet-api</artifactId><version>5.0.0</version>{extra}</dependency></dependencies></project>"
            )
        };
        let keys = |xml: &str| {
            Pom::parse(xml)
                .unwrap()
                .dependencies
                .keys()
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!(keys(&dep("")), ["jakarta.servlet:jakarta.servlet-api"]);
        assert_eq!(
            keys(&dep("<type>jar</type>")),
            ["jakarta.servlet:jakarta.servlet-api"]
        );
        assert_eq!(
            keys(&dep("<type>pom</type>")),
            ["jakarta.servlet:jakarta.servlet-api:pom"]
        );
        assert_eq!(
            keys(&dep("<type>test-jar</type><classifier>tests</classifier>")),
            ["jakarta.servlet:jakarta.servlet-api:test-jar:tests"]
        );
    }

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
        let mut r = Pom::parse(r#"<project><properties><maven.compiler.release>17</maven.compiler.release></properties><dependencies><dependency><groupId>jakarta.servlet</groupId><artifactId>jakarta.servlet-api</artifactId><version>5.0.0</version><scope>provided</scope></dependency></dependencies></project>"#).unwrap();
        let mut w = Pom::parse("<project>\n<properties><maven.compiler.release>11</maven.compiler.release></properties>\n<dependencies>\n<dependency><groupId>javax.servlet</groupId><artifactId>javax.servlet-api</artifactId><version>4.0.1</version></dependency>\n</dependencies></project>").unwrap();
        r.resolve(None);
        w.resolve(None);
        let all = [
            PomAspect::Parent,
            PomAspect::Dependencies,
            PomAspect::Plugins,
            PomAspect::Properties,
            PomAspect::JavaVersion,
        ];
        let f = diff_poms("pom.xml", &r, &w, &all, false);
        let kinds: Vec<&str> = f.iter().map(|x| x.kind.token()).collect();
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
        assert!(matches!(
            Pom::parse(billion_laughs),
            Err(PomError::Xml(
                crate::untrusted::XmlError::NotWellFormed { .. }
            ))
        ));
        let e = Pom::parse("<html/>").unwrap_err();
        assert!(
            matches!(&e, PomError::NotAPom { root } if root == "html"),
            "{e}"
        );
        assert_eq!(e.to_string(), "not a POM: the root element is <html>");
        let mut cyclic = Pom::parse("<project><properties><a>${b}</a><b>${a}</b></properties><dependencies><dependency><groupId>x</groupId><artifactId>y</artifactId><version>${a}</version></dependency></dependencies></project>").unwrap();
        cyclic.resolve(None);
        assert!(cyclic.dependencies["x:y"].value.version.is_some());
    }

    /// One run's comparisons judging several workspaces against one reference (`judge-ci
    /// prove`'s variants): the reference's POMs are resolved once and kept, and each
    /// workspace is still judged on its own POM and its own `.mvn/` settings.
    #[test]
    fn the_reference_is_resolved_once_per_run_and_each_workspace_on_its_own() {
        let pom = |dep: &str| {
            format!(
                "<project><groupId>g</groupId><artifactId>a</artifactId><version>1</version><properties><dep.version>5</dep.version></properties><dependencies><dependency><groupId>{dep}</groupId><artifactId>api</artifactId><version>${{dep.version}}</version></dependency></dependencies></project>"
            )
        };
        let root = tempfile::tempdir().unwrap();
        let reference = root.path().join("reference");
        std::fs::create_dir_all(&reference).unwrap();
        std::fs::write(reference.join("pom.xml"), pom("jakarta")).unwrap();
        let same = root.path().join("same");
        let changed = root.path().join("changed");
        let switched = root.path().join("switched");
        for (dir, dep) in [
            (&same, "jakarta"),
            (&changed, "javax"),
            (&switched, "jakarta"),
        ] {
            std::fs::create_dir_all(dir.join(".mvn")).unwrap();
            std::fs::write(dir.join("pom.xml"), pom(dep)).unwrap();
        }
        // Another version through `.mvn/maven.config`, in one workspace only.
        std::fs::write(switched.join(".mvn/maven.config"), "-Ddep.version=6\n").unwrap();
        let c = Comparisons::new(Arc::default(), None);
        let all = [PomAspect::Dependencies, PomAspect::Properties];
        let statuses = |c: &Comparisons| {
            [&same, &changed, &switched, &same].map(|ws| {
                let j = pom_diff(c, ws, &reference, &all, false).unwrap();
                (j.status(), j.findings().len())
            })
        };
        let first = statuses(&c);
        assert_eq!(first[0], (crate::judgment::Status::Pass, 0));
        assert_eq!(first[1].0, crate::judgment::Status::Fail);
        assert_eq!(first[2].0, crate::judgment::Status::Fail, "{first:?}");
        assert_eq!(first[3], first[0]);
        assert_eq!(c.reference_poms(&reference).lock().len(), 1);
        // Fresh comparisons for each workspace decide the same.
        let fresh: Vec<_> = [&same, &changed, &switched]
            .iter()
            .map(|ws| {
                let j = pom_diff(
                    &Comparisons::new(Arc::default(), None),
                    ws,
                    &reference,
                    &all,
                    false,
                )
                .unwrap();
                (j.status(), j.findings().len())
            })
            .collect();
        assert_eq!(fresh, first[..3]);
    }

    /// The effective POM of the issue-17 attack, checked by hand against what
    /// `mvn -o test` builds (tests/it/compiler_view.rs proves Maven puts the javax jar on the
    /// class path): the default profile's dependency, spelled with character references, is in.
    #[test]
    fn default_profiles_and_character_references_are_read_as_maven_does() {
        let xml = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/attacks/unicode-escape/pom.xml"
        ))
        .unwrap();
        let mut pom = Pom::parse(&xml).unwrap();
        pom.resolve(None);
        assert_eq!(pom.profiles, ["compat"]);
        let dep = &pom.dependencies["javax.servlet:javax.servlet-api"];
        assert_eq!(dep.value.version.as_deref(), Some("4.0.1"));
        assert_eq!(dep.value.scope, "provided");
        assert_eq!(dep.line, 36);
        // `-P !compat` in .mvn/maven.config switches it off, as for Maven.
        let ctx = BuildContext {
            config: MvnConfig::parse("-P !compat", ""),
            dir: None,
        };
        let off = Pom::parse_in(&xml, &ctx).unwrap();
        assert!(off.profiles.is_empty());
        assert!(
            !off.dependencies
                .contains_key("javax.servlet:javax.servlet-api")
        );
        // A comment inside a value does not cut it short.
        let split = Pom::parse("<project><dependencies><dependency><groupId>jav<!-- x -->ax.servlet</groupId><artifactId>a</artifactId></dependency></dependencies></project>").unwrap();
        assert!(
            split.dependencies.contains_key("javax.servlet:a"),
            "{:?}",
            split.dependencies
        );
    }

    /// Attack findings F7-1, F7-4: the workspace's POM sets the reference's version in the
    /// project, a JDK-activated profile (active on the build machine) sets another and a
    /// Shift_JIS source encoding, and an `activeByDefault` decoy after it sets the reference's
    /// back. Merged in document order the model matched the reference; Maven activates the
    /// JDK profile and, another being active, drops the decoy. Now each profile the build
    /// machine decides is compared as it is; the same profile on both sides is no finding.
    #[test]
    fn a_profile_the_build_machine_decides_is_compared_as_it_is() {
        let dep = |v: &str| {
            format!(
                "<dependencies><dependency><groupId>g</groupId><artifactId>a</artifactId><version>{v}</version></dependency></dependencies>"
            )
        };
        let jdk = format!(
            "<profile><id>jdk</id><activation><jdk>[17,)</jdk></activation><properties><project.build.sourceEncoding>Shift_JIS</project.build.sourceEncoding></properties>{}</profile>",
            dep("6.0.0")
        );
        let decoy = format!(
            "<profile><id>decoy</id><activation><activeByDefault>true</activeByDefault></activation>{}</profile>",
            dep("5.0.0")
        );
        let reference = format!("<project>{}</project>", dep("5.0.0"));
        let attack = format!(
            "<project>{}<profiles>\n{jdk}\n{decoy}</profiles></project>",
            dep("5.0.0")
        );
        let all = [
            PomAspect::Parent,
            PomAspect::Dependencies,
            PomAspect::Plugins,
            PomAspect::Properties,
            PomAspect::JavaVersion,
        ];
        let read = |x: &str| {
            let mut p = Pom::parse(x).unwrap();
            p.resolve(None);
            p
        };
        let (r, w) = (read(&reference), read(&attack));
        let f = diff_poms("pom.xml", &r, &w, &[PomAspect::Dependencies], false);
        let found: Vec<(&str, String)> = f
            .iter()
            .map(|x| (x.kind.token(), x.actual.clone().unwrap_or_default()))
            .collect();
        for id in ["decoy", "jdk"] {
            assert!(
                found
                    .iter()
                    .any(|(k, a)| *k == "profile-changed" && a.contains(id)),
                "{id}: {found:?}"
            );
        }
        // The same undecided profiles on both sides: nothing differs.
        let same = read(&attack);
        assert!(diff_poms("pom.xml", &same, &w, &all, false).is_empty());
        // A layout or comment change inside a profile is not a difference; a value is.
        let relaid = attack.replace("<id>jdk</id>", "<!-- c -->\n  <id>jdk</id>\n");
        assert!(diff_poms("pom.xml", &w, &read(&relaid), &all, false).is_empty());
        let changed = attack.replace("Shift_JIS", "UTF-8");
        assert_eq!(
            diff_poms("pom.xml", &w, &read(&changed), &all, false)
                .iter()
                .map(|x| x.kind.token())
                .collect::<Vec<_>>(),
            ["profile-changed", "property-changed"]
        );
        // A profile `.mvn/` switches on decides the default away: compared merged, as before.
        let ctx = BuildContext {
            config: MvnConfig::parse("-P jdk", ""),
            dir: None,
        };
        let on = Pom::parse_in(&attack, &ctx).unwrap();
        assert!(
            on.undecided_profiles.is_empty(),
            "{:?}",
            on.undecided_profiles
        );
    }

    /// Hand-written expectations of `mvn help:effective-pom` (the help plugin is not packaged
    /// for offline use): parent chain under any file name, pluginManagement applied to
    /// declared and lifecycle plugins, `.mvn/maven.config` properties overriding the POM's.
    #[test]
    fn parents_plugin_management_and_mvn_config_make_the_effective_model() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::create_dir_all(root.join("app")).unwrap();
        std::fs::write(
            root.join("build/base.xml"),
            r#"<project><groupId>g</groupId><artifactId>base</artifactId><version>1</version>
<properties><servlet.version>5.0.0</servlet.version><skip.it>false</skip.it></properties>
<dependencies><dependency><groupId>javax.servlet</groupId><artifactId>javax.servlet-api</artifactId><version>4.0.1</version></dependency></dependencies>
<build><pluginManagement><plugins>
  <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.0.0</version><configuration><skipTests>${skip.it}</skipTests></configuration></plugin>
  <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.11.0</version><configuration><release>11</release><compilerArgs><arg>-Xlint</arg></compilerArgs></configuration></plugin>
  <plugin><groupId>x</groupId><artifactId>unused-plugin</artifactId><version>9</version></plugin>
</plugins></pluginManagement></build></project>"#,
        )
        .unwrap();
        std::fs::write(
            root.join("pom.xml"),
            r#"<project><parent><groupId>g</groupId><artifactId>base</artifactId><version>1</version><relativePath>build/base.xml</relativePath></parent>
<artifactId>top</artifactId>
<build><plugins><plugin><artifactId>maven-compiler-plugin</artifactId><configuration><release>17</release></configuration></plugin></plugins></build></project>"#,
        )
        .unwrap();
        let app = r#"<project><parent><groupId>g</groupId><artifactId>top</artifactId><version>1</version></parent>
<artifactId>app</artifactId>
<dependencies><dependency><groupId>jakarta.servlet</groupId><artifactId>jakarta.servlet-api</artifactId><version>${servlet.version}</version></dependency></dependencies></project>"#;
        std::fs::write(root.join("app/pom.xml"), app).unwrap();
        std::fs::create_dir_all(root.join(".mvn")).unwrap();
        std::fs::write(root.join(".mvn/maven.config"), "-Dskip.it=true\n").unwrap();

        let tree = Tree::Folder(root.to_path_buf());
        let pom = load(
            &tree,
            "app/pom.xml",
            app.as_bytes(),
            &MvnConfig::read(&tree),
        )
        .unwrap();
        // Inherited from the grandparent, whose file is not called pom.xml.
        let javax = &pom.dependencies["javax.servlet:javax.servlet-api"];
        assert_eq!(
            (javax.value.version.as_deref(), javax.line),
            (Some("4.0.1"), 0)
        );
        assert_eq!(
            pom.dependencies["jakarta.servlet:jakarta.servlet-api"]
                .value
                .version
                .as_deref(),
            Some("5.0.0")
        );
        // surefire is not declared, but jar packaging runs it with the managed configuration,
        // where .mvn/maven.config's -Dskip.it=true wins over the POM's property.
        let surefire = &pom.plugins["org.apache.maven.plugins:maven-surefire-plugin"].value;
        assert_eq!(surefire.version.as_deref(), Some("3.0.0"));
        assert_eq!(surefire.configuration["skipTests"], "true");
        // The compiler: the parent's release overrides the managed one, the managed
        // compilerArgs stay, the version comes from management.
        let compiler = &pom.plugins["org.apache.maven.plugins:maven-compiler-plugin"].value;
        assert_eq!(compiler.version.as_deref(), Some("3.11.0"));
        assert_eq!(compiler.configuration["release"], "17");
        assert_eq!(compiler.configuration["compilerArgs/arg"], "-Xlint");
        assert_eq!(pom.java.as_ref().map(|j| j.value.as_str()), Some("17"));
        assert!(!pom.plugins.contains_key("x:unused-plugin"));

        // What pom-diff then says when only the workspace's .mvn/ skips the tests.
        let reference = load(&tree, "app/pom.xml", app.as_bytes(), &MvnConfig::default()).unwrap();
        let f = diff_poms(
            "app/pom.xml",
            &reference,
            &pom,
            &[PomAspect::Plugins],
            false,
        );
        let shown: Vec<String> = f
            .iter()
            .map(|x| format!("{} {:?} {:?}", x.kind, x.expected, x.actual))
            .collect();
        assert_eq!(
            shown,
            [
                r#"plugin-configuration-changed Some("org.apache.maven.plugins:maven-surefire-plugin skipTests = false") Some("org.apache.maven.plugins:maven-surefire-plugin skipTests = true")"#
            ]
        );
    }
}
