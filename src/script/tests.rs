use super::*;

/// `()` as an argument type, not the empty argument list of a call without arguments.
#[test]
fn a_unit_argument_is_told_from_no_arguments() {
    assert!(unit_argument("+ (i64, ())"));
    assert!(unit_argument("addTag (Definition, (), string)"));
    assert!(!unit_argument("foo ()"));
    assert!(!unit_argument("+ (i64, string)"));
}

/// The lifecycle warnings of `text` as (line of the label, message).
fn warnings(text: &str) -> Vec<(usize, String)> {
    let mut sources = SourceMap::default();
    let file = sources.add("ext.rhai", text);
    let ext = Extension::compile(&engine(&Limits::default()), "m", file, &sources)
        .expect("the script compiles");
    ext.lifecycle_warnings(&sources)
        .into_iter()
        .map(|d| {
            assert_eq!(d.code, Code::LifecycleSignature);
            let at = d.primary_span().expect("a label").start;
            (text[..at as usize].lines().count() + 1, d.message)
        })
        .collect()
}

/// The labels of the syntax error in `text`: (line, message), primary first.
fn syntax_error_labels(text: &str) -> Vec<(usize, String)> {
    let mut sources = SourceMap::default();
    let file = sources.add("ext.rhai", text);
    let Err(d) = Extension::compile(&engine(&Limits::default()), "m", file, &sources) else {
        panic!("a syntax error");
    };
    assert_eq!(d.code, Code::ScriptError);
    let mut labels: Vec<_> = d.labels.iter().collect();
    labels.sort_by_key(|l| !l.primary);
    labels
        .into_iter()
        .map(|l| {
            let line = text[..l.span.start as usize].lines().count();
            (line.max(1), l.message.clone())
        })
        .collect()
}

#[test]
fn a_bracket_left_open_on_an_earlier_line_is_pointed_at() {
    // Rhai notices the missing `)` at the next line.
    assert_eq!(
        syntax_error_labels("fn f() {\n\tlet x = foo(1, 2\n\tlet y = 3;\n}\n"),
        [
            (3, String::new()),
            (2, "this '(' is still open".to_string())
        ]
    );
    // An array left open inside a map: "Unexpected '}'" at the map's end.
    assert_eq!(
        syntax_error_labels("fn f() {\n\tlet m = #{\n\t\tb: [1, 2,\n\t};\n}\n"),
        [
            (4, String::new()),
            (3, "this '[' is still open".to_string())
        ]
    );
    // On the same line, the caret is enough.
    assert_eq!(
        syntax_error_labels("fn f() {\n\tlet x = [1, 2, 3;\n}\n"),
        [(2, String::new())]
    );
}

#[test]
fn nettes_default_says_what_to_write_instead() {
    let mut sources = SourceMap::default();
    let file = sources.add(
        "ext.rhai",
        "fn getConfigSchema() {\n\tExpect::string().default(\"x\")\n}\n",
    );
    let Err(d) = Extension::compile(&engine(&Limits::default()), "m", file, &sources) else {
        panic!("a syntax error");
    };
    assert!(
        d.message.ends_with("'default' is a reserved keyword"),
        "{}",
        d.message
    );
    assert_eq!(
        d.notes,
        ["Nette's Expect::...->default(value) is `.defaultValue(value)` here: `default` is reserved in Rhai (docs/scripting-api.md)"]
    );
}

/// A reserved word as a map key or a property read (a Nette configuration's `default:`
/// connection, `this.config.static`) is quoted or read with brackets; the hint about Nette's
/// `->default()` is for a method call only (a new user's trial).
#[test]
fn a_reserved_word_as_a_key_says_to_quote_it() {
    let notes = |code: &str| {
        let mut sources = SourceMap::default();
        let file = sources.add("ext.rhai", code);
        let Err(d) = Extension::compile(&engine(&Limits::default()), "m", file, &sources) else {
            panic!("a syntax error in {code}");
        };
        d.notes
    };
    assert_eq!(
        notes("fn getConfigSchema() {\n\tExpect::structure(#{ default: Expect::string() })\n}\n"),
        ["'default' is reserved in Rhai: quote a map key of that name, #{ \"default\": … }, and read it back with brackets, map[\"default\"]"]
    );
    assert_eq!(
        notes("fn loadConfiguration() {\n\tlet s = this.config.static;\n}\n"),
        ["'static' is reserved in Rhai: read a key or property of that name with brackets, [\"static\"] (this.config[\"static\"])"]
    );
}

#[test]
fn a_missing_semicolon_is_pointed_at_where_the_statement_ends() {
    // Rhai notices it where the next statement starts; the end of the one before is labelled,
    // past blank lines and a trailing comment, on a character boundary.
    assert_eq!(
        syntax_error_labels("fn f() {\n\tlet x = \"é\" // note\n\n\tlet y = 3;\n}\n"),
        [(4, String::new()), (2, "add ';' after this".to_string())]
    );
    // An error inside a line, or after a statement that has its ';', gets no such label.
    assert_eq!(
        syntax_error_labels("fn f() {\n\tlet b = 1;\n\tlet g == 2;\n}\n"),
        [(3, String::new())]
    );
    let text = "fn f() {\n\tlet x = \"é\"\n\tlet y = 3;\n}\n";
    let end = super::syntax_hints::statement_end_before(text, text.find("\tlet y").unwrap());
    let quote = text.find("\"\n").unwrap();
    assert_eq!(end, Some((quote, quote + 1)));
    // Nothing before the first line.
    assert_eq!(super::syntax_hints::statement_end_before("let y", 2), None);
}

#[test]
fn lifecycle_functions_of_the_wrong_shape_are_warned_about_in_text_order() {
    let w =
        warnings("fn loadConfiguration(extra) {}\nfn afterCompile() {}\nfn beforecompile() {}\n");
    assert_eq!(
        w,
        vec![
            (
                1,
                "Extension 'm': loadConfiguration() takes no parameters (fn \
                 loadConfiguration()), this one takes 1, so the compiler never calls it."
                    .to_string()
            ),
            (
                2,
                "Extension 'm': afterCompile() takes one parameter (fn afterCompile(plan)), \
                 this one takes 0, so the compiler never calls it."
                    .to_string()
            ),
            (
                3,
                "Extension 'm': 'beforecompile' is not a lifecycle function, so the compiler \
                 never calls it; did you mean 'beforeCompile'?"
                    .to_string()
            ),
        ]
    );
}

#[test]
fn a_helper_beside_the_right_lifecycle_function_is_not_warned_about() {
    // Rhai overloads by arity: `beforeCompile(x)` is a helper when `beforeCompile()` exists.
    let w = warnings(
        "fn beforeCompile() { beforeCompile(1) }\nfn beforeCompile(x) {}\n\
         fn beforecompile(x) {}\nfn afterCompile(plan) {}\nfn helper() {}\n",
    );
    assert_eq!(w, vec![]);
}
