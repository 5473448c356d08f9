//! nette/schema 1.3 in Rust: describe the expected shape of a configuration section with an
//! [`Expect`] tree, then validate and normalise values with a [`Processor`].
//!
//! The model follows `../shared/reference/nette-di.md` §18. Every `Expect::` builder and every
//! modifier of nette/schema maps to one Rust method of the same name in snake case
//! (`Expect::listOf('string')->default(['a'])` is `Expect::list_of(Expect::string()).default(…)`;
//! `Expect::type()` is [`Expect::type_`]). Values are the configuration model of
//! [`crate::expr`]: NEON values after `%parameter%` expansion.
//!
//! ```
//! use wireplan::schema::{Expect, Processor};
//! use wireplan::expr::{Expr, ExprArray, ExprKind};
//! use wireplan::neon::Key;
//!
//! let schema = Expect::structure([
//!     ("postsPerPage", Expect::int().default(Expr::bare(ExprKind::Int(10))).min(1.0)),
//!     ("title", Expect::string().required(true)),
//!     ("tags", Expect::list_of(Expect::string())),
//! ]);
//! let mut blog = ExprArray::new();
//! blog.items.insert(Key::from_string("title"), Expr::string("Hello"));
//! let value = Processor::new()
//!     .at_path(["blog"])
//!     .process(&schema, Expr::bare(ExprKind::Array(blog)))
//!     .expect("valid");
//! assert_eq!(value.as_array().unwrap().get("postsPerPage"), Some(&Expr::bare(ExprKind::Int(10))));
//! ```
//!
//! Errors are [`Diagnostic`](crate::diagnostics::Diagnostic)s in the reference's message shape
//! ("The item 'blog › postsPerPage' expects to be int, 'x' given.", path segments joined by
//! `U+00A0 › U+00A0`) with the NEON span of the offending value: `unknown-option` for
//! unexpected keys (with a "did you mean" hint), `invalid-value` for everything else.
//! Deprecations are warnings.
//!
//! Deliberate differences from nette/schema 1.3, each because wireplan has no PHP objects or
//! because the reference surprises its users:
//! - structures and arrays both produce [`ExprKind::Array`] (there is no `stdClass`);
//! - `cast_to(ClassName)` produces a statement `ClassName(…items as named arguments)`;
//! - `merge_defaults` has three states: by default a given **list** replaces a list default
//!   while maps are merged over map defaults (`list_of(string).default([a, b])` given `[a, b]`
//!   is `[a, b]`, not `[a, b, a, b]`); `merge_defaults(true)` is the reference's full merge
//!   (lists appended); `merge_defaults(false)` never merges;
//! - `float()` accepts integers and converts them (NEON `1` for a float option);
//! - a class name as a type accepts any statement (entity), since its class is only known later.

mod process;
pub mod sections;
mod types;
mod values;

#[cfg(test)]
mod tests;

pub use process::{
    misuse, validate, validate_checked, validate_items, Context, DynamicCheck, Processor,
    PATH_SEPARATOR,
};
pub use values::{format_value, merge, suggest};

use crate::expr::{Expr, ExprKind};
use indexmap::IndexMap;
use std::fmt;
use std::rc::Rc;

/// A check used by [`Expect::assert`]: `true` when the value is acceptable.
pub type AssertFn = Rc<dyn Fn(&Expr) -> bool>;
/// A stage of [`Expect::transform`]: returns the new value; may report errors through the
/// [`Context`].
pub type TransformFn = Rc<dyn Fn(Expr, &mut Context) -> Expr>;
/// A normaliser used by [`Expect::before`]: runs on the raw value of each layer before merging
/// and validation.
pub type BeforeFn = Rc<dyn Fn(Expr) -> Expr>;

/// One choice of [`Expect::any_of`]: a schema, or a constant compared by value (PHP `===`).
#[derive(Clone, Debug)]
pub enum Choice {
    /// The value must satisfy this schema.
    Schema(Box<Expect>),
    /// The value must equal this constant.
    Value(Expr),
}

impl From<Expect> for Choice {
    fn from(e: Expect) -> Choice {
        Choice::Schema(Box::new(e))
    }
}

