//! The JSON plan's layout: serde_json's pretty form (two spaces a level), byte for byte, with
//! each line break and its indentation written in one piece. serde_json's `PrettyFormatter`
//! writes the indentation one level at a time, a separate write into the buffer for each
//! level of each line (a 10,000-service plan has about 200,000 lines, five levels deep).
//!
//! A large plan's services are encoded in parts on several threads at once ([`write_plan`]),
//! still byte for byte serde_json's form.

use std::io::{self, Write};
use wireplan_runtime::plan::{Name, Plan, ServicePlan};

/// A comma, a line break and the indentation of the deepest level written in one piece (a
/// line after an item starts with the comma, other lines one byte later); deeper levels add the
/// rest of their spaces in pieces of this size.
const BREAK: &[u8] = b",\n                                ";

/// The spaces in [`BREAK`].
const SPACES: usize = BREAK.len() - 2;

/// How many spaces a level indents (serde_json's `to_writer_pretty`).
const INDENT: usize = 2;

/// serde_json's pretty layout (`serde_json::to_writer_pretty`): the same bytes.
#[derive(Debug, Default)]
pub(super) struct Pretty {
    level: usize,
    has_value: bool,
}

impl Pretty {
    /// Writes `\n` (`,\n` with `comma`) and the current indentation, in one write when the
    /// level is at most 16 deep.
    fn line<W: ?Sized + Write>(&self, w: &mut W, comma: bool) -> io::Result<()> {
        let mut spaces = self.level * INDENT;
        let first = spaces.min(SPACES);
        let from = if comma { 0 } else { 1 };
        w.write_all(&BREAK[from..2 + first])?;
        spaces -= first;
        while spaces > 0 {
            let n = spaces.min(SPACES);
            w.write_all(&BREAK[2..2 + n])?;
            spaces -= n;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.line(w, false)?;
        }
        w.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.line(w, !first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.line(w, !first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Writes `value` to `w` as `serde_json::to_writer_pretty` does.
pub(super) fn write<W: Write, T: serde::Serialize + ?Sized>(w: W, value: &T) -> io::Result<()> {
    at_level(w, 0, value)
}

/// Writes `value` as it is laid out `level` levels deep in a document (the indentation of its
/// inner lines; the first line is where the writer stands).
fn at_level<W: Write, T: serde::Serialize + ?Sized>(
    w: W,
    level: usize,
    value: &T,
) -> io::Result<()> {
    let formatter = Pretty {
        level,
        has_value: false,
    };
    let mut ser = serde_json::Serializer::with_formatter(w, formatter);
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// Services each part of the JSON plan's `services` has at least when they are encoded in
/// parts ([`write_plan`]). Encoding one service takes about a microsecond; starting a thread,
/// about 50.
pub(super) const SERVICES_PER_PART: usize = 512;

/// Writes `plan` to `w` with [`write`]'s bytes (`serde_json::to_writer_pretty`'s). With at
/// least two [`SERVICES_PER_PART`] services and more than one core
/// ([`crate::parallel::parallelism`]), the services (four fifths of a plan's bytes) are
/// encoded in as many parts as there are cores: the first part straight into `w` on this
/// thread, each other one into a buffer on a thread of its own, written after the part before
/// it. A part's buffer holds its share of the services' text (a 10,000-service plan: 3.7 MB
/// of services in all).
///
/// Errors: the first of `w`'s write errors and serde_json's encoding errors, in the order
/// of the document.
pub(super) fn write_plan<W: Write>(w: &mut W, plan: &Plan) -> io::Result<()> {
    let parts = crate::parallel::parallelism().min(plan.services.len() / SERVICES_PER_PART);
    write_plan_in(w, plan, parts)
}

/// [`write_plan`] in `parts` parts (one or none: [`write`] itself).
fn write_plan_in<W: Write>(w: &mut W, plan: &Plan, parts: usize) -> io::Result<()> {
    if parts < 2 {
        return write(w, plan);
    }
    // Every field, so that a field added to the plan is not forgotten here: serde's derive
    // writes them in this order, and skips the last two when they are empty.
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
    } = plan;
    w.write_all(b"{")?;
    field(w, "format", format)?;
    field(w, "version", version)?;
    field(w, "compiler", compiler)?;
    field(w, "inputs_hash", inputs_hash)?;
    field(w, "dependencies", dependencies)?;
    field(w, "parameters", parameters)?;
    name(w, "services")?;
    write_services(w, services, parts)?;
    field(w, "aliases", aliases)?;
    field(w, "types", types)?;
    field(w, "tags", tags)?;
    if !initialization.is_empty() {
        field(w, "initialization", initialization)?;
    }
    if !dynamic.is_empty() {
        field(w, "dynamic", dynamic)?;
    }
    w.write_all(b"\n}")
}

/// The line of a top-level field after the first (`"format"` is the first): its line break,
/// indentation and name. Plan field names need no escaping.
fn name<W: Write>(w: &mut W, name: &str) -> io::Result<()> {
    let top = Pretty {
        level: 1,
        has_value: false,
    };
    top.line(w, name != "format")?;
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

/// The `services` object (at least one service) in `parts` parts, as [`write_plan`] says.
fn write_services<W: Write>(
    w: &mut W,
    services: &wireplan_runtime::plan::NameMap<ServicePlan>,
    parts: usize,
) -> io::Result<()> {
    let entries = services.as_slice();
    let size = entries.len().div_ceil(parts);
    let part = |k: usize| (k * size).min(entries.len())..((k + 1) * size).min(entries.len());
    let encode = |w: &mut dyn Write, k: usize| -> io::Result<()> {
        let range = part(k);
        let first = range.start;
        for (i, (name, service)) in entries[range].iter().enumerate() {
            write_entry(&mut *w, first + i > 0, name, service)?;
        }
        Ok(())
    };
    w.write_all(b"{")?;
    let (done, rest) = crate::parallel::split(
        "plan-json",
        parts - 1,
        || encode(&mut *w, 0),
        |k| {
            // About 370 bytes a service (app-10000).
            let mut buffer = Vec::with_capacity(part(k + 1).len() * 400);
            encode(&mut buffer, k + 1).map(|()| buffer)
        },
    );
    done?;
    for buffer in rest {
        w.write_all(&buffer?)?;
    }
    Pretty {
        level: 1,
        has_value: false,
    }
    .line(w, false)?;
    w.write_all(b"}")
}

/// One entry of `services`, two levels deep; `comma` after the first.
fn write_entry(
    w: &mut dyn Write,
    comma: bool,
    name: &Name,
    service: &ServicePlan,
) -> io::Result<()> {
    let level = Pretty {
        level: 2,
        has_value: false,
    };
    level.line(w, comma)?;
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

    /// The services encoded in parts give serde_json's bytes, for every number of parts up to
    /// more parts than services, with and without the optional fields.
    #[test]
    fn a_plan_written_in_parts_has_serde_jsons_bytes() {
        for (count, full) in [(1, true), (2, false), (5, true), (64, false), (1500, true)] {
            let p = plan(count, full);
            let theirs = serde_json::to_vec_pretty(&p).expect("written");
            for parts in [0, 1, 2, 3, 4, 7] {
                let mut ours = Vec::new();
                super::write_plan_in(&mut ours, &p, parts).expect("written");
                assert!(
                    ours == theirs,
                    "{count} services in {parts} parts:\n{}",
                    String::from_utf8_lossy(&ours[..ours.len().min(600)])
                );
            }
        }
    }

    #[test]
    fn same_bytes_as_serde_json_pretty() {
        // Empty and nested collections, deeper than one piece of indentation covers.
        let mut deep = json!({"leaf": [1, {}, [], "x\n\"y\""]});
        for i in 0..25 {
            deep = json!({format!("k{i}"): deep, "list": [i, [], {"a": null}], "e": {}});
        }
        for value in [json!({}), json!([]), json!(1), json!([[]]), deep] {
            let mut ours = Vec::new();
            super::write(&mut ours, &value).expect("written");
            let theirs = serde_json::to_vec_pretty(&value).expect("written");
            assert_eq!(
                String::from_utf8(ours).expect("utf-8"),
                String::from_utf8(theirs).expect("utf-8")
            );
        }
    }
}
