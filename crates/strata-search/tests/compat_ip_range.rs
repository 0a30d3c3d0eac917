//! `ip_range` over seven documents (IPv4, IPv6, an IPv4-mapped spelling,
//! one with two addresses, one without any) on two shards: from/to and
//! mask ranges in Elasticsearch's bucket order and keys, overlapping
//! ranges, `keyed`, `missing`, sub-aggregations (a metric, `top_hits`
//! computed per bucket), under `terms`, an unmapped field; and the errors
//! bad requests give.

use crate::common;

use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

fn setup() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"addr": {"type": "ip"}, "tag": {"type": "keyword"}, "int": {"type": "integer"}}),
    );
    let docs = [
        json!({"addr": "10.0.0.1", "tag": "foo", "int": 1}),
        json!({"addr": "10.0.0.130", "tag": "foo", "int": 2}),
        json!({"addr": "10.0.0.5", "tag": "bar", "int": 3}),
        json!({"addr": "2001:db8::1", "tag": "bar", "int": 4}),
        json!({"addr": ["10.0.0.2", "192.168.1.1"], "tag": "foo", "int": 5}),
        json!({"tag": "bar", "int": 6}),
        json!({"addr": "::ffff:10.0.0.200", "tag": "foo", "int": 7}),
    ];
    for (i, doc) in docs.iter().enumerate() {
        let id = i.to_string();
        let body = doc.to_string();
        index
            .index_document(Some(&id), body.as_bytes(), Precondition::None)
            .unwrap();
        if i % 3 == 0 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

fn aggs(catalog: &Catalog, aggs: Value) -> Value {
    let body = json!({"size": 0, "aggs": aggs});
    common::search_logs(catalog, &body)["aggregations"].clone()
}

fn refusal(catalog: &Catalog, aggs: Value) -> (String, &'static str, u16) {
    let err = common::try_search(catalog, &json!({"size": 0, "aggs": aggs})).unwrap_err();
    (err.to_string(), err.es_type(), err.status())
}

#[test]
fn buckets_in_elasticsearch_order_with_keys_ends_counts_and_subs() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        json!({"ips": {"ip_range": {"field": "addr", "ranges": [
            {"to": "10.0.0.5"},
            {"from": "10.0.0.5"},
            {"mask": "10.0.0.0/25"},
            {"from": "10.0.0.1", "to": "10.0.0.6", "key": "few"},
            {"mask": "2001:db8::/32"},
            {}
        ]}, "aggs": {"sum": {"sum": {"field": "int"}}}}}),
    );
    // Sorted by from (unbounded first), then to (unbounded last); every
    // document counted once in each range holding one of its addresses.
    assert_eq!(
        out["ips"],
        json!({"buckets": [
            {"key": "*-10.0.0.5", "to": "10.0.0.5", "doc_count": 2, "sum": {"value": 6.0}},
            {"key": "*-*", "doc_count": 6, "sum": {"value": 22.0}},
            {"key": "10.0.0.0/25", "from": "10.0.0.0", "to": "10.0.0.128", "doc_count": 3,
             "sum": {"value": 9.0}},
            {"key": "few", "from": "10.0.0.1", "to": "10.0.0.6", "doc_count": 3,
             "sum": {"value": 9.0}},
            {"key": "10.0.0.5-*", "from": "10.0.0.5", "doc_count": 5, "sum": {"value": 21.0}},
            {"key": "2001:db8::/32", "from": "2001:db8::", "to": "2001:db9::", "doc_count": 1,
             "sum": {"value": 4.0}}
        ]}),
        "{out}"
    );
}

#[test]
fn keyed_with_missing_and_per_bucket_top_hits() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        json!({"ips": {"ip_range": {"field": "addr", "keyed": true, "missing": "10.0.0.50",
            "ranges": [{"from": "10.0.0.64"}, {"mask": "10.0.0.0/26", "key": "low"}]},
            "aggs": {"top": {"top_hits": {"size": 1, "sort": [{"int": "desc"}],
                                          "_source": false}}}}}),
    );
    let buckets = &out["ips"]["buckets"];
    assert_eq!(buckets["low"]["from"], "10.0.0.0", "{out}");
    assert_eq!(buckets["low"]["to"], "10.0.0.64");
    // 10.0.0.1, 10.0.0.5, 10.0.0.2 and the document without an address.
    assert_eq!(buckets["low"]["doc_count"], 4);
    assert!(buckets["low"].get("key").is_none());
    assert_eq!(
        buckets["low"]["top"]["hits"]["hits"][0]["_id"], "5",
        "{out}"
    );
    assert_eq!(buckets["10.0.0.64-*"]["doc_count"], 4);
    assert!(buckets["10.0.0.64-*"].get("to").is_none());
    assert_eq!(buckets["10.0.0.64-*"]["top"]["hits"]["hits"][0]["_id"], "6");
    assert_eq!(buckets.as_object().unwrap().len(), 2);
}

