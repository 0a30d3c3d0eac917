//! [`Footprint`]: what one key costs in its shard, counted as
//! `used_memory` counts it: each of its records as stored in the arena
//! (header, key, value; a large collection's head and every chunk) and
//! the index slot each one holds. [`LargeRead::footprint`] measures it
//! under the shard's lock, from the index and the record headers alone.
//! A leaf, so the shard can name it.
//!
//! [`LargeRead::footprint`]: crate::LargeRead::footprint

use crate::index::SLOT_BYTES;

/// The bytes one key holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Records: 1, or for a large collection its head plus its chunks.
    pub records: u64,
    /// Bytes of those records as written in the arena (with the SSD tier,
    /// the DRAM stubs that name the records on the device).
    pub record_bytes: u64,
    /// Bytes of their index slots (entry and access word each).
    pub index_bytes: u64,
}

impl Footprint {
    /// Everything the key costs: records and index slots.
    pub fn bytes(&self) -> u64 {
        self.record_bytes + self.index_bytes
    }

    /// Counts one more record of `record_len` bytes and its slot.
    pub(crate) fn add(&mut self, record_len: usize) {
        self.records += 1;
        self.record_bytes += record_len as u64;
        self.index_bytes += SLOT_BYTES as u64;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{Keyspace, KeyspaceConfig, ManualClock, NewItem, Store, ValueKind};

    fn keyspace() -> Arc<Keyspace> {
        let config = KeyspaceConfig {
            shards: 1,
            ..KeyspaceConfig::default()
        };
        Keyspace::new(config, Arc::new(ManualClock::new(1_000_000)))
    }

    fn footprint(ks: &Keyspace, key: &[u8]) -> Option<super::Footprint> {
        ks.store().read_large(key, |read| read.footprint())
    }

    fn set(ks: &Keyspace, key: &[u8], value: &[u8]) {
        let item = NewItem {
            value: value.into(),
            flags: 0,
            expires_at: None,
        };
        ks.store().set(key, item).unwrap();
    }

    #[test]
    fn an_empty_keyspace_holds_its_smallest_indexes() {
        let stats = keyspace().stats();
        assert_eq!(stats.used_memory, stats.used_memory_startup);
        assert_eq!(stats.used_memory, stats.index_bytes);
        assert_eq!(stats.used_memory_startup, crate::index::EMPTY_BYTES as u64);
    }

    #[test]
    fn a_string_costs_its_record_and_one_slot() {
        let ks = keyspace();
        assert_eq!(footprint(&ks, b"k"), None);
        let before = ks.stats().used_memory;
        set(&ks, b"k", &[b'v'; 100]);
        let after = ks.stats().used_memory;
        let fp = footprint(&ks, b"k").unwrap();
        assert_eq!(fp.records, 1);
        assert_eq!(
            fp.record_bytes,
            after - before,
            "the record, as used_memory grew"
        );
        // 1 control byte, 3 one-byte lengths... plus key and value.
        assert!(fp.record_bytes > 101 && fp.record_bytes < 120, "{fp:?}");
        assert_eq!(fp.index_bytes, super::SLOT_BYTES as u64);
        assert_eq!(fp.bytes(), fp.record_bytes + fp.index_bytes);
        set(&ks, b"k", &[b'v'; 1000]);
        let grown = footprint(&ks, b"k").unwrap();
        assert_eq!(
            grown.record_bytes,
            fp.record_bytes + 900 + 1,
            "a 2-byte length"
        );
        // The superseded record stays in used_memory until compacted; the
        // key's footprint is its live record only.
        assert_eq!(ks.stats().used_memory, after + grown.record_bytes);
    }

    #[test]
    fn a_large_collection_costs_its_head_and_every_chunk() {
        let ks = keyspace();
        let before = ks.stats().used_memory;
        ks.store()
            .edit_large(b"h", |edit| {
                for n in 0..3 {
                    edit.put_chunk(n, ValueKind::Hash, &[b'c'; 500])?;
                }
                edit.put_head(ValueKind::Hash, 3, b"meta", None)
            })
            .unwrap()
            .unwrap();
        let grown = ks.stats().used_memory - before;
        let fp = footprint(&ks, b"h").unwrap();
        assert_eq!(fp.records, 4);
        assert_eq!(fp.record_bytes, grown);
        assert_eq!(fp.index_bytes, 4 * super::SLOT_BYTES as u64);
        assert!(fp.record_bytes > 3 * 500 + 4, "{fp:?}");
        // Chunks are not user keys: a user key of a chunk's bytes is apart.
        assert_eq!(footprint(&ks, &crate::chunk::chunk_key(b"h", 0)), None);
    }

    #[test]
    fn expired_items_cost_nothing() {
        let clock = Arc::new(ManualClock::new(1_000_000));
        let config = KeyspaceConfig {
            shards: 1,
            ..KeyspaceConfig::default()
        };
        let ks = Keyspace::new(config, clock.clone());
        let item = NewItem {
            value: b"v".as_slice().into(),
            flags: 0,
            expires_at: Some(1_000_500),
        };
        ks.store().set(b"k", item).unwrap();
        assert!(footprint(&ks, b"k").is_some());
        clock.advance_ms(1_000);
        assert_eq!(footprint(&ks, b"k"), None);
    }

    #[test]
    fn the_peak_stays_after_a_flush() {
        let ks = keyspace();
        for i in 0..100u32 {
            set(&ks, &i.to_be_bytes(), &[b'x'; 200]);
        }
        let high = ks.stats().used_memory;
        assert!(ks.stats().used_memory_peak >= high);
        ks.store().flush().unwrap();
        let stats = ks.stats();
        assert!(stats.used_memory < high);
        assert!(stats.used_memory_peak >= high);
    }
}
