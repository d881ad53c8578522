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

use super::Comparisons;
use super::select::{self, Stat, Time, settled};
use super::tree::Tree;
use crate::judgment::{Finding, FindingKind};
use crate::lang::cache::{Key, Kind};

/// Which side a file is on, and how its bytes are read.
#[derive(Clone, Copy, Debug)]
pub enum Side<'a> {
    /// The workspace folder (or its snapshot).
    Workspace(&'a Path),
    /// The reference tree.
    Reference(&'a Tree),
}

/// Which side of a comparison a file that could not be read is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::Display)]
#[strum(serialize_all = "lowercase")]
pub enum Which {
    /// The workspace (or its snapshot).
    Workspace,
    /// The reference.
    Reference,
}

/// Why one side's version of a file could not be given: which side, and why (shared, as the
/// read is attempted once and its outcome asked for again).
#[derive(Clone, Debug, thiserror::Error)]
#[error("{side}: {source}")]
pub struct ContentError {
    /// The side.
    pub side: Which,
    /// Why.
    #[source]
    pub source: std::sync::Arc<crate::judges::paths::FileError>,
}

/// One side's version of a file.
pub struct Content<'a> {
    rel: &'a str,
    side: Side<'a>,
    /// The run: what git knows of its folders, its model cache.
    run: &'a Comparisons,
    /// Stat data from the listing (zero for a tree in git).
    stamp: Stat,
    digest: OnceLock<Key>,
    bytes: OnceLock<Result<Vec<u8>, std::sync::Arc<crate::judges::paths::FileError>>>,
    /// The SHA-256 of `bytes`.
    read_digest: OnceLock<Key>,
    /// When `bytes` began to be read.
    read_at: OnceLock<Time>,
}

