//! The binary plan read straight into the container's tables (`stream`) against the model
//! path (decode, check, compile): the same container for the plans it takes, the same
//! errors for every plan with a problem, and the model built only when asked for.

use std::sync::Mutex;

use serde_json::{json, Value as Json};

use crate::encoding::{checksum, BINARY_HEADER_LEN};
use crate::plan::Plan;
use crate::{Args, CallResult, Container, Registry, Value};

/// Records every argument it was given, in order.
struct Recorder {
    seen: Vec<String>,
    bumps: Mutex<i64>,
}

struct Part(i64);

struct Tuned {
    level: i64,
    note: String,
}

trait Named: Send + Sync {
    fn id(&self) -> i64;
}

impl Named for Part {
    fn id(&self) -> i64 {
        self.0
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b}"),
        Value::Int(i) => format!("{i}"),
        Value::Float(f) => format!("{f:?}"),
        Value::Str(s) => format!("{s:?}"),
        Value::Service(inst) => match inst.downcast::<Part>() {
            Some(p) => format!("Part({})", p.0),
            None => inst.type_name().to_string(),
        },
        other => other.kind(),
    }
}

fn record(a: &Args<'_>) -> CallResult<Recorder> {
    Ok(Recorder {
        seen: a.values().iter().map(describe).collect(),
        bumps: Mutex::new(0),
    })
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.class::<Recorder>("App\\Recorder")
        .constructor(record)
        .method("bump", |t, a| {
            *t.bumps.lock().expect("not poisoned") += a.int(0)?;
            Ok(())
        });
    r.class::<Part>("App\\Part")
        .signature(vec![crate::catalog::Param::of::<i64>("n")])
        .constructor(|a| Ok(Part(a.int(0)?)))
        .implements::<dyn Named>("App\\Named", |x| x);
    r.class::<Tuned>("App\\Tuned")
        .constructor(|_| {
            Ok(Tuned {
                level: 0,
                note: String::new(),
            })
        })
        .method_mut("setLevel", |t, a| {
            t.level = a.int(0)?;
            Ok(())
        })
        .property("note", |t, a| {
            t.note = a.str(0)?.to_string();
            Ok(())
        });
    // Registered without a caster to `App\Named`.
    r.class::<String>("App\\Label")
        .constructor(|a| Ok(a.str(0)?.to_string()));
    r.interface::<dyn Named>("App\\Named");
    r
}

/// An ordinary plan of every shape the stream takes.
fn ordinary() -> Json {
    json!({
        "format": "wireplan-plan", "version": 3, "compiler": "test", "inputs_hash": "0",
        "dependencies": [{"path": "config.neon", "hash": "1"}],
        "parameters": {"limit": 10, "db": {"host": "localhost", "ports": [1, 2]}},
        "services": {
            "rec": {
                "type": "App\\Recorder", "autowired": false,
                "tags": {"t": 1},
                "create": {"$new": "App\\Recorder", "args": [
                    1, -3, null, true, "text", 2.5,
                    {"$ref": "part"}, {"$ref": "p"}, {"$ref": "tuned"}
                ]},
                "setup": [{"$call": ["@self", "bump"], "args": [3]}],
                "source": {"file": "config.neon", "line": 3, "column": 5}
            },
            "part": {"type": "App\\Named", "create": {"$new": "App\\Part", "args": [7]},
                     "autowired": ["App\\Named"]},
            "tuned": {
                "type": "App\\Tuned",
                "create": {"$new": "App\\Tuned", "args": []},
                "setup": [
                    {"$call": ["@self", "setLevel"], "args": [5]},
                    {"$set": ["@self", "note"], "value": "tuned"}
                ]
            },
            "scoped": {"type": "App\\Part", "lifespan": "scoped",
                       "create": {"$new": "App\\Part", "args": [8]}},
            "fresh": {"type": "App\\Part", "lifespan": "transient",
                      "create": {"$new": "App\\Part", "args": [9]}}
        },
        "aliases": {"p": "part"},
        "types": {"App\\Named": ["part"], "App\\Part": ["part", "scoped", "fresh"],
                  "App\\Tuned": ["tuned"]},
        "tags": {"t": {"rec": 1, "part": {"weight": [1, 2]}}}
    })
}

fn to_plan(j: &Json) -> Plan {
    Plan::from_json_str(&j.to_string(), "<test>").expect("a plan")
}

/// Whether the container was read straight into its tables (its model not built yet).
fn streamed(c: &Container) -> bool {
    c.inner.model.cell.get().is_none()
}

