//! Data-driven compiler tests: every folder under `tests/fixtures/compile/` holds a
//! `config.neon` (plus included files and scripts) and an `expected.json` in the format of the
//! DI conformance cases, optionally with `file`, `line` and `column` of the expected
//! diagnostic. A folder without `expected.json` is an error in the fixture set.

mod common;

use std::path::Path;

/// The multi-file fixture `name` under `tests/fixtures/multi` (the folder itself for `""`).
fn multi(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/multi")
        .join(name)
}

/// Compiles the multi-file fixture `name` with default options.
fn compile_multi(name: &str) -> wireplan::compiler::Compilation {
    wireplan::compiler::compile(&multi(name), &wireplan::compiler::Options::default())
}

#[test]
fn compile_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compile");
    for entry in std::fs::read_dir(&dir).expect("fixtures folder") {
        let path = entry.expect("entry").path();
        assert!(
            path.join("expected.json").is_file(),
            "fixture {} has no expected.json",
            path.display()
        );
    }
    let (passed, failed) = common::run_cases(&dir, None);
    assert!(failed.is_empty(), "failures:\n{}", failed.join("\n"));
    assert!(passed.len() >= 7, "only {} fixtures ran", passed.len());
}

#[test]
fn independent_errors_are_all_reported() {
    let path = multi("five-errors.neon");
    let got = common::codes_and_lines(&path);
    let expected = [
        ("missing-parameter", 14),
        ("unknown-option", 18),
        ("class-not-found", 15),
        ("missing-argument", 16),
        ("missing-service", 19),
    ];
    for (code, line) in expected {
        assert!(
            got.contains(&(code.to_string(), line)),
            "missing {code} at line {line}; got {got:?}"
        );
    }
    assert_eq!(got.len(), 5, "{got:?}");
}

/// Keys that a definition's kind does not take (Nette's schema per kind) are each an error at
/// the key, and nothing else: they are not applied, so no follow-up error appears (an
/// accessor's `arguments` used to end in "Class '' not found").
#[test]
fn keys_a_definition_kind_does_not_take_are_each_reported_once() {
    let path = multi("definition-keys.neon");
    let got = common::codes_and_lines(&path);
    let expected: Vec<(String, usize)> = [20, 22, 23, 26, 28, 33, 34]
        .into_iter()
        .map(|line| ("unknown-option".to_string(), line))
        .collect();
    assert_eq!(got, expected);
}

/// A `types:` section that is no map of classes (a list of names, a scalar) is one error at
/// its value, and the services are not checked against the empty catalog it leaves: each
/// service gave a `class-not-found` too, and a list gave two errors per item.
#[test]
fn a_types_section_that_is_no_map_is_one_error() {
    let dir = multi("");
    for (file, line) in [("types-list.neon", 4), ("types-scalar.neon", 2)] {
        let got = common::codes_and_lines(&dir.join(file));
        assert_eq!(got, [("invalid-value".to_string(), line)], "{file}");
    }
}

/// A section's schema errors come in the order they are written (the schema visits its keys
/// in its own order, which had put `tags` before `autowired` before `lifespan`).
#[test]
fn schema_errors_are_reported_in_the_order_written() {
    let path = multi("schema-order.neon");
    let got = common::codes_and_lines(&path);
    let expected: Vec<(String, usize)> = [7, 8, 9]
        .into_iter()
        .map(|line| ("invalid-value".to_string(), line))
        .collect();
    assert_eq!(got, expected);
}

/// An `extensions:` entry of the wrong kind is reported and skipped; the other entries are
/// still loaded, so their own errors come in the same run (one had hidden all the others).
#[test]
fn one_bad_extension_entry_does_not_hide_the_others() {
    let path = multi("extensions-errors.neon");
    let mut got = common::codes_and_lines(&path);
    got.sort_by_key(|(_, line)| *line);
    let expected: Vec<(String, usize)> = [
        ("file-not-found", 2),
        ("invalid-value", 3),
        ("file-not-found", 4),
    ]
    .into_iter()
    .map(|(code, line)| (code.to_string(), line))
    .collect();
    assert_eq!(got, expected);
}

