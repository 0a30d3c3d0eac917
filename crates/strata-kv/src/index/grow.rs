//! Growing and shrinking one shard's index table: a rebuild moves every
//! entry into a new table (grown by half when live entries pass 60% of
//! capacity, else the same size to purge tombstones), filled unpersisted
//! and published whole before the old table is given back, so a
//! persistent table is never seen half moved.

use std::sync::atomic::Ordering;

use super::entry::{decode, is_item, EMPTY, GROW_LIVE_PCT, MAX_LOAD_PCT, MIN_CAPACITY};
use super::slots::Slots;
use super::{Index, TableSource};
use crate::arena::Loc;
use crate::KvError;

impl Index {
    /// True when the next insert rebuilds the table.
    pub fn would_rebuild(&self) -> bool {
        (self.len + self.tombstones + 1) * 100 > self.capacity() * MAX_LOAD_PCT
    }

    /// Grows the table now if the next insert would, so that a failure to
    /// get a persistent table is reported before anything is written.
    pub fn make_room_for_one(&mut self, rehash: impl FnMut(Loc) -> u64) -> Result<(), KvError> {
        if self.would_rebuild() {
            self.rebuild(rehash)?;
        }
        Ok(())
    }

    /// Grows the table at once so that `additional` more entries fit
    /// without a rebuild (recovery knows roughly how many items come:
    /// growing step by step would rehash every entry several times).
    pub fn reserve(&mut self, additional: usize, rehash: impl FnMut(Loc) -> u64) {
        let want = (self.len + additional).saturating_mul(100) / MAX_LOAD_PCT + 1;
        if want > self.capacity() {
            if let Err(e) = self.rebuild_to(want, rehash) {
                tracing::warn!(error = %e, "index table could not be enlarged in advance");
            }
        }
    }

    /// Shrinks the table if fewer than a quarter of its slots hold items
    /// (after a [`reserve`](Self::reserve) that overestimated), to the
    /// load a grown table has.
    pub fn fit(&mut self, rehash: impl FnMut(Loc) -> u64) {
        let cap = self.capacity();
        if self.len * 4 < cap && cap > MIN_CAPACITY {
            let want = self.len * 100 / GROW_LIVE_PCT + 1;
            if let Err(e) = self.rebuild_to(want, rehash) {
                tracing::warn!(error = %e, "index table could not shrink");
            }
        }
    }

    pub(super) fn rebuild(&mut self, rehash: impl FnMut(Loc) -> u64) -> Result<(), KvError> {
        let cap = self.capacity();
        let new_cap = if (self.len + 1) * 100 > cap * GROW_LIVE_PCT {
            cap + cap / 2
        } else {
            cap
        };
        self.rebuild_to(new_cap, rehash)
    }

    /// Moves every entry into a new table of `new_cap` slots, published
    /// whole before the old one is given back.
    fn rebuild_to(
        &mut self,
        new_cap: usize,
        mut rehash: impl FnMut(Loc) -> u64,
    ) -> Result<(), KvError> {
        let mut next = Self::with_capacity(self.source.clone(), new_cap.max(MIN_CAPACITY))?;
        // Filled unpersisted, then persisted and published in one go.
        let table = std::mem::replace(&mut next.slots, Slots::Dram(Box::new([])));
        let mut fill = Self {
            slots: table,
            source: TableSource::Dram,
            ..next
        };
        for (old_slot, slot) in self.slots.words().iter().enumerate() {
            let entry = slot.load(Ordering::Relaxed);
            if is_item(entry) {
                let hash = rehash(decode(entry));
                let new_slot = fill.place_volatile(hash, entry);
                // The access word follows its entry.
                fill.access.set_word(new_slot, self.access.word(old_slot));
                fill.len += 1;
            }
        }
        fill.source = self.source.clone();
        fill.slots.publish(&fill.source)?;
        let old = std::mem::replace(self, fill);
        old.slots.retire(&old.source);
        Ok(())
    }

    /// `place` without persisting (a table not yet published).
    fn place_volatile(&mut self, hash: u64, entry: u64) -> usize {
        let cap = self.capacity();
        let home = self.home(hash);
        let mut slot = home;
        let words = self.slots.words();
        while words[slot].load(Ordering::Relaxed) != EMPTY {
            slot = (slot + 1) % cap;
        }
        words[slot].store(entry, Ordering::Relaxed);
        self.max_probe = self.max_probe.max((slot + cap - home) % cap);
        slot
    }
}
