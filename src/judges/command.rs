//! Judges that run programs: `command`, `maven-build`, `gradle-build` and `external`
//! (jury-semantics §3.2; the external protocol of config.md).

use crate::config::checks::walks_without_links;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

use crate::config::checks::{CommandLine, WorkspacePath};
use crate::fence::Fence;
use crate::judgment::{Cause, Check, Judgment, JudgmentContext, ReasonCode, Status};

use super::paths::{Resolved, resolve};
use super::process::{self, Exit, Private, ProcessOutput, ProcessSpec};
use super::{Outcome, build, instrument, instrument_because};
use super::{maven, resolution};

/// Most characters of output kept in a judgment's metadata.
const OUTPUT_IN_METADATA: usize = 16 * 1024;

fn spec_for(
    run: &CommandLine,
    dir: &Path,
    env: &[(String, String)],
    timeout: Duration,
) -> ProcessSpec {
    let (program, args) = match run {
        CommandLine::Shell(line) => {
            let spec = ProcessSpec::shell(line, dir.to_path_buf(), timeout);
            (spec.program, spec.args)
        }
        CommandLine::ShellWithGlobs(line) => {
            ("sh".to_string(), vec!["-c".to_string(), line.clone()])
        }
        CommandLine::Argv(v) => (v[0].clone(), v[1..].to_vec()),
    };
    ProcessSpec {
        program,
        args,
        dir: dir.to_path_buf(),
        env: env.to_vec(),
        timeout,
        stdin: None,
        answer: false,
        private: Private::default(),
    }
}

/// Why a program could not be started, as judge-ci can tell: a program named by a relative
/// path lies in the subject's tree (`./gradlew`, `bin/check`), so its absence (or a missing
/// interpreter line, a mode the subject set) is the subject's doing and has no cause of the
/// instrument's; a program found on the PATH that is not there is a missing tool
/// (`spec/trust.md` point 12).
fn start_cause(e: &std::io::Error, program: &str) -> Option<Cause> {
    let in_tree = program.contains('/') && !Path::new(program).is_absolute();
    if in_tree { None } else { Cause::of_spawn(e) }
}

/// Keeps the last `max` characters (the end of a log says what failed).
fn tail_chars(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let cut: String = s.chars().skip(n - max).collect();
    format!("[… {} characters cut …]\n{cut}", n - max)
}

/// The judgment of a run that did not reach an exit code of its own. A timeout judge-ci
/// enforced is an ERROR with the `timeout` cause. A signal judge-ci did not send is the
/// subject's doing (its program crashed, or something it started killed it), so it is a FAIL
/// like any other failed run: were it an ERROR, a PR could kill its own build and let a
/// lenient later tier decide (trust.md: no faked environment failure).
fn not_finished(display: &str, out: &ProcessOutput, timeout: Duration) -> Option<Outcome> {
    let builder = match out.exit {
        Exit::TimedOut => {
            let why = format!(
                "`{display}` did not finish within {}; its process group was killed",
                humantime(timeout)
            );
            Judgment::builder(Status::Error)
                .reason_code(ReasonCode::JudgeReported)
                .cause(Cause::Timeout)
                .reasoning(why.clone())
                .check(Check::failed("command_execution", why).ok()?)
        }
        Exit::Signal(s) => {
            let why = format!(
                "`{display}` was killed by signal {s}, which judge-ci did not send: the subject's \
                 process ended abnormally (a crash, or a kill from inside the run)"
            );
            Judgment::builder(Status::Fail)
                .reasoning(why.clone())
                .check(Check::failed("command_execution", why).ok()?)
                .metadata("signal", s)
        }
        Exit::Code(_) if !out.outlived.is_empty() => {
            let why = format!(
                "{} process(es) of `{display}` were still alive after judge-ci killed its group and waited (pids {:?}): what the build left cannot be read as evidence while they may still write it",
                out.outlived.len(),
                out.outlived
            );
            Judgment::builder(Status::Error)
                .reason_code(ReasonCode::JudgeReported)
                .reasoning(why.clone())
                .check(Check::failed("command_execution", why).ok()?)
        }
        Exit::Code(_) => return None,
    };
    Some(build(
        builder
            .metadata("command", display)
            .metadata("output", tail_chars(&out.combined(), OUTPUT_IN_METADATA))
            .metadata("elapsedMillis", out.elapsed.as_millis() as u64),
    ))
}

