//! A content-addressed cache of parsed models (source files of each [`Language`], and their
//! headers: package, imports, Java's unicode escapes) kept between runs, so that a re-run on the same commits parses nothing it
//! parsed before. POMs are not cached: their model depends on `.mvn/` and the parents around
//! them, not on their bytes alone (and a tree holds few of them).
//!
//! An entry is keyed by the SHA-256 of the file's bytes and the model's kind (which carries
//! the language: [`Kind`]), under a folder of
//! [`super::MODEL_VERSION`]; its payload is the model in postcard. Entries live in *packs*, a
//! few large files instead of one small file per model (a tree of 30,000 Java files made 90,000
//! files): a pack is the payloads, then an index sorted by kind and key giving each payload's
//! place, length and SHA-256, then a footer with the index's SHA-256. A run appends what it
//! parses to a temporary pack of its own and renames it into place when it finishes; a pack in
//! place is never written again, so runs sharing the folder never see half a pack.
//!
//! What is read back is checked: a pack whose header, footer or index does not hold is ignored
//! (and removed when the run finishes), an entry whose payload does not match the digest its
//! index gives, or does not decode, is ignored, parsed again and written to the run's new pack,
//! which later runs prefer (newer packs first). When a run finishes and the folder holds more
//! than [`MAX_PACKS`] packs or more than its bound ([`DEFAULT_MAX_BYTES`] unless configured),
//! the packs are merged into one under a lock file (a run that finds it taken leaves merging to
//! the next): the entries this run used or wrote first, then those of the most recently used
//! packs, up to 80% of the bound; corrupt entries are dropped on the way.
//!
//! Subject code never reaches it: the folder is hidden from subject processes
//! ([`crate::fence::Fence::hide`]: no read, no write), and never inside the workspace (a pull request
//! could commit packs there). Within a run, only the packs present when the store was opened
//! (before any subject code runs) and the run's own are read, each payload checked against
//! the digest held in memory since then: a pack written or changed by anyone else during the
//! run changes nothing.
//!
//! Beside the packs, the store keeps the digest memory ([`super::digests`]): which SHA-256 a
//! file has, by its path and stat data or its blob id, so that a re-run finds models without
//! reading the files.
//!
//! Default: `$RUNNER_TEMP/judge-ci/models` in GitHub Actions (keep it with `actions/cache`),
//! else `$XDG_CACHE_HOME/judge-ci/models`, else `~/.cache/judge-ci/models`, beside the LLM
//! reply cache; `--model-cache DIR|off` (or `JUDGE_CI_MODEL_CACHE`) moves it or turns it off.

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use super::{Language, MODEL_VERSION};

/// The bound on the folder's size when none is configured.
pub const DEFAULT_MAX_BYTES: u64 = 1024 * 1024 * 1024;
/// More packs than this are merged into one when a run finishes.
pub const MAX_PACKS: usize = 8;
/// Entries larger than this are neither written nor read.
const MAX_ENTRY_BYTES: u64 = 64 * 1024 * 1024;
/// A pack used less recently than this gets its mtime refreshed (what merging orders by).
const REFRESH_AFTER: Duration = Duration::from_secs(24 * 3600);
/// Leftover temporary packs (of a writer that died) older than this are removed.
const STALE_TEMP: Duration = Duration::from_secs(3600);
/// A pack starts with this and the model version.
const MAGIC: &[u8; 4] = b"JCP\x01";
/// A pack ends with this.
const END: &[u8; 4] = b"JCPE";
/// Bytes of the header: magic and model version.
const HEADER: u64 = 8;
/// Bytes of one index entry: kind, key, offset, length, digest.
const INDEX_ENTRY: usize = 1 + KEY_BYTES + 8 + 4 + KEY_BYTES;
/// Bytes of the footer: index offset, entry count, the index's digest, end magic.
const FOOTER: u64 = 8 + 4 + KEY_BYTES as u64 + 4;
/// A SHA-256.
const KEY_BYTES: usize = 32;

/// A SHA-256: an entry's key and a payload's digest.
pub type Key = [u8; KEY_BYTES];

/// Which model an entry holds: the model and the language it is of (the same bytes are
/// another model in another language). Each language has its three; the byte of an entry
/// never changes once written (a new language takes new bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A Java file's model with method-body hashes.
    JavaWithBodies,
    /// A Java file's model without them.
    JavaSignatures,
    /// A Java file's header (package, imports, unicode escapes).
    Header,
    /// A Kotlin file's model with function-body hashes.
    KotlinWithBodies,
    /// A Kotlin file's model without them.
    KotlinSignatures,
    /// A Kotlin file's header (package, imports).
    KotlinHeader,
}

impl Kind {
    fn byte(self) -> u8 {
        match self {
            Kind::JavaWithBodies => 1,
            Kind::JavaSignatures => 2,
            Kind::Header => 3,
            Kind::KotlinWithBodies => 4,
            Kind::KotlinSignatures => 5,
            Kind::KotlinHeader => 6,
        }
    }

    fn of(b: u8) -> Option<Kind> {
        match b {
            1 => Some(Kind::JavaWithBodies),
            2 => Some(Kind::JavaSignatures),
            3 => Some(Kind::Header),
            4 => Some(Kind::KotlinWithBodies),
            5 => Some(Kind::KotlinSignatures),
            6 => Some(Kind::KotlinHeader),
            _ => None,
        }
    }

