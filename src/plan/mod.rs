//! Building the plan model from a completed builder, and writing it atomically.
//!
//! The model itself (`wireplan_runtime::plan`) lives in the runtime crate so that the compiler
//! writes exactly what the runtime reads. Output is deterministic: the same inputs give the
//! same bytes.

mod classes;
mod entries;
mod json_parts;
mod output;
mod pretty;
mod problems;
mod signatures;

pub use classes::{unknown_classes, wrong_arities};
pub use output::{check_output, check_replaceable, write_atomic_with};
pub use problems::{constructs, create_cycles, problems, validate, Place, Problem};
pub use wireplan_runtime::plan::captives;

use crate::builder::{Completed, ContainerBuilder, Definition};
use crate::source::{FileId, SourceMap};
use indexmap::IndexMap;
use wireplan_runtime::plan::{self, Dependency, Plan, ServicePlan, SourceLocation};

/// The `compiler` field of the plans this build writes: `wireplan` and its version. Dev mode
/// compiles again when a cached plan names another ([`crate::dev::is_current`]).
pub const COMPILER: &str = concat!("wireplan ", env!("CARGO_PKG_VERSION"));

/// FNV-1a 64-bit hash of bytes, as lowercase hex. Used for dependency and input hashes.
pub fn content_hash(bytes: &[u8]) -> String {
    let mut h = ContentHash::new();
    h.write(bytes);
    h.hex()
}

/// [`content_hash`] of bytes given in pieces: the hash of their concatenation.
struct ContentHash(u64);

impl ContentHash {
    fn new() -> ContentHash {
        ContentHash(0xcbf29ce484222325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x100000001b3);
        }
    }

    /// Writes `bytes` into this hash and into `other` in one pass: the two multiply chains
    /// run side by side (hashing the inputs one after another and each file alone read every
    /// byte twice, one dependent multiply per byte).
    fn write_both(&mut self, other: &mut ContentHash, bytes: &[u8]) {
        let (mut a, mut b) = (self.0, other.0);
        for &byte in bytes {
            a = (a ^ u64::from(byte)).wrapping_mul(0x100000001b3);
            b = (b ^ u64::from(byte)).wrapping_mul(0x100000001b3);
        }
        (self.0, other.0) = (a, b);
    }

    fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// The plan's tag index, derived from the services' tags: tag → (service → value), services
/// in plan order. Rebuilt after `afterCompile(plan)` edits, so it never goes stale.
pub fn tag_index(
    services: &plan::NameMap<ServicePlan>,
) -> IndexMap<String, IndexMap<String, plan::Expr>> {
    let mut tags: IndexMap<String, IndexMap<String, plan::Expr>> = IndexMap::new();
    for (name, s) in services {
        for (t, v) in &s.tags {
            tags.entry(t.clone())
                .or_default()
                .insert(name.to_string(), v.clone());
        }
    }
    tags
}

/// Builds the plan from a completed builder. `files` are the dependencies (configs, includes,
/// scripts) in load order; `parameters` the static parameters, already converted. The
/// builder is left as it was (its completed statements are copied); see [`build_taking`].
pub fn build(
    builder: &ContainerBuilder,
    parameters: IndexMap<String, plan::Expr>,
    sources: &SourceMap,
    files: &[FileId],
) -> Plan {
    let needs_async = builder.async_services();
    let completed = builder
        .definitions()
        .map(|d| {
            d.completed.as_ref().map(|c| {
                Completed::new(
                    c.create.clone(),
                    c.setup.clone(),
                    c.tags().clone(),
                    c.references().clone(),
                    c.parameters().to_vec(),
                )
            })
        })
        .collect();
    assemble(builder, completed, &needs_async, parameters, sources, files)
}

