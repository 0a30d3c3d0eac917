//! The front end over a real socket: identity and headers, index
//! management, single-document APIs, error shapes and limits.

use crate::support;

use serde_json::json;
use support::TestServer;

const LIMIT: usize = 1 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_identifies_as_elasticsearch_8() {
    let s = TestServer::start(LIMIT).await;
    let r = s.json("GET", "/", None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("x-elastic-product"), Some("Elasticsearch"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    let body = r.json();
    assert!(body["version"]["number"]
        .as_str()
        .unwrap()
        .starts_with("8."));
    assert_eq!(body["version"]["build_flavor"], "default");
    // The binary's commit, as the node was given it; `_nodes` and
    // `_nodes/stats` name it per node.
    assert_eq!(body["version"]["build_hash"], support::BUILD_HASH);
    for path in ["/_nodes", "/_nodes/stats"] {
        let nodes = s.json("GET", path, None).await.json()["nodes"].clone();
        let node = nodes.as_object().and_then(|n| n.values().next()).cloned();
        let hash = node.as_ref().map(|n| n["build_hash"].clone());
        assert_eq!(hash, Some(json!(support::BUILD_HASH)), "{path}: {nodes}");
    }
    assert_eq!(body["tagline"], "You Know, for Search");
    assert_eq!(body["cluster_name"], "test-cluster");
    let head = s.send("HEAD", "/", &[], None).await;
    assert_eq!(head.status, 200);
    let vendor = "application/vnd.elasticsearch+json; compatible-with=9";
    let r = s.send("GET", "/", &[("Accept", vendor)], None).await;
    assert_eq!(
        r.header("content-type"),
        Some("application/vnd.elasticsearch+json;compatible-with=9")
    );
    let uuid = body["cluster_uuid"].clone();
    let dir = s.stop(true).await;
    let again = TestServer::start_in(dir, LIMIT).await;
    assert_eq!(
        again.json("GET", "/", None).await.json()["cluster_uuid"],
        uuid
    );
    again.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn index_management() {
    let s = TestServer::start(LIMIT).await;
    let create = json!({
        "settings": {"number_of_shards": 2, "number_of_replicas": 0, "refresh_interval": "-1"},
        "mappings": {"properties": {"status": {"type": "integer"}, "msg": {"type": "text"}}}
    });
    let r = s.json("PUT", "/logs-1", Some(create.clone())).await;
    assert_eq!(
        (r.status, r.json()["index"].clone()),
        (200, json!("logs-1"))
    );
    let again = s.json("PUT", "/logs-1", Some(create)).await;
    assert_eq!(again.status, 400);
    assert_eq!(
        again.json()["error"]["type"],
        "resource_already_exists_exception"
    );
    s.json("PUT", "/logs-2", None).await;
    assert_eq!(s.send("HEAD", "/logs-1", &[], None).await.status, 200);
    assert_eq!(s.send("HEAD", "/nope", &[], None).await.status, 404);
    let got = s.json("GET", "/logs-*", None).await.json();
    assert_eq!(got["logs-1"]["settings"]["index"]["number_of_shards"], "2");
    assert!(got["logs-2"].is_object());
    let mapping = s.json("GET", "/logs-1/_mapping", None).await.json();
    assert_eq!(
        mapping["logs-1"]["mappings"]["properties"]["status"]["type"],
        "integer"
    );
    let put = s
        .json(
            "PUT",
            "/logs-1/_mapping",
            Some(json!({"properties": {"tag": {"type": "keyword"}}})),
        )
        .await;
    assert_eq!(put.status, 200);
    let settings = s
        .json(
            "PUT",
            "/logs-1/_settings",
            Some(json!({"index": {"refresh_interval": "5s"}})),
        )
        .await;
    assert_eq!(settings.status, 200);
    let got = s.json("GET", "/logs-1/_settings", None).await.json();
    assert_eq!(got["logs-1"]["settings"]["index"]["refresh_interval"], "5s");
    for api in ["_refresh", "_flush", "_forcemerge"] {
        let r = s.json("POST", &format!("/logs-1/{api}"), None).await;
        assert_eq!(
            (r.status, r.json()["_shards"]["successful"].clone()),
            (200, json!(2))
        );
    }
    let missing = s.json("GET", "/nope", None).await;
    assert_eq!(missing.status, 404);
    let err = missing.json();
    assert_eq!(err["status"], 404);
    assert_eq!(
        err["error"]["root_cause"][0]["type"],
        "index_not_found_exception"
    );
    assert_eq!(err["error"]["index"], "nope");
    assert_eq!(s.json("DELETE", "/logs-1,logs-2", None).await.status, 200);
    assert_eq!(s.json("GET", "/logs-*", None).await.json(), json!({}));
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_versions_and_conflicts() {
    let s = TestServer::start(LIMIT).await;
    let r = s
        .json("PUT", "/docs/_doc/1", Some(json!({"a": 1, "b": {"c": 2}})))
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let w = r.json();
    assert_eq!(
        (w["result"].clone(), w["_version"].clone()),
        (json!("created"), json!(1))
    );
    let r = s
        .json(
            "PUT",
            "/docs/_doc/1?refresh=true",
            Some(json!({"a": 2, "b": {"c": 3}})),
        )
        .await;
    assert_eq!(
        (r.status, r.json()["result"].clone()),
        (200, json!("updated"))
    );
    let seq_no = r.json()["_seq_no"].as_u64().unwrap();
    let got = s.json("GET", "/docs/_doc/1", None).await.json();
    assert_eq!(
        (got["found"].clone(), got["_source"]["a"].clone()),
        (json!(true), json!(2))
    );
    let filtered = s
        .json("GET", "/docs/_doc/1?_source_includes=b.*", None)
        .await
        .json();
    assert_eq!(filtered["_source"], json!({"b": {"c": 3}}));
    let src = s.json("GET", "/docs/_source/1", None).await.json();
    assert_eq!(src["a"], 2);
    let conflict = s
        .json("PUT", "/docs/_create/1", Some(json!({"a": 9})))
        .await;
    assert_eq!(conflict.status, 409);
    let body = conflict.json();
    assert_eq!(body["error"]["type"], "version_conflict_engine_exception");
    assert_eq!(body["error"]["index"], "docs");
    let stale = format!("/docs/_doc/1?if_seq_no={}&if_primary_term=1", seq_no + 5);
    assert_eq!(
        s.json("PUT", &stale, Some(json!({"a": 3}))).await.status,
        409
    );
    let fresh = format!("/docs/_doc/1?if_seq_no={seq_no}&if_primary_term=1");
    assert_eq!(
        s.json("PUT", &fresh, Some(json!({"a": 3}))).await.status,
        200
    );
    let up = s
        .json("POST", "/docs/_update/1", Some(json!({"doc": {"z": true}})))
        .await;
    assert_eq!(
        (up.status, up.json()["result"].clone()),
        (200, json!("updated"))
    );
    let noop = s
        .json("POST", "/docs/_update/1", Some(json!({"doc": {"z": true}})))
        .await;
    assert_eq!(noop.json()["result"], "noop");
    let upsert = s
        .json(
            "POST",
            "/docs/_update/2",
            Some(json!({"doc": {"x": 1}, "doc_as_upsert": true})),
        )
        .await;
    assert_eq!(upsert.status, 201);
    let missing = s
        .json("POST", "/docs/_update/3", Some(json!({"doc": {"x": 1}})))
        .await;
    assert_eq!(missing.status, 404);
    let auto = s.json("POST", "/docs/_doc", Some(json!({"k": "v"}))).await;
    assert_eq!(auto.status, 201);
    assert_eq!(auto.json()["_id"].as_str().unwrap().len(), 20);
    let mget = s
        .json("POST", "/docs/_mget", Some(json!({"ids": ["1", "404"]})))
        .await
        .json();
    assert_eq!(mget["docs"][0]["found"], true);
    assert_eq!(mget["docs"][1]["found"], false);
    assert_eq!(s.send("HEAD", "/docs/_doc/2", &[], None).await.status, 200);
    let del = s.json("DELETE", "/docs/_doc/2", None).await;
    assert_eq!(
        (del.status, del.json()["result"].clone()),
        (200, json!("deleted"))
    );
    let gone = s.json("DELETE", "/docs/_doc/2", None).await;
    assert_eq!(
        (gone.status, gone.json()["result"].clone()),
        (404, json!("not_found"))
    );
    let get_gone = s.json("GET", "/docs/_doc/2", None).await;
    assert_eq!(
        (get_gone.status, get_gone.json()["found"].clone()),
        (404, json!(false))
    );
    assert_eq!(
        s.json("PUT", "/docs/_doc/9?routing=x", Some(json!({})))
            .await
            .status,
        400
    );
    assert_eq!(
        s.json("PUT", "/docs/_doc/9?version=3", Some(json!({})))
            .await
            .status,
        400
    );
    // Acknowledged writes survive a restart without a flush (translog replay).
    let dir = s.stop(false).await;
    let again = TestServer::start_in(dir, LIMIT).await;
    let got = again.json("GET", "/docs/_doc/1", None).await.json();
    assert_eq!(
        (got["_source"]["a"].clone(), got["_source"]["z"].clone()),
        (json!(3), json!(true))
    );
    again.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_have_elasticsearch_shape_and_status() {
    let s = TestServer::start(4096).await;
    let ct = [("Content-Type", "application/json")];
    assert_eq!(s.json("PUT", "/x", None).await.status, 200);
    let bad = s.send("PUT", "/y", &ct, Some(b"{not json")).await;
    assert_eq!(bad.status, 400);
    assert_eq!(bad.json()["error"]["type"], "x_content_parse_exception");
    let bad = s.send("POST", "/x/_search", &ct, Some(b"[1,")).await;
    assert_eq!(bad.status, 400);
    let unknown = s.json("GET", "/_frobnicate", None).await;
    assert_eq!(unknown.status, 400);
    assert!(unknown.json()["error"]["reason"]
        .as_str()
        .unwrap()
        .contains("no handler found for uri [/_frobnicate] and method [GET]"));
    let wrong = s.json("GET", "/_bulk", None).await;
    assert_eq!(wrong.status, 405);
    assert!(wrong.header("allow").is_some());
    let big = vec![b' '; 8192];
    let r = s.send("POST", "/_bulk", &ct, Some(&big)).await;
    assert_eq!(r.status, 413);
    let text = [("Content-Type", "text/plain")];
    assert_eq!(s.send("PUT", "/x", &text, Some(b"{}")).await.status, 406);
    // Without a body the Content-Type is not looked at (Rally's refresh).
    let octets = [("Content-Type", "application/octet-stream")];
    assert_eq!(s.send("POST", "/_refresh", &octets, None).await.status, 200);
    assert_eq!(
        s.send("POST", "/_refresh", &octets, Some(b"x"))
            .await
            .status,
        406
    );
    let v5 = [(
        "Content-Type",
        "application/vnd.elasticsearch+json; compatible-with=5",
    )];
    assert_eq!(s.send("PUT", "/x", &v5, Some(b"{}")).await.status, 400);
    let query = s
        .json(
            "POST",
            "/x/_search",
            Some(json!({"query": {"no_such_query": {}}})),
        )
        .await;
    assert_eq!(query.status, 400);
    assert_eq!(query.json()["error"]["type"], "parsing_exception");
    s.json("PUT", "/qi", None).await;
    // `q=` is a query_string: Kibana's form and grouped values answer,
    // broken syntax is a 400.
    let q = s.json("GET", "/qi/_search?q=a:b", None).await;
    assert_eq!(q.status, 200);
    assert_eq!(q.json()["hits"]["total"]["value"], 0);
    let grouped = s.json("GET", "/qi/_search?q=a:(b%20c)", None).await;
    assert_eq!(grouped.status, 200);
    let broken = s.json("GET", "/qi/_search?q=a:(b", None).await;
    assert_eq!(broken.status, 400);
    let bad_name = s.json("PUT", "/Upper", None).await;
    assert_eq!(
        bad_name.json()["error"]["type"],
        "invalid_index_name_exception"
    );
    // Found by the full-length hostile-requests run: a NUL in the name was
    // answered 500 (the index's directory could not be made).
    for path in ["/%00", "/a%00b"] {
        let nul = s.json("PUT", path, None).await;
        assert_eq!(nul.status, 400, "{path}");
        assert_eq!(nul.json()["error"]["type"], "invalid_index_name_exception");
    }
    let garbage: Vec<u8> = (0..=255u8).collect();
    let r = s.send("PUT", "/x/_doc/1", &ct, Some(&garbage)).await;
    assert_eq!(r.status, 400);
    let pretty = s.json("GET", "/?pretty&filter_path=tagline", None).await;
    assert_eq!(
        pretty.text(),
        "{\n  \"tagline\": \"You Know, for Search\"\n}\n"
    );
    s.stop(true).await;
}

/// The bulk reply is written straight to bytes: its items keep
/// Elasticsearch's shape and key order, failed items carry their error,
/// an update's `get` is there, and `filter_path` and `pretty` still apply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_reply_shape_filter_path_and_pretty() {
    let s = TestServer::start(1 << 20).await;
    let nd = [("Content-Type", "application/x-ndjson")];
    let body = concat!(
        "{\"index\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"n\":1}\n",
        "{\"create\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"n\":2}\n",
        "{\"update\":{\"_index\":\"b\",\"_id\":\"1\"}}\n{\"doc\":{\"m\":3},\"_source\":true}\n",
        "{\"delete\":{\"_index\":\"b\",\"_id\":\"nope\"}}\n",
    );
    let r = s.send("POST", "/_bulk", &nd, Some(body.as_bytes())).await;
    assert_eq!(r.status, 200);
    let text = r.text();
    assert!(
        text.contains(concat!(
            r#"{"index":{"_index":"b","_id":"1","_version":1,"result":"created","#,
            r#""_shards":{"total":2,"successful":1,"failed":0},"_seq_no":0,"_primary_term":1,"status":201}}"#
        )),
        "{text}"
    );
    let v = r.json();
    assert_eq!(v["errors"], true);
    assert!(v["took"].is_u64());
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 4);
    let create = &items[1]["create"];
    assert_eq!(create["status"], 409);
    assert_eq!(create["_id"], "1");
    assert_eq!(create["error"]["type"], "version_conflict_engine_exception");
    let update = &items[2]["update"];
    assert_eq!(update["result"], "updated");
    assert_eq!(update["_version"], 2);
    assert_eq!(update["get"]["_source"], json!({"n": 1, "m": 3}));
    let delete = &items[3]["delete"];
    assert_eq!(
        (delete["status"].as_u64(), delete["result"].as_str()),
        (Some(404), Some("not_found"))
    );
    assert!(items[0]["index"].get("get").is_none());

    let line = "{\"index\":{\"_index\":\"b\",\"_id\":\"2\"}}\n{\"n\":4}\n";
    let filtered = s
        .send(
            "POST",
            "/_bulk?filter_path=items.*.status,errors",
            &nd,
            Some(line.as_bytes()),
        )
        .await;
    assert_eq!(
        filtered.json(),
        json!({"errors": false, "items": [{"index": {"status": 201}}]})
    );
    let line = "{\"index\":{\"_index\":\"b\",\"_id\":\"3\"}}\n{\"n\":5}\n";
    let pretty = s
        .send(
            "POST",
            "/_bulk?pretty&filter_path=errors",
            &nd,
            Some(line.as_bytes()),
        )
        .await;
    assert_eq!(pretty.text(), "{\n  \"errors\": false\n}\n");
    s.stop(true).await;
}
