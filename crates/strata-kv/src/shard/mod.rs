//! One shard of the keyspace: an [`Index`] over an [`Arena`], plus the watch
//! table, all behind the shard's lock (held by the caller).
//!
//! Invariant: an index entry points at the newest record of its key; every
//! other record of that key is garbage, already subtracted from its segment's
//! live bytes. Every change of a key bumps its watch version.

mod chunks;
mod classes;
mod copy;
mod footprint;
mod in_place;
mod item_info;
pub(crate) mod large;
pub(crate) mod large_read;
mod mutate;
mod put;
mod recount;
pub(crate) mod room;
pub(crate) mod scan;
pub(crate) mod ssd;
pub(crate) mod ssd_adopt;
mod watches;

use crate::arena::{Arena, Record};
use crate::chunk::{ring_of, Namespace};
use crate::context::Ctx;
use crate::departures::Departure;
use crate::groups::ShardGroups;
use crate::index::{Access, Index};
use crate::item::{split_stored_flags, string_form, ItemRef};
use crate::journal::change;
use crate::KvError;
pub use footprint::Footprint;
pub use item_info::ItemInfo;
use watches::WatchTable;

/// Why an item left the index (for the counters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Removal {
    Deleted,
    Expired,
    Evicted,
}

pub(crate) struct ShardInner {
    pub index: Index,
    pub arena: Arena,
    pub watches: WatchTable,
    /// Items whose record carries an expiry (Redis `INFO keyspace` expires=).
    pub with_expiry: usize,
    /// Reused buffer for copying a record within the arena.
    scratch: Vec<u8>,
    /// Segment position where the expiry reclaimer resumes.
    pub expire_cursor: usize,
    /// Background compaction in progress: (segment, offset of the next record).
    pub compaction: Option<(u32, usize)>,
    /// `used_bytes()` as last added to the keyspace-wide total.
    pub published_used: usize,
    /// Changes made under the current write lock, in the journal's format,
    /// appended to the journal when the lock is released (`ShardWrite`).
    pub journal_buf: Vec<u8>,
    /// Segment usage is still to be recounted (`recount`) after a restart.
    pub pending_recount: bool,
    /// Index entries that are chunks of large collections (not items).
    pub chunks: usize,
    /// The key a [`large::LargeEdit`] is changing: eviction (which a write
    /// of the edit may start) keeps its head and chunks.
    pub pinned: Pinned,
    /// This shard's user keys by group, once key groups are on (see
    /// `groups`): follows every user entry linked, removed or cleared.
    pub groups: Option<ShardGroups>,
}

/// The key pinned by the edit under way, in a buffer kept across edits
/// (each edit pins one; none allocates once the buffer is as long as the
/// longest key edited).
#[derive(Debug, Default)]
pub struct Pinned {
    key: Vec<u8>,
    active: bool,
}

impl Pinned {
    /// Pins `key`.
    pub fn set(&mut self, key: &[u8]) {
        self.key.clear();
        self.key.extend_from_slice(key);
        self.active = true;
    }

    /// Unpins.
    pub fn clear(&mut self) {
        self.active = false;
    }

    /// The pinned key, if any.
    pub fn key(&self) -> Option<&[u8]> {
        self.active.then_some(&self.key[..])
    }
}

fn is_expired(expires_at: Option<u64>, now: u64) -> bool {
    expires_at.is_some_and(|at| at <= now)
}

impl ShardInner {
    /// What a shard holds without any item: its index at its smallest
    /// (its arena has nothing written).
    pub const EMPTY_BYTES: usize = crate::index::EMPTY_BYTES;

    pub fn new(segment_size: usize) -> Self {
        Self::with_parts(Index::new(), Arena::new(segment_size), 0, 0)
    }

    /// A shard over an index and arena restored at start, holding
    /// `chunks` chunk entries ([`count_chunks`](Self::count_chunks)).
    pub fn with_parts(index: Index, arena: Arena, with_expiry: usize, chunks: usize) -> Self {
        Self {
            index,
            arena,
            watches: WatchTable::default(),
            with_expiry,
            scratch: Vec::new(),
            expire_cursor: 0,
            compaction: None,
            published_used: 0,
            journal_buf: Vec::new(),
            pending_recount: false,
            chunks,
            pinned: Pinned::default(),
            groups: None,
        }
    }

