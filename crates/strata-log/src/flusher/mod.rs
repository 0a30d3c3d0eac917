//! The flusher thread: the only writer of segment files.
//!
//! It takes the whole append buffer at once (swapping it with an empty one,
//! so appenders never wait for I/O), writes it to the current segment,
//! rotating when a segment is full, and syncs. In `Sync` mode it syncs after
//! every batch: the one sync covers every record of the batch, which is
//! group commit; `group_commit` decides when a batch starts. In `Async` mode it writes a batch once it is a few
//! milliseconds old or large, and syncs at least every `sync_interval`. In
//! `OnDemand` mode it writes as in `Async` and syncs only when a waiter
//! asked (`sync_requested`).
//!
//! Ahead of the records, the flusher writes zeros into the segment file a
//! `preallocate` step at a time, so that a sync rarely has to persist a new
//! file size too; recovery reads zeros where a record would start as the
//! end of the records (see `scan::Step::Zeros`).
//!
//! A write refused for lack of space stalls the log (`stall`): the unwritten
//! records go back to the head of the append buffer and the round is
//! retried every `RETRY_INTERVAL`. Any other write failure, and any sync
//! failure, poisons the log and stops the thread: the durable LSN never
//! moves again, so nothing written after the failure is ever acknowledged,
//! and the current segment is cut back to its last synced length.
//!
//! In `Async` mode the interval's sync runs on a thread of its own
//! (`syncer`), so that the flusher keeps writing while the device syncs:
//! what a process crash loses stays bounded by the write delay however
//! slow the device is.
//!
//! This file takes the work from the shared state and runs the loop;
//! `write` performs a round on the device (write, preallocate, sync,
//! rotate).

mod syncer;
mod write;

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_device::Device;

use crate::config::Durability;
use crate::group_commit::GroupCommit;
use crate::segment::SegmentMeta;
use crate::shared::Shared;
use crate::stall::{count_records, Failure, CLOSE_PATIENCE, RETRY_INTERVAL};

/// In `OnDemand` mode, records are written at most this long after being
/// appended (in `Async` mode it is the shortest write delay, see
/// [`async_write_delay`])...
pub(crate) const ASYNC_WRITE_DELAY: Duration = Duration::from_millis(2);
/// ...or as soon as this many bytes are buffered.
pub(crate) const ASYNC_WRITE_THRESHOLD: usize = 256 << 10;

/// In `Async` mode the write delay grows with the sync interval, up to
/// 10 ms: fewer, larger writes (each a flusher wake-up) when power-cut loss
/// is allowed to be large anyway, while a process crash still loses at most
/// the delay (what is written is in the page cache).
fn async_write_delay(sync_interval: Duration) -> Duration {
    (sync_interval / 100).clamp(ASYNC_WRITE_DELAY, Duration::from_millis(10))
}

/// Zeros are written one page per call. A larger write lets the kernel
/// cache the range in one large folio (ext4 on Linux 6.x), and then every
/// small record write dirties the whole folio and every sync writes it all
/// again (measured here: 2 MiB per sync for a 2 MiB write of zeros, 4 KiB
/// per sync for page-sized ones).
const ZERO_CHUNK: u64 = 4096;

/// A buffer that grew past this is given back to the allocator after use.
const KEEP_BUFFER_CAPACITY: usize = 4 << 20;

/// One round of work taken from the shared state.
struct Work {
    batch: Vec<u8>,
    /// Records in `batch`.
    records: u64,
    /// Sync after writing, whatever the mode.
    sync: bool,
    /// The sync interval passed (`Async`): a sync the syncer may run.
    interval_sync: bool,
    /// Start a new segment, completing rotation request number `n`.
    rotate: Option<u64>,
    closing: bool,
    /// The durability in force when the batch was taken.
    durability: Durability,
}

