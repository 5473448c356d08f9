//! The scripted `ContainerBuilder`, with Nette's method names (`../shared/reference/nette-di.md`
//! §16): `addDefinition`, `addFactoryDefinition`, `getByType`, `findByTag`, … Builder errors
//! (for example `missing-service` from `getDefinition`) are raised as script errors reported at
//! the calling line. The handle type of a definition is declared here (the builder makes them);
//! its methods (`setFactory`, `addSetup`, `addTag`, …) are in `definition_api`.

use super::values::{arguments, raise, to_dynamic, to_expr, OrderedMap, ScriptStatement};
use super::ScriptState;
use crate::builder::{ContainerBuilder, Definition, DefinitionKind, Phase};
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Callee, Expr, Statement};
use rhai::{Dynamic, Engine, EvalAltResult, NativeCallContext};
use std::cell::RefCell;
use std::rc::Rc;

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
    pub(super) builder: SharedBuilder,
    pub(super) name: String,
    /// The running script's state, to place what the script adds (setups) at its line.
    pub(super) state: Option<Rc<RefCell<ScriptState>>>,
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

    pub(super) fn with<T>(&self, f: impl FnOnce(&mut Definition) -> T) -> Res<T> {
        let mut b = self.builder.borrow_mut();
        match b.get_definition_mut(&self.name) {
            Some(d) => Ok(f(d)),
            None => raise(missing(&self.name, &b)),
        }
    }

    pub(super) fn read<T>(&self, f: impl FnOnce(&Definition) -> T) -> Res<T> {
        let b = self.builder.borrow();
        match b.get_definition(&self.name) {
            Some(d) => Ok(f(d)),
            None => raise(missing(&self.name, &b)),
        }
    }

    pub(super) fn chain(&self, f: impl FnOnce(&mut Definition)) -> Res<DefinitionHandle> {
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
        d = d.with_note(match b.upcoming_service(name) {
            // (A name it does not define either: looking later would not help; a new user's
            // trial.)
            Some(false) => {
                "in loadConfiguration() (phase A) the services: section is not loaded yet, and \
                 it defines no such service either"
            }
            Some(true) | None => {
                "in loadConfiguration() (phase A) the services: section is not loaded yet: it is \
                 loaded after every extension's loadConfiguration(), as in Nette; look its \
                 services up in beforeCompile()"
            }
        });
    }
    d
}

/// A creator from a script value: a string entity with arguments, or a `Statement`.
pub(super) fn creator(entity: &Dynamic, args: &Dynamic, what: &str) -> Res<Statement> {
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

pub(super) fn value(v: &Dynamic, what: &str) -> Res<Expr> {
    to_expr(v).or_else(|msg| {
        raise(Diagnostic::error(
            Code::InvalidValue,
            format!("{what}: {msg}"),
        ))
    })
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

    super::definition_api::register(engine);
}