    /// Bytes this shard holds against the memory limit.
    pub fn used_bytes(&self) -> usize {
        let groups = self.groups.as_ref().map_or(0, ShardGroups::bytes);
        self.arena.written_bytes() + self.index.bytes() + groups
    }

    /// The slot of user key `key`'s entry, live or expired.
    pub fn lookup(&self, hash: u64, key: &[u8]) -> Option<usize> {
        self.lookup_in(Namespace::User, hash, key)
    }

    /// The slot of `key`'s entry in `ns`: keys compare with their namespace.
    pub fn lookup_in(&self, ns: Namespace, hash: u64, key: &[u8]) -> Option<usize> {
        self.lookup_record_in(ns, hash, key).map(|(slot, _)| slot)
    }

    /// The slot of `key`'s entry in `ns` and its record, decoded once.
    pub fn lookup_record_in(
        &self,
        ns: Namespace,
        hash: u64,
        key: &[u8],
    ) -> Option<(usize, Record<'_>)> {
        let arena = &self.arena;
        let mut found = None;
        let slot = self.index.find(hash, |loc| {
            let rec = arena.record(loc);
            let hit = rec.key() == key && Namespace::of(rec.header.flags) == ns;
            if hit {
                found = Some(rec);
            }
            hit
        })?;
        found.map(|rec| (slot, rec))
    }

    /// Starts loading what a lookup of `hash` reads first: its index
    /// slots. A hint, as [`prefetch_record`](Self::prefetch_record) is.
    pub fn prefetch_slot(&self, hash: u64) {
        self.index.prefetch(hash);
    }

    /// Starts loading the record a lookup of `hash` most likely compares
    /// with its key (best after [`prefetch_slot`](Self::prefetch_slot) had
    /// time to bring the slot in).
    pub fn prefetch_record(&self, hash: u64) {
        if let Some(loc) = self.index.likely_loc(hash) {
            self.arena.prefetch(loc);
        }
    }

