//! A whole value rewritten with its length unchanged ([`LargeEdit::put_whole`]
//! of a packed collection, a string `set`) overwrites its record in DRAM instead of
//! appending one (`shard/in_place.rs`). Checked here: no memory is written
//! for it; the value, kind, expiry and a fresh CAS read back; a watch sees
//! the change; any other shape (length, kind, expiry, a large head there)
//! appends as before; a large list's pushes and pops at its ends rewrite its
//! (padded) end chunks and its head the same way; the journal records replay
//! to the same state; and in persistent memory, where records are never
//! rewritten, a power cut keeps the newest value.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use strata_kv::journal::{decode, Journal, Refusal};
use strata_kv::large::{Deque, Side};
use strata_kv::{DataTier, IndexTier, Keyspace, LargeEdit, NewItem, Placement, Store, ValueKind};
use strata_pmem::PersistentArena;

use crate::common;

use common::large::{
    assert_chunks_whole, clock, config, contents, crash_pmem, new_arena, open_pmem,
};

fn keyspace() -> Arc<Keyspace> {
    Keyspace::new(config(2), clock())
}

fn put(store: &mut impl Store, key: &[u8], kind: ValueKind, value: &[u8], expires_at: Option<u64>) {
    store
        .edit_large(key, |edit: &mut LargeEdit<'_>| {
            edit.put_whole(kind, value, expires_at)
        })
        .unwrap()
        .unwrap();
}

/// (kind, value, cas, expiry) of `key`.
fn read(store: &mut impl Store, key: &[u8]) -> Option<(ValueKind, Vec<u8>, u64, Option<u64>)> {
    store.get(key, |i| (i.kind, i.value.to_vec(), i.cas, i.expires_at))
}

fn value(tag: u8, len: usize) -> Vec<u8> {
    vec![tag; len]
}

#[test]
fn a_same_length_rewrite_writes_nothing_new_and_reads_back() {
    let ks = keyspace();
    let mut store = ks.store();
    let at = Some(2_000_000);
    put(&mut store, b"h", ValueKind::Hash, &value(1, 600), at);
    let (_, _, cas, _) = read(&mut store, b"h").unwrap();
    let used = ks.stats().used_memory;
    let total = ks.stats().total_items;
    let watch = ks.watch(b"h");
    for round in 2..50u8 {
        put(&mut store, b"h", ValueKind::Hash, &value(round, 600), at);
    }
    assert_eq!(ks.stats().used_memory, used, "rewritten in place");
    assert_eq!(
        ks.stats().total_items,
        total + 48,
        "each counted as a write"
    );
    let (kind, v, new_cas, expiry) = read(&mut store, b"h").unwrap();
    assert_eq!((kind, v, expiry), (ValueKind::Hash, value(49, 600), at));
    assert!(new_cas > cas, "a fresh CAS: {new_cas} after {cas}");
    assert!(!ks.exclusive(|s| s.watch_intact(&watch)));
    assert_eq!(ks.stats().items_with_expiry, 1);
}

/// A packed value edited where it lies ([`LargeEdit::edit_whole`]) counts
/// as a store in `total_items`, as its rewrite would; a declined edit
/// counts nothing.
#[test]
fn an_edit_where_the_value_lies_counts_as_a_store() {
    let ks = keyspace();
    let mut store = ks.store();
    put(&mut store, b"h", ValueKind::Hash, &value(1, 100), None);
    let (total, used) = (ks.stats().total_items, ks.stats().used_memory);
    let mut edit_whole = |change: bool| {
        store
            .edit_large(b"h", |edit| {
                edit.edit_whole(ValueKind::Hash, |bytes| {
                    change.then(|| {
                        bytes[0] = 2;
                        (bytes.len(), ())
                    })
                })
            })
            .unwrap()
            .unwrap()
    };
    assert_eq!(edit_whole(true), Some(()));
    assert_eq!(edit_whole(false), None);
    assert_eq!(ks.stats().total_items, total + 1);
    assert_eq!(ks.stats().used_memory, used, "edited in place");
    assert_eq!(read(&mut ks.store(), b"h").unwrap().1[0], 2);
}

#[test]
fn any_other_shape_appends() {
    let ks = keyspace();
    let mut store = ks.store();
    put(&mut store, b"h", ValueKind::Hash, &value(1, 600), None);
    let mut used = ks.stats().used_memory;
    let changes: [(ValueKind, usize, Option<u64>); 4] = [
        (ValueKind::Hash, 601, None),              // longer
        (ValueKind::Set, 601, None),               // another kind
        (ValueKind::Set, 601, Some(u64::MAX / 2)), // an expiry
        (ValueKind::Set, 600, Some(u64::MAX / 2)), // shorter
    ];
    for (i, (kind, len, at)) in changes.into_iter().enumerate() {
        put(&mut store, b"h", kind, &value(i as u8, len), at);
        let now = ks.stats().used_memory;
        assert!(now > used, "change {i} appended a record");
        used = now;
        let (k, v, _, expiry) = read(&mut store, b"h").unwrap();
        assert_eq!((k, v, expiry), (kind, value(i as u8, len), at));
    }
    assert_eq!(ks.stats().items_with_expiry, 1);
    // A large collection's head there is replaced whole, chunks dropped.
    store
        .edit_large(b"big", |edit| {
            edit.put_chunk(0, ValueKind::Hash, &value(7, 100))?;
            edit.put_head(ValueKind::Hash, 1, &value(8, 50), None)
        })
        .unwrap()
        .unwrap();
    put(&mut store, b"big", ValueKind::Hash, &value(9, 50), None);
    assert_eq!(read(&mut store, b"big").unwrap().1, value(9, 50));
    let census = ks.chunk_census();
    assert_eq!((census.chunks, census.orphans, census.missing), (0, 0, 0));
}

