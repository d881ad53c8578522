//! `command` and `external`: a program the check runs, by a shell line or an argument vector.

use marked_yaml::Node;

use super::read::{CheckNode, env, get, path_key, required};
use super::{CheckInfo, CheckKind, Facts, Family, Keeps, WorkspaceReads};
use crate::config::yaml::{Kind, Reader, key};
use crate::judgment::Phase;

/// `command`: PASS if the command exits with the expected code.
#[rustfmt::skip]
pub const COMMAND: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    facts: Facts {
        phase: Phase::Build,
        builds: None,
        reads: WorkspaceReads::Outputs,
        keeps: Keeps::AnyBuildOutputs,
        reads_reference_folder: false,
        replayed_on_resume: true,
        diff: None,
        fail_reports_the_change: true,
    },
    doc: "PASS if the command exits with the expected code",
    keys: keys![
        key("run", Kind::CommandLine, "a string for sh -f -c (no pathname expansion), or a list of arguments"),
        key("glob", Kind::Bool, "let the shell expand *, ? and [..] against the tree (false: names the pull request chooses never become words of the command)"),
        key("expect-exit", Kind::Integer, "expected exit code (0)"),
        key("env", Kind::StrMap, "extra environment variables"),
        key("dir", Kind::Str, "working folder relative to the workspace")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_command),
};

/// Reads one `command` check.
fn read_command(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, whole, what) = (c.m, c.whole, c.what);
    let glob = glob_key(r, c);
    let run = required(r, m, whole, "run", what)
        .and_then(|n| command_line(r, n, &format!("{what}.run"), glob));
    let expect_exit = match get(m, "expect-exit") {
        // An exit code, so 0 to 255: the cast cannot truncate.
        Some(n) => r.integer_in(n, &format!("{what}.expect-exit"), 0..=255)? as i32,
        None => 0,
    };
    let env = env(r, m, what);
    let dir = match get(m, "dir") {
        Some(_) => Some(path_key(r, m, "dir", None, what)?),
        None => None,
    };
    Some(CheckKind::Command {
        run: run?,
        expect_exit,
        env: env?,
        dir,
    })
}

/// `external`: runs a program that writes one judgment as JSON on descriptor 3.
#[rustfmt::skip]
pub const EXTERNAL: CheckInfo = CheckInfo {
    family: Family::Deterministic,
    facts: Facts {
        phase: Phase::Build,
        builds: None,
        reads: WorkspaceReads::Outputs,
        keeps: Keeps::AnyBuildOutputs,
        reads_reference_folder: true,
        replayed_on_resume: true,
        diff: None,
        fail_reports_the_change: false,
    },
    doc: "runs a program that writes one judgment as JSON on descriptor 3 ($JUDGE_ANSWER_FD); its standard output and error are logs",
    keys: keys![
        key("run", Kind::CommandLine, "a string for sh -f -c (no pathname expansion), or a list of arguments"),
        key("glob", Kind::Bool, "let the shell expand *, ? and [..] against the tree (false)"),
        key("env", Kind::StrMap, "extra environment variables")
    ],
    default_timeout: super::CHECK_TIMEOUT,
    read: Some(read_external),
};

/// Reads one `external` check.
fn read_external(r: &mut Reader, c: &CheckNode<'_>) -> Option<CheckKind> {
    let (m, whole, what) = (c.m, c.whole, c.what);
    let glob = glob_key(r, c);
    let run = required(r, m, whole, "run", what)
        .and_then(|n| command_line(r, n, &format!("{what}.run"), glob));
    let env = env(r, m, what);
    Some(CheckKind::External {
        run: run?,
        env: env?,
    })
}

/// A program to run: a shell line or an argument vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandLine {
    /// Run with `sh -f -c`: no pathname expansion, so a name the pull request puts in the tree
    /// (`--include=x.java`) never becomes a word, an option or a pattern of the command
    /// (trust.md point 25).
    Shell(String),
    /// Run with `sh -c`, pathname expansion on, as the check's `glob: true` asks; the judge
    /// refuses to run it over a tree holding a name the expansion could make an option.
    ShellWithGlobs(String),
    /// Run directly: program and arguments.
    Argv(Vec<String>),
}

/// The shells whose `-c` script `run: [sh, -c, SCRIPT]` gives.
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh",
];

/// Interpreters whose one-line script (`-c`, `-e`) re-reads text judge-ci does not parse.
const INTERPRETERS: &[&str] = &[
    "python", "python3", "python2", "perl", "ruby", "node", "php", "awk", "gawk", "mawk",
];

