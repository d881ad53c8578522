//! The `judge-ci` binary: parse the command line, run, map the outcome to an exit code.

mod cli;

use anyhow::Context;
use clap::Parser;
use judge_ci::config::{CommentMode, FailOn};
use judge_ci::jury::interpret;
use judge_ci::pipeline::save::{WriteError, write_file};
use judge_ci::pipeline::{self, Format, RunOptions, Verbosity};
use judge_ci::suite;
use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Before any child starts: a process of the same user cannot read this one's environment
    // (the tokens), command line or memory through /proc, nor attach a debugger.
    if let Err(e) = nix::sys::prctl::set_dumpable(false) {
        eprintln!("judge-ci: warning: cannot make the process non-dumpable: {e}");
    }
    judge_ci::secrets::register_environment();
    // Every byte judge-ci prints passes the redaction boundary from here on.
    let stdio = judge_ci::secrets::redact_stdio();
    let code = main_inner();
    drop(stdio);
    code
}

fn main_inner() -> ExitCode {
    // One crypto library for every TLS connection (GitHub, LLM providers); reqwest refuses to
    // build a client without a process-wide provider.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // Help and version are successes; anything else is a bad command line (exit 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                pipeline::EXIT_BAD_INPUT as u8
            } else {
                0
            });
        }
    };
    let code = match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("judge-ci: error: {e:#}");
            // An output that could not be written is the instrument's failure, not the input's.
            if e.downcast_ref::<WriteError>().is_some() {
                pipeline::EXIT_INSTRUMENT
            } else {
                pipeline::EXIT_BAD_INPUT
            }
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn verbosity(o: &cli::OutputArgs) -> Verbosity {
    if o.quiet {
        Verbosity::Quiet
    } else if o.verbose {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    }
}

fn color(o: &cli::OutputArgs) -> bool {
    match o.color {
        cli::Color::Always => true,
        cli::Color::Never => false,
        cli::Color::Auto => {
            std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
        }
    }
}

