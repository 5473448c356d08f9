//! The built-in extensions: `search:`, `decorator:`, `di:` and the inject step, after Nette's
//! `SearchExtension`, `DecoratorExtension`, `DIExtension` and `InjectExtension`
//! (`../shared/reference/nette-di.md` §10–13).
//!
//! Order, as in Nette's default configuration: `di` reads its options in phase A; in phase B
//! `search` runs first, then `decorator`, then the user's extensions, and the inject step last.

use crate::builder::{ContainerBuilder, DefinitionKind};
use crate::catalog::normalize_name;
use crate::diagnostics::{suggest, Code, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::schema::PATH_SEPARATOR;

/// What the plan keeps for run-time lookup (`di › export`).
#[derive(Debug, Clone)]
pub struct Export {
    /// Keep static parameters (`export › parameters`, default true).
    pub parameters: bool,
    /// `None`: every tag; `Some(list)`: only these tags.
    pub tags: Option<Vec<String>>,
    /// `None`: every type in the autowiring index; `Some(list)`: only these types.
    pub types: Option<Vec<String>>,
}

impl Default for Export {
    fn default() -> Export {
        Export {
            parameters: true,
            tags: None,
            types: None,
        }
    }
}

/// Validates `value` with a built-in section schema (`crate::schema::sections`); errors go to
/// `diags`. Returns whether the value is valid.
fn valid(
    schema: &crate::schema::Expect,
    value: &Expr,
    path: &[&str],
    diags: &mut Diagnostics,
) -> bool {
    crate::schema::validate(schema, value, path, diags).is_some()
}

fn bool_or_list(section: &str, v: &Expr, diags: &mut Diagnostics) -> Option<Vec<String>> {
    match &v.kind {
        ExprKind::Bool(true) | ExprKind::Null => None,
        ExprKind::Bool(false) => Some(Vec::new()),
        ExprKind::Array(a) => Some(
            a.values()
                .filter_map(|x| x.as_str().map(normalize_name))
                .collect(),
        ),
        _ => {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "The item '{section}' expects to be bool or list, {} given.",
                        v.describe()
                    ),
                )
                .at(v.span),
            );
            None
        }
    }
}

fn names(v: Option<&Expr>) -> Vec<String> {
    match v.map(|e| &e.kind) {
        Some(ExprKind::Str(s)) => vec![normalize_name(s)],
        Some(ExprKind::Array(a)) => a
            .values()
            .filter_map(|x| x.as_str().map(normalize_name))
            .collect(),
        _ => Vec::new(),
    }
}

/// `di:` in phase A: `excluded` types leave autowiring; `export` narrows the plan; `debugger`,
/// `lazy` and `parentClass` are accepted (they have no run-time meaning in Rust).
pub fn load_di(section: &Expr, builder: &mut ContainerBuilder, diags: &mut Diagnostics) -> Export {
    let mut export = Export::default();
    if !valid(&crate::schema::sections::di(), section, &["di"], diags) {
        return export;
    }
    let Some(map) = section.as_array() else {
        return export;
    };
    builder.add_excluded_classes(&names(map.get("excluded")));
    if let Some(ex) = map.get("export").and_then(Expr::as_array) {
        if let Some(p) = ex.get("parameters") {
            export.parameters = !matches!(p.kind, ExprKind::Bool(false));
        }
        if let Some(t) = ex.get("tags") {
            export.tags = bool_or_list("di › export › tags", t, diags);
        }
        if let Some(t) = ex.get("types") {
            export.types = bool_or_list("di › export › types", t, diags);
        }
    }
    export
}

/// Applies the `decorator:` section (see the private step below); definitions it adds or changes remember the
/// section as their origin (`explain`).
pub fn decorate(section: &Expr, builder: &mut ContainerBuilder, diags: &mut Diagnostics) {
    as_actor(builder, "decorator", |b| {
        decorate_section(section, b, diags)
    });
}

