//! Scope slots in the compiler: `slot: true` compiles to a `slot` service in the plan that
//! services depend on like on any service; a singleton holding one is a captive dependency;
//! misused slot keys are reported, all in one run. The compiled plan then runs with the
//! runtime: provided, missing and undeclared slots.

use std::path::Path;
use std::sync::Arc;

use wireplan::compiler::{compile, Compilation, Options};
use wireplan::diagnostics::to_json;
use wireplan_runtime::plan::{Expr, Lifespan, ServiceKind};
use wireplan_runtime::{Container, Error, Registry};

const CATALOG: &str = "types:
\tApp\\CurrentUser:
\tApp\\Greeter:
\t\tconstructor:
\t\t\tuser: App\\CurrentUser
\tApp\\Audit:
\t\tconstructor:
\t\t\tgreeter: App\\Greeter
\tApp\\Clock:
";

fn compile_str(dir: &Path, services: &str) -> Compilation {
    let path = dir.join("app.neon");
    std::fs::write(&path, format!("{CATALOG}services:\n{services}")).unwrap();
    compile(&path, &Options::default())
}

/// (code, line, message) of every diagnostic.
fn diagnostics(c: &Compilation) -> Vec<(String, usize, String)> {
    to_json(&c.sources, c.diagnostics.items())
        .into_iter()
        .map(|d| (d.code.to_string(), d.line.unwrap_or(0), d.message))
        .collect()
}

#[derive(Debug)]
struct CurrentUser(String);

#[derive(Debug)]
struct Greeter {
    user: Arc<CurrentUser>,
}

#[test]
fn a_slot_compiles_to_a_scoped_slot_service_that_others_autowire() {
    let dir = tempfile::tempdir().unwrap();
    let c = compile_str(
        dir.path(),
        "\tcurrentUser: {type: App\\CurrentUser, slot: true}
\tgreeter: {create: App\\Greeter, lifespan: scoped}
\tclock: App\\Clock
",
    );
    assert_eq!(diagnostics(&c), vec![]);
    let plan = c.plan.expect("a plan");
    let slot = &plan.services["currentUser"];
    assert_eq!(
        (slot.kind, slot.lifespan, &slot.create, slot.type_.as_str()),
        (
            ServiceKind::Slot,
            Lifespan::Scoped,
            &Expr::Null,
            "App\\CurrentUser"
        )
    );
    assert_eq!(
        plan.services["greeter"].create,
        Expr::New {
            class: "App\\Greeter".into(),
            args: vec![Expr::Ref("currentUser".into())]
        }
    );
    assert_eq!(plan.types["App\\CurrentUser"].as_slice(), ["currentUser"]);
    assert_eq!(plan.version, wireplan_runtime::plan::VERSION);
    let json: serde_json::Value = serde_json::from_str(&plan.to_json()).unwrap();
    assert_eq!(json["services"]["currentUser"]["kind"], "slot");

    // The compiled plan runs: one user per scope, a clear error where none was provided.
    let mut reg = Registry::new();
    reg.class::<CurrentUser>("App\\CurrentUser");
    reg.class::<Greeter>("App\\Greeter").constructor(|a| {
        Ok(Greeter {
            user: a.service::<CurrentUser>(0)?,
        })
    });
    reg.class::<()>("App\\Clock").constructor(|_| Ok(()));
    let container = Container::from_plan(plan, &reg).unwrap();
    let scope = container.scope();
    scope.provide(CurrentUser("ada".into())).unwrap();
    assert_eq!(scope.get::<Greeter>("greeter").unwrap().user.0, "ada");
    let e = container.scope().get::<Greeter>("greeter").unwrap_err();
    assert!(
        matches!(&e, Error::SlotNotProvided { slot, path, .. }
            if slot == "currentUser" && path == &["greeter", "currentUser"]),
        "{e}"
    );
    let e = scope.provide_named("clock", Arc::new(())).unwrap_err();
    assert!(matches!(e, Error::UndeclaredSlot { .. }), "{e}");
}

#[test]
fn a_singleton_holding_a_slot_is_a_captive_dependency() {
    let dir = tempfile::tempdir().unwrap();
    let c = compile_str(
        dir.path(),
        "\tcurrentUser: {type: App\\CurrentUser, slot: true}
\tgreeter: {create: App\\Greeter, lifespan: transient}
\taudit: App\\Audit
\tdirect: {create: App\\Greeter(@currentUser), autowired: false}
",
    );
    assert!(c.plan.is_none());
    assert_eq!(
        diagnostics(&c),
        vec![
            (
                "captive-dependency".to_string(),
                13,
                "Singleton service 'audit' holds scoped service 'currentUser': audit -> \
                 greeter -> currentUser."
                    .to_string()
            ),
            (
                "captive-dependency".to_string(),
                14,
                "Singleton service 'direct' holds scoped service 'currentUser': direct -> \
                 currentUser."
                    .to_string()
            ),
        ]
    );
}

#[test]
fn misused_slot_keys_are_all_reported() {
    let dir = tempfile::tempdir().unwrap();
    let c = compile_str(
        dir.path(),
        "\tforever: {type: App\\CurrentUser, slot: true, lifespan: singleton}
\tmade: {type: App\\CurrentUser, slot: true, create: App\\CurrentUser}
\tuntyped: {slot: true}
\twhich: {type: App\\CurrentUser, slot: 1}
\tboth: {type: App\\CurrentUser, slot: true, imported: true}
",
    );
    assert!(c.plan.is_none());
    let d = diagnostics(&c);
    let codes: Vec<(&str, usize)> = d.iter().map(|(c, l, _)| (c.as_str(), *l)).collect();
    assert_eq!(
        codes,
        vec![
            ("unknown-option", 12),
            ("invalid-value", 14),
            ("unknown-option", 15),
            ("invalid-definition", 13),
            ("invalid-definition", 11),
        ],
        "{d:#?}"
    );
    assert!(
        d[0].2
            .contains("'made' is a scope slot (slot: true), which takes no 'create'"),
        "{}",
        d[0].2
    );
    assert_eq!(d[3].2, "Service 'untyped': a scope slot needs a 'type'.");
    assert_eq!(
        d[4].2,
        "Service 'forever' (type of App\\CurrentUser): a scope slot is scoped (the application \
         provides it in each scope), not singleton."
    );
}

/// A scoped service needs the type of a slot written `autowired: false`: the missing-service
/// error names that slot as the cause (not autowired), and does not tell the user to declare
/// a slot they already declared (a new user's trial).
#[test]
fn a_slot_left_out_of_autowiring_is_named_and_not_declared_again() {
    let dir = tempfile::tempdir().unwrap();
    let c = compile_str(
        dir.path(),
        "\tuser: {type: App\\CurrentUser, slot: true, autowired: false}\n\
         \tgreeter: {create: App\\Greeter, lifespan: scoped}\n",
    );
    let d = c.diagnostics.items();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code.to_string(), "missing-service");
    assert_eq!(
        d[0].notes,
        [
            "Did you add it to configuration file?",
            "Service 'user' is of type App\\CurrentUser but is not autowired for it: pass @user \
             explicitly, or change its `autowired:`",
        ]
    );
    // Without the slot, the scoped service gets the hint to declare one.
    let c = compile_str(
        dir.path(),
        "\tgreeter: {create: App\\Greeter, lifespan: scoped}\n",
    );
    let notes = &c.diagnostics.items()[0].notes;
    assert!(
        notes.iter().any(|n| n.contains("declare it a scope slot")),
        "{notes:?}"
    );
}
