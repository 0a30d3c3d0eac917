//! Rollover over a real socket: conditions, dry runs, generated and given
//! names, the write alias moving (implicit and explicit write index),
//! templates on the new index, and the errors.

use crate::support;

use serde_json::{json, Value};
use support::TestServer;

const LIMIT: usize = 1 << 20;

fn error_type(body: &Value) -> String {
    body["error"]["type"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn index_docs(s: &TestServer, target: &str, n: usize) {
    for i in 0..n {
        let r = s
            .json("POST", &format!("/{target}/_doc"), Some(json!({"n": i})))
            .await;
        assert_eq!(r.status, 201, "{}", r.text());
    }
    s.json("POST", &format!("/{target}/_refresh"), None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollover_moves_the_write_alias_when_a_condition_is_met() {
    let s = TestServer::start(LIMIT).await;
    s.json(
        "PUT",
        "/_index_template/logs",
        Some(json!({"index_patterns": ["logs-*"], "template": {"settings": {"number_of_shards": 2}}})),
    )
    .await;
    s.json(
        "PUT",
        "/logs-000001",
        Some(json!({"aliases": {"logs": {}}})),
    )
    .await;
    index_docs(&s, "logs", 3).await;
    // Not met: nothing changes.
    let r = s
        .json(
            "POST",
            "/logs/_rollover",
            Some(json!({"conditions": {"max_docs": 5, "max_age": "7d"}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(body["rolled_over"], false);
    assert_eq!(body["acknowledged"], false);
    assert_eq!(body["old_index"], "logs-000001");
    assert_eq!(body["new_index"], "logs-000002");
    assert_eq!(
        body["conditions"],
        json!({"[max_docs: 5]": false, "[max_age: 7d]": false})
    );
    assert_eq!(s.json("HEAD", "/logs-000002", None).await.status, 404);
    // Met, but a dry run.
    let r = s
        .json(
            "POST",
            "/logs/_rollover?dry_run=true",
            Some(json!({"conditions": {"max_docs": 3}})),
        )
        .await
        .json();
    assert_eq!(
        (r["dry_run"].clone(), r["rolled_over"].clone()),
        (json!(true), json!(false))
    );
    assert_eq!(r["conditions"]["[max_docs: 3]"], true);
    assert_eq!(s.json("HEAD", "/logs-000002", None).await.status, 404);
    // Met.
    let r = s
        .json(
            "POST",
            "/logs/_rollover",
            Some(json!({"conditions": {"max_docs": 3, "max_size": "1tb"}})),
        )
        .await
        .json();
    assert_eq!(r["rolled_over"], true);
    assert_eq!(r["acknowledged"], true);
    assert_eq!(r["shards_acknowledged"], true);
    assert_eq!(r["new_index"], "logs-000002");
    assert_eq!(r["conditions"]["[max_size: 1tb]"], false);
    // The alias moved; the template applied to the new index.
    let aliases = s.json("GET", "/_alias/logs", None).await.json();
    assert_eq!(aliases, json!({"logs-000002": {"aliases": {"logs": {}}}}));
    let settings = s.json("GET", "/logs-000002/_settings", None).await.json();
    assert_eq!(
        settings["logs-000002"]["settings"]["index"]["number_of_shards"],
        "2"
    );
    index_docs(&s, "logs", 1).await;
    let c = s.json("GET", "/logs-000002/_count", None).await.json();
    assert_eq!(c["count"], 1);
    // No conditions: always rolls; an explicit new name.
    let r = s
        .json("POST", "/logs/_rollover/logs-archive-x", None)
        .await
        .json();
    assert_eq!(
        (r["rolled_over"].clone(), r["new_index"].clone()),
        (json!(true), json!("logs-archive-x"))
    );
    // The name has no number now: an explicit name is required.
    let r = s.json("POST", "/logs/_rollover", None).await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (400, "illegal_argument_exception".into())
    );
    assert!(r.text().contains("does not match pattern"));
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explicit_write_index_stays_readable_and_errors_match_elasticsearch() {
    let s = TestServer::start(LIMIT).await;
    s.json(
        "PUT",
        "/app-000007",
        Some(json!({"aliases": {"app": {"is_write_index": true}}})),
    )
    .await;
    index_docs(&s, "app", 2).await;
    let r = s
        .json(
            "POST",
            "/app/_rollover",
            Some(json!({"conditions": {"max_primary_shard_docs": 2}, "settings": {"number_of_shards": 3}})),
        )
        .await
        .json();
    assert_eq!(r["new_index"], "app-000008");
    assert_eq!(r["rolled_over"], true);
    let aliases = s.json("GET", "/_alias/app", None).await.json();
    assert_eq!(
        aliases,
        json!({
            "app-000007": {"aliases": {"app": {"is_write_index": false}}},
            "app-000008": {"aliases": {"app": {"is_write_index": true}}}
        })
    );
    let settings = s.json("GET", "/app-000008/_settings", None).await.json();
    assert_eq!(
        settings["app-000008"]["settings"]["index"]["number_of_shards"],
        "3"
    );
    index_docs(&s, "app", 1).await;
    assert_eq!(s.json("GET", "/app/_count", None).await.json()["count"], 3);
    assert_eq!(
        s.json("GET", "/app-000008/_count", None).await.json()["count"],
        1
    );

    // Errors: missing target, a concrete index, no write index, bad conditions,
    // an existing target name, a template that would duplicate the alias.
    let r = s.json("POST", "/nope/_rollover", None).await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (404, "resource_not_found_exception".into())
    );
    let r = s.json("POST", "/app-000008/_rollover", None).await;
    assert_eq!(r.status, 400);
    s.json("PUT", "/x-1", None).await;
    s.json("PUT", "/x-2", None).await;
    s.json(
        "POST",
        "/_aliases",
        Some(json!({"actions": [{"add": {"indices": ["x-1", "x-2"], "alias": "x"}}]})),
    )
    .await;
    let r = s.json("POST", "/x/_rollover", None).await;
    assert_eq!(r.status, 400);
    assert!(r.text().contains("does not point to a write index"));
    let r = s
        .json(
            "POST",
            "/app/_rollover",
            Some(json!({"conditions": {"max_frob": 1}})),
        )
        .await;
    assert_eq!(r.status, 400);
    let r = s.json("POST", "/app/_rollover/x-1", None).await;
    assert_eq!(
        (r.status, error_type(&r.json())),
        (400, "resource_already_exists_exception".into())
    );
    s.json(
        "PUT",
        "/_template/dup",
        Some(json!({"index_patterns": ["app-*"], "aliases": {"app": {}}})),
    )
    .await;
    let r = s.json("POST", "/app/_rollover", None).await;
    assert_eq!(r.status, 400);
    assert!(
        r.text().contains("can point to multiple indices"),
        "{}",
        r.text()
    );
    assert_eq!(s.json("HEAD", "/app-000009", None).await.status, 404);
    s.stop(true).await;
}
