//! An update of a row the transaction read takes the read row as the
//! current one (no second read). These tests pin down what that must keep:
//! the committed row is the read row plus the changed columns; a writer
//! that commits between the read and the commit is caught (Silo's
//! validation, NO_WAIT's shared lock); and a row read by another
//! transaction (another worker, or an earlier attempt) is never taken as
//! current, so nothing another writer committed meanwhile is lost.

use std::sync::{Arc, Barrier};

use strata_txn::{
    AbortCause, ColumnType, ConcurrencyControl, Database, NoWait, Options, Silo, TableId,
    TableSchema, TxnError,
};

const ID: usize = 0;
const BALANCE: usize = 1;
const VERSION: usize = 2;

fn accounts() -> TableSchema {
    TableSchema::builder("acct")
        .column("id", ColumnType::I64)
        .column("balance", ColumnType::I64)
        .column("version", ColumnType::I64)
        .build()
        .unwrap()
}

/// A database with row 1 = (1, 100, 3), and its table.
fn open<C: ConcurrencyControl>() -> (Database<C>, TableId) {
    let db = Database::<C>::open(
        Options::default().with_epoch_interval(None),
        vec![accounts()],
    )
    .unwrap();
    let t = db.table("acct").unwrap();
    let mut row = db.new_row(t).unwrap();
    row.set_i64(ID, 1).unwrap();
    row.set_i64(BALANCE, 100).unwrap();
    row.set_i64(VERSION, 3).unwrap();
    db.worker()
        .unwrap()
        .run(|txn| txn.insert(t, 1, &row))
        .unwrap();
    (db, t)
}

/// Row 1's (balance, version), read in a transaction of its own.
fn current<C: ConcurrencyControl>(db: &Database<C>, t: TableId) -> (i64, i64) {
    let mut row = db.new_row(t).unwrap();
    let mut w = db.worker().unwrap();
    let (values, _) = w
        .run(|txn| {
            assert!(txn.read(t, 1, &mut row)?);
            assert_eq!(row.get_i64(ID)?, 1, "the id column is untouched");
            Ok((row.get_i64(BALANCE)?, row.get_i64(VERSION)?))
        })
        .unwrap();
    values
}

fn update_after_read_commits_the_read_row_plus_the_change<C: ConcurrencyControl>() {
    let (db, t) = open::<C>();
    let mut row = db.new_row(t).unwrap();
    let mut w = db.worker().unwrap();
    let mut txn = w.begin();
    assert!(txn.read(t, 1, &mut row).unwrap());
    row.set_i64(BALANCE, 150).unwrap();
    txn.update(t, 1, &row).unwrap();
    // A second update of the same row goes to the buffered write.
    row.set_i64(VERSION, 4).unwrap();
    txn.update(t, 1, &row).unwrap();
    // The transaction reads its own write.
    let mut again = db.new_row(t).unwrap();
    assert!(txn.read(t, 1, &mut again).unwrap());
    assert_eq!(again.get_i64(BALANCE).unwrap(), 150);
    assert_eq!(again.get_i64(VERSION).unwrap(), 4);
    txn.commit().unwrap();
    assert_eq!(current(&db, t), (150, 4));
}

#[test]
fn update_after_read_commits_the_read_row_plus_the_change_no_wait() {
    update_after_read_commits_the_read_row_plus_the_change::<NoWait>();
}

#[test]
fn update_after_read_commits_the_read_row_plus_the_change_silo() {
    update_after_read_commits_the_read_row_plus_the_change::<Silo>();
}

#[test]
fn silo_catches_a_writer_between_the_read_and_the_commit() {
    let (db, t) = open::<Silo>();
    let mut row = db.new_row(t).unwrap();
    let mut other = db.new_row(t).unwrap();
    let mut a = db.worker().unwrap();
    let mut b = db.worker().unwrap();

    let mut ta = a.begin();
    assert!(ta.read(t, 1, &mut row).unwrap());
    assert_eq!(row.get_i64(BALANCE).unwrap(), 100);
    // Another worker changes the row and commits.
    b.run(|txn| {
        assert!(txn.read(t, 1, &mut other)?);
        other.set_i64(BALANCE, 7)?;
        other.set_i64(VERSION, 9)?;
        txn.update(t, 1, &other)
    })
    .unwrap();
    // The update takes the (now stale) read row; the commit must fail.
    row.set_i64(VERSION, 1).unwrap();
    ta.update(t, 1, &row).unwrap();
    let err = ta.commit().unwrap_err();
    assert!(
        matches!(err, TxnError::Conflict(AbortCause::Validation)),
        "{err:?}"
    );
    assert_eq!(a.stats().aborts_of(AbortCause::Validation), 1);
    assert_eq!(current(&db, t), (7, 9), "the other writer's change stays");

    // Retried, the read-modify-write sees the other writer's value.
    a.run(|txn| {
        assert!(txn.read(t, 1, &mut row)?);
        let balance = row.get_i64(BALANCE)?;
        row.set_i64(BALANCE, balance + 1)?;
        txn.update(t, 1, &row)
    })
    .unwrap();
    assert_eq!(current(&db, t), (8, 9));
}

