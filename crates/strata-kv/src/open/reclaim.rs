//! When the SSD tier's space is reclaimed, and by whom: maintenance runs
//! the periodic flush that makes appends durable and empties candidate
//! blocks (`defrag.rs` empties one), and a writer that finds free space
//! short empties one itself before it writes.
//!
//! Why writers help: blocks whose records were overwritten still hold
//! live tombstones until the defragmenter visits them, so on a delete-heavy
//! load almost every block needs a visit before it is free again. The
//! maintenance thread shares the cores with the workers: measured on this
//! 2-core machine (release build, 2 writers of 1.5 KB SETs and one of
//! DELs on 360 keys, 64 MiB tier of 64 KiB blocks), it got under a tenth of
//! the CPU, emptied about 1,100 blocks a second while the writers filled
//! more, and the tier refused writes with 99% of it dead. Under the
//! writers' mark each write first empties one block, so writers can never
//! outrun reclaim while reclaimable space exists; a tier full of live data
//! still refuses writes (no candidates).
//!
//! One block is emptied at a time: the candidate queue's lock
//! (`SsdTier::defrag_queue`) is held while one is. Its lock is taken with
//! no shard lock held (maintenance holds none; writers come here before
//! they lock), and emptying takes shard locks under it, so the order is
//! always queue, then shard.

use std::time::{Duration, Instant};

use strata_ssd::FreeSpace;

use crate::keyspace::Keyspace;
use crate::tier::ssd::DefragQueue;
use crate::tier::SsdTier;

/// Blocks emptied per maintenance pass while free space is plentiful (a
/// pass runs every 100 ms).
const BLOCKS_PER_PASS: usize = 4;
/// Time a pass may spend emptying blocks under pressure: less than the
/// pass interval, so the periodic flush stays on time.
const PRESSED_PASS_BUDGET: Duration = Duration::from_millis(80);

/// How much one pass empties. Four blocks a pass reclaim 40 blocks a
/// second, less than writers on a fast machine fill: once the blocks
/// appends may still open fall under the low-water mark (an eighth of the
/// device, at least 8), a pass keeps emptying candidates until back above
/// it or out of time, and the next pass starts at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pace {
    /// Free space is plentiful: a few blocks a pass.
    Steady,
    /// Under the low-water mark: as many blocks as the budget allows.
    Pressed { until: Instant },
}

impl Pace {
    fn of(space: FreeSpace) -> Pace {
        match space.available < low_water(space.total) {
            true => Pace::Pressed {
                until: Instant::now() + PRESSED_PASS_BUDGET,
            },
            false => Pace::Steady,
        }
    }

    /// Whether the pass may empty another block after `done` of them.
    fn goes_on(self, done: usize, ssd: &SsdTier) -> bool {
        match self {
            Pace::Steady => done < BLOCKS_PER_PASS,
            Pace::Pressed { until } => {
                let space = ssd.store().free_space();
                Instant::now() < until && space.available < low_water(space.total)
            }
        }
    }
}

/// The low-water mark of blocks appends may still open: maintenance
/// hurries below it.
fn low_water(total: u32) -> u32 {
    (total / 8).max(8)
}

/// The writers' mark: below it each write first empties a block. Half the
/// low-water mark, so maintenance alone keeps a moderate load above it and
/// writes pay nothing.
fn writers_mark(total: u32) -> u32 {
    low_water(total) / 2
}

/// What one pass of SSD maintenance did.
#[derive(Debug, Default, Clone, Copy)]
pub struct SsdPass {
    /// Blocks emptied and freed.
    pub blocks_freed: usize,
    /// Entries appended again.
    pub moved: usize,
    /// Free space is still under the low-water mark with candidates left:
    /// the next pass should start at once.
    pub behind: bool,
}

impl DefragQueue {
    /// Lists the candidates afresh, lowest live fraction next.
    fn refill(&mut self, store: &strata_ssd::SsdStore, threshold: u8) {
        self.blocks = store.defrag_candidates(threshold);
        self.blocks.reverse();
        self.dry = self.blocks.is_empty();
    }
}

/// What [`Keyspace::defrag_next`] did.
enum Next {
    /// Emptied a block (`true`: and freed it).
    Emptied(bool),
    /// No candidate is left.
    Nothing,
}

impl Keyspace {
    /// Flushes the SSD tier if due and empties candidate blocks (listed
    /// afresh each pass), a few or,
    /// under pressure, as many as the pass's budget allows. No-op without
    /// the SSD tier.
    pub(crate) fn ssd_maintenance(&self) -> SsdPass {
        let mut pass = SsdPass::default();
        let Some(ssd) = self.ctx.ssd.clone() else {
            return pass;
        };
        ssd.sync_if_due();
        let threshold = ssd.settings().defrag_threshold_pct;
        let pace = Pace::of(ssd.store().free_space());
        // Each pass starts from fresh candidates, lowest live fraction first.
        ssd.defrag_queue().refill(ssd.store(), threshold);
        let mut done = 0;
        let mut left = true;
        while pace.goes_on(done, &ssd) {
            match self.defrag_next(&ssd, threshold, &mut pass) {
                Ok(Next::Emptied(freed)) => pass.blocks_freed += usize::from(freed),
                Ok(Next::Nothing) => {
                    left = false;
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "SSD defragmentation stopped");
                    return pass;
                }
            }
            done += 1;
        }
        if let Pace::Pressed { .. } = pace {
            let space = ssd.store().free_space();
            // Only a pass that freed something asks for another at once: blocks
            // that hold kept fallbacks free themselves only after a flush.
            pass.behind = pass.blocks_freed > 0 && left && space.available < low_water(space.total);
        }
        pass
    }

    /// Before a write, with no shard lock held: under the writers' mark,
    /// empties one candidate block (see the module documentation). Set as
    /// the keyspace's room hook when it opens with the SSD tier.
    pub(crate) fn make_room_on_ssd(&self) {
        let Some(ssd) = self.ctx.ssd.as_deref() else {
            return;
        };
        let space = ssd.store().free_space();
        if space.available >= writers_mark(space.total) {
            return;
        }
        let threshold = ssd.settings().defrag_threshold_pct;
        if let Err(e) = self.defrag_next(ssd, threshold, &mut SsdPass::default()) {
            tracing::warn!(error = %e, "SSD defragmentation before a write failed");
        }
    }

    /// Empties the next queued block that is still a candidate, listing
    /// the candidates again when the queue runs dry.
    fn defrag_next(
        &self,
        ssd: &SsdTier,
        threshold: u8,
        pass: &mut SsdPass,
    ) -> Result<Next, String> {
        let mut queue = ssd.defrag_queue();
        let mut refilled = false;
        loop {
            let Some(block) = queue.blocks.pop() else {
                if refilled || queue.dry {
                    return Ok(Next::Nothing);
                }
                refilled = true;
                queue.refill(ssd.store(), threshold);
                continue;
            };
            if !ssd.store().is_defrag_candidate(block, threshold) {
                continue;
            }
            return match self.defrag_block(ssd, block, pass) {
                Ok(freed) => Ok(Next::Emptied(freed)),
                // Its last live entries were released meanwhile (it freed
                // itself): nothing was left to do.
                Err(_) if !ssd.store().is_defrag_candidate(block, threshold) => {
                    Ok(Next::Emptied(false))
                }
                Err(e) => Err(format!("block {block}: {e}")),
            };
        }
    }
}
