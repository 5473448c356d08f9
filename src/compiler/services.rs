//! The `services:` section: turns each entry into (or onto) a builder definition.
//!
//! Short forms and keys follow Nette's `DefinitionSchema` (`../shared/reference/nette-di.md`
//! §3.1–3.3): `name: Class(args)`, `name: @other`, `name: false` (removal), `- Class`
//! (anonymous, named `01`, `02`, …), and maps with `create` (legacy `factory`), `type` (legacy
//! `class`), `arguments`, `setup`, `tags`, `autowired`, `lifespan`, `imported`, `slot`,
//! `alteration`.
//! An entry whose name already exists (e.g. registered by an extension) modifies it.

use crate::builder::{Autowired, ContainerBuilder, Definition, DefinitionKind};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Callee, Expr, ExprArray, ExprKind, Statement};
use crate::neon::Key;
use wireplan_runtime::plan::Lifespan;

mod apply;
pub(super) use apply::apply;

/// Loads the `services:` section into the builder; all problems go to `diags`.
pub fn load_services(section: &Expr, builder: &mut ContainerBuilder, diags: &mut Diagnostics) {
    let Some(items) = section.as_array() else {
        if !section.is_null() {
            diags.push(crate::config::section_not_array("services", section));
        }
        return;
    };
    // Nette's DefinitionSchema, built once for the whole section.
    let schema = DefinitionSchema::new();
    builder.reserve_definitions(items.len());
    for (key, value) in &items.items {
        if let Some(name) = service_name(key, items, builder, diags) {
            if let Err(d) = load_one(name.as_deref(), value.clone(), &schema, builder, diags) {
                diags.push(at_key(d, items, key));
            }
        }
    }
}

/// [`load_services`] over a section it consumes: each service's expression is dropped as soon
/// as its definition is made, so the expanded section and the definitions are never held
/// whole side by side (the lean path of a plain compile, [`super::Pipeline::load`]). Same
/// definitions, same diagnostics in the same order.
pub fn load_services_owned(section: Expr, builder: &mut ContainerBuilder, diags: &mut Diagnostics) {
    let ExprKind::Array(mut items) = section.kind else {
        return load_services(&section, builder, diags);
    };
    let schema = DefinitionSchema::new();
    builder.reserve_definitions(items.len());
    // The key spans stay in `items` for the `@Type` keys' diagnostics.
    let entries = std::mem::take(&mut items.items);
    let parts = crate::parallel::parts(entries.len(), super::loading::PARALLEL_MIN);
    if parts > 1 {
        return super::loading::load_in_parts(
            entries,
            &items,
            &schema,
            builder,
            diags,
            parts,
            super::loading::BLOCK,
        );
    }
    for (key, value) in entries {
        load_entry(key, value, &items, &schema, builder, diags);
    }
}

/// Loads one entry of the `services:` map `items` (whose key spans are still there, its
/// entries taken out): the service's expression moves into its definition map (and is
/// dropped there).
pub(super) fn load_entry(
    key: Key,
    value: Expr,
    items: &ExprArray,
    schema: &DefinitionSchema,
    builder: &mut ContainerBuilder,
    diags: &mut Diagnostics,
) {
    if let Some(name) = service_name(&key, items, builder, diags) {
        if let Err(d) = load_one(name.as_deref(), value, schema, builder, diags) {
            diags.push(at_key(d, items, &key));
        }
    }
}

/// Nette's definition schema ([`crate::schema::sections::definition`]), built once per
/// section and checked for misuse once: each definition is validated without walking the
/// whole schema for misuse again (a schema with misuse is checked, and reported, per
/// definition as before).
pub(super) struct DefinitionSchema {
    expect: crate::schema::Expect,
    checked: bool,
}

impl DefinitionSchema {
    pub(super) fn new() -> DefinitionSchema {
        let expect = crate::schema::sections::definition();
        let checked = crate::schema::misuse(&expect).is_empty();
        DefinitionSchema { expect, checked }
    }

    /// [`crate::schema::validate_items`] against the definition schema: the completed map of
    /// the keys that passed and whether all did.
    fn validate_items(
        &self,
        items: Vec<(Key, Expr, Option<crate::source::Span>)>,
        span: Option<crate::source::Span>,
        path: &[&str],
        diags: &mut Diagnostics,
    ) -> (ExprArray, bool) {
        crate::schema::validate_items(&self.expect, self.checked, items, span, path, diags)
    }
}