    /// The entry of a `language` file's model, body hashes included or not.
    pub fn model(language: Language, bodies: bool) -> Kind {
        match (language, bodies) {
            (Language::Java, true) => Kind::JavaWithBodies,
            (Language::Java, false) => Kind::JavaSignatures,
            (Language::Kotlin, true) => Kind::KotlinWithBodies,
            (Language::Kotlin, false) => Kind::KotlinSignatures,
        }
    }

    /// The entry of a `language` file's header.
    pub fn header(language: Language) -> Kind {
        match language {
            Language::Java => Kind::Header,
            Language::Kotlin => Kind::KotlinHeader,
        }
    }

    /// The language whose model the entry holds.
    pub fn language(self) -> Language {
        match self {
            Kind::JavaWithBodies | Kind::JavaSignatures | Kind::Header => Language::Java,
            Kind::KotlinWithBodies | Kind::KotlinSignatures | Kind::KotlinHeader => {
                Language::Kotlin
            }
        }
    }
}

/// Where one payload is in a pack, and its digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Loc {
    offset: u64,
    len: u32,
    digest: Key,
}

/// One index entry, encoded as it is stored (sorting the encodings sorts by kind and key).
fn encode_entry(kind: Kind, key: &Key, loc: &Loc) -> [u8; INDEX_ENTRY] {
    let mut e = [0u8; INDEX_ENTRY];
    e[0] = kind.byte();
    e[1..33].copy_from_slice(key);
    e[33..41].copy_from_slice(&loc.offset.to_le_bytes());
    e[41..45].copy_from_slice(&loc.len.to_le_bytes());
    e[45..].copy_from_slice(&loc.digest);
    e
}

fn decode_entry(e: &[u8]) -> Option<(Kind, Key, Loc)> {
    let kind = Kind::of(*e.first()?)?;
    let key: Key = e.get(1..33)?.try_into().ok()?;
    let offset = u64::from_le_bytes(e.get(33..41)?.try_into().ok()?);
    let len = u32::from_le_bytes(e.get(41..45)?.try_into().ok()?);
    let digest: Key = e.get(45..INDEX_ENTRY)?.try_into().ok()?;
    Some((
        kind,
        key,
        Loc {
            offset,
            len,
            digest,
        },
    ))
}

fn header() -> [u8; HEADER as usize] {
    let mut h = [0u8; HEADER as usize];
    h[..4].copy_from_slice(MAGIC);
    h[4..].copy_from_slice(&MODEL_VERSION.to_le_bytes());
    h
}

/// A pack in place, opened when the store was: its index (sorted, checked) held in memory.
#[derive(Debug)]
struct Pack {
    path: PathBuf,
    file: File,
    /// Bytes on disk.
    size: u64,
    mtime: SystemTime,
    /// The index: entries of [`INDEX_ENTRY`] bytes, sorted.
    index: Vec<u8>,
    /// Whether this run read an entry from it (its mtime is then refreshed).
    used: AtomicBool,
}

impl Pack {
    /// Opens a pack and checks its frame and index; `None` when they do not hold.
    fn open(path: &Path) -> Option<Pack> {
        let file = File::open(path).ok()?;
        let meta = file.metadata().ok()?;
        let size = meta.len();
        if size < HEADER + FOOTER {
            return None;
        }
        let mut h = [0u8; HEADER as usize];
        file.read_exact_at(&mut h, 0).ok()?;
        if h != header() {
            return None;
        }
        let mut f = [0u8; FOOTER as usize];
        file.read_exact_at(&mut f, size - FOOTER).ok()?;
        if &f[44..48] != END {
            return None;
        }
        let index_at = u64::from_le_bytes(f[..8].try_into().ok()?);
        let count = u64::from(u32::from_le_bytes(f[8..12].try_into().ok()?));
        let index_len = count.checked_mul(INDEX_ENTRY as u64)?;
        if index_at < HEADER || index_at.checked_add(index_len)?.checked_add(FOOTER)? != size {
            return None;
        }
        let mut index = vec![0u8; usize::try_from(index_len).ok()?];
        file.read_exact_at(&mut index, index_at).ok()?;
        if Sha256::digest(&index).as_slice() != &f[12..44] {
            return None;
        }
        // Sorted, strictly (no key twice), and every payload inside the payload area.
        let mut previous: Option<&[u8]> = None;
        for e in index.chunks_exact(INDEX_ENTRY) {
            let (_, _, loc) = decode_entry(e)?;
            if loc.offset < HEADER || loc.offset.checked_add(u64::from(loc.len))? > index_at {
                return None;
            }
            if previous.is_some_and(|p| p[..33] >= e[..33]) {
                return None;
            }
            previous = Some(e);
        }
        Some(Pack {
            path: path.to_path_buf(),
            file,
            size,
            mtime: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            index,
            used: AtomicBool::new(false),
        })
    }

    fn entries(&self) -> impl Iterator<Item = (Kind, Key, Loc)> + '_ {
        self.index
            .chunks_exact(INDEX_ENTRY)
            .filter_map(decode_entry)
    }

    /// Where the payload of `kind`/`key` is, by binary search of the index.
    fn find(&self, kind: Kind, key: &Key) -> Option<Loc> {
        let mut want = [0u8; 33];
        want[0] = kind.byte();
        want[1..].copy_from_slice(key);
        let n = self.index.len() / INDEX_ENTRY;
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let e = &self.index[mid * INDEX_ENTRY..(mid + 1) * INDEX_ENTRY];
            match e[..33].cmp(&want) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return decode_entry(e).map(|(_, _, l)| l),
            }
        }
        None
    }
}

