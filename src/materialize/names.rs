//! Tree entry names checked as git's `fsck` checks them (`fsck.c`'s `fsck_tree`, `path.c`'s
//! `is_hfs_dotgit` / `is_ntfs_dotgit`), plus what this host cannot hold, before anything of a
//! tree is written. A commit the pull request made can hold any bytes git's object format
//! allows: an entry `..` or `.git` written naively lands outside its checkout or plants a
//! repository, so a tree with such an entry is refused whole, naming the entry.

use std::fmt;

/// The longest name one path component may have on this host (`NAME_MAX`).
pub const NAME_MAX: usize = 255;
/// The longest path this host accepts (`PATH_MAX` less its terminating NUL).
pub const PATH_MAX: usize = 4095;

/// Why an entry is refused: the name of git's fsck message id where git has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadName {
    /// An empty name (`emptyName`).
    Empty,
    /// A name holding `/` (`fullPathname`).
    FullPathname,
    /// `.` (`hasDot`).
    Dot,
    /// `..` (`hasDotdot`).
    DotDot,
    /// `.git` in any case, or an HFS+ or NTFS spelling of it (`hasDotgit`).
    DotGit,
    /// `.gitmodules` (or an HFS+/NTFS spelling) as a symbolic link (`gitmodulesSymlink`).
    GitmodulesSymlink,
    /// Two entries of one tree with the same name (`duplicateEntries`).
    Duplicate,
    /// A file mode git does not write (`badFilemode`).
    BadFilemode,
    /// A NUL byte, which no file name on this host can hold.
    Nul,
    /// A component longer than `NAME_MAX` (255) bytes.
    NameTooLong,
    /// A path longer than `PATH_MAX` (4095) bytes.
    PathTooLong,
}

impl BadName {
    /// git's fsck message id, or this project's name for a host limit.
    pub fn id(self) -> &'static str {
        match self {
            BadName::Empty => "emptyName",
            BadName::FullPathname => "fullPathname",
            BadName::Dot => "hasDot",
            BadName::DotDot => "hasDotdot",
            BadName::DotGit => "hasDotgit",
            BadName::GitmodulesSymlink => "gitmodulesSymlink",
            BadName::Duplicate => "duplicateEntries",
            BadName::BadFilemode => "badFilemode",
            BadName::Nul => "hostCannotHold (NUL)",
            BadName::NameTooLong => "hostCannotHold (NAME_MAX)",
            BadName::PathTooLong => "hostCannotHold (PATH_MAX)",
        }
    }
}

impl fmt::Display for BadName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self {
            BadName::Empty => "an entry with an empty name".to_string(),
            BadName::FullPathname => "a name holding '/'".to_string(),
            BadName::Dot => "an entry named '.'".to_string(),
            BadName::DotDot => {
                "an entry named '..', which would be written outside its folder".to_string()
            }
            BadName::DotGit => {
                "an entry git reads as '.git' (any case, or its HFS+/NTFS aliases)".to_string()
            }
            BadName::GitmodulesSymlink => "'.gitmodules' as a symbolic link".to_string(),
            BadName::Duplicate => "two entries of one tree with this name".to_string(),
            BadName::BadFilemode => "a file mode git does not write".to_string(),
            BadName::Nul => "a NUL byte in a name".to_string(),
            BadName::NameTooLong => format!("a name longer than {NAME_MAX} bytes"),
            BadName::PathTooLong => format!("a path longer than {PATH_MAX} bytes"),
        };
        write!(f, "{what} ({})", self.id())
    }
}

/// The modes git writes (and `100664`, which fsck accepts from old git).
const MODES: &[i32] = &[0o100644, 0o100755, 0o100664, 0o120000, 0o040000, 0o160000];

/// Checks one entry's name and raw mode; `path_len` is the byte length of its whole path.
pub fn check(name: &[u8], raw_mode: i32, path_len: usize) -> Result<(), BadName> {
    if name.is_empty() {
        return Err(BadName::Empty);
    }
    if name.contains(&0) {
        return Err(BadName::Nul);
    }
    if name.contains(&b'/') {
        return Err(BadName::FullPathname);
    }
    match name {
        b"." => return Err(BadName::Dot),
        b".." => return Err(BadName::DotDot),
        _ => {}
    }
    if is_hfs(name, b"git") || is_ntfs_dotgit(name) {
        return Err(BadName::DotGit);
    }
    if raw_mode == 0o120000 && (is_hfs(name, b"gitmodules") || is_ntfs_gitmodules(name)) {
        return Err(BadName::GitmodulesSymlink);
    }
    if !MODES.contains(&raw_mode) {
        return Err(BadName::BadFilemode);
    }
    if name.len() > NAME_MAX {
        return Err(BadName::NameTooLong);
    }
    if path_len > PATH_MAX {
        return Err(BadName::PathTooLong);
    }
    Ok(())
}

/// Code points HFS+ ignores when it compares names (git's `next_hfs_char`).
fn hfs_ignored(c: char) -> bool {
    matches!(c as u32, 0x200c..=0x200f | 0x202a..=0x202e | 0x206a..=0x206f | 0xfeff)
}

