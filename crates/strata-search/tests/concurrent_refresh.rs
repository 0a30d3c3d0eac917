//! Writes racing refreshes and flushes: each shard's writer applies its
//! queue on its own thread and a commit no longer holds the shard's lock,
//! so writers keep going while commits run. Writer threads with disjoint
//! ids check every write against a `BTreeMap` model at once (real-time
//! get), while other threads refresh and flush; at the end the searcher,
//! and a reopened catalog (commit payloads plus translog replay), must
//! agree with the models.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchIndex, SearchRequest};

const WRITERS: usize = 3;
const IDS_PER_WRITER: u32 = 40;
const STEPS: u32 = 1_500;

type Model = BTreeMap<String, Value>;

/// Random index and delete operations on the writer's own ids; each is
/// checked with a real-time get right after it.
fn write(catalog: &Catalog, index: &SearchIndex, writer: usize) -> Model {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(writer as u64 + 11);
    let mut model = Model::new();
    for step in 0..STEPS {
        let id = format!("w{writer}-{}", rng.gen_range(0..IDS_PER_WRITER));
        if rng.gen_range(0..5) == 0 {
            let r = index.delete_document(&id, Precondition::None).unwrap();
            index.wait_durable(r.lsn).unwrap();
            model.remove(&id);
        } else {
            let doc = json!({"writer": writer, "step": step, "tag": format!("t{}", step % 7)});
            let r = index
                .index_document(Some(&id), doc.to_string().as_bytes(), Precondition::None)
                .unwrap();
            index.wait_durable(r.lsn).unwrap();
            model.insert(id.clone(), doc);
        }
        check_one(index, &model, &id);
        if step % 50 == 0 {
            // A refresh returns only once the writes before it are
            // searchable, even when another thread's commit was in flight.
            index.refresh().unwrap();
            assert_eq!(searched(catalog, &id), model.get(&id).cloned(), "{id}");
        }
    }
    model
}

/// `id`'s source as a search finds it.
fn searched(catalog: &Catalog, id: &str) -> Option<Value> {
    let indices = catalog.resolve("c").unwrap();
    let body = json!({"query": {"ids": {"values": [id]}}});
    let found = search(&indices, &SearchRequest::parse(&body).unwrap()).unwrap();
    let hits = found["hits"]["hits"].as_array().unwrap();
    assert!(hits.len() <= 1, "{id} found twice");
    hits.first().map(|h| h["_source"].clone())
}

fn check_one(index: &SearchIndex, model: &Model, id: &str) {
    let got = index.get_document(id).unwrap();
    match model.get(id) {
        Some(want) => {
            let doc = got.unwrap_or_else(|| panic!("{id}: an acknowledged write is missing"));
            let doc: Value = serde_json::from_slice(&doc.source).unwrap();
            assert_eq!(&doc, want, "{id}");
        }
        None => assert!(got.is_none(), "{id}: a deleted document came back"),
    }
}

/// Every id of every writer, by real-time get and by search.
fn check_all(catalog: &Catalog, models: &[Model]) {
    let index = catalog.get("c").unwrap();
    for (writer, model) in models.iter().enumerate() {
        for i in 0..IDS_PER_WRITER {
            check_one(&index, model, &format!("w{writer}-{i}"));
        }
    }
    index.refresh().unwrap();
    let indices = catalog.resolve("c").unwrap();
    let body = json!({"size": 1000, "query": {"match_all": {}}});
    let found = search(&indices, &SearchRequest::parse(&body).unwrap()).unwrap();
    let mut searched: Vec<(String, Value)> = found["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["_id"].as_str().unwrap().to_string(), h["_source"].clone()))
        .collect();
    searched.sort_by(|a, b| a.0.cmp(&b.0));
    let mut want: Vec<(String, Value)> = models
        .iter()
        .flat_map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())))
        .collect();
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(searched, want, "the searcher after a refresh");
}

#[test]
fn writes_racing_refreshes_and_flushes_match_the_model() {
    let tmp = tempfile::tempdir().unwrap();
    let models: Vec<Model> = {
        let catalog = Catalog::open(tmp.path()).unwrap();
        catalog
            .create_index(
                "c",
                &json!({"settings": {"number_of_shards": 2, "refresh_interval": "-1"}}),
            )
            .unwrap();
        let index = catalog.get("c").unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let models = std::thread::scope(|s| {
            let refresher = s.spawn(|| {
                let mut rounds = 0u32;
                while !done.load(Ordering::Relaxed) {
                    index.refresh().unwrap();
                    rounds += 1;
                    if rounds % 25 == 0 {
                        index.flush().unwrap();
                    }
                }
                rounds
            });
            // A second refresher: refreshes overlap, and one with nothing
            // new must still wait for the commit in flight.
            let second = s.spawn(|| {
                while !done.load(Ordering::Relaxed) {
                    index.refresh().unwrap();
                    std::thread::yield_now();
                }
            });
            let writers: Vec<_> = (0..WRITERS)
                .map(|w| {
                    let (catalog, index) = (&catalog, &index);
                    s.spawn(move || write(catalog, index, w))
                })
                .collect();
            let models: Vec<Option<Model>> = writers.into_iter().map(|w| w.join().ok()).collect();
            // Set before any assertion: a failed writer must not leave the
            // refreshers running (the scope would wait for them forever).
            done.store(true, Ordering::Relaxed);
            let models: Vec<Model> = models
                .into_iter()
                .map(|m| m.expect("a writer failed"))
                .collect();
            assert!(
                refresher.join().unwrap() > 1,
                "refreshes ran during the writes"
            );
            second.join().unwrap();
            models
        });
        check_all(&catalog, &models);
        // No flush or close: the catalog is dropped as in a crash.
        models
    };
    let catalog = Catalog::open(tmp.path()).unwrap();
    check_all(&catalog, &models);
}
