//! Bounded fuzzing of the search front end's JSON parsing and query DSL,
//! in process (the node's HTTP server on a local port): search, count and
//! msearch bodies drawn from a small grammar of the supported queries and
//! aggregations, then mutated (deep nesting, huge and odd numbers, wrong
//! types, unknown keys, truncated or corrupted bytes). Every answer must
//! come within a time bound, never be a 5xx (a panic is answered 500), and
//! an error answer must have Elasticsearch's shape: `{"error": {"type",
//! "reason", "root_cause": [...]}, "status": <the HTTP status>}`.
//!
//! Cases: 128 in the quick suite, drawn the same every run (a seeded
//! generator); `STRATA_TEST_FULL=1` 2,000 new ones each run;
//! `STRATA_FUZZ_CASES=N` exactly N.

use crate::support;

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{json, Map, Value};
use support::TestServer;

/// Longest a single request may take (debug build, two shared cores).
const PER_CASE: Duration = Duration::from_secs(10);

const FIELDS: &[&str] = &[
    "title",
    "status",
    "tag",
    "@timestamp",
    "price",
    "missing",
    "title.x",
    "",
    "*",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        Just(json!(1e308)),
        Just(json!(-1e308)),
        Just(json!(u64::MAX)),
        prop::sample::select(vec![
            "quick",
            "fox",
            "a",
            "",
            "*",
            "?",
            "title:quick",
            "(((",
            "now-1d/d",
            "2024-01-01",
            "1e400",
            "-0",
            "NaN",
            "AND OR",
            "\\",
            "\u{0}",
            "é",
            "1d",
            "asc",
            "desc",
            "_key",
        ])
        .prop_map(Value::from),
    ]
}

fn field() -> impl Strategy<Value = String> {
    prop::sample::select(FIELDS).prop_map(str::to_string)
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// Leaf queries of the supported DSL, with mostly sensible arguments.
fn leaf_query() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"match_all": {}})),
        Just(json!({"match_none": {}})),
        (field(), scalar()).prop_map(|(f, v)| obj(vec![("match", obj(vec![(&f, v)]))])),
        (field(), scalar()).prop_map(|(f, v)| obj(vec![("term", obj(vec![(&f, v)]))])),
        (field(), prop::collection::vec(scalar(), 0..4))
            .prop_map(|(f, v)| obj(vec![("terms", obj(vec![(&f, Value::Array(v))]))])),
        (field(), scalar(), scalar()).prop_map(|(f, lo, hi)| {
            obj(vec![(
                "range",
                obj(vec![(&f, json!({"gte": lo, "lt": hi}))]),
            )])
        }),
        field().prop_map(|f| json!({"exists": {"field": f}})),
        (field(), scalar()).prop_map(|(f, v)| obj(vec![("prefix", obj(vec![(&f, v)]))])),
        (field(), scalar()).prop_map(|(f, v)| obj(vec![("wildcard", obj(vec![(&f, v)]))])),
        (field(), scalar()).prop_map(|(f, v)| obj(vec![("regexp", obj(vec![(&f, v)]))])),
        (field(), scalar()).prop_map(|(f, v)| obj(vec![("fuzzy", obj(vec![(&f, v)]))])),
        (field(), scalar()).prop_map(|(f, v)| obj(vec![("match_phrase", obj(vec![(&f, v)]))])),
        scalar().prop_map(|v| json!({"query_string": {"query": v}})),
        scalar().prop_map(|v| json!({"simple_query_string": {"query": v}})),
        (scalar(), field()).prop_map(|(v, f)| json!({"multi_match": {"query": v, "fields": [f]}})),
        prop::collection::vec(scalar(), 0..3).prop_map(|ids| json!({"ids": {"values": ids}})),
    ]
}

