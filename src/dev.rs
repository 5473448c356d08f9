//! Dev mode: load a container from a cached plan, recompiling the configuration first when any
//! file the plan was compiled from changed.
//!
//! This lives in the compiler crate because it compiles; the runtime crate never looks at
//! sources (production loads a plan with [`Container::load`] or [`Container::from_bytes`]).
//!
//! The cache is one binary plan per configuration in `cache_dir`, named after the
//! configuration's file stem and a hash of its absolute path. The plan's `dependencies` list
//! (configuration files, included files, extension scripts, files registered with
//! `addDependency`) holds each file's FNV-1a hash; the cached plan is reused only while every
//! one of those files still has the same content hash. A missing, unreadable, damaged or
//! foreign-version cache file is simply rebuilt.
//!
//! ```no_run
//! use wireplan::dev::ContainerDevExt;
//! use wireplan_runtime::{Container, Registry};
//!
//! let registry = Registry::new();
//! let container = Container::load_or_compile("config/app.neon", "target/wireplan", &registry)?;
//! # Ok::<(), wireplan::dev::DevError>(())
//! ```

use std::path::{Path, PathBuf};

use wireplan_runtime::plan::Plan;
use wireplan_runtime::{Container, ContainerBuilder, Encoding, Registry};

use crate::catalog::{CatalogInput, REGISTRY_CATALOG};
use crate::compiler::{compile, Options};
use crate::diagnostics::render_to_string;
use crate::plan::content_hash;

/// Why [`load_or_compile`] failed.
///
/// `Debug` prints the same text as `Display` (the rendered diagnostics, when the configuration
/// has errors), so `main() -> Result<(), Box<dyn Error>>` shows what went wrong rather than a
/// struct dump.
#[derive(thiserror::Error)]
pub enum DevError {
    /// The configuration has errors; no plan was written.
    #[error("{config}: the configuration has {count} error(s); no plan written\n{rendered}")]
    Compile {
        /// The root configuration file.
        config: String,
        /// Number of errors.
        count: usize,
        /// The rendered diagnostics (errors and warnings), without colour.
        rendered: String,
    },
    /// The cache directory cannot hold the plan: something other than a directory is there
    /// (`is_file`: a file, device, FIFO...), or it cannot be
    /// created (`cause`). Checked before compiling.
    #[error("{}", cache_dir_message(path, *is_file, cause.as_ref()))]
    CacheDir {
        /// The cache directory as given.
        path: String,
        /// Whether a file (not a directory) is at that path.
        is_file: bool,
        /// Why it could not be created, when it is not a file.
        cause: Option<std::io::Error>,
    },
    /// Writing the cached plan or loading it into a container failed.
    #[error(transparent)]
    Runtime(#[from] wireplan_runtime::Error),
}

impl std::fmt::Debug for DevError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

fn cache_dir_message(path: &str, is_file: bool, cause: Option<&std::io::Error>) -> String {
    match cause {
        _ if is_file => format!(
            "the cache directory '{path}' exists and is not a directory; give a directory (it is created when missing)"
        ),
        Some(e) => format!("cannot create the cache directory '{path}': {e}"),
        None => format!("cannot create the cache directory '{path}'"),
    }
}

/// The error for something other than a directory at `cache_dir`, if there is one.
fn refuse_file_in_place(cache_dir: &Path) -> Result<(), DevError> {
    if cache_dir.exists() && !cache_dir.is_dir() {
        return Err(DevError::CacheDir {
            path: cache_dir.display().to_string(),
            is_file: true,
            cause: None,
        });
    }
    Ok(())
}

/// Makes sure `cache_dir` is a directory, creating it (and its parents) when missing.
fn ensure_cache_dir(cache_dir: &Path) -> Result<(), DevError> {
    refuse_file_in_place(cache_dir)?;
    let path = cache_dir.display().to_string();
    std::fs::create_dir_all(cache_dir).map_err(|cause| DevError::CacheDir {
        // A file in the way higher up (`/etc/passwd/cache`) is reported as it is.
        is_file: false,
        path,
        cause: Some(cause),
    })
}

/// What [`load_or_compile_with`] did.
#[derive(Debug)]
pub struct Loaded {
    /// The loaded container.
    pub container: Container,
    /// Whether the configuration was (re)compiled; `false` when the cached plan was current.
    pub recompiled: bool,
    /// The cached plan file.
    pub plan_path: PathBuf,
    /// The compilation's warnings, one line each (`warning[code] file:line:column: message`),
    /// when it recompiled; empty when the cached plan was current. [`load_or_compile`] prints
    /// them to standard error.
    pub warnings: Vec<String>,
}

/// The cached plan file for `config` in `cache_dir` (`<stem>-<hash>.plan.bin`).
pub fn cache_path(config: &Path, cache_dir: &Path) -> PathBuf {
    let absolute = std::fs::canonicalize(config).unwrap_or_else(|_| config.to_path_buf());
    let stem = config
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config".into());
    let key = content_hash(absolute.to_string_lossy().as_bytes());
    cache_dir.join(format!("{stem}-{}.plan.bin", &key[..8]))
}

/// The cached plan file for `config` compiled with `options` in `cache_dir`: [`cache_path`]
/// for options that change nothing in the plan (no `-p` values, no dynamic parameters, no
/// script folders), else a file of its own per set of those options, so a plan compiled with
/// other options is never taken for current (a new user's trial: a parameter made dynamic in
/// one run and given with `-p` in the next reused the first plan).
pub fn cache_path_with(config: &Path, cache_dir: &Path, options: &Options) -> PathBuf {
    let plain = cache_path(config, cache_dir);
    if options.dynamic.is_empty()
        && options.parameters.is_empty()
        && options.script_paths.is_empty()
    {
        return plain;
    }
    let mut dynamic = options.dynamic.clone();
    dynamic.sort();
    dynamic.dedup();
    let mut key = format!("dynamic {dynamic:?}\n");
    for (name, value) in &options.parameters {
        key.push_str(&format!("-p {name:?} {:?}\n", value.kind));
    }
    for folder in &options.script_paths {
        key.push_str(&format!("scripts {folder:?}\n"));
    }
    let hash = content_hash(key.as_bytes());
    let name = plain
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".plan.bin").unwrap_or(&name);
    cache_dir.join(format!("{stem}-{}.plan.bin", &hash[..8]))
}

