//! Bad input to the embedding API returns typed errors, never a panic.

use std::ops::Bound;

use strata_txn::{
    ColumnType, Database, KeyValue, NoWait, Options, ScanOrder, Silo, TableSchema, TxnError,
};

fn tables() -> Vec<TableSchema> {
    vec![
        TableSchema::builder("users")
            .column("id", ColumnType::I64)
            .column("name", ColumnType::Str { max_len: 8 })
            .column("score", ColumnType::F64)
            .index("by_name", &["name", "id"], 0)
            .build()
            .unwrap(),
        TableSchema::builder("other")
            .column("x", ColumnType::I32)
            .build()
            .unwrap(),
    ]
}

#[test]
fn unknown_names_and_foreign_ids() {
    let db =
        Database::<Silo>::open(Options::default().with_epoch_interval(None), tables()).unwrap();
    assert!(matches!(db.table("nope"), Err(TxnError::UnknownTable(_))));
    let users = db.table("users").unwrap();
    assert!(matches!(
        db.index(users, "nope"),
        Err(TxnError::UnknownIndex { .. })
    ));
    // An id from a database with more tables.
    let small = Database::<Silo>::open(
        Options::default().with_epoch_interval(None),
        tables()[..1].to_vec(),
    )
    .unwrap();
    let other = db.table("other").unwrap();
    assert!(matches!(
        small.new_row(other),
        Err(TxnError::UnknownTable(_))
    ));
    let mut row = small.new_row(small.table("users").unwrap()).unwrap();
    let mut w = small.worker().unwrap();
    let mut txn = w.begin();
    assert!(matches!(
        txn.read(other, 1, &mut row),
        Err(TxnError::UnknownTable(_))
    ));
    assert!(matches!(
        txn.delete(other, 1),
        Err(TxnError::UnknownTable(_))
    ));
}

#[test]
fn wrong_types_long_values_and_foreign_rows() {
    let db =
        Database::<NoWait>::open(Options::default().with_epoch_interval(None), tables()).unwrap();
    let users = db.table("users").unwrap();
    let other = db.table("other").unwrap();
    let mut row = db.new_row(users).unwrap();
    assert!(matches!(
        row.set_i32(0, 1),
        Err(TxnError::TypeMismatch { .. })
    ));
    assert!(matches!(row.get_str(0), Err(TxnError::TypeMismatch { .. })));
    assert!(matches!(
        row.set_str(1, "far too long"),
        Err(TxnError::ValueTooLong { .. })
    ));
    assert!(matches!(
        row.set_f64(99, 1.0),
        Err(TxnError::UnknownColumn { .. })
    ));
    let mut w = db.worker().unwrap();
    let mut txn = w.begin();
    let err = txn.insert(other, 1, &row).unwrap_err();
    assert!(matches!(err, TxnError::RowMismatch { .. }), "{err}");
    let mut other_row = db.new_row(other).unwrap();
    assert!(matches!(
        txn.read(users, 1, &mut other_row),
        Err(TxnError::RowMismatch { .. })
    ));
}

#[test]
fn missing_and_duplicate_keys_and_indexed_updates() {
    let db =
        Database::<Silo>::open(Options::default().with_epoch_interval(None), tables()).unwrap();
    let users = db.table("users").unwrap();
    let mut row = db.new_row(users).unwrap();
    let mut w = db.worker().unwrap();
    row.set_i64(0, 1).unwrap();
    row.set_str(1, "ada").unwrap();
    w.run(|txn| txn.insert(users, 1, &row)).unwrap();
    let err = w.run(|txn| txn.insert(users, 1, &row)).unwrap_err();
    assert!(matches!(err, TxnError::DuplicateKey { key: 1, .. }));
    let err = w.run(|txn| txn.delete(users, 2)).unwrap_err();
    assert!(matches!(err, TxnError::NotFound { key: 2, .. }));
    row.clear();
    row.set_f64(2, 1.5).unwrap();
    let err = w.run(|txn| txn.update(users, 7, &row)).unwrap_err();
    assert!(matches!(err, TxnError::NotFound { key: 7, .. }));
    row.set_str(1, "bob").unwrap();
    let err = w.run(|txn| txn.update(users, 1, &row)).unwrap_err();
    assert!(
        matches!(err, TxnError::IndexedColumnChanged { .. }),
        "{err}"
    );
    // Every failed attempt was rolled back and counted; nothing changed.
    assert_eq!(w.stats().commits, 1);
    let mut txn = w.begin();
    assert!(txn.read(users, 1, &mut row).unwrap());
    assert_eq!(row.get_str(1).unwrap(), "ada");
    assert_eq!(row.get_f64(2).unwrap(), 0.0);
    assert!(!txn.read(users, 7, &mut row).unwrap());
}

