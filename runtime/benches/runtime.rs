//! Runtime benchmarks on a generated 10,000-service plan, each next to hand-written Rust doing
//! the same construction in the same run.
//!
//! ```text
//! cargo bench -p wireplan-runtime --bench runtime
//! ```
//!
//! The plan has the shape of `shared/bench/app-10000` (and the reference's workload): services
//! `s{i}` of class `App\S{i}` whose constructors take 0–4 dependencies on lower-numbered
//! services, ~10% an `int $limit`, ~8% a `setPeer(@sJ)` setup, a quarter implementing one of
//! 500 interfaces (the first implementer autowired), plus a transient subtree of 5 objects.
//! One Rust type stands behind every class (registering 10,000 Rust types would only measure
//! the compiler). After criterion's groups, a summary prints medians and ratios.

mod peers;
mod timing;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use timing::{
    cpu_median, interleaved, interleaved_pair, median, median_of, paired_ratio, thread_cpu, Batch,
};

/// Rounds of the peers summary (each runs the four containers' batches in turn).
const PEER_ROUNDS: usize = 31;

/// Median and minimum CPU time of `runs` single calls of `f`.
fn cpu_median_min(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = thread_cpu();
            f();
            thread_cpu() - t
        })
        .collect();
    times.sort();
    (times[runs / 2], times[0])
}

use criterion::{BatchSize, Criterion};
use serde_json::{json, Map, Value as Json};
use wireplan_runtime::plan::Plan;
use wireplan_runtime::{Container, Registry};

const N: usize = 10_000;

trait Named: Send + Sync {
    fn id(&self) -> i64;
}

#[allow(dead_code)] // built to be measured, not read
struct Node {
    id: i64,
    limit: Option<i64>,
    deps: Vec<Arc<Node>>,
    peer: Option<Arc<Node>>,
}

impl Named for Node {
    fn id(&self) -> i64 {
        self.id
    }
}