/// [`build`] that moves the completed statements into the plan instead of copying them
/// ([`ContainerBuilder::take_completed`]): for the end of a plain compilation, which no
/// longer needs them in the builder. The plan is the same.
pub fn build_taking(
    builder: &mut ContainerBuilder,
    parameters: IndexMap<String, plan::Expr>,
    sources: &SourceMap,
    files: &[FileId],
) -> Plan {
    let needs_async = builder.async_services();
    let completed = builder.take_completed();
    assemble(builder, completed, &needs_async, parameters, sources, files)
}

/// [`build_taking`] for a builder nothing reads afterwards (a plain compilation without
/// extensions): the builder is emptied first ([`ContainerBuilder::release`]), so its catalog
/// and autowiring index are freed before the plan model is allocated, and each definition is
/// dropped as soon as its service entry is made (its name, type and completed statements
/// move into the entry). The plan is the same as [`build`]'s.
pub fn build_releasing(
    builder: &mut ContainerBuilder,
    parameters: IndexMap<String, plan::Expr>,
    sources: &SourceMap,
    files: &[FileId],
) -> Plan {
    let needs_async = builder.async_services();
    let released = builder.release();
    // What is left of each definition once its entry is made is freed here, or left to the
    // operating system when the process ends after compiling (as the builder's `Rest` is):
    // freeing 10,000 definitions field by field took 0.5-0.7 ms of app-10000's plan build.
    // Not in a large compilation (past the heap at which freed pages go back at once), whose
    // entries then reuse the definitions' memory: gen 100000 peaked at 211 MB instead of 191.
    let leave = crate::memory::process_ends_after_compiling() && !crate::memory::purges_promptly();
    let crate::builder::Released {
        rest,
        mut definitions,
        aliases,
        initialization,
        dependencies,
        signatures: list,
    } = released;
    // One definition's entry, which takes its name, type and completed statements.
    let entry = |def: &mut Definition| match (def.resolved_type.take(), def.completed.take()) {
        (Some(ty), Some(completed)) => Some((
            def.name.as_str().into(),
            service_plan(def, ty, *completed, &needs_async, sources),
        )),
        _ => None,
    };
    // What is left of a definition once its entry is made (unless left, above).
    let release = |def: &mut Definition| {
        drop(std::mem::replace(
            def,
            Definition::made_by(String::new(), None, None),
        ))
    };
    // The rest of the builder (its catalog above all) and the completion's list, from which
    // the type index and the `signatures` section are made; then the rest is freed, or left to
    // the operating system when the process ends after compiling (`Rest`).
    let from_rest = std::sync::Mutex::new(Some((rest, list)));
    let apart = || {
        let (rest, list) = from_rest.lock().ok()?.take()?;
        let hashed = hash_files(sources, files);
        let section = signatures::section(list.into_iter());
        let types = rest.builder().map(type_index).unwrap_or_default();
        drop(rest);
        Some((hashed, section, types))
    };
    // The inputs are hashed, the type index and the `signatures` section made on another core
    // meanwhile when there is enough of them, and that core then makes entries too, unless
    // the definitions are freed (a large compilation): gen 100000's entries made on two cores
    // peaked 10-20 MB higher (213-225 against 194-209 MB) for a plan build 5 ms shorter (89
    // -> 84 ms), the helper's entries taking fresh pages while the definitions freed on it
    // went back to the main thread's heap. There the helper frees the definitions instead
    // (`entries_releasing_beside`), and their pages wait to be reused (`ReuseWithin`) rather
    // than going back to the operating system at once: gen 100000's plan build 80-83 ->
    // 65-71 ms. Returned at once, the frees on the helper raised gen 703000's peak from
    // 1,365-1,393 MB to 1,451-1,483 MB; kept a moment, it stayed at 1,362-1,373 MB (gen
    // 100000's rose from 205-220 to 239-252 MB).
    let bytes: usize = files.iter().map(|id| sources.get(*id).text.len()).sum();
    let reuse = crate::memory::ReuseWithin::start();
    let (services, beside) = if bytes < HASH_APART_MIN || crate::parallel::parallelism() == 1 {
        // First, so the rest of the builder is freed before the plan model is allocated.
        let beside = apart();
        let mut services =
            plan::NameMap::with_capacity_and_hasher(definitions.len(), Default::default());
        services.extend(definitions.values_mut().filter_map(|def| {
            let made = entry(def);
            if !leave {
                release(def);
            }
            made
        }));
        (services, beside)
    } else if leave {
        entries::entries_beside("hash", definitions.as_mut_slice(), entry, apart)
    } else {
        let definitions = definitions.as_mut_slice();
        entries::entries_releasing_beside("hash", definitions, entry, release, apart)
    };
    // (Made here if the helper's work did not run: it always runs, on its thread or here.)
    let Some((hashed, signatures, types)) = beside.or_else(apart) else {
        unreachable!("the rest of the builder is taken once")
    };
    drop(reuse);
    if leave {
        // The definitions' remains are left; the map's own buffers (4 MB at app-10000) are
        // freed, for the encoding to reuse (30-60 µs).
        definitions.into_iter().for_each(std::mem::forget);
    } else if crate::memory::process_ends_after_compiling() {
        // A large compilation's emptied definitions: their map (37 MB at gen 100000, with a
        // name per entry) is left as well. Freeing it took 5.7 ms; the peak, passed while
        // completing, stays where it was (201-206 MB against 205-222 MB).
        std::mem::forget(definitions);
    }
    finish(
        (services, signatures),
        types,
        aliases,
        initialization,
        &dependencies,
        parameters,
        hashed,
    )
}

