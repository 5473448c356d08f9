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
pub fn to_json(value: &Value) -> J {
    kind_to_json(&value.kind)
}

fn kind_to_json(kind: &Kind) -> J {
    match kind {
        Kind::Null => J::Null,
        Kind::Bool(b) => J::Bool(*b),
        Kind::Int(i) => J::Number((*i).into()),
        Kind::Float(f) => float_to_json(*f),
        Kind::Str(s) => J::String(s.clone()),
        Kind::Date(d) => tagged("$date", J::String(d.clone())),
        Kind::Array(a) => array_to_json(a),
        Kind::Entity(e) => entity_to_json(e),
        Kind::Chain(links) => tagged(
            "$chain",
            J::Array(links.iter().map(entity_to_json).collect()),
        ),
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

fn entity_to_json(e: &Entity) -> J {
    let mut m = Map::new();
    m.insert("$entity".into(), to_json(&e.value));
    m.insert("attributes".into(), array_to_json(&e.attributes));
    J::Object(m)
}

fn array_to_json(a: &Array) -> J {
    if a.is_list() {
        J::Array(a.values().map(to_json).collect())
    } else {
        J::Object(a.iter().map(|(k, v)| (k.as_string(), to_json(v))).collect())
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
