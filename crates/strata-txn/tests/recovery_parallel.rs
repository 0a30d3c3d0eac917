//! Recovery reads and replays the log streams in parallel: from the same
//! log image, a recovery on one thread (streams one after another, one
//! replay lane) and one on several threads must give the same database,
//! and that database must be the one that was running (every commit made
//! durable before the image was taken). Workers write the same keys, with
//! updates of different columns, so the result depends on applying each
//! key's writes from every stream in commit (TID) order.

use std::collections::BTreeMap;
use std::sync::{Arc, Barrier};
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_txn::log::MemRoot;
use strata_txn::{
    ColumnType, Commit, ConcurrencyControl, Database, LogDevice, NoWait, Options, RecoveryReport,
    Silo, TableSchema, TxnError,
};

const WORKERS: usize = 4;
const KEYS: u64 = 48;

fn tables() -> Vec<TableSchema> {
    vec![TableSchema::builder("item")
        .column("a", ColumnType::I64)
        .column("grp", ColumnType::I64)
        .column("b", ColumnType::I64)
        .column("c", ColumnType::I64)
        .index("by_grp", &["grp"], 1)
        .build()
        .unwrap()]
}

fn open<C: ConcurrencyControl>(
    root: &MemRoot,
    epochs: Option<Duration>,
    threads: usize,
) -> Database<C> {
    let options = Options::default()
        .with_max_workers(WORKERS)
        .with_epoch_interval(epochs)
        .with_log(LogDevice::Root(Arc::new(root.clone())))
        .with_recovery_threads(threads);
    Database::<C>::open(options, tables()).unwrap()
}

/// Every row: key -> (a, grp, b, c).
fn contents<C: ConcurrencyControl>(db: &Database<C>) -> BTreeMap<u64, [i64; 4]> {
    let t = db.table("item").unwrap();
    let mut rows = BTreeMap::new();
    db.for_each_row(t, |key, row| {
        let cols = [0, 1, 2, 3].map(|c| row.get_i64(c).unwrap());
        rows.insert(key, cols);
    })
    .unwrap();
    let by_grp = db.index(t, "by_grp").unwrap();
    assert_eq!(db.index_len(by_grp).unwrap(), rows.len(), "index rebuilt");
    rows
}

/// One random transaction on a shared key range: insert when absent;
/// else update column `a` or columns `b`..`c` (another column each, so
/// an out-of-order replay would lose one), or delete.
fn step<C: ConcurrencyControl>(
    db: &Database<C>,
    w: &mut strata_txn::Worker<C>,
    rng: &mut SmallRng,
    n: i64,
) -> Result<Commit, TxnError> {
    let t = db.table("item").unwrap();
    let mut row = db.new_row(t).unwrap();
    let keys = [rng.gen_range(0..KEYS), rng.gen_range(0..KEYS)];
    let choice = rng.gen_range(0..10);
    let (_, commit) = w.run(|txn| {
        for key in keys {
            if !txn.read(t, key, &mut row)? {
                row.clear();
                row.set_i64(0, n)?;
                row.set_i64(1, (key % 5) as i64)?;
                txn.insert(t, key, &row)?;
                continue;
            }
            match choice {
                0..=3 => row.set_i64(0, n)?,
                4..=7 => {
                    row.set_i64(2, n)?;
                    row.set_i64(3, -n)?;
                }
                _ => {
                    txn.delete(t, key)?;
                    continue;
                }
            }
            txn.update(t, key, &row)?;
        }
        Ok(())
    })?;
    Ok(commit)
}

