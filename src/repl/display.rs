//! How the REPL prints values: configuration expressions and statements as inline NEON
//! (`App\Db('x')`, `@logger`, `[a: 1]`; strings quoted as the NEON encoder quotes them), script
//! values (definitions by name, ordered maps as maps), and a definition for `:show`. Completed
//! plan statements are written by [`crate::inspect::text`], the one renderer of plan
//! expressions. ([`Expr::describe`] is not this: it names a value for a message, `array` for
//! any array.)

use crate::builder::Definition;
use crate::expr::{Callee, Expr, ExprArray, ExprKind};
use crate::inspect::text;
use crate::neon::encode_string;
use crate::neon::Key;
use crate::source::SourceMap;
use rhai::Dynamic;
use std::fmt::Write as _;

fn key(k: &Key) -> String {
    match k {
        Key::Int(i) => i.to_string(),
        Key::Str(s) => encode_string(s),
    }
}

/// Arguments or items: positional ones as values, named ones as `name: value`.
fn items(a: &ExprArray) -> String {
    let list = a.is_list();
    a.items
        .iter()
        .map(|(k, v)| {
            if list {
                neon(v)
            } else {
                format!("{}: {}", key(k), neon(v))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A configuration expression as inline NEON (what one would write in a config file).
pub fn neon(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Null => "null".into(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Int(i) => i.to_string(),
        ExprKind::Float(f) => format_float(*f),
        ExprKind::Str(s) => encode_string(s),
        ExprKind::Array(a) => format!("[{}]", items(a)),
        ExprKind::Statement(s) => {
            let callee = match &s.callee {
                Callee::Name(n) => n.clone(),
                Callee::Member(target, m) => format!("{}::{m}", neon(target)),
            };
            format!("{callee}({})", items(&s.arguments))
        }
        ExprKind::Dynamic(n) => format!("%{n}%"),
        ExprKind::Concat(parts) => {
            let text: String = parts
                .iter()
                .map(|p| match &p.kind {
                    ExprKind::Str(s) => s.replace('%', "%%"),
                    ExprKind::Dynamic(n) => format!("%{n}%"),
                    _ => neon(p),
                })
                .collect();
            encode_string(&text)
        }
    }
}

/// A float as `:show` writes it: `2.0` for a whole number, and the not-finite values spelt as
/// the completed statement and the plan's text spell them (`NAN`, `INF`, `-INF`; Rust's
/// `NaN` and `inf` beside them read as two different values: a new user's trial).
fn format_float(f: f64) -> String {
    if f.is_nan() {
        "NAN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "INF" } else { "-INF" }.into()
    } else if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{f:.1}")
    } else {
        f.to_string()
    }
}

/// How many levels of arrays and maps a script value prints; deeper collections print as
/// `[…]` or `{…}`. The display walks values recursively, so this also bounds the stack it
/// needs (a value nested 2,000 levels deep once overflowed the stack and aborted the REPL).
pub const MAX_DISPLAY_DEPTH: usize = 32;

/// How many items of one array or map print; the rest are summed up as `… N more`.
pub const MAX_DISPLAY_ITEMS: usize = 100;

/// How many items print in all, over every level of one value: a wide value nested a few
/// levels deep prints a bounded text too. Items past it are summed up as `… N more`.
pub const MAX_DISPLAY_TOTAL: usize = 2_000;

/// A script value as a user reads it: strings as they are at the top level (quoted inside
/// collections), definitions as `Definition(name)`, statements and references as NEON, maps
/// as `{key: value}`, Rhai's own maps as `#{key: value}`.
///
/// Any value prints in bounded time, stack and length: collections deeper than
/// [`MAX_DISPLAY_DEPTH`] print as `[…]` (`{…}`, `#{…}` for maps), and past
/// [`MAX_DISPLAY_ITEMS`] items in one collection or [`MAX_DISPLAY_TOTAL`] in all the rest
/// are counted (`… 3 more`). Collections are read in place, never cloned, and never
/// formatted by Rhai's own `to_string` (which recurses without a bound).
pub fn dynamic(v: &Dynamic) -> String {
    if v.is_string() {
        return v.to_string();
    }
    let mut out = String::new();
    let mut budget = MAX_DISPLAY_TOTAL;
    nested(v, 0, &mut budget, &mut out, false);
    out
}

/// Writes a collection `depth` levels down: `items` between `open` and `close`, each written
/// by `item` one level deeper; each item shown takes one from `budget`. Past
/// [`MAX_DISPLAY_DEPTH`] only `open…close` is written, past [`MAX_DISPLAY_ITEMS`] or an
/// A map's entries as `key: value` inside `brackets`, bounded like [`collection`]: Rhai's own
/// maps (`#{…}`) and the ordered maps scripts get (`{…}`) print the same way.
fn map<'a, K: std::fmt::Display + 'a>(
    entries: impl ExactSizeIterator<Item = (K, &'a Dynamic)>,
    brackets: (&str, &str),
    depth: usize,
    budget: &mut usize,
    out: &mut String,
    neon_strings: bool,
) {
    collection(entries, brackets, depth, budget, out, |(k, x), d, b, o| {
        let _ = write!(o, "{k}: ");
        nested(x, d, b, o, neon_strings);
    });
}

/// empty budget the rest are counted (`… N more`).
fn collection<'a, T: 'a>(
    items: impl ExactSizeIterator<Item = T>,
    (open, close): (&str, &str),
    depth: usize,
    budget: &mut usize,
    out: &mut String,
    mut item: impl FnMut(T, usize, &mut usize, &mut String),
) {
    let len = items.len();
    if depth >= MAX_DISPLAY_DEPTH && len > 0 {
        out.push_str(open);
        out.push('…');
        out.push_str(close);
        return;
    }
    out.push_str(open);
    let mut shown = 0;
    for x in items {
        if shown == MAX_DISPLAY_ITEMS || *budget == 0 {
            break;
        }
        if shown > 0 {
            out.push_str(", ");
        }
        *budget -= 1;
        item(x, depth + 1, budget, out);
        shown += 1;
    }
    if shown < len {
        if shown > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "… {} more", len - shown);
    }
    out.push_str(close);
}

/// Writes the value `v`, `depth` levels down, bounded by `budget` (see [`collection`]).
///
/// Strings inside an ordered map (what the configuration and the builder hand scripts, printed
/// `{key: value}` as NEON writes it) and everything below one print as NEON strings (`App\Clock`,
/// `'two words'`), as the statements beside them do; elsewhere (`neon_strings` false) as Rhai
/// string literals (`"a\\b"`), as they are typed at the prompt (a new user's trial saw
/// `clock: "App\\Clock"` next to `logger: App\FileLogger(…)`).
fn nested(v: &Dynamic, depth: usize, budget: &mut usize, out: &mut String, neon_strings: bool) {
    use crate::script::api::{BuilderHandle, DefinitionHandle, OrderedMap};
    use crate::script::values::{ScriptDynamic, ScriptReference, ScriptStatement};
    if v.is_unit() {
        out.push_str("()");
    } else if v.is_string() && neon_strings {
        out.push_str(&crate::neon::encode_string(&v.to_string()));
    } else if v.is_string() {
        let _ = write!(out, "{:?}", v.to_string());
    } else if let Ok(a) = v.as_array_ref() {
        collection(a.iter(), ("[", "]"), depth, budget, out, |x, d, b, o| {
            nested(x, d, b, o, neon_strings)
        });
    } else if let Ok(m) = v.as_map_ref() {
        map(m.iter(), ("#{", "}"), depth, budget, out, neon_strings);
    } else if let Some(m) = v.read_lock::<OrderedMap>() {
        map(m.entries.iter(), ("{", "}"), depth, budget, out, true);
    } else if let Some(d) = v.read_lock::<DefinitionHandle>() {
        let _ = write!(out, "Definition({})", d.name());
    } else if v.is::<BuilderHandle>() {
        out.push_str("ContainerBuilder");
    } else if let Some(s) = v.read_lock::<ScriptStatement>() {
        // Statements made by scripts nest at most `script::values::MAX_VALUE_DEPTH` levels.
        out.push_str(&neon(&Expr::bare(ExprKind::Statement(Box::new(
            s.0.clone(),
        )))));
    } else if let Some(r) = v.read_lock::<ScriptReference>() {
        let _ = write!(out, "@{}", r.0);
    } else if let Some(d) = v.read_lock::<ScriptDynamic>() {
        out.push_str(&neon(&d.0));
    } else if let Some(d) = v.read_lock::<crate::diagnostics::Diagnostic>() {
        let _ = write!(out, "error[{}]: {}", d.code, d.message);
    } else if v.type_name().contains("::") {
        // Another of the API's objects (an `Expect` schema, the extension, the plan, ...):
        // its script type name, never a Rust path.
        out.push_str(&crate::script::values::script_type_name(v));
    } else {
        // What is left holds no script values: numbers, booleans, characters, function
        // pointers, timestamps and blobs.
        let _ = write!(out, "{v}");
    }
}

/// The `:show` text of one definition: kind, resolved type, creator as written and as
/// completed, setup, tags, autowiring, lifespan and where it was defined.
pub fn definition(d: &Definition, sources: &SourceMap) -> String {
    let mut out = String::new();
    let kind = crate::inspect::graph::kind_name(d.kind.plan_kind());
    let _ = writeln!(out, "{}", d.name);
    let _ = writeln!(out, "  kind:      {kind}");
    let ty = d
        .resolved_type
        .clone()
        .or_else(|| d.declared_type.clone())
        .unwrap_or_else(|| "(not resolved)".into());
    let _ = writeln!(out, "  type:      {ty}");
    if let Some(i) = &d.extras().implement {
        let _ = writeln!(out, "  implement: {i}");
    }
    if let Some(c) = &d.creator {
        // A class created without arguments shows as the configuration writes it most often
        // (`create: App\Repo`), not as the equal `App\Repo()`.
        let written = match &c.callee {
            crate::expr::Callee::Name(n)
                if c.arguments.items.is_empty() && !n.contains("::") && !n.starts_with('@') =>
            {
                n.clone()
            }
            _ => neon(&Expr::bare(ExprKind::Statement(Box::new(c.clone())))),
        };
        let _ = writeln!(out, "  create:    {written}");
    }
    if let Some(done) = &d.completed {
        let _ = writeln!(out, "  completed: {}", text::expr(&done.create));
    }
    if !d.setup.is_empty() {
        let _ = writeln!(out, "  setup:");
        match &d.completed {
            Some(done) if done.setup.len() == d.setup.len() => {
                // A setup the completion could not turn into a call (an unknown method: see
                // `:errors`) is shown as written, not as the `null` standing in for it.
                for (s, written) in done.setup.iter().zip(&d.setup) {
                    if matches!(s, wireplan_runtime::plan::Expr::Null) {
                        let _ = writeln!(out, "    - {} (not completed)", neon(written));
                    } else {
                        let _ = writeln!(out, "    - {}", text::expr(s));
                    }
                }
            }
            _ => {
                for s in &d.setup {
                    let _ = writeln!(out, "    - {}", neon(s));
                }
            }
        }
    }
    if !d.tags.is_empty() {
        let tags: Vec<String> = d
            .tags
            .iter()
            .map(|(k, v)| match &v.kind {
                ExprKind::Bool(true) => encode_string(k),
                _ => format!("{}: {}", encode_string(k), neon(v)),
            })
            .collect();
        let _ = writeln!(out, "  tags:      [{}]", tags.join(", "));
    }
    let autowired = crate::inspect::show::autowired_text(
        &d.autowired
            .plan_autowired(d.resolved_type.as_deref().unwrap_or("self")),
    );
    let _ = writeln!(out, "  autowired: {autowired}");
    let _ = writeln!(out, "  lifespan:  {}", d.lifespan.as_str());
    let at = crate::inspect::Location::of_opt(sources, d.span)
        .map(|l| l.to_string())
        .unwrap_or_else(|| "(added at the prompt or by code)".into());
    let _ = write!(out, "  defined:   {at}");
    out
}

/// An extension's lifecycle functions (a `:run` file that defines one is an extension's).
const LIFECYCLE: [&str; 4] = [
    "getConfigSchema",
    "loadConfiguration",
    "beforeCompile",
    "afterCompile",
];

/// The answer to an input that only defines functions: `defined name/arity, …`, and for an
/// extension's file (its lifecycle functions need `this`, which the prompt does not bind) how
/// to run them (fifth new user's trial: calling one failed with "'this' not bound").
pub(super) fn defined(ast: &rhai::AST) -> String {
    let names: Vec<String> = ast
        .iter_functions()
        .map(|f| format!("{}/{}", f.name, f.params.len()))
        .collect();
    let mut text = format!("defined {}", names.join(", "));
    if ast.iter_functions().any(|f| LIFECYCLE.contains(&f.name)) {
        text.push_str(
            "\nnote: these are an extension's lifecycle functions, which need `this`: register \
             the script under `extensions:` and :reload to run them, or :run their statements \
             at the top level, with `builder` for this.getContainerBuilder()",
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Statement;

    #[test]
    fn statements_print_as_neon() {
        let mut args = ExprArray::new();
        args.push(Expr::string("x y"));
        args.push(Expr::string("@db"));
        let st = Expr::bare(ExprKind::Statement(Box::new(Statement {
            callee: Callee::Name("App\\Db".into()),
            arguments: args,
        })));
        // Bare where the NEON encoder writes bare (it reads back as the same string).
        assert_eq!(neon(&st), "App\\Db(x y, @db)");
        assert_eq!(encode_string("true"), "'true'");
        assert_eq!(encode_string("a, b"), "'a, b'");
        assert_eq!(crate::neon::quote_string("it's"), "'it''s'");
        assert_eq!(encode_string("a\nb"), "\"a\\nb\"");
    }
}
