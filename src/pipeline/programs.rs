//! The repository files a check's command runs as its program or reads as its own settings
//! (trust.md points 1 and 2; attack findings GA1, NC19): `run: ["python3", "judge/ext.py"]`,
//! `sh ./check.sh`, `scripts/verify.sh`, `mvn -s ci/settings.xml`. Such a file is the judge's,
//! not the subject's: in a pull-request context it is protected (a change to it is a
//! protected-path finding) and pinned to the trusted tree's copy before any judge runs,
//! whatever `protected:` lists, as the build wrappers are.
//!
//! What counts as naming a program, read from the command's words (quotes removed, nothing
//! expanded): a word at a command's place that holds a `/` (`./check.sh`, `scripts/x.sh`); the
//! script an interpreter is given (`sh`, `bash`, `.`, `source`, `python3`, `node`, `perl`,
//! `ruby`, `php`, `java -jar`, `java X.java`, `awk -f`, `sed -f`, `jq -f`, `make -f`); the
//! settings a build tool is given (`mvn -s/-gs/-t/-gt`, `gradle -I/-c`); the value of a
//! settings option of any program (`--config`, `--settings`, `--rules`, `--init-script`, …);
//! and any word naming a file the trusted tree records as executable. A named shell script is
//! read in turn for the programs it runs. Not followed: a word holding an expansion (`$X`,
//! a backquote), a program another language's script starts (a Python judge's subprocess).
//! Files a tool reads by convention from the folder it runs in are protected whether or not
//! the trusted tree has them (`conventional_files`: make's makefiles, npm's and yarn's
//! settings, git's ignore files; for `python -m X` where the tree has no X of its own, the
//! module or package X it would import first; attack finding B11-1); list others under
//! `protected:`. What a named or protected program is read with beside it (a Python
//! script's folder, which it imports from first; the `node_modules` beside a Node script;
//! the `GNUmakefile` make prefers to a protected `Makefile`) is protected with it
//! (`protect::implicit_inputs`, attack findings N7-3, N7-4).

use std::collections::{BTreeSet, HashMap};

use git2::Oid;

use crate::config::Benchmark;
use crate::config::checks::{CheckKind, CommandLine};
use crate::config::source::GitTree;

/// A repository file a check's command names as its program or its settings.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Program {
    /// Its repository-relative path, `/`-separated.
    pub path: String,
    /// The check whose command names it.
    pub check: String,
}

/// Most named files read for the programs they run in turn, and how deep.
const MAX_FOLLOWED: usize = 64;
const MAX_DEPTH: usize = 4;
/// The largest script read for the programs it runs.
const MAX_SCRIPT_BYTES: usize = 256 << 10;

/// The trusted tree's blobs: path → (id, mode).
pub(super) type Blobs = HashMap<String, (Oid, i32)>;

/// Every blob of `tree`.
pub(super) fn blobs_of(tree: &GitTree) -> std::io::Result<Blobs> {
    Ok(tree
        .blobs(&|_| true)?
        .into_iter()
        .map(|(p, id, mode)| (p, (id, mode)))
        .collect())
}

/// Where the repository-relative `path` leads in `blobs`, following symbolic links the tree
/// records on the way (a linked folder, a linked file, a chain of them) as a checkout would:
/// the links passed through and the end, or `None` when it leaves the repository or loops.
pub(super) fn follow(tree: &GitTree, blobs: &Blobs, path: &str) -> Option<(Vec<String>, String)> {
    let mut through = Vec::new();
    let mut pending: Vec<String> = path.split('/').rev().map(str::to_string).collect();
    let mut done: Vec<String> = Vec::new();
    let mut hops = 0;
    while let Some(c) = pending.pop() {
        match c.as_str() {
            "" | "." => continue,
            ".." => {
                done.pop()?;
                continue;
            }
            _ => done.push(c),
        }
        let here = done.join("/");
        if let Some((id, 0o120000)) = blobs.get(&here) {
            hops += 1;
            if hops > 40 {
                return None;
            }
            let target = tree.blob(*id).ok()?;
            let target = String::from_utf8(target).ok()?;
            if target.starts_with('/') {
                return None;
            }
            through.push(here);
            done.pop();
            pending.extend(target.split('/').rev().map(str::to_string));
        }
    }
    Some((through, done.join("/")))
}

