//! Elasticsearch's index limits over a real socket
//! (`index.max_terms_count`, `index.max_result_window`,
//! `index.mapping.*`) and `cluster.max_shards_per_node`, with their error
//! bodies and settings.

use crate::support;

use serde_json::{json, Value};
use support::{assert_error, put_cluster_settings as put_settings, TestServer};

const MAX_BODY: usize = 8 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terms_beyond_max_terms_count_are_refused_until_raised() {
    let s = TestServer::start(MAX_BODY).await;
    s.json("PUT", "/t/_doc/1?refresh=true", Some(json!({"k": "v1"})))
        .await;
    let values: Vec<String> = (0..65_537).map(|i| format!("v{i}")).collect();
    let query = json!({"query": {"terms": {"k.keyword": values}}});
    let r = s.json("POST", "/t/_search", Some(query.clone())).await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "The number of terms [65537] used in the Terms Query request has exceeded the allowed maximum of [65536]. This maximum can be set by changing the [index.max_terms_count] index level setting.",
    );
    // _count applies it too.
    let r = s.json("POST", "/t/_count", Some(query.clone())).await;
    assert_eq!(r.status, 400, "{}", r.text());
    let r = s
        .json(
            "PUT",
            "/t/_settings",
            Some(json!({"index": {"max_terms_count": 70000}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let settings = s.json("GET", "/t/_settings", None).await.json();
    assert_eq!(
        settings["t"]["settings"]["index"]["max_terms_count"],
        "70000"
    );
    let r = s.json("POST", "/t/_search", Some(query)).await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["hits"]["total"]["value"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_window_is_an_index_setting() {
    let s = TestServer::start(MAX_BODY).await;
    s.json("PUT", "/w/_doc/1?refresh=true", Some(json!({"a": 1})))
        .await;
    let r = s
        .json(
            "POST",
            "/w/_search",
            Some(json!({"from": 9995, "size": 10})),
        )
        .await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "Result window is too large, from + size must be less than or equal to: [10000] but was [10005]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.",
    );
    let r = s
        .json(
            "PUT",
            "/w/_settings",
            Some(json!({"index.max_result_window": "20000"})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let r = s
        .json(
            "POST",
            "/w/_search",
            Some(json!({"from": 9995, "size": 10})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let r = s
        .json(
            "PUT",
            "/w/_settings",
            Some(json!({"index.max_result_window": 0})),
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mapping_limits_refuse_fields_depth_and_names() {
    let s = TestServer::start(MAX_BODY).await;
    let r = s
        .json(
            "PUT",
            "/m",
            Some(json!({"settings": {"index.mapping.total_fields.limit": 3,
                                     "index.mapping.depth.limit": 3,
                                     "index.mapping.field_name_length.limit": 8}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // A dynamic string is two fields (text and its keyword).
    let r = s.json("PUT", "/m/_doc/1", Some(json!({"a": "x"}))).await;
    assert_eq!(r.status, 201, "{}", r.text());
    let r = s
        .json("PUT", "/m/_doc/2", Some(json!({"b": "y", "c": 1})))
        .await;
    assert_error(
        &r,
        400,
        "document_parsing_exception",
        "failed to parse: Limit of total fields [3] has been exceeded while adding new fields [3]",
    );
    let r = s
        .json(
            "PUT",
            "/m/_mapping",
            Some(json!({"properties": {"b": {"type": "long"}, "c": {"type": "long"}}})),
        )
        .await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "Limit of total fields [3] has been exceeded",
    );
    assert!(!r.text().contains("while adding"), "{}", r.text());
    // Nothing of the refused document or mapping was kept.
    let mapping = s.json("GET", "/m/_mapping", None).await.json();
    let props = mapping["m"]["mappings"]["properties"].as_object().unwrap();
    assert_eq!(props.keys().collect::<Vec<_>>(), ["a"]);

    let r = s
        .json(
            "PUT",
            "/m/_settings",
            Some(json!({"index.mapping.total_fields.limit": 100})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // Objects o (depth 2), o.p (3), o.p.q (4 > 3).
    let r = s
        .json(
            "PUT",
            "/m/_doc/3",
            Some(json!({"o": {"p": {"q": {"leaf": 1}}}})),
        )
        .await;
    assert_error(
        &r,
        400,
        "document_parsing_exception",
        "failed to parse: Limit of mapping depth [3] has been exceeded due to object field [o.p.q]",
    );
    let r = s
        .json("PUT", "/m/_doc/4", Some(json!({"very_long_name": 1})))
        .await;
    assert_error(
        &r,
        400,
        "document_parsing_exception",
        "failed to parse: Field name [very_long_name] is longer than the limit of [8] characters",
    );
    // At creation, a mapping beyond the default 1000 fields.
    let properties: serde_json::Map<String, Value> = (0..1001)
        .map(|i| (format!("f{i}"), json!({"type": "long"})))
        .collect();
    let r = s
        .json(
            "PUT",
            "/big",
            Some(json!({"mappings": {"properties": properties}})),
        )
        .await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "Limit of total fields [1000] has been exceeded",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shards_per_node_cap_the_indices() {
    let s = TestServer::start(MAX_BODY).await;
    put_settings(&s, "persistent", json!({"cluster.max_shards_per_node": 3})).await;
    // One primary and one replica count two shards, as in Elasticsearch.
    assert_eq!(s.json("PUT", "/a", None).await.status, 200);
    let r = s.json("PUT", "/b", None).await;
    assert_error(
        &r,
        400,
        "validation_exception",
        "Validation Failed: 1: this action would add [2] shards, but this cluster currently has [2]/[3] maximum normal shards open;",
    );
    let r = s
        .json(
            "PUT",
            "/c",
            Some(json!({"settings": {"number_of_replicas": 0}})),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // Automatic creation by a write is refused the same way.
    let r = s.json("PUT", "/d/_doc/1", Some(json!({"x": 1}))).await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["error"]["type"], "validation_exception");
    let defaults = s
        .json(
            "GET",
            "/_cluster/settings?include_defaults=true&flat_settings=true",
            None,
        )
        .await
        .json();
    assert_eq!(defaults["persistent"]["cluster.max_shards_per_node"], "3");
    assert_eq!(defaults["defaults"]["cluster.max_shards_per_node"], "1000");
    let r = s
        .json(
            "PUT",
            "/_cluster/settings",
            Some(json!({"transient": {"cluster.max_shards_per_node": "none"}})),
        )
        .await;
    assert_eq!(r.status, 400);
    put_settings(
        &s,
        "persistent",
        json!({"cluster.max_shards_per_node": null}),
    )
    .await;
    assert_eq!(s.json("PUT", "/b", None).await.status, 200);
}
