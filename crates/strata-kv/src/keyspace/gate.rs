//! [`EntryGate`]: how a section that holds every shard for long (a Lua
//! script, `DEBUG SLEEP`) keeps front ends' worker threads from waiting
//! on a shard lock, where every other connection of that worker would
//! wait with them.
//!
//! A front end enters once per batch of requests ([`GateEntry`]) and asks
//! before each request whether the gate is open; when it is closed it
//! runs nothing more, leaves, and waits for [`EntryGate::reopened`]
//! without blocking its thread. A long section closes the gate, waits
//! for the entries in flight to leave, and only then takes the shards.
//!
//! Invariant (Dekker's): an entry is counted before the gate is read, and
//! the gate is closed before the entries are read, all `SeqCst`; so either
//! the section sees the entry and waits for it to leave, or the entry sees
//! the gate closed and takes no shard lock. The counts are striped per
//! thread, so entering costs one uncontended atomic add.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_utils::CachePadded;
use tokio::sync::Notify;

/// Stripes of the entry count (threads share one past this many).
const STRIPES: usize = 16;

/// Assigns each thread its stripe, round robin.
static NEXT_STRIPE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's stripe.
    static STRIPE: usize = NEXT_STRIPE.fetch_add(1, Ordering::Relaxed) % STRIPES;
    /// Entries this thread holds now (a section on this thread lets them
    /// go while it waits, or it would wait for itself).
    static HELD: Cell<u64> = const { Cell::new(0) };
}

/// The gate; one per keyspace.
pub struct EntryGate {
    entries: [CachePadded<AtomicU64>; STRIPES],
    /// Sections that closed it and have not ended.
    closed: AtomicU32,
    reopened: Arc<Notify>,
}

impl Default for EntryGate {
    fn default() -> Self {
        Self {
            entries: std::array::from_fn(|_| CachePadded::new(AtomicU64::new(0))),
            closed: AtomicU32::new(0),
            reopened: Arc::new(Notify::new()),
        }
    }
}

impl std::fmt::Debug for EntryGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryGate")
            .field("closed", &self.closed.load(Ordering::Relaxed))
            .field("in_flight", &self.in_flight())
            .finish()
    }
}

impl EntryGate {
    /// Counts the calling thread in until the entry drops.
    pub fn enter(&self) -> GateEntry<'_> {
        let stripe = STRIPE.with(|s| *s);
        self.entries[stripe].fetch_add(1, Ordering::SeqCst);
        HELD.with(|h| h.set(h.get() + 1));
        GateEntry {
            gate: self,
            stripe,
            _this_thread: PhantomData,
        }
    }

    /// Whether no long section has closed the gate. Only meaningful to a
    /// thread holding a [`GateEntry`].
    pub fn is_open(&self) -> bool {
        self.closed.load(Ordering::SeqCst) == 0
    }

    /// Notified when the last long section ends (a waiter enables its
    /// notice before it reads the gate, or it may miss this).
    pub fn reopened(&self) -> Arc<Notify> {
        self.reopened.clone()
    }

    /// Closes the gate until the returned guard drops, once every entry
    /// of other threads has left (the caller's own are set aside
    /// meanwhile). The caller MUST NOT hold a shard lock.
    pub(super) fn close(&self) -> Closed<'_> {
        self.closed.fetch_add(1, Ordering::SeqCst);
        self.drain()
    }

    /// Like [`close`](Self::close), only if no other section has it
    /// closed (or is closing it): so the caller's wait is for the entries
    /// in flight alone, never for another section's end.
    pub(super) fn try_close(&self) -> Option<Closed<'_>> {
        self.closed
            .compare_exchange(0, 1, Ordering::SeqCst, Ordering::SeqCst)
            .ok()?;
        Some(self.drain())
    }

    /// With the gate closed by the caller: sets the caller's own entries
    /// aside and waits for every other thread's to leave.
    fn drain(&self) -> Closed<'_> {
        let mine = HELD.with(|h| h.get());
        let stripe = STRIPE.with(|s| *s);
        let closed = Closed {
            gate: self,
            stripe,
            mine,
        };
        self.entries[stripe].fetch_sub(mine, Ordering::SeqCst);
        // Entries admitted before the close run at most one request each
        // (they check before every request), so this wait is short.
        let mut spins = 0u32;
        while self.in_flight() != 0 {
            spins += 1;
            match spins {
                0..=64 => std::hint::spin_loop(),
                65..=256 => std::thread::yield_now(),
                _ => std::thread::sleep(Duration::from_micros(50)),
            }
        }
        closed
    }

    fn in_flight(&self) -> u64 {
        self.entries.iter().map(|e| e.load(Ordering::SeqCst)).sum()
    }
}