/// Reads one payload and checks it against its digest.
fn read_payload(file: &File, loc: &Loc) -> Option<Vec<u8>> {
    if u64::from(loc.len) > MAX_ENTRY_BYTES {
        return None;
    }
    let mut buf = vec![0u8; loc.len as usize];
    file.read_exact_at(&mut buf, loc.offset).ok()?;
    (Sha256::digest(&buf).as_slice() == loc.digest).then_some(buf)
}

/// The pack a run is writing: a temporary file in the store's folder, its entries in memory.
#[derive(Debug)]
struct Writer {
    tmp: tempfile::NamedTempFile,
    len: u64,
    entries: std::collections::HashMap<(Kind, Key), Loc>,
}

impl Writer {
    fn new(root: &Path) -> std::io::Result<Writer> {
        std::fs::create_dir_all(root)?;
        let tmp = tempfile::Builder::new()
            .prefix(".tmp-pack-")
            .tempfile_in(root)?;
        tmp.as_file().write_all_at(&header(), 0)?;
        Ok(Writer {
            tmp,
            len: HEADER,
            entries: Default::default(),
        })
    }

    fn append(&mut self, kind: Kind, key: Key, payload: &[u8]) -> std::io::Result<()> {
        let len = u32::try_from(payload.len()).map_err(std::io::Error::other)?;
        self.tmp.as_file().write_all_at(payload, self.len)?;
        let loc = Loc {
            offset: self.len,
            len,
            digest: Sha256::digest(payload).into(),
        };
        self.len += u64::from(len);
        self.entries.insert((kind, key), loc);
        Ok(())
    }

    /// Writes the index and footer and renames the pack into place; returns its path.
    fn finish(self, root: &Path) -> std::io::Result<PathBuf> {
        let mut index: Vec<[u8; INDEX_ENTRY]> = self
            .entries
            .iter()
            .map(|((kind, key), loc)| encode_entry(*kind, key, loc))
            .collect();
        index.sort_unstable();
        let index = index.concat();
        let count = u32::try_from(index.len() / INDEX_ENTRY).map_err(std::io::Error::other)?;
        let digest = Sha256::digest(&index);
        let mut tail = index;
        tail.extend_from_slice(&self.len.to_le_bytes());
        tail.extend_from_slice(&count.to_le_bytes());
        tail.extend_from_slice(&digest);
        tail.extend_from_slice(END);
        self.tmp.as_file().write_all_at(&tail, self.len)?;
        let name = format!("pack-{}.jcp", &hex::encode(digest)[..32]);
        let path = root.join(name);
        self.tmp.persist(&path).map_err(|e| e.error)?;
        Ok(path)
    }
}

/// Where the cache is, what it held when opened, and the pack this run writes.
#[derive(Debug)]
pub struct Store {
    /// The folder of this model version (`<dir>/v<MODEL_VERSION>`).
    root: PathBuf,
    /// The folder holding every version.
    dir: PathBuf,
    max_bytes: u64,
    /// The packs in place when the store was opened, newest first.
    packs: Vec<Pack>,
    /// Packs that did not hold when opened (removed when the run finishes).
    broken: Vec<PathBuf>,
    /// Entries found corrupt during this run: never served again.
    dropped: Mutex<HashSet<(Kind, Key)>>,
    /// Entries this run read from the packs (kept first when packs are merged).
    used: Mutex<HashSet<(Kind, Key)>>,
    pending: Mutex<Option<Writer>>,
    written: AtomicU64,
    /// Files' digests remembered between runs, so that a re-run finds models unread.
    digests: super::digests::Memory,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The default folder (see the module documentation), or `None` when no variable names one.
pub fn default_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if env("GITHUB_ACTIONS").as_deref() == Some("true")
        && let Some(t) = set("RUNNER_TEMP")
    {
        return Some(t.join("judge-ci/models"));
    }
    set("XDG_CACHE_HOME")
        .or_else(|| set("HOME").map(|h| h.join(".cache")))
        .filter(|p| p.is_absolute())
        .map(|p| p.join("judge-ci/models"))
}

/// Whether `dir` is `workspace` or inside it (where the pull request could plant entries).
pub fn inside(dir: &Path, workspace: &Path) -> bool {
    let mut probe = dir.to_path_buf();
    while !probe.exists() && probe.pop() {}
    let ws = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_path_buf());
    probe.canonicalize().is_ok_and(|p| p.starts_with(&ws))
}

/// The packs (`pack-*.jcp`) in `root` with their mtimes.
fn pack_files(root: &Path) -> Vec<(SystemTime, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    rd.flatten()
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with("pack-") && n.ends_with(".jcp")
        })
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            m.is_file()
                .then(|| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), e.path()))
        })
        .collect()
}

/// Opens the packs of `root`, newest first; the paths of those that do not hold.
fn open_packs(root: &Path) -> (Vec<Pack>, Vec<PathBuf>) {
    let mut files = pack_files(root);
    // Newest first; the name breaks ties so that every run reads them in one order.
    files.sort_by(|a, b| b.cmp(a));
    let mut packs = Vec::new();
    let mut broken = Vec::new();
    for (_, p) in files {
        match Pack::open(&p) {
            Some(pack) => packs.push(pack),
            None => broken.push(p),
        }
    }
    (packs, broken)
}

impl Store {
    /// Opens the store in `dir` bounded to `max_bytes`: reads and checks the index of every
    /// pack in place now (what the run will trust).
    pub fn new(dir: PathBuf, max_bytes: u64) -> Store {
        let root = dir.join(format!("v{MODEL_VERSION}"));
        let (packs, broken) = open_packs(&root);
        let digests = super::digests::Memory::open(root.join("digests"));
        Store {
            digests,
            root,
            dir,
            max_bytes,
            packs,
            broken,
            dropped: Default::default(),
            used: Default::default(),
            pending: Default::default(),
            written: AtomicU64::new(0),
        }
    }