/// An argument no parameter takes (an unknown name, an extra position) is an error, and what
/// it holds is still checked: a missing service inside it is reported beside it (it was
/// hidden; found by a new user's trial).
#[test]
fn values_no_parameter_takes_are_still_checked() {
    let path = multi("unused-arguments.neon");
    let got = common::codes_and_lines(&path);
    assert_eq!(
        got,
        [
            ("unknown-argument".to_string(), 4),
            ("missing-service".to_string(), 4),
            ("unknown-argument".to_string(), 5),
            ("missing-service".to_string(), 5),
        ]
    );
}

/// `class` beside `type` is one error (Nette's "Options 'class' and 'type' are aliases"), not
/// followed by a `missing-argument` for the argument the `class` statement gives (found by a
/// new user's trial).
#[test]
fn class_beside_type_is_one_error() {
    let path = multi("class-and-type.neon");
    assert_eq!(
        common::codes_and_lines(&path),
        [("invalid-definition".to_string(), 4)]
    );
}

/// The one `circular-reference` error of compiling `path`, rendered for people.
fn one_cycle_rendered(path: &Path) -> String {
    let result = wireplan::compiler::compile(path, &wireplan::compiler::Options::default());
    let cycle: Vec<_> = result
        .diagnostics
        .items()
        .iter()
        .filter(|d| d.code == wireplan::diagnostics::Code::CircularReference)
        .cloned()
        .collect();
    assert_eq!(cycle.len(), 1, "{cycle:?}");
    wireplan::diagnostics::render_to_string(&result.sources, &cycle)
}

