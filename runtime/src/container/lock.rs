//! The re-entrant build lock that makes first construction single-flight.

use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::{self, ThreadId};

/// A re-entrant lock: the thread that holds it may take it again (nested construction of
/// dependencies); other threads wait. It also remembers which services the owning thread is
/// building right now, so a re-entry into the same service (through a factory or accessor
/// called from a constructor) is reported as a cycle instead of recursing forever.
#[derive(Default)]
pub(crate) struct BuildLock {
    state: Mutex<LockState>,
    released: Condvar,
}

#[derive(Default)]
struct LockState {
    owner: Option<ThreadId>,
    depth: usize,
    /// Service indexes under construction by the owner, outermost first.
    building: Vec<usize>,
    /// Threads blocked in [`BuildLock::lock`]; releasing wakes them only when there are
    /// some (a wake-up is a system call, and most releases have nobody waiting).
    waiters: usize,
}

/// Held while a thread constructs cached services; released on drop (also on unwind).
pub(crate) struct BuildGuard<'a>(&'a BuildLock);

impl BuildLock {
    /// Takes the lock, waiting for another owner to release it.
    pub(crate) fn lock(&self) -> BuildGuard<'_> {
        let me = thread::current().id();
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match st.owner {
                None => {
                    st.owner = Some(me);
                    st.depth = 1;
                    break;
                }
                Some(owner) if owner == me => {
                    st.depth += 1;
                    break;
                }
                Some(_) => {
                    st.waiters += 1;
                    st = self
                        .released
                        .wait(st)
                        .unwrap_or_else(PoisonError::into_inner);
                    st.waiters -= 1;
                }
            }
        }
        BuildGuard(self)
    }
}

impl BuildGuard<'_> {
    /// Marks `service` as under construction. Returns the services being built from the
    /// first occurrence of `service` on (a cycle) if it already was.
    pub(crate) fn enter(&self, service: usize) -> Result<(), Vec<usize>> {
        let mut st = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(pos) = st.building.iter().position(|&s| s == service) {
            return Err(st.building[pos..].to_vec());
        }
        st.building.push(service);
        Ok(())
    }

    /// Ends what [`BuildGuard::enter`] started.
    pub(crate) fn leave(&self, service: usize) {
        let mut st = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(pos) = st.building.iter().rposition(|&s| s == service) {
            st.building.truncate(pos);
        }
    }
}

impl Drop for BuildGuard<'_> {
    fn drop(&mut self) {
        let mut st = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.depth = st.depth.saturating_sub(1);
        if st.depth == 0 {
            st.owner = None;
            st.building.clear();
            let wake = st.waiters > 0;
            drop(st);
            if wake {
                self.0.released.notify_all();
            }
        }
    }
}
