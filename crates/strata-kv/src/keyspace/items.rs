//! A walk over items for statistics (memcached `stats items`, `stats slabs`,
//! `stats cachedump`): sizes, expiry and access records, read under each
//! shard's read lock a step at a time, never a value from the SSD; and the
//! per-class removal counters.

use super::core::Keyspace;
use super::shared::SharedStore;
use crate::shard::scan::Reach;
use crate::shard::ItemInfo;
use crate::size_class::ClassRemovals;

impl Keyspace {
    /// One step of a walk over live items, in the order and with the
    /// guarantees of [`Store::scan`](crate::Store::scan) (start with cursor
    /// 0, stop when it returns 0; each item present throughout is seen at
    /// least once). `count` is the number of items this step aims for.
    /// Users' items only: chunks of large collections are not listed.
    pub fn walk_items(&self, cursor: u64, count: usize, f: &mut dyn FnMut(ItemInfo<'_>)) -> u64 {
        let now = self.now_ms();
        let ctx = &self.ctx;
        SharedStore::new(self).scan_slots(cursor, count, Reach::Users, &mut |shard, slot| {
            f(shard.item_info(ctx, slot, now))
        })
    }

    /// Evictions and reclaimed expiries of size class `class` since start.
    pub fn class_removals(&self, class: usize) -> ClassRemovals {
        self.ctx.counters.by_class.get(class)
    }
}