/// A short human duration (`2m`, `90s`, `1h 5m`).
pub fn humantime(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0 => format!("{}ms", d.as_millis()),
        1..=119 => format!("{s}s"),
        120..=7199 => format!(
            "{}m{}",
            s / 60,
            if s.is_multiple_of(60) {
                String::new()
            } else {
                format!(" {}s", s % 60)
            }
        ),
        _ => format!("{}h {}m", s / 3600, (s % 3600) / 60),
    }
}

/// `command`: PASS iff the exit code is the expected one.
pub async fn command(
    workspace: &Path,
    run: &CommandLine,
    expect_exit: i32,
    env: &[(String, String)],
    dir: Option<&WorkspacePath>,
    timeout: Duration,
    fence: &Fence,
) -> Outcome {
    let cwd = match dir {
        None => workspace.to_path_buf(),
        Some(d) => match resolve(workspace, d.as_path()) {
            Resolved::Inside(p) if p.is_dir() => p,
            Resolved::Inside(_) | Resolved::Missing(_) => {
                return instrument(format!(
                    "the command's folder {} does not exist",
                    d.as_path().display()
                ));
            }
            Resolved::Escapes(why) => {
                return instrument(format!("path escapes the workspace: {why}"));
            }
            Resolved::ThroughLink(link) => {
                return super::not_regular_fail(
                    "the command's folder",
                    Path::new(""),
                    &[(link, crate::untrusted::Kind::Symlink)],
                );
            }
        },
    };
    let spec = spec_for(run, &cwd, env, timeout);
    let display = spec.display();
    if let Some(reads) = NameReading::of(run)
        && let Some(j) = misreadable_names(&cwd, reads, &display)
    {
        return j;
    }
    if let Some((line, _)) = run.shell_script()
        && walks_without_links(line)
        && let Some(links) = links_in(&cwd)
    {
        return refuse_links(links, &display);
    }
    let out = match process::run(&spec, fence).await {
        Ok(o) => o,
        Err(e) => {
            return instrument_because(
                start_cause(&e, &spec.program),
                format!("`{display}` could not be started: {e}"),
            );
        }
    };
    if let Some(j) = not_finished(&display, &out, timeout) {
        return j;
    }
    let Exit::Code(code) = out.exit else {
        unreachable!("handled by not_finished")
    };
    let passed = code == expect_exit;
    let reasoning = if passed {
        format!("`{display}` exited with {code} as expected")
    } else {
        format!("Expected exit code {expect_exit} but got {code} from `{display}`")
    };
    build(
        Judgment::builder(if passed { Status::Pass } else { Status::Fail })
            .reasoning(reasoning)
            .check(Check::new(
                "command_execution",
                passed,
                format!("exit code {code}"),
            )?)
            .metadata("command", display)
            .metadata("exitCode", code)
            .metadata("expectedExitCode", expect_exit)
            .metadata("output", tail_chars(&out.combined(), OUTPUT_IN_METADATA))
            .metadata("elapsedMillis", out.elapsed.as_millis() as u64),
    )
}

/// How a shell line can read the names in its tree as words of its own (trust.md point 25):
/// pathname expansion (`glob: true`), or a construct that splits a list of names at blanks
/// (`find … | xargs cmd` without `-0`/`-d`, `$(find …)`, `` `ls` ``, `for f in $(…)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct NameReading {
    /// Pathname expansion is on.
    globs: bool,
    /// The line splits a list of names into words.
    splits: bool,
}

impl NameReading {
    /// How `run` reads names, or `None` when it cannot read one as a word: an argument
    /// vector, or a shell line with neither expansion nor splitting.
    fn of(run: &CommandLine) -> Option<NameReading> {
        // A list whose program is a shell given `-c` runs its script as a string `run:` does
        // (S8-3).
        let (line, globs) = run.shell_script()?;
        let r = NameReading {
            globs,
            splits: crate::config::checks::splits_names(line),
        };
        (r.globs || r.splits).then_some(r)
    }

    /// Whether a name (its bytes) could become something else than one word naming a file:
    /// an option (`-x`) or an argument file (`@opts`, which javac, java, gcc and clang read
    /// options from) wherever names become words, and any blank, quote, backslash or newline
    /// where a list of names is split into words.
    fn misreads(self, n: &[u8]) -> bool {
        let option_like = matches!(n.first(), Some(b'-' | b'@'));
        let breaks_a_word = n.contains(&b'\n')
            || (self.splits
                && n.iter()
                    .any(|b| matches!(b, b' ' | b'\t' | b'\'' | b'"' | b'\\' | b'`')));
        option_like || breaks_a_word
    }
}

