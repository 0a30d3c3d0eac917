//! [`Epochs`]: Silo's global epoch and each worker's local epoch.
//!
//! The global epoch `E` advances (every 40 ms by default, on the
//! database's epoch thread) only once every worker inside a transaction
//! has seen it, so a running transaction's local epoch is `E` or `E - 1`.
//! A worker publishes its local epoch when it begins a transaction and
//! clears its active bit when the transaction ends. Three things follow:
//!
//! - commit TIDs carry the epoch read at the serialization point, which
//!   is at least the committing worker's local epoch;
//! - [`Epochs::closed_through`]: no transaction can still commit in an
//!   epoch below every active local epoch and below `E`, so once a log
//!   stream holds everything appended until then, those epochs are
//!   complete in it (group commit per epoch);
//! - [`Epochs::safe`]: a record unlinked in epoch `u` can be freed once
//!   every active local epoch is above `u` (reclamation).
//!
//! Slot words: `FREE`, or `local << 1 | active`. All accesses are
//! `SeqCst`: the publication protocol (store the slot, then re-check `E`)
//! relies on a single total order with the advancer's store of `E` and its
//! loads of the slots.

use std::sync::atomic::{AtomicU64, Ordering::SeqCst};

use crossbeam_utils::CachePadded;

const FREE: u64 = u64::MAX;

/// The global epoch and the workers' slots.
pub(crate) struct Epochs {
    global: CachePadded<AtomicU64>,
    slots: Box<[CachePadded<AtomicU64>]>,
}

impl Epochs {
    /// `slots` workers (and internal threads) at most; epochs start at 1.
    pub fn new(slots: usize, first: u64) -> Epochs {
        Epochs {
            global: CachePadded::new(AtomicU64::new(first.max(1))),
            slots: (0..slots)
                .map(|_| CachePadded::new(AtomicU64::new(FREE)))
                .collect(),
        }
    }

    /// The global epoch.
    #[inline]
    pub fn global(&self) -> u64 {
        self.global.load(SeqCst)
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Takes a free slot.
    pub fn claim(&self) -> Option<usize> {
        let idle = self.global() << 1;
        (0..self.slots.len()).find(|&i| {
            self.slots[i]
                .compare_exchange(FREE, idle, SeqCst, SeqCst)
                .is_ok()
        })
    }

    /// Gives a slot back (its worker is idle).
    pub fn release(&self, slot: usize) {
        self.slots[slot].store(FREE, SeqCst);
    }

    /// Marks the slot's worker active in the current epoch and returns it.
    #[inline]
    pub fn enter(&self, slot: usize) -> u64 {
        loop {
            let e = self.global.load(SeqCst);
            self.slots[slot].store(e << 1 | 1, SeqCst);
            if self.global.load(SeqCst) == e {
                return e;
            }
        }
    }

    /// Marks the slot's worker idle.
    #[inline]
    pub fn exit(&self, slot: usize) {
        let word = self.slots[slot].load(SeqCst);
        self.slots[slot].store(word & !1, SeqCst);
    }

    /// Advances `E` if every active worker has seen it; returns the
    /// (possibly new) global epoch.
    pub fn try_advance(&self) -> u64 {
        let e = self.global.load(SeqCst);
        for slot in self.slots.iter() {
            let word = slot.load(SeqCst);
            if word != FREE && word & 1 == 1 && word >> 1 < e {
                return e;
            }
        }
        let _ = self.global.compare_exchange(e, e + 1, SeqCst, SeqCst);
        self.global.load(SeqCst)
    }

    /// The smallest epoch any active transaction may be in (`E` if none).
    pub fn safe(&self) -> u64 {
        let mut min = self.global.load(SeqCst);
        for slot in self.slots.iter() {
            let word = slot.load(SeqCst);
            if word != FREE && word & 1 == 1 {
                min = min.min(word >> 1);
            }
        }
        min
    }

    /// The highest epoch in which no transaction can commit any more.
    pub fn closed_through(&self) -> u64 {
        self.safe() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_active_worker_holds_the_epoch_back() {
        let epochs = Epochs::new(2, 1);
        let a = epochs.claim().unwrap();
        let b = epochs.claim().unwrap();
        assert!(epochs.claim().is_none());
        assert_eq!(epochs.enter(a), 1);
        assert_eq!(epochs.try_advance(), 2);
        // `a` is still in epoch 1: no further advance, epoch 0 closed only.
        assert_eq!(epochs.try_advance(), 2);
        assert_eq!(epochs.closed_through(), 0);
        assert_eq!(epochs.enter(b), 2);
        epochs.exit(a);
        assert_eq!(epochs.closed_through(), 1);
        assert_eq!(epochs.try_advance(), 3);
        epochs.exit(b);
        assert_eq!(epochs.safe(), 3);
        epochs.release(a);
        assert_eq!(epochs.claim(), Some(a));
    }
}
