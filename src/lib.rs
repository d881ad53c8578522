//! judge-ci grades a pull request against a reference implementation with a cascaded jury
//! and reports the verdict where reviewers look.
//!
//! The pipeline runs one way: config → checkout → jury → diagnose → report → publish. This
//! crate currently holds the vocabulary ([`judgment`]) and the engine ([`jury`]), which
//! implement the judgment, jury and verdict semantics of the Agent Judge library 0.17.
#![warn(missing_docs)]

pub mod checkout;
pub mod config;
pub mod github;
pub mod judges;
pub mod judgment;
pub mod jury;
pub mod lang;
pub mod pipeline;
pub mod report;
