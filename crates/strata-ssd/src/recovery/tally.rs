//! [`LiveTally`]: marking live entries from many threads at once (an
//! engine adopting an index with millions of entries). Each tally checks
//! entries against a copy of the blocks' extents and counts live bytes in
//! its own array; [`Recovery::add_tally`] adds them to the store's table,
//! once per block, so the threads share no counter while marking. The
//! parallel scan (`split.rs`) gives each worker one, which it also unmarks
//! from (a later entry supersedes a key's record) and clears (a flush
//! marker).

use super::state::Recovery;
use crate::error::SsdError;
use crate::format::block_header::BLOCK_HEADER_LEN;
use crate::format::entry::{footprint, ENTRY_ALIGN};
use crate::loc::BlockLoc;
use crate::store::table::BlockState;

/// Live bytes counted by one thread; see the module documentation.
pub struct LiveTally {
    /// Per block: used bytes if it holds entries, 0 otherwise.
    used: Vec<u32>,
    live: Vec<u64>,
}

impl LiveTally {
    /// [`Recovery::set_live`] into this tally: the same checks, except
    /// that marking an entry twice is only caught when the tally is added.
    pub fn mark(&mut self, loc: BlockLoc, payload_len: usize) -> Result<(), SsdError> {
        let used = self.used.get(loc.block as usize).copied().unwrap_or(0) as usize;
        let not_live = |reason: &str| SsdError::NotLive {
            loc,
            reason: reason.to_owned(),
        };
        if used == 0 {
            return Err(not_live("no block holding entries"));
        }
        let size = footprint(payload_len);
        let offset = loc.offset as usize;
        if !offset.is_multiple_of(ENTRY_ALIGN) || offset < BLOCK_HEADER_LEN || offset + size > used
        {
            return Err(not_live("outside the block's entries"));
        }
        self.live[loc.block as usize] += size as u64;
        Ok(())
    }

    /// Takes back a [`mark`](Self::mark) of the same entry made on this
    /// tally; refused if this tally counts fewer live bytes in its block.
    pub fn unmark(&mut self, loc: BlockLoc, payload_len: usize) -> Result<(), SsdError> {
        let size = footprint(payload_len) as u64;
        match self.live.get_mut(loc.block as usize) {
            Some(live) if *live >= size => {
                *live -= size;
                Ok(())
            }
            _ => Err(SsdError::NotLive {
                loc,
                reason: "unmarked but never marked".into(),
            }),
        }
    }

    /// Forgets every mark.
    pub fn clear(&mut self) {
        self.live.fill(0);
    }
}

impl Recovery {
    /// A tally for marking live entries on this thread (after
    /// [`scan`](Self::scan) or [`adopt`](Self::adopt)); add it with
    /// [`add_tally`](Self::add_tally).
    pub fn tally(&self) -> Result<LiveTally, SsdError> {
        if !self.scanned {
            return Err(SsdError::Misuse("a tally before the scan"));
        }
        Ok(self.tally_now())
    }

    /// A tally over the blocks' extents as they are now (before a scan:
    /// as their headers say; the scan delivers no entry past a cut).
    pub(super) fn tally_now(&self) -> LiveTally {
        let blocks = self.geometry.block_count as usize;
        let used = (0..blocks as u32)
            .map(|b| match self.table.state(b) {
                Some((BlockState::Sealed, _)) => self.table.used(b) as u32,
                _ => 0,
            })
            .collect();
        LiveTally {
            used,
            live: vec![0; blocks],
        }
    }

    /// Adds what `tally` marked. Refused, changing nothing, if a block would
    /// count more live bytes than it holds (entries marked twice).
    pub fn add_tally(&self, tally: LiveTally) -> Result<(), SsdError> {
        for (block, &bytes) in tally.live.iter().enumerate() {
            let block = block as u32;
            let held = (self.table.used(block).saturating_sub(BLOCK_HEADER_LEN)) as u64;
            if bytes > 0 && self.table.live(block) + bytes > held {
                return Err(SsdError::NotLive {
                    loc: BlockLoc {
                        block,
                        offset: BLOCK_HEADER_LEN as u32,
                    },
                    reason: "more live bytes than the block holds (entries marked twice?)".into(),
                });
            }
        }
        for (block, &bytes) in tally.live.iter().enumerate() {
            if bytes > 0 {
                self.table.add_live(block as u32, bytes);
            }
        }
        Ok(())
    }
}
