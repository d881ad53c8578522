//! Which artifacts a Maven build needs that no local repository holds, judged by judge-ci on
//! the effective (property-resolved) model before any of the pull request's code runs
//! (`spec/trust.md` point 12): the cause of a failed build is never read from its log, which
//! the subject's code writes into too.
//!
//! Before the build, every dependency and versioned plugin of every POM of the workspace (as
//! Maven builds it: parents, active profiles, `${…}` resolved) is looked up in the local
//! repositories the build may use; the ones absent are remembered with whether the
//! reference's POMs declare them too. When the build then fails and an artifact is still
//! absent, the failure is the pull request's if only its POMs declare the artifact, and the
//! environment's if the reference needs it as well (this runner cannot build the known-good
//! solution either). A failed build with nothing absent is the subject's failure, whatever it
//! printed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::structural::{self, Pom};

/// One artifact the effective model names.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Artifact {
    /// `groupId`.
    pub group: String,
    /// `artifactId`.
    pub artifact: String,
    /// The resolved version; `None` when the model leaves it to Maven (a plugin's default).
    pub version: Option<String>,
    /// Whether it is a build plugin (else a dependency).
    pub plugin: bool,
}

impl std::fmt::Display for Artifact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}{}:{}:{}",
            if self.plugin { "Plugin " } else { "" },
            self.group,
            self.artifact,
            self.version.as_deref().unwrap_or("?")
        )
    }
}

/// What judge-ci found before the build: the artifacts absent from every local repository.
#[derive(Clone, Debug, Default)]
pub struct Resolution {
    /// The local repositories looked in.
    pub repositories: Vec<PathBuf>,
    /// Absent artifacts, each with whether the reference's POMs declare it too (`None`
    /// without a reference POM to compare with).
    pub absent: Vec<(Artifact, Option<bool>)>,
    /// Whether the build runs offline (`-o` on its command line, in its wrapper or
    /// `.mvn/maven.config`).
    pub offline: bool,
}

/// The artifacts of one effective model: dependencies (not `system` or `import` scoped) and
/// plugins.
fn artifacts(pom: &Pom) -> Vec<Artifact> {
    let mut out = Vec::new();
    for (k, d) in &pom.dependencies {
        let mut parts = k.splitn(3, ':');
        let (Some(g), Some(a)) = (parts.next(), parts.next()) else {
            continue;
        };
        if matches!(d.value.scope.as_str(), "system" | "import") {
            continue;
        }
        out.push(Artifact {
            group: g.to_string(),
            artifact: a.to_string(),
            version: d.value.version.clone(),
            plugin: false,
        });
    }
    for (k, p) in &pom.plugins {
        let Some((g, a)) = k.split_once(':') else {
            continue;
        };
        out.push(Artifact {
            group: g.to_string(),
            artifact: a.to_string(),
            version: p.value.version.clone(),
            plugin: true,
        });
    }
    out
}

/// Whether a repository holds `a` (its POM or its jar); an unresolved `${…}` in a coordinate
/// is held by none.
fn holds(repo: &Path, a: &Artifact) -> bool {
    let Some(v) = &a.version else {
        return true;
    };
    if [&a.group, &a.artifact, v]
        .iter()
        .any(|s| s.contains("${") || s.contains('/') || s.contains(".."))
    {
        return false;
    }
    let dir = repo
        .join(a.group.replace('.', "/"))
        .join(&a.artifact)
        .join(v);
    ["pom", "jar"]
        .iter()
        .any(|ext| dir.join(format!("{}-{v}.{ext}", a.artifact)).is_file())
}

/// The value of `-Dmaven.repo.local=…` and whether `-o`/`--offline` appears in `text`.
fn flags(text: &str) -> (Vec<PathBuf>, bool) {
    let mut repos = Vec::new();
    let mut offline = false;
    for word in text.split(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
        if let Some(r) = word.strip_prefix("-Dmaven.repo.local=") {
            repos.push(PathBuf::from(r));
        }
        if word == "-o" || word == "--offline" {
            offline = true;
        }
    }
    (repos, offline)
}

