//! Reading the log streams, several at once (`parallel::map`): each
//! stream is opened (its torn tail cut; damage elsewhere is an error
//! naming the file and offset) and read from the checkpoint's start
//! position, keeping its transaction records and its last epoch marker.
//! Streams are independent until the merge, which needs them all (the
//! durable epoch is the minimum over the streams).

use std::ops::Range;
use std::sync::Arc;

use strata_log::{CommandLog, RecoveryPolicy};

use crate::checkpoint::Meta;
use crate::error::TxnError;
use crate::log::record::{decode_marker, KIND_MARKER, KIND_TXN};
use crate::log::streams::{stream_config, stream_name};
use crate::log::LogRoot;
use crate::recovery::parallel;

/// One stream as read.
pub(crate) struct StreamRead {
    pub log: CommandLog,
    /// Bytes cut from its torn tail.
    pub torn_bytes: u64,
    /// The newest epoch marker (at least the checkpoint's epoch).
    pub last_marker: u64,
    /// Its transaction records in log order: TID and body in `bytes`.
    pub txns: Vec<(u64, Range<usize>)>,
    pub bytes: Vec<u8>,
}

impl StreamRead {
    /// The body of transaction record `i`.
    pub fn body(&self, i: usize) -> &[u8] {
        &self.bytes[self.txns[i].1.clone()]
    }
}

/// Reads streams `0..count` on at most `threads` threads. On failures,
/// the error of the lowest-numbered failing stream.
pub(crate) fn read_all(
    root: &Arc<dyn LogRoot>,
    count: usize,
    meta: &Meta,
    pmem: bool,
    threads: usize,
) -> Result<Vec<StreamRead>, TxnError> {
    let place = root.describe();
    parallel::map(count, threads, |i| read_one(root, i, meta, pmem, &place))
        .into_iter()
        .collect()
}

fn read_one(
    root: &Arc<dyn LogRoot>,
    i: usize,
    meta: &Meta,
    pmem: bool,
    place: &str,
) -> Result<StreamRead, TxnError> {
    let name = stream_name(i);
    let dir = root
        .open(&name)
        .map_err(|e| TxnError::storage(format!("{name} at {place}: {e}")))?;
    let (log, recovered) = CommandLog::open(
        Arc::clone(&dir),
        stream_config(pmem),
        RecoveryPolicy::Strict,
    )
    .map_err(|e| TxnError::storage(format!("log stream {name} at {place}: {e}")))?;
    let from = meta.stream_starts.get(i).copied().unwrap_or(1);
    let mut read = StreamRead {
        log,
        torn_bytes: recovered.bytes_dropped,
        last_marker: meta.epoch,
        txns: Vec::new(),
        bytes: Vec::new(),
    };
    let name = &name;
    let what = |lsn: u64| move || format!("log stream {name} at {place}, record {lsn}");
    CommandLog::replay(&*dir, from, |lsn, kind, body| -> Result<(), TxnError> {
        match kind {
            KIND_MARKER => {
                read.last_marker = read.last_marker.max(decode_marker(body, &what(lsn))?);
            }
            KIND_TXN => {
                let tid = body
                    .get(..8)
                    .and_then(|b| b.try_into().ok())
                    .map(u64::from_le_bytes)
                    .ok_or_else(|| {
                        TxnError::storage(format!("{}: empty transaction record", what(lsn)()))
                    })?;
                let start = read.bytes.len();
                read.bytes.extend_from_slice(body);
                read.txns.push((tid, start..read.bytes.len()));
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
    Ok(read)
}
