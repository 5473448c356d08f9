//! The `services:` section loaded with helper threads reading ahead (issue #15;
//! docs/performance.md, "Whole compilation › Tenth round" and "Thirteenth round").
//!
//! Most of loading an entry reads only the catalog: the definition schema's validation, the
//! keys its kind allows, and the definition made from the map ([`services::shape`],
//! [`services::apply`]). For an entry that makes a new definition under a name of its own,
//! that work is done ahead, in blocks on several threads; the definitions are then added to the
//! builder one by one in the section's order, each with what its reading reported. Every other entry
//! is loaded in its turn exactly as on one thread. So the definitions and the diagnostics, in
//! their order, are those of loading the section on one thread.
//!
//! An entry is read ahead when its key is a name (not an integer: anonymous services take the
//! next number when they are added; not `@Type`: that looks up the definitions loaded before
//! it), the name is not all digits (anonymous names are), its value is not `false` (a
//! removal), and the builder has no definition or alias of that name before the section is
//! loaded. No earlier entry can then give the name a definition: the keys of a section differ,
//! and the entries loaded in their turn add only anonymous definitions.

use super::services::{self, DefinitionSchema};
use crate::builder::{ContainerBuilder, Definition, DefinitionKind};
use crate::diagnostics::Diagnostics;
use crate::expr::{Expr, ExprArray, ExprKind};
use crate::neon::Key;
use crate::parallel::{InOrder, Turn};
use indexmap::IndexMap;

/// Entries from which the section is loaded in parts (app-10000: 10,000; app-1000's 1,000
/// stay on the calling thread).
pub(super) const PARALLEL_MIN: usize = 4096;

/// One entry of the section after its part was read. The definition is held by value although
/// it makes the variant large (clippy's `large_enum_variant`): boxed, each definition was a
/// block of the helper thread's heap freed by the calling thread once moved into the builder,
/// and those blocks' pages stayed resident (gen 100000: 204 MB peak RSS against 174 MB by
/// value or on one thread).
#[allow(clippy::large_enum_variant)]
enum Entry {
    /// Loaded in its turn on the calling thread, as one thread would.
    InTurn(Key, Expr),
    /// Read ahead: what shaping the entry reported and, unless that ended it, the definition
    /// made and what making it reported.
    Ahead {
        key: Key,
        shaped: Diagnostics,
        made: Option<(Definition, Diagnostics)>,
    },
}

/// Entries of a block: the unit a thread reads ahead at once (a block's definitions, about
/// 480 bytes each, wait in its list until they are added).
pub(super) const BLOCK: usize = 256;

/// Blocks past the last one added that may be read ahead: with [`BLOCK`], at most about a
/// megabyte of definitions waits to be added (the tenth round read the whole section in one
/// round first, and app-10000's compile peaked 4–5 MB higher).
const AHEAD: usize = 8;

/// Loads the entries of `items` (taken out of the `services:` map, whose key spans stay in
/// `items`) into the builder with `parts - 1` helper threads reading ahead, in blocks of
/// `block` entries ([`BLOCK`]): [`services::load_services_owned`]'s result. The blocks are
/// ranges of the section's map, each entry taken out where it is as its block is read
/// (collected into one list first, app-10000's 10,000 entries were moved twice, a copy of
/// about a megabyte into fresh pages on the calling thread: docs/performance.md, "Nineteenth
/// round"; moved into blocks, once, they still took 0.4–0.5 ms before a helper could begin:
/// "Twenty-eighth round").
///
/// The calling thread adds the blocks in order. Each thread claims the next block nobody has
/// claimed and reads it; the calling thread reads the block it is at itself when it is still
/// unclaimed, and while a helper is at that block it reads a later one instead of waiting. So
/// the helpers read ahead while the calling thread adds (the tenth round read a round in parts,
/// then added it while the helpers waited).
pub(super) fn load_in_parts(
    mut entries: IndexMap<Key, Expr, rustc_hash::FxBuildHasher>,
    items: &ExprArray,
    schema: &DefinitionSchema,
    b: &mut ContainerBuilder,
    diags: &mut Diagnostics,
    parts: usize,
    block: usize,
) {
    let block = block.max(1);
    let helpers = parts.max(1) - 1;
    let ctx = ReadContext::of(b);
    // The blocks are ranges of the section's own map: each entry is taken out where it is
    // when its block is read (its key copied, its value replaced by `null`), not moved into
    // a block first (0.4-0.5 ms of app-10000 on the calling thread before the helper began).
    let inputs = crate::parallel::blocks_of(entries.as_mut_slice(), block);
    let count = inputs.len();
    let read = |k: usize, schema: &DefinitionSchema| -> Vec<Entry> {
        let part = inputs[k].lock().unwrap_or_else(|e| e.into_inner()).take();
        part.map_or_else(Vec::new, |part| {
            part.iter_mut()
                .map(|(key, value)| {
                    let value = std::mem::replace(value, Expr::new(ExprKind::Null, None));
                    read_entry(key.clone(), value, schema, &ctx)
                })
                .collect()
        })
    };
    let blocks = &InOrder::new(count, AHEAD, helpers);
    crate::parallel::split(
        "load",
        helpers,
        || {
            for k in 0..count {
                let entries = match blocks.turn(k, &mut |later| read(later, schema)) {
                    Turn::Yours => read(k, schema),
                    Turn::Ready(entries) => entries,
                    // The join below passes the helper's panic on.
                    Turn::Lost => return,
                };
                for entry in entries {
                    add_entry(entry, items, schema, b, diags);
                }
                blocks.consumed(k);
            }
        },
        |_| {
            // The schema holds its checks in `Rc`s: each helper builds its own, once.
            let schema = DefinitionSchema::new();
            blocks.help(|k| read(k, &schema));
        },
    );
}

