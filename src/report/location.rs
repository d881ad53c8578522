//! Where a finding lives in the repository: a safe repository-relative path, its
//! percent-encoded URI form (SARIF `artifactLocation.uri`), and the link to the line on GitHub
//! (`{server}/{repo}/blob/{head sha}/{path}#L{line}`).
//!
//! Finding paths come from files the pull request controls, so a path that is absolute, climbs
//! out with `..`, or holds control characters or backslashes gets no location and no link.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use std::path::Path;

use super::model::Report;

/// Bytes kept literally in a path segment: RFC 3986's unreserved characters. Everything else
/// (space, `#`, `?`, `%`, `(`, `)`, `[`, `]`, quotes, non-ASCII) is percent-encoded, so the URI
/// is safe inside a markdown link and in SARIF.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A finding's path inside the repository (`prefix` is the workspace's folder in it, `""`
/// or `None` at the root), with `/` separators; `None` when the path cannot be one.
pub fn repository_path(prefix: Option<&str>, path: &str) -> Option<String> {
    let clean = |p: &str| -> Option<Vec<String>> {
        let mut out = Vec::new();
        for seg in p.split('/') {
            match seg {
                "" | "." => {}
                ".." => return None,
                s if s.chars().any(|c| c.is_control() || c == '\\') => return None,
                s => out.push(s.to_string()),
            }
        }
        Some(out)
    };
    let mut chars = path.chars();
    let drive = chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.next() == Some(':');
    if path.starts_with('/') || drive {
        return None;
    }
    let mut segments = clean(prefix.unwrap_or(""))?;
    let own = clean(path)?;
    if own.is_empty() {
        return None;
    }
    segments.extend(own);
    Some(segments.join("/"))
}

/// Percent-encodes each `/`-separated segment of a repository path.
pub fn encode(path: &str) -> String {
    path.split('/')
        .map(|s| utf8_percent_encode(s, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// The workspace's folder inside its repository checkout, `""` at the root: the nearest
/// folder from the workspace up to `checkout_root` (`GITHUB_WORKSPACE`) that holds `.git`, else
/// `checkout_root` itself; `None` when the workspace lies outside it. Git never checks out a
/// path named `.git`, so the pull request cannot plant one.
pub fn folder_in_repository(workspace: &Path, checkout_root: &Path) -> Option<String> {
    let ws = workspace.canonicalize().ok()?;
    let top = checkout_root.canonicalize().ok()?;
    let rel = ws.strip_prefix(&top).ok()?;
    let root = ws
        .ancestors()
        .take_while(|a| a.starts_with(&top))
        .find(|a| a.join(".git").exists())
        .unwrap_or(&top);
    let inside = ws.strip_prefix(root).unwrap_or(rel);
    let parts: Option<Vec<&str>> = inside
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    Some(parts?.join("/"))
}

/// What a link to a line of the judged commit needs: known only inside GitHub Actions with a
/// head commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeLinks {
    base: String,
    prefix: Option<String>,
}

impl CodeLinks {
    /// The links for a report: `None` unless its subject names a server (`http(s)://host`), a
    /// repository `owner/name` and a hexadecimal head commit.
    pub fn of(r: &Report) -> Option<CodeLinks> {
        let s = &r.subject;
        let server = s.server_url.as_deref()?.trim_end_matches('/');
        let rest = server
            .strip_prefix("https://")
            .or_else(|| server.strip_prefix("http://"))?;
        let host_ok = !rest.is_empty()
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-.:/_".contains(c));
        let repo = s.repository.as_deref()?;
        let repo_ok = repo.split('/').count() == 2
            && repo.split('/').all(|p| {
                !p.is_empty()
                    && p != "."
                    && p != ".."
                    && p.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c))
            });
        let sha = s.head_sha.as_deref()?;
        let sha_ok = (7..=64).contains(&sha.len()) && sha.chars().all(|c| c.is_ascii_hexdigit());
        (host_ok && repo_ok && sha_ok).then(|| CodeLinks {
            base: format!("{server}/{repo}/blob/{sha}"),
            prefix: s.path_in_repository.clone(),
        })
    }

    /// The link to `path` (relative to the workspace) and, when known, its line.
    pub fn url(&self, path: &str, line: Option<u64>) -> Option<String> {
        let p = repository_path(self.prefix.as_deref(), path)?;
        let anchor = match line {
            Some(l) if l > 0 => format!("#L{l}"),
            _ => String::new(),
        };
        Some(format!("{}/{}{anchor}", self.base, encode(&p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_repository_have_no_location() {
        assert_eq!(
            repository_path(Some("examples/ws"), "src/A.java").as_deref(),
            Some("examples/ws/src/A.java")
        );
        assert_eq!(
            repository_path(None, "./src//A.java").as_deref(),
            Some("src/A.java")
        );
        for bad in [
            "/etc/passwd",
            "../x",
            "a/../../x",
            "",
            ".",
            "C:\\x",
            "c:/x",
            "a\\b",
            "a\nb",
        ] {
            assert_eq!(repository_path(None, bad), None, "{bad:?}");
        }
        assert_eq!(repository_path(Some("../up"), "a"), None);
    }

    #[test]
    fn the_workspace_folder_is_found_below_the_checkout() {
        let top = tempfile::tempdir().unwrap();
        let ws = top.path().join("examples/ws");
        std::fs::create_dir_all(&ws).unwrap();
        // No .git anywhere: GITHUB_WORKSPACE is the repository root.
        assert_eq!(
            folder_in_repository(&ws, top.path()).as_deref(),
            Some("examples/ws")
        );
        // A checkout with `path: repo` puts the repository one level down.
        std::fs::create_dir_all(top.path().join("examples/.git")).unwrap();
        assert_eq!(folder_in_repository(&ws, top.path()).as_deref(), Some("ws"));
        assert_eq!(
            folder_in_repository(top.path(), top.path()).as_deref(),
            Some("")
        );
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(folder_in_repository(elsewhere.path(), top.path()), None);
    }

    #[test]
    fn every_unsafe_byte_is_encoded() {
        assert_eq!(
            encode("src/My File#1 (copy)/[x]%.java"),
            "src/My%20File%231%20%28copy%29/%5Bx%5D%25.java"
        );
        assert_eq!(encode("é/a~b-c_d.e"), "%C3%A9/a~b-c_d.e");
    }
}
