//! The directory work search does besides writing files (creating the
//! node's root and each shard's directory, listing the root for indices,
//! measuring an index's size) goes through the device layer's tree
//! (`SearchStorage::files`) like its files do. So a node on a `MemTree`
//! touches nothing on the real filesystem, finds its indices and their
//! sizes in the tree, and reopens after a power cut with what was made
//! durable; and a `FaultyTree` failing those operations makes them
//! errors, never panics.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use strata_device::{DirectoryTree, FaultyTree, MemTree};
use strata_search::{Catalog, Precondition, SearchError, SearchFiles, SearchStorage};

fn open(root: &Path, tree: Arc<dyn DirectoryTree>) -> strata_search::Result<Catalog> {
    let storage = SearchStorage {
        files: SearchFiles::new(tree),
        ..Default::default()
    };
    Catalog::open_with(root, storage)
}

const BODY: &str = r#"{"settings": {"number_of_shards": 2, "refresh_interval": "-1"}}"#;

/// Indexes `n` documents, each acknowledged once durable.
fn index_docs(catalog: &Catalog, n: u64) {
    let index = catalog.get("logs").unwrap();
    for i in 0..n {
        let doc = json!({"i": i, "text": format!("word{i}")}).to_string();
        let r = index
            .index_document(Some(&format!("d{i}")), doc.as_bytes(), Precondition::None)
            .unwrap();
        index.wait_durable(r.lsn).unwrap();
    }
}

/// Bytes of every file at or below `path` in `tree`.
fn tree_bytes(tree: &dyn DirectoryTree, path: &Path) -> u64 {
    let files: u64 = tree.list_files(path).unwrap().iter().map(|f| f.1).sum();
    let dirs = tree.list_dirs(path).unwrap();
    files
        + dirs
            .iter()
            .map(|d| tree_bytes(tree, &path.join(d)))
            .sum::<u64>()
}

#[test]
fn a_node_on_a_memory_tree_keeps_everything_in_it_across_a_power_cut() {
    let root = tempfile::tempdir().unwrap();
    let mem = MemTree::new();
    {
        let catalog = open(root.path(), Arc::new(mem.clone())).unwrap();
        let index = catalog
            .create_index("logs", &serde_json::from_str(BODY).unwrap())
            .unwrap();
        index_docs(&catalog, 20);
        index.flush().unwrap();
        // Sizes are measured in the tree: the flushed segments, the
        // translog and `index.json`, nothing fresh after the flush.
        let size = index.store_size_bytes();
        let fresh = index.storage_stats().fresh_bytes;
        assert!(size > fresh);
        assert_eq!(size, fresh + tree_bytes(&mem, &root.path().join("logs")));
        let shards = index.shard_store_sizes();
        assert_eq!(shards.len(), 2);
        assert!(shards.iter().all(|&s| s > 0), "{shards:?}");
        assert!(
            shards.iter().sum::<u64>() < size,
            "the translog is the index's"
        );
        // Written after the flush: only in the translog.
        index_docs(&catalog, 25);
    }
    // Not one directory or file on the real filesystem.
    let real: Vec<_> = std::fs::read_dir(root.path()).unwrap().collect();
    assert!(real.is_empty(), "written outside the tree: {real:?}");

    let after = mem.crash();
    let catalog = open(root.path(), Arc::new(after.clone()))
        .unwrap_or_else(|e| panic!("the node does not reopen: {e}"));
    assert_eq!(catalog.names(), vec!["logs".to_string()]);
    let index = catalog.get("logs").unwrap();
    index.refresh().unwrap();
    assert_eq!(index.doc_count(), 25, "acknowledged documents lost");
    let fresh = index.storage_stats().fresh_bytes;
    let flushed = tree_bytes(&after, &root.path().join("logs"));
    assert_eq!(index.store_size_bytes(), fresh + flushed);
    assert!(std::fs::read_dir(root.path()).unwrap().next().is_none());
}

/// A directory of the root without `index.json` (an index whose creation
/// the power cut) is skipped, and the name can be created again.
#[test]
fn a_cut_index_creation_is_skipped_and_can_be_redone() {
    let root = tempfile::tempdir().unwrap();
    let mem = MemTree::new();
    let faulty = FaultyTree::new(Arc::new(mem.clone()));
    {
        let catalog = open(root.path(), Arc::new(faulty.clone())).unwrap();
        faulty.faults().fail_syncs_after(0);
        let body = serde_json::from_str(BODY).unwrap();
        assert!(catalog.create_index("logs", &body).is_err());
        faulty.faults().heal();
    }
    let after = mem.crash();
    let catalog = open(root.path(), Arc::new(after)).unwrap();
    assert!(catalog.names().is_empty());
    catalog
        .create_index("logs", &serde_json::from_str(BODY).unwrap())
        .unwrap();
    index_docs(&catalog, 3);
}

/// How the injected `EIO` reads.
const EIO: &str = "Input/output error";

/// Runs `op` with the tree's operations failing from the `k`-th on, for
/// every `k` below what `op` makes when nothing fails: each one is the
/// device's error, reported, not a panic. Returns how many tree operations `op` makes.
fn fail_each_tree_op<T>(faulty: &FaultyTree, op: &dyn Fn() -> strata_search::Result<T>) -> u64 {
    let faults = faulty.faults();
    let before = faults.tree_ops();
    op().map(drop)
        .unwrap_or_else(|e| panic!("without faults: {e}"));
    let ops = faults.tree_ops() - before;
    for k in 0..ops {
        faults.fail_tree_ops_after(k);
        let result = op();
        faults.heal();
        match result {
            Err(SearchError::Io { .. }) => {}
            // Tantivy's directory opening a shard wraps the device's error.
            Err(SearchError::Engine(e)) if e.to_string().contains(EIO) => {}
            Err(e) => panic!("tree operation {k}: not the device's error: {e:?}"),
            Ok(_) => panic!("tree operation {k} failed unnoticed"),
        }
    }
    ops
}

#[test]
fn failing_directory_creation_and_listing_are_errors() {
    let root = tempfile::tempdir().unwrap();
    let faulty = FaultyTree::new(Arc::new(MemTree::new()));
    {
        let catalog = open(root.path(), Arc::new(faulty.clone())).unwrap();
        let body = serde_json::from_str(BODY).unwrap();
        // Created and deleted again when it succeeds.
        let create = || {
            // The handle is let go first: a deletion waits for holders.
            let created = catalog.create_index("logs", &body).map(drop);
            if created.is_ok() {
                catalog.delete("logs")?;
            }
            created
        };
        let ops = fail_each_tree_op(&faulty, &create);
        assert!(ops >= 4, "root, index, two shards: {ops}");
        catalog.create_index("logs", &body).unwrap();
        index_docs(&catalog, 5);
        // A measurement that cannot list counts less, and does not fail.
        let index = catalog.get("logs").unwrap();
        let size = index.store_size_bytes();
        faulty.faults().fail_tree_ops_after(0);
        assert!(index.store_size_bytes() < size);
        faulty.faults().heal();
    }
    // Opening the node: creating the root, listing it, opening each index.
    let reopen = || open(root.path(), Arc::new(faulty.clone()));
    let ops = fail_each_tree_op(&faulty, &reopen);
    assert!(ops >= 3, "{ops}");
    assert_eq!(reopen().unwrap().names(), vec!["logs".to_string()]);
}
