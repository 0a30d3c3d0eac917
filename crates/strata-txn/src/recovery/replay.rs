//! Applying the logged writes: split by key over threads, each applying
//! its keys' writes in TID order.

use std::hash::Hasher;
use std::sync::atomic::Ordering;

use crate::error::TxnError;
use crate::log::record::{decode_txn, LoggedWrite, Op};
use crate::storage::table::KeyHasher;
use crate::storage::{RecPtr, Table};
use crate::tid::{tid_of, ABSENT};

/// Applies the writes of `txns` (sorted by TID); returns (applied, skipped).
pub(crate) fn apply(
    tables: &[Table],
    txns: &[(u64, usize, Vec<u8>)],
    place: &str,
) -> Result<(u64, u64), TxnError> {
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8);
    // Decode once, in TID order, into one list per thread.
    let mut lanes: Vec<Vec<(u64, LoggedWrite<'_>)>> = (0..threads).map(|_| Vec::new()).collect();
    for (tid, stream, body) in txns {
        let what = || format!("log stream {stream} at {place}, transaction {tid:#x}");
        decode_txn(body, &what, |w| {
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
            lanes[lane(w.table, w.key, threads)].push((*tid, w));
            Ok(())
        })?;
    }
    let results: Vec<Result<(u64, u64), TxnError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = lanes
            .iter()
            .map(|lane| scope.spawn(move || apply_lane(tables, lane)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("replay thread"))
            .collect()
    });
    let mut totals = (0, 0);
    for r in results {
        let (a, s) = r?;
        totals.0 += a;
        totals.1 += s;
    }
    Ok(totals)
}

fn lane(table: u32, key: u64, lanes: usize) -> usize {
    let mut h = KeyHasher::default();
    h.write_u64(key.rotate_left(17) ^ u64::from(table));
    (h.finish() % lanes as u64) as usize
}

fn apply_lane(tables: &[Table], writes: &[(u64, LoggedWrite<'_>)]) -> Result<(u64, u64), TxnError> {
    let (mut applied, mut skipped) = (0, 0);
    let mut row = Vec::new();
    for (tid, w) in writes {
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

/// Drops absent records and rebuilds every ordered index (a thread per
/// table); returns the largest TID present.
pub(crate) fn finish_tables(tables: &[Table]) -> u64 {
    let maxima: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = tables
            .iter()
            .map(|t| scope.spawn(move || finish_table(t)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("index thread"))
            .collect()
    });
    maxima.into_iter().max().unwrap_or(0)
}

fn finish_table(t: &Table) -> u64 {
    let mut absent = Vec::new();
    let mut max_tid = 0;
    let mut row = vec![0; t.schema.row_bytes];
    let mut key = Vec::new();
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
        for index in &t.ordered {
            // `add` keeps an existing entry: a record visited twice adds once.
            index.entry_key(&t.schema, &row, rec.head().key, &mut key);
            index.add(&key, rec);
        }
    });
    // An iteration may visit an entry twice: free each record once.
    absent.sort_unstable_by_key(|r| r.addr());
    absent.dedup();
    for rec in absent {
        t.unlink(rec);
        rec.free();
    }
    max_tid
}
