//! `FileSet`: whole files on the store with their catalog in a directory.
//! Commits read back, replace and remove files; a restart brings back the
//! committed set and frees what no catalog names; and a commit cut by a
//! failing sync (of the store or of the directory) and a power cut of both
//! devices at once leaves the old set or the new one, whole, with every
//! file's bytes as committed: never a mix, never other bytes.

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::*;
use strata_device::{BlockDevice, Directory, FaultyBlockDevice, FaultyDirectory, MemDirectory};
use strata_ssd::{Catalog, FileSet, SsdError, SsdStore, StoreUser};

const CATALOG: &str = "files.catalog";
const CHUNK: usize = 16 * 1024;

fn user() -> StoreUser {
    StoreUser::from_code(2).unwrap()
}

/// A file's bytes: `len` bytes derived from its name and version.
fn content(name: &str, version: u8, len: usize) -> Vec<u8> {
    let seed = name
        .bytes()
        .fold(u32::from(version), |h, b| h.wrapping_mul(31) ^ u32::from(b));
    (0..len)
        .map(|i| (seed as usize).wrapping_add(i * 7 + i / 251) as u8)
        .collect()
}

/// The set as a model: name to bytes.
type Model = BTreeMap<String, Vec<u8>>;

/// Opens the store on `device` (no primary entries expected), loads and
/// marks the catalog of `dir`, and returns the set.
fn open_set(device: Arc<dyn BlockDevice>, dir: Arc<dyn Directory>) -> Result<FileSet, SsdError> {
    let mut recovery = SsdStore::open(device, config())?;
    recovery.scan(|_, _, _| panic!("no primary entries"))?;
    let catalog = Catalog::load(&*dir, CATALOG, recovery.device_id())?;
    catalog.mark(&recovery)?;
    let store = recovery.finish()?;
    FileSet::new(store, user(), dir, CATALOG, CHUNK, catalog)
}

fn commit(set: &FileSet, model: &mut Model, add: &[(&str, Vec<u8>)], remove: &[&str]) {
    let adds: Vec<(&str, &[u8])> = add.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    set.commit(&adds, remove).unwrap();
    apply(model, add, remove);
}

fn apply(model: &mut Model, add: &[(&str, Vec<u8>)], remove: &[&str]) {
    for name in remove {
        model.remove(*name);
    }
    for (name, bytes) in add {
        model.insert((*name).to_owned(), bytes.clone());
    }
}

/// Every file of the set reads back as the model says, whole and in
/// pieces across chunk boundaries.
fn check(set: &FileSet, model: &Model) {
    assert_eq!(set.names(), model.keys().cloned().collect::<Vec<_>>());
    for (name, bytes) in model {
        assert_eq!(set.len(name), Some(bytes.len() as u64));
        assert_eq!(&set.read(name, 0, bytes.len()).unwrap(), bytes, "{name}");
        if bytes.len() > CHUNK + 10 {
            let piece = set.read(name, CHUNK as u64 - 5, 10).unwrap();
            assert_eq!(piece, bytes[CHUNK - 5..CHUNK + 5]);
        }
    }
}

#[test]
fn commits_replace_and_remove_files_and_a_restart_keeps_them() {
    let device = mem_device(64);
    let dir = MemDirectory::new();
    let set = open_set(Arc::new(device.clone()), Arc::new(dir.clone())).unwrap();
    let mut model = Model::new();
    commit(
        &set,
        &mut model,
        &[
            ("seg1.idx", content("seg1.idx", 1, 3 * CHUNK + 100)),
            ("seg1.term", content("seg1.term", 1, 700)),
            ("empty", Vec::new()),
        ],
        &[],
    );
    check(&set, &model);
    assert_eq!(set.read_chunk("seg1.idx", 3).unwrap().len(), 100);
    assert!(set.read("seg1.term", 600, 101).is_err(), "past the end");
    assert!(set.read("missing", 0, 1).is_err());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let async_chunk = rt.block_on(set.read_chunk_async("seg1.idx", 1)).unwrap();
    assert_eq!(async_chunk, model["seg1.idx"][CHUNK..2 * CHUNK]);

    commit(
        &set,
        &mut model,
        &[("seg1.term", content("seg1.term", 2, 2 * CHUNK))],
        &["empty", "never-there"],
    );
    check(&set, &model);
    drop(set);

    // A restart from what the power left.
    let set = open_set(Arc::new(device.crash()), Arc::new(dir.crash())).unwrap();
    check(&set, &model);
    commit(&set, &mut model, &[], &["seg1.idx", "seg1.term"]);
    check(&set, &model);
    drop(set);
    let mut recovery = SsdStore::open(Arc::new(device.crash()), config()).unwrap();
    recovery.scan(|_, _, _| {}).unwrap();
    let store = recovery.finish().unwrap();
    let users = store.stats().users;
    assert_eq!(
        users.len(),
        1,
        "every block of the removed files freed: {users:?}"
    );
}

