//! # strata-persist: durability of the keyspace
//!
//! Connects the engine ([`strata_kv`]) to the command log ([`strata_log`])
//! and the snapshot files ([`strata_snapshot`]):
//!
//! - [`Persistence::open`] recovers: it opens the log (cutting a torn
//!   tail), loads the newest complete snapshot, replays the log from the
//!   snapshot's start LSN, then attaches a [`LogJournal`] to the keyspace,
//!   so every later change is appended to the log under its shard lock.
//! - Front ends wait for [`Persistence::durable`] before replying in `sync`
//!   mode; in `async` mode the log's flusher syncs every `sync_interval`.
//! - Checkpoints ([`Persistence::checkpoint`], [`Persistence::start_checkpoint`],
//!   and a trigger thread watching the log's growth) write a fuzzy snapshot
//!   without `fork()` and without copying the keyspace (see [`checkpoint`]).
//!
//! ## Layout
//! - [`config`]: [`PersistConfig`]; its mode is the log's own
//!   [`Durability`], re-exported.
//! - [`journal`]: [`LogJournal`], the engine's journal on the log.
//! - [`recovery`]: loading the snapshot and replaying the log; [`RecoveryStats`].
//! - [`checkpoint`]: writing one checkpoint; [`CheckpointReport`].
//! - `trigger`: the background thread that starts checkpoints when due.
//! - `cpu_budget`: keeps a checkpoint's CPU time within `checkpoint_cpu_pct` of the cores.
//! - [`status`]: [`PersistStatus`] for `INFO` and `stats`.
//!
//! This crate knows nothing of protocols or sockets.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
#![forbid(unsafe_code)]

pub mod checkpoint;
pub mod config;
mod cpu_budget;
mod error;
pub mod journal;
pub mod recovery;
pub mod status;
mod trigger;

pub use checkpoint::CheckpointReport;
use checkpoint::Pace;
pub use config::PersistConfig;
pub use error::PersistError;
pub use journal::LogJournal;
pub use recovery::RecoveryStats;
pub use status::PersistStatus;
/// How writes are made durable: the log's own type, used unchanged here
/// and by the server.
pub use strata_log::Durability;

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;
use strata_device::{Directory, FsDirectory, SyncMode};
use strata_kv::Keyspace;
use strata_log::{CommandLog, LogConfig, LogError};

/// The durability of one keyspace: its log, its snapshots, its checkpoints.
pub struct Persistence {
    shared: Arc<Shared>,
    trigger: Mutex<Option<trigger::Trigger>>,
}

/// What the handle, background checkpoints and the trigger thread share.
pub(crate) struct Shared {
    keyspace: Arc<Keyspace>,
    log: Arc<CommandLog>,
    snapshot_dir: Arc<dyn Directory>,
    config: PersistConfig,
    recovery: RecoveryStats,
    /// Set while a checkpoint runs; at most one at a time.
    running: AtomicBool,
    history: Mutex<History>,
}

/// Outcomes of past checkpoints.
struct History {
    checkpoints: u64,
    last_save_unix: u64,
    last_error: Option<String>,
    last_ms: u64,
    snapshot_bytes: u64,
    snapshot_items: u64,
    snapshot_start_lsn: u64,
}

impl Persistence {
    /// Opens the directories of `config`, recovers `keyspace` (which must be
    /// new and empty) from them, and starts journaling and the checkpoint
    /// trigger.
    pub fn open(
        keyspace: Arc<Keyspace>,
        config: PersistConfig,
    ) -> Result<Persistence, PersistError> {
        let dir = |what, path: &std::path::Path, mode| {
            FsDirectory::open(path, mode)
                .map(|d| Arc::new(d) as Arc<dyn Directory>)
                .map_err(|source| PersistError::Directory {
                    what,
                    path: path.display().to_string(),
                    source,
                })
        };
        let log_dir = dir("log", &config.log_dir, config.log_device)?;
        let snapshot_dir = dir("snapshot", &config.snapshot_dir, SyncMode::Fdatasync)?;
        Self::open_in(keyspace, log_dir, snapshot_dir, config)
    }