/// The model path's answer for the same bytes, named as the stream's is.
fn by_model(bytes: &[u8], r: &Registry) -> Result<Container, crate::Error> {
    let plan = Plan::from_bytes(bytes, "<bytes>")?;
    Container::builder(r).from_plan_named(plan, "<bytes>")
}

/// Everything a caller can observe of a container without creating a service.
fn observe(c: &Container) -> String {
    let mut out = format!("{:?} {:?}", c.service_names().collect::<Vec<_>>(), c.plan());
    for tag in ["t", "u"] {
        out += &format!(" {tag}: {:?}", c.find_by_tag(tag));
    }
    for ty in ["App\\Named", "App\\Part", "App\\Nothing"] {
        out += &format!(" {ty}: {:?}", c.find_by_type(ty));
    }
    for p in ["limit", "db.host", "db.ports", "nope"] {
        out += &format!(" {p}: {:?}", c.parameter(p).map(|v| describe(&v)));
    }
    out
}

/// Every service created (or its error), by name, in a fresh scope.
fn create_all(c: &Container) -> String {
    let scope = c.scope();
    let names: Vec<String> = c.service_names().map(str::to_string).collect();
    names
        .iter()
        .map(|n| match scope.get_instance(n) {
            Ok(i) => format!("{n}: {}\n", i.type_name()),
            Err(e) => format!("{n}: {e}\n"),
        })
        .collect()
}

#[test]
fn an_ordinary_binary_plan_is_read_into_the_tables_and_builds_the_same_container() {
    let r = registry();
    let plan = to_plan(&ordinary());
    let bytes = plan.to_binary();
    let c = Container::from_bytes(&bytes, &r).unwrap();
    assert!(streamed(&c), "the ordinary plan is read without the model");
    let m = Container::builder(&r)
        .from_plan_named(plan.clone(), "<bytes>")
        .unwrap();

    // Creating services needs no model either.
    for c in [&c, &m] {
        let rec = c.get::<Recorder>("rec").unwrap();
        assert_eq!(
            rec.seen,
            [
                "1",
                "-3",
                "null",
                "true",
                "\"text\"",
                "2.5",
                "Part(7)",
                "Part(7)",
                "wireplan_runtime::container::stream::tests::Tuned"
            ]
        );
        assert_eq!(*rec.bumps.lock().unwrap(), 3);
        let tuned = c.get::<Tuned>("tuned").unwrap();
        assert_eq!((tuned.level, tuned.note.as_str()), (5, "tuned"));
        assert_eq!(c.get_by_type::<dyn Named>().unwrap().id(), 7);
        assert_eq!(c.get::<dyn Named>("p").unwrap().id(), 7);
        let scope = c.scope();
        assert_eq!(scope.get::<Part>("scoped").unwrap().0, 8);
        assert_eq!(c.get::<Part>("fresh").unwrap().0, 9);
        assert_eq!(c.warm_up().unwrap(), 0, "every singleton was created above");
    }
    assert!(streamed(&c), "nothing above needed the model");
    // An error names where the plan defined the service, which the model holds: it is decoded
    // then.
    let e = c.get::<Part>("scoped").err().expect("scoped needs a scope");
    assert_eq!(e.code(), "scope-required", "scoped needs a scope: {e}");
    assert_eq!(observe(&c), observe(&m));
    assert_eq!(
        c.plan(),
        &plan,
        "the model built on first use is the plan's"
    );
    assert!(!streamed(&c));
}

#[test]
fn a_forward_reference_and_a_reference_through_an_alias_resolve_at_the_end() {
    let r = registry();
    let mut j = ordinary();
    // `rec` comes first and refers to services read after it; `p` is an alias.
    j["services"]["rec"]["create"]["args"] = json!([{"$ref": "fresh"}, {"$ref": "p"}]);
    let c = Container::from_bytes(&to_plan(&j).to_binary(), &r).unwrap();
    assert!(streamed(&c));
    assert_eq!(
        c.get::<Recorder>("rec").unwrap().seen,
        ["Part(9)", "Part(7)"]
    );
}

