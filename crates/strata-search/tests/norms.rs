//! `norms` on text fields: the mapping keeps what was given, and scores do
//! not depend on document length either way (this engine keeps no length
//! norms for text; with `norms: false` that is exactly what Elasticsearch
//! does, with the default `true` it is a documented difference).

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

fn scores(catalog: &Catalog, field: &str) -> Vec<(String, f64)> {
    let indices = catalog.resolve("logs").unwrap();
    let body = json!({"query": {"match": {field: "error"}}});
    let resp = search(&indices, &SearchRequest::parse(&body).unwrap()).unwrap();
    resp["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["_id"].as_str().unwrap().to_string(),
                h["_score"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn norms_false_is_kept_in_the_mapping_and_scores_ignore_length() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "logs",
            &json!({
                "settings": {"number_of_shards": 1, "refresh_interval": "-1"},
                "mappings": {"properties": {
                    "plain": {"type": "text", "norms": false},
                    "normed": {"type": "text"}
                }}
            }),
        )
        .unwrap();
    let short = "error";
    let long = "error while reading the configuration file from the data directory";
    for (id, text) in [("short", short), ("long", long)] {
        let doc = json!({"plain": text, "normed": text});
        index
            .index_document(Some(id), doc.to_string().as_bytes(), Precondition::None)
            .unwrap();
    }
    index.refresh().unwrap();

    let mapping: Value = catalog.resolve("logs").unwrap()[0].mappings().to_json();
    assert_eq!(
        mapping["properties"]["plain"]["norms"],
        json!(false),
        "{mapping}"
    );
    assert!(
        mapping["properties"]["normed"].get("norms").is_none(),
        "{mapping}"
    );

    for field in ["plain", "normed"] {
        let found = scores(&catalog, field);
        assert_eq!(found.len(), 2, "{field}: {found:?}");
        assert!(
            (found[0].1 - found[1].1).abs() < 1e-9,
            "{field}: length must not matter: {found:?}"
        );
    }
    let indices = catalog.resolve("logs").unwrap();
    let phrase = json!({"query": {"match_phrase": {"plain": "configuration file"}}});
    let resp = search(&indices, &SearchRequest::parse(&phrase).unwrap()).unwrap();
    assert_eq!(resp["hits"]["total"]["value"], json!(1), "{resp}");

    // Norms are a text parameter only.
    let err = catalog.create_index(
        "other",
        &json!({"mappings": {"properties": {"n": {"type": "long", "norms": false}}}}),
    );
    assert!(err.is_err());
    let bad = catalog.create_index(
        "other",
        &json!({"mappings": {"properties": {"t": {"type": "text", "norms": "no"}}}}),
    );
    assert!(bad.is_err());
}
