//! Type resolution: every definition's type from its declared `type:`, its creator class, the
//! return type of its factory method (from the catalog), or the service it refers to. The
//! types of generated services, which come from the interface they implement, are resolved in
//! [`interfaces`].

use super::autowiring::{AutowiringIndex, IndexBuilder};
use super::{ContainerBuilder, DefinitionKind};
use crate::catalog::TypeRef;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Callee, ExprKind, Statement};
use rustc_hash::FxHashMap;

mod interfaces;

/// Definitions from which [`ContainerBuilder::resolve_types_and_index`] builds the autowiring
/// index on a helper thread beside the resolution (a thread costs more than it saves on small
/// applications).
const INDEX_BESIDE_MIN: usize = 2048;

/// Types handed to the index's thread at a time.
const TYPES_BLOCK: usize = 256;

enum State {
    Todo,
    Busy,
    Done(Option<String>),
}

struct Resolver<'a> {
    b: &'a ContainerBuilder,
    /// Each definition's state, by its position among the definitions (no lookup or name
    /// copy per visit).
    state: Vec<State>,
    stack: Vec<&'a str>,
    diags: &'a mut Diagnostics,
    /// Factories: name → the class `create()` returns.
    results: FxHashMap<String, String>,
}

impl ContainerBuilder {
    /// Resolves the type of every definition; see the module docs.
    pub(super) fn resolve_types(&mut self, diags: &mut Diagnostics) {
        self.forget_types();
        let mut results = Vec::with_capacity(self.definitions.len());
        let factory_results = self.find_types(diags, |batch| results.extend(batch));
        self.keep_types(results, factory_results);
        self.check_declared_types(diags);
    }

    /// [`ContainerBuilder::resolve_types`], then the autowiring index of the resolved types
    /// ([`AutowiringIndex::build`]), with the same results and diagnostics in the same order.
    /// A large application's index is built on a helper thread beside the resolution, fed
    /// the types in blocks as they are found: the two took 1.5 and 1.75 ms one after the other
    /// at app-10000, with the other core idle. When a declared `type:` is refused (which
    /// changes a resolved type after the fact), the index is built again from the final types.
    pub(super) fn resolve_types_and_index(&mut self, diags: &mut Diagnostics) -> AutowiringIndex {
        let count = self.definitions.len();
        if count < INDEX_BESIDE_MIN || crate::parallel::parallelism() < 2 {
            self.resolve_types(diags);
            return AutowiringIndex::build(self, diags);
        }
        self.forget_types();
        let b: &ContainerBuilder = self;
        let (results, factory_results, beside) = std::thread::scope(|scope| {
            // Each block's types, with the catalog position of each known one.
            type Block = (Vec<Option<String>>, Vec<Option<usize>>);
            let (blocks, received) = std::sync::mpsc::channel::<Block>();
            let thread = std::thread::Builder::new().name("autowiring-index".into());
            let helper = crate::parallel::spawn_scoped(scope, thread, move || {
                let mut index = IndexBuilder::new(count);
                let mut found = Diagnostics::new();
                let mut types = Vec::with_capacity(count);
                let mut defs = b.definitions().enumerate();
                for (block, at) in received {
                    for (ty, at) in block.into_iter().zip(at) {
                        if let (Some((position, def)), Some(t)) = (defs.next(), ty.as_deref()) {
                            index.add(b, position, def, t, at, &mut found);
                        }
                        types.push(ty);
                    }
                }
                (index.finish(), found, types)
            });
            let Ok(helper) = helper else {
                let mut results = Vec::with_capacity(count);
                let factory_results = b.find_types(diags, |block| results.extend(block));
                return (results, factory_results, None);
            };
            let factory_results = b.find_types(diags, |block| {
                // Found here, where the thread would otherwise wait for the index: at gen
                // 100000 the index kept it waiting 10-14 ms of its 36-42 ms.
                let at = block
                    .iter()
                    .map(|t| t.as_deref().and_then(|t| b.catalog.position(t)))
                    .collect();
                // The helper ends early only by panicking, which the join passes on.
                let _ = blocks.send((block, at));
            });
            drop(blocks);
            let (index, found, types) =
                crate::timings::waiting("autowiring-index", || helper.join())
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (types, factory_results, Some((index, found)))
        });
        self.keep_types(results, factory_results);
        let refused = self.check_declared_types(diags);
        match beside {
            Some((index, found)) if !refused => {
                diags.extend(found.into_vec());
                index
            }
            _ => AutowiringIndex::build(self, diags),
        }
    }

