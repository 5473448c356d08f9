//! The binary form's mirror of the plan model: plain derived serde types without the JSON
//! form's conveniences (omitted defaults, untagged enums, `$`-keyed objects), which a
//! non-self-describing format such as postcard cannot read back.
//!
//! Decoding is strict, so a damaged or crafted payload is an error rather than a different
//! plan: expressions nest at most [`MAX_DECODE_DEPTH`] levels (the decoder recurses once per
//! level), `kind` and `lifespan` codes must be known, no map has a key twice, and nothing may
//! follow the plan.

use std::cell::Cell;

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize};

use crate::dynamic::DynamicParam;
use crate::plan::{
    Autowired, CallTarget, Dependency, Expr, Lifespan, Plan, ServiceKind, ServicePlan,
    SourceLocation, MAX_EXPR_DEPTH,
};

/// How deeply expressions may nest in a binary payload. An expression's nesting counts one
/// level per expression, at most one more than its JSON depth, which the loader then checks
/// against [`MAX_EXPR_DEPTH`] with its usual message; the slack only keeps that message for
/// the plans just over the limit. Anything deeper stops the decoder before it recurses further.
pub(super) const MAX_DECODE_DEPTH: usize = MAX_EXPR_DEPTH + 8;

thread_local! {
    /// Expressions being decoded on this thread, and whether one went past the limit.
    static DECODING: Cell<(usize, bool)> = const { Cell::new((0, false)) };
}

/// One level of [`DECODING`], released on drop (also when decoding fails).
struct DecodeLevel;

impl Drop for DecodeLevel {
    fn drop(&mut self) {
        DECODING.with(|d| {
            let (depth, deep) = d.get();
            d.set((depth.saturating_sub(1), deep));
        });
    }
}

/// Decodes a payload: the plan and nothing after it. Errors say what is wrong, without the
/// "corrupt binary plan" prefix.
pub(super) fn decode(payload: &[u8], version: u64) -> Result<Plan, String> {
    DECODING.with(|d| d.set((0, false)));
    // Plans before version 3 end without the `dynamic` section.
    let decoded = if version >= 3 {
        postcard::take_from_bytes::<BPlan>(payload)
    } else {
        postcard::take_from_bytes::<BPlan<()>>(payload)
            .map(|(p, rest)| (p.with_dynamic(Vec::new()), rest))
    };
    let too_deep = DECODING.with(|d| d.replace((0, false)).1);
    match decoded {
        Err(_) if too_deep => Err(format!(
            "an expression is nested more than {MAX_DECODE_DEPTH} levels deep (plans allow \
             {MAX_EXPR_DEPTH})"
        )),
        Err(e) => Err(e.to_string()),
        Ok((_, rest)) if !rest.is_empty() => {
            Err(format!("{} byte(s) after the end of the plan", rest.len()))
        }
        Ok((plan, _)) => Plan::try_from(plan),
    }
}

/// The whole plan; `D` is the `dynamic` section (`()` for plans before version 3, which postcard
/// writes as nothing).
/// The payload of `plan`, in the layout of its version.
pub(super) fn encode(plan: &Plan) -> Vec<u8> {
    let mirror = BPlan::from(plan);
    if plan.version >= 3 {
        postcard::to_allocvec(&mirror).unwrap_or_default()
    } else {
        postcard::to_allocvec(&mirror.with_dynamic(())).unwrap_or_default()
    }
}

#[derive(Serialize, Deserialize)]
pub(super) struct BPlan<D = Vec<(String, BDynamic)>> {
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
    dynamic: D,
}

impl<D> BPlan<D> {
    fn with_dynamic<E>(self, dynamic: E) -> BPlan<E> {
        BPlan {
            format: self.format,
            version: self.version,
            compiler: self.compiler,
            inputs_hash: self.inputs_hash,
            dependencies: self.dependencies,
            parameters: self.parameters,
            services: self.services,
            aliases: self.aliases,
            types: self.types,
            tags: self.tags,
            initialization: self.initialization,
            dynamic,
        }
    }
}

/// One entry of the `dynamic` section: type, default, required, sensitive.
#[derive(Serialize, Deserialize)]
pub(super) struct BDynamic {
    type_: Option<String>,
    default: Option<BExpr>,
    required: bool,
    sensitive: bool,
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

/// The bit of a service's `kind` byte that carries `requires_async` (version 3), so the
/// service layout, and every earlier plan's bytes, stay as they were.
const REQUIRES_ASYNC: u8 = 0x80;

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

/// An expression. Decoded through [`BExprDecode`] with a depth count (see
/// [`MAX_DECODE_DEPTH`]); new variants go at the end, so older plans keep their meaning.
#[derive(Serialize)]
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
    ArgOr(String, Box<BExpr>),
    Provider(String),
}

