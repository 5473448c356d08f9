//! The catalog that comes from the Rust code (issue #12): every parameter kind the runtime
//! accepts exports as a type the compiler reads back, the JSON form, `--catalog FILE` on the
//! CLI and from `build.rs`, dev mode with the registry's catalog in process, and the golden
//! check with its structured diff.

mod common;

use std::io::Write as _;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use indexmap::IndexMap;
use wireplan::catalog::{Catalog, CatalogInput};
use wireplan::diagnostics::Diagnostics;
use wireplan::source::SourceMap;
use wireplan_runtime::catalog::{check_current, CatalogMismatch};
use wireplan_runtime::{
    register, Accessor, Callable, Container, Factory, Locator, Registry, Value,
};

trait Handler: Send + Sync {}
struct Clock;
struct Mail;
impl Handler for Mail {}

/// A class whose constructor takes one parameter of every kind `ArgType` implements.
#[allow(dead_code)]
struct Everything(Vec<String>);

fn registry_of_every_kind() -> Registry {
    let mut r = Registry::new();
    register!(r, "App\\Clock" => Clock { new() { Clock } });
    register!(r, "App\\Mail" => Mail {
        new() { Mail }
        implements "App\\Handler" => dyn Handler;
    });
    register!(r, "App\\Everything" => Everything {
        new(
            i: i64, i32_: i32, u32_: u32, usize_: usize, f: f64, b: bool, s: String,
            value: Value, callable: Callable, list: Vec<Value>, map: IndexMap<String, Value>,
            clock: Arc<Clock>, handler: Arc<dyn Handler>, handlers: Vec<Arc<dyn Handler>>,
            factory: Arc<Factory>, accessor: Arc<Accessor>, locator: Arc<Locator>,
            unnamed: Vec<Arc<Factory>>,
            oi: Option<i64>, of: Option<f64>, ob: Option<bool>, os: Option<String>,
            ovalue: Option<Value>, ocallable: Option<Callable>, olist: Option<Vec<Value>>,
            omap: Option<IndexMap<String, Value>>, oclock: Option<Arc<Clock>>,
            ohandler: Option<Arc<dyn Handler>>, ohandlers: Option<Vec<Arc<dyn Handler>>>,
            ofactory: Option<Arc<Factory>>, oaccessor: Option<Arc<Accessor>>,
            olocator: Option<Arc<Locator>>, oo: Option<Option<i64>>
        ) {
            let _ = (i, i32_, u32_, usize_, f, b, value, callable, list, map, clock, handler);
            let _ = (handlers, factory, accessor, locator, unnamed, oi, of, ob, os, ovalue);
            let _ = (ocallable, olist, omap, oclock, ohandler, ohandlers, ofactory, oaccessor);
            let _ = (olocator, oo);
            Everything(vec![s])
        }
        fn run(&this, handler: Arc<dyn Handler>, times: u32) -> Arc<Clock> { let _ = (this, handler, times); Arc::new(Clock) }
        static fn make(factory: Arc<Factory>) -> Arc<Everything> { let _ = factory; Arc::new(Everything(Vec::new())) }
    });
    r
}

/// What the compiler's catalog reader should see for each parameter of `App\Everything`.
const EXPECTED: &[(&str, &str)] = &[
    ("i", "int"),
    ("i32_", "int<-2147483648, 2147483647>"),
    ("u32_", "int<0, 4294967295>"),
    ("usize_", "int<0, max>"),
    ("f", "float"),
    ("b", "bool"),
    ("s", "string"),
    ("value", "mixed"),
    ("callable", "callable"),
    ("list", "array"),
    ("map", "array"),
    ("clock", "App\\Clock"),
    ("handler", "App\\Handler"),
    ("handlers", "App\\Handler[]"),
    ("factory", "object"),
    ("accessor", "object"),
    ("locator", "object"),
    ("unnamed", "array"),
    ("oi", "?int"),
    ("of", "?float"),
    ("ob", "?bool"),
    ("os", "?string"),
    ("ovalue", "mixed"),
    ("ocallable", "?callable"),
    ("olist", "?array"),
    ("omap", "?array"),
    ("oclock", "?App\\Clock"),
    ("ohandler", "?App\\Handler"),
    ("ohandlers", "?App\\Handler[]"),
    ("ofactory", "?object"),
    ("oaccessor", "?object"),
    ("olocator", "?object"),
    ("oo", "?int"),
];

/// Reads catalog texts the way the compiler does (`--catalog`), returning the catalog and the
/// rendered diagnostics.
fn read(inputs: &[(&str, &str)]) -> (Catalog, Vec<String>) {
    let (catalog, diags, _) = read_catalogs(inputs);
    let shown = diags
        .items()
        .iter()
        .map(|d| format!("[{}] {}", d.code, d.message))
        .collect();
    (catalog, shown)
}

/// The catalog of the files `(name, text)`, in order, with what reading them reported and the
/// files' source map.
fn read_catalogs(files: &[(&str, &str)]) -> (Catalog, Diagnostics, SourceMap) {
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::new();
    let inputs: Vec<CatalogInput> = files
        .iter()
        .map(|(name, text)| CatalogInput::Text {
            name: name.to_string(),
            text: text.to_string(),
        })
        .collect();
    let ids = wireplan::catalog::load_inputs(&inputs, &mut sources, &mut diags);
    let catalog = Catalog::from_inputs(None, &ids, &sources, &mut diags);
    (catalog, diags, sources)
}

fn check_every_kind(catalog: &Catalog) {
    let ctor = catalog.constructor("App\\Everything");
    let seen: Vec<(&str, &str)> = ctor
        .iter()
        .map(|p| (p.name.as_str(), p.ty.text.as_str()))
        .collect();
    assert_eq!(seen, EXPECTED);
    // The compiler understands them: services are classes, lists are lists, options nullable.
    let by_name = |n: &str| ctor.iter().find(|p| p.name == n).expect(n);
    assert_eq!(by_name("handler").ty.class(), Some("App\\Handler"));
    assert_eq!(
        by_name("handlers").ty.list_of.as_deref(),
        Some("App\\Handler")
    );
    assert!(by_name("ofactory").ty.nullable);
    // The fixed-size integers are ranges of `int`, read back from either form.
    assert_eq!(by_name("usize_").ty.int_range, Some((0, i64::MAX)));
    assert_eq!(&*by_name("i32_").ty.members, ["int"]);
    assert_eq!(
        by_name("factory").ty.class(),
        None,
        "object is never autowired"
    );
    let run = catalog.method("App\\Everything", "run").expect("run");
    assert_eq!(run.params[1].ty.text, "int<0, 4294967295>");
    assert_eq!(run.params[1].ty.int_range, Some((0, u32::MAX.into())));
    assert_eq!(
        run.returns.as_ref().map(|t| t.text.as_str()),
        Some("App\\Clock")
    );
    let make = catalog.method("App\\Everything", "make").expect("make");
    assert!(make.is_static);
    assert_eq!(make.params[0].ty.text, "object");
    assert!(catalog.is_subtype("App\\Mail", "App\\Handler"));
}

