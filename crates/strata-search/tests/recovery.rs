//! Restart tests: a model of acknowledged operations (a `BTreeMap`) checked
//! after reopening without a flush (translog replay), after a flush
//! (committed segments, trimmed translog), and after both mixed.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

fn check(catalog: &Catalog, model: &BTreeMap<String, Value>) {
    let index = catalog.get("m").unwrap();
    for i in 0..60 {
        let id = format!("k{i}");
        let got = index.get_document(&id).unwrap();
        match model.get(&id) {
            Some(v) => {
                let got: Value =
                    serde_json::from_slice(&got.expect("acknowledged doc lost").source).unwrap();
                assert_eq!(&got, v, "doc {id}");
            }
            None => assert!(got.is_none(), "deleted doc {id} came back"),
        }
    }
    index.refresh().unwrap();
    assert_eq!(index.doc_count(), model.len() as u64);
}

#[test]
fn model_with_restarts_flushes_and_replay() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let mut model = BTreeMap::new();
    {
        let catalog = Catalog::open(tmp.path()).unwrap();
        catalog
            .create_index(
                "m",
                &json!({"settings": {"number_of_shards": 3, "refresh_interval": "-1"}}),
            )
            .unwrap();
    }
    for round in 0..6 {
        let catalog = Catalog::open(tmp.path()).unwrap();
        check(&catalog, &model);
        let index = catalog.get("m").unwrap();
        for step in 0..80 {
            let id = format!("k{}", rng.gen_range(0..60));
            match rng.gen_range(0..10) {
                0..=5 => {
                    let doc = json!({"round": round, "step": step, "v": rng.gen_range(0..1000)});
                    let r = index
                        .index_document(Some(&id), doc.to_string().as_bytes(), Precondition::None)
                        .unwrap();
                    index.wait_durable(r.lsn).unwrap();
                    model.insert(id, doc);
                }
                6..=7 => {
                    let r = index.delete_document(&id, Precondition::None).unwrap();
                    index.wait_durable(r.lsn).unwrap();
                    model.remove(&id);
                }
                8 => index.refresh().unwrap(),
                _ => {
                    if round % 2 == 0 {
                        index.flush().unwrap();
                    }
                }
            }
        }
        // Crash-like: no flush, no close; the catalog and index are dropped.
        drop(index);
        drop(catalog);
    }
    let catalog = Catalog::open(tmp.path()).unwrap();
    check(&catalog, &model);
}
