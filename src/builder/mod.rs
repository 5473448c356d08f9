//! The `ContainerBuilder`: service definitions, type resolution, autowiring and completion.
//!
//! Mirrors Nette's `ContainerBuilder` (`../shared/reference/nette-di.md` §3–5, §16):
//! definitions are added by the `services:` section and by extensions in phase A; [`resolve`]
//! (phase B) gives every definition its type and builds the autowiring index; [`complete`]
//! turns every creator and setup into complete plan statements (arguments positional, autowired
//! arguments as references, defaults filled in). Errors are collected, not thrown, so one run
//! reports all of them.
//!
//! [`resolve`]: ContainerBuilder::resolve
//! [`complete`]: ContainerBuilder::complete

mod arguments;
mod asynchrony;
mod autowiring;
mod captives;
mod complete;
mod completed;
mod completing;
mod definition;
mod generated;
mod members;
mod origins;
mod resolve;
mod safety;
mod setup;
mod shape;

pub use autowiring::AutowiringIndex;
pub use captives::CaptivePath;
pub use completed::{Completed, CompletedParts};
pub(crate) use definition::is_generated_name;
pub use definition::{Actor, Autowired, Definition, DefinitionExtras, DefinitionKind, Removal};
pub use origins::{ArgumentOrigin, ArgumentSource, CallOrigin};

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Callee, Expr, ExprArray, Statement};
use crate::source::Span;
use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap};
use wireplan_runtime::plan::{self, Lifespan};

/// What [`ContainerBuilder::release`] hands back: the parts of a completed builder a plan is
/// built from.
#[derive(Debug)]
pub struct Released {
    /// What else the builder held (the catalog, the autowiring index, the name maps), to be
    /// freed where it costs the least: by a helper thread, or not at all when the process ends
    /// after compiling.
    pub rest: Rest,
    /// Name → definition, in definition order.
    pub definitions: IndexMap<String, Definition, FxBuildHasher>,
    /// Alias → service.
    pub aliases: IndexMap<String, String>,
    /// The completed initialization statements.
    pub initialization: Vec<plan::Expr>,
    /// Files registered with `addDependency`.
    pub dependencies: Vec<std::path::PathBuf>,
    /// The parameter names the completed statements call ([`ContainerBuilder::signatures`]).
    pub signatures: Vec<(plan::Name, plan::Name)>,
}

/// The rest of a released builder ([`ContainerBuilder::release`]): its catalog, autowiring
/// index and name maps, which a plan needs no longer. Dropping it frees them, on whichever
/// thread drops it; when the process ends after compiling
/// ([`crate::memory::process_ends_after_compiling`]) it is left to the operating system,
/// which takes it back faster than freeing it piece by piece.
#[derive(Debug)]
pub struct Rest(Option<ContainerBuilder>);

impl Rest {
    /// What is left of the builder: its catalog and autowiring index still answer (its
    /// definitions, aliases and other [`Released`] parts are gone). `None` only once dropped.
    pub fn builder(&self) -> Option<&ContainerBuilder> {
        self.0.as_ref()
    }
}

impl Drop for Rest {
    fn drop(&mut self) {
        if let Some(done) = self.0.take() {
            if crate::memory::process_ends_after_compiling() {
                std::mem::forget(done);
            }
        }
    }
}

/// Which phase the builder is in; decides whether lookups by type are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Phase A: definitions are being added; lookups by type see a partial graph.
    Loading,
    /// Types are being resolved: lookups by type are not allowed.
    Resolving,
    /// Types known, autowiring index built (phase B, `beforeCompile`).
    Resolved,
    /// Statements completed.
    Completed,
}

