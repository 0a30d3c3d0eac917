//! Sliced scrolls and points in time over a real socket: every document
//! is in exactly one slice (by `_id` and by a numeric field), the union of
//! the slices is the whole result, and Elasticsearch's refusals.

use crate::support;

use std::collections::BTreeSet;

use serde_json::{json, Value};
use support::{assert_error, TestServer};

const MAX_BODY: usize = 8 << 20;
const DOCS: usize = 257;

/// Index `s` (3 shards): `DOCS` documents, `n` = i, `tag` even/odd; about
/// a tenth of them have no `n`, a few have two values.
async fn load(s: &TestServer) {
    let r = s
        .json(
            "PUT",
            "/s",
            Some(json!({
                "settings": {"number_of_shards": 3},
                "mappings": {"properties": {"n": {"type": "long"}, "tag": {"type": "keyword"},
                    "x": {"type": "double"}}}
            })),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let mut body = String::new();
    for i in 0..DOCS {
        body.push_str(&json!({"index": {"_id": format!("doc-{i}")}}).to_string());
        body.push('\n');
        let doc = match i % 10 {
            0 => json!({"tag": "none"}),
            7 => json!({"n": [i, i + 1000], "x": i as f64 / 3.0, "tag": "two"}),
            _ => {
                json!({"n": i, "x": -(i as f64) / 7.0, "tag": if i % 2 == 0 {"even"} else {"odd"}})
            }
        };
        body.push_str(&doc.to_string());
        body.push('\n');
    }
    let nd = [("Content-Type", "application/x-ndjson")];
    let r = s
        .send("POST", "/s/_bulk?refresh=true", &nd, Some(body.as_bytes()))
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], false);
}

/// A 400 failing the shards of index `s` with an
/// `illegal_argument_exception` of `reason`.
fn assert_shard_error(r: &support::Response, reason: &str) {
    assert_eq!(r.status, 400, "{}", r.text());
    let body = r.json();
    let error = &body["error"];
    assert_eq!(error["type"], "search_phase_execution_exception", "{body}");
    assert_eq!(error["root_cause"][0]["type"], "illegal_argument_exception");
    assert_eq!(error["root_cause"][0]["reason"], reason);
    assert_eq!(error["caused_by"]["reason"], reason);
    assert_eq!(error["failed_shards"][0]["index"], "s");
    assert_eq!(error["failed_shards"][0]["reason"]["reason"], reason);
    assert_eq!(
        error["failed_shards"][0]["node"].as_str().unwrap().len(),
        22
    );
}

