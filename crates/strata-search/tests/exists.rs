//! `exists` (and `_exists_:` in `query_string`) for every field type and
//! for objects, checked against counts computed here from random
//! documents: typed values are found by their columns, text by
//! `_field_names`, objects by either, across segments and a reopen.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

/// Leaf paths, with a generator of a value for each.
const LEAVES: &[&str] = &[
    "kw",
    "num",
    "when",
    "flag",
    "addr",
    "loc",
    "body",
    "obj.kw",
    "obj.num",
    "only_text.body",
    "deep.a.b",
    "multi",
];

fn value(rng: &mut StdRng, leaf: &str) -> Value {
    match leaf {
        "kw" | "obj.kw" => json!(format!("k{}", rng.gen_range(0..5))),
        "num" | "obj.num" => json!(rng.gen_range(-5..5)),
        "when" => json!(1_700_000_000_000i64 + rng.gen_range(0..1_000_000)),
        "flag" => json!(rng.gen_bool(0.5)),
        "addr" => json!(format!("10.0.0.{}", rng.gen_range(1..200))),
        "loc" => json!({"lat": rng.gen_range(-80.0..80.0), "lon": rng.gen_range(-170.0..170.0)}),
        "body" | "only_text.body" => json!(format!("some words {}", rng.gen_range(0..9))),
        "deep.a.b" => json!(rng.gen_range(0..3)),
        // An array of keywords, sometimes empty (an empty array is no value).
        "multi" => {
            let n = rng.gen_range(0..3);
            json!((0..n).map(|i| format!("m{i}")).collect::<Vec<_>>())
        }
        _ => unreachable!(),
    }
}

fn insert(doc: &mut Map<String, Value>, path: &str, v: Value) {
    match path.split_once('.') {
        None => {
            doc.insert(path.to_string(), v);
        }
        Some((head, rest)) => {
            let child = doc.entry(head.to_string()).or_insert_with(|| json!({}));
            insert(child.as_object_mut().unwrap(), rest, v);
        }
    }
}

fn has_value(doc: &Value, path: &str) -> bool {
    let mut at = doc;
    for part in path.split('.') {
        match at.get(part) {
            Some(v) => at = v,
            None => return false,
        }
    }
    match at {
        Value::Null => false,
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => o.keys().any(|k| has_value(at, k)),
        _ => true,
    }
}

fn count(catalog: &Catalog, query: Value) -> u64 {
    let indices = catalog.resolve("things").unwrap();
    let req = SearchRequest::parse(&json!({"query": query, "size": 0})).unwrap();
    search(&indices, &req).unwrap()["hits"]["total"]["value"]
        .as_u64()
        .unwrap()
}

fn check_all(catalog: &Catalog, docs: &[Value]) {
    let mut paths: Vec<&str> = LEAVES.to_vec();
    paths.extend([
        "obj",
        "only_text",
        "deep",
        "deep.a",
        "nowhere",
        "obj.nowhere",
    ]);
    for path in paths {
        let want = docs.iter().filter(|d| has_value(d, path)).count() as u64;
        let got = count(catalog, json!({"exists": {"field": path}}));
        assert_eq!(got, want, "exists {path}");
        let qs = json!({"query_string": {"query": format!("_exists_:{path}")}});
        assert_eq!(count(catalog, qs), want, "_exists_:{path}");
        let neg = json!({"bool": {"must_not": [{"exists": {"field": path}}]}});
        assert_eq!(
            count(catalog, neg),
            docs.len() as u64 - want,
            "not exists {path}"
        );
    }
}

#[test]
fn exists_matches_a_model_for_every_type_and_object() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(7);
    let mut docs = Vec::new();
    {
        let catalog = Catalog::open(tmp.path()).unwrap();
        let index = catalog
            .create_index(
                "things",
                &json!({
                    "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                    "mappings": {"properties": {
                        "kw": {"type": "keyword"},
                        "num": {"type": "long"},
                        "when": {"type": "date"},
                        "flag": {"type": "boolean"},
                        "addr": {"type": "ip"},
                        "loc": {"type": "geo_point"},
                        "body": {"type": "text"},
                        "multi": {"type": "keyword"},
                        "only_text": {"properties": {"body": {"type": "text"}}}
                    }}
                }),
            )
            .unwrap();
        for i in 0..300 {
            let mut doc = Map::new();
            for leaf in LEAVES {
                if rng.gen_bool(0.4) {
                    let v = value(&mut rng, leaf);
                    insert(&mut doc, leaf, v);
                }
            }
            if rng.gen_bool(0.1) {
                // A null is no value either.
                doc.insert("kw".into(), Value::Null);
            }
            let doc = Value::Object(doc);
            index
                .index_document(
                    Some(&format!("d{i}")),
                    doc.to_string().as_bytes(),
                    Precondition::None,
                )
                .unwrap();
            docs.push(doc);
            if i % 70 == 69 {
                index.refresh().unwrap();
            }
        }
        index.refresh().unwrap();
        check_all(&catalog, &docs);
        index.flush().unwrap();
    }
    let catalog = Catalog::open(tmp.path()).unwrap();
    check_all(&catalog, &docs);
}
