//! TPC-C's consistency conditions 1 to 4 (clause 3.3.2), checked over
//! the whole database (run it when no transaction runs: after a
//! benchmark, after recovery).
//!
//! 1. `W_YTD` = the sum of its districts' `D_YTD`.
//! 2. `D_NEXT_O_ID - 1` = max(`O_ID`) = max(`NO_O_ID`) of the district.
//! 3. max(`NO_O_ID`) - min(`NO_O_ID`) + 1 = the district's NEW_ORDER rows.
//! 4. The sum of the district's `O_OL_CNT` = its ORDER_LINE rows.
//!
//! Under [`Mix::Dbx1000`] NewOrder takes order ids without inserting
//! orders (as DBx1000 does), so condition 2 cannot hold there and is
//! skipped; 1, 3 and 4 hold in both mixes.

use std::collections::BTreeMap;

use strata_txn::{ConcurrencyControl, Database, TxnError};

use crate::mix::Mix;
use crate::schema::{d, no, o, w, Tables};

/// What the check covered.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Consistency {
    /// Warehouses checked.
    pub warehouses: usize,
    /// Districts checked.
    pub districts: usize,
    /// Conditions checked (1 to 4; without 2 under the DBx1000 mix).
    pub conditions: Vec<u8>,
}

#[derive(Default)]
struct District {
    ytd: i64,
    next_o_id: i64,
    max_o_id: i64,
    no_min: i64,
    no_max: i64,
    no_count: i64,
    ol_cnt_sum: i64,
    ol_rows: i64,
}

/// Checks conditions 1-4 (see the module docs); the error lists the
/// first violations found.
pub fn check<C: ConcurrencyControl>(db: &Database<C>, mix: Mix) -> Result<Consistency, TxnError> {
    let t = Tables::of(db)?;
    let mut warehouses: BTreeMap<i64, i64> = BTreeMap::new();
    let mut districts: BTreeMap<(i64, i64), District> = BTreeMap::new();
    let mut failure = None;
    let mut fail = |e: TxnError| {
        failure.get_or_insert(e);
    };
    db.for_each_row(t.warehouse, |_, r| {
        match (r.get_i32(w::ID), r.get_i64(w::YTD)) {
            (Ok(id), Ok(ytd)) => {
                warehouses.insert(i64::from(id), ytd);
            }
            (Err(e), _) | (_, Err(e)) => fail(e),
        }
    })?;
    db.for_each_row(t.district, |_, r| {
        let got = (|| -> Result<(), TxnError> {
            let key = (i64::from(r.get_i32(d::W_ID)?), i64::from(r.get_i32(d::ID)?));
            let e = districts.entry(key).or_default();
            e.ytd = r.get_i64(d::YTD)?;
            e.next_o_id = i64::from(r.get_i32(d::NEXT_O_ID)?);
            e.no_min = i64::MAX;
            e.no_max = i64::MIN;
            Ok(())
        })();
        if let Err(e) = got {
            fail(e)
        }
    })?;
    let mut sums = |table,
                    f: &dyn Fn(&mut District, &strata_txn::Row) -> Result<(), TxnError>,
                    cols: (usize, usize)| {
        db.for_each_row(table, |_, r| {
            let got = (|| -> Result<(), TxnError> {
                let key = (i64::from(r.get_i32(cols.0)?), i64::from(r.get_i32(cols.1)?));
                match districts.get_mut(&key) {
                    Some(e) => f(e, r),
                    None => Err(TxnError::Storage(std::sync::Arc::from(format!(
                        "a row of {key:?}, a district that does not exist"
                    )))),
                }
            })();
            if let Err(e) = got {
                fail(e)
            }
        })
    };
    sums(
        t.order,
        &|e, r| {
            e.max_o_id = e.max_o_id.max(i64::from(r.get_i32(o::ID)?));
            e.ol_cnt_sum += i64::from(r.get_i32(o::OL_CNT)?);
            Ok(())
        },
        (o::W_ID, o::D_ID),
    )?;
    sums(
        t.new_order,
        &|e, r| {
            let id = i64::from(r.get_i32(no::O_ID)?);
            e.no_min = e.no_min.min(id);
            e.no_max = e.no_max.max(id);
            e.no_count += 1;
            Ok(())
        },
        (no::W_ID, no::D_ID),
    )?;
    sums(
        t.order_line,
        &|e, _| {
            e.ol_rows += 1;
            Ok(())
        },
        (crate::schema::ol::W_ID, crate::schema::ol::D_ID),
    )?;
    if let Some(e) = failure {
        return Err(e);
    }
    let mut violations = Vec::new();
    for (&wid, &ytd) in &warehouses {
        let sum: i64 = districts
            .range((wid, i64::MIN)..=(wid, i64::MAX))
            .map(|(_, e)| e.ytd)
            .sum();
        if sum != ytd {
            violations.push(format!(
                "condition 1: warehouse {wid} has W_YTD {ytd}, its districts {sum}"
            ));
        }
    }
    for (&(wid, did), e) in &districts {
        let at = format!("district {did} of warehouse {wid}");
        let cond2 = e.next_o_id - 1 == e.max_o_id && (e.no_count == 0 || e.no_max == e.max_o_id);
        if mix == Mix::Full && !cond2 {
            violations.push(format!(
                "condition 2: {at}: D_NEXT_O_ID - 1 = {}, max(O_ID) = {}, max(NO_O_ID) = {}",
                e.next_o_id - 1,
                e.max_o_id,
                e.no_max
            ));
        }
        if e.no_count > 0 && e.no_max - e.no_min + 1 != e.no_count {
            violations.push(format!(
                "condition 3: {at}: NO_O_ID from {} to {} but {} rows",
                e.no_min, e.no_max, e.no_count
            ));
        }
        if e.ol_cnt_sum != e.ol_rows {
            violations.push(format!(
                "condition 4: {at}: sum(O_OL_CNT) = {} but {} ORDER_LINE rows",
                e.ol_cnt_sum, e.ol_rows
            ));
        }
    }
    if !violations.is_empty() {
        violations.truncate(10);
        return Err(TxnError::Storage(std::sync::Arc::from(format!(
            "TPC-C consistency violated: {}",
            violations.join("; ")
        ))));
    }
    Ok(Consistency {
        warehouses: warehouses.len(),
        districts: districts.len(),
        conditions: if mix == Mix::Full {
            vec![1, 2, 3, 4]
        } else {
            vec![1, 3, 4]
        },
    })
}