impl<'a> Content<'a> {
    /// `rel` on `side`, with the stat data the listing found, read for the run `run`.
    pub fn new(rel: &'a str, side: Side<'a>, stamp: Stat, run: &'a Comparisons) -> Content<'a> {
        Content {
            rel,
            side,
            run,
            stamp,
            digest: OnceLock::new(),
            bytes: OnceLock::new(),
            read_digest: OnceLock::new(),
            read_at: OnceLock::new(),
        }
    }

    /// Which side it is on.
    fn which(&self) -> Which {
        match self.side {
            Side::Workspace(_) => Which::Workspace,
            Side::Reference(_) => Which::Reference,
        }
    }

    /// What names this content in the digest memory: a blob id (a tree in git, or a file git
    /// vouches for), or the file's absolute path and stat data. A snapshot judge-ci copied
    /// gets no name: its folder is new each run.
    fn id(&self) -> Option<Vec<u8>> {
        let blob = |id: git2::Oid| {
            let mut out = b"b".to_vec();
            out.extend_from_slice(id.as_bytes());
            out
        };
        let root: &Path = match self.side {
            Side::Reference(t @ Tree::Commit { .. }) => return t.blob_id(self.rel).map(blob),
            Side::Workspace(root) => root,
            Side::Reference(Tree::Folder(root)) => root,
        };
        // Where git vouches for the file as it is now (a revision judge-ci wrote, untouched
        // since; a working-tree file whose stat data match its index entry), its blob id
        // names it, which a fresh checkout of the same commit shares.
        match self.run.sides().side_of(root) {
            Some(select::Side::Copy(_)) => return None,
            Some(side) => {
                if let Some(id) = side.id(self.rel, &self.stamp) {
                    return Some(blob(id));
                }
            }
            None => {}
        }
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
    pub fn bytes(&self) -> Result<&[u8], ContentError> {
        self.bytes
            .get_or_init(|| {
                let _ = self.read_at.set(Time::of(SystemTime::now()));
                match self.side {
                    Side::Workspace(root) => super::read_bounded(&root.join(self.rel)),
                    Side::Reference(t) => t.read(self.rel),
                }
                .map_err(std::sync::Arc::new)
            })
            .as_ref()
            .map(Vec::as_slice)
            .map_err(|source| ContentError {
                side: self.which(),
                source: std::sync::Arc::clone(source),
            })
    }

    /// The SHA-256 of the bytes read (hashed once).
    fn read_digest(&self) -> Result<Key, ContentError> {
        if let Some(k) = self.read_digest.get() {
            return Ok(*k);
        }
        let k: Key = Sha256::digest(self.bytes()?).into();
        Ok(*self.read_digest.get_or_init(|| k))
    }

    /// The digest when known without reading: learnt earlier in the run, or remembered.
    pub fn known_digest(&self) -> Option<Key> {
        if let Some(k) = self.digest.get() {
            return Some(*k);
        }
        let id = self.id()?;
        let k = match self.side {
            Side::Reference(_) => self.run.reference_digest(&id),
            Side::Workspace(_) => None,
        }
        .or_else(|| self.run.store()?.known_digest(&id))?;
        Some(*self.digest.get_or_init(|| k))
    }

    /// The digest, reading the file when it is not known; remembered for the next run when
    /// the file cannot have changed under its stat data: its stat data after the read are
    /// still the listing's, and its ctime was settled before the read.
    pub fn digest(&self) -> Result<Key, ContentError> {
        if let Some(k) = self.known_digest() {
            return Ok(k);
        }
        let read_at = Time::of(SystemTime::now());
        let key = self.read_digest()?;
        Ok(self.learnt(key, read_at))
    }

    /// The digest of a file whose bytes were read and found equal to `same`'s: `same`'s
    /// digest, taken instead of hashing the bytes again (a workspace file byte-identical to
    /// the reference's), and remembered as [`Content::digest`] remembers one.
    pub fn digest_as(&self, same: &Content) -> Result<Key, ContentError> {
        if let Some(k) = self.known_digest() {
            return Ok(k);
        }
        // Only for bytes this content read (and read whole): equal bytes have equal digests.
        let (Some(Ok(_)), Some(read_at)) = (self.bytes.get(), self.read_at.get().copied()) else {
            return self.digest();
        };
        let key = same.digest()?;
        Ok(self.learnt(key, read_at))
    }

    /// Records `key`, the digest of the bytes read (before `read_at`), for the run and, when
    /// the file cannot have changed under its stat data, for the next run.
    fn learnt(&self, key: Key, read_at: Time) -> Key {
        let on_disk = |root: &Path| {
            settled(&self.stamp, read_at)
                && std::fs::symlink_metadata(root.join(self.rel))
                    .is_ok_and(|m| Stat::of(&m) == self.stamp)
        };
        let stable = match self.side {
            Side::Reference(Tree::Commit { .. }) => true,
            Side::Workspace(root) => on_disk(root),
            Side::Reference(Tree::Folder(root)) => on_disk(root),
        };
        if let Side::Reference(_) = self.side
            && let Some(id) = self.id()
        {
            self.run.remember_reference_digest(id, key);
        }
        if stable
            && let Some(store) = self.run.store()
            && let Some(id) = self.id()
        {
            store.remember_digest(id, key);
        }
        *self.digest.get_or_init(|| key)
    }

    /// The model `parse` makes of the bytes: from the model cache by digest when it holds
    /// one (the file then need not be read), else parsed and stored under the digest of the
    /// bytes parsed (never a digest learnt earlier: the file may have changed since).
    pub fn model<T: Serialize + DeserializeOwned>(
        &self,
        kind: Kind,
        parse: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, ContentError> {
        let Some(store) = self.run.store() else {
            return Ok(parse(self.bytes()?));
        };
        if let Some(m) = store.get(kind, &self.digest()?) {
            return Ok(m);
        }
        let key = self.read_digest()?;
        let m = parse(self.bytes()?);
        store.put(kind, &key, &m);
        Ok(m)
    }
}

/// The `file-unreadable` finding for a file one side could not give.
pub fn unreadable(rel: &str, why: &ContentError) -> Vec<Finding> {
    vec![Finding::new(rel, FindingKind::FileUnreadable).actual(why.to_string())]
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
    let wm = w.model(kind, &parse).map_err(|e| unreadable(rel, &e))?;
    let rm = r.model(kind, &parse).map_err(|e| unreadable(rel, &e))?;
    Ok((wm, rm))
}

/// Both sides' bytes, or the finding for the side that could not be read.
pub fn bytes<'c>(
    rel: &str,
    w: &'c Content,
    r: &'c Content,
) -> Result<(&'c [u8], &'c [u8]), Vec<Finding>> {
    let wb = w.bytes().map_err(|e| unreadable(rel, &e))?;
    let rb = r.bytes().map_err(|e| unreadable(rel, &e))?;
    Ok((wb, rb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::cache::Store;

    /// A workspace file read and found byte-identical to the reference's takes the
    /// reference's digest without being hashed, and the model cache finds it by that digest.
    #[test]
    fn a_byte_identical_workspace_file_takes_the_references_digest_unhashed() {
        let ws = tempfile::tempdir().unwrap();
        let rf = tempfile::tempdir().unwrap();
        let text = b"package p;\nclass A {}\n";
        std::fs::write(ws.path().join("A.java"), text).unwrap();
        std::fs::write(rf.path().join("A.java"), text).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let run = Comparisons::new(
            Default::default(),
            Some(std::sync::Arc::new(Store::new(
                cache.path().to_path_buf(),
                u64::MAX,
            ))),
        );
        let tree = Tree::Folder(rf.path().to_path_buf());
        let w = Content::new("A.java", Side::Workspace(ws.path()), Stat::default(), &run);
        let r = Content::new("A.java", Side::Reference(&tree), Stat::default(), &run);
        assert_eq!(w.bytes().unwrap(), r.bytes().unwrap());
        let k = w.digest_as(&r).unwrap();
        let sha: Key = Sha256::digest(text).into();
        assert_eq!(k, sha);
        assert!(
            w.read_digest.get().is_none(),
            "the workspace copy was hashed"
        );
        assert_eq!(w.known_digest(), Some(sha));
        // Not read: digest_as falls back to hashing its own bytes.
        let unread = Content::new("A.java", Side::Workspace(ws.path()), Stat::default(), &run);
        assert_eq!(unread.digest_as(&r).unwrap(), sha);
    }

    /// A file whose bytes changed after its digest was learnt: its model is stored under the
    /// digest of the bytes parsed, never under the digest learnt before (which a later run
    /// would then take for the old bytes' model).
    #[test]
    fn a_model_is_stored_under_the_digest_of_the_bytes_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let old = b"package p;\nimport javax.servlet.Servlet;\nclass A {}\n";
        let new = b"package p;\nimport jakarta.servlet.Servlet;\nclass A {}\n";
        std::fs::write(dir.path().join("A.java"), new).unwrap();
        let cache = tempfile::tempdir().unwrap();
        let run = Comparisons::new(
            Default::default(),
            Some(std::sync::Arc::new(Store::new(
                cache.path().to_path_buf(),
                u64::MAX,
            ))),
        );
        let store = run.store().unwrap();
        let learnt: Key = Sha256::digest(old).into();
        let c = Content::new("A.java", Side::Workspace(dir.path()), Stat::default(), &run);
        // Learnt by an earlier read, when the file held the old bytes.
        store.remember_digest(c.id().unwrap(), learnt);
        let h = c.model(Kind::Header, crate::lang::java::header).unwrap();
        let parsed: Key = Sha256::digest(new).into();
        let under_learnt: Option<crate::lang::java::Header> = store.get(Kind::Header, &learnt);
        let under_parsed: Option<crate::lang::java::Header> = store.get(Kind::Header, &parsed);
        assert_eq!(h.imports[0].path, "jakarta.servlet.Servlet");
        assert!(under_learnt.is_none());
        assert_eq!(
            under_parsed.unwrap().imports[0].path,
            "jakarta.servlet.Servlet"
        );
    }
}
