//! The `types:` catalog of a plain compilation: built on a thread of its own while the rest of
//! the configuration is expanded (issue #15; docs/performance.md, "Whole compilation › Eighth
//! round"), or taken from an earlier compilation of the same `--watch` session when its section
//! did not change ([`crate::config::DecodedFiles`]).

use crate::catalog::{Catalog, CatalogPart, CatalogStream};
use crate::config::{DecodedFiles, DeferredTypes, Parameters, Refetch, Sections, StreamedValue};
use crate::diagnostics::Diagnostics;
use crate::neon::{Array, Key, Kind, Value};
use crate::source::Span;
use indexmap::IndexMap;
use std::sync::Arc;

/// Expands the configuration `raw` (parameters `dynamic` and `overrides` as in
/// [`crate::config::expand_config_streaming`]) with the `types:` section streamed into its
/// catalog. Returns the parameters, the other sections, and the catalog.
///
/// With `kept` (`--watch`), a `types:` map identical to the one the kept catalog was built from
/// is not expanded: that catalog is taken. A catalog built here is kept when its section read
/// no parameter and neither its expansion nor the catalog reported anything; otherwise
/// nothing is kept, so the next compilation builds the catalog again. Either way the
/// catalog, the sections and the diagnostics are those of a compilation without `kept`.
pub(super) fn expand_with_catalog(
    mut raw: Array,
    dynamic: &[String],
    overrides: &IndexMap<String, Value>,
    kept: Option<&DecodedFiles>,
    diags: &mut Diagnostics,
) -> (Parameters, Sections, Arc<Catalog>) {
    let key = Key::Str("types".into());
    let (mut entries, mut taken, mut copy) = (0, None, None);
    if let Some(types) = raw.get_entry(&key) {
        if let Kind::Array(a) = &types.value.kind {
            entries = a.len();
            if let Some(store) = kept {
                taken = store.catalog_for(&types.value);
                // Kept when the section turns out to stand alone (below): held for later
                // compilations, so the memory ceiling does not count it.
                if taken.is_none() {
                    copy = Some(crate::memory::held(|| types.value.clone()));
                }
            }
        }
    }
    if let (Some(store), Some(_)) = (kept, &taken) {
        // Not expanded at all; the identical kept section stands for it.
        if let Some(types) = raw.entries.shift_remove(&key) {
            store.discard([types.value]);
        }
        entries = 0;
    }
    let mut stream = CatalogStream::new();
    stream.reserve(entries);
    let (stream, (params, sections, streamed)) =
        stream_catalog(stream, entries, CATALOG_THREAD_MIN, |each| {
            crate::config::expand_config_streaming(raw, dynamic, overrides, diags, "types", each)
        });
    if let Some(catalog) = taken {
        return (params, sections, catalog);
    }
    let before = diags.len();
    // A `types:` that is not a map stays a section; it is reported as before (and, never
    // copied, not kept).
    let catalog = Arc::new(match sections.get("types") {
        Some((_, v)) => Catalog::from_section(Some(v), diags),
        None => stream.finish(diags),
    });
    if let Some(store) = kept {
        match copy {
            Some((raw, bytes))
                if streamed.streamed
                    && streamed.references == 0
                    && streamed.diagnostics == 0
                    && diags.len() == before =>
            {
                // Kept, the catalog outlives the builder's release before the plan is built:
                // held for later, so not under the memory ceiling. Its size is not measured;
                // the section it was read from, a larger tree than the catalog, stands for it.
                crate::memory::allow(bytes);
                store.keep_catalog(raw, Arc::clone(&catalog));
            }
            _ => store.forget_catalog(),
        }
    }
    (params, sections, catalog)
}

