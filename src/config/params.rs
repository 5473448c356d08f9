//! `%parameter%` expansion, done once over the whole configuration at the start of phase A.
//!
//! Rules (Nette, `../shared/reference/nette-di.md` §8): `%a%` that is the whole string keeps the
//! parameter's type; inside a longer string it is concatenated (only scalars can be); `%a.b%`
//! walks into nested maps; `%%` is a literal `%`; `%a%%b%` is two references. Parameters may
//! refer to each other; cycles are `circular-parameter` errors with the chain. `env.*` and names
//! declared dynamic stay [`ExprKind::Dynamic`] and are read when the container starts.

use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Expr, ExprArray, ExprKind};
use crate::neon::{Array, Entry, Key, Kind, Value};
use crate::source::Span;
use indexmap::IndexMap;
use std::collections::{HashMap, HashSet};

mod convert;
mod limits;
mod startup;

pub(crate) use limits::nested_too_deep_error;
use limits::{clear_spans, measure, nesting_levels, nests_deeper_than};
pub use limits::{MAX_EXPANDED_LEN, MAX_EXPANDED_NODES, MAX_EXPANDED_TEXT, MAX_PARAMETER_CHAIN};
pub use startup::EnvSource;
use startup::{is_dynamic_name, path_exists, prefixes};

/// The expanded configuration.
#[derive(Debug, Clone, Default)]
pub struct Parameters {
    /// Static parameters, fully expanded, in declaration order.
    pub values: IndexMap<String, Expr>,
    /// Names whose values are only known at run time (besides `env.*`).
    pub dynamic: HashSet<String>,
    /// Names listed in `wireplan › sensitive` (also in `dynamic`).
    pub sensitive: HashSet<String>,
    /// References that expanded to `null` because of a limit, with why: a parameter whose
    /// value nests deeper than a plan allows, or a reference past the copy limit. Reported
    /// once each (where written, or at the first reference past the limit), and named by
    /// [`note_left_out`] in the errors about the `null` they left.
    pub left_out: Vec<(String, &'static str)>,
    /// The checked entries of `dynamicParameters:` (see [`super::dynamic`]).
    pub dynamic_schema: IndexMap<String, super::dynamic::DynamicSchema>,
    /// Where `%env.*%` reads from (see [`EnvSource`]).
    pub env: EnvSource,
}

impl Parameters {
    /// Whether `%name%` is read at start-up: `env.*` (unless the files define a parameter
    /// `env`), a name declared dynamic, or a path inside one (`db.password.x` under
    /// `db.password`).
    pub fn is_dynamic(&self, name: &str) -> bool {
        is_dynamic_name(name, &self.dynamic, self.env, |path| {
            path_exists(
                path,
                |top| self.values.get(top),
                |v, seg| v.as_array()?.get(seg),
            )
        })
    }

    /// The parameters as scripts see them (`getParameters()`, `params`, the `%name%` of what
    /// they load): [`Parameters::values`], then each top-level dynamic parameter (`--dynamic
    /// port`) as a value read at start-up, in name order. Without them a script found no
    /// `port` and joined `()` into its strings (sixth new user's trial); nested dynamic names
    /// are in their maps' values already.
    pub fn for_scripts(&self) -> IndexMap<String, Expr> {
        let mut out = self.values.clone();
        let mut top: Vec<&String> = self
            .dynamic
            .iter()
            .filter(|n| !n.contains('.') && !out.contains_key(n.as_str()))
            .collect();
        top.sort();
        for name in top {
            out.insert(name.clone(), Expr::bare(ExprKind::Dynamic(name.clone())));
        }
        out
    }