/// `word` relative to the folder `cwd` (repository-relative), without leaving the repository.
fn resolve(cwd: &str, word: &str) -> Option<String> {
    if word.is_empty() || word.starts_with(['/', '~', '-']) || word.contains('\0') {
        return None;
    }
    let mut parts: Vec<&str> = cwd.split('/').filter(|c| !c.is_empty()).collect();
    for c in word.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// A word of a command: its text with quotes removed, `None` when it holds an expansion whose
/// value is not known here.
type Word = Option<String>;

/// The simple commands of a shell line, each its words (a redirection's file left out; the
/// inside of `$( … )` and of `( … )` are commands of their own). A deliberately small reading
/// of POSIX shell: enough to find the words that name programs.
fn simple_commands(line: &str) -> Vec<Vec<Word>> {
    struct Lexer {
        out: Vec<Vec<Word>>,
        cmd: Vec<Word>,
        word: String,
        in_word: bool,
        known: bool,
        redirect: bool,
        /// The redirection is `<`: its file is the command's standard input.
        redirect_in: bool,
    }
    impl Lexer {
        fn word(&mut self) {
            if self.in_word && !self.redirect {
                self.cmd
                    .push(self.known.then(|| std::mem::take(&mut self.word)));
            } else if self.in_word && self.redirect_in && self.known {
                // `sh < ci/check.sh`: the file a shell reads its program from.
                self.cmd.push(Some(format!("{STDIN}{}", self.word)));
            }
            if self.in_word {
                self.redirect = false;
                self.redirect_in = false;
            }
            self.word.clear();
            self.in_word = false;
            self.known = true;
        }
        fn command(&mut self) {
            self.word();
            self.redirect = false;
            if !self.cmd.is_empty() {
                self.out.push(std::mem::take(&mut self.cmd));
            }
        }
    }
    let mut l = Lexer {
        out: Vec::new(),
        cmd: Vec::new(),
        word: String::new(),
        in_word: false,
        known: true,
        redirect: false,
        redirect_in: false,
    };
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\r' => l.word(),
            '\n' | ';' | '&' | '|' | '(' | ')' => l.command(),
            '<' | '>' => {
                if l.in_word && l.word.chars().all(|c| c.is_ascii_digit()) {
                    l.word.clear();
                    l.in_word = false;
                } else {
                    l.word();
                }
                let mut op = c.to_string();
                while let Some(n) = chars.next_if(|c| matches!(c, '<' | '>' | '&' | '|')) {
                    op.push(n);
                }
                l.redirect = true;
                l.redirect_in = op == "<";
            }
            '#' if !l.in_word => while chars.next_if(|c| *c != '\n').is_some() {},
            '\'' => {
                l.in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    l.word.push(c);
                }
            }
            '"' => {
                l.in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some(n @ ('$' | '`' | '"' | '\\')) => l.word.push(n),
                            Some('\n') | None => {}
                            Some(n) => {
                                l.word.push('\\');
                                l.word.push(n);
                            }
                        },
                        '$' | '`' => {
                            l.known = false;
                            l.word.push(c);
                        }
                        c => l.word.push(c),
                    }
                }
            }
            '\\' => {
                l.in_word = true;
                match chars.next() {
                    Some('\n') | None => {}
                    Some(n) => l.word.push(n),
                }
            }
            '$' | '`' => {
                l.in_word = true;
                l.known = false;
                l.word.push(c);
            }
            c => {
                l.in_word = true;
                l.word.push(c);
            }
        }
    }
    l.command();
    l.out
}

/// The mark of a word that is the file a command's standard input is redirected from.
const STDIN: &str = "\0stdin:";

/// Reserved words that may begin a command in front of the program.
const KEYWORDS: &[&str] = &[
    "!", "if", "then", "else", "elif", "do", "while", "until", "{", "}", "time", "fi", "done",
    "esac",
];

/// Programs that run the program after their own options.
const WRAPPERS: &[&str] = &[
    "exec", "command", "builtin", "nohup", "env", "nice", "timeout", "stdbuf", "sudo", "setsid",
    "ionice", "time", "xargs",
];

/// Long options whose value is a settings or rules file, whatever the program.
const SETTINGS_OPTIONS: &[&str] = &[
    "--config",
    "--config-file",
    "--configuration",
    "--settings",
    "--settings-file",
    "--global-settings",
    "--toolchains",
    "--global-toolchains",
    "--rules",
    "--ruleset",
    "--rulesets",
    "--rcfile",
    "--init-file",
    "--init-script",
    "--require",
    "--import",
    "--loader",
    "--from-file",
    "--makefile",
];

/// The last path component of a program word.
fn base_name(w: &str) -> &str {
    w.rsplit('/').next().unwrap_or(w)
}

/// What one simple command names: files (as words) and command strings it runs (`sh -c`).
#[derive(Default)]
struct Named {
    files: Vec<String>,
    /// Files the program reads by convention from the folder it runs in, whether or not the
    /// trusted tree has them (a `GNUmakefile` the pull request adds is read before the
    /// `Makefile`): protected and pinned, so one the pull request adds is removed and said.
    conventional: Vec<String>,
    lines: Vec<String>,
    /// Files named as scripts of a shell (read in turn whatever their first line says).
    shell_scripts: Vec<String>,
    /// `cd DIR`: the folder the next commands of the line run in (`Some(None)`: one named
    /// by an expansion).
    cd: Option<Option<String>>,
    /// A shell or interpreter given no script: it runs what its standard input holds (`cat
    /// ci/check.sh | sh`).
    reads_stdin: bool,
    /// The makefiles `make` reads (its conventional ones and `-f`'s): their recipes are
    /// commands it runs.
    makefiles: Vec<String>,
    /// Where a program or a script is named by an expansion (`sh $f`, `eval …`): what it is.
    unresolved: Vec<String>,
}

