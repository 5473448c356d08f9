//! A binary plan read straight into the container's own tables: the service names, the
//! autowiring index and the compiled program, without assembling the plan model
//! ([`crate::plan::ServicePlan`] per service), checking it and keeping it.
//!
//! This reader takes the plans a compiler writes for ordinary applications: services (not
//! factories, accessors, locators, imported services or slots) created by a `$new` of a
//! registered class with a synchronous constructor, whose arguments are plain scalars or
//! references, with setup calls and property writes on `@self` of the same kind; aliases,
//! the `types` index, plain tags and plain static parameters, dynamic parameters (`$param`
//! arguments, resolved and folded as the model path's compiler does); no `initialization`, no
//! async constructor anywhere in the registry. It checks everything the load
//! check ([`super::check`]) would for such a plan, with the same reader of the bytes
//! ([`crate::encoding::decode::Reader`]), so it accepts exactly the plans the model path
//! accepts and builds the same program. Whenever it meets anything else — another shape, a
//! problem, a missing registration, a malformed payload — it gives up (`None`) and the
//! loader takes the model path, which reports every problem with its usual message. Nothing
//! is lost but the time of the attempt, and only for plans that are refused or unusual.
//!
//! The model stays available: the container keeps the payload and decodes the model on first
//! use (see [`super::Model`]).

use std::any::TypeId;
use std::collections::HashMap;

use indexmap::IndexMap;

use super::literals::Literal;
use super::program::{
    ArgRange, CtorRef, MemberKind, NewId, NewOp, Node, Program, Resolved, Service, Setup,
};
use crate::encoding::decode::{Reader, MIN_PAIR, MIN_SERVICE};
use crate::plan::{
    Expr, Lifespan, Name, NameHasher, NameMap, NameSet, ServiceKind, TypeServices, FORMAT,
    MAX_EXPR_DEPTH,
};
use crate::registry::{ClassEntry, Registry};
use crate::value::Value;

/// What a binary payload read straight into tables gives the container.
pub(super) struct Streamed {
    pub(super) names: NameSet,
    pub(super) aliases: NameMap<Name>,
    pub(super) types: NameMap<TypeServices>,
    pub(super) parameters: IndexMap<String, Expr>,
    pub(super) tags: IndexMap<String, Vec<(String, Value)>>,
    /// The declared dynamic parameters, resolved (to put over the given values).
    pub(super) resolved: HashMap<String, Value>,
    pub(super) program: Program,
    /// Per service: its slot index in every scope, for scoped services.
    pub(super) scoped_slot: Vec<Option<u32>>,
    pub(super) scoped_count: usize,
}

/// Expression codes of the binary form (see `encoding::mirror`).
const NULL: u8 = 0;
const BOOL: u8 = 1;
const INT: u8 = 2;
const FLOAT: u8 = 3;
const STR: u8 = 4;
const REF: u8 = 7;
const NEW: u8 = 8;
const CALL: u8 = 9;
const SET: u8 = 10;
const PARAM: u8 = 11;
/// The call-target code of `@self`.
const SELF_TARGET: u8 = 1;

/// Reads `payload` (plan version `version`, header already checked) into the container's
/// tables for `registry`, with the dynamic parameters `given` to the builder (and the
/// environment when `read_env`), or `None` when the plan is not of the shape this reader
/// takes or has any problem (see the module docs): the caller then loads it through the model.
pub(super) fn read(
    payload: &[u8],
    version: u64,
    registry: &Registry,
    given: &HashMap<String, Value>,
    read_env: bool,
) -> Option<Streamed> {
    if registry.t.async_classes || !registry.t.conflicts.is_empty() {
        // The async checks walk the model; a registry conflict is reported there.
        return None;
    }
    let mut s = Stream {
        r: Reader::new(payload),
        registry,
        names: NameSet::default(),
        services: Vec::new(),
        news: Vec::new(),
        args: Vec::new(),
        consts: Vec::new(),
        null: None,
        made: Vec::new(),
        not_autowired: Vec::new(),
        signed: Vec::new(),
        fixups: Vec::new(),
        params: Vec::new(),
        scoped_slot: Vec::new(),
        scoped_count: 0,
    };
    let out = s.plan(version, given, read_env);
    if s.r.too_deep || s.r.at != payload.len() {
        return None;
    }
    out
}