pub(crate) struct Flusher {
    shared: Arc<Shared>,
    device: Arc<dyn Device>,
    segment: SegmentMeta,
    segment_len: u64,
    /// Bytes the segment file holds: records up to `segment_len`, then
    /// preallocated zeros.
    file_len: u64,
    segment_records: u64,
    /// Zeros to preallocate with (empty when preallocation is off).
    zeros: Vec<u8>,
    /// Last LSN handed to a device write.
    written_lsn: u64,
    /// Last LSN covered by a successful sync.
    synced_lsn: u64,
    /// Last LSN a sync was started for (on this thread or the syncer's).
    requested_lsn: u64,
    /// Bytes of the current segment a successful sync covered.
    synced_len: u64,
    /// While stalled: when to try writing again.
    retry_at: Option<Instant>,
    /// When a close began while stalled (it gives up after
    /// `CLOSE_PATIENCE`).
    closing_since: Option<Instant>,
    last_sync: Instant,
    /// When a batch was last written.
    last_write: Instant,
    spare: Vec<u8>,
    /// When to start a sync in `Sync` mode.
    group: GroupCommit,
    /// `Async` mode's background syncs, started at the first.
    syncer: Option<syncer::Syncer>,
}

/// Marks the flusher stopped when the thread ends, even by a panic, so no
/// waiter hangs.
struct StopOnExit(Arc<Shared>);

impl Drop for StopOnExit {
    fn drop(&mut self) {
        self.0.stop();
    }
}

impl Flusher {
    pub fn new(
        shared: Arc<Shared>,
        device: Box<dyn Device>,
        segment: SegmentMeta,
        segment_len: u64,
        file_len: u64,
        segment_records: u64,
    ) -> Flusher {
        let last = shared.last_lsn.load(Ordering::Acquire);
        let step = shared.config.preallocate.min(shared.config.segment_size);
        let group = GroupCommit::new(shared.config.group_commit_max_delay);
        Flusher {
            zeros: vec![0; step.min(ZERO_CHUNK) as usize],
            shared,
            device: Arc::from(device),
            segment,
            segment_len,
            file_len: file_len.max(segment_len),
            segment_records,
            written_lsn: last,
            synced_lsn: last,
            requested_lsn: last,
            synced_len: segment_len,
            retry_at: None,
            closing_since: None,
            last_sync: Instant::now(),
            last_write: Instant::now(),
            spare: Vec::new(),
            group,
            syncer: None,
        }
    }

    pub fn run(mut self) {
        let _stop = StopOnExit(Arc::clone(&self.shared));
        loop {
            let mut work = self.next_work();
            let result = self.perform(&work);
            let closing = work.closing;
            match result {
                Ok(()) => {
                    if self.retry_at.take().is_some() {
                        self.shared.unstall();
                    }
                }
                Err(Failure::NoSpace { written, cause }) if !self.give_up(closing) => {
                    self.put_back(&work, written);
                    self.retry_at = Some(Instant::now() + RETRY_INTERVAL);
                    self.shared.stall(cause);
                    work.batch.clear();
                    self.spare = work.batch;
                    continue;
                }
                Err(Failure::NoSpace { cause, .. } | Failure::Fatal(cause)) => {
                    // A background sync in flight finishes first, so that
                    // what it made durable (and published) is not cut.
                    self.settle_syncer();
                    self.cut_to_synced();
                    self.shared.poison(cause);
                    return;
                }
            }
            work.batch.clear();
            if work.batch.capacity() > KEEP_BUFFER_CAPACITY {
                work.batch = Vec::new();
            }
            self.spare = work.batch;
            if closing {
                return;
            }
        }
    }

    /// Whether a stalled close has waited long enough.
    fn give_up(&mut self, closing: bool) -> bool {
        if !closing {
            return false;
        }
        let since = *self.closing_since.get_or_insert_with(Instant::now);
        since.elapsed() >= CLOSE_PATIENCE
    }

    /// Returns the records of `work` from byte `written` on to the head of
    /// the append buffer (they precede everything appended since), with
    /// the sync the round was asked for.
    fn put_back(&mut self, work: &Work, written: usize) {
        let rest = &work.batch[written..];
        let mut p = self.shared.pending.lock();
        let mut buf = Vec::with_capacity(rest.len() + p.buf.len());
        buf.extend_from_slice(rest);
        buf.extend_from_slice(&p.buf);
        p.buf = buf;
        p.buf_records += count_records(rest);
        if !p.buf.is_empty() {
            p.first_pending_at.get_or_insert_with(Instant::now);
        }
        p.sync_requested |= work.sync;
    }