#[test]
fn a_catalog_of_another_device_or_damaged_is_refused() {
    let dir = MemDirectory::new();
    let set = open_set(Arc::new(mem_device(16)), Arc::new(dir.clone())).unwrap();
    set.commit(&[("a", b"bytes".as_slice())], &[]).unwrap();
    drop(set);
    match open_set(Arc::new(mem_device(16)), Arc::new(dir.clone())) {
        Err(SsdError::Catalog { reason, .. }) => assert!(reason.contains("device"), "{reason}"),
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("a catalog of another device was taken"),
    }
    let device = dir.open(CATALOG).unwrap();
    let mut byte = [0u8; 1];
    device.read_exact_at(&mut byte, 30).unwrap();
    device.write_all_at(&[byte[0] ^ 1], 30).unwrap();
    match Catalog::load(&dir, CATALOG, 0) {
        Err(SsdError::Catalog { reason, .. }) => assert!(reason.contains("checksum"), "{reason}"),
        other => panic!("{other:?}"),
    }
    let store = open_empty(&mem_device(16), config());
    assert!(FileSet::new(
        store.clone(),
        StoreUser::KV,
        Arc::new(dir.clone()),
        CATALOG,
        CHUNK,
        Catalog::empty(store.device_id())
    )
    .is_err());
    assert!(FileSet::new(
        store.clone(),
        user(),
        Arc::new(dir),
        CATALOG,
        0,
        Catalog::empty(store.device_id())
    )
    .is_err());
}

/// Where the second commit is cut: the k-th sync of the store's device
/// or of the directory fails, then the power goes.
#[derive(Debug, Clone, Copy)]
enum Cut {
    StoreSync(u64),
    DirectorySync(u64),
}

#[test]
fn a_cut_commit_leaves_the_old_set_or_the_new_one() {
    let (mut old_sets, mut new_sets) = (0, 0);
    let cuts = (0..4)
        .map(Cut::StoreSync)
        .chain((0..4).map(Cut::DirectorySync));
    for (round, cut) in cuts.enumerate() {
        for torn in [false, true] {
            let device = mem_device(64);
            let dir = MemDirectory::new();
            let block_faults = FaultyBlockDevice::new(Arc::new(device.clone()));
            let dir_faults = FaultyDirectory::new(Arc::new(dir.clone()));
            let (store_switch, dir_switch) = (block_faults.faults().clone(), dir_faults.faults());
            let set = open_set(Arc::new(block_faults), Arc::new(dir_faults)).unwrap();
            let mut old = Model::new();
            commit(
                &set,
                &mut old,
                &[
                    ("a", content("a", 1, 2 * CHUNK + 3)),
                    ("b", content("b", 1, 5_000)),
                ],
                &[],
            );
            let add = [
                ("a", content("a", 2, CHUNK)),
                ("c", content("c", 2, 3 * CHUNK)),
            ];
            let mut new = old.clone();
            apply(&mut new, &add, &["b"]);
            match cut {
                Cut::StoreSync(k) => store_switch.fail_syncs_after(k),
                Cut::DirectorySync(k) => dir_switch.fail_syncs_after(k),
            }
            let adds: Vec<(&str, &[u8])> = add.iter().map(|(n, b)| (*n, b.as_slice())).collect();
            let committed = set.commit(&adds, &["b"]).is_ok();
            drop(set);
            let seed = round as u64 * 2 + u64::from(torn);
            let (device, dir) = if torn {
                (device.crash_torn(seed), dir.crash_torn(seed))
            } else {
                (device.crash(), dir.crash())
            };
            let set = open_set(Arc::new(device), Arc::new(dir))
                .unwrap_or_else(|e| panic!("{cut:?} torn {torn}: {e}"));
            let names = set.names();
            if committed || names.contains(&"c".to_owned()) {
                check(&set, &new);
                new_sets += 1;
            } else {
                check(&set, &old);
                old_sets += 1;
            }
        }
    }
    assert!(
        old_sets > 0 && new_sets > 0,
        "old {old_sets}, new {new_sets}"
    );
}

