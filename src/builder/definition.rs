//! A service definition as the builder holds it: its kind, autowiring, creator, setup,
//! tags and where it was written or changed (Nette's `ServiceDefinition` and its kin).

use super::*;

/// What kind of definition a service has (Nette's definition classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionKind {
    /// `ServiceDefinition`: created by its creator statement.
    Service,
    /// `FactoryDefinition`: implements an interface whose `create()` returns a new object built
    /// by the creator (the "result definition").
    Factory,
    /// `AccessorDefinition`: implements an interface whose `get()` returns a service.
    Accessor,
    /// `LocatorDefinition`: implements an interface whose `get(name)` returns one of several
    /// services (`references`, or the services carrying the tag `tagged`).
    Locator,
    /// `ImportedDefinition`: supplied by the application at run time.
    Imported,
    /// A scope slot (`slot: true`; Symfony's synthetic service, Clean IoC 2's
    /// `declare_scope_slot`): a `scoped` service the application provides in each scope.
    Slot,
}

impl DefinitionKind {
    /// An accessor or a factory: a reference to it passes a lazy handle, and only a call
    /// through it (`@accessor::get()`, `@factory::create()`) creates what its own statement
    /// refers to, as the runtime does.
    pub fn is_handle(self) -> bool {
        matches!(self, DefinitionKind::Accessor | DefinitionKind::Factory)
    }

    /// The plan's kind of a service with this definition.
    pub fn plan_kind(self) -> wireplan_runtime::plan::ServiceKind {
        use wireplan_runtime::plan::ServiceKind;
        match self {
            DefinitionKind::Service => ServiceKind::Service,
            DefinitionKind::Factory => ServiceKind::Factory,
            DefinitionKind::Accessor => ServiceKind::Accessor,
            DefinitionKind::Locator => ServiceKind::Locator,
            DefinitionKind::Imported => ServiceKind::Imported,
            DefinitionKind::Slot => ServiceKind::Slot,
        }
    }
}

/// `autowired:` as configured: `true`/`false`, or a list of types (`self` allowed).
#[derive(Debug, Clone, PartialEq)]
pub enum Autowired {
    /// Autowired for all its types, or for none.
    All(bool),
    /// Autowired only for these types (and their subtypes' requests); `self` is the own type.
    Types(Vec<String>),
}

impl Autowired {
    /// The plan's form for a service of type `own_type`: `self` in a list of types becomes
    /// that type.
    pub fn plan_autowired(&self, own_type: &str) -> wireplan_runtime::plan::Autowired {
        use wireplan_runtime::plan::Autowired as P;
        match self {
            Autowired::All(b) => P::All(*b),
            Autowired::Types(list) => P::Types(
                list.iter()
                    .map(|t| {
                        if t == "self" {
                            own_type.to_string()
                        } else {
                            t.clone()
                        }
                    })
                    .collect(),
            ),
        }
    }
}

/// Who is changing the builder: an extension's lifecycle method, or a built-in section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// The extension's name (the key under `extensions:`), or a built-in section (`search`).
    pub extension: String,
    /// The method running (`loadConfiguration`, `beforeCompile`); `beforeCompile` for the
    /// built-in steps, which run in phase B.
    pub method: String,
    /// A built-in step of the compiler (`search`, `decorator`, `inject`), not a script.
    pub builtin: bool,
}

impl Actor {
    /// The compiler phase the method belongs to: `A` for `loadConfiguration`, `C` for
    /// `afterCompile`, `B` for `beforeCompile` and the built-in steps (`search`, `decorator`,
    /// `inject`).
    pub fn phase(&self) -> char {
        match self.method.as_str() {
            "loadConfiguration" => 'A',
            "afterCompile" => 'C',
            _ => 'B',
        }
    }

    /// Who, as the tail of a sentence: ` by extension 'e' in beforeCompile()`, or ` by the
    /// 'search' section` for a built-in step.
    pub(crate) fn by(&self) -> String {
        if self.builtin {
            format!(" by the '{}' section", self.extension)
        } else {
            format!(" by extension '{}' in {}()", self.extension, self.method)
        }
    }
}

