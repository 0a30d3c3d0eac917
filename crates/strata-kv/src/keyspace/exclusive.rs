//! [`ExclusiveStore`]: the store handed out by
//! [`Keyspace::exclusive`](super::Keyspace::exclusive), with every shard locked.

use std::future::Future;
use std::sync::Arc;

use super::core::Keyspace;
use super::gate::GateEntry;
use super::groups::keys_from;
use super::locked::LockedShards;
use super::shared::scan_shards;
use crate::index::Access;
use crate::item::{Deleted, ItemRef, Mutation, NewItem, ValueKind};
use crate::shard::large::LargeEdit;
use crate::shard::large_read::LargeRead;
use crate::shard::scan::{Reach, ScanOver};
use crate::store::{PairDecision, Renamed, Store};
use crate::watch::Watch;
use crate::KvError;

impl Keyspace {
    /// Runs `f` with every shard locked: no other caller's operation runs
    /// until it returns. `f` MUST NOT call back into this keyspace except
    /// through the given store (and MUST NOT drop a [`Watch`]).
    pub fn exclusive<R>(&self, f: impl FnOnce(&mut ExclusiveStore<'_>) -> R) -> R {
        self.before_write();
        let mut store = ExclusiveStore::new(self.lock((0..self.shard_count()).collect()));
        f(&mut store)
    }

    /// Like [`exclusive`](Self::exclusive), for a section that may hold
    /// the shards for long (a script): closes the entry gate first and
    /// waits for the front ends' entries in flight to leave, so no worker
    /// thread is left waiting on a shard lock meanwhile (see `gate.rs`).
    /// Blocks the calling thread while it waits; it MUST NOT hold a shard
    /// lock (nor be inside an exclusive section).
    pub fn exclusive_drained<R>(&self, f: impl FnOnce(&mut ExclusiveStore<'_>) -> R) -> R {
        let _closed = self.gate.close();
        self.exclusive(f)
    }

    /// Like [`exclusive_drained`](Self::exclusive_drained), only when no
    /// other long section holds the keyspace or waits for it: the calling
    /// thread then waits only for the entries in flight (one request each)
    /// and the shard locks' brief holders, so a worker thread may call it
    /// in place. Otherwise `f` comes back unrun, for the caller to wait
    /// off its worker.
    pub fn try_exclusive_drained<R, F>(&self, f: F) -> Result<R, F>
    where
        F: FnOnce(&mut ExclusiveStore<'_>) -> R,
    {
        let Some(_closed) = self.gate.try_close() else {
            return Err(f);
        };
        Ok(self.exclusive(f))
    }

    /// Whether no long section holds the keyspace or waits for it (the
    /// entry gate is open).
    pub(crate) fn gate_is_open(&self) -> bool {
        self.gate.is_open()
    }

    /// Counts the calling thread in at the entry gate, for a batch of
    /// requests: before each, [`GateEntry::is_open`] says whether it may touch
    /// the keyspace; when it may not, the front end leaves (drops the
    /// entry) and waits for [`gate_open`](Self::gate_open).
    pub fn enter(&self) -> GateEntry<'_> {
        self.gate.enter()
    }

    /// Resolves when the entry gate is open: at once if it is now, else
    /// when the last long section ends (never missed: the notice is
    /// awaited from before the gate is read).
    pub fn gate_open(self: &Arc<Self>) -> impl Future<Output = ()> + Send + 'static {
        let keyspace = self.clone();
        async move {
            let reopened = keyspace.gate.reopened();
            loop {
                let notified = reopened.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if keyspace.gate.is_open() {
                    return;
                }
                notified.await;
            }
        }
    }

    /// Like [`exclusive_drained`](Self::exclusive_drained), taking each
    /// shard only when `f` first reaches it: the shards of `keys` at once
    /// (in order), any other late, and all of them before an operation over
    /// the whole keyspace (`len`, `scan`, `random_key`, `flush`). With the
    /// gate closed no request is in flight, so a late lock waits only for a
    /// background pass's brief hold, and a section that reaches few shards
    /// (a script on its keys) skips locking the others.
    pub fn exclusive_drained_keys<'k, R>(
        &self,
        keys: impl IntoIterator<Item = &'k [u8]>,
        f: impl FnOnce(&mut ExclusiveStore<'_>) -> R,
    ) -> R {
        let _closed = self.gate.close();
        self.exclusive_keys(keys, f)
    }

    /// [`exclusive_drained_keys`](Self::exclusive_drained_keys) in place,
    /// under the conditions of [`try_exclusive_drained`](Self::try_exclusive_drained).
    pub fn try_exclusive_drained_keys<'k, R, F>(
        &self,
        keys: impl IntoIterator<Item = &'k [u8]>,
        f: F,
    ) -> Result<R, F>
    where
        F: FnOnce(&mut ExclusiveStore<'_>) -> R,
    {
        let Some(_closed) = self.gate.try_close() else {
            return Err(f);
        };
        Ok(self.exclusive_keys(keys, f))
    }

    /// Like [`exclusive`](Self::exclusive), holding only the shards of
    /// `keys` (locked in ascending order), so callers on other shards run
    /// meanwhile. `f` MUST touch only these keys for whole-keyspace
    /// operations (`len`, `scan`, `random_key`, `flush`) see only the held
    /// shards (but `len`, `scan`, `random_key` and `flush`, which first
    /// lock the others late); a key outside them is locked late (see
    /// `LockedShards`).
    pub fn exclusive_keys<'k, R>(
        &self,
        keys: impl IntoIterator<Item = &'k [u8]>,
        f: impl FnOnce(&mut ExclusiveStore<'_>) -> R,
    ) -> R {
        self.before_write();
        let shards = keys
            .into_iter()
            .map(|key| self.shard_index(self.ctx.hash(key)))
            .collect();
        let mut store = ExclusiveStore::new(self.lock(shards));
        f(&mut store)
    }
}

/// A [`Store`] over a keyspace whose every shard this caller holds locked.
pub struct ExclusiveStore<'a> {
    locked: LockedShards<'a>,
}

