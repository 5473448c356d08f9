//! The binary form's mirror of the plan model, for writing: plain derived serde types without
//! the JSON form's conveniences (omitted defaults, untagged enums, `$`-keyed objects), written
//! with postcard. Reading does not go through the mirror: [`super::decode`] reads the same
//! layout straight into the model.

use indexmap::IndexMap;
use serde::Serialize;

use super::decode::REQUIRES_ASYNC;
use crate::plan::{Autowired, CallTarget, Expr, Lifespan, Name, Plan, ServiceKind, ServicePlan};

/// The payload of `plan`, in the layout of its version.
pub(super) fn encode(plan: &Plan) -> Vec<u8> {
    if plan.version >= 4 {
        let signatures: Vec<(&str, &str)> = plan
            .signatures
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        postcard::to_allocvec(&plan_of(plan, dynamic_of(plan), signatures)).unwrap_or_default()
    } else if plan.version >= 3 {
        postcard::to_allocvec(&plan_of(plan, dynamic_of(plan), ())).unwrap_or_default()
    } else {
        postcard::to_allocvec(&plan_of(plan, (), ())).unwrap_or_default()
    }
}

/// The whole plan; `D` is the `dynamic` section (`()` for plans before version 3, which
/// postcard writes as nothing), `S` the `signatures` section (`()` before version 4). Every
/// string is borrowed from the plan being written.
#[derive(Serialize)]
struct BPlan<'a, D, S> {
    format: &'a str,
    version: u32,
    compiler: &'a str,
    inputs_hash: &'a str,
    dependencies: Vec<(&'a str, &'a str)>,
    parameters: Vec<(&'a str, BExpr<'a>)>,
    services: Vec<(&'a str, BService<'a>)>,
    aliases: Vec<(&'a str, &'a str)>,
    types: Vec<(&'a str, &'a [Name])>,
    tags: Vec<(&'a str, Vec<(&'a str, BExpr<'a>)>)>,
    initialization: Vec<BExpr<'a>>,
    dynamic: D,
    signatures: S,
}

/// One entry of the `dynamic` section: type, default, required, sensitive.
#[derive(Serialize)]
struct BDynamic<'a> {
    type_: Option<&'a str>,
    default: Option<BExpr<'a>>,
    required: bool,
    sensitive: bool,
}

#[derive(Serialize)]
struct BService<'a> {
    /// The kind code, plus [`REQUIRES_ASYNC`] (version 3), so the service layout, and every
    /// earlier plan's bytes, stay as they were.
    kind: u8,
    type_: &'a str,
    lifespan: u8,
    autowired: BAutowired<'a>,
    tags: Vec<(&'a str, BExpr<'a>)>,
    create: BExpr<'a>,
    setup: Vec<BExpr<'a>>,
    implement: Option<&'a str>,
    parameters: &'a [String],
    references: Vec<(&'a str, BExpr<'a>)>,
    source: Option<(&'a str, u32, u32)>,
}

#[derive(Serialize)]
enum BAutowired<'a> {
    All(bool),
    Types(&'a [String]),
}