/// The name a `services:` key gives its definition: `None` inside for an anonymous service
/// (an integer key), the service of that type for a `@Type` key. `None` when the key names
/// no service (reported to `diags`).
fn service_name(
    key: &Key,
    items: &ExprArray,
    builder: &mut ContainerBuilder,
    diags: &mut Diagnostics,
) -> Option<Option<String>> {
    Some(match key {
        Key::Int(_) => None,
        Key::Str(s) => match s.strip_prefix('@').filter(|t| is_type_key(t)) {
            Some(ty) => match service_of_type(ty, items.key_span(s), builder) {
                Ok(n) => Some(n),
                Err(d) => {
                    diags.push(d);
                    return None;
                }
            },
            // Symfony's `_defaults` / `_instanceof` have no Nette equivalent: one error that
            // says so, instead of a service of that name and its follow-on errors.
            None if matches!(s.as_str(), "_defaults" | "_instanceof") => {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidDefinition,
                        format!("'{s}' is Symfony's, not a service: Nette's configuration has no such key."),
                    )
                    .at(items.key_span(s))
                    .with_note(
                        "services are autowired by default and there is no 'public'; to give many \
                         services a tag, setup or autowiring, use the `decorator:` section (by \
                         type) or `search:` (by name and folder)",
                    ),
                );
                return None;
            }
            // `as_str` first: `CompactString::to_string` goes through the formatter.
            None => {
                if let Some(d) = modifies_anonymous(s, items, builder) {
                    diags.push(d);
                }
                Some(s.as_str().to_owned())
            }
        },
    })
}

/// The `modifies-anonymous` warning when the key `name` is the generated name of an anonymous
/// definition loaded before it (`"02": …` after two `- …` items). As in Nette, the entry then
/// modifies that definition; a key written on purpose for a service of its own is far likelier,
/// so it is said, at the key, with the anonymous definition beside it.
fn modifies_anonymous(
    name: &str,
    items: &ExprArray,
    builder: &ContainerBuilder,
) -> Option<Diagnostic> {
    if !crate::builder::is_generated_name(name) {
        return None;
    }
    let def = builder.get_definition(name).filter(|d| d.is_anonymous())?;
    let mut d = Diagnostic::warning(
        Code::ModifiesAnonymous,
        format!(
            "Service '{name}': this entry modifies the anonymous service named '{name}' instead \
             of adding a service."
        ),
    )
    .at(items.key_span(name))
    .with_note(
        "anonymous services (`- …` items) are named 01, 02, … in the order they are added; \
         give the new service a name that is not a number, or write the key of the service to \
         modify as `@Type` (the service of that type)",
    );
    if let Some(at) = def.span {
        d = d.with_secondary(at, format!("the anonymous service '{name}'"));
    }
    Some(d)
}

/// Is `t` (after the `@`) a type name, Nette's `#^@[\w\\]+$#` key pattern?
pub(super) fn is_type_key(t: &str) -> bool {
    !t.is_empty()
        && t.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '\\')
}

/// A `services:` key `@Type` names the service of that type (Nette's `convertKeyToName`, a
/// `getByType` over the definitions loaded so far). Errors: `missing-service` when there is
/// none, `ambiguous-service` when several fit.
fn service_of_type(
    ty: &str,
    span: Option<crate::source::Span>,
    b: &mut ContainerBuilder,
) -> Result<String, Diagnostic> {
    let ty = crate::catalog::normalize_name(ty);
    match b.get_by_type(&ty) {
        Ok(Some(name)) => Ok(name),
        Ok(None) => Err(Diagnostic::error(
            Code::MissingService,
            format!("Service of type {ty} not found (the services: key '@{ty}' modifies the service of that type, and none is defined before it)."),
        )
        .at(span)),
        Err(d) => Err(d.at(span)),
    }
}

/// Loads one `services:` entry against the definition schema.
/// A definition the builder refused for an invalid name (Nette's "Service name must be …"),
/// placed on the name in the `services:` section, where the mistake is, not on its value.
pub(super) fn at_key(mut d: Diagnostic, items: &ExprArray, key: &Key) -> Diagnostic {
    // A duplicate name (`duplicate-service`) keeps its place on the definition, beside the
    // label on the first one.
    if d.code != Code::InvalidDefinition {
        return d;
    }
    if let Some(at) = items.key_span(&key.as_string()) {
        for label in d.labels.iter_mut().filter(|l| l.primary) {
            label.span = at;
        }
    }
    d
}

