//! A full log disk at the persistence level: a change applied before the
//! log stalled becomes durable once space is freed; a change asked for
//! while it is stalled is refused before it is applied (never visible, never
//! in the log); writes resume without a restart; and a power cut afterwards
//! keeps exactly the changes that were accepted.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use strata_device::{Directory, FaultyDirectory, MemDirectory};
use strata_kv::{KvError, ManualClock, NewItem, Store};
use strata_persist::{Durability, Persistence};

fn item(v: &[u8]) -> NewItem<'_> {
    NewItem {
        value: v.into(),
        flags: 0,
        expires_at: None,
    }
}

fn used(dir: &MemDirectory) -> u64 {
    dir.list()
        .unwrap()
        .iter()
        .map(|n| dir.open(n).unwrap().len().unwrap())
        .sum()
}

fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn get(ks: &strata_kv::Keyspace, key: &[u8]) -> Option<Vec<u8>> {
    ks.store().get(key, |i| i.value.to_vec())
}

#[test]
fn a_full_log_disk_refuses_new_writes_and_resumes_once_space_is_freed() {
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let ks = keyspace(&clock);
    let mem = MemDirectory::new();
    let faulty = FaultyDirectory::new(arc(&mem));
    let faults = faulty.faults();
    let config = config(Durability::Sync);
    let p = Persistence::open_in(
        ks.clone(),
        Arc::new(faulty),
        arc(&MemDirectory::new()),
        config.clone(),
    )
    .unwrap();
    ks.store().set(b"before", item(b"1")).unwrap();
    p.log().wait_durable(strata_kv::take_written_lsn()).unwrap();

    faults.set_capacity(used(&mem) + 10);
    // Past the zeros the log wrote ahead, records are applied and
    // journaled but cannot be written: the log stalls, and the changes
    // wait (sync-mode replies would be held).
    let value = vec![b'p'; 300_000];
    let mut pending = Vec::new();
    let mut lsn = 0;
    while p.log().write_stalled().is_none() {
        assert!(pending.len() < 20, "the log never stalled");
        let key = format!("pending{}", pending.len()).into_bytes();
        ks.store().set(&key, item(&value)).unwrap();
        lsn = strata_kv::take_written_lsn();
        pending.push(key);
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(p.log().durable_lsn() < lsn);
    let status = p.status();
    assert_eq!(
        status.log_write_stalled.as_deref(),
        Some("No space left on device")
    );
    assert!(status.log_error.is_none());

    // New changes are refused before they are applied.
    let refused = ks.store().set(b"refused", item(b"x"));
    match refused {
        Err(KvError::JournalStalled { cause }) => assert_eq!(cause, "No space left on device"),
        other => panic!("expected JournalStalled, got {other:?}"),
    }
    assert!(matches!(
        ks.store().delete(b"before"),
        Err(KvError::JournalStalled { .. })
    ));
    assert_eq!(
        get(&ks, b"refused"),
        None,
        "a refused write must not be visible"
    );
    assert_eq!(get(&ks, b"before"), Some(b"1".to_vec()));

    // Space is freed: the held change becomes durable, writes resume.
    faults.heal();
    p.log().wait_durable(lsn).unwrap();
    eventually("the stall ends", || p.log().write_stalled().is_none());
    ks.store().set(b"after", item(b"2")).unwrap();
    p.log().wait_durable(strata_kv::take_written_lsn()).unwrap();
    assert!(p.status().log_write_stalled.is_none());

    drop(p);
    let ks2 = keyspace(&clock);
    let _p2 = Persistence::open_in(
        ks2.clone(),
        arc(&mem.crash()),
        arc(&MemDirectory::new()),
        config,
    )
    .unwrap();
    assert_eq!(get(&ks2, b"before"), Some(b"1".to_vec()));
    for key in &pending {
        assert_eq!(get(&ks2, key).as_ref(), Some(&value));
    }
    assert_eq!(get(&ks2, b"after"), Some(b"2".to_vec()));
    assert_eq!(get(&ks2, b"refused"), None);
    assert_eq!(ks2.store().len(), 2 + pending.len() as u64);
}
