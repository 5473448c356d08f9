//! The same 50-singleton graph (plus one trait-object service and a 4-object transient tree)
//! wired by hand, by wireplan, by `dill` and by `ferrunix`, for the peers table of the
//! runtime benchmark.
//!
//! Graph: `S0`..`S49`, where `S{i}` holds `Arc`s of `S{i-1}` and `S{i/2}` (once when equal);
//! `Top` holds `S49` and is the only implementer of `dyn Named`. Transient tree:
//! `TRoot(TB(TA, S0), TC(S1))` — 4 new objects and 2 cached singletons per request.
//! Every container registers one distinct Rust type per service, as dill and ferrunix key
//! their registries by type.

#![allow(non_snake_case, dead_code)]

use std::sync::Arc;

use serde_json::{json, Map, Value as Json};
use wireplan_runtime::plan::Plan;
use wireplan_runtime::{Container, Registry};

/// A trait the `Top` service implements (the trait-object lookup).
pub trait Named: Send + Sync {
    fn id(&self) -> i64;
}

macro_rules! graph {
    ($( $name:ident : $($dep:ident),* ; )* => $last:ident) => {
        $(
            #[dill::component]
            #[dill::scope(dill::Singleton)]
            pub struct $name { $( $dep: Arc<$dep>, )* }
        )*

        /// (service type, its dependencies) in creation order.
        pub const SPEC: &[(&str, &[&str])] = &[ $( (stringify!($name), &[ $( stringify!($dep) ),* ]), )* ];

        /// Every singleton of the graph, built by hand in dependency order.
        pub fn hand_graph() -> Arc<$last> {
            $( let $name = Arc::new($name { $( $dep: $dep.clone(), )* }); )*
            $last
        }

        fn dill_add(b: &mut dill::CatalogBuilder) {
            $( b.add::<$name>(); )*
        }

        fn ferrunix_add(r: &ferrunix::Registry) {
            $(
                r.with_deps::<_, ( $( ferrunix::Singleton<$dep>, )* )>()
                    .register_singleton(|( $( $dep, )* )| $name { $( $dep: $dep.get(), )* });
            )*
        }

        /// Creates every singleton through ferrunix.
        pub fn ferrunix_create_all(r: &ferrunix::Registry) {
            $( std::hint::black_box(r.singleton::<$name>().unwrap()); )*
        }

        /// Creates every singleton through dill.
        pub fn dill_create_all(c: &dill::Catalog) {
            $( std::hint::black_box(c.get_one::<$name>().unwrap()); )*
        }

        fn wireplan_add(r: &mut Registry) {
            $(
                #[allow(unused_assignments, unused_mut, unused_variables)]
                r.class::<$name>(concat!("App\\", stringify!($name))).constructor(|a| {
                    let mut i = 0;
                    Ok($name { $( $dep: { let x = a.service::<$dep>(i)?; i += 1; x }, )* })
                });
            )*
        }
    };
}

graph! {
    S0: ;
    S1: S0;
    S2: S1;
    S3: S1, S2;
    S4: S2, S3;
    S5: S2, S4;
    S6: S3, S5;
    S7: S3, S6;
    S8: S4, S7;
    S9: S4, S8;
    S10: S5, S9;
    S11: S5, S10;
    S12: S6, S11;
    S13: S6, S12;
    S14: S7, S13;
    S15: S7, S14;
    S16: S8, S15;
    S17: S8, S16;
    S18: S9, S17;
    S19: S9, S18;
    S20: S10, S19;
    S21: S10, S20;
    S22: S11, S21;
    S23: S11, S22;
    S24: S12, S23;
    S25: S12, S24;
    S26: S13, S25;
    S27: S13, S26;
    S28: S14, S27;
    S29: S14, S28;
    S30: S15, S29;
    S31: S15, S30;
    S32: S16, S31;
    S33: S16, S32;
    S34: S17, S33;
    S35: S17, S34;
    S36: S18, S35;
    S37: S18, S36;
    S38: S19, S37;
    S39: S19, S38;
    S40: S20, S39;
    S41: S20, S40;
    S42: S21, S41;
    S43: S21, S42;
    S44: S22, S43;
    S45: S22, S44;
    S46: S23, S45;
    S47: S23, S46;
    S48: S24, S47;
    S49: S24, S48;
    => S49
}

#[dill::component]
#[dill::scope(dill::Singleton)]
#[dill::interface(dyn Named)]
pub struct Top {
    s: Arc<S49>,
}

impl Named for Top {
    fn id(&self) -> i64 {
        49
    }
}

#[dill::component]
pub struct TA {}

