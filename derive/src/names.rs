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

#[cfg(test)]
mod tests {
    use super::*;

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