/// The program words of one simple command.
fn named_by(words: &[Word]) -> Named {
    let mut n = Named::default();
    let stdin: Vec<String> = words
        .iter()
        .flatten()
        .filter_map(|w| w.strip_prefix(STDIN))
        .map(str::to_string)
        .collect();
    let kept: Vec<Word> = words
        .iter()
        .filter(|w| !w.as_deref().is_some_and(|w| w.starts_with(STDIN)))
        .cloned()
        .collect();
    let words = &kept[..];
    let mut i = 0;
    let text = |i: usize| words.get(i).and_then(|w| w.as_deref());
    // Keywords, assignments, wrappers and their options, judge-ci's own `fence-exec --`.
    loop {
        let Some(w) = words.get(i) else { return n };
        let Some(w) = w.as_deref() else {
            if text(i + 1) == Some("fence-exec") {
                i += 2;
                if text(i) == Some("--") {
                    i += 1;
                }
                continue;
            }
            n.unresolved.push("a program named by an expansion".into());
            break;
        };
        if matches!(w, "for" | "case" | "select") {
            return n;
        }
        let assignment = w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if KEYWORDS.contains(&w) || assignment {
            i += 1;
            continue;
        }
        if base_name(w) == "judge-ci" && text(i + 1) == Some("fence-exec") {
            i += 2;
            if text(i) == Some("--") {
                i += 1;
            }
            continue;
        }
        if WRAPPERS.contains(&w) {
            let wrapper = w;
            i += 1;
            while let Some(o) = text(i) {
                if o == "--" {
                    i += 1;
                    break;
                }
                if !o.starts_with('-') && !o.contains('=') {
                    break;
                }
                let takes = matches!(
                    (wrapper, o),
                    ("nice", "-n")
                        | ("timeout", "-s" | "-k")
                        | ("env", "-u" | "-C")
                        | ("ionice", "-c" | "-n")
                        | ("sudo", "-u" | "-g")
                        | ("xargs", "-I" | "-n" | "-P" | "-d" | "-L" | "-s" | "-E")
                );
                i += if takes { 2 } else { 1 };
            }
            if wrapper == "timeout" && text(i).is_some() {
                i += 1;
            }
            continue;
        }
        break;
    }
    let Some(program) = text(i) else { return n };
    if program.contains('/') {
        n.files.push(program.to_string());
    }
    let args = &words[i + 1..];
    let arg = |k: usize| args.get(k).and_then(|w| w.as_deref());
    // A word there that holds an expansion: what it names is not known before it runs.
    let expanded = |k: usize| args.get(k).is_some_and(Option::is_none);
    let name = base_name(program);
    match name {
        "cd" | "pushd" => {
            n.cd = Some(match (arg(0), expanded(0)) {
                (Some(d), _) if !d.starts_with('-') => Some(d.to_string()),
                (_, true) => None,
                _ => Some(String::new()),
            });
            return n;
        }
        "eval" => {
            n.unresolved
                .push("`eval`, whose command is built when it runs".into());
            return n;
        }
        "make" | "gmake" => {
            n.makefiles
                .extend(conventional_files(name).iter().map(|f| f.to_string()));
            for (k, a) in args.iter().enumerate() {
                if matches!(a.as_deref(), Some("-f" | "--file" | "--makefile"))
                    && let Some(f) = arg(k + 1)
                {
                    n.makefiles.push(f.to_string());
                }
            }
        }
        _ => {}
    }
    n.conventional
        .extend(conventional_files(name).iter().map(|f| f.to_string()));
    if name.starts_with("python")
        && let Some(k) = args.iter().position(|w| w.as_deref() == Some("-m"))
        && let Some(module) = arg(k + 1)
    {
        // `python -m X` imports X from the folder it runs in first: X is the tool's only
        // where the trusted tree has no X of its own (attack finding B11-1).
        let top = module.split('.').next().unwrap_or(module);
        n.conventional.push(format!("\0tool-module:{top}"));
    }
    let interpreter = |name: &str| {
        name.starts_with("python")
            || name.starts_with("pypy")
            || matches!(
                name,
                "node"
                    | "nodejs"
                    | "bun"
                    | "perl"
                    | "ruby"
                    | "php"
                    | "lua"
                    | "luajit"
                    | "tclsh"
                    | "Rscript"
                    | "groovy"
                    | "jshell"
                    | "deno"
            )
    };
    let shell = matches!(
        name,
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "ash" | "mksh" | "busybox"
    );
    let mut k = 0;
    let runs_scripts = shell || interpreter(name) || matches!(name, "." | "source");
    for f in stdin.iter().filter(|_| runs_scripts) {
        n.files.push(f.clone());
        if shell {
            n.shell_scripts.push(f.clone());
        }
    }
    if matches!(name, "." | "source") {
        if let Some(a) = arg(0) {
            n.files.push(a.to_string());
            n.shell_scripts.push(a.to_string());
        } else if expanded(0) {
            n.unresolved
                .push(format!("the script `{name}` reads, named by an expansion"));
        }
    } else if shell {
        n.reads_stdin = stdin.is_empty();
        loop {
            let Some(a) = arg(k) else {
                if expanded(k) {
                    n.reads_stdin = false;
                    n.unresolved
                        .push(format!("the script `{name}` runs, named by an expansion"));
                }
                break;
            };
            if name == "busybox" && k == 0 && a == "sh" {
                k += 1;
                continue;
            }
            if a == "-c" {
                n.reads_stdin = false;
                match arg(k + 1) {
                    Some(line) => n.lines.push(line.to_string()),
                    None if expanded(k + 1) => n.unresolved.push(format!(
                        "the command string `{name} -c` runs, named by an expansion"
                    )),
                    None => {}
                }
                break;
            }
            if a == "-o" || a == "+o" {
                k += 2;
                continue;
            }
            if a == "--" {
                if let Some(s) = arg(k + 1) {
                    n.reads_stdin = false;
                    n.files.push(s.to_string());
                    n.shell_scripts.push(s.to_string());
                }
                break;
            }
            if a.starts_with(['-', '+']) {
                // `-ec '…'`: the command string after a bundle holding c.
                if a.starts_with('-') && a.contains('c') && !a.starts_with("--") {
                    n.reads_stdin = false;
                    if let Some(line) = arg(k + 1) {
                        n.lines.push(line.to_string());
                    }
                    break;
                }
                k += 1;
                continue;
            }
            n.reads_stdin = false;
            n.files.push(a.to_string());
            n.shell_scripts.push(a.to_string());
            break;
        }
    } else if interpreter(name) {
        n.reads_stdin = stdin.is_empty();
        loop {
            let Some(a) = arg(k) else {
                if expanded(k) {
                    n.reads_stdin = false;
                    n.unresolved
                        .push(format!("the script `{name}` runs, named by an expansion"));
                }
                break;
            };
            if matches!(
                a,
                "-c" | "-m" | "-e" | "-E" | "--eval" | "-p" | "--print" | "-r"
            ) && name != "node"
                || (name == "node" && matches!(a, "-e" | "--eval" | "-p" | "--print"))
            {
                n.reads_stdin = false;
                break;
            }
            if matches!(
                a,
                "-W" | "-X" | "-I" | "-M" | "-r" | "--require" | "--import"
            ) {
                if matches!(a, "-r" | "--require" | "--import")
                    && let Some(v) = arg(k + 1)
                {
                    n.files.push(v.to_string());
                }
                k += 2;
                continue;
            }
            if a.starts_with('-') {
                k += 1;
                continue;
            }
            n.reads_stdin = false;
            n.files.push(a.to_string());
            break;
        }
    } else if name == "java" {
        while let Some(a) = arg(k) {
            match a {
                "-jar" => {
                    if let Some(v) = arg(k + 1) {
                        n.files.push(v.to_string());
                    }
                    break;
                }
                "-cp" | "-classpath" | "--class-path" | "-p" | "--module-path" => {
                    if let Some(v) = arg(k + 1) {
                        n.files.extend(v.split(':').map(str::to_string));
                    }
                    k += 2;
                }
                _ if a.starts_with("-javaagent:") => {
                    let v = &a["-javaagent:".len()..];
                    n.files
                        .push(v.split_once('=').map_or(v, |(f, _)| f).to_string());
                    k += 1;
                }
                _ if a.starts_with('-') => k += 1,
                _ => {
                    if a.ends_with(".java") {
                        n.files.push(a.to_string());
                    }
                    break;
                }
            }
        }
    }
    // Options naming a program or settings file, by tool, then for any program.
    let short: &[&str] = match name {
        "awk" | "gawk" | "mawk" | "nawk" | "sed" | "gsed" | "jq" | "make" | "gmake" => &["-f"],
        "mvn" | "mvnw" | "mvnd" | "mvnw.cmd" => &["-s", "-gs", "-t", "-gt"],
        "gradle" | "gradlew" | "gradlew.bat" => &["-I", "-c"],
        _ => &[],
    };
    for (j, a) in args.iter().enumerate() {
        let Some(a) = a.as_deref() else { continue };
        let next = || args.get(j + 1).and_then(|w| w.as_deref());
        if short.contains(&a) || SETTINGS_OPTIONS.contains(&a) {
            if let Some(v) = next() {
                n.files.push(v.to_string());
            }
        } else if let Some((o, v)) = a.split_once('=')
            && SETTINGS_OPTIONS.contains(&o)
        {
            n.files.push(v.to_string());
        }
    }
    // Any other word naming a file the trusted tree records as executable is checked by
    // the caller (it knows the modes).
    for a in args.iter().flatten() {
        n.files.push(format!("\0maybe:{a}"));
    }
    n
}

