//! Operations on a set of write-locked shards: the implementation behind
//! every multi-key operation and behind [`ExclusiveStore`](super::ExclusiveStore).
//!
//! Everything changed while the shards are held goes to the journal as one
//! record when they are released, so a multi-key operation or a `MULTI`
//! batch survives a crash whole or not at all.

use std::sync::atomic::Ordering;

use super::core::Keyspace;
use super::shards::ShardWrite;
use crate::arena::header_len;
use crate::fetch;
use crate::index::Access;
use crate::item::{split_stored_flags, Deleted, ItemRef, Mutation, NewItem, ValueKind};
use crate::journal::change;
use crate::shard::large::LargeEdit;
use crate::shard::large_read::LargeRead;
use crate::shard::ShardInner;
use crate::store::{PairDecision, Renamed};
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

    /// Removes every item now, with every shard locked.
    pub(crate) fn flush_now(&self) -> Result<(), KvError> {
        self.lock((0..self.shard_count()).collect()).clear()
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
            self.flush_now()?;
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
            if let Err(e) = self.flush_now() {
                tracing::error!(error = %e, "a delayed flush failed");
            }
        }
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
        let slot = shard.live_slot(hash, key, now)?;
        Some(shard.record_at(slot).header.expires_at)
    }

    /// See [`Store::access`](crate::Store::access).
    pub fn access(&mut self, key: &[u8]) -> Option<Access> {
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let pos = self.position(hash);
        self.guards[pos].access(ctx, hash, key, now)
    }

    /// See [`Store::update_pair`](crate::Store::update_pair). Both values
    /// are copied before `f` runs, so the two reads never hold two records.
    pub fn update_pair<R>(
        &mut self,
        a: &[u8],
        b: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>, Option<ItemRef<'_>>) -> PairDecision<R>,
    ) -> Result<R, KvError> {
        let copy = |item: ItemRef<'_>| {
            (
                item.key.to_vec(),
                item.value.to_vec(),
                item.kind,
                item.flags,
                item.cas,
                item.expires_at,
            )
        };
        let old_a = self.get(a, true, copy);
        let old_b = self.get(b, true, copy);
        type Copied = (Vec<u8>, Vec<u8>, ValueKind, u32, u64, Option<u64>);
        fn view(c: &Copied) -> ItemRef<'_> {
            let (key, value, kind, flags, cas, expires_at) = c;
            ItemRef {
                key,
                value,
                kind: *kind,
                flags: *flags,
                cas: *cas,
                expires_at: *expires_at,
            }
        }
        let (ma, mb, result) = f(old_a.as_ref().map(view), old_b.as_ref().map(view));
        self.update(a, false, |_| (ma, ()))?;
        self.update(b, false, |_| (mb, ()))?;
        Ok(result)
    }

    /// See [`Store::kind`](crate::Store::kind).
    pub fn kind(&mut self, key: &[u8]) -> Option<ValueKind> {
        let ks = self.ks;
        let (now, hash) = (ks.ctx.now(), ks.ctx.hash(key));
        let shard = self.holding(hash);
        let slot = shard.live_slot(hash, key, now)?;
        let (_, kind) = split_stored_flags(shard.record_at(slot).header.flags)?;
        Some(kind)
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
        f(&mut LargeRead::open(shard, &ks.ctx, key, hash, now))
    }

    pub fn delete(&mut self, key: &[u8]) -> Result<Deleted, KvError> {
        let (found, _) = self.update(key, false, |item| (Mutation::Delete, item.is_some()))?;
        Ok(match found {
            true => Deleted::Removed,
            false => Deleted::Missing,
        })
    }

    pub fn set_many(
        &mut self,
        items: &[(&[u8], NewItem<'_>)],
        only_if_none_exist: bool,
    ) -> Result<bool, KvError> {
        let ks = self.ks;
        let ctx = &ks.ctx;
        let now = ctx.now();
        let limit = ctx.max_item_size();
        // Every shard held first: positions stay put while sizing.
        for (key, _) in items {
            self.position(ctx.hash(key));
        }
        // Check everything before changing anything.
        let mut need = vec![0usize; self.guards.len()];
        for (key, item) in items {
            let hash = ctx.hash(key);
            let len = header_len(
                key.len(),
                item.value.len(),
                u64::MAX,
                u64::from(item.flags),
                item.expires_at,
            ) + key.len()
                + item.value.len();
            if len > limit {
                return Err(KvError::TooLarge { size: len, limit });
            }
            let pos = self.position(hash);
            if only_if_none_exist && self.guards[pos].live_slot(hash, key, now).is_some() {
                return Ok(false);
            }
            need[pos] += len;
        }
        for (pos, bytes) in need.into_iter().enumerate() {
            if bytes > 0 {
                self.guards[pos].ensure_room(ctx, bytes, now)?;
            }
        }
        for (key, item) in items {
            self.update(key, false, |_| (Mutation::Put(item.clone()), ()))?;
        }
        Ok(true)
    }

    pub fn rename(
        &mut self,
        from: &[u8],
        to: &[u8],
        only_if_absent: bool,
    ) -> Result<Renamed, KvError> {
        let Some((value, kind, flags, expires_at)) = self.get(from, false, |item| {
            (item.value.to_vec(), item.kind, item.flags, item.expires_at)
        }) else {
            return Ok(Renamed::NoSuchKey);
        };
        let to_hash = self.ks.ctx.hash(to);
        let to_pos = self.position(to_hash);
        let now = self.ks.ctx.now();
        if only_if_absent && self.guards[to_pos].live_slot(to_hash, to, now).is_some() {
            return Ok(Renamed::TargetExists);
        }
        if from == to {
            return Ok(Renamed::Done);
        }
        let from_hash = self.ks.ctx.hash(from);
        let shard = self.holding(from_hash);
        let chunks = shard
            .live_slot(from_hash, from, now)
            .and_then(|slot| shard.ring_at(slot));
        if let Some(chunks) = chunks {
            self.copy_large(from, to, kind, chunks, (&value, expires_at))?;
            self.delete(from)?;
            return Ok(Renamed::Done);
        }
        let item = NewItem {
            value: value.into(),
            flags,
            expires_at,
        };
        self.update(to, false, |_| (Mutation::PutKind(kind, item), ()))?;
        self.delete(from)?;
        Ok(Renamed::Done)
    }

    /// Removes every item; every shard must be locked. Journaled unless
    /// the journal failed (callers refuse a client's flush first; a delayed
    /// flush that falls due still runs in memory). Refused, with nothing
    /// changed, when the SSD tier cannot record the flush.
    pub fn clear(&mut self) -> Result<(), KvError> {
        debug_assert_eq!(self.guards.len(), self.ks.shard_count());
        let ctx = &self.ks.ctx;
        // Changes made before the flush stay before it in the record.
        self.collect();
        if let Some(tier) = &ctx.tier {
            // Everything of the old epoch is garbage from here on, even if
            // a crash stops the clearing half way.
            if let Err(e) = tier.begin_flush() {
                tracing::error!(error = %e, "starting a persistent flush failed");
            }
        }
        if let Some(ssd) = &ctx.ssd {
            // The marker shadows every entry before it at a rebuild, so the
            // entries may be released. Without it, nothing may be.
            if let Err(e) = ssd.begin_flush() {
                tracing::error!(error = %e, "flush refused: the SSD tier cannot record it");
                return Err(e);
            }
        }
        for guard in &mut self.guards {
            guard.clear(ctx);
        }
        if ctx.journaling() {
            change::encode_flush(&mut self.batch);
        }
        Ok(())
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
