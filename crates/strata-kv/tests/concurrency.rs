//! Many threads on one keyspace: scans during growth, exclusive batches,
//! watches and CAS uniqueness.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use strata_kv::{Keyspace, KeyspaceConfig, Mutation, NewItem, Store, SystemClock};

fn item(value: &[u8]) -> NewItem<'_> {
    NewItem {
        value: value.into(),
        flags: 0,
        expires_at: None,
    }
}

fn ks() -> Arc<Keyspace> {
    Keyspace::new(
        KeyspaceConfig {
            shards: 8,
            ..Default::default()
        },
        Arc::new(SystemClock),
    )
}

#[test]
fn scan_sees_every_stable_key_while_the_table_grows_and_shrinks() {
    let ks = ks();
    let mut store = ks.store();
    for i in 0..5_000u32 {
        store
            .set(format!("stable:{i}").as_bytes(), item(b"s"))
            .unwrap();
    }
    let mut seen = HashSet::new();
    let mut cursor = 0;
    let mut step = 0u32;
    loop {
        cursor = store.scan(cursor, 10, &mut |it| {
            seen.insert(it.key.to_vec());
        });
        // Churn between steps: inserts grow tables, deletes leave holes.
        for j in 0..40 {
            let k = format!("churn:{step}:{j}");
            store.set(k.as_bytes(), item(b"c")).unwrap();
            if j % 2 == 0 {
                store.delete(k.as_bytes()).unwrap();
            }
        }
        step += 1;
        if cursor == 0 {
            break;
        }
    }
    for i in 0..5_000u32 {
        assert!(
            seen.contains(format!("stable:{i}").as_bytes()),
            "scan missed stable:{i}"
        );
    }
}

#[test]
fn cas_versions_are_unique_across_threads() {
    let ks = ks();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let ks = ks.clone();
            thread::spawn(move || {
                let mut store = ks.store();
                let mut cas = Vec::new();
                for i in 0..5_000 {
                    let key = format!("t{t}:{}", i % 100);
                    store.set(key.as_bytes(), item(b"v")).unwrap();
                    cas.push(store.peek(key.as_bytes(), |it| it.cas).unwrap());
                }
                cas
            })
        })
        .collect();
    let mut all = HashSet::new();
    for h in handles {
        for c in h.join().unwrap() {
            assert!(all.insert(c), "duplicate CAS {c}");
        }
    }
}

#[test]
fn exclusive_batches_are_not_interleaved_with_other_writers() {
    let ks = ks();
    ks.store().set(b"a", item(b"0")).unwrap();
    ks.store().set(b"b", item(b"0")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    // A writer keeps a == b by writing both inside exclusive batches.
    let writer = {
        let (ks, stop) = (ks.clone(), stop.clone());
        thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let v = n.to_string();
                ks.exclusive(|s| {
                    s.set(b"a", item(v.as_bytes())).unwrap();
                    s.set(b"b", item(v.as_bytes())).unwrap();
                });
            }
        })
    };
    for _ in 0..20_000 {
        let (a, b) = ks.exclusive(|s| {
            (
                s.get(b"a", |i| i.value.to_vec()),
                s.get(b"b", |i| i.value.to_vec()),
            )
        });
        assert_eq!(a, b);
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
}

#[test]
fn watch_sees_changes_from_any_caller_and_flush_and_expiry() {
    let ks = ks();
    let mut store = ks.store();
    store.set(b"w", item(b"1")).unwrap();
    let watch = ks.watch(b"w");
    assert!(ks.exclusive(|s| s.watch_intact(&watch)));
    store
        .update(b"w", |_| (Mutation::Put(item(b"2")), ()))
        .unwrap();
    assert!(!ks.exclusive(|s| s.watch_intact(&watch)));
    drop(watch);

    let watch = ks.watch(b"absent");
    store
        .update(b"other", |_| (Mutation::Put(item(b"x")), ()))
        .unwrap();
    assert!(ks.exclusive(|s| s.watch_intact(&watch)));
    // A flush changes only keys that existed (Redis 7).
    let present = ks.watch(b"other");
    store.flush().unwrap();
    assert!(ks.exclusive(|s| s.watch_intact(&watch)));
    assert!(!ks.exclusive(|s| s.watch_intact(&present)));
    drop(watch);
    drop(present);

    let now = ks.now_ms();
    store
        .set(
            b"e",
            NewItem {
                value: (&b"v"[..]).into(),
                flags: 0,
                expires_at: Some(now + 30),
            },
        )
        .unwrap();
    let watch = ks.watch(b"e");
    thread::sleep(std::time::Duration::from_millis(40));
    assert!(
        !ks.exclusive(|s| s.watch_intact(&watch)),
        "expiry counts as a change"
    );
}

