//! Persistent segments: made from, freed to and found again in the
//! persistent arena ([`PmemTier`]).
//!
//! Order of a segment's life, so that a crash anywhere is harmless: alloc
//! the run, write and persist the header, publish its magic; records are
//! appended and their length published (`Segment::append`); to free, clear
//! the magic (durably) before the run goes back to the allocator. A run of
//! the shard's owner without the magic, or of an older flush epoch, is
//! garbage at the next start.

use std::sync::Arc;

use strata_pmem::ChunkRun;

use super::segment::{pmem_header, Segment};
use crate::tier::{data_owner, pmem_error, PmemTier};
use crate::KvError;

/// How one shard's arena makes persistent segments.
pub(crate) struct PmemSegments {
    tier: Arc<PmemTier>,
    shard: u32,
    /// Creation order of the next segment.
    next_seq: u64,
    /// Whether released records are marked dead in place (the index is in
    /// DRAM, so a restart scans the records).
    mark_dead: bool,
}

impl PmemSegments {
    pub fn new(tier: Arc<PmemTier>, shard: usize, next_seq: u64, mark_dead: bool) -> Self {
        Self {
            tier,
            shard: shard as u32,
            next_seq,
            mark_dead,
        }
    }

    pub fn marks_dead(&self) -> bool {
        self.mark_dead
    }

    /// A new empty segment with id `id` and room for `capacity` record bytes.
    pub fn new_segment(&mut self, id: u32, capacity: usize) -> Result<Segment, KvError> {
        let arena = self.tier.arena();
        let bytes = (capacity + pmem_header::LEN) as u64;
        let run = arena
            .alloc(
                data_owner(self.shard as usize),
                bytes.div_ceil(arena.chunk_size()),
            )
            .map_err(pmem_error)?;
        let claim = match arena.claim(run) {
            Ok(claim) => claim,
            Err(e) => {
                let _ = arena.free(&run);
                return Err(pmem_error(e));
            }
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        Segment::format(claim, id, self.shard, seq, self.tier.epoch())
    }

    /// Unpublishes and frees a segment's run. Failures are logged: the arena
    /// is poisoned by then, so every later write fails.
    pub fn free_segment(&self, seg: Segment) {
        let Some(mut claim) = seg.into_run() else {
            return;
        };
        let run = claim.run();
        let cleared = claim.publish_u64(pmem_header::W_MAGIC, 0);
        drop(claim);
        if let Err(e) = cleared.and_then(|()| self.tier.arena().free(&run)) {
            tracing::error!(error = %e, "freeing a persistent segment failed");
        }
    }
}

/// Segments found at a restart, `(id, seq, segment)`.
pub(crate) type FoundSegments = Vec<(u32, u64, Segment)>;

/// The live segments of shard `shard` found in the arena: `(id, seq,
/// segment)` and the next sequence number. Orphans (no magic, an older
/// epoch) are freed. Duplicate ids mean damage the engine cannot repair.
pub(crate) fn adopt_segments(
    tier: &Arc<PmemTier>,
    shard: usize,
) -> Result<(FoundSegments, u64), String> {
    let arena = tier.arena();
    let runs: Vec<ChunkRun> = arena
        .owned_by(data_owner(shard))
        .map_err(|e| e.to_string())?;
    let mut found = Vec::with_capacity(runs.len());
    let mut ids = std::collections::HashSet::new();
    let mut next_seq = 0;
    for run in runs {
        let claim = arena.claim(run).map_err(|e| e.to_string())?;
        let header = &claim.bytes()[..pmem_header::LEN];
        let word = |at| pmem_header::word(header, at);
        let (id_word, seq, len) = (
            word(pmem_header::W_ID),
            word(pmem_header::W_SEQ),
            word(pmem_header::W_LEN) as usize,
        );
        let id = id_word as u32;
        let valid = word(pmem_header::W_MAGIC) == pmem_header::MAGIC
            && (id_word >> 32) as usize == shard
            && word(pmem_header::W_EPOCH) == tier.epoch()
            && len <= claim.len() - pmem_header::LEN;
        if !valid {
            drop(claim);
            arena.free(&run).map_err(|e| e.to_string())?;
            continue;
        }
        if !ids.insert(id) {
            return Err(format!(
                "{}: shard {shard} has two segments with id {id}",
                arena.file_name()
            ));
        }
        next_seq = next_seq.max(seq + 1);
        found.push((id, seq, Segment::adopt(claim, len)));
    }
    Ok((found, next_seq))
}
