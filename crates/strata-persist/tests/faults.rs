//! Failing devices and damaged files: a failing log sync poisons the log
//! (writes refused, reads served), a full snapshot device fails only the
//! checkpoint, a damaged snapshot or log refuses the start unless the
//! operator asks for the last good point, and checkpoints taken under
//! concurrent writes still recover the exact state.

use crate::common;

use std::sync::Arc;

use common::*;
use strata_device::{Directory, FaultyDirectory, MemDirectory};
use strata_kv::{KvError, ManualClock, NewItem, Store};
use strata_log::RecoveryPolicy;
use strata_persist::{Durability, PersistError, Persistence};

fn item(v: &[u8]) -> NewItem<'_> {
    NewItem {
        value: v.into(),
        flags: 0,
        expires_at: None,
    }
}

#[test]
fn a_failing_log_sync_refuses_writes_and_keeps_serving_reads() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let ks = keyspace(&clock);
    let log_dir = FaultyDirectory::new(arc(&MemDirectory::new()));
    let faults = log_dir.faults();
    let p = Persistence::open_in(
        ks.clone(),
        Arc::new(log_dir),
        arc(&MemDirectory::new()),
        config(Durability::Sync),
    )
    .unwrap();
    ks.store().set(b"before", item(b"1")).unwrap();
    let lsn = strata_kv::take_written_lsn();
    p.log().wait_durable(lsn).unwrap();

    faults.fail_syncs_after(0);
    ks.store().set(b"doomed", item(b"2")).unwrap();
    let lsn = strata_kv::take_written_lsn();
    assert!(p.log().wait_durable(lsn).is_err(), "never acknowledged");
    let waited = futures_lite_block_on(p.durable(lsn));
    assert!(waited.unwrap_err().contains("command log failed"));

    let refused = ks.store().set(b"after", item(b"3"));
    assert!(
        matches!(refused, Err(KvError::NotDurable { .. })),
        "{refused:?}"
    );
    assert!(matches!(
        ks.store().delete(b"before"),
        Err(KvError::NotDurable { .. })
    ));
    assert!(matches!(
        ks.store().flush(),
        Err(KvError::NotDurable { .. })
    ));
    assert_eq!(
        ks.store().get(b"before", |i| i.value.to_vec()),
        Some(b"1".to_vec())
    );
    let status = p.status();
    assert!(status.log_error.is_some());
    assert!(p.checkpoint().is_err(), "no checkpoint on a failed log");
}

/// Polls a future to completion on this thread (the log's futures are
/// woken by its flusher thread).
fn futures_lite_block_on<F: std::future::Future>(f: F) -> F::Output {
    let rt = tokio_rt();
    rt.block_on(f)
}

fn tokio_rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_full_snapshot_device_fails_the_checkpoint_but_nothing_else() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let ks = keyspace(&clock);
    let log_dir = MemDirectory::new();
    let snap = MemDirectory::new();
    let faulty = FaultyDirectory::new(arc(&snap));
    let faults = faulty.faults();
    let p = Persistence::open_in(
        ks.clone(),
        arc(&log_dir),
        Arc::new(faulty),
        config(Durability::Sync),
    )
    .unwrap();
    for i in 0..500u32 {
        ks.store()
            .set(format!("k{i}").as_bytes(), item(&[7u8; 100]))
            .unwrap();
    }
    p.checkpoint().unwrap();
    faults.set_capacity(20_000);
    ks.store().set(b"later", item(b"x")).unwrap();
    let err = p.checkpoint().unwrap_err();
    assert!(err.to_string().contains("snapshot"), "{err}");
    let status = p.status();
    assert!(!status.last_checkpoint_ok);
    assert_eq!(status.checkpoints, 1);
    // Writes go on; the old snapshot plus the log still recover everything.
    ks.store().set(b"after", item(b"y")).unwrap();
    p.log().wait_durable(strata_kv::take_written_lsn()).unwrap();
    let names = strata_snapshot::snapshots(&snap).unwrap();
    assert_eq!(
        names.len(),
        1,
        "the failed snapshot left no file: {names:?}"
    );
    drop(p);
    let ks2 = keyspace(&clock);
    let p2 = Persistence::open_in(
        ks2.clone(),
        arc(&log_dir.crash()),
        arc(&snap.crash()),
        config(Durability::Sync),
    )
    .unwrap();
    assert_eq!(ks2.store().len(), 502);
    assert_eq!(p2.recovery().snapshot_items, 500);
}

