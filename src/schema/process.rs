//! Processing values against schemas: normalise each layer, merge the layers, complete
//! (validate, fill defaults, transform), as nette/schema's `Processor::processMultiple`.

use super::types::{format_number, Range, TypeSpec};
use super::values::{cast, format_value, merge, merge_with, suggest};
use super::{Choice, Expect, Shape, Stage};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::source::Span;

/// The separator of path segments in messages: `U+00A0 › U+00A0`.
pub const PATH_SEPARATOR: &str = "\u{a0}›\u{a0}";

/// A dynamic value accepted by a `dynamic()` schema: the check is left to start-up.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicCheck {
    /// Path of the item (`["blog", "tempDir"]`).
    pub path: Vec<String>,
    /// The type text the value must satisfy at start-up (`string`, `int or string`).
    pub expected: String,
    /// The dynamic value (`ExprKind::Dynamic` or `ExprKind::Concat`).
    pub value: Expr,
}

/// The state of one processing run, handed to [`Expect::transform`] stages so they can report
/// errors at the item being processed.
#[derive(Debug, Default)]
pub struct Context {
    path: Vec<String>,
    span: Option<Span>,
    is_key: bool,
    skip_defaults: bool,
    errors: Vec<Diagnostic>,
    /// For each error: the path and expected type when it is a type mismatch.
    mismatch: Vec<Option<(Vec<String>, String)>>,
    warnings: Vec<Diagnostic>,
    dynamics: Vec<DynamicCheck>,
}

impl Context {
    /// The path of the item being processed.
    pub fn path(&self) -> &[String] {
        &self.path
    }

    /// The path as messages quote it: `blog › postsPerPage` (with U+00A0 around `›`).
    pub fn path_text(&self) -> String {
        self.path.join(PATH_SEPARATOR)
    }

    /// Reports an `invalid-value` error at the current item (with its span, or the nearest
    /// enclosing one).
    pub fn add_error(&mut self, message: impl Into<String>) {
        self.error(Code::InvalidValue, message.into(), self.span);
    }

    fn error(&mut self, code: Code, message: String, span: Option<Span>) {
        self.errors
            .push(Diagnostic::error(code, message).at(span.or(self.span)));
        self.mismatch.push(None);
    }

    /// `"item 'a › b'"`, `"key of item 'a › b'"`, or `"item"` for the root.
    pub(crate) fn subject(&self) -> String {
        let label = if self.is_key { "key of item" } else { "item" };
        if self.path.is_empty() {
            label.to_string()
        } else {
            format!("{label} '{}'", self.path_text())
        }
    }

    fn type_mismatch(&mut self, expected: &str, v: &Expr) {
        let msg = format!(
            "The {} expects to be {expected}, {} given.",
            self.subject(),
            format_value(v)
        );
        self.error(Code::InvalidValue, msg, v.span);
        if let Some(last) = self.mismatch.last_mut() {
            *last = Some((self.path.clone(), expected.to_string()));
        }
    }

    fn enter(&mut self, key: String, span: Option<Span>) -> Option<Span> {
        self.path.push(key);
        let old = self.span;
        self.span = span.or(self.span);
        old
    }

    fn leave(&mut self, old: Option<Span>) {
        self.path.pop();
        self.span = old;
    }
}

/// Validates and normalises configuration values. Configure it, then call
/// [`Processor::process`] or [`Processor::process_multiple`]; warnings (deprecations) and the
/// dynamic values left for start-up stay readable afterwards.
#[derive(Debug, Default)]
pub struct Processor {
    base: Vec<String>,
    span: Option<Span>,
    skip_defaults: bool,
    /// The schema is known to be free of misuse ([`misuse`] found nothing): the walk over the
    /// whole schema that looks for it is skipped.
    schema_checked: bool,
    warnings: Vec<Diagnostic>,
    dynamics: Vec<DynamicCheck>,
}

impl Processor {
    /// A processor for a value at the root (messages read "The item expects …").
    pub fn new() -> Processor {
        Processor::default()
    }

    /// Prefixes every path with `path` (the section name, `services › s`).
    pub fn at_path<S: Into<String>>(mut self, path: impl IntoIterator<Item = S>) -> Processor {
        self.base = path.into_iter().map(Into::into).collect();
        self
    }

