//! What Maven adds to a POM before it builds (trust.md point 14): the settings of `.mvn/`
//! (`-D` properties and `-P` profiles of `maven.config`, `-D` system properties of
//! `jvm.config`), which profiles are active, and plugin configuration flattened to
//! comparable entries.
//!
//! Profiles: a judge cannot always know what the build machine will decide (the JDK, the OS,
//! environment variables), so a profile is merged into the model unless it is certainly
//! inactive. `activeByDefault` profiles are active unless another profile of the POM is
//! certainly active, as Maven does; a condition that cannot be decided counts as "maybe",
//! and a "maybe" profile is merged (both trees are read the same way, so an honest POM whose
//! profiles match the reference's shows no difference).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::tree::Tree;

/// What `.mvn/maven.config` and `.mvn/jvm.config` set for every build of a tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MvnConfig {
    /// `-Dname=value` of both files (a bare `-Dname` is `true`).
    pub properties: BTreeMap<String, String>,
    /// Profiles switched on with `-P`.
    pub profiles_on: Vec<String>,
    /// Profiles switched off with `-P !id` or `-P -id`.
    pub profiles_off: Vec<String>,
}

impl MvnConfig {
    /// Reads `.mvn/` at the root of `tree` (missing files are empty).
    pub fn read(tree: &Tree) -> MvnConfig {
        let read = |name: &str| {
            tree.read(&format!(".mvn/{name}"))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default()
        };
        MvnConfig::parse(&read("maven.config"), &read("jvm.config"))
    }

    /// Parses the two files' text.
    pub fn parse(maven_config: &str, jvm_config: &str) -> MvnConfig {
        let mut c = MvnConfig::default();
        for text in [maven_config, jvm_config] {
            let mut words = text.split_whitespace().peekable();
            while let Some(w) = words.next() {
                let value = |prefixes: &[&str], words: &mut std::iter::Peekable<_>| {
                    for p in prefixes {
                        if let Some(rest) = w.strip_prefix(p) {
                            let rest = rest.strip_prefix('=').unwrap_or(rest);
                            return Some(if rest.is_empty() {
                                words.next().map(str::to_string).unwrap_or_default()
                            } else {
                                rest.to_string()
                            });
                        }
                    }
                    None
                };
                if let Some(d) = value(&["--define", "-D"], &mut words) {
                    let (k, v) = d.split_once('=').unwrap_or((d.as_str(), "true"));
                    c.properties.insert(k.to_string(), v.to_string());
                } else if let Some(p) = value(&["--activate-profiles", "-P"], &mut words) {
                    for id in p.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                        match id.strip_prefix('!').or_else(|| id.strip_prefix('-')) {
                            Some(off) => c.profiles_off.push(off.to_string()),
                            None => c.profiles_on.push(id.trim_start_matches('+').to_string()),
                        }
                    }
                }
            }
        }
        c
    }
}

/// Where a POM is built: the settings of `.mvn/` and the project folder (for `file`
/// activation).
#[derive(Clone, Debug, Default)]
pub struct BuildContext {
    /// `.mvn/` settings of the tree.
    pub config: MvnConfig,
    /// The tree, and the folder in it (relative to its root) holding the POM, when the POM
    /// is read from a tree.
    pub dir: Option<(Tree, PathBuf)>,
}

/// Whether a profile is part of the build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// Certainly active (switched on, or every condition holds).
    On,
    /// Cannot be decided here (a JDK, OS or environment condition): merged.
    Maybe,
    /// `activeByDefault`: active unless another profile is certainly active.
    Default,
    /// Certainly inactive.
    Off,
}

fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    n.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// An element's text as Maven reads it: every text and CDATA piece of its own (comments and
/// processing instructions between them do not split the value), trimmed.
pub fn own_text(n: roxmltree::Node) -> String {
    n.children()
        .filter(|c| c.is_text())
        .filter_map(|c| c.text())
        .collect::<String>()
        .trim()
        .to_string()
}

/// The activation of one `<profile>` in `ctx`.
pub fn activation(profile: roxmltree::Node, ctx: &BuildContext) -> Activation {
    let id = child(profile, "id").map(own_text).unwrap_or_default();
    if ctx.config.profiles_off.contains(&id) {
        return Activation::Off;
    }
    if ctx.config.profiles_on.contains(&id) {
        return Activation::On;
    }
    let Some(act) = child(profile, "activation") else {
        return Activation::Off;
    };
    let by_default = child(act, "activeByDefault").is_some_and(|d| own_text(d) == "true");
    // Conditions are ANDed (Maven 3.2.2 and later).
    let mut conditions = Vec::new();
    for c in act.children().filter(|c| c.is_element()) {
        match c.tag_name().name() {
            "activeByDefault" => {}
            "property" => conditions.push(property(c, &ctx.config)),
            "file" => conditions.push(file(c, ctx.dir.as_ref())),
            // jdk, os, packaging and what later Mavens add depend on the build machine.
            _ => conditions.push(Activation::Maybe),
        }
    }
    let combined = if conditions.is_empty() || conditions.contains(&Activation::Off) {
        Activation::Off
    } else if conditions.iter().all(|c| *c == Activation::On) {
        Activation::On
    } else {
        Activation::Maybe
    };
    match combined {
        Activation::Off | Activation::Default if by_default => Activation::Default,
        other => other,
    }
}

