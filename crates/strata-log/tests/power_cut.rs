//! Simulated power cuts: random appends, waits, flushes and rotations on a
//! `MemDirectory`, then `crash()` (only synced bytes survive) or
//! `crash_torn(seed)` (plus a random, possibly torn, prefix of the unsynced
//! writes). Reopening must give a gap-free prefix of what was appended, in
//! order, holding at least every record that was acknowledged as durable.

use crate::common;

use std::time::Duration;

use common::*;
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use strata_device::{Directory, MemDirectory};
use strata_log::{CommandLog, DamageKind, Durability, LogConfig, RecoveryPolicy};

#[derive(Clone, Copy, Debug)]
enum Cut {
    Clean,
    Torn,
}

/// Runs `cycles` rounds of random operations, each ending in a power cut,
/// and checks what every restart finds.
fn power_cuts(seed: u64, cut: Cut, durability: Durability, cycles: usize) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let config = LogConfig::new(durability).with_segment_size(SMALL_SEGMENT);
    let mut dir = MemDirectory::new();
    // model[i] is the record with LSN i + 1.
    let mut model: Vec<(u8, Vec<u8>)> = Vec::new();
    for _ in 0..cycles {
        let (log, _) = CommandLog::open(arc(&dir), config.clone(), RecoveryPolicy::Strict).unwrap();
        assert_eq!(log.last_lsn(), model.len() as u64);
        let mut acked = 0;
        for _ in 0..rng.gen_range(1..150) {
            match rng.gen_range(0..20) {
                0..=13 => {
                    let len = if rng.gen_ratio(1, 50) {
                        6000
                    } else {
                        rng.gen_range(0..300)
                    };
                    let body: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                    let kind = rng.gen();
                    let lsn = log.append(kind, &body).unwrap();
                    model.push((kind, body));
                    assert_eq!(lsn, model.len() as u64);
                }
                14..=16 if !model.is_empty() => {
                    let lsn = rng.gen_range(1..=model.len() as u64);
                    log.wait_durable(lsn).unwrap();
                    assert!(log.durable_lsn() >= lsn);
                    acked = acked.max(lsn);
                }
                17 => acked = acked.max(log.flush().unwrap()),
                18 => {
                    let first = log.rotate().unwrap();
                    assert!(first <= log.last_lsn() + 1);
                }
                _ => std::thread::yield_now(),
            }
        }
        let crashed = match cut {
            Cut::Clean => dir.crash(),
            Cut::Torn => dir.crash_torn(rng.gen()),
        };
        // The old log keeps writing into `dir`; the crashed copy is apart.
        drop(log);
        dir = crashed;

        let (log, report) = CommandLog::open(arc(&dir), config.clone(), RecoveryPolicy::Strict)
            .unwrap_or_else(|e| panic!("seed {seed}: reopen after {cut:?} cut failed: {e}"));
        let recovered = report.last_lsn;
        assert!(
            recovered >= acked,
            "seed {seed}: acknowledged LSN {acked} lost, recovered {recovered}"
        );
        assert!(recovered <= model.len() as u64);
        if let Cut::Clean = cut {
            // Syncs happen at record boundaries: nothing torn to cut.
            assert_eq!(report.bytes_dropped, 0, "seed {seed}");
        }
        if let Some(damage) = &report.damage {
            assert_eq!(damage.kind, DamageKind::TornTail, "seed {seed}: {damage:?}");
        }
        drop(log);
        let records = replay_all(&dir as &dyn Directory).unwrap();
        assert_eq!(records.len() as u64, recovered, "seed {seed}");
        for (i, (lsn, kind, body)) in records.iter().enumerate() {
            assert_eq!(*lsn, i as u64 + 1, "seed {seed}: gap");
            assert_eq!(
                (kind, body),
                (&model[i].0, &model[i].1),
                "seed {seed}: LSN {lsn} differs"
            );
        }
        model.truncate(recovered as usize);
    }
}

fn cases() -> u32 {
    if full() {
        256
    } else {
        6
    }
}

const ASYNC_10MS: Durability = Durability::Async {
    sync_interval: Duration::from_millis(10),
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn sync_mode_survives_clean_cuts(seed in any::<u64>()) {
        power_cuts(seed, Cut::Clean, Durability::Sync, 3);
    }

    #[test]
    fn sync_mode_survives_torn_cuts(seed in any::<u64>()) {
        power_cuts(seed, Cut::Torn, Durability::Sync, 3);
    }

    #[test]
    fn async_mode_survives_torn_cuts(seed in any::<u64>()) {
        power_cuts(seed, Cut::Torn, ASYNC_10MS, 3);
    }
}

/// Records written but not synced (async mode, long interval), then a torn
/// cut: over a few seeds some cut lands inside a record, and the report says
/// how many bytes were dropped.
#[test]
fn torn_cut_reports_dropped_bytes() {
    // No preallocation: the test watches the file grow record by record.
    let config = LogConfig::new(Durability::Async {
        sync_interval: Duration::from_secs(3600),
    })
    .with_preallocation(0);
    let dir = MemDirectory::new();
    let (log, _) = open(arc(&dir), config.clone());
    for lsn in 1..=20 {
        log.append(1, &body_of(lsn, 100)).unwrap();
    }
    assert_eq!(log.flush().unwrap(), 20);
    for lsn in 21..=60 {
        log.append(1, &body_of(lsn, 100)).unwrap();
    }
    // Let the flusher write them (it does within a few milliseconds) without
    // syncing; `stats` cannot see the write, so watch the file grow.
    let name = segment_name(1);
    let want = SEGMENT_HEADER + 60 * RECORD_100;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while file_len(&dir, &name) < want {
        assert!(
            std::time::Instant::now() < deadline,
            "flusher did not write"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut dropped_somewhere = false;
    for seed in 0..32 {
        let crashed = dir.crash_torn(seed);
        let (again, report) = open(arc(&crashed), config.clone());
        assert!(report.last_lsn >= 20 && report.last_lsn <= 60);
        let kept = file_len(&crashed, &name);
        assert_eq!(kept, SEGMENT_HEADER + report.last_lsn * RECORD_100);
        if report.bytes_dropped > 0 {
            dropped_somewhere = true;
            let damage = report.damage.expect("damage reported");
            assert_eq!(damage.kind, DamageKind::TornTail);
            assert_eq!(damage.offset, kept);
        }
        drop(again);
    }
    assert!(dropped_somewhere, "no seed tore a record");
    drop(log);
}

/// Long run for the full suite: many cycles on one directory.
#[test]
fn many_cycles_in_the_full_suite() {
    if !full() {
        return;
    }
    for seed in 0..64 {
        power_cuts(seed, Cut::Torn, Durability::Sync, 20);
    }
}