    /// The location used for errors about values that have no span of their own (a missing
    /// item of an absent section, values made by scripts).
    pub fn at_span(mut self, span: Option<Span>) -> Processor {
        self.span = span;
        self
    }

    /// For a schema that [`misuse`] found nothing wrong with: the schema is not checked again
    /// (a caller that validates many values against one schema checks it once).
    pub fn schema_checked(mut self) -> Processor {
        self.schema_checked = true;
        self
    }

    /// `Processor::skipDefaults()`: absent items are left out everywhere.
    pub fn skip_defaults(mut self) -> Processor {
        self.skip_defaults = true;
        self
    }

    /// Processes one value. Returns the completed value (defaults filled in, transforms
    /// applied), or every error found (not only the first).
    pub fn process(&mut self, schema: &Expect, data: Expr) -> Result<Expr, Vec<Diagnostic>> {
        self.process_multiple(schema, [data])
    }

    /// Processes layers (oldest first): each is normalised, they are merged (later wins, lists
    /// append, `key!` replaces, `null` keeps an array), and the result is completed. No layers
    /// means an absent value.
    pub fn process_multiple(
        &mut self,
        schema: &Expect,
        layers: impl IntoIterator<Item = Expr>,
    ) -> Result<Expr, Vec<Diagnostic>> {
        let mut ctx = Context {
            path: self.base.clone(),
            span: self.span,
            skip_defaults: self.skip_defaults,
            ..Context::default()
        };
        let mut problems = Vec::new();
        if !self.schema_checked {
            collect_misuse(schema, &mut problems);
        }
        for p in problems {
            ctx.add_error(format!("Invalid schema: {p}"));
        }
        let mut merged: Option<Expr> = None;
        for layer in layers {
            let layer = normalize(schema, layer, &mut ctx);
            merged = Some(match merged {
                None => layer,
                Some(base) => merge(layer, base),
            });
        }
        let data = merged.unwrap_or_else(|| Expr::new(ExprKind::Null, None));
        let value = complete(schema, data, &mut ctx);
        self.warnings.append(&mut ctx.warnings);
        self.dynamics.append(&mut ctx.dynamics);
        if ctx.errors.is_empty() {
            Ok(value)
        } else {
            Err(ctx.errors)
        }
    }

    /// Warnings collected so far (deprecated items).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// Takes the warnings out.
    pub fn take_warnings(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.warnings)
    }

    /// Dynamic values accepted by `dynamic()` schemas, with the type to check at start-up.
    pub fn dynamics(&self) -> &[DynamicCheck] {
        &self.dynamics
    }
}

/// Convenience for the compiler: processes `data` at `path`, pushes errors and warnings into
/// `diags`, and returns the completed value when there was no error.
pub fn validate(
    schema: &Expect,
    data: &Expr,
    path: &[&str],
    diags: &mut Diagnostics,
) -> Option<Expr> {
    validate_with(Processor::new(), schema, data, path, diags)
}

/// As [`validate`], for a schema in which [`misuse`] found nothing: the same result, without
/// walking the whole schema again for each value (the `services:` section validates every
/// definition against one schema).
pub fn validate_checked(
    schema: &Expect,
    data: &Expr,
    path: &[&str],
    diags: &mut Diagnostics,
) -> Option<Expr> {
    validate_with(Processor::new().schema_checked(), schema, data, path, diags)
}

