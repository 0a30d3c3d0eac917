//! Crash test of streams in `--persistence sync`: one client XADDs binary
//! values to three streams (large ones: each is chunked past 8 KiB, so
//! appends rewrite the last node and the head in place), sometimes with an
//! exact `MAXLEN` that cuts inside the first node, XDELs entries and trims
//! with `XTRIM MAXLEN ~` (whole nodes), while another thread kills the
//! server with SIGKILL at random moments and restarts it on the same data
//! directory (sometimes with a small checkpoint threshold, so checkpoints
//! of the streams interleave with the kills).
//!
//! After each restart every stream is read back with `XRANGE` and checked,
//! ids and value bytes, against a model of the acknowledged commands: it
//! must equal the model exactly, except the stream of the one command in
//! flight at the kill, which may hold that command's effect or not (and
//! nothing else). The same check runs after a last kill at the end.
//!
//! `STRATA_CRASH_SEED` replays a run's choices (the kill timing is not
//! replayed); `STRATA_CRASH_CYCLES` sets the kills (default 3; 20 with
//! `STRATA_TEST_FULL=1`).

use crate::crash;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crash::resp::{Reply, RespConn};
use crash::server::DurableServer;
use crash::DataDir;

const STREAMS: usize = 3;
/// The exact cap some XADDs carry: far from a node boundary, so the cut
/// rewrites part of the first node.
const EXACT_CAP: usize = 350;
/// Bounds the whole test: a hung server fails it instead of hanging CI.
const TEST_BUDGET: Duration = Duration::from_secs(240);

/// One stream's acknowledged entries: (milliseconds of `ms-0`, value).
type Entries = Vec<(u64, Vec<u8>)>;

/// A command sent and not answered when the connection died.
#[derive(Debug, Clone)]
enum InFlight {
    Add {
        ms: u64,
        value: Vec<u8>,
        cap: Option<usize>,
    },
    Del(u64),
    Trim,
}

fn options(rng: &mut StdRng) -> Vec<String> {
    let mut options = vec!["--persistence", "sync"];
    if rng.gen_bool(0.5) {
        options.extend(["--checkpoint-min-log-size", "64kb"]);
    }
    options.into_iter().map(String::from).collect()
}

fn key(stream: usize) -> String {
    format!("crash:stream:{stream}")
}

/// The stream at `key` as `XRANGE - +` returns it; `None` when the
/// connection fails.
fn read_stream(conn: &mut RespConn, key: &str) -> Option<Entries> {
    let reply = conn.call(&[b"XRANGE", key.as_bytes(), b"-", b"+"]).ok()?;
    let Reply::Array(Some(items)) = reply else {
        panic!("XRANGE {key}: {reply:?}");
    };
    let entries = items
        .into_iter()
        .map(|item| match item {
            Reply::Array(Some(pair)) => match pair.as_slice() {
                [Reply::Bulk(Some(id)), Reply::Array(Some(fields))] => {
                    let id = String::from_utf8_lossy(id).into_owned();
                    let ms = id
                        .strip_suffix("-0")
                        .and_then(|ms| ms.parse().ok())
                        .unwrap_or_else(|| panic!("{key}: unexpected id {id}"));
                    match fields.as_slice() {
                        [Reply::Bulk(Some(f)), Reply::Bulk(Some(v))] if f == b"v" => {
                            (ms, v.clone())
                        }
                        other => panic!("{key} {id}: fields {other:?}"),
                    }
                }
                other => panic!("{key}: entry {other:?}"),
            },
            other => panic!("{key}: entry {other:?}"),
        })
        .collect();
    Some(entries)
}

/// The states `model` may be in after `op` was in flight: before it, or
/// after it (any suffix for a trim, whose count was never answered).
fn accepts(model: &Entries, op: &InFlight, actual: &Entries) -> bool {
    if actual == model {
        return true;
    }
    match op {
        InFlight::Add { ms, value, cap } => {
            let mut after = model.clone();
            after.push((*ms, value.clone()));
            if let Some(cap) = cap {
                let cut = after.len().saturating_sub(*cap);
                after.drain(..cut);
            }
            *actual == after
        }
        InFlight::Del(ms) => {
            let after: Entries = model.iter().filter(|e| e.0 != *ms).cloned().collect();
            *actual == after
        }
        InFlight::Trim => model.ends_with(actual),
    }
}

/// Waits for the server of a generation after `after`, then checks every
/// stream against `models`, the in-flight command's stream against both
/// its outcomes (taking the one found). Returns the new connection.
fn reconnect_and_check(
    addr: &Mutex<(u64, SocketAddr)>,
    after: u64,
    models: &mut [Entries],
    in_flight: Option<(usize, InFlight)>,
    began: Instant,
) -> (u64, RespConn) {
    loop {
        assert!(began.elapsed() < TEST_BUDGET, "no server to reconnect to");
        let (generation, at) = *addr.lock().unwrap();
        if generation <= after {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        }
        let Ok(mut conn) = RespConn::connect(at) else {
            continue;
        };
        let mut read = Vec::new();
        for stream in 0..STREAMS {
            match read_stream(&mut conn, &key(stream)) {
                Some(entries) => read.push(entries),
                None => break,
            }
        }
        if read.len() < STREAMS {
            // Killed again while checking: check the next server.
            continue;
        }
        for (stream, actual) in read.into_iter().enumerate() {
            let model = &mut models[stream];
            match &in_flight {
                Some((s, op)) if *s == stream => {
                    assert!(
                        accepts(model, op, &actual),
                        "stream {stream} after a kill with {op:?} in flight: {} entries, model {}",
                        actual.len(),
                        model.len()
                    );
                }
                _ => assert!(
                    actual == *model,
                    "stream {stream} after a kill: {} entries, model {}; first difference at {:?}",
                    actual.len(),
                    model.len(),
                    actual.iter().zip(model.iter()).position(|(a, m)| a != m)
                ),
            }
            *model = actual;
        }
        return (generation, conn);
    }
}

