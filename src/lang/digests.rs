//! What a file's bytes hash to (SHA-256, the model cache's key), remembered between runs by an
//! identity that changes whenever the bytes can: a file's path and stat data (as git's index
//! remembers blob ids), or a git blob id. A warm re-run then finds a file's models, and
//! whether two files are identical, without reading either.
//!
//! Kept beside the packs ([`super::cache`]) as one file, `digests`: a magic, the entries
//! (postcard), then their SHA-256; a file that does not hold is ignored, and replaced when the
//! run ends. It holds what the last run used or learnt, then older entries, at most
//! [`MAX_ENTRIES`] (an entry whose file changed is never asked for again and falls out when the
//! bound is reached), written to a temporary file and renamed into place, so runs sharing the folder never read half of one
//! (the last to finish wins). It is read when the store opens, before any subject code runs;
//! the folder is hidden from subject processes. The caller records a file's digest only when
//! the file's ctime was settled before it was read, so a file written since then, however it
//! fakes its size and mtime, has other stat data and is read again.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A SHA-256.
pub type Key = [u8; 32];

/// Most entries kept (about 120 bytes each: a path, stat data and a digest; some 60 MB).
pub const MAX_ENTRIES: usize = 500_000;

/// The file starts with this.
const MAGIC: &[u8; 4] = b"JCD\x01";

/// Remembered digests: those read when the store opened, and those this run used or learnt.
#[derive(Debug)]
pub struct Memory {
    path: PathBuf,
    known: HashMap<Vec<u8>, Key>,
    now: Mutex<HashMap<Vec<u8>, Key>>,
}

impl Memory {
    /// Reads the memory kept at `path` (empty when missing or unsound).
    pub fn open(path: PathBuf) -> Memory {
        let known = std::fs::read(&path)
            .ok()
            .and_then(|b| decode(&b))
            .unwrap_or_default();
        Memory {
            path,
            known,
            now: Mutex::default(),
        }
    }

    fn now(&self) -> std::sync::MutexGuard<'_, HashMap<Vec<u8>, Key>> {
        self.now.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The digest remembered for `id`.
    pub fn get(&self, id: &[u8]) -> Option<Key> {
        if let Some(k) = self.now().get(id) {
            return Some(*k);
        }
        let k = *self.known.get(id)?;
        self.now().insert(id.to_vec(), k);
        Some(k)
    }

    /// Remembers `key` as the digest of the content `id` names.
    pub fn put(&self, id: Vec<u8>, key: Key) {
        let mut now = self.now();
        if now.len() < MAX_ENTRIES {
            now.insert(id, key);
        }
    }

    /// Keeps what this run used or learnt, then what earlier runs remembered, up to
    /// [`MAX_ENTRIES`], for the next run (best effort: a memory that cannot be written only
    /// makes the next run read more). Nothing is written when the run learnt nothing new.
    pub fn save(&self) {
        let now = self.now();
        if now.iter().all(|(k, v)| self.known.get(k) == Some(v)) {
            return;
        }
        let mut entries: Vec<(&Vec<u8>, &Key)> = now.iter().collect();
        let older = self.known.iter().filter(|(k, _)| !now.contains_key(*k));
        entries.extend(older.take(MAX_ENTRIES.saturating_sub(entries.len())));
        let Ok(payload) = postcard::to_stdvec(&entries) else {
            return;
        };
        let _ = write_atomically(&self.path, &payload);
    }
}

fn decode(bytes: &[u8]) -> Option<HashMap<Vec<u8>, Key>> {
    let body = bytes.strip_prefix(MAGIC)?;
    let (payload, digest) = body.split_at_checked(body.len().checked_sub(32)?)?;
    if Sha256::digest(payload).as_slice() != digest {
        return None;
    }
    let entries: Vec<(Vec<u8>, Key)> = postcard::from_bytes(payload).ok()?;
    Some(entries.into_iter().collect())
}

fn write_atomically(path: &Path, payload: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".digests-")
        .tempfile_in(dir)?;
    tmp.write_all(MAGIC)?;
    tmp.write_all(payload)?;
    tmp.write_all(&Sha256::digest(payload))?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_run_learns_is_read_back_and_a_damaged_file_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("digests");
        let m = Memory::open(path.clone());
        assert_eq!(m.get(b"a"), None);
        m.put(b"a".to_vec(), [1; 32]);
        m.save();
        let m = Memory::open(path.clone());
        assert_eq!(m.get(b"a"), Some([1; 32]));
        // Every byte flipped in turn: never a wrong digest, only none.
        let good = std::fs::read(&path).unwrap();
        for i in 0..good.len() {
            let mut bad = good.clone();
            bad[i] ^= 0x40;
            std::fs::write(&path, &bad).unwrap();
            let got = Memory::open(path.clone()).get(b"a");
            assert!(got.is_none() || got == Some([1; 32]), "byte {i}");
        }
        std::fs::write(&path, &good[..good.len() - 1]).unwrap();
        assert_eq!(Memory::open(path.clone()).get(b"a"), None);
    }

    #[test]
    fn the_next_run_keeps_what_this_one_learnt_and_what_earlier_ones_did() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("digests");
        let m = Memory::open(path.clone());
        m.put(b"old".to_vec(), [1; 32]);
        m.put(b"used".to_vec(), [2; 32]);
        m.save();
        let m = Memory::open(path.clone());
        assert_eq!(m.get(b"used"), Some([2; 32]));
        m.put(b"new".to_vec(), [3; 32]);
        m.save();
        let m = Memory::open(path.clone());
        assert_eq!(m.get(b"old"), Some([1; 32]));
        assert_eq!(m.get(b"used"), Some([2; 32]));
        assert_eq!(m.get(b"new"), Some([3; 32]));
        // A run that learns nothing new leaves the file as it was.
        let before = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let m = Memory::open(path.clone());
        assert_eq!(m.get(b"new"), Some([3; 32]));
        m.save();
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            before
        );
    }
}
