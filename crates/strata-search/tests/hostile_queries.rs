//! Hostile search requests: nesting far past every limit, token soup and
//! random trees, run through the whole search path (parse, translation,
//! tantivy's weights and scorers, aggregation). Every one must come back
//! as a result or an error, never a panic or a stack overflow (which
//! aborts this test binary, failing it).
//!
//! The regression cases are the hardening issue's: a `query_string` of
//! 3,000 nested parentheses, `NOT` chains and deep `simple_query_string`
//! groups overflowed a worker's stack. The limits hold at their edge: the
//! deepest accepted query runs and gives the right answer.

use proptest::prelude::*;
use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchError, SearchRequest, MAX_NESTED_DEPTH};

/// Deepest `query_string` group nesting accepted (see
/// `text_syntax::MAX_GROUP_DEPTH`).
const MAX_GROUP_DEPTH: usize = 100;

fn setup() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "docs",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {"properties": {
                    "title": {"type": "text"},
                    "tag": {"type": "keyword"},
                    "status": {"type": "integer"},
                    "created": {"type": "date"},
                    "place": {"type": "geo_point"}
                }}
            }),
        )
        .unwrap();
    let docs = [
        json!({"title": "quick fox", "tag": "a", "status": 200, "created": "2024-01-01", "place": "1,2"}),
        json!({"title": "lazy dog", "tag": "b", "status": 404, "created": "2024-03-01T10:00:00Z"}),
        json!({"title": "quick dog", "tag": "a", "status": 500}),
    ];
    for (i, doc) in docs.iter().enumerate() {
        index
            .index_document(
                Some(&(i + 1).to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

fn run(catalog: &Catalog, body: Value) -> Result<Value, SearchError> {
    let indices = catalog.resolve("docs").unwrap();
    let request = SearchRequest::parse(&body)?;
    search(&indices, &request)
}

fn hits(catalog: &Catalog, query: Value) -> u64 {
    let resp = run(catalog, json!({"query": query})).unwrap_or_else(|e| {
        panic!(
            "{}: {e}",
            &query.to_string()[..80.min(query.to_string().len())]
        )
    });
    resp["hits"]["total"]["value"].as_u64().unwrap()
}

fn qs(text: &str) -> Value {
    json!({"query_string": {"query": text, "default_field": "title"}})
}

fn sqs(text: &str) -> Value {
    json!({"simple_query_string": {"query": text, "fields": ["title"]}})
}

fn nested(depth: usize, inner: &str) -> String {
    format!("{}{inner}{}", "(".repeat(depth), ")".repeat(depth))
}

#[test]
fn query_string_groups_nest_to_the_limit_and_no_further() {
    let (_tmp, c) = setup();
    assert_eq!(hits(&c, qs(&nested(MAX_GROUP_DEPTH, "quick"))), 2);
    for depth in [MAX_GROUP_DEPTH + 1, 3_000, 200_000] {
        match run(&c, json!({"query": qs(&nested(depth, "quick"))})) {
            Err(SearchError::QueryShard(msg)) => {
                assert!(msg.contains("nested more than [100] levels"), "{msg}")
            }
            other => panic!("{depth} groups: {other:?}"),
        }
    }
    // Field groups count too.
    let fields = format!("{}quick{}", "title:(".repeat(3_000), ")".repeat(3_000));
    assert!(run(&c, json!({"query": qs(&fields)})).is_err());
}

#[test]
fn prefix_operator_chains_cost_no_depth() {
    let (_tmp, c) = setup();
    // An even number of NOTs is still "not": the outermost mark counts.
    for chain in ["NOT ", "-", "+", "!", "NOT +"] {
        let text = format!("lazy {}quick", chain.repeat(50_000));
        let expected = if chain == "+" { 2 } else { 1 };
        assert_eq!(hits(&c, qs(&text)), expected, "{chain}");
    }
}

#[test]
fn simple_query_string_never_fails_however_deep() {
    let (_tmp, c) = setup();
    assert_eq!(hits(&c, sqs(&nested(MAX_GROUP_DEPTH, "quick"))), 2);
    assert_eq!(hits(&c, sqs(&nested(200_000, "quick"))), 2);
    // Groups past the limit join the deepest level: still "quick and dog".
    let deep = format!("{}quick +dog{}", "(".repeat(150), ")".repeat(150));
    assert_eq!(hits(&c, sqs(&deep)), 1);
    assert_eq!(hits(&c, sqs(&format!("{}quick", "-".repeat(100_001)))), 1);
    assert_eq!(hits(&c, sqs(&"(".repeat(100_000))), 0);
    assert_eq!(hits(&c, sqs(&")".repeat(100_000))), 0);
}

fn bool_nest(depth: usize, leaf: Value) -> Value {
    (1..depth).fold(leaf, |q, i| {
        if i % 2 == 0 {
            json!({"bool": {"must": [q]}})
        } else {
            json!({"constant_score": {"filter": q}})
        }
    })
}

#[test]
fn dsl_nesting_is_refused_past_elasticsearchs_limit() {
    let (_tmp, c) = setup();
    let leaf = json!({"match": {"title": "quick"}});
    assert_eq!(hits(&c, bool_nest(MAX_NESTED_DEPTH, leaf.clone())), 2);
    for depth in [MAX_NESTED_DEPTH + 1, 40] {
        match run(&c, json!({"query": bool_nest(depth, leaf.clone())})) {
            Err(SearchError::IllegalArgument(msg)) => assert!(
                msg.contains("[indices.query.bool.max_nested_depth]"),
                "{msg}"
            ),
            other => panic!("depth {depth}: {other:?}"),
        }
    }
    // The deepest tree both limits allow runs through tantivy's scorers.
    let deepest = bool_nest(
        MAX_NESTED_DEPTH,
        qs(&nested(MAX_GROUP_DEPTH, "quick AND dog")),
    );
    assert_eq!(hits(&c, deepest), 1);
    // Filter aggregations' queries have the same limit.
    let agg = json!({"size": 0, "aggs": {"f": {"filter": bool_nest(40, leaf)}}});
    assert!(run(&c, agg).is_err());
}

/// Fragments of Lucene syntax, operators and values, joined at random.
fn lucene_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("(".to_string()),
        Just(")".to_string()),
        Just(" ".to_string()),
        Just("\"".to_string()),
        Just("\\".to_string()),
        Just("/".to_string()),
        Just(":".to_string()),
        Just("title:".to_string()),
        Just("status:".to_string()),
        Just("created:".to_string()),
        Just("place:".to_string()),
        Just("_exists_:".to_string()),
        Just("*:".to_string()),
        Just("t*:".to_string()),
        Just("AND ".to_string()),
        Just("OR ".to_string()),
        Just("NOT ".to_string()),
        Just("&&".to_string()),
        Just("||".to_string()),
        Just("+".to_string()),
        Just("-".to_string()),
        Just("!".to_string()),
        Just("^".to_string()),
        Just("^2".to_string()),
        Just("~".to_string()),
        Just("~2".to_string()),
        Just("*".to_string()),
        Just("?".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just(" TO ".to_string()),
        Just(">=".to_string()),
        Just("<".to_string()),
        Just("|".to_string()),
        Just("quick".to_string()),
        Just("dog".to_string()),
        Just("200".to_string()),
        Just("2024-01-01".to_string()),
        Just("now-1d/d".to_string()),
        Just("1.5".to_string()),
        "[a-z0-9é.]{1,6}".prop_map(|s| s),
        (1usize..400).prop_map(|n| "(".repeat(n)),
        (1usize..400).prop_map(|n| ")".repeat(n)),
    ]
}

fn lucene_text() -> impl Strategy<Value = String> {
    prop::collection::vec(lucene_fragment(), 0..60).prop_map(|parts| parts.concat())
}

/// A random query tree: compound queries over leaves, with bogus keys and
/// values mixed in, nested up to `depth`.
fn dsl_query(depth: u32) -> impl Strategy<Value = Value> {
    let field = prop_oneof![
        Just("title"),
        Just("tag"),
        Just("status"),
        Just("created"),
        Just("place"),
        Just("nope")
    ];
    let value = prop_oneof![
        Just(json!("quick")),
        Just(json!(200)),
        Just(json!(-1)),
        Just(json!(1e308)),
        Just(json!("2024-01-01||+1M/d")),
        Just(json!(null)),
        Just(json!([])),
        Just(json!({})),
        Just(json!("[")),
    ];
    let leaf = (field, value.clone(), lucene_text()).prop_flat_map(|(f, v, text)| {
        prop_oneof![
            Just(json!({"match": {f: v.clone()}})),
            Just(json!({"term": {f: v.clone()}})),
            Just(json!({"terms": {f: [v.clone(), v.clone()]}})),
            Just(json!({"range": {f: {"gte": v.clone(), "lt": "now"}}})),
            Just(json!({"prefix": {f: v.clone()}})),
            Just(json!({"wildcard": {f: text.clone()}})),
            Just(json!({"regexp": {f: text.clone()}})),
            Just(json!({"exists": {"field": f}})),
            Just(json!({"match_phrase": {f: text.clone()}})),
            Just(json!({"query_string": {"query": text.clone()}})),
            Just(json!({"simple_query_string": {"query": text.clone()}})),
            Just(json!({"geo_bounding_box": {f: {"top_left": v.clone(), "bottom_right": "0,0"}}})),
            Just(json!({"ids": {"values": [v.clone()]}})),
            Just(json!({"fuzzy": {f: {"value": v.clone(), "fuzziness": v.clone()}}})),
            Just(json!({"fuzzy": {f: text.clone()}})),
            Just(json!({"match_phrase_prefix": {f: text.clone()}})),
            Just(json!({"match_bool_prefix": {f: {"query": text.clone(), "fuzziness": "AUTO"}}})),
            Just(json!({"geo_distance": {"distance": v.clone(), f: v.clone()}})),
            Just(json!({"geo_distance": {"distance": text.clone(), f: "1,1"}})),
            Just(json!({"match_all": {"boost": v.clone()}})),
            Just(json!({"unknown": {}})),
            Just(v.clone()),
        ]
    });
    leaf.prop_recursive(depth, 256, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|qs| json!({"bool": {"must": qs.clone(), "should": qs, "minimum_should_match": "50%"}})),
            prop::collection::vec(inner.clone(), 0..3)
                .prop_map(|qs| json!({"bool": {"must_not": qs.clone(), "filter": qs}})),
            inner.clone().prop_map(|q| json!({"constant_score": {"filter": q, "boost": 2}})),
            inner.clone().prop_map(|q| json!({"bool": {"should": q}})),
            prop::collection::vec(inner, 0..3)
                .prop_map(|qs| json!({"dis_max": {"queries": qs, "tie_breaker": 0.5}})),
        ]
    })
}

