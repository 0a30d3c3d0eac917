//! [`SharedStore`]: per-operation locking. Reads take one shard's read lock,
//! writes one shard's write lock, multi-key operations lock the shards they
//! touch in ascending order.

use std::sync::atomic::Ordering;

use super::core::Keyspace;
use crate::fetch;
use crate::index::Access;
use crate::item::{split_stored_flags, Deleted, ItemRef, Mutation, NewItem, ValueKind};
use crate::shard::large::LargeEdit;
use crate::shard::large_read::LargeRead;
use crate::shard::scan::{Reach, ScanOver};
use crate::shard::ShardInner;
use crate::store::{PairDecision, Renamed, Store};
use crate::KvError;

impl Keyspace {
    /// Per-operation access (one shard locked at a time).
    pub fn store(&self) -> SharedStore<'_> {
        SharedStore::new(self)
    }
}

/// The everyday [`Store`] over a [`Keyspace`].
#[derive(Clone, Copy)]
pub struct SharedStore<'a> {
    ks: &'a Keyspace,
}

impl<'a> SharedStore<'a> {
    pub(crate) fn new(ks: &'a Keyspace) -> Self {
        Self { ks }
    }

    /// One step of a cursor scan over what `reach` covers, visiting each
    /// emitted item's slot.
    pub(crate) fn scan_slots(
        &self,
        cursor: u64,
        count: usize,
        reach: Reach,
        visit: &mut dyn FnMut(&ShardInner, usize),
    ) -> u64 {
        self.ks.run_due_flush();
        let ks = self.ks;
        let now = ks.now_ms();
        let over = ScanOver {
            seed: ks.ctx.seed(),
            reach,
        };
        scan_shards(
            ks.shard_count(),
            cursor,
            count,
            visit,
            |idx, pos, want, v| ks.shard_at(idx).read().scan(pos, want, now, over, v),
        )
    }