impl<'a> ExclusiveStore<'a> {
    pub(crate) fn new(locked: LockedShards<'a>) -> Self {
        Self { locked }
    }

    /// False if `watch`'s key changed (through any front end), was flushed,
    /// or expired since the watch was taken.
    pub fn watch_intact(&mut self, watch: &Watch) -> bool {
        let ks = self.locked.keyspace();
        if watch.expires_at.is_some_and(|at| at <= ks.now_ms()) {
            return false;
        }
        let hash = ks.ctx.hash(&watch.key);
        self.locked.holding(hash).watches.version(&watch.key) == watch.version
    }
}

impl Store for ExclusiveStore<'_> {
    fn edit_large<R>(
        &mut self,
        key: &[u8],
        f: impl FnOnce(&mut LargeEdit<'_>) -> R,
    ) -> Result<R, KvError> {
        self.locked.edit_large(key, f)
    }

    fn read_large<R>(&mut self, key: &[u8], f: impl FnOnce(&mut LargeRead<'_>) -> R) -> R {
        self.locked.read_large(key, f)
    }

    fn get<R>(&mut self, key: &[u8], f: impl FnOnce(ItemRef<'_>) -> R) -> Option<R> {
        self.locked.get(key, true, f)
    }

    fn peek<R>(&mut self, key: &[u8], f: impl FnOnce(ItemRef<'_>) -> R) -> Option<R> {
        self.locked.get(key, false, f)
    }

    fn expiry(&mut self, key: &[u8]) -> Option<Option<u64>> {
        self.locked.expiry(key)
    }

    fn access(&mut self, key: &[u8]) -> Option<Access> {
        self.locked.access(key)
    }

    fn touch(&mut self, key: &[u8]) -> bool {
        self.locked.touch(key)
    }

    fn signal_modified(&mut self, key: &[u8]) {
        self.locked.signal_modified(key);
    }

    fn update_pair<R>(
        &mut self,
        a: &[u8],
        b: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>, Option<ItemRef<'_>>) -> PairDecision<R>,
    ) -> Result<R, KvError> {
        self.locked.update_pair(a, b, f)
    }

    fn is_exclusive(&self) -> bool {
        true
    }

    fn kind(&mut self, key: &[u8]) -> Option<ValueKind> {
        self.locked.kind(key)
    }

    fn update<'v, R>(
        &mut self,
        key: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>) -> (Mutation<'v>, R),
    ) -> Result<R, KvError> {
        self.locked.update(key, false, f).map(|(result, _)| result)
    }

    fn update_cas<'v, R>(
        &mut self,
        key: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>) -> (Mutation<'v>, R),
    ) -> Result<(R, Option<u64>), KvError> {
        self.locked.update(key, true, f)
    }

    fn delete(&mut self, key: &[u8]) -> Result<Deleted, KvError> {
        self.locked.delete(key)
    }

    fn set_many(
        &mut self,
        items: &[(&[u8], NewItem<'_>)],
        only_if_none_exist: bool,
    ) -> Result<bool, KvError> {
        self.locked.set_many(items, only_if_none_exist)
    }

    fn rename(&mut self, from: &[u8], to: &[u8], only_if_absent: bool) -> Result<Renamed, KvError> {
        self.locked.rename(from, to, only_if_absent)
    }

    fn copy(&mut self, from: &[u8], to: &[u8], replace: bool) -> Result<bool, KvError> {
        self.locked.copy(from, to, replace)
    }

    fn flush(&mut self) -> Result<(), KvError> {
        self.locked.keyspace().ctx.check_journal()?;
        self.locked.hold_all();
        self.locked.clear()
    }

    fn len(&mut self) -> u64 {
        self.locked.hold_all();
        (0..self.locked.len_locked())
            .map(|pos| self.locked.at(pos).user_len() as u64)
            .sum()
    }

    fn scan(&mut self, cursor: u64, count: usize, f: &mut dyn FnMut(ItemRef<'_>)) -> u64 {
        self.locked.hold_all();
        let locked = &self.locked;
        let ks = locked.keyspace();
        let now = ks.now_ms();
        let over = ScanOver {
            seed: ks.ctx.seed(),
            reach: Reach::Users,
        };
        let ctx = &ks.ctx;
        scan_shards(
            locked.len_locked(),
            cursor,
            count,
            &mut |shard, slot| {
                // A value that cannot be read is reported by the attempt.
                let _ = shard.with_item(ctx, slot, &mut *f);
            },
            |idx, pos, want, v| locked.at(idx).scan(pos, want, now, over, v),
        )
    }

    fn random_key(&mut self) -> Option<Vec<u8>> {
        self.locked.hold_all();
        let locked = &self.locked;
        let now = locked.keyspace().now_ms();
        let n = locked.len_locked();
        let start: usize = rand::random();
        (0..n).find_map(|i| {
            locked
                .at((start + i) % n)
                .live_key_from(rand::random(), now)
        })
    }

    fn group_len(&mut self, group: u16) -> Option<u64> {
        self.locked.keyspace().group_len(group)
    }

    /// Only with every shard held: the other shards' read locks cannot be
    /// waited for here, so a partial store leaves the walk to the caller.
    fn keys_in_group(&mut self, group: u16, count: usize, f: &mut dyn FnMut(&[u8])) -> bool {
        let locked = &self.locked;
        let ks = locked.keyspace();
        if ks.group_len(group).is_none() || locked.len_locked() != ks.shard_count() {
            return false;
        }
        let shards = (0..locked.len_locked()).map(|pos| locked.at(pos));
        keys_from(&ks.ctx, shards, group, count, f);
        true
    }
}