/// A thread counted in at the gate; dropped on the thread that entered
/// (it counts in that thread's stripe).
pub struct GateEntry<'a> {
    gate: &'a EntryGate,
    stripe: usize,
    _this_thread: PhantomData<*const ()>,
}

impl GateEntry<'_> {
    /// Whether the next request may touch the keyspace.
    pub fn is_open(&self) -> bool {
        self.gate.is_open()
    }
}

impl Drop for GateEntry<'_> {
    fn drop(&mut self) {
        HELD.with(|h| h.set(h.get() - 1));
        self.gate.entries[self.stripe].fetch_sub(1, Ordering::SeqCst);
    }
}

/// The gate closed by one long section; reopens on drop (also on panic).
pub(super) struct Closed<'a> {
    gate: &'a EntryGate,
    stripe: usize,
    mine: u64,
}

impl Drop for Closed<'_> {
    fn drop(&mut self) {
        // The caller's entries count again before the gate may open, so a
        // section closing next waits for them too.
        self.gate.entries[self.stripe].fetch_add(self.mine, Ordering::SeqCst);
        if self.gate.closed.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.gate.reopened.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    use super::EntryGate;

    /// A section waits for an entry admitted before it closed; entries
    /// made while it is closed see it closed; it reopens when it ends.
    #[test]
    fn a_section_waits_for_entries_in_flight_and_turns_new_ones_away() {
        let gate = Arc::new(EntryGate::default());
        let entered = gate.enter();
        assert!(entered.is_open());
        let in_section = Arc::new(AtomicBool::new(false));
        let (release, released) = mpsc::channel::<()>();
        let section = {
            let (gate, in_section) = (gate.clone(), in_section.clone());
            std::thread::spawn(move || {
                let closed = gate.close();
                in_section.store(true, Ordering::SeqCst);
                released.recv().unwrap();
                drop(closed);
            })
        };
        // Closed, but waiting for the entry still in flight.
        while gate.is_open() {
            std::thread::yield_now();
        }
        assert!(!entered.is_open());
        std::thread::sleep(Duration::from_millis(50));
        assert!(!in_section.load(Ordering::SeqCst), "ran past an entry");
        drop(entered);
        while !in_section.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        // A thread entering now is turned away.
        let other = {
            let gate = gate.clone();
            std::thread::spawn(move || gate.enter().is_open())
        };
        assert!(!other.join().unwrap());
        release.send(()).unwrap();
        section.join().unwrap();
        assert!(gate.enter().is_open());
    }

    /// A section on a thread that holds an entry does not wait for itself,
    /// and the entry counts again after it (a second section waits for it).
    #[test]
    fn a_section_sets_aside_its_own_threads_entries() {
        let gate = Arc::new(EntryGate::default());
        let entered = gate.enter();
        drop(gate.close());
        assert!(entered.is_open());
        assert_eq!(gate.in_flight(), 1);
        drop(entered);
        assert_eq!(gate.in_flight(), 0);
    }

    /// Two sections closing at once both run, one after the other's wait.
    #[test]
    fn sections_on_two_threads_both_end() {
        let gate = Arc::new(EntryGate::default());
        let sections: Vec<_> = (0..2)
            .map(|_| {
                let gate = gate.clone();
                std::thread::spawn(move || {
                    let entered = gate.enter();
                    for _ in 0..100 {
                        drop(gate.close());
                    }
                    drop(entered);
                })
            })
            .collect();
        for s in sections {
            s.join().unwrap();
        }
        assert!(gate.is_open());
        assert_eq!(gate.in_flight(), 0);
    }

    /// `try_close` closes an open gate (setting its own entries aside as
    /// `close` does) and refuses while another section has it closed.
    #[test]
    fn try_close_refuses_a_gate_another_section_holds() {
        let gate = Arc::new(EntryGate::default());
        let entered = gate.enter();
        let closed = gate.try_close().expect("an open gate closes");
        assert!(!gate.is_open());
        assert_eq!(gate.in_flight(), 0, "own entry set aside");
        assert!(gate.try_close().is_none(), "held by the first section");
        drop(closed);
        assert!(gate.is_open());
        assert_eq!(gate.in_flight(), 1);
        let other = {
            let gate = gate.clone();
            std::thread::spawn(move || {
                let closed = gate.close();
                std::thread::sleep(Duration::from_millis(20));
                drop(closed);
            })
        };
        while gate.is_open() {
            std::thread::yield_now();
        }
        assert!(gate.try_close().is_none(), "closing on another thread");
        drop(entered);
        other.join().unwrap();
        assert!(gate.try_close().is_some());
        assert!(gate.is_open());
    }
}
