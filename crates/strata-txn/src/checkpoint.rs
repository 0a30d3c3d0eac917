//! Checkpoints: a fuzzy copy of every present row, written while
//! transactions run, in parts written in parallel (`strata-snapshot`
//! files, one directory per part), committed by a meta snapshot.
//!
//! Protocol: (1) rotate every log stream and note where each new segment
//! starts: every record before it belongs to a transaction whose writes
//! are installed, or locked and about to be, when the scan reaches them;
//! (2) scan the tables, reading each record under its lock (NO_WAIT's
//! shared lock, Silo's lock bit clear, TID unchanged), waiting out writes
//! in flight, skipping absent rows; each row is stored with its TID;
//! (3) wait until the durable epoch covers the epoch the scan ended in,
//! so that every transaction whose effects the copy holds is durable in
//! the log; (4) finish the parts, then the meta snapshot (the commit
//! point: epoch, stream start positions, part count); (5) remove older
//! checkpoints and the log segments before the start positions.
//! Recovery loads the parts and replays the streams from the start
//! positions, applying a logged write only to a row with a smaller TID.

use std::hash::Hasher;
use std::sync::atomic::Ordering;
use std::time::Instant;

use strata_device::Directory;
use strata_snapshot::{snapshot_name, SnapshotItem, SnapshotWriter, WriterOptions};

use crate::cc::no_wait::EXCLUSIVE;
use crate::error::TxnError;
use crate::log::streams::LogSet;
use crate::shared::Shared;
use crate::storage::hasher::KeyHasher;
use crate::storage::RecPtr;
use crate::tid::{tid_of, ABSENT, LOCK, UNLINKED};

/// Directory of the meta snapshots.
pub(crate) const META_DIR: &str = "checkpoint-meta";
/// Table id of the meta item.
const META_TABLE: u32 = u32::MAX;

/// Directory of checkpoint part `k`.
pub(crate) fn part_dir(k: usize) -> String {
    format!("checkpoint-{k}")
}

/// What a checkpoint recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckpointReport {
    /// Its id (the name of its files).
    pub id: u64,
    /// Rows written.
    pub rows: u64,
    /// Bytes written (all parts).
    pub bytes: u64,
    /// The epoch the scan ended in (durable before the checkpoint was).
    pub epoch: u64,
    /// Where each stream's replay starts.
    pub stream_starts: Vec<u64>,
    /// Wall time in milliseconds.
    pub millis: u64,
}

/// The commit record of a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Meta {
    pub epoch: u64,
    pub parts: u32,
    pub stream_starts: Vec<u64>,
}

