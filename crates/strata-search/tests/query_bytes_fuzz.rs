//! Bounded fuzzing of the query DSL parser at the bytes a client sends: a
//! corpus of valid `_search` bodies (queries, aggregations, sorts, source
//! filters, highlights) mutated byte by byte (bit flips, inserted, deleted
//! and duplicated bytes, truncations, splices); what still parses as JSON
//! goes through `SearchRequest::parse` and, if accepted, the whole search.
//! Nothing may panic. `hostile_queries.rs` fuzzes well-formed trees;
//! this reaches the parser with the malformed ones a fuzzer finds. Longer
//! runs: `STRATA_FUZZ_CASES=20000 cargo test -p strata-search --test
//! integration query_bytes_fuzz::`.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

const SEEDS: &[&[u8]] = &[
    br#"{"query":{"match_all":{}}}"#,
    br#"{"query":{"match":{"title":{"query":"quick fox","operator":"and"}}},"size":2,"from":1}"#,
    br#"{"query":{"bool":{"must":[{"term":{"tag":"a"}}],"filter":[{"range":{"status":{"gte":200,"lt":500}}}],"must_not":{"exists":{"field":"place"}},"should":[{"prefix":{"tag":"b"}}],"minimum_should_match":1}}}"#,
    br#"{"query":{"query_string":{"query":"title:(quick OR lazy) AND status:[200 TO 404]","default_operator":"AND"}}}"#,
    br#"{"query":{"simple_query_string":{"query":"\"quick fox\" -dog +a*","fields":["title^2","tag"]}}}"#,
    br#"{"query":{"range":{"created":{"gte":"2024-01-01||/M","lt":"now-1d/d","format":"yyyy-MM-dd","time_zone":"+01:00"}}}}"#,
    br#"{"query":{"wildcard":{"tag":{"value":"a?*"}}},"sort":[{"status":{"order":"desc","missing":"_last"}},"_score"]}"#,
    br#"{"query":{"regexp":{"tag":"[ab]{1,3}"}},"_source":{"includes":["title","st*"],"excludes":["place"]}}"#,
    br#"{"query":{"fuzzy":{"title":{"value":"quik","fuzziness":"AUTO"}}},"highlight":{"fields":{"title":{}}}}"#,
    br#"{"query":{"geo_distance":{"distance":"100km","place":{"lat":1,"lon":2}}}}"#,
    br#"{"query":{"function_score":{"query":{"match_all":{}},"functions":[{"filter":{"term":{"tag":"a"}},"weight":2}],"score_mode":"sum","boost_mode":"multiply"}}}"#,
    br#"{"size":0,"aggs":{"tags":{"terms":{"field":"tag","size":5,"order":{"_count":"desc"}},"aggs":{"avg_status":{"avg":{"field":"status"}}}}}}"#,
    br#"{"size":0,"aggs":{"h":{"histogram":{"field":"status","interval":100,"min_doc_count":0,"extended_bounds":{"min":0,"max":600}}},"d":{"date_histogram":{"field":"created","calendar_interval":"month"}}}}"#,
    br#"{"size":0,"aggs":{"r":{"range":{"field":"status","ranges":[{"to":300},{"from":300}]}},"c":{"cardinality":{"field":"tag"}},"p":{"percentiles":{"field":"status","percents":[50,99]}}}}"#,
    br#"{"query":{"ids":{"values":["1","3"]}},"search_after":[404],"sort":[{"status":"asc"}],"track_total_hits":true}"#,
    br#"{"query":{"script":{"script":{"source":"doc['status'].value > params.x","params":{"x":250}}}}}"#,
];

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

/// How far a body got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reached {
    /// Not JSON: refused before the DSL parser.
    Json,
    /// JSON the DSL parser refused.
    Parser,
    /// A request the search ran (whatever it answered).
    Search,
}

/// Parses `body` as a client's bytes and, if it is a valid request, runs
/// it. Every outcome is fine; returning without a panic is the test.
fn answer(catalog: &Catalog, body: &[u8]) -> Reached {
    let Ok(json) = serde_json::from_slice::<Value>(body) else {
        return Reached::Json;
    };
    let Ok(request) = SearchRequest::parse(&json) else {
        return Reached::Parser;
    };
    let indices = catalog.resolve("docs").unwrap();
    let _ = search(&indices, &request);
    Reached::Search
}