/// What `program` (a base name) reads by convention from the folder it runs in, so that a
/// file the pull request adds there changes what a trusted command does (attack finding
/// B11-1): make's makefiles (it prefers `GNUmakefile`, then `makefile`), npm's and yarn's
/// project settings (`.npmrc` can set `script-shell`), git's ignore and attribute files.
fn conventional_files(program: &str) -> &'static [&'static str] {
    match program {
        "make" | "gmake" => &["GNUmakefile", "makefile", "Makefile"],
        "npm" | "npx" | "pnpm" | "yarn" => &[
            "package.json",
            ".npmrc",
            ".yarnrc",
            ".yarnrc.yml",
            ".pnpmfile.cjs",
        ],
        "git" => &[".gitignore", ".gitattributes"],
        _ => &[],
    }
}

/// A shell line's text with each variable it assigns a plain value (`f=ci/check.sh`)
/// written in where it is used (`$f`, `${f}`), so that `f=ci/check.sh; sh $f` names the
/// script; and whether what is still expanded can come only from the environment (no
/// command substitution, no variable assigned an expansion), which the fence sets and the
/// pull request does not.
fn with_assignments(line: &str) -> (String, bool) {
    static ASSIGNED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"(?:^|[\s;&|(])([A-Za-z_][A-Za-z0-9_]*)=([^\s;&|()]*)"#)
            .expect("a valid regex")
    });
    let mut text = line.to_string();
    let mut environment_only = !line.contains("$(") && !line.contains('`');
    for c in ASSIGNED.captures_iter(line) {
        let (name, value) = (&c[1], c[2].trim_matches(['"', '\'']));
        if value.contains(['$', '`', '*', '?', '[']) {
            environment_only = false;
            continue;
        }
        text = text
            .replace(&format!("${{{name}}}"), value)
            .replace(&format!("${name}"), value);
    }
    (text, environment_only)
}