/// [`expand_with_catalog`] for a configuration loaded by [`crate::config::load_deferring_types`]
/// whose `types:` file was `deferred`: `raw` (which has no `types:` section) is expanded here
/// while the file is still being decoded. Its fetch hands the entries of its `types:` map
/// over as it reads them (the stream of [`crate::config::DeferredTypes`]); this thread reads
/// them into the catalog from the front once it has expanded the rest, while the fetch, once
/// it has handed them all over, reads the last ones from the back (each into a part of its
/// own, appended here in order: the same catalog and problems as reading them one by one).
/// So the catalog is read while the file decodes on the other core, one thread on each core
/// and no third one (docs/performance.md, "Thirty-fifth round"). With `halted` (loading reported an
/// error) the file is only checked, as the catalog of a halted compilation is empty. Returns
/// the parameters, the other sections, the catalog, and the deferred file's text, for the
/// source map.
///
/// `Err` when the file was no plain `types:` file ([`crate::config::DeferredTypes::take`]):
/// the configuration must be loaded again without deferring it, and what this call reported
/// is not the compilation's.
pub(super) fn expand_with_deferred(
    raw: Array,
    dynamic: &[String],
    overrides: &IndexMap<String, Value>,
    deferred: DeferredTypes,
    halted: bool,
    diags: &mut Diagnostics,
) -> Result<Expanded, Refetch> {
    // The file's fetch hands the entries of its `types:` map over as it reads them; this
    // thread reads them into the catalog from the front once it has expanded the rest of the
    // configuration, and the fetch reads the last ones from the back once it is done.
    let types = std::sync::Arc::clone(&deferred.stream);
    // The section is not in `raw` (the loader checked): nothing is streamed.
    let expanded = crate::config::expand_config_streaming(
        raw,
        dynamic,
        overrides,
        diags,
        "types",
        &mut |_| {},
    );
    let mut stream = CatalogStream::new();
    let mut reserved = false;
    // (Waits for the file's decoding, mostly.)
    while let Some(batch) = crate::timings::waiting("include-prefetch", || types.batches.front()) {
        if !halted {
            if !reserved {
                // (Set before the first batch was handed over.)
                stream.reserve(types.entries.load(std::sync::atomic::Ordering::Relaxed));
                reserved = true;
            }
            for e in batch {
                stream.add_light(&e.key, Some(e.key_span), &e.value);
            }
        }
    }
    let (parts, read) = match crate::timings::waiting("include-prefetch", || deferred.take()) {
        Ok(file) if halted => (Vec::new(), Ok((CatalogStream::new(), file.text))),
        Ok(file) => {
            // A map the decode kept whole (nothing was handed over).
            stream.reserve(file.types.entries.len());
            for e in file.types.entries {
                stream.add_light(&e.key, Some(e.key_span), &e.value);
            }
            (file.parts, Ok((stream, file.text)))
        }
        Err(refetch) => (Vec::new(), Err(refetch)),
    };
    let (mut stream, text) = read?;
    for part in parts.into_iter().rev() {
        stream.append(part);
    }
    let (params, sections, _) = expanded;
    let catalog = Arc::new(stream.finish(diags));
    Ok((params, sections, catalog, text))
}

/// What [`expand_with_deferred`] gives.
pub(super) type Expanded = (Parameters, Sections, Arc<Catalog>, String);

/// Entries of a `types:` section from which its catalog is built on a thread of its own
/// (app-10000: 10,700; app-1000's 1,070 stay on the calling thread, where a thread costs about
/// what it saves).
pub(super) const CATALOG_THREAD_MIN: usize = 4096;

/// Entries of the `types:` section handed to the catalog's thread at once.
const CATALOG_BATCH: usize = 256;