fn ids(reply: &Value) -> Vec<String> {
    reply["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect()
}

/// Every id of slice `slice` of a scroll with `query`, page by page.
async fn scroll_slice(s: &TestServer, query: &Value, slice: Value) -> Vec<String> {
    let body = json!({"size": 20, "query": query, "slice": slice});
    let r = s.json("POST", "/s/_search?scroll=1m", Some(body)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let mut reply = r.json();
    let total = reply["hits"]["total"]["value"].as_u64().unwrap();
    let mut out = Vec::new();
    loop {
        let page = ids(&reply);
        if page.is_empty() {
            break;
        }
        out.extend(page);
        let id = reply["_scroll_id"].as_str().unwrap().to_string();
        let r = s
            .json(
                "POST",
                "/_search/scroll",
                Some(json!({"scroll": "1m", "scroll_id": id})),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text());
        reply = r.json();
    }
    assert_eq!(out.len() as u64, total, "the slice's total counts its hits");
    out
}

/// The ids matching `query` without slicing.
async fn all_ids(s: &TestServer, query: &Value) -> BTreeSet<String> {
    let r = s
        .json(
            "POST",
            "/s/_search",
            Some(json!({"size": 1000, "query": query})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    ids(&r.json()).into_iter().collect()
}

/// The slices partition `whole`: no id twice, none missing, none extra,
/// and (with enough documents) no slice empty.
fn assert_partition(slices: &[Vec<String>], whole: &BTreeSet<String>) {
    let mut seen = BTreeSet::new();
    for (i, slice) in slices.iter().enumerate() {
        assert!(!slice.is_empty(), "slice {i} is empty");
        for id in slice {
            assert!(seen.insert(id.clone()), "{id} is in two slices");
        }
    }
    assert_eq!(&seen, whole);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sliced_scrolls_partition_the_result() {
    let s = TestServer::start(MAX_BODY).await;
    load(&s).await;
    let everything = json!({"match_all": {}});
    let odd_or_two = json!({"terms": {"tag": ["odd", "two"]}});
    for (query, slice_of) in [
        (&everything, None),
        (&odd_or_two, None),
        (&everything, Some("_id")),
        (&everything, Some("n")),
        (&odd_or_two, Some("n")),
        (&everything, Some("x")),
    ] {
        for max in [2u32, 3, 5] {
            let mut slices = Vec::new();
            for id in 0..max {
                let mut slice = json!({"id": id, "max": max});
                if let Some(field) = slice_of {
                    slice["field"] = json!(field);
                }
                slices.push(scroll_slice(&s, query, slice).await);
            }
            assert_partition(&slices, &all_ids(&s, query).await);
        }
    }
    // Documents without the field are in slice 0, as in Elasticsearch.
    let zero = scroll_slice(&s, &everything, json!({"field": "n", "id": 0, "max": 4})).await;
    assert!(zero.iter().any(|id| id == "doc-0") && zero.iter().any(|id| id == "doc-250"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sliced_points_in_time_partition_the_result() {
    let s = TestServer::start(MAX_BODY).await;
    load(&s).await;
    let r = s.json("POST", "/s/_pit?keep_alive=1m", None).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let pit = r.json()["id"].as_str().unwrap().to_string();
    // A document indexed after the point in time is in no slice.
    let r = s
        .json("PUT", "/s/_doc/late?refresh=true", Some(json!({"n": 5})))
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    for field in [None, Some("n")] {
        let max = 4;
        let mut slices = Vec::new();
        for id in 0..max {
            let mut slice = json!({"id": id, "max": max});
            if let Some(field) = field {
                slice["field"] = json!(field);
            }
            let mut out = Vec::new();
            let mut after: Option<Value> = None;
            loop {
                let mut body = json!({"size": 17, "pit": {"id": pit, "keep_alive": "1m"},
                    "slice": slice, "sort": [{"n": "asc"}]});
                if let Some(a) = &after {
                    body["search_after"] = a.clone();
                }
                let r = s.json("POST", "/_search", Some(body)).await;
                assert_eq!(r.status, 200, "{}", r.text());
                let reply = r.json();
                let hits = reply["hits"]["hits"].as_array().unwrap().clone();
                if hits.is_empty() {
                    break;
                }
                after = Some(hits.last().unwrap()["sort"].clone());
                out.extend(ids(&reply));
            }
            slices.push(out);
        }
        let whole: BTreeSet<String> = (0..DOCS).map(|i| format!("doc-{i}")).collect();
        assert_partition(&slices, &whole);
    }
    // `_id` is for scrolls only.
    let r = s
        .json(
            "POST",
            "/_search",
            Some(json!({"pit": {"id": pit}, "slice": {"field": "_id", "id": 0, "max": 2}})),
        )
        .await;
    assert_shard_error(&r, "cannot slice on [_id] when using [point-in-time]");
    // A closed point in time fails every shard: 404, as in Elasticsearch 8.
    let r = s.json("DELETE", "/_pit", Some(json!({"id": pit}))).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let r = s
        .json("POST", "/_search", Some(json!({"pit": {"id": pit}})))
        .await;
    assert_eq!(r.status, 404, "{}", r.text());
    let body = r.json();
    assert_eq!(body["error"]["type"], "search_phase_execution_exception");
    assert_eq!(body["error"]["reason"], "all shards failed");
    assert_eq!(
        body["error"]["root_cause"][0]["type"],
        "search_context_missing_exception"
    );
    assert_eq!(
        body["error"]["failed_shards"][0]["node"],
        json!(s.node.identity.node_id)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_slices_are_refused_as_elasticsearch_refuses_them() {
    let s = TestServer::start(MAX_BODY).await;
    load(&s).await;
    let search = |slice: Value, scroll: bool| {
        let path = if scroll {
            "/s/_search?scroll=1m"
        } else {
            "/s/_search"
        };
        let s = &s;
        async move { s.json("POST", path, Some(json!({"slice": slice}))).await }
    };
    // Parsing: x_content_parse_exception, caused by the setter's refusal.
    for (slice, field, reason) in [
        (
            json!({"id": 2, "max": 2}),
            "max",
            "max must be greater than id",
        ),
        // The body's keys are read in name order (Elasticsearch reads them
        // as written, and blames whichever of the two comes second).
        (
            json!({"max": 3, "id": 3}),
            "max",
            "max must be greater than id",
        ),
        (
            json!({"id": 0, "max": 1}),
            "max",
            "max must be greater than 1",
        ),
        (
            json!({"id": -1, "max": 2}),
            "id",
            "id must be greater than or equal to 0",
        ),
    ] {
        let r = search(slice, true).await;
        // The reason starts with the position of the field's value.
        assert_error(&r, 400, "x_content_parse_exception", "[1:");
        let body = r.json();
        let (_, rest) = body["error"]["reason"]
            .as_str()
            .unwrap()
            .split_once("] ")
            .unwrap();
        assert_eq!(rest, format!("[slice] failed to parse field [{field}]"));
        assert_eq!(body["error"]["caused_by"]["reason"], reason);
    }
    // Without a scroll or point in time.
    let r = search(json!({"id": 0, "max": 2}), false).await;
    assert_error(
        &r,
        400,
        "action_request_validation_exception",
        "Validation Failed: 1: [slice] can only be used with [scroll] or [point-in-time] requests;",
    );
    // More slices than index.max_slices_per_scroll, until it is raised.
    let r = search(json!({"id": 0, "max": 1025}), true).await;
    assert_shard_error(
        &r,
        "The number of slices [1025] is too large. It must be less than [1024]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.",
    );
    let r = s
        .json(
            "PUT",
            "/s/_settings",
            Some(json!({"index": {"max_slices_per_scroll": 2000}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(
        search(json!({"id": 0, "max": 1025}), true).await.status,
        200
    );
    // A field that is not a numeric doc-values one.
    for (field, reason) in [
        ("tag", "cannot load numeric doc values on tag"),
        ("nope", "field nope not found"),
    ] {
        let r = search(json!({"field": field, "id": 0, "max": 2}), true).await;
        assert_shard_error(&r, reason);
    }
}