/// What `collect` reads commands from: a shell line (or script), or a command's own words.
enum Commands<'a> {
    Line(&'a str),
    Words(Vec<Vec<Word>>),
}

/// The files `commands` name as programs, relative to `cwd` (and to each folder a `cd` of
/// the line goes to), that `blobs` holds; the shell scripts and makefiles among them are read
/// in turn (bounded). Where a program or script is named by an expansion that can hold what
/// the tree says (a command substitution, a variable assigned one), `unresolved` says so.
fn collect(
    tree: &GitTree,
    blobs: &Blobs,
    cwd: &str,
    commands: Commands<'_>,
    depth: usize,
    found: &mut BTreeSet<String>,
    unresolved: &mut Vec<String>,
) {
    let (commands, environment_only) = match commands {
        Commands::Line(line) => {
            let (text, env) = with_assignments(line);
            (simple_commands(&text), env)
        }
        Commands::Words(w) => (w, true),
    };
    let named: Vec<Named> = commands.iter().map(|w| named_by(w)).collect();
    // A shell or interpreter that runs its standard input (`cat ci/check.sh | sh`) may run
    // any file the line names: each is a program.
    let stdin_runs = named.iter().any(|n| n.reads_stdin);
    let mut cwds = vec![cwd.to_string()];
    let read_text = |id: Oid| -> Option<String> {
        let bytes = tree.blob(id).ok()?;
        (bytes.len() <= MAX_SCRIPT_BYTES)
            .then(|| String::from_utf8(bytes).ok())
            .flatten()
    };
    for (words, named) in commands.iter().zip(&named) {
        if !environment_only {
            unresolved.extend(named.unresolved.iter().cloned());
        }
        match &named.cd {
            Some(Some(d)) => {
                // Every folder the line may be in from here on (a `cd` in a subshell or a
                // branch need not hold): files are looked for in each.
                let here: Vec<String> = cwds
                    .iter()
                    .filter_map(|c| {
                        if d.is_empty() {
                            None
                        } else {
                            resolve(c, d).or_else(|| Some(String::new()))
                        }
                    })
                    .collect();
                for h in here {
                    if !cwds.contains(&h) {
                        cwds.push(h);
                    }
                }
                continue;
            }
            Some(None) => {
                if !environment_only {
                    unresolved.push("a folder `cd` goes to, named by an expansion".into());
                }
                continue;
            }
            None => {}
        }
        for line in &named.lines {
            if depth < MAX_DEPTH {
                for c in cwds.clone() {
                    collect(
                        tree,
                        blobs,
                        &c,
                        Commands::Line(line),
                        depth + 1,
                        found,
                        unresolved,
                    );
                }
            }
        }
        for cwd in cwds.clone() {
            let cwd = cwd.as_str();
            for f in &named.conventional {
                if let Some(module) = f.strip_prefix("\0tool-module:") {
                    let file = resolve(cwd, &format!("{module}.py"));
                    let dir = resolve(cwd, module);
                    let theirs = |p: &Option<String>| {
                        p.as_ref().is_some_and(|p| {
                            let folder = format!("{p}/");
                            blobs.contains_key(p) || blobs.keys().any(|k| k.starts_with(&folder))
                        })
                    };
                    if !theirs(&file) && !theirs(&dir) {
                        // What Python imports X from ahead of the standard library: a
                        // module, a sourceless one, or a regular package (a folder without
                        // `__init__` is a namespace portion, which a later regular one beats).
                        for f in [
                            format!("{module}.py"),
                            format!("{module}.pyc"),
                            format!("{module}/__init__.py"),
                            format!("{module}/__init__.pyc"),
                        ] {
                            found.extend(resolve(cwd, &f));
                        }
                    }
                    continue;
                }
                found.extend(resolve(cwd, f));
            }
            // The recipes of the makefiles make reads are commands it runs; what they
            // include is read with them.
            for m in &named.makefiles {
                let Some(path) = resolve(cwd, m) else {
                    continue;
                };
                let Some((through, end)) = follow(tree, blobs, &path) else {
                    continue;
                };
                let Some(&(id, _)) = blobs.get(&end) else {
                    continue;
                };
                found.extend(through);
                found.insert(end);
                if depth >= MAX_DEPTH || found.len() > MAX_FOLLOWED {
                    continue;
                }
                let Some(text) = read_text(id) else { continue };
                let mut recipes = String::new();
                let mut includes = Vec::new();
                for l in text.lines() {
                    if let Some(r) = l.strip_prefix('\t') {
                        recipes.push_str(r.trim_start_matches(['@', '-', '+']));
                        recipes.push('\n');
                    } else if let Some(rest) = l
                        .strip_prefix("include ")
                        .or_else(|| l.strip_prefix("-include "))
                        .or_else(|| l.strip_prefix("sinclude "))
                    {
                        includes.extend(rest.split_whitespace().map(str::to_string));
                    }
                }
                for f in includes {
                    found.extend(resolve(cwd, &f).filter(|p| blobs.contains_key(p)));
                }
                collect(
                    tree,
                    blobs,
                    cwd,
                    Commands::Line(&recipes),
                    depth + 1,
                    found,
                    unresolved,
                );
            }
            let mut files: Vec<(String, bool)> = named
                .files
                .iter()
                .map(|f| match f.strip_prefix("\0maybe:") {
                    Some(w) => (w.to_string(), !stdin_runs),
                    None => (f.clone(), false),
                })
                .collect();
            if stdin_runs {
                // Every word of the line, the program's too: `cat ci/check.sh | sh`.
                files.extend(words.iter().flatten().map(|w| (w.clone(), false)));
            }
            for (word, only_executable) in files {
                let Some(path) = resolve(cwd, &word) else {
                    continue;
                };
                let Some((through, end)) = follow(tree, blobs, &path) else {
                    continue;
                };
                let Some(&(id, mode)) = blobs.get(&end) else {
                    continue;
                };
                if only_executable && mode != 0o100755 {
                    continue;
                }
                let new = found.insert(end.clone());
                found.extend(through);
                if !new || depth >= MAX_DEPTH || found.len() > MAX_FOLLOWED {
                    continue;
                }
                let Some(text) = read_text(id) else { continue };
                let first = text.lines().next().unwrap_or("");
                let shell_line = first.starts_with("#!")
                    && ["sh", "bash", "dash", "zsh", "ksh"]
                        .iter()
                        .any(|s| first.split([' ', '/']).any(|w| w == *s));
                let is_shell = named.shell_scripts.contains(&word)
                    || stdin_runs
                    || shell_line
                    || (!first.starts_with("#!") && end.ends_with(".sh"));
                if is_shell {
                    collect(
                        tree,
                        blobs,
                        cwd,
                        Commands::Line(&text),
                        depth + 1,
                        found,
                        unresolved,
                    );
                }
            }
        }
    }
}