/// The local repositories a build in `workspace` may use: `-Dmaven.repo.local` of the
/// check's arguments, the wrapper and `.mvn/maven.config` (the base's, pinned before this
/// runs), `localRepository` of `~/.m2/settings.xml`, `~/.m2/repository` and Debian's
/// `/usr/share/maven-repo`.
fn repositories(workspace: &Path, args: &[String]) -> (Vec<PathBuf>, bool) {
    let mut text = args.join(" ");
    for f in ["mvnw", ".mvn/maven.config"] {
        // The workspace's files, read with the one primitive (a FIFO there never blocks).
        if let Ok(t) = crate::untrusted::read_text(&workspace.join(f), 1 << 20) {
            text.push(' ');
            text.push_str(&t);
        }
    }
    let (mut repos, offline) = flags(&text);
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        if let Ok(s) = std::fs::read_to_string(home.join(".m2/settings.xml"))
            && let Some(start) = s.find("<localRepository>")
            && let Some(len) = s[start..].find("</localRepository>")
        {
            repos.push(PathBuf::from(s[start + 17..start + len].trim()));
        }
        repos.push(home.join(".m2/repository"));
    }
    repos.push(PathBuf::from("/usr/share/maven-repo"));
    repos.retain(|r| r.is_dir());
    repos.dedup();
    (repos, offline)
}

/// Looks up every artifact of the workspace's effective models before the build.
pub fn before_build(workspace: &Path, reference: Option<&Path>, args: &[String]) -> Resolution {
    let (repositories, offline) = repositories(workspace, args);
    let ours: BTreeSet<Artifact> = structural::effective_poms(workspace)
        .iter()
        .flat_map(|(_, p)| artifacts(p))
        .collect();
    // A reference without a POM tells nothing about what the solution needs. What the
    // reference needs is the coordinate with its version: a pull request that pins one the
    // reference declares to another version chose that version (attack finding G11), and
    // its absence is the pull request's, not the environment's.
    let theirs: Option<BTreeSet<(String, String, Option<String>)>> = reference
        .map(structural::effective_poms)
        .filter(|poms| !poms.is_empty())
        .map(|poms| {
            poms.iter()
                .flat_map(|(_, p)| artifacts(p))
                .map(|a| (a.group, a.artifact, a.version))
                .collect()
        });
    let absent = ours
        .into_iter()
        .filter(|a| !repositories.iter().any(|r| holds(r, a)))
        .map(|a| {
            let shared = theirs
                .as_ref()
                .map(|t| t.contains(&(a.group.clone(), a.artifact.clone(), a.version.clone())));
            (a, shared)
        })
        .collect();
    Resolution {
        repositories,
        absent,
        offline,
    }
}

/// Why a failed build failed, as far as resolution goes.
#[derive(Debug, PartialEq, Eq)]
pub enum Blame {
    /// Artifacts only the pull request's POMs declare, absent before and after the build.
    Introduced(Vec<String>),
    /// Artifacts the reference needs too (or with no reference to tell), absent before and
    /// after the build: the environment lacks them.
    Environment(Vec<String>),
    /// Nothing absent: the failure is the build's own.
    None,
}

impl Resolution {
    /// The blame for a build that failed: artifacts still absent now (one the build fetched
    /// is not to blame; one the subject's code deleted during the build was present before
    /// and is not counted either).
    pub fn after_failure(&self) -> Blame {
        let still: Vec<&(Artifact, Option<bool>)> = self
            .absent
            .iter()
            .filter(|(a, _)| !self.repositories.iter().any(|r| holds(r, a)))
            .collect();
        let introduced: Vec<String> = still
            .iter()
            .filter(|(_, shared)| *shared == Some(false))
            .map(|(a, _)| a.to_string())
            .collect();
        if !introduced.is_empty() {
            return Blame::Introduced(introduced);
        }
        let env: Vec<String> = still.iter().map(|(a, _)| a.to_string()).collect();
        if env.is_empty() {
            Blame::None
        } else {
            Blame::Environment(env)
        }
    }

