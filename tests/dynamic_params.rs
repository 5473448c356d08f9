//! Typed dynamic parameters end to end: the `dynamicParameters:` section and the catalog types
//! decide how a value given at start-up is converted; the loader reports every missing or
//! invalid dynamic parameter at once, naming the parameter, the value (unless sensitive), the
//! expected type and the services that read it. Values are supplied through
//! `ContainerBuilder::parameter` with the environment turned off, so no test depends on (or
//! changes) the process environment.

use std::path::PathBuf;

use wireplan::compiler::{compile, Options};
use wireplan::diagnostics::Severity;
use wireplan_runtime::plan::Plan;
use wireplan_runtime::{register, Container, Error, Registry};

#[derive(Debug)]
struct Server {
    port: i64,
    debug: bool,
    ratio: f64,
    name: String,
}

#[derive(Debug)]
struct Db {
    dsn: String,
    timeout: Option<i64>,
}

fn registry() -> Registry {
    let mut r = Registry::new();
    register!(r, "App\\Server" => Server {
        new(port: i64, debug: bool, ratio: f64, name: String) { Server { port, debug, ratio, name } }
    });
    register!(r, "App\\Db" => Db {
        new(dsn: String, timeout: Option<i64>) { Db { dsn, timeout } }
        property poolSize(&mut this, n: i64) { this.timeout = Some(n * 1000) }
    });
    r
}

const TYPES: &str = "types:
\tApp\\Server:
\t\tconstructor:
\t\t\tport: int
\t\t\tdebug: bool
\t\t\tratio: float
\t\t\tname: string
\tApp\\Db:
\t\tconstructor:
\t\t\tdsn: string
\t\t\ttimeout: {type: ?int, default: null}
\t\tproperties:
\t\t\tpoolSize: int
";

/// The configuration file (types, 13 lines, then `body`) written to a temporary folder.
fn config(body: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("config.neon");
    std::fs::write(&path, format!("{TYPES}{body}")).expect("write config");
    (dir, path)
}

/// The load error's text with the temporary folder left out of each `defined at` location
/// (`defined at config.neon:18:10`).
fn shown(e: &Error) -> String {
    let text = e.to_string();
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("defined at ") {
        let start = i + "defined at ".len();
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        if let Some(j) = rest.find("config.neon:") {
            rest = &rest[j..];
        }
    }
    out.push_str(rest);
    out
}

/// Compiles `body`; panics with the diagnostics when it does not compile.
fn plan(body: &str, dynamic: &[&str]) -> Plan {
    let (_dir, path) = config(body);
    let options = Options {
        dynamic: dynamic.iter().map(|s| s.to_string()).collect(),
        ..Options::default()
    };
    let c = compile(&path, &options);
    match c.plan {
        Some(p) => p,
        None => panic!("{:#?}", c.diagnostics.items()),
    }
}

/// Compiles `body` and returns its errors as (code, line, message).
fn errors(body: &str) -> Vec<(String, usize, String)> {
    let (_dir, path) = config(body);
    let c = compile(&path, &Options::default());
    assert!(c.plan.is_none(), "expected errors");
    c.diagnostics
        .items()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let line = d
                .primary_span()
                .map(|s| c.sources.get(s.file).line_col(s.start as usize).0)
                .unwrap_or(0);
            (d.code.as_str().to_string(), line, d.message.clone())
        })
        .collect()
}

fn load(plan: &Plan, given: &[(&str, &str)]) -> Result<Container, Error> {
    Container::builder(&registry_static())
        .read_environment(false)
        .parameters(given.iter().map(|(k, v)| (k.to_string(), v.to_string())))
        .from_plan(plan.clone())
}

fn registry_static() -> Registry {
    registry()
}

const SERVER: &str = "services:
\tserver: App\\Server(%env.WP_PORT%, %env.WP_DEBUG%, %env.WP_RATIO%, %env.WP_NAME%)
";