#[test]
fn every_parameter_kind_round_trips_through_neon_and_json() {
    let r = registry_of_every_kind();
    let neon = r.catalog();
    assert!(
        !neon.contains("::"),
        "a Rust path leaked into the catalog:\n{neon}"
    );
    let (from_neon, problems) = read(&[("catalog.neon", &neon)]);
    assert_eq!(problems, Vec::<String>::new(), "{neon}");
    check_every_kind(&from_neon);

    let json = r.catalog_json();
    let (from_json, problems) = read(&[("catalog.json", &json)]);
    assert_eq!(problems, Vec::<String>::new(), "{json}");
    check_every_kind(&from_json);

    // Both forms describe the same classes.
    let names = |c: &Catalog| {
        let mut v: Vec<String> = c.classes().map(|c| c.name.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(names(&from_neon), names(&from_json));
    assert_eq!(
        names(&from_json),
        ["App\\Clock", "App\\Everything", "App\\Handler", "App\\Mail"]
    );
}

/// A property registered with `inject_property` (the derive's `#[property(inject)]`,
/// `register!`'s `inject property`) is exported `{type: T, inject: true}` in both forms, the
/// compiler reads it as filled by the inject step, and the JSON form reads back into the same
/// document. Without it a registered class had no way to an injected property: re-declaring
/// the class in `types:` is a duplicate (a Nette user's trial).
#[test]
fn an_injected_property_is_exported_and_read_in_both_forms() {
    use wireplan_runtime::catalog::{CatalogDocument, PropertyEntry};
    let mut r = Registry::new();
    r.class::<Clock>("App\\Clock").constructor(|_| Ok(Clock));
    r.class::<Mail>("App\\Mail")
        .constructor(|_| Ok(Mail))
        .property("clock", |_, _| Ok(()))
        .property_type("clock", |r| {
            <Arc<Clock> as wireplan_runtime::catalog::ArgType>::catalog_type(r)
        })
        .inject_property("clock")
        .property("note", |_, _| Ok(()))
        .property_type("note", |r| {
            <String as wireplan_runtime::catalog::ArgType>::catalog_type(r)
        });
    let neon = r.catalog();
    assert!(
        neon.contains(
            "\t\tproperties:\n\t\t\tclock: {type: App\\Clock, inject: true}\n\t\t\tnote: string\n"
        ),
        "{neon}"
    );
    let json = r.catalog_json();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["types"]["App\\Mail"]["properties"],
        serde_json::json!({"clock": {"type": "App\\Clock", "inject": true}, "note": "string"}),
        "{json}"
    );
    for (name, text) in [("catalog.neon", &neon), ("catalog.json", &json)] {
        let (catalog, problems) = read(&[(name, text)]);
        assert_eq!(problems, Vec::<String>::new(), "{text}");
        let clock = catalog.property("App\\Mail", "clock").expect("clock");
        assert!(clock.inject, "{name}");
        assert!(!catalog.property("App\\Mail", "note").expect("note").inject);
    }
    let back = CatalogDocument::from_json(&json).unwrap();
    assert_eq!(
        back.types["App\\Mail"].properties["clock"],
        PropertyEntry {
            ty: "App\\Clock".into(),
            inject: true
        }
    );
    assert_eq!(
        back.types["App\\Mail"].properties,
        r.catalog_document().types["App\\Mail"].properties
    );
}

/// A class registered without a constructor is exported as `constructor: private` in both
/// forms (no longer `{}`, which reads as a constructor that takes nothing), the compiler reads
/// it as such, and the JSON form reads back into the same document.
#[test]
fn a_class_without_a_constructor_is_exported_as_private() {
    struct Plain;
    let mut r = Registry::new();
    r.class::<Plain>("App\\Plain");
    register!(r, "App\\Clock" => Clock { new() { Clock } });
    let neon = r.catalog();
    assert!(
        neon.contains("\tApp\\Plain:\n\t\tconstructor: private\n"),
        "{neon}"
    );
    assert!(neon.contains("\tApp\\Clock: {}\n"), "{neon}");
    let json = r.catalog_json();
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["types"]["App\\Plain"]["constructor"], "private");
    assert!(
        doc["types"]["App\\Clock"].get("constructor").is_none(),
        "{json}"
    );
    for (name, text) in [("c.neon", neon.as_str()), ("c.json", json.as_str())] {
        let (cat, problems) = read(&[(name, text)]);
        assert_eq!(problems, Vec::<String>::new(), "{text}");
        let plain = cat.get("App\\Plain").unwrap();
        assert!(plain.private_constructor, "{name}");
        assert!(cat.private_constructor_of(plain).is_some(), "{name}");
        let clock = cat.get("App\\Clock").unwrap();
        assert!(!clock.private_constructor, "{name}");
        assert!(cat.private_constructor_of(clock).is_none(), "{name}");
    }
    let back = wireplan_runtime::catalog::CatalogDocument::from_json(&json).unwrap();
    assert_eq!(back, r.catalog_document());
    let e = wireplan_runtime::catalog::CatalogDocument::from_json(
        &json.replace("\"private\"", "\"public\""),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("a map of parameters or `private`, not 'public'"),
        "{e}"
    );
    // The golden check words the change.
    let mut before = r.catalog_document();
    before
        .types
        .get_mut("App\\Plain")
        .unwrap()
        .constructor
        .private = false;
    let lines = wireplan_runtime::catalog::diff(&before, &r.catalog_document());
    assert_eq!(
        lines.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["class App\\Plain: the constructor is now private (registered without one)"]
    );
}

#[test]
fn json_catalog_shape_is_documented_and_checked() {
    let r = registry_of_every_kind();
    let doc: serde_json::Value = serde_json::from_str(&r.catalog_json()).unwrap();
    assert_eq!(doc["format"], "wireplan-catalog");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["types"]["App\\Mail"]["implements"][0], "App\\Handler");
    assert_eq!(doc["types"]["App\\Handler"]["interface"], true);
    assert_eq!(
        doc["types"]["App\\Everything"]["methods"]["make"]["static"],
        true
    );
    assert_eq!(
        doc["types"]["App\\Everything"]["constructor"]["oclock"],
        "?App\\Clock"
    );

    // Syntax errors carry serde's position; the rest is reported at its line and column.
    let (_, problems) = read(&[("c.json", "{\"types\": {\"App\\\\A\": {]}")]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("[invalid-value] The catalog is not valid JSON"),
        "{problems:?}"
    );
    let text = "{\n  \"format\": \"wireplan-catalog\",\n  \"version\": 1,\n  \"types\": {\n    \"App\\\\A\": {\"constructor\": {\"x\": \"int||string\"}},\n    \"App\\\\B\": {\"extends\": \"App\\\\Nope\", \"colour\": 1}\n  }\n}\n";
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::new();
    let ids = wireplan::catalog::load_inputs(
        &[CatalogInput::Text {
            name: "c.json".into(),
            text: text.into(),
        }],
        &mut sources,
        &mut diags,
    );
    Catalog::from_inputs(None, &ids, &sources, &mut diags);
    let json = wireplan::diagnostics::to_json(&sources, diags.items());
    let found: Vec<(String, Option<usize>)> =
        json.iter().map(|d| (d.code.to_string(), d.line)).collect();
    assert_eq!(
        found,
        [
            ("invalid-value".to_string(), Some(5)),
            ("unknown-option".to_string(), Some(6)),
            ("class-not-found".to_string(), Some(6)),
        ],
        "{:?}",
        json.iter().map(|d| &d.message).collect::<Vec<_>>()
    );

    // A catalog of another format or version is refused with what this compiler reads.
    let (_, problems) = read(&[(
        "c.json",
        "{\"format\": \"wireplan-catalog\", \"version\": 9, \"types\": {}}",
    )]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("version 1"), "{problems:?}");
}

#[test]
fn a_class_in_two_catalogs_is_an_error_with_both_positions() {
    let first =
        "types:\n\tApp\\A: {}\n\tApp\\I: {interface: true, methods: {get: {returns: App\\A}}}\n";
    let second = "{\"types\": {\n\"App\\\\I\": {\"interface\": true},\n\"App\\\\A\": {}\n}}";
    let (catalog, diags, sources) =
        read_catalogs(&[("types.neon", first), ("catalog.json", second)]);
    let items = diags.items();
    assert_eq!(items.len(), 1, "{items:?}");
    let d = &items[0];
    assert_eq!(d.code.as_str(), "duplicate-class");
    assert!(d.message.contains("App\\A"), "{}", d.message);
    // The primary label at the JSON key (line 3), the secondary at the NEON entry (line 2).
    let line = |span: wireplan::source::Span| {
        let f = sources.get(span.file);
        (f.name.clone(), f.line_col(span.start as usize).0)
    };
    let primary = d.labels.iter().find(|l| l.primary).expect("primary");
    let secondary = d.labels.iter().find(|l| !l.primary).expect("secondary");
    assert_eq!(line(primary.span), ("catalog.json".to_string(), 3));
    assert_eq!(line(secondary.span), ("types.neon".to_string(), 2));
    // A bare interface from a registry merges with the declaration that has its members.
    assert!(catalog.method("App\\I", "get").is_some());
}

