//! [`Watch`]: a client's watch of one key, for Redis `WATCH`, taken with
//! [`Keyspace::watch`]; the versions it compares live in each shard's
//! table (`shard/watches.rs`).

use std::sync::Arc;

use crate::keyspace::{Keyspace, Shard};
use crate::shard::ShardInner;

/// A registered watch of one key. Unregisters itself on drop, without
/// waiting for the shard's lock: a connection that closes or `UNWATCH`es
/// while a script holds every shard must not stop its worker thread.
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
        let locked = self.shard(hash);
        let mut shard = locked.write();
        unregister_later_ones(locked, &mut shard);
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

    /// Never waits: a shard held now (by a script, or by another thread
    /// for a moment) takes the key later. Until then the key keeps one
    /// watcher too many, which only keeps its version counting.
    pub(crate) fn unwatch(&self, key: &[u8]) {
        let locked = self.shard(self.ctx.hash(key));
        match locked.try_write() {
            Some(mut shard) => {
                unregister_later_ones(locked, &mut shard);
                shard.watches.unregister(key);
            }
            None => locked.unwatched.lock().push(key.into()),
        }
    }
}

/// Unregisters the watches that ended while `locked` was held.
fn unregister_later_ones(locked: &Shard, shard: &mut ShardInner) {
    let later = std::mem::take(&mut *locked.unwatched.lock());
    for key in later {
        shard.watches.unregister(&key);
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.keyspace.unwatch(&self.key);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    use crate::{Keyspace, KeyspaceConfig, SystemClock};

    /// A watch dropped while another thread holds its shard returns at
    /// once; the key is unregistered by the shard's next watch, so it is
    /// left with no watcher once that one ends too.
    #[test]
    fn a_watch_ends_without_waiting_for_a_held_shard() {
        let config = KeyspaceConfig {
            shards: 1,
            ..KeyspaceConfig::default()
        };
        let ks = Keyspace::new(config, Arc::new(SystemClock));
        let watch = ks.watch(b"k");
        let (held, is_held) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let holder = {
            let ks = ks.clone();
            std::thread::spawn(move || {
                ks.exclusive(|_| {
                    held.send(()).unwrap();
                    released.recv().unwrap();
                })
            })
        };
        is_held.recv().unwrap();
        let (dropped, was_dropped) = mpsc::channel();
        std::thread::spawn(move || {
            drop(watch);
            dropped.send(()).unwrap();
        });
        let waited = was_dropped.recv_timeout(Duration::from_secs(5));
        release.send(()).unwrap();
        holder.join().unwrap();
        assert!(waited.is_ok(), "the drop waited for the held shard");
        drop(ks.watch(b"k"));
        let shard = ks.shard_at(0).read();
        assert_eq!(shard.watches.watched().count(), 0, "a watcher left over");
    }
}
