//! Processing values against schemas: normalise each layer, merge the layers, complete
//! (validate, fill defaults, transform), as nette/schema's `Processor::processMultiple`.

use super::types::{format_number, Range, TypeSpec};
use super::values::{cast, format_value, merge, merge_with, suggest};
use super::{Choice, Expect, Shape, Stage};
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::source::Span;

mod misuses;
use misuses::collect_misuse;
pub use misuses::misuse;

mod complete;
use complete::{complete_any_of, complete_structure, complete_type};

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
        // One word where a list is expected (`tags: logaware`): the list of one (a trial).
        if let (ExprKind::Str(text), "array" | "list") = (&v.kind, expected) {
            if let Some(last) = self.errors.last_mut() {
                last.notes.push(format!(
                    "a list of one item is written in brackets: [{text}]"
                ));
            }
        }
        // A call where a list of calls goes (`setup:` then `setName(x)` without its `-`).
        if let (ExprKind::Statement(_), "array" | "list") = (&v.kind, expected) {
            if let Some(last) = self.errors.last_mut() {
                last.notes.push(format!(
                    "each item of a list is written on its own line after `- ` (`- {}(…)`), or \
                     the list in brackets",
                    crate::diagnostics::visible_text(&call_text(v))
                ));
            }
        }
        // A misspelt boolean (`inject: ture`) is a string: the spelling it most likely meant
        // (a new user's trial got no hint).
        if let (ExprKind::Str(text), true) = (&v.kind, expected.split('|').any(|t| t == "bool")) {
            let words = ["true", "false", "yes", "no", "on", "off"];
            if let Some(meant) = suggest(&text.to_lowercase(), words) {
                if let Some(last) = self.errors.last_mut() {
                    last.notes.push(format!("did you mean '{meant}'?"));
                }
            }
        }
        // A whole number past the 64-bit range is text in NEON (as in nette/neon), which the
        // quoted, shortened value does not make plain.
        if let ExprKind::Str(text) = &v.kind {
            if let Some(note) = expected
                .contains("int")
                .then(|| crate::diagnostics::past_int_range_note(text))
                .flatten()
            {
                if let Some(last) = self.errors.last_mut() {
                    last.notes.push(note);
                }
            }
        }
        // A value known only at start-up (`%env.X%`, a `--dynamic` parameter) meets a schema
        // that checks it now: Nette's `->dynamic()` lets it through unchecked.
        if matches!(v.kind, ExprKind::Dynamic(_) | ExprKind::Concat(_)) {
            if let Some(last) = self.errors.last_mut() {
                last.notes.push(
                    "its value is read at start-up (a dynamic parameter), so it cannot be checked \
                     now; an extension's schema accepts such a value where it says `.dynamic()` \
                     (Expect::int().dynamic(), as in Nette)"
                        .to_string(),
                );
            }
        }
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
            Err(in_written_order(ctx.errors))
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
/// structure-shaped item; see `completes_item_by_item`), each item is completed once, in
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
    diags.extend(in_written_order(ctx.errors));
    (out, all)
}

/// `errors` in the order of the text they point at (file, then offset; errors without a
/// place first, in the order found): the schema visits a structure's keys in its own order
/// (as Nette's `Structure::complete`), which read bottom-up in a section written otherwise.
fn in_written_order(mut errors: Vec<Diagnostic>) -> Vec<Diagnostic> {
    errors.sort_by_key(|d| d.primary_span().map(|s| (s.file, s.start)));
    errors
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

/// At most this many keys are listed after an unknown one (a larger structure's list would be
/// longer than the message).
const MAX_LISTED_KEYS: usize = 8;

/// `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
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
    let suggested = suggest(name, items.keys().map(String::as_str));
    match suggested {
        Some(s) => msg.push_str(&format!(", did you mean '{s}'?")),
        None => msg.push('.'),
    }
    ctx.error(Code::UnknownOption, msg, at);
    // Without a close name, the keys the structure takes (when they are few enough to read:
    // `decorator › App\Logger › autowired` said nothing of `setup`, `tags`, `inject`).
    if suggested.is_none() && (1..=MAX_LISTED_KEYS).contains(&items.len()) {
        let keys: Vec<String> = items.keys().map(|k| format!("'{k}'")).collect();
        if let Some(d) = ctx.errors.last_mut() {
            d.notes.push(format!("expected {}", or_list(&keys)));
        }
    }
    ctx.path.pop();
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

/// What a statement value calls, shortened (`setName`), for a note.
fn call_text(v: &Expr) -> String {
    let text = format_value(v);
    let text = text.strip_prefix("object ").unwrap_or(&text);
    text.chars().take(60).collect()
}
