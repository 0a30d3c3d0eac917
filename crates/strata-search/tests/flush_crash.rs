//! A shard's flush under power cuts and failing devices. A flush writes the
//! segment files, `.managed.json` and `meta.json` of the newest commit,
//! removes merged-away files and trims the translog, all through the device
//! layer (`SearchStorage::files`), so a `MemTree` cut reaches every one of
//! those files. Whatever the cut, the index reopens with every acknowledged
//! document (from the persisted commit or the translog) and no deleted one.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use strata_device::{DirectoryTree, FaultyTree, MemTree};
use strata_search::{Catalog, SearchFiles, SearchIndex, SearchStorage};

use crate::common::crash_model::{check, write, Model};

fn open(root: &Path, tree: Arc<dyn DirectoryTree>) -> Catalog {
    let storage = SearchStorage {
        files: SearchFiles::new(tree),
        ..Default::default()
    };
    Catalog::open_with(root, storage).unwrap_or_else(|e| panic!("the node does not reopen: {e}"))
}

/// A batch of 24 changes over 30 ids, refreshed.
fn batch(index: &SearchIndex, model: &mut Model, round: u64) {
    write(index, model, round, 24, 30);
    index.refresh().unwrap();
}

/// Two flushed rounds, a third written, then its flush with syncs failing
/// from the `k`-th on; the power is cut by `cut`. Returns the flush's syncs
/// when none fails (`k` = `u64::MAX`).
fn run(k: u64, cut: &dyn Fn(&MemTree) -> MemTree) -> u64 {
    let root = tempfile::tempdir().unwrap();
    let mem = MemTree::new();
    let faulty = FaultyTree::new(Arc::new(mem.clone()));
    let mut model = Model::new();
    let syncs = {
        let catalog = open(root.path(), Arc::new(faulty.clone()));
        let body = json!({"settings": {"number_of_shards": 1, "refresh_interval": "-1"}});
        let index = catalog.create_index("docs", &body).unwrap();
        for round in 0..2 {
            batch(&index, &mut model, round);
            index.flush().unwrap();
        }
        batch(&index, &mut model, 2);
        let faults = faulty.faults();
        let before = faults.syncs();
        faults.fail_syncs_after(k);
        let flushed = index.flush();
        faults.heal();
        if k == u64::MAX {
            flushed.unwrap();
        } else {
            assert!(flushed.is_err(), "a flush whose sync {k} failed succeeded");
        }
        faults.syncs() - before
    };
    let catalog = open(root.path(), Arc::new(cut(&mem)));
    check(&catalog, &model, 30, &format!("cut at sync {k}"));
    syncs
}

#[test]
fn a_power_cut_at_any_sync_of_a_flush_keeps_every_acknowledged_document() {
    let syncs = run(u64::MAX, &|m: &MemTree| m.crash());
    assert!(
        syncs >= 3,
        "a flush syncs its files, meta.json and the translog"
    );
    for k in 0..syncs {
        run(k, &|m: &MemTree| m.crash());
        run(k, &move |m: &MemTree| m.crash_torn(k));
    }
}
