//! `ssd` indices on a node SSD store shared with the key-value engine:
//! their flushed segment files are a file set of the store (user
//! `search`), never files of the shard directory. A flush cut at any sync
//! of the store or of the tree, then a power cut of both (clean or torn),
//! reopens with every acknowledged document; deleting the index gives the
//! space back; a node without the store refuses such an index rather than
//! open it empty.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use strata_device::{
    BlockDevice, DirectoryTree, FaultyBlockDevice, FaultyTree, MemBlockDevice, MemTree,
};
use strata_search::{Catalog, NodeStore, SearchFiles, SearchIndex, SearchStorage, StoreTier};
use strata_ssd::{OtherUsers, SsdConfig, SsdStore};

use crate::common::crash_model::{check, write, write_sized, Model};

/// The smallest store block: flushes of a quarter of it (16 KiB) and more
/// go to the store, and a chunk (the largest entry, under 64 KiB) is
/// smaller than a block-cache block, so block reads span chunks.
const BLOCK: usize = 64 * 1024;
/// Store blocks of the test devices.
const BLOCKS: usize = 256;
/// Words each crash-test document carries beyond its own: enough for a
/// flush of one batch to reach the store.
const WORDS: u64 = 200;

fn config() -> SsdConfig {
    SsdConfig {
        io_threads: 2,
        rebuild_threads: 2,
        dram_cache_size: 256 * 1024,
        ..SsdConfig::with_block_size(BLOCK)
    }
}

/// The node: the store's device id, search's user of it, and the catalog.
struct Node {
    device_id: u64,
    store: Arc<NodeStore>,
    catalog: Catalog,
}

/// Opens the store on `device` as the key-value engine would (no records
/// of its own here), with search's marks, then the search node on it.
fn open(root: &Path, device: Arc<dyn BlockDevice>, tree: Arc<dyn DirectoryTree>) -> Node {
    let files = SearchFiles::new(tree);
    let store = Arc::new(NodeStore::new(files.clone(), root));
    let mut recovery = SsdStore::open(device, config()).unwrap();
    recovery
        .scan(|_, _, _| panic!("no key-value entries"))
        .unwrap();
    let users = OtherUsers::none().with(Arc::clone(&store) as Arc<dyn strata_ssd::MarkUser>);
    users.mark_all(&recovery).unwrap();
    let device_id = recovery.device_id();
    store.attach(recovery.finish().unwrap()).unwrap();
    let storage = SearchStorage {
        files,
        default_tier: StoreTier::Ssd,
        node_store: Some(Arc::clone(&store)),
        ..Default::default()
    };
    let catalog = Catalog::open_with(root, storage)
        .unwrap_or_else(|e| panic!("the node does not reopen: {e}"));
    Node {
        device_id,
        store,
        catalog,
    }
}

/// A batch of 24 changes over 30 ids, large enough for the store,
/// refreshed.
fn batch(index: &SearchIndex, model: &mut Model, round: u64) {
    write_sized(index, model, round, 24, 30, WORDS);
    index.refresh().unwrap();
}

/// Search's live bytes in the store.
fn live(node: &NodeStore) -> u64 {
    let users = node.stats().map_or_else(Vec::new, |s| s.users);
    (users
        .iter()
        .find(|u| u.user == strata_ssd::StoreUser::SEARCH))
    .map_or(0, |u| u.bytes_live)
}

