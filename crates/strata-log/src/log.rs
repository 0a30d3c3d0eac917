//! [`CommandLog`]: the handle callers append through and wait on.
//!
//! `segments`: rotating to a new segment and removing the segments a
//! checkpoint covers.

mod segments;

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use strata_device::Directory;

use crate::config::{Durability, LogConfig, RecoveryPolicy};
use crate::durable_wait::DurableWait;
use crate::flusher::{Flusher, ASYNC_WRITE_THRESHOLD};
use crate::record::{encode_into, MAX_BODY_LEN, RECORD_HEADER_LEN};
use crate::recovery::{recover, RecoveryReport};
use crate::replay::{replay, ReplayReport};
use crate::shared::{Pending, Shared};
use crate::{LogError, LogStats};

/// An append-only, segmented log of opaque records, each with an LSN
/// (1, 2, 3, ...) and a caller-chosen kind byte.
///
/// `append` only copies into memory; a background flusher writes and syncs.
/// Share it between threads behind an `Arc`.
pub struct CommandLog {
    shared: Arc<Shared>,
    flusher: Option<JoinHandle<()>>,
}

impl CommandLog {
    /// Opens (or creates) the log in `dir`, recovering it first: every
    /// record is verified, a torn tail is cut off and reported, damage in the
    /// middle is [`LogError::Corrupt`] unless `policy` is
    /// [`RecoveryPolicy::TruncateToLastGood`]. Then starts the flusher.
    ///
    /// The caller guarantees no other `CommandLog` is open on `dir`.
    pub fn open(
        dir: Arc<dyn Directory>,
        config: LogConfig,
        policy: RecoveryPolicy,
    ) -> Result<(CommandLog, RecoveryReport), LogError> {
        config.validate()?;
        let recovered = recover(&*dir, policy)?;
        let report = recovered.report.clone();
        // Recovery always leaves a current segment (it makes one in an
        // empty directory); a list without one is refused, not trusted.
        let Some(current) = recovered.segments.last().cloned() else {
            return Err(LogError::Config("recovery left no current segment".into()));
        };
        let next_lsn = report.last_lsn + 1;
        let pending = Pending {
            buf: Vec::new(),
            buf_records: 0,
            group_target: u64::MAX,
            next_lsn,
            first_pending_at: None,
            positions: recovered.positions,
            records: 0,
            bytes: 0,
            flusher_waiting: false,
            flusher_polling: false,
            space_waiters: 0,
            sync_requested: false,
            rotate_requested: 0,
            rotate_done: 0,
            rotated_at: current.first_lsn,
            closing: false,
            durability: config.durability,
        };
        let shared = Arc::new(Shared::new(config, dir, pending, recovered.segments));
        let flusher = Flusher::new(
            Arc::clone(&shared),
            recovered.current,
            current,
            recovered.current_len,
            recovered.current_file_len,
            recovered.current_records,
        );
        let handle = std::thread::Builder::new()
            .name("strata-log-flusher".into())
            .spawn(move || flusher.run())
            .map_err(|e| LogError::io("start the flusher thread", e))?;
        let log = CommandLog {
            shared,
            flusher: Some(handle),
        };
        Ok((log, report))
    }

    /// Calls `apply(lsn, kind, body)` for every record with an LSN of at
    /// least `from_lsn`, in LSN order, and reports how far the log goes.
    ///
    /// Call it after [`open`](Self::open) (which cut any torn tail) and
    /// before appending, or on a directory no log is writing to. Stops at a
    /// torn end of the last segment; fails with [`LogError::MissingRecords`]
    /// if segments holding records from `from_lsn` were removed, and with
    /// `Corrupt` on damage elsewhere. An error from `apply` stops the replay
    /// and is returned.
    pub fn replay<E, F>(dir: &dyn Directory, from_lsn: u64, apply: F) -> Result<ReplayReport, E>
    where
        E: From<LogError>,
        F: FnMut(u64, u8, &[u8]) -> Result<(), E>,
    {
        replay(dir, from_lsn, apply)
    }

