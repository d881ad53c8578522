//! The reply cache: content-addressed by everything that shapes an answer (provider, model,
//! base URL, limits, template hash, the rendered question and its schema), so an unchanged
//! re-run asks nothing. Only replies that met the output contract are kept. Files are written
//! through a temporary file and a rename, so concurrent judges never read half a reply.
//!
//! A cached reply decides a verdict, so the cache must not be the subject's to write
//! (`spec/trust.md` point 6): it lives outside the workspace by default, and every entry names
//! what it answers (provider, model, template hash, question hash). An entry is used only when
//! all of them match the question asked; a corrupt or mismatching one is ignored, and the fresh
//! answer replaces it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::provider::{Ask, Model, Reply};

/// The entry format; entries of another version are ignored and replaced.
const ENTRY_VERSION: u64 = 3;

/// A cache folder, or none.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: Option<PathBuf>,
}

/// What an entry must say it answers to be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheKey {
    /// The file name's digest (over everything below and the model's limits).
    pub digest: String,
    /// Provider token.
    pub provider: String,
    /// Model name.
    pub model: String,
    /// SHA-256 of the prompt template.
    pub template: String,
    /// SHA-256 of the question: system text, user text and answer schema.
    pub question: String,
}

fn sha(s: &str) -> String {
    hex::encode(Sha256::digest(s.as_bytes()))
}

impl Cache {
    /// A cache in `dir` (created on first write), or a cache that keeps nothing.
    pub fn new(dir: Option<PathBuf>) -> Cache {
        Cache { dir }
    }

    /// The folder, when caching.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The key of `ask` to `model` with a template whose hash is `template`; the request's
    /// random boundary nonce is replaced by a fixed word first, so the key names the question,
    /// not the draw. Sample 0 is the question as asked once; every further sample of
    /// `samples: N` has its own entry.
    pub fn key(model: &Model, template: &str, ask: &Ask, sample: u32) -> CacheKey {
        let fixed = |t: &str| {
            if ask.nonce.is_empty() {
                t.to_string()
            } else {
                t.replace(&ask.nonce, "NONCE")
            }
        };
        let question = sha(&json!({
            "system": fixed(&ask.system),
            "user": fixed(&ask.user),
            "schema": ask.schema,
        })
        .to_string());
        let mut material = json!({
            "v": ENTRY_VERSION,
            "provider": model.provider.token(),
            "model": model.model,
            "baseUrl": model.base_url,
            "maxTokens": model.max_tokens,
            "temperature": model.temperature,
            "template": template,
            "question": question,
        });
        if sample > 0 {
            material["sample"] = json!(sample);
        }
        CacheKey {
            digest: sha(&material.to_string()),
            provider: model.provider.token().to_string(),
            model: model.model.clone(),
            template: template.to_string(),
            question,
        }
    }

    fn path(&self, key: &CacheKey) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(
            dir.join(&key.digest[..2])
                .join(format!("{}.json", key.digest)),
        )
    }

    /// The stored reply for `key`, when an entry exists, parses, and names exactly this
    /// provider, model, template and question; anything else is a miss.
    pub fn get(&self, key: &CacheKey) -> Option<Reply> {
        let text = std::fs::read_to_string(self.path(key)?).ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        let field = |k: &str| v.get(k).and_then(Value::as_str);
        let matches = v.get("v").and_then(Value::as_u64) == Some(ENTRY_VERSION)
            && field("provider") == Some(key.provider.as_str())
            && field("model") == Some(key.model.as_str())
            && field("templateSha256") == Some(key.template.as_str())
            && field("questionSha256") == Some(key.question.as_str());
        if !matches {
            return None;
        }
        Some(Reply {
            text: field("text")?.to_string(),
            input_tokens: v.get("inputTokens")?.as_u64()?,
            output_tokens: v.get("outputTokens")?.as_u64()?,
        })
    }

    /// Keeps `reply` under `key` (replacing whatever was there); a cache that cannot be
    /// written is skipped, not fatal.
    pub fn put(&self, key: &CacheKey, reply: &Reply) -> Result<(), CacheWriteError> {
        let Some(path) = self.path(key) else {
            return Ok(());
        };
        let dir = path.parent().unwrap_or(&path).to_path_buf();
        let v = json!({
            "v": ENTRY_VERSION,
            "provider": key.provider,
            "model": key.model,
            "templateSha256": key.template,
            "questionSha256": key.question,
            "text": reply.text,
            "inputTokens": reply.input_tokens,
            "outputTokens": reply.output_tokens,
        });
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(&dir)?;
            let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
            std::io::Write::write_all(&mut tmp, v.to_string().as_bytes())?;
            tmp.persist(&path).map_err(|e| e.error)?;
            Ok(())
        };
        write().map_err(|source| CacheWriteError { path, source })
    }
}

