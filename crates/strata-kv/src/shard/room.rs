//! Making room: keeping the keyspace under its memory limit by compaction
//! (store mode) or eviction (cache mode), compacting segments that are mostly
//! garbage, and reclaiming expired items in the background.

use super::{Removal, ShardInner};
use crate::arena::Loc;
use crate::context::Ctx;
use crate::eviction::{self, EvictionPolicy};
use crate::KvError;

/// What one [`ShardInner::compact_step`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompactionStep {
    /// No segment needs compacting.
    Idle,
    /// Part of a segment was compacted; more steps follow.
    Progress,
    /// A segment was compacted and freed.
    Finished,
}

/// A live record found in a segment: its index slot and length.
pub(crate) struct LiveRecord {
    pub slot: usize,
    pub loc: Loc,
    pub len: usize,
    pub expires_at: Option<u64>,
}

impl ShardInner {
    /// Keyspace-wide usage, counting this shard's unpublished changes.
    pub fn global_used(&self, ctx: &Ctx) -> u64 {
        (ctx.used_total() + self.used_bytes() as u64).saturating_sub(self.published_used as u64)
    }

    /// Frees memory until `need` more bytes fit under the keyspace's limit:
    /// in this shard if it holds at least its share, otherwise first in the
    /// largest shards whose locks are free ([`Ctx::free_elsewhere`]). The
    /// limit is global, so one large item may use far more than a shard's
    /// share. If nothing can be freed, store mode refuses the write and cache
    /// mode lets it through (maintenance trims the largest shards back).
    pub fn ensure_room(&mut self, ctx: &Ctx, need: usize, now: u64) -> Result<(), KvError> {
        let limit = ctx.limit();
        if need as u64 > limit {
            return Err(KvError::OutOfMemory);
        }
        while self.global_used(ctx) + need as u64 > limit {
            // Fairness: a shard under its share takes memory from the
            // largest shards first; one at or over its share gives its own.
            let over_share = (self.used_bytes() + need) as u64 > ctx.shard_share();
            // (`||` short-circuits: the order of the two tries matters.)
            let freed = match over_share {
                true => self.free_own(ctx, now) || ctx.free_elsewhere(),
                false => ctx.free_elsewhere() || self.free_own(ctx, now),
            };
            if !freed {
                return match ctx.eviction() {
                    EvictionPolicy::Clock => Ok(()),
                    EvictionPolicy::NoEviction => Err(KvError::OutOfMemory),
                };
            }
        }
        Ok(())
    }

    /// Evicts (cache mode) or compacts (store mode) one segment of this shard.
    fn free_own(&mut self, ctx: &Ctx, now: u64) -> bool {
        match ctx.eviction() {
            EvictionPolicy::Clock => eviction::clock::evict_oldest(self, ctx, now),
            EvictionPolicy::NoEviction => self.compact_most_garbage(ctx, 0.999),
        }
    }

    /// Up to `max` records of segment `seg` from `offset`, each with the
    /// offset just past it and, if the index still points at it, its slot.
    fn scan_records(
        &self,
        ctx: &Ctx,
        seg: u32,
        offset: usize,
        max: usize,
    ) -> Vec<(usize, Option<LiveRecord>)> {
        self.arena
            .records_from(seg, offset)
            .take(max)
            .map(|(loc, rec)| {
                let slot = self.index.find(ctx.record_hash(&rec), |l| l == loc);
                let live = slot.map(|slot| LiveRecord {
                    slot,
                    loc,
                    len: rec.len(),
                    expires_at: rec.header.expires_at,
                });
                (loc.off as usize + rec.len(), live)
            })
            .collect()
    }

    /// Whether `rec`'s slot still points at it: removing a large
    /// collection's head removes its chunks, which a list of a segment's
    /// live records made before may name.
    pub fn still_holds(&self, rec: &LiveRecord) -> bool {
        self.index.entry_loc(rec.slot) == Some(rec.loc)
    }

    /// The records of segment `seg` that the index still points at.
    pub fn live_records(&self, ctx: &Ctx, seg: u32) -> Vec<LiveRecord> {
        let all = self.scan_records(ctx, seg, 0, usize::MAX);
        all.into_iter().filter_map(|(_, live)| live).collect()
    }

    /// Moves (or drops, if expired) the live records among up to `max`
    /// records of `seg` from `offset`, which must be sealed. Returns the
    /// offset reached and whether it stopped early for want of memory.
    fn compact_range(
        &mut self,
        ctx: &Ctx,
        seg: u32,
        offset: usize,
        max: usize,
        now: u64,
    ) -> (usize, bool) {
        let mut next = offset;
        for (end, live) in self.scan_records(ctx, seg, offset, max) {
            // (A chunk removed with its expired head is gone.)
            if let Some(rec) = live.filter(|rec| self.still_holds(rec)) {
                let kept = match rec.expires_at.is_some_and(|at| at <= now) {
                    true => self.remove(ctx, rec.slot, Removal::Expired).is_ok(),
                    false => self.relocate(rec.slot),
                };
                if !kept {
                    return (next, false);
                }
            }
            next = end;
        }
        (next, true)
    }

