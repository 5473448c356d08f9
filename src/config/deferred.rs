//! A large `types:` file decoded while the rest of the configuration is read and expanded
//! (issue #15; docs/performance.md, "Thirty-fourth round" and "Thirty-fifth round").
//!
//! Loading merges every file before anything is expanded, so the loader used to wait for an
//! included file decoded ahead ([`super::prefetch`]) before it could go on: app-10000's
//! 780 KB `types.neon` was on the path of every compile, although the only thing it holds,
//! its `types:` section, goes to the catalog, which the compilation needs only once the
//! services are loaded.
//!
//! So a plain compilation ([`load_deferring_types`]) does not wait for such a file when the
//! root configuration includes it, its fetch ahead says, once it has read the file, that it
//! looks like a plain `types:` file (the line `types:` first, no `%`, `(` or `!`), and
//! neither the root nor an include before it has a `types:` section: the file is registered in its place (so every file keeps its id) and contributes
//! nothing to the merge; its fetch reads it with the lighter decode ([`crate::neon::Light`],
//! no value tree), handing the entries of its `types:` map over as it reads them
//! ([`TypesStream`]), and is taken later by whoever builds the catalog
//! ([`DeferredTypes::take`]), which reads those entries as they come.
//! That is the merge loading would have done exactly when the file turns out to hold nothing
//! but a `types:` map (no other section, no `includes:`, no `!` marker, no `%`) that no other
//! file adds to, read by the lighter decode, which takes no entity and nothing the parser
//! would report, from the text the loader would read: then every entry reads as decoded
//! ([`crate::catalog::reads_as_decoded`]) and its expansion would report nothing either.
//! When any of that does not hold, the compilation starts over from the files, with the
//! fetch handed to the new loader ([`Refetch`], [`load_refetched`]), which loads the way a
//! compilation without deferring does: the same merge, the same diagnostics, in the same
//! order. What starting over costs (decoding the other files again) is paid only by a
//! configuration of that rarer shape (a file that starts as a `types:` file and is not one,
//! or one that another `types:` section merges with).

use super::prefetch::{self, Fetched};
use super::{Loader, RawConfig};
use crate::diagnostics::Diagnostics;
use crate::neon::{Array, Key, Light, LightEntry, LightMap, Value};
use crate::source::{FileId, SourceMap};
use indexmap::IndexMap;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// An included file whose decoding the loader did not wait for (see the module's
/// documentation): registered under [`DeferredTypes::id`] with an empty text, which
/// [`DeferredTypes::take`] gives back once the file is known to be a plain `types:` file.
pub(crate) struct DeferredTypes {
    /// The path as the loader asked for it.
    path: PathBuf,
    /// The id it is registered under, in its place among the files.
    pub id: FileId,
    handle: JoinHandle<Fetched>,
    /// Where its fetch hands over the entries of its `types:` map as it reads them.
    pub stream: std::sync::Arc<TypesStream>,
}

/// The entries of a deferred file's `types:` map in batches, in order, handed over by its
/// fetch as the lighter decode reads them ([`crate::neon::decode_light_streaming`]), so the
/// catalog is read while the rest of the file is decoded; closed when the fetch ends. They
/// are the file's only once [`DeferredTypes::take`] accepted it.
pub(crate) struct TypesStream {
    /// The batches.
    pub batches: crate::parallel::Handover<Vec<LightEntry>>,
    /// About how many entries the map has, set before the first batch is handed over
    /// ([`count_entries`]): room for them is made at once.
    pub entries: std::sync::atomic::AtomicUsize,
    /// Whether the loader deferred the file ([`Prefetch::detach`](super::prefetch::Prefetch)),
    /// so that someone reads the batches from the front: only then does the fetch, once it
    /// has handed them all over, read the last ones itself ([`TypesStream::take_back`]).
    pub claimed: std::sync::atomic::AtomicBool,
}

