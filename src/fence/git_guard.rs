//! The workspace's git configuration and hooks as they were before any subject code ran,
//! checked and restored when the run ends. Where the fence can mount the git folder
//! read-only this finds nothing; where it cannot (no mount namespace), it is what stops a
//! `core.fsmonitor`, `core.hooksPath` or hook planted by the pull request from running in
//! the next git command of the job (the checkout action's own clean-up runs outside any
//! fence, with that step's token).

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Options every git command judge-ci runs starts with: whatever a repository's own
/// configuration says, no hook, no file-system monitor, no configured program (ssh, pager,
/// credential helper, external diff, pack-objects hook) and no `ext::` transport runs.
pub const SAFE_GIT_OPTIONS: &[&str] = &[
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.sshCommand=ssh",
    "-c",
    "core.askPass=",
    "-c",
    "credential.helper=",
    "-c",
    "core.pager=cat",
    "-c",
    "diff.external=",
    "-c",
    "protocol.ext.allow=never",
    "-c",
    "uploadpack.packObjectsHook=",
    "-c",
    "core.alternateRefsCommand=",
];

/// Files of a git folder whose content configures what git runs.
const CONFIG_FILES: [&str; 5] = [
    "config",
    "config.worktree",
    "commondir",
    "info/attributes",
    "objects/info/alternates",
];

/// What one file was: its bytes and permission bits, or absent.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Was {
    File(Vec<u8>, u32),
    Absent,
}

/// The recorded state of a workspace's git folders.
#[derive(Debug, Default)]
pub struct GitGuard {
    /// Each configuration file and hook by path.
    files: BTreeMap<PathBuf, Was>,
    /// The hooks folders, whose every entry was recorded.
    hook_dirs: Vec<PathBuf>,
    /// The git folders themselves: nothing between one and a recorded file may be a link.
    roots: Vec<PathBuf>,
}

/// Whether every folder between the git folder `root` and `p` is a real folder (or absent),
/// never a link: judge-ci's own writes and removals must not follow a link the subject put on
/// the way (`.git/hooks` pointing outside the workspace).
fn no_link_on_the_way(roots: &[PathBuf], p: &Path) -> bool {
    let Some(root) = roots.iter().find(|r| p.starts_with(r)) else {
        return false;
    };
    let Ok(rel) = p.strip_prefix(root) else {
        return false;
    };
    let mut dir = root.clone();
    let parents: Vec<_> = rel.components().collect();
    for c in parents.iter().take(parents.len().saturating_sub(1)) {
        dir.push(c);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return false,
            Err(_) => return true,
        }
    }
    true
}

fn read(p: &Path) -> Was {
    match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_file() => match std::fs::read(p) {
            Ok(b) => Was::File(b, m.permissions().mode() & 0o7777),
            Err(_) => Was::Absent,
        },
        // A link or folder where a configuration file belongs is recorded as absent; the
        // restore removes whatever is there later.
        _ => Was::Absent,
    }
}

fn hook_entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

impl GitGuard {
    /// Records the git folders of the work tree at `workspace` (none when it is no
    /// repository's work tree).
    pub fn record(workspace: &Path) -> GitGuard {
        let mut g = GitGuard::default();
        let Ok(repo) = git2::Repository::open(workspace) else {
            return g;
        };
        let mut dirs = vec![repo.path().to_path_buf()];
        if repo.commondir() != repo.path() {
            dirs.push(repo.commondir().to_path_buf());
        }
        for d in dirs {
            for f in CONFIG_FILES {
                g.files.insert(d.join(f), read(&d.join(f)));
            }
            let hooks = d.join("hooks");
            for p in hook_entries(&hooks) {
                let was = read(&p);
                g.files.insert(p, was);
            }
            g.hook_dirs.push(hooks);
            g.roots.push(d);
        }
        g
    }

