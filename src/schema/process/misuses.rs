//! Misused schemas: modifiers on a kind of node that has no use for them, bad type strings or
//! patterns, each worded as what follows "Invalid schema: " (nette/schema's own checks).

use super::*;

/// Every misuse of modifiers in `schema` and its sub-schemas (a modifier on a kind of node
/// that has no use for it, a bad type string or pattern), each as the text that follows
/// "Invalid schema: " in the error [`Processor::process`] reports.
pub fn misuse(schema: &Expect) -> Vec<String> {
    let mut out = Vec::new();
    collect_misuse(schema, &mut out);
    out
}

/// The members of a type node's type string, lower-cased, without ranges (`string:1..10`);
/// `T[]` counts as `array`. `None` for structures and anyOf.
pub(super) fn type_members(schema: &Expect) -> Option<Vec<String>> {
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
pub(super) fn misfit_modifiers(schema: &Expect, out: &mut Vec<String>) {
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

pub(super) fn collect_misuse(schema: &Expect, out: &mut Vec<String>) {
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
