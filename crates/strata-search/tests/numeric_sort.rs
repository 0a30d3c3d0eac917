//! Sorting by a float field across segments whose columns tantivy stored
//! with different numeric types: a segment where every value is a whole
//! number keeps an i64 column, another keeps f64. Every document must sort
//! by its value, whatever its segment's column type.

use serde_json::{json, Value};
use strata_search::search::{search, SearchRequest};
use strata_search::{Catalog, Precondition};

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

/// A segment whose column for a `double` field is i64 (as tantivy keeps
/// all-integral numbers when they arrive as integers) must still give
/// float sort values, like a segment with an f64 column.
#[test]
fn sort_reader_takes_any_numeric_column_type() {
    use std::collections::BTreeMap;
    use strata_search::mapping::Mappings;
    use strata_search::search::sort::{SortField, SortValue, ValueReader};
    use strata_search::store::SchemaFields;
    use tantivy::schema::OwnedValue;
    use tantivy::{Index, TantivyDocument};

    let fields = SchemaFields::build();
    let index = Index::create_in_ram(fields.schema.clone());
    let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
    let add = |writer: &mut tantivy::IndexWriter, price: OwnedValue, count: OwnedValue| {
        let mut doc = TantivyDocument::new();
        let mut obj = BTreeMap::new();
        obj.insert("price".to_string(), price);
        obj.insert("count".to_string(), count);
        doc.add_object(fields.values, obj);
        writer.add_document(doc).unwrap();
    };
    add(&mut writer, OwnedValue::I64(3), OwnedValue::F64(7.0));
    writer.commit().unwrap();
    add(&mut writer, OwnedValue::F64(2.5), OwnedValue::I64(4));
    writer.commit().unwrap();
    let mappings = Mappings::parse(&json!({"properties": {
        "price": {"type": "double"}, "count": {"type": "long"}}}))
    .unwrap();
    let searcher = index.reader().unwrap().searcher();
    let sort = |field: &str| SortField {
        field: field.into(),
        descending: false,
        unmapped_type: None,
        missing: strata_search::search::sort::Missing::Last,
    };
    let mut prices = Vec::new();
    let mut counts = Vec::new();
    for segment in searcher.segment_readers() {
        prices.push(ValueReader::open(&sort("price"), &mappings, segment).value(0, 0.0));
        counts.push(ValueReader::open(&sort("count"), &mappings, segment).value(0, 0.0));
    }
    prices.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    assert_eq!(prices, [SortValue::Float(2.5), SortValue::Float(3.0)]);
    assert!(
        counts.iter().all(|c| *c != SortValue::Missing),
        "{counts:?}"
    );
}