/// (value, client flags, cas) of the string at `key`.
fn read_string(store: &mut impl Store, key: &[u8]) -> Option<(Vec<u8>, u32, u64)> {
    store.get(key, |i| (i.value.to_vec(), i.flags, i.cas))
}

fn set(store: &mut impl Store, key: &[u8], value: &[u8], flags: u32) {
    let item = NewItem {
        value: value.into(),
        flags,
        expires_at: None,
    };
    store.set(key, item).unwrap();
}

#[test]
fn a_string_set_as_long_as_the_value_there_rewrites_it() {
    let ks = keyspace();
    let mut store = ks.store();
    set(&mut store, b"s", &value(1, 50), 7);
    let (_, _, cas) = read_string(&mut store, b"s").unwrap();
    let used = ks.stats().used_memory;
    let watch = ks.watch(b"s");
    for round in 2..40u8 {
        set(&mut store, b"s", &value(round, 50), 7);
    }
    assert_eq!(ks.stats().used_memory, used, "rewritten in place");
    let (v, flags, new_cas) = read_string(&mut store, b"s").unwrap();
    assert_eq!((v, flags), (value(39, 50), 7));
    assert!(new_cas > cas, "a fresh CAS: {new_cas} after {cas}");
    assert!(!ks.exclusive(|s| s.watch_intact(&watch)));
    // Other client flags, or another length, append a new record.
    for (i, (len, flags)) in [(50, 8), (51, 8)].into_iter().enumerate() {
        let before = ks.stats().used_memory;
        set(&mut store, b"s", &value(100 + i as u8, len), flags);
        assert!(ks.stats().used_memory > before, "change {i} appended");
        let (v, f, _) = read_string(&mut store, b"s").unwrap();
        assert_eq!((v, f), (value(100 + i as u8, len), flags));
    }
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

/// A keyspace whose journal records are kept.
fn journaled() -> (Arc<Keyspace>, Arc<Recorder>) {
    let ks = keyspace();
    let recorder = Arc::new(Recorder::default());
    ks.attach_journal(recorder.clone()).ok().unwrap();
    (ks, recorder)
}

/// A new keyspace with every record `recorder` kept applied in order.
fn replay(recorder: &Recorder) -> Arc<Keyspace> {
    let copy = keyspace();
    for body in recorder.0.lock().unwrap().iter() {
        copy.apply_changes(decode(body)).unwrap();
    }
    copy
}

#[test]
fn rewrites_in_place_replay_to_the_same_state() {
    let (ks, recorder) = journaled();
    let mut store = ks.store();
    for round in 0..20u8 {
        for k in 0..10u8 {
            let len = 100 + usize::from(k % 3 == 0 && round % 4 == 0);
            put(
                &mut store,
                &[b'k', k],
                ValueKind::Hash,
                &value(round, len),
                None,
            );
        }
    }
    for round in 0..10u8 {
        set(
            &mut store,
            b"str",
            &value(round, 40 + usize::from(round % 3 == 0)),
            3,
        );
    }
    store.delete(b"k\x05").unwrap();
    let copy = replay(&recorder);
    assert_eq!(contents(&copy), contents(&ks));
    let mut a = ks.store();
    let mut b = copy.store();
    for k in 0..10u8 {
        assert_eq!(
            read(&mut a, &[b'k', k]),
            read(&mut b, &[b'k', k]),
            "key {k}"
        );
    }
}

/// Pushes `pushes` at the back of the large list at `key` (made if
/// absent), then pops `pops` from the front; the popped elements.
fn list_edit(store: &mut impl Store, key: &[u8], pushes: &[Vec<u8>], pops: usize) -> Vec<Vec<u8>> {
    store
        .edit_large(key, |edit: &mut LargeEdit<'_>| {
            let mut deque = match Deque::open(edit)? {
                Some(deque) => deque,
                None => Deque::create(edit, None),
            };
            for e in pushes {
                deque.push_end(Side::Back, e)?;
            }
            let mut popped = Vec::new();
            for _ in 0..pops {
                popped.extend(deque.pop_end(Side::Front)?);
            }
            deque.finish()?;
            Ok::<_, strata_kv::KvError>(popped)
        })
        .unwrap()
        .unwrap()
}