    /// Clears the types of an earlier resolution (before a script or the REPL changed a
    /// creator): they must not name a service in this one's messages, so every type is found
    /// again.
    fn forget_types(&mut self) {
        for d in self.definitions.values_mut() {
            d.resolved_type = None;
        }
    }

    /// Finds every definition's type, in definition order, handing them to `found` in blocks
    /// of [`TYPES_BLOCK`]; returns the classes the factories' `create()` returns, by name.
    fn find_types(
        &self,
        diags: &mut Diagnostics,
        mut found: impl FnMut(Vec<Option<String>>),
    ) -> FxHashMap<String, String> {
        let count = self.definitions.len();
        let mut r = Resolver {
            b: self,
            state: (0..count).map(|_| State::Todo).collect(),
            stack: Vec::new(),
            diags,
            results: FxHashMap::default(),
        };
        let mut block = Vec::with_capacity(TYPES_BLOCK.min(count));
        for (i, n) in self.definitions.keys().enumerate() {
            // A definition by its position, unless an alias of the same name leads elsewhere.
            let t = if self.real_name(n) == n {
                r.type_at(i)
            } else {
                r.service_type(n)
            };
            block.push(t);
            if block.len() == TYPES_BLOCK {
                found(std::mem::replace(
                    &mut block,
                    Vec::with_capacity(TYPES_BLOCK),
                ));
            }
        }
        if !block.is_empty() {
            found(block);
        }
        r.results
    }

    /// Stores the types [`ContainerBuilder::find_types`] found (one per definition, in order)
    /// and the factories' result classes.
    fn keep_types(
        &mut self,
        types: Vec<Option<String>>,
        factory_results: FxHashMap<String, String>,
    ) {
        for ((n, d), t) in self.definitions.iter_mut().zip(types) {
            d.resolved_type = t;
            let result = factory_results.get(n).cloned();
            if result.is_some() || d.extras().result_type.is_some() {
                d.extras_mut().result_type = result;
            }
        }
    }

