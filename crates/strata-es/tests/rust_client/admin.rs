//! Index management, single documents, templates, aliases, rollover and
//! error replies through the official Rust client, beyond what
//! `crates/strata/tests/es_rust_client.rs` already drives against the
//! binary (connecting, index/update/get/delete, `if_seq_no`, missing
//! indices, unknown queries).

use elasticsearch::http::headers::HeaderMap;
use elasticsearch::http::response::Response;
use elasticsearch::http::Method;
use elasticsearch::indices::{
    IndicesCreateParts, IndicesDeleteParts, IndicesExistsAliasParts, IndicesExistsParts,
    IndicesGetMappingParts, IndicesGetSettingsParts, IndicesPutIndexTemplateParts,
    IndicesPutMappingParts, IndicesPutSettingsParts, IndicesRefreshParts, IndicesRolloverParts,
};
use elasticsearch::params::Refresh;
use elasticsearch::{
    CountParts, CreateParts, DeleteParts, ExistsParts, GetParts, IndexParts, MgetParts,
    SearchParts, UpdateParts,
};
use serde_json::{json, Value};

use super::data::*;

/// The status and the error type of a search of the test index that fails.
async fn search_failure(client: &elasticsearch::Elasticsearch, body: Value) -> (u16, String) {
    let response = client
        .search(SearchParts::Index(&[INDEX]))
        .body(body)
        .send()
        .await
        .unwrap();
    failure(response).await
}

/// The status and the error type of a failed call.
async fn failure(response: Response) -> (u16, String) {
    let status = response.status_code().as_u16();
    let exception = response.exception().await.unwrap().expect("an error body");
    let kind = exception.error().ty().unwrap_or_default().to_string();
    assert_eq!(exception.status(), Some(status));
    (status, kind)
}

async fn count(client: &elasticsearch::Elasticsearch, index: &str) -> u64 {
    let reply = ok(client.count(CountParts::Index(&[index])).send().await).await;
    reply["count"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manages_mappings_settings_and_documents() {
    let (server, client) = loaded().await;
    let exists = client
        .indices()
        .exists(IndicesExistsParts::Index(&[INDEX]))
        .send()
        .await
        .unwrap();
    assert_eq!(exists.status_code().as_u16(), 200);
    let missing = client
        .indices()
        .exists(IndicesExistsParts::Index(&["rs-none"]))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status_code().as_u16(), 404);

    // Mappings and settings, read and changed.
    ok(client
        .indices()
        .put_mapping(IndicesPutMappingParts::Index(&[INDEX]))
        .body(json!({"properties": {"tag": {"type": "keyword", "ignore_above": 8}}}))
        .send()
        .await)
    .await;
    let mapping = ok(client
        .indices()
        .get_mapping(IndicesGetMappingParts::Index(&[INDEX]))
        .send()
        .await)
    .await;
    let properties = &mapping[INDEX]["mappings"]["properties"];
    assert_eq!(properties["status"]["type"], "integer");
    assert_eq!(properties["tag"]["ignore_above"], 8);
    ok(client
        .indices()
        .put_settings(IndicesPutSettingsParts::Index(&[INDEX]))
        .body(json!({"index": {"refresh_interval": "-1"}}))
        .send()
        .await)
    .await;
    let settings = ok(client
        .indices()
        .get_settings(IndicesGetSettingsParts::Index(&[INDEX]))
        .send()
        .await)
    .await;
    let index_settings = &settings[INDEX]["settings"]["index"];
    assert_eq!(index_settings["number_of_shards"], "2");
    assert_eq!(index_settings["refresh_interval"], "-1");

    // One document's life: index, get with _source filtering, update, mget,
    // exists, delete.
    let indexed = ok(client
        .index(IndexParts::IndexId(INDEX, "extra"))
        .body(json!({"method": "GET", "status": 201, "tag": "new"}))
        .send()
        .await)
    .await;
    assert_eq!(indexed["result"], "created");
    assert_eq!(indexed["_version"], 1);
    let got = ok(client
        .get(GetParts::IndexId(INDEX, "extra"))
        ._source(&["status"])
        .send()
        .await)
    .await;
    assert_eq!(got["_source"], json!({"status": 201}));
    let updated = ok(client
        .update(UpdateParts::IndexId(INDEX, "extra"))
        .body(json!({"doc": {"status": 202}}))
        .refresh(Refresh::True)
        .send()
        .await)
    .await;
    assert_eq!(updated["result"], "updated");
    assert_eq!(updated["_version"], 2);
    let many = ok(client
        .mget(MgetParts::Index(INDEX))
        .body(json!({"ids": ["extra", "7", "nope"]}))
        .send()
        .await)
    .await;
    let docs = many["docs"].as_array().unwrap();
    assert_eq!(
        docs[0]["_source"],
        json!({"method": "GET", "status": 202, "tag": "new"})
    );
    assert_eq!(docs[1]["_source"], Doc::new(7).source());
    assert_eq!(docs[2]["found"], false);
    assert_eq!(count(&client, INDEX).await, DOCS + 1);
    ok(client
        .delete(DeleteParts::IndexId(INDEX, "extra"))
        .refresh(Refresh::True)
        .send()
        .await)
    .await;
    let gone = client
        .exists(ExistsParts::IndexId(INDEX, "extra"))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status_code().as_u16(), 404);
    assert_eq!(count(&client, INDEX).await, DOCS);
    server.stop(false).await;
}