/// For the `services:` section: validates the map made of `given` (key, value, where the key
/// was written; its own span `span`) against the structure `schema` at `path` as
/// [`validate_checked`] does, and keeps the items that pass when others do not. Returns the
/// completed map of the items that passed, in the schema's order, and whether all of them
/// did; warnings and errors go to `diags` (warnings first, as [`validate`] reports them).
/// `given` has no key twice.
///
/// On success the map is exactly what [`validate_checked`] returns. On errors it is what
/// validating each given item alone and then the ones that passed would make: Nette stops at
/// a definition's first mistake, wireplan builds the definition from its valid keys so that
/// its other mistakes (a wrong `autowired:` type, a missing class) are reported in the same
/// run. For a structure whose result is the sum of its items' (no stages, range, deprecation
/// or `before` on the structure, absent items leave nothing: `skip_defaults`, no required or
/// structure-shaped item; see [`completes_item_by_item`]), each item is completed once, in
/// place, with one lookup of its key and no copy (the definition map of every entry of a
/// large `services:` section); any other schema takes the general route with copies.
/// `checked`: `schema` is known to be free of misuse ([`misuse`] found nothing, as
/// [`validate_checked`] assumes); otherwise the general route validates as [`validate`] does
/// and reports the misuse.
pub fn validate_items(
    schema: &Expect,
    checked: bool,
    given: Vec<(Key, Expr, Option<Span>)>,
    span: Option<Span>,
    path: &[&str],
    diags: &mut Diagnostics,
) -> (ExprArray, bool) {
    let (Shape::Structure { items, .. }, true) =
        (&schema.shape, checked && completes_item_by_item(schema))
    else {
        return validate_items_generally(schema, checked, given, span, path, diags);
    };
    let mut ctx = Context {
        path: path.iter().map(|s| s.to_string()).collect(),
        span,
        ..Context::default()
    };
    // Unknown keys are reported in the order given, then the known ones completed in the
    // schema's order (as `complete_structure` does).
    let mut known: Vec<(usize, Expr)> = Vec::with_capacity(given.len());
    for (k, v, key_span) in given {
        let number;
        let name = match &k {
            Key::Str(s) => s.as_str(),
            Key::Int(_) => {
                number = k.as_string();
                number.as_str()
            }
        };
        match items.get_full(name) {
            Some((i, _, sub)) if has_before(sub) => {
                // Normalising (`before`); a key with `!` is unknown below, so only known
                // keys need it.
                let old = ctx.enter(name.to_string(), v.span.or(span));
                let v = normalize(sub, v, &mut ctx);
                ctx.leave(old);
                known.push((i, v));
            }
            Some((i, _, _)) => known.push((i, v)),
            None => unknown_item(&mut ctx, items, name, key_span.or(v.span)),
        }
    }
    known.sort_by_key(|(i, _)| *i);
    let mut out = ExprArray::new();
    out.items.reserve(known.len());
    for (i, v) in known {
        let Some((name, sub)) = items.get_index(i) else {
            continue;
        };
        let errors = ctx.errors.len();
        let old = ctx.enter(name.clone(), v.span);
        let done = complete(sub, v, &mut ctx);
        ctx.leave(old);
        if ctx.errors.len() == errors {
            out.items.insert(Key::from_string(name.as_str()), done);
        }
    }
    diags.extend(ctx.warnings);
    let all = ctx.errors.is_empty();
    diags.extend(ctx.errors);
    (out, all)
}

/// [`validate_items`] for any schema: the whole map validated (a copy), then, when that
/// failed, each item alone, and the items that passed together (each as [`validate_checked`]
/// when `checked`, else as [`validate`]).
pub(super) fn validate_items_generally(
    schema: &Expect,
    checked: bool,
    given: Vec<(Key, Expr, Option<Span>)>,
    span: Option<Span>,
    path: &[&str],
    diags: &mut Diagnostics,
) -> (ExprArray, bool) {
    let check = |data: &Expr, diags: &mut Diagnostics| match checked {
        true => validate_checked(schema, data, path, diags),
        false => validate(schema, data, path, diags),
    };
    let mut map = ExprArray::new();
    for (k, v, key_span) in &given {
        if let Some(at) = key_span {
            map.set_key_span(k, *at);
        }
        map.items.insert(k.clone(), v.clone());
    }
    let whole = Expr::new(ExprKind::Array(map), span);
    if let Some(Expr {
        kind: ExprKind::Array(a),
        ..
    }) = check(&whole, diags)
    {
        return (a, true);
    }
    let mut valid = ExprArray::new();
    for (k, v, _) in given {
        let mut one = ExprArray::new();
        one.items.insert(k.clone(), v.clone());
        let probe = Expr::new(ExprKind::Array(one), v.span);
        if check(&probe, &mut Diagnostics::new()).is_some() {
            valid.items.insert(k, v);
        }
    }
    let rest = Expr::new(ExprKind::Array(valid), span);
    match check(&rest, &mut Diagnostics::new()) {
        Some(Expr {
            kind: ExprKind::Array(a),
            ..
        }) => (a, false),
        _ => (ExprArray::new(), false),
    }
}