impl TypesStream {
    /// An open stream with no batches.
    pub fn new() -> TypesStream {
        TypesStream {
            batches: crate::parallel::Handover::new(false),
            entries: std::sync::atomic::AtomicUsize::new(0),
            claimed: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// For the fetch, once it has handed every batch over and closed the stream: the batches
    /// nobody has read yet, taken from the back, each read into a catalog part of its own,
    /// last first (the reader of the front appends them in the opposite order, after its own:
    /// the same catalog as reading them one by one). Nothing when nobody claimed the stream.
    /// So the fetch's thread, done decoding, shares the last batches with the reader of the
    /// front (the loader's thread) instead of a third thread starting for them, whose heap
    /// took 2–3 MB more memory at app-10000 (docs/performance.md, "Thirty-fifth round").
    pub fn take_back(&self) -> Vec<crate::catalog::CatalogPart> {
        let mut parts = Vec::new();
        if !self.claimed.load(std::sync::atomic::Ordering::Acquire) {
            return parts;
        }
        while let Some(batch) = self.batches.back() {
            let mut part = crate::catalog::CatalogPart::new();
            for e in batch {
                part.add_light(e.key, Some(e.key_span), &e.value);
            }
            part.done_reading();
            parts.push(part);
        }
        parts
    }
}

/// About how many entries the map under the first line of `text` has, for a file that starts
/// with `types:` and a line break: the lines indented like its second line that start with
/// something other than a blank or a comment (which may include lines of a multi-line
/// string); 0 when the second line is not indented. Only room is made with it.
pub(crate) fn count_entries(text: &str) -> usize {
    let bytes = text.as_bytes();
    let Some(first) = memchr::memchr(b'\n', bytes).map(|i| i + 1) else {
        return 0;
    };
    let indent = bytes[first..]
        .iter()
        .take_while(|&&b| b == b'\t' || b == b' ')
        .count();
    if indent == 0 {
        return 0;
    }
    let prefix = &bytes[first..first + indent];
    let starts_entry = |at: usize| {
        bytes.get(at..at + indent) == Some(prefix)
            && bytes
                .get(at + indent)
                .is_some_and(|&b| !matches!(b, b'\t' | b' ' | b'\n' | b'#'))
    };
    std::iter::once(first)
        .chain(memchr::memchr_iter(b'\n', &bytes[first..]).map(|i| first + i + 1))
        .filter(|&at| starts_entry(at))
        .count()
}

/// A deferred file that was not a plain `types:` file, with what was fetched for it: for
/// [`load_refetched`], which loads the configuration again without deferring it.
pub(crate) struct Refetch {
    path: PathBuf,
    fetched: Box<Fetched>,
}

/// What a deferred file turned out to hold: its text (to put in its place in the source
/// map) and its `types:` map, every entry of which reads as decoded: the entries that went
/// to the [`TypesStream`], then those in `types` (none when some went there).
pub(crate) struct TypesFile {
    pub text: String,
    pub types: LightMap,
    /// The last batches of the stream, read by the fetch ([`TypesStream::take_back`]), last
    /// first.
    pub parts: Vec<crate::catalog::CatalogPart>,
}

/// Whether the loader may still defer an include (see [`Loader::defer_types`]).
pub(super) enum Defer {
    /// Never (every loader but [`load_deferring_types`]'s).
    Off,
    /// The first large include of the root file that is being fetched may be.
    Open,
    /// One was.
    Taken(DeferredTypes),
}

impl DeferredTypes {
    /// Waits for the file's fetch and checks that it is a plain `types:` file (see the
    /// module's documentation). `Err` hands the fetch on for [`load_refetched`].
    pub fn take(self) -> Result<TypesFile, Refetch> {
        let Fetched {
            read,
            decoded,
            light,
        } = prefetch::join(self.handle);
        match (read, light) {
            (Ok((text, None)), Some(l))
                if l.file == self.id && plain_types(&l.light, l.streamed) =>
            {
                match types_of(l.light) {
                    Some(types) => Ok(TypesFile {
                        text,
                        types,
                        parts: l.parts,
                    }),
                    // (Not reached: `plain_types` checked the shape.) Decoded again.
                    None => Err(Refetch {
                        path: self.path,
                        fetched: Box::new(Fetched {
                            read: Ok((text, None)),
                            decoded: None,
                            light: None,
                        }),
                    }),
                }
            }
            (read, light) => Err(Refetch {
                path: self.path,
                fetched: Box::new(Fetched {
                    read,
                    decoded,
                    light,
                }),
            }),
        }
    }

    /// [`DeferredTypes::take`] that only waits: for a loader that starts over anyway.
    fn refetch(self) -> Refetch {
        Refetch {
            path: self.path,
            fetched: Box::new(prefetch::join(self.handle)),
        }
    }
}

/// Whether `light` is a plain `types:` file: one `types:` section, a map of classes. (A
/// light tree is made only of a text that looks plain, `prefetch::looks_plain`: the line
/// `types:` first, so no plan file, and no `%`, `(` or `!`, so no parameter, no entity, no
/// merge marker; and the lighter decode takes no entity. So each entry reads as decoded.)
/// `streamed`: how many of the map's entries went to the [`TypesStream`] (the decode hands
/// over no list's: a map whose first key is a string).
fn plain_types(light: &Light, streamed: usize) -> bool {
    let Light::Map(sections) = light else {
        return false;
    };
    match &*sections.entries {
        [LightEntry {
            key: Key::Str(name),
            value: Light::Map(types),
            ..
        }] if name.as_str() == TYPES => {
            // A list (keys 0, 1, …) is the section's error, which the loader reports.
            let list = streamed == 0
                && types
                    .entries
                    .iter()
                    .enumerate()
                    .all(|(i, e)| i64::try_from(i).is_ok_and(|i| e.key == Key::Int(i)));
            !list
        }
        _ => false,
    }
}

/// The `types:` map of a file [`plain_types`] accepted.
fn types_of(light: Light) -> Option<LightMap> {
    let Light::Map(sections) = light else {
        return None;
    };
    match Vec::from(sections.entries).pop()?.value {
        Light::Map(types) => Some(types),
        Light::Scalar(_) => None,
    }
}

/// The section a deferred file holds.
const TYPES: &str = "types";

impl Loader<'_> {
    /// Registers the include `path` of the root file, being fetched, without waiting for it,
    /// when deferring is still open and the include would be loaded now (no cycle, no limit
    /// reached). `merged` is what the root's includes so far merged into, `root` the root
    /// file's own sections: neither may have a `types:` section. Whether it was deferred.
    pub(super) fn defer_types(&mut self, path: &Path, merged: &Array, root: &Array) -> bool {
        let key = Key::Str(TYPES.into());
        if !matches!(self.defer, Defer::Open)
            || self.stack.len() != 1
            || merged.get_entry(&key).is_some()
            || root.get_entry(&key).is_some()
            || self.stopped
            || self.files.len() >= super::MAX_INCLUDED_FILES
            || crate::memory::exceeded()
        {
            return false;
        }
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if self.stack.contains(&canonical) {
            return false;
        }
        // Only a file that looks like a plain `types:` file (its fetch says so once it has
        // read it): any other would most likely be loaded twice (see the module's
        // documentation).
        let id = self.sources.next_id();
        let Some((handle, stream)) = self.prefetch.detach(path, id) else {
            return false;
        };
        self.sources
            .add_path(path.display().to_string(), &canonical, String::new());
        self.files.push(id);
        self.defer = Defer::Taken(DeferredTypes {
            path: path.to_path_buf(),
            id,
            handle,
            stream,
        });
        true
    }
}

/// What [`load_deferring_types`] loaded.
pub(crate) struct Loaded {
    pub raw: RawConfig,
    pub sources: SourceMap,
    pub diags: Diagnostics,
    /// The include whose decoding was not waited for, if one was deferred.
    pub deferred: Option<DeferredTypes>,
}

impl Loaded {
    /// The merged `sections` of the `files` read (no catalog files).
    fn new(
        sections: Array,
        files: Vec<FileId>,
        sources: SourceMap,
        diags: Diagnostics,
        deferred: Option<DeferredTypes>,
    ) -> Loaded {
        Loaded {
            raw: RawConfig {
                sections,
                files,
                catalogs: Vec::new(),
            },
            sources,
            diags,
            deferred,
        }
    }
}

/// [`super::load_with`] for a plain compilation, which may defer a large `types:` file the
/// root includes (see the module's documentation): the sections lack its `types:` section,
/// which [`DeferredTypes::take`] gives. When another file has a `types:` section too, the
/// configuration is loaded again without deferring (the fetch reused), so the result is
/// [`super::load_with`]'s.
pub(crate) fn load_deferring_types(path: &Path, parameters: &IndexMap<String, Value>) -> Loaded {
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::new();
    if let Some(d) = super::plan_file_hint(path) {
        diags.push(d);
        return Loaded::new(Array::new(), Vec::new(), sources, diags, None);
    }
    let mut loader = Loader::new(&mut sources, &mut diags, parameters, None);
    loader.defer = Defer::Open;
    let sections = loader.load_file(path, None).unwrap_or_default();
    let (files, defer) = (loader.files, loader.defer);
    let deferred = match defer {
        Defer::Taken(d) => Some(d),
        Defer::Off | Defer::Open => None,
    };
    match deferred {
        Some(d) if sections.get_entry(&Key::Str(TYPES.into())).is_some() => {
            // Another file has a `types:` section: the two merge, so load as a compilation
            // that does not defer.
            drop(sections);
            load_refetched(path, parameters, d.refetch())
        }
        deferred => Loaded::new(sections, files, sources, diags, deferred),
    }
}

/// Loads the configuration rooted at `path` as [`super::load_with`] does, the deferred file
/// of `refetch` taken from there rather than read and decoded again.
pub(crate) fn load_refetched(
    path: &Path,
    parameters: &IndexMap<String, Value>,
    refetch: Refetch,
) -> Loaded {
    // What the first attempt held is freed (the fetch aside, which this one takes over); an
    // overrun of the memory ceiling that the fetch hit is in its result, reported when the
    // loader takes it, as loading without deferring reports it.
    crate::memory::start_over();
    let mut sources = SourceMap::new();
    let mut diags = Diagnostics::new();
    let mut loader = Loader::new(&mut sources, &mut diags, parameters, None);
    loader.prefetch.seed(refetch.path, *refetch.fetched);
    let sections = loader.load_file(path, None).unwrap_or_default();
    let files = loader.files;
    Loaded::new(sections, files, sources, diags, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::{compile, Compilation, Options};
    use std::sync::Arc;

    /// The fetch reads the batches nobody took yet from the back, only once the stream is
    /// claimed; appended after the front's, last part first, they give the catalog of
    /// reading every entry in order, problems included.
    #[test]
    fn the_last_batches_are_read_from_the_back_into_parts() {
        let text = types_text(700, "\tApp\\C3: {}\n\tApp\\D: {implements: [App\\Nope]}\n");
        let mut batches = Vec::new();
        let streamed =
            crate::neon::decode_light_streaming(&text, FileId(1), 702, &mut |b| batches.push(b));
        // (A duplicated class is the parser's error: the lighter decode leaves it.)
        assert!(streamed.is_none());
        let text = types_text(700, "\tApp\\D: {implements: [App\\Nope]}\n");
        batches.clear();
        let (_, n) =
            crate::neon::decode_light_streaming(&text, FileId(1), 702, &mut |b| batches.push(b))
                .expect("plain");
        assert_eq!((n, batches.len()), (702, 3));
        let all: Vec<LightEntry> = batches.iter().flatten().cloned().collect();
        let stream = TypesStream::new();
        for b in batches {
            stream.batches.push(b);
        }
        stream.batches.close();
        assert!(stream.take_back().is_empty(), "not claimed: nothing read");
        stream
            .claimed
            .store(true, std::sync::atomic::Ordering::Release);
        let mut front = crate::catalog::CatalogStream::new();
        for e in stream.batches.front().expect("a first batch") {
            front.add_light(&e.key, Some(e.key_span), &e.value);
        }
        let parts = stream.take_back();
        assert_eq!(parts.len(), 2);
        assert!(stream.batches.front().is_none());
        for part in parts.into_iter().rev() {
            front.append(part);
        }
        let mut one_by_one = crate::catalog::CatalogStream::new();
        for e in &all {
            one_by_one.add_light(&e.key, Some(e.key_span), &e.value);
        }
        let (mut d1, mut d2) = (Diagnostics::new(), Diagnostics::new());
        let (a, b) = (front.finish(&mut d1), one_by_one.finish(&mut d2));
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_eq!(format!("{:?}", d1.items()), format!("{:?}", d2.items()));
        assert_eq!(a.len(), 702);
        assert_eq!(d1.items().len(), 1, "{:?}", d1.items());
    }

    /// The entries of a `types:` map are counted from the lines indented like the first.
    #[test]
    fn entries_are_counted_by_their_indentation() {
        assert_eq!(count_entries(&types_text(300, "")), 301);
        assert_eq!(
            count_entries("types:\n  A:\n    x: 1\n  # c\n\n  B: {}\n  'C': 2\n"),
            3
        );
        assert_eq!(count_entries("types:\n"), 0);
        assert_eq!(count_entries("types:\nA: 1\n"), 0);
        assert_eq!(count_entries("types:"), 0);
    }

    /// A `types:` file of `n` classes (large enough to be fetched ahead from a few thousand),
    /// `extra` appended at its end.
    fn types_text(n: usize, extra: &str) -> String {
        let mut t = String::from("types:\n");
        for i in 0..n {
            t.push_str(&format!(
                "\tApp\\C{i}:\n\t\timplements: [App\\I]\n\t\tconstructor:\n\t\t\tlimit: {{type: int, default: {i}}}\n\t\t\tname: {{type: string, default: 'c{i}'}}\n"
            ));
        }
        t.push_str("\tApp\\I: {interface: true}\n");
        t.push_str(extra);
        t
    }

    /// What a compilation gave, to compare: the plan, the diagnostics, the files read.
    fn shown(c: &Compilation) -> String {
        let files: Vec<(FileId, &str, &str)> = c
            .sources
            .files()
            .map(|(id, f)| (id, f.name.as_str(), f.text.as_str()))
            .collect();
        format!(
            "{}\n{:?}\n{files:?}",
            c.plan
                .as_ref()
                .map(crate::plan::to_json)
                .unwrap_or_default(),
            c.diagnostics.items()
        )
    }

    /// Writes `config` and `types` (as `types.neon`) into a fresh folder and compiles it as
    /// a plain compilation, which may defer the `types:` file, and as one that does not (a
    /// `--watch` store given, empty): both give the same. Returns whether the loader
    /// deferred the file and whether taking it succeeded, and what the compilation gave.
    fn both_ways(config: &str, types: &str) -> (Option<bool>, String) {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("config.neon"), config).expect("write");
        std::fs::write(dir.path().join("types.neon"), types).expect("write");
        let root = dir.path().join("config.neon");
        let loaded = load_deferring_types(&root, &IndexMap::new());
        let deferred = loaded.deferred.map(|d| d.take().is_ok());
        let deferring = compile(&root, &Options::default());
        let store = Some(Arc::new(crate::config::DecodedFiles::new()));
        let plain = compile(
            &root,
            &Options {
                decoded: store,
                ..Options::default()
            },
        );
        assert_eq!(shown(&deferring), shown(&plain));
        (deferred, shown(&deferring))
    }

    const CONFIG: &str = "includes:\n\t- types.neon\nservices:\n\ta: App\\C1\n\tb: App\\C2\n";

    #[test]
    fn a_plain_types_file_is_deferred_and_compiles_as_it_would_have() {
        let (deferred, out) = both_ways(CONFIG, &types_text(4000, ""));
        assert_eq!(deferred, Some(true));
        assert!(
            out.contains("\"wireplan-plan\"") && out.contains("App\\\\C2"),
            "{out:.300}"
        );
        // Problems in the classes: reported the same, at the same places.
        let (deferred, out) = both_ways(
            "includes:\n\t- types.neon\nservices:\n\ta: App\\Bad\n",
            &types_text(
                4000,
                "\tApp\\Bad:\n\t\textends: App\\Nowhere\n\t\tasync: maybe\n",
            ),
        );
        assert_eq!(deferred, Some(true));
        assert!(out.contains("Nowhere") && out.contains("maybe"), "{out}");
    }

    #[test]
    fn a_types_file_that_is_not_plain_compiles_as_it_would_have() {
        let big = |extra: &str| types_text(4000, extra);
        // Another section, a bullet holding a map, a syntax error: taken, then loaded again;
        // a parameter or an entity: the fetch says the file is not plain once it has read
        // it, so it is not deferred.
        for (why, extra, taken) in [
            ("another section", "parameters:\n\tp: 1\n", Some(false)),
            (
                "a bullet holding a map",
                "\tApp\\L:\n\t\timplements:\n\t\t\t- a: App\\I\n",
                Some(false),
            ),
            ("a duplicated class", "\tApp\\C7: {}\n", Some(false)),
            ("a parameter", "\tApp\\P:\n\t\textends: %base%\n", None),
            (
                "an entity",
                "\tApp\\E:\n\t\tconstructor: {x: {type: App\\I, default: App\\C1()}}\n",
                None,
            ),
        ] {
            let config = format!("{CONFIG}parameters:\n\tbase: App\\I\n");
            let (deferred, _) = both_ways(&config, &big(extra));
            assert_eq!(deferred, taken, "{why}");
        }
        // The root has a `types:` section too: the two merge, so nothing is deferred.
        let (deferred, _) = both_ways(&format!("{CONFIG}types:\n\tApp\\Own: {{}}\n"), &big(""));
        assert_eq!(deferred, None);
        // Another include is missing: the compilation stops at loading, as it would have.
        let (deferred, out) = both_ways(
            "includes:\n\t- types.neon\n\t- missing.neon\nservices:\n\ta: App\\C1\n",
            &big(""),
        );
        assert_eq!(deferred, Some(true));
        assert!(out.contains("missing.neon"), "{out}");
        // A small file is not fetched ahead, so not deferred.
        let (deferred, _) = both_ways(CONFIG, &types_text(20, ""));
        assert_eq!(deferred, None);
    }
}
