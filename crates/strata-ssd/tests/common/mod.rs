//! Shared by the integration tests: small geometries on in-memory devices,
//! and `Engine`, a minimal engine over the store that follows the crate's
//! delete-safety contract (tombstones, release after the superseding
//! append, the defragmenter's tombstone rule, live marking at rebuild).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use strata_device::MemBlockDevice;
use strata_ssd::{BlockLoc, SsdConfig, SsdError, SsdStore};

/// Kind byte of a put.
pub const PUT: u8 = 1;
/// Kind byte of a tombstone.
pub const TOMBSTONE: u8 = 2;

/// Test blocks: 64 KiB.
pub const BLOCK: usize = 64 * 1024;

/// A config with 64 KiB blocks, a small cache and few threads.
pub fn config() -> SsdConfig {
    SsdConfig {
        io_threads: 4,
        rebuild_threads: 3,
        dram_cache_size: 256 * 1024,
        ..SsdConfig::with_block_size(BLOCK)
    }
}

/// A zeroed in-memory device of `blocks` test blocks.
pub fn mem_device(blocks: usize) -> MemBlockDevice {
    MemBlockDevice::new(blocks * BLOCK)
}

/// Opens `device` expecting nothing to rebuild.
pub fn open_empty(device: &MemBlockDevice, config: SsdConfig) -> SsdStore {
    let mut recovery = SsdStore::open(Arc::new(device.clone()), config).unwrap();
    recovery
        .scan(|_, _, _| panic!("a fresh device has entries"))
        .unwrap();
    recovery.finish().unwrap()
}

/// Bytes an entry with `payload_len` payload bytes occupies.
pub fn footprint(payload_len: usize) -> u64 {
    (12 + payload_len as u64).next_multiple_of(8)
}

/// A payload: key, version, then `filler` bytes derived from both.
pub fn payload(key: u32, version: u64, filler: usize) -> Vec<u8> {
    let mut bytes = vec![(version ^ u64::from(key)) as u8 | 1; 12 + filler];
    bytes[0..4].copy_from_slice(&key.to_le_bytes());
    bytes[4..12].copy_from_slice(&version.to_le_bytes());
    bytes
}

/// Key and version of a payload, checking the filler.
pub fn decode(bytes: &[u8]) -> (u32, u64) {
    let key = u32::from_le_bytes(bytes[0..4].try_into().unwrap());
    let version = u64::from_le_bytes(bytes[4..12].try_into().unwrap());
    assert_eq!(
        bytes,
        payload(key, version, bytes.len() - 12),
        "payload damaged"
    );
    (key, version)
}

/// The index entry of a key: where its newest entry is.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub loc: BlockLoc,
    pub len: usize,
    pub kind: u8,
}

/// A minimal engine: an index over the store.
///
/// The index points at the newest entry of every key, tombstones of
/// deleted keys included (until the defragmenter drops them); exactly the
/// entries it points at are live in the store.
pub struct Engine {
    pub store: SsdStore,
    pub index: BTreeMap<u32, Slot>,
}

impl Engine {
    pub fn new(store: SsdStore) -> Engine {
        Engine {
            store,
            index: BTreeMap::new(),
        }
    }

    /// Opens `device` and rebuilds the index: the newest entry per key
    /// wins; every newest entry (tombstones included) is marked live.
    pub fn recover(device: &MemBlockDevice, config: SsdConfig) -> Result<Engine, SsdError> {
        let mut recovery = SsdStore::open(Arc::new(device.clone()), config)?;
        let mut index = BTreeMap::new();
        recovery.scan(|loc, kind, bytes| {
            let (key, _) = decode(bytes);
            let len = bytes.len();
            index.insert(key, Slot { loc, len, kind });
        })?;
        recovery.set_live_many(index.values().map(|s| (s.loc, s.len)))?;
        Ok(Engine {
            store: recovery.finish()?,
            index,
        })
    }

    pub fn put(&mut self, key: u32, version: u64, filler: usize) -> Result<BlockLoc, SsdError> {
        let bytes = payload(key, version, filler);
        let loc = self.store.append(PUT, &bytes)?;
        let new = Slot {
            loc,
            len: bytes.len(),
            kind: PUT,
        };
        if let Some(old) = self.index.insert(key, new) {
            self.store.release(old.loc, old.len).unwrap();
        }
        Ok(loc)
    }

    /// Deletes `key` with a tombstone (nothing to do if it is absent).
    pub fn delete(&mut self, key: u32, version: u64) -> Result<(), SsdError> {
        let Some(old) = self.index.get(&key).copied().filter(|s| s.kind == PUT) else {
            return Ok(());
        };
        let bytes = payload(key, version, 0);
        let loc = self.store.append(TOMBSTONE, &bytes)?;
        let len = bytes.len();
        self.index.insert(
            key,
            Slot {
                loc,
                len,
                kind: TOMBSTONE,
            },
        );
        self.store.release(old.loc, old.len).unwrap();
        Ok(())
    }

    /// The version `key` holds, read from the store.
    pub fn get(&self, key: u32) -> Option<u64> {
        let slot = self.index.get(&key).filter(|s| s.kind == PUT)?;
        let bytes = self.store.read(slot.loc).unwrap();
        let (found, version) = decode(&bytes);
        assert_eq!(found, key);
        Some(version)
    }

    /// Defragments up to `max_blocks` candidates below `threshold_pct`.
    /// Returns the blocks emptied.
    pub fn defrag(&mut self, threshold_pct: u8, max_blocks: usize) -> Result<usize, SsdError> {
        let mut emptied = 0;
        for block in self
            .store
            .defrag_candidates(threshold_pct)
            .into_iter()
            .take(max_blocks)
        {
            let oldest = self.store.oldest_seq() == self.store.block_seq(block);
            for entry in self.store.entries(block)? {
                let (key, _) = decode(&entry.payload);
                let current = self.index.get(&key).is_some_and(|s| s.loc == entry.loc);
                let len = entry.payload.len();
                match (entry.kind, current) {
                    // Released when superseded.
                    (_, false) => {}
                    (TOMBSTONE, true) if oldest => {
                        self.store.release(entry.loc, len).unwrap();
                        self.index.remove(&key);
                    }
                    (kind, _) => {
                        let loc = self.store.append_relocated(kind, &entry.payload)?;
                        self.index.insert(key, Slot { loc, len, kind });
                        self.store.release(entry.loc, len).unwrap();
                    }
                }
            }
            self.store.free_block(block, false).unwrap();
            emptied += 1;
        }
        Ok(emptied)
    }

    /// Live bytes the index accounts for.
    pub fn live_bytes(&self) -> u64 {
        self.index.values().map(|s| footprint(s.len)).sum()
    }
}