    /// The files changed since [`GitGuard::record`], each put back as it was (a file added
    /// to a hooks folder removed). Returns the changed paths.
    pub fn restore(&self) -> Vec<PathBuf> {
        let mut changed = Vec::new();
        // A hooks folder the subject replaced by a link (or a file) is removed as such and
        // made a real folder again before anything is put back into it; what the link points
        // at is never listed, removed or written.
        for d in &self.hook_dirs {
            if let Ok(m) = std::fs::symlink_metadata(d)
                && !m.is_dir()
            {
                changed.push(d.clone());
                if let Err(e) = std::fs::remove_file(d).and_then(|_| std::fs::create_dir(d)) {
                    warn_unrestored(d, &e);
                }
            }
        }
        let mut paths: Vec<PathBuf> = self.files.keys().cloned().collect();
        for d in &self.hook_dirs {
            if !std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir()) {
                continue;
            }
            for p in hook_entries(d) {
                if !self.files.contains_key(&p) {
                    paths.push(p);
                }
            }
        }
        for p in paths {
            if !no_link_on_the_way(&self.roots, &p) {
                changed.push(p.clone());
                warn_unrestored(
                    &p,
                    &std::io::Error::other("a folder on the way is a link the subject put there"),
                );
                continue;
            }
            let was = self.files.get(&p).cloned().unwrap_or(Was::Absent);
            let now = read(&p);
            let other_kind = std::fs::symlink_metadata(&p).is_ok_and(|m| !m.is_file());
            if now == was && !(other_kind && was == Was::Absent) {
                continue;
            }
            if was == Was::Absent && std::fs::symlink_metadata(&p).is_err() {
                continue;
            }
            changed.push(p.clone());
            // Remove first (a link is removed as a link), then write anew.
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => {
                    let _ = std::fs::remove_dir_all(&p);
                }
                Ok(_) => {
                    let _ = std::fs::remove_file(&p);
                }
                Err(_) => {}
            }
            if let Was::File(bytes, mode) = was {
                use std::io::Write;
                use std::os::unix::fs::OpenOptionsExt;
                let written = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(mode)
                    .custom_flags(libc::O_NOFOLLOW)
                    .open(&p)
                    .and_then(|mut f| {
                        f.write_all(&bytes)?;
                        f.set_permissions(std::fs::Permissions::from_mode(mode))
                    });
                if let Err(e) = written {
                    warn_unrestored(&p, &e);
                }
            }
        }
        changed
    }
}

/// `url` with the user information (`user:token@`) of an `scheme://user:token@host/…` value
/// removed, or `None` when it has none.
fn without_userinfo(value: &str) -> Option<String> {
    let start = value.find("://")? + 3;
    let rest = &value[start..];
    let host_end = rest.find('/').unwrap_or(rest.len());
    let at = rest[..host_end].rfind('@')?;
    Some(format!("{}{}", &value[..start], &rest[at + 1..]))
}

/// The text of a git configuration file without the credentials a checkout, a submodule
/// checkout or a runner leaves in it (attack findings F13, E7-3, E7-7), found by what they
/// are rather than by one key: every `extraheader` (actions/checkout's
/// `http.https://github.com/.extraheader = AUTHORIZATION: basic …`, the job's token), the
/// user information of any `scheme://user:token@host` in a value (`url`, `pushurl`,
/// `insteadOf`, `http.proxy`, …) or in a section's name (`[url "https://x:TOKEN@github.com/"]`),
/// and every line holding a secret judge-ci knows ([`crate::secrets`]: the token, any
/// `*_TOKEN` or `*_API_KEY` of its environment) in any form. `None` when there is nothing to
/// remove. Subject processes see this copy in the file's place (a bind mount in their
/// namespace).
pub fn without_credentials(text: &str) -> Option<String> {
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let indent = &line[..line.len() - t.len()];
        if crate::secrets::redact(line) != line {
            changed = true;
            continue;
        }
        if t.starts_with('[') {
            // A section header: `[url "https://x:T@github.com/"]` keeps its name, without the
            // user information.
            match without_userinfo(t.trim_end()) {
                Some(h) => {
                    changed = true;
                    out.push_str(&format!("{indent}{h}\n"));
                }
                None => out.push_str(line),
            }
            continue;
        }
        let (key, value) = t.split_once('=').unwrap_or((t, ""));
        let key = key.trim().to_ascii_lowercase();
        if key == "extraheader" {
            changed = true;
            continue;
        }
        if let Some(v) = without_userinfo(value.trim()) {
            changed = true;
            out.push_str(&format!("{indent}{key} = {v}\n"));
            continue;
        }
        out.push_str(line);
    }
    changed.then_some(out)
}

