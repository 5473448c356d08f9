//! The scripted compiler API: what `this` and the builder offer to Rhai extensions.
//!
//! Method names follow Nette's `CompilerExtension` and `ContainerBuilder` (§15–16 of
//! `../shared/reference/nette-di.md`) so Nette documentation reads straight across:
//! `this.getContainerBuilder().addDefinition(this.prefix("x")).setFactory("App\\Foo", [..])`.
//! Errors raised by the builder carry a [`Diagnostic`] and are reported at the calling line.

use super::ScriptState;
use crate::builder::{Autowired, ContainerBuilder, Phase};
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::{Callee, Expr, ExprArray, ExprKind, Statement};
use crate::neon::Key;
use rhai::{Array, Dynamic, Engine, EvalAltResult, Map, NativeCallContext, Position};
use std::cell::RefCell;
use std::rc::Rc;

/// Shared mutable builder, as handed to scripts.
pub type SharedBuilder = Rc<RefCell<ContainerBuilder>>;

/// `this` inside an extension's lifecycle functions.
#[derive(Clone)]
pub struct ExtensionHandle {
    /// The extension's name (its key under `extensions:`).
    pub name: String,
    /// Its configuration section, converted to Rhai values.
    pub config: Dynamic,
    pub(super) builder: SharedBuilder,
    pub(super) state: Rc<RefCell<ScriptState>>,
}

/// A handle to the builder (`this.getContainerBuilder()`).
#[derive(Clone)]
pub struct BuilderHandle {
    builder: SharedBuilder,
    state: Rc<RefCell<ScriptState>>,
}

/// A handle to one definition; methods return the handle again so calls chain.
#[derive(Clone)]
pub struct DefinitionHandle {
    builder: SharedBuilder,
    name: String,
}

type Res<T> = Result<T, Box<EvalAltResult>>;

/// Raises a diagnostic as a script error at the calling position.
pub(super) fn raise<T>(d: Diagnostic) -> Res<T> {
    Err(Box::new(EvalAltResult::ErrorRuntime(
        Dynamic::from(d),
        Position::NONE,
    )))
}

/// Converts a Rhai value to a configuration value.
pub fn to_expr(v: &Dynamic) -> Result<Expr, String> {
    let kind = if v.is_unit() {
        ExprKind::Null
    } else if let Some(b) = v.clone().try_cast::<bool>() {
        ExprKind::Bool(b)
    } else if let Some(i) = v.clone().try_cast::<i64>() {
        ExprKind::Int(i)
    } else if let Some(f) = v.clone().try_cast::<f64>() {
        ExprKind::Float(f)
    } else if v.is_string() {
        ExprKind::Str(v.clone().into_string().unwrap_or_default())
    } else if let Some(a) = v.clone().try_cast::<Array>() {
        let mut out = ExprArray::new();
        for item in &a {
            out.push(to_expr(item)?);
        }
        ExprKind::Array(out)
    } else if let Some(m) = v.clone().try_cast::<Map>() {
        let mut out = ExprArray::new();
        for (k, item) in &m {
            out.items
                .insert(Key::from_string(k.to_string()), to_expr(item)?);
        }
        ExprKind::Array(out)
    } else {
        return Err(format!(
            "a value of type {} cannot be used here",
            v.type_name()
        ));
    };
    Ok(Expr::bare(kind))
}

/// Converts a configuration value to Rhai (lists become arrays, maps become object maps).
pub fn to_dynamic(e: &Expr) -> Dynamic {
    match &e.kind {
        ExprKind::Null => Dynamic::UNIT,
        ExprKind::Bool(b) => Dynamic::from(*b),
        ExprKind::Int(i) => Dynamic::from(*i),
        ExprKind::Float(f) => Dynamic::from(*f),
        ExprKind::Str(s) => Dynamic::from(s.clone()),
        ExprKind::Array(a) if a.is_list() => {
            Dynamic::from_array(a.values().map(to_dynamic).collect())
        }
        ExprKind::Array(a) => {
            let mut m = Map::new();
            for (k, v) in &a.items {
                m.insert(k.as_string().into(), to_dynamic(v));
            }
            Dynamic::from_map(m)
        }
        ExprKind::Dynamic(n) => Dynamic::from(format!("%{n}%")),
        other => Dynamic::from(Expr::bare(other.clone()).describe()),
    }
}

