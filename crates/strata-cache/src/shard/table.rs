//! The shard's hash table and queues as memory: when the table may grow
//! within the budget, and giving back what a larger past left.

use std::collections::HashMap;
use std::hash::Hash;

use super::{Entry, Shard};
use crate::fifo::Fifo;
use crate::memory::table_bytes;

impl<K: Hash + Eq + Clone, V: Eq> Shard<K, V> {
    /// Before a new key goes in: when the map is full, its table may grow
    /// (doubling) only if the grown table fits in the budget beside what
    /// the shard holds, and leaves room for more records than the table
    /// indexes now. Otherwise records are evicted until an eighth of
    /// the table is free, and the table is rebuilt at its size if removals
    /// left tombstones (on which std's map would grow anyway). A table
    /// grown past the budget would otherwise force out most records and
    /// leave the allocator holding the old table.
    pub(super) fn make_room_in_table(&mut self, charge: usize) {
        if self.map.len() < self.map.capacity() || self.map.is_empty() {
            return;
        }
        let table = table_bytes::<(K, Entry<V>)>(self.table_capacity);
        let grown = table_bytes::<(K, Entry<V>)>((2 * self.table_capacity).max(3));
        let rest = self.resident() - table;
        // Grown only if the records that fit beside the grown table, at
        // what each costs now, outnumber what the table indexes already:
        // grown early in a fill, a table too large stays (`trim` halves).
        let per_record = rest.div_ceil(self.map.len());
        let fit = self.budget.saturating_sub(grown) / per_record.max(1);
        if rest + grown + charge <= self.budget && fit > self.table_capacity {
            return;
        }
        let target = self.table_capacity - self.table_capacity / 8;
        while self.map.len() > target && self.evict_one() {}
        if self.map.len() >= self.map.capacity() {
            let old = std::mem::take(&mut self.map);
            self.map = HashMap::with_capacity(self.table_capacity);
            self.map.extend(old);
        }
    }

    /// Gives back table and queue memory kept from a time the shard held
    /// more, smaller records (the first fill, before the ghost took its
    /// share): more than twice what is needed is shrunk to a quarter more.
    pub(super) fn trim(&mut self) {
        let len = self.map.len();
        if self.table_capacity > 2 * len + 64 {
            self.map.shrink_to(len + len / 4);
            self.table_capacity = self.map.capacity();
        }
        self.small.trim();
        self.main.trim();
        self.ghost.trim();
        self.capped.iter_mut().flatten().for_each(Fifo::trim);
    }
}