/// Runs `expand`, which hands each expanded entry of the `types:` section to the function it
/// is given, with `stream` taking those entries: on a thread of its own when the section has
/// at least `thread_min` `entries` ([`CATALOG_THREAD_MIN`]), so the catalog is built while the
/// rest of the configuration (`services:`) is expanded. The entries arrive in the same order
/// either way, so the catalog and its diagnostics are the same. Returns the stream with every
/// entry added, and what `expand` returned.
///
/// The entries go over in batches (one hand-over per entry cost more than the catalog saved)
/// and are dropped on the catalog's thread once read. Most are handed over as decoded
/// ([`StreamedValue::Decoded`]), so the catalog's thread reads them while this thread expands
/// the rest of the configuration. (When every entry came over expanded, the batches came back
/// to be dropped here, where they were allocated: freed on the catalog's thread, each node was
/// a cross-thread free, and app-10000's compile took 10 % more CPU. A decoded entry was
/// allocated by the decoder's threads, not this one; kept for this thread to drop, the whole
/// section stayed alive until the catalog was done, and the compile took more CPU, not less:
/// docs/performance.md, "Eleventh round".)
///
/// When this thread is done expanding before the catalog's thread is done reading, it takes
/// the last batches back and reads them itself ([`crate::parallel::Handover`], a
/// [`CatalogPart`] per batch), instead of waiting for the catalog's thread to get to them;
/// the parts are then added to the stream in their place ([`CatalogStream::append`]), so the
/// catalog and its problems are still those of reading every entry in order (docs/
/// performance.md, "Sixteenth round").
pub(super) fn stream_catalog<R>(
    stream: CatalogStream,
    entries: usize,
    thread_min: usize,
    expand: impl FnOnce(&mut dyn FnMut(crate::config::StreamedEntry)) -> R,
) -> (CatalogStream, R) {
    stream_catalog_in(stream, entries, thread_min, CATALOG_BATCH, false, expand)
}