/// The container builder.
#[derive(Debug, Clone)]
pub struct ContainerBuilder {
    definitions: IndexMap<String, Definition, FxBuildHasher>,
    /// Lower-cased name → name, for the names that have capitals (the others are their own
    /// lower-cased form: most services), to refuse names that differ only in letter case.
    lower_names: FxHashMap<String, String>,
    aliases: IndexMap<String, String>,
    /// Where an alias was added, when a script added it (`addAlias` at its call), for the
    /// error of an alias to a missing service.
    alias_spans: FxHashMap<String, Span>,
    anonymous_counter: usize,
    /// The type catalog used for resolution; shared, so a `--watch` recompilation can reuse
    /// the catalog of the one before without a copy ([`crate::config::DecodedFiles`]).
    pub catalog: std::sync::Arc<Catalog>,
    /// Static parameters (for `getParameters`).
    pub parameters: IndexMap<String, Expr>,
    /// Statements run when the container starts (`this.initialization.addBody(...)`).
    pub initialization: Vec<Expr>,
    /// The completed initialization statements (after [`ContainerBuilder::complete`]).
    pub initialization_completed: Vec<plan::Expr>,
    /// The parameter names of the constructors and methods the completed statements call
    /// (`App\Repo` or `App\Repo::connect` → names joined by `", "`), in the order
    /// completed, repeats included: the plan's `signatures` section keeps the first of each
    /// (plan version 4). Filled by [`ContainerBuilder::complete`].
    pub signatures: Vec<(plan::Name, plan::Name)>,
    /// Whether a completed statement may read a dynamic parameter (set by
    /// [`ContainerBuilder::complete`]): `false` only when none does, so the plan's `dynamic`
    /// section need not look for reads in the services' statements (true also for a read
    /// an error dropped).
    pub reads_dynamic: bool,
    /// Files registered with `addDependency`, for dev-mode rebuilds.
    pub dependencies: Vec<std::path::PathBuf>,
    /// Whether [`ContainerBuilder::complete`] keeps how each argument was filled
    /// ([`Completed::calls`], what `explain` shows). On by default; a plain compilation, which
    /// only writes the plan, turns it off to save memory (the plan is the same).
    pub record_origins: bool,
    phase: Phase,
    index: AutowiringIndex,
    dirty: bool,
    /// Changes made through the methods that change definitions, aliases or exclusions.
    edits: u64,
    /// Types were resolved silently (by a lookup) after the last reporting
    /// [`ContainerBuilder::resolve`]: their errors are still to be reported.
    unreported: bool,
    excluded: std::collections::HashSet<String>,
    actor: Option<Actor>,
    /// Extension calls that reported an error ([`ContainerBuilder::mark_stopped`]): what
    /// they added may be unfinished, which later errors about it say.
    stopped: Vec<Actor>,
    removed: IndexMap<String, Removal>,
    /// Names refused by [`check_name`] (`my logger`), with where they were written: a
    /// reference to one says that its error follows from that one.
    refused: FxHashMap<String, Option<Span>>,
    /// The names of the `services:` section, set before phase A's scripts run (the section
    /// is loaded after them): a lookup there tells a later service from none.
    upcoming: Option<rustc_hash::FxHashSet<String>>,
}

/// A given service name must match `^\w+(\.\w+)*$` and not be a number (Nette's rule):
/// else `invalid-definition` at `span`.
fn check_name(n: &str, span: Option<Span>) -> Result<(), Diagnostic> {
    let valid = !n.is_empty()
        && n.split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'))
        && !definition::is_generated_name(n);
    if valid {
        return Ok(());
    }
    // A control character, tab or line break in the name is shown escaped, so it cannot break
    // the message; a backslash is shown as written (`App\Db`).
    let shown = crate::diagnostics::visible_text(n)
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r");
    let d = Diagnostic::error(
        Code::InvalidDefinition,
        // Nette's wording.
        format!("Service name must be a alpha-numeric string and not a number, '{shown}' given."),
    )
    .at(span);
    Err(if definition::is_generated_name(n) {
        d.with_note(
            "names made only of digits are those anonymous services get (01, 02, … in order)",
        )
    } else if n.contains('\\') {
        // A class written where the name goes (`App\Db: ~`, Symfony's way of naming services).
        d.with_note(format!(
            "a service's name comes first and its class after it: `name: {shown}`, or `- {shown}` for a service without a name"
        ))
    } else {
        d
    })
}

