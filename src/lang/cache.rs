//! A content-addressed cache of parsed models (Java files, and Java headers: package, imports,
//! unicode escapes) kept between runs, so that a re-run on the same commits parses nothing it
//! parsed before. POMs are not cached: their model depends on `.mvn/` and the parents around
//! them, not on their bytes alone (and a tree holds few of them).
//!
//! An entry is keyed by the SHA-256 of the file's bytes, the model's kind and
//! [`super::MODEL_VERSION`], and stored as one file: a header (magic, version, kind, key, the
//! payload's SHA-256) and the model in postcard. What is read back is checked against all of
//! it; a corrupt, truncated, misplaced or foreign entry is ignored (the model is parsed again)
//! and replaced. Entries are written to a temporary file and renamed into place, so runs
//! sharing the folder never see half an entry. The folder is bounded: after a run that wrote
//! entries, the least recently used ones (by mtime, refreshed on use at most daily) are removed
//! until it is under [`DEFAULT_MAX_BYTES`] (or the configured bound).
//!
//! The folder is never inside the workspace: a pull request could commit entries there.
//! Default: `$RUNNER_TEMP/judge-ci/models` in GitHub Actions (keep it with `actions/cache`),
//! else `$XDG_CACHE_HOME/judge-ci/models`, else `~/.cache/judge-ci/models`, beside the LLM
//! reply cache; `--model-cache DIR|off` (or `JUDGE_CI_MODEL_CACHE`) moves it or turns it off.

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, RwLock};
use std::time::{Duration, SystemTime};

use super::MODEL_VERSION;

/// The bound on the folder's size when none is configured.
pub const DEFAULT_MAX_BYTES: u64 = 1024 * 1024 * 1024;
/// Entries larger than this are neither written nor read.
const MAX_ENTRY_BYTES: u64 = 64 * 1024 * 1024;
/// An entry used less recently than this gets its mtime refreshed (what trimming orders by).
const REFRESH_AFTER: Duration = Duration::from_secs(24 * 3600);
/// Leftover temporary files (of a writer that died) older than this are removed by trimming.
const STALE_TEMP: Duration = Duration::from_secs(3600);
const MAGIC: &[u8; 4] = b"JCM\x01";
/// Magic, model version, kind length and kind, the key, the payload's digest.
const KEY_BYTES: usize = 32;

/// Which model an entry holds: one folder per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A Java file's model with method-body hashes.
    JavaWithBodies,
    /// A Java file's model without them.
    JavaSignatures,
    /// A Java file's header (package, imports, unicode escapes).
    Header,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::JavaWithBodies => "java-bodies",
            Kind::JavaSignatures => "java",
            Kind::Header => "header",
        }
    }
}

/// Where the cache is and how large it may grow.
#[derive(Debug)]
pub struct Store {
    /// The folder of this model version (`<dir>/v<MODEL_VERSION>`).
    root: PathBuf,
    /// The folder holding every version.
    dir: PathBuf,
    max_bytes: u64,
    written: AtomicU64,
}

static STORE: LazyLock<RwLock<Option<Arc<Store>>>> = LazyLock::new(Default::default);

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

impl Store {
    /// A store in `dir` bounded to `max_bytes`.
    pub fn new(dir: PathBuf, max_bytes: u64) -> Store {
        Store {
            root: dir.join(format!("v{MODEL_VERSION}")),
            dir,
            max_bytes,
            written: AtomicU64::new(0),
        }
    }

    fn path(&self, kind: Kind, key: &[u8; KEY_BYTES]) -> PathBuf {
        let hex = hex::encode(key);
        self.root.join(kind.name()).join(&hex[..2]).join(&hex[2..])
    }

    fn header(kind: Kind, key: &[u8; KEY_BYTES]) -> Vec<u8> {
        let mut h = Vec::with_capacity(80);
        h.extend_from_slice(MAGIC);
        h.extend_from_slice(&MODEL_VERSION.to_le_bytes());
        h.push(kind.name().len() as u8);
        h.extend_from_slice(kind.name().as_bytes());
        h.extend_from_slice(key);
        h
    }

