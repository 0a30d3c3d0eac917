//! Warming the CPU cache for a batch of keys about to be used: pipelined
//! requests that arrived together name their keys before any of them runs,
//! and a lookup's cost is mostly two dependent memory misses (the index
//! slot, then the record it points at). Issuing every batch member's loads
//! first lets the misses overlap instead of being paid one after another.
//!
//! Only hints: nothing changes, nothing is read but the index slots (under
//! the shard's read lock, never waited for: a shard held by another thread
//! is skipped), and a key that is absent, or whose record moves before it
//! is used, only costs the wasted loads.

use super::core::Keyspace;

/// Most keys warmed per call; later ones would be evicted again before use.
pub const PREFETCH_BATCH: usize = 16;

impl Keyspace {
    /// Starts loading the index slots and then the records that lookups of
    /// the first [`PREFETCH_BATCH`] of `keys` (user keys) will read.
    pub fn prefetch(&self, keys: &[&[u8]]) {
        let mut hashes = [0u64; PREFETCH_BATCH];
        let n = keys.len().min(PREFETCH_BATCH);
        for (hash, key) in hashes.iter_mut().zip(keys) {
            *hash = self.ctx.hash(key);
            if let Some(shard) = self.shard(*hash).try_read() {
                shard.prefetch_slot(*hash);
            }
        }
        // By now the first slots have arrived or are on their way.
        for &hash in &hashes[..n] {
            if let Some(shard) = self.shard(hash).try_read() {
                shard.prefetch_record(hash);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{KeyspaceConfig, NewItem, Store, SystemClock};

    use super::{Keyspace, PREFETCH_BATCH};

    /// A prefetch is only a hint: present, absent, deleted and too many
    /// keys, or a shard this thread holds write-locked, change nothing and
    /// never wait.
    #[test]
    fn a_prefetch_changes_nothing_and_never_waits() {
        let ks = Keyspace::new(
            KeyspaceConfig {
                shards: 4,
                ..KeyspaceConfig::default()
            },
            Arc::new(SystemClock),
        );
        let keys: Vec<Vec<u8>> = (0..3 * PREFETCH_BATCH)
            .map(|i| format!("k{i}").into_bytes())
            .collect();
        let mut store = ks.store();
        for key in keys.iter().step_by(2) {
            let item = NewItem {
                value: key.as_slice().into(),
                flags: 0,
                expires_at: None,
            };
            store.set(key, item).unwrap();
        }
        store.delete(&keys[0]).unwrap();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        ks.prefetch(&refs);
        ks.prefetch(&[]);
        let held = ks.shard(ks.ctx.hash(&keys[2])).write();
        ks.prefetch(&refs);
        drop(held);
        for (i, key) in keys.iter().enumerate() {
            let want = (i % 2 == 0 && i > 0).then(|| key.clone());
            assert_eq!(store.get(key, |item| item.value.to_vec()), want, "key {i}");
        }
    }
}
