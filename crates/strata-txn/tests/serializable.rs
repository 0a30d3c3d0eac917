//! Serializability checked against a model, under each concurrency
//! control: random transactions over a small table run on several
//! threads; the committed history must have an acyclic serialization
//! graph (every committed read names the version it saw, every write the
//! version it made), no update may be lost, the bank-transfer invariant
//! must hold in every committed read-only audit, and scans must never see
//! a phantom (a partition's rows always match its counter row).

use std::collections::{HashMap, HashSet};
use std::ops::Bound;
use std::sync::{Arc, Barrier};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_txn::{
    ColumnType, ConcurrencyControl, Database, KeyValue, NoWait, Options, ScanOrder, Silo,
    TableSchema, TxnError,
};

const ACCOUNTS: u64 = 6;
const THREADS: usize = 3;
const TXNS: usize = 1000;
const INITIAL: i64 = 1000;

fn accounts() -> TableSchema {
    TableSchema::builder("acct")
        .column("id", ColumnType::I64)
        .column("balance", ColumnType::I64)
        .column("version", ColumnType::I64)
        .build()
        .unwrap()
}

/// One committed transaction: the versions it read and wrote.
#[derive(Debug, Default, Clone)]
struct Record {
    reads: Vec<(u64, i64)>,
    writes: Vec<(u64, i64)>,
}

fn bank<C: ConcurrencyControl>() {
    let db = Arc::new(
        Database::<C>::open(
            Options::default().with_epoch_interval(Some(std::time::Duration::from_millis(2))),
            vec![accounts()],
        )
        .unwrap(),
    );
    let t = db.table("acct").unwrap();
    let (c_id, c_bal, c_ver) = (0, 1, 2);
    {
        let mut w = db.worker().unwrap();
        let mut row = db.new_row(t).unwrap();
        w.run(|txn| {
            for k in 0..ACCOUNTS {
                row.clear();
                row.set_i64(c_id, k as i64)?;
                row.set_i64(c_bal, INITIAL)?;
                row.set_i64(c_ver, 0)?;
                txn.insert(t, k, &row)?;
            }
            Ok(())
        })
        .unwrap();
    }
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|thread| {
            let db = Arc::clone(&db);
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                let mut rng = SmallRng::seed_from_u64(thread as u64 * 7919 + 1);
                let mut worker = db.worker().unwrap();
                let mut row = db.new_row(t).unwrap();
                let mut history = Vec::new();
                let mut audits = 0;
                barrier.wait();
                for _ in 0..TXNS {
                    let audit = rng.gen_bool(0.2);
                    let a = rng.gen_range(0..ACCOUNTS);
                    let b = (a + rng.gen_range(1..ACCOUNTS)) % ACCOUNTS;
                    let amount = rng.gen_range(1..50);
                    let extra = rng.gen_range(0..ACCOUNTS);
                    // Widen the window between reads and writes now and then.
                    let pause = rng.gen_bool(0.05);
                    let (rec, _) = worker
                        .run(|txn| {
                            let mut rec = Record::default();
                            if audit {
                                let mut sum = 0;
                                for k in 0..ACCOUNTS {
                                    assert!(txn.read(t, k, &mut row)?);
                                    sum += row.get_i64(c_bal)?;
                                    rec.reads.push((k, row.get_i64(c_ver)?));
                                }
                                return Ok((rec, Some(sum)));
                            }
                            // A read of a third account widens the read set.
                            assert!(txn.read(t, extra, &mut row)?);
                            rec.reads.push((extra, row.get_i64(c_ver)?));
                            if pause {
                                std::thread::yield_now();
                            }
                            for (k, delta) in [(a, -amount), (b, amount)] {
                                assert!(txn.read(t, k, &mut row)?);
                                let version = row.get_i64(c_ver)?;
                                if k != extra {
                                    rec.reads.push((k, version));
                                }
                                row.set_i64(c_bal, row.get_i64(c_bal)? + delta)?;
                                row.set_i64(c_ver, version + 1)?;
                                txn.update(t, k, &row)?;
                                rec.writes.push((k, version + 1));
                            }
                            Ok((rec, None))
                        })
                        .unwrap();
                    let (rec, sum) = rec;
                    if let Some(sum) = sum {
                        assert_eq!(
                            sum,
                            INITIAL * ACCOUNTS as i64,
                            "an audit saw money appear or vanish"
                        );
                        audits += 1;
                    }
                    history.push(rec);
                }
                (history, audits, worker.stats())
            })
        })
        .collect();
    let mut history = Vec::new();
    let mut aborts = 0;
    for h in handles {
        let (mut part, _, stats) = h.join().unwrap();
        aborts += stats.total_aborts();
        history.append(&mut part);
    }
    check_serializable(&history);
    // The final state agrees with the history's last versions.
    let mut worker = db.worker().unwrap();
    let mut row = db.new_row(t).unwrap();
    let mut txn = worker.begin();
    let mut total = 0;
    for k in 0..ACCOUNTS {
        assert!(txn.read(t, k, &mut row).unwrap());
        total += row.get_i64(c_bal).unwrap();
        let writes = history
            .iter()
            .flat_map(|r| &r.writes)
            .filter(|(key, _)| *key == k)
            .count();
        assert_eq!(
            row.get_i64(c_ver).unwrap(),
            writes as i64,
            "account {k}: an update was lost"
        );
    }
    assert_eq!(total, INITIAL * ACCOUNTS as i64);
    eprintln!(
        "{}: {} committed, {aborts} aborted attempts",
        C::NAME,
        history.len()
    );
}

