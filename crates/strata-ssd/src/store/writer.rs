//! The open block's DRAM buffer ([`Writer`], behind the store's writer
//! mutex) and the sequence counter, and [`Room`], which appends may use
//! the reserve. A leaf: the write path that fills and writes the buffer is
//! `write`.

use bytes::Bytes;
use strata_device::AlignedBuf;

use crate::format::entry;
use crate::loc::BlockLoc;
use crate::user::StoreUser;

/// The open block's buffer and the sequence counter.
pub(crate) struct Writer {
    pub(super) buf: AlignedBuf,
    pub(super) open: Option<OpenBlock>,
    /// The sequence the next opened block gets; every sequence handed out
    /// is below it.
    pub(crate) next_seq: u64,
}

pub(super) struct OpenBlock {
    pub(super) block: u32,
    pub(super) owner: StoreUser,
    pub(super) seq: u64,
    pub(super) seed: u32,
    pub(super) used: usize,
    pub(super) entries: u32,
    /// Bytes of `used` already written to the device, and their entries.
    pub(super) written: usize,
    pub(super) written_entries: u32,
    /// The frontier the block's header on the device records.
    pub(super) header_frontier: u64,
}

impl Writer {
    pub(crate) fn new(block_size: usize, next_seq: u64) -> Writer {
        Writer {
            buf: AlignedBuf::zeroed(block_size),
            open: None,
            next_seq,
        }
    }

    /// The entry at `loc` if its block is the open one: `(kind, payload)`,
    /// or why it cannot be decoded.
    pub(crate) fn read_open(&self, loc: BlockLoc) -> Option<Result<(u8, Bytes), String>> {
        let open = self.open.as_ref().filter(|o| o.block == loc.block)?;
        let at = loc.offset as usize;
        Some(
            entry::decode(&self.buf, at, open.used, open.seed)
                .map(|e| (e.kind, Bytes::copy_from_slice(&self.buf[e.payload]))),
        )
    }
}

/// Which appends may use the blocks kept in reserve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Room {
    /// Refused at the reserve.
    Ordinary,
    /// The defragmenter's: may use the reserve, counted as moved.
    Relocated,
    /// Tombstones and markers: may use the reserve (deleting is how room
    /// is made), not counted as moved.
    Reserved,
}
