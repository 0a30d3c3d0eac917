//! What callers see of an item and how they ask for it to change.

use std::borrow::Cow;

/// A borrowed view of a live (unexpired) item, valid while the shard lock is held.
#[derive(Debug, Clone, Copy)]
pub struct ItemRef<'a> {
    /// The key.
    pub key: &'a [u8],
    /// The value bytes.
    pub value: &'a [u8],
    /// memcached client flags (0 for items written over RESP).
    pub flags: u32,
    /// Version that changes on every modification; unique across the keyspace.
    pub cas: u64,
    /// Absolute expiry in Unix milliseconds, `None` for never.
    pub expires_at: Option<u64>,
}

/// A new version of an item.
#[derive(Debug, Clone)]
pub struct NewItem<'v> {
    /// The value to store.
    pub value: Cow<'v, [u8]>,
    /// memcached client flags.
    pub flags: u32,
    /// Absolute expiry in Unix milliseconds, `None` for never. An expiry at or
    /// before now stores nothing and deletes any existing item.
    pub expires_at: Option<u64>,
}

/// The decision an [`update`](crate::Store::update) closure returns.
#[derive(Debug, Clone)]
pub enum Mutation<'v> {
    /// Leave the key as it is.
    Keep,
    /// Remove the item, if any.
    Delete,
    /// Replace (or create) the item; it gets a fresh CAS version.
    Put(NewItem<'v>),
    /// Change only the expiry of the existing item (no-op when absent); the
    /// CAS version is kept, as memcached's `touch` does.
    SetExpiry(Option<u64>),
}

/// What [`delete`](crate::Store::delete) found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    /// A live item was removed.
    Removed,
    /// No live item had that key.
    Missing,
}
