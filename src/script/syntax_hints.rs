//! Hints for Rhai syntax errors that a Nette user makes: a reserved word where Nette's API
//! or a configuration key uses it, and the statement a missing `;` belongs to.

/// The note for Rhai's "'{word}' is a reserved keyword" at byte `start` of `text`: where the
/// word stands decides the advice. A map key or a property read (a Nette configuration's
/// `default:` connection, `this.config.static`) is quoted or read with brackets; a method
/// call with Nette's name gets Rhai's name. `None` when there is nothing to add.
pub(super) fn reserved_word(text: &str, start: usize, word: &str) -> Option<String> {
    let start = start.min(text.len());
    let after = text.get(start + word.len()..).unwrap_or("").trim_start();
    let before = text.get(..start).unwrap_or("").trim_end();
    if after.starts_with(':') && !after.starts_with("::") {
        Some(format!(
            "'{word}' is reserved in Rhai: quote a map key of that name, #{{ \"{word}\": … }}, \
             and read it back with brackets, map[\"{word}\"]"
        ))
    } else if before.ends_with('.') && !after.starts_with('(') {
        Some(format!(
            "'{word}' is reserved in Rhai: read a key or property of that name with brackets, \
             [\"{word}\"] (this.config[\"{word}\"])"
        ))
    } else {
        reserved_word_note(word).map(str::to_string)
    }
}

/// What to write instead of a Nette method whose name is a reserved word in Rhai.
fn reserved_word_note(word: &str) -> Option<&'static str> {
    match word {
        "default" => Some(
            "Nette's Expect::...->default(value) is `.defaultValue(value)` here: `default` is \
             reserved in Rhai (docs/scripting-api.md)",
        ),
        _ => None,
    }
}

/// The byte range of the last character of code on the lines before the one holding byte `at`
/// (blank lines and `//` comments skipped), when there is one: where a statement Rhai reports
/// as lacking its ';' at `at` ends.
pub(super) fn statement_end_before(text: &str, at: usize) -> Option<(usize, usize)> {
    let line_start = text[..at].rfind('\n')?;
    let mut end = line_start;
    loop {
        let start = text[..end].rfind('\n').map_or(0, |i| i + 1);
        let line = &text[start..end];
        // A `//` comment ends the code of a line (a `//` inside a string is rare enough at the
        // end of a statement not to matter for a hint).
        let code = line.find("//").map_or(line, |i| &line[..i]).trim_end();
        if let Some((i, c)) = code.char_indices().last() {
            if !code.trim_start().starts_with("/*") {
                return Some((start + i, start + i + c.len_utf8()));
            }
        }
        if start == 0 {
            return None;
        }
        end = start - 1;
    }
}
