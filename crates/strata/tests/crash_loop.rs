//! Crash tests of `strata serve --persistence` at the process level. Four
//! RESP connections write their own keys (SET, MSET, DEL, INCRBY, APPEND,
//! EXPIRE, PERSIST, RENAME; sometimes pipelined) and a memcached connection
//! its own (set, delete, incr, append, touch); the server is killed with
//! SIGKILL at a random moment (sometimes during a SIGTERM shutdown, and
//! sometimes again during the recovery that follows) or stopped with
//! SIGTERM, restarted on the same data directory, and every key is checked
//! against what the clients saw:
//!
//! - sync mode: every acknowledged write survives; a key may only differ by
//!   commands that were still in flight, and one prefix of each
//!   connection's commands explains all its keys at once;
//! - async mode: every write acknowledged more than the sync interval plus
//!   slack before the kill survives;
//! - a clean shutdown (after SAVE, or during BGSAVE) loses nothing.
//!
//! SIGKILL loses what the process had not yet handed to the kernel, not the
//! page cache: these tests catch replies sent before the log write, records
//! lost or misordered, and recovery bugs; lost fsyncs are the business of
//! the device-level crash tests in strata-log.
//!
//! Checkpoints (`BGSAVE`, `SAVE`, small automatic-checkpoint thresholds and
//! slow checkpoint writing) interleave with the crashes. Everything random
//! comes from one seed, printed at the start; `STRATA_CRASH_SEED` replays it
//! (thread timing still varies). `STRATA_CRASH_CYCLES` sets the number of
//! kill cycles of the sync loop (default 8; 100 when `STRATA_FULL=1` or
//! `STRATA_TEST_FULL=1`); the async loop runs a quarter as many, as each
//! of its cycles is longer. A failing test keeps its data directory and
//! prints the path.

use crate::crash;

use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crash::cycle::{call, fresh_keys, info_problems, request_bgsave, Crash, CrashLoop, CyclePlan};
use crash::fleet::Fleet;
use crash::history::Survival;
use crash::recovered::persistence_info;
use crash::resp::Reply;
use crash::server::DurableServer;
use crash::verify::verify;
use crash::workload::{Ended, WorkerKeys, WorkerRun};
use crash::DataDir;

/// How long a clean shutdown may take.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

#[test]
fn sync_mode_survives_kill_9_loop() {
    let seed = crash::seed("sync_mode_survives_kill_9_loop");
    let cycles = crash::cycles(8, 100);
    let began = std::time::Instant::now();
    let mut crash_loop = CrashLoop::start(seed, "sync", sync_options);
    for _ in 0..cycles {
        let rng = &mut crash_loop.rng;
        let kill_after = Duration::from_millis(rng.gen_range(50..=400));
        let crash = Crash::choose(rng);
        let options = sync_options(rng);
        let plan = CyclePlan::new(kill_after, crash, options, rng);
        crash_loop.cycle(&plan, |_| Survival::Acknowledged);
    }
    eprintln!(
        "sync kill -9 loop: {cycles} cycles in {:?}; {}",
        began.elapsed(),
        crash_loop.totals
    );
}

