//! What the engine's defragmenter uses. The store cannot tell live entries
//! from dead ones (the engine's index can), so defragmentation is a dialog:
//! the engine asks for [`candidates`](super::SsdStore::defrag_candidates),
//! reads a block's [`entries`](super::SsdStore::entries) in one device
//! read, re-appends the live ones with
//! [`append_relocated`](super::SsdStore::append_relocated) (which may use
//! the reserve), releases the originals, and the block frees itself when
//! nothing in it is live ([`free_block`](super::SsdStore::free_block) for
//! the rest). The crate documentation states which tombstones it may drop.

use bytes::Bytes;
use strata_device::AlignedBuf;

use super::geometry::align_up;
use super::handle::SsdStore;
use super::table::BlockState;
use super::writer::Room;
use crate::error::SsdError;
use crate::format::entry;
use crate::loc::BlockLoc;
use crate::user::StoreUser;

/// One entry of a block, as [`SsdStore::entries`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Where it is.
    pub loc: BlockLoc,
    /// The kind byte it was appended with.
    pub kind: u8,
    /// Its payload.
    pub payload: Bytes,
}

/// Free space in blocks, as [`SsdStore::free_space`] counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreeSpace {
    /// Blocks ordinary appends may still open.
    pub available: u32,
    /// Write blocks on the device.
    pub total: u32,
}

impl SsdStore {
    /// The primary user's sealed blocks whose live bytes are below
    /// `threshold_pct` percent of a block, lowest live fraction first. The
    /// open block and other users' blocks are never candidates.
    pub fn defrag_candidates(&self, threshold_pct: u8) -> Vec<u32> {
        let usable = self.inner.geometry.usable();
        self.inner.table.candidates(threshold_pct, usable)
    }

    /// Whether `block` is still a candidate at `threshold_pct`: sealed, with
    /// live bytes below it (a queued candidate may have freed itself, or
    /// been freed and written again, since it was listed).
    pub fn is_defrag_candidate(&self, block: u32, threshold_pct: u8) -> bool {
        let table = &self.inner.table;
        let usable = self.inner.geometry.usable() as u64;
        matches!(table.state(block), Some((BlockState::Sealed, _)))
            && table.owner(block) == Some(StoreUser::KV)
            && table.live(block) * 100 < usable * u64::from(threshold_pct)
    }

    /// Blocks an ordinary append can still open without defragmentation
    /// (free ones and freeing ones, which the next open reclaims), beyond
    /// the defragmenter's reserve, and the device's write blocks in all.
    pub fn free_space(&self) -> FreeSpace {
        let inner = &self.inner;
        let (free, freeing) = inner.table.free_counts();
        FreeSpace {
            available: (free + freeing).saturating_sub(inner.geometry.reserve),
            total: inner.geometry.data_blocks(),
        }
    }

    /// Every entry of the primary user's sealed `block`, live or dead, in
    /// append order,
    /// read with one device read and CRC-checked (`Corrupt` names the first
    /// bad entry).
    pub fn entries(&self, block: u32) -> Result<Vec<Entry>, SsdError> {
        let inner = &self.inner;
        let (state, seq) = inner
            .table
            .state(block)
            .ok_or(SsdError::Misuse("no such block"))?;
        if state != BlockState::Sealed {
            return Err(SsdError::Misuse("only sealed blocks can be listed"));
        }
        // A queued candidate may have been freed and reused by a run.
        if inner.table.owner(block) != Some(StoreUser::KV) {
            return Err(SsdError::Misuse(
                "only the primary user's blocks can be listed",
            ));
        }
        let used = inner.table.used(block);
        let mut image = AlignedBuf::zeroed(align_up(used));
        inner.read_device(&mut image, block, 0)?;
        let parsed = entry::parse_block(&image, used, entry::seed(inner.nonce, seq, block));
        if let Some((offset, reason)) = parsed.bad {
            return Err(SsdError::Corrupt {
                block,
                offset,
                reason,
            });
        }
        Ok(parsed
            .entries
            .into_iter()
            .map(|(offset, found)| Entry {
                loc: BlockLoc { block, offset },
                kind: found.kind,
                payload: Bytes::copy_from_slice(&image[found.payload]),
            })
            .collect())
    }

    /// [`append`](Self::append) for the defragmenter: may use the reserve
    /// (refused only when no block at all is free), and counts as moved.
    /// The caller releases the original afterwards.
    pub fn append_relocated(&self, kind: u8, payload: &[u8]) -> Result<BlockLoc, SsdError> {
        self.inner.append_entry(kind, payload, Room::Relocated)
    }

    /// [`append`](Self::append) that may use the reserve, like the
    /// defragmenter's, without counting as moved: for entries that make
    /// room (an engine's tombstones), which must work on a full device.
    pub fn append_reserved(&self, kind: u8, payload: &[u8]) -> Result<BlockLoc, SsdError> {
        self.inner.append_entry(kind, payload, Room::Reserved)
    }

    /// Frees the sealed `block` once the engine has moved everything live
    /// out of it. Refused with [`SsdError::StillLive`] while live bytes
    /// remain, unless `force` (which drops them). A block already freed or
    /// freeing is fine. The space is reusable after the next flush.
    pub fn free_block(&self, block: u32, force: bool) -> Result<(), SsdError> {
        self.inner.table.free(block, force)
    }

    /// The sequence number of `block`'s current life; `None` if free.
    pub fn block_seq(&self, block: u32) -> Option<u64> {
        match self.inner.table.state(block)? {
            (BlockState::Free, _) => None,
            (_, seq) => Some(seq),
        }
    }

    /// The lowest sequence number of any primary user's block still
    /// holding entries on the device, freeing blocks whose freed marker is
    /// not yet durable included (other users' runs are passed over). A
    /// tombstone in the block with this sequence may be dropped (see the
    /// crate documentation).
    pub fn oldest_seq(&self) -> Option<u64> {
        self.inner.table.oldest_seq()
    }
}
