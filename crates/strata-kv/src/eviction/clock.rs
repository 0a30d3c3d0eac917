//! Segment-level CLOCK: evict the oldest segment of a shard, giving items
//! read since they were last considered a second chance.
//!
//! Every read sets the item's accessed bit in the index. To evict, the oldest
//! segment is sealed; each live record in it that was accessed has its bit
//! cleared and is copied to the open segment, while the rest are evicted.
//! Second chances are capped at half the segment's bytes so every call frees
//! at least half a segment, whatever the access pattern.

use crate::context::Ctx;
use crate::shard::{Removal, ShardInner};

/// Evicts the shard's oldest segment. Returns false if there is none, or
/// if an item could not be removed (the SSD tier refused its tombstone):
/// the segment then stays.
pub(crate) fn evict_oldest(shard: &mut ShardInner, ctx: &Ctx, now: u64) -> bool {
    let Some(seg) = shard.arena.oldest() else {
        return false;
    };
    shard.arena.seal(seg);
    let keep_budget = shard.arena.usage(seg).0 / 2;
    let mut kept = 0;
    for rec in shard.live_records(ctx, seg) {
        let removed = if rec.expires_at.is_some_and(|at| at <= now) {
            shard.remove(ctx, rec.slot, Removal::Expired)
        } else if kept + rec.len <= keep_budget
            && shard.index.take_accessed(rec.slot)
            && shard.relocate(rec.slot)
        {
            kept += rec.len;
            Ok(())
        } else {
            shard.remove(ctx, rec.slot, Removal::Evicted)
        };
        if let Err(e) = removed {
            tracing::warn!(error = %e, "eviction stopped");
            return false;
        }
    }
    shard.free_segment(seg);
    true
}
