//! What the line editor offers, computed from the session without a terminal: completion
//! candidates (commands, service names, types, tags, parameters, builder and definition
//! methods from the engine's registered functions), hints, and whether an input is still
//! open (unclosed brackets, braces, strings or comments) and needs another line.

use super::commands::{self, COMMANDS, SERVICE_COMMANDS};
use super::Session;
use rhai::Engine;

/// Completion candidates: the byte offset in the line where the replaced word starts, and the
/// words that can replace it (sorted, without duplicates).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Candidates {
    /// Where the completed word starts in the line.
    pub start: usize,
    /// Replacements for `line[start..pos]`.
    pub words: Vec<String>,
    /// The word is a file path (`:run`, `:compile`): the front end completes file names.
    pub path: bool,
}

/// Which receiver a method call is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Receiver {
    Builder,
    Definition,
}

/// Method names registered on the engine for the builder or for definitions, from the
/// engine's function metadata (so completion never drifts from the scripted API).
fn methods(engine: &Engine, receiver: Receiver) -> Vec<String> {
    let wanted = match receiver {
        Receiver::Builder => "ContainerBuilder",
        Receiver::Definition => "Definition",
    };
    let mut out: Vec<String> = engine
        .gen_fn_signatures(false)
        .iter()
        .filter_map(|sig| {
            let (name, rest) = sig.split_once('(')?;
            let first = rest.split([',', ')']).next()?.trim();
            let ty = first.rsplit(':').next()?.trim().trim_start_matches("&mut ");
            let ty = ty.rsplit("::").next().unwrap_or(ty);
            let name = name.trim_start_matches("get$").trim_start_matches("set$");
            let matches = ty == wanted
                || (receiver == Receiver::Builder && ty == "BuilderHandle")
                || (receiver == Receiver::Definition && ty == "DefinitionHandle");
            (matches && !name.contains('$') && !["to_string", "to_debug"].contains(&name))
                .then(|| name.to_string())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The names registered as methods of `ContainerBuilder` on `engine`.
pub fn builder_methods(engine: &Engine) -> Vec<String> {
    methods(engine, Receiver::Builder)
}

/// The names registered as methods of `Definition` on `engine`.
pub fn definition_methods(engine: &Engine) -> Vec<String> {
    methods(engine, Receiver::Definition)
}

fn pick(prefix: &str, words: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = words
        .into_iter()
        .filter(|w| w.starts_with(prefix))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Rhai string escaping of a name typed inside `"…"` (`App\Db` → `App\\Db`).
fn escaped(name: &str) -> String {
    name.replace('\\', "\\\\")
}

/// Completion candidates for `line` with the cursor at byte `pos`.
pub fn candidates(session: &Session, line: &str, pos: usize) -> Candidates {
    let pos = pos.min(line.len());
    let before = &line[..pos];
    if let Some(rest) = before.trim_start().strip_prefix(':') {
        let offset = before.len() - rest.len();
        return command_candidates(session, rest, offset);
    }
    rhai_candidates(session, before)
}

fn command_candidates(session: &Session, rest: &str, offset: usize) -> Candidates {
    let Some((cmd, arg)) = rest.split_once(char::is_whitespace) else {
        return Candidates {
            start: offset - 1,
            words: pick(rest, COMMANDS.iter().map(|c| c.name.to_string()))
                .into_iter()
                .map(|w| format!(":{w}"))
                .collect(),
            path: false,
        };
    };
    let arg = arg.trim_start();
    let start = offset + rest.len() - arg.len();
    let words = match cmd {
        c if SERVICE_COMMANDS.contains(&c) => session.service_names(),
        "type" => session.type_names(),
        "tag" => session.tag_names(),
        "params" => session.parameter_names(),
        "help" => COMMANDS.iter().map(|c| c.name.to_string()).collect(),
        "phase" => vec!["A".into(), "B".into(), "C".into()],
        "run" | "compile" => {
            return Candidates {
                start,
                words: Vec::new(),
                path: true,
            }
        }
        _ => Vec::new(),
    };
    Candidates {
        start,
        words: pick(arg, words),
        path: false,
    }
}

/// Functions whose first string argument is a service name, a type, a tag or a parameter.
const NAME_ARGUMENTS: &[(&str, Kind)] = &[
    ("getDefinition", Kind::Service),
    ("hasDefinition", Kind::Service),
    ("removeDefinition", Kind::Service),
    ("getDefinitionByType", Kind::Type),
    ("getByType", Kind::Type),
    ("findByType", Kind::Type),
    ("findByTag", Kind::Tag),
    ("addTag", Kind::Tag),
    ("setType", Kind::Type),
    ("setFactory", Kind::Type),
    ("setCreator", Kind::Type),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Service,
    Type,
    Tag,
}

fn rhai_candidates(session: &Session, before: &str) -> Candidates {
    // Inside an open string: `getDefinition("ar|`.
    if let Some(quote) = open_string_start(before) {
        let typed = &before[quote + 1..];
        let head = before[..quote].trim_end();
        let Some(head) = head.strip_suffix('(') else {
            return Candidates::default();
        };
        let func = head
            .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        let words = match NAME_ARGUMENTS.iter().find(|(f, _)| *f == func) {
            Some((_, Kind::Service)) => session.service_names(),
            Some((_, Kind::Type)) => session.type_names().iter().map(|t| escaped(t)).collect(),
            Some((_, Kind::Tag)) => session.tag_names(),
            None => Vec::new(),
        };
        return Candidates {
            start: quote + 1,
            words: pick(typed, words),
            path: false,
        };
    }
    let word_start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map(|i| i + before[i..].chars().next().map_or(1, char::len_utf8))
        .unwrap_or(0);
    let word = &before[word_start..];
    if before[..word_start].ends_with('.') {
        let receiver = before[..word_start - 1].trim_end();
        let words = if receiver.ends_with("builder") {
            builder_methods(session.engine())
        } else {
            definition_methods(session.engine())
        };
        return Candidates {
            start: word_start,
            words: pick(word, words),
            path: false,
        };
    }
    if word.is_empty() {
        return Candidates {
            start: word_start,
            words: Vec::new(),
            path: false,
        };
    }
    Candidates {
        start: word_start,
        words: pick(word, session.variable_names()),
        path: false,
    }
}

/// The byte offset of the `"` that opens an unclosed string at the end of `text`, if any.
fn open_string_start(text: &str) -> Option<usize> {
    let mut open = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match (open, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(_), '"') => open = None,
            (None, '"') => open = Some(i),
            _ => {}
        }
    }
    open
}

/// The hint shown after the cursor: the rest of a command name and its arguments (`:sh` →
/// `ow NAME`), or a command's arguments once its name is typed (`:show ` → `NAME`).
pub fn hint(line: &str) -> Option<String> {
    let rest = line.strip_prefix(':')?;
    if let Some(name) = rest.strip_suffix(' ') {
        let c = commands::find(name)?;
        return (!c.args.is_empty()).then(|| c.args.to_string());
    }
    if rest.contains(char::is_whitespace) || rest.is_empty() {
        return None;
    }
    let found: Vec<_> = COMMANDS
        .iter()
        .filter(|c| c.name.starts_with(rest))
        .collect();
    match found.as_slice() {
        [c] if c.name != rest => Some(if c.args.is_empty() {
            c.name[rest.len()..].to_string()
        } else {
            format!("{} {}", &c.name[rest.len()..], c.args)
        }),
        _ => None,
    }
}

/// Is `input` unfinished: an unclosed `(`, `[`, `{`, back-tick string or block comment, or a
/// string continued with `\` at the end of the line? Commands (`:…`) are always one line.
/// Stray closing brackets count as finished (the parser reports them), and so does a `"`
/// string or `'` character left open: Rhai's strings do not span lines (only back-tick
/// strings do), so Enter there runs the input and Rhai reports the unterminated string.
pub fn is_incomplete(input: &str) -> bool {
    if input.trim_start().starts_with(':') {
        return false;
    }
    #[derive(PartialEq)]
    enum In {
        Code,
        Str(char),
        LineComment,
        BlockComment(usize),
    }
    let mut state = In::Code;
    let mut depth: Vec<char> = Vec::new();
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match &mut state {
            In::Code => match c {
                '"' | '`' | '\'' => state = In::Str(c),
                '/' if chars.peek() == Some(&'/') => state = In::LineComment,
                '/' if chars.peek() == Some(&'*') => {
                    chars.next();
                    state = In::BlockComment(1);
                }
                '(' | '[' | '{' => depth.push(c),
                ')' | ']' | '}' if depth.pop().is_none() => return false,
                _ => {}
            },
            In::Str(q) => match c {
                '\\' if *q != '`' => match chars.next() {
                    // `"abc\` at the end of the line: the string goes on (a line
                    // continuation).
                    None => return true,
                    Some(_escaped) => {}
                },
                c if c == *q => state = In::Code,
                // A `"` string or character cannot hold a line break: Rhai stops there.
                '\n' if *q != '`' => return false,
                _ => {}
            },
            In::LineComment => {
                if c == '\n' {
                    state = In::Code;
                }
            }
            In::BlockComment(n) => {
                if c == '*' && chars.peek() == Some(&'/') {
                    chars.next();
                    *n -= 1;
                    if *n == 0 {
                        state = In::Code;
                    }
                } else if c == '/' && chars.peek() == Some(&'*') {
                    chars.next();
                    *n += 1;
                }
            }
        }
    }
    match state {
        In::Str('`') | In::BlockComment(_) => true,
        In::Str(_) => false,
        In::Code | In::LineComment => !depth.is_empty(),
    }
}