/// Runs one subcommand and returns the exit code.
fn dispatch(cli: cli::Cli) -> anyhow::Result<i32> {
    match cli.command {
        None => run(cli.run, None),
        Some(cli::Command::Run(args)) => run(args, None),
        Some(cli::Command::Resume { from, run: args }) => {
            if args.stop_before_semantic {
                eprintln!(
                    "judge-ci: error: resume finishes a split run; --stop-before-semantic belongs to the first job"
                );
                return Ok(pipeline::EXIT_BAD_INPUT);
            }
            run(args, Some(from))
        }
        Some(cli::Command::Publish {
            from,
            config,
            trust_report,
            annotations,
            publish,
            output,
        }) => {
            let opts = publish_options(&publish)?;
            let runtime = runtime()?;
            match runtime.block_on(pipeline::publish::stored(
                &from,
                pipeline::publish::Trust {
                    config: config.as_deref(),
                    trust_report,
                },
                annotations,
                &opts,
                verbosity(&output),
            )) {
                Ok(code) => Ok(code),
                Err(e) => {
                    eprintln!("judge-ci: error: {e}");
                    Ok(e.exit_code())
                }
            }
        }
        Some(cli::Command::Validate { config, output }) => {
            allow_key_envs(&config);
            match pipeline::validate(
                config.config.as_deref(),
                config.task.as_deref(),
                verbosity(&output),
                color(&output),
            ) {
                Ok(text) => {
                    print!("{text}");
                    Ok(pipeline::EXIT_PASS)
                }
                Err(e) => {
                    eprintln!("{e}");
                    Ok(e.exit_code())
                }
            }
        }
        Some(cli::Command::Interpret { file, format }) => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                anyhow::anyhow!(
                    "{}:{}:{}: not JSON: {e}",
                    file.display(),
                    e.line(),
                    e.column()
                )
            })?;
            // A report wraps the verdict; a bare verdict is read as it is.
            let verdict = match value.get("verdict") {
                Some(v) if value.get("schema").is_some() => v,
                _ => &value,
            };
            let reading = interpret::interpret(verdict);
            match format {
                cli::InterpretFormat::Text => println!("{}", interpret::summary(&reading)),
                cli::InterpretFormat::Json => {
                    println!("{}", serde_json::to_string_pretty(&reading)?)
                }
            }
            Ok(pipeline::EXIT_PASS)
        }
        Some(cli::Command::Checkout { source, dest }) => {
            let here = std::env::current_dir().context("cannot read the working folder")?;
            match judge_ci::checkout::materialize_into(
                &judge_ci::checkout::Source::parse(&source),
                &here,
                &dest,
            ) {
                Ok((commit, files)) => {
                    println!("{commit}: {files} file(s) written to {}", dest.display());
                    Ok(pipeline::EXIT_PASS)
                }
                Err(e) => {
                    eprintln!("judge-ci: error: {e}");
                    Ok(pipeline::EXIT_BAD_INPUT)
                }
            }
        }
        Some(cli::Command::Render {
            report,
            format,
            out,
            template,
            annotations,
        }) => {
            let text = std::fs::read_to_string(&report)
                .with_context(|| format!("cannot read {}", report.display()))?;
            let parsed: judge_ci::report::Report = serde_json::from_str(&text).map_err(|e| {
                anyhow::anyhow!(
                    "{}:{}:{}: not a judge-ci report: {e}",
                    report.display(),
                    e.line(),
                    e.column()
                )
            })?;
            let template = match template {
                Some(p) => Some(
                    std::fs::read_to_string(&p)
                        .with_context(|| format!("cannot read the template {}", p.display()))?,
                ),
                None => None,
            };
            use judge_ci::report::Surface;
            match out {
                Some(dir) => {
                    std::fs::create_dir_all(&dir)
                        .with_context(|| format!("cannot create {}", dir.display()))?;
                    for s in Surface::ALL.into_iter().filter(|s| *s != Surface::Json) {
                        let text =
                            judge_ci::report::render(&parsed, s, template.as_deref(), annotations)?;
                        let path = dir.join(s.file_name());
                        write_file(&path, text.as_bytes())?;
                    }
                    println!("wrote every surface into {}", dir.display());
                }
                None => {
                    let s = match format {
                        cli::RenderFormat::Markdown => Surface::Markdown,
                        cli::RenderFormat::Summary => Surface::Summary,
                        cli::RenderFormat::Html => Surface::Html,
                        cli::RenderFormat::CheckRun => Surface::CheckRun,
                        cli::RenderFormat::Junit => Surface::Junit,
                        cli::RenderFormat::Sarif => Surface::Sarif,
                    };
                    let text =
                        judge_ci::report::render(&parsed, s, template.as_deref(), annotations)?;
                    print!("{}", judge_ci::github::inert::wrap(&text));
                }
            }
            Ok(pipeline::EXIT_PASS)
        }
        Some(cli::Command::Diagnose {
            report,
            plan,
            knowledge,
            journal,
            analysis,
            task,
            config,
            format,
            write,
        }) => {
            let opts = pipeline::diagnose::DiagnoseOptions {
                plan,
                knowledge,
                journal,
                analysis,
                task,
                config,
            };
            match pipeline::diagnose::rediagnose(&report, &opts) {
                Ok(r) => {
                    if write {
                        // Replaced whole or not at all: a full disk must not cost the stored
                        // report.
                        let json = serde_json::to_string_pretty(&r)?;
                        write_file(&report, json.as_bytes())?;
                    }
                    match format {
                        cli::OutputFormat::Markdown => print!(
                            "{}",
                            judge_ci::github::inert::wrap(&judge_ci::report::markdown::render(&r))
                        ),
                        cli::OutputFormat::Json => {
                            println!("{}", serde_json::to_string_pretty(&r.diagnostics)?)
                        }
                    }
                    Ok(0)
                }
                Err(e) => {
                    eprintln!("judge-ci: error: {e}");
                    Ok(e.exit_code())
                }
            }
        }
        Some(cli::Command::Suite {
            dir,
            out,
            jobs,
            shard,
            filter,
            html,
            output,
        }) => {
            let shard = match shard.as_deref().map(suite::Shard::parse).transpose() {
                Ok(s) => s,
                Err(e) => return bad_input(&e),
            };
            let filters = match filter
                .iter()
                .map(|f| suite::Filter::parse(f))
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(f) => f,
                Err(e) => return bad_input(&e),
            };
            let jobs = jobs
                .filter(|n| *n > 0)
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
            let opts = suite::SuiteOptions {
                dir,
                out: out.clone(),
                jobs,
                shard,
                filters,
                progress: !output.quiet && std::io::stderr().is_terminal(),
            };
            match runtime()?.block_on(suite::run(&opts)) {
                Ok(report) => {
                    finish_suite(&report, &out, html)?;
                    if !output.quiet {
                        eprintln!(
                            "judge-ci: {} task(s): {} accepted, {} rejected, {} not assessed, {} could not run (suite: {})",
                            report.totals.tasks,
                            report.totals.accepted,
                            report.totals.rejected,
                            report.totals.not_assessed,
                            report.totals.errors,
                            out.join("suite.json").display()
                        );
                    }
                    Ok(0)
                }
                Err(e) => suite_error(e),
            }
        }
        Some(cli::Command::Merge { dirs, out, html }) => match suite::merge(&dirs, &out) {
            Ok(report) => {
                finish_suite(&report, &out, html)?;
                eprintln!(
                    "judge-ci: merged {} shard folder(s), {} task(s) into {}",
                    dirs.len(),
                    report.totals.tasks,
                    out.join("suite.json").display()
                );
                Ok(0)
            }
            Err(e) => suite_error(e),
        },
        Some(cli::Command::Compare {
            baseline,
            current,
            tolerance,
            max_regressions,
            format,
            out,
        }) => {
            let (base, cur) = match (read_suite(&baseline), read_suite(&current)) {
                (Ok(b), Ok(c)) => (b, c),
                (Err(e), _) | (_, Err(e)) => return bad_input(&e),
            };
            let cmp = suite::compare::compare(&base, &cur, tolerance);
            let md = suite::render::markdown(&cur, Some(&cmp));
            match format {
                cli::OutputFormat::Markdown => print!("{}", judge_ci::github::inert::wrap(&md)),
                cli::OutputFormat::Json => println!("{}", serde_json::to_string_pretty(&cmp)?),
            }
            if let Some(dir) = &out {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
                for (name, text) in [
                    ("compare.md", md.clone()),
                    ("compare.json", serde_json::to_string_pretty(&cmp)? + "\n"),
                    ("compare.html", suite::render::html(&cur, Some(&cmp))),
                ] {
                    let path = dir.join(name);
                    write_file(&path, text.as_bytes())?;
                }
            }
            append_summary(&md)?;
            if cmp.regressions > max_regressions {
                eprintln!(
                    "judge-ci: {} task(s) regressed (allowed: {max_regressions})",
                    cmp.regressions
                );
                Ok(1)
            } else {
                Ok(0)
            }
        }
        Some(cli::Command::Schema) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&judge_ci::config::schema::config_schema())?
            );
            Ok(pipeline::EXIT_PASS)
        }
    }
}

