//! A sort criterion's `numeric_type` and `format`, as Elasticsearch 8
//! applies them: `numeric_type` converts the values (a `double` field
//! sorted as `long` shows truncated whole numbers, a `date` field as
//! `date_nanos` shows nanoseconds), `format` shows a date criterion's
//! values as formatted text, which `search_after` takes back; both are
//! refused, in Elasticsearch's words, where the field's type has no use
//! for them.

use crate::common;

use common::{logs_index, search_logs, try_search};
use serde_json::{json, Value};
use strata_search::Precondition;

fn setup() -> (tempfile::TempDir, strata_search::Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = logs_index(
        tmp.path(),
        1,
        json!({"ts": {"type": "date"}, "price": {"type": "double"},
               "n": {"type": "long"}, "tag": {"type": "keyword"}}),
    );
    let docs = [
        ("a", "2024-03-01T10:00:00Z", 2.75, 3),
        ("b", "2024-03-02T10:00:00Z", -1.5, 1),
        ("c", "2024-03-03T10:00:00Z", 9.25, 2),
    ];
    for (id, ts, price, n) in docs {
        let doc = json!({"ts": ts, "price": price, "n": n, "tag": id});
        index
            .index_document(Some(id), doc.to_string().as_bytes(), Precondition::None)
            .unwrap();
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

/// The hits' ids and first sort values of `sort` (and `extra` keys).
fn sorted(
    catalog: &strata_search::Catalog,
    sort: Value,
    extra: Value,
) -> (Vec<String>, Vec<Value>) {
    let mut body = json!({"size": 10, "sort": sort});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let r = search_logs(catalog, &body);
    let hits = r["hits"]["hits"].as_array().unwrap();
    (
        hits.iter()
            .map(|h| h["_id"].as_str().unwrap().to_string())
            .collect(),
        hits.iter().map(|h| h["sort"][0].clone()).collect(),
    )
}

fn error(catalog: &strata_search::Catalog, sort: Value) -> String {
    try_search(catalog, &json!({"sort": sort}))
        .expect_err("the sort is refused")
        .to_string()
}

#[test]
fn numeric_type_converts_the_values() {
    let (_tmp, c) = setup();
    let (ids, values) = sorted(&c, json!([{"price": {"numeric_type": "long"}}]), json!({}));
    assert_eq!(ids, ["b", "a", "c"]);
    assert_eq!(values, [json!(-1), json!(2), json!(9)]);
    let (_, values) = sorted(&c, json!([{"n": {"numeric_type": "double"}}]), json!({}));
    assert_eq!(values, [json!(1.0), json!(2.0), json!(3.0)]);
    let (ids, values) = sorted(
        &c,
        json!([{"ts": {"order": "desc", "numeric_type": "date_nanos"}}]),
        json!({}),
    );
    assert_eq!(ids, ["c", "b", "a"]);
    assert_eq!(values[2], json!(1_709_287_200_000_000_000i64));
    // search_after takes the values back on the same scale.
    let (ids, _) = sorted(
        &c,
        json!([{"ts": {"order": "desc", "numeric_type": "date_nanos"}}]),
        json!({"search_after": [values[0]]}),
    );
    assert_eq!(ids, ["b", "a"]);
}

#[test]
fn format_shows_a_dates_sort_values_as_text_that_search_after_takes_back() {
    let (_tmp, c) = setup();
    let sort = json!([{"ts": {"order": "asc", "format": "yyyy-MM-dd"}}]);
    let (ids, values) = sorted(&c, sort.clone(), json!({}));
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(
        values,
        [
            json!("2024-03-01"),
            json!("2024-03-02"),
            json!("2024-03-03")
        ]
    );
    // A formatted value is as precise as its format: midnight here.
    let (ids, _) = sorted(&c, sort, json!({"search_after": ["2024-03-02"]}));
    assert_eq!(ids, ["b", "c"]);
    // Without a format, a date string in search_after is read with the
    // field's format.
    let (ids, values) = sorted(
        &c,
        json!([{"ts": "asc"}]),
        json!({"search_after": ["2024-03-01T10:00:00Z"]}),
    );
    assert_eq!(ids, ["b", "c"]);
    assert_eq!(values[0], json!(1_709_373_600_000i64));
}

#[test]
fn options_the_fields_type_has_no_use_for_are_refused() {
    let (_tmp, c) = setup();
    let e = error(&c, json!([{"tag": {"numeric_type": "long"}}]));
    assert!(
        e.contains("[numeric_type] option cannot be set on a non-numeric field, got keyword"),
        "{e}"
    );
    let e = error(&c, json!([{"n": {"numeric_type": "float"}}]));
    assert!(
        e.contains(
            "invalid value for [numeric_type], must be [long, double, date, date_nanos], got float"
        ),
        "{e}"
    );
    let e = error(&c, json!([{"tag": {"format": "yyyy"}}]));
    assert!(
        e.contains("Field [tag] of type [keyword] does not support custom formats"),
        "{e}"
    );
    let e = error(&c, json!([{"price": {"format": "0.00"}}]));
    assert!(e.contains("is not supported by this server"), "{e}");
    let e = try_search(&c, &json!({"sort": [{"ts": {"format": "yyyy-QQ"}}]})).unwrap_err();
    assert!(
        matches!(e, strata_search::SearchError::IllegalArgument(_)),
        "{e:?}"
    );
    assert!(e.to_string().contains("Invalid format: [yyyy-QQ]"), "{e}");
    let e = error(&c, json!([{"_score": {"numeric_type": "long"}}]));
    assert!(
        e.contains("[_score] does not support [numeric_type]"),
        "{e}"
    );
}