/// A reply could not be kept in the cache (the run goes on without it).
#[derive(Debug, thiserror::Error)]
#[error("cannot write the LLM cache {}: {source}", path.display())]
pub struct CacheWriteError {
    /// The entry's file.
    pub path: PathBuf,
    /// What the write said.
    #[source]
    pub source: std::io::Error,
}

/// Every reply-cache folder the semantic checks of `bench` may use (their own `cache`, the
/// config's, else the default), or none when it has no semantic check. The run hides them
/// from subject processes before any runs, so a build can neither plant a reply nor read one
/// (replies may quote the reference). A folder holding the workspace is left out: hiding it
/// would hide the workspace from its own build (the loader refuses such folders anyway).
pub fn folders(
    bench: &crate::config::Benchmark,
    workspace: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<PathBuf> {
    use crate::config::llm::CacheSetting;
    let mut out: Vec<PathBuf> = Vec::new();
    for c in bench.jury.all_checks() {
        let Some(llm) = c.kind.llm_settings() else {
            continue;
        };
        let dir = match llm.cache.as_ref().or(bench.llm.cache.as_ref()) {
            Some(CacheSetting::Off) => None,
            Some(CacheSetting::Folder(p)) => Some(p.clone()),
            None => default_dir(env),
        };
        if let Some(d) = dir
            && !workspace.starts_with(&d)
            && !out.contains(&d)
        {
            out.push(d);
        }
    }
    out
}

/// The default cache folder: `$RUNNER_TEMP/judge-ci/llm` inside GitHub Actions (kept between
/// runs with `actions/cache`), else `$XDG_CACHE_HOME/judge-ci/llm`, else
/// `$HOME/.cache/judge-ci/llm`; `None` when none of them is set.
pub fn default_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |k: &str| env(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if env("GITHUB_ACTIONS").as_deref() == Some("true")
        && let Some(t) = set("RUNNER_TEMP")
    {
        return Some(t.join("judge-ci/llm"));
    }
    set("XDG_CACHE_HOME")
        .or_else(|| set("HOME").map(|h| h.join(".cache")))
        .filter(|p| p.is_absolute())
        .map(|p| p.join("judge-ci/llm"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::llm::Provider;

    fn model() -> Model {
        Model {
            provider: Provider::OpenAi,
            model: "m".into(),
            base_url: "http://127.0.0.1:1".into(),
            key: None,
            key_env: "K".into(),
            max_tokens: 100,
            temperature: 0.0,
            timeout: std::time::Duration::from_secs(1),
        }
    }

    fn ask(q: &str) -> Ask {
        Ask {
            system: "s".into(),
            user: q.into(),
            schema: json!({}),
            nonce: String::new(),
        }
    }

    #[test]
    fn entries_are_checked_and_bad_ones_replaced() {
        let d = tempfile::tempdir().unwrap();
        let cache = Cache::new(Some(d.path().to_path_buf()));
        let key = Cache::key(&model(), "t", &ask("q"), 0);
        let reply = Reply {
            text: "{\"pass\": false}".into(),
            input_tokens: 1,
            output_tokens: 2,
        };
        assert!(cache.get(&key).is_none());
        cache.put(&key, &reply).unwrap();
        assert_eq!(cache.get(&key), Some(reply.clone()));
        let path = cache.path(&key).unwrap();
        // A forged entry under the right name but answering another question is not used.
        let other = Cache::key(&model(), "t", &ask("another question"), 0);
        let mut forged: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        forged["questionSha256"] = json!(other.question);
        forged["text"] = json!("{\"pass\": true}");
        std::fs::write(&path, forged.to_string()).unwrap();
        assert!(cache.get(&key).is_none());
        // A corrupt entry is a miss, and the next answer replaces it.
        std::fs::write(&path, "{not json").unwrap();
        assert!(cache.get(&key).is_none());
        cache.put(&key, &reply).unwrap();
        assert_eq!(cache.get(&key), Some(reply));
        // Each further sample of the same question has an entry of its own.
        let second = Cache::key(&model(), "t", &ask("q"), 1);
        assert_ne!(second.digest, key.digest);
        assert!(cache.get(&second).is_none());
        assert_ne!(
            Cache::key(&model(), "t", &ask("q"), 2).digest,
            second.digest
        );
    }

    #[test]
    fn the_default_folder_is_outside_the_workspace() {
        let env = crate::test_support::env_of;
        assert_eq!(
            default_dir(&env(&[
                ("GITHUB_ACTIONS", "true"),
                ("RUNNER_TEMP", "/rt"),
                ("XDG_CACHE_HOME", "/x")
            ])),
            Some(PathBuf::from("/rt/judge-ci/llm"))
        );
        assert_eq!(
            default_dir(&env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/judge-ci/llm"))
        );
        assert_eq!(
            default_dir(&env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.cache/judge-ci/llm"))
        );
        assert_eq!(default_dir(&env(&[("XDG_CACHE_HOME", "rel")])), None);
    }
}