/// One JSON catalog declaring a class under two spellings: the error is at the later key,
/// names the file and both spellings, and points at the first key (it pointed at the later
/// key twice and said "and before it", as if another input had declared the class).
#[test]
fn a_class_twice_in_one_json_catalog_points_at_both_keys() {
    let text = "{\"format\": \"wireplan-catalog\", \"version\": 1, \"types\": {\n\
                \"App\\\\A\": {},\n\"App\\\\B\": {},\n\"app\\\\a\": {}\n}}";
    let (catalog, diags, sources) = read_catalogs(&[("catalog.json", text)]);
    let items = diags.items();
    assert_eq!(items.len(), 1, "{items:?}");
    let d = &items[0];
    assert_eq!(d.code.as_str(), "duplicate-class");
    assert_eq!(
        d.message,
        "Class App\\A is declared twice in the catalog 'catalog.json': as 'App\\A' and as 'app\\a'."
    );
    let line = |span: wireplan::source::Span| sources.get(span.file).line_col(span.start as usize);
    let primary = d.labels.iter().find(|l| l.primary).expect("primary");
    let secondary = d.labels.iter().find(|l| !l.primary).expect("secondary");
    assert_eq!((line(primary.span), line(secondary.span)), ((4, 1), (2, 1)));
    assert_eq!(secondary.message, "first declared here");
    assert!(
        d.notes.iter().any(|n| n.contains("case-insensitive")),
        "{:?}",
        d.notes
    );
    // The first declaration is kept.
    assert_eq!(
        catalog.get("APP\\A").map(|c| c.name.as_str()),
        Some("App\\A")
    );
}

/// A JSON catalog file that is no catalog document (its classes under another key, or
/// `types` not a map) is reported at the place that is wrong, and stops the compilation
/// there: the services whose classes it would have declared get no `class-not-found` each
/// (they did, and the unknown key was reported at the file's first character).
#[test]
fn a_json_file_that_is_no_catalog_document_is_reported_once_at_its_key() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.neon");
    std::fs::write(&config, "services:\n\ta: App\\A\n\tb: App\\B\n").expect("write");
    let cases = [
        (
            "{\n  \"format\": \"wireplan-catalog\",\n  \"version\": 1,\n  \"classes\": {\"App\\\\A\": {}}\n}",
            vec![("unknown-option", 4, 3), ("invalid-value", 1, 1)],
        ),
        (
            "{\"format\": \"wireplan-catalog\", \"version\": 1,\n \"types\": 5}",
            vec![("invalid-value", 2, 11)],
        ),
        // a list of class names
        ("{\"types\": [\"App\\\\A\"]}", vec![("invalid-value", 1, 11)]),
        // a typo of `types`: one error, which names it
        ("{\"typess\": {\"App\\\\A\": {}}}", vec![("unknown-option", 1, 2)]),
        // not JSON at all
        ("", vec![("invalid-value", 1, 1)]),
        // a plan given as a catalog: one error at its format, not one per plan key
        (
            "{\n  \"format\": \"wireplan-plan\",\n  \"version\": 3,\n  \"services\": {}\n}",
            vec![("invalid-value", 2, 13)],
        ),
    ];
    for (text, expected) in cases {
        std::fs::write(dir.path().join("catalog.json"), text).expect("write");
        let (got, shown) = check_json(dir.path(), "catalog.json");
        let got: Vec<(&str, u64, u64)> = got
            .iter()
            .map(|d| {
                assert_eq!(d["file"].as_str(), Some("catalog.json"), "{shown}");
                let n = |k: &str| d[k].as_u64().unwrap_or(0);
                (d["code"].as_str().unwrap_or(""), n("line"), n("column"))
            })
            .collect();
        assert_eq!(got, expected, "{shown}");
        assert!(!shown.contains("class-not-found"), "{shown}");
        // serde's own position (its columns count from 0) is not repeated in the message.
        assert!(!shown.contains("column 0"), "{shown}");
        if text.contains("typess") {
            assert!(shown.contains("did you mean 'types'?"), "{shown}");
        }
        if text.contains("wireplan-plan") {
            assert!(shown.contains("it is a plan"), "{shown}");
            assert!(!shown.contains("regenerate"), "{shown}");
        }
    }
}

/// A catalog file whose bytes are not UTF-8 (JSON or NEON) is reported as a configuration
/// file is, at its first invalid byte, and stops the compilation there; its text was read
/// lossily and the bad bytes went into the plan as U+FFFD (new user's trial).
#[test]
fn a_catalog_that_is_not_utf8_is_reported_at_the_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("config.neon"), "services:\n\tdb: App\\Db\n").expect("write");
    let cases: [(&str, &[u8], (u64, u64)); 2] = [
        (
            "catalog.neon",
            b"types:\n\tApp\\Db: {constructor: {dsn: {type: string, default: \"a\xffb\"}}}\n",
            (2, 56),
        ),
        (
            "catalog.json",
            b"{\"types\": {\"App\\\\Db\": {\"constructor\": {\"dsn\": \"string\"}}},\n \"x\": \"\xfe\"}",
            (2, 8),
        ),
    ];
    for (name, bytes, (line, column)) in cases {
        std::fs::write(dir.path().join(name), bytes).expect("write");
        let compiled = wireplan_cmd()
            .current_dir(dir.path())
            .args([
                "compile",
                "config.neon",
                "--catalog",
                name,
                "-o",
                "plan.json",
            ])
            .output()
            .expect("runs");
        assert_eq!(compiled.status.code(), Some(1), "{name}");
        assert!(!dir.path().join("plan.json").exists(), "{name}: no plan");
        let (got, shown) = check_json(dir.path(), name);
        assert_eq!(got.len(), 1, "{shown}");
        // A JSON catalog's is worded as its other syntax errors are.
        let (code, message) = if name.ends_with(".json") {
            (
                "invalid-value",
                "The catalog is not valid JSON: invalid UTF-8 sequence.",
            )
        } else {
            ("neon-syntax", "Invalid UTF-8 sequence.")
        };
        assert_eq!(got[0]["code"], code, "{shown}");
        assert_eq!(got[0]["message"], message, "{shown}");
        assert_eq!(got[0]["file"].as_str(), Some(name), "{shown}");
        assert_eq!(
            (got[0]["line"].as_u64(), got[0]["column"].as_u64()),
            (Some(line), Some(column)),
            "{shown}"
        );
    }
}

/// A binary plan given as a catalog is one error that says so, not a NEON syntax error
/// showing its bytes (a new user's trial: `--catalog app.plan.bin`).
#[test]
fn a_binary_plan_given_as_a_catalog_is_named_as_such() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("config.neon"), "services:\n\tdb: App\\Db\n").expect("write");
    std::fs::write(dir.path().join("types.neon"), "types:\n\tApp\\Db: {}\n").expect("write");
    let at = |name: &str| dir.path().join(name);
    common::compile_with_catalog(&at("config.neon"), &at("types.neon"), &at("app.plan.bin"));
    let (got, shown) = check_json(dir.path(), "app.plan.bin");
    assert_eq!(got.len(), 1, "{shown}");
    assert_eq!(got[0]["code"], "invalid-value", "{shown}");
    assert_eq!(
        got[0]["message"],
        "'app.plan.bin' is a binary plan (what `wireplan compile` writes), not a catalog.",
        "{shown}"
    );
    assert!(!shown.contains("WIREPLAN"), "no bytes shown: {shown}");
}

/// A catalog that is a list is one error (it was one per item: "Unexpected item '0'", '1', …;
/// a new user's trial).
#[test]
fn a_catalog_that_is_a_list_is_one_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("config.neon"), "services:\n\tdb: App\\Db\n").expect("write");
    std::fs::write(dir.path().join("catalog.json"), "[1, 2, 3]").expect("write");
    let (got, shown) = check_json(dir.path(), "catalog.json");
    let catalog: Vec<_> = got.iter().filter(|d| d["file"] == "catalog.json").collect();
    assert_eq!(catalog.len(), 1, "{shown}");
    assert_eq!(catalog[0]["code"], "invalid-value", "{shown}");
    assert_eq!(
        catalog[0]["message"], "A catalog must be a map with a 'types' key, a list given.",
        "{shown}"
    );
}

