//! Logging, checkpoints and recovery, and crash tests at the device
//! level: power cuts that keep only synced bytes (also torn), failing
//! devices (EIO on write or sync, ENOSPC), damage in the middle of a
//! stream, and each real device (file, ramdisk, pmem) across a reopen.
//!
//! The workload: bank transfers between a few accounts, each recording
//! itself in a journal row (its unique id, the amount) in the same
//! transaction, plus inserts and deletes of rows with an ordered index.
//! After recovery: every acknowledged commit (epoch at or below the
//! durable epoch seen before the cut) has its journal row; no journal row
//! belongs to an attempt that did not commit; the balances equal the
//! initial ones moved by exactly the recovered journal; the ordered index
//! matches the rows.

use std::collections::{BTreeMap, HashSet};
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_txn::log::{LogRoot, MemRoot};
use strata_txn::{
    ColumnType, Commit, ConcurrencyControl, Database, KeyValue, LogDevice, NoWait, Options,
    ScanOrder, Silo, TableSchema, TxnError,
};

const ACCOUNTS: u64 = 8;
const INITIAL: i64 = 1_000;

fn tables() -> Vec<TableSchema> {
    vec![
        TableSchema::builder("account")
            .column("balance", ColumnType::I64)
            .build()
            .unwrap(),
        TableSchema::builder("journal")
            .column("id", ColumnType::I64)
            .column("from", ColumnType::I64)
            .column("to", ColumnType::I64)
            .column("amount", ColumnType::I64)
            .column("note", ColumnType::Str { max_len: 40 })
            .column("undid", ColumnType::I64)
            .index("by_from", &["from", "id"], 1)
            .build()
            .unwrap(),
    ]
}

fn options(root: &MemRoot, epochs: Option<Duration>) -> Options {
    Options::default()
        .with_max_workers(4)
        .with_epoch_interval(epochs)
        .with_log(LogDevice::Root(Arc::new(root.clone())))
}

fn open<C: ConcurrencyControl>(
    root: &MemRoot,
    epochs: Option<Duration>,
) -> Result<Database<C>, TxnError> {
    Database::<C>::open(options(root, epochs), tables())
}

fn seed<C: ConcurrencyControl>(db: &Database<C>) {
    let account = db.table("account").unwrap();
    let mut row = db.new_row(account).unwrap();
    let mut w = db.worker().unwrap();
    let (_, commit) = w
        .run(|txn| {
            for k in 0..ACCOUNTS {
                row.clear();
                row.set_i64(0, INITIAL)?;
                txn.insert(account, k, &row)?;
            }
            Ok(())
        })
        .unwrap();
    db.sync_epochs();
    db.sync_epochs();
    db.wait_durable(&commit).unwrap();
}

/// One transfer with its journal row; every tenth also deletes the
/// journal row of an earlier transfer of the same account (keeping the
/// money moved: the balance invariant counts live journal rows only, so a
/// deleted row's transfer is reversed in the same transaction).
fn transfer<C: ConcurrencyControl>(
    db: &Database<C>,
    w: &mut strata_txn::Worker<C>,
    rng: &mut SmallRng,
    id: u64,
) -> Result<Commit, TxnError> {
    let account = db.table("account").unwrap();
    let journal = db.table("journal").unwrap();
    let by_from = db.index(journal, "by_from").unwrap();
    let mut a_row = db.new_row(account).unwrap();
    let mut j_row = db.new_row(journal).unwrap();
    let from = rng.gen_range(0..ACCOUNTS);
    let to = (from + rng.gen_range(1..ACCOUNTS)) % ACCOUNTS;
    let amount = rng.gen_range(1..20);
    let undo = id % 10 == 0;
    let mut keys = Vec::new();
    let (_, commit) = w.run(|txn| {
        move_money(txn, account, &mut a_row, from, to, amount)?;
        j_row.clear();
        j_row.set_i64(0, id as i64)?;
        j_row.set_i64(1, from as i64)?;
        j_row.set_i64(2, to as i64)?;
        j_row.set_i64(3, amount)?;
        j_row.set_str(4, &format!("transfer {id}"))?;
        txn.insert(journal, id, &j_row)?;
        if undo {
            keys.clear();
            let f = [KeyValue::I64(from as i64)];
            txn.scan(
                by_from,
                &f,
                Bound::Unbounded,
                Bound::Unbounded,
                ScanOrder::Ascending,
                4,
                &mut keys,
            )?;
            // Undoers are never undone, so every deletion is on record.
            if let Some(&old) = keys.iter().find(|&&k| k != id && k % 10 != 0) {
                assert!(txn.read(journal, old, &mut j_row)?);
                let (f, t, amt) = (
                    j_row.get_i64(1)? as u64,
                    j_row.get_i64(2)? as u64,
                    j_row.get_i64(3)?,
                );
                move_money(txn, account, &mut a_row, t, f, amt)?;
                txn.delete(journal, old)?;
                j_row.clear();
                assert!(txn.read(journal, id, &mut j_row)?);
                j_row.set_i64(5, old as i64)?;
                txn.update(journal, id, &j_row)?;
            }
        }
        Ok(())
    })?;
    Ok(commit)
}

