//! The initial population (clause 4.3.3): per warehouse its stock,
//! districts, customers with one history row each, 3000 orders per
//! district with their order lines, the last 900 of them new; and the
//! 100,000 items. Warehouses load in parallel, one thread each at most.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use strata_txn::{ConcurrencyControl, Database, Row, Transaction, TxnError};

use crate::random::{last_name, Constants, TpccRng};
use crate::schema::{c, d, h, i, keys, no, o, ol, st, w, Rows, Tables};
use crate::schema::{CUSTOMERS, DISTRICTS, FIRST_NEW_ORDER, ITEMS, ORDERS};

/// Seconds since the epoch, the "current date" of rows.
pub(crate) fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Loads `warehouses` warehouses on up to `threads` threads; returns the
/// constants the load used (a run derives its own from them).
pub fn load<C: ConcurrencyControl>(
    db: &Arc<Database<C>>,
    warehouses: u32,
    threads: usize,
    seed: u64,
) -> Result<Constants, TxnError> {
    let t = Tables::of(db)?;
    let mut seeder = rand::SeedableRng::seed_from_u64(seed);
    let constants = Constants::for_load(&mut seeder);
    let threads = threads.clamp(1, warehouses.max(1) as usize);
    let results: Vec<Result<(), TxnError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                let db = Arc::clone(db);
                scope.spawn(move || -> Result<(), TxnError> {
                    let mut worker = db.worker()?;
                    let mut rows = Rows::new(&db, &t)?;
                    let mut rng = TpccRng::new(seed ^ ((k as u64 + 1) * 0x9E37), constants);
                    // Items: a slice each.
                    let per = ITEMS.div_ceil(threads as u32);
                    let first = 1 + k as u32 * per;
                    let last = (first + per - 1).min(ITEMS);
                    for chunk in (first..=last).collect::<Vec<_>>().chunks(1000) {
                        worker.run(|txn| {
                            chunk
                                .iter()
                                .try_for_each(|&id| item(txn, &t, &mut rows, &mut rng, id))
                        })?;
                    }
                    for wid in (1..=warehouses).filter(|w| (w - 1) as usize % threads == k) {
                        load_warehouse(&mut worker, &t, &mut rows, &mut rng, wid)?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("loader thread"))
            .collect()
    });
    for r in results {
        r?;
    }
    db.settle_indexes();
    Ok(constants)
}

fn item<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    rows: &mut Rows,
    rng: &mut TpccRng,
    id: u32,
) -> Result<(), TxnError> {
    let r = &mut rows.i;
    r.clear();
    r.set_i32(i::ID, id as i32)?;
    r.set_i32(i::IM_ID, rng.uniform(1, 10_000) as i32)?;
    r.set_str(i::NAME, &rng.astring(14, 24))?;
    r.set_i64(i::PRICE, i64::from(rng.uniform(100, 10_000)))?;
    r.set_str(i::DATA, &rng.data())?;
    txn.insert(t.item, keys::item(id), r)
}

fn address(r: &mut Row, first: usize, rng: &mut TpccRng) -> Result<(), TxnError> {
    r.set_str(first, &rng.astring(10, 20))?;
    r.set_str(first + 1, &rng.astring(10, 20))?;
    r.set_str(first + 2, &rng.astring(10, 20))?;
    r.set_str(first + 3, &rng.astring(2, 2))?;
    r.set_str(first + 4, &rng.zip())
}

fn load_warehouse<C: ConcurrencyControl>(
    worker: &mut strata_txn::Worker<C>,
    t: &Tables,
    rows: &mut Rows,
    rng: &mut TpccRng,
    wid: u32,
) -> Result<(), TxnError> {
    worker.run(|txn| {
        let r = &mut rows.w;
        r.clear();
        r.set_i32(w::ID, wid as i32)?;
        r.set_str(w::NAME, &rng.astring(6, 10))?;
        address(r, w::STREET_1, rng)?;
        r.set_i32(w::TAX, rng.uniform(0, 2000) as i32)?;
        r.set_i64(w::YTD, 30_000_000)?;
        txn.insert(t.warehouse, keys::warehouse(wid), r)
    })?;
    let ids: Vec<u32> = (1..=ITEMS).collect();
    for chunk in ids.chunks(2000) {
        worker.run(|txn| {
            for &id in chunk {
                let r = &mut rows.st;
                r.clear();
                r.set_i32(st::I_ID, id as i32)?;
                r.set_i32(st::W_ID, wid as i32)?;
                r.set_i32(st::QUANTITY, rng.uniform(10, 100) as i32)?;
                for n in 0..10 {
                    r.set_str(st::DIST_01 + n, &rng.astring(24, 24))?;
                }
                r.set_str(st::DATA, &rng.data())?;
                txn.insert(t.stock, keys::stock(wid, id), r)?;
            }
            Ok(())
        })?;
    }
    let history_base = u64::from(wid) * u64::from(DISTRICTS * CUSTOMERS);
    for did in 1..=DISTRICTS {
        worker.run(|txn| {
            let r = &mut rows.d;
            r.clear();
            r.set_i32(d::ID, did as i32)?;
            r.set_i32(d::W_ID, wid as i32)?;
            r.set_str(d::NAME, &rng.astring(6, 10))?;
            address(r, d::STREET_1, rng)?;
            r.set_i32(d::TAX, rng.uniform(0, 2000) as i32)?;
            r.set_i64(d::YTD, 3_000_000)?;
            r.set_i32(d::NEXT_O_ID, ORDERS as i32 + 1)?;
            txn.insert(t.district, keys::district(wid, did), r)
        })?;
        for part in 0..3 {
            worker.run(|txn| {
                for cid in part * 1000 + 1..=part * 1000 + 1000 {
                    customer(txn, t, rows, rng, wid, did, cid)?;
                    let r = &mut rows.h;
                    r.clear();
                    r.set_i32(h::C_ID, cid as i32)?;
                    r.set_i32(h::C_D_ID, did as i32)?;
                    r.set_i32(h::C_W_ID, wid as i32)?;
                    r.set_i32(h::D_ID, did as i32)?;
                    r.set_i32(h::W_ID, wid as i32)?;
                    r.set_i64(h::DATE, now())?;
                    r.set_i64(h::AMOUNT, 1000)?;
                    r.set_str(h::DATA, &rng.astring(12, 24))?;
                    let n = history_base + u64::from((did - 1) * CUSTOMERS + cid);
                    txn.insert(t.history, keys::history(0, n), r)?;
                }
                Ok(())
            })?;
        }
        // Orders: a random permutation of the customers.
        let mut perm: Vec<u32> = (1..=CUSTOMERS).collect();
        for k in (1..perm.len()).rev() {
            let j = rng.uniform(0, k as u32) as usize;
            perm.swap(k, j);
        }
        for part in perm.chunks(300).enumerate() {
            let (n, customers) = part;
            worker.run(|txn| {
                for (k, &cid) in customers.iter().enumerate() {
                    let oid = (n * 300 + k) as u32 + 1;
                    order(txn, t, rows, rng, wid, did, oid, cid)?;
                }
                Ok(())
            })?;
        }
    }
    Ok(())
}

