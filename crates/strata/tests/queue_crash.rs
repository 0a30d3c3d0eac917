//! Crash test of a job queue on lists in `--persistence sync`: producer threads LPUSH unique
//! elements (pipelined in small batches) onto two lists, consumer threads BLPOP them, and the
//! server is killed with SIGKILL several times and restarted on the same data directory
//! (sometimes with small checkpoint thresholds, so checkpoints of the lists interleave with
//! the kills). Clients reconnect after each restart. At the end producers and consumers stop,
//! the server is killed once more and restarted, the lists are read back with LRANGE, and
//! `support/queue_check.rs` checks every element's bytes and that:
//!
//! - every acknowledged push was popped (acknowledged BLPOP) or is still in its list;
//! - no element was delivered twice, or popped and still present;
//! - the only allowed losses are BLPOPs in flight at a kill: the pop may have reached the
//!   log while its reply was lost with the connection, so each in-flight BLPOP may account
//!   for one acknowledged element neither popped nor present (counted, and reported);
//! - each producer's elements keep their LPUSH order within a list.
//!
//! For the first half of the kills the producers pause between batches, so the consumers
//! keep up and wait in BLPOP: pushes are then handed straight to them (the list is never
//! written); the rest builds a backlog.
//!
//! `STRATA_CRASH_SEED` replays a run's choices; `STRATA_CRASH_CYCLES` sets the kills (default
//! 3, about 20 s in a debug build; 30 with `STRATA_TEST_FULL=1`, what `scripts/test --full`
//! runs).

// Only part of the shared crash support is used here.
use crate::crash;
use crate::queue_check;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crash::resp::{Command, Reply, RespConn};
use crash::server::DurableServer;
use crash::DataDir;
use queue_check::{element, queue_key, verify, ConsumerLog, ProducerLog, QUEUES};

const PRODUCERS: u64 = 3;
const CONSUMERS: usize = 2;
/// BLPOP timeout: short, so consumers notice the stop flag quickly.
const POP_TIMEOUT: &str = "0.2";
/// Bounds the whole test: a hung server fails it instead of hanging CI.
const TEST_BUDGET: Duration = Duration::from_secs(240);

/// What the client threads share: the server's current address (a restart listens on a new
/// port) with a generation number bumped on every restart, and the stop flags.
struct Shared {
    addr: Mutex<(u64, SocketAddr)>,
    stop_producers: AtomicBool,
    stop_consumers: AtomicBool,
    /// Producers pause between batches: the consumers keep up and wait in
    /// BLPOP, so pushes are handed straight to them (no list written).
    paced: AtomicBool,
}

