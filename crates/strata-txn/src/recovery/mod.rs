//! Recovery: the newest checkpoint, then the log streams, in parallel.
//!
//! 1. The catalog must match the tables (`catalog`).
//! 2. The newest complete checkpoint's parts load in parallel, one
//!    thread each (`load`).
//! 3. Each stream is opened (its torn tail cut; damage elsewhere is an
//!    error naming the file and offset) and read from the checkpoint's
//!    start position. The durable epoch is the smallest, over the
//!    streams, of the last epoch marker each holds (at least the
//!    checkpoint's epoch); transactions of later epochs were never
//!    acknowledged and are dropped.
//! 4. The kept transactions are merged in TID order, their writes split
//!    by key over threads (`replay`); each thread applies its keys' writes
//!    in TID order, skipping a write older than the row's TID (the
//!    checkpoint is fuzzy).
//! 5. Absent rows are dropped and the ordered indexes rebuilt.

mod catalog;
mod load;
mod replay;

use std::sync::Arc;
use std::time::Instant;

use strata_log::{CommandLog, RecoveryPolicy};
use strata_snapshot::Fallback;

use crate::checkpoint::{Meta, META_DIR};
use crate::error::TxnError;
use crate::log::record::{decode_marker, KIND_MARKER, KIND_TXN};
use crate::log::streams::{stream_config, stream_name};
use crate::log::LogRoot;
use crate::storage::Table;
use crate::tid::epoch_of;

/// What recovery found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// The checkpoint loaded, if any.
    pub checkpoint: Option<u64>,
    /// Rows it held.
    pub checkpoint_rows: u64,
    /// Time to load it, milliseconds.
    pub load_millis: u64,
    /// Log streams found.
    pub streams: usize,
    /// Bytes cut from torn stream tails.
    pub torn_bytes: u64,
    /// The durable epoch recovered to.
    pub durable_epoch: u64,
    /// Transactions replayed.
    pub txns_replayed: u64,
    /// Transactions dropped (after the durable epoch: never acknowledged).
    pub txns_dropped: u64,
    /// Logged writes applied.
    pub writes_applied: u64,
    /// Logged writes skipped (the checkpoint had a newer row, or the row
    /// was gone).
    pub writes_skipped: u64,
    /// Time to read the streams and replay, milliseconds.
    pub replay_millis: u64,
    /// Time to rebuild the ordered indexes, milliseconds.
    pub index_millis: u64,
    /// The largest TID recovered.
    pub max_tid: u64,
}

/// Recovery's result: the report, the opened streams, the next
/// checkpoint id.
pub(crate) struct Recovered {
    pub report: RecoveryReport,
    pub streams: Vec<Arc<CommandLog>>,
    pub next_checkpoint: u64,
}

/// Recovers `tables` from `root` and opens `min_streams` streams at least.
pub(crate) fn recover(
    root: &Arc<dyn LogRoot>,
    tables: &[Table],
    min_streams: usize,
    pmem: bool,
) -> Result<Recovered, TxnError> {
    let place = root.describe();
    let io = |what: &str, e: std::io::Error| TxnError::storage(format!("{what} at {place}: {e}"));
    let meta_dir = root
        .open(META_DIR)
        .map_err(|e| io("checkpoint directory", e))?;
    let schemas: Vec<_> = tables.iter().map(|t| &*t.schema).collect();
    catalog::check_or_write(&*meta_dir, &schemas, &place)?;
    let mut report = RecoveryReport::default();

    // 2. The checkpoint.
    let newest = strata_snapshot::newest_complete(&*meta_dir, Fallback::Strict)
        .map_err(|e| TxnError::storage(format!("checkpoint at {place}: {e}")))?;
    let mut meta = Meta {
        epoch: 0,
        parts: 0,
        stream_starts: Vec::new(),
    };
    let mut next_checkpoint = 1;
    if let Some((name, info)) = newest {
        meta = load::read_meta(&*meta_dir, &name)?;
        let started = Instant::now();
        report.checkpoint_rows = load::load_parts(root, &name, &meta, tables)?;
        report.checkpoint = Some(info.start_lsn);
        report.load_millis = started.elapsed().as_millis() as u64;
        next_checkpoint = info.start_lsn + 1;
    }

    // 3. The streams.
    let started = Instant::now();
    let present = root
        .list()
        .map_err(|e| io("log root", e))?
        .iter()
        .filter(|n| n.starts_with("stream-"))
        .count();
    let count = present.max(min_streams).max(meta.stream_starts.len());
    let mut streams = Vec::with_capacity(count);
    let mut bodies: Vec<(u64, usize, Vec<u8>)> = Vec::new();
    let mut durable = u64::MAX;
    for i in 0..count {
        let name = stream_name(i);
        let dir = root.open(&name).map_err(|e| io(&name, e))?;
        let (log, recovered) = CommandLog::open(
            Arc::clone(&dir),
            stream_config(pmem),
            RecoveryPolicy::Strict,
        )
        .map_err(|e| TxnError::storage(format!("log stream {name} at {place}: {e}")))?;
        report.torn_bytes += recovered.bytes_dropped;
        let from = meta.stream_starts.get(i).copied().unwrap_or(1);
        let mut last_marker = meta.epoch;
        let (name_ref, place_ref) = (&name, &place);
        let what =
            move |lsn: u64| move || format!("log stream {name_ref} at {place_ref}, record {lsn}");
        CommandLog::replay(&*dir, from, |lsn, kind, body| -> Result<(), TxnError> {
            match kind {
                KIND_MARKER => last_marker = last_marker.max(decode_marker(body, &what(lsn))?),
                KIND_TXN => {
                    let tid = body
                        .get(..8)
                        .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
                        .ok_or_else(|| {
                            TxnError::storage(format!("{}: empty transaction record", what(lsn)()))
                        })?;
                    bodies.push((tid, i, body.to_vec()));
                }
                other => {
                    return Err(TxnError::storage(format!(
                        "{}: unknown record kind {other}",
                        what(lsn)()
                    )));
                }
            }
            Ok(())
        })?;
        durable = durable.min(last_marker);
        streams.push(Arc::new(log));
    }
    if durable == u64::MAX {
        durable = meta.epoch;
    }
    report.streams = count;
    report.durable_epoch = durable;

    // 4. Replay the durable transactions in TID order.
    let before = bodies.len();
    bodies.retain(|(tid, _, _)| epoch_of(*tid) <= durable);
    report.txns_dropped = (before - bodies.len()) as u64;
    bodies.sort_by_key(|(tid, stream, _)| (*tid, *stream));
    report.txns_replayed = bodies.len() as u64;
    let (applied, skipped) = replay::apply(tables, &bodies, &place)?;
    report.writes_applied = applied;
    report.writes_skipped = skipped;
    report.replay_millis = started.elapsed().as_millis() as u64;

    // 5. Drop absent rows, rebuild the ordered indexes.
    let started = Instant::now();
    report.max_tid = replay::finish_tables(tables);
    report.index_millis = started.elapsed().as_millis() as u64;
    Ok(Recovered {
        report,
        streams,
        next_checkpoint,
    })
}
