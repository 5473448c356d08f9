//! The REPL's commands: names, usage and help text, and reading a command line.

/// One command of the REPL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    /// The name without the colon (`services`).
    pub name: &'static str,
    /// What follows the name (`[PATTERN]`), empty when nothing does.
    pub args: &'static str,
    /// One line for `:help`.
    pub summary: &'static str,
    /// More for `:help NAME`.
    pub details: &'static str,
}

/// Every command, in the order `:help` lists them.
pub const COMMANDS: &[Command] = &[
    Command {
        name: "services",
        args: "[PATTERN]",
        summary: "services with their type (PATTERN: a glob like 'app.*' or a substring)",
        details: "Answers from the builder as it is now, including changes made at the prompt.",
    },
    Command {
        name: "show",
        args: "NAME",
        summary: "a definition: kind, type, creator, setup, tags, autowiring, lifespan, origin",
        details: "In phase B and C the creator and setup are also shown completed (arguments \
                  autowired, positional), as they go into the plan.",
    },
    Command {
        name: "type",
        args: "TYPE",
        summary:
            "what builder.getByType(TYPE) answers, and why each service of it is chosen or not",
        details: "What `wireplan explain CONFIG --type TYPE` prints. In phase A only the \
                  services registered so far are known: the answer can still change, so it is \
                  marked preliminary. Switch with `:phase B`.",
    },
    Command {
        name: "explain",
        args: "NAME",
        summary: "where a service came from, its type, every argument's origin, its lifespan",
        details: "What `wireplan explain CONFIG NAME` prints, for the builder as it is now (a \
                  copy is resolved and completed again, so changes made at the prompt show). \
                  In phase A arguments are not known yet.",
    },
    Command {
        name: "deps",
        args: "NAME [DEPTH]",
        summary: "every service NAME depends on (DEPTH levels deep, or all)",
        details: "What `wireplan explain CONFIG --deps NAME --depth DEPTH` prints: constructor, \
                  setup, collection and locator edges. In phase A the edges are the references \
                  as written.",
    },
    Command {
        name: "needed-by",
        args: "NAME",
        summary: "every service and extension that needs NAME, directly and transitively",
        details: "What `wireplan explain CONFIG --needed-by NAME` prints. For a removed service \
                  it says who removed it.",
    },
    Command {
        name: "tag",
        args: "TAG",
        summary: "services carrying a tag, with the tag's values",
        details: "",
    },
    Command {
        name: "params",
        args: "[PATTERN]",
        summary: "parameters and their values; dynamic ones show as (dynamic)",
        details: "A dynamic parameter's value is only known when the container starts, so it \
                  is never shown.",
    },
    Command {
        name: "errors",
        args: "",
        summary: "what `wireplan compile` would report for the builder as it is now",
        details: "The rest of the compilation runs on a copy of the builder (from phase A: \
                  resolve, beforeCompile(), complete; from B or C: resolve and complete again, \
                  then the plan with afterCompile()). Prints 'no errors' when clean.",
    },
    Command {
        name: "phase",
        args: "[A|B|C]",
        summary: "show the phase, or compile again up to phase A, B or C",
        details: "A: parameters, loadConfiguration(), services:. B: resolve, search, decorator, \
                  beforeCompile(), complete. C: the plan and afterCompile(plan). Changing the \
                  phase drops the changes made at the prompt.",
    },
    Command {
        name: "compile",
        args: "PATH",
        summary: "finish the builder as it is now and write the plan (binary for .bin)",
        details: "The same checks as `wireplan compile`: nothing is written when there is an \
                  error, an input file is never overwritten, the write is atomic. PATH is the \
                  rest of the line; quotes around it are dropped ('my plan.json'), and a \
                  leading ~ is your home folder.",
    },
    Command {
        name: "diff",
        args: "",
        summary: "what the session's changes do to the plan (the semantic diff of `wireplan diff`)",
        details: "Compares the plan of the files without the session's changes with the plan \
                  `:compile` would write now. Prints 'no changes' when they are the same, and \
                  the errors when the builder does not compile.",
    },
    Command {
        name: "reset",
        args: "",
        summary: "drop the changes made at the prompt; functions stay defined",
        details: "",
    },
    Command {
        name: "run",
        args: "FILE.rhai",
        summary: "run a Rhai script with `builder`, `config` and `params` in scope",
        details: "To try an extension's beforeCompile() body before wiring it in: put the body \
                  in a file, using `builder` for this.getContainerBuilder(). Functions it \
                  defines stay defined. The path is read as :compile's (quotes dropped, ~ \
                  for the home folder).",
    },
    Command {
        name: "reload",
        args: "",
        summary: "read the files again and compile up to the current phase",
        details: "Changes made at the prompt are dropped.",
    },
    Command {
        name: "help",
        args: "[COMMAND]",
        summary: "this list, or more about one command",
        details: "",
    },
    Command {
        name: "quit",
        args: "",
        summary: "leave (Ctrl-D too)",
        details: "",
    },
];

