//! [`Watch`]: a client's watch of one key, for Redis `WATCH`, taken with
//! [`Keyspace::watch`]; the versions it compares live in each shard's
//! table (`shard/watches.rs`).

use std::sync::Arc;

use crate::keyspace::Keyspace;

/// A registered watch of one key. Unregisters itself on drop.
///
/// Callers MUST NOT drop a `Watch` inside
/// [`Keyspace::exclusive`](crate::Keyspace::exclusive): dropping takes the
/// shard lock.
pub struct Watch {
    pub(crate) keyspace: Arc<Keyspace>,
    pub(crate) key: Box<[u8]>,
    pub(crate) version: (u64, u64),
    /// Expiry of the item when watched; passing it counts as a change.
    pub(crate) expires_at: Option<u64>,
}

impl Watch {
    /// The watched key.
    pub fn key(&self) -> &[u8] {
        &self.key
    }
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("key", &self.key)
            .field("version", &self.version)
            .finish()
    }
}

impl Keyspace {
    /// Starts watching `key` for changes (Redis `WATCH`).
    pub fn watch(self: &Arc<Self>, key: &[u8]) -> Watch {
        let now = self.now_ms();
        let hash = self.ctx.hash(key);
        let mut shard = self.shard(hash).write();
        let version = shard.watches.register(key);
        let expires_at = shard
            .live_slot(hash, key, now)
            .and_then(|slot| shard.record_at(slot).header.expires_at);
        Watch {
            keyspace: self.clone(),
            key: key.into(),
            version,
            expires_at,
        }
    }

    pub(crate) fn unwatch(&self, key: &[u8]) {
        self.shard(self.ctx.hash(key))
            .write()
            .watches
            .unregister(key);
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.keyspace.unwatch(&self.key);
    }
}
