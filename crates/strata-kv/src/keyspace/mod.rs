//! The sharded keyspace: shard selection, shared configuration, counters,
//! delayed flush, watches and the two ways of locking ([`SharedStore`] per
//! operation, [`ExclusiveStore`] for a whole batch).

mod exclusive;
mod locked;
mod shared;
mod tiered;

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use crossbeam_utils::CachePadded;
use parking_lot::{RwLock, RwLockWriteGuard};

pub use exclusive::ExclusiveStore;
pub(crate) use locked::LockedShards;
pub use locked::PairDecision;
pub use shared::SharedStore;
pub(crate) use tiered::{on_cores, open_tier, restore_all};

use crate::arena::MAX_SEGMENT_SIZE;
use crate::clock::Clock;
use crate::eviction::EvictionPolicy;
use crate::journal::{self, Journal};
use crate::shard::ShardInner;
use crate::stats::{Counters, KeyspaceStats};
use crate::tier::{PmemTier, SsdTier};
use crate::watch::Watch;
use crate::KvError;

/// How a keyspace is sized and what it does when full.
#[derive(Debug, Clone)]
pub struct KeyspaceConfig {
    /// Bytes of records and index the keyspace may hold; 0 means no limit.
    pub memory_limit: u64,
    /// What happens at the limit.
    pub eviction: EvictionPolicy,
    /// Largest item (header, key and value) accepted.
    pub max_item_size: usize,
    /// Number of independently locked shards (rounded up to a power of two).
    pub shards: usize,
}

impl Default for KeyspaceConfig {
    fn default() -> Self {
        Self {
            memory_limit: 1 << 30,
            eviction: EvictionPolicy::Clock,
            max_item_size: 1 << 20,
            shards: 64,
        }
    }
}

/// State every shard operation needs besides the shard itself.
pub(crate) struct Ctx {
    /// The keyspace this context belongs to, for freeing memory in other
    /// shards (`Keyspace::free_elsewhere`).
    this: std::sync::Weak<Keyspace>,
    clock: Arc<dyn Clock>,
    seed: u64,
    cas: AtomicU64,
    memory_limit: AtomicU64,
    eviction: AtomicU8,
    max_item_size: AtomicUsize,
    shards: usize,
    /// Sum of every shard's published `used_bytes`.
    used_total: Arc<CachePadded<AtomicU64>>,
    /// Where changes are logged, once attached (after recovery).
    journal: JournalSlot,
    /// The persistent arena, when the placement uses it.
    pub tier: Option<Arc<PmemTier>>,
    /// The SSD tier, when records live there (`data = ssd`).
    pub ssd: Option<Arc<SsdTier>>,
    pub counters: Counters,
}

/// The journal, shared by the context and every shard's lock guard.
pub(crate) type JournalSlot = Arc<OnceLock<Arc<dyn Journal>>>;

impl Ctx {
    pub fn now(&self) -> u64 {
        self.clock.now_ms()
    }

