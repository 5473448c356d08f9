//! Typing of unquoted literals and decoding of quoted strings (nette/neon 3.4 `LiteralNode`,
//! `StringNode`).

use super::value::Kind;

/// Types an unquoted literal. `is_key` is true when the literal is followed by `:`/`=`: keys
/// take only the number rules (no keywords, no dates). Errors: a date-like literal with parts out
/// of range (the message, positioned by the caller).
pub(crate) fn type_literal(text: &str, is_key: bool) -> Result<Kind, String> {
    match may_be_typed(text) {
        Typed::No => Ok(Kind::Str(text.into())),
        // a letter: a keyword or a string (numbers, `0x` numbers and dates start otherwise)
        Typed::Keyword => Ok(match is_key {
            false => keyword(text).unwrap_or_else(|| Kind::Str(text.into())),
            true => Kind::Str(text.into()),
        }),
        Typed::Any => type_any_literal(text, is_key),
    }
}

/// The value of a keyword (`true`, `yes`, `null`, ... in their accepted cases).
fn keyword(text: &str) -> Option<Kind> {
    match text {
        "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" => Some(Kind::Bool(true)),
        "false" | "False" | "FALSE" | "no" | "No" | "NO" => Some(Kind::Bool(false)),
        "null" | "Null" | "NULL" => Some(Kind::Null),
        _ => None,
    }
}

/// [`type_literal`] without the shortcut for literals that can only be strings.
fn type_any_literal(text: &str, is_key: bool) -> Result<Kind, String> {
    if !is_key {
        if let Some(k) = keyword(text) {
            return Ok(k);
        }
    }
    if let Some(k) = numeric(text) {
        return Ok(k);
    }
    for (prefix, radix, digit_ok) in [
        ("0x", 16, (|b: u8| b.is_ascii_hexdigit()) as fn(u8) -> bool),
        ("0o", 8, |b: u8| (b'0'..=b'7').contains(&b)),
        ("0b", 2, |b: u8| b == b'0' || b == b'1'),
    ] {
        if let Some(digits) = text.strip_prefix(prefix) {
            if !digits.is_empty() && digits.bytes().all(digit_ok) {
                return Ok(radix_value(digits, radix));
            }
        }
    }
    if !is_key {
        if let Some(d) = super::date::parse(text) {
            return d.map(Kind::Date);
        }
    }
    Ok(Kind::Str(text.into()))
}

/// What a literal can be, by its first byte alone.
enum Typed {
    /// Only a string: most literals of a configuration (names, classes, references).
    No,
    /// A keyword or a string: it starts with one of `t T y Y f F n N`.
    Keyword,
    /// Anything: it starts with what a number (after PHP's leading white space), a
    /// `0x`/`0o`/`0b` number or a date starts with (a digit, a sign, `.`, white space), or it
    /// is empty.
    Any,
}

/// Can `text` be anything but a string? Decided by its first byte (see [`Typed`]): a keyword
/// starts with one of `t T y Y f F n N`, a number (after PHP's leading white space) with a
/// digit, a sign or `.`, a `0x`/`0o`/`0b` number and a date with a digit.
fn may_be_typed(text: &str) -> Typed {
    match text.as_bytes().first() {
        Some(b't' | b'T' | b'y' | b'Y' | b'f' | b'F' | b'n' | b'N') => Typed::Keyword,
        Some(
            b'0'..=b'9' | b'+' | b'-' | b'.' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c',
        )
        | None => Typed::Any,
        Some(_) => Typed::No,
    }
}