#[test]
fn flushed_segments_live_in_the_store_and_leave_with_their_index() {
    let root = tempfile::tempdir().unwrap();
    let device = MemBlockDevice::new(BLOCKS * BLOCK);
    let tree = MemTree::new();
    let mut model = Model::new();
    {
        let Node {
            catalog,
            store: node,
            ..
        } = open(
            root.path(),
            Arc::new(device.clone()),
            Arc::new(tree.clone()),
        );
        let body = json!({"settings": {"number_of_shards": 2, "refresh_interval": "-1"}});
        let index = catalog.create_index("docs", &body).unwrap();
        for round in 0..3 {
            batch(&index, &mut model, round);
            index.flush().unwrap();
        }
        assert!(live(&node) > 0, "the segment files are in the store");
        // The shard directories hold tantivy's commit files and the
        // catalog, no segment file.
        for n in 0..2 {
            let shard = root.path().join("docs/shards").join(n.to_string());
            let names: Vec<String> = (tree.list_files(&shard).unwrap().into_iter())
                .map(|(name, _)| name)
                .collect();
            assert!(names.iter().any(|n| n == "segments.catalog"), "{names:?}");
            assert!(
                names
                    .iter()
                    .all(|n| !n.ends_with(".idx") && !n.ends_with(".store")),
                "segment files on the tree: {names:?}"
            );
        }
        assert!(index.store_size_bytes() >= live(&node));
    }
    // A clean power cut of both.
    let Node {
        catalog,
        store: node,
        ..
    } = open(
        root.path(),
        Arc::new(device.crash()),
        Arc::new(tree.crash()),
    );
    check(&catalog, &model, 30, "after a restart");
    let index = catalog.get("docs").unwrap();
    batch(&index, &mut model, 3);
    index.flush().unwrap();
    check(&catalog, &model, 30, "after another flush");
    assert!(live(&node) > 0);
    // A passing holder (as the refresh ticker's round, which CI once
    // caught holding it): the deletion waits for it, then closes the index.
    let holder = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        drop(index);
    });
    assert_eq!(catalog.delete("docs").unwrap(), 1);
    assert_eq!(live(&node), 0, "deleting the index releases its files");
    holder.join().unwrap();
}

#[test]
fn a_node_without_the_store_refuses_an_index_kept_in_it() {
    let root = tempfile::tempdir().unwrap();
    let device = MemBlockDevice::new(BLOCKS * BLOCK);
    let tree = MemTree::new();
    {
        let Node { catalog, .. } = open(
            root.path(),
            Arc::new(device.clone()),
            Arc::new(tree.clone()),
        );
        let body = json!({"settings": {"number_of_shards": 1, "refresh_interval": "-1"}});
        let index = catalog.create_index("docs", &body).unwrap();
        batch(&index, &mut Model::new(), 0);
        index.flush().unwrap();
    }
    let storage = SearchStorage {
        files: SearchFiles::new(Arc::new(tree.crash())),
        default_tier: StoreTier::Ssd,
        ..Default::default()
    };
    let error = Catalog::open_with(root.path(), storage)
        .err()
        .expect("refused");
    assert!(error.to_string().contains("SSD store"), "{error}");
}

/// Two flushed rounds, a third written, then its flush with the store's
/// (`on_store`) or the tree's syncs failing from the `k`-th on; then a
/// power cut of both. Returns the flush's syncs of that device when none
/// fails (`k` = `u64::MAX`).
fn run(k: u64, on_store: bool, torn: bool) -> u64 {
    let root = tempfile::tempdir().unwrap();
    let device = MemBlockDevice::new(BLOCKS * BLOCK);
    let mem = MemTree::new();
    let faulty_device = FaultyBlockDevice::new(Arc::new(device.clone()));
    let faulty_tree = FaultyTree::new(Arc::new(mem.clone()));
    let (store_faults, tree_faults) = (faulty_device.faults().clone(), faulty_tree.faults());
    let mut model = Model::new();
    let syncs = {
        let Node { catalog, .. } = open(
            root.path(),
            Arc::new(faulty_device),
            Arc::new(faulty_tree.clone()),
        );
        let body = json!({"settings": {"number_of_shards": 1, "refresh_interval": "-1"}});
        let index = catalog.create_index("docs", &body).unwrap();
        for round in 0..2 {
            batch(&index, &mut model, round);
            index.flush().unwrap();
        }
        batch(&index, &mut model, 2);
        let faults = if on_store { &store_faults } else { tree_faults };
        let before = faults.syncs();
        faults.fail_syncs_after(k);
        let flushed = index.flush();
        let syncs = faults.syncs() - before;
        if k == u64::MAX {
            flushed.unwrap();
        } else {
            assert!(flushed.is_err(), "a flush whose sync {k} failed succeeded");
        }
        syncs
    };
    let seed = k.wrapping_mul(2) + u64::from(on_store);
    let (device, tree) = if torn {
        (device.crash_torn(seed), mem.crash_torn(seed))
    } else {
        (device.crash(), mem.crash())
    };
    let Node {
        catalog, device_id, ..
    } = open(root.path(), Arc::new(device), Arc::new(tree.clone()));
    let what = format!(
        "cut at {} sync {k}, torn {torn}",
        if on_store { "store" } else { "tree" }
    );
    check(&catalog, &model, 30, &what);
    // Files a cut commit left in the store that no commit names are gone.
    let shard = root.path().join("docs/shards/0");
    let named = named_files(&tree, &shard);
    let dir = tree.open_dir(&shard).unwrap();
    let stored = strata_ssd::Catalog::load(&*dir, "segments.catalog", device_id).unwrap();
    for (file, _) in stored.files() {
        assert!(
            named.iter().any(|n| n == file),
            "{what}: {file} left in the store"
        );
    }
    syncs
}

