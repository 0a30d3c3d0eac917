//! Node-wide search settings held in process-wide state, which assumes one
//! search node per process (`search.max_buckets`, as
//! `strata_search::set_max_buckets` documents): a binary of their own,
//! since the integration binary runs many nodes at once, and each node
//! that starts puts its own (default) limit in force.

#[path = "support/mod.rs"]
mod support;

use serde_json::json;
use support::logs::{dashboard, load};
use support::{assert_error, put_cluster_settings, TestServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_buckets_is_a_cluster_setting() {
    let s = TestServer::start(1 << 20).await;
    load(&s).await;
    let minutes = dashboard(json!({"match_all": {}}), "1m");
    let r = s
        .json("POST", "/logs-1/_search", Some(minutes.clone()))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json()["aggregations"]["2"]["buckets"]
            .as_array()
            .unwrap()
            .len(),
        40
    );
    put_cluster_settings(&s, "transient", json!({"search.max_buckets": 39})).await;
    let r = s
        .json("POST", "/logs-1/_search", Some(minutes.clone()))
        .await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "Trying to create too many buckets. Must be less than or equal to: [39]",
    );
    let r = s
        .json(
            "GET",
            "/_cluster/settings?include_defaults=true&flat_settings=true",
            None,
        )
        .await;
    assert_eq!(r.json()["transient"]["search.max_buckets"], "39");
    assert_eq!(r.json()["defaults"]["search.max_buckets"], "65536");
    put_cluster_settings(&s, "transient", json!({"search.max_buckets": null})).await;
    let r = s.json("POST", "/logs-1/_search", Some(minutes)).await;
    assert_eq!(r.status, 200, "{}", r.text());
}
