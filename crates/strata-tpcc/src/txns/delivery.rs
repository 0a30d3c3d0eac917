//! Delivery (clause 2.7), run at once rather than queued: for each
//! district, take the oldest undelivered order (delete its NEW_ORDER
//! row), set its carrier, date its lines, and credit their total to the
//! customer, counting the delivery. A district without new orders is
//! skipped.

use std::ops::Bound;

use strata_txn::{ConcurrencyControl, KeyValue, ScanOrder, Transaction, TxnError};

use crate::load::now;
use crate::schema::{c, keys, o, ol, Tables, DISTRICTS};
use crate::txns::order_status::order_lines;
use crate::txns::{missing, Buffers};

/// Runs one Delivery.
pub fn run<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    b: &mut Buffers,
    wid: u32,
    carrier: u32,
) -> Result<(), TxnError> {
    let date = now();
    for did in 1..=DISTRICTS {
        b.keys.clear();
        let prefix = [KeyValue::I32(wid as i32), KeyValue::I32(did as i32)];
        txn.scan(
            t.new_order_by_district,
            &prefix,
            Bound::Unbounded,
            Bound::Unbounded,
            ScanOrder::Ascending,
            1,
            &mut b.keys,
        )?;
        let Some(&nokey) = b.keys.first() else {
            continue;
        };
        let oid = (nokey & 0xFFFF_FFFF) as u32;
        txn.delete(t.new_order, nokey)?;
        let okey = keys::order(wid, did, oid);
        if !txn.read(t.order, okey, &mut b.rows.o)? {
            return Err(missing(txn, "order", okey));
        }
        let cid = b.rows.o.get_i32(o::C_ID)? as u32;
        b.rows.o.set_i32(o::CARRIER_ID, carrier as i32)?;
        txn.update(t.order, okey, &b.rows.o)?;
        order_lines(txn, t, b, wid, did, oid)?;
        let mut total = 0;
        for n in 0..b.more.len() {
            let key = b.more[n];
            if !txn.read(t.order_line, key, &mut b.rows.ol)? {
                return Err(missing(txn, "order_line", key));
            }
            total += b.rows.ol.get_i64(ol::AMOUNT)?;
            b.rows.ol.set_i64(ol::DELIVERY_D, date)?;
            txn.update(t.order_line, key, &b.rows.ol)?;
        }
        let ckey = keys::customer(wid, did, cid);
        if !txn.read(t.customer, ckey, &mut b.rows.c)? {
            return Err(missing(txn, "customer", ckey));
        }
        b.rows
            .c
            .set_i64(c::BALANCE, b.rows.c.get_i64(c::BALANCE)? + total)?;
        b.rows
            .c
            .set_i32(c::DELIVERY_CNT, b.rows.c.get_i32(c::DELIVERY_CNT)? + 1)?;
        txn.update(t.customer, ckey, &b.rows.c)?;
    }
    Ok(())
}