/// One change of the ordinary plan per case: each is either refused (the stream gives up
/// and the model path words the problem) or taken through the model (a shape the stream
/// does not take); either way the answer is the model path's.
#[test]
fn every_problem_and_every_other_shape_gives_the_model_paths_answer() {
    let r = registry();
    type Change = fn(&mut Json);
    let cases: &[(&str, Change)] = &[
        ("unknown reference", |j| {
            j["services"]["rec"]["create"]["args"] = json!([{"$ref": "nobody"}])
        }),
        ("@self in create", |j| {
            j["services"]["rec"]["create"]["args"] = json!([{"$ref": "@self"}])
        }),
        ("@self in a setup argument", |j| {
            j["services"]["rec"]["setup"] =
                json!([{"$call": ["@self", "bump"], "args": [{"$ref": "@self"}]}])
        }),
        ("unregistered class", |j| {
            j["services"]["part"]["create"]["$new"] = json!("App\\Gone")
        }),
        ("unregistered method", |j| {
            j["services"]["tuned"]["setup"] = json!([{"$call": ["@self", "tune"], "args": []}])
        }),
        ("unregistered property", |j| {
            j["services"]["tuned"]["setup"] = json!([{"$set": ["@self", "tone"], "value": 1}])
        }),
        ("no caster for the declared interface", |j| {
            j["services"]["label"] = json!({"type": "App\\Named",
                "create": {"$new": "App\\Label", "args": ["x"]}})
        }),
        ("no caster for an autowired interface", |j| {
            j["services"]["label"] = json!({"type": "App\\Label",
                "create": {"$new": "App\\Label", "args": ["x"]}});
            j["types"]["App\\Named"] = json!(["part", "label"]);
        }),
        ("alias to nobody", |j| j["aliases"]["q"] = json!("nobody")),
        ("types lists nobody", |j| {
            j["types"]["App\\Part"] = json!(["nobody"])
        }),
        ("tag of nobody", |j| j["tags"]["u"] = json!({"nobody": 1})),
        ("tag value not plain", |j| {
            j["tags"]["u"] = json!({"rec": {"$ref": "part"}})
        }),
        ("a parameter that is a reference", |j| {
            j["parameters"]["svc"] = json!({"$ref": "part"})
        }),
        ("a parameter that is a reference to nobody", |j| {
            j["parameters"]["svc"] = json!({"$ref": "nobody"})
        }),
        (
            "initialization",
            |j| j["initialization"] = json!([{"$call": [{"$ref": "rec"}, "bump"], "args": [1]}]),
        ),
        ("a dynamic parameter", |j| {
            j["dynamic"] = json!({"env.LEVEL": {"type": "int", "default": 1}});
            j["services"]["tuned"]["setup"] =
                json!([{"$call": ["@self", "setLevel"], "args": [{"$param": "env.LEVEL"}]}]);
        }),
        ("a nested constructor call", |j| {
            j["services"]["rec"]["create"]["args"] =
                json!([{"$new": "App\\Part", "args": [1]}, [1, 2]])
        }),
        ("a factory", |j| {
            j["services"]["make"] = json!({"kind": "factory", "type": "App\\PartFactory",
                "implement": "App\\PartFactory",
                "create": {"$new": "App\\Part", "args": [{"$arg": "n"}]}, "parameters": ["n"]})
        }),
        ("a static factory call as create", |j| {
            j["services"]["part"]["create"] = json!({"$call": ["App\\Part", "make"], "args": []})
        }),
        ("a service requiring async", |j| {
            j["services"]["part"]["requires_async"] = json!(true)
        }),
        ("signatures that agree with the registry", |j| {
            j["version"] = json!(4);
            j["signatures"] = json!({"App\\Part": "n", "App\\Tuned::setLevel": "level"});
        }),
        ("a signature of other names", |j| {
            j["version"] = json!(4);
            j["signatures"] = json!({"App\\Part": "m"});
        }),
        ("a signature of another count", |j| {
            j["version"] = json!(4);
            j["signatures"] = json!({"App\\Part": "n, m"});
        }),
        ("a signature of a class the registry lacks", |j| {
            j["version"] = json!(4);
            j["signatures"] = json!({"App\\Gone": "a, b"});
        }),
        ("an expression nested too deeply", |j| {
            let mut deep = json!(1);
            for _ in 0..120 {
                deep = json!([deep]);
            }
            j["tags"]["u"] = json!({"rec": deep});
        }),
    ];
    for (what, change) in cases {
        let mut j = ordinary();
        change(&mut j);
        let bytes = to_plan(&j).to_binary();
        let got = Container::from_bytes(&bytes, &r);
        let want = by_model(&bytes, &r);
        match (&got, &want) {
            (Ok(c), Ok(m)) => {
                assert_eq!(create_all(c), create_all(m), "{what}");
                assert_eq!(observe(c), observe(m), "{what}");
            }
            (Err(g), Err(w)) => assert_eq!(g.to_string(), w.to_string(), "{what}"),
            _ => panic!(
                "{what}: stream {:?}, model {:?}",
                got.as_ref().err(),
                want.as_ref().err()
            ),
        }
    }
}

