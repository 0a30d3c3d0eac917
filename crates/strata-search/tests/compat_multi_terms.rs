//! `multi_terms` over `compat_aggs`' five documents: keys of keyword,
//! boolean, date, double and ip values as Elasticsearch 8 writes them,
//! `key_as_string`, counts, `sum_other_doc_count`, `min_doc_count`, the
//! orders (count, key, a metric sub-aggregation), sub-aggregations, under
//! `terms` and `date_histogram`; and the errors bad requests give.

use serde_json::{json, Value};

use crate::compat_aggs::{aggs, refusal, setup};

/// `(key, key_as_string, doc_count)` of each bucket.
fn multi_keys(agg: &Value) -> Vec<(Value, String, u64)> {
    agg["buckets"]
        .as_array()
        .unwrap_or_else(|| panic!("no buckets in {agg}"))
        .iter()
        .map(|b| {
            (
                b["key"].clone(),
                b["key_as_string"].as_str().unwrap().to_string(),
                b["doc_count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn multi_terms_keys_counts_and_order() {
    let (_tmp, catalog) = setup();
    let all = json!({"match_all": {}});
    let out = aggs(
        &catalog,
        all.clone(),
        json!({"tf": {"multi_terms": {"terms": [{"field": "tag"}, {"field": "flag"}]}},
               "top2": {"multi_terms": {"terms": [{"field": "tag"}, {"field": "flag"}],
                                        "size": 2, "show_term_doc_count_error": true}},
               "by_key": {"multi_terms": {"terms": [{"field": "tag"}, {"field": "flag"}],
                                          "order": {"_key": "desc"}}},
               "dated": {"multi_terms": {"terms": [{"field": "tag"}, {"field": "t"}],
                                         "order": {"_key": "asc"}, "size": 1}},
               "twice": {"multi_terms": {"terms": [{"field": "tag"}, {"field": "flag"}],
                                         "min_doc_count": 2}},
               "nums": {"multi_terms": {"terms": [{"field": "double"},
                                                  {"field": "addr", "missing": "0.0.0.0"}],
                                        "order": {"_key": "asc"}, "size": 2}}}),
    );
    let k = |key: Value, text: &str, n: u64| (key, text.to_string(), n);
    assert_eq!(
        multi_keys(&out["tf"]),
        [
            k(json!(["foo", true]), "foo|true", 2),
            k(json!(["bar", false]), "bar|false", 1),
            k(json!(["bar", true]), "bar|true", 1),
            k(json!(["foo", false]), "foo|false", 1),
        ],
        "{out}"
    );
    assert_eq!(out["tf"]["sum_other_doc_count"], 0);
    assert_eq!(out["tf"]["doc_count_error_upper_bound"], 0);
    assert!(out["tf"]["buckets"][0]
        .get("doc_count_error_upper_bound")
        .is_none());
    assert_eq!(out["top2"]["sum_other_doc_count"], 2, "{out}");
    assert_eq!(out["top2"]["buckets"][1]["doc_count_error_upper_bound"], 0);
    assert_eq!(
        multi_keys(&out["by_key"])[0],
        k(json!(["foo", true]), "foo|true", 2)
    );
    // Dates keyed in the field's format.
    let day = "2024-01-01T00:00:00.000Z";
    assert_eq!(
        multi_keys(&out["dated"]),
        [k(json!(["bar", day]), &format!("bar|{day}"), 1)],
        "{out}"
    );
    assert_eq!(out["dated"]["sum_other_doc_count"], 4, "{out}");
    // Only foo|true has two documents; the buckets below the minimum are
    // not returned.
    assert_eq!(
        multi_keys(&out["twice"]),
        [k(json!(["foo", true]), "foo|true", 2)],
        "{out}"
    );
    // Doubles as Java prints them; the document without `addr` takes
    // `missing`, the one without `double` is left out.
    assert_eq!(
        multi_keys(&out["nums"]),
        [
            k(json!([1.0, "10.0.0.1"]), "1.0|10.0.0.1", 1),
            k(json!([51.0, "10.0.0.2"]), "51.0|10.0.0.2", 1),
        ],
        "{out}"
    );
    assert_eq!(out["nums"]["sum_other_doc_count"], 2, "{out}");
}

#[test]
fn multi_terms_sub_aggregations_and_metric_order() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        json!({"match_all": {}}),
        json!({"by_sum": {"multi_terms": {"terms": [{"field": "tag"}, {"field": "flag"}],
                                          "order": {"s": "asc"}},
                          "aggs": {"s": {"sum": {"field": "int"}},
                                   "days": {"terms": {"field": "t"}}}},
               "by_avg": {"multi_terms": {"terms": [{"field": "tag"}, {"field": "flag"}],
                                          "order": [{"st.avg": "desc"}]},
                          "aggs": {"st": {"stats": {"field": "int"}}}},
               "per_tag": {"terms": {"field": "tag"},
                           "aggs": {"mt": {"multi_terms": {"terms": [{"field": "flag"},
                                                                     {"field": "int"}]}}}},
               "per_day": {"date_histogram": {"field": "t", "calendar_interval": "day"},
                           "aggs": {"mt": {"multi_terms": {"terms": [{"field": "tag"},
                                                                     {"field": "flag"}]}}}}}),
    );
    // Sums: bar|false 0 (no `int`), foo|false 51, bar|true 101, foo|true 152.
    let sums: Vec<(String, f64)> = out["by_sum"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["key_as_string"].as_str().unwrap().to_string(),
                b["s"]["value"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        sums,
        [
            ("bar|false".to_string(), 0.0),
            ("foo|false".to_string(), 51.0),
            ("bar|true".to_string(), 101.0),
            ("foo|true".to_string(), 152.0)
        ],
        "{out}"
    );
    let first = &out["by_sum"]["buckets"][3];
    assert_eq!(
        first["days"]["buckets"].as_array().unwrap().len(),
        2,
        "{out}"
    );
    // Averages: the bucket without values (NaN) last.
    let avgs: Vec<&str> = out["by_avg"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["key_as_string"].as_str().unwrap())
        .collect();
    assert_eq!(
        avgs,
        ["bar|true", "foo|true", "foo|false", "bar|false"],
        "{out}"
    );
    let foo = &out["per_tag"]["buckets"][0];
    assert_eq!(foo["key"], "foo");
    assert_eq!(
        multi_keys(&foo["mt"]),
        [
            (json!([false, 51]), "false|51".to_string(), 1),
            (json!([true, 1]), "true|1".to_string(), 1),
            (json!([true, 151]), "true|151".to_string(), 1),
        ],
        "{out}"
    );
    let day2 = &out["per_day"]["buckets"][1];
    assert_eq!(
        multi_keys(&day2["mt"]),
        [
            (json!(["bar", false]), "bar|false".to_string(), 1),
            (json!(["foo", false]), "foo|false".to_string(), 1),
        ],
        "{out}"
    );
}

#[test]
fn multi_terms_refusals() {
    let (_tmp, catalog) = setup();
    let mt = |body: Value| json!({"m": {"multi_terms": body}});
    let cases = [
        (
            mt(json!({"terms": [{"field": "tag"}, {"field": "note"}]})),
            "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [note] in order to load field data by uninverting the inverted index.",
            "illegal_argument_exception",
        ),
        (
            mt(json!({"terms": [{"field": "tag"}]})),
            "[multi_terms] failed to parse field [terms]",
            "x_content_parse_exception",
        ),
        (
            mt(json!({"terms": [{"field": "tag"}, {"field": "flag"}], "min_doc_count": 0})),
            "[multi_terms] failed to parse field [min_doc_count]",
            "x_content_parse_exception",
        ),
        (
            mt(json!({"terms": [{"field": "tag"}, {"field": "flag"}], "order": {"nope": "asc"}})),
            "Invalid aggregator order path [nope]. The provided aggregation [nope] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets.",
            "illegal_argument_exception",
        ),
        (
            mt(json!({"terms": [{"field": "int"}, {"field": "flag", "missing": "maybe"}]})),
            "[missing] value [\"maybe\"] of [m] does not fit field [flag]",
            "illegal_argument_exception",
        ),
    ];
    for (body, message, es_type) in cases {
        assert_eq!(refusal(&catalog, body), (message.into(), es_type, 400));
    }
}