#[test]
fn streams_survive_kill_9_in_sync_mode() {
    let seed = crash::seed("streams_survive_kill_9_in_sync_mode");
    let kills = crash::cycles(3, 20);
    let mut rng = StdRng::seed_from_u64(seed);
    let began = Instant::now();
    let dir = DataDir::new("streams");
    let mut server = DurableServer::start(dir.path(), &options(&mut rng));
    let addr = Arc::new(Mutex::new((1u64, server.resp())));
    let done = Arc::new(AtomicBool::new(false));
    let client = {
        let (addr, done, seed) = (Arc::clone(&addr), Arc::clone(&done), rng.gen());
        std::thread::spawn(move || workload(&addr, &done, seed, began))
    };
    // The server stays with this thread, so a failing client's panic
    // still ends with the server killed (when it is dropped).
    for kill in 1..=kills {
        std::thread::sleep(Duration::from_millis(rng.gen_range(400..=1500)));
        server.kill();
        server = DurableServer::start(dir.path(), &options(&mut rng));
        *addr.lock().unwrap() = (kill as u64 + 1, server.resp());
    }
    done.store(true, Ordering::Relaxed);
    let (acked, mut models, generation) = match client.join() {
        Ok(outcome) => outcome,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    server.kill();
    let server = DurableServer::start(dir.path(), &options(&mut rng));
    *addr.lock().unwrap() = (u64::MAX, server.resp());
    reconnect_and_check(&addr, generation, &mut models, None, began);
    let sizes: Vec<usize> = models.iter().map(Vec::len).collect();
    eprintln!(
        "streams kill -9: {kills} kills in {:?}; {acked} commands acknowledged; entries left {sizes:?}",
        began.elapsed()
    );
    assert!(acked > 100, "too few commands ran ({acked})");
}

/// The client: random commands until `done`, every acknowledged one
/// applied to the model, a check after every reconnection. Returns the
/// commands acknowledged, the model and the last server generation seen.
fn workload(
    addr: &Mutex<(u64, SocketAddr)>,
    done: &AtomicBool,
    seed: u64,
    began: Instant,
) -> (u64, Vec<Entries>, u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut models: Vec<Entries> = vec![Vec::new(); STREAMS];
    let mut next_ms = [1u64; STREAMS];
    let (mut generation, mut conn) = reconnect_and_check(addr, 0, &mut models, None, began);
    let mut acked = 0u64;
    while !done.load(Ordering::Relaxed) {
        assert!(began.elapsed() < TEST_BUDGET, "over the time budget");
        let stream = rng.gen_range(0..STREAMS);
        let key = key(stream);
        let model = &models[stream];
        let (op, args): (InFlight, Vec<Vec<u8>>) = match rng.gen_range(0..100) {
            0..=9 if !model.is_empty() => {
                let ms = model[rng.gen_range(0..model.len())].0;
                let args = vec![b"XDEL".to_vec(), key.into(), format!("{ms}-0").into()];
                (InFlight::Del(ms), args)
            }
            10..=14 => {
                let args = ["XTRIM", &key, "MAXLEN", "~", "200"].map(Vec::from);
                (InFlight::Trim, args.to_vec())
            }
            _ => {
                let ms = next_ms[stream];
                next_ms[stream] += rng.gen_range(1..3);
                let len = rng.gen_range(0..400);
                let value: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                let cap = rng.gen_bool(0.2).then_some(EXACT_CAP);
                let mut args = vec![b"XADD".to_vec(), key.into()];
                if let Some(cap) = cap {
                    args.extend([b"MAXLEN".to_vec(), cap.to_string().into()]);
                }
                args.extend([format!("{ms}-0").into(), b"v".to_vec(), value.clone()]);
                (InFlight::Add { ms, value, cap }, args)
            }
        };
        let refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        let Ok(reply) = conn.call(&refs) else {
            let in_flight = Some((stream, op));
            (generation, conn) =
                reconnect_and_check(addr, generation, &mut models, in_flight, began);
            continue;
        };
        acked += 1;
        let model = &mut models[stream];
        match (op, reply) {
            (InFlight::Add { ms, value, cap }, Reply::Bulk(Some(id))) => {
                assert_eq!(id, format!("{ms}-0").into_bytes());
                model.push((ms, value));
                if let Some(cap) = cap {
                    let cut = model.len().saturating_sub(cap);
                    model.drain(..cut);
                }
            }
            (InFlight::Del(ms), Reply::Integer(1)) => model.retain(|e| e.0 != ms),
            (InFlight::Trim, Reply::Integer(n)) => {
                let n = usize::try_from(n).expect("a count");
                assert!(n <= model.len(), "XTRIM removed {n} of {}", model.len());
                model.drain(..n);
            }
            (op, reply) => panic!("{op:?}: {reply:?}"),
        }
    }
    (acked, models, generation)
}
