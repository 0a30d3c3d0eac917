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
//! - `shared`: what the handle, checkpoints and the trigger share; running
//!   a checkpoint.
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
mod shared;
pub mod status;
mod trigger;

pub use checkpoint::CheckpointReport;
use checkpoint::Pace;
pub use config::PersistConfig;
pub use error::PersistError;
pub use journal::LogJournal;
pub use recovery::RecoveryStats;
use shared::{History, Shared};
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

    /// Whether record `lsn` is durable now (0: nothing to wait for); never
    /// for a record whose append failed.
    pub fn is_durable(&self, lsn: u64) -> bool {
        lsn != strata_kv::journal::APPEND_FAILED && self.shared.log.durable_lsn() >= lsn
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
