//! How the REPL prints values: configuration expressions and statements as inline NEON
//! (`App\Db('x')`, `@logger`, `[a: 1]`), plan statements in the same notation, script values
//! (definitions by name, ordered maps as maps), and a definition for `:show`.

use crate::builder::{Autowired, Definition, DefinitionKind};
use crate::expr::{Callee, Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::source::SourceMap;
use rhai::Dynamic;
use std::fmt::Write as _;
use wireplan_runtime::plan::{self, CallTarget};

/// A string as NEON: bare when NEON would read it back as the same string, else quoted.
pub fn neon_string(s: &str) -> String {
    let bare = !s.is_empty()
        && s.chars().next().is_some_and(|c| {
            c.is_alphabetic() || c == '_' || c == '\\' || c == '@' || c == '/' || c == '$'
        })
        && s.chars()
            .all(|c| c.is_alphanumeric() || "_\\@/.$-:".contains(c))
        && !s.contains("::")
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null"
        );
    if bare {
        return s.to_string();
    }
    if s.contains(['\n', '\r', '\t']) {
        let escaped = s
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
            .replace('\r', "\\r")
            .replace('\t', "\\t");
        return format!("\"{escaped}\"");
    }
    format!("'{}'", s.replace('\'', "''"))
}

fn key(k: &Key) -> String {
    match k {
        Key::Int(i) => i.to_string(),
        Key::Str(s) => neon_string(s),
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
        ExprKind::Str(s) => neon_string(s),
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
            neon_string(&text)
        }
    }
}

fn format_float(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{f:.1}")
    } else {
        f.to_string()
    }
}

fn target(t: &CallTarget) -> String {
    match t {
        CallTarget::Class(c) => c.clone(),
        CallTarget::SelfObject => "@self".into(),
        CallTarget::Expr(e) => plan_neon(e),
    }
}

fn plan_args(args: &[plan::Expr]) -> String {
    args.iter().map(plan_neon).collect::<Vec<_>>().join(", ")
}

