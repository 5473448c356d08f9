use super::*;
use serde_json::{json, Value as Json};

#[test]
fn expressions_round_trip_through_json() {
    let e = Expr::Call {
        target: CallTarget::Expr(Box::new(Expr::Ref("f".into()))),
        method: "build".into(),
        args: vec![
            Expr::New {
                class: "App\\Db".into(),
                args: vec![Expr::Int(1), Expr::Float(2.0)],
            },
            Expr::Map(IndexMap::from([("$x".to_string(), Expr::Bool(true))])),
            Expr::Float(f64::INFINITY),
        ],
    };
    let j = e.to_json();
    assert_eq!(
        j,
        json!({"$call": [{"$ref": "f"}, "build"], "args": [
            {"$new": "App\\Db", "args": [1, 2.0]}, {"$$x": true}, {"$float": "INF"}]})
    );
    assert_eq!(Expr::from_json(&j).unwrap(), e);
}

#[test]
fn property_reads_and_callables_round_trip_through_json() {
    let e = Expr::List(vec![
        Expr::Get {
            target: CallTarget::Expr(Box::new(Expr::Ref("db".into()))),
            property: "dsn".into(),
        },
        Expr::Func {
            name: "int".into(),
            arg: Box::new(Expr::Param("env.PORT".into())),
        },
        Expr::Callable {
            target: CallTarget::Class("App\\Clock".into()),
            method: "now".into(),
        },
        Expr::Callable {
            target: CallTarget::SelfObject,
            method: "handle".into(),
        },
    ]);
    let j = e.to_json();
    assert_eq!(
        j,
        json!([{"$get": [{"$ref": "db"}, "dsn"]},
               {"$func": "int", "args": [{"$param": "env.PORT"}]},
               {"$callable": ["App\\Clock", "now"]},
               {"$callable": ["@self", "handle"]}])
    );
    assert_eq!(Expr::from_json(&j).unwrap(), e);
    let mut refs = Vec::new();
    e.for_each_ref(&mut |r| refs.push(r.to_string()));
    assert_eq!(refs, ["db"]);
    let err = Expr::from_json(&json!({"$get": ["x"]})).unwrap_err();
    assert!(err.contains("[target, name]"), "{err}");
}

#[test]
fn json_depth_counts_arrays_and_objects() {
    let chain = |n: usize| {
        let mut e = Expr::Ref("a".into());
        for _ in 0..n {
            e = Expr::Call {
                target: CallTarget::Expr(Box::new(e)),
                method: "m".into(),
                args: vec![],
            };
        }
        e
    };
    for n in [0, 1, 7] {
        let e = chain(n);
        assert_eq!(e.json_depth(), 1 + 2 * n);
        assert_eq!(e.json_depth(), json_nesting(&e.to_json()), "{n}");
    }
    let e = Expr::List(vec![Expr::Map(IndexMap::from([(
        "k".to_string(),
        Expr::Concat(vec![Expr::Param("p".into())]),
    )]))]);
    assert_eq!(e.json_depth(), 5);
    assert_eq!(json_nesting(&e.to_json()), 5);
    assert!(!e.is_plain());
    assert!(Expr::List(vec![Expr::Float(f64::NAN)]).is_plain());
    let e = Expr::ArgOr {
        name: "lvl".into(),
        default: Box::new(Expr::List(vec![Expr::Int(4)])),
    };
    assert_eq!(e.json_depth(), 2);
    assert_eq!(json_nesting(&e.to_json()), 2);
    assert_eq!(e.to_json(), json!({"$arg": "lvl", "default": [4]}));
    assert_eq!(Expr::from_json(&e.to_json()).unwrap(), e);
    assert!(!e.is_plain());
}

fn json_nesting(v: &Json) -> usize {
    match v {
        Json::Array(a) => 1 + a.iter().map(json_nesting).max().unwrap_or(0),
        Json::Object(o) => 1 + o.values().map(json_nesting).max().unwrap_or(0),
        _ => 0,
    }
}

#[test]
fn special_objects_have_exactly_their_keys() {
    for (bad, why) in [
        (
            json!({"$get": [{"$ref": "a"}, "p"], "args": []}),
            "unexpected key \"args\"",
        ),
        (
            json!({"$callable": ["A", "m"], "$get": ["A", "p"]}),
            "unexpected key",
        ),
        (
            json!({"$ref": "a", "x": 1}),
            "unexpected key \"x\" in a \"$ref\"",
        ),
        (json!({"$get": [5, "p"]}), "a target must be a class name"),
        (
            json!({"$callable": [null, "m"]}),
            "a target must be a class name",
        ),
    ] {
        let err = Expr::from_json(&bad).unwrap_err();
        assert!(err.contains(why), "{bad}: {err}");
    }
    let ok = json!({"$call": ["A", "m"], "args": [1]});
    assert!(Expr::from_json(&ok).is_ok());
    let ok = json!({"$set": ["@self", "p"], "value": 1});
    assert!(Expr::from_json(&ok).is_ok());
}

#[test]
fn unknown_special_key_is_an_error() {
    let err = Expr::from_json(&json!({"$nope": 1})).unwrap_err();
    assert!(err.contains("$nope"), "{err}");
}