/// Loads one definition. Problems go to `diags`, except the builder's refusal of the name,
/// which is returned for the caller to place on the key ([`at_key`]).
fn load_one(
    name: Option<&str>,
    value: Expr,
    schema: &DefinitionSchema,
    b: &mut ContainerBuilder,
    diags: &mut Diagnostics,
) -> Result<(), Diagnostic> {
    let span = value.span;
    if let ExprKind::Bool(false) = value.kind {
        if let Some(n) = name {
            // `autowired: false` one tab short removes a service named `autowired` that no
            // one defined, in silence as in Nette: said when the name is a definition's
            // option (a new user's trial).
            if let Some(note) = option_as_name(n, schema).filter(|_| !b.has_definition(n)) {
                diags.push(
                    Diagnostic::warning(
                        Code::InvalidDefinition,
                        format!("'{n}: false' removes no service: none is named '{n}'."),
                    )
                    .at(span)
                    .with_note(note),
                );
            }
            b.remove_definition_at(n, span);
        }
        return Ok(());
    }
    let existing = name.is_some_and(|n| b.has_definition(n));
    let current = name
        .filter(|_| existing)
        .and_then(|n| b.get_definition(n))
        .map(|d| (d.kind, d.extras().implement.clone()));
    let label = name.unwrap_or("(anonymous)");
    let Some(shaped) = shape(label, value, schema, &b.catalog, current, diags) else {
        return Ok(());
    };
    let def: &mut Definition = if existing {
        let n = name.unwrap_or_default();
        match b.get_definition_mut(n) {
            Some(d) => d,
            None => return Ok(()),
        }
    } else {
        b.add_definition(name, span)?
    };
    let sniff = (!existing).then_some(shaped.has_create_method);
    shaped.apply_to(def, sniff, diags);
    // An entry that gives an existing definition (another entry's, an anonymous one's, an
    // extension's) its creator writes it outside that definition's place: errors about the
    // creator point here, as they do at a script's `setFactory()` (a new user's trial saw
    // them at the anonymous service the entry modified).
    if existing {
        if let Some(at) = shaped.map.get("create").and_then(|c| c.span) {
            def.extras_mut().creator_at = Some(at);
        }
    }
    let name = def.name.clone();
    b.add_reference_services(Some(&name));
    Ok(())
}

/// The definition map an entry's value makes (its schema validation, Nette's short forms, the
/// keys its kind allows) and whether its `implement` interface has `create()`. `current` is
/// the kind and interface of the definition the entry modifies, `None` for a new one. `None`
/// when the entry ends there: a value the schema refused, or a new definition that is empty or
/// an `alteration` of nothing (reported to `diags`). Reads only the catalog, so entries can be
/// shaped ahead on other threads ([`super::loading`]).
pub(super) fn shape(
    label: &str,
    value: Expr,
    schema: &DefinitionSchema,
    catalog: &crate::catalog::Catalog,
    current: Option<(DefinitionKind, Option<String>)>,
    diags: &mut Diagnostics,
) -> Option<Shaped> {
    let span = value.span;
    let existing = current.is_some();
    let lifespan_written = value
        .as_array()
        .is_some_and(|a| a.get("lifespan").is_some());
    let map = normalize(label, value, schema, catalog, diags)?;
    // The schema reports a wrong `lifespan` and leaves it out of the map.
    let lifespan_refused = lifespan_written && map.get("lifespan").is_none();
    let has_create_method = map
        .get("implement")
        .and_then(Expr::as_str)
        .is_some_and(|i| catalog.method(i, "create").is_some());
    let map = keys_of_kind(label, map, current, has_create_method, diags);
    if map.is_empty() && !existing {
        diags.push(
            Diagnostic::error(
                Code::InvalidDefinition,
                format!("Service '{label}': Empty definition."),
            )
            .at(span),
        );
        return None;
    }
    if matches!(
        map.get("alteration").map(|e| &e.kind),
        Some(ExprKind::Bool(true))
    ) && !existing
    {
        diags.push(
            Diagnostic::error(
                Code::InvalidDefinition,
                format!("Service '{label}': Missing original definition for alteration."),
            )
            .at(span),
        );
        return None;
    }
    Some(Shaped {
        map,
        has_create_method,
        lifespan_refused,
    })
}