const AGG_FIELDS: [&str; 6] = ["tag", "status", "created", "title", "place", "nope"];
const AGG_ZONES: [&str; 4] = ["Europe/London", "+01:00", "UTC", "Mars/Base"];
const AGG_INTERVALS: [&str; 8] = ["1d", "month", "1M", "quarter", "1h", "0d", "-1d", "bogus"];

fn agg_numbers() -> [Value; 6] {
    [
        json!(0),
        json!(-5),
        json!(1),
        json!(0.001),
        json!(1e12),
        json!("x"),
    ]
}

/// Every leaf aggregation kind on `f` with the odd values given.
fn leaf_aggs(f: &str, n: &Value, z: &str, i: &str) -> Vec<Value> {
    vec![
        json!({"terms": {"field": f, "size": n}}),
        json!({"terms": {"field": f, "missing": "zz", "min_doc_count": 0}}),
        json!({"histogram": {"field": f, "interval": n, "min_doc_count": 0}}),
        json!({"histogram": {"field": f, "interval": 100, "missing": n}}),
        json!({"date_histogram": {"field": f, "calendar_interval": i, "time_zone": z, "min_doc_count": 1}}),
        json!({"date_histogram": {"field": f, "fixed_interval": i, "time_zone": z, "extended_bounds": {"min": "now-1y", "max": "now"}}}),
        json!({"date_histogram": {"field": f, "calendar_interval": i, "time_zone": z, "missing": "2020-01-01"}}),
        json!({"range": {"field": f, "ranges": [{"to": n}, {"from": 1, "to": 0}]}}),
        json!({"range": {"field": f, "ranges": []}}),
        json!({"date_range": {"field": f, "time_zone": z, "ranges": [{"from": "now-10y/y", "to": "now"}]}}),
        json!({"filters": {"filters": {"a": {"match": {f: "quick"}}, "b": {"match_none": {}}}}}),
        json!({"avg": {"field": f}}),
        json!({"stats": {"field": f, "missing": n}}),
        json!({"percentiles": {"field": f, "percents": [n, 50, 100]}}),
        json!({"cardinality": {"field": f, "precision_threshold": n}}),
        json!({"top_hits": {"size": n, "sort": [{f: "desc"}]}}),
        json!({"geohash_grid": {"field": f, "precision": n}}),
        json!({"geo_centroid": {"field": f}}),
        json!({"filter": {"match_none": {}}}),
        json!({"missing": {"field": f}}),
        json!({"weighted_avg": {"value": {"field": f, "missing": n}, "weight": {"field": "status", "missing": n}}}),
        json!({"rare_terms": {"field": f, "max_doc_count": n}}),
        json!({"significant_terms": {"field": f, "min_doc_count": n, "size": n}}),
        json!({"composite": {"size": n, "sources": [
            {"a": {"terms": {"field": f, "missing_bucket": true}}},
            {"b": {"histogram": {"field": f, "interval": n}}},
            {"c": {"date_histogram": {"field": f, "calendar_interval": i, "time_zone": z}}}],
            "after": {"a": n, "b": n, "c": n}}}),
        json!({"composite": {"sources": [{"a": {"terms": {"field": f}}}]}}),
        json!({"derivative": {"buckets_path": f, "unit": i}}),
        json!({"cumulative_sum": {"buckets_path": "_count"}}),
        json!({"bucket_sort": {"sort": [{f: "desc"}], "size": n, "from": n}}),
    ]
}