    /// The folder holding every model version's packs.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn decode<T: DeserializeOwned>(payload: Option<Vec<u8>>) -> Option<T> {
        postcard::from_bytes(&payload?).ok()
    }

    /// The model stored for the content whose SHA-256 is `key`, when there is a sound entry.
    pub fn get<T: DeserializeOwned>(&self, kind: Kind, key: &Key) -> Option<T> {
        if !lock(&self.dropped).contains(&(kind, *key)) {
            for pack in &self.packs {
                let Some(loc) = pack.find(kind, key) else {
                    continue;
                };
                match Self::decode(read_payload(&pack.file, &loc)) {
                    Some(v) => {
                        if !pack.used.swap(true, Ordering::Relaxed) {
                            refresh(pack);
                        }
                        lock(&self.used).insert((kind, *key));
                        return Some(v);
                    }
                    None => {
                        lock(&self.dropped).insert((kind, *key));
                        break;
                    }
                }
            }
        }
        let pending = lock(&self.pending);
        let w = pending.as_ref()?;
        let loc = w.entries.get(&(kind, *key))?;
        Self::decode(read_payload(w.tmp.as_file(), loc))
    }

    /// Stores `value` as the model of the content whose SHA-256 is `key`, in this run's pack
    /// (best effort: a cache that cannot be written is only slower).
    pub fn put<T: Serialize>(&self, kind: Kind, key: &Key, value: &T) {
        let Ok(payload) = postcard::to_stdvec(value) else {
            return;
        };
        if payload.len() as u64 > MAX_ENTRY_BYTES {
            return;
        }
        let mut pending = lock(&self.pending);
        if pending.is_none() {
            *pending = Writer::new(&self.root).ok();
        }
        let Some(w) = pending.as_mut() else { return };
        if w.entries.contains_key(&(kind, *key)) {
            return;
        }
        if w.append(kind, *key, &payload).is_ok() {
            self.written
                .fetch_add(payload.len() as u64, Ordering::Relaxed);
        }
    }

    /// Stores `model` as the model of `content`; what [`cached`] does after parsing.
    pub fn insert<T: Serialize>(&self, kind: Kind, content: &[u8], model: &T) {
        self.put(kind, &Sha256::digest(content).into(), model);
    }

    /// The digest remembered for the content `id` names (see [`super::digests`]).
    pub fn known_digest(&self, id: &[u8]) -> Option<Key> {
        self.digests.get(id)
    }

    /// Remembers `digest` for the content `id` names; call it only when the content cannot
    /// have changed under that name since it was read (see [`super::digests`]).
    pub fn remember_digest(&self, id: Vec<u8>, digest: Key) {
        self.digests.put(id, digest);
    }

    /// Payload bytes written by this process.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// Renames this run's pack into place (when it wrote any entry); returns its path.
    pub fn flush(&self) -> Option<PathBuf> {
        let w = lock(&self.pending).take()?;
        w.finish(&self.root).ok()
    }

    /// Ends the run's use of the folder: its pack into place, then, under the folder's lock
    /// file (skipped when another run holds it), removes packs that did not hold, temporary
    /// packs of writers that died, and merges the packs when there are more than
    /// [`MAX_PACKS`] or they exceed the bound. Returns the bytes the folder holds after.
    pub fn finish(&self) -> u64 {
        self.digests.save();
        let ours = self.flush();
        let Ok(lock_file) = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.root.join(".lock"))
        else {
            return 0;
        };
        // Held until this function returns (dropping it unlocks).
        let Ok(_lock) =
            nix::fcntl::Flock::lock(lock_file, nix::fcntl::FlockArg::LockExclusiveNonblock)
        else {
            return 0;
        };
        // A broken pack whose name this run's pack took (the same entries written again) was
        // replaced by it, not left behind.
        for p in self.broken.iter().filter(|p| ours.as_ref() != Some(*p)) {
            let _ = std::fs::remove_file(p);
        }
        remove_stale_temps(&self.root);
        let files = pack_files(&self.root);
        let total: u64 = files
            .iter()
            .filter_map(|(_, p)| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum();
        if files.len() <= MAX_PACKS && total <= self.max_bytes {
            return total;
        }
        let mut keep: HashSet<(Kind, Key)> = lock(&self.used).clone();
        if let Some(p) = ours.as_ref().and_then(|p| Pack::open(p)) {
            keep.extend(p.entries().map(|(k, key, _)| (k, key)));
        }
        self.merge(&keep).unwrap_or(total)
    }

    /// Merges every pack of the folder into one, the entries of `keep` first, then those of
    /// newer packs, up to 80% of the bound (all of them when they fit the bound); returns the
    /// new pack's size.
    fn merge(&self, keep: &HashSet<(Kind, Key)>) -> std::io::Result<u64> {
        let (packs, broken) = open_packs(&self.root);
        for p in &broken {
            let _ = std::fs::remove_file(p);
        }
        let total: u64 = packs.iter().map(|p| p.size).sum();
        let budget = if total <= self.max_bytes {
            u64::MAX
        } else {
            self.max_bytes / 10 * 8
        };
        let mut w = Writer::new(&self.root)?;
        let mut size = HEADER + FOOTER;
        for first in [true, false] {
            for pack in &packs {
                for (kind, key, loc) in pack.entries() {
                    if keep.contains(&(kind, key)) != first || w.entries.contains_key(&(kind, key))
                    {
                        continue;
                    }
                    let cost = u64::from(loc.len) + INDEX_ENTRY as u64;
                    if size + cost > budget {
                        continue;
                    }
                    if let Some(payload) = read_payload(&pack.file, &loc) {
                        w.append(kind, key, &payload)?;
                        size += cost;
                    }
                }
            }
        }
        let merged = w.finish(&self.root)?;
        for p in &packs {
            if p.path != merged {
                let _ = std::fs::remove_file(&p.path);
            }
        }
        Ok(size)
    }
}