/// Runs `per_worker` steps on each worker, calling `during` once half of
/// them are done; returns what `during` returned.
fn run<C: ConcurrencyControl, R>(
    db: &Arc<Database<C>>,
    per_worker: i64,
    during: impl FnOnce() -> R,
) -> R {
    let start = Arc::new(Barrier::new(WORKERS + 1));
    let halfway = Arc::new(Barrier::new(WORKERS + 1));
    let handles: Vec<_> = (0..WORKERS)
        .map(|i| {
            let (db, start, halfway) = (Arc::clone(db), Arc::clone(&start), Arc::clone(&halfway));
            std::thread::spawn(move || {
                let mut w = db.worker().unwrap();
                let mut rng = SmallRng::seed_from_u64(i as u64 + 7);
                let mut last = None;
                start.wait();
                for n in 0..per_worker {
                    if n == per_worker / 2 {
                        halfway.wait();
                    }
                    let id = 1 + n * WORKERS as i64 + i as i64;
                    last = Some(step(&db, &mut w, &mut rng, id).unwrap());
                }
                if let Some(commit) = last {
                    db.wait_durable(&commit).unwrap();
                }
            })
        })
        .collect();
    start.wait();
    halfway.wait();
    let out = during();
    for h in handles {
        h.join().unwrap();
    }
    out
}

/// Recovers two independent copies of `image`, on one thread and on
/// four; both must agree, row for row and in what the replay did.
fn serial_and_parallel<C: ConcurrencyControl>(
    image: &MemRoot,
) -> (BTreeMap<u64, [i64; 4]>, RecoveryReport) {
    let serial = open::<C>(&image.crash(), None, 1);
    let parallel = open::<C>(&image.crash(), None, 4);
    let (s, p) = (
        serial.recovery_report().unwrap().clone(),
        parallel.recovery_report().unwrap().clone(),
    );
    assert!(p.streams >= WORKERS, "{p:?}");
    assert_eq!(
        (s.durable_epoch, s.txns_replayed, s.txns_dropped),
        (p.durable_epoch, p.txns_replayed, p.txns_dropped)
    );
    assert_eq!(
        (s.writes_applied, s.writes_skipped, s.max_tid),
        (p.writes_applied, p.writes_skipped, p.max_tid)
    );
    let rows = contents(&serial);
    assert_eq!(
        rows,
        contents(&parallel),
        "serial and parallel replay differ"
    );
    (rows, p)
}

fn same_database<C: ConcurrencyControl>() {
    let root = MemRoot::new();
    let db = Arc::new(open::<C>(&root, Some(Duration::from_millis(1)), 4));
    run(&db, 300, || ());
    db.sync_epochs();
    db.sync_epochs();
    let live = contents(&db);
    let image = root.crash();
    let (recovered, report) = serial_and_parallel::<C>(&image);
    assert!(report.writes_applied > 0 && report.checkpoint.is_some());
    assert_eq!(recovered, live, "recovery lost or changed a durable commit");
    assert!(!live.is_empty());
}

#[test]
fn parallel_recovery_gives_the_serial_database_no_wait() {
    same_database::<NoWait>();
}

#[test]
fn parallel_recovery_gives_the_serial_database_silo() {
    same_database::<Silo>();
}

/// A torn power cut in the middle of the run: whatever survived, serial
/// and parallel recovery make the same of it.
fn torn_cut<C: ConcurrencyControl>() {
    let root = MemRoot::new();
    let db = Arc::new(open::<C>(&root, Some(Duration::from_millis(1)), 4));
    let (image, durable) = run(&db, 300, || {
        // Cut after an epoch is durable (on a loaded machine the first can
        // take longer than the sleep), so the cut has something to keep.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while db.durable_epoch() == 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(5));
        let durable = db.durable_epoch();
        (root.crash_torn(11), durable)
    });
    let (_, report) = serial_and_parallel::<C>(&image);
    assert!(durable > 0, "no epoch became durable in 10 s");
    // What was durable before the cut survives it.
    assert!(report.durable_epoch >= durable, "{durable} then {report:?}");
}

#[test]
fn torn_cut_recovers_the_same_in_parallel_no_wait() {
    torn_cut::<NoWait>();
}

#[test]
fn torn_cut_recovers_the_same_in_parallel_silo() {
    torn_cut::<Silo>();
}
