//! [`ArgBuf`]: where the compiled creation path evaluates a call's arguments, on the caller's
//! stack for up to [`INLINE_ARGS`] of them.

use crate::value::{ArgValue, Value, INLINE_ARGS};

/// What an unused inline entry holds (plain data: nothing to drop).
const UNUSED: &Value = &Value::Null;

/// The arguments of one constructor or method call, in order: inline up to [`INLINE_ARGS`],
/// in a `Vec` beyond.
///
/// The inline entries always hold a value (unused ones [`UNUSED`]), so a push is an
/// assignment into its place: the argument's tag and pointer are stored straight into the
/// buffer. A `SmallVec` push builds the 32-byte argument in a stack temporary with 8-byte
/// stores and copies it with 16-byte loads, a store-forwarding stall per argument that was
/// half of `run_new`'s samples (docs/performance.md, "Fourth pass").
pub(super) struct ArgBuf<'a> {
    inline: [ArgValue<'a>; INLINE_ARGS],
    /// How many inline entries are in use (0 once the arguments moved to `spilled`).
    len: usize,
    /// All the arguments, once there are more than [`INLINE_ARGS`].
    spilled: Vec<ArgValue<'a>>,
}

impl<'a> ArgBuf<'a> {
    /// An empty buffer (allocates nothing).
    #[inline(always)]
    pub(super) fn new() -> ArgBuf<'a> {
        ArgBuf {
            inline: [const { ArgValue::Plain(UNUSED) }; INLINE_ARGS],
            len: 0,
            spilled: Vec::new(),
        }
    }

    /// Appends the next argument.
    #[inline(always)]
    pub(super) fn push(&mut self, value: ArgValue<'a>) {
        if self.len < INLINE_ARGS && self.spilled.is_empty() {
            self.inline[self.len] = value;
            self.len += 1;
        } else {
            self.push_spilled(value);
        }
    }

    /// [`ArgBuf::push`] past the inline entries: the first such push moves those to
    /// `spilled` (with room for twice as many: a call with more arguments is rare).
    #[cold]
    #[inline(never)]
    fn push_spilled(&mut self, value: ArgValue<'a>) {
        if self.spilled.is_empty() {
            let used = std::mem::take(&mut self.len);
            self.spilled.reserve_exact(2 * INLINE_ARGS);
            self.spilled.extend(
                self.inline[..used]
                    .iter_mut()
                    .map(|v| std::mem::replace(v, ArgValue::Plain(UNUSED))),
            );
        }
        self.spilled.push(value);
    }

    /// The arguments pushed so far, in order.
    #[inline(always)]
    pub(super) fn as_slice(&self) -> &[ArgValue<'a>] {
        if self.spilled.is_empty() {
            &self.inline[..self.len]
        } else {
            &self.spilled
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Instance;
    use std::sync::Arc;

    fn addrs(buf: &ArgBuf<'_>) -> Vec<String> {
        buf.as_slice()
            .iter()
            .map(|v| match v {
                ArgValue::Plain(v) => format!("plain {v:?}"),
                ArgValue::Cached(i) => format!("cached {}", i.addr()),
                ArgValue::New(i) => format!("new {}", i.addr()),
                ArgValue::Own(v) => format!("own {v:?}"),
            })
            .collect()
    }

    #[test]
    fn keeps_the_order_inline_and_past_the_inline_entries() {
        let cached = Instance::from_value(1_u8);
        let values: Vec<Value> = (0..INLINE_ARGS as i64 + 3).map(Value::Int).collect();
        for n in [0, 1, INLINE_ARGS, INLINE_ARGS + 1, INLINE_ARGS + 3] {
            let mut buf = ArgBuf::new();
            let mut expected = Vec::new();
            for (i, v) in values.iter().take(n).enumerate() {
                if i % 2 == 0 {
                    buf.push(ArgValue::Plain(v));
                    expected.push(format!("plain {v:?}"));
                } else {
                    buf.push(ArgValue::Cached(&cached));
                    expected.push(format!("cached {}", cached.addr()));
                }
            }
            assert_eq!(buf.as_slice().len(), n);
            assert_eq!(addrs(&buf), expected, "{n} arguments");
            // Past the inline entries, one `Vec` with room for twice as many (no regrowth
            // per push).
            if n > INLINE_ARGS {
                assert_eq!(buf.spilled.capacity(), 2 * INLINE_ARGS, "{n} arguments");
            }
        }
    }

    #[test]
    fn drops_the_new_objects_it_holds_once() {
        let new: Vec<Instance> = (0..INLINE_ARGS + 2)
            .map(|i| Instance::from_value(i as u64))
            .collect();
        for n in [2, INLINE_ARGS + 2] {
            let mut buf = ArgBuf::new();
            for inst in &new[..n] {
                buf.push(ArgValue::New(inst.clone()));
            }
            assert!(new[..n].iter().all(|i| Arc::strong_count(i.as_any()) == 2));
            drop(buf);
            assert!(new.iter().all(|i| Arc::strong_count(i.as_any()) == 1));
        }
    }
}
