//! Compiling a configuration from an application's `build.rs`, so the binary embeds its plan.
//!
//! ```no_run
//! // build.rs (with `wireplan` under [build-dependencies]), inside `fn main()`:
//! let out_dir = std::env::var("OUT_DIR").unwrap();
//! if let Err(e) = wireplan::build::compile_plan("config/app.neon", &out_dir) {
//!     panic!("{e}"); // the build fails with the rendered diagnostics
//! }
//! ```
//!
//! ```text
//! // main.rs
//! static PLAN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/app.plan.bin"));
//! let container = wireplan_runtime::Container::from_bytes(PLAN, &registry)?;
//! ```
//!
//! The helper prints `cargo:rerun-if-changed=` for every file the plan was compiled from
//! (configuration files, includes, extension scripts, `addDependency` files), so Cargo
//! recompiles the plan exactly when one of them changes, and a `cargo:warning=` line for each
//! warning of the compilation (`warning[code] file:line:column: message (notes)`), which Cargo
//! shows with the build.

use std::path::{Path, PathBuf};

use wireplan_runtime::Encoding;

use crate::compiler::{compile, Options};
use crate::diagnostics::render_to_string;

/// Why [`compile_plan`] failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The configuration has errors.
    #[error("{config}: the configuration has {count} error(s)\n{rendered}")]
    Compile {
        /// The root configuration file.
        config: String,
        /// Number of errors.
        count: usize,
        /// The rendered diagnostics.
        rendered: String,
    },
    /// The plan could not be written.
    #[error(transparent)]
    Write(#[from] wireplan_runtime::Error),
}

/// Compiles `config` and writes `<out_dir>/<config stem>.plan.bin` (binary, atomically;
/// `out_dir` is created if needed), printing `cargo:rerun-if-changed` lines for its dependencies. Returns the plan's path.
///
/// Errors: [`BuildError::Compile`] with rendered diagnostics; [`BuildError::Write`].
pub fn compile_plan(
    config: impl AsRef<Path>,
    out_dir: impl AsRef<Path>,
) -> Result<PathBuf, BuildError> {
    compile_plan_with(
        config.as_ref(),
        out_dir.as_ref(),
        &Options::default(),
        Encoding::Binary,
    )
}

/// As [`compile_plan`], with the application's catalog file `catalog` (the JSON its registry
/// writes, see `wireplan_runtime::catalog::write_if_requested`, or a NEON `types:` file) read
/// besides the configuration's `types:`, as `wireplan compile --catalog` does. Cargo reruns
/// the build script when the catalog changes.
///
/// Errors: as [`compile_plan`]; a missing catalog file is a `file-not-found` diagnostic.
pub fn compile_plan_with_catalog(
    config: impl AsRef<Path>,
    catalog: impl AsRef<Path>,
    out_dir: impl AsRef<Path>,
) -> Result<PathBuf, BuildError> {
    let options = Options {
        catalogs: vec![crate::catalog::CatalogInput::File(
            catalog.as_ref().to_path_buf(),
        )],
        ..Options::default()
    };
    compile_plan_with(
        config.as_ref(),
        out_dir.as_ref(),
        &options,
        Encoding::Binary,
    )
}

/// As [`compile_plan`], with compiler options ([`Options::catalogs`] for catalog files) and a choice of encoding (`.plan.json` for
/// [`Encoding::Json`]).
pub fn compile_plan_with(
    config: &Path,
    out_dir: &Path,
    options: &Options,
    encoding: Encoding,
) -> Result<PathBuf, BuildError> {
    let result = compile(config, options);
    let Some(plan) = result.plan else {
        println!("cargo:rerun-if-changed={}", config.display());
        for c in &options.catalogs {
            if let crate::catalog::CatalogInput::File(path) = c {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        return Err(BuildError::Compile {
            config: config.display().to_string(),
            count: result.diagnostics.error_count(),
            rendered: render_to_string(&result.sources, result.diagnostics.items()),
        });
    };
    // A shipped extension has no file to watch (cargo would rerun for a missing one).
    // Nor has an in-memory catalog.
    let in_memory = |path: &str| {
        options
            .catalogs
            .iter()
            .any(|c| matches!(c, crate::catalog::CatalogInput::Text { name, .. } if name == path))
    };
    for d in &plan.dependencies {
        if crate::compiler::extensions::shipped_text(&d.path).is_none() && !in_memory(&d.path) {
            println!("cargo:rerun-if-changed={}", d.path);
        }
    }
    // The compilation's warnings, one line each, as Cargo shows a build script's warnings (a
    // new user's trial: a build with warnings said nothing, so only a separate `wireplan
    // check` could see them).
    for line in warning_lines(&result.sources, result.diagnostics.items()) {
        println!("cargo:warning={line}");
    }
    let stem = config
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "app".into());
    let ext = match encoding {
        Encoding::Json => "plan.json",
        Encoding::Binary => "plan.bin",
    };
    let path = out_dir.join(format!("{stem}.{ext}"));
    std::fs::create_dir_all(out_dir).map_err(|cause| wireplan_runtime::Error::Write {
        origin: out_dir.display().to_string(),
        what: "plan's folder",
        cause,
    })?;
    plan.write(&path, encoding)?;
    Ok(path)
}

/// One line per warning of `diags`: `warning[code] file:line:column: message (note; note)`,
/// for Cargo's `cargo:warning=` (a line each) and for dev mode's standard error.
pub(crate) fn warning_lines(
    sources: &crate::source::SourceMap,
    diags: &[crate::diagnostics::Diagnostic],
) -> Vec<String> {
    crate::diagnostics::to_json(sources, diags)
        .into_iter()
        .filter(|w| w.severity == crate::diagnostics::Severity::Warning)
        .map(|w| {
            let at = match (&w.file, w.line, w.column) {
                (Some(f), Some(l), Some(c)) => format!(" {f}:{l}:{c}:"),
                (Some(f), _, _) => format!(" {f}:"),
                _ => ":".to_string(),
            };
            let notes = if w.notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", w.notes.join("; "))
            };
            let line = format!("warning[{}]{at} {}{notes}", w.code, w.message);
            line.replace(['\n', '\r'], " ")
        })
        .collect()
}
