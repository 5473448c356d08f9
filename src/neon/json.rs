//! The canonical JSON of a decoded value (`../shared/conformance/neon/README.md`).
//!
//! - a collection with keys exactly `0..n` in order is an array, any other an object (keys in
//!   source order, integer keys written as decimal text);
//! - floats always carry a fraction or exponent; infinities and NaN are `{"$float": "INF"}`,
//!   `{"$float": "-INF"}`, `{"$float": "NAN"}`;
//! - dates are `{"$date": "..."}`, entities `{"$entity": value, "attributes": collection}`,
//!   chains `{"$chain": [entity, ...]}`.

use super::value::{Array, Entity, Kind, Value};
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
        Kind::Str(s) => J::String(s.clone()),
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
}