    pub fn hash(&self, key: &[u8]) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(key, self.seed)
    }

    /// A CAS version never handed out before (across restarts too, when
    /// the keyspace persists: the arena keeps a lease above every version).
    pub fn next_cas(&self) -> u64 {
        let cas = self.cas.fetch_add(1, Ordering::Relaxed);
        if let Some(tier) = &self.tier {
            if let Err(e) = tier.cover_cas(cas) {
                tracing::error!(error = %e, "extending the persistent CAS lease failed");
            }
        }
        cas
    }

    /// The memory limit in bytes; `u64::MAX` when there is none.
    pub fn limit(&self) -> u64 {
        match self.memory_limit.load(Ordering::Relaxed) {
            0 => u64::MAX,
            limit => limit,
        }
    }

    /// Bytes used by the whole keyspace as last published by each shard.
    pub fn used_total(&self) -> u64 {
        self.used_total.load(Ordering::Relaxed)
    }

    /// Tries to free memory in some other shard; see
    /// [`Keyspace::free_elsewhere`].
    pub fn free_elsewhere(&self) -> bool {
        self.this.upgrade().is_some_and(|ks| ks.free_elsewhere())
    }

    /// A shard's fair share of the limit.
    pub fn shard_share(&self) -> u64 {
        self.limit() / self.shards as u64
    }

    pub fn eviction(&self) -> EvictionPolicy {
        match self.eviction.load(Ordering::Relaxed) {
            0 => EvictionPolicy::NoEviction,
            _ => EvictionPolicy::Clock,
        }
    }

    pub fn max_item_size(&self) -> usize {
        self.max_item_size.load(Ordering::Relaxed)
    }

    /// Makes every later CAS version larger than `cas` (recovery).
    pub fn raise_cas_above(&self, cas: u64) {
        self.cas.fetch_max(cas.saturating_add(1), Ordering::Relaxed);
    }

    /// True when changes must be recorded: a journal is attached and has
    /// not failed (a stalled one still takes records). (A failed journal
    /// records nothing: writes are refused by
    /// [`check_journal`](Self::check_journal), and reclaiming expired items
    /// goes on unlogged.)
    pub fn journaling(&self) -> bool {
        self.journal.get().is_some_and(|j| j.accepts())
    }

    /// Refuses a change that could not be made durable.
    pub fn check_journal(&self) -> Result<(), KvError> {
        match self.journal.get() {
            Some(journal) => journal.check().map_err(|refusal| match refusal {
                journal::Refusal::Failed(cause) => KvError::NotDurable { cause },
                journal::Refusal::Stalled(cause) => KvError::JournalStalled { cause },
            }),
            None => Ok(()),
        }
    }

    /// Appends `body` (a batch of changes) to the journal, if any.
    pub fn append_journal(&self, body: &mut Vec<u8>) {
        append_to(&self.journal, body);
    }
}

fn append_to(slot: &JournalSlot, body: &mut Vec<u8>) {
    if body.is_empty() {
        return;
    }
    match slot.get() {
        Some(journal) => journal::append(&**journal, body),
        None => body.clear(),
    }
}

/// One shard and lock-free mirrors of its size for stats.
pub(crate) struct Shard {
    inner: RwLock<ShardInner>,
    /// The keyspace-wide total this shard's usage is summed into.
    used_total: Arc<CachePadded<AtomicU64>>,
    /// Where the changes made under a write lock go when it is released.
    journal: JournalSlot,
    items: AtomicU64,
    with_expiry: AtomicU64,
    used: AtomicU64,
    index_bytes: AtomicU64,
    segments: AtomicU64,
}

impl Shard {
    pub fn read(&self) -> parking_lot::RwLockReadGuard<'_, ShardInner> {
        self.inner.read()
    }

    pub fn write(&self) -> ShardWrite<'_> {
        ShardWrite {
            shard: self,
            guard: self.inner.write(),
        }
    }

    /// The write lock if it is free now (never waits, so it may be called
    /// while holding another shard's lock).
    pub fn try_write(&self) -> Option<ShardWrite<'_>> {
        let guard = self.inner.try_write()?;
        Some(ShardWrite { shard: self, guard })
    }
}

/// A write lock on a shard that refreshes the shard's mirrors when released.
pub(crate) struct ShardWrite<'a> {
    shard: &'a Shard,
    guard: RwLockWriteGuard<'a, ShardInner>,
}

impl Deref for ShardWrite<'_> {
    type Target = ShardInner;
    fn deref(&self) -> &ShardInner {
        &self.guard
    }
}

impl DerefMut for ShardWrite<'_> {
    fn deref_mut(&mut self) -> &mut ShardInner {
        &mut self.guard
    }
}