impl From<Expr> for Choice {
    fn from(e: Expr) -> Choice {
        Choice::Value(e)
    }
}

impl From<&str> for Choice {
    fn from(s: &str) -> Choice {
        Choice::Value(Expr::string(s))
    }
}

/// One stage run after validation, in the order the modifiers were added (as nette/schema's
/// `transforms` list).
#[derive(Clone)]
pub(crate) enum Stage {
    /// `assert(check, description)`.
    Assert(AssertFn, Option<String>),
    /// `transform(f)`.
    Transform(TransformFn),
    /// `castTo(type)`.
    CastTo(String),
}

/// What kind of schema an [`Expect`] is.
#[derive(Clone, Debug)]
pub(crate) enum Shape {
    /// A Validators type string (`int`, `int|string`, `string:1..10`, `list`, `App\Foo`), with
    /// optional item and key schemas for arrays.
    Type {
        ty: String,
        /// `ty` parsed once (`mixed` when it does not parse: that misuse is reported), since
        /// every value checked against the node needs it.
        spec: types::TypeSpec,
        items: Option<Box<Expect>>,
        keys: Option<Box<Expect>>,
    },
    /// A map with known keys (hashed with FxHash: every definition of a `services:` section
    /// looks its keys up here, and SipHash made that a visible part of loading them).
    Structure {
        items: IndexMap<String, Expect, rustc_hash::FxBuildHasher>,
        other: Option<Box<Expect>>,
    },
    /// One of several schemas or constants.
    AnyOf {
        set: Vec<Choice>,
        first_is_default: bool,
    },
}

/// A schema node: nette/schema's `Type`, `Structure` or `AnyOf` with its modifiers.
///
/// Build one with the associated functions (`Expect::int()`, `Expect::structure(…)`), then chain
/// modifiers. Modifiers that do not apply to the node's kind (`other_items` on an `int`,
/// `default` on a structure) are recorded and reported as `invalid-value` errors when the schema
/// is used, instead of panicking.
#[derive(Clone)]
pub struct Expect {
    pub(crate) shape: Shape,
    pub(crate) default: Option<Expr>,
    pub(crate) required: bool,
    pub(crate) nullable: bool,
    pub(crate) min: Option<f64>,
    pub(crate) max: Option<f64>,
    pub(crate) pattern: Option<Result<(String, Rc<regex::Regex>), String>>,
    pub(crate) stages: Vec<Stage>,
    pub(crate) before: Option<BeforeFn>,
    pub(crate) dynamic: bool,
    pub(crate) deprecated: Option<String>,
    pub(crate) skip_defaults: bool,
    pub(crate) merge_defaults: Option<bool>,
    pub(crate) misuse: Vec<String>,
}

impl fmt::Debug for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Expect")
            .field("shape", &self.shape)
            .field("default", &self.default)
            .field("required", &self.required)
            .field("nullable", &self.nullable)
            .finish_non_exhaustive()
    }
}

impl Expect {
    fn with_shape(shape: Shape) -> Expect {
        Expect {
            shape,
            default: None,
            required: false,
            nullable: false,
            min: None,
            max: None,
            pattern: None,
            stages: Vec::new(),
            before: None,
            dynamic: false,
            deprecated: None,
            skip_defaults: false,
            merge_defaults: None,
            misuse: Vec::new(),
        }
    }

    /// `Expect::type('int|string:1..10')`: any type string of Nette's `Validators` — `int`,
    /// `float`, `number`, `numeric`, `string`, `unicode`, `bool`, `null`, `scalar`, `array`,
    /// `list`, `iterable`, `mixed`, `callable`, `object`, `email`, `url`, `T[]`, `?T`, unions with
    /// `|`, ranges after `:` (value for numbers, length for strings, count for arrays), and class
    /// names (any statement). `array` and `list` default to `[]`, the rest to `null`.
    pub fn type_(ty: &str) -> Expect {
        let (spec, misuse) = types::TypeSpec::parse_or_mixed(ty);
        let mut e = Expect::with_shape(Shape::Type {
            ty: ty.to_string(),
            spec,
            items: None,
            keys: None,
        });
        if matches!(ty, "array" | "list") {
            e.default = Some(process::empty_array());
        }
        e.misuse.extend(misuse);
        e
    }

