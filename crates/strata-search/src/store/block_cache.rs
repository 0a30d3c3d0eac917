//! [`BlockCache`]: the node's DRAM cache of fixed-size blocks of persisted
//! segment files (`search_cache_size`, or the user `search_blocks` of the
//! node's shared cache, `cache_size`), shared by every shard of every
//! index whose files are read in blocks ([`CachedFile`](super::CachedFile)).
//!
//! The blocks live in Strata's one DRAM cache (`strata-cache`: sharded
//! S3-FIFO whose byte budget bounds resident memory), so a one-pass scan
//! of cold segments cannot push out the blocks hot queries read again.
//! Hits and misses are the cache's counters of this user, once per block
//! looked up (a read waited for counts as a hit); bytes read on misses are
//! counted here. Concurrent misses of one block read it once: the first
//! reader registers the block in a table of loads in flight (at most one
//! entry per reading thread) and the others wait for it, then find the
//! block in the cache.
//!
//! Blocks are keyed by an owner (an index, from [`BlockCache::owner_id`])
//! and a file id handed out by [`BlockCache::file_id`]: segment files never
//! change once written, so a block stays valid for as long as any handle of
//! its file may ask for it, and one owner's blocks can be dropped alone
//! (`POST /<index>/_cache/clear`).

use std::collections::HashMap;
use std::io;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_cache::{SharedCache, UserCache};
use tantivy::directory::OwnedBytes;

/// Bytes per cached block.
pub const BLOCK_SIZE: usize = 64 << 10;

/// Default budget (`search_cache_size`).
pub const DEFAULT_CACHE_BYTES: u64 = 256 << 20;

/// A block: (owner, file id, block number).
type BlockKey = (u64, u64, u64);

/// The user name of the blocks in a shared cache (`INFO cache`).
pub const BLOCK_CACHE_USER: &str = "search_blocks";

/// Most shards the cache is split into.
const MAX_SHARDS: u64 = 16;

/// Blocks each shard has room for at least, so that small budgets cache.
const BLOCKS_PER_SHARD: u64 = 16;

/// What the cache holds and how it has done, for `_nodes/stats`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// The byte budget.
    pub budget_bytes: u64,
    /// Bytes of the blocks held now, as allocated (the cache's tables and
    /// queues, also within the budget, are not counted here).
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

/// A cached block handed to tantivy as [`OwnedBytes`] without a copy.
struct SharedBlock(Bytes);

impl Deref for SharedBlock {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

// SAFETY: `Bytes` points at a buffer it shares by reference count (a heap
// allocation, or static memory), never at memory inside the handle
// itself: moving the `SharedBlock` leaves the address `deref` returns
// unchanged, and the buffer lives until the last handle is dropped.
#[allow(unsafe_code)]
unsafe impl stable_deref_trait::StableDeref for SharedBlock {}

fn owned(block: Bytes) -> OwnedBytes {
    OwnedBytes::new(SharedBlock(block))
}

/// A byte-budgeted cache of file blocks (see the module docs).
pub struct BlockCache {
    blocks: UserCache<BlockKey>,
    /// Blocks being read, each with the lock its reader holds meanwhile.
    loading: Mutex<HashMap<BlockKey, Arc<Mutex<()>>>>,
    next_file: AtomicU64,
    next_owner: AtomicU64,
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
    /// A cache of `budget` bytes of memory; below about one block, every
    /// read goes to the file.
    pub fn new(budget: u64) -> BlockCache {
        // Each shard holds budget/shards: keep room for at least 16 blocks
        // per shard so small budgets still cache.
        let fit = (budget / (BLOCKS_PER_SHARD * BLOCK_SIZE as u64)).max(1);
        let shards = (1u64 << fit.ilog2()).min(MAX_SHARDS);
        BlockCache::over(UserCache::own(budget, shards as usize))
    }

    /// The blocks as the user [`BLOCK_CACHE_USER`] of the node's shared
    /// cache; `None` once that cache serves its most users.
    pub fn shared(cache: &SharedCache) -> Option<BlockCache> {
        UserCache::shared(cache, BLOCK_CACHE_USER).map(BlockCache::over)
    }