impl Drop for ShardWrite<'_> {
    fn drop(&mut self) {
        let s = self.shard;
        // Still under the lock: the journal's order is the apply order.
        append_to(&s.journal, &mut self.guard.journal_buf);
        let used = self.guard.used_bytes();
        let delta = used as i64 - self.guard.published_used as i64;
        if delta != 0 {
            // Wrapping add of a signed delta keeps the total exact.
            s.used_total.fetch_add(delta as u64, Ordering::Relaxed);
            self.guard.published_used = used;
        }
        let g = &self.guard;
        s.items.store(g.index.len() as u64, Ordering::Relaxed);
        s.with_expiry.store(g.with_expiry as u64, Ordering::Relaxed);
        s.used.store(g.used_bytes() as u64, Ordering::Relaxed);
        s.index_bytes
            .store(g.index.bytes() as u64, Ordering::Relaxed);
        s.segments
            .store(g.arena.segment_count() as u64, Ordering::Relaxed);
    }
}

/// The keyspace shared by every front end.
pub struct Keyspace {
    pub(crate) ctx: Ctx,
    shards: Box<[CachePadded<Shard>]>,
    /// Unix ms at which a delayed `flush_all` runs; 0 when none is pending.
    flush_deadline: AtomicU64,
}

impl std::fmt::Debug for Keyspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyspace")
            .field("shards", &self.shards.len())
            .finish_non_exhaustive()
    }
}

pub(crate) fn segment_size_for(limit: u64, shards: usize) -> usize {
    if limit == 0 {
        return MAX_SEGMENT_SIZE;
    }
    // At least eight segments per shard's fair share, so eviction is gradual.
    let per = (limit / shards as u64 / 8).max(1);
    let pow2 = 1usize << (63 - per.leading_zeros());
    pow2.clamp(4096, MAX_SEGMENT_SIZE)
}

impl Keyspace {
    /// An empty keyspace in DRAM.
    pub fn new(config: KeyspaceConfig, clock: Arc<dyn Clock>) -> Arc<Self> {
        let shards = config.shards.clamp(1, 4096).next_power_of_two();
        let segment_size = segment_size_for(config.memory_limit, shards);
        let inners = (0..shards).map(|_| ShardInner::new(segment_size)).collect();
        Self::assemble(&config, clock, rand::random(), inners, None, None)
    }

    /// A keyspace over `inners` (one per shard, a power of two of them)
    /// hashing with `seed`.
    pub(crate) fn assemble(
        config: &KeyspaceConfig,
        clock: Arc<dyn Clock>,
        seed: u64,
        inners: Vec<ShardInner>,
        tier: Option<Arc<PmemTier>>,
        ssd: Option<Arc<SsdTier>>,
    ) -> Arc<Self> {
        let shards = inners.len();
        debug_assert!(shards.is_power_of_two());
        let used_total = Arc::new(CachePadded::new(AtomicU64::new(0)));
        let journal: JournalSlot = Arc::default();
        let shard_vec = inners
            .into_iter()
            .map(|inner| {
                CachePadded::new(Shard {
                    inner: RwLock::new(inner),
                    used_total: used_total.clone(),
                    journal: journal.clone(),
                    items: AtomicU64::new(0),
                    with_expiry: AtomicU64::new(0),
                    used: AtomicU64::new(0),
                    index_bytes: AtomicU64::new(0),
                    segments: AtomicU64::new(0),
                })
            })
            .collect();
        let ks = Arc::new_cyclic(|this| Self {
            ctx: Ctx {
                this: this.clone(),
                clock,
                seed,
                cas: AtomicU64::new(1),
                memory_limit: AtomicU64::new(config.memory_limit),
                eviction: AtomicU8::new(config.eviction.evicts() as u8),
                max_item_size: AtomicUsize::new(config.max_item_size),
                shards,
                used_total,
                journal,
                tier,
                ssd,
                counters: Counters::default(),
            },
            shards: shard_vec,
            flush_deadline: AtomicU64::new(0),
        });
        for shard in ks.shards.iter() {
            drop(shard.write()); // publish the initial mirrors
        }
        ks
    }