    /// The model stored for `key`, when there is a sound entry.
    fn get<T: DeserializeOwned>(&self, kind: Kind, key: &[u8; KEY_BYTES]) -> Option<T> {
        let path = self.path(kind, key);
        let file = std::fs::File::open(&path).ok()?;
        let meta = file.metadata().ok()?;
        if meta.len() > MAX_ENTRY_BYTES {
            return None;
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_ENTRY_BYTES).read_to_end(&mut bytes).ok()?;
        let header = Self::header(kind, key);
        let rest = bytes.strip_prefix(header.as_slice())?;
        if rest.len() < KEY_BYTES {
            return None;
        }
        let (digest, payload) = rest.split_at(KEY_BYTES);
        if Sha256::digest(payload).as_slice() != digest {
            return None;
        }
        let value = postcard::from_bytes(payload).ok()?;
        if meta
            .modified()
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age > REFRESH_AFTER)
            && let Ok(f) = std::fs::File::options().write(true).open(&path)
        {
            let _ = f.set_modified(SystemTime::now());
        }
        Some(value)
    }

    /// Stores a model (best effort: a cache that cannot be written is only slower).
    fn put<T: Serialize>(&self, kind: Kind, key: &[u8; KEY_BYTES], value: &T) {
        let Ok(payload) = postcard::to_stdvec(value) else {
            return;
        };
        let mut bytes = Self::header(kind, key);
        bytes.extend_from_slice(&Sha256::digest(&payload));
        bytes.extend_from_slice(&payload);
        if bytes.len() as u64 > MAX_ENTRY_BYTES {
            return;
        }
        let path = self.path(kind, key);
        let Some(shard) = path.parent() else {
            return;
        };
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(shard)?;
            let mut tmp = tempfile::Builder::new().prefix(".tmp").tempfile_in(shard)?;
            std::io::Write::write_all(&mut tmp, &bytes)?;
            tmp.persist(&path).map_err(|e| e.error)?;
            Ok(())
        };
        if write().is_ok() {
            self.written
                .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        }
    }

    /// Stores `model` as the model of `content`; what [`cached`] does after parsing.
    pub fn insert<T: Serialize>(&self, kind: Kind, content: &[u8], model: &T) {
        self.put(kind, &Sha256::digest(content).into(), model);
    }

    /// Bytes written by this process.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// Removes the least recently used entries (every version's) until the folder holds at
    /// most 80% of its bound, and temporary files left by writers that died. Returns the
    /// bytes removed.
    pub fn trim(&self) -> u64 {
        let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        let mut removed = 0;
        for e in walkdir::WalkDir::new(&self.dir)
            .follow_links(false)
            .into_iter()
            .flatten()
        {
            if !e.file_type().is_file() {
                continue;
            }
            let Ok(m) = e.metadata() else { continue };
            let mtime = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if e.file_name().to_string_lossy().starts_with(".tmp") {
                if mtime.elapsed().is_ok_and(|a| a > STALE_TEMP)
                    && std::fs::remove_file(e.path()).is_ok()
                {
                    removed += m.len();
                }
                continue;
            }
            entries.push((mtime, m.len(), e.into_path()));
        }
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        if total <= self.max_bytes {
            return removed;
        }
        let target = self.max_bytes / 10 * 8;
        entries.sort();
        for (_, len, path) in entries {
            if total <= target {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(len);
                removed += len;
            }
        }
        removed
    }
}

/// Uses `store` for the models of this process (`None`: no cache).
pub fn set(store: Option<Store>) {
    *STORE.write().unwrap_or_else(|e| e.into_inner()) = store.map(Arc::new);
}

/// The store in use, if any.
pub fn current() -> Option<Arc<Store>> {
    STORE.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Sets the cache of a run judging `workspace` from `--model-cache` (`setting`: a folder, or
/// `off`; `None`: `JUDGE_CI_MODEL_CACHE`, else the default folder). A folder inside the
/// workspace is refused (the pull request could plant entries there); a default that falls
/// inside it is not used.
pub fn configure(
    setting: Option<&str>,
    workspace: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), String> {
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
            let p = std::path::absolute(d).map_err(|e| format!("{name} {d}: {e}"))?;
            if inside(&p, workspace) {
                return Err(format!(
                    "{name} {d} is inside the workspace {}, where a pull request could plant cache entries; give a folder outside it, or off",
                    workspace.display()
                ));
            }
            Some(p)
        }
        None => default_dir(env).filter(|d| !inside(d, workspace)),
    };
    set(dir.map(|d| Store::new(d, DEFAULT_MAX_BYTES)));
    Ok(())
}

