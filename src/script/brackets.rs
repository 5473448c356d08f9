//! Which bracket a Rhai syntax error is about. Rhai reports a missing `)`, `]` or `}` where it
//! noticed, which is often the next line (`foo(1, 2` and a newline: "Expecting ',' to separate
//! the arguments to function call 'foo'" at the first token of the following line); the
//! bracket left open is found here so that the error can point at it too, as the NEON decoder
//! does for its brackets.

/// The bracket a syntax error `message` says is not closed: `(` for an argument list, `[` for
/// an array literal, `{` for an object map literal (`#{`). `None` for the other errors (a
/// block's `}` is not guessed: by count, the block left open is the outermost one, which is
/// rarely the one the script forgot to close).
pub(super) fn expected_closer(message: &str) -> Option<char> {
    if message.contains("arguments to function call") || message.starts_with("Expecting ')'") {
        Some('(')
    } else if message.contains("array literal") || message.starts_with("Expecting ']'") {
        Some('[')
    } else if message.contains("object map literal") {
        Some('{')
    } else {
        None
    }
}

/// The bracket left open before a closer that came too early: for "Unexpected '}'" (an array
/// `[` still open inside a map or block), the innermost open bracket at `end` when it is not
/// the one that closer closes. `None` for other messages.
pub(super) fn mismatched_before(message: &str, text: &str, end: usize) -> Option<(char, usize)> {
    let closer = message.strip_prefix("Unexpected '")?.chars().next()?;
    let matching = match closer {
        ')' => b'(',
        ']' => b'[',
        '}' => b'{',
        _ => return None,
    };
    let (open, at) = *open_brackets(text, end).last()?;
    (open != matching).then_some((char::from(open), at))
}

/// The byte offset of the innermost `open` bracket (`(`, `[` or `{`) still open at byte `end`
/// of the script `text`. `None` when every such bracket is closed.
pub(super) fn unclosed_before(text: &str, end: usize, open: char) -> Option<usize> {
    let open = u8::try_from(open).ok()?;
    open_brackets(text, end)
        .iter()
        .rev()
        .find(|(c, _)| *c == open)
        .map(|(_, at)| *at)
}

/// The brackets still open at byte `end` of the script `text`, outermost first (bracket, byte
/// offset), skipping strings (`"…"` with escapes, `` `…` ``, `'c'`) and comments (`// …`,
/// `/* … */`, which nest in Rhai). A closer that does not match the innermost open bracket is
/// ignored.
fn open_brackets(text: &str, end: usize) -> Vec<(u8, usize)> {
    let bytes = text.as_bytes();
    let end = end.min(bytes.len());
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'"' | b'`' | b'\'' => {
                let quote = bytes[i];
                i += 1;
                while i < end && bytes[i] != quote {
                    if bytes[i] == b'\\' && quote != b'`' {
                        i += 1;
                    }
                    if bytes[i.min(end - 1)] == b'\n' && quote != b'`' {
                        break; // an open string ends at the line (Rhai reports it itself)
                    }
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < end && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let mut depth = 1;
                i += 2;
                while i < end && depth > 0 {
                    if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 1;
                    } else if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 1;
                    }
                    i += 1;
                }
                continue;
            }
            c @ (b'(' | b'[' | b'{') => stack.push((c, i)),
            c @ (b')' | b']' | b'}') => {
                let opener = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if stack.last().is_some_and(|(o, _)| *o == opener) {
                    stack.pop();
                }
            }
            _ => {}
        }
        i += 1;
    }
    stack
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_innermost_open_bracket_of_the_kind_is_found() {
        let text = "fn f() {\n\tlet x = foo(1, bar(2), 3\n\tb.go();\n}\n";
        let end = text.find("b.go").unwrap();
        assert_eq!(
            unclosed_before(text, end, '('),
            text.find("foo(").map(|i| i + 3)
        );
        // Closed brackets, and brackets inside strings and comments, do not count.
        let text = "let a = [1, \"[\", '[', `[`]; // [\n/* [ /* [ */ */ let b = [2,\n3;";
        let end = text.rfind('3').unwrap();
        assert_eq!(unclosed_before(text, end, '['), text.rfind("[2"));
        assert_eq!(unclosed_before("let a = (1);\n", 12, '('), None);
    }

    #[test]
    fn a_closer_that_comes_too_early_names_the_bracket_left_open() {
        let text = "let m = #{\n\ta: [1, 2,\n};\n";
        let end = text.rfind('}').unwrap();
        assert_eq!(
            mismatched_before("Unexpected '}'", text, end),
            text.find('[').map(|i| ('[', i))
        );
        // The closer matches the innermost bracket: nothing to add.
        let text = "let m = #{a: [1]\n};";
        assert_eq!(
            mismatched_before("Unexpected '}'", text, text.rfind('}').unwrap()),
            None
        );
        assert_eq!(mismatched_before("Unexpected 'x'", text, 3), None);
    }

    #[test]
    fn only_brackets_the_message_names_are_looked_for() {
        assert_eq!(
            expected_closer("Expecting ',' to separate the arguments to function call 'foo'"),
            Some('(')
        );
        assert_eq!(
            expected_closer("Expecting ',' to separate the items of this array literal"),
            Some('[')
        );
        assert_eq!(
            expected_closer("Expecting '}' to end this object map literal"),
            Some('{')
        );
        assert_eq!(
            expected_closer("Expecting '}' to terminate this block"),
            None
        );
        assert_eq!(expected_closer("Open string is not terminated"), None);
    }
}
