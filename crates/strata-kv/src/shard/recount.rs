//! Recounting a shard's segment usage and expiries from its records, after
//! a restart adopted a persistent index as found (which read no record).
//! Until then every adopted segment counts as fully live (so compaction
//! leaves it alone) and the expiry reclaimer skips it.

use super::ShardInner;

impl ShardInner {
    /// Recounts live bytes, earliest expiries and items with an expiry from
    /// the records the index points at. One pass under the write lock.
    pub fn recount(&mut self) {
        self.arena.reset_usage();
        let mut with_expiry = 0;
        let found: Vec<_> = self
            .index
            .items_in(0, self.index.capacity())
            .map(|(_, loc)| {
                let rec = self.arena.record(loc);
                (loc, rec.len(), rec.header.expires_at)
            })
            .collect();
        for (loc, len, expires_at) in found {
            with_expiry += usize::from(expires_at.is_some());
            self.arena.count_live(loc, len, expires_at);
        }
        self.with_expiry = with_expiry;
        self.pending_recount = false;
    }
}
