//! Applying the logged writes of every stream, in parallel twice over:
//! each stream's durable transactions are decoded on their own thread
//! into one list per lane (a lane owns a hash share of the keys); then
//! each lane, on its own thread, merges its lists from every stream in
//! TID order and applies them. The newest version of a record wins
//! because a key's writes are applied in TID order, whatever stream
//! logged them, and a write older than the row's TID is skipped (the
//! checkpoint is fuzzy); partial updates need that order, not just the
//! skip, since an older update may set columns a newer one does not.

use std::hash::Hasher;
use std::sync::atomic::Ordering;

use crate::error::TxnError;
use crate::log::record::{decode_txn, LoggedWrite, Op};
use crate::recovery::parallel;
use crate::recovery::streams::StreamRead;
use crate::storage::hasher::KeyHasher;
use crate::storage::{RecPtr, Table};
use crate::tid::{epoch_of, tid_of, ABSENT};

/// What a replay did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Replayed {
    pub txns: u64,
    pub dropped: u64,
    pub applied: u64,
    pub skipped: u64,
}

/// A decoded write: its transaction's TID, its stream, the write.
type Tagged<'a> = (u64, u32, LoggedWrite<'a>);

/// Applies the writes of every transaction of `streams` at or below the
/// `durable` epoch, on at most `threads` threads (one: the serial replay).
pub(crate) fn apply(
    tables: &[Table],
    streams: &[StreamRead],
    durable: u64,
    place: &str,
    threads: usize,
) -> Result<Replayed, TxnError> {
    let lanes = threads.max(1);
    let decoded = parallel::map(streams.len(), threads, |s| {
        decode_stream(tables, &streams[s], s, durable, lanes, place)
    });
    let mut totals = Replayed::default();
    let mut per_stream = Vec::with_capacity(decoded.len());
    for d in decoded {
        let (lists, txns, dropped) = d?;
        totals.txns += txns;
        totals.dropped += dropped;
        per_stream.push(lists);
    }
    let results = parallel::map(lanes, threads, |l| {
        let mut writes: Vec<Tagged<'_>> = per_stream
            .iter()
            .flat_map(|s| s[l].iter().copied())
            .collect();
        // Stable, and (TID, stream) is unique per transaction: the order
        // is the serial replay's whatever thread decoded what.
        writes.sort_by_key(|(tid, stream, _)| (*tid, *stream));
        apply_lane(tables, &writes)
    });
    for r in results {
        let (a, s) = r?;
        totals.applied += a;
        totals.skipped += s;
    }
    Ok(totals)
}

/// Decodes stream `s`'s durable transactions into one list per lane;
/// returns them with the transactions kept and dropped.
#[allow(clippy::type_complexity)]
fn decode_stream<'a>(
    tables: &[Table],
    stream: &'a StreamRead,
    s: usize,
    durable: u64,
    lanes: usize,
    place: &str,
) -> Result<(Vec<Vec<Tagged<'a>>>, u64, u64), TxnError> {
    let mut lists: Vec<Vec<Tagged<'a>>> = (0..lanes).map(|_| Vec::new()).collect();
    let (mut kept, mut dropped) = (0, 0);
    for (i, &(tid, _)) in stream.txns.iter().enumerate() {
        if epoch_of(tid) > durable {
            // Never acknowledged: later than some stream's last marker.
            dropped += 1;
            continue;
        }
        kept += 1;
        let what = || format!("log stream {s} at {place}, transaction {tid:#x}");
        decode_txn(stream.body(i), &what, |w| {
            let t = tables.get(w.table as usize).ok_or_else(|| {
                TxnError::storage(format!("{}: table #{} does not exist", what(), w.table))
            })?;
            if w.op == Op::Insert && w.bytes.len() != t.schema.row_bytes {
                return Err(TxnError::storage(format!(
                    "{}: an inserted row of {} bytes",
                    what(),
                    w.bytes.len()
                )));
            }
            lists[lane(w.table, w.key, lanes)].push((tid, s as u32, w));
            Ok(())
        })?;
    }
    Ok((lists, kept, dropped))
}

