//! [`Members`]: the methods, properties or constants of one class, in declaration order.

use rustc_hash::FxHashMap;

use super::names::Name;

/// Named members of one class (methods, properties or constants) in declaration order, held
/// as one boxed slice: a class has a handful, so a lookup walks them instead of keeping a hash
/// table per class. A name declared twice keeps its first position and its last value, as a
/// NEON map does.
#[derive(Debug, Clone)]
pub struct Members<T>(Box<[(Name, T)]>);

impl<T> Default for Members<T> {
    fn default() -> Members<T> {
        Members(Box::default())
    }
}

impl<T> Members<T> {
    /// The members `items` in order; a repeated name keeps its first position and last value.
    pub fn from_vec(mut items: Vec<(Name, T)>) -> Members<T> {
        if items.len() > 1 {
            let mut first: FxHashMap<Name, usize> = FxHashMap::default();
            let mut kept: Vec<(Name, T)> = Vec::with_capacity(items.len());
            for (name, value) in items.drain(..) {
                match first.get(&name) {
                    Some(&i) => kept[i].1 = value,
                    None => {
                        first.insert(name.clone(), kept.len());
                        kept.push((name, value));
                    }
                }
            }
            items = kept;
        }
        Members(items.into_boxed_slice())
    }

    /// The member named exactly `name`.
    pub fn get(&self, name: &str) -> Option<&T> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Names and members in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&Name, &T)> {
        self.0.iter().map(|(n, v)| (n, v))
    }

    /// Names in declaration order.
    pub fn keys(&self) -> impl Iterator<Item = &Name> {
        self.0.iter().map(|(n, _)| n)
    }

    /// Members in declaration order.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.0.iter().map(|(_, v)| v)
    }

    /// How many members there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Are there none?
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a, T> IntoIterator for &'a Members<T> {
    type Item = (&'a Name, &'a T);
    type IntoIter =
        std::iter::Map<std::slice::Iter<'a, (Name, T)>, fn(&'a (Name, T)) -> Self::Item>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(n, v)| (n, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_name_keeps_its_first_place_and_last_value() {
        let m = Members::from_vec(vec![
            (Name::from("a"), 1),
            (Name::from("b"), 2),
            (Name::from("a"), 3),
        ]);
        let got: Vec<(&str, i32)> = m.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        assert_eq!(got, [("a", 3), ("b", 2)]);
        assert_eq!(m.get("b"), Some(&2));
        assert_eq!(m.get("B"), None);
    }
}