    /// Whether `name` (or a map parameter it lies in) is listed in `wireplan › sensitive`.
    pub fn is_sensitive(&self, name: &str) -> bool {
        prefixes(name).any(|p| self.sensitive.contains(p))
    }
}

/// The sections of the configuration after expansion, keyed by section name, with the span of
/// the section's key.
pub type Sections = IndexMap<String, (Span, Expr)>;

/// Expands parameters across all sections. `dynamic` lists parameter names declared dynamic;
/// `overrides` replace file parameters (from `-p name=value`). Errors go to `diags`; a failed
/// reference expands to `null` so that the rest of the configuration is still checked.
pub fn expand_config(
    sections: &Array,
    dynamic: &[String],
    overrides: &IndexMap<String, Value>,
    diags: &mut Diagnostics,
) -> (Parameters, Sections) {
    let (mut ex, names) = Expander::prepare(sections, dynamic, overrides, diags);
    let mut out = Sections::new();
    for (key, entry) in &sections.entries {
        ex.section(key, entry, &mut out);
    }
    ex.finish(names, out)
}

/// One entry of a streamed section (see [`expand_config_streaming`]): its key, where the key
/// was written, and its value.
pub type StreamedEntry = (Key, Span, StreamedValue);

/// The value of a streamed entry.
#[derive(Debug)]
pub enum StreamedValue {
    /// Expanded (the key too).
    Expanded(Expr),
    /// As decoded: an entry for which [`crate::catalog::reads_as_decoded`] holds, whose
    /// expansion would be [`Expr::from_neon`] of it, reporting nothing, and is not made.
    Decoded(Value),
}

/// How the streamed section of [`expand_config_streaming`] expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Streamed {
    /// Whether the section was a map whose entries went to `each` (false when it is absent or
    /// not a map: then it is among the returned sections, as any other).
    pub streamed: bool,
    /// `%parameter%` references in its keys and values (to dynamic parameters and missing ones
    /// too). With none, its entries are the same whatever the parameters are.
    pub references: usize,
    /// Diagnostics reported while its entries were expanded.
    pub diagnostics: usize,
}

/// [`expand_config`] over a configuration it consumes, for large inputs: each raw section is
/// dropped as soon as it is expanded, and when the section named `streamed` is a map its
/// entries are handed to `each` one at a time (each raw entry dropped right after its
/// expansion, or handed over itself) instead of being collected, so that section's expanded
/// tree is never held whole. The streamed section is then absent from the returned sections. Expansion, its
/// rules and its diagnostics are exactly those of [`expand_config`], except that an entry of
/// the streamed section that names no parameter and holds no entity is handed over as it was
/// decoded ([`StreamedValue::Decoded`]; its expansion would be [`Expr::from_neon`] of it). The
/// third value says what the streamed section's expansion read and reported.
pub fn expand_config_streaming(
    sections: Array,
    dynamic: &[String],
    overrides: &IndexMap<String, Value>,
    diags: &mut Diagnostics,
    streamed: &str,
    each: &mut dyn FnMut(StreamedEntry),
) -> (Parameters, Sections, Streamed) {
    let (mut ex, names) = Expander::prepare(&sections, dynamic, overrides, diags);
    let mut out = Sections::new();
    let mut outcome = Streamed::default();
    for (key, entry) in sections.entries {
        if key.as_str() == Some(streamed) {
            if let Kind::Array(a) = entry.value.kind {
                ex.literal_at = true;
                let (references, diagnostics) = (ex.references, ex.diags.len());
                for (k, e) in a.entries {
                    if crate::catalog::reads_as_decoded(&k, &e.value) {
                        each((k, e.key_span, StreamedValue::Decoded(e.value)));
                        continue;
                    }
                    let k = ex.expand_key_owned(k, e.key_span);
                    let v = ex.convert_owned(e.value);
                    each((k, e.key_span, StreamedValue::Expanded(v)));
                }
                outcome = Streamed {
                    streamed: true,
                    references: ex.references - references,
                    diagnostics: ex.diags.len() - diagnostics,
                };
                continue;
            }
        }
        // The other sections are copied, not moved: their strings live on in the definitions,
        // and copies made together sit together, while strings moved out of the raw tree
        // would pin its freed memory (peak RSS at 100k services was 2.5% higher that way).
        // Each raw entry of a section is dropped as soon as it is copied, so a large section
        // (`services:`) is never held both raw and expanded.
        ex.section_consumed(key, entry, &mut out);
    }
    let (params, sections) = ex.finish(names, out);
    (params, sections, outcome)
}