fn base(w: &str) -> &str {
    w.rsplit('/').next().unwrap_or(w)
}

/// `argv` without a leading `env` (its options and assignments) or `busybox` applet prefix.
fn after_wrappers(argv: &[String]) -> &[String] {
    let mut i = 0;
    while i < argv.len() {
        let w = argv[i].as_str();
        if base(w) == "env" || base(w) == "busybox" || base(w) == "command" || base(w) == "exec" {
            i += 1;
            while i < argv.len()
                && (argv[i].starts_with('-') || argv[i].contains('=') && !argv[i].starts_with('/'))
            {
                i += 1;
            }
            continue;
        }
        break;
    }
    &argv[i..]
}

impl CommandLine {
    /// The shell script the command runs and whether its shell expands globs: a string
    /// `run:`'s line; for a list whose program is a shell given `-c` (`run: [sh, -c,
    /// SCRIPT]`, `[env, bash, -ec, SCRIPT]`), the script it is given, which such a shell
    /// expands globs in unless `-f` is among its options. So the list form is read as the
    /// string form is, at load and before it runs (attack finding S8-3: a `$(find …)` in a
    /// list-form script was neither warned about nor refused, and a name with a blank a build
    /// made turned `! grep` into a pass).
    pub fn shell_script(&self) -> Option<(&str, bool)> {
        let argv = match self {
            CommandLine::Shell(l) => return Some((l, false)),
            CommandLine::ShellWithGlobs(l) => return Some((l, true)),
            CommandLine::Argv(v) => after_wrappers(v),
        };
        let (program, args) = argv.split_first()?;
        if !SHELLS.contains(&base(program)) {
            return None;
        }
        let (mut script_next, mut noglob) = (false, false);
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            if script_next {
                return Some((a, !noglob));
            }
            if a == "--" || !(a.starts_with('-') || a.starts_with('+')) {
                break;
            }
            if let Some(long) = a.strip_prefix("--") {
                // `--rcfile FILE`, `--init-file FILE` take the next word.
                if matches!(long, "rcfile" | "init-file") {
                    i += 1;
                }
            } else {
                let flags = &a[1..];
                script_next |= flags.contains('c');
                noglob |= a.starts_with('-') && flags.contains('f');
                // `-o OPTION` takes the next word (`-o noglob` is -f).
                if flags.ends_with('o') {
                    i += 1;
                    noglob |= args.get(i).is_some_and(|o| o == "noglob");
                }
            }
            i += 1;
        }
        None
    }

    /// Whether the command is an interpreter given a one-line script (`python3 -c`, `perl
    /// -e`, `node -e`): judge-ci cannot tell how it reads names.
    pub fn interprets_a_line(&self) -> bool {
        let CommandLine::Argv(v) = self else {
            return false;
        };
        let argv = after_wrappers(v);
        argv.split_first().is_some_and(|(p, args)| {
            INTERPRETERS.contains(&base(p))
                && args
                    .iter()
                    .any(|a| matches!(a.as_str(), "-c" | "-e" | "-E" | "--eval"))
        })
    }

    /// The line as the config wrote it, or the arguments joined by spaces.
    pub fn display(&self) -> String {
        match self {
            CommandLine::Shell(l) | CommandLine::ShellWithGlobs(l) => l.clone(),
            CommandLine::Argv(v) => v.join(" "),
        }
    }
}

/// The check's `glob` key (false when absent).
fn glob_key(r: &mut Reader, c: &CheckNode<'_>) -> bool {
    r.key_or(c.m, c.what, "glob", false, Reader::boolean)
        .unwrap_or(false)
}