/// Every single-byte change of a small plan's payload (with the checksum made to match, so
/// the payload itself is read): the stream accepts exactly what the model path accepts, builds
/// the same container, and refuses the rest with the same message.
#[test]
fn every_changed_byte_of_a_payload_reads_as_through_the_model() {
    let r = registry();
    let mut j = ordinary();
    // Small enough to try every byte with a few values.
    j["services"] = json!({
        "a": {"type": "App\\Part", "create": {"$new": "App\\Part", "args": [7]},
              "source": {"file": "c", "line": 1, "column": 1}},
        "b": {"type": "App\\Recorder",
              "create": {"$new": "App\\Recorder", "args": [{"$ref": "a"}, null, "s"]},
              "setup": [{"$call": ["@self", "bump"], "args": [2]}]},
        "c": {"type": "App\\Tuned", "create": {"$new": "App\\Tuned", "args": []},
              "setup": [{"$set": ["@self", "note"], "value": "n"}]},
        "d": {"type": "App\\Part", "create": {"$new": "App\\Part", "args": [{"$param": "p"}]}}
    });
    j["dynamic"] = json!({"p": {"type": "int", "default": 2}});
    j["version"] = json!(4);
    j["signatures"] = json!({"App\\Part": "n", "App\\Recorder::bump": "by"});
    j["aliases"] = json!({"p": "a"});
    j["types"] = json!({"App\\Named": ["a"], "App\\Part": ["a"]});
    j["tags"] = json!({"t": {"b": true}});
    j["parameters"] = json!({"limit": 10});
    j["dependencies"] = json!([]);
    let original = to_plan(&j).to_binary();
    let (mut accepted, mut refused) = (0, 0);
    for at in BINARY_HEADER_LEN..original.len() {
        for value in [
            0u8,
            1,
            2,
            7,
            0x80,
            original[at] ^ 1,
            original[at].wrapping_add(1),
        ] {
            if value == original[at] {
                continue;
            }
            let mut bytes = original.clone();
            bytes[at] = value;
            let sum = checksum(&bytes[BINARY_HEADER_LEN..]);
            bytes[20..28].copy_from_slice(&sum.to_le_bytes());
            let got = Container::from_bytes(&bytes, &r);
            let want = by_model(&bytes, &r);
            match (&got, &want) {
                (Ok(c), Ok(m)) => {
                    accepted += 1;
                    assert_eq!(create_all(c), create_all(m), "byte {at} = {value}");
                    assert_eq!(observe(c), observe(m), "byte {at} = {value}");
                }
                (Err(g), Err(w)) => {
                    refused += 1;
                    assert_eq!(g.to_string(), w.to_string(), "byte {at} = {value}");
                }
                _ => panic!(
                    "byte {at} = {value}: stream {:?}, model {:?}",
                    got.as_ref().err(),
                    want.as_ref().err()
                ),
            }
        }
    }
    // Both kinds of outcome were exercised.
    assert!(
        accepted > 20 && refused > 100,
        "{accepted} accepted, {refused} refused"
    );
}

/// A `signatures` entry named twice (which no JSON plan can hold: the binary payload is
/// edited) is refused by the stream as by the model path, with the model path's message.
#[test]
fn a_signature_named_twice_is_refused_as_through_the_model() {
    let r = registry();
    for (first, second) in [
        ("App\\Tuned", "App\\Label"),
        ("App\\Recorder::bump", "App\\Recorder::bumx"),
    ] {
        let mut j = ordinary();
        j["version"] = json!(4);
        j["signatures"] = json!({first: "n", second: "n"});
        let mut bytes = to_plan(&j).to_binary();
        // Unedited, the plan is read straight into the tables, its signatures checked there.
        let c = Container::from_bytes(&bytes, &r).expect("loads");
        assert!(streamed(&c), "{second}");
        let at = bytes
            .windows(second.len())
            .rposition(|w| w == second.as_bytes())
            .expect("the second key");
        bytes[at..at + second.len()].copy_from_slice(first.as_bytes());
        let sum = checksum(&bytes[BINARY_HEADER_LEN..]);
        bytes[20..28].copy_from_slice(&sum.to_le_bytes());
        let got = Container::from_bytes(&bytes, &r).expect_err("refused");
        let want = by_model(&bytes, &r).expect_err("refused");
        assert_eq!(got.to_string(), want.to_string());
        assert!(
            got.to_string()
                .contains(&format!("signature '{first}' appears twice")),
            "{got}"
        );
    }
}

