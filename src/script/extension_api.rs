//! `this` inside an extension: Nette's `CompilerExtension` members (`name`, `config`,
//! `prefix()`, `getContainerBuilder()`, `loadDefinitionsFromConfig()`, `loadFromFile()`,
//! `initialization`, `compiler`) plus wireplan's `args`, `types` (catalog queries) and
//! `warn()`. Whatever needs files or the compiler goes through the [`Host`] the compiler
//! provides, so this module knows nothing about file layout.

use super::builder_api::{BuilderHandle, SharedBuilder};
use super::values::{raise, to_dynamic, to_expr, OrderedMap};
use super::ScriptState;
use crate::diagnostics::{Code, Diagnostic};
use crate::expr::Expr;
use rhai::{Array, Dynamic, Engine, EvalAltResult, NativeCallContext};
use std::cell::RefCell;
use std::rc::Rc;

type Res<T> = Result<T, Box<EvalAltResult>>;

/// What the compiler offers to extension scripts.
pub trait Host {
    /// Loads a map shaped like a `services:` section into the builder; keys are prefixed with
    /// `extension.`, `@extension.` references become `@<extension>.`, parameters are expanded.
    /// `at` is the script line of the call: definitions without a place of their own (built
    /// in the script rather than read from a file) are placed there.
    fn load_definitions(
        &self,
        extension: &str,
        config: &Expr,
        at: Option<crate::source::Span>,
    ) -> Vec<Diagnostic>;
    /// Reads a NEON file (relative to the script's folder, inside the project) and registers it
    /// as a dependency. Errors: `file-not-found`, or `script-error` for a path outside the
    /// project.
    fn load_file(&self, script: &str, path: &str) -> Result<Expr, Diagnostic>;
    /// Registers a file for dev-mode rebuilds (same path rules as `load_file`).
    fn add_dependency(&self, script: &str, path: &str) -> Result<(), Diagnostic>;
    /// Parses a NEON statement such as `@session::start()`.
    fn parse_statement(&self, text: &str) -> Result<Expr, Diagnostic>;
    /// Registered extensions: name → script path; `kind` filters by script file name.
    fn extensions(&self, kind: Option<&str>) -> Vec<(String, String)>;
    /// Keeps a tag in the plan when `di › export › tags` is a list.
    fn add_exported_tag(&self, tag: &str);
    /// Keeps a type in the plan when `di › export › types` is a list.
    /// Errors: `class-not-found` for a type the catalog does not know (with "did you mean").
    fn add_exported_type(&self, ty: &str) -> Result<(), Diagnostic>;
}

/// `this` inside an extension's lifecycle functions.
#[derive(Clone)]
pub struct ExtensionHandle {
    /// The extension's name (its key under `extensions:`).
    pub name: String,
    /// Its configuration section.
    pub config: Dynamic,
    /// The arguments written after the script path: `blog: blog.rhai(%debugMode%)` (a parameter
    /// the configuration declares; nothing is predefined).
    pub args: Array,
    /// The script's display path.
    pub script: String,
    pub(super) builder: SharedBuilder,
    pub(super) state: Rc<RefCell<ScriptState>>,
    pub(super) host: Rc<dyn Host>,
}

/// `this.compiler`.
#[derive(Clone)]
pub struct CompilerHandle(Rc<dyn Host>);

/// `this.types`: queries on the type catalog.
#[derive(Clone)]
pub struct TypesHandle(SharedBuilder);

/// `this.initialization`: statements run when the container starts.
#[derive(Clone)]
pub struct InitializationHandle {
    builder: SharedBuilder,
    host: Rc<dyn Host>,
    state: Rc<RefCell<ScriptState>>,
}

impl ExtensionHandle {
    /// Takes the lookups by tag or type the script made since the last call.
    pub fn take_lookups(&self) -> Vec<super::Lookup> {
        std::mem::take(&mut self.state.borrow_mut().lookups)
    }

    /// Creates `this` for an extension.
    pub fn new(
        name: &str,
        script: &str,
        config: Dynamic,
        args: Array,
        builder: SharedBuilder,
        host: Rc<dyn Host>,
    ) -> ExtensionHandle {
        ExtensionHandle {
            name: name.to_string(),
            config,
            args,
            script: script.to_string(),
            builder,
            state: Rc::new(RefCell::new(ScriptState::default())),
            host,
        }
    }

    /// The builder this extension works on.
    pub fn builder(&self) -> &SharedBuilder {
        &self.builder
    }
}

fn strings(items: Vec<String>) -> Array {
    items.into_iter().map(Dynamic::from).collect()
}