/// Whether completing a map against the structure `schema` is completing each given item on
/// its own and nothing else (see [`validate_items`]).
pub(crate) fn completes_item_by_item(schema: &Expect) -> bool {
    let Shape::Structure { items, other: None } = &schema.shape else {
        return false;
    };
    schema.stages.is_empty()
        && schema.before.is_none()
        && schema.min.is_none()
        && schema.max.is_none()
        && schema.deprecated.is_none()
        && schema.skip_defaults
        && items
            .values()
            .all(|sub| !sub.required && !matches!(sub.shape, Shape::Structure { .. }))
}

/// Whether normalising a value against `schema` can change it: a `before` somewhere in it.
fn has_before(schema: &Expect) -> bool {
    schema.before.is_some()
        || match &schema.shape {
            Shape::Type { items, .. } => items.as_deref().is_some_and(has_before),
            Shape::Structure { items, other } => {
                items.values().any(has_before) || other.as_deref().is_some_and(has_before)
            }
            // (`normalize` does not go into the choices: each is normalised when tried)
            Shape::AnyOf { .. } => false,
        }
}

/// Reports `name`, a key the structure with `items` does not know, written at `at`
/// ("Unexpected item 'a › b', did you mean 'c'?"; the caret on the key).
fn unknown_item(
    ctx: &mut Context,
    items: &indexmap::IndexMap<String, Expect, rustc_hash::FxBuildHasher>,
    name: &str,
    at: Option<Span>,
) {
    ctx.path.push(name.to_string());
    let mut msg = format!("Unexpected item '{}'", ctx.path_text());
    match suggest(name, items.keys().map(String::as_str)) {
        Some(s) => msg.push_str(&format!(", did you mean '{s}'?")),
        None => msg.push('.'),
    }
    ctx.error(Code::UnknownOption, msg, at);
    ctx.path.pop();
}

/// Every misuse of modifiers in `schema` and its sub-schemas (a modifier on a kind of node
/// that has no use for it, a bad type string or pattern), each as the text that follows
/// "Invalid schema: " in the error [`Processor::process`] reports.
pub fn misuse(schema: &Expect) -> Vec<String> {
    let mut out = Vec::new();
    collect_misuse(schema, &mut out);
    out
}

fn validate_with(
    p: Processor,
    schema: &Expect,
    data: &Expr,
    path: &[&str],
    diags: &mut Diagnostics,
) -> Option<Expr> {
    let mut p = p.at_path(path.iter().copied()).at_span(data.span);
    let result = p.process(schema, data.clone());
    diags.extend(p.take_warnings());
    match result {
        Ok(v) => Some(v),
        Err(errors) => {
            diags.extend(errors);
            None
        }
    }
}

/// The members of a type node's type string, lower-cased, without ranges (`string:1..10`);
/// `T[]` counts as `array`. `None` for structures and anyOf.
fn type_members(schema: &Expect) -> Option<Vec<String>> {
    match &schema.shape {
        Shape::Type { ty, .. } => Some(
            ty.split('|')
                .map(|m| {
                    let m = m.trim().trim_start_matches('?');
                    let m = m.split(':').next().unwrap_or(m).to_ascii_lowercase();
                    if m.ends_with("[]") {
                        "array".to_string()
                    } else {
                        m
                    }
                })
                .collect(),
        ),
        _ => None,
    }
}

/// Modifiers that do nothing on this kind of node (nette/schema has them on one kind only,
/// and calling one elsewhere is an error there): each is a schema misuse.
fn misfit_modifiers(schema: &Expect, out: &mut Vec<String>) {
    // Most nodes set none of these modifiers; every validation walks the whole schema, so the
    // common case does no work.
    if schema.pattern.is_none()
        && schema.min.is_none()
        && schema.max.is_none()
        && !schema.skip_defaults
        && schema.merge_defaults.is_none()
    {
        return;
    }
    let members = type_members(schema);
    let any = |names: &[&str]| {
        members
            .as_ref()
            .is_some_and(|m| m.iter().any(|x| names.contains(&x.as_str())))
    };
    let what = schema.expected();
    if schema.pattern.is_some()
        && !any(&[
            "string", "unicode", "email", "url", "scalar", "mixed", "none",
        ])
    {
        out.push(format!(
            "pattern() applies to strings; this schema expects {what}."
        ));
    }
    let sized = matches!(schema.shape, Shape::Structure { .. })
        || any(&[
            "int",
            "float",
            "number",
            "numeric",
            "numericint",
            "string",
            "unicode",
            "email",
            "url",
            "array",
            "list",
            "iterable",
            "scalar",
            "mixed",
            "none",
        ]);
    if (schema.min.is_some() || schema.max.is_some()) && !sized {
        out.push(format!(
            "min()/max() apply to numbers, strings, arrays and structures; this schema expects {what}."
        ));
    }
    if schema.skip_defaults && !matches!(schema.shape, Shape::Structure { .. }) {
        out.push(format!(
            "skipDefaults() applies to structures; this schema expects {what}."
        ));
    }
    if schema.merge_defaults.is_some() && members.is_none() {
        out.push(format!(
            "mergeDefaults() applies to array types (Expect::array(), listOf(), arrayOf()); this schema expects {what}."
        ));
    }
}

