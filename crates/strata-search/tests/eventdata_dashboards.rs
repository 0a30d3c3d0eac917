//! The search bodies of `strata bench eventdata`'s Kibana dashboards
//! (mirroring `strata-lab/src/eventdata/queries.rs` and the index mapping
//! of `mapping.rs`), run against a small index: none may be refused, and
//! the `filter` aggregation and `docvalue_fields` answer as Elasticsearch.

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

const T0: i64 = 1_700_000_000_000;
const F: &str = "nginx.access.";

fn keyword() -> Value {
    json!({ "type": "keyword", "ignore_above": 1024 })
}

fn mappings() -> Value {
    let text = json!({ "type": "text", "norms": false });
    json!({
        "dynamic": true,
        "date_detection": false,
        "dynamic_templates": [{ "strings_as_keyword": {
            "match_mapping_type": "string",
            "mapping": { "type": "keyword", "ignore_above": 1024 }
        } }],
        "properties": {
            "@timestamp": { "type": "date" },
            "message": text,
            "offset": { "type": "long" },
            "source": keyword(),
            "nginx": { "properties": { "access": { "properties": {
                "remote_ip": { "type": "ip" },
                "method": keyword(),
                "url": keyword(),
                "response_code": { "type": "long" },
                "body_sent": { "properties": { "bytes": { "type": "long" } } },
                "referrer": keyword(),
                "agent": text,
                "user_agent": { "properties": {
                    "name": keyword(), "major": keyword(),
                    "os_name": keyword(), "os_major": keyword()
                } },
                "geoip": { "properties": {
                    "country_name": keyword(),
                    "location": { "type": "geo_point" }
                } }
            } } } }
        }
    })
}

fn setup(tmp: &std::path::Path) -> Catalog {
    let catalog = Catalog::open(tmp).unwrap();
    let index = catalog
        .create_index(
            "elasticlogs",
            &json!({
                "settings": {"index": {"number_of_shards": 2, "number_of_replicas": 0,
                    "refresh_interval": "-1", "translog": {"durability": "async"}}},
                "mappings": mappings()
            }),
        )
        .unwrap();
    for i in 0..50i64 {
        let code = [200, 200, 304, 404, 500][(i % 5) as usize];
        let browser = ["Firefox", "Chrome"][(i % 2) as usize];
        let country = ["France", "Peru", "Japan"][(i % 3) as usize];
        let doc = json!({
            "@timestamp": T0 + i * 30_000,
            "message": format!("GET /p{} HTTP/1.1 {code}", i % 7),
            "offset": i * 100,
            "source": "/var/log/nginx/access.log",
            "nginx": {"access": {
                "remote_ip": format!("10.0.0.{}", i % 9),
                "method": "GET",
                "url": format!("/p{}", i % 7),
                "response_code": code,
                "body_sent": {"bytes": i * 10},
                "referrer": "-",
                "agent": "Mozilla/5.0",
                "user_agent": {"name": browser,
                    "major": format!("{}", 50 + i % 3), "os_name": "Linux", "os_major": "5"},
                "geoip": {"country_name": country,
                    "location": {"lat": -40.0 + (i % 17) as f64 * 5.0, "lon": -100.0 + i as f64 * 4.0}}
            }}
        });
        index
            .index_document(None, doc.to_string().as_bytes(), Precondition::None)
            .unwrap();
    }
    index.refresh().unwrap();
    catalog
}

fn f(name: &str) -> String {
    format!("{F}{name}")
}

fn terms(name: &str, size: u32) -> Value {
    json!({ "field": f(name), "size": size, "order": { "_count": "desc" } })
}

fn code_range(low: u32, high: u32) -> Value {
    let query = format!("{F}response_code: [{low} TO {high}]");
    json!({ "query_string": { "query": query, "analyze_wildcard": true, "default_field": "*" } })
}

