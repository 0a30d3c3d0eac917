//! `top_metrics` at the top level and under `terms` and `date_histogram`
//! over `compat_aggs`' five documents: sort values and metrics as
//! Elasticsearch 8 writes them (dates formatted, booleans, nulls), by a
//! field or `_score`; and the errors bad requests give.

use serde_json::{json, Value};

use crate::compat_aggs::{aggs, refusal, setup};

#[test]
fn top_metrics_at_the_top_and_per_bucket() {
    let (_tmp, catalog) = setup();
    let all = json!({"match_all": {}});
    let out = aggs(
        &catalog,
        all.clone(),
        json!({"best": {"top_metrics": {"metrics": [{"field": "double"}, {"field": "tag"},
                                                   {"field": "t"}, {"field": "flag"},
                                                   {"field": "addr"}, {"field": "nope"}],
                                      "sort": {"int": "desc"}}},
               "two": {"top_metrics": {"metrics": {"field": "int"}, "sort": {"t": "asc"}, "size": 2}},
               "tags": {"terms": {"field": "tag"},
                        "aggs": {"tm": {"top_metrics": {"metrics": {"field": "int"},
                                                        "sort": {"double": "asc"}}}}},
               "days": {"date_histogram": {"field": "t", "calendar_interval": "day"},
                        "aggs": {"tm": {"top_metrics": {"metrics": {"field": "double"},
                                                        "sort": "int"}}}}}),
    );
    // The largest `int` (151): its document's values; no `addr`, no `nope`.
    assert_eq!(
        out["best"],
        json!({"top": [{"sort": [151], "metrics": {"double": 151.0, "tag": "foo",
            "t": "2024-01-03T00:00:00.000Z", "flag": true, "addr": null, "nope": null}}]}),
        "{out}"
    );
    // Sorted by a date: the sort value formatted; two documents share the
    // first day (ids 0 and 2), so the first two are of that day.
    let two = out["two"]["top"].as_array().unwrap();
    assert_eq!(two.len(), 2, "{out}");
    for t in two {
        assert_eq!(t["sort"], json!(["2024-01-01T00:00:00.000Z"]), "{out}");
    }
    let mut ints: Vec<i64> = two
        .iter()
        .map(|t| t["metrics"]["int"].as_i64().unwrap())
        .collect();
    ints.sort();
    assert_eq!(ints, [1, 101]);
    let tags = out["tags"]["buckets"].as_array().unwrap();
    assert_eq!(tags[0]["key"], "foo");
    assert_eq!(
        tags[0]["tm"],
        json!({"top": [{"sort": [1.0], "metrics": {"int": 1}}]})
    );
    assert_eq!(
        tags[1]["tm"],
        json!({"top": [{"sort": [101.0], "metrics": {"int": 101}}]})
    );
    // The second day: only document 1 has an `int` (document 4 has none
    // and is left out, as Elasticsearch never collects it).
    let days = out["days"]["buckets"].as_array().unwrap();
    assert_eq!(
        days[1]["tm"],
        json!({"top": [{"sort": [51], "metrics": {"double": 51.0}}]})
    );
    // By score: every document matches `match_all` with score 1.
    let scored = aggs(
        &catalog,
        json!({"match": {"note": "three"}}),
        json!({"s": {"top_metrics": {"metrics": {"field": "int"}, "sort": "_score"}}}),
    );
    assert_eq!(
        scored["s"]["top"][0]["metrics"],
        json!({"int": 101}),
        "{scored}"
    );
    assert!(scored["s"]["top"][0]["sort"][0].as_f64().unwrap() > 0.0);
    // No documents: an empty list.
    let none = aggs(
        &catalog,
        json!({"term": {"tag": "zzz"}}),
        json!({"s": {"top_metrics": {"metrics": {"field": "int"}, "sort": "int"}}}),
    );
    assert_eq!(none["s"], json!({"top": []}));
}

#[test]
fn top_metrics_refusals() {
    let (_tmp, catalog) = setup();
    let tm = |metric: &str, sort: Value, size: Value| {
        json!({"t": {"terms": {"field": "tag"},
                     "aggs": {"m": {"top_metrics": {"metrics": {"field": metric},
                                                    "sort": sort, "size": size}}}}})
    };
    let cases = [
        (
            tm("int", json!({"int": "asc"}), json!(11)),
            "[top_metrics.size] must not be more than [10] but was [11]. This limit can be set by changing the [index.top_metrics_max_size] index level setting.",
            "illegal_argument_exception",
        ),
        (
            tm("note", json!({"int": "asc"}), json!(1)),
            "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [note] in order to load field data by uninverting the inverted index.",
            "illegal_argument_exception",
        ),
        (
            tm("int", json!({"tag": "asc"}), json!(1)),
            "error building sort for field [tag] of type [keyword] in index [logs]: only supported on numeric fields",
            "illegal_argument_exception",
        ),
        (
            tm("int", json!({"nope": "asc"}), json!(1)),
            "No mapping found for [nope] in order to sort on",
            "illegal_argument_exception",
        ),
    ];
    for (body, message, es_type) in cases {
        assert_eq!(refusal(&catalog, body), (message.into(), es_type, 400));
    }
}