/// A compiled `$new` borrows its constructor from the registry the container keeps: changing
/// or dropping the application's registry afterwards changes nothing for the container.
#[test]
fn a_container_keeps_the_constructors_it_was_loaded_with() {
    let mut r = registry();
    let bytes = to_plan(&ordinary()).to_binary();
    let streamed_one = Container::from_bytes(&bytes, &r).unwrap();
    let modelled = Container::builder(&r)
        .from_plan(to_plan(&ordinary()))
        .unwrap();
    assert!(streamed(&streamed_one));
    // Replace the constructor, then drop the registry altogether.
    r.class::<Part>("App\\Part").constructor(|_| Ok(Part(99)));
    assert_eq!(
        Container::from_bytes(&bytes, &r)
            .unwrap()
            .get::<Part>("part")
            .unwrap()
            .0,
        99
    );
    drop(r);
    for c in [&streamed_one, &modelled] {
        assert_eq!(c.get::<Part>("part").unwrap().0, 7);
        assert_eq!(c.get::<Part>("fresh").unwrap().0, 9);
    }
}

/// Imported services are supplied by the builder: such a load takes the model path, with its
/// checks of what is supplied.
#[test]
fn a_load_with_imports_gives_the_model_paths_answer() {
    let r = registry();
    let mut j = ordinary();
    j["services"]["clock"] = json!({"kind": "imported", "type": "App\\Part", "create": null});
    let bytes = to_plan(&j).to_binary();
    let c = Container::builder(&r)
        .import("clock", std::sync::Arc::new(Part(3)))
        .from_bytes(&bytes)
        .unwrap();
    assert!(!streamed(&c));
    assert_eq!(c.get::<Part>("clock").unwrap().0, 3);
    let missing = Container::from_bytes(&bytes, &r).unwrap_err().to_string();
    let want = by_model(&bytes, &r).unwrap_err().to_string();
    assert_eq!(missing, want);
    assert!(missing.contains("clock"), "{missing}");
}

/// Dynamic parameters: resolved at load as the model path resolves them (given, converted
/// to the declared type, else the default), folded into the program, and every problem worded
/// by the model path. (A parameter the section does not declare: `untrusted_plans.rs`,
/// `an_undeclared_dynamic_parameter_without_a_value_is_reported_at_load`.)
#[test]
fn dynamic_parameters_are_resolved_and_their_problems_worded_as_through_the_model() {
    let r = registry();
    let mut j = ordinary();
    j["dynamic"] = json!({
        "env.H38_LEVEL": {"type": "int", "default": 1},
        "name": {"type": "string", "required": true},
        "late": {"type": "?string"}
    });
    j["services"]["rec"]["create"]["args"] = json!([{"$param": "name"}, {"$param": "late"}]);
    j["services"]["tuned"]["setup"] =
        json!([{"$call": ["@self", "setLevel"], "args": [{"$param": "env.H38_LEVEL"}]}]);
    let plan = to_plan(&j);
    let bytes = plan.to_binary();
    type Given = &'static [(&'static str, &'static str)];
    // The parameters given, then the level and name the services get (`None`: refused).
    type Want = Option<(i64, &'static str)>;
    let cases: &[(Given, Want)] = &[
        (&[("name", "x")], Some((1, "\"x\""))),
        (&[("name", "y"), ("env.H38_LEVEL", "7")], Some((7, "\"y\""))),
        (&[], None),
        (&[("name", "x"), ("env.H38_LEVEL", "seven")], None),
    ];
    for (given, want) in cases {
        let builder = || {
            Container::builder(&r)
                .read_environment(false)
                .parameters(given.iter().map(|(k, v)| (*k, *v)))
        };
        let got = builder().from_bytes(&bytes);
        let model = builder().from_plan_named(plan.clone(), "<bytes>");
        match (want, got, model) {
            (Some((level, name)), Ok(c), Ok(m)) => {
                assert!(streamed(&c), "{given:?}");
                for c in [&c, &m] {
                    assert_eq!(c.get::<Tuned>("tuned").unwrap().level, *level);
                    let seen = &c.get::<Recorder>("rec").unwrap().seen;
                    assert_eq!(seen, &[name.to_string(), "null".to_string()]);
                }
                assert_eq!(create_all(&c), create_all(&m));
                assert_eq!(observe(&c), observe(&m));
            }
            (None, Err(g), Err(w)) => assert_eq!(g.to_string(), w.to_string()),
            (_, got, model) => panic!("{given:?}: stream {:?}, model {:?}", got.err(), model.err()),
        }
    }
}