/// What [`shape`] makes of a `services:` entry.
pub(super) struct Shaped {
    /// The definition map, validated, its short forms written out.
    pub(super) map: ExprArray,
    /// Whether its `implement` interface has `create()`.
    pub(super) has_create_method: bool,
    /// The entry wrote a `lifespan` the schema refused (reported): see
    /// [`crate::builder::DefinitionExtras::lifespan_invalid`].
    pub(super) lifespan_refused: bool,
}

impl Shaped {
    /// Applies the map to `def` ([`apply`]), and records a refused `lifespan`.
    pub(super) fn apply_to(
        &self,
        def: &mut Definition,
        sniff: Option<bool>,
        diags: &mut Diagnostics,
    ) {
        apply(def, &self.map, sniff, diags);
        if self.lifespan_refused {
            def.extras_mut().lifespan_invalid = true;
        }
    }
}

/// The kind a definition map makes, as Nette's `DefinitionSchema::sniffType`: an existing
/// definition keeps its kind (`imported: true` turns a service into an imported one); a new
/// one with `implement` is a locator (with `references` or `tagged`), a factory (the interface
/// has `create()`) or an accessor; then `imported: true`; else a service.
fn sniff_kind(
    map: &ExprArray,
    existing: Option<DefinitionKind>,
    has_create_method: bool,
) -> DefinitionKind {
    let imported = matches!(
        map.get("imported").map(|e| &e.kind),
        Some(ExprKind::Bool(true))
    );
    let slot = matches!(map.get("slot").map(|e| &e.kind), Some(ExprKind::Bool(true)));
    match existing {
        Some(DefinitionKind::Service | DefinitionKind::Slot) if slot => DefinitionKind::Slot,
        Some(DefinitionKind::Service | DefinitionKind::Imported) if imported => {
            DefinitionKind::Imported
        }
        Some(kind) => kind,
        None if map.get("implement").is_some() => {
            let references = map
                .get("references")
                .and_then(Expr::as_array)
                .is_some_and(|r| !r.is_empty());
            if references || map.get("tagged").is_some() {
                DefinitionKind::Locator
            } else if has_create_method {
                DefinitionKind::Factory
            } else {
                DefinitionKind::Accessor
            }
        }
        None if slot => DefinitionKind::Slot,
        None if imported => DefinitionKind::Imported,
        None => DefinitionKind::Service,
    }
}

/// The keys each kind of definition takes, after Nette's `DefinitionSchema` (the table in
/// `../shared/reference/nette-di.md` §3.3), plus wireplan's `lifespan` and the modifiers
/// `reset` (made by `!` markers) and `alteration`, which every kind takes.
fn allowed_keys(kind: DefinitionKind) -> &'static [&'static str] {
    match kind {
        DefinitionKind::Service => &[
            "create",
            "type",
            "arguments",
            "setup",
            "inject",
            "lazy",
            "sync",
            "imported",
            "slot",
        ],
        DefinitionKind::Factory => &[
            "create",
            "type",
            "arguments",
            "setup",
            "inject",
            "implement",
            "references",
            "tagged",
        ],
        DefinitionKind::Accessor => &["create", "type", "implement"],
        DefinitionKind::Locator => &["implement", "references", "tagged"],
        DefinitionKind::Imported => &["type", "imported"],
        DefinitionKind::Slot => &["type", "slot"],
    }
}

/// Keys every kind takes.
const COMMON_KEYS: &[&str] = &["tags", "autowired", "lifespan", "reset", "alteration"];