/// The note for a missing `a.b.c` whose first name is a parameter, from one walk down the
/// path: where a key is missing from a map, "did you mean 'mail.from'?" with that key replaced
/// by the map's key it is a typo of ([`crate::diagnostics::suggest`]; `None` when nothing is
/// close); where a part is no map, "'a' is not a map (its value is of type int), so it has no
/// 'b'". `None` when the first name is not a parameter (the top-level suggestion applies
/// then).
fn missing_path_note(raw: &IndexMap<String, Value>, path: &str) -> Option<String> {
    let mut parts = path.split('.');
    let first = parts.next()?;
    let mut value = raw.get(first)?;
    let mut found = first.to_string();
    let rest: Vec<&str> = parts.collect();
    for (i, part) in rest.iter().enumerate() {
        let Kind::Array(map) = &value.kind else {
            return Some(format!(
                "'{found}' is not a map (its value is of type {}), so it has no '{part}'",
                value.type_name()
            ));
        };
        match map.get(part) {
            Some(inner) => {
                value = inner;
                found.push('.');
                found.push_str(part);
            }
            None => {
                let keys: Vec<String> = map.iter().map(|(k, _)| k.as_string()).collect();
                let meant = crate::diagnostics::suggest(part, keys.iter().map(String::as_str))?;
                let mut out = format!("{found}.{meant}");
                for later in &rest[i + 1..] {
                    out.push('.');
                    out.push_str(later);
                }
                return Some(format!("did you mean '{out}'?"));
            }
        }
    }
    None
}

impl<'a> Expander<'a> {
    /// Reads the `parameters:` section and `-p` overrides, and expands every static
    /// parameter. Returns the expander and the names of the parameters it expanded.
    fn prepare(
        sections: &Array,
        dynamic: &[String],
        overrides: &IndexMap<String, Value>,
        diags: &'a mut Diagnostics,
    ) -> (Expander<'a>, Vec<String>) {
        let mut raw: IndexMap<String, Value> = IndexMap::new();
        if let Some(entry) = sections.get_entry(&Key::Str("parameters".into())) {
            match &entry.value.kind {
                Kind::Array(a) => {
                    for (k, v) in a.iter() {
                        raw.insert(k.as_string(), v.clone());
                    }
                }
                Kind::Null => {}
                // Anything else fails the section's schema (a map of parameters).
                _ => {
                    crate::schema::validate(
                        &crate::schema::sections::parameters(),
                        &Expr::from_neon_verbatim(&entry.value),
                        &["parameters"],
                        diags,
                    );
                }
            }
        }
        let mut env = if raw.contains_key("env") {
            EnvSource::Defined
        } else {
            EnvSource::Environment
        };
        let mut foreign: HashSet<String> = HashSet::new();
        for (k, v) in overrides {
            // `-p database.dsn=x` sets one key inside the `database` map.
            let mut path = k.split('.');
            let top = path.next().unwrap_or_default().to_string();
            let rest: Vec<&str> = path.collect();
            // A parameter with a value from the command line, even one key of a map written
            // in the files, is foreign: its spans may belong to the options' source map.
            foreign.insert(top.clone());
            if top == "env" && env != EnvSource::Defined {
                env = if rest.is_empty() {
                    EnvSource::Defined
                } else {
                    EnvSource::Overridden
                };
            }
            if rest.is_empty() {
                raw.insert(top, v.clone());
                continue;
            }
            let span = v.span;
            let slot = raw
                .entry(top)
                .or_insert_with(|| Value::new(Kind::Array(Box::default()), span));
            set_nested(slot, &rest, v.clone());
        }
        // A dotted dynamic name (`database.password`) makes one value inside a map dynamic: the
        // value written there becomes a reference to itself, which expands to `{"$param": name}`,
        // so the map keeps its key and the value never reaches the plan.
        for name in dynamic.iter().filter(|n| n.contains('.')) {
            let mut path = name.split('.');
            let top = path.next().unwrap_or_default();
            if let Some(slot) = raw.get_mut(top).and_then(|v| nested_mut(v, path)) {
                slot.kind = Kind::Str(format!("%{name}%").into());
            }
        }
        let mut ex = Expander {
            foreign,
            in_foreign: 0,
            raw,
            dynamic: dynamic.iter().cloned().collect(),
            env,
            literal_at: false,
            done: HashMap::new(),
            stack: Vec::new(),
            references: 0,
            copied: (0, 0),
            over_limit: false,
            too_deep: false,
            nested_too_deep: Vec::new(),
            cut: Vec::new(),
            circular: Vec::new(),
            chain_too_deep: Vec::new(),
            reading_missing: Vec::new(),
            diags,
        };
        // Dynamic parameters are never frozen into the plan, not even as a default: their value
        // must come from the application (or the environment) at start-up.
        let names: Vec<String> = ex
            .raw
            .keys()
            .filter(|n| !ex.dynamic.contains(*n))
            .cloned()
            .collect();
        for name in &names {
            ex.ensure(name, None);
        }
        (ex, names)
    }

