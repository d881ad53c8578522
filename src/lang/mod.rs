//! Source-language front ends (Java first): parsing into small models structural judges compare.

pub mod cache;
pub mod digests;
pub mod escapes;
pub mod java;

/// The version of every parsed model judge-ci caches between runs ([`cache`]): the Java model
/// of [`java`] (`JavaFile`, `Header` and what `parse`, `parse_with` and `header` put in them,
/// unicode-escape translation included). Bump it with any change to those types or to what
/// their parsers produce, so that entries written by an older judge-ci are never read as
/// current ones.
pub const MODEL_VERSION: u32 = 2;