    /// [`open`](Self::open) on given directories (tests use simulated ones);
    /// `config`'s paths are ignored.
    pub fn open_in(
        keyspace: Arc<Keyspace>,
        log_dir: Arc<dyn Directory>,
        snapshot_dir: Arc<dyn Directory>,
        config: PersistConfig,
    ) -> Result<Persistence, PersistError> {
        let started = Instant::now();
        let durability = config.mode;
        let log_config = LogConfig::new(durability)
            .with_segment_size(config.log_segment_size)
            .with_group_commit_max_delay(config.group_commit_delay);
        let (log, opened) = CommandLog::open(log_dir.clone(), log_config, config.recovery)?;
        let recovery = recovery::recover(
            &keyspace,
            &*snapshot_dir,
            &log_dir,
            &log,
            &opened,
            config.recovery,
            started,
        )?;
        tracing::info!(
            mode = config.mode.name(),
            snapshot = recovery.snapshot.as_deref().unwrap_or("none"),
            snapshot_items = recovery.snapshot_items,
            log_records = recovery.log_records,
            bytes_dropped = recovery.bytes_dropped,
            refused = recovery.refused,
            ms = recovery.duration.as_millis() as u64,
            records_per_sec = recovery.records_per_sec() as u64,
            "recovered"
        );
        for damage in &recovery.skipped_damage {
            tracing::warn!(%damage, "recovery skipped damage as asked (--recovery last-good)");
        }
        let log = Arc::new(log);
        let journal = Arc::new(LogJournal::new(log.clone()));
        if keyspace.attach_journal(journal).is_err() {
            return Err(PersistError::Log(LogError::Config(
                "the keyspace already has a journal".into(),
            )));
        }
        let last_save_unix = match recovery.snapshot_created_ms {
            0 => status::unix_now(),
            ms => ms / 1000,
        };
        let history = History {
            checkpoints: 0,
            last_save_unix,
            last_error: None,
            last_ms: 0,
            snapshot_bytes: recovery.snapshot_bytes,
            snapshot_items: recovery.snapshot_items,
            snapshot_start_lsn: recovery.snapshot_start_lsn,
        };
        let shared = Arc::new(Shared {
            keyspace,
            log,
            snapshot_dir,
            config,
            recovery,
            running: AtomicBool::new(false),
            history: Mutex::new(history),
        });
        let trigger = trigger::Trigger::start(shared.clone()).map_err(PersistError::Thread)?;
        Ok(Persistence {
            shared,
            trigger: Mutex::new(Some(trigger)),
        })
    }

    /// What recovery did at open.
    pub fn recovery(&self) -> &RecoveryStats {
        &self.shared.recovery
    }

    /// The mode.
    pub fn mode(&self) -> Durability {
        self.shared.config.mode
    }

    /// The command log (for its LSNs and stats).
    pub fn log(&self) -> &Arc<CommandLog> {
        &self.shared.log
    }

    /// Resolves once record `lsn` is durable (see
    /// [`CommandLog::durable`]); `lsn` is what
    /// [`strata_kv::take_written_lsn`] returned.
    pub fn durable(&self, lsn: u64) -> impl Future<Output = Result<(), String>> + Send + 'static {
        let failed =
            (lsn == strata_kv::journal::APPEND_FAILED).then(|| journal::failure(&self.shared.log));
        let wait = self.shared.log.durable(lsn);
        async move {
            if let Some(cause) = failed {
                return Err(cause);
            }
            wait.await
                .map_err(|err| format!("command log failed: {err}"))
        }
    }

    /// Writes a checkpoint now, in the calling thread (Redis `SAVE`).
    /// It runs as fast as it can: `checkpoint_cpu_pct` paces only
    /// background checkpoints (the caller asked for this one and waits).
    pub fn checkpoint(&self) -> Result<CheckpointReport, PersistError> {
        self.shared.run_checkpoint(Pace::Foreground)
    }

    /// Starts a checkpoint in a background thread (Redis `BGSAVE`).
    pub fn start_checkpoint(&self) -> Result<(), PersistError> {
        self.shared.clone().spawn_checkpoint()
    }

    /// The current state, for `INFO` and `stats`.
    pub fn status(&self) -> PersistStatus {
        self.shared.status()
    }

    /// Stops the trigger thread, waits for a running checkpoint to end,
    /// and syncs the log: for a clean shutdown, once clients are gone.
    pub fn close(&self) -> Result<(), PersistError> {
        if let Some(trigger) = self.trigger.lock().take() {
            trigger.stop();
        }
        while self.shared.running.load(Ordering::Acquire) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        self.shared.log.flush()?;
        Ok(())
    }
}

impl Drop for Persistence {
    fn drop(&mut self) {
        if let Some(trigger) = self.trigger.get_mut().take() {
            trigger.stop();
        }
    }
}

impl std::fmt::Debug for Persistence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Persistence")
            .field("mode", &self.shared.config.mode)
            .field("log", &self.shared.log)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// Runs a checkpoint unless one is running, recording its outcome.
    fn run_checkpoint(&self, pace: Pace) -> Result<CheckpointReport, PersistError> {
        if self.running.swap(true, Ordering::AcqRel) {
            return Err(PersistError::CheckpointRunning);
        }
        let result = self.checkpoint_now(pace);
        self.running.store(false, Ordering::Release);
        result
    }

    /// Claims the single checkpoint slot and runs a checkpoint in a new thread.
    fn spawn_checkpoint(self: Arc<Self>) -> Result<(), PersistError> {
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
    fn checkpoint_now(&self, pace: Pace) -> Result<CheckpointReport, PersistError> {
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
    fn checkpoint_due(&self) -> bool {
        let (start, bytes) = {
            let h = self.history.lock();
            (h.snapshot_start_lsn, h.snapshot_bytes)
        };
        let log_bytes = self.log.bytes_since(start.saturating_sub(1));
        self.config.checkpoint_due(log_bytes, bytes)
    }

    fn status(&self) -> PersistStatus {
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
