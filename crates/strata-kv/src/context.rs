//! The state every shard operation needs besides the shard itself
//! ([`Ctx`]): clock, hash seed, CAS counter, live settings, the journal
//! slot, the tiers and the counters. A leaf below the shards and the
//! keyspace: the keyspace is reached only through [`FreeElsewhere`].

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use crossbeam_utils::CachePadded;

use crate::changes::Changes;
use crate::clock::Clock;
use crate::config::KeyspaceConfig;
use crate::departures::Departures;
use crate::eviction::EvictionPolicy;
use crate::groups::GroupCounts;
use crate::journal::{append, Journal, Refusal};
use crate::stats::{Counters, UsedTotal};
use crate::tier::{PmemTier, SsdTier};
use crate::KvError;

/// State every shard operation needs besides the shard itself.
pub(crate) struct Ctx {
    /// The keyspace this context belongs to, for freeing memory in other
    /// shards (`Keyspace::free_elsewhere`).
    this: Weak<dyn FreeElsewhere>,
    clock: Arc<dyn Clock>,
    /// When this keyspace started (clock seconds): the zero of the index's
    /// access times.
    start_secs: u64,
    seed: u64,
    cas: AtomicU64,
    memory_limit: AtomicU64,
    /// Background maintenance reclaims expired items (Redis's active
    /// expiry; `DEBUG SET-ACTIVE-EXPIRE 0` turns it off).
    active_expire: AtomicBool,
    eviction: AtomicU8,
    max_item_size: AtomicUsize,
    shards: usize,
    /// Sum of every shard's published `used_bytes`, and its peak.
    used_total: Arc<CachePadded<UsedTotal>>,
    /// Where changes are logged, once attached (after recovery).
    journal: JournalSlot,
    /// The persistent arena, when the placement uses it.
    pub tier: Option<Arc<PmemTier>>,
    /// The SSD tier, when records live there (`data = ssd`).
    pub ssd: Option<Arc<SsdTier>>,
    pub counters: Counters,
    /// Told of every change to a user key (see `changes`).
    pub changes: Changes,
    /// Told of each item that expires or is evicted.
    pub departures: Departures,
    /// Group sizes, once key groups are on (see `groups`).
    pub groups: OnceLock<Arc<GroupCounts>>,
}

/// Frees memory in some shard other than the caller's (the keyspace,
/// seen from below: a shard holds only this context, never the keyspace).
pub(crate) trait FreeElsewhere: Send + Sync {
    /// Tries to free memory in another shard whose lock is free now; never
    /// waits for a lock (the caller holds one). True if something was freed.
    fn free_elsewhere(&self) -> bool;
}

/// The journal, shared by the context and every shard's lock guard.
pub(crate) type JournalSlot = Arc<OnceLock<Arc<dyn Journal>>>;

impl Ctx {
    /// A context for `shards` shards configured by `config`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        this: Weak<dyn FreeElsewhere>,
        config: &KeyspaceConfig,
        clock: Arc<dyn Clock>,
        seed: u64,
        shards: usize,
        used_total: Arc<CachePadded<UsedTotal>>,
        journal: JournalSlot,
        tier: Option<Arc<PmemTier>>,
        ssd: Option<Arc<SsdTier>>,
    ) -> Self {
        Self {
            this,
            start_secs: clock.now_secs(),
            clock,
            seed,
            cas: AtomicU64::new(1),
            memory_limit: AtomicU64::new(config.memory_limit),
            active_expire: AtomicBool::new(true),
            eviction: AtomicU8::new(u8::from(config.eviction.evicts())),
            max_item_size: AtomicUsize::new(config.max_item_size),
            shards,
            used_total,
            journal,
            tier,
            ssd,
            counters: Counters::default(),
            changes: Changes::default(),
            departures: Departures::default(),
            groups: OnceLock::new(),
        }
    }

    /// The clock.
    pub fn clock(&self) -> &dyn Clock {
        &*self.clock
    }

    /// The configured memory limit (0: none).
    pub fn memory_limit(&self) -> u64 {
        self.memory_limit.load(Ordering::Relaxed)
    }

    pub fn set_memory_limit(&self, bytes: u64) {
        self.memory_limit.store(bytes, Ordering::Relaxed);
    }

    /// Whether maintenance reclaims expired items nobody reads.
    pub fn active_expire(&self) -> bool {
        self.active_expire.load(Ordering::Relaxed)
    }

    pub fn set_active_expire(&self, on: bool) {
        self.active_expire.store(on, Ordering::Relaxed);
    }

    pub fn set_eviction(&self, policy: EvictionPolicy) {
        self.eviction
            .store(u8::from(policy.evicts()), Ordering::Relaxed);
    }

    pub fn set_max_item_size(&self, bytes: usize) {
        self.max_item_size.store(bytes, Ordering::Relaxed);
    }

    /// Attaches the journal; a second one is refused and returned.
    pub fn attach_journal(&self, journal: Arc<dyn Journal>) -> Result<(), Arc<dyn Journal>> {
        self.journal.set(journal)
    }

    pub fn now(&self) -> u64 {
        self.clock.now_ms()
    }

    /// `now_ms` as the index's access times count: whole seconds since the
    /// keyspace started.
    pub fn access_secs(&self, now_ms: u64) -> u32 {
        crate::index::since_start(now_ms / 1000, self.start_secs)
    }

    /// The seed of every key hash.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash of a user key.
    pub fn hash(&self, key: &[u8]) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(key, self.seed)
    }

    /// The hash of `key` in `ns` (a chunk's shard is its owner's).
    pub fn hash_in(&self, ns: crate::chunk::Namespace, key: &[u8]) -> u64 {
        crate::chunk::hash_in(self.seed, ns, key)
    }

    /// The hash of a record's key, its namespace read from its flags.
    pub fn record_hash(&self, rec: &crate::arena::Record<'_>) -> u64 {
        crate::chunk::record_hash(self.seed, rec.key(), rec.header.flags)
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
        self.used_total.get()
    }

    /// The highest [`used_total`](Self::used_total) has been.
    pub fn used_peak(&self) -> u64 {
        self.used_total.peak()
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
                Refusal::Failed(cause) => KvError::NotDurable { cause },
                Refusal::Stalled(cause) => KvError::JournalStalled { cause },
            }),
            None => Ok(()),
        }
    }

    /// Appends `body` (a batch of changes) to the journal, if any.
    pub fn append_journal(&self, body: &mut Vec<u8>) {
        append_to(&self.journal, body);
    }
}

pub(crate) fn append_to(slot: &JournalSlot, body: &mut Vec<u8>) {
    if body.is_empty() {
        return;
    }
    match slot.get() {
        Some(journal) => append(&**journal, body),
        None => body.clear(),
    }
}