/// Byte-level mutations of a seed input, as a coverage-guided fuzzer's
/// first stage applies them: each step flips a bit, inserts, deletes or
/// overwrites a byte, duplicates or drops a run, truncates, or splices
/// in another seed.
#[derive(Debug, Clone)]
enum Step {
    Flip(prop::sample::Index, u8),
    Insert(prop::sample::Index, u8),
    Delete(prop::sample::Index),
    Overwrite(prop::sample::Index, u8),
    Duplicate(prop::sample::Index, prop::sample::Index),
    Drop(prop::sample::Index, prop::sample::Index),
    Truncate(prop::sample::Index),
    Splice(prop::sample::Index, prop::sample::Index),
}

fn step() -> impl Strategy<Value = Step> {
    use prop::sample::Index;
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(i, b)| Step::Flip(i, b)),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Step::Insert(i, b)),
        any::<Index>().prop_map(Step::Delete),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Step::Overwrite(i, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Step::Duplicate(a, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Step::Drop(a, b)),
        any::<Index>().prop_map(Step::Truncate),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Step::Splice(a, b)),
    ]
}

/// `seed` with `steps` applied (`seeds` feeds splices).
fn mutate(seed: &[u8], steps: &[Step], seeds: &[&[u8]]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for step in steps {
        let len = data.len();
        let at = |i: &prop::sample::Index| if len == 0 { 0 } else { i.index(len) };
        match step {
            Step::Flip(i, bit) if len > 0 => {
                let p = at(i);
                data[p] ^= 1 << bit;
            }
            Step::Insert(i, b) => data.insert(if len == 0 { 0 } else { i.index(len + 1) }, *b),
            Step::Delete(i) if len > 0 => {
                data.remove(at(i));
            }
            Step::Overwrite(i, b) if len > 0 => {
                let p = at(i);
                data[p] = *b;
            }
            Step::Duplicate(a, b) if len > 0 => {
                let (x, y) = (at(a), at(b));
                let run = data[x.min(y)..=x.max(y)].to_vec();
                let p = x.max(y) + 1;
                data.splice(p..p, run);
            }
            Step::Drop(a, b) if len > 0 => {
                let (x, y) = (at(a), at(b));
                data.drain(x.min(y)..=x.max(y));
            }
            Step::Truncate(i) => data.truncate(if len == 0 { 0 } else { i.index(len + 1) }),
            Step::Splice(which, i) => {
                let other = seeds[which.index(seeds.len())];
                let p = if len == 0 { 0 } else { i.index(len + 1) };
                data.splice(p..p, other.iter().copied());
            }
            _ => {}
        }
    }
    data
}