#[test]
fn values_are_converted_to_the_catalog_types() {
    let p = plan(SERVER, &[]);
    // The compiler took each parameter's type from the catalog.
    let types: Vec<(&str, Option<&str>)> = p
        .dynamic
        .iter()
        .map(|(n, d)| (n.as_str(), d.type_.as_deref()))
        .collect();
    assert_eq!(
        types,
        [
            ("env.WP_PORT", Some("int")),
            ("env.WP_DEBUG", Some("bool")),
            ("env.WP_RATIO", Some("float")),
            ("env.WP_NAME", Some("string")),
        ]
    );
    let c = load(
        &p,
        &[
            ("env.WP_PORT", "8080"),
            ("env.WP_DEBUG", "yes"),
            ("env.WP_RATIO", "0.25"),
            ("env.WP_NAME", "web1"),
        ],
    )
    .expect("loads");
    let s = c.get::<Server>("server").expect("server");
    assert_eq!(
        (s.port, s.debug, s.ratio, s.name.as_str()),
        (8080, true, 0.25, "web1")
    );
}

#[test]
fn a_declared_default_applies_when_the_parameter_is_absent() {
    let body = format!(
        "dynamicParameters:\n\tenv.WP_PORT: {{type: int, default: 8080}}\n\
         \tenv.WP_DEBUG: {{type: bool, default: false}}\n{SERVER}"
    );
    let p = plan(&body, &[]);
    let port = &p.dynamic["env.WP_PORT"];
    assert_eq!(port.type_.as_deref(), Some("int"));
    assert!(!port.required, "a parameter with a default is not required");
    let given = [("env.WP_RATIO", "1"), ("env.WP_NAME", "n")];
    let c = load(&p, &given).expect("the defaults fill the gaps");
    let s = c.get::<Server>("server").expect("server");
    assert_eq!((s.port, s.debug, s.ratio), (8080, false, 1.0));
    assert_eq!(
        c.parameter("env.WP_PORT").unwrap(),
        wireplan_runtime::Value::Int(8080)
    );
    // A given value wins over the default, and is converted too.
    let c = load(&p, &[("env.WP_PORT", "9090"), given[0], given[1]]).expect("loads");
    assert_eq!(c.get::<Server>("server").unwrap().port, 9090);
}

#[test]
fn every_missing_parameter_is_reported_at_load_with_its_services() {
    let body = format!(
        "dynamicParameters:\n\tenv.WP_DSN: {{type: string, required: true}}\n\
         \tenv.WP_UNUSED: {{type: string, required: true}}\n{SERVER}\
         \tdb: App\\Db(%env.WP_DSN%)\n\tdb2: App\\Db(%env.WP_DSN%)\n"
    );
    let p = plan(&body, &[]);
    let e = load(&p, &[("env.WP_DEBUG", "1"), ("env.WP_NAME", "x")])
        .expect_err("missing parameters fail the load");
    assert!(matches!(e, Error::DynamicParameters { .. }), "{e}");
    // Each names where the (first) service that needs it is defined: the plan may be read
    // from a cache or deploy folder, far from the configuration.
    assert_eq!(
        shown(&e),
        "<plan>: 4 dynamic parameter(s) missing or invalid:\n  \
         - 'env.WP_DSN' (string) is missing: set the environment variable WP_DSN or pass it to \
         ContainerBuilder::parameter; needed by services 'db', 'db2' (the first defined at \
         config.neon:19:6)\n  \
         - 'env.WP_UNUSED' (string) is missing: set the environment variable WP_UNUSED or pass \
         it to ContainerBuilder::parameter\n  \
         - 'env.WP_PORT' (int) is missing: set the environment variable WP_PORT or pass it to \
         ContainerBuilder::parameter; needed by service 'server' (defined at \
         config.neon:18:10)\n  \
         - 'env.WP_RATIO' (float) is missing: set the environment variable WP_RATIO or pass it \
         to ContainerBuilder::parameter; needed by service 'server' (defined at \
         config.neon:18:10)"
    );
}

#[test]
fn a_wrong_value_names_the_parameter_the_value_the_type_and_the_service() {
    let p = plan(SERVER, &[]);
    let e = load(
        &p,
        &[
            ("env.WP_PORT", "abc"),
            ("env.WP_DEBUG", "maybe"),
            ("env.WP_RATIO", "inf"),
            ("env.WP_NAME", "web1"),
        ],
    )
    .expect_err("PORT=abc fails the load");
    assert_eq!(
        shown(&e),
        "<plan>: 3 dynamic parameter(s) missing or invalid:\n  \
         - 'env.WP_PORT' is 'abc', which is not a valid int; needed by service 'server' \
         (defined at config.neon:15:10)\n  \
         - 'env.WP_DEBUG' is 'maybe', which is not a valid bool; needed by service 'server' \
         (defined at config.neon:15:10)\n  \
         - 'env.WP_RATIO' is 'inf', which is not a valid float; needed by service 'server' \
         (defined at config.neon:15:10)"
    );
}

