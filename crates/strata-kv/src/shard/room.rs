//! Making room: keeping a shard under its share of the memory limit by
//! compaction (store mode) or eviction (cache mode), and reclaiming expired
//! items in the background.

use super::{Removal, ShardInner};
use crate::eviction::{self, EvictionPolicy};
use crate::keyspace::Ctx;
use crate::KvError;

/// A live record found in a segment: its index slot and length.
pub(crate) struct LiveRecord {
    pub slot: usize,
    pub len: usize,
    pub expires_at: Option<u64>,
}

impl ShardInner {
    /// Frees memory until `need` more bytes fit in this shard's budget.
    pub fn ensure_room(&mut self, ctx: &Ctx, need: usize, now: u64) -> Result<(), KvError> {
        let budget = ctx.shard_budget();
        while self.used_bytes() + need > budget {
            let freed = match ctx.eviction() {
                EvictionPolicy::Clock => eviction::clock::evict_oldest(self, ctx, now),
                EvictionPolicy::NoEviction => self.compact_most_garbage(ctx, 0.999),
            };
            if !freed {
                return Err(KvError::OutOfMemory);
            }
        }
        Ok(())
    }

    /// The records of segment `seg` that the index still points at.
    pub fn live_records(&self, ctx: &Ctx, seg: u32) -> Vec<LiveRecord> {
        self.arena
            .records(seg)
            .filter_map(|(loc, rec)| {
                let hash = ctx.hash(rec.key());
                let slot = self.index.find(hash, |l| l == loc)?;
                Some(LiveRecord {
                    slot,
                    len: rec.len(),
                    expires_at: rec.header.expires_at,
                })
            })
            .collect()
    }

    /// Moves the live records of `seg` forward and frees it. Expired ones are
    /// dropped instead of moved. Returns false (leaving `seg` in place) if
    /// memory for a copy could not be mapped.
    pub fn compact(&mut self, ctx: &Ctx, seg: u32, now: u64) -> bool {
        self.arena.seal(seg);
        for rec in self.live_records(ctx, seg) {
            if rec.expires_at.is_some_and(|at| at <= now) {
                self.remove(ctx, rec.slot, Removal::Expired);
            } else if !self.relocate(rec.slot) {
                return false;
            }
        }
        self.arena.free(seg);
        ctx.counters.compactions.add(1);
        true
    }

    /// Compacts the segment with the smallest live fraction if that fraction
    /// is below `max_live_fraction`. Returns whether anything was freed.
    pub fn compact_most_garbage(&mut self, ctx: &Ctx, max_live_fraction: f64) -> bool {
        let candidate = self
            .arena
            .segment_ids()
            .filter_map(|id| {
                let (written, live, _, _) = self.arena.usage(id);
                let fraction = if written == 0 {
                    1.0
                } else {
                    live as f64 / written as f64
                };
                (written > 0 && fraction < max_live_fraction).then_some((id, fraction))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match candidate {
            Some((id, _)) => self.compact(ctx, id, ctx.now()),
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
                match rec.expires_at {
                    Some(at) if at <= now => {
                        self.remove(ctx, rec.slot, Removal::Expired);
                        removed += 1;
                    }
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
