//! Access records through the `Store` API with a manual clock: a write
//! starts "not fetched, accessed now", a counted hit sets both, `peek`
//! changes nothing, a touch (new expiry) counts as an access, an overwrite
//! starts afresh (memcached: a new item replaces the old one), and the
//! record survives compaction moving the item and the table growing.

use std::sync::Arc;

use strata_kv::{Access, Keyspace, KeyspaceConfig, ManualClock, Mutation, NewItem, Store};

fn item(value: &[u8]) -> NewItem<'_> {
    NewItem {
        value: value.into(),
        flags: 0,
        expires_at: None,
    }
}

fn access(fetched: bool, idle_secs: u64) -> Option<Access> {
    Some(Access { fetched, idle_secs })
}

#[test]
fn hits_writes_touches_and_peeks() {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let ks = Keyspace::new(KeyspaceConfig::default(), clock.clone());
    let mut store = ks.store();
    assert_eq!(store.access(b"k"), None);
    store.set(b"k", item(b"v")).unwrap();
    assert_eq!(store.access(b"k"), access(false, 0));
    clock.advance_ms(5_000);
    assert_eq!(store.access(b"k"), access(false, 5));
    // peek is no access; get is.
    store.peek(b"k", |_| ());
    assert_eq!(store.access(b"k"), access(false, 5));
    store.get(b"k", |_| ());
    assert_eq!(store.access(b"k"), access(true, 0));
    clock.advance_ms(3_000);
    assert_eq!(store.access(b"k"), access(true, 3));
    // A touch keeps "fetched" and counts as an access.
    store
        .update(b"k", |_| (Mutation::SetExpiry(Some(1_000_000_000)), ()))
        .unwrap();
    assert_eq!(store.access(b"k"), access(true, 0));
    // An overwrite is a new item.
    clock.advance_ms(2_000);
    store.set(b"k", item(b"w")).unwrap();
    assert_eq!(store.access(b"k"), access(false, 0));
    // Under an exclusive section too.
    ks.exclusive(|ex| {
        ex.get(b"k", |_| ());
        assert_eq!(ex.access(b"k"), access(true, 0));
    });
    store.delete(b"k").unwrap();
    assert_eq!(store.access(b"k"), None);
}

#[test]
fn records_follow_items_through_growth_and_compaction() {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let config = KeyspaceConfig {
        shards: 1,
        ..KeyspaceConfig::default()
    };
    let ks = Keyspace::new(config, clock.clone());
    let mut store = ks.store();
    let value = [7u8; 400];
    for i in 0..2_000u32 {
        store.set(format!("k{i}").as_bytes(), item(&value)).unwrap();
    }
    // Fetch the even keys at second 10.
    clock.advance_ms(10_000);
    for i in (0..2_000u32).step_by(2) {
        store.get(format!("k{i}").as_bytes(), |_| ());
    }
    // Overwrite most of the odd keys with a longer value (garbage for
    // compaction: one as long would be rewritten in place) and add many
    // more (the table grows several times).
    clock.advance_ms(10_000);
    let longer = [7u8; 401];
    for i in (1..2_000u32).step_by(2).filter(|i| i % 7 != 0) {
        store
            .set(format!("k{i}").as_bytes(), item(&longer))
            .unwrap();
    }
    for i in 2_000..40_000u32 {
        store.set(format!("k{i}").as_bytes(), item(b"x")).unwrap();
    }
    let mut compacted = 0;
    for _ in 0..50 {
        compacted += ks.run_maintenance().compacted;
    }
    assert!(compacted > 0, "compaction moved items");
    clock.advance_ms(10_000);
    for i in 0..2_000u32 {
        let got = store.access(format!("k{i}").as_bytes());
        let want = match (i % 2, i % 7) {
            (0, _) => access(true, 20),
            (_, 0) => access(false, 30),
            _ => access(false, 10),
        };
        assert_eq!(got, want, "k{i}");
    }
}