/// Query trees: leaves combined by `bool`, `constant_score`, `dis_max`
/// and `function_score`.
fn query() -> impl Strategy<Value = Value> {
    leaf_query().prop_recursive(5, 48, 4, |inner| {
        let clauses = || prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array);
        prop_oneof![
            (clauses(), clauses(), clauses(), clauses(), scalar()).prop_map(
                |(must, should, filter, must_not, msm)| {
                    json!({"bool": {"must": must, "should": should, "filter": filter,
                        "must_not": must_not, "minimum_should_match": msm}})
                }
            ),
            (inner.clone(), scalar())
                .prop_map(|(q, b)| json!({"constant_score": {"filter": q, "boost": b}})),
            clauses().prop_map(|qs| json!({"dis_max": {"queries": qs}})),
            inner.prop_map(|q| json!({"function_score": {"query": q}})),
        ]
    })
}

/// Aggregations, metric leaves under bucket aggregations.
fn aggs() -> impl Strategy<Value = Value> {
    let metric = (
        prop::sample::select(vec![
            "avg",
            "sum",
            "min",
            "max",
            "value_count",
            "cardinality",
        ]),
        field(),
    )
        .prop_map(|(kind, f)| obj(vec![(kind, json!({"field": f}))]));
    metric.prop_recursive(3, 24, 3, |inner| {
        let sub = prop::collection::vec(inner, 0..3).prop_map(|subs| {
            let named: Map<String, Value> = subs
                .into_iter()
                .enumerate()
                .map(|(i, a)| (format!("a{i}"), a))
                .collect();
            Value::Object(named)
        });
        let bucket = prop_oneof![
            (field(), scalar()).prop_map(|(f, size)| json!({"terms": {"field": f, "size": size}})),
            (field(), scalar())
                .prop_map(|(f, i)| json!({"histogram": {"field": f, "interval": i}})),
            (field(), scalar())
                .prop_map(|(f, i)| json!({"date_histogram": {"field": f, "calendar_interval": i}})),
            (field(), scalar(), scalar()).prop_map(
                |(f, a, b)| json!({"range": {"field": f, "ranges": [{"to": a}, {"from": b}]}})
            ),
            (field(), scalar())
                .prop_map(|(f, a)| json!({"date_range": {"field": f, "ranges": [{"from": a}]}})),
            leaf_query().prop_map(|q| json!({"filter": q})),
            leaf_query().prop_map(|q| json!({"filters": {"filters": {"one": q}}})),
            field().prop_map(|f| json!({"missing": {"field": f}})),
        ];
        (bucket, sub).prop_map(|(mut b, sub)| {
            b["aggs"] = sub;
            b
        })
    })
}

/// A search body: a query, aggregations and the usual top-level options.
fn search_body() -> impl Strategy<Value = Value> {
    (
        prop::option::of(query()),
        prop::option::of(aggs()),
        prop::option::of(scalar()),
        prop::option::of(scalar()),
        prop::option::of(field()),
    )
        .prop_map(|(q, a, size, from, sort)| {
            let mut body = Map::new();
            if let Some(q) = q {
                body.insert("query".into(), q);
            }
            if let Some(a) = a {
                body.insert("aggs".into(), json!({ "top": a }));
            }
            if let Some(size) = size {
                body.insert("size".into(), size);
            }
            if let Some(from) = from {
                body.insert("from".into(), from);
            }
            if let Some(sort) = sort {
                body.insert("sort".into(), json!([{ sort: "desc" }]));
            }
            Value::Object(body)
        })
}

/// Changes a well-formed body: a value of the wrong type somewhere, an
/// unknown key, a deep nest, or damaged bytes.
#[derive(Debug, Clone)]
enum Mutation {
    None,
    WrongType(Value),
    UnknownKey(String),
    DeepBool(usize),
    DeepArray(usize),
    Truncate(prop::sample::Index),
    FlipByte(prop::sample::Index, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => Just(Mutation::None),
        2 => scalar().prop_map(Mutation::WrongType),
        1 => prop::sample::select(vec!["bogus", "query", "_source", "aggregations", ""])
            .prop_map(|k| Mutation::UnknownKey(k.to_string())),
        1 => (50usize..3000).prop_map(Mutation::DeepBool),
        1 => (50usize..20_000).prop_map(Mutation::DeepArray),
        1 => any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        1 => (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::FlipByte(i, b)),
    ]
}

