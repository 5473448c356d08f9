//! The type catalog: what wireplan knows about the application's classes.
//!
//! Nette learns class shapes from PHP reflection; wireplan reads them from the `types:` section
//! (format in ARCHITECTURE.md, "The type catalog"): classes and interfaces, parents, implemented
//! interfaces, constructor and method signatures, properties and constants. Class names are
//! compared case-insensitively, as PHP does, and a leading `\` is ignored.
//!
//! The catalog is compact (issue #13: the largest part of a large compilation's memory was the
//! catalog): every name and type text is interned while reading, so one class name is stored
//! once however many parameters, parents and lookups name it ([`Name`]); a type string is
//! parsed once and shared ([`Ty`]); members are boxed slices rather than a hash table per
//! class ([`Members`]); defaults are boxed; classes sit in one FxHash-indexed table keyed
//! case-insensitively.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::Expr;
use crate::neon::Key;
use crate::source::Span;
use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;

mod checks;
mod file;
mod json;
mod members;
mod merge;
mod names;
mod node;
mod parse;
mod types;

use crate::neon::Light;
pub use file::{load_inputs, neon_catalog_to_json, CatalogInput, REGISTRY_CATALOG};
pub use members::Members;
pub use names::Name;
pub(crate) use names::{hash_caseless, same_name};
pub use node::reads_as_decoded;
pub(crate) use types::bare_name;
pub use types::{is_builtin, normalize_name, IndexSlot, Ty, TypeRef, BUILTIN_TYPES};

use names::{Caseless, ClassKey, Interner};
use parse::{key_text, parse_class, NullDefault};

/// A parameter of a constructor or method.
#[derive(Debug, Clone)]
pub struct Param {
    /// Name without `$`.
    pub name: Name,
    /// Declared type (`mixed` when none), shared with every use of the same type text.
    pub ty: Ty,
    /// The default value, when the parameter is optional (boxed: most parameters have none).
    pub default: Option<Box<Expr>>,
    /// Collects all remaining arguments.
    pub variadic: bool,
}

/// A method signature.
#[derive(Debug, Clone, Default)]
pub struct Method {
    /// Parameters in order.
    pub params: Box<[Param]>,
    /// Declared return type, if any.
    pub returns: Option<Ty>,
    /// Is it static?
    pub is_static: bool,
}

/// A property.
#[derive(Debug, Clone)]
pub struct Property {
    /// Declared type.
    pub ty: Ty,
    /// Filled by the inject extension.
    pub inject: bool,
}

/// One class or interface.
#[derive(Debug, Clone)]
pub struct ClassInfo {
    /// Full name as declared (without leading `\`).
    pub name: Name,
    /// Span of the declaration key.
    pub span: Option<Span>,
    /// Is it an interface?
    pub interface: bool,
    /// Is it abstract?
    pub is_abstract: bool,
    /// `async: true`: its constructor is async, so every service whose creation reaches it
    /// requires async (docs/async.md).
    pub is_async: bool,
    /// `constructor: private`: the class cannot be created with `new` (Nette: a class whose
    /// constructor is not public). A `Registry` exports a class registered without a
    /// constructor this way; such a service is created by a factory method, or is a scope
    /// slot or an imported service.
    pub private_constructor: bool,
    /// Parent class (for interfaces: parent interfaces).
    pub extends: Box<[Name]>,
    /// Implemented interfaces.
    pub implements: Box<[Name]>,
    /// Constructor parameters (empty when the class has none).
    pub constructor: Box<[Param]>,
    /// Methods by name, in declaration order.
    pub methods: Members<Method>,
    /// Properties by name, in declaration order.
    pub properties: Members<Property>,
    /// Constants by name, in declaration order.
    pub constants: Members<Expr>,
}

/// Builds a [`Catalog`] from the entries of a `types:` section one at a time, so a large
/// section never has to exist whole as an expanded tree (see
/// [`crate::config::expand_config_streaming`]). Reports exactly what
/// [`Catalog::from_section`] reports, in the same order: the entries' own problems, then
/// references to unknown types and defaults that do not fit.
#[derive(Debug, Default)]
pub struct CatalogStream {
    cat: Catalog,
    names: Interner,
    pending: Vec<NullDefault>,
    diags: Diagnostics,
    /// Where each class of `cat` was declared (its key, else its value), in the table's order:
    /// a class declared again points at the first declaration's key.
    declared_at: Vec<Option<Span>>,
    /// The checks across entries ran ([`CatalogStream::settle`]); their problems are in
    /// `diags`, after the entries' own.
    settled: bool,
}