fn args_array(args: &Array, what: &str) -> Res<ExprArray> {
    let mut out = ExprArray::new();
    for (i, a) in args.iter().enumerate() {
        match to_expr(a) {
            Ok(e) => out.push(e),
            Err(msg) => {
                return raise(Diagnostic::error(
                    Code::InvalidValue,
                    format!("{what}: argument #{i}: {msg}"),
                ))
            }
        }
    }
    Ok(out)
}

impl DefinitionHandle {
    fn with<T>(&self, f: impl FnOnce(&mut crate::builder::Definition) -> T) -> Res<T> {
        let mut b = self.builder.borrow_mut();
        match b.get_definition_mut(&self.name) {
            Some(d) => Ok(f(d)),
            None => raise(Diagnostic::error(
                Code::MissingService,
                format!("Service '{}' not found.", self.name),
            )),
        }
    }
}

fn missing(name: &str, b: &ContainerBuilder) -> Diagnostic {
    let mut d = Diagnostic::error(Code::MissingService, format!("Service '{name}' not found."));
    let names: Vec<&str> = b.definitions().map(|d| d.name.as_str()).collect();
    if let Some(s) = crate::diagnostics::suggest(name, names) {
        d = d.with_note(format!("did you mean '{s}'?"));
    }
    d
}