/// Input bytes from which [`build_releasing`] hashes the inputs on a thread of its own while
/// the service entries are made (app-10000's 1.1 MB take about a millisecond and a half).
const HASH_APART_MIN: usize = 256 * 1024;

/// The dependencies `files` (in load order) with their content hashes, and the inputs hash
/// over them so far (the `addDependency` files come after them, in [`finish`]).
fn hash_files(sources: &SourceMap, files: &[FileId]) -> (Vec<Dependency>, ContentHash) {
    // The inputs hash is the hash of all inputs one after another, computed file by file.
    let mut all = ContentHash::new();
    let dependencies = files
        .iter()
        .map(|id| {
            let f = sources.get(*id);
            let mut one = ContentHash::new();
            all.write_both(&mut one, f.text.as_bytes());
            Dependency {
                path: f.name.clone(),
                hash: one.hex(),
            }
        })
        .collect();
    (dependencies, all)
}

/// The plan from the builder and its definitions' completed statements (`completed`, one
/// item per definition in definition order).
fn assemble(
    builder: &ContainerBuilder,
    completed: Vec<Option<Completed>>,
    needs_async: &std::collections::HashSet<String>,
    parameters: IndexMap<String, plan::Expr>,
    sources: &SourceMap,
    files: &[FileId],
) -> Plan {
    let mut services = plan::NameMap::with_capacity_and_hasher(completed.len(), Default::default());
    for (def, completed) in builder.definitions().zip(completed) {
        let Some(ty) = def.resolved_type.clone() else {
            continue;
        };
        let Some(completed) = completed else {
            continue;
        };
        let entry = service_plan(def, ty, completed, needs_async, sources);
        services.insert(def.name.as_str().into(), entry);
    }
    let signatures = signatures::section(builder.signatures.iter().cloned());
    finish(
        (services, signatures),
        type_index(builder),
        builder.aliases().clone(),
        builder.initialization_completed.clone(),
        &builder.dependencies,
        parameters,
        hash_files(sources, files),
    )
}

