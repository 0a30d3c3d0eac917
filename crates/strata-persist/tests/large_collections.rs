//! Large collections (a head and chunk records, `strata_kv::chunk`)
//! through the command log and checkpoints: recovery from the log alone,
//! from a checkpoint plus the log after it, and after a power cut, gives
//! back every head and chunk, no orphan, no chunk missing, and user keys
//! with a chunk's bytes apart.

use crate::common;

use std::collections::BTreeSet;

use common::large::assert_chunks_whole;
use common::World;
use strata_kv::chunk::chunk_key;
use strata_kv::{Keyspace, NewItem, Store, ValueKind};
use strata_persist::Durability;

type Contents = Vec<(Vec<u8>, Vec<u8>, Vec<Option<Vec<u8>>>)>;

fn make(store: &mut impl Store, key: &[u8], chunks: u32, round: u32) {
    store
        .edit_large(key, |edit| {
            for n in 0..chunks {
                let value = format!("{}#{n}@{round}", String::from_utf8_lossy(key));
                edit.put_chunk(n, ValueKind::SortedSet, value.as_bytes())?;
            }
            edit.put_head(ValueKind::SortedSet, chunks, b"head", None)
        })
        .unwrap()
        .unwrap();
}

fn contents(ks: &Keyspace) -> Contents {
    let mut store = ks.store();
    let mut keys = BTreeSet::new();
    let mut cursor = 0;
    loop {
        cursor = store.scan_keys(cursor, 10, &mut |k| {
            keys.insert(k.to_vec());
        });
        if cursor == 0 {
            break;
        }
    }
    keys.into_iter()
        .map(|key| {
            let (value, chunks) = store
                .edit_large(&key, |edit| {
                    let current = edit.current().unwrap().unwrap();
                    let n = current.chunks.unwrap_or(0);
                    let chunks: Vec<_> = (0..n).map(|i| edit.chunk(i).unwrap()).collect();
                    (current.value, chunks)
                })
                .unwrap();
            (key, value, chunks)
        })
        .collect()
}

fn changes(w: &World, round: u32) {
    let mut store = w.ks.store();
    for i in 0..20u32 {
        make(
            &mut store,
            format!("z{i}").as_bytes(),
            1 + (i + round) % 30,
            round,
        );
    }
    store.delete(format!("z{}", round % 20).as_bytes()).unwrap();
    store
        .rename(b"z7", format!("moved{round}").as_bytes(), false)
        .unwrap();
    store
        .edit_large(b"z9", |edit| {
            edit.put_head(ValueKind::SortedSet, 1, b"shrunk", None)
        })
        .unwrap()
        .unwrap();
    let twin = chunk_key(b"z10", 0);
    let item = NewItem {
        value: format!("user {round}").into_bytes().into(),
        flags: 0,
        expires_at: None,
    };
    store.set(&twin, item).unwrap();
    w.ack();
}

fn check(w: &World, before: &Contents) {
    assert_eq!(&contents(&w.ks), before);
    assert_chunks_whole(w);
}

#[test]
fn large_collections_survive_log_replay_checkpoints_and_power_cuts() {
    let mut w = World::new(Durability::Sync);
    for round in 0..6u32 {
        changes(&w, round);
        if round % 2 == 1 {
            w.p().checkpoint().unwrap();
            // Changes after the checkpoint come from the log.
            changes(&w, round + 100);
        }
        let before = contents(&w.ks);
        match round % 3 {
            0 => w.restart_clean(),
            _ => w.power_cut(None),
        }
        check(&w, &before);
    }
}