/// The commands whose argument is a service name; completion offers service names after them.
pub const SERVICE_COMMANDS: &[&str] = &["show", "explain", "deps", "needed-by"];

/// The command named `name` (without the colon).
pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// Splits `:name rest` into the name (without colon) and its trimmed argument; `None` when
/// the line is not a command.
pub fn split(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim().strip_prefix(':')?;
    Some(match rest.split_once(char::is_whitespace) {
        Some((c, a)) => (c, a.trim()),
        None => (rest, ""),
    })
}

/// The usage line of command `cmd` (without the colon): `usage: :show NAME`.
pub fn usage(cmd: &str) -> String {
    let args = find(cmd).map(|c| c.args).unwrap_or_default();
    format!("usage: :{cmd} {args}")
}

/// The one word a command such as `:show NAME` takes, or its usage message when `arg` holds
/// more than one (a service, type or tag name has no blanks: `:show db extra` is a mistake,
/// not a service named `db extra`).
pub fn one_word<'a>(cmd: &str, arg: &'a str) -> Result<&'a str, String> {
    let mut words = arg.split_whitespace();
    let first = words.next().unwrap_or_default();
    match words.next() {
        None => Ok(first),
        Some(extra) => Err(format!(
            "{} (one argument; '{extra}' is one too many)",
            usage(cmd)
        )),
    }
}

/// The path a command such as `:compile PATH` takes: the rest of the line, with one pair of
/// surrounding quotes removed (`'my plan.json'`, `"my plan.json"`: the quotes are not part of
/// the name, as in a shell) and a leading `~` standing for the home folder (`$HOME`). The
/// usage message when a quote is not closed.
pub fn path_arg(cmd: &str, arg: &str) -> Result<std::path::PathBuf, String> {
    let arg = arg.trim();
    let unquoted = match arg.chars().next() {
        Some(q @ ('\'' | '"')) => {
            if arg.len() < 2 || !arg.ends_with(q) {
                return Err(format!("{} (the quote {q} is not closed)", usage(cmd)));
            }
            &arg[1..arg.len() - 1]
        }
        _ => arg,
    };
    let home = || std::env::var_os("HOME").filter(|h| !h.is_empty());
    let path = match unquoted.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => match home() {
            Some(h) => {
                let mut p = std::path::PathBuf::from(h);
                p.push(rest.trim_start_matches('/'));
                p
            }
            None => std::path::PathBuf::from(unquoted),
        },
        _ => std::path::PathBuf::from(unquoted),
    };
    Ok(path)
}

/// The `:help` text: every command, or one in detail.
pub fn help(topic: &str) -> Result<String, String> {
    let topic = topic.trim().trim_start_matches(':');
    if topic.is_empty() {
        let mut out = String::from("commands:\n");
        for c in COMMANDS {
            let head = format!(":{} {}", c.name, c.args);
            out.push_str(&format!("  {head:<22}{}\n", c.summary));
        }
        out.push_str(
            "anything else is Rhai, with `builder` (the ContainerBuilder extensions get),\n\
             `config` and `params` in scope:\n  builder.getByType(\"App\\\\Logger\")\n  \
             builder.addDefinition(\"clock2\").setFactory(\"App\\\\Clock\")\n\
             functions defined with `fn` stay defined (they do not see outer variables: pass\n\
             `builder` as an argument). Tab completes; Ctrl-C stops a running input;\n\
             `:help COMMAND` says more.",
        );
        return Ok(out);
    }
    match find(topic) {
        Some(c) => {
            let head = format!(":{} {}", c.name, c.args);
            let mut out = format!("{}\n  {}", head.trim_end(), c.summary);
            if !c.details.is_empty() {
                out.push_str(&wrap(c.details, 88));
            }
            Ok(out)
        }
        None => Err(unknown(topic)),
    }
}

/// `text` as lines of at most `width` characters (words are not split), each starting with
/// a newline and two spaces.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            out.push_str(&format!("\n  {line}"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("\n  {line}"));
    }
    out
}

/// The message for an unknown command, with a suggestion when one is close.
pub fn unknown(name: &str) -> String {
    // The start of a command (`:sh`) names the commands it starts, before any close spelling.
    let lower = name.to_ascii_lowercase();
    let started: Vec<&str> = COMMANDS
        .iter()
        .map(|c| c.name)
        .filter(|c| !lower.is_empty() && c.starts_with(&lower))
        .collect();
    match started.as_slice() {
        [] => {}
        [one] => {
            return format!("unknown command :{name}; did you mean :{one}? (:help lists them)")
        }
        several => {
            let listed: Vec<String> = several.iter().map(|c| format!(":{c}")).collect();
            return format!(
                "unknown command :{name}; did you mean one of {}? (:help lists them)",
                listed.join(", ")
            );
        }
    }
    let names = COMMANDS.iter().map(|c| c.name);
    match crate::diagnostics::suggest(name, names) {
        Some(s) => format!("unknown command :{name}; did you mean :{s}? (:help lists them)"),
        None => format!("unknown command :{name}; :help lists them"),
    }
}

