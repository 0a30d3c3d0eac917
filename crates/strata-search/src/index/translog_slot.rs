//! [`TranslogSlot`]: an index's translog, open (with its flusher thread
//! and append buffer) only while the index is written to. Opening an
//! index that needs no replay leaves it closed; the first write opens it
//! (recovery of a flushed translog reads one empty segment); an index
//! idle long enough is flushed and closes it again
//! ([`SearchIndex::close_if_idle`](super::SearchIndex::close_if_idle)).
//!
//! LSNs continue across a close: segment files are named by their first
//! LSN, and a closed log had synced every record, so while closed its
//! last LSN is also its durable LSN and every wait is already satisfied.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock, RwLockWriteGuard};
use strata_device::Directory;
use strata_log::{CommandLog, Durability, LogConfig, LogError, RecoveryPolicy};

/// Segment size of a translog.
const SEGMENT_SIZE: u64 = 64 << 20;

/// See the module docs.
pub(super) struct TranslogSlot {
    dir: Arc<dyn Directory>,
    durability: Mutex<Durability>,
    log: RwLock<Option<CommandLog>>,
    /// While closed: the last LSN, every record up to it durable.
    closed_at: AtomicU64,
}

impl TranslogSlot {
    /// Opens the translog in `dir` (recovering it: a torn tail is cut).
    pub(super) fn open(
        dir: Arc<dyn Directory>,
        durability: Durability,
    ) -> Result<TranslogSlot, LogError> {
        let slot = TranslogSlot {
            dir,
            durability: Mutex::new(durability),
            log: RwLock::new(None),
            closed_at: AtomicU64::new(0),
        };
        *slot.log.write() = Some(slot.open_log()?);
        Ok(slot)
    }

    fn open_log(&self) -> Result<CommandLog, LogError> {
        let config = LogConfig::new(*self.durability.lock()).with_segment_size(SEGMENT_SIZE);
        let (log, _report) =
            CommandLog::open(Arc::clone(&self.dir), config, RecoveryPolicy::Strict)?;
        Ok(log)
    }

    /// The directory (for replay).
    pub(super) fn dir(&self) -> &dyn Directory {
        &*self.dir
    }

    /// Whether the log is open.
    pub(super) fn is_open(&self) -> bool {
        self.log.read().is_some()
    }

    /// Why the open log cannot write now (a full disk), if it cannot; a
    /// closed log has synced everything and is not stalled.
    pub(super) fn write_stalled(&self) -> Option<Arc<LogError>> {
        self.log.read().as_ref().and_then(CommandLog::write_stalled)
    }

    /// Why the open log failed for good (a failed write or sync), if it
    /// did; a closed log had synced everything.
    pub(super) fn failure(&self) -> Option<Arc<LogError>> {
        self.log.read().as_ref().and_then(CommandLog::poisoned)
    }

    /// Appends a record, opening the log first if it is closed.
    pub(super) fn append(&self, kind: u8, body: &[u8]) -> Result<u64, LogError> {
        if let Some(log) = &*self.log.read() {
            return log.append(kind, body);
        }
        let mut write = self.log.write();
        if write.is_none() {
            *write = Some(self.open_log()?);
        }
        // Appends of other shards may go on while this one waits for room.
        match &*RwLockWriteGuard::downgrade(write) {
            Some(log) => log.append(kind, body),
            None => Err(LogError::Closed),
        }
    }

    /// The last LSN assigned.
    pub(super) fn last_lsn(&self) -> u64 {
        match &*self.log.read() {
            Some(log) => log.last_lsn(),
            None => self.closed_at.load(Ordering::Acquire),
        }
    }

    /// Every record up to this LSN is durable.
    pub(super) fn durable_lsn(&self) -> u64 {
        match &*self.log.read() {
            Some(log) => log.durable_lsn(),
            None => self.closed_at.load(Ordering::Acquire),
        }
    }

    /// Log bytes after `lsn` (none while closed: a close follows a flush).
    pub(super) fn bytes_since(&self, lsn: u64) -> u64 {
        self.log
            .read()
            .as_ref()
            .map_or(0, |log| log.bytes_since(lsn))
    }

    /// The durability in force (read by the unit tests only).
    #[cfg(test)]
    pub(super) fn durability(&self) -> Durability {
        *self.durability.lock()
    }

    /// Changes the durability (kept for the next open while closed).
    pub(super) fn set_durability(&self, durability: Durability) -> Result<(), LogError> {
        let log = self.log.read();
        if let Some(log) = &*log {
            log.set_durability(durability)?;
        }
        *self.durability.lock() = durability;
        Ok(())
    }

    /// Syncs everything appended; returns the durable LSN.
    pub(super) fn flush(&self) -> Result<u64, LogError> {
        match &*self.log.read() {
            Some(log) => log.flush(),
            None => Ok(self.closed_at.load(Ordering::Acquire)),
        }
    }

    /// Starts a new segment and removes those wholly below `lsn` (a
    /// flush's trim); nothing while closed (the next flush trims).
    pub(super) fn trim_before(&self, lsn: u64) -> Result<(), LogError> {
        if let Some(log) = &*self.log.read() {
            log.rotate()?;
            log.remove_segments_before(lsn)?;
        }
        Ok(())
    }

    /// A wait for record `lsn`; `None` when it is durable already
    /// (always, while closed).
    pub(super) fn durable(
        &self,
        lsn: u64,
    ) -> Option<impl Future<Output = Result<(), LogError>> + Send + 'static> {
        self.log.read().as_ref().map(|log| log.durable(lsn))
    }

    /// Blocks until record `lsn` is durable.
    pub(super) fn wait_durable(&self, lsn: u64) -> Result<(), LogError> {
        match &*self.log.read() {
            Some(log) => log.wait_durable(lsn),
            None => Ok(()),
        }
    }

    /// Closes the log (syncing it, stopping its flusher) if it is open.
    pub(super) fn close_now(&self) -> Result<(), LogError> {
        let mut log = self.log.write();
        if let Some(open) = log.take() {
            let last = open.last_lsn();
            open.close()?;
            self.closed_at.store(last, Ordering::Release);
        }
        Ok(())
    }

    /// Closes the log for good.
    pub(super) fn close(self) -> Result<(), LogError> {
        self.close_now()
    }
}

#[cfg(test)]
mod tests {
    use strata_device::{FaultyDirectory, MemDirectory};

    use super::*;

    #[test]
    fn a_failed_sync_is_a_failure() {
        let dir = FaultyDirectory::new(Arc::new(MemDirectory::new()) as Arc<dyn Directory>);
        let faults = dir.faults();
        let slot = TranslogSlot::open(Arc::new(dir), Durability::Sync).unwrap();
        let lsn = slot.append(1, b"first").unwrap();
        slot.log.read().as_ref().unwrap().wait_durable(lsn).unwrap();
        assert!(slot.failure().is_none());
        faults.fail_syncs_after(0);
        let lsn = slot.append(1, b"lost").unwrap();
        assert!(slot.log.read().as_ref().unwrap().wait_durable(lsn).is_err());
        let cause = slot.failure().expect("the log is poisoned");
        assert!(!cause.to_string().is_empty());
    }
}