/// A completed plan statement in the same notation as [`neon`]: `{"$ref": "db"}` is `@db`,
/// `{"$new": C, "args": [..]}` is `C(..)`, `{"$param": p}` is `%p%`, `{"$arg": a}` is `$a`.
pub fn plan_neon(e: &plan::Expr) -> String {
    use plan::Expr as P;
    match e {
        P::Null => "null".into(),
        P::Bool(b) => b.to_string(),
        P::Int(i) => i.to_string(),
        P::Float(f) => format_float(*f),
        P::Str(s) => neon_string(s),
        P::List(l) => format!("[{}]", plan_args(l)),
        P::Map(m) => format!(
            "[{}]",
            m.iter()
                .map(|(k, v)| format!("{}: {}", neon_string(k), plan_neon(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        P::Ref(n) if n == "@self" => "@self".into(),
        P::Ref(n) => format!("@{n}"),
        P::New { class, args } => format!("{class}({})", plan_args(args)),
        P::Call {
            target: t,
            method,
            args,
        } => format!("{}::{method}({})", target(t), plan_args(args)),
        P::Set {
            target: t,
            property,
            value,
        } => format!("{}::${property} = {}", target(t), plan_neon(value)),
        P::Get {
            target: t,
            property,
        } => format!("{}::${property}", target(t)),
        P::Callable { target: t, method } => format!("{}::{method}(...)", target(t)),
        P::Func { name, arg } => format!("{name}({})", plan_neon(arg)),
        P::Param(n) => format!("%{n}%"),
        P::Concat(parts) => parts
            .iter()
            .map(|p| match p {
                P::Str(s) => s.clone(),
                other => plan_neon(other),
            })
            .collect::<Vec<_>>()
            .join(""),
        P::Arg(n) => format!("${n}"),
        P::ArgOr { name, default } => format!("${name} = {}", plan_neon(default)),
    }
}

/// A script value as a user reads it: strings as they are at the top level (quoted inside
/// collections), definitions as `Definition(name)`, statements and references as NEON, maps
/// as `{key: value}`.
pub fn dynamic(v: &Dynamic) -> String {
    if v.is_string() {
        return v.to_string();
    }
    nested(v)
}

fn nested(v: &Dynamic) -> String {
    use crate::script::api::{BuilderHandle, DefinitionHandle, OrderedMap};
    use crate::script::values::{ScriptDynamic, ScriptReference, ScriptStatement};
    if v.is_unit() {
        return "()".into();
    }
    if v.is_string() {
        return format!("{:?}", v.to_string());
    }
    if let Some(d) = v.clone().try_cast::<DefinitionHandle>() {
        return format!("Definition({})", d.name());
    }
    if v.is::<BuilderHandle>() {
        return "ContainerBuilder".into();
    }
    if let Some(s) = v.clone().try_cast::<ScriptStatement>() {
        return neon(&Expr::bare(ExprKind::Statement(Box::new(s.0))));
    }
    if let Some(r) = v.clone().try_cast::<ScriptReference>() {
        return format!("@{}", r.0);
    }
    if let Some(d) = v.clone().try_cast::<ScriptDynamic>() {
        return neon(&d.0);
    }
    if let Some(d) = v.clone().try_cast::<crate::diagnostics::Diagnostic>() {
        return format!("error[{}]: {}", d.code, d.message);
    }
    if let Some(m) = v.clone().try_cast::<OrderedMap>() {
        let items: Vec<String> = m
            .entries
            .iter()
            .map(|(k, x)| format!("{k}: {}", nested(x)))
            .collect();
        return format!("{{{}}}", items.join(", "));
    }
    if let Some(m) = v.clone().try_cast::<rhai::Map>() {
        let items: Vec<String> = m
            .iter()
            .map(|(k, x)| format!("{k}: {}", nested(x)))
            .collect();
        return format!("#{{{}}}", items.join(", "));
    }
    if let Some(a) = v.clone().try_cast::<rhai::Array>() {
        let items: Vec<String> = a.iter().map(nested).collect();
        return format!("[{}]", items.join(", "));
    }
    v.to_string()
}

/// `file:line` of a span, or `None` when it has none.
pub fn location(sources: &SourceMap, span: Option<crate::source::Span>) -> Option<String> {
    let span = span?;
    let f = sources.get(span.file);
    let (line, col) = f.line_col(span.start as usize);
    Some(format!("{}:{line}:{col}", f.name))
}

/// The `:show` text of one definition: kind, resolved type, creator as written and as
/// completed, setup, tags, autowiring, lifespan and where it was defined.
pub fn definition(d: &Definition, sources: &SourceMap) -> String {
    let mut out = String::new();
    let kind = match d.kind {
        DefinitionKind::Service => "service",
        DefinitionKind::Factory => "factory",
        DefinitionKind::Accessor => "accessor",
        DefinitionKind::Locator => "locator",
        DefinitionKind::Imported => "imported",
    };
    let _ = writeln!(out, "{}", d.name);
    let _ = writeln!(out, "  kind:      {kind}");
    let ty = d
        .resolved_type
        .clone()
        .or_else(|| d.declared_type.clone())
        .unwrap_or_else(|| "(not resolved)".into());
    let _ = writeln!(out, "  type:      {ty}");
    if let Some(i) = &d.implement {
        let _ = writeln!(out, "  implement: {i}");
    }
    if let Some(c) = &d.creator {
        let written = neon(&Expr::bare(ExprKind::Statement(Box::new(c.clone()))));
        let _ = writeln!(out, "  create:    {written}");
    }
    if let Some(done) = &d.completed {
        let _ = writeln!(out, "  completed: {}", plan_neon(&done.create));
    }
    if !d.setup.is_empty() {
        let _ = writeln!(out, "  setup:");
        match &d.completed {
            Some(done) if done.setup.len() == d.setup.len() => {
                for s in &done.setup {
                    let _ = writeln!(out, "    - {}", plan_neon(s));
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
                ExprKind::Bool(true) => neon_string(k),
                _ => format!("{}: {}", neon_string(k), neon(v)),
            })
            .collect();
        let _ = writeln!(out, "  tags:      [{}]", tags.join(", "));
    }
    let autowired = match &d.autowired {
        Autowired::All(true) => "yes".to_string(),
        Autowired::All(false) => "no".to_string(),
        Autowired::Types(t) => format!("only for {}", t.join(", ")),
    };
    let _ = writeln!(out, "  autowired: {autowired}");
    let _ = writeln!(out, "  lifespan:  {}", lifespan(d.lifespan));
    let at = location(sources, d.span).unwrap_or_else(|| "(added at the prompt or by code)".into());
    let _ = write!(out, "  defined:   {at}");
    out
}

/// `singleton`, `scoped` or `transient`.
pub fn lifespan(l: wireplan_runtime::plan::Lifespan) -> &'static str {
    use wireplan_runtime::plan::Lifespan as L;
    match l {
        L::Singleton => "singleton",
        L::Scoped => "scoped",
        L::Transient => "transient",
    }
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
        assert_eq!(neon(&st), "App\\Db('x y', @db)");
        assert_eq!(neon_string("true"), "'true'");
        assert_eq!(neon_string("it's"), "'it''s'");
        assert_eq!(neon_string("a\nb"), "\"a\\nb\"");
        let call = plan::Expr::Call {
            target: CallTarget::SelfObject,
            method: "setLogger".into(),
            args: vec![plan::Expr::Ref("logger".into())],
        };
        assert_eq!(plan_neon(&call), "@self::setLogger(@logger)");
    }
}