fn collect_misuse(schema: &Expect, out: &mut Vec<String>) {
    out.extend(schema.misuse.iter().cloned());
    if let Some(Err(e)) = &schema.pattern {
        out.push(e.clone());
    }
    misfit_modifiers(schema, out);
    match &schema.shape {
        Shape::Type { items, keys, .. } => {
            for s in items.iter().chain(keys.iter()) {
                collect_misuse(s, out);
            }
        }
        Shape::Structure { items, other } => {
            for s in items.values().chain(other.as_deref()) {
                collect_misuse(s, out);
            }
        }
        Shape::AnyOf { set, .. } => {
            for c in set {
                if let Choice::Schema(s) = c {
                    collect_misuse(s, out);
                }
            }
        }
    }
}

/// An empty array value.
pub(crate) fn empty_array() -> Expr {
    Expr::bare(ExprKind::Array(ExprArray::new()))
}

fn is_dynamic(v: &Expr) -> bool {
    matches!(v.kind, ExprKind::Dynamic(_) | ExprKind::Concat(_))
}

/// Runs `before` and recurses into known items.
fn normalize(schema: &Expect, value: Expr, ctx: &mut Context) -> Expr {
    let mut value = match &schema.before {
        Some(f) => {
            let span = value.span;
            let mut v = f(value);
            if v.span.is_none() {
                v.span = span;
            }
            v
        }
        None => value,
    };
    let span = value.span;
    match (&schema.shape, &mut value.kind) {
        (Shape::Structure { items, other }, ExprKind::Array(a)) => {
            let keys: Vec<Key> = a.items.keys().cloned().collect();
            for k in keys {
                let name = k.as_string();
                let sub = items.get(name.trim_end_matches('!')).or(other.as_deref());
                if let (Some(sub), Some(slot)) = (sub, a.items.get_mut(&k)) {
                    let item = std::mem::replace(slot, Expr::bare(ExprKind::Null));
                    let old = ctx.enter(name, item.span.or(span));
                    *slot = normalize(sub, item, ctx);
                    ctx.leave(old);
                }
            }
        }
        (
            Shape::Type {
                items: Some(sub), ..
            },
            ExprKind::Array(a),
        ) => {
            for (k, slot) in a.items.iter_mut() {
                let item = std::mem::replace(slot, Expr::bare(ExprKind::Null));
                let old = ctx.enter(k.as_string(), item.span.or(span));
                *slot = normalize(sub, item, ctx);
                ctx.leave(old);
            }
        }
        _ => {}
    }
    value
}

/// The value of an absent item: an error when required, else the default (a structure is
/// completed from `[]`).
fn complete_default(schema: &Expect, ctx: &mut Context) -> Expr {
    if schema.required {
        let msg = format!("The mandatory item '{}' is missing.", ctx.path_text());
        ctx.error(Code::InvalidValue, msg, None);
        return Expr::bare(ExprKind::Null);
    }
    match &schema.shape {
        Shape::Structure { .. } => complete(schema, empty_array(), ctx),
        Shape::AnyOf {
            set,
            first_is_default: true,
        } => match set.first() {
            Some(Choice::Value(v)) => v.clone(),
            _ => schema.default.clone().unwrap_or(Expr::bare(ExprKind::Null)),
        },
        _ => schema.default.clone().unwrap_or(Expr::bare(ExprKind::Null)),
    }
}