/// Whether `plan` was written by this wireplan ([`crate::plan::COMPILER`], the current plan
/// version) and every dependency of it still has the content hash recorded in it. A plan
/// compiled with an in-memory catalog (dev mode's registry catalog) is never current here:
/// use [`is_current_with`].
pub fn is_current(plan: &Plan) -> bool {
    is_current_with(plan, &[])
}

/// [`is_current`], where a dependency named like one of the in-memory catalogs of `catalogs`
/// ([`CatalogInput::Text`], e.g. the registry's) compares with that text's hash: a changed Rust
/// type changes the registry's catalog, so the plan is recompiled.
pub fn is_current_with(plan: &Plan, catalogs: &[CatalogInput]) -> bool {
    // A plan written by another wireplan, or of another plan version, is compiled again (a new
    // user's trial: the cache was keyed by the inputs only, so upgrading wireplan kept
    // loading the old compiler's plan).
    if plan.compiler != crate::plan::COMPILER || plan.version != wireplan_runtime::plan::VERSION {
        return false;
    }
    !plan.dependencies.is_empty()
        && !plan
            .dependencies
            .iter()
            .any(|d| dependency_changed(d, catalogs))
}

/// Whether the input `d` a plan was compiled from no longer has the content hash recorded for
/// it: a file changed or gone, or an in-memory catalog of `catalogs` ([`CatalogInput::Text`],
/// by name) with other text. A shipped extension has no file: its text is part of wireplan.
pub fn dependency_changed(
    d: &wireplan_runtime::plan::Dependency,
    catalogs: &[CatalogInput],
) -> bool {
    let in_memory = catalogs.iter().find_map(|c| match c {
        CatalogInput::Text { name, text } if *name == d.path => Some(text.as_str()),
        _ => None,
    });
    match in_memory.or_else(|| crate::compiler::extensions::shipped_text(&d.path)) {
        Some(text) => content_hash(text.as_bytes()) != d.hash,
        None => std::fs::read(&d.path).map_or(true, |bytes| content_hash(&bytes) != d.hash),
    }
}

/// The registry's catalog as an in-memory compiler input ([`CatalogInput::Text`] named
/// [`REGISTRY_CATALOG`], the JSON of `Registry::catalog_json()`): what [`load_or_compile`]
/// compiles with, and what to add to [`Options::catalogs`] for [`load_or_compile_with`].
pub fn registry_catalog(registry: &Registry) -> CatalogInput {
    CatalogInput::Text {
        name: REGISTRY_CATALOG.to_string(),
        text: registry.catalog_json(),
    }
}