/// The reader's state: the tables being filled.
struct Stream<'b, 'r> {
    r: Reader<'b>,
    registry: &'r Registry,
    names: NameSet,
    services: Vec<Service>,
    news: Vec<NewOp>,
    args: Vec<Node>,
    consts: Vec<Value>,
    /// The one constant `null` every `null` argument shares.
    null: Option<u32>,
    /// Per service: the Rust type its `$new` makes (service `i`'s `$new` is `news[i]`).
    made: Vec<TypeId>,
    /// The services written `autowired: false`, in increasing order: the `types` index must
    /// not list them.
    not_autowired: Vec<u32>,
    /// The services whose `$new` or a setup call has declared parameters (a registration
    /// with a signature), in increasing order: their reference arguments are checked once
    /// every reference is resolved ([`Stream::refuses_a_reference`]). Empty for a registry
    /// without signatures, so such a plan pays nothing for the check.
    signed: Vec<u32>,
    /// References to services not read yet: (position in `args`, name), resolved once every
    /// service and alias is known.
    fixups: Vec<(u32, Name)>,
    /// `$param` arguments: (position in `args`, parameter), compiled once the `dynamic`
    /// section (at the end of the plan) is resolved.
    params: Vec<(u32, String)>,
    scoped_slot: Vec<Option<u32>>,
    scoped_count: usize,
}

/// The next byte. (These readers answer through `Option`, returned in registers: the
/// reader's `Result<_, String>` goes through memory, and reading a small value back from
/// there stalled the CPU on every service. Any failure gives up anyway.)
#[inline(always)]
fn byte(r: &mut Reader<'_>) -> Option<u8> {
    let b = r.peek()?;
    r.at += 1;
    Some(b)
}

/// A boolean or an option tag: 0 or 1.
#[inline(always)]
fn flag(r: &mut Reader<'_>) -> Option<bool> {
    match byte(r)? {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    }
}

/// A varint (one byte in place, longer ones through the reader).
#[inline(always)]
fn varint(r: &mut Reader<'_>) -> Option<u64> {
    match r.peek()? {
        b if b < 0x80 => {
            r.at += 1;
            Some(u64::from(b))
        }
        _ => r.varint("a varint").ok(),
    }
}

/// Whether a decoded expression is one the load check finds nothing wrong with outside a
/// service: plain data no deeper than [`MAX_EXPR_DEPTH`].
fn plain_and_shallow(e: &Expr) -> bool {
    e.is_plain() && (e.is_leaf() || e.json_depth() <= MAX_EXPR_DEPTH)
}