#[test]
fn sensitive_values_are_not_echoed() {
    // Sensitive through the schema, and through `wireplan › sensitive`.
    let body = format!(
        "wireplan:\n\tsensitive: [secretPort]\n\
         parameters:\n\tsecretPort: 1\n\
         dynamicParameters:\n\tenv.WP_PORT: {{type: int, sensitive: true}}\n{SERVER}\
         \tother: App\\Server(%secretPort%, true, 1.0, x)\n"
    );
    let p = plan(&body, &[]);
    assert!(p.dynamic["env.WP_PORT"].sensitive);
    assert!(p.dynamic["secretPort"].sensitive);
    assert_eq!(p.dynamic["secretPort"].type_.as_deref(), Some("int"));
    let e = load(
        &p,
        &[
            ("env.WP_PORT", "hunter2"),
            ("secretPort", "swordfish"),
            ("env.WP_DEBUG", "1"),
            ("env.WP_RATIO", "1"),
            ("env.WP_NAME", "n"),
        ],
    )
    .expect_err("not ints");
    let msg = shown(&e);
    assert!(
        !msg.contains("hunter2") && !msg.contains("swordfish"),
        "{msg}"
    );
    assert_eq!(
        msg,
        "<plan>: 2 dynamic parameter(s) missing or invalid:\n  \
         - 'env.WP_PORT' cannot be converted to int (the value is not shown: the parameter is \
         sensitive); needed by service 'server' (defined at config.neon:21:10)\n  \
         - 'secretPort' cannot be converted to int (the value is not shown: the parameter is \
         sensitive); needed by service 'other' (defined at config.neon:22:9)"
    );
}

#[test]
fn nullable_parameters_are_null_when_absent_or_empty() {
    let body = "dynamicParameters:\n\tenv.WP_TIMEOUT: ?int\n\
                services:\n\tdb: App\\Db(dsn, %env.WP_TIMEOUT%)\n";
    let p = plan(body, &[]);
    assert_eq!(p.dynamic["env.WP_TIMEOUT"].type_.as_deref(), Some("?int"));
    assert!(!p.dynamic["env.WP_TIMEOUT"].required);
    let c = load(&p, &[]).expect("nullable: not required");
    assert_eq!(c.get::<Db>("db").unwrap().timeout, None);
    let c = load(&p, &[("env.WP_TIMEOUT", "")]).expect("empty is null");
    assert_eq!(c.get::<Db>("db").unwrap().timeout, None);
    let c = load(&p, &[("env.WP_TIMEOUT", "30")]).expect("loads");
    let db = c.get::<Db>("db").unwrap();
    assert_eq!((db.dsn.as_str(), db.timeout), ("dsn", Some(30)));

    // Undeclared: the catalog's `?int` makes it nullable too.
    let p = plan("services:\n\tdb: App\\Db(dsn, %env.WP_TIMEOUT%)\n", &[]);
    assert_eq!(p.dynamic["env.WP_TIMEOUT"].type_.as_deref(), Some("?int"));
    assert!(!p.dynamic["env.WP_TIMEOUT"].required);
    let c = load(&p, &[]).expect("nullable: not required");
    assert_eq!(c.get::<Db>("db").unwrap().timeout, None);

    // Declared nullable where the catalog wants a plain int: null could not be passed.
    let errs = errors(
        "dynamicParameters:\n\tenv.WP_PORT: ?int\n\
         services:\n\tserver: App\\Server(%env.WP_PORT%, true, 0.5, x)\n",
    );
    assert_eq!(
        errs,
        [(
            "invalid-value".to_string(),
            17,
            "Dynamic parameter 'env.WP_PORT' is declared ?int in 'dynamicParameters', but \
             parameter $port of App\\Server::__construct() expects int (service 'server')."
                .to_string()
        )]
    );
}

#[test]
fn a_value_given_as_a_number_is_accepted_and_a_declared_dynamic_name_is_typed() {
    let body = "dynamicParameters:\n\tport: int\n\
                services:\n\tserver: App\\Server(%port%, true, 0.5, x)\n";
    let p = plan(body, &["port"]);
    let c = Container::builder(&registry())
        .read_environment(false)
        .parameter("port", 7000_i64)
        .from_plan(p)
        .expect("loads");
    assert_eq!(c.get::<Server>("server").unwrap().port, 7000);
}

