//! Cursor scans and random picks over one shard's index.
//!
//! A scan position is a 32-bit hash position (`hash >> 32`). Homes are
//! monotonic in it, so "every item whose position is below p has been
//! visited" stays true when the table grows or is rebuilt between steps. An
//! item is stored at most `max_probe` slots past its home, so after visiting
//! slots `[start, end)` a step can vouch for every position below that of
//! slot `end - max_probe`; it emits exactly the items with positions in
//! `[pos, next)`, so an unchanged table yields each item once. Items that
//! wrapped past the table's end are looked for in the first slots by the
//! last step.

use super::ShardInner;
use crate::chunk::{record_hash, Namespace};

/// Which entries a scan visits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Items users see (`SCAN`, `KEYS`, `RANDOMKEY`): no chunk.
    Users,
    /// Every record, chunks of large collections included (checkpoints).
    Everything,
}

/// The hash function and reach of one scan.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScanOver {
    /// The keyspace's hash seed.
    pub seed: u64,
    pub reach: Reach,
}

impl ShardInner {
    /// Visits the slots of live items with hash positions from `pos` on,
    /// aiming to emit `count`. Returns the position to resume from, or
    /// `None` when the shard is done.
    pub fn scan(
        &self,
        pos: u64,
        count: usize,
        now: u64,
        over: ScanOver,
        visit: &mut dyn FnMut(&ShardInner, usize),
    ) -> Option<u64> {
        let cap = self.index.capacity();
        let max_probe = self.index.max_probe();
        let start = self.index.slot_at_position(pos);
        let mut found: Vec<(u64, usize)> = Vec::new();
        let mut slot = start;
        // Visit until `count` items are vouched for (home before `slot - max_probe`).
        while slot < cap {
            self.collect(slot, now, over, &mut found);
            slot += 1;
            if slot > start + max_probe {
                let vouched = self.index.position_of_slot(slot - max_probe);
                if found
                    .iter()
                    .filter(|(p, _)| *p >= pos && *p < vouched)
                    .count()
                    >= count
                {
                    break;
                }
            }
        }
        let next = if slot >= cap {
            for wrapped in 0..max_probe.min(start) {
                self.collect(wrapped, now, over, &mut found);
            }
            1 << 32
        } else {
            self.index.position_of_slot(slot - max_probe)
        };
        for (_, slot) in found.into_iter().filter(|(p, _)| *p >= pos && *p < next) {
            visit(self, slot);
        }
        (next < 1 << 32).then_some(next)
    }

    fn collect(&self, slot: usize, now: u64, over: ScanOver, found: &mut Vec<(u64, usize)>) {
        if let Some((_, loc)) = self.index.items_in(slot, slot + 1).next() {
            let rec = self.arena.record(loc);
            let flags = rec.header.flags;
            let reached =
                over.reach == Reach::Everything || Namespace::of(flags) == Namespace::User;
            if reached && rec.header.expires_at.is_none_or(|at| at > now) {
                found.push((record_hash(over.seed, rec.key(), flags) >> 32, slot));
            }
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
            let user = Namespace::of(rec.header.flags) == Namespace::User;
            (!expired && user).then(|| rec.key().to_vec())
        })
    }
}