fn deprecation(schema: &Expect, ctx: &mut Context, span: Option<Span>) {
    if let Some(msg) = &schema.deprecated {
        let text = msg.replace("%path%", &ctx.path_text());
        ctx.warnings
            .push(Diagnostic::warning(Code::InvalidValue, text).at(span.or(ctx.span)));
    }
}

/// Validates a present value, fills defaults and applies the stages.
fn complete(schema: &Expect, value: Expr, ctx: &mut Context) -> Expr {
    let old = ctx.span;
    ctx.span = value.span.or(ctx.span);
    let out = match &schema.shape {
        Shape::Type {
            ty,
            spec,
            items,
            keys,
        } => complete_type(schema, ty, spec, items, keys, value, ctx),
        Shape::Structure { items, other } => complete_structure(schema, items, other, value, ctx),
        Shape::AnyOf { set, .. } => complete_any_of(schema, set, value, ctx),
    };
    ctx.span = old;
    out
}

fn accept_dynamic(schema: &Expect, value: Expr, ctx: &mut Context) -> Expr {
    ctx.dynamics.push(DynamicCheck {
        path: ctx.path.clone(),
        expected: schema.expected(),
        value: value.clone(),
    });
    value
}

fn complete_type(
    schema: &Expect,
    ty: &str,
    spec: &TypeSpec,
    items: &Option<Box<Expect>>,
    keys: &Option<Box<Expect>>,
    mut value: Expr,
    ctx: &mut Context,
) -> Expr {
    let errors = ctx.errors.len();
    if value.is_null()
        && matches!(
            schema.default.as_ref().map(|d| &d.kind),
            Some(ExprKind::Array(_))
        )
    {
        value = Expr::new(ExprKind::Array(ExprArray::new()), value.span);
    }
    deprecation(schema, ctx, value.span);
    if is_dynamic(&value) {
        if schema.dynamic || ty == "mixed" {
            return accept_dynamic(schema, value, ctx);
        }
        ctx.type_mismatch(&schema.expected(), &value);
        return Expr::bare(ExprKind::Null);
    }
    if !spec.matches(&value) {
        ctx.type_mismatch(&schema.expected(), &value);
        return Expr::bare(ExprKind::Null);
    }
    // Only an integer can become a float: the type string is looked at for those alone.
    if let ExprKind::Int(i) = value.kind {
        if wants_float(ty) {
            value.kind = ExprKind::Float(i as f64);
        }
    }
    check_range(schema, spec, &value, ctx);
    if let (Some(Ok((text, re))), Some(s)) = (&schema.pattern, value.as_str()) {
        if !re.is_match(s) {
            let msg = format!(
                "The {} expects to match pattern '{text}', {} given.",
                ctx.subject(),
                format_value(&value)
            );
            ctx.error(Code::InvalidValue, msg, value.span);
        }
    }
    if ctx.errors.len() > errors {
        return Expr::bare(ExprKind::Null);
    }
    if let ExprKind::Array(a) = &mut value.kind {
        let entries = std::mem::take(&mut a.items);
        for (k, item) in entries {
            let mut key = k;
            if let Some(ks) = keys {
                let key_expr = match &key {
                    Key::Int(i) => Expr::new(ExprKind::Int(*i), item.span),
                    Key::Str(s) => Expr::new(ExprKind::Str(s.to_string()), item.span),
                };
                let old = ctx.enter(key.as_string(), item.span);
                ctx.is_key = true;
                let done = complete(ks, key_expr, ctx);
                ctx.is_key = false;
                ctx.leave(old);
                key = match done.kind {
                    ExprKind::Int(i) => Key::Int(i),
                    ExprKind::Str(s) => Key::from_string(s),
                    _ => key,
                };
            }
            let item = match items {
                Some(sub) => {
                    let old = ctx.enter(key.as_string(), item.span);
                    let done = complete(sub, item, ctx);
                    ctx.leave(old);
                    done
                }
                None => item,
            };
            a.items.insert(key, item);
        }
    }
    if ctx.errors.len() > errors {
        return Expr::bare(ExprKind::Null);
    }
    if let Some(default) = &schema.default {
        value = match schema.merge_defaults {
            Some(false) => value,
            Some(true) => merge(value, default.clone()),
            None => merge_with(value, default.clone(), true),
        };
    }
    run_stages(schema, value, ctx)
}

