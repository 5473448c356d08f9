//! The JSON plan's layout: serde_json's pretty form (two spaces a level), byte for byte, with
//! each line break and its indentation written in one piece. serde_json's `PrettyFormatter`
//! writes the indentation one level at a time, a separate write into the buffer for each
//! level of each line (a 10,000-service plan has about 200,000 lines, five levels deep).

use std::io::{self, Write};

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
/// inner lines; its first line is where the writer stands).
pub(super) fn at_level<W: Write, T: serde::Serialize + ?Sized>(
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

/// Writes the line break and indentation that start a line `level` levels deep: after an
/// item (`comma`), `,\n` and the indentation; else `\n` and the indentation.
pub(super) fn line_at<W: ?Sized + Write>(w: &mut W, level: usize, comma: bool) -> io::Result<()> {
    Pretty {
        level,
        has_value: false,
    }
    .line(w, comma)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

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
