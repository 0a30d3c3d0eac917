//! Change versions of watched keys, for Redis `WATCH`.
//!
//! Each shard keeps a table of the keys some client watches, with a version
//! bumped on every change to the key through any front end, and on flush,
//! expiry reclaim and eviction. Keys nobody watches cost nothing: the table is
//! checked only when non-empty.

use std::collections::HashMap;

#[derive(Default)]
pub(crate) struct WatchTable {
    /// key -> (version, number of watchers)
    keys: HashMap<Box<[u8]>, (u64, u32)>,
    /// Part of every version; never bumped today (a flush touches the
    /// watched keys it removes, as Redis 7 does), kept so versions taken
    /// before stay comparable.
    epoch: u64,
}

impl WatchTable {
    pub fn touch(&mut self, key: &[u8]) {
        if !self.keys.is_empty() {
            if let Some(entry) = self.keys.get_mut(key) {
                entry.0 += 1;
            }
        }
    }

    /// Keys with at least one watcher.
    pub fn watched(&self) -> impl Iterator<Item = &[u8]> {
        self.keys.keys().map(|k| &**k)
    }

    /// Registers a watcher; returns the key's current version.
    pub fn register(&mut self, key: &[u8]) -> (u64, u64) {
        let entry = self.keys.entry(key.into()).or_insert((0, 0));
        entry.1 += 1;
        (entry.0, self.epoch)
    }

    pub fn unregister(&mut self, key: &[u8]) {
        if let Some(entry) = self.keys.get_mut(key) {
            entry.1 -= 1;
            if entry.1 == 0 {
                self.keys.remove(key);
            }
        }
    }

    pub fn version(&self, key: &[u8]) -> (u64, u64) {
        (self.keys.get(key).map_or(u64::MAX, |e| e.0), self.epoch)
    }
}
