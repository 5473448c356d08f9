//! The scripted `ContainerBuilder` and definitions, with Nette's method names
//! (`../shared/reference/nette-di.md` §16): `addDefinition`, `addFactoryDefinition`,
//! `getByType`, `findByTag`, …; on definitions `setFactory`, `addSetup`, `addTag`, … Setters
//! return the definition again so calls chain. Builder errors (for example `missing-service`
//! from `getDefinition`) are raised as script errors reported at the calling line.

use super::values::{
    args_array, arguments, raise, to_dynamic, to_expr, OrderedMap, ScriptStatement,
};
use super::ScriptState;
use crate::builder::{Autowired, ContainerBuilder, Definition, DefinitionKind, Phase};
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Callee, Expr, ExprKind, Statement};
use rhai::{Array, Dynamic, Engine, EvalAltResult, NativeCallContext};
use std::cell::RefCell;
use std::rc::Rc;
use wireplan_runtime::plan::Lifespan;

/// Shared mutable builder, as handed to scripts.
pub type SharedBuilder = Rc<RefCell<ContainerBuilder>>;

type Res<T> = Result<T, Box<EvalAltResult>>;

/// A handle to the builder (`this.getContainerBuilder()`).
#[derive(Clone)]
pub struct BuilderHandle {
    pub(super) builder: SharedBuilder,
    pub(super) state: Rc<RefCell<ScriptState>>,
}

/// A handle to one definition (by name); setters return the handle so calls chain.
#[derive(Clone)]
pub struct DefinitionHandle {
    builder: SharedBuilder,
    name: String,
    /// The running script's state, to place what the script adds (setups) at its line.
    state: Option<Rc<RefCell<ScriptState>>>,
}

impl BuilderHandle {
    /// A handle over `builder` for use outside an extension (the REPL).
    pub fn new(builder: SharedBuilder) -> BuilderHandle {
        BuilderHandle {
            builder,
            state: Rc::new(RefCell::new(ScriptState::default())),
        }
    }

    /// The shared builder.
    pub fn shared(&self) -> &SharedBuilder {
        &self.builder
    }

    /// Tells the handle which script text is running (the REPL registers each input as a
    /// source), so definitions it adds and warnings it raises point at the right line.
    pub fn set_script(&self, file: crate::source::FileId, source: &crate::source::SourceFile) {
        let mut state = self.state.borrow_mut();
        state.file = Some(file);
        state.source = Some(Rc::new(source.clone()));
    }

    /// The warnings raised through this handle since the last call (for example
    /// `partial-graph` from `getByType` in phase A), placed at the calling line.
    pub fn take_warnings(&self) -> Vec<Diagnostic> {
        let mut state = self.state.borrow_mut();
        let warnings = std::mem::take(&mut state.warnings);
        warnings
            .into_iter()
            .map(|(pos, d)| {
                let span = state.span_at(pos);
                d.at(span)
            })
            .collect()
    }

    /// The lookups by tag or type made through this handle since the last call (the
    /// compiler checks an extension's against what later extensions add; the REPL drops them
    /// after each input so a loop of lookups does not pile up for the whole session).
    pub fn take_lookups(&self) -> Vec<super::Lookup> {
        std::mem::take(&mut self.state.borrow_mut().lookups)
    }

    fn handle(&self, name: &str) -> DefinitionHandle {
        DefinitionHandle {
            builder: self.builder.clone(),
            name: name.to_string(),
            state: Some(self.state.clone()),
        }
    }

