//! `index.store.tier` end to end on the engine: for each placement, index
//! documents, refresh, flush, index more, "crash" (drop without flush or
//! close) and reopen; every acknowledged document must be found by a
//! search and a get. `pmem` must reopen its refreshed segments without
//! replaying their translog records; `ssd` with a cache far smaller than
//! the index must still answer correctly while counting misses. Bad values
//! and changes after creation are refused.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use strata_search::{
    search, BlockCache, Catalog, Precondition, SearchRequest, SearchStorage, StoreTier, BLOCK_SIZE,
};

fn storage(root: &Path, tier: StoreTier, cache_bytes: u64) -> SearchStorage {
    SearchStorage {
        default_tier: tier,
        cache: Arc::new(BlockCache::new(cache_bytes)),
        pmem_root: Some(root.join("pmem")),
        ..Default::default()
    }
}

fn open(root: &Path, tier: StoreTier, cache_bytes: u64) -> Catalog {
    Catalog::open_with(&root.join("search"), storage(root, tier, cache_bytes)).unwrap()
}

fn put(catalog: &Catalog, from: usize, to: usize) {
    let index = catalog.get("logs").unwrap();
    for i in from..to {
        let doc = json!({"n": i, "msg": format!("message number {i} of the test"), "tag": format!("t{}", i % 7)});
        let r = index
            .index_document(
                Some(&format!("d{i}")),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
        index.wait_durable(r.lsn).unwrap();
    }
}

/// Checks that documents `0..n` are all searchable and readable.
fn check(catalog: &Catalog, n: usize) {
    let index = catalog.get("logs").unwrap();
    index.refresh().unwrap();
    assert_eq!(index.doc_count(), n as u64);
    let body = json!({"size": 0, "query": {"range": {"n": {"gte": 0}}},
                      "aggs": {"sum": {"sum": {"field": "n"}}}});
    let found = search(&[Arc::clone(&index)], &SearchRequest::parse(&body).unwrap()).unwrap();
    assert_eq!(found["hits"]["total"]["value"], json!(n));
    let expected = (n * n.saturating_sub(1) / 2) as f64;
    assert_eq!(
        found["aggregations"]["sum"]["value"].as_f64(),
        Some(expected)
    );
    for i in (0..n).step_by(97) {
        let doc = index
            .get_document(&format!("d{i}"))
            .unwrap()
            .expect("document lost");
        let source: Value = serde_json::from_slice(&doc.source).unwrap();
        assert_eq!(source["n"], json!(i));
    }
    let hits = json!({"query": {"match": {"msg": "number"}}, "size": 3, "sort": [{"n": "desc"}]});
    let found = search(&[index], &SearchRequest::parse(&hits).unwrap()).unwrap();
    assert_eq!(found["hits"]["hits"][0]["_source"]["n"], json!(n - 1));
}

/// The round trip every placement must pass; returns the records the
/// last reopen replayed.
fn round_trip(tier: StoreTier, cache_bytes: u64) -> (u64, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    {
        let catalog = open(tmp.path(), StoreTier::Dram, cache_bytes);
        let settings = json!({"settings": {"index": {"number_of_shards": 2, "refresh_interval": "-1",
                                                     "store": {"tier": tier.as_str()}}}});
        catalog.create_index("logs", &settings).unwrap();
        put(&catalog, 0, 1500);
        let index = catalog.get("logs").unwrap();
        index.refresh().unwrap();
        index.flush().unwrap();
        put(&catalog, 1500, 2000);
        index.refresh().unwrap();
        check(&catalog, 2000);
        catalog.shutdown().unwrap(); // flushes
    }
    {
        let catalog = open(tmp.path(), StoreTier::Dram, cache_bytes);
        let index = catalog.get("logs").unwrap();
        assert_eq!(
            index.tier(),
            tier,
            "the tier is the index's, not the node's default"
        );
        assert_eq!(
            index.replayed_at_open(),
            0,
            "a clean shutdown flushed everything"
        );
        check(&catalog, 2000);
        let stats = index.storage_stats();
        if tier == StoreTier::Dram {
            assert!(stats.resident_bytes > 0, "{stats:?}");
            assert_eq!(stats.cache_misses, 0, "{stats:?}");
        } else {
            assert_eq!(stats.resident_bytes, 0, "{stats:?}");
            assert!(stats.cache_misses > 0, "{stats:?}");
        }
        put(&catalog, 2000, 2600);
        index.refresh().unwrap();
        put(&catalog, 2600, 2700); // not refreshed: only the translog has them
                                   // Crash-like: no flush, no close.
    }
    let catalog = open(tmp.path(), StoreTier::Dram, cache_bytes);
    check(&catalog, 2700);
    let replayed = catalog.get("logs").unwrap().replayed_at_open();
    (replayed, tmp)
}

#[test]
fn dram_survives_restarts_by_flush_and_replay() {
    let (replayed, _tmp) = round_trip(StoreTier::Dram, 4 << 20);
    assert_eq!(
        replayed, 700,
        "the refresh in DRAM was lost, so its records replay"
    );
}

#[test]
fn ssd_survives_restarts_and_reads_through_the_cache() {
    let (replayed, _tmp) = round_trip(StoreTier::Ssd, 4 << 20);
    assert_eq!(replayed, 700);
}

#[test]
fn pmem_reopens_refreshed_segments_without_replay() {
    let (replayed, tmp) = round_trip(StoreTier::Pmem, 4 << 20);
    assert_eq!(replayed, 100, "only what no refresh made durable replays");
    let catalog = open(tmp.path(), StoreTier::Dram, 4 << 20);
    let index = catalog.get("logs").unwrap();
    let uuid = index.settings().uuid;
    assert!(tmp.path().join("pmem").join(&uuid).join("0").is_dir());
    drop(index);
    catalog.delete("logs").unwrap();
    assert!(
        !tmp.path().join("pmem").join(&uuid).exists(),
        "deleting the index frees its pmem"
    );
    drop(catalog);
    // A crash between removing an index and its pmem files leaves an
    // orphan: the next open removes it, and nothing not named like a uuid.
    let pmem = tmp.path().join("pmem");
    std::fs::create_dir_all(pmem.join("0123456789abcdef").join("0")).unwrap();
    std::fs::create_dir_all(pmem.join("not-an-index")).unwrap();
    let catalog = open(tmp.path(), StoreTier::Dram, 4 << 20);
    assert!(!pmem.join("0123456789abcdef").exists());
    assert!(pmem.join("not-an-index").exists());
    drop(catalog);
}

#[test]
fn ssd_with_a_tiny_cache_answers_correctly_and_counts_misses() {
    let tmp = tempfile::tempdir().unwrap();
    let budget = BLOCK_SIZE as u64;
    let catalog = open(tmp.path(), StoreTier::Ssd, budget);
    catalog
        .create_index("logs", &json!({"settings": {"refresh_interval": "-1"}}))
        .unwrap();
    put(&catalog, 0, 4000);
    let index = catalog.get("logs").unwrap();
    assert_eq!(index.tier(), StoreTier::Ssd, "the node's default applies");
    index.flush().unwrap();
    check(&catalog, 4000);
    drop(index);
    drop(catalog);
    let catalog = open(tmp.path(), StoreTier::Ssd, budget);
    check(&catalog, 4000);
    check(&catalog, 4000);
    let stats = catalog.get("logs").unwrap().storage_stats();
    let cache = catalog.storage().cache.stats();
    assert!(stats.cache_misses > 0, "{stats:?}");
    assert_eq!(cache.misses, stats.cache_misses);
    assert!(cache.size_bytes <= budget, "{cache:?}");
    assert!(
        cache.miss_bytes > budget,
        "the index is larger than the cache: {cache:?}"
    );
}

#[test]
fn bad_or_changed_tiers_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = open(tmp.path(), StoreTier::Dram, 1 << 20);
    let err = catalog
        .create_index("a", &json!({"settings": {"index.store.tier": "tape"}}))
        .unwrap_err();
    assert_eq!(
        (err.status(), err.es_type()),
        (400, "illegal_argument_exception")
    );
    assert!(catalog.get("a").is_err());
    let index = catalog
        .create_index("b", &json!({"settings": {"index.store.tier": "ssd"}}))
        .unwrap();
    let err = index
        .update_settings(&json!({"index": {"store": {"tier": "dram"}}}))
        .unwrap_err();
    assert_eq!(err.status(), 400);
    assert_eq!(index.tier(), StoreTier::Ssd);
    assert_eq!(
        index.describe()["settings"]["index"]["store"]["tier"],
        "ssd"
    );
    // A node without persistent memory refuses pmem indices.
    let bare = Catalog::open(&tmp.path().join("bare")).unwrap();
    let err = bare
        .create_index("p", &json!({"settings": {"index.store.tier": "pmem"}}))
        .unwrap_err();
    assert_eq!(err.status(), 400);
    assert!(err.to_string().contains("search_pmem_dir"), "{err}");
}