#[test]
fn async_mode_loss_is_bounded_by_sync_interval() {
    const SYNC_INTERVAL: &str = "100ms";
    // The sync interval plus generous slack for a loaded machine.
    const BOUND: Duration = Duration::from_secs(1);
    let seed = crash::seed("async_mode_loss_is_bounded_by_sync_interval");
    // Each cycle runs longer than BOUND, so a quarter as many as the sync loop.
    let cycles = crash::cycles(12, 100).div_ceil(4);
    // Async writes are fast: small checkpoint thresholds keep the log short.
    let options: Vec<String> = [
        "--persistence",
        "async",
        "--sync-interval",
        SYNC_INTERVAL,
        "--checkpoint-min-log-size",
        "8mb",
        "--log-segment-size",
        "1mb",
    ]
    .map(String::from)
    .to_vec();
    let began = std::time::Instant::now();
    let mut crash_loop = CrashLoop::start(seed, "async", |_| options.clone());
    let mut oldest_loss = Duration::ZERO;
    for _ in 0..cycles {
        let rng = &mut crash_loop.rng;
        let kill_after = Duration::from_millis(rng.gen_range(1300..=2000));
        let plan = CyclePlan::new(kill_after, Crash::Sigkill, options.clone(), rng);
        let seen = crash_loop.cycle(&plan, |killed_at| {
            Survival::AcknowledgedBy(killed_at - BOUND)
        });
        for run in &seen.runs {
            let lost = run
                .log
                .oldest_lost_ack(&seen.recovered.states, seen.killed_at);
            oldest_loss = oldest_loss.max(lost.unwrap_or_default());
        }
    }
    eprintln!(
        "async kill -9 loop ({SYNC_INTERVAL} sync interval): {cycles} cycles in {:?}; \
         oldest acknowledged write lost: {oldest_loss:?} before the kill; {}",
        began.elapsed(),
        crash_loop.totals
    );
}

#[test]
fn graceful_restart_keeps_everything() {
    let seed = crash::seed("graceful_restart_keeps_everything");
    let mut rng = StdRng::seed_from_u64(seed);
    for mode in ["sync", "async"] {
        let dir = DataDir::new(&format!("graceful-{mode}"));
        let options: Vec<String> = ["--persistence", mode].map(String::from).to_vec();
        let mut server = DurableServer::start(dir.path(), &options);
        let restart = |server: &mut DurableServer, runs: &[WorkerRun], what: &str| {
            restart_and_check(server, &dir, &options, runs, mode, what)
        };
        let mut run = 0;
        let mut write = |server: &DurableServer, keys: &[WorkerKeys], millis| {
            run += 1;
            write_then_stop(server, keys, run, &mut rng, millis)
        };

        // Writes, SAVE, more writes, SIGTERM.
        let runs = write(&server, &fresh_keys(), 300);
        let keys: Vec<WorkerKeys> = runs.iter().map(WorkerRun::final_keys).collect();
        let saved = call(server.resp(), &[b"SAVE"]);
        assert_eq!(saved, Reply::ok(), "{mode}: SAVE");
        let runs = write(&server, &keys, 300);
        let keys = restart(&mut server, &runs, "after SAVE");

        // Writes, then SIGTERM while a BGSAVE runs.
        let runs = write(&server, &keys, 300);
        request_bgsave(server.resp());
        let keys = restart(&mut server, &runs, "during BGSAVE");

        // No writes: a restart of a restart changes nothing.
        let runs = write(&server, &keys, 0);
        restart(&mut server, &runs, "twice");
    }
}