/// Drops (and reports, at the key) the keys the definition's kind does not take: an imported
/// service has no `create`, `arguments` or `setup`, an accessor no `arguments` or `setup`, a
/// locator no `create`, and so on. Nette's schema for each kind rejects them the same way;
/// wireplan used to accept and ignore them.
fn keys_of_kind(
    label: &str,
    map: ExprArray,
    current: Option<(DefinitionKind, Option<String>)>,
    has_create_method: bool,
    diags: &mut Diagnostics,
) -> ExprArray {
    let (existing, existing_implement) = match current {
        Some((kind, implement)) => (Some(kind), implement),
        None => (None, None),
    };
    let kind = sniff_kind(&map, existing, has_create_method);
    let allowed = allowed_keys(kind);
    // No key a definition takes is a number.
    let is_allowed = |key: &Key| match key {
        Key::Str(k) => allowed.contains(&k.as_str()) || COMMON_KEYS.contains(&k.as_str()),
        Key::Int(_) => false,
    };
    // Almost every definition takes all its keys: then the map is kept as it is, not copied.
    if map.items.keys().all(is_allowed) {
        return map;
    }
    let implement = map
        .get("implement")
        .and_then(Expr::as_str)
        .map(crate::catalog::normalize_name)
        .or(existing_implement)
        .unwrap_or_default();
    let what = match kind {
        DefinitionKind::Service => "a service".to_string(),
        DefinitionKind::Factory => format!("a generated factory (implement: {implement})"),
        DefinitionKind::Accessor => format!("an accessor (implement: {implement})"),
        DefinitionKind::Locator => format!("a locator (implement: {implement})"),
        DefinitionKind::Imported => "an imported service (imported: true)".to_string(),
        DefinitionKind::Slot => "a scope slot (slot: true)".to_string(),
    };
    let mut kept = ExprArray::new();
    let mut problems = Vec::new();
    for (key, v) in &map.items {
        // The key's text, borrowed (an integer key written out).
        let number;
        let k: &str = match key {
            Key::Str(s) => s.as_str(),
            Key::Int(_) => {
                number = key.as_string();
                &number
            }
        };
        if allowed.contains(&k) || COMMON_KEYS.contains(&k) {
            if let Some(span) = map.key_span(k) {
                kept.set_key_span(key, span);
            }
            kept.items.insert(key.clone(), v.clone());
            continue;
        }
        let why = match (kind, k) {
            (DefinitionKind::Imported, "create" | "arguments" | "setup" | "inject" | "lazy") => {
                "the application supplies an imported service at run time, so nothing creates \
                 or sets it up here"
                    .to_string()
            }
            (DefinitionKind::Slot, "create" | "arguments" | "setup" | "inject" | "lazy") => {
                "the application provides a scope slot in each scope (scope.provide), so \
                 nothing creates or sets it up here"
                    .to_string()
            }
            (DefinitionKind::Slot, "imported") => {
                "a scope slot is provided per scope, an imported service once per container; \
                 choose one"
                    .to_string()
            }
            (_, "slot") => {
                format!("`slot` makes a service provided in each scope; {what} is generated here")
            }
            (DefinitionKind::Accessor, "arguments" | "setup" | "inject") => {
                "an accessor's get() returns another service, which it neither creates nor \
                 sets up; write `create: @service` for that service, or configure the service \
                 itself"
                    .to_string()
            }
            (DefinitionKind::Locator, "create" | "type" | "arguments" | "setup" | "inject") => {
                "a locator returns the services under `references` or `tagged`".to_string()
            }
            (_, "implement" | "references" | "tagged") => format!(
                "only a new definition with `implement` is generated; '{label}' already \
                 exists as {what}"
            ),
            (_, "imported") => {
                format!("`imported` makes a service supplied at run time; {what} is generated here")
            }
            _ => format!("{what} does not take it"),
        };
        let keys: Vec<&str> = allowed
            .iter()
            .chain(
                COMMON_KEYS
                    .iter()
                    .filter(|k| !matches!(**k, "reset" | "alteration")),
            )
            .copied()
            .collect();
        let span = map.key_span(k).or(v.span);
        problems.push(
            Diagnostic::error(
                Code::UnknownOption,
                format!(
                    "Unexpected item 'services\u{a0}›\u{a0}{label}\u{a0}›\u{a0}{k}': \
                     '{label}' is {what}, which takes no '{k}'."
                ),
            )
            .at(span)
            .with_note(why)
            .with_note(format!("the keys of {what}: {}", keys.join(", "))),
        );
    }
    // In the order written (the schema put the keys in its own order).
    problems.sort_by_key(|d| d.primary_span().map(|s| (s.file, s.start)));
    diags.extend(problems);
    kept
}