/// [`stream_catalog`] with batches of `batch` entries; with `hold` (tests), the catalog's
/// thread reads nothing until this thread has taken a batch back.
fn stream_catalog_in<R>(
    mut stream: CatalogStream,
    entries: usize,
    thread_min: usize,
    batch: usize,
    hold: bool,
    expand: impl FnOnce(&mut dyn FnMut(crate::config::StreamedEntry)) -> R,
) -> (CatalogStream, R) {
    type Batch = Vec<(Key, Span, StreamedValue)>;
    fn add(stream: &mut CatalogStream, key: &Key, span: Span, value: &StreamedValue) {
        match value {
            StreamedValue::Expanded(e) => stream.add(key, Some(span), e),
            StreamedValue::Decoded(v) => stream.add_decoded(key, Some(span), v),
        }
    }
    if entries < thread_min {
        let out = expand(&mut |(key, span, value)| add(&mut stream, &key, span, &value));
        return (stream, out);
    }
    // Not bounded: the expansion goes on to `services:` while the catalog catches up. Most
    // entries go over as decoded, their raw nodes moved, so an entry waiting here holds no
    // memory that the raw section did not hold already; only entries with parameters or
    // entities are expanded copies (bounded by the section's size).
    let handover = crate::parallel::Handover::<Batch>::new(hold);
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new().name("catalog".into());
        let spawned = crate::parallel::spawn_scoped(scope, thread, || {
            while let Some(batch) = handover.front() {
                for (key, span, value) in &batch {
                    add(&mut stream, key, *span, value);
                }
            }
            // The checks across entries too, before the calling thread waits for
            // it, unless that thread read the last entries (then it adds them first).
            if !handover.taken_back() {
                stream.settle();
            }
            stream
        });
        let Ok(builder) = spawned else {
            // No thread: the catalog is built here.
            let mut stream = CatalogStream::new();
            let out = expand(&mut |(key, span, value)| add(&mut stream, &key, span, &value));
            return (stream, out);
        };
        // Closed once every batch is in, or if `expand` panics.
        let closing = handover.closing();
        let mut full: Batch = Vec::with_capacity(batch);
        let out = expand(&mut |entry| {
            full.push(entry);
            if full.len() == batch {
                handover.push(std::mem::replace(&mut full, Vec::with_capacity(batch)));
            }
        });
        if !full.is_empty() {
            handover.push(full);
        }
        drop(closing);
        // The last batches the catalog's thread has not got to, read here, last first.
        let mut parts = Vec::new();
        while let Some(batch) = handover.back() {
            let mut part = CatalogPart::new();
            for (key, span, value) in batch {
                match &value {
                    StreamedValue::Expanded(e) => part.add(key, Some(span), e),
                    StreamedValue::Decoded(v) => part.add_decoded(key, Some(span), v),
                }
            }
            part.done_reading();
            parts.push(part);
        }
        let mut stream = crate::timings::waiting("catalog", || builder.join())
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        for part in parts.into_iter().rev() {
            stream.append(part);
        }
        (stream, out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `types:` section of 706 entries (a chain of parents, a malformed entry, a missing
    /// parent, a class declared twice far apart, a `null` default that does not fit)
    /// streamed into its catalog on this thread and on the catalog's thread, also with the
    /// last batches taken back and read on this thread (in batches of 1, 7 and 256 entries):
    /// the same catalog and the same diagnostics in the same order.
    #[test]
    fn a_catalog_built_on_its_own_thread_is_the_one_built_here() {
        let mut text = String::from("parameters:\n\tp: App\\C0\ntypes:\n");
        for i in 0..700 {
            let parent = if i == 0 {
                "%p%".to_string()
            } else {
                format!("App\\C{}", i - 1)
            };
            text.push_str(&format!("\tApp\\C{i}:\n\t\textends: {parent}\n"));
        }
        text.push_str("\tApp\\Bad: 5\n\tApp\\Orphan:\n\t\textends: App\\Nowhere\n");
        text.push_str("\tapp\\c7: {}\n");
        text.push_str("\tApp\\Opt:\n\t\tconstructor:\n\t\t\tx: {type: int, default: null}\n");
        text.push_str("\tApp\\Late: {}\n\t\\app\\late: {}\n");
        let run = |thread_min: usize, batch: usize, hold: bool| {
            let crate::neon::Kind::Array(raw) =
                crate::neon::decode(&text, crate::source::FileId(0))
                    .expect("decodes")
                    .kind
            else {
                panic!("not a map")
            };
            let mut diags = crate::diagnostics::Diagnostics::new();
            let (stream, (params, _, _)) =
                stream_catalog_in(CatalogStream::new(), 706, thread_min, batch, hold, |each| {
                    crate::config::expand_config_streaming(
                        *raw,
                        &[],
                        &Default::default(),
                        &mut diags,
                        "types",
                        each,
                    )
                });
            let catalog = stream.finish(&mut diags);
            assert!(params.values.contains_key("p"));
            (format!("{catalog:?}"), format!("{:?}", diags.items()))
        };
        let here = run(usize::MAX, CATALOG_BATCH, false);
        assert!(here.1.contains("Nowhere"), "{}", here.1);
        assert!(here.1.contains("declared twice"), "{}", here.1);
        assert!(here.1.contains("App\\\\Opt"), "{}", here.1);
        assert!(here.0.contains("App\\\\C699"), "{}", &here.0[..200]);
        for (batch, hold) in [
            (CATALOG_BATCH, false),
            (1, true),
            (7, true),
            (CATALOG_BATCH, true),
        ] {
            assert_eq!(run(1, batch, hold), here, "batches of {batch}, hold {hold}");
        }
    }

    /// A panic in the expansion, with batches handed over and the catalog's thread waiting
    /// for more, reaches the caller: the thread is not left waiting (nor the caller with it).
    #[test]
    fn a_panic_while_expanding_does_not_leave_the_catalog_thread_waiting() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let caught = std::panic::catch_unwind(|| {
                stream_catalog_in(CatalogStream::new(), 10, 1, 2, false, |each| {
                    for i in 0..5 {
                        each((
                            Key::Str(format!("App\\C{i}").into()),
                            Span::default(),
                            StreamedValue::Decoded(Value::new(Kind::Null, Span::default())),
                        ));
                    }
                    panic!("expansion failed");
                })
            });
            let _ = done.send(caught.is_err());
        });
        let panicked = finished
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("stream_catalog returned instead of hanging");
        assert!(panicked);
    }

    /// Builds `dir/config.neon` (phases A and B) with `kept` and cold, checks that both give
    /// the same catalog and diagnostics, and makes the copies `--watch` makes between
    /// compilations. Returns the catalog built with `kept` and the diagnostics as text.
    fn build_twice(dir: &std::path::Path, kept: &Arc<DecodedFiles>) -> (Arc<Catalog>, String) {
        let config = dir.join("config.neon");
        let options = crate::compiler::Options {
            decoded: Some(kept.clone()),
            ..Default::default()
        };
        let (warm, built) = crate::compiler::build(&config, &options);
        let (cold, cold_built) = crate::compiler::build(&config, &Default::default());
        let text = |c: &crate::compiler::Compilation| format!("{:?}", c.diagnostics.items());
        assert_eq!(text(&warm), text(&cold));
        assert_eq!(
            format!("{:?}", built.builder.catalog),
            format!("{:?}", cold_built.builder.catalog)
        );
        kept.prepare();
        (built.builder.catalog, text(&warm))
    }

    /// A `--watch` session's catalog: taken again while the `types:` section is identical
    /// (the configuration around it edited, its file's lines moved elsewhere), built again when
    /// the section changed, moved within its file, used a parameter or reported something;
    /// every build gives what a cold build gives.
    #[test]
    fn an_unchanged_types_section_keeps_its_catalog() {
        let dir = tempfile::tempdir().expect("temp dir");
        let write =
            |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("w");
        let types = "types:\n\tApp\\Base: {}\n\tApp\\Db:\n\t\textends: App\\Base\n";
        write("types.neon", types);
        write(
            "config.neon",
            "includes:\n\t- types.neon\nservices:\n\tdb: App\\Db\n",
        );
        let kept = Arc::new(DecodedFiles::new());
        let (first, _) = build_twice(dir.path(), &kept);
        assert!(first.exists("App\\Db"));
        let (again, _) = build_twice(dir.path(), &kept);
        assert!(
            Arc::ptr_eq(&first, &again),
            "an unchanged section is taken again"
        );
        // The configuration edited (every line of it moved): still taken.
        write(
            "config.neon",
            "# edited\nincludes:\n\t- types.neon\nservices:\n\tdb: App\\Db\n\tbase: App\\Base\n",
        );
        let (edited, _) = build_twice(dir.path(), &kept);
        assert!(Arc::ptr_eq(&first, &edited));
        // A class added: built again, and that one is kept.
        write("types.neon", &format!("{types}\tApp\\Cache: {{}}\n"));
        let (added, _) = build_twice(dir.path(), &kept);
        assert!(!Arc::ptr_eq(&first, &added) && added.exists("App\\Cache"));
        assert!(Arc::ptr_eq(&added, &build_twice(dir.path(), &kept).0));
        // The same classes one line lower in their file: their spans differ, so built again.
        write("types.neon", &format!("\n{types}\tApp\\Cache: {{}}\n"));
        let (moved, _) = build_twice(dir.path(), &kept);
        assert!(!Arc::ptr_eq(&added, &moved));
        assert_ne!(
            added.get("App\\Db").map(|c| c.span),
            moved.get("App\\Db").map(|c| c.span)
        );
        // A parameter in the section: never kept (a parameter may change without the section).
        let with_param = "parameters:\n\tparent: App\\Base\ntypes:\n\tApp\\Base: {}\n\tApp\\Db:\n\t\textends: %parent%\n";
        write("types.neon", with_param);
        let (p1, _) = build_twice(dir.path(), &kept);
        let (p2, _) = build_twice(dir.path(), &kept);
        assert!(!Arc::ptr_eq(&p1, &p2));
        // A section that reports something: never kept, and reported every time.
        write(
            "types.neon",
            "types:\n\tApp\\Db:\n\t\textends: App\\Nowhere\n",
        );
        let (e1, d1) = build_twice(dir.path(), &kept);
        let (e2, d2) = build_twice(dir.path(), &kept);
        assert!(!Arc::ptr_eq(&e1, &e2));
        assert!(d1.contains("App\\\\Nowhere"), "{d1}");
        assert_eq!(d1, d2);
    }
}
