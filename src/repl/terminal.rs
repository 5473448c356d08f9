//! The terminal front end of the REPL (rustyline): reads lines, prints what
//! [`Session::eval`] answers, and plugs the session's completion, hints, colouring and
//! multi-line detection ([`super::complete`]) into the line editor. `wireplan repl` and the
//! `wireplan-repl` alias both call [`run`].

use super::complete;
use super::{Reply, Session};
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Editor, Helper};
use std::borrow::Cow;
use std::cell::RefCell;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;

/// `eprintln!` that drops the line when standard error is closed instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// The rustyline helper over a session.
pub struct ReplHelper {
    session: Rc<RefCell<Session>>,
    files: FilenameCompleter,
    color: bool,
    /// Whether the last input the editor validated was unfinished (an open bracket, string or
    /// comment), so that an end of input right after it is reported, not silently dropped.
    unfinished: std::cell::Cell<bool>,
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let c = complete::candidates(&self.session.borrow(), line, pos);
        if c.path {
            return self.files.complete(line, pos, ctx);
        }
        let pairs = c
            .words
            .into_iter()
            .map(|w| Pair {
                display: w.clone(),
                replacement: w,
            })
            .collect();
        Ok((c.start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<String> {
        (pos == line.len()).then(|| complete::hint(line)).flatten()
    }
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if !self.color {
            return Cow::Borrowed(line);
        }
        Cow::Owned(colour(line))
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if !self.color {
            return Cow::Borrowed(hint);
        }
        Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _kind: CmdKind) -> bool {
        self.color
    }
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        let unfinished = complete::is_incomplete(ctx.input());
        self.unfinished.set(unfinished);
        Ok(if unfinished {
            ValidationResult::Incomplete
        } else {
            ValidationResult::Valid(None)
        })
    }
}

impl Helper for ReplHelper {}

/// ANSI colouring: a leading `:command` bold blue, string literals green.
pub fn colour(line: &str) -> String {
    const CMD: &str = "\x1b[1;34m";
    const STR: &str = "\x1b[32m";
    const RESET: &str = "\x1b[0m";
    if let Some(rest) = line.strip_prefix(':') {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        return format!("{CMD}:{}{RESET}{}", &rest[..end], &rest[end..]);
    }
    let mut out = String::with_capacity(line.len() + 16);
    let mut in_str = false;
    let mut escaped = false;
    for c in line.chars() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                out.push_str(RESET);
                in_str = false;
            }
        } else if c == '"' {
            out.push_str(STR);
            out.push(c);
            in_str = true;
        } else {
            out.push(c);
        }
    }
    if in_str {
        out.push_str(RESET);
    }
    out
}

/// The longest input kept in the history, in bytes: longer ones (a pasted document) are run
/// but not remembered.
pub const HISTORY_ENTRY_MAX: usize = 4096;

/// Where the history is kept: `$XDG_DATA_HOME/wireplan/history`, else
/// `~/.local/share/wireplan/history`; `None` without either variable.
pub fn history_path() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".local/share"),
    };
    Some(base.join("wireplan").join("history"))
}

/// Colour when standard output is a terminal whose environment allows it
/// ([`crate::diagnostics::colour_allowed`]).
fn use_colour() -> bool {
    use std::io::IsTerminal;
    crate::diagnostics::colour_allowed() && std::io::stdout().is_terminal()
}

/// Starts a session over `config` and runs the loop: refuses (exit 1) when the file cannot
/// be read, with the diagnostic `wireplan check` prints for it
/// ([`crate::config::unreadable_file`]), after `problems` with the options. Otherwise prints
/// `problems` (rendered against `arg_sources`) and goes on without them.
pub fn start(
    config: &std::path::Path,
    options: crate::compiler::Options,
    arg_sources: &crate::source::SourceMap,
    problems: &[crate::diagnostics::Diagnostic],
    color: bool,
) -> ExitCode {
    if let Err(e) = super::check_config(config) {
        let mut all = problems.to_vec();
        all.push(e);
        crate::diagnostics::render(arg_sources, &all, color);
        return ExitCode::from(1);
    }
    crate::diagnostics::render(arg_sources, problems, color);
    // The session's own summary and `:errors` cover the configuration, not the command line.
    let errors = problems.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        say!(
            "note: the {errors} command-line error(s) above are not counted below: the session \
             runs without the values they concern"
        );
    }
    run(Session::open(config, options))
}

