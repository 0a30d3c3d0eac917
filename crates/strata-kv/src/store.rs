//! The operations every front end uses, as one trait with two implementations:
//! [`SharedStore`](crate::SharedStore) locks one shard per operation, and
//! [`ExclusiveStore`](crate::ExclusiveStore) runs inside
//! [`Keyspace::exclusive`](crate::Keyspace::exclusive) with every shard locked,
//! so a batch of commands (Redis `MULTI`/`EXEC`) sees no other client's change.

use crate::index::Access;
use crate::item::{Deleted, ItemRef, Mutation, NewItem, ValueKind};
use crate::shard::large::LargeEdit;
use crate::shard::large_read::LargeRead;
use crate::KvError;

/// What an `update_pair` closure decides: the mutations of its first and
/// second key (`Keep` for either), and its result.
pub type PairDecision<R> = (Mutation<'static>, Mutation<'static>, R);

/// Result of [`Store::rename`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renamed {
    /// The item now lives under the new key.
    Done,
    /// The source key does not exist.
    NoSuchKey,
    /// `only_if_absent` was set and the target exists; nothing changed.
    TargetExists,
}

/// Key-value operations on one keyspace. Every method is atomic with respect
/// to other callers; multi-key methods are atomic as a whole.
pub trait Store {
    /// Calls `f` with the live item for `key`, counting a keyspace hit or miss
    /// and marking the item as recently used. Returns `None` when there is no
    /// live item.
    fn get<R>(&mut self, key: &[u8], f: impl FnOnce(ItemRef<'_>) -> R) -> Option<R>;

    /// Like [`get`](Store::get) but neither counts a hit/miss nor marks access
    /// (for `EXISTS`, `TTL`, `TYPE`, ...).
    fn peek<R>(&mut self, key: &[u8], f: impl FnOnce(ItemRef<'_>) -> R) -> Option<R>;

    /// Marks the live item for `key` accessed and counts a hit, as
    /// [`get`](Store::get) does, or counts a miss; reads no value (with the
    /// SSD tier, no device read): Redis's `TOUCH`. False when absent.
    fn touch(&mut self, key: &[u8]) -> bool;

    /// How the live item for `key` has been used (fetched since written,
    /// seconds since last access), without counting or marking an access;
    /// `None` when there is no live item. Reads no value.
    fn access(&mut self, key: &[u8]) -> Option<Access>;

    /// The expiry of the live item for `key` (`Some(None)`: none), or
    /// `None` when there is no live item. Like [`peek`](Store::peek) but
    /// reads no value (with the SSD tier, no device read): for `EXISTS`,
    /// `TYPE`, `TTL`.
    fn expiry(&mut self, key: &[u8]) -> Option<Option<u64>> {
        self.peek(key, |item| item.expires_at)
    }

    /// The kind of the live item for `key`, or `None` when there is no live
    /// item. Reads no value (with the SSD tier, no device read): for `TYPE`,
    /// `SCAN ... TYPE` and type checks before a blocking wait.
    fn kind(&mut self, key: &[u8]) -> Option<ValueKind> {
        self.peek(key, |item| item.kind)
    }

    /// Reads the live item for `key` (or `None`) and applies the [`Mutation`]
    /// that `f` decides, all under one lock: the basis of set, add, replace,
    /// cas, append, incr, touch, getset, ... If the mutation is refused (too
    /// large, out of memory) nothing changes and the error is returned; `f`'s
    /// result is then dropped.
    fn update<'v, R>(
        &mut self,
        key: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>) -> (Mutation<'v>, R),
    ) -> Result<R, KvError> {
        self.update_cas(key, f).map(|(result, _)| result)
    }

    /// Like [`update`](Store::update), also returning, under the same lock,
    /// the CAS version of the item the key holds afterwards (`None` when no
    /// live item remains): memcached's meta `c` flag after a change.
    fn update_cas<'v, R>(
        &mut self,
        key: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>) -> (Mutation<'v>, R),
    ) -> Result<(R, Option<u64>), KvError>;

    /// Reads `a` and `b` (two different keys) and applies the mutations `f`
    /// decides for each, atomically (both shards locked, one journal
    /// record): `LMOVE`, `SMOVE`. Counts a hit or miss for each key.
    fn update_pair<R>(
        &mut self,
        a: &[u8],
        b: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>, Option<ItemRef<'_>>) -> PairDecision<R>,
    ) -> Result<R, KvError>;

    /// Runs `f` on `key` with its shard write-locked: the basis of large
    /// collections (head and chunk records, see [`crate::chunk`]). Every
    /// change `f` makes is journaled as one record. An error only when an
    /// expired item there could not be removed first.
    fn edit_large<R>(
        &mut self,
        key: &[u8],
        f: impl FnOnce(&mut LargeEdit<'_>) -> R,
    ) -> Result<R, KvError>;

    /// Runs `f` on `key` with its shard read-locked: reads of a large
    /// collection (head and chunks), other readers of the shard running
    /// meanwhile. Nothing is counted as a hit or miss.
    fn read_large<R>(&mut self, key: &[u8], f: impl FnOnce(&mut LargeRead<'_>) -> R) -> R;

    /// Stores `item` under `key` unconditionally.
    fn set(&mut self, key: &[u8], item: NewItem<'_>) -> Result<(), KvError> {
        self.update(key, |_| (Mutation::Put(item), ()))
    }

    /// Removes the item for `key`.
    fn delete(&mut self, key: &[u8]) -> Result<Deleted, KvError>;

    /// Stores all `items` atomically. With `only_if_none_exist`, stores nothing
    /// and returns `Ok(false)` if any of the keys has a live item (`MSETNX`).
    fn set_many(
        &mut self,
        items: &[(&[u8], NewItem<'_>)],
        only_if_none_exist: bool,
    ) -> Result<bool, KvError>;

    /// Moves the item at `from` to `to` (keeping value, flags and expiry),
    /// replacing any item at `to` unless `only_if_absent`.
    fn rename(&mut self, from: &[u8], to: &[u8], only_if_absent: bool) -> Result<Renamed, KvError>;

    /// Copies the item at `from` to `to` (another key; value, kind and
    /// expiry, a large collection's chunks too), replacing an item at `to`
    /// only with `replace`. False when `from` is missing or `to` exists
    /// without `replace` (Redis `COPY`).
    fn copy(&mut self, from: &[u8], to: &[u8], replace: bool) -> Result<bool, KvError>;

    /// Removes every item now.
    fn flush(&mut self) -> Result<(), KvError>;

    /// Number of items held, including expired ones not yet reclaimed
    /// (as Redis's `DBSIZE` counts them).
    fn len(&mut self) -> u64;

    /// True when no item is held.
    fn is_empty(&mut self) -> bool {
        self.len() == 0
    }

    /// One step of a cursor scan over all live items (Redis `SCAN`
    /// semantics): start with cursor 0, pass back the returned cursor, stop
    /// when it returns 0. Every item present for the whole scan is visited at
    /// least once; some may be visited twice. `count` is the amount of work
    /// (items to emit) this step aims for.
    fn scan(&mut self, cursor: u64, count: usize, f: &mut dyn FnMut(ItemRef<'_>)) -> u64;

    /// [`scan`](Store::scan) visiting only keys: reads no value (with the
    /// SSD tier, no device read).
    fn scan_keys(&mut self, cursor: u64, count: usize, f: &mut dyn FnMut(&[u8])) -> u64 {
        self.scan(cursor, count, &mut |item| f(item.key))
    }

    /// True inside an exclusive section (`EXEC`): nobody else can change
    /// anything until it ends, so a blocking command answers as timed out.
    fn is_exclusive(&self) -> bool {
        false
    }

    /// A key chosen at random among live items, or `None` when empty.
    fn random_key(&mut self) -> Option<Vec<u8>>;

    /// Tells `key`'s watchers (`WATCH`) and the change observer that it
    /// changed, writing nothing (no item, no journal record): for changes
    /// that leave the key as it was, such as an element pushed to a missing
    /// list and at once handed to a blocked client.
    fn signal_modified(&mut self, key: &[u8]);

    /// How many keys key group `group` holds (see
    /// [`Keyspace::group_keys`](crate::Keyspace::group_keys)); `None` when
    /// this store cannot tell (groups off).
    fn group_len(&mut self, _group: u16) -> Option<u64> {
        None
    }

    /// Calls `f` with at most `count` keys of key group `group`; false,
    /// calling nothing, when this store cannot list them (groups off, or
    /// a store holding only some shards): the caller walks the keys.
    fn keys_in_group(&mut self, _group: u16, _count: usize, _f: &mut dyn FnMut(&[u8])) -> bool {
        false
    }
}
