//! [`Tombstones`]: the live tombstone entries of the SSD tier, by block,
//! as the keyspace keeps them in DRAM. A leaf.

use std::collections::HashMap;

use strata_ssd::BlockLoc;

/// The live tombstone entries, by block: offset and key length, 8 bytes of
/// DRAM each. A tombstone is live from its append until the defragmenter
/// finds it unneeded or a flush releases it (the flush marker then
/// shadows it).
#[derive(Default)]
pub(super) struct Tombstones {
    /// Per block, the live tombstones' (offset, key length).
    pub(super) by_block: HashMap<u32, Vec<(u32, u32)>>,
    /// Live tombstones in all.
    pub(super) count: u64,
}

impl Tombstones {
    /// Counts the tombstone at `loc` of a `key_len`-byte key as live.
    pub(super) fn add(&mut self, loc: BlockLoc, key_len: usize) {
        let entry = (loc.offset, key_len as u32);
        self.by_block.entry(loc.block).or_default().push(entry);
        self.count += 1;
    }

    /// Whether the tombstone at `loc` is live.
    pub(super) fn contains(&self, loc: BlockLoc) -> bool {
        self.by_block
            .get(&loc.block)
            .is_some_and(|offsets| offsets.iter().any(|&(o, _)| o == loc.offset))
    }

    /// Forgets the live tombstone at `loc`; false if it was not live.
    pub(super) fn remove(&mut self, loc: BlockLoc) -> bool {
        let Some(offsets) = self.by_block.get_mut(&loc.block) else {
            return false;
        };
        let Some(at) = offsets.iter().position(|&(o, _)| o == loc.offset) else {
            return false;
        };
        offsets.swap_remove(at);
        if offsets.is_empty() {
            self.by_block.remove(&loc.block);
        }
        self.count -= 1;
        true
    }
}