impl CatalogStream {
    /// An empty stream.
    pub fn new() -> CatalogStream {
        CatalogStream::default()
    }

    /// Makes room for `classes` more classes (the entries of a `types:` section about to be
    /// streamed), so the class table and the name interner are allocated once at their size
    /// instead of grown by doubling into fresh pages.
    pub fn reserve(&mut self, classes: usize) {
        self.cat.classes.reserve(classes);
        self.names.reserve(classes);
    }

    /// Adds the entry `key: value` of the `types:` section (a malformed one is reported when
    /// the stream finishes, the rest of it kept).
    pub fn add(&mut self, key: &Key, key_span: Option<Span>, value: &Expr) {
        self.add_node(key, key_span, value);
    }

    /// [`CatalogStream::add`] for an entry as it was decoded, one for which
    /// [`reads_as_decoded`] holds: the same class and problems as adding its expansion,
    /// without making that expansion.
    pub fn add_decoded(&mut self, key: &Key, key_span: Option<Span>, value: &crate::neon::Value) {
        debug_assert!(reads_as_decoded(key, value));
        self.add_node(key, key_span, value);
    }

    /// [`CatalogStream::add_decoded`] for an entry read by the lighter decode of a `types:`
    /// file ([`crate::neon::Light`], which holds no entity; the file has no `%`): the same
    /// class and problems as adding the entry [`crate::neon::decode`] gives.
    pub(crate) fn add_light(&mut self, key: &Key, key_span: Option<Span>, value: &Light) {
        self.add_node(key, key_span, value);
    }

    /// `key_span`: where the key is written (problems with the class name are reported there);
    /// taken for string keys only, as the section's expansion records no span for others.
    fn add_node<N: node::Node>(&mut self, key: &Key, key_span: Option<Span>, value: &N) {
        debug_assert!(
            !self.settled,
            "an entry added after the checks across entries"
        );
        let (info, at) = read_entry(
            &mut self.names,
            key,
            key_span,
            value,
            &mut self.diags,
            &mut self.pending,
        );
        self.place(key, info, at);
    }

    /// Puts the class `info`, read from the entry `key` and declared at `at`, into the table,
    /// unless the section declared it before (then the first declaration stays and the
    /// second is reported).
    fn place(&mut self, key: &Key, info: ClassInfo, at: Option<Span>) {
        match self.cat.add_first(info) {
            None => self.declared_at.push(at),
            Some(first) => {
                let first_at = self.declared_at.get(first).copied().flatten();
                let first_name = self.cat.classes[first].name.clone();
                self.diags.push(declared_twice(
                    "the `types:` section",
                    &first_name,
                    first_at,
                    &key_text(key),
                    at,
                ));
            }
        }
    }

    /// Adds the entries of `part`, read apart from this stream, as if they were added here
    /// one by one after the entries before them: the same classes, and the same problems in
    /// the same order (each entry's own problems, then a second declaration of a class).
    pub fn append(&mut self, part: CatalogPart) {
        debug_assert!(
            !self.settled,
            "a part added after the checks across entries"
        );
        let mut diags = part.diags.into_vec().into_iter();
        let mut taken = 0;
        for entry in part.entries {
            self.diags
                .extend(diags.by_ref().take(entry.diags_end - taken));
            taken = entry.diags_end;
            self.place(&entry.key, entry.info, entry.at);
        }
        self.pending.extend(part.pending);
    }

    /// Runs the checks across entries now (references to unknown types, `null` defaults),
    /// keeping their problems after the entries' own, and seals the class table: on the
    /// catalog's own thread once every entry is in, so the thread that waits for the catalog
    /// does not do it. No entry may be added afterwards.
    pub fn settle(&mut self) {
        if self.settled {
            return;
        }
        self.settled = true;
        self.cat.check_references(&mut self.diags);
        self.cat.check_null_defaults(&self.pending, &mut self.diags);
        self.pending = Vec::new();
        self.cat.seal();
    }