#[test]
fn schema_errors_are_positioned_and_all_reported() {
    let body = "dynamicParameters:\n\
                \tenv.WP_PORT: {type: integr, defualt: 1}\n\
                \tenv.WP_A: {type: integer, default: 8080}\n\
                \tenv.WP_B: {type: int, default: abc}\n\
                \tenv.WP_C: {type: string, required: true, default: x}\n\
                \tport: int\n\
                \tenv.: int\n\
                services:\n\tdb: App\\Db(x)\n";
    let errs = errors(body);
    let want: Vec<(String, usize, String)> = [
        (
            "unknown-option",
            15,
            "Unexpected item 'dynamicParameters\u{a0}›\u{a0}env.WP_PORT\u{a0}›\u{a0}defualt', \
             did you mean 'default'?",
        ),
        // A misspelt key does not hide the entry's other error (the new user's trial).
        (
            "invalid-value",
            15,
            "The type of dynamic parameter 'env.WP_PORT' expects to be one of int, float, bool, \
             string, mixed (with '?' for nullable), 'integr' given.",
        ),
        (
            "invalid-value",
            16,
            "The type of dynamic parameter 'env.WP_A' expects to be one of int, float, bool, \
             string, mixed (with '?' for nullable), 'integer' given.",
        ),
        (
            "invalid-value",
            17,
            "The default of dynamic parameter 'env.WP_B' expects to be int, 'abc' given.",
        ),
        (
            "invalid-value",
            18,
            "Dynamic parameter 'env.WP_C' is required and has a default; a default is only \
             used when the value is not given.",
        ),
        (
            "invalid-value",
            19,
            "'port' in 'dynamicParameters' is not a dynamic parameter.",
        ),
        (
            "invalid-value",
            20,
            "'env.' in 'dynamicParameters' names no environment variable.",
        ),
    ]
    .into_iter()
    .map(|(c, l, m)| (c.to_string(), l, m.to_string()))
    .collect();
    assert_eq!(errs, want);
}

#[test]
fn a_sensitive_parameter_cannot_have_a_default() {
    let errs = errors(
        "dynamicParameters:\n\tenv.WP_KEY: {type: string, sensitive: true, default: devkey}\n\
         services:\n\tdb: App\\Db(%env.WP_KEY%)\n",
    );
    assert_eq!(
        errs,
        [(
            "invalid-value".to_string(),
            15,
            "Dynamic parameter 'env.WP_KEY' is sensitive and cannot have a default: the plan \
             would hold the value."
                .to_string()
        )]
    );
}

#[test]
fn catalog_types_that_disagree_are_compile_errors() {
    // Declared string, used where the catalog wants int.
    let errs = errors(
        "dynamicParameters:\n\tenv.WP_PORT: string\n\
         services:\n\tserver: App\\Server(%env.WP_PORT%, true, 0.5, x)\n",
    );
    assert_eq!(
        errs,
        [(
            "invalid-value".to_string(),
            17,
            "Dynamic parameter 'env.WP_PORT' is declared string in 'dynamicParameters', but \
             parameter $port of App\\Server::__construct() expects int (service 'server')."
                .to_string()
        )]
    );
    // Undeclared, used as int and as string.
    let errs = errors(
        "services:\n\tserver: App\\Server(%env.WP_X%, true, 0.5, x)\n\
         \tdb: App\\Db(%env.WP_X%)\n",
    );
    assert_eq!(
        errs,
        [(
            "invalid-value".to_string(),
            16,
            "Dynamic parameter 'env.WP_X' fills parameter $port of App\\Server::__construct() \
             (service 'server'), which expects int, and parameter $dsn of \
             App\\Db::__construct() (service 'db'), which expects string."
                .to_string()
        )]
    );
}

#[test]
fn a_property_write_converts_to_the_property_type() {
    let p = plan(
        "services:\n\tdb:\n\t\tcreate: App\\Db(dsn)\n\t\tsetup:\n\t\t\t- $poolSize = %env.WP_POOL%\n",
        &[],
    );
    assert_eq!(p.dynamic["env.WP_POOL"].type_.as_deref(), Some("int"));
    let c = load(&p, &[("env.WP_POOL", "4")]).expect("loads");
    assert_eq!(c.get::<Db>("db").unwrap().timeout, Some(4000));
    let e = load(&p, &[("env.WP_POOL", "four")]).expect_err("not an int");
    assert_eq!(
        shown(&e),
        "<plan>: 1 dynamic parameter(s) missing or invalid:\n  \
         - 'env.WP_POOL' is 'four', which is not a valid int; needed by service 'db' (defined \
         at config.neon:16:3)"
    );
}