/// Most entries looked at for names a command could misread.
const NAMES_LOOKED_AT: usize = 200_000;

/// A FAIL when the tree under `dir` holds a name the command would read as more than one
/// word naming a file ([`NameReading::misreads`]): the command's meaning would then be the
/// pull request's to choose (trust.md point 25; attack findings NC5, NC10), so it is not run.
/// `None` when no such name is there.
fn misreadable_names(dir: &Path, reads: NameReading, display: &str) -> Option<Outcome> {
    misreadable_names_in(dir, reads).map(|names| refuse_expansion(names, reads, display))
}

/// The names under `dir` (at most ten) that the command could misread.
fn misreadable_names_in(dir: &Path, reads: NameReading) -> Option<Vec<String>> {
    entries_under(dir, &|e| reads.misreads(e.file_name().as_encoded_bytes()))
}

/// The entries under `dir` (links not followed, `.git` not entered, at most
/// [`NAMES_LOOKED_AT`] looked at) that `pick` picks, at most ten, relative and escaped.
fn entries_under(dir: &Path, pick: &dyn Fn(&walkdir::DirEntry) -> bool) -> Option<Vec<String>> {
    let names: Vec<String> = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .min_depth(1)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git")
        .take(NAMES_LOOKED_AT)
        .filter_map(Result::ok)
        .filter(|e| pick(e))
        .map(|e| {
            e.path()
                .strip_prefix(dir)
                .unwrap_or(e.path())
                .to_string_lossy()
                .escape_debug()
                .to_string()
        })
        .take(10)
        .collect();
    (!names.is_empty()).then_some(names)
}

/// The symbolic links under `dir` (at most ten, `.git` not entered), relative.
fn links_in(dir: &Path) -> Option<Vec<String>> {
    entries_under(dir, &|e| e.file_type().is_symlink())
}

/// The FAIL of a command not run because its walk would pass over `links` in the tree.
fn refuse_links(links: Vec<String>, display: &str) -> Outcome {
    let reasoning = format!(
        "`{display}` was not run: it walks the tree with a program that passes over symbolic links, in a tree that holds {} — what the build reads through a link would go unsearched (follow links: grep -R, find -L, rg -L; or judge the files with a structural check)",
        links.join(", ")
    );
    not_run(
        reasoning,
        "symbolic links in the tree would hide files from the command's walk",
        display,
        ("symbolicLinks", links),
    )
}

/// The FAIL of a command judge-ci did not run because the tree would change its meaning:
/// the reasoning, the failed check's message, and the paths that would, under `key`.
fn not_run(
    reasoning: String,
    check: &str,
    display: &str,
    (key, paths): (&str, Vec<String>),
) -> Outcome {
    build(
        Judgment::builder(Status::Fail)
            .reasoning(reasoning)
            .check(Check::new("command_execution", false, check)?)
            .metadata("command", display)
            .metadata(key, json!(paths)),
    )
}

/// The FAIL of a command not run over `names` it could misread.
fn refuse_expansion(names: Vec<String>, reads: NameReading, display: &str) -> Outcome {
    let how = match (reads.globs, reads.splits) {
        (true, true) => {
            "expands globs (glob: true, or a shell given -c) and splits a list of names into words"
        }
        (true, false) => "expands globs (glob: true, or a shell given -c)",
        (false, _) => {
            "reads a list of names back as words or lines (xargs, read or mapfile without NUL delimiters, or a substitution of find or ls)"
        }
    };
    let reasoning = format!(
        "`{display}` was not run: it {how} in a tree that holds {}, a name the command could turn into an option or an argument file, or split into words",
        names.join(", ")
    );
    not_run(
        reasoning,
        "names in the tree could change the command's meaning",
        display,
        ("optionLikeNames", names),
    )
}

/// The build tool to use: the wrapper if present and executable, else the tool on the PATH.
fn build_tool(workspace: &Path, wrapper: &str, tool: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let w = workspace.join(wrapper);
    match std::fs::metadata(&w) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => format!("./{wrapper}"),
        _ => tool.to_string(),
    }
}