    /// Appends a record and returns its LSN. Copies into memory only; never
    /// does I/O. Waits (back pressure) while `max_buffered` bytes are
    /// buffered. The record is durable once [`wait_durable`](Self::wait_durable)
    /// or [`durable`](Self::durable) for its LSN returns `Ok`.
    ///
    /// Fails with `Poisoned` once a write or sync has failed.
    pub fn append(&self, kind: u8, body: &[u8]) -> Result<u64, LogError> {
        if body.len() > MAX_BODY_LEN {
            return Err(LogError::RecordTooLarge {
                len: body.len(),
                max: MAX_BODY_LEN,
            });
        }
        let len = RECORD_HEADER_LEN + body.len();
        let shared = &*self.shared;
        let mut p = shared.pending.lock();
        loop {
            if let Some(err) = shared.poisoned() {
                return Err(err);
            }
            if shared.stopped.load(Ordering::Acquire) {
                return Err(LogError::Closed);
            }
            // While stalled, nothing drains the buffer: the callers that
            // still append are bounded (new changes are refused), and must
            // not wait holding their locks.
            let room = p.buf.is_empty() || p.buf.len() + len <= shared.config.max_buffered;
            if room || shared.is_stalled() {
                break;
            }
            if p.flusher_waiting {
                shared.work.notify_one();
            }
            p.space_waiters += 1;
            shared.progress.wait(&mut p);
            p.space_waiters -= 1;
        }
        let lsn = p.next_lsn;
        p.next_lsn += 1;
        let was = p.buf.len();
        if was == 0 {
            p.first_pending_at = Some(Instant::now());
        }
        encode_into(&mut p.buf, lsn, kind, body);
        p.buf_records += 1;
        p.positions.note(lsn, len as u64);
        p.records += 1;
        p.bytes += len as u64;
        shared.last_lsn.store(lsn, Ordering::Release);
        let crossed = was < ASYNC_WRITE_THRESHOLD && p.buf.len() >= ASYNC_WRITE_THRESHOLD;
        let group_full = p.buf_records == p.group_target;
        let first = was == 0 && !p.flusher_polling;
        if p.flusher_waiting && (first || crossed || group_full) {
            shared.work.notify_one();
        }
        Ok(lsn)
    }

    /// Blocks until record `lsn` is durable. `Poisoned` if the log failed
    /// before it was, `Closed` if the flusher stopped.
    pub fn wait_durable(&self, lsn: u64) -> Result<(), LogError> {
        self.check_assigned(lsn)?;
        self.request_sync_for(lsn);
        self.shared.wait_durable(lsn)
    }

