//! The on-device format, as pure encode/decode functions (no I/O).
//!
//! ```text
//! device: | block 0: device header | block 1 | block 2 | ... | block N-1 |
//! block:  | block header (64 B) | entry | entry | ... | (unused) |
//! entry:  | len u32 | kind u8 | 0 0 0 | crc32c u32 | payload | pad to 8 |
//! ```
//!
//! All integers are little-endian. Block 0 holds only the device header
//! (`device_header`); every other block is a write block whose first 4 KiB
//! page starts with a block header (`block_header`): either "written" (a
//! sequence number, the bytes used) or "freed" (a marker left when the
//! block was freed). An entry's CRC (`entry`) is seeded with the device
//! nonce, the block's sequence number and the block number, so bytes left
//! over from an earlier life of the block, or from an earlier format of the
//! device, never pass as entries of the current one.

pub(crate) mod block_header;
pub(crate) mod device_header;
pub(crate) mod entry;