    /// The catalog, after the checks across entries ([`CatalogStream::settle`], unless they
    /// ran already); every problem goes to `diags`, the entries' own first.
    pub fn finish(mut self, diags: &mut Diagnostics) -> Catalog {
        self.settle();
        diags.extend(self.diags.into_vec());
        self.cat
    }
}

/// Entries of a `types:` section read apart from the [`CatalogStream`] they belong to (on
/// another thread), to be added to it in their place with [`CatalogStream::append`]. Each
/// entry is parsed here as the stream parses it; only whether a class was declared before
/// is left to the stream, which knows the entries before it.
#[derive(Debug, Default)]
pub struct CatalogPart {
    names: Interner,
    pending: Vec<NullDefault>,
    diags: Diagnostics,
    entries: Vec<PartEntry>,
}

/// One entry of a [`CatalogPart`]: its key, its class, where it was declared, and how many of
/// the part's problems were reported up to and including it.
#[derive(Debug)]
struct PartEntry {
    key: Key,
    info: ClassInfo,
    at: Option<Span>,
    diags_end: usize,
}

impl CatalogPart {
    /// An empty part.
    pub fn new() -> CatalogPart {
        CatalogPart::default()
    }

    /// Drops the part's name table, which only reading its entries needs, so that it is freed
    /// by the thread that read the part (the one that allocated it) rather than by the one
    /// that appends the part, which waits for the catalog ([`CatalogStream::append`] reads
    /// the classes, problems and pending checks only). Call it once the part's last entry is
    /// read: an entry read after it shares no names with those before.
    pub fn done_reading(&mut self) {
        self.names = Interner::default();
    }

    /// Reads the entry `key: value` as [`CatalogStream::add`] would.
    pub fn add(&mut self, key: Key, key_span: Option<Span>, value: &Expr) {
        self.add_node(key, key_span, value);
    }

    /// Reads the entry `key: value`, as decoded, as [`CatalogStream::add_decoded`] would.
    pub fn add_decoded(&mut self, key: Key, key_span: Option<Span>, value: &crate::neon::Value) {
        debug_assert!(reads_as_decoded(&key, value));
        self.add_node(key, key_span, value);
    }

    /// Reads the entry `key: value` of the lighter decode, as [`CatalogStream::add_light`]
    /// would.
    pub(crate) fn add_light(&mut self, key: Key, key_span: Option<Span>, value: &Light) {
        self.add_node(key, key_span, value);
    }

    fn add_node<N: node::Node>(&mut self, key: Key, key_span: Option<Span>, value: &N) {
        let (info, at) = read_entry(
            &mut self.names,
            &key,
            key_span,
            value,
            &mut self.diags,
            &mut self.pending,
        );
        self.entries.push(PartEntry {
            key,
            info,
            at,
            diags_end: self.diags.len(),
        });
    }
}

/// Reads the entry `key: value` of a `types:` section into its class, reporting its own
/// problems; returns the class and where it was declared (its key, else its value).
/// `key_span` is taken for string keys only, as the section's expansion records no span for
/// others.
fn read_entry<N: node::Node>(
    names: &mut Interner,
    key: &Key,
    key_span: Option<Span>,
    value: &N,
    diags: &mut Diagnostics,
    pending: &mut Vec<NullDefault>,
) -> (ClassInfo, Option<Span>) {
    let key_span = key_span.filter(|_| matches!(key, Key::Str(_)));
    let written = key_text(key);
    let info = parse_class(names, bare_name(&written), key_span, value, diags, pending);
    let at = key_span.or(info.span);
    (info, at)
}

/// The catalog of all known types: one table of classes in declaration order, found by name
/// case-insensitively (FxHash; the keys share the classes' interned names).
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    classes: IndexMap<ClassKey, ClassInfo, FxBuildHasher>,
    /// Whether catalog files (`--catalog`, a build script's or dev mode's registry catalog)
    /// were merged into it: the advice for a class it lacks differs.
    with_files: bool,
    /// Whether the only catalog files are the registry's, read in process (dev mode's
    /// [`REGISTRY_CATALOG`]): no file on disk can be out of date, so the advice names the
    /// registry, not a catalog file to write again (a new user's trial).
    registry_in_process: bool,
}

