//! The canonical JSON of a decoded value (`../shared/conformance/neon/README.md`).
//!
//! - a collection with keys exactly `0..n` in order is an array, any other an object (keys in
//!   source order, integer keys written as decimal text);
//! - floats always carry a fraction or exponent; infinities and NaN are `{"$float": "INF"}`,
//!   `{"$float": "-INF"}`, `{"$float": "NAN"}`;
//! - dates are `{"$date": "..."}`, entities `{"$entity": value, "attributes": collection}`,
//!   chains `{"$chain": [entity, ...]}`.
//!
//! [`from_json`] is the way back, for `wireplan neon encode`.

use super::encode::EncodeError;
use super::errors::MAX_DEPTH;
use super::value::{Array, Entity, Key, Kind, Value};
use crate::source::Span;
use serde_json::{Map, Number, Value as J};

/// The canonical JSON of `value`.
///
/// Works with an explicit stack instead of recursion, so a tree as deep as the decoder allows
/// converts on any thread.
pub fn to_json(value: &Value) -> J {
    let mut work = vec![Work::Value(value)];
    let mut out: Vec<J> = Vec::new();
    while let Some(w) = work.pop() {
        match w {
            Work::Value(v) => match &v.kind {
                Kind::Array(a) => visit_array(a, &mut work),
                Kind::Entity(e) => visit_entity(e, &mut work),
                Kind::Chain(links) => {
                    work.push(Work::Chain(links.len()));
                    for e in links.iter().rev() {
                        visit_entity(e, &mut work);
                    }
                }
                scalar => out.push(scalar_to_json(scalar)),
            },
            Work::Array(a) => visit_array(a, &mut work),
            Work::List(n) => {
                let items = out.split_off(out.len() - n);
                out.push(J::Array(items));
            }
            Work::Object(a) => {
                let values = out.split_off(out.len() - a.len());
                let map = a
                    .entries
                    .keys()
                    .map(|k| k.as_string())
                    .zip(values)
                    .collect();
                out.push(J::Object(map));
            }
            Work::Entity => {
                let attributes = out.pop().unwrap_or(J::Null);
                let value = out.pop().unwrap_or(J::Null);
                let mut m = Map::new();
                m.insert("$entity".into(), value);
                m.insert("attributes".into(), attributes);
                out.push(J::Object(m));
            }
            Work::Chain(n) => {
                let links = out.split_off(out.len() - n);
                out.push(tagged("$chain", J::Array(links)));
            }
        }
    }
    out.pop().unwrap_or(J::Null)
}

/// Pending steps: visit something, or assemble the top results into a collection.
enum Work<'a> {
    Value(&'a Value),
    Array(&'a Array),
    /// The last `n` results form a JSON array.
    List(usize),
    /// The last results are the values of this collection's entries.
    Object(&'a Array),
    /// The last two results are an entity's value and attributes.
    Entity,
    /// The last `n` results are the links of a chain.
    Chain(usize),
}

fn visit_array<'a>(a: &'a Array, work: &mut Vec<Work<'a>>) {
    work.push(if a.is_list() {
        Work::List(a.len())
    } else {
        Work::Object(a)
    });
    for e in a.entries.values().rev() {
        let v = &e.value;
        work.push(Work::Value(v));
    }
}

fn visit_entity<'a>(e: &'a Entity, work: &mut Vec<Work<'a>>) {
    work.push(Work::Entity);
    work.push(Work::Array(&e.attributes));
    work.push(Work::Value(&e.value));
}

fn scalar_to_json(kind: &Kind) -> J {
    match kind {
        Kind::Bool(b) => J::Bool(*b),
        Kind::Int(i) => J::Number((*i).into()),
        Kind::Float(f) => float_to_json(*f),
        Kind::Str(s) => J::String(s.to_string()),
        Kind::Date(d) => tagged("$date", J::String(d.clone())),
        _ => J::Null,
    }
}

fn tagged(tag: &str, v: J) -> J {
    let mut m = Map::new();
    m.insert(tag.to_string(), v);
    J::Object(m)
}

fn float_to_json(f: f64) -> J {
    match Number::from_f64(f) {
        Some(n) => J::Number(n),
        None if f.is_nan() => tagged("$float", J::String("NAN".into())),
        None if f > 0.0 => tagged("$float", J::String("INF".into())),
        None => tagged("$float", J::String("-INF".into())),
    }
}

/// The value whose canonical JSON is `json`: the inverse of [`to_json`].
///
/// Integers and floats stay apart (`1` is an int, `1.0` a float); arrays are lists; objects are
/// collections with keys normalised like PHP's (`"5"` is the integer key 5). Objects of exactly
/// these shapes are special: `{"$float": "INF" | "-INF" | "NAN"}`, `{"$date": "<date>"}`
/// (normalised), `{"$entity": value, "attributes": array-or-object}` and
/// `{"$chain": [two or more entities]}`. An object that only resembles one (an unknown
/// `$float` text, a `$date` that is not a date, other keys) is an ordinary collection, as
/// `to_json` writes such collections. Spans are empty.
///
/// Errors: [`EncodeError::Json`] for an integer beyond 64 bits, [`EncodeError::TooDeep`] for
/// nesting deeper than the decoder accepts.
pub fn from_json(json: &J) -> Result<Value, EncodeError> {
    from_json_at(json, 0)
}

