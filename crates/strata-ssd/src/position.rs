//! [`Position`]: where an entry lies in the store's append order, across
//! blocks and their lives: (block sequence, offset). Appends get strictly
//! increasing positions (they hold the writer lock), relocations included,
//! and a block's new life has a new sequence, so a position is never
//! reused. An engine compares positions to tell which of two entries was
//! appended later, and to remember "everything before here was durable".

use std::fmt;

use crate::loc::OFFSET_BITS;

/// A point in append order; see the module documentation. Packed into a
/// `u64` (the offset / 8 in the low [`OFFSET_BITS`] bits, the block
/// sequence above), so it can be stored in 8 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Position(u64);

impl Position {
    /// Before every entry.
    pub const START: Position = Position(0);

    /// The entry at byte `offset` (a multiple of 8) of the block life with
    /// sequence `seq`.
    pub fn new(seq: u64, offset: u32) -> Position {
        Position((seq << OFFSET_BITS) | u64::from(offset >> 3))
    }

    /// The packed form (see [`from_bits`](Self::from_bits)).
    pub fn to_bits(self) -> u64 {
        self.0
    }

    /// The inverse of [`to_bits`](Self::to_bits).
    pub fn from_bits(bits: u64) -> Position {
        Position(bits)
    }

    /// The block sequence this position lies in.
    pub fn seq(self) -> u64 {
        self.0 >> OFFSET_BITS
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let offset = (self.0 & ((1 << OFFSET_BITS) - 1)) << 3;
        write!(f, "seq {} offset {offset}", self.seq())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_order_by_sequence_then_offset() {
        let a = Position::new(3, (8 << 20) - 8);
        let b = Position::new(4, 64);
        assert!(Position::START < a && a < b);
        assert!(Position::new(4, 64) < Position::new(4, 72));
        assert_eq!(Position::from_bits(b.to_bits()), b);
        assert_eq!(b.seq(), 4);
    }
}