/// Whether HFS+ reads `name` as `.` followed by `word` (ASCII, lower case): case folded,
/// ignorable code points dropped (git's `is_hfs_dot_generic`).
fn is_hfs(name: &[u8], word: &[u8]) -> bool {
    let text = String::from_utf8_lossy(name);
    let mut chars = text
        .chars()
        .filter(|c| !hfs_ignored(*c))
        .map(|c| c.to_ascii_lowercase());
    if chars.next() != Some('.') {
        return false;
    }
    for &w in word {
        if chars.next() != Some(w as char) {
            return false;
        }
    }
    chars.next().is_none()
}

/// Whether what follows a matched prefix is only spaces and periods up to the end, a
/// backslash or a colon (an NTFS stream name): NTFS drops trailing spaces and periods.
fn ntfs_tail(rest: &[u8]) -> bool {
    for &c in rest {
        match c {
            b'\\' | b':' => return true,
            b' ' | b'.' => {}
            _ => return false,
        }
    }
    true
}

/// Whether `name` starts with `prefix`, ASCII case folded.
fn starts_folded(name: &[u8], prefix: &[u8]) -> bool {
    name.len() >= prefix.len() && name[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// Whether NTFS reads a segment as `.git`: `.git` or its short name `git~1`, then only
/// spaces and periods (git's `is_ntfs_dotgit`). fsck checks the name and every part after a
/// backslash, which Windows reads as a folder separator.
fn is_ntfs_dotgit(name: &[u8]) -> bool {
    name.split(|&c| c == b'\\').any(|seg| {
        (starts_folded(seg, b".git") && ntfs_tail(&seg[4..]))
            || (starts_folded(seg, b"git~1") && ntfs_tail(&seg[5..]))
    })
}

/// Whether NTFS reads a segment as `.gitmodules`: the long name with trailing spaces and
/// periods, its 8.3 short name `gitmod~N` (N 1–4) or the hashed short name `gi7eba~N`
/// (git's `is_ntfs_dotgitmodules`).
fn is_ntfs_gitmodules(name: &[u8]) -> bool {
    name.split(|&c| c == b'\\').any(|seg| {
        if starts_folded(seg, b".gitmodules") {
            return ntfs_tail(&seg[11..]);
        }
        let short = |prefix: &[u8], digits: std::ops::RangeInclusive<u8>| {
            starts_folded(seg, prefix)
                && seg.get(6) == Some(&b'~')
                && seg.get(7).is_some_and(|d| digits.contains(d))
                && ntfs_tail(&seg[8..])
        };
        short(b"gitmod", b'1'..=b'4') || short(b"gi7eba", b'1'..=b'9')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: i32 = 0o100644;

    #[test]
    fn names_git_fsck_refuses_are_refused() {
        for (name, why) in [
            (&b""[..], BadName::Empty),
            (b".", BadName::Dot),
            (b"..", BadName::DotDot),
            (b"a/b", BadName::FullPathname),
            (b"a\0b", BadName::Nul),
            (b".git", BadName::DotGit),
            (b".GIT", BadName::DotGit),
            (b".Git", BadName::DotGit),
            (b".git.", BadName::DotGit),
            (b".git ", BadName::DotGit),
            (b".git. .", BadName::DotGit),
            (b"git~1", BadName::DotGit),
            (b"GIT~1", BadName::DotGit),
            (b".git::$INDEX_ALLOCATION", BadName::DotGit),
            (b"a\\.git", BadName::DotGit),
            (b"a\\git~1\\b", BadName::DotGit),
            (".g\u{200c}it".as_bytes(), BadName::DotGit),
            ("\u{feff}.GIT".as_bytes(), BadName::DotGit),
            (".git\u{206f}".as_bytes(), BadName::DotGit),
        ] {
            assert_eq!(check(name, FILE, name.len()), Err(why), "{name:?}");
        }
        assert_eq!(check(b"x", 0o100600, 1), Err(BadName::BadFilemode));
        assert_eq!(check(&[b'a'; 256], FILE, 256), Err(BadName::NameTooLong));
        assert_eq!(check(b"a", FILE, 4096), Err(BadName::PathTooLong));
        for alias in [
            &b".gitmodules"[..],
            b".GitModules ",
            b"GITMOD~1",
            b"gi7eba~3",
        ] {
            assert_eq!(
                check(alias, 0o120000, alias.len()),
                Err(BadName::GitmodulesSymlink),
                "{alias:?}"
            );
            assert_eq!(check(alias, FILE, alias.len()), Ok(()), "{alias:?}");
        }
    }

    #[test]
    fn ordinary_names_pass() {
        for name in [
            &b"Greeter.java"[..],
            b".gitignore",
            b".github",
            b".gitattributes",
            b"git",
            b"...",
            b".git-blame-ignore-revs",
            b"gitx~1",
            b"a b",
            "caf\u{e9}.txt".as_bytes(),
            b"\xff\xfe",
        ] {
            assert_eq!(check(name, FILE, name.len()), Ok(()), "{name:?}");
        }
        for mode in [0o100644, 0o100755, 0o120000, 0o040000, 0o160000] {
            assert_eq!(check(b"x", mode, 1), Ok(()));
        }
    }
}
