//! Scope slots at run time: provided, missing, undeclared, provided twice, nested scopes,
//! locking once resolution started, and plans that misuse the `slot` kind.

use std::sync::Arc;

use serde_json::{json, Value as Json};
use wireplan_runtime::{Container, Error, Registry};

#[derive(Debug)]
struct CurrentUser(String);

#[derive(Debug)]
struct Tenant(u32);

/// A per-request service that greets the current user.
#[derive(Debug)]
struct Greeter {
    user: Arc<CurrentUser>,
}

/// Depends on the greeter, so a missing slot is two steps away.
#[derive(Debug)]
struct Page {
    greeter: Arc<Greeter>,
}

fn registry() -> Registry {
    let mut r = Registry::new();
    register(&mut r);
    r
}

/// Registers the classes of [`plan_json`]'s services.
fn register(r: &mut Registry) {
    r.class::<CurrentUser>("App\\CurrentUser");
    r.class::<Tenant>("App\\Tenant");
    r.class::<Greeter>("App\\Greeter").constructor(|a| {
        Ok(Greeter {
            user: a.service::<CurrentUser>(0)?,
        })
    });
    r.class::<Page>("App\\Page").constructor(|a| {
        Ok(Page {
            greeter: a.service::<Greeter>(0)?,
        })
    });
}

fn plan_json(extra: Json) -> Json {
    let mut services = json!({
        "currentUser": {"kind": "slot", "type": "App\\CurrentUser", "lifespan": "scoped",
                        "create": null},
        "tenant": {"kind": "slot", "type": "App\\Tenant", "lifespan": "scoped", "create": null},
        "greeter": {"type": "App\\Greeter", "lifespan": "scoped",
                    "create": {"$new": "App\\Greeter", "args": [{"$ref": "currentUser"}]}},
        "page": {"type": "App\\Page", "lifespan": "transient",
                 "create": {"$new": "App\\Page", "args": [{"$ref": "greeter"}]}},
    });
    if let (Some(s), Some(e)) = (services.as_object_mut(), extra.as_object()) {
        s.extend(e.clone());
    }
    json!({"format": "wireplan-plan", "version": 3, "compiler": "test", "inputs_hash": "0",
           "services": services,
           "aliases": {"user": "currentUser"},
           "types": {"App\\CurrentUser": ["currentUser"], "App\\Tenant": ["tenant"],
                     "App\\Greeter": ["greeter"], "App\\Page": ["page"]}})
}

fn container() -> Container {
    Container::from_json_str(&plan_json(json!({})).to_string(), &registry()).unwrap()
}

#[test]
fn a_provided_slot_reaches_the_services_of_its_scope_only() {
    let c = container();
    let (a, b) = (c.scope(), c.scope());
    a.provide::<CurrentUser>(CurrentUser("ada".into())).unwrap();
    b.provide_named("currentUser", Arc::new(CurrentUser("bob".into())))
        .unwrap();
    assert_eq!(a.get::<Page>("page").unwrap().greeter.user.0, "ada");
    assert_eq!(b.get::<Page>("page").unwrap().greeter.user.0, "bob");
    // One greeter per scope, holding the very object provided.
    let g = a.get::<Greeter>("greeter").unwrap();
    assert!(Arc::ptr_eq(&g, &a.get::<Page>("page").unwrap().greeter));
    assert!(Arc::ptr_eq(
        &g.user,
        &a.get_by_type::<CurrentUser>().unwrap()
    ));
    assert!(a.is_provided("currentUser") && a.is_provided("user"));
    assert!(!c.scope().is_provided("currentUser"));
    assert!(!a.is_provided("greeter"));
    assert_eq!(
        c.slots(),
        vec![
            ("currentUser", "App\\CurrentUser"),
            ("tenant", "App\\Tenant")
        ]
    );
    assert_eq!(c.slot_for_type::<Tenant>().unwrap(), "tenant");
    let t = c.scope();
    t.provide(Tenant(7)).unwrap();
    assert_eq!(t.get_by_type::<Tenant>().unwrap().0, 7);
}

