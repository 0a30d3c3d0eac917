//! Applying changes from a snapshot or the log (recovery). These paths
//! keep each item's CAS version, never log (recovery runs before a journal
//! is attached) and count what they could not restore.
//!
//! Items are restored even when their expiry has passed by the time of
//! recovery: a later record may change the expiry (`PERSIST`, `touch`)
//! and must find the item, as it did when it was written. Expired items
//! stay invisible and are reclaimed by maintenance as usual.

use super::change::BadChange;
use super::change::{Change, Changes};
use crate::chunk::Namespace;
use crate::keyspace::Keyspace;
use crate::shard::Removal;
use crate::KvError;

/// What a recovery pass applied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Restored {
    /// Changes (or snapshot items) applied.
    pub applied: u64,
    /// Items not restored because they did not fit: over `max_item_size`, or
    /// over the memory limit in store mode. Cache mode evicts instead.
    pub refused: u64,
}

impl Restored {
    /// Adds another pass's counts.
    pub fn add(&mut self, other: Restored) {
        self.applied += other.applied;
        self.refused += other.refused;
    }
}

impl Keyspace {
    /// Sizes the index for about `items` more items, spread over the
    /// shards, so recovery does not rehash the table as it grows. Bounded so
    /// the index never takes more than a quarter of the memory limit.
    pub fn reserve_items(&self, items: u64) {
        let ctx = &self.ctx;
        // ~10 bytes of index per item at the maximum load.
        let cap = match self.memory_limit() {
            0 => items,
            limit => items.min(limit / 4 / 10),
        };
        let per_shard = usize::try_from(cap / self.shard_count() as u64).unwrap_or(usize::MAX);
        for i in 0..self.shard_count() {
            let mut shard = self.shard_at(i).write();
            let shard = &mut *shard;
            let arena = &shard.arena;
            shard
                .index
                .reserve(per_shard, |loc| ctx.record_hash(&arena.record(loc)));
        }
    }

    /// Stores an item exactly as given (CAS included, expired or not), as
    /// recovery does with a snapshot's items and logged puts.
    pub fn restore_item(
        &self,
        key: &[u8],
        value: &[u8],
        flags: u64,
        cas: u64,
        expires_at: Option<u64>,
    ) -> Result<(), KvError> {
        let ctx = &self.ctx;
        let now = ctx.now();
        let hash = crate::chunk::record_hash(ctx.seed(), key, flags);
        let mut shard = self.shard(hash).write();
        // New CAS versions must stay above every restored one.
        ctx.raise_cas_above(cas);
        shard.put(ctx, hash, key, &[value], flags, expires_at, cas, now)
    }

    /// Applies the changes of one log record body in order.
    pub fn apply_changes(&self, changes: Changes<'_>) -> Result<Restored, BadChange> {
        let mut done = Restored::default();
        for change in changes {
            match self.apply_change(&change?) {
                Ok(()) => done.applied += 1,
                Err(_) => done.refused += 1,
            }
        }
        Ok(done)
    }

    fn apply_change(&self, change: &Change<'_>) -> Result<(), KvError> {
        let ctx = &self.ctx;
        match *change {
            Change::Put {
                key,
                value,
                flags,
                cas,
                expires_at,
            } => self.restore_item(key, value, flags, cas, expires_at),
            Change::Delete { key } => self.replay_delete(Namespace::User, key),
            Change::DeleteChunk { key } => self.replay_delete(Namespace::Chunk, key),
            Change::Expire { key, expires_at } => {
                let (now, hash) = (ctx.now(), ctx.hash(key));
                let mut shard = self.shard(hash).write();
                let Some(slot) = shard.lookup(hash, key) else {
                    return Ok(());
                };
                // The item was live when this change was made, even if its
                // old expiry has passed since. The new expiry is kept even
                // if it has passed by now: a later change (`PERSIST`,
                // `touch`) may lift it again, as it did when it was written.
                shard.rewrite(ctx, hash, key, slot, expires_at, now)
            }
            Change::Flush => self.store().flush_now(),
        }
    }

    fn replay_delete(&self, ns: Namespace, key: &[u8]) -> Result<(), KvError> {
        let ctx = &self.ctx;
        let hash = ctx.hash_in(ns, key);
        let mut shard = self.shard(hash).write();
        match shard.lookup_in(ns, hash, key) {
            Some(slot) => shard.remove(ctx, slot, Removal::Deleted),
            None => Ok(()),
        }
    }
}