/// What reading an entry ahead needs from the builder, taken before the section is loaded so
/// the helpers read while the calling thread adds definitions: the catalog, the names the
/// builder has a definition for (an alias counts when its definition exists:
/// [`ContainerBuilder::has_definition`]), and the actor that new definitions record.
struct ReadContext {
    catalog: std::sync::Arc<crate::catalog::Catalog>,
    names: std::collections::HashSet<String>,
    actor: Option<crate::builder::Actor>,
}

impl ReadContext {
    fn of(b: &ContainerBuilder) -> ReadContext {
        let names = b
            .definitions()
            .map(|d| d.name.clone())
            .chain(
                b.aliases()
                    .keys()
                    .filter(|alias| b.has_definition(alias))
                    .cloned(),
            )
            .collect();
        ReadContext {
            catalog: std::sync::Arc::clone(&b.catalog),
            names,
            actor: b.actor().cloned(),
        }
    }

    /// [`ContainerBuilder::detached_definition`] with this context's actor.
    fn definition(&self, name: String, span: Option<crate::source::Span>) -> Definition {
        Definition::made_by(name, span, self.actor.as_ref())
    }
}

/// Adds one entry to the builder in its turn: loads it as one thread would, or adds the
/// definition read ahead with what reading it reported.
fn add_entry(
    entry: Entry,
    items: &ExprArray,
    schema: &DefinitionSchema,
    b: &mut ContainerBuilder,
    diags: &mut Diagnostics,
) {
    match entry {
        Entry::InTurn(key, value) => services::load_entry(key, value, items, schema, b, diags),
        Entry::Ahead { key, shaped, made } => {
            diags.extend(shaped.into_vec());
            let Some((def, reported)) = made else {
                return;
            };
            // Only a locator has reference services to add (`add_reference_services`).
            let locator = (def.kind == DefinitionKind::Locator).then(|| def.name.clone());
            match b.add_detached(def) {
                Err(d) => diags.push(services::at_key(d, items, &key)),
                Ok(()) => {
                    diags.extend(reported.into_vec());
                    if let Some(name) = locator {
                        b.add_reference_services(Some(&name));
                    }
                }
            }
        }
    }
}

