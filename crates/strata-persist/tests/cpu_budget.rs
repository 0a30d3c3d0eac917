//! `checkpoint_cpu_pct`: a checkpoint keeps its thread's CPU time within its
//! share of the cores, so it takes at least CPU time / share of wall time.

#![cfg(target_os = "linux")]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use strata_device::MemDirectory;
use strata_kv::{ManualClock, NewItem, Store};
use strata_persist::{Mode, Persistence};

fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[test]
fn a_checkpoint_is_paced_to_its_share_of_the_cores() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let ks = keyspace(&clock);
    let mut config = config(Mode::Async {
        sync_interval: Duration::from_millis(10),
    });
    config.checkpoint_cpu_pct = 1;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let share = cores as f64 / 100.0;
    assert!(
        share < 1.0,
        "a 1% budget is a whole core on {cores} cores: nothing to test"
    );
    let p = Persistence::open_in(
        ks.clone(),
        arc(&MemDirectory::new()),
        arc(&MemDirectory::new()),
        config,
    )
    .unwrap();
    for i in 0..6_000u32 {
        let item = NewItem {
            value: [3u8; 40][..].into(),
            flags: 0,
            expires_at: None,
        };
        ks.store().set(format!("key:{i}").as_bytes(), item).unwrap();
    }
    // SAVE runs on this thread, so its CPU time is this thread's.
    let (cpu0, wall0) = (thread_cpu(), Instant::now());
    let report = p.checkpoint().unwrap();
    let (cpu, wall) = (thread_cpu() - cpu0, wall0.elapsed());
    assert_eq!(report.snapshot.records, 6_000);
    // Unpaced, wall time would be about the CPU time; paced, about
    // CPU / share (less the last, unpaid step and the finish: hence the
    // margin).
    let floor = cpu.div_f64(share) / 3;
    assert!(
        wall >= floor,
        "cpu {cpu:?} wall {wall:?}, wanted at least {floor:?}"
    );
    p.close().unwrap();
}