fn move_money<C: ConcurrencyControl>(
    txn: &mut strata_txn::Transaction<'_, C>,
    account: strata_txn::TableId,
    row: &mut strata_txn::Row,
    from: u64,
    to: u64,
    amount: i64,
) -> Result<(), TxnError> {
    for (k, delta) in [(from, -amount), (to, amount)] {
        if !txn.read(account, k, row)? {
            return Err(TxnError::UserAbort);
        }
        let now = row.get_i64(0)?;
        row.set_i64(0, now + delta)?;
        txn.update(account, k, row)?;
    }
    Ok(())
}

/// Checks a recovered database: balances move by exactly the live
/// journal, the index matches, every id in `must` is present (or was
/// deleted by a later recovered transfer), no id outside `committed`.
fn check<C: ConcurrencyControl>(
    db: &Database<C>,
    committed: &HashSet<u64>,
    must: &HashSet<u64>,
    max_id: u64,
) {
    let account = db.table("account").unwrap();
    let journal = db.table("journal").unwrap();
    let by_from = db.index(journal, "by_from").unwrap();
    let mut w = db.worker().unwrap();
    let mut a_row = db.new_row(account).unwrap();
    let mut j_row = db.new_row(journal).unwrap();
    let mut txn = w.begin();
    let mut expected: BTreeMap<u64, i64> = (0..ACCOUNTS).map(|k| (k, INITIAL)).collect();
    let mut present = HashSet::new();
    let mut undone = HashSet::new();
    for id in 1..=max_id {
        if txn.read(journal, id, &mut j_row).unwrap() {
            assert!(
                committed.contains(&id),
                "journal row {id} of an attempt that never committed"
            );
            let (f, t, amt) = (
                j_row.get_i64(1).unwrap() as u64,
                j_row.get_i64(2).unwrap() as u64,
                j_row.get_i64(3).unwrap(),
            );
            assert_eq!(j_row.get_str(4).unwrap(), format!("transfer {id}"));
            *expected.get_mut(&f).unwrap() -= amt;
            *expected.get_mut(&t).unwrap() += amt;
            present.insert(id);
            let undid = j_row.get_i64(5).unwrap();
            if undid != 0 {
                assert!(undone.insert(undid as u64), "transfer {undid} undone twice");
            }
        }
    }
    for (k, want) in &expected {
        assert!(txn.read(account, *k, &mut a_row).unwrap());
        assert_eq!(
            a_row.get_i64(0).unwrap(),
            *want,
            "account {k}: money moved without its journal, or twice"
        );
    }
    // Acknowledged transfers are there unless a recovered transfer undid
    // them; undone ones are gone.
    for id in must {
        assert!(
            present.contains(id) || undone.contains(id),
            "acknowledged transfer {id} lost (recovery {:?})",
            db.recovery_report()
        );
    }
    for id in &undone {
        assert!(!present.contains(id), "transfer {id} undone but present");
    }
    drop(txn);
    assert_eq!(db.row_count(journal).unwrap(), present.len());
    assert_eq!(db.index_len(by_from).unwrap(), present.len());
}

