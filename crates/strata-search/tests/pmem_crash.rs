//! The `pmem` tier under power cuts and failing devices. A `pmem` shard
//! keeps the segments of each refresh and its `meta.json` in the node's
//! persistent-memory directory, written through the node's device tree
//! like every other file of search, so one `MemTree` cut reaches them
//! (nothing lands on the real pmem path). Whatever the cut during a
//! refresh, the index reopens with every acknowledged document and no
//! deleted one; with no cut, the refreshed documents come back from pmem
//! without replaying their translog records.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use strata_device::{DirectoryTree, FaultyTree, MemTree};
use strata_search::{Catalog, SearchFiles, SearchStorage};

use crate::common::crash_model::{check, write, Model};

fn open(root: &Path, tree: Arc<dyn DirectoryTree>) -> Catalog {
    let storage = SearchStorage {
        files: SearchFiles::new(tree),
        pmem_root: Some(root.join("pmem")),
        ..Default::default()
    };
    Catalog::open_with(&root.join("search"), storage)
        .unwrap_or_else(|e| panic!("the node does not reopen: {e}"))
}

/// A flushed round, a refreshed one, a third written, then its refresh
/// with syncs failing from the `k`-th on; the power is cut by `cut`.
/// Returns the refresh's syncs when none fails (`k` = `u64::MAX`) and the
/// records the reopen replayed.
fn run(k: u64, cut: &dyn Fn(&MemTree) -> MemTree) -> (u64, u64) {
    let root = tempfile::tempdir().unwrap();
    let mem = MemTree::new();
    let faulty = FaultyTree::new(Arc::new(mem.clone()));
    let mut model = Model::new();
    let syncs = {
        let catalog = open(root.path(), Arc::new(faulty.clone()));
        let body = json!({"settings": {"number_of_shards": 1, "refresh_interval": "-1",
                                       "store": {"tier": "pmem"}}});
        let index = catalog.create_index("docs", &body).unwrap();
        write(&index, &mut model, 0, 20, 25);
        index.refresh().unwrap();
        index.flush().unwrap();
        write(&index, &mut model, 1, 20, 25);
        index.refresh().unwrap();
        write(&index, &mut model, 2, 20, 25);
        let faults = faulty.faults();
        let before = faults.syncs();
        faults.fail_syncs_after(k);
        let refreshed = index.refresh();
        faults.heal();
        if k == u64::MAX {
            refreshed.unwrap();
        } else if k == 0 {
            // Later syncs may be a background merge's, whose failure the
            // merge logs; the refresh's own first sync fails the refresh.
            assert!(
                refreshed.is_err(),
                "a refresh whose first sync failed succeeded"
            );
        }
        faults.syncs() - before
    };
    let pmem_on_disk = std::fs::read_dir(root.path().join("pmem")).map_or(0, Iterator::count);
    assert_eq!(pmem_on_disk, 0, "pmem files went around the device tree");
    let catalog = open(root.path(), Arc::new(cut(&mem)));
    let replayed = catalog.get("docs").unwrap().replayed_at_open();
    check(&catalog, &model, 25, &format!("cut at sync {k}"));
    (syncs, replayed)
}

#[test]
fn a_power_cut_at_any_sync_of_a_pmem_refresh_keeps_every_acknowledged_document() {
    let (syncs, replayed) = run(u64::MAX, &|m: &MemTree| m.crash());
    assert!(
        syncs >= 2,
        "a pmem refresh syncs its segment files and meta.json: {syncs}"
    );
    assert_eq!(
        replayed, 0,
        "every refreshed document came back from pmem, none from the translog"
    );
    for k in 0..syncs {
        run(k, &|m: &MemTree| m.crash());
        run(k, &move |m: &MemTree| m.crash_torn(k));
    }
}