#[test]
fn readers_and_writers_on_all_shards_agree() {
    let ks = ks();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let ks = ks.clone();
            thread::spawn(move || {
                let mut store = ks.store();
                for i in 0..20_000u32 {
                    let key = format!("t{t}:{}", i % 500);
                    let val = format!("{t}:{i}");
                    store.set(key.as_bytes(), item(val.as_bytes())).unwrap();
                    let got = store.get(key.as_bytes(), |it| it.value.to_vec()).unwrap();
                    assert_eq!(got, val.as_bytes());
                    if i % 7 == 0 {
                        ks.run_maintenance();
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(ks.store().len(), 2_000);
}

/// `exclusive_keys` holds only its keys' shards: while one caller holds
/// key `a`, callers on other shards run, and a caller on `a` waits.
#[test]
fn exclusive_keys_on_other_shards_run_in_parallel() {
    use std::sync::mpsc;
    use std::time::Duration;
    let ks = ks();
    let (held_tx, held_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let holder = {
        let ks = ks.clone();
        thread::spawn(move || {
            ks.exclusive_keys([&b"a"[..]], |store| {
                store.set(b"a", item(b"held")).unwrap();
                held_tx.send(()).unwrap();
                release_rx.recv_timeout(Duration::from_secs(10)).unwrap();
            })
        })
    };
    held_rx.recv().unwrap();
    let (done_tx, done_rx) = mpsc::channel();
    let mut others = Vec::new();
    for i in 0..20 {
        let ks = ks.clone();
        let done_tx = done_tx.clone();
        others.push(thread::spawn(move || {
            let key = format!("other-{i}").into_bytes();
            ks.exclusive_keys([&key[..]], |store| store.set(&key, item(b"x")).unwrap());
            done_tx.send(i).unwrap();
        }));
    }
    let same = {
        let ks = ks.clone();
        let done_tx = done_tx.clone();
        thread::spawn(move || {
            ks.exclusive_keys([&b"a"[..]], |store| {
                let seen = store.get(b"a", |i| i.value.to_vec());
                assert_eq!(seen.as_deref(), Some(&b"held"[..]));
            });
            done_tx.send(usize::MAX).unwrap();
        })
    };
    // Some of the 20 keys are on other shards (8 shards): they finish
    // while `a` is held; the caller on `a` does not.
    let first = done_rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert_ne!(first, usize::MAX, "a caller on the held shard ran");
    thread::sleep(Duration::from_millis(100));
    let finished: Vec<usize> = done_rx.try_iter().collect();
    assert!(
        !finished.contains(&usize::MAX),
        "a caller on the held shard ran"
    );
    release_tx.send(()).unwrap();
    holder.join().unwrap();
    same.join().unwrap();
    for other in others {
        other.join().unwrap();
    }
}

/// A long exclusive section (`exclusive_drained`) closes the entry gate
/// for its whole length: a batch entering meanwhile is turned away, and
/// `gate_open` resolves only once it ends, also when awaited many times
/// over while sections come and go (no notice is missed).
#[test]
fn the_entry_gate_is_closed_for_a_long_section_and_opens_after_it() {
    use std::sync::mpsc;
    use std::time::Duration;

    let ks = Keyspace::new(KeyspaceConfig::default(), Arc::new(SystemClock));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let (held, is_held) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    let section = {
        let ks = ks.clone();
        std::thread::spawn(move || {
            ks.exclusive_drained(|_| {
                held.send(()).unwrap();
                released.recv().unwrap();
            })
        })
    };
    is_held.recv().unwrap();
    assert!(!ks.enter().is_open(), "open during the section");
    let within =
        |limit: Duration, wait| rt.block_on(async { tokio::time::timeout(limit, wait).await });
    let waited = within(Duration::from_millis(50), ks.gate_open());
    assert!(waited.is_err(), "resolved while the section runs");
    let opened = ks.gate_open();
    release.send(()).unwrap();
    section.join().unwrap();
    within(Duration::from_secs(5), opened).expect("never opened");
    assert!(ks.enter().is_open());
    // Short sections on another thread while this one waits for each
    // opening: every wait ends.
    let churn = {
        let ks = ks.clone();
        std::thread::spawn(move || {
            for _ in 0..2_000 {
                ks.exclusive_drained(|_| ());
            }
        })
    };
    for _ in 0..2_000 {
        within(Duration::from_secs(5), ks.gate_open()).expect("a wait for the gate never ended");
    }
    churn.join().unwrap();
}

/// A section that takes shards as it reaches them (`exclusive_drained_keys`,
/// a script) still sees and changes the whole keyspace: keys outside the
/// declared ones are locked late, and `len`, `scan`, `random_key` and
/// `flush` first lock every shard.
#[test]
fn a_section_on_some_keys_reaches_the_whole_keyspace() {
    let ks = ks();
    let mut store = ks.store();
    for i in 0..1_000u32 {
        store.set(format!("k:{i}").as_bytes(), item(b"v")).unwrap();
    }
    ks.exclusive_drained_keys([&b"k:0"[..]], |store| {
        assert_eq!(store.len(), 1_000, "len counts every shard");
        let mut seen = HashSet::new();
        let mut cursor = 0;
        loop {
            cursor = store.scan(cursor, 100, &mut |item| {
                seen.insert(item.key.to_vec());
            });
            if cursor == 0 {
                break;
            }
        }
        assert_eq!(seen.len(), 1_000, "scan walks every shard");
        assert!(store.random_key().is_some());
        // Undeclared keys, wherever their shards are.
        for i in 500..600u32 {
            store
                .set(format!("k:{i}").as_bytes(), item(b"changed"))
                .unwrap();
        }
    });
    let mut store = ks.store();
    for i in 500..600u32 {
        let value = store.get(format!("k:{i}").as_bytes(), |i| i.value.to_vec());
        assert_eq!(value.as_deref(), Some(&b"changed"[..]));
    }
    ks.exclusive_drained_keys([&b"k:1"[..]], |store| store.flush().unwrap());
    assert_eq!(ks.store().len(), 0, "flush cleared every shard");
}
