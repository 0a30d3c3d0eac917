//! Async waiters for durability, woken per LSN.
//!
//! Each waiting future registers one slot under the LSN it waits for. When
//! the flusher publishes a durable LSN it wakes exactly the slots at or
//! below it; a waiter whose record is in the next group sleeps on. (A
//! broadcast would wake every waiter at every sync, and about half of them
//! would only go back to sleep: in sync mode, context switches are what a
//! write costs most.)
//!
//! No lost wake-up: the publisher stores the durable LSN before it takes the
//! waiter lock to drain; a registering future checks the durable LSN again
//! after inserting its slot under that lock. So either the drain sees the
//! slot, or the check sees the LSN. The future itself is
//! `durable_wait.rs`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::task::Waker;

use parking_lot::Mutex;

/// Where one future's waker is kept; the future may update it on re-poll.
pub(crate) struct Slot {
    pub(crate) waker: Mutex<Option<Waker>>,
}

impl Slot {
    fn wake(&self) {
        if let Some(waker) = self.waker.lock().take() {
            waker.wake();
        }
    }
}

/// Registered waiters by the LSN they wait for.
#[derive(Default)]
pub(crate) struct DurableWaiters {
    by_lsn: Mutex<BTreeMap<u64, Vec<Arc<Slot>>>>,
}

impl DurableWaiters {
    /// Registers `slot` to be woken once `lsn` is durable.
    pub(crate) fn register(&self, lsn: u64, slot: Arc<Slot>) {
        self.by_lsn.lock().entry(lsn).or_default().push(slot);
    }

    /// Wakes every waiter for an LSN up to `durable`. The caller has already
    /// published `durable`.
    pub fn wake_up_to(&self, durable: u64) {
        let woken = {
            let mut by_lsn = self.by_lsn.lock();
            let later = match durable.checked_add(1) {
                Some(next) => by_lsn.split_off(&next),
                None => BTreeMap::new(),
            };
            std::mem::replace(&mut *by_lsn, later)
        };
        // Wake outside the lock: a woken task may register again at once.
        for slot in woken.into_values().flatten() {
            slot.wake();
        }
    }

    /// Wakes everyone (poison, stop): they will find an outcome.
    pub fn wake_all(&self) {
        self.wake_up_to(u64::MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn slot_counting() -> (Arc<Slot>, Arc<Count>) {
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&count));
        let slot = Arc::new(Slot {
            waker: Mutex::new(Some(waker)),
        });
        (slot, count)
    }

    #[test]
    fn only_covered_lsns_are_woken() {
        let waiters = DurableWaiters::default();
        let counts: Vec<_> = (1..=5)
            .map(|lsn| {
                let (slot, count) = slot_counting();
                waiters.register(lsn, slot);
                count
            })
            .collect();
        waiters.wake_up_to(3);
        let woken: Vec<_> = counts.iter().map(|c| c.0.load(Ordering::SeqCst)).collect();
        assert_eq!(woken, [1, 1, 1, 0, 0]);
        waiters.wake_all();
        let woken: Vec<_> = counts.iter().map(|c| c.0.load(Ordering::SeqCst)).collect();
        assert_eq!(woken, [1, 1, 1, 1, 1]);
        assert!(waiters.by_lsn.lock().is_empty());
    }
}