    fn over(blocks: UserCache<BlockKey>) -> BlockCache {
        BlockCache {
            blocks,
            loading: Mutex::default(),
            next_file: AtomicU64::new(1),
            next_owner: AtomicU64::new(1),
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
    /// bytes. Returns the block and whether it was a hit (also when
    /// another thread's read of it, waited for, put it in the cache).
    pub(crate) fn block(
        &self,
        owner: u64,
        file: u64,
        block: u64,
        load: impl FnOnce() -> io::Result<Vec<u8>>,
    ) -> io::Result<(OwnedBytes, bool)> {
        let key = (owner, file, block);
        if let Some(bytes) = self.blocks.get(&key, &()) {
            return Ok((owned(bytes), true));
        }
        let gate = Arc::clone(self.loading.lock().entry(key).or_default());
        let loaded = {
            let _reading = gate.lock();
            match self.blocks.get_again(&key, &()) {
                Some(bytes) => {
                    // Another thread read it meanwhile: a hit after all.
                    self.blocks.recount_as_hit(&key);
                    Ok((owned(bytes), true))
                }
                None => self.miss(key, load),
            }
        };
        // The last reader of this gate takes it out of the table, so the
        // table holds only blocks some thread is reading or waiting for.
        // Every clone and drop of a gate happens under the table's lock, so
        // a count of one (the table's own) means no thread is left on it.
        let mut loading = self.loading.lock();
        drop(gate);
        if loading.get(&key).is_some_and(|g| Arc::strong_count(g) == 1) {
            loading.remove(&key);
        }
        loaded
    }

    fn miss(
        &self,
        key: BlockKey,
        load: impl FnOnce() -> io::Result<Vec<u8>>,
    ) -> io::Result<(OwnedBytes, bool)> {
        let bytes = Bytes::from(load()?);
        self.miss_bytes
            .fetch_add(bytes.len() as u64, Ordering::Relaxed);
        self.blocks.insert(key, (), bytes.clone());
        Ok((owned(bytes), false))
    }

    /// Drops every block (`POST /_cache/clear`); counters are kept.
    pub fn clear(&self) {
        self.blocks.remove_if(|_| true);
    }

    /// Drops the blocks of `owner` only (`POST /<index>/_cache/clear`), a
    /// pass over the whole cache; counters are kept.
    pub(crate) fn clear_owner(&self, owner: u64) {
        self.blocks.remove_if(|&(o, _, _)| o == owner);
    }

    /// Current size and counters.
    pub fn stats(&self) -> CacheStats {
        let held = self.blocks.stats();
        CacheStats {
            budget_bytes: held.budget,
            size_bytes: held.value_bytes,
            blocks: held.entries,
            hits: held.hits,
            misses: held.misses,
            miss_bytes: self.miss_bytes.load(Ordering::Relaxed),
        }
    }

    /// This user's counters in the cache (for the node's cache ledger):
    /// `bytes` with the tables, of a cache of its own or its share of the
    /// shared one's.
    pub(crate) fn usage(&self) -> strata_cache::CacheStats {
        self.blocks.stats()
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

    fn block_of(len: usize, fill: u8) -> io::Result<Vec<u8>> {
        Ok(vec![fill; len])
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
        // The block as allocated.
        let size = BLOCK_SIZE as u64;
        assert!(
            s.size_bytes >= size && s.size_bytes < size + size / 4,
            "{s:?}"
        );
        assert_eq!(s.miss_bytes, BLOCK_SIZE as u64);
    }

    #[test]
    fn concurrent_misses_of_one_block_read_it_once() {
        let cache = BlockCache::new(4 << 20);
        let reads = AtomicU64::new(0);
        let start = std::sync::Barrier::new(8);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    start.wait();
                    let (b, _) = cache
                        .block(0, 1, 0, || {
                            reads.fetch_add(1, Ordering::Relaxed);
                            std::thread::sleep(std::time::Duration::from_millis(50));
                            block_of(BLOCK_SIZE, 3)
                        })
                        .unwrap();
                    assert_eq!(b.as_slice()[BLOCK_SIZE - 1], 3);
                });
            }
        });
        assert_eq!(reads.load(Ordering::Relaxed), 1);
        let s = cache.stats();
        assert_eq!((s.hits, s.misses), (7, 1));
        assert!(cache.loading.lock().is_empty(), "no gate is left behind");
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
        for budget in [0, 1000, BLOCK_SIZE as u64] {
            let cache = BlockCache::new(budget);
            cache.block(0, 1, 0, || block_of(BLOCK_SIZE, 1)).unwrap();
            cache.block(0, 1, 0, || block_of(BLOCK_SIZE, 1)).unwrap();
            let s = cache.stats();
            assert_eq!((s.hits, s.misses, s.blocks), (0, 2, 0), "{budget}");
            assert!(s.size_bytes <= budget);
        }
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
    fn in_a_shared_cache_clear_drops_only_the_blocks() {
        let shared = SharedCache::new(8 << 20);
        let records: UserCache<u64> = UserCache::shared(&shared, "kv_records").unwrap();
        let cache = BlockCache::shared(&shared).unwrap();
        records.insert(0, (), Bytes::from(vec![1u8; 100]));
        for n in 0..3 {
            cache.block(0, 1, n, || block_of(BLOCK_SIZE, 1)).unwrap();
        }
        // The same key words as the record: no collision.
        let (_, hit) = cache.block(0, 0, 0, || block_of(10, 3)).unwrap();
        assert!(!hit);
        let s = cache.stats();
        assert_eq!((s.blocks, s.misses, s.budget_bytes), (4, 4, 8 << 20));
        assert!(cache.usage().shared);
        cache.clear();
        assert_eq!(cache.stats().blocks, 0);
        assert_eq!(records.get(&0, &()), Some(Bytes::from(vec![1u8; 100])));
        let users: Vec<String> = shared.users().into_iter().map(|(n, _)| n).collect();
        assert_eq!(users, ["kv_records", BLOCK_CACHE_USER]);
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