/// Each step of a cycle that is written (a constructor argument, a setup call) is labelled
/// where it is written, beside the error at the first service (a step made at the REPL's
/// prompt is labelled there: tests/repl.rs).
#[test]
fn each_written_step_of_a_cycle_is_labelled() {
    let text = one_cycle_rendered(&multi("cycle-labels.neon"));
    // (Tabs are rendered as four spaces.)
    for expected in [
        "4 │     a: App\\A(@b)",
        "  │              'a' needs 'b' here",
        "8 │             - setA(@a)",
        "  │                    -- 'b' needs 'a' here",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
}

/// A step of a cycle is labelled where the reference is, not at a constant read of the same
/// service written before it (`@a::LIMIT` in `create` is substituted when compiling; a Nette
/// user's trial found the label there while the note said "in its setup").
#[test]
fn a_cycle_step_is_not_labelled_at_a_constant_read() {
    let text = one_cycle_rendered(&multi("cycle-label-constant.neon"));
    assert!(
        text.contains("9 │             - setA(@a)\n  │                    -- 'b' needs 'a' here"),
        "{text}"
    );
    assert!(
        !text.contains("LIMIT)\n  │"),
        "labelled at the constant:\n{text}"
    );
}

/// A script's `setArgument()` places the errors about the value it wrote at its call, and no
/// others: an autowired argument's ambiguity stays at the definition (it had moved to the
/// script's line; found by a new user's trial).
#[test]
fn a_script_argument_moves_only_its_own_errors() {
    let path = multi("set-argument/app.neon");
    let got = codes_files_lines(&path);
    assert_eq!(
        got,
        [
            ("ambiguous-service".to_string(), "app.neon".to_string(), 8),
            ("invalid-value".to_string(), "x.rhai".to_string(), 2),
        ]
    );
}

/// A type written wrong in the catalog is one error at the type, not also a `missing-argument`
/// at every service of the class (second new user's trial: 10 errors for 4).
#[test]
fn a_wrong_catalog_type_is_reported_once() {
    let path = multi("catalog-type-errors.neon");
    assert_eq!(
        common::codes_and_lines(&path),
        [
            ("invalid-value".to_string(), 8),
            ("invalid-value".to_string(), 11),
        ]
    );
}

/// A `type:` the constructor's class is not is one error; the service is then checked as the
/// class it really makes, so its setup gets no "not callable" against the refused type
/// (second new user's trial).
#[test]
fn a_refused_declared_type_is_not_used_afterwards() {
    let path = multi("declared-type-refused.neon");
    assert_eq!(
        common::codes_and_lines(&path),
        [("invalid-definition".to_string(), 5)]
    );
}

/// What a script's `addSetup()` writes is placed at its call: a missing service among its
/// arguments is reported there, as a wrong value is (it pointed at the service's
/// configuration; third new user's trial).
#[test]
fn a_script_setup_is_reported_at_its_call() {
    let path = multi("add-setup/app.neon");
    let got = codes_files_lines(&path);
    assert_eq!(
        got,
        [
            ("missing-service".to_string(), "x.rhai".to_string(), 3),
            ("invalid-value".to_string(), "x.rhai".to_string(), 4),
        ]
    );
}

/// A `T[]` parameter (a list of services) is checked at compile time: a scalar or a list with
/// an item that is not a `T` service is an error at the argument; written, `typed()` and
/// `tagged()` lists of `T` services pass (third new user's trial: all compiled, then failed at
/// run time).
#[test]
fn a_list_of_services_parameter_is_checked() {
    let path = multi("list-parameter.neon");
    let got = common::codes_and_lines(&path);
    let expected: Vec<(String, usize)> =
        (6..=10).map(|l| ("invalid-value".to_string(), l)).collect();
    assert_eq!(got, expected);
}

/// The diagnostics of compiling `path`: (code, file name without its folder, line), in order.
fn codes_files_lines(path: &Path) -> Vec<(String, String, usize)> {
    let result = wireplan::compiler::compile(path, &wireplan::compiler::Options::default());
    wireplan::diagnostics::to_json(&result.sources, result.diagnostics.items())
        .into_iter()
        .map(|d| {
            let file = d.file.unwrap_or_default();
            let name = file.rsplit('/').next().unwrap_or_default().to_string();
            (d.code.to_string(), name, d.line.unwrap_or(0))
        })
        .collect()
}

/// A later file that gives an argument by name replaces the one an earlier file gave at its
/// position, silently (Nette's override); in one list, the dropped value is warned about
/// (`args-named-and-positional` in the fixtures).
#[test]
fn a_named_argument_in_a_later_file_overrides_a_positional_one_quietly() {
    let result = compile_multi("named-override/app.neon");
    let plan = result.plan.expect("compiles");
    let args = &plan.services["metrics"].create;
    assert_eq!(
        serde_json::to_value(args).unwrap()["args"],
        serde_json::json!(["local"])
    );
    assert!(
        result.diagnostics.items().is_empty(),
        "{:?}",
        result.diagnostics.items()
    );
}

/// A misspelt named argument is one error, at the name, with the parameter it was meant for;
/// that parameter's missing-argument or missing-service error only restated it (a Nette
/// user's trial: `$idd` was followed by "Parameter $id ... must be specified"). A name close
/// to no open parameter leaves the missing one reported.
#[test]
fn a_misspelt_argument_name_is_not_also_a_missing_argument() {
    let path = multi("misspelt-argument-name.neon");
    let got = common::codes_and_lines(&path);
    let expected: Vec<(String, usize)> = [
        ("unknown-argument", 12),
        ("unknown-argument", 13),
        ("missing-argument", 15),
        ("unknown-argument", 15),
    ]
    .into_iter()
    .map(|(code, line)| (code.to_string(), line))
    .collect();
    let mut sorted = got.clone();
    sorted.sort_by_key(|(_, line)| *line);
    assert_eq!(sorted, expected, "{got:?}");
}

/// A script's `addSetup` on a service whose class is misspelt: the resolution's
/// `class-not-found` is reported once, and without the note that the extension changed the
/// service (it was repeated with that note, which sent the user to the script; a new user's
/// trial).
#[test]
fn an_error_is_not_repeated_because_a_script_touched_the_service() {
    let result = compile_multi("setup-on-misspelt/config.neon");
    let items = result.diagnostics.items();
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0].code.to_string(), "class-not-found");
    assert!(
        items[0].notes.iter().all(|n| !n.contains("was changed by")),
        "{:?}",
        items[0].notes
    );
}