#[test]
fn a_missing_slot_names_the_slot_and_the_service_that_needs_it() {
    let c = container();
    let s = c.scope();
    let e = s.get::<Page>("page").unwrap_err();
    assert!(
        matches!(&e, Error::SlotNotProvided { slot, path, .. }
            if slot == "currentUser" && path == &["page", "greeter", "currentUser"]),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "scope slot 'currentUser' (App\\CurrentUser) was not provided: service 'greeter' \
         needs it (path: page -> greeter -> currentUser); call scope.provide(...) for it \
         before resolving"
    );
    let direct = s.get::<CurrentUser>("user").unwrap_err();
    assert_eq!(
        direct.to_string(),
        "scope slot 'currentUser' (App\\CurrentUser) was not provided: it was requested \
         directly; call scope.provide(...) for it before resolving"
    );
    // Nothing was cached: providing now and asking again works.
    s.provide::<CurrentUser>(CurrentUser("late".into()))
        .unwrap();
    assert_eq!(s.get::<Greeter>("greeter").unwrap().user.0, "late");
}

#[test]
fn a_slot_outside_a_scope_needs_a_scope() {
    let e = container().get::<CurrentUser>("currentUser").unwrap_err();
    assert!(
        matches!(&e, Error::ScopeRequired { path, .. } if path == &["currentUser"]),
        "{e:?}"
    );
}

#[test]
fn providing_an_undeclared_slot_is_an_error() {
    let c = container();
    let s = c.scope();
    let e = s
        .provide_named("greeter", Arc::new(CurrentUser("x".into())))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "'greeter' is not a scope slot of the plan (declared slots: currentUser \
         (App\\CurrentUser), tenant (App\\Tenant))"
    );
    let e = s.provide_named("nope", Arc::new(Tenant(1))).unwrap_err();
    assert!(matches!(&e, Error::UndeclaredSlot { requested, .. } if requested == "nope"));
    // A registered type no slot is autowired for.
    let e = s
        .provide::<Greeter>(Greeter {
            user: Arc::new(CurrentUser("x".into())),
        })
        .unwrap_err();
    assert!(
        matches!(&e, Error::UndeclaredSlot { requested, .. } if requested == "App\\Greeter"),
        "{e:?}"
    );
    // A type the registry does not know.
    // Its hint is what `provide` offers for naming the slot (not get_by_type_name).
    let e = s.provide(42i64).unwrap_err();
    assert!(matches!(e, Error::UnregisteredType { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "type i64 has no catalog name: register it with Registry::class or \
         ClassBuilder::implements, or use Scope::provide_named"
    );
    // Which does fill the slot with it.
    assert!(c.scope().provide_named("tenant", Arc::new(42i64)).is_ok());
    // An integration's set-up check offers no call by name.
    assert_eq!(
        c.slot_for_type::<i64>().unwrap_err().to_string(),
        "type i64 has no catalog name: register it with Registry::class or \
         ClassBuilder::implements"
    );
    // A value of another registered class, by name.
    let e = s
        .provide_named("tenant", Arc::new(CurrentUser("x".into())))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "scope slot 'tenant' cannot be provided: the value is of class App\\CurrentUser"
        ),
        "{e}"
    );
    assert!(!s.is_provided("tenant"));
}

#[test]
fn providing_twice_or_after_resolution_started_is_an_error() {
    let c = container();
    let s = c.scope();
    s.provide::<CurrentUser>(CurrentUser("ada".into())).unwrap();
    let again = || {
        s.provide::<CurrentUser>(CurrentUser("eve".into()))
            .unwrap_err()
            .to_string()
    };
    let twice =
        "scope slot 'currentUser' cannot be provided: it was already provided in this scope";
    assert_eq!(again(), twice);
    assert_eq!(s.get::<Greeter>("greeter").unwrap().user.0, "ada");
    // Provided before, and a scoped service created since: the first reason is the one given.
    assert_eq!(again(), twice);
    let e = s.provide::<Tenant>(Tenant(7)).unwrap_err();
    assert!(
        matches!(&e, Error::SlotProvision { slot, reason }
            if slot == "tenant" && reason.starts_with("this scope already created 1 scoped")),
        "{e:?}"
    );
}

#[test]
fn nested_scopes_inherit_slots_and_may_override_them_before_resolving() {
    let c = container();
    let outer = c.scope();
    outer
        .provide::<CurrentUser>(CurrentUser("outer".into()))
        .unwrap();
    let inherits = outer.scope();
    assert_eq!(inherits.get::<Greeter>("greeter").unwrap().user.0, "outer");
    let overrides = outer.scope();
    overrides
        .provide::<CurrentUser>(CurrentUser("inner".into()))
        .unwrap();
    assert_eq!(overrides.get::<Greeter>("greeter").unwrap().user.0, "inner");
    assert_eq!(outer.get::<Greeter>("greeter").unwrap().user.0, "outer");
}