impl Catalog {
    /// The note for a class this catalog does not declare (no near spelling to suggest): add
    /// it to `types:` or pass a registry's catalog; when catalog files were given, they lack
    /// it too, so the type is to be registered and the catalog written again; when the only
    /// catalog is the registry's read in process (dev mode), it is to be registered.
    pub fn class_not_found_note(&self) -> &'static str {
        if self.registry_in_process {
            "Neither the `types:` section nor the registry declares it: register the type in \
             the application's registry (dev mode reads the registry's catalog as the program \
             runs), or add it to the `types:` section (docs/catalog.md)."
        } else if self.with_files {
            "Neither the `types:` section nor the catalog files declare it: register the type \
             in the application's registry and write its catalog again \
             (`WIREPLAN_WRITE_CATALOG=FILE cargo run`, or `WIREPLAN_UPDATE_CATALOG=1 cargo \
             test` with the golden test), or add it to the `types:` section (docs/catalog.md)."
        } else {
            "Add it to the `types:` section, or pass the catalog your registry writes with \
             `--catalog FILE` (docs/catalog.md)."
        }
    }

    /// Whether catalog files (`--catalog`, a registry's catalog) were merged into this one.
    pub fn with_files(&self) -> bool {
        self.with_files
    }

    /// Whether catalog files were merged and all of them are the registry's catalog read in
    /// process (dev mode), which cannot be older than the Rust code.
    pub fn registry_in_process(&self) -> bool {
        self.registry_in_process
    }

    /// An empty catalog.
    pub fn new() -> Catalog {
        Catalog::default()
    }

    /// Reads the `types:` section. Malformed entries and references to unknown parents are
    /// reported to `diags`; the rest is kept.
    pub fn from_section(section: Option<&Expr>, diags: &mut Diagnostics) -> Catalog {
        let cat = Catalog::new();
        let Some(section) = section else {
            return cat;
        };
        let Some(items) = section.as_array() else {
            if !section.is_null() {
                diags.push(crate::config::section_not_array("types", section));
            }
            return cat;
        };
        let mut stream = CatalogStream::new();
        for (key, value) in &items.items {
            stream.add(key, items.key_span(&key.as_string()), value);
        }
        stream.finish(diags)
    }

    /// Gives back the spare capacity of the class table once every class is read (the table
    /// grows by doubling; the catalog lives until the plan is built).
    fn seal(&mut self) {
        self.classes.shrink_to_fit();
    }

    /// Adds (or replaces) a class.
    pub fn add(&mut self, info: ClassInfo) {
        // One hash and probe; a replaced class keeps the key (the spelling) first read.
        match self.classes.entry(ClassKey(info.name.clone())) {
            indexmap::map::Entry::Occupied(mut slot) => *slot.get_mut() = info,
            indexmap::map::Entry::Vacant(slot) => {
                slot.insert(info);
            }
        }
    }

    /// Adds a class read from a `types:` section unless the section declared it before, with
    /// one lookup; else the index of the first declaration, which stays.
    fn add_first(&mut self, info: ClassInfo) -> Option<usize> {
        match self.classes.entry(ClassKey(info.name.clone())) {
            indexmap::map::Entry::Occupied(first) => Some(first.index()),
            indexmap::map::Entry::Vacant(slot) => {
                slot.insert(info);
                None
            }
        }
    }

    /// The class named `name` (case-insensitive, leading `\` ignored).
    pub fn get(&self, name: &str) -> Option<&ClassInfo> {
        self.classes.get(&Caseless(bare_name(name)))
    }

    /// Does the catalog know `name`?
    pub fn exists(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// All classes in declaration order.
    pub fn classes(&self) -> impl Iterator<Item = &ClassInfo> {
        self.classes.values()
    }

    /// The canonical spelling of a known class name.
    pub fn canonical<'a>(&'a self, name: &'a str) -> &'a str {
        self.get(name).map(|c| c.name.as_str()).unwrap_or(name)
    }

    /// Visits `name` itself, then all parent classes and all interfaces, transitively, without
    /// duplicates (the order of [`Catalog::ancestors`]), each with its class when the catalog
    /// knows it, until `visit` returns `true`. One table lookup per type visited and no
    /// allocation per name (the lookups by type of a large compile walk ancestors millions of
    /// times).
    fn walk<'a: 'n, 'n>(
        &'a self,
        name: &'n str,
        mut visit: impl FnMut(&'n str, Option<&'a ClassInfo>) -> bool,
    ) {
        self.walk_placed(name, None, |n, placed| visit(n, placed.map(|(_, c)| c)));
    }

    /// [`Catalog::walk`] with each known type's position in the catalog (declaration order).
    /// `at`: `name`'s position in the catalog when the caller has it ([`Catalog::position`]),
    /// which saves its lookup.
    fn walk_placed<'a: 'n, 'n>(
        &'a self,
        name: &'n str,
        mut at: Option<usize>,
        mut visit: impl FnMut(&'n str, Option<(usize, &'a ClassInfo)>) -> bool,
    ) {
        let mut seen = names::SeenNames::default();
        let mut todo: Vec<&'n str> = vec![name];
        while let Some(n) = todo.pop() {
            let placed = match at.take() {
                Some(i) => self.classes.get_index(i).map(|(_, c)| (i, c)),
                None => self
                    .classes
                    .get_full(&Caseless(bare_name(n)))
                    .map(|(i, _, c)| (i, c)),
            };
            let info = placed.map(|(_, c)| c);
            // The canonical spelling of a known type; an unknown one stands as written.
            let n = info.map_or(n, |c| c.name.as_str());
            if !seen.insert(n) {
                continue;
            }
            if let Some(c) = info {
                for p in c.implements.iter().rev().chain(c.extends.iter().rev()) {
                    todo.push(p);
                }
            }
            if visit(n, placed) {
                return;
            }
        }
    }

    /// `name` itself, then all parent classes and all interfaces, transitively, without
    /// duplicates (in that order). Unknown names yield just themselves.
    pub fn ancestors(&self, name: &str) -> Vec<String> {
        self.ancestor_classes(name, None)
            .into_iter()
            .map(|(n, _)| n.to_string())
            .collect()
    }

    /// [`Catalog::ancestors`] borrowed from the catalog, each with its class and the class's
    /// position among [`Catalog::classes`] when the catalog knows it (an unknown name stands
    /// as written).
    /// `at`: `name`'s position when the caller has it ([`Catalog::position`]).
    pub fn ancestor_classes<'a>(
        &'a self,
        name: &'a str,
        at: Option<usize>,
    ) -> Vec<(&'a str, Option<(usize, &'a ClassInfo)>)> {
        let mut out = Vec::new();
        self.walk_placed(name, at, |n, placed| {
            out.push((n, placed));
            false
        });
        out
    }

    /// The position of the class or interface `name` among [`Catalog::classes`] (leading `\`
    /// ignored, any letter case), if the catalog knows it.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.classes.get_index_of(&Caseless(bare_name(name)))
    }

    /// How many classes and interfaces the catalog knows.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether the catalog knows no class or interface.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Is `sub` the same as, or a subtype of, `sup`?
    pub fn is_subtype(&self, sub: &str, sup: &str) -> bool {
        let sup = bare_name(sup);
        let mut found = false;
        self.walk(sub, |n, _| {
            found = n.eq_ignore_ascii_case(sup);
            found
        });
        found
    }

    /// Is `sub` a proper subtype of `sup` (PHP's `isSubclassOf`: a type is not its own
    /// subclass)?
    pub fn is_subclass(&self, sub: &str, sup: &str) -> bool {
        !self
            .canonical(sub)
            .eq_ignore_ascii_case(self.canonical(&normalize_name(sup)))
            && self.is_subtype(sub, sup)
    }

    /// The first of `class` and its ancestors (in [`Catalog::ancestors`] order) for which
    /// `pick` finds something.
    fn find_up<'a, T: 'a>(
        &'a self,
        class: &str,
        mut pick: impl FnMut(&'a ClassInfo) -> Option<T>,
    ) -> Option<T> {
        let mut found = None;
        self.walk(class, |_, info| {
            found = info.and_then(&mut pick);
            found.is_some()
        });
        found
    }

    /// Finds a method on a class or its ancestors.
    pub fn method(&self, class: &str, method: &str) -> Option<&Method> {
        self.find_up(class, |c| {
            c.methods
                .iter()
                .find(|(m, _)| m.eq_ignore_ascii_case(method))
                .map(|(_, m)| m)
        })
    }

    /// The declared spelling of a method found case-insensitively (PHP method names are
    /// case-insensitive; the runtime's registry is not): `setlogger` → `setLogger`.
    pub fn method_name(&self, class: &str, method: &str) -> Option<&str> {
        self.find_up(class, |c| {
            c.methods
                .keys()
                .find(|m| m.eq_ignore_ascii_case(method))
                .map(Name::as_str)
        })
    }

    /// Finds a property on a class or its ancestors.
    pub fn property(&self, class: &str, prop: &str) -> Option<&Property> {
        self.find_up(class, |c| c.properties.get(prop))
    }

    /// Finds a class constant on a class or its ancestors.
    pub fn constant(&self, class: &str, name: &str) -> Option<&Expr> {
        self.find_up(class, |c| c.constants.get(name))
    }

    /// The names of the members `pick` lists (`|c| c.properties.keys()`, …) on a class and its
    /// ancestors, for "did you mean" notes.
    pub fn member_names<'a, I>(
        &'a self,
        class: &str,
        pick: impl Fn(&'a ClassInfo) -> I,
    ) -> Vec<&'a str>
    where
        I: Iterator<Item = &'a Name>,
    {
        let mut out = Vec::new();
        self.walk(class, |_, info| {
            out.extend(info.into_iter().flat_map(&pick).map(Name::as_str));
            false
        });
        out
    }

    /// The constructor parameters of a class, inherited from the nearest parent that declares
    /// one (as in PHP).
    pub fn constructor(&self, class: &str) -> &[Param] {
        self.get(class)
            .map(|c| self.constructor_of(c))
            .unwrap_or(&[])
    }

    /// The class whose private constructor `class` has (`constructor: private`, its own or
    /// inherited through `extends` while no class on the way declares parameters: PHP
    /// inherits a constructor a class does not declare), or `None` when it can be created
    /// with `new`.
    pub fn private_constructor_of<'a>(&'a self, class: &'a ClassInfo) -> Option<&'a ClassInfo> {
        let mut current = Some(class);
        for _ in 0..=self.classes.len() {
            let c = current?;
            if c.private_constructor {
                return Some(c);
            }
            if !c.constructor.is_empty() || c.interface {
                return None;
            }
            current = c.extends.first().and_then(|p| self.get(p));
        }
        None
    }

    /// [`Catalog::constructor`] of a class already looked up.
    pub fn constructor_of<'a>(&'a self, class: &'a ClassInfo) -> &'a [Param] {
        let mut current = Some(class);
        let mut steps = 0;
        while let Some(c) = current {
            steps += 1;
            if steps > self.classes.len() {
                break;
            }
            if !c.constructor.is_empty() {
                return &c.constructor;
            }
            current = c
                .extends
                .first()
                .filter(|_| !c.interface)
                .and_then(|p| self.get(p));
        }
        &[]
    }
}