fn customer<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    rows: &mut Rows,
    rng: &mut TpccRng,
    wid: u32,
    did: u32,
    cid: u32,
) -> Result<(), TxnError> {
    let r = &mut rows.c;
    r.clear();
    r.set_i32(c::ID, cid as i32)?;
    r.set_i32(c::D_ID, did as i32)?;
    r.set_i32(c::W_ID, wid as i32)?;
    r.set_str(c::FIRST, &rng.astring(8, 16))?;
    r.set_str(c::MIDDLE, "OE")?;
    let last = if cid <= 1000 {
        last_name(cid - 1)
    } else {
        last_name(rng.nurand(255, 0, 999))
    };
    r.set_str(c::LAST, &last)?;
    address(r, c::STREET_1, rng)?;
    r.set_str(c::PHONE, &rng.nstring(16, 16))?;
    r.set_i64(c::SINCE, now())?;
    r.set_str(c::CREDIT, if rng.uniform(1, 10) == 1 { "BC" } else { "GC" })?;
    r.set_i64(c::CREDIT_LIM, 5_000_000)?;
    r.set_i32(c::DISCOUNT, rng.uniform(0, 5000) as i32)?;
    r.set_i64(c::BALANCE, -1000)?;
    r.set_i64(c::YTD_PAYMENT, 1000)?;
    r.set_i32(c::PAYMENT_CNT, 1)?;
    r.set_i32(c::DELIVERY_CNT, 0)?;
    r.set_str(c::DATA, &rng.astring(300, 500))?;
    txn.insert(t.customer, keys::customer(wid, did, cid), r)
}

#[allow(clippy::too_many_arguments)]
fn order<C: ConcurrencyControl>(
    txn: &mut Transaction<'_, C>,
    t: &Tables,
    rows: &mut Rows,
    rng: &mut TpccRng,
    wid: u32,
    did: u32,
    oid: u32,
    cid: u32,
) -> Result<(), TxnError> {
    let delivered = oid < FIRST_NEW_ORDER;
    let lines = rng.uniform(5, 15);
    let entry = now();
    let r = &mut rows.o;
    r.clear();
    r.set_i32(o::ID, oid as i32)?;
    r.set_i32(o::D_ID, did as i32)?;
    r.set_i32(o::W_ID, wid as i32)?;
    r.set_i32(o::C_ID, cid as i32)?;
    r.set_i64(o::ENTRY_D, entry)?;
    r.set_i32(
        o::CARRIER_ID,
        if delivered {
            rng.uniform(1, 10) as i32
        } else {
            0
        },
    )?;
    r.set_i32(o::OL_CNT, lines as i32)?;
    r.set_i32(o::ALL_LOCAL, 1)?;
    txn.insert(t.order, keys::order(wid, did, oid), r)?;
    for number in 1..=lines {
        let r = &mut rows.ol;
        r.clear();
        r.set_i32(ol::O_ID, oid as i32)?;
        r.set_i32(ol::D_ID, did as i32)?;
        r.set_i32(ol::W_ID, wid as i32)?;
        r.set_i32(ol::NUMBER, number as i32)?;
        r.set_i32(ol::I_ID, rng.uniform(1, ITEMS) as i32)?;
        r.set_i32(ol::SUPPLY_W_ID, wid as i32)?;
        r.set_i64(ol::DELIVERY_D, if delivered { entry } else { 0 })?;
        r.set_i32(ol::QUANTITY, 5)?;
        r.set_i64(
            ol::AMOUNT,
            if delivered {
                0
            } else {
                i64::from(rng.uniform(1, 999_999))
            },
        )?;
        r.set_str(ol::DIST_INFO, &rng.astring(24, 24))?;
        txn.insert(t.order_line, keys::order_line(wid, did, oid, number), r)?;
    }
    if !delivered {
        let r = &mut rows.no;
        r.clear();
        r.set_i32(no::O_ID, oid as i32)?;
        r.set_i32(no::D_ID, did as i32)?;
        r.set_i32(no::W_ID, wid as i32)?;
        txn.insert(t.new_order, keys::order(wid, did, oid), r)?;
    }
    Ok(())
}
