//! Payment (clause 2.5): add the amount to the warehouse's and district's
//! year-to-date totals, charge the customer (found by id or by last
//! name), and in the full mix prepend the payment to a bad-credit
//! customer's `c_data` and insert a HISTORY row.

use strata_txn::{ConcurrencyControl, Transaction, TxnError};

use crate::load::now;
use crate::mix::{Mix, PaymentInput};
use crate::schema::{c, d, h, keys, w, Tables};
use crate::txns::{find_customer, missing, Buffers, Output};

/// Runs one Payment.
pub fn run<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    b: &mut Buffers,
    mix: Mix,
    input: &PaymentInput,
) -> Result<Output, TxnError> {
    let (wid, did, amount) = (input.w, input.d, input.amount);
    if !txn.read(t.warehouse, keys::warehouse(wid), &mut b.rows.w)? {
        return Err(missing(txn, "warehouse", keys::warehouse(wid)));
    }
    b.rows
        .w
        .set_i64(w::YTD, b.rows.w.get_i64(w::YTD)? + amount)?;
    txn.update(t.warehouse, keys::warehouse(wid), &b.rows.w)?;
    if !txn.read(t.district, keys::district(wid, did), &mut b.rows.d)? {
        return Err(missing(txn, "district", keys::district(wid, did)));
    }
    b.rows
        .d
        .set_i64(d::YTD, b.rows.d.get_i64(d::YTD)? + amount)?;
    txn.update(t.district, keys::district(wid, did), &b.rows.d)?;
    let cid = find_customer(txn, t, b, input.c_w, input.c_d, &input.customer)?;
    let r = &mut b.rows.c;
    r.set_i64(c::BALANCE, r.get_i64(c::BALANCE)? - amount)?;
    r.set_i64(c::YTD_PAYMENT, r.get_i64(c::YTD_PAYMENT)? + amount)?;
    r.set_i32(c::PAYMENT_CNT, r.get_i32(c::PAYMENT_CNT)? + 1)?;
    let full = mix == Mix::Full;
    if full && r.get_bytes(c::CREDIT)? == b"BC" {
        let mut data =
            format!("{cid} {} {} {did} {wid} {amount}|", input.c_d, input.c_w).into_bytes();
        data.extend_from_slice(r.get_bytes(c::DATA)?);
        data.truncate(500);
        r.set_bytes(c::DATA, &data)?;
    }
    txn.update(t.customer, keys::customer(input.c_w, input.c_d, cid), r)?;
    if full {
        let mut data = b.rows.w.get_bytes(w::NAME)?.to_vec();
        data.extend_from_slice(b"    ");
        data.extend_from_slice(b.rows.d.get_bytes(d::NAME)?);
        let r = &mut b.rows.h;
        r.clear();
        r.set_i32(h::C_ID, cid as i32)?;
        r.set_i32(h::C_D_ID, input.c_d as i32)?;
        r.set_i32(h::C_W_ID, input.c_w as i32)?;
        r.set_i32(h::D_ID, did as i32)?;
        r.set_i32(h::W_ID, wid as i32)?;
        r.set_i64(h::DATE, now())?;
        r.set_i64(h::AMOUNT, amount)?;
        r.set_bytes(h::DATA, &data)?;
        let key = b.history_next;
        b.history_next += 256;
        txn.insert(t.history, key, r)?;
        return Ok(Output::History(key));
    }
    Ok(Output::None)
}