    /// Emits the partial-graph warning for lookups by type in phase A, and records the lookup
    /// (the compiler compares it with what later extensions add).
    fn warn_partial(&self, ctx: &NativeCallContext, func: &str, ty: &str) {
        let what = format!("{func}('{ty}')");
        self.state.borrow_mut().record_lookup(
            ctx.call_position(),
            what.clone(),
            super::LookupBy::Type(crate::catalog::normalize_name(ty)),
        );
        let b = self.builder.borrow();
        if b.phase() == Phase::Loading {
            // At the REPL's prompt (no extension running) an empty builder in phase A is a
            // configuration that did not load: no phase ran, there is nothing to see yet.
            let message = if b.actor().is_none() && b.definitions().next().is_none() {
                format!(
                    "{what} sees no service: the builder holds none (when the configuration did \
                     not load, no phase has run; fix its errors and :reload)."
                )
            } else {
                format!(
                    "{what} in phase A (loadConfiguration()) sees only the services registered so far; in beforeCompile() (phase B) it sees them all."
                )
            };
            drop(b);
            self.state.borrow_mut().warn_at(
                ctx.call_position(),
                Diagnostic::warning(Code::PartialGraph, message),
            );
        }
    }

    fn add(
        &self,
        ctx: &NativeCallContext,
        name: Dynamic,
        kind: DefinitionKind,
    ) -> Res<DefinitionHandle> {
        // Definitions made by a script point at the `addDefinition` call in diagnostics.
        let span = self.state.borrow().span_at(ctx.call_position());
        let name = if name.is_unit() {
            None
        } else if name.is_string() {
            name.into_string().ok()
        } else {
            return raise(Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "addDefinition: the name must be a string or (), {} given",
                    super::values::script_type_name(&name)
                ),
            ));
        };
        let mut b = self.builder.borrow_mut();
        match b.add_definition(name.as_deref(), span) {
            Ok(d) => {
                d.kind = kind;
                if kind == DefinitionKind::Slot {
                    d.lifespan = wireplan_runtime::plan::Lifespan::Scoped;
                }
                Ok(DefinitionHandle {
                    builder: self.builder.clone(),
                    name: d.name.clone(),
                    state: Some(self.state.clone()),
                })
            }
            Err(d) => raise(d),
        }
    }
}

impl DefinitionHandle {
    /// The definition's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn with<T>(&self, f: impl FnOnce(&mut Definition) -> T) -> Res<T> {
        let mut b = self.builder.borrow_mut();
        match b.get_definition_mut(&self.name) {
            Some(d) => Ok(f(d)),
            None => raise(missing(&self.name, &b)),
        }
    }

    fn read<T>(&self, f: impl FnOnce(&Definition) -> T) -> Res<T> {
        let b = self.builder.borrow();
        match b.get_definition(&self.name) {
            Some(d) => Ok(f(d)),
            None => raise(missing(&self.name, &b)),
        }
    }

    fn chain(&self, f: impl FnOnce(&mut Definition)) -> Res<DefinitionHandle> {
        self.with(f)?;
        Ok(self.clone())
    }
}

fn missing(name: &str, b: &ContainerBuilder) -> Diagnostic {
    let mut d = Diagnostic::error(Code::MissingService, format!("Service '{name}' not found."));
    // A service an earlier extension (or `name: false`) removed: who removed it, and where,
    // as `wireplan explain` says (a new user's trial).
    if let Some(removal) = b.removed().get(name) {
        return removal.explain(d, name, None);
    }
    let names: Vec<&str> = b.definitions().map(|d| d.name.as_str()).collect();
    d = d.with_suggestion(name, names);
    // Nette's order: the `services:` section is loaded after every extension's
    // loadConfiguration(), so its services are not there yet. (The REPL's phase A has loaded
    // it: there the suggestion above is the answer.)
    let in_load_configuration = b.actor().is_some_and(|a| !a.builtin && a.phase() == 'A');
    if b.phase() == Phase::Loading && in_load_configuration {
        d = d.with_note(
            "in loadConfiguration() (phase A) the services: section is not loaded yet: it is \
             loaded after every extension's loadConfiguration(), as in Nette; look its services \
             up in beforeCompile()",
        );
    }
    d
}

