//! The reply cache: content-addressed by everything that shapes an answer (provider, model,
//! base URL, limits, template hash, the rendered question and its schema), so an unchanged
//! re-run asks nothing. Only replies that met the output contract are kept. Files are written
//! through a temporary file and a rename, so concurrent judges never read half a reply.

use std::path::PathBuf;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::provider::{Ask, Model, Reply};

/// A cache folder, or none.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: Option<PathBuf>,
}

impl Cache {
    /// A cache in `dir` (created on first write), or a cache that keeps nothing.
    pub fn new(dir: Option<PathBuf>) -> Cache {
        Cache { dir }
    }

    /// The key of `ask` to `model` with a template whose hash is `template`; the request's
    /// random boundary nonce is replaced by a fixed word first, so the key names the question,
    /// not the draw.
    pub fn key(model: &Model, template: &str, ask: &Ask) -> String {
        let fixed = |t: &str| {
            if ask.nonce.is_empty() {
                t.to_string()
            } else {
                t.replace(&ask.nonce, "NONCE")
            }
        };
        let material = json!({
            "v": 2,
            "provider": model.provider.token(),
            "model": model.model,
            "baseUrl": model.base_url,
            "maxTokens": model.max_tokens,
            "temperature": model.temperature,
            "template": template,
            "system": fixed(&ask.system),
            "user": fixed(&ask.user),
            "schema": ask.schema,
        });
        hex::encode(Sha256::digest(material.to_string().as_bytes()))
    }

    fn path(&self, key: &str) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(dir.join(&key[..2]).join(format!("{key}.json")))
    }

    /// The stored reply for `key`.
    pub fn get(&self, key: &str) -> Option<Reply> {
        let text = std::fs::read_to_string(self.path(key)?).ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        Some(Reply {
            text: v.get("text")?.as_str()?.to_string(),
            input_tokens: v.get("inputTokens")?.as_u64()?,
            output_tokens: v.get("outputTokens")?.as_u64()?,
        })
    }

    /// Keeps `reply` under `key`; a cache that cannot be written is skipped, not fatal.
    pub fn put(&self, key: &str, reply: &Reply) -> Result<(), String> {
        let Some(path) = self.path(key) else {
            return Ok(());
        };
        let dir = path.parent().unwrap_or(&path).to_path_buf();
        let v = json!({"text": reply.text, "inputTokens": reply.input_tokens, "outputTokens": reply.output_tokens});
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(&dir)?;
            let mut tmp = tempfile::NamedTempFile::new_in(&dir)?;
            std::io::Write::write_all(&mut tmp, v.to_string().as_bytes())?;
            tmp.persist(&path).map_err(|e| e.error)?;
            Ok(())
        };
        write().map_err(|e| format!("cannot write the LLM cache {}: {e}", path.display()))
    }
}
