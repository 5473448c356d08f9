//! Plan expressions written for people, in the notation of NEON service definitions — the one
//! renderer of plan expressions (`wireplan show`, `diff`, `explain` and the REPL's `:show` all
//! use it):
//! `App\Repo(@db, 5)` for a `$new`, `@self::setLogger(@logger)` for a setup call,
//! `App\Factory::create()` for a static call, `%env.DSN%` for a dynamic parameter read.
//!
//! | plan JSON | text |
//! |---|---|
//! | `{"$ref": "db"}` | `@db` |
//! | `{"$new": "C", "args": [1]}` | `C(1)` |
//! | `{"$call": [T, "m"], "args": []}` | `T::m()` (T: a class, `@self`, `@name` or a statement) |
//! | `{"$set": [T, "p"], "value": V}` | `T::$p = V` |
//! | `{"$get": [T, "p"]}` | `T::$p` |
//! | `{"$callable": [T, "m"]}` | `T::m(...)` |
//! | `{"$func": "not", "args": [x]}` | `not(x)` |
//! | `{"$param": "env.X"}` | `%env.X%` |
//! | `{"$concat": ["log-", {"$param": "d"}]}` | `'log-%d%'` (`concat(a, b)` when a part is neither) |
//! | `{"$arg": "x"}`, with `default` | `$x`, `$x = D` |
//!
//! Strings are always quoted, as the NEON encoder quotes ([`crate::neon::quote_string`]:
//! `'...'`, or `"..."` with escapes for control characters), so a string `'@db'` never reads
//! as the reference `@db`; a literal `%` inside a concatenation is doubled. Lists are `[a, b]`,
//! maps `{key: value}` (keys bare when the encoder would write them bare). [`short`] cuts
//! lists and maps after [`SHORT_ITEMS`] items (`… 3 more`), for one-line answers.

use wireplan_runtime::plan::{signature_names, CallTarget, Expr, Name, NameMap};

/// How many items of a list or map [`short`] writes before `… N more`.
pub const SHORT_ITEMS: usize = 8;

/// A dynamic parameter's declaration in words, as `show` and `diff` print it: its type, then
/// `default V`, `required`, `sensitive` (empty for a bare declaration).
pub fn dynamic_facts(d: &wireplan_runtime::dynamic::DynamicParam) -> Vec<String> {
    let mut facts: Vec<String> = d.type_.iter().cloned().collect();
    if let Some(v) = &d.default {
        facts.push(format!("default {}", expr(v)));
    }
    facts.extend(d.required.then(|| "required".to_string()));
    facts.extend(d.sensitive.then(|| "sensitive".to_string()));
    facts
}

/// A name, key or other text read from a plan or configuration as it is shown on one line of
/// a table, a label or an answer: control and bidirectional formatting characters as `\u{…}`
/// ([`crate::diagnostics::visible_text`]), tab and line break as `\t` and `\n`. So a class or
/// tag name cannot act on the terminal, reorder what is shown or break a line-based format.
pub fn one_line(text: &str) -> String {
    crate::diagnostics::visible_text(text)
        .replace('\t', "\\t")
        .replace('\n', "\\n")
}

/// The readable text of an expression (see the [module docs](self)).
pub fn expr(e: &Expr) -> String {
    Writer::full().expr(e)
}

/// [`expr`] with the arguments of constructor and method calls named as the plan's
/// `signatures` section (plan version 4) names their parameters: `App\Repo(db: @db,
/// perPage: 5)`, what the arguments meant when the plan was compiled. `own` is the class
/// a `@self::method()` call belongs to (the service's). A call the section does not name, or
/// names with another count of parameters, keeps its positional arguments.
pub fn expr_named(e: &Expr, names: &NameMap<Name>, own: &str) -> String {
    let mut w = Writer::full();
    w.names = Some((names, own));
    w.expr(e)
}

/// [`expr`] with lists and maps cut after [`SHORT_ITEMS`] items, at every depth: a value on
/// one line of `explain`.
pub fn short(e: &Expr) -> String {
    Writer {
        limit: Some(SHORT_ITEMS),
        out: String::new(),
        names: None,
    }
    .expr(e)
}

/// The readable text of a list of expressions, comma-separated (an argument list).
pub fn args(items: &[Expr]) -> String {
    let mut w = Writer::full();
    w.list(items);
    w.out
}

struct Writer<'n> {
    /// Items written of each list or map; `None`: all.
    limit: Option<usize>,
    out: String,
    /// The plan's `signatures` and the class of `@self`, to name arguments by
    /// ([`expr_named`]).
    names: Option<(&'n NameMap<Name>, &'n str)>,
}

