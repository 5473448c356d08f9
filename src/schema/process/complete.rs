//! Completing one value against a type, a structure or an anyOf schema: validation, defaults,
//! ranges (nette/schema's `Type`, `Structure` and `AnyOf` completion).

use super::*;

pub(super) fn complete_type(
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

pub(super) fn wants_float(ty: &str) -> bool {
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

pub(super) fn check_range(schema: &Expect, spec: &TypeSpec, value: &Expr, ctx: &mut Context) {
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

pub(super) fn complete_structure(
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

pub(super) fn complete_any_of(
    schema: &Expect,
    set: &[Choice],
    value: Expr,
    ctx: &mut Context,
) -> Expr {
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
pub(super) fn same_value(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Float(x), ExprKind::Float(y)) => x == y,
        (ExprKind::Int(_), ExprKind::Float(_)) | (ExprKind::Float(_), ExprKind::Int(_)) => false,
        _ => a == b,
    }
}
