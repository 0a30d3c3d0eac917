//! The pool: placement by load, moves asked of connections, stopping,
//! blocking sections, and rounds of held replies.

use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use super::{
    block_in_place, current, end_of_round, end_stale_round, leave_worker, note_served,
    take_left_worker, WorkerPolicy, WorkerPool,
};

/// Waits until `f` holds, for at most five seconds.
fn eventually(what: &str, f: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !f() {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn tasks_run_on_the_pool_threads_and_spread_by_load() {
    let pool = WorkerPool::start(2, "pool-test", WorkerPolicy::Fixed).expect("start");
    assert_eq!((pool.workers(), pool.active()), (2, 2));
    let (names, seen) = mpsc::channel();
    let (release, hold) = tokio::sync::watch::channel(false);
    for _ in 0..4 {
        let names = names.clone();
        let mut hold = hold.clone();
        pool.spawn(async move {
            let name = std::thread::current().name().map(str::to_owned);
            names.send((name, current())).expect("send");
            let _ = hold.wait_for(|go| *go).await;
        });
    }
    let mut workers = Vec::new();
    for _ in 0..4 {
        let (name, worker) = seen.recv_timeout(Duration::from_secs(5)).expect("task ran");
        assert_eq!(name.as_deref(), Some("pool-test"));
        workers.push(worker.expect("a pool thread knows its worker"));
    }
    workers.sort_unstable();
    assert_eq!(workers, vec![0, 0, 1, 1]);
    // Each new task went to the worker with fewer live tasks.
    assert_eq!(pool.load(), vec![2, 2]);
    assert_eq!(current(), None, "the test thread is no worker");
    release.send(true).expect("release");
    eventually("tasks counted out", || pool.load() == vec![0, 0]);
    pool.stop();
}

#[test]
fn an_adaptive_pool_starts_with_one_worker_and_asks_others_to_move() {
    let pool = WorkerPool::start(2, "pool-adapt", WorkerPolicy::Adaptive).expect("start");
    assert_eq!(pool.active(), 1);
    let (release, hold) = tokio::sync::watch::channel(false);
    for _ in 0..3 {
        let mut hold = hold.clone();
        pool.spawn(async move {
            let _ = hold.wait_for(|go| *go).await;
        });
    }
    // All on the one active worker; none is asked to move from it.
    assert_eq!(pool.load(), vec![3, 0]);
    assert_eq!(pool.move_target(0), None);
    // A task on an inactive worker is asked to go to the active one.
    let mut held = hold.clone();
    pool.spawn_on(1, async move {
        let _ = held.wait_for(|go| *go).await;
    });
    assert_eq!(pool.move_target(1), Some(0));
    assert_eq!(pool.move_target(7), None, "no such worker");
    release.send(true).expect("release");
    eventually("tasks counted out", || pool.load() == vec![0, 0]);
    pool.stop();
}

#[test]
fn an_unbalanced_fixed_pool_asks_the_busier_worker_to_give_up_tasks() {
    let pool = WorkerPool::start(2, "pool-balance", WorkerPolicy::Fixed).expect("start");
    let (release, hold) = tokio::sync::watch::channel(false);
    for _ in 0..3 {
        let mut hold = hold.clone();
        pool.spawn_on(0, async move {
            let _ = hold.wait_for(|go| *go).await;
        });
    }
    assert_eq!(pool.move_target(0), Some(1), "3 against 0");
    assert_eq!(pool.move_target(1), None);
    let mut held = hold.clone();
    pool.spawn_on(1, async move {
        let _ = held.wait_for(|go| *go).await;
    });
    assert_eq!(pool.move_target(0), Some(1), "3 against 1");
    let mut held = hold.clone();
    pool.spawn_on(1, async move {
        let _ = held.wait_for(|go| *go).await;
    });
    assert_eq!(pool.move_target(0), None, "3 against 2 is balanced enough");
    release.send(true).expect("release");
    pool.stop();
}

#[test]
fn stop_drops_running_tasks_and_is_callable_from_async_code() {
    let pool = WorkerPool::start(1, "pool-stop", WorkerPolicy::Adaptive).expect("start");
    pool.spawn(std::future::pending());
    assert_eq!(pool.load(), vec![1]);
    let outer = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    outer.block_on(async { pool.stop() });
    eventually("task dropped", || pool.load() == vec![0]);
    // A task spawned after the stop never runs and is not counted.
    pool.spawn(async {});
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(pool.load(), vec![0]);
}

#[test]
fn a_blocking_section_leaves_the_worker_s_other_tasks_running() {
    let pool = WorkerPool::start(1, "pool-block", WorkerPolicy::Fixed).expect("start");
    let (done, finished) = mpsc::channel();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    pool.spawn(async move {
        // As a long Lua script does: the worker's core moves on.
        tokio::task::block_in_place(|| stop_rx.recv_timeout(Duration::from_secs(10)))
            .expect("released");
    });
    std::thread::sleep(Duration::from_millis(50));
    pool.spawn(async move {
        done.send(()).expect("send");
    });
    finished
        .recv_timeout(Duration::from_secs(5))
        .expect("second task ran while the first blocked");
    stop_tx.send(()).expect("release");
    pool.stop();
}

#[test]
fn a_task_that_left_its_worker_blocks_without_holding_the_others() {
    // A script begun in place hands the worker off once it runs long: from
    // then on it may block its thread (here until released) while the
    // worker's other tasks run on a new one.
    let pool = WorkerPool::start(1, "pool-leave", WorkerPolicy::Fixed).expect("start");
    let (left_tx, left_rx) = mpsc::channel();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    pool.spawn(async move {
        let thread = std::thread::current().id();
        let left = leave_worker();
        let marked = take_left_worker();
        left_tx.send((left, marked)).expect("send");
        stop_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("released");
        // The task finishes its poll where it was.
        assert_eq!(std::thread::current().id(), thread);
    });
    let seen = left_rx.recv_timeout(Duration::from_secs(5)).expect("left");
    assert_eq!(seen, (true, true), "handed off, and marked as left");
    let (done, finished) = mpsc::channel();
    pool.spawn(async move {
        done.send(std::thread::current().id()).expect("send");
    });
    finished
        .recv_timeout(Duration::from_secs(5))
        .expect("another task ran while the first blocked");
    stop_tx.send(()).expect("release");
    // The worker goes on serving after the first task ends.
    let (again, ran) = mpsc::channel();
    pool.spawn(async move { again.send(()).expect("send") });
    ran.recv_timeout(Duration::from_secs(5)).expect("served");
    pool.stop();
    // Off the pool there is no worker to leave.
    assert!(!leave_worker());
    assert!(!take_left_worker());
}

#[test]
fn the_sampler_measures_worker_threads_and_stops() {
    let pool = WorkerPool::start(2, "pool-sample", WorkerPolicy::Adaptive).expect("start");
    let (done, finished) = mpsc::channel();
    pool.spawn(async move {
        // Some CPU on worker 0, and served bytes counted there.
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(200) {
            x = x.wrapping_mul(31).wrapping_add(7);
            note_served(1);
        }
        done.send(x).expect("send");
    });
    finished.recv_timeout(Duration::from_secs(5)).expect("ran");
    let threads = pool
        .sampler
        .lock()
        .expect("lock")
        .as_ref()
        .map(|(_, t)| t.thread().name().map(str::to_owned));
    assert_eq!(threads, Some(Some("strata-governor".to_owned())));
    let started = Instant::now();
    pool.stop();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the sampler stops at once"
    );
}

#[test]
fn held_tasks_resume_together_once_every_ready_task_has_run() {
    let pool = WorkerPool::start(1, "pool-round", WorkerPolicy::Fixed).expect("start");
    assert!(end_of_round().is_none(), "no rounds off the pool");
    let events = Arc::new(Mutex::new(Vec::new()));
    let (done, finished) = mpsc::channel();
    let log = events.clone();
    pool.spawn(async move {
        // Ten connections made ready at once, as one poll of the I/O
        // driver makes them: each is processed, then holds its reply.
        let tasks: Vec<_> = (0..10)
            .map(|i| {
                let log = log.clone();
                tokio::spawn(async move {
                    log.lock().expect("log").push(("processed", i));
                    end_of_round().expect("on the pool").await;
                    log.lock().expect("log").push(("sent", i));
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("task");
        }
        done.send(()).expect("send");
    });
    finished
        .recv_timeout(Duration::from_secs(5))
        .expect("the idle worker released the holds");
    let events = events.lock().expect("log");
    let first_sent = events.iter().position(|(what, _)| *what == "sent");
    assert_eq!(
        first_sent,
        Some(10),
        "every task processed before any sent: {events:?}"
    );
    pool.stop();
}

#[test]
fn a_worker_kept_busy_releases_a_stale_round() {
    let pool = WorkerPool::start(1, "pool-stale", WorkerPolicy::Fixed).expect("start");
    let (done, finished) = mpsc::channel();
    pool.spawn(async move {
        let held = tokio::spawn(async {
            end_of_round().expect("on the pool").await;
        });
        // A connection that never lets the worker idle (it yields, so the
        // worker only polls for I/O, never parks): only the check every
        // connection makes after processing ends the round.
        let started = Instant::now();
        while !held.is_finished() && started.elapsed() < Duration::from_secs(5) {
            tokio::task::yield_now().await;
            end_stale_round(Instant::now());
        }
        done.send(held.is_finished()).expect("send");
    });
    let released = finished.recv_timeout(Duration::from_secs(10)).expect("ran");
    assert!(released, "the busy worker ended the stale round");
    pool.stop();
}

#[test]
fn a_blocking_section_marks_its_thread_as_having_left_the_worker() {
    // Regression (2026-12-04): a `DEBUG DIGEST` or `EVAL` reply held after
    // `block_in_place` waited for a round its thread no longer ended (the
    // worker's new thread had parked), until unrelated I/O came.
    let pool = WorkerPool::start(1, "pool-left", WorkerPolicy::Fixed).expect("start");
    let (done, finished) = mpsc::channel();
    pool.spawn(async move {
        let before = take_left_worker();
        let value = block_in_place(|| {
            std::thread::sleep(Duration::from_millis(20));
            7
        });
        let after = take_left_worker();
        done.send((before, value, after, take_left_worker()))
            .expect("send");
    });
    let seen = finished.recv_timeout(Duration::from_secs(5)).expect("ran");
    assert_eq!(
        seen,
        (false, 7, true, false),
        "marked once, cleared by the take"
    );
    // Off the pool it runs in place and marks nothing.
    assert_eq!(block_in_place(|| 8), 8);
    assert!(!take_left_worker());
    pool.stop();
}