/// One service of the generated graph, for the hand-written baseline.
struct Spec {
    limit: Option<i64>,
    deps: Vec<usize>,
    peer: Option<usize>,
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

fn specs() -> Vec<Spec> {
    let mut rng = Lcg(42);
    (0..N)
        .map(|i| {
            let ndeps = if i == 0 { 0 } else { rng.next(5).min(i) };
            let mut deps: Vec<usize> = (0..ndeps).map(|_| rng.next(i)).collect();
            deps.sort_unstable();
            deps.dedup();
            let limit = (rng.next(10) == 0).then_some(10);
            let peer = (i > 0 && rng.next(12) == 0).then(|| rng.next(i));
            Spec { limit, deps, peer }
        })
        .collect()
}

fn node_args(i: usize, s: &Spec) -> Json {
    let mut args = vec![json!(i), s.limit.map_or(Json::Null, |l| json!(l))];
    args.extend(s.deps.iter().map(|d| json!({"$ref": format!("s{d}")})));
    Json::Array(args)
}

fn plan_json(specs: &[Spec]) -> String {
    let mut services = Map::new();
    let mut types = Map::new();
    for (i, s) in specs.iter().enumerate() {
        let class = format!("App\\S{i}");
        let mut svc = json!({"type": class, "lifespan": "singleton",
            "create": {"$new": class, "args": node_args(i, s)}});
        if let Some(p) = s.peer {
            svc["setup"] =
                json!([{"$call": ["@self", "setPeer"], "args": [{"$ref": format!("s{p}")}]}]);
        }
        types.insert(class, json!([format!("s{i}")]));
        if i % 4 == 0 {
            let iface = format!("App\\I{}", (i / 4) % 500);
            // The first implementer of each interface is autowired for it.
            types
                .entry(iface)
                .or_insert_with(|| json!([format!("s{i}")]));
        }
        services.insert(format!("s{i}"), svc);
    }
    // A transient subtree: root(b(a), c(a)) = 5 objects; `a` also needs the singleton s1.
    let t = |name: &str, id: i64, deps: Vec<Json>| {
        let mut args = vec![json!(id), Json::Null];
        args.extend(deps);
        (
            name.to_string(),
            json!({"type": "App\\T", "lifespan": "transient",
                   "create": {"$new": "App\\T", "args": args}}),
        )
    };
    for (name, svc) in [
        t("ta", 1, vec![json!({"$ref": "s1"})]),
        t("tb", 2, vec![json!({"$ref": "ta"})]),
        t("tc", 3, vec![json!({"$ref": "ta"})]),
        t(
            "troot",
            4,
            vec![json!({"$ref": "tb"}), json!({"$ref": "tc"})],
        ),
    ] {
        services.insert(name, svc);
    }
    json!({"format": "wireplan-plan", "version": 1, "compiler": "bench", "inputs_hash": "0",
           "parameters": {"limit": 10}, "services": services, "types": types})
    .to_string()
}

fn ctor(a: &wireplan_runtime::Args<'_>) -> wireplan_runtime::CallResult<Node> {
    let mut deps = Vec::with_capacity(a.len().saturating_sub(2));
    for i in 2..a.len() {
        deps.push(a.service::<Node>(i)?);
    }
    Ok(Node {
        id: a.int(0)?,
        limit: a.opt_int(1)?,
        deps,
        peer: None,
    })
}

fn registry() -> Registry {
    let mut r = Registry::new();
    for i in 0..N {
        let b = r
            .class::<Node>(&format!("App\\S{i}"))
            .constructor(ctor)
            .method_mut("setPeer", |n, a| {
                n.peer = Some(a.service::<Node>(0)?);
                Ok(())
            });
        if i % 4 == 0 {
            b.implements::<dyn Named>(&format!("App\\I{}", (i / 4) % 500), |x| x);
        }
    }
    r.class::<Node>("App\\T").constructor(ctor);
    r
}

/// The hand-written equivalent of creating every service once.
fn hand_build_all(specs: &[Spec]) -> Vec<Arc<Node>> {
    let mut nodes: Vec<Arc<Node>> = Vec::with_capacity(specs.len());
    for (i, s) in specs.iter().enumerate() {
        let deps = s.deps.iter().map(|&d| nodes[d].clone()).collect();
        nodes.push(Arc::new(Node {
            id: i as i64,
            limit: s.limit,
            deps,
            peer: s.peer.map(|p| nodes[p].clone()),
        }));
    }
    nodes
}

/// The hand-written equivalent of resolving `troot`.
fn hand_transient(s1: &Arc<Node>) -> Arc<Node> {
    let a = |_: ()| {
        Arc::new(Node {
            id: 1,
            limit: None,
            deps: vec![s1.clone()],
            peer: None,
        })
    };
    let b = Arc::new(Node {
        id: 2,
        limit: None,
        deps: vec![a(())],
        peer: None,
    });
    let c = Arc::new(Node {
        id: 3,
        limit: None,
        deps: vec![a(())],
        peer: None,
    });
    Arc::new(Node {
        id: 4,
        limit: None,
        deps: vec![b, c],
        peer: None,
    })
}

/// The names of a class's constructor parameters: `id`, `limit`, then one per dependency.
fn param_names(s: &Spec) -> Vec<&'static str> {
    const DEPS: [&str; 5] = ["d0", "d1", "d2", "d3", "d4"];
    let mut names = vec!["id", "limit"];
    names.extend(&DEPS[..s.deps.len()]);
    names
}

/// [`registry`] as a derive user's: every `App\S{i}` constructor declares its parameters
/// (`ClassBuilder::signature`), so a load checks each call's count, literals and references
/// against them, and the plan's `signatures` section against their names.
fn registry_signed(specs: &[Spec]) -> Registry {
    use wireplan_runtime::catalog::Param;
    let mut r = registry();
    for (i, s) in specs.iter().enumerate() {
        let names = param_names(s);
        let mut params = vec![
            Param::of::<i64>(names[0]),
            Param::of::<Option<i64>>(names[1]),
        ];
        params.extend(names[2..].iter().map(|n| Param::of::<Arc<Node>>(n)));
        r.class::<Node>(&format!("App\\S{i}")).signature(params);
    }
    r
}