/// A reference to a service whose name was refused (`"my logger"`) says that its
/// `missing-service` follows from the `invalid-definition`, and where that service is written.
#[test]
fn a_reference_to_a_refused_name_says_it_follows_from_it() {
    let result = compile_multi("refused-name.neon");
    let items = result.diagnostics.items();
    let codes: Vec<String> = items.iter().map(|d| d.code.to_string()).collect();
    assert_eq!(
        codes,
        ["invalid-definition", "missing-service"],
        "{items:?}"
    );
    let missing = &items[1];
    assert_eq!(
        missing.notes,
        ["a service named 'my logger' is written in the configuration, but that name was refused (invalid-definition): this error follows from that one"]
    );
    let secondary = missing
        .labels
        .iter()
        .find(|l| !l.primary)
        .expect("a second label");
    let (line, _) = result
        .sources
        .get(secondary.span.file)
        .line_col(secondary.span.start as usize);
    assert_eq!(line, 8);
}

/// A service's name where a reference is expected is an `invalid-value` whose note suggests
/// the reference (`@l`).
#[test]
fn a_service_name_where_a_reference_goes_suggests_the_at() {
    let result = compile_multi("name-for-reference.neon");
    let items = result.diagnostics.items();
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0].code.to_string(), "invalid-value");
    assert_eq!(
        items[0].notes,
        ["did you mean `@l`? 'l' is a service; a reference to it is written with `@`"]
    );
}

/// A setup call written without its `-` gets a note on how a list is written, and a class
/// written without its namespace a "did you mean" with the full name.
#[test]
fn list_and_namespace_slips_get_hints() {
    let result = compile_multi("list-and-namespace-slips.neon");
    let items = result.diagnostics.items();
    let notes: Vec<(String, Vec<String>)> = items
        .iter()
        .map(|d| (d.code.to_string(), d.notes.clone()))
        .collect();
    assert_eq!(
        notes,
        [
            (
                "invalid-value".to_string(),
                vec!["each item of a list is written on its own line after `- ` (`- setName(…)`), or the list in brackets".to_string()]
            ),
            (
                "class-not-found".to_string(),
                vec!["did you mean 'Shop\\MemoryLogger'? a class is written with its namespace".to_string()]
            ),
        ]
    );
}

/// A service whose class is a typo of a known class that does not provide the missing type
/// (`App\Clok` for `App\Clock`) is not offered as the missing logger (a new user's trial found
/// that note misleading); one whose class is no typo of anything still is.
#[test]
fn an_unknown_class_is_offered_as_the_missing_service_only_when_it_may_be() {
    let dir = tempfile::tempdir().expect("temp dir");
    let notes_of = |services: &str| {
        let path = dir.path().join("config.neon");
        let types = "types:\n\tApp\\Clock: {}\n\tApp\\Logger: {interface: true}\n\tApp\\Mailer:\n\t\tconstructor: {logger: App\\Logger}\n";
        std::fs::write(&path, format!("{types}services:\n{services}")).expect("write");
        let done = wireplan::compiler::compile(&path, &wireplan::compiler::Options::default());
        let missing = done
            .diagnostics
            .items()
            .iter()
            .find(|d| d.code == wireplan::diagnostics::Code::MissingService)
            .cloned()
            .expect("a missing-service error");
        missing.notes
    };
    let typo = notes_of("\tclock: App\\Clok\n\tmailer: App\\Mailer\n");
    assert!(
        typo.iter().all(|n| !n.contains("fix its class")),
        "{typo:?}"
    );
    let unknown = notes_of("\tlog: App\\Nothing\n\tmailer: App\\Mailer\n");
    assert!(
        unknown
            .iter()
            .any(|n| n.contains("Service 'log' has the class 'App\\Nothing'")),
        "{unknown:?}"
    );
}

/// The primary place of a cycle says what happens there too: the first service's autowired
/// step, and where a parameter cycle closes (a new user's trial saw unlabelled carets).
#[test]
fn a_cycles_primary_place_is_labelled() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compile");
    let services = one_cycle_rendered(&dir.join("circular-path/config.neon"));
    assert!(
        services.contains("^^^^^ 'a' needs 'b' (autowired)"),
        "{services}"
    );
    let path = dir.join("cfg-circular-chain/config.neon");
    let result = wireplan::compiler::compile(&path, &wireplan::compiler::Options::default());
    let text = wireplan::diagnostics::render_to_string(&result.sources, result.diagnostics.items());
    assert!(text.contains("%c% uses %a% here"), "{text}");
}