/// Loads `config` through the plan cache in `cache_dir` with `registry`: the cached plan when
/// it is current, otherwise a fresh compilation (written to the cache atomically), whose
/// warnings are printed to standard error (`wireplan: warning[code] file:line:column: …`).
/// Relative paths are relative to the current directory: `cargo run` keeps the one it was
/// started from, so start it in the package's folder, or build the paths from
/// `env!("CARGO_MANIFEST_DIR")`.
///
/// The compilation reads the registry's catalog in process ([`registry_catalog`]), so the
/// configuration needs no `types:` for what the registry provides (a class declared in both
/// is a `duplicate-class` error). The catalog is a dependency of the cached plan: when a Rust
/// type changes, the next call recompiles.
///
/// Errors: [`DevError::CacheDir`] when `cache_dir` is a file or cannot be created (checked
/// first); [`DevError::Compile`] with the rendered diagnostics; [`DevError::Runtime`] for
/// cache writes and for loading (registry gaps, ...), naming the file.
pub fn load_or_compile(
    config: impl AsRef<Path>,
    cache_dir: impl AsRef<Path>,
    registry: &Registry,
) -> Result<Container, DevError> {
    let options = Options {
        catalogs: vec![registry_catalog(registry)],
        ..Options::default()
    };
    let loaded = load_or_compile_with(
        config.as_ref(),
        cache_dir.as_ref(),
        &options,
        Container::builder(registry),
    )
    .map_err(|e| with_unregistered_types(e, registry))?;
    // A recompilation's warnings, as a compile would print them (a new user's trial: dev mode
    // said nothing about them).
    for w in &loaded.warnings {
        eprintln!("wireplan: {w}");
    }
    Ok(loaded.container)
}

/// A compile error of dev mode with the registry's unregistered types listed after the
/// diagnostics: a parameter of such a type is `object` in the registry's catalog, so the
/// diagnostics can only say "no class type"; the list names the Rust type (a new user's trial
/// had to run the catalog writer to learn it). Other errors pass unchanged.
fn with_unregistered_types(mut e: DevError, registry: &Registry) -> DevError {
    if let DevError::Compile { rendered, .. } = &mut e {
        let missing = registry.unregistered_types();
        if !missing.is_empty() {
            rendered.push_str(
                "\nThe registry names no class or interface for these Rust types, so its \
                 catalog calls them `object` (never autowired): register each one (#[class] or \
                 #[interface], or register!):\n",
            );
            for m in &missing {
                rendered.push_str(&format!("  - {m}\n"));
            }
        }
    }
    e
}

/// As [`load_or_compile`], with compiler options (`-p` overrides, dynamic parameters) and a
/// [`ContainerBuilder`] carrying dynamic parameters and imported services; tells whether it
/// recompiled. Each set of options that changes the plan (`-p` values, dynamic parameters,
/// script folders) has its own cache file ([`cache_path_with`]).
/// In-memory catalogs in `options.catalogs` (such as [`registry_catalog`]) are compared by
/// content hash to decide whether the cached plan is current.
pub fn load_or_compile_with(
    config: &Path,
    cache_dir: &Path,
    options: &Options,
    builder: ContainerBuilder<'_>,
) -> Result<Loaded, DevError> {
    // A file in the cache directory's place is reported before anything else; the directory
    // itself is created only when there is a plan to keep (below), so a missing
    // configuration leaves no folder behind.
    refuse_file_in_place(cache_dir)?;
    let plan_path = cache_path_with(config, cache_dir, options);
    let origin = plan_path.display().to_string();
    if let Ok(plan) = Plan::read(&plan_path) {
        if is_current_with(&plan, &options.catalogs) {
            let container = builder.from_plan_named(plan, &origin)?;
            return Ok(Loaded {
                container,
                recompiled: false,
                plan_path,
                warnings: Vec::new(),
            });
        }
    }
    let result = compile(config, options);
    let Some(plan) = result.plan else {
        return Err(DevError::Compile {
            config: config.display().to_string(),
            count: result.diagnostics.error_count(),
            rendered: render_to_string(&result.sources, result.diagnostics.items()),
        });
    };
    let warnings = crate::build::warning_lines(&result.sources, result.diagnostics.items());
    ensure_cache_dir(cache_dir)?;
    plan.write(&plan_path, Encoding::Binary)?;
    let container = builder.from_plan_named(plan, &origin)?;
    Ok(Loaded {
        container,
        recompiled: true,
        plan_path,
        warnings,
    })
}

/// `Container::load_or_compile(..)` syntax for dev mode: bring this trait into scope.
pub trait ContainerDevExt: Sized {
    /// See [`load_or_compile`].
    fn load_or_compile(
        config: impl AsRef<Path>,
        cache_dir: impl AsRef<Path>,
        registry: &Registry,
    ) -> Result<Self, DevError>;
}

impl ContainerDevExt for Container {
    fn load_or_compile(
        config: impl AsRef<Path>,
        cache_dir: impl AsRef<Path>,
        registry: &Registry,
    ) -> Result<Container, DevError> {
        load_or_compile(config, cache_dir, registry)
    }
}
