//! Recovery at start: load the newest complete snapshot, then replay the
//! command log from the snapshot's start LSN.
//!
//! The log is opened first, so its own recovery has cut a torn tail (and
//! reported the bytes dropped) before anything is replayed. Damage in a
//! snapshot or in the middle of the log stops the start with an error
//! naming the file and offset, unless the operator asked to start from the
//! last good point ([`RecoveryPolicy::TruncateToLastGood`]): then damaged
//! snapshots are skipped for older ones and the log is cut at its first bad
//! record.

use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_device::Directory;
use strata_kv::journal::{self, Restored, KV_RECORD_KIND};
use strata_kv::{Keyspace, Store};
use strata_log::{CommandLog, RecoveryPolicy, RecoveryReport};
use strata_snapshot::{check_complete, snapshots, SnapshotError, SnapshotReader};

use crate::PersistError;

/// What recovery found and did, for the log and `INFO persistence`.
#[derive(Debug, Clone, Default)]
pub struct RecoveryStats {
    /// Wall time of the whole recovery.
    pub duration: Duration,
    /// The snapshot loaded, if any.
    pub snapshot: Option<String>,
    /// Its start LSN (1 when none was loaded).
    pub snapshot_start_lsn: u64,
    /// Its length in bytes.
    pub snapshot_bytes: u64,
    /// When it was written, Unix ms (0 when none).
    pub snapshot_created_ms: u64,
    /// Items loaded from it.
    pub snapshot_items: u64,
    /// Log records replayed.
    pub log_records: u64,
    /// Log bytes cut from a torn tail (or dropped at the operator's request).
    pub bytes_dropped: u64,
    /// Items that did not fit (too large or over the memory limit in store
    /// mode) and were not restored.
    pub refused: u64,
    /// Damage skipped at the operator's request, described.
    pub skipped_damage: Vec<String>,
}

impl RecoveryStats {
    /// Log records replayed per second.
    pub fn records_per_sec(&self) -> f64 {
        self.log_records as f64 / self.duration.as_secs_f64().max(1e-9)
    }
}

/// Restores `keyspace` (which must be empty, with no journal attached) from
/// `snapshot_dir` and the already opened `log` in `log_dir`.
pub(crate) fn recover(
    keyspace: &Keyspace,
    snapshot_dir: &dyn Directory,
    log_dir: &Arc<dyn Directory>,
    log: &CommandLog,
    opened: &RecoveryReport,
    policy: RecoveryPolicy,
    started: Instant,
) -> Result<RecoveryStats, PersistError> {
    let mut stats = RecoveryStats {
        bytes_dropped: opened.bytes_dropped,
        snapshot_start_lsn: 1,
        ..RecoveryStats::default()
    };
    if let Some(damage) = &opened.damage {
        stats.skipped_damage.push(format!(
            "log {} at offset {}: {}",
            damage.file, damage.offset, damage.reason
        ));
    }
    load_snapshot(keyspace, snapshot_dir, policy, opened.records, &mut stats)?;
    if stats.snapshot.is_none() {
        keyspace.reserve_items(opened.records);
    }
    let log_last = log.last_lsn();
    let first_kept = log.stats().first_lsn;
    if stats.snapshot.is_some() && log_last + 1 < stats.snapshot_start_lsn {
        return Err(PersistError::LogBehindSnapshot {
            log_last,
            snapshot: stats.snapshot.clone().unwrap_or_default(),
            start: stats.snapshot_start_lsn,
        });
    }
    let mut from = stats.snapshot_start_lsn;
    if from < first_kept && policy == RecoveryPolicy::TruncateToLastGood {
        stats.skipped_damage.push(format!(
            "log records {from}..{first_kept} are missing; replaying from {first_kept}"
        ));
        from = first_kept;
    }
    let mut restored = Restored::default();
    let report = CommandLog::replay(&**log_dir, from, |lsn, kind, body| {
        if kind != KV_RECORD_KIND {
            return Err(PersistError::UnknownKind { lsn, kind });
        }
        let done = keyspace
            .apply_changes(journal::decode(body))
            .map_err(|source| PersistError::BadRecord { lsn, source })?;
        restored.add(done);
        Ok(())
    })?;
    stats.log_records = report.records;
    stats.refused += restored.refused;
    stats.duration = started.elapsed();
    Ok(stats)
}

/// Loads the newest snapshot that is complete and undamaged (only the
/// newest, unless the policy allows falling back).
fn load_snapshot(
    keyspace: &Keyspace,
    dir: &dyn Directory,
    policy: RecoveryPolicy,
    log_records: u64,
    stats: &mut RecoveryStats,
) -> Result<(), PersistError> {
    for name in snapshots(dir)?.into_iter().rev() {
        match load_one(keyspace, dir, &name, log_records, stats) {
            Ok(()) => return Ok(()),
            Err(err) if err.is_damage() && policy == RecoveryPolicy::TruncateToLastGood => {
                tracing::warn!(error = %err, "skipping damaged snapshot {name} as asked");
                stats.skipped_damage.push(err.to_string());
                // Whatever the damaged snapshot loaded goes.
                // (No journal is attached yet, so the flush cannot be refused.)
                let _ = keyspace.store().flush();
                stats.snapshot_items = 0;
                stats.refused = 0;
            }
            Err(err) => return Err(err.into()),
        }
    }
    Ok(())
}

fn load_one(
    keyspace: &Keyspace,
    dir: &dyn Directory,
    name: &str,
    log_records: u64,
    stats: &mut RecoveryStats,
) -> Result<(), SnapshotError> {
    // Size the index once for what is coming (an upper bound: log records
    // may touch the same keys again), instead of growing it step by step.
    let complete = check_complete(dir, name)?;
    keyspace.reserve_items(complete.records + log_records);
    let mut reader = SnapshotReader::open(dir, name)?;
    let mut refused = 0u64;
    let info = reader.for_each(|item| {
        let restored =
            keyspace.restore_item(item.key, item.value, item.flags, item.cas, item.expires_at);
        if restored.is_err() {
            refused += 1;
        }
        Ok::<(), SnapshotError>(())
    })?;
    stats.snapshot = Some(info.name.clone());
    stats.snapshot_start_lsn = info.start_lsn;
    stats.snapshot_bytes = info.bytes;
    stats.snapshot_created_ms = info.created_ms;
    stats.snapshot_items = info.records;
    stats.refused = refused;
    Ok(())
}