/// A random aggregation tree over the test fields, up to `depth` levels.
fn aggs(depth: u32) -> impl Strategy<Value = Value> {
    let leaf = (
        prop::sample::select(AGG_FIELDS.to_vec()),
        prop::sample::select(agg_numbers().to_vec()),
        prop::sample::select(AGG_ZONES.to_vec()),
        prop::sample::select(AGG_INTERVALS.to_vec()),
    )
        .prop_flat_map(|(f, n, z, i)| prop::sample::select(leaf_aggs(f, &n, z, i)));
    leaf.prop_recursive(depth, 64, 2, |inner| {
        (inner.clone(), prop::collection::vec(inner, 1..3)).prop_map(|(outer, subs)| {
            let mut outer = outer;
            let mut children = serde_json::Map::new();
            for (i, s) in subs.into_iter().enumerate() {
                children.insert(format!("s{i}"), s);
            }
            if let Some(obj) = outer.as_object_mut() {
                obj.insert("aggs".into(), Value::Object(children));
            }
            outer
        })
    })
}

/// Every leaf aggregation, on every field with every odd value, over all
/// documents and over none (empty inputs to bucket code were a panic).
#[test]
fn every_leaf_aggregation_is_answered() {
    let (_tmp, c) = setup();
    let numbers = agg_numbers();
    let pairs = AGG_ZONES
        .iter()
        .flat_map(|z| AGG_INTERVALS.iter().map(move |i| (z, i)));
    for (k, (z, i)) in pairs.enumerate() {
        let n = &numbers[k % numbers.len()];
        for f in AGG_FIELDS {
            for agg in leaf_aggs(f, n, z, i) {
                for query in [json!({"match_all": {}}), json!({"match_none": {}})] {
                    let body = json!({"size": 0, "query": query, "aggs": {"a": agg.clone()}});
                    let _ = run(&c, body);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_query_string_text_is_answered(text in lucene_text()) {
        let (_tmp, c) = setup();
        // Either outcome is fine; reaching here without a panic is the test.
        let _ = run(&c, json!({"query": {"query_string": {"query": text.clone()}}}));
        let _ = run(&c, json!({"query": {"simple_query_string": {"query": text.clone(), "flags": "ALL"}}}));
        let simple = run(&c, json!({"query": sqs(&text)}));
        // simple_query_string never fails on its text.
        prop_assert!(simple.is_ok(), "{}: {:?}", text, simple.err());
    }

    #[test]
    fn any_query_tree_is_answered(query in dsl_query(12)) {
        let (_tmp, c) = setup();
        let _ = run(&c, json!({"query": query.clone()}));
        let _ = run(&c, json!({"query": query, "sort": [{"status": "desc"}], "size": 2}));
    }

    #[test]
    fn any_aggregation_tree_is_answered(tree in aggs(4), empty in any::<bool>()) {
        let (_tmp, c) = setup();
        let query = if empty { json!({"match_none": {}}) } else { json!({"match_all": {}}) };
        let _ = run(&c, json!({"size": 0, "query": query, "aggs": {"top": tree}}));
    }
}

/// Found by `any_aggregation_tree_is_answered`: a range bucket on a
/// keyword field under a deferred `rare_terms`, inside a zoned date
/// histogram, asked tantivy for an inverted-index range with neither bound
/// set, which panics in tantivy instead of answering.
#[test]
fn a_keyword_range_bucket_with_no_bound_left_is_answered() {
    let (_tmp, c) = setup();
    let tree = json!({
        "date_histogram": {"field": "tag", "fixed_interval": "1d", "time_zone": "Europe/London",
            "extended_bounds": {"min": "now-1y", "max": "now"}},
        "aggs": {"s0": {
            "range": {"field": "tag", "ranges": [{"to": 0}, {"from": 1, "to": 0}]},
            "aggs": {"s0": {
                "rare_terms": {"field": "tag", "max_doc_count": 1},
                "aggs": {"s0": {"avg": {"field": "status"}}}
            }}
        }}
    });
    for query in [json!({"match_none": {}}), json!({"match_all": {}})] {
        let _ = run(
            &c,
            json!({"size": 0, "query": query, "aggs": {"top": tree.clone()}}),
        );
    }
    for range in [
        json!({}),
        json!({"gte": null}),
        json!({"lt": null, "gt": null}),
    ] {
        let _ = run(&c, json!({"query": {"range": {"tag": range}}}));
    }
}

#[test]
fn zoned_calendar_histogram_over_no_documents() {
    let (_tmp, c) = setup();
    for interval in [
        "1d", "month", "1M", "week", "quarter", "year", "1h", "minute",
    ] {
        let body = json!({"size": 0, "query": {"match_none": {}}, "aggs": {"h": {"date_histogram": {
            "field": "created", "calendar_interval": interval, "time_zone": "Europe/London", "min_doc_count": 1}}}});
        let resp = run(&c, body).unwrap();
        assert_eq!(
            resp["aggregations"]["h"]["buckets"],
            json!([]),
            "{interval}"
        );
    }
}

#[test]
fn range_aggregations_without_ranges_are_refused() {
    let (_tmp, c) = setup();
    for agg in [
        json!({"range": {"field": "status", "ranges": []}}),
        json!({"date_range": {"field": "created", "ranges": []}}),
    ] {
        let body = json!({"size": 0, "aggs": {"r": agg}});
        assert!(run(&c, body).is_err());
    }
}

/// Counted repetitions multiply: a 22-character expression is a billion
/// NFA states. It is refused by the automaton's size limits, at once and
/// without the memory.
#[test]
fn exploding_repetitions_are_refused() {
    let (_tmp, c) = setup();
    for pattern in ["((a{100}){100}){100}", "(.{1000}){1000}", "[a-z]{65000}"] {
        let started = std::time::Instant::now();
        let out = run(&c, json!({"query": {"regexp": {"tag": pattern}}}));
        assert!(
            matches!(&out, Err(SearchError::IllegalArgument(m)) if m.contains("max_determinized_states")),
            "{pattern}: {out:?}"
        );
        let out = run(&c, json!({"query": qs(&format!("tag:/{pattern}/"))}));
        assert!(out.is_err(), "{pattern}");
        assert!(started.elapsed().as_secs() < 10, "{pattern}");
    }
}

#[test]
fn aggregations_nest_to_the_limit_and_no_further() {
    let (_tmp, c) = setup();
    let nest = |levels: usize| {
        (1..levels).fold(
            json!({"terms": {"field": "tag"}}),
            |inner, _| json!({"terms": {"field": "tag"}, "aggs": {"a": inner}}),
        )
    };
    let resp = run(&c, json!({"size": 0, "aggs": {"a": nest(32)}})).unwrap();
    let mut bucket = &resp["aggregations"]["a"]["buckets"][0];
    for _ in 1..32 {
        assert_eq!(bucket["key"], "a");
        bucket = &bucket["a"]["buckets"][0];
    }
    assert_eq!(bucket["doc_count"], 2);
    match run(&c, json!({"size": 0, "aggs": {"a": nest(33)}})) {
        Err(SearchError::IllegalArgument(msg)) => assert!(msg.contains("[32] levels"), "{msg}"),
        other => panic!("{other:?}"),
    }
}