/// A creator from a script value: a string entity with arguments, or a `Statement`.
fn creator(entity: &Dynamic, args: &Dynamic, what: &str) -> Res<Statement> {
    if let Some(s) = entity.clone().try_cast::<ScriptStatement>() {
        return Ok(s.0);
    }
    match entity.clone().into_string() {
        Ok(name) => Ok(Statement {
            callee: Callee::Name(name),
            arguments: arguments(args, what)?,
        }),
        // Named as scripts know the type (`map`, `OrderedMap`), never a Rust path.
        Err(_) => raise(Diagnostic::error(
            Code::InvalidValue,
            format!(
                "{what}: the entity must be a string or a Statement, {} given",
                super::values::script_type_name(entity)
            ),
        )),
    }
}

fn value(v: &Dynamic, what: &str) -> Res<Expr> {
    to_expr(v).or_else(|msg| {
        raise(Diagnostic::error(
            Code::InvalidValue,
            format!("{what}: {msg}"),
        ))
    })
}

fn autowired(v: &Dynamic) -> Res<Autowired> {
    if let Ok(b) = v.as_bool() {
        return Ok(Autowired::All(b));
    }
    match value(v, "setAutowired")?.kind {
        ExprKind::Str(s) => Ok(Autowired::Types(vec![crate::catalog::normalize_name(&s)])),
        // Every item a type name: a map, or a number among the types, is refused (it was
        // dropped, leaving the service autowired for fewer types than the script named).
        ExprKind::Array(a) if a.is_list() && a.values().all(|x| x.as_str().is_some()) => {
            Ok(Autowired::Types(
                a.values()
                    .filter_map(|x| x.as_str().map(crate::catalog::normalize_name))
                    .collect(),
            ))
        }
        _ => {
            let given = match v.read_lock::<rhai::Array>() {
                Some(items) => match items.iter().find(|x| !x.is_string()) {
                    Some(item) => format!(
                        "a list with an item of type {}",
                        super::values::script_type_name(item)
                    ),
                    None => "array".to_string(),
                },
                None => super::values::script_type_name(v),
            };
            raise(Diagnostic::error(
                Code::InvalidValue,
                format!("setAutowired: expects a bool, 'self', a type or a list of types, {given} given"),
            ))
        }
    }
}

fn lookup(b: &BuilderHandle, ty: &str) -> Res<Option<String>> {
    let r = b.builder.borrow_mut().get_by_type(ty);
    r.or_else(raise)
}

