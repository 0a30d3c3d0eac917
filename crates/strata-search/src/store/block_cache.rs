//! [`BlockCache`]: the node's DRAM cache of fixed-size blocks of persisted
//! segment files (`search_cache_size`), shared by every shard of every
//! index whose files are read in blocks ([`CachedFile`](super::CachedFile)).
//!
//! The cache is `quick_cache`'s sharded CLOCK-Pro cache weighed in bytes,
//! so its resident size never passes the budget (each of its shards holds
//! at most its share). Hits and misses are counted here, once per block
//! looked up. Concurrent misses of one block read it once (the others wait
//! for that read).
//!
//! Blocks are keyed by an owner (an index, from [`BlockCache::owner_id`])
//! and a file id handed out by [`BlockCache::file_id`]: segment files never
//! change once written, so a block stays valid for as long as any handle of
//! its file may ask for it, and one owner's blocks can be dropped alone
//! (`POST /<index>/_cache/clear`).

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

use quick_cache::sync::Cache;
use quick_cache::{OptionsBuilder, Weighter};
use tantivy::directory::OwnedBytes;

/// Bytes per cached block.
pub const BLOCK_SIZE: usize = 64 << 10;

/// Default budget (`search_cache_size`).
pub const DEFAULT_CACHE_BYTES: u64 = 256 << 20;

/// A block: (owner, file id, block number).
type BlockKey = (u64, u64, u64);

#[derive(Clone, Copy)]
struct ByteWeighter;

impl Weighter<BlockKey, OwnedBytes> for ByteWeighter {
    fn weight(&self, _key: &BlockKey, block: &OwnedBytes) -> u64 {
        // Never zero: a zero-weight item would never be evicted.
        block.len().max(1) as u64
    }
}

/// What the cache holds and how it has done, for `_nodes/stats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// The byte budget.
    pub budget_bytes: u64,
    /// Bytes of blocks held now.
    pub size_bytes: u64,
    /// Blocks held now.
    pub blocks: u64,
    /// Block lookups answered from the cache.
    pub hits: u64,
    /// Block lookups that read the file.
    pub misses: u64,
    /// Bytes read from files on misses.
    pub miss_bytes: u64,
}

/// A byte-budgeted cache of file blocks (see the module docs).
pub struct BlockCache {
    /// `None` when the budget is below one block: every read goes to the file.
    blocks: Option<Cache<BlockKey, OwnedBytes, ByteWeighter>>,
    budget: u64,
    next_file: AtomicU64,
    next_owner: AtomicU64,
    hits: AtomicU64,
    misses: AtomicU64,
    miss_bytes: AtomicU64,
}

impl std::fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCache")
            .field("stats", &self.stats())
            .finish()
    }
}

impl BlockCache {
    /// A cache holding at most `budget` bytes of blocks.
    pub fn new(budget: u64) -> BlockCache {
        let block = BLOCK_SIZE as u64;
        let blocks = (budget >= block).then(|| {
            // Each shard of the cache holds budget/shards: keep room for at
            // least 16 blocks per shard so small budgets still cache.
            let fit = (budget / (16 * block)).max(1);
            let shards = (1u64 << fit.ilog2()).min(64);
            let options = OptionsBuilder::new()
                .shards(shards as usize)
                .estimated_items_capacity((budget / block) as usize)
                .weight_capacity(budget)
                .build()
                .expect("valid block cache options");
            Cache::with_options(
                options,
                ByteWeighter,
                Default::default(),
                Default::default(),
            )
        });
        BlockCache {
            blocks,
            budget,
            next_file: AtomicU64::new(1),
            next_owner: AtomicU64::new(1),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            miss_bytes: AtomicU64::new(0),
        }
    }

    /// A new file id, never handed out before by this cache.
    pub(crate) fn file_id(&self) -> u64 {
        self.next_file.fetch_add(1, Ordering::Relaxed)
    }

    /// A new owner tag, never handed out before by this cache (0 is the
    /// tag of files no index owns: tools and tests).
    pub(crate) fn owner_id(&self) -> u64 {
        self.next_owner.fetch_add(1, Ordering::Relaxed)
    }