/// PHP's `is_numeric($s) ? $s * 1 : null`, with the reference's rule that an integer that
/// overflows (no `.`, `e`, `E` in the text) stays the original string.
fn numeric(text: &str) -> Option<Kind> {
    let ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}');
    let t = text.trim_start_matches(ws).trim_end_matches(ws);
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    let mut is_float = false;
    if i < b.len() && b[i] == b'.' {
        is_float = true;
        i += 1;
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - s;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let s = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j == s {
            return None;
        }
        is_float = true;
        i = j;
    }
    if i != b.len() {
        return None;
    }
    if !is_float {
        let unsigned = t.trim_start_matches('+');
        return Some(match unsigned.parse::<i64>() {
            Ok(n) => Kind::Int(n),
            // PHP would make it a float; the reference keeps the text.
            Err(_) => Kind::Str(text.into()),
        });
    }
    t.parse::<f64>().ok().map(Kind::Float)
}

/// The value of hex/octal/binary digits: an int when it fits, else its decimal text.
fn radix_value(digits: &str, radix: u32) -> Kind {
    // Little-endian base-1e9 limbs: no overflow for any length.
    let mut limbs: Vec<u64> = vec![0];
    for c in digits.chars() {
        let mut carry = c.to_digit(radix).unwrap_or(0) as u64;
        for limb in limbs.iter_mut() {
            let v = *limb * radix as u64 + carry;
            *limb = v % 1_000_000_000;
            carry = v / 1_000_000_000;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    let mut s = limbs.last().copied().unwrap_or(0).to_string();
    for limb in limbs.iter().rev().skip(1) {
        s.push_str(&format!("{limb:09}"));
    }
    match s.parse::<i64>() {
        Ok(n) => Kind::Int(n),
        Err(_) => Kind::Str(s.into()),
    }
}

/// PHP's `(string) $float` with the default `precision` of 14 (used for float keys).
pub(crate) fn php_float_to_string(f: f64) -> String {
    if f.is_nan() {
        return "NAN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "INF".into() } else { "-INF".into() };
    }
    let neg = f.is_sign_negative();
    if f == 0.0 {
        return if neg { "-0".into() } else { "0".into() };
    }
    // 14 significant digits, correctly rounded: d.ddddddddddddde±x
    let sci = format!("{:.13e}", f.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let decpt = exp + 1;
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if !(-3..=14).contains(&decpt) {
        let e = decpt - 1;
        out.push_str(&digits[..1]);
        out.push('.');
        if digits.len() == 1 {
            out.push('0');
        } else {
            out.push_str(&digits[1..]);
        }
        out.push('E');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&e.abs().to_string());
    } else if decpt <= 0 {
        out.push_str("0.");
        for _ in 0..(-decpt) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let d = decpt as usize;
        if digits.len() <= d {
            out.push_str(digits);
            for _ in digits.len()..d {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..d]);
            out.push('.');
            out.push_str(&digits[d..]);
        }
    }
    out
}

/// A bad escape in a double-quoted string: the message, and where the sequence is inside the
/// token (byte offset and length), so the error can point at the escape itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EscapeError {
    /// nette/neon's message (`Invalid escaping sequence \x`, `Invalid UTF-8 sequence \uDC00`).
    pub message: String,
    /// Byte offset of the backslash from the start of the token.
    pub offset: usize,
    /// Byte length of the sequence.
    pub len: usize,
}

