//! [`BLOCK_ALIGN`]: the one unit of aligned I/O, and rounding to it.

/// Alignment of memory addresses, offsets and lengths of direct I/O: 4096
/// covers devices with 512-byte and 4096-byte logical blocks.
pub const BLOCK_ALIGN: usize = 4096;

/// [`BLOCK_ALIGN`] as a file offset.
pub(crate) const BLOCK_ALIGN_U64: u64 = BLOCK_ALIGN as u64;

/// `pos` rounded down to a multiple of [`BLOCK_ALIGN`].
pub(crate) fn align_down(pos: u64) -> u64 {
    pos & !(BLOCK_ALIGN_U64 - 1)
}