    /// `type:` against the creator (beyond Nette, which never compares them): when the
    /// creator's class is known, a declared type it is not a subtype of is an error, since
    /// autowiring and casts would trust a type the object does not have.
    ///
    /// A constructor makes exactly its class. A method's declared return class, a property's
    /// class or another service's type may stand for a subtype, so there `type:` may also
    /// narrow it (a parent or interface returned, the class declared). A creator whose type
    /// is unknown (`mixed`, `object`, no return type, a function) is not compared. One declared
    /// to give a built-in type that is never an object (`int`, `string`, `void`, `int[]`, …)
    /// cannot make a service whatever `type:` says.
    ///
    /// A service whose declared type is refused is resolved as the class its creator makes,
    /// so what follows (its setup, its autowiring, calls on it) is checked against the object
    /// it really is, not reported again against the type the error already names. Returns
    /// whether any declared type was refused (a resolved type changed).
    fn check_declared_types(&mut self, diags: &mut Diagnostics) -> bool {
        let mut refused: Vec<(usize, String)> = Vec::new();
        for (i, d) in self.definitions.values().enumerate() {
            if !matches!(d.kind, DefinitionKind::Service | DefinitionKind::Factory) {
                continue;
            }
            let Some(declared) = d.declared_type.as_deref().and_then(|t| self.catalog.get(t))
            else {
                continue; // an unknown type is reported by the resolution
            };
            let Some(creator) = d.creator.as_ref().filter(|c| !has_empty_callee(c)) else {
                continue;
            };
            let declared = &declared.name;
            let (made, exact) = match self.creator_made(creator, 0) {
                None => continue,
                Some(Made::Class(made, exact)) => (made, exact),
                Some(Made::NotObject { what, ty }) => {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidDefinition,
                            format!(
                                "Service '{}': creator {what} {ty}, which is not a class, so it cannot make a service of type {declared}.",
                                d.name
                            ),
                        )
                        .at(d.span)
                        .with_note(NOT_OBJECT_NOTE),
                    );
                    continue;
                }
            };
            let fits = self.catalog.is_subtype(&made, declared)
                || (!exact && self.catalog.is_subtype(declared, &made));
            if fits {
                continue;
            }
            let note = if exact {
                format!("'type' must be {made} or one of its parents or interfaces; or leave 'type' out.")
            } else {
                format!("'type' must be related to {made}: one of its parents or interfaces, or a class that extends it; or leave 'type' out.")
            };
            diags.push(
                Diagnostic::error(
                    Code::InvalidDefinition,
                    format!(
                        "Service '{}': creator returns {made}, which is not {declared}.",
                        d.name
                    ),
                )
                .at(d.span)
                .with_note(note),
            );
            if exact {
                refused.push((i, made));
            }
        }
        let any = !refused.is_empty();
        for (i, made) in refused {
            if let Some((_, d)) = self.definitions.get_index_mut(i) {
                d.resolved_type = Some(made);
            }
        }
        any
    }

    /// What a creator is known to give, reporting nothing; `None` when it is not known.
    pub(super) fn creator_made(&self, st: &Statement, depth: usize) -> Option<Made> {
        if depth > 64 || super::members::is_first_class_callable(st) {
            return None;
        }
        let known = |c: &str| self.catalog.get(c).map(|i| i.name.to_string());
        let service = |target: &str| -> Option<String> {
            if target.contains('\\') {
                return known(target); // by type: the autowired service is a subtype
            }
            self.get_definition(target)?.resolved_type.clone()
        };
        // A declared type: its class, or a built-in type that is never an object.
        let of = |ty: &TypeRef, what: String| -> Option<Made> {
            match ty.class() {
                Some(c) => Some(Made::Class(known(c)?, false)),
                None if never_object(ty) => Some(Made::NotObject {
                    what,
                    ty: ty.text.to_string(),
                }),
                None => None,
            }
        };
        let returns = |class: &str, method: &str| -> Option<Made> {
            let m = self.catalog.method(class, method)?;
            let class = self.catalog.canonical(class);
            of(m.returns.as_ref()?, format!("{class}::{method}() returns"))
        };
        match &st.callee {
            Callee::Name(n) => {
                if let Some(svc) = n.strip_prefix('@') {
                    let Some((target, member)) = svc.split_once("::") else {
                        return Some(Made::Class(service(svc)?, false));
                    };
                    let class = service(target)?;
                    return match member.strip_prefix('$') {
                        Some(prop) => {
                            let p = self.catalog.property(&class, prop)?;
                            let class = self.catalog.canonical(&class);
                            of(&p.ty, format!("property {class}::${prop} is"))
                        }
                        None => returns(&class, member),
                    };
                }
                if let Some((class, method)) = super::complete::split_member(n) {
                    return returns(class, method);
                }
                Some(Made::Class(known(n)?, true))
            }
            Callee::Member(target, method) => {
                let class = match &target.kind {
                    ExprKind::Statement(inner) => match self.creator_made(inner, depth + 1)? {
                        Made::Class(c, _) => c,
                        Made::NotObject { .. } => return None,
                    },
                    ExprKind::Str(s) => service(s.strip_prefix('@')?)?,
                    _ => return None,
                };
                returns(&class, method)
            }
        }
    }
}

/// What a creator gives, as far as the catalog tells ([`ContainerBuilder::creator_made`]).
pub(super) enum Made {
    /// A class: `exact` for a constructor; a method's or property's class may stand for a
    /// subtype.
    Class(String, bool),
    /// A built-in type that is never an object: `what` names the method or property with a
    /// verb (`App\Math::double() returns`, `property App\Db::$dsn is`), `ty` is its declared
    /// type as written.
    NotObject { what: String, ty: String },
}

/// The note for a creator of a type that is never an object.
pub(super) const NOT_OBJECT_NOTE: &str = "A service is an object: create it with a constructor (`App\\Foo(...)`), or with a method or property declared to give a class.";

/// Built-in types that are never an object (unlike `mixed`, `object`, `callable`, `iterable`,
/// `self` and `static`).
const NOT_OBJECT: &[&str] = &[
    "int", "float", "string", "bool", "array", "void", "null", "false", "true", "never",
];