    /// Expands one top-level section into `out` (`parameters:` itself is skipped).
    fn section(&mut self, key: &Key, entry: &Entry, out: &mut Sections) {
        let name = key.as_string();
        if name == "parameters" {
            return;
        }
        // Outside `parameters:`, a quoted '@x' is plain text (Nette's NeonAdapter).
        self.literal_at = true;
        let value = self.convert(&entry.value);
        out.insert(name, (entry.key_span, value));
    }

    /// [`Expander::section`] over a section it consumes: the entries of a map are copied one
    /// by one and each raw entry is dropped right after its copy is made. Same result, same
    /// diagnostics in the same order.
    fn section_consumed(&mut self, key: Key, entry: Entry, out: &mut Sections) {
        let Entry { key_span, value } = entry;
        let Kind::Array(raw) = value.kind else {
            let entry = Entry { key_span, value };
            return self.section(&key, &entry, out);
        };
        let name = key.as_string();
        if name == "parameters" {
            return;
        }
        self.literal_at = true;
        let mut items = ExprArray::new();
        items.items.reserve(raw.len());
        for (k, e) in raw.entries {
            let k = self.expand_key(&k, e.key_span);
            let v = self.convert(&e.value);
            items.set_key_span(&k, e.key_span);
            items.items.insert(k, v);
            // `e` (the raw entry) is dropped here, before the next entry is copied.
        }
        out.insert(
            name,
            (
                key_span,
                Expr::new(ExprKind::Array(items), Some(value.span)),
            ),
        );
    }

    /// The expanded parameters, once the sections are done: the expanded values move into
    /// the result (no second copy).
    fn finish(mut self, names: Vec<String>, out: Sections) -> (Parameters, Sections) {
        if let Some(d) = nested_too_deep_error(&self.nested_too_deep) {
            self.diags.push(d.with_note(
                "no plan is written; the compilation goes on with its value (and those of the other parameters named here) as null, so errors that follow from that are reported too",
            ));
        }
        let values = names
            .into_iter()
            .map(|n| {
                let v = self
                    .done
                    .remove(&n)
                    .unwrap_or_else(|| Expr::bare(ExprKind::Null));
                (n, v)
            })
            .collect();
        let dynamic = self.dynamic.clone();
        let parameters = Parameters {
            values,
            dynamic,
            env: self.env,
            left_out: self
                .nested_too_deep
                .iter()
                .map(|(name, _, _)| (name.clone(), TOO_DEEP))
                .chain(self.cut.drain(..).map(|path| (path, PAST_COPY_LIMIT)))
                .chain(self.circular.drain(..).map(|name| (name, CIRCULAR)))
                .chain(
                    self.chain_too_deep
                        .drain(..)
                        .map(|name| (name, CHAIN_TOO_DEEP)),
                )
                .chain(
                    self.reading_missing
                        .drain(..)
                        .map(|name| (name, READS_MISSING)),
                )
                .collect(),
            ..Parameters::default()
        };
        (parameters, out)
    }
}

