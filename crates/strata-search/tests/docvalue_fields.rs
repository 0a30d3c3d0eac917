//! `docvalue_fields` in both forms (strings and `{field, format}` objects,
//! mixed): hits carry `fields` with arrays of values, dates formatted as
//! asked, and bad requests are 400s.

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

fn setup(tmp: &std::path::Path) -> Catalog {
    let catalog = Catalog::open(tmp).unwrap();
    let index = catalog
        .create_index(
            "logs",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {"properties": {
                    "@timestamp": {"type": "date"},
                    "day": {"type": "date", "format": "epoch_millis||strict_date_optional_time"},
                    "host": {"properties": {"name": {"type": "keyword", "ignore_above": 8}}},
                    "status": {"type": "integer"},
                    "message": {"type": "text"}
                }}
            }),
        )
        .unwrap();
    let docs = [
        json!({"@timestamp": "2024-01-31T12:00:00Z", "day": 1_706_659_200_000i64,
               "host": {"name": ["web-2", "web-1", "much-too-long"]}, "status": 200,
               "message": "hello"}),
        json!({"@timestamp": 1_706_702_400_123i64, "host.name": "db", "status": [404, 200]}),
        json!({"message": "no values"}),
    ];
    for (i, doc) in docs.iter().enumerate() {
        index
            .index_document(
                Some(&format!("d{i}")),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
    }
    index.refresh().unwrap();
    catalog
}

fn fields_by_id(catalog: &Catalog, docvalue_fields: Value) -> Value {
    let indices = catalog.resolve("logs").unwrap();
    let body = json!({ "docvalue_fields": docvalue_fields });
    let resp = search(&indices, &SearchRequest::parse(&body).unwrap()).unwrap();
    let mut out = serde_json::Map::new();
    for hit in resp["hits"]["hits"].as_array().unwrap() {
        let id = hit["_id"].as_str().unwrap().to_string();
        out.insert(id, hit.get("fields").cloned().unwrap_or(Value::Null));
    }
    Value::Object(out)
}

#[test]
fn object_and_string_forms_with_date_formats() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path());
    let got = fields_by_id(
        &catalog,
        json!([
            {"field": "@timestamp", "format": "date_time"},
            "host.name",
            {"field": "status"},
            {"field": "day", "format": "use_field_mapping"}
        ]),
    );
    assert_eq!(
        got["d0"],
        json!({
            "@timestamp": ["2024-01-31T12:00:00.000Z"],
            "host.name": ["web-1", "web-2"],
            "status": [200],
            "day": ["1706659200000"]
        }),
        "{got}"
    );
    assert_eq!(
        got["d1"],
        json!({
            "@timestamp": ["2024-01-31T12:00:00.123Z"],
            "host.name": ["db"],
            "status": [200, 404]
        }),
        "{got}"
    );
    assert_eq!(got["d2"], Value::Null, "no values, no fields: {got}");

    for (format, want) in [
        (
            "strict_date_optional_time",
            json!(["2024-01-31T12:00:00.123Z"]),
        ),
        ("epoch_millis", json!(["1706702400123"])),
        ("use_field_mapping", json!(["2024-01-31T12:00:00.123Z"])),
    ] {
        let got = fields_by_id(&catalog, json!([{"field": "@timestamp", "format": format}]));
        assert_eq!(got["d1"]["@timestamp"], want, "{format}: {got}");
    }
    let plain = fields_by_id(&catalog, json!(["@timestamp", "day", "nope"]));
    assert_eq!(
        plain["d0"],
        json!({"@timestamp": ["2024-01-31T12:00:00.000Z"], "day": ["1706659200000"]})
    );
    let wild = fields_by_id(&catalog, json!(["host.*", "stat*"]));
    assert_eq!(
        wild["d1"],
        json!({"host.name": ["db"], "status": [200, 404]})
    );
}