/// Widens short forms to a definition map and checks the keys against `schema` (the
/// definition schema).
fn normalize(
    label: &str,
    mut value: Expr,
    schema: &DefinitionSchema,
    catalog: &crate::catalog::Catalog,
    diags: &mut Diagnostics,
) -> Option<ExprArray> {
    let is_interface = |n: &str| catalog.get(n).is_some_and(|c| c.interface);
    match &mut value.kind {
        ExprKind::Null => Some(ExprArray::new()),
        ExprKind::Str(s) if is_interface(s) => {
            let mut m = ExprArray::new();
            m.items.insert(Key::Str("implement".into()), value);
            Some(m)
        }
        ExprKind::Statement(st) if matches!(&st.callee, Callee::Name(n) if is_interface(n)) => {
            // `Iface(tagged: t)`, `Iface(X)`, `Iface(a: @x, b: @y)`.
            let Callee::Name(iface) = &st.callee else {
                return None;
            };
            let mut m = ExprArray::new();
            m.items.insert(
                Key::Str("implement".into()),
                Expr::new(ExprKind::Str(iface.clone()), value.span),
            );
            let args = &st.arguments;
            if let Some(t) = args.get("tagged") {
                m.items.insert(Key::Str("tagged".into()), t.clone());
            } else if args.len() == 1 && args.items.contains_key(&Key::Int(0)) {
                m.items
                    .insert(Key::Str("create".into()), args.values().next()?.clone());
            } else if !args.is_empty() {
                m.items.insert(
                    Key::Str("references".into()),
                    Expr::new(ExprKind::Array(args.clone()), value.span),
                );
            }
            Some(m)
        }
        ExprKind::Str(_) | ExprKind::Statement(_) => {
            let mut m = ExprArray::new();
            m.items.insert(Key::Str("create".into()), value);
            Some(m)
        }
        ExprKind::Array(a) => {
            // The definition map's items under Nette's names, with where each key was
            // written.
            let mut items: Vec<(Key, Expr, Option<crate::source::Span>)> =
                Vec::with_capacity(a.items.len());
            let mut key_spans = Vec::new();
            // Nette's legacy aliases (DefinitionSchema::normalize): `factory` is `create` when
            // there is no `create` (else it stays, an unknown item); `class` is `create` when
            // the definition names neither a type, a creator nor `dynamic`/`imported`, else
            // `type`, and `class` next to `type` is an error.
            let has = |k: &str| a.get(k).is_some();
            let (has_type, has_create) = (has("type"), has("create"));
            let factory_is_create = !has_create;
            let creator_given = has_create || has("factory");
            let class_is_create =
                !has_type && !has_create && !has("factory") && !has("dynamic") && !has("imported");
            // `d: [1, 2]`: Nette reads the list as a map with keys 0 and 1 (two unexpected
            // items); the first of those errors says what a definition is.
            let list = !a.is_empty() && a.is_list();
            // The values move into the definition map; the key spans stay in `a`.
            for (k, v) in std::mem::take(&mut a.items) {
                // The key's text, borrowed (an integer key written out).
                let number;
                let written = match &k {
                    Key::Str(s) => s.as_str(),
                    Key::Int(_) => {
                        number = k.as_string();
                        number.as_str()
                    }
                };
                let key = Key::Str(
                    match written {
                        "factory" if factory_is_create => "create",
                        "class" if class_is_create => "create",
                        "class" if has_type => {
                            diags.push(
                                Diagnostic::error(
                                    Code::InvalidDefinition,
                                    format!(
                                        "Service '{label}': Options 'class' and 'type' are aliases, use only 'type'."
                                    ),
                                )
                                .at(a.key_span(written).or(v.span)),
                            );
                            // Without a creator, the value is taken as one (`class:
                            // App\Db(x)` meant to create with `x`), so the definition is made
                            // as written and gets no follow-on error ("$dsn must be
                            // specified").
                            if creator_given {
                                continue;
                            }
                            "create"
                        }
                        "class" => "type",
                        other => other,
                    }
                    .into(),
                );
                let key_span = a.key_span(written);
                if let Some(span) = key_span {
                    key_spans.push((key.clone(), span));
                }
                // (a name can no longer come twice: each alias stands in only for an absent
                // name)
                items.push((key, v, key_span));
            }
            // Nette's DefinitionSchema: unknown keys ("did you mean"), value types. On errors
            // the definition is still made from the keys that are valid, so its other mistakes
            // (a wrong `autowired:` type, a missing class) are reported in the same run instead
            // of after the first fix.
            let before = diags.items().len();
            let (mut a, all) =
                schema.validate_items(items, value.span, &["services", label], diags);
            // Symfony's definition keys (`calls`, `decorates`, ...), each told what it is here.
            for d in diags.since_mut(before) {
                if d.code != Code::UnknownOption {
                    continue;
                }
                let at = d.primary_span();
                let key = key_spans
                    .iter()
                    .find(|(_, span)| at == Some(*span))
                    .and_then(|(k, _)| k.as_str());
                let note = key.and_then(crate::config::symfony::definition_key_note);
                if let Some(note) = note {
                    d.notes.push(note.to_string());
                }
                // The aliases Nette takes (`factory`, `class`) are no keys of the schema, so
                // its "did you mean" misses their typos (`factroy`: a new user's trial).
                if !d.message.contains("did you mean") {
                    let alias =
                        key.and_then(|k| crate::diagnostics::suggest(k, ["factory", "class"]));
                    if let Some(alias) = alias {
                        d.notes.push(format!("did you mean '{alias}'?"));
                    }
                }
            }
            if list {
                if let Some(d) = diags
                    .since_mut(before)
                    .iter_mut()
                    .find(|d| d.code == Code::UnknownOption)
                {
                    d.notes.push(
                        "a definition is a class name, a statement (`App\\Mailer(…)`) or a map \
                         of options (create, arguments, setup, …); this one is a list"
                            .into(),
                    );
                    d.notes.extend(option_as_name(label, schema));
                }
            }
            if !all && a.is_empty() {
                return None;
            }
            for (k, span) in &key_spans {
                a.set_key_span(k, *span);
            }
            Some(a)
        }
        _ => {
            let mut d = Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "The item 'services › {label}' expects to be a definition, {} given.",
                    value.describe()
                ),
            )
            .at(value.span);
            d.notes.extend(option_as_name(label, schema));
            diags.push(d);
            None
        }
    }
}

