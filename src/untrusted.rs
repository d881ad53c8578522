//! One way to read a file the subject controls (trust.md point 19). Every judge, the
//! workspace snapshot and materialisation read a subject file through [`read`] (or
//! [`open`]): the last component is opened with `O_NOFOLLOW | O_NONBLOCK` (a link is never
//! followed, a FIFO never waits for a writer, a device is never driven), the opened
//! descriptor is checked with `fstat` (so a file swapped after a walk saw it is judged as what
//! was opened), and only a regular file is read, at most `limit` bytes. A walk over the
//! subject's tree names what it meets with [`Kind`], so that a link, FIFO, socket or device
//! in a selected path becomes a finding (`file-not-regular`) rather than being skipped.
//!
//! What this does not do: the folders above the file are resolved by the kernel as usual
//! (walks do not follow links, and configured paths are confined to the workspace first by
//! `judges::paths::resolve`).

use std::fmt;
use std::fs::{File, FileType, Metadata};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What a directory entry is, as the subject's tree presents it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A regular file: the only kind that is read.
    Regular,
    /// A folder.
    Directory,
    /// A symbolic link (never followed).
    Symlink,
    /// A named pipe (opening one blocking would wait for a writer forever).
    Fifo,
    /// A unix socket.
    Socket,
    /// A character device.
    CharDevice,
    /// A block device.
    BlockDevice,
    /// Something else the kernel reports.
    Other,
}

impl Kind {
    /// The kind of a file type as `lstat`/`fstat` report it.
    pub fn of(t: FileType) -> Kind {
        if t.is_file() {
            Kind::Regular
        } else if t.is_dir() {
            Kind::Directory
        } else if t.is_symlink() {
            Kind::Symlink
        } else if t.is_fifo() {
            Kind::Fifo
        } else if t.is_socket() {
            Kind::Socket
        } else if t.is_char_device() {
            Kind::CharDevice
        } else if t.is_block_device() {
            Kind::BlockDevice
        } else {
            Kind::Other
        }
    }

    /// The kind of what `path` names, without following a link; `None` when nothing is there.
    pub fn at(path: &Path) -> Option<Kind> {
        std::fs::symlink_metadata(path)
            .ok()
            .map(|m| Kind::of(m.file_type()))
    }

    /// The word a finding uses: `symlink`, `fifo`, `socket` …
    pub fn word(self) -> &'static str {
        match self {
            Kind::Regular => "regular file",
            Kind::Directory => "directory",
            Kind::Symlink => "symlink",
            Kind::Fifo => "fifo",
            Kind::Socket => "socket",
            Kind::CharDevice => "character device",
            Kind::BlockDevice => "block device",
            Kind::Other => "special file",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// Why a subject file was not read.
#[derive(Debug, Error)]
pub enum ReadError {
    /// Not a regular file: a link, FIFO, socket, device or folder.
    #[error("{} is a {kind}, not a regular file (file-not-regular); judge-ci does not read it", .path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
        /// What it is.
        kind: Kind,
    },
    /// Larger than the bound of the read.
    #[error("{}: {size}, over the {} judge-ci reads", .path.display(), size_words(*limit))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, in words (`300 bytes`, `over 64 MiB`).
        size: String,
        /// The bound, in bytes.
        limit: u64,
    },
    /// The kernel refused the open or the read.
    #[error("cannot read {}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl ReadError {
    /// The kind of a file refused for not being regular.
    pub fn not_regular(&self) -> Option<Kind> {
        match self {
            ReadError::NotRegular { kind, .. } => Some(*kind),
            _ => None,
        }
    }
}

/// `16 MiB`, `512 KiB`, `100 bytes`.
pub fn size_words(n: u64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// Opens `path` for reading as a regular file: never through a link at its last component,
/// never blocking (FIFOs, devices), the descriptor's own type checked. Returns the file and
/// its metadata (of the descriptor, not of the name).
pub fn open(path: &Path) -> Result<(File, Metadata), ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let f = match f {
        Ok(f) => f,
        // O_NOFOLLOW on a link: ELOOP.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(ReadError::NotRegular {
                path: path.to_path_buf(),
                kind: Kind::Symlink,
            });
        }
        // A socket cannot be opened at all (ENXIO); say what it is.
        Err(e) => {
            return Err(match Kind::at(path) {
                Some(kind) if kind != Kind::Regular => ReadError::NotRegular {
                    path: path.to_path_buf(),
                    kind,
                },
                _ => io(e),
            });
        }
    };
    let meta = f.metadata().map_err(io)?;
    let kind = Kind::of(meta.file_type());
    if kind != Kind::Regular {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    Ok((f, meta))
}

