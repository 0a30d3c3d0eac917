//! Unit tests of the error table: Elasticsearch's shapes per error.

use serde_json::json;
use strata_search::SearchError;

use super::*;

#[test]
fn index_not_found_has_elasticsearch_shape() {
    let e = EsError::from(SearchError::IndexNotFound("logs".into()));
    let body = e.body();
    assert_eq!(body["status"], 404);
    assert_eq!(body["error"]["type"], "index_not_found_exception");
    assert_eq!(
        body["error"]["root_cause"][0]["type"],
        "index_not_found_exception"
    );
    assert_eq!(body["error"]["index"], "logs");
    assert_eq!(body["error"]["resource.id"], "logs");
}

#[test]
fn conflicts_name_the_index_from_context() {
    let e = EsError::from(SearchError::VersionConflict {
        id: "1".into(),
        detail: "document already exists".into(),
    })
    .in_index("logs");
    assert_eq!(e.status(), 409);
    assert_eq!(e.body()["error"]["index"], "logs");
}

#[test]
fn breaker_errors_are_429_with_their_sizes() {
    let e = EsError::from(SearchError::CircuitBreaking {
        reason: "[parent] Data too large".into(),
        bytes_wanted: 10,
        bytes_limit: 5,
    });
    let body = e.body();
    assert_eq!(body["status"], 429);
    let cause = &body["error"]["root_cause"][0];
    assert_eq!(cause["type"], "circuit_breaking_exception");
    assert_eq!(cause["bytes_wanted"], 10);
    assert_eq!(cause["bytes_limit"], 5);
    assert_eq!(cause["durability"], "TRANSIENT");
    assert_eq!(body["error"]["durability"], "TRANSIENT");
}

#[test]
fn shard_failures_are_search_phase_execution_exceptions() {
    let e = EsError::from(SearchError::QueryShard(
        "Failed to parse query [a:(]".into(),
    ))
    .on_shards(Some("r1"));
    let body = e.body();
    assert_eq!(body["status"], 400);
    let error = &body["error"];
    assert_eq!(error["type"], "search_phase_execution_exception");
    assert_eq!(error["reason"], "all shards failed");
    assert_eq!(error["phase"], "query");
    assert_eq!(error["grouped"], true);
    assert_eq!(error["root_cause"][0]["type"], "query_shard_exception");
    assert_eq!(error["root_cause"][0]["index"], "r1");
    assert_eq!(error["caused_by"]["type"], "query_shard_exception");
    assert_eq!(error["failed_shards"][0]["index"], "r1");
    assert_eq!(
        error["failed_shards"][0]["reason"]["type"],
        "query_shard_exception"
    );
    // A missing scroll keeps its 404; request parse errors stay bare.
    let missing = EsError::SearchContextMissing("No search context found for id [7]".into());
    assert_eq!(missing.on_shards(None).status(), 404);
    let parse = EsError::from(SearchError::Parsing("unknown query [x]".into()));
    assert_eq!(parse.on_shards(Some("r1")).es_type(), "parsing_exception");
}

#[test]
fn update_script_errors_are_rooted_at_failed_to_execute_script() {
    let lang = SearchError::IllegalArgument("script_lang not supported [expression]".into());
    let e = EsError::from(SearchError::UpdateScript(Box::new(lang))).in_index("r1");
    let body = e.body();
    assert_eq!(
        body["error"]["root_cause"],
        json!([{"type": "illegal_argument_exception", "reason": "failed to execute script"}])
    );
    assert_eq!(body["error"]["reason"], "failed to execute script");
    assert_eq!(
        body["error"]["caused_by"],
        json!({"type": "illegal_argument_exception", "reason": "script_lang not supported [expression]"})
    );
}

#[test]
fn field_parse_errors_carry_their_cause() {
    let e = EsError::from(SearchError::FieldParse {
        reason: "[date_histogram] failed to parse field [calendar_interval]".into(),
        cause: Some(Box::new(SearchError::IllegalArgument(
            "bad interval".into(),
        ))),
    });
    let body = e.body();
    assert_eq!(body["status"], 400);
    assert_eq!(body["error"]["type"], "x_content_parse_exception");
    assert_eq!(body["error"]["caused_by"]["reason"], "bad interval");
    assert!(body["error"]["root_cause"][0].get("caused_by").is_none());
}

#[test]
fn no_handler_is_a_400_naming_uri_and_method() {
    let e = EsError::NoHandler {
        uri: "/a/b/c".into(),
        method: "GET".into(),
    };
    assert_eq!(e.status(), 400);
    assert!(e
        .reason()
        .contains("no handler found for uri [/a/b/c] and method [GET]"));
}

#[test]
fn parse_errors_are_located_in_the_body() {
    let body = br#"{"query":{"bool":{"mustt":[]}}}"#;
    let unknown = SearchError::FieldParse {
        reason: "[bool] unknown field [mustt]".into(),
        cause: None,
    };
    let e = EsError::from(unknown).located(body).body();
    assert_eq!(e["error"]["reason"], "[1:19] [bool] unknown field [mustt]");
    assert_eq!(e["error"]["root_cause"][0]["reason"], e["error"]["reason"]);
    let query = SearchError::Parsing("unknown query [bool]".into());
    let e = EsError::from(query).located(body).body();
    assert_eq!(
        (&e["error"]["line"], &e["error"]["col"]),
        (&json!(1), &json!(18))
    );
    assert_eq!(e["error"]["root_cause"][0]["col"], 18);
    assert_eq!(e["error"]["reason"], "unknown query [bool]");
    // Other errors are not located, even when they name a key.
    let other = SearchError::IllegalArgument("[bool] is not allowed".into());
    let e = EsError::from(other).located(body).body();
    assert!(e["error"].get("line").is_none());
    assert_eq!(e["error"]["reason"], "[bool] is not allowed");
}