/// `decorator:` in phase B: for every definition whose type, or for a generated factory whose
/// result type, is the decorated type or a subtype (Nette's `DecoratorExtension::findByType`),
/// appends the setup statements (a factory's go to its result), adds the tags without
/// overriding existing values and sets `inject`. As in Nette, tags and `inject` stay on the
/// definition itself, a factory included: `findByTag` lists the factory service.
fn decorate_section(section: &Expr, builder: &mut ContainerBuilder, diags: &mut Diagnostics) {
    if !valid(
        &crate::schema::Expect::array(),
        section,
        &["decorator"],
        diags,
    ) {
        return;
    }
    let Some(map) = section.as_array() else {
        return;
    };
    for (key, spec) in &map.items {
        let ty = normalize_name(&key.as_string());
        if !builder.catalog.exists(&ty) {
            let mut d = Diagnostic::error(
                Code::ClassNotFound,
                format!("Decorated class '{ty}' not found."),
            )
            // At the class name, as other errors about a key (the value is the decoration).
            .at(map.key_span(&key.as_string()).or(spec.span));
            let classes: Vec<&str> = builder.catalog.classes().map(|c| c.name.as_str()).collect();
            d = d.with_suggestion(&ty, classes);
            diags.push(d);
            continue;
        }
        // An entry's schema errors are reported and its right keys still applied, so a
        // misspelt key does not hide the errors of its setup (every reader below takes only a
        // value of the expected kind); the compilation fails on the reported error all the same.
        let schema = crate::schema::sections::decorator_entry();
        let _ = valid(&schema, spec, &["decorator", &key.as_string()], diags);
        let Some(spec) = spec.as_array() else {
            continue;
        };
        let setups: Vec<Expr> = spec
            .get("setup")
            .and_then(Expr::as_array)
            .map(|a| a.values().cloned().collect())
            .unwrap_or_default();
        check_tag_entries(
            spec.get("tags"),
            &format!("decorator{PATH_SEPARATOR}{}", key.as_string()),
            diags,
        );
        let tags = normalize_tags(&tag_entries(spec.get("tags")));
        let inject = spec
            .get("inject")
            .map(|v| matches!(v.kind, ExprKind::Bool(true)));
        let targets: Vec<String> = builder
            .definitions()
            .filter(|d| {
                let is_a = |t: Option<&str>| t.is_some_and(|t| builder.catalog.is_subtype(t, &ty));
                is_a(d.resolved_type.as_deref())
                    || (d.kind == DefinitionKind::Factory
                        && is_a(d.extras().result_type.as_deref()))
            })
            .map(|d| d.name.clone())
            .collect();
        for name in targets {
            if let Some(def) = builder.get_definition_mut(&name) {
                def.setup.extend(setups.iter().cloned());
                for (t, v) in &tags {
                    def.tags.entry(t.clone()).or_insert_with(|| v.clone());
                }
                if let Some(i) = inject {
                    def.inject = i;
                }
            }
        }
    }
}

/// Runs the `inject` step (see the private step below); definitions it changes remember it
/// (`explain`).
pub fn inject(builder: &mut ContainerBuilder, diags: &mut Diagnostics) {
    as_actor(builder, "inject", |b| inject_steps(b, diags));
}

/// Runs `f` with `section` (a built-in step of phase B) as the builder's actor.
fn as_actor(builder: &mut ContainerBuilder, section: &str, f: impl FnOnce(&mut ContainerBuilder)) {
    let previous = builder.actor().cloned();
    builder.set_actor(Some(crate::builder::Actor {
        extension: section.to_string(),
        method: "beforeCompile".to_string(),
        builtin: true,
    }));
    f(builder);
    builder.set_actor(previous);
}