/// Reads at most `limit` bytes of the regular file `path` ([`open`]); a larger file is an
/// error naming the bound (read through a bounded reader, so a file that grows while read
/// cannot get past it either).
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let (f, meta) = open(path)?;
    let too_large = |size: String| ReadError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    };
    if meta.len() > limit {
        return Err(too_large(format!("{} bytes", meta.len())));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    f.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| ReadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(too_large(format!("over {limit} bytes")));
    }
    Ok(bytes)
}

/// The most bytes judge-ci reads of a stored artifact another job (or a fork's workflow)
/// could have written: a `report.json`, a shard's `suite.json` or manifest, a saved event, a
/// surface file `resume` checks. A report judge-ci writes is far smaller (its logs are cut to
/// fit the comment); a larger one is refused before it is read.
pub const MAX_STORED_BYTES: u64 = 64 << 20;

/// [`read`] as an I/O error (for callers whose errors carry one).
pub fn read_io(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    read(path, limit).map_err(std::io::Error::other)
}

/// [`read_text`] as an I/O error, invalid UTF-8 refused (a stored artifact is JSON).
pub fn read_string_io(path: &Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read_io(path, limit)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is not UTF-8: {e}", path.display()),
        )
    })
}

/// [`read`], as text (invalid UTF-8 replaced).
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    read(path, limit).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The entries under `root` (links not followed, at most `max_depth` levels) that are not
/// regular files or folders, with their path relative to `root` and their kind, for which
/// `want` (given the relative `/`-separated path) holds: what a judge reading files from a
/// folder reports as `file-not-regular` instead of skipping.
pub fn not_regular_under(
    root: &Path,
    max_depth: usize,
    want: impl Fn(&str) -> bool,
) -> Vec<(String, Kind)> {
    let mut out: Vec<(String, Kind)> = walkdir::WalkDir::new(root)
        .follow_links(false)
        .max_depth(max_depth)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let kind = Kind::of(e.file_type());
            if matches!(kind, Kind::Regular | Kind::Directory) {
                return None;
            }
            let rel = e
                .path()
                .strip_prefix(root)
                .ok()?
                .to_string_lossy()
                .into_owned();
            want(&rel).then_some((rel, kind))
        })
        .collect();
    out.sort();
    out
}

/// The most XML nodes (elements, attributes' text, text runs) judge-ci builds from one file
/// the subject controls (a POM, a Surefire or JaCoCo report): a report of millions of tiny
/// elements under the byte bound must not take the machine's memory.
pub const MAX_XML_NODES: u32 = 2_000_000;

/// The deepest element nesting judge-ci accepts in XML the subject controls.
pub const MAX_XML_DEPTH: usize = 256;

/// Why XML the subject controls was not parsed; each names the file (`what`) and, for a
/// bound, the bound.
#[derive(Debug, Error)]
pub enum XmlError {
    /// Not well-formed (or a DTD where none is allowed): roxmltree's error, with its position.
    #[error("{what} is not well-formed XML: {source}")]
    NotWellFormed {
        /// What the file is (`the POM`, `TEST-x.xml`).
        what: String,
        /// What roxmltree said, with line and column.
        #[source]
        source: roxmltree::Error,
    },
    /// More than [`MAX_XML_NODES`] nodes.
    #[error(
        "{what} holds more than {MAX_XML_NODES} XML nodes, the most judge-ci reads of one file"
    )]
    TooManyNodes {
        /// What the file is.
        what: String,
    },
    /// Elements nested deeper than [`MAX_XML_DEPTH`] levels.
    #[error(
        "{what} nests XML elements deeper than {MAX_XML_DEPTH} levels, the most judge-ci reads"
    )]
    TooDeep {
        /// What the file is.
        what: String,
    },
}

