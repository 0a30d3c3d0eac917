//! Random requests against a live node: methods, paths made of the API's
//! own words, query parameters, media types and bodies (JSON trees,
//! NDJSON, bytes) drawn at random. None may be answered with a 5xx (a
//! panic is answered 500, so a panic anywhere fails this test), and the
//! node must still serve a search afterwards.

use crate::support;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{json, Value};
use support::TestServer;

const SEGMENTS: &[&str] = &[
    "logs",
    "logs",
    "other",
    "l*",
    "_all",
    "*",
    "-logs",
    "logs,other",
    "_search",
    "_msearch",
    "_count",
    "_bulk",
    "_doc",
    "_create",
    "_update",
    "_mget",
    "_mapping",
    "_settings",
    "_refresh",
    "_flush",
    "_forcemerge",
    "_stats",
    "_cat",
    "indices",
    "aliases",
    "health",
    "count",
    "_cluster",
    "settings",
    "state",
    "_nodes",
    "stats",
    "_aliases",
    "_alias",
    "_template",
    "_index_template",
    "_component_template",
    "_rollover",
    "_cache",
    "clear",
    "1",
    "%00",
    "%FF",
    "..",
    "a%2Fb",
    "",
];

const PARAMS: &[&str] = &[
    "q",
    "size",
    "from",
    "sort",
    "refresh",
    "filter_path",
    "pretty",
    "routing",
    "version",
    "if_seq_no",
    "if_primary_term",
    "op_type",
    "timeout",
    "wait_for_status",
    "expand_wildcards",
    "ignore_unavailable",
    "allow_no_indices",
    "max_concurrent_searches",
    "format",
    "h",
    "s",
    "v",
    "level",
    "_source",
    "_source_includes",
    "track_total_hits",
    "search_type",
    "require_alias",
    "dry_run",
];

const VALUES: &[&str] = &[
    "",
    "1",
    "-1",
    "0",
    "true",
    "false",
    "wait_for",
    "1s",
    "-1s",
    "green",
    "red",
    "all",
    "open,closed",
    "*",
    "a:b",
    "(((",
    "title:x",
    "json",
    "99999999999999999999",
    "%00",
    "1e400",
    "status:desc",
    "_doc",
    "hits.hits._id",
    "**.x",
];

fn json_tree() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(json!(1e300)),
        Just(json!(-0.5)),
        prop::sample::select(VALUES).prop_map(Value::from),
        prop::sample::select(SEGMENTS).prop_map(Value::from),
    ];
    let keys = prop::sample::select(
        [
            "query",
            "match_all",
            "match",
            "bool",
            "must",
            "term",
            "terms",
            "range",
            "aggs",
            "terms",
            "field",
            "size",
            "sort",
            "mappings",
            "properties",
            "type",
            "settings",
            "index",
            "number_of_shards",
            "actions",
            "add",
            "alias",
            "conditions",
            "index_patterns",
            "template",
            "doc",
            "script",
            "docs",
            "ids",
            "_source",
            "persistent",
            "transient",
            "title",
            "status",
            "@timestamp",
            "a.b",
            "",
        ]
        .to_vec(),
    );
    leaf.prop_recursive(6, 64, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..4).prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

fn body() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop_oneof![
        Just(None),
        json_tree().prop_map(|v| Some(v.to_string().into_bytes())),
        prop::collection::vec(json_tree(), 1..6).prop_map(|lines| {
            let mut text = String::new();
            for line in lines {
                text.push_str(&line.to_string());
                text.push('\n');
            }
            Some(text.into_bytes())
        }),
        prop::collection::vec(any::<u8>(), 0..64).prop_map(Some),
    ]
}

/// Real endpoints, `{i}` an index expression and `{n}` a name or id.
const ENDPOINTS: &[&str] = &[
    "/{i}/_search",
    "/{i}/_search",
    "/_search",
    "/{i}/_count",
    "/{i}/_msearch",
    "/_msearch",
    "/_bulk",
    "/{i}/_bulk",
    "/{i}/_doc/{n}",
    "/{i}/_doc",
    "/{i}/_create/{n}",
    "/{i}/_update/{n}",
    "/{i}/_mget",
    "/{i}",
    "/{i}/_mapping",
    "/{i}/_settings",
    "/{i}/_refresh",
    "/{i}/_flush",
    "/{i}/_stats",
    "/{i}/_alias/{n}",
    "/_aliases",
    "/_alias/{n}",
    "/{n}/_rollover",
    "/_template/{n}",
    "/_index_template/{n}",
    "/_component_template/{n}",
    "/_cat/indices/{i}",
    "/_cat/aliases",
    "/_cat/health",
    "/_cluster/health/{i}",
    "/_cluster/settings",
    "/_cluster/state",
    "/_nodes/stats",
    "/{i}/_cache/clear",
    "/",
];

