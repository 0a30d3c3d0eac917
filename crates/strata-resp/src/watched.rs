//! [`WatchedKeys`]: the keys one connection watches (`WATCH`), with the
//! bytes they hold for client eviction. A leaf.

use std::collections::HashMap;

use strata_kv::Watch;

/// Bytes one watched key costs besides its name (the map's slot, the
/// name's allocation, the keyspace's watch entry).
const WATCH_OVERHEAD: usize = 96;

/// The keys a connection watches, with the bytes they hold.
#[derive(Debug, Default)]
pub struct WatchedKeys {
    keys: HashMap<Box<[u8]>, Watch>,
    bytes: usize,
}

impl WatchedKeys {
    /// Keys watched.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when nothing is watched.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Watches `key` unless it is watched already (`watch` is then not
    /// made: it registers with the keyspace).
    pub fn add(&mut self, key: &[u8], watch: impl FnOnce() -> Watch) {
        if !self.keys.contains_key(key) {
            self.keys.insert(key.into(), watch());
            self.bytes += key.len() + WATCH_OVERHEAD;
        }
    }

    /// Forgets every key. Dropping a [`Watch`] takes a shard lock.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.bytes = 0;
    }

    /// Takes the watches out, leaving none.
    pub fn take(&mut self) -> HashMap<Box<[u8]>, Watch> {
        self.bytes = 0;
        std::mem::take(&mut self.keys)
    }

    /// Approximate bytes held (client memory).
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}
