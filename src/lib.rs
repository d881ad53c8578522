//! judge-ci grades a pull request against a reference implementation with a cascaded jury
//! and reports the verdict where reviewers look.
//!
//! The pipeline runs one way: config → the subject's and reference's trees ([`materialize`]) →
//! jury → diagnose → report → publish. The vocabulary ([`judgment`]) and the engine ([`jury`]) implement the judgment, jury and verdict
//! semantics of the Agent Judge library 0.17; [`judges`] are the instruments, [`report`] the
//! surfaces and [`github`] the last stage.
#![warn(missing_docs)]

pub mod calibrate;
pub mod config;
pub mod diagnose;
pub mod fence;
#[doc(hidden)]
pub mod fuzzing;
pub mod github;
pub mod http;
pub mod judges;
pub mod judgment;
pub mod jury;
pub mod lang;
pub mod materialize;
pub mod pipeline;
pub mod prove;
pub mod report;
pub mod secrets;
pub mod suite;
#[cfg(test)]
mod test_support;
pub mod untrusted;