/// Registers the types and functions of the API on `engine`.
pub fn register(engine: &mut Engine) {
    engine.register_type_with_name::<ExtensionHandle>("Extension");
    engine.register_type_with_name::<BuilderHandle>("ContainerBuilder");
    engine.register_type_with_name::<DefinitionHandle>("Definition");
    engine.register_type_with_name::<Diagnostic>("Diagnostic");

    engine.register_get("name", |e: &mut ExtensionHandle| e.name.clone());
    engine.register_get("config", |e: &mut ExtensionHandle| e.config.clone());
    engine.register_fn("prefix", |e: &mut ExtensionHandle, id: &str| {
        match id.strip_prefix('@') {
            Some(rest) => format!("@{}.{rest}", e.name),
            None => format!("{}.{id}", e.name),
        }
    });
    engine.register_fn("getContainerBuilder", |e: &mut ExtensionHandle| {
        BuilderHandle {
            builder: e.builder.clone(),
            state: e.state.clone(),
        }
    });

    engine.register_fn(
        "addDefinition",
        |b: &mut BuilderHandle, name: &str| -> Res<DefinitionHandle> {
            let mut builder = b.builder.borrow_mut();
            match builder.add_definition(Some(name), None) {
                Ok(d) => Ok(DefinitionHandle {
                    builder: b.builder.clone(),
                    name: d.name.clone(),
                }),
                Err(d) => raise(d),
            }
        },
    );
    engine.register_fn(
        "getDefinition",
        |b: &mut BuilderHandle, name: &str| -> Res<DefinitionHandle> {
            let builder = b.builder.borrow();
            match builder.get_definition(name) {
                Some(d) => Ok(DefinitionHandle {
                    builder: b.builder.clone(),
                    name: d.name.clone(),
                }),
                None => raise(missing(name, &builder)),
            }
        },
    );
    engine.register_fn("hasDefinition", |b: &mut BuilderHandle, name: &str| {
        b.builder.borrow().has_definition(name)
    });
    engine.register_fn("removeDefinition", |b: &mut BuilderHandle, name: &str| {
        b.builder.borrow_mut().remove_definition(name)
    });
    engine.register_fn("findByTag", |b: &mut BuilderHandle, tag: &str| -> Map {
        b.builder
            .borrow()
            .find_by_tag(tag)
            .iter()
            .map(|(k, v)| (k.as_str().into(), to_dynamic(v)))
            .collect()
    });
    engine.register_fn(
        "getByType",
        |ctx: NativeCallContext, b: &mut BuilderHandle, ty: &str| -> Res<Dynamic> {
            let phase = b.builder.borrow().phase();
            if phase == Phase::Loading {
                b.state.borrow_mut().warn_at(
                    ctx.call_position(),
                    Diagnostic::warning(
                        Code::PartialGraph,
                        format!(
                            "getByType('{ty}') in loadConfiguration() sees only the services registered so far; use beforeCompile() for a complete answer."
                        ),
                    ),
                );
            }
            let r = b.builder.borrow_mut().get_by_type(ty);
            match r {
                Ok(Some(n)) => Ok(Dynamic::from(n)),
                Ok(None) => Ok(Dynamic::UNIT),
                Err(d) => raise(d),
            }
        },
    );

    fn set_factory(d: &mut DefinitionHandle, entity: &str, args: Array) -> Res<DefinitionHandle> {
        let args = args_array(&args, "setFactory")?;
        d.with(|def| {
            if entity.starts_with('@') && !entity.contains("::") {
                def.autowired = Autowired::All(false);
            }
            def.set_creator(entity, args)
        })?;
        Ok(d.clone())
    }
    engine.register_fn("setFactory", set_factory);
    engine.register_fn("setFactory", |d: &mut DefinitionHandle, entity: &str| {
        set_factory(d, entity, Array::new())
    });
    engine.register_fn("setCreator", set_factory);
    engine.register_fn("setCreator", |d: &mut DefinitionHandle, entity: &str| {
        set_factory(d, entity, Array::new())
    });
    engine.register_fn(
        "setType",
        |d: &mut DefinitionHandle, ty: &str| -> Res<DefinitionHandle> {
            d.with(|def| def.declared_type = Some(crate::catalog::normalize_name(ty)))?;
            Ok(d.clone())
        },
    );
    fn add_setup(d: &mut DefinitionHandle, entity: &str, args: Array) -> Res<DefinitionHandle> {
        let arguments = args_array(&args, "addSetup")?;
        let st = Statement {
            callee: Callee::Name(entity.to_string()),
            arguments,
        };
        d.with(|def| {
            def.setup
                .push(Expr::bare(ExprKind::Statement(Box::new(st))))
        })?;
        Ok(d.clone())
    }
    engine.register_fn("addSetup", add_setup);
    engine.register_fn("addSetup", |d: &mut DefinitionHandle, entity: &str| {
        add_setup(d, entity, Array::new())
    });
    fn add_tag(d: &mut DefinitionHandle, tag: &str, value: Dynamic) -> Res<DefinitionHandle> {
        let v = match to_expr(&value) {
            Ok(v) => v,
            Err(msg) => {
                return raise(Diagnostic::error(
                    Code::InvalidValue,
                    format!("addTag: {msg}"),
                ))
            }
        };
        d.with(|def| def.tags.insert(tag.to_string(), v))?;
        Ok(d.clone())
    }
    engine.register_fn("addTag", add_tag);
    engine.register_fn("addTag", |d: &mut DefinitionHandle, tag: &str| {
        add_tag(d, tag, Dynamic::from(true))
    });
    engine.register_fn(
        "setAutowired",
        |d: &mut DefinitionHandle, on: bool| -> Res<DefinitionHandle> {
            d.with(|def| def.autowired = Autowired::All(on))?;
            Ok(d.clone())
        },
    );
    engine.register_get("name", |d: &mut DefinitionHandle| d.name.clone());
    engine.register_fn("to_string", |d: &mut DefinitionHandle| {
        format!("Definition({})", d.name)
    });
    engine.register_fn("to_debug", |d: &mut DefinitionHandle| {
        format!("Definition({})", d.name)
    });
    engine.register_fn("to_string", |_: &mut BuilderHandle| {
        "ContainerBuilder".to_string()
    });
    engine.register_fn("to_debug", |_: &mut BuilderHandle| {
        "ContainerBuilder".to_string()
    });
    engine.register_fn("getName", |d: &mut DefinitionHandle| d.name.clone());
    engine.register_fn("getType", |d: &mut DefinitionHandle| -> Res<Dynamic> {
        d.with(|def| {
            def.type_for_messages()
                .map(Dynamic::from)
                .unwrap_or(Dynamic::UNIT)
        })
    });
    engine.register_fn(
        "getTag",
        |d: &mut DefinitionHandle, tag: &str| -> Res<Dynamic> {
            d.with(|def| def.tags.get(tag).map(to_dynamic).unwrap_or(Dynamic::UNIT))
        },
    );
}

impl ExtensionHandle {
    /// The builder this extension works on.
    pub fn builder(&self) -> &SharedBuilder {
        &self.builder
    }
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
}

impl DefinitionHandle {
    /// The definition's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}