impl Stream<'_, '_> {
    fn plan(
        &mut self,
        version: u64,
        given: &HashMap<String, Value>,
        read_env: bool,
    ) -> Option<Streamed> {
        let r = &mut self.r;
        if r.str("format").ok()? != FORMAT {
            return None;
        }
        // One that differs from the header's is reported by the full decoder.
        let own = u64::from(r.u32("version").ok()?);
        if own != version || !crate::encoding::readable(own) {
            return None;
        }
        r.str("compiler").ok()?;
        r.str("inputs_hash").ok()?;
        let (n, _) = r.len("dependencies", MIN_PAIR).ok()?;
        for _ in 0..n {
            r.str("a dependency").ok()?;
            r.str("a dependency").ok()?;
        }
        let parameters: IndexMap<String, Expr> = r.map("parameter", |r, _| r.expr(0)).ok()?;
        if !parameters.values().all(plain_and_shallow) {
            return None;
        }
        let (n, cap) = r.len("services", MIN_SERVICE).ok()?;
        self.names = NameSet::with_capacity_and_hasher(cap, NameHasher::default());
        self.services.reserve(cap);
        self.news.reserve(cap);
        self.made.reserve(cap);
        self.scoped_slot.reserve(cap);
        // A typical service has a few arguments (the constants are reserved at the first one:
        // a plan of references has none).
        self.args.reserve(cap * 4);
        for _ in 0..n {
            self.service()?;
        }
        let r = &mut self.r;
        let aliases: NameMap<Name> = r.map("alias", |r, _| r.name("an alias target")).ok()?;
        if !aliases.values().all(|t| self.names.contains(t.as_str())) {
            return None;
        }
        for (at, name) in std::mem::take(&mut self.fixups) {
            let i = resolve(&self.names, &aliases, &name)?;
            self.args[at as usize] = Node::Ref(i);
        }
        // A service passed to a registered parameter that does not take its object is a load
        // problem the model path reports ([`super::literals::refuses_object`]).
        if !self.signed.is_empty() && self.refuses_a_reference() {
            return None;
        }
        // A singleton holding a scoped service is a problem the model path reports.
        if self.scoped_count > 0 && self.holds_captive() {
            return None;
        }
        let types = self.r.types().ok()?;
        self.check_types(&types)?;
        let tags = self.tags()?;
        // No `initialization`.
        if !self.r.empty() {
            return None;
        }
        let resolved = self.dynamic(version, given, read_env, &parameters)?;
        if version >= 4 {
            self.signatures()?;
        }
        let program = Program {
            services: std::mem::take(&mut self.services),
            news: std::mem::take(&mut self.news),
            args: std::mem::take(&mut self.args),
            consts: std::mem::take(&mut self.consts),
            any_dispose_hook: self.registry.t.dispose_hooks,
        };
        Some(Streamed {
            names: std::mem::take(&mut self.names),
            aliases,
            types,
            parameters,
            tags,
            resolved,
            program,
            scoped_slot: std::mem::take(&mut self.scoped_slot),
            scoped_count: self.scoped_count,
        })
    }

    /// One service, straight into the tables (its name first).
    fn service(&mut self) -> Option<()> {
        let index = self.services.len();
        let r = &mut self.r;
        let name = r.str("a service name").ok()?;
        // Named twice, or not named: the model path reports it.
        if name.is_empty() || !self.names.insert(Name::from(name)) {
            return None;
        }
        // Kind `service`, not requiring async.
        if byte(r)? != 0 {
            return None;
        }
        let type_ = r.str("a service type").ok()?;
        let lifespan = match byte(r)? {
            0 => Lifespan::Singleton,
            1 => Lifespan::Scoped,
            2 => Lifespan::Transient,
            _ => return None,
        };
        match varint(r)? {
            0 => {
                if !flag(r)? {
                    self.not_autowired.push(index as u32);
                }
            }
            1 => {
                r.strings("autowired types").ok()?;
            }
            _ => return None,
        }
        // A service's own tags are not checked at load (the plan's tag index is): read and
        // dropped, so the payload is checked as the model's decoder checks it.
        if !r.empty() {
            r.expr_map("tag", 0).ok()?;
        }
        if r.peek() != Some(NEW) {
            return None;
        }
        r.at += 1;
        let class = r.str("an expression").ok()?;
        let registry = self.registry;
        let (class_index, _, entry) = registry.t.classes.get_full(class)?;
        let ctor = CtorRef::borrow(entry.ctor.as_ref()?);
        let start = self.args.len() as u32;
        self.leaf_args(false)?;
        let end = self.args.len() as u32;
        // A count other than the declared constructor's is a load problem the model path
        // reports ([`super::check`]).
        if let Some(params) = entry.more().ctor_sig.as_ref() {
            if params.len() != (end - start) as usize {
                return None;
            }
            self.signed.push(index as u32);
            // So is a literal argument the declared type refuses ([`super::literals`]).
            if self.refuses_a_literal(params, ArgRange { start, end }) {
                return None;
            }
        }
        push_node(&mut self.news, || NewOp {
            class: class_index as u32,
            ctor: Some(ctor),
            has_async: false,
            args: ArgRange { start, end },
        });
        self.made.push(entry.type_id);
        // The declared type needs a caster from the class when it is a registered interface
        // (the autowired types are checked with the `types` index).
        if type_ != class {
            if let Some((iface, _)) = registry.t.interfaces.get(type_) {
                if !registry.t.casters.contains_key(&(entry.type_id, *iface)) {
                    return None;
                }
            }
        }
        let setup = if self.r.empty() {
            Box::default()
        } else {
            let (n, cap) = self.r.len("a list of expressions", 1).ok()?;
            let mut list = Vec::with_capacity(cap);
            for _ in 0..n {
                list.push(self.setup(entry)?);
            }
            list.into_boxed_slice()
        };
        let r = &mut self.r;
        if flag(r)? {
            r.str("implement").ok()?;
        }
        if !r.empty() {
            r.strings("parameters").ok()?;
        }
        // A locator's references are walked by the check: not taken here.
        if !r.empty() {
            return None;
        }
        if flag(r)? {
            r.str("source").ok()?;
            // The line and the column: `u32`s.
            u32::try_from(varint(r)?).ok()?;
            u32::try_from(varint(r)?).ok()?;
        }
        self.scoped_slot
            .push((lifespan == Lifespan::Scoped).then(|| {
                self.scoped_count += 1;
                (self.scoped_count - 1) as u32
            }));
        push_node(&mut self.services, || Service {
            kind: ServiceKind::Service,
            lifespan,
            requires_async: false,
            create: Node::New(NewId(index as u32)),
            setup,
        });
        Some(())
    }

