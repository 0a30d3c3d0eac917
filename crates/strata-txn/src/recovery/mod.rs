//! Recovery: the newest checkpoint, then the log streams, in parallel.
//!
//! 1. The catalog must match the tables (`catalog`).
//! 2. The newest complete checkpoint's parts load in parallel, one
//!    thread each (`load`).
//! 3. The streams are opened and read several at once (`streams`: torn
//!    tails cut; damage elsewhere is an error naming the file and
//!    offset), each from the checkpoint's start position. The durable
//!    epoch is the smallest, over the streams, of the last epoch marker
//!    each holds (at least the checkpoint's epoch); transactions of later
//!    epochs were never acknowledged and are dropped.
//! 4. Each stream's kept transactions are decoded on a thread of their
//!    own, their writes split by key into lanes; each lane, on a thread,
//!    applies its keys' writes from every stream in TID order, skipping a
//!    write older than the row's TID (the checkpoint is fuzzy) (`replay`).
//! 5. Absent rows are dropped and the ordered indexes rebuilt.
//!
//! Every step runs on at most `threads` threads
//! ([`Options::recovery_threads`](crate::Options)); with one, recovery is
//! the serial replay, and any count gives the same database.

mod catalog;
mod load;
mod parallel;
mod replay;
mod streams;

use std::sync::Arc;
use std::time::Instant;

use strata_log::CommandLog;
use strata_snapshot::Fallback;

use crate::checkpoint::{Meta, META_DIR};
use crate::error::TxnError;
use crate::log::LogRoot;
use crate::storage::Table;

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

/// Recovers `tables` from `root` on at most `threads` threads and opens
/// `min_streams` streams at least.
pub(crate) fn recover(
    root: &Arc<dyn LogRoot>,
    tables: &[Table],
    min_streams: usize,
    pmem: bool,
    threads: usize,
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
    let reads = streams::read_all(root, count, &meta, pmem, threads)?;
    report.torn_bytes = reads.iter().map(|r| r.torn_bytes).sum();
    let durable = reads
        .iter()
        .map(|r| r.last_marker)
        .min()
        .unwrap_or(meta.epoch);
    report.streams = count;
    report.durable_epoch = durable;

    // 4. Replay the durable transactions, each key's in TID order.
    let replayed = replay::apply(tables, &reads, durable, &place, threads)?;
    report.txns_replayed = replayed.txns;
    report.txns_dropped = replayed.dropped;
    report.writes_applied = replayed.applied;
    report.writes_skipped = replayed.skipped;
    report.replay_millis = started.elapsed().as_millis() as u64;
    let streams = reads.into_iter().map(|r| Arc::new(r.log)).collect();

    // 5. Drop absent rows, rebuild the ordered indexes.
    let started = Instant::now();
    report.max_tid = replay::finish_tables(tables, threads);
    report.index_millis = started.elapsed().as_millis() as u64;
    Ok(Recovered {
        report,
        streams,
        next_checkpoint,
    })
}