impl<'n> Writer<'n> {
    fn full() -> Writer<'static> {
        Writer {
            limit: None,
            out: String::new(),
            names: None,
        }
    }

    /// The parameter names of the call `key` (`App\Repo`, `App\Repo::m`) when the
    /// signatures name `count` of them.
    fn param_names(&self, class: &str, method: Option<&str>, count: usize) -> Option<Vec<&'n str>> {
        signature_names(self.names?.0, class, method, count)
    }

    /// `name(args)` with each argument after its parameter's name.
    fn named_call(&mut self, name: &str, args: &[Expr], params: &[&str]) {
        self.out.push_str(name);
        self.out.push('(');
        for (i, (p, a)) in params.iter().zip(args).enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(p);
            self.out.push_str(": ");
            self.write(a);
        }
        self.out.push(')');
    }

    fn expr(mut self, e: &Expr) -> String {
        self.write(e);
        self.out
    }

    /// Writes `items` comma-separated, the items past the limit as `… N more`.
    fn list(&mut self, items: &[Expr]) {
        let shown = self.limit.unwrap_or(usize::MAX).min(items.len());
        for (i, a) in items[..shown].iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.write(a);
        }
        self.more(items.len() - shown, shown > 0);
    }

    fn more(&mut self, hidden: usize, after_items: bool) {
        if hidden > 0 {
            if after_items {
                self.out.push_str(", ");
            }
            self.out.push_str(&format!("… {hidden} more"));
        }
    }

    fn target(&mut self, t: &CallTarget) {
        match t {
            CallTarget::Class(c) => self.out.push_str(c),
            CallTarget::SelfObject => self.out.push_str("@self"),
            CallTarget::Expr(e) => self.write(e),
        }
    }

    fn call(&mut self, name: &str, args: &[Expr]) {
        self.out.push_str(name);
        self.out.push('(');
        self.list(args);
        self.out.push(')');
    }

    fn write(&mut self, e: &Expr) {
        match e {
            Expr::Null => self.out.push_str("null"),
            Expr::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Expr::Int(i) => self.out.push_str(&i.to_string()),
            Expr::Float(f) if f.is_nan() => self.out.push_str("NAN"),
            Expr::Float(f) if f.is_infinite() => {
                self.out.push_str(if *f > 0.0 { "INF" } else { "-INF" })
            }
            Expr::Float(f) => self
                .out
                .push_str(&serde_json::to_string(f).unwrap_or_else(|_| f.to_string())),
            // As written in a configuration: a literal `%` doubled, so a string that only
            // looks like a parameter read (`'%%env.HOME%%'`) is not shown like the
            // concatenation filled in at start-up (`'%env.HOME%'`).
            Expr::Str(s) if s.contains('%') => self
                .out
                .push_str(&crate::neon::quote_string(&s.replace('%', "%%"))),
            Expr::Str(s) => self.out.push_str(&crate::neon::quote_string(s)),
            Expr::List(items) => {
                self.out.push('[');
                self.list(items);
                self.out.push(']');
            }
            Expr::Map(m) => {
                self.out.push('{');
                let shown = self.limit.unwrap_or(usize::MAX).min(m.len());
                for (i, (k, v)) in m.iter().take(shown).enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push_str(&crate::neon::encode_string(k));
                    self.out.push_str(": ");
                    self.write(v);
                }
                self.more(m.len() - shown, shown > 0);
                self.out.push('}');
            }
            Expr::Provider(name) => {
                self.out.push_str("provider(@");
                self.out.push_str(name);
                self.out.push(')');
            }
            Expr::Ref(name) if name == "@self" => self.out.push_str("@self"),
            Expr::Ref(name) => {
                self.out.push('@');
                self.out.push_str(name);
            }
            Expr::New { class, args } => match self.param_names(class, None, args.len()) {
                Some(params) => self.named_call(class, args, &params),
                None => self.call(class, args),
            },
            Expr::Call {
                target,
                method,
                args,
            } => {
                self.target(target);
                self.out.push_str("::");
                let class = match target {
                    CallTarget::Class(c) => Some(c.as_str()),
                    CallTarget::SelfObject => self.names.map(|(_, own)| own),
                    CallTarget::Expr(_) => None,
                };
                match class.and_then(|c| self.param_names(c, Some(method), args.len())) {
                    Some(params) => self.named_call(method, args, &params),
                    None => self.call(method, args),
                }
            }
            Expr::Set {
                target,
                property,
                value,
            } => {
                self.target(target);
                self.out.push_str("::$");
                self.out.push_str(property);
                self.out.push_str(" = ");
                self.write(value);
            }
            Expr::Get { target, property } => {
                self.target(target);
                self.out.push_str("::$");
                self.out.push_str(property);
            }
            Expr::Callable { target, method } => {
                self.target(target);
                self.out.push_str("::");
                self.out.push_str(method);
                self.out.push_str("(...)");
            }
            Expr::Func { name, arg } => self.call(name, std::slice::from_ref(arg)),
            Expr::Param(name) => {
                self.out.push('%');
                self.out.push_str(name);
                self.out.push('%');
            }
            Expr::Concat(parts) => match interpolated(parts) {
                Some(text) => self.out.push_str(&crate::neon::quote_string(&text)),
                None => self.call("concat", parts),
            },
            Expr::Arg(name) => {
                self.out.push('$');
                self.out.push_str(name);
            }
            Expr::ArgOr { name, default } => {
                self.out.push('$');
                self.out.push_str(name);
                self.out.push_str(" = ");
                self.write(default);
            }
        }
    }
}

