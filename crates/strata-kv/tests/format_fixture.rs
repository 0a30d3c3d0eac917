//! The persistent-memory formats are versioned and must stay readable: a
//! keyspace written with index and data in persistent memory (the arena
//! header and roots, the allocator's chunk map, the keyspace directory,
//! segments and records, the persistent index) by each version of the
//! keyspace directory is kept in `tests/fixtures/v<version>/`, one image
//! per persistent placement (index adopted from persistent memory; index
//! rebuilt from the records), and each must restart with every item
//! intact. Version 2 added the directory's chunk mark: its images restart
//! without counting chunk entries, version 1's count them.
//!
//! The image is stored sparse: its length (u64 LE), then each non-zero
//! 4 KiB page as a u32 LE page number and the page. Today's writer cannot
//! reproduce it byte for byte (generations and CAS versions depend on the
//! run), so the test checks reading, which a format change would break.
//!
//! Write the current version's images (only when deliberately changing a
//! format, together with a new version number, keeping the older ones):
//! `STRATA_WRITE_FIXTURES=1 cargo test -p strata-kv --test integration -- --ignored
//! format_fixture::write_current_fixture`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use strata_kv::{
    DataTier, IndexTier, Keyspace, KeyspaceConfig, ManualClock, NewItem, Placement, Store,
};
use strata_pmem::{PersistentArena, SimulatedPmem};

const CHUNK: u64 = 64 << 10;
const KIND: u64 = 0x57_4B56;
const PAGE: usize = 4096;

/// The keyspace directory version today's writer makes.
const CURRENT: u32 = 2;

fn fixture_path(version: u32, index: IndexTier) -> PathBuf {
    let name = match index {
        IndexTier::Pmem => "keyspace-index-pmem.sparse",
        IndexTier::Dram => "keyspace-index-dram.sparse",
    };
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/fixtures/v{version}"))
        .join(name)
}

const PLACEMENTS: [IndexTier; 2] = [IndexTier::Pmem, IndexTier::Dram];

/// The items of the fixture: values of several sizes, with flags.
fn fixture_items() -> BTreeMap<Vec<u8>, (Vec<u8>, u32)> {
    (0..200u32)
        .map(|i| {
            let len = if i % 50 == 7 {
                9_000
            } else {
                (i as usize * 37) % 400
            };
            let value = vec![b'a' + (i % 26) as u8; len];
            (format!("v1:key:{i}").into_bytes(), (value, i * 3))
        })
        .collect()
}

fn config() -> KeyspaceConfig {
    KeyspaceConfig {
        shards: 4,
        ..KeyspaceConfig::default()
    }
}

fn open(arena: PersistentArena, index: IndexTier) -> Arc<Keyspace> {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let placement = Placement {
        index,
        data: DataTier::Pmem,
    };
    Keyspace::open_placed(config(), clock, placement, Some(Arc::new(arena)))
        .unwrap()
        .0
}

fn sparse(image: &SimulatedPmem) -> Vec<u8> {
    let mut out = image.len().to_le_bytes().to_vec();
    let mut page = vec![0u8; PAGE];
    for n in 0..image.len() as usize / PAGE {
        image.read((n * PAGE) as u64, &mut page).unwrap();
        if page.iter().any(|&b| b != 0) {
            out.extend_from_slice(&(n as u32).to_le_bytes());
            out.extend_from_slice(&page);
        }
    }
    out
}

fn dense(bytes: &[u8]) -> SimulatedPmem {
    let len = u64::from_le_bytes(bytes[..8].try_into().unwrap());
    let image = SimulatedPmem::new(len).unwrap();
    assert_eq!((bytes.len() - 8) % (4 + PAGE), 0, "sparse image damaged");
    for record in bytes[8..].chunks(4 + PAGE) {
        let n = u64::from(u32::from_le_bytes(record[..4].try_into().unwrap()));
        image.write(n * PAGE as u64, &record[4..]).unwrap();
    }
    image.persist(0, len).unwrap();
    image
}

#[test]
fn v1_fixture_restarts_in_both_persistent_placements() {
    check_fixture(1);
}

#[test]
fn v2_fixture_restarts_in_both_persistent_placements() {
    check_fixture(2);
}

fn check_fixture(version: u32) {
    for index in PLACEMENTS {
        let bytes = std::fs::read(fixture_path(version, index)).expect("fixture present");
        let arena = PersistentArena::open_simulated(dense(&bytes), KIND).unwrap();
        let ks = open(arena, index);
        let report = ks.tier().unwrap().restart_report().unwrap();
        // No large collection was ever written: only version 2 knows it.
        assert_eq!(report.chunks_counted, version < 2, "v{version} {index:?}");
        assert_eq!(ks.store().len(), fixture_items().len() as u64);
        let mut store = ks.store();
        for (key, (value, flags)) in fixture_items() {
            let got = store.get(&key, |it| (it.value.to_vec(), it.flags));
            assert_eq!(got, Some((value, flags)), "{index:?}: {key:?}");
        }
        assert_eq!(store.get(b"v1:absent", |_| ()), None);
        store
            .set(
                b"v1:new",
                NewItem {
                    value: b"after".as_slice().into(),
                    flags: 0,
                    expires_at: None,
                },
            )
            .unwrap();
        assert_eq!(
            store.get(b"v1:new", |it| it.value.to_vec()),
            Some(b"after".to_vec())
        );
    }
}

#[test]
#[ignore = "writes the current version's fixture (with STRATA_WRITE_FIXTURES=1)"]
fn write_current_fixture() {
    // `--include-ignored` (`scripts/test --full`) runs this too: without
    // the variable it must not rewrite the file the other tests read (it
    // raced them, and would hide a format change by rewriting its fixture).
    if std::env::var_os("STRATA_WRITE_FIXTURES").is_none() {
        return;
    }
    for index in PLACEMENTS {
        let arena = PersistentArena::simulated(8192 + 16 * CHUNK, CHUNK, KIND).unwrap();
        let ks = open(arena, index);
        let mut store = ks.store();
        for (key, (value, flags)) in fixture_items() {
            let item = NewItem {
                value: value.as_slice().into(),
                flags,
                expires_at: None,
            };
            store.set(&key, item).unwrap();
        }
        // Rewritten and deleted keys, so the image holds dead records too.
        store.delete(b"v1:key:1").unwrap();
        store.delete(b"v1:gone").ok();
        let (value, flags) = fixture_items().remove(b"v1:key:1".as_slice()).unwrap();
        let item = NewItem {
            value: value.as_slice().into(),
            flags,
            expires_at: None,
        };
        store.set(b"v1:key:1", item).unwrap();
        let image = ks.tier().expect("placed in pmem").arena().crash().unwrap();
        let path = fixture_path(CURRENT, index);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, sparse(&image)).unwrap();
    }
}
