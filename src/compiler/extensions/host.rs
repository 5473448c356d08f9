//! The [`Host`] of a compilation: what extension scripts may ask of the compiler (files
//! inside the project, definitions from a map, statements, the registered extensions, exported
//! tags and types).

use crate::compiler::services;
use crate::diagnostics::{Code, Diagnostic, Diagnostics};
use crate::expr::{Callee, Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::script::api::{Host, SharedBuilder};
use crate::source::{normalize_path, FileId, SourceMap, Span};
use indexmap::IndexMap;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Shared state behind [`Host`].
pub struct CompilerHost {
    pub(super) sources: Rc<RefCell<SourceMap>>,
    pub(super) builder: SharedBuilder,
    pub(super) parameters: IndexMap<String, Expr>,
    pub(super) project_root: PathBuf,
    pub(super) extensions: RefCell<Vec<(String, String)>>,
    /// Tags added with `compiler.addExportedTag`.
    pub exported_tags: RefCell<Vec<String>>,
    /// Types added with `compiler.addExportedType`.
    pub exported_types: RefCell<Vec<String>>,
}

impl CompilerHost {
    fn resolve_inside(&self, script: &str, path: &str) -> Result<PathBuf, Diagnostic> {
        let base = Path::new(script)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let full = normalize_path(&base.join(path));
        let refused = || {
            Diagnostic::error(
                Code::ScriptError,
                format!(
                    "Access to '{path}' refused: extensions may only read files inside the project ({}).",
                    self.project_root.display()
                ),
            )
            .with_note(PROJECT_NOTE)
        };
        // A path that leaves the project as written (`../..`, an absolute path) is refused
        // before the file system is asked, so a script cannot tell which files exist outside
        // (a missing one was `file-not-found`, an existing one refused). The script's folder
        // exists, so it is read canonically, as the project root is.
        let written = std::fs::canonicalize(if base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &base
        })
        .map(|b| normalize_path(&b.join(path)));
        if written.is_ok_and(|w| !w.starts_with(&self.project_root)) {
            return Err(refused());
        }
        let canonical = std::fs::canonicalize(&full).map_err(|e| {
            Diagnostic::error(
                Code::FileNotFound,
                format!("File '{}' is missing or is not readable.", full.display()),
            )
            .with_note(e.to_string())
        })?;
        // A link inside the project that leads out of it.
        if !canonical.starts_with(&self.project_root) {
            return Err(refused());
        }
        Ok(full)
    }

    /// Expands `%name%` references in strings with the parameters (used for maps scripts
    /// hand to `loadDefinitionsFromConfig` and `addBody` statements); a missing parameter is
    /// added to `problems` ([`crate::config::expand_with`]), placed at the string when it
    /// came from a file, else at `at` (the script's call).
    fn expand(&self, e: &Expr, at: Option<Span>, problems: &mut Vec<Diagnostic>) -> Expr {
        match &e.kind {
            ExprKind::Str(s) if s.contains('%') => {
                crate::config::expand_with(s, &self.parameters, e.span.or(at), problems)
            }
            ExprKind::Array(a) => {
                let mut out = ExprArray::new();
                for (k, v) in &a.items {
                    out.items.insert(k.clone(), self.expand(v, at, problems));
                }
                Expr::new(ExprKind::Array(out), e.span)
            }
            ExprKind::Statement(st) => {
                let mut st = (**st).clone();
                let args = std::mem::take(&mut st.arguments);
                for (k, v) in &args.items {
                    st.arguments
                        .items
                        .insert(k.clone(), self.expand(v, at, problems));
                }
                Expr::new(ExprKind::Statement(Box::new(st)), e.span)
            }
            _ => e.clone(),
        }
    }
}

fn prefix_references(e: &Expr, name: &str) -> Expr {
    match &e.kind {
        ExprKind::Str(s) => match s.strip_prefix("@extension.") {
            Some(rest) => Expr::new(ExprKind::Str(format!("@{name}.{rest}")), e.span),
            None => e.clone(),
        },
        ExprKind::Array(a) => {
            let mut out = ExprArray::new();
            for (k, v) in &a.items {
                out.items.insert(k.clone(), prefix_references(v, name));
            }
            Expr::new(ExprKind::Array(out), e.span)
        }
        ExprKind::Statement(st) => {
            let mut st = (**st).clone();
            if let Callee::Name(n) = &mut st.callee {
                if let Some(rest) = n.strip_prefix("@extension.") {
                    *n = format!("@{name}.{rest}");
                }
            }
            let args = std::mem::take(&mut st.arguments);
            for (k, v) in &args.items {
                st.arguments
                    .items
                    .insert(k.clone(), prefix_references(v, name));
            }
            Expr::new(ExprKind::Statement(Box::new(st)), e.span)
        }
        _ => e.clone(),
    }
}

impl Host for CompilerHost {
    fn load_definitions(
        &self,
        extension: &str,
        config: &Expr,
        at: Option<Span>,
    ) -> Vec<Diagnostic> {
        let Some(items) = config.as_array() else {
            return vec![Diagnostic::error(
                Code::InvalidValue,
                "loadDefinitionsFromConfig expects a map of definitions",
            )];
        };
        let mut prefixed = ExprArray::new();
        // Anonymous definitions take the indexes 0, 1, … (what `push` would give them here,
        // without its search of every key: linear in the number of definitions).
        let mut next = 0;
        let mut problems = Vec::new();
        for (k, v) in &items.items {
            let mut v = prefix_references(&self.expand(v, at, &mut problems), extension);
            // A definition built in the script has no place of its own: the call's line.
            v.span = v.span.or(at);
            match k {
                Key::Str(s) => {
                    prefixed
                        .items
                        .insert(Key::Str(format!("{extension}.{s}").into()), v);
                }
                Key::Int(_) => {
                    prefixed.items.insert(Key::Int(next), v);
                    next += 1;
                }
            }
        }
        let mut diags = Diagnostics::new();
        diags.extend(problems);
        services::load_services(
            &Expr::bare(ExprKind::Array(prefixed)),
            &mut self.builder.borrow_mut(),
            &mut diags,
        );
        diags.into_vec()
    }