/// After a run: trims the folder when the run wrote to it.
pub fn finish() {
    if let Some(s) = current()
        && s.written() > 0
    {
        s.trim();
    }
}

/// The model of `bytes`: from the cache when it holds a sound entry, else `compute`d (and
/// stored).
pub fn cached<T: Serialize + DeserializeOwned>(
    kind: Kind,
    bytes: &[u8],
    compute: impl FnOnce() -> T,
) -> T {
    let Some(store) = current() else {
        return compute();
    };
    let key: [u8; KEY_BYTES] = Sha256::digest(bytes).into();
    if let Some(v) = store.get(kind, &key) {
        return v;
    }
    let v = compute();
    store.put(kind, &key, &v);
    v
}

/// A Java file's model, body hashes included or not.
pub fn java(bytes: &[u8], bodies: bool) -> super::java::JavaFile {
    let kind = if bodies {
        Kind::JavaWithBodies
    } else {
        Kind::JavaSignatures
    };
    cached(kind, bytes, || super::java::parse_with(bytes, bodies))
}

#[cfg(test)]
mod tests {
    use super::*;

    const JAVA: &[u8] = b"package p;\nimport java.util.List;\nimport static a.B.c;\n@Entity\npublic class A<T> extends B implements C {\n  @Id private List<T> id;\n  public A() {}\n  @Override public String m(int a) throws X { return \"\"; }\n  enum E { X, Y }\n}\n";