    /// `Expect::string()`.
    pub fn string() -> Expect {
        Expect::type_("string")
    }

    /// `Expect::int()`.
    pub fn int() -> Expect {
        Expect::type_("int")
    }

    /// `Expect::float()` (integers are accepted and converted).
    pub fn float() -> Expect {
        Expect::type_("float")
    }

    /// `Expect::bool()`.
    pub fn bool() -> Expect {
        Expect::type_("bool")
    }

    /// `Expect::null()`.
    pub fn null() -> Expect {
        Expect::type_("null")
    }

    /// `Expect::scalar()`: bool, int, float or string.
    pub fn scalar() -> Expect {
        Expect::type_("scalar")
    }

    /// `Expect::mixed()`: anything.
    pub fn mixed() -> Expect {
        Expect::type_("mixed")
    }

    /// `Expect::email()`: a string shaped like an e-mail address.
    pub fn email() -> Expect {
        Expect::type_("email")
    }

    /// `Expect::unicode()`: a string whose `min`/`max` count characters instead of bytes.
    pub fn unicode() -> Expect {
        Expect::type_("unicode")
    }

    /// `Expect::list()`: an array with keys `0..n`, default `[]`.
    pub fn list() -> Expect {
        Expect::type_("list")
    }

    /// `Expect::array()`: any array, default `[]`.
    pub fn array() -> Expect {
        Expect::type_("array")
    }

    /// `Expect::arrayOf(valueType)`: an array whose items all satisfy `items`, default `[]`.
    pub fn array_of(items: Expect) -> Expect {
        let mut e = Expect::array();
        if let Shape::Type { items: slot, .. } = &mut e.shape {
            *slot = Some(Box::new(items));
        }
        e
    }

    /// `Expect::arrayOf(valueType, keyType)`: items and keys are both checked (keys are ints or
    /// strings; the error reads "The key of item 'a › b' expects to be …").
    pub fn array_of_keyed(items: Expect, keys: Expect) -> Expect {
        let mut e = Expect::array_of(items);
        if let Shape::Type { keys: slot, .. } = &mut e.shape {
            *slot = Some(Box::new(keys));
        }
        e
    }

    /// `Expect::listOf(type)`: a list whose items satisfy `items`, default `[]`.
    pub fn list_of(items: Expect) -> Expect {
        let mut e = Expect::list();
        if let Shape::Type { items: slot, .. } = &mut e.shape {
            *slot = Some(Box::new(items));
        }
        e
    }

    /// `Expect::structure([...])`: a map with the given keys, in this order. Unknown keys are
    /// `unknown-option` errors unless [`Expect::other_items`] allows them; absent keys get their
    /// schema's default (or are errors when `required`). An absent structure is completed from
    /// `[]`, and `null` counts as `[]`.
    pub fn structure<K: Into<String>>(items: impl IntoIterator<Item = (K, Expect)>) -> Expect {
        Expect::with_shape(Shape::Structure {
            items: items.into_iter().map(|(k, v)| (k.into(), v)).collect(),
            other: None,
        })
    }

    /// `Expect::anyOf(...)`: the value must match one of the choices (schemas or constants),
    /// tried in order.
    pub fn any_of<C: Into<Choice>>(set: impl IntoIterator<Item = C>) -> Expect {
        Expect::with_shape(Shape::AnyOf {
            set: set.into_iter().map(Into::into).collect(),
            first_is_default: false,
        })
    }

    /// `->default(value)`: the value used when the item is absent. Not for structures.
    pub fn default(mut self, value: Expr) -> Expect {
        if matches!(self.shape, Shape::Structure { .. }) {
            self.misuse
                .push("A structure has no default value; set defaults on its items.".into());
        } else {
            self.default = Some(value);
        }
        self
    }

    /// `->required(bool)`: an absent item is an error ("The mandatory item 'a › b' is missing.").
    pub fn required(mut self, required: bool) -> Expect {
        self.required = required;
        self
    }

