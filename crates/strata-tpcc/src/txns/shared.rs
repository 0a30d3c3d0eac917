//! What the five transactions share: the per-worker row buffers
//! ([`Buffers`]), what a transaction returns ([`Output`]), finding a
//! customer by id or last name, and the error for a row that must exist.

use crate::mix::CustomerBy;
use crate::schema::{keys, Rows, Tables};
use std::ops::Bound;
use strata_txn::{ConcurrencyControl, Database, KeyValue, ScanOrder, Transaction, TxnError};

/// Reusable rows and key lists of one worker.
pub struct Buffers {
    /// A row of each table.
    pub(crate) rows: Rows,
    pub(crate) keys: Vec<u64>,
    pub(crate) more: Vec<u64>,
    pub(crate) items: Vec<u32>,
    /// The next HISTORY key this worker inserts: above the load's keys,
    /// the time in microseconds when the buffers were made shifted past
    /// the worker's 8 bits, stepped by 256. A worker never inserts more
    /// than one row a microsecond, so keys of a later run (after a crash)
    /// start above every key of an earlier one.
    pub(crate) history_next: u64,
}

impl Buffers {
    /// Buffers for `db`; `origin` tells this worker's HISTORY keys apart.
    pub fn new<C: ConcurrencyControl>(
        db: &Database<C>,
        t: &Tables,
        origin: u32,
    ) -> Result<Buffers, TxnError> {
        let micros = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64);
        Ok(Buffers {
            rows: Rows::new(db, t)?,
            keys: Vec::new(),
            more: Vec::new(),
            items: Vec::new(),
            history_next: 1 << 62 | micros << 8 | u64::from(origin & 0xFF),
        })
    }
}

/// What a committed transaction left that a crash test can look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// A NewOrder's ORDER row key (full mix) or its order id (DBx1000 mix,
    /// which inserts nothing).
    Order(u64),
    /// A Payment's HISTORY row key (full mix).
    History(u64),
    /// Nothing to look for.
    None,
}

/// Reads the customer into `b.rows.c` (by id, or the middle one of those with
/// the last name, ordered by first name: clause 2.5.2.2) and returns its
/// id.
pub(crate) fn find_customer<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    b: &mut Buffers,
    w: u32,
    d: u32,
    by: &CustomerBy,
) -> Result<u32, TxnError> {
    let id = match by {
        CustomerBy::Id(c) => *c,
        CustomerBy::Name(last) => {
            b.keys.clear();
            let name = [KeyValue::Str(last)];
            txn.scan(
                t.customer_by_name,
                &[KeyValue::I32(w as i32), KeyValue::I32(d as i32)],
                Bound::Included(&name),
                Bound::Included(&name),
                ScanOrder::Ascending,
                usize::MAX,
                &mut b.keys,
            )?;
            let Some(&key) = b.keys.get(b.keys.len().div_ceil(2).saturating_sub(1)) else {
                return Err(missing(txn, "customer", 0));
            };
            (key & 0xFFF) as u32
        }
    };
    if !txn.read(t.customer, keys::customer(w, d, id), &mut b.rows.c)? {
        return Err(missing(txn, "customer", keys::customer(w, d, id)));
    }
    Ok(id)
}

/// A row the population guarantees is missing: a conflict seen through
/// stale reads (checked), or a broken database.
pub(crate) fn missing<C: ConcurrencyControl>(
    txn: &Transaction<'_, C>,
    table: &str,
    key: u64,
) -> TxnError {
    match txn.check_reads() {
        Err(cause) => TxnError::Conflict(cause),
        Ok(()) => TxnError::NotFound {
            table: table.to_owned(),
            key,
        },
    }
}
