//! Fork-less fuzzy checkpoints.
//!
//! 1. Rotate the log: every record below the returned LSN `start` is in
//!    older, synced segments, and every change with an LSN below `start`
//!    was applied to the keyspace before `start` was handed out (changes are
//!    journaled under their shard lock after being applied).
//! 2. Scan the live keyspace with the `SCAN` cursor, a few hundred items per
//!    shard read lock, copying each batch out before writing it, so locks
//!    are held for microseconds and memory grows by one batch, not by a copy
//!    of the keyspace. The scan sees every change below `start` and some
//!    later ones; an item may appear twice (the later copy is newer).
//! 3. Sync the log up to everything the scan may have seen, so the snapshot
//!    is never ahead of the durable log; then finish the snapshot (trailer,
//!    fsync, rename, directory fsync).
//! 4. Only then remove older snapshots and the log segments below `start`.
//!
//! Replaying the log from `start` onto the snapshot reproduces the exact
//! state, because change records carry resulting states, not operations
//! (see `strata_kv::journal::change`). Writing is paced by the snapshot
//! writer's rate limit (`checkpoint_io_rate`) and by the CPU budget
//! (`checkpoint_cpu_pct`, see `cpu_budget`), and the file is synced every
//! few MiB so that its write-back is spread over the checkpoint.

use std::time::{Duration, Instant};

use strata_device::Directory;
use strata_kv::Keyspace;
use strata_log::CommandLog;
use strata_snapshot::{
    remove_older_than, snapshot_name, SnapshotInfo, SnapshotItem, SnapshotWriter, WriterOptions,
};

use crate::cpu_budget::CpuBudget;
use crate::PersistError;

/// Items copied per scan step (per shard read-lock hold).
const SCAN_BATCH: usize = 256;

/// The snapshot file is synced every this many bytes while it is written,
/// so the kernel writes it out steadily instead of all at once in `finish`
/// (one burst of device work, a visible dip in the second it lands).
const SYNC_EVERY: u64 = 8 << 20;

/// Whether a checkpoint keeps to the CPU budget (`checkpoint_cpu_pct`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pace {
    /// BGSAVE and the trigger: within the budget, so requests keep the cores.
    Background,
    /// SAVE: as fast as it can; the caller waits for it.
    Foreground,
}

/// What one checkpoint wrote.
#[derive(Debug, Clone)]
pub struct CheckpointReport {
    /// The snapshot file.
    pub snapshot: SnapshotInfo,
    /// Wall time.
    pub duration: Duration,
    /// Log segments removed afterwards.
    pub segments_removed: usize,
}

/// Items of one scan step, copied out of the keyspace.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    /// (key end, value end, flags, cas, expiry); each item's key starts
    /// where the previous value ended.
    items: Vec<(usize, usize, u64, u64, Option<u64>)>,
}

impl Batch {
    fn clear(&mut self) {
        self.bytes.clear();
        self.items.clear();
    }

    fn for_each(
        &self,
        mut f: impl FnMut(SnapshotItem<'_>) -> Result<(), PersistError>,
    ) -> Result<(), PersistError> {
        let mut start = 0;
        for &(key_end, value_end, flags, cas, expires_at) in &self.items {
            f(SnapshotItem {
                key: &self.bytes[start..key_end],
                value: &self.bytes[key_end..value_end],
                flags,
                cas,
                expires_at,
            })?;
            start = value_end;
        }
        Ok(())
    }
}

/// Writes one checkpoint of `keyspace` into `snapshot_dir` (see the module
/// docs). The caller makes sure only one runs at a time.
pub(crate) fn write_checkpoint(
    keyspace: &Keyspace,
    log: &CommandLog,
    snapshot_dir: &dyn Directory,
    io_rate: u64,
    cpu_pct: u32,
) -> Result<CheckpointReport, PersistError> {
    let started = Instant::now();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut budget = CpuBudget::for_current_thread(cpu_pct, cores);
    if let Some(budget) = &budget {
        tracing::debug!(cores = budget.share(), "checkpoint CPU budget");
    }
    let start = log.rotate()?;
    let name = snapshot_name(start);
    let options = WriterOptions::new()
        .rate((io_rate > 0).then_some(io_rate))
        .sync_every(Some(SYNC_EVERY));
    let mut writer = SnapshotWriter::create_with(snapshot_dir, &name, start, options)?;
    let mut batch = Batch::default();
    let mut cursor = 0;
    let written = loop {
        batch.clear();
        // Every record, chunks of large collections included.
        cursor = keyspace
            .store()
            .scan_stored(cursor, SCAN_BATCH, &mut |item, stored| {
                batch.bytes.extend_from_slice(item.key);
                let key_end = batch.bytes.len();
                batch.bytes.extend_from_slice(item.value);
                let value_end = batch.bytes.len();
                batch
                    .items
                    .push((key_end, value_end, stored, item.cas, item.expires_at));
            });
        // Written with no lock held: the rate limit may sleep here.
        if let Err(err) = batch.for_each(|item| Ok(writer.add(&item)?)) {
            break Err(err);
        }
        if cursor == 0 {
            break Ok(());
        }
        if let Some(budget) = &mut budget {
            budget.pace();
        }
    };
    if let Err(err) = written.and_then(|()| Ok(log.flush().map(|_| ())?)) {
        if let Err(abort) = writer.abort() {
            tracing::warn!(error = %abort, "could not remove the unfinished snapshot");
        }
        return Err(err);
    }
    let snapshot = writer.finish()?;
    for old in remove_older_than(snapshot_dir, &name)? {
        tracing::debug!(snapshot = %old, "removed an older snapshot");
    }
    let segments_removed = log.remove_segments_before(start)?;
    Ok(CheckpointReport {
        snapshot,
        duration: started.elapsed(),
        segments_removed,
    })
}
