//! Restart tests: a model of acknowledged operations (a `BTreeMap`) checked
//! after reopening without a flush (translog replay), after a flush
//! (committed segments, trimmed translog), and after both mixed; each
//! document's version and sequence number as a get and a search's hits
//! report them (both read from the segments' columns once refreshed).

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

/// The model: each live document's source and the writes since it was last created.
type Model = BTreeMap<String, (Value, u64)>;

fn check(catalog: &Catalog, model: &Model) {
    let index = catalog.get("m").unwrap();
    for i in 0..60 {
        let id = format!("k{i}");
        let got = index.get_document(&id).unwrap();
        match model.get(&id) {
            Some((v, _)) => {
                let got: Value =
                    serde_json::from_slice(&got.expect("acknowledged doc lost").source).unwrap();
                assert_eq!(&got, v, "doc {id}");
            }
            None => assert!(got.is_none(), "deleted doc {id} came back"),
        }
    }
    index.refresh().unwrap();
    assert_eq!(index.doc_count(), model.len() as u64);
    let body = json!({"size": 100, "version": true, "seq_no_primary_term": true});
    let resp = search(
        &catalog.resolve("m").unwrap(),
        &SearchRequest::parse(&body).unwrap(),
    );
    let hits = resp.unwrap()["hits"]["hits"].as_array().unwrap().clone();
    assert_eq!(hits.len(), model.len());
    for hit in hits {
        let id = hit["_id"].as_str().unwrap();
        let stored = index.get_document(id).unwrap().unwrap().version;
        let (version, seq_no) = (hit["_version"].as_u64(), hit["_seq_no"].as_u64());
        assert_eq!(
            (version, seq_no),
            (Some(stored.version), Some(stored.seq_no)),
            "{id}"
        );
        assert!(
            stored.version >= model[id].1,
            "{id}: version {} after {} writes",
            stored.version,
            model[id].1
        );
    }
}

#[test]
fn model_with_restarts_flushes_and_replay() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let mut model = Model::new();
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
                    let writes = model.get(&id).map_or(0, |(_, n)| *n) + 1;
                    model.insert(id, (doc, writes));
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
