//! Lazy expiry of what a read finds expired: with a departure observer set
//! (see [`crate::departures`]) or the change observer listening (client
//! tracking), a read that finds a key's entry past its
//! expiry removes it, so the observer hears of it when a client looks the
//! key up (as Redis expires a key any command looks up), not only when the
//! background reclaimer or a write gets to it. Without an observer, reads
//! leave expired entries to those (one relaxed load on a miss).

use super::core::Keyspace;
use crate::chunk::Namespace;
use crate::shard::Removal;

impl Keyspace {
    /// Removes `key` if its entry is expired (and reports it), when a
    /// departure observer is set or the change observer listens. Takes the key's shard lock: call it with
    /// no lock held.
    pub(crate) fn lazy_expire(&self, key: &[u8]) {
        if !self.ctx.departures.is_set() && !self.ctx.changes.listening() {
            return;
        }
        let ctx = &self.ctx;
        let (now, hash) = (ctx.now(), ctx.hash(key));
        let expired = |at: Option<u64>| at.is_some_and(|at| at <= now);
        let found = self
            .shard(hash)
            .read()
            .lookup_record_in(Namespace::User, hash, key)
            .is_some_and(|(_, rec)| expired(rec.header.expires_at));
        if !found {
            return;
        }
        let mut shard = self.shard(hash).write();
        let slot = shard
            .lookup_record_in(Namespace::User, hash, key)
            .filter(|(_, rec)| expired(rec.header.expires_at))
            .map(|(slot, _)| slot);
        if let Some(slot) = slot {
            // A removal the SSD tier refuses waits for a later attempt.
            let _ = shard.remove(ctx, slot, Removal::Expired);
        }
    }
}