/// Adds each of `names` to `list` unless it is there (the parameters a problem left null).
fn push_once(list: &mut Vec<String>, names: &[String]) {
    for n in names {
        if !list.contains(n) {
            list.push(n.clone());
        }
    }
}

/// Why a parameter is in [`Parameters::left_out`]: its value nests too deep for a plan.
const TOO_DEEP: &str =
    "its value nests too deep for a plan and was left out (reported where it is written)";
/// Why a parameter is in [`Parameters::left_out`]: it is part of a cycle of parameters.
const CIRCULAR: &str =
    "it refers to itself through other parameters (reported above), so it has no value";
/// Why a parameter is in [`Parameters::left_out`]: its expansion passed the chain limit.
const CHAIN_TOO_DEEP: &str = "it expands parameters inside one another past the limit (reported \
     above), so it has no value";
/// Why a parameter is in [`Parameters::left_out`]: its value reads a missing parameter.
const READS_MISSING: &str =
    "its value reads a parameter that is missing (reported above), so it has no value";
/// Why a reference is in [`Parameters::left_out`]: it was past the copy limit.
const PAST_COPY_LIMIT: &str =
    "it expanded past the limit on what references may copy (reported at the first such reference)";
/// How many references cut by the copy limit [`Parameters::left_out`] keeps.
const MAX_CUT_NAMED: usize = 100;