impl ContainerBuilder {
    /// An empty builder over a catalog.
    pub fn new(catalog: impl Into<std::sync::Arc<Catalog>>) -> ContainerBuilder {
        let catalog = catalog.into();
        ContainerBuilder {
            definitions: IndexMap::default(),
            lower_names: FxHashMap::default(),
            aliases: IndexMap::new(),
            alias_spans: FxHashMap::default(),
            anonymous_counter: 0,
            record_origins: true,
            catalog,
            parameters: IndexMap::new(),
            initialization: Vec::new(),
            initialization_completed: Vec::new(),
            signatures: Vec::new(),
            reads_dynamic: true,
            dependencies: Vec::new(),
            phase: Phase::Loading,
            index: AutowiringIndex::default(),
            dirty: true,
            edits: 0,
            unreported: false,
            excluded: std::collections::HashSet::new(),
            actor: None,
            stopped: Vec::new(),
            removed: IndexMap::new(),
            refused: FxHashMap::default(),
            upcoming: None,
        }
    }

    /// Excludes types from autowiring (Nette's `addExcludedClasses`, `di › excluded`):
    /// excluding a type also excludes its parents and interfaces.
    pub fn add_excluded_classes(&mut self, types: &[String]) {
        for t in types {
            for a in self.catalog.ancestors(t) {
                self.excluded.insert(a.to_ascii_lowercase());
            }
        }
        self.dirty = true;
        self.edits += 1;
    }

    /// Appends a statement to the container's initialization (Nette's
    /// `$initialize->addBody()`, an extension's `this.initialization.addBody()`); counts as
    /// an edit ([`ContainerBuilder::edits`]).
    pub fn add_initialization(&mut self, statement: Expr) {
        self.initialization.push(statement);
        self.edits += 1;
    }

    /// How many changes were made through the builder's changing methods (adding, changing
    /// or removing a definition, adding or removing an alias, excluding types); it only
    /// grows. Lookups, [`ContainerBuilder::resolve`] and [`ContainerBuilder::complete`] do
    /// not count. Compare two readings to tell whether code changed the builder (the REPL
    /// counts the inputs that did).
    pub fn edits(&self) -> u64 {
        self.edits
    }

    /// Is `ty` excluded from autowiring?
    pub fn is_excluded(&self, ty: &str) -> bool {
        // Most configurations exclude nothing: no lower-cased copy per lookup then.
        !self.excluded.is_empty() && self.excluded.contains(&ty.to_ascii_lowercase())
    }

    /// Sets who makes the next changes (an extension's method while it runs; `None` after).
    /// Definitions added meanwhile record it as their origin, changed ones in `modified_by`,
    /// removed ones in [`ContainerBuilder::removed`].
    pub fn set_actor(&mut self, actor: Option<Actor>) {
        self.actor = actor;
    }

    /// Who is changing the builder now, if an extension or built-in step.
    pub fn actor(&self) -> Option<&Actor> {
        self.actor.as_ref()
    }

    /// Records that `actor` (an extension's lifecycle call) reported an error, so a
    /// definition it added may be unfinished (a `setFactory()` that failed leaves one with no
    /// creator): errors about such a definition then say they may follow from it.
    pub fn mark_stopped(&mut self, actor: Actor) {
        if !self.stopped.contains(&actor) {
            self.stopped.push(actor);
        }
    }

    /// The note for an error about `def` when the extension call that added it
    /// reported an error ([`ContainerBuilder::mark_stopped`]).
    pub(crate) fn stopped_note(&self, def: &Definition) -> Option<String> {
        let origin = def.extras().origin.as_ref()?;
        self.stopped.contains(origin).then(|| {
            format!(
                "extension '{}' added this service in {}(), which reported an error (above) \
                 and may have left it unfinished: this may follow from that error",
                origin.extension, origin.method
            )
        })
    }

    /// The note for a service that autowiring found none of, when extension scripts reported
    /// errors ([`ContainerBuilder::mark_stopped`]): a service one of them would have added may
    /// be missing because of that error, not because the configuration lacks it. `None` when
    /// every script ran clean.
    pub(crate) fn stopped_extensions_note(&self) -> Option<String> {
        let scripts: Vec<String> = self
            .stopped
            .iter()
            .filter(|a| !a.builtin)
            .map(|a| match a.method.as_str() {
                "" => format!("'{}' (failed to load)", a.extension),
                "getConfigSchema" => format!(
                    "'{}' (its configuration section did not pass its schema, so it did not run)",
                    a.extension
                ),
                m => format!("'{}' (in {m}())", a.extension),
            })
            .collect();
        (!scripts.is_empty()).then(|| {
            format!(
                "extension {} reported an error (above): a service it would have registered \
                 may be missing because of it",
                scripts.join(", ")
            )
        })
    }