fn kibana(extra: &[Value], aggs: Value) -> Value {
    let mut must = vec![
        json!({ "match_all": {} }),
        json!({ "query_string": { "query": "*", "analyze_wildcard": true, "default_field": "*" } }),
    ];
    must.extend(extra.iter().cloned());
    must.push(json!({ "range": { "@timestamp": {
        "gte": T0, "lte": T0 + 3_600_000, "format": "epoch_millis"
    } } }));
    json!({
        "size": 0,
        "aggs": aggs,
        "query": { "bool": { "must": must, "filter": [], "should": [], "must_not": [] } },
        "version": true,
        "stored_fields": ["*"],
        "script_fields": {},
        "docvalue_fields": ["@timestamp"],
        "_source": { "excludes": [] },
        "highlight": {
            "pre_tags": ["@kibana-highlighted-field@"],
            "post_tags": ["@/kibana-highlighted-field@"],
            "fields": { "*": {} },
            "fragment_size": 2_147_483_647
        }
    })
}

fn bodies() -> Vec<(&'static str, Value)> {
    let histogram = json!({ "field": "@timestamp", "fixed_interval": "1m",
        "time_zone": "UTC", "min_doc_count": 1 });
    let location = f("geoip.location");
    let classes: serde_json::Map<String, Value> = [(200, 300), (300, 400), (400, 500), (500, 600)]
        .into_iter()
        .map(|(low, high)| (format!("{low}s"), code_range(low, high)))
        .collect();
    let not_found = [json!({ "match_phrase": { f("response_code"): { "query": 404 } } })];
    let mut discover = kibana(&[], json!({ "2": { "date_histogram": histogram } }));
    discover["size"] = json!(500);
    discover["sort"] = json!([{ "@timestamp": { "order": "desc", "unmapped_type": "boolean" } }]);
    vec![
        (
            "traffic geo",
            kibana(
                &[],
                json!({ "filter_agg": {
            "filter": { "geo_bounding_box": { location.clone(): {
                "top_left": { "lat": 90, "lon": -180 },
                "bottom_right": { "lat": -90, "lon": 180 }
            } } },
            "aggs": { "2": {
                "geohash_grid": { "field": location, "precision": 2 },
                "aggs": { "3": { "geo_centroid": { "field": f("geoip.location") } } }
            } }
        } }),
            ),
        ),
        (
            "traffic classes",
            kibana(
                &[],
                json!({ "2": {
            "date_histogram": histogram,
            "aggs": { "3": { "filters": { "filters": classes } } }
        } }),
            ),
        ),
        (
            "traffic urls",
            kibana(&[], json!({ "2": { "terms": terms("url", 10) } })),
        ),
        (
            "traffic bytes",
            kibana(
                &[],
                json!({ "2": {
            "date_histogram": histogram,
            "aggs": { "1": { "sum": { "field": f("body_sent.bytes") } } }
        } }),
            ),
        ),
        (
            "traffic browsers",
            kibana(
                &[],
                json!({ "2": {
            "terms": terms("user_agent.name", 5),
            "aggs": { "3": { "terms": terms("user_agent.major", 5) } }
        } }),
            ),
        ),
        (
            "traffic os",
            kibana(
                &[],
                json!({ "2": {
            "terms": terms("user_agent.os_name", 5),
            "aggs": { "3": { "terms": terms("user_agent.os_major", 5) } }
        } }),
            ),
        ),
        (
            "traffic errors",
            kibana(
                &[code_range(400, 600)],
                json!({ "2": {
            "date_histogram": histogram,
            "aggs": { "3": { "terms": terms("response_code", 10) } }
        } }),
            ),
        ),
        (
            "traffic countries",
            kibana(
                &[],
                json!({
                    "2": { "terms": terms("geoip.country_name", 10) },
                    "3": { "percentiles": { "field": f("body_sent.bytes"), "percents": [50, 95, 99] } }
                }),
            ),
        ),
        (
            "404 clients",
            kibana(
                &not_found,
                json!({ "2": { "cardinality": { "field": f("remote_ip") } } }),
            ),
        ),
        (
            "404 top clients",
            kibana(
                &not_found,
                json!({ "2": { "terms": terms("remote_ip", 20) } }),
            ),
        ),
        (
            "404 urls",
            kibana(&not_found, json!({ "2": { "terms": terms("url", 20) } })),
        ),
        (
            "404 referrers",
            kibana(
                &not_found,
                json!({ "2": { "terms": terms("referrer", 20) } }),
            ),
        ),
        (
            "404 histogram",
            kibana(&not_found, json!({ "2": { "date_histogram": histogram } })),
        ),
        ("discover", discover),
    ]
}