    /// `->nullable()`: `null` is also accepted (types get `null|` in front; anyOf gets a `null`
    /// choice).
    pub fn nullable(mut self) -> Expect {
        match &mut self.shape {
            Shape::Type { ty, spec, .. } => {
                *ty = format!("null|{ty}");
                *spec = types::TypeSpec::parse_or_mixed(ty).0;
                self.nullable = true;
            }
            Shape::AnyOf { set, .. } => set.push(Choice::Value(Expr::bare(ExprKind::Null))),
            Shape::Structure { .. } => self
                .misuse
                .push("nullable() applies to types and anyOf(), not to structures.".into()),
        }
        self
    }

    /// `->min(n)`: lower bound of a number, of a string's length (bytes, characters for
    /// `unicode`), or of an array's item count.
    pub fn min(mut self, min: f64) -> Expect {
        self.min = Some(min);
        self
    }

    /// `->max(n)`: upper bound, see [`Expect::min`].
    pub fn max(mut self, max: f64) -> Expect {
        self.max = Some(max);
        self
    }

    /// `->pattern(regex)`: the whole string must match (`^(?:regex)$`, Unicode). Uses the
    /// `regex` crate's syntax (no look-around or back-references); an invalid pattern is reported
    /// when the schema is used (in a script, at the `pattern()` call), with the regex parser's
    /// reason in one line.
    pub fn pattern(mut self, pattern: &str) -> Expect {
        self.pattern = Some(
            regex::Regex::new(&format!("^(?:{pattern})$"))
                .map(|r| (pattern.to_string(), Rc::new(r)))
                .map_err(|e| format!("Invalid pattern '{pattern}': {}", regex_reason(&e))),
        );
        self
    }

    /// `->assert(callable, description)`: the value must pass `check`; otherwise "Failed
    /// assertion 'description' for item 'a › b' with value X." (`#N` without a description).
    pub fn assert(
        mut self,
        check: impl Fn(&Expr) -> bool + 'static,
        description: Option<&str>,
    ) -> Expect {
        self.stages.push(Stage::Assert(
            Rc::new(check),
            description.map(str::to_string),
        ));
        self
    }

    /// `->transform(callable)`: a stage run after validation, in the order added with
    /// [`Expect::assert`]s and [`Expect::cast_to`]; it may report errors through the context.
    pub fn transform(mut self, stage: impl Fn(Expr, &mut Context) -> Expr + 'static) -> Expect {
        self.stages.push(Stage::Transform(Rc::new(stage)));
        self
    }

    /// Whether this is a structure with an item named `name` (a key it takes).
    pub(crate) fn has_item(&self, name: &str) -> bool {
        matches!(&self.shape, Shape::Structure { items, .. } if items.contains_key(name))
    }

    /// The class names given to [`Expect::cast_to`] anywhere in this schema (built-in type
    /// names left out), for the caller to check against the catalog.
    pub fn cast_classes(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.walk(&mut |e| {
            for stage in &e.stages {
                if let Stage::CastTo(t) = stage {
                    let builtin = matches!(
                        t.to_ascii_lowercase().as_str(),
                        "int" | "float" | "string" | "bool" | "array" | "null" | "mixed"
                    );
                    if !builtin && !out.contains(t) {
                        out.push(t.clone());
                    }
                }
            }
        });
        out
    }

    /// Calls `f` on this schema and every nested one.
    fn walk(&self, f: &mut dyn FnMut(&Expect)) {
        f(self);
        match &self.shape {
            Shape::Type { items, keys, .. } => {
                for s in items.iter().chain(keys.iter()) {
                    s.walk(f);
                }
            }
            Shape::Structure { items, other } => {
                for s in items.values().chain(other.as_deref()) {
                    s.walk(f);
                }
            }
            Shape::AnyOf { set, .. } => {
                for c in set {
                    if let Choice::Schema(s) = c {
                        s.walk(f);
                    }
                }
            }
        }
    }

    /// `->castTo(type)`: `int`, `float`, `string`, `bool` and `array` convert like PHP's
    /// `settype`; a class name turns the value into a statement `Class(…)` (a map's items become
    /// named arguments, a list's items positional ones).
    pub fn cast_to(mut self, ty: &str) -> Expect {
        self.stages.push(Stage::CastTo(ty.to_string()));
        self
    }

