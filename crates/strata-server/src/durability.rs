//! [`ServerDurability`]: the server's persistence as the front ends see it
//! (the [`Durability`] trait of `strata-service`), over
//! [`strata_persist::Persistence`] or nothing when persistence is off.

use strata_persist::{Durability as LogDurability, PersistError, PersistStatus, Persistence};
use strata_service::durability::{off_info, one_line};
use strata_service::{Durability, DurableFuture};

/// Persistence for the front ends: `None` inside means `off`.
#[derive(Debug)]
pub struct ServerDurability {
    persistence: Option<Persistence>,
    /// Server start, Unix seconds (`LASTSAVE` when nothing was ever saved).
    started_unix: u64,
}

impl ServerDurability {
    /// Wraps `persistence` (`None`: off).
    pub fn new(persistence: Option<Persistence>, started_unix: u64) -> Self {
        Self {
            persistence,
            started_unix,
        }
    }

    /// The persistence layer, when on.
    pub fn persistence(&self) -> Option<&Persistence> {
        self.persistence.as_ref()
    }

    fn on(&self) -> Result<&Persistence, String> {
        self.persistence
            .as_ref()
            .ok_or_else(|| "persistence is off (start with --persistence async or sync)".into())
    }
}

impl Durability for ServerDurability {
    fn mode(&self) -> &'static str {
        self.persistence.as_ref().map_or("off", |p| p.mode().name())
    }

    fn wait(&self, lsn: u64) -> Option<DurableFuture> {
        let p = self.persistence.as_ref()?;
        match p.mode() {
            LogDurability::Sync | LogDurability::OnDemand => Some(Box::pin(p.durable(lsn))),
            LogDurability::Async { .. } => None,
        }
    }

    fn durable(&self, lsn: u64) -> Option<DurableFuture> {
        let p = self.persistence.as_ref()?;
        Some(Box::pin(p.durable(lsn)))
    }

    fn is_durable(&self, lsn: u64) -> bool {
        self.persistence.as_ref().is_some_and(|p| p.is_durable(lsn))
    }

    fn save(&self) -> Result<(), String> {
        self.on()?
            .checkpoint()
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn background_save(&self) -> Result<(), String> {
        self.on()?.start_checkpoint().map_err(|e| e.to_string())
    }

    fn background_rewrite(&self) -> Result<(), String> {
        match self.on()?.start_checkpoint() {
            Err(PersistError::CheckpointRunning) => {
                Err("Background append only file rewriting already in progress".into())
            }
            other => other.map_err(|e| e.to_string()),
        }
    }

    fn last_save_unix(&self) -> u64 {
        self.persistence
            .as_ref()
            .map_or(self.started_unix, |p| p.status().last_save_unix)
    }

    fn info(&self) -> Vec<(&'static str, String)> {
        let Some(p) = &self.persistence else {
            return off_info(self.started_unix);
        };
        on_fields(&p.status(), p)
    }
}

fn on_fields(s: &PersistStatus, p: &Persistence) -> Vec<(&'static str, String)> {
    let r = p.recovery();
    let ok = |good: bool| if good { "ok" } else { "err" }.to_string();
    vec![
        // Recovery finishes before the ports open, so clients never see 1.
        ("loading", "0".into()),
        (
            "rdb_changes_since_last_save",
            s.changes_since_save().to_string(),
        ),
        (
            "rdb_bgsave_in_progress",
            u8::from(s.checkpoint_in_progress).to_string(),
        ),
        ("rdb_last_save_time", s.last_save_unix.to_string()),
        ("rdb_last_bgsave_status", ok(s.last_checkpoint_ok)),
        (
            "rdb_last_bgsave_time_sec",
            (s.last_checkpoint_ms / 1000).to_string(),
        ),
        ("rdb_saves", s.checkpoints.to_string()),
        ("rdb_last_load_keys_loaded", r.snapshot_items.to_string()),
        ("aof_enabled", "1".into()),
        // A checkpoint is Strata's log rewrite (`BGREWRITEAOF` starts one).
        (
            "aof_rewrite_in_progress",
            u8::from(s.checkpoint_in_progress).to_string(),
        ),
        ("aof_rewrite_scheduled", "0".into()),
        ("aof_last_bgrewrite_status", ok(s.last_checkpoint_ok)),
        (
            "aof_last_write_status",
            ok(s.log_error.is_none() && s.log_write_stalled.is_none()),
        ),
        ("aof_current_size", s.log_bytes_since_snapshot.to_string()),
        ("aof_base_size", s.snapshot_bytes.to_string()),
        ("strata_persistence", s.mode.into()),
        ("strata_log_records", s.log_records.to_string()),
        ("strata_log_last_lsn", s.log_last_lsn.to_string()),
        ("strata_log_durable_lsn", s.log_durable_lsn.to_string()),
        ("strata_log_syncs", s.log_syncs.to_string()),
        ("strata_log_segments", s.log_segments.to_string()),
        (
            "strata_log_poisoned",
            u8::from(s.log_error.is_some()).to_string(),
        ),
        (
            "strata_log_error",
            one_line(s.log_error.as_deref().unwrap_or_default()),
        ),
        (
            "strata_log_write_stalled",
            u8::from(s.log_write_stalled.is_some()).to_string(),
        ),
        (
            "strata_log_write_error",
            one_line(s.log_write_stalled.as_deref().unwrap_or_default()),
        ),
        (
            "strata_checkpoint_in_progress",
            u8::from(s.checkpoint_in_progress).to_string(),
        ),
        ("strata_checkpoints", s.checkpoints.to_string()),
        (
            "strata_checkpoint_last_duration_ms",
            s.last_checkpoint_ms.to_string(),
        ),
        ("strata_snapshot_items", s.snapshot_items.to_string()),
        ("strata_snapshot_bytes", s.snapshot_bytes.to_string()),
        (
            "strata_snapshot_start_lsn",
            s.snapshot_start_lsn.to_string(),
        ),
        ("strata_recovery_ms", r.duration.as_millis().to_string()),
        (
            "strata_recovery_snapshot_items",
            r.snapshot_items.to_string(),
        ),
        ("strata_recovery_records", r.log_records.to_string()),
        ("strata_recovery_bytes_dropped", r.bytes_dropped.to_string()),
        ("strata_recovery_refused", r.refused.to_string()),
    ]
}
