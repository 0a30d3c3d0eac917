//! The engine's primitives for large collections (`strata_kv::chunk`): a
//! head under the user's key and chunk records in an internal namespace,
//! in the key's shard. Checked here: chunks are invisible to users and
//! apart from user keys of the same bytes; delete, expiry, overwrite,
//! shrink, rename and eviction take or move them whole (no orphan, none
//! missing); one edit is one journal record whose size does not grow with
//! the collection; replaying the journal rebuilds the same state.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use strata_kv::chunk::chunk_key;
use strata_kv::journal::{decode, Journal, Refusal};
use strata_kv::{EvictionPolicy, Keyspace, KeyspaceConfig, ManualClock, NewItem, Store, ValueKind};

use crate::common;

use common::large::{clock, contents, keys};

fn config() -> KeyspaceConfig {
    common::large::config(4)
}

fn keyspace() -> (Arc<Keyspace>, Arc<ManualClock>) {
    let clock = clock();
    (Keyspace::new(config(), clock.clone()), clock)
}

fn chunk_value(key: &[u8], number: u32, len: usize) -> Vec<u8> {
    let mut v = format!("{}#{number}:", String::from_utf8_lossy(key)).into_bytes();
    v.resize(len, b'.');
    v
}

/// Writes a large hash of `chunks` chunks of `len` bytes at `key`.
fn make(store: &mut impl Store, key: &[u8], chunks: u32, len: usize, expires_at: Option<u64>) {
    store
        .edit_large(key, |edit| {
            for n in 0..chunks {
                edit.put_chunk(n, ValueKind::Hash, &chunk_value(key, n, len))?;
            }
            edit.put_head(ValueKind::Hash, chunks, b"meta", expires_at)
        })
        .unwrap()
        .unwrap();
}

fn chunk(store: &mut impl Store, key: &[u8], number: u32) -> Option<Vec<u8>> {
    store
        .edit_large(key, |edit| edit.chunk(number))
        .unwrap()
        .unwrap()
}

fn string(value: &[u8]) -> NewItem<'_> {
    NewItem {
        value: value.into(),
        flags: 0,
        expires_at: None,
    }
}

#[test]
fn chunks_are_invisible_and_apart_from_user_keys() {
    let (ks, _) = keyspace();
    let mut store = ks.store();
    make(&mut store, b"h", 5, 100, None);
    // A user key with exactly the bytes of chunk 0's key.
    let twin = chunk_key(b"h", 0);
    store.set(&twin, string(b"user")).unwrap();
    assert_eq!(
        store.get(b"h", |i| (i.kind, i.value.to_vec())),
        Some((ValueKind::Hash, b"meta".to_vec()))
    );
    assert_eq!(
        store.get(&twin, |i| (i.kind, i.value.to_vec())),
        Some((ValueKind::String, b"user".to_vec()))
    );
    assert_eq!(store.len(), 2);
    let expected: BTreeSet<Vec<u8>> = [b"h".to_vec(), twin.clone()].into();
    assert_eq!(keys(&mut store), expected);
    let mut full = BTreeSet::new();
    let mut cursor = 0;
    loop {
        cursor = store.scan(cursor, 3, &mut |item| {
            full.insert(item.key.to_vec());
        });
        if cursor == 0 {
            break;
        }
    }
    assert_eq!(full, expected);
    for _ in 0..50 {
        assert!(expected.contains(&store.random_key().unwrap()));
    }
    for n in 0..5 {
        assert_eq!(chunk(&mut store, b"h", n), Some(chunk_value(b"h", n, 100)));
    }
    assert_eq!(chunk(&mut store, b"h", 5), None);
    store.delete(&twin).unwrap();
    assert_eq!(chunk(&mut store, b"h", 0), Some(chunk_value(b"h", 0, 100)));
    let census = ks.chunk_census();
    assert_eq!((census.chunks, census.orphans, census.missing), (5, 0, 0));
    assert_eq!(ks.stats().items, 1);
}