    /// Services removed with `removeDefinition` (name → who removed it, and where), in order.
    /// A service added again later is taken out of this list.
    pub fn removed(&self) -> &IndexMap<String, Removal> {
        &self.removed
    }

    /// Records the service names of the `services:` section before it is loaded (phase A).
    pub(crate) fn expect_services(&mut self, names: impl IntoIterator<Item = String>) {
        self.upcoming = Some(names.into_iter().collect());
    }

    /// Whether the `services:` section defines `name`, as recorded before phase A (asked while
    /// phase A's scripts run, before the section is loaded); `None` when it was not recorded
    /// (no extension is registered).
    pub(crate) fn upcoming_service(&self, name: &str) -> Option<bool> {
        self.upcoming.as_ref().map(|names| names.contains(name))
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Makes room for `additional` more definitions at once (a `services:` section of known
    /// size), instead of growing the table by doubling as they are added. Exactly that many:
    /// `reserve` would size the entries to the hash table's capacity (up to 75 % more, each
    /// entry a whole [`Definition`]).
    pub fn reserve_definitions(&mut self, additional: usize) {
        self.definitions.reserve_exact(additional);
    }

    /// Adds a definition. `None` gives the next anonymous name (`01`, `02`, …). Names must match
    /// `^\w+(\.\w+)*$`, not be numeric (unless generated), and differ from every existing name
    /// in more than letter case.
    ///
    /// Errors: `invalid-definition` for a bad name, `duplicate-service` for an existing name
    /// (also case-insensitively). Name checks use a hash map, so adding N services is O(N).
    pub fn add_definition(
        &mut self,
        name: Option<&str>,
        span: Option<Span>,
    ) -> Result<&mut Definition, Diagnostic> {
        let name = match name {
            Some(n) => {
                if let Err(d) = check_name(n, span) {
                    self.refused.insert(n.to_string(), span);
                    return Err(d);
                }
                n.to_string()
            }
            None => {
                self.anonymous_counter += 1;
                format!("{:02}", self.anonymous_counter)
            }
        };
        self.admit(&name, span)?;
        let def = self.detached_definition(name.clone(), span);
        Ok(self.definitions.entry(name).or_insert(def))
    }

    /// Adds `def`, made ahead on a [`ContainerBuilder::detached_definition`], under its name
    /// as [`ContainerBuilder::add_definition`] adds a named definition: the same checks and
    /// errors (then `def` is dropped), the same result.
    pub(crate) fn add_detached(&mut self, def: Definition) -> Result<(), Diagnostic> {
        if let Err(d) = check_name(&def.name, def.span) {
            self.refused.insert(def.name.clone(), def.span);
            return Err(d);
        }
        self.admit(&def.name, def.span)?;
        self.definitions.insert(def.name.clone(), def);
        Ok(())
    }

    /// Makes room for a new definition `name`: `duplicate-service` when a definition has that
    /// name (also case-insensitively), else the name is recorded as taken.
    fn admit(&mut self, name: &str, span: Option<Span>) -> Result<(), Diagnostic> {
        let lower = name.to_lowercase();
        // An existing name equal to `lower` is a definition's key itself; one with capitals
        // is found through `lower_names`.
        let existing = match self.definitions.get_key_value(&lower) {
            Some((key, _)) => Some(key),
            None => self.lower_names.get(&lower),
        };
        if let Some(existing) = existing {
            let msg = if *existing == name {
                format!("Service '{name}' has already been added.")
            } else {
                format!("Service '{name}' has the same name as '{existing}' in a case-insensitive manner.")
            };
            let mut d = Diagnostic::error(Code::DuplicateService, msg).at(span);
            // Which extension wrote the first one, as well as where: two extensions may run
            // the same script (a new user's trial).
            if let Some(prev) = self.definitions.get(existing) {
                let by = prev
                    .extras()
                    .origin
                    .as_ref()
                    .map(Actor::by)
                    .unwrap_or_default();
                d = match prev.span {
                    Some(at) => d.with_secondary(at, format!("first defined here{by}")),
                    None if !by.is_empty() => d.with_note(format!("first defined{by}")),
                    None => d,
                };
            }
            return Err(d);
        }
        if lower != name {
            self.lower_names.insert(lower, name.to_string());
        }
        self.dirty = true;
        self.edits += 1;
        self.removed.shift_remove(name);
        Ok(())
    }

    /// The empty definition [`ContainerBuilder::add_definition`] adds under `name` (its origin
    /// is the current actor), not yet in the builder: the `services:` section's entries are
    /// made on such definitions ahead, on other threads, and added in order afterwards
    /// (`compiler::loading`).
    pub(crate) fn detached_definition(&self, name: String, span: Option<Span>) -> Definition {
        Definition::made_by(name, span, self.actor.as_ref())
    }

    fn real_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.aliases.get(name).map(String::as_str).unwrap_or(name)
    }

    /// The definition named `name` (aliases followed).
    pub fn get_definition(&self, name: &str) -> Option<&Definition> {
        self.definitions.get(self.real_name(name))
    }

    /// The definition named `name`, mutably.
    pub fn get_definition_mut(&mut self, name: &str) -> Option<&mut Definition> {
        let real = self.real_name(name).to_string();
        self.dirty = true;
        self.edits += 1;
        let actor = self.actor.clone();
        let def = self.definitions.get_mut(&real)?;
        if let Some(a) = actor {
            let extras = def.extras();
            if extras.origin.as_ref() != Some(&a) && !extras.modified_by.contains(&a) {
                def.extras_mut().modified_by.push(a);
            }
        }
        Some(def)
    }

    /// Is there a definition (or alias) named `name`?
    pub fn has_definition(&self, name: &str) -> bool {
        self.definitions.contains_key(self.real_name(name))
    }

    /// Removes a definition; silent when it does not exist (as in Nette).
    pub fn remove_definition(&mut self, name: &str) {
        self.remove_definition_at(name, None);
    }

    /// Removes a definition like [`ContainerBuilder::remove_definition`], recording who removed
    /// it (the current actor) and where (`span`: the script's call), for `explain --needed-by`.
    pub fn remove_definition_at(&mut self, name: &str, span: Option<Span>) {
        let real = self.real_name(name).to_string();
        if let Some(def) = self.definitions.shift_remove(&real) {
            self.lower_names.remove(&real.to_lowercase());
            self.dirty = true;
            self.edits += 1;
            // Before resolution (phase A) a plain class creator still tells the type.
            let creator_class = match def.creator.as_ref().map(|c| &c.callee) {
                Some(Callee::Name(n)) if self.catalog.exists(n) => {
                    Some(self.catalog.canonical(n).to_string())
                }
                _ => None,
            };
            let removal = Removal {
                actor: self.actor.clone(),
                span,
                type_: def.type_for_messages().or(creator_class),
            };
            self.removed.insert(real, removal);
        }
    }

    /// Adds an alias. Errors: `duplicate-service` when the alias is already a service or an
    /// alias (`Alias 'x' has already been added.`).
    pub fn add_alias(&mut self, alias: &str, service: &str) -> Result<(), Diagnostic> {
        self.add_alias_at(alias, service, None)
    }

    /// [`add_alias`](Self::add_alias), remembering where it was added (a script's call): an
    /// alias to a missing service is reported there, and so are the errors of adding it.
    pub fn add_alias_at(
        &mut self,
        alias: &str,
        service: &str,
        span: Option<Span>,
    ) -> Result<(), Diagnostic> {
        let valid = !alias.is_empty()
            && alias
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
        if !valid {
            return Err(Diagnostic::error(
                Code::InvalidDefinition,
                format!(
                    "Alias name must be an alphanumeric name like a service's, '{alias}' given."
                ),
            )
            .at(span));
        }
        // Nette's two messages: the name is taken by a service, or by an alias.
        if self.definitions.contains_key(alias) {
            return Err(Diagnostic::error(
                Code::DuplicateService,
                format!("Service '{alias}' has already been added."),
            )
            .with_note("an alias needs a name no service has")
            .at(span));
        }
        if self.aliases.contains_key(alias) {
            return Err(Diagnostic::error(
                Code::DuplicateService,
                format!("Alias '{alias}' has already been added."),
            )
            .at(span));
        }
        self.aliases.insert(alias.to_string(), service.to_string());
        if let Some(span) = span {
            self.alias_spans.insert(alias.to_string(), span);
        }
        self.edits += 1;
        Ok(())
    }

    /// Removes an alias; silent when it does not exist.
    pub fn remove_alias(&mut self, alias: &str) {
        self.alias_spans.remove(alias);
        if self.aliases.shift_remove(alias).is_some() {
            self.edits += 1;
        }
    }

    /// All aliases.
    pub fn aliases(&self) -> &IndexMap<String, String> {
        &self.aliases
    }

    /// All definitions in order.
    pub fn definitions(&self) -> impl Iterator<Item = &Definition> {
        self.definitions.values()
    }

    /// Moves the completed statements (create, setup, tags, references, factory parameters)
    /// out of every definition, one item per definition in definition order, so the plan can
    /// be built without copying them. Each definition keeps its [`Completed::calls`] (the
    /// plan's `dynamic` section reads them) and is left with a `null` create and nothing
    /// else. For a builder that is done: a plain compilation after phase B.
    pub fn take_completed(&mut self) -> Vec<Option<Completed>> {
        self.definitions
            .values_mut()
            .map(|d| d.completed.as_mut().map(|c| c.take_parts()))
            .collect()
    }

    /// Empties the builder (as [`ContainerBuilder::new`] over an empty catalog) and hands
    /// back what a plan is built from: the definitions, by value, the aliases, the completed
    /// initialization and the `addDependency` files. Everything else (the catalog, the
    /// autowiring index, the name maps) is handed back as [`Released::rest`], for the caller
    /// to free where it costs the least. For a builder that is done and that nothing inspects
    /// afterwards: a plain compilation without extensions, after phase B.
    pub fn release(&mut self) -> Released {
        let mut done = std::mem::replace(self, ContainerBuilder::new(Catalog::default()));
        Released {
            definitions: std::mem::take(&mut done.definitions),
            aliases: std::mem::take(&mut done.aliases),
            initialization: std::mem::take(&mut done.initialization_completed),
            dependencies: std::mem::take(&mut done.dependencies),
            signatures: std::mem::take(&mut done.signatures),
            rest: Rest(Some(done)),
        }
    }

    /// Service name → tag value for every definition carrying `tag`, in definition order
    /// (works in every phase). As Nette's `findByTag` (an `isset` test), a tag whose value is
    /// `null` does not count; `false` does.
    pub fn find_by_tag(&self, tag: &str) -> IndexMap<String, Expr> {
        self.definitions
            .values()
            .filter_map(|d| d.tags.get(tag).map(|v| (d.name.clone(), v.clone())))
            .filter(|(_, v)| !v.is_null())
            .collect()
    }

    /// The single preferred autowired service of `type_`, like Nette's `getByType`.
    ///
    /// `Ok(None)` when there is none; `Err` with `ambiguous-service` when there are several, or
    /// `not-allowed-during-resolving` while types are being resolved. In phase A the index is
    /// rebuilt from the definitions added so far (the caller warns about the partial graph).
    pub fn get_by_type(&mut self, type_: &str) -> Result<Option<String>, Diagnostic> {
        self.ensure_index()?;
        let mut names = self.index.high(type_);
        match names.len() {
            0 => Ok(None),
            1 => Ok(names.next().map(String::from)),
            _ => Err(ambiguous(
                type_,
                &names.map(String::from).collect::<Vec<_>>(),
            )),
        }
    }

    /// Names of every definition whose type is `type_` or a subtype, ignoring autowiring
    /// (Nette's `findByType`).
    pub fn find_by_type(&mut self, type_: &str) -> Result<Vec<String>, Diagnostic> {
        self.ensure_index()?;
        Ok(self
            .definitions
            .values()
            .filter(|d| {
                d.resolved_type
                    .as_deref()
                    .is_some_and(|t| self.catalog.is_subtype(t, type_))
            })
            .map(|d| d.name.clone())
            .collect())
    }

    /// Brings types and the autowiring index up to date after definitions changed (silently:
    /// errors are reported by [`ContainerBuilder::resolve`] and [`ContainerBuilder::complete`]).
    pub fn refresh(&mut self) {
        if self.phase != Phase::Resolving {
            let _ = self.ensure_index();
        }
    }

    fn ensure_index(&mut self) -> Result<(), Diagnostic> {
        if self.phase == Phase::Resolving {
            return Err(Diagnostic::error(
                Code::NotAllowedDuringResolving,
                "Lookup by type is not allowed while types are being resolved.",
            ));
        }
        if self.dirty {
            // Resolution errors are reported by the real `resolve()` of phase B.
            self.resolve_types(&mut Diagnostics::new());
            self.index = AutowiringIndex::build(self, &mut Diagnostics::new());
            self.dirty = false;
            self.unreported = true;
        }
        Ok(())
    }

    /// `missing-service` for each alias whose target is not a definition (an alias to an alias
    /// gets a note saying that an alias must name a service).
    fn check_aliases(&self, diags: &mut Diagnostics) {
        for (alias, target) in &self.aliases {
            if !self.definitions.contains_key(target) {
                let mut d = Diagnostic::error(
                    Code::MissingService,
                    format!("Alias '{alias}' refers to missing service '{target}'."),
                )
                .at(self.alias_spans.get(alias).copied());
                if self.aliases.contains_key(target) {
                    d = d.with_note("An alias must name a service, not another alias.");
                }
                diags.push(d);
            }
        }
    }

    /// Resolves every definition's type and builds the autowiring index (start of phase B).
    /// Errors (`class-not-found`, `invalid-definition`, `invalid-autowired`, …) go to `diags`.
    pub fn resolve(&mut self, diags: &mut Diagnostics) {
        self.check_aliases(diags);
        self.add_reference_services(None);
        self.phase = Phase::Resolving;
        let index = self.resolve_types_and_index(diags);
        self.phase = Phase::Resolved;
        self.index = index;
        self.dirty = false;
        self.unreported = false;
    }

    /// Names of the services whose creation needs async (the plan's `requires_async`): a
    /// `$new` of a class the catalog marks `async: true`, or a dependency that needs async,
    /// transitively (Clean IoC 2's compiled flag). Generated services and `Provider<T>`
    /// handles create later and end a path. Needs completed definitions.
    pub fn async_services(&self) -> std::collections::HashSet<String> {
        asynchrony::requires_async(self)
    }

    /// Why the service `name` needs async (see [`ContainerBuilder::async_services`]): the path
    /// of services from it to the one that calls an async constructor (`name` first), and that
    /// constructor's class; `None` when it does not. Needs completed definitions.
    pub fn async_path(&self, name: &str) -> Option<(Vec<String>, String)> {
        asynchrony::async_path(self, name)
    }

    /// For a generated factory whose product needs async (its `create()` is `AsyncRequired`,
    /// `create_async` makes it): the path from the factory to the service that calls the
    /// async constructor, and its class; `None` for other services and products.
    pub fn product_async_path(&self, name: &str) -> Option<(Vec<String>, String)> {
        asynchrony::product_async_path(self, name)
    }

    /// The captive-dependency paths of the service `name` ([`CaptivePath::words`]: `name -> …
    /// -> scoped`, with `provider` before a service reached through a `Provider<T>`), by the
    /// rule `complete`
    /// checks (Clean IoC 2: a singleton must not hold a scoped service, directly, through
    /// transients or through a handle, which a singleton holds outside any scope). Empty when
    /// the lifespan is allowed. Needs completed definitions.
    pub fn captive_paths(&self, name: &str) -> Vec<CaptivePath> {
        let hop = captives::hops(self);
        captives::captive_paths(self, &hop, name)
    }

    /// The autowiring index (valid after [`ContainerBuilder::resolve`]).
    pub fn autowiring(&self) -> &AutowiringIndex {
        &self.index
    }

    /// Completes every definition (end of phase B): creators and setups become plan statements
    /// with positional, complete, autowired arguments; constructor cycles are reported.
    pub fn complete(&mut self, diags: &mut Diagnostics) {
        if !(self.dirty || self.unreported) {
            // Aliases added in `beforeCompile` change no definition, so nothing is resolved
            // again: check them here (the runtime refuses an alias to nothing), without
            // repeating what the resolution already reported.
            let mut again = Diagnostics::new();
            self.check_aliases(&mut again);
            for d in again.into_vec() {
                if !diags.items().contains(&d) {
                    diags.push(d);
                }
            }
        }
        if self.dirty || self.unreported {
            // Definitions changed in `beforeCompile` (and may have been resolved silently by a
            // lookup since): resolve again, reporting only what the first resolution did not
            // already report.
            let mut again = Diagnostics::new();
            self.resolve(&mut again);
            // Reported already: looked up by code and message, then compared whole (a scan of
            // every earlier diagnostic per new one was quadratic: 40,000 definitions a script
            // left without a factory took 4.9 s).
            let mut seen: std::collections::HashMap<
                (crate::diagnostics::Code, String),
                Vec<usize>,
            > = std::collections::HashMap::new();
            for (i, d) in diags.items().iter().enumerate() {
                seen.entry((d.code, d.message.clone())).or_default().push(i);
            }
            for d in again.into_vec() {
                let key = (d.code, d.message.clone());
                // The same error at the same place counts as known even when a note was added
                // since ("service 'x' was changed by extension …": a script's `addSetup` on a
                // service whose class was misspelt repeated the resolution's error with that
                // note, sending the user to the script; a new user's trial).
                let known = seen.get(&key).is_some_and(|at| {
                    at.iter().any(|&i| {
                        let before = &diags.items()[i];
                        before.severity == d.severity && before.labels == d.labels
                    })
                });
                if !known {
                    seen.entry(key).or_default().push(diags.items().len());
                    diags.push(d);
                }
            }
        }
        complete::complete_all(self, diags);
        self.phase = Phase::Completed;
    }
}

/// Diagnostics about a definition's creator that `resolve` and `complete` report at the whole
/// definition (they have no place of their own) underlined every line of a definition written
/// as a block (`create:`, `tags:`, `setup:` …). Each diagnostic from the `from`-th on at the
/// definition's span asks to be narrowed to the creator as written: `App\Mailer`,
/// `App\Clock::make`, `@clock::now` ([`Diagnostics::narrow_to_focus`], at the end of phase B,
/// which leaves a span alone when the name is not written in it). The caller reports only
/// about the creator between `from` and now; a creator an extension set has a place of its
/// own and is left alone.
pub(crate) fn focus_on_creator(def: &Definition, diags: &mut Diagnostics, from: usize) {
    let Some(Callee::Name(name)) = def.creator.as_ref().map(|c| &c.callee) else {
        return;
    };
    if def.span.is_none() || name.is_empty() || def.extras().creator_at.is_some() {
        return;
    }
    for d in diags.since_mut(from) {
        if d.focus.is_none() && d.primary_span() == def.span {
            d.focus = Some(name.trim_start_matches('\\').to_string());
        }
    }
}

fn ambiguous(type_: &str, names: &[String]) -> Diagnostic {
    let mut sorted = names.to_vec();
    sorted.sort();
    let mut msg = format!(
        "Multiple services of type {type_} found: {}",
        sorted.join(", ")
    );
    if sorted.len() == 2 && sorted.iter().filter(|n| n.contains('.')).count() == 1 {
        let ext = sorted
            .iter()
            .find(|n| n.contains('.'))
            .cloned()
            .unwrap_or_default();
        msg.push_str(&format!(
            ". If you want to overwrite service {ext}, give it proper name."
        ));
    }
    Diagnostic::error(Code::AmbiguousService, msg)
}

#[cfg(test)]
mod tests;