/// Replaces the first value found where `pick` (a walk order) stops.
fn replace_some_value(v: &mut Value, with: Value, depth: usize) -> bool {
    match v {
        Value::Object(map) => {
            let n = map.len();
            if let Some((_, child)) = map.iter_mut().nth(depth % n.max(1)) {
                if child.is_object()
                    && depth < 6
                    && replace_some_value(child, with.clone(), depth + 1)
                {
                    return true;
                }
                *child = with;
                return true;
            }
            false
        }
        _ => false,
    }
}

fn apply(body: Value, m: &Mutation) -> Vec<u8> {
    match m {
        Mutation::None => body.to_string().into_bytes(),
        Mutation::WrongType(with) => {
            let mut body = body;
            if !replace_some_value(&mut body, with.clone(), 0) {
                body = with.clone();
            }
            body.to_string().into_bytes()
        }
        Mutation::UnknownKey(k) => {
            let mut body = body;
            if let Value::Object(map) = &mut body {
                map.insert(k.clone(), json!({"unknown_thing": [1, {"x": null}]}));
            }
            body.to_string().into_bytes()
        }
        Mutation::DeepBool(n) => {
            // Written as text: a `Value` this deep would overflow the
            // test's own stack when dropped.
            let mut text = String::from("{\"query\":");
            text.push_str(&"{\"bool\":{\"must\":[".repeat(*n));
            text.push_str("{\"match_all\":{}}");
            text.push_str(&"]}}".repeat(*n));
            text.push('}');
            text.into_bytes()
        }
        Mutation::DeepArray(n) => {
            let mut text = String::from("{\"query\":");
            text.push_str(&"[".repeat(*n));
            text.push_str(&"]".repeat(*n));
            text.push('}');
            text.into_bytes()
        }
        Mutation::Truncate(at) => {
            let bytes = body.to_string().into_bytes();
            let cut = at.index(bytes.len() + 1);
            bytes[..cut].to_vec()
        }
        Mutation::FlipByte(at, b) => {
            let mut bytes = body.to_string().into_bytes();
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                bytes[i] = *b;
            }
            bytes
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    path: &'static str,
    body: Vec<u8>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(vec![
            "/logs/_search",
            "/logs/_search",
            "/_search",
            "/logs/_count",
            "/logs/_msearch",
        ]),
        search_body(),
        mutation(),
    )
        .prop_map(|(path, body, m)| {
            let body = if path.ends_with("_count") {
                // A count takes only a query.
                let mut only = Map::new();
                if let Some(q) = body.get("query") {
                    only.insert("query".into(), q.clone());
                }
                Value::Object(only)
            } else {
                body
            };
            let mut bytes = apply(body, &m);
            if path.ends_with("_msearch") {
                let mut lines = b"{}\n".to_vec();
                lines.extend_from_slice(&bytes);
                lines.push(b'\n');
                bytes = lines;
            }
            Case { path, body: bytes }
        })
}

