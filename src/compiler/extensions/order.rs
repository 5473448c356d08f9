//! The order of extensions: the `before:`/`after:` items of an `extensions:` entry, and the
//! `extension-order` warning for a `beforeCompile()` lookup that misses what a later extension
//! adds (a long-standing request in Nette's tracker; wireplan's own form).
//!
//! ```neon
//! extensions:
//!     routes: routes.rhai
//!     admin: {script: admin.rhai, before: routes}
//! ```

use crate::builder::ContainerBuilder;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprArray, ExprKind};
use crate::script::{Lookup, LookupBy};
use crate::source::Span;
use std::collections::HashMap;

/// The keys of the map form of an `extensions:` entry.
const KEYS: &[&str] = &["script", "args", "before", "after"];

/// What one entry declares about its order (and its arguments, in the map form).
#[derive(Debug, Clone, Default)]
pub(super) struct Declared {
    /// Extensions this one must run before, with where each is written.
    pub before: Vec<(String, Option<Span>)>,
    /// Extensions this one must run after.
    pub after: Vec<(String, Option<Span>)>,
    /// `args:` of the map form (the script's arguments, as `path(args)` gives them).
    pub args: Option<ExprArray>,
}

/// Reads the map form `{script, args, before, after}` of the entry `name`. Returns the
/// `script` value (a path or `path(args)`) and the declared order; `None` after reporting a
/// problem (`unknown-option` for another key, `invalid-value` for a wrong shape).
pub(super) fn entry(
    name: &str,
    map: &ExprArray,
    span: Option<Span>,
    diags: &mut Diagnostics,
) -> Option<(Expr, Declared)> {
    let mut ok = true;
    for key in map.items.keys() {
        let k = key.as_string();
        if !KEYS.contains(&k.as_str()) {
            ok = false;
            diags.push(
                Diagnostic::error(
                    Code::UnknownOption,
                    format!("Unexpected item 'extensions\u{a0}›\u{a0}{name}\u{a0}›\u{a0}{k}'."),
                )
                .at(map.key_span(&k).or(span))
                .with_suggestion(&k, KEYS.iter().copied())
                .with_note(
                    "an extension entry written as a map takes script, args, before and after",
                ),
            );
        }
    }
    let script = match map.get("script") {
        Some(
            v @ Expr {
                kind: ExprKind::Str(_) | ExprKind::Statement(_),
                ..
            },
        ) => Some(v.clone()),
        Some(v) => {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "The item 'extensions\u{a0}›\u{a0}{name}\u{a0}›\u{a0}script' expects to be a script path, {} given.",
                        v.describe()
                    ),
                )
                .at(v.span.or(span)),
            );
            None
        }
        None => {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!("The item 'extensions\u{a0}›\u{a0}{name}' needs 'script' (the path of the extension's script)."),
                )
                .at(span),
            );
            None
        }
    };
    let mut declared = Declared::default();
    for (key, slot) in [
        ("before", &mut declared.before),
        ("after", &mut declared.after),
    ] {
        let Some(v) = map.get(key) else { continue };
        let items: Vec<&Expr> = match &v.kind {
            ExprKind::Str(_) => vec![v],
            ExprKind::Array(a) if a.is_list() => a.values().collect(),
            _ => vec![v],
        };
        for item in items {
            match item.as_str() {
                // Reported here, so that it is reported even when another problem of the entry
                // keeps the extension from loading (and its order from being sorted).
                Some(n) if n == name => diags.push(
                    Diagnostic::error(
                        Code::ExtensionOrder,
                        format!("Extension '{n}' cannot be ordered relative to itself."),
                    )
                    .at(item.span.or(v.span).or(span)),
                ),
                Some(n) if !n.is_empty() => slot.push((n.to_string(), item.span.or(v.span))),
                _ => {
                    ok = false;
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "The item 'extensions\u{a0}›\u{a0}{name}\u{a0}›\u{a0}{key}' expects extension names, {} given.",
                                item.describe()
                            ),
                        )
                        .at(item.span.or(v.span).or(span)),
                    );
                }
            }
        }
    }
    if let Some(a) = map.get("args") {
        match a.as_array().filter(|a| a.is_list()) {
            Some(list) => declared.args = Some(list.clone()),
            None => {
                ok = false;
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "The item 'extensions\u{a0}›\u{a0}{name}\u{a0}›\u{a0}args' expects to be list, {} given.",
                            a.describe()
                        ),
                    )
                    .at(a.span.or(span)),
                );
            }
        }
    }
    if !ok {
        return None;
    }
    script.map(|s| (s, declared))
}