    /// `->before(callable)`: normalises each raw layer before merging and validation (for
    /// example a string into a list).
    pub fn before(mut self, f: impl Fn(Expr) -> Expr + 'static) -> Expect {
        self.before = Some(Rc::new(f));
        self
    }

    /// `->dynamic()`: dynamic parameters (`%env.X%`, names declared dynamic, strings built from
    /// them) are accepted without checks; the processor lists them in
    /// [`Processor::dynamics`] so the check can run when the container starts.
    pub fn dynamic(mut self) -> Expect {
        self.dynamic = true;
        self
    }

    /// `->deprecated(message)`: using the item gives a warning; `%path%` in the message is
    /// replaced by the quoted path (default "The item '%path%' is deprecated.").
    pub fn deprecated(mut self, message: Option<&str>) -> Expect {
        self.deprecated = Some(
            message
                .unwrap_or("The item '%path%' is deprecated.")
                .to_string(),
        );
        self
    }

    /// `->otherItems(type)`: a structure also accepts keys it does not list, checked by `items`
    /// (`Expect::mixed()` for anything).
    pub fn other_items(mut self, items: Expect) -> Expect {
        match &mut self.shape {
            Shape::Structure { other, .. } => *other = Some(Box::new(items)),
            _ => self
                .misuse
                .push("otherItems() applies to structures.".into()),
        }
        self
    }

    /// `->skipDefaults()`: a structure leaves absent keys out of its output.
    pub fn skip_defaults(mut self) -> Expect {
        self.skip_defaults = true;
        self
    }

    /// `->mergeDefaults(bool)`: see the module documentation for the three states.
    pub fn merge_defaults(mut self, merge: bool) -> Expect {
        self.merge_defaults = Some(merge);
        self
    }

    /// `->firstIsDefault()`: an anyOf whose first choice (a constant) is the default.
    pub fn first_is_default(mut self) -> Expect {
        match &mut self.shape {
            Shape::AnyOf {
                first_is_default, ..
            } => *first_is_default = true,
            _ => self
                .misuse
                .push("firstIsDefault() applies to anyOf().".into()),
        }
        self
    }

    /// `->extend(items)`: a structure with more keys (later keys replace earlier ones).
    pub fn extend<K: Into<String>>(
        mut self,
        more: impl IntoIterator<Item = (K, Expect)>,
    ) -> Expect {
        match &mut self.shape {
            Shape::Structure { items, .. } => {
                for (k, v) in more {
                    items.insert(k.into(), v);
                }
            }
            _ => self.misuse.push("extend() applies to structures.".into()),
        }
        self
    }

    /// `->getShape()`: a structure's items (empty for other kinds).
    pub fn get_shape(&self) -> Vec<(&str, &Expect)> {
        match &self.shape {
            Shape::Structure { items, .. } => items.iter().map(|(k, v)| (k.as_str(), v)).collect(),
            _ => Vec::new(),
        }
    }

    /// The type text used in messages: `int`, `null|int`, `list`, `array` for structures, the
    /// choices joined by `|` for anyOf.
    pub fn expected(&self) -> String {
        match &self.shape {
            Shape::Type { ty, .. } => types::describe(ty),
            Shape::Structure { .. } => "array".into(),
            Shape::AnyOf { set, .. } => set
                .iter()
                .map(|c| match c {
                    Choice::Schema(s) => s.expected(),
                    Choice::Value(v) => values::format_value(v),
                })
                .collect::<Vec<_>>()
                .join("|"),
        }
    }
}

/// The reason a pattern does not parse, in one line: the `regex` crate's syntax errors span
/// several lines and quote the anchored form (`^(?:…)$`) [`Expect::pattern`] compiles, which is
/// not what the user wrote; their last line (`error: unclosed character class`) is the reason.
fn regex_reason(e: &regex::Error) -> String {
    let text = e.to_string();
    match text.lines().rev().find_map(|l| l.strip_prefix("error: ")) {
        Some(reason) => reason.to_string(),
        None => text.lines().last().unwrap_or_default().to_string(),
    }
}