/// Every element of the large list at `key`.
fn list_elements(store: &mut impl Store, key: &[u8]) -> Vec<Vec<u8>> {
    store
        .edit_large(key, |edit: &mut LargeEdit<'_>| {
            let mut deque = Deque::open(edit)?.unwrap();
            let n = deque.len();
            deque.range(0, n - 1)
        })
        .unwrap()
        .unwrap()
}

#[test]
fn a_large_lists_pushes_and_pops_at_its_ends_rewrite_in_place() {
    let (ks, recorder) = journaled();
    let mut store = ks.store();
    let mut model = VecDeque::new();
    let mut next = 0u32;
    let mut elements = |n: usize, model: &mut VecDeque<Vec<u8>>| -> Vec<Vec<u8>> {
        let new: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                next += 1;
                let mut e = format!("job-{next}:").into_bytes();
                e.resize(50, b'.');
                e
            })
            .collect();
        model.extend(new.iter().cloned());
        new
    };
    // 100 elements of 51 packed bytes: chunks of 40, 40 and 20.
    let fill = elements(100, &mut model);
    list_edit(&mut store, b"q", &fill, 0);
    let used = ks.stats().used_memory;
    // One at a time, as a queue's producers and consumers: pushes that fit
    // the back chunk, pops that leave the front one non-empty.
    for _ in 0..15 {
        let one = elements(1, &mut model);
        let popped = list_edit(&mut store, b"q", &one, 2);
        let want: Vec<_> = model.drain(..2).collect();
        assert_eq!(popped, want);
    }
    assert_eq!(ks.stats().used_memory, used, "rewritten in place");
    assert_eq!(list_elements(&mut store, b"q"), Vec::from(model.clone()));
    // A push that opens a chunk, and a pop that empties one, append and
    // drop records.
    let more = elements(10, &mut model);
    list_edit(&mut store, b"q", &more, 0);
    assert!(ks.stats().used_memory > used, "a new back chunk");
    let popped = list_edit(&mut store, b"q", &[], 10);
    assert_eq!(popped, model.drain(..10).collect::<Vec<_>>());
    assert_eq!(list_elements(&mut store, b"q"), Vec::from(model.clone()));
    // Replayed from the journal (whose chunks carry no padding), the same
    // list; it goes on being pushed and popped in place there too.
    let copy = replay(&recorder);
    assert_eq!(contents(&copy), contents(&ks));
    let mut replayed = copy.store();
    let tail = elements(1, &mut model);
    list_edit(&mut replayed, b"q", &tail, 1);
    let used = copy.stats().used_memory;
    let tail = elements(1, &mut model);
    list_edit(&mut replayed, b"q", &tail, 1);
    assert_eq!(copy.stats().used_memory, used, "in place after replay");
    model.drain(..2);
    assert_eq!(list_elements(&mut replayed, b"q"), Vec::from(model));
    assert_chunks_whole(&copy);
}

/// A push made where the end chunk is stored writes its chunk and the
/// head at once: a command that fails after it leaves the list whole
/// (the push kept, head and chunks agreeing), in memory and replayed.
#[test]
fn a_command_failing_after_a_push_where_stored_leaves_the_list_whole() {
    let (ks, recorder) = journaled();
    let mut store = ks.store();
    let fill: Vec<Vec<u8>> = (0..100).map(|i| format!("e{i:048}").into_bytes()).collect();
    list_edit(&mut store, b"q", &fill, 0);
    list_edit(&mut store, b"q", &[b"warm".to_vec()], 1);
    let failed = store
        .edit_large(b"q", |edit: &mut LargeEdit<'_>| {
            let mut deque = Deque::open(edit)?.unwrap();
            deque.push_end(Side::Back, b"kept")?;
            deque.pop_end(Side::Front)?;
            Err::<(), _>(strata_kv::KvError::Storage {
                cause: "the command failed".into(),
            })
        })
        .unwrap();
    assert!(failed.is_err());
    let mut want: Vec<Vec<u8>> = fill[2..].to_vec();
    want.extend([b"warm".to_vec(), b"kept".to_vec()]);
    assert_eq!(list_elements(&mut store, b"q"), want);
    assert_chunks_whole(&ks);
    let copy = replay(&recorder);
    assert_eq!(list_elements(&mut copy.store(), b"q"), want);
    assert_chunks_whole(&copy);
}

#[test]
fn in_persistent_memory_a_power_cut_keeps_the_newest_value() {
    const KIND: u64 = 0x1_9ace;
    for index in [IndexTier::Pmem, IndexTier::Dram] {
        let placement = Placement {
            index,
            data: DataTier::Pmem,
        };
        let ks = open_pmem(config(2), new_arena(KIND), placement);
        let mut store = ks.store();
        for round in 0..5u8 {
            put(&mut store, b"h", ValueKind::Hash, &value(round, 300), None);
        }
        let image = crash_pmem(ks);
        let arena = PersistentArena::open_simulated(image, KIND).unwrap();
        let ks = open_pmem(config(2), arena, placement);
        let found = read(&mut ks.store(), b"h").map(|(k, v, _, _)| (k, v));
        assert_eq!(found, Some((ValueKind::Hash, value(4, 300))), "{index:?}");
    }
}
