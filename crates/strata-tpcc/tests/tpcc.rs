//! TPC-C on the engine: the consistency conditions hold after runs of
//! both mixes under each concurrency control, and after a power cut of
//! the log device (with every acknowledged NewOrder and Payment found).

use std::collections::VecDeque;
use std::sync::Arc;

use rand::SeedableRng;
use strata_tpcc::consistency::check;
use strata_tpcc::mix::next_input;
use strata_tpcc::random::{Constants, TpccRng};
use strata_tpcc::schema::{self, Tables};
use strata_tpcc::txns::{execute, Buffers, Output};
use strata_tpcc::Mix;
use strata_txn::log::MemRoot;
use strata_txn::{ConcurrencyControl, Database, LogDevice, NoWait, Options, Silo, TxnError};

fn open<C: ConcurrencyControl>(log: LogDevice) -> Database<C> {
    let options = Options::default()
        .with_max_workers(4)
        .with_epoch_interval(Some(std::time::Duration::from_millis(5)))
        .with_capacity_hint(100_000)
        .with_log(log);
    Database::<C>::open(options, schema::tables().unwrap()).unwrap()
}

/// Runs `per_thread` transactions of `mix` on two workers; returns the
/// outputs of the commits acknowledged as durable during the run.
fn run<C: ConcurrencyControl>(
    db: &Arc<Database<C>>,
    mix: Mix,
    per_thread: usize,
    constants: Constants,
) -> Vec<Output> {
    let t = Tables::of(db).unwrap();
    let handles: Vec<_> = (0..2u32)
        .map(|k| {
            let db = Arc::clone(db);
            std::thread::spawn(move || {
                let mut worker = db.worker().unwrap();
                let mut bufs = Buffers::new(&db, &t, k).unwrap();
                let mut rng = TpccRng::new(u64::from(k) + 17, constants);
                let mut pending = VecDeque::new();
                let mut acked = Vec::new();
                for _ in 0..per_thread {
                    let input = next_input(mix, &mut rng, 1, 1);
                    match worker.run(|txn| execute(txn, &t, &mut bufs, mix, &input)) {
                        Ok((output, commit)) => pending.push_back((commit.epoch, output)),
                        Err(TxnError::UserAbort) => {}
                        Err(e) => panic!("{:?}: {e}", input.kind()),
                    }
                    let durable = db.durable_epoch();
                    while pending.front().is_some_and(|(e, _)| *e <= durable) {
                        acked.push(pending.pop_front().unwrap().1);
                    }
                }
                acked
            })
        })
        .collect();
    handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect()
}

fn both_mixes<C: ConcurrencyControl>() {
    let db = Arc::new(open::<C>(LogDevice::None));
    let load = strata_tpcc::load::load(&db, 1, 2, 3).unwrap();
    check(&db, Mix::Full).expect("after the load");
    let constants = Constants::for_run(load, &mut rand::rngs::SmallRng::seed_from_u64(4));
    run(&db, Mix::Full, 1500, constants);
    let report = check(&db, Mix::Full).expect("after the full mix");
    assert_eq!(report.conditions, vec![1, 2, 3, 4]);
    run(&db, Mix::Dbx1000, 1500, constants);
    let report = check(&db, Mix::Dbx1000).expect("after the DBx1000 mix");
    assert_eq!(report.conditions, vec![1, 3, 4]);
}

#[test]
fn both_mixes_keep_the_conditions_under_no_wait() {
    both_mixes::<NoWait>();
}

#[test]
fn both_mixes_keep_the_conditions_under_silo() {
    both_mixes::<Silo>();
}

#[test]
fn a_power_cut_loses_no_acknowledged_order_or_payment() {
    let root = MemRoot::new();
    let log = || LogDevice::Root(Arc::new(root.clone()));
    let db = Arc::new(open::<Silo>(log()));
    let load = strata_tpcc::load::load(&db, 1, 2, 5).unwrap();
    db.checkpoint().unwrap();
    let constants = Constants::for_run(load, &mut rand::rngs::SmallRng::seed_from_u64(6));
    let acked = run(&db, Mix::Full, 1000, constants);
    let image = root.crash();
    drop(db);
    assert!(!acked.is_empty(), "nothing was acknowledged");
    let db = open::<Silo>(LogDevice::Root(Arc::new(image)));
    check(&db, Mix::Full).expect("after recovery");
    let t = Tables::of(&db).unwrap();
    let mut worker = db.worker().unwrap();
    let mut order = db.new_row(t.order).unwrap();
    let mut history = db.new_row(t.history).unwrap();
    let mut txn = worker.begin();
    for output in acked {
        match output {
            Output::Order(key) => assert!(
                txn.read(t.order, key, &mut order).unwrap(),
                "order {key:#x} lost"
            ),
            Output::History(key) => assert!(
                txn.read(t.history, key, &mut history).unwrap(),
                "payment {key:#x} lost"
            ),
            Output::None => {}
        }
    }
}