#[test]
fn delete_expiry_overwrite_and_shrink_take_their_chunks() {
    let (ks, clock) = keyspace();
    let mut store = ks.store();
    let empty = ks.stats().used_memory;
    make(&mut store, b"a", 40, 1000, None);
    assert!(ks.stats().used_memory >= empty + 40_000);
    store.delete(b"a").unwrap();
    assert_eq!(ks.chunk_census().chunks, 0);
    for _ in 0..8 {
        ks.run_maintenance();
    }
    assert!(
        ks.stats().used_memory <= empty + 4096,
        "{} bytes left of an empty keyspace's {empty}",
        ks.stats().used_memory
    );

    // Expiry: reclaimed in the background, or replaced by a new edit.
    make(&mut store, b"b", 10, 500, Some(1_000_100));
    make(&mut store, b"c", 10, 500, Some(1_000_100));
    clock.advance_ms(200);
    assert_eq!(store.get(b"b", |_| ()), None);
    for _ in 0..4 {
        ks.run_maintenance();
    }
    make(&mut store, b"c", 2, 10, None);
    let census = ks.chunk_census();
    assert_eq!((census.chunks, census.orphans, census.missing), (2, 0, 0));

    // Overwritten by a string, then shrunk by a new head.
    store.set(b"c", string(b"plain")).unwrap();
    assert_eq!(ks.chunk_census().chunks, 0);
    make(&mut store, b"d", 10, 100, None);
    store
        .edit_large(b"d", |edit| edit.put_head(ValueKind::Hash, 3, b"m", None))
        .unwrap()
        .unwrap();
    let census = ks.chunk_census();
    assert_eq!((census.chunks, census.orphans, census.missing), (3, 0, 0));
    // An expiry change keeps the chunks.
    store
        .update(b"d", |_| {
            (strata_kv::Mutation::SetExpiry(Some(9_000_000)), ())
        })
        .unwrap();
    assert_eq!(
        ks.chunk_census(),
        strata_kv::ChunkCensus {
            chunks: 3,
            orphans: 0,
            missing: 0
        }
    );
    // FLUSHALL.
    store.flush().unwrap();
    assert_eq!(ks.chunk_census().chunks, 0);
    assert_eq!(store.len(), 0);
}

#[test]
fn rename_moves_every_chunk() {
    let (ks, _) = keyspace();
    let mut store = ks.store();
    make(&mut store, b"from", 6, 300, Some(5_000_000));
    make(&mut store, b"to", 9, 300, None);
    store.rename(b"from", b"to", false).unwrap();
    assert_eq!(store.get(b"from", |_| ()), None);
    assert_eq!(store.expiry(b"to"), Some(Some(5_000_000)));
    for n in 0..6 {
        assert_eq!(
            chunk(&mut store, b"to", n),
            Some(chunk_value(b"from", n, 300))
        );
    }
    let census = ks.chunk_census();
    assert_eq!((census.chunks, census.orphans, census.missing), (6, 0, 0));
    assert_eq!(store.len(), 1);
}

#[test]
fn eviction_takes_whole_collections() {
    let clock = clock();
    let config = KeyspaceConfig {
        memory_limit: 4 << 20,
        eviction: EvictionPolicy::Clock,
        ..config()
    };
    let ks = Keyspace::new(config, clock);
    let mut store = ks.store();
    for i in 0..400u32 {
        let key = format!("coll:{i}").into_bytes();
        make(&mut store, &key, 20, 1000, None);
        store
            .set(format!("s:{i}").as_bytes(), string(&[7; 3000]))
            .unwrap();
        // Some collections are read, so second chances happen too.
        if i % 3 == 0 {
            store.get(format!("coll:{}", i / 2).as_bytes(), |_| ());
        }
    }
    assert!(ks.stats().evictions > 0);
    common::large::assert_chunks_whole(&ks);
    assert!(ks.chunk_census().chunks > 0);
    let used = ks.stats().used_memory;
    assert!(used <= 5 << 20, "{used}");
}

/// A journal that keeps every record.
#[derive(Default)]
struct Recorder(Mutex<Vec<Vec<u8>>>);

impl Journal for Recorder {
    fn check(&self) -> Result<(), Refusal> {
        Ok(())
    }

    fn append(&self, body: &[u8]) -> Result<u64, String> {
        let mut records = self.0.lock().unwrap();
        records.push(body.to_vec());
        Ok(records.len() as u64)
    }
}

fn replay(records: &[Vec<u8>]) -> Arc<Keyspace> {
    let (ks, _) = keyspace();
    for body in records {
        ks.apply_changes(decode(body)).unwrap();
    }
    ks
}