/// The live bytes of the set's user on `store`.
fn live(store: &SsdStore) -> u64 {
    (store.stats().users.into_iter())
        .find(|u| u.user == user())
        .map_or(0, |u| u.bytes_live)
}

#[test]
fn a_reader_keeps_a_removed_file_until_it_drops_it() {
    // 32 blocks of 64 KiB: the churn below writes several times that,
    // so released space would be reused under the reader.
    let device = mem_device(32);
    let dir = MemDirectory::new();
    let mut recovery = SsdStore::open(Arc::new(device.clone()), config()).unwrap();
    recovery.scan(|_, _, _| {}).unwrap();
    let store = recovery.finish().unwrap();
    let catalog = Catalog::empty(store.device_id());
    let dir: Arc<dyn Directory> = Arc::new(dir);
    let set = FileSet::new(store.clone(), user(), dir.clone(), CATALOG, CHUNK, catalog).unwrap();
    let mut model = Model::new();
    let kept = content("seg0.store", 1, 5 * CHUNK + 17);
    commit(&set, &mut model, &[("seg0.store", kept.clone())], &[]);
    let reader = set.open("seg0.store").unwrap();
    assert_eq!(reader.len(), kept.len() as u64);
    assert_eq!(reader.chunks(), 6);
    let held_bytes = live(&store);
    assert!(held_bytes >= kept.len() as u64, "{held_bytes}");

    // Removed from the set: gone for new readers, not for this one.
    commit(&set, &mut model, &[], &["seg0.store"]);
    assert!(set.open("seg0.store").is_none());
    assert!(set.read("seg0.store", 0, 1).is_err());
    for round in 0..12u8 {
        let name = format!("churn{round}");
        let bytes = content(&name, round, 9 * CHUNK);
        commit(&set, &mut model, &[(&name, bytes)], &[]);
        commit(&set, &mut model, &[], &[&name]);
        store.flush().unwrap();
        assert_eq!(reader.read(0, kept.len()).unwrap(), kept, "round {round}");
    }
    assert_eq!(live(&store), held_bytes, "only the held file is live");
    let clone = reader.clone();
    drop(reader);
    assert_eq!(live(&store), held_bytes, "a clone still holds it");
    assert_eq!(clone.read(5 * CHUNK as u64, 17).unwrap(), kept[5 * CHUNK..]);
    drop(clone);
    assert_eq!(live(&store), 0, "released with its last reader");

    // A set dropped at shutdown releases nothing: its catalog still
    // names its files, and a restart reads them back.
    commit(
        &set,
        &mut model,
        &[("seg1.idx", content("seg1.idx", 1, CHUNK + 1))],
        &[],
    );
    let before = live(&store);
    let reader = set.open("seg1.idx").unwrap();
    drop(set);
    drop(reader);
    assert_eq!(live(&store), before);
    store.flush().unwrap();
    drop(store);
    let set = open_set(Arc::new(device.crash()), dir).unwrap();
    check(&set, &model);
}

#[test]
fn a_failed_commit_releases_its_new_files_even_while_read() {
    let device = mem_device(32);
    let dir = FaultyDirectory::new(Arc::new(MemDirectory::new()));
    let switch = dir.faults();
    let mut recovery = SsdStore::open(Arc::new(device.clone()), config()).unwrap();
    recovery.scan(|_, _, _| {}).unwrap();
    let store = recovery.finish().unwrap();
    let catalog = Catalog::empty(store.device_id());
    let set = FileSet::new(
        store.clone(),
        user(),
        Arc::new(dir),
        CATALOG,
        CHUNK,
        catalog,
    )
    .unwrap();
    let mut model = Model::new();
    commit(&set, &mut model, &[("a", content("a", 1, 2 * CHUNK))], &[]);
    let reader = set.open("a").unwrap();
    let before = live(&store);
    switch.fail_syncs_after(0);
    let replaced = content("a", 2, 3 * CHUNK);
    assert!(set
        .commit(&[("a", &replaced), ("b", &replaced)], &[])
        .is_err());
    assert_eq!(live(&store), before, "the failed commit's entries released");
    check(&set, &model);
    assert_eq!(reader.read(0, 2 * CHUNK).unwrap(), model["a"]);
}