    /// The async form of [`wait_durable`](Self::wait_durable): a future that
    /// resolves when record `lsn` is durable, without blocking a thread. It
    /// owns what it needs, so it may outlive `&self` and be moved to a task.
    pub fn durable(&self, lsn: u64) -> impl Future<Output = Result<(), LogError>> + Send + 'static {
        let early = self.check_assigned(lsn).err();
        if early.is_none() {
            self.request_sync_for(lsn);
        }
        DurableWait::new(Arc::clone(&self.shared), lsn, early)
    }

    /// `OnDemand`: asks the flusher for a sync unless `lsn` is durable
    /// already. The flusher clears the request when it takes the buffer it
    /// will sync; `lsn` was appended before this call, so that buffer (or
    /// an earlier, written one) holds it, and a request made after the
    /// take stays set for the next round.
    fn request_sync_for(&self, lsn: u64) {
        let shared = &*self.shared;
        if !shared.on_demand.load(Ordering::Acquire)
            || shared.durable_lsn.load(Ordering::Acquire) >= lsn
        {
            return;
        }
        let mut p = shared.pending.lock();
        // Under `Sync`/`Async` (changed since the check above) the flusher
        // syncs by itself; a request would only sync early.
        p.sync_requested = true;
        if p.flusher_waiting {
            shared.work.notify_one();
        }
    }

    /// Writes and syncs everything appended so far; returns the durable LSN.
    pub fn flush(&self) -> Result<u64, LogError> {
        let target = {
            let mut p = self.shared.pending.lock();
            let target = p.next_lsn - 1;
            if self.shared.durable_lsn.load(Ordering::Acquire) < target {
                p.sync_requested = true;
                if p.flusher_waiting {
                    self.shared.work.notify_one();
                }
            }
            target
        };
        self.shared.wait_durable(target)?;
        Ok(self.durable_lsn())
    }

    /// The last LSN assigned (0 for an empty log).
    pub fn last_lsn(&self) -> u64 {
        self.shared.last_lsn.load(Ordering::Acquire)
    }

    /// Every record up to this LSN is durable.
    pub fn durable_lsn(&self) -> u64 {
        self.shared.durable_lsn.load(Ordering::Acquire)
    }

    /// Log bytes (headers included) of the records after `lsn`, for the
    /// checkpoint trigger; may overcount by up to about 256 KiB.
    pub fn bytes_since(&self, lsn: u64) -> u64 {
        let p = self.shared.pending.lock();
        if lsn.saturating_add(1) >= p.next_lsn {
            return 0;
        }
        p.positions.bytes_after(lsn)
    }

    /// The failure that poisoned the log, if any.
    pub fn poisoned(&self) -> Option<Arc<LogError>> {
        self.shared.poison_cause()
    }

    /// The write failure the flusher is retrying (the filesystem is out of
    /// space or quota), if any. Records appended so far are kept and
    /// become durable once a retry succeeds; appends are still accepted,
    /// but a caller should refuse new changes while this is `Some` (they
    /// could not become durable until space is freed, perhaps never).
    pub fn write_stalled(&self) -> Option<Arc<LogError>> {
        self.shared.stall_cause()
    }

    /// The durability in force.
    pub fn durability(&self) -> Durability {
        self.shared.pending.lock().durability
    }

    /// Changes the durability (a search index's `translog.durability` set
    /// at run time). Unless both modes are `Async`, everything appended
    /// before the change is synced once it is made: a waiter that asked
    /// under the old mode is not left to the new one (an `Async` waiter
    /// never asked, and `OnDemand` syncs only when asked; a `Sync` waiter
    /// would otherwise wait out an interval).
    pub fn set_durability(&self, durability: Durability) -> Result<(), LogError> {
        durability.validate()?;
        let shared = &*self.shared;
        let old = {
            let mut p = shared.pending.lock();
            let old = std::mem::replace(&mut p.durability, durability);
            shared
                .on_demand
                .store(durability == Durability::OnDemand, Ordering::Release);
            if p.flusher_waiting {
                shared.work.notify_one();
            }
            old
        };
        let both_async = matches!(
            (old, durability),
            (Durability::Async { .. }, Durability::Async { .. })
        );
        if old != durability && !both_async {
            self.flush()?;
        }
        Ok(())
    }

    /// The counters.
    pub fn stats(&self) -> LogStats {
        let shared = &*self.shared;
        let (records, bytes, buffered, last) = {
            let p = shared.pending.lock();
            (p.records, p.bytes, p.buf.len() as u64, p.next_lsn - 1)
        };
        let (segments, first_lsn) = {
            let s = shared.segments.lock();
            (s.len(), s.first().map_or(last + 1, |m| m.first_lsn))
        };
        LogStats {
            records,
            bytes,
            buffered_bytes: buffered,
            syncs: shared.syncs.load(Ordering::Relaxed),
            segments,
            first_lsn,
            durable_lsn: self.durable_lsn(),
            last_lsn: last,
            poisoned: shared.poison_cause().map(|e| e.to_string()),
            stalled: shared.stall_cause().map(|e| e.to_string()),
        }
    }

    /// Writes and syncs everything, stops the flusher and returns the
    /// durable LSN; `Poisoned` if the log had failed.
    pub fn close(mut self) -> Result<u64, LogError> {
        self.stop_flusher();
        match self.shared.poisoned() {
            Some(err) => Err(err),
            None => Ok(self.durable_lsn()),
        }
    }

    fn stop_flusher(&mut self) {
        if let Some(handle) = self.flusher.take() {
            {
                let mut p = self.shared.pending.lock();
                p.closing = true;
                self.shared.work.notify_one();
            }
            if handle.join().is_err() {
                tracing::error!("the command log flusher panicked");
            }
        }
    }

    fn check_assigned(&self, lsn: u64) -> Result<(), LogError> {
        let last = self.last_lsn();
        if lsn > last {
            return Err(LogError::FutureLsn { lsn, last });
        }
        Ok(())
    }
}

impl Drop for CommandLog {
    /// Writes and syncs what is buffered (errors poison, as always) and
    /// stops the flusher.
    fn drop(&mut self) {
        self.stop_flusher();
    }
}

impl std::fmt::Debug for CommandLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandLog")
            .field("durability", &self.durability())
            .field("last_lsn", &self.last_lsn())
            .field("durable_lsn", &self.durable_lsn())
            .finish()
    }
}