fn from_json_at(json: &J, depth: usize) -> Result<Value, EncodeError> {
    let kind = match json {
        J::Null => Kind::Null,
        J::Bool(b) => Kind::Bool(*b),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) if !n.is_f64() => Kind::Int(i),
            (_, Some(f)) if n.is_f64() => Kind::Float(f),
            _ => {
                return Err(EncodeError::Json(format!(
                    "the integer {n} is beyond the signed 64-bit range of NEON integers (up to {}); write it as a string",
                    i64::MAX
                )))
            }
        },
        J::String(s) => Kind::Str(s.as_str().into()),
        J::Array(items) => Kind::Array(Box::new(list_from_json(items, enter(depth)?)?)),
        J::Object(m) => {
            let depth = enter(depth)?;
            match special(m, depth)? {
                Some(k) => k,
                None => Kind::Array(Box::new(map_from_json(m, depth)?)),
            }
        }
    };
    Ok(Value::new(kind, Span::default()))
}

/// JSON nesting is limited to keep the recursion safe; a NEON value at the decoder's
/// [`MAX_DEPTH`] takes up to four JSON levels per level (a chain: object, array, link object,
/// attributes). The encoder checks the NEON depth itself.
const MAX_JSON_DEPTH: usize = 4 * MAX_DEPTH + 4;

fn enter(depth: usize) -> Result<usize, EncodeError> {
    if depth >= MAX_JSON_DEPTH {
        return Err(EncodeError::TooDeep);
    }
    Ok(depth + 1)
}

fn list_from_json(items: &[J], depth: usize) -> Result<Array, EncodeError> {
    let mut a = Array::new();
    for (i, item) in items.iter().enumerate() {
        let v = from_json_at(item, depth).map_err(|e| e.within(&i.to_string()))?;
        a.insert(Key::Int(i as i64), Span::default(), v);
    }
    Ok(a)
}

fn map_from_json(m: &Map<String, J>, depth: usize) -> Result<Array, EncodeError> {
    let mut a = Array::new();
    for (k, v) in m {
        let v = from_json_at(v, depth).map_err(|e| e.within(k))?;
        a.insert(Key::from_string(k.clone()), Span::default(), v);
    }
    Ok(a)
}

fn attributes_from_json(json: &J, depth: usize) -> Result<Option<Array>, EncodeError> {
    Ok(match json {
        J::Array(items) => Some(list_from_json(items, enter(depth)?)?),
        J::Object(m) => Some(map_from_json(m, enter(depth)?)?),
        _ => None,
    })
}

/// The kind of an object with one of the special shapes, or `None` for a plain collection.
fn special(m: &Map<String, J>, depth: usize) -> Result<Option<Kind>, EncodeError> {
    let mut keys = m.keys().map(String::as_str);
    let shape = (keys.next(), keys.next(), keys.next());
    Ok(match shape {
        (Some("$float"), None, None) => match m["$float"].as_str() {
            Some("INF") => Some(Kind::Float(f64::INFINITY)),
            Some("-INF") => Some(Kind::Float(f64::NEG_INFINITY)),
            Some("NAN") => Some(Kind::Float(f64::NAN)),
            _ => None,
        },
        (Some("$date"), None, None) => match m["$date"].as_str().and_then(super::date::parse) {
            Some(Ok(d)) => Some(Kind::Date(d)),
            _ => None,
        },
        (Some("$entity" | "attributes"), Some("$entity" | "attributes"), None) => {
            entity_from_json(m, depth)?.map(|e| Kind::Entity(Box::new(e)))
        }
        (Some("$chain"), None, None) => match &m["$chain"] {
            J::Array(links) if links.len() >= 2 => {
                let mut out = Vec::with_capacity(links.len());
                let depth = enter(depth)?;
                for link in links {
                    match link {
                        J::Object(lm) => match entity_from_json(lm, enter(depth)?)? {
                            Some(e) => out.push(e),
                            None => return Ok(None),
                        },
                        _ => return Ok(None),
                    }
                }
                Some(Kind::Chain(out))
            }
            _ => None,
        },
        _ => None,
    })
}

/// `{"$entity": value, "attributes": collection}`, or `None` for another shape.
fn entity_from_json(m: &Map<String, J>, depth: usize) -> Result<Option<Entity>, EncodeError> {
    let (Some(value), Some(attrs), 2) = (m.get("$entity"), m.get("attributes"), m.len()) else {
        return Ok(None);
    };
    let Some(attributes) = attributes_from_json(attrs, depth)? else {
        return Ok(None);
    };
    Ok(Some(Entity {
        value: from_json_at(value, depth)?,
        attributes,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    #[test]
    fn floats_keep_their_fraction_and_sign() {
        let v = Value::new(Kind::Float(-0.0), Span::default());
        assert_eq!(serde_json::to_string(&to_json(&v)).unwrap(), "-0.0");
        let v = Value::new(Kind::Float(1.0), Span::default());
        assert_eq!(serde_json::to_string(&to_json(&v)).unwrap(), "1.0");
        let v = Value::new(Kind::Float(f64::INFINITY), Span::default());
        assert_eq!(
            serde_json::to_string(&to_json(&v)).unwrap(),
            r#"{"$float":"INF"}"#
        );
    }

    /// An integer between the signed and the unsigned 64-bit limits is refused, naming the
    /// signed limit it passes (it does fit in 64 bits, unsigned).
    #[test]
    fn integers_beyond_the_signed_range_are_refused_with_that_limit() {
        let json: J = serde_json::from_str(r#"{"a": 18446744073709551615}"#).unwrap();
        let Err(EncodeError::Within(path, why)) = from_json(&json) else {
            panic!("refused");
        };
        assert_eq!(path, "a");
        let EncodeError::Json(why) = *why else {
            panic!("a JSON problem: {why}")
        };
        assert!(why.contains("signed 64-bit range"), "{why}");
        assert!(why.contains("9223372036854775807"), "{why}");
        let json: J = serde_json::from_str(r#"{"a": 9223372036854775807}"#).unwrap();
        assert!(from_json(&json).is_ok());
    }
}