impl Shared {
    /// A connection to the server of a generation after `after` (or the current one when
    /// `after` is `None`); `None` once `stop` is raised.
    fn connect(&self, after: Option<u64>, stop: &AtomicBool) -> Option<(u64, RespConn)> {
        let began = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            let (generation, addr) = *self.addr.lock().unwrap();
            if after.is_none_or(|g| generation > g) {
                if let Ok(conn) = RespConn::connect(addr) {
                    return Some((generation, conn));
                }
            }
            assert!(began.elapsed() < TEST_BUDGET, "no server to reconnect to");
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

fn options(rng: &mut StdRng) -> Vec<String> {
    let mut options = vec!["--persistence", "sync"];
    if rng.gen_bool(0.5) {
        options.extend(["--checkpoint-min-log-size", "64kb"]);
    }
    options.into_iter().map(String::from).collect()
}

#[test]
fn queue_survives_kill_9_in_sync_mode() {
    let seed = crash::seed("queue_survives_kill_9_in_sync_mode");
    let kills = crash::cycles(3, 30);
    let mut rng = StdRng::seed_from_u64(seed);
    let began = Instant::now();
    let dir = DataDir::new("queue");
    let mut server = DurableServer::start(dir.path(), &options(&mut rng));
    let shared = Arc::new(Shared {
        addr: Mutex::new((0, server.resp())),
        stop_producers: AtomicBool::new(false),
        stop_consumers: AtomicBool::new(false),
        paced: AtomicBool::new(true),
    });
    let producers: Vec<JoinHandle<ProducerLog>> = (0..PRODUCERS)
        .map(|p| {
            let (shared, seed) = (Arc::clone(&shared), rng.gen());
            std::thread::spawn(move || produce(&shared, p, seed))
        })
        .collect();
    let consumers: Vec<JoinHandle<ConsumerLog>> = (0..CONSUMERS)
        .map(|_| {
            let (shared, seed) = (Arc::clone(&shared), rng.gen());
            std::thread::spawn(move || consume(&shared, seed))
        })
        .collect();

    for kill in 1..=kills {
        // The first half drains the lists (handed pops), the rest builds a backlog.
        if kill > kills / 2 {
            shared.paced.store(false, Ordering::Relaxed);
        }
        std::thread::sleep(Duration::from_millis(rng.gen_range(300..=1200)));
        server.kill();
        server = DurableServer::start(dir.path(), &options(&mut rng));
        *shared.addr.lock().unwrap() = (kill as u64, server.resp());
        assert!(
            began.elapsed() < TEST_BUDGET,
            "over the time budget after {kill} kills"
        );
    }
    std::thread::sleep(Duration::from_millis(300));
    shared.stop_producers.store(true, Ordering::Relaxed);
    let producers: Vec<ProducerLog> = producers.into_iter().map(|t| t.join().unwrap()).collect();
    // Let the consumers take some more, but not all: the final lists are checked too.
    std::thread::sleep(Duration::from_millis(100));
    shared.stop_consumers.store(true, Ordering::Relaxed);
    let consumers: Vec<ConsumerLog> = consumers.into_iter().map(|t| t.join().unwrap()).collect();

    server.kill();
    let server = DurableServer::start(dir.path(), &options(&mut rng));
    let left = read_lists(server.resp());
    let verdict = verify(&producers, &consumers, &left);
    let in_flight_pushes: usize = producers.iter().map(|p| p.in_flight.len()).sum();
    eprintln!(
        "queue kill -9: {kills} kills in {:?}; {} pushes acknowledged ({in_flight_pushes} in flight at kills), \
         {} popped, {} left, {} missing against {} BLPOPs in flight at kills",
        began.elapsed(),
        verdict.acked_pushes,
        verdict.popped,
        verdict.left,
        verdict.missing,
        verdict.in_flight_pops
    );
    assert!(
        verdict.acked_pushes > 0 && verdict.popped > 0,
        "the load did not run"
    );
    assert!(
        verdict.problems.is_empty(),
        "queue check failed (seed {seed}):\n{}\nserver log:\n{}",
        verdict.problems.join("\n"),
        server.log_tail()
    );
}

/// One producer: batches of 1-3 pipelined LPUSHes until stopped; what a kill cut off is
/// recorded as in flight, and the producer reconnects to the restarted server.
fn produce(shared: &Shared, producer: u64, seed: u64) -> ProducerLog {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut log = ProducerLog::default();
    let mut conn = shared.connect(None, &shared.stop_producers);
    while let Some((generation, c)) = conn.as_mut() {
        let batch: Vec<u64> = (log.next..log.next + rng.gen_range(1..=3)).collect();
        log.next += batch.len() as u64;
        let commands: Vec<Command> = batch
            .iter()
            .map(|&seq| {
                let key = queue_key(producer, seq).into_bytes();
                vec![b"LPUSH".to_vec(), key, element(producer, seq)]
            })
            .collect();
        let mut answered = 0;
        let outcome = c.send(&commands).and_then(|()| {
            for &seq in &batch {
                match c.read_reply()? {
                    Reply::Integer(_) => log.acked.push(seq),
                    other => panic!("LPUSH p{producer}:{seq}: {other:?}"),
                }
                answered += 1;
            }
            Ok(())
        });
        if outcome.is_err() {
            log.in_flight.extend(&batch[answered..]);
            let after = *generation;
            conn = shared.connect(Some(after), &shared.stop_producers);
            continue;
        }
        if shared.stop_producers.load(Ordering::Relaxed) {
            break;
        }
        if shared.paced.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(rng.gen_range(1..=4)));
        }
    }
    log
}

/// One consumer: BLPOP over both lists, one at a time, with short random pauses so a
/// backlog builds up; a BLPOP a kill cut off counts as in flight.
fn consume(shared: &Shared, seed: u64) -> ConsumerLog {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut log = ConsumerLog::default();
    let mut blpop: Command = vec![b"BLPOP".to_vec()];
    blpop.extend((0..QUEUES).map(|q| format!("jobs:{q}").into_bytes()));
    blpop.push(POP_TIMEOUT.as_bytes().to_vec());
    let mut conn = shared.connect(None, &shared.stop_consumers);
    while let Some((generation, c)) = conn.as_mut() {
        if shared.stop_consumers.load(Ordering::Relaxed) {
            break;
        }
        let reply = c
            .send(std::slice::from_ref(&blpop))
            .and_then(|()| c.read_reply());
        match reply {
            Ok(Reply::Array(Some(items))) => match items.as_slice() {
                [Reply::Bulk(Some(list)), Reply::Bulk(Some(item))] => log
                    .popped
                    .push((String::from_utf8_lossy(list).into_owned(), item.clone())),
                other => panic!("BLPOP reply {other:?}"),
            },
            Ok(Reply::Array(None) | Reply::Bulk(None)) => {}
            Ok(other) => panic!("BLPOP reply {other:?}"),
            Err(_) => {
                log.in_flight_pops += 1;
                let after = *generation;
                conn = shared.connect(Some(after), &shared.stop_consumers);
                continue;
            }
        }
        if rng.gen_bool(0.5) {
            std::thread::sleep(Duration::from_micros(rng.gen_range(100..=1500)));
        }
    }
    log
}

/// LRANGE 0 -1 of every list, head first.
fn read_lists(addr: SocketAddr) -> BTreeMap<String, Vec<Vec<u8>>> {
    let mut conn = RespConn::connect(addr).expect("connect after the last restart");
    (0..QUEUES)
        .map(|q| {
            let key = format!("jobs:{q}");
            let items = match conn.call(&[b"LRANGE", key.as_bytes(), b"0", b"-1"]) {
                Ok(Reply::Array(Some(items))) => items
                    .into_iter()
                    .map(|item| match item {
                        Reply::Bulk(Some(bytes)) => bytes,
                        other => panic!("LRANGE {key} item {other:?}"),
                    })
                    .collect(),
                other => panic!("LRANGE {key}: {other:?}"),
            };
            (key, items)
        })
        .collect()
}