#[test]
fn under_terms_and_on_an_unmapped_field() {
    let (_tmp, catalog) = setup();
    let out = aggs(
        &catalog,
        json!({"tags": {"terms": {"field": "tag", "order": {"_key": "asc"}},
            "aggs": {"ips": {"ip_range": {"field": "addr", "ranges": [
                {"mask": "10.0.0.0/24"}, {"from": "10.0.0.0", "to": "10.0.0.100"}]}}}},
            "none": {"ip_range": {"field": "nope", "ranges": [{"to": "1.2.3.4"}]}},
            "none_missing": {"ip_range": {"field": "nope", "missing": "1.0.0.0",
                "ranges": [{"to": "1.2.3.4"}]}}}),
    );
    let ips = |i: usize| -> Vec<(String, u64)> {
        out["tags"]["buckets"][i]["ips"]["buckets"]
            .as_array()
            .unwrap_or_else(|| panic!("{out}"))
            .iter()
            .map(|b| {
                (
                    b["key"].as_str().unwrap().into(),
                    b["doc_count"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(out["tags"]["buckets"][0]["key"], "bar");
    assert_eq!(
        ips(0),
        [("10.0.0.0-10.0.0.100".into(), 1), ("10.0.0.0/24".into(), 1)]
    );
    assert_eq!(
        ips(1),
        [("10.0.0.0-10.0.0.100".into(), 2), ("10.0.0.0/24".into(), 4)]
    );
    assert_eq!(
        out["none"],
        json!({"buckets": [{"key": "*-1.2.3.4", "to": "1.2.3.4", "doc_count": 0}]})
    );
    assert_eq!(out["none_missing"]["buckets"][0]["doc_count"], 7, "{out}");
}

#[test]
fn bad_requests_get_elasticsearchs_errors() {
    let (_tmp, catalog) = setup();
    let ip_range = |body: Value| json!({"r": {"ip_range": body}});
    let x = "x_content_parse_exception";
    let cases = [
        (
            ip_range(json!({"field": "tag", "ranges": [{"to": "10.0.0.1"}]})),
            "Field [tag] of type [keyword] is not supported for aggregation [ip_range]",
            "illegal_argument_exception",
        ),
        (
            ip_range(json!({"field": "int", "ranges": [{"to": "10.0.0.1"}]})),
            "Field [int] of type [integer] is not supported for aggregation [ip_range]",
            "illegal_argument_exception",
        ),
        (
            ip_range(json!({"field": "addr", "ranges": [{"mask": "10.0.0.0/40"}]})),
            "[ip_range] failed to parse field [ranges]",
            x,
        ),
        (
            ip_range(json!({"field": "addr", "ranges": [{"from": "10.0.0"}]})),
            "[ip_range] failed to parse field [ranges]",
            x,
        ),
        (
            ip_range(json!({"field": "addr"})),
            "No [ranges] specified for the [r] aggregation",
            "illegal_argument_exception",
        ),
        (
            ip_range(json!({"field": "addr", "ranges": [{"to": "10.0.0.1"}], "shard_size": 1})),
            "[ip_range] unknown field [shard_size]",
            x,
        ),
        (
            ip_range(json!({"field": "addr", "missing": 7, "ranges": [{"to": "10.0.0.1"}]})),
            "'7' is not an IP string literal.",
            "illegal_argument_exception",
        ),
    ];
    for (aggs, message, es_type) in cases {
        assert_eq!(
            refusal(&catalog, aggs.clone()),
            (message.to_string(), es_type, 400),
            "{aggs}"
        );
    }
}

/// An `ip` runtime field is not an `ip_range` source here: refused, not
/// answered with empty buckets.
#[test]
fn a_runtime_field_is_refused() {
    let (_tmp, catalog) = setup();
    let body = json!({
        "size": 0,
        "runtime_mappings": {"rt": {"type": "ip", "script": {"source": "emit('10.0.0.1')"}}},
        "aggs": {"r": {"ip_range": {"field": "rt", "ranges": [{"to": "10.0.0.5"}]}}}
    });
    let err = common::try_search(&catalog, &body).unwrap_err();
    assert_eq!(err.status(), 400, "{err}");
    assert!(err.to_string().contains("runtime field [rt]"), "{err}");
}
