//! OrderStatus (clause 2.6): read a customer (by id or last name), its
//! newest order and that order's lines. Read-only.

use std::ops::Bound;

use strata_txn::{ConcurrencyControl, KeyValue, ScanOrder, Transaction, TxnError};

use crate::mix::CustomerBy;
use crate::schema::Tables;
use crate::txns::{find_customer, missing, Buffers};

/// Runs one OrderStatus.
pub fn run<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    b: &mut Buffers,
    wid: u32,
    did: u32,
    by: &CustomerBy,
) -> Result<(), TxnError> {
    let cid = find_customer(txn, t, b, wid, did, by)?;
    b.keys.clear();
    let prefix = [
        KeyValue::I32(wid as i32),
        KeyValue::I32(did as i32),
        KeyValue::I32(cid as i32),
    ];
    txn.scan(
        t.order_by_customer,
        &prefix,
        Bound::Unbounded,
        Bound::Unbounded,
        ScanOrder::Descending,
        1,
        &mut b.keys,
    )?;
    let Some(&okey) = b.keys.first() else {
        // A customer without orders (possible only after a crash in the
        // middle of the load, never in a loaded database).
        return Ok(());
    };
    if !txn.read(t.order, okey, &mut b.rows.o)? {
        return Err(missing(txn, "order", okey));
    }
    let oid = (okey & 0xFFFF_FFFF) as u32;
    order_lines(txn, t, b, wid, did, oid)?;
    for n in 0..b.more.len() {
        let key = b.more[n];
        if !txn.read(t.order_line, key, &mut b.rows.ol)? {
            return Err(missing(txn, "order_line", key));
        }
    }
    Ok(())
}

/// The keys of order `oid`'s lines, into `b.more`.
pub(crate) fn order_lines<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    b: &mut Buffers,
    wid: u32,
    did: u32,
    oid: u32,
) -> Result<(), TxnError> {
    b.more.clear();
    let prefix = [KeyValue::I32(wid as i32), KeyValue::I32(did as i32)];
    let order = [KeyValue::I32(oid as i32)];
    txn.scan(
        t.order_line_by_order,
        &prefix,
        Bound::Included(&order),
        Bound::Included(&order),
        ScanOrder::Ascending,
        usize::MAX,
        &mut b.more,
    )
}