/// The plan's entry for the definition `def` of resolved type `ty`, completed as `completed`.
fn service_plan(
    def: &Definition,
    ty: String,
    completed: Completed,
    needs_async: &std::collections::HashSet<String>,
    sources: &SourceMap,
) -> ServicePlan {
    let autowired = def.autowired.plan_autowired(&ty);
    let source = def.span.map(|s| {
        let f = sources.get(s.file);
        let (line, column) = f.line_col(s.start as usize);
        SourceLocation {
            file: f.name.clone(),
            line: line as u32,
            column: column as u32,
        }
    });
    let (create, setup, tags, references, parameters) = completed.into_parts();
    ServicePlan {
        kind: def.kind.plan_kind(),
        type_: ty.into(),
        lifespan: def.lifespan,
        autowired,
        tags,
        create,
        setup,
        implement: def.extras().implement.clone(),
        parameters,
        references,
        source,
        requires_async: needs_async.contains(&def.name),
    }
}

/// The plan's type index: each autowired type → the services autowired for it.
fn type_index(builder: &ContainerBuilder) -> plan::NameMap<plan::TypeServices> {
    let types = builder.autowiring().types();
    // The types are filtered (a lower size hint of 0): sized by the upper one, not grown.
    let mut index = plan::NameMap::with_capacity_and_hasher(
        types.size_hint().1.unwrap_or(0),
        Default::default(),
    );
    index.extend(types.map(|(t, names)| (t.into(), names.map(|n| n.into()).collect())));
    index
}

/// The plan around its services and its `signatures` section: the tag index, the
/// dependencies (`hashed`: the files read, from [`hash_files`]; then the `addDependency`
/// files) and the inputs hash.
fn finish(
    (services, signatures): (plan::NameMap<ServicePlan>, plan::NameMap<plan::Name>),
    types: plan::NameMap<plan::TypeServices>,
    aliases: IndexMap<String, String>,
    initialization: Vec<plan::Expr>,
    added: &[std::path::PathBuf],
    parameters: IndexMap<String, plan::Expr>,
    (mut dependencies, mut all): (Vec<Dependency>, ContentHash),
) -> Plan {
    let tags = tag_index(&services);
    // Files extensions registered with `addDependency` (an unreadable one hashes as empty,
    // so it is rebuilt once it appears).
    for path in added {
        let bytes = std::fs::read(path).unwrap_or_default();
        let mut one = ContentHash::new();
        all.write_both(&mut one, &bytes);
        let path = path.display().to_string();
        if !dependencies.iter().any(|d| d.path == path) {
            dependencies.push(Dependency {
                path,
                hash: one.hex(),
            });
        }
    }
    Plan {
        format: plan::FORMAT.to_string(),
        version: plan::VERSION,
        compiler: COMPILER.to_string(),
        inputs_hash: all.hex(),
        dependencies,
        parameters,
        services,
        aliases: aliases
            .into_iter()
            .map(|(a, t)| (a.into(), t.into()))
            .collect(),
        types,
        tags,
        initialization,
        // Filled by the compiler from the configuration and the catalog.
        dynamic: IndexMap::new(),
        signatures,
    }
}

/// Serialises a plan as pretty JSON (with a final newline).
pub fn to_json(plan: &Plan) -> String {
    let mut s = serde_json::to_string_pretty(plan).unwrap_or_default();
    s.push('\n');
    s
}

/// Writes `bytes` to `path` atomically (a temporary file in the same folder, synced, then
/// renamed over the target), so a reader never sees a half-written plan. The runtime crate's
/// writer, re-exported so compiler and runtime write plans the same way.
pub use wireplan_runtime::encoding::write_atomic;

/// Writes `plan` as JSON to `w` the way `wireplan compile` writes a plan file: the bytes of
/// [`Plan::to_json`] (serde_json's pretty form and a final newline), through wireplan's own
/// formatter, which writes each line break and its indentation in one piece; a large plan's
/// services are encoded on two cores (`json_parts`). Errors: `w`'s.
pub fn write_json<W: std::io::Write>(w: &mut W, plan: &Plan) -> std::io::Result<()> {
    json_parts::write_plan(&mut *w, plan)?;
    w.write_all(b"\n")
}

/// Whether `out` names standard output: `-`, as other tools read it, or `/dev/stdout`
/// (`/dev/fd/1`, `/proc/self/fd/1`), which is no file that could be replaced atomically.
pub fn is_standard_output(out: &std::path::Path) -> bool {
    matches!(
        out.to_str(),
        Some("-" | "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1")
    )
}