/// The inject step, last in phase B: for every definition with `inject: true`, puts calls of
/// its `inject*()` methods and writes of its properties marked `inject: true` (each autowired)
/// before its other setup, in the order of Nette's `InjectExtension::updateDefinition`:
/// methods first, parent classes' before a subclass's (each class in declaration order), then
/// properties in descending name order (Nette sorts them by name and prepends each in turn).
/// A setup entry of the same method or property replaces the generated one and moves to its
/// place.
///
/// As Nette's `InjectExtension::checkType`, a property whose type has no autowired service is
/// reported here, naming the property (`missing-service`: `Service of type App\Db required by
/// App\Presenter::$db not found.`), as is a property type missing from the catalog
/// (`class-not-found`); such a property gets no setup.
fn inject_steps(builder: &mut ContainerBuilder, diags: &mut Diagnostics) {
    /// One property to fill: name, type, declaring class.
    struct Prop {
        name: String,
        class: String,
        declared_in: String,
    }
    let targets: Vec<(String, String)> = builder
        .definitions()
        .filter(|d| d.inject)
        .filter_map(|d| {
            let t = if d.kind == DefinitionKind::Factory {
                d.extras().result_type.clone()
            } else {
                d.resolved_type.clone()
            };
            t.map(|t| (d.name.clone(), t))
        })
        .collect();
    let mut plans: Vec<(String, Vec<String>, Vec<Prop>)> = Vec::new();
    for (name, ty) in targets {
        let mut chain = builder.catalog.ancestors(&ty);
        chain.retain(|c| builder.catalog.get(c).is_some_and(|i| !i.interface));
        chain.reverse();
        let mut methods: Vec<String> = Vec::new();
        let mut props: Vec<Prop> = Vec::new();
        for class in &chain {
            let Some(info) = builder.catalog.get(class) else {
                continue;
            };
            for m in info.methods.keys() {
                let is_inject = m.len() > 6
                    && m.starts_with("inject")
                    && m[6..].starts_with(|c: char| c.is_uppercase());
                if is_inject {
                    // A method a subclass redeclares is declared by the subclass (PHP).
                    methods.retain(|x| *x != *m);
                    methods.push(m.to_string());
                }
            }
            for (p, prop) in &info.properties {
                let Some(c) = prop.ty.class().filter(|_| prop.inject) else {
                    continue;
                };
                let entry = Prop {
                    name: p.to_string(),
                    class: normalize_name(c),
                    declared_in: info.name.to_string(),
                };
                // A redeclaration in a subclass replaces the parent's property.
                match props.iter_mut().find(|x| x.name == *p) {
                    Some(slot) => *slot = entry,
                    None => props.push(entry),
                }
            }
        }
        props.sort_by(|a, b| b.name.cmp(&a.name));
        plans.push((name, methods, props));
    }
    // Look every type up before changing a definition: a change would make each later lookup
    // resolve all definitions again.
    let mut provided: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
    for (name, _, props) in &plans {
        let wanted: Vec<String> = match builder.get_definition(name) {
            Some(def) => props
                .iter()
                .filter(|p| !explicit_setup(def, &format!("${}", p.name)))
                .map(|p| p.class.clone())
                .collect(),
            None => continue,
        };
        for class in wanted {
            if let std::collections::hash_map::Entry::Vacant(slot) = provided.entry(class) {
                // Several candidates are reported with the setup, when it is completed.
                let found = !matches!(builder.get_by_type(slot.key()), Ok(None));
                slot.insert(found);
            }
        }
    }
    for (name, methods, props) in plans {
        let Some(def) = builder.get_definition(&name) else {
            continue;
        };
        let (prefix, span) = (def.descriptor(), def.span);
        let mut rest = def.setup.clone();
        let mut added: Vec<Expr> = Vec::new();
        for m in methods {
            added.push(match take_explicit(&mut rest, &m) {
                Some(explicit) => explicit,
                None => Expr::bare(ExprKind::Str(m)),
            });
        }
        for p in props {
            if let Some(explicit) = take_explicit(&mut rest, &format!("${}", p.name)) {
                added.push(explicit);
                continue;
            }
            let required_by = format!("{}::${}", p.declared_in, p.name);
            if !builder.catalog.exists(&p.class) {
                let mut d = Diagnostic::error(
                    Code::ClassNotFound,
                    format!(
                        "{prefix}: Class '{}' required by {required_by} not found.",
                        p.class
                    ),
                )
                .at(span);
                let classes = builder.catalog.classes().map(|c| c.name.as_str());
                d = match suggest(&p.class, classes) {
                    Some(s) => d.with_note(format!("did you mean '{s}'?")),
                    None => d.with_note(builder.catalog.class_not_found_note()),
                };
                diags.push(d);
                continue;
            }
            if provided.get(&p.class) == Some(&false) {
                diags.push(
                    Diagnostic::error(
                        Code::MissingService,
                        format!(
                            "{prefix}: Service of type {} required by {required_by} not found.",
                            p.class
                        ),
                    )
                    .at(span)
                    .with_note("Did you add it to configuration file?"),
                );
                continue;
            }
            let mut a = ExprArray::new();
            a.items.insert(
                Key::Str(format!("${}", p.name).into()),
                Expr::bare(ExprKind::Str(format!("@{}", p.class))),
            );
            added.push(Expr::bare(ExprKind::Array(a)));
        }
        if added.is_empty() {
            continue;
        }
        if let Some(def) = builder.get_definition_mut(&name) {
            added.append(&mut rest);
            def.setup = added;
        }
    }
}