/// The derived decoder of [`BExpr`]; its nested expressions come back through
/// `BExpr::deserialize`, which counts the levels.
#[derive(Deserialize)]
#[serde(remote = "BExpr")]
enum BExprDecode {
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
    ArgOr(String, Box<BExpr>),
    Provider(String),
}

impl<'de> Deserialize<'de> for BExpr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<BExpr, D::Error> {
        let level = DECODING.with(|c| {
            let (depth, deep) = c.get();
            if depth >= MAX_DECODE_DEPTH {
                c.set((depth, true));
                return None;
            }
            c.set((depth + 1, deep));
            Some(DecodeLevel)
        });
        let Some(_level) = level else {
            // postcard drops the message of a custom error; `decode` reports the flag.
            return Err(serde::de::Error::custom("expression nested too deep"));
        };
        // The allowed depth still takes some stack per level in a debug build: continue on a
        // new segment when a small thread stack runs low.
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || BExprDecode::deserialize(d))
    }
}

fn exprs_to(v: &[Expr]) -> Vec<BExpr> {
    v.iter().map(BExpr::from).collect()
}

fn exprs_from(v: Vec<BExpr>) -> Result<Vec<Expr>, String> {
    v.into_iter().map(Expr::try_from).collect()
}

fn map_to(m: &IndexMap<String, Expr>) -> Vec<(String, BExpr)> {
    m.iter().map(|(k, v)| (k.clone(), BExpr::from(v))).collect()
}

/// Pairs as a map, refusing a key that comes twice (`what` names the map in the error).
fn unique<V>(what: &str, pairs: Vec<(String, V)>) -> Result<IndexMap<String, V>, String> {
    let mut out = IndexMap::with_capacity(pairs.len());
    for (k, v) in pairs {
        if out.contains_key(&k) {
            return Err(format!("{what} '{k}' appears twice"));
        }
        out.insert(k, v);
    }
    Ok(out)
}

/// Pairs of expressions as a map; as [`unique`].
fn map_from(what: &str, v: Vec<(String, BExpr)>) -> Result<IndexMap<String, Expr>, String> {
    let pairs = v
        .into_iter()
        .map(|(k, e)| Ok((k, Expr::try_from(e)?)))
        .collect::<Result<Vec<_>, String>>()?;
    unique(what, pairs)
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
            Expr::ArgOr { name, default } => {
                BExpr::ArgOr(name.clone(), Box::new(BExpr::from(&**default)))
            }
            Expr::Provider(n) => BExpr::Provider(n.clone()),
        }
    }
}

impl TryFrom<BExpr> for Expr {
    type Error = String;