    /// [`Store::scan`] over every record, chunks of large collections
    /// included (a checkpoint): `f` also gets each record's stored flags
    /// word, which says its namespace.
    pub fn scan_stored(
        &self,
        cursor: u64,
        count: usize,
        f: &mut dyn FnMut(ItemRef<'_>, u64),
    ) -> u64 {
        let _blocking = fetch::Blocking::enter();
        let ctx = &self.ks.ctx;
        self.scan_slots(cursor, count, Reach::Everything, &mut |shard, slot| {
            let stored = shard.record_at(slot).header.flags;
            // A value that cannot be read is reported by the attempt.
            let _ = shard.with_item(ctx, slot, |item| f(item, stored));
        })
    }

    fn read<R>(&self, key: &[u8], count: bool, f: impl FnOnce(ItemRef<'_>) -> R) -> Option<R> {
        self.ks.run_due_flush();
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let shard = self.ks.shard(hash).read();
        // A value not read yet (deferred, or failed) is no answer: the
        // front end retries or reports the failure; nothing is counted.
        let found = shard.get_with(ctx, hash, key, now, count, f).ok()?;
        drop(shard);
        if found.is_none() {
            self.ks.lazy_expire(key);
        }
        if count {
            match found {
                Some(_) => ctx.counters.hits.add(1),
                None => ctx.counters.misses.add(1),
            }
        }
        found
    }

    fn write<'v, R>(
        &self,
        key: &[u8],
        want_cas: bool,
        f: impl FnOnce(Option<ItemRef<'_>>) -> (Mutation<'v>, R),
    ) -> Result<(R, Option<u64>), KvError> {
        self.ks.before_write();
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        self.ks
            .shard(hash)
            .write()
            .update(ctx, hash, key, now, want_cas, f)
    }

    /// Removes every item, all shards locked at once.
    pub(crate) fn flush_now(&self) -> Result<(), KvError> {
        self.ks.flush_now()
    }
}

/// Runs a cursor scan across `shards` shards: the cursor is
/// `shard << 32 | position`, where position is the shard's 32-bit hash
/// position to resume from. `scan_shard(shard, position, count, visit)`
/// returns the next position or `None` when that shard is done, calling
/// `visit` with the shard and the slot of each item it emits.
pub(crate) fn scan_shards(
    shards: usize,
    cursor: u64,
    count: usize,
    visit: &mut dyn FnMut(&ShardInner, usize),
    mut scan_shard: impl FnMut(usize, u64, usize, &mut dyn FnMut(&ShardInner, usize)) -> Option<u64>,
) -> u64 {
    let mut shard = (cursor >> 32) as usize;
    let mut pos = cursor & 0xffff_ffff;
    let mut emitted = 0usize;
    let count = count.max(1);
    while shard < shards {
        let want = count.saturating_sub(emitted).max(1);
        let mut counting = |inner: &ShardInner, slot: usize| {
            emitted += 1;
            visit(inner, slot)
        };
        match scan_shard(shard, pos, want, &mut counting) {
            Some(next) => return ((shard as u64) << 32) | next,
            None => {
                shard += 1;
                pos = 0;
                if emitted >= count && shard < shards {
                    return (shard as u64) << 32;
                }
            }
        }
    }
    0
}

impl Store for SharedStore<'_> {
    fn edit_large<R>(
        &mut self,
        key: &[u8],
        f: impl FnOnce(&mut LargeEdit<'_>) -> R,
    ) -> Result<R, KvError> {
        self.ks.before_write();
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let mut shard = self.ks.shard(hash).write();
        let mut edit = LargeEdit::open(&mut shard, ctx, key, hash, now)?;
        Ok(f(&mut edit))
    }

    fn read_large<R>(&mut self, key: &[u8], f: impl FnOnce(&mut LargeRead<'_>) -> R) -> R {
        self.ks.run_due_flush();
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let shard = self.ks.shard(hash).read();
        let result = f(&mut LargeRead::open(&shard, ctx, key, hash, now));
        drop(shard);
        self.ks.lazy_expire(key);
        result
    }

    fn get<R>(&mut self, key: &[u8], f: impl FnOnce(ItemRef<'_>) -> R) -> Option<R> {
        self.read(key, true, f)
    }

    fn peek<R>(&mut self, key: &[u8], f: impl FnOnce(ItemRef<'_>) -> R) -> Option<R> {
        self.read(key, false, f)
    }

    fn expiry(&mut self, key: &[u8]) -> Option<Option<u64>> {
        self.ks.run_due_flush();
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let shard = self.ks.shard(hash).read();
        let found = shard
            .live_slot(hash, key, now)
            .map(|slot| shard.record_at(slot).header.expires_at);
        drop(shard);
        if found.is_none() {
            self.ks.lazy_expire(key);
        }
        found
    }

    fn update_pair<R>(
        &mut self,
        a: &[u8],
        b: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>, Option<ItemRef<'_>>) -> PairDecision<R>,
    ) -> Result<R, KvError> {
        self.ks.before_write();
        let ctx = &self.ks.ctx;
        let shards = vec![
            self.ks.shard_index(ctx.hash(a)),
            self.ks.shard_index(ctx.hash(b)),
        ];
        self.ks.lock(shards).update_pair(a, b, f)
    }

    fn access(&mut self, key: &[u8]) -> Option<Access> {
        self.ks.run_due_flush();
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        self.ks.shard(hash).read().access(ctx, hash, key, now)
    }

    fn touch(&mut self, key: &[u8]) -> bool {
        self.ks.run_due_flush();
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let found = self.ks.shard(hash).read().touch(ctx, hash, key, now);
        match found {
            true => ctx.counters.hits.add(1),
            false => ctx.counters.misses.add(1),
        }
        found
    }

    fn signal_modified(&mut self, key: &[u8]) {
        let ctx = &self.ks.ctx;
        let hash = ctx.hash(key);
        self.ks.shard(hash).write().watches.touch(key);
        ctx.changes.changed(key);
    }

    fn kind(&mut self, key: &[u8]) -> Option<ValueKind> {
        self.ks.run_due_flush();
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let shard = self.ks.shard(hash).read();
        let found = shard
            .live_slot(hash, key, now)
            .and_then(|slot| split_stored_flags(shard.record_at(slot).header.flags))
            .map(|(_, kind)| kind);
        drop(shard);
        if found.is_none() {
            self.ks.lazy_expire(key);
        }
        found
    }

    fn update<'v, R>(
        &mut self,
        key: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>) -> (Mutation<'v>, R),
    ) -> Result<R, KvError> {
        self.write(key, false, f).map(|(result, _)| result)
    }

    fn update_cas<'v, R>(
        &mut self,
        key: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>) -> (Mutation<'v>, R),
    ) -> Result<(R, Option<u64>), KvError> {
        self.write(key, true, f)
    }

    fn set(&mut self, key: &[u8], item: NewItem<'_>) -> Result<(), KvError> {
        self.ks.before_write();
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let mut shard = self.ks.shard(hash).write();
        shard
            .apply(ctx, hash, key, now, Mutation::Put(item))
            .map(|_| ())
    }

    fn delete(&mut self, key: &[u8]) -> Result<Deleted, KvError> {
        self.ks.before_write();
        let ctx = &self.ks.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let mut shard = self.ks.shard(hash).write();
        Ok(match shard.apply(ctx, hash, key, now, Mutation::Delete)? {
            true => Deleted::Removed,
            false => Deleted::Missing,
        })
    }

    fn set_many(
        &mut self,
        items: &[(&[u8], NewItem<'_>)],
        only_if_none_exist: bool,
    ) -> Result<bool, KvError> {
        self.ks.before_write();
        let shards = items
            .iter()
            .map(|(k, _)| self.ks.shard_index(self.ks.ctx.hash(k)))
            .collect();
        self.ks.lock(shards).set_many(items, only_if_none_exist)
    }

    fn rename(&mut self, from: &[u8], to: &[u8], only_if_absent: bool) -> Result<Renamed, KvError> {
        self.ks.before_write();
        let ctx = &self.ks.ctx;
        let shards = vec![
            self.ks.shard_index(ctx.hash(from)),
            self.ks.shard_index(ctx.hash(to)),
        ];
        self.ks.lock(shards).rename(from, to, only_if_absent)
    }

    fn copy(&mut self, from: &[u8], to: &[u8], replace: bool) -> Result<bool, KvError> {
        self.ks.before_write();
        let ctx = &self.ks.ctx;
        let shards = vec![
            self.ks.shard_index(ctx.hash(from)),
            self.ks.shard_index(ctx.hash(to)),
        ];
        self.ks.lock(shards).copy(from, to, replace)
    }

    fn flush(&mut self) -> Result<(), KvError> {
        self.ks.ctx.check_journal()?;
        self.flush_now()
    }

    fn len(&mut self) -> u64 {
        self.ks.run_due_flush();
        (0..self.ks.shard_count())
            .map(|i| self.ks.shard_at(i).items.load(Ordering::Relaxed))
            .sum()
    }

    fn scan(&mut self, cursor: u64, count: usize, f: &mut dyn FnMut(ItemRef<'_>)) -> u64 {
        // A scan is never re-run: values not in DRAM are read while blocking.
        let _blocking = fetch::Blocking::enter();
        let ctx = &self.ks.ctx;
        self.scan_slots(cursor, count, Reach::Users, &mut |shard, slot| {
            // A value that cannot be read is reported by the attempt.
            let _ = shard.with_item(ctx, slot, &mut *f);
        })
    }

    fn scan_keys(&mut self, cursor: u64, count: usize, f: &mut dyn FnMut(&[u8])) -> u64 {
        self.scan_slots(cursor, count, Reach::Users, &mut |shard, slot| {
            f(shard.record_at(slot).key())
        })
    }

    fn group_len(&mut self, group: u16) -> Option<u64> {
        self.ks.run_due_flush();
        self.ks.group_len(group)
    }

    fn keys_in_group(&mut self, group: u16, count: usize, f: &mut dyn FnMut(&[u8])) -> bool {
        self.ks.run_due_flush();
        self.ks.keys_in_group(group, count, f)
    }

    fn random_key(&mut self) -> Option<Vec<u8>> {
        self.ks.run_due_flush();
        let ks = self.ks;
        let now = ks.now_ms();
        let n = ks.shard_count();
        let start: usize = rand::random();
        (0..n).find_map(|i| {
            let shard = ks.shard_at((start + i) % n);
            if shard.items.load(Ordering::Relaxed) == 0 {
                return None;
            }
            let found = shard.read().live_key_from(rand::random(), now);
            found
        })
    }
}
