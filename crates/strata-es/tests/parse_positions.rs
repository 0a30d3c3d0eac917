//! Parse errors of a search body carry the position of the offending
//! token, as Elasticsearch 8 reports them: an `x_content_parse_exception`
//! starts its reason with `[line:col]` (of the unknown key), a
//! `parsing_exception` has `line` and `col` fields (of the value after
//! the key), in `root_cause` and at the top; `_msearch` items count from
//! their own body line.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

async fn raw_search(s: &TestServer, body: &str) -> (u16, Value) {
    let r = s
        .send(
            "POST",
            "/pos/_search",
            &[("Content-Type", "application/json")],
            Some(body.as_bytes()),
        )
        .await;
    (r.status, r.json())
}

/// The 1-based (line, column) of the first `needle` after `after` in `body`.
fn position(body: &str, after: &str, needle: &str) -> (u64, u64) {
    let from = body.find(after).expect("anchor in body");
    let at = from + body[from..].find(needle).expect("needle in body");
    let line_start = body[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = body[..at].matches('\n').count() + 1;
    (line as u64, (at - line_start + 1) as u64)
}

async fn server() -> TestServer {
    let s = TestServer::start(1 << 20).await;
    let r = s
        .json(
            "PUT",
            "/pos",
            Some(json!({"mappings": {"properties": {
                "title": {"type": "text"}, "tag": {"type": "keyword"}}}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_keys_of_declarative_parsers_are_located_in_the_reason() {
    let s = server().await;
    let body = r#"{"query":{"bool":{"mustt":[]}}}"#;
    let (status, reply) = raw_search(&s, body).await;
    assert_eq!(status, 400, "{reply}");
    let expected = "[1:19] [bool] unknown field [mustt]";
    assert_eq!(reply["error"]["type"], "x_content_parse_exception");
    assert_eq!(reply["error"]["reason"], expected, "{reply}");
    assert_eq!(reply["error"]["root_cause"][0]["reason"], expected);
    assert!(reply["error"].get("line").is_none());

    // Pretty-printed, inside an aggregation, with a key of the same name
    // earlier in the body that is not the offending one.
    let body = "{\n  \"query\": {\"term\": {\"tag\": \"precision_threshold\"}},\n  \"aggs\": {\n    \
                \"tags\": {\n      \"cardinality\": {\"field\": \"tag\", \"precision_treshold\": 10}\n    }\n  }\n}";
    let (status, reply) = raw_search(&s, body).await;
    assert_eq!(status, 400, "{reply}");
    let (line, col) = position(body, "cardinality", "\"precision_treshold\"");
    assert_eq!(line, 5);
    assert_eq!(
        reply["error"]["reason"],
        format!("[{line}:{col}] [cardinality] unknown field [precision_treshold]"),
        "{reply}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parsing_exceptions_carry_line_and_col_of_the_value() {
    let s = server().await;
    let body = "{\n  \"query\": {\n    \"match\": {\n      \"title\": {\"query\": \"a\", \"fuzzyy\": 2}\n    }\n  }\n}";
    let (status, reply) = raw_search(&s, body).await;
    assert_eq!(status, 400, "{reply}");
    let error = &reply["error"];
    assert_eq!(error["type"], "parsing_exception", "{reply}");
    let (line, col) = position(body, "\"fuzzyy\"", "2");
    assert_eq!((line, col), (4, 41));
    for cause in [error, &error["root_cause"][0]] {
        assert_eq!(cause["line"], line, "{reply}");
        assert_eq!(cause["col"], col, "{reply}");
    }
    // The reason itself is unchanged.
    assert!(!error["reason"].as_str().unwrap().starts_with("[4:"));

    let body = r#"{"size": 1, "query": {"nope": {}}}"#;
    let (status, reply) = raw_search(&s, body).await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"]["reason"], "unknown query [nope]");
    assert_eq!(reply["error"]["line"], 1);
    assert_eq!(reply["error"]["col"], position(body, "nope", "{").1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_that_name_no_key_of_the_body_have_no_position() {
    let s = server().await;
    let (status, reply) = raw_search(&s, r#"{"query":{}}"#).await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"]["type"], "parsing_exception");
    assert!(reply["error"].get("line").is_none(), "{reply}");
    // Errors that are not parse errors are untouched, even when they
    // name keys of the body.
    let (status, reply) = raw_search(&s, r#"{"aggs":{"a":{"foo":{}}}}"#).await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"]["type"], "illegal_argument_exception");
    assert!(reply["error"].get("line").is_none(), "{reply}");
    assert!(!reply["error"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("[1:"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn msearch_items_are_located_in_their_own_body() {
    let s = server().await;
    let item = r#"{"query":{"bool":{"filter":[],"shoud":[]}}}"#;
    let ndjson = format!("{{}}\n{{\"query\":{{\"match_all\":{{}}}}}}\n{{}}\n{item}\n");
    let r = s
        .send(
            "POST",
            "/pos/_msearch",
            &[("Content-Type", "application/x-ndjson")],
            Some(ndjson.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let reply = r.json();
    assert_eq!(reply["responses"][0]["status"], 200, "{reply}");
    let failed = &reply["responses"][1];
    assert_eq!(failed["status"], 400, "{reply}");
    let col = position(item, "bool", "\"shoud\"").1;
    assert_eq!(
        failed["error"]["reason"],
        format!("[1:{col}] [bool] unknown field [shoud]"),
        "{reply}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parse_errors_of_bool_clauses_are_wrapped_at_the_inner_position() {
    let s = server().await;
    // A clause's parsing_exception: wrapped in "[bool] failed to parse
    // field [must]", both at the inner value's position.
    let body = r#"{"query":{"bool":{"must":[{"term":{"tag":{"bogus_option":1}}}]}}}"#;
    let (status, reply) = raw_search(&s, body).await;
    assert_eq!(status, 400, "{reply}");
    let (line, col) = position(body, "bogus_option", "1");
    let error = &reply["error"];
    assert_eq!(error["type"], "x_content_parse_exception", "{reply}");
    assert_eq!(
        error["reason"],
        format!("[{line}:{col}] [bool] failed to parse field [must]")
    );
    assert!(error.get("line").is_none(), "{reply}");
    let inner = &error["caused_by"];
    assert_eq!(inner["type"], "parsing_exception", "{reply}");
    assert_eq!(
        inner["reason"],
        "[term] query does not support [bogus_option]"
    );
    assert_eq!(
        (inner["line"].clone(), inner["col"].clone()),
        (json!(line), json!(col))
    );
    // The root cause is the wrapper (no Elasticsearch exception itself).
    assert_eq!(error["root_cause"][0]["type"], "x_content_parse_exception");
    assert_eq!(error["root_cause"][0]["reason"], error["reason"]);
    assert!(error["root_cause"][0].get("caused_by").is_none());

    // Nested bools wrap once per level; an unknown key inside points at
    // the key.
    let body = r#"{"query":{"bool":{"should":{"bool":{"filter":[{"bool":{"mustt":[]}}]}}}}}"#;
    let (status, reply) = raw_search(&s, body).await;
    assert_eq!(status, 400, "{reply}");
    let at = position(body, "filter", "\"mustt\"").1;
    let error = &reply["error"];
    assert_eq!(
        error["reason"],
        format!("[1:{at}] [bool] failed to parse field [should]"),
        "{reply}"
    );
    let inner = &error["caused_by"];
    assert_eq!(inner["type"], "x_content_parse_exception", "{reply}");
    assert_eq!(
        inner["reason"],
        format!("[1:{at}] [bool] failed to parse field [filter]")
    );
    assert_eq!(
        inner["caused_by"]["reason"],
        format!("[1:{at}] [bool] unknown field [mustt]"),
        "{reply}"
    );

    // Errors that are not the clause's parse errors stay unwrapped: a
    // query string that does not parse fails on the shards.
    let body = r#"{"query":{"bool":{"filter":[{"query_string":{"query":"title:(a"}}]}}}"#;
    let (status, reply) = raw_search(&s, body).await;
    assert_eq!(status, 400, "{reply}");
    let error = &reply["error"];
    assert_eq!(error["type"], "search_phase_execution_exception", "{reply}");
    assert_eq!(error["root_cause"][0]["type"], "query_shard_exception");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_is_placed_in_the_clause_that_failed_not_the_first_alike() {
    let s = server().await;
    // `bogus` is a field of the first clause and a bad option of the
    // second: the error's query path places it in the second.
    let body = r#"{"query":{"bool":{"must":[{"term":{"bogus":"x"}},{"term":{"tag":{"value":"a","bogus":1}}}]}}}"#;
    let (status, reply) = raw_search(&s, body).await;
    assert_eq!(status, 400, "{reply}");
    let (line, col) = position(body, "\"tag\"", "1");
    let error = &reply["error"];
    assert_eq!(
        error["reason"],
        format!("[{line}:{col}] [bool] failed to parse field [must]"),
        "{reply}"
    );
    let inner = &error["caused_by"];
    assert_eq!(inner["reason"], "[term] query does not support [bogus]");
    assert_eq!(
        (inner["line"].clone(), inner["col"].clone()),
        (json!(line), json!(col))
    );
}