/// The publishing options of the command line; the token from `--github-token`, else
/// `GITHUB_TOKEN`, else `GH_TOKEN`.
fn publish_options(a: &cli::PublishArgs) -> anyhow::Result<pipeline::publish::PublishOptions> {
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
    Ok(pipeline::publish::PublishOptions {
        token,
        comment: a.comment_mode.map(|m| match m {
            cli::CommentModeArg::Update => CommentMode::Update,
            cli::CommentModeArg::Recreate => CommentMode::Recreate,
            cli::CommentModeArg::Minimize => CommentMode::Minimize,
            cli::CommentModeArg::Off => CommentMode::Off,
        }),
        delete_on_pass: a.delete_on_pass,
        check_run: a.check_run,
        timeout,
        require: a.require_publish,
    })
}

/// Prints a bad-input message; exit 2.
fn bad_input(msg: &str) -> anyhow::Result<i32> {
    eprintln!("judge-ci: error: {msg}");
    Ok(pipeline::EXIT_BAD_INPUT)
}

/// The exit code of a suite error.
fn suite_error(e: suite::SuiteError) -> anyhow::Result<i32> {
    eprintln!("judge-ci: error: {e}");
    Ok(match e {
        suite::SuiteError::Input(_) => pipeline::EXIT_BAD_INPUT,
        suite::SuiteError::Io(_) => pipeline::EXIT_INSTRUMENT,
        suite::SuiteError::Cancelled { signal, .. } => 128 + signal,
    })
}

