//! Operations on a set of write-locked shards: the implementation behind
//! every multi-key operation and behind [`ExclusiveStore`](super::ExclusiveStore).
//!
//! Everything changed while the shards are held goes to the journal as one
//! record when they are released, so a multi-key operation or a `MULTI`
//! batch survives a crash whole or not at all.
//!
//! Here: taking the locks (in order, or late for a key the set was not
//! made for) and the one-key operations; `multi_key.rs` adds the
//! operations over several keys, `flush.rs` flushing the whole keyspace.

mod flush;
mod multi_key;

use super::core::Keyspace;
use super::shards::ShardWrite;
use crate::chunk::Namespace;
use crate::fetch;
use crate::index::Access;
use crate::item::{split_stored_flags, Deleted, ItemRef, Mutation, ValueKind};
use crate::shard::large::LargeEdit;
use crate::shard::large_read::LargeRead;
use crate::shard::{Removal, ShardInner};
use crate::KvError;

/// How long a late lock is tried without waiting before it waits.
const LATE_LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(1);

fn lock_late(ks: &Keyspace, idx: usize) -> ShardWrite<'_> {
    let started = std::time::Instant::now();
    loop {
        if let Some(guard) = ks.shard_at(idx).try_write() {
            return guard;
        }
        if started.elapsed() >= LATE_LOCK_PATIENCE {
            tracing::error!(
                shard = idx,
                "a transaction touched a key outside its declared keys and its shard stayed busy; waiting for it"
            );
            return ks.shard_at(idx).write();
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
}

impl Keyspace {
    /// Write-locks the shards in `indices` (sorted and deduplicated here, so
    /// locks are always taken in ascending order and cannot deadlock).
    pub(crate) fn lock(&self, mut indices: Vec<usize>) -> LockedShards<'_> {
        indices.sort_unstable();
        indices.dedup();
        LockedShards::new(self, indices)
    }
}

pub(crate) struct LockedShards<'a> {
    ks: &'a Keyspace,
    /// Sorted shard indices; `guards[i]` locks shard `indices[i]`.
    indices: Vec<usize>,
    guards: Vec<ShardWrite<'a>>,
    /// Changes collected from the guards (in the journal's format), to be
    /// appended as one record on release.
    batch: Vec<u8>,
    /// Multi-key operations are never re-run: values are read while
    /// blocking (see [`fetch`]).
    _blocking: fetch::Blocking,
}

impl<'a> LockedShards<'a> {
    pub fn new(ks: &'a Keyspace, indices: Vec<usize>) -> Self {
        let guards = indices.iter().map(|&i| ks.shard_at(i).write()).collect();
        Self {
            ks,
            indices,
            guards,
            batch: Vec::new(),
            _blocking: fetch::Blocking::enter(),
        }
    }