/// A record of a removed definition: who removed it, where, and what it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removal {
    /// The extension (or built-in step) that removed it; `None` for the configuration
    /// (`name: false` in `services:`) or code outside any extension (the REPL prompt).
    pub actor: Option<Actor>,
    /// The `removeDefinition` call or the `name: false` entry, when known.
    pub span: Option<Span>,
    /// The removed definition's type (resolved, else declared, else the class its creator
    /// constructs), when it was known.
    pub type_: Option<String>,
}

impl Removal {
    /// Says on `d`, a diagnostic about a missing service, that `service` (of type `ty`, when
    /// known) was removed, and by whom: a label at the removal when its place is known
    /// (`builder.removeDefinition("logger")` at the REPL prompt, `logger: false`), else a note.
    pub(crate) fn explain(&self, d: Diagnostic, service: &str, ty: Option<&str>) -> Diagnostic {
        let by = self.actor.as_ref().map(Actor::by).unwrap_or_default();
        let what = match ty {
            Some(ty) => format!("service '{service}' of type {ty} was removed{by}"),
            None => format!("service '{service}' was removed{by}"),
        };
        match self.span {
            Some(at) => d.with_secondary(at, what),
            None => d.with_note(format!("{what}.")),
        }
    }
}

/// One service definition.
#[derive(Debug, Clone)]
pub struct Definition {
    /// The service name (`01`, `02`, … for anonymous ones).
    pub name: String,
    /// Definition kind.
    pub kind: DefinitionKind,
    /// Where the definition was written, if in a file.
    pub span: Option<Span>,
    /// The declared `type:`.
    pub declared_type: Option<String>,
    /// The creator (`create:`), a statement.
    pub creator: Option<Statement>,
    /// Setup statements, in order.
    pub setup: Vec<Expr>,
    /// Tags: name → value.
    pub tags: IndexMap<String, Expr>,
    /// Autowiring.
    pub autowired: Autowired,
    /// Lifespan.
    pub lifespan: Lifespan,
    /// `inject: true`: the inject extension adds `inject*()` calls and injected properties.
    pub inject: bool,
    /// `lazy: true` (accepted and kept; the runtime creates every service lazily anyway).
    pub lazy: bool,
    /// `sync: true`: the service must be creatable by a sync `get`; a creation path that
    /// reaches an async constructor is an `async-required` error (docs/async.md).
    pub sync: bool,
    /// The resolved type (after [`ContainerBuilder::resolve`]).
    pub resolved_type: Option<String>,
    /// The completed statements (after [`ContainerBuilder::complete`]).
    pub completed: Option<Box<Completed>>,
    /// What most definitions leave empty ([`DefinitionExtras`]), boxed once one is set;
    /// read it with [`Definition::extras`], change it with [`Definition::extras_mut`].
    pub(super) extras: Option<Box<DefinitionExtras>>,
}

/// The parts of a [`Definition`] that most definitions leave empty: what generated services,
/// locators and factories add, and which extensions added or changed the definition. Kept
/// out of line (issue #13): inline they were 224 of a definition's 616 bytes, ≈150 MB at
/// 703,000 services, for fields a plain service never sets.
#[derive(Debug, Clone, Default)]
pub struct DefinitionExtras {
    /// Generated services: the interface to implement.
    pub implement: Option<String>,
    /// Locators: name → `@service` or a type.
    pub references: IndexMap<String, Expr>,
    /// Locators: the tag whose values name the services.
    pub tagged: Option<String>,
    /// Factories: the class `create()` returns (after resolution).
    pub result_type: Option<String>,
    /// Which extension (or built-in step) added the definition; `None` for the `services:`
    /// section and for code outside any extension (the REPL prompt).
    pub origin: Option<Actor>,
    /// Extensions (or built-in steps) that changed the definition after it was added, in the
    /// order of their first change.
    pub modified_by: Vec<Actor>,
    /// Where each type of an `autowired:` type or list was written in the configuration (or
    /// the `setAutowired()` call of a script that set them), so an `invalid-autowired` error
    /// points at the type, not at the whole service. Empty for `autowired: true|false`.
    pub autowired_at: Vec<(String, Span)>,
    /// Where an extension script set the creator (`setFactory()`, `setCreator()`), so errors
    /// about the creator point at that call rather than at `addDefinition()`. `None` for a
    /// creator written in the configuration (it lies within the definition's own span) and for
    /// one set outside a script (the REPL prompt).
    pub creator_at: Option<Span>,
    /// Where a script or the REPL's prompt last set the lifespan (`setLifespan()`), so a
    /// `captive-dependency` error can point at the change as well as at the definition.
    pub lifespan_at: Option<Span>,
    /// Where a script last added each tag (`addTag()`), so the `extension-order` warning for a
    /// tag added to an existing service points at that call, not at the definition.
    pub tags_at: Vec<(String, Span)>,
    /// The configuration gave a `lifespan` that is none of the three (reported where it was
    /// written): the definition keeps the default, singleton, but is not reported as a
    /// captive holder, an error that would only follow from the typo.
    pub lifespan_invalid: bool,
}