fn path() -> impl Strategy<Value = String> {
    let names = prop::sample::select(vec![
        "logs",
        "logs",
        "other",
        "l*",
        "a1",
        "1",
        "_all",
        "-x",
        "logs,other",
        "%2A",
    ]);
    prop_oneof![
        prop::collection::vec(prop::sample::select(SEGMENTS), 0..4)
            .prop_map(|segments| format!("/{}", segments.join("/"))),
        (prop::sample::select(ENDPOINTS), names.clone(), names)
            .prop_map(|(e, i, n)| e.replace("{i}", i).replace("{n}", n)),
        (prop::sample::select(ENDPOINTS), Just("logs"), Just("1"))
            .prop_map(|(e, i, n)| e.replace("{i}", i).replace("{n}", n)),
    ]
}

#[derive(Debug, Clone)]
struct Request {
    method: &'static str,
    path: String,
    content_type: &'static str,
    body: Option<Vec<u8>>,
}

fn request() -> impl Strategy<Value = Request> {
    (
        prop::sample::select(vec!["GET", "PUT", "POST", "DELETE", "HEAD"]),
        path(),
        prop::collection::vec(
            (prop::sample::select(PARAMS), prop::sample::select(VALUES)),
            0..3,
        ),
        prop::sample::select(vec![
            "application/json",
            "application/x-ndjson",
            "application/vnd.elasticsearch+json; compatible-with=8",
            "application/vnd.elasticsearch+json; compatible-with=5",
            "text/plain",
            "garbage/;;",
        ]),
        body(),
    )
        .prop_map(|(method, mut path, params, content_type, body)| {
            for (i, (k, v)) in params.iter().enumerate() {
                path.push(if i == 0 { '?' } else { '&' });
                path.push_str(&format!("{k}={v}"));
            }
            Request {
                method,
                path,
                content_type,
                body,
            }
        })
}

#[test]
fn random_requests_never_fail_the_server() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.block_on(async {
        let s = TestServer::start(1 << 20).await;
        let create = json!({"mappings": {"properties": {
            "title": {"type": "text"}, "status": {"type": "integer"},
            "@timestamp": {"type": "date"}, "tag": {"type": "keyword"}}}});
        assert_eq!(s.json("PUT", "/logs", Some(create)).await.status, 200);
        let doc = json!({"title": "quick fox", "status": 200, "tag": "a"});
        assert_eq!(
            s.json("PUT", "/logs/_doc/1?refresh=true", Some(doc))
                .await
                .status,
            201
        );
        s
    });
    // Quick mode draws the same requests every run (a seeded generator);
    // the full suite draws new ones each time.
    let full = ["STRATA_TEST_FULL", "STRATA_FULL"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|s| !s.is_empty() && s != "0"));
    let cases = std::env::var("STRATA_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if full { 2_000 } else { 200 });
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = if full {
        TestRunner::new(config)
    } else {
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
    };
    // Statuses seen, by hundred: the draw must reach handlers, not only
    // the router's 404s and 400s.
    let seen: [std::cell::Cell<u32>; 6] = Default::default();
    runner
        .run(&request(), |req| {
            let headers = [("Content-Type", req.content_type)];
            let response =
                rt.block_on(server.send(req.method, &req.path, &headers, req.body.as_deref()));
            seen[usize::from(response.status / 100).min(5)]
                .set(seen[usize::from(response.status / 100).min(5)].get() + 1);
            if response.status >= 500 {
                return Err(TestCaseError::fail(format!(
                    "{} {} -> {}: {}",
                    req.method,
                    req.path,
                    response.status,
                    String::from_utf8_lossy(&response.body)
                )));
            }
            Ok(())
        })
        .unwrap();
    let counts: Vec<u32> = seen.iter().map(std::cell::Cell::get).collect();
    eprintln!("statuses by hundred: {counts:?}");
    assert!(
        counts[2] * 20 >= cases,
        "too few requests succeeded: {counts:?}"
    );
    rt.block_on(async {
        // The random requests may have deleted `logs`: serve a new index.
        let doc = json!({"title": "quick fox"});
        let r = server
            .json("PUT", "/after/_doc/1?refresh=true", Some(doc))
            .await;
        assert_eq!(r.status, 201, "{}", r.text());
        let r = server
            .json("GET", "/after/_search?q=title:quick", None)
            .await;
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["hits"]["total"]["value"], 1);
        server.stop(false).await;
    });
}