/// Can no value of this declared type be an object (`int`, `?string`, `int|string`, `void`,
/// `null`, `int[]`, …)? Then nothing declared to return it can make a service.
pub(super) fn never_object(t: &TypeRef) -> bool {
    if t.list_of.is_some() {
        return true;
    }
    let scalar = |m: &crate::catalog::Name| NOT_OBJECT.iter().any(|b| b.eq_ignore_ascii_case(m));
    if t.members.is_empty() {
        return t.nullable;
    }
    t.members.iter().all(scalar)
}

/// Why a method's declared return type (or its absence) names no class, for messages:
/// `has no class return type` (none declared), `returns int, which is not a class`, `returns
/// mixed, which names no single class`.
pub(super) fn no_class_return(t: Option<&TypeRef>) -> String {
    match t {
        None => "has no class return type".to_string(),
        Some(t) if never_object(t) => format!("returns {}, which is not a class", t.text),
        Some(t) => format!("returns {}, which names no single class", t.text),
    }
}

impl Resolver<'_> {
    fn service_type(&mut self, name: &str) -> Option<String> {
        let b = self.b;
        // An unknown name has no type (and nothing to report here).
        let i = b.definitions.get_index_of(b.real_name(name))?;
        self.type_at(i)
    }

    /// [`Resolver::service_type`] of the definition at position `i`.
    fn type_at(&mut self, i: usize) -> Option<String> {
        let b = self.b;
        let (name, _) = b.definitions.get_index(i)?;
        let name = name.as_str();
        match &self.state[i] {
            State::Done(t) => return t.clone(),
            State::Busy => {
                let pos = self.stack.iter().position(|n| *n == name).unwrap_or(0);
                let cycle = &self.stack[pos..];
                // The whole path, as constructor cycles report it (safety::check_cycles).
                let path = format!("{} -> {name}", cycle.join(" -> "));
                let span = b.definitions.get_index(i).and_then(|(_, d)| d.span);
                self.diags.push(
                    Diagnostic::error(
                        Code::CircularReference,
                        format!(
                            "Circular reference detected for services: {}.",
                            cycle.join(", ")
                        ),
                    )
                    .at(span)
                    .with_note(format!("path: {path}"))
                    .with_note("The types of these services depend on each other (through their creators); declare a 'type' on one of them."),
                );
                return None;
            }
            State::Todo => {}
        }
        self.state[i] = State::Busy;
        self.stack.push(name);
        let mark = self.diags.len();
        let t = self.compute(i);
        self.note_script_changes(i, mark);
        self.stack.pop();
        self.state[i] = State::Done(t.clone());
        t
    }

    /// The errors reported while resolving `name` (since `mark`) that are shown at its
    /// definition's own place may come from an extension script that changed it (a value set
    /// without a place of its own): they name the scripts, as completion's errors do. Those
    /// shown where a script set the creator (`setFactory()`, [`DefinitionExtras::creator_at`])
    /// get the definition as a second label when it is written elsewhere.
    ///
    /// [`DefinitionExtras::creator_at`]: super::DefinitionExtras::creator_at
    fn note_script_changes(&mut self, i: usize, mark: usize) {
        // Nothing reported: the definition is not looked at (gen 100000: a lookup out of
        // every cache per definition).
        if self.diags.len() == mark {
            return;
        }
        let Some((name, def)) = self.b.definitions.get_index(i) else {
            return;
        };
        let Some(defined) = def.span else {
            return;
        };
        let creator_at = def.extras().creator_at.filter(|at| at.file != defined.file);
        let note = def.changed_by_scripts_note();
        for d in self.diags.since_mut(mark) {
            let at = d.primary_span();
            if at == Some(defined) {
                if let Some(note) = note.as_ref().filter(|n| !d.notes.contains(n)) {
                    d.notes.push(note.clone());
                }
            } else if at.is_some() && at == creator_at {
                d.labels.push(crate::diagnostics::Label {
                    span: defined,
                    message: format!("service '{name}' is defined here"),
                    primary: false,
                });
            }
        }
    }

    fn compute(&mut self, i: usize) -> Option<String> {
        // The builder outlives the resolver: the definition is borrowed, not copied. Taken by
        // its position, which the caller has: looking it up by name again cost a lookup out of
        // every cache per definition at gen 100000.
        let b = self.b;
        let (name, def) = b.definitions.get_index(i)?;
        let name = name.as_str();
        let span = def.span;
        // Written out only for a message.
        let prefix = super::complete::Prefix::Of(def);
        if matches!(
            def.kind,
            DefinitionKind::Factory | DefinitionKind::Accessor | DefinitionKind::Locator
        ) {
            return self.generated(name);
        }
        if let Some(t) = &def.declared_type {
            return match self.b.catalog.get(t) {
                Some(c) => Some(c.name.to_string()),
                None => {
                    let names = self.b.catalog.classes().map(|c| c.name.as_str());
                    let note = if crate::catalog::is_builtin(t) {
                        format!("'{t}' is a built-in type, not a class: a service is an object, so 'type' names a class or interface.")
                    } else {
                        match crate::diagnostics::suggest(t, names) {
                            Some(s) => format!("did you mean '{s}'?"),
                            None => self.b.catalog.class_not_found_note().to_string(),
                        }
                    };
                    self.diags.push(
                        Diagnostic::error(
                            Code::ClassNotFound,
                            format!("{prefix}: Class or interface '{t}' not found."),
                        )
                        .at(span)
                        .with_focus(t.as_str())
                        .with_note(note),
                    );
                    None
                }
            };
        }
        if matches!(def.kind, DefinitionKind::Imported | DefinitionKind::Slot) {
            let what = if def.kind == DefinitionKind::Slot {
                "a scope slot"
            } else {
                "an imported service"
            };
            self.diags.push(
                Diagnostic::error(
                    Code::InvalidDefinition,
                    format!("{prefix}: {what} needs a 'type'."),
                )
                .at(span),
            );
            return None;
        }
        let Some(creator) = def.creator.as_ref().filter(|c| !has_empty_callee(c)) else {
            // A name that failed to expand (`%nope%()`) was reported where it was written;
            // "missing" would only repeat it.
            if def.creator.is_some() && self.diags.has_error_within(span) {
                return None;
            }
            let mut d = Diagnostic::error(
                Code::InvalidDefinition,
                format!("{prefix}: Factory and type are missing in definition of service."),
            )
            .at(span);
            if let Some(note) = self.b.stopped_note(def) {
                d = d.with_note(note);
            }
            self.diags.push(d);
            return None;
        };
        // An extension's `setFactory()` has a place of its own in the script.
        let reported = self.diags.len();
        let ty = self.statement_type(creator, def.extras().creator_at.or(span), &prefix);
        super::focus_on_creator(def, self.diags, reported);
        ty
    }

    fn invalid(&mut self, span: Option<crate::source::Span>, msg: String) {
        self.diags
            .push(Diagnostic::error(Code::InvalidDefinition, msg).at(span));
    }

    /// The type a statement produces, reporting what makes it unknown.
    fn statement_type(
        &mut self,
        st: &Statement,
        span: Option<crate::source::Span>,
        prefix: &dyn std::fmt::Display,
    ) -> Option<String> {
        if super::members::is_first_class_callable(st) {
            self.invalid(
                span,
                format!("{prefix}: {}", super::members::callable_creator_message(st)),
            );
            return None;
        }
        match &st.callee {
            Callee::Name(n) => {
                if let Some(svc) = n.strip_prefix('@') {
                    if let Some((target, method)) = svc.split_once("::") {
                        let t = self.reference_type(target, span, prefix)?;
                        if let Some(prop) = method.strip_prefix('$') {
                            return self.property_type(&t, prop, span, prefix);
                        }
                        return self.method_return(&t, method, span, prefix);
                    }
                    return self.reference_type(svc, span, prefix);
                }
                if let Some((class, method)) = super::complete::split_member(n) {
                    if class.is_empty() {
                        self.diags.push(
                            unknown_type_error(span, prefix)
                                .with_note(crate::config::predefined::GLOBAL_FUNCTION_NOTE),
                        );
                        return None;
                    }
                    if !self.b.catalog.exists(class) {
                        self.class_not_found(class, span, prefix);
                        return None;
                    }
                    return self.method_return(class, method, span, prefix);
                }
                match self.b.catalog.get(n) {
                    Some(c) => Some(c.name.to_string()),
                    None => {
                        self.class_not_found(n, span, prefix);
                        None
                    }
                }
            }
            Callee::Member(target, method) => {
                let t = match &target.kind {
                    ExprKind::Statement(inner) => self.statement_type(inner, span, prefix)?,
                    ExprKind::Str(s) if s.starts_with('@') => {
                        self.reference_type(&s[1..], span, prefix)?
                    }
                    ExprKind::Str(s) => s.clone(),
                    _ => return self.unknown_type(span, prefix),
                };
                self.method_return(&t, method, span, prefix)
            }
        }
    }

    fn reference_type(
        &mut self,
        target: &str,
        span: Option<crate::source::Span>,
        prefix: &dyn std::fmt::Display,
    ) -> Option<String> {
        if target.contains('\\') {
            return Some(crate::catalog::normalize_name(target));
        }
        if !self.b.has_definition(target) {
            let d = Diagnostic::error(
                Code::MissingService,
                format!("{prefix}: Reference to missing service '{target}'."),
            )
            .at(span);
            self.diags.push(match self.b.removed.get(target) {
                Some(removal) => removal.explain(d, target, removal.type_.as_deref()),
                None => match crate::config::predefined::service_note(target)
                    .or_else(|| crate::config::symfony::service_note(target))
                {
                    Some(note) => d.with_note(note),
                    None => d,
                },
            });
            return None;
        }
        self.service_type(target)
    }

    /// The class a property read (`@svc::$prop` as a creator) gives, from the catalog.
    fn property_type(
        &mut self,
        class: &str,
        prop: &str,
        span: Option<crate::source::Span>,
        prefix: &dyn std::fmt::Display,
    ) -> Option<String> {
        let Some(p) = self.b.catalog.property(class, prop) else {
            self.diags.push(
                Diagnostic::error(
                    Code::PropertyNotFound,
                    format!("{prefix}: Property {class}::${prop} is not declared in the catalog."),
                )
                .at(span),
            );
            return None;
        };
        match p.ty.class() {
            Some(c) if self.b.catalog.exists(c) => Some(self.b.catalog.canonical(c).to_string()),
            Some(c) => {
                let c = c.to_string();
                self.class_not_found(&c, span, prefix);
                None
            }
            None => {
                let class = self.b.catalog.canonical(class).to_string();
                let ty = p.ty.text.clone();
                let d = if never_object(&p.ty) {
                    Diagnostic::error(
                        Code::InvalidDefinition,
                        format!("{prefix}: Property {class}::${prop} is {ty}, which is not a class, so it cannot be a service."),
                    )
                    .with_note(NOT_OBJECT_NOTE)
                } else {
                    Diagnostic::error(
                        Code::InvalidDefinition,
                        format!("{prefix}: Unknown service type: property {class}::${prop} is {ty}, which names no single class."),
                    )
                    .with_note(format!("Give the service a `type:`, or declare the class of {class} › properties › {prop} in the catalog."))
                };
                self.diags.push(d.at(span));
                None
            }
        }
    }

    fn method_return(
        &mut self,
        class: &str,
        method: &str,
        span: Option<crate::source::Span>,
        prefix: &dyn std::fmt::Display,
    ) -> Option<String> {
        match self.b.catalog.method(class, method) {
            None => {
                self.diags.push(
                    Diagnostic::error(
                        Code::MethodNotFound,
                        format!("{prefix}: Method {class}::{method}() is not callable."),
                    )
                    .at(span)
                    .with_note(match class.strip_prefix('@') {
                        // `['@App\Pool', 'connect']`: a quoted `@` name is text (Nette 3),
                        // so the callee is a class named `@App\Pool`.
                        Some(target) if !target.is_empty() => {
                            crate::config::symfony::quoted_reference_note(
                                target,
                                Some(&format!(
                                    "`[@{target}, {method}]` or `@{target}::{method}()`"
                                )),
                            )
                        }
                        _ => format!("The catalog lists no method '{method}' for {class}."),
                    })
                    // (`App\ClockFactory::buidl()`: a new user's trial got no suggestion
                    // here, where an instance method's typo gets one.)
                    .with_suggestion(
                        method,
                        self.b.catalog.member_names(class, |c| c.methods.keys()),
                    ),
                );
                None
            }
            Some(m) => match m.returns.as_ref().and_then(|r| r.class()) {
                Some(c) if self.b.catalog.exists(c) => {
                    Some(self.b.catalog.canonical(c).to_string())
                }
                Some(c) => {
                    self.class_not_found(c, span, prefix);
                    None
                }
                None => {
                    let class = self.b.catalog.canonical(class).to_string();
                    let d = match &m.returns {
                        Some(r) if never_object(r) => Diagnostic::error(
                            Code::InvalidDefinition,
                            format!(
                                "{prefix}: Method {class}::{method}() returns {}, which is not a class, so it cannot create a service.",
                                r.text
                            ),
                        )
                        .with_note(NOT_OBJECT_NOTE),
                        Some(r) => Diagnostic::error(
                            Code::InvalidDefinition,
                            format!(
                                "{prefix}: Unknown service type, specify it or declare return type of factory method {class}::{method}()."
                            ),
                        )
                        .with_note(format!("{class}::{method}() returns {}, which names no single class: give the service a `type:`.", r.text)),
                        None => Diagnostic::error(
                            Code::InvalidDefinition,
                            format!(
                                "{prefix}: Unknown service type, specify it or declare return type of factory method {class}::{method}()."
                            ),
                        )
                        .with_note(format!("Add `returns:` to {class} › methods › {method} in the catalog, or give the service a `type:`.")),
                    };
                    self.diags.push(d.at(span));
                    None
                }
            },
        }
    }

    fn unknown_type(
        &mut self,
        span: Option<crate::source::Span>,
        prefix: &dyn std::fmt::Display,
    ) -> Option<String> {
        self.diags.push(unknown_type_error(span, prefix));
        None
    }

    fn class_not_found(
        &mut self,
        class: &str,
        span: Option<crate::source::Span>,
        prefix: &dyn std::fmt::Display,
    ) {
        let mut d = Diagnostic::error(
            Code::ClassNotFound,
            format!("{prefix}: Class '{class}' not found."),
        )
        .at(span)
        .with_focus(class);
        let names: Vec<&str> = self.b.catalog.classes().map(|c| c.name.as_str()).collect();
        // A class written without its namespace (`MemoryLogger` for `Shop\MemoryLogger`) is
        // too far from its full name for a spelling suggestion (a new user's trial).
        let short = |n: &str| {
            !class.contains('\\')
                && n.rsplit('\\')
                    .next()
                    .is_some_and(|last| last.eq_ignore_ascii_case(class))
        };
        let namespaced: Vec<&str> = names.iter().copied().filter(|n| short(n)).take(4).collect();
        let no_class = names.is_empty() && !self.b.catalog.with_files();
        if let Some(s) = crate::diagnostics::suggest(class, names) {
            d = d.with_note(format!("did you mean '{s}'?"));
        } else if !namespaced.is_empty() {
            d = d.with_note(format!(
                "did you mean '{}'? a class is written with its namespace",
                namespaced.join("' or '")
            ));
        } else if no_class {
            // No class at all: every service fails the same way (a new user's trial).
            d = d.with_note(
                "the catalog is empty: there is no `types:` section and no `--catalog` file, so \
                 every class is unknown; pass the catalog your registry writes with `--catalog \
                 FILE`, or declare the classes under `types:` (docs/catalog.md)",
            );
        } else {
            d = d.with_note(self.b.catalog.class_not_found_note());
        }
        self.diags.push(d);
    }
}

