//! `date_histogram` edge cases Kibana's dashboards hit, and
//! `search.max_buckets` counting the buckets returned: a named time zone
//! over a query that matches nothing, `extended_bounds` beside
//! `min_doc_count: 1`, sparse data whose calendar span exceeds the limit,
//! and the empty-bucket fill bounded by it. Expected buckets are computed
//! here from the documents' timestamps.
//!
//! A test binary of its own with one test function: the limit is
//! node-wide (a static), and tests of one binary run in parallel, so
//! lowering it here would fail other files' aggregations.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchError, SearchRequest};
use strata_search::{set_max_buckets, DEFAULT_MAX_BUCKETS};

const HOUR: i64 = 3_600_000;
/// 2024-03-31T00:00:00Z: Europe/London moves to summer time at 01:00Z.
const DST_DAY: i64 = 1_711_843_200_000;

fn setup(stamps: &[i64]) -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "logs",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {"properties": {"@timestamp": {"type": "date"}, "n": {"type": "long"}}}
            }),
        )
        .unwrap();
    for (i, t) in stamps.iter().enumerate() {
        let doc = json!({"@timestamp": t, "n": i});
        index
            .index_document(None, doc.to_string().as_bytes(), Precondition::None)
            .unwrap();
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

fn run(catalog: &Catalog, body: Value) -> Result<Value, SearchError> {
    let indices = catalog.resolve("logs").unwrap();
    search(&indices, &SearchRequest::parse(&body)?)
}

fn histogram(query: Value, params: Value) -> Value {
    let mut h = json!({"field": "@timestamp", "time_zone": "Europe/London"});
    for (k, v) in params.as_object().unwrap() {
        h[k] = v.clone();
    }
    json!({"size": 0, "query": query,
           "aggs": {"h": {"date_histogram": h, "aggs": {"s": {"sum": {"field": "n"}}}}}})
}

fn keys_and_counts(reply: &Value) -> Vec<(i64, u64)> {
    reply["aggregations"]["h"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["key"].as_i64().unwrap(), b["doc_count"].as_u64().unwrap()))
        .collect()
}

fn too_many(e: &SearchError) -> bool {
    e.to_string().contains("too many buckets")
}