    /// A setup statement on `@self` of an object made by `entry`'s class: a method call with
    /// plain or reference arguments, or a property write of such a value.
    fn setup(&mut self, entry: &ClassEntry) -> Option<Setup> {
        let r = &mut self.r;
        let kind = match varint(r)? {
            c if c == u64::from(CALL) => MemberKind::Method,
            c if c == u64::from(SET) => MemberKind::Property,
            _ => return None,
        };
        if varint(r)? != u64::from(SELF_TARGET) {
            return None;
        }
        let member = r.str("an expression").ok()?;
        let start = self.args.len() as u32;
        match kind {
            MemberKind::Method => self.leaf_args(true)?,
            MemberKind::Property => self.leaf(true)?,
        }
        let inputs = ArgRange {
            start,
            end: self.args.len() as u32,
        };
        // The member must be registered for the class, as the load check requires.
        let members = self.registry.type_entry(entry.type_id);
        let found = match kind {
            MemberKind::Method => {
                members.is_some_and(|t| {
                    t.methods.contains_key(member) || t.methods_mut.contains_key(member)
                }) || entry.more().statics.contains_key(member)
            }
            MemberKind::Property => members.is_some_and(|t| t.properties.contains_key(member)),
        };
        if !found {
            return None;
        }
        // A call whose count differs from the method's declared parameters is a load
        // problem the model path reports ([`super::check`]).
        // So is a literal argument the declared type refuses, as for a constructor.
        if kind == MemberKind::Method {
            if let Some(sig) = members.and_then(|t| t.method_sigs.get(member)) {
                if sig.params.len() != (inputs.end - inputs.start) as usize
                    || self.refuses_a_literal(&sig.params, inputs)
                {
                    return None;
                }
                // The service being read (pushed after its setup).
                let index = self.services.len() as u32;
                if self.signed.last() != Some(&index) {
                    self.signed.push(index);
                }
            }
        }
        let resolved = members.map(|t| Resolved {
            type_id: entry.type_id,
            mut_fn: match kind {
                MemberKind::Method => t.methods_mut.get(member).cloned(),
                MemberKind::Property => t.properties.get(member).cloned(),
            },
            shared_fn: match kind {
                MemberKind::Method => t.methods.get(member).cloned(),
                MemberKind::Property => None,
            },
        });
        Some(Setup::Member {
            kind,
            member: member.into(),
            inputs,
            resolved,
        })
    }

    /// A list of leaf arguments pushed onto the argument table (`in_setup`: `@self` allowed).
    fn leaf_args(&mut self, in_setup: bool) -> Option<()> {
        let n = varint(&mut self.r)?;
        for _ in 0..n {
            self.leaf(in_setup)?;
        }
        Some(())
    }