/// `-p env.NAME=…` fixes that one name at compile time; every other `%env.*%` is still read
/// at start-up. A parameter `env` written in the files (or `-p env=…` whole) makes `%env.*%`
/// ordinary parameters, and a name it lacks is missing (as in Nette).
#[test]
fn an_env_override_fixes_one_name_and_leaves_the_rest_read_at_start_up() {
    let body = "services:\n\tdb: App\\Db(%env.WP_DSN%, %env.WP_TIMEOUT%)\n";
    let (_dir, path) = config(body);
    // `-p` values, decoded as NEON as the CLI does.
    let compile_with = |overrides: &[(&str, &str)]| {
        let mut sources = wireplan::source::SourceMap::new();
        let mut options = Options::default();
        for (name, text) in overrides {
            let id = sources.add(format!("<-p {name}>"), text.to_string());
            let value = wireplan::neon::decode(text, id).expect("valid NEON");
            options.parameters.insert(name.to_string(), value);
        }
        compile(&path, &options)
    };
    let c = compile_with(&[("env.WP_DSN", "main.db")]);
    let plan = c
        .plan
        .unwrap_or_else(|| panic!("{:#?}", c.diagnostics.items()));
    let dynamic: Vec<&String> = plan.dynamic.keys().collect();
    assert_eq!(dynamic, ["env.WP_TIMEOUT"]);
    let container = load(&plan, &[("env.WP_TIMEOUT", "30")]).unwrap();
    let db = container.get::<Db>("db").unwrap();
    assert_eq!((db.dsn.as_str(), db.timeout), ("main.db", Some(30)));

    // `-p env={…}` gives the whole map: a name it lacks is a missing parameter.
    let c = compile_with(&[("env", "{WP_DSN: x}")]);
    assert!(c.plan.is_none());
    let missing: Vec<String> = c
        .diagnostics
        .items()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}: {}", d.code.as_str(), d.message))
        .collect();
    assert_eq!(
        missing,
        ["missing-parameter: Missing parameter 'env.WP_TIMEOUT'."]
    );
}

/// A parameter made dynamic with `--dynamic` is a DynamicParameter in scripts too: joined
/// with + it gives a start-up concatenation, and `%port%` in what a script loads reads it at
/// start-up. It was missing from `getParameters()`, so the join silently dropped it and the
/// loaded `%port%` was reported missing (sixth new user's trial).
#[test]
fn a_dynamic_parameter_given_on_the_command_line_reaches_scripts() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("ext.rhai"),
        "fn loadConfiguration() {\n\
         \tlet p = this.getContainerBuilder().getParameters();\n\
         \tthis.getContainerBuilder().addDefinition(\"joined\").setFactory(\"App\\\\Db\", [\"redis://\" + p.host + \":\" + p.port]);\n\
         \tthis.loadDefinitionsFromConfig(#{ loaded: #{ create: \"App\\\\Db\", arguments: [\"%host%/%port%\"] } });\n\
         }\n",
    )
    .expect("write script");
    let path = dir.path().join("config.neon");
    std::fs::write(
        &path,
        "types:\n\tApp\\Db:\n\t\tconstructor: {dsn: string}\n\
         parameters:\n\thost: cache\n\tport: 6379\n\
         extensions:\n\tx: ext.rhai\n",
    )
    .expect("write config");
    let options = Options {
        dynamic: vec!["port".into()],
        ..Options::default()
    };
    let c = compile(&path, &options);
    let plan = c
        .plan
        .unwrap_or_else(|| panic!("{:#?}", c.diagnostics.items()));
    let args =
        |name: &str| serde_json::to_value(&plan.services[name].create).unwrap()["args"].clone();
    assert_eq!(
        args("joined"),
        serde_json::json!([{"$concat": ["redis://cache:", {"$param": "port"}]}])
    );
    assert_eq!(
        args("x.loaded"),
        serde_json::json!([{"$concat": ["cache/", {"$param": "port"}]}])
    );
}
