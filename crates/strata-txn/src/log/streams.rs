//! [`LogSet`]: the log streams, one per worker slot, the durable epoch
//! and group commit.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};
use strata_log::{CommandLog, Durability, LogConfig};

use crate::error::TxnError;
use crate::log::record::KIND_MARKER;
use crate::log::stream_wait::{wait_unless_stalled, StreamWait};
use crate::log::LogRoot;

/// Longest transaction record (bytes of its body).
pub(crate) const MAX_TXN_RECORD: usize = 16 << 20;

/// Counters of the log.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LogStats {
    /// Epochs made durable.
    pub epochs_closed: u64,
    /// Bytes appended to all streams.
    pub bytes: u64,
    /// Records appended to all streams (markers included).
    pub records: u64,
    /// Syncs of all streams.
    pub syncs: u64,
    /// Total time spent making epochs durable (appending markers and
    /// syncing every stream), in microseconds.
    pub close_micros: u64,
}

/// The streams and the durable epoch.
pub(crate) struct LogSet {
    pub root: Arc<dyn LogRoot>,
    pub streams: Vec<Arc<CommandLog>>,
    durable: AtomicU64,
    failed: AtomicBool,
    failure: Mutex<Option<Arc<str>>>,
    /// Set while an epoch could not close because a stream's device is
    /// full (`stall`: which one and why).
    stalled: AtomicBool,
    stall: Mutex<Option<Arc<str>>>,
    waiters: Condvar,
    wait_lock: Mutex<()>,
    last_closed: Mutex<u64>,
    epochs_closed: AtomicU64,
    close_micros: AtomicU64,
}

/// The directory name of stream `i`.
pub(crate) fn stream_name(i: usize) -> String {
    format!("stream-{i:03}")
}

/// The command log settings for a stream on this root.
pub(crate) fn stream_config(pmem: bool) -> LogConfig {
    let config =
        LogConfig::new(Durability::OnDemand).with_group_commit_max_delay(std::time::Duration::ZERO);
    if pmem {
        // Files do not grow (capacity 64 MiB): segments of 32 MiB leave room
        // for one record of the largest size after them.
        config.with_segment_size(32 << 20).with_preallocation(0)
    } else {
        config
    }
}

impl LogSet {
    /// The set over streams recovery opened, durable through `durable`.
    pub fn open(root: Arc<dyn LogRoot>, streams: Vec<Arc<CommandLog>>, durable: u64) -> LogSet {
        LogSet {
            root,
            streams,
            durable: AtomicU64::new(durable),
            failed: AtomicBool::new(false),
            failure: Mutex::new(None),
            stalled: AtomicBool::new(false),
            stall: Mutex::new(None),
            waiters: Condvar::new(),
            wait_lock: Mutex::new(()),
            last_closed: Mutex::new(durable),
            epochs_closed: AtomicU64::new(0),
            close_micros: AtomicU64::new(0),
        }
    }

    /// The durable (persistent) epoch.
    pub fn durable(&self) -> u64 {
        self.durable.load(Ordering::Acquire)
    }

    /// The failure, once the log failed.
    pub fn failure(&self) -> Option<Arc<str>> {
        if !self.failed.load(Ordering::Acquire) {
            return None;
        }
        self.failure.lock().clone()
    }

    /// Why a commit on stream `slot` must be refused now: the log failed
    /// for good (`NotDurable`), or a device is full (`LogFull`; the
    /// epochs cannot close, and appending more would only grow memory).
    pub fn refusal(&self, slot: usize) -> Option<TxnError> {
        if let Some(failure) = self.failure() {
            return Some(TxnError::NotDurable(failure));
        }
        if let Some(cause) = self.streams[slot].write_stalled() {
            return Some(TxnError::LogFull(
                format!("log stream {}: {cause}", stream_name(slot)).into(),
            ));
        }
        self.stall_cause().map(TxnError::LogFull)
    }

    /// The full device an epoch is waiting on, if any.
    pub fn stall_cause(&self) -> Option<Arc<str>> {
        if !self.stalled.load(Ordering::Acquire) {
            return None;
        }
        self.stall.lock().clone()
    }

    fn set_stall(&self, cause: Option<String>) {
        let mut stall = self.stall.lock();
        self.stalled.store(cause.is_some(), Ordering::Release);
        *stall = cause.map(Arc::from);
    }

    /// Records the first failure; commits are refused from now on.
    pub fn fail(&self, message: String) {
        let mut failure = self.failure.lock();
        if failure.is_none() {
            *failure = Some(Arc::from(message));
        }
        self.failed.store(true, Ordering::Release);
        drop(failure);
        let _guard = self.wait_lock.lock();
        self.waiters.notify_all();
    }

    /// Makes every epoch up to `closed` durable: a marker in each stream,
    /// then each stream synced. Called by one thread at a time (the epoch
    /// thread, or a caller holding `last_closed`).
    pub fn close_through(&self, closed: u64) {
        let mut last = self.last_closed.lock();
        if closed <= *last || self.failed.load(Ordering::Acquire) {
            return;
        }
        let started = Instant::now();
        let body = closed.to_le_bytes();
        let mut lsns = Vec::with_capacity(self.streams.len());
        for (i, log) in self.streams.iter().enumerate() {
            match log.append(KIND_MARKER, &body) {
                Ok(lsn) => lsns.push(lsn),
                Err(e) => return self.fail(format!("log stream {}: {e}", stream_name(i))),
            }
        }
        for (i, log) in self.streams.iter().enumerate() {
            match wait_unless_stalled(log, lsns[i]) {
                StreamWait::Durable => {}
                StreamWait::Failed(e) => {
                    return self.fail(format!("log stream {}: {e}", stream_name(i)))
                }
                // The markers stay in the streams and are written once
                // space is freed; a later call closes through them.
                StreamWait::Stalled(cause) => {
                    self.set_stall(Some(format!("log stream {}: {cause}", stream_name(i))));
                    drop(last);
                    let _guard = self.wait_lock.lock();
                    self.waiters.notify_all();
                    return;
                }
            }
        }
        if self.stalled.load(Ordering::Acquire) {
            self.set_stall(None);
        }
        *last = closed;
        self.durable.store(closed, Ordering::Release);
        self.epochs_closed.fetch_add(1, Ordering::Relaxed);
        self.close_micros
            .fetch_add(started.elapsed().as_micros() as u64, Ordering::Relaxed);
        drop(last);
        let _guard = self.wait_lock.lock();
        self.waiters.notify_all();
    }

    /// Blocks until `epoch` is durable; `NotDurable` if the log failed,
    /// `LogFull` while a device is full (the commit may still become
    /// durable once space is freed: it is not acknowledged yet).
    pub fn wait(&self, epoch: u64) -> Result<(), TxnError> {
        let mut guard = self.wait_lock.lock();
        loop {
            if self.durable() >= epoch {
                return Ok(());
            }
            if let Some(failure) = self.failure() {
                return Err(TxnError::NotDurable(failure));
            }
            if let Some(cause) = self.stall_cause() {
                return Err(TxnError::LogFull(cause));
            }
            self.waiters
                .wait_for(&mut guard, std::time::Duration::from_millis(50));
        }
    }

    /// Counters.
    pub fn stats(&self) -> LogStats {
        let mut stats = LogStats {
            epochs_closed: self.epochs_closed.load(Ordering::Relaxed),
            close_micros: self.close_micros.load(Ordering::Relaxed),
            ..LogStats::default()
        };
        for log in &self.streams {
            let s = log.stats();
            stats.bytes += s.bytes;
            stats.records += s.records;
            stats.syncs += s.syncs;
        }
        stats
    }
}