    /// From now on, hands every change to `journal` (see [`crate::journal`]).
    /// Call it once, after recovery has restored the keyspace; a second
    /// journal is refused and returned.
    pub fn attach_journal(&self, journal: Arc<dyn Journal>) -> Result<(), Arc<dyn Journal>> {
        self.ctx.journal.set(journal)
    }

    /// Per-operation access (one shard locked at a time).
    pub fn store(&self) -> SharedStore<'_> {
        SharedStore::new(self)
    }

    /// Runs `f` with every shard locked: no other caller's operation runs
    /// until it returns. `f` MUST NOT call back into this keyspace except
    /// through the given store (and MUST NOT drop a [`Watch`]).
    pub fn exclusive<R>(&self, f: impl FnOnce(&mut ExclusiveStore<'_>) -> R) -> R {
        self.run_due_flush();
        let mut store = ExclusiveStore::new(self.lock((0..self.shards.len()).collect()));
        f(&mut store)
    }

    /// Like [`exclusive`](Self::exclusive), holding only the shards of
    /// `keys` (locked in ascending order), so callers on other shards run
    /// meanwhile. `f` MUST touch only these keys for whole-keyspace
    /// operations (`len`, `scan`, `random_key`, `flush`) see only the held
    /// shards; a key outside them is locked late (see `LockedShards`).
    pub fn exclusive_keys<'k, R>(
        &self,
        keys: impl IntoIterator<Item = &'k [u8]>,
        f: impl FnOnce(&mut ExclusiveStore<'_>) -> R,
    ) -> R {
        self.run_due_flush();
        let shards = keys
            .into_iter()
            .map(|key| self.shard_index(self.ctx.hash(key)))
            .collect();
        let mut store = ExclusiveStore::new(self.lock(shards));
        f(&mut store)
    }

    /// Starts watching `key` for changes (Redis `WATCH`).
    pub fn watch(self: &Arc<Self>, key: &[u8]) -> Watch {
        let now = self.now_ms();
        let hash = self.ctx.hash(key);
        let mut shard = self.shard(hash).write();
        let version = shard.watches.register(key);
        let expires_at = shard
            .live_slot(hash, key, now)
            .and_then(|slot| shard.record_at(slot).header.expires_at);
        Watch {
            keyspace: self.clone(),
            key: key.into(),
            version,
            expires_at,
        }
    }

    pub(crate) fn unwatch(&self, key: &[u8]) {
        self.shard(self.ctx.hash(key))
            .write()
            .watches
            .unregister(key);
    }

    /// Current time per the keyspace's clock, Unix ms.
    pub fn now_ms(&self) -> u64 {
        self.ctx.now()
    }

    /// The keyspace's clock.
    pub fn clock(&self) -> &dyn Clock {
        &*self.ctx.clock
    }

    /// Memory limit in bytes (0: none).
    pub fn memory_limit(&self) -> u64 {
        self.ctx.memory_limit.load(Ordering::Relaxed)
    }

    /// Changes the memory limit; writes evict (or fail) until under it.
    pub fn set_memory_limit(&self, bytes: u64) {
        self.ctx.memory_limit.store(bytes, Ordering::Relaxed);
    }

    /// The eviction policy.
    pub fn eviction(&self) -> EvictionPolicy {
        self.ctx.eviction()
    }

    /// Changes the eviction policy.
    pub fn set_eviction(&self, policy: EvictionPolicy) {
        self.ctx
            .eviction
            .store(policy.evicts() as u8, Ordering::Relaxed);
    }

    /// Largest item accepted, in bytes.
    pub fn max_item_size(&self) -> usize {
        self.ctx.max_item_size()
    }

    /// Changes the largest item accepted.
    pub fn set_max_item_size(&self, bytes: usize) {
        self.ctx.max_item_size.store(bytes, Ordering::Relaxed);
    }

    /// Removes every item `delay_ms` from now (memcached `flush_all <delay>`);
    /// 0 flushes now. A later call replaces a pending one.
    ///
    /// A delayed flush is journaled when it runs, not when it is asked for:
    /// a restart before it falls due forgets it (as memcached does).
    pub fn flush_after(&self, delay_ms: u64) -> Result<(), KvError> {
        self.ctx.check_journal()?;
        // A flush that already fell due happened before this call.
        self.run_due_flush();
        if delay_ms == 0 {
            self.flush_deadline.store(0, Ordering::Relaxed);
            self.store().flush_now()?;
        } else {
            self.flush_deadline
                .store(self.now_ms().saturating_add(delay_ms), Ordering::Relaxed);
        }
        Ok(())
    }

    /// Runs a pending delayed flush if its time has come.
    pub(crate) fn run_due_flush(&self) {
        let due = self.flush_deadline.load(Ordering::Relaxed);
        if due != 0
            && self.now_ms() >= due
            && self
                .flush_deadline
                .compare_exchange(due, 0, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            if let Err(e) = self.store().flush_now() {
                tracing::error!(error = %e, "a delayed flush failed");
            }
        }
    }

    /// A snapshot of sizes and counters.
    pub fn stats(&self) -> KeyspaceStats {
        let sum = |f: fn(&Shard) -> &AtomicU64| -> u64 {
            self.shards
                .iter()
                .map(|s| f(s).load(Ordering::Relaxed))
                .sum()
        };
        let c = &self.ctx.counters;
        KeyspaceStats {
            items: sum(|s| &s.items),
            items_with_expiry: sum(|s| &s.with_expiry),
            used_memory: sum(|s| &s.used),
            memory_limit: self.memory_limit(),
            index_bytes: sum(|s| &s.index_bytes),
            segments: sum(|s| &s.segments),
            total_items: c.total_items.get(),
            evictions: c.evictions.get(),
            expired: c.expired.get(),
            hits: c.hits.get(),
            misses: c.misses.get(),
            compactions: c.compactions.get(),
        }
    }

    /// Frees memory in the shard with the most to give among those whose
    /// lock is free now: evicts its oldest segment in cache mode, compacts
    /// its most garbage-laden segment in store mode. Used when a writer's own
    /// shard has nothing left to free but the keyspace is over its limit.
    /// Never waits for a lock (the caller holds one).
    pub(crate) fn free_elsewhere(&self) -> bool {
        let evicts = self.eviction().evicts();
        let mut order: Vec<(u64, usize)> = self
            .shards
            .iter()
            .enumerate()
            .map(|(i, s)| (s.used.load(Ordering::Relaxed), i))
            .collect();
        order.sort_unstable_by(|a, b| b.cmp(a));
        for (_, i) in order {
            let Some(mut shard) = self.shards[i].try_write() else {
                continue;
            };
            let freed = if evicts {
                crate::eviction::clock::evict_oldest(&mut shard, &self.ctx, self.now_ms())
            } else {
                shard.compact_most_garbage(&self.ctx, 0.999)
            };
            if freed {
                return true;
            }
        }
        false
    }

    pub(crate) fn shard_count(&self) -> usize {
        self.shards.len()
    }

    pub(crate) fn shard_index(&self, hash: u64) -> usize {
        hash as usize & (self.shards.len() - 1)
    }

    pub(crate) fn shard(&self, hash: u64) -> &Shard {
        &self.shards[self.shard_index(hash)]
    }

    pub(crate) fn shard_at(&self, index: usize) -> &Shard {
        &self.shards[index]
    }

    /// Write-locks the shards in `indices` (sorted and deduplicated here, so
    /// locks are always taken in ascending order and cannot deadlock).
    pub(crate) fn lock(&self, mut indices: Vec<usize>) -> LockedShards<'_> {
        indices.sort_unstable();
        indices.dedup();
        LockedShards::new(self, indices)
    }
}
