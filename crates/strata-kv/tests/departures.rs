//! The departure observer: told once of each item that expires (found by
//! a write, a read, a transaction's read or the background reclaimer) or
//! is evicted, with its key; never of deletes; and reads leave expired
//! items alone when no observer is set.

use std::borrow::Cow;
use std::sync::Arc;

use parking_lot::Mutex;
use strata_kv::{
    Departure, DepartureObserver, EvictionPolicy, Keyspace, KeyspaceConfig, ManualClock, Mutation,
    NewItem, Store,
};

#[derive(Default)]
struct Log(Mutex<Vec<(Vec<u8>, Departure)>>);

impl DepartureObserver for Log {
    fn departed(&self, key: &[u8], why: Departure) {
        self.0.lock().push((key.to_vec(), why));
    }
}

impl Log {
    fn take(&self) -> Vec<(Vec<u8>, Departure)> {
        std::mem::take(&mut *self.0.lock())
    }
}

fn expiring(at: u64) -> NewItem<'static> {
    NewItem {
        value: Cow::Borrowed(b"v"),
        flags: 0,
        expires_at: Some(at),
    }
}

fn expired(key: &str) -> (Vec<u8>, Departure) {
    (key.as_bytes().to_vec(), Departure::Expired)
}

#[test]
fn each_expiry_is_reported_once() {
    let clock = Arc::new(ManualClock::new(1_000));
    let ks = Keyspace::new(KeyspaceConfig::default(), clock.clone());
    let log = Arc::new(Log::default());
    let mut store = ks.store();
    for key in ["read", "write", "bg", "deleted", "kind", "tx"] {
        store.set(key.as_bytes(), expiring(1_100)).expect("set");
    }
    store.delete(b"deleted").expect("delete");
    // No observer: a read leaves the expired item to the reclaimer.
    clock.advance_ms(200);
    assert!(store.get(b"read", |_| ()).is_none());
    assert_eq!(ks.stats().expired, 0);
    let id = ks.add_departure_observer(log.clone());
    assert!(store.get(b"read", |_| ()).is_none());
    assert_eq!(log.take(), vec![expired("read")]);
    assert!(store.kind(b"kind").is_none());
    assert_eq!(log.take(), vec![expired("kind")]);
    store
        .update(b"write", |_| (Mutation::Put(expiring(5_000)), ()))
        .expect("update");
    assert_eq!(log.take(), vec![expired("write")]);
    ks.exclusive(|tx| tx.get(b"tx", |_| ()));
    assert_eq!(log.take(), vec![expired("tx")]);
    ks.run_maintenance();
    assert_eq!(log.take(), vec![expired("bg")]);
    ks.run_maintenance();
    assert!(store.get(b"bg", |_| ()).is_none());
    assert_eq!(log.take(), vec![]);
    assert!(ks.remove_departure_observer(id));
    store.set(b"late", expiring(1_300)).expect("set");
    clock.advance_ms(200);
    ks.run_maintenance();
    assert_eq!(log.take(), vec![]);
}

#[test]
fn every_eviction_is_reported() {
    let clock = Arc::new(ManualClock::new(1_000));
    let config = KeyspaceConfig {
        memory_limit: 1 << 20,
        eviction: EvictionPolicy::Clock,
        shards: 4,
        ..KeyspaceConfig::default()
    };
    let ks = Keyspace::new(config, clock);
    let log = Arc::new(Log::default());
    ks.add_departure_observer(log.clone());
    let mut store = ks.store();
    let value = vec![b'x'; 10_000];
    for i in 0..300 {
        let item = NewItem {
            value: Cow::Borrowed(&value),
            flags: 0,
            expires_at: None,
        };
        store.set(format!("k{i}").as_bytes(), item).expect("set");
    }
    let reported = log.take();
    assert!(!reported.is_empty());
    assert_eq!(reported.len() as u64, ks.stats().evictions);
    for (key, why) in &reported {
        assert_eq!(*why, Departure::Evicted);
        assert!(store.get(key, |_| ()).is_none());
    }
}
