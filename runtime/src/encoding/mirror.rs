//! The binary form's mirror of the plan model: plain derived serde types without the JSON
//! form's conveniences (omitted defaults, untagged enums, `$`-keyed objects), which a
//! non-self-describing format such as postcard cannot read back.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::plan::{
    Autowired, CallTarget, Dependency, Expr, Lifespan, Plan, ServiceKind, ServicePlan,
    SourceLocation,
};

#[derive(Serialize, Deserialize)]
pub(super) struct BPlan {
    format: String,
    version: u32,
    compiler: String,
    inputs_hash: String,
    dependencies: Vec<(String, String)>,
    parameters: Vec<(String, BExpr)>,
    services: Vec<(String, BService)>,
    aliases: Vec<(String, String)>,
    types: Vec<(String, Vec<String>)>,
    tags: Vec<(String, Vec<(String, BExpr)>)>,
    initialization: Vec<BExpr>,
}

#[derive(Serialize, Deserialize)]
struct BService {
    kind: u8,
    type_: String,
    lifespan: u8,
    autowired: BAutowired,
    tags: Vec<(String, BExpr)>,
    create: BExpr,
    setup: Vec<BExpr>,
    implement: Option<String>,
    parameters: Vec<String>,
    references: Vec<(String, BExpr)>,
    source: Option<(String, u32, u32)>,
}

#[derive(Serialize, Deserialize)]
enum BAutowired {
    All(bool),
    Types(Vec<String>),
}

#[derive(Serialize, Deserialize)]
enum BTarget {
    Class(String),
    SelfObject,
    Expr(Box<BExpr>),
}

#[derive(Serialize, Deserialize)]
enum BExpr {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<BExpr>),
    Map(Vec<(String, BExpr)>),
    Ref(String),
    New(String, Vec<BExpr>),
    Call(BTarget, String, Vec<BExpr>),
    Set(BTarget, String, Box<BExpr>),
    Param(String),
    Concat(Vec<BExpr>),
    Arg(String),
    Get(BTarget, String),
    Callable(BTarget, String),
    Func(String, Box<BExpr>),
}

fn exprs_to(v: &[Expr]) -> Vec<BExpr> {
    v.iter().map(BExpr::from).collect()
}

fn exprs_from(v: Vec<BExpr>) -> Vec<Expr> {
    v.into_iter().map(Expr::from).collect()
}

fn map_to(m: &IndexMap<String, Expr>) -> Vec<(String, BExpr)> {
    m.iter().map(|(k, v)| (k.clone(), BExpr::from(v))).collect()
}

fn map_from(v: Vec<(String, BExpr)>) -> IndexMap<String, Expr> {
    v.into_iter().map(|(k, e)| (k, Expr::from(e))).collect()
}

impl From<&Expr> for BExpr {
    fn from(e: &Expr) -> BExpr {
        match e {
            Expr::Null => BExpr::Null,
            Expr::Bool(b) => BExpr::Bool(*b),
            Expr::Int(i) => BExpr::Int(*i),
            Expr::Float(f) => BExpr::Float(*f),
            Expr::Str(s) => BExpr::Str(s.clone()),
            Expr::List(items) => BExpr::List(exprs_to(items)),
            Expr::Map(m) => BExpr::Map(map_to(m)),
            Expr::Ref(n) => BExpr::Ref(n.clone()),
            Expr::New { class, args } => BExpr::New(class.clone(), exprs_to(args)),
            Expr::Call {
                target,
                method,
                args,
            } => BExpr::Call(target.into(), method.clone(), exprs_to(args)),
            Expr::Set {
                target,
                property,
                value,
            } => BExpr::Set(
                target.into(),
                property.clone(),
                Box::new(BExpr::from(&**value)),
            ),
            Expr::Param(n) => BExpr::Param(n.clone()),
            Expr::Concat(parts) => BExpr::Concat(exprs_to(parts)),
            Expr::Arg(n) => BExpr::Arg(n.clone()),
            Expr::Get { target, property } => BExpr::Get(target.into(), property.clone()),
            Expr::Callable { target, method } => BExpr::Callable(target.into(), method.clone()),
            Expr::Func { name, arg } => BExpr::Func(name.clone(), Box::new(BExpr::from(&**arg))),
        }
    }
}

impl From<BExpr> for Expr {
    fn from(e: BExpr) -> Expr {
        match e {
            BExpr::Null => Expr::Null,
            BExpr::Bool(b) => Expr::Bool(b),
            BExpr::Int(i) => Expr::Int(i),
            BExpr::Float(f) => Expr::Float(f),
            BExpr::Str(s) => Expr::Str(s),
            BExpr::List(items) => Expr::List(exprs_from(items)),
            BExpr::Map(m) => Expr::Map(map_from(m)),
            BExpr::Ref(n) => Expr::Ref(n),
            BExpr::New(class, args) => Expr::New {
                class,
                args: exprs_from(args),
            },
            BExpr::Call(target, method, args) => Expr::Call {
                target: target.into(),
                method,
                args: exprs_from(args),
            },
            BExpr::Set(target, property, value) => Expr::Set {
                target: target.into(),
                property,
                value: Box::new(Expr::from(*value)),
            },
            BExpr::Param(n) => Expr::Param(n),
            BExpr::Concat(parts) => Expr::Concat(exprs_from(parts)),
            BExpr::Arg(n) => Expr::Arg(n),
            BExpr::Get(target, property) => Expr::Get {
                target: target.into(),
                property,
            },
            BExpr::Callable(target, method) => Expr::Callable {
                target: target.into(),
                method,
            },
            BExpr::Func(name, arg) => Expr::Func {
                name,
                arg: Box::new(Expr::from(*arg)),
            },
        }
    }
}

