//! GitHub: the run's context from the Actions environment, what a step leaves behind without
//! an API call (job summary, step outputs, workflow-command annotations), and publishing
//! through the API (sticky comment, check run) with degradation when the token may not.

pub mod checks_api;
pub mod client;
pub mod comment;
pub mod context;
pub mod inert;
pub mod outputs;
pub mod post;