/// Sets a used pack's mtime to now when it is older than [`REFRESH_AFTER`] (merging keeps
/// recently used packs' entries first).
fn refresh(pack: &Pack) {
    if pack.mtime.elapsed().is_ok_and(|age| age > REFRESH_AFTER)
        && let Ok(f) = std::fs::File::options().write(true).open(&pack.path)
    {
        let _ = f.set_modified(SystemTime::now());
    }
}

/// Removes temporary packs left by writers that died (older than [`STALE_TEMP`]).
fn remove_stale_temps(root: &Path) {
    let Ok(rd) = std::fs::read_dir(root) else {
        return;
    };
    for e in rd.flatten() {
        let stale = e
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMP);
        let name = e.file_name();
        let name = name.to_string_lossy();
        if stale && (name.starts_with(".tmp-pack-") || name.starts_with(".digests-")) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Why a model cache folder is refused; `setting` names where it came from (`--model-cache`
/// or `JUDGE_CI_MODEL_CACHE`) and `folder` is what it said.
#[derive(Debug, thiserror::Error)]
pub enum CacheSettingError {
    /// The folder cannot be made absolute.
    #[error("{setting} {folder}: {source}")]
    NotAbsolute {
        /// `--model-cache` or `JUDGE_CI_MODEL_CACHE`.
        setting: &'static str,
        /// The folder given.
        folder: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The folder is inside the workspace, where a pull request could plant entries.
    #[error(
        "{setting} {folder} is inside the workspace {}, where a pull request could plant cache entries; give a folder outside it, or off",
        .workspace.display()
    )]
    InsideWorkspace {
        /// `--model-cache` or `JUDGE_CI_MODEL_CACHE`.
        setting: &'static str,
        /// The folder given.
        folder: String,
        /// The workspace.
        workspace: PathBuf,
    },
    /// The folder holds the workspace, which hiding it would hide from its own processes.
    #[error(
        "{setting} {folder} holds the workspace {}; the fence hides the cache folder from subject processes, which would hide their own workspace; give a folder beside it, or off",
        .workspace.display()
    )]
    HoldsWorkspace {
        /// `--model-cache` or `JUDGE_CI_MODEL_CACHE`.
        setting: &'static str,
        /// The folder given.
        folder: String,
        /// The workspace.
        workspace: PathBuf,
    },
}

/// The cache of a run judging `workspace` from `--model-cache` (`setting`: a folder, or
/// `off`; `None`: `JUDGE_CI_MODEL_CACHE`, else the default folder; `Ok(None)`: no cache), its
/// folder hidden from the run's subject processes. The run owns the store (nothing of it is
/// process-wide) and ends it with [`Store::finish`]. A folder inside the workspace is refused (the pull request could plant
/// entries there); a default that falls inside it is not used. Call it before any subject
/// code runs: the packs in place now are the ones the run reads.
pub fn configure(
    setting: Option<&str>,
    workspace: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    fence: &crate::fence::Fence,
) -> Result<Option<Store>, CacheSettingError> {
    let (setting, name) = match setting {
        Some(s) => (Some(s.to_string()), "--model-cache"),
        None => (
            env("JUDGE_CI_MODEL_CACHE").filter(|v| !v.is_empty()),
            "JUDGE_CI_MODEL_CACHE",
        ),
    };
    let dir = match setting.as_deref() {
        Some("off") => None,
        Some(d) => {
            let p = std::path::absolute(d).map_err(|source| CacheSettingError::NotAbsolute {
                setting: name,
                folder: d.to_string(),
                source,
            })?;
            if inside(&p, workspace) {
                return Err(CacheSettingError::InsideWorkspace {
                    setting: name,
                    folder: d.to_string(),
                    workspace: workspace.to_path_buf(),
                });
            }
            if inside(workspace, &p) {
                return Err(CacheSettingError::HoldsWorkspace {
                    setting: name,
                    folder: d.to_string(),
                    workspace: workspace.to_path_buf(),
                });
            }
            Some(p)
        }
        None => default_dir(env).filter(|d| !inside(d, workspace) && !inside(workspace, d)),
    };
    if let Some(d) = &dir {
        // Made now, so that the fence hides the folder itself, not only what holds it.
        let _ = std::fs::create_dir_all(d);
        fence.hide(d);
    }
    Ok(dir.map(|d| Store::new(d, DEFAULT_MAX_BYTES)))
}

/// The model of `bytes`: from `store` when it holds a sound entry, else `compute`d (and
/// stored; without a store, always computed).
pub fn cached<T: Serialize + DeserializeOwned>(
    store: Option<&Store>,
    kind: Kind,
    bytes: &[u8],
    compute: impl FnOnce() -> T,
) -> T {
    let Some(store) = store else {
        return compute();
    };
    let key: Key = Sha256::digest(bytes).into();
    if let Some(v) = store.get(kind, &key) {
        return v;
    }
    let v = compute();
    store.put(kind, &key, &v);
    v
}

