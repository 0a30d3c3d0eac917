//! Restoring one shard from the persistent arena at start.
//!
//! - index and records in the arena: the index table is adopted as it is;
//!   one pass over its entries checks each location (no key is hashed, no
//!   record is decoded); segment usage is recounted by the first maintenance
//!   pass (`ShardInner::recount`). Chunk entries are counted from each
//!   record's first byte (its flags, decoded only when it has some), unless
//!   the directory's chunk mark says none was ever written.
//! - records in the arena, index in DRAM: the segments are scanned in
//!   creation order and every record not marked dead is indexed; of two
//!   live records of a key (a crash between writing the new one and
//!   marking the old one dead) the higher CAS wins.
//! - index in the arena, records in DRAM: the records are gone, so the
//!   tables are emptied.

use std::sync::Arc;

use crate::arena::{adopt_segments, Arena, PmemSegments, DEAD};
use crate::chunk::Namespace;
use crate::index::{Index, TableSource};
use crate::shard::ShardInner;
use crate::tier::{index_owner, DataTier, IndexTier, Placement, PmemTier};

/// One restored shard.
pub(crate) struct RestoredShard {
    pub index: Index,
    pub arena: Arena,
    pub with_expiry: usize,
    pub max_cas: u64,
    pub records_checked: u64,
    pub duplicates_dropped: u64,
    /// Segment usage and expiry counts are still to be recounted from the
    /// records (an adopted index).
    pub needs_recount: bool,
    /// Chunk entries in the index (see `ShardInner::count_chunks`); 0
    /// with data = ssd, where the stub adoption counts them.
    pub chunks: usize,
    /// Whether `chunks` was counted from the records (not known to be 0).
    pub chunks_counted: bool,
}

/// Restores shard `shard` (see the module docs). `hash` is the keyspace's
/// key hash. An error names the damage; the keyspace refuses to start.
pub(crate) fn restore_shard(
    tier: &Arc<PmemTier>,
    placement: Placement,
    shard: usize,
    hash: &(dyn Fn(&[u8], u64) -> u64 + Sync),
) -> Result<RestoredShard, String> {
    let segment_size = tier.segment_size();
    let table_source = match placement.index {
        IndexTier::Pmem => TableSource::Pmem {
            tier: tier.clone(),
            shard,
        },
        IndexTier::Dram => TableSource::Dram,
    };
    let adopted_table = take_index_table(tier, shard, placement)?;
    let mut restored = RestoredShard {
        index: Index::new(),
        arena: Arena::new(segment_size),
        with_expiry: 0,
        max_cas: 0,
        records_checked: 0,
        duplicates_dropped: 0,
        needs_recount: false,
        chunks: 0,
        chunks_counted: false,
    };
    if !placement.data_persists() {
        restored.index = Index::create(table_source).map_err(|e| e.to_string())?;
        return Ok(restored);
    }
    let (segments, next_seq) = adopt_segments(tier, shard)?;
    let mark_dead = placement.index == IndexTier::Dram;
    let source = PmemSegments::new(tier.clone(), shard, next_seq, mark_dead);
    restored.arena = Arena::adopt(segment_size, source, segments);
    match adopted_table {
        Some(words) => {
            restored.index = Index::adopt(table_source, words);
            check_locations(&mut restored, tier, shard)?;
        }
        None if mark_dead => rescan(&mut restored, hash)?,
        None => {
            // A new table: nothing published yet refers to the records.
            restored.index = Index::create(table_source).map_err(|e| e.to_string())?;
        }
    }
    // Here, on the restore thread, not on the one that assembles the
    // shards: the only pass of an adopted restart that reads records, and
    // only once a chunk was ever written. With data = ssd the adoption
    // counts them in its pass over the stubs.
    if placement.data != DataTier::Ssd && tier.may_hold_chunks() {
        restored.chunks_counted = true;
        restored.chunks = ShardInner::count_chunks(&restored.index, &restored.arena);
    }
    Ok(restored)
}