    /// One argument pushed onto the argument table: a scalar (a constant) or a reference
    /// (`None` for anything else). A reference to a service not read yet is resolved at the
    /// end (a fix-up at its position). (Each case pushes its own node: a node returned and then
    /// pushed went through a copy on the stack that the CPU stalled on.)
    #[inline(always)]
    fn leaf(&mut self, in_setup: bool) -> Option<()> {
        const W: &str = "an expression";
        let r = &mut self.r;
        let value = match byte(r)? {
            REF => {
                let name = r.str(W).ok()?;
                if name == "@self" {
                    if !in_setup {
                        return None;
                    }
                    self.args.push(Node::SelfObject);
                } else if let Some(i) = self.names.get_index_of(name) {
                    push_ref(&mut self.args, i);
                } else {
                    self.fixups.push((self.args.len() as u32, Name::from(name)));
                    push_ref(&mut self.args, usize::MAX);
                }
                return Some(());
            }
            INT => {
                let z = varint(r)?;
                Value::Int(((z >> 1) as i64) ^ -((z & 1) as i64))
            }
            NULL => {
                let i = match self.null {
                    Some(i) => i,
                    None => {
                        self.constant(Value::Null);
                        let i = (self.consts.len() - 1) as u32;
                        self.null = Some(i);
                        i
                    }
                };
                push_const(&mut self.args, i);
                return Some(());
            }
            PARAM => {
                let name = r.str(W).ok()?.to_owned();
                self.params.push((self.args.len() as u32, name));
                push_node(&mut self.args, || Node::SelfObject);
                return Some(());
            }
            BOOL => Value::Bool(flag(r)?),
            STR => Value::Str(r.str(W).ok()?.to_owned()),
            FLOAT => {
                let bytes = r.buf.get(r.at..r.at + 8)?;
                r.at += 8;
                let mut w = [0u8; 8];
                w.copy_from_slice(bytes);
                Value::Float(f64::from_le_bytes(w))
            }
            _ => return None,
        };
        self.constant(value);
        push_const(&mut self.args, (self.consts.len() - 1) as u32);
        Some(())
    }

    /// Adds a constant. The table is reserved at the first one, for about two per service (as
    /// the model path's compiler does): grown by doubling instead, a 10,000-service plan's
    /// constants were copied over a dozen times.
    #[inline(always)]
    fn constant(&mut self, v: Value) {
        if self.consts.capacity() == 0 {
            self.consts.reserve(self.services.capacity() * 2);
        }
        self.consts.push(v);
    }

    /// The catalog name of service `i`'s class (its `$new` is `news[i]`).
    fn class_name(&self, i: usize) -> &str {
        self.registry
            .t
            .classes
            .get_index(self.news[i].class as usize)
            .map_or("", |(name, _)| name.as_str())
    }

    /// The `dynamic` section (version 3): the declared parameters resolved as the model path
    /// resolves them, then every `$param` argument compiled as its compiler does — the value
    /// (resolved, else given) as a constant, or, for a parameter without one, the expression
    /// evaluated when the service is created. A problem of the section or of a value gives
    /// up (the model path names the services that read the parameter).
    fn dynamic(
        &mut self,
        version: u64,
        given: &HashMap<String, Value>,
        read_env: bool,
        parameters: &IndexMap<String, Expr>,
    ) -> Option<HashMap<String, Value>> {
        let declared = if version >= 3 {
            self.r.dynamic_section().ok()?
        } else {
            IndexMap::new()
        };
        if !crate::dynamic::section_problems(&declared).is_empty() {
            return None;
        }
        let (resolved, problems) =
            crate::dynamic::resolve_declared(&declared, given, read_env, |_| Vec::new());
        if !problems.is_empty() {
            return None;
        }
        // A value given for a static parameter is a problem the model path reports.
        if version >= 3
            && !given.is_empty()
            && !crate::dynamic::static_given(parameters, &declared, given).is_empty()
        {
            return None;
        }
        // Values of declared parameters (converted to their types) are checked below.
        let folded = self
            .params
            .iter()
            .any(|(_, name)| resolved.contains_key(name));
        for (at, name) in std::mem::take(&mut self.params) {
            let node = match resolved.get(&name).or_else(|| given.get(&name)) {
                Some(v) => {
                    self.constant(v.clone());
                    Node::Const((self.consts.len() - 1) as u32)
                }
                // A parameter the section does not declare, without a value: a load problem
                // the model path reports (`dynamic::undeclared_read`).
                None if !declared.is_empty()
                    && !declared.contains_key(&name)
                    && !crate::dynamic::available(&name, given, read_env) =>
                {
                    return None
                }
                None => Node::Tree(Box::new(Expr::Param(name))),
            };
            self.args[at as usize] = node;
        }
        // A dynamic parameter's value a declared parameter type refuses is a load problem the
        // model path reports, as a literal's is.
        if folded && !self.signed.is_empty() && self.refuses_a_folded_value() {
            return None;
        }
        Some(resolved)
    }