#[derive(Serialize)]
enum BTarget<'a> {
    Class(&'a str),
    SelfObject,
    Expr(Box<BExpr<'a>>),
}

/// An expression; new variants go at the end, so older plans keep their meaning (the variant
/// numbers are the ones [`super::decode`] reads).
#[derive(Serialize)]
enum BExpr<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
    List(Vec<BExpr<'a>>),
    Map(Vec<(&'a str, BExpr<'a>)>),
    Ref(&'a str),
    New(&'a str, Vec<BExpr<'a>>),
    Call(BTarget<'a>, &'a str, Vec<BExpr<'a>>),
    Set(BTarget<'a>, &'a str, Box<BExpr<'a>>),
    Param(&'a str),
    Concat(Vec<BExpr<'a>>),
    Arg(&'a str),
    Get(BTarget<'a>, &'a str),
    Callable(BTarget<'a>, &'a str),
    Func(&'a str, Box<BExpr<'a>>),
    ArgOr(&'a str, Box<BExpr<'a>>),
    Provider(&'a str),
}

fn exprs(v: &[Expr]) -> Vec<BExpr<'_>> {
    v.iter().map(expr).collect()
}

fn map(m: &IndexMap<String, Expr>) -> Vec<(&str, BExpr<'_>)> {
    m.iter().map(|(k, v)| (k.as_str(), expr(v))).collect()
}

fn expr(e: &Expr) -> BExpr<'_> {
    match e {
        Expr::Null => BExpr::Null,
        Expr::Bool(b) => BExpr::Bool(*b),
        Expr::Int(i) => BExpr::Int(*i),
        Expr::Float(f) => BExpr::Float(*f),
        Expr::Str(s) => BExpr::Str(s),
        Expr::List(items) => BExpr::List(exprs(items)),
        Expr::Map(m) => BExpr::Map(map(m)),
        Expr::Ref(n) => BExpr::Ref(n),
        Expr::New { class, args } => BExpr::New(class, exprs(args)),
        Expr::Call {
            target,
            method,
            args,
        } => BExpr::Call(target_of(target), method, exprs(args)),
        Expr::Set {
            target,
            property,
            value,
        } => BExpr::Set(target_of(target), property, Box::new(expr(value))),
        Expr::Param(n) => BExpr::Param(n),
        Expr::Concat(parts) => BExpr::Concat(exprs(parts)),
        Expr::Arg(n) => BExpr::Arg(n),
        Expr::Get { target, property } => BExpr::Get(target_of(target), property),
        Expr::Callable { target, method } => BExpr::Callable(target_of(target), method),
        Expr::Func { name, arg } => BExpr::Func(name, Box::new(expr(arg))),
        Expr::ArgOr { name, default } => BExpr::ArgOr(name, Box::new(expr(default))),
        Expr::Provider(n) => BExpr::Provider(n),
    }
}

fn target_of(t: &CallTarget) -> BTarget<'_> {
    match t {
        CallTarget::Class(c) => BTarget::Class(c),
        CallTarget::SelfObject => BTarget::SelfObject,
        CallTarget::Expr(e) => BTarget::Expr(Box::new(expr(e))),
    }
}

fn kind_code(k: ServiceKind) -> u8 {
    match k {
        ServiceKind::Service => 0,
        ServiceKind::Factory => 1,
        ServiceKind::Accessor => 2,
        ServiceKind::Locator => 3,
        ServiceKind::Imported => 4,
        ServiceKind::Slot => 5,
    }
}

fn lifespan_code(l: Lifespan) -> u8 {
    match l {
        Lifespan::Singleton => 0,
        Lifespan::Scoped => 1,
        Lifespan::Transient => 2,
    }
}

fn service(s: &ServicePlan) -> BService<'_> {
    BService {
        kind: kind_code(s.kind) | if s.requires_async { REQUIRES_ASYNC } else { 0 },
        type_: &s.type_,
        lifespan: lifespan_code(s.lifespan),
        autowired: match &s.autowired {
            Autowired::All(b) => BAutowired::All(*b),
            Autowired::Types(t) => BAutowired::Types(t),
        },
        tags: map(&s.tags),
        create: expr(&s.create),
        setup: exprs(&s.setup),
        implement: s.implement.as_deref(),
        parameters: &s.parameters,
        references: map(&s.references),
        source: s
            .source
            .as_ref()
            .map(|l| (l.file.as_str(), l.line, l.column)),
    }
}

fn plan_of<D, S>(p: &Plan, dynamic: D, signatures: S) -> BPlan<'_, D, S> {
    BPlan {
        format: &p.format,
        version: p.version,
        compiler: &p.compiler,
        inputs_hash: &p.inputs_hash,
        dependencies: p
            .dependencies
            .iter()
            .map(|d| (d.path.as_str(), d.hash.as_str()))
            .collect(),
        parameters: map(&p.parameters),
        services: p
            .services
            .iter()
            .map(|(k, s)| (k.as_str(), service(s)))
            .collect(),
        aliases: p
            .aliases
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect(),
        types: p
            .types
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_slice()))
            .collect(),
        tags: p.tags.iter().map(|(t, m)| (t.as_str(), map(m))).collect(),
        initialization: exprs(&p.initialization),
        dynamic,
        signatures,
    }
}

fn dynamic_of(p: &Plan) -> Vec<(&str, BDynamic<'_>)> {
    p.dynamic
        .iter()
        .map(|(k, d)| {
            let b = BDynamic {
                type_: d.type_.as_deref(),
                default: d.default.as_ref().map(expr),
                required: d.required,
                sensitive: d.sensitive,
            };
            (k.as_str(), b)
        })
        .collect()
}