/// `<property><name>[!]n</name><value>[!]v</value></property>`: decided when `.mvn/` sets the
/// property or when nothing could (a system property or the command line might).
fn property(c: roxmltree::Node, config: &MvnConfig) -> Activation {
    let name = child(c, "name").map(own_text).unwrap_or_default();
    let (negated, name) = match name.strip_prefix('!') {
        Some(n) => (true, n.trim().to_string()),
        None => (false, name),
    };
    let Some(set) = config.properties.get(&name) else {
        // judge-ci and the workflow may pass -D flags, and the JVM has its system properties.
        return Activation::Maybe;
    };
    let holds = match child(c, "value").map(own_text) {
        None => !negated,
        Some(v) => match v.strip_prefix('!') {
            Some(not) => set != not,
            None => *set == v,
        },
    };
    if holds {
        Activation::On
    } else {
        Activation::Off
    }
}

/// `<file><exists>` / `<missing>`, decided in the tree for plain paths outside `target/`.
fn file(c: roxmltree::Node, dir: Option<&(Tree, PathBuf)>) -> Activation {
    let (path, want) = match (child(c, "exists"), child(c, "missing")) {
        (Some(e), _) => (own_text(e), true),
        (None, Some(m)) => (own_text(m), false),
        (None, None) => return Activation::Maybe,
    };
    let path = path
        .replace("${project.basedir}", "")
        .replace("${basedir}", "");
    let path = path.trim_start_matches('/');
    let Some((tree, dir)) = dir else {
        return Activation::Maybe;
    };
    if path.contains("${") || path.starts_with("target") || path.contains("..") || path.is_empty() {
        return Activation::Maybe;
    }
    let exists = tree.exists(&dir.join(path));
    if exists == want {
        Activation::On
    } else {
        Activation::Off
    }
}

/// Which of `profiles` (in document order) Maven merges, by index.
pub fn merged(states: &[Activation]) -> Vec<usize> {
    let any_on = states.contains(&Activation::On);
    states
        .iter()
        .enumerate()
        .filter(|(_, s)| match s {
            Activation::On | Activation::Maybe => true,
            Activation::Default => !any_on,
            Activation::Off => false,
        })
        .map(|(i, _)| i)
        .collect()
}

/// A plugin's `<configuration>` (and its executions') as `path = value` entries:
/// `compilerArgs/arg[1] = -Xlint`, `execution[default-test]/configuration/skip = true`,
/// attributes as `path@name`.
pub fn flatten_configuration(plugin: roxmltree::Node) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(c) = child(plugin, "configuration") {
        flatten(c, "", &mut out);
    }
    if let Some(execs) = child(plugin, "executions") {
        for e in execs.children().filter(|c| c.is_element()) {
            let id = child(e, "id")
                .map(own_text)
                .unwrap_or_else(|| "default".into());
            let prefix = format!("execution[{id}]");
            for (what, v) in [
                ("phase", child(e, "phase").map(own_text)),
                (
                    "goals",
                    child(e, "goals").map(|g| {
                        g.children()
                            .filter(|x| x.is_element())
                            .map(own_text)
                            .collect::<Vec<_>>()
                            .join(",")
                    }),
                ),
            ] {
                if let Some(v) = v {
                    out.insert(format!("{prefix}/{what}"), v);
                }
            }
            if let Some(c) = child(e, "configuration") {
                flatten(c, &format!("{prefix}/configuration/"), &mut out);
            }
        }
    }
    out
}

fn flatten(n: roxmltree::Node, prefix: &str, out: &mut BTreeMap<String, String>) {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    // Iterative over levels would be nicer; configuration is shallow, and the XML parser
    // already bounds nesting depth.
    let kids: Vec<roxmltree::Node> = n.children().filter(|c| c.is_element()).collect();
    for k in &kids {
        let name = k.tag_name().name();
        let count = kids.iter().filter(|x| x.tag_name().name() == name).count();
        let i = seen.entry(name).or_insert(0);
        let key = if count > 1 {
            format!("{prefix}{name}[{i}]")
        } else {
            format!("{prefix}{name}")
        };
        *i += 1;
        for a in k.attributes() {
            out.insert(format!("{key}@{}", a.name()), a.value().to_string());
        }
        if k.children().any(|c| c.is_element()) {
            flatten(*k, &format!("{key}/"), out);
        } else {
            out.insert(key, own_text(*k));
        }
    }
}