/// Does `def` already set up `key` (a method name, or `$property`) explicitly?
fn explicit_setup(def: &crate::builder::Definition, key: &str) -> bool {
    def.setup.iter().any(|s| is_setup_of(s, key))
}

/// Removes every setup entry of `key` from `setup` and returns the last one (Nette keeps the
/// last match and drops the others).
fn take_explicit(setup: &mut Vec<Expr>, key: &str) -> Option<Expr> {
    let mut last = None;
    setup.retain(|s| {
        if is_setup_of(s, key) {
            last = Some(s.clone());
            false
        } else {
            true
        }
    });
    last
}

/// Is the setup entry `s` a call of method `key`, or a write of property `key` (`$name`)?
fn is_setup_of(s: &Expr, key: &str) -> bool {
    match &s.kind {
        ExprKind::Str(x) => x == key,
        ExprKind::Statement(st) => {
            matches!(&st.callee, crate::expr::Callee::Name(n) if n == key)
        }
        ExprKind::Array(a) => a.items.keys().any(|k| k.as_string() == key),
        _ => false,
    }
}

/// Runs the `search:` section (see the private step below); definitions it adds or changes remember the
/// section as their origin (`explain`).
pub fn search(section: &Expr, builder: &mut ContainerBuilder, diags: &mut Diagnostics) {
    as_actor(builder, "search", |b| search_section(section, b, diags));
}

