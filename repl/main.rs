//! `wireplan-repl CONFIG`: an interactive shell over a compiled configuration. Type `:help`.
//! History is kept in `$HOME/.wireplan_history`.

/// Counts what each thread allocates, so the script sandbox can bound it (issue #13).
#[global_allocator]
static ALLOC: wireplan::script::sandbox::CountingAllocator =
    wireplan::script::sandbox::CountingAllocator;

use rustyline::error::ReadlineError;
use rustyline::DefaultEditor;
use std::process::ExitCode;
use wireplan::compiler::Options;
use wireplan::repl::{Reply, Session};

fn main() -> ExitCode {
    let Some(config) = std::env::args().nth(1) else {
        eprintln!("usage: wireplan-repl CONFIG");
        return ExitCode::from(2);
    };
    let path = std::path::Path::new(&config);
    if !wireplan::repl::config_exists(path) {
        eprintln!("error[file-not-found]: '{config}' is missing or is not a file");
        return ExitCode::from(1);
    }
    let mut session = Session::open(path, Options::default());
    println!("{}  (:help for commands)", session.summary());
    let mut editor = match DefaultEditor::new() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: cannot start the line editor: {e}");
            return ExitCode::from(1);
        }
    };
    let history =
        std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".wireplan_history"));
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    loop {
        match editor.readline("wireplan> ") {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                match session.eval(&line) {
                    Reply::Quit => break,
                    Reply::Text(t) if t.is_empty() => {}
                    Reply::Text(t) => println!("{t}"),
                }
            }
            Err(ReadlineError::Interrupted) | Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    ExitCode::SUCCESS
}