/// Overlays a plugin's own entries on its managed ones: a top-level element the plugin sets
/// replaces the managed element with everything under it (Maven merges deeper; for the
/// values judges compare — flags, lists of arguments — replacement is what happens).
pub fn overlay(
    managed: &BTreeMap<String, String>,
    own: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let top = |k: &str| -> String {
        let end = k.find(['/', '[', '@']).unwrap_or(k.len());
        k[..end].to_string()
    };
    let own_tops: std::collections::BTreeSet<String> = own.keys().map(|k| top(k)).collect();
    let mut out: BTreeMap<String, String> = managed
        .iter()
        .filter(|(k, _)| !own_tops.contains(&top(k)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    out.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mvn_config_properties_and_profiles() {
        let c = MvnConfig::parse(
            "-Dservlet.version=4.0.1 -D flag\n-P legacy,!ci --activate-profiles=+extra -Pb\n",
            "-Xmx1g -Dfile.encoding=UTF-8",
        );
        assert_eq!(c.properties["servlet.version"], "4.0.1");
        assert_eq!(c.properties["flag"], "true");
        assert_eq!(c.properties["file.encoding"], "UTF-8");
        assert_eq!(c.profiles_on, ["legacy", "extra", "b"]);
        assert_eq!(c.profiles_off, ["ci"]);
    }

    fn states(xml: &str, ctx: &BuildContext) -> Vec<Activation> {
        let doc = roxmltree::Document::parse(xml).unwrap();
        doc.descendants()
            .filter(|n| n.has_tag_name("profile"))
            .map(|p| activation(p, ctx))
            .collect()
    }

    #[test]
    fn activation_is_decided_where_it_can_be() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("marker"), "").unwrap();
        let ctx = BuildContext {
            config: MvnConfig::parse("-Denv=ci -Pforced -P!killed", ""),
            dir: Some((Tree::Folder(dir.path().to_path_buf()), PathBuf::new())),
        };
        let xml = r#"<profiles>
          <profile><id>a</id><activation><activeByDefault>&#x74;rue</activeByDefault></activation></profile>
          <profile><id>jdk</id><activation><jdk>[17,)</jdk></activation></profile>
          <profile><id>prop-on</id><activation><property><name>env</name><value>ci</value></property></activation></profile>
          <profile><id>prop-off</id><activation><property><name>env</name><value>!ci</value></property></activation></profile>
          <profile><id>prop-unknown</id><activation><property><name>other</name></property></activation></profile>
          <profile><id>file-on</id><activation><file><exists>${basedir}/marker</exists></file></activation></profile>
          <profile><id>file-off</id><activation><file><missing>marker</missing></file></activation></profile>
          <profile><id>forced</id></profile>
          <profile><id>killed</id><activation><activeByDefault>true</activeByDefault></activation></profile>
          <profile><id>none</id></profile>
          <profile><id>both</id><activation><jdk>17</jdk><file><missing>marker</missing></file></activation></profile>
        </profiles>"#;
        use Activation::*;
        let s = states(xml, &ctx);
        assert_eq!(
            s,
            [Default, Maybe, On, Off, Maybe, On, Off, On, Off, Off, Off]
        );
        // Another profile is certainly on, so the default one is not merged.
        assert_eq!(merged(&s), [1, 2, 4, 5, 7]);
        assert_eq!(merged(&[Default, Maybe, Off]), [0, 1]);
    }

    #[test]
    fn configuration_is_flattened_and_overlaid() {
        let doc = roxmltree::Document::parse(
            r#"<plugin><configuration><release>17</release><compilerArgs><arg>-Xlint</arg><arg>-Werror</arg></compilerArgs><skip combine.self="override">fa<!-- split -->lse</skip></configuration>
            <executions><execution><id>it</id><phase>verify</phase><goals><goal>test</goal></goals><configuration><skip>true</skip></configuration></execution></executions></plugin>"#,
        )
        .unwrap();
        let flat = flatten_configuration(doc.root_element());
        let keys: Vec<String> = flat.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(
            keys,
            [
                "compilerArgs/arg[0]=-Xlint",
                "compilerArgs/arg[1]=-Werror",
                "execution[it]/configuration/skip=true",
                "execution[it]/goals=test",
                "execution[it]/phase=verify",
                "release=17",
                "skip=false",
                "skip@combine.self=override",
            ]
        );
        let own: BTreeMap<String, String> =
            [("compilerArgs/arg".to_string(), "-g".to_string())].into();
        let merged = overlay(&flat, &own);
        assert_eq!(
            merged.get("compilerArgs/arg").map(String::as_str),
            Some("-g")
        );
        assert!(!merged.contains_key("compilerArgs/arg[0]"));
        assert_eq!(merged["release"], "17");
    }
}