/// Writes a few generations with checkpoints, then returns the directories.
fn two_snapshots() -> (MemDirectory, MemDirectory, Arc<ManualClock>) {
    let mut w = World::new(Durability::Sync);
    for gen in 0..2u8 {
        for i in 0..200u32 {
            w.ks.store()
                .set(format!("k{i}").as_bytes(), item(&[gen; 64]))
                .unwrap();
        }
        w.ack();
        // Keep both snapshots: copy the first before the second removes it.
        w.p().checkpoint().unwrap();
        if gen == 0 {
            let first = strata_snapshot::snapshots(&w.snap_dir).unwrap()[0].clone();
            let bytes = read_all(&w.snap_dir, &first);
            let keep = format!("{first}.keep");
            write_all(&w.snap_dir, &keep, &bytes);
        }
    }
    w.restart_clean();
    // Put the first snapshot back next to the second.
    let first = strata_snapshot::snapshots(&w.snap_dir).unwrap();
    let names = w.snap_dir.list().unwrap();
    let keep = names.iter().find(|n| n.ends_with(".keep")).unwrap().clone();
    let bytes = read_all(&w.snap_dir, &keep);
    write_all(&w.snap_dir, keep.trim_end_matches(".keep"), &bytes);
    w.snap_dir.remove(&keep).unwrap();
    assert_eq!(first.len(), 1);
    let (log, snap) = (w.log_dir.clone(), w.snap_dir.clone());
    drop(w.p.take());
    (log, snap, w.clock.clone())
}

fn read_all(dir: &MemDirectory, name: &str) -> Vec<u8> {
    let dev = dir.open(name).unwrap();
    let mut buf = vec![0u8; dev.len().unwrap() as usize];
    dev.read_exact_at(&mut buf, 0).unwrap();
    buf
}

fn write_all(dir: &MemDirectory, name: &str, bytes: &[u8]) {
    let dev = dir.create(name).unwrap();
    dev.write_all_at(bytes, 0).unwrap();
    dev.sync().unwrap();
    dir.sync_names().unwrap();
}

#[test]
fn a_corrupt_newest_snapshot_refuses_the_start_unless_last_good_is_asked() {
    let (log, snap, clock) = two_snapshots();
    let names = strata_snapshot::snapshots(&snap).unwrap();
    assert_eq!(names.len(), 2);
    let newest = names[1].clone();
    let mut bytes = read_all(&snap, &newest);
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    write_all(&snap, &newest, &bytes);

    let err = Persistence::open_in(
        keyspace(&clock),
        arc(&log),
        arc(&snap),
        config(Durability::Sync),
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, PersistError::Snapshot(_)), "{text}");
    assert!(
        text.contains(&newest) && text.contains("offset"),
        "names file and offset: {text}"
    );

    // Last-good falls back to the older snapshot. The log records between
    // it and the damaged one were removed with that checkpoint, so the
    // second generation is lost, and recovery says so.
    let mut cfg = config(Durability::Sync);
    cfg.recovery = RecoveryPolicy::TruncateToLastGood;
    let ks = keyspace(&clock);
    let p = Persistence::open_in(ks.clone(), arc(&log), arc(&snap), cfg).unwrap();
    let skipped = &p.recovery().skipped_damage;
    assert!(skipped.iter().any(|d| d.contains(&newest)), "{skipped:?}");
    assert!(skipped.iter().any(|d| d.contains("missing")), "{skipped:?}");
    assert_eq!(ks.store().len(), 200);
    assert_eq!(
        ks.store().get(b"k5", |i| i.value[0]),
        Some(0),
        "the older generation"
    );
}

#[test]
fn corruption_in_the_middle_of_the_log_refuses_the_start() {
    let mut w = World::new(Durability::Sync);
    for i in 0..2000u32 {
        w.ks.store()
            .set(format!("k{i}").as_bytes(), item(&[1u8; 40]))
            .unwrap();
    }
    w.ack();
    w.restart_clean();
    let clock = w.clock.clone();
    let log = w.log_dir.clone();
    let snap = w.snap_dir.clone();
    drop(w.p.take());
    let first = log.list().unwrap().into_iter().min().unwrap();
    let mut bytes = read_all(&log, &first);
    bytes[100] ^= 0x55;
    write_all(&log, &first, &bytes);
    let err = Persistence::open_in(
        keyspace(&clock),
        arc(&log),
        arc(&snap),
        config(Durability::Sync),
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&first), "names the file: {text}");
    let mut cfg = config(Durability::Sync);
    cfg.recovery = RecoveryPolicy::TruncateToLastGood;
    let ks = keyspace(&clock);
    let p = Persistence::open_in(ks.clone(), arc(&log), arc(&snap), cfg).unwrap();
    assert!(p.recovery().bytes_dropped > 0);
    assert!(ks.store().len() < 2000);
}

#[test]
fn a_checkpoint_under_concurrent_writes_recovers_the_exact_state() {
    let mut w = World::new(Durability::Async {
        sync_interval: std::time::Duration::from_millis(10),
    });
    for i in 0..5000u32 {
        w.ks.store()
            .set(format!("k{i}").as_bytes(), item(&i.to_le_bytes()))
            .unwrap();
    }
    let ks = w.ks.clone();
    let writer = std::thread::spawn(move || {
        for round in 0..20u32 {
            for i in (0..5000u32).step_by(7) {
                let key = format!("k{}", (i + round) % 5000);
                if (i + round) % 11 == 0 {
                    ks.store().delete(key.as_bytes()).unwrap();
                } else {
                    let v = (i * round).to_le_bytes();
                    ks.store().set(key.as_bytes(), item(&v)).unwrap();
                }
            }
        }
    });
    for _ in 0..3 {
        w.p().checkpoint().unwrap();
    }
    writer.join().unwrap();
    let before = w.live();
    w.p().log().flush().unwrap();
    w.power_cut(None);
    assert_eq!(w.live(), before);
}
