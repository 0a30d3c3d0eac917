//! Cursor scans and random picks over one shard's index.
//!
//! A scan position is a 32-bit hash position: homes are monotonic in the
//! hash, so "every item whose hash position is below p has been visited" stays
//! true when the table grows or is rebuilt between calls. An item is stored
//! at most `max_probe` slots past its home, so a step that visited slots
//! `[start, end)` may only promise positions below `end - max_probe`, and the
//! items that wrapped past the table's end are visited with the last step.

use super::{item_ref, ShardInner};
use crate::item::ItemRef;

impl ShardInner {
    /// Visits live items from hash position `pos`, aiming to emit `count`.
    /// Returns the position to resume from, or `None` when the shard is done.
    pub fn scan(
        &self,
        pos: u64,
        count: usize,
        now: u64,
        f: &mut dyn FnMut(ItemRef<'_>),
    ) -> Option<u64> {
        let cap = self.index.capacity();
        let max_probe = self.index.max_probe();
        let start = self.index.slot_at_position(pos);
        let min_end = start + max_probe + 1;
        let max_end = start + max_probe + 1 + count.saturating_mul(10).max(1);
        let mut emitted = 0;
        let mut slot = start;
        while slot < cap && (slot < min_end || (emitted < count && slot < max_end)) {
            emitted += self.emit_slot(slot, now, f);
            slot += 1;
        }
        if slot >= cap {
            for wrapped in 0..max_probe.min(cap) {
                self.emit_slot(wrapped, now, f);
            }
            return None;
        }
        Some(self.index.position_of_slot(slot - max_probe))
    }

    fn emit_slot(&self, slot: usize, now: u64, f: &mut dyn FnMut(ItemRef<'_>)) -> usize {
        match self.index.items_in(slot, slot + 1).next() {
            Some((_, loc)) => {
                let rec = self.arena.record(loc);
                if rec.header.expires_at.is_some_and(|at| at <= now) {
                    return 0;
                }
                f(item_ref(&rec));
                1
            }
            None => 0,
        }
    }

    /// The key of the first live item at or after slot `start % capacity`.
    pub fn live_key_from(&self, start: usize, now: u64) -> Option<Vec<u8>> {
        let cap = self.index.capacity();
        let start = start % cap;
        let after = self.index.items_in(start, cap);
        let before = self.index.items_in(0, start);
        after.chain(before).find_map(|(_, loc)| {
            let rec = self.arena.record(loc);
            let expired = rec.header.expires_at.is_some_and(|at| at <= now);
            (!expired).then(|| rec.key().to_vec())
        })
    }
}