impl From<&CallTarget> for BTarget {
    fn from(t: &CallTarget) -> BTarget {
        match t {
            CallTarget::Class(c) => BTarget::Class(c.clone()),
            CallTarget::SelfObject => BTarget::SelfObject,
            CallTarget::Expr(e) => BTarget::Expr(Box::new(BExpr::from(&**e))),
        }
    }
}

impl From<BTarget> for CallTarget {
    fn from(t: BTarget) -> CallTarget {
        match t {
            BTarget::Class(c) => CallTarget::Class(c),
            BTarget::SelfObject => CallTarget::SelfObject,
            BTarget::Expr(e) => CallTarget::Expr(Box::new(Expr::from(*e))),
        }
    }
}

fn kind_code(k: ServiceKind) -> u8 {
    match k {
        ServiceKind::Service => 0,
        ServiceKind::Factory => 1,
        ServiceKind::Accessor => 2,
        ServiceKind::Locator => 3,
        ServiceKind::Imported => 4,
    }
}

fn kind_of(code: u8) -> ServiceKind {
    match code {
        1 => ServiceKind::Factory,
        2 => ServiceKind::Accessor,
        3 => ServiceKind::Locator,
        4 => ServiceKind::Imported,
        _ => ServiceKind::Service,
    }
}

fn lifespan_code(l: Lifespan) -> u8 {
    match l {
        Lifespan::Singleton => 0,
        Lifespan::Scoped => 1,
        Lifespan::Transient => 2,
    }
}

fn lifespan_of(code: u8) -> Lifespan {
    match code {
        1 => Lifespan::Scoped,
        2 => Lifespan::Transient,
        _ => Lifespan::Singleton,
    }
}

impl From<&ServicePlan> for BService {
    fn from(s: &ServicePlan) -> BService {
        BService {
            kind: kind_code(s.kind),
            type_: s.type_.clone(),
            lifespan: lifespan_code(s.lifespan),
            autowired: match &s.autowired {
                Autowired::All(b) => BAutowired::All(*b),
                Autowired::Types(t) => BAutowired::Types(t.clone()),
            },
            tags: map_to(&s.tags),
            create: BExpr::from(&s.create),
            setup: exprs_to(&s.setup),
            implement: s.implement.clone(),
            parameters: s.parameters.clone(),
            references: map_to(&s.references),
            source: s
                .source
                .as_ref()
                .map(|l| (l.file.clone(), l.line, l.column)),
        }
    }
}

impl From<BService> for ServicePlan {
    fn from(s: BService) -> ServicePlan {
        ServicePlan {
            kind: kind_of(s.kind),
            type_: s.type_,
            lifespan: lifespan_of(s.lifespan),
            autowired: match s.autowired {
                BAutowired::All(b) => Autowired::All(b),
                BAutowired::Types(t) => Autowired::Types(t),
            },
            tags: map_from(s.tags),
            create: Expr::from(s.create),
            setup: exprs_from(s.setup),
            implement: s.implement,
            parameters: s.parameters,
            references: map_from(s.references),
            source: s
                .source
                .map(|(file, line, column)| SourceLocation { file, line, column }),
        }
    }
}

impl From<&Plan> for BPlan {
    fn from(p: &Plan) -> BPlan {
        BPlan {
            format: p.format.clone(),
            version: p.version,
            compiler: p.compiler.clone(),
            inputs_hash: p.inputs_hash.clone(),
            dependencies: p
                .dependencies
                .iter()
                .map(|d| (d.path.clone(), d.hash.clone()))
                .collect(),
            parameters: map_to(&p.parameters),
            services: p
                .services
                .iter()
                .map(|(k, s)| (k.clone(), BService::from(s)))
                .collect(),
            aliases: p
                .aliases
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            types: p
                .types
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            tags: p.tags.iter().map(|(t, m)| (t.clone(), map_to(m))).collect(),
            initialization: exprs_to(&p.initialization),
        }
    }
}

impl From<BPlan> for Plan {
    fn from(p: BPlan) -> Plan {
        Plan {
            format: p.format,
            version: p.version,
            compiler: p.compiler,
            inputs_hash: p.inputs_hash,
            dependencies: p
                .dependencies
                .into_iter()
                .map(|(path, hash)| Dependency { path, hash })
                .collect(),
            parameters: map_from(p.parameters),
            services: p
                .services
                .into_iter()
                .map(|(k, s)| (k, ServicePlan::from(s)))
                .collect(),
            aliases: p.aliases.into_iter().collect(),
            types: p.types.into_iter().collect(),
            tags: p.tags.into_iter().map(|(t, m)| (t, map_from(m))).collect(),
            initialization: exprs_from(p.initialization),
        }
    }
}
