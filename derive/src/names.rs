//! Catalog names derived from Rust names.

/// `set_level` → `setLevel`, `line_count` → `lineCount`, `raw` → `raw`. Leading underscores are
/// kept (`_private` → `_private`); a `r#` prefix is dropped.
pub(crate) fn camel_case(rust: &str) -> String {
    let rust = rust.strip_prefix("r#").unwrap_or(rust);
    let body = rust.trim_start_matches('_');
    let mut out: String = rust[..rust.len() - body.len()].to_string();
    let mut upper_next = false;
    for (i, c) in body.chars().enumerate() {
        if c == '_' {
            upper_next = i > 0;
        } else if upper_next {
            out.extend(c.to_uppercase());
            upper_next = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A property name from a writer (`set_verbose` → `verbose`) or a getter (`get_path` →
/// `path`): the prefix is dropped when something follows it, then camelCase.
pub(crate) fn property_name(rust: &str, prefix: &str) -> String {
    let rust = rust.strip_prefix("r#").unwrap_or(rust);
    match rust.strip_prefix(prefix) {
        Some(rest) if !rest.is_empty() => camel_case(rest),
        _ => camel_case(rust),
    }
}

/// Type names a class or interface may not take: the catalog's built-in types (and PHP's
/// reserved words among them), which the compiler reads as those types.
const BUILTIN: &[&str] = &[
    "int", "float", "string", "bool", "array", "mixed", "object", "callable", "iterable", "null",
    "void", "never", "self", "static", "parent", "false", "true", "list",
];

/// Why `name` cannot be a catalog class or interface name (`App\\Mailer`): each part between
/// backslashes must be a name (a letter or `_`, then letters, digits or `_`; non-ASCII letters
/// allowed, as PHP's are), and the whole no built-in type. `None` when it can. The compiler
/// refuses such a catalog later, pointing into the generated file instead of the Rust code.
pub(crate) fn class_name_problem(name: &str) -> Option<String> {
    let body = name.strip_prefix('\\').unwrap_or(name);
    if body.split('\\').any(|part| !is_identifier(part)) {
        return Some(format!(
            "`{name}` is no class name: each part between backslashes is a name (letters, \
             digits and `_`, not starting with a digit), e.g. \"App\\\\Mailer\""
        ));
    }
    if BUILTIN.iter().any(|b| b.eq_ignore_ascii_case(body)) {
        return Some(format!(
            "`{name}` is a built-in type of the catalog, not a class name; use a namespaced \
             name such as \"App\\\\{name}\""
        ));
    }
    None
}

/// Why `name` cannot be a catalog method, property or constant name: `None` when it is a
/// name (letters, digits and `_`, not starting with a digit).
pub(crate) fn member_name_problem(name: &str) -> Option<String> {
    (!is_identifier(name)).then(|| {
        format!("`{name}` is no member name: letters, digits and `_`, not starting with a digit")
    })
}

/// A PHP-style name: a letter, `_` or a non-ASCII character, then those or digits.
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_alphabetic() || !c.is_ascii())
        && chars.all(|c| c == '_' || c.is_alphanumeric() || !c.is_ascii())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_names_are_checked_as_the_compiler_reads_them() {
        for ok in [
            "App\\Mailer",
            "\\App\\Mailer",
            "Mailer",
            "App\\Žluť",
            "_x\\Y2",
        ] {
            assert_eq!(class_name_problem(ok), None, "{ok}");
        }
        for bad in [
            "App\\With Space",
            "App\\1Logger",
            "App\\",
            "int",
            "String2 x",
            "Mixed",
        ] {
            assert!(class_name_problem(bad).is_some(), "{bad}");
        }
        assert_eq!(member_name_problem("setLevel"), None);
        assert!(member_name_problem("set level").is_some());
        assert!(member_name_problem("2x").is_some());
    }

    #[test]
    fn camel_case_joins_words() {
        assert_eq!(camel_case("set_level"), "setLevel");
        assert_eq!(camel_case("line_count_total"), "lineCountTotal");
        assert_eq!(camel_case("run"), "run");
        assert_eq!(camel_case("_hidden_one"), "_hiddenOne");
        assert_eq!(camel_case("r#type"), "type");
        assert_eq!(camel_case("already2_x"), "already2X");
    }

    #[test]
    fn property_names_drop_the_accessor_prefix() {
        assert_eq!(property_name("set_verbose", "set_"), "verbose");
        assert_eq!(property_name("set_max_size", "set_"), "maxSize");
        assert_eq!(property_name("get_path", "get_"), "path");
        assert_eq!(property_name("path", "get_"), "path");
        assert_eq!(property_name("set_", "set_"), "set");
    }
}
