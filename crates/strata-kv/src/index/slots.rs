//! The slot array of an index: boxed atomics in DRAM, or a claimed run of
//! the persistent arena published in the keyspace directory.
//!
//! A persistent table is made whole before it is published: alloc, zero,
//! fill, persist, publish in the directory (one 8-byte store), then free
//! the table it replaces. Each later slot change is one 8-byte store,
//! persisted before the operation returns, so a crash leaves every slot
//! either old or new, and each is a valid entry on its own.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use strata_pmem::ClaimedWords;

use crate::tier::{index_owner, pmem_error, PmemTier};
use crate::KvError;

/// Where an index's tables are made.
#[derive(Clone)]
pub(crate) enum TableSource {
    Dram,
    Pmem { tier: Arc<PmemTier>, shard: usize },
}

/// One table of slots.
pub(crate) enum Slots {
    Dram(Box<[AtomicU64]>),
    Pmem(ClaimedWords),
}

impl Slots {
    /// An empty DRAM table of `capacity` slots.
    pub fn dram(capacity: usize) -> Slots {
        Slots::Dram((0..capacity).map(|_| AtomicU64::new(0)).collect())
    }

    /// An empty table of at least `capacity` slots (a persistent table uses
    /// all of its chunks), not yet published.
    pub fn new(source: &TableSource, capacity: usize) -> Result<Slots, KvError> {
        match source {
            TableSource::Dram => Ok(Slots::dram(capacity)),
            TableSource::Pmem { tier, shard } => {
                let arena = tier.arena();
                let bytes = (capacity as u64 * 8).max(8);
                let run = arena
                    .alloc(index_owner(*shard), bytes.div_ceil(arena.chunk_size()))
                    .map_err(pmem_error)?;
                let words = match arena.claim_words(run) {
                    Ok(words) => words,
                    Err(e) => {
                        let _ = arena.free(&run);
                        return Err(pmem_error(e));
                    }
                };
                // Chunks hold whatever they held before.
                for w in words.words() {
                    w.store(0, Ordering::Relaxed);
                }
                Ok(Slots::Pmem(words))
            }
        }
    }

    pub fn words(&self) -> &[AtomicU64] {
        match self {
            Slots::Dram(slots) => slots,
            Slots::Pmem(words) => words.words(),
        }
    }

    /// Makes slot `slot` durable (nothing to do in DRAM).
    #[inline]
    pub fn persist(&self, slot: usize) {
        if let Slots::Pmem(words) = self {
            if let Err(e) = words.persist(slot * 8, 8) {
                // The arena is poisoned: every later write is refused.
                tracing::error!(error = %e, "persisting an index slot failed");
            }
        }
    }

    /// Persists the whole table and publishes it as `source`'s current one.
    pub fn publish(&self, source: &TableSource) -> Result<(), KvError> {
        if let (Slots::Pmem(words), TableSource::Pmem { tier, shard }) = (self, source) {
            words
                .persist(0, words.words().len() * 8)
                .map_err(pmem_error)?;
            tier.set_index_table(*shard, &words.run())?;
        }
        Ok(())
    }

    /// Gives a replaced table back (after its successor is published).
    pub fn retire(self, source: &TableSource) {
        if let (Slots::Pmem(words), TableSource::Pmem { tier, .. }) = (self, source) {
            let run = words.run();
            drop(words);
            if let Err(e) = tier.arena().free(&run) {
                tracing::error!(error = %e, "freeing a replaced index table failed");
            }
        }
    }
}
