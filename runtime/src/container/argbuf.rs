//! [`ArgBuf`]: where the compiled creation path evaluates a call's arguments, on the caller's
//! stack for up to [`INLINE_ARGS`] of them.

use std::mem::{ManuallyDrop, MaybeUninit};

use crate::value::{ArgValue, INLINE_ARGS};

/// The arguments of one constructor or method call, in order: inline up to [`INLINE_ARGS`],
/// in a `Vec` beyond.
///
/// A push writes the argument's tag and pointer straight into its inline entry: a `SmallVec`
/// push built the 32-byte argument in a stack temporary with 8-byte stores and copied it with
/// 16-byte loads, a store-forwarding stall per argument that was half of `run_new`'s samples
/// (docs/performance.md, "Fourth pass"). The inline entries are uninitialised until pushed,
/// so a push drops nothing in its place, and dropping the buffer visits the entries in use
/// only, not all [`INLINE_ARGS`] of them (the drop of a buffer with placeholders in every
/// entry was an eighth of a transient creation's instructions).
pub(super) struct ArgBuf<'a> {
    /// The first `len` entries are initialised (none once the arguments moved to `spilled`).
    inline: [MaybeUninit<ArgValue<'a>>; INLINE_ARGS],
    /// How many inline entries are in use (0 once the arguments moved to `spilled`).
    len: usize,
    /// All the arguments, once there are more than [`INLINE_ARGS`]; dropped by
    /// [`ArgBuf`]'s `Drop` only when it allocated (a `Vec` that never did owns nothing).
    spilled: ManuallyDrop<Vec<ArgValue<'a>>>,
}

impl<'a> ArgBuf<'a> {
    /// An empty buffer (allocates nothing).
    #[inline(always)]
    pub(super) fn new() -> ArgBuf<'a> {
        ArgBuf {
            inline: [const { MaybeUninit::uninit() }; INLINE_ARGS],
            len: 0,
            spilled: ManuallyDrop::new(Vec::new()),
        }
    }

    /// Appends the next argument.
    #[inline(always)]
    pub(super) fn push(&mut self, value: ArgValue<'a>) {
        if self.len < INLINE_ARGS && self.spilled.capacity() == 0 {
            self.inline[self.len].write(value);
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
        if self.spilled.capacity() == 0 {
            let used = std::mem::take(&mut self.len);
            self.spilled.reserve_exact(2 * INLINE_ARGS);
            for entry in &self.inline[..used] {
                // SAFETY: the first `used` entries are initialised; `len` is 0 now, so each
                // is read out once and never dropped in place.
                self.spilled.push(unsafe { entry.assume_init_read() });
            }
        }
        self.spilled.push(value);
    }

    /// The arguments pushed so far, in order.
    #[inline(always)]
    pub(super) fn as_slice(&self) -> &[ArgValue<'a>] {
        if self.spilled.capacity() == 0 {
            // SAFETY: the first `len` entries are initialised, and `MaybeUninit<T>` has the
            // layout of `T`.
            unsafe { std::slice::from_raw_parts(self.inline.as_ptr().cast(), self.len) }
        } else {
            &self.spilled
        }
    }
}

impl Drop for ArgBuf<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        // SAFETY: the first `len` inline entries are initialised and dropped here only; once
        // the arguments moved to `spilled`, `len` is 0.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                self.inline.as_mut_ptr().cast::<ArgValue<'_>>(),
                self.len,
            ));
        }
        if self.spilled.capacity() != 0 {
            // SAFETY: dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.spilled) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Instance, Value};
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