fn command_line(r: &mut Reader, n: &Node, what: &str, glob: bool) -> Option<CommandLine> {
    match n {
        Node::Sequence(_) => {
            let argv = r.string_list(n, what)?;
            if argv.is_empty() {
                r.error(n, format!("{what} must name a program"));
                return None;
            }
            if glob {
                r.error_help(
                    n,
                    format!("{what} is a list of arguments, which no shell expands"),
                    "remove glob: true, or write run: as one shell line",
                );
                return None;
            }
            let run = CommandLine::Argv(argv);
            let warn = |r: &mut Reader, text: String| {
                let d = crate::config::diag::Diagnostic::warning(r.loc(n), format!("{what}: {text}"))
                    .help("names in the tree are the pull request's: pass them as data (find -print0 | xargs -0, --, quoted patterns)");
                r.diags.push(d);
            };
            if let Some((script, globs)) = run.shell_script() {
                for warning in tree_dependent(script, globs) {
                    warn(r, format!("its shell's -c script: {warning}"));
                }
            } else if run.interprets_a_line() {
                warn(
                    r,
                    "an interpreter's one-line script reads the tree as judge-ci cannot follow: a name the pull request chooses (with a blank, a newline, a leading -) may be split or read as an option there".to_string(),
                );
            }
            Some(run)
        }
        _ => {
            let line = r.non_blank(n, what)?;
            for warning in tree_dependent(&line, glob) {
                let d = crate::config::diag::Diagnostic::warning(
                    r.loc(n),
                    format!("{what}: {warning}"),
                )
                .help("names in the tree are the pull request's: pass them as data (find -print0 | xargs -0, --, quoted patterns)");
                r.diags.push(d);
            }
            Some(if glob {
                CommandLine::ShellWithGlobs(line)
            } else {
                CommandLine::Shell(line)
            })
        }
    }
}

/// Constructs of a shell line whose meaning depends on the names in the tree it runs in, each
/// with why: the tree is the pull request's, so a file it names `-rf` or `--include=x.java` (or
/// with a space or a newline in it) would change what the line does.
pub fn tree_dependent(line: &str, glob: bool) -> Vec<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut out = Vec::new();
    let has = |w: &str| {
        words
            .iter()
            .any(|x| x.trim_start_matches(['(', '|', ';', '&']) == w)
    };
    if has("xargs")
        && !words
            .iter()
            .any(|w| *w == "-0" || *w == "--null" || w.starts_with("-0"))
    {
        out.push(
            "xargs without -0 splits names at spaces and newlines and passes a name that starts with - as an option"
                .to_string(),
        );
    }
    for sub in ["$(ls", "`ls", "$(find", "`find"] {
        if line.contains(sub) {
            out.push(format!(
                "{sub} …) makes names in the tree words of the command (split at spaces, an option when one starts with -)"
            ));
        }
    }
    if lists_names(line) && reparses(line) {
        out.push(
            "names listed by find, ls, git ls-files or grep -l reach a program that parses text again (sh, eval, awk's system(), perl, python, xargs or find -exec running a shell): a name with a blank, a quote, a ; or a leading - becomes other words, an option or code"
                .to_string(),
        );
    }
    if out.is_empty() && splits_names(line) {
        out.push(
            "names listed by find, ls, git ls-files or grep -l are read back as text (read, mapfile, a process substitution) without NUL delimiters: a name with a backslash, a blank or a newline reads as another name"
                .to_string(),
        );
    }
    if has("eval") {
        out.push(
            "eval runs text as a command; anything it reads from the tree becomes code".into(),
        );
    }
    if glob && unquoted_glob(line) {
        out.push(
            "with glob: true an unquoted *, ? or [..] expands to names the pull request chooses (a file named --include=x.java becomes an option)"
                .into(),
        );
    }
    out
}

/// Whether a shell line splits a list of names into words: `xargs` without `-0`, `--null`
/// or `-d` in its pipeline stage; a command substitution or `for … in` over the output of a
/// program that lists names (`find`, `ls`, `git ls-files`, `grep -l`); or, as a class (attack
/// finding NC5-3: `find … | while read f` drops a backslash, trims blanks and splits at a
/// newline), any line in which such a program's output is read back as text — by `read`,
/// `mapfile`/`readarray`, `xargs`, a process substitution `<(…)` or a substitution — unless
/// the line delimits names with NUL (`-print0`, `-z`, `-0`, `--null`, `read -d ''`).
pub fn splits_names(line: &str) -> bool {
    let stages = line.split(['|', ';', '&', '\n']);
    let xargs = stages.clone().any(|stage| {
        let words: Vec<&str> = stage.split_whitespace().collect();
        words.iter().position(|w| *w == "xargs").is_some_and(|at| {
            !words[at + 1..].iter().any(|w| {
                *w == "-0" || *w == "--null" || w.starts_with("-d") || w.starts_with("--delimiter")
            })
        })
    });
    let listing = [
        "find",
        "ls",
        "git ls-files",
        "grep -l",
        "grep -rl",
        "grep -Rl",
    ];
    let substituted = line
        .match_indices("$(")
        .map(|(i, _)| &line[i + 2..])
        .chain(line.split('`').skip(1).step_by(2))
        .any(|inner| {
            let inner = inner.trim_start();
            listing.iter().any(|p| {
                inner.starts_with(p)
                    && inner[p.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| c.is_whitespace() || c == ')')
            })
        });
    xargs
        || substituted
        || (lists_names(line) && !nul_delimited(line) && reads_back(line))
        || (lists_names(line) && reparses(line))
}

