//! Reports: the stored JSON model and the surfaces rendered from it.

pub mod escape;
pub mod markdown;
mod model;

pub use model::*;
