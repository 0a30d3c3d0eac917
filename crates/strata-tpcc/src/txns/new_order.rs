//! NewOrder (clause 2.4): read the warehouse, district (taking its next
//! order id) and customer; for each line read the item and update its
//! stock; in the full mix also insert the ORDER, NEW_ORDER and ORDER_LINE
//! rows, and roll back when an item id is unused (1%).

use strata_txn::{ConcurrencyControl, Transaction, TxnError};

use crate::load::now;
use crate::mix::{Mix, NewOrderInput};
use crate::schema::{c, d, i, keys, no, o, ol, st, w, Tables};
use crate::txns::{missing, Buffers, Output};

/// Runs one NewOrder.
pub fn run<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    b: &mut Buffers,
    mix: Mix,
    input: &NewOrderInput,
) -> Result<Output, TxnError> {
    let (wid, did, cid) = (input.w, input.d, input.c);
    if !txn.read(t.warehouse, keys::warehouse(wid), &mut b.rows.w)? {
        return Err(missing(txn, "warehouse", keys::warehouse(wid)));
    }
    let w_tax = b.rows.w.get_i32(w::TAX)?;
    if !txn.read(t.customer, keys::customer(wid, did, cid), &mut b.rows.c)? {
        return Err(missing(txn, "customer", keys::customer(wid, did, cid)));
    }
    let discount = b.rows.c.get_i32(c::DISCOUNT)?;
    if !txn.read(t.district, keys::district(wid, did), &mut b.rows.d)? {
        return Err(missing(txn, "district", keys::district(wid, did)));
    }
    let d_tax = b.rows.d.get_i32(d::TAX)?;
    let oid = b.rows.d.get_i32(d::NEXT_O_ID)? as u32;
    b.rows.d.set_i32(d::NEXT_O_ID, oid as i32 + 1)?;
    txn.update(t.district, keys::district(wid, did), &b.rows.d)?;
    let inserts = mix == Mix::Full;
    if inserts {
        let all_local = input.lines.iter().all(|l| l.1 == wid);
        let r = &mut b.rows.o;
        r.clear();
        r.set_i32(o::ID, oid as i32)?;
        r.set_i32(o::D_ID, did as i32)?;
        r.set_i32(o::W_ID, wid as i32)?;
        r.set_i32(o::C_ID, cid as i32)?;
        r.set_i64(o::ENTRY_D, now())?;
        r.set_i32(o::CARRIER_ID, 0)?;
        r.set_i32(o::OL_CNT, input.lines.len() as i32)?;
        r.set_i32(o::ALL_LOCAL, i32::from(all_local))?;
        txn.insert(t.order, keys::order(wid, did, oid), r)?;
        let r = &mut b.rows.no;
        r.clear();
        r.set_i32(no::O_ID, oid as i32)?;
        r.set_i32(no::D_ID, did as i32)?;
        r.set_i32(no::W_ID, wid as i32)?;
        txn.insert(t.new_order, keys::order(wid, did, oid), r)?;
    }
    let mut total = 0i64;
    for (n, &(item, supply, quantity)) in input.lines.iter().enumerate() {
        if !txn.read(t.item, keys::item(item), &mut b.rows.i)? {
            // The 1% with an unused item: roll back (clause 2.4.2.3).
            if input.rollback {
                return Err(TxnError::UserAbort);
            }
            return Err(missing(txn, "item", keys::item(item)));
        }
        let price = b.rows.i.get_i64(i::PRICE)?;
        let skey = keys::stock(supply, item);
        if !txn.read(t.stock, skey, &mut b.rows.st)? {
            return Err(missing(txn, "stock", skey));
        }
        let s = &mut b.rows.st;
        let have = s.get_i32(st::QUANTITY)? as u32;
        let left = if have >= quantity + 10 {
            have - quantity
        } else {
            have + 91 - quantity
        };
        s.set_i32(st::QUANTITY, left as i32)?;
        s.set_i64(st::YTD, s.get_i64(st::YTD)? + i64::from(quantity))?;
        s.set_i32(st::ORDER_CNT, s.get_i32(st::ORDER_CNT)? + 1)?;
        if supply != wid {
            s.set_i32(st::REMOTE_CNT, s.get_i32(st::REMOTE_CNT)? + 1)?;
        }
        txn.update(t.stock, skey, s)?;
        let amount = i64::from(quantity) * price;
        total += amount;
        if inserts {
            let dist = st::DIST_01 + did as usize - 1;
            let info = b.rows.st.get_bytes(dist)?.to_vec();
            let r = &mut b.rows.ol;
            r.clear();
            r.set_i32(ol::O_ID, oid as i32)?;
            r.set_i32(ol::D_ID, did as i32)?;
            r.set_i32(ol::W_ID, wid as i32)?;
            r.set_i32(ol::NUMBER, n as i32 + 1)?;
            r.set_i32(ol::I_ID, item as i32)?;
            r.set_i32(ol::SUPPLY_W_ID, supply as i32)?;
            r.set_i64(ol::DELIVERY_D, 0)?;
            r.set_i32(ol::QUANTITY, quantity as i32)?;
            r.set_i64(ol::AMOUNT, amount)?;
            r.set_bytes(ol::DIST_INFO, &info)?;
            txn.insert(
                t.order_line,
                keys::order_line(wid, did, oid, n as u32 + 1),
                r,
            )?;
        }
    }
    // The total the terminal shows (clause 2.4.3.3) is computed from
    // these; the run keeps only what a crash test can look for.
    let _ = (total, discount, w_tax, d_tax);
    Ok(Output::Order(keys::order(wid, did, oid)))
}