#[dill::component]
pub struct TB {
    a: Arc<TA>,
    s: Arc<S0>,
}

#[dill::component]
pub struct TC {
    s: Arc<S1>,
}

#[dill::component]
pub struct TRoot {
    b: Arc<TB>,
    c: Arc<TC>,
}

/// The transient tree built by hand from the two cached singletons.
pub fn hand_transient(s0: &Arc<S0>, s1: &Arc<S1>) -> Arc<TRoot> {
    Arc::new(TRoot {
        b: Arc::new(TB {
            a: Arc::new(TA {}),
            s: s0.clone(),
        }),
        c: Arc::new(TC { s: s1.clone() }),
    })
}

/// A dill catalog with every component registered (nothing created yet).
pub fn dill_catalog() -> dill::Catalog {
    let mut b = dill::CatalogBuilder::new();
    dill_add(&mut b);
    b.add::<Top>()
        .add::<TA>()
        .add::<TB>()
        .add::<TC>()
        .add::<TRoot>();
    b.build()
}

/// A ferrunix registry with every service registered (nothing created yet).
pub fn ferrunix_registry() -> ferrunix::Registry {
    use ferrunix::{Singleton, Transient};
    let r = ferrunix::Registry::empty();
    ferrunix_add(&r);
    r.with_deps::<_, (Singleton<S49>,)>()
        .register_singleton(|(s,)| Box::new(Top { s: s.get() }) as Box<dyn Named>);
    r.register_transient(|| Arc::new(TA {}));
    r.with_deps::<_, (Transient<Arc<TA>>, Singleton<S0>)>()
        .register_transient(|(a, s)| {
            Arc::new(TB {
                a: a.get(),
                s: s.get(),
            })
        });
    r.with_deps::<_, (Singleton<S1>,)>()
        .register_transient(|(s,)| Arc::new(TC { s: s.get() }));
    r.with_deps::<_, (Transient<Arc<TB>>, Transient<Arc<TC>>)>()
        .register_transient(|(b, c)| {
            Arc::new(TRoot {
                b: b.get(),
                c: c.get(),
            })
        });
    r
}

/// The wireplan registry for the graph's classes.
pub fn wireplan_registry() -> Registry {
    let mut r = Registry::new();
    wireplan_add(&mut r);
    r.class::<Top>("App\\Top")
        .constructor(|a| {
            Ok(Top {
                s: a.service::<S49>(0)?,
            })
        })
        .implements::<dyn Named>("App\\Named", |x| x);
    r.class::<TA>("App\\TA").constructor(|_| Ok(TA {}));
    r.class::<TB>("App\\TB").constructor(|a| {
        Ok(TB {
            a: a.service::<TA>(0)?,
            s: a.service::<S0>(1)?,
        })
    });
    r.class::<TC>("App\\TC").constructor(|a| {
        Ok(TC {
            s: a.service::<S1>(0)?,
        })
    });
    r.class::<TRoot>("App\\TRoot").constructor(|a| {
        Ok(TRoot {
            b: a.service::<TB>(0)?,
            c: a.service::<TC>(1)?,
        })
    });
    r
}

/// The binary plan of the same graph, as the compiler would write it.
pub fn wireplan_plan() -> Vec<u8> {
    let mut services = Map::new();
    let mut types = Map::new();
    let mut add = |name: &str, class: &str, lifespan: &str, deps: &[&str]| {
        let args: Vec<Json> = deps.iter().map(|d| json!({"$ref": d})).collect();
        services.insert(
            name.to_string(),
            json!({"type": class, "lifespan": lifespan,
                   "create": {"$new": class, "args": args}}),
        );
        types.insert(class.to_string(), json!([name]));
    };
    for (name, deps) in SPEC {
        add(name, &format!("App\\{name}"), "singleton", deps);
    }
    add("Top", "App\\Top", "singleton", &["S49"]);
    add("TA", "App\\TA", "transient", &[]);
    add("TB", "App\\TB", "transient", &["TA", "S0"]);
    add("TC", "App\\TC", "transient", &["S1"]);
    add("TRoot", "App\\TRoot", "transient", &["TB", "TC"]);
    types.insert("App\\Named".to_string(), json!(["Top"]));
    let plan = json!({"format": "wireplan-plan", "version": 1, "compiler": "bench",
        "inputs_hash": "0", "parameters": {}, "services": services, "types": types})
    .to_string();
    Plan::from_json_str(&plan, "<peers>")
        .expect("peers plan")
        .to_binary()
}

/// A wireplan container for the graph (nothing created yet).
pub fn wireplan_container(plan: &[u8], registry: &Registry) -> Container {
    Container::from_bytes(plan, registry).expect("peers container")
}