/// Decodes a quoted string token (`'...'`, `"..."`, `'''`/`"""` blocks).
/// Errors: a bad escape, with its position inside the token.
pub(crate) fn decode_string(s: &str) -> Result<String, EscapeError> {
    let bytes = s.as_bytes();
    let quote = bytes[0];
    // The body, and for each of its bytes the offset in `s` it came from.
    let (body, origin): (String, Vec<usize>) = if bytes.len() > 3 && bytes[3] == b'\n' {
        // multi-line: drop the indentation of the first content line from every line
        let after = s[3..].trim_start_matches('\n');
        let indent_len = after
            .bytes()
            .take_while(|&b| b == b' ' || b == b'\t')
            .count();
        let indent = &after[..indent_len];
        let inner = &s[3..s.len() - 3];
        let mut res = String::with_capacity(inner.len());
        let mut origin = Vec::with_capacity(inner.len());
        let mut i = 0;
        while i < inner.len() {
            let ch_len = inner[i..].chars().next().map_or(1, char::len_utf8);
            res.push_str(&inner[i..i + ch_len]);
            origin.extend((0..ch_len).map(|k| 3 + i + k));
            if inner.as_bytes()[i] == b'\n'
                && !indent.is_empty()
                && inner[i + 1..].starts_with(indent)
            {
                i += 1 + indent.len();
            } else {
                i += ch_len;
            }
        }
        let mut start = 0;
        if res.starts_with('\n') {
            start = 1;
        }
        let mut end = res.len();
        if let Some(nl) = res[start..].rfind('\n') {
            let nl = nl + start;
            if res[nl + 1..].bytes().all(|b| b == b' ' || b == b'\t') {
                end = nl;
            }
        }
        let end = end.max(start);
        (res[start..end].to_string(), origin[start..end].to_vec())
    } else {
        let inner = &s[1..s.len() - 1];
        if quote == b'\'' {
            (inner.replace("''", "'"), Vec::new())
        } else {
            (inner.to_string(), (1..s.len() - 1).collect())
        }
    };
    if quote == b'\'' {
        return Ok(body);
    }
    unescape(&body).map_err(|(message, at, len)| {
        let offset = origin.get(at).copied().unwrap_or(0);
        let end = origin
            .get(at + len.max(1) - 1)
            .map_or(offset + len, |&e| e + 1);
        EscapeError {
            message,
            offset,
            len: end.saturating_sub(offset).max(1),
        }
    })
}

fn hex4(s: &str) -> Option<u32> {
    if s.len() >= 4 && s.as_bytes()[..4].iter().all(u8::is_ascii_hexdigit) {
        u32::from_str_radix(&s[..4], 16).ok()
    } else {
        None
    }
}