/// `maven-build` and `gradle-build`: PASS iff the build exits 0. Compiler errors become
/// findings; a build that needed an artifact judge-ci found in no local repository before it
/// ran, which the reference needs too, or that ran on a disk judge-ci measures full, is the
/// environment's failure (ERROR with that cause), not the subject's; one only the pull
/// request's POM needs is its FAIL. Nothing the build printed decides it.
pub async fn build_tool_run(
    workspace: &Path,
    resolution: Option<&resolution::Resolution>,
    maven_build: bool,
    goals: &[String],
    args: &[String],
    timeout: Duration,
    fence: &Fence,
) -> Outcome {
    let program = if maven_build {
        build_tool(workspace, "mvnw", "mvn")
    } else {
        build_tool(workspace, "gradlew", "gradle")
    };
    let mut argv: Vec<String> = Vec::new();
    if maven_build {
        argv.push("-B".into());
    }
    argv.extend(args.iter().cloned());
    argv.extend(goals.iter().cloned());
    let spec = ProcessSpec {
        program: program.clone(),
        args: argv,
        dir: workspace.to_path_buf(),
        env: Vec::new(),
        timeout,
        stdin: None,
        answer: false,
        private: Private::default(),
    };
    let display = spec.display();
    let tmp = std::env::temp_dir();
    let disk_dirs = [workspace, tmp.as_path()];
    let free_before = maven::free_space(&disk_dirs);
    let out = match process::run(&spec, fence).await {
        Ok(o) => o,
        Err(e) => {
            return instrument_because(
                start_cause(&e, &program),
                format!(
                    "`{display}` could not be started: {e}{}",
                    if program.starts_with("./") {
                        ""
                    } else {
                        " (is it installed and on the PATH?)"
                    }
                ),
            );
        }
    };
    if let Some(j) = not_finished(&display, &out, timeout) {
        return j;
    }
    let Exit::Code(code) = out.exit else {
        unreachable!("handled by not_finished")
    };
    let log = out.combined();
    let findings = if maven_build {
        maven::compiler_errors(&log, workspace)
    } else {
        Vec::new()
    };
    let error_lines = maven::error_lines(&log, 30);
    // Every outcome carries the same evidence: the command, its exit, the log's end, findings.
    let with_evidence = |status: Status| {
        let mut b = Judgment::builder(status)
            .metadata("command", display.clone())
            .metadata("exitCode", code)
            .metadata("output", tail_chars(&log, OUTPUT_IN_METADATA))
            .metadata("elapsedMillis", out.elapsed.as_millis() as u64);
        b = b.findings(findings.iter().cloned());
        if !error_lines.is_empty() {
            b = b.metadata("errorLines", json!(error_lines));
        }
        b
    };
    if code == 0 {
        return build(
            with_evidence(Status::Pass)
                .reasoning(format!("`{display}` succeeded"))
                .check(Check::passed("build", "exit code 0")?),
        );
    }
    // Why it failed is judge-ci's own observation, never the log's: what judge-ci found
    // absent from the local repositories before the build (and still absent), then the disk
    // as judge-ci measures it. Anything else is the build's own failure.
    let blame = resolution.map(resolution::Resolution::after_failure);
    if let Some(resolution::Blame::Introduced(ours)) = &blame {
        let why = format!(
            "{} cannot be resolved here and only the pull request's POM declares it (the \
             reference's does not): a dependency the change introduced",
            ours.join(", ")
        );
        return build(
            with_evidence(Status::Fail)
                .reasoning(format!("`{display}` failed: {why}"))
                .check(Check::failed("build", format!("exit code {code}: {why}"))?),
        );
    }
    let env_failure = match (&blame, resolution) {
        (Some(resolution::Blame::Environment(missing)), Some(r)) => Some((
            if r.offline {
                Cause::NetworkUnreachable
            } else {
                Cause::DependencyUnresolved
            },
            format!(
                "{}: {} {} in no local repository judge-ci looked in ({}) before the build, and the build could not fetch {}{}",
                if missing.iter().all(|m| m.starts_with("Plugin ")) {
                    "a plugin could not be resolved"
                } else {
                    "Could not resolve dependencies"
                },
                missing.join(", "),
                if missing.len() == 1 { "is" } else { "are" },
                r.shown_repositories(),
                if missing.len() == 1 { "it" } else { "them" },
                if r.offline {
                    " (the build runs offline: the remote repository cannot be reached)"
                } else {
                    " (a remote repository cannot be reached or does not hold it)"
                },
            ),
        )),
        _ => None,
    };
    // A disk found full counts as the runner's only when judge-ci measured it full before
    // the build's code ran; filled while it ran, the failure is the build's own.
    let mut filled = None;
    let env_failure = env_failure.or_else(|| match maven::read_disk(&disk_dirs, &free_before) {
        maven::DiskReading::FullBefore(cause, why) => Some((cause, why)),
        maven::DiskReading::FilledByTheBuild(why) => {
            filled = Some(why);
            None
        }
        maven::DiskReading::NotFull => None,
    });
    if let Some((cause, why)) = env_failure {
        return build(
            with_evidence(Status::Error)
                .reason_code(ReasonCode::JudgeReported)
                .cause(cause)
                .reasoning(format!("the build could not run: {why} (`{display}`)"))
                .check(Check::failed("build", format!("exit code {code}: {why}"))?),
        );
    }
    let summary = if let Some(first) = findings.first() {
        format!(
            "{} compiler error(s); first: {}",
            findings.len(),
            first.one_line()
        )
    } else if let Some(t) = maven::test_summary(&log) {
        t
    } else {
        format!("exit code {code}")
    };
    let summary = match filled {
        Some(why) => format!("{summary} ({why})"),
        None => summary,
    };
    build(
        with_evidence(Status::Fail)
            .reasoning(format!("`{display}` failed: {summary}"))
            .check(Check::failed("build", format!("exit code {code}"))?),
    )
}