/// Every file under the git folder `git` that git reads configuration from: `config` and
/// `config.worktree` of the folder, of each linked work tree (`worktrees/*/`) and of each
/// submodule's git folder (`modules/**/`), and every file an `[include]` or `[includeIf]`
/// of one of them names, as far as they chain (E7-3: the scrub read `.git/config` alone,
/// so a submodule checkout's token stayed readable). Links are not followed; at most
/// [`MAX_CONFIG_FILES`] are listed.
pub fn config_files(git: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    let mut it = walkdir::WalkDir::new(git)
        .follow_links(false)
        .max_depth(12)
        .sort_by_file_name()
        .into_iter();
    while let Some(Ok(e)) = it.next() {
        let name = e.file_name().to_string_lossy();
        if e.file_type().is_dir() {
            if e.depth() > 0
                && matches!(name.as_ref(), "objects" | "refs" | "logs" | "lfs" | "hooks")
            {
                it.skip_current_dir();
            }
            continue;
        }
        if e.file_type().is_file() && matches!(name.as_ref(), "config" | "config.worktree") {
            found.push(e.path().to_path_buf());
        }
        if found.len() >= MAX_CONFIG_FILES {
            return found;
        }
    }
    let mut i = 0;
    while i < found.len() && found.len() < MAX_CONFIG_FILES {
        let text = std::fs::read_to_string(&found[i]).unwrap_or_default();
        let dir = found[i].parent().map(Path::to_path_buf).unwrap_or_default();
        for p in include_paths(&text) {
            let p = match p.strip_prefix("~/") {
                Some(rest) => match std::env::var_os("HOME") {
                    Some(h) => PathBuf::from(h).join(rest),
                    None => continue,
                },
                None => dir.join(p),
            };
            if !std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file()) {
                continue;
            }
            // The place a bind mount covers: `..` resolved.
            if let Ok(p) = std::fs::canonicalize(&p)
                && !found.contains(&p)
            {
                found.push(p);
            }
        }
        i += 1;
    }
    found.truncate(MAX_CONFIG_FILES);
    found
}

/// The most configuration files [`config_files`] lists for one git folder.
pub const MAX_CONFIG_FILES: usize = 256;

/// The `path` values of the `[include]` and `[includeIf "…"]` sections of a configuration
/// file's text.
fn include_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut including = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix('[') {
            let name = h.trim_start().to_ascii_lowercase();
            including = name.starts_with("include]")
                || name.starts_with("include ")
                || name.starts_with("includeif");
            continue;
        }
        if !including {
            continue;
        }
        if let Some((k, v)) = t.split_once('=')
            && k.trim().eq_ignore_ascii_case("path")
        {
            let v = v.trim().trim_matches('"').to_string();
            if !v.is_empty() {
                out.push(v);
            }
        }
    }
    out
}