fn wants_float(ty: &str) -> bool {
    let alts: Vec<&str> = ty
        .trim_start_matches('?')
        .split('|')
        .map(|a| a.split(':').next().unwrap_or(a))
        .collect();
    alts.contains(&"float")
        && !alts
            .iter()
            .any(|a| matches!(*a, "int" | "number" | "mixed" | "scalar" | "numeric"))
}

fn check_range(schema: &Expect, spec: &TypeSpec, value: &Expr, ctx: &mut Context) {
    if schema.min.is_none() && schema.max.is_none() {
        return;
    }
    let range = Range {
        min: schema.min,
        max: schema.max,
    };
    let (n, unit) = match &value.kind {
        ExprKind::Int(i) => (*i as f64, None),
        ExprKind::Float(f) => (*f, None),
        ExprKind::Str(s) if spec.is_unicode() => (s.chars().count() as f64, Some("characters")),
        ExprKind::Str(s) => (s.len() as f64, Some("bytes")),
        ExprKind::Array(a) => (a.len() as f64, Some("items")),
        _ => return,
    };
    if range.contains(n) {
        return;
    }
    let msg = match unit {
        None => format!(
            "The {} expects to be in range {}, {} given.",
            ctx.subject(),
            range.describe(),
            format_value(value)
        ),
        Some(u) => format!(
            "The length of {} expects to be in range {}, {} {u} given.",
            ctx.subject(),
            range.describe(),
            format_number(n)
        ),
    };
    ctx.error(Code::InvalidValue, msg, value.span);
}

fn complete_structure(
    schema: &Expect,
    items: &indexmap::IndexMap<String, Expect, rustc_hash::FxBuildHasher>,
    other: &Option<Box<Expect>>,
    value: Expr,
    ctx: &mut Context,
) -> Expr {
    let errors = ctx.errors.len();
    let span = value.span;
    let mut given = match value.kind {
        ExprKind::Null => ExprArray::new(),
        ExprKind::Array(a) => a,
        _ => {
            ctx.type_mismatch("array", &value);
            return Expr::bare(ExprKind::Null);
        }
    };
    deprecation(schema, ctx, span);
    if schema.min.is_some() || schema.max.is_some() {
        // Only a range needs the collection as a value (a copy of it).
        let as_expr = Expr::new(ExprKind::Array(given.clone()), span);
        check_range(
            schema,
            &TypeSpec::parse("array").expect("valid"),
            &as_expr,
            ctx,
        );
    }
    let mut out = ExprArray::new();
    out.items.reserve(items.len());
    // The keys `other` takes, in the order given; their values move out below.
    let mut extra: Vec<Key> = Vec::new();
    for (k, v) in &given.items {
        // The key's text, borrowed (an integer key written out).
        let number;
        let name = match k {
            Key::Str(s) => s.as_str(),
            Key::Int(_) => {
                number = k.as_string();
                number.as_str()
            }
        };
        if items.contains_key(name) {
            continue;
        }
        if other.is_some() {
            extra.push(k.clone());
            continue;
        }
        // The caret goes on the unknown key (docs/errors.md), not on its value.
        unknown_item(ctx, items, name, given.key_span(name).or(v.span));
    }
    let skip_defaults = ctx.skip_defaults || schema.skip_defaults;
    for (name, sub) in items {
        // Each given value is completed once: it moves out rather than being copied (the
        // order of the rest does not matter any more: `extra` keeps theirs). Once all are
        // taken (a definition gives two or three of its twenty keys), nothing is looked up.
        let found = if given.items.is_empty() {
            None
        } else {
            given.items.swap_remove(&Key::from_string(name.as_str()))
        };
        match found {
            Some(v) => {
                let old = ctx.enter(name.clone(), v.span);
                let done = complete(sub, v, ctx);
                ctx.leave(old);
                out.items.insert(Key::from_string(name.as_str()), done);
            }
            // An absent item whose default is not kept: working the default out would have no
            // effect (only a required item reports, only a structure completes its own items).
            None if skip_defaults
                && !sub.required
                && !matches!(sub.shape, Shape::Structure { .. }) => {}
            None => {
                let old = ctx.enter(name.clone(), None);
                let done = complete_default(sub, ctx);
                ctx.leave(old);
                if !skip_defaults {
                    out.items.insert(Key::from_string(name.as_str()), done);
                }
            }
        }
    }
    if let Some(sub) = other {
        for k in extra {
            let Some(v) = given.items.swap_remove(&k) else {
                continue;
            };
            let old = ctx.enter(k.as_string(), v.span);
            let done = complete(sub, v, ctx);
            ctx.leave(old);
            out.items.insert(k, done);
        }
    }
    if ctx.errors.len() > errors {
        return Expr::bare(ExprKind::Null);
    }
    run_stages(schema, Expr::new(ExprKind::Array(out), span), ctx)
}

