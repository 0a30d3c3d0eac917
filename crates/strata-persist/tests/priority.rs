//! `checkpoint_priority`: the thread writing a background checkpoint runs at
//! the configured nice value, seen from outside through `/proc`, and the
//! threads serving requests keep theirs.

#![cfg(target_os = "linux")]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use strata_device::MemDirectory;
use strata_kv::{ManualClock, NewItem, Store};
use strata_persist::priority::BACKGROUND_NICE;
use strata_persist::{CheckpointPriority, Mode, Persistence};

/// `comm` of the checkpoint threads, cut to the kernel's 15 bytes.
const CHECKPOINT_COMM: &str = "strata-checkpoi";

/// Nice values of this process's threads named like checkpoint threads.
fn checkpoint_thread_nices() -> Vec<i32> {
    let mut found = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let path = task.path();
        let Ok(comm) = std::fs::read_to_string(path.join("comm")) else {
            continue; // the thread ended meanwhile
        };
        if comm.trim_end() != CHECKPOINT_COMM {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(path.join("stat")) else {
            continue;
        };
        // Fields after the parenthesised name; nice is field 19 of stat(5).
        let rest = &stat[stat.rfind(')').unwrap() + 2..];
        let nice = rest.split(' ').nth(19 - 3).unwrap().parse().unwrap();
        found.push(nice);
    }
    found
}

fn own_nice() -> i32 {
    rustix::process::getpriority_process(None).unwrap()
}

/// Starts a slow background checkpoint (paced to take most of a second) at
/// `priority` and returns the nice values seen while it runs.
fn nices_during_a_checkpoint(priority: CheckpointPriority) -> Vec<i32> {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let ks = keyspace(&clock);
    let mut config = config(Mode::Async {
        sync_interval: Duration::from_millis(10),
    });
    config.checkpoint_priority = priority;
    config.checkpoint_io_rate = 64 << 10;
    let p = Persistence::open_in(
        ks.clone(),
        arc(&MemDirectory::new()),
        arc(&MemDirectory::new()),
        config,
    )
    .unwrap();
    let value = [7u8; 100];
    for i in 0..400u32 {
        let item = NewItem {
            value: value[..].into(),
            flags: 0,
            expires_at: None,
        };
        ks.store().set(format!("k{i}").as_bytes(), item).unwrap();
    }
    p.start_checkpoint().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let seen = loop {
        let seen = checkpoint_thread_nices();
        // The trigger thread has the same name; wait for the writer too.
        if seen.len() >= 2 || Instant::now() > deadline {
            break seen;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    p.close().unwrap();
    seen
}

/// One test, not two: tests run in parallel threads of one process, and
/// each would see the other's checkpoint threads.
#[test]
fn checkpoint_threads_run_at_the_configured_priority_and_requests_keep_theirs() {
    let base = own_nice();

    let seen = nices_during_a_checkpoint(CheckpointPriority::Background);
    assert!(
        seen.len() >= 2,
        "trigger and writer threads not both seen: {seen:?}"
    );
    let lowered = (base + BACKGROUND_NICE).min(19);
    assert!(
        seen.iter().all(|&n| n == lowered),
        "{seen:?}, wanted {lowered}"
    );
    assert_eq!(own_nice(), base, "the caller's thread is untouched");

    // The writer thread ends just after `close` returns.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !checkpoint_thread_nices().is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let seen = nices_during_a_checkpoint(CheckpointPriority::Normal);
    assert!(
        seen.len() >= 2,
        "trigger and writer threads not both seen: {seen:?}"
    );
    assert!(seen.iter().all(|&n| n == base), "{seen:?}, wanted {base}");
}
