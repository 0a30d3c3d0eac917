//! StockLevel (clause 2.8): count the distinct items of the district's
//! last 20 orders whose stock is below a threshold. Read-only.

use std::ops::Bound;

use strata_txn::{ConcurrencyControl, KeyValue, ScanOrder, Transaction, TxnError};

use crate::schema::{d, keys, ol, st, Tables};
use crate::txns::{missing, Buffers};

/// Runs one StockLevel.
pub fn run<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    b: &mut Buffers,
    wid: u32,
    did: u32,
    threshold: u32,
) -> Result<(), TxnError> {
    if !txn.read(t.district, keys::district(wid, did), &mut b.rows.d)? {
        return Err(missing(txn, "district", keys::district(wid, did)));
    }
    let next = b.rows.d.get_i32(d::NEXT_O_ID)?;
    b.more.clear();
    let prefix = [KeyValue::I32(wid as i32), KeyValue::I32(did as i32)];
    let (lo, hi) = ([KeyValue::I32(next - 20)], [KeyValue::I32(next)]);
    txn.scan(
        t.order_line_by_order,
        &prefix,
        Bound::Included(&lo),
        Bound::Excluded(&hi),
        ScanOrder::Ascending,
        usize::MAX,
        &mut b.more,
    )?;
    b.items.clear();
    for n in 0..b.more.len() {
        let key = b.more[n];
        if !txn.read(t.order_line, key, &mut b.rows.ol)? {
            return Err(missing(txn, "order_line", key));
        }
        b.items.push(b.rows.ol.get_i32(ol::I_ID)? as u32);
    }
    b.items.sort_unstable();
    b.items.dedup();
    let mut low = 0;
    for n in 0..b.items.len() {
        let skey = keys::stock(wid, b.items[n]);
        if !txn.read(t.stock, skey, &mut b.rows.st)? {
            return Err(missing(txn, "stock", skey));
        }
        if (b.rows.st.get_i32(st::QUANTITY)? as u32) < threshold {
            low += 1;
        }
    }
    let _ = low;
    Ok(())
}