/// Rolls `rs-roll` over if it holds at least `max_docs` documents.
async fn rollover(client: &elasticsearch::Elasticsearch, max_docs: u64) -> Value {
    client
        .indices()
        .rollover(IndicesRolloverParts::Alias("rs-roll"))
        .body(json!({"conditions": {"max_docs": max_docs}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aliases_templates_and_rollover() {
    let (server, client) = loaded().await;
    ok(client
        .indices()
        .put_index_template(IndicesPutIndexTemplateParts::Name("rs-roll"))
        .body(json!({"index_patterns": ["rs-roll-*"], "priority": 50,
                     "template": {"settings": {"number_of_shards": 2},
                                  "mappings": {"properties": {"level": {"type": "keyword"}}}}}))
        .send()
        .await)
    .await;
    ok(client
        .indices()
        .create(IndicesCreateParts::Index("rs-roll-000001"))
        .body(json!({"aliases": {
            "rs-roll": {"is_write_index": true},
            "rs-errors": {"filter": {"term": {"level": "error"}}}}}))
        .send()
        .await)
    .await;
    for (i, level) in ["error", "info", "error"].into_iter().enumerate() {
        ok(client
            .index(IndexParts::IndexId("rs-roll", &i.to_string()))
            .body(json!({"level": level}))
            .send()
            .await)
        .await;
    }
    client
        .indices()
        .refresh(IndicesRefreshParts::Index(&["rs-roll"]))
        .send()
        .await
        .unwrap();
    assert_eq!(count(&client, "rs-roll").await, 3);
    assert_eq!(count(&client, "rs-errors").await, 2);

    let kept = rollover(&client, 10).await;
    assert_eq!(kept["rolled_over"], false);
    assert_eq!(kept["conditions"], json!({"[max_docs: 10]": false}));
    let rolled = rollover(&client, 3).await;
    assert_eq!(rolled["rolled_over"], true);
    assert_eq!(rolled["new_index"], "rs-roll-000002");
    ok(client
        .index(IndexParts::IndexId("rs-roll", "new"))
        .body(json!({"level": "info"}))
        .refresh(Refresh::True)
        .send()
        .await)
    .await;
    let found = client
        .exists(ExistsParts::IndexId("rs-roll-000002", "new"))
        .send()
        .await
        .unwrap();
    assert_eq!(found.status_code().as_u16(), 200);
    assert_eq!(count(&client, "rs-roll").await, 4);

    ok(client
        .indices()
        .update_aliases()
        .body(json!({"actions": [
            {"remove": {"index": "rs-roll-*", "alias": "rs-errors"}},
            {"add": {"index": "rs-roll-000002", "alias": "rs-latest"}}]}))
        .send()
        .await)
    .await;
    let removed = client
        .indices()
        .exists_alias(IndicesExistsAliasParts::Name(&["rs-errors"]))
        .send()
        .await
        .unwrap();
    assert_eq!(removed.status_code().as_u16(), 404);
    assert_eq!(count(&client, "rs-latest").await, 1);

    // Wildcard deletes are refused by default, names are not.
    let wildcard = client
        .indices()
        .delete(IndicesDeleteParts::Index(&["rs-roll-*"]))
        .send()
        .await
        .unwrap();
    assert_eq!(
        failure(wildcard).await,
        (400, "illegal_argument_exception".into())
    );
    ok(client
        .indices()
        .delete(IndicesDeleteParts::Index(&[
            "rs-roll-000001",
            "rs-roll-000002",
        ]))
        .send()
        .await)
    .await;
    server.stop(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_have_elasticsearch_statuses_and_types() {
    let (server, client) = loaded().await;
    let again = client
        .indices()
        .create(IndicesCreateParts::Index(INDEX))
        .send()
        .await
        .unwrap();
    assert_eq!(
        failure(again).await,
        (400, "resource_already_exists_exception".into())
    );

    let conflict = client
        .create(CreateParts::IndexId(INDEX, "1"))
        .body(json!({"method": "PUT"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        failure(conflict).await,
        (409, "version_conflict_engine_exception".into())
    );
    let stale = client
        .index(IndexParts::IndexId(INDEX, "1"))
        .if_seq_no(999_999)
        .if_primary_term(1)
        .body(json!({"method": "PUT"}))
        .send()
        .await
        .unwrap();
    assert_eq!(failure(stale).await.0, 409);

    let not_an_address = json!({"query": {"range": {"client_ip": {"gte": "10.0.0.x"}}}});
    assert_eq!(search_failure(&client, not_an_address).await.0, 400);
    let pattern_on_address = json!({"query": {"wildcard": {"client_ip": "10.0.*"}}});
    assert_eq!(
        search_failure(&client, pattern_on_address).await,
        (400, "search_phase_execution_exception".into())
    );

    let wrong_type = client
        .index(IndexParts::IndexId(INDEX, "bad"))
        .body(json!({"status": "not a number"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        failure(wrong_type).await,
        (400, "document_parsing_exception".into())
    );

    // A body that is not JSON, sent as raw bytes.
    let malformed = client
        .send(
            Method::Post,
            &format!("/{INDEX}/_search"),
            HeaderMap::new(),
            Option::<&Value>::None,
            Some(b"{\"query\": {".as_slice()),
            None,
        )
        .await
        .unwrap();
    assert_eq!(failure(malformed).await.0, 400);

    // Nothing above changed the index.
    let doc = ok(client.get(GetParts::IndexId(INDEX, "1")).send().await).await;
    assert_eq!(doc["_source"], Doc::new(1).source());
    assert_eq!(count(&client, INDEX).await, DOCS);
    server.stop(false).await;
}