/// Overriding a slot in a nested scope after an enclosing scope created scoped services is
/// refused: those instances may hold the enclosing value and the nested scope would share them,
/// so its services would disagree with its own value depending on what was asked first (a new
/// user's trial). Providing a slot no enclosing scope provided stays allowed.
#[test]
fn a_nested_override_after_the_enclosing_scope_resolved_is_refused() {
    let c = container();
    let outer = c.scope();
    outer
        .provide::<CurrentUser>(CurrentUser("ada".into()))
        .unwrap();
    assert_eq!(outer.get::<Greeter>("greeter").unwrap().user.0, "ada");
    let inner = outer.scope();
    let e = inner
        .provide::<CurrentUser>(CurrentUser("bob".into()))
        .unwrap_err();
    assert!(matches!(e, Error::SlotProvision { .. }), "{e:?}");
    assert!(
        e.to_string().contains(
            "an enclosing scope provided it and already created 1 scoped service(s), which may \
             have read its value and which this scope would share"
        ),
        "{e}"
    );
    // Without the override, the nested scope shares the enclosing instance.
    assert_eq!(inner.get::<Greeter>("greeter").unwrap().user.0, "ada");
    // A slot the enclosing scopes never provided may still be provided below.
    let fresh = c.scope();
    let below = fresh.scope();
    below
        .provide::<CurrentUser>(CurrentUser("cy".into()))
        .unwrap();
    assert_eq!(below.get::<Greeter>("greeter").unwrap().user.0, "cy");
}

#[test]
fn provided_values_are_released_with_their_scope() {
    let c = container();
    let user = Arc::new(CurrentUser("ada".into()));
    {
        let s = c.scope();
        s.provide_shared(user.clone()).unwrap();
        s.get::<Greeter>("greeter").unwrap();
        assert_eq!(Arc::strong_count(&user), 3); // ours, the slot's, the greeter's
    }
    assert_eq!(Arc::strong_count(&user), 1);
}

#[test]
fn plans_that_misuse_slots_are_refused_at_load() {
    let bad = plan_json(json!({
        "single": {"kind": "slot", "type": "App\\Tenant", "create": null},
        "made": {"kind": "slot", "type": "App\\Tenant", "lifespan": "scoped",
                 "create": {"$new": "App\\Greeter", "args": [{"$ref": "currentUser"}]}},
    }));
    let e = Container::from_json_str(&bad.to_string(), &registry()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("service 'single': a slot is scoped, not singleton"),
        "{text}"
    );
    assert!(
        text.contains("service 'made': a slot is provided at run time, so it has no create"),
        "{text}"
    );
    // A slot cannot be supplied as an import at load time.
    let e = Container::builder(&registry())
        .import("currentUser", Arc::new(CurrentUser("x".into())))
        .from_json_str(&plan_json(json!({})).to_string())
        .unwrap_err();
    assert!(matches!(&e, Error::Imports { unknown, .. } if unknown == &["currentUser"]));
}

#[test]
fn binary_plans_keep_the_slot_kind() {
    let plan = wireplan_runtime::plan::Plan::from_json_str(&plan_json(json!({})).to_string(), "p")
        .unwrap();
    let bytes = plan.to_binary();
    let back = wireplan_runtime::plan::Plan::from_bytes(&bytes, "p.bin").unwrap();
    assert_eq!(back, plan);
    assert_eq!(
        back.services["tenant"].kind,
        wireplan_runtime::plan::ServiceKind::Slot
    );
}

/// Names of the [`Conn`]s whose dispose hook ran, in order.
static CONN_DISPOSED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// A slot type with a dispose hook.
struct Conn(String);

#[test]
fn a_scope_disposes_what_it_created_but_not_a_provided_value_a_service_refers_to() {
    let mut r = Registry::new();
    r.class::<Conn>("App\\Conn")
        .constructor(|a| Ok(Conn(a.str(0)?.to_string())))
        .on_dispose(|c| {
            let mut d = CONN_DISPOSED.lock().unwrap_or_else(|p| p.into_inner());
            d.push(c.0.clone());
        });
    let plan = json!({"format": "wireplan-plan", "version": 3, "compiler": "test",
    "inputs_hash": "0",
    "services": {
        "conn": {"kind": "slot", "type": "App\\Conn", "lifespan": "scoped", "create": null},
        "connView": {"type": "App\\Conn", "lifespan": "scoped", "create": {"$ref": "conn"}},
        "own": {"type": "App\\Conn", "lifespan": "scoped",
                "create": {"$new": "App\\Conn", "args": ["own"]}},
    }});
    let c = Container::from_json_str(&plan.to_string(), &r).unwrap();
    let provided = Arc::new(Conn("provided".into()));
    {
        let s = c.scope();
        s.provide_named("conn", provided.clone()).unwrap();
        let view = s.get::<Conn>("connView").unwrap();
        assert!(Arc::ptr_eq(&view, &provided));
        assert_eq!(s.get::<Conn>("own").unwrap().0, "own");
    }
    // Only the object the scope created was disposed; the provided one is the application's.
    let disposed = CONN_DISPOSED.lock().unwrap().clone();
    assert_eq!(disposed, ["own"]);
    assert_eq!(Arc::strong_count(&provided), 1);
}