struct Fixture {
    specs: Vec<Spec>,
    registry: Registry,
    json: Vec<u8>,
    bin: Vec<u8>,
    /// [`registry_signed`], with the plan at the current version: without a `signatures`
    /// section (`bin_declared`) and with one naming every class's parameters (`bin_signed`),
    /// what the compiler writes since version 4.
    registry_signed: Registry,
    bin_declared: Vec<u8>,
    bin_signed: Vec<u8>,
}

fn fixture() -> Fixture {
    let specs = specs();
    let json = plan_json(&specs);
    let plan = Plan::from_json_str(&json, "<bench>").expect("generated plan");
    let mut current = plan.clone();
    current.version = wireplan_runtime::plan::VERSION;
    let bin_declared = current.to_binary();
    current.signatures = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                format!("App\\S{i}").into(),
                param_names(s).join(", ").into(),
            )
        })
        .collect();
    Fixture {
        json: plan.to_json().into_bytes(),
        bin: plan.to_binary(),
        registry: registry(),
        registry_signed: registry_signed(&specs),
        bin_declared,
        bin_signed: current.to_binary(),
        specs,
    }
}

fn bench(c: &mut Criterion, f: &Fixture) {
    let mut g = c.benchmark_group("load");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.bench_function("json", |b| {
        b.iter(|| Container::from_bytes(black_box(&f.json), &f.registry).unwrap())
    });
    g.bench_function("binary", |b| {
        b.iter(|| Container::from_bytes(black_box(&f.bin), &f.registry).unwrap())
    });
    g.bench_function("binary_declared", |b| {
        b.iter(|| Container::from_bytes(black_box(&f.bin_declared), &f.registry_signed).unwrap())
    });
    g.bench_function("binary_signed", |b| {
        b.iter(|| Container::from_bytes(black_box(&f.bin_signed), &f.registry_signed).unwrap())
    });
    g.finish();

    // The binary load in its parts: decoding the bytes into the plan model; checking the plan
    // against itself and the registry and setting up the container; dropping the container.
    let mut g = c.benchmark_group("load_split");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.bench_function("decode_binary", |b| {
        b.iter(|| Plan::from_bytes(black_box(&f.bin), "<bench>").unwrap())
    });
    g.bench_function("check_and_setup", |b| {
        b.iter_batched(
            || Plan::from_bytes(&f.bin, "<bench>").unwrap(),
            |p| Container::from_plan(p, &f.registry).unwrap(),
            BatchSize::PerIteration,
        )
    });
    g.bench_function("drop", |b| {
        b.iter_batched(
            || Container::from_bytes(&f.bin, &f.registry).unwrap(),
            drop,
            BatchSize::PerIteration,
        )
    });
    g.finish();

    let mut g = c.benchmark_group("create_all");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.bench_function("container", |b| {
        b.iter_batched(
            || Container::from_bytes(&f.bin, &f.registry).unwrap(),
            |c| {
                c.warm_up().unwrap();
                c
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("hand_written", |b| b.iter(|| hand_build_all(&f.specs)));
    g.finish();

    let container = Container::from_bytes(&f.bin, &f.registry).unwrap();
    container.warm_up().unwrap();
    let nodes = hand_build_all(&f.specs);
    let mut g = c.benchmark_group("cached");
    g.bench_function("get_by_type_concrete", |b| {
        b.iter(|| container.get_by_type::<Node>().unwrap())
    });
    g.bench_function("get_by_type_trait", |b| {
        b.iter(|| container.get_by_type::<dyn Named>().unwrap())
    });
    g.bench_function("get_by_name", |b| {
        b.iter(|| container.get::<Node>(black_box("s9999")).unwrap())
    });
    g.bench_function("hand_written_arc_clone", |b| {
        b.iter(|| black_box(&nodes[0]).clone())
    });
    g.finish();

    let mut g = c.benchmark_group("transient_subtree");
    g.bench_function("container", |b| {
        b.iter(|| container.get::<Node>("troot").unwrap())
    });
    g.bench_function("hand_written", |b| b.iter(|| hand_transient(&nodes[1])));
    g.finish();
}

/// One container's run of a workload: (container label, one call).
type PeerRun = (&'static str, Box<dyn FnMut()>);

/// The peers' workloads on the 50-singleton graph (see `peers`), each row as closures for
/// hand-written Rust, wireplan, dill and ferrunix.
struct PeerRow {
    name: &'static str,
    runs: [PeerRun; 4],
    /// Repetitions per timed run in the summary.
    reps: usize,
}

fn peer_rows() -> Vec<PeerRow> {
    use peers::*;
    let plan = Arc::new(wireplan_plan());
    let wreg = Arc::new(wireplan_registry());
    let wp = Arc::new(wireplan_container(&plan, &wreg));
    wp.warm_up().unwrap();
    let dc = Arc::new(dill_catalog());
    dill_create_all(&dc);
    dc.get_one::<dyn Named>().unwrap();
    let fx = Arc::new(ferrunix_registry());
    ferrunix_create_all(&fx);
    fx.singleton::<Box<dyn Named>>().unwrap();
    let s49 = hand_graph();
    let top: Arc<dyn Named> = wp.get_by_type::<dyn Named>().unwrap();
    let s0 = wp.get_by_type::<S0>().unwrap();
    let s1 = wp.get_by_type::<S1>().unwrap();
    macro_rules! run {
        ($label:expr, $($c:ident),* => $body:expr) => {{
            $( let $c = $c.clone(); )*
            ($label, Box::new(move || { black_box($body); }) as Box<dyn FnMut()>) as PeerRun
        }};
    }
    vec![
        PeerRow {
            name: "cached singleton by trait object",
            reps: 100_000,
            runs: [
                run!("hand-written", top => black_box(&top).clone()),
                run!("wireplan", wp => wp.get_by_type::<dyn Named>().unwrap()),
                run!("dill", dc => dc.get_one::<dyn Named>().unwrap()),
                run!("ferrunix", fx => fx.singleton::<Box<dyn Named>>().unwrap()),
            ],
        },
        PeerRow {
            name: "cached singleton by concrete type",
            reps: 100_000,
            runs: [
                run!("hand-written", s49 => black_box(&s49).clone()),
                run!("wireplan", wp => wp.get_by_type::<S49>().unwrap()),
                run!("dill", dc => dc.get_one::<S49>().unwrap()),
                run!("ferrunix", fx => fx.singleton::<S49>().unwrap()),
            ],
        },
        PeerRow {
            name: "new container + 50-singleton graph",
            reps: 200,
            runs: [
                run!("hand-written", => hand_graph()),
                run!("wireplan", plan => {
                    let c = wireplan_container(&plan, &wireplan_registry());
                    c.warm_up().unwrap();
                    c
                }),
                run!("dill", => {
                    let c = dill_catalog();
                    dill_create_all(&c);
                    c
                }),
                run!("ferrunix", => {
                    let r = ferrunix_registry();
                    ferrunix_create_all(&r);
                    r
                }),
            ],
        },
        PeerRow {
            name: "transient tree (4 new + 2 singletons)",
            reps: 20_000,
            runs: [
                run!("hand-written", s0, s1 => hand_transient(&s0, &s1)),
                run!("wireplan", wp => wp.get_by_type::<TRoot>().unwrap()),
                run!("dill", dc => dc.get_one::<TRoot>().unwrap()),
                run!("ferrunix", fx => fx.transient::<Arc<TRoot>>().unwrap()),
            ],
        },
    ]
}

fn bench_peers(c: &mut Criterion, rows: &mut [PeerRow]) {
    for row in rows {
        let mut g = c.benchmark_group(format!("peers/{}", row.name));
        g.measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500));
        for (label, f) in row.runs.iter_mut() {
            g.bench_function(*label, |b| b.iter(&mut *f));
        }
        g.finish();
    }
}

fn summary_peers(rows: &mut [PeerRow]) {
    println!(
        "\nRust containers, the same 50-singleton graph (medians of {PEER_ROUNDS} rounds that run \
         the four in turn; ratio = x / hand-written)"
    );
    println!(
        "{:<40} {:>14} {:>22} {:>22} {:>22}",
        "workload", "hand-written", "wireplan", "dill 0.17", "ferrunix 0.5"
    );
    for row in rows {
        let mut fs: Vec<&mut dyn FnMut()> = row
            .runs
            .iter_mut()
            .map(|(_, f)| &mut **f as &mut dyn FnMut())
            .collect();
        let batches = interleaved(PEER_ROUNDS, row.reps, &mut fs);
        for (label, pick) in [
            (row.name, (|b: &Batch| b.wall) as fn(&Batch) -> Duration),
            ("  the same, CPU time", |b: &Batch| b.cpu),
        ] {
            let times: Vec<Duration> = batches
                .iter()
                .map(|list| median_of(&mut list.iter().map(pick).collect::<Vec<_>>()))
                .collect();
            let base = times[0].as_secs_f64().max(1e-12);
            let cell = |t: Duration| format!("{t:.2?} ({:.1}x)", t.as_secs_f64() / base);
            println!(
                "{:<40} {:>14} {:>22} {:>22} {:>22}",
                label,
                format!("{:.2?}", times[0]),
                cell(times[1]),
                cell(times[2]),
                cell(times[3])
            );
        }
        // wireplan against each peer, round by round (below 1: wireplan ahead).
        let paired = |peer: usize| {
            format!(
                "{:.2} | {:.2}",
                paired_ratio(&batches[1], &batches[peer], |b| b.wall),
                paired_ratio(&batches[1], &batches[peer], |b| b.cpu)
            )
        };
        println!(
            "{:<40} {:>14} {:>22} {:>22} {:>22}",
            "  wireplan / peer, paired (wall | CPU)",
            "",
            "",
            paired(2),
            paired(3)
        );
    }
    // wireplan's cold start in its parts (CPU time): registering the classes, loading the
    // 55-service binary plan, creating the 50 singletons.
    let plan = peers::wireplan_plan();
    let registry = peers::wireplan_registry();
    let build = cpu_median(15, 200, || {
        black_box(peers::wireplan_registry());
    });
    let load = cpu_median(15, 200, || {
        black_box(peers::wireplan_container(&plan, &registry));
    });
    let decode = cpu_median(15, 200, || {
        black_box(Plan::from_bytes(&plan, "<bench>").unwrap());
    });
    let whole = cpu_median(15, 200, || {
        let c = peers::wireplan_container(&plan, &peers::wireplan_registry());
        c.warm_up().unwrap();
        black_box(c);
    });
    let mut create = Vec::new();
    for _ in 0..15 {
        let cs: Vec<Container> = (0..200)
            .map(|_| peers::wireplan_container(&plan, &registry))
            .collect();
        let t = thread_cpu();
        for c in &cs {
            c.warm_up().unwrap();
        }
        create.push((thread_cpu() - t) / 200);
    }
    create.sort();
    println!(
        "  wireplan cold start, CPU time: {whole:.2?} = registry {build:.2?} + load {load:.2?} \
         + create 50 {:.2?} (the model, not built by the load: decode {decode:.2?})",
        create[7]
    );
}

fn summary(f: &Fixture) {
    let load_json = median(9, 1, || {
        black_box(Container::from_bytes(&f.json, &f.registry).unwrap());
    });
    let load_bin = median(9, 1, || {
        black_box(Container::from_bytes(&f.bin, &f.registry).unwrap());
    });
    // CPU time, and the parts of a binary load (see the `load_split` group).
    let cpu_json = cpu_median(9, 1, || {
        black_box(Container::from_bytes(&f.json, &f.registry).unwrap());
    });
    // The binary load in its parts, CPU time: 21 runs each, median and minimum (the minimum
    // is what the machine's other jobs disturb least).
    let (cpu_bin, min_bin) = cpu_median_min(21, || {
        black_box(Container::from_bytes(&f.bin, &f.registry).unwrap());
    });
    // With a registry that declares every constructor's parameters, without and with the
    // plan's `signatures` section, alternating.
    let (mut declared, mut signed) = (Vec::new(), Vec::new());
    for _ in 0..21 {
        for (bytes, out) in [
            (&f.bin_declared, &mut declared),
            (&f.bin_signed, &mut signed),
        ] {
            let t = thread_cpu();
            black_box(Container::from_bytes(bytes, &f.registry_signed).unwrap());
            out.push(thread_cpu() - t);
        }
    }
    let ratios: Vec<f64> = declared
        .iter()
        .zip(&signed)
        .map(|(d, s)| s.as_secs_f64() / d.as_secs_f64().max(1e-12))
        .collect();
    let (cpu_declared, cpu_signed) = (median_of(&mut declared), median_of(&mut signed));
    let signed_ratio = {
        let mut r = ratios;
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    };
    // The model of the binary plan (`Plan::from_bytes`, dropped inside the timing): no longer
    // part of a binary load, which reads the payload into the container's tables; built on the
    // first `Container::plan()`.
    let (cpu_decode, min_decode) = cpu_median_min(21, || {
        black_box(Plan::from_bytes(&f.bin, "<bench>").unwrap());
    });
    // The model path's check and set-up (JSON plans, `Container::from_plan`).
    let mut checks = Vec::new();
    for _ in 0..21 {
        let p = Plan::from_bytes(&f.bin, "<bench>").unwrap();
        let t = thread_cpu();
        let c = Container::from_plan(p, &f.registry).unwrap();
        checks.push(thread_cpu() - t);
        drop(c);
    }
    // A binary load in its parts: read into the tables, then the container's drop.
    let mut reads = Vec::new();
    let mut drops = Vec::new();
    for _ in 0..21 {
        let t = thread_cpu();
        let c = Container::from_bytes(&f.bin, &f.registry).unwrap();
        let read = thread_cpu();
        drop(c);
        reads.push(read - t);
        drops.push(thread_cpu() - read);
    }
    checks.sort();
    reads.sort();
    drops.sort();
    let (cpu_check, min_check) = (checks[10], checks[0]);
    let (cpu_read, min_read) = (reads[10], reads[0]);
    let (cpu_drop, min_drop) = (drops[10], drops[0]);
    let mut create = Vec::new();
    for _ in 0..9 {
        let c = Container::from_bytes(&f.bin, &f.registry).unwrap();
        let t = Instant::now();
        c.warm_up().unwrap();
        create.push(t.elapsed());
    }
    create.sort();
    let create = create[4];
    let hand_all = median(9, 1, || {
        black_box(hand_build_all(&f.specs));
    });
    let c = Container::from_bytes(&f.bin, &f.registry).unwrap();
    c.warm_up().unwrap();
    let nodes = hand_build_all(&f.specs);
    // The held `Arc<dyn Named>` is the `dyn` row's own baseline: cloned by hand and asked for
    // its `id()` (the row calls it through the trait object, which a plain clone does not).
    let held: Arc<dyn Named> = c.get_by_type::<dyn Named>().unwrap();
    // Each row and its baseline in turn, round by round (`timing::interleaved_pair`): a slow
    // stretch of the machine falls on both alike, and the ratios are paired by round.
    let by_type = interleaved_pair(
        31,
        100_000,
        || {
            black_box(c.get_by_type::<Node>().unwrap());
        },
        || {
            black_box(black_box(&nodes[0]).clone());
        },
    );
    let by_trait = interleaved_pair(
        31,
        100_000,
        || {
            black_box(c.get_by_type::<dyn Named>().unwrap().id());
        },
        || {
            black_box(black_box(&held).clone().id());
        },
    );
    let by_name = interleaved_pair(
        31,
        100_000,
        || {
            black_box(c.get::<Node>(black_box("s9999")).unwrap());
        },
        || {
            black_box(black_box(&nodes[0]).clone());
        },
    );
    let transients = interleaved_pair(
        31,
        20_000,
        || {
            black_box(c.get::<Node>("troot").unwrap());
        },
        || {
            black_box(hand_transient(&nodes[1]));
        },
    );
    let med = |list: &[Batch], pick: fn(&Batch) -> Duration| {
        median_of(&mut list.iter().map(pick).collect::<Vec<_>>())
    };
    let wall: fn(&Batch) -> Duration = |b| b.wall;
    let cpu: fn(&Batch) -> Duration = |b| b.cpu;
    let paired = |rows: &[Vec<Batch>; 2], pick: fn(&Batch) -> Duration| {
        paired_ratio(&rows[0], &rows[1], pick)
    };
    let (type_ratio, trait_ratio, name_ratio) = (
        paired(&by_type, wall),
        paired(&by_trait, wall),
        paired(&by_name, wall),
    );
    // The `dyn` row against the plain clone of the first pair (rounds of different pairs).
    let trait_vs_arc = paired_ratio(&by_trait[0], &by_type[1], wall);
    let (by_type, arc) = (med(&by_type[0], wall), med(&by_type[1], wall));
    let (by_trait, arc_dyn) = (med(&by_trait[0], wall), med(&by_trait[1], wall));
    let by_name = med(&by_name[0], wall);
    let (transient, hand_t) = (med(&transients[0], wall), med(&transients[1], wall));
    let r = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64().max(1e-12);
    println!("\nwireplan runtime, {N} services (medians of 31 rounds that run a row and its baseline in turn; ratio = container / hand-written, the median of the rounds' ratios)");
    println!(
        "plan size: JSON {} KB, binary {} KB",
        f.json.len() / 1024,
        f.bin.len() / 1024
    );
    println!(
        "load JSON plan          {load_json:>12.2?}   ({:.2}x binary)",
        r(load_json, load_bin)
    );
    println!(
        "load binary plan        {load_bin:>12.2?}   ({:.2}x hand-written create-all)",
        r(load_bin, hand_all)
    );
    println!(
        "  CPU time: JSON {cpu_json:.2?}, binary {cpu_bin:.2?} = read into tables \
         {cpu_read:.2?} + drop {cpu_drop:.2?}; model path: decode {cpu_decode:.2?}, check and \
         set up {cpu_check:.2?}"
    );
    println!(
        "  CPU time, minimum: binary {min_bin:.2?} = read into tables {min_read:.2?} + drop \
         {min_drop:.2?}; model path: decode {min_decode:.2?}, check and set up {min_check:.2?}"
    );
    println!(
        "  declared parameters, CPU time: binary {cpu_declared:.2?}, with the signatures \
         section {cpu_signed:.2?} (paired {signed_ratio:.2}x)"
    );
    println!("create all {N}      {create:>12.2?}   hand-written {hand_all:>10.2?}   ratio {:.1}x   ({:.0} ns/service)", r(create, hand_all), create.as_nanos() as f64 / N as f64);
    println!(
        "cached get_by_type      {by_type:>12.2?}   Arc clone {arc:>10.2?}   ratio {:.1}x",
        type_ratio
    );
    println!(
        "cached get_by_type dyn  {by_trait:>12.2?}   Arc<dyn> clone + id() {arc_dyn:.2?}   ratio {:.1}x   (against the plain Arc clone {:.1}x)",
        trait_ratio, trait_vs_arc
    );
    println!(
        "cached get by name      {by_name:>12.2?}   Arc clone {arc:>10.2?}   ratio {:.1}x",
        name_ratio
    );
    println!(
        "transient 5-object tree {transient:>12.2?}   hand-written {hand_t:>10.2?}   ratio {:.1}x",
        paired(&transients, wall)
    );
    let (transient, hand_t) = (med(&transients[0], cpu), med(&transients[1], cpu));
    println!(
        "  the same, CPU time    {transient:>12.2?}   hand-written {hand_t:>10.2?}   ratio {:.1}x",
        paired(&transients, cpu)
    );
}

fn main() {
    let f = fixture();
    let mut rows = peer_rows();
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &f);
    bench_peers(&mut c, &mut rows);
    c.final_summary();
    // The summary runs in bench mode only, not under `--profile-time` (a profile then holds
    // only the profiled group).
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--profile-time") {
        summary(&f);
        summary_peers(&mut rows);
    }
}
