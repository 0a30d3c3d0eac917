//! [`Geometry`]: where blocks are on the device and how much they hold.

use strata_device::BLOCK_ALIGN;

use crate::format::block_header::BLOCK_HEADER_LEN;
use crate::format::entry::ENTRY_HEADER_LEN;

/// The fixed shape of a formatted device.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Geometry {
    /// Bytes per write block.
    pub(crate) block_size: usize,
    /// Blocks on the device, block 0 (the device header) included.
    pub(crate) block_count: u32,
    /// Free blocks ordinary appends leave to the defragmenter.
    pub(crate) reserve: u32,
}

impl Geometry {
    /// Byte offset of `block` on the device.
    pub(crate) fn offset(&self, block: u32) -> u64 {
        u64::from(block) * self.block_size as u64
    }

    /// Bytes of a block entries can use.
    pub(crate) fn usable(&self) -> usize {
        self.block_size - BLOCK_HEADER_LEN
    }

    /// The largest payload one entry can carry.
    pub(crate) fn max_payload(&self) -> usize {
        self.usable() - ENTRY_HEADER_LEN
    }

    /// Write blocks (block 0 excluded).
    pub(crate) fn data_blocks(&self) -> u32 {
        self.block_count - 1
    }
}

/// `n` rounded up to the device alignment.
pub(crate) fn align_up(n: usize) -> usize {
    n.next_multiple_of(BLOCK_ALIGN)
}

/// `n` rounded down to the device alignment.
pub(crate) fn align_down(n: usize) -> usize {
    n - n % BLOCK_ALIGN
}