/// The body with Kibana's `query_string` clauses written as the queries
/// they mean, to compare the answers with (`*` is `match_all`, `f: [a TO b]` an inclusive range).
fn without_query_string(body: &Value) -> Value {
    match body {
        Value::Object(o) => {
            if let Some(qs) = o.get("query_string") {
                let text = qs["query"].as_str().unwrap();
                if text == "*" {
                    return json!({"match_all": {}});
                }
                let (field, range) = text.split_once(": [").unwrap();
                let (low, high) = range.trim_end_matches(']').split_once(" TO ").unwrap();
                let (low, high): (i64, i64) = (low.parse().unwrap(), high.parse().unwrap());
                return json!({"range": {field: {"gte": low, "lte": high}}});
            }
            Value::Object(
                o.iter()
                    .map(|(k, v)| (k.clone(), without_query_string(v)))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(without_query_string).collect()),
        other => other.clone(),
    }
}

#[test]
fn dashboard_searches_are_answered() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = setup(tmp.path());
    let indices = catalog.resolve("elasticlogs").unwrap();
    let run = |body: &Value| SearchRequest::parse(body).and_then(|req| search(&indices, &req));
    let mut unexpected = Vec::new();
    let mut answers = std::collections::BTreeMap::new();
    for (name, body) in bodies() {
        let direct = run(&body);
        let rewritten = run(&without_query_string(&body));
        match (direct, rewritten) {
            (Ok(mut a), Ok(mut b)) => {
                a["took"] = json!(0);
                b["took"] = json!(0);
                if a != b {
                    unexpected.push(format!("{name}: query_string differs: {a} vs {b}"));
                }
                answers.insert(name, a);
            }
            (Err(e), _) | (_, Err(e)) => unexpected.push(format!("{name}: {} {e}", e.status())),
        }
    }
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    assert_eq!(answers.len(), bodies().len());

    // Response-code classes per minute (ranges are inclusive, so 500 is in
    // both 400s and 500s), summed over the histogram: 20 docs of 200, 10
    // of 304, 10 of 404, 10 of 500.
    let mut classes = std::collections::BTreeMap::new();
    for bucket in answers["traffic classes"]["aggregations"]["2"]["buckets"]
        .as_array()
        .unwrap()
    {
        let mut in_classes = 0;
        for (class, b) in bucket["3"]["buckets"].as_object().unwrap() {
            let n = b["doc_count"].as_u64().unwrap();
            *classes.entry(class.clone()).or_insert(0) += n;
            in_classes += n;
        }
        assert!(
            in_classes >= bucket["doc_count"].as_u64().unwrap(),
            "{bucket}"
        );
    }
    let want: std::collections::BTreeMap<String, u64> =
        [("200s", 20), ("300s", 10), ("400s", 20), ("500s", 10)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
    assert_eq!(classes, want);
    // 404s and 500s: two of every five documents.
    assert_eq!(
        answers["traffic errors"]["hits"]["total"]["value"],
        json!(20)
    );

    // All 50 documents are in the hour and inside the world box.
    let geo = &answers["traffic geo"]["aggregations"]["filter_agg"];
    assert_eq!(geo["doc_count"], json!(50), "{geo}");
    let cells: u64 = geo["2"]["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .sum();
    assert_eq!(cells, 50);

    let discover = &answers["discover"]["hits"]["hits"];
    let hits = discover.as_array().unwrap();
    assert_eq!(hits.len(), 50);
    let newest = T0 + 49 * 30_000;
    assert_eq!(
        hits[0]["fields"]["@timestamp"],
        json!([format_ms(newest)]),
        "{}",
        hits[0]
    );
    assert_eq!(answers["404 clients"]["hits"]["total"]["value"], json!(10));

    for bad in [
        json!({"script_fields": {"x": {"script": "1 +"}}}),
        json!({"script_fields": []}),
        json!({"highlight": true}),
    ] {
        let err = SearchRequest::parse(&bad).unwrap_err();
        assert_eq!(err.status(), 400, "{bad}: {err}");
    }
}

fn format_ms(ms: i64) -> String {
    // T0 is 2023-11-14T22:13:20Z; the hits are within the following hour.
    let secs = (ms - T0) / 1000 + 20 + 13 * 60;
    format!("2023-11-14T22:{:02}:{:02}.000Z", secs / 60, secs % 60)
}
