//! What keeps deletes deleted on the SSD tier: the live tombstones
//! (appended, with a rebuilt index, when an item leaves; dropped or moved
//! by the defragmenter) and the flush marker that shadows every entry
//! before it (the rules are in `mod.rs`'s documentation).

use std::sync::atomic::Ordering;

use strata_ssd::{BlockLoc, IndexHome};

use super::entries::{tombstone_kind, FLUSH_PAYLOAD_LEN, KIND_FLUSH};
use super::{ssd_error, SsdTier};
use crate::KvError;

impl SsdTier {
    /// Appends a live tombstone for `key` (under the key's shard lock). It
    /// may use the blocks kept in reserve (like the defragmenter), so that
    /// deleting still works when the tier is full: deleting is how a user
    /// makes room. With a persistent index there is nothing to append: the
    /// index entry's removal is the durable delete.
    pub(crate) fn append_tombstone(
        &self,
        key: &[u8],
        ns: crate::chunk::Namespace,
    ) -> Result<(), KvError> {
        if self.home == IndexHome::Persistent {
            return Ok(());
        }
        let loc = self
            .store
            .append_reserved(tombstone_kind(ns), key)
            .map_err(ssd_error)?;
        self.tombstones.lock().add(loc, key.len());
        Ok(())
    }

    /// Counts the tombstone at `loc` as live (a rebuild).
    pub(crate) fn keep_tombstone(&self, loc: BlockLoc, key_len: usize) {
        self.tombstones.lock().add(loc, key_len);
    }

    /// Whether the tombstone at `loc` is live.
    pub(crate) fn tombstone_live(&self, loc: BlockLoc) -> bool {
        self.tombstones.lock().contains(loc)
    }

    /// Releases the live tombstone at `loc` of `key_len` bytes (the
    /// defragmenter, under the key's shard lock); false if it was not live.
    pub(crate) fn drop_tombstone(&self, loc: BlockLoc, key_len: usize) -> bool {
        let dropped = self.tombstones.lock().remove(loc);
        if dropped {
            self.release(loc, key_len);
        }
        dropped
    }

    /// Replaces the live tombstone at `from` by its relocated copy `to`.
    pub(crate) fn moved_tombstone(&self, from: BlockLoc, to: BlockLoc, key_len: usize) {
        let mut live = self.tombstones.lock();
        if live.remove(from) {
            live.add(to, key_len);
            drop(live);
            self.release(from, key_len);
        }
    }

    /// Live tombstones now.
    pub fn tombstones(&self) -> u64 {
        self.tombstones.lock().count
    }

    /// Appends a flush marker before a flush of the whole keyspace
    /// releases every entry; the previous marker is released.
    pub(crate) fn begin_flush(&self) -> Result<(), KvError> {
        let n = self.flushes.fetch_add(1, Ordering::Relaxed);
        let loc = self
            .store
            .append_reserved(KIND_FLUSH, &n.to_le_bytes())
            .map_err(ssd_error)?;
        if let Some(old) = self.flush_marker.lock().replace(loc) {
            self.release(old, FLUSH_PAYLOAD_LEN);
        }
        // Every tombstone lies before the marker: shadowed by it now.
        let live = std::mem::take(&mut *self.tombstones.lock());
        for (block, offsets) in live.by_block {
            for (offset, len) in offsets {
                self.release(BlockLoc { block, offset }, len as usize);
            }
        }
        Ok(())
    }

    /// Whether `block` holds the current flush marker.
    pub(crate) fn holds_flush_marker(&self, block: u32) -> bool {
        self.flush_marker.lock().is_some_and(|m| m.block == block)
    }

    /// Drops the flush marker found at `loc` in the oldest block, which the
    /// defragmenter is emptying: nothing older is left for it to shadow.
    /// (The defragmenter never empties the marker's block before it is the
    /// oldest: see `open/defrag.rs`.)
    pub(crate) fn drop_oldest_marker(&self, loc: BlockLoc) {
        let mut marker = self.flush_marker.lock();
        if *marker == Some(loc) {
            *marker = None;
            self.release(loc, FLUSH_PAYLOAD_LEN);
        }
    }
}