/// Builds the serialization graph (wr, ww and rw edges between committed
/// transactions, through versions) and fails on a cycle.
fn check_serializable(history: &[Record]) {
    let mut writer: HashMap<(u64, i64), usize> = HashMap::new();
    for (i, r) in history.iter().enumerate() {
        for &w in &r.writes {
            assert!(
                writer.insert(w, i).is_none(),
                "version {w:?} written twice: a lost update"
            );
        }
    }
    let mut edges: Vec<HashSet<usize>> = vec![HashSet::new(); history.len()];
    for (i, r) in history.iter().enumerate() {
        for &(k, v) in &r.reads {
            if let Some(&w) = writer.get(&(k, v)) {
                if w != i {
                    edges[w].insert(i); // wr
                }
            } else {
                assert_eq!(v, 0, "read of version {v} of {k} that nobody committed");
            }
            if let Some(&next) = writer.get(&(k, v + 1)) {
                if next != i {
                    edges[i].insert(next); // rw
                }
            }
        }
        for &(k, v) in &r.writes {
            if let Some(&next) = writer.get(&(k, v + 1)) {
                edges[i].insert(next); // ww
            }
        }
    }
    // Kahn's algorithm: every node must come out.
    let mut indegree = vec![0usize; history.len()];
    for out in &edges {
        for &j in out {
            indegree[j] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..history.len()).filter(|&i| indegree[i] == 0).collect();
    let mut done = 0;
    while let Some(i) = ready.pop() {
        done += 1;
        for &j in &edges[i] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(j);
            }
        }
    }
    assert_eq!(done, history.len(), "the serialization graph has a cycle");
}

#[test]
fn bank_transfers_are_serializable_under_no_wait() {
    bank::<NoWait>();
}

#[test]
fn bank_transfers_are_serializable_under_silo() {
    bank::<Silo>();
}

#[test]
fn the_checker_finds_a_write_skew() {
    // T0 and T1 both read x0 and y0; T0 writes x1, T1 writes y1: rw edges
    // both ways.
    let history = vec![
        Record {
            reads: vec![(0, 0), (1, 0)],
            writes: vec![(0, 1)],
        },
        Record {
            reads: vec![(0, 0), (1, 0)],
            writes: vec![(1, 1)],
        },
    ];
    let caught = std::panic::catch_unwind(|| check_serializable(&history));
    assert!(caught.is_err());
}

fn items() -> Vec<TableSchema> {
    vec![
        TableSchema::builder("item")
            .column("grp", ColumnType::I32)
            .column("id", ColumnType::I64)
            .index("by_group", &["grp", "id"], 1)
            .build()
            .unwrap(),
        TableSchema::builder("count")
            .column("n", ColumnType::I64)
            .build()
            .unwrap(),
    ]
}

const GROUPS: i32 = 2;