/// Registers the builder and definition API on `engine`.
pub fn register(engine: &mut Engine) {
    engine.register_type_with_name::<BuilderHandle>("ContainerBuilder");
    engine.register_type_with_name::<DefinitionHandle>("Definition");
    engine.register_fn("to_string", |_: &mut BuilderHandle| {
        "ContainerBuilder".to_string()
    });
    engine.register_fn("to_debug", |_: &mut BuilderHandle| {
        "ContainerBuilder".to_string()
    });
    engine.register_fn("to_string", |d: &mut DefinitionHandle| {
        format!("Definition({})", d.name)
    });
    engine.register_fn("to_debug", |d: &mut DefinitionHandle| {
        format!("Definition({})", d.name)
    });

    // Adding and removing.
    engine.register_fn(
        "addDefinition",
        |ctx: NativeCallContext, b: &mut BuilderHandle, name: Dynamic| {
            b.add(&ctx, name, DefinitionKind::Service)
        },
    );
    engine.register_fn(
        "addDefinition",
        |ctx: NativeCallContext, b: &mut BuilderHandle| {
            b.add(&ctx, Dynamic::UNIT, DefinitionKind::Service)
        },
    );
    for (name, kind) in [
        ("addFactoryDefinition", DefinitionKind::Factory),
        ("addAccessorDefinition", DefinitionKind::Accessor),
        ("addLocatorDefinition", DefinitionKind::Locator),
        ("addImportedDefinition", DefinitionKind::Imported),
        ("addSlotDefinition", DefinitionKind::Slot),
    ] {
        engine.register_fn(
            name,
            move |ctx: NativeCallContext, b: &mut BuilderHandle, n: Dynamic| b.add(&ctx, n, kind),
        );
    }
    engine.register_fn(
        "removeDefinition",
        |ctx: NativeCallContext, b: &mut BuilderHandle, name: &str| {
            let span = b.state.borrow().span_at(ctx.call_position());
            b.builder.borrow_mut().remove_definition_at(name, span)
        },
    );
    engine.register_fn(
        "addAlias",
        |ctx: NativeCallContext, b: &mut BuilderHandle, alias: &str, service: &str| -> Res<()> {
            let span = b.state.borrow().span_at(ctx.call_position());
            let r =
                b.builder
                    .borrow_mut()
                    .add_alias_at(alias, service.trim_start_matches('@'), span);
            r.or_else(raise)
        },
    );
    engine.register_fn("removeAlias", |b: &mut BuilderHandle, alias: &str| {
        b.builder.borrow_mut().remove_alias(alias)
    });
    engine.register_fn("getAliases", |b: &mut BuilderHandle| OrderedMap {
        entries: b
            .builder
            .borrow()
            .aliases()
            .iter()
            .map(|(k, v)| (k.clone(), Dynamic::from(v.clone())))
            .collect(),
    });

    // Reading.
    engine.register_fn(
        "getDefinition",
        |b: &mut BuilderHandle, name: &str| -> Res<DefinitionHandle> {
            let builder = b.builder.borrow();
            match builder.get_definition(name) {
                Some(d) => Ok(b.handle(&d.name)),
                None => raise(missing(name, &builder)),
            }
        },
    );
    engine.register_fn("hasDefinition", |b: &mut BuilderHandle, name: &str| {
        b.builder.borrow().has_definition(name)
    });
    engine.register_fn("getDefinitions", |b: &mut BuilderHandle| OrderedMap {
        entries: b
            .builder
            .borrow()
            .definitions()
            .map(|d| (d.name.clone(), Dynamic::from(b.handle(&d.name))))
            .collect(),
    });
    engine.register_fn(
        "findByTag",
        |ctx: NativeCallContext, b: &mut BuilderHandle, tag: &str| {
            b.state.borrow_mut().record_lookup(
                ctx.call_position(),
                format!("findByTag('{tag}')"),
                super::LookupBy::Tag(tag.to_string()),
            );
            OrderedMap {
                entries: b
                    .builder
                    .borrow()
                    .find_by_tag(tag)
                    .iter()
                    .map(|(k, v)| (k.clone(), to_dynamic(v)))
                    .collect(),
            }
        },
    );
    engine.register_fn(
        "getByType",
        |ctx: NativeCallContext, b: &mut BuilderHandle, ty: &str| -> Res<Dynamic> {
            b.warn_partial(&ctx, "getByType", ty);
            Ok(lookup(b, ty)?.map(Dynamic::from).unwrap_or(Dynamic::UNIT))
        },
    );
    engine.register_fn(
        "getByType",
        |ctx: NativeCallContext, b: &mut BuilderHandle, ty: &str, throw: bool| -> Res<Dynamic> {
            b.warn_partial(&ctx, "getByType", ty);
            match lookup(b, ty)? {
                Some(n) => Ok(Dynamic::from(n)),
                None if throw => raise(
                    Diagnostic::error(
                        Code::MissingService,
                        format!("Service of type {ty} not found."),
                    )
                    .with_note("Did you add it to configuration file?"),
                ),
                None => Ok(Dynamic::UNIT),
            }
        },
    );
    engine.register_fn(
        "getDefinitionByType",
        |ctx: NativeCallContext, b: &mut BuilderHandle, ty: &str| -> Res<DefinitionHandle> {
            b.warn_partial(&ctx, "getDefinitionByType", ty);
            match lookup(b, ty)? {
                Some(n) => Ok(b.handle(&n)),
                None => raise(
                    Diagnostic::error(
                        Code::MissingService,
                        format!("Service of type {ty} not found."),
                    )
                    .with_note("Did you add it to configuration file?"),
                ),
            }
        },
    );
    engine.register_fn(
        "findByType",
        |ctx: NativeCallContext, b: &mut BuilderHandle, ty: &str| -> Res<OrderedMap> {
            b.warn_partial(&ctx, "findByType", ty);
            let r = b.builder.borrow_mut().find_by_type(ty);
            let names = r.or_else(raise)?;
            Ok(OrderedMap {
                entries: names
                    .into_iter()
                    .map(|n| {
                        let h = Dynamic::from(b.handle(&n));
                        (n, h)
                    })
                    .collect(),
            })
        },
    );
    engine.register_fn("getParameters", |b: &mut BuilderHandle| OrderedMap {
        entries: b
            .builder
            .borrow()
            .parameters
            .iter()
            .map(|(k, v)| (k.clone(), to_dynamic(v)))
            .collect(),
    });

    register_definition(engine);
}

