//! Segment-level CLOCK: evict the oldest segment of a shard, giving items
//! read since they were last considered a second chance.
//!
//! Every read sets the item's accessed bit in the index. To evict, the oldest
//! segment is sealed; each live record in it that was accessed has its bit
//! cleared and is copied to the open segment, while the rest are evicted.
//! Second chances are capped at half the segment's bytes so every call frees
//! at least half a segment, whatever the access pattern.
//!
//! A large collection goes as one item: its head takes its chunks with it,
//! and a chunk in the segment evicts its whole collection, unless the head
//! was read since it was last considered (the chunk then gets the second
//! chance, within the same cap). The collection a command is editing (the
//! shard's pinned key: its writes may be what needs the room) is moved,
//! never evicted, whatever the cap.

use crate::chunk::{split_chunk_key, Namespace};
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
    let written = shard.arena.usage(seg).0;
    let keep_budget = written / 2;
    let (mut kept, mut pinned) = (0, 0);
    for rec in shard.live_records(ctx, seg) {
        if !shard.still_holds(&rec) {
            continue; // went with its collection
        }
        // The slot whose accessed bit speaks for this record, and the one
        // to evict: a chunk's owner's head.
        let (judge, victim) = match owner_slot(shard, ctx, rec.slot) {
            Some(head) => (head, head),
            None => (rec.slot, rec.slot),
        };
        let accessed = match judge == rec.slot {
            true => shard.index.take_accessed(rec.slot),
            false => shard.index.is_accessed(judge),
        };
        let removed = if is_pinned(shard, rec.slot) && shard.relocate(rec.slot) {
            pinned += rec.len;
            Ok(())
        } else if rec.expires_at.is_some_and(|at| at <= now) {
            shard.remove(ctx, rec.slot, Removal::Expired)
        } else if kept + rec.len <= keep_budget && accessed && shard.relocate(rec.slot) {
            kept += rec.len;
            Ok(())
        } else {
            shard.remove(ctx, victim, Removal::Evicted)
        };
        if let Err(e) = removed {
            tracing::warn!(error = %e, "eviction stopped");
            return false;
        }
    }
    shard.free_segment(seg);
    // A segment of the pinned collection alone frees nothing: no progress
    // (cache mode then lets the write through).
    pinned < written
}

/// Whether the record in `slot` is the pinned key's head or one of its
/// chunks.
fn is_pinned(shard: &ShardInner, slot: usize) -> bool {
    let Some(pinned) = shard.pinned.key() else {
        return false;
    };
    let rec = shard.record_at(slot);
    let owner = match Namespace::of(rec.header.flags) {
        Namespace::User => Some(rec.key()),
        Namespace::Chunk => split_chunk_key(rec.key()).map(|(owner, _)| owner),
    };
    owner == Some(pinned)
}

/// The slot of the head owning the chunk in `slot`; `None` if the record
/// is not a chunk (or, never expected, its head is missing).
fn owner_slot(shard: &ShardInner, ctx: &Ctx, slot: usize) -> Option<usize> {
    let rec = shard.record_at(slot);
    if Namespace::of(rec.header.flags) != Namespace::Chunk {
        return None;
    }
    let (owner, _) = split_chunk_key(rec.key())?;
    shard.lookup(ctx.hash(owner), owner)
}
