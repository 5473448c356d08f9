//! The fast path for a JSON catalog file (`Registry::catalog_json()`'s form): serde reads the
//! document and hands each class of `types` to the catalog as soon as it is read, so the
//! whole `types` map never exists as a value tree — one class's value at a time does. The
//! entries go through the same checks as the `types:` section ([`parse_class`]); the checks of
//! the document around them (`format`, `version`, unknown keys) are those of
//! [`file::document_types`].

use std::fmt;

use indexmap::IndexMap;
use rustc_hash::FxHashSet;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::file::{self, ExprSeed, ExprVisitor, Unread};
use super::names::Interner;
use super::parse::{parse_class, NullDefault};
use super::{normalize_name, ClassInfo, Name};
use crate::diagnostics::Diagnostics;
use crate::expr::{Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::source::{FileId, Span};

/// Where the classes read so far go, and everything reading one needs.
struct Sink<'a> {
    names: &'a mut Interner,
    diags: &'a mut Diagnostics,
    pending: &'a mut Vec<NullDefault>,
    classes: Vec<ClassInfo>,
}

/// The classes of JSON catalog `text` (file `id`), read class by class, or why none were
/// read, after reporting it: the file is not JSON, or no catalog document. Problems are reported without positions (serde keeps
/// none); the caller reads the file again with positions when there are any.
pub(super) fn classes(
    id: FileId,
    text: &str,
    names: &mut Interner,
    diags: &mut Diagnostics,
    pending: &mut Vec<NullDefault>,
) -> Result<Vec<ClassInfo>, Unread> {
    let mut sink = Sink {
        names,
        diags,
        pending,
        classes: Vec::new(),
    };
    // serde_json's default depth limit (128) stays: a catalog is four levels deep.
    // A leading byte-order mark is skipped as in every other file wireplan reads (Windows
    // editors write one); an error's position is found in `text`, which keeps it.
    let mut de = serde_json::Deserializer::from_str(file::after_bom(text));
    let root = DocSeed(&mut sink)
        .deserialize(&mut de)
        .and_then(|root| de.end().map(|()| root));
    let Sink { diags, classes, .. } = sink;
    match root {
        Ok(root) => {
            let types = file::document_types(&root, Some(Span::new(id, 0, 0)), "", diags)
                .ok_or(Unread::Document)?;
            file::check_class_map(&types, id, diags)?;
            Ok(classes)
        }
        Err(e) => {
            diags.push(file::json_syntax_error(id, text, &e));
            Err(Unread::Syntax)
        }
    }
}

/// The document: a map whose `types` value is streamed into the sink; any other root is read
/// as a value for [`file::document_types`] to report.
struct DocSeed<'s, 'a>(&'s mut Sink<'a>);

impl<'de> DeserializeSeed<'de> for DocSeed<'_, '_> {
    type Value = Expr;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Expr, D::Error> {
        d.deserialize_any(self)
    }
}

/// Forwards every non-map value to [`ExprVisitor`], so a wrong shape reads as the value it is.
macro_rules! forward_scalars {
    () => {
        fn visit_unit<E: serde::de::Error>(self) -> Result<Expr, E> {
            ExprVisitor.visit_unit()
        }
        fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Expr, E> {
            ExprVisitor.visit_bool(b)
        }
        fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<Expr, E> {
            ExprVisitor.visit_i64(i)
        }
        fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Expr, E> {
            ExprVisitor.visit_u64(u)
        }
        fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Expr, E> {
            ExprVisitor.visit_f64(f)
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Expr, E> {
            ExprVisitor.visit_str(s)
        }
        fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Expr, E> {
            ExprVisitor.visit_string(s)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Expr, A::Error> {
            ExprVisitor.visit_seq(seq)
        }
    };
}

impl<'de> Visitor<'de> for DocSeed<'_, '_> {
    type Value = Expr;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a catalog document")
    }

    forward_scalars!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Expr, A::Error> {
        let mut items = IndexMap::default();
        while let Some(k) = map.next_key::<String>()? {
            if items.contains_key(&Key::from_string(k.clone())) {
                return Err(file::duplicate_key(&k));
            }
            let v = if k == "types" {
                map.next_value_seed(TypesSeed(&mut *self.0))?
            } else {
                map.next_value_seed(ExprSeed)?
            };
            items.insert(Key::from_string(k), v);
        }
        let mut a = ExprArray::new();
        a.items = items;
        Ok(Expr::bare(ExprKind::Array(a)))
    }
}

/// The `types` value: each class of a map goes to the sink as soon as it is read (the value
/// returned is then an empty map); another value is returned for the caller to report.
struct TypesSeed<'s, 'a>(&'s mut Sink<'a>);

impl<'de> DeserializeSeed<'de> for TypesSeed<'_, '_> {
    type Value = Expr;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Expr, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TypesSeed<'_, '_> {
    type Value = Expr;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of classes")
    }

    forward_scalars!();

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Expr, A::Error> {
        let sink = self.0;
        let mut seen: FxHashSet<Name> = FxHashSet::default();
        while let Some(k) = map.next_key::<String>()? {
            let key = sink.names.name(&k);
            if !seen.insert(key.clone()) {
                return Err(file::duplicate_key(&k));
            }
            let value = map.next_value_seed(ExprSeed)?;
            let name = normalize_name(&key);
            let info = parse_class(sink.names, &name, None, &value, sink.diags, sink.pending);
            sink.classes.push(info);
        }
        Ok(Expr::bare(ExprKind::Array(ExprArray::new())))
    }
}
