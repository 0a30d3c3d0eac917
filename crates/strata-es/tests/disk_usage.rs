//! `POST /<index>/_disk_usage`: refused without `run_expensive_tasks`, and
//! with it the bytes of each mapped field by structure, adding up to the
//! index's totals.

use crate::support;

use serde_json::{json, Value};
use support::{assert_error, TestServer};

const LIMIT: usize = 4 << 20;

/// An index of two shards with a long text, a low-cardinality keyword, a
/// unique number and a unique keyword, and `docs` documents.
async fn indexed(s: &TestServer, docs: usize) {
    let mapping = json!({
        "settings": {"number_of_shards": 2, "number_of_replicas": 0},
        "mappings": {"properties": {
            "msg": {"type": "text"},
            "tag": {"type": "keyword"},
            "n": {"type": "long"},
            "uid": {"type": "keyword"}
        }}
    });
    assert_eq!(s.json("PUT", "/logs", Some(mapping)).await.status, 200);
    let mut bulk = String::new();
    for i in 0..docs {
        let words: Vec<String> = (0..40)
            .map(|w| format!("word{}", (i * 7 + w * 13) % 997))
            .collect();
        bulk.push_str(&json!({"index": {"_id": i.to_string()}}).to_string());
        bulk.push('\n');
        let tag = ["a", "b"][i % 2];
        let doc = json!({"msg": words.join(" "), "tag": tag, "n": i * 1000 + 7, "uid": format!("u-{i:08}")});
        bulk.push_str(&doc.to_string());
        bulk.push('\n');
    }
    let r = s
        .send(
            "POST",
            "/logs/_bulk?refresh=true",
            &[("Content-Type", "application/x-ndjson")],
            Some(bulk.as_bytes()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["errors"], false, "{}", r.text());
}

fn bytes(v: &Value, key: &str) -> u64 {
    v[format!("{key}_in_bytes")]
        .as_u64()
        .unwrap_or_else(|| panic!("{key}_in_bytes in {v}"))
}

fn inverted(v: &Value) -> u64 {
    v["inverted_index"]["total_in_bytes"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn needs_run_expensive_tasks_and_an_index() {
    let s = TestServer::start(LIMIT).await;
    indexed(&s, 10).await;
    let r = s.json("POST", "/logs/_disk_usage", None).await;
    assert_error(
        &r,
        400,
        "illegal_argument_exception",
        "analyzing the disk usage",
    );
    let r = s
        .json("POST", "/logs/_disk_usage?run_expensive_tasks=false", None)
        .await;
    assert_eq!(r.status, 400);
    let r = s
        .json("POST", "/nope/_disk_usage?run_expensive_tasks=true", None)
        .await;
    assert_eq!(r.status, 404, "{}", r.text());
    let r = s
        .json("GET", "/logs/_disk_usage?run_expensive_tasks=true", None)
        .await;
    assert_eq!(r.status, 405, "{}", r.text());
    s.stop(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn splits_the_index_by_field_and_structure() {
    let s = TestServer::start(LIMIT).await;
    indexed(&s, 3000).await;
    let r = s
        .json("POST", "/logs/_disk_usage?run_expensive_tasks=true", None)
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let body = r.json();
    assert_eq!(
        body["_shards"],
        json!({"total": 2, "successful": 2, "failed": 0})
    );
    let logs = &body["logs"];
    let fields = logs["fields"].as_object().unwrap();

    // What each mapped field's structures are.
    let msg = &fields["msg"];
    assert!(inverted(msg) > 0, "{msg}");
    assert_eq!(bytes(msg, "doc_values"), 0, "text has no doc values: {msg}");
    for name in ["tag", "n", "uid"] {
        let f = &fields[name];
        assert!(bytes(f, "doc_values") > 0, "{name}: {f}");
        assert_eq!(bytes(f, "points"), 0);
    }
    // Strings are terms; numbers only columns (their queries read those).
    assert!(inverted(&fields["tag"]) > 0);
    assert!(inverted(&fields["uid"]) > 0);
    assert_eq!(inverted(&fields["n"]), 0, "{}", fields["n"]);
    assert!(bytes(&fields["_source"], "stored_fields") > 0);
    assert!(inverted(&fields["_id"]) > 0);
    // Forty words per document against one of two tags: the text's
    // postings and positions dwarf the keyword's; the 3,000 unique
    // ids need far more dictionary than two tags.
    assert!(
        inverted(msg) > 4 * inverted(&fields["tag"]),
        "{msg} vs {}",
        fields["tag"]
    );
    assert!(inverted(&fields["uid"]) > 4 * inverted(&fields["tag"]));

    // The parts add up: per field, and over all fields.
    let mut sum = 0;
    for (name, f) in fields {
        let parts: u64 = [
            "stored_fields",
            "doc_values",
            "points",
            "norms",
            "term_vectors",
        ]
        .iter()
        .map(|k| bytes(f, k))
        .sum::<u64>()
            + inverted(f);
        assert_eq!(bytes(f, "total"), parts, "{name}: {f}");
        sum += parts;
    }
    let all = &logs["all_fields"];
    assert_eq!(bytes(all, "total"), sum);
    assert!(bytes(all, "total") <= bytes(logs, "store_size"), "{logs}");
    assert!(
        bytes(all, "total") > bytes(logs, "store_size") / 2,
        "{logs}"
    );
    assert!(
        logs["store_size"].as_str().unwrap().ends_with("kb")
            || logs["store_size"].as_str().unwrap().ends_with("mb")
    );
    s.stop(true).await;
}