/// `search:` in phase B: registers catalog classes as anonymous services. A batch is
/// `{in: Namespace, classes: [masks], extends: [..], implements: [..], exclude: {classes,
/// extends, implements}, tags: [..]}`; a section with `in` or `classes` at the top is one
/// batch. Class masks follow Nette (see [`mask_matches`]): `*` matches within one namespace
/// level, `**\` zero or more levels; a mask without `\` matches the short class name.
/// `extends`/`implements` (and their `exclude` forms) test for a proper subclass, as PHP's
/// `isSubclassOf`: a named class is not selected (or excluded) by itself. Batch `tags` are
/// `[name]` or `[name: value]`, as Nette's `Arrays::normalize`.
///
/// As Nette's `SearchExtension`, all batches are searched first: a class found by several is
/// registered once, with their tags merged (a keyed tag of a later batch wins). Then classes
/// already provided by a definition from before the search (Nette's `findByType`) are
/// skipped, and the rest are added in the order they were found.
/// Candidates are instantiable classes and interfaces whose only method is `create()` (registered
/// as a generated factory) or `get()` (an accessor).
fn search_section(section: &Expr, builder: &mut ContainerBuilder, diags: &mut Diagnostics) {
    if !valid(&crate::schema::Expect::array(), section, &["search"], diags) {
        return;
    }
    let Some(map) = section.as_array() else {
        return;
    };
    let batches: Vec<(Vec<String>, &Expr)> =
        if map.get("in").is_some() || map.get("classes").is_some() {
            vec![(vec!["search".to_string()], section)]
        } else {
            map.items
                .iter()
                .map(|(k, v)| (vec!["search".to_string(), k.as_string()], v))
                .collect()
        };
    // Class → its tags, in the order the classes are first found (a class found by several
    // batches is registered once, with the tags of all of them).
    let mut found: indexmap::IndexMap<String, Vec<(Option<String>, Expr)>> =
        indexmap::IndexMap::new();
    for (path, batch) in batches {
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        if !valid(
            &crate::schema::sections::search_batch(),
            batch,
            &path,
            diags,
        ) {
            continue;
        }
        let batch_span = batch.span;
        let Some(batch) = batch.as_array() else {
            continue;
        };
        // Nette's `extends`/`implements` take existing types; a typo there would just find
        // nothing.
        let mut unknown = false;
        let ex = batch.get("exclude").and_then(Expr::as_array);
        for (key, v) in [
            ("extends", batch.get("extends")),
            ("implements", batch.get("implements")),
            (
                "exclude\u{a0}›\u{a0}extends",
                ex.and_then(|e| e.get("extends")),
            ),
            (
                "exclude\u{a0}›\u{a0}implements",
                ex.and_then(|e| e.get("implements")),
            ),
        ] {
            for (name, span) in spanned_names(v) {
                if builder.catalog.exists(&name) {
                    continue;
                }
                unknown = true;
                let mut d = Diagnostic::error(
                    Code::ClassNotFound,
                    format!(
                        "Class or interface '{name}' not found (in '{}\u{a0}›\u{a0}{key}').",
                        path.join("\u{a0}›\u{a0}")
                    ),
                )
                .at(span.or(batch_span));
                let classes = builder.catalog.classes().map(|c| c.name.as_str());
                d = match suggest(&name, classes) {
                    Some(s) => d.with_note(format!("did you mean '{s}'?")),
                    None => d.with_note(builder.catalog.class_not_found_note()),
                };
                diags.push(d);
            }
        }
        let namespace = batch.get("in").and_then(Expr::as_str).map(normalize_name);
        let classes = names(batch.get("classes"));
        let parents: Vec<String> = names(batch.get("extends"))
            .into_iter()
            .chain(names(batch.get("implements")))
            .collect();
        let exclude = batch.get("exclude").and_then(Expr::as_array);
        let ex_classes = names(exclude.and_then(|e| e.get("classes")));
        let ex_parents: Vec<String> = names(exclude.and_then(|e| e.get("extends")))
            .into_iter()
            .chain(names(exclude.and_then(|e| e.get("implements"))))
            .collect();
        check_tag_entries(batch.get("tags"), &path.join(PATH_SEPARATOR), diags);
        let tags = tag_entries(batch.get("tags"));
        let cat = &builder.catalog;
        let matching = cat
            .classes()
            .filter(|c| (!c.interface && !c.is_abstract) || generated_kind(cat, c).is_some())
            .filter(|c| {
                namespace.as_ref().is_none_or(|ns| {
                    c.name
                        .to_lowercase()
                        .starts_with(&format!("{}\\", ns.to_lowercase()))
                })
            })
            .filter(|c| classes.is_empty() || classes.iter().any(|m| mask_matches(m, &c.name)))
            .filter(|c| parents.is_empty() || parents.iter().any(|p| cat.is_subclass(&c.name, p)))
            .filter(|c| !ex_classes.iter().any(|m| mask_matches(m, &c.name)))
            .filter(|c| !ex_parents.iter().any(|p| cat.is_subclass(&c.name, p)));
        let matching: Vec<&crate::catalog::ClassInfo> = matching.collect();
        if matching.is_empty() && !unknown {
            empty_batch(
                builder,
                &path,
                batch,
                namespace.as_deref(),
                batch_span,
                diags,
            );
        }
        for c in matching {
            // PHP's array_merge of the batches' tags: string keys overwrite, others append.
            let merged = found.entry(c.name.to_string()).or_default();
            for (k, v) in &tags {
                match k
                    .as_ref()
                    .and_then(|k| merged.iter_mut().find(|(m, _)| m.as_ref() == Some(k)))
                {
                    Some(slot) => slot.1 = v.clone(),
                    None => merged.push((k.clone(), v.clone())),
                }
            }
        }
    }
    // As Nette's beforeCompile: classes some definition already provides are dropped before
    // any of the found ones is added.
    found.retain(|class, _| builder.find_by_type(class).is_ok_and(|v| v.is_empty()));
    for (class, tags) in found {
        let kind = builder
            .catalog
            .get(&class)
            .and_then(|c| generated_kind(&builder.catalog, c));
        if let Ok(def) = builder.add_definition(None, section.span) {
            match kind {
                Some(kind) => {
                    def.kind = kind;
                    def.extras_mut().implement = Some(class);
                }
                None => def.set_creator(&class, ExprArray::new()),
            }
            def.tags = normalize_tags(&tags);
        }
    }
}