    /// Block `block` of file `file` of `owner`: from the cache, or read
    /// with `load` (and kept when it fits). `load` must return the block's
    /// bytes. Returns the block and whether it was a hit.
    pub fn block(
        &self,
        owner: u64,
        file: u64,
        block: u64,
        load: impl FnOnce() -> io::Result<OwnedBytes>,
    ) -> io::Result<(OwnedBytes, bool)> {
        let Some(cache) = &self.blocks else {
            return self.miss(load).map(|b| (b, false));
        };
        let mut missed = false;
        let bytes = cache.get_or_insert_with(&(owner, file, block), || {
            missed = true;
            self.miss(load)
        })?;
        if !missed {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        Ok((bytes, !missed))
    }

    fn miss(&self, load: impl FnOnce() -> io::Result<OwnedBytes>) -> io::Result<OwnedBytes> {
        self.misses.fetch_add(1, Ordering::Relaxed);
        let bytes = load()?;
        self.miss_bytes
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(bytes)
    }

    /// Drops every block (`POST /_cache/clear`); counters are kept.
    pub fn clear(&self) {
        if let Some(cache) = &self.blocks {
            cache.clear();
        }
    }

    /// Drops the blocks of `owner` only (`POST /<index>/_cache/clear`), a
    /// pass over the whole cache; counters are kept.
    pub(crate) fn clear_owner(&self, owner: u64) {
        if let Some(cache) = &self.blocks {
            cache.retain(|&(o, _, _), _| o != owner);
        }
    }

    /// Current size and counters.
    pub fn stats(&self) -> CacheStats {
        let (size_bytes, blocks) = self
            .blocks
            .as_ref()
            .map_or((0, 0), |c| (c.weight(), c.len() as u64));
        CacheStats {
            budget_bytes: self.budget,
            size_bytes,
            blocks,
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            miss_bytes: self.miss_bytes.load(Ordering::Relaxed),
        }
    }
}

impl Default for BlockCache {
    fn default() -> BlockCache {
        BlockCache::new(DEFAULT_CACHE_BYTES)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_of(len: usize, fill: u8) -> io::Result<OwnedBytes> {
        Ok(OwnedBytes::new(vec![fill; len]))
    }

    #[test]
    fn counts_hits_and_misses() {
        let cache = BlockCache::new(4 << 20);
        let (b, hit) = cache.block(0, 1, 0, || block_of(BLOCK_SIZE, 7)).unwrap();
        assert!(!hit);
        assert_eq!(b.as_slice()[0], 7);
        let (_, hit) = cache
            .block(0, 1, 0, || panic!("a cached block is not read"))
            .unwrap();
        assert!(hit);
        let s = cache.stats();
        assert_eq!((s.hits, s.misses, s.blocks), (1, 1, 1));
        assert_eq!(s.size_bytes, BLOCK_SIZE as u64);
        assert_eq!(s.miss_bytes, BLOCK_SIZE as u64);
    }

    #[test]
    fn stays_within_its_budget() {
        let budget = 1 << 20; // 16 blocks
        let cache = BlockCache::new(budget);
        for n in 0..200 {
            cache.block(0, 9, n, || block_of(BLOCK_SIZE, 1)).unwrap();
            assert!(cache.stats().size_bytes <= budget);
        }
        let s = cache.stats();
        assert_eq!(s.misses, 200);
        assert!(s.blocks >= 4, "a small budget still caches: {s:?}");
        // At most 16 of the 200 are still there: reading all again misses
        // for the others.
        for n in 0..200 {
            cache.block(0, 9, n, || block_of(BLOCK_SIZE, 1)).unwrap();
        }
        assert!(
            cache.stats().misses >= 200 + 200 - 16,
            "{:?}",
            cache.stats()
        );
    }

    #[test]
    fn a_budget_below_one_block_caches_nothing() {
        let cache = BlockCache::new(1000);
        cache.block(0, 1, 0, || block_of(10, 1)).unwrap();
        cache.block(0, 1, 0, || block_of(10, 1)).unwrap();
        let s = cache.stats();
        assert_eq!((s.hits, s.misses, s.size_bytes), (0, 2, 0));
    }

    #[test]
    fn clear_drops_every_block_and_keeps_the_counters() {
        let cache = BlockCache::new(4 << 20);
        for n in 0..3 {
            cache.block(0, 1, n, || block_of(BLOCK_SIZE, 1)).unwrap();
        }
        cache.clear();
        let s = cache.stats();
        assert_eq!((s.size_bytes, s.blocks, s.misses), (0, 0, 3));
        let (_, hit) = cache.block(0, 1, 0, || block_of(BLOCK_SIZE, 1)).unwrap();
        assert!(!hit, "a cleared block is read again");
    }

    #[test]
    fn clearing_an_owner_keeps_the_others_blocks() {
        let cache = BlockCache::new(4 << 20);
        let (a, b) = (cache.owner_id(), cache.owner_id());
        assert_ne!(a, b);
        for n in 0..3 {
            cache.block(a, 1, n, || block_of(BLOCK_SIZE, 1)).unwrap();
            cache.block(b, 2, n, || block_of(BLOCK_SIZE, 2)).unwrap();
        }
        cache.clear_owner(a);
        assert_eq!(cache.stats().blocks, 3);
        let (_, hit) = cache.block(a, 1, 0, || block_of(BLOCK_SIZE, 1)).unwrap();
        assert!(!hit, "a's block was dropped");
        let (_, hit) = cache
            .block(b, 2, 0, || panic!("b's blocks are kept"))
            .unwrap();
        assert!(hit);
    }

    #[test]
    fn a_failed_read_is_not_cached() {
        let cache = BlockCache::new(4 << 20);
        let err = cache.block(0, 1, 0, || Err(io::Error::other("disk gone")));
        assert!(err.is_err());
        let (_, hit) = cache.block(0, 1, 0, || block_of(10, 2)).unwrap();
        assert!(!hit);
    }
}