fn complete_any_of(schema: &Expect, set: &[Choice], value: Expr, ctx: &mut Context) -> Expr {
    deprecation(schema, ctx, value.span);
    if is_dynamic(&value) && schema.dynamic {
        return accept_dynamic(schema, value, ctx);
    }
    let mut expecteds: Vec<String> = Vec::new();
    let mut inner: Vec<Diagnostic> = Vec::new();
    for choice in set {
        match choice {
            Choice::Schema(s) => {
                let mut dolly = Context {
                    path: ctx.path.clone(),
                    span: ctx.span,
                    skip_defaults: ctx.skip_defaults,
                    ..Context::default()
                };
                let normalized = normalize(s, value.clone(), &mut dolly);
                let res = complete(s, normalized, &mut dolly);
                if dolly.errors.is_empty() {
                    ctx.warnings.append(&mut dolly.warnings);
                    ctx.dynamics.append(&mut dolly.dynamics);
                    return run_stages(schema, res, ctx);
                }
                // Type errors of this very item are summarised; deeper ones are kept.
                for (error, mismatch) in dolly.errors.into_iter().zip(dolly.mismatch) {
                    match mismatch {
                        Some((path, expected)) if path == ctx.path => expecteds.push(expected),
                        _ => inner.push(error),
                    }
                }
            }
            Choice::Value(v) => {
                if same_value(v, &value) {
                    return run_stages(schema, value, ctx);
                }
                expecteds.push(format_value(v));
            }
        }
    }
    if !inner.is_empty() {
        ctx.mismatch.extend(inner.iter().map(|_| None));
        ctx.errors.append(&mut inner);
    } else {
        let mut unique: Vec<String> = Vec::new();
        for e in expecteds {
            if !unique.contains(&e) {
                unique.push(e);
            }
        }
        ctx.type_mismatch(&unique.join("|"), &value);
        // A string that is a typo of one of the strings allowed (`lifespan: singelton`).
        let allowed = set.iter().filter_map(|c| match c {
            Choice::Value(Expr {
                kind: ExprKind::Str(s),
                ..
            }) => Some(s.as_str()),
            _ => None,
        });
        if let ExprKind::Str(given) = &value.kind {
            if let Some(last) = ctx.errors.pop() {
                ctx.errors.push(last.with_suggestion(given, allowed));
            }
        }
    }
    Expr::bare(ExprKind::Null)
}

/// PHP `===` on configuration values.
fn same_value(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Float(x), ExprKind::Float(y)) => x == y,
        (ExprKind::Int(_), ExprKind::Float(_)) | (ExprKind::Float(_), ExprKind::Int(_)) => false,
        _ => a == b,
    }
}

fn run_stages(schema: &Expect, mut value: Expr, ctx: &mut Context) -> Expr {
    for (index, stage) in schema.stages.iter().enumerate() {
        let errors = ctx.errors.len();
        value = match stage {
            Stage::Assert(check, description) => {
                if !check(&value) {
                    let what = match description {
                        Some(d) => format!("'{d}'"),
                        None => format!("#{index}"),
                    };
                    let msg = format!(
                        "Failed assertion {what} for {} with value {}.",
                        ctx.subject(),
                        format_value(&value)
                    );
                    ctx.error(Code::InvalidValue, msg, value.span);
                }
                value
            }
            Stage::Transform(f) => {
                let span = value.span;
                let mut v = f(value, ctx);
                if v.span.is_none() {
                    v.span = span;
                }
                v
            }
            Stage::CastTo(ty) => cast(ty, value, ctx),
        };
        if ctx.errors.len() > errors {
            return Expr::bare(ExprKind::Null);
        }
    }
    value
}