/// The checks across the classes of a JSON catalog (an inheritance cycle, a parent not
/// found, an interface that is a class) point at the class's key, or at the string naming the
/// parent when it is about one (they had no position when the file was read on its fast
/// path); a class in two catalog files is named as such, not as a hand-written `types:` entry.
#[test]
fn problems_across_json_classes_point_at_the_class_keys() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("config.neon"), "services:\n\ta: App\\E\n").expect("write");
    let cycle = "{\"format\": \"wireplan-catalog\", \"version\": 1, \"types\": {\n\
                 \"App\\\\A\": {\"extends\": [\"App\\\\B\"]},\n\
                 \"App\\\\B\": {\"extends\": [\"App\\\\A\"]},\n\
                 \"App\\\\C\": {\"extends\": [\"App\\\\X\"]},\n\
                 \"App\\\\D\": {\"implements\": [\"App\\\\C\"]},\n\
                 \"App\\\\E\": {}\n}}";
    std::fs::write(dir.path().join("one.json"), cycle).expect("write");
    let run = |catalogs: &[&str]| {
        let mut args = vec!["check", "config.neon", "--format", "json"];
        for c in catalogs {
            args.extend(["--catalog", c]);
        }
        let out = wireplan_cmd()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .expect("runs");
        let shown = String::from_utf8_lossy(&out.stdout).into_owned();
        let got: Vec<serde_json::Value> = serde_json::from_str(&shown).expect("a JSON array");
        got
    };
    let got = run(&["one.json"]);
    let at: Vec<(String, u64, u64)> = got
        .iter()
        .map(|d| {
            let n = |k: &str| d[k].as_u64().unwrap_or(0);
            (
                d["file"].as_str().unwrap_or("").to_string(),
                n("line"),
                n("column"),
            )
        })
        .collect();
    let one = |line, column| ("one.json".to_string(), line, column);
    // The cycle at the class's key; a parent not found and an interface that is a class at the
    // string that names them (`"App\\X"` in `{"extends": ["App\\X"]}`).
    assert_eq!(at, [one(2, 1), one(4, 24), one(5, 27)], "{got:?}");
    assert!(got[0]["message"]
        .as_str()
        .unwrap_or("")
        .starts_with("Inheritance cycle"));
    std::fs::copy(dir.path().join("one.json"), dir.path().join("two.json")).expect("copy");
    let got = run(&["one.json", "two.json"]);
    let first = got
        .iter()
        .find(|d| d["code"] == "duplicate-class")
        .expect("a duplicate-class error");
    assert_eq!(
        first["message"],
        "Class App\\A is declared in two catalogs: 'one.json' and 'two.json'."
    );
    assert!(!first.to_string().contains("types:"), "{first}");
}

/// `wireplan check config.neon --catalog CATALOG --format json` in `dir`: the diagnostics and
/// the output as text (for assertion messages).
fn check_json(dir: &std::path::Path, catalog: &str) -> (Vec<serde_json::Value>, String) {
    let out = wireplan_cmd()
        .current_dir(dir)
        .args([
            "check",
            "config.neon",
            "--catalog",
            catalog,
            "--format",
            "json",
        ])
        .output()
        .expect("runs");
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    let got = serde_json::from_str(&shown).expect("a JSON array");
    (got, shown)
}

fn wireplan_cmd() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wireplan"));
    c.env("NO_COLOR", "1");
    c
}

fn mailer_registry(with_from: bool) -> Registry {
    trait Transport: Send + Sync {}
    struct Smtp;
    impl Transport for Smtp {}
    #[allow(dead_code)]
    struct Mailer(Arc<dyn Transport>, String);
    let mut r = Registry::new();
    register!(r, "App\\Smtp" => Smtp {
        new() { Smtp }
        implements "App\\Transport" => dyn Transport;
    });
    if with_from {
        register!(r, "App\\Mailer" => Mailer {
            new(transport: Arc<dyn Transport>, from: String) { Mailer(transport, from) }
        });
    } else {
        register!(r, "App\\Mailer" => Mailer {
            new(transport: Arc<dyn Transport>) { Mailer(transport, String::new()) }
        });
    }
    r
}

const MAILER_CONFIG: &str =
    "services:\n\t- App\\Smtp\n\tmailer: App\\Mailer(from: 'noreply@example.com')\n";

#[test]
fn cli_reads_the_catalog_file_and_it_is_a_dependency_and_protected() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("app.neon");
    let catalog = dir.path().join("catalog.json");
    std::fs::write(&config, MAILER_CONFIG).unwrap();
    wireplan_runtime::catalog::write_catalog(&mailer_registry(true), &catalog).unwrap();

    let plan = dir.path().join("app.plan.json");
    common::compile_with_catalog(&config, &catalog, &plan);
    let p: serde_json::Value = serde_json::from_slice(&std::fs::read(&plan).unwrap()).unwrap();
    let deps: Vec<&str> = p["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert!(deps.iter().any(|d| d.ends_with("catalog.json")), "{deps:?}");
    // The plan runs with the registry the catalog came from.
    let c = Container::load(&plan, &mailer_registry(true)).unwrap();
    assert!(c.has("mailer"));

    // `-o` never overwrites the catalog.
    let out = wireplan_cmd()
        .arg("compile")
        .arg(&config)
        .arg("--catalog")
        .arg(&catalog)
        .arg("-o")
        .arg(&catalog)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Refusing to write the plan over"));
    assert!(std::fs::read_to_string(&catalog)
        .unwrap()
        .contains("wireplan-catalog"));

    // The Rust constructor loses `from`; the regenerated catalog makes `check` fail naming
    // the class and the parameter.
    wireplan_runtime::catalog::write_catalog(&mailer_registry(false), &catalog).unwrap();
    let out = wireplan_cmd()
        .arg("check")
        .arg(&config)
        .arg("--catalog")
        .arg(&catalog)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let diags: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &diags[0];
    assert_eq!(d["code"], "unknown-argument", "{diags}");
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("App\\Mailer::__construct()"), "{message}");
    assert_eq!(d["notes"][0], "no parameter accepts $from", "{diags}");

    // Without the catalog the classes are unknown; a missing catalog file is file-not-found.
    let out = wireplan_cmd()
        .arg("check")
        .arg(&config)
        .arg("--catalog")
        .arg(dir.path().join("nope.json"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    let diags: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(diags[0]["code"], "file-not-found", "{diags}");
    assert_eq!(diags.as_array().unwrap().len(), 1, "{diags}");
}

#[test]
fn a_class_no_catalog_declares_is_advised_by_whether_catalog_files_were_given() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("app.neon");
    let catalog = dir.path().join("catalog.json");
    std::fs::write(&config, "services:\n\tqueue: App\\Queue\n").unwrap();
    wireplan_runtime::catalog::write_catalog(&mailer_registry(true), &catalog).unwrap();
    let notes = |with_catalog: bool| {
        let mut cmd = wireplan_cmd();
        cmd.arg("check").arg(&config).args(["--format", "json"]);
        if with_catalog {
            cmd.arg("--catalog").arg(&catalog);
        }
        let out = cmd.output().unwrap();
        let diags: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(diags[0]["code"], "class-not-found", "{diags}");
        diags[0]["notes"][0].as_str().unwrap().to_string()
    };
    // Without a catalog: pass one.
    let bare = notes(false);
    assert!(bare.contains("--catalog FILE"), "{bare}");
    // With one that lacks the class: passing a catalog is no advice; registering the type is.
    let given = notes(true);
    assert!(!given.contains("--catalog FILE"), "{given}");
    assert!(
        given.contains(
            "register the type in the application's registry and write its catalog again"
        ),
        "{given}"
    );
}

#[test]
fn explain_and_graph_take_the_catalog_too() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("app.neon");
    let catalog = dir.path().join("catalog.json");
    std::fs::write(&config, MAILER_CONFIG).unwrap();
    wireplan_runtime::catalog::write_catalog(&mailer_registry(true), &catalog).unwrap();
    let out = wireplan_cmd()
        .arg("explain")
        .arg(&config)
        .arg("mailer")
        .arg("--catalog")
        .arg(&catalog)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("App\\Mailer"));
    let out = wireplan_cmd()
        .arg("graph")
        .arg(&config)
        .arg("--catalog")
        .arg(&catalog)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("mailer"));
}