/// Parses XML the subject controls (`what` names it in errors), with no DTD unless
/// `allow_dtd` (a declared DTD is never loaded), at most [`MAX_XML_NODES`] nodes and
/// [`MAX_XML_DEPTH`] levels; exceeding a bound is an error naming the file and the bound.
pub fn parse_xml<'a>(
    what: &str,
    text: &'a str,
    allow_dtd: bool,
) -> Result<roxmltree::Document<'a>, XmlError> {
    let options = roxmltree::ParsingOptions {
        allow_dtd,
        nodes_limit: MAX_XML_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| match e {
        roxmltree::Error::NodesLimitReached => XmlError::TooManyNodes { what: what.into() },
        source => XmlError::NotWellFormed {
            what: what.into(),
            source,
        },
    })?;
    // Document order visits a parent before its children: each depth is its parent's plus one.
    let mut depth = vec![0usize; doc.descendants().count()];
    for n in doc.descendants() {
        let d = n.parent().map_or(0, |p| {
            depth.get(p.id().get_usize()).copied().unwrap_or(0) + 1
        });
        if d > MAX_XML_DEPTH {
            return Err(XmlError::TooDeep { what: what.into() });
        }
        if let Some(slot) = depth.get_mut(n.id().get_usize()) {
            *slot = d;
        }
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read_and_nothing_blocks() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("f");
        std::fs::write(&file, "hello").unwrap();
        assert_eq!(read(&file, 5).unwrap(), b"hello");
        let e = read(&file, 4).unwrap_err();
        assert!(e.to_string().contains("over the 4 bytes"), "{e}");
        std::os::unix::fs::symlink(&file, d.path().join("link")).unwrap();
        assert_eq!(
            read(&d.path().join("link"), 10).unwrap_err().not_regular(),
            Some(Kind::Symlink)
        );
        let fifo = d.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o644)).unwrap();
        // Would block forever without O_NONBLOCK: no writer ever comes.
        let e = read(&fifo, 10).unwrap_err();
        assert_eq!(e.not_regular(), Some(Kind::Fifo), "{e}");
        assert!(e.to_string().contains("file-not-regular"), "{e}");
        let sock = d.path().join("sock");
        let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert_eq!(
            read(&sock, 10).unwrap_err().not_regular(),
            Some(Kind::Socket)
        );
        assert_eq!(
            read(Path::new("/dev/zero"), 10).unwrap_err().not_regular(),
            Some(Kind::CharDevice)
        );
        assert_eq!(
            read(d.path(), 10).unwrap_err().not_regular(),
            Some(Kind::Directory)
        );
        assert!(matches!(
            read(&d.path().join("none"), 10),
            Err(ReadError::Io { .. })
        ));
    }

    #[test]
    fn xml_node_counts_are_bounded() {
        let text = format!("<r>{}</r>", "<a/>".repeat(MAX_XML_NODES as usize + 1));
        let e = parse_xml("TEST-x.xml", &text, false).unwrap_err();
        assert!(
            matches!(&e, XmlError::TooManyNodes { what } if what == "TEST-x.xml"),
            "{e}"
        );
        let deep = format!("{}{}", "<a>".repeat(300), "</a>".repeat(300));
        let e = parse_xml("deep.xml", &deep, false).unwrap_err();
        assert!(
            matches!(&e, XmlError::TooDeep { what } if what == "deep.xml"),
            "{e}"
        );
        assert!(parse_xml("ok.xml", "<r><a/></r>", false).is_ok());
        let e = parse_xml("dtd.xml", "<!DOCTYPE r []><r/>", false).unwrap_err();
        assert!(
            matches!(&e, XmlError::NotWellFormed { what, .. } if what == "dtd.xml"),
            "{e}"
        );
    }
}

/// `p` as judge-ci prints a name the subject chose (a file it planted, a hook it added) on a
/// line of its own log: control characters escaped (`\n` stays two characters), so the name
/// can never start a line of its own, where the runner would read `::error::` or
/// `::add-mask::` as a workflow command (attack finding s3 N2).
pub fn shown(p: &std::path::Path) -> String {
    p.display()
        .to_string()
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod shown_tests {
    #[test]
    fn a_planted_name_cannot_start_a_line_of_the_log() {
        let name = std::path::Path::new("out/a\n::error title=PWNED::x\r\n::add-mask::judge-ci\nb");
        let s = super::shown(name);
        assert!(!s.contains('\n') && !s.contains('\r'), "{s}");
        assert!(s.contains("\\n::error"), "{s}");
    }
}