/// `provide`'s type check, whether it takes the quick way (the value is the Rust type
/// registered under the slot's own class) or the full one (the value's class and its parents):
/// the slot's class and a subclass pass, anything else is refused, and a Rust type whose
/// registered class name is another one is judged by that name.
#[test]
fn a_slot_takes_its_own_class_or_a_subclass_and_nothing_else() {
    struct Admin;
    let mut r = registry();
    r.class::<Admin>("App\\Admin").extends("App\\CurrentUser");
    let c = Container::from_json_str(&plan_json(json!({})).to_string(), &r).unwrap();

    let own = c.scope();
    own.provide(CurrentUser("ada".into())).unwrap();
    assert_eq!(own.get::<Greeter>("greeter").unwrap().user.0, "ada");

    let sub = c.scope();
    sub.provide_named("currentUser", Arc::new(Admin)).unwrap();
    assert!(sub.is_provided("currentUser"));

    let e = c
        .scope()
        .provide_named("currentUser", Arc::new(Tenant(3)))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "scope slot 'currentUser' cannot be provided: the value is of class App\\Tenant"
        ),
        "{e}"
    );

    // `Tenant` registered first under another class name, which stays its name, and then as
    // `App\Tenant` too: a `Tenant` is judged as that first class, not as `App\Tenant`.
    let mut r = Registry::new();
    r.class::<Tenant>("App\\OtherTenant");
    register(&mut r);
    let c = Container::from_json_str(&plan_json(json!({})).to_string(), &r).unwrap();
    let e = c
        .scope()
        .provide_named("tenant", Arc::new(Tenant(1)))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "scope slot 'tenant' cannot be provided: the value is of class App\\OtherTenant"
        ),
        "{e}"
    );
}

/// Threads sharing one scope: the scope's cells are filled under its build lock only (a
/// provided value and each scoped service), so racing providers and resolvers must still see
/// one value per slot and one instance per scoped service, and a provision that comes after
/// a creation must be refused.
#[test]
fn threads_sharing_a_scope_agree_on_its_slot_and_its_scoped_services() {
    const THREADS: usize = 8;
    let c = container();
    for round in 0..30 {
        let scope = c.scope();
        let barrier = std::sync::Barrier::new(THREADS);
        // Per thread: its provision's outcome, and the greeter it resolved (odd threads).
        type Outcome = (Result<(), String>, Option<Arc<Greeter>>);
        let outcomes: Vec<Outcome> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (scope, barrier) = (&scope, &barrier);
                    s.spawn(move || {
                        barrier.wait();
                        let provided = scope
                            .provide(CurrentUser(format!("user{t}")))
                            .map_err(|e| e.to_string());
                        // Odd threads also resolve at once; they may run before any provision.
                        let greeter = (t % 2 == 1)
                            .then(|| scope.get_by_type::<Greeter>().ok())
                            .flatten();
                        (provided, greeter)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("no panic"))
                .collect()
        });
        let winners: Vec<usize> = (0..THREADS).filter(|&t| outcomes[t].0.is_ok()).collect();
        // Exactly one provision wins: the others found it provided, or a creation started.
        assert_eq!(winners.len(), 1, "round {round}: {outcomes:?}");
        for (provided, _) in &outcomes {
            if let Err(e) = provided {
                assert!(
                    e.contains("already provided") || e.contains("already created"),
                    "round {round}: {e}"
                );
            }
        }
        let user = scope.get::<CurrentUser>("currentUser").unwrap();
        assert_eq!(user.0, format!("user{}", winners[0]));
        let greeter = scope.get_by_type::<Greeter>().unwrap();
        assert!(Arc::ptr_eq(&greeter.user, &user));
        // Every thread that got a greeter got this one instance.
        for g in outcomes.iter().filter_map(|(_, g)| g.as_ref()) {
            assert!(Arc::ptr_eq(g, &greeter), "round {round}");
        }
    }
}