/// Programs that read text as code or split it into words of their own: shells (`… | sh`,
/// `sh -c '…$0'`), `eval`, and the interpreters that run commands they build (`awk`'s
/// `system()`, `perl`, `python`, `ruby`, `node`) or split lines (`parallel`).
const REPARSERS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "busybox", "eval", "awk", "gawk", "mawk", "nawk",
    "perl", "python", "python3", "ruby", "node", "parallel",
];

/// Whether a stage of the line hands text to a program that parses it again (a
/// [`REPARSERS`] program run as a stage, or by `find -exec` or `xargs`): names listed
/// earlier in the line then become words, options or code of a command judge-ci cannot see,
/// NUL delimiters or not (attack finding N2: `find … | sed 's/^/grep -q javax /' | sh`, an
/// awk `system()`, `xargs -0 sh -c 'grep … $0'`).
fn reparses(line: &str) -> bool {
    let is = |w: &str| REPARSERS.contains(&w.rsplit('/').next().unwrap_or(w));
    commands_of(line, &['|', ';', '&', '\n', '(', '`', '{', '}']).any(|words| {
        match words.first().copied() {
            Some(w) if is(w) => true,
            Some("find" | "xargs") => words.iter().skip(1).any(|w| is(w)),
            _ => false,
        }
    })
}

/// Whether a stage of the line runs a program whose output is a list of names: `find`, `ls`,
/// `fd`, `locate`, `tree`, `git ls-files`/`ls-tree`/`diff --name-only`, `grep`/`rg` listing
/// matching files (`-l`, `-L`, `--files-with-matches`, `rg --files`).
fn lists_names(line: &str) -> bool {
    commands_of(line, &['|', ';', '&', '\n', '(', '`', '{', '}']).any(|words| {
        let flag = |pred: &dyn Fn(&str) -> bool| words.iter().skip(1).any(|w| pred(w));
        match words.first().copied() {
            Some("find" | "ls" | "fd" | "fdfind" | "locate" | "tree") => true,
            Some("git") => {
                flag(&|w| matches!(w, "ls-files" | "ls-tree" | "--name-only" | "--name-status"))
            }
            Some("grep" | "egrep" | "fgrep" | "rg") => flag(&|w| {
                w == "--files-with-matches"
                    || w == "--files-without-match"
                    || w == "--files"
                    || (w.starts_with('-') && !w.starts_with("--") && w.contains(['l', 'L']))
            }),
            _ => false,
        }
    })
}

/// The words of each simple command of a shell line, split at `separators`, with the
/// keywords and prefixes that do not name the program (`!`, `then`, `do`, `else`, `command`,
/// `exec`) dropped: a rough reading, enough to see which programs a line runs.
fn commands_of<'a>(
    line: &'a str,
    separators: &'a [char],
) -> impl Iterator<Item = Vec<&'a str>> + 'a {
    line.split(separators).map(|stage| {
        stage
            .split_whitespace()
            .skip_while(|w| matches!(*w, "!" | "then" | "do" | "else" | "command" | "exec"))
            .collect()
    })
}

/// Whether a shell line walks the tree with a program that passes over symbolic links it
/// meets (`grep -r`, `find` without `-L`/`-follow`, `ls -R`, `rg`, `git grep` sees only what
/// git records): a link the pull request put where a file was hides that file's text from
/// the walk while javac and Maven read through it (attack finding NC5-7: the example's
/// `! grep -rn javax …` passed over linked sources). `grep -R` follows links.
pub fn walks_without_links(line: &str) -> bool {
    commands_of(line, &['|', ';', '&', '\n', '(', '`']).any(|words| {
        let flag = |pred: &dyn Fn(&str) -> bool| words.iter().skip(1).any(|w| pred(w));
        let short = |w: &str, c: char| w.starts_with('-') && !w.starts_with("--") && w.contains(c);
        match words.first().copied() {
            Some("grep" | "egrep" | "fgrep") => {
                flag(&|w| w == "--recursive" || short(w, 'r'))
                    && !flag(&|w| w == "--dereference-recursive" || short(w, 'R'))
            }
            Some("find") => !flag(&|w| matches!(w, "-L" | "-follow")),
            Some("ls") => flag(&|w| w.starts_with('-') && w.contains('R')),
            Some("rg") => !flag(&|w| matches!(w, "-L" | "--follow")),
            _ => false,
        }
    })
}

