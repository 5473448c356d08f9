//! A large JSON plan written with its services encoded on two cores (issue #15;
//! docs/performance.md, "Whole compilation › Thirteenth round"), byte for byte the one-thread
//! writer's text (serde_json's pretty form, [`super::pretty`]).
//!
//! The `services` object is cut into blocks of [`block_for`] services. The calling thread writes
//! the blocks in order; a helper thread encodes blocks ahead into buffers. Each thread claims
//! the next block nobody has claimed: the calling thread encodes the block it is at straight
//! into the file's writer, and a block the helper claimed is written from its buffer once it
//! is done. While the helper is still at the block the calling thread needs, the calling
//! thread encodes a later block into a buffer of its own instead of waiting. No thread claims
//! a block more than [`AHEAD`] blocks past the last one written, so the buffers (reused once
//! written) stay a few hundred kilobytes, not half the plan: a first attempt (`7222bff`)
//! encoded half the services into one buffer, whose fresh pages and copy cost what the second
//! core saved.

use super::pretty::{at_level, line_at};
use crate::parallel::{InOrder, Turn};
use std::io::{self, Write};
use std::sync::Mutex;
use wireplan_runtime::plan::{Name, NameMap, Plan, ServicePlan};

/// Services a block holds at least (about 45 KB of text at app-10000's 370 bytes a service).
pub(super) const BLOCK: usize = 128;

/// Services a block holds at most.
const BLOCK_MAX: usize = 1024;

/// The block size for `services` services: [`BLOCK`], or a 200th of a larger plan's services
/// (up to [`BLOCK_MAX`]), so a large plan is not handed between the threads in thousands of
/// small blocks: gen 100000's 781 blocks of 128 took 45.5 ms to encode, 196 of 512 36.1 ms.
/// app-10000 keeps 128: with 512 its encoding took 0.6 ms less, but the six buffers of 190 KB
/// raised its peak by about a megabyte (to 40.3 MB at worst in 16 runs).
fn block_for(services: usize) -> usize {
    (services / 200).clamp(BLOCK, BLOCK_MAX)
}

/// Blocks past the last one written that may be claimed: the most buffers alive at once.
const AHEAD: usize = 6;

/// Services from which the plan is written on two cores ([`write_plan`]); fewer are written
/// on the calling thread, where a thread would cost about what it saves.
pub(super) const PARALLEL_MIN: usize = 2048;

/// Writes `plan` to `w` with [`super::pretty::write`]'s bytes: on two cores when it has at
/// least [`PARALLEL_MIN`] services and the machine more than one
/// ([`crate::parallel::parallelism`]). Errors: the first of `w`'s write errors, or serde_json's.
pub(super) fn write_plan<W: Write>(w: &mut W, plan: &Plan) -> io::Result<()> {
    let helped = crate::parallel::parallelism() > 1 && plan.services.len() >= PARALLEL_MIN;
    write_plan_in(w, plan, helped.then_some(block_for(plan.services.len())))
}

/// [`write_plan`] with blocks of `block` services on two cores, or on this thread alone
/// (`None`).
fn write_plan_in<W: Write>(w: &mut W, plan: &Plan, block: Option<usize>) -> io::Result<()> {
    let Some(block) = block.filter(|_| !plan.services.is_empty()) else {
        return super::pretty::write(w, plan);
    };
    // Every field, so that a field added to the plan is not forgotten here: serde's derive
    // writes them in this order, and skips the last three when they are empty.
    let Plan {
        format,
        version,
        compiler,
        inputs_hash,
        dependencies,
        parameters,
        services,
        aliases,
        types,
        tags,
        initialization,
        dynamic,
        signatures,
    } = plan;
    w.write_all(b"{")?;
    field(w, "format", format)?;
    field(w, "version", version)?;
    field(w, "compiler", compiler)?;
    field(w, "inputs_hash", inputs_hash)?;
    field(w, "dependencies", dependencies)?;
    field(w, "parameters", parameters)?;
    name(w, "services")?;
    write_services(w, services, block.max(1))?;
    field(w, "aliases", aliases)?;
    field(w, "types", types)?;
    field(w, "tags", tags)?;
    if !initialization.is_empty() {
        field(w, "initialization", initialization)?;
    }
    if !dynamic.is_empty() {
        field(w, "dynamic", dynamic)?;
    }
    if !signatures.is_empty() {
        field(w, "signatures", signatures)?;
    }
    w.write_all(b"\n}")
}

/// The line of a top-level field: its line break, indentation and name (plan field names
/// need no escaping); `"format"` is the first.
fn name<W: Write>(w: &mut W, name: &str) -> io::Result<()> {
    line_at(w, 1, name != "format")?;
    w.write_all(b"\"")?;
    w.write_all(name.as_bytes())?;
    w.write_all(b"\": ")
}

/// A top-level field: its [`name`] line and its value.
fn field<W: Write, T: serde::Serialize + ?Sized>(
    w: &mut W,
    field: &str,
    value: &T,
) -> io::Result<()> {
    name(w, field)?;
    at_level(&mut *w, 1, value)
}

