//! Interned names of the catalog: a class, method, parameter or type name is stored once per
//! catalog and shared ([`Name`]), and classes are found by name case-insensitively without
//! allocating ([`ClassKey`], [`Caseless`]), as PHP compares class names.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use indexmap::Equivalent;
use rustc_hash::{FxHashMap, FxHashSet};

use super::types::{Ty, TypeRef};

/// A shared, immutable name (class, interface, method, parameter, property, constant or type
/// text). Cloning it copies a pointer; equal names read through one `Interner` share one
/// allocation. Compares and hashes as the `str` it holds (case-sensitive; the catalog's
/// case-insensitive lookups go through `Caseless`).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Name(Arc<str>);

impl Name {
    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name(Arc::from(s))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(Arc::from(s))
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.as_str().to_string()
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

/// Hashes `s` as its ASCII-lowercase form, without allocating (PHP class names compare
/// case-insensitively; the autowiring index keys its types the same way).
pub(crate) fn hash_caseless<H: Hasher>(s: &str, state: &mut H) {
    for b in s.bytes() {
        state.write_u8(b.to_ascii_lowercase());
    }
    state.write_u8(0xff);
}

/// The key of a class in the catalog's table: its declared name, compared and hashed
/// ASCII-case-insensitively (PHP class names are case-insensitive).
#[derive(Clone, Debug)]
pub(super) struct ClassKey(pub(super) Name);

impl PartialEq for ClassKey {
    fn eq(&self, other: &ClassKey) -> bool {
        self.0.eq_ignore_ascii_case(&other.0)
    }
}

impl Eq for ClassKey {}

impl Hash for ClassKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_caseless(&self.0, state);
    }
}

/// A borrowed class name to look a [`ClassKey`] up with, in any letter case.
#[derive(Clone, Copy)]
pub(super) struct Caseless<'a>(pub(super) &'a str);

impl Hash for Caseless<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_caseless(self.0, state);
    }
}

impl Equivalent<ClassKey> for Caseless<'_> {
    fn equivalent(&self, key: &ClassKey) -> bool {
        same_name(self.0, &key.0)
    }
}

impl PartialEq for Caseless<'_> {
    fn eq(&self, other: &Self) -> bool {
        same_name(self.0, other.0)
    }
}

impl Eq for Caseless<'_> {}

/// The type names a walk over ancestors has seen, in any letter case. A few are compared one
/// by one (no allocation: almost every type has a handful of ancestors); past
/// [`SeenNames::SMALL`] they move into a hash set, so a type listing thousands of parents
/// (an input no one writes by hand, but one a fuzzer does) costs linear, not quadratic, time.
#[derive(Default)]
pub(super) struct SeenNames<'a> {
    list: Vec<&'a str>,
    set: Option<FxHashSet<Caseless<'a>>>,
}

impl<'a> SeenNames<'a> {
    /// How many names are kept in the list before they move into the set.
    const SMALL: usize = 32;

    /// Adds `name`; `false` when it (in any letter case) was seen before.
    pub(super) fn insert(&mut self, name: &'a str) -> bool {
        if let Some(set) = &mut self.set {
            return set.insert(Caseless(name));
        }
        if self.list.iter().any(|o| same_name(o, name)) {
            return false;
        }
        self.list.push(name);
        if self.list.len() > Self::SMALL {
            self.set = Some(self.list.drain(..).map(Caseless).collect());
        }
        true
    }
}

/// Do `a` and `b` name the same type (ASCII-case-insensitively)? A name read through the
/// catalog's [`Interner`] (a parameter's type, a parent) shares its class's allocation, so
/// most lookups are answered by the addresses, without reading the key's text (one cache
/// miss less per lookup in a large table).
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    (std::ptr::eq(a.as_ptr(), b.as_ptr()) && a.len() == b.len()) || a.eq_ignore_ascii_case(b)
}

/// Hands out one shared [`Name`] per distinct string and one shared [`Ty`] per distinct type
/// text while a catalog is read; dropped once the catalog is complete (the names live on in
/// the records that hold them).
#[derive(Debug, Default)]
pub(super) struct Interner {
    names: FxHashSet<Name>,
    types: FxHashMap<Name, Ty>,
}

impl Interner {
    /// Makes room for `names` more names (one per class of a `types:` section).
    pub(super) fn reserve(&mut self, names: usize) {
        self.names.reserve(names);
    }

    /// The shared name equal to `s`.
    pub(super) fn name(&mut self, s: &str) -> Name {
        if let Some(n) = self.names.get(s) {
            return n.clone();
        }
        let n = Name::from(s);
        self.names.insert(n.clone());
        n
    }

    /// The shared parsed type of exactly `text`, when it was read before.
    pub(super) fn known_ty(&self, text: &str) -> Option<Ty> {
        self.types.get(text).cloned()
    }

    /// The shared parsed type of `text` (trimmed), its names interned.
    /// The type an invalid catalog type is read as, once reported: `mixed`, marked
    /// [`TypeRef::reported`].
    pub(super) fn reported_mixed(&mut self) -> Ty {
        let mixed = self.ty("mixed");
        Ty::new(TypeRef {
            reported: true,
            ..(*mixed).clone()
        })
    }

    pub(super) fn ty(&mut self, text: &str) -> Ty {
        let text = text.trim();
        if let Some(t) = self.types.get(text) {
            return t.clone();
        }
        let t = Ty::new(TypeRef::parse_in(text, &mut |s| self.name(s)));
        let key = self.name(text);
        self.types.insert(key, t.clone());
        t
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}
