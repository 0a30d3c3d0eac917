//! A shard's part when a restart adopts a persistent index over the SSD
//! tier (`tier/ssd_adopt.rs`): every stub marks its entry live; a stub
//! whose record never reached the device loses its key.

use strata_ssd::{Recovery, SsdError};

use super::ShardInner;
use crate::tier::ValueRef;

/// Stubs whose memory is touched together (see `adopt_ssd_entries`).
const BATCH: usize = 16;

/// What marking a shard's stubs found.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Adopted {
    /// Stubs checked.
    pub checked: u64,
    /// Keys lost: their record did not reach the device.
    pub lost: u64,
}

impl ShardInner {
    /// Marks the entry of every stub live in `recovery`. A stub whose entry
    /// lies past its block's durable end (appended after the last write
    /// that reached the device) loses its key: it leaves the index, durably.
    /// Its older records may still be on the device, but which of them was
    /// the newest is not known without a scan, and serving an older one
    /// would undo acknowledged writes.
    pub(crate) fn adopt_ssd_entries(&mut self, recovery: &Recovery) -> Result<Adopted, String> {
        let mut adopted = Adopted::default();
        let mut lost = Vec::new();
        let mut tally = recovery.tally().map_err(|e| e.to_string())?;
        let mut batch = Vec::with_capacity(BATCH);
        let mut items = self.index.items_in(0, self.index.capacity()).peekable();
        while items.peek().is_some() {
            batch.clear();
            batch.extend(items.by_ref().take(BATCH));
            // The stubs lie in random order in memory: touching the batch
            // first overlaps their cache misses.
            let touched = batch
                .iter()
                .fold(0u8, |acc, &(_, loc)| acc ^ self.arena.touch(loc));
            std::hint::black_box(touched);
            for &(slot, loc) in &batch {
                let vref = ValueRef::decode(self.arena.record(loc).value());
                adopted.checked += 1;
                match tally.mark(vref.loc, vref.len as usize) {
                    Ok(()) => {}
                    Err(SsdError::NotLive { .. }) => lost.push(slot),
                    Err(e) => return Err(e.to_string()),
                }
            }
        }
        drop(items);
        recovery.add_tally(tally).map_err(|e| e.to_string())?;
        // Segment usage and expiry counts are recounted later from the
        // index (the adopted shard's pending recount): only the index
        // changes here.
        for &slot in &lost {
            self.index.remove(slot);
        }
        adopted.lost = lost.len() as u64;
        Ok(adopted)
    }
}