fn warn_unrestored(p: &Path, e: &std::io::Error) {
    eprintln!(
        "judge-ci: could not restore {} after subject code changed it: {e}; do not run git in this workspace before checking it",
        crate::untrusted::shown(p)
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_checkouts_token_and_url_credentials_are_left_out_of_the_subjects_copy() {
        let config = "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://x-access-token:ghs_SECRET@github.com/o/r\n[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic Z2hzX1NFQ1JFVA==\n";
        let clean = super::without_credentials(config).unwrap();
        assert!(
            !clean.contains("SECRET") && !clean.contains("Z2hz"),
            "{clean}"
        );
        assert!(
            clean.contains("url = https://github.com/o/r") && clean.contains("bare = false"),
            "{clean}"
        );
        assert_eq!(super::without_credentials("[core]\n\tbare = false\n"), None);
    }

    /// E7-7: credentials elsewhere than `extraheader` and `url`: a rewriting rule whose name
    /// holds the token, a proxy with a password, the token itself under any key.
    #[test]
    fn credentials_are_found_by_what_they_are_not_by_one_key() {
        crate::secrets::register("ghs_REGISTERED_VALUE");
        let config = "[url \"https://x-access-token:ghs_A@github.com/\"]\n\tinsteadOf = https://github.com/\n[http]\n\tproxy = http://user:hunter2@proxy:3128\n[custom]\n\tnote = ghs_REGISTERED_VALUE\n[core]\n\tbare = false\n";
        let clean = super::without_credentials(config).unwrap();
        for secret in ["ghs_A", "hunter2", "ghs_REGISTERED_VALUE"] {
            assert!(!clean.contains(secret), "{secret}: {clean}");
        }
        assert!(clean.contains("[url \"https://github.com/\"]"), "{clean}");
        assert!(clean.contains("proxy = http://proxy:3128"), "{clean}");
        assert!(clean.contains("bare = false"), "{clean}");
    }

    /// E7-3: the configuration files git reads for a repository: its own, a linked work
    /// tree's, a submodule's (nested), and what they include; not objects or hooks.
    #[test]
    fn every_configuration_file_git_reads_is_listed() {
        let d = tempfile::tempdir().unwrap();
        let g = d.path().join(".git");
        for f in [
            "config",
            "worktrees/wt/config.worktree",
            "modules/sub/config",
            "modules/sub/modules/deeper/config",
            "objects/config",
            "hooks/config",
        ] {
            std::fs::create_dir_all(g.join(f).parent().unwrap()).unwrap();
            std::fs::write(g.join(f), "[core]\n").unwrap();
        }
        std::fs::write(
            g.join("config"),
            "[include]\n\tpath = extra.inc\n[includeIf \"gitdir:/x/\"]\n\tpath = \"../outside.inc\"\n",
        )
        .unwrap();
        std::fs::write(g.join("extra.inc"), "[include]\n\tpath = chained.inc\n").unwrap();
        std::fs::write(g.join("chained.inc"), "").unwrap();
        std::fs::write(d.path().join("outside.inc"), "").unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let g = root.join(".git");
        let mut found: Vec<String> = super::config_files(&g)
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                ".git/chained.inc",
                ".git/config",
                ".git/extra.inc",
                ".git/modules/sub/config",
                ".git/modules/sub/modules/deeper/config",
                ".git/worktrees/wt/config.worktree",
                "outside.inc",
            ]
        );
    }

    use super::*;

    #[test]
    fn a_planted_fsmonitor_a_hook_and_a_linked_config_are_put_back() {
        let d = tempfile::tempdir().unwrap();
        git2::Repository::init(d.path()).unwrap();
        let git = d.path().join(".git");
        let config = std::fs::read(git.join("config")).unwrap();
        std::fs::write(git.join("hooks/pre-commit"), "#!/bin/sh\n").unwrap();
        let g = GitGuard::record(d.path());
        // The subject's changes.
        std::fs::write(
            git.join("config"),
            "[core]\n\tfsmonitor = /tmp/evil\n\thooksPath = /tmp\n",
        )
        .unwrap();
        std::fs::write(git.join("hooks/post-checkout"), "#!/bin/sh\nevil\n").unwrap();
        std::fs::write(git.join("hooks/pre-commit"), "#!/bin/sh\nevil\n").unwrap();
        std::fs::create_dir_all(git.join("info")).unwrap();
        std::fs::write(git.join("info/attributes"), "* filter=evil\n").unwrap();
        let mut changed = g.restore();
        changed.sort();
        assert_eq!(
            changed,
            vec![
                git.join("config"),
                git.join("hooks/post-checkout"),
                git.join("hooks/pre-commit"),
                git.join("info/attributes"),
            ]
        );
        assert_eq!(std::fs::read(git.join("config")).unwrap(), config);
        assert!(!git.join("hooks/post-checkout").exists());
        assert!(!git.join("info/attributes").exists());
        assert_eq!(
            std::fs::read_to_string(git.join("hooks/pre-commit")).unwrap(),
            "#!/bin/sh\n"
        );
        // A link in place of the config is removed as a link, the target left alone.
        let outside = d.path().join("outside");
        std::fs::write(&outside, "keep").unwrap();
        std::fs::remove_file(git.join("config")).unwrap();
        std::os::unix::fs::symlink(&outside, git.join("config")).unwrap();
        assert_eq!(g.restore(), vec![git.join("config")]);
        assert_eq!(std::fs::read(git.join("config")).unwrap(), config);
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep");
        assert!(g.restore().is_empty(), "nothing left to restore");
    }

    #[test]
    fn a_hooks_folder_made_a_link_outside_is_never_followed() {
        let d = tempfile::tempdir().unwrap();
        git2::Repository::init(d.path()).unwrap();
        let git = d.path().join(".git");
        std::fs::write(git.join("hooks/pre-commit"), "#!/bin/sh\n").unwrap();
        let g = GitGuard::record(d.path());
        // The subject points .git/hooks at a folder of its choosing outside the workspace.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("victim"), "keep").unwrap();
        std::fs::remove_dir_all(git.join("hooks")).unwrap();
        std::os::unix::fs::symlink(outside.path(), git.join("hooks")).unwrap();
        let changed = g.restore();
        assert!(changed.contains(&git.join("hooks")), "{changed:?}");
        assert_eq!(
            std::fs::read_to_string(outside.path().join("victim")).unwrap(),
            "keep",
            "nothing outside is removed"
        );
        assert!(
            !outside.path().join("pre-commit").exists(),
            "nothing is written outside"
        );
        let m = std::fs::symlink_metadata(git.join("hooks")).unwrap();
        assert!(m.is_dir() && !m.file_type().is_symlink());
        assert_eq!(
            std::fs::read_to_string(git.join("hooks/pre-commit")).unwrap(),
            "#!/bin/sh\n"
        );
        // A link on the way to a configuration file (.git/info) is not written through.
        std::fs::remove_dir_all(git.join("info")).ok();
        std::os::unix::fs::symlink(outside.path(), git.join("info")).unwrap();
        std::fs::write(outside.path().join("attributes"), "* filter=x\n").unwrap();
        g.restore();
        assert!(
            outside.path().join("attributes").exists(),
            "not removed through the link"
        );
    }
}
