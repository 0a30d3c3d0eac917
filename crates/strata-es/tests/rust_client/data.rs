//! The documents every test indexes, a client over a node holding them,
//! and small helpers to search and to compute expected answers.

use std::collections::BTreeSet;

use elasticsearch::http::request::JsonBody;
use elasticsearch::http::response::Response;
use elasticsearch::http::transport::Transport;
use elasticsearch::params::Refresh;
use elasticsearch::{BulkParts, Elasticsearch, SearchParts};
use serde_json::{json, Value};

use crate::support::TestServer;

pub const INDEX: &str = "rs-logs";
pub const DOCS: u64 = 240;
/// 2023-11-14T22:13:20Z.
pub const BASE_MS: i64 = 1_700_000_000_000;
pub const MINUTE_MS: i64 = 60_000;
pub const HOUR_MS: i64 = 60 * MINUTE_MS;
pub const DAY_MS: i64 = 24 * HOUR_MS;
pub const METHODS: [&str; 5] = ["GET", "POST", "PUT", "DELETE", "HEAD"];
/// (lat, lon) of four cities: Paris, Berlin, New York, Tokyo.
pub const PLACES: [(f64, f64); 4] = [
    (48.8566, 2.3522),
    (52.52, 13.405),
    (40.7128, -74.006),
    (35.6762, 139.6503),
];

/// One generated log line, as the test knows it.
pub struct Doc {
    pub id: u64,
    pub ts: i64,
    pub method: &'static str,
    pub status: i64,
    pub bytes: i64,
    pub price: f64,
    pub user: String,
    pub item: u64,
    pub ip_octet: u64,
    pub place: (f64, f64),
    pub has_referrer: bool,
}

impl Doc {
    pub fn new(i: u64) -> Doc {
        Doc {
            id: i,
            ts: BASE_MS + i as i64 * 11 * MINUTE_MS,
            // Skewed: squares mod 5 favour 0, 1 and 4.
            method: METHODS[(i * i % 5) as usize],
            status: if i % 9 == 0 {
                404
            } else if i % 13 == 0 {
                500
            } else {
                200
            },
            // 37 and 1000 are coprime: every value is distinct.
            bytes: (i * 37 % 1000) as i64,
            price: (i % 50) as f64 * 0.25,
            user: format!("user{}", i % 17),
            item: i % 6,
            ip_octet: i % 4,
            place: PLACES[(i % 7 % 4) as usize],
            has_referrer: i % 3 == 0,
        }
    }

    pub fn source(&self) -> Value {
        let mut doc = json!({
            "@timestamp": self.ts,
            "method": self.method,
            "status": self.status,
            "bytes": self.bytes,
            "price": self.price,
            "user": self.user,
            "message": format!("{} /shop/item{} by {}", self.method, self.item, self.user),
            "client_ip": format!("10.0.{}.{}", self.ip_octet, self.id % 200),
            "location": {"lat": self.place.0, "lon": self.place.1},
        });
        if self.has_referrer {
            doc["referrer"] = json!("https://example.com/");
        }
        doc
    }
}

pub fn docs() -> Vec<Doc> {
    (0..DOCS).map(Doc::new).collect()
}

/// A client over a node holding the documents, two shards.
pub async fn loaded() -> (TestServer, Elasticsearch) {
    let server = TestServer::start(64 << 20).await;
    let url = format!("http://{}", server.addr);
    let client = Elasticsearch::new(Transport::single_node(&url).unwrap());
    let created = client
        .indices()
        .create(elasticsearch::indices::IndicesCreateParts::Index(INDEX))
        .body(json!({
            "settings": {"number_of_shards": 2, "number_of_replicas": 0},
            "mappings": {"properties": {
                "@timestamp": {"type": "date"},
                "method": {"type": "keyword"},
                "status": {"type": "integer"},
                "bytes": {"type": "long"},
                "price": {"type": "double"},
                "user": {"type": "keyword"},
                "message": {"type": "text"},
                "client_ip": {"type": "ip"},
                "location": {"type": "geo_point"},
                "referrer": {"type": "keyword"},
            }},
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status_code().as_u16(), 200);
    let mut body: Vec<JsonBody<Value>> = Vec::new();
    for doc in docs() {
        body.push(json!({"index": {"_id": doc.id.to_string()}}).into());
        body.push(doc.source().into());
    }
    let bulk = ok(client
        .bulk(BulkParts::Index(INDEX))
        .refresh(Refresh::True)
        .body(body)
        .send()
        .await)
    .await;
    assert_eq!(bulk["errors"], false, "{bulk}");
    assert_eq!(bulk["items"].as_array().unwrap().len(), DOCS as usize);
    (server, client)
}

/// The JSON body of a call that succeeded (any other status fails the test).
pub async fn ok(response: Result<Response, elasticsearch::Error>) -> Value {
    let response = response.expect("sent");
    let status = response.status_code().as_u16();
    let body: Value = response.json().await.expect("a JSON body");
    assert!((200..300).contains(&status), "status {status}: {body}");
    body
}

/// The ids of a page of hits.
pub fn hit_ids(reply: &Value) -> Vec<u64> {
    reply["hits"]["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["_id"].as_str().unwrap().parse().unwrap())
        .collect()
}

/// A search of the test index that must succeed.
pub async fn search(client: &Elasticsearch, body: Value) -> Value {
    ok(client
        .search(SearchParts::Index(&[INDEX]))
        .body(body)
        .send()
        .await)
    .await
}

/// The ids a query matches (all of them: the index holds fewer than 1,000).
pub async fn matching(client: &Elasticsearch, query: Value) -> BTreeSet<u64> {
    let reply = search(client, json!({"query": query, "size": 1000})).await;
    let ids = hit_ids(&reply);
    assert_eq!(reply["hits"]["total"]["value"], ids.len(), "{query}");
    ids.into_iter().collect()
}

/// The ids of the documents `filter` keeps.
pub fn ids(filter: impl Fn(&Doc) -> bool) -> BTreeSet<u64> {
    docs()
        .into_iter()
        .filter(|d| filter(d))
        .map(|d| d.id)
        .collect()
}