/// Reads one entry ahead when it can be (see the module's documentation).
fn read_entry(key: Key, value: Expr, schema: &DefinitionSchema, ctx: &ReadContext) -> Entry {
    let name = match &key {
        Key::Str(s)
            if !s.strip_prefix('@').is_some_and(services::is_type_key)
                && !s.bytes().all(|c| c.is_ascii_digit())
                && !matches!(value.kind, ExprKind::Bool(false))
                && !ctx.names.contains(s.as_str()) =>
        {
            s.as_str().to_owned()
        }
        _ => return Entry::InTurn(key, value),
    };
    let span = value.span;
    let mut shaped = Diagnostics::new();
    let shaped_map = services::shape(&name, value, schema, &ctx.catalog, None, &mut shaped);
    let made = shaped_map.map(|shaped| {
        let mut def = ctx.definition(name, span);
        let mut reported = Diagnostics::new();
        shaped.apply_to(&mut def, Some(shaped.has_create_method), &mut reported);
        (def, reported)
    });
    Entry::Ahead { key, shaped, made }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    /// A `services:` section with every kind of entry, `copies` times over: plain and map
    /// definitions, anonymous ones, `@Type` keys, removals, entries that modify definitions
    /// and aliases made before the section, names that differ only in case, invalid and
    /// all-digit names (some an anonymous definition's), empty definitions, alterations of
    /// nothing, schema errors, factories and locators (whose statement references become
    /// anonymous definitions).
    fn config(copies: usize) -> String {
        let mut text = String::from("types:\n");
        for i in 0..copies {
            text.push_str(&format!(
                "\tApp\\Db{i}: {{}}\n\tApp\\M{i}: {{}}\n\
                 \tApp\\F{i}: {{interface: true, methods: {{create: {{returns: App\\Db{i}}}}}}}\n\
                 \tApp\\L{i}: {{interface: true, methods: {{get: {{returns: App\\Db{i}}}}}}}\n"
            ));
        }
        text.push_str("services:\n");
        for i in 0..copies {
            text.push_str(&format!(
                "\tdb{i}: App\\Db{i}\n\
                 \tmail{i}: {{create: App\\M{i}, tags: [t{i}]}}\n\
                 \t- App\\Db{i}\n\
                 \t'@App\\M{i}': {{tags: [again]}}\n\
                 \tpre{i}: {{tags: [x]}}\n\
                 \tpreAlias{i}: {{tags: [y]}}\n\
                 \tgone{i}: false\n\
                 \tDB{i}: App\\Db{i}\n\
                 \t'bad name{i}': App\\Db{i}\n\
                 \tempty{i}: {{}}\n\
                 \talt{i}: {{alteration: true, create: App\\Db{i}}}\n\
                 \twrong{i}: {{create: App\\Db{i}, nonsense: 1}}\n\
                 \tfac{i}: App\\F{i}\n\
                 \tloc{i}: {{implement: App\\L{i}, references: {{a: App\\Db{i}(), b: @db{i}}}}}\n\
                 \t'{:02}': App\\Db{i}\n\
                 \talias{i}: @db{i}\n\
                 \targs{i}: App\\Db{i}(1, %missing%, [a, b])\n",
                i + 1
            ));
        }
        text
    }

    /// The definitions (in order) and diagnostics of loading `text`'s section in `parts` parts
    /// (0: entry by entry, as below the threshold), over a builder that already has
    /// definitions `pre0`, `pre1`, … and aliases `preAlias0`, … to them.
    fn load(text: &str, copies: usize, parts: usize, round: usize) -> (String, String) {
        let crate::neon::Kind::Array(raw) = crate::neon::decode(text, crate::source::FileId(0))
            .expect("decodes")
            .kind
        else {
            panic!("not a map")
        };
        let mut diags = Diagnostics::new();
        let (_, mut sections) =
            crate::config::expand_config(&raw, &[], &Default::default(), &mut diags);
        let catalog = Catalog::from_section(sections.get("types").map(|(_, v)| v), &mut diags);
        let mut b = ContainerBuilder::new(catalog);
        for i in 0..copies {
            b.add_definition(Some(&format!("pre{i}")), None)
                .expect("added")
                .declared_type = Some(format!("App\\Db{i}"));
            b.add_alias(&format!("preAlias{i}"), &format!("pre{i}"))
                .expect("aliased");
        }
        let (_, section) = sections.shift_remove("services").expect("services");
        let ExprKind::Array(mut items) = section.kind else {
            panic!("not a map")
        };
        let entries = std::mem::take(&mut items.items);
        let schema = DefinitionSchema::new();
        if parts == 0 {
            for (key, value) in entries {
                services::load_entry(key, value, &items, &schema, &mut b, &mut diags);
            }
        } else {
            load_in_parts(entries, &items, &schema, &mut b, &mut diags, parts, round);
        }
        let defs: Vec<&Definition> = b.definitions().collect();
        (format!("{defs:#?}"), format!("{:#?}", diags.items()))
    }

    /// With 0 to 39 helpers, more helpers than entries, and blocks of 1 to 40 entries: the
    /// same definitions and the same diagnostics in the same order as entry by entry.
    #[test]
    fn a_section_loaded_in_parts_is_the_one_loaded_entry_by_entry() {
        let copies = 12;
        let text = config(copies);
        let (defs, diags) = load(&text, copies, 0, 0);
        // The cases are there: errors of several kinds, modified and anonymous definitions.
        for expected in [
            "Empty definition",
            "Missing original definition for alteration",
            "has the same name as",
            "Service name must be",
            "nonsense",
        ] {
            assert!(diags.contains(expected), "{expected}: {diags}");
        }
        for expected in [
            "\"again\"",
            "\"x\"",
            "\"y\"",
            "name: \"03\"",
            "name: \"fac11\"",
        ] {
            assert!(defs.contains(expected), "{expected}");
        }
        assert!(!defs.contains("name: \"gone0\""));
        for (parts, round) in [
            (1, BLOCK),
            (2, BLOCK),
            (3, BLOCK),
            (7, BLOCK),
            (40, BLOCK),
            (1000, BLOCK),
            (2, 1),
            (2, 5),
            (3, 17),
            (4, 40),
        ] {
            let (d, g) = load(&text, copies, parts, round);
            assert!(d == defs, "definitions in {parts} parts, blocks of {round}");
            assert!(
                g == diags,
                "diagnostics in {parts} parts, blocks of {round}:\n{g}"
            );
        }
    }
}