#[test]
fn build_rs_helper_reads_the_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("app.neon");
    let catalog = dir.path().join("catalog.json");
    std::fs::write(&config, MAILER_CONFIG).unwrap();
    wireplan_runtime::catalog::write_catalog(&mailer_registry(true), &catalog).unwrap();
    let out = dir.path().join("out");
    let plan = wireplan::build::compile_plan_with_catalog(&config, &catalog, &out).unwrap();
    let c = Container::load(&plan, &mailer_registry(true)).unwrap();
    assert!(c.has("mailer"));
    // Without it, the configuration's classes are unknown.
    let e = wireplan::build::compile_plan(&config, &out).unwrap_err();
    assert!(e.to_string().contains("class-not-found"), "{e}");
}

#[test]
fn dev_mode_compiles_with_the_registry_catalog_and_recompiles_when_it_changes() {
    use wireplan::dev::{load_or_compile_with, registry_catalog};
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("app.neon");
    let cache = dir.path().join("cache");
    std::fs::write(&config, "services:\n\t- App\\Smtp\n\tmailer: App\\Mailer\n").unwrap();
    let load = |r: &Registry| {
        let options = wireplan::compiler::Options {
            catalogs: vec![registry_catalog(r)],
            ..Default::default()
        };
        load_or_compile_with(&config, &cache, &options, Container::builder(r))
    };
    // No types.neon: the registry's catalog is enough. `from` has no value: an error.
    let e = load(&mailer_registry(true)).unwrap_err().to_string();
    assert!(e.contains("$from") || e.contains("from"), "{e}");
    let first = load(&mailer_registry(false)).unwrap();
    assert!(first.recompiled);
    assert!(first.container.has("mailer"));
    let again = load(&mailer_registry(false)).unwrap();
    assert!(
        !again.recompiled,
        "the same registry reuses the cached plan"
    );
    // A changed Rust type changes the catalog's hash: the plan is compiled again.
    let changed = load(&mailer_registry(true));
    assert!(changed.is_err(), "recompiled against the changed registry");
    // The simple form uses the registry's catalog too.
    use wireplan::dev::ContainerDevExt;
    let c = Container::load_or_compile(&config, &cache, &mailer_registry(false)).unwrap();
    assert!(c.has("mailer"));
}

#[test]
fn golden_check_names_what_changed_and_how_to_regenerate() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("catalog.json");
    wireplan_runtime::catalog::write_catalog(&mailer_registry(true), &path).unwrap();
    check_current(&mailer_registry(true), &path).unwrap();

    let e = check_current(&mailer_registry(false), &path).unwrap_err();
    let CatalogMismatch::Changed { changes, .. } = &e else {
        panic!("{e}");
    };
    let lines: Vec<String> = changes.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        ["class App\\Mailer: constructor parameter `from` was removed"]
    );
    let message = e.to_string();
    assert!(message.contains("WIREPLAN_UPDATE_CATALOG=1"), "{message}");
    let panic = std::panic::catch_unwind(|| {
        wireplan_runtime::catalog::assert_current(&mailer_registry(false), &path)
    })
    .unwrap_err();
    let text = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        text.contains("constructor parameter `from` was removed"),
        "{text}"
    );

    // The one variable that regenerates it (this is the only test that reads it).
    std::env::set_var("WIREPLAN_UPDATE_CATALOG", "1");
    let updated = check_current(&mailer_registry(false), &path);
    std::env::remove_var("WIREPLAN_UPDATE_CATALOG");
    updated.unwrap();
    check_current(&mailer_registry(false), &path).unwrap();

    // A missing file says how to create it.
    let e = check_current(&mailer_registry(false), dir.path().join("none.json")).unwrap_err();
    assert!(e.to_string().contains("WIREPLAN_UPDATE_CATALOG=1"), "{e}");
}

#[test]
fn the_diff_covers_every_kind_of_change() {
    let old = registry_of_every_kind().catalog_document();
    let mut new = old.clone();
    let e = new.types.get_mut("App\\Everything").unwrap();
    e.constructor.params.swap_indices(0, 1);
    e.constructor.params.insert("extra".into(), "string".into());
    *e.constructor.params.get_mut("s").unwrap() = "?string".into();
    e.methods.shift_remove("run");
    e.implements.push("App\\Handler".into());
    new.types.shift_remove("App\\Clock");
    new.types.insert("App\\New".into(), Default::default());
    let lines: Vec<String> = wireplan_runtime::catalog::diff(&old, &new)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            "class App\\Everything: now implements App\\Handler",
            "class App\\Everything: constructor parameter `s` changed from `string` to `?string`",
            "class App\\Everything: constructor parameter `extra` was added (`string`)",
            "class App\\Everything: method `run` was removed",
            "class App\\New: was added",
            "class App\\Clock: was removed",
        ]
    );
    let mut reordered = old.clone();
    reordered
        .types
        .get_mut("App\\Everything")
        .unwrap()
        .constructor
        .params
        .swap_indices(0, 1);
    let lines = wireplan_runtime::catalog::diff(&old, &reordered);
    assert_eq!(lines.len(), 1);
    assert!(lines[0]
        .what
        .starts_with("constructor parameters were reordered from (i, i32_,"));
    // What the order means for the configuration: positional arguments move.
    assert!(
        lines[0].what.ends_with(
            "arguments the configuration passes by position now go to other parameters; \
             pass them by name (`i32_: …`)"
        ),
        "{}",
        lines[0].what
    );
}

#[test]
fn json_and_neon_read_the_same_bench_catalog() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/app-10000/types.neon");
    let Ok(neon) = std::fs::read_to_string(&path) else {
        if common::in_ci() {
            panic!(
                "{} is missing, and CI=true makes that a failure",
                path.display()
            );
        }
        // Straight to standard error: the harness hides a passing test's `eprintln!`.
        let _ = writeln!(std::io::stderr(), "skipped: {} is absent", path.display());
        return;
    };
    let json = wireplan::catalog::neon_catalog_to_json(&neon).expect("converts");
    let (a, pa) = read(&[("types.neon", &neon)]);
    let (b, pb) = read(&[("types.json", &json)]);
    assert!(pa.is_empty() && pb.is_empty(), "{pa:?} {pb:?}");
    assert!(a.classes().count() > 1000);
    for class in a.classes() {
        let other = b.get(&class.name).expect("same classes");
        let ta: Vec<&str> = class
            .constructor
            .iter()
            .map(|p| p.ty.text.as_str())
            .collect();
        let tb: Vec<&str> = other
            .constructor
            .iter()
            .map(|p| p.ty.text.as_str())
            .collect();
        assert_eq!(ta, tb, "{}", class.name);
        assert_eq!(class.implements, other.implements);
        assert_eq!(class.extends, other.extends);
        assert_eq!(class.interface, other.interface);
        let ma: Vec<&str> = class.methods.keys().map(|k| k.as_str()).collect();
        let mb: Vec<&str> = other.methods.keys().map(|k| k.as_str()).collect();
        assert_eq!(ma, mb, "{}", class.name);
    }
}

#[test]
fn the_json_example_in_the_docs_is_read() {
    let md = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/catalog.md"))
        .unwrap();
    let after = md.split("### The JSON form").nth(1).expect("section");
    let block = after
        .split("```json\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a json block");
    let (catalog, problems) = read(&[("docs.json", block)]);
    assert_eq!(problems, Vec::<String>::new());
    let ctor: Vec<&str> = catalog
        .constructor("App\\FileLogger")
        .iter()
        .map(|p| p.ty.text.as_str())
        .collect();
    assert_eq!(ctor, ["string", "?App\\Clock"]);
    assert!(catalog
        .method("App\\FileLogger", "create")
        .is_some_and(|m| m.is_static));
    assert!(catalog.is_subtype("App\\FileLogger", "App\\Logger"));
}