    /// The repositories looked in, for a reasoning.
    pub fn shown_repositories(&self) -> String {
        if self.repositories.is_empty() {
            "none exists".to_string()
        } else {
            self.repositories
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pom(extra: &str) -> String {
        format!(
            "<project><modelVersion>4.0.0</modelVersion><groupId>t</groupId><artifactId>t</artifactId><version>1</version><properties><absent.group>org.example.absent</absent.group></properties><dependencies>{extra}</dependencies></project>"
        )
    }

    #[test]
    fn an_artifact_spelled_through_a_property_is_judged_as_maven_resolves_it() {
        let d = tempfile::tempdir().unwrap();
        let (ws, rf, repo) = (
            d.path().join("ws"),
            d.path().join("ref"),
            d.path().join("repo"),
        );
        for p in [&ws, &rf] {
            std::fs::create_dir_all(p).unwrap();
        }
        std::fs::create_dir_all(repo.join("junit/junit/4.13.2")).unwrap();
        std::fs::write(
            repo.join("junit/junit/4.13.2/junit-4.13.2.pom"),
            "<project/>",
        )
        .unwrap();
        let junit = "<dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version></dependency>";
        let absent = "<dependency><groupId>${absent.group}</groupId><artifactId>nowhere</artifactId><version>9.9</version></dependency>";
        std::fs::write(ws.join("pom.xml"), pom(&format!("{junit}{absent}"))).unwrap();
        std::fs::write(rf.join("pom.xml"), pom(junit)).unwrap();
        let args = vec![format!("-Dmaven.repo.local={}", repo.display())];
        let r = before_build(&ws, Some(&rf), &args);
        assert_eq!(r.absent.len(), 1, "{r:?}");
        assert_eq!(
            r.after_failure(),
            Blame::Introduced(vec!["org.example.absent:nowhere:9.9".into()])
        );
        // The reference needs it too: the environment's.
        std::fs::write(rf.join("pom.xml"), pom(&format!("{junit}{absent}"))).unwrap();
        let r = before_build(&ws, Some(&rf), &args);
        assert!(matches!(r.after_failure(), Blame::Environment(_)));
        // Present after the build (fetched): nothing to blame on resolution.
        std::fs::create_dir_all(repo.join("org/example/absent/nowhere/9.9")).unwrap();
        std::fs::write(
            repo.join("org/example/absent/nowhere/9.9/nowhere-9.9.jar"),
            "",
        )
        .unwrap();
        assert_eq!(r.after_failure(), Blame::None);
        // An unresolvable property is held by no repository.
        std::fs::write(ws.join("pom.xml"), pom("<dependency><groupId>${nobody.set.this}</groupId><artifactId>x</artifactId><version>1</version></dependency>")).unwrap();
        assert_eq!(before_build(&ws, None, &args).absent.len(), 1);
    }

    /// Attack finding G11: the pull request pins a dependency the reference declares to a
    /// version no repository holds. The version is the pull request's choice: its FAIL, not
    /// the environment's ERROR.
    #[test]
    fn another_version_of_a_dependency_the_reference_declares_is_the_pull_requests() {
        let d = tempfile::tempdir().unwrap();
        let (ws, rf, repo) = (
            d.path().join("ws"),
            d.path().join("ref"),
            d.path().join("repo"),
        );
        for p in [&ws, &rf, &repo] {
            std::fs::create_dir_all(p).unwrap();
        }
        let dep = |v: &str| {
            format!(
                "<dependency><groupId>jakarta.servlet</groupId><artifactId>jakarta.servlet-api</artifactId><version>{v}</version></dependency>"
            )
        };
        std::fs::write(ws.join("pom.xml"), pom(&dep("5.0.99"))).unwrap();
        std::fs::write(rf.join("pom.xml"), pom(&dep("5.0.0"))).unwrap();
        let args = vec![format!("-Dmaven.repo.local={}", repo.display())];
        let r = before_build(&ws, Some(&rf), &args);
        assert_eq!(
            r.after_failure(),
            Blame::Introduced(vec!["jakarta.servlet:jakarta.servlet-api:5.0.99".into()])
        );
        // The same coordinate and version as the reference's, absent here: the
        // environment's.
        let made_up = "<dependency><groupId>org.example.absent</groupId><artifactId>shared</artifactId><version>1.0</version></dependency>";
        std::fs::write(ws.join("pom.xml"), pom(made_up)).unwrap();
        std::fs::write(rf.join("pom.xml"), pom(made_up)).unwrap();
        let r = before_build(&ws, Some(&rf), &args);
        assert!(matches!(r.after_failure(), Blame::Environment(_)), "{r:?}");
    }
}