#[test]
fn one_edit_is_one_journal_record_of_bounded_size_and_replays() {
    let (ks, _) = keyspace();
    let recorder = Arc::new(Recorder::default());
    ks.attach_journal(recorder.clone()).ok().unwrap();
    let mut store = ks.store();
    let mut edit_sizes = Vec::new();
    for (key, chunks) in [(&b"small"[..], 4u32), (b"big", 400)] {
        make(&mut store, key, chunks, 2000, None);
        let before = recorder.0.lock().unwrap().len();
        // One change: one chunk and the head.
        store
            .edit_large(key, |edit| {
                edit.put_chunk(2, ValueKind::Hash, &chunk_value(b"changed", 2, 2000))?;
                edit.put_head(ValueKind::Hash, chunks, b"meta2", None)
            })
            .unwrap()
            .unwrap();
        let records = recorder.0.lock().unwrap();
        assert_eq!(records.len(), before + 1, "one record per edit");
        edit_sizes.push(records.last().unwrap().len());
    }
    assert_eq!(
        edit_sizes[0],
        edit_sizes[1] + 2,
        "only the key length differs"
    );
    assert!(edit_sizes[1] < 2200);
    store.set(&chunk_key(b"big", 1), string(b"twin")).unwrap();
    store.rename(b"small", b"moved", false).unwrap();
    make(&mut store, b"gone", 30, 100, None);
    store.delete(b"gone").unwrap();
    let records = recorder.0.lock().unwrap().clone();
    let copy = replay(&records);
    assert_eq!(contents(&copy), contents(&ks));
    assert_eq!(copy.chunk_census(), ks.chunk_census());
    assert_eq!(copy.store().len(), 3);
}

#[test]
fn a_hashed_collection_splits_into_bounded_chunks_and_replays() {
    use strata_kv::large::{Hashed, TARGET_CHUNK};
    let (ks, _) = keyspace();
    let recorder = Arc::new(Recorder::default());
    ks.attach_journal(recorder.clone()).ok().unwrap();
    let mut store = ks.store();
    let field = |i: u32| format!("field:{i}").into_bytes();
    for batch in 0..40u32 {
        store
            .edit_large(b"h", |edit| {
                let mut hash = match batch {
                    0 => Hashed::create(edit, ValueKind::Hash, None),
                    _ => Hashed::open(edit, ValueKind::Hash)?.unwrap(),
                };
                for i in batch * 500..(batch + 1) * 500 {
                    assert!(hash.put(&field(i), &[b'v'; 20])?);
                }
                hash.finish()
            })
            .unwrap()
            .unwrap();
    }
    let (len, buckets, largest) = store
        .edit_large(b"h", |edit| {
            let mut hash = Hashed::open(edit, ValueKind::Hash).unwrap().unwrap();
            let mut largest = 0;
            let mut total = 0;
            for b in 0..hash.buckets() {
                let entries = hash.bucket(b).unwrap();
                total += entries.len() / 2;
                largest = largest.max(entries.iter().map(|e| e.len() + 1).sum::<usize>());
            }
            assert_eq!(total as u64, hash.len());
            assert_eq!(hash.get(&field(12_345)).unwrap(), Some(vec![b'v'; 20]));
            assert_eq!(hash.get(b"nope").unwrap(), None);
            (hash.len(), hash.buckets(), largest)
        })
        .unwrap();
    assert_eq!(len, 20_000);
    assert!(buckets > 200, "{buckets}");
    assert!(
        largest < 4 * TARGET_CHUNK as usize,
        "a chunk of {largest} bytes"
    );
    // One field changed: one record of one chunk and the head.
    let before = recorder.0.lock().unwrap().len();
    store
        .edit_large(b"h", |edit| {
            let mut hash = Hashed::open(edit, ValueKind::Hash)?.unwrap();
            assert!(!hash.put(&field(7), b"changed")?);
            assert!(hash.remove(&field(8))?);
            hash.finish()
        })
        .unwrap()
        .unwrap();
    let records = recorder.0.lock().unwrap().clone();
    assert_eq!(records.len(), before + 1);
    assert!(records[before].len() < 3 * 4 * TARGET_CHUNK as usize);
    let copy = replay(&records);
    assert_eq!(contents(&copy), contents(&ks));
    assert_eq!(copy.chunk_census(), ks.chunk_census());
}

#[test]
fn eviction_never_takes_the_collection_being_edited() {
    let clock = clock();
    let config = KeyspaceConfig {
        memory_limit: 1 << 20,
        eviction: EvictionPolicy::Clock,
        shards: 1,
        ..KeyspaceConfig::default()
    };
    let ks = Keyspace::new(config, clock);
    let mut store = ks.store();
    for i in 0..200u32 {
        store
            .set(format!("s:{i}").as_bytes(), string(&[1; 2000]))
            .unwrap();
    }
    // One edit writing more than the limit: its own first chunks are in
    // the oldest segments by the time the last ones need room.
    make(&mut store, b"huge", 700, 2000, None);
    let census = ks.chunk_census();
    assert_eq!((census.chunks, census.orphans, census.missing), (700, 0, 0));
    assert!(ks.stats().evictions > 0);
    // The next write may evict it, whole.
    for i in 0..2000u32 {
        store
            .set(format!("t:{i}").as_bytes(), string(&[2; 2000]))
            .unwrap();
    }
    common::large::assert_chunks_whole(&ks);
}