/// Cases per property, by the test-scale scheme (README, "Tests"):
/// `STRATA_FUZZ_CASES=N` exactly N, else ten times `quick` under
/// `STRATA_TEST_FULL` (set and not `0`), else `quick`.
fn cases(quick: u32) -> u32 {
    std::env::var("STRATA_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full_run() { quick * 10 } else { quick })
}

/// The full suite (`STRATA_TEST_FULL`).
fn full_run() -> bool {
    std::env::var("STRATA_TEST_FULL").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Runs `strategy`'s bodies against one index (making one per case would
/// be most of the run's time); how many reached the DSL parser and how
/// many the search.
fn run(quick: u32, strategy: impl Strategy<Value = Vec<u8>>) -> (usize, usize, usize) {
    let (_tmp, catalog) = setup();
    let config = Config {
        cases: cases(quick),
        failure_persistence: None,
        ..Config::default()
    };
    // The quick suite draws the same cases every run, as the HTTP fuzz
    // tests do: a floor on how many bodies are searched is a coin flip on
    // a fresh random draw of a few hundred (one run in eight fell below it
    // here once aggregation parameters were checked at the parse); the
    // full suite draws ten times as many, new each run.
    let mut runner = if full_run() {
        TestRunner::new(config)
    } else {
        TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
    };
    let counts = [(); 3].map(|()| AtomicUsize::new(0));
    runner
        .run(&strategy, |body| {
            let reached = answer(&catalog, &body) as usize;
            counts[reached].fetch_add(1, Ordering::Relaxed);
            Ok(())
        })
        .unwrap();
    let [json, parser, searched] = counts.map(AtomicUsize::into_inner);
    (json + parser + searched, parser + searched, searched)
}

#[test]
fn every_seed_is_a_valid_request() {
    let (_tmp, catalog) = setup();
    for seed in SEEDS {
        let reached = answer(&catalog, seed);
        assert_eq!(
            reached,
            Reached::Search,
            "{}",
            String::from_utf8_lossy(seed)
        );
    }
}

#[test]
fn mutated_bodies_never_panic() {
    let strategy = (0..SEEDS.len(), prop::collection::vec(step(), 1..8))
        .prop_map(|(seed, steps)| mutate(SEEDS[seed], &steps, SEEDS));
    run(384, strategy);
}

#[test]
fn lightly_mutated_bodies_never_panic() {
    // One or two steps keep most bodies valid JSON, so the parser (not
    // serde_json) sees them.
    let strategy = (0..SEEDS.len(), prop::collection::vec(step(), 1..3))
        .prop_map(|(seed, steps)| mutate(SEEDS[seed], &steps, SEEDS));
    let (cases, parsed, _) = run(384, strategy);
    // Most byte mutants are not JSON; some must still reach the parser.
    assert!(
        parsed * 20 >= cases,
        "{parsed} of {cases} bodies reached the parser"
    );
}

/// A change to a body's JSON tree at the node picked by the index, so the
/// DSL parser sees valid JSON with the wrong shapes a client may send.
#[derive(Debug, Clone)]
struct Edit(prop::sample::Index, u8, i64);

fn edit() -> impl Strategy<Value = Edit> {
    (any::<prop::sample::Index>(), 0u8..10, any::<i64>()).prop_map(|(i, k, n)| Edit(i, k, n))
}

/// Every node's JSON pointer.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    let escape = |key: &str| key.replace('~', "~0").replace('/', "~1");
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                pointers(child, format!("{at}/{}", escape(key)), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

fn apply(mut body: Value, edits: &[Edit]) -> Value {
    for Edit(pick, kind, n) in edits {
        let mut all = Vec::new();
        pointers(&body, String::new(), &mut all);
        let at = &all[pick.index(all.len())];
        let Some(node) = body.pointer_mut(at) else {
            continue;
        };
        *node = match (kind, node.take()) {
            (0, _) => Value::Null,
            (1, _) => json!(n),
            (2, _) => json!(*n as f64 / 7.0),
            (3, _) => json!(n.to_string()),
            (4, old) => json!([old]),
            (5, _) => json!(n % 2 == 0),
            (6, Value::Object(mut map)) => {
                // Rename a key: a misspelt or unknown option.
                if let Some(key) = map
                    .keys()
                    .nth(n.unsigned_abs() as usize % map.len().max(1))
                    .cloned()
                {
                    let child = map.remove(&key).unwrap_or(Value::Null);
                    map.insert(format!("{key}{}", n % 3), child);
                }
                Value::Object(map)
            }
            (7, Value::Object(mut map)) => {
                // Drop a key: a missing required part.
                if let Some(key) = map
                    .keys()
                    .nth(n.unsigned_abs() as usize % map.len().max(1))
                    .cloned()
                {
                    map.remove(&key);
                }
                Value::Object(map)
            }
            (8, old) => json!({ "x": old }),
            (_, Value::Array(mut items)) => {
                items.clear();
                Value::Array(items)
            }
            (_, old) => json!({ "bool": { "must": [old.clone(), old] } }),
        };
    }
    body
}

#[test]
fn structurally_mutated_bodies_never_panic() {
    let seeds: Vec<Value> = SEEDS
        .iter()
        .map(|s| serde_json::from_slice(s).unwrap())
        .collect();
    let strategy = (0..seeds.len(), prop::collection::vec(edit(), 1..4))
        .prop_map(move |(seed, edits)| apply(seeds[seed].clone(), &edits).to_string().into_bytes());
    let (cases, parsed, searched) = run(384, strategy);
    // Every body is JSON, so each reaches the parser; some must be
    // accepted and searched, or the run tests only refusals.
    assert_eq!(parsed, cases);
    assert!(
        searched * 10 >= cases,
        "{searched} of {cases} bodies were searched"
    );
}

#[test]
fn random_bytes_never_panic() {
    run(128, prop::collection::vec(any::<u8>(), 0..256));
}
