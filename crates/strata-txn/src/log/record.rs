//! Log record bodies.
//!
//! - `KIND_TXN`: `tid u64 | writes u32 | write*`, a write being
//!   `table u32 | op u8 | key u64 | mask u64 | len u32 | bytes`: for an
//!   insert the whole row (`mask` all columns), for an update the changed
//!   columns' bytes one after another in column order, for a delete
//!   nothing. Values, not operations: replaying a write sets what it names.
//! - `KIND_MARKER`: `epoch u64`: every transaction of this stream in that
//!   epoch or before is in the stream before the marker.
//!
//! Integers are little-endian. The command log's CRC covers each body.

use crate::error::TxnError;
use crate::storage::Table;
use crate::txn::access::{AccessSet, WriteKind};

/// A transaction's writes.
pub(crate) const KIND_TXN: u8 = 1;
/// An epoch marker.
pub(crate) const KIND_MARKER: u8 = 2;

/// A logged write's operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Insert = 1,
    Update = 2,
    Delete = 3,
}

/// Encodes the write set of a transaction committing at `tid` into `out`.
pub(crate) fn encode_txn(out: &mut Vec<u8>, tables: &[Table], set: &AccessSet, tid: u64) {
    out.clear();
    out.extend_from_slice(&tid.to_le_bytes());
    let count_at = out.len();
    out.extend_from_slice(&0u32.to_le_bytes());
    let mut count = 0u32;
    for write in &set.writes {
        let op = match write.kind {
            WriteKind::Bump => continue,
            WriteKind::Insert => Op::Insert,
            WriteKind::Update => Op::Update,
            WriteKind::Delete => Op::Delete,
        };
        count += 1;
        let rec = set.accesses[write.access as usize].rec;
        let head = rec.head();
        let t = &tables[head.table as usize];
        let data = &set.arena[write.data.clone()];
        out.extend_from_slice(&head.table.to_le_bytes());
        out.push(op as u8);
        out.extend_from_slice(&head.key.to_le_bytes());
        out.extend_from_slice(&write.mask.to_le_bytes());
        let len_at = out.len();
        out.extend_from_slice(&0u32.to_le_bytes());
        let start = out.len();
        match op {
            Op::Insert => out.extend_from_slice(data),
            Op::Update => {
                let mut bits = write.mask;
                while bits != 0 {
                    let col = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let c = &t.schema.columns[col];
                    out.extend_from_slice(&data[c.offset..c.offset + c.ty.size()]);
                }
            }
            Op::Delete => {}
        }
        let len = (out.len() - start) as u32;
        out[len_at..len_at + 4].copy_from_slice(&len.to_le_bytes());
    }
    out[count_at..count_at + 4].copy_from_slice(&count.to_le_bytes());
}

/// One decoded write, borrowing the body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoggedWrite<'a> {
    pub table: u32,
    pub op: Op,
    pub key: u64,
    pub mask: u64,
    pub bytes: &'a [u8],
}

/// Decodes a transaction body: its TID and writes. `what` names the
/// record in errors.
pub(crate) fn decode_txn<'a>(
    body: &'a [u8],
    what: &dyn Fn() -> String,
    mut each: impl FnMut(LoggedWrite<'a>) -> Result<(), TxnError>,
) -> Result<u64, TxnError> {
    let bad = |reason: &str| TxnError::storage(format!("{}: {reason}", what()));
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&'a [u8], TxnError> {
        let slice = body
            .get(at..at + n)
            .ok_or_else(|| bad("transaction record ends early"))?;
        at += n;
        Ok(slice)
    };
    let tid = u64::from_le_bytes(take(8)?.try_into().expect("8"));
    let count = u32::from_le_bytes(take(4)?.try_into().expect("4"));
    for _ in 0..count {
        let table = u32::from_le_bytes(take(4)?.try_into().expect("4"));
        let op = match take(1)?[0] {
            1 => Op::Insert,
            2 => Op::Update,
            3 => Op::Delete,
            _ => return Err(bad("unknown write operation")),
        };
        let key = u64::from_le_bytes(take(8)?.try_into().expect("8"));
        let mask = u64::from_le_bytes(take(8)?.try_into().expect("8"));
        let len = u32::from_le_bytes(take(4)?.try_into().expect("4")) as usize;
        let bytes = take(len)?;
        each(LoggedWrite {
            table,
            op,
            key,
            mask,
            bytes,
        })?;
    }
    Ok(tid)
}

/// Decodes a marker body.
pub(crate) fn decode_marker(body: &[u8], what: &dyn Fn() -> String) -> Result<u64, TxnError> {
    let bytes: [u8; 8] = body.try_into().map_err(|_| {
        TxnError::storage(format!(
            "{}: an epoch marker of {} bytes",
            what(),
            body.len()
        ))
    })?;
    Ok(u64::from_le_bytes(bytes))
}