/// Processes the escapes of a double-quoted string. Errors: the message, and the byte offset
/// and length of the bad sequence in `s`.
fn unescape(s: &str) -> Result<String, (String, usize, usize)> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let at = s.len() - rest.len() + i;
        let after = &rest[i + 1..];
        let mut chars = after.chars();
        let Some(c) = chars.next() else {
            out.push('\\');
            rest = after;
            break;
        };
        if c == '\n' {
            // `.` does not match a line break: the backslash stays as written
            out.push('\\');
            rest = after;
            continue;
        }
        if c == 'u' || c == 'U' {
            // a surrogate pair, then a single \uXXXX
            if let (Some(hi), true) = (hex4(&after[1..]), after.len() >= 11) {
                let tail = &after[5..];
                if (0xD800..0xDC00).contains(&hi)
                    && tail.starts_with('\\')
                    && matches!(tail.as_bytes()[1], b'u' | b'U')
                {
                    if let Some(lo) = hex4(&tail[2..]).filter(|lo| (0xDC00..0xE000).contains(lo)) {
                        let sq = &rest[i..i + 12];
                        if c == 'U' {
                            return Err((format!("Invalid escaping sequence {sq}"), at, sq.len()));
                        }
                        if tail.as_bytes()[1] == b'U' {
                            return Err((format!("Invalid UTF-8 sequence {sq}"), at, sq.len()));
                        }
                        let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                        rest = &after[11..];
                        continue;
                    }
                }
            }
            if let Some(cp) = hex4(&after[1..]) {
                let sq = &rest[i..i + 6];
                if c == 'U' {
                    return Err((format!("Invalid escaping sequence {sq}"), at, sq.len()));
                }
                match char::from_u32(cp) {
                    Some(ch) => out.push(ch),
                    None => return Err((format!("Invalid UTF-8 sequence {sq}"), at, sq.len())),
                }
                rest = &after[5..];
                continue;
            }
        }
        let mapped = match c {
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            'f' => '\u{c}',
            'b' => '\u{8}',
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            '_' => '\u{a0}',
            _ => {
                return Err((
                    format!("Invalid escaping sequence \\{c}"),
                    at,
                    1 + c.len_utf8(),
                ))
            }
        };
        out.push(mapped);
        rest = &after[c.len_utf8()..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(type_literal("0777", false), Ok(Kind::Int(777)));
        assert_eq!(type_literal("-0", false), Ok(Kind::Int(0)));
        assert_eq!(type_literal("5.e1", false), Ok(Kind::Float(50.0)));
        assert_eq!(
            type_literal("9223372036854775808", false),
            Ok(Kind::Str("9223372036854775808".into()))
        );
        assert_eq!(
            type_literal("-9223372036854775808", false),
            Ok(Kind::Int(i64::MIN))
        );
        assert_eq!(
            type_literal("0xFFFFFFFFFFFFFFFF", false),
            Ok(Kind::Str("18446744073709551615".into()))
        );
        assert_eq!(type_literal("0b101", false), Ok(Kind::Int(5)));
        assert_eq!(type_literal("1_000", false), Ok(Kind::Str("1_000".into())));
        assert_eq!(type_literal("12e", false), Ok(Kind::Str("12e".into())));
        assert_eq!(type_literal("true", true), Ok(Kind::Str("true".into())));
    }

    #[test]
    fn float_keys_print_like_php() {
        assert_eq!(php_float_to_string(1.5), "1.5");
        assert_eq!(php_float_to_string(100.0), "100");
        assert_eq!(php_float_to_string(1e25), "1.0E+25");
        assert_eq!(php_float_to_string(1.5e-7), "1.5E-7");
        assert_eq!(php_float_to_string(0.0001), "0.0001");
        assert_eq!(php_float_to_string(-0.0), "-0");
        assert_eq!(php_float_to_string(0.1 + 0.2), "0.3");
    }

    #[test]
    fn strings() {
        assert_eq!(decode_string("'it''s'").unwrap(), "it's");
        assert_eq!(decode_string(r#""\u00e9\_""#).unwrap(), "é\u{a0}");
        assert_eq!(decode_string(r#""\uD83D\uDE00""#).unwrap(), "😀");
        assert_eq!(
            decode_string(r#""\x41""#).unwrap_err().message,
            "Invalid escaping sequence \\x"
        );
        assert_eq!(
            decode_string(r#""\uDC00""#).unwrap_err().message,
            "Invalid UTF-8 sequence \\uDC00"
        );
        assert_eq!(
            decode_string("'''\n  x\n    y\n  z\n  '''").unwrap(),
            "x\n  y\nz"
        );
        assert_eq!(decode_string("'''\n\nx\n'''").unwrap(), "\nx");
    }

    #[test]
    fn escape_errors_point_at_the_sequence() {
        let e = decode_string(r#""ab\qc""#).unwrap_err();
        assert_eq!((e.offset, e.len), (3, 2));
        // In a block, past the removed indentation of the later lines.
        let block = "\"\"\"\n\t\tok\n\t\tbad \\e here\n\t\t\"\"\"";
        let e = decode_string(block).unwrap_err();
        assert_eq!(e.message, "Invalid escaping sequence \\e");
        assert_eq!(&block[e.offset..e.offset + e.len], "\\e");
    }

    proptest::proptest! {
        /// The shortcuts say "string" or "keyword or string" only where the full typing says
        /// so too.
        #[test]
        fn the_string_shortcut_agrees_with_full_typing(
            text in "[ -~\t\x0b\x0cé]{0,12}|[tTyYfFnN][0-9a-zA-Z:. -]{0,8}",
            is_key: bool,
        ) {
            let full = type_any_literal(&text, is_key);
            match may_be_typed(&text) {
                Typed::No => proptest::prop_assert_eq!(
                    full.clone(),
                    Ok(Kind::Str(text.as_str().into()))
                ),
                Typed::Keyword => proptest::prop_assert!(matches!(
                    full,
                    Ok(Kind::Str(_) | Kind::Bool(_) | Kind::Null)
                )),
                Typed::Any => {}
            }
            proptest::prop_assert_eq!(
                type_literal(&text, is_key),
                type_any_literal(&text, is_key)
            );
        }
    }
}