/// A suite report from a `suite.json` or a folder holding one.
fn read_suite(p: &std::path::Path) -> Result<suite::SuiteReport, String> {
    let file = if p.is_dir() {
        p.join("suite.json")
    } else {
        p.to_path_buf()
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("{}: cannot be read: {e}", file.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}:{}:{}: not a judge-ci suite report: {e}",
            file.display(),
            e.line(),
            e.column()
        )
    })
}

/// Appends `md` to the job summary when running in GitHub Actions.
fn append_summary(md: &str) -> anyhow::Result<()> {
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
        && let Ok(p) = std::env::var("GITHUB_STEP_SUMMARY")
    {
        judge_ci::github::outputs::append(std::path::Path::new(&p), md)
            .with_context(|| format!("cannot write the job summary {p}"))?;
    }
    Ok(())
}

/// After a suite or merge: the optional HTML page and the job summary.
fn finish_suite(
    report: &suite::SuiteReport,
    out: &std::path::Path,
    html: bool,
) -> anyhow::Result<()> {
    if html {
        write_file(
            &out.join("suite.html"),
            suite::render::html(report, None).as_bytes(),
        )?;
    }
    append_summary(&suite::render::markdown(report, None))
}

/// A multi-threaded async runtime.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// `--allow-key-env`: the workflow's allowance, before any config is read; the value of each
/// allowed variable is a secret from now on.
fn allow_key_envs(c: &cli::ConfigArgs) {
    for name in &c.allow_key_env {
        judge_ci::config::endpoint::allow_key_env(name);
        if let Ok(v) = std::env::var(name) {
            judge_ci::secrets::register(&v);
        }
    }
}

fn run(args: cli::RunArgs, resume: Option<std::path::PathBuf>) -> anyhow::Result<i32> {
    let split = match (resume, args.stop_before_semantic) {
        (Some(dir), _) => pipeline::resume::Split::Resume(dir),
        (None, true) => pipeline::resume::Split::StopBeforeSemantic,
        (None, false) => pipeline::resume::Split::Whole,
    };
    allow_key_envs(&args.config);
    let opts = RunOptions {
        config: args.config.config,
        task: args.config.task,
        workspace: args.workspace,
        reference: args.reference,
        head: args.head,
        keep_checkouts: args.keep_checkouts,
        model_cache: args.model_cache.clone(),
        dry_run: args.dry_run,
        out: args.out,
        format: match args.format {
            cli::OutputFormat::Markdown => Format::Markdown,
            cli::OutputFormat::Json => Format::Json,
        },
        verbosity: verbosity(&args.output),
        color: color(&args.output),
        fail_on: args.fail_on.map(|f| match f {
            cli::FailOnArg::Fail => FailOn::Fail,
            cli::FailOnArg::NotPass => FailOn::NotPass,
            cli::FailOnArg::Never => FailOn::Never,
            cli::FailOnArg::Error => FailOn::Error,
        }),
        config_from: match pipeline::inputs::ConfigFrom::parse(&args.config_from) {
            Ok(c) => c,
            Err(e) => return bad_input(&e),
        },
        publish: publish_options(&args.publish)?,
        actions: true,
        split,
    };
    let runtime = runtime()?;
    match runtime.block_on(pipeline::run(&opts)) {
        Ok(result) => {
            print!("{}", result.stdout);
            if opts.verbosity != Verbosity::Quiet {
                match &result.report_path {
                    Some(p) => eprintln!(
                        "judge-ci: {} (report: {})",
                        result.report.outcome.reason,
                        p.display()
                    ),
                    None => eprintln!("judge-ci: {}", result.report.outcome.reason),
                }
            }
            Ok(result.exit_code)
        }
        Err(e) => {
            eprintln!("{e}");
            Ok(e.exit_code())
        }
    }
}