/// The `duplicate-class` error for a class written `written` at `at` in `place` (`the
/// \`types:\` section`, `the catalog 'x.json'`), which declared it first as `first` at
/// `first_at` (PHP class names are case-insensitive, and a leading `\` is not part of them:
/// `App\Db`, `app\db` and `\App\Db` are one class). The first declaration is kept.
pub(super) fn declared_twice(
    place: &str,
    first: &str,
    first_at: Option<Span>,
    written: &str,
    at: Option<Span>,
) -> Diagnostic {
    let mut d = Diagnostic::error(
        Code::DuplicateClass,
        format!("Class {first} is declared twice in {place}: as '{first}' and as '{written}'."),
    )
    .at(at);
    if let Some(span) = first_at {
        d = d.with_secondary(span, "first declared here");
    }
    d.with_note(
        "class names are case-insensitive and a leading \\ is not part of them; declare \
         each class once",
    )
}

/// A catalog from the text of a configuration with a `types:` section, for unit tests.
#[cfg(test)]
pub(crate) fn from_config_text(text: &str) -> Catalog {
    let mut diags = crate::diagnostics::Diagnostics::new();
    let mut sources = crate::source::SourceMap::new();
    let raw = crate::config::load_str("t.neon", text, &mut sources, &mut diags);
    let (_, sections) =
        crate::config::expand_config(&raw.sections, &[], &indexmap::IndexMap::new(), &mut diags);
    assert!(!diags.has_errors(), "test catalog: {diags:?}");
    Catalog::from_section(sections.get("types").map(|(_, v)| v), &mut diags)
}

#[cfg(test)]
mod tests;