#[test]
fn bad_scans() {
    let db =
        Database::<Silo>::open(Options::default().with_epoch_interval(None), tables()).unwrap();
    let users = db.table("users").unwrap();
    let by_name = db.index(users, "by_name").unwrap();
    let mut w = db.worker().unwrap();
    let mut txn = w.begin();
    let mut out = Vec::new();
    let asc = ScanOrder::Ascending;
    let err = txn
        .scan(
            by_name,
            &[KeyValue::I64(1)],
            Bound::Unbounded,
            Bound::Unbounded,
            asc,
            10,
            &mut out,
        )
        .unwrap_err();
    assert!(matches!(err, TxnError::BadScan { .. }), "{err}");
    let err = txn
        .scan(
            by_name,
            &[],
            Bound::Included(&[KeyValue::I64(1)]),
            Bound::Unbounded,
            asc,
            10,
            &mut out,
        )
        .unwrap_err();
    assert!(matches!(err, TxnError::TypeMismatch { .. }), "{err}");
    let three = [KeyValue::Str("a"), KeyValue::I64(1), KeyValue::I64(2)];
    let err = txn
        .scan(
            by_name,
            &[],
            Bound::Included(&three),
            Bound::Unbounded,
            asc,
            10,
            &mut out,
        )
        .unwrap_err();
    assert!(matches!(err, TxnError::BadScan { .. }), "{err}");
    txn.scan(
        by_name,
        &[],
        Bound::Included(&[KeyValue::Str("a")]),
        Bound::Unbounded,
        asc,
        10,
        &mut out,
    )
    .unwrap();
    assert!(out.is_empty());
}

#[test]
fn bad_definitions_and_worker_limits() {
    let dup = vec![tables()[0].clone(), tables()[0].clone()];
    assert!(matches!(
        Database::<Silo>::open(Options::default(), dup),
        Err(TxnError::Schema { .. })
    ));
    let db = Database::<Silo>::open(
        Options::default()
            .with_max_workers(1)
            .with_epoch_interval(None),
        tables(),
    )
    .unwrap();
    let first = db.worker().unwrap();
    assert!(matches!(db.worker(), Err(TxnError::TooManyWorkers(1))));
    drop(first);
    db.worker().unwrap();
}

#[test]
fn scans_see_own_inserts_and_deletes_in_order() {
    let db =
        Database::<NoWait>::open(Options::default().with_epoch_interval(None), tables()).unwrap();
    let users = db.table("users").unwrap();
    let by_name = db.index(users, "by_name").unwrap();
    let mut row = db.new_row(users).unwrap();
    let mut w = db.worker().unwrap();
    let mut out = Vec::new();
    w.run(|txn| {
        for (id, name) in [(1, "cy"), (2, "ab"), (3, "b\0z"), (4, "b")] {
            row.clear();
            row.set_i64(0, id)?;
            row.set_str(1, name)?;
            txn.insert(users, id as u64, &row)?;
        }
        txn.delete(users, 1)?;
        out.clear();
        txn.scan(
            by_name,
            &[],
            Bound::Unbounded,
            Bound::Unbounded,
            ScanOrder::Ascending,
            10,
            &mut out,
        )?;
        Ok(())
    })
    .unwrap();
    assert_eq!(out, vec![2, 4, 3]);
    let mut txn = w.begin();
    out.clear();
    let b = [KeyValue::Str("b")];
    txn.scan(
        by_name,
        &[],
        Bound::Included(&b),
        Bound::Included(&b),
        ScanOrder::Descending,
        10,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, vec![4]);
    out.clear();
    txn.scan(
        by_name,
        &[],
        Bound::Excluded(&[KeyValue::Str("ab")]),
        Bound::Unbounded,
        ScanOrder::Ascending,
        1,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, vec![4]);
    drop(txn);
    assert_eq!(db.row_count(users).unwrap(), 3);
}
