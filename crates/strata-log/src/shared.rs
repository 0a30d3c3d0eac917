//! State shared by appenders, waiters and the flusher thread.
//!
//! Three meeting points, each with its own lock so that they do not contend:
//! `pending` (the append buffer and requests to the flusher), the durable
//! LSN (an atomic, plus a condvar for blocking waiters and per-LSN slots for
//! async ones, see `waiters`), and the segment list.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use parking_lot::{Condvar, Mutex};
use strata_device::Directory;

use crate::config::{Durability, LogConfig};
use crate::positions::LsnPositions;
use crate::segment::SegmentMeta;
use crate::waiters::DurableWaiters;
use crate::LogError;

/// What appenders hand to the flusher, and what they ask of it.
pub(crate) struct Pending {
    /// Encoded records not yet taken by the flusher.
    pub buf: Vec<u8>,
    /// Records in `buf`.
    pub buf_records: u64,
    /// While the flusher holds a sync (group commit), the `buf_records`
    /// count at which it wants to be woken; `u64::MAX` otherwise.
    pub group_target: u64,
    /// LSN the next append gets.
    pub next_lsn: u64,
    /// When `buf` went from empty to non-empty (async mode write delay).
    pub first_pending_at: Option<Instant>,
    pub positions: LsnPositions,
    /// Records and bytes appended since open.
    pub records: u64,
    pub bytes: u64,
    /// The flusher is waiting on `Shared::work`.
    pub flusher_waiting: bool,
    /// The flusher (in `Async` mode, under load) will look at the buffer at
    /// its next tick anyway: a first record in an empty buffer need not
    /// wake it.
    pub flusher_polling: bool,
    /// Appenders waiting for room in `buf`.
    pub space_waiters: usize,
    /// `flush` wants a sync even if nothing is buffered.
    pub sync_requested: bool,
    /// Rotation requests made and completed (a counter each), and the first
    /// LSN of the segment current after the last completed one.
    pub rotate_requested: u64,
    pub rotate_done: u64,
    pub rotated_at: u64,
    /// `close` or drop: write, sync, stop.
    pub closing: bool,
    /// The durability in force (the config's at open; changed by
    /// `set_durability`). The flusher reads it with the lock held.
    pub durability: Durability,
}

pub(crate) struct Shared {
    pub config: LogConfig,
    pub dir: Arc<dyn Directory>,
    pub pending: Mutex<Pending>,
    /// The flusher waits here for work (with `pending`).
    pub work: Condvar,
    /// Appenders waiting for room and `rotate` callers wait here (with
    /// `pending`).
    pub progress: Condvar,
    /// Last LSN assigned (mirrors `pending.next_lsn - 1`, readable without
    /// the lock).
    pub last_lsn: AtomicU64,
    /// Every record up to this LSN is durable.
    pub durable_lsn: AtomicU64,
    durable_lock: Mutex<()>,
    durable_cv: Condvar,
    /// Async waiters, woken when their LSN is durable, on poison and stop.
    pub waiters: DurableWaiters,
    poison: OnceLock<Arc<LogError>>,
    /// A write refused for lack of space, being retried (see `stall`).
    stall: Mutex<Option<Arc<LogError>>>,
    /// Mirrors `stall.is_some()`, readable without the lock.
    stalled: AtomicBool,
    /// The flusher has exited (after close, poison or a panic).
    pub stopped: AtomicBool,
    /// Segments in LSN order; the last is the one being written.
    pub segments: Mutex<Vec<SegmentMeta>>,
    /// Serializes `remove_segments_before`.
    pub removal: Mutex<()>,
    pub syncs: AtomicU64,
    /// Mirrors `pending.durability == OnDemand`, so waiters in the other
    /// modes need not take the lock to learn they have nothing to ask.
    pub on_demand: AtomicBool,
}