/// The order to run `names` in, honouring every `before`/`after` in `declared` (same order
/// as `names`) and otherwise keeping registration order: each step takes the first extension
/// whose predecessors have all run. `None` when nothing is declared, or after an
/// `extension-order` error (an unknown name, or a cycle). An unknown name does not hide a
/// cycle among the others: both are reported.
pub(super) fn sort(
    names: &[String],
    declared: &[Declared],
    diags: &mut Diagnostics,
) -> Option<Vec<usize>> {
    if declared
        .iter()
        .all(|d| d.before.is_empty() && d.after.is_empty())
    {
        return None;
    }
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    // preds[i]: the extensions that must run before i.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    let mut ok = true;
    for (i, d) in declared.iter().enumerate() {
        for (list, is_before) in [(&d.before, true), (&d.after, false)] {
            for (other, span) in list {
                match index.get(other.as_str()) {
                    Some(&j) if j == i => {
                        ok = false;
                        diags.push(
                            Diagnostic::error(
                                Code::ExtensionOrder,
                                format!(
                                    "Extension '{other}' cannot be ordered relative to itself."
                                ),
                            )
                            .at(*span),
                        );
                    }
                    Some(&j) if is_before => preds[j].push(i),
                    Some(&j) => preds[i].push(j),
                    None => {
                        ok = false;
                        let what = if is_before { "before" } else { "after" };
                        diags.push(
                            Diagnostic::error(
                                Code::ExtensionOrder,
                                format!(
                                    "Extension '{}' is to run {what} '{other}', but no extension is registered under that name.",
                                    names[i]
                                ),
                            )
                            .at(*span)
                            .with_suggestion(other, names.iter().map(String::as_str)),
                        );
                    }
                }
            }
        }
    }
    let mut placed = vec![false; names.len()];
    let mut order = Vec::with_capacity(names.len());
    while order.len() < names.len() {
        let next = (0..names.len()).find(|&i| !placed[i] && preds[i].iter().all(|&p| placed[p]));
        match next {
            Some(i) => {
                placed[i] = true;
                order.push(i);
            }
            None => {
                let stuck: Vec<&str> = (0..names.len())
                    .filter(|&i| !placed[i])
                    .map(|i| names[i].as_str())
                    .collect();
                let span = declared
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !placed[*i])
                    .flat_map(|(_, d)| d.before.iter().chain(&d.after))
                    .find_map(|(_, s)| *s);
                diags.push(
                    Diagnostic::error(
                        Code::ExtensionOrder,
                        format!(
                            "The before:/after: order of extensions {} cannot be met: they wait for each other.",
                            stuck.join(", ")
                        ),
                    )
                    .at(span),
                );
                return None;
            }
        }
    }
    ok.then_some(order)
}

/// Service name → its tag names, to tell what an extension's call added.
pub(super) fn snapshot(b: &ContainerBuilder) -> HashMap<String, Vec<String>> {
    b.definitions()
        .map(|d| (d.name.clone(), d.tags.keys().cloned().collect()))
        .collect()
}

/// After extension `ext` ran `beforeCompile()`: a warning for each earlier extension's lookup
/// (`lookups`: extension name and lookup) that a definition `ext` added, or a tag it added,
/// would have answered differently.
pub(super) fn check_additions(
    b: &ContainerBuilder,
    before: &HashMap<String, Vec<String>>,
    ext: &str,
    lookups: &[(String, Lookup)],
    diags: &mut Diagnostics,
) {
    if lookups.is_empty() {
        return;
    }
    for (earlier, lookup) in lookups {
        let hit = b.definitions().find(|d| {
            let old = before.get(&d.name);
            match &lookup.by {
                LookupBy::Tag(t) => {
                    d.tags.get(t).is_some_and(|v| !v.is_null())
                        && !old.is_some_and(|tags| tags.contains(t))
                }
                LookupBy::Type(t) => {
                    old.is_none()
                        && d.resolved_type
                            .as_deref()
                            .is_some_and(|ty| b.catalog.is_subtype(ty, t))
                }
            }
        });
        let Some(def) = hit else { continue };
        // A tag added to a service that was there before: the change is the `addTag()` call,
        // not the definition (which another extension may have written).
        let tag_added = match &lookup.by {
            LookupBy::Tag(t) if before.contains_key(&def.name) => Some(t),
            _ => None,
        };
        let (change, label) = match tag_added {
            Some(t) => (
                format!("adds tag '{t}' to service '{}'", def.name),
                def.extras()
                    .tags_at
                    .iter()
                    .find(|(tag, _)| tag == t)
                    .map(|(_, s)| (*s, format!("'{ext}' adds tag '{t}' here"))),
            ),
            None => {
                let what = match &lookup.by {
                    LookupBy::Tag(t) => format!("with tag '{t}'"),
                    LookupBy::Type(t) => format!("of type {t}"),
                };
                (
                    format!("adds service '{}' {what}", def.name),
                    def.span
                        .map(|s| (s, format!("'{ext}' adds '{}' here", def.name))),
                )
            }
        };
        let mut d = Diagnostic::warning(
            Code::ExtensionOrder,
            format!(
                "Extension '{earlier}' called {} in beforeCompile(), but extension '{ext}', which runs later, {change}: '{earlier}' does not see it.",
                lookup.call
            ),
        )
        .at(lookup.span);
        if let Some((s, text)) = label {
            d = d.with_secondary(s, text);
        }
        diags.push(d.with_note(format!(
            "declare the order in the extensions: section, e.g. `{earlier}: {{script: …, after: {ext}}}`"
        )));
    }
}