#[test]
fn no_wait_holds_the_read_lock_until_the_update() {
    let (db, t) = open::<NoWait>();
    let mut row = db.new_row(t).unwrap();
    let mut other = db.new_row(t).unwrap();
    let mut a = db.worker().unwrap();
    let mut b = db.worker().unwrap();

    // A writer cannot slip in between the read and the update.
    let mut ta = a.begin();
    assert!(ta.read(t, 1, &mut row).unwrap());
    {
        let mut tb = b.begin();
        other.set_i64(BALANCE, 7).unwrap();
        let err = tb.update(t, 1, &other).unwrap_err();
        assert!(matches!(err, TxnError::Conflict(AbortCause::LockConflict)));
    }
    row.set_i64(BALANCE, 101).unwrap();
    ta.update(t, 1, &row).unwrap();
    ta.commit().unwrap();
    assert_eq!(current(&db, t), (101, 3));

    // Two readers: neither may upgrade to write while the other holds it.
    let mut ta = a.begin();
    let mut tb = b.begin();
    assert!(ta.read(t, 1, &mut row).unwrap());
    assert!(tb.read(t, 1, &mut other).unwrap());
    row.set_i64(BALANCE, 0).unwrap();
    let err = ta.update(t, 1, &row).unwrap_err();
    assert!(matches!(err, TxnError::Conflict(AbortCause::LockConflict)));
    drop(ta);
    other.set_i64(BALANCE, 102).unwrap();
    tb.update(t, 1, &other).unwrap();
    tb.commit().unwrap();
    assert_eq!(current(&db, t), (102, 3));
}

/// A row read by one worker's first transaction, then updated by another
/// worker's first transaction (the same serial and access index): the
/// update must read the record again, not install the stale row.
fn a_row_read_elsewhere_is_read_again<C: ConcurrencyControl>() {
    let (db, t) = open::<C>();
    let mut row = db.new_row(t).unwrap();
    let mut other = db.new_row(t).unwrap();
    let mut a = db.worker().unwrap();
    let mut b = db.worker().unwrap();
    let mut c = db.worker().unwrap();

    let mut ta = a.begin();
    assert!(ta.read(t, 1, &mut row).unwrap());
    ta.rollback();
    b.run(|txn| {
        assert!(txn.read(t, 1, &mut other)?);
        other.set_i64(BALANCE, 7)?;
        txn.update(t, 1, &other)
    })
    .unwrap();
    let mut tc = c.begin();
    // Columns on both sides of the balance change: the install writes
    // the words from the first changed column to the last.
    row.set_i64(ID, 1).unwrap();
    row.set_i64(VERSION, 5).unwrap();
    tc.update(t, 1, &row).unwrap();
    tc.commit().unwrap();
    assert_eq!(current(&db, t), (7, 5), "b's balance was not lost");

    // The same across attempts of one worker: a row read by an earlier
    // transaction is read again.
    let mut ta = a.begin();
    assert!(ta.read(t, 1, &mut row).unwrap());
    ta.commit().unwrap();
    b.run(|txn| {
        assert!(txn.read(t, 1, &mut other)?);
        other.set_i64(BALANCE, 8)?;
        txn.update(t, 1, &other)
    })
    .unwrap();
    let mut ta = a.begin();
    row.set_i64(ID, 1).unwrap();
    row.set_i64(VERSION, 6).unwrap();
    ta.update(t, 1, &row).unwrap();
    ta.commit().unwrap();
    assert_eq!(current(&db, t), (8, 6));
}

#[test]
fn a_row_read_elsewhere_is_read_again_no_wait() {
    a_row_read_elsewhere_is_read_again::<NoWait>();
}

#[test]
fn a_row_read_elsewhere_is_read_again_silo() {
    a_row_read_elsewhere_is_read_again::<Silo>();
}

/// Concurrent read-then-update increments of a few rows: no increment
/// may be lost.
fn concurrent_increments<C: ConcurrencyControl>() {
    const THREADS: usize = 3;
    const ROUNDS: i64 = 400;
    let (db, t) = open::<C>();
    let db = Arc::new(db);
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let db = Arc::clone(&db);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                let mut w = db.worker().unwrap();
                let mut row = db.new_row(t).unwrap();
                start.wait();
                for _ in 0..ROUNDS {
                    w.run(|txn| {
                        assert!(txn.read(t, 1, &mut row)?);
                        let balance = row.get_i64(BALANCE)?;
                        row.set_i64(BALANCE, balance + 1)?;
                        txn.update(t, 1, &row)
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(current(&*db, t), (100 + THREADS as i64 * ROUNDS, 3));
}

#[test]
fn concurrent_increments_lose_nothing_no_wait() {
    concurrent_increments::<NoWait>();
}

#[test]
fn concurrent_increments_lose_nothing_silo() {
    concurrent_increments::<Silo>();
}