/// Whether `out` names standard error (`/dev/stderr`, `/dev/fd/2`, `/proc/self/fd/2`), where
/// `wireplan compile` refuses to write a plan: those names are symbolic links to whatever the
/// process's standard error is, so a plan written through one would replace the file that
/// collects the messages (`2>>build.log`).
pub fn is_standard_error(out: &std::path::Path) -> bool {
    matches!(
        out.to_str(),
        Some("/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2")
    )
}

/// Writes `plan` to `out` in `encoding` the way `wireplan compile` does (standard output,
/// [`is_standard_output`], where nothing is replaced, is refused only when it is redirected to
/// an input): refuses to write over
/// a file the compilation read or recorded as a dependency ([`check_output`]: canonical paths,
/// symlinks, hard links) or over an existing file that is not a plan ([`check_replaceable`]),
/// then writes atomically ([`write_atomic_with`]); JSON is encoded
/// straight into the file's write buffer, never whole in memory (the same bytes as
/// [`Plan::to_json`]). Errors: an `io` diagnostic naming the input or the write failure;
/// `memory-limit` when encoding passed the memory ceiling ([`crate::memory`]; then `out` is
/// left as it was).
pub fn write_checked(
    sources: &SourceMap,
    out: &std::path::Path,
    plan: &Plan,
    encoding: wireplan_runtime::Encoding,
) -> Result<(), crate::diagnostics::Diagnostic> {
    use crate::diagnostics::{Code, Diagnostic};
    use std::io::Write;
    if is_standard_output(out) {
        // `-o -`: standard output, as other tools read `-`. Nothing is replaced, but a shell
        // may have pointed it at an input (`-o - >> app.neon`): that is refused as a path
        // would be. Encoded whole first: a memory-limit error must not leave half a plan on
        // the reader's side.
        #[cfg(unix)]
        if let Err(mut d) = check_output(std::path::Path::new("/dev/stdout"), sources, plan) {
            d.notes = vec!["standard output goes to that file; send it elsewhere".into()];
            return Err(d);
        }
        // A plan sent to /dev/null would be reported as written, as `-o /dev/null` is not; a
        // closed standard output is /dev/null too (the Rust runtime opens it there).
        #[cfg(unix)]
        if std::fs::canonicalize("/dev/stdout")
            .is_ok_and(|p| p == std::path::Path::new("/dev/null"))
        {
            return Err(Diagnostic::error(
                Code::Io,
                "Refusing to write the plan to standard output, which goes to /dev/null (or was closed).",
            )
            .with_note(
                "to check a configuration without writing a plan, run `wireplan check CONFIG`",
            ));
        }
        let bytes = plan.encode(encoding);
        crate::memory::check("encoding the plan")?;
        let mut stdout = std::io::stdout().lock();
        return stdout
            .write_all(&bytes)
            .and_then(|()| stdout.flush())
            .map_err(|e| {
                Diagnostic::error(
                    Code::Io,
                    format!("Cannot write the plan to standard output: {e}"),
                )
            });
    }
    check_output(out, sources, plan)?;
    check_replaceable(out)?;
    let mut over_memory = None;
    let written = write_atomic_with(out, |file| {
        match encoding {
            // `Plan::to_json`'s bytes: serde_json's pretty form and a final newline.
            wireplan_runtime::Encoding::Json => write_json(&mut *file, plan)?,
            wireplan_runtime::Encoding::Binary => file.write_all(&plan.to_binary())?,
        }
        crate::memory::check("encoding the plan").map_err(|d| {
            over_memory = Some(d);
            std::io::Error::other("the memory ceiling was passed")
        })
    });
    if let Some(d) = over_memory {
        return Err(d);
    }
    written.map_err(|e| {
        let d = Diagnostic::error(
            Code::Io,
            format!("Cannot write the plan to '{}': {e}", out.display()),
        );
        match output_path_note(out) {
            Some(note) => d.with_note(note),
            None => d,
        }
    })
}

