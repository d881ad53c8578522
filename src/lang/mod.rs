//! Source-language front ends (Java first): parsing into small models structural judges compare.

pub mod escapes;
pub mod java;