fn lane(table: u32, key: u64, lanes: usize) -> usize {
    let mut h = KeyHasher::default();
    h.write_u64(key.rotate_left(17) ^ u64::from(table));
    (h.finish() % lanes as u64) as usize
}

fn apply_lane(tables: &[Table], writes: &[Tagged<'_>]) -> Result<(u64, u64), TxnError> {
    let (mut applied, mut skipped) = (0, 0);
    let mut row = Vec::new();
    for (tid, _, w) in writes {
        let t = &tables[w.table as usize];
        let rec = match t.lookup(w.key) {
            Some(rec) => rec,
            None if w.op == Op::Insert => {
                let rec = RecPtr::alloc(t.id, w.key, t.width, ABSENT, 0);
                t.publish(rec).expect("one thread owns this key");
                rec
            }
            None => {
                skipped += 1;
                continue;
            }
        };
        let word = rec.tid().load(Ordering::Relaxed);
        if tid_of(word) >= *tid {
            skipped += 1;
            continue;
        }
        match w.op {
            Op::Insert => {
                rec.write_row(w.bytes);
                rec.tid().store(*tid, Ordering::Relaxed);
            }
            Op::Update => {
                if word & ABSENT != 0 {
                    skipped += 1;
                    continue;
                }
                row.resize(t.schema.row_bytes, 0);
                rec.read_row(&mut row);
                let mut at = 0;
                let mut bits = w.mask;
                while bits != 0 {
                    let col = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let Some(c) = t.schema.columns.get(col) else {
                        return Err(TxnError::storage(format!(
                            "an update of column #{col} of {:?}",
                            t.schema.name
                        )));
                    };
                    let size = c.ty.size();
                    let Some(src) = w.bytes.get(at..at + size) else {
                        return Err(TxnError::storage(format!(
                            "a short update of {:?}",
                            t.schema.name
                        )));
                    };
                    row[c.offset..c.offset + size].copy_from_slice(src);
                    at += size;
                }
                rec.write_row(&row);
                rec.tid().store(*tid, Ordering::Relaxed);
            }
            Op::Delete => rec.tid().store(*tid | ABSENT, Ordering::Relaxed),
        }
        applied += 1;
    }
    Ok((applied, skipped))
}

/// Drops absent records and rebuilds every ordered index (a table per
/// thread, at most `threads`); returns the largest TID present.
pub(crate) fn finish_tables(tables: &[Table], threads: usize) -> u64 {
    parallel::map(tables.len(), threads, |i| finish_table(&tables[i]))
        .into_iter()
        .max()
        .unwrap_or(0)
}

fn finish_table(t: &Table) -> u64 {
    let mut absent = Vec::new();
    let mut max_tid = 0;
    let mut row = vec![0; t.schema.row_bytes];
    let mut key = Vec::new();
    // Each ordered index's entries are gathered, sorted and inserted in
    // key order: a skip list takes ascending inserts along a path already
    // in cache, where the primary table's hash order made every insert a
    // search through cold nodes (measured after an 8 s TPC-C run: 15-18 s,
    // 2-3x the replay; about 3 s sorted).
    let mut entries: Vec<Vec<(Box<[u8]>, RecPtr)>> = vec![Vec::new(); t.ordered.len()];
    t.for_each(|rec| {
        let word = rec.tid().load(Ordering::Relaxed);
        max_tid = max_tid.max(tid_of(word));
        if word & ABSENT != 0 {
            absent.push(rec);
            return;
        }
        if t.ordered.is_empty() {
            return;
        }
        rec.read_row(&mut row);
        for (index, out) in t.ordered.iter().zip(&mut entries) {
            index.entry_key(&t.schema, &row, rec.head().key, &mut key);
            out.push((key.as_slice().into(), rec));
        }
    });
    for (index, mut sorted) in t.ordered.iter().zip(entries) {
        sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        // A record visited twice has two equal entries: `add_owned` keeps
        // the first.
        for (key, rec) in sorted {
            index.add_owned(key, rec);
        }
    }
    // An iteration may visit an entry twice: free each record once.
    absent.sort_unstable_by_key(|r| r.addr());
    absent.dedup();
    for rec in absent {
        t.unlink(rec);
        rec.free();
    }
    max_tid
}