/// What [`Definition::extras`] reads for a definition that has none set.
static NO_EXTRAS: std::sync::LazyLock<DefinitionExtras> =
    std::sync::LazyLock::new(DefinitionExtras::default);

impl Definition {
    /// An empty definition `name` written at `span`, recording `actor` (the extension running,
    /// if any) as its origin: what [`ContainerBuilder::detached_definition`] makes, for a
    /// thread that reads definitions ahead without the builder.
    pub(crate) fn made_by(name: String, span: Option<Span>, actor: Option<&Actor>) -> Definition {
        let mut d = Definition::new(name, span);
        if let Some(actor) = actor {
            d.extras_mut().origin = Some(actor.clone());
        }
        d
    }

    fn new(name: String, span: Option<Span>) -> Definition {
        Definition {
            name,
            kind: DefinitionKind::Service,
            span,
            declared_type: None,
            creator: None,
            setup: Vec::new(),
            tags: IndexMap::new(),
            autowired: Autowired::All(true),
            lifespan: Lifespan::Singleton,
            inject: false,
            lazy: false,
            sync: false,
            resolved_type: None,
            completed: None,
            extras: None,
        }
    }

    /// The rarely set parts (interface, locator references and tag, factory result type,
    /// origin, changes); empty ones when none was set.
    pub fn extras(&self) -> &DefinitionExtras {
        self.extras.as_deref().unwrap_or(&NO_EXTRAS)
    }

    /// The note for an error shown at this definition's own place when extension scripts
    /// changed it (say with `setFactory` or `setArguments`, whose values have no place of
    /// their own): "service 'x' was changed by extension 'e' in beforeCompile(); the value may
    /// come from there". `None` when no script changed it (built-in steps do not count).
    pub fn changed_by_scripts_note(&self) -> Option<String> {
        let scripts: Vec<String> = self
            .extras()
            .modified_by
            .iter()
            .filter(|a| !a.builtin)
            .map(|a| format!("extension '{}' in {}()", a.extension, a.method))
            .collect();
        (!scripts.is_empty()).then(|| {
            format!(
                "service '{}' was changed by {}; the value may come from there",
                self.name,
                scripts.join(", ")
            )
        })
    }

    /// The rarely set parts, to change; allocates them on first use (so call it only to set
    /// something).
    pub fn extras_mut(&mut self) -> &mut DefinitionExtras {
        self.extras.get_or_insert_with(Box::default)
    }

    /// Sets the creator from `entity` (a class, `Class::method`, `@service`, …) and arguments,
    /// like Nette's `setFactory`/`setCreator`.
    pub fn set_creator(&mut self, entity: &str, arguments: ExprArray) {
        self.creator = Some(Statement {
            callee: Callee::Name(entity.to_string()),
            arguments,
        });
    }

    /// The type for messages: resolved, declared, or the creator's name.
    pub fn type_for_messages(&self) -> Option<String> {
        self.resolved_type
            .clone()
            .or_else(|| self.declared_type.clone())
    }

    /// Nette's descriptor prefix: `Service 'repo' (type of App\Repo)`.
    pub fn descriptor(&self) -> String {
        match self.type_for_messages() {
            Some(t) => format!("Service '{}' (type of {t})", self.name),
            None => format!("Service '{}'", self.name),
        }
    }

    /// Is the name generated (`01`, `02`, …)?
    pub fn is_anonymous(&self) -> bool {
        is_generated_name(&self.name)
    }
}

/// Whether `name` has the shape of the names anonymous definitions get (`01`, `02`, …): only
/// digits. Such a name cannot be given to a definition (Nette's "not a number" rule).
pub(crate) fn is_generated_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
}