/// `external`: runs a program that writes one judgment as JSON on its answer channel,
/// descriptor 3 (`JUDGE_ANSWER_FD`), never standard output: whatever the program starts
/// (subject code it loads or builds) inherits standard output and could print a passing
/// judgment first, while descriptor 3 is one judge-ci passes to this program alone and a
/// child gets only if the program hands it on (most process libraries close it). Standard
/// output and error are logs. Any breach of the protocol is `ERROR judge_failed` with the
/// reason and the start of stderr.
pub async fn external(
    ctx: &JudgmentContext,
    run: &CommandLine,
    env: &[(String, String)],
    timeout: Duration,
    fence: &Fence,
) -> Outcome {
    let workspace = &ctx.workspace;
    let reference = ctx
        .reference
        .as_ref()
        .map(|r| r.display().to_string())
        .unwrap_or_default();
    let context = json!({
        "workspace": workspace.display().to_string(),
        "reference": reference,
        "goal": ctx.goal,
        "metadata": Value::Object(ctx.metadata.clone()),
    });
    let mut spec = spec_for(run, workspace, env, timeout);
    spec.env.extend([
        (
            "JUDGE_WORKSPACE".to_string(),
            workspace.display().to_string(),
        ),
        ("JUDGE_REFERENCE".to_string(), reference),
        ("JUDGE_GOAL".to_string(), ctx.goal.clone()),
        (
            "JUDGE_ANSWER_FD".to_string(),
            process::ANSWER_FD.to_string(),
        ),
    ]);
    // The judge-ci binary, for `"$JUDGE_CI" fence-exec -- …`: the judge runs the subject's
    // code fenced apart from itself (docs/gates.md).
    if let Ok(exe) = std::env::current_exe() {
        // Wherever the binary lies (an Action puts it in RUNNER_TEMP, a checkout may build it
        // under /tmp): folders the fence hides would hide it too, and fence-exec could not start.
        fence.show(&exe);
        spec.env
            .push(("JUDGE_CI".to_string(), exe.display().to_string()));
    }
    // The metadata in the judge's private temporary folder and the reference readable to it
    // alone: the run hides both from every other process (attack finding G10-5: the judge
    // could read neither), and `fence-exec` hides them from the code the judge runs.
    spec.private.files.push((
        "JUDGE_METADATA".to_string(),
        "judge-metadata.json".to_string(),
        serde_json::to_vec(&ctx.metadata).unwrap_or_default(),
    ));
    spec.private.readable.extend(ctx.reference.iter().cloned());
    spec.answer = true;
    spec.stdin = Some(serde_json::to_vec(&context).unwrap_or_default());
    let display = spec.display();
    let failed = |cause: Option<Cause>, why: String, out: Option<&ProcessOutput>| -> Outcome {
        let stderr: String = out
            .map(|o| o.stderr.text())
            .unwrap_or_default()
            .chars()
            .take(2048)
            .collect();
        let mut b = Judgment::builder(Status::Error)
            .reason_code(ReasonCode::JudgeFailed)
            .maybe_cause(cause)
            .reasoning(if stderr.trim().is_empty() {
                why.clone()
            } else {
                format!("{why}; stderr: {}", stderr.trim())
            })
            .metadata("command", display.clone());
        if let Some(o) = out {
            b = b
                .metadata("stderr", stderr)
                .metadata("elapsedMillis", o.elapsed.as_millis() as u64);
        }
        build(b)
    };
    let out = match process::run(&spec, fence).await {
        Ok(o) => o,
        Err(e) => {
            return failed(
                start_cause(&e, &spec.program),
                format!("external judge `{display}` could not be started: {e}"),
                None,
            );
        }
    };
    match out.exit {
        Exit::TimedOut => {
            return failed(
                Some(Cause::Timeout),
                format!(
                    "external judge `{display}` did not finish within {}",
                    humantime(timeout)
                ),
                Some(&out),
            );
        }
        Exit::Signal(s) => {
            return failed(
                None,
                format!("external judge `{display}` was terminated by signal {s}"),
                Some(&out),
            );
        }
        Exit::Code(0) => {}
        Exit::Code(c) => {
            return failed(
                Some(Cause::JudgeBroken),
                format!("external judge `{display}` exited with {c} (the protocol requires 0)"),
                Some(&out),
            );
        }
    }
    if out.answer.len() > process::ANSWER_BYTES {
        return failed(
            Some(Cause::JudgeBroken),
            format!(
                "external judge `{display}` wrote more than judge-ci reads ({} bytes) on descriptor {}",
                process::ANSWER_BYTES,
                process::ANSWER_FD
            ),
            Some(&out),
        );
    }
    let text = String::from_utf8_lossy(&out.answer);
    if text.trim().is_empty() {
        let printed = serde_json::from_str::<Judgment>(out.stdout.text().trim()).is_ok();
        return failed(
            Some(Cause::JudgeBroken),
            format!(
                "external judge `{display}` wrote no judgment on descriptor {fd} ($JUDGE_ANSWER_FD){}",
                if printed {
                    "; it printed one on standard output, which is a log only (code the judge runs shares it): write it with `>&3` or to `/dev/fd/3`"
                } else {
                    ""
                },
                fd = process::ANSWER_FD
            ),
            Some(&out),
        );
    }
    // Exactly one JSON document: a second one (subject code the judge loaded writing on the
    // channel too) is a breach, never a choice between them.
    let mut docs = serde_json::Deserializer::from_str(text.trim()).into_iter::<Judgment>();
    let judgment = match (docs.next(), docs.next()) {
        (Some(Ok(j)), None) => j,
        (Some(Ok(_)), Some(_)) => {
            return failed(
                Some(Cause::JudgeBroken),
                format!(
                    "external judge `{display}` wrote more than one judgment on descriptor {}; the protocol takes exactly one",
                    process::ANSWER_FD
                ),
                Some(&out),
            );
        }
        (Some(Err(e)), _) => {
            return failed(
                Some(Cause::JudgeBroken),
                format!(
                    "external judge `{display}` did not write one valid judgment on descriptor {}: {e}",
                    process::ANSWER_FD
                ),
                Some(&out),
            );
        }
        (None, _) => {
            return failed(
                Some(Cause::JudgeBroken),
                format!(
                    "external judge `{display}` wrote no judgment on descriptor {}",
                    process::ANSWER_FD
                ),
                Some(&out),
            );
        }
    };
    // A cause is judge-ci's own observation; a program's word for it (possibly echoing the
    // subject's output) is not taken.
    if judgment.cause().is_some() {
        return failed(
            Some(Cause::JudgeBroken),
            format!(
                "external judge `{display}` set `cause`, which only judge-ci's own observations set; say why in `reasoning` instead"
            ),
            Some(&out),
        );
    }
    Ok(judgment)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_durations() {
        assert_eq!(humantime(Duration::from_secs(120)), "2m");
        assert_eq!(humantime(Duration::from_secs(90)), "90s");
        assert_eq!(humantime(Duration::from_millis(300)), "300ms");
        assert_eq!(humantime(Duration::from_secs(3900 * 2)), "2h 10m");
    }

    /// Which lines read names as words (attack findings NC5, NC10): pathname expansion, and
    /// a list of names split at blanks; `-0`/`-d` lists, argument vectors and plain lines do
    /// not.
    #[test]
    fn the_lines_that_read_names_as_words_are_known() {
        let shell = |l: &str| NameReading::of(&CommandLine::Shell(l.into()));
        let globs = |l: &str| NameReading::of(&CommandLine::ShellWithGlobs(l.into()));
        for splitting in [
            "find src -name '*.java' | xargs grep -l javax && exit 1 || exit 0",
            "grep -q x $(find . -name '*.java')",
            "for f in `ls src`; do test -s $f; done",
            "wc -l $(git ls-files)",
        ] {
            assert_eq!(
                shell(splitting),
                Some(NameReading {
                    globs: false,
                    splits: true
                }),
                "{splitting}"
            );
        }
        // Names read back as text by a loop, an array or a process substitution (NC5-3).
        for splitting in [
            "find src -name \"*.java\" | while read f; do if grep -q javax.servlet \"$f\"; then echo \"$f\"; exit 1; fi; done",
            "ls src | while IFS= read -r f; do test -s \"src/$f\"; done",
            "git ls-files '*.java' | while read -r f; do grep -q x \"$f\" && exit 1; done; exit 0",
            "mapfile -t files < <(find src -type f); grep -q x \"${files[@]}\"",
            "grep -rl javax src > list.txt; while read f; do echo \"$f\"; done < list.txt",
            "while read f; do grep -q javax \"$f\" && exit 1; done < <(find src -name '*.java')",
            // A newline-delimited list still splits a name that holds a newline.
            "find src | xargs -d '\\n' grep x",
        ] {
            assert_eq!(
                shell(splitting),
                Some(NameReading {
                    globs: false,
                    splits: true
                }),
                "{splitting}"
            );
        }
        for plain in [
            "mvn -o -q verify",
            "find src -print0 | xargs -0 grep -l javax",
            "while IFS= read -r -d '' f; do grep -q x \"$f\"; done < <(find src -print0)",
            "find src -name '*.java' -exec grep -l javax {} +",
            "git ls-files -z | xargs -0 grep -l javax",
            "while read line; do echo \"$line\"; done < VERSION",
            "test \"$(cat VERSION)\" = 1.0",
            "! grep -rn javax src",
        ] {
            assert_eq!(shell(plain), None, "{plain}");
        }
        assert_eq!(
            globs("javadoc -d out *.java"),
            Some(NameReading {
                globs: true,
                splits: false
            })
        );
        assert_eq!(
            NameReading::of(&CommandLine::Argv(vec!["xargs".into()])),
            None
        );
    }

    /// Which shell lines walk the tree passing over symbolic links (NC5-7).
    #[test]
    fn the_walks_that_pass_over_links_are_known() {
        for walks in [
            "! grep -rn 'javax\\.servlet' --include=*.java --include=pom.xml .",
            "grep -r x src",
            "find src -name '*.java' -exec grep -l javax {} +",
            "ls -R src | grep x",
            "rg javax src",
        ] {
            assert!(walks_without_links(walks), "{walks}");
        }
        for follows in [
            "! grep -Rn javax .",
            "grep -rR x src",
            "find -L src -name '*.java'",
            "rg -L javax src",
            "mvn -o -q verify",
            "grep -n javax pom.xml",
        ] {
            assert!(!walks_without_links(follows), "{follows}");
        }
    }

    /// Which names each reading could misread: options and argument files always, blanks,
    /// quotes and backslashes only where names are split, a newline in any.
    #[test]
    fn names_that_become_other_words() {
        let globs = NameReading {
            globs: true,
            splits: false,
        };
        let splits = NameReading {
            globs: false,
            splits: true,
        };
        for r in [globs, splits] {
            for n in ["-version.java", "@opts.java", "a\nb.java"] {
                assert!(r.misreads(n.as_bytes()), "{r:?} {n:?}");
            }
            assert!(!r.misreads(b"Legacy.java"), "{r:?}");
        }
        for n in ["Legacy Filter.java", "it's.java", "a\\b.java", "tab\there"] {
            assert!(splits.misreads(n.as_bytes()), "{n:?}");
            assert!(!globs.misreads(n.as_bytes()), "{n:?}");
        }
    }
}
