//! [`Keyspace`]: the shards, their selection by hash, the live settings
//! and the stats snapshot. The ways of locking them are above it
//! (`locked/`, `shared.rs`, `exclusive.rs`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use crossbeam_utils::CachePadded;

use super::gate::EntryGate;
use super::shards::Shard;
use crate::clock::Clock;
use crate::config::{segment_size_for, KeyspaceConfig};
use crate::context::{Ctx, FreeElsewhere, JournalSlot};
use crate::eviction::EvictionPolicy;
use crate::journal::Journal;
use crate::maintenance::CatchUpBudget;
use crate::shard::ShardInner;
use crate::stats::{KeyspaceStats, UsedTotal};
use crate::tier::{PmemTier, SsdTier};

/// The keyspace shared by every front end.
pub struct Keyspace {
    pub(crate) ctx: Ctx,
    shards: Box<[CachePadded<Shard>]>,
    /// Unix ms at which a delayed `flush_all` runs; 0 when none is pending
    /// (`locked/flush.rs` runs it).
    pub(super) flush_deadline: AtomicU64,
    /// How far a maintenance pass may catch up on compaction.
    catch_up: CatchUpBudget,
    /// Run before each write with no shard lock held, to make room in a
    /// tier whose reclaim is behind. Set once by the layer that opens the
    /// keyspace (the SSD tier's, `open/reclaim.rs`), which lies above it.
    room_hook: OnceLock<fn(&Keyspace)>,
    /// Kept closed by sections that hold every shard for long.
    pub(super) gate: EntryGate,
}

impl std::fmt::Debug for Keyspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keyspace")
            .field("shards", &self.shards.len())
            .finish_non_exhaustive()
    }
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
        let used_total = Arc::new(CachePadded::new(UsedTotal::default()));
        let journal: JournalSlot = Arc::default();
        let shard_vec = inners
            .into_iter()
            .map(|inner| CachePadded::new(Shard::new(inner, used_total.clone(), journal.clone())))
            .collect();
        let ks = Arc::new_cyclic(|this: &Weak<Self>| Self {
            ctx: Ctx::new(
                this.clone() as Weak<dyn FreeElsewhere>,
                config,
                clock,
                seed,
                shards,
                used_total,
                journal,
                tier,
                ssd,
            ),
            shards: shard_vec,
            flush_deadline: AtomicU64::new(0),
            catch_up: config.catch_up,
            room_hook: OnceLock::new(),
            gate: EntryGate::default(),
        });
        for shard in ks.shards.iter() {
            drop(shard.write()); // publish the initial mirrors
        }
        ks
    }

    /// Sets the hook run before each write (see the field); a second one
    /// is ignored.
    pub(crate) fn set_room_hook(&self, hook: fn(&Keyspace)) {
        let _ = self.room_hook.set(hook);
    }

    /// What every write does first, with no shard lock held: runs a due
    /// delayed flush and the room hook.
    pub(crate) fn before_write(&self) {
        self.run_due_flush();
        if let Some(hook) = self.room_hook.get() {
            hook(self);
        }
    }

    /// Adds an observer told of each item that expires or is evicted (see
    /// [`crate::departures`] for its contract); returns its id. While one
    /// is added, a read that finds an expired item removes it.
    pub fn add_departure_observer(
        &self,
        observer: Arc<dyn crate::departures::DepartureObserver>,
    ) -> crate::departures::ObserverId {
        self.ctx.departures.add(observer)
    }

    /// Removes the departure observer `id`; false when there was none.
    pub fn remove_departure_observer(&self, id: crate::departures::ObserverId) -> bool {
        self.ctx.departures.remove(id)
    }

    /// From now on, hands every change to `journal` (see [`crate::journal`]).
    /// Call it once, after recovery has restored the keyspace; a second
    /// journal is refused and returned.
    pub fn attach_journal(&self, journal: Arc<dyn Journal>) -> Result<(), Arc<dyn Journal>> {
        self.ctx.attach_journal(journal)
    }

    /// Current time per the keyspace's clock, Unix ms.
    pub fn now_ms(&self) -> u64 {
        self.ctx.now()
    }

    /// The keyspace's clock.
    pub fn clock(&self) -> &dyn Clock {
        self.ctx.clock()
    }

    /// Memory limit in bytes (0: none).
    pub fn memory_limit(&self) -> u64 {
        self.ctx.memory_limit()
    }

    /// Changes the memory limit; writes evict (or fail) until under it.
    pub fn set_memory_limit(&self, bytes: u64) {
        self.ctx.set_memory_limit(bytes);
    }

    /// Whether background maintenance reclaims expired items (on unless
    /// turned off; reads and writes still expire what they meet).
    pub fn active_expire(&self) -> bool {
        self.ctx.active_expire()
    }

    /// Turns the background reclaiming of expired items on or off.
    pub fn set_active_expire(&self, on: bool) {
        self.ctx.set_active_expire(on);
    }

    /// The eviction policy.
    pub fn eviction(&self) -> EvictionPolicy {
        self.ctx.eviction()
    }

    /// Changes the eviction policy.
    pub fn set_eviction(&self, policy: EvictionPolicy) {
        self.ctx.set_eviction(policy);
    }

    /// Largest item accepted, in bytes.
    pub fn max_item_size(&self) -> usize {
        self.ctx.max_item_size()
    }

    /// Changes the largest item accepted.
    pub fn set_max_item_size(&self, bytes: usize) {
        self.ctx.set_max_item_size(bytes);
    }

    /// How far a maintenance pass may compact past its usual quota.
    pub fn catch_up_budget(&self) -> CatchUpBudget {
        self.catch_up
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
            used_memory_peak: self.ctx.used_peak(),
            used_memory_startup: (self.shards.len() * ShardInner::EMPTY_BYTES) as u64,
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
}

impl FreeElsewhere for Keyspace {
    /// Frees memory in the shard with the most to give among those whose
    /// lock is free now: evicts its oldest segment in cache mode, compacts
    /// its most garbage-laden segment in store mode. Used when a writer's own
    /// shard has nothing left to free but the keyspace is over its limit.
    /// Never waits for a lock (the caller holds one).
    fn free_elsewhere(&self) -> bool {
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
}
