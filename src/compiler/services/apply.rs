//! Applying a normalised definition map (`create`, `arguments`, `setup`, `tags`, …) to a
//! new or existing definition, as Nette's `DefinitionSchema` and `ServicesExtension` do.

use super::*;

/// An `invalid-value` error at `v`: the item `services › name › key` expects `expected`.
fn invalid(diags: &mut Diagnostics, name: &str, key: &str, expected: &str, v: &Expr) {
    diags.push(
        Diagnostic::error(
            Code::InvalidValue,
            format!(
                "The item 'services › {name} › {key}' expects to be {expected}, {} given.",
                v.describe()
            ),
        )
        .at(v.span),
    );
}

/// The keys of a definition map that [`apply`] reads.
const FIELDS: [&str; 16] = [
    "reset",
    "implement",
    "references",
    "tagged",
    "inject",
    "lazy",
    "sync",
    "create",
    "type",
    "arguments",
    "setup",
    "tags",
    "autowired",
    "lifespan",
    "imported",
    "slot",
];

/// The values of a definition map under the keys [`apply`] reads ([`FIELDS`]), found in one
/// pass over the map: `apply` asks for each of the sixteen keys and a map has one to four,
/// so looking each up in the map (170,000 lookups at 10,000 services) cost more than reading
/// the few keys once.
struct Fields<'a> {
    /// By position in [`FIELDS`].
    found: [Option<&'a Expr>; FIELDS.len()],
}

impl<'a> Fields<'a> {
    fn of(map: &'a ExprArray) -> Fields<'a> {
        let mut found = [None; FIELDS.len()];
        for (k, v) in &map.items {
            if let Some(i) = k.as_str().and_then(|k| FIELDS.iter().position(|f| *f == k)) {
                found[i] = Some(v);
            }
        }
        Fields { found }
    }

    /// The value under `key`, one of [`FIELDS`] (written as a literal, so the position is
    /// found when compiling).
    #[inline(always)]
    fn get(&self, key: &str) -> Option<&'a Expr> {
        let i = FIELDS.iter().position(|f| *f == key);
        debug_assert!(i.is_some(), "'{key}' is not one of the keys apply reads");
        self.found[i?]
    }
}