/// Random transfers on `threads` workers until `stop`; returns the ids
/// committed and the acknowledged ones (durable before `cut` fired).
fn run_until_cut<C: ConcurrencyControl>(
    db: &Arc<Database<C>>,
    threads: usize,
    per_thread: u64,
    cut: impl FnOnce(&Database<C>) -> MemRoot,
) -> (HashSet<u64>, HashSet<u64>, u64, MemRoot) {
    let committed = Arc::new(Mutex::new(Vec::<(u64, u64)>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let handles: Vec<_> = (0..threads as u64)
        .map(|t| {
            let db = Arc::clone(db);
            let committed = Arc::clone(&committed);
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut w = db.worker().unwrap();
                let mut rng = SmallRng::seed_from_u64(t + 1);
                for n in 0..per_thread {
                    if stop.load(Ordering::Acquire) {
                        break;
                    }
                    let id = 1 + t + n * threads as u64;
                    match transfer(&db, &mut w, &mut rng, id) {
                        Ok(commit) => committed.lock().unwrap().push((id, commit.epoch)),
                        Err(TxnError::NotDurable(_)) => break,
                        Err(e) => panic!("transfer {id}: {e}"),
                    }
                }
            })
        })
        .collect();
    // Let some epochs close and some commits become durable, then cut (on
    // a fast or busy machine half the commits can land in epochs the log
    // has not made durable yet).
    let first = db.durable_epoch();
    let some_durable = || {
        let durable = db.durable_epoch();
        committed.lock().unwrap().iter().any(|(_, e)| *e <= durable)
    };
    while committed.lock().unwrap().len() < (threads as u64 * per_thread / 2) as usize
        || db.durable_epoch() < first + 2
        || !some_durable()
    {
        std::thread::sleep(Duration::from_millis(2));
    }
    let durable = db.durable_epoch();
    let image = cut(db);
    stop.store(true, Ordering::Release);
    for h in handles {
        h.join().unwrap();
    }
    let all = committed.lock().unwrap().clone();
    let must = all
        .iter()
        .filter(|(_, e)| *e <= durable)
        .map(|(id, _)| *id)
        .collect();
    let ids = all.iter().map(|(id, _)| *id).collect();
    (
        ids,
        must,
        threads as u64 * per_thread + threads as u64,
        image,
    )
}

fn power_cut<C: ConcurrencyControl>(torn: bool, checkpoint: bool) {
    let root = MemRoot::new();
    let db = Arc::new(open::<C>(&root, Some(Duration::from_millis(1))).unwrap());
    seed(&db);
    let (committed, must, max_id, image) = run_until_cut(&db, 2, 600, |db| {
        if checkpoint {
            db.checkpoint().unwrap();
        }
        if torn {
            root.crash_torn(7)
        } else {
            root.crash()
        }
    });
    assert!(!must.is_empty(), "nothing was acknowledged before the cut");
    drop(db);
    let db = open::<C>(&image, None).unwrap();
    let report = db.recovery_report().unwrap().clone();
    assert!(report.durable_epoch > 0);
    if checkpoint {
        assert!(report.checkpoint.is_some());
    }
    check(&db, &committed, &must, max_id);
    // A second crash right after recovery recovers the same state.
    let again = open::<C>(&image.crash(), None).unwrap();
    check(&again, &committed, &must, max_id);
}

#[test]
fn power_cut_keeps_every_acknowledged_commit_no_wait() {
    power_cut::<NoWait>(false, false);
}

#[test]
fn power_cut_keeps_every_acknowledged_commit_silo() {
    power_cut::<Silo>(false, false);
}

#[test]
fn torn_power_cut_after_a_checkpoint_no_wait() {
    power_cut::<NoWait>(true, true);
}

#[test]
fn torn_power_cut_after_a_checkpoint_silo() {
    power_cut::<Silo>(true, true);
}

