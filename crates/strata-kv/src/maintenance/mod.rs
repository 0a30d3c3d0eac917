//! Background upkeep of a keyspace: reclaiming expired items (so memory is
//! freed even for keys nobody reads again), compacting segments that are
//! mostly garbage, running a delayed flush when it falls due, and the SSD
//! tier's periodic flush and defragmentation (`open/defrag.rs`).
//!
//! Work is done in small steps, one shard lock at a time, so foreground
//! requests wait at most for one step, and the background thread's pass
//! rests between slices of steps ([`Pacing`], `pace.rs`) so that on a core
//! it shares with a worker it never runs for long at once. How far a pass
//! catches up on a burst of garbage is the keyspace's [`CatchUpBudget`]
//! (`budget.rs`), counted in working time.

mod budget;
mod pace;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub use budget::CatchUpBudget;
use pace::Pacer;
pub use pace::Pacing;

use crate::keyspace::Keyspace;
use crate::shard::room::CompactionStep;

/// Segments per shard checked for expired items in one pass.
const EXPIRE_SEGMENTS_PER_PASS: usize = 4;
/// Segments with less live data than this fraction are compacted: garbage
/// then costs at most a third more memory than the live data, for a write
/// amplification of at most 4x on overwrite-heavy loads.
const COMPACT_BELOW_LIVE: f64 = 0.75;
/// Segments compacted per shard in one pass.
const COMPACTIONS_PER_PASS: usize = 2;
/// A shard whose memory as a whole is less live than this keeps compacting
/// past `COMPACTIONS_PER_PASS` (catch-up) while the keyspace's
/// [`CatchUpBudget`] allows: a large collection's rewritten chunks (or a
/// bulk overwrite) make garbage far faster than two segments per pass
/// reclaim, and the memory would stay held for tens of seconds.
const CATCH_UP_BELOW_LIVE: f64 = 0.6;
/// Records examined per compaction step, i.e. per hold of a shard's lock
/// (a few hundred microseconds at most).
const RECORDS_PER_STEP: usize = 512;
/// Bound on steps per shard per pass, so one pass cannot run for long.
const STEPS_PER_PASS: usize = 256;
const PASS_INTERVAL: Duration = Duration::from_millis(100);

/// What one maintenance pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassReport {
    /// Expired items removed.
    pub expired: usize,
    /// Segments compacted.
    pub compacted: usize,
    /// SSD blocks emptied by the defragmenter.
    pub ssd_blocks_freed: usize,
    /// SSD entries the defragmenter appended again.
    pub ssd_entries_moved: usize,
    /// The SSD defragmenter is behind the writers: run again at once.
    pub ssd_behind: bool,
}

impl Keyspace {
    /// Runs one maintenance pass over every shard at once (never resting):
    /// tests call it directly after moving a manual clock.
    pub fn run_maintenance(&self) -> PassReport {
        self.run_maintenance_paced(None)
    }

    /// Runs one maintenance pass over every shard, resting between slices
    /// of work as `pacing` says (the background thread's pass).
    pub fn run_maintenance_paced(&self, pacing: Option<Pacing>) -> PassReport {
        let mut pacer = Pacer::new(pacing);
        let started = Instant::now();
        self.run_due_flush();
        let mut report = PassReport::default();
        for i in 0..self.shard_count() {
            let shard = self.shard_at(i);
            if shard.read().pending_recount {
                shard.write().recount();
            }
            // Before compaction frees more: what was opened since the
            // last pass is what the next interval is likely to need.
            shard.write().arena.trim_spares();
            // A script may hold only the shards it reached so far (see
            // `Keyspace::exclusive_drained_keys`): keys it has yet to reach
            // must not expire or be evicted under it (Redis freezes a
            // script's time), so both wait for the gate to open.
            let section_running = !self.gate_is_open();
            if self.ctx.active_expire() && !section_running {
                let now = self.now_ms();
                let mut shard = shard.write();
                report.expired += shard.reclaim_expired(&self.ctx, now, EXPIRE_SEGMENTS_PER_PASS);
            }
            if self.eviction().evicts() && !section_running {
                // Cache mode lets a write through when its own shard has
                // nothing to evict; bring over-share shards back here.
                let mut shard = shard.write();
                while shard.global_used(&self.ctx) > self.ctx.limit()
                    && shard.used_bytes() as u64 > self.ctx.shard_share()
                    && crate::eviction::clock::evict_oldest(&mut shard, &self.ctx, self.now_ms())
                {
                }
            }
            pacer.pause_if_due();
            let mut finished = 0;
            for _ in 0..STEPS_PER_PASS {
                // The lock is taken per step so requests interleave with compaction.
                let step = shard.write().compact_step(
                    &self.ctx,
                    COMPACT_BELOW_LIVE,
                    RECORDS_PER_STEP,
                    self.now_ms(),
                );
                pacer.pause_if_due();
                match step {
                    CompactionStep::Idle => break,
                    CompactionStep::Progress => {}
                    CompactionStep::Finished => {
                        finished += 1;
                        let catch_up = self
                            .catch_up_budget()
                            .allows(pacer.working_since(started), report.compacted + finished)
                            && shard.read().behind_on_compaction(CATCH_UP_BELOW_LIVE);
                        if finished >= COMPACTIONS_PER_PASS && !catch_up {
                            break;
                        }
                    }
                }
            }
            report.compacted += finished;
        }
        let ssd = self.ssd_maintenance();
        report.ssd_blocks_freed = ssd.blocks_freed;
        report.ssd_entries_moved = ssd.moved;
        report.ssd_behind = ssd.behind;
        report
    }
}

/// The background maintenance thread of a keyspace; stops when dropped.
#[derive(Debug)]
pub struct Maintenance {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Maintenance {
    /// Starts a thread running a paced pass
    /// ([`Keyspace::run_maintenance_paced`], [`Pacing::BACKGROUND`]) every
    /// 100 ms (at once again while the SSD defragmenter is behind).
    /// The error is the operating system's refusal to start a thread.
    pub fn start(keyspace: Arc<Keyspace>) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("strata-maintenance".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    if !keyspace
                        .run_maintenance_paced(Some(Pacing::BACKGROUND))
                        .ssd_behind
                    {
                        std::thread::park_timeout(PASS_INTERVAL);
                    }
                }
            })?;
        Ok(Self {
            stop,
            thread: Some(thread),
        })
    }

    /// Stops the thread and waits for it.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

impl Drop for Maintenance {
    fn drop(&mut self) {
        self.shutdown();
    }
}