    /// Frees `seg` after compaction moved everything live out of it.
    fn finish_compaction(&mut self, ctx: &Ctx, seg: u32) {
        self.free_segment(seg);
        ctx.counters.compactions.add(1);
    }

    /// Moves the live records of `seg` forward and frees it. Expired ones are
    /// dropped instead of moved. Returns false (leaving `seg` in place) if
    /// memory for a copy could not be mapped.
    pub fn compact(&mut self, ctx: &Ctx, seg: u32, now: u64) -> bool {
        self.arena.seal(seg);
        if !self.compact_range(ctx, seg, 0, usize::MAX, now).1 {
            return false;
        }
        self.finish_compaction(ctx, seg);
        true
    }

    /// One bounded step of background compaction: starts on the segment with
    /// the smallest live fraction below `max_live_fraction` if none is in
    /// progress, then moves (or drops, if expired) the live records among the
    /// next `max_records` records. Callers release the shard lock between
    /// steps, so foreground requests wait for one step, not one segment.
    pub fn compact_step(
        &mut self,
        ctx: &Ctx,
        max_live_fraction: f64,
        max_records: usize,
        now: u64,
    ) -> CompactionStep {
        let (seg, offset) = match self.compaction {
            Some(cursor) => cursor,
            None => match self.most_garbage(max_live_fraction) {
                Some(seg) => {
                    // Sealed: appends go elsewhere, so records here only die.
                    self.arena.seal(seg);
                    (seg, 0)
                }
                None => return CompactionStep::Idle,
            },
        };
        let (next, completed) = self.compact_range(ctx, seg, offset, max_records, now);
        if completed && next >= self.arena.usage(seg).0 {
            self.finish_compaction(ctx, seg);
            return CompactionStep::Finished;
        }
        // Out of memory for a copy stops early: a later pass resumes here.
        self.compaction = Some((seg, next));
        CompactionStep::Progress
    }

    /// Whether the shard as a whole holds more garbage than compaction
    /// aims for (its live fraction is below `max_live_fraction`): the
    /// maintenance pass then compacts past its usual quota to catch up.
    pub fn behind_on_compaction(&self, max_live_fraction: f64) -> bool {
        self.arena.live_fraction() < max_live_fraction
    }

    fn most_garbage(&self, max_live_fraction: f64) -> Option<u32> {
        self.arena
            .segment_ids()
            .filter_map(|id| {
                let (written, live, _, _) = self.arena.usage(id);
                let fraction = live as f64 / written.max(1) as f64;
                (written > 0 && fraction < max_live_fraction).then_some((id, fraction))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(id, _)| id)
    }

    /// Compacts the segment with the smallest live fraction if that fraction
    /// is below `max_live_fraction`. Returns whether anything was freed.
    pub fn compact_most_garbage(&mut self, ctx: &Ctx, max_live_fraction: f64) -> bool {
        match self.most_garbage(max_live_fraction) {
            Some(id) => self.compact(ctx, id, ctx.now()),
            None => false,
        }
    }

    /// Removes expired items from up to `max_segments` segments whose
    /// earliest expiry has passed. Returns the number removed.
    pub fn reclaim_expired(&mut self, ctx: &Ctx, now: u64, max_segments: usize) -> usize {
        let ids: Vec<u32> = self.arena.segment_ids().collect();
        if ids.is_empty() {
            return 0;
        }
        let mut removed = 0;
        for step in 0..ids.len().min(max_segments) {
            let id = ids[(self.expire_cursor + step) % ids.len()];
            if self.arena.usage(id).3 > now {
                continue;
            }
            let mut earliest = u64::MAX;
            for rec in self.live_records(ctx, id) {
                if !self.still_holds(&rec) {
                    continue;
                }
                match rec.expires_at {
                    Some(at) if at <= now => match self.remove(ctx, rec.slot, Removal::Expired) {
                        Ok(()) => removed += 1,
                        // Tried again on a later pass.
                        Err(_) => earliest = earliest.min(at),
                    },
                    Some(at) => earliest = earliest.min(at),
                    None => {}
                }
            }
            self.arena.set_earliest_expiry(id, earliest);
        }
        self.expire_cursor = (self.expire_cursor + max_segments) % ids.len();
        removed
    }
}
