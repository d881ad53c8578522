//! GitHub: the run's context from the Actions environment, and what a step leaves behind
//! without an API call (job summary, step outputs, workflow-command annotations). Posting
//! comments and check runs through the API is not part of this version.

pub mod context;
pub mod outputs;