/// The files the shard's durable `meta.json` and `.managed.json` name.
fn named_files(tree: &MemTree, shard: &Path) -> Vec<String> {
    let dir = tree.open_dir(shard).unwrap();
    let managed = dir.read_all(".managed.json").unwrap();
    let mut named: Vec<String> = serde_json::from_slice(&managed).unwrap();
    let meta: serde_json::Value =
        serde_json::from_slice(&dir.read_all("meta.json").unwrap()).unwrap();
    for segment in meta["segments"].as_array().unwrap() {
        let id = segment["segment_id"].as_str().unwrap().replace('-', "");
        let files =
            ["idx", "pos", "term", "store", "fast", "fieldnorm"].map(|ext| format!("{id}.{ext}"));
        named.extend(files);
        if let Some(opstamp) = segment["deletes"]["opstamp"].as_u64() {
            named.push(format!("{id}.{opstamp}.del"));
        }
    }
    named
}

#[test]
fn a_flush_cut_at_any_sync_keeps_every_acknowledged_document() {
    for on_store in [true, false] {
        let syncs = run(u64::MAX, on_store, false);
        assert!(
            syncs >= 1,
            "the flush syncs the {}",
            if on_store { "store" } else { "tree" }
        );
        for k in 0..syncs {
            run(k, on_store, false);
            run(k, on_store, true);
        }
    }
}

/// The segment files (`.idx`) in the shard directory `shard` of `tree`.
fn segment_files_on_tree(tree: &MemTree, shard: &Path) -> usize {
    (tree.list_files(shard).unwrap().into_iter())
        .filter(|(name, _)| name.ends_with(".idx"))
        .count()
}

#[test]
fn a_small_flush_stays_in_the_shard_directory_and_a_large_one_goes_to_the_store() {
    let root = tempfile::tempdir().unwrap();
    let device = MemBlockDevice::new(BLOCKS * BLOCK);
    let tree = MemTree::new();
    let Node {
        catalog,
        store: node,
        ..
    } = open(
        root.path(),
        Arc::new(device.clone()),
        Arc::new(tree.clone()),
    );
    let body = json!({"settings": {"number_of_shards": 1, "refresh_interval": "-1"}});
    let index = catalog.create_index("docs", &body).unwrap();
    let shard = root.path().join("docs/shards/0");
    let mut model = Model::new();
    write(&index, &mut model, 0, 24, 30);
    index.refresh().unwrap();
    index.flush().unwrap();
    assert_eq!(
        live(&node),
        0,
        "a few small documents stay out of the store"
    );
    assert_eq!(segment_files_on_tree(&tree, &shard), 1);
    // A flush of more than a quarter of a store block (16 KiB here).
    for i in 0..100u64 {
        // Words that neither compress nor repeat much.
        let words: Vec<String> = (0..300u64)
            .map(|j| {
                format!(
                    "w{:x}",
                    (i * 300 + j).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40
                )
            })
            .collect();
        let doc = json!({"text": words.join(" "), "i": i});
        let id = format!("big{i}");
        let r = (index.index_document(
            Some(&id),
            doc.to_string().as_bytes(),
            strata_search::Precondition::None,
        ))
        .unwrap();
        index.wait_durable(r.lsn).unwrap();
    }
    index.refresh().unwrap();
    index.flush().unwrap();
    assert!(live(&node) > 64 * 1024, "{}", live(&node));
    drop(index);
    drop(catalog);
    // Both places come back.
    let Node { catalog, .. } = open(
        root.path(),
        Arc::new(device.crash()),
        Arc::new(tree.crash()),
    );
    let index = catalog.get("docs").unwrap();
    assert_eq!(index.doc_count(), model.len() as u64 + 100);
}