/// A creator made only to carry `arguments:` (no class given): the class comes from the type.
pub(super) fn has_empty_callee(st: &Statement) -> bool {
    matches!(&st.callee, Callee::Name(n) if n.is_empty())
}

/// Nette's error for a definition whose type cannot be known from its creator.
fn unknown_type_error(
    span: Option<crate::source::Span>,
    prefix: &dyn std::fmt::Display,
) -> Diagnostic {
    Diagnostic::error(
        Code::InvalidDefinition,
        format!(
            "{prefix}: Unknown service type, specify it or declare return type of factory method."
        ),
    )
    .at(span)
}

#[cfg(test)]
mod tests {
    use super::never_object;
    use crate::catalog::TypeRef;

    #[test]
    fn only_types_without_objects_can_never_make_a_service() {
        let never = |t: &str| never_object(&TypeRef::parse(t));
        for t in [
            "int",
            "?string",
            "int|string",
            "bool",
            "float",
            "array",
            "void",
            "null",
            "never",
            "int[]",
            "App\\Db[]",
        ] {
            assert!(never(t), "{t} is never an object");
        }
        for t in [
            "mixed",
            "object",
            "callable",
            "iterable",
            "self",
            "static",
            "App\\Db",
            "?App\\Db",
            "int|App\\Db",
        ] {
            assert!(!never(t), "{t} may be an object");
        }
    }
}