/// Adds to each diagnostic from the `from`-th on that is about a `null` and whose place uses a
/// parameter of `left_out` (`%p%` or `%p.key%` in the text at its primary span) a note that the parameter is `null`
/// because its value was left out where it is written: such an error ("expects array, null
/// given") follows from that one, and the user wrote no `null`.
pub fn note_left_out(
    diags: &mut Diagnostics,
    from: usize,
    sources: &crate::source::SourceMap,
    left_out: &[(String, &'static str)],
) {
    if left_out.is_empty() {
        return;
    }
    for d in diags.since_mut(from) {
        // Only an error about the null itself follows from it (a reference before the copy
        // limit was reached copied its value).
        if !d.message.contains("null") {
            continue;
        }
        let Some(span) = d.primary_span() else {
            continue;
        };
        let Some(text) = sources
            .get(span.file)
            .text
            .get(span.start as usize..span.end as usize)
        else {
            continue;
        };
        let references = super::overrides::parameter_references(text);
        for (name, why) in left_out {
            let used = references.iter().any(|r| {
                r.strip_prefix(name.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
            });
            if used {
                d.notes.push(format!(
                    "%{name}% is null here: {why}; this error follows from that one"
                ));
            }
        }
    }
}

/// The value at `path` inside `value` (a walk through nested maps), if there is one.
fn nested_mut<'v, 'p>(
    value: &'v mut Value,
    path: impl Iterator<Item = &'p str>,
) -> Option<&'v mut Value> {
    let mut at = value;
    for seg in path {
        let Kind::Array(a) = &mut at.kind else {
            return None;
        };
        at = &mut a.entries.get_mut(&Key::from_string(seg.to_string()))?.value;
    }
    Some(at)
}

/// Whether the configuration (the `parameters:` section, or a `-p` override) declares the
/// parameter `path`, a top-level name or a dotted path into nested maps (`database.password`).
pub fn declares_parameter(
    sections: &Array,
    overrides: &IndexMap<String, Value>,
    path: &str,
) -> bool {
    let top = path.split('.').next().unwrap_or(path);
    if overrides.contains_key(path) || overrides.contains_key(top) {
        return true;
    }
    let Some(Kind::Array(params)) = sections.get("parameters").map(|v| &v.kind) else {
        return false;
    };
    let mut segs = path.split('.');
    let mut at = segs.next().and_then(|first| params.get(first));
    for seg in segs {
        at = at.and_then(|v| match &v.kind {
            Kind::Array(a) => a.get(seg),
            _ => None,
        });
    }
    at.is_some()
}

/// Sets `path` inside a NEON map, creating (or replacing non-map values with) maps on the way.
fn set_nested(slot: &mut Value, path: &[&str], value: Value) {
    let Some((first, rest)) = path.split_first() else {
        *slot = value;
        return;
    };
    if !matches!(slot.kind, Kind::Array(_)) {
        slot.kind = Kind::Array(Box::default());
    }
    if let Kind::Array(a) = &mut slot.kind {
        let key = Key::from_string(first.to_string());
        if a.get_entry(&key).is_none() {
            a.insert(
                key.clone(),
                value.span,
                Value::new(Kind::Array(Box::default()), value.span),
            );
        }
        if let Some(entry) = a.entries.get_mut(&key) {
            set_nested(&mut entry.value, rest, value);
        }
    }
}

struct Expander<'a> {
    /// Parameters given from outside (`-p`): their spans belong to another source map, so
    /// values and diagnostics made while expanding them get no location.
    foreign: HashSet<String>,
    /// Depth of expansion inside foreign parameters.
    in_foreign: usize,
    raw: IndexMap<String, Value>,
    dynamic: HashSet<String>,
    /// Where `%env.*%` reads from.
    env: EnvSource,
    /// Whether a quoted string starting with `@` is plain text (escaped to `@@…`, as Nette's
    /// NeonAdapter does). True in the DI sections, false while a parameter's own value is
    /// converted: a parameter `'@corp.example'` used as an argument stays a reference (the
    /// configuration issue's rule; write `@@corp.example` for the text).
    literal_at: bool,
    done: HashMap<String, Expr>,
    stack: Vec<String>,
    /// `%parameter%` references resolved so far (see [`Streamed::references`]).
    references: usize,
    /// Nodes and bytes of text that references have copied so far (see [`MAX_EXPANDED_NODES`]).
    copied: (usize, usize),
    /// Whether the copy limit was reported (once; later references past it are quietly `null`).
    over_limit: bool,
    /// Whether the chain limit ([`MAX_PARAMETER_CHAIN`]) was reported.
    too_deep: bool,
    /// Parameters whose expanded value nested deeper than a plan allows (name, where it is
    /// written), in the order they were expanded; each became null. Reported as one error.
    nested_too_deep: Vec<(String, usize, Option<Span>)>,
    /// References that expanded to null past the copy limit (the first [`MAX_CUT_NAMED`]).
    cut: Vec<String>,
    /// Parameters found in a cycle (each once), which expanded to null.
    circular: Vec<String>,
    /// Parameters whose expansion passed [`MAX_PARAMETER_CHAIN`] (the chain being expanded
    /// then), which expanded to null.
    chain_too_deep: Vec<String>,
    /// Parameters whose value reads a missing one (each once, the whole chain being expanded
    /// when it was found): a reference to it gives null.
    reading_missing: Vec<String>,
    diags: &'a mut Diagnostics,
}

impl Expander<'_> {
    /// `span`, unless it lies in a parameter given from outside.
    fn loc(&self, span: Option<Span>) -> Option<Span> {
        span.filter(|_| self.in_foreign == 0)
    }

    /// While a value given with `-p` is expanded (its spans belong to the command line): the
    /// note naming that parameter, the innermost one when `-p` values refer to each other.
    fn foreign_note(&self) -> Option<String> {
        if self.in_foreign == 0 {
            return None;
        }
        let name = self
            .stack
            .iter()
            .rev()
            .find(|n| self.foreign.contains(*n))?;
        Some(format!("used in the parameter given with -p {name}=…"))
    }

    /// Whether `%name%` is read at start-up: `env.*` (unless the files define `env`), or a
    /// name declared dynamic, or a path inside one (`%db.password.x%` under `db.password`).
    fn is_dynamic(&self, name: &str) -> bool {
        is_dynamic_name(name, &self.dynamic, self.env, |path| {
            path_exists(
                path,
                |top| self.raw.get(top),
                |v, seg| match &v.kind {
                    Kind::Array(a) => a.get(seg),
                    _ => None,
                },
            )
        })
    }

    /// Expands top-level parameter `name` once, into `done`. False when there is no value: no
    /// such parameter, or a cycle (reported here, at `used_at`).
    fn ensure(&mut self, name: &str, used_at: Option<Span>) -> bool {
        if self.done.contains_key(name) {
            return true;
        }
        if let Some(pos) = self.stack.iter().position(|n| n == name) {
            let chain: Vec<String> = self.stack[pos..].iter().map(|n| format!("%{n}%")).collect();
            let span = self.loc(used_at.or_else(|| self.raw.get(name).map(|v| v.span)));
            let mut d = Diagnostic::error(
                Code::CircularParameter,
                format!(
                    "Circular reference detected for parameters: {}",
                    chain.join(", ")
                ),
            )
            .with_note(format!("chain: {} -> %{name}%", chain.join(" -> ")));
            if let Some(at) = span {
                let last = self.stack.last().map_or(name, String::as_str);
                d = d.with_primary(at, format!("%{last}% uses %{name}% here"));
            }
            // Each parameter of the cycle where it is defined, not only where the cycle closed
            // (a new user's trial saw one of two).
            let cycle = &self.stack[pos..];
            let overlaps = |at: &Span| {
                span.is_some_and(|s| {
                    s.file == at.file
                        && s.start < at.end.max(at.start + 1)
                        && at.start < s.end.max(s.start + 1)
                })
            };
            for (i, n) in cycle.iter().enumerate() {
                let next = cycle.get(i + 1).map_or(name, String::as_str);
                let at = self.loc(self.raw.get(n.as_str()).map(|v| v.span));
                if let Some(at) = at.filter(|at| !overlaps(at)) {
                    d = d.with_secondary(at, format!("%{n}% uses %{next}%"));
                }
            }
            if let Some(note) = self.foreign_note() {
                d = d.with_note(note);
            }
            self.diags.push(d);
            push_once(&mut self.circular, &self.stack[pos..]);
            return false;
        }
        let Some(raw) = self.raw.get(name).cloned() else {
            return false;
        };
        if self.stack.len() >= MAX_PARAMETER_CHAIN {
            self.too_deep(name, used_at);
            // (A chain found again from the same start adds nothing.)
            if !self.chain_too_deep.contains(&self.stack[0]) {
                push_once(&mut self.chain_too_deep, &self.stack);
            }
            return false;
        }
        self.stack.push(name.to_string());
        let foreign = self.foreign.contains(name);
        self.in_foreign += usize::from(foreign);
        let literal_at = std::mem::replace(&mut self.literal_at, false);
        // Each level of a chain `%a%` -> `%b%` -> ... recurses through the conversion; a long
        // chain must not overflow a small thread stack before the limit above stops it. The
        // red zone covers what one level may recurse on its own before the next check: copying
        // or measuring a value of up to a plan's depth (larger in a debug build).
        let mut v = stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, || self.convert_owned(raw));
        self.literal_at = literal_at;
        self.in_foreign -= usize::from(foreign);
        if foreign {
            clear_spans(&mut v);
        }
        // A value deeper than a plan may carry is an error anyway; stopping it here keeps a
        // chain of parameters that each wrap the next (`p0: [%p1%]`, …) from building a value
        // as deep as the chain, which every later stage would walk recursively.
        // (A plan counts a scalar as depth 0, `nests_deeper_than` as level 1.)
        if nests_deeper_than(&v, wireplan_runtime::plan::MAX_EXPR_DEPTH + 1) {
            let span = self.loc(self.raw.get(name).map(|r| r.span));
            // Bounded: the parameters inside it were stopped at a plan's depth, so this one is
            // its own NEON (at most `neon::MAX_DEPTH`) deeper than that.
            // As the check counts it (statement arguments too), in a plan's terms (a scalar
            // is 0); never less than the depth of the value written as a plan parameter.
            let depth = stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, || {
                v.plain_depth().max(nesting_levels(&v) - 1)
            });
            self.nested_too_deep.push((name.to_string(), depth, span));
            v = Expr::new(ExprKind::Null, v.span);
        }
        self.stack.pop();
        self.done.insert(name.to_string(), v);
        true
    }

    /// Resolves `%a.b.c%` used at `span`: a copy of the value, within the copy limits.
    fn reference(&mut self, path: &str, span: Span) -> Expr {
        self.references += 1;
        // `%env%` alone (Nette's array of every variable): the runtime reads the environment
        // one variable at a time, so nothing would ever give it (fifth new user's trial).
        if path == "env" && self.env == EnvSource::Environment {
            self.diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    "%env% would be the whole environment, which the container reads one \
                     variable at a time: write %env.NAME%.",
                )
                .at(self.loc(Some(span))),
            );
            return Expr::new(ExprKind::Null, Some(span));
        }
        if self.is_dynamic(path) {
            return Expr::new(ExprKind::Dynamic(path.to_string()), Some(span));
        }
        let mut segments = path.split('.');
        let top = segments.next().unwrap_or_default();
        if !self.raw.contains_key(top) {
            self.missing(path, span);
            return Expr::new(ExprKind::Null, Some(span));
        }
        if !self.ensure(top, Some(span)) {
            return Expr::new(ExprKind::Null, Some(span));
        }
        let (nodes_left, text_left) = (
            MAX_EXPANDED_NODES.saturating_sub(self.copied.0),
            MAX_EXPANDED_TEXT.saturating_sub(self.copied.1),
        );
        // Walk to the value and measure it before copying anything.
        let found = segments
            .try_fold(self.done.get(top), |v, seg| {
                Some(v.and_then(|v| v.as_array()).and_then(|a| a.get(seg)))
            })
            .flatten()
            .map(|v| (v, measure(v, nodes_left, text_left)));
        match found {
            None => {
                self.missing(path, span);
                Expr::new(ExprKind::Null, Some(span))
            }
            Some((_, (nodes, text))) if nodes > nodes_left || text > text_left => {
                self.over_limit(path, nodes > nodes_left, span);
                if self.cut.len() < MAX_CUT_NAMED && !self.cut.iter().any(|c| c == path) {
                    self.cut.push(path.to_string());
                }
                Expr::new(ExprKind::Null, Some(span))
            }
            Some((v, size)) => {
                let mut value = v.clone();
                value.span = Some(span);
                // A copy of one scalar counts only its text: such references are written in
                // the input one by one, so they cannot multiply (see MAX_EXPANDED_NODES).
                self.copied.0 += if size.0 == 1 { 0 } else { size.0 };
                self.copied.1 += size.1;
                value
            }
        }
    }

    fn missing(&mut self, path: &str, span: Span) {
        push_once(&mut self.reading_missing, &self.stack);
        let mut d = Diagnostic::error(
            Code::MissingParameter,
            format!("Missing parameter '{path}'."),
        );
        d = match self.loc(Some(span)) {
            Some(s) => d.with_primary(s, "used here"),
            None => d.with_note(
                self.foreign_note()
                    .unwrap_or_else(|| "used in a parameter given with -p".to_string()),
            ),
        };
        d = match missing_path_note(&self.raw, path) {
            Some(note) => d.with_note(note),
            None => {
                let names: Vec<&str> = self.raw.keys().map(String::as_str).collect();
                d.with_suggestion(path, names)
            }
        };
        if let Some(note) = super::predefined::parameter_note(path) {
            d = d.with_note(note);
        }
        if path.starts_with("env.") && self.env == EnvSource::Defined {
            d = d.with_note(
                "a parameter 'env' is defined (in the files, or whole with -p env=…), so \
                 %env.NAME% reads its keys, not the environment: give the name there, or fix \
                 one name alone with -p env.NAME=VALUE",
            );
        }
        self.diags.push(d);
    }
}

#[cfg(test)]
mod tests;