/// The namespace of `spaces` a folder path written as a `search: in:` (`app/Model`,
/// `%appDir%/model`) most likely stands for: the longest whose last names are the path's
/// last folder names, compared without letter case; `None` when none ends with the last one.
fn folder_namespace(path: &str, spaces: &[String]) -> Option<String> {
    let folders: Vec<String> = path
        .split(['/', '\\'])
        .filter(|f| !f.is_empty() && *f != "." && *f != ".." && !f.contains('%'))
        .map(str::to_lowercase)
        .collect();
    let matching = |ns: &String| {
        let names: Vec<String> = ns.split('\\').map(str::to_lowercase).collect();
        names
            .iter()
            .rev()
            .zip(folders.iter().rev())
            .take_while(|(n, f)| n == f)
            .count()
    };
    spaces
        .iter()
        .map(|ns| (matching(ns), ns))
        .filter(|(n, _)| *n > 0)
        .max_by_key(|(n, ns)| (*n, std::cmp::Reverse(ns.len())))
        .map(|(_, ns)| ns.clone())
}

/// The warning for a batch that finds no class, with the likely reason: a namespace (`in`)
/// that holds no class of the catalog (and the closest one that does), or masks and filters
/// that leave nothing.
fn empty_batch(
    builder: &ContainerBuilder,
    path: &[&str],
    batch: &ExprArray,
    namespace: Option<&str>,
    span: Option<crate::source::Span>,
    diags: &mut Diagnostics,
) {
    let label = path.join("\u{a0}›\u{a0}");
    let mut d = Diagnostic::warning(
        Code::EmptySearch,
        format!("The search batch '{label}' finds no class."),
    );
    let in_namespace = |ns: &str| {
        let prefix = format!("{}\\", ns.to_lowercase());
        builder
            .catalog
            .classes()
            .any(|c| c.name.to_lowercase().starts_with(&prefix))
    };
    match namespace.filter(|ns| !in_namespace(ns)) {
        Some(ns) => {
            let at = batch.get("in").and_then(|v| v.span).or(span);
            d = d
                .at(at)
                .with_note(format!("no class of the catalog is in the namespace {ns}"));
            let mut spaces: Vec<String> = Vec::new();
            for c in builder.catalog.classes() {
                let mut parts: Vec<&str> = c.name.split('\\').collect();
                while parts.len() > 1 {
                    parts.pop();
                    let n = parts.join("\\");
                    if !spaces.contains(&n) {
                        spaces.push(n);
                    }
                }
            }
            match ns
                .contains(['/', '.'])
                .then(|| folder_namespace(ns, &spaces))
            {
                // A folder, as Nette's `search: in:` takes (a new user's trial).
                Some(guess) => {
                    d = d.with_note(
                        "`in:` names the namespace the classes are in (`App\\Model`), not a \
                         folder as in Nette: wireplan reads classes from its catalog, not from \
                         files",
                    );
                    match guess {
                        Some(guess) => d = d.with_note(format!("did you mean '{guess}'?")),
                        None if !spaces.is_empty() => {
                            let shown: Vec<&str> =
                                spaces.iter().take(6).map(String::as_str).collect();
                            let more = if spaces.len() > 6 { ", …" } else { "" };
                            d = d.with_note(format!(
                                "the catalog's namespaces: {}{more}",
                                shown.join(", ")
                            ));
                        }
                        None => {}
                    }
                }
                None => d = d.with_suggestion(ns, spaces.iter().map(String::as_str)),
            }
        }
        None => {
            d = d.at(span).with_note(
                "no class of the catalog passes its `in`, `classes`, `extends`, `implements` and \
                 `exclude` (search registers instantiable classes, and interfaces with only \
                 create() or get())",
            );
        }
    }
    diags.push(d);
}

/// The names of a string or a list of strings, with where each was written.
fn spanned_names(v: Option<&Expr>) -> Vec<(String, Option<crate::source::Span>)> {
    match v.map(|e| &e.kind) {
        Some(ExprKind::Str(s)) => vec![(normalize_name(s), v.and_then(|e| e.span))],
        Some(ExprKind::Array(a)) => a
            .values()
            .filter_map(|x| x.as_str().map(|s| (normalize_name(s), x.span)))
            .collect(),
        _ => Vec::new(),
    }
}