    pub fn record_at(&self, slot: usize) -> Record<'_> {
        self.arena.record(self.index.loc(slot))
    }

    /// The slot of `key`'s live item (no value is read).
    pub fn live_slot(&self, hash: u64, key: &[u8], now: u64) -> Option<usize> {
        self.live_record(hash, key, now).map(|(slot, _)| slot)
    }

    /// The slot of `key`'s live item and its record.
    pub fn live_record(&self, hash: u64, key: &[u8], now: u64) -> Option<(usize, Record<'_>)> {
        self.lookup_record_in(Namespace::User, hash, key)
            .filter(|(_, rec)| !is_expired(rec.header.expires_at, now))
    }

    /// Calls `f` with the live item for `key` (read path; marks access if
    /// asked). `Ok(None)` when there is none; an error when its value
    /// cannot be read now (see [`fetch`](crate::fetch)).
    pub fn get_with<R>(
        &self,
        ctx: &Ctx,
        hash: u64,
        key: &[u8],
        now: u64,
        mark: bool,
        f: impl FnOnce(ItemRef<'_>) -> R,
    ) -> Result<Option<R>, KvError> {
        let Some((slot, rec)) = self.live_record(hash, key, now) else {
            return Ok(None);
        };
        let found = self.with_record(ctx, &rec, f)?;
        if mark && crate::untouched::touching() {
            self.index.mark_accessed(slot, ctx.access_secs(now));
        }
        Ok(Some(found))
    }

    /// Marks `key`'s live item accessed, as a read does, without reading
    /// its value; false when there is none.
    pub fn touch(&self, ctx: &Ctx, hash: u64, key: &[u8], now: u64) -> bool {
        let Some(slot) = self.live_slot(hash, key, now) else {
            return false;
        };
        self.index.mark_accessed(slot, ctx.access_secs(now));
        true
    }

    /// How `key`'s live item has been used, without counting an access.
    pub fn access(&self, ctx: &Ctx, hash: u64, key: &[u8], now: u64) -> Option<Access> {
        let slot = self.live_slot(hash, key, now)?;
        Some(self.index.access(slot, ctx.access_secs(now)))
    }

    /// Removes the entry in `slot` and accounts for why. With the SSD tier
    /// the removal is refused (nothing changes) if its tombstone cannot be
    /// written.
    pub fn remove(&mut self, ctx: &Ctx, slot: usize, why: Removal) -> Result<(), KvError> {
        let loc = self.index.loc(slot);
        let ns = Namespace::of(self.arena.record(loc).header.flags);
        if let Some(ssd) = &ctx.ssd {
            let rec = self.arena.record(loc);
            ssd.append_tombstone(rec.key(), ns)?;
            Self::release_value(ssd, &rec, ctx.record_hash(&rec));
        }
        let rec = self.arena.record(loc);
        let len = rec.len();
        if rec.header.expires_at.is_some() {
            self.with_expiry -= 1;
        }
        if ctx.journaling() {
            change::encode_delete_in(&mut self.journal_buf, ns, rec.key());
        }
        // A large collection's chunks go with its head.
        let owned = ring_of(rec.header.flags).map(|ring| (rec.key().to_vec(), ring));
        match ns {
            Namespace::User => {
                self.watches.touch(rec.key());
                ctx.changes.changed(rec.key());
                if let Some(groups) = &mut self.groups {
                    groups.remove(rec.key(), ctx.record_hash(&rec));
                }
            }
            Namespace::Chunk => self.chunks -= 1,
        }
        // Per-class counters are memcached's view: users' items only.
        if ns == Namespace::User {
            self.count_removal(ctx, slot, why);
            match why {
                Removal::Deleted => {}
                Removal::Expired => ctx.departures.report(rec.key(), Departure::Expired),
                Removal::Evicted => ctx.departures.report(rec.key(), Departure::Evicted),
            }
        }
        self.index.remove(slot);
        self.arena.release(loc, len);
        match (ns, why) {
            (Namespace::Chunk, _) | (_, Removal::Deleted) => {}
            (_, Removal::Expired) => ctx.counters.expired.add(1),
            (_, Removal::Evicted) => ctx.counters.evictions.add(1),
        }
        match owned {
            Some((key, ring)) => self.drop_chunks(ctx, &key, ring.without(None)),
            None => Ok(()),
        }
    }

    /// Removes every item. With the SSD tier, the caller appended the
    /// keyspace's flush marker first.
    pub fn clear(&mut self, ctx: &Ctx) {
        if let Some(ssd) = &ctx.ssd {
            self.release_all_ssd(ctx, ssd);
        }
        // Only watched keys that exist change (Redis 7): a transaction
        // watching a missing key still runs after a flush.
        let now = ctx.now();
        let removed: Vec<Box<[u8]>> = self
            .watches
            .watched()
            .filter(|key| self.live_slot(ctx.hash(key), key, now).is_some())
            .map(Box::from)
            .collect();
        for key in removed {
            self.watches.touch(&key);
        }
        if let Some(groups) = &mut self.groups {
            groups.clear();
        }
        self.index.clear();
        self.arena.clear();
        self.with_expiry = 0;
        self.chunks = 0;
        self.expire_cursor = 0;
        self.compaction = None;
    }

    /// Unmaps segment `seg`, which no index entry may point into any more.
    pub fn free_segment(&mut self, seg: u32) {
        if self.compaction.is_some_and(|(s, _)| s == seg) {
            self.compaction = None;
        }
        self.arena.free(seg);
    }
}

/// The caller-facing view of a record.
pub(crate) fn item_ref<'a>(rec: &Record<'a>) -> ItemRef<'a> {
    // Record decoding refuses kinds this build does not know.
    let (flags, kind) = split_stored_flags(rec.header.flags).unwrap_or_default();
    ItemRef {
        key: rec.key(),
        value: rec.value(),
        kind,
        flags,
        form: string_form(rec.header.flags),
        cas: rec.header.cas,
        expires_at: rec.header.expires_at,
    }
}