fn register_definition(engine: &mut Engine) {
    type H = DefinitionHandle;
    /// Where the running script makes the call `ctx` (`None` outside a script).
    fn call_span(ctx: &NativeCallContext, d: &H) -> Option<crate::source::Span> {
        d.state
            .as_ref()
            .and_then(|s| s.borrow().span_at(ctx.call_position()))
    }
    /// Gives `e` and what it holds the span `at` where they have none (values from a script
    /// have no span of their own), so errors about a value a script wrote point at the call
    /// that wrote it.
    fn stamp(e: &mut Expr, at: Option<crate::source::Span>) {
        if e.span.is_none() {
            e.span = at;
        }
        match &mut e.kind {
            ExprKind::Array(a) => a.items.values_mut().for_each(|v| stamp(v, at)),
            ExprKind::Statement(st) => st.arguments.items.values_mut().for_each(|v| stamp(v, at)),
            ExprKind::Concat(parts) => parts.iter_mut().for_each(|v| stamp(v, at)),
            _ => {}
        }
    }
    /// Records that the creator was last changed at `at` (errors about it point there).
    fn creator_changed_at(def: &mut Definition, at: Option<crate::source::Span>) {
        if at.is_some() || def.extras().creator_at.is_some() {
            def.extras_mut().creator_at = at;
        }
    }
    fn set_factory(ctx: &NativeCallContext, d: &mut H, entity: Dynamic, args: Dynamic) -> Res<H> {
        let st = creator(&entity, &args, "setFactory")?;
        let at = call_span(ctx, d);
        d.chain(|def| {
            creator_changed_at(def, at);
            // Only a plain alias service is not autowired (Nette's ServiceDefinition).
            if def.kind == DefinitionKind::Service
                && matches!(&st.callee, Callee::Name(n) if n.starts_with('@') && !n.contains("::"))
            {
                def.autowired = Autowired::All(false);
            }
            def.creator = Some(st);
        })
    }
    for name in ["setFactory", "setCreator"] {
        engine.register_fn(
            name,
            |ctx: NativeCallContext, d: &mut H, entity: Dynamic, args: Dynamic| {
                set_factory(&ctx, d, entity, args)
            },
        );
        engine.register_fn(
            name,
            |ctx: NativeCallContext, d: &mut H, entity: Dynamic| {
                set_factory(&ctx, d, entity, Dynamic::UNIT)
            },
        );
    }
    engine.register_fn("setType", |d: &mut H, ty: &str| {
        d.chain(|def| def.declared_type = Some(crate::catalog::normalize_name(ty)))
    });
    engine.register_fn(
        "setArguments",
        |ctx: NativeCallContext, d: &mut H, args: Dynamic| -> Res<H> {
            let mut args = arguments(&args, "setArguments")?;
            let at = call_span(&ctx, d);
            // Errors about these values point at this call (each value carries its span);
            // those about the creator itself or about autowired arguments stay where the
            // creator was set.
            args.items.values_mut().for_each(|v| stamp(v, at));
            d.chain(|def| {
                let st = def.creator.get_or_insert_with(|| Statement {
                    callee: Callee::Name(String::new()),
                    arguments: Default::default(),
                });
                st.arguments = args;
            })
        },
    );
    engine.register_fn(
        "setArgument",
        |ctx: NativeCallContext, d: &mut H, key: Dynamic, v: Dynamic| -> Res<H> {
            let mut v = value(&v, "setArgument")?;
            let at = call_span(&ctx, d);
            stamp(&mut v, at);
            let key = if let Ok(i) = key.as_int() {
                if i < 0 {
                    return raise(Diagnostic::error(
                        Code::InvalidValue,
                        format!("setArgument: a position must be 0 or more, {i} given"),
                    ));
                }
                crate::neon::Key::Int(i)
            } else if key.is_string() && !key.to_string().trim().is_empty() {
                crate::neon::Key::from_string(key.to_string())
            } else {
                return raise(Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "setArgument: expects a position (int) or a parameter name (string), {} given",
                        if key.is_string() {
                            "an empty name".to_string()
                        } else {
                            super::values::script_type_name(&key)
                        }
                    ),
                ));
            };
            d.chain(|def| {
                let st = def.creator.get_or_insert_with(|| Statement {
                    callee: Callee::Name(String::new()),
                    arguments: Default::default(),
                });
                st.arguments.items.insert(key, v);
            })
        },
    );
    // A setup a script adds is placed at the `addSetup` call: its errors point there.
    fn add_setup(ctx: NativeCallContext, d: &mut H, entity: Dynamic, args: Dynamic) -> Res<H> {
        // An empty name names nothing (it was reported later, at the service, as
        // `Method App\Db::() is not callable`). `setFactory("")` keeps Nette's meaning: it
        // empties the factory.
        if entity
            .clone()
            .into_string()
            .is_ok_and(|s| s.trim().is_empty())
        {
            return raise(Diagnostic::error(
                Code::InvalidValue,
                "addSetup: the method name is empty; name a method, `Class::method`, \
                 `@service::method` or a `$property`",
            ));
        }
        let st = creator(&entity, &args, "addSetup")?;
        let span = call_span(&ctx, d);
        // The statement and what it holds (a reference among its arguments, say) are placed
        // at this call: their errors point here, not at the service's configuration.
        let mut setup = Expr::new(ExprKind::Statement(Box::new(st)), span);
        stamp(&mut setup, span);
        d.chain(|def| def.setup.push(setup))
    }
    engine.register_fn("addSetup", add_setup);
    engine.register_fn(
        "addSetup",
        |ctx: NativeCallContext, d: &mut H, entity: Dynamic| {
            add_setup(ctx, d, entity, Dynamic::UNIT)
        },
    );
    // Like `addSetup`, each setup is placed at the `setSetup` call (unless it already knows
    // where it was written): `setSetup([5])` is reported at the script line, not at the
    // service's configuration.
    engine.register_fn(
        "setSetup",
        |ctx: NativeCallContext, d: &mut H, setups: Array| -> Res<H> {
            let items = args_array(&setups, "setSetup")?;
            let span = call_span(&ctx, d);
            d.chain(|def| {
                def.setup = items
                    .values()
                    .map(|e| {
                        let mut e = e.clone();
                        stamp(&mut e, span);
                        e
                    })
                    .collect()
            })
        },
    );
    fn add_tag(ctx: NativeCallContext, d: &mut H, tag: &str, v: Dynamic) -> Res<H> {
        if tag.trim().is_empty() {
            return raise(Diagnostic::error(
                Code::InvalidValue,
                "addTag: the tag name is empty",
            ));
        }
        let v = value(&v, "addTag")?;
        let at = call_span(&ctx, d);
        d.chain(|def| {
            def.tags.insert(tag.to_string(), v);
            if let Some(at) = at {
                let tags_at = &mut def.extras_mut().tags_at;
                tags_at.retain(|(t, _)| t != tag);
                tags_at.push((tag.to_string(), at));
            }
        })
    }
    engine.register_fn("addTag", add_tag);
    engine.register_fn("addTag", |ctx: NativeCallContext, d: &mut H, tag: &str| {
        add_tag(ctx, d, tag, Dynamic::from(true))
    });
    engine.register_fn("setTags", |d: &mut H, tags: Dynamic| -> Res<H> {
        let tags = arguments(&tags, "setTags")?;
        // The rules of `tags:` and `addTag()`, checked before anything is replaced: a list
        // item is a tag name, a map key a non-empty name (a number or `()` in the list used
        // to become a tag named after its position).
        let mut checked = Vec::with_capacity(tags.items.len());
        for (k, v) in tags.items {
            let (name, value) = match k {
                crate::neon::Key::Int(_) => match v.as_str() {
                    Some(t) => (t.to_string(), Expr::bare(ExprKind::Bool(true))),
                    None => {
                        return raise(Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "setTags: a list item must be a tag name, {} given",
                                v.type_name()
                            ),
                        ))
                    }
                },
                k => (k.as_string(), v),
            };
            if name.trim().is_empty() {
                return raise(Diagnostic::error(
                    Code::InvalidValue,
                    "setTags: a tag name is empty",
                ));
            }
            checked.push((name, value));
        }
        d.chain(|def| {
            def.tags.clear();
            def.tags.extend(checked);
        })
    });
    engine.register_fn(
        "setAutowired",
        |ctx: NativeCallContext, d: &mut H, v: Dynamic| -> Res<H> {
            let a = autowired(&v)?;
            // Each type is placed at the call, so an `invalid-autowired` error points at the
            // script line instead of the service's configuration.
            let at = call_span(&ctx, d);
            d.chain(|def| {
                let placed: Vec<(String, crate::source::Span)> = match (&a, at) {
                    (Autowired::Types(types), Some(at)) => {
                        types.iter().map(|t| (t.clone(), at)).collect()
                    }
                    _ => Vec::new(),
                };
                if !placed.is_empty() || !def.extras().autowired_at.is_empty() {
                    def.extras_mut().autowired_at = placed;
                }
                def.autowired = a;
            })
        },
    );
    engine.register_fn("setInject", |d: &mut H, on: bool| {
        d.chain(|def| def.inject = on)
    });
    engine.register_fn("setLazy", |d: &mut H, on: bool| {
        d.chain(|def| def.lazy = on)
    });
    engine.register_fn(
        "setLifespan",
        |ctx: NativeCallContext, d: &mut H, l: &str| -> Res<H> {
            let at = call_span(&ctx, d);
            let l = match l {
                "singleton" => Lifespan::Singleton,
                "scoped" => Lifespan::Scoped,
                "transient" => Lifespan::Transient,
                other => {
                    return raise(Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                    "setLifespan: expects 'singleton', 'scoped' or 'transient', '{other}' given"
                ),
                    ))
                }
            };
            d.chain(|def| {
                def.lifespan = l;
                if at.is_some() || def.extras().lifespan_at.is_some() {
                    def.extras_mut().lifespan_at = at;
                }
                // A lifespan the configuration wrote wrong is now set right.
                if def.extras().lifespan_invalid {
                    def.extras_mut().lifespan_invalid = false;
                }
            })
        },
    );
    engine.register_fn("setImplement", |d: &mut H, iface: &str| -> Res<H> {
        // Nette's ServiceDefinition has no setImplement(): on a plain service it did nothing
        // here, and the service was then reported without a creator (fifth new user's trial).
        if d.read(|def| def.kind)? == DefinitionKind::Service {
            return raise(Diagnostic::error(
                Code::InvalidDefinition,
                format!(
                    "setImplement() is for generated services: '{}' was added with \
                     addDefinition(); add it with addFactoryDefinition() (its interface has \
                     create()) or addAccessorDefinition() (get())",
                    d.name()
                ),
            ));
        }
        d.chain(|def| def.extras_mut().implement = Some(crate::catalog::normalize_name(iface)))
    });
    engine.register_fn("setReference", |d: &mut H, target: &str| -> Res<H> {
        // Accessor: the service `get()` returns.
        let target = format!("@{}", target.trim_start_matches('@'));
        d.chain(|def| {
            def.creator = Some(Statement {
                callee: Callee::Name(target),
                arguments: Default::default(),
            })
        })
    });
    engine.register_fn("setReferences", |d: &mut H, refs: Dynamic| -> Res<H> {
        let refs = arguments(&refs, "setReferences")?;
        d.chain(|def| {
            def.extras_mut().references = refs
                .items
                .into_iter()
                .map(|(k, v)| (k.as_string(), v))
                .collect()
        })
    });
    engine.register_fn("setTagged", |d: &mut H, tag: &str| {
        d.chain(|def| def.extras_mut().tagged = Some(tag.to_string()))
    });
    engine.register_fn("getResultDefinition", |d: &mut H| d.clone());

    // Getters.
    engine.register_get("name", |d: &mut H| d.name.clone());
    engine.register_fn("getName", |d: &mut H| d.name.clone());
    engine.register_fn("getType", |d: &mut H| -> Res<Dynamic> {
        d.read(|def| {
            def.type_for_messages()
                .map(Dynamic::from)
                .unwrap_or(Dynamic::UNIT)
        })
    });
    engine.register_fn("getTag", |d: &mut H, tag: &str| -> Res<Dynamic> {
        d.read(|def| def.tags.get(tag).map(to_dynamic).unwrap_or(Dynamic::UNIT))
    });
    engine.register_fn("getTags", |d: &mut H| -> Res<OrderedMap> {
        d.read(|def| OrderedMap {
            entries: def
                .tags
                .iter()
                .map(|(k, v)| (k.clone(), to_dynamic(v)))
                .collect(),
        })
    });
    engine.register_fn("getSetup", |d: &mut H| -> Res<Array> {
        d.read(|def| def.setup.iter().map(to_dynamic).collect())
    });
    for name in ["getFactory", "getCreator"] {
        engine.register_fn(name, |d: &mut H| -> Res<Dynamic> {
            d.read(|def| {
                def.creator
                    .clone()
                    .map(|c| Dynamic::from(ScriptStatement(c)))
                    .unwrap_or(Dynamic::UNIT)
            })
        });
    }
    engine.register_fn("getArguments", |d: &mut H| -> Res<Dynamic> {
        d.read(|def| {
            def.creator
                .as_ref()
                .map(|c| to_dynamic(&Expr::bare(ExprKind::Array(c.arguments.clone()))))
                .unwrap_or_else(|| Dynamic::from_array(Array::new()))
        })
    });
    engine.register_fn("getAutowired", |d: &mut H| -> Res<Dynamic> {
        d.read(|def| match &def.autowired {
            Autowired::All(b) => Dynamic::from(*b),
            Autowired::Types(t) => {
                Dynamic::from_array(t.iter().map(|x| Dynamic::from(x.clone())).collect())
            }
        })
    });
    engine.register_fn("getImplement", |d: &mut H| -> Res<Dynamic> {
        d.read(|def| {
            def.extras()
                .implement
                .clone()
                .map(Dynamic::from)
                .unwrap_or(Dynamic::UNIT)
        })
    });
    engine.register_fn("isInject", |d: &mut H| d.read(|def| def.inject));
    engine.register_fn("isLazy", |d: &mut H| d.read(|def| def.lazy));
    engine.register_fn("getLifespan", |d: &mut H| -> Res<String> {
        d.read(|def| match def.lifespan {
            Lifespan::Singleton => "singleton".to_string(),
            Lifespan::Scoped => "scoped".to_string(),
            Lifespan::Transient => "transient".to_string(),
        })
    });
    engine.register_fn("getKind", |d: &mut H| -> Res<String> {
        d.read(|def| format!("{:?}", def.kind).to_lowercase())
    });
}
