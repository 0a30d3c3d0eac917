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