    /// Every entry file of a store.
    fn entries(dir: &Path) -> Vec<PathBuf> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| e.into_path())
            .collect()
    }

    #[test]
    fn a_model_read_back_is_the_model_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf(), DEFAULT_MAX_BYTES);
        let key: [u8; 32] = Sha256::digest(JAVA).into();
        let parsed = super::super::java::parse(JAVA);
        assert!(
            store
                .get::<super::super::java::JavaFile>(Kind::JavaWithBodies, &key)
                .is_none()
        );
        store.put(Kind::JavaWithBodies, &key, &parsed);
        assert!(store.written() > 0);
        let back: super::super::java::JavaFile = store.get(Kind::JavaWithBodies, &key).unwrap();
        assert_eq!(back, parsed);
        // Another kind, or another key, is not this entry.
        assert!(
            store
                .get::<super::super::java::JavaFile>(Kind::JavaSignatures, &key)
                .is_none()
        );
        let other: [u8; 32] = Sha256::digest(b"x").into();
        assert!(
            store
                .get::<super::super::java::JavaFile>(Kind::JavaWithBodies, &other)
                .is_none()
        );
        // The entry lives under the model version, outside nothing but the given folder.
        let files = entries(dir.path());
        assert_eq!(files.len(), 1);
        assert!(files[0].starts_with(dir.path().join(format!("v{MODEL_VERSION}/java-bodies"))));
    }

    #[test]
    fn every_java_file_of_the_repository_reads_back_as_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf(), DEFAULT_MAX_BYTES);
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut n = 0;
        for e in walkdir::WalkDir::new(root.join("tests"))
            .into_iter()
            .chain(walkdir::WalkDir::new(root.join("examples")))
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "java"))
        {
            let bytes = std::fs::read(e.path()).unwrap();
            let key: [u8; 32] = Sha256::digest(&bytes).into();
            for bodies in [true, false] {
                let kind = if bodies {
                    Kind::JavaWithBodies
                } else {
                    Kind::JavaSignatures
                };
                let parsed = super::super::java::parse_with(&bytes, bodies);
                store.put(kind, &key, &parsed);
                let back: super::super::java::JavaFile = store.get(kind, &key).unwrap();
                assert_eq!(back, parsed, "{}", e.path().display());
            }
            let header = super::super::java::header(&bytes);
            store.put(Kind::Header, &key, &header);
            let back: super::super::java::Header = store.get(Kind::Header, &key).unwrap();
            assert_eq!(back, header, "{}", e.path().display());
            n += 1;
        }
        assert!(n >= 10, "only {n} Java files found");
    }

    #[test]
    fn corrupt_truncated_and_misplaced_entries_are_ignored_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf(), DEFAULT_MAX_BYTES);
        let key: [u8; 32] = Sha256::digest(JAVA).into();
        let parsed = super::super::java::parse(JAVA);
        store.put(Kind::JavaWithBodies, &key, &parsed);
        let path = store.path(Kind::JavaWithBodies, &key);
        let good = std::fs::read(&path).unwrap();
        let get = || store.get::<super::super::java::JavaFile>(Kind::JavaWithBodies, &key);
        // A flipped byte in the payload, a truncated file, garbage, an empty file.
        let mut flipped = good.clone();
        let last = flipped.len() - 3;
        flipped[last] ^= 0x40;
        for bad in [
            flipped,
            good[..good.len() / 2].to_vec(),
            b"garbage".to_vec(),
            Vec::new(),
        ] {
            std::fs::write(&path, &bad).unwrap();
            assert!(get().is_none());
        }
        // A sound entry of another file copied over this one's name.
        let other = super::super::java::parse(b"class Z {}");
        let other_key: [u8; 32] = Sha256::digest(b"class Z {}").into();
        store.put(Kind::JavaWithBodies, &other_key, &other);
        std::fs::copy(store.path(Kind::JavaWithBodies, &other_key), &path).unwrap();
        assert!(get().is_none());
        // A forged entry with a sound digest but a payload that is not a model.
        let mut forged = Store::header(Kind::JavaWithBodies, &key);
        forged.extend_from_slice(&Sha256::digest(b"\xff\xff\xff"));
        forged.extend_from_slice(b"\xff\xff\xff");
        std::fs::write(&path, &forged).unwrap();
        assert!(get().is_none());
        // Through `cached`, the broken entry is parsed again and replaced.
        set(Some(Store::new(
            dir.path().to_path_buf(),
            DEFAULT_MAX_BYTES,
        )));
        let model = java(JAVA, true);
        set(None);
        assert_eq!(model, parsed);
        assert_eq!(std::fs::read(&path).unwrap(), good);
    }

    #[test]
    fn the_folder_is_trimmed_to_its_bound_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path().to_path_buf(), 1);
        let mut keys = Vec::new();
        for i in 0..10u32 {
            let key: [u8; 32] = Sha256::digest(i.to_le_bytes()).into();
            store.put(Kind::Header, &key, &vec![format!("import a.b.C{i};"); 20]);
            keys.push(key);
        }
        let size = std::fs::metadata(store.path(Kind::Header, &keys[0]))
            .unwrap()
            .len();
        // The first five used long ago; a temporary file left by a writer that died.
        for (i, k) in keys.iter().enumerate().take(5) {
            let f = std::fs::File::options()
                .write(true)
                .open(store.path(Kind::Header, k))
                .unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(3600 * (10 - i as u64)))
                .unwrap();
        }
        let shard = store
            .path(Kind::Header, &keys[0])
            .parent()
            .unwrap()
            .to_path_buf();
        let tmp = shard.join(".tmpdead");
        std::fs::write(&tmp, b"half").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&tmp)
            .unwrap()
            .set_modified(SystemTime::now() - 2 * STALE_TEMP)
            .unwrap();
        let bounded = Store::new(dir.path().to_path_buf(), size * 7);
        bounded.trim();
        assert!(!tmp.exists());
        let left: Vec<bool> = keys
            .iter()
            .map(|k| store.path(Kind::Header, k).exists())
            .collect();
        // 10 entries over a bound of 7 go down to 80% of it (5): the five oldest removed.
        assert_eq!(
            left,
            [
                false, false, false, false, false, true, true, true, true, true
            ]
        );
        // Under the bound nothing is removed.
        assert_eq!(
            Store::new(dir.path().to_path_buf(), DEFAULT_MAX_BYTES).trim(),
            0
        );
    }

    #[test]
    fn concurrent_writers_and_readers_never_see_half_an_entry() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::new(dir.path().to_path_buf(), DEFAULT_MAX_BYTES));
        let parsed = super::super::java::parse(JAVA);
        let key: [u8; 32] = Sha256::digest(JAVA).into();
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (store, parsed) = (store.clone(), parsed.clone());
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        store.put(Kind::JavaWithBodies, &key, &parsed);
                        if let Some(v) =
                            store.get::<super::super::java::JavaFile>(Kind::JavaWithBodies, &key)
                        {
                            assert_eq!(v, parsed);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(
            entries(dir.path()).len(),
            1,
            "no temporary file left behind"
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
}