/// Turns a creator value into a statement: `Class`, `Class(args)`, `@svc`, `@svc::m()`.
pub fn creator_statement(v: &Expr) -> Option<Statement> {
    match &v.kind {
        ExprKind::Str(s) => Some(Statement {
            callee: Callee::Name(s.clone()),
            arguments: ExprArray::new(),
        }),
        ExprKind::Statement(st) => Some((**st).clone()),
        // Nette's callable form `[Class, method]` / `[@service, method]`.
        ExprKind::Array(a) if a.len() == 2 && a.is_list() => {
            let mut items = a.values();
            let target = items.next()?;
            let method = items.next()?.as_str()?;
            match &target.kind {
                ExprKind::Str(t) => Some(Statement {
                    callee: Callee::Name(format!("{t}::{method}")),
                    arguments: ExprArray::new(),
                }),
                ExprKind::Statement(_) => Some(Statement {
                    callee: Callee::Member(Box::new(target.clone()), method.to_string()),
                    arguments: ExprArray::new(),
                }),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The `empty-configuration` warning: after phase B no definition exists (no `services:`, no
/// extension registered one), so the plan would hold no service. It points at the start of
/// `main`, the file compiled.
pub fn warn_if_empty(
    builder: &ContainerBuilder,
    main: Option<crate::source::FileId>,
    diags: &mut Diagnostics,
) {
    // After an error (a failed extension, say) the emptiness is not news.
    if builder.definitions().next().is_some() || diags.error_count() > 0 {
        return;
    }
    let mut d = Diagnostic::warning(
        Code::EmptyConfiguration,
        "The configuration defines no service: the plan will be empty.",
    )
    .with_note("add a services: section, or an extension that registers services");
    if let Some(file) = main {
        d = d.with_primary(crate::source::Span::new(file, 0, 0), "compiled from here");
    }
    diags.push(d);
}

/// The note for a service named like a definition option (`tags`, `setup`, …, a key of
/// `schema` or one of Nette's aliases `factory` and `class`): most likely the option's line is
/// indented one level too little, so it left the definition above it (a new user's trial:
/// `tags: [x]` under a definition's lines, one tab short, was reported only as an odd service).
fn option_as_name(label: &str, schema: &DefinitionSchema) -> Option<String> {
    let option = schema.expect.has_item(label) || matches!(label, "factory" | "class");
    option.then(|| {
        format!(
            "'{label}' is a definition's option, not a service's name: indent its line one \
             level deeper, under the service it belongs to"
        )
    })
}
