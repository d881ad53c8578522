//! `publish`: post a stored report to GitHub, and the publishing options `run` shares.

use super::{runtime, verbosity};
use crate::cli;
use judge_ci::pipeline;

/// `publish`: posts the report a run stored in `--from`.
pub fn run(args: cli::PublishStoredArgs) -> anyhow::Result<i32> {
    let opts = options(&args.publish)?;
    let runtime = runtime()?;
    match runtime.block_on(pipeline::publish::stored(
        &args.from,
        pipeline::publish::Trust {
            config: args.config.as_deref(),
            trust_report: args.trust_report,
        },
        args.annotations,
        &opts,
        verbosity(&args.output),
    )) {
        Ok(code) => Ok(code),
        Err(e) => Ok(super::stored_report_error(&e)),
    }
}

/// The publishing options of the command line; the token from `--github-token`, else
/// `GITHUB_TOKEN`, else `GH_TOKEN`.
pub fn options(a: &cli::PublishArgs) -> anyhow::Result<pipeline::publish::PublishOptions> {
    let timeout = a
        .api_timeout
        .parse::<jiff::SignedDuration>()
        .ok()
        .and_then(|d| std::time::Duration::try_from(d).ok())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "--api-timeout {:?} is not a positive duration (for example 30s, 2m, PT1M)",
                a.api_timeout
            )
        })?;
    let token = a
        .github_token
        .clone()
        .or_else(|| std::env::var("GITHUB_TOKEN").ok())
        .or_else(|| std::env::var("GH_TOKEN").ok())
        .filter(|t| !t.trim().is_empty());
    if let Some(t) = &token {
        judge_ci::secrets::register(t);
    }
    for (flag, value) in [
        ("--check-name", &a.check_name),
        ("--comment-key", &a.comment_key),
    ] {
        if let Some(v) = value {
            judge_ci::config::instance::check(v)
                .map_err(|why| anyhow::anyhow!("{flag} {v:?} {why}"))?;
        }
    }
    Ok(pipeline::publish::PublishOptions {
        token,
        check_name: a.check_name.clone(),
        comment_key: a.comment_key.clone(),
        comment: a.comment_mode,
        delete_on_pass: a.delete_on_pass,
        check_run: a.check_run,
        timeout,
        require: a.require_publish,
    })
}