/// What is wrong with an output path the system refused, when it can be told from the path:
/// a name ending in `/` (a folder: the system says "Not a directory" when it does not exist),
/// an existing folder (a file name in it), a read-only file, a folder that does not exist (it
/// is not created), or `/dev/null` (say how to only check).
fn output_path_note(out: &std::path::Path) -> Option<String> {
    let text = out.as_os_str().to_string_lossy();
    // `-o /dev/null` to only check: the command that checks without writing.
    if text == "/dev/null" {
        return Some(
            "to check a configuration without writing a plan, run `wireplan check CONFIG`".into(),
        );
    }
    if text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR) {
        return Some(format!(
            "the path ends with '/', so it names a folder; a plan needs a file name, such as \
             {text}app.plan.json"
        ));
    }
    // An existing folder, or a file the system would let nobody write (an operator's trial:
    // neither message said what to do).
    if out.is_dir() {
        return Some(format!(
            "a plan needs a file name, such as {}",
            out.join("app.plan.json").display()
        ));
    }
    if std::fs::metadata(out).is_ok_and(|m| m.permissions().readonly()) {
        return Some(
            "write the plan elsewhere, or make the file writable first: a plan is not written \
             over a read-only file"
                .into(),
        );
    }
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty())?;
    (!parent.exists()).then(|| {
        format!(
            "the folder '{}' does not exist; the plan's folder is not created",
            parent.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A plan of these services and aliases (shared with `problems`' tests).
    pub(super) fn plan(services: serde_json::Value, aliases: serde_json::Value) -> Plan {
        serde_json::from_value(json!({
            "format": plan::FORMAT, "version": plan::VERSION, "compiler": "t",
            "inputs_hash": "0", "services": services, "aliases": aliases
        }))
        .expect("a plan")
    }

    /// A service of class `A` made with these arguments.
    pub(super) fn new(args: serde_json::Value) -> serde_json::Value {
        json!({"type": "A", "create": {"$new": "A", "args": args}})
    }

    /// The plan file is encoded into the file's write buffer: the same bytes as the whole
    /// encoding in memory, in both forms; a second write replaces the first whole.
    #[test]
    fn a_written_plan_has_the_bytes_of_its_encoding() {
        use wireplan_runtime::Encoding;
        let dir = tempfile::tempdir().expect("temp dir");
        let small = plan(
            json!({"a": new(json!([{"$ref": "b"}])), "b": new(json!([]))}),
            json!({}),
        );
        // Larger than the write buffer, so the buffer is flushed several times.
        let services: serde_json::Map<String, serde_json::Value> = (0..3000)
            .map(|i| {
                (
                    format!("s{i}"),
                    new(json!([format!("value {i}"), {"$ref": "a"}])),
                )
            })
            .collect();
        let large = plan(serde_json::Value::Object(services), json!({"alias": "s1"}));
        for (file, encoding) in [("p.json", Encoding::Json), ("p.bin", Encoding::Binary)] {
            let out = dir.path().join(file);
            for p in [&large, &small] {
                write_checked(&SourceMap::new(), &out, p, encoding).expect("written");
                let expected = match encoding {
                    Encoding::Json => to_json(p).into_bytes(),
                    Encoding::Binary => p.to_binary(),
                };
                let written = std::fs::read(&out).expect("read back");
                assert!(written.len() > 20, "{file}");
                assert!(
                    written == expected,
                    "{file}: {} bytes, expected {}",
                    written.len(),
                    expected.len()
                );
            }
        }
        let big = std::fs::read(dir.path().join("p.json")).expect("read");
        assert!(to_json(&large).len() > 2 * 128 * 1024 && big.len() < 2048);
        let left: Vec<_> = std::fs::read_dir(dir.path()).expect("list").collect();
        assert_eq!(left.len(), 2, "no temporary file is left");
    }
}
