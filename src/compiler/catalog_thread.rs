//! The `types:` catalog built on a thread of its own while the rest of the configuration is
//! expanded (issue #15; docs/performance.md, "Whole compilation › Eighth round").

use crate::catalog::CatalogStream;

/// Entries of a `types:` section from which its catalog is built on a thread of its own
/// (app-10000: 10,700; app-1000's 1,070 stay on the calling thread, where a thread costs about
/// what it saves).
pub(super) const CATALOG_THREAD_MIN: usize = 4096;

/// Entries of the `types:` section handed to the catalog's thread at once.
const CATALOG_BATCH: usize = 256;

/// Runs `expand`, which hands each expanded entry of the `types:` section to the function it
/// is given, with `stream` taking those entries: on a thread of its own when the section has
/// at least `thread_min` `entries` ([`CATALOG_THREAD_MIN`]), so the catalog is built while the rest of the
/// configuration (`services:`) is expanded. The entries arrive in the same order either way,
/// so the catalog and its diagnostics are the same. Returns the stream with every entry
/// added, and what `expand` returned.
///
/// The entries go over in batches (one hand-over per entry cost more than the catalog saved)
/// and come back to be dropped on this thread, which allocated them: freed on the catalog's
/// thread, every node of every entry was a cross-thread free, and app-10000's compile took
/// 10 % more CPU for no less wall time.
pub(super) fn stream_catalog<R>(
    mut stream: CatalogStream,
    entries: usize,
    thread_min: usize,
    expand: impl FnOnce(&mut dyn FnMut(crate::config::StreamedEntry)) -> R,
) -> (CatalogStream, R) {
    type Batch = Vec<(crate::neon::Key, crate::expr::Expr)>;
    if entries < thread_min {
        let out = expand(&mut |(key, _, value)| stream.add(&key, &value));
        return (stream, out);
    }
    std::thread::scope(|scope| {
        // Bounded: few expanded entries wait for the catalog.
        let (send, receive) = std::sync::mpsc::sync_channel::<Batch>(4);
        let (give_back, returned) = std::sync::mpsc::channel::<Batch>();
        let spawned = std::thread::Builder::new()
            .name("catalog".into())
            .spawn_scoped(
                scope,
                crate::memory::counted(move || {
                    for batch in receive {
                        for (key, value) in &batch {
                            stream.add(key, value);
                        }
                        // Dropped by the thread that allocated it.
                        let _ = give_back.send(batch);
                    }
                    stream
                }),
            );
        let Ok(builder) = spawned else {
            // No thread: the catalog is built here.
            let mut stream = CatalogStream::new();
            let out = expand(&mut |(key, _, value)| stream.add(&key, &value));
            return (stream, out);
        };
        let mut batch: Batch = Vec::with_capacity(CATALOG_BATCH);
        let out = expand(&mut |(key, _, value)| {
            batch.push((key, value));
            if batch.len() == CATALOG_BATCH {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(CATALOG_BATCH));
                // The thread ends only when this sender is dropped: it is there to receive.
                let _ = send.send(full);
                returned.try_iter().for_each(drop);
            }
        });
        if !batch.is_empty() {
            let _ = send.send(batch);
        }
        drop(send);
        let stream = builder
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        returned.try_iter().for_each(drop);
        (stream, out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `types:` section of 703 entries (a chain of parents, a malformed entry, a missing
    /// parent) streamed into its catalog on this thread and on the catalog's thread: the
    /// same catalog and the same diagnostics in the same order.
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
        let run = |thread_min: usize| {
            let crate::neon::Kind::Array(raw) =
                crate::neon::decode(&text, crate::source::FileId(0))
                    .expect("decodes")
                    .kind
            else {
                panic!("not a map")
            };
            let mut diags = crate::diagnostics::Diagnostics::new();
            let (stream, (params, _)) =
                stream_catalog(CatalogStream::new(), 703, thread_min, |each| {
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
        let here = run(usize::MAX);
        let there = run(1);
        assert!(here.1.contains("Nowhere"), "{}", here.1);
        assert!(here.0.contains("App\\\\C699"), "{}", &here.0[..200]);
        assert_eq!(there, here);
    }
}