/// `write_if_requested` exits the process, so the test runs itself as a child with
/// `WIREPLAN_WRITE_CATALOG` set: the child writes the catalog and exits 0 before its end.
#[test]
fn write_if_requested_writes_the_catalog_and_exits() {
    if let Some(path) = std::env::var_os("WIREPLAN_WRITE_CATALOG") {
        if std::env::var_os("CATALOG_FILES_CHILD").is_some() {
            wireplan_runtime::catalog::write_if_requested(&mailer_registry(true));
            // Not reached: the call exits. Reaching it fails the child (and the parent).
            panic!("write_if_requested returned although {path:?} was requested");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.json");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "write_if_requested_writes_the_catalog_and_exits",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("WIREPLAN_WRITE_CATALOG", &path)
        .env("CATALOG_FILES_CHILD", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Bounded wait, then kill what was started.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the child did not exit");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("wireplan: wrote the catalog to"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        mailer_registry(true).catalog_json()
    );
}

#[test]
fn watch_mode_watches_the_catalog_even_before_it_exists() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("app.neon");
    let catalog = dir.path().join("catalog.json");
    std::fs::write(&config, MAILER_CONFIG).unwrap();
    let options = wireplan::compiler::Options {
        catalogs: vec![CatalogInput::File(catalog.clone())],
        ..Default::default()
    };
    let out = dir.path().join("app.plan.json");
    let target = Some((out.as_path(), wireplan_runtime::Encoding::Json));
    let run = wireplan::watch::compile_once(&config, &options, target);
    assert!(run.plan.is_none());
    assert_eq!(run.diagnostics[0].code.as_str(), "file-not-found");
    let watched = std::fs::canonicalize(dir.path())
        .unwrap()
        .join("catalog.json");
    assert!(run.files.contains(&watched), "{:?}", run.files);
    // Once the application writes it, the next compilation succeeds and still watches it.
    wireplan_runtime::catalog::write_catalog(&mailer_registry(true), &catalog).unwrap();
    let run = wireplan::watch::compile_once(&config, &options, target);
    assert!(run.plan.is_some(), "{:?}", run.diagnostics);
    assert!(run.files.contains(&watched), "{:?}", run.files);
}

#[test]
fn the_repl_takes_the_catalog() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("app.neon");
    let catalog = dir.path().join("catalog.json");
    std::fs::write(&config, "services:\n\t- App\\Smtp\n\tmailer: App\\Mailer\n").unwrap();
    wireplan_runtime::catalog::write_catalog(&mailer_registry(true), &catalog).unwrap();
    let mut child = wireplan_cmd()
        .arg("repl")
        .arg(&config)
        .arg("--catalog")
        .arg(&catalog)
        .env_remove("XDG_DATA_HOME")
        .env("HOME", dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b":errors\n:quit\n")
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the REPL did not end within 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The catalog's classes are known; what is left is `from`, which has no value.
    assert!(!text.contains("class-not-found"), "{text}");
    assert!(
        text.contains("error[missing-argument]")
            && text.contains("Parameter $from in App\\Mailer::__construct()"),
        "{text}"
    );
}

#[test]
fn one_catalog_given_twice_is_read_once_and_a_missing_interface_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("app.neon");
    let catalog = dir.path().join("catalog.json");
    std::fs::write(&config, MAILER_CONFIG).unwrap();
    wireplan_runtime::catalog::write_catalog(&mailer_registry(true), &catalog).unwrap();
    // The same file twice, once through a relative spelling: one catalog, no duplicate-class.
    let again = dir.path().join(".").join("catalog.json");
    let out = wireplan_cmd()
        .arg("check")
        .arg(&config)
        .arg("--catalog")
        .arg(&catalog)
        .arg("--catalog")
        .arg(&again)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("duplicate-class"), "{stderr}");

    // An interface the catalog names but does not declare is reported as an interface.
    let lying = dir.path().join("lying.json");
    std::fs::write(
        &lying,
        r#"{"format": "wireplan-catalog", "version": 1, "types": {
  "App\\Smtp": {},
  "App\\Mailer": {"implements": ["App\\Nope"], "constructor": {"from": "string"}}
}}"#,
    )
    .unwrap();
    let out = wireplan_cmd()
        .arg("check")
        .arg(&config)
        .arg("--catalog")
        .arg(&lying)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "Class 'App\\Nope' not found (named as an interface implemented by App\\Mailer)."
        ),
        "{stderr}"
    );
    // A catalog was given: the advice is to register the type and write the catalog again.
    assert!(stderr.contains("write its catalog again"), "{stderr}");
}

/// A catalog file that is not a catalog at all (a JSON syntax error) stops the compilation
/// like a configuration file's syntax error: its one error, without the classes it would
/// have declared reported missing by the `types:` section, the services and the scripts.
#[test]
fn a_catalog_file_with_a_syntax_error_is_its_only_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let catalog = dir.path().join("catalog.json");
    std::fs::write(
        &catalog,
        r#"{"format": "wireplan-catalog", "types": {"App\\Db": {}, "App\\Log": {},}}"#,
    )
    .expect("write");
    let config = dir.path().join("app.neon");
    std::fs::write(
        &config,
        "types:\n\tApp\\Repo:\n\t\textends: App\\Db\nservices:\n\tdb: App\\Db\n\tlog: App\\Log\n\trepo: App\\Repo\n",
    )
    .expect("write");
    let options = wireplan::compiler::Options {
        catalogs: vec![CatalogInput::File(catalog)],
        ..Default::default()
    };
    let run = wireplan::compiler::compile(&config, &options);
    let messages: Vec<&str> = run
        .diagnostics
        .items()
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with("The catalog is not valid JSON: trailing comma"),
        "{messages:?}"
    );
    assert!(run.plan.is_none());
}

/// The arguments of service `name`'s constructor in the plan compiled from `config` with the
/// catalog `catalog` (JSON or NEON text), or the compilation's messages.
fn create_args(config: &str, catalog: &str, name: &str) -> Result<serde_json::Value, Vec<String>> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("app.neon");
    std::fs::write(&path, config).expect("write");
    let options = wireplan::compiler::Options {
        catalogs: vec![CatalogInput::Text {
            name: "registry".into(),
            text: catalog.into(),
        }],
        ..Default::default()
    };
    let run = wireplan::compiler::compile(&path, &options);
    let plan = run.plan.ok_or_else(|| {
        run.diagnostics
            .items()
            .iter()
            .map(|d| format!("[{}] {}", d.code, d.message))
            .collect::<Vec<_>>()
    })?;
    let json: serde_json::Value = serde_json::from_str(&plan.to_json()).expect("json");
    Ok(json["services"][name]["create"]["args"].clone())
}

/// A registry's string default is text, even one that starts with `@`: PHP has no service as a
/// default, and `#[default("@admin")]` means the text. Both catalog forms the registry writes
/// give the text, and so does a quoted default in a hand-written catalog file (which, unlike
/// a configuration's `types:` section, names no parameters).
#[test]
fn a_string_default_that_starts_with_at_is_text() {
    #[allow(dead_code)]
    struct Notifier(String, String);
    struct Admin;
    let mut r = Registry::new();
    register!(r, "App\\Admin" => Admin { new() { Admin } });
    register!(r, "App\\Notifier" => Notifier {
        new(to: String = "@admin", cc: String = "%limit%") { Notifier(to, cc) }
    });
    let config = "parameters:\n\tlimit: 3\nservices:\n\tadmin: App\\Admin\n\tn: App\\Notifier\n";
    let expected = serde_json::json!(["@admin", "%limit%"]);
    assert_eq!(
        create_args(config, &r.catalog_json(), "n"),
        Ok(expected.clone())
    );
    assert_eq!(create_args(config, &r.catalog(), "n"), Ok(expected.clone()));
    let written = "types:\n\tApp\\Admin: []\n\tApp\\Notifier:\n\t\tconstructor:\n\t\t\t\
                   to: {type: string, default: '@admin'}\n\t\t\tcc: {type: string, default: '%limit%'}\n";
    assert_eq!(create_args(config, written, "n"), Ok(expected));
}