#[test]
fn bad_docvalue_fields_are_400() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path());
    let indices = catalog.resolve("logs").unwrap();
    for bad in [
        json!([{"field": "@timestamp", "format": "no_such_format"}]),
        json!([{"format": "date_time"}]),
        json!([{"field": "@timestamp", "colour": "red"}]),
        json!([7]),
    ] {
        let err = SearchRequest::parse(&json!({ "docvalue_fields": bad })).unwrap_err();
        assert_eq!(err.status(), 400, "{bad}: {err}");
    }
    for bad in [
        json!(["message"]),
        json!([{"field": "status", "format": "epoch_millis"}]),
    ] {
        let req = SearchRequest::parse(&json!({ "docvalue_fields": bad })).unwrap();
        // Refused in the fetch phase, on every shard with hits: the
        // search fails as a whole, caused by the field's error.
        let err = search(&indices, &req).unwrap_err();
        assert_eq!(err.status(), 400, "{bad}: {err}");
        assert_eq!(err.es_type(), "search_phase_execution_exception");
        let cause = err.cause().expect("the shards' failure");
        assert_eq!(cause.es_type(), "illegal_argument_exception");
    }
}

/// Dates are read from their columns (several values sorted, each segment
/// its own column, none for a document without one), dates in nested
/// objects from the source; both as the source values parse.
#[test]
fn dates_from_columns_and_nested_dates_from_source() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "logs",
            &json!({
                "settings": {"number_of_shards": 1, "refresh_interval": "-1"},
                "mappings": {"properties": {
                    "seen": {"type": "date"},
                    "visits": {"type": "nested", "properties": {"at": {"type": "date"}}}
                }}
            }),
        )
        .unwrap();
    let docs = [
        json!({"seen": ["2024-03-02T00:00:00Z", "2024-03-01T00:00:00.5Z"],
               "visits": [{"at": "2024-01-02T00:00:00Z"}, {"at": "2024-01-01T00:00:00Z"}]}),
        json!({"seen": 0}),
        json!({"visits": {"at": 86_400_000}}),
    ];
    for (i, doc) in docs.iter().enumerate() {
        let id = format!("d{i}");
        index
            .index_document(Some(&id), doc.to_string().as_bytes(), Precondition::None)
            .unwrap();
        // One segment per document.
        index.refresh().unwrap();
    }
    let indices = catalog.resolve("logs").unwrap();
    for source in [json!(true), json!(false)] {
        let body = json!({"_source": source, "docvalue_fields": ["seen", "visits.at"]});
        let resp = search(&indices, &SearchRequest::parse(&body).unwrap()).unwrap();
        let mut got = serde_json::Map::new();
        for hit in resp["hits"]["hits"].as_array().unwrap() {
            let fields = hit.get("fields").cloned().unwrap_or(Value::Null);
            got.insert(hit["_id"].as_str().unwrap().to_string(), fields);
        }
        let want = json!({
            "d0": {"seen": ["2024-03-01T00:00:00.500Z", "2024-03-02T00:00:00.000Z"],
                   "visits.at": ["2024-01-01T00:00:00.000Z", "2024-01-02T00:00:00.000Z"]},
            "d1": {"seen": ["1970-01-01T00:00:00.000Z"]},
            "d2": {"visits.at": ["1970-01-02T00:00:00.000Z"]}
        });
        assert_eq!(Value::Object(got), want, "_source {source}");
    }

    // A date mapped after a document was indexed has no doc value in it
    // (Elasticsearch reads doc values, not the source); a new one does.
    index.update_mappings(&json!({"dynamic": false})).unwrap();
    index
        .index_document(
            Some("d3"),
            br#"{"later": "2024-05-05T00:00:00Z"}"#,
            Precondition::None,
        )
        .unwrap();
    index
        .update_mappings(&json!({"properties": {"later": {"type": "date"}}}))
        .unwrap();
    index
        .index_document(
            Some("d4"),
            br#"{"later": "2024-06-06T00:00:00Z"}"#,
            Precondition::None,
        )
        .unwrap();
    index.refresh().unwrap();
    let body = json!({"docvalue_fields": ["later"], "query": {"ids": {"values": ["d3", "d4"]}}});
    let resp = search(&indices, &SearchRequest::parse(&body).unwrap()).unwrap();
    let hits = resp["hits"]["hits"].as_array().unwrap();
    let fields = |id: &str| {
        let hit = hits.iter().find(|h| h["_id"] == id).unwrap();
        hit.get("fields").cloned().unwrap_or(Value::Null)
    };
    assert_eq!(fields("d3"), Value::Null, "{resp}");
    assert_eq!(fields("d4"), json!({"later": ["2024-06-06T00:00:00.000Z"]}));
}