    /// After a fatal failure: cuts the current segment back to what the
    /// last successful sync covered, so that records never acknowledged
    /// (in `Sync` mode) are not replayed at the next open. Best effort: a
    /// failing device may refuse this too.
    fn cut_to_synced(&mut self) {
        if self.segment_len > self.synced_len {
            if let Err(e) = self.device.set_len(self.synced_len) {
                tracing::warn!(
                    error = %e,
                    segment = %self.segment.name,
                    "could not cut the unsynced tail of the poisoned log"
                );
            }
        }
    }

    /// Waits until there is something to do and takes it.
    fn next_work(&mut self) -> Work {
        let shared = Arc::clone(&self.shared);
        let mut p = shared.pending.lock();
        let mut sync = false;
        let mut interval_sync = false;
        // The flusher slept through a polling tick (see below).
        let mut polled = false;
        loop {
            let mut polling = false;
            // A background sync failed: the round that follows stops.
            if shared.poison_cause().is_some() {
                break;
            }
            if let Some(at) = self.retry_at {
                // Stalled: nothing but the retry starts a round (a close
                // waits for it too, see `give_up`).
                if Instant::now() >= at {
                    sync = true;
                    break;
                }
                p.flusher_waiting = true;
                shared.work.wait_until(&mut p, at);
                p.flusher_waiting = false;
                continue;
            }
            let rotate = p.rotate_requested > p.rotate_done;
            if p.closing || p.sync_requested || rotate {
                sync = true;
                break;
            }
            let deadline = match p.durability {
                Durability::Sync => {
                    if p.buf.is_empty() {
                        None
                    } else {
                        match self.group.start_at(p.buf_records, p.first_pending_at) {
                            None => {
                                sync = true;
                                break;
                            }
                            Some(at) => {
                                p.group_target = self.group.target();
                                Some(at)
                            }
                        }
                    }
                }
                Durability::OnDemand => {
                    // Written like `Async`; synced only on request (above).
                    let write_at = p.first_pending_at.map(|t| t + ASYNC_WRITE_DELAY);
                    if p.buf.len() >= ASYNC_WRITE_THRESHOLD
                        || write_at.is_some_and(|t| Instant::now() >= t)
                    {
                        break;
                    }
                    write_at
                }
                Durability::Async { sync_interval } => {
                    let now = Instant::now();
                    // While a background sync runs, the next one is not
                    // due: the syncer wakes this thread when it is done.
                    let syncing = self.syncer.as_ref().is_some_and(|s| s.busy());
                    let unsynced = self.written_lsn > self.requested_lsn && !syncing;
                    let sync_at = self.last_sync + sync_interval;
                    if unsynced && now >= sync_at {
                        interval_sync = true;
                        break;
                    }
                    let delay = async_write_delay(sync_interval);
                    let write_at = p.first_pending_at.map(|t| t + delay);
                    let due = write_at.is_some_and(|t| now >= t) || (polled && !p.buf.is_empty());
                    if p.buf.len() >= ASYNC_WRITE_THRESHOLD || due {
                        break;
                    }
                    // Under load (a batch was written within the last
                    // write delay), the empty buffer is looked at again
                    // one write delay from now without being woken: a
                    // wake-up per batch costs the appenders a system call
                    // and the flusher a context switch each.
                    let busy = now.duration_since(self.last_write) < delay;
                    let tick = busy.then(|| now + delay);
                    polling = write_at.is_none() && busy;
                    match (write_at.or(tick), unsynced) {
                        (Some(w), true) => Some(w.min(sync_at)),
                        (Some(w), false) => Some(w),
                        (None, true) => Some(sync_at),
                        (None, false) => None,
                    }
                }
            };
            p.flusher_waiting = true;
            p.flusher_polling = polling;
            match deadline {
                Some(at) => {
                    shared.work.wait_until(&mut p, at);
                }
                None => shared.work.wait(&mut p),
            }
            p.flusher_waiting = false;
            p.flusher_polling = false;
            polled = polling;
        }
        let mut batch = std::mem::take(&mut self.spare);
        std::mem::swap(&mut p.buf, &mut batch);
        let records = std::mem::take(&mut p.buf_records);
        p.group_target = u64::MAX;
        p.first_pending_at = None;
        p.sync_requested = false;
        if p.space_waiters > 0 {
            shared.progress.notify_all();
        }
        Work {
            batch,
            records,
            sync,
            interval_sync,
            rotate: (p.rotate_requested > p.rotate_done).then_some(p.rotate_requested),
            closing: p.closing,
            durability: p.durability,
        }
    }
}