/// For an interface `search` may register: `Factory` when its one method (inherited ones
/// included) is `create`, `Accessor` when it is `get`, as Nette's `SearchExtension`. `None`
/// for classes and for other interfaces.
fn generated_kind(
    cat: &crate::catalog::Catalog,
    info: &crate::catalog::ClassInfo,
) -> Option<DefinitionKind> {
    if !info.interface {
        return None;
    }
    let mut methods: Vec<&str> = Vec::new();
    for a in cat.ancestors(&info.name) {
        for m in cat.get(&a).into_iter().flat_map(|c| c.methods.keys()) {
            if !methods.iter().any(|x| x.eq_ignore_ascii_case(m)) {
                methods.push(m);
            }
        }
    }
    match methods.as_slice() {
        ["create"] => Some(DefinitionKind::Factory),
        ["get"] => Some(DefinitionKind::Accessor),
        _ => None,
    }
}

/// Reports each unkeyed entry of a `tags:` list at `path` (`decorator › App\Notifier`, the
/// parts joined by [`PATH_SEPARATOR`] as the schema joins them) that names no tag (a map, a
/// list, a bool...): `invalid-value`, as for a service's `tags:`, with the Nette form of
/// Symfony's `{name: …}`. Nette's `Arrays::normalize` fails on such an entry (it cannot be an
/// array key); [`normalize_tags`] leaves it out, so without this report a decorator's
/// Symfony-style tag was dropped without a word (a Symfony user's trial).
fn check_tag_entries(tags: Option<&Expr>, path: &str, diags: &mut Diagnostics) {
    let Some(tags) = tags.and_then(Expr::as_array) else {
        return;
    };
    for (k, t) in &tags.items {
        if matches!(k, Key::Int(_)) && !matches!(t.kind, ExprKind::Str(_) | ExprKind::Int(_)) {
            diags.push(not_a_tag_name(&format!("{path}{PATH_SEPARATOR}tags"), t));
        }
    }
}

/// `invalid-value` for an item of a `tags:` list at `item` (`services › x › tags`) that names
/// no tag; a Symfony `{name: t, …}` map gets a note on how Nette writes it.
pub(crate) fn not_a_tag_name(item: &str, t: &Expr) -> Diagnostic {
    let d = Diagnostic::error(
        Code::InvalidValue,
        format!(
            "The item '{item}' expects to be tag names, {} given.",
            t.describe()
        ),
    )
    .at(t.span);
    match t
        .as_array()
        .and_then(|a| a.get("name"))
        .and_then(Expr::as_str)
    {
        Some(tag) => d.with_note(crate::config::symfony::tag_map_note(tag)),
        None => d,
    }
}