/// Does `name` match `pattern`: a glob (`*`, `?`) when it has one, else a case-insensitive
/// substring; an empty pattern matches everything.
pub fn matches(pattern: &str, name: &str) -> bool {
    if pattern.is_empty() {
        return true;
    }
    if !pattern.contains(['*', '?']) {
        return name.to_lowercase().contains(&pattern.to_lowercase());
    }
    // Matched directly (a regular expression compiled per name took a second over 30,000
    // services: a new user's trial).
    let pattern: Vec<char> = pattern.to_lowercase().chars().collect();
    let name: Vec<char> = name.to_lowercase().chars().collect();
    glob(&pattern, &name)
}

/// Whether `name` matches the glob `pattern` as a whole (`*`: any run of characters, `?`: one
/// character), both lowercased: the usual walk that goes back to the last `*` on a mismatch
/// (at most pattern × name steps).
fn glob(pattern: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0, 0);
    // The last `*` seen and the place in `name` it matched up to.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(c) if *c == '?' || *c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_argument_is_one_word() {
        assert_eq!(one_word("show", "  db "), Ok("db"));
        assert_eq!(
            one_word("show", "db extra"),
            Err("usage: :show NAME (one argument; 'extra' is one too many)".to_string())
        );
        assert_eq!(one_word("type", "App\\Logger"), Ok("App\\Logger"));
    }

    #[test]
    fn a_path_argument_loses_its_quotes_and_expands_the_home_folder() {
        use std::path::PathBuf;
        assert_eq!(
            path_arg("compile", "'my plan.json'"),
            Ok(PathBuf::from("my plan.json"))
        );
        assert_eq!(
            path_arg("compile", "\"my plan.json\""),
            Ok(PathBuf::from("my plan.json"))
        );
        // Unquoted, the rest of the line is the path, blanks included.
        assert_eq!(
            path_arg("compile", "my plan.json"),
            Ok(PathBuf::from("my plan.json"))
        );
        assert_eq!(
            path_arg("run", "'ext.rhai"),
            Err("usage: :run FILE.rhai (the quote ' is not closed)".to_string())
        );
        assert_eq!(
            path_arg("compile", "\""),
            Err("usage: :compile PATH (the quote \" is not closed)".to_string())
        );
        // A quote inside the name stays.
        assert_eq!(
            path_arg("compile", "it's.json"),
            Ok(PathBuf::from("it's.json"))
        );
        match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            Some(home) => {
                let home = PathBuf::from(home);
                assert_eq!(path_arg("compile", "~/p.json"), Ok(home.join("p.json")));
                assert_eq!(path_arg("compile", "~"), Ok(home.clone()));
                assert_eq!(
                    path_arg("compile", "'~/a b.json'"),
                    Ok(home.join("a b.json"))
                );
            }
            None => assert_eq!(
                path_arg("compile", "~/p.json"),
                Ok(PathBuf::from("~/p.json"))
            ),
        }
        // `~user` is not expanded (only the own home folder is known).
        assert_eq!(
            path_arg("compile", "~bob/p.json"),
            Ok(PathBuf::from("~bob/p.json"))
        );
    }

    #[test]
    fn patterns_are_globs_or_substrings() {
        assert!(matches("art", "articles"));
        assert!(matches("*les", "articles"));
        assert!(!matches("a*s?", "articles"));
        assert!(matches("", "x"));
        assert!(!matches("log", "db"));
        // Globs match the whole name, in any letter case, backtracking over `*`.
        assert!(matches("A*S", "articles"));
        assert!(matches("s2999?", "s29990"));
        assert!(!matches("s2999?", "s2999"));
        assert!(matches("*a*b*", "xaxxbx"));
        assert!(!matches("*a*b", "xaxxbx"));
        assert!(matches("a.b*", "a.bc"));
        assert!(!matches("a.b*", "aXbc"));
        assert!(matches("**", ""));
        assert!(matches("é*", "Éclair"));
    }

    #[test]
    fn unknown_commands_get_a_suggestion() {
        assert_eq!(
            unknown("servces"),
            "unknown command :servces; did you mean :services? (:help lists them)"
        );
        assert!(help("show").expect("known").starts_with(":show NAME\n"));
        assert!(help("errors").expect("known").starts_with(":errors\n"));
        assert!(help("errors")
            .expect("known")
            .lines()
            .all(|l| l.len() <= 90));
        assert!(help("nope").is_err());
    }
}