/// Cases: `STRATA_FUZZ_CASES`, else the full or quick count.
fn cases() -> (u32, bool) {
    let full = std::env::var("STRATA_TEST_FULL").is_ok_and(|v| !v.is_empty() && v != "0");
    let n = std::env::var("STRATA_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full { 2_000 } else { 128 });
    (n, full)
}

/// Checks an error body's shape; `Ok` for a success.
fn check_shape(status: u16, body: &[u8]) -> Result<(), String> {
    if status < 400 {
        return Ok(());
    }
    let v: Value = serde_json::from_slice(body).map_err(|e| {
        format!(
            "error body is not JSON ({e}): {}",
            String::from_utf8_lossy(body)
        )
    })?;
    let error = &v["error"];
    let good = v["status"] == status
        && error["type"].is_string()
        && error["reason"].is_string()
        && error["root_cause"].as_array().is_some_and(|rc| {
            !rc.is_empty()
                && rc
                    .iter()
                    .all(|c| c["type"].is_string() && c["reason"].is_string())
        });
    if good {
        Ok(())
    } else {
        Err(format!("not Elasticsearch's error shape: {v}"))
    }
}

#[test]
fn search_bodies_never_panic_and_errors_have_the_elasticsearch_shape() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.block_on(async {
        let s = TestServer::start(8 << 20).await;
        let create = json!({"mappings": {"properties": {
            "title": {"type": "text"}, "status": {"type": "integer"},
            "@timestamp": {"type": "date"}, "tag": {"type": "keyword"},
            "price": {"type": "double"}}}});
        assert_eq!(s.json("PUT", "/logs", Some(create)).await.status, 200);
        for (i, (title, status, tag)) in [("quick fox", 200, "a"), ("lazy dog", 404, "b")]
            .into_iter()
            .enumerate()
        {
            let doc = json!({"title": title, "status": status, "tag": tag,
                "@timestamp": format!("2024-01-0{}T00:00:00Z", i + 1), "price": 1.5});
            let r = s
                .json("PUT", &format!("/logs/_doc/{i}?refresh=true"), Some(doc))
                .await;
            assert_eq!(r.status, 201, "{}", r.text());
        }
        s
    });
    let (cases, full) = cases();
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
    let (ok, refused) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    runner
        .run(&case(), |case| {
            let content_type = if case.path.ends_with("_msearch") {
                "application/x-ndjson"
            } else {
                "application/json"
            };
            let headers = [("Content-Type", content_type)];
            let started = Instant::now();
            let r = rt.block_on(server.send("POST", case.path, &headers, Some(&case.body)));
            let took = started.elapsed();
            let shown = || {
                String::from_utf8_lossy(&case.body)
                    .chars()
                    .take(600)
                    .collect::<String>()
            };
            if took > PER_CASE {
                return Err(TestCaseError::fail(format!(
                    "{} took {took:?}: {}",
                    case.path,
                    shown()
                )));
            }
            if r.status >= 500 {
                return Err(TestCaseError::fail(format!(
                    "{} -> {}: {} for {}",
                    case.path,
                    r.status,
                    r.text(),
                    shown()
                )));
            }
            check_shape(r.status, &r.body)
                .map_err(|e| TestCaseError::fail(format!("{}: {e} for {}", case.path, shown())))?;
            if case.path.ends_with("_msearch") && r.status == 200 {
                // Each answer of an msearch is a result or an error of the
                // same shape.
                for resp in r.json()["responses"].as_array().into_iter().flatten() {
                    if resp.get("error").is_some() {
                        let st = resp["status"].as_u64().unwrap_or(0) as u16;
                        if st >= 500 {
                            return Err(TestCaseError::fail(format!("msearch item {resp}")));
                        }
                        check_shape(st, resp.to_string().as_bytes())
                            .map_err(TestCaseError::fail)?;
                    }
                }
            }
            match r.status {
                200 => ok.set(ok.get() + 1),
                _ => refused.set(refused.get() + 1),
            }
            Ok(())
        })
        .unwrap();
    // The grammar must reach the query engine, and the mutations the
    // parser's refusals (whose shape was checked).
    eprintln!("{} answered 200, {} refused", ok.get(), refused.get());
    assert!(
        ok.get() * 10 >= cases,
        "only {} of {cases} answered 200",
        ok.get()
    );
    assert!(
        refused.get() * 10 >= cases,
        "only {} of {cases} refused",
        refused.get()
    );
    rt.block_on(async {
        let r = server
            .json("GET", "/logs/_search?q=title:quick", None)
            .await;
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["hits"]["total"]["value"], 1);
        server.stop(false).await;
    });
}