/// A `language` file's model, body hashes included or not, through `store` when there is one.
pub fn model(
    store: Option<&Store>,
    language: Language,
    bytes: &[u8],
    bodies: bool,
) -> super::model::SourceFile {
    cached(store, Kind::model(language, bodies), bytes, || {
        language.parse(bytes, bodies)
    })
}

/// A `language` file's header, through `store` when there is one.
pub fn file_header(
    store: Option<&Store>,
    language: Language,
    bytes: &[u8],
) -> super::model::Header {
    cached(store, Kind::header(language), bytes, || {
        language.header(bytes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::java::{self as j, JavaFile};

    const JAVA: &[u8] = b"package p;\nimport java.util.List;\nimport static a.B.c;\n@Entity\npublic class A<T> extends B implements C {\n  @Id private List<T> id;\n  public A() {}\n  @Override public String m(int a) throws X { return \"\"; }\n  enum E { X, Y }\n}\n";

    fn key(bytes: &[u8]) -> Key {
        Sha256::digest(bytes).into()
    }

    /// Every file under a folder.
    fn files(dir: &Path) -> Vec<PathBuf> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| e.into_path())
            .collect()
    }

    fn packs(dir: &Path) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = pack_files(&dir.join(format!("v{MODEL_VERSION}")))
            .into_iter()
            .map(|(_, p)| p)
            .collect();
        v.sort();
        v
    }

    fn store(dir: &Path) -> Store {
        Store::new(dir.to_path_buf(), DEFAULT_MAX_BYTES)
    }

    #[test]
    fn an_entry_carries_its_language() {
        // Every kind has its own byte, read back as that kind, and names its language.
        for b in 0..=u8::MAX {
            if let Some(k) = Kind::of(b) {
                assert_eq!(k.byte(), b);
            }
        }
        for l in Language::ALL {
            for k in [Kind::model(l, true), Kind::model(l, false), Kind::header(l)] {
                assert_eq!(Kind::of(k.byte()), Some(k));
                assert_eq!(k.language(), l);
            }
        }
        // The same bytes are another model in another language: never served across.
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let bytes = b"package p\nimport a.B\nclass A\n";
        let kotlin = crate::lang::kotlin::parse(bytes);
        s.insert(Kind::model(Language::Kotlin, true), bytes, &kotlin);
        s.finish();
        let s = store(dir.path());
        assert_eq!(
            s.get::<JavaFile>(Kind::KotlinWithBodies, &key(bytes)),
            Some(kotlin)
        );
        assert!(
            s.get::<JavaFile>(Kind::JavaWithBodies, &key(bytes))
                .is_none()
        );
        let java = super::model(Some(&s), Language::Java, bytes, true);
        assert_eq!(java, j::parse(bytes));
    }

    #[test]
    fn a_model_read_back_is_the_model_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let k = key(JAVA);
        let parsed = j::parse(JAVA);
        assert!(s.get::<JavaFile>(Kind::JavaWithBodies, &k).is_none());
        s.put(Kind::JavaWithBodies, &k, &parsed);
        assert!(s.written() > 0);
        // Within the run, from its own pack; after it, from the pack in place.
        assert_eq!(s.get::<JavaFile>(Kind::JavaWithBodies, &k).unwrap(), parsed);
        s.finish();
        let s = store(dir.path());
        assert_eq!(s.get::<JavaFile>(Kind::JavaWithBodies, &k).unwrap(), parsed);
        // Another kind, or another key, is not this entry.
        assert!(s.get::<JavaFile>(Kind::JavaSignatures, &k).is_none());
        assert!(
            s.get::<JavaFile>(Kind::JavaWithBodies, &key(b"x"))
                .is_none()
        );
        // One pack under the model version, and the lock file; nothing else.
        let mut all = files(dir.path());
        all.sort();
        let root = dir.path().join(format!("v{MODEL_VERSION}"));
        assert_eq!(all.len(), 2, "{all:?}");
        assert_eq!(all[0], root.join(".lock"));
        assert!(all[1].starts_with(&root) && all[1].extension().unwrap() == "jcp");
    }

    #[test]
    fn every_java_file_of_the_repository_reads_back_as_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut expected = Vec::new();
        for e in walkdir::WalkDir::new(root.join("tests"))
            .into_iter()
            .chain(walkdir::WalkDir::new(root.join("examples")))
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "java"))
        {
            let bytes = std::fs::read(e.path()).unwrap();
            let k = key(&bytes);
            let whole = j::parse_with(&bytes, true);
            let signatures = j::parse_with(&bytes, false);
            let header = j::header(&bytes);
            s.put(Kind::JavaWithBodies, &k, &whole);
            s.put(Kind::JavaSignatures, &k, &signatures);
            s.put(Kind::Header, &k, &header);
            expected.push((e.into_path(), k, whole, signatures, header));
        }
        assert!(
            expected.len() >= 10,
            "only {} Java files found",
            expected.len()
        );
        s.finish();
        let s = store(dir.path());
        for (path, k, whole, signatures, header) in &expected {
            let p = path.display();
            assert_eq!(
                &s.get::<JavaFile>(Kind::JavaWithBodies, k).unwrap(),
                whole,
                "{p}"
            );
            assert_eq!(
                &s.get::<JavaFile>(Kind::JavaSignatures, k).unwrap(),
                signatures,
                "{p}"
            );
            assert_eq!(&s.get::<j::Header>(Kind::Header, k).unwrap(), header, "{p}");
        }
    }

    /// A pack holding the model of `JAVA`; returns its path and bytes.
    fn one_pack(dir: &Path) -> (PathBuf, Vec<u8>) {
        let s = store(dir);
        s.put(Kind::JavaWithBodies, &key(JAVA), &j::parse(JAVA));
        let p = s.flush().unwrap();
        let bytes = std::fs::read(&p).unwrap();
        (p, bytes)
    }

    #[test]
    fn corrupt_truncated_and_forged_packs_are_ignored_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let (path, good) = one_pack(dir.path());
        let get = || store(dir.path()).get::<JavaFile>(Kind::JavaWithBodies, &key(JAVA));
        assert!(get().is_some());
        // A flipped payload byte (its digest in the index no longer matches), a flipped
        // index byte (the index's digest no longer matches), a truncated pack, garbage, an
        // empty file.
        let mut payload_flip = good.clone();
        payload_flip[HEADER as usize + 2] ^= 0x40;
        let mut index_flip = good.clone();
        let at = good.len() - FOOTER as usize - 3;
        index_flip[at] ^= 0x01;
        // The index re-keyed to another file's content with its digest recomputed: sound as
        // a pack, but the entry is not this file's.
        let mut rekeyed = good.clone();
        let index_at = good.len() - FOOTER as usize - INDEX_ENTRY;
        rekeyed[index_at + 1..index_at + 33].copy_from_slice(&key(b"class Z {}"));
        let digest = Sha256::digest(&rekeyed[index_at..index_at + INDEX_ENTRY]);
        let f = rekeyed.len() - FOOTER as usize;
        rekeyed[f + 12..f + 44].copy_from_slice(&digest);
        for bad in [
            payload_flip,
            index_flip,
            rekeyed.clone(),
            good[..good.len() / 2].to_vec(),
            b"garbage".to_vec(),
            Vec::new(),
        ] {
            std::fs::write(&path, &bad).unwrap();
            assert!(get().is_none());
        }
        std::fs::write(&path, &rekeyed).unwrap();
        assert!(
            store(dir.path())
                .get::<JavaFile>(Kind::JavaWithBodies, &key(b"class Z {}"))
                .is_some(),
            "the re-keyed pack is sound as a pack"
        );
        // A payload that is not a model, with a sound digest: ignored too.
        let s = store(dir.path());
        s.put(Kind::JavaWithBodies, &key(JAVA), &[0xffu8; 3]);
        std::fs::remove_file(&path).unwrap();
        let junk = s.flush().unwrap();
        assert!(get().is_none());
        std::fs::remove_file(&junk).unwrap();
        // Through `cached`, a broken entry is parsed again and the run's new pack holds the
        // sound one, which later runs read; a pack that does not hold is removed.
        let mut payload_flip = good.clone();
        payload_flip[HEADER as usize + 2] ^= 0x40;
        std::fs::write(&path, &payload_flip).unwrap();
        let broken = dir.path().join(format!("v{MODEL_VERSION}/pack-broken.jcp"));
        std::fs::write(&broken, b"garbage").unwrap();
        let s = store(dir.path());
        let model = super::model(Some(&s), Language::Java, JAVA, true);
        s.finish();
        assert_eq!(model, j::parse(JAVA));
        assert!(!broken.exists());
        assert_eq!(get(), Some(j::parse(JAVA)));
    }

    /// A run that writes again exactly what a corrupted pack held makes a pack of the same
    /// name, which replaces the broken one: it stays (it was removed as the broken one was,
    /// so the next run found no cache).
    #[test]
    fn a_pack_written_over_a_broken_one_of_the_same_name_stays() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        s.put(Kind::Header, &key(JAVA), &j::header(JAVA));
        s.finish();
        let packs_before = packs(dir.path());
        assert_eq!(packs_before.len(), 1);
        std::fs::write(&packs_before[0], b"not a model").unwrap();
        let s = store(dir.path());
        assert!(s.get::<j::Header>(Kind::Header, &key(JAVA)).is_none());
        s.put(Kind::Header, &key(JAVA), &j::header(JAVA));
        s.finish();
        assert_eq!(packs(dir.path()), packs_before);
        assert_eq!(
            store(dir.path()).get::<j::Header>(Kind::Header, &key(JAVA)),
            Some(j::header(JAVA))
        );
    }

    #[test]
    fn what_changes_in_the_folder_during_a_run_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = one_pack(dir.path());
        let s = store(dir.path());
        // After the store opened (as a subject process could if the fence failed): the pack
        // rewritten in place with a sound pack giving another model for the same content,
        // and a second sound pack planted beside it.
        let mut other = j::parse(JAVA);
        other.package = Some("forged".into());
        let forge = |kind: Kind| {
            let elsewhere = tempfile::tempdir().unwrap();
            let f = store(elsewhere.path());
            f.put(kind, &key(JAVA), &other);
            std::fs::read(f.flush().unwrap()).unwrap()
        };
        std::fs::write(&path, forge(Kind::JavaWithBodies)).unwrap();
        let planted = path.with_file_name("pack-planted.jcp");
        std::fs::write(&planted, forge(Kind::JavaSignatures)).unwrap();
        assert_eq!(s.get::<JavaFile>(Kind::JavaWithBodies, &key(JAVA)), None);
        assert_eq!(s.get::<JavaFile>(Kind::JavaSignatures, &key(JAVA)), None);
        // Control: both forgeries are sound packs, which a store opened later believes (the
        // folder is trusted as it is when a run starts; the fence keeps subjects out of it).
        let later = store(dir.path());
        assert_eq!(
            later.get(Kind::JavaWithBodies, &key(JAVA)),
            Some(other.clone())
        );
        assert_eq!(later.get(Kind::JavaSignatures, &key(JAVA)), Some(other));
    }

    #[test]
    fn many_packs_are_merged_and_the_folder_bounded_recent_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(format!("v{MODEL_VERSION}"));
        let model = |i: u32| vec![format!("import a.b.C{i};"); 20];
        // One pack per run, each older than the next.
        let n = MAX_PACKS as u32 + 2;
        for i in 0..n {
            let s = store(dir.path());
            s.put(Kind::Header, &key(&i.to_le_bytes()), &model(i));
            let p = s.flush().unwrap();
            std::fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(SystemTime::now() - Duration::from_secs(3600 * u64::from(n - i)))
                .unwrap();
        }
        let one = std::fs::metadata(&packs(dir.path())[0]).unwrap().len();
        // A temporary pack left by a writer that died.
        let tmp = root.join(".tmp-pack-dead");
        std::fs::write(&tmp, b"half").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&tmp)
            .unwrap()
            .set_modified(SystemTime::now() - 2 * STALE_TEMP)
            .unwrap();
        // Within the bound: all merged into one, every entry kept.
        let s = store(dir.path());
        s.finish();
        assert!(!tmp.exists());
        assert_eq!(packs(dir.path()).len(), 1);
        let s = store(dir.path());
        for i in 0..n {
            assert_eq!(
                s.get::<Vec<String>>(Kind::Header, &key(&i.to_le_bytes())),
                Some(model(i))
            );
        }
        // Over a bound of about six entries: down to 80% of it, the entry this run used kept,
        // then the newest.
        let bounded = Store::new(dir.path().to_path_buf(), one * 6);
        assert!(
            bounded
                .get::<Vec<String>>(Kind::Header, &key(&0u32.to_le_bytes()))
                .is_some()
        );
        bounded.finish();
        let left = packs(dir.path());
        assert_eq!(left.len(), 1);
        assert!(std::fs::metadata(&left[0]).unwrap().len() <= one * 6 / 10 * 8);
        let s = store(dir.path());
        let kept: Vec<bool> = (0..n)
            .map(|i| {
                s.get::<Vec<String>>(Kind::Header, &key(&i.to_le_bytes()))
                    .is_some()
            })
            .collect();
        assert!(kept[0], "the entry the run used is kept: {kept:?}");
        assert!(kept.iter().filter(|k| **k).count() < n as usize, "{kept:?}");
    }

    #[test]
    fn concurrent_runs_never_see_half_a_pack() {
        let dir = tempfile::tempdir().unwrap();
        let parsed = j::parse(JAVA);
        let k = key(JAVA);
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let (dir, parsed) = (dir.path().to_path_buf(), parsed.clone());
                std::thread::spawn(move || {
                    for i in 0..40u32 {
                        let s = store(&dir);
                        if let Some(v) = s.get::<JavaFile>(Kind::JavaWithBodies, &k) {
                            assert_eq!(v, parsed);
                        }
                        s.put(Kind::JavaWithBodies, &k, &parsed);
                        s.put(
                            Kind::Header,
                            &key(&(t * 1000 + i).to_le_bytes()),
                            &vec![t, i],
                        );
                        s.finish();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let root = dir.path().join(format!("v{MODEL_VERSION}"));
        let temps: Vec<PathBuf> = files(&root)
            .into_iter()
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(".tmp"))
            .collect();
        assert!(temps.is_empty(), "{temps:?}");
        assert!(packs(dir.path()).len() <= MAX_PACKS + 4);
        assert_eq!(
            store(dir.path()).get::<JavaFile>(Kind::JavaWithBodies, &k),
            Some(parsed)
        );
    }

    #[test]
    fn the_default_folder_is_beside_the_reply_cache() {
        let env = crate::test_support::env_of;
        assert_eq!(
            default_dir(&env(&[
                ("GITHUB_ACTIONS", "true"),
                ("RUNNER_TEMP", "/rt"),
                ("HOME", "/h")
            ])),
            Some(PathBuf::from("/rt/judge-ci/models"))
        );
        assert_eq!(
            default_dir(&env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/judge-ci/models"))
        );
        assert_eq!(
            default_dir(&env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.cache/judge-ci/models"))
        );
        assert_eq!(default_dir(&env(&[("XDG_CACHE_HOME", "rel")])), None);
        let ws = tempfile::tempdir().unwrap();
        assert!(inside(&ws.path().join(".cache/models"), ws.path()));
        assert!(!inside(&ws.path().join("../elsewhere"), ws.path()));
    }

    #[test]
    fn a_folder_inside_or_around_the_workspace_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let ws = root.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let none = |_: &str| None;
        let inner = ws.join(".cache/models");
        let err = configure(
            Some(inner.to_str().unwrap()),
            &ws,
            &none,
            &crate::fence::Fence::default(),
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                CacheSettingError::InsideWorkspace {
                    setting: "--model-cache",
                    ..
                }
            ),
            "{err}"
        );
        let err = configure(
            Some(root.path().to_str().unwrap()),
            &ws,
            &none,
            &crate::fence::Fence::default(),
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                CacheSettingError::HoldsWorkspace {
                    setting: "--model-cache",
                    ..
                }
            ),
            "{err}"
        );
        // Through the environment, named as such.
        let env =
            |k: &str| (k == "JUDGE_CI_MODEL_CACHE").then(|| root.path().display().to_string());
        let err = configure(None, &ws, &env, &crate::fence::Fence::default())
            .err()
            .unwrap();
        assert!(
            matches!(
                err,
                CacheSettingError::HoldsWorkspace {
                    setting: "JUDGE_CI_MODEL_CACHE",
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().starts_with("JUDGE_CI_MODEL_CACHE"), "{err}");
    }
}