/// Inserts and deletes rows of a partition while keeping a count row in
/// step; scans must always see exactly the counted rows.
fn phantoms<C: ConcurrencyControl>() {
    let db = Arc::new(
        Database::<C>::open(
            Options::default().with_epoch_interval(Some(std::time::Duration::from_millis(2))),
            items(),
        )
        .unwrap(),
    );
    let item = db.table("item").unwrap();
    let count = db.table("count").unwrap();
    let by_group = db.index(item, "by_group").unwrap();
    {
        let mut w = db.worker().unwrap();
        let mut row = db.new_row(count).unwrap();
        w.run(|txn| {
            for g in 0..GROUPS {
                row.clear();
                txn.insert(count, g as u64, &row)?;
            }
            Ok(())
        })
        .unwrap();
    }
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|thread| {
            let db = Arc::clone(&db);
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                let mut rng = SmallRng::seed_from_u64(thread as u64 + 99);
                let mut worker = db.worker().unwrap();
                let mut item_row = db.new_row(item).unwrap();
                let mut count_row = db.new_row(count).unwrap();
                let mut keys = Vec::new();
                barrier.wait();
                for n in 0..TXNS {
                    let g = rng.gen_range(0..GROUPS);
                    let op = rng.gen_range(0..3);
                    let fresh = ((thread * TXNS + n) as u64) << 8 | g as u64;
                    let ((seen, counted), _) = worker
                        .run(|txn| {
                            keys.clear();
                            txn.scan(
                                by_group,
                                &[KeyValue::I32(g)],
                                Bound::Unbounded,
                                Bound::Unbounded,
                                ScanOrder::Ascending,
                                usize::MAX,
                                &mut keys,
                            )?;
                            assert!(txn.read(count, g as u64, &mut count_row)?);
                            let counted = count_row.get_i64(0)?;
                            let delta = match op {
                                0 => {
                                    item_row.clear();
                                    item_row.set_i32(0, g)?;
                                    item_row.set_i64(1, fresh as i64)?;
                                    txn.insert(item, fresh, &item_row)?;
                                    1
                                }
                                1 if !keys.is_empty() => {
                                    let victim = keys[rng.gen_range(0..keys.len())];
                                    txn.delete(item, victim)?;
                                    -1
                                }
                                _ => 0,
                            };
                            if delta != 0 {
                                count_row.set_i64(0, counted + delta)?;
                                txn.update(count, g as u64, &count_row)?;
                            }
                            Ok((keys.len() as i64, counted))
                        })
                        .unwrap();
                    assert_eq!(seen, counted, "a committed scan saw a phantom");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let mut worker = db.worker().unwrap();
    let mut row = db.new_row(count).unwrap();
    let mut txn = worker.begin();
    let mut total = 0;
    for g in 0..GROUPS {
        assert!(txn.read(count, g as u64, &mut row).unwrap());
        total += row.get_i64(0).unwrap();
    }
    assert_eq!(db.row_count(item).unwrap() as i64, total);
    assert_eq!(db.index_len(by_group).unwrap() as i64, total);
}

#[test]
fn scans_see_no_phantoms_under_no_wait() {
    phantoms::<NoWait>();
}

#[test]
fn scans_see_no_phantoms_under_silo() {
    phantoms::<Silo>();
}

#[test]
fn conflicts_are_typed_errors() {
    let db = Database::<NoWait>::open(
        Options::default().with_epoch_interval(None),
        vec![accounts()],
    )
    .unwrap();
    let t = db.table("acct").unwrap();
    let mut row = db.new_row(t).unwrap();
    let mut a = db.worker().unwrap();
    let mut b = db.worker().unwrap();
    a.run(|txn| txn.insert(t, 1, &row)).unwrap();
    let mut ta = a.begin();
    assert!(ta.read(t, 1, &mut row).unwrap());
    row.set_i64(1, 5).unwrap();
    ta.update(t, 1, &row).unwrap();
    let mut tb = b.begin();
    let err = tb.read(t, 1, &mut row).unwrap_err();
    assert!(matches!(
        err,
        TxnError::Conflict(strata_txn::AbortCause::LockConflict)
    ));
    drop(tb);
    ta.commit().unwrap();
    assert_eq!(b.stats().aborts_of(strata_txn::AbortCause::UserRollback), 1);
}

/// Regression (found by TPC-C's condition 3 under Silo): two inserts of
/// the same key, one aborting, must not leave a present row without its
/// index entry (the aborting one removed the entry both "added").
fn same_key_inserts<C: ConcurrencyControl>() {
    let db = Arc::new(
        Database::<C>::open(Options::default().with_epoch_interval(None), items()).unwrap(),
    );
    let item = db.table("item").unwrap();
    let by_group = db.index(item, "by_group").unwrap();
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|thread| {
            let db = Arc::clone(&db);
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || {
                let mut rng = SmallRng::seed_from_u64(thread as u64 + 5);
                let mut worker = db.worker().unwrap();
                let mut row = db.new_row(item).unwrap();
                barrier.wait();
                for _ in 0..TXNS {
                    let key = rng.gen_range(0..4u64);
                    let rollback = rng.gen_bool(0.5);
                    let delete = rng.gen_bool(0.3);
                    let outcome = worker.run(|txn| {
                        if delete {
                            return match txn.delete(item, key) {
                                Err(TxnError::NotFound { .. }) => Ok(()),
                                other => other,
                            };
                        }
                        row.clear();
                        row.set_i32(0, 0)?;
                        row.set_i64(1, key as i64)?;
                        match txn.insert(item, key, &row) {
                            Err(TxnError::DuplicateKey { .. }) => return Ok(()),
                            other => other?,
                        }
                        if rollback {
                            std::thread::yield_now();
                            return Err(TxnError::UserAbort);
                        }
                        Ok(())
                    });
                    assert!(
                        matches!(outcome, Ok(_) | Err(TxnError::UserAbort)),
                        "{outcome:?}"
                    );
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let rows = db.row_count(item).unwrap();
    assert_eq!(
        db.index_len(by_group).unwrap(),
        rows,
        "a present row lost its index entry"
    );
    let mut worker = db.worker().unwrap();
    let mut txn = worker.begin();
    let mut keys = Vec::new();
    txn.scan(
        by_group,
        &[KeyValue::I32(0)],
        Bound::Unbounded,
        Bound::Unbounded,
        ScanOrder::Ascending,
        100,
        &mut keys,
    )
    .unwrap();
    assert_eq!(keys.len(), rows);
}

#[test]
fn same_key_inserts_keep_index_entries_under_no_wait() {
    same_key_inserts::<NoWait>();
}

#[test]
fn same_key_inserts_keep_index_entries_under_silo() {
    same_key_inserts::<Silo>();
}
