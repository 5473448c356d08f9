//! Schemas of the built-in sections, after the `getConfigSchema()` of Nette's extensions
//! (`../shared/reference/nette-di.md` §2, §10–12) and the catalog format of the architecture
//! document.
//!
//! The built-in extensions read their sections with `skip_defaults` where absent keys must stay
//! absent (a decorator without `inject` must not reset it), so these schemas validate shape and
//! types; the extensions keep their own defaults.

use super::Expect;
use crate::expr::{Expr, ExprKind};

fn bool_default(b: bool) -> Expect {
    Expect::bool().default(Expr::bare(ExprKind::Bool(b)))
}

/// A list of strings, or one string (Nette's `anyOf(listOf('string'), string()->castTo('array'))`).
fn strings() -> Expect {
    Expect::any_of([
        Expect::list_of(Expect::string()),
        Expect::string().cast_to("array"),
    ])
}

/// `true`/`false` or a list of names (`di › export › tags`, `types`).
fn bool_or_names() -> Expect {
    Expect::any_of([Expect::bool(), Expect::array_of(Expect::string())])
}

/// `includes:` — a list of file paths.
pub fn includes() -> Expect {
    Expect::list_of(Expect::string())
}

/// `parameters:` — a free-form map.
pub fn parameters() -> Expect {
    Expect::array()
}

/// `extensions:` — name → script path (a string), a statement with arguments, or a map
/// `{script, args, before, after}` (wireplan's form that declares the order of extensions).
pub fn extensions() -> Expect {
    Expect::array_of(Expect::type_("string|statement|array"))
}

/// `di:` — `debugger`, `excluded`, `parentClass`, `lazy`, `export: {parameters, tags, types}`
/// (DIExtension).
pub fn di() -> Expect {
    Expect::structure([
        ("debugger", Expect::bool()),
        ("excluded", Expect::list_of(Expect::string())),
        ("parentClass", Expect::string()),
        ("lazy", bool_default(false)),
        (
            "export",
            Expect::structure([
                ("parameters", bool_default(true)),
                ("tags", bool_or_names()),
                ("types", bool_or_names()),
            ]),
        ),
    ])
    .skip_defaults()
}

/// One entry of `decorator:` (`Type: {setup, tags, inject}`, DecoratorExtension).
pub fn decorator_entry() -> Expect {
    Expect::structure([
        ("setup", Expect::list()),
        ("tags", Expect::array()),
        ("inject", Expect::bool()),
    ])
    .skip_defaults()
}

/// One batch of `search:` (SearchExtension): `in`, `files`, `classes`, `extends`,
/// `implements`, `exclude: {files, classes, extends, implements}`, `tags`. Masks and parents are
/// a string or a list of strings. `in` is optional: the catalog has no files, so a batch may
/// select by `classes` alone.
pub fn search_batch() -> Expect {
    let exclude = Expect::structure([
        ("files", strings()),
        ("classes", strings()),
        ("extends", strings()),
        ("implements", strings()),
    ])
    .skip_defaults();
    Expect::structure([
        ("in", Expect::string()),
        ("files", strings()),
        ("classes", strings()),
        ("extends", strings()),
        ("implements", strings()),
        ("exclude", exclude),
        ("tags", Expect::array()),
    ])
    .skip_defaults()
}

/// `types:` — the catalog (architecture document, "The type catalog"): class name →
/// `{interface, abstract, extends, implements, constructor, methods, properties, constants}`.
pub fn types() -> Expect {
    let param = Expect::any_of([
        Expect::string().into(),
        Expect::null().into(),
        super::Choice::from(
            Expect::structure([
                ("type", Expect::string()),
                ("default", Expect::mixed()),
                ("variadic", Expect::bool()),
            ])
            .skip_defaults(),
        ),
    ]);
    let params = Expect::array_of(param).nullable();
    let method = Expect::structure([
        ("params", params.clone()),
        ("returns", Expect::string()),
        ("static", Expect::bool()),
    ])
    .skip_defaults();
    let property = Expect::any_of([
        Expect::string(),
        Expect::structure([("type", Expect::string()), ("inject", Expect::bool())]).skip_defaults(),
    ]);
    let class = Expect::structure([
        ("interface", Expect::bool()),
        ("abstract", Expect::bool()),
        ("extends", strings()),
        ("implements", strings()),
        ("constructor", params),
        ("methods", Expect::array_of(method).nullable()),
        ("properties", Expect::array_of(property).nullable()),
        ("constants", Expect::array()),
    ])
    .skip_defaults();
    Expect::array_of(class)
}

/// One service definition in its normalised map form (`factory` and `class` already mapped to
/// `create`/`type`), after Nette's definition schema plus wireplan's `lifespan`. Absent keys stay
/// absent (`skip_defaults`). For `services.rs`: process each definition at
/// `["services", name]`.
pub fn definition() -> Expect {
    Expect::structure([
        ("create", Expect::type_("string|statement|array")),
        ("type", Expect::type_("string|statement")),
        ("arguments", Expect::array()),
        (
            "setup",
            Expect::list_of(Expect::type_("string|statement|array")),
        ),
        ("tags", Expect::array()),
        ("autowired", Expect::type_("bool|string|array")),
        (
            "lifespan",
            Expect::any_of(["singleton", "scoped", "transient"]),
        ),
        ("imported", Expect::bool()),
        ("slot", Expect::bool()),
        ("alteration", Expect::bool()),
        ("implement", Expect::string()),
        ("references", Expect::array()),
        ("tagged", Expect::string()),
        ("inject", Expect::bool()),
        ("lazy", Expect::bool()),
        ("sync", Expect::bool()),
        // `reset: setup` is `reset: [setup]`.
        ("reset", strings()),
    ])
    .skip_defaults()
}
