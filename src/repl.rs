//! The logic of the interactive shell (`wireplan-repl`): a compiled configuration whose builder
//! can be queried with commands or with Rhai expressions over `builder`, exactly as extensions
//! see it. The terminal frontend (rustyline) lives in `repl/main.rs`; this module is tested
//! without a terminal.

use crate::compiler::{self, Built, Compilation, Options};
use crate::diagnostics;
use crate::script::{self, api::BuilderHandle};
use rhai::{Dynamic, Engine, Scope};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Text shown by `:help`.
pub const HELP: &str = "\
commands:
  :services          list every service with its type
  :show NAME         the plan entry of a service (JSON)
  :type TYPE         the services autowired for a type
  :tag TAG           services carrying a tag, with the tag values
  :errors            the diagnostics of the last compilation
  :reload            compile the configuration again
  :help              this text
  :quit              leave
anything else is a Rhai expression; `builder` is the ContainerBuilder, e.g.
  builder.getByType(\"App\\\\Logger\")
  builder.findByTag(\"logaware\")";

/// One REPL session over one configuration file.
pub struct Session {
    path: PathBuf,
    options: Options,
    compilation: Compilation,
    built: Built,
    builder: script::api::SharedBuilder,
    engine: Engine,
    scope: Scope<'static>,
}

/// What a line produced.
#[derive(Debug, PartialEq)]
pub enum Reply {
    /// Text to print.
    Text(String),
    /// The user asked to leave.
    Quit,
}

impl Session {
    /// Compiles `path` and opens a session over the result (also when it has errors).
    pub fn open(path: &Path, options: Options) -> Session {
        let (compilation, built) = compiler::build(path, &options);
        let builder = Rc::new(RefCell::new(built.builder.clone()));
        let engine = script::engine(&options.limits);
        let mut scope = Scope::new();
        scope.push("builder", BuilderHandle::new(builder.clone()));
        Session {
            path: path.to_path_buf(),
            options,
            compilation,
            built,
            builder,
            engine,
            scope,
        }
    }

    /// A one-line summary of the compilation.
    pub fn summary(&self) -> String {
        format!(
            "{}: {} services, {} error(s), {} warning(s)",
            self.path.display(),
            self.builder.borrow().definitions().count(),
            self.compilation.diagnostics.error_count(),
            self.compilation.diagnostics.items().len() - self.compilation.diagnostics.error_count()
        )
    }

    /// Handles one input line.
    pub fn eval(&mut self, line: &str) -> Reply {
        let line = line.trim();
        let (cmd, arg) = match line.split_once(char::is_whitespace) {
            Some((c, a)) => (c, a.trim()),
            None => (line, ""),
        };
        let text = match cmd {
            "" => String::new(),
            ":quit" | ":q" | ":exit" => return Reply::Quit,
            ":help" | ":h" => HELP.to_string(),
            ":services" => self
                .builder
                .borrow()
                .definitions()
                .map(|d| {
                    format!(
                        "{}  {}",
                        d.name,
                        d.resolved_type.as_deref().unwrap_or("(type unknown)")
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
            ":show" | ":type" | ":tag" if arg.is_empty() => {
                format!(
                    "usage: {cmd} {}",
                    if cmd == ":tag" {
                        "TAG"
                    } else if cmd == ":show" {
                        "NAME"
                    } else {
                        "TYPE"
                    }
                )
            }
            ":show" => self.show(arg),
            ":type" => {
                let b = self.builder.borrow();
                let names = b.autowiring().all(arg);
                if !b.catalog.exists(arg) {
                    format!("unknown type {arg} (not in the catalog)")
                } else if names.is_empty() {
                    format!("no service is autowired for {arg}")
                } else {
                    names.join(", ")
                }
            }
            ":tag" => self
                .builder
                .borrow()
                .find_by_tag(arg)
                .iter()
                .map(|(n, v)| format!("{n}: {}", v.describe()))
                .collect::<Vec<_>>()
                .join("\n"),
            ":errors" => diagnostics::render_to_string(
                &self.compilation.sources,
                self.compilation.diagnostics.items(),
            ),
            ":reload" => {
                *self = Session::open(&self.path.clone(), self.options.clone());
                self.summary()
            }
            c if c.starts_with(':') => format!("unknown command {c}; :help lists them"),
            _ => self.rhai(line),
        };
        Reply::Text(text)
    }

    fn show(&self, name: &str) -> String {
        if !self.builder.borrow().has_definition(name) {
            return format!("no service '{name}'");
        }
        let plan = self.built.plan(&self.compilation.sources);
        match plan.services.get(name) {
            Some(s) => serde_json::to_string_pretty(s).unwrap_or_default(),
            None => format!("service '{name}' could not be completed; see :errors"),
        }
    }

    fn rhai(&mut self, line: &str) -> String {
        match self
            .engine
            .eval_with_scope::<Dynamic>(&mut self.scope, line)
        {
            Ok(v) if v.is_unit() => "()".to_string(),
            Ok(v) => display(&v),
            Err(e) => match e.as_ref() {
                rhai::EvalAltResult::ErrorRuntime(v, _) if v.is::<diagnostics::Diagnostic>() => {
                    let d = v.clone().cast::<diagnostics::Diagnostic>();
                    format!("error[{}]: {}", d.code, d.message)
                }
                other => format!("error: {other}"),
            },
        }
    }
}

/// Shows script values the way a user reads them (definitions by name, ordered maps as maps).
fn display(v: &Dynamic) -> String {
    use crate::script::api::{DefinitionHandle, OrderedMap};
    if let Some(d) = v.clone().try_cast::<DefinitionHandle>() {
        return format!("Definition({})", d.name());
    }
    if let Some(m) = v.clone().try_cast::<OrderedMap>() {
        let items: Vec<String> = m
            .entries
            .iter()
            .map(|(k, x)| format!("{k}: {}", display(x)))
            .collect();
        return format!("{{{}}}", items.join(", "));
    }
    if v.is_string() {
        return v.to_string();
    }
    if let Some(a) = v.clone().try_cast::<rhai::Array>() {
        let items: Vec<String> = a.iter().map(display).collect();
        return format!("[{}]", items.join(", "));
    }
    v.to_string()
}

/// Does the configuration file exist? The REPL refuses to start without one.
pub fn config_exists(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/blog/config/app.neon");
        Session::open(&path, Options::default())
    }

    fn text(r: Reply) -> String {
        match r {
            Reply::Text(t) => t,
            Reply::Quit => panic!("unexpected quit"),
        }
    }

    #[test]
    fn commands_answer_from_the_builder() {
        let mut s = session();
        assert!(
            s.summary()
                .ends_with("9 services, 0 error(s), 0 warning(s)"),
            "{}",
            s.summary()
        );
        assert!(text(s.eval(":services")).contains("logger  App\\FileLogger"));
        assert_eq!(text(s.eval(":type App\\Notifier")), "01, 02");
        assert_eq!(
            text(s.eval(":tag logaware")),
            "articles: true\ncomments: true"
        );
        assert!(text(s.eval(":show articles")).contains("\"setLogger\""));
        assert_eq!(text(s.eval(":show nope")), "no service 'nope'");
        assert_eq!(text(s.eval(":show")), "usage: :show NAME");
        assert_eq!(
            text(s.eval(":type App\\Nope")),
            "unknown type App\\Nope (not in the catalog)"
        );
        assert_eq!(
            text(s.eval(r#"builder.getDefinition("db")"#)),
            "Definition(db)"
        );
        assert_eq!(
            text(s.eval(r#"builder.findByTag("logaware")"#)),
            "{articles: true, comments: true}"
        );
        assert_eq!(s.eval(":quit"), Reply::Quit);
    }

    #[test]
    fn rhai_expressions_see_the_builder() {
        let mut s = session();
        assert_eq!(
            text(s.eval(r#"builder.getByType("App\\Logger")"#)),
            "logger"
        );
        assert_eq!(text(s.eval(r#"builder.hasDefinition("mailer")"#)), "true");
        assert_eq!(
            text(s.eval(r#"builder.getDefinition("nope")"#)),
            "error[missing-service]: Service 'nope' not found."
        );
        assert!(text(s.eval("1 +")).starts_with("error:"));
    }
}
