//! A thread leaving its worker to run something long: [`block_in_place`]
//! runs a blocking section with the worker's other connections moved to
//! another thread (tokio's `block_in_place`); [`leave_worker`] moves them
//! for the rest of the running task, for a section begun in place that
//! turned out long (a Lua script past a few milliseconds: a short one then
//! costs no thread switch, where `block_in_place` costs two per call).
//!
//! Either way the thread's replies are sent at once ([`take_left_worker`]):
//! it may no longer run the worker, whose round could already have ended
//! with the new thread parked (a reply held there would wait for
//! unrelated I/O).
//!
//! Invariant: once [`leave_worker`] returns true another thread holds the
//! worker's runtime; the caller finishes its task's current poll on its
//! own thread, which then goes back to tokio's blocking pool.

use std::cell::Cell;
use std::sync::mpsc;
use std::time::Duration;

use tokio::runtime::{Handle, RuntimeFlavor};

/// Longest [`leave_worker`] waits for a new thread to take the worker
/// (tokio starts one from its blocking pool; none may be free at once).
const TAKEOVER_WAIT: Duration = Duration::from_millis(50);

thread_local! {
    /// Set by [`block_in_place`] and [`leave_worker`]: the thread may have
    /// handed its worker to another and no longer be the one that ends
    /// rounds.
    static LEFT_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Runs blocking `f` (a section holding every shard) where blocking is
/// allowed: on a multi-thread runtime the worker's other connections move
/// to another thread meanwhile (tokio's `block_in_place`); directly
/// elsewhere.
pub fn block_in_place<R>(f: impl FnOnce() -> R) -> R {
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            LEFT_WORKER.with(|left| left.set(true));
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

/// Hands the calling thread's worker (its runtime and every other
/// connection on it) to another thread for good, from inside a task that
/// will go on blocking; true once that thread runs the worker's tasks.
/// False off a multi-thread runtime, or when no thread took the worker
/// within [`TAKEOVER_WAIT`] (the caller may try again later).
pub fn leave_worker() -> bool {
    let handle = match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => handle,
        _ => return false,
    };
    LEFT_WORKER.with(|left| left.set(true));
    tokio::task::block_in_place(|| {
        // The core waits in the worker's slot for the thread tokio starts;
        // a task spawned now runs only once a thread runs that core (each
        // pool runtime has one). Had none taken it when this returns,
        // tokio hands it back to this thread.
        let (ran, seen) = mpsc::sync_channel(1);
        drop(handle.spawn(async move {
            let _ = ran.send(());
        }));
        seen.recv_timeout(TAKEOVER_WAIT).is_ok()
    })
}

/// Whether the calling thread ran a [`block_in_place`] or a
/// [`leave_worker`] since the last call (which clears it).
pub(crate) fn take_left_worker() -> bool {
    LEFT_WORKER.with(|left| left.replace(false))
}