/// An unquoted `@name` as a default or a constant's value is a service reference, which a
/// constant cannot be: it is reported where it is written (also inside a list), once, with no
/// error at the services that use the class. Keys that are not names (a class named `123` or
/// `int`, parameters `0:` and `1.5:`, a list of constants, a method `do it`) are reported, and
/// so are `extends:` and `implements:` names that are not class names.
#[test]
fn a_catalog_reports_references_as_defaults_and_keys_that_are_not_names() {
    let catalog = "types:\n\
        \tApp\\B: []\n\
        \tApp\\A:\n\
        \t\tconstructor:\n\
        \t\t\tname: {type: string, default: @b}\n\
        \t\t\tlist: {type: array, default: [x, @b, '@c']}\n\
        \t\tconstants:\n\
        \t\t\tX: @b\n\
        \t123: []\n\
        \t'App\\With Space': []\n\
        \tint: []\n\
        \tApp\\C:\n\
        \t\tconstructor:\n\
        \t\t\t0: int\n\
        \t\t\t1.5: string\n\
        \t\tconstants: [1]\n\
        \t\tmethods:\n\
        \t\t\t'do it': []\n\
        \tApp\\D:\n\
        \t\textends: 5\n\
        \t\timplements: ['@X', App\\I]\n\
        \tApp\\I: {interface: true}\n";
    let config = "services:\n\ta: App\\A\n\tb: App\\B\n";
    let problems = create_args(config, catalog, "a").expect_err("errors");
    assert_eq!(
        problems,
        [
            "[invalid-value] The default of 'types › App\\A › constructor › name' is the service reference @b; it must be a constant value.",
            "[invalid-value] The default of 'types › App\\A › constructor › list' is the service reference @b; it must be a constant value.",
            "[invalid-value] The value of 'types › App\\A › constants › X' is the service reference @b; it must be a constant value.",
            "[invalid-value] '123' in the `types:` section is not a class name.",
            "[invalid-value] 'App\\With Space' in the `types:` section is not a class name.",
            "[invalid-value] 'int' in the `types:` section is a built-in type, not a class name.",
            "[invalid-value] The key '0' of 'types › App\\C › constructor' is not a parameter name.",
            "[invalid-value] The key '1.5' of 'types › App\\C › constructor' is not a parameter name.",
            "[invalid-value] The key '0' of 'types › App\\C › constants' is not a constant name.",
            "[invalid-value] The key 'do it' of 'types › App\\C › methods' is not a method name.",
            "[invalid-value] The item 'types › App\\D › extends' expects to be class name or list of class names, 5 given.",
            "[invalid-value] '@X' in 'types › App\\D › implements' is not a class name.",
        ]
    );
}

/// A key written twice in one object of a JSON catalog (a class, a parameter) is an error at
/// the second one; it kept the last value in silence, where NEON reports a duplicated key.
#[test]
fn a_key_written_twice_in_a_json_catalog_is_an_error() {
    for (text, key) in [
        (
            r#"{"types": {"App\\Db": {"constructor": {"dsn": "string"}}, "App\\Db": {}}}"#,
            "App\\Db",
        ),
        (
            r#"{"types": {"App\\Db": {"constructor": {"dsn": "string", "dsn": "int"}}}}"#,
            "dsn",
        ),
        (r#"{"types": {}, "types": {"App\\Db": {}}}"#, "types"),
    ] {
        let (catalog, problems) = read(&[("dup.json", text)]);
        assert_eq!(
            problems,
            [format!("[invalid-value] The catalog is not valid: the key '{key}' is written twice in one object.")],
            "{text}"
        );
        assert!(catalog.classes().next().is_none(), "{text}");
        // At the second key, whole, and the first one labelled (they pointed at the second
        // key's closing quote alone).
        let (_, diags, _) = read_catalogs(&[("dup.json", text)]);
        let d = &diags.items()[0];
        let quoted = serde_json::to_string(key).expect("a JSON string");
        let primary = d.labels.iter().find(|l| l.primary).expect("primary");
        let first = d
            .labels
            .iter()
            .find(|l| !l.primary)
            .expect("first written here");
        let at = |span: wireplan::source::Span| &text[span.start as usize..span.end as usize];
        assert_eq!(
            (at(primary.span), at(first.span)),
            (&*quoted, &*quoted),
            "{text}"
        );
        assert!(first.span.start < primary.span.start, "{text}");
        assert_eq!(first.message, "first written here");
    }
}

/// Problems with a key of the catalog (an unknown key, a class or parameter name that is not
/// one) are reported at the key, in a configuration's `types:` section and in a catalog file
/// alike; they pointed at the value, or past the key where it had none.
#[test]
fn problems_with_a_key_point_at_the_key() {
    let types = "types:\n\tApp\\V:\n\t\tconstructr:\n\t\t\ta: int\n\tint:\n\t\
                 App\\W:\n\t\tconstructor:\n\t\t\tb: {type: int, colour: red}\n\t\t\
                 methods:\n\t\t\tm: {returns: int, bogus: 1}\n";
    let expected = [(3, 3), (5, 2), (8, 19), (10, 22)];
    let dir = tempfile::tempdir().expect("temp dir");
    // The section of a configuration (read as it streams to the catalog's reader).
    let config = dir.path().join("app.neon");
    std::fs::write(&config, types).expect("write");
    let run = wireplan::compiler::compile(&config, &Default::default());
    let at: Vec<(usize, usize)> =
        wireplan::diagnostics::to_json(&run.sources, run.diagnostics.items())
            .iter()
            .map(|d| (d.line.unwrap_or(0), d.column.unwrap_or(0)))
            .collect();
    assert_eq!(at, expected);
    // A catalog file merged with the configuration.
    let catalog = dir.path().join("types.neon");
    std::fs::write(&catalog, types).expect("write");
    std::fs::write(&config, "services:\n").expect("write");
    let options = wireplan::compiler::Options {
        catalogs: vec![CatalogInput::File(catalog)],
        ..Default::default()
    };
    let run = wireplan::compiler::compile(&config, &options);
    let at: Vec<(usize, usize)> =
        wireplan::diagnostics::to_json(&run.sources, run.diagnostics.items())
            .iter()
            .filter(|d| d.file.as_deref().is_some_and(|f| f.ends_with("types.neon")))
            .map(|d| (d.line.unwrap_or(0), d.column.unwrap_or(0)))
            .collect();
    assert_eq!(at, expected);
}

/// Writing the catalog (`WIREPLAN_WRITE_CATALOG`, the golden test's update) replaces only a
/// catalog: a mistyped path that names the configuration or a source file is refused and the
/// file is left as it was; a new file, an empty one and an earlier catalog of either form are
/// written.
#[test]
fn writing_the_catalog_replaces_only_a_catalog() {
    use wireplan_runtime::catalog::write_catalog;
    let dir = tempfile::tempdir().unwrap();
    let registry = mailer_registry(true);
    for (name, text) in [
        ("app.neon", MAILER_CONFIG),
        ("main.rs", "fn main() {\n    println!(\"hi\");\n}\n"),
        (
            "other.json",
            "{\"format\": \"wireplan-plan\", \"services\": {}}",
        ),
        ("notes.json", "not json at all"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let e = write_catalog(&registry, &path).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(name), "{msg}");
        assert!(msg.contains("it exists and is not"), "{msg}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            text,
            "{name} changed"
        );
    }
    // New, empty, and earlier catalogs (the stale catalog has another constructor).
    let old = mailer_registry(false);
    for name in ["new.json", "new.neon", "empty.json"] {
        let path = dir.path().join(name);
        if name.starts_with("empty") {
            std::fs::write(&path, "\n").unwrap();
        }
        write_catalog(&registry, &path).unwrap();
    }
    for name in ["stale.json", "stale.neon"] {
        let path = dir.path().join(name);
        write_catalog(&old, &path).unwrap();
        let before = std::fs::read_to_string(&path).unwrap();
        write_catalog(&registry, &path).unwrap();
        let after = std::fs::read_to_string(&path).unwrap();
        assert_ne!(before, after, "{name}");
        assert!(after.contains("from"), "{name}: {after}");
    }
    // A hand-written NEON catalog with comments is a catalog too.
    let path = dir.path().join("hand.neon");
    std::fs::write(&path, "# classes\ntypes:\n\tApp\\X: {}\n").unwrap();
    write_catalog(&registry, &path).unwrap();
}

/// A class in a configuration's `types:` and in a `--catalog` file: the message names both
/// places (it said "and before it"; fourth new user's trial).
#[test]
fn a_class_in_types_and_in_a_catalog_file_names_both() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("config.neon"),
        "types:\n\tApp\\A: {}\nservices:\n\ta: App\\A\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("one.json"), r#"{"types": {"App\\A": {}}}"#).expect("write");
    let (got, shown) = check_json(dir.path(), "one.json");
    let d = got
        .iter()
        .find(|d| d["code"] == "duplicate-class")
        .unwrap_or_else(|| panic!("a duplicate-class error in {shown}"));
    assert_eq!(
        d["message"],
        "Class App\\A is declared twice: in the catalog 'one.json' and in `types:` of 'config.neon'."
    );
}