/// FLUSHALL across a kill: with `sync` an acknowledged one holds; with
/// `async` one acknowledged a sync interval (plus slack) before the kill
/// holds, and one just before the kill holds or is undone whole (it is one
/// log record).
#[test]
fn an_acknowledged_flushall_survives_kill_9() {
    const BOUND: Duration = Duration::from_secs(1);
    for mode in ["sync", "async"] {
        let dir = DataDir::new(&format!("flushall-{mode}"));
        let options: Vec<String> = ["--persistence", mode, "--sync-interval", "100ms"]
            .map(String::from)
            .to_vec();
        let mut server = DurableServer::start(dir.path(), &options);
        let fill = |server: &DurableServer| {
            let mut conn = crash::resp::RespConn::connect(server.resp()).unwrap();
            for i in 0..50 {
                let (k, v) = (format!("k{i}"), format!("v{i}"));
                assert_eq!(
                    conn.call(&[b"SET", k.as_bytes(), v.as_bytes()]).ok(),
                    Some(Reply::ok())
                );
            }
            conn
        };
        let dbsize = |server: &DurableServer| match call(server.resp(), &[b"DBSIZE"]) {
            Reply::Integer(n) => n,
            other => panic!("DBSIZE replied {other:?}"),
        };
        let mut conn = fill(&server);
        if mode == "async" {
            std::thread::sleep(BOUND);
        }
        assert_eq!(conn.call(&[b"FLUSHALL"]).ok(), Some(Reply::ok()));
        if mode == "async" {
            // Settled: past the window.
            std::thread::sleep(BOUND);
        }
        server.kill();
        server = DurableServer::start(dir.path(), &options);
        assert_eq!(
            dbsize(&server),
            0,
            "{mode}: keys came back after a FLUSHALL\n{}",
            server.log_tail()
        );
        if mode == "async" {
            let mut conn = fill(&server);
            std::thread::sleep(BOUND);
            assert_eq!(conn.call(&[b"FLUSHALL"]).ok(), Some(Reply::ok()));
            server.kill();
            server = DurableServer::start(dir.path(), &options);
            let n = dbsize(&server);
            assert!(
                n == 0 || n == 50,
                "async: a FLUSHALL within the window undone in part: {n} keys"
            );
        }
        server.kill();
    }
}

/// Server options of one run of the sync loop, varied so that kills land
/// during checkpoints (small thresholds, slow writing), across log segment
/// rotations (small segments) and on both log devices.
fn sync_options(rng: &mut StdRng) -> Vec<String> {
    let mut options = vec!["--persistence", "sync"];
    match rng.gen_range(0..3) {
        0 => options.extend(["--checkpoint-min-log-size", "64kb"]),
        1 => options.extend(["--checkpoint-min-log-size", "1mb"]),
        _ => {}
    }
    if rng.gen_bool(0.3) {
        options.extend(["--checkpoint-io-rate", "1mb"]);
    }
    match rng.gen_range(0..3) {
        0 => options.extend(["--log-segment-size", "64kb"]),
        1 => options.extend(["--log-segment-size", "1mb"]),
        _ => {}
    }
    if rng.gen_bool(0.3) {
        options.extend(["--log-device", "direct"]);
    }
    options.into_iter().map(String::from).collect()
}

/// Runs the workers for `millis` ms, stops them and checks they ended by
/// the stop.
fn write_then_stop(
    server: &DurableServer,
    keys: &[WorkerKeys],
    run: u64,
    rng: &mut StdRng,
    millis: u64,
) -> Vec<WorkerRun> {
    let fleet = Fleet::start(server, keys, run, rng);
    std::thread::sleep(Duration::from_millis(millis));
    let runs = fleet.stop();
    for run in &runs {
        assert!(
            matches!(run.ended, Ended::Stopped),
            "worker {} ended with {:?}",
            run.id,
            run.ended
        );
    }
    runs
}

/// Stops the server with SIGTERM, restarts it and checks that every write
/// of `runs` survived (and every reply was right); returns the workers'
/// keys for the next run.
fn restart_and_check(
    server: &mut DurableServer,
    dir: &DataDir,
    options: &[String],
    runs: &[WorkerRun],
    mode: &str,
    what: &str,
) -> Vec<WorkerKeys> {
    let status = server.terminate(STOP_TIMEOUT);
    assert!(
        status.success(),
        "{mode} {what}: exit status {status:?}; log:\n{}",
        server.log_tail()
    );
    let stopped_log = server.log_tail();
    *server = DurableServer::start(dir.path(), options);
    let mut verdict = verify(server.resp(), runs, Survival::Acknowledged);
    let info = persistence_info(server.resp());
    verdict.problems.extend(info_problems(&info, mode));
    assert!(
        verdict.problems.is_empty(),
        "{mode}, clean restart {what}:\n{}\n--- log of the stopped server ---\n{stopped_log}\n\
         --- log of the restarted server ---\n{}",
        verdict.problems.join("\n\n"),
        server.log_tail()
    );
    verdict.next
}