impl Meta {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&self.epoch.to_le_bytes());
        out.extend_from_slice(&self.parts.to_le_bytes());
        out.extend_from_slice(&(self.stream_starts.len() as u32).to_le_bytes());
        for s in &self.stream_starts {
            out.extend_from_slice(&s.to_le_bytes());
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Option<Meta> {
        let u32_at = |at: usize| {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4")))
        };
        let u64_at = |at: usize| {
            bytes
                .get(at..at + 8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
        };
        if u32_at(0)? != 1 {
            return None;
        }
        let epoch = u64_at(4)?;
        let parts = u32_at(12)?;
        let n = u32_at(16)? as usize;
        let stream_starts = (0..n)
            .map(|i| u64_at(20 + 8 * i))
            .collect::<Option<Vec<_>>>()?;
        if 20 + 8 * n != bytes.len() {
            return None;
        }
        Some(Meta {
            epoch,
            parts,
            stream_starts,
        })
    }

    /// The meta item's key.
    pub fn key() -> [u8; 12] {
        item_key(META_TABLE, 0)
    }
}

/// A row item's key: table and primary key.
pub(crate) fn item_key(table: u32, key: u64) -> [u8; 12] {
    let mut out = [0u8; 12];
    out[..4].copy_from_slice(&table.to_le_bytes());
    out[4..].copy_from_slice(&key.to_le_bytes());
    out
}

/// Which part a row goes to.
pub(crate) fn part_of(table: u32, key: u64, parts: usize) -> usize {
    let mut h = KeyHasher::default();
    h.write_u64(key ^ (u64::from(table) << 48));
    (h.finish() % parts as u64) as usize
}

fn snap_error(what: &str, e: strata_snapshot::SnapshotError) -> TxnError {
    TxnError::storage(format!("checkpoint {what}: {e}"))
}

/// Writes a checkpoint with id `id` in `parts` parts. `durable_wait`
/// makes the scan's last epoch durable and returns the epoch to record
/// (see the module docs).
pub(crate) fn write(
    shared: &Shared,
    log: &LogSet,
    id: u64,
    parts: usize,
    durable_wait: &dyn Fn(u64) -> Result<u64, TxnError>,
) -> Result<CheckpointReport, TxnError> {
    let started = Instant::now();
    // A full device would hold the rotations until space is freed; and
    // the checkpoint needs space of its own.
    for i in 0..log.streams.len() {
        if let Some(refusal) = log.refusal(i) {
            return Err(refusal);
        }
    }
    let mut starts = Vec::with_capacity(log.streams.len());
    for (i, stream) in log.streams.iter().enumerate() {
        let lsn = stream
            .rotate()
            .map_err(|e| TxnError::storage(format!("checkpoint: rotating log stream {i}: {e}")))?;
        starts.push(lsn);
    }
    let dirs = (0..parts)
        .map(|k| log.root.open(&part_dir(k)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TxnError::storage(format!("checkpoint: {e}")))?;
    let name = snapshot_name(id);
    let results: Vec<Result<(u64, u64), TxnError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = dirs
            .iter()
            .enumerate()
            .map(|(k, dir)| {
                let name = &name;
                scope.spawn(move || write_part(shared, &**dir, name, id, k, parts))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("checkpoint thread"))
            .collect()
    });
    let mut rows = 0;
    let mut bytes = 0;
    for r in results {
        let (r, b) = r?;
        rows += r;
        bytes += b;
    }
    let epoch = durable_wait(shared.epochs.global())?;
    let meta = Meta {
        epoch,
        parts: parts as u32,
        stream_starts: starts.clone(),
    };
    let meta_dir = log
        .root
        .open(META_DIR)
        .map_err(|e| TxnError::storage(format!("checkpoint: {e}")))?;
    let mut writer = SnapshotWriter::create_with(&*meta_dir, &name, id, WriterOptions::new())
        .map_err(|e| snap_error("meta", e))?;
    let value = meta.encode();
    writer
        .add(&SnapshotItem {
            key: &Meta::key(),
            value: &value,
            flags: 0,
            cas: 0,
            expires_at: None,
        })
        .map_err(|e| snap_error("meta", e))?;
    writer.finish().map_err(|e| snap_error("meta", e))?;
    // The checkpoint is complete: older ones and the log before it go.
    for dir in dirs.iter().chain(std::iter::once(&meta_dir)) {
        strata_snapshot::remove_older_than(&**dir, &name).map_err(|e| snap_error("cleanup", e))?;
    }
    for (i, stream) in log.streams.iter().enumerate() {
        stream
            .remove_segments_before(starts[i])
            .map_err(|e| TxnError::storage(format!("checkpoint: trimming log stream {i}: {e}")))?;
    }
    Ok(CheckpointReport {
        id,
        rows,
        bytes,
        epoch,
        stream_starts: starts,
        millis: started.elapsed().as_millis() as u64,
    })
}

/// Writes part `k`: the rows that hash to it. Returns rows and bytes.
fn write_part(
    shared: &Shared,
    dir: &dyn Directory,
    name: &str,
    id: u64,
    k: usize,
    parts: usize,
) -> Result<(u64, u64), TxnError> {
    let slot = shared.epochs.claim().ok_or_else(|| {
        TxnError::storage("checkpoint: no epoch slot free for a checkpoint thread")
    })?;
    let result = (|| {
        let options = WriterOptions::new().sync_every(Some(8 << 20));
        let mut writer = SnapshotWriter::create_with(dir, name, id, options)
            .map_err(|e| snap_error("part", e))?;
        let mut row = Vec::new();
        for table in &shared.tables {
            row.resize(table.schema.row_bytes, 0);
            // Keys, not records: a record is only held inside an epoch.
            let mut keys = Vec::new();
            shared.epochs.enter(slot);
            table.for_each(|rec| {
                if part_of(table.id, rec.head().key, parts) == k {
                    keys.push(rec.head().key);
                }
            });
            shared.epochs.exit(slot);
            // Iterating a hash index that grows meanwhile may visit a key
            // twice.
            keys.sort_unstable();
            keys.dedup();
            for chunk in keys.chunks(1024) {
                // A fresh epoch per chunk lets the global epoch advance.
                shared.epochs.enter(slot);
                for &key in chunk {
                    let Some(rec) = table.lookup(key) else {
                        continue;
                    };
                    let Some(tid) = read_locked(rec, &mut row) else {
                        continue;
                    };
                    let added = writer.add(&SnapshotItem {
                        key: &item_key(table.id, key),
                        value: &row,
                        flags: 0,
                        cas: tid,
                        expires_at: None,
                    });
                    if let Err(e) = added {
                        shared.epochs.exit(slot);
                        return Err(snap_error("part", e));
                    }
                }
                shared.epochs.exit(slot);
            }
        }
        let rows = writer.records();
        let info = writer.finish().map_err(|e| snap_error("part", e))?;
        Ok((rows, info.bytes))
    })();
    shared.epochs.exit(slot);
    shared.epochs.release(slot);
    result
}

/// Copies a present row and returns its TID; `None` if absent. Waits
/// for a write in flight (NO_WAIT's exclusive lock, Silo's lock bit).
pub(crate) fn read_locked(rec: RecPtr, out: &mut [u8]) -> Option<u64> {
    let head = rec.head();
    loop {
        let word = head.tid.load(Ordering::Acquire);
        if word & UNLINKED != 0 {
            return None;
        }
        let lock = head.lock.load(Ordering::Relaxed);
        if lock & EXCLUSIVE != 0
            || word & LOCK != 0
            || head
                .lock
                .compare_exchange_weak(lock, lock + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            std::thread::yield_now();
            continue;
        }
        let before = head.tid.load(Ordering::Acquire);
        rec.read_row(out);
        std::sync::atomic::fence(Ordering::Acquire);
        let after = head.tid.load(Ordering::Relaxed);
        head.lock.fetch_sub(1, Ordering::Release);
        if before != after || before & LOCK != 0 {
            continue;
        }
        if before & ABSENT != 0 {
            return None;
        }
        return Some(tid_of(before));
    }
}