/// Claims shard `shard`'s published index table if it belongs to the
/// current epoch and the index is persistent; frees every other table run.
fn take_index_table(
    tier: &Arc<PmemTier>,
    shard: usize,
    placement: Placement,
) -> Result<Option<strata_pmem::ClaimedWords>, String> {
    let arena = tier.arena();
    let published = tier.index_table(shard).map_err(|e| e.to_string())?;
    let keep = published
        .filter(|(_, epoch)| *epoch == tier.epoch() && placement.instant_restart())
        .map(|(first, _)| first);
    let mut table = None;
    for run in arena
        .owned_by(index_owner(shard))
        .map_err(|e| e.to_string())?
    {
        if Some(run.first()) == keep {
            table = Some(arena.claim_words(run).map_err(|e| e.to_string())?);
        } else {
            arena.free(&run).map_err(|e| e.to_string())?;
        }
    }
    if keep.is_some() && table.is_none() {
        return Err(format!(
            "{}: shard {shard}'s published index table is not allocated",
            arena.file_name()
        ));
    }
    Ok(table)
}

/// Checks that every entry of an adopted index points inside a segment's
/// published records. Reading the records themselves (segment usage,
/// expiries) is left to the shard's first maintenance pass, so a restart
/// costs one pass over the slots, not a read of every record.
fn check_locations(
    restored: &mut RestoredShard,
    tier: &PmemTier,
    shard: usize,
) -> Result<(), String> {
    let RestoredShard { index, arena, .. } = restored;
    for (_, loc) in index.items_in(0, index.capacity()) {
        if !arena.contains(loc) {
            return Err(format!(
                "{}: shard {shard}'s index points at segment {} offset {}, past its records",
                tier.arena().file_name(),
                loc.seg,
                loc.off
            ));
        }
        restored.records_checked += 1;
    }
    restored.needs_recount = true;
    Ok(())
}

/// Indexes every live record of the adopted segments (index in DRAM).
fn rescan(
    restored: &mut RestoredShard,
    hash: &(dyn Fn(&[u8], u64) -> u64 + Sync),
) -> Result<(), String> {
    let RestoredShard { index, arena, .. } = restored;
    arena.reset_usage();
    let ids: Vec<u32> = arena.segment_ids().collect();
    let mut dead = Vec::new();
    for id in ids {
        let mut live = Vec::new();
        let mut end = 0;
        for (loc, rec) in arena.records_from(id, 0) {
            end = loc.off as usize + rec.len();
            restored.records_checked += 1;
            if !rec.header.dead {
                live.push((loc, hash(rec.key(), rec.header.flags)));
            }
        }
        if end != arena.usage(id).0 {
            return Err(format!(
                "segment {id} has an undecodable record at offset {end}"
            ));
        }
        for (loc, h) in live {
            let rec = arena.record(loc);
            let (key, len, cas, expires_at) =
                (rec.key(), rec.len(), rec.header.cas, rec.header.expires_at);
            let ns = Namespace::of(rec.header.flags);
            restored.max_cas = restored.max_cas.max(cas);
            let same = |l| {
                let r = arena.record(l);
                r.key() == key && Namespace::of(r.header.flags) == ns
            };
            match index.find(h, same) {
                Some(slot) => {
                    let old = index.loc(slot);
                    let old_rec = arena.record(old);
                    let (old_len, old_cas, old_exp) =
                        (old_rec.len(), old_rec.header.cas, old_rec.header.expires_at);
                    restored.duplicates_dropped += 1;
                    if cas > old_cas {
                        dead.push(old);
                        arena.uncount_live(old, old_len);
                        restored.with_expiry -= usize::from(old_exp.is_some());
                        index.set_loc(slot, loc);
                    } else {
                        dead.push(loc);
                        continue;
                    }
                }
                None => {
                    index.insert(h, loc, |l| {
                        let r = arena.record(l);
                        hash(r.key(), r.header.flags)
                    });
                }
            }
            arena.count_live(loc, len, expires_at);
            restored.with_expiry += usize::from(expires_at.is_some());
        }
    }
    for loc in dead {
        arena.mark_bits(loc, DEAD).map_err(|e| e.to_string())?;
    }
    Ok(())
}