    fn load_file(&self, script: &str, path: &str) -> Result<Expr, Diagnostic> {
        let full = self.resolve_inside(script, path)?;
        let bytes = crate::source::read_input_file(&full).map_err(|e| {
            self.sources.borrow_mut().note_missing(&full);
            // Worded as for the command line's files: a folder is "cannot be read: it is a
            // directory", not "missing" with a note saying it is a directory (a new user's
            // trial).
            crate::config::unreadable_file(&full, &e)
        })?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let id = self
            .sources
            .borrow_mut()
            .add_path(full.display().to_string(), &full, text);
        self.builder.borrow_mut().dependencies.push(full);
        let value = crate::neon::decode_bytes(&bytes, id)?;
        Ok(Expr::from_neon(&value))
    }

    fn add_dependency(&self, script: &str, path: &str) -> Result<(), Diagnostic> {
        let full = self.resolve_inside(script, path)?;
        self.builder.borrow_mut().dependencies.push(full);
        Ok(())
    }

    fn parse_statement(&self, text: &str) -> Result<Expr, Diagnostic> {
        let id = self
            .sources
            .borrow_mut()
            .add("<initialization>", text.to_string());
        let value = crate::neon::decode(text, id)?;
        let mut problems = Vec::new();
        let e = self.expand(&Expr::from_neon(&value), None, &mut problems);
        match problems.into_iter().next() {
            Some(first) => Err(first),
            None => Ok(e),
        }
    }

    fn extensions(&self, kind: Option<&str>) -> Vec<(String, String)> {
        self.extensions
            .borrow()
            .iter()
            .filter(|(_, path)| {
                kind.is_none_or(|k| {
                    Path::new(path)
                        .file_stem()
                        .is_some_and(|s| s.to_string_lossy() == k)
                })
            })
            .cloned()
            .collect()
    }

    fn add_exported_tag(&self, tag: &str) {
        self.exported_tags.borrow_mut().push(tag.to_string());
    }

    fn add_exported_type(&self, ty: &str) -> Result<(), Diagnostic> {
        let ty = crate::catalog::normalize_name(ty);
        let builder = self.builder.borrow();
        if !builder.catalog.exists(&ty) {
            let names = builder.catalog.classes().map(|c| c.name.as_str());
            return Err(Diagnostic::error(
                Code::ClassNotFound,
                format!("addExportedType(): Class '{ty}' not found."),
            )
            .with_suggestion(&ty, names));
        }
        self.exported_types.borrow_mut().push(ty);
        Ok(())
    }
}

/// The project whose files extensions may read (`loadFromFile`, `addDependency`), canonical:
/// the current folder when the root configuration lies inside it (the usual `wireplan
/// compile config/app.neon` from the project's folder), otherwise the root configuration's
/// folder; but never wider than the project the configuration belongs to, the outermost
/// folder above it that holds a `Cargo.toml` or a `.git` (a workspace's root, a repository;
/// run from `/` or a home folder, the current folder would have opened every file there to
/// scripts). The file system's root and the home folder are never the project: without such
/// a folder below them, the configuration's folder is.
pub fn project_root(sources: &SourceMap, files: &[FileId]) -> PathBuf {
    let config_dir = files
        .first()
        .and_then(|f| sources.get(*f).path.as_ref())
        .and_then(|p| p.parent())
        .map(Path::to_path_buf);
    let cwd = std::env::current_dir()
        .ok()
        .and_then(|d| std::fs::canonicalize(d).ok());
    let Some(config_dir) = config_dir else {
        return cwd.unwrap_or_else(|| PathBuf::from("."));
    };
    let wide = match cwd {
        Some(w) if config_dir.starts_with(&w) => w,
        _ => return config_dir,
    };
    // The file system's root and the home folder are never the project, marked or not (a
    // home folder may hold a `.git` of its own).
    let home = home_dir();
    let too_wide = |d: &Path| d.parent().is_none() || home.as_deref() == Some(d);
    // The outermost marked folder: a workspace's root rather than its member crate, so a
    // script may read the workspace's shared files when run from there.
    let marked = config_dir
        .ancestors()
        .filter(|d| !too_wide(d))
        .filter(|d| d.join("Cargo.toml").is_file() || d.join(".git").exists())
        .last();
    match marked {
        Some(project) if !wide.starts_with(project) => project.to_path_buf(),
        Some(_) => wide,
        None if too_wide(&wide) => config_dir,
        None => wide,
    }
}

/// What "the project" of [`project_root`] is, for the refusal's note.
const PROJECT_NOTE: &str = "the project is the current folder when the configuration is \
    inside it, else the configuration's folder, and never more than the outermost folder \
    above the configuration with a Cargo.toml or .git (nor / or the home folder)";

/// The user's home folder (`$HOME`), canonical, if it names one.
fn home_dir() -> Option<PathBuf> {
    std::fs::canonicalize(std::env::var_os("HOME")?).ok()
}
