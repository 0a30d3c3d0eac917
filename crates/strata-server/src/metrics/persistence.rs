//! Durability at scrape time: the command log ([`LogStats`]) and
//! checkpoints ([`PersistStatus`]): records, bytes and syncs, the LSNs
//! written and durable, how far the log has grown since the last
//! snapshot towards the next checkpoint, and the last checkpoint's
//! outcome. Nothing is exported when persistence is off.
//!
//! [`LogStats`]: strata_log::LogStats
//! [`PersistStatus`]: strata_persist::PersistStatus

use std::fmt::Result;
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::registry::Unit;

use super::encode::{counter, gauge, gauge_f64};
use crate::durability::ServerDurability;

/// Reads the persistence handle.
#[derive(Debug)]
pub(crate) struct PersistenceCollector {
    pub durability: Arc<ServerDurability>,
    /// `checkpoint_min_log_size`: log bytes since the last snapshot that
    /// start a checkpoint (with the ratio condition).
    pub checkpoint_min_log_bytes: u64,
}

impl Collector for PersistenceCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result {
        let Some(p) = self.durability.persistence() else {
            return Ok(());
        };
        let enc = &mut enc;
        let log = p.log().stats();
        let s = p.status();
        counter(
            enc,
            "log_records",
            "Records appended to the command log since start.",
            None,
            log.records,
        )?;
        counter(
            enc,
            "log_appended",
            "Bytes appended to the command log since start.",
            Some(Unit::Bytes),
            log.bytes,
        )?;
        counter(
            enc,
            "log_syncs",
            "Command log device syncs since start.",
            None,
            log.syncs,
        )?;
        gauge(
            enc,
            "log_buffered",
            "Bytes appended and not yet written.",
            Some(Unit::Bytes),
            log.buffered_bytes as i64,
        )?;
        gauge(
            enc,
            "log_segments",
            "Segment files the command log holds.",
            None,
            log.segments as i64,
        )?;
        gauge(
            enc,
            "log_last_lsn",
            "The last LSN assigned.",
            None,
            log.last_lsn as i64,
        )?;
        gauge(
            enc,
            "log_durable_lsn",
            "Every record up to this LSN is durable.",
            None,
            log.durable_lsn as i64,
        )?;
        gauge(
            enc,
            "log_poisoned",
            "1 when a failed write or sync stopped the log (writes are refused).",
            None,
            i64::from(log.poisoned.is_some()),
        )?;
        gauge(
            enc,
            "log_since_checkpoint",
            "Log bytes since the last snapshot (AOF size).",
            Some(Unit::Bytes),
            s.log_bytes_since_snapshot as i64,
        )?;
        gauge(enc, "checkpoint_trigger", "Log bytes since the last snapshot at which a checkpoint starts (checkpoint_min_log_size; the ratio to the snapshot applies too).", Some(Unit::Bytes), self.checkpoint_min_log_bytes as i64)?;
        counter(
            enc,
            "checkpoints",
            "Checkpoints completed since start.",
            None,
            s.checkpoints,
        )?;
        gauge(
            enc,
            "checkpoint_in_progress",
            "1 while a checkpoint runs.",
            None,
            i64::from(s.checkpoint_in_progress),
        )?;
        gauge(
            enc,
            "checkpoint_last_ok",
            "1 when the last checkpoint succeeded.",
            None,
            i64::from(s.last_checkpoint_ok),
        )?;
        gauge_f64(
            enc,
            "checkpoint_last_duration",
            "How long the last checkpoint took.",
            Some(Unit::Seconds),
            s.last_checkpoint_ms as f64 / 1000.0,
        )?;
        gauge(
            enc,
            "checkpoint_last_success_timestamp",
            "Unix time of the last successful save.",
            Some(Unit::Seconds),
            s.last_save_unix as i64,
        )?;
        gauge(
            enc,
            "snapshot",
            "Bytes of the newest snapshot.",
            Some(Unit::Bytes),
            s.snapshot_bytes as i64,
        )?;
        gauge(
            enc,
            "snapshot_items",
            "Items in the newest snapshot.",
            None,
            s.snapshot_items as i64,
        )
    }
}