/// Applies a normalised definition map to a definition (new or existing).
/// `sniff` is `Some(interface has create())` for a new definition (its kind is decided here),
/// `None` when the entry modifies an existing one.
pub(in crate::compiler) fn apply(
    def: &mut Definition,
    map: &ExprArray,
    sniff: Option<bool>,
    diags: &mut Diagnostics,
) {
    let map = Fields::of(map);
    let name = def.name.clone();
    if let Some(v) = map.get("reset") {
        // The schema casts `reset: setup` to `[setup]`; a bare string is still read as a
        // one-item list should it arrive here another way.
        let parts: Vec<&str> = match &v.kind {
            ExprKind::Str(s) => vec![s.as_str()],
            ExprKind::Array(a) => a.values().filter_map(Expr::as_str).collect(),
            _ => Vec::new(),
        };
        for part in parts {
            match part {
                "all" => {
                    def.creator = None;
                    def.setup.clear();
                    def.tags.clear();
                    def.declared_type = None;
                    def.autowired = Autowired::All(true);
                }
                "arguments" => {
                    if let Some(c) = &mut def.creator {
                        c.arguments = ExprArray::new();
                    }
                }
                "setup" => def.setup.clear(),
                "tags" => def.tags.clear(),
                other => invalid(
                    diags,
                    &name,
                    "reset",
                    "all, arguments, setup or tags",
                    &Expr::string(other),
                ),
            }
        }
    }
    if let Some(v) = map.get("implement") {
        match v.as_str() {
            Some(i) => def.extras_mut().implement = Some(crate::catalog::normalize_name(i)),
            None => invalid(diags, &name, "implement", "an interface name", v),
        }
    }
    if let Some(v) = map.get("references") {
        match v.as_array() {
            Some(refs) => {
                for (k, r) in &refs.items {
                    def.extras_mut().references.insert(k.as_string(), r.clone());
                }
            }
            None => invalid(diags, &name, "references", "a map of name: @service", v),
        }
    }
    if let Some(v) = map.get("tagged") {
        match v.as_str() {
            Some(t) => def.extras_mut().tagged = Some(t.to_string()),
            None => invalid(diags, &name, "tagged", "a tag name", v),
        }
    }
    for (key, slot) in [
        ("inject", &mut def.inject),
        ("lazy", &mut def.lazy),
        ("sync", &mut def.sync),
    ] {
        if let Some(v) = map.get(key) {
            match v.kind {
                ExprKind::Bool(b) => *slot = b,
                _ => invalid(diags, &name, key, "bool", v),
            }
        }
    }
    if let (Some(has_create), Some(_)) = (sniff, &def.extras().implement) {
        // Kind sniffing, as Nette's DefinitionSchema::sniffType.
        def.kind = if !def.extras().references.is_empty() || def.extras().tagged.is_some() {
            DefinitionKind::Locator
        } else if has_create {
            DefinitionKind::Factory
        } else {
            DefinitionKind::Accessor
        };
    }
    if let Some(v) = map.get("create") {
        match creator_statement(v) {
            // `alias: '@db'`: a quoted '@…' (or @@…) is text, which cannot create anything.
            Some(_) if v.as_str().is_some_and(|s| s.starts_with("@@")) => {
                let text = &v.as_str().unwrap_or_default()[1..];
                diags.push(
                    Diagnostic::error(
                        Code::InvalidDefinition,
                        format!(
                            "Service '{name}': the creator '{text}' is a plain string, not a \
                             service reference."
                        ),
                    )
                    .at(v.span)
                    .with_note(format!(
                        "a quoted '@…' (or @@…) is text; write {text} without quotes to refer \
                         to the service"
                    )),
                );
            }
            Some(st) => {
                // Nette's ServiceDefinition: a plain alias (`create: @other`) is not autowired.
                // An accessor's `@other` is the service its get() returns, not an alias.
                if let Callee::Name(n) = &st.callee {
                    if def.kind == DefinitionKind::Service
                        && n.starts_with('@')
                        && !n.contains("::")
                    {
                        def.autowired = Autowired::All(false);
                    }
                }
                def.creator = Some(st);
            }
            None => invalid(diags, &name, "create", "a class or statement", v),
        }
    }
    if let Some(v) = map.get("type") {
        match v.as_str() {
            Some(t) => def.declared_type = Some(crate::catalog::normalize_name(t)),
            None => invalid(diags, &name, "type", "a class name", v),
        }
    }
    if let Some(v) = map.get("arguments") {
        match v.as_array() {
            Some(args) => {
                // Without a creator, the arguments wait in a creator with no class; the class
                // comes from the (result) type when the definition is resolved.
                let creator = def.creator.get_or_insert_with(|| Statement {
                    callee: Callee::Name(String::new()),
                    arguments: ExprArray::new(),
                });
                for (k, a) in &args.items {
                    creator.arguments.items.insert(k.clone(), a.clone());
                    // Where a named argument was written: an error about the name points there.
                    if let Some(span) = k.as_str().and_then(|name| args.key_span(name)) {
                        creator.arguments.set_key_span(k, span);
                    }
                }
            }
            None => invalid(diags, &name, "arguments", "array", v),
        }
    }
    if let Some(v) = map.get("setup") {
        match v.as_array() {
            Some(items) => def.setup.extend(items.values().cloned()),
            None => invalid(diags, &name, "setup", "list", v),
        }
    }
    if let Some(v) = map.get("tags") {
        match v.as_array() {
            Some(tags) => {
                for (k, t) in &tags.items {
                    match (k, t.as_str()) {
                        (Key::Int(_), Some(tag)) => {
                            def.tags
                                .insert(tag.to_string(), Expr::bare(ExprKind::Bool(true)));
                        }
                        (Key::Str(tag), _) => {
                            def.tags.insert(tag.to_string(), t.clone());
                        }
                        // Symfony's `{name: x, priority: 10}` gets a note on Nette's way.
                        _ => diags.push(crate::compiler::builtins::not_a_tag_name(
                            &format!("services › {name} › tags"),
                            t,
                        )),
                    }
                }
            }
            None => invalid(diags, &name, "tags", "array", v),
        }
    }
    if let Some(v) = map.get("autowired") {
        // A type or a list of types, each read once with where it was written.
        let listed: Option<Vec<&Expr>> = match &v.kind {
            ExprKind::Str(_) => Some(vec![v]),
            ExprKind::Array(a) => Some(a.values().collect()),
            _ => None,
        };
        let mut written = Vec::new();
        match (&v.kind, listed) {
            (ExprKind::Bool(b), _) => def.autowired = Autowired::All(*b),
            (_, Some(listed)) => {
                let mut types = Vec::with_capacity(listed.len());
                for x in listed {
                    let Some(t) = x.as_str().map(crate::catalog::normalize_name) else {
                        continue;
                    };
                    if let Some(span) = x.span {
                        written.push((t.clone(), span));
                    }
                    types.push(t);
                }
                def.autowired = Autowired::Types(types);
            }
            _ => invalid(
                diags,
                &name,
                "autowired",
                "bool, 'self', a type or a list of types",
                v,
            ),
        }
        // (Only definitions that list types have any; a change to a flag forgets them.)
        if !written.is_empty() || !def.extras().autowired_at.is_empty() {
            def.extras_mut().autowired_at = written;
        }
    }
    if let Some(v) = map.get("lifespan") {
        match v.as_str() {
            Some("singleton") => def.lifespan = Lifespan::Singleton,
            Some("scoped") => def.lifespan = Lifespan::Scoped,
            Some("transient") => def.lifespan = Lifespan::Transient,
            _ => invalid(
                diags,
                &name,
                "lifespan",
                "'singleton', 'scoped' or 'transient'",
                v,
            ),
        }
    }
    if let Some(v) = map.get("imported") {
        match v.kind {
            ExprKind::Bool(true) => def.kind = DefinitionKind::Imported,
            ExprKind::Bool(false) => {}
            _ => invalid(diags, &name, "imported", "bool", v),
        }
    }
    if let Some(v) = map.get("slot") {
        match v.kind {
            ExprKind::Bool(true) => {
                def.kind = DefinitionKind::Slot;
                // A slot is scoped; a `lifespan` written next to it is checked at complete.
                if map.get("lifespan").is_none() {
                    def.lifespan = Lifespan::Scoped;
                }
            }
            ExprKind::Bool(false) => {}
            _ => invalid(diags, &name, "slot", "bool", v),
        }
    }
}