/// Registers `this` and its helper objects on `engine`.
pub fn register(engine: &mut Engine) {
    type E = ExtensionHandle;
    engine.register_type_with_name::<E>("Extension");
    engine.register_get("name", |e: &mut E| e.name.clone());
    engine.register_get("config", |e: &mut E| e.config.clone());
    engine.register_set("config", |e: &mut E, v: Dynamic| e.config = v);
    engine.register_get("args", |e: &mut E| e.args.clone());
    engine.register_fn("getConfig", |e: &mut E| e.config.clone());
    engine.register_fn("prefix", |e: &mut E, id: &str| match id.strip_prefix('@') {
        Some(rest) => format!("@{}.{rest}", e.name),
        None => format!("{}.{id}", e.name),
    });
    engine.register_fn("getContainerBuilder", |e: &mut E| BuilderHandle {
        builder: e.builder.clone(),
        state: e.state.clone(),
    });
    engine.register_fn(
        "loadDefinitionsFromConfig",
        |ctx: NativeCallContext, e: &mut E, config: Dynamic| -> Res<()> {
            let at = e.state.borrow().span_at(ctx.call_position());
            let expr = match to_expr(&config) {
                Ok(x) => x,
                Err(msg) => {
                    return raise(Diagnostic::error(
                        Code::InvalidValue,
                        format!("loadDefinitionsFromConfig: {msg}"),
                    ))
                }
            };
            let mut errors = e.host.load_definitions(&e.name, &expr, at);
            if errors.is_empty() {
                Ok(())
            } else {
                raise(errors.remove(0))
            }
        },
    );
    engine.register_fn("loadFromFile", |e: &mut E, path: &str| -> Res<Dynamic> {
        match e.host.load_file(&e.script, path) {
            Ok(x) => Ok(to_dynamic(&x)),
            Err(d) => raise(d),
        }
    });
    engine.register_fn(
        "warn",
        |ctx: NativeCallContext, e: &mut E, message: &str| {
            e.state.borrow_mut().warn_at(
                ctx.call_position(),
                Diagnostic::warning(
                    Code::ExtensionWarning,
                    format!("Extension '{}': {message}", e.name),
                ),
            );
        },
    );
    engine.register_get("compiler", |e: &mut E| CompilerHandle(e.host.clone()));
    engine.register_get("types", |e: &mut E| TypesHandle(e.builder.clone()));
    engine.register_get("initialization", |e: &mut E| InitializationHandle {
        builder: e.builder.clone(),
        host: e.host.clone(),
        state: e.state.clone(),
    });

    engine.register_type_with_name::<CompilerHandle>("Compiler");
    let extensions = |c: &CompilerHandle, kind: Option<&str>| OrderedMap {
        entries: c
            .0
            .extensions(kind)
            .into_iter()
            .map(|(n, p)| (n, Dynamic::from(p)))
            .collect(),
    };
    engine.register_fn("getExtensions", move |c: &mut CompilerHandle| {
        extensions(c, None)
    });
    engine.register_fn(
        "getExtensions",
        move |c: &mut CompilerHandle, kind: &str| extensions(c, Some(kind)),
    );
    engine.register_fn("addExportedTag", |c: &mut CompilerHandle, tag: &str| {
        c.0.add_exported_tag(tag)
    });
    engine.register_fn(
        "addExportedType",
        |c: &mut CompilerHandle, ty: &str| -> Res<()> { c.0.add_exported_type(ty).or_else(raise) },
    );
    engine.register_fn("addDependency", |e: &mut E, path: &str| -> Res<()> {
        e.host.add_dependency(&e.script, path).or_else(raise)
    });

    engine.register_type_with_name::<InitializationHandle>("Initialization");
    engine.register_fn(
        "addBody",
        |ctx: NativeCallContext, i: &mut InitializationHandle, text: &str| -> Res<()> {
            let mut st = i.host.parse_statement(text).or_else(raise)?;
            // Problems with the statement point at the `addBody` call in the script.
            if let Some(span) = i.state.borrow().span_at(ctx.call_position()) {
                st.span = Some(span);
            }
            i.builder.borrow_mut().add_initialization(st);
            Ok(())
        },
    );

    type T = TypesHandle;
    engine.register_type_with_name::<T>("Types");
    engine.register_fn("exists", |t: &mut T, name: &str| {
        t.0.borrow().catalog.exists(name)
    });
    engine.register_fn("isInterface", |t: &mut T, name: &str| {
        t.0.borrow().catalog.get(name).is_some_and(|c| c.interface)
    });
    engine.register_fn("isAbstract", |t: &mut T, name: &str| {
        t.0.borrow()
            .catalog
            .get(name)
            .is_some_and(|c| c.is_abstract)
    });
    engine.register_fn("isSubclassOf", |t: &mut T, sub: &str, sup: &str| {
        let b = t.0.borrow();
        b.catalog.exists(sub) && b.catalog.is_subtype(sub, sup)
    });
    engine.register_fn("classes", |t: &mut T| -> Array {
        strings(
            t.0.borrow()
                .catalog
                .classes()
                .map(|c| c.name.to_string())
                .collect(),
        )
    });
    engine.register_fn("implementationsOf", |t: &mut T, sup: &str| -> Array {
        let b = t.0.borrow();
        strings(
            b.catalog
                .classes()
                .filter(|c| !c.interface && !c.is_abstract && b.catalog.is_subtype(&c.name, sup))
                .map(|c| c.name.to_string())
                .collect(),
        )
    });
    engine.register_fn("methods", |t: &mut T, class: &str| -> Array {
        let b = t.0.borrow();
        let mut out: Vec<String> = Vec::new();
        for a in b.catalog.ancestors(class) {
            if let Some(c) = b.catalog.get(&a) {
                for m in c.methods.keys() {
                    if !out.iter().any(|o| o == m.as_str()) {
                        out.push(m.to_string());
                    }
                }
            }
        }
        strings(out)
    });
    engine.register_fn("constructor", |t: &mut T, class: &str| -> OrderedMap {
        let b = t.0.borrow();
        OrderedMap {
            entries: b
                .catalog
                .constructor(class)
                .iter()
                .map(|p| (p.name.to_string(), Dynamic::from(p.ty.text.to_string())))
                .collect(),
        }
    });
}