#[test]
fn zones_empty_matches_and_the_bucket_limit() {
    // Every 7 minutes across the DST change, and two far-off documents.
    let mut stamps: Vec<i64> = (0..60).map(|i| DST_DAY + i * 7 * 60_000).collect();
    let far = [DST_DAY - 3000 * 24 * HOUR, DST_DAY + 3000 * 24 * HOUR];
    let (_tmp, catalog) = setup(&[stamps.clone(), far.to_vec()].concat());
    stamps.sort_unstable();

    // A named zone over a query that matches nothing: no bucket, no error,
    // for fixed and calendar intervals, with and without bounds.
    let nothing = [
        json!({"match_none": {}}),
        json!({"range": {"@timestamp": {"lt": 0}}}),
    ];
    for q in &nothing {
        for p in [
            json!({"fixed_interval": "30s", "min_doc_count": 1}),
            json!({"fixed_interval": "3h", "min_doc_count": 0}),
            json!({"calendar_interval": "1d", "min_doc_count": 0}),
            json!({"calendar_interval": "1M"}),
            json!({"fixed_interval": "30s", "min_doc_count": 1,
                   "extended_bounds": {"min": DST_DAY, "max": DST_DAY + HOUR}}),
        ] {
            let reply = run(&catalog, histogram(q.clone(), p.clone())).unwrap();
            assert_eq!(keys_and_counts(&reply), vec![], "{q} {p}");
        }
        // Empty with extended bounds and min_doc_count 0: the bounds' buckets.
        let p = json!({"calendar_interval": "1h", "min_doc_count": 0,
                       "extended_bounds": {"min": DST_DAY, "max": DST_DAY + 2 * HOUR}});
        let reply = run(&catalog, histogram(q.clone(), p)).unwrap();
        assert_eq!(
            keys_and_counts(&reply),
            vec![(DST_DAY, 0), (DST_DAY + HOUR, 0), (DST_DAY + 2 * HOUR, 0)]
        );
    }

    // 30 s buckets in Europe/London are UTC's 30 s buckets.
    let day = json!({"range": {"@timestamp": {"gte": DST_DAY, "lt": DST_DAY + 24 * HOUR}}});
    let mut expected: BTreeMap<i64, u64> = BTreeMap::new();
    for t in &stamps {
        *expected.entry(t - t.rem_euclid(30_000)).or_default() += 1;
    }
    let reply = run(
        &catalog,
        histogram(
            day.clone(),
            json!({"fixed_interval": "30s", "min_doc_count": 1}),
        ),
    )
    .unwrap();
    assert_eq!(
        keys_and_counts(&reply),
        expected.into_iter().collect::<Vec<_>>()
    );
    assert_eq!(
        reply["aggregations"]["h"]["buckets"][0]["key_as_string"],
        "2024-03-31T00:00:00.000Z"
    );
    let after_change = &reply["aggregations"]["h"]["buckets"].as_array().unwrap()[10];
    assert!(
        after_change["key_as_string"]
            .as_str()
            .unwrap()
            .ends_with("+01:00"),
        "{after_change}"
    );

    // extended_bounds beside min_doc_count 1 (Kibana sends both): accepted,
    // only buckets with documents.
    let p = json!({"fixed_interval": "1h", "min_doc_count": 1,
                   "extended_bounds": {"min": DST_DAY - 10 * HOUR, "max": DST_DAY + 30 * HOUR}});
    let reply = run(&catalog, histogram(day.clone(), p)).unwrap();
    let total: u64 = keys_and_counts(&reply).iter().map(|(_, c)| c).sum();
    assert_eq!(total, 60);
    assert!(keys_and_counts(&reply).iter().all(|(_, c)| *c > 0));

    // The limit counts buckets returned. Hourly calendar buckets in a DST
    // zone over 6,000 days: 144,000 candidates, 62 with documents.
    let all = json!({"match_all": {}});
    let sparse = json!({"calendar_interval": "1h", "min_doc_count": 1});
    let reply = run(&catalog, histogram(all.clone(), sparse.clone())).unwrap();
    let buckets = keys_and_counts(&reply);
    assert_eq!(buckets.len(), 7 + 2, "{buckets:?}");
    assert_eq!(buckets.iter().map(|(_, c)| c).sum::<u64>(), 62);
    assert_eq!(buckets[0], (far[0] - far[0].rem_euclid(HOUR), 1));
    // ... while showing the empty ones (min_doc_count 0) is refused.
    let dense = json!({"calendar_interval": "1h", "min_doc_count": 0});
    assert!(too_many(
        &run(&catalog, histogram(all.clone(), dense)).unwrap_err()
    ));
    // The fixed-interval fill is bounded the same way.
    let fill = json!({"fixed_interval": "1m", "min_doc_count": 0});
    assert!(too_many(
        &run(&catalog, histogram(all.clone(), fill)).unwrap_err()
    ));
    let fill_utc = json!({"size": 0, "aggs": {"h": {"date_histogram":
        {"field": "@timestamp", "fixed_interval": "1m", "min_doc_count": 0}}}});
    assert!(too_many(&run(&catalog, fill_utc).unwrap_err()));

    // search.max_buckets can be lowered (and raised back).
    set_max_buckets(10);
    let half_hours = json!({"fixed_interval": "30m", "min_doc_count": 0});
    let err = run(&catalog, histogram(day.clone(), half_hours.clone())).unwrap_err();
    assert!(too_many(&err) && err.to_string().contains("[10]"), "{err}");
    let minutes = json!({"fixed_interval": "1m", "min_doc_count": 1});
    assert!(too_many(
        &run(&catalog, histogram(day.clone(), minutes)).unwrap_err()
    ));
    let hours = json!({"calendar_interval": "1h", "min_doc_count": 1});
    assert_eq!(
        keys_and_counts(&run(&catalog, histogram(day.clone(), hours)).unwrap()).len(),
        7
    );
    set_max_buckets(DEFAULT_MAX_BUCKETS);
    assert_eq!(
        keys_and_counts(&run(&catalog, histogram(day, half_hours)).unwrap()).len(),
        14
    );
}