#[test]
fn clean_reopen_recovers_everything_and_checkpoints_trim_the_log() {
    let root = MemRoot::new();
    let db = open::<Silo>(&root, None).unwrap();
    seed(&db);
    let mut w = db.worker().unwrap();
    let mut rng = SmallRng::seed_from_u64(3);
    let mut committed = HashSet::new();
    let mut last = None;
    for id in 1..=300 {
        last = Some(transfer(&db, &mut w, &mut rng, id).unwrap());
        committed.insert(id);
        if id == 150 {
            let report = db.checkpoint().unwrap();
            assert!(report.rows > ACCOUNTS);
        }
        if id % 37 == 0 {
            db.sync_epochs();
        }
    }
    drop(w);
    db.sync_epochs();
    db.sync_epochs();
    db.wait_durable(&last.unwrap()).unwrap();
    drop(db);
    let db = open::<Silo>(&root.crash(), None).unwrap();
    let report = db.recovery_report().unwrap();
    assert!(report.checkpoint.is_some());
    assert!(
        report.txns_replayed > 0 && report.txns_replayed < 300,
        "{report:?}"
    );
    check(&db, &committed, &committed, 300);
}

#[test]
fn failing_syncs_refuse_commits_and_lose_nothing_acknowledged() {
    for fault in ["sync", "write", "full"] {
        let root = MemRoot::new();
        let db = open::<NoWait>(&root, None).unwrap();
        seed(&db);
        let mut w = db.worker().unwrap();
        let mut rng = SmallRng::seed_from_u64(5);
        let mut acked = HashSet::new();
        let mut committed = HashSet::new();
        for id in 1..=50 {
            transfer(&db, &mut w, &mut rng, id).unwrap();
            committed.insert(id);
        }
        db.sync_epochs();
        db.sync_epochs();
        acked.extend(1..=50);
        match fault {
            "sync" => root.faults().fail_syncs_after(0),
            "write" => root.faults().fail_writes_after(0),
            _ => root.faults().set_capacity(1),
        }
        let mut refused = None;
        let mut pending = Vec::new();
        // A full device needs the preallocated MiB used up first.
        for id in 51..=20_000 {
            match transfer(&db, &mut w, &mut rng, id) {
                Ok(commit) => {
                    committed.insert(id);
                    pending.push(commit);
                }
                Err(err) => {
                    refused = Some(err);
                    break;
                }
            }
            if id % 10 == 0 {
                db.sync_epochs();
            }
        }
        db.sync_epochs();
        let err =
            refused.unwrap_or_else(|| panic!("{fault}: commits went on after the device failed"));
        let full = fault == "full";
        if full {
            // A full device stalls the log: refused now, not failed.
            assert!(matches!(err, TxnError::LogFull(_)), "{fault}: {err}");
            assert!(err.to_string().contains("space"), "{err}");
            assert!(db.log_failure().is_none());
        } else {
            assert!(matches!(err, TxnError::NotDurable(_)), "{fault}: {err}");
            assert!(db.log_failure().is_some());
        }
        // Commits before the refusal may have become durable (a full
        // device takes writes into space it already has): those that are
        // acknowledged must survive like the rest. A failed log
        // acknowledges nothing after the failure.
        for (commit, id) in pending.iter().zip(51..) {
            match db.wait_durable(commit) {
                Ok(()) => {
                    assert!(full, "{fault}: acknowledged after the failure");
                    acked.insert(id);
                }
                Err(TxnError::LogFull(_)) if full => {}
                Err(TxnError::NotDurable(_)) if !full => {}
                Err(e) => panic!("{fault}: {e}"),
            }
        }
        root.faults().heal();
        if full {
            // Once space is freed the pending commits become durable and
            // new ones are accepted, without a reopen.
            let deadline = std::time::Instant::now() + Duration::from_secs(30);
            let mut resumed = None;
            while resumed.is_none() {
                assert!(
                    std::time::Instant::now() < deadline,
                    "no commit after healing"
                );
                db.sync_epochs();
                match transfer(&db, &mut w, &mut rng, 20_001) {
                    Ok(commit) => resumed = Some(commit),
                    Err(TxnError::LogFull(_)) => std::thread::sleep(Duration::from_millis(20)),
                    Err(e) => panic!("after healing: {e}"),
                }
            }
            committed.insert(20_001);
            let resumed = resumed.unwrap();
            // No epoch thread here: close the epochs until it is durable.
            while db.sync_epochs() < resumed.epoch {
                assert!(
                    std::time::Instant::now() < deadline,
                    "not durable after healing"
                );
                std::thread::sleep(Duration::from_millis(5));
            }
            db.wait_durable(&resumed).unwrap();
            acked.insert(20_001);
            for (commit, id) in pending.iter().zip(51..) {
                db.wait_durable(commit).unwrap();
                acked.insert(id);
            }
        }
        drop(w);
        drop(db);
        let db = open::<NoWait>(&root.crash(), None).unwrap();
        check(&db, &committed, &acked, 20_001);
    }
}

