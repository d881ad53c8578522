//! One side's version of a file in a comparison, read only when it must be: its models come
//! from the model cache by the file's digest, and the digest from the digest memory
//! ([`crate::lang::digests`]) by what names the content — the file's path and stat data, or
//! the blob id of a tree left in git — so that a re-run on the same trees parses nothing and
//! reads no file it compared before.

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;
use std::time::SystemTime;

use super::select::{Stat, Time, settled};
use super::tree::Tree;
use crate::judgment::{Finding, FindingKind};
use crate::lang::cache::{self, Key, Kind};

/// Which side a file is on, and how its bytes are read.
#[derive(Clone, Copy, Debug)]
pub enum Side<'a> {
    /// The workspace folder (or its snapshot).
    Workspace(&'a Path),
    /// The reference tree.
    Reference(&'a Tree),
}

/// One side's version of a file.
pub struct Content<'a> {
    rel: &'a str,
    side: Side<'a>,
    /// Stat data from the listing (zero for a tree in git).
    stamp: Stat,
    digest: OnceLock<Key>,
    bytes: OnceLock<Result<Vec<u8>, String>>,
}

impl<'a> Content<'a> {
    /// `rel` on `side`, with the stat data the listing found and its digest when known.
    pub fn new(rel: &'a str, side: Side<'a>, stamp: Stat, digest: Option<Key>) -> Content<'a> {
        let d = OnceLock::new();
        if let Some(k) = digest {
            let _ = d.set(k);
        }
        Content {
            rel,
            side,
            stamp,
            digest: d,
            bytes: OnceLock::new(),
        }
    }

    /// `workspace` or `reference`, for messages.
    fn side_name(&self) -> &'static str {
        match self.side {
            Side::Workspace(_) => "workspace",
            Side::Reference(_) => "reference",
        }
    }

    /// What names this content in the digest memory: a blob id, or the file's absolute path
    /// and stat data.
    fn id(&self) -> Option<Vec<u8>> {
        let root = match self.side {
            Side::Workspace(root) => root,
            Side::Reference(Tree::Folder(root)) => root,
            Side::Reference(t @ Tree::Commit { .. }) => {
                let mut id = b"b".to_vec();
                id.extend_from_slice(t.blob_id(self.rel)?.as_bytes());
                return Some(id);
            }
        };
        let s = &self.stamp;
        let mut id = b"f".to_vec();
        id.extend_from_slice(root.join(self.rel).as_os_str().as_bytes());
        id.push(0);
        for n in [
            s.len,
            s.mtime.secs as u64,
            u64::from(s.mtime.nanos),
            s.ctime.secs as u64,
            u64::from(s.ctime.nanos),
            s.ino,
            u64::from(s.uid),
            u64::from(s.gid),
        ] {
            id.extend_from_slice(&n.to_le_bytes());
        }
        Some(id)
    }

    /// The bytes (read once).
    pub fn bytes(&self) -> Result<&[u8], String> {
        self.bytes
            .get_or_init(|| match self.side {
                Side::Workspace(root) => super::read_bounded(&root.join(self.rel)),
                Side::Reference(t) => t.read(self.rel),
            })
            .as_ref()
            .map(Vec::as_slice)
            .map_err(|e| format!("{}: {e}", self.side_name()))
    }

    /// The digest when known without reading: given by the listing, or remembered.
    pub fn known_digest(&self) -> Option<Key> {
        if let Some(k) = self.digest.get() {
            return Some(*k);
        }
        let k = cache::known_digest(&self.id()?)?;
        Some(*self.digest.get_or_init(|| k))
    }

    /// The digest, reading the file when it is not known; remembered for the next run when
    /// the file cannot have changed under the same stat data since it was read.
    pub fn digest(&self) -> Result<Key, String> {
        if let Some(k) = self.known_digest() {
            return Ok(k);
        }
        let read_at = Time::of(SystemTime::now());
        let key: Key = Sha256::digest(self.bytes()?).into();
        let stable = match self.side {
            Side::Reference(Tree::Commit { .. }) => true,
            Side::Workspace(_) | Side::Reference(Tree::Folder(_)) => settled(&self.stamp, read_at),
        };
        if stable && let Some(id) = self.id() {
            cache::remember_digest(id, key);
        }
        Ok(*self.digest.get_or_init(|| key))
    }

    /// The model `parse` makes of the bytes: from the model cache by digest when it holds
    /// one (the file then need not be read), else parsed and stored.
    pub fn model<T: Serialize + DeserializeOwned>(
        &self,
        kind: Kind,
        parse: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, String> {
        if !cache::enabled() {
            return Ok(parse(self.bytes()?));
        }
        let key = self.digest()?;
        if let Some(m) = cache::get_keyed(kind, &key) {
            return Ok(m);
        }
        let m = parse(self.bytes()?);
        cache::put_keyed(kind, &key, &m);
        Ok(m)
    }
}

/// The `file-unreadable` finding for a file one side could not give.
pub fn unreadable(rel: &str, why: String) -> Vec<Finding> {
    vec![Finding::new(rel, FindingKind::FileUnreadable).actual(why)]
}

/// Both sides' models (the workspace's first, as its failure is reported first), or the
/// finding for the side that could not be read.
pub fn models<T: Serialize + DeserializeOwned>(
    rel: &str,
    w: &Content,
    r: &Content,
    kind: Kind,
    parse: impl Fn(&[u8]) -> T,
) -> Result<(T, T), Vec<Finding>> {
    let wm = w.model(kind, &parse).map_err(|e| unreadable(rel, e))?;
    let rm = r.model(kind, &parse).map_err(|e| unreadable(rel, e))?;
    Ok((wm, rm))
}

/// Both sides' bytes, or the finding for the side that could not be read.
pub fn bytes<'c>(
    rel: &str,
    w: &'c Content,
    r: &'c Content,
) -> Result<(&'c [u8], &'c [u8]), Vec<Finding>> {
    let wb = w.bytes().map_err(|e| unreadable(rel, e))?;
    let rb = r.bytes().map_err(|e| unreadable(rel, e))?;
    Ok((wb, rb))
}