/// A concatenation of strings and parameter reads as the NEON string one would write for it
/// (`log-%dir%`, a literal `%` doubled); `None` when a part is anything else.
fn interpolated(parts: &[Expr]) -> Option<String> {
    let mut text = String::new();
    for p in parts {
        match p {
            Expr::Str(s) => text.push_str(&s.replace('%', "%%")),
            Expr::Param(n) => {
                text.push('%');
                text.push_str(n);
                text.push('%');
            }
            _ => return None,
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(j: serde_json::Value) -> String {
        expr(&Expr::from_json(&j).expect("valid expression"))
    }

    /// With the plan's signatures, arguments are named by their parameters; a call the
    /// section does not name, or names with another count, stays positional.
    #[test]
    fn arguments_are_named_by_the_signatures() {
        let names: NameMap<Name> = serde_json::from_value(json!({
            "App\\Repo": "db, perPage",
            "App\\Repo::setLogger": "logger",
            "App\\Pool::make": "size",
        }))
        .expect("names");
        let named = |j: serde_json::Value| {
            expr_named(&Expr::from_json(&j).expect("valid"), &names, "App\\Repo")
        };
        assert_eq!(
            named(json!({"$new": "App\\Repo", "args": [{"$ref": "db"}, 5]})),
            "App\\Repo(db: @db, perPage: 5)"
        );
        assert_eq!(
            named(json!({"$call": ["@self", "setLogger"], "args": [{"$ref": "log"}]})),
            "@self::setLogger(logger: @log)"
        );
        assert_eq!(
            named(json!({"$call": ["App\\Pool", "make"], "args": [[1, 2]]})),
            "App\\Pool::make(size: [1, 2])"
        );
        // Another count, a call the section does not name, and a call on another object.
        assert_eq!(
            named(json!({"$new": "App\\Repo", "args": [1]})),
            "App\\Repo(1)"
        );
        assert_eq!(
            named(json!({"$new": "App\\Other", "args": [1]})),
            "App\\Other(1)"
        );
        assert_eq!(
            named(json!({"$call": [{"$ref": "r"}, "setLogger"], "args": [2]})),
            "@r::setLogger(2)"
        );
    }

    #[test]
    fn statements_read_like_neon() {
        assert_eq!(
            text(json!({"$new": "App\\Repo", "args": [{"$ref": "db"}, 5, "it's", "@db"]})),
            "App\\Repo(@db, 5, 'it''s', '@db')"
        );
        assert_eq!(
            text(json!({"$call": ["@self", "setLogger"], "args": [{"$ref": "logger"}]})),
            "@self::setLogger(@logger)"
        );
        assert_eq!(
            text(json!({"$set": [{"$ref": "a"}, "x"], "value": {"$param": "env.X"}})),
            "@a::$x = %env.X%"
        );
        assert_eq!(
            text(json!({"k": [1.5, null], "a b": {"$concat": ["x", {"$arg": "n"}]}, "a, b": true})),
            "{k: [1.5, null], a b: concat('x', $n), 'a, b': true}"
        );
        assert_eq!(
            text(json!({"$concat": ["50% of ", {"$param": "env.DIR"}]})),
            "'50%% of %env.DIR%'"
        );
        // A literal string with `%` reads as it is written, apart from the concatenation.
        assert_eq!(text(json!("%env.HOME%/cache")), "'%%env.HOME%%/cache'");
        assert_eq!(
            text(json!({"$concat": [{"$param": "env.HOME"}, "/cache"]})),
            "'%env.HOME%/cache'"
        );
        assert_eq!(text(json!("a\nb")), "\"a\\nb\"");
        assert_eq!(
            text(json!({"$callable": ["App\\F", "make"]})),
            "App\\F::make(...)"
        );
    }

    #[test]
    fn short_cuts_long_lists_and_maps_at_every_depth() {
        let long = Expr::List((1..=10).map(Expr::Int).collect());
        assert_eq!(short(&long), "[1, 2, 3, 4, 5, 6, 7, 8, … 2 more]");
        assert_eq!(expr(&long), "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]");
        let nested = Expr::New {
            class: "C".into(),
            args: vec![long],
        };
        assert_eq!(short(&nested), "C([1, 2, 3, 4, 5, 6, 7, 8, … 2 more])");
        let map = Expr::Map((0..9).map(|i| (format!("k{i}"), Expr::Int(i))).collect());
        assert!(short(&map).ends_with("k7: 7, … 1 more}"), "{}", short(&map));
    }
}
