//! [`Shared`]: what the [`Persistence`](crate::Persistence) handle, the
//! background checkpoints and the trigger thread share (keyspace, log,
//! snapshot directory, settings, checkpoint history), and running a
//! checkpoint. Below the handle and the trigger.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_device::Directory;
use strata_kv::Keyspace;
use strata_log::CommandLog;

use crate::checkpoint::{self, CheckpointReport, Pace};
use crate::{journal, status};
use crate::{PersistConfig, PersistError, PersistStatus, RecoveryStats};

/// What the handle, background checkpoints and the trigger thread share.
pub(crate) struct Shared {
    pub(crate) keyspace: Arc<Keyspace>,
    pub(crate) log: Arc<CommandLog>,
    pub(crate) snapshot_dir: Arc<dyn Directory>,
    pub(crate) config: PersistConfig,
    pub(crate) recovery: RecoveryStats,
    /// Set while a checkpoint runs; at most one at a time.
    pub(crate) running: AtomicBool,
    pub(crate) history: Mutex<History>,
}

/// Outcomes of past checkpoints.
pub(crate) struct History {
    pub(crate) checkpoints: u64,
    pub(crate) last_save_unix: u64,
    pub(crate) last_error: Option<String>,
    pub(crate) last_ms: u64,
    pub(crate) snapshot_bytes: u64,
    pub(crate) snapshot_items: u64,
    pub(crate) snapshot_start_lsn: u64,
}

impl Shared {
    /// Runs a checkpoint unless one is running, recording its outcome.
    pub(crate) fn run_checkpoint(&self, pace: Pace) -> Result<CheckpointReport, PersistError> {
        if self.running.swap(true, Ordering::AcqRel) {
            return Err(PersistError::CheckpointRunning);
        }
        let result = self.checkpoint_now(pace);
        self.running.store(false, Ordering::Release);
        result
    }

    /// Claims the single checkpoint slot and runs a checkpoint in a new thread.
    pub(crate) fn spawn_checkpoint(self: Arc<Self>) -> Result<(), PersistError> {
        if self.running.swap(true, Ordering::AcqRel) {
            return Err(PersistError::CheckpointRunning);
        }
        let me = self.clone();
        let spawned = std::thread::Builder::new()
            .name("strata-checkpoint".into())
            .spawn(move || {
                let _ = me.checkpoint_now(Pace::Background);
                me.running.store(false, Ordering::Release);
            });
        if let Err(err) = spawned {
            self.running.store(false, Ordering::Release);
            return Err(PersistError::Thread(err));
        }
        Ok(())
    }

    /// One checkpoint; the caller holds the `running` slot.
    pub(crate) fn checkpoint_now(&self, pace: Pace) -> Result<CheckpointReport, PersistError> {
        tracing::info!("checkpoint started");
        let cpu_pct = match pace {
            Pace::Background => self.config.checkpoint_cpu_pct,
            Pace::Foreground => 0,
        };
        let result = checkpoint::write_checkpoint(
            &self.keyspace,
            &self.log,
            &*self.snapshot_dir,
            self.config.checkpoint_io_rate,
            cpu_pct,
        );
        let mut h = self.history.lock();
        match &result {
            Ok(report) => {
                h.checkpoints += 1;
                h.last_save_unix = status::unix_now();
                h.last_error = None;
                h.last_ms = report.duration.as_millis() as u64;
                h.snapshot_bytes = report.snapshot.bytes;
                h.snapshot_items = report.snapshot.records;
                h.snapshot_start_lsn = report.snapshot.start_lsn;
                tracing::info!(
                    snapshot = %report.snapshot.name,
                    items = report.snapshot.records,
                    bytes = report.snapshot.bytes,
                    ms = h.last_ms,
                    log_segments_removed = report.segments_removed,
                    "checkpoint done"
                );
            }
            Err(err) => {
                tracing::error!(error = %err, "checkpoint failed");
                h.last_error = Some(err.to_string());
            }
        }
        result
    }

    /// True when the log has grown enough since the last snapshot.
    pub(crate) fn checkpoint_due(&self) -> bool {
        let (start, bytes) = {
            let h = self.history.lock();
            (h.snapshot_start_lsn, h.snapshot_bytes)
        };
        let log_bytes = self.log.bytes_since(start.saturating_sub(1));
        self.config.checkpoint_due(log_bytes, bytes)
    }

    pub(crate) fn status(&self) -> PersistStatus {
        let log = self.log.stats();
        let h = self.history.lock();
        PersistStatus {
            mode: self.config.mode.name(),
            checkpoint_in_progress: self.running.load(Ordering::Acquire),
            checkpoints: h.checkpoints,
            last_save_unix: h.last_save_unix,
            last_checkpoint_ok: h.last_error.is_none(),
            last_checkpoint_error: h.last_error.clone(),
            last_checkpoint_ms: h.last_ms,
            snapshot_bytes: h.snapshot_bytes,
            snapshot_items: h.snapshot_items,
            snapshot_start_lsn: h.snapshot_start_lsn,
            log_bytes_since_snapshot: self.log.bytes_since(h.snapshot_start_lsn.saturating_sub(1)),
            log_records: log.records,
            log_last_lsn: log.last_lsn,
            log_durable_lsn: log.durable_lsn,
            log_syncs: log.syncs,
            log_segments: log.segments,
            log_error: log.poisoned,
            log_write_stalled: self
                .log
                .write_stalled()
                .map(|cause| journal::stall_reason(&cause)),
        }
    }
}