/// The `services` object (at least one service) in blocks of `block`, as the module says.
fn write_services<W: Write>(
    w: &mut W,
    services: &NameMap<ServicePlan>,
    block: usize,
) -> io::Result<()> {
    let entries = &Entries {
        all: services.as_slice(),
        block,
    };
    let count = services.len().div_ceil(block);
    // Buffers written and free for another block.
    let free: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let into_buffer = |b: usize| -> io::Result<Vec<u8>> {
        let mut buffer = free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        buffer.clear();
        entries.encode(&mut buffer, b).map(|()| buffer)
    };
    let blocks = &InOrder::new(count, AHEAD, 1);
    w.write_all(b"{")?;
    let (written, _) = crate::parallel::split(
        "plan-json",
        1,
        || {
            let mut write = || -> io::Result<()> {
                for b in 0..count {
                    match blocks.turn(b, &mut |later| into_buffer(later)) {
                        Turn::Yours => entries.encode(&mut *w, b)?,
                        Turn::Ready(buffer) => {
                            let buffer = buffer?;
                            w.write_all(&buffer)?;
                            free.lock().unwrap_or_else(|e| e.into_inner()).push(buffer);
                        }
                        // Claimed by a helper that ended without it (it panicked): the join
                        // passes the panic on.
                        Turn::Lost => return Ok(()),
                    }
                    blocks.consumed(b);
                }
                Ok(())
            };
            let result = write();
            if result.is_err() {
                blocks.stop();
            }
            result
        },
        |_| blocks.help(&into_buffer),
    );
    written?;
    line_at(w, 1, false)?;
    w.write_all(b"}")
}

/// The services of a plan, cut into blocks.
struct Entries<'a> {
    all: &'a indexmap::map::Slice<Name, ServicePlan>,
    block: usize,
}

impl Entries<'_> {
    /// Writes block `b` (its entries, each after a line break, a comma before all but the
    /// first service of the plan). Generic over the writer, so the many small writes of the
    /// encoding are inlined into the file's buffer and into a block's vector alike (through
    /// `&mut dyn Write` the helper's blocks took 1.6 times the instructions).
    fn encode<X: Write>(&self, out: &mut X, b: usize) -> io::Result<()> {
        let from = b * self.block;
        let to = (from + self.block).min(self.all.len());
        for (i, (name, service)) in self.all[from..to].iter().enumerate() {
            write_entry(&mut *out, from + i > 0, name, service)?;
        }
        Ok(())
    }
}

/// One entry of `services`, two levels deep; `comma` after the first.
fn write_entry<X: Write>(
    w: &mut X,
    comma: bool,
    name: &Name,
    service: &ServicePlan,
) -> io::Result<()> {
    line_at(w, 2, comma)?;
    at_level(&mut *w, 2, name)?;
    w.write_all(b": ")?;
    at_level(w, 2, service)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use wireplan_runtime::plan::Plan;

    /// A plan with `count` services and every field set (the optional ones when `full`),
    /// names and values that need escaping among them.
    fn plan(count: usize, full: bool) -> Plan {
        let services: serde_json::Map<String, serde_json::Value> = (0..count)
            .map(|i| {
                let args = match i % 3 {
                    0 => json!([]),
                    1 => json!([{"$ref": "s0"}, "a \"quoted\"\nline", 1.5, null]),
                    _ => json!([i, [[], [true]], {"$ref": "s1"}]),
                };
                (
                    format!("s{i}{}", if i % 7 == 0 { "\u{e9}\t" } else { "" }),
                    json!({"type": "A", "create": {"$new": "A", "args": args}, "tags": {"t": i}}),
                )
            })
            .collect();
        let mut value = json!({
            "format": wireplan_runtime::plan::FORMAT, "version": wireplan_runtime::plan::VERSION,
            "compiler": "t", "inputs_hash": "0",
            "dependencies": [{"path": "a.neon", "hash": "1"}],
            "parameters": {"limit": 10, "nested": {"a": [1, 2]}},
            "services": services, "aliases": {"alias": "s1"},
            "types": {"A": ["s0", "s1"]}, "tags": {"t": {"s0": 0}}
        });
        if full {
            value["initialization"] = json!([{"$ref": "s0"}, 5]);
            value["dynamic"] = json!({"db": {"type": "string", "default": "x", "required": true}});
        }
        serde_json::from_value(value).expect("a plan")
    }

    /// Written in blocks on two threads, a plan has serde_json's bytes: every block size from
    /// one service a block to more than the plan has, with and without the optional fields,
    /// with no service at all, and through the entry point above its threshold.
    #[test]
    fn a_plan_written_in_blocks_has_serde_jsons_bytes() {
        for (count, full) in [(0, true), (1, true), (2, false), (5, true), (64, false)] {
            let p = plan(count, full);
            let theirs = serde_json::to_vec_pretty(&p).expect("written");
            for block in [None, Some(1), Some(2), Some(3), Some(7), Some(100)] {
                let mut ours = Vec::new();
                super::write_plan_in(&mut ours, &p, block).expect("written");
                assert!(
                    ours == theirs,
                    "{count} services in blocks of {block:?}:\n{}",
                    String::from_utf8_lossy(&ours[..ours.len().min(600)])
                );
            }
        }
        let p = plan(super::PARALLEL_MIN + 37, true);
        let theirs = serde_json::to_vec_pretty(&p).expect("written");
        for _ in 0..3 {
            let mut ours = Vec::new();
            super::write_plan(&mut ours, &p).expect("written");
            assert!(ours == theirs, "the entry point's bytes differ");
        }
    }

    /// A writer that fails after `left` bytes.
    struct Failing {
        left: usize,
    }

    impl std::io::Write for Failing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if buf.len() > self.left {
                return Err(std::io::Error::other("disk full"));
            }
            self.left -= buf.len();
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A write error in the middle of the services ends the writing with that error (the
    /// helper stops; nothing waits for ever).
    #[test]
    fn a_write_error_in_the_services_is_returned() {
        let p = plan(3000, false);
        for left in [10, 5_000, 200_000] {
            let err = super::write_plan_in(&mut Failing { left }, &p, Some(16))
                .expect_err("the writer fails");
            assert_eq!(err.to_string(), "disk full");
        }
    }
}
