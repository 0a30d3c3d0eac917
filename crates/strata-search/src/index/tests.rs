//! Unit tests of an index's internal state, which the crate's API does
//! not show: an index holds a tantivy writer and an open translog only
//! while written to (none after creation, both after a write, none again
//! once idle for the storage's `idle_after`, flushed first; nothing
//! acknowledged is lost across idle closes and restarts, and translog LSNs
//! keep increasing), and the translog's mode follows `PUT _settings`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::SearchIndex;
use crate::catalog::Catalog;
use crate::shard::Precondition;
use crate::store::SearchStorage;

fn open(root: &Path) -> Catalog {
    let storage = SearchStorage {
        idle_after: Duration::from_millis(200),
        ..Default::default()
    };
    Catalog::open_with(root, storage).unwrap()
}

fn wait_closed(index: &SearchIndex) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while index.is_open_for_writes() {
        assert!(Instant::now() < deadline, "the idle index was not closed");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn write(index: &SearchIndex, model: &mut BTreeMap<String, Value>, from: usize, to: usize) -> u64 {
    let mut last = 0;
    for i in from..to {
        let id = format!("d{}", i % 50);
        let doc = json!({"i": i, "msg": format!("message {i}")});
        let r = index
            .index_document(Some(&id), doc.to_string().as_bytes(), Precondition::None)
            .unwrap();
        index.wait_durable(r.lsn).unwrap();
        assert!(r.lsn > last, "LSNs increase: {} after {last}", r.lsn);
        last = r.lsn;
        model.insert(id, doc);
    }
    last
}

fn check(index: &SearchIndex, model: &BTreeMap<String, Value>) {
    for (id, want) in model {
        let got = index
            .get_document(id)
            .unwrap()
            .expect("acknowledged doc lost");
        let got: Value = serde_json::from_slice(&got.source).unwrap();
        assert_eq!(&got, want, "{id}");
    }
    index.refresh().unwrap();
    assert_eq!(index.doc_count(), model.len() as u64);
}

#[test]
fn idle_indices_close_writers_and_translog_and_reopen_on_write() {
    let tmp = tempfile::tempdir().unwrap();
    let mut model = BTreeMap::new();
    let last = {
        let catalog = open(tmp.path());
        let index = catalog
            .create_index("i", &json!({"settings": {"number_of_shards": 2}}))
            .unwrap();
        assert!(!index.is_open_for_writes(), "a new index holds nothing");
        let first = write(&index, &mut model, 0, 80);
        assert!(index.is_open_for_writes());
        wait_closed(&index);
        check(&index, &model);
        // Writes reopen what they need; LSNs continue.
        let second = write(&index, &mut model, 80, 160);
        assert!(second > first);
        check(&index, &model);
        wait_closed(&index);
        let deleted = index.delete_document("d3", Precondition::None).unwrap();
        assert!(deleted.lsn > second);
        index.wait_durable(deleted.lsn).unwrap();
        model.remove("d3");
        check(&index, &model);
        deleted.lsn
        // Dropped without a shutdown: what the idle flush did not cover is
        // replayed from the translog.
    };
    let catalog = open(tmp.path());
    let index = catalog.get("i").unwrap();
    check(&index, &model);
    let after = write(&index, &mut model, 160, 170);
    assert!(after > last, "LSNs keep increasing across restarts");
    catalog.shutdown().unwrap();
    drop(catalog);
    let catalog = open(tmp.path());
    let index = catalog.get("i").unwrap();
    assert!(!index.is_open_for_writes(), "a flushed index opens closed");
    check(&index, &model);
}

/// `translog.durability` and `translog.sync_interval` are dynamic, as in
/// Elasticsearch: `PUT _settings` switches the translog itself, and the
/// settings survive a restart.
#[test]
fn translog_durability_changes_at_run_time() {
    use strata_log::Durability;

    let tmp = tempfile::tempdir().unwrap();
    {
        let catalog = Catalog::open(tmp.path()).unwrap();
        catalog.create_index("t", &json!({})).unwrap();
        let index = catalog.get("t").unwrap();
        assert_eq!(index.translog_durability(), Durability::OnDemand);
        let r = index
            .index_document(Some("1"), br#"{"a":1}"#, Precondition::None)
            .unwrap();
        index
            .update_settings(
                &json!({"index": {"translog": {"durability": "async", "sync_interval": "250ms"}}}),
            )
            .unwrap();
        assert_eq!(
            index.translog_durability(),
            Durability::Async {
                sync_interval: Duration::from_millis(250)
            }
        );
        // Written under `request`, not waited for: the switch synced it.
        index.wait_durable(r.lsn).unwrap();
        let bad = index
            .update_settings(&json!({"index.translog.sync_interval": "5ms"}))
            .unwrap_err();
        assert_eq!(bad.status(), 400);
        assert_eq!(
            index.settings().sync_interval,
            Duration::from_millis(250),
            "a refused update changes nothing"
        );
    }
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog.get("t").unwrap();
    assert_eq!(
        index.translog_durability(),
        Durability::Async {
            sync_interval: Duration::from_millis(250)
        }
    );
    index
        .update_settings(&json!({"index.translog.durability": "request"}))
        .unwrap();
    assert_eq!(index.translog_durability(), Durability::OnDemand);
    assert!(index.get_document("1").unwrap().is_some());
}