/// Runs the interactive loop over `session` until `:quit` or Ctrl-D. Ctrl-C drops the line
/// being typed; while an input runs it stops that input ([`Session::interrupt_flag`]) and the
/// session goes on. A second Ctrl-C before the first is noticed (something other than a
/// script is busy) ends the program with exit code 130. History is loaded and saved at
/// [`history_path`] when the input is a terminal; a missing or read-only location is not an
/// error (the session just has no saved history). Exit code 0, or 1 when
/// the terminal cannot be used; when the input is not a terminal (a file or a pipe), also 1
/// when any input failed ([`Session::input_failed`], or a line that is not UTF-8), after
/// every line ran, as a script interpreter reports a script that failed.
pub fn run(session: Session) -> ExitCode {
    if !answer(&format!("{}  (:help for commands)", session.status())) {
        return ExitCode::SUCCESS;
    }
    // While the line editor reads, the terminal is in raw mode and Ctrl-C arrives as a key
    // (`ReadlineError::Interrupted`); while an input runs it is a SIGINT, handled here.
    let flag = session.interrupt_flag();
    if let Err(e) = ctrlc::set_handler(move || {
        if flag.swap(true, std::sync::atomic::Ordering::Relaxed) {
            std::process::exit(130);
        }
    }) {
        say!("warning: Ctrl-C cannot stop a running input ({e}); it ends the program");
    }
    let session = Rc::new(RefCell::new(session));
    let config = rustyline::Config::builder()
        .auto_add_history(false)
        .completion_type(rustyline::CompletionType::List)
        .build();
    let mut editor: Editor<ReplHelper, DefaultHistory> = match Editor::with_config(config) {
        Ok(e) => e,
        Err(e) => {
            say!("error: cannot start the line editor: {e}");
            return ExitCode::from(1);
        }
    };
    editor.set_helper(Some(ReplHelper {
        session: session.clone(),
        files: FilenameCompleter::new(),
        color: use_colour(),
        unfinished: std::cell::Cell::new(false),
    }));
    use std::io::IsTerminal;
    // Input from a file or a pipe: no history (a scripted run would fill the user's own,
    // a new user's trial), a byte-order mark before the first line is dropped, and the inputs
    // that failed are counted with the line each started on.
    let piped = !std::io::stdin().is_terminal();
    let history = history_path().filter(|_| !piped);
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    let mut next_line = 1usize;
    let mut failed_at: Vec<usize> = Vec::new();
    // Lines that are not UTF-8 are skipped with a message instead of ending the session; a
    // bound on how many come in a row keeps an input that keeps failing from looping forever.
    let mut undecodable_in_a_row = 0u32;
    loop {
        let prompt = session.borrow().prompt();
        let read = editor.readline(&prompt);
        if !matches!(&read, Err(ReadlineError::Io(e)) if e.kind() == std::io::ErrorKind::InvalidData)
        {
            undecodable_in_a_row = 0;
        }
        match read {
            Ok(mut line) => {
                if next_line == 1 && piped {
                    if let Some(rest) = line.strip_prefix('\u{feff}') {
                        line = rest.to_string();
                    }
                }
                let first_line = next_line;
                next_line += line.matches('\n').count() + 1;
                // A paste of pages of text is not kept: the history file would carry it into
                // every later session (a new user's trial pasted 100,000 characters).
                if !line.trim().is_empty() && line.len() <= HISTORY_ENTRY_MAX {
                    let _ = editor.add_history_entry(line.as_str());
                }
                let reply = session.borrow_mut().eval(&line);
                if session.borrow().input_failed() {
                    failed_at.push(first_line);
                }
                match reply {
                    Reply::Quit => break,
                    Reply::Text(t) if t.is_empty() => {}
                    Reply::Text(t) => {
                        // Nobody reads the answers any more (`… | head -1`): stop reading.
                        if !answer(&t) {
                            break;
                        }
                    }
                }
            }
            Err(ReadlineError::Interrupted) => {
                if let Some(h) = editor.helper() {
                    h.unfinished.set(false);
                }
                continue;
            }
            Err(ReadlineError::Eof) if editor.helper().is_some_and(|h| h.unfinished.get()) => {
                say!(
                    "error: the input ended inside an unfinished entry (an open bracket, string \
                     or comment); it was not run"
                );
                return ExitCode::from(1);
            }
            Err(ReadlineError::Eof) => break,
            Err(ReadlineError::Io(e))
                if e.kind() == std::io::ErrorKind::InvalidData
                    && undecodable_in_a_row < MAX_UNDECODABLE_IN_A_ROW =>
            {
                undecodable_in_a_row += 1;
                failed_at.push(next_line);
                next_line += 1;
                say!("error: the line is not valid UTF-8 and was skipped ({e})");
            }
            Err(e) => {
                say!("error: {e}");
                return ExitCode::from(1);
            }
        }
    }
    if let Some(h) = &history {
        let saved = h
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| editor.save_history(h).map_err(std::io::Error::other));
        drop(saved);
    }
    if !failed_at.is_empty() && piped {
        say!("error: {}", failed_summary(&failed_at));
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// The last line of a piped session with failed inputs: how many, and the line each started
/// on (the first [`FAILED_LINES_SHOWN`]), so a long checks file says where to look.
fn failed_summary(lines: &[usize]) -> String {
    let shown: Vec<String> = lines
        .iter()
        .take(FAILED_LINES_SHOWN)
        .map(usize::to_string)
        .collect();
    let more = match lines.len().saturating_sub(FAILED_LINES_SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let at = match lines.len() {
        1 => "line",
        _ => "lines",
    };
    format!(
        "{} input(s) failed (at {at} {}{more} of the input)",
        lines.len(),
        shown.join(", ")
    )
}

/// How many line numbers [`failed_summary`] lists.
const FAILED_LINES_SHOWN: usize = 10;

/// Writes `text` and a line break to standard output; `false` when it is closed (a reader
/// such as `head` that stopped: the session then ends, since nobody reads its answers; a
/// panic on the broken pipe was exit status 101, a new user's trial).
fn answer(text: &str) -> bool {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").and_then(|()| out.flush()).is_ok()
}

/// How many lines that are not valid UTF-8 the REPL skips one after another before it gives
/// up and exits with status 1 (an input that is not text at all).
const MAX_UNDECODABLE_IN_A_ROW: u32 = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_strings_are_coloured() {
        assert_eq!(colour(":show db"), "\x1b[1;34m:show\x1b[0m db");
        assert_eq!(
            colour(r#"builder.getDefinition("db")"#),
            "builder.getDefinition(\x1b[32m\"db\"\x1b[0m)"
        );
    }
}