/// Every repository file the checks of `bench` name as their program or settings (see the
/// module's documentation), found in the trusted tree `tree`; `prefix` is the workspace's place
/// in the repository, where the commands run.
pub fn programs(bench: &Benchmark, tree: &GitTree, blobs: &Blobs, prefix: &str) -> Found {
    let mut out = BTreeSet::new();
    let mut unknown = Vec::new();
    for c in bench.jury.all_checks() {
        let (commands, dir) = match &c.kind {
            CheckKind::Command { run, dir, .. } => (
                line_commands(run),
                dir.as_ref().map(|d| {
                    d.as_path()
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join("/")
                }),
            ),
            CheckKind::External { run, .. } => (line_commands(run), None),
            CheckKind::MavenBuild { args, .. } => (
                Commands::Words(vec![
                    std::iter::once(Some("mvn".to_string()))
                        .chain(args.iter().cloned().map(Some))
                        .collect(),
                ]),
                None,
            ),
            CheckKind::GradleBuild { args, .. } => (
                Commands::Words(vec![
                    std::iter::once(Some("gradle".to_string()))
                        .chain(args.iter().cloned().map(Some))
                        .collect(),
                ]),
                None,
            ),
            CheckKind::FileExists { .. }
            | CheckKind::FileContent { .. }
            | CheckKind::ClassVersion { .. }
            | CheckKind::CoveragePreservation { .. }
            | CheckKind::CoverageImprovement { .. }
            | CheckKind::ImportDiff { .. }
            | CheckKind::AstDiff { .. }
            | CheckKind::PomDiff { .. }
            | CheckKind::FileComparison { .. }
            | CheckKind::TestInvariance { .. }
            | CheckKind::ProtectedPaths { .. }
            | CheckKind::Semantic { .. } => continue,
        };
        let cwd = match (prefix.is_empty(), dir) {
            (_, None) => prefix.to_string(),
            (true, Some(d)) => d,
            (false, Some(d)) => format!("{prefix}/{d}"),
        };
        let mut found = BTreeSet::new();
        let mut unresolved = Vec::new();
        collect(tree, blobs, &cwd, commands, 0, &mut found, &mut unresolved);
        out.extend(found.into_iter().map(|path| Program {
            path,
            check: c.name.clone(),
        }));
        if let Some(what) = unresolved.into_iter().next() {
            unknown.push((c.name.clone(), what));
        }
    }
    // One file named by several checks: listed once, for the first.
    let mut seen = std::collections::HashSet::new();
    Found {
        programs: out
            .into_iter()
            .filter(|p| seen.insert(p.path.clone()))
            .collect(),
        unresolved: unknown,
    }
}