#[test]
fn damage_in_the_middle_of_a_stream_names_the_file_and_offset() {
    let root = MemRoot::new();
    let db = open::<Silo>(&root, None).unwrap();
    seed(&db);
    let mut w = db.worker().unwrap();
    let mut rng = SmallRng::seed_from_u64(9);
    for id in 1..=100 {
        transfer(&db, &mut w, &mut rng, id).unwrap();
    }
    db.sync_epochs();
    db.sync_epochs();
    drop(w);
    drop(db);
    let image = root.crash();
    let dir = image.open("stream-000").unwrap();
    let segment = dir
        .list()
        .unwrap()
        .into_iter()
        .find(|n| n.ends_with(".seg"))
        .unwrap();
    let dev = dir.open(&segment).unwrap();
    dev.write_all_at(&[0xAB; 16], 200).unwrap();
    dev.sync().unwrap();
    let err = open::<Silo>(&image, None)
        .err()
        .expect("damage must be refused");
    let message = err.to_string();
    assert!(
        message.contains(&segment) && message.contains("offset"),
        "{message}"
    );
}

#[test]
fn another_schema_is_refused() {
    let root = MemRoot::new();
    drop(open::<Silo>(&root, None).unwrap());
    let other = vec![TableSchema::builder("account")
        .column("balance", ColumnType::F64)
        .build()
        .unwrap()];
    let err = Database::<Silo>::open(options(&root, None), other)
        .err()
        .unwrap();
    assert!(err.to_string().contains("other tables"), "{err}");
}

/// Each real device: commit, reopen, find the rows.
#[test]
fn real_devices_survive_a_reopen() {
    let base = tempfile::tempdir().unwrap();
    let shm = std::path::Path::new("/dev/shm");
    let shm_dir = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let devices = [
        ("file", base.path().join("file")),
        ("ramdisk", shm_dir.path().join("ramdisk")),
        ("pmem", shm_dir.path().join("pmem")),
    ];
    for (name, path) in devices {
        let device = LogDevice::from_name(name, Some(path)).unwrap();
        let opts = || {
            Options::default()
                .with_max_workers(2)
                .with_epoch_interval(None)
                .with_log(device.clone())
        };
        let db = Database::<NoWait>::open(opts(), tables()).unwrap();
        seed(&db);
        let mut w = db.worker().unwrap();
        let mut rng = SmallRng::seed_from_u64(1);
        let mut last = None;
        for id in 1..=40 {
            last = Some(transfer(&db, &mut w, &mut rng, id).unwrap());
        }
        drop(w);
        db.sync_epochs();
        db.sync_epochs();
        db.wait_durable(&last.unwrap()).unwrap();
        drop(db);
        let db = Database::<NoWait>::open(opts(), tables()).unwrap();
        let all: HashSet<u64> = (1..=40).collect();
        check(&db, &all, &all, 40);
        drop(db);
        // And again after its recovery checkpoint.
        let db = Database::<NoWait>::open(opts(), tables()).unwrap();
        check(&db, &all, &all, 40);
    }
}