    pub fn keyspace(&self) -> &'a Keyspace {
        self.ks
    }

    /// The locked shard at position `pos` of the sorted set.
    pub fn at(&self, pos: usize) -> &ShardInner {
        &self.guards[pos]
    }

    pub fn len_locked(&self) -> usize {
        self.guards.len()
    }

    /// The position of `hash`'s shard in the set. A set made for some
    /// keys ([`Keyspace::exclusive_keys`]) may meet a key it was not made
    /// for (a command whose key specification misses a key): that shard is
    /// locked late, out of order, so without waiting (retried for up to
    /// [`LATE_LOCK_PATIENCE`]) before falling back to a blocking lock.
    fn position(&mut self, hash: u64) -> usize {
        let idx = self.ks.shard_index(hash);
        match self.indices.binary_search(&idx) {
            Ok(pos) => pos,
            Err(pos) => {
                let guard = lock_late(self.ks, idx);
                self.indices.insert(pos, idx);
                self.guards.insert(pos, guard);
                pos
            }
        }
    }

    /// Locks every shard not held yet (late, as [`position`](Self::position)
    /// does), for an operation over the whole keyspace by a set made for
    /// some keys.
    pub fn hold_all(&mut self) {
        let count = self.ks.shard_count();
        if self.indices.len() == count {
            return;
        }
        for idx in 0..count {
            if let Err(pos) = self.indices.binary_search(&idx) {
                let guard = lock_late(self.ks, idx);
                self.indices.insert(pos, idx);
                self.guards.insert(pos, guard);
            }
        }
    }

    /// The shard of `hash`, locked (late if need be).
    pub fn holding(&mut self, hash: u64) -> &ShardInner {
        let pos = self.position(hash);
        &self.guards[pos]
    }

    pub(super) fn shard(&mut self, hash: u64) -> &mut ShardInner {
        let pos = self.position(hash);
        &mut self.guards[pos]
    }

    pub fn get<R>(
        &mut self,
        key: &[u8],
        count: bool,
        f: impl FnOnce(ItemRef<'_>) -> R,
    ) -> Option<R> {
        let ks = self.ks;
        let ctx = &ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let pos = self.position(hash);
        let found = self.guards[pos]
            .get_with(ctx, hash, key, now, count, f)
            .ok()?;
        if found.is_none() {
            self.lazy_expire(key);
        }
        if count {
            match found {
                Some(_) => ctx.counters.hits.add(1),
                None => ctx.counters.misses.add(1),
            }
        }
        found
    }

    /// See [`Store::expiry`](crate::Store::expiry).
    pub fn expiry(&mut self, key: &[u8]) -> Option<Option<u64>> {
        let ks = self.ks;
        let ctx = &ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let pos = self.position(hash);
        let shard = &self.guards[pos];
        let found = shard
            .live_slot(hash, key, now)
            .map(|slot| shard.record_at(slot).header.expires_at);
        if found.is_none() {
            self.lazy_expire(key);
        }
        found
    }

    /// [`Store::signal_modified`](crate::Store::signal_modified) under
    /// the locks held.
    pub fn signal_modified(&mut self, key: &[u8]) {
        let hash = self.ks.ctx.hash(key);
        self.shard(hash).watches.touch(key);
        self.ks.ctx.changes.changed(key);
    }

    /// See [`Store::touch`](crate::Store::touch).
    pub fn touch(&mut self, key: &[u8]) -> bool {
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let pos = self.position(hash);
        let found = self.guards[pos].touch(ctx, hash, key, now);
        match found {
            true => ctx.counters.hits.add(1),
            false => ctx.counters.misses.add(1),
        }
        found
    }

    /// See [`Store::access`](crate::Store::access).
    pub fn access(&mut self, key: &[u8]) -> Option<Access> {
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let pos = self.position(hash);
        self.guards[pos].access(ctx, hash, key, now)
    }

    /// See [`Store::kind`](crate::Store::kind).
    pub fn kind(&mut self, key: &[u8]) -> Option<ValueKind> {
        let ks = self.ks;
        let (now, hash) = (ks.ctx.now(), ks.ctx.hash(key));
        let shard = self.holding(hash);
        let found = shard
            .live_slot(hash, key, now)
            .and_then(|slot| split_stored_flags(shard.record_at(slot).header.flags))
            .map(|(_, kind)| kind);
        if found.is_none() {
            self.lazy_expire(key);
        }
        found
    }

    /// Removes `key` if its entry is expired (and reports it), when a
    /// departure observer is set or the change observer listens, as `Keyspace::lazy_expire` does for
    /// the shared store.
    fn lazy_expire(&mut self, key: &[u8]) {
        let ks = self.ks;
        if !ks.ctx.departures.is_set() && !ks.ctx.changes.listening() {
            return;
        }
        let (now, hash) = (ks.ctx.now(), ks.ctx.hash(key));
        let shard = self.shard(hash);
        let slot = shard
            .lookup_record_in(Namespace::User, hash, key)
            .filter(|(_, rec)| rec.header.expires_at.is_some_and(|at| at <= now))
            .map(|(slot, _)| slot);
        if let Some(slot) = slot {
            // A removal the SSD tier refuses waits for a later attempt.
            let _ = shard.remove(&ks.ctx, slot, Removal::Expired);
        }
    }

    pub fn update<'v, R>(
        &mut self,
        key: &[u8],
        want_cas: bool,
        f: impl FnOnce(Option<ItemRef<'_>>) -> (Mutation<'v>, R),
    ) -> Result<(R, Option<u64>), KvError> {
        let ks = self.ks;
        let (now, hash) = (ks.ctx.now(), ks.ctx.hash(key));
        self.shard(hash)
            .update(&ks.ctx, hash, key, now, want_cas, f)
    }

    /// See [`Store::edit_large`](crate::Store::edit_large).
    pub fn edit_large<R>(
        &mut self,
        key: &[u8],
        f: impl FnOnce(&mut LargeEdit<'_>) -> R,
    ) -> Result<R, KvError> {
        let ks = self.ks;
        let (now, hash) = (ks.ctx.now(), ks.ctx.hash(key));
        let shard = self.shard(hash);
        let mut edit = LargeEdit::open(shard, &ks.ctx, key, hash, now)?;
        Ok(f(&mut edit))
    }

    /// See [`Store::read_large`](crate::Store::read_large).
    pub fn read_large<R>(&mut self, key: &[u8], f: impl FnOnce(&mut LargeRead<'_>) -> R) -> R {
        let ks = self.ks;
        let (now, hash) = (ks.ctx.now(), ks.ctx.hash(key));
        let shard = self.holding(hash);
        let result = f(&mut LargeRead::open(shard, &ks.ctx, key, hash, now));
        self.lazy_expire(key);
        result
    }

    pub fn delete(&mut self, key: &[u8]) -> Result<Deleted, KvError> {
        let (found, _) = self.update(key, false, |item| (Mutation::Delete, item.is_some()))?;
        Ok(match found {
            true => Deleted::Removed,
            false => Deleted::Missing,
        })
    }

    /// Moves the guards' pending changes into the batch. Changes of
    /// different shards concern different keys, so their relative order
    /// does not matter; only the order relative to a flush does.
    fn collect(&mut self) {
        for guard in &mut self.guards {
            self.batch.append(&mut guard.journal_buf);
        }
    }
}

impl Drop for LockedShards<'_> {
    fn drop(&mut self) {
        // Still holding every guard: one record, in apply order.
        self.collect();
        self.ks.ctx.append_journal(&mut self.batch);
    }
}