    /// The `signatures` section (version 4), checked as it is read: parameter names other
    /// than the registry's are a load problem the model path reports, and so is an entry
    /// named twice. A constructor's entry is found by the class's index in the registry (one
    /// lookup, a flag per class for the repeats); a method's, rarer, through the model path's
    /// own check. An entry for a class the registry lacks gives up too (the model path
    /// decides about it).
    fn signatures(&mut self) -> Option<()> {
        let registry = self.registry;
        let (n, _) = self.r.len("signatures", MIN_PAIR).ok()?;
        let mut seen = vec![false; registry.t.classes.len()];
        let mut methods = std::collections::HashSet::new();
        for _ in 0..n {
            let key = self.r.str("a signature").ok()?;
            let recorded = self.r.str("a signature").ok()?;
            if crate::plan::signature_key_parts(key).1.is_some() {
                if !methods.insert(key)
                    || super::check::signature_problem(registry, key, recorded).is_some()
                {
                    return None;
                }
                continue;
            }
            let (i, _, entry) = registry.t.classes.get_full(key)?;
            if std::mem::replace(&mut seen[i], true) {
                return None;
            }
            if let Some(params) = entry.more().ctor_sig.as_deref() {
                if super::check::names_differ(recorded, params) {
                    return None;
                }
            }
        }
        Some(())
    }

    /// The plan's tag index, with plain values of known services.
    fn tags(&mut self) -> Option<IndexMap<String, Vec<(String, Value)>>> {
        let raw: IndexMap<String, IndexMap<String, Expr>> =
            self.r.map("tag", |r, _| r.expr_map("service", 0)).ok()?;
        let mut out = IndexMap::with_capacity(raw.len());
        for (tag, entries) in raw {
            let mut list = Vec::with_capacity(entries.len());
            for (service, e) in entries {
                if !self.names.contains(service.as_str()) || !plain_and_shallow(&e) {
                    return None;
                }
                list.push((service, e.plain_value()?));
            }
            out.insert(tag, list);
        }
        Some(out)
    }
}

/// Pushes `node` onto `args`, written in place: a `push` built the 16-byte node on the
/// stack (it must outlive the call that may grow the vector) and copied it with one wide load
/// over two narrow stores, which the CPU stalled on for every argument (half the time of
/// reading the arguments).
/// The same holds for a service and a compiled `$new` (40 and 56 bytes).
#[inline(always)]
fn push_node<T>(table: &mut Vec<T>, node: impl FnOnce() -> T) {
    table.reserve(1);
    let len = table.len();
    table.spare_capacity_mut()[0].write(node());
    // SAFETY: the element at `len` was just written, within the capacity reserved above.
    unsafe { table.set_len(len + 1) };
}

/// Pushes a reference node (see [`push_node`]).
#[inline(always)]
fn push_ref(args: &mut Vec<Node>, service: usize) {
    push_node(args, || Node::Ref(service));
}

/// Pushes a constant node (see [`push_node`]).
#[inline(always)]
fn push_const(args: &mut Vec<Node>, index: u32) {
    push_node(args, || Node::Const(index));
}

/// The index of service `name`, aliases followed (as the program compiler resolves a
/// reference).
fn resolve(names: &NameSet, aliases: &NameMap<Name>, name: &str) -> Option<usize> {
    if let Some(i) = names.get_index_of(name) {
        return Some(i);
    }
    names.get_index_of(aliases.get(name)?.as_str())
}

#[path = "stream_checks.rs"]
mod checks;

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