/// A class in `types:` and in a catalog file: the services are checked against the file's
/// entry (what the registry exports from the Rust code), so the duplicate is the only error.
/// Checked against the hand-written entry (a Nette user's trial, who re-declared a registered
/// class to add an `inject: true` property), they got "has no constructor" and "not
/// callable" for members the Rust class has.
#[test]
fn a_class_in_types_and_in_a_catalog_file_is_checked_against_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("config.neon"),
        "types:\n\tApp\\Repo:\n\t\tproperties:\n\t\t\tcache: {type: App\\Cache, inject: true}\n\
         services:\n\t- App\\Cache\n\trepo:\n\t\tcreate: App\\Repo(@App\\Cache)\n\
         \t\tsetup:\n\t\t\t- setLogger(@App\\Cache)\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("one.json"),
        r#"{"types": {"App\\Cache": {}, "App\\Repo": {"constructor": {"cache": {"type": "App\\Cache"}},
            "methods": {"setLogger": {"params": {"l": {"type": "App\\Cache"}}}}}}}"#,
    )
    .expect("write");
    let (got, shown) = check_json(dir.path(), "one.json");
    let codes: Vec<&str> = got.iter().filter_map(|d| d["code"].as_str()).collect();
    assert_eq!(codes, ["duplicate-class"], "{shown}");
}

/// An argument error for a class the catalog file describes says that the catalog may be
/// older than the Rust code and how it is written again; the same error for a class of the
/// `types:` section does not (found by a new user's trial, who added a constructor parameter
/// and ran `check` against the catalog written before).
#[test]
fn an_argument_error_of_a_catalog_file_class_says_the_catalog_may_be_stale() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.neon");
    let catalog = dir.path().join("catalog.json");
    // `App\Mailer(from)` in the registry; the configuration passes a parameter it lacks.
    std::fs::write(
        &config,
        "types:\n\tApp\\Local:\n\t\tconstructor:\n\t\t\tn: int\nservices:\n\t- App\\Smtp\n\tmailer: App\\Mailer(from: x, timeout: 5)\n\tlocal: App\\Local(n: 1, timeout: 5)\n",
    )
    .unwrap();
    wireplan_runtime::catalog::write_catalog(&mailer_registry(true), &catalog).unwrap();
    let (diags, _) = check_json(dir.path(), "catalog.json");
    let notes_of = |line: u64| -> Vec<String> {
        let d = diags
            .iter()
            .find(|d| d["line"] == line)
            .unwrap_or_else(|| panic!("no diagnostic on line {line}: {diags:?}"));
        assert_eq!(d["code"], "unknown-argument", "{d}");
        d["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        notes_of(7),
        [
            "no parameter accepts $timeout".to_string(),
            "App\\Mailer::__construct() takes ($transport, $from)".to_string(),
            "App\\Mailer is read from a catalog file: if its Rust code changed since the catalog \
             was written, write it again (WIREPLAN_WRITE_CATALOG=FILE cargo run; docs/catalog.md)"
                .to_string()
        ]
    );
    assert_eq!(
        notes_of(8),
        [
            "no parameter accepts $timeout",
            "App\\Local::__construct() takes ($n)"
        ]
    );
}

/// A constructor parameter whose type no catalog declares, in a class of a catalog file, says
/// the catalog may be stale too (a new user's trial saw only the service's line).
#[test]
fn an_unknown_parameter_type_of_a_catalog_file_class_says_the_catalog_may_be_stale() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("config.neon"),
        "services:\n\torders: App\\Orders\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("catalog.json"),
        r#"{"types": {"App\\Orders": {"constructor": {"mailer": "App\\Ghost"}}}}"#,
    )
    .unwrap();
    let (diags, shown) = check_json(dir.path(), "catalog.json");
    assert_eq!(diags.len(), 1, "{shown}");
    assert_eq!(diags[0]["code"], "class-not-found", "{shown}");
    assert_eq!(
        diags[0]["notes"],
        serde_json::json!([
            "App\\Orders is read from a catalog file: if its Rust code changed since the catalog \
             was written, write it again (WIREPLAN_WRITE_CATALOG=FILE cargo run; docs/catalog.md)"
        ]),
        "{shown}"
    );
}

/// Dev mode reads the registry's catalog in process, so its argument errors do not say that a
/// catalog file may be older than the Rust code (there is no file), and a class it lacks is to
/// be registered, not written to a catalog file again (a new user's trial was sent to
/// regenerate a file dev mode never reads).
#[test]
fn the_registry_catalog_read_in_process_is_not_called_a_catalog_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.neon");
    std::fs::write(
        &config,
        "services:\n\tmailer: App\\Mailer(from: x, timeout: 5)\n\tghost: App\\Ghost\n",
    )
    .unwrap();
    let options = wireplan::compiler::Options {
        catalogs: vec![wireplan::dev::registry_catalog(&mailer_registry(true))],
        ..Default::default()
    };
    let run = wireplan::compiler::compile(&config, &options);
    let notes = |code: &str| -> Vec<String> {
        run.diagnostics
            .items()
            .iter()
            .find(|d| d.code.as_str() == code)
            .unwrap_or_else(|| panic!("no {code}: {:?}", run.diagnostics.items()))
            .notes
            .clone()
    };
    assert_eq!(
        notes("unknown-argument"),
        [
            "no parameter accepts $timeout",
            "App\\Mailer::__construct() takes ($transport, $from)"
        ]
    );
    assert_eq!(
        notes("class-not-found"),
        [
            "Neither the `types:` section nor the registry declares it: register the type in the \
          application's registry (dev mode reads the registry's catalog as the program runs), \
          or add it to the `types:` section (docs/catalog.md)."
        ]
    );
}

/// A JSON catalog that starts with a UTF-8 byte-order mark (as Windows editors write it) is
/// read like one without, as NEON files, plans and NEON catalogs are (a new user's trial: it
/// was "not valid JSON" with a note to rename it `*.neon`); a syntax error still points at
/// the byte serde stopped at.
#[test]
fn a_json_catalog_with_a_byte_order_mark_is_read() {
    let doc = "{\"format\": \"wireplan-catalog\", \"version\": 1, \"types\": {\"App\\\\A\": {\"constructor\": {\"n\": \"int\"}}}}";
    let (plain, problems) = read(&[("c.json", doc)]);
    assert!(problems.is_empty(), "{problems:?}");
    let (marked, problems) = read(&[("c.json", &format!("\u{feff}{doc}"))]);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        marked.constructor("App\\A").len(),
        plain.constructor("App\\A").len()
    );
    assert_eq!(&*marked.constructor("App\\A")[0].name, "n");

    // `{]` on the first line: serde stops at the `]`, byte 1 after the mark's three bytes,
    // which the source map's columns do not count (column 2, as in an editor).
    let (_, diags, sources) = read_catalogs(&[("c.json", "\u{feff}{]")]);
    assert_eq!(diags.items().len(), 1);
    let d = &diags.items()[0];
    assert!(
        d.message.starts_with("The catalog is not valid JSON"),
        "{}",
        d.message
    );
    let span = d.primary_span().expect("a position");
    assert_eq!(span.start, 4);
    assert_eq!(sources.get(span.file).line_col(span.start as usize), (1, 2));
    assert!(d.notes.is_empty(), "{:?}", d.notes);
}
