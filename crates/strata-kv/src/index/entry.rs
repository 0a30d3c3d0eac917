//! The 8-byte index entry: 0 is an empty slot, 1 a tombstone, anything
//! else an item, laid out as
//! ```text
//! 63..48 tag (16 hash bits, never 0) | 47 accessed | 46..20 segment | 19..0 offset
//! ```
//! with the load thresholds that decide when the table is rebuilt. A leaf:
//! pure functions and constants.

use crate::arena::Loc;

pub(super) const EMPTY: u64 = 0;
pub(super) const TOMBSTONE: u64 = 1;
pub(super) const ACCESSED: u64 = 1 << 47;
pub(super) const TAG_SHIFT: u32 = 48;
pub(super) const SEG_SHIFT: u32 = 20;
pub(super) const OFF_MASK: u64 = (1 << SEG_SHIFT) - 1;
pub(super) const SEG_MASK: u64 = (1 << 27) - 1;
/// Grow (or purge tombstones) when used slots would pass 85% of capacity.
pub(super) const MAX_LOAD_PCT: usize = 85;
/// Rebuilds grow by half when live entries are above 60% of capacity.
pub(super) const GROW_LIVE_PCT: usize = 60;
pub(super) const MIN_CAPACITY: usize = 16;

pub(super) fn tag(hash: u64) -> u64 {
    let t = (hash >> 16) & 0xffff;
    (if t == 0 { 1 } else { t }) << TAG_SHIFT
}

pub(super) fn encode(hash: u64, loc: Loc) -> u64 {
    tag(hash) | (u64::from(loc.seg) << SEG_SHIFT) | u64::from(loc.off)
}

pub(super) fn decode(entry: u64) -> Loc {
    Loc {
        seg: ((entry >> SEG_SHIFT) & SEG_MASK) as u32,
        off: (entry & OFF_MASK) as u32,
    }
}

pub(super) fn is_item(entry: u64) -> bool {
    entry > TOMBSTONE
}