/// Whether the line delimits its names with NUL bytes, which no name can hold.
fn nul_delimited(line: &str) -> bool {
    line.split_whitespace().any(|w| {
        matches!(
            w,
            "-print0" | "-0" | "-z" | "-Z" | "--null" | "--zero" | "--null-data" | "-print0;"
        )
    }) || line.contains("-d ''")
        || line.contains("-d \"\"")
        || line.contains("$'\\0'")
}

/// Whether the line reads text back as words or lines: `read`, `mapfile`, `readarray`,
/// `xargs`, or a substitution.
fn reads_back(line: &str) -> bool {
    line.contains("$(")
        || line.contains('`')
        || line.contains("<(")
        || line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .any(|w| matches!(w, "read" | "mapfile" | "readarray" | "xargs"))
}

/// Whether `line` holds a glob character outside quotes (a rough reading of sh's quoting:
/// single and double quotes and backslash escapes).
fn unquoted_glob(line: &str) -> bool {
    let (mut single, mut double, mut escaped) = (false, false, false);
    for ch in line.chars() {
        match ch {
            _ if escaped => escaped = false,
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '*' | '?' | '[' if !single && !double => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_reach_a_program_parsing_text_again_split() {
        // Attack finding N2.
        for line in [
            "! find src -name '*.java' | sed 's/^/grep -q javax.servlet /' | sh",
            "find src -name '*.java' | awk '{ if (system(\"grep -q javax \" $0) == 0) exit 1 }'",
            "find src -name '*.java' -exec sh -c 'grep -q javax $0 && exit 1' {} \\;",
            "find src -name '*.java' -print0 | xargs -0 sh -c 'for f; do grep -q javax $f; done'",
            "git ls-files | /bin/bash",
        ] {
            assert!(splits_names(line), "{line}");
        }
        for line in [
            "! grep -Rn javax.servlet src",
            "find src -name '*.java' -print0 | xargs -0 grep -L jakarta",
            "sh -c 'mvn -q -o test'",
        ] {
            assert!(!splits_names(line), "{line}");
        }
    }

    #[test]
    fn a_shell_s_c_script_in_list_form_is_the_script_it_runs() {
        let argv = |v: &[&str]| CommandLine::Argv(v.iter().map(|s| s.to_string()).collect());
        let script = "! grep -n javax $(find . -name '*.java')";
        assert_eq!(
            argv(&["sh", "-c", script]).shell_script(),
            Some((script, true))
        );
        assert_eq!(
            argv(&["/usr/bin/env", "LC_ALL=C", "bash", "-ec", script]).shell_script(),
            Some((script, true))
        );
        assert_eq!(
            argv(&["bash", "-f", "-c", script]).shell_script(),
            Some((script, false))
        );
        assert_eq!(
            argv(&["sh", "-o", "noglob", "-c", script]).shell_script(),
            Some((script, false))
        );
        assert_eq!(
            argv(&["busybox", "sh", "-c", script]).shell_script(),
            Some((script, true))
        );
        assert_eq!(argv(&["sh", "check.sh"]).shell_script(), None);
        assert_eq!(argv(&["grep", "-c", "x"]).shell_script(), None);
        assert!(argv(&["python3", "-c", "import os"]).interprets_a_line());
        assert!(!argv(&["python3", "check.py"]).interprets_a_line());
    }

    #[test]
    fn constructs_whose_meaning_depends_on_the_tree_are_named() {
        let warns = |l: &str, g: bool| tree_dependent(l, g);
        assert_eq!(warns("find . -name x | xargs rm", false).len(), 1);
        assert!(warns("find . -name x -print0 | xargs -0 rm --", false).is_empty());
        assert_eq!(warns("grep javax $(ls src)", false).len(), 1);
        assert_eq!(warns("eval \"$CMD\"", false).len(), 1);
        // Globs are a hazard only when the shell expands them.
        assert!(warns("grep -r --include=*.java javax .", false).is_empty());
        assert_eq!(warns("grep -r --include=*.java javax .", true).len(), 1);
        assert!(warns("grep -r '--include=*.java' \"x?\" a\\*b", true).is_empty());
    }
}
