//! Sorting by a float field across segments whose columns tantivy stored
//! with different numeric types: a segment where every value is a whole
//! number keeps an i64 column, another keeps f64. Every document must sort
//! by its value, whatever its segment's column type.

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

fn setup() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "n",
            &json!({
                "settings": {"number_of_shards": 1, "refresh_interval": "-1"},
                "mappings": {"properties": {"price": {"type": "double"}, "rank": {"type": "float"},
                                            "count": {"type": "long"}}}
            }),
        )
        .unwrap();
    // Segment 1: whole numbers only. Segment 2: fractions. Segment 3: mixed.
    let segments: [&[(u32, f64)]; 3] = [
        &[(1, 3.0), (2, 1.0), (3, 7.0)],
        &[(4, 2.5), (5, 0.5), (6, 6.25)],
        &[(7, 4.0), (8, 5.5)],
    ];
    for seg in segments {
        for (id, price) in seg {
            let doc = json!({"price": price, "rank": -price, "count": i64::from(*id) * 10});
            index
                .index_document(
                    Some(&id.to_string()),
                    doc.to_string().as_bytes(),
                    Precondition::None,
                )
                .unwrap();
        }
        index.refresh().unwrap();
    }
    // One document without a price sorts last either way.
    index
        .index_document(Some("9"), br#"{"count": 1}"#, Precondition::None)
        .unwrap();
    index.refresh().unwrap();
    (tmp, catalog)
}

fn sorted(catalog: &Catalog, sort: Value, extra: Value) -> (Vec<String>, Vec<Value>) {
    let mut body = json!({"size": 20, "sort": sort});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    let r = search(
        &catalog.resolve("n").unwrap(),
        &SearchRequest::parse(&body).unwrap(),
    )
    .unwrap();
    let hits = r["hits"]["hits"].as_array().unwrap();
    (
        hits.iter()
            .map(|h| h["_id"].as_str().unwrap().to_string())
            .collect(),
        hits.iter().map(|h| h["sort"][0].clone()).collect(),
    )
}

#[test]
fn float_sort_spans_integer_and_float_columns() {
    let (_tmp, c) = setup();
    let (ids, values) = sorted(&c, json!([{"price": "asc"}]), json!({}));
    assert_eq!(ids, ["5", "2", "4", "1", "7", "8", "6", "3", "9"]);
    assert_eq!(values[1], json!(1.0));
    assert_eq!(values[8], Value::Null);
    let (ids, _) = sorted(&c, json!([{"price": "desc"}]), json!({}));
    assert_eq!(ids, ["3", "6", "8", "7", "1", "4", "2", "5", "9"]);
    let (ids, _) = sorted(&c, json!([{"rank": "asc"}]), json!({}));
    assert_eq!(ids, ["3", "6", "8", "7", "1", "4", "2", "5", "9"]);
    // search_after continues across segments of both kinds.
    let (ids, _) = sorted(
        &c,
        json!([{"price": "asc"}]),
        json!({"search_after": [2.5]}),
    );
    assert_eq!(ids, ["1", "7", "8", "6", "3", "9"]);
    let (ids, _) = sorted(&c, json!([{"price": "asc"}]), json!({"search_after": [3]}));
    assert_eq!(ids, ["7", "8", "6", "3", "9"]);
    let (ids, _) = sorted(&c, json!([{"count": "desc"}]), json!({}));
    assert_eq!(ids, ["8", "7", "6", "5", "4", "3", "2", "1", "9"]);
}