/// What [`programs`] found: the files, and each check whose command names a program or
/// script through an expansion that can hold what the tree says (`sh $(ls ci/*.sh)`), with
/// what that is: judge-ci cannot make such a program the trusted side's, so a pull-request
/// run refuses the config (trust.md points 2 and 25, attack B14-1).
#[derive(Debug, Default)]
pub struct Found {
    /// The files, one per path.
    pub programs: Vec<Program>,
    /// (check, what is named by an expansion).
    pub unresolved: Vec<(String, String)>,
}

/// The simple commands of a check's command line.
fn line_commands(run: &CommandLine) -> Commands<'_> {
    match run {
        CommandLine::Shell(l) | CommandLine::ShellWithGlobs(l) => Commands::Line(l),
        CommandLine::Argv(v) => Commands::Words(vec![v.iter().cloned().map(Some).collect()]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Vec<String>> {
        simple_commands(line)
            .into_iter()
            .map(|c| {
                c.into_iter()
                    .map(|w| w.unwrap_or_else(|| "<?>".into()))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_shell_line_splits_into_its_simple_commands() {
        assert_eq!(
            words("! grep -rn 'a b' src && sh ./check.sh 2>&1 >out.txt; X=1 ./x \"$Y\""),
            [
                vec!["!", "grep", "-rn", "a b", "src"],
                vec!["sh", "./check.sh"],
                vec!["X=1", "./x", "<?>"],
            ]
        );
        assert_eq!(
            words("if test -f a; then . ./env.sh # comment ./no.sh\nfi"),
            [
                vec!["if", "test", "-f", "a"],
                vec!["then", ".", "./env.sh"],
                vec!["fi"]
            ]
        );
        assert_eq!(
            words("out=$(python3 tools/j.py) || exit 1"),
            [
                vec!["<?>"],
                vec!["python3", "tools/j.py"],
                vec!["exit", "1"]
            ]
        );
    }

    fn files(line: &str) -> Vec<String> {
        simple_commands(line)
            .iter()
            .flat_map(|w| named_by(w).files)
            .filter(|f| !f.starts_with('\0'))
            .collect()
    }

    #[test]
    fn programs_interpreter_scripts_and_settings_files_are_named_data_is_not() {
        assert_eq!(files("sh ./check.sh"), ["./check.sh"]);
        assert_eq!(files("scripts/verify.sh --all"), ["scripts/verify.sh"]);
        assert_eq!(files("bash -eu ci/run.sh x"), ["ci/run.sh"]);
        assert_eq!(
            files("timeout -s KILL 30 python3 -u judge/ext.py"),
            ["judge/ext.py"]
        );
        assert_eq!(files("\"$JUDGE_CI\" fence-exec -- node ./t.js"), ["./t.js"]);
        assert_eq!(
            files("./mvnw -q -s ci/settings.xml verify"),
            ["./mvnw", "ci/settings.xml"]
        );
        assert_eq!(files("java -jar lib/judge.jar"), ["lib/judge.jar"]);
        assert_eq!(
            files("checkstyle --config=ci/rules.xml src"),
            ["ci/rules.xml"]
        );
        assert!(
            files("sh -c './inner.sh'").is_empty(),
            "read as a line of its own"
        );
        // The subject's files a command reads are data.
        assert!(files("grep -qx hello app.txt").is_empty());
        assert!(files("! grep -rn javax src").is_empty());
        assert!(
            files("check.sh").is_empty(),
            "found on PATH, not in the folder"
        );
        assert!(files("for f in a.sh b.sh; do echo; done").is_empty());
        assert!(files("python3 -c 'import x' app.py").is_empty());
    }

    #[test]
    fn a_path_never_leaves_the_repository() {
        assert_eq!(resolve("ws", "./a/../b.sh").as_deref(), Some("ws/b.sh"));
        assert_eq!(resolve("ws", "../ci/x.sh").as_deref(), Some("ci/x.sh"));
        assert_eq!(resolve("ws", "../../x.sh"), None);
        assert_eq!(resolve("", "/usr/bin/sh"), None);
    }

    /// The files a command names, found in a real tree: a settings file, an executable
    /// anywhere in the line, a link and what it leads to; the subject's sources it reads are
    /// not.
    #[test]
    fn the_files_named_are_found_in_the_trusted_tree_through_links() {
        use crate::test_support::git;
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        git(root, &["init", "-q"]);
        for (p, c) in [
            ("ws/ci/settings.xml", "<settings/>\n"),
            ("ws/tools/lint", "#!/bin/sh\nexit 1\n"),
            ("ws/tools/real.sh", "./tools/inner.sh\n"),
            ("ws/tools/inner.sh", "exit 1\n"),
            ("ws/src/App.java", "class App {}\n"),
        ] {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), c).unwrap();
        }
        std::fs::set_permissions(
            root.join("ws/tools/lint"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::os::unix::fs::symlink("tools/real.sh", root.join("ws/a.sh")).unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-qm", "base"]);
        let repo = git2::Repository::open(root).unwrap();
        let id = repo.head().unwrap().peel_to_commit().unwrap().id();
        let tree = GitTree::new(repo.path().to_path_buf(), root, id, "base".into());
        let blobs = blobs_of(&tree).unwrap();
        let mut found = BTreeSet::new();
        let line = "./mvnw -s ci/settings.xml verify && find src -exec tools/lint {} + && sh a.sh && grep x src/App.java";
        collect(
            &tree,
            &blobs,
            "ws",
            Commands::Line(line),
            0,
            &mut found,
            &mut Vec::new(),
        );
        assert_eq!(
            found.into_iter().collect::<Vec<_>>(),
            [
                "ws/a.sh",
                "ws/ci/settings.xml",
                "ws/tools/inner.sh",
                "ws/tools/lint",
                "ws/tools/real.sh"
            ]
        );
    }

    /// The files of a fresh repository's one commit, as a trusted tree.
    fn tree_of(root: &std::path::Path, files: &[(&str, &str)]) -> (GitTree, Blobs) {
        use crate::test_support::git;
        git(root, &["init", "-q"]);
        for (p, c) in files {
            std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
            std::fs::write(root.join(p), c).unwrap();
        }
        git(root, &["add", "."]);
        git(root, &["commit", "-qm", "base"]);
        let repo = git2::Repository::open(root).unwrap();
        let id = repo.head().unwrap().peel_to_commit().unwrap().id();
        let tree = GitTree::new(repo.path().to_path_buf(), root, id, "base".into());
        let blobs = blobs_of(&tree).unwrap();
        (tree, blobs)
    }

    #[test]
    fn every_way_a_shell_line_runs_a_script_names_it() {
        // Attack B14-1: the script a check runs reached through `cd`, a makefile's recipe,
        // a redirection, a pipe into a shell, or a variable of the line.
        let d = tempfile::tempdir().unwrap();
        let (tree, blobs) = tree_of(
            d.path(),
            &[
                ("ci/check.sh", "grep -q jakarta src/App.java\n"),
                ("ci/lib.sh", "true\n"),
                (
                    "Makefile",
                    "include ci/rules.mk\ncheck:\n\t@sh ci/check.sh\n",
                ),
                ("ci/rules.mk", "X = 1\n"),
                ("src/App.java", "class App {}\n"),
            ],
        );
        let found = |line: &str| {
            let mut found = BTreeSet::new();
            let mut unresolved = Vec::new();
            collect(
                &tree,
                &blobs,
                "",
                Commands::Line(line),
                0,
                &mut found,
                &mut unresolved,
            );
            (found.into_iter().collect::<Vec<_>>(), unresolved)
        };
        for line in [
            "cd ci && sh check.sh",
            "sh < ci/check.sh",
            "cat ci/check.sh | sh",
            "f=ci/check.sh; sh $f",
            "f=ci/check.sh; sh \"${f}\"",
        ] {
            let (files, unresolved) = found(line);
            assert!(
                files.contains(&"ci/check.sh".to_string()),
                "{line}: {files:?}"
            );
            assert!(unresolved.is_empty(), "{line}: {unresolved:?}");
        }
        // (make's conventional makefiles are protected whether or not the tree has them.)
        let (files, _) = found("make check");
        assert_eq!(
            files,
            [
                "GNUmakefile",
                "Makefile",
                "ci/check.sh",
                "ci/rules.mk",
                "makefile"
            ]
        );
        // What the tree can decide is refused, what only the environment sets is not.
        for line in [
            "sh $(ls ci/*.sh)",
            "f=$(ls ci); sh $f",
            "eval \"$(cat ci/cmd)\"",
            "for f in $(ls ci); do . $f; done; cd `cat ci/dir`",
        ] {
            let (_, unresolved) = found(line);
            assert!(!unresolved.is_empty(), "{line}");
        }
        for line in ["$JAVA_HOME/bin/java -version", "sh \"$HOME/x.sh\""] {
            let (_, unresolved) = found(line);
            assert!(unresolved.is_empty(), "{line}: {unresolved:?}");
        }
    }
}
