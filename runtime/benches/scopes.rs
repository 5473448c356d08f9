//! Per-request overhead of scopes and slots, next to hand-written Rust doing the same in the
//! same run: open a scope, fill the current-user slot, resolve 3 scoped services (a greeter
//! and a log that hold the user, and stats holding both and the shared database), drop the
//! scope.
//!
//! ```text
//! cargo bench -p wireplan-runtime --bench scopes
//! ```
//!
//! After criterion's group, a summary prints the medians and their ratio (goal: ≤ 3×).

#[allow(dead_code)] // each bench uses part of the shared helpers
mod timing;

use std::hint::black_box;
use std::sync::Arc;

use criterion::Criterion;
use serde_json::json;
use std::time::Duration;
use timing::{cpu_median, interleaved, median_of, paired_ratio, Batch};
use wireplan_runtime::{Container, Registry};

#[allow(dead_code)] // built to be measured, not read
struct Database(String);
#[allow(dead_code)]
struct CurrentUser(String);
#[allow(dead_code)]
struct Greeter {
    user: Arc<CurrentUser>,
    db: Arc<Database>,
}
#[allow(dead_code)]
struct RequestLog {
    user: Arc<CurrentUser>,
}
#[allow(dead_code)]
struct Stats {
    greeter: Arc<Greeter>,
    log: Arc<RequestLog>,
    db: Arc<Database>,
}

fn container() -> Container {
    let mut r = Registry::new();
    r.class::<Database>("App\\Database")
        .constructor(|a| Ok(Database(a.str(0)?.to_string())));
    r.class::<CurrentUser>("App\\CurrentUser");
    r.class::<Greeter>("App\\Greeter").constructor(|a| {
        Ok(Greeter {
            user: a.service(0)?,
            db: a.service(1)?,
        })
    });
    r.class::<RequestLog>("App\\RequestLog").constructor(|a| {
        Ok(RequestLog {
            user: a.service(0)?,
        })
    });
    r.class::<Stats>("App\\Stats").constructor(|a| {
        Ok(Stats {
            greeter: a.service(0)?,
            log: a.service(1)?,
            db: a.service(2)?,
        })
    });
    let new = |class: &str, args: serde_json::Value| json!({"$new": class, "args": args});
    let plan = json!({
        "format": "wireplan-plan", "version": 3, "compiler": "bench", "inputs_hash": "0",
        "services": {
            "database": {"type": "App\\Database", "create": new("App\\Database", json!(["memory://"]))},
            "currentUser": {"kind": "slot", "type": "App\\CurrentUser", "lifespan": "scoped", "create": null},
            "greeter": {"type": "App\\Greeter", "lifespan": "scoped",
                        "create": new("App\\Greeter", json!([{"$ref": "currentUser"}, {"$ref": "database"}]))},
            "requestLog": {"type": "App\\RequestLog", "lifespan": "scoped",
                           "create": new("App\\RequestLog", json!([{"$ref": "currentUser"}]))},
            "stats": {"type": "App\\Stats", "lifespan": "scoped",
                      "create": new("App\\Stats", json!([{"$ref": "greeter"}, {"$ref": "requestLog"}, {"$ref": "database"}]))},
        },
        "types": {"App\\Database": ["database"], "App\\CurrentUser": ["currentUser"],
                  "App\\Greeter": ["greeter"], "App\\RequestLog": ["requestLog"],
                  "App\\Stats": ["stats"]},
    });
    let c = Container::from_json_str(&plan.to_string(), &r).expect("the plan loads");
    c.get::<Database>("database").expect("the database");
    c
}

/// One request through the container.
fn with_container(c: &Container) {
    let scope = c.scope();
    scope
        .provide(CurrentUser("ada".to_string()))
        .expect("provide");
    black_box(scope.get_by_type::<Greeter>().expect("greeter"));
    black_box(scope.get_by_type::<RequestLog>().expect("log"));
    black_box(scope.get_by_type::<Stats>().expect("stats"));
}

/// The first steps of [`with_container`] only, for the breakdown: open and drop a scope;
/// also provide the slot; also resolve the greeter (one scoped creation with two cached
/// references).
fn open_only(c: &Container) {
    black_box(c.scope());
}

fn open_provide(c: &Container) {
    let scope = c.scope();
    scope
        .provide(CurrentUser("ada".to_string()))
        .expect("provide");
    black_box(&scope);
}

fn open_provide_greeter(c: &Container) {
    let scope = c.scope();
    scope
        .provide(CurrentUser("ada".to_string()))
        .expect("provide");
    black_box(scope.get_by_type::<Greeter>().expect("greeter"));
}

/// The same request, hand-written.
fn by_hand(db: &Arc<Database>) {
    let user = Arc::new(CurrentUser("ada".to_string()));
    let greeter = Arc::new(Greeter {
        user: user.clone(),
        db: db.clone(),
    });
    let log = Arc::new(RequestLog { user: user.clone() });
    let stats = Arc::new(Stats {
        greeter: black_box(greeter),
        log: black_box(log),
        db: db.clone(),
    });
    black_box(stats);
}

fn main() {
    let c = container();
    let db = c.get::<Database>("database").expect("the database");
    let mut crit = Criterion::default().configure_from_args();
    let mut group = crit.benchmark_group("request scope");
    group.bench_function("container", |b| b.iter(|| with_container(&c)));
    group.bench_function("hand-written", |b| b.iter(|| by_hand(&db)));
    group.finish();
    crit.final_summary();
    if std::env::args().any(|a| a == "--bench") {
        // The two in turn, 31 rounds, so a slow stretch of the machine falls on both alike.
        let batches = interleaved(
            31,
            20_000,
            &mut [&mut || with_container(&c), &mut || by_hand(&db)],
        );
        let med = |i: usize, pick: fn(&Batch) -> Duration| {
            median_of(&mut batches[i].iter().map(pick).collect::<Vec<_>>())
        };
        let (container, hand) = (med(0, |b| b.wall), med(1, |b| b.wall));
        println!(
            "\nper request: open scope, provide a slot, resolve 3 scoped services, drop (medians)"
        );
        println!("  container     {container:?}");
        println!("  hand-written  {hand:?}");
        println!(
            "  ratio         {:.1}x (paired by round {:.1}x)",
            container.as_secs_f64() / hand.as_secs_f64(),
            paired_ratio(&batches[0], &batches[1], |b| b.wall)
        );
        let (container, hand) = (med(0, |b| b.cpu), med(1, |b| b.cpu));
        println!(
            "  CPU time: container {container:?}, hand-written {hand:?}, ratio {:.1}x (paired {:.1}x)",
            container.as_secs_f64() / hand.as_secs_f64(),
            paired_ratio(&batches[0], &batches[1], |b| b.cpu)
        );
        // Where a request's time goes: each line adds one step (thread-CPU medians).
        type Step = (&'static str, fn(&Container));
        let steps: [Step; 3] = [
            ("open + drop", open_only),
            ("+ provide", open_provide),
            ("+ greeter", open_provide_greeter),
        ];
        let parts: Vec<String> = steps
            .iter()
            .map(|(label, f)| format!("{label} {:?}", cpu_median(15, 20_000, || f(&c))))
            .collect();
        println!("  CPU breakdown: {}", parts.join(", "));
    }
}