/// The entries of a `tags:` list as written: string key (or none) and value.
fn tag_entries(tags: Option<&Expr>) -> Vec<(Option<String>, Expr)> {
    tags.and_then(Expr::as_array)
        .map(|a| {
            a.items
                .iter()
                .map(|(k, v)| (k.as_str().map(str::to_string), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// Tags as Nette's `Arrays::normalize($tags, filling: true)`: an entry without a string key
/// names a tag (value `true`), a keyed entry is tag name → value. Entries without a key whose
/// value is not a string or an integer are ignored.
fn normalize_tags(entries: &[(Option<String>, Expr)]) -> indexmap::IndexMap<String, Expr> {
    let mut out = indexmap::IndexMap::new();
    for (k, v) in entries {
        let (name, value) = match (k, &v.kind) {
            (Some(k), _) => (k.clone(), v.clone()),
            (None, ExprKind::Str(s)) => (s.clone(), Expr::bare(ExprKind::Bool(true))),
            (None, ExprKind::Int(i)) => (i.to_string(), Expr::bare(ExprKind::Bool(true))),
            _ => continue,
        };
        out.insert(name, value);
    }
    out
}

/// Does a class-name mask match `class`? As Nette's `SearchExtension::buildNameRegexp`, and
/// case-insensitive: a mask without `\` is taken as `**\mask`; `**\` matches zero or more
/// whole namespace levels (`App\**\*Factory` matches `App\UiFactory`); `\**` not followed by
/// `\` matches nothing or `\` and the rest of the name (`App\**` matches `App` and everything
/// below it); any other `*` matches within one namespace level.
pub fn mask_matches(mask: &str, class: &str) -> bool {
    let mut mask = normalize_name(mask).to_lowercase();
    if !mask.contains('\\') {
        mask.insert_str(0, "**\\");
    }
    let class = normalize_name(class).to_lowercase();
    glob(&mask_tokens(&mask), class.as_bytes())
}

/// One piece of a compiled class-name mask.
#[derive(Debug, Clone, Copy, PartialEq)]
enum MaskToken {
    /// This byte.
    Byte(u8),
    /// `*`: any run of bytes without `\` (Nette: `\w*`).
    Level,
    /// `**\`: nothing, or anything ending with `\` (Nette: `(.*\\)?`).
    Levels,
    /// `\**`: nothing, or `\` and anything (Nette: `(\\.*)?`).
    Below,
}

/// Splits a mask into tokens, replacing in Nette's order: every `**\` first (left to right),
/// then `\**` in what is left, then single `*`.
fn mask_tokens(mask: &str) -> Vec<MaskToken> {
    let mut out = Vec::new();
    for (i, part) in mask.split("**\\").enumerate() {
        if i > 0 {
            out.push(MaskToken::Levels);
        }
        for (j, piece) in part.split("\\**").enumerate() {
            if j > 0 {
                out.push(MaskToken::Below);
            }
            out.extend(piece.bytes().map(|b| match b {
                b'*' => MaskToken::Level,
                b => MaskToken::Byte(b),
            }));
        }
    }
    out
}

fn glob(m: &[MaskToken], s: &[u8]) -> bool {
    match m.split_first() {
        None => s.is_empty(),
        Some((MaskToken::Levels, rest)) => {
            glob(rest, s) || (0..s.len()).any(|i| s[i] == b'\\' && glob(rest, &s[i + 1..]))
        }
        Some((MaskToken::Below, rest)) => {
            glob(rest, s)
                || (s.first() == Some(&b'\\') && (1..=s.len()).any(|i| glob(rest, &s[i..])))
        }
        Some((MaskToken::Level, rest)) => {
            let mut i = 0;
            loop {
                if glob(rest, &s[i..]) {
                    return true;
                }
                if i >= s.len() || s[i] == b'\\' {
                    return false;
                }
                i += 1;
            }
        }
        Some((MaskToken::Byte(c), rest)) => s.first() == Some(c) && glob(rest, &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::mask_matches;

    #[test]
    fn masks_follow_nette() {
        assert!(mask_matches("*Repository", "App\\Model\\ArticleRepository"));
        assert!(!mask_matches("*Repository", "App\\Model\\ArticleRepo"));
        assert!(mask_matches("App\\**\\*Factory", "App\\A\\B\\FormFactory"));
        assert!(!mask_matches("App\\*\\*Factory", "App\\A\\B\\FormFactory"));
        assert!(mask_matches("app\\*\\*factory", "App\\A\\FormFactory"));
        // `**\` is zero or more levels.
        assert!(mask_matches("App\\**\\*Factory", "App\\UiFactory"));
        assert!(!mask_matches("App\\**\\*Factory", "Other\\UiFactory"));
        assert!(mask_matches("**\\Ui*", "UiFactory"));
        // `\**` at the end: the namespace itself and everything below.
        assert!(mask_matches("App\\Model\\**", "App\\Model"));
        assert!(mask_matches("App\\Model\\**", "App\\Model\\Sub\\Repo"));
        assert!(!mask_matches("App\\Model\\**", "App\\ModelX"));
        // Elsewhere `**` is two single-level stars.
        assert!(mask_matches("App\\Fo**", "App\\Foo"));
        assert!(!mask_matches("App\\Fo**", "App\\Foo\\Bar"));
        // Without `\`: the short name, in any namespace.
        assert!(mask_matches("*Repo", "ArticleRepo"));
        assert!(!mask_matches("App*", "App\\Model\\Repo"));
    }
}