impl Shared {
    pub fn new(
        config: LogConfig,
        dir: Arc<dyn Directory>,
        pending: Pending,
        segments: Vec<SegmentMeta>,
    ) -> Shared {
        let last = pending.next_lsn - 1;
        let on_demand = pending.durability == Durability::OnDemand;
        Shared {
            config,
            dir,
            pending: Mutex::new(pending),
            work: Condvar::new(),
            progress: Condvar::new(),
            last_lsn: AtomicU64::new(last),
            durable_lsn: AtomicU64::new(last),
            durable_lock: Mutex::new(()),
            durable_cv: Condvar::new(),
            waiters: DurableWaiters::default(),
            poison: OnceLock::new(),
            stall: Mutex::new(None),
            stalled: AtomicBool::new(false),
            stopped: AtomicBool::new(false),
            segments: Mutex::new(segments),
            removal: Mutex::new(()),
            syncs: AtomicU64::new(0),
            on_demand: AtomicBool::new(on_demand),
        }
    }

    /// The error every caller gets once the log is poisoned.
    pub fn poisoned(&self) -> Option<LogError> {
        self.poison.get().map(|cause| LogError::Poisoned {
            cause: Arc::clone(cause),
        })
    }

    pub fn poison_cause(&self) -> Option<Arc<LogError>> {
        self.poison.get().cloned()
    }

    /// Poisons the log with `cause` (the first cause wins) and wakes
    /// everyone so they see it.
    pub fn poison(&self, cause: LogError) {
        tracing::error!(error = %cause, "command log poisoned: no further writes are acknowledged");
        let _ = self.poison.set(Arc::new(cause));
        self.wake_all();
    }

    /// The write failure being retried, if the log is stalled.
    pub fn stall_cause(&self) -> Option<Arc<LogError>> {
        if !self.stalled.load(Ordering::Acquire) {
            return None;
        }
        self.stall.lock().clone()
    }

    /// Whether the log is stalled (one load).
    pub fn is_stalled(&self) -> bool {
        self.stalled.load(Ordering::Acquire)
    }

    /// Starts a stall on `cause` (a write refused for lack of space), or
    /// updates its cause.
    pub fn stall(&self, cause: LogError) {
        let mut stall = self.stall.lock();
        if stall.is_none() {
            tracing::error!(
                error = %cause,
                "command log cannot write: new changes are refused until space is freed; retrying"
            );
        }
        *stall = Some(Arc::new(cause));
        self.stalled.store(true, Ordering::Release);
    }

    /// Ends a stall: a write succeeded.
    pub fn unstall(&self) {
        if self.stall.lock().take().is_some() {
            tracing::info!("command log writes resumed");
        }
        self.stalled.store(false, Ordering::Release);
    }

    /// Records that the flusher exited, and wakes everyone.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Release);
        self.wake_all();
    }

    /// Publishes a new durable LSN.
    pub fn publish_durable(&self, lsn: u64) {
        // Only grows: a background sync may finish after a later one
        // made on the flusher's thread (`flusher::syncer`).
        self.durable_lsn.fetch_max(lsn, Ordering::AcqRel);
        {
            let _guard = self.durable_lock.lock();
            self.durable_cv.notify_all();
        }
        self.waiters.wake_up_to(lsn);
    }

    /// `Some` once waiting for `lsn` is over: durable, or never going to be.
    pub fn durable_outcome(&self, lsn: u64) -> Option<Result<(), LogError>> {
        if self.durable_lsn.load(Ordering::Acquire) >= lsn {
            return Some(Ok(()));
        }
        if let Some(err) = self.poisoned() {
            return Some(Err(err));
        }
        if self.stopped.load(Ordering::Acquire) {
            return Some(Err(LogError::Closed));
        }
        None
    }

    /// Blocks until `lsn` is durable or never will be.
    pub fn wait_durable(&self, lsn: u64) -> Result<(), LogError> {
        if let Some(outcome) = self.durable_outcome(lsn) {
            return outcome;
        }
        let mut guard = self.durable_lock.lock();
        loop {
            if let Some(outcome) = self.durable_outcome(lsn) {
                return outcome;
            }
            self.durable_cv.wait(&mut guard);
        }
    }

    fn wake_all(&self) {
        {
            let _pending = self.pending.lock();
            self.progress.notify_all();
            self.work.notify_all();
        }
        {
            let _guard = self.durable_lock.lock();
            self.durable_cv.notify_all();
        }
        self.waiters.wake_all();
    }
}