    fn try_from(e: BExpr) -> Result<Expr, String> {
        Ok(match e {
            BExpr::Null => Expr::Null,
            BExpr::Bool(b) => Expr::Bool(b),
            BExpr::Int(i) => Expr::Int(i),
            BExpr::Float(f) => Expr::Float(f),
            BExpr::Str(s) => Expr::Str(s),
            BExpr::List(items) => Expr::List(exprs_from(items)?),
            BExpr::Map(m) => Expr::Map(map_from("map key", m)?),
            BExpr::Ref(n) => Expr::Ref(n),
            BExpr::New(class, args) => Expr::New {
                class,
                args: exprs_from(args)?,
            },
            BExpr::Call(target, method, args) => Expr::Call {
                target: target.try_into()?,
                method,
                args: exprs_from(args)?,
            },
            BExpr::Set(target, property, value) => Expr::Set {
                target: target.try_into()?,
                property,
                value: Box::new(Expr::try_from(*value)?),
            },
            BExpr::Param(n) => Expr::Param(n),
            BExpr::Concat(parts) => Expr::Concat(exprs_from(parts)?),
            BExpr::Arg(n) => Expr::Arg(n),
            BExpr::Get(target, property) => Expr::Get {
                target: target.try_into()?,
                property,
            },
            BExpr::Callable(target, method) => Expr::Callable {
                target: target.try_into()?,
                method,
            },
            BExpr::Func(name, arg) => Expr::Func {
                name,
                arg: Box::new(Expr::try_from(*arg)?),
            },
            BExpr::ArgOr(name, default) => Expr::ArgOr {
                name,
                default: Box::new(Expr::try_from(*default)?),
            },
            BExpr::Provider(n) => Expr::Provider(n),
        })
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

impl TryFrom<BTarget> for CallTarget {
    type Error = String;

    fn try_from(t: BTarget) -> Result<CallTarget, String> {
        Ok(match t {
            BTarget::Class(c) => CallTarget::Class(c),
            BTarget::SelfObject => CallTarget::SelfObject,
            BTarget::Expr(e) => CallTarget::Expr(Box::new(Expr::try_from(*e)?)),
        })
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

fn kind_of(code: u8) -> Option<ServiceKind> {
    Some(match code {
        0 => ServiceKind::Service,
        1 => ServiceKind::Factory,
        2 => ServiceKind::Accessor,
        3 => ServiceKind::Locator,
        4 => ServiceKind::Imported,
        5 => ServiceKind::Slot,
        _ => return None,
    })
}

fn lifespan_code(l: Lifespan) -> u8 {
    match l {
        Lifespan::Singleton => 0,
        Lifespan::Scoped => 1,
        Lifespan::Transient => 2,
    }
}

fn lifespan_of(code: u8) -> Option<Lifespan> {
    Some(match code {
        0 => Lifespan::Singleton,
        1 => Lifespan::Scoped,
        2 => Lifespan::Transient,
        _ => return None,
    })
}

impl From<&ServicePlan> for BService {
    fn from(s: &ServicePlan) -> BService {
        BService {
            kind: kind_code(s.kind) | if s.requires_async { REQUIRES_ASYNC } else { 0 },
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

impl BService {
    /// The service named `name`. Errors name it.
    fn into_plan(self, name: &str) -> Result<ServicePlan, String> {
        let s = self;
        let at = |what: String| format!("service '{name}': {what}");
        Ok(ServicePlan {
            requires_async: s.kind & REQUIRES_ASYNC != 0,
            kind: kind_of(s.kind & !REQUIRES_ASYNC).ok_or_else(|| {
                at(format!(
                    "unknown kind {} (0 service, 1 factory, 2 accessor, 3 locator, 4 imported, 5 slot)",
                    s.kind
                ))
            })?,
            type_: s.type_,
            lifespan: lifespan_of(s.lifespan).ok_or_else(|| {
                at(format!(
                    "unknown lifespan {} (0 singleton, 1 scoped, 2 transient)",
                    s.lifespan
                ))
            })?,
            autowired: match s.autowired {
                BAutowired::All(b) => Autowired::All(b),
                BAutowired::Types(t) => Autowired::Types(t),
            },
            tags: map_from("tag", s.tags).map_err(at)?,
            create: Expr::try_from(s.create).map_err(at)?,
            setup: exprs_from(s.setup).map_err(at)?,
            implement: s.implement,
            parameters: s.parameters,
            references: map_from("reference", s.references).map_err(at)?,
            source: s
                .source
                .map(|(file, line, column)| SourceLocation { file, line, column }),
        })
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
            dynamic: p
                .dynamic
                .iter()
                .map(|(k, d)| {
                    let b = BDynamic {
                        type_: d.type_.clone(),
                        default: d.default.as_ref().map(BExpr::from),
                        required: d.required,
                        sensitive: d.sensitive,
                    };
                    (k.clone(), b)
                })
                .collect(),
        }
    }
}

impl TryFrom<BPlan> for Plan {
    type Error = String;

    fn try_from(p: BPlan) -> Result<Plan, String> {
        let services = p
            .services
            .into_iter()
            .map(|(k, s)| {
                let sp = s.into_plan(&k)?;
                Ok((k, sp))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let tags = p
            .tags
            .into_iter()
            .map(|(t, m)| {
                let m = map_from("service", m).map_err(|e| format!("tag '{t}': {e}"))?;
                Ok((t, m))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let dynamic = p
            .dynamic
            .into_iter()
            .map(|(k, d)| {
                let default = d.default.map(Expr::try_from).transpose()?;
                let decl = DynamicParam {
                    type_: d.type_,
                    default,
                    required: d.required,
                    sensitive: d.sensitive,
                };
                Ok((k, decl))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Plan {
            dynamic: unique("dynamic parameter", dynamic)?,
            format: p.format,
            version: p.version,
            compiler: p.compiler,
            inputs_hash: p.inputs_hash,
            dependencies: p
                .dependencies
                .into_iter()
                .map(|(path, hash)| Dependency { path, hash })
                .collect(),
            parameters: map_from("parameter", p.parameters)?,
            services: unique("service", services)?,
            aliases: unique("alias", p.aliases)?,
            types: unique("type", p.types)?,
            tags: unique("tag", tags)?,
            initialization: exprs_from(p.initialization)?,
        })
    }
}
