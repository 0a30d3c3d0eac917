//! [`BlockLoc`]: where an entry is on the device, and how it packs into the
//! engine's 8-byte index entries.

use std::fmt;

/// Bits of a packed offset: 8 MiB blocks at 8-byte alignment are 2^20
/// positions.
pub const OFFSET_BITS: u32 = 20;

/// Bits of a packed block number: up to 2^27 blocks (128 TiB of 1 MiB
/// blocks); a device with more blocks is refused.
pub const BLOCK_BITS: u32 = 27;

/// Bits of [`BlockLoc::pack`]'s result: 47, leaving 17 bits of an 8-byte
/// index entry for a 16-bit tag and one flag.
pub const PACKED_BITS: u32 = OFFSET_BITS + BLOCK_BITS;

/// The position of an entry: its write block and the byte offset of its
/// header inside the block (a multiple of 8). The length is not needed:
/// the entry header holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockLoc {
    /// Write block number (block 0 is the device header, never an entry).
    pub block: u32,
    /// Offset of the entry header in the block, a multiple of 8.
    pub offset: u32,
}

impl BlockLoc {
    /// The location in [`PACKED_BITS`] bits: block number above, offset / 8
    /// below. Lossless for every location the store hands out.
    pub fn pack(self) -> u64 {
        (u64::from(self.block) << OFFSET_BITS) | u64::from(self.offset >> 3)
    }

    /// The inverse of [`pack`](Self::pack); bits above [`PACKED_BITS`] are
    /// ignored.
    pub fn unpack(bits: u64) -> BlockLoc {
        BlockLoc {
            block: ((bits >> OFFSET_BITS) & ((1 << BLOCK_BITS) - 1)) as u32,
            offset: ((bits & ((1 << OFFSET_BITS) - 1)) << 3) as u32,
        }
    }
}

/// A location as a word of a record's cache version: [`BlockLoc::pack`],
/// one to one for every location the store hands out.
impl strata_cache::Word for BlockLoc {
    fn word(self) -> u64 {
        self.pack()
    }
}

impl fmt::Display for BlockLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "block {} offset {}", self.block, self.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_locations_pack_losslessly_into_47_bits() {
        let max = BlockLoc {
            block: (1 << BLOCK_BITS) - 1,
            offset: (8 << 20) - 8,
        };
        assert!(max.pack() < 1 << PACKED_BITS);
        for loc in [
            max,
            BlockLoc {
                block: 1,
                offset: 64,
            },
        ] {
            assert_eq!(BlockLoc::unpack(loc.pack()), loc);
        }
    }
}
